/*
 * search/baselines.h -- the baseline players that measure the MCTS: uniform random,
 * greedy (one action deep), and alpha-beta: with iterative deepening, a transposition
 * table and move ordering, or (plain) the result of one fixed-depth search in generation
 * order like the online robot of issue 15.  They work on ACTIONS through games/game.h, so they
 * serve every game; a Gobs jump leg after which the same player moves again is an ordinary node
 * whose value is not negated.
 *
 * Contract
 * --------
 * Scores are integer POINTS from the point of view of the side to move, from one of two
 * evaluations: the classic material + advancement count (eval/classic.h) or our tunable
 * evaluation (eval/eval.h), whose logit is divided by its scale to give points.  A win
 * found by the search scores BL_WIN - d (d = actions from the root to the end), so a
 * faster win is preferred and a slower loss; draws score 0.
 *
 * A turn-boundary position met again (earlier in the game history or on the current
 * search path) scores as a draw, the usual way of seeing a repetition coming; the game's
 * own rule is the third occurrence.
 *
 * Determinism: every function here is a pure function of its inputs (the seed for
 * random and greedy tie-breaks, the position, history and depth for alpha-beta), except
 * when a time limit stops alpha-beta, which then depends on the machine's speed.
 * An ab_search_t is used by one thread at a time; different ones may run in parallel.
 */
#ifndef GK_BASELINES_H
#define GK_BASELINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../eval/eval.h"
#include "../games/game.h"

#define BL_WIN 1000000

typedef enum { BL_EVAL_CLASSIC = 0, BL_EVAL_OURS = 1 } bl_eval_kind_t;

typedef struct bl_eval {
    bl_eval_kind_t kind;
    ev_weights_t w; /* BL_EVAL_OURS only */
} bl_eval_t;

/* Points for the side to move of an unfinished position. */
int bl_eval_points(const bl_eval_t *e, const gk_pos_t *p);
/* Win probability of the side to move for a score in points (mate scores give 1 / 0). */
double bl_points_to_prob(const bl_eval_t *e, int points);

/* A legal action drawn uniformly from gen(p) with the seed; GK_NO_ACTION when there is
 * none. */
gk_action_t bl_random(const gk_pos_t *p, uint64_t seed);

/* The action whose resulting position evaluates best for the mover; a winning action is
 * always taken.  Ties between equal scores are broken by the seed.  Writes the score in
 * points to *score (may be NULL).  GK_NO_ACTION when there is no legal action. */
gk_action_t bl_greedy(const bl_eval_t *e, const gk_pos_t *p, uint64_t seed, int *score);

typedef struct ab_limits {
    int depth;     /* maximum depth in actions (1..AB_MAX_DEPTH); 0 = AB_MAX_DEPTH */
    double time_s; /* stop after this many seconds (0 = no limit); the deepest finished
                      iteration, or the part of the next one already searched, decides */
    /* Plain: the result of one alpha-beta of `depth` (which should be set) without
     * iterative deepening, transposition table or move ordering, where every node tries
     * its actions in gen() order and the first of equal scores wins: the online robot's
     * search (issue 15).  With literal it is searched that way, node for node.  Without,
     * the same move and score come from a faster search: ordered iterations whose table
     * gives move hints only (no values: a repetition on the path makes a value depend on
     * the path), then the full depth with the hint scored first and every other root
     * action asked "at least the best so far?" with a null window, ties going to the earlier
     * action in gen() order (tests/test_baselines.c compares the two).  Only nodes and time
     * differ. */
    bool plain;
    bool literal;
    /* top_k > 0: rank the root.  Every root action is searched to `depth` in gen() order
     * with the window (K-th best score so far, +inf), which gives the same K best actions
     * and the same exact scores as a full window for each (an action that fails low
     * cannot enter the top K, and ties go to the earlier action); the top K (score down,
     * then gen() order) come back in top[] / top_score[].  Unless literal: iterations to
     * depth - 1 first fill the table for the move ordering.  1..AB_MAX_TOP. */
    int top_k;
    bool randomize; /* with top_k: best is drawn uniformly among top[] with seed, */
    uint64_t seed;  /* else best is top[0] */
    /* With top_k: only actions scoring above floor are ranked (the window starts there):
     * floor = BL_WIN - 10000 lists the proven wins, -(BL_WIN - 10000) the actions not
     * proven lost.  When none scores above it, ntop is 0 and best the first legal one. */
    bool floor_set;
    int floor;
} ab_limits_t;

#define AB_MAX_DEPTH 48
#define AB_MAX_PV    16
#define AB_MAX_TOP   64

typedef struct ab_result {
    gk_action_t best; /* GK_NO_ACTION only when p has no legal action */
    int score;        /* points, side to move of the root */
    int depth;        /* deepest iteration completed (the partial one not counted) */
    uint64_t nodes;   /* positions visited */
    double seconds;
    int npv;
    gk_action_t pv[AB_MAX_PV]; /* principal variation (plain: of the search; else from the
                                  transposition table; top_k: best, then the table's) */
    int ntop;                  /* top_k: the ranked root actions, best first */
    gk_action_t top[AB_MAX_TOP];
    int top_score[AB_MAX_TOP];
} ab_result_t;

typedef struct ab_search ab_search_t;

/* A searcher with a transposition table of about tt_mb megabytes (rounded down to a
 * power of two entries; 0 gives 16).  NULL when out of memory. */
ab_search_t *ab_new(const bl_eval_t *e, size_t tt_mb);
void ab_free(ab_search_t *s);
/* Forgets the transposition table and the move-ordering history (between games, so
 * that each game is a function of its own inputs only). */
void ab_clear(ab_search_t *s);
/* Searches p (which must be unfinished) with the game history h (may be NULL).
 * Returns 0, or -1 when p is finished. */
int ab_search(ab_search_t *s, const gk_pos_t *p, const gk_hist_t *h, const ab_limits_t *lim,
              ab_result_t *out);

#endif
