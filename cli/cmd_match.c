/* cli/cmd_match.c -- `gounki match`: two players, colour-swapped pairs, Elo and SPRT. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/mcts.h"
#include "../search/player.h"
#include "../selfplay/match.h"
#include "../common/files.h"
#include "../common/strbuf.h"
#include "cli.h"
#include "record_out.h"

int cmd_match(int argc, char **argv);
extern const char cmd_match_summary[];
const char cmd_match_summary[] =
    "engines against each other (two, a gauntlet, a round robin): W/D/L, Elo, SPRT";

static const char *const CMD = "match";

static void usage(FILE *f) {
    char help[MCTS_HELP_MAX];
    mcts_params_help(help, sizeof help, NULL, NULL);
    fprintf(f,
            "usage: gounki match --a SPEC --b SPEC --games N [options]\n"
            "       gounki match --gauntlet|--round-robin --player SPEC --player SPEC ... "
            "[options]\n"
            "\n"
            "Plays N games between players A and B as colour-swapped pairs from the same\n"
            "opening, and prints wins/draws/losses for A, the Elo difference A - B with its\n"
            "95%% interval (from the pentanomial pair results) and, with --sprt, the test's\n"
            "log-likelihood ratio; the SPRT stops the match as soon as it decides.\n"
            "\n"
            "  --a SPEC, --b SPEC players: random | greedy[:eval=classic|ours,weights=FILE]\n"
            "                     | ab[:depth=D,time=S,eval=classic|ours,weights=FILE,tt_mb=M,\n"
            "                       id=on|off,randomize=K] (id=off: the move and score of one\n"
            "                       fixed-depth search in move-generation order without\n"
            "                       iterative deepening, table or ordering, found faster;\n"
            "                       randomize=K: a seeded pick among the K best\n"
            "                       root moves in the first 4 turns; both need depth=;\n"
            "                       ab:depth=7,eval=classic,id=off,randomize=16 is the\n"
            "                       online robot)\n"
            "                     | mcts[:playouts=N,time=S,threads=T,weights=FILE,...]\n"
            "                     | cmd:PROGRAM ARGS... (an engine speaking docs/PROTOCOL.md,\n"
            "                     e.g. 'cmd:gounki engine --playouts 500')\n"
            "  --games N          number of games, even (default 100)\n" CLI_OPENINGS_HELP
            "                     (not policy:K; default random:4; with lines:FILE, pair i\n"
            "                     plays line (i + a seeded offset) mod the number of lines,\n"
            "                     then random:K turns if given)\n"
            "  --seed S           seed of the openings and of the players (default 1)\n"
            "  --threads T        threads in all (default: the number of cores): T / S games\n"
            "                     at once, S the most search threads of a player "
            "(threads=)\n" CLI_SPRT_HELP
            "  --tc BASE[+INC]    time control per game: BASE seconds on each side's clock,\n"
            "                     INC added per move; a side whose clock runs out loses on\n"
            "                     time (built-in players get the clock as their budget)\n"
            "  --timeout S        how long an engine (cmd:) may stay silent: past its clock\n"
            "                     with --tc (default 1), per move without (default 60);\n"
            "                     then it loses the game, is killed and started again\n"
            "  --pgn FILE         write the counted games as game records to FILE\n"
            "  --gauntlet, --round-robin  more than two players, each --player SPEC (in\n"
            "                     order): player 1 against each other one, or every pair;\n"
            "                     N games a pairing; a table of the pairings (Elo with its\n"
            "                     95%% interval) and a ranking by a maximum-likelihood Elo fit\n"
            "  --json FILE        the results as JSON (players, fitted Elo, pairings)\n"
            "  --quiet            no progress lines, only the summary\n" CLI_POS_HELP "\n"
            "MCTS parameters (mcts:NAME=VALUE,...):\n%s",
            help);
}

typedef struct ctx {
    int quiet;
    FILE *pgn;
    const match_opts_t *o;
    int write_failed;
    double last_print;
    int pairing; /* 1.. in a gauntlet or round robin, 0 in a match of two */
} ctx_t;

