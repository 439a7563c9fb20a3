/* cli/options.c -- the option groups the subcommands share (declared in cli.h).
 * The search, the engines, runs, openings, the SPRT and the tuner's table. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../search/params.h"
#include "../data/book.h"
#include "cli.h"

/* ------------------------------------------------------------------ the search */

void cli_search_init(cli_search_t *s, const mcts_params_t *p, const mcts_limits_t *l,
                     unsigned flags) {
    memset(s, 0, sizeof *s);
    mcts_config_init(&s->cfg, p, l);
    s->def = s->cfg;
    s->flags = flags;
    int n = 0;
    s->opts[n++] = (struct option){"playouts", required_argument, 0, CLI_OPT_PLAYOUTS};
    if (!(flags & CLI_SEARCH_NO_TIME))
        s->opts[n++] = (struct option){"time", required_argument, 0, CLI_OPT_TIME};
    s->opts[n++] = (struct option){"set", required_argument, 0, CLI_OPT_SET};
    s->opts[n++] = (struct option){"mcts", required_argument, 0, CLI_OPT_MCTS};
    if (flags & CLI_SEARCH_WEIGHTS)
        s->opts[n++] = (struct option){"weights", required_argument, 0, CLI_OPT_WEIGHTS};
    for (int i = 0; (flags & CLI_SEARCH_FLAGS) && i < mcts_param_count() && i < 64; i++) {
        const char *name = mcts_param_at(i)->name;
        if (!strcmp(name, "playouts") || !strcmp(name, "time")) continue;
        char *f = s->names[i];
        snprintf(f, sizeof s->names[i], "%s", name);
        for (char *c = f; *c; c++)
            if (*c == '_') *c = '-';
        s->opts[n++] = (struct option){f, required_argument, 0, CLI_OPT_PARAM + i};
    }
    /* The older name of prior_temperature, as in NAME=VALUE lists. */
    if (flags & CLI_SEARCH_FLAGS)
        s->opts[n++] = (struct option){"temperature", required_argument, 0, CLI_OPT_OLD_TEMP};
    s->opts[n] = (struct option){0, 0, 0, 0};
}

static int search_set(const char *cmd, cli_search_t *s, const char *flag, const char *name,
                      const char *arg) {
    char err[256];
    if (mcts_config_set(&s->cfg, name, arg, err, sizeof err) > 0) return 1;
    cli_error(cmd, "%s: %s", flag, err);
    return -1;
}

static int search_take(const char *cmd, void *state, int opt, const char *arg) {
    cli_search_t *s = state;
    char err[256];
    switch (opt) {
    case CLI_OPT_PLAYOUTS: return search_set(cmd, s, "--playouts", "playouts", arg);
    case CLI_OPT_TIME: return search_set(cmd, s, "--time", "time", arg);
    case CLI_OPT_WEIGHTS: s->weights = arg; return 1;
    case CLI_OPT_OLD_TEMP: return search_set(cmd, s, "--temperature", "prior_temperature", arg);
    case CLI_OPT_SET:
    case CLI_OPT_MCTS:
        if (mcts_config_set_list(&s->cfg, arg, err, sizeof err) == 0) return 1;
        cli_error(cmd, "%s: %s", opt == CLI_OPT_SET ? "--set" : "--mcts", err);
        return -1;
    }
    if (opt >= CLI_OPT_PARAM && opt < CLI_OPT_PARAM + mcts_param_count()) {
        char flag[32];
        snprintf(flag, sizeof flag, "--%s", s->names[opt - CLI_OPT_PARAM]);
        return search_set(cmd, s, flag, mcts_param_at(opt - CLI_OPT_PARAM)->name, arg);
    }
    return 0;
}

cli_group_t cli_search_group(cli_search_t *s) {
    return (cli_group_t){s->opts, search_take, s};
}

int cli_search_finish(const char *cmd, cli_search_t *s) {
    char err[256];
    if (mcts_config_finish(&s->cfg, err, sizeof err) == 0) return 0;
    cli_error(cmd, "%s", err);
    return -1;
}

