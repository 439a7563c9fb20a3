/*
 * games/gounki.c -- the Gounki rules: setup, move generation, play, hash, perft and
 * the text forms (notation, position string, ASCII board).
 *
 * Encodings are documented in gounki.h, rules and decisions in docs/RULES.md, text
 * formats in docs/FORMATS.md.
 *
 * Move generation walks precomputed step tables: for each colour, square and
 * direction, the (up to 3) squares a stack reaches with the rebound rule applied, or
 * RAY_EXIT when the step leaves across the far edge, or RAY_NONE when it cannot go on.
 * One generator serves gen() and the counting perft (emit or count), so the two can
 * never disagree.
 */
#include "gounki.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "../common/status.h"

/* ---- tables, filled once by gounki_init() ---- */

enum { RAY_EXIT = 64, RAY_NONE = 65 };
/* Directions: diagonals (rebound after the first step), forward, sideways without
 * rebound (movements) and sideways with rebound (deployments). */
enum { D_DL, D_DR, D_FW, D_ML, D_MR, D_SL, D_SR, NDIRS };

static uint8_t ray[2][64][NDIRS][3];
static uint64_t zob_cell[32][64];
static uint64_t zob_black;
static uint8_t merge_ok[16][16]; /* sizes of the two stacks sum to <= 3 */

static void build_ray(int c, int sq, int dir, uint8_t out[3]) {
    int f = sq & 7, r = sq >> 3, fwd = c == GK_WHITE ? 1 : -1;
    int df = 0, dr = 0, rebound = 0;
    switch (dir) {
    case D_DL: df = -1, dr = fwd, rebound = 1; break;
    case D_DR: df = 1, dr = fwd, rebound = 1; break;
    case D_FW: df = 0, dr = fwd; break;
    case D_ML: df = -1; break;
    case D_MR: df = 1; break;
    case D_SL: df = -1, rebound = 1; break;
    case D_SR: df = 1, rebound = 1; break;
    }
    int done = 0, bounced = 0;
    for (int k = 0; k < 3; k++) {
        if (done) {
            out[k] = RAY_NONE;
            continue;
        }
        int nr = r + dr;
        if (nr < 0 || nr > 7) { /* across the far edge: leaves the board, whatever the file */
            out[k] = RAY_EXIT;
            done = 1;
            continue;
        }
        int nf = f + df;
        if (nf < 0 || nf > 7) {
            /* Rebound only after at least one step of the line, and at most once. */
            if (!rebound || k == 0 || bounced) {
                out[k] = RAY_NONE;
                done = 1;
                continue;
            }
            df = -df, bounced = 1;
            nf = f + df;
        }
        f = nf, r = nr;
        out[k] = (uint8_t)(f + 8 * r);
    }
}

void gounki_init(void) {
    for (int c = 0; c < 2; c++)
        for (int sq = 0; sq < 64; sq++)
            for (int d = 0; d < NDIRS; d++) build_ray(c, sq, d, ray[c][sq][d]);
    uint64_t seed = 0x60C4B1E5A7ull;
    for (int v = 0; v < 32; v++)
        for (int sq = 0; sq < 64; sq++)
            zob_cell[v][sq] = (v & 15) && gounki_cell_size(v) <= 3 ? gk_splitmix64(&seed) : 0;
    zob_black = gk_splitmix64(&seed);
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++)
            merge_ok[a][b] = gounki_cell_size(a) + gounki_cell_size(b) <= 3;
}

/* ---- position basics ---- */

static void set_cell(gk_pos_t *p, int sq, int v) {
    /* A cell is empty or a stack of 1 to 3 pieces of one colour (gounki.h). */
    assert(sq >= 0 && sq < 64 && v >= 0 && v < 32);
    assert(!(v & 15) ? v == 0 : gounki_cell_size(v) <= 3);
    int old = p->b.cell[sq];
    p->hash ^= zob_cell[old][sq] ^ zob_cell[v][sq];
    p->b.cell[sq] = (uint8_t)v;
    uint64_t bit = 1ull << sq;
    for (int k = GOUNKI_OCC_WORD; k < GOUNKI_OCC_WORD + 8; k++) p->b.word[k] &= ~bit;
    if (v & 15) {
        int c = (v >> 4) & 1, size = gounki_cell_size(v);
        p->b.word[GOUNKI_OCC_WORD + c] |= bit;
        if (size == 1) p->b.word[(v & 3 ? GOUNKI_R1_WORD : GOUNKI_S1_WORD) + c] |= bit;
        if (size == 3) p->b.word[GOUNKI_FULL_WORD + c] |= bit;
    }
}

static uint64_t gounki_hash_full(const gk_pos_t *p) {
    uint64_t h = p->stm == GK_BLACK ? zob_black : 0;
    for (int sq = 0; sq < 64; sq++) h ^= zob_cell[p->b.cell[sq] & 31][sq];
    return h;
}

void gounki_pos_fix(gk_pos_t *p) {
    for (int k = GOUNKI_OCC_WORD; k < GOUNKI_OCC_WORD + 8; k++) p->b.word[k] = 0;
    for (int sq = 0; sq < 64; sq++) {
        int v = p->b.cell[sq];
        p->b.cell[sq] = 0;
        set_cell(p, sq, v);
    }
    p->hash = gounki_hash_full(p);
}

