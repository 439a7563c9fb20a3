/* solitaire/mirror.c -- the palindrome finder: half a solution and its mirror image. */
#include "mirror.h"

#include "../common/clock.h"
#include "../common/hash.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A cell of the finder: GS_EMPTY / GS_BLACK / GS_WHITE / GS_FIXED, plus SPECIAL on a
 * piece that started white (its colour is reversed in the start with no white piece). */
enum { SPECIAL = 4, COLOUR = 3, ODD_H = 3 };

typedef struct mkid {
    uint64_t hash;
    uint32_t parent;
    uint8_t from, over, to, h;
} mkid_t;

typedef struct mstep {
    uint32_t parent;
    uint8_t from, over, to;
} mstep_t;

typedef struct mbeam {
    const gs_problem_t *p;
    const gs_mirror_limits_t *lim;
    int width;
    uint8_t map[GS_SQUARES], inv[GS_SQUARES]; /* the symmetry s and its inverse */
    int8_t nbr[GS_SQUARES][8];
    uint64_t zob[GS_SQUARES][8];
    uint8_t (*cur)[GS_SQUARES], (*next)[GS_SQUARES];
    uint64_t *cur_hash, *next_hash;
    uint8_t *cur_h, *next_h;
    mkid_t *kids;
    size_t kids_cap;
    uint32_t *order, *tmp; /* kids sorted by h; by the hash's top bits */
    size_t *tie;           /* counts of the hash sort */
    uint64_t *seen;        /* hashes kept at this depth (open addressing; 0 = free) */
    size_t seen_mask;
    mstep_t *steps[GS_MAX_LEN / 2 + 2];
    uint64_t *nodes;
    int *aborted;
    bool gen_ties; /* equal h kept in generation order, not in the order of a hash */
} mbeam_t;

static int movable(int c) {
    c &= COLOUR;
    return c == GS_BLACK || c == GS_WHITE;
}

/* 1 when the pair (q, s(q)) breaks the condition: one square empty and not the other, or
 * the piece on s(q) has the colour that q's piece would have in the all-black start
 * (it must have the other).  Fixed squares map to fixed squares and never count. */
static int term(const mbeam_t *b, const uint8_t *cell, int q) {
    int a = cell[q], c = cell[b->map[q]];
    int ca = a & COLOUR, cc = c & COLOUR;
    if (ca == GS_FIXED) return 0;
    if ((ca == GS_EMPTY) != (cc == GS_EMPTY)) return 1;
    if (ca == GS_EMPTY) return 0;
    int base = a & SPECIAL ? ca ^ COLOUR : ca; /* BLACK <-> WHITE */
    return cc == base;
}

/* The terms that a move touching squares sq[0..2] can change: those of the squares and
 * of their preimages under s. */
static int touched(const mbeam_t *b, const int sq[3], int out[6]) {
    int n = 0;
    for (int i = 0; i < 6; i++) {
        int q = i < 3 ? sq[i] : b->inv[sq[i - 3]], dup = 0;
        for (int j = 0; j < n; j++) dup |= out[j] == q;
        if (!dup) out[n++] = q;
    }
    return n;
}

static void play(uint8_t *cell, int from, int over, int to) {
    cell[to] = cell[from];
    cell[from] = GS_EMPTY;
    cell[over] ^= COLOUR;
}

static int grow_kids(mbeam_t *b, size_t need) {
    if (need <= b->kids_cap) return 0;
    size_t cap = b->kids_cap ? b->kids_cap : 1 << 16;
    while (cap < need) cap *= 2;
    mkid_t *k = realloc(b->kids, cap * sizeof *k);
    if (!k) return -1;
    b->kids = k;
    uint32_t *o = realloc(b->order, cap * sizeof *o);
    if (!o) return -1;
    b->order = o;
    uint32_t *t = realloc(b->tmp, cap * sizeof *t);
    if (!t) return -1;
    b->tmp = t;
    b->kids_cap = cap;
    return 0;
}

