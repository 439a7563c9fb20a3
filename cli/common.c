/* cli/common.c -- error reporting, strict flag parsing and position options. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "gounki%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_parse_long(const char *cmd, const char *flag, const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end || errno) {
        cli_error(cmd, "%s: '%s' is not an integer", flag, s ? s : "");
        return -1;
    }
    if (v < lo || v > hi) {
        cli_error(cmd, "%s: %ld is out of range [%ld, %ld]", flag, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    if (!s || *s == '-' || *s == '+') {
        cli_error(cmd, "%s: '%s' is not a non-negative integer", flag, s ? s : "");
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno) {
        cli_error(cmd, "%s: '%s' is not a non-negative integer", flag, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *flag, const char *s, double lo, double hi,
                     double *out) {
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || errno || !isfinite(v)) {
        cli_error(cmd, "%s: '%s' is not a number", flag, s ? s : "");
        return -1;
    }
    if (v < lo || v > hi) {
        cli_error(cmd, "%s: %g is out of range [%g, %g]", flag, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

void cli_pos_defaults(cli_pos_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->game = "gounki";
    o->variant = "standard";
    o->max_plies = GK_DEFAULT_MAX_PLY;
}

int cli_pos_option(const char *cmd, cli_pos_opts_t *o, int opt, const char *arg) {
    switch (opt) {
    case CLI_OPT_GAME: o->game = arg; return 1;
    case CLI_OPT_VARIANT: o->variant = arg; return 1;
    case CLI_OPT_POSITION: o->position = arg; return 1;
    case CLI_OPT_MOVES: o->moves = arg; return 1;
    case CLI_OPT_MAX_PLIES:
        return cli_parse_long(cmd, "--max-plies", arg, 0, 65535, &o->max_plies) ? -1 : 1;
    default: return 0;
    }
}

int cli_rules(const char *cmd, const cli_pos_opts_t *o, gk_rules_t *rules) {
    const gk_game_t *g = gk_game_by_name(o->game);
    if (!g) {
        cli_error(cmd, "--game: unknown game '%s' (gounki, gobs)", o->game);
        return CLI_USAGE;
    }
    int v = gk_variant_by_name(g, o->variant);
    if (v < 0) {
        cli_error(cmd, "--variant: %s has no variant '%s'", g->name, o->variant);
        return CLI_USAGE;
    }
    rules->game = 0;
    for (int i = 0; i < GK_NGAMES; i++)
        if (gk_game_by_id(i) == g) rules->game = (uint8_t)i;
    rules->variant = (uint8_t)v;
    rules->max_plies = (uint16_t)o->max_plies;
    return 0;
}

int cli_load_position(const char *cmd, const cli_pos_opts_t *o, gk_pos_t *pos, gk_hist_t *hist) {
    gk_rules_t r;
    int rc = cli_rules(cmd, o, &r);
    if (rc) return rc;
    const gk_game_t *g = gk_game_by_id(r.game);
    char err[256];
    if (o->position) {
        if (g->pos_from_text(pos, o->position, r.max_plies, err, sizeof err) < 0) {
            cli_error(cmd, "--position: %s", err);
            return CLI_FAIL;
        }
        if (pos->variant != r.variant) {
            cli_error(cmd, "--position: the position is for variant '%s', not '%s'",
                      g->variants[pos->variant], o->variant);
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
        if (hist) {
            gk_hist_push(hist, pos);
            gk_hist_check_repetition(hist, pos);
        }
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
