/*
 * tests/search_util.h -- positions and result checks that the search and player tests
 * share: a seeded random walk, a one-action win, the visits of a result's root children.
 *
 * Contract
 * --------
 * Header-only, for test programs (one translation unit each), like check.h: static
 * functions, each marked unused.  Legality is gk_is_legal() of games/game.h.
 */
#ifndef GK_TESTS_SEARCH_UTIL_H
#define GK_TESTS_SEARCH_UTIL_H

#include <stdint.h>

#include "games/game.h"
#include "search/mcts.h"

/* Plays up to n actions drawn by the seed from p, stopping before an action that would
 * end the game (p stays unfinished). */
__attribute__((unused)) static void test_walk(gk_pos_t *p, int n, uint64_t seed) {
    gk_action_t l[GK_MAX_ACTIONS];
    for (int k = 0; k < n; k++) {
        int m = gk_gen(p, l);
        if (!m) return;
        gk_pos_t q = *p;
        gk_play(&q, l[gk_splitmix64(&seed) % (uint64_t)m]);
        if (gk_over(&q)) return;
        *p = q;
    }
}

/* Whether the side to move at p has an action that wins at once. */
__attribute__((unused)) static int test_wins_now(const gk_pos_t *p) {
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(p, l);
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, l[i]);
        if (gk_over(&q) && gk_result_for(&q, p->stm) > 0) return 1;
    }
    return 0;
}

/* The visits of r's root children, summed (the playouts that went below the root). */
__attribute__((unused)) static uint64_t test_child_visits(const mcts_result_t *r) {
    uint64_t s = 0;
    for (int i = 0; i < r->nchildren; i++) s += r->children[i].visits;
    return s;
}

#endif
