/* tests/fuzz/fuzz_gobs_move.c -- Gobs move parsing on arbitrary text: never a crash, never
 * a read past the text; anything accepted is a sequence of legal actions forming one
 * complete move, whose notation parses back to the same actions.  The first byte picks
 * the position (both rule sets, mid-turn, long-chain and GOBSed positions). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const positions[] = {
    "standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 - *",
    "short bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 - *",
    "standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *",
    "standard 6bbb/7bb/9/4w4/1w7/2wbb4/9/9/wwwwww3 b 0 d4+1 *",
    "standard ww6b/7b1/3w5/4w4/9/2w1w1b2/2b2b3/3b5/9 b 0 - *",
    "short 6bbb/9/9/9/1w7/2w1w1b2/1bb6/9/www6 b 0 - *",
    "short bbbbwbbbb/9/6b2/9/9/9/9/9/wwww1w3 w 0 - *",
    "standard 6bbb/8b/9/4w4/4b4/9/9/9/wwww1ww2 b 7 - *",
    "standard b2b4b/b2w3wb/2w1w2wb/www5w/3w1www1/1w5w1/1w1w5/w3w4/1w5w1 b 183 - *",
    "standard 9/9/9/9/bbbbb4/bbbbb4/wwwbb4/wwwbb4/wwwbb4 w 30 - *",
    "standard 6bbb/8b/9/9/9/9/9/9/bwww1ww2 w 21 - 1/2-1/2:gobs-draw",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size < 1 || size > 4096) return 0;
    const gk_game_t *g = &gk_gobs_game;
    gk_pos_t p;
    char err[256];
    const char *ps = positions[data[0] % (sizeof positions / sizeof positions[0])];
    if (g->pos_from_text(&p, ps, GK_DEFAULT_TURN_LIMIT, err, sizeof err)) abort();
    /* An exact-size copy, so ASan sees any read past the NUL. */
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    gk_action_t seq[GK_MAX_TURN];
    const int n = g->parse_move(&p, text, seq, GK_MAX_TURN, err, sizeof err);
    if (n >= 0) {
        /* Each action is legal where it is played, and the turn ends exactly at the end. */
        gk_pos_t q = p;
        for (int i = 0; i < n; i++) {
            gk_action_t list[GK_MAX_ACTIONS];
            const int k = g->gen(&q, list);
            int found = 0;
            for (int j = 0; j < k; j++) found |= list[j] == seq[i];
            if (!found || (i > 0 && q.in_turn == 0)) abort();
            g->play(&q, seq[i]);
            if (q.hash != g->hash_full(&q)) abort();
        }
        if (q.in_turn != 0) abort();
        char back[GK_MOVE_TEXT_MAX];
        gk_action_t again[GK_MAX_TURN];
        if (g->move_text(&p, seq, n, back, sizeof back) < 0) abort();
        if (g->parse_move(&p, back, again, GK_MAX_TURN, err, sizeof err) != n ||
            memcmp(again, seq, (size_t)n * sizeof *seq))
            abort();
    } else if (!memchr(err, 0, sizeof err) || !err[0] || strchr(err, '\n')) {
        abort(); /* a one-line reason must be given */
    }
    free(text);
    return 0;
}
