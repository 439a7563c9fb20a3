/*
 * eval/tune.h -- the tuner core: fits evaluation (value) and move-prior (policy) weights
 * to training samples by mini-batch Adam.
 *
 * Contract
 * --------
 * The core knows nothing about games or log files: it sees samples.
 * - A VALUE sample is a sparse feature vector f (the evaluation's trace from the side to
 *   move's view), a target t in [0,1] (the side to move's expected score), a position hash
 *   and a game key.  The model is p = sigmoid(K * w.f): the evaluation's win probability.
 * - A POLICY sample is a list of candidate actions, each a sparse feature vector g_a, with
 *   target probabilities t_a summing to 1 (the search's visit distribution).  The model is
 *   prior_a = softmax_a(v.g_a / T), T the policy temperature the evaluation uses.
 * - Losses: cross-entropy (TUNE_XENT) or Texel squared error (TUNE_MSE) for the value;
 *   cross-entropy for the policy.  L2 pulls each weight toward its START value (the --from
 *   file), so a feature the samples rarely exercise keeps what it had instead of decaying
 *   to zero.
 * - The learning rate is in logit units: the step on w is lr / K times the Adam
 *   direction, so one --lr serves any weight scale (K is fitted first).
 * - Determinism: every sum over samples is cut into TUNE_CHUNKS fixed contiguous chunks,
 *   each summed on its own and the chunk sums added in chunk order.  Results are
 *   therefore identical, bit for bit, for a given seed whatever the thread count.
 * - Functions return 0 or a negative gk_status_t (common/status.h); nothing here prints or
 *   exits.
 */
#ifndef GK_TUNE_H
#define GK_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"
#include "eval.h"

enum { TUNE_XENT = 0, TUNE_MSE = 1 };

/* Fixed partition of every sum; see the determinism note above. */
#define TUNE_CHUNKS 64

/* Sparse rows: row i's entries are idx/val[off[i] .. off[i+1]). */
typedef struct tune_rows {
    size_t n, cap; /* rows */
    size_t *off;   /* n + 1 offsets */
    uint16_t *idx; /* feature numbers */
    float *val;    /* feature values (never 0) */
    size_t nnz, nnz_cap;
} tune_rows_t;

typedef struct tune_vset {
    int nfeat;
    tune_rows_t rows;
    float *target;  /* per sample, in [0,1] */
    uint64_t *hash; /* per sample: position hash, for dropping duplicates */
    uint64_t *game; /* per sample: game key, for the validation split */
    size_t cap;     /* room in target/hash/game */
} tune_vset_t;

typedef struct tune_pset {
    int nfeat;
    size_t n, cap;    /* samples (positions) */
    size_t *cand_off; /* n + 1 offsets into the candidate rows */
    tune_rows_t cand; /* one row per candidate action */
    float *ctarget;   /* per candidate: target probability */
    uint64_t *game;   /* per sample: game key */
    size_t ccap;      /* room in ctarget */
} tune_pset_t;

void tune_vset_init(tune_vset_t *s, int nfeat);
void tune_vset_free(tune_vset_t *s);
/* Appends a sample from a dense feature vector f[nfeat] (zeros are not stored). */
int tune_vset_add(tune_vset_t *s, const float *f, float target, uint64_t hash, uint64_t game);
/* Appends every sample of src (same nfeat). */
int tune_vset_append(tune_vset_t *dst, const tune_vset_t *src);
/* Keeps one sample per hash (the first one seen, in sample order) with the mean of the
 * targets of all samples of that hash.  Returns the number dropped (>= 0) or an error. */
long tune_vset_dedupe(tune_vset_t *s);
/* Sends each game wholly to train or to val: val when a hash of (seed, game key) falls
 * below frac.  train and val are initialised here; s is left unchanged. */
int tune_vset_split(const tune_vset_t *s, double frac, uint64_t seed, tune_vset_t *train,
                    tune_vset_t *val);

void tune_pset_init(tune_pset_t *s, int nfeat);
void tune_pset_free(tune_pset_t *s);
/* Appends a sample of m candidates: dense features g[m * nfeat], targets t[m] (summing to
 * 1; they are renormalised). */