static void clear_pos(gk_pos_t *p, uint16_t turn_limit) {
    memset(p, 0, sizeof *p);
    p->game = GK_GAME_GOUNKI;
    p->turn_limit = turn_limit;
}

static void gounki_setup(gk_pos_t *p, const gk_rules_t *r) {
    clear_pos(p, r->turn_limit);
    p->variant = 0;
    for (int f = 0; f < 8; f++) {
        /* Squares stand on the dark squares (a1, b2, ...), rounds on the light ones. */
        for (int rank = 0; rank < 8; rank++) {
            if (rank > 1 && rank < 6) continue;
            int owner = rank < 2 ? GK_WHITE : GK_BLACK;
            int dark = ((f + rank) & 1) == 0;
            set_cell(p, GOUNKI_SQ(f, rank), gounki_make_cell(owner, !dark, dark));
        }
    }
    p->hash = gounki_hash_full(p);
}

/* ---- move generation ---- */

static inline gk_action_t deploy_action(int o, const int *drops, int nd, int exits, int kinds,
                                        int stacks) {
    gk_action_t a = (gk_action_t)o | GOUNKI_A_DEPLOY;
    for (int i = 0; i < nd; i++) a |= (gk_action_t)drops[i] << (7 + 6 * i);
    a |= (gk_action_t)nd << 25;
    if (exits) a |= GOUNKI_A_D_EXIT;
    a |= (gk_action_t)kinds << 28;
    if (stacks) a |= GOUNKI_A_D_STACK;
    return a;
}

/*
 * Movements of the stack v on o.  `out` NULL counts only.  Returns the number found.
 * Destinations of different lines never coincide on an 8-wide board with stacks of at
 * most 3, except the exit, which is emitted once.
 */
#define ALWAYS_INLINE __attribute__((always_inline)) inline

static ALWAYS_INLINE int gen_movements(const gk_pos_t *p, int c, int o, int v, gk_action_t *out) {
    int n = 0, exited = 0;
    int r = v & 3, s = (v >> 2) & 3;
    int ownbit = c << 4;
    const uint8_t(*rays)[3] = ray[c][o];
    for (int d = 0; d < 5; d++) {
        int len = d < 2 ? r : s;
        if (d < 2 ? r == 0 : s == 0) continue;
        const uint8_t *ry = rays[d];
        for (int k = 0; k < len; k++) {
            int t = ry[k];
            if (t == RAY_NONE) break;
            if (t == RAY_EXIT) {
                if (!exited) {
                    exited = 1;
                    if (out) out[n] = (gk_action_t)o | GOUNKI_A_M_EXIT;
                    n++;
                }
                break;
            }
            int u = p->b.cell[t];
            if (!(u & 15)) {
                if (out) out[n] = (gk_action_t)o | (gk_action_t)t << 7;
                n++;
                continue;
            }
            if ((u & 0x10) != ownbit) {
                if (out) out[n] = (gk_action_t)o | (gk_action_t)t << 7 | GOUNKI_A_M_CAPT;
                n++;
            } else if (merge_ok[u & 15][v & 15]) {
                if (out) out[n] = (gk_action_t)o | (gk_action_t)t << 7 | GOUNKI_A_M_STACK;
                n++;
            }
            break;
        }
    }
    return n;
}

/* Size of the own stack that a drop on t would land on, or -1 when t is an enemy. */
static inline int drop_base(const gk_pos_t *p, int c, int o, int t) {
    int u = p->b.cell[t];
    if (t == o || !(u & 15)) return 0;
    if (((u >> 4) & 1) != c) return -1;
    return gounki_cell_size(u);
}

/* A deployment being built: the drop squares so far, which of them are squares
 * (bit i of kinds) and whether any lands on an own stack. */
typedef struct {
    int drops[3], nd, kinds, stacks;
} deploy_t;

enum { WALK_DONE, WALK_EXIT_FIRST, WALK_EXIT_LATER, WALK_BLOCKED };

/*
 * One group of a deployment: cnt pieces of `kind` (0 round, 1 square) dropped one per
 * step along the ray ry, appended to d.  Returns WALK_DONE when every piece found a
 * square, WALK_EXIT_* when a step left across the far edge (the deployment ends there,
 * on the group's first step or a later one), WALK_BLOCKED when the line stops: no
 * square, an enemy, or a drop that would make a stack of 4.
 */
static ALWAYS_INLINE int walk_group(const gk_pos_t *p, int c, int o, const uint8_t *ry, int cnt,
                                    int kind, deploy_t *d) {
    for (int k = 0; k < cnt; k++) {
        int t = ry[k];
        if (t == RAY_NONE) return WALK_BLOCKED;
        if (t == RAY_EXIT) return k == 0 ? WALK_EXIT_FIRST : WALK_EXIT_LATER;
        int base = drop_base(p, c, o, t);
        if (base < 0) return WALK_BLOCKED;
        for (int j = 0; j < d->nd; j++) base += d->drops[j] == t;
        if (base >= 3) return WALK_BLOCKED;
        assert(d->nd < 3); /* a stack holds at most 3 pieces */
        d->stacks |= base > 0;
        d->kinds |= kind << d->nd;
        d->drops[d->nd++] = t;
    }
    return WALK_DONE;
}

