/*
 * tests/fuzz/fuzz_gep.c -- the engine protocol (search/gep.h) on arbitrary input lines.
 *
 * The input is cut into lines at '\n' and given to one session, as `gounki engine` would;
 * a `go` is answered at once by a search that is told to stop before it starts, so that
 * every input runs quickly (the budgets and options are still parsed and checked).  The
 * replies are checked to be single lines, and every `go` the session accepts must end in
 * exactly one `bestmove`.  Nothing may crash, hang or leak.  The corpus (tests/fuzz/corpus/
 * gep) holds the example session of docs/PROTOCOL.md, a Gobs session and refused commands.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "search/gep.h"

typedef struct seen {
    int bestmoves;
} seen_t;

static void out(void *ctx, const char *line) {
    seen_t *s = ctx;
    if (strchr(line, '\n')) abort();
    if (!strncmp(line, "bestmove ", 9)) s->bestmoves++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        gk_init();
        init = 1;
    }
    seen_t s = {0};
    char err[256];
    gep_t *g = gep_new(out, &s, "tree_mb=1,playouts=20", NULL, err, sizeof err);
    if (!g) abort();
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int before = s.bestmoves;
        int r = gep_line(g, p, len);
        if (r == GEP_GO) {
            gep_stop(g);
            gep_search(g);
            if (s.bestmoves != before + 1) abort();
        }
        if (r == GEP_QUIT) break;
        p += len + (nl != NULL);
    }
    gep_free(g);
    return 0;
}
