/*
 * search/mcts.h -- Monte Carlo tree search (PUCT + MCTS-Solver) over game actions.
 *
 * Contract
 * --------
 * The tree is over ACTIONS (games/game.h): a node whose player moves again (Gobs in
 * the middle of a jump chain) is an ordinary node.  Every statistic of a node is from
 * the point of view of the player who chose the action leading to it (the side to
 * move of its parent), so values always follow the side to move.
 *
 * - Selection: PUCT, Q + c_puct * P * sqrt(N_parent) / (1 + N), with priors P from the
 *   policy of eval/eval.h and first-play urgency for unvisited children
 *   (Q = parent's Q - fpu).  Leaf values come from ev_value(), after an optional
 *   playout of playout_depth actions guided by the policy.
 * - Tactics (issue 15): leaf_minimax and quiesce replace ev_value() by the shallow
 *   searches of search/leaf.h (full-width alpha-beta; Gounki exits, exit threats and
 *   captures; quiesce_threats adds the actions that bring a stack within exit range).
 *   On by default: quiesce=2 with quiesce_threats, measured against both off at 200
 *   playouts a move: +184 Elo [+149, +222] (400 games); at 0.1 s a move (0.4-0.5 times
 *   the playouts per second in games, 0.6 on bench): 221-0-179 in 400 games (55.3%,
 *   about +37; two runs of 200: +35 [-10, +81], +38 [-10, +88]).  Off by default, each
 *   measured at 200 playouts: leaf_minimax=1 (+84, but 7 times slower; with quiesce=2
 *   +272 at 200 playouts yet -104 at 0.1 s a move); leaf_proof, which turns their forced
 *   exits (a value of exactly 1 or 0) into proofs below the root with the upper bound
 *   leaf_minimax + quiesce + 2 as their length, so it loses the shortest win (+19 [+1,
 *   +37] over quiesce=2; a repetition within those actions is not seen); and
 *   implicit_minimax = alpha, which keeps per node the best value of its evaluated
 *   children (Lanctot et al. 2014) and selects by (1 - alpha) Q + alpha * that value
 *   (alpha 0.3: -6 [-31, +18]; 0.6: -39 [-71, -8]).
 * - Gobs winning chains (issue 14): with quiesce > 0 (the default) a Gobs leaf whose side
 *   to move has a jump chain that leaves the opponent below 5 pieces scores 1 (search/leaf.h,
 *   leaf_gobs_win), and with the solver the expansion of a node proves the chain's first
 *   leg won before any playout (in at most its legs + 1 actions), as a win in one is, so the
 *   tree plays the chain leg by leg from proofs and a move that leaves the opponent such a
 *   chain is proven lost once the reply is expanded.  quiesce=0 is the search before.
 *   Against quiesce=0 (200 games each, docs/HACKING.md "Winning chains"): +346 [+292,
 *   +417] at 800 playouts (3.6 times the time per playout: the chain walk), +359 [+312,
 *   +418] at about equal time (220 playouts against 800), +552 [+461, +735] at 200.
 * - Minimax in selection (ms_depth, ms_visits; Baier & Winands 2015): the first descent
 *   through a node below the root with ms_visits visits runs leaf_prove() of ms_depth
 *   actions from it, once, and a forced result proves the node (a repetition within
 *   those actions is not seen).  Off by default: it pays at small playout budgets and
 *   not at a fixed time.  400 games each, against the same engine without it: at 200
 *   playouts 2,3 +31 [+17, +46] (1.13 times the time), 3,5 +38 [+22, +55] (1.7), 3,2
 *   +56 [+37, +75] (2.8); at 1000 playouts 2,3 +12 [-6, +30], 3,5 +17 [+3, +32]; at
 *   0.05 s a move 2,3 -10 [-39, +18].  Tactics suite (98): 3,5 solves 73 at 200
 *   playouts (68 without), 75 at 1000 (73).  Bench playouts/s (1 thread, medians of
 *   3): 0.76 times at 2,3, 0.41 at 3,5.
 * - Solver: finished positions (and repetitions, counted on the game history plus the
 *   path) are proven; a node with a child proven won is won, a node whose children are
 *   all proven takes their best.  Wins in fewer actions and losses in more are
 *   preferred: a won root keeps searching (unexpanded children first) until no faster
 *   win can exist or, at the latest, for as many playouts again as the proof took (at
 *   least 4096), then stops and plays its fastest proven win: a won root never spends
 *   the rest of its budget (issue 15).  Playing a proven win keeps the proof: after the
 *   reply the kept subtree is proven won in at most d - 2 actions, so the game still
 *   ends within d.  Every child of a newly expanded node is
 *   played once, so a win in one at the root is found before the first playout and a move that
 *   allows an immediate exit is proven lost as soon as it is expanded.  A proven
 *   position below the root is not searched further.  Early stop also ends a search
 *   whose root is lost or drawn, or whose most visited action can no longer be
 *   overtaken in the remaining budget.
 * - Budgets and early stop: a search uses its whole budget (playouts, time, nodes,
 *   whichever ends first) unless its choice cannot change any more.  With early_stop on it
 *   ends as soon as the most visited root action cannot be overtaken by the playouts
 *   left: under a playout limit those are counted exactly; under a time limit they are
 *   estimated as 1.5 times the rate so far times the time left (the margin covers a rate
 *   that rises during the search).  A proven root (see Solver) ends it too, with or
 *   without early_stop.  The result says why it ended (stop_reason, MCTS_STOP_*) and
 *   stopped_early is true exactly when it ended before its budget.  early_stop=off
 *   spends the whole time allotment on every move (except on a proven root).
 *   A fixed time per move (time= alone: no clock, no playout limit) is spent whole:
 *   mcts_config_finish() turns early_stop off there unless it was given.  The move a
 *   stopped search plays is the one it would have played, but the skipped playouts
 *   would have grown the subtree kept for the next move and nothing is saved for later:
 *   measured at 0.5 s a move, early stop on against off scored 45.6% (600 games,
 *   Elo -31 [-56, -6]).  Under a clock the time saved goes to the later moves.
 * - Time under a clock (issue 15): a move gets clock / clock_moves + 0.75 inc, at most
 *   half the clock.  With extend (3 by default) the search goes on past that share, up
 *   to extend times it and never past a fifth of the clock, while its choice is unclear:
 *   the most visited root action not proven lost has fewer than twice the visits of the
 *   second, or a lower mean value (checked every 32 playouts; early stop counts the
 *   playouts up to that hard limit while unclear).  Measured at `--tc 4+0.05` (400 games
 *   each, 1 thread a side, 2 games at once): extend=3 against off +49 [+19, +80] (0.131
 *   against 0.105 s a move), and against off with clock_moves=20, which thinks about as
 *   long (0.120 s a move), +38 [+9, +67]: where the time goes gains, not only how much.
 *   clock_moves was 25: both with extend=3, clock_moves=15 against 25 scored +68 [+37,
 *   +99] (0.159 against 0.136 s a move: the share left half of each clock unused; a game
 *   is about 37 turns), 10 against 15 +35 [+9, +61] (0.186 against 0.166 s); now 10.
 *   The new defaults against extend=0,clock_moves=25: +147 [+115, +183] (400 games).
 * - Threads (OpenMP): in "tree" mode all threads share one tree; nodes come from one
 *   arena per search by atomic bump allocation, a node's children are allocated as one
 *   block and published last with a release store, statistics and virtual loss are C11
 *   atomics, there is no lock.  In "root" mode each thread grows its own tree in its
 *   share of the arena and the root statistics are summed.  With threads == 1 and a
 *   fixed seed and a playout (not time) budget the search is deterministic.
 * - Memory: tree_mb bounds the arena (MCTS_NODE_BYTES per node).  When it is full the
 *   search stops growing the tree, keeps searching the existing tree, and says so
 *   (mcts_result_t.tree_full); it never fails for lack of room.
 * - Reuse: after mcts_search(), mcts_advance() follows the played actions; the next
 *   mcts_search() from the matching position keeps that subtree (compacted to the start
 *   of the arena).  mcts_search() also finds the new root by itself among the expanded
 *   nodes below the previous root, matching positions exactly; otherwise it starts a new
 *   tree.  Root mode never reuses.
 * Not thread-safe per object: one mcts_t is used by one caller at a time (it runs its
 * own threads inside mcts_search()).  Any number of mcts_t may search concurrently.
 */
