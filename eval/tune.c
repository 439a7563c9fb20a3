/* eval/tune.c -- sample sets, losses and the Adam fits of eval/tune.h. */
#include "tune.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../games/game.h"
#include "../common/clock.h"

/* ---------------------------------------------------------------- sparse rows */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return GK_E_NOMEM;
    *p = q;
    *cap = c;
    return 0;
}

static void rows_init(tune_rows_t *r) {
    memset(r, 0, sizeof *r);
}

static void rows_free(tune_rows_t *r) {
    free(r->off);
    free(r->idx);
    free(r->val);
    rows_init(r);
}

/* Makes room for one more row of up to k entries; off[] always has n + 1 slots. */
static int rows_reserve(tune_rows_t *r, size_t k) {
    size_t cap = r->cap;
    if (grow((void **)&r->off, &cap, r->n + 2, sizeof *r->off)) return GK_E_NOMEM;
    r->cap = cap;
    if (r->n == 0) r->off[0] = 0;
    size_t nc = r->nnz_cap;
    if (grow((void **)&r->idx, &nc, r->nnz + k, sizeof *r->idx)) return GK_E_NOMEM;
    nc = r->nnz_cap;
    if (grow((void **)&r->val, &nc, r->nnz + k, sizeof *r->val)) return GK_E_NOMEM;
    r->nnz_cap = nc;
    return 0;
}

static int rows_push_dense(tune_rows_t *r, const float *f, int nfeat) {
    if (rows_reserve(r, (size_t)nfeat)) return GK_E_NOMEM;
    for (int j = 0; j < nfeat; j++)
        if (f[j] != 0.0f) {
            r->idx[r->nnz] = (uint16_t)j;
            r->val[r->nnz] = f[j];
            r->nnz++;
        }
    r->off[++r->n] = r->nnz;
    return 0;
}

static int rows_push_row(tune_rows_t *r, const tune_rows_t *src, size_t i) {
    size_t a = src->off[i], b = src->off[i + 1];
    if (rows_reserve(r, b - a)) return GK_E_NOMEM;
    memcpy(r->idx + r->nnz, src->idx + a, (b - a) * sizeof *r->idx);
    memcpy(r->val + r->nnz, src->val + a, (b - a) * sizeof *r->val);
    r->nnz += b - a;
    r->off[++r->n] = r->nnz;
    return 0;
}

static double row_dot(const tune_rows_t *r, size_t i, const double *w) {
    double s = 0;
    for (size_t e = r->off[i]; e < r->off[i + 1]; e++) s += w[r->idx[e]] * r->val[e];
    return s;
}

static void row_axpy(const tune_rows_t *r, size_t i, double a, double *g) {
    for (size_t e = r->off[i]; e < r->off[i + 1]; e++) g[r->idx[e]] += a * r->val[e];
}

/* ---------------------------------------------------------------- value sets */

void tune_vset_init(tune_vset_t *s, int nfeat) {
    memset(s, 0, sizeof *s);
    s->nfeat = nfeat;
    rows_init(&s->rows);
}

void tune_vset_free(tune_vset_t *s) {
    rows_free(&s->rows);
    free(s->target);
    free(s->hash);
    free(s->game);
    int nfeat = s->nfeat;
    tune_vset_init(s, nfeat);
}

static int vset_push(tune_vset_t *s, float target, uint64_t hash, uint64_t game) {
    size_t i = s->rows.n - 1; /* the row just pushed */
    size_t c = s->cap;
    if (grow((void **)&s->target, &c, i + 1, sizeof *s->target)) return GK_E_NOMEM;
    c = s->cap;
    if (grow((void **)&s->hash, &c, i + 1, sizeof *s->hash)) return GK_E_NOMEM;
    c = s->cap;
    if (grow((void **)&s->game, &c, i + 1, sizeof *s->game)) return GK_E_NOMEM;
    s->cap = c;
    s->target[i] = target;
    s->hash[i] = hash;
    s->game[i] = game;
    return 0;
}

int tune_vset_add(tune_vset_t *s, const float *f, float target, uint64_t hash, uint64_t game) {
    if (!(target >= 0.0f && target <= 1.0f)) return GK_E_INVALID;
    if (rows_push_dense(&s->rows, f, s->nfeat)) return GK_E_NOMEM;
    if (vset_push(s, target, hash, game)) {
        s->rows.n--;
        s->rows.nnz = s->rows.off[s->rows.n];
        return GK_E_NOMEM;
    }
    return 0;
}

