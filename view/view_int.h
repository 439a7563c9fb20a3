/*
 * view/view_int.h -- private to view/: board geometry, the drawing pieces shared by the
 * SVG boards and the game pages, and a small SVG plotter.
 *
 * The game page redraws its board in JavaScript with the same geometry, the same CSS
 * classes and the same <defs> symbols as the C renderer (game_html.c mirrors
 * vg_marks_under() and vg_marks_over() below), so a board looks the same in a page as in
 * `gounki show --svg`.
 */
#ifndef GK_VIEW_INT_H
#define GK_VIEW_INT_H

#include "view.h"

/* Board geometry in pixels: square (file, rank) has its centre at (cx(file), cy(rank)),
 * rank 0 at the bottom (White's side). */
typedef struct vg_geom {
    int game, n;   /* GK_GAME_*, squares per side */
    double cell;   /* pixels per square */
    double x0, y0; /* top-left corner of the board */
    double width, height;
    double title_y, caption_y; /* baselines; 0 when left out */
} vg_geom_t;

/* exits: leave room beyond the far edges for the arrow of a piece leaving the board. */
void vg_geom_init(vg_geom_t *g, int game, bool exits, const view_board_opts_t *o);
static inline double vg_cx(const vg_geom_t *g, double file) {
    return g->x0 + (file + 0.5) * g->cell;
}
static inline double vg_cy(const vg_geom_t *g, double rank) {
    return g->y0 + (g->n - 0.5 - rank) * g->cell;
}
static inline int vg_file(const vg_geom_t *g, int sq) {
    return sq % g->n;
}
static inline int vg_rank(const vg_geom_t *g, int sq) {
    return sq / g->n;
}

/* The opening <svg ...> tag with the geometry as data- attributes (for the page's
 * script), the CSS and the arrowhead; then the background, board and coordinates. */
void vg_svg_open(gk_sb_t *b, const vg_geom_t *g, const char *label);
void vg_board(gk_sb_t *b, const vg_geom_t *g);
/* <defs> of every piece drawing (#gk-wRS, #gk-bRS for r rounds and s squares; #gb-w,
 * #gb-b) and of the mark badges, for <use> in the page. */
void vg_piece_defs(gk_sb_t *b, const vg_geom_t *g);
/* The shapes of one Gounki stack / Gobs disc, centred on (0, 0). */
void vg_stack(gk_sb_t *b, double cell, int owner, int rounds, int squares);
void vg_disc(gk_sb_t *b, double cell, int side);
/* The marks drawn under the pieces (tinted squares) and over them (arrow, badges). */
void vg_marks_under(gk_sb_t *b, const vg_geom_t *g, const view_marks_t *m);
void vg_marks_over(gk_sb_t *b, const vg_geom_t *g, const view_marks_t *m);

/* Game and rule-set name for titles: "Gounki", "Gobs (standard rules)", ... */
void vg_game_name(const gk_pos_t *p, char *buf, size_t cap);

/* ---- plots ---- */

typedef struct vg_plot {
    double x0, y0, w, h;       /* plot area, pixels */
    double xlo, xhi, ylo, yhi; /* data ranges */
    double xtick, ytick;       /* tick steps (0: none on that axis) */
    const char *title, *xlabel, *ylabel;
} vg_plot_t;

/* An interval bar at x from lo to hi (y values) with end caps; an infinite end reaches
 * the frame's edge with an arrow and "+inf"/"-inf" (class 'inf'). */
void vg_plot_bar(gk_sb_t *b, const vg_plot_t *p, double x, double lo, double hi, const char *colour,
                 const char *dash);
static inline double vg_px(const vg_plot_t *p, double x) {
    return p->x0 + p->w * (x - p->xlo) / (p->xhi - p->xlo);
}
static inline double vg_py(const vg_plot_t *p, double y) {
    return p->y0 + p->h - p->h * (y - p->ylo) / (p->yhi - p->ylo);
}
/* Frame, grid, tick labels, axis labels and title. */
void vg_plot_frame(gk_sb_t *b, const vg_plot_t *p);
/* A polyline through the finite points with the given attributes: broken at every NaN,
 * or, with join, joining the points on either side of it. */
void vg_plot_line(gk_sb_t *b, const vg_plot_t *p, const double *x, const double *y, int n,
                  bool join, const char *attrs);

#endif
