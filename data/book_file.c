/*
 * data/book_file.c -- the opening-book file: write (sorted, columnar, zstd, checksummed,
 * atomic) and defensive read (book.h; docs/FORMATS.md, "Opening books").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <zstd.h>

#include "../common/files.h"
#include "../common/status.h"
#include "book.h"
#include "book_internal.h"
#include "xxh64.h"

static const uint8_t MAGIC[8] = {'G', 'K', 'B', 'O', 'O', 'K', '\r', '\n'};
enum { FLAG_ZSTD = 1 };

/* Node indices sorted by (key, check), without a global: a merge sort on the keys. */
static void sort_nodes(const bk_book_t *b, uint32_t *perm, uint32_t *tmp, uint32_t n) {
    if (n < 2) return;
    uint32_t h = n / 2;
    sort_nodes(b, perm, tmp, h);
    sort_nodes(b, perm + h, tmp, n - h);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        const bk_node_t *x = &b->node[perm[i]], *y = &b->node[perm[j]];
        bool le = x->key < y->key || (x->key == y->key && x->check <= y->check);
        tmp[k++] = le ? perm[i++] : perm[j++];
    }
    while (i < h) tmp[k++] = perm[i++];
    while (j < n) tmp[k++] = perm[j++];
    memcpy(perm, tmp, n * sizeof *perm);
}

static int enc_payload(const bk_book_t *b, const uint32_t *perm, const uint32_t *inv, gl_buf_t *o) {
    int bad = 0;
    uint32_t n = b->nnodes;
    bad |= bk_wr_var(o, b->batches);
    bad |= bk_wr_u64(o, b->lineage);
    bad |= bk_wr_var(o, b->prov_len);
    if (b->prov_len) bad |= bk_wr(o, b->prov, b->prov_len);
    uint64_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = b->node[perm[i]].key;
        bad |= bk_wr_var(o, k - prev);
        prev = k;
    }
    for (uint32_t i = 0; i < n; i++) bad |= bk_wr_u64(o, b->node[perm[i]].check);
    for (uint32_t i = 0; i < n; i++) bad |= bk_wr_var(o, b->node[perm[i]].turn);
    for (uint32_t i = 0; i < n; i++) bad |= bk_wr_u8(o, b->node[perm[i]].in_turn);
    for (uint32_t i = 0; i < n; i++) {
        const bk_node_t *x = &b->node[perm[i]];
        bad |= bk_wr_u8(o, (uint8_t)((x->stm & 1) | (x->leaf.kind & 3) << 1));
    }
    for (uint32_t i = 0; i < n; i++) bad |= bk_wr_var(o, b->node[perm[i]].nedges);
#define LEAVES(stmt)                                                                               \
    for (uint32_t i = 0; i < n; i++) {                                                             \
        const bk_leaf_t *lf = &b->node[perm[i]].leaf;                                              \
        if (lf->kind == BK_LEAF_VALUE) bad |= (stmt);                                              \
    }
    LEAVES(bk_wr_u32(o, lf->move))
    LEAVES(bk_wr_u32(o, bk_fbits(lf->value)))
    LEAVES(bk_wr_var(o, lf->budget))
    LEAVES(bk_wr_u16(o, lf->prior))
#undef LEAVES
#define EDGES(stmt)                                                                                \
    for (uint32_t i = 0; i < n; i++) {                                                             \
        const bk_node_t *x = &b->node[perm[i]];                                                    \
        for (int j = 0; j < x->nedges; j++) {                                                      \
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];                                 \
            bad |= (stmt);                                                                         \
        }                                                                                          \
    }
    EDGES(bk_wr_u32(o, e->action))
    EDGES(bk_wr_var(o, e->term == BK_CHILD_NODE ? (uint64_t)inv[e->child] + 3 : e->term - 1u))
    EDGES(bk_wr_var(o, e->w))
    EDGES(bk_wr_var(o, e->d))
    EDGES(bk_wr_var(o, e->l))
    EDGES(bk_wr_u16(o, e->prior))
#undef EDGES
    return bad ? -1 : 0;
}