void cli_search_help(FILE *f, const cli_search_t *s) {
    if (s->flags & CLI_SEARCH_NO_TIME)
        fprintf(f, "  --playouts N       playouts per move (default %llu)\n",
                (unsigned long long)s->def.l.playouts);
    else
        fprintf(f,
                "  --playouts N       playouts per move (default %llu; 0 = no limit)\n"
                "  --time S           seconds per move (default %s; alone, it is the only "
                "limit)\n",
                (unsigned long long)s->def.l.playouts, s->def.l.time_s > 0 ? "set" : "none");
    fputs("  --set NAME=V,...   search parameters by name, as in an mcts: player spec\n"
          "                     (repeatable; listed below); --mcts is the same\n",
          f);
    if (s->flags & CLI_SEARCH_WEIGHTS)
        fputs("  --weights FILE     evaluation weights (default: the shipped ones of the game)\n",
              f);
    if (s->flags & CLI_SEARCH_FLAGS)
        fputs("  --NAME V           every parameter below is a flag too, with '-' for '_'\n"
              "                     (--threads 2, --c-puct 1.5)\n",
              f);
    char help[MCTS_HELP_MAX];
    mcts_params_help(help, sizeof help, &s->def.p, &s->def.l);
    fprintf(f, "search parameters (NAME=VALUE, with this command's defaults):\n%s", help);
}

int cli_load_weights(const char *cmd, const char *flag, const char *path, int game,
                     ev_weights_t *w) {
    char err[512];
    if (path ? ev_weights_load(path, game, w, err, sizeof err) == 0
             : ev_weights_default(game, w) == 0)
        return 0;
    if (path)
        cli_error(cmd, "%s: %s", flag, err);
    else
        cli_error(cmd, "no default weights for %s", gk_game_by_id(game)->name);
    return CLI_FAIL;
}

/* ------------------------------------------------------------------ self-play endings */

int cli_parse_resign(const char *cmd, const char *arg, bool *on, float *value, float *share) {
    *on = strcmp(arg, "off") != 0;
    if (!*on) return 0;
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) {
        cli_error(cmd, "--resign: too long");
        return -1;
    }
    char *comma = strchr(buf, ',');
    if (comma) *comma = 0;
    double x, y = *share;
    if (cli_parse_double(cmd, "--resign", buf, -1, 1, &x) ||
        (comma && cli_parse_double(cmd, "--resign", comma + 1, 0, 1, &y)))
        return -1;
    *value = (float)x;
    *share = (float)y;
    return 0;
}

int cli_parse_adjudicate(const char *cmd, const char *arg, int *turn, int *lead, int *span) {
    if (!strcmp(arg, "off")) {
        *turn = 0;
        return 0;
    }
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) {
        cli_error(cmd, "--adjudicate: too long");
        return -1;
    }
    char *f[3], *c = buf;
    for (int i = 0; i < 3; i++) {
        f[i] = c;
        c = strchr(c, ',');
        if ((i < 2) != (c != NULL)) {
            cli_error(cmd, "--adjudicate: '%s' is not T,K,M (three numbers) or off", arg);
            return -1;
        }
        if (c) *c++ = 0;
    }
    long t, k, m;
    if (cli_parse_long(cmd, "--adjudicate", f[0], 1, 100000, &t) ||
        cli_parse_long(cmd, "--adjudicate", f[1], 1, 100, &k) ||
        cli_parse_long(cmd, "--adjudicate", f[2], 1, 100000, &m))
        return -1;
    *turn = (int)t, *lead = (int)k, *span = (int)m;
    return 0;
}

/* ------------------------------------------------------------------ engines */

int cli_check_player(const char *cmd, const char *flag, const char *spec, int game) {
    char err[512];
    if (player_check_spec(spec, game, err, sizeof err) == 0) return 0;
    cli_error(cmd, "%s: %s", flag, err);
    return CLI_USAGE;
}

int cli_new_player(const char *cmd, const char *flag, const char *spec, int game, player_t **out) {
    char err[512];
    int rc = cli_check_player(cmd, flag, spec, game);
    if (rc) return rc;
    *out = player_new(spec, game, err, sizeof err);
    if (*out) return 0;
    cli_error(cmd, "%s: %s", flag, err);
    return CLI_FAIL;
}

/* ------------------------------------------------------------------ runs */

void cli_run_init(cli_run_t *r, const struct option *opts) {
    memset(r, 0, sizeof *r);
    r->opts = opts;
    r->games_min = 1;
    r->games_max = 1ull << 40;
    r->seed = 1;
    r->threads = 1;
}

