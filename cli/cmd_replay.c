/* cli/cmd_replay.c -- `gounki replay`: checks a game record move by move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../games/record.h"
#include "cli.h"
#include "view_out.h"

const char cmd_replay_summary[] = "check a game record move by move; print turns and result";

static const char help[] =
    "usage: gounki replay [OPTIONS] FILE|-\n"
    "Reads a game record (docs/FORMATS.md: [Tag \"value\"] headers, numbered moves,\n"
    "comments in braces, a result token; Wikipedia tables and gounki.org files\n"
    "read too), checks every move against the rules and prints each turn, the\n"
    "final position string and the result with its reason.  An illegal move is\n"
    "reported with its turn number, its text and why (exit 1); so is a result\n"
    "token or Result tag that contradicts the result the rules give (spellings\n"
    "such as 1 - 0 and ½-½ are compared by meaning).  A result on a game the rules\n"
    "have not ended was decided off the board (Termination: resign, agreement,\n"
    "time forfeit) and is valid.  A file may\n"
    "hold several records (a match file, each starting with its tags): each game\n"
    "is checked and printed in turn, and the first bad one stops the replay.\n"
    "  --record           print the record in the output notation instead\n"
    "  --quiet            print only the final position and the result\n"
    "  --html OUT         also write the game as a self-contained HTML page that steps\n"
    "                     through it (a file of one game)\n"
    "  --game NAME        gounki (default) or gobs, unless the record has a Game tag\n"
    "  --variant NAME     rule set, unless the record has a Variant tag\n"
    "  --turn-limit N     draw after N turns (default 500, 0 = no limit)\n";

#define MAX_RECORD (16u << 20)

static void print_turns(const gk_record_t *rec, int quiet) {
    if (quiet) return;
    const gk_game_t *g = gk_game_of(&rec->start);
    gk_pos_t p = rec->start;
    for (int m = 0; m < rec->nmoves; m++) {
        const gk_action_t *seq = rec->actions + rec->move_start[m];
        int n = rec->move_start[m + 1] - rec->move_start[m];
        char t[GK_MOVE_TEXT_MAX];
        if (g->move_text(&p, seq, n, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
        printf("turn %3u  %-5s  %s\n", (unsigned)p.turn + 1, p.stm == GK_WHITE ? "White" : "Black",
               t);
        for (int i = 0; i < n; i++) g->play(&p, seq[i]);
    }
}

typedef struct {
    const char *file;
    int write_record, quiet, rc;
    const char *html; /* --html OUT */
    gk_sb_t page;     /* its page, written once the file is known to hold one game */
} replay_t;

/* Checks and prints one record of the file (gk_record_fn). */
static int replay_one(void *ctx, const gk_record_t *rec, int index, const char *err) {
    replay_t *st = ctx;
    if (index > 0 && !st->quiet) fputc('\n', stdout);
    if (err) {
        print_turns(rec, st->quiet || st->write_record);
        return 1; /* reported by the caller */
    }
    const gk_game_t *g = gk_game_of(&rec->start);
    gk_outcome_t oc;
    char why[512];
    int rc = gk_record_outcome(rec, &oc, why, sizeof why) ? CLI_FAIL : 0;
    gk_pos_t fin = oc.final;

    if (st->write_record) {
        gk_record_t out = *rec;
        out.final = fin;
        if (gk_record_write(&out, stdout) < 0) {
            cli_error("replay", "write error");
            st->rc = CLI_FAIL;
            return 1;
        }
    } else {
        char ps[GK_POS_TEXT_MAX], start[GK_POS_TEXT_MAX];
        g->pos_to_text(&rec->start, start, sizeof start);
        g->pos_to_text(&fin, ps, sizeof ps);
        if (!st->quiet)
            printf("game %s (%s) from %s\n", g->name, g->variants[rec->start.variant], start);
        print_turns(rec, st->quiet);
        printf("position: %s\n", ps);
        if (rc)
            ;
        else if (oc.result == GK_ONGOING)
            printf("result: * (game not over) after %d move%s\n", rec->nmoves,
                   rec->nmoves != 1 ? "s" : "");
        else if (oc.how[0])
            printf("result: %s (%s by %s) after %d move%s\n", gk_result_text(oc.result),
                   gk_winner_text(oc.result), oc.how, rec->nmoves, rec->nmoves != 1 ? "s" : "");
        else /* a claim without a Termination tag */
            printf("result: %s (%s off the board: resignation, agreement or time) after %d "
                   "move%s\n",
                   gk_result_text(oc.result), gk_winner_text(oc.result), rec->nmoves,
                   rec->nmoves != 1 ? "s" : "");
    }
    if (rc) cli_error("replay", "%s: game %d: %s", st->file, index + 1, why);
    if (!rc && st->html) {
        if (index > 0) {
            cli_error("replay", "--html: %s holds more than one game; a page shows one", st->file);
            rc = CLI_USAGE;
        } else {
            rc = cli_view_record_html("replay", rec, &fin, st->file, &st->page);
        }
    }
    if (rc) st->rc = rc;
    return rc != 0;
}

enum { OPT_HTML = 0x2001 }; /* a long option only, above CLI_OPT_* */

int cmd_replay(int argc, char **argv) {
    static const struct option opts[] = {CLI_POS_LONGOPTS,
                                         {"record", no_argument, 0, 'r'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"html", required_argument, 0, OPT_HTML},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    int c, write_record = 0, quiet = 0;
    const char *html = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hrq", opts, NULL)) != -1) {
        if (c == CLI_OPT_POSITION || c == CLI_OPT_MOVES) {
            cli_error("replay", "--position and --moves do not apply: a record has its own "
                                "start (tag Position) and moves");
            return CLI_USAGE;
        }
        int r = cli_pos_option("replay", &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == 'r') {
            write_record = 1;
            continue;
        }
        if (c == 'q') {
            quiet = 1;
            continue;
        }
        if (c == OPT_HTML) {
            if (!strcmp(optarg, "-")) {
                cli_error("replay", "--html needs a file (standard output carries the replay)");
                return CLI_USAGE;
            }
            html = optarg;
            continue;
        }
        return cli_bad_option("replay", argc, argv);
    }
    if (optind != argc - 1) {
        cli_error("replay", optind >= argc ? "missing the record FILE (or - for stdin)"
                                           : "one record FILE at a time");
        return CLI_USAGE;
    }
    gk_rules_t rules;
    int rc = cli_rules("replay", &po, &rules);
    if (rc) return rc;

    const char *file = argv[optind];
    size_t len = 0;
    char *text, err[512];
    if (gk_read_file(strcmp(file, "-") ? file : "/dev/stdin", MAX_RECORD, &text, &len, err,
                     sizeof err)) {
        cli_error("replay", "%s", err);
        return CLI_FAIL;
    }
    replay_t st = {.file = file, .write_record = write_record, .quiet = quiet, .html = html};
    gk_sb_growing(&st.page);
    int n = gk_record_read_all(text, len, &rules, replay_one, &st, err, sizeof err);
    free(text);
    if (html && n == 1 && !st.rc) st.rc = cli_view_write_page("replay", "--html", html, &st.page);
    gk_sb_free(&st.page);
    if (n < 0) {
        cli_error("replay", "%s: %s", file, err);
        return CLI_FAIL;
    }
    if (n == 0) {
        cli_error("replay", "%s: no game record in the file", file);
        return CLI_FAIL;
    }
    return st.rc;
}
