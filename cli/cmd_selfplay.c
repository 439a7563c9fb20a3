/* cli/cmd_selfplay.c -- `gounki selfplay`: self-play games into zstd game logs, on MPI ranks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../search/params.h"
#include "../selfplay/selfplay.h"
#include "../data/book.h"
#include "cli.h"

const char cmd_selfplay_summary[] = "self-play games into compressed logs (MPI ranks, resumable)";

static void usage(const cli_search_t *s) {
    fputs("usage: gounki selfplay --games N --run DIR [options]\n"
          "       mpirun -np R gounki selfplay --games N --run DIR [options]\n"
          "Plays games 0..N-1 of a run with the search against itself and writes them, with the\n"
          "search's root statistics, to DIR/shard-RRRRR.gkz (one shard per MPI rank; see\n"
          "docs/FORMATS.md).  Every game is a function of (--seed, its index, the settings):\n"
          "the same games come out whatever the ranks and --threads (with a playout budget and\n"
          "one search thread per game).  Running the same command on the same DIR resumes:\n"
          "finished games are kept, a frame cut short by a kill is dropped and its games played\n"
          "again; other settings are refused.  SIGTERM/SIGINT: games in progress are abandoned,\n"
          "the finished ones written, and the program exits (status 3) within about a second\n"
          "(3 s more when a rank cannot be reached).\n"
          "  --games N          games in the run (the run can be extended later)\n"
          "  --run DIR          run directory (created); --out DIR says the same\n"
          "  --threads T        threads of this rank (default 1): T / K games at once, each\n"
          "                     with K = threads= search threads (--set threads=K, or\n"
          "                     --threads-per-game K; default 1)\n"
          "  --seed S           run seed (default 1); each game's search is seeded from "
          "it\n" CLI_RULES_HELP CLI_TURNS_HELP CLI_OPENINGS_HELP
          "                     (default random:4; lines:FILE excludes the others)\n"
          "  --temperature T[,N]  sample actions by visits^(1/T) during the first N turns\n"
          "                     (default 1,10; 0 = always the most visited)\n" CLI_RESIGN_HELP
          "                     'off' (default)\n" CLI_ADJUDICATE_HELP
          "                     (default; see docs/RULES.md)\n"
          "  --top K            children kept per decision in the log (default 16, max 64)\n"
          "  --no-stats         leave the root statistics out of the log\n"
          "  --coding index|raw actions as gen() indices (default) or raw 32-bit values\n"
          "  --level L          zstd level (default 9)\n"
          "  --frame-games N    games per frame (default 64) ...\n"
          "  --frame-seconds S  ... or a frame at least every S seconds (default 5)\n"
          "  --lease-timeout S  a game not reported S seconds after it was leased is leased\n"
          "                     again to another rank (default: 4 x the slowest game so far,\n"
          "                     at least 60 s); the first report is kept, a later dropped\n"
          "  --peer-timeout S   a rank not heard from for S seconds is given up and its\n"
          "                     games leased again (default 10)\n"
          "  --repair           cut a corrupt shard at its first bad frame (its later games\n"
          "                     are played again) instead of refusing to resume\n"
          "  --stop-status S    exit status after a stop by SIGTERM/SIGINT (default 3; 0 for\n"
          "                     launchers that report any other status as a failure)\n"
          "  --quiet            no progress lines (errors and the summary only)\n"
          "  --bench            play games 0..N-1 without MPI and without logs (the baseline\n"
          "                     for the overhead of both; --run is not used)\n",
          stdout);
    cli_search_help(stdout, s);
    fputs("Exit status: 0 all N games are in DIR, 1 failure, 2 usage, 3 (or --stop-status S)\n"
          "stopped by a signal.\n",
          stdout);
}

/* The one mutable global: the signal handler's flag (a handler can reach nothing else). */
static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
    stop_flag = sig;
}

