/*
 * search/turn.h -- the complete move a search chose, and variations as complete moves.
 *
 * Contract
 * --------
 * A search works on actions (games/game.h): for Gobs its best action may be the first leg
 * of a jump chain, after which the same player moves again.  The turn it chose is its
 * best action followed by its principal variation while the same side is to move: the
 * most visited line of the tree, which is what the search would play at each of those
 * nodes.  Where the variation ends before the turn does, the caller searches again from
 * there (the tree below is kept) and appends.
 */
#ifndef GK_TURN_H
#define GK_TURN_H

#include <stdbool.h>

#include "../common/strbuf.h"
#include "../games/game.h"
#include "mcts.h"

/* The actions of the turn r chose at p (p may be mid-turn: the rest of that turn), at most
 * cap, into seq; returns their number (0 when r has no best action).  *complete says
 * whether they end the turn (or the game). */
int turn_from_result(const gk_pos_t *p, const mcts_result_t *r, gk_action_t *seq, int cap,
                     bool *complete);

/* Appends to sb the actions line[0..n) played from p as complete moves, separated by
 * spaces.  p is reached from the turn start ts by the actions pre[0..npre) of the same turn
 * (npre 0: p == ts), so that a turn begun before p is written whole.  A turn left
 * unfinished at the end of the line is written as the legs so far.  Stops at the first
 * action that is not legal.  Returns the number of moves written. */
int turn_line_text(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line,
                   int n, gk_sb_t *sb);

#endif
