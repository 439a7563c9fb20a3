/*
 * eval/features.h -- private to eval/: the table each game's feature file fills.
 *
 * A game's features live in eval/features_<game>.c and are reached only through
 * eval/eval.h.  The policy is split in two stages so that the search, which scores
 * every legal action of a node at once, pays for the position-wide work (attack maps,
 * ...) once: prep() fills a context from the position, move() scores one action given
 * the position it leads to (already played by the caller).
 */
#ifndef GK_EV_FEATURES_H
#define GK_EV_FEATURES_H

#include "eval.h"

/* Scratch space for a game's policy context; each game checks that its struct fits. */
typedef struct ev_pctx {
    _Alignas(8) unsigned char bytes[1024];
} ev_pctx_t;

typedef struct ev_default {
    const char *name;
    float value;
} ev_default_t;

typedef struct ev_game_features {
    int nvalue;
    const char *const *value_names;
    int npolicy;
    const char *const *policy_names;
    int (*trace)(const gk_pos_t *p, float *f);
    void (*policy_prep)(const gk_pos_t *p, ev_pctx_t *ctx);
    /* Writes the features of action a at p, where child = p after a. */
    void (*policy_move)(const gk_pos_t *p, const ev_pctx_t *ctx, gk_action_t a,
                        const gk_pos_t *child, float *f);
    float default_scale;
    const ev_default_t *defaults; /* terminated by a NULL name */
} ev_game_features_t;

extern const ev_game_features_t ev_gounki_features;
extern const ev_game_features_t ev_gobs_features;

/* The table of game g, or NULL. */
const ev_game_features_t *ev_features_of(int game);

#endif
