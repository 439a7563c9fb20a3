/* cli/cmd_analyse.c -- `gounki analyse`: search a position, a game or a file of positions. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/strbuf.h"
#include "../data/book.h"
#include "../eval/eval.h"
#include "../games/record.h"
#include "../search/mcts.h"
#include "../search/turn.h"
#include "cli.h"

const char cmd_analyse_summary[] =
    "search a position: best move, win probability, PV, top moves; annotate a game";

static void usage(const cli_search_t *s) {
    fputs("usage: gounki analyse [--game G] [--position P] [--moves \"...\"] [--playouts N | "
          "--time S | --infinite]\n"
          "                      [--threads T] [--weights FILE] [--json] [--top K] [--set "
          "NAME=V,...]\n"
          "       gounki analyse --record FILE [--mistake X] [--blunder X] [budget] [--json]\n"
          "       gounki analyse --positions FILE [budget]\n"
          "Searches the position with the MCTS and prints the best move (a whole turn), the win\n"
          "probability of the side to move, the principal variation in moves and in actions, and\n"
          "the most visited moves with their visits, value, prior and own variation.  Proven\n"
          "results (win/loss/draw in N actions) are shown.\n" CLI_POS_HELP
          "  --top K            moves listed (default 10)\n"
          "  --json             one JSON object on stdout instead of text\n"
          "  --book FILE        also print the opening book's view of the position\n"
          "  --infinite         search until interrupted (^C, SIGTERM), proven, or --time ends;\n"
          "                     --time inf says the same; info lines every second\n"
          "  --info S           an info line on stderr every S seconds (playouts, playouts/s,\n"
          "                     best, value, PV; JSON with --json; default 1 with --infinite,\n"
          "                     else none)\n"
          "  --record FILE      annotate a game record: each move's win probability before and\n"
          "                     after, the engine's move where it differs, ? and ?? marks;\n"
          "                     written as a record (gounki replay reads it) or JSON\n"
          "  --mistake X        a win-probability drop of X or more is marked ? (default 0.10)\n"
          "  --blunder X        a drop of X or more is marked ?? (default 0.20)\n"
          "  --positions FILE   search each position of FILE (one position string a line, #\n"
          "                     comments, blank lines skipped): one JSON line each\n"
          "SIGINT (^C) or SIGTERM stops the search and prints the answer so far (a batch:\n"
          "what is done, exit 3).\n"
          "Exit status: 0 answered (also after ^C), 1 bad data, 2 usage, 3 answered after "
          "SIGTERM.\n",
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

enum {
    OPT_JSON = 0x2001,
    OPT_TOP,
    OPT_BOOK,
    OPT_INFINITE,
    OPT_INFO,
    OPT_RECORD,
    OPT_POSITIONS,
    OPT_MISTAKE,
    OPT_BLUNDER
};
enum { EXIT_SIGNAL = 3 };

/* The one mutable global: the signal that stopped the search (a handler reaches nothing
 * else); the search polls it between playouts through its monitor. */
static _Atomic int stop_signal;

static void on_signal(int sig) {
    atomic_store(&stop_signal, sig);
}

/* SIGINT and SIGTERM stop the search (and the batch) instead of the program. */
static void catch_signals(void) {
    cli_catch_stop_signals(on_signal, false);
}

/* The book's view of pos (text, or JSON without its line end) into sb; a one-line error and
 * -1 when the book cannot be read. */
