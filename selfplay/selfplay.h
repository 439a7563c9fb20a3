/*
 * selfplay/selfplay.h -- self-play: the per-game driver and the MPI run that writes logs.
 *
 * Contract
 * --------
 * THE GAME.  sp_play_game(s, index) plays game `index` of a run and fills a log record
 * (data/gamelog.h).  It is a pure function of (s->seed, index, the settings): the game's
 * seed is sp_game_seed(s->seed, index), the search is made afresh for the game and
 * seeded from it, and nothing is carried over from an earlier game, so the same games
 * come out whatever the number of ranks, threads or the order of play -- provided the
 * search is deterministic: a playout budget (not --time) and one search thread per game
 * (mcts.h).  A turn is a sequence of actions (games/game.h); decisions are per action.
 *   1. Opening: the first open_turns TURNS are random (uniform over the legal actions,
 *      or drawn from the evaluation's priors), avoiding actions that end the game, or
 *      are the turns of a book line chosen by the game's seed.  No search is run.
 *   2. Then every action with more than one legal choice is searched (MCTS, tree kept
 *      from move to move); the action is drawn with the temperature from the root visits
 *      while fewer than temp_turns turns have been played, then the most visited.
 *      A single legal action is played without search (GL_ACTION_FORCED).
 *   3. Resignation (when on): a player resigns when its root value (in [-1, 1]) is below
 *      resign_value at two of its decisions in a row.  A share resign_share of the games
 *      (chosen by the game's seed) never resign: they record where the first
 *      resignation would have happened, to measure false resignations (log stats).
 *   3b. Adjudication (when on, Gobs only): see sp_settings_t.adj_turn.
 *   4. Actions are played through gk_play_turn() (games/game.h), the one rule set by which
 *      logs are written and replayed; the repetition draw counts the game's history.
 * Root statistics per searched action: visits, value mapped to [-1, 1] (2p - 1 of the
 * search's win probability), and the `top` most visited children.
 *
 * THE RUN.  sp_run() is one rank of `gounki selfplay` (MPI_COMM_WORLD, which the caller
 * initialises (MPI_THREAD_FUNNELED) before and finalises after, unless mpi_abandoned; a
 * single process without mpirun works too).  Rank 0 owns
 * DIR/manifest.gkm, scans the shards, and leases the missing game indices in small
 * batches, in increasing order, to every rank including itself; each rank plays
 * `games_at_once` games on OpenMP threads and appends finished games to its own shard
 * DIR/shard-RRRRR.gkz in frames of complete games.  A rerun on the same DIR resumes:
 * finished games are kept, torn tails cut, the missing games played, and the run ends
 * with games 0..N-1 present exactly once.  The settings text (sp_settings_text) must
 * match the manifest's, else the run is refused.  A rank writes a game only when rank 0
 * said to keep it (the first report of a leased game), so a game leased twice is written
 * once.  When *stop becomes non-zero (a signal handler of the caller), ranks abandon the
 * games in progress, write the finished ones and return within about a second plus one
 * search, or SP_STOP_WAIT seconds more when a rank cannot be reached.
 * Only rank 0 prints progress (at most once a second) and the summary.
 */
#ifndef GK_SELFPLAY_H
#define GK_SELFPLAY_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../data/book.h"
#include "../data/gamelog.h"
#include "../data/openings.h"
#include "../eval/eval.h"
#include "../games/game.h"
#include "../search/mcts.h"

#define SP_WALK_MAX 512 /* most actions of a walk of an opening book */

typedef struct sp_settings {
    gk_rules_t rules;
    uint64_t seed; /* run seed */
    ev_weights_t weights;
    mcts_params_t mcts;     /* threads = threads per game; seed is set per game */
    mcts_limits_t limits;   /* playouts or time_s per decision */
    int open_kind;          /* GL_OPEN_NONE / _RANDOM / _POLICY (by the priors) / _BOOK */
    int open_turns;         /* opening turns (random) */
    const ol_lines_t *book; /* GL_OPEN_BOOK: opening lines (data/openings.h) ... */
    const bk_book_t *dag;   /* GL_OPEN_BOOK: ... or an opening book walked from the start ... */
    double dag_temp;        /* ... by a softmax over its values at this temperature */
    float temperature;      /* > 0: sample early actions by visits^(1/T) */
    int temp_turns;         /* ... while fewer turns than this have been played */
    bool resign_on;
    float resign_value; /* in [-1, 1] */
    float resign_share; /* in [0, 1]: games that never resign */
    int top;            /* children kept per decision, 1..GL_MAX_TOP */
    /* Adjudication of long Gobs games (docs/RULES.md, "Adjudication"; Gobs only): from
     * turn adj_turn on (0 = off), a side ahead by adj_lead pieces or more at adj_span
     * turn ends in a row wins (GK_REASON_ADJUDICATED). */
    int adj_turn, adj_lead, adj_span;
} sp_settings_t;

