/*
 * selfplay/scheduler.c -- sp_run(): one MPI rank of a self-play run (see selfplay.h).
 *
 * Threads of a rank: OpenMP thread 0 is the coordinator, the only one to call MPI
 * (MPI_THREAD_FUNNELED): it leases work, collects finished games into the shard
 * writer, reports progress and watches the stop flag.  Threads 1..games_at_once are
 * workers: each takes a game index from the rank's queue, plays it with its own search
 * and encodes its record, so records reach the coordinator as finished bytes.
 *
 * Messages (MPI_COMM_WORLD, int64 payloads):
 *   REQ   r -> 0   {want}                       r has `want` idle workers
 *   GRANT 0 -> r   {k, i_1 .. i_k}              k game indices; k = 0: no more work
 *   PROG  r -> 0   counters                     cumulative, at most once a second
 *   STOP  0 -> r   {}                           stop now (signal or failure elsewhere)
 *   DONE  r -> 0   counters                     r wrote all it will write
 *   BYE   0 -> r   {}                           last message to r: r may finalise
 * A rank asks only for idle workers (no prefetch): at the end of a run no rank sits on
 * games another could play.  Rank 0 serves its own workers from the pool directly.
 * Blocking receives are avoided (Open MPI spins in them): the coordinator polls with
 * MPI_Iprobe and sleeps on a condition variable for at most POLL_MS between polls.
 */
#include "selfplay.h"

#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/progress.h"
#include "../common/files.h"
#include "../data/xxh64.h"

#define POLL_MS 2
enum { TAG_REQ = 7101, TAG_GRANT, TAG_PROG, TAG_STOP, TAG_DONE, TAG_BYE };

/* Counters a rank reports (cumulative). */
enum { C_GAMES, C_ACTIONS, C_TURNS, C_WHITE, C_DRAWS, C_BLACK, C_ABANDONED, C_STATUS, C_N };
enum { ST_OK = 0, ST_STOPPED = 1, ST_FAILED = 2 };

typedef struct finished {
    uint64_t index;
    gl_buf_t rec;
    uint32_t actions, turns;
    uint8_t result;
} finished_t;

typedef struct rank_state {
    const sp_run_opts_t *o;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_coord;
    uint64_t *queue; /* leased indices not started; a ring */
    size_t qhead, qlen, qcap;
    int busy;
    bool no_more;    /* no more work will be leased */
    bool quit;       /* workers leave */
    atomic_int stop; /* abandon games (read by sp_play_game between decisions) */
    finished_t *fin; /* finished games not yet handed to the writer */
    size_t nfin, fincap;
    int64_t abandoned;
    bool failed;
    char err[512];
} rank_state_t;

static int mpi_fail(char *err, size_t cap, const char *what, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", rc);
    return gk_fail(err, cap, GK_E_MPI, "MPI: %s: %s", what, msg);
}

#define MPI_TRY(call)                                                                              \
    do {                                                                                           \
        int mrc_ = (call);                                                                         \
        if (mrc_ != MPI_SUCCESS) return mpi_fail(err, errcap, #call, mrc_);                        \
    } while (0)

/* ------------------------------------------------------------------ workers */

static void queue_push(rank_state_t *s, uint64_t idx) {
    if (s->qlen == s->qcap) {
        size_t cap = s->qcap ? 2 * s->qcap : 64;
        uint64_t *q = malloc(cap * sizeof *q);
        if (!q) { /* cannot happen with the tiny queues used; fail the rank if it does */
            s->failed = true;
            snprintf(s->err, sizeof s->err, "out of memory");
            return;
        }
        for (size_t i = 0; i < s->qlen; i++) q[i] = s->queue[(s->qhead + i) % s->qcap];
        free(s->queue);
        s->queue = q;
        s->qhead = 0;
        s->qcap = cap;
    }
    s->queue[(s->qhead + s->qlen++) % s->qcap] = idx;
}

static void worker(rank_state_t *s) {
    const sp_run_opts_t *o = s->o;
    gl_game_t g;
    gl_game_init(&g);
    char err[512];
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->quit && s->qlen == 0 && !(s->no_more || atomic_load(&s->stop) || s->failed))
            pthread_cond_wait(&s->cv_work, &s->mu);
        if (s->quit || s->qlen == 0 || atomic_load(&s->stop) || s->failed) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        uint64_t idx = s->queue[s->qhead];
        s->qhead = (s->qhead + 1) % s->qcap;
        s->qlen--;
        s->busy++;
        pthread_mutex_unlock(&s->mu);

        int rc = sp_play_game(&o->set, idx, &g, &s->stop, err, sizeof err);
        finished_t f = {.index = idx};
        if (rc == SP_DONE) {
            if (gl_encode_game(&g, o->code, o->stats, &f.rec, err, sizeof err)) rc = -1;
            f.actions = g.nactions;
            f.turns = g.turns;
            f.result = g.result;
        }
        pthread_mutex_lock(&s->mu);
        s->busy--;
        if (rc == SP_DONE) {
            if (s->nfin == s->fincap) {
                size_t cap = s->fincap ? 2 * s->fincap : 16;
                finished_t *p = realloc(s->fin, cap * sizeof *p);
                if (p) {
                    s->fin = p;
                    s->fincap = cap;
                }
            }
            if (s->nfin < s->fincap)
                s->fin[s->nfin++] = f;
            else {
                gl_buf_free(&f.rec);
                rc = gk_fail(err, sizeof err, GK_E_NOMEM, "out of memory");
            }
        } else if (rc == SP_ABANDONED) {
            s->abandoned++;
        }
        if (rc < 0 && !s->failed) {
            s->failed = true;
            snprintf(s->err, sizeof s->err, "%s", err);
            atomic_store(&s->stop, 1);
            pthread_cond_broadcast(&s->cv_work);
        }
        pthread_cond_signal(&s->cv_coord);
        pthread_mutex_unlock(&s->mu);
    }
    gl_game_free(&g);
}

