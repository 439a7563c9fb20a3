/*
 * tests/test_mcts_mt.c -- the threaded search (the ThreadSanitizer stage runs this test:
 * its name contains "_mt").  Shared-tree searches with 2 and 4 threads on Gounki and
 * Gobs, with tree reuse and with an arena that fills up, and root-parallel searches;
 * checks the visit accounting (every playout lands in exactly one root child), the
 * legality of the answers, that root mode with a playout budget is deterministic, and
 * that a time limit is kept; a watched search (info so far from the first thread while the
 * others search, an outside stop) in both modes.
 */
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

static void position(int game, int walk, gk_pos_t *p) {
    gk_rules_t r = {.game = (uint8_t)game, .turn_limit = 300};
    gk_game_by_id(game)->setup(p, &r);
    test_walk(p, walk, 42 + (uint64_t)game);
}

static void tree_mode(int game, int threads, int tree_mb, int expect_full) {
    gk_pos_t p;
    position(game, 8, &p);
    ev_weights_t w;
    ev_weights_default(game, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.threads = threads;
    mp.tree_mb = tree_mb;
    mcts_t *m = mcts_new(&mp, &w);
    CHECK(m != NULL, "mcts_new");
    if (!m) return;
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 1500;
    l.early_stop = false;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "search");
    CHECK(ra.playouts == 1500, "%d threads: %llu playouts", threads,
          (unsigned long long)ra.playouts);
    CHECK(test_child_visits(&ra) == 1500, "%d threads: root children hold %llu visits", threads,
          (unsigned long long)test_child_visits(&ra));
    CHECK(gk_is_legal(&p, ra.best), "illegal best");
    CHECK(ra.nodes <= ((uint64_t)tree_mb << 20) / mcts_node_bytes(), "arena overrun");
    if (expect_full) CHECK(ra.tree_full, "the small arena did not fill");
    /* Reuse: our move and the expected reply, then search again with the threads. */
    if (ra.pv_len >= 2 && !expect_full) {
        gk_pos_t q = p;
        gk_play(&q, ra.pv[0]);
        gk_play(&q, ra.pv[1]);
        if (!gk_over(&q)) {
            CHECK(mcts_advance(m, ra.pv[0]) == 0 && mcts_advance(m, ra.pv[1]) == 0, "advance");
            CHECK(mcts_search(m, &q, NULL, &l, &rb) == 0, "second search");
            CHECK(rb.reused > 0 && test_child_visits(&rb) == rb.playouts + rb.reused - 1,
                  "reuse accounting: %llu children, %llu playouts, %llu reused",
                  (unsigned long long)test_child_visits(&rb), (unsigned long long)rb.playouts,
                  (unsigned long long)rb.reused);
            CHECK(gk_is_legal(&q, rb.best), "illegal best after reuse");
        }
    }
    mcts_free(m);
}

static void root_mode(int game) {
    gk_pos_t p;
    position(game, 6, &p);
    ev_weights_t w;
    ev_weights_default(game, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.threads = 2;
    mp.parallel = MCTS_PAR_ROOT;
    mp.tree_mb = 16;
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 1001;
    l.early_stop = false;
    for (int k = 0; k < 2; k++) {
        mcts_t *m = mcts_new(&mp, &w);
        CHECK(m && mcts_search(m, &p, NULL, &l, k ? &rb : &ra) == 0, "root search");
        mcts_free(m);
    }
    CHECK(ra.playouts == 1001 && test_child_visits(&ra) == 1001, "root mode accounting");
    CHECK(gk_is_legal(&p, ra.best), "root mode best");
    CHECK(ra.best == rb.best && ra.nodes == rb.nodes &&
              !memcmp(ra.children, rb.children, sizeof ra.children[0] * (size_t)ra.nchildren),
          "root mode with a playout budget is not deterministic");
}

static void timed(void) {
    gk_pos_t p;
    position(GK_GAME_GOUNKI, 4, &p);
    ev_weights_t w;
    ev_weights_default(0, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.threads = 2;
    mp.tree_mb = 16;
    mcts_t *m = mcts_new(&mp, &w);
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 0;
    l.time_s = 0.1;
    l.early_stop = false;
    CHECK(m && mcts_search(m, &p, NULL, &l, &ra) == 0, "timed search");
    /* Generous bound: sanitizers and a loaded machine slow everything down. */
    CHECK(ra.seconds < 2.0 && ra.playouts > 0, "0.1 s search took %.3f s", ra.seconds);
    CHECK(test_child_visits(&ra) == ra.playouts, "timed accounting");
    mcts_free(m);
}

typedef struct watch {
    _Atomic int stop;
    int calls;
} watch_t;

static void on_info(const mcts_result_t *r, void *ctx) {
    watch_t *w = ctx;
    if (r->nchildren > 0 && ++w->calls == 3) atomic_store(&w->stop, 1);
}

static void watched(int parallel) {
    gk_pos_t p;
    position(GK_GAME_GOUNKI, 4, &p);
    ev_weights_t w;
    ev_weights_default(0, &w);
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.threads = 2;
    mp.tree_mb = 16;
    mp.parallel = parallel;
    mcts_t *m = mcts_new(&mp, &w);
    CHECK(m != NULL, "mcts_new");
    if (!m) return;
    watch_t wt = {.calls = 0};
    atomic_init(&wt.stop, 0);
    mcts_set_monitor(m, &(mcts_monitor_t){.stop = &wt.stop, .info = on_info, .ctx = &wt});
    mcts_limits_t l;
    mcts_limits_default(&l);
    l.playouts = 0;
    l.time_s = 30;
    l.early_stop = false;
    CHECK(mcts_search(m, &p, NULL, &l, &ra) == 0, "watched search");
    CHECK(wt.calls == 3 && ra.stopped_early && ra.seconds < 20, "parallel %d: %d calls, %.2f s",
          parallel, wt.calls, ra.seconds);
    mcts_free(m);
}

int main(void) {
    gk_init();
    for (int g = 0; g < GK_NGAMES; g++) {
        tree_mode(g, 2, 16, 0);
        tree_mode(g, 4, 16, 0);
        tree_mode(g, 2, 1, 1);
        root_mode(g);
    }
    timed();
    watched(MCTS_PAR_TREE);
    watched(MCTS_PAR_ROOT);
    return check_exit("test_mcts_mt");
}
