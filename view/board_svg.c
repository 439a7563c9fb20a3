/* view/board_svg.c -- SVG boards of Gounki and Gobs positions and their move marks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/status.h"
#include "../games/gobs.h"
#include "../games/gounki.h"
#include "view_int.h"

/* ------------------------------------------------------------------ geometry */

void vg_geom_init(vg_geom_t *g, int game, bool exits, const view_board_opts_t *o) {
    memset(g, 0, sizeof *g);
    g->game = game;
    g->n = game == GK_GAME_GOBS ? GOBS_SIZE : 8;
    g->cell = o && o->cell > 0 ? o->cell : game == GK_GAME_GOBS ? 52 : 56;
    double pad = 12, title = o && o->no_title ? 0 : 30, caption = o && o->no_caption ? 0 : 26;
    /* Room beyond the far edges for the arrow of a Gounki piece that leaves the board. */
    double beyond = exits ? 0.8 * g->cell : 24;
    g->x0 = pad + 22;
    g->y0 = pad + title + beyond;
    g->width = g->x0 + g->n * g->cell + pad + 10;
    g->height = g->y0 + g->n * g->cell + beyond + caption + pad;
    if (title > 0) g->title_y = pad + 18;
    if (caption > 0) g->caption_y = g->height - pad - 6;
}

void vg_game_name(const gk_pos_t *p, char *buf, size_t cap) {
    const gk_game_t *gm = gk_game_of(p);
    if (p->game == GK_GAME_GOBS)
        snprintf(buf, cap, "Gobs (%s rules)", gm->variants[p->variant]);
    else if (p->variant)
        snprintf(buf, cap, "Gounki (%s)", gm->variants[p->variant]);
    else
        snprintf(buf, cap, "Gounki");
}

/* ------------------------------------------------------------------ style */

static const char css[] = ".bg{fill:#fbf9f4}"
                          ".lt{fill:#efe0c2}.dk{fill:#c8a677}"
                          ".glt{fill:#e5eadb}.gdk{fill:#c2ceae}"
                          ".frame{fill:none;stroke:#6b5438;stroke-width:2}"
                          ".co{font-size:12px;fill:#7a6650;text-anchor:middle}"
                          ".ttl{font-size:17px;font-weight:bold;fill:#2b2118}"
                          ".cap{font-size:13px;fill:#4a3e33}"
                          ".w{fill:#fcfaf3;stroke:#3b352e;stroke-width:1.6}"
                          ".b{fill:#2f3137;stroke:#0b0b0d;stroke-width:1.6}"
                          ".plate{fill:#000;fill-opacity:.13;stroke:none}"
                          ".hf{fill:#f5d23c;fill-opacity:.42}.ht{fill:#f5d23c;fill-opacity:.72}"
                          ".hd{fill:#f5d23c;fill-opacity:.6}"
                          ".arrow{fill:none;stroke:#de5f0b;stroke-opacity:.82;stroke-linecap:round;"
                          "stroke-linejoin:round}"
                          ".out{font-size:13px;font-weight:bold;fill:#de5f0b}"
                          ".flip{fill:none;stroke:#de5f0b;stroke-width:3}"
                          ".place{fill:none;stroke:#2e7d32;stroke-width:2.5;stroke-dasharray:5 3}"
                          ".jump{fill:none;stroke:#de5f0b;stroke-width:2.5;stroke-dasharray:4 3}"
                          ".bd{fill:#1f5fbf;stroke:#fff;stroke-width:1.3}"
                          ".bx{fill:#c62828;stroke:#fff;stroke-width:1.3}"
                          ".bt{font-size:10px;font-weight:bold;fill:#fff;text-anchor:middle}"
                          ".xx{stroke:#fff;stroke-width:2;stroke-linecap:round}";

