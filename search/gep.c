/* search/gep.c -- the engine protocol's commands, state and search (see gep.h). */
#include "gep.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "../data/book.h"
#include "../eval/eval.h"
#include "mcts.h"
#include "params.h"
#include "turn.h"

#define GEP_ACTS_MAX   65536 /* actions of one game */
#define GEP_PATH_MAX   4096
#define GEP_TOKENS_MAX (GEP_MOVES_MAX + 64)

struct gep {
    gep_out_fn out;
    void *ctx;
    pthread_mutex_t lock; /* one reply line at a time */
    /* options */
    mcts_params_t p;
    mcts_limits_t l; /* the budget of a `go` without limits */
    uint64_t set;    /* bit i: row i of mcts_param_at() set by an option or a default */
    char weights[GEP_PATH_MAX];
    ev_weights_t *w;
    char book_path[GEP_PATH_MAX];
    bk_book_t *book;
    bk_probe_opts_t bopt;
    int multipv, info_ms, turn_limit;
    /* the game */
    gk_rules_t rules;
    gk_pos_t start, pos; /* the position string's position, and after the moves */
    gk_hist_t *hist;
    gk_action_t *acts; /* actions from start to pos */
    int nacts;
    bool have_pos;
    uint64_t game_seed;
    bool has_game_seed;
    /* the search and its tree */
    mcts_t *m;
    gk_pos_t tree_start; /* the tree's root is tree_start + tree_acts */
    gk_action_t *tree_acts;
    int tree_n;
    bool tree_valid;
    mcts_limits_t lim; /* of the running search */
    bool infinite;
    double t0;
    gk_action_t turn[GK_MAX_TURN]; /* the turn chosen so far (prefix of the info lines) */
    int nturn;
    gk_pos_t turn_start;
    mcts_result_t *res;
    _Atomic int stop, running, quiet;
    /* scratch of gep_line */
    char *copy, *raw;
};

/* ---- replies ---- */

static void reply(gep_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(gep_t *g, const char *fmt, ...) {
    gk_sb_t sb;
    gk_sb_growing(&sb);
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            gk_sb_puts(&sb, big);
            free(big);
        }
    } else if (n > 0) {
        gk_sb_puts(&sb, small);
    }
    pthread_mutex_lock(&g->lock);
    if (!sb.over && sb.p) g->out(g->ctx, sb.p);
    pthread_mutex_unlock(&g->lock);
    gk_sb_free(&sb);
}