int tune_pset_add(tune_pset_t *s, int m, const float *g, const float *t, uint64_t game);
int tune_pset_append(tune_pset_t *dst, const tune_pset_t *src);
int tune_pset_split(const tune_pset_t *s, double frac, uint64_t seed, tune_pset_t *train,
                    tune_pset_t *val);

typedef struct tune_opts {
    int loss;           /* TUNE_XENT or TUNE_MSE (value only) */
    int epochs;         /* at most this many passes */
    int batch;          /* samples per Adam step */
    double lr;          /* logit units (see above) */
    double l2;          /* penalty l2 * sum (w - w_start)^2, per sample */
    int patience;       /* stop after this many epochs without a better validation loss */
    int threads;        /* OpenMP threads; 0 = the OpenMP default */
    uint64_t seed;      /* shuffling */
    double temperature; /* policy softmax temperature (policy fits only) */
    /* Called after each epoch when not NULL (loss of the current weights). */
    void (*progress)(void *ctx, int epoch, double train_loss, double val_loss, double secs);
    void *ctx;
} tune_opts_t;

void tune_opts_default(tune_opts_t *o);

typedef struct tune_report {
    double k;                        /* scale used (value fits) */
    double train_before, val_before; /* losses of the start weights (val: NaN if no val set) */
    double train_after, val_after;   /* losses of the returned weights */
    int epochs_run, best_epoch;      /* best_epoch 0 = the start weights were best */
    double secs;                     /* wall time of the epochs */
    double samples_per_sec;          /* gradient throughput over all epochs */
} tune_report_t;

/* Mean loss of weights w at scale k over s (value). */
double tune_value_loss(const tune_vset_t *s, const double *w, double k, int loss, int threads);
/* The scale k > 0 minimising the loss of w over s (golden-section search on log k);
 * `fallback` when every sample evaluates to 0 and the loss cannot tell. */
double tune_fit_k(const tune_vset_t *s, const double *w, int loss, int threads, double fallback);
/* Fits w (in place, starting from its values) with k fixed.  Early stopping uses val
 * when it has samples, else the training loss; w ends as the best weights seen. */
int tune_fit_value(const tune_vset_t *train, const tune_vset_t *val, double *w, double k,
                   const tune_opts_t *o, tune_report_t *rep);

/* Mean cross-entropy of policy weights v over s. */
double tune_policy_loss(const tune_pset_t *s, const double *v, double temperature, int threads);
int tune_fit_policy(const tune_pset_t *train, const tune_pset_t *val, double *v,
                    const tune_opts_t *o, tune_report_t *rep);

/* The core functions above return a code without a reason: what it means, as a phrase
 * ("out of memory", "no training samples", ...), for the reasons of their callers. */
const char *tune_strerror(int code);

/* ---------------------------------------------------------------------------------
 * Samples from self-play logs (eval/tune_data.c).
 *
 * Each game of each log directory (or shard file) is replayed from its start position
 * with gk_play(); the position before every SEARCHED action becomes a sample (random,
 * book and forced actions are skipped: the opening turns are random by design and a
 * forced action has no search statistics).  Targets, from the side to move's view:
 *   result   the game's score: 1 win, 1/2 draw, 0 loss
 *   value    the search's root value, mapped from [-1, 1] to [0, 1]
 *   mix      mix * result + (1 - mix) * value
 * Policy samples (when asked) are the same positions with at least two legal actions:
 * candidates are all legal actions with ev_policy_trace() features, targets are the
 * stored visit counts (children not among the stored top ones get 0).
 * Game keys are (source number << 48) ^ game index, so games of different sources never
 * share a key.  Games are read by `threads` OpenMP threads, each a contiguous range of
 * games in (source, index) order, and the per-thread sets are appended in that order:
 * the samples come out in the same order whatever the thread count.
 * Errors (one line in err): a source that is not a log, holds no games, holds games of
 * another game, or has a corrupt shard (a torn tail, left by a killed writer, is not an
 * error: the sound frames before it are used and the shard is counted in torn_shards).
 * --------------------------------------------------------------------------------- */