enum {
    O_TPG = 0x2001,
    O_TEMP,
    O_RESIGN,
    O_ADJUD,
    O_TOP,
    O_NOSTATS,
    O_CODING,
    O_LEVEL,
    O_FGAMES,
    O_FSECS,
    O_REPAIR,
    O_BENCH,
    O_STOPST,
    O_LEASET,
    O_PEERT,
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

/* The options of self-play alone. */
typedef struct own {
    cli_search_t *search; /* --threads-per-game K is --set threads=K */
    sp_settings_t set;    /* temperature, resignation, top */
    sp_run_opts_t ro;     /* the log's options */
    bool bench;
    int stop_status; /* --stop-status: exit status of a stop by a signal */
} own_t;

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    sp_settings_t *s = &o->set;
    long v;
    double x, y;
    bool has;
    int k;
    char err[200];
    switch (opt) {
    case O_TPG:
        if (mcts_config_set(&o->search->cfg, "threads", arg, err, sizeof err) > 0) return 1;
        cli_error(cmd, "--threads-per-game: %s", err);
        return -1;
    case O_TEMP:
        y = s->temp_turns;
        if (parse_pair("--temperature", arg, 0, 100, &x, 0, 65535, &y, &has)) return -1;
        s->temperature = (float)x;
        s->temp_turns = (int)y;
        return 1;
    case O_RESIGN:
        return cli_parse_resign(cmd, arg, &s->resign_on, &s->resign_value, &s->resign_share) ? -1
                                                                                             : 1;
    case O_ADJUD:
        return cli_parse_adjudicate(cmd, arg, &s->adj_turn, &s->adj_lead, &s->adj_span) ? -1 : 1;
    case O_TOP:
        if (cli_parse_long(cmd, "--top", arg, 1, GL_MAX_TOP, &v)) return -1;
        s->top = (int)v;
        return 1;
    case O_NOSTATS: o->ro.stats = false; return 1;
    case O_CODING:
        if (params_choice(arg, "index|raw", &k, err, sizeof err)) {
            cli_error(cmd, "--coding: %s", err);
            return -1;
        }
        o->ro.code = k == 0 ? GL_CODE_INDEX : GL_CODE_RAW;
        return 1;
    case O_LEVEL:
        if (cli_parse_long(cmd, "--level", arg, 1, 22, &v)) return -1;
        o->ro.level = (int)v;
        return 1;
    case O_FGAMES:
        if (cli_parse_long(cmd, "--frame-games", arg, 1, 65536, &v)) return -1;
        o->ro.frame_games = (uint32_t)v;
        return 1;
    case O_FSECS:
        return cli_parse_double(cmd, "--frame-seconds", arg, 0.001, 86400, &o->ro.frame_seconds)
                   ? -1
                   : 1;
    case O_LEASET:
        return cli_parse_double(cmd, "--lease-timeout", arg, 0.001, 1e6, &o->ro.lease_seconds) ? -1
                                                                                               : 1;
    case O_PEERT:
        return cli_parse_double(cmd, "--peer-timeout", arg, 0.1, 1e6, &o->ro.peer_seconds) ? -1 : 1;
    case O_REPAIR: o->ro.repair = true; return 1;
    case O_BENCH: o->bench = true; return 1;
    case O_STOPST:
        if (cli_parse_long(cmd, "--stop-status", arg, 0, 125, &v)) return -1;
        o->stop_status = (int)v;
        return 1;
    }
    return 0;
}

/* Checks the options together and completes o->ro.set from them.  Returns an exit status. */
static int settle(const cli_pos_opts_t *po, const cli_run_t *run, cli_search_t *sr,
                  const cli_openings_t *op, own_t *o, ol_lines_t *bk, bk_book_t *dag) {
    const char *cmd = "selfplay";
    if (!run->games_set || (!run->dir && !o->bench)) {
        cli_error(cmd, "--games and --run are required (see 'gounki selfplay --help')");
        return CLI_USAGE;
    }
    if (cli_search_finish(cmd, sr)) return CLI_USAGE;
    const mcts_config_t *c = &sr->cfg;
    bool timed = mcts_config_isset(c, "time") || mcts_config_isset(c, "clock");
    char why[200] = "";
    if (mcts_config_isset(c, "seed"))
        snprintf(why, sizeof why,
                 "seed: self-play seeds each game's search from --seed and "
                 "the game's index");
    else if (timed && mcts_config_isset(c, "playouts"))
        snprintf(why, sizeof why, "--playouts and --time exclude each other");
    else if (!c->l.playouts && !timed && !c->l.nodes)
        snprintf(why, sizeof why, "no budget: give --playouts N (N >= 1) or --time S");
    else if (c->p.threads > run->threads)
        snprintf(why, sizeof why,
                 "%d search threads per game (threads=) are more than --threads %ld", c->p.threads,
                 run->threads);
    else if ((op->lines || op->book[0]) && op->kind)
        snprintf(why, sizeof why,
                 "--openings lines:FILE or book:FILE (--book) and other --openings exclude "
                 "each other");
    else if (op->lines && op->book[0])
        snprintf(why, sizeof why, "--openings lines:FILE and book:FILE exclude each other");
    if (why[0]) {
        cli_error(cmd, "%s", why);
        return CLI_USAGE;
    }
    gk_rules_t rules;
    int rc = cli_rules(cmd, po, &rules);
    if (rc) return rc;
    sp_settings_t *s = &o->ro.set;
    sp_settings_default(s, rules.game);
    s->rules = rules;
    s->seed = run->seed;
    if (sr->weights &&
        (rc = cli_load_weights(cmd, "--weights", sr->weights, rules.game, &s->weights)))
        return rc;
    s->mcts = c->p;
    s->limits = c->l;
    s->temperature = o->set.temperature;
    s->temp_turns = o->set.temp_turns;
    s->resign_on = o->set.resign_on;
    s->resign_value = o->set.resign_value;
    s->resign_share = o->set.resign_share;
    s->adj_turn = o->set.adj_turn;
    s->adj_lead = o->set.adj_lead;
    s->adj_span = o->set.adj_span;
    if (s->adj_turn > 0 && rules.game != GK_GAME_GOBS) {
        cli_error(cmd, "--adjudicate: only Gobs games are adjudicated (docs/RULES.md)");
        return CLI_USAGE;
    }
    s->top = o->set.top;
    if (op->kind) {
        s->open_kind = op->kind == CLI_OPEN_NONE     ? GL_OPEN_NONE
                       : op->kind == CLI_OPEN_POLICY ? GL_OPEN_POLICY
                                                     : GL_OPEN_RANDOM;
        s->open_turns = (int)op->turns;
    }
    if (op->lines) {
        char err[1024];
        if (ol_load(op->lines, &rules, bk, err, sizeof err)) {
            cli_error(cmd, "--openings lines:FILE: %s", err);
            return CLI_FAIL;
        }
        s->book = bk;
        s->open_kind = GL_OPEN_BOOK;
        s->open_turns = 0;
    }
    if (op->book[0]) {
        char err[1024];
        if (bk_load(op->book, &rules, dag, err, sizeof err) < 0) {
            cli_error(cmd, "--openings book:FILE: %s", err);
            return CLI_FAIL;
        }
        s->dag = dag;
        s->dag_temp = op->book_temp;
        s->open_kind = GL_OPEN_BOOK;
        s->open_turns = 0;
    }
    return CLI_OK;
}

