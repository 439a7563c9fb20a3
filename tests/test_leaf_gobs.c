/*
 * tests/test_leaf_gobs.c -- Gobs winning chains (search/leaf.h) against play, and in the MCTS.
 * The Gobs horizon: a jump chain that leaves the opponent below GOBS_LIMIT wins this turn.
 *
 *  - The rules' example (tests/fixtures/gobs/rules/06_gobs_win_and_gobsed.txt): White's
 *    c2:c4:c6 leaves Black 4, so the leaf value is exactly 1 at the start of the turn and
 *    after c2:c4; without quiescence it is the evaluation's.
 *  - Every position of seeded random games of both rule sets (where playing out every
 *    chain is affordable): the value with quiescence is 1 exactly when some chain, played
 *    leg by leg with gen()/play(), ends the game won for the mover, and ev_value()
 *    otherwise, bit for bit.
 *  - In the MCTS at 100 playouts: from positions of those games with a winning chain of
 *    two legs or more, the default search proves the position won at once (the chain's
 *    first leg is proven before any playout) and, playing both sides, wins every game;
 *    the count without the horizon (quiesce=0) is printed for comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gobs.h"
#include "search/leaf.h"
#include "search/mcts.h"
#include "check.h"

#define GAMES    12
#define PLAYOUTS 100
#define MAX_WINS 24 /* MCTS checks per rule set */

/* Does some complete chain from p (the jumper's, mid-turn), played leg by leg, end the
 * turn with the game won by the mover?  "stop" mid-turn is a chain end too. */
static int chain_wins(const gk_pos_t *p) {
    gk_action_t list[GK_MAX_ACTIONS];
    const int n = gk_gen(p, list);
    for (int i = 0; i < n; i++) {
        const int kind = gobs_act_kind(list[i]);
        if (kind != GOBS_ACT_LEG && kind != GOBS_ACT_STOP) continue;
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        if (q.in_turn ? chain_wins(&q) : gk_result_for(&q, p->stm) > 0) return 1;
    }
    return 0;
}

/* Plays on from p with the search m for both sides (a new tree each action, at most 40
 * turns); 1 when the side to move of p wins.  *proven: the first search proved p won. */
static int search_wins(mcts_t *m, const gk_pos_t *p, int *proven) {
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = PLAYOUTS;
    mcts_result_t res;
    gk_pos_t q = *p;
    *proven = -1;
    while (!gk_over(&q) && q.turn < p->turn + 40) {
        mcts_clear(m);
        if (mcts_search(m, &q, NULL, &lim, &res) != 0) return 0;
        if (*proven < 0) *proven = res.proof == MCTS_PROVEN_WIN;
        if (getenv("DBG")) {
            char t[GK_POS_TEXT_MAX], at[64];
            gk_game_by_id(GK_GAME_GOBS)->pos_to_text(&q, t, sizeof t);
            gk_game_by_id(GK_GAME_GOBS)->action_text(&q, res.best, at, sizeof at);
            printf("%s -> %s (value %.3f)\n", t, at, (double)res.value);
        }
        gk_play(&q, res.best);
    }
    return gk_result_for(&q, p->stm) > 0;
}

static mcts_t *new_search(int quiesce, const ev_weights_t *w) {
    mcts_params_t pp;
    mcts_params_default(&pp);
    pp.quiesce = quiesce;
    mcts_t *m = mcts_new(&pp, w);
    if (!m) {
        fprintf(stderr, "test_leaf_gobs: out of memory\n");
        exit(1);
    }
    return m;
}

static void rules_example(void) {
    const gk_game_t *g = gk_game_by_id(GK_GAME_GOBS);
    ev_weights_t w;
    CHECK(ev_weights_default(GK_GAME_GOBS, &w) == 0, "no default Gobs weights");
    gk_pos_t p;
    char err[256];
    CHECK(g->pos_from_text(&p, "standard 6bbb/8b/9/9/2b6/9/2b6/2w6/ww1www3 w 0 - *", 500, err,
                           sizeof err) == 0,
          "fixture: %s", err);
    CHECK(leaf_search_value(&w, &p, 0, 2, 1) == 1.0f, "c2:c4:c6 wins: value not 1");
    CHECK(leaf_search_value(&w, &p, 0, 0, 1) == ev_value(&w, &p), "qdepth 0 is not ev_value");
    gk_action_t seq[GK_MAX_TURN];
    CHECK(g->parse_move(&p, "c2:c4", seq, GK_MAX_TURN, err, sizeof err) >= 1, "c2:c4: %s", err);
    gk_play(&p, seq[0]);
    CHECK(p.in_turn == 1, "c2:c4 should leave the chain open");
    CHECK(leaf_search_value(&w, &p, 0, 2, 1) == 1.0f, "after c2:c4: value not 1");
    long budget = 1000;
    CHECK(gobs_chain_flips(&p, 5, &budget, NULL) == 1, "after c2:c4 one more flip is left");
}

