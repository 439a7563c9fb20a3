/*
 * tests/test_eval_trace.c -- the feature traces and the policy.
 *
 * - Colour symmetry: a position and its colour-swapped 180-degree rotation (same game
 *   seen from the other side) have identical traces and values, for positions from
 *   seeded random games of Gounki and Gobs (both variants).  This catches any feature
 *   that is not computed from the side to move's point of view.
 * - Values lie strictly in (0, 1) for unfinished positions and are exact when finished.
 * - Decisive Gounki facts: exit_now is 1 exactly when the side to move has a winning
 *   action; opp_threat* count the opponent's stacks that could exit.
 * - Policy: priors are positive and sum to 1; ev_policy_trace() agrees with the logits
 *   the search uses; winning actions get the largest prior under the default weights.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gobs.h"
#include "games/gounki.h"
#include "check.h"
#include "search_util.h"

/* The same position with colours swapped and the board turned half a turn. */
static void rotate(const gk_pos_t *p, gk_pos_t *q) {
    memset(q, 0, sizeof *q);
    q->turn = p->turn;
    q->turn_limit = p->turn_limit;
    q->game = p->game;
    q->variant = p->variant;
    q->stm = (uint8_t)(p->stm ^ 1);
    if (p->game == GK_GAME_GOUNKI) {
        for (int sq = 0; sq < 64; sq++) {
            int v = p->b.cell[sq];
            if (!(v & 15)) continue;
            int nv = v ^ GOUNKI_BLACK_BIT;
            q->b.cell[63 - sq] = (uint8_t)nv;
        }
        gounki_pos_fix(q); /* the bitboards of gounki.h */
    } else {
        for (int sq = 0; sq < GOBS_SQUARES; sq++) {
            int v = p->b.cell[sq];
            q->b.cell[GOBS_SQUARES - 1 - sq] = (uint8_t)(v == GOBS_EMPTY ? v : 3 - v);
        }
        q->aux[GOBS_AUX_COUNT + 0] = p->aux[GOBS_AUX_COUNT + 1];
        q->aux[GOBS_AUX_COUNT + 1] = p->aux[GOBS_AUX_COUNT + 0];
    }
    q->hash = gk_game_by_id(p->game)->hash_full(q);
}

static int exit_stacks(const gk_pos_t *p, int side) {
    gk_pos_t q = *p;
    q.stm = (uint8_t)side;
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(&q, l);
    uint64_t from = 0;
    for (int i = 0; i < n; i++)
        if (gounki_act_exits(l[i])) from |= 1ull << gounki_act_from(l[i]);
    return __builtin_popcountll(from);
}

