/*
 * selfplay/book_farm.c -- the ranks of `gounki book expand` (see book_farm.h).
 *
 * Messages (MPI_COMM_WORLD, MPI_BYTE, little-endian 64-bit words; all sent with
 * MPI_Isend, received after MPI_Iprobe):
 *   START 0 -> r  {status, game, variant, turn_limit}
 *   READY r -> 0  {bad}
 *   REQ   r -> 0  {want}  r has `want` idle threads (one REQ at a time)
 *   RES   r -> 0  {m, m x (batch, job, BF_ROW values)}   results, sent as they come
 *   JOBS  0 -> r  {batch, k, k x (job, text bytes, nexcl, nexcl actions)}  k may be 0:
 *                                                            nothing now, ask again
 *   PING  r -> 0  {}       a sign of life, every HEARTBEAT_S while r has sent nothing else
 *   STOP  r -> 0  {}       r caught a stop signal
 *   END   0 -> r  {code, abandon}  the last message: abandon = no MPI_Finalize
 * In JOBS a job's text is {length word, bytes padded to a word}, its actions one word each.
 * Rank 0 holds a REQ it cannot fill until jobs come (the next batch) or IDLE_ANSWER_S
 * passes (then k = 0), so that a rank never waits on rank 0 without hearing from it.
 * The first result of each job of the current batch is kept, from whichever rank; the
 * results of a lost rank and of earlier batches are dropped.  Blocking MPI calls are
 * avoided (Open MPI spins in them, taking the cores of the searches): the coordinator
 * polls and sleeps POLL_MS between polls.
 */
#include "book_farm.h"

#include <inttypes.h>
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/status.h"
#include "mpi_send.h"

#define POLL_MS       1
#define HEARTBEAT_S   1.0
#define IDLE_ANSWER_S 1.0
enum { TAG_START = 7201, TAG_READY, TAG_REQ, TAG_RES, TAG_JOBS, TAG_PING, TAG_STOP, TAG_END };
enum { J_FREE, J_LOCAL, J_LEASED, J_DONE };

/* A byte message being built. */
typedef struct msg {
    uint8_t *p;
    size_t n, cap;
} msg_t;

/* This rank's searches: the coordinator queues items, the search threads take them.
 * Item i is jobs[i], its result rows[i * BF_ROW ..]. */
typedef struct lq {
    pthread_mutex_t mu;
    pthread_cond_t cv, cv_done;
    int *todo, head, ntodo, cap;
    int *done, ndone;
    int running;
    bool quit;
    const bf_job_t *jobs;
    int64_t *rows;
} lq_t;

typedef struct peer {
    double heard;  /* last message from the rank */
    double want_t; /* when its pending REQ came */
    int want;      /* idle threads of its pending REQ (0: none pending) */
    bool lost, ready, bad;
} peer_t;

struct bf_farm {
    bf_opts_t o;
    int rank, ranks;
    const gk_game_t *g;
    int turn_limit;
    ms_queue_t sq;
    uint8_t *rbuf;
    size_t rcap;
    msg_t m;
    bool abandon;
    lq_t q;
    /* rank 0 */
    peer_t *peer;
    int nlost;
    uint8_t *st; /* per job of the batch: J_* */
    int *holder;
    int stcap, njobs, remaining, local;
    uint64_t batch;
    const bf_job_t *jobs;
    int64_t *rows;
    bool stopping;
    /* other ranks: T slots of leased jobs */
    bf_job_t *sjob;
    gk_action_t *sexcl; /* GK_MAX_ACTIONS per slot */
    int64_t *srow;
    uint64_t *sbatch;
    int64_t *sid;
    uint8_t *sbusy;
    double last_sent;
};

static void nap(void) {
    ms_nap(POLL_MS);
}

/* ------------------------------------------------------------------ words */

static int put64(msg_t *m, int64_t v) {
    if (m->n + 8 > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        while (cap < m->n + 8) cap *= 2;
        uint8_t *p = realloc(m->p, cap);
        if (!p) return -1;
        m->p = p;
        m->cap = cap;
    }
    for (int i = 0; i < 8; i++) m->p[m->n++] = (uint8_t)((uint64_t)v >> (8 * i));
    return 0;
}

