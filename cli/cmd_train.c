/* cli/cmd_train.c -- `gounki train`: self-play -> tune -> gate -> promote, under mpirun. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../search/params.h"
#include "../selfplay/train.h"
#include "cli.h"

const char cmd_train_summary[] = "training loop: self-play, tune, gate, promote (MPI)";

static const char *const CMD = "train";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *f, const cli_search_t *sr) {
    fputs("usage: [mpirun -np R] gounki train --run DIR [options]\n"
          "\n"
          "Each generation: self-play with the best weights on every rank, tune on the last\n"
          "K generations' logs (rank 0, OpenMP), play the candidate against the best in\n"
          "colour-swapped pairs, promote it when it wins, and place every promoted\n"
          "generation on an Elo ladder against generation 0.  Everything lands in DIR;\n"
          "rerunning the same command resumes after a kill; other settings are refused\n"
          "(naming the one that differs) unless no generation had finished, which\n"
          "restarts the run with them.  While rank 0 tunes and plays\n"
          "matches the other ranks wait in a sleeping barrier (they use no CPU).\n"
          "With Open MPI use 'mpirun --bind-to none' so that rank 0 may use their cores.\n"
          "\n"
          "  --run DIR          run directory (created; resumed when it exists)\n"
          "  --generations G    finish this many generations (default 4)\n"
          "  --games N          self-play games per generation (default 200)\n"
          "  --openings O       random:K (K random turns; K alone says the same) or none,\n"
          "                     self-play and matches (default random:4)\n"
          "  --match-games M    gating match games, even (default 100)\n" CLI_SPRT_HELP
          "                     (--sprt gates by SPRT, at most --match-games games)\n"
          "  --gate interval|score  without SPRT, promote when the 95% Elo interval is above\n"
          "                     0 (interval, default) or when the score is above 50%\n"
          "  --ladder-games L   games of each promoted generation vs generation 0 (default\n"
          "                     100; 0 = no ladder)\n"
          "  --window K         tune on the logs of the last K generations (default 2)\n"
          "  --from FILE        start weights (generation 0; default the shipped ones)\n"
          "  --seed S           run seed (default 1)\n"
          "  --threads T        threads per rank in self-play, one game each (default: all)\n"
          "  --rank0-threads T  threads of rank 0 for tuning and matches (default: ranks x\n"
          "                     threads, at most the cores; use mpirun --bind-to none)\n"
          "  --policy-gens N    with --policy: fit the policy in the first N generations\n"
          "                     only (default 0: every generation)\n"
          "  --quiet            only errors and the final report\n" CLI_RESIGN_HELP
          "                     or 'off' (default: on at -0.95,0.1 for Gobs, off for\n"
          "                     Gounki)\n" CLI_ADJUDICATE_HELP
          "                     (default; see docs/RULES.md)\n" CLI_RULES_HELP CLI_TURNS_HELP
          "the tuner (as for 'gounki tune'):\n",
          f);
    cli_tune_help(f);
    fputs("the search of self-play and the matches (a resumed run needs the same; seed= is\n"
          "drawn from --seed, threads= is per game, out of --threads):\n",
          f);
    cli_search_help(f, sr);
    fputs("\nOutput: DIR/report.txt (table), DIR/ladder.svg (plot), DIR/report.html (the\n"
          "page, with sample games of each generation in DIR/games/), DIR/state.txt (resume),\n"
          "DIR/gen-GGG/{logs,weights.txt,match.txt}.\n",
          f);
}

enum {
    O_GENS = 0x2001,
    O_MATCH,
    O_GATE,
    O_LADDER,
    O_WINDOW,
    O_FROM,
    O_THREADS0,
    O_PGENS,
    O_RESIGN,
    O_ADJUD
};

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    train_opts_t *o = state;
    long v;
    int k;
    char err[200];
    switch (opt) {
    case O_GENS:
        if (cli_parse_long(cmd, "--generations", arg, 1, TRAIN_MAX_GENERATIONS, &v)) return -1;
        o->generations = (int)v;
        return 1;
    case O_MATCH:
    case O_LADDER: {
        const char *flag = opt == O_MATCH ? "--match-games" : "--ladder-games";
        if (cli_parse_long(cmd, flag, arg, opt == O_MATCH ? 2 : 0, 10000000, &v)) return -1;
        if (v % 2) {
            cli_error(cmd, "%s: must be even (colour-swapped pairs)", flag);
            return -1;
        }
        *(opt == O_MATCH ? &o->match_games : &o->ladder_games) = (int)v;
        return 1;
    }
    case O_GATE:
        if (params_choice(arg, "interval|score", &k, err, sizeof err)) {
            cli_error(cmd, "--gate: %s", err);
            return -1;
        }
        o->gate = k == 0 ? TRAIN_GATE_INTERVAL : TRAIN_GATE_SCORE;
        return 1;
    case O_WINDOW:
        if (cli_parse_long(cmd, "--window", arg, 1, TRAIN_MAX_GENERATIONS, &v)) return -1;
        o->window = (int)v;
        return 1;
    case O_FROM: o->from = arg; return 1;
    case O_RESIGN: {
        bool on;
        if (cli_parse_resign(cmd, arg, &on, &o->resign_value, &o->resign_share)) return -1;
        o->resign = on;
        return 1;
    }
    case O_ADJUD:
        return cli_parse_adjudicate(cmd, arg, &o->adj_turn, &o->adj_lead, &o->adj_span) ? -1 : 1;
    case O_THREADS0:
        if (cli_parse_long(cmd, "--rank0-threads", arg, 1, 1024, &v)) return -1;
        o->threads0 = (int)v;
        return 1;
    case O_PGENS:
        if (cli_parse_long(cmd, "--policy-gens", arg, 0, TRAIN_MAX_GENERATIONS, &v)) return -1;
        o->policy_gens = (int)v;
        return 1;
    }
    return 0;
}

/* The search options into o: a playout budget (--playouts, or --set playouts=), the
 * parameters, nodes= and early_stop=; the seed and budgets in time are refused. */