#ifndef GK_MCTS_H
#define GK_MCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../eval/eval.h"
#include "../games/game.h"

enum { MCTS_PAR_TREE = 0, MCTS_PAR_ROOT = 1 };
enum { MCTS_PLAYOUT_POLICY = 0, MCTS_PLAYOUT_RANDOM = 1 };

#define MCTS_DEFAULT_PLAYOUTS 1000

/* The search parameters: one row each, the only place where a parameter is declared.
 * The rows generate the fields of mcts_params_t and mcts_limits_t, the defaults
 * (mcts_params_default, mcts_limits_default), the setter by name (mcts_params_set), the
 * help text (mcts_params_help) and the program's flags (`gounki analyse --NAME`).
 *   X(NAME, FIELD, C TYPE, KIND, MIN, MAX, DEFAULT, CHOICES, HELP)
 * KIND is FLOAT, DOUBLE, INT, U64, BOOL or ENUM; an ENUM is stored as the index of its
 * value among CHOICES ("a|b"), so its constants below must follow that order. */
#define MCTS_PARAMS(X)                                                                             \
    X(c_puct, c_puct, float, FLOAT, 0, 100, 1.0, NULL, "PUCT exploration constant")                \
    X(fpu, fpu, float, FLOAT, -1, 1, 0, NULL,                                                      \
      "first-play urgency: unvisited child Q = parent Q - fpu")                                    \
    X(prior_temperature, temperature, float, FLOAT, 0.01, 100, 1.0, NULL,                          \
      "softmax temperature of the policy priors (also: temperature=)")                             \
    X(playout_depth, playout_depth, int, INT, -1, 10000, 0, NULL,                                  \
      "actions played from a leaf before evaluating (-1: to the end)")                             \
    X(playout, playout, int, ENUM, 0, 1, MCTS_PLAYOUT_POLICY, "policy|random",                     \
      "playout moves: policy (sampled from the priors) or random")                                 \
    X(eval, use_eval, bool, BOOL, 0, 1, 1, NULL,                                                   \
      "leaf evaluation (off: unfinished playouts score 0.5)")                                      \
    X(priors, use_priors, bool, BOOL, 0, 1, 1, NULL, "policy priors (off: uniform)")               \
    X(solver, solver, bool, BOOL, 0, 1, 1, NULL, "propagate proven wins, losses and draws")        \
    X(virtual_loss, virtual_loss, int, INT, 0, 1000, 1, NULL,                                      \
      "losses counted per thread in flight through a node")                                        \
    X(threads, threads, int, INT, 1, 1024, 1, NULL, "search threads")                              \
    X(parallel, parallel, int, ENUM, 0, 1, MCTS_PAR_TREE, "tree|root",                             \
      "tree (one shared tree) or root (one tree per thread)")                                      \
    X(tree_mb, tree_mb, int, INT, 1, 65536, 256, NULL, "tree memory in MiB (32 bytes per node)")   \
    X(seed, seed, uint64_t, U64, 0, 18446744073709551616.0 /* 2^64 */, 1, NULL,                    \
      "randomness of playouts and root noise")                                                     \
    X(noise_alpha, noise_alpha, float, FLOAT, 0, 100, 0.3, NULL,                                   \
      "Dirichlet alpha of the root noise")                                                         \
    X(noise_frac, noise_frac, float, FLOAT, 0, 1, 0, NULL,                                         \
      "share of root noise in the root priors (0 = none)")                                         \
    X(reuse, reuse, bool, BOOL, 0, 1, 1, NULL, "keep the subtree between moves")                   \
    X(leaf_minimax, leaf_minimax, int, INT, 0, 4, 0, NULL,                                         \
      "full-width alpha-beta actions at a leaf before its evaluation (0: off)")                    \
    X(quiesce, quiesce, int, INT, 0, 8, 2, NULL,                                                   \
      "Gounki leaf quiescence: exits, exit threats, captures, up to N actions (0: off)")           \
    X(quiesce_threats, quiesce_threats, bool, BOOL, 0, 1, 1, NULL,                                 \
      "quiesce also plays the actions that bring a stack within exit range")                       \
    X(implicit_minimax, implicit_minimax, float, FLOAT, 0, 1, 0, NULL,                             \
      "weight of implicit minimax backups in selection (0: off; +4 bytes a node)")                 \
    X(leaf_proof, leaf_proof, bool, BOOL, 0, 1, 0, NULL,                                           \
      "a forced exit found by leaf_minimax/quiesce proves the leaf (with solver)")                 \
    X(ms_depth, ms_depth, int, INT, 0, 8, 0, NULL,                                                 \
      "minimax in selection: win/loss search of N actions at a node (0: off; with solver)")        \
    X(ms_visits, ms_visits, int, INT, 1, 1000000, 20, NULL,                                        \
      "minimax in selection runs once at a node when it has this many visits")

