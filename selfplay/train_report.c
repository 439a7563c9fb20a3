/* selfplay/train_report.c -- the training run's report table and Elo ladder plot (train.h).
 * DIR/report.txt is the table, DIR/ladder.svg the plot, DIR/report.html the page (with
 * DIR/games/, sample games of each generation), all rewritten after every step. */
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

typedef struct panel {
    double x0, y0, w, h;       /* pixels */
    double gmax, lo, hi, tick; /* data ranges, tick step */
} panel_t;

static double px(const panel_t *p, double g) {
    return p->x0 + p->w * (g + 0.5) / (p->gmax + 1); /* half a generation of margin */
}
static double py(const panel_t *p, double v) {
    return p->y0 + p->h - p->h * (v - p->lo) / (p->hi - p->lo);
}

static void svg_axes(gk_sb_t *b, const panel_t *p, const char *title, const char *ylabel) {
    gk_sb_printf(b,
                 "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' "
                 "stroke='#444'/>\n",
                 p->x0, p->y0, p->w, p->h);
    gk_sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='15'>%s</text>\n",
                 p->x0 + p->w / 2, p->y0 - 12, title);
    gk_sb_printf(b,
                 "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12' "
                 "transform='rotate(-90 %.1f %.1f)'>%s</text>\n",
                 p->x0 - 48, p->y0 + p->h / 2, p->x0 - 48, p->y0 + p->h / 2, ylabel);
    gk_sb_printf(b,
                 "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12'>generation</text>\n",
                 p->x0 + p->w / 2, p->y0 + p->h + 34);
    /* ticks counted, not summed: a sum of 0.2 steps from -0.6 lands on -5.551e-17 */
    for (int i = 0;; i++) {
        double v = p->lo + i * p->tick;
        if (v > p->hi + 0.5 * p->tick) break;
        if (fabs(v) < 1e-6 * p->tick) v = 0;
        gk_sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='end' font-size='11'>%.4g</text>\n",
                     p->x0 - 5, py(p, v) + 4, v);
        gk_sb_printf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n", p->x0,
                     py(p, v), p->x0 + p->w, py(p, v));
    }
    int step = p->gmax > 20 ? (int)(p->gmax / 10) : 1;
    for (int g = 0; g <= (int)p->gmax; g += step)
        gk_sb_printf(b, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='11'>%d</text>\n",
                     px(p, g), p->y0 + p->h + 16, g);
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

/* An interval bar from y value lo to hi at x (infinite ends drawn to the panel's edge with
 * an arrow and "inf", so that a bound at infinity does not look like one at the edge). */
static void svg_bar(gk_sb_t *b, const panel_t *p, double x, double lo, double hi, const char *col,
                    const char *dash) {
    double ylo = py(p, isfinite(lo) ? lo : p->lo), yhi = py(p, isfinite(hi) ? hi : p->hi);
    gk_sb_printf(b,
                 "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' "
                 "stroke-dasharray='%s'/>\n",
                 x, ylo, x, yhi, col, dash);
    for (int k = 0; k < 2; k++) {
        double v = k ? hi : lo, y = k ? yhi : ylo;
        if (!isinf(v)) continue;
        double in = v > 0 ? 1 : -1; /* the arrow's tip on the edge, its base inside */
        const char *sign = v > 0 ? "+" : "-";
        gk_sb_printf(b,
                     "<polygon class='inf' points='%.1f,%.1f %.1f,%.1f %.1f,%.1f' fill='%s'>"
                     "<title>%sinf: no bound</title></polygon><text x='%.1f' y='%.1f' "
                     "font-size='10' fill='%s'>%sinf</text>\n",
                     x, y, x - 5, y + 8 * in, x + 5, y + 8 * in, col, sign, x + 7,
                     y + (in > 0 ? 11 : -4), col, sign);
    }
}

