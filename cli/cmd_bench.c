/*
 * cli/cmd_bench.c -- `gounki bench`: the search's regression signature and speed.
 *
 * Fixed positions of each game, written as position strings (Stockfish's Defaults,
 * Ethereal's bench list), a fixed playout budget, a fixed seed, early stop off.  With one
 * thread the total node count is a pure function of the rules, the evaluation, the
 * default weights and the search: it is the "Bench: N" signature that commit messages
 * quote when it changes (scripts/signature.sh checks it against the commit log).  Being
 * literal strings, the positions do not move when move generation lists actions in
 * another order; only the search can move the signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/eval.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_bench_summary[] = "search fixed positions: node-count signature and playouts/s";

#define BENCH_PLAYOUTS 5000

/* Chosen from self-play games (seed 11; Gounki at 1500 playouts a move, Gobs at 600),
 * positions where the game is still open: both sides have captures, stacks and
 * deployments in Gounki; jump chains on the board in Gobs, and mid-turn positions (the
 * same player jumps on), where the search's same-side nodes are exercised. */
static const struct {
    int game;
    const char *pos; /* a position string (docs/FORMATS.md) */
} bench_positions[] = {
    /* Gounki: the start, and middlegames with captures on both sides. */
    {GK_GAME_GOUNKI, "rsrsrsrs/srsrsrsr/8/8/8/8/RSRSRSRS/SRSRSRSR w 0"},
    {GK_GAME_GOUNKI, "rsr4s/s1s(rs)2(rss)r/2r5/8/7s/1(RRS)4r1/R3(RSS)r(RRS)S/SRS2(RS)2 w 16"},
    {GK_GAME_GOUNKI, "r3(rs)s1s/2s(rs)Rr1(rrs)/s(rrs)1R4/2S5/8/1S6/R1RS2(RRS)1/SR1SSRS1 b 19"},
    {GK_GAME_GOUNKI, "r2srsrs/3(rrs)1(rs)1r/1r6/3(RRS)4/8/3s1R2/RS1s(RR)S1S/1(RS)SsS1SR w 20"},
    {GK_GAME_GOUNKI, "r3sR(rs)1/sss1R3/2r(rrs)2r1/1(RRS)4S1/8/8/7S/S2SSRSR b 35"},
    /* Gobs, standard rules: the start, a middlegame, a jump chain in progress. */
    {GK_GAME_GOBS,
     "standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 - *"},
    {GK_GAME_GOBS, "standard b1bb2bwb/bb1bbww1b/1ww1w4/w2bbb2w/b2bbb3/b1wbb1w1w/wb1bb1www/"
                   "www3www/wwbwwbbww b 65 - *"},
    {GK_GAME_GOBS, "standard bbbb2bbb/1w2w2bb/bbw3bbb/2b3bbb/wbbbw2ww/ww1bwb1bw/wwbb2bw1/"
                   "w1bbw3b/wwbwb1w2 w 156 d1+1 *"},
    /* Gobs, short rules: the same three kinds. */
    {GK_GAME_GOBS,
     "short bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 - *"},
    {GK_GAME_GOBS, "short bbbbbbbbb/b2w1bb1b/1bb1bbb1b/1b2wbbbw/w2w2b1w/2bwww3/w1wwwww1w/"
                   "ww2w3w/wwwwwwwww b 83 - *"},
    {GK_GAME_GOBS, "short bb1ww1bb1/2ww1bb1b/bbww3bb/bbbw2bbb/b1ww2b1w/ww1w1ww1w/w1wwb3w/"
                   "ww1w2ww1/wwwwwwwww b 147 c6+1 *"},
};
#define NBENCH ((int)(sizeof bench_positions / sizeof bench_positions[0]))

/* The position of bench entry i; -1 (with a message) if its string does not parse, which
 * only a rules change that refuses it can cause. */
static int bench_setup(int i, gk_pos_t *p) {
    const gk_game_t *g = gk_game_by_id(bench_positions[i].game);
    char err[256];
    if (g->pos_from_text(p, bench_positions[i].pos, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        cli_error("bench", "position %d: %s", i + 1, err);
        return -1;
    }
    return 0;
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
    ev_weights_t w;
    gk_pos_t p;
    if (bench_setup(i, &p) < 0) return CLI_FAIL;
    mcts_t *m = ev_weights_default(p.game, &w) ? NULL : mcts_new(&c->p, &w);
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
    if (cli_search_finish("bench", s)) {
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
