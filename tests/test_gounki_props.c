/*
 * tests/test_gounki_props.c -- properties of the Gounki engine over thousands of
 * seeded random games, checked against a second, deliberately naive move generator
 * written here from the rules text (docs/RULES.md) in a different style: a 2-D board
 * of structs, explicit step simulation, moves kept as notation strings with the board
 * they lead to, duplicates merged by string.
 *
 * At every position of every game (the costly checks in the first games only, see
 * REF_GAMES below):
 *  - gen() lists no action twice and no notation twice, and the notation set equals
 *    the reference's; each action played gives the reference's board and result;
 *  - the incremental hash equals hash_full() after every legal move;
 *  - every move's notation parses back to the same action (all moves in the first
 *    games, the played move in the rest), and the position string round-trips;
 *  - the counting generator agrees with gen(); the fast perft agrees with the generic
 *    one at depth 2 (and 3 on some positions);
 *  - a side to move always has a legal move while the game is on (docs/RULES.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gounki.h"
#include "check.h"

/* Every game gets the cheap checks; the first REF_GAMES also the reference comparison
 * and the hash of every legal move, the first TEXT_GAMES the text round trip of every
 * move (the others only of the move played). */
enum { GAMES = 2000, REF_GAMES = 800, TEXT_GAMES = 300, PERFT2_GAMES = 200, PERFT3_GAMES = 20 };

static const gk_game_t *G;

/* ---- the reference generator ---- */

typedef struct {
    int8_t own; /* -1 empty, else colour */
    int8_t r, s;
} rcell_t;

typedef struct {
    rcell_t b[8][8]; /* [rank][file] */
} rboard_t;

typedef struct {
    char text[48];
    rboard_t after;
    int win; /* 0, 1 exit, 2 capture-all */
} rmove_t;

#define RMAX 1024

typedef struct {
    int n;
    rmove_t m[RMAX];
} rlist_t;

static void sqname(char *out, int f, int rk) {
    out[0] = (char)('a' + f), out[1] = (char)('1' + rk), out[2] = 0;
}

/* Appends the strings of a NULL-terminated list to text at *len. */
static void cat(char *text, int *len, const char *a, const char *b, const char *c) {
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3 && parts[i]; i++)
        for (const char *q = parts[i]; *q; q++) text[(*len)++] = *q;
    text[*len] = 0;
}

static void radd(rlist_t *L, const char *text, const rboard_t *after, int win) {
    if (L->n >= RMAX) {
        CHECK(0, "reference list overflow");
        return;
    }
    snprintf(L->m[L->n].text, sizeof L->m[L->n].text, "%s", text);
    L->m[L->n].after = *after;
    L->m[L->n].win = win;
    L->n++;
}

static int cmp_text(const void *a, const void *b) {
    return strcmp(a, b);
}

/* Sorts the list by notation and merges equal notations, which must name one move. */
static void rsort_unique(rlist_t *L) {
    qsort(L->m, (size_t)L->n, sizeof L->m[0], cmp_text);
    int k = 0;
    for (int i = 0; i < L->n; i++) {
        if (k && !strcmp(L->m[k - 1].text, L->m[i].text)) {
            CHECK(!memcmp(&L->m[k - 1].after, &L->m[i].after, sizeof L->m[i].after) &&
                      L->m[k - 1].win == L->m[i].win,
                  "reference: notation %s names two different moves", L->m[i].text);
            continue;
        }
        if (k != i) L->m[k] = L->m[i];
        k++;
    }
    L->n = k;
}

static int pieces_of(const rboard_t *B, int c) {
    int n = 0;
    for (int rk = 0; rk < 8; rk++)
        for (int f = 0; f < 8; f++) n += B->b[rk][f].own == c;
    return n;
}

