/*
 * tests/test_gobs_reference.c -- an independent, slow, obviously-correct Gobs move
 * generator, cross-checked against the engine (gen/play, move_text, pos_to_text, perft).
 *
 * The reference shares no code with games/gobs.c: it keeps a 9x9 char grid, parses and
 * prints position strings itself, and enumerates COMPLETE moves recursively as notation
 * strings, each with the position string it leads to.  For thousands of positions (random
 * play under both rule sets, mid-turn states, sparse boards near the GOBS thresholds,
 * lattices that give long flip chains) the two sets (move text -> resulting position)
 * must be identical, and perft(1) and perft(2) must agree.
 *
 * Usage: test_gobs_reference [POSITIONS]   (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gobs.h"

/* ------------------------------------------------------------------------------------ */
/* The reference                                                                         */

typedef struct {
    char g[9][9]; /* g[rank][file], rank 0 = "1"; '.', 'w' or 'b' */
    char stm;     /* 'w' or 'b' */
    int turn, turn_limit;
    int shortv;     /* 1 under the short variant */
    int jr, jc, jn; /* mid-turn: jumping piece at (jr, jc) after jn legs; jn == 0 otherwise */
    char result[40];
} ref_t;

typedef struct {
    char text[GK_MOVE_TEXT_MAX];
    char after[GK_POS_TEXT_MAX];
} ref_move_t;

typedef struct {
    ref_move_t *m;
    size_t n, cap;
    size_t limit; /* stop collecting beyond this (reported as overflow) */
    int overflow;
} ref_list_t;

static char other(char c) {
    return c == 'w' ? 'b' : 'w';
}
static int on_board(int r, int c) {
    return r >= 0 && r < 9 && c >= 0 && c < 9;
}

static int count(const ref_t *s, char side) {
    int n = 0;
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++) n += s->g[r][c] == side;
    return n;
}

static void ref_print(const ref_t *s, char *out, size_t cap) {
    char board[128];
    int k = 0;
    for (int r = 8; r >= 0; r--) {
        int run = 0;
        for (int c = 0; c < 9; c++) {
            if (s->g[r][c] == '.') {
                run++;
                continue;
            }
            if (run) board[k++] = (char)('0' + run);
            run = 0;
            board[k++] = s->g[r][c];
        }
        if (run) board[k++] = (char)('0' + run);
        if (r) board[k++] = '/';
    }
    board[k] = 0;
    char turn[16] = "-";
    if (s->jn) snprintf(turn, sizeof turn, "%c%d+%d", 'a' + s->jc, s->jr + 1, s->jn);
    snprintf(out, cap, "%s %s %c %d %s %s", s->shortv ? "short" : "standard", board, s->stm,
             s->turn, turn, s->result);
}

/* Parses a string the engine printed (trusted: the engine's own checks are elsewhere). */
static int ref_parse(ref_t *s, const char *text, int turn_limit) {
    char rules[16], board[128], stm[4], turn[16], result[40];
    memset(s, 0, sizeof *s);
    if (sscanf(text, "%15s %127s %3s %d %15s %39s", rules, board, stm, &s->turn, turn, result) != 6)
        return -1;
    s->shortv = !strcmp(rules, "short");
    s->stm = stm[0];
    s->turn_limit = turn_limit;
    snprintf(s->result, sizeof s->result, "%s", result);
    int r = 8, c = 0;
    for (const char *b = board; *b; b++) {
        if (*b == '/') {
            r--;
            c = 0;
        } else if (*b >= '1' && *b <= '9') {
            for (int i = 0; i < *b - '0'; i++) s->g[r][c++] = '.';
        } else {
            s->g[r][c++] = *b;
        }
    }
    if (strcmp(turn, "-")) {
        s->jc = turn[0] - 'a';
        s->jr = turn[1] - '1';
        s->jn = atoi(turn + 3);
    }
    return 0;
}

/* The end of a turn, written from the rules text: kind 's' slide, 'e' elimination,
 * 'j' jump chain; mine_before = the mover's pieces when the turn began. */
static void ref_end_turn(ref_t *s, char kind, int mine_before) {
    const char me = s->stm, them = other(me);
    const int mine = count(s, me), theirs = count(s, them);
    const char *win = me == 'w' ? "1-0:gobs" : "0-1:gobs";
    const char *lose = me == 'w' ? "0-1:gobs" : "1-0:gobs";
    s->stm = them;
    s->turn++;
    s->jn = 0;
    s->jr = s->jc = 0;
    if (theirs < 5) {
        strcpy(s->result, win);
    } else if (mine_before == 5) {
        /* GOBSed: saved only by flipping back above 5, drawn by eliminating to 5. */
        if (kind == 'e' && theirs == 5)
            strcpy(s->result, "1/2-1/2:gobs-draw");
        else if (kind == 'j' && mine > 5)
            ;
        else
            strcpy(s->result, lose);
    }
    if (!strcmp(s->result, "*") && s->turn_limit && s->turn >= s->turn_limit)
        strcpy(s->result, "1/2-1/2:turn-limit");
}

