/* cli/cmd_show.c -- `gounki show`: a position as an ASCII board and a position string. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "view_out.h"

const char cmd_show_summary[] = "print a position: board, side to move, position string";

static const char help[] =
    "usage: gounki show [--game G] [--position P] [--moves \"M1 M2 ...\"] [--svg F] [--png F]\n"
    "Prints the board, the side to move, the number of legal complete\n"
    "moves, the result when the game is over, and the position string.\n" CLI_POS_HELP
    "  --svg FILE         also draw the board as an SVG picture (- = standard output,\n"
    "                     then nothing else is printed); the last of --moves is an arrow\n"
    "  --png FILE         the same picture as PNG (needs rsvg-convert, librsvg2-bin)\n";

enum { OPT_SVG = 0x2001, OPT_PNG = 0x2002 }; /* long options only, above CLI_OPT_* */

int cmd_show(int argc, char **argv) {
    static const struct option opts[] = {CLI_POS_LONGOPTS,
                                         {"svg", required_argument, 0, OPT_SVG},
                                         {"png", required_argument, 0, OPT_PNG},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *svg = NULL, *png = NULL;
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option("show", &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == OPT_SVG || c == OPT_PNG) {
            *(c == OPT_SVG ? &svg : &png) = optarg;
            continue;
        }
        return cli_bad_option("show", argc, argv);
    }
    if (optind < argc) {
        cli_error("show", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    gk_pos_t pos;
    gk_hist_t *hist = NULL;
    static gk_hist_t hist_buf; /* large; one per process run, not shared */
    hist = &hist_buf;
    int rc = cli_load_position("show", &po, &pos, hist);
    if (rc) return rc;
    if (svg || png) {
        if ((rc = cli_view_board("show", &po, &pos, svg, png))) return rc;
        if (svg && !strcmp(svg, "-")) return CLI_OK;
    }
    const gk_game_t *g = gk_game_of(&pos);
    char board[GK_BOARD_TEXT_MAX], text[GK_POS_TEXT_MAX];
    if (g->board_text(&pos, board, sizeof board) < 0 ||
        g->pos_to_text(&pos, text, sizeof text) < 0) {
        cli_error("show", "internal error: position text does not fit");
        return CLI_FAIL;
    }
    fputs(board, stdout);
    printf("game:       %s (%s)\n", g->name, g->variants[pos.variant]);
    printf("to move:    %s%s\n", pos.stm == GK_WHITE ? "white" : "black",
           pos.in_turn ? " (continuing its turn)" : "");
    printf("turns:      %u\n", pos.turn);
    if (gk_over(&pos)) {
        printf("result:     %s (%s)\n", gk_result_text(pos.result), gk_reason_text(pos.reason));
    } else {
        uint64_t n = g->perft(&pos, 1);
        if (n == 0) {
            gk_apply_no_move(&pos);
            printf("result:     %s (%s)\n", gk_result_text(pos.result), gk_reason_text(pos.reason));
        } else {
            printf("legal:      %llu complete moves\n", (unsigned long long)n);
        }
    }
    printf("position:   %s\n", text);
    return CLI_OK;
}
