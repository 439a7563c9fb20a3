/*
 * tests/test_tune_mt.c -- the tuner's threaded paths (run under ThreadSanitizer in CI):
 * - a log of 24 real self-play games (12 Gounki, 12 Gobs, in two directories) is read
 *   with 1 and 2 threads: the same samples come out in the same order, with policy
 *   samples too, and reading Gounki logs as Gobs is refused;
 * - value and policy fits big enough to take the parallel paths give bit-identical
 *   weights with 1 and 2 threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/gamelog.h"
#include "eval/tune.h"
#include "selfplay/selfplay.h"
#include "check.h"

/* ThreadSanitizer builds: the OpenMP runtime is not instrumented (see test_selfplay_mt). */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) {
    return "ignore_noninstrumented_modules=1";
}

/* Plays n games of `game` at a small budget into dir/shard-00000.gkz. */
static int write_log(const char *dir, int game, int n) {
    char err[256], path[512];
    sp_settings_t s;
    sp_settings_default(&s, game);
    s.limits.playouts = 16;
    s.rules.turn_limit = 60;
    s.seed = 5;
    gl_writer_opts_t wo = {.level = 1, .code = GL_CODE_INDEX, .stats = true};
    gl_writer_t *w = NULL;
    gl_shard_path(dir, 0, path, sizeof path);
    if (gl_writer_open(&w, path, &wo, false, NULL, err, sizeof err)) {
        fprintf(stderr, "writer: %s\n", err);
        return -1;
    }
    gl_game_t g;
    gl_game_init(&g);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (sp_play_game(&s, (uint64_t)i, &g, NULL, err, sizeof err) != SP_DONE ||
            gl_writer_add(w, &g, err, sizeof err)) {
            fprintf(stderr, "game %d: %s\n", i, err);
            rc = -1;
        }
        if (!rc && i % 5 == 4 && gl_writer_flush(w, err, sizeof err)) rc = -1;
    }
    gl_game_free(&g);
    if (gl_writer_close(w, err, sizeof err)) rc = -1;
    return rc;
}

static void same_sets(const tune_vset_t *a, const tune_vset_t *b, const char *what) {
    CHECK(a->rows.n == b->rows.n && a->rows.nnz == b->rows.nnz, "%s: %zu/%zu vs %zu/%zu samples",
          what, a->rows.n, a->rows.nnz, b->rows.n, b->rows.nnz);
    if (a->rows.n != b->rows.n || a->rows.nnz != b->rows.nnz) return;
    CHECK(!memcmp(a->target, b->target, a->rows.n * sizeof *a->target) &&
              !memcmp(a->hash, b->hash, a->rows.n * sizeof *a->hash) &&
              !memcmp(a->rows.idx, b->rows.idx, a->rows.nnz * sizeof *a->rows.idx) &&
              !memcmp(a->rows.val, b->rows.val, a->rows.nnz * sizeof *a->rows.val),
          "%s: samples differ", what);
}

