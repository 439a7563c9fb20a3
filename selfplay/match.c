/* selfplay/match.c -- colour-swapped pair matches between two players (see match.h). */
#include "match.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/status.h"
#include "../search/player.h"

#define OPENING_TRIES 1000

typedef struct pair_slot {
    int done;
    match_game_t g[2];
} pair_slot_t;

typedef struct shared {
    const match_opts_t *o;
    pair_slot_t *pairs;
    int npairs;
    atomic_int next; /* next pair to start */
    atomic_int stop; /* SPRT decided or an error: start nothing new */
    match_stats_t st;
    double t0;
    char err[512];
    int failed;
} shared_t;

int match_check(const match_opts_t *o, char *err, size_t errcap) {
    if (o->games < 2 || o->games % 2)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the number of games must be even and at least 2 (got %d)", o->games);
    if (o->threads < 1) return gk_fail(err, errcap, GK_E_INVALID, "threads must be at least 1");
    if (o->opening_plies < 0 || o->opening_plies > 200)
        return gk_fail(err, errcap, GK_E_INVALID, "opening plies must be in [0, 200] (got %d)",
                       o->opening_plies);
    if (o->book) {
        gk_pos_t setup;
        const gk_rules_t r = {o->start.game, o->start.variant, o->start.max_plies};
        gk_game_of(&o->start)->setup(&setup, &r);
        if (o->book->nlines < 1 || setup.hash != o->start.hash || setup.ply != o->start.ply)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "an opening book needs the game's start position and a line");
    }
    if (gk_over(&o->start) || o->start.in_turn != 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the start position must be an unfinished turn boundary");
    if (o->sprt) GK_FORWARD_IF(elo_sprt_check(&o->sprt_params, err, errcap));
    return 0;
}

/* Opening of pair i: K random turns from the start; redrawn when one ends the game. */
static int make_opening(const match_opts_t *o, int pair, gk_pos_t *pos, gk_hist_t *hist,
                        gk_action_t *acts, int *nacts) {
    uint64_t rng = gk_seed_mix(o->seed, 0x0BE17000ull + (uint64_t)pair);
    gk_action_t list[GK_MAX_ACTIONS];
    for (int attempt = 0; attempt < OPENING_TRIES; attempt++) {
        *pos = o->start;
        gk_hist_init(hist, pos);
        int n = 0, ok = 1;
        if (o->book) {
            /* Book lines are checked legal when loaded; the same line for a pair on every
             * attempt, so a line that ends the game is refused rather than redrawn. */
            const ol_lines_t *b = o->book;
            uint64_t line =
                (gk_seed_mix(o->seed, 0xB00Cull) + (uint64_t)pair) % (uint64_t)b->nlines;
            for (uint32_t k = b->start[line]; k < b->start[line + 1] && ok; k++) {
                if (n >= MATCH_MAX_ACTIONS)
                    ok = 0;
                else {
                    acts[n++] = b->act[k];
                    gk_play_turn(pos, hist, b->act[k]);
                    if (gk_over(pos)) ok = 0;
                }
            }
            if (!ok) return -1;
        }
        for (int t = 0; t < o->opening_plies && ok; t++) {
            do {
                int k = gk_gen(pos, list);
                if (k <= 0 || n >= MATCH_MAX_ACTIONS) {
                    ok = 0;
                    break;
                }
                gk_action_t a = list[gk_splitmix64(&rng) % (uint64_t)k];
                acts[n++] = a;
                gk_play(pos, a);
            } while (pos->in_turn != 0 && !gk_over(pos));
            if (!ok) break;
            gk_end_turn(pos, hist);
            if (gk_over(pos)) ok = 0;
        }
        if (ok) {
            *nacts = n;
            return 0;
        }
    }
    return -1;
}

