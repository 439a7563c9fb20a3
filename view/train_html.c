/* view/train_html.c -- the training run as an HTML page with its sample games (view.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/status.h"
#include "view_int.h"

/* The classes of the plots' text, on the page and in the standalone ladder.svg. */
#define PLOT_CSS                                                                                   \
    ".gt{font-size:11px;fill:#7a6650;text-anchor:end}.gx{font-size:11px;fill:#7a6650;"             \
    "text-anchor:middle}.lg{font-size:11.5px}\n"

static const char train_css[] =
    "body{margin:0;font:14px/1.45 'DejaVu Sans',Verdana,sans-serif;background:#f3f0e8;"
    "color:#2b2118}\n"
    "header{padding:14px 22px 2px}h1{font-size:21px;margin:0 0 3px}"
    "h2{font-size:14px;margin:14px 0 6px;color:#5b4a38;text-transform:uppercase;"
    "letter-spacing:.05em}\n"
    ".sub{color:#6b5a48;font-size:12.5px;font-family:'DejaVu Sans Mono',monospace;"
    "word-break:break-all}a{color:#2f5fa8}\n"
    ".plots{display:flex;flex-wrap:wrap;gap:14px;padding:6px 22px}\n"
    ".plots svg{background:#fffdf8;border:1px solid #ddd0b8;border-radius:6px}\n" PLOT_CSS
    "section{padding:0 22px}\n"
    "table.gens{border-collapse:collapse;background:#fffdf8;border:1px solid #ddd0b8;"
    "font-size:13px}.gens th,.gens td{padding:3px 9px;border-bottom:1px solid #eee4d3;"
    "text-align:right;white-space:nowrap}.gens th{background:#efe6d4;color:#4a3e33}"
    ".gens td.l{text-align:left}.gens tr.prom td:first-child{font-weight:bold;color:#2e7d32}\n"
    "footer{padding:10px 22px 14px;font-size:12px;color:#9a8a76}\n";

static void fmt(char *buf, size_t cap, double v, const char *f) {
    if (fabs(v) < 0.5 && strchr(f, '+')) v = 0; /* "+0", not "-0" */
    if (isnan(v))
        snprintf(buf, cap, "-");
    else if (isinf(v))
        snprintf(buf, cap, "%sinf", v > 0 ? "+" : "-");
    else
        snprintf(buf, cap, f, v);
}

static void plot_open(gk_sb_t *b, int w, int h, const char *label) {
    gk_sb_printf(b,
                 "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 "
                 "%d %d' font-family='DejaVu Sans, Verdana, sans-serif' role='img' "
                 "aria-label='",
                 w, h, w, h);
    gk_sb_put_xml(b, label);
    gk_sb_puts(b, "'>\n");
}

static void legend(gk_sb_t *b, double x, double y, const char *colour, const char *dash,
                   const char *text) {
    gk_sb_printf(b,
                 "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='2.5' "
                 "stroke-dasharray='%s'/><text class='lg' x='%.1f' y='%.1f' fill='#4a3e33'>",
                 x, y - 4, x + 22, y - 4, colour, dash, x + 28, y);
    gk_sb_put_xml(b, text);
    gk_sb_puts(b, "</text>\n");
}

/* Opens a plot over the generations 0 .. ngen-1 (an SVG of 410 x height pixels named
 * label) with its frame drawn: the y axis spans v[0..m) (view_nice_range, at least
 * min_span). */
static vg_plot_t gen_plot(gk_sb_t *b, const char *title, const char *ylabel, const char *label,
                          int height, int ngen, const double *v, int m, double min_span) {
    vg_plot_t p = {.x0 = 62,
                   .y0 = 34,
                   .w = 330,
                   .h = 190,
                   .xlo = -0.5,
                   .xhi = ngen - 0.5,
                   .xtick = ngen > 24 ? ceil(ngen / 12.0) : 1,
                   .title = title,
                   .xlabel = "generation",
                   .ylabel = ylabel};
    view_nice_range(v, m, 5, min_span, &p.ylo, &p.yhi, &p.ytick);
    plot_open(b, 410, height, label);
    vg_plot_frame(b, &p);
    return p;
}

/* A rejected candidate's gating result placed on the chained Elo of the weights it
 * played (v: Elo, low, high); false when g is no rejected candidate. */
static bool rejected_at(const view_train_t *t, int g, double v[3]) {
    const view_train_gen_t *r = &t->gen[g];
    if (g == 0 || r->promoted || isnan(r->gate_elo) || r->best_after < 0 || r->best_after >= g)
        return false;
    double base = t->gen[r->best_after].chain_elo;
    if (!isfinite(base)) return false;
    v[0] = base + r->gate_elo, v[1] = base + r->gate_lo, v[2] = base + r->gate_hi;
    return true;
}