static void add(ref_list_t *l, const char *text, const ref_t *after) {
    if (l->n >= l->limit) {
        l->overflow = 1;
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        if (!l->m) abort();
    }
    snprintf(l->m[l->n].text, sizeof l->m[l->n].text, "%s", text);
    ref_print(after, l->m[l->n].after, sizeof l->m[l->n].after);
    l->n++;
}

static void sqname(char *out, int r, int c) {
    out[0] = (char)('a' + c);
    out[1] = (char)('1' + r);
    out[2] = 0;
}

/* Every continuation of a chain whose piece stands on (r, c): each landing extends the
 * text and is a complete move of its own. */
static void ref_chain(const ref_t *s, int r, int c, const char *text, int mine_before,
                      ref_list_t *l) {
    static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dc[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    const char me = s->stm, them = other(me);
    for (int d = 0; d < 8 && !l->overflow; d++) {
        int er = r + dr[d], ec = c + dc[d];
        if (!s->shortv)
            while (on_board(er, ec) && s->g[er][ec] == '.') er += dr[d], ec += dc[d];
        if (!on_board(er, ec) || s->g[er][ec] != them) continue;
        for (int k = 1;; k++) {
            const int lr = er + k * dr[d], lc = ec + k * dc[d];
            if (!on_board(lr, lc) || s->g[lr][lc] != '.') break;
            if (s->shortv && k > 1) break;
            ref_t t = *s;
            t.g[er][ec] = me;
            t.g[r][c] = '.';
            t.g[lr][lc] = me;
            char name[3], nt[GK_MOVE_TEXT_MAX];
            sqname(name, lr, lc);
            snprintf(nt, sizeof nt, "%s:%s", text, name);
            ref_t e = t;
            ref_end_turn(&e, 'j', mine_before);
            add(l, nt, &e);
            ref_chain(&t, lr, lc, nt, mine_before, l);
        }
    }
}

static void ref_moves(const ref_t *s, ref_list_t *l) {
    static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dc[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    if (strcmp(s->result, "*")) return;
    const char me = s->stm, them = other(me);
    char a[3], b[3], text[GK_MOVE_TEXT_MAX];
    if (s->jn) {
        const int mine_before = count(s, me) - s->jn;
        ref_t e = *s;
        ref_end_turn(&e, 'j', mine_before);
        add(l, "stop", &e);
        sqname(a, s->jr, s->jc);
        ref_chain(s, s->jr, s->jc, a, mine_before, l);
        return;
    }
    const int mine_before = count(s, me);
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++) {
            if (s->g[r][c] != me) continue;
            sqname(a, r, c);
            for (int d = 0; d < 8; d++) {
                const int maxk = s->shortv ? 2 : 8;
                for (int k = 1; k <= maxk; k++) {
                    const int tr = r + k * dr[d], tc = c + k * dc[d];
                    if (!on_board(tr, tc)) break;
                    sqname(b, tr, tc);
                    if (s->g[tr][tc] == '.') {
                        ref_t t = *s;
                        t.g[r][c] = '.';
                        t.g[tr][tc] = me;
                        snprintf(text, sizeof text, "%s-%s", a, b);
                        ref_end_turn(&t, 's', mine_before);
                        add(l, text, &t);
                        continue;
                    }
                    /* First piece on the line: an enemy at distance >= 2 (exactly 2 in
                     * the short variant) may be eliminated. */
                    if (s->g[tr][tc] == them && k >= 2 && (!s->shortv || k == 2)) {
                        ref_t t = *s;
                        t.g[r][c] = '.';
                        t.g[tr][tc] = me;
                        if (!s->shortv) {
                            snprintf(text, sizeof text, "%sx%s", a, b);
                            ref_end_turn(&t, 'e', mine_before);
                            add(l, text, &t);
                        } else {
                            const int row = them == 'w' ? 0 : 8;
                            for (int f = 0; f < 9; f++) {
                                if (t.g[row][f] != '.') continue;
                                ref_t u = t;
                                u.g[row][f] = them;
                                char pl[3];
                                sqname(pl, row, f);
                                snprintf(text, sizeof text, "%sx%s/%s", a, b, pl);
                                ref_end_turn(&u, 'e', mine_before);
                                add(l, text, &u);
                            }
                        }
                    }
                    break;
                }
            }
            ref_chain(s, r, c, a, mine_before, l);
        }
}

/* ------------------------------------------------------------------------------------ */
/* Engine side                                                                          */

typedef struct {
    ref_list_t *l;
    const gk_game_t *g;
    int bad;
} eng_ctx_t;

static int eng_cb(void *ctx, const gk_pos_t *start, const gk_action_t *seq, int n) {
    eng_ctx_t *e = ctx;
    char text[GK_MOVE_TEXT_MAX], after[GK_POS_TEXT_MAX];
    if (e->g->move_text(start, seq, n, text, sizeof text) < 0) {
        e->bad = 1;
        return 1;
    }
    gk_pos_t q = *start;
    for (int i = 0; i < n; i++) e->g->play(&q, seq[i]);
    if (e->g->pos_to_text(&q, after, sizeof after) < 0) {
        e->bad = 1;
        return 1;
    }
    ref_list_t *l = e->l;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        if (!l->m) abort();
    }
    memcpy(l->m[l->n].text, text, sizeof text);
    memcpy(l->m[l->n].after, after, sizeof after);
    l->n++;
    return 0;
}