/*
 * Deployments of the stack v (2 or 3 pieces) on o, in numbered steps (this loop is
 * hot: it counts perft's leaves).
 *  1. Choose the order: rounds first or squares first (a kind the stack lacks is
 *     skipped).
 *  2. Walk group 1 from o in each direction of its kind.
 *  3. A group 1 that exits ends the deployment.  An exit on the first step is the same
 *     move for both diagonals and, for the very first drop, both kinds: emit it once.
 *  4. A stack of one kind is complete after group 1.
 *  5. Otherwise walk group 2 from the last drop of group 1 in each direction of the
 *     other kind; its first-step exit is likewise emitted once per group 1.
 */
static ALWAYS_INLINE int gen_deployments(const gk_pos_t *p, int c, int o, int v, gk_action_t *out) {
    static const uint8_t dirs[2][3] = {{D_DL, D_DR, 0}, {D_FW, D_SL, D_SR}};
    int n = 0, first_exit = 0;
    int r = v & 3, s = (v >> 2) & 3, size = r + s;
    for (int kind1 = 0; kind1 < 2; kind1++) { /* 1. */
        int c1 = kind1 == 0 ? r : s, c2 = size - c1, kind2 = !kind1;
        if (c1 == 0) continue;
        int nd1 = kind1 ? 3 : 2, nd2 = kind1 ? 2 : 3;
        for (int i1 = 0; i1 < nd1; i1++) {
            deploy_t d = {{0, 0, 0}, 0, 0, 0};
            int w = walk_group(p, c, o, ray[c][o][dirs[kind1][i1]], c1, kind1, &d); /* 2. */
            if (w == WALK_BLOCKED) continue;
            if (w != WALK_DONE) { /* 3. */
                if (w == WALK_EXIT_FIRST && first_exit++) continue;
                if (out) out[n] = deploy_action(o, d.drops, d.nd, 1, d.kinds, d.stacks);
                n++;
                continue;
            }
            if (c2 == 0) { /* 4. */
                if (out) out[n] = deploy_action(o, d.drops, d.nd, 0, d.kinds, d.stacks);
                n++;
                continue;
            }
            int last = d.drops[d.nd - 1], exit2 = 0;
            for (int i2 = 0; i2 < nd2; i2++) { /* 5. */
                deploy_t d2 = d;
                w = walk_group(p, c, o, ray[c][last][dirs[kind2][i2]], c2, kind2, &d2);
                if (w == WALK_BLOCKED) continue;
                if (w == WALK_EXIT_FIRST && exit2++) continue;
                if (out)
                    out[n] = deploy_action(o, d2.drops, d2.nd, w != WALK_DONE, d2.kinds, d2.stacks);
                n++;
            }
        }
    }
    return n;
}

static inline int gen_all(const gk_pos_t *p, gk_action_t *out) {
    if (p->result != GK_ONGOING) return 0;
    int c = p->stm, n = 0;
    for (uint64_t bb = gounki_occ(p, c); bb; bb &= bb - 1) {
        int o = __builtin_ctzll(bb);
        int v = p->b.cell[o];
        n += gen_movements(p, c, o, v, out ? out + n : NULL);
        if (gounki_cell_size(v) >= 2) n += gen_deployments(p, c, o, v, out ? out + n : NULL);
    }
    return n;
}

static int gounki_gen(const gk_pos_t *p, gk_action_t *out) {
    int n = gen_all(p, out);
    assert(n <= GK_MAX_ACTIONS);
    return n;
}

/* Counting only: one copy of the generator per stack composition, so that the step
 * loops unroll (perft's leaves are counted here). */
static ALWAYS_INLINE int count_stack(const gk_pos_t *p, int c, int o, const int v) {
    int n = gen_movements(p, c, o, v, NULL);
    if (gounki_cell_size(v) >= 2) n += gen_deployments(p, c, o, v, NULL);
    return n;
}

#define FILE_A 0x0101010101010101ull
#define FILE_H (FILE_A << 7)
#define RANK_1 0xFFull
#define RANK_8 (RANK_1 << 56)

static int count_all(const gk_pos_t *p) {
    if (p->result != GK_ONGOING) return 0;
    int c = p->stm, n = 0;
    /* Single pieces by bitboards: each step of a single lands anywhere but on an own
     * triple (empty: move, enemy: capture, own: stack), or exits from the last rank
     * (once per piece, whatever the direction); singles do not deploy. */
    uint64_t r1 = p->b.word[GOUNKI_R1_WORD + c], s1 = p->b.word[GOUNKI_S1_WORD + c];
    uint64_t open = ~p->b.word[GOUNKI_FULL_WORD + c];
    if (c == GK_WHITE) {
        uint64_t r = r1 & ~RANK_8, s = s1 & ~RANK_8;
        n += __builtin_popcountll(((r & ~FILE_A) << 7) & open);
        n += __builtin_popcountll(((r & ~FILE_H) << 9) & open);
        n += __builtin_popcountll((s << 8) & open);
        n += __builtin_popcountll((r1 | s1) & RANK_8);
    } else {
        uint64_t r = r1 & ~RANK_1, s = s1 & ~RANK_1;
        n += __builtin_popcountll(((r & ~FILE_A) >> 9) & open);
        n += __builtin_popcountll(((r & ~FILE_H) >> 7) & open);
        n += __builtin_popcountll((s >> 8) & open);
        n += __builtin_popcountll((r1 | s1) & RANK_1);
    }
    n += __builtin_popcountll(((s1 & ~FILE_A) >> 1) & open);
    n += __builtin_popcountll(((s1 & ~FILE_H) << 1) & open);
    for (uint64_t bb = gounki_occ(p, c) & ~(r1 | s1); bb; bb &= bb - 1) {
        int o = __builtin_ctzll(bb);
        switch (p->b.cell[o] & 15) {
        case 2: n += count_stack(p, c, o, 2); break;   /* RR */
        case 3: n += count_stack(p, c, o, 3); break;   /* RRR */
        case 5: n += count_stack(p, c, o, 5); break;   /* RS */
        case 6: n += count_stack(p, c, o, 6); break;   /* RRS */
        case 8: n += count_stack(p, c, o, 8); break;   /* SS */
        case 9: n += count_stack(p, c, o, 9); break;   /* RSS */
        case 12: n += count_stack(p, c, o, 12); break; /* SSS */
        }
    }
    return n;
}

