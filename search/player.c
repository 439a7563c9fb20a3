/* search/player.c -- player specs and dispatch to the MCTS and the baselines. */
#include "player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../data/book.h"
#include "../eval/eval.h"
#include "baselines.h"
#include "mcts.h"
#include "params.h"
#include "turn.h"
#include "../common/status.h"

#define SPEC_MAX 1024
/* ab:randomize=K draws among the top K root moves in the game's first 4 turns, as the
 * online robot does in its first 4 plies (a Gounki turn is one action). */
#define AB_RANDOM_TURNS 4

struct player {
    player_kind_t kind;
    int game;
    char spec[SPEC_MAX];
    uint64_t seed; /* from player_new_game() */
    /* greedy, ab */
    bl_eval_t eval;
    ab_search_t *ab;
    ab_limits_t ablim;
    ab_limits_t ablim_spec; /* as the spec gave them (player_set_clock) */
    bool depth_set;
    size_t tt_mb;
    int randomize; /* ab: randomize=K, the top K root moves in the first AB_RANDOM_TURNS */
    /* mcts */
    mcts_params_t mp;
    mcts_limits_t ml;
    mcts_limits_t ml_spec; /* as the spec gave them (player_set_clock) */
    bool playouts_set;
    ev_weights_t *w;
    mcts_t *m;
    mcts_result_t *res; /* large (one entry per root child): kept off the stack */
    /* book=FILE: the book's move while the position is in the book (data/book.h) */
    bk_book_t *book;
    bk_probe_opts_t bopt;
    mcts_monitor_t mon; /* player_set_monitor(); mon.info and mon.stop NULL: none */
    bool has_mon;
};

void player_set_monitor(player_t *pl, const mcts_monitor_t *mon) {
    pl->has_mon = mon != NULL;
    if (mon) pl->mon = *mon;
    if (pl->m) mcts_set_monitor(pl->m, mon);
}

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
    if (pl->book) bk_free(pl->book);
    free(pl->book);
    free(pl);
}

/* A spec once read: everything player_new() needs, nothing allocated. */
typedef struct spec {
    player_kind_t kind;
    int eval_kind; /* BL_EVAL_* (greedy, ab) */
    bool eval_set;
    bool has_weights;
    char weights[SPEC_MAX]; /* weights=FILE */
    ab_limits_t ablim;
    size_t tt_mb;     /* 0: the default */
    int randomize;    /* randomize=K (0: none) */
    mcts_config_t mc; /* mcts */
    bool has_book;
    char book[SPEC_MAX]; /* book=FILE */
    bk_probe_opts_t bopt;
} spec_t;

/* The book parameters of any engine but random: book=FILE, book_random=E (a random book
 * move within E of the best), book_min=N (a book move needs N games).  Returns 1 when k is
 * one of them, 0 when not, -1 on a bad value. */
static int book_item(spec_t *s, const char *k, const char *v, char *err, size_t cap) {
    long long x;
    if (!strcmp(k, "book")) {
        snprintf(s->book, sizeof s->book, "%s", v);
        s->has_book = true;
        return 1;
    }
    if (!strcmp(k, "book_random"))
        return params_double(v, 0, 2, &s->bopt.random_window, err, cap) ? -1 : 1;
    if (!strcmp(k, "book_min")) {
        if (params_int(v, 0, 1000000000, &x, err, cap)) return -1;
        s->bopt.min_games = (uint32_t)x;
        return 1;
    }
    return 0;
}

/* One NAME=VALUE of a baseline spec (params_set_fn). */
static int baseline_item(void *ctx, const char *k, const char *v, char *err, size_t cap) {
    spec_t *s = ctx;
    long long x;
    int c;
    int br = book_item(s, k, v, err, cap);
    if (br) return br;
    if (!strcmp(k, "eval")) {
        if (params_choice(v, "classic|ours", &c, err, cap)) return -1;
        s->eval_kind = c == 0 ? BL_EVAL_CLASSIC : BL_EVAL_OURS;
        s->eval_set = true;
        return 1;
    }
    if (!strcmp(k, "weights")) {
        snprintf(s->weights, sizeof s->weights, "%s", v);
        s->has_weights = true;
        return 1;
    }
    if (s->kind != PLAYER_AB) return 0;
    if (!strcmp(k, "depth")) {
        if (params_int(v, 1, AB_MAX_DEPTH, &x, err, cap)) return -1;
        s->ablim.depth = (int)x;
        return 1;
    }
    if (!strcmp(k, "time")) return params_double(v, 1e-6, 1e6, &s->ablim.time_s, err, cap) ? -1 : 1;
    if (!strcmp(k, "id")) {
        if (params_choice(v, "on|off", &c, err, cap)) return -1;
        s->ablim.plain = c == 1;
        return 1;
    }
    if (!strcmp(k, "randomize")) {
        if (params_int(v, 0, AB_MAX_TOP, &x, err, cap)) return -1;
        s->randomize = (int)x;
        return 1;
    }
    if (!strcmp(k, "tt_mb")) {
        if (params_int(v, 1, 4096, &x, err, cap)) return -1;
        s->tt_mb = (size_t)x;
        return 1;
    }
    return 0;
}

