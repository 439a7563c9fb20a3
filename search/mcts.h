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
 * - Solver: finished positions (and repetitions, counted on the game history plus the
 *   path) are proven; a node with a child proven won is won, a node whose children are
 *   all proven takes their best.  Wins in fewer actions and losses in more are
 *   preferred: a won root keeps searching (unexpanded children first) until no faster
 *   win can exist, then stops.  Every child of a newly expanded node is played once,
 *   so a win in one at the root is found before the first playout and a move that
 *   allows an immediate exit is proven lost as soon as it is expanded.  A proven
 *   position below the root is not searched further.  Early stop also ends a search
 *   whose root is lost or drawn, or whose most visited action can no longer be
 *   overtaken in the remaining budget.
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

/* Every tunable constant of the search, by name (mcts_params_set() uses these names). */
typedef struct mcts_params {
    float c_puct;      /* exploration constant of PUCT (c_puct) */
    float fpu;         /* first-play urgency: unvisited child Q = parent Q - fpu (fpu) */
    float temperature; /* softmax temperature of the policy priors (temperature) */
    int playout_depth; /* actions played from a leaf before evaluating; 0 = pure
                          evaluation; -1 = play to the end of the game (playout_depth) */
    int playout;       /* MCTS_PLAYOUT_POLICY (sample from the priors) or _RANDOM (playout) */
    bool use_eval;     /* false: a playout that stops early scores 0.5 (eval) */
    bool use_priors;   /* false: uniform priors, no move features (priors) */
    bool solver;       /* propagate proven values (solver) */
    int virtual_loss;  /* losses counted per thread in flight through a node (virtual_loss) */
    int threads;       /* OpenMP threads (threads) */
    int parallel;      /* MCTS_PAR_TREE or MCTS_PAR_ROOT (parallel=tree|root) */
    int tree_mb;       /* arena size in MiB (tree_mb) */
    uint64_t seed;     /* playout and noise randomness (seed) */
    float noise_alpha; /* Dirichlet alpha of root noise (noise_alpha) */
    float noise_frac;  /* weight of root noise in the priors; 0 = none (noise_frac) */
    bool reuse;        /* keep the subtree between searches (reuse) */
} mcts_params_t;

/* Budget of one search.  Zero means "no limit of this kind"; at least one of playouts,
 * time_s or clock_s must be set (mcts_search() otherwise uses MCTS_DEFAULT_PLAYOUTS). */
typedef struct mcts_limits {
    uint64_t playouts; /* playouts in this search (reused visits do not count) */
    uint64_t nodes;    /* stop when the tree holds this many nodes */
    double time_s;     /* seconds for this move */
    double clock_s;    /* remaining time on the mover's game clock ... */
    double inc_s;      /* ... and its increment per move: the search allots a share */
    bool early_stop;   /* stop when the best action can no longer change (default on) */
} mcts_limits_t;

#define MCTS_DEFAULT_PLAYOUTS 1000
#define MCTS_MAX_PV           64

/* Proof states, from the point of view of the side to move at the root. */
enum { MCTS_UNPROVEN = 0, MCTS_PROVEN_WIN = 1, MCTS_PROVEN_LOSS = 2, MCTS_PROVEN_DRAW = 3 };

typedef struct mcts_child {
    gk_action_t action;
    uint32_t visits;
    float value;    /* mean value for the side to move at the root, in [0, 1] */
    float prior;    /* policy prior (after root noise) */
    uint8_t proof;  /* MCTS_UNPROVEN / _WIN / _LOSS / _DRAW for the root's side to move */
    uint16_t plies; /* length of the proof in actions (from the root) when proven */
} mcts_child_t;

typedef struct mcts_result {
    gk_action_t best;     /* GK_NO_ACTION only when the root has no legal action */
    float value;          /* root win probability for the side to move */
    uint64_t playouts;    /* playouts run by this search */
    uint64_t nodes;       /* nodes in the tree at the end */
    uint64_t reused;      /* visits inherited from the previous search */
    double seconds;       /* wall time */
    int depth_max;        /* deepest playout path, in actions */
    uint8_t proof;        /* MCTS_UNPROVEN / _WIN / _LOSS / _DRAW for the side to move */
    uint16_t proof_plies; /* actions to the end of the game when proven */
    bool tree_full;       /* the arena filled up and the tree stopped growing */
    bool stopped_early;   /* the budget was cut short: best action could not change, or proven */
    int pv_len;
    gk_action_t pv[MCTS_MAX_PV]; /* principal variation from the root, most visited */
    int nchildren;               /* root children, sorted by visits, then value */
    mcts_child_t children[GK_MAX_ACTIONS];
} mcts_result_t;

typedef struct mcts mcts_t;

/* Default parameters (the values the tests and bench use unless told otherwise). */
void mcts_params_default(mcts_params_t *p);
void mcts_limits_default(mcts_limits_t *l); /* MCTS_DEFAULT_PLAYOUTS, early stop on */

/* Sets one parameter by name (the names in mcts_params_t's comments, plus the limits
 * playouts, nodes, time, clock, inc, early_stop when l is not NULL).  Returns 1 when
 * it set it, 0 when the name is not one of these, -1 on a bad value (reason in err). */
int mcts_params_set(mcts_params_t *p, mcts_limits_t *l, const char *name, const char *value,
                    char *err, size_t errcap);
/* One help line per parameter ("name=default  meaning"), for --help texts. */
const char *mcts_params_help(void);

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