static void fmt_elo(double v, char *buf, size_t cap) {
    if (isinf(v))
        snprintf(buf, cap, "%sinf", v > 0 ? "+" : "-");
    else /* a value that rounds to zero is +0.0, never -0.0 */
        snprintf(buf, cap, "%+.1f", fabs(v) < 0.05 ? 0.0 : v);
}

static void print_elo(FILE *f, const match_stats_t *st) {
    char e[32], lo[32], hi[32];
    if (!st->elo_ok) return;
    fmt_elo(st->elo.elo, e, sizeof e);
    fmt_elo(st->elo.lo, lo, sizeof lo);
    fmt_elo(st->elo.hi, hi, sizeof hi);
    fprintf(f, "Elo %s [%s, %s]", e, lo, hi);
}

static void on_pair(void *vc, const match_game_t *g0, const match_game_t *g1,
                    const match_stats_t *st) {
    ctx_t *c = vc;
    if (c->pgn) {
        const match_game_t *gs[2] = {g0, g1};
        for (int k = 0; k < 2; k++) {
            const match_game_t *g = gs[k];
            const char *white = g->a_white ? c->o->spec_a : c->o->spec_b;
            const char *black = g->a_white ? c->o->spec_b : c->o->spec_a;
            char round[32];
            if (c->pairing)
                snprintf(round, sizeof round, "%d.%d", c->pairing, g->index + 1);
            else
                snprintf(round, sizeof round, "%d", g->index + 1);
            if (record_write_game_term(c->pgn, &g->start, g->actions, g->nactions, g->result,
                                       g->reason, g->termination, "gounki match", round, white,
                                       black) < 0)
                c->write_failed = 1;
        }
        fflush(c->pgn);
    }
    if (c->quiet) return;
    const match_game_t *gs[2] = {g0, g1};
    for (int k = 0; k < 2; k++)
        if (gs[k]->end != MATCH_END_RULES)
            printf("game %d: %s (%s) lost: %s\n", gs[k]->index + 1, gs[k]->end_a ? "A" : "B",
                   gs[k]->end_a ? c->o->spec_a : c->o->spec_b, gs[k]->termination);
    uint64_t n = st->w + st->d + st->l;
    fprintf(stdout, "pair %d/%d  games %llu: +%llu =%llu -%llu  score %.1f%%  ", st->pairs_counted,
            st->games_total / 2, (unsigned long long)n, (unsigned long long)st->w,
            (unsigned long long)st->d, (unsigned long long)st->l,
            n ? 100.0 * ((double)st->w + 0.5 * (double)st->d) / (double)n : 0.0);
    print_elo(stdout, st);
    if (st->sprt) fprintf(stdout, "  LLR %.2f [%.2f, %.2f]", st->llr, st->llr_lower, st->llr_upper);
    if (st->moves_a && st->moves_b)
        fprintf(stdout, "  s/move A %.3f (max %.2f) B %.3f (max %.2f)",
                st->seconds_a / (double)st->moves_a, st->max_a, st->seconds_b / (double)st->moves_b,
                st->max_b);
    fprintf(stdout, "\n");
    fflush(stdout);
}

enum { O_A = 0x2001, O_B, O_PGN, O_TC, O_TIMEOUT, O_PLAYER, O_GAUNTLET, O_RR, O_JSON };

#define MAX_PLAYERS 32
enum { MODE_TWO = 0, MODE_GAUNTLET, MODE_RR };

typedef struct own {
    const char *a, *b, *pgn, *json;
    double tc_base, tc_inc, timeout; /* timeout < 0: not given */
    const char *players[MAX_PLAYERS];
    int nplayers, mode;
} own_t;

