/* cli/cmd_selfplay.c -- `gounki selfplay`: self-play games into zstd game logs, on MPI ranks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../selfplay/selfplay.h"
#include "cli.h"

const char cmd_selfplay_summary[] = "self-play games into compressed logs (MPI ranks, resumable)";

static const char help[] =
    "usage: gounki selfplay --games N --out DIR [options]\n"
    "       mpirun -np R gounki selfplay --games N --out DIR [options]\n"
    "Plays games 0..N-1 of a run with the search against itself and writes them, with the\n"
    "search's root statistics, to DIR/shard-RRRRR.gkz (one shard per MPI rank; see\n"
    "docs/FORMATS.md).  Every game is a function of (--seed, its index, the settings):\n"
    "the same games come out whatever the ranks and threads (with --playouts and\n"
    "--threads-per-game 1).  Running the same command on the same DIR resumes: finished\n"
    "games are kept, a frame cut short by a kill is dropped and its games played again;\n"
    "other settings are refused.  SIGTERM/SIGINT: games in progress are abandoned, the\n"
    "finished ones written, and the program exits (status 3) within about a second.\n"
    "  --games N              games in the run (the run can be extended later)\n"
    "  --out DIR              run directory (created)\n"
    "  --game NAME            gounki (default) or gobs\n"
    "  --variant NAME         rule set (gobs: standard, short)\n"
    "  --max-plies N          draw after N turns (default 500)\n"
    "  --weights FILE         evaluation weights (default: the shipped ones)\n"
    "  --playouts P           playouts per decision (default 800)\n"
    "  --time S               seconds per decision instead (games are then not reproducible)\n"
    "  --threads T            threads of this rank (default 1): T / K games at once\n"
    "  --threads-per-game K   search threads of one game (tree-parallel; default 1)\n"
    "  --seed S               run seed (default 1)\n"
    "  --openings KIND:K      random:K (uniform), policy:K (drawn from the priors) or none;\n"
    "                         the first K turns (default random:4)\n"
    "  --book FILE            opening lines instead (docs/FORMATS.md, \"Opening lines\")\n"
    "  --temperature T[,N]    sample actions by visits^(1/T) during the first N turns\n"
    "                         (default 1,10; 0 = always the most visited)\n"
    "  --resign V[,SHARE]     resign below root value V (in [-1,1]) twice in a row; SHARE\n"
    "                         of the games play on to measure false resignations (0.1);\n"
    "                         'off' (default)\n"
    "  --top K                children kept per decision in the log (default 16, max 64)\n"
    "  --mcts NAME=V,...      search parameters (gounki analyse --help lists them)\n"
    "  --no-stats             leave the root statistics out of the log\n"
    "  --coding index|raw     actions as gen() indices (default) or raw 32-bit values\n"
    "  --level L              zstd level (default 9)\n"
    "  --frame-games N        games per frame (default 64) ...\n"
    "  --frame-seconds S      ... or a frame at least every S seconds (default 60)\n"
    "  --repair               cut a corrupt shard at its first bad frame (its later games\n"
    "                         are played again) instead of refusing to resume\n"
    "  --quiet                no progress lines (errors and the summary only)\n"
    "  --bench                play games 0..N-1 without MPI and without logs (the baseline\n"
    "                         for the overhead of both; --out is not used)\n"
    "Exit status: 0 all N games are in DIR, 1 failure, 2 usage, 3 stopped by a signal.\n";

/* The one mutable global: the signal handler's flag (a handler can reach nothing else). */
static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
    (void)sig;
    stop_flag = 1;
}

enum {
    O_GAMES = 0x2001,
    O_OUT,
    O_WEIGHTS,
    O_PLAYOUTS,
    O_TIME,
    O_THREADS,
    O_TPG,
    O_SEED,
    O_OPENINGS,
    O_BOOK,
    O_TEMP,
    O_RESIGN,
    O_TOP,
    O_MCTS,
    O_NOSTATS,
    O_CODING,
    O_LEVEL,
    O_FGAMES,
    O_FSECS,
    O_REPAIR,
    O_QUIET,
    O_BENCH,
};