/* Appends the children of the beam's position i; the new count or -1 (no memory). */
static long expand(mbeam_t *b, int i, int first, long nk) {
    uint8_t cell[GS_SQUARES];
    memcpy(cell, b->cur[i], sizeof cell);
    for (int from = 0; from < GS_SQUARES; from++) {
        if (!movable(cell[from]) || (first >= 0 && from != first)) continue;
        for (int d = 0; d < 8; d++) {
            int over = b->nbr[from][d];
            if (over < 0 || !movable(cell[over])) continue;
            int to = b->nbr[over][d];
            if (to < 0 || cell[to] != GS_EMPTY) continue;
            int sq[3] = {from, over, to}, t[6], nt = touched(b, sq, t), before = 0, after = 0;
            for (int k = 0; k < nt; k++) before += term(b, cell, t[k]);
            int a = cell[from], o = cell[over];
            play(cell, from, over, to);
            for (int k = 0; k < nt; k++) after += term(b, cell, t[k]);
            cell[from] = (uint8_t)a, cell[over] = (uint8_t)o, cell[to] = GS_EMPTY;
            if (grow_kids(b, (size_t)nk + 1)) return -1;
            uint64_t hs = b->cur_hash[i] ^ b->zob[from][a] ^ b->zob[to][a] ^ b->zob[over][o] ^
                          b->zob[over][o ^ COLOUR];
            int h = b->cur_h[i] + after - before;
            b->kids[nk++] = (mkid_t){hs,
                                     (uint32_t)i,
                                     (uint8_t)from,
                                     (uint8_t)over,
                                     (uint8_t)to,
                                     (uint8_t)(h > 255 ? 255 : h)};
        }
    }
    return nk;
}

/* 1 when the hash was not yet kept at this depth (and is now). */
static int first_seen(mbeam_t *b, uint64_t hash) {
    uint64_t key = hash ? hash : 1;
    for (size_t i = (size_t)gk_mix64(key) & b->seen_mask;; i = (i + 1) & b->seen_mask) {
        if (b->seen[i] == key) return 0;
        if (!b->seen[i]) {
            b->seen[i] = key;
            return 1;
        }
    }
}

/* The moves of the beam's position j at depth g into moves[0..g-1]. */
static void half_path(const mbeam_t *b, int g, int j, gs_move_t *moves) {
    for (int d = g; d > 0; j = (int)b->steps[d][j].parent, d--)
        moves[d - 1] = (gs_move_t){b->steps[d][j].from, b->steps[d][j].over, b->steps[d][j].to};
}

/* The second half after the first g moves (and mid middle moves): s of the first half,
 * backwards, each move reversed; checks the whole by replaying it.  The length or 0. */
static int finish(const mbeam_t *b, gs_move_t *moves, int g, int mid) {
    for (int i = 0; i < g; i++) {
        gs_move_t m = moves[g - 1 - i];
        moves[g + mid + i] = (gs_move_t){b->map[m.to], b->map[m.over], b->map[m.from]};
    }
    int len = 2 * g + mid;
    gs_state_t s;
    gs_start(b->p, &s);
    for (int i = 0; i < len; i++)
        if (!gs_play(&s, moves[i])) return 0;
    return gs_is_goal(b->p, &s) ? len : 0;
}

/* A middle move from cell onto the position the condition needs (odd lengths): the piece
 * on s(q) must be the colour-reversed start colour of q's piece.  The move or from = 255. */
static gs_move_t middle_move(const mbeam_t *b, const uint8_t *cell) {
    uint8_t want[GS_SQUARES];
    for (int q = 0; q < GS_SQUARES; q++) {
        int a = cell[q], ca = a & COLOUR;
        int base = a & SPECIAL ? ca ^ COLOUR : ca;
        want[b->map[q]] = (uint8_t)(ca == GS_EMPTY || ca == GS_FIXED ? ca : base ^ COLOUR);
    }
    uint8_t c2[GS_SQUARES];
    for (int q = 0; q < GS_SQUARES; q++) c2[q] = cell[q] & COLOUR;
    for (int from = 0; from < GS_SQUARES; from++) {
        if (!movable(c2[from])) continue;
        for (int d = 0; d < 8; d++) {
            int over = b->nbr[from][d], to = over < 0 ? -1 : b->nbr[over][d];
            if (to < 0 || !movable(c2[over]) || c2[to] != GS_EMPTY) continue;
            play(c2, from, over, to);
            int same = memcmp(c2, want, sizeof want) == 0;
            c2[from] = c2[to], c2[to] = GS_EMPTY, c2[over] ^= COLOUR;
            if (same) return (gs_move_t){(uint8_t)from, (uint8_t)over, (uint8_t)to};
        }
    }
    return (gs_move_t){255, 0, 0};
}

static int spent(const mbeam_t *b) {
    const gs_mirror_limits_t *l = b->lim;
    if ((l->max_nodes && *b->nodes > l->max_nodes) || (l->deadline > 0 && gk_now_s() > l->deadline))
        *b->aborted = 1;
    return *b->aborted;
}