/* Plays game `index` from the opening; fills g (g->actions is malloc'ed). */
static int play_game(const match_opts_t *o, player_t *pa, player_t *pb, int index,
                     const gk_pos_t *opening, const gk_hist_t *ohist, const gk_action_t *oacts,
                     int nopen, gk_hist_t *hist, gk_action_t *buf, match_game_t *g, char *err,
                     size_t errcap) {
    memset(g, 0, sizeof *g);
    g->index = index;
    g->a_white = index % 2 == 0;
    g->start = o->start;
    g->nopening = nopen;
    memcpy(buf, oacts, (size_t)nopen * sizeof *buf);
    int n = nopen;
    gk_pos_t pos = *opening;
    *hist = *ohist;
    uint64_t gseed = gk_seed_mix(o->seed, (uint64_t)index);
    if (player_new_game(pa, gk_seed_mix(gseed, 0xA)) ||
        player_new_game(pb, gk_seed_mix(gseed, 0xB))) {
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory starting game %d", index + 1);
    }
    gk_action_t list[GK_MAX_ACTIONS];
    for (uint64_t step = 0; !gk_over(&pos); step++) {
        int k = gk_gen(&pos, list);
        if (k <= 0) {
            gk_apply_no_move(&pos);
            break;
        }
        int a_moves = (pos.stm == GK_WHITE) == (g->a_white != 0);
        player_t *mover = a_moves ? pa : pb;
        player_move_t mv;
        if (player_choose(mover, &pos, hist, gk_seed_mix(gseed, step), &mv) < 0 ||
            gk_action_index(list, k, mv.action) < 0) {
            return gk_fail(err, errcap, GK_E_INVALID, "game %d: player %s (%s) %s", index + 1,
                           a_moves ? "A" : "B", player_spec(mover),
                           mv.action == GK_NO_ACTION ? "returned no action"
                                                     : "chose an illegal action");
        }
        if (a_moves) {
            g->seconds_a += mv.seconds;
            g->work_a += mv.work;
        } else {
            g->seconds_b += mv.seconds;
            g->work_b += mv.work;
        }
        player_observe(pa, &pos, mv.action);
        player_observe(pb, &pos, mv.action);
        if (n < MATCH_MAX_ACTIONS)
            buf[n++] = mv.action;
        else
            g->truncated = 1;
        gk_play_turn(&pos, hist, mv.action);
    }
    g->result = (gk_result_t)pos.result;
    g->reason = (gk_reason_t)pos.reason;
    g->turns = pos.ply - o->start.ply;
    int r = gk_result_for(&pos, g->a_white ? GK_WHITE : GK_BLACK);
    g->score_a = r + 1;
    g->nactions = n;
    g->actions = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->actions);
    if (!g->actions) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memcpy(g->actions, buf, (size_t)n * sizeof *buf);
    return 0;
}

static void count_game(match_stats_t *st, const match_game_t *g) {
    if (g->score_a == 2)
        st->w++;
    else if (g->score_a == 1)
        st->d++;
    else
        st->l++;
    if (g->result == GK_WIN_WHITE) st->white_wins++;
    if (g->result == GK_WIN_BLACK) st->black_wins++;
    st->plies += (uint64_t)g->turns;
    st->seconds_a += g->seconds_a;
    st->seconds_b += g->seconds_b;
    st->work_a += g->work_a;
    st->work_b += g->work_b;
}

/* Under the lock: counts every finished pair that follows the counted prefix. */
static void advance_counted(shared_t *sh) {
    const match_opts_t *o = sh->o;
    match_stats_t *st = &sh->st;
    while (st->pairs_counted < sh->npairs && sh->pairs[st->pairs_counted].done &&
           !(st->sprt && st->sprt_state != ELO_SPRT_CONTINUE)) {
        pair_slot_t *ps = &sh->pairs[st->pairs_counted];
        count_game(st, &ps->g[0]);
        count_game(st, &ps->g[1]);
        st->penta[ps->g[0].score_a + ps->g[1].score_a]++;
        st->pairs_counted++;
        st->elo_ok = elo_estimate_penta(st->penta, 0.95, &st->elo) == 0;
        if (st->sprt) {
            st->llr = elo_sprt_llr_penta(&o->sprt_params, st->penta);
            st->sprt_state = elo_sprt_state(&o->sprt_params, st->llr);
            if (st->sprt_state != ELO_SPRT_CONTINUE) atomic_store(&sh->stop, 1);
        }
        st->wall_s = gk_now_s() - sh->t0;
        if (o->on_pair) o->on_pair(o->ctx, &ps->g[0], &ps->g[1], st);
        free(ps->g[0].actions);
        free(ps->g[1].actions);
        ps->g[0].actions = ps->g[1].actions = NULL;
    }
}

typedef struct worker {
    player_t *pa, *pb;
    gk_hist_t ohist, hist;
    gk_action_t oacts[MATCH_MAX_ACTIONS];
    gk_action_t buf[MATCH_MAX_ACTIONS];
} worker_t;