/* Rejected candidates: red squares beside the generation, dashed bars. */
static void rejected_marks(gk_sb_t *b, const view_train_t *t, const vg_plot_t *p) {
    for (int g = 1; g < t->ngen; g++) {
        double v[3];
        if (!rejected_at(t, g, v)) continue;
        const view_train_gen_t *r = &t->gen[g];
        double x = g + 0.12, y = isfinite(v[0]) ? v[0] : v[0] > 0 ? p->yhi : p->ylo;
        if (!isnan(v[1]) || !isnan(v[2])) vg_plot_bar(b, p, x, v[1], v[2], "#c0392b", "3 2");
        gk_sb_printf(b,
                     "<rect class='rejected' x='%.1f' y='%.1f' width='8' height='8' fill='%s' "
                     "stroke='#c0392b' stroke-width='1.6'><title>generation %d: rejected, "
                     "gating Elo %+.0f [%+.0f, %+.0f] against generation %d</title></rect>\n",
                     vg_px(p, x) - 4, vg_py(p, y) - 4, isfinite(v[0]) ? "#c0392b" : "#fff", g,
                     r->gate_elo, r->gate_lo, r->gate_hi, r->best_after);
    }
}

/* The Elo ladder: each promoted generation against generation 0 with its 95% interval,
 * the gating Elo chained along the promotions, and the rejected candidates' gating. */
static void ladder_plot(gk_sb_t *b, const view_train_t *t, double *x, double *tmp) {
    int n = t->ngen, m = 0;
    for (int g = 0; g < n; g++) {
        const view_train_gen_t *r = &t->gen[g];
        double v[7] = {r->ladder_elo, r->ladder_lo, r->ladder_hi, r->chain_elo, NAN, NAN, NAN};
        rejected_at(t, g, v + 4);
        for (int k = 0; k < 7; k++)
            if (!isnan(v[k])) tmp[m++] = v[k];
    }
    tmp[m++] = 0;
    vg_plot_t p = gen_plot(b, "Elo ladder (95% intervals)", "Elo vs generation 0", "Elo ladder",
                           330, n, tmp, m, 100);
    for (int g = 0; g < n; g++) x[g] = g, tmp[g] = t->gen[g].chain_elo;
    vg_plot_line(b, &p, x, tmp, n, true,
                 "fill='none' stroke='#8a7a66' stroke-width='1.6' stroke-dasharray='5 4'");
    for (int g = 0; g < n; g++) { /* an infinite Elo (perfect score) sits on the edge */
        double e = t->gen[g].ladder_elo;
        tmp[g] = isinf(e) ? (e > 0 ? p.yhi : p.ylo) : e;
    }
    vg_plot_line(b, &p, x, tmp, n, true, "fill='none' stroke='#2f5fa8' stroke-width='2.2'");
    for (int g = 0; g < n; g++) {
        const view_train_gen_t *r = &t->gen[g];
        if (isnan(r->ladder_elo)) continue;
        double px = vg_px(&p, g);
        if (isinf(r->ladder_elo)) {
            gk_sb_printf(b,
                         "<circle cx='%.1f' cy='%.1f' r='4.5' fill='#fff' stroke='#2f5fa8' "
                         "stroke-width='2'><title>generation %d: perfect score</title></circle>\n",
                         px, vg_py(&p, tmp[g]), g);
            continue;
        }
        if (!isnan(r->ladder_lo) || !isnan(r->ladder_hi))
            vg_plot_bar(b, &p, g, r->ladder_lo, r->ladder_hi, "#2f5fa8", "none");
        gk_sb_printf(b,
                     "<circle cx='%.1f' cy='%.1f' r='4.5' fill='#2f5fa8'><title>generation %d: "
                     "%+.0f [%+.0f, %+.0f]</title></circle>\n",
                     px, vg_py(&p, r->ladder_elo), g, r->ladder_elo, r->ladder_lo, r->ladder_hi);
    }
    rejected_marks(b, t, &p);
    legend(b, p.x0, 286, "#2f5fa8", "none", "promoted generation vs generation 0");
    legend(b, p.x0, 302, "#8a7a66", "5 4", "gating Elo chained along the promotions");
    legend(b, p.x0, 318, "#c0392b", "3 2", "rejected candidate: its gating Elo");
    gk_sb_puts(b, "</svg>\n");
}

