/*
 * eval/features_gounki.c -- value and move features of Gounki.
 *
 * Everything is from the side to move's point of view; "own minus opponent" unless the
 * name says otherwise.  Ranks are relative (0 = own back rank, 7 = the far rank).
 * Exact facts that decide games (an exit now, the opponent's exits next move, captures
 * available) come from the rules engine's own move generator, once for each side (the
 * opponent's by generating with the side to move flipped); the softer ones (defence,
 * control) from a geometric reach that follows the movement rules, rebounds included,
 * but ignores deployments.
 */
#include <assert.h>
#include <string.h>

#include "../games/gounki.h"
#include "features.h"

/* Stack types by (rounds, squares); mixed triples rrs / ssr are the strongest pieces. */
enum { T_R, T_S, T_RR, T_SS, T_RS, T_RRR, T_SSS, T_RRS, T_SSR, NTYPES };
static const int8_t type_of[4][4] = {
    /* S=0   S=1   S=2   S=3 */
    {-1, T_S, T_SS, T_SSS}, /* R=0 */
    {T_R, T_RS, T_SSR, -1}, /* R=1 */
    {T_RR, T_RRS, -1, -1},  /* R=2 */
    {T_RRR, -1, -1, -1},    /* R=3 */
};

/* Value feature layout. */
enum {
    F_MAT = 0,                        /* mat_<type>: 9 */
    F_ADV = F_MAT + NTYPES,           /* adv_<type>_<rank 1..7>: 63 */
    F_RACE_LEAD = F_ADV + NTYPES * 7, /* own race <= opponent's (the side to move wins ties) */
    F_RACE_DIFF,                      /* clamp(opp race - own race, -4, 4) */
    F_RACE_OWN2,                      /* own race is 2 moves */
    F_RACE_OPP2,                      /* opponent's race is 2 moves */
    F_EXIT_NOW,                       /* the side to move has a legal exit */
    F_OPP_THREAT1,                    /* one opponent stack could exit next move */
    F_OPP_THREAT2,                    /* two or more could */
    F_MOBILITY,                       /* legal actions, own - opponent */
    F_CAPT_GAIN,                      /* largest enemy stack (pieces) capturable now */
    F_CAPT_RISK,                      /* largest own stack the opponent could capture */
    F_ATTACKED,                       /* own stacks attacked - opponent stacks attacked */
    F_DEFENDED,                       /* own stacks defended - opponent stacks defended */
    F_CTRL_DARK,                      /* dark squares in the far half reached, own - opp */
    F_CTRL_LIGHT,                     /* light squares in the far half reached, own - opp */
    F_TEMPO,                          /* 1: the side to move */
    NVALUE
};

static const char *const value_names[NVALUE] = {
    "mat_r",       "mat_s",       "mat_rr",    "mat_ss",     "mat_rs",
    "mat_rrr",     "mat_sss",     "mat_rrs",   "mat_ssr",
#define ADV(t)                                                                                     \
    "adv_" t "_1", "adv_" t "_2", "adv_" t "_3", "adv_" t "_4", "adv_" t "_5", "adv_" t "_6",      \
        "adv_" t "_7"
    ADV("r"),      ADV("s"),      ADV("rr"),   ADV("ss"),    ADV("rs"),
    ADV("rrr"),    ADV("sss"),    ADV("rrs"),  ADV("ssr"),
#undef ADV
    "race_lead",   "race_diff",   "race_own2", "race_opp2",  "exit_now",
    "opp_threat1", "opp_threat2", "mobility",  "capt_gain",  "capt_risk",
    "attacked",    "defended",    "ctrl_dark", "ctrl_light", "tempo",
};

/* Move feature layout. */
enum {
    P_EXIT,        /* the action exits (wins) */
    P_CAPTURE,     /* pieces in the captured stack */
    P_CAPT_MIXED,  /* the captured stack is a mixed triple */
    P_DEPLOY,      /* a deployment */
    P_DROPS,       /* drops of a deployment that land on the board */
    P_STACK,       /* stacks onto an own stack */
    P_MAKE_MIXED,  /* leaves a mixed triple (rrs / ssr) where it lands */
    P_MAKE_TRIPLE, /* leaves another triple where it lands */
    P_ADVANCE,     /* ranks gained by the farthest piece moved */
    P_RACE,        /* own race shortened by (moves) */
    P_INTO_DANGER, /* pieces landing on squares the opponent reaches */
    P_ESCAPE,      /* pieces leaving an attacked square */
    P_BLOCK,       /* opponent exit threats removed (only computed when there are some) */
    P_BACK_RANK,   /* pieces leaving the own back rank (its guards) */
    NPOLICY
};

