/*
 * data/book_use.c -- reading a book: probing and the book move, walks, the book's view of a
 * position, opening lines, and the choice of expansion targets (book.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/status.h"
#include "book.h"
#include "book_internal.h"
#include "xxh64.h"

static int legal(const gk_action_t *list, int n, gk_action_t a) {
    for (int i = 0; i < n; i++)
        if (list[i] == a) return 1;
    return 0;
}

static uint64_t games(const bk_edge_t *e) {
    return (uint64_t)e->w + e->d + e->l;
}

/* True when edge e beats edge f as a book move: value, then games, then the smaller action. */
static bool better(const bk_edge_t *e, const bk_edge_t *f) {
    if (!f) return true;
    if (e->value != f->value) return e->value > f->value;
    if (games(e) != games(f)) return games(e) > games(f);
    return e->action < f->action;
}

/* Plays book edge e at p into q when it is legal and leads where the book says. */
static bool follow(const bk_book_t *b, const gk_pos_t *p, const bk_edge_t *e, gk_pos_t *q) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(p, list);
    if (!legal(list, n, e->action)) return false;
    *q = *p;
    gk_play(q, e->action);
    if (e->term != BK_CHILD_NODE) return true;
    if (!gk_over(q) && gk_gen(q, list) == 0) gk_apply_no_move(q);
    if (gk_over(q)) return false;
    const bk_node_t *c = &b->node[e->child];
    return q->hash == c->key && bk_check(q) == c->check;
}

static double unit(uint64_t *rng) {
    return (double)(gk_splitmix64(rng) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------------ probing */

int bk_choose(const bk_book_t *b, const gk_pos_t *p, const bk_probe_opts_t *o, uint64_t *rng,
              bk_choice_t *out) {
    memset(out, 0, sizeof *out);
    int32_t k = bk_probe(b, p);
    if (k < 0) {
        out->out = BK_OUT_MISSING;
        return 0;
    }
    const bk_node_t *x = &b->node[k];
    out->moves = x->nedges;
    gk_action_t list[GK_MAX_ACTIONS];
    int nl = gk_gen(p, list);
    const bk_edge_t *best = NULL;
    bool few = false;
    for (int j = 0; j < x->nedges; j++) {
        const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
        if (isnan(e->value) || !legal(list, nl, e->action)) continue;
        if (o && o->min_games && games(e) < o->min_games) {
            few = true;
            continue;
        }
        if (better(e, best)) best = e;
    }
    if (!best) {
        out->out = few ? BK_OUT_FEW_GAMES : BK_OUT_NO_MOVES;
        return 0;
    }
    if (x->leaf.kind == BK_LEAF_VALUE && x->leaf.value > best->value) {
        out->out = BK_OUT_LEAF_BETTER;
        return 0;
    }
    const bk_edge_t *pick = best;
    if (o && o->random_window > 0 && rng) {
        int cand = 0;
        const bk_edge_t *c[GK_MAX_ACTIONS];
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (isnan(e->value) || !legal(list, nl, e->action)) continue;
            if (o->min_games && games(e) < o->min_games) continue;
            if ((double)e->value >= (double)best->value - o->random_window) c[cand++] = e;
        }
        if (cand > 1) pick = c[gk_splitmix64(rng) % (uint64_t)cand];
    }
    out->action = pick->action;
    out->value = pick->value;
    out->games = (uint32_t)(games(pick) > UINT32_MAX ? UINT32_MAX : games(pick));
    return 1;
}

int bk_walk(const bk_book_t *b, double temperature, uint64_t *rng, gk_action_t *out, int cap) {
    gk_pos_t p, q;
    gk_game_by_id(b->rules.game)->setup(&p, &b->rules);
    uint32_t cur = b->root;
    int n = 0, boundary = 0;
    while (n < cap) {
        const bk_node_t *x = &b->node[cur];
        const bk_edge_t *opt[GK_MAX_ACTIONS];
        double w[GK_MAX_ACTIONS];
        int k = 0, besti = -1;
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (e->term != BK_CHILD_NODE || isnan(e->value) || !follow(b, &p, e, &q)) continue;
            if (besti < 0 || better(e, opt[besti])) besti = k;
            opt[k++] = e;
        }
        /* The book ends where it has no move, or where its leaf beats every book move. */
        if (k == 0 || (x->leaf.kind == BK_LEAF_VALUE && x->leaf.value > opt[besti]->value)) break;
        int pick = besti;
        if (temperature > 0) {
            double top = opt[besti]->value, sum = 0;
            for (int i = 0; i < k; i++) sum += w[i] = exp((opt[i]->value - top) / temperature);
            double u = unit(rng) * sum;
            for (int i = 0; i < k; i++) {
                if (u < w[i]) {
                    pick = i;
                    break;
                }
                u -= w[i];
            }
        }
        follow(b, &p, opt[pick], &q);
        out[n++] = opt[pick]->action;
        p = q;
        cur = opt[pick]->child;
        if (p.in_turn == 0) boundary = n;
    }
    return boundary;
}

