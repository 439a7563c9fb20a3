/*
 * games/gounki.h -- Gounki (Malavasi, 1997) behind the game.h interface.
 *
 * The rules and every decision the source texts leave open are in docs/RULES.md.
 * Board encoding, action encoding and the helpers that eval/ and search/ may use to
 * look inside a Gounki position or action are declared here; they are all inline and
 * cost a few instructions.
 *
 * Squares
 * -------
 * sq = rank * 8 + file, file 0..7 = a..h, rank 0..7 = 1..8; a1 = 0, h8 = 63.
 * White moves toward rank 8 (rank index 7), Black toward rank 1 (rank index 0).
 *
 * Position (inside gk_pos_t)
 * --------------------------
 * b.cell[sq] (sq 0..63): one byte per square, 0 when empty, else
 *     bits 0-1  rounds in the stack (0..3)
 *     bits 2-3  squares in the stack (0..3)   rounds + squares = 1..3
 *     bit 4     owner: 0 White, 1 Black
 * Bitboards (bit sq) for colour c, redundant with the cells, kept for speed:
 *   b.word[GOUNKI_OCC_WORD + c]   squares holding a stack of colour c
 *   b.word[GOUNKI_R1_WORD + c]    single rounds
 *   b.word[GOUNKI_S1_WORD + c]    single squares
 *   b.word[GOUNKI_FULL_WORD + c]  stacks of 3 pieces
 * aux[] and the unused bytes are zero.  The Zobrist hash covers the cells and the side
 * to move (a key per (cell value, square), one key for Black to move).
 *
 * Actions (gk_action_t; one action = one complete Gounki move, in_turn stays 0)
 * -------------------------------------------------------------------------
 * bits 0-5   origin square
 * bit 6      0 = movement, 1 = deployment
 * Movement:
 *   bits 7-12  destination square (undefined when it exits)
 *   bit 13     exits across the far edge (wins)
 *   bit 14     captures the enemy stack on the destination
 *   bit 15     stacks onto an own stack on the destination
 * Deployment:
 *   bits 7-12, 13-18, 19-24  the squares of drops 0, 1, 2 (only the first `n` are used)
 *   bits 25-26 n = number of drops that land on the board (0..3)
 *   bit 27     exits: after the n drops, the next drop leaves across the far edge (wins;
 *              the pieces not yet dropped leave with it)
 *   bits 28-30 bit 28+i set: drop i is a square, else a round
 *   bit 31     at least one drop lands on an own piece
 * Two legal actions of a position are equal exactly when their notations are equal.
 */
#ifndef GK_GOUNKI_H
#define GK_GOUNKI_H

#include "game.h"

extern const gk_game_t gk_gounki_game;

/* Fills the Gounki Zobrist keys and step tables; called by gk_init(). */
void gounki_init(void);

/* ---- squares ---- */
#define GOUNKI_SQ(file, rank) ((file) + 8 * (rank))
static inline int gounki_file(int sq) {
    return sq & 7;
}
static inline int gounki_rank(int sq) {
    return sq >> 3;
}
/* Rank counted from colour c's own back rank: 0 = own back rank, 7 = the far rank. */
static inline int gounki_rel_rank(int sq, int c) {
    return c == GK_WHITE ? sq >> 3 : 7 - (sq >> 3);
}

/* ---- cells ---- */
#define GOUNKI_OCC_WORD  8 /* b.word[8] White stacks, b.word[9] Black stacks */
#define GOUNKI_R1_WORD   10
#define GOUNKI_S1_WORD   12
#define GOUNKI_FULL_WORD 14
#define GOUNKI_BLACK_BIT 0x10

static inline int gounki_cell(const gk_pos_t *p, int sq) {
    return p->b.cell[sq];
}
static inline int gounki_cell_rounds(int v) {
    return v & 3;
}
static inline int gounki_cell_squares(int v) {
    return (v >> 2) & 3;
}
static inline int gounki_cell_size(int v) {
    return (v & 3) + ((v >> 2) & 3);
}
/* GK_WHITE, GK_BLACK, or -1 for an empty cell. */
static inline int gounki_cell_owner(int v) {
    return (v & 15) ? (v >> 4) & 1 : -1;
}
static inline int gounki_make_cell(int owner, int rounds, int squares) {
    return rounds | squares << 2 | (owner == GK_BLACK ? GOUNKI_BLACK_BIT : 0);
}

static inline int gounki_owner(const gk_pos_t *p, int sq) {
    return gounki_cell_owner(p->b.cell[sq]);
}
static inline int gounki_rounds(const gk_pos_t *p, int sq) {
    return p->b.cell[sq] & 3;
}
static inline int gounki_squares(const gk_pos_t *p, int sq) {
    return (p->b.cell[sq] >> 2) & 3;
}
static inline int gounki_size(const gk_pos_t *p, int sq) {
    return gounki_cell_size(p->b.cell[sq]);
}
/* Bitboard of the squares holding a stack of colour c. */
static inline uint64_t gounki_occ(const gk_pos_t *p, int c) {
    return p->b.word[GOUNKI_OCC_WORD + c];
}

/* ---- actions ---- */
#define GOUNKI_A_DEPLOY  (1u << 6)
#define GOUNKI_A_M_EXIT  (1u << 13)
#define GOUNKI_A_M_CAPT  (1u << 14)
#define GOUNKI_A_M_STACK (1u << 15)
#define GOUNKI_A_D_EXIT  (1u << 27)
#define GOUNKI_A_D_STACK (1u << 31)

static inline int gounki_act_from(gk_action_t a) {
    return (int)(a & 63);
}
static inline bool gounki_act_is_deploy(gk_action_t a) {
    return (a & GOUNKI_A_DEPLOY) != 0;
}
/* Movement destination; meaningless when the movement exits. */
static inline int gounki_act_to(gk_action_t a) {
    return (int)((a >> 7) & 63);
}
/* Deployment: drops that land on the board, the square of drop i (< n), its kind. */
static inline int gounki_act_ndrops(gk_action_t a) {
    return (int)((a >> 25) & 3);
}
static inline int gounki_act_drop(gk_action_t a, int i) {
    return (int)((a >> (7 + 6 * i)) & 63);
}
static inline bool gounki_act_drop_is_square(gk_action_t a, int i) {
    return (a >> (28 + i)) & 1;
}
static inline bool gounki_act_exits(gk_action_t a) {
    return (a & (gounki_act_is_deploy(a) ? GOUNKI_A_D_EXIT : GOUNKI_A_M_EXIT)) != 0;
}
static inline bool gounki_act_captures(gk_action_t a) {
    return !gounki_act_is_deploy(a) && (a & GOUNKI_A_M_CAPT);
}
static inline bool gounki_act_stacks(gk_action_t a) {
    return (a & (gounki_act_is_deploy(a) ? GOUNKI_A_D_STACK : GOUNKI_A_M_STACK)) != 0;
}

/* Recomputes the bitboards and the hash of p from its cells, for code that builds a
 * position cell by cell (b.cell[] and the other fields set, the bitboards anything). */
void gounki_pos_fix(gk_pos_t *p);

/* Number of legal moves of p without listing them (0 when the game is over). */
int gounki_count_moves(const gk_pos_t *p);

#endif
