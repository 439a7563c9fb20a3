/* selfplay/train.c -- the training loop of selfplay/train.h. */
#include "train.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../eval/eval.h"
#include "match.h"
#include "selfplay.h"
#include "../common/clock.h"

#define STATE_NAME   "state.txt"
#define STATE_MAGIC  "gktrain"
#define STATE_VER    1
#define STATE_MAXLEN (1u << 20)

void train_opts_default(train_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->rules.game = GK_GAME_GOUNKI;
    o->rules.max_plies = GK_DEFAULT_MAX_PLY;
    o->generations = 4;
    o->games = 200;
    o->playouts = 200;
    o->openings = 4;
    o->match_games = 100;
    o->sprt_params = (elo_sprt_t){0, 20, 0.05, 0.05};
    o->gate = TRAIN_GATE_INTERVAL;
    o->ladder_games = 100;
    o->window = 2;
    o->seed = 1;
    o->threads = 0;
    tune_run_opts_default(&o->tune);
}

/* ------------------------------------------------------------------ state file */

static uint64_t fnv1a(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

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

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int over;
} sbuf_t;

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf_t *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->n < b->cap ? b->cap - b->n : 0;
    int k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= room) b->over = 1;
    if (k > 0) b->n += (size_t)k;
}

long train_state_format(const train_state_t *s, char *buf, size_t cap) {
    sbuf_t b = {buf, 0, cap, 0};
    sb_printf(&b, "%s %d\n", STATE_MAGIC, STATE_VER);
    sb_printf(&b, "fingerprint %016llx\n", (unsigned long long)s->fingerprint);
    sb_printf(&b, "generations %d\n", s->ngen);
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        sb_printf(&b, "gen %d", g);
        for (size_t f = 0; f < NFIELDS; f++) {
            const char *at = (const char *)r + fields[f].off;
            switch (fields[f].type) {
            case 'i': sb_printf(&b, " %s %d", fields[f].name, *(const int *)at); break;
            case 'u':
                sb_printf(&b, " %s %llu", fields[f].name,
                          (unsigned long long)*(const uint64_t *)at);
                break;
            default: sb_printf(&b, " %s %.17g", fields[f].name, *(const double *)at); break;
            }
        }
        sb_printf(&b, "\n");
    }
    if (b.over) return -1;
    uint64_t h = fnv1a(buf, b.n);
    sb_printf(&b, "checksum %016llx\n", (unsigned long long)h);
    if (b.over) return -1;
    return (long)b.n;
}

static int perr(char *err, size_t cap, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(char *err, size_t cap, int line, const char *fmt, ...) {
    int k = line > 0 ? snprintf(err, cap, "line %d: ", line) : 0;
    if (k < 0 || (size_t)k >= cap) k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, cap - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
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
    if (len > STATE_MAXLEN) return perr(err, errcap, 0, "state file larger than 1 MiB");
    if (memchr(text, 0, len)) return perr(err, errcap, 0, "NUL byte in the state file");
    /* the checksum line: the last non-blank line */
    size_t end = len;
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) end--;
    size_t ls = end;
    while (ls > 0 && text[ls - 1] != '\n') ls--;
    if (end - ls < 9 || memcmp(text + ls, "checksum ", 9))
        return perr(err, errcap, 0, "no checksum line at the end (file cut short?)");
    char hex[32];
    if (end - ls - 9 >= sizeof hex) return perr(err, errcap, 0, "bad checksum line");
    memcpy(hex, text + ls + 9, end - ls - 9);
    hex[end - ls - 9] = 0;
    char *he;
    errno = 0;
    unsigned long long want = strtoull(hex, &he, 16);
    if (*he || errno || strlen(hex) != 16) return perr(err, errcap, 0, "bad checksum line");
    if (fnv1a(text, ls) != want) return perr(err, errcap, 0, "checksum mismatch");

    char *copy = malloc(ls + 1);
    if (!copy) return perr(err, errcap, 0, "out of memory");
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
                rc = perr(err, errcap, line, "not a training state file");
            } else if (parse_int(token(&cur), 0, 1000000, &v)) {
                rc = perr(err, errcap, line, "bad version");
            } else if (v != STATE_VER) {
                rc = perr(err, errcap, line, "state version %ld, this program reads %d", v,
                          STATE_VER);
            }
        } else if (!strcmp(key, "fingerprint")) {
            char *t = token(&cur), *e2;
            errno = 0;
            s->fingerprint = t ? strtoull(t, &e2, 16) : 0;
            if (!t || *e2 || errno || strlen(t) != 16)
                rc = perr(err, errcap, line, "bad fingerprint");
        } else if (!strcmp(key, "generations")) {
            if (parse_int(token(&cur), 1, TRAIN_MAX_GENERATIONS + 1, &v))
                rc = perr(err, errcap, line, "bad generation count");
            else
                ngen = (int)v;
        } else if (!strcmp(key, "gen")) {
            if (ngen < 0 || parse_int(token(&cur), 0, ngen - 1, &v) || v != s->ngen) {
                rc = perr(err, errcap, line, "generation out of order");
                break;
            }
            train_gen_t *r = &s->gen[s->ngen];
            for (size_t f = 0; f < NFIELDS && !rc; f++) {
                char *k = token(&cur), *t = token(&cur), *e2;
                if (!k || !t || strcmp(k, fields[f].name)) {
                    rc = perr(err, errcap, line, "expected field '%s'", fields[f].name);
                    break;
                }
                char *at = (char *)r + fields[f].off;
                errno = 0;
                if (fields[f].type == 'i') {
                    if (parse_int(t, -1, 1000000000, &v))
                        rc = perr(err, errcap, line, "bad %s", fields[f].name);
                    else
                        *(int *)at = (int)v;
                } else if (fields[f].type == 'u') {
                    unsigned long long u = strtoull(t, &e2, 10);
                    if (*e2 || errno || *t == '-')
                        rc = perr(err, errcap, line, "bad %s", fields[f].name);
                    else
                        *(uint64_t *)at = u;
                } else {
                    double d = strtod(t, &e2);
                    if (*e2 || errno == ERANGE)
                        rc = perr(err, errcap, line, "bad %s", fields[f].name);
                    else
                        *(double *)at = d;
                }
            }
            if (!rc && token(&cur)) rc = perr(err, errcap, line, "extra text");
            if (!rc && (r->phases < 0 || r->phases > TRAIN_PH_ALL || r->best_before < 0 ||
                        r->best_before > s->ngen || r->best_after < 0 || r->best_after > s->ngen))
                rc = perr(err, errcap, line, "inconsistent generation record");
            s->ngen++;
        } else {
            rc = perr(err, errcap, line, "unknown key '%s'", key);
        }
    }
    free(copy);
    if (!rc && (ngen < 1 || s->ngen != ngen))
        rc = perr(err, errcap, 0, "expected %d generation records, found %d", ngen, s->ngen);
    return rc;
}

