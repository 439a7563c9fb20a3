/*
 * data/book.c -- the opening-book graph: identity, storage and index, building from
 * games, merging, pruning, negamax back-up, the file, probing, walks, lines, selection of
 * expansion targets (see book.h; the journal is in book_journal.c).
 */
#include "book.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../common/files.h"
#include "../common/status.h"
#include "book_internal.h"
#include "xxh64.h"

#define CHECK_SEED 0x6B6F6F62676B6263ull /* "cbkgbook" */
#define SLOT_HI    0xFFFFFFFF00000000ull

/* ------------------------------------------------------------------ identity */

uint64_t bk_check(const gk_pos_t *p) {
    uint8_t buf[6 + sizeof p->aux + sizeof p->b.cell];
    size_t k = 0;
    buf[k++] = (uint8_t)p->turn;
    buf[k++] = (uint8_t)(p->turn >> 8);
    buf[k++] = p->game;
    buf[k++] = p->variant;
    buf[k++] = p->stm;
    buf[k++] = p->in_turn;
    memcpy(buf + k, p->aux, sizeof p->aux);
    k += sizeof p->aux;
    memcpy(buf + k, p->b.cell, sizeof p->b.cell);
    k += sizeof p->b.cell;
    return gk_xxh64(buf, k, CHECK_SEED);
}

void bk_id_of(const gk_pos_t *p, bk_id_t *id) {
    id->key = p->hash;
    id->check = bk_check(p);
    id->turn = p->turn;
    id->in_turn = p->in_turn;
    id->stm = p->stm;
}

uint64_t bk_table_sum(const gk_rules_t *r) {
    const gk_game_t *g = gk_game_by_id(r->game);
    if (!g) return 0;
    enum { WALKS = 16, STEPS = 48 };
    static const size_t cap = 2 + (size_t)WALKS * STEPS * 3;
    uint8_t *buf = malloc(cap * 8);
    if (!buf) return 0;
    size_t k = 0;
    gk_rules_t rr = *r;
    rr.turn_limit = 0;
    gk_action_t list[GK_MAX_ACTIONS];
    bk_put64(buf + 8 * k++, r->game);
    bk_put64(buf + 8 * k++, r->variant);
    for (int w = 0; w < WALKS; w++) {
        gk_pos_t p;
        g->setup(&p, &rr);
        uint64_t rng = 0xB00C0000ull + (uint64_t)w;
        for (int s = 0; s < STEPS && !gk_over(&p); s++) {
            int n = g->gen(&p, list);
            if (n <= 0) break;
            gk_action_t a = list[gk_splitmix64(&rng) % (uint64_t)n];
            bk_put64(buf + 8 * k++, p.hash);
            bk_put64(buf + 8 * k++, bk_check(&p));
            bk_put64(buf + 8 * k++, a);
            g->play(&p, a);
        }
    }
    uint64_t h = gk_xxh64(buf, 8 * k, 0);
    free(buf);
    return h;
}

/* ------------------------------------------------------------------ storage and index */

static int nomem(char *err, size_t errcap) {
    return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
}

static uint64_t slot_of(uint64_t key, uint32_t idx) {
    return (key & SLOT_HI) | ((uint64_t)idx + 1);
}

static void index_put(bk_book_t *b, uint32_t idx) {
    uint64_t key = b->node[idx].key;
    uint64_t i = key & b->slot_mask;
    while (b->slot[i]) i = (i + 1) & b->slot_mask;
    b->slot[i] = slot_of(key, idx);
}

/* Rebuilds the index with room for `want` nodes at a load of at most one half. */
static int index_build(bk_book_t *b, uint32_t want) {
    uint64_t cap = 64;
    while (cap < 2 * (uint64_t)want) cap <<= 1;
    uint64_t *s = calloc(cap, sizeof *s);
    if (!s) return -1;
    free(b->slot);
    b->slot = s;
    b->slot_mask = cap - 1;
    for (uint32_t i = 0; i < b->nnodes; i++) index_put(b, i);
    return 0;
}

