/*
 * games/gobs.h -- Gobs (standard and "short" variant) behind the game.h interface.
 *
 * The rules and every decision the source text leaves open are in docs/RULES.md; the
 * position string and the notation are in docs/FORMATS.md.
 *
 * Board encoding (gk_pos_t.b.cell): square s = 9 * rank + file (a1 = 0, i1 = 8,
 * a9 = 72, i9 = 80); cell[s] is GOBS_EMPTY, GOBS_WHITE or GOBS_BLACK; cells 81..127
 * are zero.  aux[GOBS_AUX_COUNT + side] holds the number of pieces of each side;
 * aux[GOBS_AUX_JUMPER] is the square of the jumping piece while a jump chain is in
 * progress (in_turn > 0) and 0 otherwise.  Every other aux byte is zero.
 *
 * Actions (gk_action_t): bits 0-6 from-square, 8-14 to-square, 16-22 placement square
 * (short-variant eliminations only), 24-26 kind (GOBS_ACT_*).  A leg's to-square is its
 * landing square; the jumped piece is the only piece between from and to.  "stop" has
 * no squares.  These accessors are for eval/ and search/, which may look inside a Gobs
 * position but must not depend on anything not declared here.
 */
#ifndef GK_GOBS_H
#define GK_GOBS_H

#include "game.h"

extern const gk_game_t gk_gobs_game;

/* Fills the Gobs Zobrist keys and ray tables; called by gk_init(). */
void gobs_init(void);

enum { GOBS_EMPTY = 0, GOBS_WHITE = 1, GOBS_BLACK = 2 }; /* cell values: side + 1 */
enum { GOBS_VAR_STANDARD = 0, GOBS_VAR_SHORT = 1 };
enum { GOBS_SIZE = 9, GOBS_SQUARES = 81 };
enum { GOBS_AUX_COUNT = 0, GOBS_AUX_JUMPER = 2 };
enum { GOBS_ACT_SLIDE = 1, GOBS_ACT_ELIM = 2, GOBS_ACT_LEG = 3, GOBS_ACT_STOP = 4 };
/* Below this many pieces a side has lost; at exactly this many it is "GOBSed". */
enum { GOBS_LIMIT = 5 };

#define GOBS_STOP ((gk_action_t)GOBS_ACT_STOP << 24)

/* The squares along each line of the board, for code that walks rays without bounds
 * checks: sq[s][d][k] is the k-th square from s in direction d (0..7: E, NE, N, NW, W,
 * SW, S, SE; d ^ 4 is the opposite direction), and len[s][d] of them exist (0..8);
 * bits[s][d] is the same squares as a set (square t is bit t % 64 of word t / 64).  The
 * squares grow along directions 0..3 and shrink along 4..7.  Filled by gobs_init()
 * (gk_init()); read-only afterwards, so shared by every thread. */
typedef struct gobs_rays {
    uint8_t sq[GOBS_SQUARES][8][8];
    uint8_t len[GOBS_SQUARES][8];
    uint64_t bits[GOBS_SQUARES][8][2];
} gobs_rays_t;
const gobs_rays_t *gobs_rays(void);

static inline int gobs_act_kind(gk_action_t a) {
    return (int)(a >> 24) & 7;
}
static inline int gobs_act_from(gk_action_t a) {
    return (int)a & 127;
}
static inline int gobs_act_to(gk_action_t a) {
    return (int)(a >> 8) & 127;
}
static inline int gobs_act_place(gk_action_t a) {
    return (int)(a >> 16) & 127;
}
static inline gk_action_t gobs_act(int kind, int from, int to, int place) {
    return (gk_action_t)kind << 24 | (gk_action_t)place << 16 | (gk_action_t)to << 8 |
           (gk_action_t)from;
}
/* Pieces of `side` (GK_WHITE / GK_BLACK) on the board of p. */
static inline int gobs_count(const gk_pos_t *p, int side) {
    return p->aux[GOBS_AUX_COUNT + side];
}

/* The most enemy pieces one jump chain of the side to move can flip in this turn, counted
 * up to need: the search stops as soon as a chain flips need (then need is returned).
 * Mid-turn only the jumper's chain counts (its flips so far are already on the board).
 * *budget is the number of legs it may walk (each tried leg costs one); when it runs out
 * (*budget < 0 on return) the value is only a lower bound.  0 when the game is over or
 * need <= 0.  first (may be NULL) gets the first leg of a chain that flips the value
 * returned (GK_NO_ACTION when 0).  A chain that flips need >= opponent pieces - 4 wins the
 * game at the end of the turn (docs/RULES.md, Gobs, section 4).  Reentrant; deterministic. */
int gobs_chain_flips(const gk_pos_t *p, int need, long *budget, gk_action_t *first);

#endif
