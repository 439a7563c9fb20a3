/*
 * tests/test_gounki_record.c -- the game-record writer and reader (games/record.h) on
 * seeded random Gounki games: what gk_record_write() prints, gk_record_read() reads
 * back to the same moves, final position and tags; games start from the start
 * position or from a position of another game (Position tag, Black to move first),
 * under several turn limits (TurnLimit tag); annotations (glyphs, comments) written by
 * gk_record_write_notes() read back to the same moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gounki.h"
#include "games/record.h"
#include "check.h"

#define MATCH_GAMES 50

typedef struct {
    gk_pos_t final[MATCH_GAMES];
    int n;
} match_t;

static int check_match(void *ctx, const gk_record_t *rec, int index, const char *err) {
    match_t *m = ctx;
    CHECK(!err, "match file, game %d: %s", index + 1, err ? err : "");
    CHECK(index < MATCH_GAMES && !memcmp(&rec->final, &m->final[index], sizeof rec->final),
          "match file, game %d: final position", index + 1);
    m->n++;
    return 0;
}

/* Annotated: glyphs glued or alone, comments with braces inside, read back the same. */
static void test_notes(void) {
    gk_rules_t defaults = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    static const char text[] = "1. c2-d3?? f7-e6 !?\n2. d3-e4! {a note}\n";
    gk_record_t rec, back;
    char err[512];
    CHECK(gk_record_read(&rec, text, sizeof text - 1, &defaults, err, sizeof err) == 0 &&
              rec.nmoves == 3,
          "glyphs: %s (%d moves)", err, rec.nmoves);
    const char *gl[3] = {"??", "", "?"}, *no[3] = {"55.0% -> 20.0% {x}", NULL, "best d3-e4"};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(gk_record_write_notes(&rec, f, gl, no) == 0, "write_notes failed");
    fclose(f);
    CHECK(strstr(buf, "c2-d3?? {55.0% -> 20.0% (x)} f7-e6") != NULL, "notes written as: %s", buf);
    CHECK(gk_record_read(&back, buf, len, &defaults, err, sizeof err) == 0 && back.nmoves == 3 &&
              !memcmp(&back.final, &rec.final, sizeof rec.final),
          "annotated record read back: %s", err);
    gk_record_free(&back);
    gk_record_free(&rec);
    free(buf);
}

int main(void) {
    static match_t match;
    char *all = NULL;
    size_t all_len = 0;
    FILE *all_f = open_memstream(&all, &all_len);
    gk_init();
    test_notes();
    const gk_game_t *g = &gk_gounki_game;
    uint64_t seed = 7;
    static const uint16_t limits[] = {GK_DEFAULT_TURN_LIMIT, 0, 40, 9};
    int games = 0, over = 0;
    for (int game = 0; game < 400; game++) {
        gk_rules_t r = {GK_GAME_GOUNKI, 0, limits[game % 4]};
        gk_record_t rec;
        if (gk_record_init(&rec, &r)) {
            CHECK(0, "init");
            break;
        }
        if (game % 3 == 1) {
            /* Start somewhere in the middle of another random game. */
            gk_pos_t p = rec.start;
            int turns = 1 + (int)(gk_splitmix64(&seed) % 15);
            for (int i = 0; i < turns && !gk_over(&p); i++) {
                gk_action_t list[GK_MAX_ACTIONS];
                int n = g->gen(&p, list);
                g->play(&p, list[gk_splitmix64(&seed) % (uint64_t)n]);
            }
            if (!gk_over(&p)) gk_record_set_start(&rec, &p);
        }
        CHECK(gk_record_set_tag(&rec, "White", "a \"quoted\" name \\ with backslash") == 0, "tag");
        CHECK(gk_record_set_tag(&rec, "Event", "seed test") == 0, "tag");
        CHECK(gk_record_set_tag(&rec, "Bad name", "x") < 0, "a tag name with a space is refused");
        int stop = (int)(gk_splitmix64(&seed) % 200);
        while (!gk_over(&rec.final) && rec.nmoves < stop) {
            gk_action_t list[GK_MAX_ACTIONS];
            int n = g->gen(&rec.final, list);
            gk_action_t a = list[gk_splitmix64(&seed) % (uint64_t)n];
            CHECK(gk_record_push(&rec, &a, 1) == 0, "push");
        }
        over += gk_over(&rec.final);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CHECK(f && gk_record_write(&rec, f) == 0, "write");
        fclose(f);
        gk_record_t back;
        char err[512];
        gk_rules_t defaults = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
        int rc = gk_record_read(&back, buf, len, &defaults, err, sizeof err);
        CHECK(rc == 0, "game %d does not read back: %s\n%s", game, err, buf);
        if (rc == 0) {
            CHECK(back.nmoves == rec.nmoves, "game %d: %d moves read, %d written", game,
                  back.nmoves, rec.nmoves);
            CHECK(!memcmp(&back.start, &rec.start, sizeof rec.start), "game %d: start", game);
            CHECK(!memcmp(&back.final, &rec.final, sizeof rec.final), "game %d: final", game);
            CHECK(back.nmoves == rec.nmoves &&
                      !memcmp(back.actions, rec.actions,
                              (size_t)rec.move_start[rec.nmoves] * sizeof *rec.actions),
                  "game %d: actions", game);
            const char *w = gk_record_tag(&back, "White");
            CHECK(w && !strcmp(w, "a \"quoted\" name \\ with backslash"), "game %d: tag", game);
            gk_pos_t mid;
            gk_record_pos_at(&back, back.nmoves / 2, &mid);
            gk_pos_t want;
            gk_record_pos_at(&rec, rec.nmoves / 2, &want);
            CHECK(!memcmp(&mid, &want, sizeof mid), "game %d: position at move %d", game,
                  rec.nmoves / 2);
        }
        if (game < MATCH_GAMES) {
            /* Records written one after the other, as a match file. */
            fwrite(buf, 1, len, all_f);
            fputc('\n', all_f);
            match.final[game] = rec.final;
        }
        gk_record_free(&back);
        gk_record_free(&rec);
        free(buf);
        games++;
    }
    fclose(all_f);
    char err[512];
    gk_rules_t defaults = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    int n = gk_record_read_all(all, all_len, &defaults, check_match, &match, err, sizeof err);
    CHECK(n == MATCH_GAMES && match.n == MATCH_GAMES, "match file: %d records read (%s)", n,
          n < 0 ? err : "");
    free(all);
    printf("%d records written and read back (%d finished games), %d failures\n", games, over,
           check_failures);
    return check_exit("test_gounki_record");
}
