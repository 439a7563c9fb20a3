/*
 * selfplay/book_expand.c -- bx_run(): one MPI rank of `gounki book expand` (see
 * book_expand.h).
 *
 * Per batch rank 0 plans the jobs (positions and the actions each search leaves out),
 * hands them to the ranks through the farm (book_farm.h: leases to ranks with idle
 * threads, its own threads too, a lost rank's jobs leased again), then journals, applies
 * and backs up, and starts the next batch.  Only rank 0 touches files.  The results
 * depend on the jobs only, never on who searched them.
 */
#define _GNU_SOURCE /* F_OFD_SETLK: locks owned by the open file, not the process */
#include "book_expand.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "book_farm.h"
#include "../common/progress.h"
#include "../common/files.h"
#include "../common/status.h"
#include "../eval/eval.h"

enum { CMD_DONE = -2, CMD_EXHAUSTED = -3 };
enum { R_KIND, R_MOVE, R_VALUE, R_PLAYOUTS, R_PRIOR, R_N };
_Static_assert(R_N == BF_ROW, "a result row is the farm's row");
#define JHEADER 40

typedef struct job {
    gk_pos_t pos;
    size_t excl; /* offset in the exclusion pool */
    int nexcl;
} job_t;

typedef struct xstate {
    const bx_opts_t *o;
    int rank, ranks;
    gk_rules_t rules;
    ev_weights_t w;
    /* rank 0 */
    bk_book_t book;
    bool have_book;
    char jpath[4200];
    int jfd;
    uint64_t jend;
    double last_ckpt, t0;
    gk_progress_t prog;
    uint64_t start_nodes;
    /* the batch */
    bk_batch_t bt;
    int *leaf_job, *child_job; /* per entry: job index, -1 none, -2 "full" without a search */
    job_t *job;
    int njobs, cap;
    gk_action_t *pool;
    size_t npool, pool_cap;
    gl_buf_t rec;
    bf_job_t *bj; /* the jobs as the farm takes them */
    int bjcap;
    int64_t *res; /* BF_ROW per job */
    bf_farm_t *farm;
    mcts_t **m;
    mcts_result_t **mr;
} xstate_t;

/* ------------------------------------------------------------------ the journal (rank 0) */

static int lock_fd(int fd) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
#ifdef F_OFD_SETLK
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0) return 0;
    if (errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP) return 0;
    if (errno != EINVAL) return -1;
#endif
    if (fcntl(fd, F_SETLK, &fl) == 0 || errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP)
        return 0;
    return -1;
}