static int refuse(gep_t *g, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(gep_t *g, const char *cmd, const char *fmt, ...) {
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    reply(g, "error %.40s: %s", cmd, why);
    return GEP_CONTINUE;
}

/* ---- weights, book ---- */

static int load_weights(const char *path, int game, ev_weights_t *w, char *err, size_t cap) {
    if (!*path) {
        if (ev_weights_default(game, w) == 0) return 0;
        return gk_fail(err, cap, GK_E_INVALID, "no shipped weights for %s",
                       gk_game_by_id(game)->name);
    }
    int rc = ev_weights_load(path, game, w, err, cap);
    return rc ? gk_err_wrap(err, cap, rc, "weights: ") : 0;
}

/* Loads book `path` for rules r into *out (NULL for an empty path). */
static int load_book(const char *path, const gk_rules_t *r, bk_book_t **out, char *err,
                     size_t cap) {
    *out = NULL;
    if (!*path) return 0;
    bk_book_t *b = calloc(1, sizeof *b);
    if (!b) return gk_fail(err, cap, GK_E_NOMEM, "out of memory");
    int rc = bk_load(path, r, b, err, cap);
    if (rc < 0) {
        free(b);
        return gk_err_wrap(err, cap, rc, "book: ");
    }
    *out = b;
    return 0;
}

static void free_book(bk_book_t *b) {
    if (b) bk_free(b);
    free(b);
}

static void drop_tree(gep_t *g) {
    mcts_free(g->m);
    g->m = NULL;
    g->tree_valid = false;
}

/* ---- session ---- */

void gep_free(gep_t *g) {
    if (!g) return;
    mcts_free(g->m);
    free_book(g->book);
    free(g->w);
    free(g->hist);
    free(g->acts);
    free(g->tree_acts);
    free(g->res);
    free(g->copy);
    free(g->raw);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* A NAME=VALUE of the defaults list (params_set_fn): a row of the tables. */
static int default_item(void *ctx, const char *k, const char *v, char *err, size_t cap) {
    gep_t *g = ctx;
    int r = mcts_params_set(&g->p, &g->l, k, v, err, cap);
    if (r == 1) g->set |= 1ull << mcts_param_find(k);
    return r;
}

gep_t *gep_new(gep_out_fn out, void *ctx, const char *defaults, const char *weights, char *err,
               size_t errcap) {
    gep_t *g = calloc(1, sizeof *g);
    if (!g) {
        gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&g->lock, NULL);
    g->out = out;
    g->ctx = ctx;
    g->w = malloc(sizeof *g->w);
    g->hist = malloc(sizeof *g->hist);
    g->acts = malloc(GEP_ACTS_MAX * sizeof *g->acts);
    g->tree_acts = malloc(GEP_ACTS_MAX * sizeof *g->tree_acts);
    g->res = malloc(sizeof *g->res);
    g->copy = malloc(GEP_LINE_MAX + 2);
    g->raw = malloc(GEP_LINE_MAX + 2);
    if (!g->w || !g->hist || !g->acts || !g->tree_acts || !g->res || !g->copy || !g->raw) {
        gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        gep_free(g);
        return NULL;
    }
    mcts_params_default(&g->p);
    mcts_limits_default(&g->l);
    g->multipv = 1;
    g->info_ms = 1000;
    g->turn_limit = GK_DEFAULT_TURN_LIMIT;
    g->rules = (gk_rules_t){GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    char e2[512];
    if (defaults && *defaults && params_list(defaults, default_item, g, e2, sizeof e2)) {
        gk_fail(err, errcap, GK_E_INVALID, "%s", e2);
        gep_free(g);
        return NULL;
    }
    snprintf(g->weights, sizeof g->weights, "%s", weights ? weights : "");
    /* A weight file of the other game starts the session in that game. */
    if (load_weights(g->weights, g->rules.game, g->w, err, errcap)) {
        if (!*g->weights || load_weights(g->weights, GK_GAME_GOBS, g->w, e2, sizeof e2)) {
            gep_free(g);
            return NULL;
        }
        g->rules.game = GK_GAME_GOBS;
    }
    gk_game_by_id(g->rules.game)->setup(&g->start, &g->rules);
    g->pos = g->start;
    gk_hist_init(g->hist, &g->pos);
    return g;
}

/* ---- handshake ---- */

static void print_option(gep_t *g, const mcts_param_info_t *in) {
    const void *base = in->limit ? (const void *)&g->l : (const void *)&g->p;
    const char *f = (const char *)base + in->offset;
    switch (in->kind) {
    case MCTS_PK_INT: {
        int v;
        memcpy(&v, f, sizeof v);
        reply(g, "option name %s type spin default %d min %.0f max %.0f", in->name, v, in->min,
              in->max);
        break;
    }
    case MCTS_PK_U64: {
        uint64_t v;
        memcpy(&v, f, sizeof v);
        char mx[32];
        if (in->max >= 18446744073709551615.0)
            snprintf(mx, sizeof mx, "18446744073709551615");
        else
            snprintf(mx, sizeof mx, "%.0f", in->max);
        reply(g, "option name %s type spin default %llu min %.0f max %s", in->name,
              (unsigned long long)v, in->min, mx);
        break;
    }
    case MCTS_PK_BOOL: {
        bool v;
        memcpy(&v, f, sizeof v);
        reply(g, "option name %s type check default %s", in->name, v ? "true" : "false");
        break;
    }
    case MCTS_PK_ENUM: {
        int v;
        memcpy(&v, f, sizeof v);
        char vars[256] = "", name[64] = "";
        const char *c = in->choices;
        for (int i = 0; *c; i++) {
            size_t k = strcspn(c, "|");
            if (i == v) snprintf(name, sizeof name, "%.*s", (int)k, c);
            size_t len = strlen(vars);
            snprintf(vars + len, sizeof vars - len, " var %.*s", (int)k, c);
            c += k + (c[k] == '|');
        }
        reply(g, "option name %s type combo default %s%s", in->name, name, vars);
        break;
    }
    default: {
        double v;
        if (in->kind == MCTS_PK_FLOAT) {
            float x;
            memcpy(&x, f, sizeof x);
            v = x;
        } else {
            memcpy(&v, f, sizeof v);
        }
        reply(g, "option name %s type string default %g min %g max %g", in->name, v, in->min,
              in->max);
    }
    }
}

static int cmd_gep(gep_t *g) {
    reply(g, "id name gounki %s", GK_VERSION);
    reply(g, "id author gounki engineers");
    reply(g, "protocol %d", GEP_PROTOCOL);
    reply(g, "games gounki gobs:standard gobs:short");
    for (int i = 0; i < mcts_param_count(); i++) print_option(g, mcts_param_at(i));
    reply(g, "option name weights type string default %s", g->weights);
    reply(g, "option name book type string default %s", g->book_path);
    reply(g, "option name book_random type string default %g min 0 max 2", g->bopt.random_window);
    reply(g, "option name book_min type spin default %u min 0 max 1000000000", g->bopt.min_games);
    reply(g, "option name multipv type spin default %d min 1 max %d", g->multipv, GK_MAX_ACTIONS);
    reply(g, "option name info_interval type spin default %d min 50 max 3600000", g->info_ms);
    reply(g, "option name turn_limit type spin default %d min 0 max 65535", g->turn_limit);
    reply(g, "gepok");
    return GEP_CONTINUE;
}

/* ---- setoption ---- */

static int set_int(gep_t *g, const char *name, const char *v, long long lo, long long hi,
                   int *out) {
    char err[256];
    long long x;
    if (params_int(v, lo, hi, &x, err, sizeof err))
        return refuse(g, "setoption", "%s: %s", name, err);
    *out = (int)x;
    return GEP_CONTINUE;
}

/* The options that are not rows of the parameter tables. */
static int set_other(gep_t *g, const char *name, const char *v) {
    char err[768];
    if (!strcmp(name, "weights")) {
        ev_weights_t *w = malloc(sizeof *w);
        if (!w) return refuse(g, "setoption", "out of memory");
        if (load_weights(v, g->rules.game, w, err, sizeof err)) {
            free(w);
            return refuse(g, "setoption", "%s", err);
        }
        free(g->w);
        g->w = w;
        snprintf(g->weights, sizeof g->weights, "%s", v);
        drop_tree(g);
        return GEP_CONTINUE;
    }
    if (!strcmp(name, "book")) {
        bk_book_t *b;
        if (load_book(v, &g->rules, &b, err, sizeof err)) return refuse(g, "setoption", "%s", err);
        free_book(g->book);
        g->book = b;
        snprintf(g->book_path, sizeof g->book_path, "%s", v);
        return GEP_CONTINUE;
    }
    if (!*v) return refuse(g, "setoption", "%s: needs a value", name);
    if (!strcmp(name, "book_random")) {
        if (params_double(v, 0, 2, &g->bopt.random_window, err, sizeof err))
            return refuse(g, "setoption", "book_random: %s", err);
        return GEP_CONTINUE;
    }
    if (!strcmp(name, "book_min")) {
        long long x;
        if (params_int(v, 0, 1000000000, &x, err, sizeof err))
            return refuse(g, "setoption", "book_min: %s", err);
        g->bopt.min_games = (uint32_t)x;
        return GEP_CONTINUE;
    }
    if (!strcmp(name, "multipv")) return set_int(g, name, v, 1, GK_MAX_ACTIONS, &g->multipv);
    if (!strcmp(name, "info_interval")) return set_int(g, name, v, 50, 3600000, &g->info_ms);
    if (!strcmp(name, "turn_limit") || !strcmp(name, "max_plies")) { /* max_plies: old name */
        long long x;
        if (params_int(v, 0, 65535, &x, err, sizeof err))
            return refuse(g, "setoption", "turn_limit: %s", err);
        g->turn_limit = (int)x;
        g->rules.turn_limit = (uint16_t)x;
        /* The turn limit is part of the rule set: the position starts again. */
        gk_game_by_id(g->rules.game)->setup(&g->start, &g->rules);
        g->pos = g->start;
        gk_hist_init(g->hist, &g->pos);
        g->nacts = 0;
        g->have_pos = false;
        drop_tree(g);
        return GEP_CONTINUE;
    }
    return refuse(g, "setoption", "unknown option '%.64s' (see the options of 'gep')", name);
}

/* setoption name NAME [value V...]: tok[1..] are the words, raw the line as given. */
static int cmd_setoption(gep_t *g, char **tok, int n) {
    if (n < 3 || strcmp(tok[1], "name"))
        return refuse(g, "setoption", "expected 'setoption name NAME value VALUE'");
    const char *name = tok[2];
    const char *v = "";
    if (n > 3) {
        if (strcmp(tok[3], "value"))
            return refuse(g, "setoption", "expected 'value' after the name, got '%.40s'", tok[3]);
        if (n > 4) v = g->raw + (tok[4] - g->copy); /* the rest of the line, spaces kept */
    }
    int row = mcts_param_find(name);
    if (row < 0) return set_other(g, name, v);
    if (!*v) return refuse(g, "setoption", "%s: needs a value", name);
    char err[256];
    mcts_params_t p = g->p;
    mcts_limits_t l = g->l;
    if (mcts_params_set(&p, &l, name, v, err, sizeof err) != 1)
        return refuse(g, "setoption", "%s: %s", name, err);
    if (!mcts_param_at(row)->limit) drop_tree(g);
    g->p = p;
    g->l = l;
    g->set |= 1ull << row;
    return GEP_CONTINUE;
}

/* ---- game, newgame, position ---- */

static int cmd_game(gep_t *g, char **tok, int n) {
    if (n < 2 || n > 3) return refuse(g, "game", "expected 'game gounki' or 'game gobs VARIANT'");
    const gk_game_t *G = gk_game_by_name(tok[1]);
    if (!G) return refuse(g, "game", "unknown game '%.40s' (gounki, gobs)", tok[1]);
    int v = n == 3 ? gk_variant_by_name(G, tok[2]) : 0;
    if (v < 0) return refuse(g, "game", "%s has no rule set '%.40s'", G->name, tok[2]);
    gk_rules_t r = {(uint8_t)(G == gk_game_by_id(GK_GAME_GOBS) ? GK_GAME_GOBS : GK_GAME_GOUNKI),
                    (uint8_t)v, (uint16_t)g->turn_limit};
    char err[768];
    ev_weights_t *w = malloc(sizeof *w);
    if (!w) return refuse(g, "game", "out of memory");
    if (load_weights(g->weights, r.game, w, err, sizeof err)) {
        free(w);
        return refuse(g, "game", "%s (set the option weights first)", err);
    }
    bk_book_t *b;
    if (load_book(g->book_path, &r, &b, err, sizeof err)) {
        free(w);
        return refuse(g, "game", "%s (set the option book first)", err);
    }
    free(g->w);
    g->w = w;
    free_book(g->book);
    g->book = b;
    g->rules = r;
    G->setup(&g->start, &r);
    g->pos = g->start;
    gk_hist_init(g->hist, &g->pos);
    g->nacts = 0;
    g->have_pos = true;
    drop_tree(g);
    return GEP_CONTINUE;
}

static int cmd_newgame(gep_t *g, char **tok, int n) {
    uint64_t seed = 0;
    if (n == 3 && !strcmp(tok[1], "seed")) {
        char err[256];
        if (params_u64(tok[2], 0, UINT64_MAX, &seed, err, sizeof err))
            return refuse(g, "newgame", "seed: %s", err);
    } else if (n != 1) {
        return refuse(g, "newgame", "expected 'newgame' or 'newgame seed S'");
    }
    g->game_seed = seed;
    g->has_game_seed = n == 3;
    g->have_pos = false;
    drop_tree(g);
    return GEP_CONTINUE;
}

/* The position string's words tok[0..n) (joined by single spaces) into *p. */
static int read_text(gep_t *g, char **tok, int n, gk_pos_t *p, char *err, size_t cap) {
    gk_sb_t sb;
    gk_sb_growing(&sb);
    for (int i = 0; i < n; i++) gk_sb_printf(&sb, "%s%s", i ? " " : "", tok[i]);
    const gk_game_t *G = gk_game_by_id(g->rules.game);
    int rc = sb.over ? gk_fail(err, cap, GK_E_NOMEM, "out of memory")
                     : G->pos_from_text(p, sb.p, g->rules.turn_limit, err, cap);
    gk_sb_free(&sb);
    if (rc < 0) return rc;
    GK_RETURN_IF(p->game != g->rules.game || p->variant != g->rules.variant, err, cap, GK_E_INVALID,
                 "the position is not one of %s %s (send 'game' first)", G->name,
                 G->variants[g->rules.variant]);
    GK_RETURN_IF(p->in_turn != 0, err, cap, GK_E_INVALID,
                 "the position is in the middle of a turn (give the turn's start and its move)");
    return 0;
}

/* Plays the moves tok[0..n) from *p (hist from p), appending their actions to acts. */
static int play_moves(char **tok, int n, gk_pos_t *p, gk_hist_t *hist, gk_action_t *acts,
                      int *nacts, char *err, size_t cap) {
    const gk_game_t *G = gk_game_of(p);
    gk_action_t seq[GK_MAX_TURN], list[GK_MAX_ACTIONS];
    char why[512];
    for (int i = 0; i < n; i++) {
        if (gk_over(p))
            return gk_fail(err, cap, GK_E_INVALID, "move %d '%.64s': the game is over (%s, %s)",
                           i + 1, tok[i], gk_result_text(p->result), gk_reason_text(p->reason));
        int k = G->parse_move(p, tok[i], seq, GK_MAX_TURN, why, sizeof why);
        if (k < 0)
            return gk_fail(err, cap, GK_E_INVALID, "move %d '%.64s': %s", i + 1, tok[i], why);
        GK_RETURN_IF(*nacts + k > GEP_ACTS_MAX || hist->n >= GK_HIST_MAX - 1, err, cap,
                     GK_E_INVALID, "move %d: too many moves", i + 1);
        for (int j = 0; j < k; j++) {
            acts[(*nacts)++] = seq[j];
            gk_play(p, seq[j]);
        }
        gk_end_turn(p, hist);
        if (!gk_over(p) && gk_gen(p, list) == 0) gk_apply_no_move(p);
    }
    return 0;
}

static int cmd_position(gep_t *g, char **tok, int n) {
    int mv = 1;
    while (mv < n && strcmp(tok[mv], "moves")) mv++;
    if (n < 2 || (strcmp(tok[1], "startpos") && strcmp(tok[1], "text")))
        return refuse(g, "position", "expected 'position startpos' or 'position text STRING'");
    if (mv - 1 > GEP_MOVES_MAX || n - mv - 1 > GEP_MOVES_MAX)
        return refuse(g, "position", "more than %d moves", GEP_MOVES_MAX);
    gk_pos_t start, pos;
    char err[768];
    if (!strcmp(tok[1], "startpos")) {
        if (mv != 2) return refuse(g, "position", "'startpos' takes no words, got '%.40s'", tok[2]);
        gk_game_by_id(g->rules.game)->setup(&start, &g->rules);
    } else {
        if (mv == 2) return refuse(g, "position", "'text' needs a position string");
        if (read_text(g, tok + 2, mv - 2, &start, err, sizeof err))
            return refuse(g, "position", "%s", err);
    }
    gk_hist_t *hist = malloc(sizeof *hist);
    gk_action_t *acts = malloc(GEP_ACTS_MAX * sizeof *acts);
    int nacts = 0;
    int rc = !hist || !acts ? gk_fail(err, sizeof err, GK_E_NOMEM, "out of memory") : 0;
    if (!rc) {
        pos = start;
        gk_hist_init(hist, &pos);
        gk_action_t list[GK_MAX_ACTIONS];
        if (!gk_over(&pos) && gk_gen(&pos, list) == 0) gk_apply_no_move(&pos);
        if (mv < n)
            rc = play_moves(tok + mv + 1, n - mv - 1, &pos, hist, acts, &nacts, err, sizeof err);
    }
    if (rc) {
        free(hist);
        free(acts);
        return refuse(g, "position", "%s", err);
    }
    free(g->hist);
    free(g->acts);
    g->hist = hist;
    g->acts = acts;
    g->nacts = nacts;
    g->start = start;
    g->pos = pos;
    g->have_pos = true;
    return GEP_CONTINUE;
}

/* ---- show ---- */

static int cmd_show(gep_t *g) {
    const gk_game_t *G = gk_game_of(&g->pos);
    char board[GK_BOARD_TEXT_MAX], text[GK_POS_TEXT_MAX];
    if (G->board_text(&g->pos, board, sizeof board) < 0) board[0] = 0;
    for (char *line = board; *line;) {
        size_t k = strcspn(line, "\n");
        reply(g, "info string %.*s", (int)k, line);
        line += k + (line[k] == '\n');
    }
    if (G->pos_to_text(&g->pos, text, sizeof text) < 0) snprintf(text, sizeof text, "?");
    gk_action_t list[GK_MAX_ACTIONS];
    int k = gk_over(&g->pos) ? 0 : gk_gen(&g->pos, list);
    char over[96] = "";
    if (gk_over(&g->pos))
        snprintf(over, sizeof over, " result %s reason %s", gk_result_text(g->pos.result),
                 gk_reason_text(g->pos.reason));
    reply(g, "info position %s legal %d tomove %s%s", text, k,
          g->pos.stm == GK_WHITE ? "white" : "black", over);
    return GEP_CONTINUE;
}

/* ---- go ---- */

/* Reads the limits of `go` into g->lim.  Returns 0, or -1 after refusing. */
static int go_limits(gep_t *g, char **tok, int n) {
    static const char *const names[] = {"playouts", "nodes", "movetime", "wtime",
                                        "btime",    "winc",  "binc",     "infinite"};
    uint64_t v[8] = {0};
    bool given[8] = {false};
    char err[256];
    for (int i = 1; i < n; i++) {
        int k = 0;
        while (k < 8 && strcmp(tok[i], names[k])) k++;
        if (k == 8) return refuse(g, "go", "unknown limit '%.40s'", tok[i]), -1;
        if (given[k]) return refuse(g, "go", "%s is given twice", names[k]), -1;
        given[k] = true;
        if (k == 7) continue;
        if (i + 1 >= n) return refuse(g, "go", "%s needs a value", names[k]), -1;
        uint64_t lo = k >= 3 ? 0 : 1, hi = k == 0   ? 1000000000000000ull
                                           : k == 1 ? 4000000000ull
                                                    : 10000000000ull;
        if (params_u64(tok[++i], lo, hi, &v[k], err, sizeof err))
            return refuse(g, "go", "%s: %s", names[k], err), -1;
    }
    int mover = g->pos.stm;
    bool clock = given[3] || given[4] || given[5] || given[6];
    if (clock && !given[3 + mover])
        return refuse(g, "go", "%s is needed: %s is to move", mover ? "btime" : "wtime",
                      mover ? "black" : "white"),
               -1;
    bool any = false;
    for (int k = 0; k < 8; k++) any |= given[k];
    if (given[7] && n > 2) return refuse(g, "go", "infinite takes no other limit"), -1;
    /* The go's own limits replace the budget; the limits that say how to spend a budget
     * (early_stop, clock_moves, extend) stay as set. */
    mcts_limits_t l = g->l;
    l.playouts = l.nodes = 0;
    l.time_s = l.clock_s = l.inc_s = 0;
    g->infinite = given[7];
    if (!any) {
        l = g->l;
        int pr = mcts_param_find("playouts"), tr = mcts_param_find("time"),
            cr = mcts_param_find("clock");
        /* As mcts_config_finish(): a time budget alone has no playout limit. */
        if ((g->set >> tr & 1 || g->set >> cr & 1) && !(g->set >> pr & 1)) l.playouts = 0;
    } else if (g->infinite) {
        l.time_s = 1e7;
        l.early_stop = false;
    } else {
        l.playouts = v[0];
        l.nodes = v[1];
        l.time_s = (double)v[2] / 1000.0;
        if (clock) {
            l.clock_s = (double)v[3 + mover] / 1000.0;
            l.inc_s = (double)v[5 + mover] / 1000.0;
            if (l.clock_s <= 0) l.clock_s = 0.001;
        }
    }
    g->lim = l;
    return 0;
}

static int cmd_go(gep_t *g, char **tok, int n) {
    if (!g->have_pos) return refuse(g, "go", "no position (send 'position' or 'game' first)");
    if (go_limits(g, tok, n)) return GEP_CONTINUE;
    if (gk_over(&g->pos)) {
        reply(g, "info string game over: %s (%s)", gk_result_text(g->pos.result),
              gk_reason_text(g->pos.reason));
        reply(g, "bestmove none");
        return GEP_CONTINUE;
    }
    if (!g->m) {
        mcts_params_t p = g->p;
        if (g->has_game_seed) {
            /* As player_new_game(): the game's seed mixed with the seed option. */
            uint64_t st = g->game_seed ^ g->p.seed;
            p.seed = gk_splitmix64(&st);
        }
        g->m = mcts_new(&p, g->w);
        if (!g->m)
            return refuse(g, "go", "cannot create the search (out of memory for tree_mb=%d?)",
                          g->p.tree_mb);
        g->tree_valid = false;
    }
    /* Follow the moves played since the tree's root, as a player told of each action. */
    if (g->tree_valid && g->tree_start.hash == g->start.hash &&
        g->tree_start.turn == g->start.turn && g->nacts >= g->tree_n &&
        !memcmp(g->acts, g->tree_acts, (size_t)g->tree_n * sizeof *g->acts)) {
        for (int i = g->tree_n; i < g->nacts; i++) mcts_advance(g->m, g->acts[i]);
    }
    g->tree_start = g->start;
    memcpy(g->tree_acts, g->acts, (size_t)g->nacts * sizeof *g->acts);
    g->tree_n = g->nacts;
    g->tree_valid = true;
    atomic_store(&g->stop, 0);
    atomic_store(&g->quiet, 0);
    atomic_store(&g->running, 1);
    g->t0 = gk_now_s();
    return GEP_GO;
}

/* ---- the search ---- */

static const char *proof_word(int p) {
    return p == MCTS_PROVEN_WIN ? "win" : p == MCTS_PROVEN_LOSS ? "loss" : "draw";
}

/* One `info` line (and the multipv lines) of result r at position p, mid-turn after
 * g->turn[0..nturn). */
static void info_line(gep_t *g, const gk_pos_t *p, const mcts_result_t *r) {
    (void)p;
    double ms = (gk_now_s() - g->t0) * 1000.0;
    double pps = r->seconds > 0 ? (double)r->playouts / r->seconds : 0;
    double wp = r->proof == MCTS_PROVEN_WIN    ? 1
                : r->proof == MCTS_PROVEN_LOSS ? 0
                : r->proof == MCTS_PROVEN_DRAW ? 0.5
                                               : (double)r->value;
    gk_sb_t sb;
    gk_sb_growing(&sb);
    gk_sb_printf(
        &sb, "info playouts %llu pps %.0f time %.0f nodes %llu depth %d value %.4f winprob %.4f",
        (unsigned long long)r->playouts, pps, ms, (unsigned long long)r->nodes, r->depth_max,
        (double)r->value, wp);
    if (r->proof != MCTS_UNPROVEN)
        gk_sb_printf(&sb, " proof %s actions %d", proof_word(r->proof), r->proof_actions);
    if (r->best != GK_NO_ACTION) {
        gk_sb_t bs;
        gk_sb_growing(&bs);
        gk_action_t line[MCTS_MAX_PV];
        int n = 0;
        bool complete;
        n = turn_from_result(p, r, line, MCTS_MAX_PV, &complete);
        turn_line_text(&g->turn_start, g->turn, g->nturn, line, n, &bs);
        gk_sb_printf(&sb, " best %s pv ", bs.p ? bs.p : "");
        gk_sb_free(&bs);
        /* The PV as given, unless it does not start with the best action. */
        if (r->pv_len > 0 && r->pv[0] == r->best)
            turn_line_text(&g->turn_start, g->turn, g->nturn, r->pv, r->pv_len, &sb);
        else
            turn_line_text(&g->turn_start, g->turn, g->nturn, line, n, &sb);
    }
    if (!sb.over && sb.p) reply(g, "%s", sb.p);
    gk_sb_free(&sb);
    for (int i = 0; i < g->multipv && g->multipv > 1 && i < r->nchildren; i++) {
        const mcts_child_t *c = &r->children[i];
        gk_sb_growing(&sb);
        gk_sb_printf(&sb, "info multipv %d visits %u value %.4f", i + 1, c->visits,
                     (double)c->value);
        if (c->proof != MCTS_UNPROVEN)
            gk_sb_printf(&sb, " proof %s actions %d", proof_word(c->proof), c->actions);
        gk_sb_puts(&sb, " move ");
        turn_line_text(&g->turn_start, g->turn, g->nturn, &c->action, 1, &sb);
        if (!sb.over && sb.p) reply(g, "%s", sb.p);
        gk_sb_free(&sb);
    }
}

typedef struct info_ctx {
    gep_t *g;
    const gk_pos_t *p;
} info_ctx_t;

static void on_info(const mcts_result_t *sofar, void *ctx) {
    info_ctx_t *c = ctx;
    info_line(c->g, c->p, sofar);
}

/* The book's action at p, or GK_NO_ACTION. */
static gk_action_t book_action(gep_t *g, const gk_pos_t *p) {
    if (!g->book) return GK_NO_ACTION;
    uint64_t rng = g->p.seed ^ g->game_seed ^ p->hash;
    gk_splitmix64(&rng);
    bk_choice_t ch;
    if (!bk_choose(g->book, p, &g->bopt, &rng, &ch)) return GK_NO_ACTION;
    reply(g, "info string book: %u games, value %+.3f, %d book moves", ch.games, (double)ch.value,
          ch.moves);
    return ch.action;
}

/* The limits of a search that finishes a turn the previous ones left open: what remains of
 * the time, at least a tenth of it. */
static mcts_limits_t rest_limits(const mcts_limits_t *l, double used) {
    mcts_limits_t r = *l;
    if (r.time_s > 0) r.time_s = fmax(r.time_s - used, r.time_s * 0.1);
    if (r.clock_s > 0) r.clock_s = fmax(r.clock_s - used, 0.001);
    return r;
}

void gep_search(gep_t *g) {
    gk_pos_t pos = g->pos;
    g->turn_start = pos;
    g->nturn = 0;
    info_ctx_t ic = {g, &pos};
    mcts_set_monitor(g->m, &(mcts_monitor_t){.stop = &g->stop,
                                             .info = on_info,
                                             .ctx = &ic,
                                             .interval_s = g->info_ms / 1000.0});
    mcts_limits_t lim = g->lim;
    bool done = false;
    while (!done && g->nturn < GK_MAX_TURN) {
        gk_action_t seq[GK_MAX_TURN];
        int k = 0;
        bool complete = false;
        gk_action_t b = book_action(g, &pos);
        if (b != GK_NO_ACTION) {
            seq[k++] = b;
            gk_pos_t q = pos;
            gk_play(&q, b);
            complete = q.in_turn == 0 || gk_over(&q);
        } else {
            if (mcts_search(g->m, &pos, g->hist, &lim, g->res) < 0) break;
            info_line(g, &pos, g->res);
            k = turn_from_result(&pos, g->res, seq, GK_MAX_TURN - g->nturn, &complete);
            if (k == 0) break;
        }
        for (int i = 0; i < k; i++) {
            g->turn[g->nturn++] = seq[i];
            gk_play(&pos, seq[i]);
            /* A turn left open is searched again from its end, the tree kept. */
            if (!complete && g->tree_n < GEP_ACTS_MAX) {
                mcts_advance(g->m, seq[i]);
                g->tree_acts[g->tree_n++] = seq[i];
            }
        }
        done = complete;
        lim = rest_limits(&g->lim, gk_now_s() - g->t0);
    }
    mcts_set_monitor(g->m, NULL);
    char mv[GK_MOVE_TEXT_MAX] = "none";
    if (g->nturn > 0 &&
        gk_game_of(&g->turn_start)->move_text(&g->turn_start, g->turn, g->nturn, mv, sizeof mv) < 0)
        snprintf(mv, sizeof mv, "none");
    while (g->infinite && !atomic_load(&g->stop)) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    bool quiet = atomic_load(&g->quiet);
    pthread_mutex_lock(&g->lock);
    atomic_store(&g->running, 0);
    if (!quiet) {
        char line[GK_MOVE_TEXT_MAX + 16];
        snprintf(line, sizeof line, "bestmove %s", mv);
        g->out(g->ctx, line);
    }
    pthread_mutex_unlock(&g->lock);
}

void gep_stop(gep_t *g) {
    atomic_store(&g->stop, 1);
}

void gep_end_of_input(gep_t *g) {
    if (atomic_load(&g->running) && g->infinite) gep_stop(g);
}

/* ---- lines ---- */

/* Splits the line in g->copy into words; returns their number, or -1 for too many. */
static int split(char *s, char **tok, int cap) {
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t') *s++ = 0;
        if (!*s) break;
        if (n == cap) return -1;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t') s++;
    }
    return n;
}

static int dispatch(gep_t *g, char **tok, int n) {
    const char *c = tok[0];
    bool running = atomic_load(&g->running);
    if (!strcmp(c, "quit")) {
        atomic_store(&g->quiet, 1);
        gep_stop(g);
        return GEP_QUIT;
    }
    if (!strcmp(c, "stop")) {
        /* Not an error without a search: the search may have ended just before. */
        gep_stop(g);
        return GEP_CONTINUE;
    }
    if (!strcmp(c, "isready")) {
        reply(g, "readyok");
        return GEP_CONTINUE;
    }
    if (!strcmp(c, "gep")) return cmd_gep(g);
    if (!strcmp(c, "show")) return cmd_show(g);
    static const char *const changing[] = {"setoption", "game", "newgame", "position", "go"};
    int k = 0;
    while (k < 5 && strcmp(c, changing[k])) k++;
    if (k == 5) return refuse(g, c, "unknown command");
    if (running) return refuse(g, c, "a search is running (send 'stop' first)");
    switch (k) {
    case 0: return cmd_setoption(g, tok, n);
    case 1: return cmd_game(g, tok, n);
    case 2: return cmd_newgame(g, tok, n);
    case 3: return cmd_position(g, tok, n);
    default: return cmd_go(g, tok, n);
    }
}

int gep_line(gep_t *g, const char *line, size_t len) {
    if (len > 0 && line[len - 1] == '\n') len--;
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len > GEP_LINE_MAX) return refuse(g, "-", "line longer than %d bytes", GEP_LINE_MAX);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)line[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return refuse(g, "-", "control character 0x%02x at byte %zu", ch, i + 1);
    }
    memcpy(g->copy, line, len);
    g->copy[len] = 0;
    memcpy(g->raw, line, len);
    g->raw[len] = 0;
    /* The rest of a line keeps its inner spaces but not its trailing ones. */
    for (size_t e = len; e > 0 && (g->raw[e - 1] == ' ' || g->raw[e - 1] == '\t'); e--)
        g->raw[e - 1] = 0;
    char **tok = malloc(GEP_TOKENS_MAX * sizeof *tok);
    if (!tok) return refuse(g, "-", "out of memory");
    int n = split(g->copy, tok, GEP_TOKENS_MAX);
    int rc = GEP_CONTINUE;
    if (n < 0)
        rc = refuse(g, "-", "more than %d words", GEP_TOKENS_MAX);
    else if (n > 0)
        rc = dispatch(g, tok, n);
    free(tok);
    return rc;
}
