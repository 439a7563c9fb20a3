/*
 * tests/test_view.c -- the renderers of view/view.h: well-formed SVG with one shape per
 * piece and the marks of known moves, escaping, game pages from records and self-play
 * logs, the training page and its sample games.
 *
 * With arguments it writes pages instead of testing (for tests/test_view_browser.sh and
 * scripts/docs_images.sh):
 *   test_view --write DIR          DIR/log-gounki.html, DIR/log-gobs.html (self-play games
 *                                  with search statistics) and DIR/train/ (a training page
 *                                  of made-up numbers with those games as samples)
 *   test_view --sizes DIR          pages of long games, to measure their sizes
 *   test_view --train RUN OUT [SETTINGS]   the training page of a `gounki train` run
 *                                  directory (SETTINGS: the line under the title)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/status.h"
#include "data/gamelog.h"
#include "games/game.h"
#include "games/gobs.h"
#include "games/gounki.h"
#include "selfplay/selfplay.h"
#include "selfplay/train.h"
#include "view/view.h"
#include "check.h"

/* ------------------------------------------------------------------ helpers */

static int count(const char *text, const char *needle) {
    int n = 0;
    size_t k = strlen(needle);
    for (const char *p = strstr(text, needle); p; p = strstr(p + k, needle)) n++;
    return n;
}

/* A strict little XML well-formedness check: balanced and properly nested tags, quoted
 * attributes without '<', known entities, nothing after the root.  Returns NULL or what
 * is wrong. */
