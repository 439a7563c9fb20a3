/* tests/test_elo.c -- Elo, interval and SPRT arithmetic against values computed
 * independently: closed forms, and a separate Python calculation of the same formulas
 * (statistics.NormalDist for the intervals; fishtest's MLE_expected / LLR written out
 * afresh, solved by bisection, for the SPRT). */
#include <math.h>
#include <stdio.h>

#include "selfplay/elo.h"

static int failures;

static void near(const char *what, double got, double want, double tol) {
    if (!(fabs(got - want) <= tol)) {
        printf("FAIL %s: got %.10g, want %.10g (tol %g)\n", what, got, want, tol);
        failures++;
    }
}

static void check(const char *what, int ok) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

int main(void) {
    /* Closed forms: 0.75 -> 400 log10(3); 100 Elo -> 1/(1+10^-0.25). */
    near("elo(0.75)", elo_from_score(0.75), 400 * log10(3.0), 1e-9);
    near("elo(0.5)", elo_from_score(0.5), 0, 1e-12);
    near("score(100)", elo_to_score(100), 0.6400649998028851, 1e-12);
    near("round trip", elo_from_score(elo_to_score(-237.5)), -237.5, 1e-9);
    check("elo(1) = +inf", isinf(elo_from_score(1.0)) && elo_from_score(1.0) > 0);
    check("elo(0) = -inf", isinf(elo_from_score(0.0)) && elo_from_score(0.0) < 0);
    near("z(0.95)", elo_z(0.95), 1.9599639845400536, 1e-9);
    near("z(0.99)", elo_z(0.99), 2.5758293035489, 1e-9);

    /* Trinomial: 60 wins, 20 draws, 20 losses. */
    elo_estimate_t e;
    check("wdl ok", elo_estimate_wdl(60, 20, 20, 0.95, &e) == 0);
    near("wdl score", e.score, 0.7, 1e-12);
    near("wdl elo", e.elo, 147.19071411783776, 1e-7);
    near("wdl lo", e.lo, 86.22501520030423, 1e-7);
    near("wdl hi", e.hi, 218.2517776410748, 1e-7);
    near("wdl los", e.los, 0.9999997133484282, 1e-9);
    check("wdl not degenerate", !e.degenerate);
    check("no games is an error", elo_estimate_wdl(0, 0, 0, 0.95, &e) == -1);
    check("bad confidence is an error", elo_estimate_wdl(1, 0, 0, 1.5, &e) == -1);

    /* Pentanomial: pairs scoring 0, 1/2, 1, 3/2, 2 points. */
    const uint64_t p1[5] = {3, 12, 40, 30, 15};
    check("penta ok", elo_estimate_penta(p1, 0.95, &e) == 0);
    near("penta score", e.score, 0.605, 1e-12);
    near("penta elo", e.elo, 74.06331161040345, 1e-7);
    near("penta lo", e.lo, 39.71085619659871, 1e-7);
    near("penta hi", e.hi, 109.9094248564319, 1e-7);
    near("penta n", e.n, 100, 0);

    /* Symmetry: swapping A and B negates the Elo and mirrors the interval. */
    const uint64_t p2[5] = {15, 30, 40, 12, 3};
    elo_estimate_t f;
    elo_estimate_penta(p2, 0.95, &f);
    near("mirror elo", f.elo, -e.elo, 1e-9);
    near("mirror lo", f.lo, -e.hi, 1e-9);

    /* Every pair won 2-0: infinite Elo, Wilson lower bound. */
    const uint64_t all[5] = {0, 0, 0, 0, 100};
    check("all wins ok", elo_estimate_penta(all, 0.95, &e) == 0);
    check("all wins degenerate", e.degenerate);
    check("all wins elo inf", isinf(e.elo) && e.elo > 0);
    near("all wins lo", e.lo, 566.2015271838907, 1e-6);
    check("all wins hi inf", isinf(e.hi));
    /* All draws: Elo 0 with a finite, symmetric interval. */
    check("all draws ok", elo_estimate_wdl(0, 50, 0, 0.95, &e) == 0);
    near("all draws elo", e.elo, 0, 1e-12);
    check("all draws interval", e.lo < 0 && e.hi > 0 && fabs(e.lo + e.hi) < 1e-9);

    /* SPRT(0, 10), alpha = beta = 0.05. */
    elo_sprt_t t = {0, 10, 0.05, 0.05};
    char err[128];
    double lower, upper;
    check("sprt params ok", elo_sprt_check(&t, err, sizeof err) == 0);
    elo_sprt_bounds(&t, &lower, &upper);
    near("sprt lower", lower, -2.9444389791664403, 1e-12);
    near("sprt upper", upper, 2.9444389791664403, 1e-12);
    near("sprt llr penta", elo_sprt_llr_penta(&t, p1), 1.9509602707100275, 1e-9);
    check("sprt continue", elo_sprt_state(&t, elo_sprt_llr_penta(&t, p1)) == ELO_SPRT_CONTINUE);
    const uint64_t big[5] = {6, 24, 80, 60, 30};
    near("sprt llr x2", elo_sprt_llr_penta(&t, big), 3.901920541420055, 1e-9);
    check("sprt H1 with twice the data",
          elo_sprt_state(&t, elo_sprt_llr_penta(&t, big)) == ELO_SPRT_H1);
    const uint64_t worse[5] = {30, 60, 80, 24, 6};
    near("sprt llr worse", elo_sprt_llr_penta(&t, worse), -4.299211092661324, 1e-9);
    check("sprt H0 when worse", elo_sprt_state(&t, elo_sprt_llr_penta(&t, worse)) == ELO_SPRT_H0);
    /* A perfect score decides: every pair 2-0 counts as its games (200 wins: 200 ln(s1/s0)),
     * not the pair-level limit 2.837 (undecided after 100 pairs), and symmetrically. */
    near("sprt perfect score", elo_sprt_llr_penta(&t, all), 2 * 2.836871910455882, 1e-3);
    check("sprt perfect score decides H1",
          elo_sprt_state(&t, elo_sprt_llr_penta(&t, all)) == ELO_SPRT_H1);
    const uint64_t none_won[5] = {100, 0, 0, 0, 0};
    check("sprt null score decides H0",
          elo_sprt_state(&t, elo_sprt_llr_penta(&t, none_won)) == ELO_SPRT_H0);
    const uint64_t three[5] = {0, 0, 0, 0, 3};
    check("sprt three perfect pairs continue",
          elo_sprt_state(&t, elo_sprt_llr_penta(&t, three)) == ELO_SPRT_CONTINUE);
    /* The pair-level model where the pairs differ (one pair 3/2). */
    const uint64_t almost[5] = {0, 0, 0, 1, 99};
    near("sprt almost perfect", elo_sprt_llr_penta(&t, almost), 2.8368, 1e-3);
    /* The interval of a perfect score ends at +inf for every length (it used to end at
     * +6261.4 for some, a rounding error short of a score of 1). */
    for (uint64_t n = 1; n <= 400; n++) {
        const uint64_t pw[5] = {0, 0, 0, 0, n}, pl[5] = {n, 0, 0, 0, 0};
        elo_estimate_t a, b;
        elo_estimate_penta(pw, 0.95, &a);
        elo_estimate_penta(pl, 0.95, &b);
        if (!(a.hi == INFINITY && isfinite(a.lo) && b.lo == -INFINITY && isfinite(b.hi))) {
            check("perfect-score interval ends at infinity", 0);
            printf("  n = %llu: [%g, %g], null [%g, %g]\n", (unsigned long long)n, a.lo, a.hi, b.lo,
                   b.hi);
            break;
        }
        if (elo_estimate_wdl(n, 0, 0, 0.95, &a) == 0 && a.hi != INFINITY) {
            check("perfect-score interval (games) ends at infinity", 0);
            break;
        }
    }
    /* One lost pair must not decide anything (the normal approximation said -43). */
    elo_sprt_t wide = {0, 100, 0.05, 0.05};
    const uint64_t one_loss[5] = {1, 0, 0, 0, 0};
    near("sprt one lost pair", elo_sprt_llr_penta(&wide, one_loss),
         elo_sprt_llr_wdl(&wide, 0, 0, 2), 1e-12);
    check("sprt one pair continues",
          elo_sprt_state(&wide, elo_sprt_llr_penta(&wide, one_loss)) == ELO_SPRT_CONTINUE);
    /* Linear in N for the same frequencies. */
    const uint64_t p100[5] = {300, 1200, 4000, 3000, 1500};
    near("sprt llr x100", elo_sprt_llr_penta(&t, p100), 195.09602707100274, 1e-6);
    const uint64_t none[5] = {0, 0, 0, 0, 0};
    near("sprt no data", elo_sprt_llr_penta(&t, none), 0, 0);
    near("sprt llr wdl", elo_sprt_llr_wdl(&t, 30, 40, 30), -0.06901291569175305, 1e-9);
    elo_sprt_t bad = {5, 0, 0.05, 0.05};
    check("sprt elo0 >= elo1 refused", elo_sprt_check(&bad, err, sizeof err) == -1);
    elo_sprt_t bad2 = {0, 5, 0.7, 0.05};
    check("sprt alpha refused", elo_sprt_check(&bad2, err, sizeof err) == -1);

    char e2[128];
    /* The maximum-likelihood fit.  Two players: the fit is the score with the virtual draw,
     * 76 points of 100 games -> 76.5 of 101. */
    {
        double g[4] = {0, 100, 100, 0}, p[4] = {0, 76, 24, 0}, r[2];
        check("fit 2 ok", elo_fit(2, g, p, r, e2, sizeof e2) == 0);
        near("fit 2: first at 0", r[0], 0, 1e-12);
        near("fit 2", r[1], -elo_from_score(76.5 / 101), 1e-6);
    }
    /* A-B and B-C at 75% over 1000 games each, A and C never met: the chain adds up
     * (2 x 190.85, the prior's pull a fraction of an Elo). */
    {
        double g[9] = {0, 1000, 0, 1000, 0, 1000, 0, 1000, 0};
        double p[9] = {0, 750, 0, 250, 0, 750, 0, 250, 0}, r[3];
        check("fit 3 ok", elo_fit(3, g, p, r, e2, sizeof e2) == 0);
        near("fit 3: B", r[1], -400 * log10(3.0), 1.0);
        near("fit 3: C", r[2], -800 * log10(3.0), 2.0);
    }
    /* A player who won every game has a finite rating; inconsistent counts are refused. */
    {
        double g[4] = {0, 10, 10, 0}, p[4] = {0, 10, 0, 0}, r[2];
        check("fit all won",
              elo_fit(2, g, p, r, e2, sizeof e2) == 0 && isfinite(r[1]) && r[1] < -300);
        double incons[4] = {0, 10, 9, 0};
        check("fit inconsistent", elo_fit(2, incons, p, r, e2, sizeof e2) == -1);
    }

    if (failures) return 1;
    printf("test_elo: all passed\n");
    return 0;
}
