/* data/openings.c -- opening-line files (see openings.h). */
#include "openings.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/status.h"
#include "xxh64.h"

void ol_free(ol_lines_t *b) {
    free(b->start);
    free(b->turns);
    free(b->act);
    memset(b, 0, sizeof *b);
}

typedef struct {
    const char *p, *end;
    int lineno;
} lines_t;

/* The next line without its end; false at the end of the text. */
static bool next_line(lines_t *L, const char **s, size_t *n) {
    if (L->p >= L->end) return false;
    const char *e = memchr(L->p, '\n', (size_t)(L->end - L->p));
    if (!e) e = L->end;
    *s = L->p;
    *n = (size_t)(e - L->p);
    if (*n && (*s)[*n - 1] == '\r') (*n)--;
    L->p = e < L->end ? e + 1 : e;
    L->lineno++;
    return true;
}

static bool blank(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#') return true;
        if (!isspace((unsigned char)s[i])) return false;
    }
    return true;
}

/* Room for one more line (and its end offset) in b. */
static int room_for_line(ol_lines_t *b, uint32_t *cap_lines) {
    if ((uint32_t)b->nlines + 1 < *cap_lines) return GK_OK;
    if (b->nlines + 1 >= OL_MAX_LINES) return GK_E_FORMAT;
    *cap_lines *= 2;
    uint32_t *st = realloc(b->start, *cap_lines * sizeof *st);
    if (!st) return GK_E_NOMEM;
    b->start = st;
    uint32_t *tu = realloc(b->turns, *cap_lines * sizeof *tu);
    if (!tu) return GK_E_NOMEM;
    b->turns = tu;
    return GK_OK;
}

/* Plays the moves of one line (buf, comment cut off) from the start position and appends
 * its actions to b->act; *turns gets its number of complete moves (0 for none). */
static int parse_line(const gk_game_t *G, const gk_rules_t *r, char *buf, ol_lines_t *b,
                      uint32_t *nact, uint32_t *cap_act, uint32_t *turns, char *err,
                      size_t errcap) {
    gk_pos_t pos;
    G->setup(&pos, r);
    *turns = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        gk_action_t seq[GK_MAX_TURN];
        char e2[200];
        GK_RETURN_IF(gk_over(&pos), err, errcap, GK_E_INVALID, "the game is over before '%s'", tok);
        int k = G->parse_move(&pos, tok, seq, GK_MAX_TURN, e2, sizeof e2);
        GK_RETURN_IF(k <= 0, err, errcap, GK_E_INVALID, "'%s': %s", tok, k < 0 ? e2 : "empty move");
        if (*nact + (uint32_t)k > *cap_act) {
            if (*cap_act > (1u << 26)) return GK_E_NOMEM;
            while (*nact + (uint32_t)k > *cap_act) *cap_act *= 2;
            gk_action_t *a = realloc(b->act, *cap_act * sizeof *a);
            if (!a) return GK_E_NOMEM;
            b->act = a;
        }
        for (int i = 0; i < k; i++) {
            b->act[(*nact)++] = seq[i];
            gk_play(&pos, seq[i]);
        }
        (*turns)++;
    }
    GK_RETURN_IF(*turns && gk_over(&pos), err, errcap, GK_E_INVALID, "the line ends the game");
    return GK_OK;
}

/* "checksum HEX" at s[0..n): GK_OK when it holds the XXH64 of text[0..upto). */
static int check_sum(const char *s, size_t n, const char *text, size_t upto, char *err,
                     size_t errcap) {
    char hex[32];
    GK_RETURN_IF(n - 9 != 16, err, errcap, GK_E_FORMAT, "bad checksum line");
    memcpy(hex, s + 9, 16);
    hex[16] = 0;
    char *e;
    uint64_t v = strtoull(hex, &e, 16);
    GK_RETURN_IF(*e || !isxdigit((unsigned char)hex[0]), err, errcap, GK_E_FORMAT,
                 "bad checksum line");
    GK_RETURN_IF(v != gk_xxh64(text, upto, 0), err, errcap, GK_E_CHECKSUM, "checksum mismatch");
    return GK_OK;
}

