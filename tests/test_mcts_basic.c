/*
 * tests/test_mcts_basic.c -- single-threaded contracts of search/mcts.h:
 * determinism for a seed, visit accounting, a full arena (keeps searching, says so),
 * tree reuse (explicit advance and automatic), repetition draws from the history,
 * Gobs roots in the middle of a jump chain, sampling, parameters by name, errors, the
 * monitor (info so far, an outside stop), a proven root ending the search at once.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "search/mcts.h"
#include "check.h"
#include "search_util.h"

static mcts_result_t ra, rb;

static void start(int game, int variant, gk_pos_t *p) {
    gk_rules_t r = {.game = (uint8_t)game, .variant = (uint8_t)variant, .turn_limit = 300};
    gk_game_by_id(game)->setup(p, &r);
}

static int search(const gk_pos_t *p, const mcts_params_t *mp, uint64_t playouts, int early,
                  mcts_result_t *out) {
    ev_weights_t w;
    ev_weights_default(p->game, &w);
    mcts_t *m = mcts_new(mp, &w);
    if (!m) return -2;
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = playouts;
    l.early_stop = early;
    int rc = mcts_search(m, p, NULL, &l, out);
    mcts_free(m);
    return rc;
}

static int same_result(const mcts_result_t *a, const mcts_result_t *b) {
    return a->best == b->best && a->value == b->value && a->nodes == b->nodes &&
           a->playouts == b->playouts && a->nchildren == b->nchildren && a->pv_len == b->pv_len &&
           !memcmp(a->pv, b->pv, sizeof a->pv[0] * (size_t)a->pv_len) &&
           !memcmp(a->children, b->children, sizeof a->children[0] * (size_t)a->nchildren);
}

static void test_determinism(void) {
    for (int g = 0; g < GK_NGAMES; g++) {
        for (int depth = 0; depth <= 4; depth += 4) {
            gk_pos_t p;
            start(g, 0, &p);
            test_walk(&p, 6, 99 + (uint64_t)g);
            mcts_params_t mp;
            mcts_params_default(&mp);
            mp.tree_mb = 32;
            mp.playout_depth = depth;
            mp.seed = 7;
            CHECK(search(&p, &mp, 600, 0, &ra) == 0 && search(&p, &mp, 600, 0, &rb) == 0,
                  "search failed");
            CHECK(same_result(&ra, &rb), "game %d depth %d: same seed, different result", g, depth);
            CHECK(ra.playouts == 600 && test_child_visits(&ra) == 600,
                  "visits %llu of 600 playouts", (unsigned long long)test_child_visits(&ra));
            CHECK(gk_is_legal(&p, ra.best) && ra.value > 0 && ra.value < 1, "bad best/value");
            for (int i = 1; i < ra.nchildren; i++)
                CHECK(ra.children[i - 1].visits >= ra.children[i].visits ||
                          ra.children[i - 1].proof != ra.children[i].proof,
                      "children not sorted");
            CHECK(ra.children[0].action == ra.best && ra.pv[0] == ra.best, "best not first");
            /* The PV is a legal line. */
            gk_pos_t q = p;
            for (int i = 0; i < ra.pv_len && !gk_over(&q); i++) {
                CHECK(gk_is_legal(&q, ra.pv[i]), "illegal PV action %d", i);
                gk_play(&q, ra.pv[i]);
            }
        }
    }
}

static void test_tree_full(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 1; /* 32768 nodes: a few hundred expansions */
    CHECK(search(&p, &mp, 4000, 0, &ra) == 0, "search failed");
    CHECK(ra.tree_full, "a 1 MiB tree did not fill up");
    CHECK(ra.playouts == 4000 && test_child_visits(&ra) == 4000,
          "search stopped when the tree filled");
    CHECK(ra.nodes <= (1u << 20) / mcts_node_bytes(), "more nodes than the arena holds");
    CHECK(gk_is_legal(&p, ra.best), "bad best with a full tree");
    CHECK(mcts_node_bytes() == MCTS_NODE_BYTES, "node size");
}

