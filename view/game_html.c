/* view/game_html.c -- self-contained HTML pages of whole games (see view.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/status.h"
#include "view_int.h"

int view_write(const char *path, const gk_sb_t *b, char *err, size_t errcap) {
    GK_RETURN_IF(b->over, err, errcap, GK_E_NOMEM, "out of memory while building %s",
                 gk_path_shown(path));
    return gk_write_atomic(path, b->p ? b->p : "", b->n, err, errcap);
}

/* ------------------------------------------------------------------ page parts */

static const char page_css[] =
    "body{margin:0;font:14px/1.45 'DejaVu Sans',Verdana,sans-serif;background:#f3f0e8;"
    "color:#2b2118}\n"
    "header{padding:14px 22px 2px}h1{font-size:21px;margin:0 0 3px}"
    "h2{font-size:14px;margin:12px 0 6px;color:#5b4a38;text-transform:uppercase;"
    "letter-spacing:.05em}\n"
    ".sub{font-size:15px;color:#4a3e33}.tags{color:#7a6650;font-size:12.5px;margin-top:3px}"
    ".tags span{margin-right:14px}.tags b{color:#5b4a38;font-weight:600}\n"
    "main{display:flex;flex-wrap:wrap;gap:22px;padding:8px 22px}\n"
    "#gv-board{display:block;border-radius:6px;box-shadow:0 1px 5px rgba(60,40,20,.25)}\n"
    ".controls{display:flex;gap:6px;align-items:center;margin:10px 0 4px}\n"
    "button{font:inherit;font-size:16px;min-width:40px;padding:3px 10px;border:1px solid "
    "#b9a98f;background:#fffdf8;border-radius:5px;cursor:pointer;color:#3b2f24}"
    "button:hover{background:#f1e6d0}\n"
    "#gv-status{margin-left:10px;font-weight:bold}\n"
    "#gv-pos{display:block;font:12px 'DejaVu Sans Mono',monospace;color:#6b5a48;"
    "word-break:break-all;max-width:520px;margin-top:4px;user-select:all}\n"
    "#gv-comment{max-width:520px;font-style:italic;color:#4a3e33}\n"
    "#gv-right{flex:1 1 320px;min-width:300px;max-width:480px}\n"
    "#gv-moves{max-height:300px;overflow-y:auto;background:#fffdf8;border:1px solid #ddd0b8;"
    "border-radius:6px;padding:4px 0}\n"
    "table.ml{border-collapse:collapse;width:100%;table-layout:fixed}.ml td{padding:1px 6px;"
    "width:42%;vertical-align:baseline}"
    ".ml td.no{color:#a08f7a;text-align:right;width:16%;font-size:12px}\n"
    ".mv{cursor:pointer;padding:1px 5px;border-radius:4px;font-family:'DejaVu Sans Mono',"
    "monospace;font-size:13px;overflow-wrap:anywhere}.mv:hover{background:#f1e6d0}"
    ".mv.cur{background:#de5f0b;color:#fff}\n"
    "#gv-search{background:#fffdf8;border:1px solid #ddd0b8;border-radius:6px;padding:6px "
    "10px;min-height:60px;max-height:440px;overflow-y:auto}\n"
    ".dec p{margin:4px 0}.muted{color:#8a7a66}\n"
    "table.top{border-collapse:collapse;width:100%;font-size:13px}.top td{padding:1px 4px}"
    ".top td.mvn{font-family:'DejaVu Sans Mono',monospace;white-space:nowrap;width:38%}"
    ".top td.barc{width:40%}.top td.pct,.top td.vis{text-align:right;color:#5b4a38;"
    "white-space:nowrap}\n"
    ".bar{height:9px;background:#5d8fd6;border-radius:2px;min-width:1px}"
    ".top tr.played td.mvn{font-weight:bold;color:#de5f0b}.top tr.played .bar"
    "{background:#de5f0b}\n"
    "#gv-graph-box{padding:0 22px 10px}#gv-graph{display:block;max-width:100%;height:auto;"
    "background:#fffdf8;border:1px solid #ddd0b8;border-radius:6px;cursor:pointer}\n"
    "#gv-error{margin:8px 22px;padding:6px 10px;background:#fde2e1;color:#8b1a1a;"
    "border:1px solid #e6a1a1;border-radius:5px}\n"
    "footer{padding:4px 22px 14px;font-size:12px;color:#9a8a76}\n";

/* The page's script.  It mirrors vg_marks_under/vg_marks_over and the piece <defs> of
 * board_svg.c; marks arrive as pairs (code, square), see put_marks(). */