int32_t bk_find(const bk_book_t *b, uint64_t key, uint64_t check) {
    if (!b->slot) return -1;
    const uint64_t hi = key & SLOT_HI;
    for (uint64_t i = key & b->slot_mask;; i = (i + 1) & b->slot_mask) {
        uint64_t s = b->slot[i];
        if (!s) return -1;
        if ((s & SLOT_HI) == hi) {
            uint32_t k = (uint32_t)s - 1;
            if (b->node[k].key == key && b->node[k].check == check) return (int32_t)k;
        }
    }
}

int32_t bk_probe(const bk_book_t *b, const gk_pos_t *p) {
    if (!b->slot || p->game != b->rules.game || p->variant != b->rules.variant) return -1;
    const uint64_t key = p->hash, hi = key & SLOT_HI;
    uint64_t check = 0;
    bool have = false;
    for (uint64_t i = key & b->slot_mask;; i = (i + 1) & b->slot_mask) {
        uint64_t s = b->slot[i];
        if (!s) return -1;
        if ((s & SLOT_HI) != hi) continue;
        uint32_t k = (uint32_t)s - 1;
        if (b->node[k].key != key) continue;
        if (!have) check = bk_check(p), have = true;
        if (b->node[k].check == check) return (int32_t)k;
    }
}

/* Appends a node (no edges, no leaf) without looking for it first. */
static int node_append(bk_book_t *b, const bk_id_t *id, uint32_t *idx, char *err, size_t errcap) {
    if (b->nnodes >= BK_MAX_NODES)
        return gk_fail(err, errcap, GK_E_INVALID, "the book is full (%u nodes)", BK_MAX_NODES);
    if (b->nnodes == b->node_cap) {
        uint32_t cap = b->node_cap ? 2 * b->node_cap : 256;
        bk_node_t *n = realloc(b->node, (size_t)cap * sizeof *n);
        if (!n) return nomem(err, errcap);
        b->node = n;
        b->node_cap = cap;
    }
    bk_node_t *x = &b->node[b->nnodes];
    memset(x, 0, sizeof *x);
    x->key = id->key;
    x->check = id->check;
    x->turn = id->turn;
    x->in_turn = id->in_turn;
    x->stm = id->stm;
    x->value = NAN;
    *idx = b->nnodes++;
    if (2 * (uint64_t)b->nnodes > b->slot_mask + 1) {
        if (index_build(b, 2 * b->nnodes)) {
            b->nnodes--;
            return nomem(err, errcap);
        }
    } else {
        index_put(b, *idx);
    }
    return 0;
}

int bk_node_get(bk_book_t *b, const bk_id_t *id, uint32_t *idx, char *err, size_t errcap) {
    int32_t k = bk_find(b, id->key, id->check);
    if (k >= 0) {
        const bk_node_t *x = &b->node[k];
        GK_RETURN_IF(x->turn != id->turn || x->in_turn != id->in_turn || x->stm != id->stm, err,
                     errcap, GK_E_FORMAT,
                     "node %016" PRIx64 " is stored with another turn or side to move", id->key);
        *idx = (uint32_t)k;
        return 0;
    }
    return node_append(b, id, idx, err, errcap);
}

