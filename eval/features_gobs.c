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
 * For speed (issue 14) the threats are 128-bit bitboards filled direction by direction
 * and exposures walk gobs.h's ray tables; tests/test_gobs_features.c keeps the plain
 * square-by-square code they replaced and checks that every value agrees bit for bit.
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

/* Bitboards: bit s is square s (9 * rank + file); bits 81..127 stay zero. */
typedef unsigned __int128 bb_t;

static inline bb_t bb_make(uint64_t hi, uint64_t lo) {
    return (bb_t)hi << 64 | lo;
}
/* Without -mpopcnt (the portable build) __builtin_popcountll is a call into libgcc. */
static inline int count64(uint64_t x) {
    x -= x >> 1 & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
static inline int bb_count(bb_t b) {
    return count64((uint64_t)b) + count64((uint64_t)(b >> 64));
}

#define BB_BOARD  bb_make(0x1ffffull, ~0ull)                 /* squares 0..80 */
#define BB_FILE_A bb_make(0x00100ull, 0x8040201008040201ull) /* x == 0 */
#define BB_FILE_I bb_make(0x10080ull, 0x4020100804020100ull) /* x == 8 */
#define BB_EDGE   bb_make(0x1ff80ull, 0xc06030180c0603ffull) /* x or y is 0 or 8 */

/* Every bit moved one step in direction d (gobs.h's order: E, NE, N, NW, W, SW, S, SE);
 * steps that leave the board are dropped. */
static inline bb_t bb_step(bb_t b, int d) {
    switch (d) {
    case 0: return (b & ~BB_FILE_I) << 1;
    case 1: return (b & ~BB_FILE_I) << 10 & BB_BOARD;
    case 2: return b << 9 & BB_BOARD;
    case 3: return (b & ~BB_FILE_A) << 8 & BB_BOARD;
    case 4: return (b & ~BB_FILE_A) >> 1;
    case 5: return (b & ~BB_FILE_A) >> 10;
    case 6: return b >> 9;
    default: return (b & ~BB_FILE_I) >> 8;
    }
}

/* The white and black pieces of p: each 8-byte word of cells packed to 8 bits (a cell is
 * 0, 1 or 2, so bit 0 of a byte marks white and bit 1 black). */
static void bb_pieces(const gk_pos_t *p, bb_t *white, bb_t *black) {
    bb_t w = 0, b = 0;
    for (int i = 0; i < 11; i++) {
        uint64_t x;
        memcpy(&x, p->b.cell + 8 * i, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        const uint64_t lo = x & 0x0101010101010101ull, hi = x >> 1 & 0x0101010101010101ull;
        w |= (bb_t)((lo * 0x0102040810204080ull) >> 56) << (8 * i);
        b |= (bb_t)((hi * 0x0102040810204080ull) >> 56) << (8 * i);
    }
    *white = w & BB_BOARD;
    *black = b & BB_BOARD;
}

typedef struct {
    bb_t flip; /* enemy pieces this side can flip with one leg */
    bb_t elim; /* enemy pieces this side can eliminate */
    int slides;
} threats_t;

/* What the pieces `own` threaten among the pieces `opp` (empty: the empty squares).
 * Along each direction the empty squares k steps past a piece are the k-th step of a
 * fill; a leg flips an enemy reached after any number of them (none in the short
 * variant) when the square past it is empty; an elimination needs at least one (exactly
 * one in the short variant, whose slides are at most two squares long). */
static void threats_of(bb_t own, bb_t opp, bb_t empty, int short_var, threats_t *t) {
    bb_t flip = 0, elim = 0;
    int slides = 0;
    for (int d = 0; d < 8; d++) {
        const bb_t next = bb_step(own, d), before_empty = bb_step(empty, d ^ 4) & opp;
        bb_t r = next & empty, reach = 0, hit = next;
        if (short_var) {
            reach = r | (bb_step(r, d) & empty);
            elim |= bb_step(r, d) & opp;
        } else {
            bb_t past = 0;
            while (r) {
                reach |= r;
                const bb_t s = bb_step(r, d);
                past |= s;
                r = s & empty;
            }
            hit |= past;
            elim |= past & opp;
        }
        flip |= hit & before_empty;
        slides += bb_count(reach);
    }
    t->flip = flip;
    t->elim = elim;
    t->slides = slides;
}

static int trace_gobs(const gk_pos_t *p, float *f) {
    memset(f, 0, sizeof(float) * NVALUE);
    int me = p->stm, op = me ^ 1;
    int own = gobs_count(p, me), opp = gobs_count(p, op);
    f[F_COUNT] = (float)(own - opp);
    f[F_OWN_LOW] = (float)(own < 8 ? 8 - own : 0);
    f[F_OPP_LOW] = (float)(opp < 8 ? 8 - opp : 0);
    f[F_OWN_GOBSED] = own <= GOBS_LIMIT ? 1.0f : 0.0f;
    bb_t white, black;
    bb_pieces(p, &white, &black);
    const bb_t mine = me == GK_WHITE ? white : black, theirs = me == GK_WHITE ? black : white;
    const bb_t empty = BB_BOARD & ~(white | black);
    const int short_var = p->variant == GOBS_VAR_SHORT;
    threats_t tm, to;
    /* In a jump chain only the jumping piece can still act this turn. */
    const bb_t actors = p->in_turn ? mine & (bb_t)1 << p->aux[GOBS_AUX_JUMPER] : mine;
    threats_of(actors, theirs, empty, short_var, &tm);
    threats_of(theirs, mine, empty, short_var, &to);
    f[F_FLIP_GAIN] = (float)bb_count(tm.flip);
    f[F_FLIP_RISK] = (float)bb_count(to.flip);
    if (!p->in_turn) f[F_ELIM_GAIN] = (float)bb_count(tm.elim);
    f[F_ELIM_RISK] = (float)bb_count(to.elim);
    /* Mobility, and the safety of the opponent's pieces, count every piece. */
    if (p->in_turn) threats_of(mine, theirs, empty, short_var, &tm);
    f[F_MOBILITY] = (float)(tm.slides - to.slides);
    const int safe_me = bb_count(mine & ~(to.flip | to.elim));
    const int safe_op = bb_count(theirs & ~(tm.flip | tm.elim));
    f[F_SAFE] = (float)(safe_me - safe_op);
    f[F_EDGE] = (float)(bb_count(mine & BB_EDGE) - bb_count(theirs & BB_EDGE));
    f[F_CHAIN] = p->in_turn ? 1.0f : 0.0f;
    f[F_TEMPO] = 1.0f;
    return NVALUE;
}

/* ---- policy ---- */

typedef struct {
    uint64_t danger[2];     /* squares of the opponent's threats before the action */
    uint64_t occ[2];        /* occupied squares before the action */
    const gobs_rays_t *ray; /* gobs_rays(), looked up once per node */
} gobs_pctx_t;

_Static_assert(sizeof(gobs_pctx_t) <= sizeof(ev_pctx_t), "policy context too large");
_Static_assert(NVALUE <= EV_MAX_FEATURES && NPOLICY <= EV_MAX_POLICY, "raise EV_MAX_*");

static void prep_gobs(const gk_pos_t *p, ev_pctx_t *ctx) {
    gobs_pctx_t *c = (gobs_pctx_t *)ctx->bytes;
    bb_t white, black;
    bb_pieces(p, &white, &black);
    const bb_t mine = p->stm == GK_WHITE ? white : black;
    const bb_t theirs = p->stm == GK_WHITE ? black : white;
    threats_t op;
    threats_of(theirs, mine, BB_BOARD & ~(white | black), p->variant == GOBS_VAR_SHORT, &op);
    const bb_t danger = op.flip | op.elim;
    c->danger[0] = (uint64_t)danger;
    c->danger[1] = (uint64_t)(danger >> 64);
    c->occ[0] = (uint64_t)(white | black);
    c->occ[1] = (uint64_t)((white | black) >> 64);
    c->ray = gobs_rays();
}

/* Can the opponent of `side` flip / eliminate the piece of `side` on sq in q, whose
 * occupied squares are occ?  The threats of threats_of() seen from the target: along
 * each direction d, the first piece past the empty squares (at most one in the short
 * variant) is an enemy, which jumps sq when the square next to sq on the far side is
 * empty and eliminates it across one empty square or more (exactly one when short). */
static void exposure(const gk_pos_t *q, const gobs_rays_t *ray, bb_t occ, int side, int sq,
                     int *flip, int *elim) {
    const uint8_t *cell = q->b.cell;
    const int oc = 2 - side, short_var = q->variant == GOBS_VAR_SHORT;
    int fl = 0, el = 0;
    for (int d = 0; d < 8 && !(fl && el); d++) {
        const int len = ray->len[sq][d];
        if (!len) continue;
        const uint8_t *r = ray->sq[sq][d];
        const int back = d ^ 4;
        const int back_empty = ray->len[sq][back] && cell[ray->sq[sq][back][0]] == GOBS_EMPTY;
        if (cell[r[0]] != GOBS_EMPTY) {
            fl |= cell[r[0]] == oc && back_empty;
            continue;
        }
        int b;
        if (short_var) {
            if (len < 2) continue;
            b = r[1];
        } else {
            const bb_t m = occ & bb_make(ray->bits[sq][d][1], ray->bits[sq][d][0]);
            if (!m) continue;
            const uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
            if (d < 4)
                b = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi);
            else
                b = hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(lo);
        }
        if (cell[b] == oc) {
            el = 1;
            fl |= back_empty && !short_var;
        }
    }
    *flip = fl;
    *elim = el;
}

/* The occupied squares after action a (kind `kind`) of the position whose are occ. */
static bb_t occ_after(bb_t occ, gk_action_t a, int kind, int short_var) {
    occ &= ~((bb_t)1 << gobs_act_from(a));
    occ |= (bb_t)1 << gobs_act_to(a);
    if (kind == GOBS_ACT_ELIM && short_var) occ |= (bb_t)1 << gobs_act_place(a);
    return occ;
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
        f[P_ESCAPE] = (float)(c->danger[from >> 6] >> (from & 63) & 1);
        int fl, el;
        const bb_t occ =
            occ_after(bb_make(c->occ[1], c->occ[0]), a, kind, p->variant == GOBS_VAR_SHORT);
        exposure(child, c->ray, occ, me, to, &fl, &el);
        f[P_LAND_FLIP] = (float)fl;
        f[P_LAND_ELIM] = (float)el;
        f[P_CENTRE] = (float)(centre_dist(from) - centre_dist(to));
    }
    if (kind == GOBS_ACT_LEG && !gk_over(child) && child->in_turn) f[P_MORE_LEGS] = 1.0f;
    f[P_OPP_NEAR] = gobs_count(child, me ^ 1) <= GOBS_LIMIT + 1 ? 1.0f : 0.0f;
}

