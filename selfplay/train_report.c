/* selfplay/train_report.c -- the training run's report table and pictures (train.h).
 * DIR/report.txt is the table; DIR/ladder.svg (the plots) and DIR/report.html (the page,
 * with DIR/games/, sample games of each generation) are drawn by view/ from the state's
 * numbers; all are rewritten after every step. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "../view/view.h"
#include "train.h"

#define SAMPLES_PER_GEN 2

static void fmt_num(char *b, size_t cap, double v, const char *fmt) {
    if (isnan(v))
        snprintf(b, cap, "-");
    else if (isinf(v))
        snprintf(b, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(b, cap, fmt, v);
}

static void chain_elo(const train_state_t *s, double *chain);

static void report_table(const train_state_t *s, gk_sb_t *b) {
    double chain[TRAIN_MAX_GENERATIONS + 1];
    chain_elo(s, chain);
    gk_sb_printf(b, "%-4s %-4s %6s %8s %9s %9s %-17s %-17s %-12s %-24s %-4s %6s %s\n", "gen",
                 "best", "games", "games/h", "positions", "K", "train loss", "val loss",
                 "gate W-D-L", "gate Elo [95%]", "prom", "chain", "ladder Elo vs gen 0 [95%]");
    double games = 0, secs = 0;
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        char gph[32] = "-", k[32] = "-", tl[64] = "-", vl[64] = "-", wdl[72] = "-", elo[96] = "-",
             lad[160] = "-", a[24], c[24], d[24];
        if (g == 0) {
            snprintf(lad, sizeof lad, "0 (start)");
        } else {
            if (r->phases & TRAIN_PH_SELFPLAY && r->selfplay_s > 0) {
                snprintf(gph, sizeof gph, "%.0f", r->games / r->selfplay_s * 3600);
                games += (double)r->games;
                secs += r->selfplay_s;
            }
            if (r->phases & TRAIN_PH_TUNE) {
                snprintf(k, sizeof k, "%.4g", r->k);
                fmt_num(a, sizeof a, r->train_before, "%.4f");
                fmt_num(c, sizeof c, r->train_after, "%.4f");
                snprintf(tl, sizeof tl, "%s->%s", a, c);
                fmt_num(a, sizeof a, r->val_before, "%.4f");
                fmt_num(c, sizeof c, r->val_after, "%.4f");
                snprintf(vl, sizeof vl, "%s->%s", a, c);
            }
            if (r->phases & TRAIN_PH_MATCH) {
                snprintf(wdl, sizeof wdl, "%llu-%llu-%llu", (unsigned long long)r->mw,
                         (unsigned long long)r->md, (unsigned long long)r->ml);
                fmt_num(a, sizeof a, r->elo, "%+.0f");
                fmt_num(c, sizeof c, r->elo_lo, "%+.0f");
                fmt_num(d, sizeof d, r->elo_hi, "%+.0f");
                snprintf(elo, sizeof elo, "%s [%s, %s]", a, c, d);
            }
            if (r->ladder) {
                fmt_num(a, sizeof a, r->lelo, "%+.0f");
                fmt_num(c, sizeof c, r->lelo_lo, "%+.0f");
                fmt_num(d, sizeof d, r->lelo_hi, "%+.0f");
                snprintf(lad, sizeof lad, "%s [%s, %s] (%llu-%llu-%llu)", a, c, d,
                         (unsigned long long)r->lw, (unsigned long long)r->ld,
                         (unsigned long long)r->ll);
            }
        }
        const char *prom = g == 0                          ? "yes"
                           : !(r->phases & TRAIN_PH_MATCH) ? "..."
                           : r->promoted                   ? "yes"
                                                           : "no";
        char chs[24];
        fmt_num(chs, sizeof chs, chain[g], "%+.0f");
        gk_sb_printf(b, "%-4d %-4d %6llu %8s %9llu %9s %-17s %-17s %-12s %-24s %-4s %6s %s\n", g,
                     r->best_after, (unsigned long long)r->games, gph,
                     (unsigned long long)r->positions, k, tl, vl, wdl, elo, prom, chs, lad);
    }
    if (secs > 0)
        gk_sb_printf(b, "self-play: %.0f games in %.0f s, %.0f games per hour\n", games, secs,
                     games / secs * 3600);
    gk_sb_printf(b, "chain: the gating Elo summed along the promotions (gen 0 = 0); ladder: "
                    "a match of the promoted generation against generation 0\n");
}

/* Elo of each promoted generation chained through its gating matches (gen 0 = 0): the
 * sum of the gains along the line of promotions; NaN for the others. */
static void chain_elo(const train_state_t *s, double *chain) {
    for (int g = 0; g < s->ngen; g++) {
        const train_gen_t *r = &s->gen[g];
        chain[g] = g == 0 ? 0
                   : (r->phases & TRAIN_PH_MATCH) && r->promoted && r->best_before < g
                       ? chain[r->best_before] + r->elo
                       : NAN;
    }
}

