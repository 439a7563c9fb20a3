/*
 * data/book_journal.c -- the journal of `book expand`: batch records, their checksums, the
 * lineage chain, parsing with torn tails, and replay onto a book (book.h).
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

static const uint8_t JMAGIC[4] = {'G', 'K', 'B', 'J'};
static const uint8_t RMAGIC[4] = {'G', 'K', 'B', 'R'};
#define JHEADER_BYTES 40
#define JVERSION      1
#define MAX_RECORD    (1u << 24)

uint64_t bk_lineage_next(uint64_t lineage, uint64_t rec_sum) {
    uint8_t b[16];
    bk_put64(b, lineage);
    bk_put64(b + 8, rec_sum);
    return gk_xxh64(b, 16, 0x4A4F55524E414CULL);
}

void bk_batch_free(bk_batch_t *bt) {
    free(bt->e);
    memset(bt, 0, sizeof *bt);
}

static int wr_id(gl_buf_t *o, const bk_id_t *id) {
    return bk_wr_u64(o, id->key) | bk_wr_u64(o, id->check) | bk_wr_var(o, id->turn) |
           bk_wr_u8(o, id->in_turn) | bk_wr_u8(o, id->stm);
}

static int wr_leaf(gl_buf_t *o, const bk_leaf_t *l) {
    int bad = bk_wr_u8(o, l->kind);
    if (l->kind == BK_LEAF_VALUE)
        bad |= bk_wr_u32(o, l->move) | bk_wr_u32(o, bk_fbits(l->value)) | bk_wr_var(o, l->budget) |
               bk_wr_u16(o, l->prior);
    return bad;
}

int bk_batch_encode(const bk_batch_t *bt, gl_buf_t *out, char *err, size_t errcap) {
    gl_buf_t body = {0};
    int bad = bk_wr_var(&body, bt->number) | bk_wr_var(&body, bt->n);
    for (uint32_t i = 0; i < bt->n; i++) {
        const bk_jentry_t *e = &bt->e[i];
        bad |= bk_wr_u8(&body, e->kind) | wr_id(&body, &e->node) | wr_leaf(&body, &e->leaf);
        if (e->kind != BK_J_EXPAND) continue;
        bad |=
            bk_wr_u32(&body, e->move) | bk_wr_u16(&body, e->move_prior) | bk_wr_u8(&body, e->term);
        if (e->term != BK_CHILD_NODE) continue;
        bad |= wr_id(&body, &e->child) | bk_wr_u8(&body, e->has_child_leaf);
        if (e->has_child_leaf) bad |= wr_leaf(&body, &e->child_leaf);
    }
    size_t at = out->n;
    bad |= bk_wr(out, RMAGIC, 4) | bk_wr_u32(out, (uint32_t)body.n);
    if (body.n) bad |= bk_wr(out, body.p, body.n);
    if (!bad) bad |= bk_wr_u64(out, gk_xxh64(out->p + at, out->n - at, 0));
    gl_buf_free(&body);
    if (bad) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    return 0;
}

static void rd_id(bk_rd_t *r, bk_id_t *id) {
    id->key = bk_rd_u64(r);
    id->check = bk_rd_u64(r);
    uint64_t turn = bk_rd_var(r);
    if (turn > UINT16_MAX) r->bad = true;
    id->turn = (uint16_t)turn;
    id->in_turn = bk_rd_u8(r);
    id->stm = bk_rd_u8(r);
    if (id->in_turn >= GK_MAX_TURN || id->stm > 1) r->bad = true;
}

static void rd_leaf(bk_rd_t *r, bk_leaf_t *l) {
    memset(l, 0, sizeof *l);
    l->kind = bk_rd_u8(r);
    if (l->kind > BK_LEAF_FULL) r->bad = true;
    if (l->kind != BK_LEAF_VALUE) return;
    l->move = bk_rd_u32(r);
    l->value = bk_bitsf(bk_rd_u32(r));
    uint64_t bud = bk_rd_var(r);
    l->prior = bk_rd_u16(r);
    if (bud > UINT32_MAX || !(l->value >= -1.0f && l->value <= 1.0f) || l->move == GK_NO_ACTION)
        r->bad = true;
    l->budget = (uint32_t)bud;
}

/* Decodes one record body into bt. */
static int dec_body(const uint8_t *p, size_t n, bk_batch_t *bt) {
    memset(bt, 0, sizeof *bt);
    bk_rd_t r = {p, p + n, false};
    bt->number = bk_rd_var(&r);
    uint64_t k = bk_rd_var(&r);
    if (r.bad || k > BK_MAX_BATCH || k > n / 20) return -1;
    bt->e = calloc(k ? k : 1, sizeof *bt->e);
    if (!bt->e) return -1;
    bt->n = (uint32_t)k;
    for (uint32_t i = 0; i < bt->n && !r.bad; i++) {
        bk_jentry_t *e = &bt->e[i];
        e->kind = bk_rd_u8(&r);
        if (e->kind != BK_J_EVAL && e->kind != BK_J_EXPAND) r.bad = true;
        rd_id(&r, &e->node);
        rd_leaf(&r, &e->leaf);
        if (e->kind != BK_J_EXPAND) continue;
        e->move = bk_rd_u32(&r);
        e->move_prior = bk_rd_u16(&r);
        e->term = bk_rd_u8(&r);
        if (e->term > BK_TERM_LOSS || e->move == GK_NO_ACTION) r.bad = true;
        if (e->term != BK_CHILD_NODE) continue;
        rd_id(&r, &e->child);
        e->has_child_leaf = bk_rd_u8(&r);
        if (e->has_child_leaf > 1) r.bad = true;
        if (e->has_child_leaf) rd_leaf(&r, &e->child_leaf);
    }
    if (r.bad || r.p != r.end) {
        bk_batch_free(bt);
        return -1;
    }
    return 0;
}