static int take_search(const cli_search_t *sr, train_opts_t *o) {
    const mcts_config_t *c = &sr->cfg;
    if (mcts_config_isset(c, "seed")) {
        cli_error(CMD, "seed: train seeds each game's search from --seed and the game");
        return CLI_USAGE;
    }
    if (mcts_config_isset(c, "time") || mcts_config_isset(c, "clock") ||
        mcts_config_isset(c, "inc")) {
        cli_error(CMD, "train plays a playout budget (--playouts): a budget in time would make "
                       "its generations irreproducible");
        return CLI_USAGE;
    }
    if (c->l.playouts < 1 || c->l.playouts > 100000000) {
        cli_error(CMD, "--playouts: %llu is out of range [1, 100000000]",
                  (unsigned long long)c->l.playouts);
        return CLI_USAGE;
    }
    o->playouts = (int)c->l.playouts;
    o->mcts = c->p;
    o->limits = c->l;
    return CLI_OK;
}

/* Reads the options into o.  Every rank parses the same argv; only rank 0 reports. */
static int options(int argc, char **argv, train_opts_t *o, cli_search_t *sr, int rank) {
    static const struct option run_opts[] = {CLI_LONGOPT_RUN,   CLI_LONGOPT_GAMES,
                                             CLI_LONGOPT_SEED,  CLI_LONGOPT_THREADS,
                                             CLI_LONGOPT_QUIET, {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"generations", required_argument, 0, O_GENS},
                                             {"match-games", required_argument, 0, O_MATCH},
                                             {"gate", required_argument, 0, O_GATE},
                                             {"ladder-games", required_argument, 0, O_LADDER},
                                             {"window", required_argument, 0, O_WINDOW},
                                             {"from", required_argument, 0, O_FROM},
                                             {"rank0-threads", required_argument, 0, O_THREADS0},
                                             {"policy-gens", required_argument, 0, O_PGENS},
                                             {"resign", required_argument, 0, O_RESIGN},
                                             {"adjudicate", required_argument, 0, O_ADJUD},
                                             {0, 0, 0, 0}};
    /* silence the shared helpers on other ranks */
    if (rank != 0 && !freopen("/dev/null", "w", stderr)) return CLI_FAIL;
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    po.allow = CLI_POS_RULES | CLI_POS_TURN_LIMIT;
    po.why = "training starts from the start position";
    cli_run_t run;
    cli_run_init(&run, run_opts);
    run.games = (uint64_t)o->games;
    run.games_max = 100000000;
    run.seed = o->seed;
    run.threads = o->threads; /* 0: all cores */
    cli_openings_t op;
    cli_openings_init(&op, CLI_OPEN_RANDOM | CLI_OPEN_NONE, 200);
    cli_sprt_t sprt;
    cli_sprt_init(&sprt, &o->sprt_params);
    const cli_group_t groups[] = {cli_pos_group(&po),       cli_run_group(&run),
                                  cli_openings_group(&op),  cli_sprt_group(&sprt),
                                  cli_tune_group(&o->tune), cli_search_group(sr),
                                  {own_opts, own_take, o}};
    int first, rc = cli_getopt(CMD, argc, argv, groups, 7, 0, &first);
    if (rc) return rc;
    if ((rc = take_search(sr, o))) return rc;
    if (!run.dir) {
        cli_error(CMD, "--run DIR is required (see 'gounki train --help')");
        return CLI_USAGE;
    }
    if ((rc = cli_sprt_check(CMD, &sprt))) return rc;
    o->dir = run.dir;
    o->games = (int)run.games;
    o->seed = run.seed;
    o->threads = (int)run.threads;
    o->quiet = run.quiet;
    if (op.kind) o->openings = (int)op.turns; /* none: 0 */
    o->sprt = sprt.on;
    o->sprt_params = sprt.p;
    if ((rc = cli_rules(CMD, &po, &o->rules))) return rc;
    train_opts_endings(o);
    if (o->adj_turn > 0 && o->rules.game != GK_GAME_GOBS) {
        cli_error(CMD, "--adjudicate: only Gobs games are adjudicated (docs/RULES.md)");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cmd_train(int argc, char **argv) {
    bool abandoned = false;
    cli_catch_stop_signals(on_signal, false); /* before MPI_Init, which can take long */
    if (cli_mpi_begin(CMD)) return CLI_FAIL;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    train_opts_t o;
    train_opts_default(&o);
    mcts_limits_t lim = o.limits;
    lim.playouts = (uint64_t)o.playouts;
    cli_search_t sr;
    cli_search_init(&sr, &o.mcts, &lim, CLI_SEARCH_NO_TIME);
    int rc = options(argc, argv, &o, &sr, rank);
    if (rc == CLI_HELP) {
        if (rank == 0) usage(stdout, &sr);
        rc = CLI_OK;
    } else if (rc == CLI_OK) {
        o.stop = &stop_flag;
        o.mpi_abandoned = &abandoned;
        char err[1024];
        if (train_run(&o, err, sizeof err)) {
            if (rank == 0) cli_error(CMD, "%s", err);
            rc = CLI_FAIL;
        }
    }
    cli_mpi_end(abandoned);
    return rc;
}
