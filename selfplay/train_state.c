/* selfplay/train_state.c -- the training loop's state file DIR/state.txt (train.h).
 * The format is docs/FORMATS.md, "Training state". */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/hash.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "train.h"

#define STATE_NAME   "state.txt"
#define STATE_MAGIC  "gktrain"
#define STATE_VER    1
#define STATE_MAXLEN (1u << 20)

typedef struct field {
    const char *name;
    char type; /* 'i' int, 'u' uint64, 'd' double */
    size_t off;
} field_t;

#define F(n, t)                                                                                    \
    { #n, t, offsetof(train_gen_t, n) }
static const field_t fields[] = {
    F(phases, 'i'),       F(best_before, 'i'), F(best_after, 'i'), F(promoted, 'i'),
    F(games, 'u'),        F(selfplay_s, 'd'),  F(positions, 'u'),  F(k, 'd'),
    F(train_before, 'd'), F(train_after, 'd'), F(val_before, 'd'), F(val_after, 'd'),
    F(tune_s, 'd'),       F(mw, 'u'),          F(md, 'u'),         F(ml, 'u'),
    F(elo, 'd'),          F(elo_lo, 'd'),      F(elo_hi, 'd'),     F(match_s, 'd'),
    F(ladder, 'i'),       F(lw, 'u'),          F(ld, 'u'),         F(ll, 'u'),
    F(lelo, 'd'),         F(lelo_lo, 'd'),     F(lelo_hi, 'd'),
};
#undef F
#define NFIELDS (sizeof fields / sizeof fields[0])

long train_state_format(const train_state_t *s, char *buf, size_t cap) {
    gk_sb_t b;
    gk_sb_fixed(&b, buf, cap);
    gk_sb_printf(&b, "%s %d\n", STATE_MAGIC, STATE_VER);
    gk_sb_printf(&b, "fingerprint %016llx\n", (unsigned long long)s->fingerprint);
    if (s->settings[0] && !strchr(s->settings, '\n'))
        gk_sb_printf(&b, "settings %s\n", s->settings);
    gk_sb_printf(&b, "generations %d\n", s->ngen);
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        gk_sb_printf(&b, "gen %d", g);
        for (size_t f = 0; f < NFIELDS; f++) {
            const char *at = (const char *)r + fields[f].off;
            switch (fields[f].type) {
            case 'i': gk_sb_printf(&b, " %s %d", fields[f].name, *(const int *)at); break;
            case 'u':
                gk_sb_printf(&b, " %s %llu", fields[f].name,
                             (unsigned long long)*(const uint64_t *)at);
                break;
            default: gk_sb_printf(&b, " %s %.17g", fields[f].name, *(const double *)at); break;
            }
        }
        gk_sb_printf(&b, "\n");
    }
    if (b.over) return -1;
    uint64_t h = gk_fnv1a64(GK_FNV1A_INIT, buf, b.n);
    gk_sb_printf(&b, "checksum %016llx\n", (unsigned long long)h);
    return gk_sb_len(&b);
}

/* A state-file error: the reason, after "line N: " when the line is known. */
__attribute__((format(printf, 5, 6))) static int perr(char *err, size_t cap, int code, int line,
                                                      const char *fmt, ...) {
    if (!err || !cap) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return line > 0 ? gk_err_wrap(err, cap, code, "line %d: ", line) : code;
}

/* Next whitespace-separated token of *s (modified in place), or NULL. */
static char *token(char **s) {
    char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) return NULL;
    char *t = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (*p) *p++ = 0;
    *s = p;
    return t;
}

