/* tests/fuzz/fuzz_gounki_pos.c -- Gounki position strings on arbitrary text: never a
 * crash; anything accepted prints back to a string that parses to the identical
 * position, has a consistent hash, and its moves can be generated and played. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gounki.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size > 4096) return 0;
    const gk_game_t *g = &gk_gounki_game;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    gk_pos_t p, q;
    char err[256], back[GK_POS_TEXT_MAX], board[GK_BOARD_TEXT_MAX];
    uint16_t turn_limit = size ? (uint16_t)(data[0] * 3) : 0;
    if (g->pos_from_text(&p, text, turn_limit, err, sizeof err) == 0) {
        if (p.hash != g->hash_full(&p)) abort();
        if (g->pos_to_text(&p, back, sizeof back) < 0) abort();
        if (g->pos_from_text(&q, back, turn_limit, err, sizeof err) || memcmp(&p, &q, sizeof p))
            abort();
        if (g->board_text(&p, board, sizeof board) < 0) abort();
        gk_action_t list[GK_MAX_ACTIONS];
        int n = g->gen(&p, list);
        if (n < 0 || n > GK_MAX_ACTIONS || (uint64_t)n != g->perft(&p, 1)) abort();
        if (!gk_over(&p) && n == 0) abort(); /* docs/RULES.md: no-move cannot happen */
        for (int i = 0; i < n; i++) {
            q = p;
            g->play(&q, list[i]);
            if (q.hash != g->hash_full(&q)) abort();
        }
    } else if (!err[0]) {
        abort();
    }
    free(text);
    return 0;
}
