/*
 * tests/test_book.c -- opening books (data/book.h) and the search without the book moves
 * (mcts_search_excluding).
 *
 * Checks: counts of a few hand-written Gounki games against counts worked out by hand;
 * two move orders to one position make one node (and the counts of both meet there);
 * negamax back-up and the expansion priority on a hand-made graph (a Gobs-like edge that
 * keeps the side to move, game-ending moves, a value from counts only); a forced Zobrist
 * collision never returns the other position's moves; the file round trip (byte for byte)
 * and every bad file (wrong game, truncated, damaged, another key table, newer version,
 * bad magic, trailing bytes, structural lies behind a valid checksum); the journal (torn
 * tails, damage, lineage, replay onto the right book only); probing (best move, window,
 * leaf better, few games); walks; opening lines with deviation windows; merging.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "data/book.h"
#include "data/xxh64.h"
#include "eval/eval.h"
#include "games/game.h"
#include "search/mcts.h"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define CHECK_OK(rc, err)                                                                          \
    do {                                                                                           \
        int rc_ = (rc);                                                                            \
        if (rc_ < 0) {                                                                             \
            fprintf(stderr, "%s:%d: %s -> %d: %s\n", __FILE__, __LINE__, #rc, rc_, err);           \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const gk_rules_t GOUNKI = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};

/* The actions of a line of complete moves from the start; returns their number. */
static int line(const gk_rules_t *r, const char *text, gk_action_t *out, gk_pos_t *end) {
    const gk_game_t *g = gk_game_by_id(r->game);
    gk_pos_t p;
    g->setup(&p, r);
    char buf[1024], err[256];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        gk_action_t seq[GK_MAX_TURN];
        int k = g->parse_move(&p, t, seq, GK_MAX_TURN, err, sizeof err);
        if (k <= 0) {
            fprintf(stderr, "bad move '%s' in '%s': %s\n", t, text, err);
            failures++;
            return n;
        }
        for (int i = 0; i < k; i++) {
            out[n++] = seq[i];
            gk_play(&p, seq[i]);
        }
    }
    if (end) *end = p;
    return n;
}

/* The node reached by a line, or -1. */
static int32_t node_at(const bk_book_t *b, const char *text) {
    gk_action_t a[256];
    gk_pos_t p;
    line(&b->rules, text, a, &p);
    return bk_probe(b, &p);
}

static const bk_edge_t *edge_at(const bk_book_t *b, const char *text, const char *move) {
    int32_t k = node_at(b, text);
    if (k < 0) return NULL;
    gk_action_t a[256];
    gk_pos_t p;
    line(&b->rules, text, a, &p);
    gk_action_t seq[GK_MAX_TURN];
    char err[256];
    if (gk_game_of(&p)->parse_move(&p, move, seq, GK_MAX_TURN, err, sizeof err) != 1) return NULL;
    return bk_edge_find(b, (uint32_t)k, seq[0]);
}

static bool wdl(const bk_edge_t *e, uint32_t w, uint32_t d, uint32_t l) {
    return e && e->w == w && e->d == d && e->l == l;
}

static void add(bk_book_t *b, const char *text, int result, int max_turns) {
    gk_action_t a[256];
    char err[256];
    int n = line(&b->rules, text, a, NULL);
    CHECK_OK(bk_add_game(b, a, (uint32_t)n, result, max_turns, err, sizeof err), err);
}

/* Games A, B, C (hand-counted below). */
static void hand_book(bk_book_t *b) {
    char err[256];
    CHECK_OK(bk_init(b, &GOUNKI, err, sizeof err), err);
    add(b, "b2-b3 g7-g6 d2-d3 a7-a6", GK_WIN_WHITE, 0); /* A */
    add(b, "b2-b3 g7-g6 d2-d3 c7-c6", GK_WIN_BLACK, 0); /* B */
    add(b, "d2-d3 g7-g6 b2-b3 a7-a6", GK_DRAW, 0);      /* C: transposes into A after 3 */
    add(b, "b2-b3 a7-a6", GK_WIN_WHITE, 0);             /* D */
    CHECK_OK(bk_update(b, err, sizeof err), err);
}

