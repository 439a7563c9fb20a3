/*
 * eval/classic.h -- the "classic robot" evaluation: the evaluation of the alpha-beta robot
 * of an online Gounki server (issue 15), used by the baseline players (search/baselines.h)
 * as a yardstick that owes nothing to our tunable evaluation (eval/eval.h).
 *
 * Contract
 * --------
 * classic_eval() returns points from the point of view of the SIDE TO MOVE (p->stm; a
 * Gobs position in the middle of a turn is seen by the player still moving): the side's
 * count minus the opponent's.  Unfinished positions only: the caller handles finished
 * ones (p->result != GK_ONGOING) itself; for them the function returns 0.
 *
 * Gounki, a side's count (classic_gounki_side()):
 *   CLASSIC_PIECE (100) per own simple piece on the board (a stack of 3 counts 300),
 *   + CLASSIC_ROUND_TAKEN (33) per own round the opponent has captured, counted as
 *     CLASSIC_START_ROUNDS (8) minus the own rounds on the board,
 *   + the RANK of each own stack (one term per occupied square, not per piece: the top
 *     piece of a stack stands where the stack stands), counted 1..8 from the owner's
 *     side: 1 on its own back rank, 8 on the far rank.
 * So losing a square costs 100 points, losing a round 67, and advancing a stack one rank
 * earns 1.  Why ranks 1..8: the server shows ranks numbered 1..8 and its robot reads the
 * rank off that board (from its own side, so that the count is symmetric); 0..7 would
 * take 1 point off every stack and so change the value of stacking (docs/RULES.md,
 * "The classic robot").  The rounds "captured" of a position string that holds more than
 * 8 rounds of a side are negative: the constant cancels in the difference of the counts,
 * so the value equals 100 per square + 67 per round + the ranks, own minus opponent's.
 * Gobs: CLASSIC_PIECE per piece, own minus opponent (material only).
 *
 * Pure function of the position: reentrant, thread-safe after gk_init().
 */
#ifndef GK_CLASSIC_H
#define GK_CLASSIC_H

#include "../games/game.h"

enum { CLASSIC_PIECE = 100, CLASSIC_ROUND_TAKEN = 33, CLASSIC_START_ROUNDS = 8 };

int classic_eval(const gk_pos_t *p);

/* The count of colour c in the Gounki position p (see above), whoever is to move. */
int classic_gounki_side(const gk_pos_t *p, int c);

#endif