int gounki_count_moves(const gk_pos_t *p) {
    return count_all(p);
}

/* ---- play ---- */

static void gounki_play(gk_pos_t *p, gk_action_t a) {
    int c = p->stm, o = gounki_act_from(a);
    int v = p->b.cell[o];
    /* Legal actions only (game.h): the game goes on and o holds a stack of the mover;
     * action 0 (a1-a1) is never legal. */
    assert(a != GK_NO_ACTION && p->result == GK_ONGOING && p->in_turn == 0);
    assert((v & 15) && ((v >> 4) & 1) == c);
    int win = 0;
    set_cell(p, o, 0);
    if (!gounki_act_is_deploy(a)) {
        if (a & GOUNKI_A_M_EXIT) {
            win = 1;
        } else {
            int t = gounki_act_to(a), u = p->b.cell[t];
            if ((u & 15) && ((u >> 4) & 1) == c) v += u & 15; /* stacking: counts add */
            set_cell(p, t, v);
            if ((a & GOUNKI_A_M_CAPT) && gounki_occ(p, !c) == 0) win = 2;
        }
    } else {
        int nd = gounki_act_ndrops(a);
        for (int i = 0; i < nd; i++) {
            int t = gounki_act_drop(a, i), u = p->b.cell[t];
            int add = gounki_act_drop_is_square(a, i) ? 4 : 1;
            set_cell(p, t, (u & 15) ? u + add : add | (c << 4));
        }
        if (a & GOUNKI_A_D_EXIT) win = 1;
    }
    p->stm ^= 1;
    p->hash ^= zob_black;
    p->turn++;
    if (win) {
        p->result = c == GK_WHITE ? GK_WIN_WHITE : GK_WIN_BLACK;
        p->reason = win == 1 ? GK_REASON_EXIT : GK_REASON_CAPTURE_ALL;
    } else if (p->turn_limit && p->turn >= p->turn_limit) {
        p->result = GK_DRAW;
        p->reason = GK_REASON_TURN_LIMIT;
    }
}

/* ---- perft ---- */

static uint64_t perft_rec(const gk_pos_t *p, int depth) {
    if (depth == 1) return (uint64_t)count_all(p);
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gen_all(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gounki_play(&q, list[i]);
        total += perft_rec(&q, depth - 1);
    }
    return total;
}

static uint64_t gounki_perft(const gk_pos_t *p, int depth) {
    assert(depth >= 0);
    if (depth <= 0) return 1;
    return perft_rec(p, depth);
}

/* ---- text: notation ---- */

typedef struct {
    int from;
    int deploy; /* 1 deployment, 0 movement, -1 not said (input only) */
    int n;      /* targets */
    int t[8];   /* squares, or RAY_EXIT for Out */
    int plus[8];
    int x; /* movement marked / known as a capture */
} mv_t;

#define MV_MAXT 8

static void action_to_mv(const gk_pos_t *p, gk_action_t a, mv_t *m) {
    memset(m, 0, sizeof *m);
    m->from = gounki_act_from(a);
    m->deploy = gounki_act_is_deploy(a);
    if (!m->deploy) {
        m->n = 1;
        m->t[0] = (a & GOUNKI_A_M_EXIT) ? RAY_EXIT : gounki_act_to(a);
        m->plus[0] = (a & GOUNKI_A_M_STACK) != 0;
        m->x = (a & GOUNKI_A_M_CAPT) != 0;
        return;
    }
    int nd = gounki_act_ndrops(a);
    for (int i = 0; i < nd; i++) {
        int t = gounki_act_drop(a, i);
        int on = t != m->from && (p->b.cell[t] & 15);
        for (int j = 0; j < i; j++) on |= m->t[j] == t;
        m->t[i] = t;
        m->plus[i] = on;
    }
    m->n = nd;
    if (a & GOUNKI_A_D_EXIT) m->t[m->n++] = RAY_EXIT;
}

static int put_sq(char *s, int sq) {
    if (sq == RAY_EXIT) {
        memcpy(s, "Out", 4);
        return 3;
    }
    s[0] = (char)('a' + (sq & 7)), s[1] = (char)('1' + (sq >> 3)), s[2] = 0;
    return 2;
}

static int mv_text(const mv_t *m, char *buf, size_t cap) {
    char tmp[64];
    int len = put_sq(tmp, m->from);
    tmp[len++] = m->deploy ? '*' : m->x ? 'x' : '-';
    for (int i = 0; i < m->n; i++) {
        if (i) tmp[len++] = ',';
        len += put_sq(tmp + len, m->t[i]);
        if (m->plus[i]) tmp[len++] = '+';
    }
    tmp[len] = 0;
    if ((size_t)len >= cap) return -1;
    memcpy(buf, tmp, (size_t)len + 1);
    return len;
}