/* The tuner's losses per generation: validation before (the best weights) and after (the
 * candidate), and the training loss after. */
static void loss_plot(gk_sb_t *b, const view_train_t *t, double *x, double *tmp) {
    int n = t->ngen, m = 0;
    for (int g = 0; g < n; g++) {
        const view_train_gen_t *r = &t->gen[g];
        double v[3] = {r->val_before, r->val_after, r->train_after};
        for (int k = 0; k < 3; k++)
            if (isfinite(v[k])) tmp[m++] = v[k];
    }
    vg_plot_t p = gen_plot(b, "Tuner loss", "loss", "Tuner loss", 320, n, tmp, m, 0);
    static const char *const col[3] = {"#a8977f", "#c0392b", "#e08a2c"};
    static const char *const dash[3] = {"5 4", "none", "2 3"};
    for (int k = 0; k < 3; k++) {
        for (int g = 0; g < n; g++) {
            const view_train_gen_t *r = &t->gen[g];
            x[g] = g;
            tmp[g] = k == 0 ? r->val_before : k == 1 ? r->val_after : r->train_after;
        }
        char attrs[160];
        snprintf(attrs, sizeof attrs,
                 "fill='none' stroke='%s' stroke-width='2' stroke-dasharray='%s'", col[k], dash[k]);
        vg_plot_line(b, &p, x, tmp, n, false, attrs);
        for (int g = 0; g < n; g++)
            if (isfinite(tmp[g]))
                gk_sb_printf(b, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>", vg_px(&p, g),
                             vg_py(&p, tmp[g]), col[k]);
        gk_sb_puts(b, "\n");
    }
    legend(b, p.x0, 272, col[0], dash[0], "validation, best weights before tuning");
    legend(b, p.x0, 290, col[1], dash[1], "validation, tuned candidate");
    legend(b, p.x0, 308, col[2], dash[2], "training, tuned candidate");
    gk_sb_puts(b, "</svg>\n");
}

static void speed_plot(gk_sb_t *b, const view_train_t *t, double *tmp) {
    int n = t->ngen, m = 0;
    for (int g = 0; g < n; g++) {
        const view_train_gen_t *r = &t->gen[g];
        tmp[g] = r->selfplay_s > 0 ? r->games / r->selfplay_s * 3600 : NAN;
        if (isfinite(tmp[g])) tmp[n + m++] = tmp[g] * 1.04; /* headroom above the bars */
    }
    tmp[n + m++] = 0;
    vg_plot_t p = gen_plot(b, "Self-play speed", "games per hour", "Self-play games per hour", 320,
                           n, tmp + n, m, 0);
    double bw = fmin(28, p.w / (n + 1) * 0.7);
    for (int g = 0; g < n; g++)
        if (isfinite(tmp[g]))
            gk_sb_printf(b,
                         "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#5d8fd6'>"
                         "<title>generation %d: %.0f games/h</title></rect>\n",
                         vg_px(&p, g) - bw / 2, vg_py(&p, tmp[g]), bw,
                         vg_py(&p, p.ylo) - vg_py(&p, tmp[g]), g, tmp[g]);
    gk_sb_puts(b, "</svg>\n");
}

static void sample_href(char *buf, size_t cap, int gen, const gl_game_t *g) {
    snprintf(buf, cap, "games/gen-%03d-game-%llu.html", gen, (unsigned long long)g->index);
}

