/*
 * tests/test_game_helpers.c -- the rule-level helpers of games/game.h shared by every layer.
 *
 * - gk_seed_mix gives the values the self-play logs, matches and training runs were made
 *   with (pinned: a change of its arithmetic changes every stored game), and
 *   sp_game_seed is gk_seed_mix of the run seed and the game index.
 * - gk_is_legal and gk_action_index agree with gen() on every action of positions of both
 *   games, and refuse actions that gen() does not list.
 * - gk_play_turn/gk_end_turn, the one turn step: the repetition draw of docs/RULES.md,
 *   and a game without a ply limit whose history fills ends as a draw by the ply limit
 *   instead of going on with repetitions unchecked.
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
    gk_rules_t r = {(uint8_t)game, (uint8_t)variant, GK_DEFAULT_TURN_LIMIT};
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

/* Plays the complete move `text` at p through the turn step. */
static void play_text(gk_pos_t *p, gk_hist_t *h, const char *text) {
    gk_action_t seq[GK_MAX_TURN];
    char err[256];
    int n = gk_game_of(p)->parse_move(p, text, seq, GK_MAX_TURN, err, sizeof err);
    CHECK(n > 0, "%s: %s", text, err);
    for (int i = 0; i < n; i++) gk_play_turn(p, h, seq[i]);
}

static void test_turn_step(void) {
    static gk_hist_t h; /* 32 KB */
    static const char *const moves[] = {"a1-b1", "h8-g8", "b1-a1", "g8-h8"};
    gk_pos_t p;
    char err[256];
    int rc = gk_game_by_id(GK_GAME_GOUNKI)
                 ->pos_from_text(&p, "7s/8/8/8/8/8/8/S7 w 0", 0, err, sizeof err);
    CHECK(rc == 0, "position: %s", err);
    if (rc) return;
    gk_pos_t start = p;
    gk_hist_init(&h, &p);
    for (int i = 0; i < 8; i++) {
        CHECK(!gk_over(&p), "over before ply %d", i + 1);
        play_text(&p, &h, moves[i % 4]);
    }
    CHECK(gk_over(&p) && p.reason == GK_REASON_REPETITION && p.turn == 8,
          "third occurrence after ply 8: reason %d ply %d", p.reason, p.turn);
    CHECK(h.n == 9, "history of the start and 8 turns, got %d", h.n);

    /* No ply limit, a history one entry short of full: the next turn fills it, the one
     * after cannot be pushed and ends the game (before: play went on unchecked). */
    p = start;
    gk_hist_init(&h, &p);
    while (h.n < GK_HIST_MAX - 1) {
        gk_pos_t q = p;
        q.hash ^= (uint64_t)h.n * 0x9E3779B97F4A7C15ull + 1;
        CHECK(gk_hist_push(&h, &q) == 0, "push %d", h.n);
    }
    play_text(&p, &h, "a1-b1");
    CHECK(!gk_over(&p) && h.n == GK_HIST_MAX, "the turn that fills the history: n %d", h.n);
    play_text(&p, &h, "h8-g8");
    CHECK(gk_over(&p) && p.result == GK_DRAW && p.reason == GK_REASON_TURN_LIMIT,
          "a full history ends the game: result %d reason %d", p.result, p.reason);
    gk_end_turn(&p, &h); /* after the end: nothing */
    CHECK(h.n == GK_HIST_MAX && p.reason == GK_REASON_TURN_LIMIT, "gk_end_turn after the end");
    CHECK(GK_MAX_TURN_LIMIT + 1 == GK_HIST_MAX, "the largest ply limit fits the history");
}

int main(void) {
    gk_init();
    test_seed_mix();
    test_legal(GK_GAME_GOUNKI, 0);
    test_legal(GK_GAME_GOBS, 0);
    test_legal(GK_GAME_GOBS, 1);
    test_turn_step();
    return check_exit("test_game_helpers");
}