void vg_svg_open(gk_sb_t *b, const vg_geom_t *g, const char *label) {
    gk_sb_printf(b,
                 "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
                 "viewBox='0 0 %.0f %.0f' font-family='DejaVu Sans, Verdana, sans-serif' "
                 "data-n='%d' data-cell='%g' data-x0='%g' data-y0='%g'>\n",
                 g->width, g->height, g->width, g->height, g->n, g->cell, g->x0, g->y0);
    gk_sb_puts(b, "<title>");
    gk_sb_put_xml(b, label);
    gk_sb_printf(b, "</title>\n<style>%s</style>\n", css);
    /* The arrowhead and the badges, referenced by the marks (and by the page's script). */
    double r = 0.14 * g->cell;
    gk_sb_printf(b,
                 "<defs><marker id='gv-ah' viewBox='0 0 10 10' refX='7' refY='5' "
                 "markerWidth='3.2' markerHeight='3.2' orient='auto'><path d='M0,0 L10,5 L0,10 "
                 "z' fill='#de5f0b'/></marker>\n"
                 "<g id='gv-dr'><circle class='bd' r='%.1f'/></g>\n"
                 "<g id='gv-ds'><rect class='bd' x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                 "rx='1.5'/></g>\n"
                 "<g id='gv-cx'><circle class='bx' r='%.1f'/><path class='xx' d='M%.1f,%.1f "
                 "L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f'/></g></defs>\n",
                 r, -r * 0.92, -r * 0.92, 1.84 * r, 1.84 * r, r, -r / 2.4, -r / 2.4, r / 2.4,
                 r / 2.4, -r / 2.4, r / 2.4, r / 2.4, -r / 2.4);
    gk_sb_printf(b, "<rect class='bg' width='%.0f' height='%.0f'/>\n", g->width, g->height);
}

void vg_board(gk_sb_t *b, const vg_geom_t *g) {
    const char *lt = g->game == GK_GAME_GOBS ? "glt" : "lt";
    const char *dk = g->game == GK_GAME_GOBS ? "gdk" : "dk";
    double c = g->cell, side = g->n * c;
    gk_sb_printf(b, "<g class='sq'><rect class='%s' x='%g' y='%g' width='%g' height='%g'/>\n", lt,
                 g->x0, g->y0, side, side);
    for (int rank = 0; rank < g->n; rank++)
        for (int file = 0; file < g->n; file++)
            if ((rank + file) % 2 == 0) /* a1 is dark, as on a chess board */
                gk_sb_printf(b, "<rect class='%s' x='%g' y='%g' width='%g' height='%g'/>\n", dk,
                             g->x0 + file * c, g->y0 + (g->n - 1 - rank) * c, c, c);
    gk_sb_printf(b,
                 "</g>\n<rect class='frame' x='%g' y='%g' width='%g' height='%g'/>\n<g "
                 "class='co'>",
                 g->x0, g->y0, side, side);
    for (int file = 0; file < g->n; file++)
        gk_sb_printf(b, "<text x='%.1f' y='%.1f'>%c</text>", vg_cx(g, file), g->y0 + side + 15,
                     'a' + file);
    for (int rank = 0; rank < g->n; rank++)
        gk_sb_printf(b, "<text x='%.1f' y='%.1f'>%d</text>", g->x0 - 12, vg_cy(g, rank) + 4,
                     rank + 1);
    gk_sb_puts(b, "</g>\n");
}

/* ------------------------------------------------------------------ pieces */

/* One simple piece of a stack: a circle (round) or a rounded square, centred (x, y). */
static void simple_piece(gk_sb_t *b, const char *col, bool square, double x, double y, double d) {
    if (square)
        gk_sb_printf(b,
                     "<rect class='s %s' x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                     "rx='%.1f'/>",
                     col, x - d / 2, y - d / 2, d, d, d * 0.1);
    else
        gk_sb_printf(b, "<circle class='r %s' cx='%.1f' cy='%.1f' r='%.1f'/>", col, x, y, d / 2);
}