bk_edge_t *bk_edge_find(const bk_book_t *b, uint32_t n, gk_action_t a) {
    const bk_node_t *x = &b->node[n];
    int lo = 0, hi = x->nedges - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        bk_edge_t *e = &b->edge[x->first + (uint32_t)mid];
        if (e->action == a) return e;
        if (e->action < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static int pool_reserve(bk_book_t *b, uint64_t extra) {
    uint64_t need = (uint64_t)b->edge_used + extra;
    if (need > UINT32_MAX) return -1;
    if (need <= b->edge_cap) return 0;
    uint64_t cap = b->edge_cap ? b->edge_cap : 1024;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    bk_edge_t *e = realloc(b->edge, (size_t)cap * sizeof *e);
    if (!e) return -1;
    b->edge = e;
    b->edge_cap = (uint32_t)cap;
    return 0;
}

int bk_edge_add(bk_book_t *b, uint32_t n, gk_action_t a, uint8_t term, uint32_t child, char *err,
                size_t errcap) {
    bk_node_t *x = &b->node[n];
    GK_RETURN_IF(bk_edge_find(b, n, a), err, errcap, GK_E_ARG, "the book move exists already");
    GK_RETURN_IF(x->nedges >= GK_MAX_ACTIONS, err, errcap, GK_E_FORMAT,
                 "more than %d book moves at one node", GK_MAX_ACTIONS);
    if (x->nedges == x->ecap) {
        uint32_t cap = x->ecap ? 2u * x->ecap : 2u;
        if (cap > GK_MAX_ACTIONS) cap = GK_MAX_ACTIONS;
        if (x->first + x->ecap == b->edge_used && x->ecap) {
            if (pool_reserve(b, cap - x->ecap)) return nomem(err, errcap);
            b->edge_used += cap - x->ecap;
        } else {
            if (pool_reserve(b, cap)) return nomem(err, errcap);
            if (x->nedges)
                memcpy(&b->edge[b->edge_used], &b->edge[x->first], x->nedges * sizeof(bk_edge_t));
            x->first = b->edge_used;
            b->edge_used += cap;
        }
        x->ecap = (uint16_t)cap;
    }
    bk_edge_t *e = &b->edge[x->first];
    int i = x->nedges;
    while (i > 0 && e[i - 1].action > a) {
        e[i] = e[i - 1];
        i--;
    }
    memset(&e[i], 0, sizeof e[i]);
    e[i].action = a;
    e[i].term = term;
    e[i].child = term == BK_CHILD_NODE ? child : 0;
    e[i].value = NAN;
    x->nedges++;
    b->nedges++;
    return 0;
}

void bk_free(bk_book_t *b) {
    if (!b) return;
    free(b->node);
    free(b->edge);
    free(b->slot);
    free(b->prov);
    free(b->parent);
    free(b->order);
    memset(b, 0, sizeof *b);
}

int bk_init(bk_book_t *b, const gk_rules_t *r, char *err, size_t errcap) {
    memset(b, 0, sizeof *b);
    const gk_game_t *g = gk_game_by_id(r->game);
    GK_RETURN_IF(!g || r->variant >= 4 || !g->variants[r->variant], err, errcap, GK_E_INVALID,
                 "unknown game or rule set");
    b->rules = *r;
    if (!b->rules.turn_limit) b->rules.turn_limit = GK_DEFAULT_TURN_LIMIT;
    gk_pos_t p;
    g->setup(&p, &b->rules);
    bk_id_t id;
    bk_id_of(&p, &id);
    if (index_build(b, 64)) return nomem(err, errcap);
    int rc = node_append(b, &id, &b->root, err, errcap);
    if (rc) {
        bk_free(b);
        return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ building */

/* The result of a finished position p for `side`: BK_TERM_*. */
static uint8_t term_for(const gk_pos_t *p, int side) {
    int r = gk_result_for(p, side);
    return r > 0 ? BK_TERM_WIN : r < 0 ? BK_TERM_LOSS : BK_TERM_DRAW;
}

/* Plays legal action a at p into q, with the no-move rule applied, and says what it leads
 * to.  Returns -1 when a is not legal at p. */
static int step(const gk_pos_t *p, gk_action_t a, gk_pos_t *q, uint8_t *term) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(p, list), ok = 0;
    for (int i = 0; i < n && !ok; i++) ok = list[i] == a;
    if (!ok) return -1;
    *q = *p;
    gk_play(q, a);
    if (!gk_over(q) && gk_gen(q, list) == 0) gk_apply_no_move(q);
    *term = gk_over(q) ? term_for(q, p->stm) : BK_CHILD_NODE;
    if (*term == BK_CHILD_NODE &&
        !(q->turn > p->turn || (q->turn == p->turn && q->in_turn > p->in_turn)))
        return -1; /* the turn counter wrapped: no such position in a book */
    return 0;
}

int bk_add_game(bk_book_t *b, const gk_action_t *act, uint32_t n, int result, int max_turns,
                char *err, size_t errcap) {
    GK_RETURN_IF(result != GK_WIN_WHITE && result != GK_WIN_BLACK && result != GK_DRAW, err, errcap,
                 GK_E_INVALID, "the game has no result");
    const gk_game_t *g = gk_game_by_id(b->rules.game);
    gk_pos_t p, q;
    g->setup(&p, &b->rules);
    uint32_t cur = b->root;
    for (uint32_t i = 0; i < n; i++) {
        if (max_turns > 0 && p.turn >= max_turns) break;
        GK_RETURN_IF(gk_over(&p), err, errcap, GK_E_REPLAY, "action %u comes after the end", i + 1);
        uint8_t term;
        GK_RETURN_IF(step(&p, act[i], &q, &term), err, errcap, GK_E_REPLAY,
                     "action %u is not legal", i + 1);
        bk_edge_t *e = bk_edge_find(b, cur, act[i]);
        if (!e) {
            uint32_t child = 0;
            if (term == BK_CHILD_NODE) {
                bk_id_t id;
                bk_id_of(&q, &id);
                GK_FORWARD_IF(bk_node_get(b, &id, &child, err, errcap));
            }
            GK_FORWARD_IF(bk_edge_add(b, cur, act[i], term, child, err, errcap));
            e = bk_edge_find(b, cur, act[i]);
        }
        int r = result == GK_DRAW ? 0 : (result == GK_WIN_WHITE) == (p.stm == GK_WHITE) ? 1 : -1;
        uint32_t *c = r > 0 ? &e->w : r < 0 ? &e->l : &e->d;
        if (*c < UINT32_MAX) (*c)++;
        if (term != BK_CHILD_NODE) break;
        cur = e->child;
        p = q;
    }
    return 0;
}

static uint64_t games_of(const bk_edge_t *e) {
    return (uint64_t)e->w + e->d + e->l;
}

/* Keeps the nodes with keep[i] != 0 (every edge to a dropped node must be gone) and packs
 * the edge pool. */
static int compact(bk_book_t *b, const uint8_t *keep, char *err, size_t errcap) {
    uint32_t *map = malloc(((size_t)b->nnodes + 1) * sizeof *map);
    bk_node_t *nn = malloc(((size_t)b->nnodes + 1) * sizeof *nn);
    bk_edge_t *ne = malloc(((size_t)b->nedges + 1) * sizeof *ne);
    if (!map || !nn || !ne) {
        free(map);
        free(nn);
        free(ne);
        return nomem(err, errcap);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < b->nnodes; i++) map[i] = keep[i] ? k++ : UINT32_MAX;
    uint32_t eu = 0;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        if (!keep[i]) continue;
        bk_node_t x = b->node[i];
        const bk_edge_t *e = &b->edge[x.first];
        x.first = eu;
        x.ecap = x.nedges;
        for (int j = 0; j < x.nedges; j++) {
            ne[eu] = e[j];
            if (e[j].term == BK_CHILD_NODE) ne[eu].child = map[e[j].child];
            eu++;
        }
        nn[map[i]] = x;
    }
    b->root = map[b->root];
    free(map);
    free(b->node);
    free(b->edge);
    b->node = nn;
    b->node_cap = b->nnodes + 1;
    b->nnodes = k;
    b->edge = ne;
    b->edge_cap = (uint32_t)b->nedges + 1;
    b->edge_used = eu;
    b->nedges = eu;
    if (index_build(b, b->nnodes)) return nomem(err, errcap);
    return 0;
}

/* Marks the nodes reachable from the root in keep[]. */
static int reachable(const bk_book_t *b, uint8_t *keep) {
    uint32_t *stack = malloc(((size_t)b->nnodes + 1) * sizeof *stack);
    if (!stack) return -1;
    memset(keep, 0, b->nnodes);
    size_t sp = 0;
    stack[sp++] = b->root;
    keep[b->root] = 1;
    while (sp) {
        const bk_node_t *x = &b->node[stack[--sp]];
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (e->term != BK_CHILD_NODE || keep[e->child]) continue;
            keep[e->child] = 1;
            stack[sp++] = e->child;
        }
    }
    free(stack);
    return 0;
}

int bk_prune(bk_book_t *b, uint32_t min_games, char *err, size_t errcap) {
    for (uint32_t i = 0; i < b->nnodes && min_games > 1; i++) {
        bk_node_t *x = &b->node[i];
        bk_edge_t *e = &b->edge[x->first];
        int k = 0;
        for (int j = 0; j < x->nedges; j++) {
            uint64_t g = games_of(&e[j]);
            if (g > 0 && g < min_games) continue;
            e[k++] = e[j];
        }
        b->nedges -= (uint64_t)(x->nedges - k);
        x->nedges = (uint16_t)k;
    }
    uint8_t *keep = malloc((size_t)b->nnodes + 1);
    if (!keep || reachable(b, keep)) {
        free(keep);
        return nomem(err, errcap);
    }
    int rc = compact(b, keep, err, errcap);
    free(keep);
    return rc;
}

int bk_merge(bk_book_t *dst, const bk_book_t *src, char *err, size_t errcap) {
    GK_RETURN_IF(dst->rules.game != src->rules.game || dst->rules.variant != src->rules.variant,
                 err, errcap, GK_E_MISMATCH, "the books are for different games or rule sets");
    uint32_t *map = malloc(((size_t)src->nnodes + 1) * sizeof *map);
    if (!map) return nomem(err, errcap);
    int rc = 0;
    for (uint32_t i = 0; i < src->nnodes && !rc; i++) {
        const bk_node_t *x = &src->node[i];
        bk_id_t id = {x->key, x->check, x->turn, x->in_turn, x->stm};
        rc = bk_node_get(dst, &id, &map[i], err, errcap);
    }
    for (uint32_t i = 0; i < src->nnodes && !rc; i++) {
        const bk_node_t *x = &src->node[i];
        uint32_t d = map[i];
        for (int j = 0; j < x->nedges && !rc; j++) {
            const bk_edge_t *se = &src->edge[x->first + (uint32_t)j];
            uint32_t child = se->term == BK_CHILD_NODE ? map[se->child] : 0;
            bk_edge_t *de = bk_edge_find(dst, d, se->action);
            if (!de) {
                rc = bk_edge_add(dst, d, se->action, se->term, child, err, errcap);
                if (rc) break;
                de = bk_edge_find(dst, d, se->action);
            } else if (de->term != se->term || (se->term == BK_CHILD_NODE && de->child != child)) {
                rc = gk_fail(err, errcap, GK_E_MISMATCH,
                             "the books disagree on where a move of node %016" PRIx64 " leads",
                             x->key);
                break;
            }
            uint64_t w = (uint64_t)de->w + se->w, dd = (uint64_t)de->d + se->d,
                     l = (uint64_t)de->l + se->l;
            de->w = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
            de->d = dd > UINT32_MAX ? UINT32_MAX : (uint32_t)dd;
            de->l = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
            if (!de->prior) de->prior = se->prior;
        }
        bk_leaf_t *dl = &dst->node[d].leaf;
        const bk_leaf_t *sl = &x->leaf;
        if (dl->kind == BK_LEAF_FULL) continue;
        if (sl->kind == BK_LEAF_FULL ||
            (sl->kind == BK_LEAF_VALUE && (dl->kind == BK_LEAF_NONE || sl->budget > dl->budget)))
            *dl = *sl;
    }
    free(map);
    return rc;
}

/* ------------------------------------------------------------------ derived data */

static float edge_value(const bk_book_t *b, const bk_node_t *x, const bk_edge_t *e) {
    switch (e->term) {
    case BK_TERM_WIN: return 1.0f;
    case BK_TERM_DRAW: return 0.0f;
    case BK_TERM_LOSS: return -1.0f;
    default: break;
    }
    const bk_node_t *c = &b->node[e->child];
    if (!isnan(c->value)) return c->stm == x->stm ? c->value : -c->value;
    uint64_t g = games_of(e);
    if (g) return (float)(((double)e->w - (double)e->l) / (double)g);
    return NAN;
}

int bk_update(bk_book_t *b, char *err, size_t errcap) {
    uint32_t n = b->nnodes;
    uint32_t *parent = realloc(b->parent, ((size_t)n + 1) * sizeof *parent);
    if (parent) b->parent = parent;
    uint32_t *order = realloc(b->order, ((size_t)n + 1) * sizeof *order);
    if (order) b->order = order;
    if (!parent || !order) return nomem(err, errcap);
    /* Counting sort by level = turn * 64 + in_turn: every edge goes to a higher level. */
    uint32_t maxlev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lv = bk_level(&b->node[i]);
        if (lv > maxlev) maxlev = lv;
    }
    uint32_t *cnt = calloc((size_t)maxlev + 2, sizeof *cnt);
    if (!cnt) return nomem(err, errcap);
    for (uint32_t i = 0; i < n; i++) cnt[bk_level(&b->node[i]) + 1]++;
    for (uint32_t l = 0; l <= maxlev; l++) cnt[l + 1] += cnt[l];
    for (uint32_t i = 0; i < n; i++) order[cnt[bk_level(&b->node[i])]++] = i;
    free(cnt);
    /* Values bottom-up; a leaf whose action became a book move is out of date. */
    for (uint32_t k = n; k-- > 0;) {
        bk_node_t *x = &b->node[order[k]];
        if (x->leaf.kind == BK_LEAF_VALUE && bk_edge_find(b, order[k], x->leaf.move))
            memset(&x->leaf, 0, sizeof x->leaf);
        float best = x->leaf.kind == BK_LEAF_VALUE ? x->leaf.value : NAN;
        uint32_t below = 0;
        for (int j = 0; j < x->nedges; j++) {
            bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            e->value = edge_value(b, x, e);
            if (!isnan(e->value) && (isnan(best) || e->value > best)) best = e->value;
            if (e->term == BK_CHILD_NODE && b->node[e->child].below + 1u > below)
                below = b->node[e->child].below + 1u;
        }
        x->value = best;
        x->below = (uint16_t)(below > UINT16_MAX ? UINT16_MAX : below);
    }
    /* One parent per node, top-down. */
    for (uint32_t i = 0; i < n; i++) parent[i] = UINT32_MAX;
    parent[b->root] = b->root;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        if (parent[i] == UINT32_MAX) continue;
        const bk_node_t *x = &b->node[i];
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (e->term == BK_CHILD_NODE && parent[e->child] == UINT32_MAX) parent[e->child] = i;
        }
    }
    return 0;
}

