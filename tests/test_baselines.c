/* tests/test_baselines.c -- the classic evaluation and the random, greedy and alpha-beta
 * players on hand-made Gounki positions and on Gobs. */
#include <stdio.h>
#include <string.h>

#include "eval/classic.h"
#include "games/game.h"
#include "search/baselines.h"

static int failures;

static void check(const char *what, int ok) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static gk_pos_t load(int game, const char *text) {
    gk_pos_t p;
    char err[256];
    if (gk_game_by_id(game)->pos_from_text(&p, text, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        printf("FAIL cannot load '%s': %s\n", text, err);
        failures++;
        gk_rules_t r = {(uint8_t)game, 0, GK_DEFAULT_TURN_LIMIT};
        gk_game_by_id(game)->setup(&p, &r);
    }
    return p;
}

static const char *act(const gk_pos_t *p, gk_action_t a) {
    static char buf[GK_MOVE_TEXT_MAX];
    if (a == GK_NO_ACTION || gk_game_of(p)->action_text(p, a, buf, sizeof buf) < 0) return "(none)";
    return buf;
}

static void test_classic(void) {
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
    check("classic: start is level", classic_eval(&p) == 0);
    /* White: square a1 (rank 0) and round e4 (3 ranks up); Black: square b1 (7 ranks up
     * for Black) and round h8 (0 ranks up).  White to move. */
    gk_pos_t q = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    int white = CLASSIC_PIECE + CLASSIC_ROUND + 3 * CLASSIC_ADVANCE;
    int black = CLASSIC_PIECE + 7 * CLASSIC_ADVANCE + CLASSIC_ROUND;
    check("classic: hand count, white to move", classic_eval(&q) == white - black);
    gk_pos_t qb = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 b 10");
    check("classic: same position, black to move", classic_eval(&qb) == black - white);
    /* Stacks count their simple pieces: a white (RRS) on c3 against a black s on h8. */
    gk_pos_t st = load(GK_GAME_GOUNKI, "7s/8/8/8/8/2(RRS)5/8/8 w 3");
    int w3 = CLASSIC_PIECE + 2 * CLASSIC_ROUND + 3 * 2 * CLASSIC_ADVANCE;
    check("classic: stack", classic_eval(&st) == w3 - CLASSIC_PIECE);

    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    check("classic gobs: start is level", classic_eval(&p) == 0);
}

static void test_random(void) {
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
    int seen_other = 0;
    gk_action_t first = bl_random(&p, 1);
    for (uint64_t s = 1; s < 200; s++) {
        gk_action_t a = bl_random(&p, s);
        check("random: legal", gk_is_legal(&p, a));
        check("random: same seed, same action", a == bl_random(&p, s));
        seen_other |= a != first;
    }
    check("random: varies with the seed", seen_other);
}

static void test_greedy(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    /* A round on d8 exits at once; greedy must take the win. */
    gk_pos_t p = load(GK_GAME_GOUNKI, "3R4/8/8/8/4S3/8/8/7s w 0");
    int score;
    gk_action_t a = bl_greedy(&ev, &p, 7, &score);
    gk_pos_t q = p;
    gk_play(&q, a);
    check("greedy: takes the exit", gk_over(&q) && q.result == GK_WIN_WHITE);
    check("greedy: win score", score == BL_WIN - 1);
    /* Material: the capture a1xb1 wins a square. */
    p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    a = bl_greedy(&ev, &p, 3, NULL);
    check("greedy: captures", !strcmp(act(&p, a), "a1xb1"));
    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    for (uint64_t s = 0; s < 5; s++)
        check("greedy gobs: legal", gk_is_legal(&p, bl_greedy(&ev, &p, s, NULL)));
}

static void test_ab(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    ab_search_t *s = ab_new(&ev, 1);
    check("ab: allocated", s != NULL);
    if (!s) return;
    ab_result_t r, r2;
    ab_limits_t lim = {.depth = 4};

    /* Must block: Black's square on b1 exits next move unless captured. */
    gk_pos_t p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: captures the exiting square", !strcmp(act(&p, r.best), "a1xb1"));
    check("ab: not a proven result", r.score < BL_WIN - 100 && r.score > -BL_WIN + 100);

    /* The same with two black rounds on the back rank, at depth 2. */
    p = load(GK_GAME_GOUNKI, "6rr/8/8/8/4R3/8/8/Ss6 w 10");
    lim.depth = 2;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: blocks at depth 2", !strcmp(act(&p, r.best), "a1xb1"));

    /* Faster win preferred: d8 exits now; the square e4 would need more moves. */
    p = load(GK_GAME_GOUNKI, "3R4/8/8/8/4S3/8/8/7s w 0");
    lim.depth = 5;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: win in one", r.score == BL_WIN - 1 && !strcmp(act(&p, r.best), "d8-Out"));

    /* Lost position: Black exits next move whatever White does (b1 cannot be reached). */
    p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/1s5S w 10");
    lim.depth = 3;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: sees the loss", r.score == -(BL_WIN - 2));

    /* Determinism and legality from the start, depth 4, both evaluations' table reset. */
    gk_rules_t rr = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &rr);
    lim.depth = 4;
    ab_clear(s);
    ab_search(s, &p, NULL, &lim, &r);
    ab_clear(s);
    ab_search(s, &p, NULL, &lim, &r2);
    check("ab: legal from the start", gk_is_legal(&p, r.best));
    check("ab: deterministic", r.best == r2.best && r.score == r2.score && r.nodes == r2.nodes);
    check("ab: depth reached", r.depth == 4);
    check("ab: pv starts with the move", r.npv >= 1 && r.pv[0] == r.best);
    printf("ab depth 4 from the Gounki start: %s score %d nodes %llu\n", act(&p, r.best), r.score,
           (unsigned long long)r.nodes);

    /* A time limit stops the search and still returns a legal move. */
    ab_limits_t tl = {.depth = 0, .time_s = 0.05};
    ab_search(s, &p, NULL, &tl, &r);
    check("ab: timed search legal", gk_is_legal(&p, r.best) && r.seconds < 1.0);

    /* Gobs: actions of jump chains are ordinary nodes. */
    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    ab_search_t *g = ab_new(&ev, 1);
    lim.depth = 2;
    for (int t = 0; t < 12 && g && !gk_over(&p); t++) {
        check("ab gobs: search ok", ab_search(g, &p, NULL, &lim, &r) == 0);
        check("ab gobs: legal", gk_is_legal(&p, r.best));
        gk_play(&p, r.best);
    }
    ab_free(g);
    ab_free(s);
}

int main(void) {
    gk_init();
    test_classic();
    test_random();
    test_greedy();
    test_ab();
    if (failures) return 1;
    printf("test_baselines: all passed\n");
    return 0;
}