static void test_reuse(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    ev_weights_t w;
    ev_weights_default(0, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 32;
    mcts_t *m = mcts_new(&mp, &w);
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 2000;
    l.early_stop = false;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0 && ra.reused == 0, "first search");
    CHECK(ra.pv_len >= 2, "PV too short for the reuse test");
    /* Explicit: advance along the PV (our move, the expected reply). */
    gk_pos_t q = p;
    gk_play(&q, ra.pv[0]);
    gk_play(&q, ra.pv[1]);
    CHECK(mcts_advance(m, ra.pv[0]) == 0 && mcts_advance(m, ra.pv[1]) == 0, "advance failed");
    CHECK(mcts_search(m, &q, NULL, &l, &rb) == 0, "second search");
    CHECK(rb.reused > 1, "nothing reused after advance");
    CHECK(test_child_visits(&rb) == rb.playouts + rb.reused - 1,
          "visit accounting after reuse: %llu", (unsigned long long)test_child_visits(&rb));
    /* Automatic: a fresh object, then a search two actions deeper without advance. */
    mcts_clear(m);
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "third search");
    q = p;
    gk_play(&q, ra.pv[0]);
    gk_play(&q, ra.pv[1]);
    CHECK(mcts_search(m, &q, NULL, &l, &rb) == 0 && rb.reused > 1, "automatic reuse failed");
    /* An unknown action drops the tree. */
    CHECK(mcts_advance(m, 0x7fffffffu) == -1, "advance along a non-child");
    CHECK(mcts_search(m, &q, NULL, &l, &rb) == 0 && rb.reused == 0, "tree not dropped");
    /* Wrong game and finished roots are refused. */
    gk_pos_t g;
    start(GK_GAME_GOBS, 0, &g);
    CHECK(mcts_search(m, &g, NULL, &l, &rb) == -1 && rb.best == GK_NO_ACTION, "game mismatch");
    gk_pos_t over = p;
    gk_set_result(&over, GK_DRAW, GK_REASON_RESIGN);
    CHECK(mcts_search(m, &over, NULL, &l, &rb) == -1, "finished root");
    mcts_free(m);
    mcts_free(NULL);
}