static int bench(own_t *o, uint64_t games) {
    sp_summary_t sum;
    char err[1024];
    int at_once = o->ro.games_at_once;
    if (sp_bench(&o->ro.set, 0, games, at_once, &sum, err, sizeof err)) {
        cli_error("selfplay", "%s", err);
        return CLI_FAIL;
    }
    printf("bench: %llu games in %.2f s: %.3f games/s, %.0f positions/s, W %llu D %llu L "
           "%llu, avg %.1f actions (no MPI, no log, %d game%s at once)\n",
           (unsigned long long)sum.games_played, sum.seconds,
           sum.seconds > 0 ? (double)sum.games_played / sum.seconds : 0.0,
           sum.seconds > 0 ? (double)sum.actions / sum.seconds : 0.0, (unsigned long long)sum.white,
           (unsigned long long)sum.draws, (unsigned long long)sum.black,
           sum.games_played ? (double)sum.actions / (double)sum.games_played : 0.0, at_once,
           at_once > 1 ? "s" : "");
    return CLI_OK;
}

/* Rank 0's closing lines; the exit status of any rank. */
static int summary(own_t *o, const sp_summary_t *sum) {
    if (sum->rank != 0) return stop_flag ? o->stop_status : CLI_OK;
    if (sum->ranks_lost || sum->games_released)
        fprintf(stderr,
                "selfplay: %d rank%s given up as lost; %llu lease%s ran out or lost and offered "
                "again, %llu game%s played twice and dropped\n",
                sum->ranks_lost, sum->ranks_lost == 1 ? "" : "s",
                (unsigned long long)sum->games_released, sum->games_released == 1 ? "" : "s",
                (unsigned long long)sum->games_dropped, sum->games_dropped == 1 ? "" : "s");
    if (!sum->complete) { /* one line: what is kept and what to do */
        fprintf(stderr,
                "selfplay: stopped by %s: %llu of %llu games kept in %s (%llu played in %.1f s, "
                "%llu unfinished to play again); run the same command to continue\n",
                stop_flag == SIGTERM  ? "SIGTERM"
                : stop_flag == SIGINT ? "SIGINT"
                : sum->ranks_lost     ? "the loss of a rank (its unwritten games are missing)"
                                      : "a signal to another rank",
                (unsigned long long)(sum->games_before + sum->games_played),
                (unsigned long long)sum->games_total, o->ro.dir,
                (unsigned long long)sum->games_played, sum->seconds,
                (unsigned long long)sum->games_abandoned);
        return o->stop_status;
    }
    double gps = sum->seconds > 0 ? (double)sum->games_played / sum->seconds : 0;
    int at_once = o->ro.games_at_once;
    fprintf(stderr,
            "selfplay: done: %llu/%llu games in %s (%llu this run in %.1f s: %.3f games/s, %.0f "
            "positions/s; White %llu Draw %llu Black %llu; avg %.1f actions; %d rank%s x %d "
            "game%s at once)\n",
            (unsigned long long)(sum->games_before + sum->games_played),
            (unsigned long long)sum->games_total, o->ro.dir, (unsigned long long)sum->games_played,
            sum->seconds, gps, sum->seconds > 0 ? (double)sum->actions / sum->seconds : 0.0,
            (unsigned long long)sum->white, (unsigned long long)sum->draws,
            (unsigned long long)sum->black,
            sum->games_played ? (double)sum->actions / (double)sum->games_played : 0.0, sum->ranks,
            sum->ranks > 1 ? "s" : "", at_once, at_once > 1 ? "s" : "");
    return CLI_OK;
}

