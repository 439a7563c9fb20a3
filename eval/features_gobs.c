/*
 * eval/features_gobs.c -- value and move features of Gobs (standard and short).
 *
 * From the side to move's point of view.  The game is lost below GOBS_LIMIT (5) pieces,
 * so material and how close each side is to that line dominate; the rest measures what
 * the next turn can do: pieces one jump leg can flip (a flip swings the count by two),
 * pieces an elimination can remove, mobility, and pieces that neither threat reaches.
 * The geometry follows the rules engine (docs/RULES.md): standard legs fly over one
 * enemy piece at any distance and land on any empty square beyond it; short-variant
 * legs jump an adjacent piece; eliminations need at least one empty square (exactly
 * one in the short variant) between the two pieces.
 */
#include <string.h>

#include "../games/gobs.h"
#include "features.h"

enum {
    F_COUNT,      /* pieces, own - opponent */
    F_OWN_LOW,    /* max(0, 8 - own pieces): how close the side to move is to GOBS */
    F_OPP_LOW,    /* max(0, 8 - opponent's pieces) */
    F_OWN_GOBSED, /* the side to move stands at 5 pieces or fewer (must answer) */
    F_FLIP_GAIN,  /* opponent pieces one of our legs can flip now */
    F_FLIP_RISK,  /* own pieces one of the opponent's legs could flip */
    F_ELIM_GAIN,  /* opponent pieces we can eliminate now */
    F_ELIM_RISK,  /* own pieces the opponent could eliminate */
    F_MOBILITY,   /* slides, own - opponent */
    F_SAFE,       /* pieces out of both threats, own - opponent */
    F_EDGE,       /* pieces on the board's edge, own - opponent */
    F_CHAIN,      /* in the middle of a jump chain */
    F_TEMPO,      /* 1 */
    NVALUE
};

static const char *const value_names[NVALUE] = {
    "count",     "own_low",  "opp_low", "own_gobsed", "flip_gain", "flip_risk", "elim_gain",
    "elim_risk", "mobility", "safe",    "edge",       "chain",     "tempo",
};

enum {
    P_SLIDE,
    P_ELIM,
    P_LEG,
    P_STOP,
    P_LAND_FLIP, /* the moved piece can be flipped where it lands */
    P_LAND_ELIM, /* the moved piece can be eliminated where it lands */
    P_ESCAPE,    /* the moved piece could be flipped or eliminated where it stood */
    P_MORE_LEGS, /* after this leg the chain can go on */
    P_OPP_NEAR,  /* opponent left with 6 pieces or fewer */
    P_CENTRE,    /* steps gained toward the centre */
    NPOLICY
};

static const char *const policy_names[NPOLICY] = {
    "p_slide",     "p_elim",   "p_leg",       "p_stop",     "p_land_flip",
    "p_land_elim", "p_escape", "p_more_legs", "p_opp_near", "p_centre",
};

static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};

typedef struct {
    uint64_t w[2];
} set81_t;

static inline void set_add(set81_t *s, int sq) {
    s->w[sq >> 6] |= 1ull << (sq & 63);
}
static inline int set_has(const set81_t *s, int sq) {
    return (s->w[sq >> 6] >> (sq & 63)) & 1;
}
static inline int set_count(const set81_t *s) {
    return __builtin_popcountll(s->w[0]) + __builtin_popcountll(s->w[1]);
}

static inline int cell_at(const gk_pos_t *p, int x, int y) {
    if (x < 0 || x >= GOBS_SIZE || y < 0 || y >= GOBS_SIZE) return -1;
    return p->b.cell[GOBS_SIZE * y + x];
}

typedef struct {
    set81_t flip; /* enemy pieces this side can flip with one leg */
    set81_t elim; /* enemy pieces this side can eliminate */
    int slides;
} threats_t;

