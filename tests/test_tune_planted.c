/*
 * tests/test_tune_planted.c -- the tuner must give back weights that were planted.
 *
 * 1. Synthetic samples: sparse integer features like an evaluation trace, outcomes drawn
 *    as Bernoulli(sigmoid(w*.f)) from a known w*.  The fit from w = 0 must recover every
 *    weight within 0.08 (the standard error at this sample size is about 0.015).
 * 2. The same fit with 1 and 2 threads gives bit-identical weights (fixed chunked sums;
 *    the parallel paths proper are checked by test_tune_mt).
 * 3. Policy: candidates whose targets are softmax(v*.g) give back v* within 0.05.
 * 4. Duplicates are dropped with their targets averaged; the validation split is by game.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/tune.h"
#include "games/game.h"
#include "check.h"

#define NF 16

static double uniform(uint64_t *st) {
    return (double)(gk_splitmix64(st) >> 11) * 0x1.0p-53;
}

static void planted_weights(double *w, uint64_t *st) {
    for (int j = 0; j < NF; j++) w[j] = 2.0 * uniform(st) - 1.0;
}

/* A trace-like sparse vector: each feature present with probability 0.4, value -3..3. */
static void random_features(float *f, uint64_t *st) {
    for (int j = 0; j < NF; j++) {
        f[j] = 0;
        if (uniform(st) < 0.4) f[j] = (float)((int)(gk_splitmix64(st) % 7) - 3);
    }
}

static void test_value(void) {
    uint64_t st = 12345;
    double wstar[NF];
    planted_weights(wstar, &st);
    tune_vset_t all, train, val;
    tune_vset_init(&all, NF);
    const int n = 60000;
    float f[NF];
    for (int i = 0; i < n; i++) {
        random_features(f, &st);
        double z = 0;
        for (int j = 0; j < NF; j++) z += wstar[j] * f[j];
        float outcome = uniform(&st) < 1.0 / (1.0 + exp(-z)) ? 1.0f : 0.0f;
        /* 40 samples per game, so the split by game has something to split */
        CHECK(tune_vset_add(&all, f, outcome, gk_splitmix64(&st), (uint64_t)(i / 40)) == 0, "add");
    }
    CHECK(tune_vset_split(&all, 0.1, 7, &train, &val) == 0, "split");
    CHECK(train.rows.n + val.rows.n == (size_t)n, "split loses samples");
    CHECK(val.rows.n > n / 20 && val.rows.n < n / 6, "val share %zu of %d", val.rows.n, n);
    /* no game on both sides */
    for (size_t i = 0; i < val.rows.n; i += 97)
        for (size_t t = 0; t < train.rows.n; t++)
            if (train.game[t] == val.game[i]) {
                CHECK(0, "game %llu in both splits", (unsigned long long)val.game[i]);
                break;
            }

    tune_opts_t o;
    tune_opts_default(&o);
    o.epochs = 40;
    o.batch = 1024;
    o.lr = 0.02;
    o.l2 = 0;
    o.patience = 4;
    o.seed = 99;

    double w1[NF] = {0}, w2[NF] = {0};
    tune_report_t r1, r2;
    o.threads = 1;
    CHECK(tune_fit_value(&train, &val, w1, 1.0, &o, &r1) == 0, "fit 1 thread");
    o.threads = 2;
    CHECK(tune_fit_value(&train, &val, w2, 1.0, &o, &r2) == 0, "fit 2 threads");
    CHECK(memcmp(w1, w2, sizeof w1) == 0, "1 and 2 threads give different weights");
    double maxerr = 0;
    for (int j = 0; j < NF; j++) maxerr = fmax(maxerr, fabs(w1[j] - wstar[j]));
    printf("value: %zu train, %zu val, loss %.4f -> %.4f, %d epochs, max |w - w*| = %.4f\n",
           train.rows.n, val.rows.n, r1.val_before, r1.val_after, r1.epochs_run, maxerr);
    CHECK(maxerr < 0.08, "planted value weights not recovered: max error %.4f", maxerr);
    CHECK(r1.val_after < r1.val_before, "validation loss did not fall");

    /* K: with w = w* / 3 the best scale is about 3. */
    double ws[NF];
    for (int j = 0; j < NF; j++) ws[j] = wstar[j] / 3.0;
    double k = tune_fit_k(&train, ws, TUNE_XENT, 2, 1.0);
    printf("fitted K for w*/3: %.3f\n", k);
    CHECK(fabs(k - 3.0) < 0.25, "fit_k gave %.3f, expected about 3", k);
    double zero[NF] = {0};
    CHECK(tune_fit_k(&train, zero, TUNE_XENT, 1, 0.5) == 0.5, "fit_k on zero weights");

    /* Texel MSE reaches the same neighbourhood. */
    double w3[NF] = {0};
    o.loss = TUNE_MSE;
    o.lr = 0.03;
    CHECK(tune_fit_value(&train, &val, w3, 1.0, &o, &r1) == 0, "fit mse");
    maxerr = 0;
    for (int j = 0; j < NF; j++) maxerr = fmax(maxerr, fabs(w3[j] - wstar[j]));
    printf("value (mse): max |w - w*| = %.4f\n", maxerr);
    CHECK(maxerr < 0.15, "mse fit error %.4f", maxerr);

    /* Empty training set: an error, weights untouched. */
    tune_vset_t empty;
    tune_vset_init(&empty, NF);
    double w4[NF] = {0};
    CHECK(tune_fit_value(&empty, NULL, w4, 1.0, &o, &r1) == GK_E_EMPTY, "empty set");
    tune_vset_free(&empty);
    tune_vset_free(&all);
    tune_vset_free(&train);
    tune_vset_free(&val);
}

