/* eval/weights.c -- weight vectors: defaults, text files (load by name, atomic save), hash. */
#include "eval.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/hash.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "features.h"

#define MAGIC          "gkweights"
#define MAX_LINE       1024
#define MAX_FILE_BYTES (1 << 20)
#define MAX_ABS_WEIGHT 1e6

static uint64_t fnv_u32(uint64_t h, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return gk_fnv1a64(h, b, 4);
}

static uint32_t float_bits(float x) {
    uint32_t u;
    if (x == 0.0f) x = 0.0f; /* -0 and +0 evaluate alike: hash alike */
    memcpy(&u, &x, sizeof u);
    return u;
}

uint64_t ev_weights_hash(const ev_weights_t *w) {
    uint64_t h = GK_FNV1A_INIT;
    h = fnv_u32(h, (uint32_t)w->game);
    h = fnv_u32(h, (uint32_t)w->nvalue);
    h = fnv_u32(h, (uint32_t)w->npolicy);
    h = fnv_u32(h, float_bits(w->scale));
    for (int i = 0; i < w->nvalue; i++) h = fnv_u32(h, float_bits(w->value[i]));
    for (int i = 0; i < w->npolicy; i++) h = fnv_u32(h, float_bits(w->policy[i]));
    return h;
}

int ev_weights_zero(int game, ev_weights_t *w) {
    const ev_game_features_t *g = ev_features_of(game);
    if (!g) return -1;
    memset(w, 0, sizeof *w);
    w->game = game;
    w->nvalue = g->nvalue;
    w->npolicy = g->npolicy;
    w->scale = 1.0f;
    return 0;
}

/* Sets the weight called name; returns 0, -1 unknown. */
static int set_by_name(ev_weights_t *w, const char *name, float v, int *slot) {
    int i = ev_feature_index(w->game, name);
    if (i >= 0) {
        w->value[i] = v;
        *slot = i;
        return 0;
    }
    i = ev_policy_feature_index(w->game, name);
    if (i >= 0) {
        w->policy[i] = v;
        *slot = EV_MAX_FEATURES + i;
        return 0;
    }
    return -1;
}

int ev_weights_default(int game, ev_weights_t *w) {
    const ev_game_features_t *g = ev_features_of(game);
    if (!g || ev_weights_zero(game, w)) return -1;
    w->scale = g->default_scale;
    for (const ev_default_t *d = g->defaults; d->name; d++) {
        int slot;
        if (set_by_name(w, d->name, d->value, &slot)) return -1; /* a table typo: caught by tests */
    }
    snprintf(w->provenance, sizeof w->provenance, "hand-set defaults of %s",
             gk_game_by_id(game)->name);
    return 0;
}

/* ---- parsing ---- */

typedef struct {
    const char *name;
    int line;
    char *err;
    size_t errcap;
} pctx_t;

/* A parse error: the reason, after "NAME:LINE: ". */
__attribute__((format(printf, 2, 3))) static int perr(pctx_t *c, const char *fmt, ...) {
    if (!c->err || !c->errcap) return GK_E_INVALID;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errcap, fmt, ap);
    va_end(ap);
    return gk_err_wrap(c->err, c->errcap, GK_E_INVALID, "%s:%d: ", c->name, c->line);
}

static int parse_float(const char *s, float *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || fabs(v) > MAX_ABS_WEIGHT) return -1;
    *out = (float)v;
    return 0;
}

/* Splits "key rest" in place: returns key, sets *rest to the trimmed remainder. */
static char *split_key(char *s, char **rest) {
    char *k = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    if (*s) *s++ = '\0';
    while (*s == ' ' || *s == '\t') s++;
    *rest = s;
    return k;
}

static void rtrim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
}

