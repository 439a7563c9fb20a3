/*
 * tests/test_game_helpers.c -- the rule-level helpers of games/game.h shared by every layer.
 *
 * - gk_seed_mix gives the values the self-play logs, matches and training runs were made
 *   with (pinned: a change of its arithmetic changes every stored game), and
 *   sp_game_seed is gk_seed_mix of the run seed and the game index.
 * - gk_is_legal and gk_action_index agree with gen() on every action of positions of both
 *   games, and refuse actions that gen() does not list.
 */
#include <stdio.h>

#include "games/game.h"
#include "selfplay/selfplay.h"
#include "check.h"

static void test_seed_mix(void) {
    CHECK(gk_seed_mix(1, 0) == 0x8596845e7ea88ca1ull, "gk_seed_mix(1, 0)");
    CHECK(gk_seed_mix(7, 59) == 0x8c02731febf22de7ull, "gk_seed_mix(7, 59)");
    CHECK(gk_seed_mix(0xdeadbeefull, 0x0BE17000ull + 3) == 0x6ac9c555c02baf17ull,
          "gk_seed_mix of a pair opening");
    for (uint64_t i = 0; i < 100; i++)
        CHECK(sp_game_seed(7, i) == gk_seed_mix(7, i), "sp_game_seed(7, %llu)",
              (unsigned long long)i);
    CHECK(gk_seed_mix(7, 0) != gk_seed_mix(7, 1) && gk_seed_mix(7, 0) != gk_seed_mix(8, 0),
          "nearby seeds differ");
}

/* Every action gen() lists is legal and found at its index; others are not. */
static void check_position(const gk_pos_t *p) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(p, list);
    for (int i = 0; i < n; i++) {
        CHECK(gk_is_legal(p, list[i]), "action %d of %d not legal", i, n);
        CHECK(gk_action_index(list, n, list[i]) == i, "index of action %d", i);
        gk_action_t other = list[i] ^ 0x40000000u;
        if (gk_action_index(list, n, other) < 0)
            CHECK(!gk_is_legal(p, other), "an action gen() does not list is legal");
    }
    CHECK(!gk_is_legal(p, GK_NO_ACTION), "GK_NO_ACTION is legal");
    CHECK(gk_action_index(list, 0, n ? list[0] : 1) == -1, "found in an empty list");
}

static void test_legal(int game, int variant) {
    gk_rules_t r = {(uint8_t)game, (uint8_t)variant, GK_DEFAULT_MAX_PLY};
    gk_pos_t p;
    gk_game_by_id(game)->setup(&p, &r);
    uint64_t rng = 11;
    for (int ply = 0; ply < 60 && !gk_over(&p); ply++) {
        check_position(&p);
        gk_action_t list[GK_MAX_ACTIONS];
        int n = gk_gen(&p, list);
        if (n == 0) break;
        gk_play(&p, list[gk_splitmix64(&rng) % (uint64_t)n]);
    }
}

int main(void) {
    gk_init();
    test_seed_mix();
    test_legal(GK_GAME_GOUNKI, 0);
    test_legal(GK_GAME_GOBS, 0);
    test_legal(GK_GAME_GOBS, 1);
    return check_exit("test_game_helpers");
}
