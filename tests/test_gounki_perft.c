/*
 * tests/test_gounki_perft.c -- Gounki perft from the start position against the counts
 * two independent implementations agree on (issue 2), for the fast counting perft of
 * the game table and for the generic perft over gen()/play().
 */
#include <inttypes.h>
#include <stdio.h>

#include "games/game.h"
#include "games/gounki.h"

int main(void) {
    static const uint64_t want[] = {1, 36, 1296, 53892, 2241009, 100234880};
    gk_init();
    const gk_game_t *g = &gk_gounki_game;
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_MAX_PLY};
    gk_pos_t p;
    g->setup(&p, &r);
    int failures = 0;
    for (int d = 0; d <= 5; d++) {
        uint64_t n = g->perft(&p, d);
        printf("perft %d = %" PRIu64 "%s\n", d, n, n == want[d] ? "" : "  FAIL");
        failures += n != want[d];
    }
    /* The generic perft shares nothing with the fast one but gen() and play(). */
    for (int d = 1; d <= 3; d++) {
        uint64_t n = gk_perft_generic(&p, d);
        printf("generic perft %d = %" PRIu64 "%s\n", d, n, n == want[d] ? "" : "  FAIL");
        failures += n != want[d];
    }
    return failures != 0;
}