static void test_repetition(void) {
    /* A child position that already occurred twice in the history is a draw. */
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    test_walk(&p, 4, 5);
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(&p, l);
    gk_pos_t q = p;
    gk_play(&q, l[0]);
    gk_hist_t *h = malloc(sizeof *h);
    h->n = 0;
    gk_hist_push(h, &q);
    gk_hist_push(h, &p);
    gk_hist_push(h, &q);
    gk_hist_push(h, &p);
    ev_weights_t w;
    ev_weights_default(0, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 16;
    mp.c_puct = 20.0f; /* wide: every child is visited */
    mcts_t *m = mcts_new(&mp, &w);
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = 3000;
    lim.early_stop = false;
    CHECK(mcts_search(m, &p, h, &lim, &ra) == 0, "search");
    int found = 0;
    for (int i = 0; i < ra.nchildren; i++)
        if (ra.children[i].action == l[0]) {
            found = 1;
            CHECK(ra.children[i].visits > 0 && ra.children[i].proof == MCTS_PROVEN_DRAW,
                  "a third occurrence is not a proven draw (proof %d, %u visits)",
                  ra.children[i].proof, ra.children[i].visits);
            CHECK(ra.children[i].visits == 0 || fabsf(ra.children[i].value - 0.5f) < 1e-6f,
                  "draw value %g", (double)ra.children[i].value);
        }
    CHECK(found && n > 0, "child missing");
    mcts_free(m);
    free(h);
}

static void test_gobs_chain(void) {
    /* Find a Gobs position in the middle of a jump chain and search it. */
    uint64_t seed = 11;
    for (int tries = 0; tries < 200; tries++) {
        gk_pos_t p;
        start(GK_GAME_GOBS, 0, &p);
        gk_action_t l[GK_MAX_ACTIONS];
        for (int k = 0; k < 60 && !gk_over(&p) && p.in_turn == 0; k++) {
            int n = gk_gen(&p, l);
            if (!n) break;
            /* Prefer jump legs to reach a chain quickly. */
            int pick = (int)(gk_splitmix64(&seed) % (uint64_t)n);
            for (int i = 0; i < n; i++)
                if ((l[i] >> 24) == 3 && gk_splitmix64(&seed) % 2) pick = i;
            gk_play(&p, l[pick]);
        }
        if (gk_over(&p) || p.in_turn == 0) continue;
        mcts_params_t mp;
        mcts_params_default(&mp);
        mp.tree_mb = 32;
        CHECK(search(&p, &mp, 500, 1, &ra) == 0, "mid-chain search failed");
        CHECK(gk_is_legal(&p, ra.best), "mid-chain best is not legal");
        CHECK(ra.value >= 0 && ra.value <= 1, "mid-chain value");
        return;
    }
    CHECK(0, "no mid-chain Gobs position found");
}

/* A Gobs position with 1,404,043,136 complete moves (gounki perft 1): the search works
 * on actions, so it plays a whole legal turn quickly. */
static void test_huge_turn(void) {
    const char *text = "standard bb2b1b1w/1b1bb1bbw/1wb3b2/b1b4b1/4bbbw1/1b1b4b/1b4bw1/2b2b2b/"
                       "1b5b1 w 0 - *";
    gk_pos_t p;
    char err[256];
    if (gk_game_by_id(GK_GAME_GOBS)->pos_from_text(&p, text, 300, err, sizeof err) < 0) {
        CHECK(0, "huge position: %s", err);
        return;
    }
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 16;
    int actions = 0, stm = p.stm;
    while (!gk_over(&p) && p.stm == stm && actions < GK_MAX_TURN) {
        CHECK(search(&p, &mp, 300, 1, &ra) == 0, "huge position: search failed");
        CHECK(gk_is_legal(&p, ra.best), "huge position: illegal action");
        if (!gk_is_legal(&p, ra.best)) return;
        gk_play(&p, ra.best);
        actions++;
    }
    CHECK(gk_over(&p) || p.stm != stm, "the turn did not end");
}

static void test_sample(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 16;
    search(&p, &mp, 1000, 0, &ra);
    uint64_t rng = 3;
    CHECK(mcts_sample(&ra, 0.0, &rng) == ra.best, "temperature 0 is not the best action");
    int count_best = 0, zero = 0;
    for (int k = 0; k < 4000; k++) {
        gk_action_t a = mcts_sample(&ra, 1.0, &rng);
        count_best += a == ra.best;
        for (int i = 0; i < ra.nchildren; i++)
            if (ra.children[i].action == a) zero += ra.children[i].visits == 0;
    }
    double expect = (double)ra.children[0].visits / (double)test_child_visits(&ra);
    CHECK(fabs(count_best / 4000.0 - expect) < 0.05, "best sampled %.3f, expected %.3f",
          count_best / 4000.0, expect);
    CHECK(zero == 0, "sampled unvisited actions");
    mcts_result_t empty;
    memset(&empty, 0, offsetof(mcts_result_t, children));
    CHECK(mcts_sample(&empty, 1.0, &rng) == GK_NO_ACTION, "sample from nothing");
}

static void test_params(void) {
    mcts_params_t p;
    mcts_limits_t l;
    mcts_params_default(&p);
    mcts_limits_default(&l);
    char err[128];
    CHECK(mcts_params_set(&p, &l, "c_puct", "2.5", err, sizeof err) == 1 && p.c_puct == 2.5f,
          "c_puct");
    CHECK(mcts_params_set(&p, &l, "parallel", "root", err, sizeof err) == 1 &&
              p.parallel == MCTS_PAR_ROOT,
          "parallel");
    CHECK(mcts_params_set(&p, &l, "playouts", "123", err, sizeof err) == 1 && l.playouts == 123,
          "playouts");
    CHECK(mcts_params_set(&p, &l, "early_stop", "off", err, sizeof err) == 1 && !l.early_stop,
          "early_stop");
    CHECK(mcts_params_set(&p, &l, "time", "0.5", err, sizeof err) == 1 && l.time_s == 0.5, "time");
    CHECK(mcts_params_set(&p, &l, "nonsense", "1", err, sizeof err) == 0, "unknown name");
    CHECK(mcts_params_set(&p, NULL, "playouts", "1", err, sizeof err) == 0, "limit without l");
    CHECK(mcts_params_set(&p, &l, "threads", "0", err, sizeof err) == -1, "threads 0");
    CHECK(mcts_params_set(&p, &l, "threads", "1.5", err, sizeof err) == -1, "threads 1.5");
    CHECK(mcts_params_set(&p, &l, "c_puct", "x", err, sizeof err) == -1, "c_puct x");
    CHECK(mcts_params_set(&p, &l, "c_puct", "", err, sizeof err) == -1, "c_puct empty");
    CHECK(mcts_params_set(&p, &l, "solver", "maybe", err, sizeof err) == -1, "bool");
    CHECK(mcts_params_set(&p, &l, "parallel", "both", err, sizeof err) == -1, "parallel both");
    {
        char help[MCTS_HELP_MAX];
        CHECK(mcts_params_help(help, sizeof help, NULL, NULL) < (int)sizeof help &&
                  strstr(help, "c_puct=1 "),
              "help");
    }
    ev_weights_t w;
    ev_weights_default(0, &w);
    w.nvalue = 3;
    mcts_params_default(&p);
    CHECK(mcts_new(&p, &w) == NULL, "inconsistent weights accepted");
}

typedef struct watch {
    _Atomic int stop;
    int calls, bad;
    uint64_t last;
} watch_t;

static void on_info(const mcts_result_t *r, void *ctx) {
    watch_t *w = ctx;
    w->calls++;
    if (r->playouts < w->last || r->nchildren <= 0 || r->best != r->children[0].action) w->bad++;
    w->last = r->playouts;
    if (w->calls == 3) atomic_store(&w->stop, 1);
}

/* The monitor sees the search so far and stops it; watching alone changes nothing. */
static void test_monitor(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    ev_weights_t w;
    ev_weights_default(p.game, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 64;
    mcts_t *m = mcts_new(&mp, &w);
    CHECK(m != NULL, "mcts_new");
    if (!m) return;
    watch_t wt = {.calls = 0};
    atomic_init(&wt.stop, 0);
    mcts_monitor_t mon = {.stop = &wt.stop, .info = on_info, .ctx = &wt, .interval_s = 0.05};
    mcts_set_monitor(m, &mon);
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 2000000000ull;
    l.early_stop = 0;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "watched search failed");
    CHECK(wt.calls == 3 && !wt.bad, "info: %d calls, %d bad", wt.calls, wt.bad);
    CHECK(ra.stopped_early && ra.playouts >= wt.last && ra.playouts < l.playouts,
          "the outside stop: stopped_early %d after %llu playouts", ra.stopped_early,
          (unsigned long long)ra.playouts);
    /* Watched, not stopped: the same result as unwatched. */
    atomic_store(&wt.stop, 0);
    wt.calls = 99;
    mcts_clear(m);
    l.playouts = 3000;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "search failed");
    mcts_set_monitor(m, NULL);
    mcts_clear(m);
    CHECK(mcts_search(m, &p, NULL, &l, &rb) == 0, "search failed");
    CHECK(same_result(&ra, &rb) && !ra.stopped_early, "watching changed the search");
    mcts_free(m);
}

