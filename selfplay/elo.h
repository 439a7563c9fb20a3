/*
 * selfplay/elo.h -- Elo differences, their confidence intervals and the sequential
 * probability ratio test (SPRT) used to stop a match early.
 *
 * Contract
 * --------
 * Scores are on [0, 1] for the first player ("A"): a win 1, a draw 1/2, a loss 0.  Elo is
 * the logistic model: score = 1 / (1 + 10^(-elo/400)).  Everything here is pure
 * arithmetic on counts: no allocation, no state, thread-safe.
 *
 * Two sampling units are supported:
 *  - games (trinomial: wins, draws, losses), each game an independent sample;
 *  - colour-swapped pairs (pentanomial: the pair's points for A, 0, 1/2, 1, 3/2 or 2).
 * Pairs are the better unit for a match played as pairs from the same opening: the two
 * games of a pair are correlated (the opening favours one colour), and the pentanomial
 * variance accounts for it, so intervals are honest and usually narrower.
 *
 * Intervals use the normal approximation on the mean score of the units, mapped to Elo
 * end by end (so they are asymmetric in Elo).  When every unit scored the same the
 * sample variance is zero and the normal interval would collapse to a point; the Wilson
 * score interval of the mean score, treated as a proportion over the units, is given
 * instead (conservative: a Bernoulli unit has the largest variance for its mean).  A
 * score of exactly 0 or 1 has an infinite Elo: callers print "inf".
 *
 * The SPRT is fishtest's generalised SPRT: the log-likelihood ratio of the two
 * maximum-likelihood distributions of the unit scores (pentanomial or trinomial) whose
 * expected scores are s0 and s1, the logistic scores of elo0 and elo1,
 *     LLR = N sum_i p_i ln(q1_i / q0_i),   q_i = p_i / (1 + x (v_i - s)), x solving
 *     sum_i p_i (v_i - s) / (1 + x (v_i - s)) = 0,
 * with p the observed frequencies.  Empty cells are regularised with 1e-3 (as fishtest
 * does).  Pentanomial counts with every pair 2-0 (or every pair 0-2) are scored as their
 * games (trinomial): the pair-level MLE would explain them by double wins and double losses
 * and give each pair the evidence of one game, so that SPRT(0, 10) stayed undecided after a
 * 200-0 match.  Unlike the normal approximation (s1 - s0)(2 mean - s0 - s1) / (2 var / N), it
 * stays sane after a handful of pairs (one lost pair is LLR -0.33 for SPRT(0, 100)
 * instead of -43), so early stopping never fires on one lopsided pair.
 * Bounds: lower = ln(beta / (1 - alpha)), upper = ln((1 - beta) / alpha).
 */
#ifndef GK_ELO_H
#define GK_ELO_H

#include <stddef.h>
#include <stdint.h>

/* Expected score of a player `elo` points stronger. */
double elo_to_score(double elo);
/* Elo difference of a mean score; -INFINITY at 0 and +INFINITY at 1. */
double elo_from_score(double score);

/* The z value of a two-sided interval of confidence conf (0.95 -> 1.95996...). */
double elo_z(double conf);

typedef struct elo_estimate {
    double n;       /* units (games or pairs) */
    double score;   /* mean score of A on [0, 1] */
    double stdev;   /* standard error of that mean */
    double elo;     /* Elo difference A - B */
    double lo, hi;  /* its interval at the requested confidence */
    double los;     /* likelihood of superiority: P(A stronger), normal approximation */
    int degenerate; /* 1 when every unit scored the same (Wilson interval used) */
} elo_estimate_t;

/* From wins, draws and losses of A (games as units).  Returns 0, or -1 when there are no
 * games or conf is not in (0, 1). */
int elo_estimate_wdl(uint64_t w, uint64_t d, uint64_t l, double conf, elo_estimate_t *out);

/* From the pentanomial counts of colour-swapped pairs: penta[k] = pairs in which A scored
 * k/2 points (k = 0..4).  Returns 0, or -1 as above. */
int elo_estimate_penta(const uint64_t penta[5], double conf, elo_estimate_t *out);

typedef enum { ELO_SPRT_CONTINUE = 0, ELO_SPRT_H0 = 1, ELO_SPRT_H1 = 2 } elo_sprt_state_t;

typedef struct elo_sprt {
    double elo0, elo1;  /* H0: elo = elo0, H1: elo = elo1 (elo0 < elo1) */
    double alpha, beta; /* error probabilities, e.g. 0.05 each */
} elo_sprt_t;

/* Checks the test's parameters; returns 0, or -1 with a one-line reason in err. */
int elo_sprt_check(const elo_sprt_t *t, char *err, size_t errcap);
void elo_sprt_bounds(const elo_sprt_t *t, double *lower, double *upper);
/* Log-likelihood ratio of H1 against H0 from pentanomial pair counts / from W, D, L.
 * 0 when there is no data. */
double elo_sprt_llr_penta(const elo_sprt_t *t, const uint64_t penta[5]);
double elo_sprt_llr_wdl(const elo_sprt_t *t, uint64_t w, uint64_t d, uint64_t l);
/* H1 accepted when llr >= upper, H0 when llr <= lower, otherwise continue. */
elo_sprt_state_t elo_sprt_state(const elo_sprt_t *t, double llr);

/* Ratings of n players from the games between them: the maximum-likelihood fit of the
 * logistic model (Bradley-Terry, a draw half a win), found by the minorise-maximise
 * iteration (Hunter 2004).  games[i * n + j] is the number of games between i and j and
 * points[i * n + j] the points i scored in them (both matrices over every ordered pair;
 * games symmetric, points[i][j] + points[j][i] = games[i][j]).  One virtual draw is added to
 * every pairing that was played (as bayeselo's prior), so that a player who won or lost
 * every game still has a finite rating.  elo[0..n) is shifted so that elo[0] = 0.  Players
 * not connected to player 0 by games keep the rating of their own component, centred on
 * 0.  Returns 0, or -1 when n < 2 or a count is negative or inconsistent. */
int elo_fit(int n, const double *games, const double *points, double *elo, char *err,
            size_t errcap);

#endif