static int gounki_action_text(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap) {
    mv_t m;
    action_to_mv(p, a, &m);
    return mv_text(&m, buf, cap);
}

static int gounki_move_text(const gk_pos_t *p, const gk_action_t *seq, int n, char *buf,
                            size_t cap) {
    if (n != 1) return -1;
    return gounki_action_text(p, seq[0], buf, cap);
}

static int lower(int ch) {
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}
static int is_space(int ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static void sq_name(int sq, char out[4]) {
    if (sq == RAY_EXIT)
        memcpy(out, "Out", 4);
    else
        out[0] = (char)('a' + (sq & 7)), out[1] = (char)('1' + (sq >> 3)), out[2] = 0;
}

/* Boardspace form: "Move A 1 A 2" / "Deploy C 5 D 5 E 5 F 6"; ranks beyond the far edge
 * (9 and 10 for White, 0 and -1 for Black) mean Out. */
static int parse_boardspace(const gk_pos_t *p, const char *s, mv_t *m, char *err, size_t errcap) {
    int k = 0;
    for (;;) {
        while (is_space(*s)) s++;
        if (!*s) break;
        int f = lower(*s);
        if (f < 'a' || f > 'h')
            return gk_fail(err, errcap, GK_E_INVALID, "expected a file letter a-h at '%.20s'", s);
        s++;
        while (is_space(*s)) s++;
        int neg = 0, num = 0, digits = 0;
        if (*s == '-') neg = 1, s++;
        while (*s >= '0' && *s <= '9' && digits < 3) num = num * 10 + (*s++ - '0'), digits++;
        if (!digits || (*s >= '0' && *s <= '9'))
            return gk_fail(err, errcap, GK_E_INVALID, "expected a rank number after the file '%c'",
                           f);
        if (neg) num = -num;
        int sq;
        if (num >= 1 && num <= 8)
            sq = GOUNKI_SQ(f - 'a', num - 1);
        else if (k > 0 && (p->stm == GK_WHITE ? (num == 9 || num == 10) : (num == 0 || num == -1)))
            sq = RAY_EXIT;
        else
            return gk_fail(err, errcap, GK_E_INVALID, "rank %d is off the board", num);
        if (k == 0)
            m->from = sq;
        else {
            if (m->n >= MV_MAXT)
                return gk_fail(err, errcap, GK_E_INVALID, "too many squares in the move");
            m->t[m->n++] = sq;
        }
        k++;
    }
    if (m->n == 0) return gk_fail(err, errcap, GK_E_INVALID, "the move names no destination");
    return 0;
}

/* Parses the move text into m (syntax only).  Returns 0 or -1 with err. */
static int parse_mv(const gk_pos_t *p, const char *text, mv_t *m, char *err, size_t errcap) {
    memset(m, 0, sizeof *m);
    m->deploy = -1;
    const char *s = text;
    while (is_space(*s)) s++;
    /* Boardspace keywords. */
    static const struct {
        const char *kw;
        int deploy;
    } kws[] = {{"move", 0}, {"deploy", 1}};
    for (int i = 0; i < 2; i++) {
        size_t l = strlen(kws[i].kw), j = 0;
        while (j < l && s[j] && lower(s[j]) == kws[i].kw[j]) j++;
        if (j == l && is_space(s[l])) {
            m->deploy = kws[i].deploy;
            return parse_boardspace(p, s + l, m, err, errcap);
        }
    }
    int state = 0; /* 0 want origin, 1 after origin, 2 want target, 3 after target */
    while (*s) {
        int ch = lower(*s);
        if (is_space(ch)) {
            s++;
            continue;
        }
        if (ch >= 'a' && ch <= 'h' && s[1] >= '1' && s[1] <= '8') {
            int sq = GOUNKI_SQ(ch - 'a', s[1] - '1');
            s += 2;
            if (*s >= '0' && *s <= '9')
                return gk_fail(err, errcap, GK_E_INVALID, "bad square '%.4s'", s - 2);
            if (state == 0) {
                m->from = sq;
                state = 1;
                continue;
            }
            if (m->n >= MV_MAXT)
                return gk_fail(err, errcap, GK_E_INVALID, "too many squares in the move");
            if (m->n > 0 && m->t[m->n - 1] == RAY_EXIT)
                return gk_fail(err, errcap, GK_E_INVALID, "nothing may follow Out");
            m->t[m->n++] = sq;
            state = 3;
            continue;
        }
        if (ch == 'o' && lower(s[1]) == 'u' && lower(s[2]) == 't') {
            if (state == 0)
                return gk_fail(err, errcap, GK_E_INVALID,
                               "a move starts with its origin square, not Out");
            if (m->n >= MV_MAXT || (m->n > 0 && m->t[m->n - 1] == RAY_EXIT))
                return gk_fail(err, errcap, GK_E_INVALID, "nothing may follow Out");
            m->t[m->n++] = RAY_EXIT;
            s += 3;
            state = 3;
            continue;
        }
        if ((ch == '-' || ch == 'x' || ch == '*') && state == 1) {
            m->deploy = ch == '*';
            m->x = ch == 'x';
            state = 2;
            s++;
            continue;
        }
        if (ch == ',' && state == 3) {
            state = 2;
            s++;
            continue;
        }
        if (ch == '+' && state == 3 && m->t[m->n - 1] != RAY_EXIT) {
            if (m->plus[m->n - 1]) return gk_fail(err, errcap, GK_E_INVALID, "'+' written twice");
            m->plus[m->n - 1] = 1;
            s++;
            continue;
        }
        if (state == 0)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "expected an origin square like c5 at '%.20s'", s);
        return gk_fail(err, errcap, GK_E_INVALID, "unexpected '%.20s'", s);
    }
    if (state == 0) return gk_fail(err, errcap, GK_E_INVALID, "empty move");
    if (state != 3) return gk_fail(err, errcap, GK_E_INVALID, "the move names no destination");
    if (m->deploy < 0) m->deploy = m->n > 1;
    if (m->x && (m->deploy || m->n > 1))
        return gk_fail(err, errcap, GK_E_INVALID, "a deployment cannot capture");
    if (!m->deploy && m->n > 1)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "a movement has one destination (use '*' for a deployment)");
    return 0;
}

