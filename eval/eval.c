/* eval/eval.c -- the game-independent half of eval.h: dispatch, value, priors. */
#include "eval.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "features.h"

const ev_game_features_t *ev_features_of(int game) {
    switch (game) {
    case GK_GAME_GOUNKI: return &ev_gounki_features;
    case GK_GAME_GOBS: return &ev_gobs_features;
    default: return NULL;
    }
}

int ev_num_features(int game) {
    const ev_game_features_t *g = ev_features_of(game);
    return g ? g->nvalue : 0;
}

const char *ev_feature_name(int game, int i) {
    const ev_game_features_t *g = ev_features_of(game);
    return g && i >= 0 && i < g->nvalue ? g->value_names[i] : NULL;
}

int ev_feature_index(int game, const char *name) {
    const ev_game_features_t *g = ev_features_of(game);
    for (int i = 0; g && name && i < g->nvalue; i++)
        if (!strcmp(g->value_names[i], name)) return i;
    return -1;
}

int ev_policy_num_features(int game) {
    const ev_game_features_t *g = ev_features_of(game);
    return g ? g->npolicy : 0;
}

const char *ev_policy_feature_name(int game, int i) {
    const ev_game_features_t *g = ev_features_of(game);
    return g && i >= 0 && i < g->npolicy ? g->policy_names[i] : NULL;
}

int ev_policy_feature_index(int game, const char *name) {
    const ev_game_features_t *g = ev_features_of(game);
    for (int i = 0; g && name && i < g->npolicy; i++)
        if (!strcmp(g->policy_names[i], name)) return i;
    return -1;
}

int ev_trace(const gk_pos_t *p, float *f) {
    const ev_game_features_t *g = ev_features_of(p->game);
    if (!g) return 0;
    int n = g->trace(p, f);
    assert(n == g->nvalue && n <= EV_MAX_FEATURES);
    return n;
}

float ev_sigmoid(float x) {
    /* Clamped so that the result stays strictly inside (0, 1) in float (1 - 3e-7 at
     * most): only finished positions evaluate to exactly 0 or 1, and log-loss stays
     * finite for the tuner. */
    if (x > 15.0f) x = 15.0f;
    if (x < -15.0f) x = -15.0f;
    return 1.0f / (1.0f + expf(-x));
}

static float terminal_logit(const gk_pos_t *p) {
    int r = gk_result_for(p, p->stm);
    return r > 0 ? EV_LOGIT_WIN : r < 0 ? -EV_LOGIT_WIN : 0.0f;
}

float ev_logit(const ev_weights_t *w, const gk_pos_t *p) {
    if (gk_over(p)) return terminal_logit(p);
    float f[EV_MAX_FEATURES];
    int n = ev_trace(p, f);
    /* Weights of another game, or with another feature count, are a caller's bug. */
    assert(w->game == p->game && w->nvalue == n);
    if (n > w->nvalue) n = w->nvalue;
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += w->value[i] * f[i];
    return w->scale * s;
}

float ev_value(const ev_weights_t *w, const gk_pos_t *p) {
    if (gk_over(p)) {
        int r = gk_result_for(p, p->stm);
        return r > 0 ? 1.0f : r < 0 ? 0.0f : 0.5f;
    }
    return ev_sigmoid(ev_logit(w, p));
}

int ev_policy_trace(const gk_pos_t *p, gk_action_t a, float *f) {
    const ev_game_features_t *g = ev_features_of(p->game);
    if (!g) return 0;
    ev_pctx_t ctx;
    g->policy_prep(p, &ctx);
    gk_pos_t child = *p;
    gk_play(&child, a);
    g->policy_move(p, &ctx, a, &child, f);
    assert(g->npolicy <= EV_MAX_POLICY);
    return g->npolicy;
}

static uint8_t outcome_of(const gk_pos_t *p, const gk_pos_t *child) {
    if (!gk_over(child)) return EV_CHILD_ONGOING;
    int r = gk_result_for(child, p->stm);
    return r > 0 ? EV_CHILD_WIN : r < 0 ? EV_CHILD_LOSS : EV_CHILD_DRAW;
}

void ev_policy_logits(const ev_weights_t *w, const gk_pos_t *p, const gk_action_t *acts, int n,
                      float *logits, uint8_t *outcome) {
    const ev_game_features_t *g = ev_features_of(p->game);
    if (!g) {
        for (int i = 0; i < n; i++) logits[i] = 0.0f;
        if (outcome)
            for (int i = 0; i < n; i++) outcome[i] = EV_CHILD_ONGOING;
        return;
    }
    assert(w->game == p->game && w->npolicy == g->npolicy);
    ev_pctx_t ctx;
    g->policy_prep(p, &ctx);
    int m = g->npolicy < w->npolicy ? g->npolicy : w->npolicy;
    for (int i = 0; i < n; i++) {
        gk_pos_t child = *p;
        gk_play(&child, acts[i]);
        float f[EV_MAX_POLICY];
        g->policy_move(p, &ctx, acts[i], &child, f);
        float s = 0.0f;
        for (int k = 0; k < m; k++) s += w->policy[k] * f[k];
        logits[i] = s;
        if (outcome) outcome[i] = outcome_of(p, &child);
    }
}

void ev_softmax(float *x, int n, float temperature) {
    if (n <= 0) return;
    if (!(temperature > 0.0f)) temperature = 1.0f;
    float mx = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > mx) mx = x[i];
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        x[i] = expf((x[i] - mx) / temperature);
        sum += x[i];
    }
    assert(sum >= 1.0f); /* the largest term is exp(0) */
    for (int i = 0; i < n; i++) x[i] /= sum;
}

void ev_policy_priors(const ev_weights_t *w, const gk_pos_t *p, const gk_action_t *acts, int n,
                      float temperature, float *priors) {
    ev_policy_logits(w, p, acts, n, priors, NULL);
    ev_softmax(priors, n, temperature);
}
