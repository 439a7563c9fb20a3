/*
 * games/record.c -- reading and writing game records, for any game of game.h.
 *
 * Reading is two passes: a lexer cuts the text into tags, words, move numbers and
 * result tokens (comments dropped), then the words are matched against the legal moves
 * of the position as the game goes on.  Moves may contain spaces, so the words of a
 * move are found by trying the shortest run of words of one line that parses.
 */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "../common/status.h"

enum { IT_TAG, IT_WORD, IT_NUMBER, IT_RESULT };

typedef struct {
    int kind;
    int line;       /* 1-based */
    int tab_before; /* a TAB separates it from the previous word of its line */
    int first;      /* first item of its line */
    const char *s;  /* the text (words, numbers, results) */
    int len;
    long number; /* IT_NUMBER */
    int tag;     /* IT_TAG: index into lex_t.tags */
} item_t;

typedef struct {
    item_t *v;
    int n, cap;
    gk_tag_t *tags;
    int ntags, cap_tags;
    const char *text; /* start of the text, for the header row */
    size_t len;
} lex_t;

#define MAX_RUN 12

static int is_ws(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int push_item(lex_t *L, const item_t *it) {
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 256;
        item_t *v = realloc(L->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        L->v = v, L->cap = cap;
    }
    L->v[L->n++] = *it;
    return 0;
}

static int tag_name_ok(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_result(const char *s, int len) {
    return len == 1 && s[0] == '*';
}

/* One side's score at s: 1 (win), 0 (loss) or 2 (a half: "1/2" or UTF-8 "½"), with its
 * length in *len; -1 when none. */
static int score_at(const char *s, size_t n, size_t *len) {
    if (n >= 3 && !memcmp(s, "1/2", 3)) return *len = 3, 2;
    if (n >= 2 && !memcmp(s, "\xC2\xBD", 2)) return *len = 2, 2;
    if (n >= 1 && (s[0] == '0' || s[0] == '1')) return *len = 1, s[0] - '0';
    return -1;
}

/*
 * A decisive or drawn result at s[0..n): "1-0", "0-1", "1/2-1/2" or "½-½", with up to
 * three spaces or TABs on each side of the dash ("1 - 0": gounki.org), ending at white
 * space, a comment or the end.  Returns its length and its meaning in *res, or 0.
 */
static size_t result_at(const char *s, size_t n, int *res) {
    size_t i, l;
    int a = score_at(s, n, &l);
    if (a < 0) return 0;
    i = l;
    for (int k = 0; k < 3 && i < n && (s[i] == ' ' || s[i] == '\t'); k++) i++;
    if (i >= n || s[i] != '-') return 0;
    i++;
    for (int k = 0; k < 3 && i < n && (s[i] == ' ' || s[i] == '\t'); k++) i++;
    int b = score_at(s + i, n - i, &l);
    if (b < 0) return 0;
    i += l;
    if (i < n && !is_ws(s[i]) && s[i] != '{' && s[i] != ';') return 0;
    if (a == 1 && b == 0)
        *res = GK_WIN_WHITE;
    else if (a == 0 && b == 1)
        *res = GK_WIN_BLACK;
    else if (a == 2 && b == 2)
        *res = GK_DRAW;
    else
        return 0;
    return i;
}

#define LEX_FAIL(...) return gk_fail(err, errcap, GK_E_INVALID, __VA_ARGS__)

/* Cuts text into items.  Returns 0 or -1 with err. */
static int lex(lex_t *L, const char *text, size_t len, char *err, size_t errcap) {
    size_t i = 0;
    int line = 1, first = 1, tab = 0;
    L->text = text, L->len = len;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3; /* UTF-8 byte order mark */
    while (i < len) {
        char c = text[i];
        if (c == '\n') {
            line++, first = 1, tab = 0, i++;
            continue;
        }
        if (is_ws(c)) {
            tab |= c == '\t';
            i++;
            continue;
        }
        if (c == 0) LEX_FAIL("line %d: NUL byte in the record", line);
        if (c == '{') { /* comment up to the matching '}' (no nesting) */
            int l0 = line;
            while (i < len && text[i] != '}') line += text[i++] == '\n';
            if (i >= len) LEX_FAIL("line %d: comment '{' is never closed", l0);
            i++;
            continue;
        }
        if (c == ';') {
            while (i < len && text[i] != '\n') i++;
            continue;
        }
        item_t it = {.line = line, .tab_before = tab, .first = first};
        first = 0, tab = 0;
        if (c == '[') {
            /* [Name "value"] with \" and \\ escapes. */
            gk_tag_t t;
            size_t k = 0;
            i++;
            while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
            while (i < len && tag_name_ok((unsigned char)text[i])) {
                if (k + 1 >= sizeof t.name) LEX_FAIL("line %d: tag name too long", line);
                t.name[k++] = text[i++];
            }
            t.name[k] = 0;
            if (!k) LEX_FAIL("line %d: '[' must start a tag like [White \"name\"]", line);
            while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
            if (i >= len || text[i] != '"')
                LEX_FAIL("line %d: tag %s: expected '\"'", line, t.name);
            i++, k = 0;
            for (;;) {
                if (i >= len || text[i] == '\n' || text[i] == 0)
                    LEX_FAIL("line %d: tag %s: value not closed by '\"'", line, t.name);
                char v = text[i++];
                if (v == '"') break;
                if (v == '\\' && i < len && (text[i] == '"' || text[i] == '\\')) v = text[i++];
                if (k + 1 >= sizeof t.value)
                    LEX_FAIL("line %d: tag %s: value too long", line, t.name);
                t.value[k++] = v;
            }
            t.value[k] = 0;
            while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
            if (i >= len || text[i] != ']') LEX_FAIL("line %d: tag %s: expected ']'", line, t.name);
            i++;
            if (L->ntags == L->cap_tags) {
                int cap = L->cap_tags ? 2 * L->cap_tags : 16;
                gk_tag_t *v = realloc(L->tags, (size_t)cap * sizeof *v);
                if (!v) LEX_FAIL("out of memory");
                L->tags = v, L->cap_tags = cap;
            }
            L->tags[L->ntags] = t;
            it.kind = IT_TAG, it.tag = L->ntags++;
            if (push_item(L, &it)) LEX_FAIL("out of memory");
            continue;
        }
        int res;
        size_t rl = result_at(text + i, len - i, &res);
        if (rl) {
            it.kind = IT_RESULT, it.s = text + i, it.len = (int)rl;
            if (push_item(L, &it)) LEX_FAIL("out of memory");
            i += rl;
            continue;
        }
        size_t j = i;
        while (j < len && !is_ws(text[j]) && text[j] != '{' && text[j] != ';' && text[j] != 0) j++;
        it.s = text + i, it.len = (int)(j - i);
        /* An annotation glyph (?, ??, !, !!, ?!, !?) after a move, glued or alone, is dropped:
         * no move of any game ends in one. */
        int gl = 0;
        while (gl < it.len && gl < 3 &&
               (it.s[it.len - 1 - gl] == '?' || it.s[it.len - 1 - gl] == '!'))
            gl++;
        if (gl && gl <= 2) {
            if (gl == it.len) {
                i = j;
                continue;
            }
            it.len -= gl;
        }
        /* A move number: digits then dots, maybe glued to the move ("12.e2-b5"). */
        size_t d = i;
        while (d < j && text[d] >= '0' && text[d] <= '9') d++;
        if (d > i && d < j && text[d] == '.') {
            if (d - i > 6) LEX_FAIL("line %d: move number too large", line);
            long num = 0;
            for (size_t q = i; q < d; q++) num = num * 10 + (text[q] - '0');
            while (d < j && text[d] == '.') d++;
            it.kind = IT_NUMBER, it.number = num, it.len = (int)(d - i);
            if (push_item(L, &it)) LEX_FAIL("out of memory");
            i = d;
            continue;
        }
        int dots = 0;
        while (dots < it.len && it.s[dots] == '.') dots++;
        if (it.len >= 3 && dots == it.len) {
            i = j; /* "..." placeholder for the other side's move */
            continue;
        }
        it.kind = is_result(it.s, it.len) ? IT_RESULT : IT_WORD;
        if (push_item(L, &it)) LEX_FAIL("out of memory");
        i = j;
    }
    return 0;
}

/* ---- the record ---- */

int gk_record_init(gk_record_t *rec, const gk_rules_t *r) {
    memset(rec, 0, sizeof *rec);
    rec->rules = *r;
    rec->hist = malloc(sizeof *rec->hist);
    rec->cap_moves = 64, rec->cap_actions = 128;
    rec->move_start = malloc((size_t)(rec->cap_moves + 1) * sizeof *rec->move_start);
    rec->actions = malloc((size_t)rec->cap_actions * sizeof *rec->actions);
    if (!rec->hist || !rec->move_start || !rec->actions) {
        gk_record_free(rec);
        return -1;
    }
    const gk_game_t *g = gk_game_by_id(r->game);
    if (!g) {
        gk_record_free(rec);
        return -1;
    }
    gk_pos_t p;
    g->setup(&p, r);
    gk_record_set_start(rec, &p);
    return 0;
}

void gk_record_free(gk_record_t *rec) {
    free(rec->hist);
    free(rec->move_start);
    free(rec->actions);
    rec->hist = NULL, rec->move_start = NULL, rec->actions = NULL;
    rec->cap_moves = rec->cap_actions = 0;
    rec->nmoves = 0;
}

void gk_record_set_start(gk_record_t *rec, const gk_pos_t *start) {
    rec->start = *start;
    rec->final = *start;
    rec->rules.game = start->game;
    rec->rules.variant = start->variant;
    rec->rules.turn_limit = start->turn_limit;
    rec->nmoves = 0;
    rec->move_start[0] = 0;
    gk_hist_init(rec->hist, start);
}

int gk_record_push(gk_record_t *rec, const gk_action_t *seq, int n) {
    if (gk_over(&rec->final) || n < 1) return -1;
    int used = rec->move_start[rec->nmoves];
    if (rec->nmoves + 1 > rec->cap_moves) {
        int cap = 2 * rec->cap_moves;
        int *v = realloc(rec->move_start, (size_t)(cap + 1) * sizeof *v);
        if (!v) return -1;
        rec->move_start = v, rec->cap_moves = cap;
    }
    if (used + n > rec->cap_actions) {
        int cap = rec->cap_actions;
        while (used + n > cap) cap *= 2;
        gk_action_t *v = realloc(rec->actions, (size_t)cap * sizeof *v);
        if (!v) return -1;
        rec->actions = v, rec->cap_actions = cap;
    }
    const gk_game_t *g = gk_game_of(&rec->final);
    for (int i = 0; i < n; i++) {
        rec->actions[used + i] = seq[i];
        g->play(&rec->final, seq[i]);
    }
    rec->nmoves++;
    rec->move_start[rec->nmoves] = used + n;
    gk_end_turn(&rec->final, rec->hist);
    return 0;
}

const char *gk_record_tag(const gk_record_t *rec, const char *name) {
    for (int i = 0; i < rec->ntags; i++)
        if (!strcmp(rec->tags[i].name, name)) return rec->tags[i].value;
    return NULL;
}

int gk_record_set_tag(gk_record_t *rec, const char *name, const char *value) {
    size_t ln = strlen(name), lv = strlen(value);
    if (!ln || ln >= GK_TAG_NAME_MAX || lv >= GK_TAG_VALUE_MAX) return -1;
    for (size_t i = 0; i < ln; i++)
        if (!tag_name_ok((unsigned char)name[i])) return -1;
    for (size_t i = 0; i < lv; i++)
        if (value[i] == '\n' || value[i] == '\r') return -1;
    int k = 0;
    while (k < rec->ntags && strcmp(rec->tags[k].name, name)) k++;
    if (k == rec->ntags) {
        if (k >= GK_RECORD_MAX_TAGS) return -1;
        rec->ntags++;
    }
    memcpy(rec->tags[k].name, name, ln + 1);
    memcpy(rec->tags[k].value, value, lv + 1);
    return 0;
}

void gk_record_pos_at(const gk_record_t *rec, int i, gk_pos_t *out) {
    const gk_game_t *g = gk_game_of(&rec->start);
    *out = rec->start;
    for (int a = 0; a < rec->move_start[i]; a++) g->play(out, rec->actions[a]);
}

/* ---- reading ---- */

#define READ_FAIL(...)                                                                             \
    do {                                                                                           \
        gk_fail(err, errcap, GK_E_INVALID, __VA_ARGS__);                                           \
        goto fail;                                                                                 \
    } while (0)

static const char *side_name(const gk_pos_t *p) {
    return p->stm == GK_WHITE ? "White" : "Black";
}

/* Applies the tags that set the rules and the start position. */
static int apply_tags(gk_record_t *rec, const gk_rules_t *defaults, char *err, size_t errcap) {
    gk_rules_t r = *defaults;
    const char *v;
    if ((v = gk_record_tag(rec, "Game"))) {
        const gk_game_t *g = gk_game_by_name(v);
        if (!g) return gk_fail(err, errcap, GK_E_INVALID, "tag Game: unknown game '%s'", v);
        for (int i = 0; i < GK_NGAMES; i++)
            if (gk_game_by_id(i) == g) r.game = (uint8_t)i;
        if (g != gk_game_by_id(defaults->game)) r.variant = 0;
    }
    const gk_game_t *g = gk_game_by_id(r.game);
    if ((v = gk_record_tag(rec, "Variant"))) {
        int k = gk_variant_by_name(g, v);
        if (k < 0)
            return gk_fail(err, errcap, GK_E_INVALID, "tag Variant: %s has no variant '%s'",
                           g->name, v);
        r.variant = (uint8_t)k;
    }
    const char *limit_tag = gk_record_tag(rec, "TurnLimit") ? "TurnLimit" : "MaxPlies"; /* old */
    if ((v = gk_record_tag(rec, limit_tag))) {
        char *end;
        long m = strtol(v, &end, 10);
        if (!*v || *end || m < 0 || m > GK_MAX_TURN_LIMIT)
            return gk_fail(err, errcap, GK_E_INVALID, "tag %s: '%s' is not a number 0..%d",
                           limit_tag, v, GK_MAX_TURN_LIMIT);
        r.turn_limit = (uint16_t)m;
    }
    gk_pos_t p;
    const char *ps = gk_record_tag(rec, "Position");
    if (!ps) ps = gk_record_tag(rec, "FEN");
    if (ps) {
        char e[200];
        if (g->pos_from_text(&p, ps, r.turn_limit, e, sizeof e) < 0)
            return gk_fail(err, errcap, GK_E_INVALID, "tag Position: %s", e);
        if (p.variant != r.variant)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "tag Position: the position is for variant '%s'",
                           g->variants[p.variant]);
    } else {
        g->setup(&p, &r);
    }
    rec->rules = r;
    gk_record_set_start(rec, &p);
    return 0;
}

/* Joins the words first..first+k-1 with single spaces; -1 when too long. */
static int join_words(const lex_t *L, int first, int k, char *buf, size_t cap) {
    size_t n = 0;
    for (int i = first; i < first + k; i++) {
        size_t l = (size_t)L->v[i].len;
        if (n + l + 2 > cap) return -1;
        if (i > first) buf[n++] = ' ';
        memcpy(buf + n, L->v[i].s, l);
        n += l;
    }
    buf[n] = 0;
    return 0;
}

/* A header row of a table ("<TAB>White player<TAB>Black player") before the moves. */
static int header_row(gk_record_t *rec, const lex_t *L, const item_t *it) {
    const char *s = it->s;
    const char *line = s;
    while (line > L->text && line[-1] != '\n') line--;
    if (*line != '\t') return 0;
    const char *end = s;
    while (end < L->text + L->len && *end != '\n') end++;
    char cells[2][GK_TAG_VALUE_MAX];
    int nc = 0;
    const char *c = line;
    while (c < end && nc <= 2) {
        while (c < end && *c == '\t') c++;
        if (c >= end) break;
        const char *e = c;
        while (e < end && *e != '\t') e++;
        const char *t = e;
        while (t > c && is_ws(t[-1])) t--;
        if (nc == 2 || t - c >= GK_TAG_VALUE_MAX) return 0;
        memcpy(cells[nc], c, (size_t)(t - c));
        cells[nc][t - c] = 0;
        for (const char *q = cells[nc]; *q; q++)
            if (*q == '{' || *q == ';' || *q == '[' || *q == 0) return 0;
        nc++;
        c = e;
    }
    if (nc != 2) return 0;
    if (!gk_record_tag(rec, "White") && gk_record_set_tag(rec, "White", cells[0])) return 0;
    if (!gk_record_tag(rec, "Black") && gk_record_set_tag(rec, "Black", cells[1])) return 0;
    return 1;
}

/*
 * Reads one record from item *pi of L into rec (initialised by the caller): its tags,
 * then its moves.  With `multi`, a tag after the first non-tag item starts the next
 * record and ends this one (*pi is left on it); without, it is an error.
 */
static int read_one(gk_record_t *rec, const lex_t *L, int *pi, const gk_rules_t *defaults,
                    int multi, char *err, size_t errcap) {
    int i = *pi;
    for (; i < L->n && L->v[i].kind == IT_TAG; i++) {
        const gk_tag_t *t = &L->tags[L->v[i].tag];
        if (gk_record_tag(rec, t->name))
            READ_FAIL("line %d: tag %s given twice", L->v[i].line, t->name);
        if (rec->ntags >= GK_RECORD_MAX_TAGS)
            READ_FAIL("line %d: more than %d tags", L->v[i].line, GK_RECORD_MAX_TAGS);
        rec->tags[rec->ntags++] = *t;
    }
    if (apply_tags(rec, defaults, err, errcap) < 0) goto fail;

    const gk_game_t *g = gk_game_of(&rec->start);
    int moves_on_line = 0, line = 0, line_numbered = 0, header_done = 0;
    int result_line = 0;
    while (i < L->n) {
        const item_t *it = &L->v[i];
        if (it->line != line) line = it->line, moves_on_line = 0, line_numbered = 0;
        if (it->kind == IT_TAG) {
            if (multi) break;
            READ_FAIL("line %d: tag [%s] after the moves", it->line, L->tags[it->tag].name);
        }
        if (result_line)
            READ_FAIL("line %d: '%.*s' after the result token on line %d", it->line,
                      it->len > 40 ? 40 : it->len, it->s, result_line);
        const gk_pos_t *p = &rec->final;
        if (it->kind == IT_NUMBER) {
            long want = p->turn / 2 + 1;
            if (it->number != want)
                READ_FAIL("line %d: move number %ld, but the next move (turn %d, %s) is number %ld",
                          it->line, it->number, p->turn + 1, side_name(p), want);
            if (it->first) line_numbered = 1;
            i++;
            continue;
        }
        if (it->kind == IT_RESULT) {
            snprintf(rec->result, sizeof rec->result, "%.*s", it->len, it->s);
            result_line = it->line;
            i++;
            continue;
        }
        /* A move: the shortest run of words of this line that parses ("*" inside a
         * run is the deployment mark of `b2 * c3 c4 c5`, not a result). */
        char buf[GK_MOVE_TEXT_MAX], err1[256] = "", text1[GK_MOVE_TEXT_MAX] = "";
        char errk[256] = "", textk[GK_MOVE_TEXT_MAX] = "";
        gk_action_t seq[GK_MAX_TURN];
        int n = -1, k, maxk = 0;
        while (maxk < MAX_RUN && i + maxk < L->n && L->v[i + maxk].line == it->line &&
               (L->v[i + maxk].kind == IT_WORD ||
                (maxk > 0 && L->v[i + maxk].kind == IT_RESULT && L->v[i + maxk].s[0] == '*')))
            maxk++;
        for (k = 1; k <= maxk; k++) {
            if (join_words(L, i, k, buf, sizeof buf) < 0) {
                if (k == 1)
                    READ_FAIL("line %d, turn %d: '%.20s...' is too long for a move", it->line,
                              p->turn + 1, it->s);
                break;
            }
            n = g->parse_move(p, buf, seq, GK_MAX_TURN, errk, sizeof errk);
            if (n > 0) break;
            snprintf(textk, sizeof textk, "%s", buf);
            if (k == 1) memcpy(err1, errk, sizeof err1), memcpy(text1, textk, sizeof text1);
        }
        /* The reason to report: that of the first word when it looks like a whole move
         * (it has punctuation), else that of the longest run on the line. */
        const char *why = errk, *what = textk;
        if (strpbrk(text1, "-x*,:") || !textk[0]) why = err1, what = text1;
        if (n <= 0) {
            /* A trailing note in a table row: text after a TAB once the row has moves. */
            if (line_numbered && moves_on_line > 0 && it->tab_before) {
                while (i < L->n && L->v[i].line == it->line && L->v[i].kind != IT_TAG) i++;
                continue;
            }
            if (!header_done && rec->nmoves == 0 && header_row(rec, L, it)) {
                header_done = 1;
                int hl = it->line;
                while (i < L->n && L->v[i].line == hl && L->v[i].kind != IT_TAG) i++;
                continue;
            }
            if (gk_over(p))
                READ_FAIL("line %d, turn %d: '%s': the game is already over (%s %s)", it->line,
                          p->turn + 1, what, gk_result_text((gk_result_t)p->result),
                          gk_reason_text((gk_reason_t)p->reason));
            READ_FAIL("line %d, turn %d (%s): '%s': %s", it->line, p->turn + 1, side_name(p), what,
                      why);
        }
        /* A following lone '+' must be true of the move just read. */
        if (i + k < L->n && L->v[i + k].kind == IT_WORD && L->v[i + k].line == it->line &&
            L->v[i + k].len == 1 && L->v[i + k].s[0] == '+') {
            gk_action_t seq2[GK_MAX_TURN];
            char e[256];
            int n2 = -1;
            if (join_words(L, i, k + 1, buf, sizeof buf) == 0)
                n2 = g->parse_move(p, buf, seq2, GK_MAX_TURN, e, sizeof e);
            else
                snprintf(e, sizeof e, "move text too long");
            if (n2 != n || memcmp(seq, seq2, (size_t)n * sizeof *seq))
                READ_FAIL("line %d, turn %d (%s): '%s': %s", it->line, p->turn + 1, side_name(p),
                          buf, n2 < 0 ? e : "the '+' changes the move");
            k++;
        }
        if (gk_record_push(rec, seq, n) < 0) READ_FAIL("out of memory");
        moves_on_line++;
        i += k;
    }
    *pi = i;
    return 0;
fail:
    return -1;
}

static void lex_free(lex_t *L) {
    free(L->v);
    free(L->tags);
}

int gk_record_read(gk_record_t *rec, const char *text, size_t len, const gk_rules_t *defaults,
                   char *err, size_t errcap) {
    lex_t L;
    memset(&L, 0, sizeof L);
    int i = 0, rc = -1;
    if (gk_record_init(rec, defaults) < 0)
        rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    else if (lex(&L, text, len, err, errcap) == 0)
        rc = read_one(rec, &L, &i, defaults, 0, err, errcap);
    lex_free(&L);
    return rc;
}

int gk_record_read_all(const char *text, size_t len, const gk_rules_t *defaults, gk_record_fn fn,
                       void *ctx, char *err, size_t errcap) {
    lex_t L;
    memset(&L, 0, sizeof L);
    int i = 0, count = 0, rc = 0;
    if (lex(&L, text, len, err, errcap) < 0) {
        lex_free(&L);
        return -1;
    }
    while (i < L.n && rc == 0) {
        gk_record_t rec;
        if (gk_record_init(&rec, defaults) < 0) {
            rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
            break;
        }
        int bad = read_one(&rec, &L, &i, defaults, 1, err, errcap) < 0;
        if (fn(ctx, &rec, count, bad ? err : NULL)) rc = 1;
        if (bad) rc = -1;
        count++;
        gk_record_free(&rec);
    }
    lex_free(&L);
    return rc < 0 ? -1 : count;
}

/* ---- results ---- */

int gk_result_parse(const char *s) {
    size_t n = strlen(s);
    while (n && is_ws(s[n - 1])) n--;
    while (n && is_ws(*s)) s++, n--;
    if (n == 1 && *s == '*') return GK_ONGOING;
    int res;
    return n && result_at(s, n, &res) == n ? res : -1;
}

const char *gk_winner_text(gk_result_t r) {
    switch (r) {
    case GK_WIN_WHITE: return "White wins";
    case GK_WIN_BLACK: return "Black wins";
    case GK_DRAW: return "draw";
    default: return "game not over";
    }
}

/* The endings of the rules, by their gk_reason_named names (old ones too). */
static int rules_reason(const char *t) {
    int r = gk_reason_named(t, strlen(t));
    return r > GK_REASON_NONE && r != GK_REASON_RESIGN && r != GK_REASON_ADJUDICATED;
}

/* A claim (token or tag) as a result, checked against the rules' end; -2 when it
 * contradicts them, -1 when it is no result. */
static int judge_claim(const char *where, const char *claim, const gk_pos_t *fin, char *err,
                       size_t errcap) {
    if (!claim || !*claim) return GK_ONGOING;
    int c = gk_result_parse(claim);
    if (c < 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the %s says '%s': not a result (1-0, 0-1, 1/2-1/2, ½-½, 1 - 0 or *)", where,
                       claim);
    if (gk_over(fin) && c != GK_ONGOING && c != fin->result) {
        gk_fail(err, errcap, GK_E_INVALID, "the %s says %s but the game ended %s (%s, %s)", where,
                claim, gk_result_text((gk_result_t)fin->result),
                gk_winner_text((gk_result_t)fin->result), gk_reason_text((gk_reason_t)fin->reason));
        return -2;
    }
    return c;
}

int gk_record_outcome(const gk_record_t *rec, gk_outcome_t *out, char *err, size_t errcap) {
    memset(out, 0, sizeof *out);
    out->final = rec->final;
    gk_pos_t *fin = &out->final;
    /* The rules end a game with no legal move (docs/RULES.md). */
    if (!gk_over(fin) && gk_game_of(fin)->perft(fin, 1) == 0) gk_apply_no_move(fin);
    const char *tag = gk_record_tag(rec, "Result"), *term = gk_record_tag(rec, "Termination");
    int tok = judge_claim("result token", rec->result, fin, err, errcap);
    if (tok < 0) return -1;
    int res = judge_claim("Result tag", tag, fin, err, errcap);
    if (res < 0) return -1;
    if (gk_over(fin)) {
        const char *why = gk_reason_text((gk_reason_t)fin->reason);
        if (term && gk_reason_named(term, strlen(term)) != fin->reason && strcmp(term, "normal"))
            return gk_fail(err, errcap, GK_E_INVALID,
                           "the Termination tag says %s but the game ended by %s", term, why);
        out->result = (gk_result_t)fin->result, out->by_rules = 1;
        snprintf(out->how, sizeof out->how, "%s", why);
        return 0;
    }
    if (tok != GK_ONGOING && res != GK_ONGOING && tok != res)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the result token says %s but the Result tag says %s", rec->result, tag);
    out->result = (gk_result_t)(tok != GK_ONGOING ? tok : res);
    if (term && rules_reason(term))
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the Termination tag says %s but the rules have not ended the game after "
                       "turn %u",
                       term, (unsigned)fin->turn);
    if (term && !strcmp(term, "resign") && out->result == GK_DRAW)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the Termination tag says resign but the result is a draw");
    if (out->result != GK_ONGOING && term) snprintf(out->how, sizeof out->how, "%s", term);
    return 0;
}