/* ------------------------------------------------------------------ files */

static int mkdir_p(const char *path, char *err, size_t errcap) {
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        snprintf(err, errcap, "%s: path too long", path);
        return -1;
    }
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) && errno != EEXIST) {
                snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
                return -1;
            }
            *p = '/';
        }
    if (mkdir(tmp, 0777) && errno != EEXIST) {
        snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes text to path atomically: path.tmp, fsync, rename, fsync of the directory. */
static int write_atomic(const char *dir, const char *name, const char *text, size_t n, char *err,
                        size_t errcap) {
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, text + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        done += (size_t)k;
    }
    if (fsync(fd) || close(fd)) {
        snprintf(err, errcap, "%s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path)) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

static int read_file(const char *path, char **text, size_t *n, size_t max) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char *b = malloc(max + 1);
    if (!b) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    size_t k = fread(b, 1, max + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        errno = EIO;
        return -1;
    }
    *text = b;
    *n = k;
    return 0;
}

static int save_state(const char *dir, const train_state_t *s, char *err, size_t errcap) {
    size_t cap = 4096 + (size_t)s->ngen * 1024;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    long n = train_state_format(s, buf, cap);
    int rc = n < 0 ? -1 : write_atomic(dir, STATE_NAME, buf, (size_t)n, err, errcap);
    if (n < 0) snprintf(err, errcap, "state too large");
    free(buf);
    return rc;
}

static void gen_dir(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d", dir, g);
}

static void gen_weights(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d/weights.txt", dir, g);
}

static void gen_logs(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d/logs", dir, g);
}

/* ------------------------------------------------------------------ report */

static void fmt_num(char *b, size_t cap, double v, const char *fmt) {
    if (isnan(v))
        snprintf(b, cap, "-");
    else if (isinf(v))
        snprintf(b, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(b, cap, fmt, v);
}

static void chain_elo(const train_state_t *s, double *chain);

static void report_table(const train_state_t *s, sbuf_t *b) {
    double chain[TRAIN_MAX_GENERATIONS + 1];
    chain_elo(s, chain);
    sb_printf(b, "%-4s %-4s %6s %8s %9s %9s %-17s %-17s %-12s %-24s %-4s %6s %s\n", "gen", "best",
              "games", "games/h", "positions", "K", "train loss", "val loss", "gate W-D-L",
              "gate Elo [95%]", "prom", "chain", "ladder Elo vs gen 0 [95%]");
    double games = 0, secs = 0;
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        char gph[32] = "-", k[32] = "-", tl[64] = "-", vl[64] = "-", wdl[72] = "-", elo[96] = "-",
             lad[160] = "-", a[24], c[24], d[24];
        if (g == 0) {
            snprintf(lad, sizeof lad, "0 (start)");
        } else {
            if (r->phases & TRAIN_PH_SELFPLAY && r->selfplay_s > 0) {
                snprintf(gph, sizeof gph, "%.0f", r->games / r->selfplay_s * 3600);
                games += (double)r->games;
                secs += r->selfplay_s;
            }
            if (r->phases & TRAIN_PH_TUNE) {
                snprintf(k, sizeof k, "%.4g", r->k);
                fmt_num(a, sizeof a, r->train_before, "%.4f");
                fmt_num(c, sizeof c, r->train_after, "%.4f");
                snprintf(tl, sizeof tl, "%s->%s", a, c);
                fmt_num(a, sizeof a, r->val_before, "%.4f");
                fmt_num(c, sizeof c, r->val_after, "%.4f");
                snprintf(vl, sizeof vl, "%s->%s", a, c);
            }
            if (r->phases & TRAIN_PH_MATCH) {
                snprintf(wdl, sizeof wdl, "%llu-%llu-%llu", (unsigned long long)r->mw,
                         (unsigned long long)r->md, (unsigned long long)r->ml);
                fmt_num(a, sizeof a, r->elo, "%+.0f");
                fmt_num(c, sizeof c, r->elo_lo, "%+.0f");
                fmt_num(d, sizeof d, r->elo_hi, "%+.0f");
                snprintf(elo, sizeof elo, "%s [%s, %s]", a, c, d);
            }
            if (r->ladder) {
                fmt_num(a, sizeof a, r->lelo, "%+.0f");
                fmt_num(c, sizeof c, r->lelo_lo, "%+.0f");
                fmt_num(d, sizeof d, r->lelo_hi, "%+.0f");
                snprintf(lad, sizeof lad, "%s [%s, %s] (%llu-%llu-%llu)", a, c, d,
                         (unsigned long long)r->lw, (unsigned long long)r->ld,
                         (unsigned long long)r->ll);
            }
        }
        const char *prom = g == 0                          ? "yes"
                           : !(r->phases & TRAIN_PH_MATCH) ? "..."
                           : r->promoted                   ? "yes"
                                                           : "no";
        char chs[24];
        fmt_num(chs, sizeof chs, chain[g], "%+.0f");
        sb_printf(b, "%-4d %-4d %6llu %8s %9llu %9s %-17s %-17s %-12s %-24s %-4s %6s %s\n", g,
                  r->best_after, (unsigned long long)r->games, gph,
                  (unsigned long long)r->positions, k, tl, vl, wdl, elo, prom, chs, lad);
    }
    if (secs > 0)
        sb_printf(b, "self-play: %.0f games in %.0f s, %.0f games per hour\n", games, secs,
                  games / secs * 3600);
    sb_printf(b, "chain: the gating Elo summed along the promotions (gen 0 = 0); ladder: "
                 "a match of the promoted generation against generation 0\n");
}

/* Axis range over the finite values, widened to whole ticks; never empty. */
static void range_of(const double *v, int n, double *lo, double *hi, double *tick) {
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) {
            if (v[i] < *lo) *lo = v[i];
            if (v[i] > *hi) *hi = v[i];
        }
    if (!isfinite(*lo)) *lo = 0, *hi = 1;
    if (*hi - *lo < 1e-9) *lo -= 0.5, *hi += 0.5;
    /* a 1-2-5 step giving about five ticks */
    double raw = (*hi - *lo) / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
    *tick = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
    *lo = floor(*lo / *tick) * *tick;
    *hi = ceil(*hi / *tick) * *tick;
}

typedef struct panel {
    double x0, y0, w, h;       /* pixels */
    double gmax, lo, hi, tick; /* data ranges, tick step */
} panel_t;

static double px(const panel_t *p, double g) {
    return p->x0 + p->w * (g + 0.5) / (p->gmax + 1); /* half a generation of margin */
}
static double py(const panel_t *p, double v) {
    return p->y0 + p->h - p->h * (v - p->lo) / (p->hi - p->lo);
}

static void svg_axes(sbuf_t *b, const panel_t *p, const char *title, const char *ylabel) {
    sb_printf(b,
              "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' "
              "stroke='#444'/>\n",
              p->x0, p->y0, p->w, p->h);
    sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='15'>%s</text>\n",
              p->x0 + p->w / 2, p->y0 - 12, title);
    sb_printf(b,
              "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12' "
              "transform='rotate(-90 %.1f %.1f)'>%s</text>\n",
              p->x0 - 48, p->y0 + p->h / 2, p->x0 - 48, p->y0 + p->h / 2, ylabel);
    sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12'>generation</text>\n",
              p->x0 + p->w / 2, p->y0 + p->h + 34);
    for (double v = p->lo; v <= p->hi + 0.5 * p->tick; v += p->tick) {
        sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='end' font-size='11'>%.4g</text>\n",
                  p->x0 - 5, py(p, v) + 4, v);
        sb_printf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n", p->x0,
                  py(p, v), p->x0 + p->w, py(p, v));
    }
    int step = p->gmax > 20 ? (int)(p->gmax / 10) : 1;
    for (int g = 0; g <= (int)p->gmax; g += step)
        sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='11'>%d</text>\n",
                  px(p, g), p->y0 + p->h + 16, g);
}