void vg_stack(gk_sb_t *b, double cell, int owner, int rounds, int squares) {
    const char *col = owner == GK_BLACK ? "b" : "w";
    int n = rounds + squares;
    /* Centres and sizes (in cells) of 1, 2 or 3 shapes: one large piece; two side by side;
     * three in a triangle.  Rounds come first, as the notation writes them (RRS). */
    static const double pos[4][3][2] = {
        {{0}},
        {{0, 0}},
        {{-0.215, 0}, {0.215, 0}},
        {{0, -0.19}, {-0.21, 0.165}, {0.21, 0.165}},
    };
    static const double size[4] = {0, 0.6, 0.38, 0.33};
    if (n < 1 || n > 3) return;
    if (n > 1) /* a shadow plate that holds the pieces of a stack together */
        gk_sb_printf(b,
                     "<rect class='plate' x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                     "rx='%.1f'/>",
                     -0.44 * cell, -0.42 * cell, 0.88 * cell, 0.84 * cell, 0.16 * cell);
    for (int i = 0; i < n; i++)
        simple_piece(b, col, i >= rounds, pos[n][i][0] * cell, pos[n][i][1] * cell, size[n] * cell);
}

void vg_disc(gk_sb_t *b, double cell, int side) {
    /* The face that is up over a rim of the other face: a reversible disc seen slightly
     * from the side. */
    const char *up = side == GK_BLACK ? "b" : "w", *down = side == GK_BLACK ? "w" : "b";
    double r = 0.36 * cell;
    gk_sb_printf(b,
                 "<circle class='rim %s' cy='%.1f' r='%.1f'/><circle class='face %s' cy='%.1f' "
                 "r='%.1f'/>",
                 down, 0.05 * cell, r, up, -0.025 * cell, r);
}

void vg_piece_defs(gk_sb_t *b, const vg_geom_t *g) {
    gk_sb_puts(b, "<defs>");
    for (int owner = 0; owner < 2; owner++) {
        if (g->game == GK_GAME_GOBS) {
            gk_sb_printf(b, "<g id='gb-%c'>", owner ? 'b' : 'w');
            vg_disc(b, g->cell, owner);
            gk_sb_puts(b, "</g>\n");
            continue;
        }
        for (int r = 0; r <= 3; r++)
            for (int s = 0; r + s <= 3; s++) {
                if (r + s == 0) continue;
                gk_sb_printf(b, "<g id='gk-%c%d%d'>", owner ? 'b' : 'w', r, s);
                vg_stack(b, g->cell, owner, r, s);
                gk_sb_puts(b, "</g>\n");
            }
    }
    gk_sb_puts(b, "</defs>\n");
}

/* ------------------------------------------------------------------ marks */

static void add_mark(view_marks_t *m, int kind, int sq, int n, int square) {
    if (m->nmarks >= VIEW_MAX_MARKS) return;
    m->mark[m->nmarks++] = (view_mark_t){(uint8_t)kind, (uint8_t)sq, (uint8_t)n, (uint8_t)square};
}

static void add_pt(view_marks_t *m, double file, double rank) {
    if (m->npts >= VIEW_MAX_POINTS) return;
    m->pt[2 * m->npts] = (float)file;
    m->pt[2 * m->npts + 1] = (float)rank;
    m->npts++;
}

/* How far beyond the far edge an exit's arrow reaches (board units from the last rank's
 * centre). */
#define EXIT_REACH 1.12