static void test_load(void) {
    char base[] = "/tmp/gk_tune_mt_XXXXXX";
    CHECK(mkdtemp(base) != NULL, "mkdtemp");
    char d1[600], d2[600], d3[600];
    snprintf(d1, sizeof d1, "%s/a", base);
    snprintf(d2, sizeof d2, "%s/b", base);
    snprintf(d3, sizeof d3, "%s/gobs", base);
    mkdir(d1, 0777);
    mkdir(d2, 0777);
    mkdir(d3, 0777);
    CHECK(write_log(d1, GK_GAME_GOUNKI, 6) == 0 && write_log(d2, GK_GAME_GOUNKI, 6) == 0 &&
              write_log(d3, GK_GAME_GOBS, 12) == 0,
          "writing the logs");
    const char *two[2] = {d1, d2};
    int game[2] = {GK_GAME_GOUNKI, GK_GAME_GOBS};
    for (int k = 0; k < 2; k++) {
        int nf = ev_num_features(game[k]), npf = ev_policy_num_features(game[k]);
        tune_vset_t v[2];
        tune_pset_t p[2];
        tune_data_stats_t st[2];
        for (int t = 0; t < 2; t++) {
            char err[256];
            tune_vset_init(&v[t], nf);
            tune_pset_init(&p[t], npf);
            tune_data_opts_t o = {.game = game[k],
                                  .target = TUNE_TARGET_MIX,
                                  .mix = 0.5,
                                  .policy = 1,
                                  .threads = t + 1};
            const char *const *paths = k == 0 ? two : (const char *const[]){d3};
            int rc =
                tune_data_load(paths, k == 0 ? 2 : 1, &o, &v[t], &p[t], &st[t], err, sizeof err);
            CHECK(rc == 0, "load (%d threads): %s", t + 1, err);
        }
        printf("%s: %llu games, %zu positions, %zu policy samples, %llu opening actions "
               "skipped\n",
               gk_game_by_id(game[k])->name, (unsigned long long)st[0].games, v[0].rows.n, p[0].n,
               (unsigned long long)st[0].skipped_opening);
        CHECK(st[0].games == 12 && v[0].rows.n > 50 && p[0].n > 50, "too few samples");
        CHECK(st[0].skipped_opening > 0, "the random opening was not skipped");
        same_sets(&v[0], &v[1], "value");
        CHECK(p[0].n == p[1].n && p[0].cand.n == p[1].cand.n && p[0].cand.nnz == p[1].cand.nnz &&
                  !memcmp(p[0].ctarget, p[1].ctarget, p[0].cand.n * sizeof *p[0].ctarget),
              "policy samples differ between 1 and 2 threads");
        for (int t = 0; t < 2; t++) {
            tune_vset_free(&v[t]);
            tune_pset_free(&p[t]);
        }
    }
    /* Gounki logs read as Gobs: refused, with the game named */
    tune_vset_t v;
    tune_vset_init(&v, ev_num_features(GK_GAME_GOBS));
    tune_data_stats_t st;
    char err[256] = "";
    tune_data_opts_t o = {.game = GK_GAME_GOBS, .threads = 2};
    CHECK(tune_data_load(two, 2, &o, &v, NULL, &st, err, sizeof err) == GK_E_MISMATCH &&
              strstr(err, "is gounki, not gobs"),
          "wrong game accepted (%s)", err);
    tune_vset_free(&v);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Dense samples and big batches, so that the parallel fits really run. */
static void test_fits(void) {
    enum { NFD = 64, N = 40000 };
    uint64_t st = 99;
    tune_vset_t s;
    tune_vset_init(&s, NFD);
    tune_pset_t ps;
    tune_pset_init(&ps, NFD);
    static float f[NFD * 8], t[8];
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < NFD; j++) f[j] = (float)((gk_splitmix64(&st) >> 11) * 0x1.0p-52 - 1);
        tune_vset_add(&s, f, (gk_splitmix64(&st) & 1) ? 1.0f : 0.0f, (uint64_t)i, (uint64_t)i);
        if (i < 6000) {
            for (int j = 0; j < NFD * 8; j++)
                f[j] = (float)((gk_splitmix64(&st) >> 11) * 0x1.0p-52 - 1);
            for (int a = 0; a < 8; a++) t[a] = (float)((gk_splitmix64(&st) >> 11) * 0x1.0p-53);
            tune_pset_add(&ps, 8, f, t, (uint64_t)i);
        }
    }
    tune_opts_t o;
    tune_opts_default(&o);
    o.epochs = 2;
    o.patience = 100;
    double w[2][NFD] = {{0}}, v[2][NFD] = {{0}}, k[2];
    tune_report_t r;
    for (int th = 0; th < 2; th++) {
        o.threads = th + 1;
        o.batch = 16384;
        k[th] = tune_fit_k(&s, w[th], TUNE_XENT, th + 1, 1.0);
        tune_fit_value(&s, &s, w[th], 1.0, &o, &r);
        o.batch = 2048;
        tune_fit_policy(&ps, &ps, v[th], &o, &r);
    }
    CHECK(memcmp(w[0], w[1], sizeof w[0]) == 0, "value fit: 1 and 2 threads differ");
    CHECK(memcmp(v[0], v[1], sizeof v[0]) == 0, "policy fit: 1 and 2 threads differ");
    CHECK(k[0] == k[1], "fit_k: 1 and 2 threads differ");
    tune_vset_free(&s);
    tune_pset_free(&ps);
}

int main(void) {
    gk_init();
    test_load();
    test_fits();
    return check_exit("test_tune_mt");
}
