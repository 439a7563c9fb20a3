/* search/player.c -- player specs and dispatch to the MCTS and the baselines. */
#include "player.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/eval.h"
#include "baselines.h"
#include "mcts.h"
#include "../common/clock.h"

#define SPEC_MAX 1024

struct player {
    player_kind_t kind;
    int game;
    char spec[SPEC_MAX];
    uint64_t seed; /* from player_new_game() */
    /* greedy, ab */
    bl_eval_t eval;
    ab_search_t *ab;
    ab_limits_t ablim;
    size_t tt_mb;
    /* mcts */
    mcts_params_t mp;
    mcts_limits_t ml;
    ev_weights_t *w;
    mcts_t *m;
    mcts_result_t *res; /* large (one entry per root child): kept off the stack */
};

static const char *const kind_names[] = {"random", "greedy", "ab", "mcts"};

player_kind_t player_kind(const player_t *pl) {
    return pl->kind;
}
const char *player_spec(const player_t *pl) {
    return pl->spec;
}
int player_threads(const player_t *pl) {
    return pl->kind == PLAYER_MCTS ? pl->mp.threads : 1;
}

void player_free(player_t *pl) {
    if (!pl) return;
    ab_free(pl->ab);
    mcts_free(pl->m);
    free(pl->res);
    free(pl->w);
    free(pl);
}

static int parse_long(const char *v, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int parse_seconds(const char *v, double *out) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x) || x <= 0 || x > 1e6) return -1;
    *out = x;
    return 0;
}

/* One NAME=VALUE of a baseline spec; returns 0, or -1 with a reason in err. */
static int baseline_param(player_t *pl, const char *k, const char *v, const char **weights,
                          int *eval_set, char *err, size_t errcap) {
    const char *kn = kind_names[pl->kind];
    long x;
    if (!strcmp(k, "eval")) {
        if (!strcmp(v, "classic"))
            pl->eval.kind = BL_EVAL_CLASSIC;
        else if (!strcmp(v, "ours"))
            pl->eval.kind = BL_EVAL_OURS;
        else {
            snprintf(err, errcap, "%s: eval must be 'classic' or 'ours', not '%s'", kn, v);
            return -1;
        }
        *eval_set = 1;
        return 0;
    }
    if (!strcmp(k, "weights")) {
        *weights = v;
        return 0;
    }
    if (pl->kind == PLAYER_AB && !strcmp(k, "depth")) {
        if (parse_long(v, 1, AB_MAX_DEPTH, &x)) {
            snprintf(err, errcap, "ab: depth must be an integer in [1, %d], not '%s'", AB_MAX_DEPTH,
                     v);
            return -1;
        }
        pl->ablim.depth = (int)x;
        return 0;
    }
    if (pl->kind == PLAYER_AB && !strcmp(k, "time")) {
        if (parse_seconds(v, &pl->ablim.time_s)) {
            snprintf(err, errcap, "ab: time must be a positive number of seconds, not '%s'", v);
            return -1;
        }
        return 0;
    }
    if (pl->kind == PLAYER_AB && !strcmp(k, "tt_mb")) {
        if (parse_long(v, 1, 4096, &x)) {
            snprintf(err, errcap, "ab: tt_mb must be an integer in [1, 4096], not '%s'", v);
            return -1;
        }
        pl->tt_mb = (size_t)x;
        return 0;
    }
    snprintf(err, errcap, "%s: unknown parameter '%s'", kn, k);
    return -1;
}

static int load_weights(int game, const char *path, ev_weights_t *w, const char *kn, char *err,
                        size_t errcap) {
    char e2[256];
    if (!path) {
        if (ev_weights_default(game, w) == 0) return 0;
        snprintf(err, errcap, "%s: no default weights for this game", kn);
        return -1;
    }
    if (ev_weights_load(path, game, w, e2, sizeof e2) == 0) return 0;
    snprintf(err, errcap, "%s: weights: %s", kn, e2);
    return -1;
}

