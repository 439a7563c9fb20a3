/* tests/test_players.c -- player specs (good and bad), legal choices for every kind in
 * both games (Gobs jump chains included), determinism and game resets. */
#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "search/baselines.h"
#include "search/player.h"

static int failures;

static void check(const char *what, int ok) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static void bad_spec(const char *spec, const char *must_name) {
    char err[256] = "";
    player_t *pl = player_new(spec, GK_GAME_GOUNKI, err, sizeof err);
    if (pl) {
        printf("FAIL spec '%s' accepted\n", spec);
        failures++;
        player_free(pl);
        return;
    }
    if (!strstr(err, must_name) || strchr(err, '\n')) {
        printf("FAIL spec '%s': error '%s' does not name '%s' on one line\n", spec, err, must_name);
        failures++;
    }
}

/* Plays up to max_actions actions of one game between a and b (a White) from the start
 * of game g; writes the actions to out; returns their number. */
static int play(player_t *a, player_t *b, int game, uint64_t seed, int max_actions,
                gk_action_t *out, int *mid_turn_choices) {
    gk_rules_t r = {(uint8_t)game, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_hist_t h;
    gk_game_by_id(game)->setup(&p, &r);
    gk_hist_init(&h, &p);
    player_new_game(a, seed);
    player_new_game(b, seed + 1);
    int n = 0;
    while (!gk_over(&p) && n < max_actions) {
        player_t *pl = p.stm == GK_WHITE ? a : b;
        player_move_t mv;
        if (player_choose(pl, &p, &h, seed * 1000 + (uint64_t)n, &mv) < 0) {
            gk_apply_no_move(&p);
            break;
        }
        if (!gk_is_legal(&p, mv.action)) {
            printf("FAIL %s chose an illegal action\n", player_spec(pl));
            failures++;
            break;
        }
        if (mv.value < 0 || mv.value > 1) {
            printf("FAIL %s value %g out of [0, 1]\n", player_spec(pl), mv.value);
            failures++;
        }
        if (p.in_turn && mid_turn_choices) (*mid_turn_choices)++;
        player_observe(a, &p, mv.action);
        player_observe(b, &p, mv.action);
        out[n++] = mv.action;
        gk_play(&p, mv.action);
        if (p.in_turn == 0 && !gk_over(&p)) {
            gk_hist_push(&h, &p);
            gk_hist_check_repetition(&h, &p);
        }
    }
    return n;
}

static player_t *make(const char *spec, int game) {
    char err[256];
    player_t *pl = player_new(spec, game, err, sizeof err);
    if (!pl) {
        printf("FAIL spec '%s' refused: %s\n", spec, err);
        failures++;
    }
    return pl;
}

int main(void) {
    gk_init();

    bad_spec("", "empty");
    bad_spec("alphabeta", "alphabeta");
    bad_spec("ab:dpth=3", "dpth");
    bad_spec("ab:depth=0", "depth");
    bad_spec("ab:depth=x", "depth");
    bad_spec("ab:depth", "depth");
    bad_spec("ab:", "ab");
    bad_spec("ab:time=-1", "time");
    bad_spec("ab:eval=material", "eval");
    bad_spec("ab:eval=classic,weights=w.txt", "weights");
    bad_spec("greedy:depth=2", "depth");
    bad_spec("random:seed=3", "random");
    bad_spec("mcts:bogus=1", "bogus");
    bad_spec("mcts:playouts=abc", "playouts");
    bad_spec("mcts:weights=/nonexistent/w.txt", "weights");
    bad_spec("mcts:playouts=10=2", "playouts");
    bad_spec("ab:depth=4,,eval=classic", "empty");
    bad_spec("ab:depth=4,", "empty");
    bad_spec("ab: depth=4", " depth");
    bad_spec("ab:depth=4\n", "control");
    bad_spec("ab:tt_mb=100000", "tt_mb");
    bad_spec("ab:id=off", "depth");
    bad_spec("ab:id=no,depth=2", "id");
    bad_spec("ab:randomize=8", "depth");
    bad_spec("ab:randomize=65,depth=2", "randomize");

    /* The robot's opening randomisation: a function of the move's seed in the first 4
     * turns, varying with it; the best move (the same for every seed) from turn 4 on. */
    {
        player_t *rb = make("ab:depth=2,eval=classic,id=off,randomize=8", GK_GAME_GOUNKI);
        gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
        gk_pos_t p;
        gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
        gk_pos_t late = p;
        for (int t = 0; t < 4; t++) gk_play(&late, bl_random(&late, (uint64_t)t + 3));
        gk_action_t first = GK_NO_ACTION, late_first = GK_NO_ACTION;
        int differ = 0, late_differ = 0;
        for (uint64_t seed = 1; rb && seed <= 20; seed++) {
            player_move_t m1, m2, m3;
            player_new_game(rb, 5);
            player_choose(rb, &p, NULL, seed, &m1);
            player_choose(rb, &p, NULL, seed, &m2);
            player_choose(rb, &late, NULL, seed, &m3);
            check("randomize: same seed, same move", m1.action == m2.action);
            check("randomize: legal", gk_is_legal(&p, m1.action));
            if (seed == 1) first = m1.action, late_first = m3.action;
            differ |= m1.action != first;
            late_differ |= m3.action != late_first;
        }
        check("randomize: varies with the seed in the first 4 turns", differ);
        check("randomize: the best move from turn 4 on", !late_differ);
        player_free(rb);
    }

    const char *specs[] = {
        "random",     "greedy",          "greedy:eval=classic", "ab:depth=2,eval=classic",
        "ab:depth=1", "mcts:playouts=50"};
    const int nspecs = (int)(sizeof specs / sizeof specs[0]);
    static gk_action_t g1[4096], g2[4096];
    for (int game = 0; game < GK_NGAMES; game++) {
        int mid = 0;
        for (int i = 0; i < nspecs; i++) {
            player_t *a = make(specs[i], game), *b = make(specs[(i + 1) % nspecs], game);
            if (!a || !b) {
                player_free(a);
                player_free(b);
                continue;
            }
            int limit = game == GK_GAME_GOBS ? 60 : 400;
            int n1 = play(a, b, game, 7, limit, g1, &mid);
            /* The same seeds on the same (reused) objects replay the same game. */
            int n2 = play(a, b, game, 7, limit, g2, NULL);
            char what[200];
            snprintf(what, sizeof what, "%s vs %s (%s): the same game twice", specs[i],
                     specs[(i + 1) % nspecs], gk_game_by_id(game)->name);
            check(what, n1 == n2 && !memcmp(g1, g2, (size_t)n1 * sizeof g1[0]));
            player_free(a);
            player_free(b);
        }
        if (game == GK_GAME_GOBS) printf("gobs: %d choices made in the middle of a turn\n", mid);
    }

    /* Random actually depends on the seed. */
    player_t *r = make("random", GK_GAME_GOUNKI), *r2 = make("random", GK_GAME_GOUNKI);
    if (r && r2) {
        int n1 = play(r, r2, GK_GAME_GOUNKI, 1, 60, g1, NULL);
        int n2 = play(r, r2, GK_GAME_GOUNKI, 2, 60, g2, NULL);
        check("random: other seed, other game", n1 != n2 || memcmp(g1, g2, (size_t)n1 * 4));
    }
    player_free(r);
    player_free(r2);

    player_t *m = make("mcts:playouts=100,threads=1", GK_GAME_GOUNKI);
    check("mcts kind", m && player_kind(m) == PLAYER_MCTS && player_threads(m) == 1);
    player_free(m);

    if (failures) return 1;
    printf("test_players: all passed\n");
    return 0;
}