/* Defaults, in points (scale turns them into a logit); the policy weights are logits.
 * Generation 6 of a `gounki train` run on standard Gobs (200 self-play games a generation
 * at 800 playouts, window 2, target mix:0.5, --policy, --keep-scale), started from weights
 * fitted by `gounki tune --target value --policy` to 48 self-play games of the hand-set
 * ones (tests/fixtures/tune/gobs-fitted0.txt from gobs-handset.txt); the figures against
 * the hand-set weights are in docs/HACKING.md, "Fitted weights". */
static const ev_default_t gobs_defaults[] = {
    /* value, in points */
    {"count", 54.455803f},
    {"own_low", -151.51476f},
    {"opp_low", 195.83347f},
    {"own_gobsed", 74.84066f},
    {"flip_gain", 27.153065f},
    {"flip_risk", -16.333805f},
    {"elim_gain", -3.453327f},
    {"elim_risk", 4.287976f},
    {"mobility", -2.2918088f},
    {"safe", 19.3753f},
    {"edge", 30.73507f},
    {"chain", -19.2326f},
    {"tempo", 30.471428f},
    /* policy, in logits */
    {"p_slide", -1.7661647f},
    {"p_elim", 1.8457854f},
    {"p_leg", 2.0627463f},
    {"p_stop", 0.34408695f},
    {"p_land_flip", -2.2620444f},
    {"p_land_elim", -0.20597287f},
    {"p_escape", 0.9448379f},
    {"p_more_legs", 2.4020083f},
    {"p_opp_near", 0.09676257f},
    {"p_centre", -0.35578084f},
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