static int cmp_move(const void *a, const void *b) {
    return strcmp(((const ref_move_t *)a)->text, ((const ref_move_t *)b)->text);
}

static int failures;
static int longest_chain;
static long long compared_moves, perft2_checked, midturn_checked, ended_checked;

/* Compares engine and reference at p; returns the number of complete moves. */
static long check_position(const gk_pos_t *p, size_t limit, int try_perft2) {
    const gk_game_t *g = &gk_gobs_game;
    char ptext[GK_POS_TEXT_MAX];
    if (g->pos_to_text(p, ptext, sizeof ptext) < 0) {
        printf("FAIL: pos_to_text failed\n");
        failures++;
        return 0;
    }
    const uint64_t n1 = g->perft(p, 1);
    if (n1 > limit) return -1;
    ref_t s;
    if (ref_parse(&s, ptext, p->turn_limit) < 0) {
        printf("FAIL: reference cannot read %s\n", ptext);
        failures++;
        return 0;
    }
    ref_list_t rl = {.limit = limit + 1}, el = {0};
    ref_moves(&s, &rl);
    eng_ctx_t ec = {&el, g, 0};
    gk_enum_moves(p, UINT64_MAX, eng_cb, &ec);
    /* qsort's array must not be NULL even when empty (UBSan). */
    if (rl.n) qsort(rl.m, rl.n, sizeof *rl.m, cmp_move);
    if (el.n) qsort(el.m, el.n, sizeof *el.m, cmp_move);
    int bad = ec.bad || rl.n != el.n || rl.n != n1;
    for (size_t i = 0; !bad && i < rl.n; i++) {
        if (strcmp(rl.m[i].text, el.m[i].text) || strcmp(rl.m[i].after, el.m[i].after)) {
            printf("  first difference: reference %s -> %s\n"
                   "                    engine    %s -> %s\n",
                   rl.m[i].text, rl.m[i].after, el.m[i].text, el.m[i].after);
            bad = 1;
        }
        if (i && !strcmp(el.m[i].text, el.m[i - 1].text)) {
            printf("  duplicate engine move %s\n", el.m[i].text);
            bad = 1;
        }
    }
    if (bad) {
        printf("FAIL at %s: reference %zu moves, engine enum %zu, perft %llu\n", ptext, rl.n, el.n,
               (unsigned long long)n1);
        failures++;
    }
    compared_moves += (long long)rl.n;
    for (size_t i = 0; i < rl.n; i++) {
        int legs = 0;
        for (const char *t = rl.m[i].text; *t; t++) legs += *t == ':';
        if (legs > longest_chain) longest_chain = legs;
    }
    midturn_checked += p->in_turn != 0;
    if (!bad && try_perft2 && rl.n <= 120) {
        /* Reference perft 2: the reference count below each resulting position. */
        uint64_t total = 0;
        int ok = 1;
        for (size_t i = 0; i < rl.n && ok; i++) {
            ref_t t;
            ref_parse(&t, rl.m[i].after, p->turn_limit);
            ref_list_t l2 = {.limit = 20000};
            ref_moves(&t, &l2);
            ok = !l2.overflow;
            total += l2.n;
            ended_checked += strcmp(t.result, "*") != 0;
            free(l2.m);
        }
        if (ok) {
            const uint64_t e2 = g->perft(p, 2);
            if (e2 != total) {
                printf("FAIL perft 2 at %s: reference %llu, engine %llu\n", ptext,
                       (unsigned long long)total, (unsigned long long)e2);
                failures++;
            }
            perft2_checked++;
        }
    }
    free(rl.m);
    free(el.m);
    return (long)n1;
}

