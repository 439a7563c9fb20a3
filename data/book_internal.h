/*
 * data/book_internal.h -- private to data/book*.c: little-endian fields, varints and the
 * bounded reader that the book file and the journal share.
 */
#ifndef GK_BOOK_INTERNAL_H
#define GK_BOOK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "book.h"

static inline void bk_put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void bk_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void bk_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t bk_get16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t bk_get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t bk_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static inline uint32_t bk_fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float bk_bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Level of a node: every book move goes to a strictly higher one. */
static inline uint32_t bk_level(const bk_node_t *x) {
    return (uint32_t)x->turn * GK_MAX_TURN + x->in_turn;
}

/* ---- writing into a gl_buf_t: callers reserve first, then put ---- */

/* Appends n raw bytes; -1 when memory runs out. */
static inline int bk_wr(gl_buf_t *o, const void *p, size_t n) {
    if (gl_buf_reserve(o, n)) return -1;
    memcpy(o->p + o->n, p, n);
    o->n += n;
    return 0;
}
static inline int bk_wr_u8(gl_buf_t *o, uint8_t v) {
    return bk_wr(o, &v, 1);
}
static inline int bk_wr_u16(gl_buf_t *o, uint16_t v) {
    uint8_t b[2];
    bk_put16(b, v);
    return bk_wr(o, b, 2);
}
static inline int bk_wr_u32(gl_buf_t *o, uint32_t v) {
    uint8_t b[4];
    bk_put32(b, v);
    return bk_wr(o, b, 4);
}
static inline int bk_wr_u64(gl_buf_t *o, uint64_t v) {
    uint8_t b[8];
    bk_put64(b, v);
    return bk_wr(o, b, 8);
}
static inline int bk_wr_var(gl_buf_t *o, uint64_t v) {
    uint8_t b[10];
    int k = 0;
    do {
        b[k] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) b[k] |= 0x80;
        k++;
    } while (v);
    return bk_wr(o, b, (size_t)k);
}

/* ---- a bounded reader: any read past the end sets `bad` and returns zeros ---- */

typedef struct bk_rd {
    const uint8_t *p, *end;
    bool bad;
} bk_rd_t;

static inline bool bk_rd_has(bk_rd_t *r, size_t n) {
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return false;
    }
    return true;
}
static inline uint8_t bk_rd_u8(bk_rd_t *r) {
    if (!bk_rd_has(r, 1)) return 0;
    return *r->p++;
}
static inline uint16_t bk_rd_u16(bk_rd_t *r) {
    if (!bk_rd_has(r, 2)) return 0;
    uint16_t v = bk_get16(r->p);
    r->p += 2;
    return v;
}
static inline uint32_t bk_rd_u32(bk_rd_t *r) {
    if (!bk_rd_has(r, 4)) return 0;
    uint32_t v = bk_get32(r->p);
    r->p += 4;
    return v;
}
static inline uint64_t bk_rd_u64(bk_rd_t *r) {
    if (!bk_rd_has(r, 8)) return 0;
    uint64_t v = bk_get64(r->p);
    r->p += 8;
    return v;
}
/* An unsigned LEB128 of at most 10 bytes that fits in 64 bits. */
static inline uint64_t bk_rd_var(bk_rd_t *r) {
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (!bk_rd_has(r, 1)) return 0;
        uint8_t c = *r->p++;
        if (i == 9 && c > 1) {
            r->bad = true;
            return 0;
        }
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) return v;
    }
    r->bad = true;
    return 0;
}

#endif
