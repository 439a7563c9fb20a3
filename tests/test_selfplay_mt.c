/*
 * tests/test_selfplay_mt.c -- the self-play driver as a pure function.
 *
 * - Games 0..7 played by 2 OpenMP threads in any order are byte for byte the records of
 *   the same games played one after the other (and a replay of game 3 alone), for Gounki
 *   and Gobs: nothing leaks from one game into another.
 * - The records decode back, openings are random turns, searched actions carry
 *   statistics (visits at least the budget, children sorted, the played action among them
 *   when the temperature is off).
 * - Resignation: with a threshold no value stays under, nobody resigns; with one every
 *   value is under, the non-played-out games end by resignation at a player's second
 *   decision and the played-out ones record where they would have resigned.
 * - Opening lines (--book): games start with a line of the book, logged as book actions;
 *   malformed books are refused with the line named; a checksum line is checked.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/gamelog.h"
#include "data/xxh64.h"
#include "selfplay/selfplay.h"
#include "check.h"

/* ThreadSanitizer builds: LLVM's OpenMP runtime is not instrumented and its own locking
 * reads as races (the Archer tool asks for this option). */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) {
    return "ignore_noninstrumented_modules=1";
}

#define NG 8

static int play(const sp_settings_t *s, uint64_t i, gl_buf_t *out) {
    gl_game_t g;
    gl_game_init(&g);
    char err[256];
    int rc = sp_play_game(s, i, &g, NULL, err, sizeof err);
    g.time_ms = 0; /* the one field that is wall time, not a function of the game */
    if (rc == SP_DONE) rc = gl_encode_game(&g, GL_CODE_INDEX, true, out, err, sizeof err);
    if (rc) fprintf(stderr, "game %llu: %s\n", (unsigned long long)i, err);
    gl_game_free(&g);
    return rc;
}

static void test_pure(int game) {
    sp_settings_t s;
    sp_settings_default(&s, game);
    s.limits.playouts = 60;
    s.rules.turn_limit = 60;
    gl_buf_t seq[NG], par[NG], again = {0};
    memset(seq, 0, sizeof seq);
    memset(par, 0, sizeof par);
    for (int i = 0; i < NG; i++) CHECK(play(&s, (uint64_t)i, &seq[i]) == 0);
    int bad = 0;
#pragma omp parallel for num_threads(2) schedule(dynamic, 1) reduction(+ : bad)
    for (int i = NG - 1; i >= 0; i--) bad += play(&s, (uint64_t)i, &par[i]) != 0;
    CHECK(bad == 0);
    CHECK(play(&s, 3, &again) == 0);
    for (int i = 0; i < NG; i++)
        CHECK(seq[i].n == par[i].n && !memcmp(seq[i].p, par[i].p, seq[i].n));
    CHECK(again.n == seq[3].n && !memcmp(again.p, seq[3].p, again.n));
    /* Different indices, different games. */
    CHECK(seq[0].n != seq[1].n || memcmp(seq[0].p, seq[1].p, seq[0].n));

    /* What the records hold. */
    gl_game_t g;
    gl_game_init(&g);
    char err[256];
    for (int i = 0; i < NG; i++) {
        size_t used;
        CHECK(gl_decode_game(seq[i].p, seq[i].n, GL_VERSION, &g, &used, err, sizeof err) == 0);
        CHECK(g.index == (uint64_t)i && g.has_stats && g.result != GK_ONGOING);
        gk_pos_t p;
        gk_game_by_id(game)->setup(&p, &g.rules);
        for (uint32_t a = 0; a < g.nactions; a++) {
            const gl_action_stats_t *pl = &g.stats[a];
            if (p.turn < 4)
                CHECK(pl->kind == GL_ACTION_RANDOM);
            else
                CHECK(pl->kind == GL_ACTION_SEARCH || pl->kind == GL_ACTION_FORCED);
            if (pl->kind == GL_ACTION_SEARCH) {
                CHECK(pl->visits >= 1 && pl->ntop >= 1 && pl->ntop <= s.top);
                /* Only a proof stops the search before its budget; then its best action
                 * is the one child stored. */
                if (pl->visits < 60) CHECK(pl->ntop == 1);
                CHECK(pl->value >= -1.f && pl->value <= 1.f);
                bool found = false;
                for (int k = 0; k < pl->ntop; k++) {
                    const gl_child_t *c = &g.child[pl->first + (uint32_t)k];
                    if (k) CHECK(c[-1].visits >= c->visits);
                    found |= c->action == g.action[a];
                }
                if (p.turn >= s.temp_turns && pl->ntop < s.top) CHECK(found);
            }
            gk_play(&p, g.action[a]);
        }
    }
    gl_game_free(&g);
    for (int i = 0; i < NG; i++) {
        gl_buf_free(&seq[i]);
        gl_buf_free(&par[i]);
    }
    gl_buf_free(&again);
}