static void gounki_marks(const gk_pos_t *p, gk_action_t a, view_marks_t *m) {
    int from = gounki_act_from(a), ff = gounki_file(from), fr = gounki_rank(from);
    int dir = p->stm == GK_WHITE ? 1 : -1;
    double far = p->stm == GK_WHITE ? 7 + EXIT_REACH : -EXIT_REACH;
    add_mark(m, VIEW_MK_FROM, from, 0, 0);
    add_pt(m, ff, fr);
    if (!gounki_act_is_deploy(a)) {
        if (gounki_act_exits(a)) {
            add_pt(m, ff, far);
            m->exit = true;
            return;
        }
        int to = gounki_act_to(a), tf = gounki_file(to), tr = gounki_rank(to);
        int steps = tr > fr ? tr - fr : fr - tr, df = tf - ff;
        /* A diagonal that rebounded off a side edge (docs/RULES.md, rule 4) turns on the
         * edge file: going right it ends on 14 - ff - steps, going left on steps - ff.  A
         * straight forward step of the same length is a square's (a stack cannot have
         * two rounds and two squares). */
        bool straight = df == 0 && gounki_squares(p, from) >= steps;
        if (steps > 0 && !straight && (df < 0 ? -df : df) != steps) {
            if (tf == 14 - ff - steps && 7 - ff < steps)
                add_pt(m, 7, fr + dir * (7 - ff));
            else if (tf == steps - ff && ff < steps)
                add_pt(m, 0, fr + dir * ff);
        }
        add_pt(m, tf, tr);
        add_mark(m, VIEW_MK_TO, to, 0, 0);
        if (gounki_act_captures(a)) add_mark(m, VIEW_MK_CAPTURE, to, 0, 0);
        return;
    }
    int nd = gounki_act_ndrops(a), last = from;
    for (int i = 0; i < nd; i++) {
        int d = gounki_act_drop(a, i);
        add_pt(m, gounki_file(d), gounki_rank(d));
        add_mark(m, VIEW_MK_DROP, d, i + 1, gounki_act_drop_is_square(a, i));
        last = d;
    }
    if (gounki_act_exits(a)) {
        add_pt(m, gounki_file(last), far);
        m->exit = true;
    }
}

/* The one piece between from and to on their line (a Gobs leg jumps exactly one). */
static int gobs_jumped(const gk_pos_t *p, int from, int to) {
    int fx = from % 9, fy = from / 9, tx = to % 9, ty = to / 9;
    int dx = (tx > fx) - (tx < fx), dy = (ty > fy) - (ty < fy);
    for (int x = fx + dx, y = fy + dy; x != tx || y != ty; x += dx, y += dy)
        if (p->b.cell[9 * y + x] != GOBS_EMPTY) return 9 * y + x;
    return -1;
}

static void gobs_marks(const gk_pos_t *before, const gk_action_t *seq, int n, view_marks_t *m) {
    gk_pos_t q = *before;
    int last = -1;
    for (int i = 0; i < n; i++) {
        gk_action_t a = seq[i];
        int kind = gobs_act_kind(a), from = gobs_act_from(a), to = gobs_act_to(a);
        if (kind == GOBS_ACT_STOP) break;
        if (m->npts == 0) {
            add_mark(m, VIEW_MK_FROM, from, 0, 0);
            add_pt(m, from % 9, from / 9);
        }
        if (kind == GOBS_ACT_LEG) {
            int over = gobs_jumped(&q, from, to);
            if (over >= 0) add_mark(m, VIEW_MK_FLIP, over, 0, 0);
        } else if (kind == GOBS_ACT_ELIM) {
            add_mark(m, VIEW_MK_CAPTURE, to, 0, 0);
            if (before->variant == GOBS_VAR_SHORT)
                add_mark(m, VIEW_MK_PLACE, gobs_act_place(a), 0, 0);
        }
        add_pt(m, to % 9, to / 9);
        last = to;
        gk_play(&q, a);
        if (kind != GOBS_ACT_LEG) break;
    }
    if (last >= 0) add_mark(m, VIEW_MK_TO, last, 0, 0);
}

void view_marks_of(const gk_pos_t *before, const gk_action_t *seq, int n, view_marks_t *m) {
    memset(m, 0, sizeof *m);
    if (n <= 0) return;
    if (before->game == GK_GAME_GOBS)
        gobs_marks(before, seq, n, m);
    else
        gounki_marks(before, seq[0], m);
}

static void square_rect(gk_sb_t *b, const vg_geom_t *g, int sq, const char *cls) {
    gk_sb_printf(b, "<rect class='%s' x='%g' y='%g' width='%g' height='%g'/>", cls,
                 g->x0 + vg_file(g, sq) * g->cell, g->y0 + (g->n - 1 - vg_rank(g, sq)) * g->cell,
                 g->cell, g->cell);
}