/* Writes the text built in b to DIR/NAME (atomically). */
static int write_text(const char *dir, const char *name, const gk_sb_t *b, char *err,
                      size_t errcap) {
    char path[4096];
    GK_RETURN_IF(gk_sb_len(b) < 0, err, errcap, GK_E_NOMEM, "%s/%s: out of memory", dir, name);
    GK_RETURN_IF(gk_path_join(path, sizeof path, dir, name), err, errcap, GK_E_INVALID,
                 "%s: path too long", dir);
    return gk_write_atomic(path, b->p, b->n, err, errcap);
}

/* The page's numbers of generation g (view/view.h: NaN where a phase has not run). */
static view_train_gen_t view_gen(const train_state_t *s, int g, const double *chain) {
    const train_gen_t *r = &s->gen[g];
    int tuned = g > 0 && (r->phases & TRAIN_PH_TUNE),
        matched = g > 0 && (r->phases & TRAIN_PH_MATCH);
    int ladder = g > 0 && r->ladder;
    return (view_train_gen_t){
        .promoted = g == 0 || (matched && r->promoted),
        .best_after = r->best_after,
        .games = (double)r->games,
        .selfplay_s = g > 0 && (r->phases & TRAIN_PH_SELFPLAY) ? r->selfplay_s : 0,
        .positions = (double)r->positions,
        .train_before = tuned ? r->train_before : NAN,
        .train_after = tuned ? r->train_after : NAN,
        .val_before = tuned ? r->val_before : NAN,
        .val_after = tuned ? r->val_after : NAN,
        .gate_elo = matched ? r->elo : NAN,
        .gate_lo = matched ? r->elo_lo : NAN,
        .gate_hi = matched ? r->elo_hi : NAN,
        .mw = (double)r->mw,
        .md = (double)r->md,
        .ml = (double)r->ml,
        .ladder_elo = g == 0   ? 0
                      : ladder ? r->lelo
                               : NAN,
        .ladder_lo = g == 0   ? 0
                     : ladder ? r->lelo_lo
                              : NAN,
        .ladder_hi = g == 0   ? 0
                     : ladder ? r->lelo_hi
                              : NAN,
        .chain_elo = chain[g],
    };
}

void train_view_gens(const train_state_t *s, view_train_gen_t *gen) {
    double chain[TRAIN_MAX_GENERATIONS + 1];
    chain_elo(s, chain);
    for (int g = 0; g < s->ngen; g++) gen[g] = view_gen(s, g, chain);
}

/* DIR/ladder.svg, DIR/report.html and its sample game pages.  A generation whose logs
 * cannot be read (not played yet) has no samples; that is no error. */
static int report_pictures(const char *dir, const train_state_t *s, char *err, size_t errcap) {
    size_t ngen = s->ngen > 0 ? (size_t)s->ngen : 1;
    view_train_gen_t *gen = calloc(ngen, sizeof *gen);
    gl_game_t *samples = calloc(ngen * SAMPLES_PER_GEN, sizeof *samples);
    int *nloaded = calloc(ngen, sizeof *nloaded);
    int rc = GK_OK;
    if (!gen || !samples || !nloaded)
        rc = gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", dir);
    if (!rc) train_view_gens(s, gen);
    for (int g = 0; g < s->ngen && !rc; g++) {
        char logs[4096], e[256];
        if (g == 0 || !(s->gen[g].phases & TRAIN_PH_SELFPLAY)) continue;
        if (snprintf(logs, sizeof logs, "%s/gen-%03d/logs", dir, g) >= (int)sizeof logs) continue;
        int n = 0;
        gl_game_t *k = samples + (size_t)g * SAMPLES_PER_GEN;
        if (view_load_samples(logs, SAMPLES_PER_GEN, k, &n, e, sizeof e) == GK_OK)
            gen[g].sample = k, gen[g].nsamples = nloaded[g] = n;
    }
    if (!rc) {
        const char *base = strrchr(dir, '/');
        char title[512];
        snprintf(title, sizeof title, "Training run %s", base && base[1] ? base + 1 : dir);
        view_train_t t = {.title = title,
                          .settings = NULL,
                          .ngen = s->ngen,
                          .gen = gen,
                          .report_href = "report.txt"};
        gk_sb_t b;
        gk_sb_growing(&b);
        rc = view_train_svg(&b, &t, err, errcap);
        if (!rc) rc = write_text(dir, "ladder.svg", &b, err, errcap);
        gk_sb_free(&b);
        if (!rc) rc = view_train_write(dir, &t, err, errcap);
    }
    for (int g = 0; nloaded && g < s->ngen; g++)
        for (int k = 0; k < nloaded[g]; k++)
            gl_game_free(&samples[(size_t)g * SAMPLES_PER_GEN + k]);
    free(nloaded);
    free(samples);
    free(gen);
    return rc;
}

int train_report(const char *dir, const train_state_t *s, FILE *out, char *err, size_t errcap) {
    gk_sb_t b;
    gk_sb_growing(&b);
    report_table(s, &b);
    int rc = write_text(dir, "report.txt", &b, err, errcap);
    if (!rc && out) fputs(b.p, out);
    gk_sb_free(&b);
    return rc ? rc : report_pictures(dir, s, err, errcap);
}