/* ------------------------------------------------------------------ describing */

/* The text of action a at p; a book read from an untrusted file may hold any value, so only
 * a legal action is given to the game's notation. */
static void act_text(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap) {
    gk_action_t list[GK_MAX_ACTIONS];
    if (!legal(list, gk_gen(p, list), a) || gk_game_of(p)->action_text(p, a, buf, cap) < 0)
        snprintf(buf, cap, "(illegal %08x)", a);
}

static void put_val(gk_sb_t *sb, float v, bool json) {
    if (isnan(v))
        gk_sb_puts(sb, json ? "null" : "      -");
    else
        gk_sb_printf(sb, json ? "%.4f" : "%+7.3f", (double)v);
}

/* The principal book line from node k at p: best book moves while they are at least as
 * good as the leaf.  Writes at most cap actions. */
static int main_line(const bk_book_t *b, uint32_t k, const gk_pos_t *p0, gk_action_t *line,
                     int cap) {
    gk_pos_t p = *p0, q;
    int n = 0;
    while (n < cap) {
        const bk_node_t *x = &b->node[k];
        const bk_edge_t *best = NULL;
        gk_pos_t bq;
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (isnan(e->value) || !better(e, best) || !follow(b, &p, e, &q)) continue;
            best = e;
            bq = q;
        }
        if (!best || (x->leaf.kind == BK_LEAF_VALUE && x->leaf.value > best->value)) break;
        line[n++] = best->action;
        if (best->term != BK_CHILD_NODE) break;
        p = bq;
        k = best->child;
    }
    return n;
}