/* What the pieces of `side` (or only the piece on `only`, when >= 0) threaten. */
static void threats_of(const gk_pos_t *p, int side, int only, threats_t *t) {
    memset(t, 0, sizeof *t);
    const int mc = side + 1, oc = 2 - side, short_var = p->variant == GOBS_VAR_SHORT;
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        if (p->b.cell[sq] != mc || (only >= 0 && sq != only)) continue;
        int x0 = sq % GOBS_SIZE, y0 = sq / GOBS_SIZE;
        for (int d = 0; d < 8; d++) {
            int x = x0 + DX[d], y = y0 + DY[d], k = 0, v;
            while ((v = cell_at(p, x, y)) == GOBS_EMPTY && (!short_var || k < 2)) {
                t->slides++;
                k++;
                x += DX[d];
                y += DY[d];
            }
            if (v != oc) continue;
            int beyond = cell_at(p, x + DX[d], y + DY[d]);
            if (short_var) {
                if (k == 0 && beyond == GOBS_EMPTY) set_add(&t->flip, GOBS_SIZE * y + x);
                if (k == 1) set_add(&t->elim, GOBS_SIZE * y + x);
            } else {
                if (beyond == GOBS_EMPTY) set_add(&t->flip, GOBS_SIZE * y + x);
                if (k > 0) set_add(&t->elim, GOBS_SIZE * y + x);
            }
        }
    }
}

static int is_edge(int sq) {
    int x = sq % GOBS_SIZE, y = sq / GOBS_SIZE;
    return x == 0 || y == 0 || x == GOBS_SIZE - 1 || y == GOBS_SIZE - 1;
}

static int trace_gobs(const gk_pos_t *p, float *f) {
    memset(f, 0, sizeof(float) * NVALUE);
    int me = p->stm, op = me ^ 1;
    int own = gobs_count(p, me), opp = gobs_count(p, op);
    f[F_COUNT] = (float)(own - opp);
    f[F_OWN_LOW] = (float)(own < 8 ? 8 - own : 0);
    f[F_OPP_LOW] = (float)(opp < 8 ? 8 - opp : 0);
    f[F_OWN_GOBSED] = own <= GOBS_LIMIT ? 1.0f : 0.0f;
    threats_t tm, to;
    /* In a jump chain only the jumping piece can still act this turn. */
    threats_of(p, me, p->in_turn ? p->aux[GOBS_AUX_JUMPER] : -1, &tm);
    threats_of(p, op, -1, &to);
    f[F_FLIP_GAIN] = (float)set_count(&tm.flip);
    f[F_FLIP_RISK] = (float)set_count(&to.flip);
    if (!p->in_turn) f[F_ELIM_GAIN] = (float)set_count(&tm.elim);
    f[F_ELIM_RISK] = (float)set_count(&to.elim);
    if (p->in_turn) threats_of(p, me, -1, &tm); /* mobility counts every piece */
    f[F_MOBILITY] = (float)(tm.slides - to.slides);
    int safe_me = 0, safe_op = 0, edge = 0;
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        int v = p->b.cell[sq];
        if (v == GOBS_EMPTY) continue;
        int mine = v == me + 1;
        if (mine) {
            safe_me += !set_has(&to.flip, sq) && !set_has(&to.elim, sq);
        } else {
            safe_op += !set_has(&tm.flip, sq) && !set_has(&tm.elim, sq);
        }
        if (is_edge(sq)) edge += mine ? 1 : -1;
    }
    f[F_SAFE] = (float)(safe_me - safe_op);
    f[F_EDGE] = (float)edge;
    f[F_CHAIN] = p->in_turn ? 1.0f : 0.0f;
    f[F_TEMPO] = 1.0f;
    return NVALUE;
}

/* ---- policy ---- */

typedef struct {
    threats_t op; /* the opponent's threats before the action */
} gobs_pctx_t;

_Static_assert(sizeof(gobs_pctx_t) <= sizeof(ev_pctx_t), "policy context too large");
_Static_assert(NVALUE <= EV_MAX_FEATURES && NPOLICY <= EV_MAX_POLICY, "raise EV_MAX_*");

static void prep_gobs(const gk_pos_t *p, ev_pctx_t *ctx) {
    gobs_pctx_t *c = (gobs_pctx_t *)ctx->bytes;
    threats_of(p, p->stm ^ 1, -1, &c->op);
}