/* ------------------------------------------------------------------ the coordinator */

typedef struct coord {
    rank_state_t *s;
    const sp_run_opts_t *o;
    int rank, ranks;
    gl_writer_t *w;
    int64_t c[C_N]; /* this rank's counters */
    double t0, last_prog, first_pending;
    bool req_out; /* a REQ is in flight (rank != 0) */
    bool stop_sent;
    /* rank 0 only */
    /* The games still to lease are the gaps between the games found in DIR: ranges
     * [lo, hi), so that memory grows with the games already played, not with --games. */
    struct gap {
        uint64_t lo, hi;
    } * gaps;
    size_t ngaps, gcur; /* gaps[gcur] holds the next index to lease, gnext */
    uint64_t gnext;
    uint64_t npool, next; /* npool indices to play, next of them leased */
    int64_t (*rc)[C_N];   /* latest counters of every rank */
    bool *done;
    int ndone;
    uint64_t before; /* games found in DIR */
    int total_workers;
    gk_progress_t prog;
    char err[512];
    bool failed;
} coord_t;

static void fmt_eta(double s, char *buf, size_t cap) {
    if (!(s >= 0) || s > 1e8) {
        snprintf(buf, cap, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, cap, "%lds", t);
}

static void totals(const coord_t *k, int64_t *t) {
    memset(t, 0, C_N * sizeof *t);
    for (int r = 0; r < k->ranks; r++)
        for (int i = 0; i < C_STATUS; i++) t[i] += r == 0 ? k->c[i] : k->rc[r][i];
}

static void progress(coord_t *k, bool final) {
    if (!final && !gk_progress_due(&k->prog)) return;
    double t = gk_now_s();
    int64_t s[C_N];
    totals(k, s);
    double el = t - k->t0;
    double gps = el > 0 ? (double)s[C_GAMES] / el : 0, pps = el > 0 ? (double)s[C_ACTIONS] / el : 0;
    uint64_t have = k->before + (uint64_t)s[C_GAMES];
    char eta[32];
    fmt_eta(gps > 0 ? (double)(k->o->games - have) / gps : -1, eta, sizeof eta);
    gk_progress_line(&k->prog,
                     "selfplay: %" PRIu64 "/%" PRIu64 " games  %.2f games/s  %.0f pos/s  W %" PRId64
                     " D %" PRId64 " L %" PRId64 "  avg %.1f turns  ETA %s",
                     have, k->o->games, gps, pps, s[C_WHITE], s[C_DRAWS], s[C_BLACK],
                     s[C_GAMES] ? (double)s[C_TURNS] / (double)s[C_GAMES] : 0.0, eta);
}

/* Moves finished games to the writer; flushes a frame when it is due (or when forced). */
static int collect(coord_t *k, bool force, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    pthread_mutex_lock(&s->mu);
    size_t n = s->nfin;
    finished_t *fin = s->fin;
    s->fin = NULL;
    s->nfin = s->fincap = 0;
    pthread_mutex_unlock(&s->mu);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        finished_t *f = &fin[i];
        if (!rc) {
            if (gl_writer_pending(k->w) == 0) k->first_pending = gk_now_s();
            rc = gl_writer_add_encoded(k->w, f->index, f->rec.p, f->rec.n, err, errcap);
            if (!rc) {
                k->c[C_GAMES]++;
                k->c[C_ACTIONS] += f->actions;
                k->c[C_TURNS] += f->turns;
                k->c[C_WHITE] += f->result == GK_WIN_WHITE;
                k->c[C_DRAWS] += f->result == GK_DRAW;
                k->c[C_BLACK] += f->result == GK_WIN_BLACK;
            }
        }
        gl_buf_free(&f->rec);
        if (!rc && gl_writer_pending(k->w) >= k->o->frame_games)
            rc = gl_writer_flush(k->w, err, errcap);
    }
    free(fin);
    if (!rc && gl_writer_pending(k->w) &&
        (force || gk_now_s() - k->first_pending >= k->o->frame_seconds ||
         gl_writer_pending_bytes(k->w) >= (8u << 20)))
        rc = gl_writer_flush(k->w, err, errcap);
    return rc;
}