static int parse_int(const char *t, long lo, long hi, long *out) {
    if (!t || !*t) return -1;
    char *end;
    errno = 0;
    long v = strtol(t, &end, 10);
    if (*end || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int train_state_parse(const char *text, size_t len, train_state_t *s, char *err, size_t errcap) {
    memset(s, 0, sizeof *s);
    if (len > STATE_MAXLEN)
        return perr(err, errcap, GK_E_FORMAT, 0, "state file larger than 1 MiB");
    if (memchr(text, 0, len))
        return perr(err, errcap, GK_E_FORMAT, 0, "NUL byte in the state file");
    /* the checksum line: the last non-blank line */
    size_t end = len;
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) end--;
    size_t ls = end;
    while (ls > 0 && text[ls - 1] != '\n') ls--;
    if (end - ls < 9 || memcmp(text + ls, "checksum ", 9))
        return perr(err, errcap, GK_E_FORMAT, 0, "no checksum line at the end (file cut short?)");
    char hex[32];
    if (end - ls - 9 >= sizeof hex) return perr(err, errcap, GK_E_FORMAT, 0, "bad checksum line");
    memcpy(hex, text + ls + 9, end - ls - 9);
    hex[end - ls - 9] = 0;
    char *he;
    errno = 0;
    unsigned long long want = strtoull(hex, &he, 16);
    if (*he || errno || strlen(hex) != 16)
        return perr(err, errcap, GK_E_FORMAT, 0, "bad checksum line");
    if (gk_fnv1a64(GK_FNV1A_INIT, text, ls) != want)
        return perr(err, errcap, GK_E_CHECKSUM, 0, "checksum mismatch");

    char *copy = malloc(ls + 1);
    if (!copy) return perr(err, errcap, GK_E_NOMEM, 0, "out of memory");
    memcpy(copy, text, ls);
    copy[ls] = 0;
    int rc = 0, line = 0, ngen = -1;
    char *save = copy;
    for (char *l = copy; l && !rc; l = save) {
        char *nl = strchr(l, '\n');
        if (nl) {
            *nl = 0;
            save = nl + 1;
        } else {
            save = NULL;
        }
        line++;
        char *cur = l, *key = token(&cur);
        long v;
        if (!key) continue;
        if (line == 1) {
            if (strcmp(key, STATE_MAGIC)) {
                rc = perr(err, errcap, GK_E_FORMAT, line, "not a training state file");
            } else if (parse_int(token(&cur), 0, 1000000, &v)) {
                rc = perr(err, errcap, GK_E_FORMAT, line, "bad version");
            } else if (v != STATE_VER) {
                rc = perr(err, errcap, GK_E_VERSION, line,
                          "state version %ld, this program reads %d", v, STATE_VER);
            }
        } else if (!strcmp(key, "fingerprint")) {
            char *t = token(&cur), *e2;
            errno = 0;
            s->fingerprint = t ? strtoull(t, &e2, 16) : 0;
            if (!t || *e2 || errno || strlen(t) != 16)
                rc = perr(err, errcap, GK_E_FORMAT, line, "bad fingerprint");
        } else if (!strcmp(key, "settings")) {
            if (strlen(cur) >= sizeof s->settings || s->ngen || ngen >= 0)
                rc = perr(err, errcap, GK_E_FORMAT, line, "bad settings line");
            else
                snprintf(s->settings, sizeof s->settings, "%s", cur);
        } else if (!strcmp(key, "generations")) {
            if (parse_int(token(&cur), 1, TRAIN_MAX_GENERATIONS + 1, &v))
                rc = perr(err, errcap, GK_E_FORMAT, line, "bad generation count");
            else
                ngen = (int)v;
        } else if (!strcmp(key, "gen")) {
            if (ngen < 0 || parse_int(token(&cur), 0, ngen - 1, &v) || v != s->ngen) {
                rc = perr(err, errcap, GK_E_FORMAT, line, "generation out of order");
                break;
            }
            train_gen_t *r = &s->gen[s->ngen];
            for (size_t f = 0; f < NFIELDS && !rc; f++) {
                char *k = token(&cur), *t = token(&cur), *e2;
                if (!k || !t || strcmp(k, fields[f].name)) {
                    rc =
                        perr(err, errcap, GK_E_FORMAT, line, "expected field '%s'", fields[f].name);
                    break;
                }
                char *at = (char *)r + fields[f].off;
                errno = 0;
                if (fields[f].type == 'i') {
                    if (parse_int(t, -1, 1000000000, &v))
                        rc = perr(err, errcap, GK_E_FORMAT, line, "bad %s", fields[f].name);
                    else
                        *(int *)at = (int)v;
                } else if (fields[f].type == 'u') {
                    unsigned long long u = strtoull(t, &e2, 10);
                    if (*e2 || errno || *t == '-')
                        rc = perr(err, errcap, GK_E_FORMAT, line, "bad %s", fields[f].name);
                    else
                        *(uint64_t *)at = u;
                } else {
                    double d = strtod(t, &e2);
                    if (*e2 || errno == ERANGE)
                        rc = perr(err, errcap, GK_E_FORMAT, line, "bad %s", fields[f].name);
                    else
                        *(double *)at = d;
                }
            }
            if (!rc && token(&cur)) rc = perr(err, errcap, GK_E_FORMAT, line, "extra text");
            if (!rc && (r->phases < 0 || r->phases > TRAIN_PH_ALL || r->best_before < 0 ||
                        r->best_before > s->ngen || r->best_after < 0 || r->best_after > s->ngen))
                rc = perr(err, errcap, GK_E_FORMAT, line, "inconsistent generation record");
            s->ngen++;
        } else {
            rc = perr(err, errcap, GK_E_FORMAT, line, "unknown key '%s'", key);
        }
    }
    free(copy);
    if (!rc && (ngen < 1 || s->ngen != ngen))
        rc = perr(err, errcap, GK_E_FORMAT, 0, "expected %d generation records, found %d", ngen,
                  s->ngen);
    return rc;
}

int train_state_save(const char *dir, const train_state_t *s, char *err, size_t errcap) {
    char path[4096];
    GK_RETURN_IF(gk_path_join(path, sizeof path, dir, STATE_NAME), err, errcap, GK_E_INVALID,
                 "%s: path too long", dir);
    size_t cap = 4096 + (size_t)s->ngen * 1024;
    char *buf = malloc(cap);
    if (!buf) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    long n = train_state_format(s, buf, cap);
    int rc = n < 0 ? gk_fail(err, errcap, GK_E_INVALID, "%s: state too large", path)
                   : gk_write_atomic(path, buf, (size_t)n, err, errcap);
    free(buf);
    return rc;
}

int train_state_load(const char *dir, train_state_t *s, char *err, size_t errcap) {
    char path[4096], *text;
    size_t n;
    GK_RETURN_IF(gk_path_join(path, sizeof path, dir, STATE_NAME), err, errcap, GK_E_INVALID,
                 "%s: path too long", dir);
    GK_FORWARD_IF(gk_read_file(path, STATE_MAXLEN, &text, &n, err, errcap));
    int rc = train_state_parse(text, n, s, err, errcap);
    free(text);
    if (rc) gk_err_wrap(err, errcap, rc, "%s: ", path);
    return rc;
}
