/*
 * eval/classic.h -- the "classic robot" evaluation: a fixed material + advancement count,
 * used by the baseline players (search/baselines.h) as a yardstick that owes nothing to
 * our tunable evaluation (eval/eval.h).
 *
 * Contract
 * --------
 * classic_eval() returns points from the point of view of the SIDE TO MOVE (p->stm; a
 * Gobs position in the middle of a turn is seen by the player still moving), positive
 * when that side is ahead.  Unfinished positions only: the caller handles finished ones
 * (p->result != GK_ONGOING) itself; for them the function returns 0.
 *
 * Gounki: a simple square piece on the board is worth CLASSIC_PIECE (100) and a simple
 * round CLASSIC_ROUND (67): losing a square costs 100, losing a round 67.  Stacks count
 * as the simple pieces they hold.  Plus CLASSIC_ADVANCE points per simple piece for each
 * rank it stands beyond its own back rank (0 there, 7 on the opponent's back rank).
 * This is our reading of the evaluation of the online robot ("100 per piece, a captured
 * round costs 67, plus advancement"); the numbers are deliberately the simple ones.
 * Gobs: CLASSIC_PIECE per piece, own minus opponent (material only).
 *
 * Pure function of the position: reentrant, thread-safe after gk_init().
 */
#ifndef GK_CLASSIC_H
#define GK_CLASSIC_H

#include "../games/game.h"

enum { CLASSIC_PIECE = 100, CLASSIC_ROUND = 67, CLASSIC_ADVANCE = 4 };

int classic_eval(const gk_pos_t *p);

#endif
