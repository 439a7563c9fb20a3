/* cli/cmd_match.c -- `gounki match`: two players, colour-swapped pairs, Elo and SPRT. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/mcts.h"
#include "../search/player.h"
#include "../selfplay/match.h"
#include "cli.h"
#include "record_out.h"

int cmd_match(int argc, char **argv);
extern const char cmd_match_summary[];
const char cmd_match_summary[] = "play two engines against each other: W/D/L, Elo, SPRT";

static const char *const CMD = "match";

static void usage(FILE *f) {
    char help[MCTS_HELP_MAX];
    mcts_params_help(help, sizeof help, NULL, NULL);
    fprintf(f,
            "usage: gounki match --a SPEC --b SPEC --games N [options]\n"
            "\n"
            "Plays N games between players A and B as colour-swapped pairs from the same\n"
            "opening, and prints wins/draws/losses for A, the Elo difference A - B with its\n"
            "95%% interval (from the pentanomial pair results) and, with --sprt, the test's\n"
            "log-likelihood ratio; the SPRT stops the match as soon as it decides.\n"
            "\n"
            "  --a SPEC, --b SPEC players: random | greedy[:eval=classic|ours,weights=FILE]\n"
            "                     | ab[:depth=D,time=S,eval=classic|ours,weights=FILE,tt_mb=M]\n"
            "                     | mcts[:playouts=N,time=S,threads=T,weights=FILE,...]\n"
            "  --games N          number of games, even (default 100)\n" CLI_OPENINGS_HELP
            "                     (not policy:K; default random:4; with lines:FILE, pair i\n"
            "                     plays line (i + a seeded offset) mod the number of lines,\n"
            "                     then random:K turns if given)\n"
            "  --seed S           seed of the openings and of the players (default 1)\n"
            "  --threads T        threads in all (default: the number of cores): T / S games\n"
            "                     at once, S the most search threads of a player "
            "(threads=)\n" CLI_SPRT_HELP
            "  --pgn FILE         write the counted games as game records to FILE\n"
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
            snprintf(round, sizeof round, "%d", g->index + 1);
            if (record_write_game(c->pgn, &g->start, g->actions, g->nactions, g->result, g->reason,
                                  "gounki match", round, white, black) < 0)
                c->write_failed = 1;
        }
        fflush(c->pgn);
    }
    if (c->quiet) return;
    uint64_t n = st->w + st->d + st->l;
    fprintf(stdout, "pair %d/%d  games %llu: +%llu =%llu -%llu  score %.1f%%  ", st->pairs_counted,
            st->games_total / 2, (unsigned long long)n, (unsigned long long)st->w,
            (unsigned long long)st->d, (unsigned long long)st->l,
            n ? 100.0 * ((double)st->w + 0.5 * (double)st->d) / (double)n : 0.0);
    print_elo(stdout, st);
    if (st->sprt) fprintf(stdout, "  LLR %.2f [%.2f, %.2f]", st->llr, st->llr_lower, st->llr_upper);
    fprintf(stdout, "\n");
    fflush(stdout);
}

enum { O_A = 0x2001, O_B, O_PGN };

typedef struct own {
    const char *a, *b, *pgn;
} own_t;

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    (void)cmd;
    switch (opt) {
    case O_A: o->a = arg; return 1;
    case O_B: o->b = arg; return 1;
    case O_PGN: o->pgn = arg; return 1;
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
    if (!own->a || !own->b) {
        cli_error(CMD, "both --a SPEC and --b SPEC are needed (see 'gounki match --help')");
        return CLI_USAGE;
    }
    if ((rc = cli_sprt_check(CMD, &sprt))) return rc;
    o->spec_a = own->a;
    o->spec_b = own->b;
    o->games = (int)run.games;
    o->seed = run.seed;
    o->sprt = sprt.on;
    o->sprt_params = sprt.p;
    *quiet = run.quiet;
    /* A book line is the opening unless random turns are asked for too. */
    o->opening_plies = op.kind ? (int)op.turns : op.lines ? 0 : 4;
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
    for (int k = 0; k < 2; k++) {
        player_t *pl;
        if ((rc = cli_new_player(CMD, k ? "--b" : "--a", k ? own->b : own->a, o->start.game, &pl)))
            return rc;
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
           (unsigned long long)st->d, n ? (double)st->plies / (double)n : 0.0);
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
}

int cmd_match(int argc, char **argv) {
    match_opts_t o;
    memset(&o, 0, sizeof o);
    own_t own = {0};
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
    printf("match: A = %s, B = %s\n", o.spec_a, o.spec_b);
    printf("game %s (%s), %d games as %d colour-swapped pair%s, openings of %d random turn%s, "
           "seed %llu, %d game%s at once\n",
           g->name, g->variants[o.start.variant], o.games, o.games / 2, o.games / 2 > 1 ? "s" : "",
           o.opening_plies, o.opening_plies != 1 ? "s" : "", (unsigned long long)o.seed, o.threads,
           o.threads > 1 ? "s" : "");
    fflush(stdout);

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
