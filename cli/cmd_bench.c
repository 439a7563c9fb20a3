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
    if (g->pos_from_text(p, bench_positions[i].pos, GK_DEFAULT_MAX_PLY, err, sizeof err) < 0) {
        cli_error("bench", "position %d: %s", i + 1, err);
        return -1;
    }
    return 0;
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
        ev_weights_t w;
        gk_pos_t p;
        if (bench_setup(i, &p) < 0) {
            rc = CLI_FAIL;
            break;
        }
        mcts_t *m = ev_weights_default(p.game, &w) ? NULL : mcts_new(&mp, &w);
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