static void test_dedupe(void) {
    tune_vset_t s;
    tune_vset_init(&s, 3);
    float a[3] = {1, 0, 2}, b[3] = {0, 1, 0};
    tune_vset_add(&s, a, 1.0f, 111, 1);
    tune_vset_add(&s, b, 0.0f, 222, 1);
    tune_vset_add(&s, a, 0.0f, 111, 2);
    tune_vset_add(&s, a, 0.5f, 111, 3);
    long d = tune_vset_dedupe(&s);
    CHECK(d == 2, "dedupe dropped %ld, expected 2", d);
    CHECK(s.rows.n == 2, "dedupe kept %zu", s.rows.n);
    CHECK(s.hash[0] == 111 && fabsf(s.target[0] - 0.5f) < 1e-6, "averaged target %f", s.target[0]);
    CHECK(s.hash[1] == 222 && s.target[1] == 0.0f, "second sample");
    CHECK(s.rows.off[1] - s.rows.off[0] == 2, "sparse row of the kept sample");
    CHECK(tune_vset_add(&s, a, 1.5f, 5, 5) == GK_E_INVALID, "target out of range accepted");
    tune_vset_free(&s);
}

static void test_policy(void) {
    uint64_t st = 777;
    double vstar[NF];
    planted_weights(vstar, &st);
    tune_pset_t all, train, val;
    tune_pset_init(&all, NF);
    float g[8 * NF], t[8];
    for (int i = 0; i < 6000; i++) {
        int m = 2 + (int)(gk_splitmix64(&st) % 7);
        double z[8], zmax = -1e9, den = 0;
        for (int a = 0; a < m; a++) {
            random_features(g + a * NF, &st);
            z[a] = 0;
            for (int j = 0; j < NF; j++) z[a] += vstar[j] * g[a * NF + j];
            zmax = fmax(zmax, z[a]);
        }
        for (int a = 0; a < m; a++) den += exp(z[a] - zmax);
        for (int a = 0; a < m; a++) t[a] = (float)(exp(z[a] - zmax) / den);
        CHECK(tune_pset_add(&all, m, g, t, (uint64_t)(i / 30)) == 0, "pset add");
    }
    CHECK(tune_pset_split(&all, 0.1, 3, &train, &val) == 0, "pset split");
    tune_opts_t o;
    tune_opts_default(&o);
    o.epochs = 60;
    o.batch = 256;
    o.lr = 0.03;
    o.l2 = 0;
    o.patience = 5;
    o.threads = 2;
    double v[NF] = {0};
    tune_report_t r;
    CHECK(tune_fit_policy(&train, &val, v, &o, &r) == 0, "fit policy");
    double maxerr = 0;
    for (int j = 0; j < NF; j++) maxerr = fmax(maxerr, fabs(v[j] - vstar[j]));
    printf("policy: %zu train, loss %.4f -> %.4f, %d epochs, max |v - v*| = %.4f\n", train.n,
           r.val_before, r.val_after, r.epochs_run, maxerr);
    CHECK(maxerr < 0.05, "planted policy weights not recovered: max error %.4f", maxerr);
    tune_pset_free(&all);
    tune_pset_free(&train);
    tune_pset_free(&val);
}