/* A time limit: early stop ends the search before the time and says so (with its reason);
 * without early stop the whole time is spent and the search did not stop early. */
/* A search with the default parameters and weights of game and a 64 MiB tree. */
static mcts_t *small_search(int game) {
    ev_weights_t w;
    ev_weights_default(game, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 64;
    mcts_t *m = mcts_new(&mp, &w);
    CHECK(m != NULL, "mcts_new");
    return m;
}

static void test_time_rule(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    gk_play_move_text(&p, "c2-d3", NULL, 0);
    gk_play_move_text(&p, "f7-e6", NULL, 0);
    mcts_t *m = small_search(p.game);
    if (!m) return;
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 0;
    l.time_s = 0.4;
    l.early_stop = 0;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "timed search failed");
    CHECK(!ra.stopped_early && ra.stop_reason == MCTS_STOP_TIME && ra.seconds >= 0.39,
          "early_stop=off: stopped_early %d, reason %s, %.3f s", ra.stopped_early,
          mcts_stop_name(ra.stop_reason), ra.seconds);
    l.early_stop = 1;
    l.time_s = 2;
    mcts_clear(m);
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "timed search failed");
    /* Ended before its time: then it has to say so, and why. */
    CHECK(ra.seconds < 1.9 ? ra.stopped_early && ra.stop_reason == MCTS_STOP_DECIDED
                           : !ra.stopped_early,
          "early stop under time: stopped_early %d, reason %s, %.3f s", ra.stopped_early,
          mcts_stop_name(ra.stop_reason), ra.seconds);
    l.time_s = 0;
    l.playouts = 500;
    l.early_stop = 0;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0 && ra.stop_reason == MCTS_STOP_PLAYOUTS &&
              !ra.stopped_early,
          "a playout budget spent: reason %s", mcts_stop_name(ra.stop_reason));
    mcts_free(m);
}

