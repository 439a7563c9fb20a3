/* cli/cmd_moves.c -- `gounki moves`: the legal complete moves of a position. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char cmd_moves_summary[] = "list the legal complete moves of a position";

static const char help[] =
    "usage: gounki moves [--game G] [--position P] [--moves \"M1 M2 ...\"] [--limit N]\n"
    "Prints every legal complete move, one per line, in the output notation.  When there\n"
    "are more than N (default 10000), prints their count and, for each first action, the\n"
    "number of complete moves that start with it, for the first N first actions (and one\n"
    "line counting the others): never more than N lines after the count.\n" CLI_POS_HELP
    "  --limit N          most lines to list (default 10000; 0: the count alone)\n";

static int print_move(void *ctx, const gk_pos_t *start, const gk_action_t *seq, int n) {
    (void)ctx;
    char buf[GK_MOVE_TEXT_MAX];
    if (gk_game_of(start)->move_text(start, seq, n, buf, sizeof buf) < 0) return 1;
    puts(buf);
    return 0;
}

int cmd_moves(int argc, char **argv) {
    static const struct option opts[] = {CLI_POS_LONGOPTS,
                                         {"limit", required_argument, 0, 'l'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    uint64_t limit = 10000;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option("moves", &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == 'l') {
            if (cli_parse_u64("moves", "--limit", optarg, &limit)) return CLI_USAGE;
            continue;
        }
        return cli_bad_option("moves", argc, argv);
    }
    if (optind < argc) {
        cli_error("moves", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    gk_pos_t pos;
    static gk_hist_t hist;
    int rc = cli_load_position("moves", &po, &pos, &hist);
    if (rc) return rc;
    if (gk_over(&pos)) {
        fprintf(stderr, "gounki moves: the game is over: %s (%s)\n", gk_result_text(pos.result),
                gk_reason_text(pos.reason));
        return CLI_OK;
    }
    const gk_game_t *g = gk_game_of(&pos);
    /* Counting first (cheap, memoised per game) tells whether listing is sensible. */
    uint64_t total = g->perft(&pos, 1);
    if (total <= limit) {
        gk_enum_moves(&pos, limit, print_move, NULL);
        return CLI_OK;
    }
    printf("%llu complete moves (more than --limit %llu); by first action:\n",
           (unsigned long long)total, (unsigned long long)limit);
    gk_action_t list[GK_MAX_ACTIONS];
    int n = g->gen(&pos, list);
    /* At most `limit` lines here too: the rest is one line of counts. */
    uint64_t rest_moves = 0;
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if ((uint64_t)i >= limit) {
            gk_pos_t q = pos;
            g->play(&q, list[i]);
            rest_moves += (q.in_turn != 0 && !gk_over(&q)) ? g->perft(&q, 1) : 1;
            continue;
        }
        gk_pos_t q = pos;
        char buf[GK_MOVE_TEXT_MAX];
        g->play(&q, list[i]);
        uint64_t under = (q.in_turn != 0 && !gk_over(&q)) ? g->perft(&q, 1) : 1;
        if (g->action_text(&pos, list[i], buf, sizeof buf) < 0) strcpy(buf, "?");
        printf("%-24s %llu\n", buf, (unsigned long long)under);
        shown++;
    }
    if (shown < n)
        printf("... and %d more first action%s (%llu complete move%s)\n", n - shown,
               n - shown > 1 ? "s" : "", (unsigned long long)rest_moves,
               rest_moves != 1 ? "s" : "");
    return CLI_OK;
}