static int same_targets(const mv_t *a, const mv_t *b) {
    if (a->from != b->from || a->deploy != b->deploy || a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->t[i] != b->t[i]) return 0;
    return 1;
}

static int gounki_parse_move(const gk_pos_t *p, const char *text, gk_action_t *seq, int cap,
                             char *err, size_t errcap) {
    mv_t in;
    char e2[160];
    if (cap < 1) return gk_fail(err, errcap, GK_E_INVALID, "no room for the move");
    if (parse_mv(p, text, &in, e2, sizeof e2) < 0)
        return gk_fail(err, errcap, GK_E_INVALID, "%s", e2);
    if (p->result != GK_ONGOING)
        return gk_fail(err, errcap, GK_E_INVALID, "the game is over (%s)",
                       gk_reason_text(p->reason));
    char fs[4];
    sq_name(in.from, fs);
    int v = p->b.cell[in.from];
    if (!(v & 15)) return gk_fail(err, errcap, GK_E_INVALID, "no piece on %s", fs);
    if (((v >> 4) & 1) != p->stm)
        return gk_fail(err, errcap, GK_E_INVALID, "%s holds a %s piece but %s is to move", fs,
                       p->stm == GK_WHITE ? "Black" : "White",
                       p->stm == GK_WHITE ? "White" : "Black");
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gen_all(p, list);
    for (int i = 0; i < n; i++) {
        if (gounki_act_from(list[i]) != in.from) continue;
        mv_t m;
        action_to_mv(p, list[i], &m);
        if (!same_targets(&m, &in)) continue;
        if (in.x && !m.x) {
            char ts[4];
            sq_name(m.t[0], ts);
            return gk_fail(err, errcap, GK_E_INVALID, "'x' but %s holds no enemy piece", ts);
        }
        for (int j = 0; j < m.n; j++)
            if (in.plus[j] && !m.plus[j]) {
                char ts[4];
                sq_name(m.t[j], ts);
                return gk_fail(err, errcap, GK_E_INVALID,
                               "'+' but %s holds no own piece when it is reached", ts);
            }
        seq[0] = list[i];
        return 1;
    }
    /* No match: say why when it is cheap, then list what the piece can do. */
    int size = gounki_cell_size(v);
    char why[96] = "";
    if (in.deploy && size == 1)
        snprintf(why, sizeof why, "a single piece cannot deploy");
    else if (in.deploy && in.n > size)
        snprintf(why, sizeof why, "a stack of %d deploys at most %d pieces", size, size);
    else if (in.deploy && in.t[in.n - 1] != RAY_EXIT && in.n != size)
        snprintf(why, sizeof why, "a stack of %d must deploy all %d pieces", size, size);
    else if (in.deploy) {
        for (int i = 0; i < in.n; i++) {
            int u = in.t[i] == RAY_EXIT ? 0 : p->b.cell[in.t[i]];
            if ((u & 15) && ((u >> 4) & 1) != p->stm) {
                char ts[4];
                sq_name(in.t[i], ts);
                snprintf(why, sizeof why, "a deployment cannot drop on an enemy piece (%s)", ts);
                break;
            }
        }
    } else if (in.t[0] != RAY_EXIT) {
        int u = p->b.cell[in.t[0]];
        if ((u & 15) && ((u >> 4) & 1) == p->stm && gounki_cell_size(u) + size > 3)
            snprintf(why, sizeof why, "the stack would hold %d pieces (at most 3)",
                     gounki_cell_size(u) + size);
    }
    int len =
        snprintf(err, errcap, "not a legal move%s%s; %s can play:", why[0] ? ": " : "", why, fs);
    for (int i = 0; i < n && len > 0 && (size_t)len < errcap; i++) {
        if (gounki_act_from(list[i]) != in.from) continue;
        char mt[32];
        gounki_action_text(p, list[i], mt, sizeof mt);
        int w = snprintf(err + len, errcap - (size_t)len, " %s", mt);
        if (w < 0 || (size_t)(len + w) >= errcap) {
            /* Truncated: end with an ellipsis if there is room. */
            if (errcap > 4) memcpy(err + errcap - 4, "...", 4);
            break;
        }
        len += w;
    }
    return -1;
}

/* ---- text: position string ---- */