/* The first failure of any thread is the match's; the others stop starting pairs. */
static void shared_fail(shared_t *sh, const char *msg) {
#pragma omp critical(match_lock)
    {
        if (!sh->failed) {
            sh->failed = 1;
            snprintf(sh->err, sizeof sh->err, "%s", msg);
        }
    }
    atomic_store(&sh->stop, 1);
}

static void work(shared_t *sh) {
    const match_opts_t *o = sh->o;
    char err[256];
    int game = o->start.game;
    worker_t *w = calloc(1, sizeof *w);
    if (!w) {
        shared_fail(sh, "out of memory");
        return;
    }
    w->pa = player_new(o->spec_a, game, err, sizeof err);
    if (!w->pa) {
        char msg[300];
        snprintf(msg, sizeof msg, "player A: %s", err);
        shared_fail(sh, msg);
    }
    w->pb = w->pa ? player_new(o->spec_b, game, err, sizeof err) : NULL;
    if (w->pa && !w->pb) {
        char msg[300];
        snprintf(msg, sizeof msg, "player B: %s", err);
        shared_fail(sh, msg);
    }
    while (w->pa && w->pb && !atomic_load(&sh->stop)) {
        int i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->npairs) break;
        gk_pos_t opening;
        int nopen = 0;
        if (make_opening(o, i, &opening, &w->ohist, w->oacts, &nopen)) {
            snprintf(err, sizeof err,
                     "no opening of %d random turns that leaves the game unfinished (pair %d)",
                     o->opening_plies, i + 1);
            shared_fail(sh, err);
            break;
        }
        pair_slot_t *ps = &sh->pairs[i];
        int bad = 0;
        for (int k = 0; k < 2 && !bad; k++) {
            bad = play_game(o, w->pa, w->pb, 2 * i + k, &opening, &w->ohist, w->oacts, nopen,
                            &w->hist, w->buf, &ps->g[k], err, sizeof err) != 0;
            if (bad) {
                shared_fail(sh, err);
                break;
            }
#pragma omp critical(match_lock)
            {
                sh->st.games_finished++;
                if (o->on_game) o->on_game(o->ctx, &ps->g[k], &sh->st);
            }
        }
        if (bad) break;
#pragma omp critical(match_lock)
        {
            ps->done = 1;
            advance_counted(sh);
        }
    }
    player_free(w->pa);
    player_free(w->pb);
    free(w);
}

int match_run(const match_opts_t *o, match_stats_t *st, char *err, size_t errcap) {
    GK_FORWARD_IF(match_check(o, err, errcap));
    /* Check the specs once here, so that a bad one is reported before any thread runs. */
    player_t *pa = player_new(o->spec_a, o->start.game, err, errcap);
    if (!pa) return -1;
    player_t *pb = player_new(o->spec_b, o->start.game, err, errcap);
    if (!pb) {
        player_free(pa);
        return -1;
    }
    int nested = player_threads(pa) > 1 || player_threads(pb) > 1;
    player_free(pa);
    player_free(pb);

    shared_t *sh = calloc(1, sizeof *sh);
    if (!sh) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    sh->o = o;
    sh->npairs = o->games / 2;
    sh->pairs = calloc((size_t)sh->npairs, sizeof *sh->pairs);
    if (!sh->pairs) {
        free(sh);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    atomic_init(&sh->next, 0);
    atomic_init(&sh->stop, 0);
    sh->st.games_total = o->games;
    sh->st.sprt = o->sprt;
    if (o->sprt) elo_sprt_bounds(&o->sprt_params, &sh->st.llr_lower, &sh->st.llr_upper);
    sh->t0 = gk_now_s();

    int threads = o->threads < sh->npairs ? o->threads : sh->npairs;
    if (threads <= 1) {
        /* No parallel region: a player's own search threads then get the cores. */
        work(sh);
    } else {
        /* Players with search threads of their own run a nested parallel region. */
        if (nested && omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
#pragma omp parallel num_threads(threads)
        work(sh);
    }
    sh->st.wall_s = gk_now_s() - sh->t0;
    *st = sh->st;
    int rc = 0;
    if (sh->failed) rc = gk_fail(err, errcap, GK_E_INVALID, "%s", sh->err);
    for (int i = 0; i < sh->npairs; i++) {
        free(sh->pairs[i].g[0].actions);
        free(sh->pairs[i].g[1].actions);
    }
    free(sh->pairs);
    free(sh);
    return rc;
}
