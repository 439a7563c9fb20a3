/* cli/cmd_analyse.c -- `gounki analyse`: search one position and report what the MCTS thinks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "../data/book.h"
#include "../eval/eval.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_analyse_summary[] = "search a position: best move, win probability, PV, top moves";

static void usage(const cli_search_t *s) {
    fputs("usage: gounki analyse [--game G] [--position P] [--moves \"...\"] [--playouts N | "
          "--time S]\n"
          "                      [--threads T] [--weights FILE] [--json] [--top K] [--set "
          "NAME=V,...]\n"
          "Searches the position with the MCTS and prints the best action, the win probability\n"
          "of the side to move, the principal variation and the most visited actions with their\n"
          "visits, value and prior.  Proven results (win/loss/draw in N actions) are "
          "shown.\n" CLI_POS_HELP "  --top K            actions listed (default 10)\n"
          "  --json             one JSON object on stdout instead of text\n"
          "  --book FILE        also print the opening book's view of the position\n",
          stdout);
    cli_search_help(stdout, s);
}

static int json_str(FILE *f, const char *s) {
    gk_sb_t b;
    gk_sb_growing(&b);
    gk_sb_put_json(&b, s);
    int rc = b.over ? EOF : fputs(b.p, f);
    gk_sb_free(&b);
    return rc;
}

static const char *proof_name(int p) {
    switch (p) {
    case MCTS_PROVEN_WIN: return "win";
    case MCTS_PROVEN_LOSS: return "loss";
    case MCTS_PROVEN_DRAW: return "draw";
    default: return "none";
    }
}

static void act_text(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap) {
    if (gk_game_of(p)->action_text(p, a, buf, cap) < 0) snprintf(buf, cap, "?");
}

enum { OPT_JSON = 0x2001, OPT_TOP, OPT_BOOK };

/* The book's view of pos (text, or JSON without its line end) into sb; a one-line error and
 * -1 when the book cannot be read. */
static int book_view(const char *path, const gk_pos_t *pos, bool json, gk_sb_t *sb) {
    bk_book_t b;
    char err[512];
    gk_rules_t r = {pos->game, pos->variant, pos->max_plies};
    if (bk_load(path, &r, &b, err, sizeof err) < 0) {
        cli_error("analyse", "--book: %s", err);
        return -1;
    }
    bk_describe(&b, pos, json, sb);
    bk_free(&b);
    if (gk_sb_len(sb) < 0) {
        cli_error("analyse", "--book: out of memory");
        return -1;
    }
    if (json && sb->n && sb->p[sb->n - 1] == '\n') sb->p[--sb->n] = 0;
    return 0;
}

typedef struct own {
    int json;
    long top;
    const char *book; /* --book FILE */
} own_t;

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    if (opt == OPT_JSON) return o->json = 1;
    if (opt == OPT_TOP)
        return cli_parse_long(cmd, "--top", arg, 0, GK_MAX_ACTIONS, &o->top) ? -1 : 1;
    if (opt == OPT_BOOK) {
        o->book = arg;
        return 1;
    }
    return 0;
}

static void print_json(const gk_pos_t *pos, const char *ptext, char pv[][GK_MOVE_TEXT_MAX],
                       const mcts_result_t *res, int shown, const char *book) {
    const gk_game_t *g = gk_game_of(pos);
    char buf[GK_MOVE_TEXT_MAX];
    double rate = res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0;
    act_text(pos, res->best, buf, sizeof buf);
    printf("{\"game\":");
    json_str(stdout, g->name);
    printf(",\"position\":");
    json_str(stdout, ptext);
    printf(",\"best\":");
    json_str(stdout, buf);
    printf(",\"value\":%.4f,\"playouts\":%llu,\"nodes\":%llu,\"reused\":%llu,"
           "\"seconds\":%.4f,\"playouts_per_s\":%.0f,\"depth_max\":%d,\"proof\":\"%s\","
           "\"proof_actions\":%d,\"tree_full\":%s,\"stopped_early\":%s,\"stop_reason\":\"%s\","
           "\"pv\":[",
           (double)res->value, (unsigned long long)res->playouts, (unsigned long long)res->nodes,
           (unsigned long long)res->reused, res->seconds, rate, res->depth_max,
           proof_name(res->proof), res->proof_actions, res->tree_full ? "true" : "false",
           res->stopped_early ? "true" : "false", mcts_stop_name(res->stop_reason));
    for (int i = 0; i < res->pv_len; i++) {
        if (i) putchar(',');
        json_str(stdout, pv[i]);
    }
    printf("],\"moves\":[");
    for (int i = 0; i < shown; i++) {
        const mcts_child_t *ch = &res->children[i];
        act_text(pos, ch->action, buf, sizeof buf);
        printf("%s{\"move\":", i ? "," : "");
        json_str(stdout, buf);
        printf(",\"visits\":%u,\"value\":", ch->visits);
        if (ch->visits || ch->proof != MCTS_UNPROVEN)
            printf("%.4f", (double)ch->value);
        else
            printf("null");
        printf(",\"prior\":%.4f,\"proof\":\"%s\",\"actions\":%d}", (double)ch->prior,
               proof_name(ch->proof), ch->actions);
    }
    printf("]%s%s}\n", book ? ",\"book\":" : "", book ? book : "");
}