player_t *player_new(const char *spec, int game, char *err, size_t errcap) {
    if (!spec || !*spec) {
        snprintf(err, errcap, "empty player spec (random, greedy, ab:..., mcts:...)");
        return NULL;
    }
    if (strlen(spec) >= SPEC_MAX) {
        snprintf(err, errcap, "player spec longer than %d characters", SPEC_MAX - 1);
        return NULL;
    }
    for (const char *c = spec; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            snprintf(err, errcap, "player spec contains a control character");
            return NULL;
        }
    if (!gk_game_by_id(game)) {
        snprintf(err, errcap, "unknown game %d", game);
        return NULL;
    }
    player_t *pl = calloc(1, sizeof *pl);
    if (!pl) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    pl->game = game;
    memcpy(pl->spec, spec, strlen(spec) + 1);

    char buf[SPEC_MAX];
    memcpy(buf, spec, strlen(spec) + 1);
    char *colon = strchr(buf, ':');
    char *rest = NULL;
    if (colon) {
        *colon = 0;
        rest = colon + 1;
    }
    int kind = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(buf, kind_names[i])) kind = i;
    if (kind < 0) {
        snprintf(err, errcap, "unknown player '%.40s' (random, greedy, ab, mcts)", buf);
        goto fail;
    }
    pl->kind = (player_kind_t)kind;
    pl->eval.kind = BL_EVAL_OURS;
    if (pl->kind == PLAYER_MCTS) {
        mcts_params_default(&pl->mp);
        mcts_limits_default(&pl->ml);
    }

    const char *weights = NULL;
    int eval_set = 0, playouts_set = 0, time_set = 0;
    if (rest) {
        if (!*rest) {
            snprintf(err, errcap, "%s: nothing after ':'", kind_names[kind]);
            goto fail;
        }
        if (rest[0] == ',' || rest[strlen(rest) - 1] == ',' || strstr(rest, ",,")) {
            snprintf(err, errcap, "%s: empty parameter (two commas, or one at an end)",
                     kind_names[kind]);
            goto fail;
        }
        char *save = NULL;
        for (char *tok = strtok_r(rest, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq || eq == tok || !eq[1]) {
                snprintf(err, errcap, "%s: '%.40s' is not NAME=VALUE", kind_names[kind], tok);
                goto fail;
            }
            *eq = 0;
            const char *k = tok, *v = eq + 1;
            if (strchr(v, '=')) {
                snprintf(err, errcap, "%s: %s: value contains '='", kind_names[kind], k);
                goto fail;
            }
            if (pl->kind == PLAYER_RANDOM) {
                snprintf(err, errcap, "random: takes no parameters (got '%.40s')", k);
                goto fail;
            }
            if (pl->kind == PLAYER_MCTS) {
                if (!strcmp(k, "weights")) {
                    weights = v;
                    continue;
                }
                char e2[200];
                playouts_set |= !strcmp(k, "playouts");
                time_set |= !strcmp(k, "time") || !strcmp(k, "clock");
                int r = mcts_params_set(&pl->mp, &pl->ml, k, v, e2, sizeof e2);
                if (r == 0) {
                    snprintf(err, errcap, "mcts: unknown parameter '%.40s'", k);
                    goto fail;
                }
                if (r < 0) {
                    snprintf(err, errcap, "mcts: %s", e2);
                    goto fail;
                }
                continue;
            }
            if (baseline_param(pl, k, v, &weights, &eval_set, err, errcap)) goto fail;
        }
    }

    switch (pl->kind) {
    case PLAYER_RANDOM: break;
    case PLAYER_GREEDY:
    case PLAYER_AB:
        if (weights && pl->eval.kind != BL_EVAL_OURS) {
            snprintf(err, errcap, "%s: weights= needs eval=ours", kind_names[kind]);
            goto fail;
        }
        if (pl->eval.kind == BL_EVAL_OURS &&
            load_weights(game, weights, &pl->eval.w, kind_names[kind], err, errcap))
            goto fail;
        if (pl->kind == PLAYER_AB) {
            if (pl->ablim.depth == 0 && pl->ablim.time_s == 0) pl->ablim.depth = 4;
            pl->ab = ab_new(&pl->eval, pl->tt_mb ? pl->tt_mb : 16);
            if (!pl->ab) {
                snprintf(err, errcap, "ab: out of memory for the transposition table");
                goto fail;
            }
        }
        break;
    case PLAYER_MCTS:
        (void)eval_set;
        /* A time budget alone means time only, not time or the default playouts. */
        if (time_set && !playouts_set) pl->ml.playouts = 0;
        pl->w = malloc(sizeof *pl->w);
        pl->res = malloc(sizeof *pl->res);
        if (!pl->w || !pl->res) {
            snprintf(err, errcap, "out of memory");
            goto fail;
        }
        if (load_weights(game, weights, pl->w, "mcts", err, errcap)) goto fail;
        pl->m = mcts_new(&pl->mp, pl->w);
        if (!pl->m) {
            snprintf(err, errcap, "mcts: could not create the search (parameters or memory)");
            goto fail;
        }
        break;
    }
    return pl;