static int run_logs(own_t *o) {
    /* Before MPI_Init, which can take long: a signal then is a stop too, not a kill. */
    cli_catch_stop_signals(on_signal, true);
    if (cli_mpi_begin("selfplay")) return CLI_FAIL;
    o->ro.stop = &stop_flag;
    o->ro.out = stderr;
    sp_summary_t sum;
    memset(&sum, 0, sizeof sum);
    char err[1024];
    int rc;
    if (sp_run(&o->ro, &sum, err, sizeof err)) {
        if (err[0]) cli_error("selfplay", "%s", err);
        rc = CLI_FAIL;
    } else {
        rc = summary(o, &sum);
    }
    cli_mpi_end(sum.mpi_abandoned);
    return rc;
}

int cmd_selfplay(int argc, char **argv) {
    static const struct option run_opts[] = {
        CLI_LONGOPT_RUN,     CLI_LONGOPT_OUT_DIR, CLI_LONGOPT_GAMES, CLI_LONGOPT_SEED,
        CLI_LONGOPT_THREADS, CLI_LONGOPT_QUIET,   {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"threads-per-game", required_argument, 0, O_TPG},
                                             {"temperature", required_argument, 0, O_TEMP},
                                             {"resign", required_argument, 0, O_RESIGN},
                                             {"adjudicate", required_argument, 0, O_ADJUD},
                                             {"top", required_argument, 0, O_TOP},
                                             {"no-stats", no_argument, 0, O_NOSTATS},
                                             {"coding", required_argument, 0, O_CODING},
                                             {"level", required_argument, 0, O_LEVEL},
                                             {"frame-games", required_argument, 0, O_FGAMES},
                                             {"frame-seconds", required_argument, 0, O_FSECS},
                                             {"repair", no_argument, 0, O_REPAIR},
                                             {"bench", no_argument, 0, O_BENCH},
                                             {"stop-status", required_argument, 0, O_STOPST},
                                             {"lease-timeout", required_argument, 0, O_LEASET},
                                             {"peer-timeout", required_argument, 0, O_PEERT},
                                             {0, 0, 0, 0}};
    static own_t o; /* large (weights, settings); one per process */
    static cli_search_t sr;
    memset(&o, 0, sizeof o);
    sp_settings_default(&o.set, GK_GAME_GOUNKI); /* the search's defaults are every game's */
    o.ro.stats = true;
    o.ro.code = GL_CODE_INDEX;
    o.stop_status = 3;
    o.search = &sr;
    cli_search_init(&sr, &o.set.mcts, &o.set.limits, CLI_SEARCH_WEIGHTS);
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    po.allow = CLI_POS_RULES | CLI_POS_TURN_LIMIT;
    po.why = "self-play starts from the start position (or opening lines: --openings lines:FILE)";
    cli_run_t run;
    cli_run_init(&run, run_opts);
    cli_openings_t op;
    cli_openings_init(
        &op, CLI_OPEN_RANDOM | CLI_OPEN_POLICY | CLI_OPEN_NONE | CLI_OPEN_LINES | CLI_OPEN_BOOK,
        1000);
    const cli_group_t groups[] = {cli_pos_group(&po),
                                  cli_search_group(&sr),
                                  cli_run_group(&run),
                                  cli_openings_group(&op),
                                  {own_opts, own_take, &o}};
    int first, rc = cli_getopt("selfplay", argc, argv, groups, 5, 0, &first);
    if (rc == CLI_HELP) {
        usage(&sr);
        return CLI_OK;
    }
    ol_lines_t bk;
    memset(&bk, 0, sizeof bk);
    static bk_book_t dag; /* --openings book:FILE */
    memset(&dag, 0, sizeof dag);
    if (!rc) rc = settle(&po, &run, &sr, &op, &o, &bk, &dag);
    if (!rc) {
        o.ro.games = run.games;
        o.ro.dir = run.dir;
        o.ro.games_at_once = (int)(run.threads / o.ro.set.mcts.threads);
        o.ro.quiet = run.quiet;
        rc = o.bench ? bench(&o, run.games) : run_logs(&o);
    }
    ol_free(&bk);
    bk_free(&dag);
    return rc;
}