static int book_view(const char *path, const gk_pos_t *pos, bool json, gk_sb_t *sb) {
    bk_book_t b;
    char err[512];
    gk_rules_t r = {pos->game, pos->variant, pos->turn_limit};
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
    const char *book;        /* --book FILE */
    int infinite;            /* --infinite (or --time inf) */
    double info_s;           /* --info S: seconds between info lines (-1: not given) */
    const char *record;      /* --record FILE: annotate a game */
    const char *positions;   /* --positions FILE: one position per line */
    double mistake, blunder; /* win-probability drops marked ? and ?? */
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
    if (opt == OPT_INFINITE) return o->infinite = 1;
    if (opt == OPT_RECORD) return o->record = arg, 1;
    if (opt == OPT_POSITIONS) return o->positions = arg, 1;
    if (opt == OPT_MISTAKE)
        return cli_parse_double(cmd, "--mistake", arg, 0, 1, &o->mistake) ? -1 : 1;
    if (opt == OPT_BLUNDER)
        return cli_parse_double(cmd, "--blunder", arg, 0, 1, &o->blunder) ? -1 : 1;
    if (opt == OPT_INFO) return cli_parse_double(cmd, "--info", arg, 0, 3600, &o->info_s) ? -1 : 1;
    return 0;
}

/* The variation of the i-th child of res (its own, or just its action past MCTS_MULTIPV) as
 * complete moves.  Returns their number. */
static int child_moves(const gk_pos_t *pos, const mcts_result_t *res, int i, const ev_weights_t *w,
                       turn_move_t *out, int cap) {
    if (i < res->npv && res->child_pv_len[i])
        return turn_moves(pos, NULL, 0, res->child_pv[i], res->child_pv_len[i], w, out, cap);
    return turn_moves(pos, NULL, 0, &res->children[i].action, 1, w, out, cap);
}

static void json_actions(const gk_pos_t *pos, const gk_action_t *acts, int n) {
    gk_pos_t q = *pos;
    char buf[GK_MOVE_TEXT_MAX];
    putchar('[');
    for (int i = 0; i < n; i++) {
        act_text(&q, acts[i], buf, sizeof buf);
        if (i) putchar(',');
        json_str(stdout, buf);
        gk_play(&q, acts[i]);
    }
    putchar(']');
}

static void json_moves(const turn_move_t *mv, int n) {
    putchar('[');
    for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        json_str(stdout, mv[i].text);
    }
    putchar(']');
}

/* The report's view of the result: the best move, the PV and the top children's lines as
 * complete moves (heap: a few hundred kB). */
typedef struct view {
    turn_move_t pv[MCTS_MAX_PV];
    int npv;
    turn_move_t line[MCTS_CHILD_PV];
} view_t;

static void print_json(const gk_pos_t *pos, const char *ptext, view_t *v, const mcts_result_t *res,
                       int shown, const char *book, const ev_weights_t *w) {
    const gk_game_t *g = gk_game_of(pos);
    double rate = res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0;
    printf("{\"game\":");
    json_str(stdout, g->name);
    printf(",\"position\":");
    json_str(stdout, ptext);
    printf(",\"best\":");
    json_str(stdout, v->npv ? v->pv[0].text : "?");
    printf(",\"best_actions\":");
    json_actions(pos, v->pv[0].seq, v->npv ? v->pv[0].n : 0);
    printf(",\"best_policy_actions\":%d", v->npv ? v->pv[0].policy : 0);
    printf(",\"value\":%.4f,\"playouts\":%llu,\"nodes\":%llu,\"reused\":%llu,"
           "\"seconds\":%.4f,\"playouts_per_s\":%.0f,\"depth_max\":%d,\"proof\":\"%s\","
           "\"proof_actions\":%d,\"tree_full\":%s,\"stopped_early\":%s,\"stop_reason\":\"%s\","
           "\"pv\":",
           (double)res->value, (unsigned long long)res->playouts, (unsigned long long)res->nodes,
           (unsigned long long)res->reused, res->seconds, rate, res->depth_max,
           proof_name(res->proof), res->proof_actions, res->tree_full ? "true" : "false",
           res->stopped_early ? "true" : "false", mcts_stop_name(res->stop_reason));
    json_moves(v->pv, v->npv);
    printf(",\"pv_actions\":");
    json_actions(pos, res->pv, res->pv_len);
    printf(",\"moves\":[");
    for (int i = 0; i < shown; i++) {
        const mcts_child_t *ch = &res->children[i];
        int nl = child_moves(pos, res, i, w, v->line, MCTS_CHILD_PV);
        printf("%s{\"move\":", i ? "," : "");
        json_str(stdout, nl ? v->line[0].text : "?");
        printf(",\"move_actions\":");
        json_actions(pos, v->line[0].seq, nl ? v->line[0].n : 0);
        printf(",\"policy_actions\":%d,\"visits\":%u,\"value\":", nl ? v->line[0].policy : 0,
               ch->visits);
        if (ch->visits || ch->proof != MCTS_UNPROVEN)
            printf("%.4f", (double)ch->value);
        else
            printf("null");
        printf(",\"prior\":%.4f,\"proof\":\"%s\",\"actions\":%d,\"pv\":", (double)ch->prior,
               proof_name(ch->proof), ch->actions);
        json_moves(v->line, nl);
        putchar('}');
    }
    printf("]%s%s}\n", book ? ",\"book\":" : "", book ? book : "");
}