/* --tc BASE[+INC], seconds. */
static int parse_tc(const char *arg, own_t *o) {
    char base[64];
    const char *plus = strchr(arg, '+');
    size_t k = plus ? (size_t)(plus - arg) : strlen(arg);
    if (k >= sizeof base) k = sizeof base - 1;
    memcpy(base, arg, k);
    base[k] = 0;
    if (cli_parse_double(CMD, "--tc", base, 0.001, 1e7, &o->tc_base)) return -1;
    o->tc_inc = 0;
    if (plus && cli_parse_double(CMD, "--tc", plus + 1, 0, 1e7, &o->tc_inc)) return -1;
    return 1;
}

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    (void)cmd;
    switch (opt) {
    case O_A: o->a = arg; return 1;
    case O_B: o->b = arg; return 1;
    case O_PGN: o->pgn = arg; return 1;
    case O_TC: return parse_tc(arg, o);
    case O_JSON: o->json = arg; return 1;
    case O_GAUNTLET:
    case O_RR:
        if (o->mode && o->mode != (opt == O_RR ? MODE_RR : MODE_GAUNTLET)) {
            cli_error(cmd, "--gauntlet and --round-robin exclude each other");
            return -1;
        }
        o->mode = opt == O_RR ? MODE_RR : MODE_GAUNTLET;
        return 1;
    case O_PLAYER:
        if (o->nplayers == MAX_PLAYERS) {
            cli_error(cmd, "--player: at most %d players", MAX_PLAYERS);
            return -1;
        }
        o->players[o->nplayers++] = arg;
        return 1;
    case O_TIMEOUT:
        return cli_parse_double(cmd, "--timeout", arg, 0.001, 1e6, &o->timeout) ? -1 : 1;
    }
    return 0;
}