static int write_all(int fd, const void *p, size_t n, uint64_t off) {
    const uint8_t *b = p;
    while (n) {
        ssize_t k = pwrite(fd, b, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* The journal holds only its header: the book file is the whole state. */
static int journal_reset(xstate_t *x, char *err, size_t errcap) {
    gl_buf_t h = {0};
    int rc = bk_journal_header(&x->book, &h, err, errcap);
    if (!rc && (ftruncate(x->jfd, 0) || write_all(x->jfd, h.p, h.n, 0) || fsync(x->jfd)))
        rc = gk_fail(err, errcap, GK_E_IO, "%s: %s", x->jpath, strerror(errno));
    if (!rc) x->jend = h.n;
    gl_buf_free(&h);
    return rc;
}

static int checkpoint(xstate_t *x, char *err, size_t errcap) {
    GK_FORWARD_IF(bk_save(&x->book, x->o->book, err, errcap));
    x->last_ckpt = gk_now_s();
    return journal_reset(x, err, errcap);
}

static int journal_open(xstate_t *x, uint64_t *replayed, char *err, size_t errcap) {
    *replayed = 0;
    x->jfd = open(x->jpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (x->jfd < 0) return gk_fail(err, errcap, GK_E_IO, "%s: %s", x->jpath, strerror(errno));
    if (lock_fd(x->jfd))
        return gk_fail(err, errcap, GK_E_LOCKED,
                       "%s: locked: another `book expand` is running on %s", x->jpath, x->o->book);
    struct stat st;
    if (fstat(x->jfd, &st))
        return gk_fail(err, errcap, GK_E_IO, "%s: %s", x->jpath, strerror(errno));
    if (st.st_size < JHEADER) { /* new, or its header was being written */
        int rc = journal_reset(x, err, errcap);
        if (!rc && gk_fsync_dir_of(x->jpath))
            rc = gk_fail(err, errcap, GK_E_IO, "%s: fsync of the directory: %s", x->jpath,
                         strerror(errno));
        return rc;
    }
    if ((uint64_t)st.st_size > (1ull << 31))
        return gk_fail(err, errcap, GK_E_FORMAT, "%s: larger than 2 GiB", x->jpath);
    size_t n = (size_t)st.st_size;
    uint8_t *data = malloc(n);
    if (!data) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(x->jfd, data + got, n - got, (off_t)got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    bk_journal_t j;
    int rc = got == n ? bk_journal_parse(data, n, x->jpath, &j, err, errcap)
                      : gk_fail(err, errcap, GK_E_IO, "%s: short read", x->jpath);
    free(data);
    if (rc) return rc;
    uint32_t applied = 0;
    rc = bk_journal_replay(&x->book, &j, &applied, err, errcap);
    if (rc) {
        gk_err_wrap(err, errcap, rc, "%s: ", x->jpath);
        size_t l = strlen(err);
        snprintf(err + l, errcap > l ? errcap - l : 0, "; remove the journal to expand %s as it is",
                 x->o->book);
        bk_journal_free(&j);
        return rc;
    }
    *replayed = applied;
    x->jend = j.valid_end;
    bool torn = j.torn;
    bk_journal_free(&j);
    if (torn && (ftruncate(x->jfd, (off_t)x->jend) || fsync(x->jfd)))
        return gk_fail(err, errcap, GK_E_IO, "%s: cutting the torn tail: %s", x->jpath,
                       strerror(errno));
    return bk_update(&x->book, err, errcap);
}

/* ------------------------------------------------------------------ planning (rank 0) */

static int room(xstate_t *x, int entries) {
    if (entries <= x->cap) return 0;
    int cap = x->cap ? x->cap : 16;
    while (cap < entries) cap *= 2;
    bk_jentry_t *e = realloc(x->bt.e, (size_t)cap * sizeof *e);
    if (e) x->bt.e = e;
    int *lj = realloc(x->leaf_job, (size_t)cap * sizeof *lj);
    if (lj) x->leaf_job = lj;
    int *cj = realloc(x->child_job, (size_t)cap * sizeof *cj);
    if (cj) x->child_job = cj;
    job_t *jb = realloc(x->job, 2 * (size_t)cap * sizeof *jb);
    if (jb) x->job = jb;
    if (!e || !lj || !cj || !jb) return -1;
    x->cap = cap;
    return 0;
}

/* A job searching pos without the actions excl[0..n) and `extra` (when not 0); *full when
 * no legal action is left (then no job is made).  Returns the job index or -2 (full). */
static int add_job(xstate_t *x, const gk_pos_t *pos, const bk_node_t *nd, gk_action_t extra,
                   char *err, size_t errcap) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(pos, list), left = 0;
    size_t need = (size_t)(nd ? nd->nedges : 0) + 1;
    if (x->npool + need > x->pool_cap) {
        size_t cap = x->pool_cap ? x->pool_cap : 4096;
        while (cap < x->npool + need) cap *= 2;
        gk_action_t *p = realloc(x->pool, cap * sizeof *p);
        if (!p) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        x->pool = p;
        x->pool_cap = cap;
    }
    job_t *j = &x->job[x->njobs];
    j->pos = *pos;
    j->excl = x->npool;
    j->nexcl = 0;
    for (int i = 0; i < n; i++) {
        bool out = list[i] == extra && extra != GK_NO_ACTION;
        if (nd && !out) out = bk_edge_find(&x->book, (uint32_t)(nd - x->book.node), list[i]);
        if (out)
            x->pool[x->npool + (size_t)j->nexcl++] = list[i];
        else
            left++;
    }
    if (!left) return -2;
    x->npool += (size_t)j->nexcl;
    return x->njobs++;
}

/* Chooses the next batch.  Returns the number of entries, 0 when the book is done (*why:
 * CMD_DONE or CMD_EXHAUSTED), or a negative status. */
static int plan(xstate_t *x, int *why, char *err, size_t errcap) {
    const bx_opts_t *o = x->o;
    bk_book_t *b = &x->book;
    x->njobs = 0;
    x->npool = 0;
    x->bt.n = 0;
    x->bt.number = b->batches + 1;
    int K = o->batch;
    if (room(x, K)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    uint32_t *un = malloc((size_t)K * sizeof *un);
    bk_target_t *tg = malloc((size_t)K * sizeof *tg);
    if (!un || !tg) {
        free(un);
        free(tg);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    int rc = 0;
    int nu = bk_unsearched(b, un, K);
    if (nu > 0) {
        for (int i = 0; i < nu && rc >= 0; i++) {
            const bk_node_t *nd = &b->node[un[i]];
            gk_pos_t pos;
            rc = bk_position(b, un[i], &pos, err, errcap);
            if (rc) break;
            bk_jentry_t *e = &x->bt.e[x->bt.n];
            memset(e, 0, sizeof *e);
            e->kind = BK_J_EVAL;
            e->node = (bk_id_t){nd->key, nd->check, nd->turn, nd->in_turn, nd->stm};
            x->child_job[x->bt.n] = -1;
            rc = x->leaf_job[x->bt.n] = add_job(x, &pos, nd, GK_NO_ACTION, err, errcap);
            if (rc < -2) break;
            rc = 0;
            x->bt.n++;
        }
    } else {
        /* Always `batch` targets, whatever is left to go: so a run extended to more nodes
         * later goes through the very batches of a run made to that size at once. */
        bool done = b->nnodes >= o->nodes;
        int nt = done ? 0 : bk_select(b, &o->sel, tg, K);
        *why = done ? CMD_DONE : CMD_EXHAUSTED;
        for (int i = 0; i < nt && rc >= 0; i++) {
            const bk_node_t *nd = &b->node[tg[i].node];
            gk_action_t mv = nd->leaf.move;
            gk_pos_t pos, q;
            rc = bk_position(b, tg[i].node, &pos, err, errcap);
            if (rc) break;
            gk_action_t list[GK_MAX_ACTIONS];
            int nl = gk_gen(&pos, list), ok = 0;
            for (int a = 0; a < nl && !ok; a++) ok = list[a] == mv;
            if (!ok) {
                rc = gk_fail(err, errcap, GK_E_FORMAT,
                             "the book is inconsistent: the leaf move of node %016" PRIx64
                             " is not legal",
                             nd->key);
                break;
            }
            q = pos;
            gk_play(&q, mv);
            if (!gk_over(&q) && gk_gen(&q, list) == 0) gk_apply_no_move(&q);
            bk_jentry_t *e = &x->bt.e[x->bt.n];
            memset(e, 0, sizeof *e);
            e->kind = BK_J_EXPAND;
            e->node = (bk_id_t){nd->key, nd->check, nd->turn, nd->in_turn, nd->stm};
            e->move = mv;
            e->move_prior = nd->leaf.prior;
            x->child_job[x->bt.n] = -1;
            if (gk_over(&q)) {
                int r = gk_result_for(&q, pos.stm);
                e->term = r > 0 ? BK_TERM_WIN : r < 0 ? BK_TERM_LOSS : BK_TERM_DRAW;
            } else {
                e->term = BK_CHILD_NODE;
                bk_id_of(&q, &e->child);
                bool known = bk_find(b, e->child.key, e->child.check) >= 0;
                for (uint32_t j = 0; j < x->bt.n && !known; j++)
                    known = x->bt.e[j].kind == BK_J_EXPAND && x->bt.e[j].has_child_leaf &&
                            x->bt.e[j].child.key == e->child.key &&
                            x->bt.e[j].child.check == e->child.check;
                if (!known) {
                    e->has_child_leaf = 1;
                    int cj = add_job(x, &q, NULL, GK_NO_ACTION, err, errcap);
                    if (cj < -2) {
                        rc = cj;
                        break;
                    }
                    x->child_job[x->bt.n] = cj;
                }
            }
            rc = x->leaf_job[x->bt.n] = add_job(x, &pos, nd, mv, err, errcap);
            if (rc < -2) break;
            rc = 0;
            x->bt.n++;
        }
    }
    free(un);
    free(tg);
    return rc < 0 ? rc : (int)x->bt.n;
}

/* ------------------------------------------------------------------ searching (every rank) */

/* The farm's search (bf_search_fn): one single-threaded search of the job on thread t;
 * a row of zeros (kind 0) when it fails, which rank 0 reports. */
static void search_job(void *ctx, int t, const bf_job_t *j, int64_t *r) {
    xstate_t *x = ctx;
    const gk_action_t *excl = j->excl;
    memset(r, 0, R_N * sizeof *r);
    if (!x->m || !x->m[t] || !x->mr[t]) return;
    mcts_result_t *res = x->mr[t];
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = x->o->time_s > 0 ? 0 : x->o->playouts;
    lim.time_s = x->o->time_s;
    lim.early_stop = false;
    if (mcts_search_excluding(x->m[t], &j->pos, NULL, &lim, excl, j->nexcl, res) != 0) return;
    for (int i = 0; i < res->nchildren; i++) {
        const mcts_child_t *c = &res->children[i];
        bool out = false;
        for (int k = 0; k < j->nexcl && !out; k++) out = excl[k] == c->action;
        if (out) continue;
        float v = c->proof == MCTS_PROVEN_WIN    ? 1.0f
                  : c->proof == MCTS_PROVEN_LOSS ? -1.0f
                  : c->proof == MCTS_PROVEN_DRAW ? 0.0f
                                                 : 2.0f * c->value - 1.0f;
        if (v > 1.0f) v = 1.0f;
        if (v < -1.0f) v = -1.0f;
        uint32_t bits;
        memcpy(&bits, &v, 4);
        double pr = (double)c->prior * 65535.0 + 0.5;
        r[R_KIND] = BK_LEAF_VALUE;
        r[R_MOVE] = c->action;
        r[R_VALUE] = bits;
        r[R_PLAYOUTS] = (int64_t)res->playouts;
        r[R_PRIOR] = pr < 1 ? 1 : pr > 65535 ? 65535 : (int64_t)pr;
        return;
    }
    r[R_KIND] = BK_LEAF_FULL;
}

/* ------------------------------------------------------------------ applying (rank 0) */

static void leaf_from(const int64_t *r, bk_leaf_t *l) {
    memset(l, 0, sizeof *l);
    l->kind = (uint8_t)r[R_KIND];
    if (l->kind != BK_LEAF_VALUE) return;
    uint32_t bits = (uint32_t)r[R_VALUE];
    memcpy(&l->value, &bits, 4);
    l->move = (gk_action_t)r[R_MOVE];
    l->budget = (uint32_t)(r[R_PLAYOUTS] > UINT32_MAX ? UINT32_MAX : r[R_PLAYOUTS]);
    l->prior = (uint16_t)r[R_PRIOR];
}

static int apply(xstate_t *x, bx_summary_t *sum, char *err, size_t errcap) {
    for (int j = 0; j < x->njobs; j++) {
        const int64_t *r = &x->res[(size_t)j * R_N];
        if (r[R_KIND] != BK_LEAF_VALUE && r[R_KIND] != BK_LEAF_FULL)
            return gk_fail(err, errcap, GK_E_INVALID, "a search of batch %" PRIu64 " failed",
                           x->bt.number);
        sum->playouts += (uint64_t)r[R_PLAYOUTS];
    }
    sum->searches += (uint64_t)x->njobs;
    for (uint32_t i = 0; i < x->bt.n; i++) {
        bk_jentry_t *e = &x->bt.e[i];
        int lj = x->leaf_job[i], cj = x->child_job[i];
        if (lj == -2) {
            memset(&e->leaf, 0, sizeof e->leaf);
            e->leaf.kind = BK_LEAF_FULL;
        } else {
            leaf_from(&x->res[(size_t)lj * R_N], &e->leaf);
        }
        if (e->has_child_leaf) {
            if (cj == -2) {
                memset(&e->child_leaf, 0, sizeof e->child_leaf);
                e->child_leaf.kind = BK_LEAF_FULL;
            } else {
                leaf_from(&x->res[(size_t)cj * R_N], &e->child_leaf);
            }
        }
    }
    x->rec.n = 0;
    GK_FORWARD_IF(bk_batch_encode(&x->bt, &x->rec, err, errcap));
    if (write_all(x->jfd, x->rec.p, x->rec.n, x->jend) || fsync(x->jfd))
        return gk_fail(err, errcap, GK_E_IO, "%s: %s", x->jpath, strerror(errno));
    x->jend += x->rec.n;
    uint64_t rsum = 0;
    for (int k = 7; k >= 0; k--) rsum = rsum << 8 | x->rec.p[x->rec.n - 8 + (size_t)k];
    GK_FORWARD_IF(bk_batch_apply(&x->book, &x->bt, rsum, err, errcap));
    sum->batches++;
    return bk_update(&x->book, err, errcap);
}

static void fmt_dur(double s, char *buf, size_t cap) {
    if (!(s >= 0) || s > 1e8)
        snprintf(buf, cap, "?");
    else if (s >= 3600)
        snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)(fmod(s, 3600) / 60));
    else if (s >= 60)
        snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, cap, "%.0fs", s);
}

static void progress(xstate_t *x, bool final) {
    const bx_opts_t *o = x->o;
    if (!final && !gk_progress_due(&x->prog)) return;
    double now = gk_now_s();
    const bk_book_t *b = &x->book;
    double el = now - x->t0;
    uint64_t added = b->nnodes - x->start_nodes;
    double rate = el > 0 ? (double)added / el * 3600.0 : 0.0;
    char eta[32] = "-";
    if (rate > 0 && o->nodes > b->nnodes)
        fmt_dur((double)(o->nodes - b->nnodes) / rate * 3600.0, eta, sizeof eta);
    float rv = b->node[b->root].value;
    gk_progress_line(&x->prog,
                     "book expand: %u/%" PRIu64
                     " nodes  %.0f nodes/h  root %+.3f  deepest %u actions"
                     "  batch %" PRIu64 "  ETA %s",
                     b->nnodes, o->nodes, rate, isnan(rv) ? 0.0 : (double)rv,
                     b->node[b->root].below, b->batches, eta);
}

/* ------------------------------------------------------------------ the run */

static void free_state(xstate_t *x) {
    if (x->have_book) bk_free(&x->book);
    if (x->jfd > 0) close(x->jfd);
    free(x->bt.e);
    free(x->leaf_job);
    free(x->child_job);
    free(x->job);
    free(x->pool);
    gl_buf_free(&x->rec);
    free(x->bj);
    free(x->res);
    int T = x->o->threads > 0 ? x->o->threads : 1;
    for (int t = 0; x->m && t < T; t++) mcts_free(x->m[t]);
    for (int t = 0; x->mr && t < T; t++) free(x->mr[t]);
    free(x->m);
    free(x->mr);
}

/* Rank 0: load the book, replay the journal, stamp the settings.  Returns a status. */
static int start_rank0(xstate_t *x, bx_summary_t *sum, char *err, size_t errcap) {
    const bx_opts_t *o = x->o;
    GK_FORWARD_IF(bk_load(o->book, NULL, &x->book, err, errcap));
    x->have_book = true;
    x->rules = x->book.rules;
    GK_RETURN_IF(snprintf(x->jpath, sizeof x->jpath, "%s%s", o->book, BK_JOURNAL_EXT) >=
                     (int)sizeof x->jpath,
                 err, errcap, GK_E_INVALID, "%s: path too long", o->book);
    GK_FORWARD_IF(journal_open(x, &sum->replayed, err, errcap));
    return 0;
}

/* Every rank: the weights and one search per thread.  Returns 0 or 1 (bad, reason in e2). */
static int make_searches(xstate_t *x, char *e2, size_t cap) {
    const bx_opts_t *o = x->o;
    if (o->weights ? ev_weights_load(o->weights, x->rules.game, &x->w, e2, cap)
                   : ev_weights_default(x->rules.game, &x->w)) {
        if (!o->weights) snprintf(e2, cap, "no default weights for this game");
        return 1;
    }
    int T = o->threads > 0 ? o->threads : 1;
    x->m = calloc((size_t)T, sizeof *x->m);
    x->mr = calloc((size_t)T, sizeof *x->mr);
    if (!x->m || !x->mr) return snprintf(e2, cap, "out of memory"), 1;
    mcts_params_t mp = o->mcts;
    mp.threads = 1;
    mp.reuse = false;
    mp.seed = o->seed;
    for (int t = 0; t < T; t++) {
        x->m[t] = mcts_new(&mp, &x->w);
        x->mr[t] = malloc(sizeof *x->mr[t]);
        if (!x->m[t] || !x->mr[t]) return snprintf(e2, cap, "cannot make the search"), 1;
    }
    return 0;
}

/* Rank 0: the settings lines are part of the book: written now, before the first batch. */
static void stamp(xstate_t *x, bx_summary_t *sum) {
    const bx_opts_t *o = x->o;
    bk_book_t *b = &x->book;
    int T = o->threads > 0 ? o->threads : 1;
    bk_prov_set(b, "expand_engine", "gounki %s", GK_VERSION);
    bk_prov_set(b, "expand_budget", "%s%.9g per search", o->time_s > 0 ? "seconds " : "playouts ",
                o->time_s > 0 ? o->time_s : (double)o->playouts);
    bk_prov_set(b, "expand_seed", "%" PRIu64, o->seed);
    bk_prov_set(b, "expand_priority", "alpha %.9g policy_cost %.9g width %d batch %d", o->sel.alpha,
                o->sel.policy_cost, o->sel.width, o->batch);
    bk_prov_set(b, "expand_weights", "%016" PRIx64, ev_weights_hash(&x->w));
    bk_prov_set(b, "expand_search",
                "c_puct %.9g fpu %.9g temperature %.9g playout_depth %d solver %d tree_mb %d",
                (double)o->mcts.c_puct, (double)o->mcts.fpu, (double)o->mcts.temperature,
                o->mcts.playout_depth, o->mcts.solver, o->mcts.tree_mb);
    x->t0 = x->last_ckpt = gk_now_s();
    gk_progress_init(&x->prog, o->quiet ? NULL : o->out, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    x->start_nodes = sum->nodes_before = x->book.nnodes;
    if (!o->quiet && o->out)
        fprintf(o->out,
                "book expand: %s: %u nodes, %" PRIu64 " batches (%" PRIu64
                " replayed from the journal); target %" PRIu64 " nodes on %d rank%s x %d "
                "thread%s\n",
                o->book, x->book.nnodes, x->book.batches, sum->replayed, o->nodes, x->ranks,
                x->ranks > 1 ? "s" : "", T, T > 1 ? "s" : "");
}

/* Rank 0: the jobs of the planned batch as the farm takes them, and rows for the results. */
static int farm_jobs(xstate_t *x, char *err, size_t errcap) {
    if (x->njobs > x->bjcap) {
        bf_job_t *bj = realloc(x->bj, (size_t)x->njobs * sizeof *bj);
        if (bj) x->bj = bj;
        int64_t *r = realloc(x->res, (size_t)x->njobs * R_N * sizeof *r);
        if (r) x->res = r;
        if (!bj || !r) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        x->bjcap = x->njobs;
    }
    for (int i = 0; i < x->njobs; i++)
        x->bj[i] = (bf_job_t){x->job[i].pos, x->pool + x->job[i].excl, x->job[i].nexcl};
    return 0;
}

/* Rank 0: batch after batch until the book is done, a stop, or a failure. */
static int expand0(xstate_t *x, bx_summary_t *sum, int *why, char *err, size_t errcap) {
    const bx_opts_t *o = x->o;
    bool stopping = false;
    for (;;) {
        if (stopping || (o->stop && *o->stop)) {
            *why = BF_STOPPED;
            return 0;
        }
        int cause = 0, ne = plan(x, &cause, err, errcap);
        if (ne < 0) return ne;
        if (ne == 0) {
            *why = cause == CMD_DONE ? BF_DONE : BF_EXHAUSTED;
            return 0;
        }
        GK_FORWARD_IF(farm_jobs(x, err, errcap));
        GK_FORWARD_IF(
            bf_batch(x->farm, x->bt.number, x->bj, x->njobs, x->res, &stopping, err, errcap));
        GK_FORWARD_IF(apply(x, sum, err, errcap));
        if (gk_now_s() - x->last_ckpt >= o->checkpoint_s) GK_FORWARD_IF(checkpoint(x, err, errcap));
        progress(x, false);
    }
}

static int run0(xstate_t *x, bx_summary_t *sum, char *err, size_t errcap) {
    int rc = start_rank0(x, sum, err, errcap);
    int64_t hdr[4] = {rc, x->rules.game, x->rules.variant, x->rules.turn_limit};
    char e2[512] = "";
    int src = bf_start0(x->farm, hdr, e2, sizeof e2);
    if (rc) return rc;
    if (src) return gk_fail(err, errcap, src, "%s", e2);
    bf_set_game(x->farm, gk_game_by_id(x->rules.game), x->rules.turn_limit);
    int bad = make_searches(x, e2, sizeof e2), anybad = 0;
    GK_FORWARD_IF(bf_ready(x->farm, bad, &anybad, err, errcap));
    int why = BF_FAILED;
    if (anybad) {
        rc = gk_fail(err, errcap, GK_E_INVALID, "%s",
                     bad ? e2 : "another rank could not load the weights or make its search");
    } else {
        stamp(x, sum);
        rc = expand0(x, sum, &why, err, errcap);
        if (rc) why = BF_FAILED;
    }
    int erc = bf_end(x->farm, why, e2, sizeof e2);
    sum->lost = bf_lost(x->farm);
    if (rc) return rc;
    if (erc) return gk_fail(err, errcap, erc, "%s", e2);
    GK_FORWARD_IF(checkpoint(x, err, errcap));
    sum->stopped = why == BF_STOPPED;
    sum->exhausted = why == BF_EXHAUSTED;
    if (!sum->stopped) unlink(x->jpath); /* the book holds everything */
    progress(x, true);
    gk_progress_end(&x->prog);
    return 0;
}

/* Another rank: searches what rank 0 leases.  When rank 0 fails, returns GK_E_INVALID with
 * err empty (rank 0 tells why). */
static int run_r(xstate_t *x, bx_summary_t *sum, char *err, size_t errcap) {
    int64_t hdr[4];
    GK_FORWARD_IF(bf_wait_start(x->farm, hdr, err, errcap));
    if (hdr[0]) return GK_E_INVALID;
    x->rules = (gk_rules_t){(uint8_t)hdr[1], (uint8_t)hdr[2], (uint16_t)hdr[3]};
    const gk_game_t *g = gk_game_by_id(x->rules.game);
    if (!g) return gk_fail(err, errcap, GK_E_MPI, "rank %d: a bad start message", x->rank);
    bf_set_game(x->farm, g, x->rules.turn_limit);
    char e2[512] = "";
    GK_FORWARD_IF(bf_send_ready(x->farm, make_searches(x, e2, sizeof e2), err, errcap));
    int code = 0;
    GK_FORWARD_IF(bf_serve(x->farm, &code, err, errcap));
    sum->stopped = code == BF_STOPPED;
    sum->exhausted = code == BF_EXHAUSTED;
    return code == BF_FAILED ? GK_E_INVALID : 0;
}

int bx_run(const bx_opts_t *o, bx_summary_t *sum, char *err, size_t errcap) {
    memset(sum, 0, sizeof *sum);
    sum->root_value = NAN;
    if (err && errcap) err[0] = 0;
    GK_RETURN_IF(!o->book || o->batch < 1 || o->batch > BK_MAX_BATCH / 2 ||
                     (!o->playouts && !(o->time_s > 0)),
                 err, errcap, GK_E_ARG, "bad expansion settings");
    int inited = 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS || !inited)
        return gk_fail(err, errcap, GK_E_MPI, "MPI is not initialised (the caller starts it)");
    xstate_t x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.jfd = -1;
    int rc = 0;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &x.rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &x.ranks) != MPI_SUCCESS)
        rc = gk_fail(err, errcap, GK_E_MPI, "MPI_COMM_WORLD is not usable");
    sum->rank = x.rank;
    sum->ranks = x.ranks;
    bf_opts_t fo = {.threads = o->threads > 0 ? o->threads : 1,
                    .peer_seconds = o->peer_seconds,
                    .quiet = o->quiet,
                    .out = o->out,
                    .stop = o->stop,
                    .search = search_job,
                    .ctx = &x};
    if (!rc) rc = bf_open(&x.farm, &fo, x.rank, x.ranks, err, errcap);
    double t0 = gk_now_s();
    if (!rc) rc = x.rank == 0 ? run0(&x, sum, err, errcap) : run_r(&x, sum, err, errcap);
    sum->seconds = gk_now_s() - t0;
    if (x.have_book) {
        sum->nodes = x.book.nnodes;
        sum->root_value = x.book.node[x.book.root].value;
    }
    sum->abandoned = x.farm && bf_abandoned(x.farm);
    bf_close(x.farm);
    free_state(&x);
    return rc;
}