void vg_marks_under(gk_sb_t *b, const vg_geom_t *g, const view_marks_t *m) {
    bool tinted[128] = {0};
    for (int i = 0; i < m->nmarks; i++) {
        const view_mark_t *k = &m->mark[i];
        const char *cls = k->kind == VIEW_MK_FROM   ? "hf"
                          : k->kind == VIEW_MK_TO   ? "ht"
                          : k->kind == VIEW_MK_DROP ? "hd"
                                                    : NULL;
        if (!cls || (k->kind == VIEW_MK_DROP && tinted[k->sq])) continue;
        if (k->kind == VIEW_MK_DROP) tinted[k->sq] = true;
        square_rect(b, g, k->sq, cls);
    }
}

void vg_marks_over(gk_sb_t *b, const vg_geom_t *g, const view_marks_t *m) {
    double c = g->cell;
    if (m->npts >= 2) {
        /* The arrow stops short of the destination's centre, so that its head points at
         * the piece without hiding it. */
        double x[VIEW_MAX_POINTS], y[VIEW_MAX_POINTS];
        for (int i = 0; i < m->npts; i++) {
            x[i] = vg_cx(g, m->pt[2 * i]);
            y[i] = vg_cy(g, m->pt[2 * i + 1]);
        }
        int e = m->npts - 1;
        double dx = x[e] - x[e - 1], dy = y[e] - y[e - 1], len = sqrt(dx * dx + dy * dy);
        double cut = m->exit ? 0 : 0.34 * c;
        if (len > 2 * cut && len > 0) x[e] -= dx / len * cut, y[e] -= dy / len * cut;
        gk_sb_printf(b,
                     "<polyline class='arrow' stroke-width='%.1f' marker-end='url(#gv-ah)' "
                     "points='",
                     0.12 * c);
        for (int i = 0; i < m->npts; i++) gk_sb_printf(b, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
        gk_sb_puts(b, "'/>");
        if (m->exit)
            gk_sb_printf(b, "<text class='out' x='%.1f' y='%.1f'>Out</text>", x[e] + 0.16 * c,
                         y[e] + (y[e] < g->y0 ? 0.25 : -0.02) * c);
    }
    for (int i = 0; i < m->nmarks; i++) {
        const view_mark_t *k = &m->mark[i];
        double cx = vg_cx(g, vg_file(g, k->sq)), cy = vg_cy(g, vg_rank(g, k->sq));
        switch (k->kind) {
        case VIEW_MK_DROP: {
            /* A badge in the square's top-left corner; a second drop on the same square
             * (a3*b4,a4,b4+) puts its badge beside the first. */
            int slot = 0;
            for (int j = 0; j < i; j++)
                slot += m->mark[j].kind == VIEW_MK_DROP && m->mark[j].sq == k->sq;
            double bx = cx - 0.33 * c + slot * 0.3 * c, by = cy - 0.33 * c;
            gk_sb_printf(b,
                         "<use href='#gv-d%c' x='%.1f' y='%.1f'/><text class='bt' x='%.1f' "
                         "y='%.1f'>%d</text>",
                         k->square ? 's' : 'r', bx, by, bx, by + 3.6, k->n);
            break;
        }
        case VIEW_MK_CAPTURE:
            gk_sb_printf(b, "<use href='#gv-cx' x='%.1f' y='%.1f'/>", cx + 0.33 * c, cy - 0.33 * c);
            break;
        case VIEW_MK_FLIP:
            gk_sb_printf(b, "<circle class='flip' cx='%.1f' cy='%.1f' r='%.1f'/>", cx, cy,
                         0.44 * c);
            break;
        case VIEW_MK_PLACE:
            gk_sb_printf(b, "<circle class='place' cx='%.1f' cy='%.1f' r='%.1f'/>", cx, cy,
                         0.44 * c);
            break;
        default: break;
        }
    }
}

/* ------------------------------------------------------------------ the board */

static const char *side_name(int side) {
    return side == GK_WHITE ? "White" : "Black";
}

static void winner_text(const gk_pos_t *p, char *buf, size_t cap) {
    const char *who = p->result == GK_WIN_WHITE   ? "White wins"
                      : p->result == GK_WIN_BLACK ? "Black wins"
                                                  : "draw";
    snprintf(buf, cap, "%s %s by %s", gk_result_text((gk_result_t)p->result), who,
             gk_reason_text((gk_reason_t)p->reason));
}

int view_board_svg(gk_sb_t *out, const gk_pos_t *p, const view_marks_t *m,
                   const view_board_opts_t *o) {
    vg_geom_t g;
    vg_geom_init(&g, p->game, m && m->exit, o);
    char name[64], title[160];
    vg_game_name(p, name, sizeof name);
    if (gk_over(p))
        snprintf(title, sizeof title, "%s, after turn %u, game over", name, (unsigned)p->turn);
    else
        snprintf(title, sizeof title, "%s, turn %u, %s to move%s", name, (unsigned)p->turn + 1,
                 side_name(p->stm), p->in_turn ? " (continuing its turn)" : "");
    vg_svg_open(out, &g, title);
    if (g.title_y > 0) {
        gk_sb_printf(out, "<text class='ttl' x='%g' y='%g'>", g.x0 - 22, g.title_y);
        gk_sb_put_xml(out, title);
        gk_sb_puts(out, "</text>\n");
    }
    vg_board(out, &g);
    gk_sb_puts(out, "<g class='hl'>");
    if (m) vg_marks_under(out, &g, m);
    gk_sb_puts(out, "</g>\n<g class='pieces'>\n");
    int count[2] = {0, 0}, stacks[2] = {0, 0};
    for (int sq = 0; sq < g.n * g.n; sq++) {
        int owner, r = 0, s = 0;
        if (p->game == GK_GAME_GOBS) {
            if (p->b.cell[sq] == GOBS_EMPTY) continue;
            owner = p->b.cell[sq] == GOBS_BLACK ? GK_BLACK : GK_WHITE;
            count[owner]++;
        } else {
            int v = gounki_cell(p, sq);
            owner = gounki_cell_owner(v);
            if (owner < 0) continue;
            r = gounki_cell_rounds(v);
            s = gounki_cell_squares(v);
            count[owner] += r + s;
        }
        stacks[owner]++;
        gk_sb_printf(out, "<g class='stack' transform='translate(%.1f,%.1f)'>",
                     vg_cx(&g, vg_file(&g, sq)), vg_cy(&g, vg_rank(&g, sq)));
        if (p->game == GK_GAME_GOBS)
            vg_disc(out, g.cell, owner);
        else
            vg_stack(out, g.cell, owner, r, s);
        gk_sb_puts(out, "</g>\n");
    }
    gk_sb_puts(out, "</g>\n<g class='marks'>");
    if (m) vg_marks_over(out, &g, m);
    if (p->game == GK_GAME_GOBS && p->in_turn > 0) { /* the piece in the middle of a chain */
        int sq = p->aux[GOBS_AUX_JUMPER];
        gk_sb_printf(out, "<circle class='jump' cx='%.1f' cy='%.1f' r='%.1f'/>",
                     vg_cx(&g, vg_file(&g, sq)), vg_cy(&g, vg_rank(&g, sq)), 0.45 * g.cell);
    }
    gk_sb_puts(out, "</g>\n");
    if (g.caption_y > 0) {
        char cap[256], end[96] = "";
        if (gk_over(p)) {
            winner_text(p, end, sizeof end);
        } else if (p->game == GK_GAME_GOBS && p->in_turn == 0 &&
                   gobs_count(p, p->stm) == GOBS_LIMIT) {
            snprintf(end, sizeof end, "%s is GOBSed", side_name(p->stm));
        }
        if (p->game == GK_GAME_GOBS)
            snprintf(cap, sizeof cap, "White %d pieces, Black %d%s%s", count[0], count[1],
                     *end ? "  \xc2\xb7  " : "", end);
        else
            snprintf(cap, sizeof cap, "White %d pieces in %d stacks, Black %d in %d%s%s", count[0],
                     stacks[0], count[1], stacks[1], *end ? "  \xc2\xb7  " : "", end);
        gk_sb_printf(out, "<text class='cap' x='%g' y='%g'>", g.x0 - 22, g.caption_y);
        gk_sb_put_xml(out, cap);
        gk_sb_puts(out, "</text>\n");
    }
    gk_sb_puts(out, "</svg>\n");
    return out->over ? GK_E_NOMEM : GK_OK;
}
