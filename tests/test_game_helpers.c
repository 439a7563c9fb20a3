/*
 * tests/test_game_helpers.c -- the rule-level helpers of games/game.h shared by every layer.
 *
 * - gk_seed_mix gives the values the self-play logs, matches and training runs were made
 *   with (pinned: a change of its arithmetic changes every stored game), and
 *   sp_game_seed is gk_seed_mix of the run seed and the game index.
 * - gk_is_legal and gk_action_index agree with gen() on every action of positions of both
 *   games, and refuse actions that gen() does not list.
 * - gk_play_turn/gk_end_turn, the one turn step: the repetition draw of docs/RULES.md,
 *   and a game without a turn limit whose history fills ends as a draw by the turn limit
 *   instead of going on with repetitions unchecked.
 * - gk_reason_named reads every reason by its name, and the turn limit by its old name
 *   ply-limit too, in both games' position strings (which write turn-limit).
 */
#include <stdio.h>
#include <string.h>

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
    for (int t = 0; t < 60 && !gk_over(&p); t++) {
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
        CHECK(!gk_over(&p), "over before turn %d", i + 1);
        play_text(&p, &h, moves[i % 4]);
    }
    CHECK(gk_over(&p) && p.reason == GK_REASON_REPETITION && p.turn == 8,
          "third occurrence after turn 8: reason %d turn %d", p.reason, p.turn);
    CHECK(h.n == 9, "history of the start and 8 turns, got %d", h.n);

    /* No turn limit, a history one entry short of full: the next turn fills it, the one
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
    CHECK(GK_MAX_TURN_LIMIT + 1 == GK_HIST_MAX, "the largest turn limit fits the history");
}

/* Reasons by name, and the old name of the turn limit in position strings. */
static void test_reason_names(void) {
    for (int r = 0; r < GK_NREASONS; r++) {
        const char *t = gk_reason_text((gk_reason_t)r);
        CHECK(gk_reason_named(t, strlen(t)) == r, "reason %d by its name %s", r, t);
    }
    CHECK(!strcmp(gk_reason_text(GK_REASON_TURN_LIMIT), "turn-limit"), "the turn limit's name");
    CHECK(gk_reason_named("ply-limit", 9) == GK_REASON_TURN_LIMIT, "the old name ply-limit");
    CHECK(gk_reason_named("ply-limitx", 10) < 0 && gk_reason_named("ply-limi", 8) < 0 &&
              gk_reason_named("turn", 4) < 0,
          "a name only when whole");
    static const char *const old[][2] = {
        {"7s/8/8/8/8/8/S7/8 b 10 1/2-1/2 ply-limit", "7s/8/8/8/8/8/S7/8 b 10 1/2-1/2 turn-limit"},
        {"standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/w8/1wwwwwwww/wwwwwwwww/wwwwwwwww b 11 - "
         "1/2-1/2:ply-limit",
         "standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/w8/1wwwwwwww/wwwwwwwww/wwwwwwwww b 11 - "
         "1/2-1/2:turn-limit"}};
    for (int i = 0; i < 2; i++) {
        const gk_game_t *g = gk_game_by_id(i ? GK_GAME_GOBS : GK_GAME_GOUNKI);
        gk_pos_t p;
        char err[200], back[GK_POS_TEXT_MAX];
        CHECK(g->pos_from_text(&p, old[i][0], GK_DEFAULT_TURN_LIMIT, err, sizeof err) == 0,
              "%s: %s", old[i][0], err);
        CHECK(p.result == GK_DRAW && p.reason == GK_REASON_TURN_LIMIT && p.turn == (i ? 11 : 10),
              "%s: result %d reason %d turn %d", old[i][0], p.result, p.reason, p.turn);
        CHECK(g->pos_to_text(&p, back, sizeof back) >= 0 && !strcmp(back, old[i][1]),
              "written as '%s', want '%s'", back, old[i][1]);
    }
}

int main(void) {
    gk_init();
    test_reason_names();
    test_seed_mix();
    test_legal(GK_GAME_GOUNKI, 0);
    test_legal(GK_GAME_GOBS, 0);
    test_legal(GK_GAME_GOBS, 1);
    test_turn_step();
    return check_exit("test_game_helpers");
}
