/*
 * cli/cli.h -- what every subcommand of the `gounki` program shares.
 *
 * Each subcommand lives in cli/cmd_NAME.c and defines
 *     int cmd_NAME(int argc, char **argv);    argv[0] is "NAME"
 *     extern const char cmd_NAME_summary[];   one line for `gounki --help`
 * CMake finds the files and builds the dispatch table, so adding a command touches no
 * shared file.  A command returns its exit status: 0 success, 1 failure (bad data,
 * illegal move, I/O error), 2 usage error.  Only cli/ may call exit().
 * Errors are one line on stderr, "gounki NAME: what is wrong", via cli_error().
 */
#ifndef GK_CLI_H
#define GK_CLI_H

#include <getopt.h>
#include <stdint.h>

#include "../games/game.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict number parsing for flags: the whole string must be a number in [lo, hi].
 * On failure prints "gounki CMD: --FLAG: ..." and returns -1. */
int cli_parse_long(const char *cmd, const char *flag, const char *s, long lo, long hi, long *out);
int cli_parse_u64(const char *cmd, const char *flag, const char *s, uint64_t *out);
int cli_parse_double(const char *cmd, const char *flag, const char *s, double lo, double hi,
                     double *out);

/* The options that choose a game and a position, shared by every command that takes a
 * position.  Put CLI_POS_LONGOPTS in a getopt_long table and pass each option to
 * cli_pos_option(); it returns 1 when it took the option, 0 when it is not one of its
 * own, -1 on a bad value (already reported). */
typedef struct cli_pos_opts {
    const char *game;     /* --game NAME (default gounki) */
    const char *variant;  /* --variant NAME (default standard) */
    const char *position; /* --position STRING (default: the start position) */
    const char *moves;    /* --moves "M1 M2 ...": complete moves, whitespace-separated */
    long max_plies;       /* --max-plies N (default GK_DEFAULT_MAX_PLY; 0 = none) */
} cli_pos_opts_t;

#define CLI_OPT_GAME      0x1001
#define CLI_OPT_VARIANT   0x1002
#define CLI_OPT_POSITION  0x1003
#define CLI_OPT_MOVES     0x1004
#define CLI_OPT_MAX_PLIES 0x1005
#define CLI_POS_LONGOPTS                                                                           \
    {"game", required_argument, 0, CLI_OPT_GAME},                                                  \
        {"variant", required_argument, 0, CLI_OPT_VARIANT},                                        \
        {"position", required_argument, 0, CLI_OPT_POSITION},                                      \
        {"moves", required_argument, 0, CLI_OPT_MOVES},                                            \
        {"max-plies", required_argument, 0, CLI_OPT_MAX_PLIES}
#define CLI_POS_HELP                                                                               \
    "  --game NAME        gounki (default) or gobs\n"                                              \
    "  --variant NAME     rule set of the game (gobs: standard, short)\n"                          \
    "  --position STR     position string (docs/FORMATS.md); default the start\n"                \
    "  --moves \"M ...\"    complete moves played from that position\n"                            \
    "  --max-plies N      draw after N turns (default 500, 0 = no limit)\n"

void cli_pos_defaults(cli_pos_opts_t *o);
int cli_pos_option(const char *cmd, cli_pos_opts_t *o, int opt, const char *arg);
/* Resolves the game and rule set only. Returns 0, or an exit status after reporting. */
int cli_rules(const char *cmd, const cli_pos_opts_t *o, gk_rules_t *rules);
/* Builds the position (and its repetition history when hist is not NULL).
 * Returns 0, or an exit status after reporting. */
int cli_load_position(const char *cmd, const cli_pos_opts_t *o, gk_pos_t *pos, gk_hist_t *hist);

/* Reports an unknown option or a missing argument the way getopt_long found it, and
 * returns CLI_USAGE.  `opt` is getopt's return value ('?' or ':'). */
int cli_bad_option(const char *cmd, int argc, char **argv);

#endif