/* Elo of each promoted generation chained through its gating matches (gen 0 = 0): the
 * sum of the gains along the line of promotions; NaN for the others. */
static void chain_elo(const train_state_t *s, double *chain) {
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        chain[g] = g == 0 ? 0
                   : (r->phases & TRAIN_PH_MATCH) && r->promoted && r->best_before < g
                       ? chain[r->best_before] + r->elo
                       : NAN;
    }
}

static void report_svg(const train_state_t *s, sbuf_t *b) {
    int n = s->ngen;
    double *e = malloc(4 * (size_t)n * sizeof *e), *lv = malloc(2 * (size_t)n * sizeof *lv);
    double *ch = malloc((size_t)n * sizeof *ch);
    if (!e || !lv || !ch) {
        free(e);
        free(lv);
        free(ch);
        b->over = 1;
        return;
    }
    chain_elo(s, ch);
    for (int g = 0; g < n; g++) {
        const train_gen_t *r = &s->gen[g];
        int on = g == 0 || r->ladder;
        e[4 * g] = g == 0 ? 0 : on ? r->lelo : NAN;
        e[4 * g + 1] = g == 0 ? 0 : on && isfinite(r->lelo_lo) ? r->lelo_lo : NAN;
        e[4 * g + 2] = g == 0 ? 0 : on && isfinite(r->lelo_hi) ? r->lelo_hi : NAN;
        e[4 * g + 3] = ch[g];
        int tuned = g > 0 && (r->phases & TRAIN_PH_TUNE);
        lv[2 * g] = tuned ? r->val_before : NAN;
        lv[2 * g + 1] = tuned ? r->val_after : NAN;
    }
    panel_t a = {70, 50, 380, 300, n > 1 ? n - 1 : 1, 0, 0, 1};
    panel_t c = {560, 50, 380, 300, n > 1 ? n - 1 : 1, 0, 0, 1};
    range_of(e, 4 * n, &a.lo, &a.hi, &a.tick);
    range_of(lv, 2 * n, &c.lo, &c.hi, &c.tick);
    sb_printf(b, "<svg xmlns='http://www.w3.org/2000/svg' width='980' height='440' "
                 "font-family='sans-serif'>\n<rect width='980' height='440' fill='white'/>\n");
    svg_axes(b, &a, "Elo ladder (95% intervals)", "Elo");
    svg_axes(b, &c, "validation loss of the tuner", "loss");
    /* chained gating Elo: dashed grey line */
    sb_printf(b, "<polyline fill='none' stroke='#888' stroke-width='1.5' "
                 "stroke-dasharray='5,4' points='");
    for (int g = 0; g < n; g++)
        if (isfinite(e[4 * g + 3])) sb_printf(b, "%.1f,%.1f ", px(&a, g), py(&a, e[4 * g + 3]));
    sb_printf(b, "'/>\n");
    /* ladder against generation 0: error bars, line, points */
    /* a perfect score has an infinite Elo: drawn hollow at the top edge */
    sb_printf(b, "<polyline fill='none' stroke='#1f6fb4' stroke-width='2' points='");
    for (int g = 0; g < n; g++)
        if (!isnan(e[4 * g]))
            sb_printf(b, "%.1f,%.1f ", px(&a, g),
                      py(&a, isfinite(e[4 * g]) ? e[4 * g]
                             : e[4 * g] > 0     ? a.hi
                                                : a.lo));
    sb_printf(b, "'/>\n");
    for (int g = 0; g < n; g++) {
        if (isinf(e[4 * g])) {
            sb_printf(b,
                      "<circle cx='%.1f' cy='%.1f' r='4' fill='white' stroke='#1f6fb4' "
                      "stroke-width='2'><title>gen %d: %sinf (perfect score)</title></circle>\n",
                      px(&a, g), py(&a, e[4 * g] > 0 ? a.hi : a.lo), g, e[4 * g] > 0 ? "+" : "-");
            continue;
        }
        if (!isfinite(e[4 * g])) continue;
        double lo = isfinite(e[4 * g + 1]) ? e[4 * g + 1] : a.lo;
        double hi = isfinite(e[4 * g + 2]) ? e[4 * g + 2] : a.hi; /* an infinite end */
        sb_printf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1f6fb4'/>\n",
                  px(&a, g), py(&a, lo), px(&a, g), py(&a, hi));
        sb_printf(b,
                  "<circle cx='%.1f' cy='%.1f' r='4' fill='#1f6fb4'><title>gen %d: %+.0f"
                  "</title></circle>\n",
                  px(&a, g), py(&a, e[4 * g]), g, e[4 * g]);
    }
    sb_printf(b,
              "<text x='%.1f' y='410' font-size='12' fill='#1f6fb4'>&#9679; promoted "
              "generation vs generation 0 (hollow: perfect score)</text>\n<text "
              "x='%.1f' y='426' font-size='12' "
              "fill='#888'>- - gating Elo chained along the promotions</text>\n",
              a.x0, a.x0);
    /* validation loss: best weights before tuning (grey) and the candidate (red) */
    for (int k = 0; k < 2; k++) {
        const char *col = k ? "#c0392b" : "#999";
        for (int g = 0; g < n; g++)
            if (isfinite(lv[2 * g + k]))
                sb_printf(b, "<circle cx='%.1f' cy='%.1f' r='4' fill='%s'/>\n", px(&c, g),
                          py(&c, lv[2 * g + k]), col);
    }
    sb_printf(b,
              "<text x='%.1f' y='410' font-size='12' fill='#999'>&#9679; best weights "
              "before tuning</text>\n<text x='%.1f' y='426' font-size='12' "
              "fill='#c0392b'>&#9679; tuned candidate</text>\n</svg>\n",
              c.x0, c.x0);
    free(e);
    free(lv);
    free(ch);
}

