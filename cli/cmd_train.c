/* cli/cmd_train.c -- `gounki train`: self-play -> tune -> gate -> promote, under mpirun. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../selfplay/train.h"
#include "cli.h"

const char cmd_train_summary[] = "training loop: self-play, tune, gate, promote (MPI)";

static const char *const CMD = "train";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: [mpirun -np R] gounki train --run DIR [options]\n"
            "\n"
            "Each generation: self-play with the best weights on every rank, tune on the last\n"
            "K generations' logs (rank 0, OpenMP), play the candidate against the best in\n"
            "colour-swapped pairs, promote it when it wins, and place every promoted\n"
            "generation on an Elo ladder against generation 0.  Everything lands in DIR;\n"
            "rerunning the same command resumes after a kill.  While rank 0 tunes and plays\n"
            "matches the other ranks wait in a sleeping barrier (they use no CPU).\n"
            "With Open MPI use 'mpirun --bind-to none' so that rank 0 may use their cores.\n"
            "\n"
            "  --run DIR           run directory (created; resumed when it exists)\n"
            "  --generations G     finish this many generations (default 4)\n"
            "  --games N           self-play games per generation (default 200)\n"
            "  --playouts P        playouts per action, self-play and matches (default 200)\n"
            "  --openings K        random opening turns, self-play and matches (default 4)\n"
            "  --match-games M     gating match games, even (default 100)\n"
            "  --sprt E0,E1        gate by SPRT instead (at most --match-games games)\n"
            "  --gate interval|score  without SPRT, promote when the 95%% Elo interval is above\n"
            "                      0 (interval, default) or when the score is above 50%%\n"
            "  --ladder-games L    games of each promoted generation vs generation 0 (default\n"
            "                      100; 0 = no ladder)\n"
            "  --window K          tune on the logs of the last K generations (default 2)\n"
            "  --from FILE         start weights (generation 0; default the shipped ones)\n"
            "  --seed S            run seed (default 1)\n"
            "  --threads T         OpenMP threads per rank in self-play (default: all)\n"
            "  --rank0-threads T   threads of rank 0 for tuning and matches (default: ranks x\n"
            "                      threads, at most the cores; use mpirun --bind-to none)\n"
            "  --target, --loss, --policy, --epochs, --batch, --lr, --l2, --val,\n"
            "  --min-positions     tuner settings, as for 'gounki tune'\n"
            "  --policy-gens N     with --policy: fit the policy in the first N generations\n"
            "                      only (default 0: every generation)\n"
            "  --quiet             only errors and the final report\n"
            "  --game NAME, --variant NAME, --max-plies N   the rules (default gounki)\n"
            "\n"
            "Output: DIR/report.txt (table), DIR/ladder.svg (plot), DIR/state.txt (resume),\n"
            "DIR/gen-GGG/{logs,weights.txt,match.txt}.\n");
}

static int parse_sprt(const char *s, elo_sprt_t *p) {
    char *end;
    double a = strtod(s, &end);
    if (end == s || *end != ',') return -1;
    const char *t = end + 1;
    double b = strtod(t, &end);
    if (end == t || *end) return -1;
    p->elo0 = a;
    p->elo1 = b;
    return 0;
}

static int run(int argc, char **argv, train_opts_t *o, int rank) {
    enum {
        O_RUN = 0x2000,
        O_GENS,
        O_GAMES,
        O_PLAYOUTS,
        O_OPENINGS,
        O_MATCH,
        O_SPRT,
        O_GATE,
        O_LADDER,
        O_WINDOW,
        O_FROM,
        O_SEED,
        O_THREADS,
        O_THREADS0,
        O_TARGET,
        O_LOSS,
        O_POLICY,
        O_PGENS,
        O_EPOCHS,
        O_BATCH,
        O_LR,
        O_L2,
        O_VAL,
        O_MIN,
        O_QUIET,
        O_HELP
    };
    static const struct option opts[] = {
        {"run", required_argument, 0, O_RUN},
        {"generations", required_argument, 0, O_GENS},
        {"games", required_argument, 0, O_GAMES},
        {"playouts", required_argument, 0, O_PLAYOUTS},
        {"openings", required_argument, 0, O_OPENINGS},
        {"match-games", required_argument, 0, O_MATCH},
        {"sprt", required_argument, 0, O_SPRT},
        {"gate", required_argument, 0, O_GATE},
        {"ladder-games", required_argument, 0, O_LADDER},
        {"window", required_argument, 0, O_WINDOW},
        {"from", required_argument, 0, O_FROM},
        {"seed", required_argument, 0, O_SEED},
        {"threads", required_argument, 0, O_THREADS},
        {"rank0-threads", required_argument, 0, O_THREADS0},
        {"target", required_argument, 0, O_TARGET},
        {"loss", required_argument, 0, O_LOSS},
        {"policy", no_argument, 0, O_POLICY},
        {"policy-gens", required_argument, 0, O_PGENS},
        {"epochs", required_argument, 0, O_EPOCHS},
        {"batch", required_argument, 0, O_BATCH},
        {"lr", required_argument, 0, O_LR},
        {"l2", required_argument, 0, O_L2},
        {"val", required_argument, 0, O_VAL},
        {"min-positions", required_argument, 0, O_MIN},
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},
        CLI_POS_LONGOPTS,
        {0, 0, 0, 0},
    };
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    /* only rank 0 reports flag errors: every rank parses the same argv */
    const char *cmd = rank == 0 ? CMD : NULL;
    long v;
    int c;
    optind = 1;
    opterr = 0;
    if (rank != 0) {
        /* silence the shared helpers on other ranks */
        if (!freopen("/dev/null", "w", stderr)) return CLI_FAIL;
    }
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option(CMD, &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) {
            if (c == CLI_OPT_POSITION || c == CLI_OPT_MOVES) {
                cli_error(CMD, "training starts from the start position: no --position/--moves");
                return CLI_USAGE;
            }
            continue;
        }
        switch (c) {
        case O_RUN: o->dir = optarg; break;
        case O_GENS:
            if (cli_parse_long(CMD, "--generations", optarg, 1, TRAIN_MAX_GENERATIONS, &v))
                return CLI_USAGE;
            o->generations = (int)v;
            break;
        case O_GAMES:
            if (cli_parse_long(CMD, "--games", optarg, 1, 100000000, &v)) return CLI_USAGE;
            o->games = (int)v;
            break;
        case O_PLAYOUTS:
            if (cli_parse_long(CMD, "--playouts", optarg, 1, 100000000, &v)) return CLI_USAGE;
            o->playouts = (int)v;
            break;
        case O_OPENINGS:
            if (cli_parse_long(CMD, "--openings", optarg, 0, 200, &v)) return CLI_USAGE;
            o->openings = (int)v;
            break;
        case O_MATCH:
            if (cli_parse_long(CMD, "--match-games", optarg, 2, 10000000, &v)) return CLI_USAGE;
            if (v % 2) {
                cli_error(CMD, "--match-games: must be even (colour-swapped pairs)");
                return CLI_USAGE;
            }
            o->match_games = (int)v;
            break;
        case O_SPRT:
            if (parse_sprt(optarg, &o->sprt_params)) {
                cli_error(CMD, "--sprt: '%s' is not ELO0,ELO1", optarg);
                return CLI_USAGE;
            }
            o->sprt = true;
            break;
        case O_GATE:
            if (!strcmp(optarg, "interval"))
                o->gate = TRAIN_GATE_INTERVAL;
            else if (!strcmp(optarg, "score"))
                o->gate = TRAIN_GATE_SCORE;
            else {
                cli_error(CMD, "--gate: '%s' is not interval or score", optarg);
                return CLI_USAGE;
            }
            break;
        case O_LADDER:
            if (cli_parse_long(CMD, "--ladder-games", optarg, 0, 10000000, &v)) return CLI_USAGE;
            if (v % 2) {
                cli_error(CMD, "--ladder-games: must be even (colour-swapped pairs)");
                return CLI_USAGE;
            }
            o->ladder_games = (int)v;
            break;
        case O_WINDOW:
            if (cli_parse_long(CMD, "--window", optarg, 1, TRAIN_MAX_GENERATIONS, &v))
                return CLI_USAGE;
            o->window = (int)v;
            break;
        case O_FROM: o->from = optarg; break;
        case O_SEED:
            if (cli_parse_u64(CMD, "--seed", optarg, &o->seed)) return CLI_USAGE;
            break;
        case O_THREADS:
            if (cli_parse_long(CMD, "--threads", optarg, 1, 1024, &v)) return CLI_USAGE;
            o->threads = (int)v;
            break;
        case O_THREADS0:
            if (cli_parse_long(CMD, "--rank0-threads", optarg, 1, 1024, &v)) return CLI_USAGE;
            o->threads0 = (int)v;
            break;
        case O_TARGET:
            if (!strcmp(optarg, "result"))
                o->tune.data.target = TUNE_TARGET_RESULT;
            else if (!strcmp(optarg, "value"))
                o->tune.data.target = TUNE_TARGET_VALUE;
            else if (!strncmp(optarg, "mix:", 4)) {
                if (cli_parse_double(CMD, "--target mix:L", optarg + 4, 0, 1, &o->tune.data.mix))
                    return CLI_USAGE;
                o->tune.data.target = TUNE_TARGET_MIX;
            } else {
                cli_error(CMD, "--target: '%s' is not result, value or mix:L", optarg);
                return CLI_USAGE;
            }
            break;
        case O_LOSS:
            if (!strcmp(optarg, "xent"))
                o->tune.fit.loss = TUNE_XENT;
            else if (!strcmp(optarg, "mse"))
                o->tune.fit.loss = TUNE_MSE;
            else {
                cli_error(CMD, "--loss: '%s' is not xent or mse", optarg);
                return CLI_USAGE;
            }
            break;
        case O_POLICY: o->tune.data.policy = 1; break;
        case O_PGENS:
            if (cli_parse_long(CMD, "--policy-gens", optarg, 0, TRAIN_MAX_GENERATIONS, &v))
                return CLI_USAGE;
            o->policy_gens = (int)v;
            break;
        case O_EPOCHS:
            if (cli_parse_long(CMD, "--epochs", optarg, 0, 100000, &v)) return CLI_USAGE;
            o->tune.fit.epochs = (int)v;
            break;
        case O_BATCH:
            if (cli_parse_long(CMD, "--batch", optarg, 1, 1 << 24, &v)) return CLI_USAGE;
            o->tune.fit.batch = (int)v;
            break;
        case O_LR:
            if (cli_parse_double(CMD, "--lr", optarg, 1e-9, 100, &o->tune.fit.lr)) return CLI_USAGE;
            break;
        case O_L2:
            if (cli_parse_double(CMD, "--l2", optarg, 0, 1e6, &o->tune.fit.l2)) return CLI_USAGE;
            break;
        case O_VAL:
            if (cli_parse_double(CMD, "--val", optarg, 0, 0.9, &o->tune.val_frac)) return CLI_USAGE;
            break;
        case O_MIN:
            if (cli_parse_long(CMD, "--min-positions", optarg, 1, 1L << 40, &o->tune.min_positions))
                return CLI_USAGE;
            break;
        case O_QUIET: o->quiet = true; break;
        case 'h':
        case O_HELP:
            if (rank == 0) usage(stdout);
            return -1; /* help shown: exit 0 */
        default: return cli_bad_option(CMD, argc, argv);
        }
    }
    if (optind < argc) {
        cli_error(cmd, "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    if (!o->dir) {
        cli_error(CMD, "--run DIR is required (see 'gounki train --help')");
        return CLI_USAGE;
    }
    int rc = cli_rules(CMD, &po, &o->rules);
    if (rc) return rc;
    return CLI_OK;
}

int cmd_train(int argc, char **argv) {
    int inited = 0, provided;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    train_opts_t o;
    train_opts_default(&o);
    int rc = run(argc, argv, &o, rank);
    if (rc == -1) {
        rc = CLI_OK; /* --help */
    } else if (rc == CLI_OK) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        o.stop = &stop_flag;
        char err[1024];
        if (train_run(&o, err, sizeof err)) {
            if (rank == 0) cli_error(CMD, "%s", err);
            rc = CLI_FAIL;
        }
    }
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
    return rc;
}
