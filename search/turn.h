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
#include "../eval/eval.h"
#include "../games/game.h"
#include "mcts.h"

/* The actions of the turn r chose at p (p may be mid-turn: the rest of that turn), at most
 * cap, into seq; returns their number (0 when r has no best action).  *complete says
 * whether they end the turn (or the game). */
int turn_from_result(const gk_pos_t *p, const mcts_result_t *r, gk_action_t *seq, int cap,
                     bool *complete);

/* A complete move of a variation: its actions and its notation. */
typedef struct turn_move {
    gk_action_t seq[GK_MAX_TURN];
    int n;
    int policy; /* trailing actions not in the line, chosen by the policy to end the turn */
    char text[GK_MOVE_TEXT_MAX]; /* "?" when the game cannot write it (never for legal ones) */
} turn_move_t;

/* Cuts the actions line[0..n) played from p into complete moves out[0..cap): a move goes
 * on while the same side is to move.  p is reached from the turn start ts by the actions
 * pre[0..npre) of the same turn (npre 0: p == ts), so that a turn begun before p is
 * whole in out[0].  Stops at the first action that is not legal.  A turn left unfinished
 * where the line ends is ended by the policy of w (a winning action, else the highest
 * logit; counted in `policy`) when w is not NULL, else kept as the legs so far.  Returns
 * the number of moves. */
int turn_moves(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line, int n,
               const ev_weights_t *w, turn_move_t *out, int cap);

/* Appends to sb the moves of turn_moves(ts, pre, npre, line, n, NULL, ...) separated by
 * spaces: at most MCTS_MAX_PV of them (the longest line a search gives), up to the first
 * the game cannot write.  Returns the number of moves written. */
int turn_line_text(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line,
                   int n, gk_sb_t *sb);

#endif