static void check_position(const gk_pos_t *p, const ev_weights_t *w, int *exits_seen) {
    float f[EV_MAX_FEATURES], g[EV_MAX_FEATURES];
    int n = ev_trace(p, f);
    CHECK(n == ev_num_features(p->game), "trace length %d", n);
    for (int i = 0; i < n; i++) CHECK(isfinite(f[i]), "feature %d not finite", i);
    if (p->in_turn == 0) {
        gk_pos_t q;
        rotate(p, &q);
        ev_trace(&q, g);
        for (int i = 0; i < n; i++)
            CHECK(f[i] == g[i], "game %d turn %d: feature %s is %g, %g on the rotated position",
                  p->game, p->turn, ev_feature_name(p->game, i), (double)f[i], (double)g[i]);
        CHECK(ev_value(w, p) == ev_value(w, &q), "value not colour-symmetric");
    }
    float v = ev_value(w, p);
    CHECK(v > 0.0f && v < 1.0f, "value %g of an unfinished position", (double)v);
    if (p->game == GK_GAME_GOUNKI) {
        int wn = test_wins_now(p);
        CHECK(f[ev_feature_index(0, "exit_now")] == (float)wn, "exit_now %g but wins_now %d",
              (double)f[ev_feature_index(0, "exit_now")], wn);
        int t = exit_stacks(p, p->stm ^ 1);
        CHECK(f[ev_feature_index(0, "opp_threat1")] == (t == 1) &&
                  f[ev_feature_index(0, "opp_threat2")] == (t >= 2),
              "opponent threats %d not in the trace", t);
        *exits_seen += wn;
    }
    /* Policy. */
    gk_action_t acts[GK_MAX_ACTIONS];
    int na = gk_gen(p, acts);
    if (na == 0) return;
    float *pri = malloc(sizeof(float) * GK_MAX_ACTIONS);
    float *lg = malloc(sizeof(float) * GK_MAX_ACTIONS);
    uint8_t *out = malloc(GK_MAX_ACTIONS);
    ev_policy_priors(w, p, acts, na, 1.0f, pri);
    ev_policy_logits(w, p, acts, na, lg, out);
    double sum = 0;
    int best = 0;
    for (int i = 0; i < na; i++) {
        CHECK(pri[i] > 0.0f, "non-positive prior");
        sum += pri[i];
        if (pri[i] > pri[best]) best = i;
        if (i < 8) {
            float pf[EV_MAX_POLICY];
            int k = ev_policy_trace(p, acts[i], pf);
            float dot = 0;
            for (int j = 0; j < k; j++) dot += w->policy[j] * pf[j];
            CHECK(fabsf(dot - lg[i]) < 1e-4f, "policy trace and logits disagree");
        }
        gk_pos_t q = *p;
        gk_play(&q, acts[i]);
        int expect = !gk_over(&q)                    ? EV_CHILD_ONGOING
                     : gk_result_for(&q, p->stm) > 0 ? EV_CHILD_WIN
                     : gk_result_for(&q, p->stm) < 0 ? EV_CHILD_LOSS
                                                     : EV_CHILD_DRAW;
        CHECK(out[i] == expect, "outcome %d, expected %d", out[i], expect);
    }
    CHECK(fabs(sum - 1.0) < 1e-4, "priors sum to %g", sum);
    if (p->game == GK_GAME_GOUNKI && test_wins_now(p))
        CHECK(out[best] == EV_CHILD_WIN, "the largest prior is not a winning action");
    free(pri);
    free(lg);
    free(out);
}

int main(void) {
    gk_init();
    uint64_t rng = 2024;
    int positions = 0, exits_seen = 0;
    for (int g = 0; g < GK_NGAMES; g++) {
        ev_weights_t w;
        ev_weights_default(g, &w);
        for (int variant = 0; variant < (g == GK_GAME_GOBS ? 2 : 1); variant++) {
            for (int game = 0; game < 30; game++) {
                gk_rules_t r = {.game = (uint8_t)g, .variant = (uint8_t)variant, .turn_limit = 200};
                gk_pos_t p;
                gk_game_by_id(g)->setup(&p, &r);
                gk_action_t l[GK_MAX_ACTIONS];
                while (!gk_over(&p)) {
                    check_position(&p, &w, &exits_seen);
                    positions++;
                    int n = gk_gen(&p, l);
                    if (!n) break;
                    gk_play(&p, l[gk_splitmix64(&rng) % (uint64_t)n]);
                }
                if (gk_over(&p)) {
                    float v = ev_value(&w, &p);
                    int res = gk_result_for(&p, p.stm);
                    CHECK(v == (res > 0   ? 1.0f
                                : res < 0 ? 0.0f
                                          : 0.5f),
                          "finished value %g", (double)v);
                }
            }
        }
    }
    CHECK(positions > 1000, "only %d positions", positions);
    CHECK(exits_seen > 10, "random games showed only %d exit chances", exits_seen);
    /* The start of Gounki is balanced: no material or advancement difference. */
    gk_rules_t r = {.game = GK_GAME_GOUNKI, .turn_limit = 500};
    gk_pos_t p;
    gk_game_by_id(0)->setup(&p, &r);
    float f[EV_MAX_FEATURES];
    ev_trace(&p, f);
    for (int i = 0; i < ev_num_features(0); i++) {
        const char *nm = ev_feature_name(0, i);
        if (!strncmp(nm, "mat_", 4) || !strncmp(nm, "adv_", 4) || !strcmp(nm, "mobility"))
            CHECK(f[i] == 0.0f, "start: %s = %g", nm, (double)f[i]);
    }
    CHECK(f[ev_feature_index(0, "tempo")] == 1.0f, "tempo");
    printf("%d positions checked, %d with a win in one\n", positions, exits_seen);
    return check_exit("test_eval_trace");
}