int ev_weights_parse(const char *text, size_t len, const char *name, int game, ev_weights_t *w,
                     char *err, size_t errcap) {
    pctx_t c = {name ? name : "weights", 0, err, errcap};
    if (err && errcap) err[0] = '\0';
    const gk_game_t *gg = gk_game_by_id(game);
    if (!gg || ev_weights_zero(game, w)) return perr(&c, "unknown game %d", game);
    if (memchr(text, '\0', len)) return perr(&c, "the file contains a NUL byte");

    unsigned char seen[EV_MAX_FEATURES + EV_MAX_POLICY] = {0};
    int have_magic = 0, have_game = 0, have_scale = 0, have_checksum = 0;
    size_t pos = 0;
    char line[MAX_LINE + 1];
    while (pos < len) {
        size_t start = pos;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        pos = nl ? end + 1 : len;
        c.line++;
        if (end - start > MAX_LINE) return perr(&c, "line longer than %d bytes", MAX_LINE);
        memcpy(line, text + start, end - start);
        line[end - start] = '\0';
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        rtrim(line);
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) continue;
        for (char *q = s; *q; q++)
            if ((unsigned char)*q < 0x20 && *q != '\t')
                return perr(&c, "control character 0x%02x", (unsigned char)*q);
        if (have_checksum) return perr(&c, "text after the checksum line");
        char *rest;
        char *key = split_key(s, &rest);
        if (!have_magic) {
            if (strcmp(key, MAGIC))
                return perr(&c, "not a weight file (first line must be '" MAGIC " %d')",
                            EV_FORMAT_VERSION);
            char *end2;
            errno = 0;
            long v = strtol(rest, &end2, 10);
            if (end2 == rest || *end2 || errno) return perr(&c, "bad format version '%s'", rest);
            if (v < 1 || v > EV_FORMAT_VERSION)
                return perr(&c, "format version %ld is not supported (this program reads %d)", v,
                            EV_FORMAT_VERSION);
            have_magic = 1;
            continue;
        }
        if (!strcmp(key, "game")) {
            if (have_game) return perr(&c, "duplicate 'game' line");
            if (strcmp(rest, gg->name))
                return perr(&c, "weights are for game '%s', not '%s'", rest, gg->name);
            have_game = 1;
        } else if (!strcmp(key, "scale")) {
            if (have_scale) return perr(&c, "duplicate 'scale' line");
            if (parse_float(rest, &w->scale) || !(w->scale > 0.0f))
                return perr(&c, "bad scale '%s' (a positive number)", rest);
            have_scale = 1;
        } else if (!strcmp(key, "provenance")) {
            snprintf(w->provenance, sizeof w->provenance, "%s", rest);
        } else if (!strcmp(key, "checksum")) {
            char *end2;
            errno = 0;
            if (strlen(rest) != 16) return perr(&c, "bad checksum '%s' (16 hex digits)", rest);
            unsigned long long want = strtoull(rest, &end2, 16);
            if (*end2 || errno) return perr(&c, "bad checksum '%s' (16 hex digits)", rest);
            uint64_t got = gk_fnv1a64(GK_FNV1A_INIT, text, start);
            if (got != want)
                return perr(&c, "checksum mismatch (file says %016llx, content gives %016llx)",
                            want, (unsigned long long)got);
            have_checksum = 1;
        } else {
            if (!have_game) return perr(&c, "'game' line missing before the weights");
            float v;
            if (!*rest) return perr(&c, "'%s' has no value", key);
            if (parse_float(rest, &v)) return perr(&c, "bad value '%s' for '%s'", rest, key);
            int slot;
            if (set_by_name(w, key, v, &slot))
                return perr(&c, "unknown feature '%s' for %s", key, gg->name);
            if (seen[slot]) return perr(&c, "duplicate feature '%s'", key);
            seen[slot] = 1;
        }
    }
    if (!have_magic) return perr(&c, "empty file (expected '" MAGIC " %d')", EV_FORMAT_VERSION);
    if (!have_game) return perr(&c, "no 'game' line");
    if (!have_scale) return perr(&c, "no 'scale' line");
    return 0;
}

int ev_weights_load(const char *path, int game, ev_weights_t *w, char *err, size_t errcap) {
    char *buf;
    size_t n;
    GK_FORWARD_IF(gk_read_file(path, MAX_FILE_BYTES, &buf, &n, err, errcap));
    int rc = ev_weights_parse(buf, n, path, game, w, err, errcap);
    free(buf);
    return rc;
}

/* ---- writing ---- */

/* Shortest decimal text that reads back as exactly x (weights stay readable and exact). */
static void fmt_float(char *buf, size_t cap, float x) {
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, cap, "%.*g", prec, (double)x);
        if (strtof(buf, NULL) == x) return;
    }
}

static void clean_line(char *dst, size_t cap, const char *src) {
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[j++] = (ch < 0x20 || ch == 0x7f || ch == '#') ? ' ' : (char)ch;
    }
    dst[j] = '\0';
    rtrim(dst);
}

static long format_with(const ev_weights_t *w, const char *prov, char *buf, size_t cap) {
    const gk_game_t *gg = gk_game_by_id(w->game);
    if (!gg) return -1;
    gk_sb_t b;
    gk_sb_fixed(&b, buf, cap);
    char clean[EV_PROVENANCE_MAX];
    clean_line(clean, sizeof clean, prov ? prov : "");
    gk_sb_printf(&b, MAGIC " %d\n", EV_FORMAT_VERSION);
    gk_sb_printf(&b, "# Evaluation weights (docs/FORMATS.md); loaded by feature name.\n");
    gk_sb_printf(&b, "game %s\n", gg->name);
    char num[32];
    fmt_float(num, sizeof num, w->scale);
    gk_sb_printf(&b, "scale %s\n", num);
    if (clean[0]) gk_sb_printf(&b, "provenance %s\n", clean);
    gk_sb_printf(&b, "# value features: %d\n", w->nvalue);
    for (int i = 0; i < w->nvalue; i++) {
        fmt_float(num, sizeof num, w->value[i]);
        gk_sb_printf(&b, "%s %s\n", ev_feature_name(w->game, i), num);
    }
    gk_sb_printf(&b, "# policy features: %d\n", w->npolicy);
    for (int i = 0; i < w->npolicy; i++) {
        fmt_float(num, sizeof num, w->policy[i]);
        gk_sb_printf(&b, "%s %s\n", ev_policy_feature_name(w->game, i), num);
    }
    if (b.over) return -1;
    uint64_t h = gk_fnv1a64(GK_FNV1A_INIT, buf, b.n);
    gk_sb_printf(&b, "checksum %016llx\n", (unsigned long long)h);
    return gk_sb_len(&b);
}

long ev_weights_format(const ev_weights_t *w, char *buf, size_t cap) {
    return format_with(w, w->provenance, buf, cap);
}

int ev_weights_save(const char *path, const ev_weights_t *w, const char *provenance, char *err,
                    size_t errcap) {
    size_t cap = 64 * 1024;
    char *buf = malloc(cap);
    if (!buf) return gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", gk_path_shown(path));
    long n = format_with(w, provenance ? provenance : w->provenance, buf, cap);
    int rc = n < 0 ? gk_fail(err, errcap, GK_E_INVALID, "%s: cannot format weights of game %d",
                             gk_path_shown(path), w->game)
                   : gk_write_atomic(path, buf, (size_t)n, err, errcap);
    free(buf);
    return rc;
}