static void gen_table(gk_sb_t *b, const view_train_t *t) {
    gk_sb_puts(b, "<table class='gens'><tr><th>gen</th><th>best</th><th>games</th>"
                  "<th>games/h</th><th>positions</th><th>val loss</th><th>gate W-D-L</th>"
                  "<th>gate Elo [95%]</th><th>ladder Elo [95%]</th><th class='l'>sample "
                  "games</th></tr>\n");
    for (int g = 0; g < t->ngen; g++) {
        const view_train_gen_t *r = &t->gen[g];
        char gph[32] = "-", vb[24], va[24], wdl[80] = "-", e[3][24], l[3][24];
        if (r->selfplay_s > 0) snprintf(gph, sizeof gph, "%.0f", r->games / r->selfplay_s * 3600);
        fmt(vb, sizeof vb, r->val_before, "%.4f");
        fmt(va, sizeof va, r->val_after, "%.4f");
        if (!isnan(r->gate_elo)) snprintf(wdl, sizeof wdl, "%.0f-%.0f-%.0f", r->mw, r->md, r->ml);
        fmt(e[0], sizeof e[0], r->gate_elo, "%+.0f");
        fmt(e[1], sizeof e[1], r->gate_lo, "%+.0f");
        fmt(e[2], sizeof e[2], r->gate_hi, "%+.0f");
        fmt(l[0], sizeof l[0], r->ladder_elo, "%+.0f");
        fmt(l[1], sizeof l[1], r->ladder_lo, "%+.0f");
        fmt(l[2], sizeof l[2], r->ladder_hi, "%+.0f");
        gk_sb_printf(b,
                     "<tr%s><td>%d%s</td><td>%d</td><td>%.0f</td><td>%s</td><td>%.0f</td>"
                     "<td>%s%s%s</td><td>%s</td>",
                     r->promoted ? " class='prom'" : "", g, r->promoted && g ? " &#10003;" : "",
                     r->best_after, r->games, gph, r->positions, vb,
                     isnan(r->val_before) && isnan(r->val_after) ? "" : " &#8594; ",
                     isnan(r->val_before) && isnan(r->val_after) ? "" : va, wdl);
        if (isnan(r->gate_elo))
            gk_sb_puts(b, "<td>-</td>");
        else
            gk_sb_printf(b, "<td>%s [%s, %s]</td>", e[0], e[1], e[2]);
        if (g == 0)
            gk_sb_puts(b, "<td>0 (start)</td>");
        else if (isnan(r->ladder_elo))
            gk_sb_puts(b, "<td>-</td>");
        else
            gk_sb_printf(b, "<td>%s [%s, %s]</td>", l[0], l[1], l[2]);
        gk_sb_puts(b, "<td class='l'>");
        for (int k = 0; k < r->nsamples; k++) {
            char href[96];
            sample_href(href, sizeof href, g, &r->sample[k]);
            gk_sb_printf(b, "%s<a href='%s'>game %llu</a>", k ? ", " : "", href,
                         (unsigned long long)r->sample[k].index);
        }
        gk_sb_puts(b, "</td></tr>\n");
    }
    gk_sb_puts(b, "</table>\n");
}

/* The plots' working space for t: x[ngen] and tmp[7 ngen + 2] (the caller frees both).
 * GK_E_ARG when t has no generation. */
static int plot_space(const view_train_t *t, double **x, double **tmp, char *err, size_t errcap) {
    *x = *tmp = NULL;
    GK_RETURN_IF(t->ngen < 1 || !t->gen, err, errcap, GK_E_ARG, "no generation to show");
    *x = malloc((size_t)t->ngen * sizeof **x);
    *tmp = malloc((7 * (size_t)t->ngen + 2) * sizeof **tmp);
    if (*x && *tmp) return GK_OK;
    free(*x);
    free(*tmp);
    return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
}