/* The budget of one search, in the same form.  Zero means "no limit of this kind"; at
 * least one of playouts, time or clock must be set (mcts_search() otherwise uses
 * MCTS_DEFAULT_PLAYOUTS). */
#define MCTS_LIMITS(X)                                                                             \
    X(playouts, playouts, uint64_t, U64, 0, 1e15, MCTS_DEFAULT_PLAYOUTS, NULL,                     \
      "playouts per move, reused visits not counted (0 = no limit)")                               \
    X(nodes, nodes, uint64_t, U64, 0, 4e9, 0, NULL,                                                \
      "stop when the tree holds this many nodes (0 = no limit)")                                   \
    X(time, time_s, double, DOUBLE, 0, 1e7, 0, NULL, "seconds per move (0 = no limit)")            \
    X(clock, clock_s, double, DOUBLE, 0, 1e7, 0, NULL,                                             \
      "time on the mover's clock in seconds; the search takes a share")                            \
    X(inc, inc_s, double, DOUBLE, 0, 1e7, 0, NULL, "clock increment per move, in seconds")         \
    X(clock_moves, clock_moves, double, DOUBLE, 1, 1000, 10, NULL,                                 \
      "under a clock a move gets clock / clock_moves + 0.75 inc (at most half the clock)")         \
    X(early_stop, early_stop, bool, BOOL, 0, 1, 1, NULL,                                           \
      "stop when the best move can no longer change")                                              \
    X(extend, extend, double, DOUBLE, 0, 10, 3, NULL,                                              \
      "under a clock: up to EXTEND times the share while the best move is unclear (0: off)")

