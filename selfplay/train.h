/*
 * selfplay/train.h -- the training loop: self-play -> tune -> gate -> promote, repeated,
 * resumable after a kill at any point, with an Elo ladder as its report.
 *
 * Contract
 * --------
 * Generation 0 is the start weights.  Generation g >= 1 runs four phases:
 *   1. SELFPLAY  `games` self-play games with the current best weights, on every MPI
 *                rank (selfplay/selfplay.h), logs in DIR/gen-GGG/logs;
 *   2. TUNE      tune_run() (eval/tune.h) from the best weights on the logs of the
 *                last `window` generations -> candidate DIR/gen-GGG/weights.txt (the
 *                policy too when asked, in the first policy_gens generations: refitting
 *                it every generation cost 12-44 Elo a time in a measured run);
 *   3. MATCH     candidate against the best, colour-swapped pairs (selfplay/match.h),
 *                `match_games` games or an SPRT; the candidate is PROMOTED when the SPRT
 *                accepts H1 with the 95% Elo interval above 0 (an SPRT may stop after
 *                one lopsided pair), or (no SPRT) when the lower end of the interval is
 *                above 0 (gate=interval) or its score is above 1/2 (gate=score);
 *   4. LADDER    a promoted candidate plays generation 0 (`ladder_games` games), which
 *                places it on the Elo ladder with an interval.
 * Phases 2-4 run on rank 0 with OpenMP threads (threads0: by default every rank's share,
 * at most the cores online); the other ranks wait in a barrier that polls every 50 ms
 * (MPI_Ibarrier + MPI_Test + sleep) instead of spinning, so they leave the cores to
 * rank 0.  With Open MPI, run `mpirun --bind-to none` so that rank 0 may use them.
 *
 * DIR holds everything: gen-GGG/ (logs, weights.txt, match.txt), state.txt, report.txt
 * and ladder.svg.  state.txt (docs/FORMATS.md, "Training state") is rewritten atomically
 * (temporary file, fsync, rename) after every phase; a rerun of the same command
 * continues from the last finished phase (a phase cut short is redone: self-play resumes
 * its own logs, tuning and matches are deterministic and start over).  Settings that
 * decide the games are fingerprinted in state.txt; resuming with other settings is
 * refused.  `generations` may grow between runs (continue a finished run).
 *
 * Library code: returns 0 or a negative gk_status_t (common/status.h) with a one-line
 * reason; prints progress to stdout on rank 0 only (unless quiet).  The code is in three
 * files: train.c (the loop), train_state.c (state.txt), train_report.c (report, plot).
 */
#ifndef GK_TRAIN_H
#define GK_TRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../eval/tune.h"
#include "../search/mcts.h"
#include "../view/view.h"
#include "elo.h"

#define TRAIN_MAX_GENERATIONS 999

enum { TRAIN_GATE_INTERVAL = 0, TRAIN_GATE_SCORE = 1 };

typedef struct train_opts {
    const char *dir;  /* run directory (created) */
    gk_rules_t rules; /* game, variant, turn limit */
    int generations;  /* run until this many generations are finished */
    int games;        /* self-play games per generation */
    int playouts;     /* per action, self-play and matches */
    /* The search of self-play and of the matches (threads: per game; seed: from the
     * run's): what differs from sp_settings_default()'s goes into both and into the
     * settings fingerprint.  Of the limits only nodes and early_stop are read (playouts
     * is the field above; budgets in time would make the games irreproducible). */
    mcts_params_t mcts;
    mcts_limits_t limits;
    int openings;    /* random opening turns, self-play and matches */
    int match_games; /* gating match games (even); the SPRT's cap with sprt */
    bool sprt;       /* gate by SPRT */
    elo_sprt_t sprt_params;
    int gate;         /* TRAIN_GATE_* when !sprt */
    int ladder_games; /* promoted vs generation 0; 0 = no ladder matches */
    int window;       /* generations of logs the tuner reads */
    const char *from; /* start weights file; NULL = the game's defaults */
    uint64_t seed;
    int threads;          /* OpenMP threads per rank in self-play (0 = OpenMP default) */
    int threads0;         /* rank 0 threads for tuning and matches (0 = ranks x threads,
                             at most the cores online) */
    tune_run_opts_t tune; /* target, loss, epochs, ... (logs, game: set by the loop) */
    int policy_gens;      /* with tune.data.policy: fit the policy in generations 1..N
                             only (0 = every generation) */
    /* How self-play games end early (sp_settings_t): resign -1 takes the game's default
     * (train_opts_default: on for Gobs), 0 off, 1 on at resign_value with resign_share
     * of the games played out; adj_turn -1 the game's default, 0 off, else T,K,M. */
    int resign;
    float resign_value, resign_share;
    int adj_turn, adj_lead, adj_span;
    bool quiet;
    volatile sig_atomic_t *stop; /* set by the caller's SIGTERM/SIGINT handler; may be NULL */
    /* Out, may be NULL: set when self-play lost a rank (sp_summary_t.mpi_abandoned).  The
     * loop then calls no MPI function again (a collective would wait for the lost rank for
     * ever) and train_run fails; the caller must skip MPI_Finalize and end the process. */
    bool *mpi_abandoned;
} train_opts_t;

