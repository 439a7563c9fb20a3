/*
 * selfplay/scheduler.c -- sp_run(): one MPI rank of a self-play run (see selfplay.h).
 *
 * Threads of a rank: OpenMP thread 0 is the coordinator, the only one to call MPI
 * (MPI_THREAD_FUNNELED): it leases work, collects finished games into the shard
 * writer, reports progress and watches the stop flag.  Threads 1..games_at_once are
 * workers: each takes a game index from the rank's queue, plays it with its own search
 * and encodes its record, so records reach the coordinator as finished bytes.
 *
 * Messages (MPI_COMM_WORLD, int64 payloads, all sent with MPI_Isend):
 *   REQ   r -> 0   {want, m, i_1 .. i_m}        r has `want` idle workers and finished
 *                                               games i_1 .. i_m
 *   GRANT 0 -> r   {k, j_1 .. j_k, m, v_1 .. v_m, final}
 *                                               k games leased; v: keep i_x (1) or drop
 *                                               it (0); final: no more work will come
 *   PROG  r -> 0   counters                     cumulative, every second (a sign of life)
 *   STOP  0 -> r   {}                           stop now (signal or failure elsewhere)
 *   DONE  r -> 0   counters                     r wrote all it will write
 *   BYE   0 -> r   {abandon}                    last message to r: r may finalise (or,
 *                                               when a rank was lost, must not)
 * A rank asks only for idle workers (no prefetch): at the end of a run no rank sits on
 * games another could play.  Rank 0 serves its own workers from the pool directly.
 * A rank writes a game only once rank 0 said to keep it: rank 0 keeps the first report of
 * each game from a rank that holds its lease, so a game leased again (its lease ran out,
 * or its rank was lost) is written once whoever finishes first.  No call blocks on
 * another rank: sends are MPI_Isend completed by MPI_Test, receives follow MPI_Iprobe,
 * and every wait for an answer has a deadline (selfplay.h, SP_PEER_SECONDS and
 * SP_STOP_WAIT), after which the rank that does not answer is given up.
 * Blocking receives are avoided (Open MPI spins in them): the coordinator polls with
 * MPI_Iprobe and sleeps on a condition variable for at most POLL_MS between polls.
 */
#include "selfplay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
#include "mpi_send.h"

#define POLL_MS       2
#define LEASE_MAX     64                  /* most games per lease, and per report */
#define MSG_MAX       (3 + 2 * LEASE_MAX) /* the longest message: a GRANT */
#define HEARTBEAT_S   1.0                 /* a rank's PROG: also its sign of life */
#define ASK_AGAIN_S   0.2                 /* after "no work now, but some may come back" */
#define AUDIT_GRACE_S 2.0 /* a lost rank's last kept games: looked for this long after a frame */
enum { TAG_REQ = 7101, TAG_GRANT, TAG_PROG, TAG_STOP, TAG_DONE, TAG_BYE };

/* Counters a rank reports (cumulative). */
enum {
    C_GAMES,
    C_ACTIONS,
    C_TURNS,
    C_WHITE,
    C_DRAWS,
    C_BLACK,
    C_ABANDONED,
    C_DROPPED,
    C_STATUS,
    C_N
};
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

/* ------------------------------------------------------------------ workers */

/* The array a of *cap elements (n in use) with room for one more: a itself, or a
 * reallocation doubling from 16; NULL when memory runs out (a and *cap left as they were). */
static void *room_for_one(void *a, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return a;
    size_t c = *cap ? 2 * *cap : 16;
    void *b = realloc(a, c * elem);
    if (b) *cap = c;
    return b;
}

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
            finished_t *fa = room_for_one(s->fin, &s->fincap, s->nfin, sizeof *s->fin);
            if (fa) s->fin = fa;
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

/* A lease held by a rank (rank 0's books): t is when it was leased, < 0 once it has run
 * out and was leased again (the holder may still report it first). */
typedef struct held {
    uint64_t index;
    double t;
} held_t;

typedef struct peer {
    int64_t c[C_N]; /* latest counters */
    double heard;   /* last message */
    bool done, lost;
    held_t *held;
    size_t nheld, cap;
    /* The games the last GRANT told this rank to keep.  The rank's next REQ or DONE says
     * that GRANT arrived; until then, should the rank be lost, the GRANT may have been cut
     * off with them and nobody would write them: audit() looks for them on disk. */
    uint64_t limbo[LEASE_MAX];
    int nlimbo;
} peer_t;

/* A game leased more than once: pending until leased again, owned once reported. */
typedef struct relet {
    uint64_t index;
    int holder; /* the rank whose lease ran out: not given the game again */
    bool pending, owned;
} relet_t;