enum { TUNE_TARGET_RESULT = 0, TUNE_TARGET_VALUE = 1, TUNE_TARGET_MIX = 2 };

typedef struct tune_data_opts {
    int game;    /* GK_GAME_* every game of the logs must be */
    int target;  /* TUNE_TARGET_* */
    double mix;  /* weight of the result in TUNE_TARGET_MIX, in [0, 1] */
    int policy;  /* also build policy samples */
    int threads; /* 0 = the OpenMP default */
    /* When not NULL, called by one thread after each of its games while the logs are
     * replayed (progress lines; it rate-limits itself): games replayed so far, of total;
     * and once with done == total when every thread is done. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} tune_data_opts_t;

typedef struct tune_data_stats {
    uint64_t games;              /* games read */
    uint64_t duplicate_games;    /* same game index twice in one source: later copies skipped */
    uint64_t actions;            /* actions replayed */
    uint64_t positions;          /* value samples made */
    uint64_t policy_positions;   /* policy samples made */
    uint64_t skipped_opening;    /* random / book actions */
    uint64_t skipped_unsearched; /* forced actions, or searched without statistics */
    int torn_shards;
    int threads;
    double secs;         /* wall time of the whole load */
    double trace_secs;   /* thread-seconds spent in ev_trace() */
    double ptrace_secs;  /* thread-seconds spent in ev_policy_trace() */
    uint64_t candidates; /* actions traced for the policy samples */
} tune_data_stats_t;

/* Loads samples from npaths log directories or shard files into v (and p when
 * o->policy; p may be NULL otherwise).  v and p must be initialised with the game's
 * feature counts; samples are appended.  Reasons name the directory, shard and game. */
int tune_data_load(const char *const *paths, int npaths, const tune_data_opts_t *o, tune_vset_t *v,
                   tune_pset_t *p, tune_data_stats_t *st, char *err, size_t errcap);

/* ---------------------------------------------------------------------------------
 * The whole job of `gounki tune` (eval/tune_run.c), shared with the training loop:
 * load the logs, split by game, drop duplicates in each part, refuse too few positions,
 * fit the scale K (value) with the start weights, fit the value weights, optionally the
 * policy weights, and return the new weights with everything measured.  The weights
 * are written at the start file's scale (value * K / scale_start), so they keep its
 * units whatever K the fit found.
 * --------------------------------------------------------------------------------- */

typedef struct tune_run_opts {
    const char *const *logs;
    int nlogs;
    tune_data_opts_t data;     /* game, target, mix, policy, threads */
    tune_opts_t fit;           /* loss, epochs, batch, lr, l2, patience, threads, seed */
    double val_frac;           /* share of games held out for validation */
    int fit_k;                 /* fit the scale first (else keep the start file's scale) */
    long min_positions;        /* fewer training positions than this is an error */
    double policy_temperature; /* the search's prior temperature */
} tune_run_opts_t;

void tune_run_opts_default(tune_run_opts_t *o);

typedef struct tune_run_report {
    tune_data_stats_t data;
    size_t train_n, val_n;         /* value samples after dropping duplicates */
    long dropped;                  /* duplicates dropped */
    size_t ptrain_n, pval_n;       /* policy samples */
    double k_start, k;             /* scale of the start weights, scale used */
    double train_start, val_start; /* losses of the start weights as loaded (scale k_start) */
    tune_report_t value;           /* at scale k: before = start weights, after = result */
    int did_policy;
    tune_report_t policy;
    float mean_abs_f[EV_MAX_FEATURES]; /* mean |feature| over the training samples */
} tune_run_report_t;

/* Returns 0 and fills out (a copy of from with new weights and scale), or a negative
 * gk_status_t with a one-line reason in err. */
int tune_run(const tune_run_opts_t *o, const ev_weights_t *from, ev_weights_t *out,
             tune_run_report_t *rep, char *err, size_t errcap);

/* One-line provenance text for the tuned weights (logs, positions, losses, date,
 * engine version), at most cap bytes. */
void tune_provenance(const tune_run_opts_t *o, const tune_run_report_t *rep, char *buf, size_t cap);

#endif