/* Reads the options into o (and the book).  Returns an exit status, or CLI_HELP. */
static int options(int argc, char **argv, match_opts_t *o, own_t *own, int *quiet,
                   ol_lines_t *book) {
    static const struct option run_opts[] = {
        CLI_LONGOPT_GAMES, CLI_LONGOPT_SEED, CLI_LONGOPT_THREADS, CLI_LONGOPT_QUIET, {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"a", required_argument, 0, O_A},
                                             {"b", required_argument, 0, O_B},
                                             {"pgn", required_argument, 0, O_PGN},
                                             {"tc", required_argument, 0, O_TC},
                                             {"timeout", required_argument, 0, O_TIMEOUT},
                                             {"player", required_argument, 0, O_PLAYER},
                                             {"gauntlet", no_argument, 0, O_GAUNTLET},
                                             {"round-robin", no_argument, 0, O_RR},
                                             {"json", required_argument, 0, O_JSON},
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    cli_run_t run;
    cli_run_init(&run, run_opts);
    run.games = 100;
    run.games_min = 2;
    run.games_max = 10000000;
    run.games_even = true;
    run.threads = cli_cores();
    cli_openings_t op;
    cli_openings_init(&op, CLI_OPEN_RANDOM | CLI_OPEN_NONE | CLI_OPEN_LINES, 200);
    cli_sprt_t sprt;
    cli_sprt_init(&sprt, &(elo_sprt_t){0, 0, 0.05, 0.05});
    const cli_group_t groups[] = {cli_pos_group(&po),
                                  cli_run_group(&run),
                                  cli_openings_group(&op),
                                  cli_sprt_group(&sprt),
                                  {own_opts, own_take, own}};
    int first, rc = cli_getopt(CMD, argc, argv, groups, 5, 0, &first);
    if (rc) return rc;
    if (own->mode) {
        if (own->a || own->b) {
            cli_error(CMD, "--gauntlet and --round-robin take --player SPEC for each player, "
                           "not --a/--b");
            return CLI_USAGE;
        }
        if (own->nplayers < 2) {
            cli_error(CMD, "--gauntlet and --round-robin need at least two --player SPEC");
            return CLI_USAGE;
        }
    } else {
        if (own->nplayers) {
            cli_error(CMD, "--player is for --gauntlet or --round-robin (two players: --a, --b)");
            return CLI_USAGE;
        }
        if (!own->a || !own->b) {
            cli_error(CMD, "both --a SPEC and --b SPEC are needed (see 'gounki match --help')");
            return CLI_USAGE;
        }
        own->players[0] = own->a;
        own->players[1] = own->b;
        own->nplayers = 2;
    }
    if ((rc = cli_sprt_check(CMD, &sprt))) return rc;
    o->spec_a = own->players[0];
    o->spec_b = own->players[1];
    o->games = (int)run.games;
    o->seed = run.seed;
    o->sprt = sprt.on;
    o->sprt_params = sprt.p;
    o->tc_base_s = own->tc_base;
    o->tc_inc_s = own->tc_inc;
    o->timeout_s = own->timeout > 0 ? own->timeout : own->tc_base > 0 ? 1 : 60;
    *quiet = run.quiet;
    /* A book line is the opening unless random turns are asked for too. */
    o->opening_turns = op.kind ? (int)op.turns : op.lines ? 0 : 4;
    if ((rc = cli_load_position(CMD, &po, &o->start, NULL))) return rc;
    if (gk_over(&o->start)) {
        cli_error(CMD, "the start position is already finished");
        return CLI_FAIL;
    }
    char err[512];
    if (op.lines) {
        gk_rules_t r;
        if ((rc = cli_rules(CMD, &po, &r))) return rc;
        if (ol_load(op.lines, &r, book, err, sizeof err)) {
            cli_error(CMD, "--openings lines:FILE: %s", err);
            return CLI_FAIL;
        }
        o->book = book;
    }
    /* Each player is built once here, so that a bad spec or weight file is reported before
     * anything runs; its search threads decide the games played at once. */
    int most = 1;
    for (int k = 0; k < own->nplayers; k++) {
        player_t *pl;
        const char *spec = own->players[k];
        char flag[32];
        if (own->mode)
            snprintf(flag, sizeof flag, "--player %d", k + 1);
        else
            snprintf(flag, sizeof flag, "%s", k ? "--b" : "--a");
        if (match_spec_is_cmd(spec)) {
            if (!spec[4]) {
                cli_error(CMD, "%s: 'cmd:' needs a command (cmd:PROGRAM ARGS...)", flag);
                return CLI_USAGE;
            }
            continue; /* started and checked by match_run() */
        }
        if ((rc = cli_new_player(CMD, flag, spec, o->start.game, &pl))) return rc;
        if (player_threads(pl) > most) most = player_threads(pl);
        player_free(pl);
    }
    o->threads = run.threads / most > 0 ? (int)(run.threads / most) : 1;
    if (match_check(o, err, sizeof err)) {
        cli_error(CMD, "%s", err);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static void print_summary(const match_opts_t *o, const match_stats_t *st) {
    uint64_t n = st->w + st->d + st->l;
    printf("\nresult: %llu games (%d pairs), A: +%llu =%llu -%llu, score %.2f%%\n",
           (unsigned long long)n, st->pairs_counted, (unsigned long long)st->w,
           (unsigned long long)st->d, (unsigned long long)st->l,
           n ? 100.0 * ((double)st->w + 0.5 * (double)st->d) / (double)n : 0.0);
    printf("pairs (A's points 0, 1/2, 1, 3/2, 2): %llu %llu %llu %llu %llu\n",
           (unsigned long long)st->penta[0], (unsigned long long)st->penta[1],
           (unsigned long long)st->penta[2], (unsigned long long)st->penta[3],
           (unsigned long long)st->penta[4]);
    printf("white won %llu, black won %llu, %llu drawn; average length %.1f turns\n",
           (unsigned long long)st->white_wins, (unsigned long long)st->black_wins,
           (unsigned long long)st->d, n ? (double)st->turns / (double)n : 0.0);
    if (st->elo_ok) {
        printf("A - B: ");
        print_elo(stdout, st);
        printf(" (95%%, pentanomial%s), LOS %.1f%%\n",
               st->elo.degenerate ? "; every pair scored the same: Wilson interval" : "",
               100.0 * st->elo.los);
    }
    if (st->sprt) {
        printf("SPRT elo0 %g elo1 %g alpha %g beta %g: LLR %.3f [%.3f, %.3f] -> %s\n",
               o->sprt_params.elo0, o->sprt_params.elo1, o->sprt_params.alpha, o->sprt_params.beta,
               st->llr, st->llr_lower, st->llr_upper,
               st->sprt_state == ELO_SPRT_H1   ? "H1 accepted (A is stronger by elo1)"
               : st->sprt_state == ELO_SPRT_H0 ? "H0 accepted (A is not stronger by elo1)"
                                               : "undecided");
    }
    printf(
        "thinking: A %.1f s, %llu playouts/nodes (%.0f/s); B %.1f s, %llu (%.0f/s); wall %.1f s\n",
        st->seconds_a, (unsigned long long)st->work_a,
        st->seconds_a > 0 ? (double)st->work_a / st->seconds_a : 0.0, st->seconds_b,
        (unsigned long long)st->work_b,
        st->seconds_b > 0 ? (double)st->work_b / st->seconds_b : 0.0, st->wall_s);
    printf("time per move: A %.3f s mean, %.3f s max (%llu moves); B %.3f s mean, %.3f s max "
           "(%llu moves)\n",
           st->moves_a ? st->seconds_a / (double)st->moves_a : 0.0, st->max_a,
           (unsigned long long)st->moves_a, st->moves_b ? st->seconds_b / (double)st->moves_b : 0.0,
           st->max_b, (unsigned long long)st->moves_b);
    for (int k = 0; k < 2; k++) {
        char buf[256] = "";
        size_t len = 0;
        for (int e = 1; e < MATCH_NENDS; e++)
            if (st->ends[k][e])
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%llu %s", len ? ", " : "",
                                        (unsigned long long)st->ends[k][e], match_end_name(e));
        if (len)
            printf("%s (%s) lost by faults: %s\n", k ? "B" : "A", k ? o->spec_b : o->spec_a, buf);
    }
}

/* ---- more than two players ---- */

typedef struct pairing {
    int a, b; /* player indices */
    match_stats_t st;
} pairing_t;

static uint64_t faults(const match_stats_t *st, int side) {
    uint64_t n = 0;
    for (int e = 1; e < MATCH_NENDS; e++) n += st->ends[side][e];
    return n;
}

static void json_num(gk_sb_t *sb, double v) {
    if (isfinite(v))
        gk_sb_printf(sb, "%.2f", v);
    else
        gk_sb_puts(sb, "null");
}

/* The result file: players with their fitted Elo, pairings with their counts. */
static int write_json(const char *path, const own_t *own, const match_opts_t *o,
                      const pairing_t *pr, int npr, const double *elo, const double *games,
                      const double *points) {
    static const char *const modes[] = {"match", "gauntlet", "round-robin"};
    const gk_game_t *g = gk_game_of(&o->start);
    gk_sb_t sb;
    gk_sb_growing(&sb);
    int n = own->nplayers;
    gk_sb_printf(&sb,
                 "{\"mode\":\"%s\",\"game\":\"%s\",\"variant\":\"%s\",\"games_per_pairing\":%d,"
                 "\"seed\":%llu,\"tc_base_s\":%g,\"tc_inc_s\":%g,\"players\":[",
                 modes[own->mode], g->name, g->variants[o->start.variant], o->games,
                 (unsigned long long)o->seed, o->tc_base_s, o->tc_inc_s);
    for (int i = 0; i < n; i++) {
        double gi = 0, pi = 0;
        for (int j = 0; j < n; j++) gi += games[i * n + j], pi += points[i * n + j];
        gk_sb_printf(&sb, "%s{\"spec\":", i ? "," : "");
        gk_sb_put_json(&sb, own->players[i]);
        gk_sb_puts(&sb, ",\"elo\":");
        json_num(&sb, elo[i]);
        gk_sb_printf(&sb, ",\"games\":%.0f,\"points\":%.1f}", gi, pi);
    }
    gk_sb_puts(&sb, "],\"pairings\":[");
    for (int k = 0; k < npr; k++) {
        const match_stats_t *st = &pr[k].st;
        uint64_t ng = st->w + st->d + st->l;
        gk_sb_printf(&sb,
                     "%s{\"a\":%d,\"b\":%d,\"games\":%llu,\"w\":%llu,\"d\":%llu,\"l\":%llu,"
                     "\"penta\":[%llu,%llu,%llu,%llu,%llu],\"score\":%.4f,\"elo\":",
                     k ? "," : "", pr[k].a + 1, pr[k].b + 1, (unsigned long long)ng,
                     (unsigned long long)st->w, (unsigned long long)st->d,
                     (unsigned long long)st->l, (unsigned long long)st->penta[0],
                     (unsigned long long)st->penta[1], (unsigned long long)st->penta[2],
                     (unsigned long long)st->penta[3], (unsigned long long)st->penta[4],
                     ng ? ((double)st->w + 0.5 * (double)st->d) / (double)ng : 0.0);
        json_num(&sb, st->elo_ok ? st->elo.elo : NAN);
        gk_sb_puts(&sb, ",\"elo_lo\":");
        json_num(&sb, st->elo_ok ? st->elo.lo : NAN);
        gk_sb_puts(&sb, ",\"elo_hi\":");
        json_num(&sb, st->elo_ok ? st->elo.hi : NAN);
        gk_sb_printf(&sb, ",\"faults_a\":%llu,\"faults_b\":%llu}",
                     (unsigned long long)faults(st, 0), (unsigned long long)faults(st, 1));
    }
    gk_sb_puts(&sb, "]}\n");
    char err[512];
    int rc = sb.over ? -1 : gk_write_atomic(path, sb.p, (size_t)sb.n, err, sizeof err);
    if (rc) cli_error(CMD, "--json: %s", sb.over ? "out of memory" : err);
    gk_sb_free(&sb);
    return rc ? CLI_FAIL : CLI_OK;
}

/* The table of the pairings and the ranking by the fitted Elo. */
static void print_table(const own_t *own, const pairing_t *pr, int npr, const double *elo,
                        const double *games, const double *points) {
    int n = own->nplayers;
    printf("\nplayers:\n");
    for (int i = 0; i < n; i++) printf("  %2d  %s\n", i + 1, own->players[i]);
    printf("\n%-9s %6s %5s %5s %5s %7s  %-24s %s\n", "pairing", "games", "+", "=", "-", "score",
           "Elo [95%]", "faults");
    for (int k = 0; k < npr; k++) {
        const match_stats_t *st = &pr[k].st;
        uint64_t ng = st->w + st->d + st->l;
        char e[32] = "-", lo[32] = "", hi[32] = "", el[96] = "-", pair[32];
        if (st->elo_ok) {
            fmt_elo(st->elo.elo, e, sizeof e);
            fmt_elo(st->elo.lo, lo, sizeof lo);
            fmt_elo(st->elo.hi, hi, sizeof hi);
            snprintf(el, sizeof el, "%s [%s, %s]", e, lo, hi);
        }
        snprintf(pair, sizeof pair, "%d - %d", pr[k].a + 1, pr[k].b + 1);
        printf("%-9s %6llu %5llu %5llu %5llu %6.1f%%  %-24s %llu/%llu\n", pair,
               (unsigned long long)ng, (unsigned long long)st->w, (unsigned long long)st->d,
               (unsigned long long)st->l,
               ng ? 100.0 * ((double)st->w + 0.5 * (double)st->d) / (double)ng : 0.0, el,
               (unsigned long long)faults(st, 0), (unsigned long long)faults(st, 1));
    }
    int order[MAX_PLAYERS];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && elo[order[j]] > elo[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    printf("\nranking (maximum-likelihood Elo over all games, player 1 = 0):\n");
    printf("%-5s %-7s %8s %6s %7s\n", "rank", "player", "Elo", "games", "score");
    for (int r = 0; r < n; r++) {
        int i = order[r];
        double gi = 0, pi = 0;
        for (int j = 0; j < n; j++) gi += games[i * n + j], pi += points[i * n + j];
        printf("%-5d %-7d %+8.1f %6.0f %6.1f%%\n", r + 1, i + 1, elo[i], gi,
               gi > 0 ? 100.0 * pi / gi : 0.0);
    }
}

/* Every pairing of a gauntlet (player 1 against each other) or a round robin (each pair). */
static int run_pairings(own_t *own, match_opts_t *o, ctx_t *c) {
    int n = own->nplayers, npr = 0;
    pairing_t *pr = calloc((size_t)(n * n), sizeof *pr);
    double *games = calloc((size_t)(n * n), sizeof *games);
    double *points = calloc((size_t)(n * n), sizeof *points);
    double elo[MAX_PLAYERS] = {0};
    int rc = CLI_OK;
    if (!pr || !games || !points) {
        cli_error(CMD, "out of memory");
        rc = CLI_FAIL;
    }
    for (int i = 0; i < n && !rc; i++)
        for (int j = i + 1; j < n; j++)
            if (own->mode != MODE_GAUNTLET || i == 0) pr[npr++] = (pairing_t){.a = i, .b = j};
    for (int k = 0; k < npr && !rc; k++) {
        o->spec_a = own->players[pr[k].a];
        o->spec_b = own->players[pr[k].b];
        c->pairing = own->mode ? k + 1 : 0;
        printf("%spairing %d/%d: A = %d %s, B = %d %s\n", k ? "\n" : "", k + 1, npr, pr[k].a + 1,
               o->spec_a, pr[k].b + 1, o->spec_b);
        fflush(stdout);
        char err[512];
        if (match_run(o, &pr[k].st, err, sizeof err)) {
            cli_error(CMD, "pairing %d - %d: %s", pr[k].a + 1, pr[k].b + 1, err);
            rc = CLI_FAIL;
            break;
        }
        print_summary(o, &pr[k].st);
        const match_stats_t *st = &pr[k].st;
        double ng = (double)(st->w + st->d + st->l), pa = (double)st->w + 0.5 * (double)st->d;
        games[pr[k].a * n + pr[k].b] += ng;
        games[pr[k].b * n + pr[k].a] += ng;
        points[pr[k].a * n + pr[k].b] += pa;
        points[pr[k].b * n + pr[k].a] += ng - pa;
    }
    char err[256];
    if (!rc && elo_fit(n, games, points, elo, err, sizeof err)) {
        cli_error(CMD, "the Elo fit: %s", err);
        rc = CLI_FAIL;
    }
    if (!rc) print_table(own, pr, npr, elo, games, points);
    if (!rc && own->json) rc = write_json(own->json, own, o, pr, npr, elo, games, points);
    free(pr);
    free(games);
    free(points);
    return rc;
}

int cmd_match(int argc, char **argv) {
    match_opts_t o;
    memset(&o, 0, sizeof o);
    own_t own = {.timeout = -1};
    int quiet = 0;
    static ol_lines_t book;
    int rc = options(argc, argv, &o, &own, &quiet, &book);
    if (rc == CLI_HELP) usage(stdout);
    if (rc) return rc == CLI_HELP ? CLI_OK : rc;

    ctx_t c = {.quiet = quiet, .o = &o};
    if (own.pgn && !(c.pgn = fopen(own.pgn, "w"))) {
        cli_error(CMD, "--pgn: cannot write '%s'", own.pgn);
        return CLI_FAIL;
    }
    o.on_pair = on_pair;
    o.ctx = &c;
    const gk_game_t *g = gk_game_of(&o.start);
    if (own.mode)
        printf("%s of %d players: ", own.mode == MODE_GAUNTLET ? "gauntlet" : "round robin",
               own.nplayers);
    else
        printf("match: A = %s, B = %s\n", o.spec_a, o.spec_b);
    printf("game %s (%s), %d games%s as %d colour-swapped pair%s, openings of %d random turn%s, "
           "seed %llu, %d game%s at once",
           g->name, g->variants[o.start.variant], o.games, own.mode ? " a pairing" : "",
           o.games / 2, o.games / 2 != 1 ? "s" : "", o.opening_turns,
           o.opening_turns != 1 ? "s" : "", (unsigned long long)o.seed, o.threads,
           o.threads > 1 ? "s" : "");
    if (o.tc_base_s > 0) printf(", time control %g+%g s", o.tc_base_s, o.tc_inc_s);
    printf("\n");
    fflush(stdout);
    if (own.mode || own.json) {
        rc = run_pairings(&own, &o, &c);
        if (c.pgn && fclose(c.pgn)) c.write_failed = 1;
        if (!rc && c.write_failed) {
            cli_error(CMD, "--pgn: writing '%s' failed", own.pgn);
            rc = CLI_FAIL;
        }
        return rc;
    }

    match_stats_t st;
    char err[512];
    int r = match_run(&o, &st, err, sizeof err);
    if (c.pgn && fclose(c.pgn)) c.write_failed = 1;
    if (r) {
        cli_error(CMD, "%s", err);
        return CLI_FAIL;
    }
    print_summary(&o, &st);
    if (c.write_failed) {
        cli_error(CMD, "--pgn: writing '%s' failed", own.pgn);
        return CLI_FAIL;
    }
    return CLI_OK;
}