int bk_describe(const bk_book_t *b, const gk_pos_t *p, bool json, gk_sb_t *sb) {
    const gk_game_t *g = gk_game_of(p);
    char ptext[GK_POS_TEXT_MAX], mv[GK_MOVE_TEXT_MAX];
    if (g->pos_to_text(p, ptext, sizeof ptext) < 0) snprintf(ptext, sizeof ptext, "?");
    int32_t k = bk_probe(b, p);
    if (k < 0) {
        if (json) {
            gk_sb_puts(sb, "{\"position\":");
            gk_sb_put_json(sb, ptext);
            gk_sb_puts(sb, ",\"in_book\":false}\n");
        } else {
            gk_sb_printf(sb, "position  %s\nbook      not in the book\n", ptext);
        }
        return 0;
    }
    const bk_node_t *x = &b->node[k];
    uint64_t gw = 0, gd = 0, gl = 0;
    for (int j = 0; j < x->nedges; j++) {
        const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
        gw += e->w, gd += e->d, gl += e->l;
    }
    /* Book moves by value (unknown last), then games. */
    const bk_edge_t *ord[GK_MAX_ACTIONS];
    int ne = x->nedges;
    for (int j = 0; j < ne; j++) ord[j] = &b->edge[x->first + (uint32_t)j];
    for (int i = 1; i < ne; i++) {
        const bk_edge_t *t = ord[i];
        int j = i - 1;
        for (; j >= 0; j--) {
            const bk_edge_t *u = ord[j];
            bool before = isnan(u->value) ? !isnan(t->value) || games(t) > games(u)
                                          : !isnan(t->value) && better(t, u);
            if (!before) break;
            ord[j + 1] = ord[j];
        }
        ord[j + 1] = t;
    }
    gk_action_t line[64];
    int nline = main_line(b, (uint32_t)k, p, line, 64);
    const bk_leaf_t *lf = &x->leaf;
    if (json) {
        gk_sb_puts(sb, "{\"position\":");
        gk_sb_put_json(sb, ptext);
        gk_sb_printf(sb,
                     ",\"in_book\":true,\"key\":\"%016" PRIx64 "\",\"games\":%" PRIu64
                     ",\"w\":%" PRIu64 ",\"d\":%" PRIu64 ",\"l\":%" PRIu64 ",\"value\":",
                     x->key, gw + gd + gl, gw, gd, gl);
        put_val(sb, x->value, true);
        gk_sb_printf(sb, ",\"below\":%u,\"leaf\":", x->below);
        if (lf->kind == BK_LEAF_VALUE) {
            act_text(p, lf->move, mv, sizeof mv);
            gk_sb_puts(sb, "{\"move\":");
            gk_sb_put_json(sb, mv);
            gk_sb_printf(sb, ",\"value\":%.4f,\"playouts\":%u,\"prior\":%.4f}", (double)lf->value,
                         lf->budget, lf->prior / 65535.0);
        } else {
            gk_sb_puts(sb, lf->kind == BK_LEAF_FULL ? "\"full\"" : "null");
        }
        gk_sb_puts(sb, ",\"moves\":[");
        for (int i = 0; i < ne; i++) {
            const bk_edge_t *e = ord[i];
            act_text(p, e->action, mv, sizeof mv);
            gk_sb_puts(sb, i ? ",{\"move\":" : "{\"move\":");
            gk_sb_put_json(sb, mv);
            gk_sb_printf(sb,
                         ",\"games\":%" PRIu64 ",\"w\":%u,\"d\":%u,\"l\":%u,\"value\":", games(e),
                         e->w, e->d, e->l);
            put_val(sb, e->value, true);
            if (e->term == BK_CHILD_NODE)
                gk_sb_printf(sb, ",\"below\":%u}", b->node[e->child].below);
            else
                gk_sb_printf(sb, ",\"ends\":\"%s\"}",
                             e->term == BK_TERM_WIN    ? "win"
                             : e->term == BK_TERM_LOSS ? "loss"
                                                       : "draw");
        }
        gk_sb_puts(sb, "],\"line\":[");
    } else {
        gk_sb_printf(sb, "position  %s\n", ptext);
        gk_sb_printf(sb,
                     "book      node %016" PRIx64 ", %d book move%s, %" PRIu64 " games (W %" PRIu64
                     " D %" PRIu64 " L %" PRIu64 " for %s)\n",
                     x->key, ne, ne == 1 ? "" : "s", gw + gd + gl, gw, gd, gl,
                     p->stm == GK_WHITE ? "White" : "Black");
        gk_sb_puts(sb, "value    ");
        put_val(sb, x->value, false);
        gk_sb_printf(sb, " (negamax, for the side to move), %u action%s of book below\n", x->below,
                     x->below == 1 ? "" : "s");
        if (lf->kind == BK_LEAF_VALUE) {
            act_text(p, lf->move, mv, sizeof mv);
            gk_sb_printf(sb, "leaf      %s %+.3f (best move not in the book, %u playouts)\n", mv,
                         (double)lf->value, lf->budget);
        } else {
            gk_sb_printf(sb, "leaf      %s\n",
                         lf->kind == BK_LEAF_FULL ? "none (every legal move is in the book)"
                                                  : "not searched");
        }
        gk_sb_printf(sb, "%-20s %8s %7s %7s %7s %7s %6s\n", "move", "games", "W", "D", "L", "value",
                     "below");
        for (int i = 0; i < ne; i++) {
            const bk_edge_t *e = ord[i];
            act_text(p, e->action, mv, sizeof mv);
            gk_sb_printf(sb, "%-20s %8" PRIu64 " %7u %7u %7u ", mv, games(e), e->w, e->d, e->l);
            put_val(sb, e->value, false);
            if (e->term == BK_CHILD_NODE)
                gk_sb_printf(sb, " %6u\n", b->node[e->child].below);
            else
                gk_sb_printf(sb, " %6s\n",
                             e->term == BK_TERM_WIN    ? "wins"
                             : e->term == BK_TERM_LOSS ? "loses"
                                                       : "draws");
        }
        gk_sb_puts(sb, "line     ");
    }
    gk_pos_t q = *p;
    for (int i = 0; i < nline; i++) {
        act_text(&q, line[i], mv, sizeof mv);
        if (json) {
            if (i) gk_sb_putc(sb, ',');
            gk_sb_put_json(sb, mv);
        } else {
            gk_sb_printf(sb, " %s", mv);
        }
        gk_play(&q, line[i]);
    }
    gk_sb_puts(sb, json ? "]}\n" : (nline ? "\n" : " (the book ends here)\n"));
    return gk_sb_len(sb) < 0 ? GK_E_NOMEM : 0;
}