/* The header lines: "gkopenings 1", then "game NAME". */
static int parse_header(lines_t *L, const gk_game_t *G, char *err, size_t errcap) {
    const char *s = NULL;
    size_t n = 0;
    char want[64];
    while (next_line(L, &s, &n) && blank(s, n)) {
    }
    GK_RETURN_IF(L->lineno == 0 || n != 12 || memcmp(s, "gkopenings 1", 12), err, errcap,
                 GK_E_FORMAT, "expected 'gkopenings 1'");
    while (next_line(L, &s, &n) && blank(s, n)) {
    }
    snprintf(want, sizeof want, "game %s", G->name);
    GK_RETURN_IF(n != strlen(want) || memcmp(s, want, n), err, errcap, GK_E_FORMAT, "expected '%s'",
                 want);
    return GK_OK;
}

static int parse_lines(lines_t *L, const char *text, const gk_game_t *G, const gk_rules_t *r,
                       ol_lines_t *b, char *err, size_t errcap) {
    uint32_t cap_lines = 64, cap_act = 1024, nact = 0;
    b->start = malloc(cap_lines * sizeof *b->start);
    b->turns = malloc(cap_lines * sizeof *b->turns);
    b->act = malloc(cap_act * sizeof *b->act);
    if (!b->start || !b->turns || !b->act) return GK_E_NOMEM;
    b->start[0] = 0;
    bool checksum_seen = false;
    const char *s;
    size_t n;
    char buf[4096];
    while (next_line(L, &s, &n)) {
        if (blank(s, n)) continue;
        GK_RETURN_IF(checksum_seen, err, errcap, GK_E_FORMAT, "text after the checksum line");
        if (n > 9 && !memcmp(s, "checksum ", 9)) {
            GK_FORWARD_IF(check_sum(s, n, text, (size_t)(s - text), err, errcap));
            checksum_seen = true;
            continue;
        }
        GK_RETURN_IF(n >= sizeof buf, err, errcap, GK_E_FORMAT, "line too long");
        memcpy(buf, s, n);
        buf[n] = 0;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        int rc = room_for_line(b, &cap_lines);
        if (rc == GK_E_FORMAT) return gk_fail(err, errcap, rc, "more than %d lines", OL_MAX_LINES);
        GK_FORWARD_IF(rc);
        uint32_t turns;
        GK_FORWARD_IF(parse_line(G, r, buf, b, &nact, &cap_act, &turns, err, errcap));
        if (turns == 0) continue;
        b->turns[b->nlines] = turns;
        b->start[++b->nlines] = nact;
    }
    return GK_OK;
}

int ol_parse(const char *text, size_t len, const char *name, const gk_rules_t *r, ol_lines_t *b,
             char *err, size_t errcap) {
    memset(b, 0, sizeof *b);
    const gk_game_t *G = gk_game_by_id(r->game);
    if (!G) return gk_fail(err, errcap, GK_E_INVALID, "%s: unknown game", name);
    if (memchr(text, 0, len)) return gk_fail(err, errcap, GK_E_FORMAT, "%s: not a text file", name);
    lines_t L = {text, text + len, 0};
    int rc = parse_header(&L, G, err, errcap);
    if (!rc) rc = parse_lines(&L, text, G, r, b, err, errcap);
    if (rc == GK_E_NOMEM) {
        ol_free(b);
        return gk_fail(err, errcap, rc, "%s: out of memory", name);
    }
    if (rc) {
        ol_free(b);
        return gk_err_wrap(err, errcap, rc, "%s:%d: ", name, L.lineno);
    }
    if (b->nlines == 0) {
        ol_free(b);
        return gk_fail(err, errcap, GK_E_EMPTY, "%s: no opening lines", name);
    }
    b->hash = gk_xxh64(text, len, 0);
    return GK_OK;
}

int ol_load(const char *path, const gk_rules_t *r, ol_lines_t *b, char *err, size_t errcap) {
    char *text;
    size_t n;
    memset(b, 0, sizeof *b);
    GK_FORWARD_IF(gk_read_file(path, OL_MAX_BYTES, &text, &n, err, errcap));
    int rc = ol_parse(text, n, path, r, b, err, errcap);
    free(text);
    return rc;
}