/* Keeps the width best children (smallest h; among equals, in the order of a hash of the
 * position, so that a tie does not favour the children of the first parents and the beam
 * stays diverse, or with b->gen_ties in the order of generation) as the next depth; returns how
 * many, or a solution's length (negated) found among them into moves.  Two stable counting sorts:
 * by the hash's top bits (skipped for generation order), then h. */
static long select_kids(mbeam_t *b, long nk, int g, int odd, int max_len, gs_move_t *moves) {
    enum { TIE_BITS = 16 };
    size_t *tie = b->tie;
    if (b->gen_ties) {
        for (long k = 0; k < nk; k++) b->tmp[k] = (uint32_t)k;
    } else {
        memset(tie, 0, ((1u << TIE_BITS) + 1) * sizeof *tie);
        for (long k = 0; k < nk; k++) tie[(b->kids[k].hash >> (64 - TIE_BITS)) + 1]++;
        for (size_t t = 1; t <= 1u << TIE_BITS; t++) tie[t] += tie[t - 1];
        for (long k = 0; k < nk; k++)
            b->tmp[tie[b->kids[k].hash >> (64 - TIE_BITS)]++] = (uint32_t)k;
    }
    size_t count[257] = {0};
    for (long k = 0; k < nk; k++) count[b->kids[k].h + 1]++;
    for (int h = 1; h <= 256; h++) count[h] += count[h - 1];
    for (long r = 0; r < nk; r++) {
        uint32_t k = b->tmp[r];
        b->order[count[b->kids[k].h]++] = k;
    }
    memset(b->seen, 0, (b->seen_mask + 1) * sizeof *b->seen);
    long m = 0;
    for (long r = 0; r < nk && m < b->width; r++) {
        const mkid_t *ch = &b->kids[b->order[r]];
        if (!first_seen(b, ch->hash)) continue;
        uint8_t *cell = b->next[m];
        memcpy(cell, b->cur[ch->parent], GS_SQUARES);
        play(cell, ch->from, ch->over, ch->to);
        b->next_hash[m] = ch->hash;
        b->next_h[m] = ch->h;
        b->steps[g + 1][m] = (mstep_t){ch->parent, ch->from, ch->over, ch->to};
        if (!odd && ch->h == 0 && 2 * (g + 1) <= max_len) {
            half_path(b, g + 1, (int)m, moves);
            int len = finish(b, moves, g + 1, 0);
            if (len) return -len;
        }
        if (odd && ch->h <= ODD_H && 2 * (g + 1) + 1 <= max_len) {
            gs_move_t mid = middle_move(b, cell);
            if (mid.from != 255) {
                half_path(b, g + 1, (int)m, moves);
                moves[g + 1] = mid;
                int len = finish(b, moves, g + 1, 1);
                if (len) return -len;
            }
        }
        m++;
    }
    return m;
}

/* One beam run for the symmetry in b; the length found (moves) or 0, or -1 (no memory). */
static int run(mbeam_t *b, const gs_state_t *start, int max_len, gs_move_t *moves) {
    int nblack = 0;
    b->cur_hash[0] = 0;
    for (int q = 0; q < GS_SQUARES; q++) {
        int c = start->cell[q];
        b->cur[0][q] = (uint8_t)(c == GS_WHITE ? c | SPECIAL : c);
        nblack += c == GS_BLACK;
        b->cur_hash[0] ^= b->zob[q][b->cur[0][q]];
    }
    int h0 = 0;
    for (int q = 0; q < GS_SQUARES; q++) h0 += term(b, b->cur[0], q);
    b->cur_h[0] = (uint8_t)(h0 > 255 ? 255 : h0);
    int odd = nblack & 1; /* every move turns one piece: the length has nblack's parity */
    long n = 1;
    for (int g = 0; 2 * (g + 1) + odd <= max_len && n > 0; g++) {
        long nk = 0;
        for (long i = 0; i < n && nk >= 0; i++)
            nk = expand(b, (int)i, g == 0 ? start->first : -1, nk);
        if (nk < 0) return -1;
        *b->nodes += (uint64_t)nk;
        if (b->lim->progress)
            b->lim->progress(b->lim->progress_arg, GS_PHASE_MIRROR, 2 * (g + 1) + odd, *b->nodes,
                             gk_now_s() - b->lim->t0, -1.0);
        if (spent(b)) return 0;
        if (!b->steps[g + 1] && !(b->steps[g + 1] = malloc((size_t)b->width * sizeof(mstep_t))))
            return -1;
        long m = select_kids(b, nk, g, odd, max_len, moves);
        if (m < 0) return (int)-m;
        uint8_t(*tc)[GS_SQUARES] = b->cur;
        b->cur = b->next, b->next = tc;
        uint64_t *th = b->cur_hash;
        b->cur_hash = b->next_hash, b->next_hash = th;
        uint8_t *t8 = b->cur_h;
        b->cur_h = b->next_h, b->next_h = t8;
        n = m;
    }
    return 0;
}

