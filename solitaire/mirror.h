/*
 * solitaire/mirror.h -- the palindrome finder of the Gobs solitaire.
 * A solution made of a half and that half's mirror image, colours reversed, played backwards.
 *
 * Why it works (docs/RULES.md, "Gobs solitaire", has the long form): a move is undone by
 * the reverse jump, moves never look at colours, and the goal is the start with every
 * colour reversed.  So if the moves X lead from the start to a position M, and a board
 * symmetry s maps M, with the colours of the start's white pieces reversed, onto M with
 * every colour reversed, then s(X), colours reversed and played backwards, leads from M to
 * the goal: a solution of 2 |X| moves (2 |X| + 1 with one middle move).  The finder looks
 * for such an M with a beam search from the start whose order is the number of squares
 * that break the condition; half the depth of a direct search, and the hard end of the
 * puzzle (the last piece brought home over the last black one) is no longer the end.
 * It proves nothing: gs_solve() uses its solution as an upper bound.
 */
#ifndef GK_SOLITAIRE_MIRROR_H
#define GK_SOLITAIRE_MIRROR_H

#include "solitaire.h"

typedef struct gs_mirror_limits {
    int width;          /* positions kept per depth */
    int max_len;        /* only solutions of at most this many moves are wanted */
    int target;         /* a lower bound on every solution: one this long ends the search */
    uint64_t max_nodes; /* stop once *nodes passes this (0 = no limit) */
    double deadline;    /* stop once gk_now_s() passes this (0 = none) */
    /* As in gs_limits_t (phase GS_PHASE_MIRROR, bound = the length a hit at the current
     * depth would give); seconds count from t0. */
    void (*progress)(void *arg, int phase, int bound, uint64_t nodes, double seconds, double done);
    void *progress_arg;
    double t0;
} gs_mirror_limits_t;

/* Searches every symmetry of the problem's square and fixed pieces for a palindromic
 * solution; returns its length (the shortest found, 0 when none) with the moves in
 * moves[], replayed by gs_play() and checked by gs_is_goal() before it is returned, or
 * GS_ERR_NOMEM.  *nodes grows by the positions generated; *aborted is set when the node
 * or time budget ran out. */
int gs_mirror_find(const gs_problem_t *p, const gs_mirror_limits_t *lim, gs_move_t *moves,
                   uint64_t *nodes, int *aborted);

#endif
