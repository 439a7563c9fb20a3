/* view/plot.c -- a small SVG plotter: axes, grid, polylines, interval bars (see view_int.h). */
#include <math.h>
#include <stdio.h>

#include "view_int.h"

void view_nice_range(const double *v, int n, int ticks, double min_span, double *lo, double *hi,
                     double *tick) {
    *lo = INFINITY;
    *hi = -INFINITY;
    int pinf = 0, ninf = 0;
    for (int i = 0; i < n; i++) {
        pinf |= v[i] == INFINITY, ninf |= v[i] == -INFINITY;
        if (isfinite(v[i])) {
            if (v[i] < *lo) *lo = v[i];
            if (v[i] > *hi) *hi = v[i];
        }
    }
    if (!isfinite(*lo)) *lo = 0, *hi = 1;
    if (*hi - *lo < min_span) {
        double c = (*lo + *hi) / 2;
        *lo = c - min_span / 2, *hi = c + min_span / 2;
    }
    if (*hi - *lo < 1e-9) {
        double d = fabs(*lo) > 1e-9 ? fabs(*lo) * 0.1 : 0.5;
        *lo -= d, *hi += d;
    }
    double span = *hi - *lo;
    if (pinf) *hi += 0.2 * span;
    if (ninf) *lo -= 0.2 * span;
    if (ticks < 1) ticks = 1;
    double raw = (*hi - *lo) / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    *tick = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
    *lo = floor(*lo / *tick + 1e-9) * *tick;
    *hi = ceil(*hi / *tick - 1e-9) * *tick;
    if (*hi <= *lo) *hi = *lo + *tick;
}

/* A tick label: plain digits (12000 as 12k), never an exponent. */
static void tick_text(char *buf, size_t cap, double v) {
    if (fabs(v) < 1e-12) v = 0;
    if (fabs(v) >= 10000)
        snprintf(buf, cap, "%gk", v / 1000);
    else
        snprintf(buf, cap, "%.4g", v);
}

void vg_plot_frame(gk_sb_t *b, const vg_plot_t *p) {
    char t[32];
    if (p->ytick > 0)
        for (int i = 0;; i++) { /* counted, not summed: no -5.551e-17 near 0 */
            double v = p->ylo + i * p->ytick;
            if (v > p->yhi + 0.5 * p->ytick) break;
            if (fabs(v) < 1e-6 * p->ytick) v = 0;
            double y = vg_py(p, v);
            tick_text(t, sizeof t, v);
            gk_sb_printf(b,
                         "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e6dccb'/>"
                         "<text class='gt' x='%.1f' y='%.1f'>%s</text>\n",
                         p->x0, y, p->x0 + p->w, y, p->x0 - 6, y + 4, t);
        }
    if (p->xtick > 0) {
        double first = ceil(p->xlo / p->xtick - 1e-9) * p->xtick;
        for (double v = first; v <= p->xhi + 1e-9; v += p->xtick) {
            tick_text(t, sizeof t, v);
            gk_sb_printf(b, "<text class='gx' x='%.1f' y='%.1f'>%s</text>", vg_px(p, v),
                         p->y0 + p->h + 15, t);
        }
        gk_sb_puts(b, "\n");
    }
    gk_sb_printf(b,
                 "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' "
                 "stroke='#a8977f'/>\n",
                 p->x0, p->y0, p->w, p->h);
    if (p->title) {
        gk_sb_printf(b,
                     "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='14' "
                     "font-weight='bold' fill='#3b2f24'>",
                     p->x0 + p->w / 2, p->y0 - 10);
        gk_sb_put_xml(b, p->title);
        gk_sb_puts(b, "</text>\n");
    }
    if (p->xlabel) {
        gk_sb_printf(b,
                     "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12' "
                     "fill='#5b4a38'>",
                     p->x0 + p->w / 2, p->y0 + p->h + 31);
        gk_sb_put_xml(b, p->xlabel);
        gk_sb_puts(b, "</text>\n");
    }
    if (p->ylabel) {
        double x = p->x0 - 42, y = p->y0 + p->h / 2;
        gk_sb_printf(b,
                     "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='12' "
                     "fill='#5b4a38' transform='rotate(-90 %.1f %.1f)'>",
                     x, y, x, y);
        gk_sb_put_xml(b, p->ylabel);
        gk_sb_puts(b, "</text>\n");
    }
}

void vg_plot_bar(gk_sb_t *b, const vg_plot_t *p, double x, double lo, double hi, const char *colour,
                 const char *dash) {
    double px = vg_px(p, x);
    double ylo = vg_py(p, isfinite(lo) ? lo : p->ylo), yhi = vg_py(p, isfinite(hi) ? hi : p->yhi);
    gk_sb_printf(b,
                 "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='1.4' "
                 "stroke-dasharray='%s'/>\n",
                 px, ylo, px, yhi, colour, dash);
    for (int k = 0; k < 2; k++) {
        double v = k ? hi : lo, y = k ? yhi : ylo;
        if (isnan(v)) continue;
        if (isfinite(v)) {
            gk_sb_printf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s'/>\n", px - 4,
                         y, px + 4, y, colour);
            continue;
        }
        double in = v > 0 ? 1 : -1; /* the tip on the edge, the base inside */
        const char *sign = v > 0 ? "+" : "-";
        gk_sb_printf(b,
                     "<polygon class='inf' points='%.1f,%.1f %.1f,%.1f %.1f,%.1f' fill='%s'>"
                     "<title>%sinf: no bound</title></polygon><text class='lg' x='%.1f' "
                     "y='%.1f' fill='%s'>%sinf</text>\n",
                     px, y, px - 5, y + 8 * in, px + 5, y + 8 * in, colour, sign, px + 7,
                     y + (in > 0 ? 11 : -4), colour, sign);
    }
}

void vg_plot_line(gk_sb_t *b, const vg_plot_t *p, const double *x, const double *y, int n,
                  bool join, const char *attrs) {
    for (int i = 0; i < n;) {
        while (i < n && !(isfinite(x[i]) && isfinite(y[i]))) i++;
        if (i >= n) break;
        int j = i, k = 0;
        gk_sb_printf(b, "<polyline %s points='", attrs);
        for (; j < n; j++) {
            if (!(isfinite(x[j]) && isfinite(y[j]))) {
                if (join) continue;
                break;
            }
            gk_sb_printf(b, "%s%.1f,%.1f", k++ ? " " : "", vg_px(p, x[j]), vg_py(p, y[j]));
        }
        gk_sb_puts(b, "'/>\n");
        i = j;
    }
}