static void test_counts(void) {
    bk_book_t b;
    hand_book(&b);
    /* Positions: start; b3; d3; b3 g6; d3 g6; b3 g6 d3 (= d3 g6 b3); ...a6; ...c6; b3 a6. */
    CHECK(b.nnodes == 9);
    CHECK(b.nedges == 9);
    /* At the start White played b2-b3 in A, B, D (won A and D, lost B), d2-d3 in C. */
    CHECK(wdl(edge_at(&b, "", "b2-b3"), 2, 0, 1));
    CHECK(wdl(edge_at(&b, "", "d2-d3"), 0, 1, 0));
    /* After b2-b3 Black played g7-g6 in A (lost) and B (won), a7-a6 in D (lost). */
    CHECK(wdl(edge_at(&b, "b2-b3", "g7-g6"), 1, 0, 1));
    CHECK(wdl(edge_at(&b, "b2-b3", "a7-a6"), 0, 0, 1));
    /* Two move orders, one node: a7-a6 there was played by A (Black lost) and C (draw). */
    CHECK(node_at(&b, "b2-b3 g7-g6 d2-d3") >= 0);
    CHECK(node_at(&b, "b2-b3 g7-g6 d2-d3") == node_at(&b, "d2-d3 g7-g6 b2-b3"));
    CHECK(wdl(edge_at(&b, "b2-b3 g7-g6 d2-d3", "a7-a6"), 0, 1, 1));
    CHECK(wdl(edge_at(&b, "d2-d3 g7-g6 b2-b3", "c7-c6"), 1, 0, 0));
    CHECK(wdl(edge_at(&b, "d2-d3 g7-g6", "b2-b3"), 0, 1, 0));
    /* Values from counts alone (no searches): W - L over games for the mover, backed up. */
    const bk_edge_t *e = edge_at(&b, "b2-b3 g7-g6 d2-d3", "a7-a6");
    CHECK(e && fabsf(e->value - (-0.5f)) < 1e-6f);
    /* b3 g6 d3: Black's best is c7-c6 (+1): so d2-d3 there is -1 for White, and so on. */
    int32_t k = node_at(&b, "b2-b3 g7-g6 d2-d3");
    CHECK(k >= 0 && fabsf(b.node[k].value - 1.0f) < 1e-6f);
    CHECK(b.node[b.root].below == 4);
    /* --max-turns: only the first two turns are counted. */
    bk_book_t t;
    char err[256];
    CHECK_OK(bk_init(&t, &GOUNKI, err, sizeof err), err);
    add(&t, "b2-b3 g7-g6 d2-d3 a7-a6", GK_WIN_WHITE, 2);
    CHECK(t.nnodes == 3 && t.nedges == 2);
    /* An illegal game is refused with its action named. */
    gk_action_t bad[2];
    line(&GOUNKI, "b2-b3", bad, NULL);
    bad[1] = bad[0];
    CHECK(bk_add_game(&t, bad, 2, GK_DRAW, 0, err, sizeof err) == GK_E_REPLAY);
    CHECK(strstr(err, "action 2") != NULL);
    bk_free(&t);
    /* --min-games 2 keeps b2-b3 (3 games), g7-g6 (2), d2-d3 (2) and a7-a6 after them (A and
     * C, which met by transposition), and drops the rest. */
    CHECK_OK(bk_prune(&b, 2, err, sizeof err), err);
    CHECK(b.nnodes == 5 && b.nedges == 4);
    CHECK(node_at(&b, "b2-b3 g7-g6 d2-d3 a7-a6") >= 0 && node_at(&b, "d2-d3") < 0);
    CHECK(node_at(&b, "b2-b3 a7-a6") < 0);
    bk_free(&b);
}

/* A node with a made-up identity at (turn, in_turn, stm). */
static uint32_t fake(bk_book_t *b, uint64_t key, int turn, int in_turn, int stm) {
    bk_id_t id = {key, key * 31 + 7, (uint16_t)turn, (uint8_t)in_turn, (uint8_t)stm};
    uint32_t k = 0;
    char err[256];
    CHECK_OK(bk_node_get(b, &id, &k, err, sizeof err), err);
    return k;
}

static void leaf(bk_book_t *b, uint32_t n, float v, gk_action_t mv) {
    b->node[n].leaf = (bk_leaf_t){.kind = BK_LEAF_VALUE, .move = mv, .value = v, .budget = 100};
}

static void edge(bk_book_t *b, uint32_t from, gk_action_t a, uint8_t term, uint32_t to) {
    char err[256];
    CHECK_OK(bk_edge_add(b, from, a, term, to, err, sizeof err), err);
}

