/* tests/fuzz/fuzz_record.c -- the game-record reader (games/record.h) on arbitrary
 * text, for Gounki by default (a Game tag may switch game): never a crash; a record
 * that reads is written and read back to the same moves and final position; the
 * multi-record reader gives records consistent with their moves. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each record of a multi-record read is consistent with its own moves. */
static int check_one(void *ctx, const gk_record_t *rec, int index, const char *err) {
    (void)ctx, (void)index;
    gk_pos_t p;
    gk_record_pos_at(rec, rec->nmoves, &p);
    if (p.hash != rec->final.hash || p.turn != rec->final.turn) abort();
    if (err && !err[0]) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size > 65536) return 0;
    /* An exact-size copy: the reader must never read past `size`. */
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    memcpy(text, data, size);
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_record_t rec, back;
    char err[512];
    if (gk_record_read(&rec, text, size, &r, err, sizeof err) == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) abort();
        if (gk_record_write(&rec, f)) abort();
        fclose(f);
        if (gk_record_read(&back, buf, len, &r, err, sizeof err)) abort();
        if (back.nmoves != rec.nmoves || memcmp(&back.final, &rec.final, sizeof rec.final)) abort();
        gk_record_free(&back);
        free(buf);
    } else if (!err[0]) {
        abort();
    }
    gk_record_free(&rec);
    if (gk_record_read_all(text, size, &r, check_one, NULL, err, sizeof err) < 0 && !err[0])
        abort();
    free(text);
    return 0;
}
