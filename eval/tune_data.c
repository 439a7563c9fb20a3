/* eval/tune_data.c -- training samples from self-play logs (contract in eval/tune.h). */
#include <math.h>
#include <stdatomic.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/gamelog.h"
#include "eval.h"
#include "tune.h"
#include "../common/clock.h"

typedef struct src_game {
    int src; /* which logset */
    gl_loc_t loc;
} src_game_t;

typedef struct worker {
    tune_vset_t v;
    tune_pset_t p;
    tune_data_stats_t st;
    int rc;
    char err[256];
} worker_t;

/* Score of the game for `side`: 1, 1/2 or 0. */
static float result_score(int result, int side) {
    if (result == GK_WIN_WHITE) return side == GK_WHITE ? 1.0f : 0.0f;
    if (result == GK_WIN_BLACK) return side == GK_BLACK ? 1.0f : 0.0f;
    return 0.5f;
}

static float clamp01(double x) {
    return x < 0 ? 0.0f : x > 1 ? 1.0f : (float)x;
}

/* Policy sample at p from the stored children of action statistics pl. */
static int add_policy(worker_t *w, const gk_pos_t *p, const gl_game_t *g,
                      const gl_action_stats_t *pl, uint64_t key, float *gbuf, float *tbuf) {
    gk_action_t acts[GK_MAX_ACTIONS];
    int n = gk_gen(p, acts);
    if (n < 2) return 0;
    int npf = w->p.nfeat;
    double sum = 0;
    memset(tbuf, 0, (size_t)n * sizeof *tbuf);
    for (int c = 0; c < pl->ntop; c++) {
        const gl_child_t *ch = &g->child[pl->first + (uint32_t)c];
        for (int a = 0; a < n; a++)
            if (acts[a] == ch->action) {
                tbuf[a] = (float)ch->visits;
                sum += ch->visits;
                break;
            }
    }
    if (!(sum > 0)) return 0;
    double t0 = gk_now_s();
    float f[EV_MAX_POLICY];
    for (int a = 0; a < n; a++) {
        ev_policy_trace(p, acts[a], f);
        memcpy(gbuf + (size_t)a * (size_t)npf, f, (size_t)npf * sizeof *f);
    }
    w->st.ptrace_secs += gk_now_s() - t0;
    w->st.candidates += (uint64_t)n;
    int rc = tune_pset_add(&w->p, n, gbuf, tbuf, key);
    if (rc) return rc;
    w->st.policy_positions++;
    return 0;
}

static int add_game(worker_t *w, const gl_game_t *g, uint64_t key, const tune_data_opts_t *o,
                    float *gbuf, float *tbuf) {
    const gk_game_t *gm = gk_game_by_id(g->rules.game);
    gk_pos_t p;
    gm->setup(&p, &g->rules);
    float f[EV_MAX_FEATURES];
    for (uint32_t i = 0; i < g->nactions; i++) {
        const gl_action_stats_t *pl = g->has_stats ? &g->stats[i] : NULL;
        /* Without statistics the opening is known only by its length in turns. */
        int kind = pl ? pl->kind
                   : g->set.open_kind != GL_OPEN_NONE && p.turn < g->set.open_turns
                       ? GL_ACTION_RANDOM
                       : GL_ACTION_SEARCH;
        w->st.actions++;
        if (kind == GL_ACTION_RANDOM || kind == GL_ACTION_BOOK) {
            w->st.skipped_opening++;
        } else if (kind != GL_ACTION_SEARCH || (o->target != TUNE_TARGET_RESULT && !pl)) {
            w->st.skipped_unsearched++;
        } else if (!gk_over(&p)) {
            float res = result_score(g->result, p.stm);
            float val = pl ? clamp01((pl->value + 1.0) * 0.5) : res;
            float t = o->target == TUNE_TARGET_RESULT  ? res
                      : o->target == TUNE_TARGET_VALUE ? val
                                                       : clamp01(o->mix * res + (1 - o->mix) * val);
            double t0 = gk_now_s();
            ev_trace(&p, f);
            w->st.trace_secs += gk_now_s() - t0;
            int rc = tune_vset_add(&w->v, f, t, p.hash, key);
            if (rc) return rc;
            w->st.positions++;
            if (o->policy && pl && pl->ntop > 0) {
                rc = add_policy(w, &p, g, pl, key, gbuf, tbuf);
                if (rc) return rc;
            }
        }
        if (gk_over(&p)) break; /* the decoder checked the replay; never play past the end */
        gk_play(&p, g->action[i]);
    }
    w->st.games++;
    return 0;
}