/* The action of the edge from node p to node c, or GK_NO_ACTION. */
static gk_action_t edge_to(const bk_book_t *b, uint32_t p, uint32_t c) {
    const bk_node_t *x = &b->node[p];
    for (int j = 0; j < x->nedges; j++) {
        const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
        if (e->term == BK_CHILD_NODE && e->child == c) return e->action;
    }
    return GK_NO_ACTION;
}

static void start_position(const bk_book_t *b, gk_pos_t *p) {
    gk_game_by_id(b->rules.game)->setup(p, &b->rules);
}

/* True when q is the position of node c. */
static bool is_node(const bk_book_t *b, uint32_t c, const gk_pos_t *q) {
    const bk_node_t *x = &b->node[c];
    return q->hash == x->key && bk_check(q) == x->check;
}

int bk_position(const bk_book_t *b, uint32_t n, gk_pos_t *p, char *err, size_t errcap) {
    GK_RETURN_IF(!b->parent || n >= b->nnodes, err, errcap, GK_E_ARG, "no such node");
    size_t len = 0, cap = 64;
    uint32_t *path = malloc(cap * sizeof *path);
    if (!path) return nomem(err, errcap);
    for (uint32_t c = n; c != b->root; c = b->parent[c]) {
        if (b->parent[c] == UINT32_MAX || len > b->nnodes) {
            free(path);
            return gk_fail(err, errcap, GK_E_FORMAT, "node %u is not reachable", n);
        }
        if (len == cap) {
            uint32_t *np = realloc(path, 2 * cap * sizeof *np);
            if (!np) {
                free(path);
                return nomem(err, errcap);
            }
            path = np;
            cap *= 2;
        }
        path[len++] = c;
    }
    start_position(b, p);
    uint32_t cur = b->root;
    for (size_t k = len; k-- > 0;) {
        gk_pos_t q;
        uint8_t term;
        gk_action_t a = edge_to(b, cur, path[k]);
        if (step(p, a, &q, &term) || term != BK_CHILD_NODE || !is_node(b, path[k], &q)) {
            free(path);
            return gk_fail(err, errcap, GK_E_FORMAT,
                           "the book is inconsistent: a move below node %016" PRIx64
                           " is not legal or does not lead to its child",
                           b->node[cur].key);
        }
        *p = q;
        cur = path[k];
    }
    free(path);
    return 0;
}