int view_train_html(gk_sb_t *out, const view_train_t *t, char *err, size_t errcap) {
    double *x = NULL, *tmp = NULL;
    GK_FORWARD_IF(plot_space(t, &x, &tmp, err, errcap));
    const char *title = t->title && *t->title ? t->title : "Training run";
    double games = 0, secs = 0;
    for (int g = 0; g < t->ngen; g++)
        if (t->gen[g].selfplay_s > 0) games += t->gen[g].games, secs += t->gen[g].selfplay_s;
    gk_sb_puts(out, "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<meta "
                    "name='viewport' content='width=device-width, initial-scale=1'>\n<title>");
    gk_sb_put_xml(out, title);
    gk_sb_printf(out, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", train_css);
    gk_sb_put_xml(out, title);
    gk_sb_printf(out, "</h1><div>%d generation%s", t->ngen - 1, t->ngen == 2 ? "" : "s");
    if (secs > 0)
        gk_sb_printf(out, " \xc2\xb7 %.0f self-play games in %.0f s (%.0f games per hour)", games,
                     secs, games / secs * 3600);
    if (t->report_href) {
        gk_sb_puts(out, " \xc2\xb7 <a href='");
        gk_sb_put_xml(out, t->report_href);
        gk_sb_puts(out, "'>text report</a>");
    }
    gk_sb_puts(out, "</div>");
    if (t->settings) {
        gk_sb_puts(out, "<div class='sub'>");
        gk_sb_put_xml(out, t->settings);
        gk_sb_puts(out, "</div>");
    }
    gk_sb_puts(out, "</header>\n<div class='plots'>\n");
    ladder_plot(out, t, x, tmp);
    loss_plot(out, t, x, tmp);
    speed_plot(out, t, tmp);
    gk_sb_puts(out, "</div>\n<section><h2>Generations</h2>\n");
    gen_table(out, t);
    gk_sb_puts(out, "</section>\n<footer>gate: the tuned candidate against the best weights; "
                    "ladder: a promoted generation against generation 0; &#10003; promoted. "
                    "Made by gounki.</footer>\n</body></html>\n");
    free(x);
    free(tmp);
    GK_RETURN_IF(out->over, err, errcap, GK_E_NOMEM, "out of memory");
    return GK_OK;
}

int view_train_svg(gk_sb_t *out, const view_train_t *t, char *err, size_t errcap) {
    double *x = NULL, *tmp = NULL;
    GK_FORWARD_IF(plot_space(t, &x, &tmp, err, errcap));
    gk_sb_puts(out, "<svg xmlns='http://www.w3.org/2000/svg' width='830' height='340' "
                    "viewBox='0 0 830 340' font-family='DejaVu Sans, Verdana, sans-serif' "
                    "role='img' aria-label='");
    gk_sb_put_xml(out, t->title && *t->title ? t->title : "Training run");
    gk_sb_printf(out, "'>\n<style>\n%s</style>\n<rect width='830' height='340' fill='#fffdf8'/>\n",
                 PLOT_CSS);
    ladder_plot(out, t, x, tmp);
    gk_sb_puts(out, "<g transform='translate(420,0)'>\n");
    loss_plot(out, t, x, tmp);
    gk_sb_puts(out, "</g>\n</svg>\n");
    free(x);
    free(tmp);
    GK_RETURN_IF(out->over, err, errcap, GK_E_NOMEM, "out of memory");
    return GK_OK;
}

int view_train_write(const char *dir, const view_train_t *t, char *err, size_t errcap) {
    char path[4096], sub[4096], e[512];
    GK_RETURN_IF(gk_path_join(sub, sizeof sub, dir, "games"), err, errcap, GK_E_INVALID,
                 "%s: path too long", gk_path_shown(dir));
    GK_FORWARD_IF(gk_mkdir_p(sub, err, errcap));
    gk_sb_t b;
    gk_sb_growing(&b);
    int rc = GK_OK;
    for (int g = 0; g < t->ngen && !rc; g++)
        for (int k = 0; k < t->gen[g].nsamples && !rc; k++) {
            const gl_game_t *s = &t->gen[g].sample[k];
            char href[96], title[128];
            sample_href(href, sizeof href, g, s);
            snprintf(title, sizeof title, "Generation %d, self-play game %llu", g,
                     (unsigned long long)s->index);
            b.n = 0;
            if (gk_path_join(path, sizeof path, dir, href)) {
                rc = gk_fail(err, errcap, GK_E_INVALID, "%s: path too long", gk_path_shown(dir));
            } else if ((rc = view_gamelog_html(&b, s, title, e, sizeof e))) {
                gk_fail(err, errcap, rc, "generation %d, game %llu: %s", g,
                        (unsigned long long)s->index, e);
            } else {
                rc = view_write(path, &b, err, errcap);
            }
        }
    if (!rc) {
        b.n = 0;
        if (gk_path_join(path, sizeof path, dir, "report.html"))
            rc = gk_fail(err, errcap, GK_E_INVALID, "%s: path too long", gk_path_shown(dir));
        else if (!(rc = view_train_html(&b, t, err, errcap)))
            rc = view_write(path, &b, err, errcap);
    }
    gk_sb_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ samples */

int view_load_samples(const char *logdir, int k, gl_game_t *out, int *n, char *err, size_t errcap) {
    *n = 0;
    gl_logset_t ls;
    int rc = gl_logset_open(&ls, logdir, false, err, errcap);
    if (rc) return rc;
    gl_loc_t *loc = NULL;
    uint64_t nloc = 0;
    gl_reader_t *rd = NULL;
    if ((rc = gl_logset_locate(&ls, &loc, &nloc, err, errcap)) ||
        (rc = gl_reader_new(&rd, &ls, err, errcap))) {
        free(loc);
        gl_logset_free(&ls);
        return rc;
    }
    for (uint64_t i = 0; i < nloc && *n < k; i++) {
        if (i > 0 && loc[i].index == loc[i - 1].index) continue; /* a duplicate */
        gl_game_init(&out[*n]);
        if ((rc = gl_reader_get(rd, &loc[i], &out[*n], err, errcap))) {
            gl_game_free(&out[*n]);
            break;
        }
        (*n)++;
    }
    gl_reader_free(rd);
    free(loc);
    gl_logset_free(&ls);
    if (rc) {
        for (int i = 0; i < *n; i++) gl_game_free(&out[i]);
        *n = 0;
        return rc;
    }
    return GK_OK;
}