static const char *xml_check(const char *s, size_t len) {
    static char why[160];
    const char *stack[256];
    size_t slen[256];
    int depth = 0, roots = 0;
    const char *p = s, *end = s + len;
    while (p < end) {
        if (*p == '&') {
            const char *e = memchr(p, ';', (size_t)(end - p));
            if (!e || e - p > 10) return "a bare '&'";
            if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
                strncmp(p, "&quot;", 6) && strncmp(p, "&#", 2))
                return "an unknown entity";
            p = e + 1;
            continue;
        }
        if (*p == '>') return "a bare '>' in text";
        if (*p != '<') {
            if (depth == 0 && *p != '\n' && *p != ' ') return "text outside the root";
            p++;
            continue;
        }
        if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p, "-->");
            if (!e) return "an unclosed comment";
            p = e + 3;
            continue;
        }
        if (p[1] == '/') {
            const char *n = p + 2, *e = n;
            while (e < end && *e != '>') e++;
            if (e >= end) return "an unclosed end tag";
            if (!depth) return "an end tag without a start";
            depth--;
            if ((size_t)(e - n) != slen[depth] || strncmp(n, stack[depth], slen[depth])) {
                snprintf(why, sizeof why, "</%.*s> closes <%.*s>", (int)(e - n), n,
                         (int)slen[depth], stack[depth]);
                return why;
            }
            p = e + 1;
            continue;
        }
        const char *n = p + 1, *e = n;
        while (e < end && (*e == '-' || *e == ':' || (*e >= 'a' && *e <= 'z') ||
                           (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')))
            e++;
        if (e == n) return "a '<' that starts no tag";
        const char *q = e;
        for (;;) {
            while (q < end && (*q == ' ' || *q == '\n')) q++;
            if (q >= end) return "an unclosed start tag";
            if (*q == '>' || (*q == '/' && q + 1 < end && q[1] == '>')) break;
            const char *a = q;
            while (q < end && *q != '=' && *q != ' ' && *q != '>') q++;
            if (q == a || q >= end || *q != '=') return "an attribute without a value";
            q++;
            char quote = *q;
            if (quote != '\'' && quote != '"') return "an unquoted attribute";
            const char *v = ++q;
            while (q < end && *q != quote) {
                if (*q == '<') return "'<' in an attribute";
                q++;
            }
            if (q >= end) return "an unclosed attribute";
            (void)v;
            q++;
        }
        if (depth == 0 && roots++) return "two roots";
        if (*q == '>') {
            if (depth >= 256) return "too deep";
            stack[depth] = n;
            slen[depth] = (size_t)(e - n);
            depth++;
            p = q + 1;
        } else {
            p = q + 2;
        }
    }
    return depth ? "unclosed elements at the end" : roots ? NULL : "no root";
}

static gk_pos_t pos_of(int game, const char *text) {
    gk_pos_t p;
    char err[256];
    if (gk_game_by_id(game)->pos_from_text(&p, text, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        fprintf(stderr, "bad test position '%s': %s\n", text, err);
        exit(1);
    }
    return p;
}

static int parse(const gk_pos_t *p, const char *move, gk_action_t *seq) {
    char err[256];
    int n = gk_game_of(p)->parse_move(p, move, seq, GK_MAX_TURN, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "bad test move '%s': %s\n", move, err);
        exit(1);
    }
    return n;
}

/* Draws p after `move` (NULL: no move) and checks that the SVG is well formed. */
static char *board(const gk_pos_t *before, const char *move, view_marks_t *m, gk_pos_t *after) {
    gk_action_t seq[GK_MAX_TURN] = {0};
    int n = move ? parse(before, move, seq) : 0;
    gk_pos_t p = *before;
    for (int i = 0; i < n; i++) gk_play(&p, seq[i]);
    view_marks_of(before, seq, n, m);
    gk_sb_t b;
    gk_sb_growing(&b);
    CHECK(view_board_svg(&b, &p, n ? m : NULL, NULL) == GK_OK);
    const char *why = xml_check(b.p, b.n);
    if (why) fprintf(stderr, "SVG after %s: %s\n", move ? move : "(none)", why);
    CHECK(!why);
    if (after) *after = p;
    return gk_sb_take(&b, NULL);
}

static int marks_of_kind(const view_marks_t *m, int kind) {
    int n = 0;
    for (int i = 0; i < m->nmarks; i++) n += m->mark[i].kind == kind;
    return n;
}

static bool has_mark(const view_marks_t *m, int kind, int sq) {
    for (int i = 0; i < m->nmarks; i++)
        if (m->mark[i].kind == kind && m->mark[i].sq == sq) return true;
    return false;
}

/* ------------------------------------------------------------------ boards */

/* One shape per simple piece, one group per stack, a plate per stack of 2 or 3. */
static void check_shapes(const gk_pos_t *p, const char *svg) {
    int shapes[2][2] = {{0}}, stacks = 0, plates = 0;
    for (int sq = 0; sq < 64; sq++) {
        int v = gounki_cell(p, sq), o = gounki_cell_owner(v);
        if (o < 0) continue;
        shapes[o][0] += gounki_cell_rounds(v);
        shapes[o][1] += gounki_cell_squares(v);
        stacks++;
        plates += gounki_cell_size(v) > 1;
    }
    CHECK(count(svg, "<circle class='r w'") == shapes[0][0]);
    CHECK(count(svg, "<rect class='s w'") == shapes[0][1]);
    CHECK(count(svg, "<circle class='r b'") == shapes[1][0]);
    CHECK(count(svg, "<rect class='s b'") == shapes[1][1]);
    CHECK(count(svg, "<g class='stack'") == stacks);
    CHECK(count(svg, "class='plate'") == plates);
}

static void test_gounki_boards(void) {
    gk_pos_t start, p;
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_gounki_game.setup(&start, &r);
    view_marks_t m;
    char *svg = board(&start, NULL, &m, NULL);
    CHECK(count(svg, "<circle class='r w'") == 8 && count(svg, "<rect class='s b'") == 8);
    check_shapes(&start, svg);
    CHECK(count(svg, "class='arrow'") == 0);
    CHECK(strstr(svg, "<title>Gounki, turn 1, White to move</title>") != NULL);
    for (char f = 'a'; f <= 'h'; f++) { /* coordinates */
        char t[16];
        snprintf(t, sizeof t, ">%c</text>", f);
        CHECK(count(svg, t) == 1);
    }
    CHECK(count(svg, ">8</text>") == 1 && count(svg, ">1</text>") == 1);
    free(svg);

    /* The Wikipedia game's final position: stacks of 2 and 3, the exit and the result. */
    p = pos_of(GK_GAME_GOUNKI, "1srsrsrs/3(rs)(rs)2r/2s5/1(RRR)1SS3/8/r7/2(RS)2SRS/4S1SR w 24 "
                               "0-1 exit");
    svg = board(&p, NULL, &m, NULL);
    check_shapes(&p, svg);
    CHECK(count(svg, "class='plate'") == 4);
    CHECK(strstr(svg, "0-1 Black wins by exit") != NULL);
    free(svg);

    /* A deployment: three drops in order, a round last; the path joins them. */
    p = pos_of(GK_GAME_GOUNKI, "1srsrsrs/1(rrs)1(rs)1rsr/2s5/2(RSS)5/8/8/2RSRSRS/1RSRSRSR w 8");
    gk_pos_t after;
    svg = board(&p, "c5*d5,e5,f6", &m, &after);
    check_shapes(&after, svg);
    CHECK(marks_of_kind(&m, VIEW_MK_DROP) == 3 && m.npts == 4 && !m.exit);
    CHECK(has_mark(&m, VIEW_MK_FROM, GOUNKI_SQ(2, 4)));
    for (int i = 0; i < m.nmarks; i++)
        if (m.mark[i].kind == VIEW_MK_DROP) CHECK(m.mark[i].square == (m.mark[i].n < 3));
    CHECK(count(svg, "<use href='#gv-ds'") == 2 && count(svg, "<use href='#gv-dr'") == 1);
    CHECK(count(svg, "class='arrow'") == 1 && count(svg, "class='ht'") == 0);
    free(svg);

    /* The deployment with rebound of the same game (b4*a3,b2,a2) and a drop onto an
     * earlier drop (a3*b4,a4,b4+): both badges on b4. */
    p = pos_of(GK_GAME_GOUNKI, "1srsrsrs/3(rs)(rs)2r/2s5/3SS3/1(rrs)6/8/2(RS)1(RRR)SRS/"
                               "1RS1S1SR b 17");
    svg = board(&p, "b4*a3,b2,a2", &m, NULL);
    CHECK(m.npts == 4 && m.pt[2] == 0 && m.pt[3] == 2 && m.pt[6] == 0 && m.pt[7] == 1);
    free(svg);
    p = pos_of(GK_GAME_GOUNKI, "r7/8/8/8/8/(RSS)7/8/8 w 0");
    svg = board(&p, "a3*b4,a4,b4+", &m, NULL);
    CHECK(marks_of_kind(&m, VIEW_MK_DROP) == 3 && count(svg, "class='hd'") == 2);
    free(svg);

    /* A diagonal that rebounds off the h-file turns on h4 (docs/RULES.md, rule 4). */
    p = pos_of(GK_GAME_GOUNKI, "r7/8/8/8/8/6(RR)1/8/8 w 0");
    svg = board(&p, "g3-g5", &m, NULL);
    CHECK(m.npts == 3 && m.pt[2] == 7 && m.pt[3] == 3 && m.pt[4] == 6 && m.pt[5] == 4);
    CHECK(has_mark(&m, VIEW_MK_FROM, GOUNKI_SQ(6, 2)) && has_mark(&m, VIEW_MK_TO, GOUNKI_SQ(6, 4)));
    free(svg);

    /* A capture: the cross on the destination. */
    p = pos_of(GK_GAME_GOUNKI, "8/8/3R4/8/1(rrs)1(SSS)S3/8/8/8 w 0");
    svg = board(&p, "d4xb4", &m, &after);
    CHECK(has_mark(&m, VIEW_MK_CAPTURE, GOUNKI_SQ(1, 3)) && count(svg, "#gv-cx'") == 1);
    check_shapes(&after, svg);
    free(svg);

    /* Exits leave across the far edge: White upwards past rank 8, Black below rank 1. */
    p = pos_of(GK_GAME_GOUNKI, "4(RRR)3/8/8/8/8/8/8/r7 w 0");
    svg = board(&p, "e8-Out", &m, NULL);
    CHECK(m.exit && m.npts == 2 && m.pt[3] > 7.5 && strstr(svg, ">Out</text>"));
    CHECK(strstr(svg, "1-0 White wins by exit") != NULL);
    free(svg);
    p = pos_of(GK_GAME_GOUNKI, "7R/8/8/8/8/8/8/r7 b 0");
    svg = board(&p, "a1-Out", &m, NULL);
    CHECK(m.exit && m.pt[3] < -0.5);
    free(svg);
    p = pos_of(GK_GAME_GOUNKI, "8/8/8/8/8/8/8/(SSS)6r w 0");
    svg = board(&p, "a1-a3", &m, NULL); /* a straight move of two, not a rebound */
    CHECK(!m.exit && m.npts == 2);
    free(svg);
    p = pos_of(GK_GAME_GOUNKI, "8/4(RRS)3/8/8/8/8/8/r7 w 0");
    svg = board(&p, "e7*f8,Out", &m, NULL);
    CHECK(m.exit && marks_of_kind(&m, VIEW_MK_DROP) == 1 && m.npts == 3);
    free(svg);
}

static void test_gobs_boards(void) {
    gk_pos_t start, p, after;
    gk_rules_t r = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_gobs_game.setup(&start, &r);
    view_marks_t m;
    char *svg = board(&start, NULL, &m, NULL);
    CHECK(count(svg, "class='face w'") == 27 && count(svg, "class='face b'") == 27);
    CHECK(count(svg, "class='rim b'") == 27 && count(svg, "class='rim w'") == 27);
    CHECK(strstr(svg, "Gobs (standard rules)") != NULL && count(svg, ">i</text>") == 1);
    CHECK(count(svg, ">9</text>") == 1);
    free(svg);

    /* The seed's chain: four pieces turned over, the path through every landing. */
    p = pos_of(GK_GAME_GOBS, "standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *");
    svg = board(&p, "g4:d4:b4:b6:f6", &m, &after);
    CHECK(marks_of_kind(&m, VIEW_MK_FLIP) == 4 && m.npts == 5);
    CHECK(has_mark(&m, VIEW_MK_FLIP, 9 * 3 + 4) && has_mark(&m, VIEW_MK_FLIP, 9 * 3 + 2));
    CHECK(has_mark(&m, VIEW_MK_FLIP, 9 * 4 + 1) && has_mark(&m, VIEW_MK_FLIP, 9 * 5 + 4));
    CHECK(has_mark(&m, VIEW_MK_FROM, 9 * 3 + 6) && has_mark(&m, VIEW_MK_TO, 9 * 5 + 5));
    CHECK(count(svg, "class='flip'") == 4 && count(svg, "class='face b'") == 10);
    CHECK(strstr(svg, "White 6 pieces, Black 10") != NULL);
    free(svg);

    /* An elimination; in the short variant the piece is put back on its first rank. */
    p = pos_of(GK_GAME_GOBS, "standard ww6b/7b1/3w5/4w4/9/2w1w1b2/2b2b3/3b5/9 b 0 - *");
    svg = board(&p, "d2xd7", &m, NULL);
    CHECK(has_mark(&m, VIEW_MK_CAPTURE, 9 * 6 + 3) && marks_of_kind(&m, VIEW_MK_PLACE) == 0);
    free(svg);
    p = pos_of(GK_GAME_GOBS, "short bbbbwbbbb/9/6b2/9/9/9/9/9/wwww1w3 w 0 - *");
    svg = board(&p, "e9xg7/e9", &m, NULL);
    CHECK(has_mark(&m, VIEW_MK_CAPTURE, 9 * 6 + 6) && has_mark(&m, VIEW_MK_PLACE, 9 * 8 + 4));
    CHECK(strstr(svg, "Gobs (short rules)") && count(svg, "class='place'") == 1);
    free(svg);

    /* A position in the middle of a chain rings the jumping piece. */
    p = pos_of(GK_GAME_GOBS, "standard 6bbb/7bb/9/4w4/1w7/2wbb4/9/9/wwwwww3 b 0 d4+1 *");
    svg = board(&p, NULL, &m, NULL);
    CHECK(count(svg, "class='jump'") == 1 && strstr(svg, "continuing its turn"));
    free(svg);
    /* GOBSed: the side to move has exactly 5 pieces. */
    p = pos_of(GK_GAME_GOBS, "standard 6bbb/8b/9/4w4/4b4/9/9/9/wwww1ww2 b 7 - *");
    svg = board(&p, NULL, &m, NULL);
    CHECK(strstr(svg, "Black is GOBSed") != NULL);
    free(svg);
}

/* ------------------------------------------------------------------ pages */

static char *page(const view_game_t *g, int expect) {
    gk_sb_t b;
    gk_sb_growing(&b);
    char err[256] = "";
    int rc = view_game_html(&b, g, err, sizeof err);
    if (rc != expect) fprintf(stderr, "view_game_html: %d (%s), expected %d\n", rc, err, expect);
    CHECK(rc == expect);
    if (rc) {
        gk_sb_free(&b);
        return NULL;
    }
    /* the board inside is well-formed SVG */
    const char *s = strstr(b.p, "<svg id='gv-board'"), *e = s ? strstr(s, "</svg>") : NULL;
    CHECK(s && e);
    if (s && e) {
        const char *why = xml_check(s, (size_t)(e + 6 - s));
        if (why) fprintf(stderr, "page board: %s\n", why);
        CHECK(!why);
    }
    CHECK(count(b.p, "</script>") == 2 && count(b.p, "<script") == 2);
    return gk_sb_take(&b, NULL);
}

static int record_actions(const gk_pos_t *start, const char *moves, gk_action_t *out, int cap) {
    gk_pos_t p = *start;
    char buf[4096], *save = NULL;
    snprintf(buf, sizeof buf, "%s", moves);
    int n = 0;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        gk_action_t seq[GK_MAX_TURN];
        int k = parse(&p, t, seq);
        for (int i = 0; i < k && n < cap; i++) {
            out[n++] = seq[i];
            gk_play(&p, seq[i]);
        }
    }
    return n;
}