static int64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

/* A reader of a received message: words, with the length checked before each. */
typedef struct rd {
    const uint8_t *p;
    size_t n, off;
    bool bad;
} rd_t;

static int64_t rd64(rd_t *r) {
    if (r->bad || r->n - r->off < 8) {
        r->bad = true;
        return 0;
    }
    int64_t v = get64(r->p + r->off);
    r->off += 8;
    return v;
}

/* ------------------------------------------------------------------ sending */

static int post(bf_farm_t *f, int to, int tag, char *err, size_t errcap) {
    GK_FORWARD_IF(ms_post(&f->sq, f->m.p, (int)f->m.n, MPI_BYTE, to, tag, err, errcap));
    f->last_sent = gk_now_s();
    return 0;
}

/* A message of the given words. */
static int post_words(bf_farm_t *f, int to, int tag, const int64_t *v, int n, char *err,
                      size_t errcap) {
    f->m.n = 0;
    for (int i = 0; i < n; i++)
        if (put64(&f->m, v[i])) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    return post(f, to, tag, err, errcap);
}

/* ------------------------------------------------------------------ receiving */

/* The next message from `from` (MPI_ANY_SOURCE) with any tag, if one is there: *got,
 * its tag, source and bytes (in f->rbuf). */
static int poll_msg(bf_farm_t *f, int from, bool *got, int *tag, int *src, rd_t *r, char *err,
                    size_t errcap) {
    int flag = 0, count = 0;
    MPI_Status s;
    *got = false;
    MS_TRY(MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s));
    if (!flag) return 0;
    MS_TRY(MPI_Get_count(&s, MPI_BYTE, &count));
    if (count < 0) return gk_fail(err, errcap, GK_E_MPI, "a message of unknown length");
    if ((size_t)count > f->rcap) {
        uint8_t *b = realloc(f->rbuf, (size_t)count);
        if (!b) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        f->rbuf = b;
        f->rcap = (size_t)count;
    }
    MS_TRY(MPI_Recv(f->rbuf, count, MPI_BYTE, s.MPI_SOURCE, s.MPI_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    *got = true;
    *tag = s.MPI_TAG;
    *src = s.MPI_SOURCE;
    *r = (rd_t){f->rbuf, (size_t)count, 0, false};
    return 0;
}

/* ------------------------------------------------------------------ jobs as bytes */

static int put_job(bf_farm_t *f, int64_t id, const bf_job_t *j, char *err, size_t errcap) {
    char text[GK_POS_TEXT_MAX];
    int len = f->g->pos_to_text(&j->pos, text, sizeof text);
    if (len < 0) return gk_fail(err, errcap, GK_E_ARG, "a position has no position string");
    if (put64(&f->m, id) || put64(&f->m, len))
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    for (int i = 0; i < len; i += 8) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--) w = w << 8 | (uint8_t)(i + k < len ? text[i + k] : 0);
        if (put64(&f->m, (int64_t)w)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    if (put64(&f->m, j->nexcl)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    for (int i = 0; i < j->nexcl; i++)
        if (put64(&f->m, j->excl[i])) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    return 0;
}

/* Reads a job into *j (its actions into excl, room for GK_MAX_ACTIONS). */
static int get_job(bf_farm_t *f, rd_t *r, int64_t *id, bf_job_t *j, gk_action_t *excl, char *err,
                   size_t errcap) {
    *id = rd64(r);
    int64_t len = rd64(r);
    if (r->bad || len < 0 || len >= GK_POS_TEXT_MAX)
        return gk_fail(err, errcap, GK_E_MPI, "a bad job message from rank 0");
    char text[GK_POS_TEXT_MAX], e2[256];
    for (int64_t i = 0; i < len; i += 8) {
        uint64_t w = (uint64_t)rd64(r);
        for (int k = 0; k < 8 && i + k < len; k++) text[i + k] = (char)(w >> (8 * k));
    }
    text[len] = 0;
    int64_t ne = rd64(r);
    if (r->bad || ne < 0 || ne > GK_MAX_ACTIONS)
        return gk_fail(err, errcap, GK_E_MPI, "a bad job message from rank 0");
    for (int64_t i = 0; i < ne; i++) excl[i] = (gk_action_t)rd64(r);
    if (r->bad) return gk_fail(err, errcap, GK_E_MPI, "a bad job message from rank 0");
    if (f->g->pos_from_text(&j->pos, text, (uint16_t)f->turn_limit, e2, sizeof e2) < 0)
        return gk_fail(err, errcap, GK_E_MPI, "a job's position from rank 0: %s", e2);
    j->excl = excl;
    j->nexcl = (int)ne;
    return 0;
}

/* ------------------------------------------------------------------ the search threads */

static void searcher(bf_farm_t *f, int t) {
    lq_t *q = &f->q;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->quit && q->ntodo == 0) pthread_cond_wait(&q->cv, &q->mu);
        if (q->quit) {
            pthread_mutex_unlock(&q->mu);
            return;
        }
        int i = q->todo[q->head];
        q->head = (q->head + 1) % q->cap;
        q->ntodo--;
        q->running++;
        pthread_mutex_unlock(&q->mu);
        f->o.search(f->o.ctx, t, &q->jobs[i], &q->rows[(size_t)i * BF_ROW]);
        pthread_mutex_lock(&q->mu);
        q->running--;
        q->done[q->ndone++] = i;
        pthread_cond_signal(&q->cv_done);
        pthread_mutex_unlock(&q->mu);
    }
}