/* ------------------------------------------------------------------ opening lines */

void bk_lines_free(bk_lines_t *L) {
    free(L->line);
    free(L->act);
    memset(L, 0, sizeof *L);
}

static bool id_less(const bk_node_t *x, const bk_node_t *y) {
    return x->key < y->key || (x->key == y->key && x->check < y->check);
}

typedef struct {
    float error;
    uint32_t i;
    uint64_t key, check;
} line_ord_t;

static int cmp_line(const void *pa, const void *pb) {
    const line_ord_t *a = pa, *b = pb;
    if (a->error != b->error) return a->error < b->error ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->check != b->check) return a->check < b->check ? -1 : 1;
    return 0;
}

int bk_lines(const bk_book_t *b, const bk_lines_opts_t *o, bk_lines_t *out, char *err,
             size_t errcap) {
    memset(out, 0, sizeof *out);
    GK_RETURN_IF(!b->order, err, errcap, GK_E_ARG, "the book's derived data is missing");
    uint32_t n = b->nnodes;
    double *cost = malloc((size_t)n * sizeof *cost);
    uint32_t *pred = malloc((size_t)n * sizeof *pred);
    uint8_t *inner = calloc(n, 1), *mark = calloc(n, 1);
    uint32_t *exits = malloc((size_t)n * sizeof *exits);
    line_ord_t *ord = NULL;
    gk_action_t *path = NULL;
    int rc = 0;
    if (!cost || !pred || !inner || !mark || !exits) goto oom;
    for (uint32_t i = 0; i < n; i++) cost[i] = INFINITY, pred[i] = UINT32_MAX;
    cost[b->root] = 0;
    const double eps = 1e-9;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = b->order[k];
        if (isinf(cost[i])) continue;
        const bk_node_t *x = &b->node[i];
        if (isnan(x->value) || (o->turns > 0 && x->in_turn == 0 && x->turn >= o->turns)) continue;
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (e->term != BK_CHILD_NODE || isnan(e->value)) continue;
            double d = (double)x->value - (double)e->value;
            if (d < 0) d = 0;
            double c = cost[i] + d;
            if (d > o->max_error + eps || c > o->total_error + eps) continue;
            inner[i] = 1;
            uint32_t ch = e->child;
            if (c < cost[ch] ||
                (c == cost[ch] && pred[ch] != UINT32_MAX && id_less(x, &b->node[pred[ch]]))) {
                cost[ch] = c;
                pred[ch] = i;
            }
        }
    }
    /* Exits: reached nodes with no move to follow, moved back to a turn boundary. */
    uint32_t nex = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = b->order[k];
        if (isinf(cost[i]) || inner[i]) continue;
        while (i != b->root && b->node[i].in_turn != 0) i = pred[i];
        if (i == b->root || mark[i]) continue;
        mark[i] = 1;
        exits[nex++] = i;
    }
    /* Each line: the path of predecessors, replayed and checked. */
    const gk_game_t *g = gk_game_by_id(b->rules.game);
    size_t pcap = 256;
    path = malloc(pcap * sizeof *path);
    if (!path) goto oom;
    for (uint32_t t = 0; t < nex; t++) {
        uint32_t e = exits[t];
        size_t len = 0;
        for (uint32_t c = e; c != b->root; c = pred[c]) {
            if (len == pcap) {
                gk_action_t *np = realloc(path, 2 * pcap * sizeof *np);
                if (!np) goto oom;
                path = np;
                pcap *= 2;
            }
            const bk_node_t *px = &b->node[pred[c]];
            gk_action_t a = GK_NO_ACTION;
            for (int j = 0; j < px->nedges; j++) {
                const bk_edge_t *ed = &b->edge[px->first + (uint32_t)j];
                if (ed->term == BK_CHILD_NODE && ed->child == c) a = ed->action;
            }
            path[len++] = a;
        }
        gk_pos_t p, q;
        g->setup(&p, &b->rules);
        uint32_t cur = b->root, turns = 0;
        bool ok = true;
        for (size_t k = len; k-- > 0 && ok;) {
            const bk_edge_t *ed = bk_edge_find(b, cur, path[k]);
            ok = ed && ed->term == BK_CHILD_NODE && follow(b, &p, ed, &q);
            if (!ok) break;
            p = q;
            cur = ed->child;
            if (p.in_turn == 0) turns++;
        }
        if (!ok || turns == 0) continue;
        const bk_node_t *ex = &b->node[e];
        float wv = isnan(ex->value) ? NAN : ex->stm == GK_WHITE ? ex->value : -ex->value;
        if (o->balanced >= 0 && !(fabs((double)wv) <= o->balanced + eps)) continue;
        if (out->nlines == out->cap_line) {
            size_t cap = out->cap_line ? 2 * out->cap_line : 64;
            bk_line_t *nl = realloc(out->line, cap * sizeof *nl);
            if (!nl) goto oom;
            out->line = nl;
            out->cap_line = cap;
        }
        if (out->nact + len > out->cap_act) {
            size_t cap = out->cap_act ? out->cap_act : 1024;
            while (cap < out->nact + len) cap *= 2;
            gk_action_t *na = realloc(out->act, cap * sizeof *na);
            if (!na) goto oom;
            out->act = na;
            out->cap_act = cap;
        }
        bk_line_t *ln = &out->line[out->nlines++];
        ln->start = out->nact;
        ln->n = (uint32_t)len;
        ln->turns = turns;
        ln->exit = wv;
        ln->error = (float)cost[e];
        for (size_t k = len; k-- > 0;) out->act[out->nact++] = path[k];
        exits[out->nlines - 1] = e; /* exits[] now lists the kept lines' exits */
    }
    /* Smallest total error first (then by the exit's identity), at most count. */
    uint32_t m = out->nlines;
    ord = malloc(((size_t)m + 1) * sizeof *ord);
    if (!ord) goto oom;
    for (uint32_t i = 0; i < m; i++)
        ord[i] =
            (line_ord_t){out->line[i].error, i, b->node[exits[i]].key, b->node[exits[i]].check};
    qsort(ord, m, sizeof *ord, cmp_line);
    if (o->count && m > o->count) m = o->count;
    bk_line_t *sorted = malloc(((size_t)m + 1) * sizeof *sorted);
    if (!sorted) goto oom;
    for (uint32_t i = 0; i < m; i++) sorted[i] = out->line[ord[i].i];
    free(out->line);
    out->line = sorted;
    out->nlines = m;
    out->cap_line = m;
    goto done;