static bool same_id(const bk_node_t *x, const bk_id_t *id) {
    return x->turn == id->turn && x->in_turn == id->in_turn && x->stm == id->stm;
}

int bk_batch_apply(bk_book_t *b, const bk_batch_t *bt, uint64_t rec_sum, char *err, size_t errcap) {
    GK_RETURN_IF(bt->number != b->batches + 1, err, errcap, GK_E_MISMATCH,
                 "batch %" PRIu64 " does not follow batch %" PRIu64 " of the book", bt->number,
                 b->batches);
    for (uint32_t i = 0; i < bt->n; i++) {
        const bk_jentry_t *e = &bt->e[i];
        int32_t k = bk_find(b, e->node.key, e->node.check);
        GK_RETURN_IF(k < 0 || !same_id(&b->node[k], &e->node), err, errcap, GK_E_MISMATCH,
                     "batch %" PRIu64 ": node %016" PRIx64 " is not in the book", bt->number,
                     e->node.key);
        if (e->kind == BK_J_EXPAND) {
            GK_RETURN_IF(bk_edge_find(b, (uint32_t)k, e->move), err, errcap, GK_E_MISMATCH,
                         "batch %" PRIu64 ": the move is a book move already", bt->number);
            uint32_t c = 0;
            if (e->term == BK_CHILD_NODE) {
                GK_RETURN_IF(e->child.turn < e->node.turn || (e->child.turn == e->node.turn &&
                                                              e->child.in_turn <= e->node.in_turn),
                             err, errcap, GK_E_FORMAT,
                             "batch %" PRIu64 ": a move goes back in time", bt->number);
                int32_t ck = bk_find(b, e->child.key, e->child.check);
                if (ck < 0) {
                    GK_RETURN_IF(!e->has_child_leaf, err, errcap, GK_E_MISMATCH,
                                 "batch %" PRIu64 ": a new position without its search",
                                 bt->number);
                    GK_FORWARD_IF(bk_node_get(b, &e->child, &c, err, errcap));
                    b->node[c].leaf = e->child_leaf;
                } else {
                    GK_RETURN_IF(!same_id(&b->node[ck], &e->child), err, errcap, GK_E_MISMATCH,
                                 "batch %" PRIu64 ": the child is stored differently", bt->number);
                    c = (uint32_t)ck;
                }
            }
            GK_FORWARD_IF(bk_edge_add(b, (uint32_t)k, e->move, e->term, c, err, errcap));
            bk_edge_find(b, (uint32_t)k, e->move)->prior = e->move_prior;
        }
        GK_RETURN_IF(e->leaf.kind == BK_LEAF_VALUE && bk_edge_find(b, (uint32_t)k, e->leaf.move),
                     err, errcap, GK_E_MISMATCH, "batch %" PRIu64 ": the leaf is a book move",
                     bt->number);
        b->node[k].leaf = e->leaf;
    }
    b->batches++;
    b->lineage = bk_lineage_next(b->lineage, rec_sum);
    return 0;
}

int bk_journal_header(const bk_book_t *b, gl_buf_t *out, char *err, size_t errcap) {
    out->n = 0;
    if (gl_buf_reserve(out, JHEADER_BYTES))
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    uint8_t *h = out->p;
    memset(h, 0, JHEADER_BYTES);
    memcpy(h, JMAGIC, 4);
    bk_put16(h + 4, JVERSION);
    bk_put64(h + 8, b->batches);
    bk_put64(h + 16, b->lineage);
    bk_put64(h + 24, bk_table_sum(&b->rules));
    bk_put64(h + 32, gk_xxh64(h, 32, 0));
    out->n = JHEADER_BYTES;
    return 0;
}