/* The symmetries to try, rotations by a quarter turn first (on 7x7 they find the
 * shortest solutions); only those that keep the square and the fixed pieces (colours do
 * not matter: the condition reverses them). */
static int symmetries(const gs_problem_t *p, uint8_t maps[7][GS_SQUARES]) {
    static const int order[7] = {3, 5, 6, 2, 4, 1, 7};
    int n = 0;
    for (int i = 0; i < 7; i++) n += gs_symmetry(p, order[i], 0, maps[n]);
    return n;
}

static void beam_free(mbeam_t *b) {
    free(b->cur), free(b->next), free(b->cur_hash), free(b->next_hash), free(b->cur_h);
    free(b->next_h), free(b->kids), free(b->order), free(b->tmp);
    free(b->seen), free(b->tie);
    for (int g = 0; g < GS_MAX_LEN / 2 + 2; g++) free(b->steps[g]);
}

static int beam_alloc(mbeam_t *b, int width) {
    size_t w = (size_t)width;
    b->width = width;
    b->cur = malloc(w * GS_SQUARES), b->next = malloc(w * GS_SQUARES);
    b->cur_hash = malloc(w * sizeof(uint64_t)), b->next_hash = malloc(w * sizeof(uint64_t));
    b->cur_h = malloc(w), b->next_h = malloc(w);
    size_t slots = 1;
    while (slots < 2 * w) slots *= 2;
    b->seen = malloc(slots * sizeof *b->seen);
    b->seen_mask = slots - 1;
    b->tie = malloc(((1u << 16) + 1) * sizeof *b->tie);
    return b->cur && b->next && b->cur_hash && b->next_hash && b->cur_h && b->next_h && b->seen &&
                   b->tie
               ? 0
               : -1;
}

int gs_mirror_find(const gs_problem_t *p, const gs_mirror_limits_t *lim, gs_move_t *moves,
                   uint64_t *nodes, int *aborted) {
    if (lim->width <= 0) return 0;
    static const uint64_t seed = 0x9e3779b97f4a7c15ULL;
    mbeam_t *b = calloc(1, sizeof *b);
    if (!b) return GS_ERR_NOMEM;
    b->p = p, b->lim = lim, b->nodes = nodes, b->aborted = aborted;
    int rc = beam_alloc(b, lim->width) ? GS_ERR_NOMEM : 0;
    for (int q = 0; q < GS_SQUARES; q++)
        for (int v = 0; v < 8; v++)
            b->zob[q][v] =
                (v & COLOUR) == GS_EMPTY ? 0 : gk_mix64(seed * (uint64_t)(8 * q + v + 1));
    gs_neighbours(b->nbr);
    uint8_t maps[7][GS_SQUARES];
    int nsym = symmetries(p, maps), best = 0;
    gs_move_t *try = malloc(GS_MAX_LEN * sizeof *try);
    if (!try) rc = GS_ERR_NOMEM;
    gs_state_t start;
    gs_start(p, &start);
    /* Each symmetry with ties in hash order, then in generation order: neither order is
     * better everywhere (7x7 --white e5: 48 by hash, none by generation; --preflip e3 at
     * W = 100 k: 60 by hash, 56 by generation), and a second beam is cheap next to IDA*. */
    for (int r = 0; r < 2 * nsym && !rc && !*aborted && !(best && best <= lim->target); r++) {
        int t = r / 2;
        b->gen_ties = r % 2 == 1;
        memcpy(b->map, maps[t], sizeof b->map);
        for (int q = 0; q < GS_SQUARES; q++) b->inv[b->map[q]] = (uint8_t)q;
        int max_len = best ? best - 1 : lim->max_len;
        int len = run(b, &start, max_len < GS_MAX_LEN ? max_len : GS_MAX_LEN, try);
        if (len < 0) rc = GS_ERR_NOMEM;
        if (len > 0 && (!best || len < best)) {
            best = len;
            memcpy(moves, try, (size_t)len * sizeof *moves);
        }
    }
    free(try);
    beam_free(b);
    free(b);
    return rc ? rc : best;
}