static int run_take(const char *cmd, void *state, int opt, const char *arg) {
    cli_run_t *r = state;
    char err[256];
    switch (opt) {
    case CLI_OPT_RUN: r->dir = arg; return 1;
    case CLI_OPT_GAMES:
        if (params_u64(arg, r->games_min, r->games_max, &r->games, err, sizeof err)) {
            cli_error(cmd, "--games: %s", err);
            return -1;
        }
        if (r->games_even && r->games % 2) {
            cli_error(cmd, "--games: %llu is odd; games are played in colour-swapped pairs",
                      (unsigned long long)r->games);
            return -1;
        }
        r->games_set = true;
        return 1;
    case CLI_OPT_SEED: return cli_parse_u64(cmd, "--seed", arg, &r->seed) ? -1 : 1;
    case CLI_OPT_THREADS:
        return cli_parse_long(cmd, "--threads", arg, 1, 1024, &r->threads) ? -1 : 1;
    case CLI_OPT_QUIET: r->quiet = true; return 1;
    }
    return 0;
}

cli_group_t cli_run_group(cli_run_t *r) {
    return (cli_group_t){r->opts, run_take, r};
}

int cli_cores(void) {
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

/* ------------------------------------------------------------------ openings */

void cli_openings_init(cli_openings_t *o, unsigned allow, long max_turns) {
    memset(o, 0, sizeof *o);
    o->allow = allow;
    o->max_turns = max_turns;
}

/* book:FILE[,T] into o (the path without its ",T"). */
static int take_book(const char *cmd, cli_openings_t *o, const char *arg) {
    if (snprintf(o->book, sizeof o->book, "%s", arg) >= (int)sizeof o->book) {
        cli_error(cmd, "--openings book:FILE: path too long");
        return -1;
    }
    o->book_temp = 0.1;
    char *comma = strrchr(o->book, ',');
    if (comma) {
        *comma = 0;
        if (cli_parse_double(cmd, "--openings book:FILE,T", comma + 1, 0, 100, &o->book_temp))
            return -1;
    }
    if (!o->book[0]) {
        cli_error(cmd, "--openings book:FILE: no FILE");
        return -1;
    }
    return 1;
}

static int openings_take(const char *cmd, void *state, int opt, const char *arg) {
    cli_openings_t *o = state;
    if (opt != CLI_OPT_OPENINGS && opt != CLI_OPT_BOOK) return 0;
    static const char *const names[] = {"random:K", "policy:K", "none", "lines:FILE", "book:FILE"};
    int kind = CLI_OPEN_LINES;
    const char *k = NULL, *flag = opt == CLI_OPT_BOOK ? "--book" : "--openings";
    if (opt == CLI_OPT_BOOK) {
        if (bk_is_book_file(arg)) kind = CLI_OPEN_BOOK;
    } else if (!strcmp(arg, "none")) {
        kind = CLI_OPEN_NONE;
    } else if (!strncmp(arg, "random:", 7)) {
        kind = CLI_OPEN_RANDOM, k = arg + 7;
    } else if (!strncmp(arg, "policy:", 7)) {
        kind = CLI_OPEN_POLICY, k = arg + 7;
    } else if (!strncmp(arg, "lines:", 6)) {
        arg += 6;
    } else if (!strncmp(arg, "book:", 5)) {
        kind = CLI_OPEN_BOOK, arg += 5;
    } else if (*arg >= '0' && *arg <= '9') {
        kind = CLI_OPEN_RANDOM, k = arg; /* K alone: random:K */
    } else {
        cli_error(cmd,
                  "--openings: '%s' is not random:K, policy:K, lines:FILE, book:FILE[,T] or none",
                  arg);
        return -1;
    }
    if (!(o->allow & (unsigned)kind)) {
        char list[96] = "";
        for (int i = 0; i < 5; i++)
            if (o->allow & (1u << i))
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "",
                         names[i]);
        const int at = kind == CLI_OPEN_LINES    ? 3
                       : kind == CLI_OPEN_POLICY ? 1
                       : kind == CLI_OPEN_BOOK   ? 4
                       : kind == CLI_OPEN_NONE   ? 2
                                                 : 0;
        cli_error(cmd, "%s: `gounki %s` does not play %s openings (it has %s)", flag, cmd,
                  names[at], list);
        return -1;
    }
    if (kind == CLI_OPEN_BOOK) return take_book(cmd, o, arg);
    if (kind == CLI_OPEN_LINES) {
        if (!*arg) {
            cli_error(cmd, "%s: no FILE", flag);
            return -1;
        }
        o->lines = arg;
        return 1;
    }
    o->kind = kind;
    o->turns = 0;
    if (k && cli_parse_long(cmd, "--openings", k, 0, o->max_turns, &o->turns)) return -1;
    return 1;
}