fail:
    player_free(pl);
    return NULL;
}

int player_new_game(player_t *pl, uint64_t seed) {
    pl->seed = seed;
    if (pl->ab) ab_clear(pl->ab);
    if (pl->kind == PLAYER_MCTS) {
        /* A fresh search object reseeds the playouts: the MCTS takes its seed at creation. */
        mcts_params_t mp = pl->mp;
        uint64_t st = seed ^ pl->mp.seed;
        mp.seed = gk_splitmix64(&st);
        mcts_t *m = mcts_new(&mp, pl->w);
        if (!m) return -1;
        mcts_free(pl->m);
        pl->m = m;
    }
    return 0;
}

/* Appends the text of actions seq[0..n-1] played from p to buf. */
static void append_line(const gk_pos_t *p, const gk_action_t *seq, int n, char *buf, size_t cap) {
    const gk_game_t *g = gk_game_of(p);
    gk_pos_t q = *p;
    size_t len = strlen(buf);
    for (int i = 0; i < n && !gk_over(&q); i++) {
        char t[GK_MOVE_TEXT_MAX];
        if (g->action_text(&q, seq[i], t, sizeof t) < 0) break;
        if (len + strlen(t) + 2 >= cap) break;
        buf[len++] = ' ';
        memcpy(buf + len, t, strlen(t) + 1);
        len += strlen(t);
        gk_play(&q, seq[i]);
    }
}

int player_choose(player_t *pl, const gk_pos_t *p, const gk_hist_t *h, uint64_t seed,
                  player_move_t *out) {
    memset(out, 0, sizeof *out);
    double t0 = gk_now_s();
    out->value = 0.5;
    if (gk_over(p)) return -1;
    uint64_t st = seed ^ pl->seed;
    uint64_t s = gk_splitmix64(&st);
    switch (pl->kind) {
    case PLAYER_RANDOM:
        out->action = bl_random(p, s);
        out->work = 1;
        break;
    case PLAYER_GREEDY: {
        int score = 0;
        out->action = bl_greedy(&pl->eval, p, s, &score);
        out->value = bl_points_to_prob(&pl->eval, score);
        out->work = 1;
        out->proven = score >= BL_WIN - 1000 ? 1 : 0;
        snprintf(out->info, sizeof out->info, "score %d", score);
        break;
    }
    case PLAYER_AB: {
        ab_result_t r;
        if (ab_search(pl->ab, p, h, &pl->ablim, &r) < 0) return -1;
        out->action = r.best;
        out->value = bl_points_to_prob(&pl->eval, r.score);
        out->seconds = r.seconds;
        out->work = r.nodes;
        out->depth = r.depth;
        out->proven = r.score >= BL_WIN - 1000 ? 1 : r.score <= -(BL_WIN - 1000) ? -1 : 0;
        snprintf(out->info, sizeof out->info, "depth %d score %d nodes %llu pv", r.depth, r.score,
                 (unsigned long long)r.nodes);
        append_line(p, r.pv, r.npv, out->info, sizeof out->info);
        break;
    }
    case PLAYER_MCTS: {
        mcts_result_t *r = pl->res;
        if (mcts_search(pl->m, p, h, &pl->ml, r) < 0) {
            out->action = GK_NO_ACTION;
            return -1;
        }
        out->action = r->best;
        out->value = r->value;
        out->seconds = r->seconds;
        out->work = r->playouts;
        out->depth = r->depth_max;
        out->proven = r->proof == MCTS_PROVEN_WIN ? 1 : r->proof == MCTS_PROVEN_LOSS ? -1 : 0;
        snprintf(out->info, sizeof out->info, "playouts %llu nodes %llu%s pv",
                 (unsigned long long)r->playouts, (unsigned long long)r->nodes,
                 r->tree_full ? " (tree full)" : "");
        append_line(p, r->pv, r->pv_len, out->info, sizeof out->info);
        break;
    }
    }
    /* The engines time themselves; the baselines' time is measured here. */
    if (out->seconds == 0) out->seconds = gk_now_s() - t0;
    return out->action == GK_NO_ACTION ? -1 : 0;
}

void player_observe(player_t *pl, const gk_pos_t *p, gk_action_t a) {
    (void)p;
    if (pl->kind == PLAYER_MCTS) mcts_advance(pl->m, a);
}