static void add_stats(tune_data_stats_t *a, const tune_data_stats_t *b) {
    a->games += b->games;
    a->duplicate_games += b->duplicate_games;
    a->actions += b->actions;
    a->positions += b->positions;
    a->policy_positions += b->policy_positions;
    a->skipped_opening += b->skipped_opening;
    a->skipped_unsearched += b->skipped_unsearched;
    a->trace_secs += b->trace_secs;
    a->ptrace_secs += b->ptrace_secs;
    a->candidates += b->candidates;
}

int tune_data_load(const char *const *paths, int npaths, const tune_data_opts_t *o, tune_vset_t *v,
                   tune_pset_t *p, tune_data_stats_t *st, char *err, size_t errcap) {
    memset(st, 0, sizeof *st);
    GK_RETURN_IF(npaths <= 0 || (o->policy && !p), err, errcap, GK_E_INVALID,
                 "no log directory given");
    double t0 = gk_now_s();
    gl_logset_t *ls = calloc((size_t)npaths, sizeof *ls);
    src_game_t *games = NULL;
    size_t ngames = 0, gcap = 0;
    int rc = 0, opened = 0;
    if (!ls) rc = GK_E_NOMEM;

    /* 1. Open and scan every source; list its games (one copy of each index). */
    for (int s = 0; s < npaths && !rc; s++) {
        char e[256];
        /* Its reasons name the directory or the shard. */
        if ((rc = gl_logset_open(&ls[s], paths[s], true, err, errcap))) break;
        opened = s + 1;
        if (ls[s].nshards == 0) {
            rc = gk_fail(err, errcap, GK_E_EMPTY, "%s: no game logs here (no shard-*.gkz files)",
                         paths[s]);
            break;
        }
        for (int k = 0; k < ls[s].nshards && !rc; k++) {
            if (ls[s].shard[k].status == GL_SHARD_CORRUPT) {
                rc =
                    gk_fail(err, errcap, GK_E_FORMAT, "%s: corrupt at byte %llu: %s", ls[s].path[k],
                            (unsigned long long)ls[s].shard[k].valid_end, ls[s].shard[k].problem);
            } else if (ls[s].shard[k].status == GL_SHARD_TORN) {
                st->torn_shards++;
            }
        }
        if (rc) break;
        gl_loc_t *locs = NULL;
        uint64_t n = 0;
        if ((rc = gl_logset_locate(&ls[s], &locs, &n, e, sizeof e))) {
            gk_fail(err, errcap, rc, "%s: %s", paths[s], e);
            break;
        }
        if (n == 0) {
            rc = gk_fail(err, errcap, GK_E_EMPTY, "%s: the logs hold no complete game", paths[s]);
            free(locs);
            break;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (i > 0 && locs[i].index == locs[i - 1].index) {
                st->duplicate_games++;
                continue;
            }
            if (ngames == gcap) {
                size_t nc = gcap ? 2 * gcap : 1024;
                src_game_t *q = realloc(games, nc * sizeof *q);
                if (!q) {
                    rc = GK_E_NOMEM;
                    break;
                }
                games = q;
                gcap = nc;
            }
            games[ngames++] = (src_game_t){s, locs[i]};
        }
        free(locs);
    }

    /* 2. Replay the games, each thread a contiguous range. */
    _Atomic uint64_t replayed = 0;
    int nthreads = o->threads > 0 ? o->threads : omp_get_max_threads();
    if (nthreads < 1) nthreads = 1;
    worker_t *wk = rc ? NULL : calloc((size_t)nthreads, sizeof *wk);
    if (!rc && !wk) rc = GK_E_NOMEM;
    if (!rc) {
        for (int t = 0; t < nthreads; t++) {
            tune_vset_init(&wk[t].v, v->nfeat);
            tune_pset_init(&wk[t].p, p ? p->nfeat : 0);
        }
#pragma omp parallel num_threads(nthreads)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            worker_t *w = &wk[t];
            size_t lo = ngames * (size_t)t / (size_t)nt, hi = ngames * (size_t)(t + 1) / (size_t)nt;
            gl_reader_t **rd = calloc((size_t)npaths, sizeof *rd);
            float *gbuf = malloc((size_t)GK_MAX_ACTIONS * EV_MAX_POLICY * sizeof *gbuf);
            float *tbuf = malloc((size_t)GK_MAX_ACTIONS * sizeof *tbuf);
            gl_game_t g;
            gl_game_init(&g);
            if (!rd || !gbuf || !tbuf) w->rc = GK_E_NOMEM;
            for (size_t i = lo; i < hi && !w->rc; i++) {
                const src_game_t *sg = &games[i];
                char e[200];
                if (!rd[sg->src] &&
                    (w->rc = gl_reader_new(&rd[sg->src], &ls[sg->src], e, sizeof e))) {
                    gk_fail(w->err, sizeof w->err, w->rc, "%s: %s", paths[sg->src], e);
                    break;
                }
                /* Its reasons name the shard and the game. */
                if ((w->rc = gl_reader_get(rd[sg->src], &sg->loc, &g, w->err, sizeof w->err)))
                    break;
                if (g.rules.game != o->game) {
                    const gk_game_t *have = gk_game_by_id(g.rules.game);
                    w->rc = gk_fail(
                        w->err, sizeof w->err, GK_E_MISMATCH, "%s: game %llu is %s, not %s",
                        paths[sg->src], (unsigned long long)sg->loc.index,
                        have ? have->name : "an unknown game", gk_game_by_id(o->game)->name);
                    break;
                }
                uint64_t key = ((uint64_t)sg->src << 48) ^ sg->loc.index;
                w->rc = add_game(w, &g, key, o, gbuf, tbuf);
                atomic_fetch_add_explicit(&replayed, 1, memory_order_relaxed);
                if (t == 0 && o->progress)
                    o->progress(o->progress_ctx,
                                atomic_load_explicit(&replayed, memory_order_relaxed), ngames);
            }
            gl_game_free(&g);
            for (int s = 0; rd && s < npaths; s++) gl_reader_free(rd[s]);
            free(rd);
            free(gbuf);
            free(tbuf);
        }
        st->threads = nthreads;
        if (o->progress) o->progress(o->progress_ctx, ngames, ngames); /* the end */
        /* 3. Append in thread order = game order; the first failing thread's error wins. */
        for (int t = 0; t < nthreads && !rc; t++) {
            if (wk[t].rc) {
                rc = wk[t].rc == GK_E_NOMEM
                         ? gk_fail(err, errcap, GK_E_NOMEM, "out of memory reading the logs")
                         : gk_fail(err, errcap, wk[t].rc, "%s", wk[t].err);
                break;
            }
            add_stats(st, &wk[t].st);
            if (tune_vset_append(v, &wk[t].v) || (p && tune_pset_append(p, &wk[t].p)))
                rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory collecting the samples");
        }
        for (int t = 0; t < nthreads; t++) {
            tune_vset_free(&wk[t].v);
            tune_pset_free(&wk[t].p);
        }
    } else if (rc == GK_E_NOMEM) {
        gk_fail(err, errcap, rc, "out of memory listing the games");
    }
    free(wk);
    free(games);
    for (int s = 0; s < opened; s++) gl_logset_free(&ls[s]);
    free(ls);
    st->secs = gk_now_s() - t0;
    return rc;
}
