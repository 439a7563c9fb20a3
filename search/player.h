/*
 * search/player.h -- one interface over every engine that can choose an action: the
 * MCTS (search/mcts.h) and the baselines (search/baselines.h).  Used by `gounki match`,
 * `gounki play` and anything else that pits engines against each other.
 *
 * Contract
 * --------
 * A player is made from a SPEC string, "KIND" or "KIND:NAME=VALUE,NAME=VALUE,...", the
 * list read by params_list() (search/params.h) like every such list of the program:
 *   mcts[:playouts=N,time=S,weights=FILE,threads=T,c_puct=X,...]
 *        every parameter of search/mcts.h by name, plus weights=FILE (default: the
 *        shipped weights of the game).  A spec that sets time (or clock) but not
 *        playouts has no playout limit: time alone decides (mcts_config_finish).
 *   ab[:depth=D,time=S,eval=classic|ours,weights=FILE,tt_mb=M,id=on|off,randomize=K]
 *        alpha-beta; default depth 4 when neither depth nor time is given, eval=ours.
 *        id=off: the result of one plain fixed-depth search (ab_limits_t.plain, not
 *        literal: the same moves, searched faster; needs depth);
 *        randomize=K (K > 1, needs depth): in the game's first 4 turns (p->turn < 4) the
 *        move is drawn with the move's seed among the K best root moves (top_k).
 *   greedy[:eval=classic|ours,weights=FILE]      best evaluation after one action.
 *   random                                        uniform over the legal actions.
 * A bad spec gives NULL and a one-line reason naming the problem ("ab: unknown
 * parameter 'dpth'").  Values may not contain ',' or '='; a spec holds no control
 * characters, no empty parameter and no parameter twice (a weight file path may hold
 * spaces, not commas).
 *
 * A player works on ACTIONS: player_choose() returns one action of the side to move
 * (for a Gobs jump chain, the caller asks again while the same player is still moving).
 * Every action played in the game, whoever chose it, must be told with player_observe()
 * so that the MCTS can keep its subtree; the others ignore it.  player_new_game() starts
 * a game afresh: it forgets every table and tree and reseeds the player, so that a game
 * is a function of its own seeds only, whatever was played before on the same object.
 *
 * Determinism: with playout or depth budgets (no time limits) and one search thread, a
 * player's choices are a pure function of (spec, new_game seed, the positions and
 * histories it is shown, the per-move seeds).  One player_t is used by one thread at a
 * time; any number may run in parallel.
 */
#ifndef GK_PLAYER_H
#define GK_PLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "../games/game.h"
#include "mcts.h"

typedef struct player player_t;

typedef enum { PLAYER_RANDOM = 0, PLAYER_GREEDY, PLAYER_AB, PLAYER_MCTS } player_kind_t;

typedef struct player_move {
    gk_action_t action; /* GK_NO_ACTION only when the position has no legal action */
    double value;       /* win probability of the side to move, in [0, 1]; 0.5 for random */
    double seconds;     /* thinking time */
    uint64_t work;      /* playouts (mcts), nodes (ab), actions evaluated (greedy) */
    int depth;          /* ab: depth completed; mcts: deepest playout path; else 0 */
    int proven;         /* +1 proven win, -1 proven loss, 0 not proven (mcts, ab) */
    char info[160];     /* one line for people: "playouts 1000 pv a2-a3 b7-b6 ..." */
} player_move_t;

/* Reads a spec without building the player (no weight file is read, nothing is
 * allocated): 0, or -1 with the reason in err.  A spec that passes can still fail in
 * player_new() for its weight file or memory: callers tell the two apart (a usage error
 * against bad data). */
int player_check_spec(const char *spec, int game, char *err, size_t errcap);
/* Makes a player for game `game` (GK_GAME_*).  NULL with a one-line reason in err on a
 * bad spec, an unreadable weight file or a lack of memory. */
player_t *player_new(const char *spec, int game, char *err, size_t errcap);
void player_free(player_t *pl); /* NULL is fine */

player_kind_t player_kind(const player_t *pl);
/* The spec as given (for reports and game records). */
const char *player_spec(const player_t *pl);
/* Search threads the player uses (1 for the baselines). */
int player_threads(const player_t *pl);

/* Starts a new game: forgets trees and tables, reseeds the player's own randomness. */
int player_new_game(player_t *pl, uint64_t seed);

/* Chooses an action of the side to move at p.  h is the game's repetition history up
 * to and including p (may be NULL).  seed drives this move's random choices (random,
 * greedy ties).  Returns 0, or -1 when p is finished or has no legal action (then
 * out->action is GK_NO_ACTION). */
int player_choose(player_t *pl, const gk_pos_t *p, const gk_hist_t *h, uint64_t seed,
                  player_move_t *out);

/* A game clock for the following choices (gounki match --tc): left_s seconds on the
 * mover's clock, inc_s added per move.  mcts: its clock and inc limits (and no playout
 * limit unless the spec sets playouts); ab: a time limit of left_s / 30 + inc_s / 2 (no
 * more than the spec's time, and no depth limit unless the spec sets depth); random and
 * greedy ignore it.  left_s <= 0 goes back to the spec's own budget. */
void player_set_clock(player_t *pl, double left_s, double inc_s);

/* Watches the player's MCTS searches (search/mcts.h, mcts_set_monitor: a periodic info
 * callback and an outside stop flag), for this and every later game; NULL removes it.
 * The other kinds of player ignore it (they answer at once or within their depth). */
void player_set_monitor(player_t *pl, const mcts_monitor_t *mon);

/* Tells the player that action a was played at p (by either side), for tree reuse. */
void player_observe(player_t *pl, const gk_pos_t *p, gk_action_t a);

#endif
