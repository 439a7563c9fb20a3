/*
 * search/leaf.h -- shallow tactical searches for the MCTS, at its leaves and nodes.
 * At a leaf they replace the bare evaluation; at a node in selection, the win/loss proof
 * search of minimax in selection runs once.
 *
 * Issue 15: at a few hundred playouts the tree misses short tactics outright.
 *
 * Contract
 * --------
 * leaf_search_value(w, p, depth, qdepth, threats) is the value of p for its side to move, in [0, 1]
 * like ev_value(): a fail-soft alpha-beta negamax (value v for the mover is 1 - v for the
 * opponent) of `depth` full-width actions, whose horizon positions are scored by a
 * quiescence step of at most `qdepth` actions instead of ev_value() when qdepth > 0.
 *   - Finished positions score exactly (1, 0, 0.5); a position with no legal action is
 *     lost for its side to move (quiescence sees that only where it lists the actions:
 *     a side that stands pat is not checked).  Repetition is not seen (no history here).
 *   - Quiescence (Gounki; in Gobs only the winning chain of leaf_gobs_win(), scored 1,
 *     else ev_value(); in other games ev_value()): a side that can exit wins
 *     (1) at once.  When the opponent threatens an exit (it could exit if it were to move)
 *     there is no standing pat: every action is searched, and at the last quiescence action a
 *     position where every action leaves an exit is lost (0).  Otherwise the side may
 *     stand pat on ev_value() or capture (captures searched one action less deep); with
 *     `threats` also play the actions that bring a stack within exit range (a stack
 *     within its size of the far edge), which the opponent must then answer.
 *   - depth 0 and qdepth 0 is ev_value(w, p) exactly; threats 0 is the quiescence above.
 *
 * leaf_gobs_win(p, &first) is the Gobs counterpart of a Gounki exit: when the side to move
 * of p (a Gobs position) can end the game won in this turn -- a jump chain (the jumper's,
 * mid-turn) that leaves the opponent below GOBS_LIMIT pieces, or "stop" when a chain has
 * already done so -- it returns an upper bound of the actions to the end (the legs needed
 * plus a "stop") and sets first to the action that begins it; otherwise 0 and GK_NO_ACTION.
 * It walks at most LEAF_GOBS_LEGS legs: a chain not found within them is not seen (never
 * a false win).  Quiescence (qdepth > 0) scores such a Gobs position 1.
 * leaf_prove(p, depth, &len) is 1 when the side to move of p can force a win within depth
 * actions and then one more, -1 when it loses whatever it does within that, 0 otherwise
 * (not proven either way): a win/loss-only alpha-beta (the "minimax in selection" of
 * MCTS-MS, Baier & Winands 2015) that sees finished positions, positions with no legal
 * action (lost), and in Gounki an exit available to the side to move (won in one action,
 * also at the horizon).  A draw is 0.  When it returns 1 or -1, len is an upper bound of
 * the actions from p to the end along the proof (a win: the line found, not always the
 * shortest; a loss: the longest of the opponent's wins found against each action).  Like
 * leaf_search_value() it does not see repetitions.  depth is clamped to
 * [0, LEAF_MAX_DEPTH].
 * Both are reentrant and allocation-free (their action lists live on the stack, GK_MAX_ACTIONS each
 * per action: depth + qdepth <= LEAF_MAX_DEPTH); deterministic (no randomness, no order
 * other than gen()'s).
 */
#ifndef GK_LEAF_H
#define GK_LEAF_H

#include "../eval/eval.h"
#include "../games/game.h"

#define LEAF_MAX_DEPTH 12
/* Legs the Gobs winning-chain test may walk at one horizon position. */
#define LEAF_GOBS_LEGS 4096

float leaf_search_value(const ev_weights_t *w, const gk_pos_t *p, int depth, int qdepth,
                        int threats);
int leaf_prove(const gk_pos_t *p, int depth, int *len);
int leaf_gobs_win(const gk_pos_t *p, gk_action_t *first);

#endif