/* ---- writing ---- */

static int write_tag(FILE *f, const char *name, const char *value) {
    if (fprintf(f, "[%s \"", name) < 0) return -1;
    for (const char *c = value; *c; c++) {
        if ((*c == '"' || *c == '\\') && fputc('\\', f) == EOF) return -1;
        if (fputc(*c, f) == EOF) return -1;
    }
    return fputs("\"]\n", f) == EOF ? -1 : 0;
}

/* A comment's text: braces would end it early, so they become parentheses. */
static int write_comment(FILE *f, const char *c) {
    if (fputs(" {", f) == EOF) return -1;
    for (; *c; c++) {
        int ch = *c == '{' ? '(' : *c == '}' ? ')' : *c == '\n' ? ' ' : *c;
        if (fputc(ch, f) == EOF) return -1;
    }
    return fputc('}', f) == EOF ? -1 : 0;
}

int gk_record_write(const gk_record_t *rec, FILE *f) {
    return gk_record_write_notes(rec, f, NULL, NULL);
}

int gk_record_write_notes(const gk_record_t *rec, FILE *f, const char *const *glyph,
                          const char *const *note) {
    const gk_game_t *g = gk_game_of(&rec->start);
    if (write_tag(f, "Game", g->name)) return -1;
    if (rec->start.variant && write_tag(f, "Variant", g->variants[rec->start.variant])) return -1;
    gk_pos_t std;
    gk_rules_t r = rec->rules;
    g->setup(&std, &r);
    if (memcmp(&std, &rec->start, sizeof std)) {
        char ps[GK_POS_TEXT_MAX];
        if (g->pos_to_text(&rec->start, ps, sizeof ps) < 0 || write_tag(f, "Position", ps))
            return -1;
    }
    if (rec->rules.turn_limit != GK_DEFAULT_TURN_LIMIT) {
        char m[16];
        snprintf(m, sizeof m, "%u", (unsigned)rec->rules.turn_limit);
        if (write_tag(f, "TurnLimit", m)) return -1;
    }
    for (int i = 0; i < rec->ntags; i++) {
        const char *n = rec->tags[i].name;
        if (!strcmp(n, "Game") || !strcmp(n, "Variant") || !strcmp(n, "Position") ||
            !strcmp(n, "FEN") || !strcmp(n, "TurnLimit") || !strcmp(n, "MaxPlies"))
            continue;
        if (write_tag(f, n, rec->tags[i].value)) return -1;
    }
    if (fputc('\n', f) == EOF) return -1;
    gk_pos_t p = rec->start;
    for (int m = 0; m < rec->nmoves; m++) {
        char t[GK_MOVE_TEXT_MAX];
        const gk_action_t *seq = rec->actions + rec->move_start[m];
        int n = rec->move_start[m + 1] - rec->move_start[m];
        if (g->move_text(&p, seq, n, t, sizeof t) < 0) return -1;
        int num = p.turn / 2 + 1;
        int rc;
        if (p.stm == GK_WHITE || m == 0)
            rc = fprintf(f, "%s%d.%s %s", m ? "\n" : "", num, p.stm == GK_WHITE ? "" : "..", t);
        else
            rc = fprintf(f, " %s", t);
        if (rc < 0) return -1;
        if (glyph && glyph[m] && glyph[m][0] && fputs(glyph[m], f) == EOF) return -1;
        if (note && note[m] && note[m][0] && write_comment(f, note[m])) return -1;
        for (int i = 0; i < n; i++) g->play(&p, seq[i]);
    }
    const char *res = rec->result[0] ? rec->result : "*";
    if (gk_over(&rec->final) && gk_result_parse(res) != rec->final.result)
        res = gk_result_text((gk_result_t)rec->final.result);
    if (fprintf(f, "%s%s\n", rec->nmoves ? " " : "", res) < 0) return -1;
    return 0;
}