static void report_svg(const train_state_t *s, gk_sb_t *b) {
    int n = s->ngen;
    double *e = malloc(7 * (size_t)n * sizeof *e), *lv = malloc(2 * (size_t)n * sizeof *lv);
    double *ch = malloc((size_t)n * sizeof *ch);
    if (!e || !lv || !ch) {
        free(e);
        free(lv);
        free(ch);
        b->over = true;
        return;
    }
    chain_elo(s, ch);
    for (int g = 0; g < n; g++) {
        const train_gen_t *r = &s->gen[g];
        int on = g == 0 || r->ladder;
        e[4 * g] = g == 0 ? 0 : on ? r->lelo : NAN;
        e[4 * g + 1] = g == 0 ? 0 : on && isfinite(r->lelo_lo) ? r->lelo_lo : NAN;
        e[4 * g + 2] = g == 0 ? 0 : on && isfinite(r->lelo_hi) ? r->lelo_hi : NAN;
        e[4 * g + 3] = ch[g];
        /* a rejected candidate: its gating result, placed on the chained Elo of the
         * best weights it played (e[4n + 3g ...]: Elo, low, high) */
        double *rj = e + 4 * (size_t)n + 3 * (size_t)g;
        int rejected = g > 0 && (r->phases & TRAIN_PH_MATCH) && !r->promoted &&
                       r->best_before < g && isfinite(ch[r->best_before]);
        rj[0] = rejected ? ch[r->best_before] + r->elo : NAN;
        rj[1] = rejected ? ch[r->best_before] + r->elo_lo : NAN;
        rj[2] = rejected ? ch[r->best_before] + r->elo_hi : NAN;
        int tuned = g > 0 && (r->phases & TRAIN_PH_TUNE);
        lv[2 * g] = tuned ? r->val_before : NAN;
        lv[2 * g + 1] = tuned ? r->val_after : NAN;
    }
    panel_t a = {70, 50, 380, 300, n > 1 ? n - 1 : 1, 0, 0, 1};
    panel_t c = {560, 50, 380, 300, n > 1 ? n - 1 : 1, 0, 0, 1};
    view_nice_range(e, 7 * n, 5, 100, &a.lo, &a.hi, &a.tick);
    view_nice_range(lv, 2 * n, 5, 0, &c.lo, &c.hi, &c.tick);
    gk_sb_printf(b, "<svg xmlns='http://www.w3.org/2000/svg' width='980' height='460' "
                    "font-family='sans-serif'>\n<rect width='980' height='460' fill='white'/>\n");
    svg_axes(b, &a, "Elo ladder (95% intervals)", "Elo");
    svg_axes(b, &c, "validation loss of the tuner", "loss");
    /* chained gating Elo: dashed grey line */
    gk_sb_printf(b, "<polyline fill='none' stroke='#888' stroke-width='1.5' "
                    "stroke-dasharray='5,4' points='");
    for (int g = 0; g < n; g++)
        if (isfinite(e[4 * g + 3])) gk_sb_printf(b, "%.1f,%.1f ", px(&a, g), py(&a, e[4 * g + 3]));
    gk_sb_printf(b, "'/>\n");
    /* ladder against generation 0: error bars, line, points */
    /* a perfect score has an infinite Elo: drawn hollow at the top edge */
    gk_sb_printf(b, "<polyline fill='none' stroke='#1f6fb4' stroke-width='2' points='");
    for (int g = 0; g < n; g++)
        if (!isnan(e[4 * g]))
            gk_sb_printf(b, "%.1f,%.1f ", px(&a, g),
                         py(&a, isfinite(e[4 * g]) ? e[4 * g]
                                : e[4 * g] > 0     ? a.hi
                                                   : a.lo));
    gk_sb_printf(b, "'/>\n");
    for (int g = 0; g < n; g++) {
        if (isinf(e[4 * g])) {
            gk_sb_printf(b,
                         "<circle cx='%.1f' cy='%.1f' r='4' fill='white' stroke='#1f6fb4' "
                         "stroke-width='2'><title>gen %d: %sinf (perfect score)</title></circle>\n",
                         px(&a, g), py(&a, e[4 * g] > 0 ? a.hi : a.lo), g,
                         e[4 * g] > 0 ? "+" : "-");
            continue;
        }
        if (!isfinite(e[4 * g])) continue;
        svg_bar(b, &a, px(&a, g), g ? s->gen[g].lelo_lo : 0, g ? s->gen[g].lelo_hi : 0, "#1f6fb4",
                "none");
        gk_sb_printf(b,
                     "<circle cx='%.1f' cy='%.1f' r='4' fill='#1f6fb4'><title>gen %d: %+.0f"
                     "</title></circle>\n",
                     px(&a, g), py(&a, e[4 * g]), g, e[4 * g]);
    }
    for (int g = 1; g < n; g++) { /* rejected candidates: red squares, dashed bars */
        const double *rj = e + 4 * (size_t)n + 3 * (size_t)g;
        if (isnan(rj[0])) continue;
        double x = px(&a, g) + 6, v = rj[0];
        double y = py(&a, isfinite(v) ? v : v > 0 ? a.hi : a.lo);
        if (!isnan(rj[1]) || !isnan(rj[2])) svg_bar(b, &a, x, rj[1], rj[2], "#c0392b", "3,2");
        gk_sb_printf(b,
                     "<rect class='rejected' x='%.1f' y='%.1f' width='7' height='7' fill='%s' "
                     "stroke='#c0392b' stroke-width='1.5'><title>gen %d: rejected, gating Elo "
                     "%+.0f [%+.0f, %+.0f] against gen %d</title></rect>\n",
                     x - 3.5, y - 3.5, isfinite(v) ? "#c0392b" : "white", g, s->gen[g].elo,
                     s->gen[g].elo_lo, s->gen[g].elo_hi, s->gen[g].best_before);
    }
    gk_sb_printf(b,
                 "<text x='%.1f' y='410' font-size='12' fill='#1f6fb4'>&#9679; promoted "
                 "generation vs generation 0 (hollow: perfect score)</text>\n<text "
                 "x='%.1f' y='426' font-size='12' "
                 "fill='#888'>- - gating Elo chained along the promotions</text>\n<text "
                 "x='%.1f' y='442' font-size='12' fill='#c0392b'>&#9632; rejected candidate: "
                 "its gating Elo on the chain of the weights it played</text>\n",
                 a.x0, a.x0, a.x0);
    /* validation loss: best weights before tuning (grey) and the candidate (red) */
    for (int k = 0; k < 2; k++) {
        const char *col = k ? "#c0392b" : "#999";
        for (int g = 0; g < n; g++)
            if (isfinite(lv[2 * g + k]))
                gk_sb_printf(b, "<circle cx='%.1f' cy='%.1f' r='4' fill='%s'/>\n", px(&c, g),
                             py(&c, lv[2 * g + k]), col);
    }
    gk_sb_printf(b,
                 "<text x='%.1f' y='410' font-size='12' fill='#999'>&#9679; best weights "
                 "before tuning</text>\n<text x='%.1f' y='426' font-size='12' "
                 "fill='#c0392b'>&#9679; tuned candidate</text>\n</svg>\n",
                 c.x0, c.x0);
    free(e);
    free(lv);
    free(ch);
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

/* DIR/report.html and its sample game pages.  A generation whose logs cannot be read
 * (not played yet) has no samples; that is no error. */
static int report_html(const char *dir, const train_state_t *s, char *err, size_t errcap) {
    double chain[TRAIN_MAX_GENERATIONS + 1];
    chain_elo(s, chain);
    size_t ngen = s->ngen > 0 ? (size_t)s->ngen : 1;
    view_train_gen_t *gen = calloc(ngen, sizeof *gen);
    gl_game_t *samples = calloc(ngen * SAMPLES_PER_GEN, sizeof *samples);
    int *nloaded = calloc(ngen, sizeof *nloaded);
    int rc = GK_OK;
    if (!gen || !samples || !nloaded)
        rc = gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", dir);
    for (int g = 0; g < s->ngen && !rc; g++) {
        gen[g] = view_gen(s, g, chain);
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
        rc = view_train_write(dir, &t, err, errcap);
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
    if (rc) return rc;
    report_svg(s, &b);
    rc = write_text(dir, "ladder.svg", &b, err, errcap);
    gk_sb_free(&b);
    if (!rc) rc = report_html(dir, s, err, errcap);
    return rc;
}