static int gounki_pos_to_text(const gk_pos_t *p, char *buf, size_t cap) {
    char tmp[GK_POS_TEXT_MAX];
    int len = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int f = 0; f < 8; f++) {
            int v = p->b.cell[GOUNKI_SQ(f, rank)];
            if (!(v & 15)) {
                empty++;
                continue;
            }
            if (empty) tmp[len++] = (char)('0' + empty), empty = 0;
            int r = v & 3, s = (v >> 2) & 3, black = (v >> 4) & 1;
            if (r + s > 1) tmp[len++] = '(';
            for (int i = 0; i < r; i++) tmp[len++] = black ? 'r' : 'R';
            for (int i = 0; i < s; i++) tmp[len++] = black ? 's' : 'S';
            if (r + s > 1) tmp[len++] = ')';
        }
        if (empty) tmp[len++] = (char)('0' + empty);
        if (rank) tmp[len++] = '/';
    }
    len += snprintf(tmp + len, sizeof tmp - (size_t)len, " %c %u", p->stm == GK_WHITE ? 'w' : 'b',
                    (unsigned)p->turn);
    if (p->result != GK_ONGOING)
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, " %s %s",
                        gk_result_text((gk_result_t)p->result),
                        gk_reason_text((gk_reason_t)p->reason));
    if ((size_t)len >= cap) return -1;
    memcpy(buf, tmp, (size_t)len + 1);
    return len;
}

/* A position-string error: msg, and where in the text it was found. */
static int fail_at(char *err, size_t errcap, const char *msg, const char *at) {
    if (at) return gk_fail(err, errcap, GK_E_INVALID, "%s at '%.16s'", msg, at);
    return gk_fail(err, errcap, GK_E_INVALID, "%s", msg);
}

static int gounki_pos_from_text(gk_pos_t *out, const char *text, uint16_t turn_limit, char *err,
                                size_t errcap) {
    gk_pos_t p;
    clear_pos(&p, turn_limit);
    const char *s = text;
    while (is_space(*s)) s++;
    int count[2][2] = {{0, 0}, {0, 0}}; /* [colour][0 rounds, 1 squares] */
    for (int rank = 7; rank >= 0; rank--) {
        int f = 0, prev_digit = 0;
        while (f < 8) {
            int ch = *s;
            if (ch >= '1' && ch <= '8') {
                if (prev_digit) return fail_at(err, errcap, "two digits in a row", s);
                if (f + (ch - '0') > 8)
                    return fail_at(err, errcap, "rank longer than 8 squares", s);
                f += ch - '0';
                s++;
                prev_digit = 1;
                continue;
            }
            prev_digit = 0;
            int paren = ch == '(';
            if (paren) s++;
            int r = 0, sq = 0, owner = -1, k = 0;
            while (k < 3 && (*s == 'R' || *s == 'S' || *s == 'r' || *s == 's')) {
                int o = (*s == 'r' || *s == 's') ? GK_BLACK : GK_WHITE;
                if (owner >= 0 && o != owner)
                    return fail_at(err, errcap, "a stack mixes White and Black pieces", s);
                owner = o;
                if (*s == 'R' || *s == 'r')
                    r++;
                else
                    sq++;
                s++, k++;
                if (!paren) break;
            }
            if (k == 0) {
                if (!*s) return fail_at(err, errcap, "the board ends too early", NULL);
                if (*s == '/' || *s == ' ')
                    return fail_at(err, errcap, "rank shorter than 8 squares", s);
                return fail_at(err, errcap, "unexpected character in the board", s);
            }
            if (paren) {
                if (*s == 'R' || *s == 'S' || *s == 'r' || *s == 's')
                    return fail_at(err, errcap, "a stack holds at most 3 pieces", s);
                if (*s != ')') return fail_at(err, errcap, "expected ')' closing the stack", s);
                s++;
            }
            count[owner][0] += r, count[owner][1] += sq;
            set_cell(&p, GOUNKI_SQ(f, rank), gounki_make_cell(owner, r, sq));
            f++;
        }
        if (rank) {
            if (*s != '/') return fail_at(err, errcap, "expected '/' after 8 squares", s);
            s++;
        }
    }
    if (*s != ' ' && *s != '\t')
        return fail_at(err, errcap, "expected ' ' after the board", *s ? s : NULL);
    while (*s == ' ' || *s == '\t') s++;
    if (*s == 'w' || *s == 'W')
        p.stm = GK_WHITE;
    else if (*s == 'b' || *s == 'B')
        p.stm = GK_BLACK;
    else
        return fail_at(err, errcap, "expected the side to move, w or b", *s ? s : NULL);
    s++;
    if (*s != ' ' && *s != '\t')
        return fail_at(err, errcap, "expected ' ' and the turn count after the side to move",
                       *s ? s : NULL);
    while (*s == ' ' || *s == '\t') s++;
    if (!(*s >= '0' && *s <= '9'))
        return fail_at(err, errcap, "expected the turn count", *s ? s : NULL);
    long turns = 0;
    if (*s == '0' && s[1] >= '0' && s[1] <= '9')
        return fail_at(err, errcap, "turn count with a leading zero", s);
    while (*s >= '0' && *s <= '9') {
        turns = turns * 10 + (*s++ - '0');
        if (turns > 65535) return fail_at(err, errcap, "turn count above 65535", NULL);
    }
    p.turn = (uint16_t)turns;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            if (count[c][k] > 8)
                return gk_fail(err, errcap, GK_E_INVALID, "%s has %d %s (at most 8)",
                               c ? "Black" : "White", count[c][k], k ? "squares" : "rounds");
    /* Optional result and reason. */
    const char *t = s;
    while (*t == ' ' || *t == '\t') t++;
    if (*t && t != s) {
        static const gk_result_t results[] = {GK_WIN_WHITE, GK_WIN_BLACK, GK_DRAW};
        int res = -1;
        for (int i = 0; i < 3; i++) {
            const char *rt = gk_result_text(results[i]);
            size_t l = strlen(rt);
            if (!strncmp(t, rt, l) && (t[l] == ' ' || t[l] == '\t')) {
                res = (int)results[i];
                t += l;
                break;
            }
        }
        if (res < 0) return fail_at(err, errcap, "expected a result 1-0, 0-1 or 1/2-1/2", t);
        while (*t == ' ' || *t == '\t') t++;
        static const gk_reason_t reasons[] = {GK_REASON_EXIT,       GK_REASON_CAPTURE_ALL,
                                              GK_REASON_NO_MOVE,    GK_REASON_REPETITION,
                                              GK_REASON_TURN_LIMIT, GK_REASON_RESIGN};
        size_t l = 0;
        while (t[l] && !is_space(t[l])) l++;
        int why = -1, named = gk_reason_named(t, l); /* reads the old name ply-limit too */
        for (int i = 0; i < 6; i++)
            if (named == (int)reasons[i]) why = named, t += l;
        if (why < 0) return fail_at(err, errcap, "expected the reason the game ended", t);
        int draw_reason = why == GK_REASON_REPETITION || why == GK_REASON_TURN_LIMIT;
        if ((res == GK_DRAW) != draw_reason)
            return fail_at(err, errcap, "the result does not fit its reason", NULL);
        p.result = (uint8_t)res;
        p.reason = (uint8_t)why;
        s = t;
    }
    while (is_space(*s)) s++;
    if (*s) return fail_at(err, errcap, "unexpected text after the position", s);
    int pieces[2] = {count[0][0] + count[0][1], count[1][0] + count[1][1]};
    if (p.result == GK_ONGOING && (!pieces[0] || !pieces[1]))
        return fail_at(err, errcap,
                       pieces[0] ? "Black has no piece in an unfinished game"
                                 : "White has no piece in an unfinished game",
                       NULL);
    if (p.reason == GK_REASON_CAPTURE_ALL && pieces[p.result == GK_WIN_WHITE ? 1 : 0])
        return fail_at(err, errcap, "capture-all but the loser still has pieces", NULL);
    if (p.result == GK_ONGOING && p.turn_limit && p.turn >= p.turn_limit) {
        p.result = GK_DRAW;
        p.reason = GK_REASON_TURN_LIMIT;
    }
    p.hash = gounki_hash_full(&p);
    *out = p;
    return 0;
}

