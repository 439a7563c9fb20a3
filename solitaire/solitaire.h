/*
 * solitaire/solitaire.h -- the one-player Gobs puzzle ("Le Gobs pour jouer seul") and a solver
 * that finds a shortest solution and proves it shortest (IDA* with a transposition table).
 *
 * The rules as implemented (placement, goal, pre-flip, fixed pieces) are in
 * docs/RULES.md, "Gobs solitaire".  Squares are 9 * rank + file, 0-based (a1 = 0,
 * i9 = 80).  Functions returning int give 0 (or a count / square) on success and a
 * negative GS_ERR_* code on bad input; gs_strerror() names it in one line.  No globals:
 * every function is reentrant.
 */
#ifndef GK_SOLITAIRE_H
#define GK_SOLITAIRE_H

#include <stddef.h>
#include <stdint.h>

enum { GS_SIZE = 9, GS_SQUARES = 81, GS_MIN_N = 2, GS_MAX_N = 7, GS_MAX_LEN = 255 };
enum { GS_EMPTY = 0, GS_BLACK = 1, GS_WHITE = 2, GS_FIXED = 3 };
enum {
    GS_ERR_SIZE = -1,
    GS_ERR_PREFLIP = -2,
    GS_ERR_FIXED = -3,
    GS_ERR_NOMEM = -4,
    GS_ERR_PARSE = -5,
    GS_ERR_WHITE = -6,
    GS_ERR_SHARE = -7,
};
/* GS_FOUND: a solution found (res->moves, res->len) but not proven shortest; every
 * solution has at least res->lower_bound moves. */
enum { GS_SOLVED = 0, GS_NONE = 1, GS_BUDGET = 2, GS_FOUND = 3 };
enum { GS_PHASE_FINDER = 0, GS_PHASE_PERIMETER = 1, GS_PHASE_PROOF = 2, GS_PHASE_MIRROR = 3 };

typedef struct gs_problem {
    int n;                     /* size of the square, GS_MIN_N..GS_MAX_N */
    int preflip;               /* square of the piece that starts white and moves first, or -1 */
    uint8_t fixed[GS_SQUARES]; /* 1 = a fixed piece */
    uint8_t white[GS_SQUARES]; /* 1 = the piece starts white side up, with no duty to move */
} gs_problem_t;

typedef struct gs_state {
    uint8_t cell[GS_SQUARES]; /* GS_EMPTY, GS_BLACK, GS_WHITE, GS_FIXED */
    int8_t first;             /* the piece that must move first, or -1 */
} gs_state_t;

typedef struct gs_move {
    uint8_t from, over, to;
} gs_move_t;

/* What the parts of a proof split among processes tell each other after each IDA*
 * iteration (and once after the finders): see gs_limits_t.share. */
typedef struct gs_share {
    uint64_t nodes; /* summed over the parts */
    uint64_t key;   /* the least over the parts; UINT64_MAX: this part has nothing to give */
    int next_bound; /* the least */
    int aborted;    /* the largest */
    int len;        /* the moves of the part whose key is least (the lowest such part) */
    gs_move_t moves[GS_MAX_LEN];
} gs_share_t;

typedef struct gs_limits {
    uint64_t max_nodes; /* 0 = no limit */
    double max_seconds; /* 0 = no limit */
    size_t tt_bytes;    /* the most the transposition table grows to (it starts at 1 MB) */
    /* The finder run before the proof: a beam search keeping this many positions per
     * depth (0 = no finder).  Its budget is finder_share of max_nodes / max_seconds (all
     * of them when those are 0, up to finder_nodes positions: 0 = 20 M). */
    int beam_width;
    uint64_t finder_nodes;
    double finder_share;
    /* The palindrome finder (solitaire/mirror.h), run after the beam finder unless that
     * one's solution is as short as the start's bound: this many positions per depth
     * (0 = none).  It looks for a solution shorter than the beam finder's, with a budget
     * like the beam finder's counted from its own start (1 G nodes when the caller sets no
     * limit), within the whole budget. */
    int mirror_width;
    /* The perimeter: the positions within a few moves of the goal, found back from it
     * and kept with their exact distance, at most this many (0 = 3 M, about 100 MB for
     * 7x7's 1.6 M within 4 moves; < 0 = none).  Built only when the finder's first
     * bound fails or IDA* runs. */
    long perim_entries;
    /* Called every 16k nodes or so, and at each new bound, when not NULL (progress lines):
     * the phase (GS_PHASE_*), its bound (the finder's length bound, the perimeter layer
     * being built, the IDA* iteration's bound), nodes so far (this part's), seconds since
     * the start, and in a parallel proof the share of this part's frontier positions
     * searched in the iteration (else -1). */
    void (*progress)(void *arg, int phase, int bound, uint64_t nodes, double seconds, double done);
    void *progress_arg;
    /* Parallel proof.  Each IDA* iteration lists the positions a few moves deep (the
     * frontier, the same on every part: at least 64 per thread of every part) in the
     * serial search's order; item i belongs to part i % parts, whose threads take its
     * items one at a time.  One thread: a table that grows as the serial one does.  More:
     * the part's threads share one table of tt_bytes, allocated whole, with a lock per
     * group of buckets (its entries are facts, "no solution within B moves", so sharing
     * them changes which subtrees are skipped, never which solution is found).
     * The solution returned is the one of the lowest item, which is the one the serial
     * search finds, and is proven shortest as there; only the node counts depend on the
     * split.  threads <= 1 and parts <= 1: the serial search.  With parts > 1 every part
     * runs the same call (the finders too) and share, which must then be set, combines
     * a gs_share_t across the parts as its comments say (every part gets the result;
     * MPI_Allreduce and a broadcast, say) and returns 0, or non-zero on failure
     * (GS_ERR_SHARE).  max_nodes counts every part's nodes, each part taking an equal
     * share of what is left; a part that finds a solution does not stop the others
     * before the end of the iteration. */
    int threads;
    int part, parts;
    int (*share)(void *arg, gs_share_t *s);
    void *share_arg;
} gs_limits_t;