static void print_text(const gk_pos_t *pos, const char *ptext, view_t *v, const mcts_result_t *res,
                       int shown, const char *book, const char *btext, const ev_weights_t *w) {
    char buf[GK_MOVE_TEXT_MAX];
    double rate = res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0;
    printf("position  %s\n", ptext);
    printf("best      %s", v->npv ? v->pv[0].text : "?");
    if (v->npv && v->pv[0].policy)
        printf("   (the last %d action%s by the policy: not searched)", v->pv[0].policy,
               v->pv[0].policy == 1 ? "" : "s");
    printf("\nvalue     %.3f (win probability of %s to move)\n", (double)res->value,
           pos->stm == GK_WHITE ? "White" : "Black");
    if (res->proof != MCTS_UNPROVEN)
        printf("proven    %s in %d action%s\n", proof_name(res->proof), res->proof_actions,
               res->proof_actions == 1 ? "" : "s");
    printf("pv       ");
    for (int i = 0; i < v->npv; i++) printf(" %s", v->pv[i].text);
    printf("\nactions  ");
    gk_pos_t q = *pos;
    for (int i = 0; i < res->pv_len; i++) {
        act_text(&q, res->pv[i], buf, sizeof buf);
        printf(" %s", buf);
        gk_play(&q, res->pv[i]);
    }
    printf("\nsearch    %llu playouts (%llu reused), %llu nodes, depth %d, %.3f s, %.0f "
           "playouts/s%s%s%s%s\n",
           (unsigned long long)res->playouts, (unsigned long long)res->reused,
           (unsigned long long)res->nodes, res->depth_max, res->seconds, rate,
           res->tree_full ? ", tree full" : "", res->stopped_early ? ", stopped early (" : "",
           res->stopped_early ? mcts_stop_name(res->stop_reason) : "",
           res->stopped_early ? ")" : "");
    printf("%-24s %8s %7s %7s  %-14s %s\n", "move", "visits", "value", "prior", "proof", "pv");
    for (int i = 0; i < shown; i++) {
        const mcts_child_t *ch = &res->children[i];
        int nl = child_moves(pos, res, i, w, v->line, MCTS_CHILD_PV);
        printf("%-24s %8u ", nl ? v->line[0].text : "?", ch->visits);
        if (ch->visits || ch->proof != MCTS_UNPROVEN)
            printf("%7.3f", (double)ch->value);
        else
            printf("%7s", "-");
        printf(" %7.3f", (double)ch->prior);
        buf[0] = 0;
        if (ch->proof != MCTS_UNPROVEN)
            snprintf(buf, sizeof buf, "%s in %d", proof_name(ch->proof), ch->actions);
        printf("  %-14s", buf);
        for (int k = 0; k < nl && k < 8; k++) printf(" %s", v->line[k].text);
        putchar('\n');
    }
    if (book) printf("opening book %s:\n%s", book, btext);
}

/* What the info lines need: the position, the weights (to end a turn the tree did not
 * reach) and room for the PV in moves. */