/* ---- text: board ---- */

static int gounki_board_text(const gk_pos_t *p, char *buf, size_t cap) {
    char tmp[GK_BOARD_TEXT_MAX];
    int len = 0;
    const char *files = "      a     b     c     d     e     f     g     h\n";
    len += snprintf(tmp + len, sizeof tmp - (size_t)len, "%s", files);
    for (int rank = 7; rank >= 0; rank--) {
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, "  %d ", rank + 1);
        for (int f = 0; f < 8; f++) {
            int v = p->b.cell[GOUNKI_SQ(f, rank)];
            char cell[8] = "  .   ";
            if (v & 15) {
                int k = 1, r = v & 3, s = (v >> 2) & 3;
                memset(cell, ' ', 6);
                cell[0] = ' ';
                cell[k++] = (v >> 4) & 1 ? 'b' : 'w';
                for (int i = 0; i < r; i++) cell[k++] = 'R';
                for (int i = 0; i < s; i++) cell[k++] = 'S';
                cell[6] = 0;
            }
            len += snprintf(tmp + len, sizeof tmp - (size_t)len, "%s", cell);
        }
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, "  %d\n", rank + 1);
    }
    len += snprintf(tmp + len, sizeof tmp - (size_t)len, "%s", files);
    if (p->result == GK_ONGOING)
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, "%s to move, turn %u\n",
                        p->stm == GK_WHITE ? "White" : "Black", (unsigned)p->turn + 1);
    else
        len += snprintf(tmp + len, sizeof tmp - (size_t)len, "game over after turn %u: %s (%s)\n",
                        (unsigned)p->turn, gk_result_text((gk_result_t)p->result),
                        gk_reason_text((gk_reason_t)p->reason));
    if (len < 0 || (size_t)len >= cap) return -1;
    memcpy(buf, tmp, (size_t)len + 1);
    return len;
}

const gk_game_t gk_gounki_game = {
    .name = "gounki",
    .variants = {"standard", NULL},
    .setup = gounki_setup,
    .gen = gounki_gen,
    .play = gounki_play,
    .hash_full = gounki_hash_full,
    .perft = gounki_perft,
    .action_text = gounki_action_text,
    .move_text = gounki_move_text,
    .parse_move = gounki_parse_move,
    .pos_to_text = gounki_pos_to_text,
    .pos_from_text = gounki_pos_from_text,
    .board_text = gounki_board_text,
};