oom:
    rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    bk_lines_free(out);
done:
    free(cost);
    free(pred);
    free(inner);
    free(mark);
    free(exits);
    free(ord);
    free(path);
    return rc;
}

int bk_lines_text(const bk_book_t *b, const bk_lines_t *L, gk_sb_t *sb, char *err, size_t errcap) {
    const gk_game_t *g = gk_game_by_id(b->rules.game);
    size_t start = sb->n;
    gk_sb_printf(sb, "gkopenings 1\ngame %s\n", g->name);
    for (uint32_t i = 0; i < L->nlines; i++) {
        const bk_line_t *ln = &L->line[i];
        gk_pos_t p, t;
        g->setup(&p, &b->rules);
        t = p;
        gk_action_t seq[GK_MAX_TURN];
        int k = 0;
        bool first = true;
        for (uint32_t j = 0; j < ln->n; j++) {
            if (k == GK_MAX_TURN) return gk_fail(err, errcap, GK_E_FORMAT, "a turn too long");
            seq[k++] = L->act[ln->start + j];
            gk_play(&p, seq[k - 1]);
            if (p.in_turn != 0) continue;
            char mv[GK_MOVE_TEXT_MAX];
            if (g->move_text(&t, seq, k, mv, sizeof mv) < 0)
                return gk_fail(err, errcap, GK_E_FORMAT, "a move has no notation");
            gk_sb_printf(sb, "%s%s", first ? "" : " ", mv);
            first = false;
            k = 0;
            t = p;
        }
        if (isnan(ln->exit))
            gk_sb_printf(sb, "  # exit value unknown, error %.3f\n", (double)ln->error);
        else
            gk_sb_printf(sb, "  # exit %+.3f (White), error %.3f\n", (double)ln->exit,
                         (double)ln->error);
    }
    if (gk_sb_len(sb) < 0) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    gk_sb_printf(sb, "checksum %016" PRIx64 "\n", gk_xxh64(sb->p + start, sb->n - start, 0));
    return gk_sb_len(sb) < 0 ? gk_fail(err, errcap, GK_E_NOMEM, "out of memory") : 0;
}