static int vset_copy_sample(tune_vset_t *d, const tune_vset_t *s, size_t i, float target) {
    if (rows_push_row(&d->rows, &s->rows, i)) return GK_E_NOMEM;
    if (vset_push(d, target, s->hash[i], s->game[i])) {
        d->rows.n--;
        d->rows.nnz = d->rows.off[d->rows.n];
        return GK_E_NOMEM;
    }
    return 0;
}

int tune_vset_append(tune_vset_t *dst, const tune_vset_t *src) {
    if (dst->nfeat != src->nfeat) return GK_E_INVALID;
    for (size_t i = 0; i < src->rows.n; i++)
        if (vset_copy_sample(dst, src, i, src->target[i])) return GK_E_NOMEM;
    return 0;
}

typedef struct {
    uint64_t h;
    size_t i;
} hkey_t;

static int hkey_cmp(const void *a, const void *b) {
    const hkey_t *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

long tune_vset_dedupe(tune_vset_t *s) {
    size_t n = s->rows.n;
    if (n == 0) return 0;
    hkey_t *k = malloc(n * sizeof *k);
    float *mean = malloc(n * sizeof *mean);
    unsigned char *keep = calloc(n, 1);
    if (!k || !mean || !keep) {
        free(k);
        free(mean);
        free(keep);
        return GK_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) k[i] = (hkey_t){s->hash[i], i};
    qsort(k, n, sizeof *k, hkey_cmp);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        double sum = 0;
        while (b < n && k[b].h == k[a].h) sum += s->target[k[b++].i];
        keep[k[a].i] = 1; /* the lowest index: sorted by index within a hash */
        mean[k[a].i] = (float)(sum / (double)(b - a));
        a = b;
    }
    tune_vset_t out;
    tune_vset_init(&out, s->nfeat);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (keep[i]) rc = vset_copy_sample(&out, s, i, mean[i]);
    free(k);
    free(mean);
    free(keep);
    if (rc) {
        tune_vset_free(&out);
        return rc;
    }
    long dropped = (long)(n - out.rows.n);
    tune_vset_free(s);
    *s = out;
    return dropped;
}

static int in_val(uint64_t game, double frac, uint64_t seed) {
    uint64_t st = seed ^ (game * 0xD1B54A32D192ED03ull);
    uint64_t h = gk_splitmix64(&st);
    return (double)(h >> 11) * 0x1.0p-53 < frac;
}

