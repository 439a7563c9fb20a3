/* cli/cmd_perft.c -- `gounki perft`: count complete-move sequences, the rules' checksum. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../common/clock.h"
#include "../common/progress.h"

const char cmd_perft_summary[] = "count move sequences of a given depth (rules check, speed)";

static const char help[] =
    "usage: gounki perft DEPTH [--game G] [--position P] [--moves \"...\"] [--divide]\n"
    "                    [--threads N] [--quiet]\n"
    "Counts the sequences of DEPTH complete moves (turns) from the position, ignoring\n"
    "repetition, and prints the count, the time and the leaves per second.  --divide\n"
    "prints the count under each first action (a complete move in Gounki; a slide,\n"
    "elimination or first jump leg in Gobs).\n" CLI_POS_HELP
    "  --divide           count per first action\n"
    "  --threads N        split the first actions over N threads (default 1)\n"
    "  --quiet            no progress lines (from depth 5 on, standard error shows the\n"
    "                     first actions counted so far and the speed, once a second on\n"
    "                     a terminal, every 10 s otherwise)\n";

/* From this depth on a count may take long enough to show progress (Gounki 6: 12 s, Gobs
 * standard 5: 60 s): it is split by first action, which costs nothing measurable there. */
enum { PROGRESS_DEPTH = 5 };

int cmd_perft(int argc, char **argv) {
    static const struct option opts[] = {CLI_POS_LONGOPTS,
                                         {"divide", no_argument, 0, 'd'},
                                         {"threads", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    int divide = 0, quiet = 0;
    long threads = 1, depth;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option("perft", &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'd': divide = 1; break;
        case 'q': quiet = 1; break;
        case 't':
            if (cli_parse_long("perft", "--threads", optarg, 1, 1024, &threads)) return CLI_USAGE;
            break;
        default: return cli_bad_option("perft", argc, argv);
        }
    }
    if (optind != argc - 1) {
        cli_error("perft",
                  optind >= argc ? "missing DEPTH (see 'gounki perft --help')"
                                 : "unexpected argument '%s'",
                  argv[argc - 1]);
        return CLI_USAGE;
    }
    if (cli_parse_long("perft", "DEPTH", argv[optind], 0, 64, &depth)) return CLI_USAGE;

    gk_pos_t pos;
    int rc = cli_load_position("perft", &po, &pos, NULL);
    if (rc) return rc;
    const gk_game_t *g = gk_game_of(&pos);

    gk_action_t list[GK_MAX_ACTIONS];
    int n = depth > 0 ? g->gen(&pos, list) : 0;
    uint64_t *counts = calloc((size_t)(n > 0 ? n : 1), sizeof *counts);
    if (!counts) {
        cli_error("perft", "out of memory");
        return CLI_FAIL;
    }
    gk_progress_t prog;
    gk_progress_init(&prog, quiet || depth < PROGRESS_DEPTH ? NULL : stderr, GK_PROGRESS_TTY,
                     GK_PROGRESS_PLAIN);
    double t0 = gk_now_s();
    uint64_t total = 0, sofar = 0;
    int done = 0;
    if (depth == 0) {
        total = 1;
    } else if (!divide && threads == 1 && !prog.out) {
        /* One call: a game's perft may share work across first actions (Gobs: chains
         * through several first legs, transpositions; 3x less work on big chains). */
        total = g->perft(&pos, (int)depth);
    } else {
        /* Each first action is an independent subtree: split them over threads. */
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)threads) reduction(+ : total)
        for (int i = 0; i < n; i++) {
            gk_pos_t q = pos;
            g->play(&q, list[i]);
            int d = (q.in_turn != 0 && !gk_over(&q)) ? (int)depth : (int)depth - 1;
            counts[i] = g->perft(&q, d);
            total += counts[i];
#pragma omp critical(perft_progress)
            {
                done++;
                sofar += counts[i];
                if (gk_progress_due(&prog)) {
                    double el = gk_now_s() - t0;
                    gk_progress_line(&prog,
                                     "perft %ld: %d/%d first actions, %llu leaves, %.1f M leaves/s",
                                     depth, done, n, (unsigned long long)sofar,
                                     el > 0 ? (double)sofar / el / 1e6 : 0.0);
                }
            }
        }
    }
    gk_progress_end(&prog);
    double dt = gk_now_s() - t0;
    if (divide) {
        for (int i = 0; i < n; i++) {
            char buf[GK_MOVE_TEXT_MAX];
            if (g->action_text(&pos, list[i], buf, sizeof buf) < 0) strcpy(buf, "?");
            printf("%s: %llu\n", buf, (unsigned long long)counts[i]);
        }
    }
    free(counts);
    printf("perft %ld: %llu\n", depth, (unsigned long long)total);
    printf("time %.3f s, %.1f M leaves/s, %ld thread%s\n", dt,
           dt > 0 ? (double)total / dt / 1e6 : 0.0, threads, threads > 1 ? "s" : "");
    return CLI_OK;
}