static const char page_js[] =
    "(function () {\n"
    "'use strict';\n"
    "var body = document.body;\n"
    "function fail(msg) {\n"
    "  body.setAttribute('data-error', msg);\n"
    "  var e = document.getElementById('gv-error');\n"
    "  e.textContent = 'Script error: ' + msg; e.hidden = false;\n"
    "}\n"
    "window.onerror = function (msg, src, line) { fail(msg + ' (line ' + line + ')'); };\n"
    "var D = JSON.parse(document.getElementById('gv-data').textContent);\n"
    "var P = D.turns, last = P.length - 1, cur = -1, curSpan = null;\n"
    "var NS = 'http://www.w3.org/2000/svg';\n"
    "var svg = document.getElementById('gv-board');\n"
    "function num(e, a) { return parseFloat(e.getAttribute('data-' + a)); }\n"
    "var N = num(svg, 'n'), C = num(svg, 'cell'), X0 = num(svg, 'x0'), Y0 = num(svg, 'y0');\n"
    "function cx(f) { return X0 + (f + 0.5) * C; }\n"
    "function cy(r) { return Y0 + (N - 0.5 - r) * C; }\n"
    "function fx(sq) { return sq % N; }\n"
    "function ry(sq) { return Math.floor(sq / N); }\n"
    "function el(tag, at, parent, text) {\n"
    "  var e = document.createElementNS(NS, tag);\n"
    "  for (var k in at) e.setAttribute(k, at[k]);\n"
    "  if (text !== undefined) e.textContent = text;\n"
    "  parent.appendChild(e); return e;\n"
    "}\n"
    "function add(parent, tag, cls, text) {\n"
    "  var e = document.createElement(tag);\n"
    "  if (cls) e.className = cls;\n"
    "  if (text !== undefined) e.textContent = text;\n"
    "  parent.appendChild(e); return e;\n"
    "}\n"
    "var gHl = svg.querySelector('.hl'), gPc = svg.querySelector('.pieces'),\n"
    "    gMk = svg.querySelector('.marks');\n"
    "var gobs = D.game === 'gobs';\n"
    "function fields(k) { return P[k].p.split(' '); }\n"
    "function pieces(pos) {\n"
    "  var rows = pos.split(' ')[gobs ? 1 : 0].split('/'), out = [];\n"
    "  for (var i = 0; i < rows.length; i++) {\n"
    "    var row = rows[i], rank = N - 1 - i, file = 0;\n"
    "    for (var j = 0; j < row.length; j++) {\n"
    "      var ch = row.charAt(j), grp = ch, href;\n"
    "      if (ch >= '1' && ch <= '9') { file += +ch; continue; }\n"
    "      if (ch === '(') { var e = row.indexOf(')', j); grp = row.substring(j + 1, e); j = e; }\n"
    "      if (gobs) href = '#gb-' + ch;\n"
    "      else {\n"
    "        var r = 0, s = 0;\n"
    "        for (var k = 0; k < grp.length; k++)\n"
    "          if (grp.charAt(k).toLowerCase() === 'r') r++; else s++;\n"
    "        href = '#gk-' + (grp.charAt(0) < 'a' ? 'w' : 'b') + r + s;\n"
    "      }\n"
    "      out.push([rank * N + file, href]); file++;\n"
    "    }\n"
    "  }\n"
    "  return out;\n"
    "}\n"
    "function draw(k) {\n"
    "  var p = P[k], m = p.k || [], a = p.a || [], i, tinted = {};\n"
    "  gHl.textContent = ''; gPc.textContent = ''; gMk.textContent = '';\n"
    "  for (i = 0; i < m.length; i += 2) {\n"
    "    var t = m[i] & 7, cls = t === 1 ? 'hf' : t === 2 ? 'ht' : t === 4 ? 'hd' : '';\n"
    "    if (!cls || (t === 4 && tinted[m[i + 1]])) continue;\n"
    "    if (t === 4) tinted[m[i + 1]] = 1;\n"
    "    el('rect', {'class': cls, x: X0 + fx(m[i + 1]) * C, y: Y0 + (N - 1 - ry(m[i + 1])) * C,\n"
    "                width: C, height: C}, gHl);\n"
    "  }\n"
    "  pieces(p.p).forEach(function (q) {\n"
    "    el('use', {href: q[1], x: cx(fx(q[0])), y: cy(ry(q[0]))}, gPc);\n"
    "  });\n"
    "  if (a.length >= 4) {\n"
    "    var xs = [], ys = [];\n"
    "    for (i = 0; i < a.length; i += 2) { xs.push(cx(a[i])); ys.push(cy(a[i + 1])); }\n"
    "    var e = xs.length - 1, dx = xs[e] - xs[e - 1], dy = ys[e] - ys[e - 1];\n"
    "    var len = Math.sqrt(dx * dx + dy * dy), cut = p.x ? 0 : 0.34 * C;\n"
    "    if (len > 2 * cut && len > 0) { xs[e] -= dx / len * cut; ys[e] -= dy / len * cut; }\n"
    "    var pts = xs.map(function (x, j) { return x.toFixed(1) + ',' + ys[j].toFixed(1); });\n"
    "    el('polyline', {'class': 'arrow', 'stroke-width': (0.12 * C).toFixed(1),\n"
    "                    'marker-end': 'url(#gv-ah)', points: pts.join(' ')}, gMk);\n"
    "    if (p.x) el('text', {'class': 'out', x: xs[e] + 0.16 * C,\n"
    "                         y: ys[e] + (ys[e] < Y0 ? 0.25 : -0.02) * C}, gMk, 'Out');\n"
    "  }\n"
    "  var slot = {};\n"
    "  for (i = 0; i < m.length; i += 2) {\n"
    "    var c = m[i], kind = c & 7, x = cx(fx(m[i + 1])), y = cy(ry(m[i + 1]));\n"
    "    if (kind === 4) {\n"
    "      var n = (c >> 3) & 3, sl = slot[m[i + 1]] || 0;\n"
    "      slot[m[i + 1]] = sl + 1;\n"
    "      var bx = x - 0.33 * C + sl * 0.3 * C, by = y - 0.33 * C;\n"
    "      el('use', {href: c & 32 ? '#gv-ds' : '#gv-dr', x: bx, y: by}, gMk);\n"
    "      el('text', {'class': 'bt', x: bx, y: by + 3.6}, gMk, String(n));\n"
    "    } else if (kind === 3) {\n"
    "      el('use', {href: '#gv-cx', x: x + 0.33 * C, y: y - 0.33 * C}, gMk);\n"
    "    } else if (kind === 5 || kind === 6) {\n"
    "      el('circle', {'class': kind === 5 ? 'flip' : 'place', cx: x, cy: y, r: 0.44 * C}, "
    "gMk);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "var list = document.getElementById('gv-moves'), spans = [null], row = null;\n"
    "var tbl = add(list, 'table', 'ml');\n"
    "for (var k = 1; k <= last; k++) {\n"
    "  var q = P[k];\n"
    "  if (!row || q.s === 0 || row.no !== q.n) {\n"
    "    row = add(tbl, 'tr'); row.no = q.n;\n"
    "    add(row, 'td', 'no', q.n + '.'); add(row, 'td'); add(row, 'td');\n"
    "    if (q.s === 1) add(row.cells[1], 'span', 'muted', '\\u2026');\n"
    "  }\n"
    "  var sp = add(row.cells[1 + q.s], 'span', 'mv', q.m);\n"
    "  sp.setAttribute('data-turn', k);\n"
    "  sp.title = 'turn ' + k;\n"
    "  sp.onclick = (function (j) { return function () { go(j); }; })(k);\n"
    "  spans.push(sp);\n"
    "}\n"
    "if (!last) add(list, 'p', 'muted', 'no moves');\n"
    "var KIND = ['', 'random opening move', 'opening book move', 'the only legal action'];\n"
    "var SIDE = ['White', 'Black'];\n"
    "function signed(v) { return (v >= 0 ? '+' : '\\u2212') + Math.abs(v).toFixed(2); }\n"
    "var sbox = document.getElementById('gv-search');\n"
    "function search(k) {\n"
    "  if (!sbox) return;\n"
    "  sbox.textContent = '';\n"
    "  var nx = P[k + 1];\n"
    "  if (!nx) { add(sbox, 'p', 'muted', 'The game is over: ' + D.end + '.'); return; }\n"
    "  var ds = nx.d || [];\n"
    "  add(sbox, 'p', '', 'Move ' + nx.n + (nx.s ? '\\u2026 ' : '. ') + nx.m + ' (' + "
    "SIDE[nx.s] +\n"
    "      ') was chosen from here.');\n"
    "  ds.forEach(function (d, j) {\n"
    "    var box = add(sbox, 'div', 'dec');\n"
    "    var head = ds.length > 1 ? 'Action ' + (j + 1) + ' (' + d.a + '): ' : '';\n"
    "    if (d.k) { add(box, 'p', 'muted', head + KIND[d.k] + ', no search.'); return; }\n"
    "    add(box, 'p', '', head + 'value ' + signed(d.v) + ' for ' + SIDE[nx.s] + ' (' +\n"
    "        Math.round(50 * (d.v + 1)) + '% expected), ' + d.n + ' visits, ' + d.l + ' legal "
    "actions');\n"
    "    var t = add(box, 'table', 'top');\n"
    "    d.t.forEach(function (c) {\n"
    "      var tr = add(t, 'tr', c[0] === d.a ? 'played' : '');\n"
    "      var share = d.n ? c[1] / d.n : 0;\n"
    "      add(tr, 'td', 'mvn', c[0]);\n"
    "      add(add(tr, 'td', 'barc'), 'div', 'bar').style.width = (100 * share).toFixed(1) + "
    "'%';\n"
    "      add(tr, 'td', 'pct', (100 * share).toFixed(1) + '%');\n"
    "      add(tr, 'td', 'vis', String(c[1]));\n"
    "    });\n"
    "  });\n"
    "}\n"
    "var graph = document.getElementById('gv-graph'), cursor = null;\n"
    "if (graph) {\n"
    "  cursor = document.getElementById('gv-cur');\n"
    "  var gx0 = num(graph, 'x0'), gw = num(graph, 'w'), gn = num(graph, 'n');\n"
    "  graph.addEventListener('click', function (ev) {\n"
    "    var r = graph.getBoundingClientRect(), vb = graph.viewBox.baseVal;\n"
    "    var x = (ev.clientX - r.left) * vb.width / r.width;\n"
    "    go(Math.round((x - gx0) / gw * gn));\n"
    "  });\n"
    "}\n"
    "var status = document.getElementById('gv-status'), posEl = "
    "document.getElementById('gv-pos');\n"
    "var comment = document.getElementById('gv-comment');\n"
    "function go(k) {\n"
    "  k = Math.max(0, Math.min(last, k));\n"
    "  cur = k;\n"
    "  draw(k);\n"
    "  var f = fields(k), side = f[gobs ? 2 : 1] === 'w' ? 'White' : 'Black';\n"
    "  status.textContent = 'turn ' + k + ' of ' + last + ' \\u00b7 ' +\n"
    "      (k === last && D.end ? D.end : side + ' to move');\n"
    "  posEl.textContent = P[k].p;\n"
    "  comment.textContent = P[k].c || '';\n"
    "  if (curSpan) curSpan.classList.remove('cur');\n"
    "  curSpan = spans[k];\n"
    "  if (curSpan) {\n"
    "    curSpan.classList.add('cur');\n"
    "    var lr = list.getBoundingClientRect(), sr = curSpan.getBoundingClientRect();\n"
    "    if (sr.top < lr.top) list.scrollTop -= lr.top - sr.top + 6;\n"
    "    else if (sr.bottom > lr.bottom) list.scrollTop += sr.bottom - lr.bottom + 6;\n"
    "  } else list.scrollTop = 0;\n"
    "  search(k);\n"
    "  if (cursor) {\n"
    "    var x = (gx0 + gw * k / Math.max(gn, 1)).toFixed(1);\n"
    "    cursor.setAttribute('x1', x); cursor.setAttribute('x2', x);\n"
    "  }\n"
    "  body.setAttribute('data-turn', k);\n"
    "  try { history.replaceState(null, '', '#turn=' + k); } catch (e) { }\n"
    "}\n"
    "function on(id, f) { document.getElementById(id).onclick = f; }\n"
    "on('gv-first', function () { go(0); });\n"
    "on('gv-prev', function () { go(cur - 1); });\n"
    "on('gv-next', function () { go(cur + 1); });\n"
    "on('gv-last', function () { go(last); });\n"
    "document.addEventListener('keydown', function (ev) {\n"
    "  var k = {ArrowLeft: cur - 1, ArrowRight: cur + 1, Home: 0, End: last,\n"
    "           PageUp: cur - 10, PageDown: cur + 10}[ev.key];\n"
    "  if (k === undefined || ev.altKey || ev.ctrlKey || ev.metaKey) return;\n"
    "  ev.preventDefault();\n"
    "  go(k);\n"
    "});\n"
    "var h = /(?:turn|ply)=(\\d+)/.exec(location.hash); /* #ply=N: the old name */\n"
    "go(h ? +h[1] : 0);\n"
    "body.setAttribute('data-turns', last);\n"
    "body.setAttribute('data-ok', '1');\n"
    "})();\n";