typedef struct info_ctx {
    const gk_pos_t *pos;
    const ev_weights_t *w;
    int json;
    turn_move_t pv[MCTS_MAX_PV];
} info_ctx_t;

/* One info line on stderr with the search so far (called from the searching thread). */
static void on_info(const mcts_result_t *r, void *ctx) {
    info_ctx_t *c = ctx;
    int n = turn_moves(c->pos, NULL, 0, r->pv, r->pv_len, c->w, c->pv, MCTS_MAX_PV);
    double rate = r->seconds > 0 ? (double)r->playouts / r->seconds : 0.0;
    if (c->json) {
        fprintf(stderr,
                "{\"info\":{\"seconds\":%.2f,\"playouts\":%llu,\"playouts_per_s\":%.0f,"
                "\"nodes\":%llu,\"value\":%.4f,\"best\":",
                r->seconds, (unsigned long long)r->playouts, rate, (unsigned long long)r->nodes,
                (double)r->value);
        json_str(stderr, n ? c->pv[0].text : "?");
        fputs(",\"pv\":[", stderr);
        for (int i = 0; i < n; i++) {
            if (i) fputc(',', stderr);
            json_str(stderr, c->pv[i].text);
        }
        fputs("]}}\n", stderr);
    } else {
        fprintf(stderr,
                "info %.1f s, %llu playouts, %.0f playouts/s, %llu nodes, best %s, value %.3f, pv",
                r->seconds, (unsigned long long)r->playouts, rate, (unsigned long long)r->nodes,
                n ? c->pv[0].text : "?", (double)r->value);
        for (int i = 0; i < n; i++) fprintf(stderr, " %s", c->pv[i].text);
        fputc('\n', stderr);
    }
    fflush(stderr);
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
    info_ctx_t *ic = malloc(sizeof *ic);
    if (!ic) {
        cli_error("analyse", "out of memory");
        mcts_free(m);
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    *ic = (info_ctx_t){.pos = pos, .w = w, .json = o->json};
    double every = o->info_s >= 0 ? o->info_s : o->infinite ? 1.0 : 0.0;
    mcts_set_monitor(m, &(mcts_monitor_t){.stop = &stop_signal,
                                          .info = every > 0 ? on_info : NULL,
                                          .ctx = ic,
                                          .interval_s = every});
    mcts_limits_t lim = s->cfg.l;
    if (o->infinite) {
        lim.playouts = (uint64_t)1e15; /* the table's largest budget: until stopped */
        if (!mcts_config_isset(&s->cfg, "early_stop")) lim.early_stop = 0;
    }
    catch_signals();
    rc = mcts_search(m, pos, hist, &lim, res);
    mcts_free(m);
    free(ic);
    if (rc < 0) {
        cli_error("analyse", "the side to move has no legal action");
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    char ptext[GK_POS_TEXT_MAX];
    if (gk_game_of(pos)->pos_to_text(pos, ptext, sizeof ptext) < 0)
        snprintf(ptext, sizeof ptext, "?");
    view_t *v = malloc(sizeof *v);
    if (!v) {
        cli_error("analyse", "out of memory");
        gk_sb_free(&bsb);
        return CLI_FAIL;
    }
    v->npv = turn_moves(pos, NULL, 0, res->pv, res->pv_len, w, v->pv, MCTS_MAX_PV);
    int shown = res->nchildren < o->top ? res->nchildren : (int)o->top;
    if (o->json)
        print_json(pos, ptext, v, res, shown, o->book ? bsb.p : NULL, w);
    else
        print_text(pos, ptext, v, res, shown, o->book, bsb.p, w);
    free(v);
    gk_sb_free(&bsb);
    fflush(stdout);
    /* Interrupted with ^C: the answer so far is the answer.  SIGTERM: answered, but stopped. */
    return atomic_load(&stop_signal) == SIGTERM ? EXIT_SIGNAL : CLI_OK;
}

/* ---- batches: a game record, a file of positions ---- */

/* The search object of a batch: no info lines, a signal stops the search and the batch. */
static mcts_t *batch_search(const cli_search_t *s, const ev_weights_t *w) {
    mcts_t *m = mcts_new(&s->cfg.p, w);
    if (!m) {
        cli_error("analyse", "cannot create the search (out of memory for tree_mb=%d?)",
                  s->cfg.p.tree_mb);
        return NULL;
    }
    mcts_set_monitor(m, &(mcts_monitor_t){.stop = &stop_signal});
    catch_signals();
    return m;
}

/* What the analysis says of one move of a record. */
typedef struct turn_note {
    float before;     /* the mover's win probability before the move (the search's value) */
    float after;      /* after it: 1 - the next search's value, or the game's result */
    int has_after;    /* after is known */
    turn_move_t best; /* the engine's preferred move */
    int differs;      /* best is not the move played */
    char glyph[3];    /* "?", "??" or "" */
    char note[2 * GK_MOVE_TEXT_MAX];
} turn_note_t;

static float result_for(const gk_pos_t *p, int side) {
    if (p->result == GK_DRAW) return 0.5f;
    return (p->result == GK_WIN_WHITE) == (side == GK_WHITE) ? 1.0f : 0.0f;
}

/* Searches every position of rec before a move (and the last one) into nt[0..nmoves).
 * Returns the number of moves whose position was searched, or -1 (reported). */
static int record_search(const gk_record_t *rec, mcts_t *m, const mcts_limits_t *lim,
                         const ev_weights_t *w, mcts_result_t *res, turn_note_t *nt) {
    gk_hist_t *h = malloc(sizeof *h);
    if (!h) {
        cli_error("analyse", "out of memory");
        return -1;
    }
    gk_pos_t pos = rec->start;
    gk_hist_init(h, &pos);
    int done = 0;
    for (int i = 0; i <= rec->nmoves && !gk_over(&pos) && !atomic_load(&stop_signal); i++) {
        if (mcts_search(m, &pos, h, lim, res) < 0) break;
        if (i > 0) nt[i - 1].after = 1.0f - res->value, nt[i - 1].has_after = 1;
        if (i == rec->nmoves) break;
        turn_note_t *n = &nt[i];
        n->before = res->value, done = i + 1;
        if (turn_moves(&pos, NULL, 0, res->pv, res->pv_len, w, &n->best, 1) < 1) n->best.n = 0;
        const gk_action_t *seq = rec->actions + rec->move_start[i];
        int len = rec->move_start[i + 1] - rec->move_start[i];
        n->differs = n->best.n != len || memcmp(n->best.seq, seq, sizeof *seq * (size_t)len);
        int mover = pos.stm;
        for (int k = 0; k < len; k++) gk_play(&pos, seq[k]);
        gk_hist_push(h, &pos);
        gk_hist_check_repetition(h, &pos);
        if (gk_over(&pos)) n->after = result_for(&pos, mover), n->has_after = 1;
    }
    free(h);
    return done;
}

/* The marks and comments of the moves searched. */
static void record_marks(const own_t *o, turn_note_t *nt, int done) {
    for (int i = 0; i < done; i++) {
        turn_note_t *n = &nt[i];
        double drop = n->has_after ? (double)(n->before - n->after) : 0.0;
        const char *kind = "";
        if (n->has_after && drop >= o->blunder)
            snprintf(n->glyph, sizeof n->glyph, "??"), kind = ", blunder";
        else if (n->has_after && drop >= o->mistake)
            snprintf(n->glyph, sizeof n->glyph, "?"), kind = ", mistake";
        int k = snprintf(n->note, sizeof n->note, "%.1f%%", 100.0 * n->before);
        if (n->has_after)
            k += snprintf(n->note + k, sizeof n->note - (size_t)k, " -> %.1f%%%s", 100.0 * n->after,
                          kind);
        if (n->differs && n->best.n)
            snprintf(n->note + k, sizeof n->note - (size_t)k, "; best %s", n->best.text);
    }
}

static void record_json(const gk_record_t *rec, const own_t *o, const turn_note_t *nt, int done,
                        const char *path) {
    printf("{\"record\":");
    json_str(stdout, path);
    printf(",\"game\":");
    json_str(stdout, gk_game_of(&rec->start)->name);
    printf(",\"mistake\":%.3f,\"blunder\":%.3f,\"analysed\":%d,\"moves\":%d,\"turns\":[",
           o->mistake, o->blunder, done, rec->nmoves);
    gk_pos_t pos = rec->start;
    char mt[GK_MOVE_TEXT_MAX];
    for (int i = 0; i < done; i++) {
        const turn_note_t *n = &nt[i];
        const gk_action_t *seq = rec->actions + rec->move_start[i];
        int len = rec->move_start[i + 1] - rec->move_start[i];
        if (gk_game_of(&pos)->move_text(&pos, seq, len, mt, sizeof mt) < 0)
            snprintf(mt, sizeof mt, "?");
        printf("%s{\"turn\":%d,\"side\":\"%s\",\"move\":", i ? "," : "", pos.turn + 1,
               pos.stm == GK_WHITE ? "white" : "black");
        json_str(stdout, mt);
        printf(",\"before\":%.4f,\"after\":", (double)n->before);
        if (n->has_after)
            printf("%.4f,\"drop\":%.4f", (double)n->after, (double)(n->before - n->after));
        else
            printf("null,\"drop\":null");
        printf(",\"mark\":\"%s\",\"best\":", n->glyph);
        json_str(stdout, n->best.n ? n->best.text : "?");
        printf(",\"best_actions\":");
        json_actions(&pos, n->best.seq, n->best.n);
        printf(",\"differs\":%s}", n->differs ? "true" : "false");
        for (int k = 0; k < len; k++) gk_play(&pos, seq[k]);
    }
    printf("]}\n");
}

typedef struct record_ctx {
    const cli_search_t *s;
    const own_t *o;
    mcts_result_t *res;
    ev_weights_t *w;
    int rc;
} record_ctx_t;

/* One record of the file: searched, marked and written (a record, or one JSON line). */
static int annotate_one(void *ctx, const gk_record_t *rec, int index, const char *why) {
    record_ctx_t *c = ctx;
    (void)index;
    if (why) return 1; /* reported by the caller, with the reason */
    turn_note_t *nt = calloc((size_t)rec->nmoves + 1, sizeof *nt);
    const char **gl = calloc((size_t)rec->nmoves + 1, sizeof *gl);
    const char **no = calloc((size_t)rec->nmoves + 1, sizeof *no);
    mcts_t *m = NULL;
    int rc = CLI_FAIL;
    if (!nt || !gl || !no) {
        cli_error("analyse", "out of memory");
    } else if (!(rc = cli_load_weights("analyse", "--weights", c->s->weights, rec->start.game,
                                       c->w)) &&
               (m = batch_search(c->s, c->w))) {
        int done = record_search(rec, m, &c->s->cfg.l, c->w, c->res, nt);
        rc = CLI_FAIL;
        if (done >= 0) {
            record_marks(c->o, nt, done);
            for (int i = 0; i < done; i++) gl[i] = nt[i].glyph, no[i] = nt[i].note;
            char ann[128];
            snprintf(ann, sizeof ann, "gounki analyse (mistake %.2f, blunder %.2f)", c->o->mistake,
                     c->o->blunder);
            gk_record_t tagged = *rec; /* a shallow copy: only its tags change, nothing is freed */
            rc = CLI_OK;
            if (c->o->json) {
                record_json(rec, c->o, nt, done, c->o->record);
            } else if (gk_record_set_tag(&tagged, "Annotator", ann) < 0 ||
                       (index && putchar('\n') == EOF) ||
                       gk_record_write_notes(&tagged, stdout, gl, no) < 0) {
                cli_error("analyse", "writing the annotated record failed");
                rc = CLI_FAIL;
            }
        }
    } else if (!rc) {
        rc = CLI_FAIL;
    }
    mcts_free(m);
    free(no);
    free(gl);
    free(nt);
    fflush(stdout);
    c->rc = rc;
    return rc || atomic_load(&stop_signal);
}

/* `--record FILE`: every move of each game record of FILE with the win probability before
 * and after it, the engine's move where it differs, and marks, as records (or JSON lines). */
static int analyse_record(const cli_pos_opts_t *po, const cli_search_t *s, const own_t *o,
                          mcts_result_t *res, ev_weights_t *w) {
    gk_rules_t rules;
    int rc = cli_rules("analyse", po, &rules);
    if (rc) return rc;
    char *text, err[512];
    size_t len;
    if (gk_read_file(o->record, (size_t)64 << 20, &text, &len, err, sizeof err)) {
        cli_error("analyse", "--record: %s", err);
        return CLI_FAIL;
    }
    record_ctx_t c = {s, o, res, w, CLI_OK};
    int n = gk_record_read_all(text, len, &rules, annotate_one, &c, err, sizeof err);
    free(text);
    if (n < 0) {
        cli_error("analyse", "--record %s: %s", o->record, err);
        return CLI_FAIL;
    }
    if (n == 0) {
        cli_error("analyse", "--record %s: no game record in the file", o->record);
        return CLI_FAIL;
    }
    if (c.rc) return c.rc;
    return atomic_load(&stop_signal) ? EXIT_SIGNAL : CLI_OK;
}

/* Reads one position string of any game (the string names its rule set). */
static int any_position(const char *text, uint16_t turn_limit, gk_pos_t *pos, char *err,
                        size_t cap) {
    for (int g = 0; g < GK_NGAMES; g++)
        if (gk_game_by_id(g)->pos_from_text(pos, text, turn_limit, err, cap) == 0) {
            if (!gk_over(pos)) return 0;
            snprintf(err, cap, "the game is over (%s)", gk_result_text((gk_result_t)pos->result));
            return -1;
        }
    gk_game_by_id(GK_GAME_GOUNKI)->pos_from_text(pos, text, turn_limit, err, cap);
    return -1;
}

/* The next line of text[*at..len) without its end and surrounding blanks; NULL at the end. */
static char *next_line(char *text, size_t len, size_t *at) {
    if (*at >= len) return NULL;
    char *l = text + *at, *e = memchr(l, '\n', len - *at);
    size_t n = e ? (size_t)(e - l) : len - *at;
    *at += n + 1;
    l[n] = 0;
    while (*l == ' ' || *l == '\t') l++;
    n = strlen(l);
    while (n && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r')) l[--n] = 0;
    return l;
}

/* `--positions FILE`: each position (one a line, `#` comments) searched, one JSON line each.
 * Every line is read before the first search, so a bad line costs nothing. */
static int analyse_positions(const cli_pos_opts_t *po, const cli_search_t *s, const own_t *o,
                             mcts_result_t *res, ev_weights_t *w) {
    char *text, err[512];
    size_t len, at = 0;
    if (gk_read_file(o->positions, (size_t)64 << 20, &text, &len, err, sizeof err)) {
        cli_error("analyse", "--positions: %s", err);
        return CLI_FAIL;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        cli_error("analyse", "out of memory");
        free(text);
        return CLI_FAIL;
    }
    memcpy(copy, text, len);
    gk_pos_t pos;
    int lineno = 0, count = 0, rc = CLI_OK;
    for (char *l; (l = next_line(text, len, &at)) != NULL;) {
        lineno++;
        if (!*l || *l == '#') continue;
        if (any_position(l, (uint16_t)po->turn_limit, &pos, err, sizeof err) < 0) {
            cli_error("analyse", "--positions %s line %d: %s", o->positions, lineno, err);
            free(text);
            free(copy);
            return CLI_FAIL;
        }
        count++;
    }
    free(text);
    text = copy; /* the second pass reads the copy made before the first cut it into lines */
    if (!count) {
        cli_error("analyse", "--positions %s: no position in the file", o->positions);
        free(text);
        return CLI_FAIL;
    }
    own_t one = *o;
    one.json = 1;
    at = 0;
    for (char *l; (l = next_line(text, len, &at)) != NULL && !atomic_load(&stop_signal);) {
        if (!*l || *l == '#') continue;
        any_position(l, (uint16_t)po->turn_limit, &pos, err, sizeof err);
        gk_hist_t h;
        gk_hist_init(&h, &pos);
        if ((rc = analyse(&pos, &h, s, &one, res, w)) && rc != EXIT_SIGNAL) break;
    }
    free(text);
    return atomic_load(&stop_signal) ? EXIT_SIGNAL : rc;
}

int cmd_analyse(int argc, char **argv) {
    static const struct option own_opts[] = {{"json", no_argument, 0, OPT_JSON},
                                             {"top", required_argument, 0, OPT_TOP},
                                             {"book", required_argument, 0, OPT_BOOK},
                                             {"infinite", no_argument, 0, OPT_INFINITE},
                                             {"info", required_argument, 0, OPT_INFO},
                                             {"record", required_argument, 0, OPT_RECORD},
                                             {"positions", required_argument, 0, OPT_POSITIONS},
                                             {"mistake", required_argument, 0, OPT_MISTAKE},
                                             {"blunder", required_argument, 0, OPT_BLUNDER},
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    cli_search_t *s = malloc(sizeof *s);
    gk_hist_t *hist = malloc(sizeof *hist);
    mcts_result_t *res = malloc(sizeof *res);
    ev_weights_t *w = malloc(sizeof *w);
    own_t o = {0, 10, NULL, 0, -1, NULL, NULL, 0.10, 0.20};
    int rc = CLI_FAIL, first;
    /* `--time inf` is --infinite (the search parameter itself takes only numbers). */
    char **av = malloc(sizeof *av * (size_t)(argc + 1));
    if (av) {
        int k = 0;
        for (int i = 0; i < argc; i++) {
            if (!strcmp(argv[i], "--time=inf") ||
                (!strcmp(argv[i], "--time") && i + 1 < argc && !strcmp(argv[i + 1], "inf")))
                av[k++] = "--infinite", i += argv[i][6] == 0;
            else
                av[k++] = argv[i];
        }
        av[k] = NULL;
        argc = k;
    }
    if (!s || !hist || !res || !w || !av) {
        cli_error("analyse", "out of memory");
        goto done;
    }
    cli_search_init(s, NULL, NULL, CLI_SEARCH_WEIGHTS | CLI_SEARCH_FLAGS);
    const cli_group_t groups[] = {
        cli_pos_group(&po), cli_search_group(s), {own_opts, own_take, &o}};
    rc = cli_getopt("analyse", argc, av, groups, 3, 0, &first);
    if (rc == CLI_HELP) usage(s);
    if (rc) goto done;
    if (o.infinite && mcts_config_isset(&s->cfg, "playouts")) {
        cli_error("analyse", "--infinite (--time inf) has no playout limit: drop --playouts");
        rc = CLI_USAGE;
        goto done;
    }
    if (cli_search_finish("analyse", s)) {
        rc = CLI_USAGE;
        goto done;
    }
    if (o.record || o.positions) {
        if ((o.record && o.positions) || o.infinite || po.position || po.moves || o.book) {
            cli_error("analyse", "--record and --positions go alone (no --positions with --record, "
                                 "--infinite, --position, --moves or --book)");
            rc = CLI_USAGE;
        } else {
            rc = o.record ? analyse_record(&po, s, &o, res, w)
                          : analyse_positions(&po, s, &o, res, w);
        }
        goto done;
    }
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
    free(av);
    free(w);
    free(res);
    free(hist);
    free(s);
    return rc == CLI_HELP ? CLI_OK : rc;
}