/* Room for `cap` items (with nothing queued or running). */
static int lq_room(lq_t *q, int cap) {
    if (cap <= q->cap) return 0;
    int *t = realloc(q->todo, (size_t)cap * sizeof *t);
    if (t) q->todo = t;
    int *d = realloc(q->done, (size_t)cap * sizeof *d);
    if (d) q->done = d;
    if (!t || !d) return -1;
    q->cap = cap;
    return 0;
}

static void lq_push(lq_t *q, int i) {
    pthread_mutex_lock(&q->mu);
    q->todo[(q->head + q->ntodo++) % q->cap] = i;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Waits at most POLL_MS for a search to finish (instead of a nap while searches run). */
static void lq_wait(lq_t *q) {
    struct timespec ts;
    gk_deadline_ms(&ts, POLL_MS);
    pthread_mutex_lock(&q->mu);
    if (q->ndone == 0) pthread_cond_timedwait(&q->cv_done, &q->mu, &ts);
    pthread_mutex_unlock(&q->mu);
}

/* Takes the finished items into out (room for q->cap). */
static int lq_take(lq_t *q, int *out) {
    pthread_mutex_lock(&q->mu);
    int n = q->ndone;
    memcpy(out, q->done, (size_t)n * sizeof *out);
    q->ndone = 0;
    pthread_mutex_unlock(&q->mu);
    return n;
}

/* What a coordinator gets: where its reason goes, and (bf_serve) the end's code. */
typedef struct cargs {
    char *err;
    size_t errcap;
    int *code;
} cargs_t;

/* Runs coord(f) on this thread while threads 1..T search; the searchers leave when it
 * returns (after the search each is in: a search is never cut). */
static int with_searchers(bf_farm_t *f, int (*coord)(bf_farm_t *, void *), void *arg) {
    lq_t *q = &f->q;
    q->quit = false;
    q->head = q->ntodo = q->ndone = q->running = 0;
    int rc = 0, T = f->o.threads;
#pragma omp parallel num_threads(T + 1)
    {
        if (omp_get_thread_num() == 0) {
            if (omp_get_num_threads() < T + 1) {
                cargs_t *a = arg;
                rc = gk_fail(a->err, a->errcap, GK_E_INVALID,
                             "OpenMP gave %d threads, not the %d asked (check OMP_THREAD_LIMIT "
                             "and OMP_DYNAMIC)",
                             omp_get_num_threads(), T + 1);
            } else {
                rc = coord(f, arg);
            }
            pthread_mutex_lock(&q->mu);
            q->quit = true;
            pthread_cond_broadcast(&q->cv);
            pthread_mutex_unlock(&q->mu);
        } else {
            searcher(f, omp_get_thread_num() - 1);
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ open, close */

int bf_open(bf_farm_t **out, const bf_opts_t *o, int rank, int ranks, char *err, size_t errcap) {
    *out = NULL;
    GK_RETURN_IF(o->threads < 1 || !o->search || ranks < 1, err, errcap, GK_E_ARG,
                 "bad farm settings");
    bf_farm_t *f = calloc(1, sizeof *f);
    if (!f) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    f->o = *o;
    if (!(f->o.peer_seconds > 0)) f->o.peer_seconds = 10.0;
    f->rank = rank;
    f->ranks = ranks;
    pthread_mutex_init(&f->q.mu, NULL);
    pthread_cond_init(&f->q.cv, NULL);
    pthread_cond_init(&f->q.cv_done, NULL);
    int T = o->threads;
    bool ok = lq_room(&f->q, T) == 0;
    if (rank == 0) {
        f->peer = calloc((size_t)ranks, sizeof *f->peer);
        ok = ok && f->peer;
    } else {
        f->sjob = calloc((size_t)T, sizeof *f->sjob);
        f->sexcl = calloc((size_t)T * GK_MAX_ACTIONS, sizeof *f->sexcl);
        f->srow = calloc((size_t)T * BF_ROW, sizeof *f->srow);
        f->sbatch = calloc((size_t)T, sizeof *f->sbatch);
        f->sid = calloc((size_t)T, sizeof *f->sid);
        f->sbusy = calloc((size_t)T, 1);
        ok = ok && f->sjob && f->sexcl && f->srow && f->sbatch && f->sid && f->sbusy;
    }
    if (!ok) {
        bf_close(f);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    double t = gk_now_s();
    for (int r = 0; rank == 0 && r < ranks; r++) f->peer[r].heard = t;
    *out = f;
    return 0;
}

void bf_close(bf_farm_t *f) {
    if (!f) return;
    ms_free(&f->sq); /* a send still pending belongs to MPI: its buffer stays */
    free(f->rbuf);
    free(f->m.p);
    free(f->q.todo);
    free(f->q.done);
    pthread_mutex_destroy(&f->q.mu);
    pthread_cond_destroy(&f->q.cv);
    pthread_cond_destroy(&f->q.cv_done);
    free(f->peer);
    free(f->st);
    free(f->holder);
    free(f->sjob);
    free(f->sexcl);
    free(f->srow);
    free(f->sbatch);
    free(f->sid);
    free(f->sbusy);
    free(f);
}

void bf_set_game(bf_farm_t *f, const gk_game_t *g, int turn_limit) {
    f->g = g;
    f->turn_limit = turn_limit;
}

bool bf_abandoned(const bf_farm_t *f) {
    return f->abandon;
}
int bf_lost(const bf_farm_t *f) {
    return f->nlost;
}

/* ------------------------------------------------------------------ rank 0 */

/* Rank 0: gives rank r up: its jobs go back to the pool. */
static void lose(bf_farm_t *f, int r, double silent) {
    peer_t *p = &f->peer[r];
    p->lost = true;
    p->want = 0;
    f->nlost++;
    f->abandon = true;
    int back = 0;
    for (int j = 0; j < f->njobs; j++)
        if (f->st[j] == J_LEASED && f->holder[j] == r) f->st[j] = J_FREE, back++;
    if (!f->o.quiet && f->o.out)
        fprintf(f->o.out,
                "book expand: rank %d not heard from for %.1f s: given up as lost; its %d "
                "search%s of batch %" PRIu64 " %s to the other ranks\n",
                r, silent, back, back == 1 ? "" : "es", f->batch, back == 1 ? "goes" : "go");
}

static int check_peers(bf_farm_t *f) {
    double t = gk_now_s(), limit = f->stopping ? BF_STOP_WAIT : f->o.peer_seconds;
    int live = 0;
    for (int r = 1; r < f->ranks; r++) {
        peer_t *p = &f->peer[r];
        if (p->lost) continue;
        if (t - p->heard > limit)
            lose(f, r, t - p->heard);
        else
            live++;
    }
    return live;
}

/* Rank 0: up to `want` free jobs of the batch leased to r in one JOBS (k may be 0). */
static int lease_to(bf_farm_t *f, int r, int want, char *err, size_t errcap) {
    int idx[64], k = 0;
    if (want > 64) want = 64;
    for (int j = 0; j < f->njobs && k < want; j++)
        if (f->st[j] == J_FREE) idx[k++] = j;
    f->m.n = 0;
    if (put64(&f->m, (int64_t)f->batch) || put64(&f->m, k))
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    for (int i = 0; i < k; i++) {
        GK_FORWARD_IF(put_job(f, idx[i], &f->jobs[idx[i]], err, errcap));
        f->st[idx[i]] = J_LEASED;
        f->holder[idx[i]] = r;
    }
    f->peer[r].want = 0;
    return post(f, r, TAG_JOBS, err, errcap);
}

/* Rank 0: results of rank r (the first of each job of this batch counts). */
static int on_res(bf_farm_t *f, int r, rd_t *rd, char *err, size_t errcap) {
    int64_t m = rd64(rd);
    if (rd->bad || m < 0 || m > 1024)
        return gk_fail(err, errcap, GK_E_MPI, "a bad result message from rank %d", r);
    for (int64_t i = 0; i < m; i++) {
        int64_t b = rd64(rd), j = rd64(rd), row[BF_ROW];
        for (int c = 0; c < BF_ROW; c++) row[c] = rd64(rd);
        if (rd->bad) return gk_fail(err, errcap, GK_E_MPI, "a bad result message from rank %d", r);
        if ((uint64_t)b != f->batch || j < 0 || j >= f->njobs || f->st[j] == J_DONE ||
            f->st[j] == J_LOCAL)
            continue; /* a job of another batch, or one already done */
        memcpy(&f->rows[(size_t)j * BF_ROW], row, sizeof row);
        f->st[j] = J_DONE;
        f->remaining--;
    }
    return 0;
}

/* Rank 0: a REQ of rank r: its wish, filled now or held (serve_wants). */
static int on_req(bf_farm_t *f, int r, rd_t *rd, char *err, size_t errcap) {
    int64_t want = rd64(rd);
    if (rd->bad || want < 0 || want > 1024)
        return gk_fail(err, errcap, GK_E_MPI, "a bad request from rank %d", r);
    f->peer[r].want = (int)want;
    f->peer[r].want_t = gk_now_s();
    return 0;
}

/* Rank 0: every message waiting.  From a lost rank only a REQ is answered: END (lost). */
static int listen0(bf_farm_t *f, char *err, size_t errcap) {
    for (;;) {
        bool got;
        int tag, r;
        rd_t rd;
        GK_FORWARD_IF(poll_msg(f, MPI_ANY_SOURCE, &got, &tag, &r, &rd, err, errcap));
        if (!got) return 0;
        if (r <= 0 || r >= f->ranks) continue;
        peer_t *p = &f->peer[r];
        if (p->lost) {
            if (tag == TAG_REQ) {
                int64_t v[2] = {BF_LOST, 1};
                GK_FORWARD_IF(post_words(f, r, TAG_END, v, 2, err, errcap));
            }
            continue;
        }
        p->heard = gk_now_s();
        if (tag == TAG_REQ) {
            GK_FORWARD_IF(on_req(f, r, &rd, err, errcap));
        } else if (tag == TAG_RES) {
            GK_FORWARD_IF(on_res(f, r, &rd, err, errcap));
        } else if (tag == TAG_READY) {
            int64_t bad = rd64(&rd);
            p->ready = true;
            p->bad = rd.bad || bad;
        } else if (tag == TAG_STOP) {
            f->stopping = true;
        }
    }
}

/* Rank 0: fills the pending wishes (with k = 0 once IDLE_ANSWER_S has passed). */
static int serve_wants(bf_farm_t *f, char *err, size_t errcap) {
    double t = gk_now_s();
    bool any_free = false;
    for (int j = 0; j < f->njobs && !any_free; j++) any_free = f->st[j] == J_FREE;
    for (int r = 1; r < f->ranks; r++) {
        peer_t *p = &f->peer[r];
        if (p->lost || p->want <= 0) continue;
        if (any_free || t - p->want_t >= IDLE_ANSWER_S) {
            GK_FORWARD_IF(lease_to(f, r, p->want, err, errcap));
            any_free = false;
            for (int j = 0; j < f->njobs && !any_free; j++) any_free = f->st[j] == J_FREE;
        }
    }
    return 0;
}

/* Rank 0: its own threads: collect what they finished, keep them fed. */
static void local0(bf_farm_t *f, int *tmp) {
    int n = lq_take(&f->q, tmp);
    for (int i = 0; i < n; i++) {
        int j = tmp[i];
        f->local--;
        if (f->st[j] != J_DONE) f->remaining--; /* else a rank reported it first */
        f->st[j] = J_DONE;
    }
    /* Free jobs first to the other ranks' pending wishes, the rest to this rank. */
    int wanted = 0;
    for (int r = 1; r < f->ranks; r++)
        if (!f->peer[r].lost) wanted += f->peer[r].want;
    for (int j = f->njobs - 1; j >= 0 && f->local < f->o.threads; j--) {
        if (f->st[j] != J_FREE) continue;
        if (wanted > 0) {
            wanted--;
            continue;
        }
        f->st[j] = J_LOCAL;
        f->local++;
        lq_push(&f->q, j);
    }
}

static int batch_coord(bf_farm_t *f, void *arg) {
    char *err = ((cargs_t *)arg)->err;
    size_t errcap = ((cargs_t *)arg)->errcap;
    int *tmp = malloc((size_t)f->q.cap * sizeof *tmp);
    if (!tmp) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    int rc = 0;
    f->local = 0;
    while (!rc) {
        rc = ms_progress(&f->sq, err, errcap);
        if (!rc && f->ranks > 1) rc = listen0(f, err, errcap);
        if (rc) break;
        if (f->o.stop && *f->o.stop) f->stopping = true;
        if (f->ranks > 1) check_peers(f);
        local0(f, tmp);
        if (f->remaining == 0) break;
        if (f->ranks > 1) rc = serve_wants(f, err, errcap);
        lq_wait(&f->q);
    }
    /* The searches still running here are of jobs done elsewhere: wait for them. */
    while (!rc) {
        pthread_mutex_lock(&f->q.mu);
        f->q.ntodo = 0;
        int busy = f->q.running;
        pthread_mutex_unlock(&f->q.mu);
        if (!busy) break;
        nap();
    }
    free(tmp);
    return rc;
}

int bf_batch(bf_farm_t *f, uint64_t batch, const bf_job_t *jobs, int njobs, int64_t *rows,
             bool *stopping, char *err, size_t errcap) {
    GK_RETURN_IF(f->rank != 0 || njobs < 0 || !f->g, err, errcap, GK_E_ARG, "bad batch");
    if (njobs > f->stcap) {
        uint8_t *st = realloc(f->st, (size_t)njobs);
        if (st) f->st = st;
        int *h = realloc(f->holder, (size_t)njobs * sizeof *h);
        if (h) f->holder = h;
        if (!st || !h) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        f->stcap = njobs;
    }
    if (lq_room(&f->q, njobs > f->o.threads ? njobs : f->o.threads))
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memset(f->st, J_FREE, (size_t)njobs);
    memset(rows, 0, (size_t)njobs * BF_ROW * sizeof *rows);
    f->batch = batch;
    f->jobs = jobs;
    f->rows = rows;
    f->njobs = f->remaining = njobs;
    f->q.jobs = jobs;
    f->q.rows = rows;
    cargs_t a = {err, errcap, NULL};
    int rc = njobs ? with_searchers(f, batch_coord, &a) : 0;
    f->njobs = 0; /* a lost rank's leases are of no batch now */
    *stopping = f->stopping;
    return rc;
}

int bf_start0(bf_farm_t *f, const int64_t hdr[4], char *err, size_t errcap) {
    for (int r = 1; r < f->ranks; r++)
        GK_FORWARD_IF(post_words(f, r, TAG_START, hdr, 4, err, errcap));
    /* A failed start is the last message: it must leave before rank 0 returns. */
    if (hdr[0] && !ms_drain(&f->sq, BF_STOP_WAIT, POLL_MS)) f->abandon = true;
    return 0;
}

int bf_ready(bf_farm_t *f, int bad, int *anybad, char *err, size_t errcap) {
    *anybad = bad;
    double t0 = gk_now_s();
    for (int r = 1; r < f->ranks; r++) f->peer[r].heard = t0;
    for (;;) {
        GK_FORWARD_IF(ms_progress(&f->sq, err, errcap));
        GK_FORWARD_IF(listen0(f, err, errcap));
        if (f->o.stop && *f->o.stop) f->stopping = true;
        check_peers(f);
        bool all = true;
        for (int r = 1; r < f->ranks; r++)
            if (!f->peer[r].lost && !f->peer[r].ready) all = false;
        if (all) break;
        nap();
    }
    for (int r = 1; r < f->ranks; r++)
        if (f->peer[r].ready && f->peer[r].bad) *anybad = 1;
    return 0;
}

int bf_end(bf_farm_t *f, int code, char *err, size_t errcap) {
    if (f->ranks == 1) return 0;
    char e2[256];
    if (ms_progress(&f->sq, e2, sizeof e2) || listen0(f, e2, sizeof e2)) f->abandon = true;
    check_peers(f);
    int64_t v[2] = {code, f->abandon ? 1 : 0};
    for (int r = 1; r < f->ranks; r++)
        if (!f->peer[r].lost) GK_FORWARD_IF(post_words(f, r, TAG_END, v, 2, err, errcap));
    if (!ms_drain(&f->sq, BF_STOP_WAIT, POLL_MS)) f->abandon = true;
    return 0;
}

/* ------------------------------------------------------------------ the other ranks */

int bf_wait_start(bf_farm_t *f, int64_t hdr[4], char *err, size_t errcap) {
    for (;;) {
        bool got;
        int tag, src;
        rd_t rd;
        GK_FORWARD_IF(poll_msg(f, 0, &got, &tag, &src, &rd, err, errcap));
        if (got && tag == TAG_START) {
            for (int i = 0; i < 4; i++) hdr[i] = rd64(&rd);
            if (rd.bad) return gk_fail(err, errcap, GK_E_MPI, "a bad start message from rank 0");
            return 0;
        }
        if (f->o.stop && *f->o.stop) {
            f->abandon = true;
            return gk_fail(err, errcap, GK_E_STOPPED, "stopped before rank 0 started the run");
        }
        nap();
    }
}

int bf_send_ready(bf_farm_t *f, int bad, char *err, size_t errcap) {
    int64_t v = bad;
    return post_words(f, 0, TAG_READY, &v, 1, err, errcap);
}

/* A JOBS from rank 0: into free slots and onto this rank's queue. */
static int on_jobs(bf_farm_t *f, rd_t *rd, char *err, size_t errcap) {
    int64_t b = rd64(rd), k = rd64(rd);
    if (rd->bad || k < 0 || k > f->o.threads)
        return gk_fail(err, errcap, GK_E_MPI, "a bad job message from rank 0");
    for (int64_t i = 0; i < k; i++) {
        int s = 0;
        while (s < f->o.threads && f->sbusy[s]) s++;
        if (s == f->o.threads) return gk_fail(err, errcap, GK_E_MPI, "rank 0 sent too many jobs");
        GK_FORWARD_IF(get_job(f, rd, &f->sid[s], &f->sjob[s], f->sexcl + (size_t)s * GK_MAX_ACTIONS,
                              err, errcap));
        f->sbatch[s] = (uint64_t)b;
        f->sbusy[s] = 1;
        lq_push(&f->q, s);
    }
    return 0;
}

/* A RES: the finished slots' results; the slots are free again. */
static int report(bf_farm_t *f, const int *fin, int nfin, char *err, size_t errcap) {
    f->m.n = 0;
    bool bad = put64(&f->m, nfin);
    for (int i = 0; i < nfin && !bad; i++) {
        int s = fin[i];
        bad = put64(&f->m, (int64_t)f->sbatch[s]) || put64(&f->m, f->sid[s]);
        for (int c = 0; c < BF_ROW && !bad; c++)
            bad = put64(&f->m, f->srow[(size_t)s * BF_ROW + c]);
    }
    if (bad) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    GK_FORWARD_IF(post(f, 0, TAG_RES, err, errcap));
    for (int i = 0; i < nfin; i++) f->sbusy[fin[i]] = 0;
    return 0;
}

static int serve_coord(bf_farm_t *f, void *arg) {
    cargs_t *a = arg;
    char *err = a->err;
    size_t errcap = a->errcap;
    int *fin = malloc((size_t)f->o.threads * sizeof *fin), nfin = 0;
    if (!fin) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    bool asked = false, told_stop = false;
    double t_ask = 0;
    int rc = 0;
    f->last_sent = gk_now_s();
    while (!rc) {
        if ((rc = ms_progress(&f->sq, err, errcap))) break;
        if (f->o.stop && *f->o.stop && !told_stop) {
            told_stop = true;
            if ((rc = post_words(f, 0, TAG_STOP, NULL, 0, err, errcap))) break;
        }
        bool got;
        int tag, src;
        rd_t rd;
        if ((rc = poll_msg(f, 0, &got, &tag, &src, &rd, err, errcap))) break;
        if (got && tag == TAG_END) {
            int64_t code = rd64(&rd), abandon = rd64(&rd);
            if (rd.bad) rc = gk_fail(err, errcap, GK_E_MPI, "a bad end message from rank 0");
            *a->code = (int)code;
            if (abandon) f->abandon = true;
            break;
        }
        if (got && tag == TAG_JOBS) {
            asked = false;
            if ((rc = on_jobs(f, &rd, err, errcap))) break;
        }
        nfin += lq_take(&f->q, fin + nfin);
        if (nfin > 0) {
            if ((rc = report(f, fin, nfin, err, errcap))) break;
            nfin = 0;
        }
        double t = gk_now_s();
        int64_t idle = 0;
        for (int s = 0; s < f->o.threads; s++) idle += !f->sbusy[s];
        if (!asked && idle > 0) {
            if ((rc = post_words(f, 0, TAG_REQ, &idle, 1, err, errcap))) break;
            asked = true;
            t_ask = t;
        } else if (asked && t - t_ask > (told_stop ? BF_STOP_WAIT : f->o.peer_seconds)) {
            f->abandon = true;
            rc = gk_fail(err, errcap, GK_E_MPI,
                         "rank %d: rank 0 did not answer for %.1f s; given up (rerun the same "
                         "command to resume)",
                         f->rank, t - t_ask);
        } else if (t - f->last_sent >= HEARTBEAT_S) {
            rc = post_words(f, 0, TAG_PING, NULL, 0, err, errcap);
        }
        if (!rc) lq_wait(&f->q);
    }
    free(fin);
    return rc;
}

int bf_serve(bf_farm_t *f, int *code, char *err, size_t errcap) {
    GK_RETURN_IF(f->rank == 0 || !f->g, err, errcap, GK_E_ARG, "bad serve");
    *code = 0;
    f->q.jobs = f->sjob;
    f->q.rows = f->srow;
    cargs_t a = {err, errcap, code};
    int rc = with_searchers(f, serve_coord, &a);
    if (rc) {
        f->abandon = true;
        return rc;
    }
    if (*code == BF_LOST) {
        f->abandon = true;
        return gk_fail(err, errcap, GK_E_MPI,
                       "rank %d: given up as lost by rank 0 (not heard from in time)", f->rank);
    }
    if (!f->abandon && !ms_drain(&f->sq, BF_STOP_WAIT, POLL_MS)) f->abandon = true;
    return 0;
}
