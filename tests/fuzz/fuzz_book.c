/*
 * tests/fuzz/fuzz_book.c -- the opening-book readers on arbitrary bytes.
 *
 * The first byte chooses what the rest is:
 *   0  a book file image: decoded and, when it reads, walked, described, its lines and
 *      expansion targets listed, its nodes' positions replayed, and written again;
 *   1  the same image with its trailing checksum recomputed first, so that mutations
 *      reach the header checks, zstd and the structural checks behind the checksum;
 *   2  a journal: parsed and, when it reads, replayed onto a small book.
 * Nothing may crash, hang or leak, whatever the input.  The corpus (tests/fuzz/corpus/
 * book) holds a small Gounki book stored uncompressed, the same compressed, a Gobs short
 * book and a journal of two batches, each with its mode byte first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "data/book.h"
#include "data/xxh64.h"
#include "games/game.h"

static void use(bk_book_t *b) {
    char err[256];
    uint64_t rng = 1;
    gk_action_t w[64];
    bk_walk(b, 0.5, &rng, w, 64);
    bk_walk(b, 0, &rng, w, 64);
    gk_pos_t p;
    gk_game_by_id(b->rules.game)->setup(&p, &b->rules);
    gk_sb_t sb;
    gk_sb_growing(&sb);
    bk_describe(b, &p, true, &sb);
    bk_describe(b, &p, false, &sb);
    gk_sb_free(&sb);
    bk_choice_t ch;
    bk_probe_opts_t po = {.random_window = 0.1};
    bk_choose(b, &p, &po, &rng, &ch);
    bk_lines_opts_t lo = {.max_error = 1, .total_error = 2, .balanced = -1};
    bk_lines_t L;
    if (bk_lines(b, &lo, &L, err, sizeof err) == 0) {
        gk_sb_growing(&sb);
        bk_lines_text(b, &L, &sb, err, sizeof err);
        gk_sb_free(&sb);
        bk_lines_free(&L);
    }
    bk_select_opts_t so = {.alpha = 5, .policy_cost = 0.5, .width = 3};
    bk_target_t t[8];
    bk_select(b, &so, t, 8);
    uint32_t un[8];
    bk_unsearched(b, un, 8);
    for (uint32_t i = 0; i < b->nnodes && i < 64; i++) bk_position(b, i, &p, err, sizeof err);
    gl_buf_t img = {0};
    bk_encode(b, 1, &img, err, sizeof err);
    gl_buf_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        gk_init();
        init = 1;
    }
    if (size < 1) return 0;
    int mode = data[0] % 3;
    data++, size--;
    char err[256];
    bk_book_t b;
    switch (mode) {
    case 0:
    case 1: {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy) return 0;
        memcpy(copy, data, size);
        if (mode == 1 && size >= 8) {
            uint64_t h = gk_xxh64(copy, size - 8, 0);
            for (int i = 0; i < 8; i++) copy[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
        }
        if (bk_decode(copy, size, "fuzz", NULL, &b, err, sizeof err) == 0) {
            use(&b);
            bk_free(&b);
        }
        free(copy);
        break;
    }
    case 2: {
        bk_journal_t j;
        if (bk_journal_parse(data, size, "fuzz", &j, err, sizeof err) != 0) break;
        gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
        if (bk_init(&b, &r, err, sizeof err) == 0) {
            /* The corpus journal continues a fresh book's lineage. */
            if (bk_new_lineage(&b, err, sizeof err) == 0 && bk_update(&b, err, sizeof err) == 0) {
                uint32_t applied;
                if (bk_journal_replay(&b, &j, &applied, err, sizeof err) == 0) {
                    bk_update(&b, err, sizeof err);
                    use(&b);
                }
            }
            bk_free(&b);
        }
        bk_journal_free(&j);
        break;
    }
    }
    return 0;
}