/* Rank 0: up to `want` indices from the pool for a rank with `want` idle workers. */
static uint64_t lease(coord_t *k, uint64_t want, uint64_t *out) {
    uint64_t left = k->npool - k->next;
    uint64_t cap = left / (2u * (uint64_t)k->total_workers);
    if (cap < 1) cap = 1;
    if (k->o->lease > 0 && cap > (uint64_t)k->o->lease) cap = (uint64_t)k->o->lease;
    if (want > cap) want = cap;
    if (want > left) want = left;
    for (uint64_t i = 0; i < want; i++) {
        while (k->gnext >= k->gaps[k->gcur].hi) k->gnext = k->gaps[++k->gcur].lo;
        out[i] = k->gnext++;
        k->next++;
    }
    return want;
}

static int send_i64(const int64_t *v, int n, int to, int tag, char *err, size_t errcap) {
    MPI_TRY(MPI_Send(v, n, MPI_INT64_T, to, tag, MPI_COMM_WORLD));
    return 0;
}

/* Rank 0: answers every message waiting.  Sets *any when it handled one. */
static int serve(coord_t *k, bool stopping, char *err, size_t errcap) {
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_TRY(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        if (!flag) return 0;
        int n = 0;
        MPI_TRY(MPI_Get_count(&st, MPI_INT64_T, &n));
        int64_t buf[C_N + 1];
        if (n < 0 || n > C_N + 1 || st.MPI_SOURCE <= 0 || st.MPI_SOURCE >= k->ranks)
            return gk_fail(err, errcap, GK_E_MPI,
                           "unexpected message (tag %d, %d values) from rank %d", st.MPI_TAG, n,
                           st.MPI_SOURCE);
        MPI_TRY(MPI_Recv(buf, n, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
        int r = st.MPI_SOURCE;
        switch (st.MPI_TAG) {
        case TAG_REQ: {
            if (n != 1) return gk_fail(err, errcap, GK_E_MPI, "bad request from rank %d", r);
            int64_t grant[1 + 64];
            uint64_t want = buf[0] < 1 ? 1 : buf[0] > 64 ? 64 : (uint64_t)buf[0];
            uint64_t got = stopping ? 0 : lease(k, want, (uint64_t *)(grant + 1));
            grant[0] = (int64_t)got;
            GK_FORWARD_IF(send_i64(grant, 1 + (int)got, r, TAG_GRANT, err, errcap));
            break;
        }
        case TAG_PROG:
        case TAG_DONE:
            if (n != C_N) return gk_fail(err, errcap, GK_E_MPI, "bad counters from rank %d", r);
            memcpy(k->rc[r], buf, sizeof k->rc[r]);
            if (st.MPI_TAG == TAG_DONE) {
                if (k->done[r]) return gk_fail(err, errcap, GK_E_MPI, "rank %d finished twice", r);
                k->done[r] = true;
                k->ndone++;
                GK_FORWARD_IF(send_i64(buf, 0, r, TAG_BYE, err, errcap));
            }
            break;
        default:
            return gk_fail(err, errcap, GK_E_MPI, "unexpected message tag %d from rank %d",
                           st.MPI_TAG, r);
        }
    }
}

/* Rank != 0: handles GRANT and STOP messages. */
static int listen0(coord_t *k, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_TRY(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        if (!flag) return 0;
        int n = 0;
        MPI_TRY(MPI_Get_count(&st, MPI_INT64_T, &n));
        int64_t buf[1 + 64];
        if (n < 0 || n > 65 || (st.MPI_TAG != TAG_GRANT && st.MPI_TAG != TAG_STOP))
            return gk_fail(err, errcap, GK_E_MPI, "unexpected message (tag %d) from rank 0",
                           st.MPI_TAG);
        MPI_TRY(MPI_Recv(buf, n, MPI_INT64_T, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        pthread_mutex_lock(&s->mu);
        if (st.MPI_TAG == TAG_STOP) {
            atomic_store(&s->stop, 1);
        } else {
            k->req_out = false;
            if (n < 1 || buf[0] != n - 1) {
                pthread_mutex_unlock(&s->mu);
                return gk_fail(err, errcap, GK_E_MPI, "bad grant from rank 0");
            }
            if (buf[0] == 0) s->no_more = true;
            for (int i = 1; i < n; i++) queue_push(s, (uint64_t)buf[i]);
        }
        pthread_cond_broadcast(&s->cv_work);
        pthread_mutex_unlock(&s->mu);
    }
}

static void wait_coord(rank_state_t *s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += POLL_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    if (s->nfin == 0) pthread_cond_timedwait(&s->cv_coord, &s->mu, &ts);
    pthread_mutex_unlock(&s->mu);
}

/* The coordinator's loop: returns when this rank (and, on rank 0, every rank) is done. */
static int coordinate(coord_t *k, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    const sp_run_opts_t *o = k->o;
    int games_at_once = o->games_at_once;
    bool finished_local = false, sent_done = false;
    for (;;) {
        bool sig = o->stop && *o->stop;
        if (sig && !atomic_load(&s->stop)) {
            pthread_mutex_lock(&s->mu);
            atomic_store(&s->stop, 1);
            pthread_cond_broadcast(&s->cv_work);
            pthread_mutex_unlock(&s->mu);
        }
        bool stopping = atomic_load(&s->stop) != 0;
        if (k->rank == 0) {
            GK_FORWARD_IF(serve(k, stopping, err, errcap));
            /* A rank that failed stops everyone. */
            for (int r = 1; r < k->ranks && !stopping; r++)
                if (k->rc[r][C_STATUS] == ST_FAILED) {
                    atomic_store(&s->stop, 1);
                    stopping = true;
                }
            if (stopping && !k->stop_sent) {
                int64_t none = 0;
                for (int r = 1; r < k->ranks; r++)
                    if (!k->done[r]) GK_FORWARD_IF(send_i64(&none, 0, r, TAG_STOP, err, errcap));
                k->stop_sent = true;
                pthread_mutex_lock(&s->mu);
                pthread_cond_broadcast(&s->cv_work);
                pthread_mutex_unlock(&s->mu);
            }
        } else if (!sent_done) {
            GK_FORWARD_IF(listen0(k, err, errcap));
        }
        if (!finished_local) {
            /* Work for idle workers. */
            pthread_mutex_lock(&s->mu);
            int idle = games_at_once - s->busy - (int)s->qlen;
            bool no_more = s->no_more;
            stopping = atomic_load(&s->stop) != 0;
            if (k->rank == 0 && idle > 0 && !no_more && !stopping) {
                uint64_t got[64];
                uint64_t n = lease(k, (uint64_t)(idle > 64 ? 64 : idle), got);
                for (uint64_t i = 0; i < n; i++) queue_push(s, got[i]);
                if (n == 0) s->no_more = true;
                pthread_cond_broadcast(&s->cv_work);
            }
            pthread_mutex_unlock(&s->mu);
            if (k->rank != 0 && idle > 0 && !no_more && !stopping && !k->req_out) {
                int64_t want = idle;
                GK_FORWARD_IF(send_i64(&want, 1, 0, TAG_REQ, err, errcap));
                k->req_out = true;
            }
            GK_FORWARD_IF(collect(k, false, err, errcap));
            pthread_mutex_lock(&s->mu);
            bool idle_all = s->busy == 0 && s->nfin == 0;
            bool over = idle_all && ((s->qlen == 0 && s->no_more) || atomic_load(&s->stop));
            bool failed = s->failed;
            pthread_mutex_unlock(&s->mu);
            if (failed) {
                pthread_mutex_lock(&s->mu);
                snprintf(k->err, sizeof k->err, "%s", s->err);
                pthread_mutex_unlock(&s->mu);
                k->failed = true;
            }
            if (over) {
                GK_FORWARD_IF(collect(k, true, err, errcap));
                finished_local = true;
                pthread_mutex_lock(&s->mu);
                s->quit = true;
                k->c[C_ABANDONED] = s->abandoned;
                pthread_cond_broadcast(&s->cv_work);
                pthread_mutex_unlock(&s->mu);
                k->c[C_STATUS] = k->failed                    ? ST_FAILED
                                 : atomic_load(&s->stop) != 0 ? ST_STOPPED
                                                              : ST_OK;
            }
        }
        double t = gk_now_s();
        if (k->rank != 0) {
            if (finished_local && !sent_done) {
                GK_FORWARD_IF(send_i64(k->c, C_N, 0, TAG_DONE, err, errcap));
                sent_done = true;
            } else if (!finished_local && t - k->last_prog >= 1.0) {
                GK_FORWARD_IF(send_i64(k->c, C_N, 0, TAG_PROG, err, errcap));
                k->last_prog = t;
            }
            if (sent_done) {
                /* Drain what rank 0 sent before its BYE (a late grant or stop). */
                int flag = 0;
                MPI_Status st;
                MPI_TRY(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                if (flag) {
                    int n = 0;
                    int64_t buf[65];
                    MPI_TRY(MPI_Get_count(&st, MPI_INT64_T, &n));
                    if (n < 0 || n > 65)
                        return gk_fail(err, errcap, GK_E_MPI, "unexpected message from rank 0");
                    MPI_TRY(MPI_Recv(buf, n, MPI_INT64_T, 0, st.MPI_TAG, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
                    if (st.MPI_TAG == TAG_BYE) return 0;
                    continue;
                }
            }
        } else {
            progress(k, false);
            if (finished_local && k->ndone == k->ranks - 1) return 0;
        }
        wait_coord(s);
    }
}

/* ------------------------------------------------------------------ setup */

/* The first setting that differs between two settings texts, for the refusal message. */
static void first_difference(const char *a, const char *b, char *out, size_t cap) {
    const char *pa = a, *pb = b;
    while (*pa || *pb) {
        size_t la = strcspn(pa, " "), lb = strcspn(pb, " ");
        if (la != lb || memcmp(pa, pb, la)) {
            /* A setting written only when set (tactics=) is absent from one side. */
            if (!la)
                snprintf(out, cap, "%.*s (the run has none)", (int)lb, pb);
            else if (!lb)
                snprintf(out, cap, "no %.*s (the run has %.*s)", (int)strcspn(pa, "="), pa, (int)la,
                         pa);
            else
                snprintf(out, cap, "%.*s (the run has %.*s)", (int)lb, pb, (int)la, pa);
            return;
        }
        pa += la + (pa[la] == ' ');
        pb += lb + (pb[lb] == ' ');
    }
    snprintf(out, cap, "?");
}

/* Rank 0: checks or creates the manifest.  Returns 0 or a negative code with a reason. */
static int manifest_setup(const sp_run_opts_t *o, const char *settings, char *err, size_t errcap) {
    GK_FORWARD_IF(gk_mkdir_p(o->dir, err, errcap));
    gl_manifest_t m;
    int rc = gl_manifest_read(o->dir, &m, err, errcap);
    if (rc == GK_OK) {
        if (strcmp(m.settings, settings)) {
            char d[600];
            first_difference(m.settings, settings, d, sizeof d);
            return gk_fail(err, errcap, GK_E_MISMATCH,
                           "%s holds a run with other settings: %s; use a new --out directory or "
                           "the run's settings (see %s/%s)",
                           o->dir, d, o->dir, GL_MANIFEST_NAME);
        }
        GK_RETURN_IF(o->games < m.games, err, errcap, GK_E_MISMATCH,
                     "%s holds a run of %" PRIu64 " games; --games %" PRIu64
                     " would leave games beyond the end (extending is allowed, shrinking is not)",
                     o->dir, m.games, o->games);
        if (o->games == m.games) return GK_OK;
    } else if (rc == GK_E_IO && errno == ENOENT) {
        gl_logset_t ls;
        GK_FORWARD_IF(gl_logset_open(&ls, o->dir, false, err, errcap));
        int n = ls.nshards;
        gl_logset_free(&ls);
        GK_RETURN_IF(n, err, errcap, GK_E_MISMATCH,
                     "%s holds shards but no %s: not a run this program can resume", o->dir,
                     GL_MANIFEST_NAME);
    } else {
        return rc;
    }
    memset(&m, 0, sizeof m);
    m.games = o->games;
    snprintf(m.settings, sizeof m.settings, "%s", settings);
    m.fingerprint = gk_xxh64(m.settings, strlen(m.settings), 0);
    snprintf(m.engine, sizeof m.engine, "%s", GK_VERSION);
    return gl_manifest_write(o->dir, &m, err, errcap);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Rank 0: the missing indices of 0..N-1, after every writer has cut its torn tail. */
static int build_pool(coord_t *k, char *err, size_t errcap) {
    const sp_run_opts_t *o = k->o;
    char path[4200];
    /* Shards of ranks beyond this run's (an earlier run had more ranks): cut torn tails. */
    for (int r = k->ranks;; r++) {
        GK_RETURN_IF(gl_shard_path(o->dir, r, path, sizeof path), err, errcap, GK_E_INVALID,
                     "%s: path too long", o->dir);
        if (access(path, F_OK)) {
            if (r >= k->ranks + 4096) break;
            continue; /* ranks need not be contiguous; look a little further */
        }
        gl_writer_opts_t wo = {.level = o->level, .code = o->code, .stats = o->stats};
        gl_writer_t *w;
        uint64_t dropped = 0;
        GK_FORWARD_IF(gl_writer_open(&w, path, &wo, o->repair, &dropped, err, errcap));
        GK_FORWARD_IF(gl_writer_close(w, err, errcap));
        if (dropped && !o->quiet && o->out)
            fprintf(o->out, "selfplay: %s: cut %" PRIu64 " bytes of a torn frame\n", path, dropped);
    }
    gl_logset_t ls;
    GK_FORWARD_IF(gl_logset_open(&ls, o->dir, false, err, errcap));
    uint64_t total = 0;
    for (int i = 0; i < ls.nshards; i++) total += ls.shard[i].nindex;
    uint64_t *have = malloc((size_t)(total ? total : 1) * sizeof *have);
    if (!have) {
        gl_logset_free(&ls);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    uint64_t n = 0;
    for (int i = 0; i < ls.nshards; i++) {
        if (ls.shard[i].status != GL_SHARD_OK) {
            gk_fail(err, errcap, GK_E_FORMAT, "%s: %s (%s)", ls.path[i], ls.shard[i].problem,
                    ls.shard[i].status == GL_SHARD_TORN ? "torn" : "corrupt");
            gl_logset_free(&ls);
            free(have);
            return GK_E_FORMAT;
        }
        if (ls.shard[i].nindex) /* an empty shard has no index array */
            memcpy(have + n, ls.shard[i].index, ls.shard[i].nindex * sizeof *have);
        n += ls.shard[i].nindex;
    }
    gl_logset_free(&ls);
    qsort(have, (size_t)n, sizeof *have, cmp_u64);
    uint64_t distinct = 0, dups = 0, beyond = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i && have[i] == have[i - 1])
            dups++;
        else if (have[i] >= o->games)
            beyond++;
        else
            distinct++;
    }
    if (dups && !o->quiet && o->out)
        fprintf(o->out,
                "selfplay: warning: %" PRIu64 " games are stored twice (see gounki log "
                "verify)\n",
                dups);
    if (beyond) {
        free(have);
        return gk_fail(err, errcap, GK_E_MISMATCH,
                       "%s holds %" PRIu64 " games with an index >= %" PRIu64, o->dir, beyond,
                       o->games);
    }
    k->before = distinct;
    k->npool = o->games - distinct;
    /* The gaps of 0..N-1 around the sorted indices found (at most distinct + 1). */
    k->gaps = malloc((size_t)(distinct + 1) * sizeof *k->gaps);
    if (!k->gaps) {
        free(have);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    uint64_t lo = 0;
    size_t m = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i && have[i] == have[i - 1]) continue;
        if (have[i] > lo) k->gaps[m++] = (struct gap){lo, have[i]};
        lo = have[i] + 1;
    }
    if (lo < o->games) k->gaps[m++] = (struct gap){lo, o->games};
    k->ngaps = m;
    k->gcur = 0;
    k->gnext = m ? k->gaps[0].lo : 0;
    free(have);
    return 0;
}

/* Rank 0 at the end: the run's summary from every rank's counters; true when another rank
 * failed. */
static bool summarize(coord_t *k, sp_summary_t *sum) {
    const sp_run_opts_t *o = k->o;
    int64_t t[C_N];
    totals(k, t);
    bool any_failed = false;
    for (int r = 1; r < k->ranks; r++) any_failed |= k->rc[r][C_STATUS] == ST_FAILED;
    sum->rank = 0;
    sum->ranks = k->ranks;
    sum->games_total = o->games;
    sum->games_before = k->before;
    sum->games_played = (uint64_t)t[C_GAMES];
    sum->games_abandoned = (uint64_t)t[C_ABANDONED];
    sum->actions = (uint64_t)t[C_ACTIONS];
    sum->white = (uint64_t)t[C_WHITE];
    sum->draws = (uint64_t)t[C_DRAWS];
    sum->black = (uint64_t)t[C_BLACK];
    sum->seconds = gk_now_s() - k->t0;
    sum->complete = k->before + sum->games_played == o->games;
    sum->stopped = !sum->complete;
    gk_progress_end(&k->prog);
    return any_failed;
}

/* The reason of a rank that did not fail itself when another did: empty (sp_run's contract). */
static int failed_elsewhere(char *err, size_t errcap) {
    return gk_fail(err, errcap, GK_E_INVALID, "%s", "");
}

/* Agree on a status: every rank passes its own; all get the worst (max). */
static int agree(int mine, int *all, char *err, size_t errcap) {
    MPI_TRY(MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return 0;
}

static int run_rank(const sp_run_opts_t *o, sp_summary_t *sum, int rank, int ranks, char *err,
                    size_t errcap) {
    char settings[1024], e[512] = "", path[4200];
    int code = GK_OK, bad = 0, worst = 0;
    if (sp_settings_text(&o->set, settings, sizeof settings) < 0)
        code = gk_fail(e, sizeof e, GK_E_INVALID, "bad settings");
    if (rank == 0 && !code) code = manifest_setup(o, settings, e, sizeof e);
    GK_FORWARD_IF(agree(code != 0, &worst, err, errcap));
    if (worst)
        return rank == 0 ? gk_fail(err, errcap, code, "%s", e) : failed_elsewhere(err, errcap);

    /* Every rank opens its shard: lock, cut a torn tail. */
    gl_writer_opts_t wo = {.level = o->level, .code = o->code, .stats = o->stats};
    gl_writer_t *w = NULL;
    uint64_t dropped = 0;
    if (gl_shard_path(o->dir, rank, path, sizeof path))
        code = gk_fail(e, sizeof e, GK_E_INVALID, "%s: path too long", o->dir);
    else
        code = gl_writer_open(&w, path, &wo, o->repair, &dropped, e, sizeof e);
    GK_FORWARD_IF(agree(code != 0, &worst, err, errcap));
    if (worst) {
        gl_writer_close(w, NULL, 0);
        return code ? gk_fail(err, errcap, code, "rank %d: %s", rank, e)
                    : failed_elsewhere(err, errcap);
    }
    if (dropped && !o->quiet && o->out)
        fprintf(o->out,
                "selfplay: %s: cut %" PRIu64 " bytes of a torn frame (its games are "
                "played again)\n",
                path, dropped);

    rank_state_t *s = calloc(1, sizeof *s);
    coord_t *k = calloc(1, sizeof *k);
    int total_workers = o->games_at_once;
    if (!s || !k)
        bad = 1;
    else {
        s->o = o;
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv_work, NULL);
        pthread_cond_init(&s->cv_coord, NULL);
        k->s = s;
        k->o = o;
        k->rank = rank;
        k->ranks = ranks;
        k->w = w;
    }
    GK_FORWARD_IF(agree(bad, &worst, err, errcap));
    if (!worst && MPI_Allreduce(&o->games_at_once, &total_workers, 1, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Allreduce failed");
    if (rank == 0 && !worst) {
        k->total_workers = total_workers;
        k->rc = calloc((size_t)ranks, sizeof *k->rc);
        k->done = calloc((size_t)ranks, sizeof *k->done);
        code = !k->rc || !k->done ? gk_fail(e, sizeof e, GK_E_NOMEM, "out of memory")
                                  : build_pool(k, e, sizeof e);
    }
    GK_FORWARD_IF(agree(code != 0, &worst, err, errcap));
    int rc = 0;
    if (worst) {
        rc = rank == 0 ? gk_fail(err, errcap, code, "%s", e) : failed_elsewhere(err, errcap);
        goto out;
    }
    if (rank == 0 && !o->quiet && o->out)
        fprintf(o->out,
                "selfplay: %s: %" PRIu64 " of %" PRIu64 " games done, %" PRIu64
                " to play on %d rank%s x %d game%s at once\n",
                o->dir, k->before, o->games, k->npool, ranks, ranks > 1 ? "s" : "",
                o->games_at_once, o->games_at_once > 1 ? "s" : "");
    if (rank == 0 && k->npool == 0) {
        pthread_mutex_lock(&s->mu);
        s->no_more = true;
        pthread_mutex_unlock(&s->mu);
    }

    k->t0 = gk_now_s();
    k->last_prog = k->t0;
    gk_progress_init(&k->prog, o->quiet ? NULL : o->out, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    if (o->set.mcts.threads > 1 && omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
    int coord_rc = 0;
#pragma omp parallel num_threads(o->games_at_once + 1)
    {
        if (omp_get_thread_num() == 0) {
            coord_rc = coordinate(k, e, sizeof e);
            if (coord_rc) { /* let the workers go */
                pthread_mutex_lock(&s->mu);
                s->quit = true;
                atomic_store(&s->stop, 1);
                pthread_cond_broadcast(&s->cv_work);
                pthread_mutex_unlock(&s->mu);
            }
        } else {
            worker(s);
        }
    }
    if (coord_rc) {
        /* Keep what is finished: the games in the writer are sound. */
        collect(k, true, NULL, 0);
        rc = gk_fail(err, errcap, coord_rc, "rank %d: %s", rank, e);
        goto out;
    }
    if (k->failed) {
        rc = gk_fail(err, errcap, GK_E_INVALID, "rank %d: %s", rank, k->err);
        goto out;
    }
    if (rank == 0 && summarize(k, sum))
        rc = gk_fail(err, errcap, GK_E_INVALID,
                     "another rank failed (its message is above); rerun to resume");
out:
    if (w) {
        char e2[512];
        int crc = gl_writer_close(w, e2, sizeof e2);
        if (crc && !rc) rc = gk_fail(err, errcap, crc, "rank %d: %s", rank, e2);
    }
    if (s) {
        for (size_t i = 0; i < s->nfin; i++) gl_buf_free(&s->fin[i].rec);
        free(s->fin);
        free(s->queue);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv_work);
        pthread_cond_destroy(&s->cv_coord);
        free(s);
    }
    if (k) {
        free(k->gaps);
        free(k->rc);
        free(k->done);
        free(k);
    }
    return rc;
}

int sp_run(const sp_run_opts_t *opts, sp_summary_t *sum, char *err, size_t errcap) {
    memset(sum, 0, sizeof *sum);
    if (err && errcap) err[0] = 0;
    sp_run_opts_t oo = *opts; /* zeros mean defaults */
    const sp_run_opts_t *o = &oo;
    if (oo.games_at_once == 0) oo.games_at_once = 1;
    if (oo.frame_games == 0) oo.frame_games = SP_FRAME_GAMES;
    if (oo.frame_seconds <= 0) oo.frame_seconds = SP_FRAME_SECONDS;
    if (oo.level == 0) oo.level = SP_ZSTD_LEVEL;
    if (o->games_at_once < 1 || o->games_at_once > 4096 || !o->dir || o->level < 1 ||
        o->level > 22 || (o->code != GL_CODE_INDEX && o->code != GL_CODE_RAW) ||
        o->frame_games > GL_MAX_FRAME_GAMES)
        return gk_fail(err, errcap, GK_E_ARG, "bad run options");
    int inited = 0, provided = 0;
    if (MPI_Initialized(&inited) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Initialized failed");
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Init_thread failed");
    if (!inited && provided < MPI_THREAD_FUNNELED) {
        MPI_Finalize();
        return gk_fail(err, errcap, GK_E_MPI, "this MPI does not support MPI_THREAD_FUNNELED");
    }
    int rank = 0, ranks = 1, rc;
    /* Errors come back as codes, so that a rank can still write what it has. */
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &ranks) != MPI_SUCCESS)
        rc = gk_fail(err, errcap, GK_E_MPI, "MPI setup failed");
    else
        rc = run_rank(o, sum, rank, ranks, err, errcap);
    sum->rank = rank;
    sum->ranks = ranks;
    if (!inited && MPI_Finalize() != MPI_SUCCESS && !rc)
        rc = gk_fail(err, errcap, GK_E_MPI, "MPI_Finalize failed");
    return rc;
}
