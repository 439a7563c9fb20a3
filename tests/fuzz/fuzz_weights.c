/* tests/fuzz/fuzz_weights.c -- the weight-file parser on arbitrary bytes: never a crash or
 * a read past the input, and anything accepted formats back to a text that parses to
 * the same weights (same hash).  The first byte picks the game the text is read for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size < 1 || size > 65536) return 0;
    int game = data[0] % GK_NGAMES;
    /* An exact-size copy without a NUL, so ASan sees any read past the end. */
    char *text = malloc(size - 1 ? size - 1 : 1);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    ev_weights_t w, w2;
    char err[256];
    if (ev_weights_parse(text, size - 1, "fuzz", game, &w, err, sizeof err) == 0) {
        char *buf = malloc(65536);
        if (!buf) abort();
        long n = ev_weights_format(&w, buf, 65536);
        if (n < 0) abort();
        if (ev_weights_parse(buf, (size_t)n, "again", game, &w2, err, sizeof err) != 0) abort();
        if (ev_weights_hash(&w) != ev_weights_hash(&w2)) abort();
        free(buf);
    } else if (!err[0] || strchr(err, '\n')) {
        abort(); /* every rejection says why, on one line */
    }
    free(text);
    return 0;
}
