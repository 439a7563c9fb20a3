/*
 * selfplay/book_expand.c -- bx_run(): one MPI rank of `gounki book expand` (see
 * book_expand.h).
 *
 * Per batch, all collectives (non-blocking, polled with short sleeps: Open MPI spins in
 * blocking calls, which would take the cores from the searches of other ranks):
 *   1. Iallreduce MAX of the ranks' stop flags;
 *   2. Ibcast from rank 0 of {command or job count, payload bytes};
 *   3. Ibcast of the jobs: position strings and the actions each search must leave out;
 *   4. every rank searches jobs j with j mod ranks == rank, on its threads;
 *   5. Ireduce SUM to rank 0 of the results (5 int64 per job, zero where not searched).
 * Rank 0 then journals, applies and backs up, and starts the next batch.  Only rank 0
 * touches files.  The results depend on the jobs only, never on who searched them.
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
#include "../common/progress.h"
#include "../common/files.h"
#include "../common/status.h"
#include "../eval/eval.h"

enum { CMD_STOP = -1, CMD_DONE = -2, CMD_EXHAUSTED = -3, CMD_FAIL = -4 };
enum { R_KIND, R_MOVE, R_VALUE, R_PLAYOUTS, R_PRIOR, R_N };
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
    gl_buf_t msg, rec;
    int64_t *res, *res_sum;
    mcts_t **m;
    mcts_result_t **mr;
} xstate_t;

static int mpi_fail(char *err, size_t errcap, const char *what, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
    return gk_fail(err, errcap, GK_E_MPI, "MPI: %s: %s", what, msg);
}

/* Waits for a non-blocking collective without spinning on a core. */
static int wait_req(MPI_Request *rq, const char *what, char *err, size_t errcap) {
    struct timespec ts = {0, 200000};
    for (;;) {
        int flag = 0, rc = MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_fail(err, errcap, what, rc);
        if (flag) return 0;
        nanosleep(&ts, NULL);
    }
}

static int bcast(void *buf, int count, MPI_Datatype t, const char *what, char *err, size_t errcap) {
    MPI_Request rq;
    int rc = MPI_Ibcast(buf, count, t, 0, MPI_COMM_WORLD, &rq);
    if (rc != MPI_SUCCESS) return mpi_fail(err, errcap, what, rc);
    return wait_req(&rq, what, err, errcap);
}

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

/* The jobs as bytes: per job the position string and the actions it leaves out. */
static int pack_jobs(xstate_t *x, char *err, size_t errcap) {
    const gk_game_t *g = gk_game_by_id(x->rules.game);
    x->msg.n = 0;
    for (int i = 0; i < x->njobs; i++) {
        const job_t *j = &x->job[i];
        char text[GK_POS_TEXT_MAX];
        int len = g->pos_to_text(&j->pos, text, sizeof text);
        if (len < 0) return gk_fail(err, errcap, GK_E_ARG, "a position has no position string");
        uint8_t h[2] = {(uint8_t)len, (uint8_t)(len >> 8)};
        uint8_t c[2] = {(uint8_t)j->nexcl, (uint8_t)(j->nexcl >> 8)};
        if (gl_buf_reserve(&x->msg, 4 + (size_t)len + 4 * (size_t)j->nexcl))
            return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        memcpy(x->msg.p + x->msg.n, h, 2);
        memcpy(x->msg.p + x->msg.n + 2, text, (size_t)len);
        memcpy(x->msg.p + x->msg.n + 2 + len, c, 2);
        x->msg.n += 4 + (size_t)len;
        for (int k = 0; k < j->nexcl; k++) {
            gk_action_t a = x->pool[j->excl + (size_t)k];
            for (int s = 0; s < 4; s++) x->msg.p[x->msg.n++] = (uint8_t)(a >> (8 * s));
        }
    }
    return 0;
}