/* "A[,B]": two numbers, B optional. */
static int parse_pair(const char *flag, const char *s, double lo, double hi, double *a, double lo2,
                      double hi2, double *b, bool *has_b) {
    char buf[128];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf) {
        cli_error("selfplay", "%s: too long", flag);
        return -1;
    }
    char *comma = strchr(buf, ',');
    *has_b = comma != NULL;
    if (comma) *comma = 0;
    if (cli_parse_double("selfplay", flag, buf, lo, hi, a)) return -1;
    if (comma && cli_parse_double("selfplay", flag, comma + 1, lo2, hi2, b)) return -1;
    return 0;
}

int cmd_selfplay(int argc, char **argv) {
    static const struct option opts[] = {CLI_POS_LONGOPTS,
                                         {"games", required_argument, 0, O_GAMES},
                                         {"out", required_argument, 0, O_OUT},
                                         {"weights", required_argument, 0, O_WEIGHTS},
                                         {"playouts", required_argument, 0, O_PLAYOUTS},
                                         {"time", required_argument, 0, O_TIME},
                                         {"threads", required_argument, 0, O_THREADS},
                                         {"threads-per-game", required_argument, 0, O_TPG},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"openings", required_argument, 0, O_OPENINGS},
                                         {"book", required_argument, 0, O_BOOK},
                                         {"temperature", required_argument, 0, O_TEMP},
                                         {"resign", required_argument, 0, O_RESIGN},
                                         {"top", required_argument, 0, O_TOP},
                                         {"mcts", required_argument, 0, O_MCTS},
                                         {"no-stats", no_argument, 0, O_NOSTATS},
                                         {"coding", required_argument, 0, O_CODING},
                                         {"level", required_argument, 0, O_LEVEL},
                                         {"frame-games", required_argument, 0, O_FGAMES},
                                         {"frame-seconds", required_argument, 0, O_FSECS},
                                         {"repair", no_argument, 0, O_REPAIR},
                                         {"quiet", no_argument, 0, O_QUIET},
                                         {"bench", no_argument, 0, O_BENCH},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *cmd = "selfplay";
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    const char *out = NULL, *weights = NULL, *openings = NULL, *book = NULL, *temp = NULL,
               *resign = NULL, *mcts = NULL;
    long threads = 1, tpg = 1, top = 16, level = 0, fgames = 0;
    uint64_t games = 0, seed = 1, playouts = 0;
    double time_s = 0, fsecs = 0;
    bool have_games = false, have_playouts = false, nostats = false, repair = false, quiet = false,
         bench = false;
    int coding = GL_CODE_INDEX;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option(cmd, &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case O_GAMES:
            if (cli_parse_u64(cmd, "--games", optarg, &games)) return CLI_USAGE;
            if (games < 1 || games > (1ull << 40)) {
                cli_error(cmd, "--games: must be in [1, 2^40]");
                return CLI_USAGE;
            }
            have_games = true;
            break;
        case O_OUT: out = optarg; break;
        case O_WEIGHTS: weights = optarg; break;
        case O_PLAYOUTS:
            if (cli_parse_u64(cmd, "--playouts", optarg, &playouts)) return CLI_USAGE;
            if (playouts < 1 || playouts > 100000000) {
                cli_error(cmd, "--playouts: must be in [1, 100000000]");
                return CLI_USAGE;
            }
            have_playouts = true;
            break;
        case O_TIME:
            if (cli_parse_double(cmd, "--time", optarg, 0.001, 86400, &time_s)) return CLI_USAGE;
            break;
        case O_THREADS:
            if (cli_parse_long(cmd, "--threads", optarg, 1, 4096, &threads)) return CLI_USAGE;
            break;
        case O_TPG:
            if (cli_parse_long(cmd, "--threads-per-game", optarg, 1, 1024, &tpg)) return CLI_USAGE;
            break;
        case O_SEED:
            if (cli_parse_u64(cmd, "--seed", optarg, &seed)) return CLI_USAGE;
            break;
        case O_OPENINGS: openings = optarg; break;
        case O_BOOK: book = optarg; break;
        case O_TEMP: temp = optarg; break;
        case O_RESIGN: resign = optarg; break;
        case O_TOP:
            if (cli_parse_long(cmd, "--top", optarg, 1, GL_MAX_TOP, &top)) return CLI_USAGE;
            break;
        case O_MCTS: mcts = optarg; break;
        case O_NOSTATS: nostats = true; break;
        case O_CODING:
            if (!strcmp(optarg, "index"))
                coding = GL_CODE_INDEX;
            else if (!strcmp(optarg, "raw"))
                coding = GL_CODE_RAW;
            else {
                cli_error(cmd, "--coding: '%s' is not index or raw", optarg);
                return CLI_USAGE;
            }
            break;
        case O_LEVEL:
            if (cli_parse_long(cmd, "--level", optarg, 1, 22, &level)) return CLI_USAGE;
            break;
        case O_FGAMES:
            if (cli_parse_long(cmd, "--frame-games", optarg, 1, 65536, &fgames)) return CLI_USAGE;
            break;
        case O_FSECS:
            if (cli_parse_double(cmd, "--frame-seconds", optarg, 0.001, 86400, &fsecs))
                return CLI_USAGE;
            break;
        case O_REPAIR: repair = true; break;
        case O_QUIET: quiet = true; break;
        case O_BENCH: bench = true; break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (optind != argc) {
        cli_error(cmd, "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    if (!have_games || (!out && !bench)) {
        cli_error(cmd, "--games and --out are required (see 'gounki selfplay --help')");
        return CLI_USAGE;
    }
    if (po.position || po.moves) {
        cli_error(cmd, "self-play starts from the start position: --position and --moves are "
                       "not supported (use --book)");
        return CLI_USAGE;
    }
    if (have_playouts && time_s > 0) {
        cli_error(cmd, "--playouts and --time exclude each other");
        return CLI_USAGE;
    }
    if (openings && book) {
        cli_error(cmd, "--openings and --book exclude each other");
        return CLI_USAGE;
    }
    if (tpg > threads) {
        cli_error(cmd, "--threads-per-game %ld is more than --threads %ld", tpg, threads);
        return CLI_USAGE;
    }
    gk_rules_t rules;
    int rc = cli_rules(cmd, &po, &rules);
    if (rc) return rc;

    sp_run_opts_t ro;
    memset(&ro, 0, sizeof ro);
    sp_settings_t *s = &ro.set;
    sp_settings_default(s, rules.game);
    s->rules = rules;
    s->seed = seed;
    char err[1024];
    if (weights && ev_weights_load(weights, rules.game, &s->weights, err, sizeof err)) {
        cli_error(cmd, "--weights: %s", err);
        return CLI_FAIL;
    }
    if (mcts) {
        char buf[1024];
        if (snprintf(buf, sizeof buf, "%s", mcts) >= (int)sizeof buf) {
            cli_error(cmd, "--mcts: too long");
            return CLI_USAGE;
        }
        char *save = NULL;
        for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq) {
                cli_error(cmd, "--mcts: '%s' is not NAME=VALUE", kv);
                return CLI_USAGE;
            }
            *eq = 0;
            if (!strcmp(kv, "threads") || !strcmp(kv, "seed")) {
                cli_error(cmd, "--mcts: %s is set by self-play (--threads-per-game, --seed)", kv);
                return CLI_USAGE;
            }
            int r = mcts_params_set(&s->mcts, &s->limits, kv, eq + 1, err, sizeof err);
            if (r < 0) {
                cli_error(cmd, "--mcts: %s", err);
                return CLI_USAGE;
            }
            if (r == 0) {
                cli_error(cmd, "--mcts: unknown parameter '%s'", kv);
                return CLI_USAGE;
            }
        }
    }
    if (have_playouts) s->limits.playouts = playouts;
    if (time_s > 0) {
        s->limits.playouts = 0;
        s->limits.time_s = time_s;
    }
    s->mcts.threads = (int)tpg;
    s->top = (int)top;
    if (openings) {
        char kind[16];
        long k = 0;
        const char *colon = strchr(openings, ':');
        size_t kl = colon ? (size_t)(colon - openings) : strlen(openings);
        if (kl >= sizeof kind) kl = sizeof kind - 1;
        memcpy(kind, openings, kl);
        kind[kl] = 0;
        if (!strcmp(openings, "none")) {
            s->open_kind = GL_OPEN_NONE;
            s->open_plies = 0;
        } else if (colon && (!strcmp(kind, "random") || !strcmp(kind, "policy"))) {
            if (cli_parse_long(cmd, "--openings", colon + 1, 0, 1000, &k)) return CLI_USAGE;
            s->open_kind = !strcmp(kind, "random") ? GL_OPEN_RANDOM : GL_OPEN_POLICY;
            s->open_plies = (int)k;
        } else {
            cli_error(cmd, "--openings: '%s' is not random:K, policy:K or none", openings);
            return CLI_USAGE;
        }
    }
    book_t bk;
    memset(&bk, 0, sizeof bk);
    if (book) {
        if (book_load(book, &rules, &bk, err, sizeof err)) {
            cli_error(cmd, "--book: %s", err);
            return CLI_FAIL;
        }
        s->book = &bk;
        s->open_kind = GL_OPEN_BOOK;
        s->open_plies = 0;
    }
    if (temp) {
        double t, n = s->temp_plies;
        bool has_n;
        if (parse_pair("--temperature", temp, 0, 100, &t, 0, 65535, &n, &has_n)) return CLI_USAGE;
        s->temperature = (float)t;
        if (has_n) s->temp_plies = (int)n;
    }
    if (resign) {
        if (!strcmp(resign, "off"))
            s->resign_on = false;
        else {
            double v, share = s->resign_share;
            bool has_share;
            if (parse_pair("--resign", resign, -1, 1, &v, 0, 1, &share, &has_share))
                return CLI_USAGE;
            s->resign_on = true;
            s->resign_value = (float)v;
            s->resign_share = (float)share;
        }
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    sp_summary_t sum;
    if (bench) {
        rc = sp_bench(s, 0, games, (int)(threads / tpg), &sum, err, sizeof err);
        book_free(&bk);
        if (rc) {
            cli_error(cmd, "%s", err);
            return CLI_FAIL;
        }
        printf("bench: %llu games in %.2f s: %.3f games/s, %.0f positions/s, W %llu D %llu L "
               "%llu, avg %.1f actions (no MPI, no log, %ld game%s at once)\n",
               (unsigned long long)sum.games_played, sum.seconds,
               sum.seconds > 0 ? (double)sum.games_played / sum.seconds : 0.0,
               sum.seconds > 0 ? (double)sum.actions / sum.seconds : 0.0,
               (unsigned long long)sum.white, (unsigned long long)sum.draws,
               (unsigned long long)sum.black,
               sum.games_played ? (double)sum.actions / (double)sum.games_played : 0.0,
               threads / tpg, threads / tpg > 1 ? "s" : "");
        return CLI_OK;
    }

    ro.games = games;
    ro.dir = out;
    ro.games_at_once = (int)(threads / tpg);
    ro.quiet = quiet;
    ro.repair = repair;
    ro.level = (int)level;
    ro.code = coding;
    ro.stats = !nostats;
    ro.frame_games = (uint32_t)fgames;
    ro.frame_seconds = fsecs;
    ro.stop = &stop_flag;
    ro.out = stderr;
    rc = sp_run(&ro, &sum, err, sizeof err);
    book_free(&bk);
    if (rc) {
        if (err[0]) cli_error(cmd, "%s", err);
        return CLI_FAIL;
    }
    if (sum.rank != 0) return stop_flag ? 3 : CLI_OK;
    double gps = sum.seconds > 0 ? (double)sum.games_played / sum.seconds : 0;
    fprintf(stderr,
            "selfplay: %s: %llu/%llu games in %s (%llu this run in %.1f s: %.3f games/s, %.0f "
            "positions/s; White %llu Draw %llu Black %llu; avg %.1f actions; %d rank%s x %ld "
            "game%s at once)\n",
            sum.complete ? "done" : "stopped",
            (unsigned long long)(sum.games_before + sum.games_played),
            (unsigned long long)sum.games_total, out, (unsigned long long)sum.games_played,
            sum.seconds, gps, sum.seconds > 0 ? (double)sum.actions / sum.seconds : 0.0,
            (unsigned long long)sum.white, (unsigned long long)sum.draws,
            (unsigned long long)sum.black,
            sum.games_played ? (double)sum.actions / (double)sum.games_played : 0.0, sum.ranks,
            sum.ranks > 1 ? "s" : "", threads / tpg, threads / tpg > 1 ? "s" : "");
    if (!sum.complete) {
        fprintf(stderr, "selfplay: %llu games abandoned; rerun the same command to resume\n",
                (unsigned long long)sum.games_abandoned);
        return 3;
    }
    return CLI_OK;
}