static void ref_movements(const rboard_t *B, int c, int of, int ork, rlist_t *L) {
    const rcell_t me = B->b[ork][of];
    int fwd = c == GK_WHITE ? 1 : -1;
    char from[4], to[4], text[48];
    sqname(from, of, ork);
    for (int mode = 0; mode < 2; mode++) {
        int steps = mode == 0 ? me.r : me.s;
        static const int rdirs[2][2] = {{-1, 1}, {1, 1}};
        static const int sdirs[3][2] = {{0, 1}, {-1, 0}, {1, 0}};
        int ndirs = mode == 0 ? 2 : 3;
        for (int d = 0; d < ndirs && steps; d++) {
            int df = mode == 0 ? rdirs[d][0] : sdirs[d][0];
            int dr = (mode == 0 ? rdirs[d][1] : sdirs[d][1]) * fwd;
            int f = of, rk = ork, bounced = 0;
            for (int k = 1; k <= steps; k++) {
                int nr = rk + dr, nf = f + df;
                if (nr < 0 || nr > 7) {
                    rboard_t A = *B;
                    A.b[ork][of].own = -1, A.b[ork][of].r = A.b[ork][of].s = 0;
                    int len = 0;
                    cat(text, &len, from, "-Out", NULL);
                    radd(L, text, &A, 1);
                    break;
                }
                if (nf < 0 || nf > 7) {
                    if (mode != 0 || k == 1 || bounced) break;
                    df = -df, bounced = 1, nf = f + df;
                }
                f = nf, rk = nr;
                rcell_t t = B->b[rk][f];
                rboard_t A = *B;
                A.b[ork][of].own = -1, A.b[ork][of].r = A.b[ork][of].s = 0;
                sqname(to, f, rk);
                if (t.own < 0) {
                    A.b[rk][f] = me;
                    int len = 0;
                    cat(text, &len, from, "-", to);
                    radd(L, text, &A, 0);
                    continue;
                }
                if (t.own != c) {
                    A.b[rk][f] = me;
                    int len = 0;
                    cat(text, &len, from, "x", to);
                    radd(L, text, &A, pieces_of(&A, !c) == 0 ? 2 : 0);
                } else if (t.r + t.s + me.r + me.s <= 3) {
                    A.b[rk][f].r += me.r, A.b[rk][f].s += me.s;
                    int len = 0;
                    cat(text, &len, from, "-", to);
                    cat(text, &len, "+", NULL, NULL);
                    radd(L, text, &A, 0);
                }
                break;
            }
        }
    }
}

static void ref_deployments(const rboard_t *B, int c, int of, int ork, rlist_t *L) {
    const rcell_t me = B->b[ork][of];
    int n = me.r + me.s, fwd = c == GK_WHITE ? 1 : -1;
    if (n < 2) return;
    /* Directions per kind: 'R' two diagonals, 'S' forward, left, right. */
    static const int rd[2][2] = {{-1, 1}, {1, 1}};
    static const int sd[3][2] = {{0, 1}, {-1, 0}, {1, 0}};
    for (int order = 0; order < 2; order++) {
        char kinds[4] = {0};
        int k = 0;
        const char first = order == 0 ? 'R' : 'S', second = order == 0 ? 'S' : 'R';
        int n1 = order == 0 ? me.r : me.s;
        if (n1 == 0) continue;
        for (int i = 0; i < n1; i++) kinds[k++] = first;
        for (int i = 0; i < n - n1; i++) kinds[k++] = second;
        int nd1 = first == 'R' ? 2 : 3, nd2 = n - n1 ? (second == 'R' ? 2 : 3) : 1;
        for (int d1 = 0; d1 < nd1; d1++)
            for (int d2 = 0; d2 < nd2; d2++) {
                rboard_t A = *B;
                A.b[ork][of].own = -1, A.b[ork][of].r = A.b[ork][of].s = 0;
                char text[48];
                char sq[4];
                int len = 0;
                sqname(sq, of, ork);
                cat(text, &len, sq, "*", NULL);
                int f = of, rk = ork, df = 0, dr = 0, bounced = 0, gsteps = 0, ok = 1, win = 0;
                for (int i = 0; i < n && ok && !win; i++) {
                    if (i == 0 || kinds[i] != kinds[i - 1]) {
                        int d = i == 0 ? d1 : d2;
                        const int *v = kinds[i] == 'R' ? rd[d] : sd[d];
                        df = v[0], dr = v[1] * fwd, bounced = 0, gsteps = 0;
                    }
                    if (i) cat(text, &len, ",", NULL, NULL);
                    int nr = rk + dr, nf = f + df;
                    if (nr < 0 || nr > 7) {
                        cat(text, &len, "Out", NULL, NULL);
                        win = 1;
                        break;
                    }
                    if (nf < 0 || nf > 7) {
                        if (gsteps == 0 || bounced) {
                            ok = 0;
                            break;
                        }
                        df = -df, bounced = 1, nf = f + df;
                    }
                    f = nf, rk = nr, gsteps++;
                    rcell_t *t = &A.b[rk][f];
                    if (t->own >= 0 && t->own != c)
                        ok = 0;
                    else if (t->r + t->s + 1 > 3)
                        ok = 0;
                    else {
                        int plus = t->own == c;
                        t->own = c;
                        if (kinds[i] == 'R')
                            t->r++;
                        else
                            t->s++;
                        sqname(sq, f, rk);
                        cat(text, &len, sq, plus ? "+" : NULL, NULL);
                    }
                }
                if (ok) radd(L, text, &A, win);
            }
    }
}