int bk_encode(const bk_book_t *b, int level, gl_buf_t *out, char *err, size_t errcap) {
    out->n = 0;
    uint32_t n = b->nnodes;
    uint32_t *perm = malloc(((size_t)n + 1) * sizeof *perm);
    uint32_t *inv = malloc(((size_t)n + 1) * sizeof *inv);
    gl_buf_t raw = {0};
    int rc = 0;
    if (!perm || !inv) goto oom;
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    sort_nodes(b, perm, inv, n);
    for (uint32_t i = 0; i < n; i++) inv[perm[i]] = i;
    if (enc_payload(b, perm, inv, &raw)) goto oom;
    size_t bound = ZSTD_compressBound(raw.n);
    if (gl_buf_reserve(out, BK_HEADER_BYTES + bound + raw.n + 8)) goto oom;
    uint8_t *h = out->p;
    memset(h, 0, BK_HEADER_BYTES);
    memcpy(h, MAGIC, 8);
    bk_put16(h + 8, BK_VERSION);
    h[10] = b->rules.game;
    h[11] = b->rules.variant;
    bk_put16(h + 12, b->rules.turn_limit);
    bk_put64(h + 16, bk_table_sum(&b->rules));
    bk_put64(h + 24, n);
    bk_put64(h + 32, b->nedges);
    bk_put64(h + 48, raw.n);
    size_t z = level < 0 ? 0
                         : ZSTD_compress(h + BK_HEADER_BYTES, bound, raw.p ? raw.p : (void *)"",
                                         raw.n, level > 0 ? level : 9);
    uint16_t flags = 0;
    size_t stored;
    if (level >= 0 && !ZSTD_isError(z) && z < raw.n) {
        flags = FLAG_ZSTD;
        stored = z;
    } else {
        if (raw.n) memcpy(h + BK_HEADER_BYTES, raw.p, raw.n);
        stored = raw.n;
    }
    bk_put16(h + 14, flags);
    bk_put64(h + 40, stored);
    out->n = BK_HEADER_BYTES + stored;
    bk_put64(out->p + out->n, gk_xxh64(out->p, out->n, 0));
    out->n += 8;
    goto done;
oom:
    rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
done:
    gl_buf_free(&raw);
    free(perm);
    free(inv);
    return rc;
}

int bk_save(const bk_book_t *b, const char *path, char *err, size_t errcap) {
    gl_buf_t img = {0};
    int rc = bk_encode(b, 9, &img, err, errcap);
    if (!rc) rc = gk_write_atomic(path, img.p, img.n, err, errcap);
    gl_buf_free(&img);
    return rc;
}

int bk_new_lineage(bk_book_t *b, char *err, size_t errcap) {
    gl_buf_t img = {0};
    b->batches = 0;
    b->lineage = 0;
    int rc = bk_encode(b, 1, &img, err, errcap);
    if (!rc) b->lineage = gk_xxh64(img.p, img.n, 0x4C494E45414745ull);
    gl_buf_free(&img);
    return rc;
}

/* ---- reading ---- */

static const char *rules_name(int game, int variant, char *buf, size_t cap) {
    const gk_game_t *g = gk_game_by_id(game);
    if (!g || variant < 0 || variant >= 4 || !g->variants[variant])
        snprintf(buf, cap, "game %d variant %d", game, variant);
    else
        snprintf(buf, cap, "%s (%s)", g->name, g->variants[variant]);
    return buf;
}

#define BAD(...) gk_fail(err, errcap, GK_E_FORMAT, __VA_ARGS__)

