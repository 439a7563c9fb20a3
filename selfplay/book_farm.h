/*
 * selfplay/book_farm.h -- the ranks of `gounki book expand`: rank 0 hands out the
 * searches of a batch, every rank runs them on its threads, and no rank ever waits for
 * ever on one it cannot reach.
 *
 * Contract
 * --------
 * A FARM is one rank's side of an expansion over MPI_COMM_WORLD (or a single process:
 * then no MPI call is made after bf_open).  On every rank, OpenMP thread 0 is the only one
 * to call MPI (MPI_THREAD_FUNNELED); threads 1..threads run the searches through the
 * caller's bf_search_fn, one job at a time, with the thread index 0..threads-1.
 *
 * A JOB is a position and the actions its search leaves out; its RESULT is BF_ROW int64
 * values, a pure function of the job (the caller's search is single-threaded with a fixed
 * seed), so it does not matter which rank or thread runs it, or how often.
 *
 * Rank 0 calls bf_start0, bf_ready, then bf_batch once per batch, then bf_end.  Each
 * other rank calls bf_wait_start, bf_send_ready, then bf_serve, which returns when rank 0
 * ends the run.  Rank 0 LEASES jobs to ranks with idle threads (never more than they can
 * start) and runs jobs on its own threads too; a rank not heard from for peer_seconds
 * (every rank sends a sign of life every second, searching or not) is LOST: its jobs are
 * leased again to the others and anything it sends later is dropped.  While stopping
 * (a signal on any rank) the limit is BF_STOP_WAIT seconds instead.  A rank that waits
 * for rank 0's answer longer than the same limits gives rank 0 up.  After a loss nobody
 * calls MPI_Finalize (it would wait for the lost rank): bf_abandoned() says so.
 *
 * Messages are bytes (MPI_BYTE) of little-endian 64-bit words; every message is checked
 * for its length before it is read, and a malformed one is an error, never a crash.
 */
#ifndef GK_BOOK_FARM_H
#define GK_BOOK_FARM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../games/game.h"

#define BF_ROW       5   /* int64 values of one job's result */
#define BF_STOP_WAIT 3.0 /* seconds a stopping rank waits for one that does not answer */

/* Codes of the end of a run, told by rank 0 to every rank. */
enum { BF_DONE = 1, BF_EXHAUSTED = 2, BF_STOPPED = 3, BF_FAILED = 4, BF_LOST = 5 };

typedef struct bf_job {
    gk_pos_t pos;
    const gk_action_t *excl; /* the actions the search leaves out */
    int nexcl;
} bf_job_t;

/* Runs job j on thread t (0..threads-1) and writes its BF_ROW values to row.  Called on
 * several threads at once, each with its own t. */
typedef void (*bf_search_fn)(void *ctx, int t, const bf_job_t *job, int64_t *row);

typedef struct bf_opts {
    int threads;         /* searches at once on this rank */
    double peer_seconds; /* a rank silent this long is lost */
    bool quiet;          /* no lines about lost ranks */
    FILE *out;           /* those lines (rank 0) */
    volatile sig_atomic_t *stop;
    bf_search_fn search;
    void *ctx;
} bf_opts_t;

typedef struct bf_farm bf_farm_t;

/* The farm of this rank (MPI initialised by the caller).  Returns a status. */
int bf_open(bf_farm_t **f, const bf_opts_t *o, int rank, int ranks, char *err, size_t errcap);
void bf_close(bf_farm_t *f);

/* The game whose position strings carry the jobs between ranks: set on every rank
 * before its first bf_batch or bf_serve (other ranks learn it from the start words). */
void bf_set_game(bf_farm_t *f, const gk_game_t *g, int turn_limit);

/* Rank 0: tells every rank the start words hdr[0..4) (its own status, the rules; a
 * status other than 0 ends the run: then the messages are waited for, at most
 * BF_STOP_WAIT seconds).  Other ranks: waits for them, for as long as rank 0 takes to load
 * the book (until *stop, then GK_E_STOPPED). */
int bf_start0(bf_farm_t *f, const int64_t hdr[4], char *err, size_t errcap);
int bf_wait_start(bf_farm_t *f, int64_t hdr[4], char *err, size_t errcap);
/* Every rank's "I can search" (bad != 0: I cannot).  Rank 0 (bf_ready) waits for every
 * rank's, at most peer_seconds (a rank that does not answer is lost); *anybad tells
 * whether a rank could not. */
int bf_send_ready(bf_farm_t *f, int bad, char *err, size_t errcap);
int bf_ready(bf_farm_t *f, int bad, int *anybad, char *err, size_t errcap);

/* Rank 0: runs the jobs of one batch (numbered `batch`, increasing) on every live rank
 * and writes job j's result to rows[j * BF_ROW ..].  Returns 0 when every job has its
 * result, or a status.  *stopping is set once a rank caught a stop signal (the batch is
 * finished all the same). */
int bf_batch(bf_farm_t *f, uint64_t batch, const bf_job_t *jobs, int njobs, int64_t *rows,
             bool *stopping, char *err, size_t errcap);
/* Rank 0: tells every live rank that the run ends with `code`; waits at most
 * BF_STOP_WAIT seconds for the messages to leave. */
int bf_end(bf_farm_t *f, int code, char *err, size_t errcap);
/* Other ranks: searches what rank 0 leases until it ends the run; *code is its code. */
int bf_serve(bf_farm_t *f, int *code, char *err, size_t errcap);

/* No MPI_Finalize: a rank was lost, or a message could not be sent. */
bool bf_abandoned(const bf_farm_t *f);
/* Rank 0: ranks given up as lost so far. */
int bf_lost(const bf_farm_t *f);

#endif