static void ref_gen(const rboard_t *B, int c, rlist_t *L) {
    L->n = 0;
    for (int rk = 0; rk < 8; rk++)
        for (int f = 0; f < 8; f++)
            if (B->b[rk][f].own == c) {
                ref_movements(B, c, f, rk, L);
                ref_deployments(B, c, f, rk, L);
            }
}

static void to_rboard(const gk_pos_t *p, rboard_t *B) {
    for (int rk = 0; rk < 8; rk++)
        for (int f = 0; f < 8; f++) {
            int sq = GOUNKI_SQ(f, rk);
            B->b[rk][f].own = gounki_owner(p, sq);
            B->b[rk][f].r = gounki_rounds(p, sq);
            B->b[rk][f].s = gounki_squares(p, sq);
        }
}

/* ---- the checks ---- */

static int cmp_act(const void *a, const void *b) {
    gk_action_t x = *(const gk_action_t *)a, y = *(const gk_action_t *)b;
    return x < y ? -1 : x > y;
}

static void check_position(const gk_pos_t *p, int full_ref, int full_text, uint64_t *nmoves) {
    static gk_action_t list[GK_MAX_ACTIONS], sorted[GK_MAX_ACTIONS];
    static char texts[GK_MAX_ACTIONS][GK_MOVE_TEXT_MAX];
    static rlist_t ref;
    char err[256], ptext[GK_POS_TEXT_MAX];
    int n = G->gen(p, list);
    G->pos_to_text(p, ptext, sizeof ptext);
    CHECK(gounki_count_moves(p) == n, "count %d != gen %d at %s", gounki_count_moves(p), n, ptext);
    CHECK(G->perft(p, 1) == (uint64_t)n, "perft 1 != gen at %s", ptext);
    memcpy(sorted, list, (size_t)n * sizeof *list);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_act);
    for (int i = 1; i < n; i++) CHECK(sorted[i] != sorted[i - 1], "action twice at %s", ptext);

    if (!full_ref) {
        gk_pos_t q;
        CHECK(G->pos_from_text(&q, ptext, p->turn_limit, err, sizeof err) == 0 &&
                  !memcmp(&q, p, sizeof q),
              "position string %s does not round-trip (%s)", ptext, err);
        return;
    }
    rboard_t B;
    to_rboard(p, &B);
    ref_gen(&B, p->stm, &ref);
    rsort_unique(&ref);
    *nmoves += (uint64_t)n;
    CHECK(ref.n == n, "%d moves, reference %d, at %s", n, ref.n, ptext);
    for (int i = 0; i < n; i++) {
        int len = G->action_text(p, list[i], texts[i], GK_MOVE_TEXT_MAX);
        CHECK(len > 0, "action_text failed");
        gk_pos_t q = *p;
        G->play(&q, list[i]);
        CHECK(q.hash == G->hash_full(&q), "incremental hash after %s at %s", texts[i], ptext);
        CHECK(q.stm != p->stm && q.turn == p->turn + 1 && q.in_turn == 0, "turn bookkeeping");
        const rmove_t *rm = bsearch(texts[i], ref.m, (size_t)ref.n, sizeof ref.m[0], cmp_text);
        CHECK(rm != NULL, "%s not in the reference at %s", texts[i], ptext);
        if (rm) {
            rboard_t A;
            to_rboard(&q, &A);
            CHECK(!memcmp(&A, &rm->after, sizeof A), "%s leads to another board at %s", texts[i],
                  ptext);
            int win = q.reason == GK_REASON_EXIT ? 1 : q.reason == GK_REASON_CAPTURE_ALL ? 2 : 0;
            CHECK(win == rm->win, "%s: result %d, reference %d at %s", texts[i], win, rm->win,
                  ptext);
            if (rm->win)
                CHECK(gk_result_for(&q, p->stm) == 1, "%s should win at %s", texts[i], ptext);
        }
        if (full_text) {
            gk_action_t a[GK_MAX_TURN];
            int k = G->parse_move(p, texts[i], a, GK_MAX_TURN, err, sizeof err);
            CHECK(k == 1 && a[0] == list[i], "%s does not parse back (%s) at %s", texts[i],
                  k < 0 ? err : "other move", ptext);
        }
    }
    qsort(texts, (size_t)n, sizeof texts[0], cmp_text);
    for (int i = 1; i < n; i++)
        CHECK(strcmp(texts[i], texts[i - 1]), "notation %s twice at %s", texts[i], ptext);

    gk_pos_t q;
    CHECK(G->pos_from_text(&q, ptext, p->turn_limit, err, sizeof err) == 0 &&
              !memcmp(&q, p, sizeof q),
          "position string %s does not round-trip (%s)", ptext, err);
}