static void test_negamax(void) {
    bk_book_t b;
    char err[256];
    CHECK_OK(bk_init(&b, &GOUNKI, err, sizeof err), err);
    uint32_t R = b.root;
    uint32_t A = fake(&b, 101, 1, 0, GK_BLACK), B = fake(&b, 102, 1, 0, GK_BLACK);
    uint32_t C = fake(&b, 103, 2, 0, GK_WHITE), D = fake(&b, 104, 0, 1, GK_WHITE);
    uint32_t E = fake(&b, 105, 1, 0, GK_BLACK);
    leaf(&b, R, 0.1f, 90);
    leaf(&b, A, -0.3f, 91);
    leaf(&b, C, 0.5f, 92);
    leaf(&b, D, -0.2f, 93);
    edge(&b, R, 1, BK_CHILD_NODE, A);
    edge(&b, R, 2, BK_CHILD_NODE, B);
    edge(&b, A, 3, BK_CHILD_NODE, C);
    edge(&b, B, 4, BK_TERM_WIN, 0);
    edge(&b, R, 5, BK_CHILD_NODE, E);
    bk_edge_find(&b, R, 5)->w = 3;
    bk_edge_find(&b, R, 5)->l = 1;
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    /* C +0.5 for White -> A's move 3 is -0.5 for Black, below A's leaf -0.3: A = -0.3. */
    CHECK(fabsf(bk_edge_find(&b, A, 3)->value + 0.5f) < 1e-6f);
    CHECK(fabsf(b.node[A].value + 0.3f) < 1e-6f);
    /* B wins at once for Black: B = +1, so move 2 is -1 for White.  E: (3 - 1) / 4. */
    CHECK(b.node[B].value == 1.0f && bk_edge_find(&b, R, 2)->value == -1.0f);
    CHECK(fabsf(bk_edge_find(&b, R, 5)->value - 0.5f) < 1e-6f);
    /* The root: max(leaf 0.1, +0.3 via A, -1 via B, 0.5 via E) = 0.5; 2 moves below. */
    CHECK(fabsf(b.node[R].value - 0.5f) < 1e-6f);
    CHECK(b.node[R].below == 2 && b.node[A].below == 1 && b.node[C].below == 0);
    /* A move that keeps White to move (a Gobs jump leg): its value is not negated. */
    edge(&b, R, 6, BK_CHILD_NODE, D);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    CHECK(fabsf(bk_edge_find(&b, R, 6)->value + 0.2f) < 1e-6f);
    leaf(&b, D, 0.8f, 93);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    CHECK(fabsf(b.node[R].value - 0.8f) < 1e-6f);
    /* A leaf whose move has become a book move is dropped by the back-up. */
    leaf(&b, E, 0.0f, 7);
    edge(&b, E, 7, BK_TERM_DRAW, 0);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    CHECK(b.node[E].leaf.kind == BK_LEAF_NONE && b.node[E].value == 0.0f);

    /* Priorities with alpha 1 (R is 0.8 via D; E is now 0 by its drawing move):
     * R's leaf 0.1: 0 + (0.8 - 0.1) + 1 = 1.7; D at 0 + 0 + 1, its leaf 1 + 0 + 1 = 2;
     * A at 0 + (0.8 - 0.3) + 1 = 1.5, its leaf 1.5 + 0 + 1 = 2.5;
     * C at 1.5 + (-0.3 - -0.5) + 1 = 2.7, its leaf 3.7.  B and E have no leaf. */
    bk_select_opts_t so = {.alpha = 1.0};
    bk_target_t t[8];
    int nt = bk_select(&b, &so, t, 8);
    CHECK(nt == 4);
    CHECK(nt == 4 && t[0].node == R && t[1].node == D && t[2].node == A && t[3].node == C);
    CHECK(nt == 4 && fabs(t[0].priority - 1.7) < 1e-6 && fabs(t[1].priority - 2.0) < 1e-6 &&
          fabs(t[2].priority - 2.5) < 1e-6 && fabs(t[3].priority - 3.7) < 1e-6);
    /* Fewer wanted: the most urgent. */
    CHECK(bk_select(&b, &so, t, 1) == 1 && t[0].node == R);
    /* alpha 0: breadth first (A and D at 2, tied, by key; C, two moves down, last); width 2:
     * R (4 moves) offers no leaf; unless its leaf beats every book move. */
    so = (bk_select_opts_t){.alpha = 0.0, .width = 2};
    nt = bk_select(&b, &so, t, 8);
    CHECK(nt == 3 && t[0].node == A && t[1].node == D && t[2].node == C);
    for (int i = 0; i < nt; i++) CHECK(t[i].node != R);
    leaf(&b, R, 0.9f, 90);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    nt = bk_select(&b, &so, t, 8);
    CHECK(nt == 4 && t[0].node == R);
    leaf(&b, R, 0.1f, 90);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    /* Unsearched nodes (B, E) by turn then identity. */
    uint32_t un[8];
    CHECK(bk_unsearched(&b, un, 8) == 2);
    bk_free(&b);
}

static void test_collision(void) {
    bk_book_t b;
    hand_book(&b);
    gk_action_t a[64];
    gk_pos_t in, out;
    line(&GOUNKI, "b2-b3 g7-g6", a, &in);
    line(&GOUNKI, "h2-h3 g7-g6", a, &out);
    CHECK(bk_probe(&b, &in) >= 0 && bk_probe(&b, &out) < 0);
    /* A position forced onto the key of a book position: never that node. */
    gk_pos_t forged = out;
    forged.hash = in.hash;
    CHECK(bk_probe(&b, &forged) < 0);
    bk_choice_t ch;
    uint64_t rng = 1;
    CHECK(bk_choose(&b, &forged, NULL, &rng, &ch) == 0 && ch.out == BK_OUT_MISSING);
    /* Two nodes sharing one key: each found by its check. */
    uint32_t k = 0;
    bk_id_t id;
    bk_id_of(&out, &id);
    id.key = in.hash;
    char err[256];
    CHECK_OK(bk_node_get(&b, &id, &k, err, sizeof err), err);
    CHECK(bk_find(&b, in.hash, bk_check(&in)) == bk_probe(&b, &in));
    CHECK(bk_find(&b, in.hash, bk_check(&out)) == (int32_t)k);
    CHECK(bk_probe(&b, &in) != (int32_t)k && bk_probe(&b, &forged) == (int32_t)k);
    bk_free(&b);
}