int train_report(const char *dir, const train_state_t *s, FILE *out, char *err, size_t errcap) {
    size_t cap = 65536 + (size_t)s->ngen * 1024;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    sbuf_t b = {buf, 0, cap, 0};
    report_table(s, &b);
    int rc = b.over ? -1 : write_atomic(dir, "report.txt", buf, b.n, err, errcap);
    if (!rc && out) fputs(buf, out);
    if (!rc) {
        b = (sbuf_t){buf, 0, cap, 0};
        report_svg(s, &b);
        rc = b.over ? -1 : write_atomic(dir, "ladder.svg", buf, b.n, err, errcap);
    }
    if (rc && b.over) snprintf(err, errcap, "report too large");
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ the loop */

/* Every setting that decides the games and the weights (not threads, not the number
 * of generations), with the start weights' hash. */
static uint64_t fingerprint(const train_opts_t *o, uint64_t start_hash) {
    char t[1024];
    const tune_run_opts_t *u = &o->tune;
    int n =
        snprintf(t, sizeof t,
                 "game %d variant %d plies %d games %d playouts %d openings %d match %d "
                 "sprt %d %.6g %.6g %.6g %.6g gate %d ladder %d window %d seed %llu "
                 "start %016llx target %d %.6g policy %d loss %d epochs %d batch %d lr %.6g "
                 "l2 %.6g patience %d val %.6g fitk %d min %ld",
                 o->rules.game, o->rules.variant, o->rules.max_plies, o->games, o->playouts,
                 o->openings, o->match_games, o->sprt, o->sprt_params.elo0, o->sprt_params.elo1,
                 o->sprt_params.alpha, o->sprt_params.beta, o->gate, o->ladder_games, o->window,
                 (unsigned long long)o->seed, (unsigned long long)start_hash, u->data.target,
                 u->data.mix, u->data.policy, u->fit.loss, u->fit.epochs, u->fit.batch, u->fit.lr,
                 u->fit.l2, u->fit.patience, u->val_frac, u->fit_k, u->min_positions);
    /* added later: only when set, so that older runs keep their fingerprint */
    if (o->policy_gens > 0 && n > 0 && (size_t)n < sizeof t)
        n += snprintf(t + n, sizeof t - (size_t)n, " pgens %d", o->policy_gens);
    return fnv1a(t, n > 0 && (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

/* Waits for every rank without spinning: the waiting ranks leave the cores to rank 0's
 * OpenMP threads (an MPI_Barrier busy-polls in most MPI libraries). */
static void gentle_barrier(void) {
    MPI_Request rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    int done = 0;
    for (;;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done) break;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

typedef struct loop {
    const train_opts_t *o;
    train_state_t *s;
    int rank, nranks;
    int threads;  /* per rank, self-play */
    int threads0; /* rank 0 alone: tuning and matches, while the other ranks sleep */
    ev_weights_t start;
} loop_t;

static void say(const loop_t *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const loop_t *L, const char *fmt, ...) {
    if (L->rank != 0 || L->o->quiet) return;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char ts[16];
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    printf("[train %s] ", ts);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* Rank 0: creates the run or reads it back; checks the settings. */
static int open_run(loop_t *L, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_state_t *s = L->s;
    char path[1200], e[512];
    if (o->from) {
        if (ev_weights_load(o->from, o->rules.game, &L->start, e, sizeof e)) {
            snprintf(err, errcap, "--from: %s", e);
            return -1;
        }
    } else if (ev_weights_default(o->rules.game, &L->start)) {
        snprintf(err, errcap, "no default weights for this game");
        return -1;
    }
    uint64_t fp = fingerprint(o, ev_weights_hash(&L->start));
    snprintf(path, sizeof path, "%s/%s", o->dir, STATE_NAME);
    char *text = NULL;
    size_t n = 0;
    if (read_file(path, &text, &n, STATE_MAXLEN) == 0) {
        int rc = train_state_parse(text, n, s, e, sizeof e);
        free(text);
        if (rc) {
            snprintf(err, errcap, "%s: %s", path, e);
            return -1;
        }
        if (s->fingerprint != fp) {
            snprintf(err, errcap,
                     "%s was started with other settings (or other --from weights); use "
                     "the same options to resume, or a new --run directory",
                     o->dir);
            return -1;
        }
        say(L, "resuming %s: %d generation(s) after generation 0 on record", o->dir, s->ngen - 1);
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    char g0[1100];
    gen_dir(o->dir, 0, g0, sizeof g0);
    if (mkdir_p(g0, err, errcap)) return -1;
    gen_weights(o->dir, 0, path, sizeof path);
    char prov[EV_PROVENANCE_MAX];
    snprintf(prov, sizeof prov, "generation 0 of %s (from %s)", o->dir,
             o->from ? o->from : "the shipped defaults");
    if (ev_weights_save(path, &L->start, prov, e, sizeof e)) {
        snprintf(err, errcap, "%s", e);
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->fingerprint = fp;
    s->ngen = 1;
    s->gen[0] = (train_gen_t){.phases = TRAIN_PH_ALL,
                              .promoted = 1,
                              .ladder = 1,
                              .val_before = NAN,
                              .val_after = NAN,
                              .train_before = NAN,
                              .train_after = NAN,
                              .elo = NAN,
                              .elo_lo = NAN,
                              .elo_hi = NAN};
    say(L, "new run in %s", o->dir);
    return save_state(o->dir, s, err, errcap);
}

static int phase_tune(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    char wpath[1200], e[512];
    gen_weights(o->dir, r->best_before, wpath, sizeof wpath);
    ev_weights_t best, cand;
    if (ev_weights_load(wpath, o->rules.game, &best, e, sizeof e)) {
        snprintf(err, errcap, "%s", e);
        return -1;
    }
    int first = g - o->window + 1 < 1 ? 1 : g - o->window + 1;
    int nlogs = g - first + 1;
    char(*paths)[1200] = malloc((size_t)nlogs * sizeof *paths);
    const char **logs = malloc((size_t)nlogs * sizeof *logs);
    if (!paths || !logs) {
        free(paths);
        free(logs);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    for (int i = 0; i < nlogs; i++) {
        gen_logs(o->dir, first + i, paths[i], sizeof paths[i]);
        logs[i] = paths[i];
    }
    tune_run_opts_t to = o->tune;
    to.logs = logs;
    to.nlogs = nlogs;
    to.data.game = o->rules.game;
    if (o->policy_gens > 0 && g > o->policy_gens) to.data.policy = 0;
    to.data.threads = to.fit.threads = L->threads0;
    to.fit.seed = gk_seed_mix(o->seed, (uint64_t)g * 3 + 1);
    to.fit.progress = NULL;
    tune_run_report_t rep;
    double t0 = gk_now_s();
    int rc = tune_run(&to, &best, &cand, &rep, e, sizeof e);
    if (rc) {
        snprintf(err, errcap, "generation %d tuning: %s", g, e);
    } else {
        char prov[EV_PROVENANCE_MAX];
        tune_provenance(&to, &rep, prov, sizeof prov);
        gen_weights(o->dir, g, wpath, sizeof wpath);
        if (ev_weights_save(wpath, &cand, prov, e, sizeof e)) {
            snprintf(err, errcap, "%s", e);
            rc = -1;
        }
    }
    free(paths);
    free(logs);
    if (rc) return -1;
    r->positions = rep.train_n;
    r->k = rep.k;
    r->train_before = rep.train_start;
    r->train_after = rep.value.train_after;
    r->val_before = rep.val_start;
    r->val_after = rep.value.val_after;
    r->tune_s = gk_now_s() - t0;
    r->phases |= TRAIN_PH_TUNE;
    say(L,
        "gen %d tuned on %d generation(s) of logs: %zu positions, K %.4g, val loss %.4f -> "
        "%.4f (%.1fs)",
        g, nlogs, rep.train_n, rep.k, rep.val_start, rep.value.val_after, r->tune_s);
    return 0;
}

/* Plays generation a's weights against generation b's; fills W/D/L and Elo. */
static int play_match(loop_t *L, int a, int b, int games, bool sprt, uint64_t seed,
                      match_stats_t *st, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    char wa[1200], wb[1200], sa[1400], sb[1400];
    gen_weights(o->dir, a, wa, sizeof wa);
    gen_weights(o->dir, b, wb, sizeof wb);
    snprintf(sa, sizeof sa, "mcts:playouts=%d,weights=%s", o->playouts, wa);
    snprintf(sb, sizeof sb, "mcts:playouts=%d,weights=%s", o->playouts, wb);
    match_opts_t mo;
    memset(&mo, 0, sizeof mo);
    mo.spec_a = sa;
    mo.spec_b = sb;
    gk_game_by_id(o->rules.game)->setup(&mo.start, &o->rules);
    mo.games = games;
    mo.opening_plies = o->openings;
    mo.seed = seed;
    mo.threads = L->threads0;
    mo.sprt = sprt;
    mo.sprt_params = o->sprt_params;
    return match_run(&mo, st, err, errcap);
}

static int phase_match(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    match_stats_t st;
    char e[512];
    if (play_match(L, g, r->best_before, o->match_games, o->sprt,
                   gk_seed_mix(o->seed, 3 * (uint64_t)g + 2), &st, e, sizeof e)) {
        snprintf(err, errcap, "generation %d match: %s", g, e);
        return -1;
    }
    r->mw = st.w;
    r->md = st.d;
    r->ml = st.l;
    r->elo = st.elo_ok ? st.elo.elo : NAN;
    r->elo_lo = st.elo_ok ? st.elo.lo : NAN;
    r->elo_hi = st.elo_ok ? st.elo.hi : NAN;
    r->match_s = st.wall_s;
    if (o->sprt && st.sprt_state != ELO_SPRT_CONTINUE)
        /* The SPRT can accept H1 after a single 2-0 pair (its variance estimate is then
         * tiny); a promotion also needs the interval above 0. */
        r->promoted = st.sprt_state == ELO_SPRT_H1 && st.elo_ok && st.elo.lo > 0;
    else if (o->gate == TRAIN_GATE_SCORE)
        r->promoted = st.elo_ok && st.elo.score > 0.5;
    else
        r->promoted = st.elo_ok && st.elo.lo > 0;
    r->best_after = r->promoted ? g : r->best_before;
    r->phases |= TRAIN_PH_MATCH;
    if (!r->promoted || o->ladder_games <= 0) r->phases |= TRAIN_PH_LADDER;
    say(L, "gen %d vs gen %d: +%llu =%llu -%llu, Elo %+.1f [%+.1f, %+.1f]%s -> %s (%.0fs)", g,
        r->best_before, (unsigned long long)st.w, (unsigned long long)st.d,
        (unsigned long long)st.l, r->elo, r->elo_lo, r->elo_hi,
        o->sprt ? (st.sprt_state == ELO_SPRT_H1   ? ", SPRT H1"
                   : st.sprt_state == ELO_SPRT_H0 ? ", SPRT H0"
                                                  : ", SPRT undecided")
                : "",
        r->promoted ? "promoted" : "not promoted", st.wall_s);
    char dir[1100], text[512];
    gen_dir(o->dir, g, dir, sizeof dir);
    int n = snprintf(text, sizeof text,
                     "gen %d vs gen %d: %d games of %s, W %llu D %llu L %llu, Elo %.2f "
                     "[%.2f, %.2f], %s\n",
                     g, r->best_before, st.games_finished, "mcts", (unsigned long long)st.w,
                     (unsigned long long)st.d, (unsigned long long)st.l, r->elo, r->elo_lo,
                     r->elo_hi, r->promoted ? "promoted" : "not promoted");
    return write_atomic(dir, "match.txt", text, (size_t)n, err, errcap);
}

static int phase_ladder(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    match_stats_t st;
    char e[512];
    if (play_match(L, g, 0, o->ladder_games, false, gk_seed_mix(o->seed, 3 * (uint64_t)g + 3), &st,
                   e, sizeof e)) {
        snprintf(err, errcap, "generation %d ladder match: %s", g, e);
        return -1;
    }
    r->ladder = 1;
    r->lw = st.w;
    r->ld = st.d;
    r->ll = st.l;
    r->lelo = st.elo_ok ? st.elo.elo : NAN;
    r->lelo_lo = st.elo_ok ? st.elo.lo : NAN;
    r->lelo_hi = st.elo_ok ? st.elo.hi : NAN;
    r->phases |= TRAIN_PH_LADDER;
    say(L, "ladder: gen %d vs gen 0: +%llu =%llu -%llu, Elo %+.1f [%+.1f, %+.1f] (%.0fs)", g,
        (unsigned long long)st.w, (unsigned long long)st.d, (unsigned long long)st.l, r->lelo,
        r->lelo_lo, r->lelo_hi, st.wall_s);
    return 0;
}

enum { STEP_DONE = 0, STEP_SELFPLAY, STEP_TUNE, STEP_MATCH, STEP_LADDER, STEP_ERROR };

/* Rank 0: what comes next; opens a new generation record when the last is finished. */
static int next_step(loop_t *L, int *g) {
    train_state_t *s = L->s;
    train_gen_t *last = &s->gen[s->ngen - 1];
    if (last->phases == TRAIN_PH_ALL) {
        if (s->ngen - 1 >= L->o->generations || s->ngen > TRAIN_MAX_GENERATIONS) return STEP_DONE;
        int best = last->best_after;
        s->gen[s->ngen] = (train_gen_t){.best_before = best,
                                        .best_after = best,
                                        .elo = NAN,
                                        .elo_lo = NAN,
                                        .elo_hi = NAN,
                                        .lelo = NAN,
                                        .lelo_lo = NAN,
                                        .lelo_hi = NAN,
                                        .val_before = NAN,
                                        .val_after = NAN,
                                        .train_before = NAN,
                                        .train_after = NAN};
        s->ngen++;
        last = &s->gen[s->ngen - 1];
    }
    *g = s->ngen - 1;
    if (!(last->phases & TRAIN_PH_SELFPLAY)) return STEP_SELFPLAY;
    if (!(last->phases & TRAIN_PH_TUNE)) return STEP_TUNE;
    if (!(last->phases & TRAIN_PH_MATCH)) return STEP_MATCH;
    return STEP_LADDER;
}

static int phase_selfplay(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    char wpath[1200], logs[1200], e[512];
    gen_weights(o->dir, r->best_before, wpath, sizeof wpath);
    gen_logs(o->dir, g, logs, sizeof logs);
    sp_run_opts_t ro;
    memset(&ro, 0, sizeof ro);
    sp_settings_default(&ro.set, o->rules.game);
    ro.set.rules = o->rules;
    ro.set.seed = gk_seed_mix(o->seed, 3 * (uint64_t)g);
    if (ev_weights_load(wpath, o->rules.game, &ro.set.weights, e, sizeof e)) {
        snprintf(err, errcap, "%s", e);
        return -1;
    }
    ro.set.limits.playouts = (uint64_t)o->playouts;
    ro.set.limits.time_s = 0;
    ro.set.open_kind = o->openings > 0 ? GL_OPEN_RANDOM : GL_OPEN_NONE;
    ro.set.open_plies = o->openings;
    ro.games = (uint64_t)o->games;
    ro.dir = logs;
    ro.games_at_once = L->threads;
    ro.quiet = o->quiet;
    ro.stats = true;
    ro.stop = o->stop;
    ro.out = stdout;
    sp_summary_t sum;
    memset(&sum, 0, sizeof sum);
    say(L,
        "gen %d self-play: %d games, %d playouts, weights of gen %d, %d rank(s) x %d "
        "thread(s)",
        g, o->games, o->playouts, r->best_before, L->nranks, L->threads);
    if (sp_run(&ro, &sum, e, sizeof e)) {
        snprintf(err, errcap, "generation %d self-play: %s", g,
                 e[0] ? e : "failed on another rank");
        return -1;
    }
    if (L->rank != 0) return 0;
    if (!sum.complete) {
        snprintf(err, errcap,
                 "generation %d self-play stopped before the end; rerun the same "
                 "command to resume",
                 g);
        return -1;
    }
    r->games = sum.games_played;
    r->selfplay_s = sum.seconds;
    r->phases |= TRAIN_PH_SELFPLAY;
    say(L, "gen %d self-play done: %llu games in %.0fs (%.0f games/hour)", g,
        (unsigned long long)sum.games_played, sum.seconds,
        sum.seconds > 0 ? sum.games_played / sum.seconds * 3600 : 0);
    return 0;
}

int train_run(const train_opts_t *o, char *err, size_t errcap) {
    loop_t L;
    memset(&L, 0, sizeof L);
    L.o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &L.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &L.nranks);
    L.threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    if (L.threads < 1) L.threads = 1;
    /* Rank 0's phases get the cores of every rank on its node: the others sleep. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    L.threads0 = o->threads0 > 0 ? o->threads0 : L.nranks * L.threads;
    if (o->threads0 <= 0 && online > 0 && L.threads0 > online) L.threads0 = (int)online;
    if (L.threads0 < L.threads) L.threads0 = L.threads;
    err[0] = 0;
    if (o->generations < 1 || o->generations > TRAIN_MAX_GENERATIONS || o->games < 1 ||
        o->playouts < 1 || o->match_games < 2 || o->match_games % 2 || o->window < 1 ||
        o->ladder_games < 0 || o->ladder_games % 2) {
        snprintf(err, errcap,
                 "bad settings: generations 1..%d, games >= 1, playouts >= 1, "
                 "even match and ladder games, window >= 1",
                 TRAIN_MAX_GENERATIONS);
        return -1;
    }
    if (strchr(o->dir, ',') || strchr(o->dir, '=')) {
        snprintf(err, errcap,
                 "--run: the directory name may not contain ',' or '=' (it goes "
                 "into player specs)");
        return -1;
    }
    /* Rank 0 owns the state; the others follow its broadcast steps. */
    train_state_t *s = NULL;
    int rc = 0;
    if (L.rank == 0) {
        s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(err, errcap, "out of memory");
            rc = -1;
        } else {
            L.s = s;
            if (mkdir_p(o->dir, err, errcap) || open_run(&L, err, errcap)) rc = -1;
        }
    }
    for (;;) {
        int msg[2] = {STEP_ERROR, 0};
        if (L.rank == 0 && rc == 0) {
            if (o->stop && *o->stop) {
                snprintf(err, errcap, "stopped by a signal; rerun the same command to resume");
                rc = -1;
            } else {
                msg[0] = next_step(&L, &msg[1]);
                char d[1100];
                gen_dir(o->dir, msg[1], d, sizeof d);
                if (msg[0] != STEP_DONE && mkdir_p(d, err, errcap)) rc = -1;
            }
            if (rc) msg[0] = STEP_ERROR;
        }
        MPI_Bcast(msg, 2, MPI_INT, 0, MPI_COMM_WORLD);
        if (msg[0] == STEP_DONE || msg[0] == STEP_ERROR) {
            if (msg[0] == STEP_ERROR && L.rank != 0) {
                snprintf(err, errcap, "rank 0 failed");
            }
            rc = msg[0] == STEP_ERROR ? -1 : 0;
            break;
        }
        int g = msg[1], step_rc = 0;
        if (msg[0] == STEP_SELFPLAY) {
            /* every rank plays; non-zero ranks need the best generation's number */
            int best = L.rank == 0 ? s->gen[g].best_before : 0;
            MPI_Bcast(&best, 1, MPI_INT, 0, MPI_COMM_WORLD);
            train_state_t *mine = s;
            if (L.rank != 0) {
                /* a minimal view of the state for phase_selfplay */
                mine = calloc(1, sizeof *mine);
                if (!mine) {
                    step_rc = -1;
                } else {
                    mine->ngen = g + 1;
                    mine->gen[g].best_before = best;
                    L.s = mine;
                }
            }
            if (!step_rc) step_rc = phase_selfplay(&L, g, err, errcap);
            if (L.rank != 0) {
                free(mine);
                L.s = NULL;
            }
            int any = step_rc ? 1 : 0, all = 0;
            MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (all && !step_rc) {
                step_rc = -1;
                if (L.rank == 0)
                    snprintf(err, errcap,
                             "generation %d self-play failed on "
                             "another rank",
                             g);
            }
        } else if (L.rank == 0) {
            if (msg[0] == STEP_TUNE)
                step_rc = phase_tune(&L, g, err, errcap);
            else if (msg[0] == STEP_MATCH)
                step_rc = phase_match(&L, g, err, errcap);
            else
                step_rc = phase_ladder(&L, g, err, errcap);
            gentle_barrier();
        } else {
            gentle_barrier();
        }
        if (L.rank == 0) {
            if (step_rc) {
                rc = -1;
            } else {
                char e[512];
                if (save_state(o->dir, s, err, errcap) ||
                    train_report(o->dir, s, NULL, e, sizeof e))
                    rc = -1;
            }
        }
        /* loop: rank 0 broadcasts STEP_ERROR next when rc != 0 */
    }
    if (L.rank == 0 && rc == 0) {
        char e[512];
        printf("\n");
        if (train_report(o->dir, s, stdout, e, sizeof e)) {
            snprintf(err, errcap, "%s", e);
            rc = -1;
        } else {
            printf("plot: %s/ladder.svg\nreport: %s/report.txt\nbest weights: "
                   "%s/gen-%03d/weights.txt\n",
                   o->dir, o->dir, o->dir, s->gen[s->ngen - 1].best_after);
        }
    }
    free(s);
    return rc;
}