static void random_games(int variant, const ev_weights_t *w, mcts_t *on, mcts_t *off, long *checked,
                         long *wins, int *mc_on, int *mc_off, int *mc_n) {
    gk_action_t l[GK_MAX_ACTIONS];
    for (int gi = 0; gi < GAMES; gi++) {
        uint64_t seed = 0x90b5u + 1000u * (uint64_t)variant + (uint64_t)gi;
        gk_rules_t r = {GK_GAME_GOBS, (uint8_t)variant, GK_DEFAULT_TURN_LIMIT};
        gk_pos_t p;
        gk_game_by_id(GK_GAME_GOBS)->setup(&p, &r);
        for (int a = 0; a < 3000 && !gk_over(&p); a++) {
            /* Playing out every chain is only affordable where there are few. */
            if (gk_game_by_id(GK_GAME_GOBS)->perft(&p, 1) <= 3000) {
                const int win = chain_wins(&p);
                const float v = leaf_search_value(w, &p, 0, 2, 1);
                CHECK(win ? v == 1.0f : v == ev_value(w, &p),
                      "variant %d game %d action %d: value %g, chain_wins %d", variant, gi, a,
                      (double)v, win);
                (*checked)++;
                *wins += win;
                long budget = 1L << 30;
                const int need = gobs_count(&p, p.stm ^ 1) - (GOBS_LIMIT - 1);
                if (win && !p.in_turn && *mc_n < MAX_WINS && need >= 2 &&
                    gobs_chain_flips(&p, need, &budget, NULL) >= need) {
                    (*mc_n)++;
                    int proven, unused;
                    const int ok = search_wins(on, &p, &proven);
                    CHECK(proven == 1, "variant %d game %d action %d: a winning chain not proven",
                          variant, gi, a);
                    *mc_on += ok;
                    if (!ok) {
                        char t[GK_POS_TEXT_MAX];
                        gk_game_by_id(GK_GAME_GOBS)->pos_to_text(&p, t, sizeof t);
                        printf("missed: %s (need %d)\n", t, need);
                    }
                    *mc_off += search_wins(off, &p, &unused);
                }
            }
            /* Random actions; in the short variant (whose random games stay even) White
             * plays legs at one action in three when it has some: uneven games reach low
             * piece counts, where winning chains are. */
            int n = gk_gen(&p, l), k = 0;
            if (n == 0) break;
            const int bias =
                variant == GOBS_VAR_SHORT && p.stm == GK_WHITE && gk_splitmix64(&seed) % 3 == 0;
            for (int i = 0; bias && i < n; i++)
                if (gobs_act_kind(l[i]) == GOBS_ACT_LEG) l[k++] = l[i];
            if (k) n = k;
            gk_play(&p, l[gk_splitmix64(&seed) % (uint64_t)n]);
        }
    }
}

int main(void) {
    gk_init();
    rules_example();
    ev_weights_t w;
    CHECK(ev_weights_default(GK_GAME_GOBS, &w) == 0, "no default Gobs weights");
    mcts_t *on = new_search(2, &w), *off = new_search(0, &w);
    for (int v = 0; v < 2; v++) {
        long checked = 0, wins = 0;
        int mc_on = 0, mc_off = 0, mc_n = 0;
        random_games(v, &w, on, off, &checked, &wins, &mc_on, &mc_off, &mc_n);
        printf("%s: %ld positions checked, %ld with a winning chain; MCTS at %d playouts won "
               "%d of %d games from a winning chain of 2+ legs (%d with quiesce=0)\n",
               v ? "short" : "standard", checked, wins, PLAYOUTS, mc_on, mc_n, mc_off);
        CHECK(wins > 0, "no winning chain met: the check is vacuous");
        CHECK(mc_n > 0, "no long winning chain met: the MCTS check is vacuous");
        CHECK(mc_on == mc_n, "the default search missed %d winning chains", mc_n - mc_on);
    }
    mcts_free(on);
    mcts_free(off);
    return check_exit("test_leaf_gobs");
}