/* One NAME=VALUE of an mcts spec: weights=FILE, or a parameter of search/mcts.h. */
static int mcts_item(void *ctx, const char *k, const char *v, char *err, size_t cap) {
    spec_t *s = ctx;
    int br = book_item(s, k, v, err, cap);
    if (br) return br;
    if (!strcmp(k, "weights")) return baseline_item(ctx, k, v, err, cap);
    return mcts_config_set(&s->mc, k, v, err, cap);
}

static int parse_spec(const char *spec, spec_t *s, char *err, size_t errcap) {
    memset(s, 0, sizeof *s);
    if (!spec || !*spec)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "empty player spec (random, greedy, ab:..., mcts:...)");
    if (strlen(spec) >= SPEC_MAX)
        return gk_fail(err, errcap, GK_E_INVALID, "player spec longer than %d characters",
                       SPEC_MAX - 1);
    for (const char *c = spec; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return gk_fail(err, errcap, GK_E_INVALID, "player spec contains a control character");
    const char *colon = strchr(spec, ':');
    size_t kl = colon ? (size_t)(colon - spec) : strlen(spec);
    int kind = -1;
    for (int i = 0; i < 4; i++)
        if (strlen(kind_names[i]) == kl && !strncmp(spec, kind_names[i], kl)) kind = i;
    if (kind < 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "unknown player '%.*s' (random, greedy, ab, mcts)", (int)(kl < 40 ? kl : 40),
                       spec);
    s->kind = (player_kind_t)kind;
    s->eval_kind = BL_EVAL_OURS;
    mcts_config_init(&s->mc, NULL, NULL);
    if (!colon) return 0;
    const char *kn = kind_names[kind];
    char e2[400];
    if (!colon[1]) return gk_fail(err, errcap, GK_E_INVALID, "%s: nothing after ':'", kn);
    if (s->kind == PLAYER_RANDOM)
        return gk_fail(err, errcap, GK_E_INVALID, "random: takes no parameters (got '%.40s')",
                       colon + 1);
    if (params_list(colon + 1, s->kind == PLAYER_MCTS ? mcts_item : baseline_item, s, e2,
                    sizeof e2)) {
        return gk_fail(err, errcap, GK_E_INVALID, "%s: %s", kn, e2);
    }
    if (s->kind == PLAYER_MCTS && mcts_config_finish(&s->mc, e2, sizeof e2))
        return gk_fail(err, errcap, GK_E_INVALID, "%s: %s", kn, e2);
    if (s->kind == PLAYER_AB && s->ablim.plain && !s->ablim.depth)
        return gk_fail(err, errcap, GK_E_INVALID, "ab: id=off needs depth= (a fixed depth)");
    if (s->kind == PLAYER_AB && s->randomize > 1 && !s->ablim.depth)
        return gk_fail(err, errcap, GK_E_INVALID, "ab: randomize= needs depth=");
    if (s->has_weights && s->kind != PLAYER_MCTS && s->eval_kind != BL_EVAL_OURS)
        return gk_fail(err, errcap, GK_E_INVALID, "%s: weights= needs eval=ours", kn);
    return 0;
}

int player_check_spec(const char *spec, int game, char *err, size_t errcap) {
    if (!gk_game_by_id(game)) return gk_fail(err, errcap, GK_E_INVALID, "unknown game %d", game);
    spec_t s;
    return parse_spec(spec, &s, err, errcap);
}

static int load_weights(int game, const char *path, ev_weights_t *w, const char *kn, char *err,
                        size_t errcap) {
    if (!path) {
        if (ev_weights_default(game, w) == 0) return 0;
        return gk_fail(err, errcap, GK_E_INVALID, "%s: no default weights for this game", kn);
    }
    int rc = ev_weights_load(path, game, w, err, errcap);
    return rc ? gk_err_wrap(err, errcap, rc, "%s: weights: ", kn) : 0;
}

/* Loads the spec's book for pl's game; 0, or an error code with the reason in err. */
static int load_book(player_t *pl, const spec_t *s, char *err, size_t errcap) {
    pl->bopt = s->bopt;
    pl->book = malloc(sizeof *pl->book);
    if (!pl->book) return gk_fail(err, errcap, GK_E_NOMEM, "book: out of memory");
    int rc = bk_load(s->book, NULL, pl->book, err, errcap);
    if (rc < 0) {
        free(pl->book);
        pl->book = NULL;
        return gk_err_wrap(err, errcap, rc, "book: ");
    }
    if (pl->book->rules.game != pl->game)
        return gk_fail(err, errcap, GK_E_INVALID, "book: %s is a book for %s", s->book,
                       gk_game_by_id(pl->book->rules.game)->name);
    return 0;
}