/* Real positions of `game` from random play, outcomes drawn from the shipped weights at
 * their scale: the fit from zero weights must predict the true win probabilities of
 * fresh positions within a mean absolute error of 0.05, and every feature present in at
 * least 20% of the positions must come back within 0.35 logit of effect
 * (|w - w*| * K * mean |f|). */
static void test_real(int game, int npos) {
    ev_weights_t def;
    CHECK(ev_weights_default(game, &def) == 0, "default weights");
    int nf = ev_num_features(game);
    double K = def.scale;
    gk_rules_t r = {(uint8_t)game, 0, 300};
    const gk_game_t *gm = gk_game_by_id(game);
    tune_vset_t all, test;
    tune_vset_init(&all, nf);
    tune_vset_init(&test, nf);
    uint64_t st = 4242 + (uint64_t)game;
    float f[EV_MAX_FEATURES];
    gk_action_t acts[GK_MAX_ACTIONS];
    double ptrue_test[4000];
    int ntest = 0;
    for (uint64_t gi = 0; all.rows.n < (size_t)npos || ntest < 4000; gi++) {
        gk_pos_t p;
        gm->setup(&p, &r);
        while (!gk_over(&p)) {
            int n = gk_gen(&p, acts);
            if (n == 0) break;
            ev_trace(&p, f);
            double z = 0;
            for (int j = 0; j < nf; j++) z += def.value[j] * f[j];
            double pt = 1.0 / (1.0 + exp(-K * z));
            float outcome = uniform(&st) < pt ? 1.0f : 0.0f;
            if (all.rows.n < (size_t)npos)
                tune_vset_add(&all, f, outcome, p.hash, gi);
            else if (ntest < 4000) {
                ptrue_test[ntest++] = pt;
                tune_vset_add(&test, f, outcome, p.hash, gi);
            }
            gk_play(&p, acts[gk_splitmix64(&st) % (uint64_t)n]);
        }
    }
    tune_vset_t train, val;
    tune_vset_split(&all, 0.1, 5, &train, &val);
    tune_opts_t o;
    tune_opts_default(&o);
    o.epochs = 200;
    o.batch = 512;
    o.lr = 0.02;
    o.l2 = 0;
    o.patience = 6;
    o.threads = 2;
    double w[EV_MAX_FEATURES] = {0};
    tune_report_t rep;
    CHECK(tune_fit_value(&train, &val, w, K, &o, &rep) == 0, "fit");
    double mae = 0;
    for (int i = 0; i < ntest; i++) {
        double z = 0;
        for (size_t e = test.rows.off[i]; e < test.rows.off[i + 1]; e++)
            z += w[test.rows.idx[e]] * test.rows.val[e];
        mae += fabs(1.0 / (1.0 + exp(-K * z)) - ptrue_test[i]);
    }
    mae /= ntest;
    double worst = 0;
    int worst_j = -1, checked = 0;
    for (int j = 0; j < nf; j++) {
        double sup = 0, mabs = 0;
        for (size_t e = 0; e < train.rows.nnz; e++)
            if (train.rows.idx[e] == j) {
                sup += 1;
                mabs += fabs(train.rows.val[e]);
            }
        if (sup < 0.2 * (double)train.rows.n) continue;
        checked++;
        double eff = fabs(w[j] - def.value[j]) * K * mabs / (double)train.rows.n;
        if (eff > worst) worst = eff, worst_j = j;
    }
    printf("%s: %zu positions, %d epochs, val loss %.4f -> %.4f, mean |p - p*| %.4f on %d "
           "fresh positions, worst effect error %.3f logit (%s) over %d features\n",
           gm->name, train.rows.n, rep.epochs_run, rep.val_before, rep.val_after, mae, ntest, worst,
           worst_j >= 0 ? ev_feature_name(game, worst_j) : "-", checked);
    CHECK(mae < 0.05, "%s: predictions off by %.4f on average", gm->name, mae);
    CHECK(worst < 0.35, "%s: feature %s off by %.3f logit", gm->name,
          worst_j >= 0 ? ev_feature_name(game, worst_j) : "-", worst);
    tune_vset_free(&all);
    tune_vset_free(&test);
    tune_vset_free(&train);
    tune_vset_free(&val);
}

int main(void) {
    gk_init();
    test_dedupe();
    test_value();
    test_policy();
    test_real(GK_GAME_GOUNKI, 40000);
    test_real(GK_GAME_GOBS, 20000);
    return check_exit("test_tune_planted");
}
