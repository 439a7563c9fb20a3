/*
 * eval/eval.h -- evaluation and move priors with tunable weights, for every game.
 *
 * Contract
 * --------
 * VALUE.  A position is turned into a vector of named features (the "trace"), always
 * from the point of view of the SIDE TO MOVE (p->stm; a Gobs position in the middle of
 * a turn is seen by the player still moving).  Most features are "own minus opponent"
 * differences, so the same weights serve both colours.  The evaluation is
 *     logit = scale * dot(value_weights, trace)          (Texel / Ethereal style)
 *     ev_value = sigmoid(logit)  = win probability for the side to move, in [0, 1].
 * ev_sigmoid() clamps the logit to [-15, 15], so an unfinished position never evaluates
 * to exactly 0 or 1 (a tuner's log-loss stays finite).
 * `scale` is a field of ev_weights_t stored in the weight file: weights are written in
 * readable "points" (a single Gounki piece is about 100) and scale turns points into a
 * logit.  A tuner may fit scale first (K in Texel tuning) and then hold it fixed.
 * Finished positions (p->result != GK_ONGOING) evaluate exactly: 1, 0 or 0.5.
 *
 * POLICY.  An action a at position p is turned into a vector of named move features
 * (captures, exits, stacking, deployment, advancing, moving into danger, ...), again
 * from the mover's point of view.  Priors over the legal actions are the softmax of
 * dot(policy_weights, move_features) / temperature.
 *
 * Both traces are cheap, allocation-free, reentrant and thread-safe after gk_init();
 * the tuner may call them alone.  Feature counts and names per game are fixed by the
 * code; the names are the contract of the weight files (loaded by name).
 *
 * WEIGHT FILES (docs/FORMATS.md, "Evaluation weights"): a text file
 *     gkweights 1                   magic and format version
 *     game gounki                   game name
 *     scale 0.0125                  logit per point
 *     provenance free text          optional, one line
 *     NAME VALUE                    one per line, value and policy features mixed
 *     checksum 0123456789abcdef     FNV-1a 64 of every byte before this line
 * `#` starts a comment (to the end of the line).  Missing names load as 0 (an older
 * file with fewer features still loads); an unknown name, a duplicate name, a wrong
 * game or version, a bad number or a checksum mismatch is an error.  The checksum line
 * is written by ev_weights_save(); a hand-written file may omit it (then nothing is
 * verified), but when present it must be the last non-blank line and must match.
 */
#ifndef GK_EVAL_H
#define GK_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "../games/game.h"

#define EV_MAX_FEATURES   160 /* upper bound on ev_num_features(), any game */
#define EV_MAX_POLICY     32  /* upper bound on ev_policy_num_features(), any game */
#define EV_PROVENANCE_MAX 256
#define EV_FORMAT_VERSION 1

typedef struct ev_weights {
    int game;    /* GK_GAME_* */
    int nvalue;  /* == ev_num_features(game) */
    int npolicy; /* == ev_policy_num_features(game) */
    float scale; /* logit = scale * dot(value, trace) */
    float value[EV_MAX_FEATURES];
    float policy[EV_MAX_POLICY];
    char provenance[EV_PROVENANCE_MAX]; /* NUL-terminated, one line */
} ev_weights_t;

/* ---- value features ---- */

/* Number of value features of game g (0 for an unknown game). */
int ev_num_features(int game);
/* Name of value feature i of game g, or NULL when out of range. */
const char *ev_feature_name(int game, int i);
/* Index of the value feature called name in game g, or -1. */
int ev_feature_index(int game, const char *name);
/* Writes the ev_num_features(p->game) features of p into f (room for EV_MAX_FEATURES)
 * and returns their number. */
int ev_trace(const gk_pos_t *p, float *f);

/* scale * dot(w->value, trace(p)); exact +-EV_LOGIT_WIN / 0 for finished positions. */
#define EV_LOGIT_WIN 20.0f
float ev_logit(const ev_weights_t *w, const gk_pos_t *p);
/* Win probability of the side to move: sigmoid(ev_logit(w, p)); 1, 0, 0.5 when over. */
float ev_value(const ev_weights_t *w, const gk_pos_t *p);
float ev_sigmoid(float x);

/* ---- policy (move priors) ---- */

int ev_policy_num_features(int game);
const char *ev_policy_feature_name(int game, int i);
int ev_policy_feature_index(int game, const char *name);
/* Writes the move features of legal action a at p into f (room for EV_MAX_POLICY) and
 * returns their number. */
int ev_policy_trace(const gk_pos_t *p, gk_action_t a, float *f);

/* What playing an action leads to, from the mover's point of view (repetition, which
 * needs history, is not included). */
enum { EV_CHILD_ONGOING = 0, EV_CHILD_WIN = 1, EV_CHILD_LOSS = 2, EV_CHILD_DRAW = 3 };

/* Priors of the n legal actions acts[] at p: softmax(dot(w->policy, f(a)) / temperature),
 * written into priors[] (they sum to 1).  temperature <= 0 is taken as 1. */
void ev_policy_priors(const ev_weights_t *w, const gk_pos_t *p, const gk_action_t *acts, int n,
                      float temperature, float *priors);
/* The same work as ev_policy_priors() without the softmax, plus what each action leads
 * to: logits[i] = dot(w->policy, f(acts[i])), outcome[i] = EV_CHILD_* (outcome may be
 * NULL).  Used by the search, which needs both and pays for one play() per action. */
void ev_policy_logits(const ev_weights_t *w, const gk_pos_t *p, const gk_action_t *acts, int n,
                      float *logits, uint8_t *outcome);
/* In-place softmax of x[0..n-1] / temperature (temperature <= 0 is taken as 1). */
void ev_softmax(float *x, int n, float temperature);

/* ---- weights ---- */

/* The hand-set defaults of game g shipped with the program (the same numbers as
 * weights/<game>-default.txt).  Returns 0, or -1 for an unknown game. */
int ev_weights_default(int game, ev_weights_t *w);
/* All-zero weights of game g with scale 1 (a blank slate for tuners).  Returns 0 or -1. */
int ev_weights_zero(int game, ev_weights_t *w);
/* Loads a weight file for game g (see the format above) into w.  Returns 0, or -1 with
 * a one-line reason ("FILE:LINE: what") in err; w is unspecified on failure. */
int ev_weights_load(const char *path, int game, ev_weights_t *w, char *err, size_t errcap);
/* The same, from a text held in memory (for fuzzing and tests); name is used in errors. */
int ev_weights_parse(const char *text, size_t len, const char *name, int game, ev_weights_t *w,
                     char *err, size_t errcap);
/* Writes w to path atomically (PATH.tmp.PID, then rename), with a checksum line.
 * provenance (may be NULL: keep w->provenance) is one line of free text saying where
 * the numbers come from.  Returns 0, or -1 with a reason in err. */
int ev_weights_save(const char *path, const ev_weights_t *w, const char *provenance, char *err,
                    size_t errcap);
/* The file text ev_weights_save() would write, into buf; returns its length, or -1 when
 * cap is too small. */
long ev_weights_format(const ev_weights_t *w, char *buf, size_t cap);
/* 64-bit FNV-1a of the game, the scale and every weight's bits (not the provenance):
 * equal hashes mean the same evaluation, for logs. */
uint64_t ev_weights_hash(const ev_weights_t *w);

#endif