/* The book's move at p into out (1), or 0 when p is out of the book. */
static int book_move(player_t *pl, const gk_pos_t *p, uint64_t seed, player_move_t *out) {
    bk_choice_t ch;
    uint64_t rng = seed;
    if (!bk_choose(pl->book, p, &pl->bopt, &rng, &ch)) return 0;
    out->action = ch.action;
    out->value = 0.5 + 0.5 * (double)ch.value;
    snprintf(out->info, sizeof out->info, "book: %u games, value %+.3f, %d book moves", ch.games,
             (double)ch.value, ch.moves);
    return 1;
}

player_t *player_new(const char *spec, int game, char *err, size_t errcap) {
    spec_t *s = malloc(sizeof *s);
    player_t *pl = calloc(1, sizeof *pl);
    if (!s || !pl) {
        snprintf(err, errcap, "out of memory");
        goto fail;
    }
    if (!gk_game_by_id(game)) {
        snprintf(err, errcap, "unknown game %d", game);
        goto fail;
    }
    if (parse_spec(spec, s, err, errcap)) goto fail;
    pl->game = game;
    pl->kind = s->kind;
    memcpy(pl->spec, spec, strlen(spec) + 1);
    const char *kn = kind_names[s->kind];
    const char *weights = s->has_weights ? s->weights : NULL;
    if (s->has_book && load_book(pl, s, err, errcap)) goto fail;
    switch (pl->kind) {
    case PLAYER_RANDOM: break;
    case PLAYER_GREEDY:
    case PLAYER_AB:
        pl->eval.kind = s->eval_kind;
        pl->ablim = s->ablim;
        pl->depth_set = s->ablim.depth != 0;
        if (pl->eval.kind == BL_EVAL_OURS &&
            load_weights(game, weights, &pl->eval.w, kn, err, errcap))
            goto fail;
        if (pl->kind == PLAYER_AB) {
            if (pl->ablim.depth == 0 && pl->ablim.time_s == 0) pl->ablim.depth = 4;
            pl->ablim_spec = pl->ablim;
            pl->randomize = s->randomize;
            pl->ab = ab_new(&pl->eval, s->tt_mb ? s->tt_mb : 16);
            if (!pl->ab) {
                snprintf(err, errcap, "ab: out of memory for the transposition table");
                goto fail;
            }
        }
        break;
    case PLAYER_MCTS:
        pl->mp = s->mc.p;
        pl->ml = s->mc.l;
        pl->ml_spec = s->mc.l;
        pl->playouts_set = mcts_config_isset(&s->mc, "playouts");
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
    free(s);
    return pl;
fail:
    free(s);
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
        if (pl->has_mon) mcts_set_monitor(m, &pl->mon);
    }
    return 0;
}

/* Appends the variation seq[0..n) from p to buf as complete moves (turn_moves: the
 * actions of one turn together; a turn the variation leaves unfinished as far as it
 * goes), each after a space, as many whole moves as fit. */
static void append_line(const gk_pos_t *p, const gk_action_t *seq, int n, char *buf, size_t cap) {
    turn_move_t mv[MCTS_MAX_PV];
    int k = turn_moves(p, NULL, 0, seq, n, NULL, mv, MCTS_MAX_PV);
    size_t len = strlen(buf);
    for (int i = 0; i < k && strcmp(mv[i].text, "?"); i++) {
        size_t t = strlen(mv[i].text);
        if (len + t + 2 >= cap) break;
        buf[len++] = ' ';
        memcpy(buf + len, mv[i].text, t + 1);
        len += t;
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
    if (pl->book && book_move(pl, p, s, out)) {
        out->seconds = gk_now_s() - t0;
        return 0;
    }
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
        ab_limits_t lim = pl->ablim;
        if (pl->randomize > 1 && p->turn < AB_RANDOM_TURNS) {
            lim.top_k = pl->randomize;
            lim.randomize = true;
            lim.seed = s;
        }
        if (ab_search(pl->ab, p, h, &lim, &r) < 0) return -1;
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

void player_set_clock(player_t *pl, double left_s, double inc_s) {
    if (pl->kind == PLAYER_MCTS) {
        pl->ml = pl->ml_spec;
        if (left_s > 0) {
            pl->ml.clock_s = left_s;
            pl->ml.inc_s = inc_s;
            if (!pl->playouts_set) pl->ml.playouts = 0;
        }
    } else if (pl->kind == PLAYER_AB) {
        pl->ablim = pl->ablim_spec;
        if (left_s > 0) {
            double t = left_s / 30 + inc_s / 2;
            if (pl->ablim_spec.time_s > 0 && pl->ablim_spec.time_s < t) t = pl->ablim_spec.time_s;
            pl->ablim.time_s = t;
            if (!pl->depth_set) pl->ablim.depth = 0;
        }
    }
}

void player_observe(player_t *pl, const gk_pos_t *p, gk_action_t a) {
    (void)p;
    if (pl->kind == PLAYER_MCTS) mcts_advance(pl->m, a);
}
