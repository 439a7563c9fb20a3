/*
 * cli/cmd_bench.c -- `gounki bench`: the search's regression signature and speed.
 *
 * Fixed positions of each game (the start, and positions reached by a fixed seeded
 * random walk from it), a fixed playout budget, a fixed seed, early stop off.  With one
 * thread the total node count is a pure function of the rules, the evaluation, the
 * default weights and the search: it is the "Bench: N" signature that commit messages
 * quote when it changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/eval.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_bench_summary[] = "search fixed positions: node-count signature and playouts/s";

static const char help[] =
    "usage: gounki bench [--threads T] [--playouts N] [--parallel tree|root] [--quiet]\n"
    "Searches fixed positions of every game (%d in all) with N playouts each (default\n"
    "%d), seed 1, early stop off, and prints per position the nodes, the best action and\n"
    "the speed, then 'Bench: NODES' (the sum of the node counts) and the overall\n"
    "playouts per second.  With one thread the signature is the same on every run.\n"
    "  --threads T        search threads (default 1)\n"
    "  --playouts N       playouts per position\n"
    "  --parallel MODE    tree (default) or root\n"
    "  --quiet            only the summary lines\n";

#define BENCH_PLAYOUTS 5000

typedef struct {
    int game, variant, walk; /* random actions played from the start */
} bench_pos_t;

static const bench_pos_t bench_positions[] = {
    {GK_GAME_GOUNKI, 0, 0},  {GK_GAME_GOUNKI, 0, 6},  {GK_GAME_GOUNKI, 0, 14},
    {GK_GAME_GOUNKI, 0, 24}, {GK_GAME_GOUNKI, 0, 36}, {GK_GAME_GOBS, 0, 0},
    {GK_GAME_GOBS, 0, 5},    {GK_GAME_GOBS, 0, 12},   {GK_GAME_GOBS, 1, 0},
    {GK_GAME_GOBS, 1, 9},
};
#define NBENCH ((int)(sizeof bench_positions / sizeof bench_positions[0]))

/* The position of a bench entry: a seeded random walk that stops one action short of any
 * finished position, so every bench position is searchable. */
static void bench_setup(const bench_pos_t *b, gk_pos_t *p) {
    gk_rules_t r = {
        .game = (uint8_t)b->game, .variant = (uint8_t)b->variant, .max_plies = GK_DEFAULT_MAX_PLY};
    gk_game_by_id(b->game)->setup(p, &r);
    uint64_t rng = 0xBE7C4ull + (uint64_t)b->walk * 131u + (uint64_t)b->game * 7u;
    gk_action_t list[GK_MAX_ACTIONS];
    for (int k = 0; k < b->walk; k++) {
        int n = gk_gen(p, list);
        if (n == 0) break;
        gk_pos_t q = *p;
        gk_play(&q, list[gk_splitmix64(&rng) % (uint64_t)n]);
        if (gk_over(&q)) break;
        *p = q;
    }
}

int cmd_bench(int argc, char **argv) {
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'},  {"playouts", required_argument, 0, 'n'},
        {"parallel", required_argument, 0, 'p'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    long threads = 1;
    uint64_t playouts = BENCH_PLAYOUTS;
    int parallel = MCTS_PAR_TREE, quiet = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': printf(help, NBENCH, BENCH_PLAYOUTS); return CLI_OK;
        case 't':
            if (cli_parse_long("bench", "--threads", optarg, 1, 1024, &threads)) return CLI_USAGE;
            break;
        case 'n':
            if (cli_parse_u64("bench", "--playouts", optarg, &playouts)) return CLI_USAGE;
            if (playouts == 0) {
                cli_error("bench", "--playouts: must be at least 1");
                return CLI_USAGE;
            }
            break;
        case 'p':
            if (!strcmp(optarg, "tree"))
                parallel = MCTS_PAR_TREE;
            else if (!strcmp(optarg, "root"))
                parallel = MCTS_PAR_ROOT;
            else {
                cli_error("bench", "--parallel: '%s' is not tree or root", optarg);
                return CLI_USAGE;
            }
            break;
        case 'q': quiet = 1; break;
        default: return cli_bad_option("bench", argc, argv);
        }
    }
    if (optind != argc) {
        cli_error("bench", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.threads = (int)threads;
    mp.parallel = parallel;
    mp.tree_mb = 512;
    mp.reuse = false;
    mcts_limits_t ml;
    mcts_limits_default(&ml);
    ml.playouts = playouts;
    ml.early_stop = false;
    mcts_result_t *res = malloc(sizeof *res);
    if (!res) {
        cli_error("bench", "out of memory");
        return CLI_FAIL;
    }
    uint64_t total_nodes = 0, total_playouts = 0;
    double total_s = 0.0;
    int rc = CLI_OK;
    for (int i = 0; i < NBENCH && rc == CLI_OK; i++) {
        const bench_pos_t *b = &bench_positions[i];
        ev_weights_t w;
        gk_pos_t p;
        bench_setup(b, &p);
        mcts_t *m = ev_weights_default(b->game, &w) ? NULL : mcts_new(&mp, &w);
        if (!m) {
            cli_error("bench", "cannot create the search (out of memory?)");
            rc = CLI_FAIL;
            break;
        }
        if (mcts_search(m, &p, NULL, &ml, res) < 0) {
            cli_error("bench", "position %d has no legal action", i + 1);
            rc = CLI_FAIL;
        } else {
            total_nodes += res->nodes;
            total_playouts += res->playouts;
            total_s += res->seconds;
            if (!quiet) {
                const gk_game_t *g = gk_game_of(&p);
                char ptext[GK_POS_TEXT_MAX], best[GK_MOVE_TEXT_MAX];
                if (g->pos_to_text(&p, ptext, sizeof ptext) < 0) strcpy(ptext, "?");
                if (g->action_text(&p, res->best, best, sizeof best) < 0) strcpy(best, "?");
                printf("%2d %-6s %-8s nodes %9llu  best %-14s value %.3f  %8.0f playouts/s\n",
                       i + 1, g->name, g->variants[p.variant], (unsigned long long)res->nodes, best,
                       (double)res->value,
                       res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0);
                printf("   %s\n", ptext);
            }
        }
        mcts_free(m);
    }
    free(res);
    if (rc != CLI_OK) return rc;
    printf("playouts %llu, %d thread%s, %.3f s, %.0f playouts/s, %zu bytes/node\n",
           (unsigned long long)total_playouts, (int)threads, threads > 1 ? "s" : "", total_s,
           total_s > 0 ? (double)total_playouts / total_s : 0.0, mcts_node_bytes());
    printf("Bench: %llu\n", (unsigned long long)total_nodes);
    return CLI_OK;
}