int tune_vset_split(const tune_vset_t *s, double frac, uint64_t seed, tune_vset_t *train,
                    tune_vset_t *val) {
    tune_vset_init(train, s->nfeat);
    tune_vset_init(val, s->nfeat);
    for (size_t i = 0; i < s->rows.n; i++) {
        tune_vset_t *d = in_val(s->game[i], frac, seed) ? val : train;
        if (vset_copy_sample(d, s, i, s->target[i])) {
            tune_vset_free(train);
            tune_vset_free(val);
            return GK_E_NOMEM;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- policy sets */

void tune_pset_init(tune_pset_t *s, int nfeat) {
    memset(s, 0, sizeof *s);
    s->nfeat = nfeat;
    rows_init(&s->cand);
}

void tune_pset_free(tune_pset_t *s) {
    free(s->cand_off);
    rows_free(&s->cand);
    free(s->ctarget);
    free(s->game);
    int nfeat = s->nfeat;
    tune_pset_init(s, nfeat);
}

static int pset_reserve(tune_pset_t *s, size_t m) {
    size_t cap = s->cap;
    if (grow((void **)&s->cand_off, &cap, s->n + 2, sizeof *s->cand_off)) return GK_E_NOMEM;
    cap = s->cap;
    if (grow((void **)&s->game, &cap, s->n + 2, sizeof *s->game)) return GK_E_NOMEM;
    s->cap = cap;
    if (s->n == 0) s->cand_off[0] = 0;
    size_t c = s->ccap;
    if (grow((void **)&s->ctarget, &c, s->cand.n + m, sizeof *s->ctarget)) return GK_E_NOMEM;
    s->ccap = c;
    return 0;
}

int tune_pset_add(tune_pset_t *s, int m, const float *g, const float *t, uint64_t game) {
    if (m <= 0) return GK_E_INVALID;
    double sum = 0;
    for (int a = 0; a < m; a++) {
        if (!(t[a] >= 0.0f) || !isfinite(t[a])) return GK_E_INVALID;
        sum += t[a];
    }
    if (!(sum > 0)) return GK_E_INVALID;
    if (pset_reserve(s, (size_t)m)) return GK_E_NOMEM;
    size_t c0 = s->cand.n, z0 = s->cand.nnz;
    for (int a = 0; a < m; a++) {
        if (rows_push_dense(&s->cand, g + (size_t)a * (size_t)s->nfeat, s->nfeat)) {
            s->cand.n = c0;
            s->cand.nnz = z0;
            return GK_E_NOMEM;
        }
        s->ctarget[c0 + (size_t)a] = (float)(t[a] / sum);
    }
    s->game[s->n] = game;
    s->cand_off[++s->n] = s->cand.n;
    return 0;
}

static int pset_copy_sample(tune_pset_t *d, const tune_pset_t *s, size_t i) {
    size_t a = s->cand_off[i], b = s->cand_off[i + 1];
    if (pset_reserve(d, b - a)) return GK_E_NOMEM;
    size_t c0 = d->cand.n, z0 = d->cand.nnz;
    for (size_t c = a; c < b; c++) {
        if (rows_push_row(&d->cand, &s->cand, c)) {
            d->cand.n = c0;
            d->cand.nnz = z0;
            return GK_E_NOMEM;
        }
        d->ctarget[c0 + (c - a)] = s->ctarget[c];
    }
    d->game[d->n] = s->game[i];
    d->cand_off[++d->n] = d->cand.n;
    return 0;
}

int tune_pset_append(tune_pset_t *dst, const tune_pset_t *src) {
    if (dst->nfeat != src->nfeat) return GK_E_INVALID;
    for (size_t i = 0; i < src->n; i++)
        if (pset_copy_sample(dst, src, i)) return GK_E_NOMEM;
    return 0;
}

int tune_pset_split(const tune_pset_t *s, double frac, uint64_t seed, tune_pset_t *train,
                    tune_pset_t *val) {
    tune_pset_init(train, s->nfeat);
    tune_pset_init(val, s->nfeat);
    for (size_t i = 0; i < s->n; i++) {
        tune_pset_t *d = in_val(s->game[i], frac, seed) ? val : train;
        if (pset_copy_sample(d, s, i)) {
            tune_pset_free(train);
            tune_pset_free(val);
            return GK_E_NOMEM;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- shared machinery */

void tune_opts_default(tune_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->loss = TUNE_XENT;
    o->epochs = 40;
    o->batch = 4096;
    o->lr = 0.01;
    o->l2 = 1e-4;
    o->patience = 3;
    o->threads = 0;
    o->seed = 1;
    o->temperature = 1.0;
}

const char *tune_strerror(int code) {
    switch (code) {
    case GK_OK: return "ok";
    case GK_E_NOMEM: return "out of memory";
    case GK_E_INVALID: return "invalid argument";
    case GK_E_EMPTY: return "no training samples";
    default: return "unknown error";
    }
}

static void set_threads(int threads) {
    if (threads > 0) omp_set_num_threads(threads);
}

/* Chunk c of nchunk over [0, n). */
static size_t chunk_lo(size_t n, int c, int nchunk) {
    return n * (size_t)c / (size_t)nchunk;
}

/* Chunks for a sum over n samples: enough to feed the threads, few enough that the
 * per-chunk dense buffers cost little; depends on n only, never on the thread count. */
static int chunks_for(size_t n) {
    size_t c = n / 256;
    if (c < 1) c = 1;
    if (c > TUNE_CHUNKS) c = TUNE_CHUNKS;
    return (int)c;
}

/* Threads pay off only above about a millisecond of work per parallel region: below it
 * the fork and join, and on a busy machine a descheduled thread, cost more than they
 * save (a value mini-batch of 4096 samples is ~0.1 ms).  The partition into chunks does
 * not depend on this choice, so the results do not either. */
#define TUNE_PAR_WORK 1.0e6
static int worth(double work) {
    return work >= TUNE_PAR_WORK;
}

static inline double sigmoid(double z) {
    return 1.0 / (1.0 + exp(-z));
}

/* log(1 + e^z) without overflow */
static inline double softplus(double z) {
    return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* Value loss and dL/dz at z = k * dot for target t. */
static inline double vloss(double z, double t, int loss, double *dz) {
    double p = sigmoid(z);
    if (loss == TUNE_MSE) {
        if (dz) *dz = 2.0 * (p - t) * p * (1.0 - p);
        return (p - t) * (p - t);
    }
    if (dz) *dz = p - t;
    return softplus(z) - t * z;
}

typedef struct adam {
    int n;
    double *m, *v;
    long t;
} adam_t;

static int adam_init(adam_t *a, int n) {
    a->n = n;
    a->t = 0;
    a->m = calloc((size_t)n, sizeof *a->m);
    a->v = calloc((size_t)n, sizeof *a->v);
    if (!a->m || !a->v) {
        free(a->m);
        free(a->v);
        return GK_E_NOMEM;
    }
    return 0;
}

static void adam_free(adam_t *a) {
    free(a->m);
    free(a->v);
}

/* The buffers both fits need: the sample order, per-chunk gradient sums, the gradient,
 * the start weights (L2 pulls toward them), the best weights seen and Adam's moments. */
typedef struct fit_ws {
    size_t *perm;
    double *cbuf, *g, *start, *best;
    adam_t ad;
    double best_loss; /* the loss that early stopping watches, at `best` */
    int since;        /* epochs since it last improved */
} fit_ws_t;

static void fit_ws_free(fit_ws_t *f) {
    adam_free(&f->ad);
    free(f->perm);
    free(f->cbuf);
    free(f->g);
    free(f->start);
    free(f->best);
}

/* Allocates for n samples of nf features starting from weights w; 0 or GK_E_NOMEM. */
static int fit_ws_init(fit_ws_t *f, size_t n, int nf, const double *w) {
    memset(f, 0, sizeof *f);
    f->perm = malloc(n * sizeof *f->perm);
    f->cbuf = malloc((size_t)TUNE_CHUNKS * (size_t)nf * sizeof *f->cbuf);
    f->g = malloc((size_t)nf * sizeof *f->g);
    f->start = malloc((size_t)nf * sizeof *f->start);
    f->best = malloc((size_t)nf * sizeof *f->best);
    if (!f->perm || !f->cbuf || !f->g || !f->start || !f->best || adam_init(&f->ad, nf)) {
        fit_ws_free(f);
        return GK_E_NOMEM;
    }
    memcpy(f->start, w, (size_t)nf * sizeof *w);
    memcpy(f->best, w, (size_t)nf * sizeof *w);
    return 0;
}

/* End of epoch ep: reports progress and keeps the weights w with the lowest watched loss
 * (validation loss, or training loss without a validation set).  Returns 1 when
 * o->patience epochs have passed without an improvement. */
static int fit_epoch_end(fit_ws_t *f, const tune_opts_t *o, tune_report_t *rep, int ep,
                         double train_loss, double vl, int has_val, double t0, const double *w,
                         int nf) {
    rep->epochs_run = ep;
    if (o->progress) o->progress(o->ctx, ep, train_loss, has_val ? vl : NAN, gk_now_s() - t0);
    if (vl < f->best_loss) {
        f->best_loss = vl;
        rep->best_epoch = ep;
        memcpy(f->best, w, (size_t)nf * sizeof *w);
        f->since = 0;
        return 0;
    }
    return ++f->since >= o->patience;
}

/* One Adam step of size `step` on w along gradient g. */
static void adam_step(adam_t *a, double *w, const double *g, double step) {
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    a->t++;
    double c1 = 1.0 - pow(b1, (double)a->t), c2 = 1.0 - pow(b2, (double)a->t);
    for (int j = 0; j < a->n; j++) {
        a->m[j] = b1 * a->m[j] + (1 - b1) * g[j];
        a->v[j] = b2 * a->v[j] + (1 - b2) * g[j] * g[j];
        if (g[j] == 0.0 && a->m[j] == 0.0) continue;
        w[j] -= step * (a->m[j] / c1) / (sqrt(a->v[j] / c2) + eps);
    }
}

static void shuffle(size_t *perm, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) perm[i] = i;
    uint64_t st = seed;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(gk_splitmix64(&st) % i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

/* ---------------------------------------------------------------- value fit */

double tune_value_loss(const tune_vset_t *s, const double *w, double k, int loss, int threads) {
    size_t n = s->rows.n;
    if (n == 0) return NAN;
    double part[TUNE_CHUNKS];
    set_threads(threads);
    int par = worth((double)s->rows.nnz + 20.0 * (double)n);
#pragma omp parallel for schedule(static) if (par)
    for (int c = 0; c < TUNE_CHUNKS; c++) {
        double acc = 0;
        for (size_t i = chunk_lo(n, c, TUNE_CHUNKS); i < chunk_lo(n, c + 1, TUNE_CHUNKS); i++)
            acc += vloss(k * row_dot(&s->rows, i, w), s->target[i], loss, NULL);
        part[c] = acc;
    }
    double sum = 0;
    for (int c = 0; c < TUNE_CHUNKS; c++) sum += part[c];
    return sum / (double)n;
}

static double loss_at_k(const double *dots, const float *t, size_t n, double k, int loss) {
    double part[TUNE_CHUNKS];
    int par = worth(20.0 * (double)n);
#pragma omp parallel for schedule(static) if (par)
    for (int c = 0; c < TUNE_CHUNKS; c++) {
        double acc = 0;
        for (size_t i = chunk_lo(n, c, TUNE_CHUNKS); i < chunk_lo(n, c + 1, TUNE_CHUNKS); i++)
            acc += vloss(k * dots[i], t[i], loss, NULL);
        part[c] = acc;
    }
    double sum = 0;
    for (int c = 0; c < TUNE_CHUNKS; c++) sum += part[c];
    return sum / (double)n;
}

double tune_fit_k(const tune_vset_t *s, const double *w, int loss, int threads, double fallback) {
    size_t n = s->rows.n;
    if (n == 0) return fallback;
    double *dots = malloc(n * sizeof *dots);
    if (!dots) return fallback;
    set_threads(threads);
    double mag = 0;
    size_t nz = 0;
    int par = worth((double)s->rows.nnz);
#pragma omp parallel for schedule(static) if (par)
    for (size_t i = 0; i < n; i++) dots[i] = row_dot(&s->rows, i, w);
    for (size_t i = 0; i < n; i++)
        if (dots[i] != 0) {
            mag += fabs(dots[i]);
            nz++;
        }
    if (nz == 0) {
        free(dots);
        return fallback;
    }
    mag /= (double)nz;
    /* Golden section on ln k over four decades either side of "one unit of typical
     * evaluation = one logit"; both losses are unimodal in k along that line. */
    double lo = log(1e-4 / mag), hi = log(1e4 / mag);
    const double r = 0.6180339887498949;
    double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
    double f1 = loss_at_k(dots, s->target, n, exp(x1), loss);
    double f2 = loss_at_k(dots, s->target, n, exp(x2), loss);
    for (int it = 0; it < 100 && hi - lo > 1e-7; it++) {
        if (f1 <= f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - r * (hi - lo);
            f1 = loss_at_k(dots, s->target, n, exp(x1), loss);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + r * (hi - lo);
            f2 = loss_at_k(dots, s->target, n, exp(x2), loss);
        }
    }
    free(dots);
    return exp(0.5 * (lo + hi));
}

/* Gradient (w.r.t. u = k w, i.e. dL/dz * f) of the data loss summed over perm[b0, b1),
 * into g (zeroed here); returns the summed data loss. */
static double value_grad(const tune_vset_t *s, const size_t *perm, size_t b0, size_t b1,
                         const double *w, double k, int loss, double *cbuf, double *g) {
    int nf = s->nfeat;
    size_t len = b1 - b0;
    int nch = chunks_for(len);
    double part[TUNE_CHUNKS];
    int par = worth(2.0 * (double)len * (double)s->rows.nnz / (double)s->rows.n);
#pragma omp parallel for schedule(static) if (par)
    for (int c = 0; c < nch; c++) {
        double *gc = cbuf + (size_t)c * (size_t)nf;
        memset(gc, 0, (size_t)nf * sizeof *gc);
        double acc = 0;
        for (size_t q = b0 + chunk_lo(len, c, nch); q < b0 + chunk_lo(len, c + 1, nch); q++) {
            size_t i = perm[q];
            double dz;
            acc += vloss(k * row_dot(&s->rows, i, w), s->target[i], loss, &dz);
            row_axpy(&s->rows, i, dz, gc);
        }
        part[c] = acc;
    }
    memset(g, 0, (size_t)nf * sizeof *g);
    double sum = 0;
    for (int c = 0; c < nch; c++) {
        const double *gc = cbuf + (size_t)c * (size_t)nf;
        for (int j = 0; j < nf; j++) g[j] += gc[j];
        sum += part[c];
    }
    return sum;
}

int tune_fit_value(const tune_vset_t *train, const tune_vset_t *val, double *w, double k,
                   const tune_opts_t *o, tune_report_t *rep) {
    size_t n = train->rows.n;
    int nf = train->nfeat;
    memset(rep, 0, sizeof *rep);
    rep->k = k;
    if (n == 0) return GK_E_EMPTY;
    if (!(k > 0) || o->batch < 1 || o->epochs < 0 || (val && val->nfeat != nf)) return GK_E_INVALID;
    int has_val = val && val->rows.n > 0;
    set_threads(o->threads);

    fit_ws_t ws;
    if (fit_ws_init(&ws, n, nf, w)) return GK_E_NOMEM;
    size_t *perm = ws.perm;
    double *cbuf = ws.cbuf, *g = ws.g, *w0 = ws.start, *best = ws.best;
    adam_t *ad = &ws.ad;

    rep->train_before = tune_value_loss(train, w, k, o->loss, o->threads);
    rep->val_before = has_val ? tune_value_loss(val, w, k, o->loss, o->threads) : NAN;
    ws.best_loss = has_val ? rep->val_before : rep->train_before;
    double t0 = gk_now_s();
    size_t processed = 0;

    for (int ep = 1; ep <= o->epochs; ep++) {
        shuffle(perm, n, o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)ep);
        double run = 0;
        for (size_t b0 = 0; b0 < n; b0 += (size_t)o->batch) {
            size_t b1 = b0 + (size_t)o->batch < n ? b0 + (size_t)o->batch : n;
            run += value_grad(train, perm, b0, b1, w, k, o->loss, cbuf, g);
            double inv = 1.0 / (double)(b1 - b0);
            /* gradient in logit units u = k w: data term, then L2 on (u - u0) */
            for (int j = 0; j < nf; j++) g[j] = g[j] * inv + 2.0 * o->l2 * k * (w[j] - w0[j]);
            adam_step(ad, w, g, o->lr / k);
            processed += b1 - b0;
        }
        double train_loss = run / (double)n;
        double vl = has_val ? tune_value_loss(val, w, k, o->loss, o->threads) : train_loss;
        if (fit_epoch_end(&ws, o, rep, ep, train_loss, vl, has_val, t0, w, nf)) break;
    }
    rep->secs = gk_now_s() - t0;
    rep->samples_per_sec = rep->secs > 0 ? (double)processed / rep->secs : 0;
    memcpy(w, best, (size_t)nf * sizeof *w);
    rep->train_after = tune_value_loss(train, w, k, o->loss, o->threads);
    rep->val_after = has_val ? tune_value_loss(val, w, k, o->loss, o->threads) : NAN;

    fit_ws_free(&ws);
    return 0;
}

/* ---------------------------------------------------------------- policy fit */

/* Cross-entropy of sample i; when gc is not NULL adds its gradient w.r.t. the logits'
 * weights (times 1/T folded into the step) into gc. */
static double policy_sample(const tune_pset_t *s, size_t i, const double *v, double invT,
                            double *gc) {
    size_t a = s->cand_off[i], b = s->cand_off[i + 1];
    double zmax = -INFINITY;
    double zs[GK_MAX_ACTIONS];
    double *z = (b - a) <= GK_MAX_ACTIONS ? zs : malloc((b - a) * sizeof *z);
    if (!z) return NAN;
    for (size_t c = a; c < b; c++) {
        z[c - a] = row_dot(&s->cand, c, v) * invT;
        if (z[c - a] > zmax) zmax = z[c - a];
    }
    double den = 0;
    for (size_t c = a; c < b; c++) den += exp(z[c - a] - zmax);
    double lse = zmax + log(den), l = 0;
    for (size_t c = a; c < b; c++) {
        double t = s->ctarget[c];
        if (t > 0) l -= t * (z[c - a] - lse);
        if (gc) row_axpy(&s->cand, c, exp(z[c - a] - lse) - t, gc);
    }
    if (z != zs) free(z);
    return l;
}

double tune_policy_loss(const tune_pset_t *s, const double *v, double temperature, int threads) {
    size_t n = s->n;
    if (n == 0) return NAN;
    double invT = 1.0 / temperature, part[TUNE_CHUNKS];
    set_threads(threads);
    int par = worth((double)s->cand.nnz + 20.0 * (double)s->cand.n);
#pragma omp parallel for schedule(static) if (par)
    for (int c = 0; c < TUNE_CHUNKS; c++) {
        double acc = 0;
        for (size_t i = chunk_lo(n, c, TUNE_CHUNKS); i < chunk_lo(n, c + 1, TUNE_CHUNKS); i++)
            acc += policy_sample(s, i, v, invT, NULL);
        part[c] = acc;
    }
    double sum = 0;
    for (int c = 0; c < TUNE_CHUNKS; c++) sum += part[c];
    return sum / (double)n;
}

int tune_fit_policy(const tune_pset_t *train, const tune_pset_t *val, double *v,
                    const tune_opts_t *o, tune_report_t *rep) {
    size_t n = train->n;
    int nf = train->nfeat;
    memset(rep, 0, sizeof *rep);
    rep->k = 1.0 / o->temperature;
    if (n == 0) return GK_E_EMPTY;
    if (!(o->temperature > 0) || o->batch < 1 || o->epochs < 0 || (val && val->nfeat != nf))
        return GK_E_INVALID;
    int has_val = val && val->n > 0;
    double invT = 1.0 / o->temperature;
    set_threads(o->threads);

    fit_ws_t ws;
    if (fit_ws_init(&ws, n, nf, v)) return GK_E_NOMEM;
    size_t *perm = ws.perm;
    double *cbuf = ws.cbuf, *g = ws.g, *v0 = ws.start, *best = ws.best;
    adam_t *ad = &ws.ad;
    rep->train_before = tune_policy_loss(train, v, o->temperature, o->threads);
    rep->val_before = has_val ? tune_policy_loss(val, v, o->temperature, o->threads) : NAN;
    ws.best_loss = has_val ? rep->val_before : rep->train_before;
    double t0 = gk_now_s();
    size_t processed = 0;

    for (int ep = 1; ep <= o->epochs; ep++) {
        shuffle(perm, n, o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)ep);
        double run = 0;
        for (size_t b0 = 0; b0 < n; b0 += (size_t)o->batch) {
            size_t b1 = b0 + (size_t)o->batch < n ? b0 + (size_t)o->batch : n;
            size_t len = b1 - b0;
            int nch = chunks_for(len);
            double part[TUNE_CHUNKS];
            double per = ((double)train->cand.nnz * 2.0 + 20.0 * (double)train->cand.n) /
                         (double)n; /* work of one sample */
            int par = worth(per * (double)len);
#pragma omp parallel for schedule(static) if (par)
            for (int c = 0; c < nch; c++) {
                double *gc = cbuf + (size_t)c * (size_t)nf;
                memset(gc, 0, (size_t)nf * sizeof *gc);
                double acc = 0;
                for (size_t q = b0 + chunk_lo(len, c, nch); q < b0 + chunk_lo(len, c + 1, nch); q++)
                    acc += policy_sample(train, perm[q], v, invT, gc);
                part[c] = acc;
            }
            memset(g, 0, (size_t)nf * sizeof *g);
            for (int c = 0; c < nch; c++) {
                const double *gc = cbuf + (size_t)c * (size_t)nf;
                for (int j = 0; j < nf; j++) g[j] += gc[j];
                run += part[c];
            }
            double inv = 1.0 / (double)len;
            for (int j = 0; j < nf; j++) g[j] = g[j] * inv + 2.0 * o->l2 * invT * (v[j] - v0[j]);
            adam_step(ad, v, g, o->lr * o->temperature);
            processed += len;
        }
        double train_loss = run / (double)n;
        double vl = has_val ? tune_policy_loss(val, v, o->temperature, o->threads) : train_loss;
        if (fit_epoch_end(&ws, o, rep, ep, train_loss, vl, has_val, t0, v, nf)) break;
    }
    rep->secs = gk_now_s() - t0;
    rep->samples_per_sec = rep->secs > 0 ? (double)processed / rep->secs : 0;
    memcpy(v, best, (size_t)nf * sizeof *v);
    rep->train_after = tune_policy_loss(train, v, o->temperature, o->threads);
    rep->val_after = has_val ? tune_policy_loss(val, v, o->temperature, o->threads) : NAN;

    fit_ws_free(&ws);
    return 0;
}