static void print_text(const gk_pos_t *pos, const char *ptext, char pv[][GK_MOVE_TEXT_MAX],
                       const mcts_result_t *res, int shown, const char *book, const char *btext) {
    char buf[GK_MOVE_TEXT_MAX];
    double rate = res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0;
    act_text(pos, res->best, buf, sizeof buf);
    printf("position  %s\n", ptext);
    printf("best      %s\n", buf);
    printf("value     %.3f (win probability of %s to move)\n", (double)res->value,
           pos->stm == GK_WHITE ? "White" : "Black");
    if (res->proof != MCTS_UNPROVEN)
        printf("proven    %s in %d action%s\n", proof_name(res->proof), res->proof_actions,
               res->proof_actions == 1 ? "" : "s");
    printf("pv       ");
    for (int i = 0; i < res->pv_len; i++) printf(" %s", pv[i]);
    printf("\nsearch    %llu playouts (%llu reused), %llu nodes, depth %d, %.3f s, %.0f "
           "playouts/s%s%s%s%s\n",
           (unsigned long long)res->playouts, (unsigned long long)res->reused,
           (unsigned long long)res->nodes, res->depth_max, res->seconds, rate,
           res->tree_full ? ", tree full" : "", res->stopped_early ? ", stopped early (" : "",
           res->stopped_early ? mcts_stop_name(res->stop_reason) : "",
           res->stopped_early ? ")" : "");
    printf("%-24s %8s %7s %7s  %s\n", "move", "visits", "value", "prior", "proof");
    for (int i = 0; i < shown; i++) {
        const mcts_child_t *ch = &res->children[i];
        act_text(pos, ch->action, buf, sizeof buf);
        printf("%-24s %8u ", buf, ch->visits);
        if (ch->visits || ch->proof != MCTS_UNPROVEN)
            printf("%7.3f", (double)ch->value);
        else
            printf("%7s", "-");
        printf(" %7.3f", (double)ch->prior);
        if (ch->proof != MCTS_UNPROVEN) printf("  %s in %d", proof_name(ch->proof), ch->actions);
        putchar('\n');
    }
    if (book) printf("opening book %s:\n%s", book, btext);
}

/* Searches pos and prints the report.  Returns an exit status. */
static int analyse(const gk_pos_t *pos, const gk_hist_t *hist, const cli_search_t *s,
                   const own_t *o, mcts_result_t *res, ev_weights_t *w) {
    int rc = cli_load_weights("analyse", "--weights", s->weights, pos->game, w);
    if (rc) return rc;
    gk_sb_t bsb;
    gk_sb_growing(&bsb);
    if (o->book && book_view(o->book, pos, o->json, &bsb) < 0) {
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    mcts_t *m = mcts_new(&s->cfg.p, w);
    if (!m) {
        cli_error("analyse", "cannot create the search (out of memory for tree_mb=%d?)",
                  s->cfg.p.tree_mb);
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    rc = mcts_search(m, pos, hist, &s->cfg.l, res);
    mcts_free(m);
    if (rc < 0) {
        cli_error("analyse", "the side to move has no legal action");
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    char ptext[GK_POS_TEXT_MAX], pv[MCTS_MAX_PV][GK_MOVE_TEXT_MAX];
    if (gk_game_of(pos)->pos_to_text(pos, ptext, sizeof ptext) < 0)
        snprintf(ptext, sizeof ptext, "?");
    gk_pos_t q = *pos;
    for (int i = 0; i < res->pv_len; i++) {
        act_text(&q, res->pv[i], pv[i], sizeof pv[i]);
        gk_play(&q, res->pv[i]);
    }
    int shown = res->nchildren < o->top ? res->nchildren : (int)o->top;
    if (o->json)
        print_json(pos, ptext, pv, res, shown, o->book ? bsb.p : NULL);
    else
        print_text(pos, ptext, pv, res, shown, o->book, bsb.p);
    gk_sb_free(&bsb);
    return CLI_OK;
}

int cmd_analyse(int argc, char **argv) {
    static const struct option own_opts[] = {{"json", no_argument, 0, OPT_JSON},
                                             {"top", required_argument, 0, OPT_TOP},
                                             {"book", required_argument, 0, OPT_BOOK},
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    cli_search_t *s = malloc(sizeof *s);
    gk_hist_t *hist = malloc(sizeof *hist);
    mcts_result_t *res = malloc(sizeof *res);
    ev_weights_t *w = malloc(sizeof *w);
    own_t o = {0, 10, NULL};
    int rc = CLI_FAIL, first;
    if (!s || !hist || !res || !w) {
        cli_error("analyse", "out of memory");
        goto done;
    }
    cli_search_init(s, NULL, NULL, CLI_SEARCH_WEIGHTS | CLI_SEARCH_FLAGS);
    const cli_group_t groups[] = {
        cli_pos_group(&po), cli_search_group(s), {own_opts, own_take, &o}};
    rc = cli_getopt("analyse", argc, argv, groups, 3, 0, &first);
    if (rc == CLI_HELP) usage(s);
    if (rc) goto done;
    cli_search_finish(s);
    gk_pos_t pos;
    if ((rc = cli_load_position("analyse", &po, &pos, hist))) goto done;
    if (gk_over(&pos)) {
        cli_error("analyse", "the game is over (%s, %s)", gk_result_text(pos.result),
                  gk_reason_text(pos.reason));
        rc = CLI_FAIL;
        goto done;
    }
    rc = analyse(&pos, hist, s, &o, res, w);
done:
    free(w);
    free(res);
    free(hist);
    free(s);
    return rc == CLI_HELP ? CLI_OK : rc;
}