static int unpack_jobs(xstate_t *x, int njobs, char *err, size_t errcap) {
    const gk_game_t *g = gk_game_by_id(x->rules.game);
    if (!x->rank) return 0; /* rank 0 has them */
    if (njobs > 2 * x->cap) {
        int want = njobs / 2 + 1;
        if (room(x, want)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    size_t off = 0, n = x->msg.n;
    x->npool = 0;
    for (int i = 0; i < njobs; i++) {
        if (n - off < 2) return gk_fail(err, errcap, GK_E_MPI, "a short job message");
        size_t len = (size_t)x->msg.p[off] | (size_t)x->msg.p[off + 1] << 8;
        if (len >= GK_POS_TEXT_MAX || n - off < 4 + len)
            return gk_fail(err, errcap, GK_E_MPI, "a bad job message");
        char text[GK_POS_TEXT_MAX], e2[256];
        memcpy(text, x->msg.p + off + 2, len);
        text[len] = 0;
        size_t ne = (size_t)x->msg.p[off + 2 + len] | (size_t)x->msg.p[off + 3 + len] << 8;
        off += 4 + len;
        if (ne > GK_MAX_ACTIONS || n - off < 4 * ne)
            return gk_fail(err, errcap, GK_E_MPI, "a bad job message");
        job_t *j = &x->job[i];
        if (g->pos_from_text(&j->pos, text, x->rules.turn_limit, e2, sizeof e2) < 0)
            return gk_fail(err, errcap, GK_E_MPI, "a job's position: %s", e2);
        if (x->npool + ne > x->pool_cap) {
            size_t cap = x->pool_cap ? x->pool_cap : 4096;
            while (cap < x->npool + ne) cap *= 2;
            gk_action_t *p = realloc(x->pool, cap * sizeof *p);
            if (!p) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            x->pool = p;
            x->pool_cap = cap;
        }
        j->excl = x->npool;
        j->nexcl = (int)ne;
        for (size_t k = 0; k < ne; k++, off += 4)
            x->pool[x->npool++] = (gk_action_t)x->msg.p[off] | (gk_action_t)x->msg.p[off + 1] << 8 |
                                  (gk_action_t)x->msg.p[off + 2] << 16 |
                                  (gk_action_t)x->msg.p[off + 3] << 24;
    }
    x->njobs = njobs;
    return off == n ? 0 : gk_fail(err, errcap, GK_E_MPI, "a bad job message");
}

/* ------------------------------------------------------------------ searching (every rank) */

static void search_job(xstate_t *x, int t, const job_t *j, const mcts_limits_t *lim, int64_t *r) {
    const gk_action_t *excl = x->pool + j->excl;
    mcts_result_t *res = x->mr[t];
    memset(r, 0, R_N * sizeof *r);
    if (mcts_search_excluding(x->m[t], &j->pos, NULL, lim, excl, j->nexcl, res) != 0) return;
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

/* Zeroed result rows for njobs jobs. */
static int results_room(xstate_t *x, int njobs, char *err, size_t errcap) {
    size_t need = (size_t)njobs * R_N;
    int64_t *r = realloc(x->res, (need ? need : 1) * sizeof *r);
    if (r) x->res = r;
    int64_t *s = realloc(x->res_sum, (need ? need : 1) * sizeof *s);
    if (s) x->res_sum = s;
    if (!r || !s) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memset(r, 0, need * sizeof *r);
    return 0;
}

static void search_mine(xstate_t *x) {
    int64_t *r = x->res;
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = x->o->time_s > 0 ? 0 : x->o->playouts;
    lim.time_s = x->o->time_s;
    lim.early_stop = false;
    int T = x->o->threads > 0 ? x->o->threads : 1;
    int mine = 0;
    for (int j = x->rank; j < x->njobs; j += x->ranks) mine++;
    if (T > mine) T = mine > 0 ? mine : 1;
#pragma omp parallel for num_threads(T) schedule(dynamic, 1)
    for (int k = 0; k < mine; k++) {
        int j = x->rank + k * x->ranks;
        search_job(x, omp_get_thread_num(), &x->job[j], &lim, &r[(size_t)j * R_N]);
    }
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
        const int64_t *r = &x->res_sum[(size_t)j * R_N];
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
            leaf_from(&x->res_sum[(size_t)lj * R_N], &e->leaf);
        }
        if (e->has_child_leaf) {
            if (cj == -2) {
                memset(&e->child_leaf, 0, sizeof e->child_leaf);
                e->child_leaf.kind = BK_LEAF_FULL;
            } else {
                leaf_from(&x->res_sum[(size_t)cj * R_N], &e->child_leaf);
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
    gl_buf_free(&x->msg);
    gl_buf_free(&x->rec);
    free(x->res);
    free(x->res_sum);
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

static int run(xstate_t *x, bx_summary_t *sum, char *err, size_t errcap) {
    const bx_opts_t *o = x->o;
    int64_t hdr[4] = {0, 0, 0, 0};
    int rc = 0;
    if (x->rank == 0) {
        rc = start_rank0(x, sum, err, errcap);
        hdr[0] = rc;
        hdr[1] = x->rules.game, hdr[2] = x->rules.variant, hdr[3] = x->rules.turn_limit;
    }
    GK_FORWARD_IF(bcast(hdr, 4, MPI_INT64_T, "start", err, errcap));
    if (hdr[0]) return x->rank == 0 ? rc : (int)hdr[0];
    x->rules = (gk_rules_t){(uint8_t)hdr[1], (uint8_t)hdr[2], (uint16_t)hdr[3]};
    /* Every rank: the weights and one search per thread. */
    char e2[512] = "";
    int bad = 0;
    if (o->weights ? ev_weights_load(o->weights, x->rules.game, &x->w, e2, sizeof e2)
                   : ev_weights_default(x->rules.game, &x->w)) {
        bad = 1;
        if (!o->weights) snprintf(e2, sizeof e2, "no default weights for this game");
    }
    int T = o->threads > 0 ? o->threads : 1;
    x->m = calloc((size_t)T, sizeof *x->m);
    x->mr = calloc((size_t)T, sizeof *x->mr);
    if (!x->m || !x->mr) bad = 1, snprintf(e2, sizeof e2, "out of memory");
    mcts_params_t mp = o->mcts;
    mp.threads = 1;
    mp.reuse = false;
    mp.seed = o->seed;
    for (int t = 0; !bad && t < T; t++) {
        x->m[t] = mcts_new(&mp, &x->w);
        x->mr[t] = malloc(sizeof *x->mr[t]);
        if (!x->m[t] || !x->mr[t]) bad = 1, snprintf(e2, sizeof e2, "cannot make the search");
    }
    int anybad = 0;
    MPI_Request rq;
    int mrc = MPI_Iallreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
    if (mrc != MPI_SUCCESS) return mpi_fail(err, errcap, "start", mrc);
    GK_FORWARD_IF(wait_req(&rq, "start", err, errcap));
    if (anybad) {
        if (x->rank) return GK_E_INVALID;
        return gk_fail(err, errcap, GK_E_INVALID, "%s",
                       bad ? e2 : "another rank could not load the weights or make its search");
    }
    if (x->rank == 0) {
        /* The settings lines are part of the book: written now, before the first batch. */
        bk_book_t *b = &x->book;
        bk_prov_set(b, "expand_engine", "gounki %s", GK_VERSION);
        bk_prov_set(b, "expand_budget", "%s%.9g per search",
                    o->time_s > 0 ? "seconds " : "playouts ",
                    o->time_s > 0 ? o->time_s : (double)o->playouts);
        bk_prov_set(b, "expand_seed", "%" PRIu64, o->seed);
        bk_prov_set(b, "expand_priority", "alpha %.9g policy_cost %.9g width %d batch %d",
                    o->sel.alpha, o->sel.policy_cost, o->sel.width, o->batch);
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
    int why = 0;
    for (;;) {
        int mystop = o->stop && *o->stop ? 1 : 0, stop = 0;
        mrc = MPI_Iallreduce(&mystop, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
        if (mrc != MPI_SUCCESS) return mpi_fail(err, errcap, "stop flags", mrc);
        GK_FORWARD_IF(wait_req(&rq, "stop flags", err, errcap));
        int64_t cmd[2] = {0, 0};
        if (x->rank == 0) {
            if (rc < 0) {
                cmd[0] = CMD_FAIL;
            } else if (stop) {
                cmd[0] = CMD_STOP;
            } else {
                why = 0;
                int ne = plan(x, &why, err, errcap);
                if (ne < 0) {
                    rc = ne;
                    cmd[0] = CMD_FAIL;
                } else if (ne == 0) {
                    cmd[0] = why ? why : CMD_EXHAUSTED;
                } else if ((rc = pack_jobs(x, err, errcap)) < 0) {
                    cmd[0] = CMD_FAIL;
                } else {
                    cmd[0] = x->njobs;
                    cmd[1] = (int64_t)x->msg.n;
                }
            }
        }
        GK_FORWARD_IF(bcast(cmd, 2, MPI_INT64_T, "batch", err, errcap));
        if (cmd[0] < 0) {
            why = (int)cmd[0];
            break;
        }
        if (x->rank) {
            x->msg.n = 0;
            if (gl_buf_reserve(&x->msg, (size_t)cmd[1] + 1))
                return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            x->msg.n = (size_t)cmd[1];
        }
        int njobs = (int)cmd[0];
        if (njobs > 0) {
            GK_FORWARD_IF(bcast(x->msg.p, (int)cmd[1], MPI_BYTE, "jobs", err, errcap));
            /* A rank that cannot read its jobs leaves its results at zero: rank 0 then
             * reports a failed search and stops every rank. */
            int urc = unpack_jobs(x, njobs, err, errcap);
            GK_FORWARD_IF(results_room(x, njobs, err, errcap));
            if (!urc) search_mine(x);
            mrc = MPI_Ireduce(x->res, x->res_sum, (int)cmd[0] * R_N, MPI_INT64_T, MPI_SUM, 0,
                              MPI_COMM_WORLD, &rq);
            if (mrc != MPI_SUCCESS) return mpi_fail(err, errcap, "results", mrc);
            GK_FORWARD_IF(wait_req(&rq, "results", err, errcap));
        }
        if (x->rank == 0) {
            rc = apply(x, sum, err, errcap);
            if (rc >= 0 && gk_now_s() - x->last_ckpt >= o->checkpoint_s)
                rc = checkpoint(x, err, errcap);
            if (rc >= 0) progress(x, false);
        }
    }
    if (x->rank != 0) return why == CMD_FAIL ? GK_E_INVALID : 0;
    if (rc < 0) return rc;
    GK_FORWARD_IF(checkpoint(x, err, errcap));
    sum->stopped = why == CMD_STOP;
    sum->exhausted = why == CMD_EXHAUSTED;
    if (!sum->stopped) unlink(x->jpath); /* the book holds everything */
    progress(x, true);
    gk_progress_end(&x->prog);
    return 0;
}

int bx_run(const bx_opts_t *o, bx_summary_t *sum, char *err, size_t errcap) {
    memset(sum, 0, sizeof *sum);
    sum->root_value = NAN;
    if (err && errcap) err[0] = 0;
    GK_RETURN_IF(!o->book || o->batch < 1 || o->batch > BK_MAX_BATCH / 2 ||
                     (!o->playouts && !(o->time_s > 0)),
                 err, errcap, GK_E_ARG, "bad expansion settings");
    int inited = 0, provided = 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Initialized failed");
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Init_thread failed");
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
    double t0 = gk_now_s();
    if (!rc) rc = run(&x, sum, err, errcap);
    sum->seconds = gk_now_s() - t0;
    if (x.have_book) {
        sum->nodes = x.book.nnodes;
        sum->root_value = x.book.node[x.book.root].value;
    }
    free_state(&x);
    if (!inited && MPI_Finalize() != MPI_SUCCESS && !rc)
        rc = gk_fail(err, errcap, GK_E_MPI, "MPI_Finalize failed");
    if (x.rank != 0 && err && errcap) err[0] = 0;
    return rc;
}
