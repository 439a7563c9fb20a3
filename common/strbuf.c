/* common/strbuf.c -- text builders of common/strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gk_sb_fixed(gk_sb_t *b, char *buf, size_t cap) {
    *b = (gk_sb_t){buf, 0, cap, false, false};
    if (cap) buf[0] = 0;
}

void gk_sb_growing(gk_sb_t *b) {
    *b = (gk_sb_t){NULL, 0, 0, true, false};
}

void gk_sb_free(gk_sb_t *b) {
    if (b->grow) free(b->p);
    gk_sb_growing(b);
}

char *gk_sb_take(gk_sb_t *b, size_t *len) {
    char *p = b->grow && !b->over ? b->p : NULL;
    if (len) *len = p ? b->n : 0;
    if (!p && b->grow) free(b->p);
    if (p && !b->n) {
        free(p);
        p = calloc(1, 1);
    }
    gk_sb_growing(b);
    return p;
}

/* Makes room for `more` bytes plus the NUL; false when it cannot. */
static bool room(gk_sb_t *b, size_t more) {
    if (b->over) return false;
    if (b->n + more < b->cap) return true;
    if (!b->grow) return false;
    size_t cap = b->cap ? b->cap : 256;
    while (cap <= b->n + more) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->over = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void gk_sb_put(gk_sb_t *b, const char *s, size_t n) {
    if (!room(b, n)) {
        /* A fixed buffer keeps the part that fits, for a truncated but readable text. */
        if (!b->grow && b->cap && !b->over) {
            size_t k = b->cap - 1 - b->n;
            memcpy(b->p + b->n, s, k);
            b->p[b->cap - 1] = 0;
        }
        b->over = true;
        b->n += n;
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

void gk_sb_puts(gk_sb_t *b, const char *s) {
    gk_sb_put(b, s, strlen(s));
}

void gk_sb_putc(gk_sb_t *b, char c) {
    gk_sb_put(b, &c, 1);
}

void gk_sb_printf(gk_sb_t *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->over = true;
        return;
    }
    if ((size_t)k < sizeof small) {
        gk_sb_put(b, small, (size_t)k);
        return;
    }
    char *big = malloc((size_t)k + 1);
    if (!big) {
        b->over = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    gk_sb_put(b, big, (size_t)k);
    free(big);
}

void gk_sb_put_xml(gk_sb_t *b, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': gk_sb_puts(b, "&amp;"); break;
        case '<': gk_sb_puts(b, "&lt;"); break;
        case '>': gk_sb_puts(b, "&gt;"); break;
        case '"': gk_sb_puts(b, "&quot;"); break;
        case '\'': gk_sb_puts(b, "&#39;"); break;
        default: gk_sb_putc(b, *s);
        }
    }
}

static void put_json(gk_sb_t *b, const char *s, bool script) {
    gk_sb_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            gk_sb_putc(b, '\\');
            gk_sb_putc(b, (char)c);
        } else if (c < 0x20 || (script && (c == '<' || c == '>' || c == '&'))) {
            gk_sb_printf(b, "\\u%04x", c);
        } else {
            gk_sb_putc(b, (char)c);
        }
    }
    gk_sb_putc(b, '"');
}

void gk_sb_put_json(gk_sb_t *b, const char *s) {
    put_json(b, s, false);
}

void gk_sb_put_json_script(gk_sb_t *b, const char *s) {
    put_json(b, s, true);
}

long gk_sb_len(const gk_sb_t *b) {
    return b->over ? -1 : (long)b->n;
}