/* ------------------------------------------------------------------ expansion targets */

static double prior_cost(double weight, uint16_t prior) {
    return weight > 0 && prior ? weight * -log((double)prior / 65535.0) : 0.0;
}

/* Inserts (node, pri) into the sorted out[0..*n) of at most cap, by (pri, key, check). */
static void keep_best(const bk_book_t *b, bk_target_t *out, int *n, int cap, uint32_t node,
                      double pri) {
    const bk_node_t *x = &b->node[node];
    int i = *n;
    if (i == cap) {
        const bk_target_t *w = &out[cap - 1];
        const bk_node_t *y = &b->node[w->node];
        if (pri > w->priority || (pri == w->priority && !id_less(x, y))) return;
        i = cap - 1;
    } else {
        (*n)++;
    }
    while (i > 0) {
        const bk_target_t *u = &out[i - 1];
        const bk_node_t *y = &b->node[u->node];
        if (u->priority < pri || (u->priority == pri && id_less(y, x))) break;
        out[i] = out[i - 1];
        i--;
    }
    out[i] = (bk_target_t){node, pri};
}

int bk_select(const bk_book_t *b, const bk_select_opts_t *o, bk_target_t *out, int cap) {
    if (!b->order || cap <= 0) return 0;
    uint32_t n = b->nnodes;
    double *pri = malloc((size_t)n * sizeof *pri);
    if (!pri) return 0;
    for (uint32_t i = 0; i < n; i++) pri[i] = INFINITY;
    pri[b->root] = 0;
    int got = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = b->order[k];
        if (isinf(pri[i])) continue;
        const bk_node_t *x = &b->node[i];
        double best = x->value, top = -INFINITY;
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (!isnan(e->value) && e->value > top) top = e->value;
            if (e->term != BK_CHILD_NODE) continue;
            double sf = isnan(best) || isnan(e->value) ? 0.0 : best - (double)e->value;
            double c =
                pri[i] + o->alpha * (sf > 0 ? sf : 0) + 1.0 + prior_cost(o->policy_cost, e->prior);
            if (c < pri[e->child]) pri[e->child] = c;
        }
        /* A full node (width) still takes its leaf when the leaf beats every book move:
         * else the book would end there for the engine and for walks. */
        if (x->leaf.kind == BK_LEAF_VALUE &&
            (o->width <= 0 || x->nedges < o->width || x->leaf.value > top)) {
            double sf = isnan(best) ? 0.0 : best - (double)x->leaf.value;
            double c = pri[i] + o->alpha * (sf > 0 ? sf : 0) + 1.0 +
                       prior_cost(o->policy_cost, x->leaf.prior);
            keep_best(b, out, &got, cap, i, c);
        }
    }
    free(pri);
    return got;
}

int bk_unsearched(const bk_book_t *b, uint32_t *out, int cap) {
    int got = 0;
    for (uint32_t i = 0; i < b->nnodes && cap > 0; i++) {
        const bk_node_t *x = &b->node[i];
        if (x->leaf.kind != BK_LEAF_NONE) continue;
        int j = got;
        if (got == cap) {
            const bk_node_t *w = &b->node[out[cap - 1]];
            if (bk_level(w) < bk_level(x) || (bk_level(w) == bk_level(x) && id_less(w, x)))
                continue;
            j = cap - 1;
        } else {
            got++;
        }
        while (j > 0) {
            const bk_node_t *u = &b->node[out[j - 1]];
            if (bk_level(u) < bk_level(x) || (bk_level(u) == bk_level(x) && id_less(u, x))) break;
            out[j] = out[j - 1];
            j--;
        }
        out[j] = i;
    }
    return got;
}
