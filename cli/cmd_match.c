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
    fprintf(
        f,
        "usage: gounki match --a SPEC --b SPEC --games N [options]\n"
        "\n"
        "Plays N games between players A and B as colour-swapped pairs from the same\n"
        "opening, and prints wins/draws/losses for A, the Elo difference A - B with its\n"
        "95%% interval (from the pentanomial pair results) and, with --sprt, the test's\n"
        "log-likelihood ratio; the SPRT stops the match as soon as it decides.\n"
        "\n"
        "  --a SPEC, --b SPEC  players: random | greedy[:eval=classic|ours]\n"
        "                      | ab[:depth=D,time=S,eval=classic|ours,weights=FILE]\n"
        "                      | mcts[:playouts=N,time=S,threads=T,weights=FILE,...]\n"
        "  --games N           number of games, even (default 100)\n"
        "  --openings K        random turns played before the players take over (default 4,\n"
        "                      0 with --book)\n"
        "  --book FILE         opening lines (docs/FORMATS.md, \"Opening lines\"): pair i plays\n"
        "                      line (i + a seeded offset) mod the number of lines\n"
        "  --seed S            seed of the openings and of the players (default 1)\n"
        "  --threads T         games played at once (default: the number of cores)\n"
        "  --sprt E0,E1        stop early: H0 elo = E0 against H1 elo = E1\n"
        "  --alpha X, --beta X SPRT error rates (default 0.05 each)\n"
        "  --pgn FILE          write the counted games as game records to FILE\n"
        "  --quiet             no progress lines, only the summary\n" CLI_POS_HELP "\n"
        "MCTS parameters (mcts:NAME=VALUE,...):\n%s",
        mcts_params_help());
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
    else
        snprintf(buf, cap, "%+.1f", v);
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

static int parse_sprt(const char *s, double *e0, double *e1) {
    char *end;
    *e0 = strtod(s, &end);
    if (end == s || *end != ',') return -1;
    const char *t = end + 1;
    *e1 = strtod(t, &end);
    if (end == t || *end || !isfinite(*e0) || !isfinite(*e1)) return -1;
    return 0;
}