cli_group_t cli_openings_group(cli_openings_t *o) {
    static const struct option opts[] = {CLI_OPENINGS_LONGOPTS, {0, 0, 0, 0}};
    return (cli_group_t){opts, openings_take, o};
}

/* ------------------------------------------------------------------ SPRT */

void cli_sprt_init(cli_sprt_t *s, const elo_sprt_t *p) {
    s->on = false;
    s->p = *p;
}

static int sprt_take(const char *cmd, void *state, int opt, const char *arg) {
    cli_sprt_t *s = state;
    char err[256], buf[128];
    switch (opt) {
    case CLI_OPT_SPRT: {
        const char *comma = strchr(arg, ',');
        if (!comma || strchr(comma + 1, ',') || (size_t)(comma - arg) >= sizeof buf) {
            cli_error(cmd, "--sprt: '%s' is not ELO0,ELO1 (e.g. 0,10)", arg);
            return -1;
        }
        memcpy(buf, arg, (size_t)(comma - arg));
        buf[comma - arg] = 0;
        if (params_double(buf, -1000, 1000, &s->p.elo0, err, sizeof err) ||
            params_double(comma + 1, -1000, 1000, &s->p.elo1, err, sizeof err)) {
            cli_error(cmd, "--sprt: %s", err);
            return -1;
        }
        s->on = true;
        return 1;
    }
    case CLI_OPT_ALPHA:
        return cli_parse_double(cmd, "--alpha", arg, 1e-6, 0.49, &s->p.alpha) ? -1 : 1;
    case CLI_OPT_BETA: return cli_parse_double(cmd, "--beta", arg, 1e-6, 0.49, &s->p.beta) ? -1 : 1;
    }
    return 0;
}

cli_group_t cli_sprt_group(cli_sprt_t *s) {
    static const struct option opts[] = {CLI_LONGOPT_SPRT, CLI_LONGOPTS_SPRT_ERRORS, {0, 0, 0, 0}};
    return (cli_group_t){opts, sprt_take, s};
}

int cli_sprt_check(const char *cmd, const cli_sprt_t *s) {
    char err[256];
    if (!s->on || elo_sprt_check(&s->p, err, sizeof err) == 0) return 0;
    cli_error(cmd, "--sprt: %s", err);
    return CLI_USAGE;
}

/* ------------------------------------------------------------------ the tuner */

enum { T_INT, T_LONG, T_DOUBLE, T_ON, T_OFF, T_LOSS, T_TARGET };

/* The tuner's options, one row each: the flags, the setter and the help come from here.
 *   X(ID, FLAG, VALUE NAME (NULL: a switch), TYPE, FIELD of tune_run_opts_t, MIN, MAX, HELP) */
#define TUNE_OPTIONS(X)                                                                            \
    X(target, "target", "T", T_TARGET, data.target, 0, 0,                                          \
      "result, value (the search's root value) or mix:L (L x result + (1-L) x value)")             \
    X(loss, "loss", "L", T_LOSS, fit.loss, 0, 0, "xent (cross-entropy) or mse (Texel)")            \
    X(policy, "policy", NULL, T_ON, data.policy, 0, 0,                                             \
      "also fit the policy weights to the visit distributions")                                    \
    X(epochs, "epochs", "E", T_INT, fit.epochs, 0, 100000, "at most E passes")                     \
    X(batch, "batch", "B", T_INT, fit.batch, 1, 1 << 24, "samples per Adam step")                  \
    X(lr, "lr", "X", T_DOUBLE, fit.lr, 1e-9, 100, "Adam step in logit units")                      \
    X(l2, "l2", "X", T_DOUBLE, fit.l2, 0, 1e6, "penalty on the change from the start weights")     \
    X(patience, "patience", "N", T_INT, fit.patience, 1, 100000,                                   \
      "stop after N epochs without a better validation loss")                                      \
    X(val, "val", "FRAC", T_DOUBLE, val_frac, 0, 0.9, "share of GAMES held out for validation")    \
    X(keep_scale, "keep-scale", NULL, T_OFF, fit_k, 0, 0,                                          \
      "keep the start file's scale instead of fitting K")                                          \
    X(min_positions, "min-positions", "N", T_LONG, min_positions, 1, 1099511627776.0,              \
      "refuse to fit on fewer training positions")

typedef struct tune_row {
    const char *name, *arg;
    int type;
    size_t off;
    double lo, hi;
    const char *help;
} tune_row_t;