#define MCTS_FIELD_(name, field, ctype, ...) ctype field;
typedef struct mcts_params {
    MCTS_PARAMS(MCTS_FIELD_)
} mcts_params_t;
typedef struct mcts_limits {
    MCTS_LIMITS(MCTS_FIELD_)
} mcts_limits_t;
#undef MCTS_FIELD_

#define MCTS_MAX_PV   64
#define MCTS_MULTIPV  16 /* root children with their own variation in a result */
#define MCTS_CHILD_PV 32 /* actions in each of those variations */

/* Why a search ended (mcts_result_t.stop_reason).  The budget ran out: PLAYOUTS, TIME
 * (time or clock share) or NODES (the node limit).  It ended early (stopped_early): DECIDED
 * (early_stop: the most visited action cannot be overtaken in the budget left, or only one
 * action is not lost), PROVEN (the root is proven and no faster win can exist) or SIGNAL
 * (the monitor's stop flag).  NONE: no search ran. */
enum {
    MCTS_STOP_NONE = 0,
    MCTS_STOP_PLAYOUTS,
    MCTS_STOP_TIME,
    MCTS_STOP_NODES,
    MCTS_STOP_DECIDED,
    MCTS_STOP_PROVEN,
    MCTS_STOP_SIGNAL
};
/* The name of a MCTS_STOP_* ("playouts", "time", "nodes", "decided", "proven", "signal",
 * "none"). */
const char *mcts_stop_name(int why);

/* Proof states, from the point of view of the side to move at the root. */
enum { MCTS_UNPROVEN = 0, MCTS_PROVEN_WIN = 1, MCTS_PROVEN_LOSS = 2, MCTS_PROVEN_DRAW = 3 };

typedef struct mcts_child {
    gk_action_t action;
    uint32_t visits;
    float value;      /* mean value for the side to move at the root, in [0, 1] */
    float prior;      /* policy prior (after root noise) */
    uint8_t proof;    /* MCTS_UNPROVEN / _WIN / _LOSS / _DRAW for the root's side to move */
    uint16_t actions; /* length of the proof in actions (from the root) when proven */
} mcts_child_t;