/* Under a clock a move gets clock / clock_moves (+ 0.75 inc); with extend it may go on to
 * extend times that while the choice is unclear, and ends before then only once it is
 * clear (the rule is checked every 32 playouts: a small margin).  Every search stays
 * within a fifth of the clock.  Times are lower bounds, or upper bounds with 0.5 s slack. */
static void test_clock_extend(void) {
    gk_pos_t p;
    start(GK_GAME_GOUNKI, 0, &p);
    const char *line[] = {"c2-d3", "f7-e6", "b1-c2+", "e6-e5", "d3-d4", "e5xd4"};
    mcts_t *m = small_search(p.game);
    if (!m) return;
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 0, l.clock_s = 2, l.clock_moves = 10, l.early_stop = 0, l.extend = 0;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0 && ra.seconds >= 0.185 && ra.seconds < 0.69,
          "clock 2 s, clock_moves 10: %.3f s, not 0.19", ra.seconds);
    l.clock_s = 10, l.clock_moves = 25, l.extend = 3; /* share 0.39 s, at most 1.17 s */
    for (int i = 0; i < 6; i++) {
        gk_play_move_text(&p, line[i], NULL, 0);
        mcts_clear(m);
        CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "search %d", i);
        CHECK(ra.seconds >= 0.385 && ra.seconds < 1.17 + 0.5 && ra.stop_reason == MCTS_STOP_TIME,
              "position %d: %.3f s (%s), not within [0.39, 1.17]", i, ra.seconds,
              mcts_stop_name(ra.stop_reason));
        const mcts_child_t *c = ra.children;
        int n = ra.nchildren;
        uint32_t v1 = 0, v2 = 0;
        float q1 = 0, q2 = 0;
        for (int k = 0; k < n; k++) {
            if (c[k].proof != MCTS_UNPROVEN) continue;
            if (c[k].visits > v1)
                v2 = v1, q2 = q1, v1 = c[k].visits, q1 = c[k].value;
            else if (c[k].visits > v2)
                v2 = c[k].visits, q2 = c[k].value;
        }
        bool clear = v1 + 64 >= 2 * v2 && q1 + 0.01f >= q2;
        CHECK(ra.seconds >= 1.16 || clear,
              "position %d ended at %.3f s with an unclear choice: visits %u and %u, values %.3f "
              "and %.3f",
              i, ra.seconds, v1, v2, q1, q2);
    }
    mcts_free(m);
}