static const char *const policy_names[NPOLICY] = {
    "p_exit",        "p_capture",    "p_capt_mixed",  "p_deploy",    "p_drops",
    "p_stack",       "p_make_mixed", "p_make_triple", "p_advance",   "p_race",
    "p_into_danger", "p_escape",     "p_block",       "p_back_rank",
};

static int fwd_of(int c) {
    return c == GK_WHITE ? 1 : -1;
}

/* Squares the stack on sq could land on by a movement if the landing square held an
 * enemy (intermediate squares must be empty); exits are not squares.  Follows the
 * engine's movement lines (docs/RULES.md): diagonals rebound once off a side after at
 * least one step, sideways movements do not rebound. */
static uint64_t reach(const gk_pos_t *p, int sq) {
    int v = gounki_cell(p, sq), c = gounki_cell_owner(v);
    int R = gounki_cell_rounds(v), S = gounki_cell_squares(v), fw = fwd_of(c);
    uint64_t occ = gounki_occ(p, GK_WHITE) | gounki_occ(p, GK_BLACK), out = 0;
    static const int8_t dfs[5] = {-1, 1, 0, -1, 1}, drs[5] = {1, 1, 1, 0, 0};
    for (int d = 0; d < 5; d++) {
        int range = d < 2 ? R : S;
        int f = gounki_file(sq), r = gounki_rank(sq), df = dfs[d], dr = drs[d] * fw;
        int bounced = d >= 2; /* only diagonals rebound */
        for (int k = 0; k < range; k++) {
            int nr = r + dr, nf = f + df;
            if (nr < 0 || nr > 7) break;
            if (nf < 0 || nf > 7) {
                if (k == 0 || bounced) break;
                df = -df, bounced = 1, nf = f + df;
            }
            f = nf, r = nr;
            int t = GOUNKI_SQ(f, r);
            out |= 1ull << t;
            if (occ >> t & 1) break;
        }
    }
    return out;
}

/* Fewest moves for a stack of this kind on relative rank rr to get a piece off the far
 * edge, ignoring every other piece: movements advance up to max(R, S) ranks, and the last
 * move may be a deployment that advances one rank per piece. */
static int race_moves(int R, int S, int rr) {
    int d = 8 - rr, m = R > S ? R : S, size = R + S, n = 1;
    while (d > size) {
        d -= m;
        n++;
    }
    return n;
}

static int race_of(const gk_pos_t *p, int c) {
    int best = 99;
    for (uint64_t b = gounki_occ(p, c); b; b &= b - 1) {
        int sq = __builtin_ctzll(b), v = gounki_cell(p, sq);
        int m = race_moves(gounki_cell_rounds(v), gounki_cell_squares(v), gounki_rel_rank(sq, c));
        if (m < best) best = m;
    }
    return best;
}

typedef struct {
    int n;             /* legal actions */
    int exits;         /* distinct stacks with an exit */
    int capt_max;      /* largest capturable stack, pieces */
    uint64_t captured; /* enemy squares attacked by a capture */
} gen_info_t;

static void gen_info(const gk_pos_t *p, int side, gen_info_t *gi) {
    gk_pos_t q = *p;
    q.stm = (uint8_t)side;
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gounki_game.gen(&q, list);
    memset(gi, 0, sizeof *gi);
    gi->n = n;
    uint64_t exit_from = 0;
    for (int i = 0; i < n; i++) {
        gk_action_t a = list[i];
        if (gounki_act_exits(a)) exit_from |= 1ull << gounki_act_from(a);
        if (gounki_act_captures(a)) {
            int to = gounki_act_to(a), s = gounki_size(p, to);
            gi->captured |= 1ull << to;
            if (s > gi->capt_max) gi->capt_max = s;
        }
    }
    gi->exits = __builtin_popcountll(exit_from);
}