/* Defaults: Gounki standard, 800 playouts, random:4 openings, temperature 1 for 10
 * turns, no resignation, top 16, the shipped weights of the game. */
void sp_settings_default(sp_settings_t *s, int game);
/* Canonical text of every setting that decides the games (not the game count, ranks or
 * threads): what the manifest stores and compares on resume. */
int sp_settings_text(const sp_settings_t *s, char *buf, size_t cap);
/* The game's seed: a mix of the run seed and the index. */
uint64_t sp_game_seed(uint64_t run_seed, uint64_t index);

enum { SP_DONE = 0, SP_ABANDONED = 1 };

/* Plays game `index` into g (replaced).  Returns SP_DONE, SP_ABANDONED when *stop was
 * seen set between two decisions (g then holds nothing useful), or a negative
 * gk_status_t (common/status.h) with a reason. */
int sp_play_game(const sp_settings_t *s, uint64_t index, gl_game_t *g, const atomic_int *stop,
                 char *err, size_t errcap);

/* Defaults of the run options left at zero. */
#define SP_FRAME_GAMES   64
#define SP_FRAME_SECONDS 5.0 /* bounds what a kill loses to seconds of play per rank */
#define SP_ZSTD_LEVEL    9
/* Leases (THE RUN above).  A leased game not reported within the lease deadline is
 * leased again to another rank; the first report of a game wins, a later one is dropped
 * (so a game is written once, by one rank).  The deadline is lease_seconds when given,
 * else SP_LEASE_FACTOR x the slowest game reported so far, at least SP_LEASE_SECONDS
 * (none before the first report: the first games of a slow game may take minutes).  A
 * rank not heard from for peer_seconds (SP_PEER_SECONDS; ranks send a sign of life every
 * second) is lost: its leases are leased again at once and it is not waited for.  After a
 * stop a rank that has not ended within SP_STOP_WAIT seconds is lost too. */
#define SP_LEASE_SECONDS 60.0
#define SP_LEASE_FACTOR  4.0
#define SP_PEER_SECONDS  10.0
#define SP_STOP_WAIT     3.0

/* Options of one run; zero fields take the defaults above (games_at_once: 1). */
typedef struct sp_run_opts {
    sp_settings_t set;
    uint64_t games; /* N */
    const char *dir;
    int games_at_once; /* per rank: worker threads */
    int lease;         /* most games per lease (default: adaptive, at most 4) */
    bool quiet;
    bool repair;                 /* cut corrupt shards at their first bad frame */
    int level;                   /* zstd level (0: default 9) */
    int code;                    /* GL_CODE_* */
    bool stats;                  /* keep per-action statistics in the log */
    uint32_t frame_games;        /* flush a frame at this many games ... */
    double frame_seconds;        /* ... or when its oldest game waited this long */
    double lease_seconds;        /* > 0: the lease deadline (default: from game times) */
    double peer_seconds;         /* a rank silent this long is lost (SP_PEER_SECONDS) */
    volatile sig_atomic_t *stop; /* set by the caller's SIGTERM/SIGINT handler */
    FILE *out;                   /* progress and summary (rank 0), normally stderr */
} sp_run_opts_t;

typedef struct sp_summary {
    int rank, ranks;
    uint64_t games_total;     /* N */
    uint64_t games_before;    /* found in DIR at the start */
    uint64_t games_played;    /* finished and written by this run, all ranks */
    uint64_t games_abandoned; /* started and given up because of a stop */
    uint64_t games_dropped;   /* played again after a lease ran out, and not kept */
    uint64_t games_released;  /* leases that ran out or were lost and were leased again */
    int ranks_lost;           /* ranks given up as unreachable (rank 0's count) */
    uint64_t actions;         /* actions of the games played */
    uint64_t white, draws, black;
    double seconds;
    bool stopped;  /* ended by *stop before all N were done */
    bool complete; /* DIR holds games 0..N-1 */
    /* Set on any rank when a rank was lost or MPI failed: the caller must not call
     * MPI_Finalize (it would wait for the lost rank for ever), nor any MPI function, and
     * should end the process soon.  Every game this rank kept is on disk. */
    bool mpi_abandoned;
} sp_summary_t;

/* Runs this rank's share.  Returns 0, or a negative gk_status_t with a reason in err (also
 * when rank 0 cannot be reached: after writing this rank's games).  The
 * reason of a failure seen by every rank alike (bad settings, a refused resume) is given
 * by rank 0 only; other ranks return GK_E_INVALID with err empty.  *sum is filled on
 * rank 0. */
int sp_run(const sp_run_opts_t *o, sp_summary_t *sum, char *err, size_t errcap);

/* The same games without MPI and without logs (the baseline for the overhead of both):
 * games first .. first+n-1 on `threads` OpenMP threads.  Returns 0 or a negative code with a
 * reason. */
int sp_bench(const sp_settings_t *s, uint64_t first, uint64_t n, int threads, sp_summary_t *sum,
             char *err, size_t errcap);

#endif