void train_opts_default(train_opts_t *o);
/* Gobs self-play in training resigns at -0.95 with 10% played out; adjudication is off
 * by default for every game: a piece lead did not predict the winner of Gobs games
 * (docs/RULES.md, "Adjudication"). */
/* Settles o->resign and o->adj_turn left at -1 by o->rules.game. */
void train_opts_endings(train_opts_t *o);

/* Everything known about one generation (state.txt keeps these). */
typedef struct train_gen {
    int phases;      /* TRAIN_PH_* bits of the finished phases */
    int best_before; /* generation whose weights played the self-play */
    int best_after;  /* the best generation once this one is decided */
    int promoted;
    uint64_t games;     /* self-play games played, and their wall time (a resumed */
    double selfplay_s;  /* phase counts only what the resumed run played) */
    uint64_t positions; /* tuner training positions */
    double k, train_before, train_after, val_before, val_after, tune_s;
    uint64_t mw, md, ml; /* gating match, for the candidate */
    double elo, elo_lo, elo_hi, match_s;
    int ladder; /* ladder match played */
    uint64_t lw, ld, ll;
    double lelo, lelo_lo, lelo_hi;
} train_gen_t;

enum {
    TRAIN_PH_SELFPLAY = 1,
    TRAIN_PH_TUNE = 2,
    TRAIN_PH_MATCH = 4,
    TRAIN_PH_LADDER = 8,
    TRAIN_PH_ALL = 15
};

#define TRAIN_SETTINGS_MAX 1024

typedef struct train_state {
    uint64_t fingerprint; /* of the settings that decide the games */
    /* The settings text fingerprinted, so that a refused resume can name the setting that
     * differs; "" in the state files of older runs. */
    char settings[TRAIN_SETTINGS_MAX];
    int ngen; /* records gen[0 .. ngen-1]; gen[0] is the start */
    train_gen_t gen[TRAIN_MAX_GENERATIONS + 1];
} train_state_t;

/* Runs (or resumes) the loop.  Call on every rank of MPI_COMM_WORLD (MPI initialised,
 * thread level at least MPI_THREAD_FUNNELED) with the same options.  Returns 0 when
 * `generations` generations are finished, a negative code with a reason in err otherwise
 * (every rank fails alike; rank 0 has the reason). */
int train_run(const train_opts_t *o, char *err, size_t errcap);

/* State file text and parsing (for tests and fuzzing; see docs/FORMATS.md).  format
 * returns the length, or -1 when cap is too small; parse's reasons start "line N: " where
 * a line is at fault (GK_E_FORMAT, GK_E_CHECKSUM, GK_E_VERSION). */
long train_state_format(const train_state_t *s, char *buf, size_t cap);
int train_state_parse(const char *text, size_t len, train_state_t *s, char *err, size_t errcap);
/* DIR/state.txt: saved atomically (gk_write_atomic); loaded and parsed, with reasons that
 * name the file (GK_E_IO with errno ENOENT when there is none: a new run). */
int train_state_save(const char *dir, const train_state_t *s, char *err, size_t errcap);
int train_state_load(const char *dir, train_state_t *s, char *err, size_t errcap);

/* The numbers of the training page (view/view.h) of generations 0 .. s->ngen - 1 into
 * gen (no sample games). */
void train_view_gens(const train_state_t *s, view_train_gen_t *gen);

/* Writes DIR/report.txt, DIR/ladder.svg (view_train_svg) and the page DIR/report.html
 * (view_train_write, with a few sample games of each generation's self-play as pages under
 * DIR/games/) from the state; also prints the report table to out when out is not NULL.  Returns 0
 * or a negative code with a reason. */
int train_report(const char *dir, const train_state_t *s, FILE *out, char *err, size_t errcap);

#endif