typedef struct mcts_result {
    gk_action_t best;       /* GK_NO_ACTION only when the root has no legal action */
    float value;            /* root win probability for the side to move */
    uint64_t playouts;      /* playouts run by this search */
    uint64_t nodes;         /* nodes in the tree at the end */
    uint64_t reused;        /* visits inherited from the previous search */
    double seconds;         /* wall time */
    int depth_max;          /* deepest playout path, in actions */
    uint8_t proof;          /* MCTS_UNPROVEN / _WIN / _LOSS / _DRAW for the side to move */
    uint16_t proof_actions; /* actions to the end of the game when proven */
    bool tree_full;         /* the arena filled up and the tree stopped growing */
    bool stopped_early;     /* ended before its budget: DECIDED, PROVEN or SIGNAL below */
    uint8_t stop_reason;    /* MCTS_STOP_*: why the search ended */
    int pv_len;
    gk_action_t pv[MCTS_MAX_PV]; /* principal variation from the root, most visited */
    /* MultiPV: children[i] for i < npv has its own variation child_pv[i][0..child_pv_len[i]),
     * starting with its action and going on as pv does (the most visited child of each node,
     * as long as it was visited or is proven).  child_pv[0] is pv, cut to MCTS_CHILD_PV. */
    int npv;
    uint8_t child_pv_len[MCTS_MULTIPV];
    gk_action_t child_pv[MCTS_MULTIPV][MCTS_CHILD_PV];
    int nchildren; /* root children, sorted by visits, then value */
    mcts_child_t children[GK_MAX_ACTIONS];
} mcts_result_t;

typedef struct mcts mcts_t;

/* The defaults of the tables above (the values the tests and bench use unless told
 * otherwise). */
void mcts_params_default(mcts_params_t *p);
void mcts_limits_default(mcts_limits_t *l);

/* Sets one parameter by NAME (the limits too when l is not NULL), value read as
 * search/params.h reads values.  Returns 1 when it set it, 0 when the name is not one of
 * the tables' (or a limit and l is NULL), -1 on a bad value with the reason in err
 * ("5 is out of range [-1, 1]"; the caller names the parameter). */
int mcts_params_set(mcts_params_t *p, mcts_limits_t *l, const char *name, const char *value,
                    char *err, size_t errcap);
/* The help text: one line per parameter, "  NAME=VALUE  meaning [range]", the values
 * those of p and l (NULL: the defaults).  Returns the length it needs (as snprintf);
 * MCTS_HELP_MAX is always enough. */
#define MCTS_HELP_MAX 4096
int mcts_params_help(char *buf, size_t cap, const mcts_params_t *p, const mcts_limits_t *l);

/* The rows of the tables, in order (parameters, then limits), for programs that make a
 * flag of each one. */
enum { MCTS_PK_FLOAT, MCTS_PK_DOUBLE, MCTS_PK_INT, MCTS_PK_U64, MCTS_PK_BOOL, MCTS_PK_ENUM };
typedef struct mcts_param_info {
    const char *name;
    int kind;            /* MCTS_PK_* */
    bool limit;          /* a field of mcts_limits_t, else of mcts_params_t */
    size_t offset;       /* of the field in its struct */
    double min, max;     /* MCTS_PK_U64: max >= 2^64 means UINT64_MAX */
    double def;          /* default (an ENUM's index) */
    const char *choices; /* MCTS_PK_ENUM: "a|b", else NULL */
    const char *help;
} mcts_param_info_t;
int mcts_param_count(void);
const mcts_param_info_t *mcts_param_at(int i);
/* The row of a name, or -1.  "temperature" is an older name of prior_temperature, kept
 * for specs written before the move-sampling temperature of self-play took the word. */
int mcts_param_find(const char *name);

/* A search configuration being built from options: parameters, limits, and which of
 * them were set by name, so that a parameter set twice (in one list, or by two options)
 * is refused and "time alone" can be told from "time and playouts". */
typedef struct mcts_config {
    mcts_params_t p;
    mcts_limits_t l;
    uint64_t set; /* bit i: row i (mcts_param_at) was set */
} mcts_config_t;