int cmd_match(int argc, char **argv) {
    enum {
        O_A = 0x2001,
        O_B,
        O_GAMES,
        O_OPEN,
        O_SEED,
        O_THREADS,
        O_SPRT,
        O_ALPHA,
        O_BETA,
        O_PGN,
        O_QUIET,
        O_HELP,
        O_BOOK
    };
    static const struct option longopts[] = {
        {"a", required_argument, 0, O_A},
        {"b", required_argument, 0, O_B},
        {"games", required_argument, 0, O_GAMES},
        {"openings", required_argument, 0, O_OPEN},
        {"book", required_argument, 0, O_BOOK},
        {"seed", required_argument, 0, O_SEED},
        {"threads", required_argument, 0, O_THREADS},
        {"sprt", required_argument, 0, O_SPRT},
        {"alpha", required_argument, 0, O_ALPHA},
        {"beta", required_argument, 0, O_BETA},
        {"pgn", required_argument, 0, O_PGN},
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},
        CLI_POS_LONGOPTS,
        {0, 0, 0, 0},
    };
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    match_opts_t o;
    memset(&o, 0, sizeof o);
    o.games = 100;
    o.opening_plies = 4;
    o.seed = 1;
    o.threads = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
    o.sprt_params.alpha = o.sprt_params.beta = 0.05;
    const char *pgn = NULL, *book_path = NULL;
    int quiet = 0, openings_set = 0;
    static book_t book;
    long v;
    double x;

    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int r = cli_pos_option(CMD, &po, opt, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        switch (opt) {
        case O_A: o.spec_a = optarg; break;
        case O_B: o.spec_b = optarg; break;
        case O_GAMES:
            if (cli_parse_long(CMD, "--games", optarg, 2, 10000000, &v)) return CLI_USAGE;
            o.games = (int)v;
            break;
        case O_OPEN:
            if (cli_parse_long(CMD, "--openings", optarg, 0, 200, &v)) return CLI_USAGE;
            o.opening_plies = (int)v;
            openings_set = 1;
            break;
        case O_BOOK: book_path = optarg; break;
        case O_SEED:
            if (cli_parse_u64(CMD, "--seed", optarg, &o.seed)) return CLI_USAGE;
            break;
        case O_THREADS:
            if (cli_parse_long(CMD, "--threads", optarg, 1, 1024, &v)) return CLI_USAGE;
            o.threads = (int)v;
            break;
        case O_SPRT:
            if (parse_sprt(optarg, &o.sprt_params.elo0, &o.sprt_params.elo1)) {
                cli_error(CMD, "--sprt: '%s' is not ELO0,ELO1 (e.g. 0,10)", optarg);
                return CLI_USAGE;
            }
            o.sprt = true;
            break;
        case O_ALPHA:
            if (cli_parse_double(CMD, "--alpha", optarg, 1e-6, 0.49, &x)) return CLI_USAGE;
            o.sprt_params.alpha = x;
            break;
        case O_BETA:
            if (cli_parse_double(CMD, "--beta", optarg, 1e-6, 0.49, &x)) return CLI_USAGE;
            o.sprt_params.beta = x;
            break;
        case O_PGN: pgn = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_HELP: usage(stdout); return CLI_OK;
        default: return cli_bad_option(CMD, argc, argv);
        }
    }
    if (optind < argc) {
        cli_error(CMD, "unexpected argument '%s' (see 'gounki match --help')", argv[optind]);
        return CLI_USAGE;
    }
    if (!o.spec_a || !o.spec_b) {
        cli_error(CMD, "both --a SPEC and --b SPEC are needed (see 'gounki match --help')");
        return CLI_USAGE;
    }
    if (o.games % 2) {
        cli_error(CMD, "--games: %d is odd; games are played in colour-swapped pairs", o.games);
        return CLI_USAGE;
    }
    int rc = cli_load_position(CMD, &po, &o.start, NULL);
    if (rc) return rc;
    if (gk_over(&o.start)) {
        cli_error(CMD, "the start position is already finished");
        return CLI_FAIL;
    }
    char err[512];
    if (book_path) {
        gk_rules_t r;
        if ((rc = cli_rules(CMD, &po, &r))) return rc;
        if (book_load(book_path, &r, &book, err, sizeof err)) {
            cli_error(CMD, "--book: %s", err);
            return CLI_FAIL;
        }
        o.book = &book;
        if (!openings_set) o.opening_plies = 0; /* the book line is the opening */
    }
    if (match_check(&o, err, sizeof err)) {
        cli_error(CMD, "%s", err);
        return CLI_USAGE;
    }
    /* Build each player once to report a bad spec as a usage error before anything runs. */
    for (int k = 0; k < 2; k++) {
        player_t *pl = player_new(k ? o.spec_b : o.spec_a, o.start.game, err, sizeof err);
        if (!pl) {
            cli_error(CMD, "--%s: %s", k ? "b" : "a", err);
            return CLI_USAGE;
        }
        player_free(pl);
    }

    ctx_t c = {.quiet = quiet, .o = &o};
    if (pgn) {
        c.pgn = fopen(pgn, "w");
        if (!c.pgn) {
            cli_error(CMD, "--pgn: cannot write '%s'", pgn);
            return CLI_FAIL;
        }
    }
    o.on_pair = on_pair;
    o.ctx = &c;

    const gk_game_t *g = gk_game_of(&o.start);
    printf("match: A = %s, B = %s\n", o.spec_a, o.spec_b);
    printf("game %s (%s), %d games as %d colour-swapped pairs, openings of %d random turns, "
           "seed %llu, %d game%s at once\n",
           g->name, g->variants[o.start.variant], o.games, o.games / 2, o.opening_plies,
           (unsigned long long)o.seed, o.threads, o.threads > 1 ? "s" : "");
    fflush(stdout);

    match_stats_t st;
    int r = match_run(&o, &st, err, sizeof err);
    if (c.pgn && fclose(c.pgn)) c.write_failed = 1;
    if (r) {
        cli_error(CMD, "%s", err);
        return CLI_FAIL;
    }
    uint64_t n = st.w + st.d + st.l;
    printf("\nresult: %llu games (%d pairs), A: +%llu =%llu -%llu, score %.2f%%\n",
           (unsigned long long)n, st.pairs_counted, (unsigned long long)st.w,
           (unsigned long long)st.d, (unsigned long long)st.l,
           n ? 100.0 * ((double)st.w + 0.5 * (double)st.d) / (double)n : 0.0);
    printf("pairs (A's points 0, 1/2, 1, 3/2, 2): %llu %llu %llu %llu %llu\n",
           (unsigned long long)st.penta[0], (unsigned long long)st.penta[1],
           (unsigned long long)st.penta[2], (unsigned long long)st.penta[3],
           (unsigned long long)st.penta[4]);
    printf("white won %llu, black won %llu, %llu drawn; average length %.1f turns\n",
           (unsigned long long)st.white_wins, (unsigned long long)st.black_wins,
           (unsigned long long)st.d, n ? (double)st.plies / (double)n : 0.0);
    if (st.elo_ok) {
        printf("A - B: ");
        print_elo(stdout, &st);
        printf(" (95%%, pentanomial%s), LOS %.1f%%\n",
               st.elo.degenerate ? "; every pair scored the same: Wilson interval" : "",
               100.0 * st.elo.los);
    }
    if (st.sprt) {
        printf("SPRT elo0 %g elo1 %g alpha %g beta %g: LLR %.3f [%.3f, %.3f] -> %s\n",
               o.sprt_params.elo0, o.sprt_params.elo1, o.sprt_params.alpha, o.sprt_params.beta,
               st.llr, st.llr_lower, st.llr_upper,
               st.sprt_state == ELO_SPRT_H1   ? "H1 accepted (A is stronger by elo1)"
               : st.sprt_state == ELO_SPRT_H0 ? "H0 accepted (A is not stronger by elo1)"
                                              : "undecided");
    }
    printf(
        "thinking: A %.1f s, %llu playouts/nodes (%.0f/s); B %.1f s, %llu (%.0f/s); wall %.1f s\n",
        st.seconds_a, (unsigned long long)st.work_a,
        st.seconds_a > 0 ? (double)st.work_a / st.seconds_a : 0.0, st.seconds_b,
        (unsigned long long)st.work_b, st.seconds_b > 0 ? (double)st.work_b / st.seconds_b : 0.0,
        st.wall_s);
    if (c.write_failed) {
        cli_error(CMD, "--pgn: writing '%s' failed", pgn);
        return CLI_FAIL;
    }
    return CLI_OK;
}