typedef struct coord {
    rank_state_t *s;
    const sp_run_opts_t *o;
    int rank, ranks;
    gl_writer_t *w;
    int64_t c[C_N]; /* this rank's counters */
    double t0, last_prog, first_pending, stop_wait;
    ms_queue_t sq; /* this rank's sends in flight */
    /* rank != 0: finished games to report; the first nsent are in the REQ in flight */
    finished_t *claim;
    size_t nclaim, capclaim, nsent;
    bool req_out;   /* a REQ is in flight */
    double req_t;   /* ... since */
    double ask_t;   /* ask for work again from then on (rank 0 had none yet) */
    bool lost0;     /* rank 0 did not answer */
    bool abandon;   /* leave MPI without MPI_Finalize */
    bool stop_sent; /* rank 0: STOP sent */
    double stop_t;  /* when this rank began to stop */
    /* rank 0 only */
    /* The games still to lease are the gaps between the games found in DIR: ranges
     * [lo, hi), so that memory grows with the games already played, not with --games. */
    struct gap {
        uint64_t lo, hi;
    } * gaps;
    size_t ngaps, gcur; /* gaps[gcur] holds the next index to lease, gnext */
    uint64_t gnext;
    uint64_t npool, next; /* npool indices to play, next of them leased */
    peer_t *peer;         /* every rank's leases and counters */
    relet_t *relet;
    size_t nrelet, caprelet;
    double slowest; /* the longest a game took from lease to report */
    int nlost;
    int64_t released;
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
        for (int i = 0; i < C_STATUS; i++) t[i] += r == 0 ? k->c[i] : k->peer[r].c[i];
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

static void nap(void) {
    ms_nap(POLL_MS);
}

/* ---- sending: every send is nonblocking, so that no rank waits on one it cannot reach */

static int post(coord_t *k, const int64_t *v, int n, int to, int tag, char *err, size_t errcap) {
    return ms_post(&k->sq, v, n, MPI_INT64_T, to, tag, err, errcap);
}

/* ---- the shard writer */

/* Writes a frame when it is due (or forced): --frame-games, --frame-seconds, 8 MB. */
static int flush_due(coord_t *k, bool force, char *err, size_t errcap) {
    if (!gl_writer_pending(k->w)) return 0;
    if (force || gl_writer_pending(k->w) >= k->o->frame_games ||
        gk_now_s() - k->first_pending >= k->o->frame_seconds ||
        gl_writer_pending_bytes(k->w) >= (8u << 20))
        return gl_writer_flush(k->w, err, errcap);
    return 0;
}

/* A finished game: into the writer when this rank owns it, else dropped (another rank
 * reported it first).  Frees its record. */
static int keep(coord_t *k, finished_t *f, bool owned, char *err, size_t errcap) {
    int rc = 0;
    if (!owned) {
        k->c[C_DROPPED]++;
    } else {
        if (gl_writer_pending(k->w) == 0) k->first_pending = gk_now_s();
        rc = gl_writer_add_encoded(k->w, f->index, f->rec.p, f->rec.n, err, errcap);
        if (!rc) {
            k->c[C_GAMES]++;
            k->c[C_ACTIONS] += f->actions;
            k->c[C_TURNS] += f->turns;
            k->c[C_WHITE] += f->result == GK_WIN_WHITE;
            k->c[C_DRAWS] += f->result == GK_DRAW;
            k->c[C_BLACK] += f->result == GK_WIN_BLACK;
            if (gl_writer_pending(k->w) >= k->o->frame_games)
                rc = gl_writer_flush(k->w, err, errcap);
        }
    }
    gl_buf_free(&f->rec);
    return rc;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every game index in DIR's shards, sorted, into *have (malloc'd; *n of them).  strict:
 * a damaged shard is an error; else its sound frames count (a rank given up as lost may
 * be writing its shard as it is read). */
static int read_indices(const sp_run_opts_t *o, bool strict, uint64_t **have_out, uint64_t *n_out,
                        char *err, size_t errcap) {
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
        if (strict && ls.shard[i].status != GL_SHARD_OK) {
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
    *have_out = have;
    *n_out = n;
    return 0;
}

/* ---- rank 0's books: leases, reports, lost ranks */

static int hold(peer_t *p, uint64_t idx, double t) {
    held_t *h = room_for_one(p->held, &p->cap, p->nheld, sizeof *p->held);
    if (!h) return -1;
    p->held = h;
    p->held[p->nheld++] = (held_t){idx, t};
    return 0;
}

static relet_t *relet_find(coord_t *k, uint64_t idx) {
    for (size_t i = 0; i < k->nrelet; i++)
        if (k->relet[i].index == idx) return &k->relet[i];
    return NULL;
}

/* Game idx goes back to the pool, not to be given to `holder` again; a game already
 * owned (reported and kept) stays where it is unless `disown`. */
static int release(coord_t *k, uint64_t idx, int holder, bool disown) {
    relet_t *e = relet_find(k, idx);
    if (e && e->owned) {
        if (!disown) return 0;
        e->owned = false;
    }
    if (!e) {
        relet_t *a = room_for_one(k->relet, &k->caprelet, k->nrelet, sizeof *k->relet);
        if (!a) return -1;
        k->relet = a;
        e = &k->relet[k->nrelet++];
        *e = (relet_t){.index = idx};
    }
    e->holder = holder;
    e->pending = true;
    k->released++;
    return 0;
}

/* Rank 0: up to `want` indices for rank r with `want` idle workers: games leased again
 * first, then the pool. */
static uint64_t lease(coord_t *k, int r, uint64_t want, uint64_t *out) {
    uint64_t got = 0;
    double t = gk_now_s();
    for (size_t i = 0; i < k->nrelet && got < want; i++) {
        relet_t *e = &k->relet[i];
        if (!e->pending || e->holder == r) continue;
        if (hold(&k->peer[r], e->index, t)) break;
        e->pending = false;
        out[got++] = e->index;
    }
    uint64_t left = k->npool - k->next;
    uint64_t cap = left / (2u * (uint64_t)k->total_workers);
    if (cap < 1) cap = 1;
    if (k->o->lease > 0 && cap > (uint64_t)k->o->lease) cap = (uint64_t)k->o->lease;
    if (got >= cap) return got;
    want = want - got > cap - got ? cap - got : want - got;
    if (want > left) want = left;
    for (uint64_t i = 0; i < want; i++) {
        while (k->gnext >= k->gaps[k->gcur].hi) k->gnext = k->gaps[++k->gcur].lo;
        if (hold(&k->peer[r], k->gnext, t)) break;
        out[got++] = k->gnext++;
        k->next++;
    }
    return got;
}

/* Rank 0: rank r reports game idx finished.  True when r is to keep it: r holds the lease
 * and no other rank reported the game first. */
static bool report(coord_t *k, int r, uint64_t idx) {
    peer_t *p = &k->peer[r];
    size_t i = 0;
    while (i < p->nheld && p->held[i].index != idx) i++;
    if (i == p->nheld) return false; /* not leased to r (r was given up as lost) */
    held_t h = p->held[i];
    p->held[i] = p->held[--p->nheld];
    relet_t *e = relet_find(k, idx);
    if (e) {
        if (e->owned) return false;
        e->owned = true;
        e->pending = false;
    }
    double took = gk_now_s() - h.t;
    if (h.t >= 0 && took > k->slowest) k->slowest = took;
    return true;
}

static double lease_deadline(const coord_t *k) {
    if (k->o->lease_seconds > 0) return k->o->lease_seconds;
    if (k->slowest <= 0) return INFINITY;
    double d = SP_LEASE_FACTOR * k->slowest;
    return d > SP_LEASE_SECONDS ? d : SP_LEASE_SECONDS;
}

/* Rank 0: gives rank r up; its leases go back to the pool. */
static int lose(coord_t *k, int r, const char *why) {
    peer_t *p = &k->peer[r];
    p->lost = true;
    k->nlost++;
    size_t n = p->nheld;
    for (size_t i = 0; i < n; i++)
        if (release(k, p->held[i].index, r, false)) return -1;
    p->nheld = 0;
    if (k->o->out)
        fprintf(k->o->out,
                "selfplay: rank %d %s: given up as lost; its %zu leased game%s leased again\n", r,
                why, n, n == 1 ? "" : "s");
    return 0;
}

/* Rank 0: the games the last GRANT to a lost rank told it to keep, once that rank has had
 * the time to write them (a frame's wait, frame_seconds, and AUDIT_GRACE_S), are looked
 * for in DIR; those missing were cut off with the GRANT and are leased again.  A rank that
 * got the GRANT but stalled longer than that before writing would write them twice. */
static int audit(coord_t *k, bool stopping, char *err, size_t errcap) {
    double t = gk_now_s();
    for (int r = 1; r < k->ranks && !stopping; r++) {
        peer_t *p = &k->peer[r];
        if (!p->lost || !p->nlimbo || t < p->heard + k->o->frame_seconds + AUDIT_GRACE_S) continue;
        uint64_t *have = NULL, n = 0;
        GK_FORWARD_IF(read_indices(k->o, false, &have, &n, err, errcap));
        int missing = 0;
        for (int i = 0; i < p->nlimbo; i++) {
            if (n && bsearch(&p->limbo[i], have, n, sizeof *have, cmp_u64)) continue;
            if (release(k, p->limbo[i], r, true)) {
                free(have);
                return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            }
            missing++;
        }
        free(have);
        if (k->o->out && missing)
            fprintf(k->o->out,
                    "selfplay: rank %d: %d of the %d games its last grant kept are not on disk;"
                    " leased again\n",
                    r, missing, p->nlimbo);
        p->nlimbo = 0;
    }
    return 0;
}

/* Rank 0: ranks gone silent are lost; leases past their deadline are leased again. */
static int check_peers(coord_t *k, bool stopping) {
    double t = gk_now_s(), dl = lease_deadline(k);
    for (int r = 0; r < k->ranks; r++) {
        peer_t *p = &k->peer[r];
        if (p->lost) continue;
        char why[96] = "";
        if (r > 0 && !p->done && t - p->heard > k->o->peer_seconds)
            snprintf(why, sizeof why, "not heard from for %.1f s", t - p->heard);
        else if (r > 0 && !p->done && stopping && k->stop_sent && t - k->stop_t > k->stop_wait)
            snprintf(why, sizeof why, "has not stopped %.1f s after the stop", t - k->stop_t);
        if (why[0]) {
            if (lose(k, r, why)) return -1;
            continue;
        }
        for (size_t i = 0; i < p->nheld; i++)
            if (p->held[i].t >= 0 && t - p->held[i].t > dl) {
                if (release(k, p->held[i].index, r, false)) return -1;
                p->held[i].t = -1;
            }
    }
    return 0;
}

/* Rank 0: no game is left to lease or outstanding (what "no more work" means). */
static bool all_leased_back(const coord_t *k) {
    if (k->next < k->npool) return false;
    for (size_t i = 0; i < k->nrelet; i++)
        if (k->relet[i].pending) return false;
    for (int r = 0; r < k->ranks; r++)
        if ((!k->peer[r].lost && k->peer[r].nheld) || (k->peer[r].lost && k->peer[r].nlimbo))
            return false;
    return true;
}

/* Rank 0: answers a REQ {want, m, i_1 .. i_m} of rank r with a GRANT {k, leases.., m,
 * verdicts.., final}. */
static int answer(coord_t *k, int r, const int64_t *buf, int n, bool stopping, char *err,
                  size_t errcap) {
    if (n < 2 || buf[1] < 0 || buf[1] > LEASE_MAX || n != 2 + buf[1])
        return gk_fail(err, errcap, GK_E_MPI, "bad request from rank %d", r);
    peer_t *p = &k->peer[r];
    int64_t g[MSG_MAX];
    uint64_t want = buf[0] < 0 ? 0 : buf[0] > LEASE_MAX ? LEASE_MAX : (uint64_t)buf[0];
    int m = (int)buf[1];
    int64_t verdict[LEASE_MAX];
    p->nlimbo = 0; /* r has no REQ in flight but this one: it has the last GRANT */
    for (int i = 0; i < m; i++) {
        verdict[i] = !p->lost && report(k, r, (uint64_t)buf[2 + i]);
        if (verdict[i]) p->limbo[p->nlimbo++] = (uint64_t)buf[2 + i];
    }
    uint64_t got = stopping || p->lost || !want ? 0 : lease(k, r, want, (uint64_t *)(g + 1));
    g[0] = (int64_t)got;
    g[1 + got] = m;
    memcpy(g + 2 + got, verdict, (size_t)m * sizeof *verdict);
    bool final = stopping || p->lost || (got == 0 && all_leased_back(k));
    g[2 + got + (uint64_t)m] = final;
    return post(k, g, 3 + (int)got + m, r, TAG_GRANT, err, errcap);
}

/* Rank 0: handles every message waiting. */
static int serve(coord_t *k, bool stopping, char *err, size_t errcap) {
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MS_TRY(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        if (!flag) return 0;
        int n = 0;
        MS_TRY(MPI_Get_count(&st, MPI_INT64_T, &n));
        int64_t buf[MSG_MAX];
        if (n < 0 || n > MSG_MAX || st.MPI_SOURCE <= 0 || st.MPI_SOURCE >= k->ranks)
            return gk_fail(err, errcap, GK_E_MPI,
                           "unexpected message (tag %d, %d values) from rank %d", st.MPI_TAG, n,
                           st.MPI_SOURCE);
        MS_TRY(MPI_Recv(buf, n, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        int r = st.MPI_SOURCE;
        peer_t *p = &k->peer[r];
        p->heard = gk_now_s();
        switch (st.MPI_TAG) {
        case TAG_REQ: GK_FORWARD_IF(answer(k, r, buf, n, stopping, err, errcap)); break;
        case TAG_PROG:
        case TAG_DONE:
            if (n != C_N) return gk_fail(err, errcap, GK_E_MPI, "bad counters from rank %d", r);
            if (!p->lost) memcpy(p->c, buf, sizeof p->c);
            if (st.MPI_TAG == TAG_DONE) {
                if (p->done) return gk_fail(err, errcap, GK_E_MPI, "rank %d finished twice", r);
                p->done = true;
                p->nlimbo = 0; /* r wrote all it will write */
                if (p->lost) { /* it came back after all: let it go */
                    int64_t bye = 1;
                    GK_FORWARD_IF(post(k, &bye, 1, r, TAG_BYE, err, errcap));
                }
            }
            break;
        default:
            return gk_fail(err, errcap, GK_E_MPI, "unexpected message tag %d from rank %d",
                           st.MPI_TAG, r);
        }
    }
}

/* ---- rank != 0 */

/* Applies a GRANT {k, leases.., m, verdicts.., final} to the REQ in flight. */
static int granted(coord_t *k, const int64_t *buf, int n, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    int64_t got = n >= 1 ? buf[0] : -1;
    if (got < 0 || got > LEASE_MAX || n < got + 3 || buf[1 + got] != (int64_t)k->nsent ||
        n != got + 3 + buf[1 + got])
        return gk_fail(err, errcap, GK_E_MPI, "bad grant from rank 0");
    for (size_t i = 0; i < k->nsent; i++)
        GK_FORWARD_IF(keep(k, &k->claim[i], buf[2 + got + (int64_t)i] != 0, err, errcap));
    if (k->nsent) /* claim is NULL until a game was reported */
        memmove(k->claim, k->claim + k->nsent, (k->nclaim - k->nsent) * sizeof *k->claim);
    k->nclaim -= k->nsent;
    k->nsent = 0;
    k->req_out = false;
    bool final = buf[n - 1] != 0;
    pthread_mutex_lock(&s->mu);
    for (int64_t i = 0; i < got; i++) queue_push(s, (uint64_t)buf[1 + i]);
    if (final) s->no_more = true;
    pthread_cond_broadcast(&s->cv_work);
    pthread_mutex_unlock(&s->mu);
    if (got == 0 && !final) k->ask_t = gk_now_s() + ASK_AGAIN_S;
    return 0;
}

/* Rank != 0: handles GRANT, STOP and BYE messages.  Sets *bye on BYE. */
static int listen0(coord_t *k, bool *bye, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MS_TRY(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        if (!flag) return 0;
        int n = 0;
        MS_TRY(MPI_Get_count(&st, MPI_INT64_T, &n));
        int64_t buf[MSG_MAX];
        if (n < 0 || n > MSG_MAX ||
            (st.MPI_TAG != TAG_GRANT && st.MPI_TAG != TAG_STOP && st.MPI_TAG != TAG_BYE))
            return gk_fail(err, errcap, GK_E_MPI, "unexpected message (tag %d) from rank 0",
                           st.MPI_TAG);
        MS_TRY(MPI_Recv(buf, n, MPI_INT64_T, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (st.MPI_TAG == TAG_GRANT) {
            if (!k->req_out) return gk_fail(err, errcap, GK_E_MPI, "grant without a request");
            GK_FORWARD_IF(granted(k, buf, n, err, errcap));
        } else if (st.MPI_TAG == TAG_STOP) {
            pthread_mutex_lock(&s->mu);
            atomic_store(&s->stop, 1);
            pthread_cond_broadcast(&s->cv_work);
            pthread_mutex_unlock(&s->mu);
        } else {
            k->abandon = n >= 1 && buf[0] != 0;
            *bye = true;
            return 0;
        }
    }
}

/* Rank != 0: sends a REQ {want, m, i_1 .. i_m} when work is wanted or games are to be
 * reported, and none is in flight. */
static int ask(coord_t *k, int idle, bool no_more, bool stopping, char *err, size_t errcap) {
    if (k->req_out) return 0;
    bool want = idle > 0 && !no_more && !stopping && gk_now_s() >= k->ask_t;
    if (!want && k->nclaim == 0) return 0;
    int64_t v[2 + LEASE_MAX];
    size_t m = k->nclaim > LEASE_MAX ? LEASE_MAX : k->nclaim;
    v[0] = want ? (idle > LEASE_MAX ? LEASE_MAX : idle) : 0;
    v[1] = (int64_t)m;
    for (size_t i = 0; i < m; i++) v[2 + i] = (int64_t)k->claim[i].index;
    GK_FORWARD_IF(post(k, v, 2 + (int)m, 0, TAG_REQ, err, errcap));
    k->nsent = m;
    k->req_out = true;
    k->req_t = gk_now_s();
    return 0;
}

/* Moves the workers' finished games on: rank 0 decides at once whether it keeps each,
 * another rank queues them to report. */
static int collect(coord_t *k, char *err, size_t errcap) {
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
        if (rc) {
            gl_buf_free(&f->rec);
        } else if (k->rank == 0) {
            rc = keep(k, f, report(k, 0, f->index), err, errcap);
        } else {
            finished_t *a = room_for_one(k->claim, &k->capclaim, k->nclaim, sizeof *k->claim);
            if (!a) {
                gl_buf_free(&f->rec);
                rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
                continue;
            }
            k->claim = a;
            k->claim[k->nclaim++] = *f;
        }
    }
    free(fin);
    return rc;
}

static void wait_coord(rank_state_t *s) {
    struct timespec ts;
    gk_deadline_ms(&ts, POLL_MS);
    pthread_mutex_lock(&s->mu);
    if (s->nfin == 0) pthread_cond_timedwait(&s->cv_coord, &s->mu, &ts);
    pthread_mutex_unlock(&s->mu);
}

/* Turns the caller's signal flag into this rank's stop; the first time, writes what the
 * rank has at once (a kill may follow the signal).  Returns whether the rank stops. */
static int note_stop(coord_t *k, bool *stopping, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    const sp_run_opts_t *o = k->o;
    if (o->stop && *o->stop && !atomic_load(&s->stop)) {
        pthread_mutex_lock(&s->mu);
        atomic_store(&s->stop, 1);
        pthread_cond_broadcast(&s->cv_work);
        pthread_mutex_unlock(&s->mu);
    }
    *stopping = atomic_load(&s->stop) != 0;
    if (*stopping && k->stop_t == 0) {
        k->stop_t = gk_now_s();
        GK_FORWARD_IF(flush_due(k, true, err, errcap));
    }
    return 0;
}

/* The workers have nothing left to do: this rank's part is over. */
static bool local_over(coord_t *k) {
    rank_state_t *s = k->s;
    pthread_mutex_lock(&s->mu);
    bool idle_all = s->busy == 0 && s->nfin == 0;
    bool over = idle_all && ((s->qlen == 0 && s->no_more) || atomic_load(&s->stop));
    if (s->failed && !k->failed) {
        snprintf(k->err, sizeof k->err, "%s", s->err);
        k->failed = true;
    }
    if (over) {
        s->quit = true;
        k->c[C_ABANDONED] = s->abandoned;
        pthread_cond_broadcast(&s->cv_work);
    }
    pthread_mutex_unlock(&s->mu);
    return over;
}

static int64_t status_of(coord_t *k) {
    return k->failed ? ST_FAILED : atomic_load(&k->s->stop) != 0 ? ST_STOPPED : ST_OK;
}

/* Rank 0: every other rank has ended or was given up (a rank may be both). */
static bool everyone_ended(const coord_t *k) {
    for (int r = 1; r < k->ranks; r++)
        if (!k->peer[r].done && !k->peer[r].lost) return false;
    return true;
}

/* Rank 0's loop: returns when every rank has ended or was given up. */
static int coordinate0(coord_t *k, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    int games_at_once = k->o->games_at_once;
    bool finished_local = false;
    double next_check = 0;
    for (;;) {
        bool stopping;
        GK_FORWARD_IF(note_stop(k, &stopping, err, errcap));
        GK_FORWARD_IF(serve(k, stopping, err, errcap));
        GK_FORWARD_IF(ms_progress(&k->sq, err, errcap));
        for (int r = 1; r < k->ranks && !stopping; r++) /* a rank that failed stops everyone */
            if (k->peer[r].c[C_STATUS] == ST_FAILED) {
                atomic_store(&s->stop, 1);
                stopping = true;
            }
        if (stopping && !k->stop_sent) {
            int64_t none = 0;
            for (int r = 1; r < k->ranks; r++)
                if (!k->peer[r].done && !k->peer[r].lost)
                    GK_FORWARD_IF(post(k, &none, 0, r, TAG_STOP, err, errcap));
            k->stop_sent = true;
            if (k->stop_t == 0) k->stop_t = gk_now_s();
            pthread_mutex_lock(&s->mu);
            pthread_cond_broadcast(&s->cv_work);
            pthread_mutex_unlock(&s->mu);
        }
        double t = gk_now_s();
        if (t >= next_check) {
            if (check_peers(k, stopping)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            GK_FORWARD_IF(audit(k, stopping, err, errcap));
            next_check = t + 0.05;
        }
        if (!finished_local) {
            GK_FORWARD_IF(collect(k, err, errcap));
            pthread_mutex_lock(&s->mu);
            int idle = games_at_once - s->busy - (int)s->qlen;
            if (idle > 0 && !s->no_more && !atomic_load(&s->stop)) {
                uint64_t got[LEASE_MAX];
                uint64_t n = lease(k, 0, (uint64_t)(idle > LEASE_MAX ? LEASE_MAX : idle), got);
                for (uint64_t i = 0; i < n; i++) queue_push(s, got[i]);
                if (n == 0 && all_leased_back(k)) s->no_more = true;
                pthread_cond_broadcast(&s->cv_work);
            }
            pthread_mutex_unlock(&s->mu);
            GK_FORWARD_IF(flush_due(k, false, err, errcap));
            if (local_over(k)) {
                GK_FORWARD_IF(collect(k, err, errcap));
                GK_FORWARD_IF(flush_due(k, true, err, errcap));
                finished_local = true;
                k->c[C_STATUS] = status_of(k);
            }
        }
        progress(k, false);
        if (finished_local && everyone_ended(k)) return 0;
        wait_coord(s);
    }
}

/* Rank 0 at the end: BYE {abandon} to every rank that ended; waits a little for the
 * sends (a rank that ended may have been cut off since). */
static int farewell(coord_t *k, char *err, size_t errcap) {
    int64_t abandon = k->nlost > 0;
    for (int r = 1; r < k->ranks; r++)
        if (k->peer[r].done && !k->peer[r].lost)
            GK_FORWARD_IF(post(k, &abandon, 1, r, TAG_BYE, err, errcap));
    double t0 = gk_now_s();
    while (ms_pending(&k->sq) && gk_now_s() - t0 < k->stop_wait) {
        GK_FORWARD_IF(ms_progress(&k->sq, err, errcap));
        if (ms_pending(&k->sq)) nap();
    }
    if (ms_pending(&k->sq)) k->abandon = true;
    k->abandon |= k->nlost > 0;
    return 0;
}

/* Rank != 0's loop: returns after rank 0's BYE, or when rank 0 does not answer in time
 * (k->lost0). */
static int coordinate_r(coord_t *k, char *err, size_t errcap) {
    rank_state_t *s = k->s;
    int games_at_once = k->o->games_at_once;
    bool finished_local = false, sent_done = false, bye = false;
    double done_t = 0;
    for (;;) {
        bool stopping;
        GK_FORWARD_IF(note_stop(k, &stopping, err, errcap));
        GK_FORWARD_IF(listen0(k, &bye, err, errcap));
        if (bye) return 0;
        GK_FORWARD_IF(ms_progress(&k->sq, err, errcap));
        stopping = atomic_load(&s->stop) != 0;
        double t = gk_now_s();
        double patience = stopping ? k->stop_wait : k->o->peer_seconds;
        /* Rank 0 slow to answer, maybe cut off: what this rank owns goes to disk now, before
         * rank 0 gives it up and counts the run's games on disk. */
        if (k->req_out && t - k->req_t > HEARTBEAT_S)
            GK_FORWARD_IF(flush_due(k, true, err, errcap));
        if ((k->req_out && t - k->req_t > patience) ||
            (sent_done && t - done_t > patience + k->stop_wait)) {
            k->lost0 = true;
            return 0;
        }
        if (!finished_local) {
            GK_FORWARD_IF(collect(k, err, errcap));
            pthread_mutex_lock(&s->mu);
            int idle = games_at_once - s->busy - (int)s->qlen;
            bool no_more = s->no_more;
            pthread_mutex_unlock(&s->mu);
            GK_FORWARD_IF(ask(k, idle, no_more, stopping, err, errcap));
            GK_FORWARD_IF(flush_due(k, false, err, errcap));
            if (k->nclaim == 0 && !k->req_out && local_over(k)) {
                GK_FORWARD_IF(flush_due(k, true, err, errcap));
                finished_local = true;
                k->c[C_STATUS] = status_of(k);
            }
        }
        if (finished_local && !sent_done) {
            GK_FORWARD_IF(post(k, k->c, C_N, 0, TAG_DONE, err, errcap));
            sent_done = true;
            done_t = t;
        } else if (!finished_local && t - k->last_prog >= HEARTBEAT_S) {
            k->c[C_STATUS] = status_of(k);
            GK_FORWARD_IF(post(k, k->c, C_N, 0, TAG_PROG, err, errcap));
            k->last_prog = t;
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
    uint64_t *have = NULL, n = 0;
    GK_FORWARD_IF(read_indices(o, true, &have, &n, err, errcap));
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
 * failed.  With a rank lost, what it wrote is known only from DIR: the games are counted
 * there. */
static bool summarize(coord_t *k, sp_summary_t *sum) {
    const sp_run_opts_t *o = k->o;
    int64_t t[C_N];
    totals(k, t);
    bool any_failed = false;
    for (int r = 1; r < k->ranks; r++) any_failed |= k->peer[r].c[C_STATUS] == ST_FAILED;
    sum->rank = 0;
    sum->ranks = k->ranks;
    sum->games_total = o->games;
    sum->games_before = k->before;
    sum->games_played = (uint64_t)t[C_GAMES];
    sum->games_abandoned = (uint64_t)t[C_ABANDONED];
    sum->games_dropped = (uint64_t)t[C_DROPPED];
    sum->games_released = (uint64_t)k->released;
    sum->ranks_lost = k->nlost;
    sum->actions = (uint64_t)t[C_ACTIONS];
    sum->white = (uint64_t)t[C_WHITE];
    sum->draws = (uint64_t)t[C_DRAWS];
    sum->black = (uint64_t)t[C_BLACK];
    sum->seconds = gk_now_s() - k->t0;
    uint64_t *have = NULL, n = 0;
    char e[256];
    if (k->nlost && !read_indices(o, false, &have, &n, e, sizeof e)) {
        uint64_t distinct = 0;
        for (uint64_t i = 0; i < n; i++)
            distinct += (!i || have[i] != have[i - 1]) && have[i] < o->games;
        sum->games_played = distinct > k->before ? distinct - k->before : 0;
        free(have);
    }
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
    MS_TRY(MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return 0;
}

/* Frees k; the buffers of sends still in flight (to a rank that cannot be reached) stay
 * allocated, as MPI may still read them until the process ends. */
static void coord_free(coord_t *k) {
    if (!k) return;
    ms_free(&k->sq);
    for (size_t i = 0; i < k->nclaim; i++) gl_buf_free(&k->claim[i].rec);
    free(k->claim);
    for (int r = 0; k->peer && r < k->ranks; r++) free(k->peer[r].held);
    free(k->peer);
    free(k->relet);
    free(k->gaps);
    free(k);
}

/* The games of the run on this rank's threads; then rank 0 sums up. */
static int play(coord_t *k, sp_summary_t *sum, char *err, size_t errcap) {
    const sp_run_opts_t *o = k->o;
    rank_state_t *s = k->s;
    int rank = k->rank, ranks = k->ranks, rc = 0;
    char e[512] = "";
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
    for (int r = 0; r < ranks; r++) k->peer[r].heard = k->t0;
    gk_progress_init(&k->prog, o->quiet ? NULL : o->out, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    if (o->set.mcts.threads > 1 && omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
    int coord_rc = 0;
#pragma omp parallel num_threads(o->games_at_once + 1)
    {
        if (omp_get_thread_num() == 0) {
            coord_rc = rank == 0 ? coordinate0(k, e, sizeof e) : coordinate_r(k, e, sizeof e);
            if (!coord_rc && rank == 0) coord_rc = farewell(k, e, sizeof e);
            /* let the workers go (they have, unless this rank ends early) */
            pthread_mutex_lock(&s->mu);
            s->quit = true;
            if (coord_rc || k->lost0) atomic_store(&s->stop, 1);
            pthread_cond_broadcast(&s->cv_work);
            pthread_mutex_unlock(&s->mu);
        } else {
            worker(s);
        }
    }
    if (coord_rc || k->lost0) {
        /* Keep what is this rank's: the games in the writer are sound. */
        k->abandon = true;
        char e2[256];
        int frc = gl_writer_flush(k->w, e2, sizeof e2);
        uint64_t kept = (uint64_t)k->c[C_GAMES];
        if (k->lost0)
            return gk_fail(err, errcap, GK_E_MPI,
                           "rank %d: rank 0 did not answer for %.1f s: %" PRIu64
                           " games written%s%s; rerun to resume",
                           rank, gk_now_s() - k->req_t, kept, frc ? ", then " : "", frc ? e2 : "");
        return gk_fail(err, errcap, coord_rc, "rank %d: %s (%" PRIu64 " games written%s%s)", rank,
                       e, kept, frc ? ", then " : "", frc ? e2 : "");
    }
    if (rank != 0 && !k->abandon && !ms_drain(&k->sq, k->stop_wait, POLL_MS)) k->abandon = true;
    if (k->failed) return gk_fail(err, errcap, GK_E_INVALID, "rank %d: %s", rank, k->err);
    if (rank == 0 && summarize(k, sum))
        rc = gk_fail(err, errcap, GK_E_INVALID,
                     "another rank failed (its message is above); rerun to resume");
    return rc;
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
        k->stop_wait = o->peer_seconds < SP_STOP_WAIT ? o->peer_seconds : SP_STOP_WAIT;
        k->peer = calloc((size_t)ranks, sizeof *k->peer);
        bad = !k->peer;
    }
    GK_FORWARD_IF(agree(bad, &worst, err, errcap));
    if (!worst && MPI_Allreduce(&o->games_at_once, &total_workers, 1, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD) != MPI_SUCCESS)
        return gk_fail(err, errcap, GK_E_MPI, "MPI_Allreduce failed");
    if (rank == 0 && !worst) {
        k->total_workers = total_workers;
        code = build_pool(k, e, sizeof e);
    }
    GK_FORWARD_IF(agree(code != 0, &worst, err, errcap));
    int rc = 0;
    if (worst) {
        rc = rank == 0 ? gk_fail(err, errcap, code, "%s", e) : failed_elsewhere(err, errcap);
        goto out;
    }
    rc = play(k, sum, err, errcap);
out:
    if (w) {
        char e2[512];
        int crc = gl_writer_close(w, e2, sizeof e2);
        if (crc && !rc) rc = gk_fail(err, errcap, crc, "rank %d: %s", rank, e2);
    }
    sum->mpi_abandoned = k && k->abandon;
    coord_free(k);
    if (s) {
        for (size_t i = 0; i < s->nfin; i++) gl_buf_free(&s->fin[i].rec);
        free(s->fin);
        free(s->queue);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv_work);
        pthread_cond_destroy(&s->cv_coord);
        free(s);
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
    if (oo.peer_seconds <= 0) oo.peer_seconds = SP_PEER_SECONDS;
    if (oo.level == 0) oo.level = SP_ZSTD_LEVEL;
    if (o->games_at_once < 1 || o->games_at_once > 4096 || !o->dir || o->level < 1 ||
        o->level > 22 || (o->code != GL_CODE_INDEX && o->code != GL_CODE_RAW) ||
        o->frame_games > GL_MAX_FRAME_GAMES)
        return gk_fail(err, errcap, GK_E_ARG, "bad run options");
    int inited = 0, rank = 0, ranks = 1, rc;
    if (MPI_Initialized(&inited) != MPI_SUCCESS || !inited)
        return gk_fail(err, errcap, GK_E_MPI, "MPI is not initialised (the caller starts it)");
    /* Errors come back as codes, so that a rank can still write what it has. */
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &ranks) != MPI_SUCCESS)
        rc = gk_fail(err, errcap, GK_E_MPI, "MPI setup failed");
    else
        rc = run_rank(o, sum, rank, ranks, err, errcap);
    sum->rank = rank;
    sum->ranks = ranks;
    return rc;
}