#define CLI_OPT_TUNE      0x1501
#define TUNE_ID_(id, ...) TUNE_##id,
enum { TUNE_OPTIONS(TUNE_ID_) NTUNE };
#define TUNE_ROW_(id, flag, arg, type, field, lo, hi, help)                                        \
    {flag, arg, type, offsetof(tune_run_opts_t, field), lo, hi, help},
static const tune_row_t tune_rows[] = {TUNE_OPTIONS(TUNE_ROW_)};
#define TUNE_OPT_(id, flag, arg, type, ...)                                                        \
    {flag, type == T_ON || type == T_OFF ? no_argument : required_argument, 0,                     \
     CLI_OPT_TUNE + TUNE_##id},
static const struct option tune_opts[] = {TUNE_OPTIONS(TUNE_OPT_){0, 0, 0, 0}};

static int tune_take(const char *cmd, void *state, int opt, const char *arg) {
    if (opt < CLI_OPT_TUNE || opt >= CLI_OPT_TUNE + NTUNE) return 0;
    const tune_row_t *r = &tune_rows[opt - CLI_OPT_TUNE];
    tune_run_opts_t *o = state;
    char *f = (char *)o + r->off, flag[32], err[256];
    snprintf(flag, sizeof flag, "--%s", r->name);
    long long n;
    int k;
    switch (r->type) {
    case T_ON: *(int *)f = 1; return 1;
    case T_OFF: *(int *)f = 0; return 1;
    case T_INT:
    case T_LONG:
        if (params_int(arg, (long long)r->lo, (long long)r->hi, &n, err, sizeof err)) break;
        if (r->type == T_INT)
            *(int *)f = (int)n;
        else
            *(long *)f = (long)n;
        return 1;
    case T_DOUBLE:
        if (params_double(arg, r->lo, r->hi, (double *)f, err, sizeof err)) break;
        return 1;
    case T_LOSS:
        if (params_choice(arg, "xent|mse", &k, err, sizeof err)) break;
        *(int *)f = k == 0 ? TUNE_XENT : TUNE_MSE;
        return 1;
    case T_TARGET:
        if (!strncmp(arg, "mix:", 4)) {
            if (params_double(arg + 4, 0, 1, &o->data.mix, err, sizeof err)) {
                cli_error(cmd, "--target mix:L: %s", err);
                return -1;
            }
            o->data.target = TUNE_TARGET_MIX;
            return 1;
        }
        if (params_choice(arg, "result|value", &k, err, sizeof err)) {
            cli_error(cmd, "--target: '%s' is not result, value or mix:L", arg);
            return -1;
        }
        o->data.target = k == 0 ? TUNE_TARGET_RESULT : TUNE_TARGET_VALUE;
        return 1;
    }
    cli_error(cmd, "%s: %s", flag, err);
    return -1;
}

cli_group_t cli_tune_group(tune_run_opts_t *o) {
    return (cli_group_t){tune_opts, tune_take, o};
}

void cli_tune_help(FILE *f) {
    tune_run_opts_t d;
    tune_run_opts_default(&d);
    for (int i = 0; i < NTUNE; i++) {
        const tune_row_t *r = &tune_rows[i];
        const char *v = (const char *)&d + r->off;
        char lhs[40], def[64] = "";
        snprintf(lhs, sizeof lhs, "--%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
        switch (r->type) {
        case T_INT: snprintf(def, sizeof def, " (default %d)", *(const int *)v); break;
        case T_LONG: snprintf(def, sizeof def, " (default %ld)", *(const long *)v); break;
        case T_DOUBLE: snprintf(def, sizeof def, " (default %g)", *(const double *)v); break;
        case T_LOSS:
            snprintf(def, sizeof def, " (default %s)",
                     *(const int *)v == TUNE_MSE ? "mse" : "xent");
            break;
        case T_TARGET:
            snprintf(def, sizeof def, " (default %s)",
                     d.data.target == TUNE_TARGET_VALUE ? "value"
                     : d.data.target == TUNE_TARGET_MIX ? "mix"
                                                        : "result");
            break;
        }
        /* "  --flag V  help (default D)", wrapped at 90 columns under the help */
        char text[320];
        snprintf(text, sizeof text, "%s%s", r->help, def);
        int col = fprintf(f, "  %-18s", lhs);
        char *save = NULL;
        for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            if (col + 1 + (int)strlen(w) > 90) col = fprintf(f, "\n%20s", "");
            col += fprintf(f, " %s", w);
        }
        fputc('\n', f);
    }
}