static int dec_payload(const uint8_t *p, size_t len, const char *name, bk_book_t *b, uint32_t n,
                       uint64_t ne, char *err, size_t errcap) {
    bk_rd_t r = {p, p + len, false};
    b->batches = bk_rd_var(&r);
    b->lineage = bk_rd_u64(&r);
    uint64_t pl = bk_rd_var(&r);
    if (r.bad || pl > BK_PROV_MAX || pl > (size_t)(r.end - r.p))
        return BAD("%s: bad provenance block", name);
    b->prov = malloc(pl + 1);
    if (!b->prov) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memcpy(b->prov, r.p, pl);
    b->prov[pl] = 0;
    b->prov_len = pl;
    r.p += pl;
    for (size_t i = 0; i < pl; i++) {
        unsigned char c = (unsigned char)b->prov[i];
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\t'))
            return BAD("%s: control character in the provenance", name);
    }
    if (pl && b->prov[pl - 1] != '\n') return BAD("%s: provenance does not end a line", name);
    b->node = calloc(n, sizeof *b->node);
    b->edge = calloc(ne ? ne : 1, sizeof *b->edge);
    if (!b->node || !b->edge) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    b->node_cap = b->nnodes = n;
    b->edge_cap = (uint32_t)(ne ? ne : 1);
    uint64_t key = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d = bk_rd_var(&r);
        key += d;
        b->node[i].key = key;
        b->node[i].value = NAN;
    }
    for (uint32_t i = 0; i < n; i++) b->node[i].check = bk_rd_u64(&r);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = bk_rd_var(&r);
        if (v > UINT16_MAX) return BAD("%s: node %u: turn %" PRIu64 " out of range", name, i, v);
        b->node[i].turn = (uint16_t)v;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint8_t t = bk_rd_u8(&r);
        if (t >= GK_MAX_TURN) return BAD("%s: node %u: bad mid-turn count %u", name, i, t);
        b->node[i].in_turn = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint8_t f = bk_rd_u8(&r);
        if (f >> 3 || (f >> 1) == 3) return BAD("%s: node %u: bad flags 0x%02x", name, i, f);
        b->node[i].stm = f & 1;
        b->node[i].leaf.kind = (uint8_t)(f >> 1);
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = bk_rd_var(&r);
        if (k > GK_MAX_ACTIONS) return BAD("%s: node %u: %" PRIu64 " book moves", name, i, k);
        b->node[i].nedges = b->node[i].ecap = (uint16_t)k;
        b->node[i].first = (uint32_t)sum;
        sum += k;
    }
    if (r.bad) return BAD("%s: the node table is cut short", name);
    if (sum != ne)
        return BAD("%s: the nodes hold %" PRIu64 " book moves, the header says %" PRIu64, name, sum,
                   ne);
    for (uint32_t i = 0; i < n; i++)
        if (b->node[i].leaf.kind == BK_LEAF_VALUE) b->node[i].leaf.move = bk_rd_u32(&r);
    for (uint32_t i = 0; i < n; i++)
        if (b->node[i].leaf.kind == BK_LEAF_VALUE) {
            float v = bk_bitsf(bk_rd_u32(&r));
            if (!(v >= -1.0f && v <= 1.0f))
                return BAD("%s: node %u: leaf value out of range", name, i);
            b->node[i].leaf.value = v;
        }
    for (uint32_t i = 0; i < n; i++)
        if (b->node[i].leaf.kind == BK_LEAF_VALUE) {
            uint64_t v = bk_rd_var(&r);
            if (v > UINT32_MAX) return BAD("%s: node %u: leaf budget out of range", name, i);
            b->node[i].leaf.budget = (uint32_t)v;
        }
    for (uint32_t i = 0; i < n; i++)
        if (b->node[i].leaf.kind == BK_LEAF_VALUE) b->node[i].leaf.prior = bk_rd_u16(&r);
    for (uint64_t k = 0; k < ne; k++) b->edge[k].action = bk_rd_u32(&r);
    for (uint64_t k = 0; k < ne; k++) {
        uint64_t c = bk_rd_var(&r);
        if (c < 3) {
            b->edge[k].term = (uint8_t)(c + 1);
        } else if (c - 3 < n) {
            b->edge[k].term = BK_CHILD_NODE;
            b->edge[k].child = (uint32_t)(c - 3);
        } else {
            return BAD("%s: book move %" PRIu64 " leads to node %" PRIu64 " of %u", name, k, c - 3,
                       n);
        }
        b->edge[k].value = NAN;
    }
    for (int f = 0; f < 3; f++)
        for (uint64_t k = 0; k < ne; k++) {
            uint64_t v = bk_rd_var(&r);
            if (v > UINT32_MAX)
                return BAD("%s: book move %" PRIu64 ": count out of range", name, k);
            *(f == 0 ? &b->edge[k].w : f == 1 ? &b->edge[k].d : &b->edge[k].l) = (uint32_t)v;
        }
    for (uint64_t k = 0; k < ne; k++) b->edge[k].prior = bk_rd_u16(&r);
    if (r.bad) return BAD("%s: the payload is cut short", name);
    if (r.p != r.end)
        return BAD("%s: %zu bytes after the last book move", name, (size_t)(r.end - r.p));
    b->edge_used = (uint32_t)ne;
    b->nedges = ne;
    /* Structure: sorted unique nodes, sorted unique non-zero actions, edges going forward. */
    for (uint32_t i = 0; i < n; i++) {
        const bk_node_t *x = &b->node[i];
        if (i && !(x->key > x[-1].key || (x->key == x[-1].key && x->check > x[-1].check)))
            return BAD("%s: nodes %u and %u are not in key order", name, i - 1, i);
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b->edge[x->first + (uint32_t)j];
            if (e->action == GK_NO_ACTION || (j && e->action <= e[-1].action))
                return BAD("%s: node %u: book moves not sorted or repeated", name, i);
            if (e->term == BK_CHILD_NODE && bk_level(&b->node[e->child]) <= bk_level(x))
                return BAD("%s: node %u: a book move leads back to an earlier turn", name, i);
        }
        if (x->leaf.kind == BK_LEAF_VALUE && bk_edge_find(b, i, x->leaf.move))
            return BAD("%s: node %u: the leaf move is a book move", name, i);
    }
    return 0;
}