/* ------------------------------------------------------------------ replay */

typedef struct page {
    const view_game_t *g;
    const gk_game_t *gm;
    gk_sb_t data;    /* the JSON of the turns */
    double *value;   /* per turn (position after t turns): White's root value, NaN if none */
    uint32_t nturns; /* turns played */
    uint32_t vcap;
    gk_pos_t final; /* after the last action, the game's end applied */
    bool has_stats;
} page_t;

/* Top children shown per decision (logs keep up to GL_MAX_TOP). */
#define TOP_SHOWN 6

static int legal_in(const gk_action_t *list, int n, gk_action_t a) {
    for (int i = 0; i < n; i++)
        if (list[i] == a) return 1;
    return 0;
}

/* The decision of action i (played from p, whose legal actions are list[0..nl)), as JSON
 * into b; *value gets White's root value when it is still unknown for this turn. */
static int put_decision(gk_sb_t *b, const page_t *pg, const gk_pos_t *p, uint32_t i,
                        const gk_action_t *list, int nl, double *value, char *err, size_t errcap) {
    const view_game_t *g = pg->g;
    const gl_action_stats_t *st = &g->stats[i];
    char t[GK_MOVE_TEXT_MAX];
    int kind = st->kind < GL_NACTION_KINDS ? st->kind : GL_ACTION_SEARCH;
    gk_sb_printf(b, "{\"k\":%d,\"a\":", kind);
    if (pg->gm->action_text(p, g->action[i], t, sizeof t) < 0) snprintf(t, sizeof t, "?");
    gk_sb_put_json_script(b, t);
    if (kind == GL_ACTION_SEARCH) {
        double v = isfinite(st->value) ? st->value : 0;
        if (v > 1) v = 1;
        if (v < -1) v = -1;
        gk_sb_printf(b, ",\"v\":%.3f,\"n\":%u,\"l\":%d,\"t\":[", v, st->visits, nl);
        GK_RETURN_IF((uint64_t)st->first + st->ntop > g->nchild, err, errcap, GK_E_ARG,
                     "action %u: its %u top children are past the %u children given", i + 1,
                     st->ntop, g->nchild);
        for (int c = 0; c < st->ntop && c < TOP_SHOWN; c++) {
            const gl_child_t *ch = &g->child[st->first + c];
            GK_RETURN_IF(!legal_in(list, nl, ch->action), err, errcap, GK_E_ARG,
                         "action %u: a top child is not a legal action there", i + 1);
            if (pg->gm->action_text(p, ch->action, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
            gk_sb_puts(b, c ? ",[" : "[");
            gk_sb_put_json_script(b, t);
            gk_sb_printf(b, ",%u]", ch->visits);
        }
        gk_sb_puts(b, "]");
        if (isnan(*value)) *value = p->stm == GK_WHITE ? v : -v;
    }
    gk_sb_puts(b, "}");
    return GK_OK;
}

static void put_marks(gk_sb_t *b, const view_marks_t *m) {
    /* pairs (code, square): code = kind | drop number << 3 | square drop << 5 */
    gk_sb_puts(b, ",\"k\":[");
    for (int i = 0; i < m->nmarks; i++)
        gk_sb_printf(b, "%s%d,%d", i ? "," : "",
                     m->mark[i].kind | m->mark[i].n << 3 | m->mark[i].square << 5, m->mark[i].sq);
    gk_sb_puts(b, "],\"a\":[");
    for (int i = 0; i < m->npts; i++)
        gk_sb_printf(b, "%s%g,%g", i ? "," : "", m->pt[2 * i], m->pt[2 * i + 1]);
    gk_sb_puts(b, "]");
    if (m->exit) gk_sb_puts(b, ",\"x\":1");
}

static void put_pos(page_t *pg, const gk_pos_t *p) {
    char t[GK_POS_TEXT_MAX];
    if (pg->gm->pos_to_text(p, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
    gk_sb_puts(&pg->data, "\"p\":");
    gk_sb_put_json_script(&pg->data, t);
}

static int grow_values(page_t *pg) {
    if (pg->nturns + 2 <= pg->vcap) return GK_OK;
    uint32_t cap = pg->vcap ? 2 * pg->vcap : 256;
    double *v = realloc(pg->value, cap * sizeof *v);
    if (!v) return GK_E_NOMEM;
    pg->value = v;
    pg->vcap = cap;
    return GK_OK;
}

/* Plays the actions of one turn from p (the next is g->action[*i]), checking each, with
 * the JSON of their decisions into dec.  Fills seq[0..*n). */
static int play_turn(page_t *pg, gk_pos_t *p, gk_hist_t *hist, uint32_t *i, gk_action_t *seq,
                     int *n, gk_action_t *list, gk_sb_t *dec, char *err, size_t errcap) {
    const view_game_t *g = pg->g;
    *n = 0;
    do {
        gk_action_t a = g->action[*i];
        int nl = gk_over(p) ? 0 : gk_gen(p, list);
        GK_RETURN_IF(gk_over(p), err, errcap, GK_E_REPLAY,
                     "action %u comes after the end of the game (turn %u)", *i + 1,
                     (unsigned)p->turn);
        GK_RETURN_IF(!legal_in(list, nl, a) || *n >= GK_MAX_TURN, err, errcap, GK_E_REPLAY,
                     "action %u (turn %u) is not legal there", *i + 1, (unsigned)p->turn + 1);
        if (g->stats) {
            if (*n) gk_sb_putc(dec, ',');
            GK_FORWARD_IF(
                put_decision(dec, pg, p, *i, list, nl, &pg->value[pg->nturns], err, errcap));
        }
        seq[(*n)++] = a;
        gk_play_turn(p, hist, a);
        (*i)++;
    } while (*i < g->nactions && p->in_turn != 0 && !gk_over(p));
    return GK_OK;
}

/* Replays the actions turn by turn, writing the JSON of every turn. */
static int replay(page_t *pg, char *err, size_t errcap) {
    const view_game_t *g = pg->g;
    gk_hist_t *hist = malloc(sizeof *hist);
    gk_action_t *list = malloc(GK_MAX_ACTIONS * sizeof *list);
    view_marks_t *marks = malloc(sizeof *marks);
    gk_sb_t dec, *b = &pg->data;
    gk_sb_growing(&dec);
    int rc = GK_OK;
    if (!hist || !list || !marks || grow_values(pg)) {
        rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        goto out;
    }
    gk_pos_t p = g->start;
    gk_hist_init(hist, &p);
    gk_sb_printf(b, "{\"game\":\"%s\",\"turns\":[{", pg->gm->name);
    put_pos(pg, &p);
    gk_sb_puts(b, "}");
    pg->nturns = 0;
    pg->value[0] = NAN;
    for (uint32_t i = 0; i < g->nactions;) {
        gk_pos_t before = p;
        gk_action_t seq[GK_MAX_TURN];
        int n = 0;
        if (grow_values(pg)) {
            rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            goto out;
        }
        pg->value[pg->nturns] = NAN;
        dec.n = 0;
        if ((rc = play_turn(pg, &p, hist, &i, seq, &n, list, &dec, err, errcap))) goto out;
        char t[GK_MOVE_TEXT_MAX];
        if (pg->gm->move_text(&before, seq, n, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
        view_marks_of(&before, seq, n, marks);
        gk_sb_printf(b, ",\n{\"m\":");
        gk_sb_put_json_script(b, t);
        gk_sb_printf(b, ",\"s\":%d,\"n\":%u,", before.stm, (unsigned)before.turn / 2 + 1);
        put_pos(pg, &p);
        put_marks(b, marks);
        if (g->stats) {
            gk_sb_puts(b, ",\"d\":[");
            gk_sb_put(b, dec.p ? dec.p : "", dec.n);
            gk_sb_puts(b, "]");
        }
        if (g->comment && pg->nturns < g->ncomment && g->comment[pg->nturns]) {
            gk_sb_puts(b, ",\"c\":");
            gk_sb_put_json_script(b, g->comment[pg->nturns]);
        }
        gk_sb_puts(b, "}");
        pg->nturns++;
    }
    pg->value[pg->nturns] = NAN;
    if (!gk_over(&p) && gk_gen(&p, list) == 0) gk_apply_no_move(&p);
    if (!gk_over(&p) && g->result != GK_ONGOING) {
        p.result = (uint8_t)g->result;
        p.reason = (uint8_t)g->reason;
    }
    pg->final = p;
    gk_sb_puts(b, "]");
    if (dec.over) rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
out:
    gk_sb_free(&dec);
    free(hist);
    free(list);
    free(marks);
    return rc;
}

/* ------------------------------------------------------------------ the page */

static void end_text(const gk_pos_t *p, char *buf, size_t cap) {
    if (!gk_over(p)) {
        snprintf(buf, cap, "game not over");
        return;
    }
    const char *who = p->result == GK_WIN_WHITE   ? "White wins"
                      : p->result == GK_WIN_BLACK ? "Black wins"
                                                  : "draw";
    if (p->reason == GK_REASON_NONE)
        snprintf(buf, cap, "%s %s", gk_result_text((gk_result_t)p->result), who);
    else
        snprintf(buf, cap, "%s %s by %s", gk_result_text((gk_result_t)p->result), who,
                 gk_reason_text((gk_reason_t)p->reason));
}

/* Root value per turn from White's side: a line over a shaded area, a zero line, and a
 * cursor that the script moves.  Clicks pick the nearest turn. */
static void value_graph(gk_sb_t *b, const page_t *pg) {
    int n = (int)pg->nturns;
    vg_plot_t pl = {.x0 = 54,
                    .y0 = 14,
                    .w = 820,
                    .h = 120,
                    .xlo = 0,
                    .xhi = n > 0 ? n : 1,
                    .ylo = -1,
                    .yhi = 1,
                    .ytick = 0.5,
                    .xlabel = "turn",
                    .ylabel = "value"};
    double xt[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000};
    pl.xtick = xt[0];
    for (size_t i = 0; i < sizeof xt / sizeof *xt && pl.xhi / xt[i] > 12; i++)
        pl.xtick = i + 1 < sizeof xt / sizeof *xt ? xt[i + 1] : xt[i];
    gk_sb_printf(b,
                 "<svg id='gv-graph' xmlns='http://www.w3.org/2000/svg' width='900' height='172' "
                 "viewBox='0 0 900 172' font-family='DejaVu Sans, Verdana, sans-serif' "
                 "data-x0='%g' data-w='%g' data-n='%d'>\n",
                 pl.x0, pl.w, n > 0 ? n : 1);
    gk_sb_puts(b, "<style>.gl{font-size:11px;fill:#7a6650}.gt{font-size:11px;fill:#7a6650;"
                  "text-anchor:end}.gx{font-size:11px;fill:#7a6650;text-anchor:middle}"
                  "</style>\n");
    vg_plot_frame(b, &pl);
    /* shaded area between the value and zero, in runs of known values */
    double *x = malloc(((size_t)n + 1) * sizeof *x);
    if (!x) {
        b->over = true;
        return;
    }
    for (int i = 0; i <= n; i++) x[i] = i;
    for (int i = 0; i <= n;) {
        while (i <= n && isnan(pg->value[i])) i++;
        int j = i;
        while (j <= n && !isnan(pg->value[j])) j++;
        if (j - i >= 1) {
            gk_sb_printf(b, "<polygon fill='#5d8fd6' fill-opacity='.16' points='%.1f,%.1f",
                         vg_px(&pl, i), vg_py(&pl, 0));
            for (int k = i; k < j; k++)
                gk_sb_printf(b, " %.1f,%.1f", vg_px(&pl, k), vg_py(&pl, pg->value[k]));
            gk_sb_printf(b, " %.1f,%.1f'/>\n", vg_px(&pl, j - 1), vg_py(&pl, 0));
        }
        i = j;
    }
    gk_sb_printf(b, "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#8a7a66'/>\n", pl.x0,
                 pl.x0 + pl.w, vg_py(&pl, 0), vg_py(&pl, 0));
    vg_plot_line(b, &pl, x, pg->value, n + 1, false,
                 "fill='none' stroke='#2f5fa8' stroke-width='1.8' stroke-linejoin='round' "
                 "class='vline'");
    gk_sb_printf(b,
                 "<text class='gl' x='%.1f' y='%.1f'>White better</text><text class='gl' "
                 "x='%.1f' y='%.1f'>Black better</text>\n",
                 pl.x0 + 6, pl.y0 + 12, pl.x0 + 6, pl.y0 + pl.h - 5);
    gk_sb_printf(b,
                 "<line id='gv-cur' x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#de5f0b' "
                 "stroke-width='2'/>\n</svg>\n",
                 pl.x0, pl.x0, pl.y0, pl.y0 + pl.h);
    free(x);
}

static void put_header(gk_sb_t *b, const page_t *pg, const char *title) {
    const view_game_t *g = pg->g;
    char name[64], end[96];
    vg_game_name(&g->start, name, sizeof name);
    end_text(&pg->final, end, sizeof end);
    gk_sb_puts(b, "<header><h1>");
    gk_sb_put_xml(b, title);
    gk_sb_puts(b, "</h1><div class='sub'>");
    gk_sb_put_xml(b, name);
    gk_sb_printf(b, " \xc2\xb7 %u moves \xc2\xb7 ", pg->nturns);
    gk_sb_put_xml(b, end);
    gk_sb_puts(b, "</div>");
    if (g->ntags > 0) {
        gk_sb_puts(b, "<div class='tags'>");
        for (int i = 0; i < g->ntags; i++) {
            gk_sb_puts(b, "<span><b>");
            gk_sb_put_xml(b, g->tag[2 * i] ? g->tag[2 * i] : "");
            gk_sb_puts(b, "</b> ");
            gk_sb_put_xml(b, g->tag[2 * i + 1] ? g->tag[2 * i + 1] : "");
            gk_sb_puts(b, "</span>");
        }
        gk_sb_puts(b, "</div>");
    }
    gk_sb_puts(b, "</header>\n<p id='gv-error' hidden></p>\n");
}

int view_game_html(gk_sb_t *out, const view_game_t *g, char *err, size_t errcap) {
    const gk_game_t *gm = gk_game_of(&g->start);
    GK_RETURN_IF(!gm, err, errcap, GK_E_ARG, "unknown game %d", g->start.game);
    GK_RETURN_IF(g->nactions && !g->action, err, errcap, GK_E_ARG, "no actions given");
    GK_RETURN_IF(g->stats && g->nchild && !g->child, err, errcap, GK_E_ARG, "no children given");
    page_t pg = {.g = g, .gm = gm};
    gk_sb_growing(&pg.data);
    int rc = replay(&pg, err, errcap);
    if (rc) {
        gk_sb_free(&pg.data);
        free(pg.value);
        return rc;
    }
    bool values = false;
    for (uint32_t i = 0; i <= pg.nturns; i++) values |= !isnan(pg.value[i]);

    char name[64], end[96];
    vg_game_name(&g->start, name, sizeof name);
    end_text(&pg.final, end, sizeof end);
    const char *title = g->title && *g->title ? g->title : NULL;
    char deftitle[96];
    if (!title) {
        snprintf(deftitle, sizeof deftitle, "%s game", name);
        title = deftitle;
    }
    gk_sb_puts(out, "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<meta "
                    "name='viewport' content='width=device-width, initial-scale=1'>\n<title>");
    gk_sb_put_xml(out, title);
    gk_sb_printf(out, "</title>\n<style>\n%s</style></head>\n<body>\n", page_css);
    put_header(out, &pg, title);
    gk_sb_puts(out, "<main><section id='gv-left'>\n");

    /* The board: squares and coordinates drawn here, pieces and marks by the script. */
    vg_geom_t geo;
    view_board_opts_t bo = {.no_title = true, .no_caption = true};
    vg_geom_init(&geo, g->start.game, g->start.game == GK_GAME_GOUNKI, &bo);
    gk_sb_t svg;
    gk_sb_growing(&svg);
    vg_svg_open(&svg, &geo, name);
    vg_piece_defs(&svg, &geo);
    vg_board(&svg, &geo);
    gk_sb_puts(&svg, "<g class='hl'></g><g class='pieces'></g><g class='marks'></g></svg>\n");
    /* the id goes on the outer element: vg_svg_open() writes a bare <svg */
    gk_sb_puts(out, "<svg id='gv-board'");
    gk_sb_put(out, svg.p + 4, svg.n - 4);
    gk_sb_free(&svg);

    gk_sb_puts(out, "<div class='controls'><button id='gv-first' title='first (Home)'>"
                    "&#171;</button><button id='gv-prev' title='previous (Left)'>&#8249;</button>"
                    "<button id='gv-next' title='next (Right)'>&#8250;</button><button "
                    "id='gv-last' title='last (End)'>&#187;</button><span id='gv-status'>"
                    "</span></div>\n<code id='gv-pos'></code>\n<p id='gv-comment'></p>\n"
                    "</section>\n<section id='gv-right'><h2>Moves</h2><div id='gv-moves'>"
                    "</div>\n");
    if (g->stats) gk_sb_puts(out, "<h2>Search</h2><div id='gv-search'></div>\n");
    gk_sb_puts(out, "</section></main>\n");
    if (values) {
        gk_sb_puts(out, "<section id='gv-graph-box'><h2>Root value per turn (the search's "
                        "view, White's side; click to jump)</h2>\n");
        value_graph(out, &pg);
        gk_sb_puts(out, "</section>\n");
    }
    gk_sb_puts(out, "<footer>Keys: Left/Right step, Home/End, PageUp/PageDown ten turns. "
                    "Made by gounki.</footer>\n<script type='application/json' id='gv-data'>");
    gk_sb_put(out, pg.data.p ? pg.data.p : "", pg.data.n);
    gk_sb_puts(out, ",\"end\":");
    gk_sb_put_json_script(out, gk_over(&pg.final) ? end : "");
    gk_sb_printf(out, "}</script>\n<script>\n%s</script>\n</body></html>\n", page_js);
    bool over = pg.data.over;
    gk_sb_free(&pg.data);
    free(pg.value);
    GK_RETURN_IF(over || out->over, err, errcap, GK_E_NOMEM, "out of memory");
    return GK_OK;
}

/* ------------------------------------------------------------------ self-play logs */

int view_gamelog_html(gk_sb_t *out, const gl_game_t *lg, const char *title, char *err,
                      size_t errcap) {
    const gk_game_t *gm = gk_game_by_id(lg->rules.game);
    GK_RETURN_IF(!gm, err, errcap, GK_E_ARG, "unknown game %d", lg->rules.game);
    view_game_t g = {0};
    gm->setup(&g.start, &lg->rules);
    g.action = lg->action;
    g.nactions = lg->nactions;
    if (lg->has_stats) {
        g.stats = lg->stats;
        g.child = lg->child;
        g.nchild = lg->nchild;
    }
    g.result = (gk_result_t)lg->result;
    g.reason = (gk_reason_t)lg->reason;
    char deftitle[64];
    snprintf(deftitle, sizeof deftitle, "Self-play game %llu", (unsigned long long)lg->index);
    g.title = title && *title ? title : deftitle;

    char v[8][128];
    const char *tags[16];
    int nt = 0;
#define TAG(name, ...)                                                                             \
    do {                                                                                           \
        snprintf(v[nt], sizeof v[nt], __VA_ARGS__);                                                \
        tags[2 * nt] = name;                                                                       \
        tags[2 * nt + 1] = v[nt];                                                                  \
        nt++;                                                                                      \
    } while (0)
    TAG("Game", "%llu", (unsigned long long)lg->index);
    TAG("Seed", "%llu", (unsigned long long)lg->seed);
    TAG("Engine", "%.*s", GL_ENGINE_MAX, lg->engine);
    TAG("Weights", "%016llx", (unsigned long long)lg->weights_hash);
    if (lg->set.playouts)
        TAG("Search", "%u playouts, %u thread(s)", lg->set.playouts, lg->set.threads_per_game);
    else
        TAG("Search", "%u ms, %u thread(s)", lg->set.time_ms, lg->set.threads_per_game);
    TAG("Opening", "%u turns %s, temperature %g for %u turns", lg->set.open_turns,
        lg->set.open_kind == GL_OPEN_BOOK     ? "from a book"
        : lg->set.open_kind == GL_OPEN_POLICY ? "from the policy"
        : lg->set.open_kind == GL_OPEN_NONE   ? "(none)"
                                              : "random",
        (double)lg->set.temperature, lg->set.temp_turns);
    TAG("Time", "%.1f s", lg->time_ms / 1000.0);
    if (lg->resign_at)
        TAG("Resignation", "%s %s at action %u", lg->resign_side ? "Black" : "White",
            lg->flags & GL_FLAG_PLAYOUT ? "would have resigned" : "resigned", lg->resign_at);
#undef TAG
    g.tag = tags;
    g.ntags = nt;
    return view_game_html(out, &g, err, errcap);
}

int view_gamelog_write(const char *path, const gl_game_t *g, const char *title, char *err,
                       size_t errcap) {
    gk_sb_t b;
    gk_sb_growing(&b);
    int rc = view_gamelog_html(&b, g, title, err, errcap);
    if (!rc) rc = view_write(path, &b, err, errcap);
    gk_sb_free(&b);
    return rc;
}
