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
 * directly: hand-set, then halved (issue 15), which is the search at prior_temperature=2
 * with the hand-set ones.  Flatter priors gained at every budget measured (400 games each
 * against the hand-set policy): +32 [-1, +66] at 200 playouts (1.5: +32 and +34 on two
 * seeds; 3: +39; uniform priors: -194), +22 [-10, +54] at 1000, +22 [-11, +54] at 0.1 s
 * a move; README, "Policy temperature".  Fitting them to the visit counts (`gounki tune
 * --policy`) lost -101 [-138, -66] at 200 playouts.
 * The value weights come from two `gounki train` runs: the first
 * from the original hand-set ones (tests/fixtures/tune/gounki-handset.txt; 2 generations
 * of 800 games at 300 playouts; +87 Elo [+53, +122] over them), the second from those,
 * with the leaf quiescence on (generation 11 of 12; 1000 games a generation at 800
 * playouts, window 4, target mix:0.5), which beat its start by +41 [+7, +76] at 800
 * playouts, +49 [+16, +83] at 200 and +84 [+52, +118] at 0.1 s a move (400 games each). */
/* One weight a line, as in weights/gounki-default.txt (clang-format would pack some
 * values into columns and others not, depending on their widths). */
/* clang-format off */
static const ev_default_t gounki_defaults[] = {
    {"mat_r", -15.761396f},
    {"mat_s", 36.226425f},
    {"mat_rr", 133.19116f},
    {"mat_ss", 126.68264f},
    {"mat_rs", 58.584812f},
    {"mat_rrr", 156.5326f},
    {"mat_sss", 294.9349f},
    {"mat_rrs", 304.49054f},
    {"mat_ssr", 170.45601f},
    {"adv_r_1", 27.128908f},
    {"adv_r_2", 27.73351f},
    {"adv_r_3", -10.646031f},
    {"adv_r_4", -14.520998f},
    {"adv_r_5", 111.56356f},
    {"adv_r_6", 206.34996f},
    {"adv_r_7", 180.61508f},
    {"adv_s_1", -6.9260073f},
    {"adv_s_2", 12.9457655f},
    {"adv_s_3", -2.9870024f},
    {"adv_s_4", -81.25242f},
    {"adv_s_5", -49.51328f},
    {"adv_s_6", 277.77863f},
    {"adv_s_7", 221.33858f},
    {"adv_rr_1", -43.720165f},
    {"adv_rr_2", -45.272484f},
    {"adv_rr_3", -86.22009f},
    {"adv_rr_4", 25.536442f},
    {"adv_rr_5", 222.17775f},
    {"adv_rr_6", 182.84317f},
    {"adv_rr_7", 232.66248f},
    {"adv_ss_1", -37.194706f},
    {"adv_ss_2", -52.44756f},
    {"adv_ss_3", 29.999733f},
    {"adv_ss_4", 5.261594f},
    {"adv_ss_5", 83.21317f},
    {"adv_ss_6", 164.34752f},
    {"adv_ss_7", 167.50998f},
    {"adv_rs_1", 21.508307f},
    {"adv_rs_2", 50.61887f},
    {"adv_rs_3", -6.690606f},
    {"adv_rs_4", 102.46253f},
    {"adv_rs_5", 347.22156f},
    {"adv_rs_6", 285.78748f},
    {"adv_rs_7", 128.14565f},
    {"adv_rrr_1", -134.53377f},
    {"adv_rrr_2", 13.325187f},
    {"adv_rrr_3", -118.15543f},
    {"adv_rrr_4", 90.90184f},
    {"adv_rrr_5", 23.59577f},
    {"adv_rrr_6", -31.824068f},
    {"adv_rrr_7", 91.731514f},
    {"adv_sss_1", -59.03045f},
    {"adv_sss_2", -1.3748014f},
    {"adv_sss_3", 70.32396f},
    {"adv_sss_4", 23.183311f},
    {"adv_sss_5", 159.47786f},
    {"adv_sss_6", 64.65097f},
    {"adv_sss_7", 141.2748f},
    {"adv_rrs_1", -66.35345f},
    {"adv_rrs_2", -41.64361f},
    {"adv_rrs_3", 79.394684f},
    {"adv_rrs_4", 100.334236f},
    {"adv_rrs_5", -22.133757f},
    {"adv_rrs_6", 150.9106f},
    {"adv_rrs_7", 431.53952f},
    {"adv_ssr_1", 25.253328f},
    {"adv_ssr_2", 49.366535f},
    {"adv_ssr_3", 180.71475f},
    {"adv_ssr_4", 146.5067f},
    {"adv_ssr_5", 25.091702f},
    {"adv_ssr_6", 207.1314f},
    {"adv_ssr_7", 274.53506f},
    {"race_lead", -28.305552f},
    {"race_diff", 23.147451f},
    {"race_own2", -126.60067f},
    {"race_opp2", 103.77807f},
    {"exit_now", 4066.8484f},
    {"opp_threat1", -241.9718f},
    {"opp_threat2", -1226.825f},
    {"mobility", 5.7325816f},
    {"capt_gain", 88.03631f},
    {"capt_risk", -50.165936f},
    {"attacked", 3.1501813f},
    {"defended", 16.602413f},
    {"ctrl_dark", 43.727776f},
    {"ctrl_light", 25.98376f},
    {"tempo", 95.961945f},
    {"p_exit", 6},
    {"p_capture", 0.45f},
    {"p_capt_mixed", 0.25f},
    {"p_deploy", -0.2f},
    {"p_drops", 0},
    {"p_stack", 0.15f},
    {"p_make_mixed", 0.45f},
    {"p_make_triple", 0.15f},
    {"p_advance", 0.175f},
    {"p_race", 0.25f},
    {"p_into_danger", -0.175f},
    {"p_escape", 0.15f},
    {"p_block", 1.5f},
    {"p_back_rank", -0.075f},
    {NULL, 0},
};
/* clang-format on */

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
