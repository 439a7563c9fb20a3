/* cli/common.c -- errors, strict flag parsing, the getopt loop, position options, MPI start/end. */
#include "cli.h"

#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../search/params.h"

void cli_catch_stop_signals(void (*handler)(int), bool restart) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_mpi_begin(const char *cmd) {
    int inited = 0, provided = 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS ||
        (!inited && (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS ||
                     provided < MPI_THREAD_FUNNELED))) {
        cli_error(cmd, "MPI setup failed (MPI_THREAD_FUNNELED)");
        return 1;
    }
    return 0;
}

void cli_mpi_end(bool abandoned) {
    int fin = 0;
    fflush(stdout);
    fflush(stderr);
    if (abandoned || MPI_Finalized(&fin) != MPI_SUCCESS || fin) return;
    /* Open MPI's MPI_Finalize holds the ranks together, but the standard does not say so. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
}

void cli_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "gounki%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_parse_long(const char *cmd, const char *flag, const char *s, long lo, long hi, long *out) {
    char err[200];
    long long v;
    if (params_int(s, lo, hi, &v, err, sizeof err)) {
        cli_error(cmd, "%s: %s", flag, err);
        return -1;
    }
    *out = (long)v;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t *out) {
    char err[200];
    if (params_u64(s, 0, UINT64_MAX, out, err, sizeof err)) {
        cli_error(cmd, "%s: %s", flag, err);
        return -1;
    }
    return 0;
}

int cli_parse_u64_in(const char *cmd, const char *flag, const char *s, uint64_t lo, uint64_t hi,
                     uint64_t *out) {
    char err[200];
    if (params_u64(s, lo, hi, out, err, sizeof err)) {
        cli_error(cmd, "%s: %s", flag, err);
        return -1;
    }
    return 0;
}

int cli_parse_double(const char *cmd, const char *flag, const char *s, double lo, double hi,
                     double *out) {
    char err[200];
    if (params_double(s, lo, hi, out, err, sizeof err)) {
        cli_error(cmd, "%s: %s", flag, err);
        return -1;
    }
    return 0;
}

int cli_getopt(const char *cmd, int argc, char **argv, const cli_group_t *groups, int ngroups,
               int max_operands, int *first) {
    struct option all[CLI_MAX_OPTS + 2];
    int owner[CLI_MAX_OPTS + 2], n = 0;
    for (int g = 0; g < ngroups; g++)
        for (const struct option *o = groups[g].opts; o && o->name; o++) {
            if (n >= CLI_MAX_OPTS) {
                cli_error(cmd, "internal error: more than %d options", CLI_MAX_OPTS);
                return CLI_USAGE;
            }
            owner[n] = g;
            all[n++] = *o;
        }
    all[n++] = (struct option){"help", no_argument, 0, 'h'};
    all[n] = (struct option){0, 0, 0, 0};
    optind = 1;
    opterr = 0;
    int c, idx;
    while ((idx = -1, c = getopt_long(argc, argv, ":h", all, &idx)) != -1) {
        if (c == 'h') return CLI_HELP;
        if (c == '?' || c == ':' || idx < 0 || idx >= n - 1) return cli_bad_option(cmd, argc, argv);
        const cli_group_t *g = &groups[owner[idx]];
        int r = g->take(cmd, g->state, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r == 0) {
            cli_error(cmd, "internal error: option '--%s' has no taker", all[idx].name);
            return CLI_USAGE;
        }
    }
    if (max_operands >= 0 && argc - optind > max_operands) {
        cli_error(cmd, "unexpected argument '%s' (see 'gounki %s --help')",
                  argv[optind + max_operands], cmd);
        return CLI_USAGE;
    }
    *first = optind;
    return 0;
}

void cli_pos_defaults(cli_pos_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->turn_limit = GK_DEFAULT_TURN_LIMIT;
    o->allow = CLI_POS_ALL;
}

int cli_pos_option(const char *cmd, cli_pos_opts_t *o, int opt, const char *arg) {
    static const struct {
        int opt;
        unsigned bit;
        const char *name;
    } bits[] = {{CLI_OPT_GAME, CLI_POS_RULES, "--game"},
                {CLI_OPT_VARIANT, CLI_POS_RULES, "--variant"},
                {CLI_OPT_POSITION, CLI_POS_START, "--position"},
                {CLI_OPT_MOVES, CLI_POS_START, "--moves"},
                {CLI_OPT_TURN_LIMIT, CLI_POS_TURN_LIMIT, "--turn-limit"}};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (bits[i].opt == opt && !(o->allow & bits[i].bit)) {
            cli_error(cmd, "%s does not apply%s%s", bits[i].name, o->why ? ": " : "",
                      o->why ? o->why : "");
            return -1;
        }
    switch (opt) {
    case CLI_OPT_GAME: o->game = arg; return 1;
    case CLI_OPT_VARIANT: o->variant = arg; return 1;
    case CLI_OPT_POSITION: o->position = arg; return 1;
    case CLI_OPT_MOVES: o->moves = arg; return 1;
    case CLI_OPT_TURN_LIMIT:
        return cli_parse_long(cmd, "--turn-limit", arg, 0, GK_MAX_TURN_LIMIT, &o->turn_limit) ? -1
                                                                                              : 1;
    default: return 0;
    }
}

static int pos_take(const char *cmd, void *state, int opt, const char *arg) {
    return cli_pos_option(cmd, state, opt, arg);
}

cli_group_t cli_pos_group(cli_pos_opts_t *o) {
    static const struct option opts[] = {CLI_POS_LONGOPTS, {0, 0, 0, 0}};
    return (cli_group_t){opts, pos_take, o};
}

/* The game whose position strings read `text` (they name their rule set, so at most one
 * does), or NULL with every game's reason in err. */
static const gk_game_t *game_of_position(const char *text, long turn_limit, char *err, size_t cap) {
    size_t n = 0;
    err[0] = 0;
    for (int i = 0; i < GK_NGAMES; i++) {
        const gk_game_t *g = gk_game_by_id(i);
        gk_pos_t p;
        char e[256];
        if (g->pos_from_text(&p, text, (uint16_t)turn_limit, e, sizeof e) == 0) return g;
        int k = snprintf(err + n, n < cap ? cap - n : 0, "%sas %s: %s", i ? "; " : "", g->name, e);
        if (k > 0) n += (size_t)k;
    }
    return NULL;
}

int cli_rules(const char *cmd, const cli_pos_opts_t *o, gk_rules_t *rules) {
    const gk_game_t *g = NULL;
    if (o->game && !(g = gk_game_by_name(o->game))) {
        cli_error(cmd, "--game: unknown game '%s' (gounki, gobs)", o->game);
        return CLI_USAGE;
    }
    int v = -1; /* the variant the position string names, when it reads */
    if (o->position) {
        char err[600];
        gk_pos_t p;
        if (!g && !(g = game_of_position(o->position, o->turn_limit, err, sizeof err))) {
            cli_error(cmd, "--position: not a position of any game (%s)", err);
            return CLI_FAIL;
        }
        if (g->pos_from_text(&p, o->position, (uint16_t)o->turn_limit, err, sizeof err) == 0)
            v = p.variant;
    }
    if (!g) g = gk_game_by_name("gounki");
    int vv = v >= 0 ? v : 0;
    if (o->variant) {
        vv = gk_variant_by_name(g, o->variant);
        if (vv < 0) {
            cli_error(cmd, "--variant: %s has no variant '%s'", g->name, o->variant);
            return CLI_USAGE;
        }
        if (v >= 0 && v != vv) {
            cli_error(cmd, "--position: the position is for variant '%s', not '%s'", g->variants[v],
                      o->variant);
            return CLI_USAGE;
        }
    }
    rules->game = 0;
    for (int i = 0; i < GK_NGAMES; i++)
        if (gk_game_by_id(i) == g) rules->game = (uint8_t)i;
    rules->variant = (uint8_t)vv;
    rules->turn_limit = (uint16_t)o->turn_limit;
    return 0;
}

int cli_load_position(const char *cmd, const cli_pos_opts_t *o, gk_pos_t *pos, gk_hist_t *hist) {
    gk_rules_t r;
    int rc = cli_rules(cmd, o, &r);
    if (rc) return rc;
    const gk_game_t *g = gk_game_by_id(r.game);
    char err[256];
    if (o->position) {
        if (g->pos_from_text(pos, o->position, r.turn_limit, err, sizeof err) < 0) {
            cli_error(cmd, "--position: %s", err);
            return CLI_FAIL;
        }
        if (pos->variant != r.variant) {
            cli_error(cmd, "--position: the position is for variant '%s', not '%s'",
                      g->variants[pos->variant], g->variants[r.variant]);
            return CLI_USAGE;
        }
    } else {
        g->setup(pos, &r);
    }
    if (hist) gk_hist_init(hist, pos);
    if (!o->moves) return 0;

    /* Moves are whitespace-separated complete moves in the compact notation. */
    const char *s = o->moves;
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n') s++;
        if (!*s) break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n') e++;
        char tok[GK_MOVE_TEXT_MAX];
        size_t len = (size_t)(e - s);
        n++;
        if (len >= sizeof tok) {
            cli_error(cmd, "--moves: move %d is too long", n);
            return CLI_FAIL;
        }
        memcpy(tok, s, len);
        tok[len] = 0;
        if (gk_play_move_text(pos, tok, err, sizeof err) < 0) {
            cli_error(cmd, "--moves: move %d '%s': %s", n, tok, err);
            return CLI_FAIL;
        }
        if (hist) gk_end_turn(pos, hist);
        s = e;
    }
    return 0;
}

int cli_bad_option(const char *cmd, int argc, char **argv) {
    const char *what = (optind > 0 && optind <= argc) ? argv[optind - 1] : "?";
    if (optopt && optopt < 0x1000)
        cli_error(cmd, "bad or incomplete option '-%c' (see 'gounki %s --help')", optopt, cmd);
    else
        cli_error(cmd, "bad or incomplete option '%s' (see 'gounki %s --help')", what, cmd);
    return CLI_USAGE;
}