void bk_journal_free(bk_journal_t *j) {
    for (uint32_t i = 0; i < j->nrec; i++) bk_batch_free(&j->rec[i]);
    free(j->rec);
    free(j->rec_sum);
    memset(j, 0, sizeof *j);
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

int bk_journal_parse(const uint8_t *p, size_t n, const char *name, bk_journal_t *j, char *err,
                     size_t errcap) {
    memset(j, 0, sizeof *j);
    if (n < JHEADER_BYTES || memcmp(p, JMAGIC, 4))
        return gk_fail(err, errcap, GK_E_FORMAT, "%s: not a book journal", name);
    if (bk_get16(p + 4) != JVERSION)
        return gk_fail(err, errcap, GK_E_VERSION, "%s: journal version %u (this program writes %d)",
                       name, bk_get16(p + 4), JVERSION);
    if (bk_get64(p + 32) != gk_xxh64(p, 32, 0))
        return gk_fail(err, errcap, GK_E_CHECKSUM, "%s: the journal header is damaged", name);
    j->base_batches = bk_get64(p + 8);
    j->base_lineage = bk_get64(p + 16);
    j->table_sum = bk_get64(p + 24);
    size_t off = JHEADER_BYTES, cap = 0;
    while (off < n) {
        size_t left = n - off;
        /* A record cut short, or a tail of zeros (a crash while appending): torn. */
        if (left < 16 || all_zero(p + off, left)) {
            j->torn = true;
            break;
        }
        if (memcmp(p + off, RMAGIC, 4)) {
            bk_journal_free(j);
            return gk_fail(err, errcap, GK_E_FORMAT, "%s: damaged at byte %zu (no record there)",
                           name, off);
        }
        uint32_t len = bk_get32(p + off + 4);
        if (len > MAX_RECORD) {
            bk_journal_free(j);
            return gk_fail(err, errcap, GK_E_FORMAT, "%s: damaged at byte %zu (record size %u)",
                           name, off, len);
        }
        if ((size_t)len + 16 > left) {
            j->torn = true;
            break;
        }
        uint64_t sum = gk_xxh64(p + off, (size_t)len + 8, 0);
        if (sum != bk_get64(p + off + 8 + len)) {
            /* The last record, written in part, and maybe zeros after it (a file the
             * system extended before the crash): torn, not damaged. */
            if (all_zero(p + off + len + 16, left - len - 16)) {
                j->torn = true;
                break;
            }
            bk_journal_free(j);
            return gk_fail(err, errcap, GK_E_CHECKSUM, "%s: record at byte %zu is damaged", name,
                           off);
        }
        if (j->nrec == cap) {
            size_t nc = cap ? 2 * cap : 64;
            bk_batch_t *nr = realloc(j->rec, nc * sizeof *nr);
            if (nr) j->rec = nr;
            uint64_t *ns = realloc(j->rec_sum, nc * sizeof *ns);
            if (ns) j->rec_sum = ns;
            if (!nr || !ns) {
                bk_journal_free(j);
                return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            }
            cap = nc;
        }
        bk_batch_t *bt = &j->rec[j->nrec];
        if (dec_body(p + off + 8, len, bt) || bt->number != j->base_batches + 1 + j->nrec) {
            if (bt->e) bk_batch_free(bt);
            bk_journal_free(j);
            return gk_fail(err, errcap, GK_E_FORMAT, "%s: record at byte %zu is not a valid batch",
                           name, off);
        }
        j->rec_sum[j->nrec++] = sum;
        off += (size_t)len + 16;
    }
    j->valid_end = off;
    return 0;
}

int bk_journal_replay(bk_book_t *b, const bk_journal_t *j, uint32_t *applied, char *err,
                      size_t errcap) {
    *applied = 0;
    GK_RETURN_IF(j->table_sum != bk_table_sum(&b->rules), err, errcap, GK_E_VERSION,
                 "the journal was written with another Zobrist key table");
    GK_RETURN_IF(b->batches < j->base_batches, err, errcap, GK_E_MISMATCH,
                 "the journal continues batch %" PRIu64 " but the book holds only %" PRIu64
                 " batches (an older copy of the book?)",
                 j->base_batches, b->batches);
    uint64_t lin = j->base_lineage;
    uint32_t i = 0;
    for (uint64_t cur = j->base_batches; cur < b->batches; cur++, i++) {
        GK_RETURN_IF(i >= j->nrec, err, errcap, GK_E_MISMATCH,
                     "the book holds batches the journal does not know (another journal?)");
        lin = bk_lineage_next(lin, j->rec_sum[i]);
    }
    GK_RETURN_IF(lin != b->lineage, err, errcap, GK_E_MISMATCH,
                 "the journal belongs to another book (its batches do not lead to this one)");
    for (; i < j->nrec; i++) {
        GK_FORWARD_IF(bk_batch_apply(b, &j->rec[i], j->rec_sum[i], err, errcap));
        (*applied)++;
    }
    return 0;
}
