/*
 * common/strbuf.h -- building text into a buffer without checking every call.
 *
 * Contract
 * --------
 * A gk_sb_t appends text either into a fixed caller buffer (gk_sb_fixed) or into a
 * malloc'd buffer that grows (gk_sb_growing).  The text is always NUL-terminated when the
 * capacity is not zero.  A fixed buffer that is too small keeps what fits and sets
 * `over`; a growing one sets `over` only when memory runs out.  So callers append freely
 * and check `over` once at the end (gk_sb_len() returns -1 then).
 * gk_sb_free() releases a growing buffer (a fixed one is the caller's); gk_sb_take()
 * hands a growing buffer's text to the caller (who frees it) and resets the builder; it
 * returns NULL for a fixed buffer or when memory ran out.
 */
#ifndef GK_COMMON_STRBUF_H
#define GK_COMMON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gk_sb {
    char *p;    /* the text */
    size_t n;   /* its length (may exceed cap for a fixed buffer that overflowed) */
    size_t cap; /* bytes available at p */
    bool grow;  /* p is malloc'd and may be reallocated */
    bool over;  /* something did not fit (fixed) or memory ran out (growing) */
} gk_sb_t;

void gk_sb_fixed(gk_sb_t *b, char *buf, size_t cap);
void gk_sb_growing(gk_sb_t *b);
void gk_sb_free(gk_sb_t *b);
char *gk_sb_take(gk_sb_t *b, size_t *len);

void gk_sb_printf(gk_sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gk_sb_put(gk_sb_t *b, const char *s, size_t n);
void gk_sb_puts(gk_sb_t *b, const char *s);
void gk_sb_putc(gk_sb_t *b, char c);
/* Appends s with the characters special in HTML/XML (& < > " ') escaped. */
void gk_sb_put_xml(gk_sb_t *b, const char *s);
/* Appends s as a JSON string, with its quotes. */
void gk_sb_put_json(gk_sb_t *b, const char *s);
/* The same, safe inside an HTML <script> element: '<', '>' and '&' written as \u escapes
 * too, so that no text can end the element ("</script>"). */
void gk_sb_put_json_script(gk_sb_t *b, const char *s);

/* Length of the text, or -1 when something did not fit. */
long gk_sb_len(const gk_sb_t *b);

#endif