int bk_decode(const uint8_t *p, size_t n, const char *name, const gk_rules_t *want, bk_book_t *b,
              char *err, size_t errcap) {
    memset(b, 0, sizeof *b);
    char r1[64], r2[64];
    if (n < 8 || memcmp(p, MAGIC, 8)) return BAD("%s: not an opening book (bad magic)", name);
    if (n < BK_HEADER_BYTES + 8) return BAD("%s: truncated (%zu bytes)", name, n);
    uint16_t version = bk_get16(p + 8);
    if (version == 0 || version > BK_VERSION)
        return gk_fail(err, errcap, GK_E_VERSION,
                       "%s: format version %u (this program reads version %d)", name, version,
                       BK_VERSION);
    uint64_t stored = bk_get64(p + 40), raw = bk_get64(p + 48);
    uint64_t whole = stored > BK_MAX_FILE ? UINT64_MAX : BK_HEADER_BYTES + stored + 8;
    if (whole > n)
        return BAD("%s: truncated (%zu bytes, the header says %" PRIu64 ")", name, n, whole);
    if (whole < n) return BAD("%s: %" PRIu64 " bytes after the end of the book", name, n - whole);
    if (gk_xxh64(p, n - 8, 0) != bk_get64(p + n - 8))
        return gk_fail(err, errcap, GK_E_CHECKSUM, "%s: checksum mismatch (the file is damaged)",
                       name);
    gk_rules_t rules = {p[10], p[11], bk_get16(p + 12)};
    const gk_game_t *g = gk_game_by_id(rules.game);
    if (!g || rules.variant >= 4 || !g->variants[rules.variant])
        return BAD("%s: unknown game or rule set (%s)", name,
                   rules_name(rules.game, rules.variant, r1, sizeof r1));
    if (want && (want->game != rules.game || want->variant != rules.variant))
        return gk_fail(err, errcap, GK_E_MISMATCH, "%s: a book for %s, not %s", name,
                       rules_name(rules.game, rules.variant, r1, sizeof r1),
                       rules_name(want->game, want->variant, r2, sizeof r2));
    if (bk_get64(p + 16) != bk_table_sum(&rules))
        return gk_fail(err, errcap, GK_E_VERSION,
                       "%s: made with another Zobrist key table (another engine version): "
                       "rebuild the book",
                       name);
    uint16_t flags = bk_get16(p + 14);
    if (flags & ~FLAG_ZSTD) return BAD("%s: unknown flags 0x%04x", name, flags);
    uint64_t nn = bk_get64(p + 24), ne = bk_get64(p + 32);
    if (nn == 0 || nn > BK_MAX_NODES || nn > raw / 13 || ne > raw / 10 ||
        ne > nn * (uint64_t)GK_MAX_ACTIONS || ne > UINT32_MAX - 1)
        return BAD("%s: impossible counts (%" PRIu64 " nodes, %" PRIu64 " book moves in %" PRIu64
                   " bytes)",
                   name, nn, ne, raw);
    const uint8_t *body = p + BK_HEADER_BYTES;
    uint8_t *plain = NULL;
    if (flags & FLAG_ZSTD) {
        unsigned long long fc = ZSTD_getFrameContentSize(body, stored);
        if (fc != raw || raw > 64 * stored + 65536)
            return BAD("%s: the compressed payload does not hold %" PRIu64 " bytes", name, raw);
        plain = malloc(raw ? raw : 1);
        if (!plain) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        size_t z = ZSTD_decompress(plain, raw, body, stored);
        if (ZSTD_isError(z) || z != raw) {
            free(plain);
            return gk_fail(err, errcap, GK_E_ZSTD, "%s: zstd: %s", name,
                           ZSTD_isError(z) ? ZSTD_getErrorName(z) : "short payload");
        }
        body = plain;
    } else if (raw != stored) {
        return BAD("%s: the payload holds %" PRIu64 " bytes, the header says %" PRIu64, name,
                   stored, raw);
    }
    b->rules = rules;
    int rc = dec_payload(body, raw, name, b, (uint32_t)nn, ne, err, errcap);
    free(plain);
    if (rc) goto fail;
    /* The index, the start position, reachability and the derived data. */
    rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    uint64_t cap = 64;
    while (cap < 2 * nn) cap <<= 1;
    b->slot = calloc(cap, sizeof *b->slot);
    if (!b->slot) goto fail;
    b->slot_mask = cap - 1;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        uint64_t key = b->node[i].key, j = key & b->slot_mask;
        while (b->slot[j]) j = (j + 1) & b->slot_mask;
        b->slot[j] = (key & 0xFFFFFFFF00000000ull) | ((uint64_t)i + 1);
    }
    gk_pos_t start;
    g->setup(&start, &b->rules);
    int32_t root = bk_find(b, start.hash, bk_check(&start));
    if (root < 0) {
        rc = BAD("%s: the start position is not in the book", name);
        goto fail;
    }
    b->root = (uint32_t)root;
    if (bk_update(b, err, errcap)) goto fail;
    for (uint32_t i = 0; i < b->nnodes; i++)
        if (b->parent[i] == UINT32_MAX) {
            rc = BAD("%s: node %u is not reachable from the start position", name, i);
            goto fail;
        }
    b->file_sum = bk_get64(p + n - 8);
    b->file_bytes = n;
    return 0;