/* ------------------------------------------------------------------------------------ */
/* Position sources                                                                     */

static uint64_t rng = 0x6F6273ull;
static int rnd(int n) {
    return (int)(gk_splitmix64(&rng) % (uint64_t)n);
}

static int from_text(gk_pos_t *p, const char *text, int turn_limit) {
    char err[256];
    return gk_gobs_game.pos_from_text(p, text, (uint16_t)turn_limit, err, sizeof err);
}

/* A random board: nw white and nb black pieces on random squares (or on a lattice that
 * leaves room for long chains), random side to move. */
static int random_board(gk_pos_t *p, int variant, int nw, int nb, int lattice, int turn_limit) {
    char grid[9][9];
    memset(grid, '.', sizeof grid);
    int placed = 0;
    while (placed < nw + nb) {
        int r = rnd(9), c = rnd(9);
        const char side = placed < nb ? 'b' : 'w'; /* black first: it has the fewer squares */
        /* Lattice: the side not to move stands on odd-odd squares, so flying or short
         * jumps can chain over many of them. */
        if (lattice && side == 'b' && (r % 2 == 0 || c % 2 == 0)) continue;
        if (grid[r][c] != '.') continue;
        grid[r][c] = side;
        placed++;
    }
    char text[GK_POS_TEXT_MAX];
    int k = snprintf(text, sizeof text, "%s ", variant ? "short" : "standard");
    for (int r = 8; r >= 0; r--) {
        for (int c = 0; c < 9; c++) text[k++] = grid[r][c] == '.' ? '1' : grid[r][c];
        text[k++] = r ? '/' : ' ';
    }
    snprintf(text + k, sizeof text - (size_t)k, "%c %d", lattice || rnd(2) ? 'w' : 'b', rnd(40));
    return from_text(p, text, turn_limit);
}

int main(int argc, char **argv) {
    gk_init();
    const gk_game_t *g = &gk_gobs_game;
    const int target = argc > 1 ? atoi(argv[1]) : 2000;
    int checked = 0, tries = 0, big = 0;
    long longest_chain_moves = 0;

    /* Start positions of both rule sets: perft 2 by the reference too. */
    for (int v = 0; v < 2; v++) {
        gk_rules_t r = {GK_GAME_GOBS, (uint8_t)v, 0};
        gk_pos_t p;
        g->setup(&p, &r);
        check_position(&p, 100000, 1);
        checked++;
    }

    while (checked < target && tries < 50 * target) {
        tries++;
        const int kind = tries % 4, variant = (tries / 4) % 2;
        gk_pos_t p;
        if (kind == 0 || kind == 1) {
            /* Random play; sample a boundary or a mid-turn position. */
            gk_rules_t r = {GK_GAME_GOBS, (uint8_t)variant, (uint16_t)(kind ? 0 : 60 + rnd(80))};
            g->setup(&p, &r);
            const int stop_at = rnd(kind ? 160 : 120);
            int actions = 0;
            while (!gk_over(&p) && actions < 1000) {
                /* kind 1 looks for a chain in progress, up to 200 actions further. */
                if (p.turn >= stop_at && (p.in_turn || kind == 0 || p.turn > stop_at + 200)) break;
                gk_action_t list[GK_MAX_ACTIONS];
                const int n = g->gen(&p, list);
                if (n == 0) break;
                g->play(&p, list[rnd(n)]);
                actions++;
            }
        } else if (kind == 2) {
            /* Near the GOBS thresholds: 5..9 pieces a side, some with a limit close by. */
            if (random_board(&p, variant, 5 + rnd(5), 5 + rnd(5), 0, rnd(4) ? 0 : 45) < 0) continue;
        } else {
            if (random_board(&p, variant, 5 + rnd(4), 6 + rnd(variant ? 10 : 8), 1, 0) < 0)
                continue;
        }
        const long n = check_position(&p, 10000, checked % 3 == 0);
        if (n < 0) {
            big++;
            continue;
        }
        if (kind == 3 && n > longest_chain_moves) longest_chain_moves = n;
        checked++;
    }
    printf("gobs reference: %d positions (%lld mid-turn), %lld complete moves compared, "
           "%lld perft-2 checks (%lld game-ending moves), %d skipped as too big, max lattice "
           "moves %ld, longest chain %d legs\n",
           checked, midturn_checked, compared_moves, perft2_checked, ended_checked, big,
           longest_chain_moves, longest_chain);
    if (checked < target) {
        printf("FAIL: only %d positions checked\n", checked);
        failures++;
    }
    if (failures) printf("%d FAILURES\n", failures);
    return failures ? 1 : 0;
}
