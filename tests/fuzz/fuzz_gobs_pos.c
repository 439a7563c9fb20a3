/* tests/fuzz/fuzz_gobs_pos.c -- Gobs position strings on arbitrary text: never a crash or
 * a read past the text; anything accepted prints back to a string that reads to the very
 * same position, byte for byte, with a consistent hash, and can be shown and played. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size < 1 || size > 4096) return 0;
    const gk_game_t *g = &gk_gobs_game;
    const uint16_t turn_limit = data[0] & 1 ? 0 : (uint16_t)(data[0] * 4);
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    gk_pos_t p, q;
    char err[256], out[GK_POS_TEXT_MAX], board[GK_BOARD_TEXT_MAX];
    if (g->pos_from_text(&p, text, turn_limit, err, sizeof err) == 0) {
        if (p.hash != g->hash_full(&p)) abort();
        if (g->pos_to_text(&p, out, sizeof out) < 0) abort();
        if (g->pos_from_text(&q, out, turn_limit, err, sizeof err) != 0) abort();
        if (memcmp(&p, &q, sizeof p)) abort();
        if (g->board_text(&p, board, sizeof board) < 0) abort();
        /* A few actions (not perft: a fuzzed board may hold billions of chains). */
        for (int i = 0; i < 8 && !gk_over(&p); i++) {
            gk_action_t list[GK_MAX_ACTIONS];
            const int n = g->gen(&p, list);
            if (n == 0) break;
            g->play(&p, list[(size_t)data[0] * 7 % (size_t)n]);
            if (p.hash != g->hash_full(&p)) abort();
        }
    } else if (!memchr(err, 0, sizeof err) || !err[0] || strchr(err, '\n')) {
        abort();
    }
    free(text);
    return 0;
}
