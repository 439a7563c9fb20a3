/* eval/classic.c -- the online robot's material + rank evaluation (see classic.h). */
#include "classic.h"

#include "../games/gobs.h"
#include "../games/gounki.h"

int classic_gounki_side(const gk_pos_t *p, int c) {
    int pieces = 0, rounds = 0, ranks = 0;
    uint64_t occ = gounki_occ(p, c);
    while (occ) {
        int sq = __builtin_ctzll(occ);
        occ &= occ - 1;
        int r = gounki_rounds(p, sq);
        pieces += r + gounki_squares(p, sq);
        rounds += r;
        ranks += gounki_rel_rank(sq, c) + 1;
    }
    return CLASSIC_PIECE * pieces + CLASSIC_ROUND_TAKEN * (CLASSIC_START_ROUNDS - rounds) + ranks;
}

int classic_eval(const gk_pos_t *p) {
    if (gk_over(p)) return 0;
    int me = p->stm, op = !p->stm;
    switch (p->game) {
    case GK_GAME_GOUNKI: return classic_gounki_side(p, me) - classic_gounki_side(p, op);
    case GK_GAME_GOBS: return CLASSIC_PIECE * (gobs_count(p, me) - gobs_count(p, op));
    default: return 0;
    }
}
