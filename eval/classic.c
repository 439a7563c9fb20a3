/* eval/classic.c -- the classic material + advancement evaluation (see classic.h). */
#include "classic.h"

#include "../games/gobs.h"
#include "../games/gounki.h"

static int gounki_side(const gk_pos_t *p, int c) {
    int v = 0;
    uint64_t occ = gounki_occ(p, c);
    while (occ) {
        int sq = __builtin_ctzll(occ);
        occ &= occ - 1;
        int r = gounki_rounds(p, sq), s = gounki_squares(p, sq);
        v += CLASSIC_PIECE * s + CLASSIC_ROUND * r +
             CLASSIC_ADVANCE * (r + s) * gounki_rel_rank(sq, c);
    }
    return v;
}

int classic_eval(const gk_pos_t *p) {
    if (gk_over(p)) return 0;
    int me = p->stm, op = !p->stm;
    switch (p->game) {
    case GK_GAME_GOUNKI: return gounki_side(p, me) - gounki_side(p, op);
    case GK_GAME_GOBS: return CLASSIC_PIECE * (gobs_count(p, me) - gobs_count(p, op));
    default: return 0;
    }
}
