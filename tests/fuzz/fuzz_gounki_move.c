/* tests/fuzz/fuzz_gounki_move.c -- Gounki move parsing on arbitrary text: never a crash,
 * never a read past the text, and anything accepted is a legal move whose notation
 * parses back to it.  The first byte picks the position the text is parsed at. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gounki.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const positions[] = {
    NULL, /* the start position */
    "1srsrsrs/3(rs)(rs)2r/2s5/1(RRR)1SS3/8/r7/2(RS)2SRS/4S1SR b 23",
    "r7/8/4(RRS)3/8/8/8/8/8 w 0",
    "r7/8/8/8/8/(RSS)7/8/8 w 0",
    "8/8/8/8/1(rrs)6/8/8/7R b 1",
    "r3(RS)3/8/8/8/8/8/8/8 w 0",
    "r7/8/3R4/8/1(rrs)1(SSS)S3/8/8/8 w 0",
    "7s/8/8/8/8/8/8/S7 w 0 1/2-1/2 repetition",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size < 1 || size > 4096) return 0;
    const gk_game_t *g = &gk_gounki_game;
    gk_pos_t p;
    char err[256];
    const char *ps = positions[data[0] % (sizeof positions / sizeof positions[0])];
    if (ps) {
        if (g->pos_from_text(&p, ps, GK_DEFAULT_TURN_LIMIT, err, sizeof err)) abort();
    } else {
        gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
        g->setup(&p, &r);
    }
    /* An exact-size copy, so ASan sees any read past the NUL. */
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    gk_action_t seq[GK_MAX_TURN];
    int n = g->parse_move(&p, text, seq, GK_MAX_TURN, err, sizeof err);
    if (n >= 0) {
        gk_action_t list[GK_MAX_ACTIONS];
        int k = g->gen(&p, list), found = 0;
        for (int i = 0; i < k; i++) found |= list[i] == seq[0];
        if (n != 1 || !found) abort();
        char back[GK_MOVE_TEXT_MAX];
        gk_action_t again[GK_MAX_TURN];
        if (g->move_text(&p, seq, n, back, sizeof back) < 0) abort();
        if (g->parse_move(&p, back, again, GK_MAX_TURN, err, sizeof err) != 1 || again[0] != seq[0])
            abort();
        g->play(&p, seq[0]);
        if (p.hash != g->hash_full(&p)) abort();
    } else if (!memchr(err, 0, sizeof err) || !err[0]) {
        abort(); /* a reason must be given */
    }
    free(text);
    return 0;
}