/* Re-seals a file image's trailing checksum (so that damage reaches the decoder). */
static void reseal(uint8_t *p, size_t n) {
    uint64_t h = gk_xxh64(p, n - 8, 0);
    for (int i = 0; i < 8; i++) p[n - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
}

static void test_file(void) {
    bk_book_t b, c;
    char err[512];
    hand_book(&b);
    bk_prov_set(&b, "note", "hand-made %d", 4);
    bk_prov_set(&b, "other", "x");
    bk_prov_set(&b, "note", "replaced");
    char pv[64];
    CHECK(bk_prov_get(&b, "note", pv, sizeof pv) && !strcmp(pv, "replaced"));
    CHECK(!strncmp(b.prov, "note replaced\nother x\n", b.prov_len));
    b.node[b.root].leaf = (bk_leaf_t){BK_LEAF_VALUE, 0, 1234, 0, 0.25f, 800};
    /* leaf.move must be legal-looking and not a book move: take h2-h3. */
    gk_action_t a[4];
    line(&GOUNKI, "h2-h3", a, NULL);
    b.node[b.root].leaf.move = a[0];
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    gl_buf_t img = {0}, img2 = {0};
    CHECK_OK(bk_encode(&b, 9, &img, err, sizeof err), err);
    CHECK_OK(bk_decode(img.p, img.n, "t.book", &GOUNKI, &c, err, sizeof err), err);
    CHECK(c.nnodes == b.nnodes && c.nedges == b.nedges && c.prov_len == b.prov_len);
    CHECK(c.node[c.root].leaf.value == 0.25f && c.node[c.root].leaf.budget == 800 &&
          c.node[c.root].leaf.prior == 1234);
    CHECK(wdl(edge_at(&c, "b2-b3 g7-g6 d2-d3", "a7-a6"), 0, 1, 1));
    CHECK(c.node[c.root].value == b.node[b.root].value);
    CHECK_OK(bk_encode(&c, 9, &img2, err, sizeof err), err);
    CHECK(img.n == img2.n && !memcmp(img.p, img2.p, img.n));
    bk_free(&c);

    /* Bad files: each a one-line reason and the right code. */
    gk_rules_t gobs = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    CHECK(bk_decode(img.p, img.n, "t.book", &gobs, &c, err, sizeof err) == GK_E_MISMATCH);
    CHECK(strstr(err, "a book for gounki (standard), not gobs (standard)") != NULL);
    CHECK(bk_decode(img.p, img.n - 1, "t.book", NULL, &c, err, sizeof err) == GK_E_FORMAT);
    CHECK(strstr(err, "truncated") != NULL);
    CHECK(bk_decode(img.p, 20, "t.book", NULL, &c, err, sizeof err) == GK_E_FORMAT);
    uint8_t *d = malloc(img.n + 16);
    memcpy(d, img.p, img.n);
    d[img.n] = 0;
    CHECK(bk_decode(d, img.n + 1, "t.book", NULL, &c, err, sizeof err) == GK_E_FORMAT);
    CHECK(strstr(err, "after the end") != NULL);
    for (size_t at = BK_HEADER_BYTES; at < img.n - 8; at += 7) {
        memcpy(d, img.p, img.n);
        d[at] ^= 0x20;
        CHECK(bk_decode(d, img.n, "t.book", NULL, &c, err, sizeof err) == GK_E_CHECKSUM);
    }
    CHECK(strstr(err, "checksum mismatch") != NULL);
    memcpy(d, img.p, img.n);
    d[16] ^= 1; /* the key-table checksum */
    reseal(d, img.n);
    CHECK(bk_decode(d, img.n, "t.book", NULL, &c, err, sizeof err) == GK_E_VERSION);
    CHECK(strstr(err, "another Zobrist key table") != NULL);
    memcpy(d, img.p, img.n);
    d[8] = BK_VERSION + 1;
    reseal(d, img.n);
    CHECK(bk_decode(d, img.n, "t.book", NULL, &c, err, sizeof err) == GK_E_VERSION);
    memcpy(d, img.p, img.n);
    d[0] = 'X';
    CHECK(bk_decode(d, img.n, "t.book", NULL, &c, err, sizeof err) == GK_E_FORMAT);
    CHECK(strstr(err, "not an opening book") != NULL);
    memcpy(d, img.p, img.n);
    d[24] += 1; /* one node more than the payload holds */
    reseal(d, img.n);
    CHECK(bk_decode(d, img.n, "t.book", NULL, &c, err, sizeof err) < 0);
    /* Lies behind valid checksums: an uncompressed copy, then damage and reseal. */
    bk_book_t u;
    int lies = 0, caught = 0;
    CHECK_OK(bk_decode(img.p, img.n, "t.book", NULL, &u, err, sizeof err), err);
    gl_buf_t raw = {0};
    CHECK_OK(bk_encode(&u, -1, &raw, err, sizeof err), err); /* stored uncompressed */
    bk_free(&u);
    for (size_t at = BK_HEADER_BYTES; at + 8 < raw.n; at++) {
        uint8_t *e = malloc(raw.n);
        memcpy(e, raw.p, raw.n);
        e[at] ^= 0x5A;
        reseal(e, raw.n);
        bk_book_t z;
        lies++;
        if (bk_decode(e, raw.n, "t.book", NULL, &z, err, sizeof err) < 0)
            caught++;
        else
            bk_free(&z);
        free(e);
    }
    CHECK(lies > 0 && caught > 0);
    gl_buf_free(&raw);
    free(d);
    gl_buf_free(&img);
    gl_buf_free(&img2);
    bk_free(&b);
}

static void test_journal(void) {
    bk_book_t b;
    char err[512];
    CHECK_OK(bk_init(&b, &GOUNKI, err, sizeof err), err);
    CHECK_OK(bk_new_lineage(&b, err, sizeof err), err);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    gk_action_t a[4];
    gk_pos_t p;
    line(&GOUNKI, "b2-b3", a, &p);
    const bk_node_t *r = &b.node[b.root];
    bk_id_t rid = {r->key, r->check, r->turn, r->in_turn, r->stm}, cid;
    bk_id_of(&p, &cid);
    gk_action_t other[4];
    line(&GOUNKI, "d2-d3", other, NULL);
    line(&GOUNKI, "b2-b3 g7-g6", a, NULL);
    bk_jentry_t e1 = {
        .kind = BK_J_EVAL, .node = rid, .leaf = {BK_LEAF_VALUE, 0, 100, a[0], 0.1f, 50}};
    bk_jentry_t e2 = {.kind = BK_J_EXPAND,
                      .node = rid,
                      .move = a[0],
                      .move_prior = 100,
                      .term = BK_CHILD_NODE,
                      .child = cid,
                      .has_child_leaf = 1,
                      .leaf = {BK_LEAF_VALUE, 0, 200, other[0], 0.05f, 50},
                      .child_leaf = {BK_LEAF_VALUE, 0, 300, a[1], -0.2f, 50}};
    bk_batch_t bt1 = {1, 1, &e1}, bt2 = {2, 1, &e2};
    gl_buf_t j = {0};
    CHECK_OK(bk_journal_header(&b, &j, err, sizeof err), err);
    size_t h = j.n;
    CHECK_OK(bk_batch_encode(&bt1, &j, err, sizeof err), err);
    size_t r1 = j.n;
    CHECK_OK(bk_batch_encode(&bt2, &j, err, sizeof err), err);
    bk_journal_t jj;
    CHECK_OK(bk_journal_parse(j.p, j.n, "t.journal", &jj, err, sizeof err), err);
    CHECK(jj.nrec == 2 && !jj.torn && jj.valid_end == j.n);
    bk_journal_free(&jj);
    /* Every cut of the last record is a torn tail; the first record survives. */
    for (size_t cut = r1 + 1; cut < j.n; cut++) {
        CHECK_OK(bk_journal_parse(j.p, cut, "t.journal", &jj, err, sizeof err), err);
        CHECK(jj.nrec == 1 && jj.torn && jj.valid_end == r1);
        bk_journal_free(&jj);
    }
    /* A damaged byte in the first record (not at the tail) is an error; zeros are torn. */
    uint8_t *d = malloc(j.n + 100);
    memcpy(d, j.p, j.n);
    d[h + 12] ^= 1;
    CHECK(bk_journal_parse(d, j.n, "t.journal", &jj, err, sizeof err) == GK_E_CHECKSUM);
    memcpy(d, j.p, j.n);
    memset(d + j.n, 0, 100);
    CHECK_OK(bk_journal_parse(d, j.n + 100, "t.journal", &jj, err, sizeof err), err);
    CHECK(jj.nrec == 2 && jj.torn);
    bk_journal_free(&jj);
    /* A last record cut short and then zeros (killed twice: once while appending, then
     * after the system extended the file): torn, the first record survives. */
    memcpy(d, j.p, j.n - 7);
    memset(d + j.n - 7, 0, 107);
    CHECK_OK(bk_journal_parse(d, j.n + 100, "t.journal", &jj, err, sizeof err), err);
    CHECK(jj.nrec == 1 && jj.torn && jj.valid_end == r1);
    bk_journal_free(&jj);
    /* ... but a damaged record with a sound one after it is damage. */
    memcpy(d, j.p, j.n);
    d[r1 - 3] ^= 1;
    CHECK(bk_journal_parse(d, j.n, "t.journal", &jj, err, sizeof err) == GK_E_CHECKSUM);
    memcpy(d, j.p, j.n);
    memset(d + j.n, 0, 100);
    CHECK_OK(bk_journal_parse(d, j.n + 100, "t.journal", &jj, err, sizeof err), err);
    /* Replay: both batches, the book changes as the records say. */
    uint32_t applied = 0;
    bk_book_t c;
    gl_buf_t img = {0};
    CHECK_OK(bk_encode(&b, 1, &img, err, sizeof err), err);
    CHECK_OK(bk_decode(img.p, img.n, "t", NULL, &c, err, sizeof err), err);
    CHECK_OK(bk_journal_replay(&b, &jj, &applied, err, sizeof err), err);
    CHECK(applied == 2 && b.batches == 2 && b.nnodes == 2 && b.nedges == 1);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    CHECK(b.node[b.root].leaf.move == other[0]);
    CHECK(fabsf(b.node[b.root].value - 0.2f) < 1e-6f);
    /* Replayed again onto the updated book: nothing to do (both already in). */
    CHECK_OK(bk_journal_replay(&b, &jj, &applied, err, sizeof err), err);
    CHECK(applied == 0);
    /* Onto another book (other lineage): refused. */
    c.lineage ^= 1;
    CHECK(bk_journal_replay(&c, &jj, &applied, err, sizeof err) == GK_E_MISMATCH);
    /* A batch that does not fit (its move is already a book move): refused. */
    bt2.number = 3;
    CHECK(bk_batch_apply(&b, &bt2, 0, err, sizeof err) == GK_E_MISMATCH);
    bk_journal_free(&jj);
    free(d);
    gl_buf_free(&j);
    gl_buf_free(&img);
    bk_free(&b);
    bk_free(&c);
}

static void test_probe_walk_lines(void) {
    bk_book_t b;
    char err[256];
    CHECK_OK(bk_init(&b, &GOUNKI, err, sizeof err), err);
    add(&b, "b2-b3 g7-g6 d2-d3", GK_WIN_WHITE, 0);
    add(&b, "b2-b3 g7-g6 d2-d3", GK_WIN_WHITE, 0);
    add(&b, "d2-d3 a7-a6", GK_WIN_WHITE, 0);
    add(&b, "f2-f3 a7-a6", GK_WIN_BLACK, 0);
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    gk_pos_t start;
    gk_action_t a[16];
    line(&GOUNKI, "", a, &start);
    /* Values: b2-b3 +1 (2 games), d2-d3 +1 (1 game), f2-f3 -1: the best is b2-b3 (games). */
    bk_choice_t ch;
    uint64_t rng = 5;
    line(&GOUNKI, "b2-b3", a, NULL);
    CHECK(bk_choose(&b, &start, NULL, &rng, &ch) == 1 && ch.action == a[0] && ch.games == 2);
    /* A window of 0.5: b2-b3 or d2-d3, both drawn; never f2-f3. */
    bk_probe_opts_t po = {.random_window = 0.5};
    int seen_b = 0, seen_d = 0, seen_f = 0;
    gk_action_t bd[3];
    line(&GOUNKI, "d2-d3", bd, NULL);
    line(&GOUNKI, "f2-f3", bd + 1, NULL);
    for (int i = 0; i < 200; i++) {
        CHECK(bk_choose(&b, &start, &po, &rng, &ch) == 1);
        seen_b += ch.action == a[0], seen_d += ch.action == bd[0], seen_f += ch.action == bd[1];
    }
    CHECK(seen_b > 50 && seen_d > 50 && seen_f == 0);
    /* At least 3 games: none; a leaf better than every book move: out of book. */
    po = (bk_probe_opts_t){.min_games = 3};
    CHECK(bk_choose(&b, &start, &po, &rng, &ch) == 0 && ch.out == BK_OUT_FEW_GAMES);
    gk_action_t h3[2];
    line(&GOUNKI, "h2-h3", h3, NULL);
    b.node[b.root].leaf = (bk_leaf_t){BK_LEAF_VALUE, 0, 0, h3[0], 0.9f, 10};
    CHECK(bk_choose(&b, &start, NULL, &rng, &ch) == 1); /* 0.9 < +1 */
    b.node[b.root].leaf.value = 1.0f;
    CHECK(bk_choose(&b, &start, NULL, &rng, &ch) == 1); /* equal: the book move */
    int32_t k3 = node_at(&b, "b2-b3");
    b.node[k3].leaf = (bk_leaf_t){BK_LEAF_VALUE, 0, 0, h3[0], 0.0f, 10};
    gk_pos_t p3;
    line(&GOUNKI, "b2-b3", a, &p3);
    b.node[k3].leaf.value = 0.5f; /* g7-g6 is -1 for Black: the leaf is better */
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    CHECK(bk_choose(&b, &p3, NULL, &rng, &ch) == 0 && ch.out == BK_OUT_LEAF_BETTER);
    /* Walks at temperature 0 follow the best; the walk leaves where the leaf is better. */
    gk_action_t w[64];
    b.node[b.root].leaf.kind = BK_LEAF_NONE;
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    int nw = bk_walk(&b, 0, &rng, w, 64);
    CHECK(nw == 2 && w[0] == bd[0]); /* d2-d3 (+1), then a7-a6, then the book ends */
    /* Hot walks reach several first moves. */
    int first[3] = {0, 0, 0};
    for (int i = 0; i < 300; i++) {
        nw = bk_walk(&b, 1.0, &rng, w, 64);
        if (nw == 0) continue;
        first[0] += w[0] == a[0], first[1] += w[0] == bd[0], first[2] += w[0] == bd[1];
    }
    CHECK(first[0] > 0 && first[1] > 0 && first[2] > 0);
    /* Lines: exits within windows.  Root value now +1 (b2-b3, d2-d3), f2-f3 -1 is 2 worse. */
    bk_lines_opts_t lo = {.max_error = 0.1, .total_error = 0.1, .balanced = -1};
    bk_lines_t L;
    CHECK_OK(bk_lines(&b, &lo, &L, err, sizeof err), err);
    /* The root's best is d2-d3 (+1): b2-b3 (-0.5 now that Black's leaf there is +0.5) and
     * f2-f3 (-1) are outside the window: one line, d2-d3 a7-a6. */
    CHECK(L.nlines == 1);
    for (uint32_t i = 0; i < L.nlines; i++) CHECK(L.line[i].turns >= 1 && L.line[i].error == 0);
    gk_sb_t sb;
    gk_sb_growing(&sb);
    CHECK_OK(bk_lines_text(&b, &L, &sb, err, sizeof err), err);
    CHECK(strstr(sb.p, "gkopenings 1\ngame gounki\n") == sb.p);
    CHECK(strstr(sb.p, "d2-d3 a7-a6") != NULL && strstr(sb.p, "\nchecksum ") != NULL);
    gk_sb_free(&sb);
    bk_lines_free(&L);
    lo.max_error = lo.total_error = 3;
    CHECK_OK(bk_lines(&b, &lo, &L, err, sizeof err), err);
    CHECK(L.nlines == 3 && L.line[2].error > 1.9f);
    bk_lines_free(&L);
    lo.turns = 1;
    CHECK_OK(bk_lines(&b, &lo, &L, err, sizeof err), err);
    CHECK(L.nlines == 3);
    for (uint32_t i = 0; i < L.nlines; i++) CHECK(L.line[i].turns == 1);
    bk_lines_free(&L);
    lo.balanced = 0.5; /* exits within +-0.5 for White: only b2-b3 (value -0.5 for Black) */
    CHECK_OK(bk_lines(&b, &lo, &L, err, sizeof err), err);
    CHECK(L.nlines == 1 && fabsf(L.line[0].exit - (-0.5f)) < 1e-6f);
    bk_lines_free(&L);
    /* describe: in the book and not. */
    gk_sb_growing(&sb);
    CHECK_OK(bk_describe(&b, &start, false, &sb), err);
    CHECK(strstr(sb.p, "b2-b3") != NULL && strstr(sb.p, "line") != NULL);
    gk_sb_free(&sb);
    gk_sb_growing(&sb);
    gk_pos_t far;
    line(&GOUNKI, "h2-h3 a7-a6", a, &far);
    CHECK_OK(bk_describe(&b, &far, true, &sb), err);
    CHECK(strstr(sb.p, "\"in_book\":false") != NULL);
    gk_sb_free(&sb);
    bk_free(&b);
}

static void test_merge(void) {
    bk_book_t all, x, y;
    char err[256];
    CHECK_OK(bk_init(&all, &GOUNKI, err, sizeof err), err);
    CHECK_OK(bk_init(&x, &GOUNKI, err, sizeof err), err);
    CHECK_OK(bk_init(&y, &GOUNKI, err, sizeof err), err);
    const char *games[] = {"b2-b3 g7-g6 d2-d3", "d2-d3 g7-g6 b2-b3 a7-a6", "b2-b3 a7-a6",
                           "f2-f3 a7-a6 b2-b3"};
    for (int i = 0; i < 4; i++) {
        add(&all, games[i], i % 3 + 1, 0);
        add(i < 2 ? &x : &y, games[i], i % 3 + 1, 0);
    }
    CHECK_OK(bk_merge(&x, &y, err, sizeof err), err);
    CHECK_OK(bk_update(&x, err, sizeof err), err);
    CHECK_OK(bk_update(&all, err, sizeof err), err);
    gl_buf_t i1 = {0}, i2 = {0};
    CHECK_OK(bk_encode(&x, 3, &i1, err, sizeof err), err);
    CHECK_OK(bk_encode(&all, 3, &i2, err, sizeof err), err);
    CHECK(i1.n == i2.n && !memcmp(i1.p, i2.p, i1.n));
    gk_rules_t gobs = {GK_GAME_GOBS, 1, GK_DEFAULT_TURN_LIMIT};
    bk_book_t g;
    CHECK_OK(bk_init(&g, &gobs, err, sizeof err), err);
    CHECK(bk_merge(&x, &g, err, sizeof err) == GK_E_MISMATCH);
    gl_buf_free(&i1);
    gl_buf_free(&i2);
    bk_free(&g);
    bk_free(&all);
    bk_free(&x);
    bk_free(&y);
}

/* Books of the Gobs short variant: mid-turn nodes and their identity. */
static void test_gobs(void) {
    gk_rules_t r = {GK_GAME_GOBS, 1, GK_DEFAULT_TURN_LIMIT};
    const gk_game_t *g = gk_game_by_id(GK_GAME_GOBS);
    bk_book_t b;
    char err[256];
    CHECK_OK(bk_init(&b, &r, err, sizeof err), err);
    /* Random games of 30 actions: every action counted, the graph stays acyclic. */
    for (uint64_t s = 1; s <= 20; s++) {
        gk_pos_t p;
        g->setup(&p, &r);
        gk_action_t act[64], list[GK_MAX_ACTIONS];
        int n = 0;
        uint64_t rng = s;
        while (n < 30 && !gk_over(&p)) {
            int k = g->gen(&p, list);
            if (!k) break;
            act[n] = list[gk_splitmix64(&rng) % (uint64_t)k];
            g->play(&p, act[n++]);
        }
        CHECK_OK(bk_add_game(&b, act, (uint32_t)n, GK_DRAW, 0, err, sizeof err), err);
    }
    CHECK_OK(bk_update(&b, err, sizeof err), err);
    int mid = 0;
    for (uint32_t i = 0; i < b.nnodes; i++) {
        mid += b.node[i].in_turn > 0;
        gk_pos_t p;
        CHECK_OK(bk_position(&b, i, &p, err, sizeof err), err);
        CHECK(bk_probe(&b, &p) == (int32_t)i);
    }
    CHECK(b.nnodes > 100);
    gl_buf_t img = {0};
    bk_book_t c;
    CHECK_OK(bk_encode(&b, 9, &img, err, sizeof err), err);
    CHECK_OK(bk_decode(img.p, img.n, "g.book", &r, &c, err, sizeof err), err);
    CHECK(c.nnodes == b.nnodes);
    gk_rules_t std = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    bk_book_t d;
    CHECK(bk_decode(img.p, img.n, "g.book", &std, &d, err, sizeof err) == GK_E_MISMATCH);
    CHECK(strstr(err, "gobs (short), not gobs (standard)") != NULL);
    printf("gobs short: %u nodes, %d in the middle of a turn\n", b.nnodes, mid);
    gl_buf_free(&img);
    bk_free(&c);
    bk_free(&b);
}

/* mcts_search_excluding: the excluded actions are never the answer. */
static void test_excluding(void) {
    ev_weights_t w;
    CHECK(ev_weights_default(GK_GAME_GOUNKI, &w) == 0);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = 300;
    lim.early_stop = false;
    mcts_t *m = mcts_new(&mp, &w);
    mcts_result_t *r = malloc(sizeof *r), *r2 = malloc(sizeof *r2);
    gk_pos_t p;
    gk_action_t list[GK_MAX_ACTIONS];
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &GOUNKI);
    int n = gk_gen(&p, list);
    CHECK(mcts_search(m, &p, NULL, &lim, r) == 0);
    gk_action_t best = r->best;
    CHECK(mcts_search_excluding(m, &p, NULL, &lim, &best, 1, r) == 0);
    CHECK(r->best != best && r->children[r->nchildren - 1].action == best);
    CHECK(r->children[r->nchildren - 1].proof == MCTS_PROVEN_LOSS);
    /* The same search twice (and after another search): the same result. */
    CHECK(mcts_search_excluding(m, &p, NULL, &lim, &best, 1, r2) == 0);
    CHECK(r2->best == r->best && r2->value == r->value && r2->playouts == r->playouts);
    /* All but one excluded: that one; all excluded: the root is lost. */
    gk_action_t ex[GK_MAX_ACTIONS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (list[i] != best) ex[k++] = list[i];
    CHECK(mcts_search_excluding(m, &p, NULL, &lim, ex, k, r) == 0 && r->best == best);
    ex[k++] = best;
    CHECK(mcts_search_excluding(m, &p, NULL, &lim, ex, k, r) == 0);
    CHECK(r->proof == MCTS_PROVEN_LOSS);
    free(r);
    free(r2);
    mcts_free(m);
}

int main(void) {
    gk_init();
    test_counts();
    test_negamax();
    test_collision();
    test_file();
    test_journal();
    test_probe_walk_lines();
    test_merge();
    test_gobs();
    test_excluding();
    if (failures) {
        fprintf(stderr, "test_book: %d failure%s\n", failures, failures == 1 ? "" : "s");
        return 1;
    }
    printf("test_book: ok\n");
    return 0;
}