static int clampi(int x, int lo, int hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

static int trace_gounki(const gk_pos_t *p, float *f) {
    memset(f, 0, sizeof(float) * NVALUE);
    int me = p->stm, op = me ^ 1;
    uint64_t reach_all[2] = {0, 0}, defended[2] = {0, 0};
    /* Material and advancement, and the union of each side's reach. */
    for (int c = 0; c < 2; c++) {
        float sgn = c == me ? 1.0f : -1.0f;
        for (uint64_t b = gounki_occ(p, c); b; b &= b - 1) {
            int sq = __builtin_ctzll(b), v = gounki_cell(p, sq);
            int t = type_of[gounki_cell_rounds(v)][gounki_cell_squares(v)];
            assert(t >= 0); /* a stack of 1 to 3 pieces (games/gounki.h) */
            if (t < 0) continue;
            int rr = gounki_rel_rank(sq, c);
            f[F_MAT + t] += sgn;
            if (rr > 0) f[F_ADV + t * 7 + rr - 1] += sgn;
            uint64_t m = reach(p, sq);
            defended[c] |= m & gounki_occ(p, c);
            reach_all[c] |= m;
        }
    }
    int race_me = race_of(p, me), race_op = race_of(p, op);
    f[F_RACE_LEAD] = race_me <= race_op ? 1.0f : 0.0f;
    f[F_RACE_DIFF] = (float)clampi(race_op - race_me, -4, 4);
    f[F_RACE_OWN2] = race_me == 2 ? 1.0f : 0.0f;
    f[F_RACE_OPP2] = race_op == 2 ? 1.0f : 0.0f;

    gen_info_t gm, go;
    gen_info(p, me, &gm);
    gen_info(p, op, &go);
    f[F_EXIT_NOW] = gm.exits > 0 ? 1.0f : 0.0f;
    f[F_OPP_THREAT1] = go.exits == 1 ? 1.0f : 0.0f;
    f[F_OPP_THREAT2] = go.exits >= 2 ? 1.0f : 0.0f;
    f[F_MOBILITY] = (float)(gm.n - go.n);
    f[F_CAPT_GAIN] = (float)gm.capt_max;
    f[F_CAPT_RISK] = (float)go.capt_max;
    f[F_ATTACKED] = (float)(__builtin_popcountll(go.captured) - __builtin_popcountll(gm.captured));
    f[F_DEFENDED] =
        (float)(__builtin_popcountll(defended[me]) - __builtin_popcountll(defended[op]));
    /* Dark squares are those of a1 (file + rank even): squares pieces start on. */
    const uint64_t dark = 0xAA55AA55AA55AA55ull;
    const uint64_t white_far = 0xFFFFFFFF00000000ull, black_far = 0x00000000FFFFFFFFull;
    uint64_t far_me = me == GK_WHITE ? white_far : black_far;
    uint64_t far_op = op == GK_WHITE ? white_far : black_far;
    uint64_t cm = reach_all[me] & far_me, co = reach_all[op] & far_op;
    f[F_CTRL_DARK] = (float)(__builtin_popcountll(cm & dark) - __builtin_popcountll(co & dark));
    f[F_CTRL_LIGHT] = (float)(__builtin_popcountll(cm & ~dark) - __builtin_popcountll(co & ~dark));
    f[F_TEMPO] = 1.0f;
    return NVALUE;
}

/* ---- policy ---- */

typedef struct {
    uint64_t op_reach; /* squares the opponent's stacks reach */
    int op_exits;      /* opponent stacks with an exit next move (0 when none) */
    int race_me;
} gounki_pctx_t;

_Static_assert(sizeof(gounki_pctx_t) <= sizeof(ev_pctx_t), "policy context too large");
_Static_assert(NVALUE <= EV_MAX_FEATURES && NPOLICY <= EV_MAX_POLICY, "raise EV_MAX_*");

static void prep_gounki(const gk_pos_t *p, ev_pctx_t *ctx) {
    gounki_pctx_t *c = (gounki_pctx_t *)ctx->bytes;
    int op = p->stm ^ 1;
    c->op_reach = 0;
    for (uint64_t b = gounki_occ(p, op); b; b &= b - 1) c->op_reach |= reach(p, __builtin_ctzll(b));
    gen_info_t go;
    gen_info(p, op, &go);
    c->op_exits = go.exits;
    c->race_me = race_of(p, p->stm);
}

static int is_mixed_triple(int v) {
    int R = gounki_cell_rounds(v), S = gounki_cell_squares(v);
    return (R == 2 && S == 1) || (R == 1 && S == 2);
}

static void move_gounki(const gk_pos_t *p, const ev_pctx_t *ctx, gk_action_t a,
                        const gk_pos_t *child, float *f) {
    const gounki_pctx_t *c = (const gounki_pctx_t *)ctx->bytes;
    memset(f, 0, sizeof(float) * NPOLICY);
    int me = p->stm, from = gounki_act_from(a), rr0 = gounki_rel_rank(from, me);
    int size = gounki_size(p, from);
    f[P_EXIT] = gounki_act_exits(a) ? 1.0f : 0.0f;
    if (c->op_reach >> from & 1) f[P_ESCAPE] = (float)size;
    if (rr0 == 0) f[P_BACK_RANK] = (float)size;
    int far = rr0;
    uint64_t landed = 0;
    if (gounki_act_is_deploy(a)) {
        int n = gounki_act_ndrops(a);
        f[P_DEPLOY] = 1.0f;
        f[P_DROPS] = (float)n;
        for (int i = 0; i < n; i++) {
            int t = gounki_act_drop(a, i);
            landed |= 1ull << t;
            int r = gounki_rel_rank(t, me);
            if (r > far) far = r;
        }
        if (gounki_act_exits(a)) far = 8;
    } else if (gounki_act_exits(a)) {
        far = 8;
    } else {
        int to = gounki_act_to(a);
        landed = 1ull << to;
        if (gounki_act_captures(a)) {
            int v = gounki_cell(p, to);
            f[P_CAPTURE] = (float)gounki_cell_size(v);
            f[P_CAPT_MIXED] = is_mixed_triple(v) ? 1.0f : 0.0f;
        }
        int r = gounki_rel_rank(to, me);
        if (r > far) far = r;
    }
    f[P_STACK] = gounki_act_stacks(a) ? 1.0f : 0.0f;
    f[P_ADVANCE] = (float)(far - rr0);
    int into = 0;
    for (uint64_t b = landed; b; b &= b - 1) {
        int t = __builtin_ctzll(b), v = gounki_cell(child, t);
        if (gounki_cell_owner(v) != me) continue;
        if (is_mixed_triple(v))
            f[P_MAKE_MIXED] += 1.0f;
        else if (gounki_cell_size(v) == 3)
            f[P_MAKE_TRIPLE] += 1.0f;
        if (c->op_reach >> t & 1) into += gounki_cell_size(v);
    }
    f[P_INTO_DANGER] = (float)into;
    if (!gk_over(child)) {
        f[P_RACE] = (float)(c->race_me - race_of(child, me));
        if (c->op_exits > 0) {
            gen_info_t go;
            gen_info(child, me ^ 1, &go);
            f[P_BLOCK] = (float)(c->op_exits - go.exits);
        }
    }
}

/* Defaults, in points (scale turns them into a logit); the policy weights are logits
 * directly.  The value weights were tuned by `gounki train` from the original hand-set
 * ones (tests/fixtures/tune/gounki-handset.txt; 2 generations of 800 self-play games at
 * 300 playouts) and beat them by +87 Elo [+53, +122] in 400 games at 300 playouts and
 * +164 [+115, +221] in 200 games at 1000 playouts; the policy weights are hand-set. */
static const ev_default_t gounki_defaults[] = {
    {"mat_r", 35.2449f},        {"mat_s", 69.9401f},
    {"mat_rr", 133.512f},       {"mat_ss", 122.589f},
    {"mat_rs", 109.263f},       {"mat_rrr", 157.639f},
    {"mat_sss", 305.471f},      {"mat_rrs", 273.931f},
    {"mat_ssr", 210.794f},      {"adv_r_1", -13.4668f},
    {"adv_r_2", -12.3482f},     {"adv_r_3", -65.5986f},
    {"adv_r_4", -55.025f},      {"adv_r_5", 35.4981f},
    {"adv_r_6", 85.0591f},      {"adv_r_7", 146.082f},
    {"adv_s_1", -11.5238f},     {"adv_s_2", -12.3044f},
    {"adv_s_3", -15.4495f},     {"adv_s_4", -67.4952f},
    {"adv_s_5", -54.1017f},     {"adv_s_6", 103.492f},
    {"adv_s_7", 134.259f},      {"adv_rr_1", 24.6828f},
    {"adv_rr_2", -6.5517f},     {"adv_rr_3", -24.2252f},
    {"adv_rr_4", -35.3512f},    {"adv_rr_5", 35.5236f},
    {"adv_rr_6", 35.1181f},     {"adv_rr_7", 68.1591f},
    {"adv_ss_1", 12.5901f},     {"adv_ss_2", -60.0294f},
    {"adv_ss_3", -19.4505f},    {"adv_ss_4", 98.9785f},
    {"adv_ss_5", -32.7477f},    {"adv_ss_6", -9.52718f},
    {"adv_ss_7", 77.1755f},     {"adv_rs_1", -11.0511f},
    {"adv_rs_2", -3.12462f},    {"adv_rs_3", -26.7956f},
    {"adv_rs_4", -22.9805f},    {"adv_rs_5", 45.1991f},
    {"adv_rs_6", 94.0079f},     {"adv_rs_7", 66.9158f},
    {"adv_rrr_1", -41.0919f},   {"adv_rrr_2", -17.9383f},
    {"adv_rrr_3", -37.8811f},   {"adv_rrr_4", -33.3314f},
    {"adv_rrr_5", 22.4963f},    {"adv_rrr_6", 7.71485f},
    {"adv_rrr_7", 56.9549f},    {"adv_sss_1", 24.1421f},
    {"adv_sss_2", 27.7126f},    {"adv_sss_3", 96.7232f},
    {"adv_sss_4", 102.818f},    {"adv_sss_5", 87.6139f},
    {"adv_sss_6", 84.9207f},    {"adv_sss_7", 92.2068f},
    {"adv_rrs_1", -25.9348f},   {"adv_rrs_2", 3.52535f},
    {"adv_rrs_3", -0.127204f},  {"adv_rrs_4", 95.4278f},
    {"adv_rrs_5", 9.53897f},    {"adv_rrs_6", 68.7567f},
    {"adv_rrs_7", 176.04f},     {"adv_ssr_1", 23.7294f},
    {"adv_ssr_2", 4.78978f},    {"adv_ssr_3", 45.1755f},
    {"adv_ssr_4", 66.6707f},    {"adv_ssr_5", -22.4027f},
    {"adv_ssr_6", 120.051f},    {"adv_ssr_7", 167.275f},
    {"race_lead", 16.368f},     {"race_diff", 0.505477f},
    {"race_own2", 10.6027f},    {"race_opp2", -8.88816f},
    {"exit_now", 3597.46f},     {"opp_threat1", -273.395f},
    {"opp_threat2", -1079.76f}, {"mobility", 3.4171f},
    {"capt_gain", 52.237f},     {"capt_risk", -16.5182f},
    {"attacked", -4.31377f},    {"defended", 20.9539f},
    {"ctrl_dark", 28.1867f},    {"ctrl_light", 18.9462f},
    {"tempo", 13.4008f},        {"p_exit", 12},
    {"p_capture", 0.9f},        {"p_capt_mixed", 0.5f},
    {"p_deploy", -0.4f},        {"p_drops", 0},
    {"p_stack", 0.3f},          {"p_make_mixed", 0.9f},
    {"p_make_triple", 0.3f},    {"p_advance", 0.35f},
    {"p_race", 0.5f},           {"p_into_danger", -0.35f},
    {"p_escape", 0.3f},         {"p_block", 3},
    {"p_back_rank", -0.15f},    {NULL, 0},
};

const ev_game_features_t ev_gounki_features = {
    .nvalue = NVALUE,
    .value_names = value_names,
    .npolicy = NPOLICY,
    .policy_names = policy_names,
    .trace = trace_gounki,
    .policy_prep = prep_gounki,
    .policy_move = move_gounki,
    .default_scale = 0.004f,
    .defaults = gounki_defaults,
};
