/*
 * selfplay/book_expand.h -- `gounki book expand`: best-first drop-out expansion of an
 * opening book (data/book.h), alone or on MPI ranks, deterministic and resumable.
 *
 * Contract
 * --------
 * bx_run() is one rank of an expansion (MPI_COMM_WORLD, which the caller initialises
 * (MPI_THREAD_FUNNELED) before and finalises after, unless sum->abandoned; a single process
 * without mpirun works too).  Rank 0 owns the book and its journal; every rank searches.
 *
 * A BATCH: rank 0 chooses the work, the ranks search it (selfplay/book_farm.h: rank 0
 * leases jobs to ranks with idle threads and runs jobs on its own `threads` too; a rank
 * silent for peer_seconds is lost and its jobs are searched elsewhere), the results reach
 * rank 0, which journals the batch (one write + fsync), applies it in batch order and
 * backs the values up.  The work of a batch is either
 *   - up to `batch` nodes without a leaf (a book built from games): each is searched
 *     without its book moves, which gives its leaf; or
 *   - up to `batch` expansion targets (bk_select: the most urgent leaf moves by the
 *     Fuego/Lincke priority): the target's leaf move becomes a book move; its new child
 *     position is searched (it has no book moves: its best action and value are its leaf)
 *     and the target is searched again without its book moves, the new one included.
 * Each search is a single-threaded MCTS (search/mcts.h, mcts_search_excluding) with a
 * fixed playout budget and seed, so a batch's results are a pure function of the book,
 * and the same book, seed and settings give the same book byte for byte at any number of
 * ranks and threads.  (--time budgets are not reproducible.)
 *
 * STOPPING.  The run ends when the book holds at least `nodes` nodes (checked between
 * batches, so the last batch may take it up to batch - 1 nodes past; and a run extended
 * later to more nodes goes through the very batches of a run made to that size at once),
 * when no leaf is left to expand, or when *stop is set on any rank (after the batch in
 * progress, which a rank that cannot be reached delays by at most BF_STOP_WAIT seconds
 * before its jobs go elsewhere).  After a lost rank sum->abandoned is set: the caller must
 * not call MPI_Finalize (it would wait for that rank).  The book is
 * rewritten atomically at least every checkpoint_s seconds and at the end; the journal
 * BOOK.journal holds the batches since (data/book.h, JOURNAL).  A run killed at any moment
 * and started again with the same settings replays the journal and ends with the very book
 * of an uninterrupted run.  Two runs on one book are refused (a lock on the journal).
 */
#ifndef GK_BOOK_EXPAND_H
#define GK_BOOK_EXPAND_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../data/book.h"
#include "../search/mcts.h"

typedef struct bx_opts {
    const char *book;     /* the book file (made by `book build`) */
    uint64_t nodes;       /* the book's target size */
    uint64_t playouts;    /* per search (0 when time_s is used) */
    double time_s;        /* seconds per search instead (not reproducible) */
    uint64_t seed;        /* the searches' seed */
    bk_select_opts_t sel; /* alpha, policy cost, width */
    int batch;            /* targets (or nodes to search) per batch; not the rank count */
    int threads;          /* searches at once on each rank */
    const char *weights;  /* evaluation weight file, NULL for the shipped ones */
    mcts_params_t mcts;   /* search parameters (threads and reuse are set here) */
    double checkpoint_s;  /* rewrite the book at least this often (default 60) */
    double peer_seconds;  /* a rank not heard from this long is lost (0: 10 s) */
    bool quiet;           /* no progress lines */
    FILE *out;            /* progress and summary (rank 0) */
    volatile sig_atomic_t *stop;
} bx_opts_t;

typedef struct bx_summary {
    int rank, ranks;
    uint64_t nodes_before; /* book nodes at the start (after the journal) */
    uint64_t nodes;        /* at the end */
    uint64_t replayed;     /* journaled batches applied at the start */
    uint64_t batches;      /* batches run by this run */
    uint64_t searches;     /* searches run by this run */
    uint64_t playouts;     /* their playouts */
    double seconds;
    float root_value; /* negamax value of the start position (NAN: none) */
    bool stopped;     /* ended by *stop */
    bool exhausted;   /* no leaf left to expand */
    int lost;         /* ranks given up as lost (rank 0) */
    bool abandoned;   /* a rank was lost: the caller must not call MPI_Finalize */
} bx_summary_t;

/* Runs this rank's share.  Returns 0, or a negative gk_status_t with a reason in err (on
 * rank 0; other ranks return with err empty when rank 0 failed).  *sum is filled on rank 0. */
int bx_run(const bx_opts_t *o, bx_summary_t *sum, char *err, size_t errcap);

#endif