typedef struct gs_result {
    int status;      /* GS_SOLVED, GS_NONE, GS_BUDGET */
    int len;         /* moves of the solution (GS_SOLVED) */
    int lower_bound; /* no solution is shorter */
    uint64_t nodes;
    double seconds;
    size_t tt_bytes;      /* the transposition table's size at the end */
    int found_len;        /* the beam finder's solution length, or 0 when it found none */
    uint64_t found_nodes; /* nodes and seconds from the start to the beam finder's end */
    double found_seconds;
    int mirror_max;        /* it ran for lengths up to this (0: it did not run) */
    int mirror_aborted;    /* its budget ran out */
    int mirror_len;        /* its length (0: none; only one shorter than found_len is kept) */
    uint64_t mirror_nodes; /* its own nodes and seconds */
    double mirror_seconds;
    int perim_radius;     /* every position within this many moves of the goal was in the
                           * perimeter (-1: not built) */
    size_t perim_entries; /* its size */
    int frontier_depth;   /* the parallel proof's last frontier: its depth, 0 when serial */
    uint64_t frontier_items;
    gs_move_t moves[GS_MAX_LEN];
} gs_result_t;

/* "d4" (either case) -> square, or GS_ERR_PARSE. */
int gs_square_parse(const char *s);
/* Square -> "d4"; move -> "d4xd5-d6" (d4 jumps d5, which turns over, lands on d6). */
void gs_square_text(int sq, char out[3]);
void gs_move_text(gs_move_t m, char out[9]);
const char *gs_strerror(int err);

/* The N x N puzzle with no pre-flip and no fixed piece; GS_ERR_SIZE for a bad N. */
int gs_problem_init(gs_problem_t *p, int n);
/* 1 when sq lies in the problem's N x N square. */
int gs_in_square(const gs_problem_t *p, int sq);
/* Marks the squares of a comma-separated list ("e5,d4") fixed; GS_ERR_PARSE (nothing
 * changed) for a bad list. */
int gs_problem_fix(gs_problem_t *p, const char *list);
/* The same for pieces that start white side up (no duty to move first); gs_problem_check
 * wants them inside the square, not fixed. */
int gs_problem_white(gs_problem_t *p, const char *list);
/* Checks N, the fixed marks and the pre-flip square (inside the N x N square, not
 * fixed); 0 or a GS_ERR_* code. */
int gs_problem_check(const gs_problem_t *p);

/* The start position of a checked problem. */
void gs_start(const gs_problem_t *p, gs_state_t *s);
/* Plays m when legal (adjacent jump onto an empty square, fixed pieces neither move nor
 * are jumped, the pre-flipped piece moves first) and returns 1; returns 0 and leaves s
 * unchanged otherwise. */
int gs_play(gs_state_t *s, gs_move_t m);
/* 1 when every non-fixed square of the N x N square holds a white piece. */
int gs_is_goal(const gs_problem_t *p, const gs_state_t *s);

/* The neighbour of each square in each of the 8 directions (-1 off the board); direction
 * d and d ^ 4 are opposite. */
void gs_neighbours(int8_t nbr[GS_SQUARES][8]);

/* Fills map with board symmetry t (1..7; bit 0 = transpose, bit 1 = reverse the files,
 * bit 2 = reverse the ranks, applied in that order) as a square map; returns 1 when it
 * keeps the problem's square and fixed pieces (and, with colours, its white and
 * pre-flipped squares), 0 otherwise. */
int gs_symmetry(const gs_problem_t *p, int t, int colours, uint8_t map[GS_SQUARES]);

/* Finds a solution with the beam finder (when lim->beam_width > 0) and the palindrome
 * finder (lim->mirror_width > 0), then searches for a shorter one by IDA* within the limits; IDA*
 * stops as soon as its bound reaches the found length, which proves that length shortest.  Returns
 * 0 with res->status GS_SOLVED (a proven shortest solution in res->moves), GS_FOUND (a solution,
 * not proven shortest), GS_NONE (proven unsolvable) or GS_BUDGET (limit reached, nothing found);
 * res->lower_bound holds in every case; or GS_ERR_NOMEM. */
int gs_solve(const gs_problem_t *p, const gs_limits_t *lim, gs_result_t *res);

#endif