/* Starts from p and l (NULL: the defaults) with nothing set. */
void mcts_config_init(mcts_config_t *c, const mcts_params_t *p, const mcts_limits_t *l);
/* As mcts_params_set(); -1 also when the parameter was already set. */
int mcts_config_set(mcts_config_t *c, const char *name, const char *value, char *err,
                    size_t errcap);
/* A NAME=VALUE[,...] list (search/params.h).  Returns 0, or -1 with a reason naming the
 * item. */
int mcts_config_set_list(mcts_config_t *c, const char *list, char *err, size_t errcap);
bool mcts_config_isset(const mcts_config_t *c, const char *name);
/* Applies the rules between options: a budget in time (time or clock) without playouts
 * has no playout limit (time alone decides); a fixed time per move (time without clock
 * or playouts) has early_stop off unless it was set.  Call once, after the options.
 * Fails (GK_E_INVALID, with the reason in err) when no limit is left at all (playouts=0
 * or time=0 alone): zero means "no limit of this kind", not a budget. */
int mcts_config_finish(mcts_config_t *c, char *err, size_t errcap);

/* Bytes per tree node (the arena holds tree_mb * 2^20 / MCTS_NODE_BYTES nodes). */
#define MCTS_NODE_BYTES 32
size_t mcts_node_bytes(void);

/* A new search object using weights w (copied) and parameters p (copied; threads and
 * tree_mb are clamped to >= 1).  The arena is reserved now but only touched as the
 * tree grows.  Returns NULL when memory is short or the parameters are invalid. */
mcts_t *mcts_new(const mcts_params_t *p, const ev_weights_t *w);
void mcts_free(mcts_t *m); /* NULL is fine */

/* Searches root within the limits and fills out.  hist is the game's repetition
 * history up to and including root (may be NULL: no repetition checks).  Returns 0, or
 * -1 when the root is finished or has no legal action (out->best = GK_NO_ACTION). */
int mcts_search(mcts_t *m, const gk_pos_t *root, const gk_hist_t *hist, const mcts_limits_t *l,
                mcts_result_t *out);
/* Watches a search from outside (an interactive analysis, the engine protocol).
 * stop (may be NULL) is polled by every search thread between playouts: a nonzero value ends
 * the search with the tree so far (stopped_early is then set); storing to it from a signal
 * handler or another thread is fine.  info (may be NULL) is called about every interval_s
 * seconds of wall time (at least 0.05) from the thread that runs the search, with the result
 * so far (children, value, PV; playouts and nodes approximate while other threads run); it
 * must return quickly and must not call into this mcts_t.  Neither changes what a search
 * that is not stopped plays: a single-threaded search stays deterministic. */
typedef struct mcts_monitor {
    const _Atomic int *stop;
    void (*info)(const mcts_result_t *sofar, void *ctx);
    void *ctx;
    double interval_s;
} mcts_monitor_t;
/* Installs mon (copied) for the following searches of m; NULL removes it. */
void mcts_set_monitor(mcts_t *m, const mcts_monitor_t *mon);
/* The same search with the root actions excl[0..nexcl) forbidden (an opening book's moves):
 * they are treated as lost for the side to move, so no playout goes through them, the
 * result's value and proof are those of the best other action, and the excluded actions
 * sort last among the children (as proven losses).  Starts a new tree and keeps none.
 * When every legal action is excluded the root is proven lost.  Deterministic under the
 * same conditions as mcts_search(): it depends on (root, limits, parameters, excl). */
int mcts_search_excluding(mcts_t *m, const gk_pos_t *root, const gk_hist_t *hist,
                          const mcts_limits_t *l, const gk_action_t *excl, int nexcl,
                          mcts_result_t *out);
/* Moves the kept root along action a (the engine's own action or the opponent's); the
 * next search keeps that subtree.  An action that is not an expanded child drops the
 * tree.  Returns 0 when a subtree was kept, -1 when the tree was dropped. */
int mcts_advance(mcts_t *m, gk_action_t a);
/* Forgets the tree (the next search starts afresh). */
void mcts_clear(mcts_t *m);

/* Chooses a root action from r: with temperature <= 0 the best action (r->best);
 * otherwise with probability proportional to visits^(1/temperature) over the children
 * not proven lost, drawing from *rng (gk_splitmix64).  GK_NO_ACTION when r has none. */
gk_action_t mcts_sample(const mcts_result_t *r, double temperature, uint64_t *rng);

#endif
