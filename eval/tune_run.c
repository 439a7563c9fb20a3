/* eval/tune_run.c -- the whole tuning job: logs in, weights out (contract in eval/tune.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/clock.h"
#include "tune.h"

#ifndef GK_VERSION
#define GK_VERSION "unknown"
#endif

void tune_run_opts_default(tune_run_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->data.game = GK_GAME_GOUNKI;
    o->data.target = TUNE_TARGET_RESULT;
    o->data.mix = 0.5;
    tune_opts_default(&o->fit);
    o->val_frac = 0.1;
    o->fit_k = 1;
    o->min_positions = 1000;
    o->policy_temperature = 1.0;
}

static int fit_policy(const tune_run_opts_t *o, tune_pset_t *ps, ev_weights_t *out,
                      tune_run_report_t *rep, char *err, size_t errcap) {
    tune_pset_t tr, va;
    int rc = tune_pset_split(ps, o->val_frac, o->fit.seed, &tr, &va);
    if (rc) return gk_fail(err, errcap, rc, "policy samples: %s", tune_strerror(rc));
    rep->ptrain_n = tr.n;
    rep->pval_n = va.n;
    if (tr.n == 0) {
        tune_pset_free(&tr);
        tune_pset_free(&va);
        return gk_fail(err, errcap, GK_E_EMPTY,
                       "--policy: the logs hold no positions with visit counts");
    }
    double v[EV_MAX_POLICY];
    for (int j = 0; j < out->npolicy; j++) v[j] = out->policy[j];
    tune_opts_t fo = o->fit;
    fo.temperature = o->policy_temperature;
    rc = tune_fit_policy(&tr, &va, v, &fo, &rep->policy);
    if (!rc) {
        for (int j = 0; j < out->npolicy; j++) out->policy[j] = (float)v[j];
        rep->did_policy = 1;
    } else {
        gk_fail(err, errcap, rc, "policy fit: %s", tune_strerror(rc));
    }
    tune_pset_free(&tr);
    tune_pset_free(&va);
    return rc;
}

int tune_run(const tune_run_opts_t *o, const ev_weights_t *from, ev_weights_t *out,
             tune_run_report_t *rep, char *err, size_t errcap) {
    memset(rep, 0, sizeof *rep);
    *out = *from;
    int game = o->data.game;
    int nf = ev_num_features(game), npf = ev_policy_num_features(game);
    GK_RETURN_IF(from->game != game || nf <= 0 || from->nvalue != nf, err, errcap, GK_E_INVALID,
                 "the start weights are not for %s",
                 gk_game_by_id(game) ? gk_game_by_id(game)->name : "this game");
    tune_vset_t all, train, val;
    tune_pset_t pall;
    tune_vset_init(&all, nf);
    tune_pset_init(&pall, npf);
    int rc = tune_data_load(o->logs, o->nlogs, &o->data, &all, o->data.policy ? &pall : NULL,
                            &rep->data, err, errcap);
    if (rc) {
        tune_vset_free(&all);
        tune_pset_free(&pall);
        return rc;
    }
    rc = tune_vset_split(&all, o->val_frac, o->fit.seed, &train, &val);
    tune_vset_free(&all);
    if (rc) {
        tune_pset_free(&pall);
        return gk_fail(err, errcap, rc, "splitting the samples: %s", tune_strerror(rc));
    }
    long d1 = tune_vset_dedupe(&train), d2 = d1 < 0 ? 0 : tune_vset_dedupe(&val);
    if (d1 < 0 || d2 < 0) {
        rc = gk_fail(err, errcap, GK_E_NOMEM, "dropping duplicates: out of memory");
        goto done;
    }
    rep->dropped = d1 + d2;
    rep->train_n = train.rows.n;
    rep->val_n = val.rows.n;
    if ((long)train.rows.n < o->min_positions) {
        if (rep->data.positions == 0 && rep->data.skipped_unsearched > 0 &&
            o->data.target != TUNE_TARGET_RESULT)
            rc = gk_fail(err, errcap, GK_E_EMPTY,
                         "the logs hold no search statistics (written with --no-stats?): "
                         "--target value and mix need them; use --target result");
        else
            rc = gk_fail(err, errcap, GK_E_EMPTY,
                         "the logs hold only %zu distinct training positions (from %llu games); "
                         "at least %ld are needed (--min-positions)",
                         train.rows.n, (unsigned long long)rep->data.games, o->min_positions);
        goto done;
    }
    for (size_t e = 0; e < train.rows.nnz; e++)
        rep->mean_abs_f[train.rows.idx[e]] += fabsf(train.rows.val[e]);
    for (int j = 0; j < nf; j++) rep->mean_abs_f[j] /= (float)train.rows.n;

    double w[EV_MAX_FEATURES];
    for (int j = 0; j < nf; j++) w[j] = from->value[j];
    rep->k_start = from->scale;
    rep->train_start = tune_value_loss(&train, w, rep->k_start, o->fit.loss, o->fit.threads);
    rep->val_start =
        val.rows.n ? tune_value_loss(&val, w, rep->k_start, o->fit.loss, o->fit.threads) : NAN;
    rep->k =
        o->fit_k ? tune_fit_k(&train, w, o->fit.loss, o->fit.threads, rep->k_start) : rep->k_start;
    rc = tune_fit_value(&train, &val, w, rep->k, &o->fit, &rep->value);
    if (rc) {
        gk_fail(err, errcap, rc, "value fit: %s", tune_strerror(rc));
        goto done;
    }
    /* Written at the start file's scale, so the numbers stay in its units ("points"):
     * scale * value is the fitted logit either way, and a K far from the start's (an
     * uninformative start: K -> 0) does not blow the points up by 1/K. */
    double unit = rep->k_start > 0 ? rep->k / rep->k_start : 1.0;
    for (int j = 0; j < nf; j++) out->value[j] = (float)(w[j] * unit);
    out->scale = (float)(rep->k_start > 0 ? rep->k_start : rep->k);
    if (o->data.policy) rc = fit_policy(o, &pall, out, rep, err, errcap);
    out->provenance[0] = 0;
done:
    tune_vset_free(&train);
    tune_vset_free(&val);
    tune_pset_free(&pall);
    return rc;
}

void tune_provenance(const tune_run_opts_t *o, const tune_run_report_t *rep, char *buf,
                     size_t cap) {
    char logs[96];
    if (o->nlogs == 1)
        snprintf(logs, sizeof logs, "%s", o->logs[0]);
    else
        snprintf(logs, sizeof logs, "%d dirs %s..%s", o->nlogs, o->logs[0], o->logs[o->nlogs - 1]);
    if (strlen(logs) == sizeof logs - 1) memcpy(logs + sizeof logs - 4, "...", 3);
    char date[32];
    if (gk_utc_iso(date, sizeof date) < 0) snprintf(date, sizeof date, "?");
    int n =
        snprintf(buf, cap, "tuned from %s: %zu+%zu pos, %s loss train %.4f->%.4f val %.4f->%.4f",
                 logs, rep->train_n, rep->val_n, o->fit.loss == TUNE_MSE ? "mse" : "xent",
                 rep->train_start, rep->value.train_after, rep->val_start, rep->value.val_after);
    if (n > 0 && (size_t)n < cap && rep->did_policy)
        n += snprintf(buf + n, cap - (size_t)n, ", policy val %.4f->%.4f", rep->policy.val_before,
                      rep->policy.val_after);
    if (n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", %s, gounki %s", date, GK_VERSION);
}