/* A proven root ends the search at once, under every budget (issue 15: a won root used
 * the rest of its time, 1-3 million playouts), and the proof holds: playing on, the game
 * ends within the proven number of actions.  The position is win7-1 of
 * tests/fixtures/tactics-suite/gounki.txt: Black wins in 7 actions (e5-d4). */
static void test_proven_root(void) {
    const char *text = "rsrsr2s/srs1s1s1/5r2/4(rrs)3/8/1(RSS)6/3SRSRS/3RSRSR b 15";
    gk_pos_t p;
    char err[256];
    CHECK(gk_game_by_id(GK_GAME_GOUNKI)->pos_from_text(&p, text, 500, err, sizeof err) == 0, "%s",
          err);
    ev_weights_t w;
    ev_weights_default(p.game, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 64;
    mcts_t *m = mcts_new(&mp, &w);
    CHECK(m != NULL, "mcts_new");
    if (!m) return;
    for (int b = 0; b < 4; b++) {
        mcts_limits_t l;
        mcts_limits_default(&l);
        const char *what[] = {"playouts 10^6", "time 5 s, early stop off",
                              "clock 100 s, no playout limit", "time 5 s, 2 threads"};
        if (b == 0) l.playouts = 1000000;
        if (b == 1 || b == 3) l.playouts = 0, l.time_s = 5, l.early_stop = 0;
        if (b == 2) l.playouts = 0, l.clock_s = 100;
        mcts_t *mm = m;
        if (b == 3) {
            mcts_params_t m2 = mp;
            m2.threads = 2;
            mm = mcts_new(&m2, &w);
            CHECK(mm != NULL, "mcts_new, 2 threads");
            if (!mm) continue;
        }
        mcts_clear(mm);
        CHECK(mcts_search(mm, &p, NULL, &l, &ra) == 0, "%s: search failed", what[b]);
        CHECK(ra.stop_reason == MCTS_STOP_PROVEN && ra.stopped_early &&
                  ra.proof == MCTS_PROVEN_WIN && ra.proof_actions == 7 && ra.seconds < 2.0,
              "%s: stop %s, proof %d in %d, %.2f s, %llu playouts", what[b],
              mcts_stop_name(ra.stop_reason), ra.proof, ra.proof_actions, ra.seconds,
              (unsigned long long)ra.playouts);
        if (mm != m) mcts_free(mm);
    }
    /* Both sides searched by one tree (kept between moves): every search is proven at
     * once and Black exits within 7 actions. */
    mcts_clear(m);
    gk_pos_t q = p;
    int actions = 0;
    while (!gk_over(&q) && actions < 12) {
        mcts_limits_t l;
        mcts_limits_default(&l);
        l.playouts = 0, l.time_s = 5, l.early_stop = 0;
        CHECK(mcts_search(m, &q, NULL, &l, &ra) == 0, "search failed");
        CHECK(ra.stop_reason == MCTS_STOP_PROVEN && ra.seconds < 2.0 &&
                  ra.proof_actions <= 7 - actions,
              "action %d: stop %s, proof %d in %d, %.2f s", actions, mcts_stop_name(ra.stop_reason),
              ra.proof, ra.proof_actions, ra.seconds);
        mcts_advance(m, ra.best);
        gk_play(&q, ra.best);
        actions++;
    }
    CHECK(gk_over(&q) && q.result == GK_WIN_BLACK && actions <= 7,
          "the proven win did not end the game: result %d after %d actions", q.result, actions);
    mcts_free(m);
}

int main(void) {
    gk_init();
    test_time_rule();
    test_clock_extend();
    test_proven_root();
    test_determinism();
    test_tree_full();
    test_reuse();
    test_repetition();
    test_gobs_chain();
    test_huge_turn();
    test_sample();
    test_params();
    test_monitor();
    return check_exit("test_mcts_basic");
}