/* Can the opponent of `side` flip / eliminate the piece of `side` on sq in q? */
static void exposure(const gk_pos_t *q, int side, int sq, int *flip, int *elim) {
    const int oc = 2 - side, short_var = q->variant == GOBS_VAR_SHORT;
    int x0 = sq % GOBS_SIZE, y0 = sq / GOBS_SIZE;
    *flip = *elim = 0;
    for (int d = 0; d < 8; d++) {
        int x = x0 + DX[d], y = y0 + DY[d], k = 0, v;
        while ((v = cell_at(q, x, y)) == GOBS_EMPTY && (!short_var || k < 2)) {
            k++;
            x += DX[d];
            y += DY[d];
        }
        if (v != oc) continue;
        /* An enemy at (x, y) looking back along -d: it jumps sq when the square past sq
         * on the far side is empty, and eliminates it across k empty squares. */
        int past = cell_at(q, x0 - DX[d], y0 - DY[d]);
        if (past == GOBS_EMPTY && (!short_var || k == 0)) *flip = 1;
        if (short_var ? k == 1 : k > 0) *elim = 1;
    }
}

static int centre_dist(int sq) {
    int x = sq % GOBS_SIZE - 4, y = sq / GOBS_SIZE - 4;
    x = x < 0 ? -x : x;
    y = y < 0 ? -y : y;
    return x > y ? x : y;
}

static void move_gobs(const gk_pos_t *p, const ev_pctx_t *ctx, gk_action_t a, const gk_pos_t *child,
                      float *f) {
    const gobs_pctx_t *c = (const gobs_pctx_t *)ctx->bytes;
    memset(f, 0, sizeof(float) * NPOLICY);
    int me = p->stm, kind = gobs_act_kind(a);
    switch (kind) {
    case GOBS_ACT_SLIDE: f[P_SLIDE] = 1.0f; break;
    case GOBS_ACT_ELIM: f[P_ELIM] = 1.0f; break;
    case GOBS_ACT_LEG: f[P_LEG] = 1.0f; break;
    case GOBS_ACT_STOP: f[P_STOP] = 1.0f; break;
    default: break;
    }
    if (kind != GOBS_ACT_STOP) {
        int from = gobs_act_from(a), to = gobs_act_to(a);
        f[P_ESCAPE] = (set_has(&c->op.flip, from) || set_has(&c->op.elim, from)) ? 1.0f : 0.0f;
        int fl, el;
        exposure(child, me, to, &fl, &el);
        f[P_LAND_FLIP] = (float)fl;
        f[P_LAND_ELIM] = (float)el;
        f[P_CENTRE] = (float)(centre_dist(from) - centre_dist(to));
    }
    if (kind == GOBS_ACT_LEG && !gk_over(child) && child->in_turn) f[P_MORE_LEGS] = 1.0f;
    f[P_OPP_NEAR] = gobs_count(child, me ^ 1) <= GOBS_LIMIT + 1 ? 1.0f : 0.0f;
}

static const ev_default_t gobs_defaults[] = {
    {"count", 100},
    {"own_low", -60},
    {"opp_low", 60},
    {"own_gobsed", -150},
    {"flip_gain", 45},
    {"flip_risk", -40},
    {"elim_gain", 20},
    {"elim_risk", -25},
    {"mobility", 0.5f},
    {"safe", 4},
    {"edge", 2},
    {"chain", 0},
    {"tempo", 20},
    {"p_slide", 0},
    {"p_elim", 0.8f},
    {"p_leg", 1.5f},
    {"p_stop", 0},
    {"p_land_flip", -0.8f},
    {"p_land_elim", -0.5f},
    {"p_escape", 0.5f},
    {"p_more_legs", 0.5f},
    {"p_opp_near", 1.0f},
    {"p_centre", 0.1f},
    {NULL, 0},
};

const ev_game_features_t ev_gobs_features = {
    .nvalue = NVALUE,
    .value_names = value_names,
    .npolicy = NPOLICY,
    .policy_names = policy_names,
    .trace = trace_gobs,
    .policy_prep = prep_gobs,
    .policy_move = move_gobs,
    .default_scale = 0.005f,
    .defaults = gobs_defaults,
};