/* ------------------------------------------------------------------ provenance */

int bk_prov_set(bk_book_t *b, const char *name, const char *fmt, ...) {
    char val[1024];
    va_list ap;
    va_start(ap, fmt);
    int vn = vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    if (vn < 0) return GK_E_INVALID;
    if ((size_t)vn >= sizeof val) vn = sizeof val - 1;
    for (int i = 0; i < vn; i++)
        if ((unsigned char)val[i] < 0x20) val[i] = ' ';
    size_t nl = strlen(name);
    /* The old line, replaced in place (so the order of the lines never changes). */
    size_t at = b->prov_len, old = 0;
    for (size_t s = 0; b->prov && s < b->prov_len;) {
        const char *e = memchr(b->prov + s, '\n', b->prov_len - s);
        size_t ll = e ? (size_t)(e - (b->prov + s)) + 1 : b->prov_len - s;
        if (ll > nl && !strncmp(b->prov + s, name, nl) && b->prov[s + nl] == ' ') {
            at = s;
            old = ll;
            break;
        }
        s += ll;
    }
    size_t add = nl + 1 + (size_t)vn + 1;
    size_t len = b->prov_len - old + add;
    if (len > BK_PROV_MAX) return GK_E_INVALID;
    char *np = malloc(len + 1);
    if (!np) return GK_E_NOMEM;
    if (at) memcpy(np, b->prov, at);
    snprintf(np + at, add + 1, "%s %s\n", name, val);
    if (b->prov_len > at + old) memcpy(np + at + add, b->prov + at + old, b->prov_len - at - old);
    np[len] = 0;
    free(b->prov);
    b->prov = np;
    b->prov_len = len;
    return 0;
}

const char *bk_prov_get(const bk_book_t *b, const char *name, char *buf, size_t cap) {
    if (!b->prov || !cap) return NULL;
    size_t nl = strlen(name);
    for (const char *s = b->prov; *s;) {
        const char *e = strchr(s, '\n');
        size_t ll = e ? (size_t)(e - s) : strlen(s);
        if (ll > nl && !strncmp(s, name, nl) && s[nl] == ' ') {
            size_t vl = ll - nl - 1;
            if (vl >= cap) vl = cap - 1;
            memcpy(buf, s + nl + 1, vl);
            buf[vl] = 0;
            return buf;
        }
        s += ll + (e ? 1 : 0);
    }
    return NULL;
}

size_t bk_memory(const bk_book_t *b) {
    return (size_t)b->node_cap * sizeof(bk_node_t) + (size_t)b->edge_cap * sizeof(bk_edge_t) +
           (b->slot ? (size_t)(b->slot_mask + 1) * sizeof(uint64_t) : 0) +
           (b->parent ? (size_t)b->nnodes * 8 : 0) + b->prov_len;
}