static void test_resign(void) {
    sp_settings_t s;
    sp_settings_default(&s, GK_GAME_GOUNKI);
    s.limits.playouts = 40;
    s.resign_on = true;
    s.resign_share = 0.5f;
    gl_game_t g;
    gl_game_init(&g);
    char err[256];
    s.resign_value = -1.0f; /* nothing is below -1 */
    for (uint64_t i = 0; i < 4; i++) {
        CHECK(sp_play_game(&s, i, &g, NULL, err, sizeof err) == SP_DONE);
        CHECK(g.reason != GK_REASON_RESIGN && g.resign_at == 0);
    }
    s.resign_value = 1.0f; /* every value is below 1 (but a proven win) */
    int resigned = 0, played_out = 0;
    for (uint64_t i = 0; i < 16; i++) {
        CHECK(sp_play_game(&s, i, &g, NULL, err, sizeof err) == SP_DONE);
        gl_buf_t b = {0};
        CHECK(gl_encode_game(&g, GL_CODE_INDEX, true, &b, err, sizeof err) == 0);
        gl_game_t h;
        gl_game_init(&h);
        size_t used;
        CHECK(gl_decode_game(b.p, b.n, GL_VERSION, &h, &used, err, sizeof err) == 0);
        CHECK(h.reason == g.reason && h.result == g.result && h.resign_at == g.resign_at);
        gl_game_free(&h);
        gl_buf_free(&b);
        if (g.flags & GL_FLAG_PLAYOUT) {
            played_out++;
            CHECK(g.reason != GK_REASON_RESIGN);
            CHECK(g.resign_at > 0 && g.resign_at <= g.nactions);
        } else if (g.reason == GK_REASON_RESIGN) {
            resigned++;
            CHECK(g.resign_at == g.nactions + 1);
            CHECK(g.result == (g.resign_side == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE));
        }
    }
    CHECK(played_out > 0 && resigned > 0);
    gl_game_free(&g);
}

static void test_book(void) {
    const char *text = "gkopenings 1\n"
                       "game gounki\n"
                       "# two openings\n"
                       "f2-f3 h8-h7+\n"
                       "a1-b1+ c8-b7+   # a comment\n";
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    ol_lines_t b;
    char err[256];
    CHECK(ol_parse(text, strlen(text), "t", &r, &b, err, sizeof err) == 0);
    CHECK(b.nlines == 2 && b.turns[0] == 2 && b.turns[1] == 2);
    sp_settings_t s;
    sp_settings_default(&s, GK_GAME_GOUNKI);
    s.limits.playouts = 30;
    s.open_kind = GL_OPEN_BOOK;
    s.book = &b;
    gl_game_t g;
    gl_game_init(&g);
    int seen[2] = {0, 0};
    for (uint64_t i = 0; i < 8; i++) {
        CHECK(sp_play_game(&s, i, &g, NULL, err, sizeof err) == SP_DONE);
        int line = g.action[0] == b.act[b.start[0]] ? 0 : 1;
        seen[line]++;
        for (uint32_t k = 0; k < 2; k++) {
            CHECK(g.action[k] == b.act[b.start[line] + k]);
            CHECK(g.stats[k].kind == GL_ACTION_BOOK);
        }
        CHECK(g.set.open_kind == GL_OPEN_BOOK && g.set.book_hash == b.hash);
    }
    CHECK(seen[0] > 0 && seen[1] > 0);
    gl_game_free(&g);
    ol_free(&b);
    /* With a checksum line: right, then wrong. */
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s", text);
    snprintf(buf + n, sizeof buf - (size_t)n, "checksum %016llx\n",
             (unsigned long long)gk_xxh64(buf, (size_t)n, 0));
    CHECK(ol_parse(buf, strlen(buf), "t", &r, &b, err, sizeof err) == 0);
    ol_free(&b);
    buf[n - 3] = 'x';
    CHECK(ol_parse(buf, strlen(buf), "t", &r, &b, err, sizeof err) != 0);
    const char *bad[] = {
        "",
        "gkopenings 2\ngame gounki\nf2-f3\n",
        "gkopenings 1\ngame gobs\nf2-f3\n",
        "gkopenings 1\ngame gounki\n",
        "gkopenings 1\ngame gounki\nf2-f3 f3-f4\n",
        "gkopenings 1\ngame gounki\nf2-f3\nchecksum 0000000000000000\n",
        "gkopenings 1\ngame gounki\nf2-f3\nchecksum zz\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(ol_parse(bad[i], strlen(bad[i]), "book.txt", &r, &b, err, sizeof err) != 0);
        CHECK(strncmp(err, "book.txt", 8) == 0);
    }
    CHECK(strstr(err, ":4:") != NULL); /* the line of the fault */
}

int main(void) {
    gk_init();
    test_book();
    test_pure(GK_GAME_GOUNKI);
    test_pure(GK_GAME_GOBS);
    test_resign();
    if (!check_failures) printf("test_selfplay_mt: ok\n");
    return check_exit("test_selfplay_mt");
}