fail:
    bk_free(b);
    return rc;
}

int bk_load(const char *path, const gk_rules_t *want, bk_book_t *b, char *err, size_t errcap) {
    memset(b, 0, sizeof *b);
    /* Read by the file's size (a book may be large; gk_read_file reserves its maximum). */
    FILE *f = fopen(path, "rb");
    if (!f) return gk_fail(err, errcap, GK_E_IO, "%s: %s", gk_path_shown(path), strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return gk_fail(err, errcap, GK_E_IO, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > BK_MAX_FILE) {
        fclose(f);
        return gk_fail(err, errcap, GK_E_FORMAT, "%s: larger than %llu bytes", path,
                       (unsigned long long)BK_MAX_FILE);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *data = malloc(n ? n : 1);
    if (!data) {
        fclose(f);
        return gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(data, 1, n, f);
    int bad = ferror(f) || got != n;
    fclose(f);
    int rc = bad ? gk_fail(err, errcap, GK_E_IO, "%s: read error", path)
                 : bk_decode(data, n, path, want, b, err, errcap);
    free(data);
    return rc;
}

bool bk_is_book_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint8_t h[8];
    bool yes = fread(h, 1, 8, f) == 8 && !memcmp(h, MAGIC, 8);
    fclose(f);
    return yes;
}
