/* selfplay/elo.c -- Elo, intervals and SPRT arithmetic (see elo.h for the model). */
#include "elo.h"

#include <math.h>
#include <stdio.h>

#include "../common/status.h"

double elo_to_score(double elo) {
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

double elo_from_score(double score) {
    if (score <= 0) return -INFINITY;
    if (score >= 1) return INFINITY;
    return -400.0 * log10(1.0 / score - 1.0);
}

static double normal_cdf(double x) {
    return 0.5 * erfc(-x / sqrt(2.0));
}

double elo_z(double conf) {
    /* Bisection on the normal CDF: 60 halvings of [0, 40] are exact to double precision,
     * and this runs once per report, so speed does not matter. */
    double target = 0.5 + conf / 2.0, lo = 0.0, hi = 40.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (normal_cdf(mid) < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Mean and population variance of unit scores: k categories with values v[] and
 * (possibly fractional) counts c[]. */
static void moments(int k, const double *v, const double *c, double *n, double *mean, double *var) {
    double tot = 0, m = 0, s2 = 0;
    for (int i = 0; i < k; i++) tot += c[i];
    for (int i = 0; i < k; i++) m += v[i] * c[i];
    m = tot > 0 ? m / tot : 0;
    for (int i = 0; i < k; i++) s2 += c[i] * (v[i] - m) * (v[i] - m);
    *n = tot;
    *mean = m;
    *var = tot > 0 ? s2 / tot : 0;
}

static int estimate(int k, const double *v, const double *c, double conf, elo_estimate_t *out) {
    double n, mean, var;
    if (!(conf > 0 && conf < 1)) return -1;
    moments(k, v, c, &n, &mean, &var);
    if (n <= 0) return -1;
    double z = elo_z(conf);
    out->n = n;
    out->score = mean;
    out->elo = elo_from_score(mean);
    out->degenerate = var <= 1e-300;
    double lo, hi;
    if (!out->degenerate) {
        out->stdev = sqrt(var / n);
        lo = mean - z * out->stdev;
        hi = mean + z * out->stdev;
        out->los = normal_cdf((mean - 0.5) / out->stdev);
    } else {
        /* Wilson score interval, the mean taken as a proportion over n units. */
        double z2n = z * z / n;
        double centre = (mean + z2n / 2) / (1 + z2n);
        double half = z / (1 + z2n) * sqrt(mean * (1 - mean) / n + z2n / (4 * n));
        out->stdev = 0;
        lo = centre - half;
        hi = centre + half;
        /* At a perfect score the upper end is exactly 1 (+inf Elo), at a null score the
         * lower end exactly 0; computed, it lands a rounding error short (+6261.4 Elo). */
        if (mean >= 1) hi = 1;
        if (mean <= 0) lo = 0;
        out->los = mean > 0.5 ? 1.0 : mean < 0.5 ? 0.0 : 0.5;
    }
    out->lo = elo_from_score(lo);
    out->hi = elo_from_score(hi);
    return 0;
}

int elo_estimate_wdl(uint64_t w, uint64_t d, uint64_t l, double conf, elo_estimate_t *out) {
    const double v[3] = {1.0, 0.5, 0.0};
    const double c[3] = {(double)w, (double)d, (double)l};
    return estimate(3, v, c, conf, out);
}

int elo_estimate_penta(const uint64_t penta[5], double conf, elo_estimate_t *out) {
    const double v[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
    double c[5];
    for (int i = 0; i < 5; i++) c[i] = (double)penta[i];
    return estimate(5, v, c, conf, out);
}

int elo_sprt_check(const elo_sprt_t *t, char *err, size_t errcap) {
    if (!isfinite(t->elo0) || !isfinite(t->elo1) || !(t->elo0 < t->elo1))
        return gk_fail(err, errcap, GK_E_INVALID, "SPRT needs elo0 < elo1 (got %g, %g)", t->elo0,
                       t->elo1);
    if (fabs(t->elo0) > 1000 || fabs(t->elo1) > 1000)
        return gk_fail(err, errcap, GK_E_INVALID, "SPRT bounds must lie within [-1000, 1000] Elo");
    if (!(t->alpha > 0 && t->alpha < 0.5) || !(t->beta > 0 && t->beta < 0.5))
        return gk_fail(err, errcap, GK_E_INVALID, "SPRT alpha and beta must lie in (0, 0.5)");
    return 0;
}

void elo_sprt_bounds(const elo_sprt_t *t, double *lower, double *upper) {
    *lower = log(t->beta / (1 - t->alpha));
    *upper = log((1 - t->beta) / t->alpha);
}

/* The maximum-likelihood distribution over the k score values v[] with expected score s,
 * given the empirical frequencies p[]: q_i = p_i / (1 + x (v_i - s)), with x the root of
 * sum p_i (v_i - s) / (1 + x (v_i - s)) = 0 in the interval that keeps every q_i positive
 * (fishtest's MLE_expected).  The sum decreases in x, so bisection finds the root. */
static void mle_expected(int k, const double *v, const double *p, double s, double *q) {
    double amax = -1, amin = 1;
    for (int i = 0; i < k; i++) {
        double a = v[i] - s;
        if (a > amax) amax = a;
        if (a < amin) amin = a;
    }
    double lo = -1 / amax, hi = -1 / amin;
    for (int it = 0; it < 200; it++) {
        double x = 0.5 * (lo + hi), f = 0;
        for (int i = 0; i < k; i++) f += p[i] * (v[i] - s) / (1 + x * (v[i] - s));
        if (f > 0)
            lo = x;
        else
            hi = x;
    }
    double x = 0.5 * (lo + hi);
    for (int i = 0; i < k; i++) q[i] = p[i] / (1 + x * (v[i] - s));
}

static double llr(const elo_sprt_t *t, int k, const double *v, const uint64_t *cnt) {
    double c[5], p[5], q0[5], q1[5], n = 0;
    for (int i = 0; i < k; i++) n += (double)cnt[i];
    if (n == 0) return 0;
    n = 0;
    for (int i = 0; i < k; i++) {
        c[i] = cnt[i] ? (double)cnt[i] : 1e-3;
        n += c[i];
    }
    for (int i = 0; i < k; i++) p[i] = c[i] / n;
    mle_expected(k, v, p, elo_to_score(t->elo0), q0);
    mle_expected(k, v, p, elo_to_score(t->elo1), q1);
    double sum = 0;
    for (int i = 0; i < k; i++) sum += p[i] * log(q1[i] / q0[i]);
    return n * sum;
}

double elo_sprt_llr_penta(const elo_sprt_t *t, const uint64_t penta[5]) {
    const double v[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
    /* Every pair won 2-0 (or lost 0-2): the pair-level MLE explains the data only by a
     * distribution of double wins and double losses, which leaves ln(s1/s0) a pair, the
     * evidence of one game, and keeps a perfect score undecided for 104 pairs of
     * SPRT(0, 10).  Nothing in such data supports that correlation, so its games are
     * counted as games (the trinomial limit, ln(s1/s0) each). */
    if (!penta[1] && !penta[2] && !penta[3] && (!penta[0] || !penta[4]))
        return elo_sprt_llr_wdl(t, 2 * penta[4], 0, 2 * penta[0]);
    return llr(t, 5, v, penta);
}

double elo_sprt_llr_wdl(const elo_sprt_t *t, uint64_t w, uint64_t d, uint64_t l) {
    const double v[3] = {1.0, 0.5, 0.0};
    const uint64_t c[3] = {w, d, l};
    return llr(t, 3, v, c);
}

elo_sprt_state_t elo_sprt_state(const elo_sprt_t *t, double x) {
    double lower, upper;
    elo_sprt_bounds(t, &lower, &upper);
    if (x >= upper) return ELO_SPRT_H1;
    if (x <= lower) return ELO_SPRT_H0;
    return ELO_SPRT_CONTINUE;
}

int elo_fit(int n, const double *games, const double *points, double *elo, char *err,
            size_t errcap) {
    GK_RETURN_IF(n < 2 || n > 1024, err, errcap, GK_E_INVALID, "elo_fit needs 2 to 1024 players");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double g = games[i * n + j], p = points[i * n + j];
            GK_RETURN_IF(!(g >= 0 && p >= 0 && p <= g + 1e-9 && fabs(g - games[j * n + i]) < 1e-9 &&
                           (i == j || fabs(p + points[j * n + i] - g) < 1e-6)),
                         err, errcap, GK_E_INVALID,
                         "inconsistent game counts between players %d and %d", i + 1, j + 1);
        }
    /* gamma_i = 10^(elo_i / 400); MM step: gamma_i = W_i / sum_j N_ij / (gamma_i + gamma_j),
     * with the virtual draw in W (1/2) and N (1) of every pairing played. */
    double gamma[1024], next[1024];
    for (int i = 0; i < n; i++) gamma[i] = 1;
    for (int it = 0; it < 10000; it++) {
        double change = 0;
        for (int i = 0; i < n; i++) {
            double w = 0, d = 0;
            for (int j = 0; j < n; j++) {
                if (j == i || games[i * n + j] <= 0) continue;
                w += points[i * n + j] + 0.5;
                d += (games[i * n + j] + 1) / (gamma[i] + gamma[j]);
            }
            next[i] = d > 0 ? w / d : gamma[i];
        }
        for (int i = 0; i < n; i++) {
            change = fmax(change, fabs(log(next[i] / gamma[i])));
            gamma[i] = next[i];
        }
        if (change < 1e-12) break;
    }
    for (int i = 0; i < n; i++) elo[i] = 400 * log10(gamma[i]);
    /* Shift: player 0 at 0 (its component); other components centred on 0. */
    int comp[1024];
    for (int i = 0; i < n; i++) comp[i] = -1;
    for (int c = 0, s = 0; s < n; s++) {
        if (comp[s] >= 0) continue;
        int stack[1024], top = 0, members = 0;
        double sum = 0;
        comp[s] = c;
        stack[top++] = s;
        while (top) {
            int i = stack[--top];
            members++;
            sum += elo[i];
            for (int j = 0; j < n; j++)
                if (comp[j] < 0 && games[i * n + j] > 0) {
                    comp[j] = c;
                    stack[top++] = j;
                }
        }
        double shift = c == 0 ? elo[0] : sum / members;
        for (int i = 0; i < n; i++)
            if (comp[i] == c) elo[i] -= shift;
        c++;
    }
    return 0;
}