static void test_pages(void) {
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    view_game_t g = {0};
    gk_gounki_game.setup(&g.start, &r);
    gk_action_t act[64];
    g.nactions = (uint32_t)record_actions(
        &g.start, "a1-a2+ a8-b7+ a2-b2+ a7-b7+ b2-b4 e7-d7+ b4-c5 c7-c6 c5*d5,e5,f6", act, 64);
    g.action = act;
    const char *comments[] = {NULL, "</script><script>alert(1)</script>", "a \"quote\" & more"};
    g.comment = comments;
    g.ncomment = 3;
    g.title = "<b>Title</b> & 'quotes' \"too\"";
    const char *tags[] = {"White", "A <b>", "Black", "B & C"};
    g.tag = tags;
    g.ntags = 2;
    char *html = page(&g, GK_OK);
    if (html) {
        CHECK(count(html, "{\"m\":") == 9);
        CHECK(strstr(html, "\"m\":\"c5*d5,e5,f6\"") != NULL);
        CHECK(strstr(html, "<b>Title") == NULL && strstr(html, "<b>A") == NULL);
        CHECK(strstr(html, "&lt;b&gt;Title&lt;/b&gt; &amp; &#39;quotes&#39; &quot;too&quot;"));
        CHECK(strstr(html, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
        CHECK(strstr(html, "a \\\"quote\\\" \\u0026 more"));
        CHECK(strstr(html, "id='gv-graph'") == NULL && strstr(html, "id='gv-search'") == NULL);
        CHECK(strstr(html, "rsrsrsrs/srsrsrsr/8/8/8/8/RSRSRSRS/SRSRSRSR w 0") != NULL);
        CHECK(count(html, "<g id='gk-w") == 9 && count(html, "<g id='gk-b") == 9);
    }
    free(html);

    /* A resignation the actions do not show is the game's end on the page. */
    g.result = GK_WIN_BLACK;
    g.reason = GK_REASON_RESIGN;
    html = page(&g, GK_OK);
    CHECK(html && strstr(html, "0-1 Black wins by resign"));
    free(html);
    g.result = GK_ONGOING;

    /* Illegal actions: out of order, and after the end of the game. */
    gk_action_t tmp = act[3];
    act[3] = act[4];
    char err[256];
    gk_sb_t b;
    gk_sb_growing(&b);
    CHECK(view_game_html(&b, &g, err, sizeof err) == GK_E_REPLAY);
    CHECK(strstr(err, "action 4") != NULL);
    act[3] = tmp;
    gk_sb_free(&b);
    g.start = pos_of(GK_GAME_GOUNKI, "4(RRR)3/8/8/8/8/8/8/r7 w 0");
    g.nactions = (uint32_t)record_actions(&g.start, "e8-Out", act, 64);
    act[1] = act[0];
    g.nactions = 2;
    g.comment = NULL;
    gk_sb_growing(&b);
    CHECK(view_game_html(&b, &g, err, sizeof err) == GK_E_REPLAY);
    CHECK(strstr(err, "after the end") != NULL);
    gk_sb_free(&b);
    g.nactions = 1;
    html = page(&g, GK_OK);
    CHECK(html && strstr(html, "\"x\":1") && strstr(html, "1-0 White wins by exit"));
    free(html);

    /* Statistics that point past the children given are refused. */
    gl_action_stats_t st = {.kind = GL_ACTION_SEARCH, .ntop = 2, .visits = 10, .first = 0};
    gl_child_t ch[1] = {{act[0], 9}};
    g.stats = &st;
    g.child = ch;
    g.nchild = 1;
    gk_sb_growing(&b);
    CHECK(view_game_html(&b, &g, err, sizeof err) == GK_E_ARG);
    gk_sb_free(&b);
    st.ntop = 1;
    html = page(&g, GK_OK);
    CHECK(html && strstr(html, "\"t\":[[\"e8-Out\",9]]") && strstr(html, "id='gv-graph'"));
    free(html);
}

static int play_log_game(int game, int variant, int playouts, uint64_t index, gl_game_t *g) {
    sp_settings_t s;
    sp_settings_default(&s, game);
    s.rules.variant = (uint8_t)variant;
    s.limits.playouts = (uint64_t)playouts;
    s.top = 8;
    s.seed = 2024;
    gl_game_init(g);
    char err[256];
    int rc = sp_play_game(&s, index, g, NULL, err, sizeof err);
    if (rc) fprintf(stderr, "sp_play_game: %s\n", err);
    return rc;
}

static void test_gamelog_page(void) {
    gl_game_t g;
    CHECK(play_log_game(GK_GAME_GOUNKI, 0, 40, 3, &g) == SP_DONE);
    gk_sb_t b;
    gk_sb_growing(&b);
    char err[256];
    CHECK(view_gamelog_html(&b, &g, NULL, err, sizeof err) == GK_OK);
    int searched = 0;
    for (uint32_t i = 0; i < g.nactions; i++) searched += g.stats[i].kind == GL_ACTION_SEARCH;
    CHECK(count(b.p, "{\"m\":") == (int)g.turns); /* one entry per turn */
    CHECK(count(b.p, "\"v\":") == searched && searched > 0);
    CHECK(count(b.p, "class='vline'") >= 1 && strstr(b.p, "<title>Self-play game 3</title>"));
    CHECK(strstr(b.p, "<b>Seed</b>") != NULL);
    gk_sb_free(&b);
    gl_game_free(&g);

    /* Gobs: turns of several actions (jump legs) are one entry with every decision. */
    CHECK(play_log_game(GK_GAME_GOBS, GOBS_VAR_SHORT, 16, 1, &g) == SP_DONE);
    gk_sb_growing(&b);
    CHECK(view_gamelog_html(&b, &g, "short <Gobs>", err, sizeof err) == GK_OK);
    CHECK(count(b.p, "{\"m\":") == (int)g.turns && g.nactions >= g.turns);
    CHECK(count(b.p, "{\"k\":") == (int)g.nactions);
    CHECK(strstr(b.p, "<title>short &lt;Gobs&gt;</title>") != NULL);
    gk_sb_free(&b);
    gl_game_free(&g);
}

/* ------------------------------------------------------------------ training page */

static void fake_gens(view_train_gen_t *gen, int n, const gl_game_t *samples, int nsamples) {
    for (int g = 0; g < n; g++) {
        view_train_gen_t *r = &gen[g];
        memset(r, 0, sizeof *r);
        r->promoted = g == 0 || g % 3 != 2;
        r->best_after = r->promoted ? g : g - 1;
        r->games = g ? 800 : 0;
        r->selfplay_s = g ? 110 + 7 * g : 0;
        r->positions = g ? 20000 + 3000 * g : 0;
        r->train_before = r->val_before = g ? 0.24 - 0.012 * g : NAN;
        r->train_after = g ? 0.21 - 0.011 * g : NAN;
        r->val_after = g ? 0.215 - 0.0105 * g : NAN;
        r->gate_elo = g ? (r->promoted ? 60 - 4 * g : -12) : NAN;
        r->gate_lo = g ? r->gate_elo - 45 : NAN;
        r->gate_hi = g ? r->gate_elo + 45 : NAN;
        r->mw = 110, r->md = 2, r->ml = 88;
        r->ladder_elo = g == 0 ? 0 : r->promoted ? 90.0 * g - 4.0 * g * g : NAN;
        r->ladder_lo = g == 0 ? 0 : r->ladder_elo - 50;
        r->ladder_hi = g == 0 ? 0 : r->ladder_elo + 50;
        r->chain_elo = r->promoted ? 70.0 * g : NAN;
        r->sample = g ? samples : NULL;
        r->nsamples = g ? nsamples : 0;
    }
    gen[n - 1].ladder_elo = INFINITY; /* a perfect score */
    gen[n - 1].ladder_hi = INFINITY;
    gen[n - 1].promoted = 1;
}

/* A run that promoted nothing: generation 0 alone on the ladder, two rejected candidates
 * (one with an infinite lower bound, one a perfect score).  The ladder's axis spans at
 * least 100 Elo (not +-0.5 around the lone 0), the rejected gating results are drawn, and
 * the infinite bounds carry arrows. */
static void test_ladder_nothing_promoted(void) {
    view_train_gen_t gen[3];
    memset(gen, 0, sizeof gen);
    for (int g = 0; g < 3; g++) {
        view_train_gen_t *r = &gen[g];
        r->promoted = g == 0;
        r->best_after = 0;
        r->train_before = r->train_after = r->val_before = r->val_after = NAN;
        r->gate_elo = r->gate_lo = r->gate_hi = NAN;
        r->ladder_elo = r->ladder_lo = r->ladder_hi = g == 0 ? 0 : NAN;
        r->chain_elo = g == 0 ? 0 : NAN;
    }
    gen[1].gate_elo = -191, gen[1].gate_lo = -INFINITY, gen[1].gate_hi = 68;
    gen[2].gate_elo = INFINITY, gen[2].gate_lo = -113, gen[2].gate_hi = INFINITY;
    view_train_t t = {.title = "nothing promoted", .ngen = 3, .gen = gen};
    gk_sb_t b;
    gk_sb_growing(&b);
    char err[256];
    CHECK(view_train_html(&b, &t, err, sizeof err) == GK_OK);
    const char *svg = strstr(b.p, "<svg"), *end = svg ? strstr(svg, "</svg>") : NULL;
    CHECK(svg && end);
    if (svg && end) {
        size_t len = (size_t)(end - svg);
        char *s = strndup(svg, len);
        CHECK(count(s, "class='rejected'") == 2, "rejected marks: %d",
              count(s, "class='rejected'"));
        CHECK(count(s, "class='inf'") == 2, "infinite bounds marked: %d", count(s, "class='inf'"));
        double lo = INFINITY, hi = -INFINITY;
        for (const char *q = strstr(s, "class='gt'"); q; q = strstr(q + 1, "class='gt'")) {
            const char *gt = strchr(q, '>');
            double v = gt ? strtod(gt + 1, NULL) : NAN;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            const char *lt = gt ? strchr(gt, '<') : NULL;
            CHECK(lt && !memchr(gt, 'e', (size_t)(lt - gt)), "a tick label with an exponent: %.12s",
                  gt);
        }
        CHECK(hi - lo >= 100 && lo <= -113 && hi > 0, "Elo axis %g..%g", lo, hi);
        free(s);
    }
    /* train's ladder.svg: the same two plots in one well-formed SVG file that styles its
     * own text (no page around it) */
    b.n = 0;
    CHECK(view_train_svg(&b, &t, err, sizeof err) == GK_OK);
    const char *bad = xml_check(b.p, b.n);
    CHECK(!bad, "ladder.svg is not well-formed: %s", bad ? bad : "");
    CHECK(!strncmp(b.p, "<svg xmlns=", 11) && count(b.p, "<svg") == 3 &&
              count(b.p, "</svg>") == 3 && strstr(b.p, "<style>") && strstr(b.p, ".gt{"),
          "ladder.svg: not one SVG holding the ladder and the loss plots with their style");
    CHECK(count(b.p, "class='rejected'") == 2 && count(b.p, "class='inf'") == 2 &&
              strstr(b.p, "Elo ladder") && strstr(b.p, "Tuner loss"),
          "ladder.svg: the plots differ from the page's");
    t.ngen = 0;
    CHECK(view_train_svg(&b, &t, err, sizeof err) == GK_E_ARG);
    gk_sb_free(&b);
}

static void test_train_page(const char *tmp) {
    gl_game_t s[2];
    CHECK(play_log_game(GK_GAME_GOUNKI, 0, 24, 0, &s[0]) == SP_DONE);
    CHECK(play_log_game(GK_GAME_GOUNKI, 0, 24, 7, &s[1]) == SP_DONE);
    view_train_gen_t gen[5];
    fake_gens(gen, 5, s, 2);
    view_train_t t = {.title = "Run & <test>",
                      .settings = "playouts 24",
                      .ngen = 5,
                      .gen = gen,
                      .report_href = "report.txt"};
    char err[256], path[1024];
    CHECK(view_train_write(tmp, &t, err, sizeof err) == GK_OK);
    snprintf(path, sizeof path, "%s/report.html", tmp);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK(count(buf, "<svg") == 3 && count(buf, "</svg>") == 3);
        CHECK(count(buf, "href='games/gen-") == 8);
        CHECK(strstr(buf, "href='games/gen-002-game-7.html'") != NULL);
        CHECK(strstr(buf, "Run &amp; &lt;test&gt;") && strstr(buf, "perfect score"));
        CHECK(strstr(buf, "href='report.txt'") != NULL);
    }
    for (int g = 1; g < 5; g++)
        for (int k = 0; k < 2; k++) {
            struct stat st;
            snprintf(path, sizeof path, "%s/games/gen-%03d-game-%d.html", tmp, g, k ? 7 : 0);
            CHECK(stat(path, &st) == 0 && st.st_size > 1000);
        }
    t.ngen = 0;
    gk_sb_t b;
    gk_sb_growing(&b);
    CHECK(view_train_html(&b, &t, err, sizeof err) == GK_E_ARG);
    gk_sb_free(&b);

    /* Samples from a log: the lowest game indices first. */
    char dir[700];
    snprintf(dir, sizeof dir, "%s/logs", tmp);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/shard-00000.gkz", dir);
    gl_writer_t *w;
    gl_writer_opts_t o = {.level = 3, .code = GL_CODE_INDEX, .stats = true};
    CHECK(gl_writer_open(&w, path, &o, false, NULL, err, sizeof err) == 0);
    CHECK(gl_writer_add(w, &s[1], err, sizeof err) == 0);
    CHECK(gl_writer_add(w, &s[0], err, sizeof err) == 0);
    CHECK(gl_writer_close(w, err, sizeof err) == 0);
    gl_game_t got[3];
    int n = 0;
    CHECK(view_load_samples(dir, 1, got, &n, err, sizeof err) == GK_OK);
    CHECK(n == 1 && got[0].index == 0 && got[0].nactions == s[0].nactions && got[0].has_stats);
    for (int i = 0; i < n; i++) gl_game_free(&got[i]);
    CHECK(view_load_samples(dir, 3, got, &n, err, sizeof err) == GK_OK);
    CHECK(n == 2 && got[1].index == 7);
    for (int i = 0; i < n; i++) gl_game_free(&got[i]);
    snprintf(path, sizeof path, "%s/nothing-here", tmp);
    CHECK(view_load_samples(path, 3, got, &n, err, sizeof err) < 0 && n == 0);
    gl_game_free(&s[0]);
    gl_game_free(&s[1]);
}

/* ------------------------------------------------------------------ writing pages */

static int write_log_page(const char *dir, const char *name, int game, int variant, int playouts,
                          uint64_t index, gl_game_t *keep) {
    gl_game_t g;
    if (play_log_game(game, variant, playouts, index, &g)) return 1;
    char err[256], path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = view_gamelog_write(path, &g, NULL, err, sizeof err);
    struct stat st;
    if (!rc && stat(path, &st)) rc = -1, snprintf(err, sizeof err, "not written");
    if (rc)
        fprintf(stderr, "%s: %s\n", path, err);
    else
        printf("%s: %s, %u turns, %u actions, %lld bytes\n", path, gk_game_by_id(game)->name,
               g.turns, g.nactions, (long long)st.st_size);
    if (keep)
        *keep = g;
    else
        gl_game_free(&g);
    return rc != 0;
}

/* A long game for measuring page sizes: uniformly random actions that do not end the game,
 * until the turn limit, each with made-up statistics (800 visits, 8 children) of the size a
 * self-play log keeps. */
static int write_random_page(const char *dir, const char *name, int game, int turns) {
    static gk_action_t act[1 << 16];
    static gl_action_stats_t st[1 << 16];
    static gl_child_t ch[8 << 16];
    view_game_t g = {0};
    gk_rules_t r = {(uint8_t)game, 0, (uint16_t)turns};
    gk_game_by_id(game)->setup(&g.start, &r);
    gk_pos_t p = g.start;
    uint64_t rng = 77;
    uint32_t n = 0, nc = 0;
    double v = 0;
    gk_action_t list[GK_MAX_ACTIONS], keep[GK_MAX_ACTIONS];
    static gk_hist_t hist;
    gk_hist_init(&hist, &p);
    while (!gk_over(&p) && n < (1 << 16)) {
        int nl = gk_gen(&p, list), nk = 0;
        if (nl == 0) break;
        for (int i = 0; i < nl; i++) { /* no end but the turn limit, no third repetition */
            gk_pos_t q = p;
            gk_play(&q, list[i]);
            if ((!gk_over(&q) || q.reason == GK_REASON_TURN_LIMIT) &&
                (q.in_turn || gk_hist_count(&hist, q.hash) < 2))
                keep[nk++] = list[i];
        }
        if (nk == 0) memcpy(keep, list, sizeof *list * (size_t)(nk = nl));
        gk_action_t a = keep[gk_splitmix64(&rng) % (uint64_t)nk];
        v = 0.9 * v + 0.1 * ((double)(gk_splitmix64(&rng) % 2001) / 1000 - 1);
        st[n] = (gl_action_stats_t){
            .kind = GL_ACTION_SEARCH, .visits = 800, .value = (float)v, .first = nc};
        ch[nc++] = (gl_child_t){a, 300};
        for (int i = 0; i < nl && st[n].ntop < 7; i++)
            if (list[i] != a) ch[nc++] = (gl_child_t){list[i], 200u >> st[n].ntop++};
        st[n].ntop++;
        act[n++] = a;
        gk_play_turn(&p, &hist, a);
    }
    g.action = act;
    g.nactions = n;
    g.stats = st;
    g.child = ch;
    g.nchild = nc;
    g.title = "Random game (page size test)";
    gk_sb_t b;
    gk_sb_growing(&b);
    char err[256], path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = view_game_html(&b, &g, err, sizeof err);
    if (!rc) rc = view_write(path, &b, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, err);
    else
        printf("%s: %s, %u turns, %u actions, %zu bytes\n", path, gk_game_by_id(game)->name,
               (unsigned)p.turn, n, b.n);
    gk_sb_free(&b);
    return rc != 0;
}

static int write_pages(const char *dir) {
    gl_game_t s[2];
    if (write_log_page(dir, "log-gounki.html", GK_GAME_GOUNKI, 0, 400, 5, &s[0]) ||
        write_log_page(dir, "log-gobs.html", GK_GAME_GOBS, GOBS_VAR_STANDARD, 40, 2, &s[1]))
        return 1;
    view_train_gen_t gen[7];
    fake_gens(gen, 7, s, 2);
    view_train_t t = {.title = "Training run (made-up numbers)", .ngen = 7, .gen = gen};
    char err[256], sub[1024];
    snprintf(sub, sizeof sub, "%s/train", dir);
    int rc = view_train_write(sub, &t, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", sub, err);
    gl_game_free(&s[0]);
    gl_game_free(&s[1]);
    return rc != 0;
}

/* Page sizes of long games: random ones of 500 turns, and the standard Gobs self-play
 * game with the most actions among games 0-11 at 40 playouts. */
static int write_sizes(const char *dir) {
    if (write_random_page(dir, "random-gounki.html", GK_GAME_GOUNKI, 500) ||
        write_random_page(dir, "random-gobs.html", GK_GAME_GOBS, 500))
        return 1;
    uint64_t best = 0;
    uint32_t most = 0;
    for (uint64_t i = 0; i < 12; i++) {
        gl_game_t g;
        if (play_log_game(GK_GAME_GOBS, GOBS_VAR_STANDARD, 40, i, &g)) return 1;
        if (g.nactions > most) most = g.nactions, best = i;
        gl_game_free(&g);
    }
    return write_log_page(dir, "longest-gobs.html", GK_GAME_GOBS, GOBS_VAR_STANDARD, 40, best,
                          NULL);
}

/* The training page of a `gounki train` run, from its state.txt (train_view_gens, as
 * selfplay/train_report.c maps it), with settings of the caller's choice. */
static int write_train(const char *run, const char *out, const char *settings) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/state.txt", run);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    static train_state_t s;
    if (train_state_parse(text, len, &s, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    static view_train_gen_t gen[TRAIN_MAX_GENERATIONS + 1];
    static gl_game_t samples[TRAIN_MAX_GENERATIONS + 1][2];
    train_view_gens(&s, gen);
    for (int g = 0; g < s.ngen; g++) {
        view_train_gen_t *v = &gen[g];
        if (g > 0) {
            snprintf(path, sizeof path, "%s/gen-%03d/logs", run, g);
            int n = 0;
            if (view_load_samples(path, 2, samples[g], &n, err, sizeof err) == GK_OK) {
                v->sample = samples[g];
                v->nsamples = n;
            }
        }
    }
    view_train_t t = {.title = "Training run",
                      .settings = settings,
                      .ngen = s.ngen,
                      .gen = gen,
                      .report_href = NULL};
    int rc = view_train_write(out, &t, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", out, err);
    for (int g = 0; g < s.ngen; g++)
        for (int k = 0; k < gen[g].nsamples; k++) gl_game_free(&samples[g][k]);
    return rc != 0;
}

int main(int argc, char **argv) {
    gk_init();
    if (argc == 3 && !strcmp(argv[1], "--write")) return write_pages(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--sizes")) return write_sizes(argv[2]);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--train"))
        return write_train(argv[2], argv[3], argc == 5 ? argv[4] : argv[2]);
    if (argc != 1) {
        fprintf(stderr,
                "usage: test_view [--write DIR | --sizes DIR | --train RUN OUT [SETTINGS]]\n");
        return 2;
    }
    test_gounki_boards();
    test_gobs_boards();
    test_pages();
    test_gamelog_page();
    const char *td = getenv("TMPDIR");
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/test_view.XXXXXX", td && *td ? td : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_train_page(tmp);
    test_ladder_nothing_promoted();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
    return check_exit("test_view");
}