int main(void) {
    gk_init();
    G = &gk_gounki_game;
    uint64_t seed = 20240611, moves = 0, turns = 0;
    int by_reason[GK_NREASONS] = {0};
    gk_rules_t rules = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    static gk_hist_t hist;
    for (int game = 0; game < GAMES && check_failures < 20; game++) {
        gk_pos_t p;
        G->setup(&p, &rules);
        gk_hist_init(&hist, &p);
        while (!gk_over(&p)) {
            check_position(&p, game < REF_GAMES, game < TEXT_GAMES, &moves);
            if ((game < PERFT2_GAMES && p.turn % 10 == 5) ||
                (game < PERFT3_GAMES && p.turn % 25 == 7)) {
                int d = game < PERFT3_GAMES && p.turn % 25 == 7 ? 3 : 2;
                uint64_t fast = G->perft(&p, d), slow = gk_perft_generic(&p, d);
                CHECK(fast == slow, "perft %d: fast %" PRIu64 " generic %" PRIu64, d, fast, slow);
            }
            gk_action_t list[GK_MAX_ACTIONS];
            int n = G->gen(&p, list);
            CHECK(n > 0, "no legal move in an unfinished game (game %d turn %d)", game, p.turn);
            if (n == 0) break;
            gk_action_t a = list[gk_splitmix64(&seed) % (uint64_t)n];
            if (game >= TEXT_GAMES) {
                char t[GK_MOVE_TEXT_MAX], err[256];
                gk_action_t b[GK_MAX_TURN];
                G->action_text(&p, a, t, sizeof t);
                CHECK(G->parse_move(&p, t, b, GK_MAX_TURN, err, sizeof err) == 1 && b[0] == a,
                      "%s does not parse back", t);
            }
            G->play(&p, a);
            CHECK(p.hash == G->hash_full(&p), "incremental hash (game %d turn %d)", game, p.turn);
            turns++;
            gk_hist_push(&hist, &p);
            gk_hist_check_repetition(&hist, &p);
        }
        by_reason[p.reason]++;
    }
    printf("%d games (%d against the reference), %" PRIu64 " turns, %" PRIu64
           " moves in the reference-checked positions\n",
           GAMES, REF_GAMES, turns, moves);
    for (int r = 1; r < GK_NREASONS; r++)
        if (by_reason[r])
            printf("  ended by %s: %d\n", gk_reason_text((gk_reason_t)r), by_reason[r]);
    /* The random games must reach every kind of ending the rules allow in them. */
    CHECK(by_reason[GK_REASON_EXIT] > 0, "no game ended by exit");
    return check_exit("test_gounki_props");
}
