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

static void usage(const cli_search_t *s) {
    printf("usage: gounki bench [--threads T] [--playouts N] [--parallel tree|root] [--quiet]\n"
           "                    [--set NAME=V,...]\n"
           "Searches fixed positions of every game (%d in all) with N playouts each, seed 1,\n"
           "early stop off, and prints per position the nodes, the best action and the\n"
           "speed, then 'Bench: NODES' (the sum of the node counts) and the overall\n"
           "playouts per second.  With one thread the signature is the same on every run;\n"
           "other search parameters give other signatures.\n"
           "  --quiet            only the summary lines\n",
           NBENCH);
    cli_search_help(stdout, s);
}

/* Searches bench position i; adds to the totals.  Returns an exit status. */
static int bench_one(int i, const mcts_config_t *c, mcts_result_t *res, bool quiet, uint64_t *nodes,
                     uint64_t *playouts, double *secs) {
    const bench_pos_t *b = &bench_positions[i];
    ev_weights_t w;
    gk_pos_t p;
    bench_setup(b, &p);
    mcts_t *m = ev_weights_default(b->game, &w) ? NULL : mcts_new(&c->p, &w);
    if (!m) {
        cli_error("bench", "cannot create the search (out of memory?)");
        return CLI_FAIL;
    }
    int r = mcts_search(m, &p, NULL, &c->l, res);
    mcts_free(m);
    if (r < 0) {
        cli_error("bench", "position %d has no legal action", i + 1);
        return CLI_FAIL;
    }
    *nodes += res->nodes;
    *playouts += res->playouts;
    *secs += res->seconds;
    if (quiet) return CLI_OK;
    const gk_game_t *g = gk_game_of(&p);
    char ptext[GK_POS_TEXT_MAX], best[GK_MOVE_TEXT_MAX];
    if (g->pos_to_text(&p, ptext, sizeof ptext) < 0) strcpy(ptext, "?");
    if (g->action_text(&p, res->best, best, sizeof best) < 0) strcpy(best, "?");
    printf("%2d %-6s %-8s nodes %9llu  best %-14s value %.3f  %8.0f playouts/s\n", i + 1, g->name,
           g->variants[p.variant], (unsigned long long)res->nodes, best, (double)res->value,
           res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0);
    printf("   %s\n", ptext);
    return CLI_OK;
}

int cmd_bench(int argc, char **argv) {
    static const struct option run_opts[] = {CLI_LONGOPT_QUIET, {0, 0, 0, 0}};
    /* The bench's own defaults: a large tree, no reuse, no early stop, a playout budget. */
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 512;
    mp.reuse = false;
    mcts_limits_t ml;
    mcts_limits_default(&ml);
    ml.playouts = BENCH_PLAYOUTS;
    ml.early_stop = false;
    cli_search_t *s = malloc(sizeof *s);
    mcts_result_t *res = malloc(sizeof *res);
    cli_run_t run;
    cli_run_init(&run, run_opts);
    int rc = CLI_FAIL, first;
    if (!s || !res) {
        cli_error("bench", "out of memory");
        goto done;
    }
    cli_search_init(s, &mp, &ml, CLI_SEARCH_FLAGS);
    const cli_group_t groups[] = {cli_search_group(s), cli_run_group(&run)};
    rc = cli_getopt("bench", argc, argv, groups, 2, 0, &first);
    if (rc == CLI_HELP) usage(s);
    if (rc) goto done;
    cli_search_finish(s);
    if (s->cfg.l.playouts == 0 && s->cfg.l.time_s == 0 && s->cfg.l.nodes == 0) {
        cli_error("bench", "--playouts: must be at least 1 (or give --time or nodes=)");
        rc = CLI_USAGE;
        goto done;
    }
    uint64_t total_nodes = 0, total_playouts = 0;
    double total_s = 0.0;
    for (int i = 0; i < NBENCH && rc == CLI_OK; i++)
        rc = bench_one(i, &s->cfg, res, run.quiet, &total_nodes, &total_playouts, &total_s);
    if (rc) goto done;
    int threads = s->cfg.p.threads;
    printf("playouts %llu, %d thread%s, %.3f s, %.0f playouts/s, %zu bytes/node\n",
           (unsigned long long)total_playouts, threads, threads > 1 ? "s" : "", total_s,
           total_s > 0 ? (double)total_playouts / total_s : 0.0, mcts_node_bytes());
    printf("Bench: %llu\n", (unsigned long long)total_nodes);
done:
    free(res);
    free(s);
    return rc == CLI_HELP ? CLI_OK : rc;
}
