/*
 * games/gobs.c -- Gobs rules, notation, position strings and the chain-counting perft.
 *
 * A turn is one slide, one elimination, or a chain of jump legs ended by "stop" (or
 * automatically when the piece has no further leg).  The GOBS end rules are applied
 * once per turn in end_turn().  perft never lists chains: it counts them with a memo
 * keyed on (current square, set of pieces flipped so far), because the position after
 * a chain depends on nothing else (docs/RULES.md, "Gobs: perft").
 */
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) for the perft memo */
#include "gobs.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/status.h"

/* Directions: E, NE, N, NW, W, SW, S, SE (rank grows to the north). */
static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};

/* The ray tables of gobs.h (gobs_rays()). */
static gobs_rays_t rays;
static uint64_t z_piece[2][GOBS_SQUARES], z_stm, z_mid[GOBS_SQUARES], z_start5;

void gobs_init(void) {
    uint64_t seed = 0x60B5C0DE2024ull;
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < GOBS_SQUARES; s++) z_piece[c][s] = gk_splitmix64(&seed);
    z_stm = gk_splitmix64(&seed);
    for (int s = 0; s < GOBS_SQUARES; s++) z_mid[s] = gk_splitmix64(&seed);
    z_start5 = gk_splitmix64(&seed);
    for (int s = 0; s < GOBS_SQUARES; s++)
        for (int d = 0; d < 8; d++) {
            int x = s % 9 + DX[d], y = s / 9 + DY[d], k = 0;
            while (x >= 0 && x < 9 && y >= 0 && y < 9) {
                rays.sq[s][d][k++] = (uint8_t)(9 * y + x);
                rays.bits[s][d][(9 * y + x) >> 6] |= 1ull << ((9 * y + x) & 63);
                x += DX[d];
                y += DY[d];
            }
            rays.len[s][d] = (uint8_t)k;
        }
}

const gobs_rays_t *gobs_rays(void) {
    return &rays;
}

/* ------------------------------------------------------------------------------------ */
/* Board helpers                                                                        */

static inline void put(gk_pos_t *p, int sq, int c) {
    assert(sq >= 0 && sq < GOBS_SQUARES && (c == GOBS_WHITE || c == GOBS_BLACK));
    assert(p->b.cell[sq] == GOBS_EMPTY);
    p->b.cell[sq] = (uint8_t)c;
    p->hash ^= z_piece[c - 1][sq];
}

static inline void take(gk_pos_t *p, int sq) {
    assert(sq >= 0 && sq < GOBS_SQUARES && p->b.cell[sq] != GOBS_EMPTY);
    p->hash ^= z_piece[p->b.cell[sq] - 1][sq];
    p->b.cell[sq] = GOBS_EMPTY;
}

/* Mid-turn part of the hash: the jumping square, and whether the mover started the turn
 * GOBSed (it decides the end of the turn; it is count - legs played <= 5). */
static inline uint64_t mid_key(const gk_pos_t *p) {
    int start = p->aux[GOBS_AUX_COUNT + p->stm] - p->in_turn;
    return z_mid[p->aux[GOBS_AUX_JUMPER]] ^ (start <= GOBS_LIMIT ? z_start5 : 0);
}

static uint64_t gobs_hash_full(const gk_pos_t *p) {
    uint64_t h = 0;
    for (int s = 0; s < GOBS_SQUARES; s++)
        if (p->b.cell[s]) h ^= z_piece[p->b.cell[s] - 1][s];
    if (p->stm == GK_BLACK) h ^= z_stm;
    if (p->in_turn) h ^= mid_key(p);
    return h;
}

static void gobs_setup(gk_pos_t *p, const gk_rules_t *r) {
    memset(p, 0, sizeof *p);
    p->game = GK_GAME_GOBS;
    p->variant = r->variant;
    p->turn_limit = r->turn_limit;
    p->stm = GK_WHITE;
    for (int s = 0; s < 27; s++) p->b.cell[s] = GOBS_WHITE;
    for (int s = 54; s < 81; s++) p->b.cell[s] = GOBS_BLACK;
    p->aux[GOBS_AUX_COUNT + GK_WHITE] = 27;
    p->aux[GOBS_AUX_COUNT + GK_BLACK] = 27;
    p->hash = gobs_hash_full(p);
}

/* Squares along a ray before its first piece (len when the ray is empty): where a slide may
 * stop, and the index of the piece a standard leg jumps. */
static inline int ray_skip(const uint8_t *cell, const uint8_t *r, int len) {
    int k = 0;
    while (k < len && cell[r[k]] == GOBS_EMPTY) k++;
    return k;
}

/* Landing squares of the legs of the piece on sq (side to move) into land[], the jumped
 * squares into over[]; returns their number (at most 56). */
static int legs_from(const gk_pos_t *p, int sq, uint8_t *land, uint8_t *over) {
    const uint8_t *cell = p->b.cell;
    const int oc = 2 - p->stm;
    int n = 0;
    for (int d = 0; d < 8; d++) {
        const uint8_t *r = rays.sq[sq][d];
        const int len = rays.len[sq][d];
        if (p->variant == GOBS_VAR_SHORT) {
            if (len >= 2 && cell[r[0]] == oc && cell[r[1]] == GOBS_EMPTY) {
                land[n] = r[1];
                over[n++] = r[0];
            }
            continue;
        }
        int k = ray_skip(cell, r, len);
        if (k >= len || cell[r[k]] != oc) continue;
        const int e = r[k++];
        for (; k < len && cell[r[k]] == GOBS_EMPTY; k++) {
            land[n] = r[k];
            over[n++] = (uint8_t)e;
        }
    }
    assert(n <= 56); /* the callers' buffers: at most 7 landings in each of 8 lines */
    return n;
}

/* legs_from(p, sq) > 0, without listing the landings: play() asks it after every leg. */
static bool has_leg(const gk_pos_t *p, int sq) {
    const uint8_t *cell = p->b.cell;
    const int oc = 2 - p->stm, short_var = p->variant == GOBS_VAR_SHORT;
    for (int d = 0; d < 8; d++) {
        const uint8_t *r = rays.sq[sq][d];
        const int len = rays.len[sq][d];
        const int k = short_var ? 0 : ray_skip(cell, r, len);
        if (k + 1 < len && cell[r[k]] == oc && cell[r[k + 1]] == GOBS_EMPTY) return true;
    }
    return false;
}

/* A longest-chain search: the board it walks (restored as it backs up), the first landing
 * square of the chain being walked and of the best chain so far. */
typedef struct {
    uint8_t cell[GOBS_SQUARES];
    int first, best_first, nbest, need, mc, oc;
    bool shrt;
    long *budget;
} chain_ctx_t;

/* Walks the chains of the piece on cur, `depth` legs into one: raises nbest (and
 * best_first) and stops once a chain flips need or the budget runs out.  Every prefix of a
 * chain is a chain ("stop" may end it after any leg), so each leg taken counts. */
static void chain_walk(chain_ctx_t *c, int cur, int depth) {
    uint8_t *cell = c->cell;
    for (int d = 0; d < 8; d++) {
        const uint8_t *r = rays.sq[cur][d];
        const int len = rays.len[cur][d];
        int k = c->shrt ? 0 : ray_skip(cell, r, len);
        if (k >= len || cell[r[k]] != c->oc) continue;
        const int over = r[k];
        for (k++; k < len && cell[r[k]] == GOBS_EMPTY; k++) {
            if (--*c->budget < 0) return;
            const int land = r[k];
            if (depth == 0) c->first = land;
            if (depth + 1 > c->nbest) {
                c->nbest = depth + 1;
                c->best_first = c->first;
                if (c->nbest >= c->need) return;
            }
            cell[over] = (uint8_t)c->mc;
            cell[cur] = GOBS_EMPTY;
            cell[land] = (uint8_t)c->mc;
            chain_walk(c, land, depth + 1);
            cell[land] = GOBS_EMPTY;
            cell[cur] = (uint8_t)c->mc;
            cell[over] = (uint8_t)c->oc;
            if (c->nbest >= c->need || *c->budget < 0) return;
            if (c->shrt) break;
        }
    }
}

int gobs_chain_flips(const gk_pos_t *p, int need, long *budget, gk_action_t *first) {
    if (first) *first = GK_NO_ACTION;
    if (need <= 0 || p->result != GK_ONGOING) return 0;
    chain_ctx_t c;
    memcpy(c.cell, p->b.cell, sizeof c.cell);
    c.mc = p->stm + 1;
    c.oc = 2 - p->stm;
    c.shrt = p->variant == GOBS_VAR_SHORT;
    c.budget = budget;
    /* A chain flips each enemy piece at most once, and only one with an empty square just
     * beyond it on some line and no enemy piece just before it (occupancy is fixed during a
     * chain but for the jumper's start square): no chain flips more than qualify. */
    int open = 0;
    for (int s = 0; s < GOBS_SQUARES && open < need; s++) {
        if (c.cell[s] != c.oc) continue;
        for (int d = 0; d < 8; d++) {
            if (!rays.len[s][d] || !rays.len[s][d ^ 4]) continue;
            if (c.cell[rays.sq[s][d][0]] == GOBS_EMPTY && c.cell[rays.sq[s][d ^ 4][0]] != c.oc) {
                open++;
                break;
            }
        }
    }
    c.need = open < need ? open : need;
    int best = 0;
    for (int s = 0; s < GOBS_SQUARES && best < c.need && *budget >= 0; s++) {
        if (p->in_turn ? s != p->aux[GOBS_AUX_JUMPER] : c.cell[s] != c.mc) continue;
        c.nbest = 0;
        chain_walk(&c, s, 0);
        if (c.nbest > best) {
            best = c.nbest;
            if (first) *first = gobs_act(GOBS_ACT_LEG, s, c.best_first, 0);
        }
    }
    return best;
}

/* Rank (0 or 8) where the short variant puts back a piece of side `owner`. */
static inline int first_row(int owner) {
    return owner == GK_WHITE ? 0 : 8;
}

/* Placement squares for a short-variant elimination by the piece on `from`: the empty
 * squares of the victim's first rank once the capturer has left `from`. */
static int placements(const gk_pos_t *p, int from, uint8_t *out) {
    const int row = first_row(1 - p->stm);
    int n = 0;
    for (int f = 0; f < 9; f++) {
        int s = 9 * row + f;
        if (p->b.cell[s] == GOBS_EMPTY || s == from) out[n++] = (uint8_t)s;
    }
    return n;
}

static int gobs_gen(const gk_pos_t *p, gk_action_t *out) {
    if (p->result != GK_ONGOING) return 0;
    uint8_t land[56], over[56];
    int n = 0;
    if (p->in_turn) {
        const int sq = p->aux[GOBS_AUX_JUMPER];
        assert(p->in_turn < GK_MAX_TURN && p->b.cell[sq] == p->stm + 1);
        const int k = legs_from(p, sq, land, over);
        for (int i = 0; i < k; i++) out[n++] = gobs_act(GOBS_ACT_LEG, sq, land[i], 0);
        out[n++] = GOBS_STOP;
        return n;
    }
    const uint8_t *cell = p->b.cell;
    const int mc = p->stm + 1, oc = 2 - p->stm;
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        if (cell[sq] != mc) continue;
        for (int d = 0; d < 8; d++) {
            const uint8_t *r = rays.sq[sq][d];
            const int len = rays.len[sq][d];
            if (p->variant == GOBS_VAR_SHORT) {
                if (len < 1) continue;
                if (cell[r[0]] == GOBS_EMPTY) {
                    out[n++] = gobs_act(GOBS_ACT_SLIDE, sq, r[0], 0);
                    if (len < 2) continue;
                    if (cell[r[1]] == GOBS_EMPTY) {
                        out[n++] = gobs_act(GOBS_ACT_SLIDE, sq, r[1], 0);
                    } else if (cell[r[1]] == oc) {
                        uint8_t pl[9];
                        int np = placements(p, sq, pl);
                        /* Never reached (docs/RULES.md, "Gobs: number of actions": the
                         * most found is 771): a position that gets here disproves the
                         * bound; a release build drops the extra actions rather than
                         * overflow the buffer. */
                        assert(n + np <= GK_MAX_ACTIONS);
                        if (n + np > GK_MAX_ACTIONS) np = GK_MAX_ACTIONS - n;
                        for (int i = 0; i < np; i++)
                            out[n++] = gobs_act(GOBS_ACT_ELIM, sq, r[1], pl[i]);
                    }
                } else if (cell[r[0]] == oc && len >= 2 && cell[r[1]] == GOBS_EMPTY) {
                    out[n++] = gobs_act(GOBS_ACT_LEG, sq, r[1], 0);
                }
                continue;
            }
            int k = 0;
            for (; k < len && cell[r[k]] == GOBS_EMPTY; k++)
                out[n++] = gobs_act(GOBS_ACT_SLIDE, sq, r[k], 0);
            if (k >= len || cell[r[k]] != oc) continue;
            if (k > 0) out[n++] = gobs_act(GOBS_ACT_ELIM, sq, r[k], 0);
            for (k++; k < len && cell[r[k]] == GOBS_EMPTY; k++)
                out[n++] = gobs_act(GOBS_ACT_LEG, sq, r[k], 0);
        }
    }
    /* The standard rules have no clamp: 383 is the most found (docs/RULES.md); past
     * GK_MAX_ACTIONS the writes above would already have overflowed. */
    assert(n <= GK_MAX_ACTIONS);
    return n;
}

/* The GOBS rules, the turn limit and the change of side, once per turn.  `elim` tells
 * whether the turn was an elimination; p->in_turn is the number of legs played (0 for
 * a slide or an elimination) and the mid-turn hash key has already been removed. */
static void end_turn(gk_pos_t *p, bool elim) {
    const int me = p->stm, opp = 1 - me;
    const int mine = p->aux[GOBS_AUX_COUNT + me], theirs = p->aux[GOBS_AUX_COUNT + opp];
    const bool was_gobsed = mine - p->in_turn <= GOBS_LIMIT;
    p->in_turn = 0;
    p->aux[GOBS_AUX_JUMPER] = 0;
    p->stm = (uint8_t)opp;
    p->hash ^= z_stm;
    p->turn++;
    const gk_result_t win = me == GK_WHITE ? GK_WIN_WHITE : GK_WIN_BLACK;
    const gk_result_t loss = me == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE;
    if (theirs < GOBS_LIMIT) {
        gk_set_result(p, win, GK_REASON_GOBS);
    } else if (was_gobsed) {
        if (elim && theirs == GOBS_LIMIT)
            gk_set_result(p, GK_DRAW, GK_REASON_GOBS_DRAW);
        else if (mine <= GOBS_LIMIT)
            gk_set_result(p, loss, GK_REASON_GOBS);
    }
    if (p->result == GK_ONGOING && p->turn_limit && p->turn >= p->turn_limit)
        gk_set_result(p, GK_DRAW, GK_REASON_TURN_LIMIT);
}

/* The jumped piece of a leg: the only piece between from and to. */
static int jumped_square(const gk_pos_t *p, int from, int to) {
    int dx = to % 9 - from % 9, dy = to / 9 - from / 9;
    int step = (dx > 0) - (dx < 0) + 9 * ((dy > 0) - (dy < 0));
    assert(step != 0);
    int s = from + step;
    while (p->b.cell[s] == GOBS_EMPTY) {
        s += step;
        assert(s != to); /* a leg jumps exactly one piece */
    }
    assert(p->b.cell[s] == 2 - p->stm);
    return s;
}

/* Plays one leg without ending the turn: flips `over`, moves the piece, keeps the hash
 * (mid-turn key included) exact. */
static void do_leg(gk_pos_t *p, int from, int to, int over) {
    const int me = p->stm, mc = me + 1;
    /* The jumped piece is the enemy's; a turn fits GK_MAX_TURN actions (each leg flips
     * an enemy piece, so there are at most 53 legs, then "stop"). */
    assert(p->b.cell[over] == 2 - me && p->aux[GOBS_AUX_COUNT + 1 - me] > 0);
    assert(p->in_turn + 1 < GK_MAX_TURN);
    if (p->in_turn) p->hash ^= mid_key(p);
    take(p, over);
    put(p, over, mc);
    p->aux[GOBS_AUX_COUNT + me]++;
    p->aux[GOBS_AUX_COUNT + 1 - me]--;
    take(p, from);
    put(p, to, mc);
    p->in_turn++;
    p->aux[GOBS_AUX_JUMPER] = (uint8_t)to;
    p->hash ^= mid_key(p);
}

/* Ends a jump chain in progress (the "stop" action, or no further leg). */
static void finish_chain(gk_pos_t *p) {
    assert(p->in_turn > 0);
    p->hash ^= mid_key(p);
    end_turn(p, false);
}

static void gobs_play(gk_pos_t *p, gk_action_t a) {
    const int from = gobs_act_from(a), to = gobs_act_to(a);
    const int me = p->stm, mc = me + 1, oc = 2 - me;
    const int kind = gobs_act_kind(a);
    /* Legal actions only (game.h): action 0 has no kind; mid-turn only the jumper's next
     * leg or "stop", "stop" only mid-turn; every other action moves the mover's piece. */
    assert(a != GK_NO_ACTION && p->result == GK_ONGOING);
    assert(p->in_turn
               ? kind == GOBS_ACT_STOP || (kind == GOBS_ACT_LEG && from == p->aux[GOBS_AUX_JUMPER])
               : kind != GOBS_ACT_STOP);
    assert(kind == GOBS_ACT_STOP || p->b.cell[from] == mc);
    switch (kind) {
    case GOBS_ACT_SLIDE:
        take(p, from);
        put(p, to, mc);
        end_turn(p, false);
        break;
    case GOBS_ACT_ELIM:
        take(p, to);
        take(p, from);
        put(p, to, mc);
        if (p->variant == GOBS_VAR_SHORT)
            put(p, gobs_act_place(a), oc);
        else
            p->aux[GOBS_AUX_COUNT + 1 - me]--;
        end_turn(p, true);
        break;
    case GOBS_ACT_LEG:
        do_leg(p, from, to, jumped_square(p, from, to));
        if (!has_leg(p, to)) finish_chain(p);
        break;
    case GOBS_ACT_STOP: finish_chain(p); break;
    default: assert(!"unknown action kind"); break;
    }
}

/* ------------------------------------------------------------------------------------ */
/* perft                                                                                */

/* Memo of chain values keyed on (flipped-set mask << 7 | current square), < 2^60.  The
 * top 4 bits of a stored key hold the generation of its root piece; other generations
 * count as empty, so a new root costs nothing but every 15th clears the table. */
typedef struct {
    uint64_t key, val;
} memo_ent_t;

typedef struct {
    memo_ent_t *e;
    size_t cap, used;
    uint64_t gen;              /* 1..15, pre-shifted by 60 */
    uint8_t idx[GOBS_SQUARES]; /* bit number of each enemy piece of the root position */
} memo_t;

/* Transposition table of counts at turn boundaries, remaining depth >= 2 (slides
 * commute, so positions recur).  The key is the whole board (2 bits a square), the side
 * to move and the depth, so a hit is never a collision; the turn count is implied by the depth. */
typedef struct {
    uint64_t k[3], n;
} ptt_ent_t;

typedef struct {
    memo_t *lv; /* one memo per remaining depth, so nested counts do not collide */
    int nlv;
    ptt_ent_t *tt;
    size_t tt_mask;
} perft_ctx_t;

static void ptt_key(const gk_pos_t *p, int d, uint64_t k[3]) {
    k[0] = k[1] = k[2] = 0;
    for (int s = 0; s < GOBS_SQUARES; s++) k[s >> 5] |= (uint64_t)p->b.cell[s] << (2 * (s & 31));
    k[2] |= (uint64_t)p->stm << 40 | (uint64_t)d << 48 | 1ull << 63;
}

#define MEMO_GEN_ONE  (1ull << 60)
#define MEMO_GEN_MASK (15ull << 60)

/* Numbers the enemy pieces of p (bits of the flipped-set mask). */
static void memo_index(memo_t *m, const gk_pos_t *p) {
    const int oc = 2 - p->stm;
    int k = 0;
    for (int s = 0; s < GOBS_SQUARES; s++) m->idx[s] = p->b.cell[s] == oc ? (uint8_t)k++ : 0;
    /* Keys are mask << 7 | square below the generation bits: at most 53 enemy pieces
     * (54 in all, the mover has one). */
    assert(k <= 53);
}

/* Starts the memo for a new chain root of p.  A table left empty by the previous root
 * keeps its generation, so roots that never store cost nothing. */
static void memo_new_root(memo_t *m, const gk_pos_t *p) {
    memo_index(m, p);
    if (m->gen && m->used == 0) return;
    m->gen += MEMO_GEN_ONE;
    if (m->gen == 0 || m->gen == MEMO_GEN_ONE) { /* first use, or the stamps wrapped */
        if (m->e) memset(m->e, 0, m->cap * sizeof *m->e);
        m->gen = MEMO_GEN_ONE;
    }
    m->used = 0;
}

static inline size_t memo_slot(uint64_t key, size_t cap) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 24) & (cap - 1);
}

/* Probe runs are bounded: a key stored farther away is merely missed (and counted
 * again), so a table that reached its size cap can keep working as a lossy cache. */
#define MEMO_PROBES  32
#define MEMO_MAX_CAP ((size_t)1 << 25) /* 512 MB per table */

static bool memo_get(const memo_t *m, uint64_t key, uint64_t *val) {
    if (!m->e) return false;
    const uint64_t tagged = key | m->gen;
    size_t i = memo_slot(key, m->cap);
    for (int k = 0; k < MEMO_PROBES; k++, i = (i + 1) & (m->cap - 1)) {
        const memo_ent_t *e = &m->e[i];
        if (e->key == tagged) {
            *val = e->val;
            return true;
        }
        if ((e->key & MEMO_GEN_MASK) != m->gen) return false;
    }
    return false;
}

/* Zeroed table (fresh pages from calloc); big ones asked onto 2 MB pages, because the
 * memo is probed at random and TLB misses showed in the count of large chains. */
static memo_ent_t *memo_alloc(size_t n) {
    memo_ent_t *e = calloc(n, sizeof(memo_ent_t));
#ifdef MADV_HUGEPAGE
    const size_t bytes = n * sizeof(memo_ent_t), huge = (size_t)2 << 20;
    if (e && bytes >= 2 * huge) {
        const uintptr_t lo = ((uintptr_t)e + huge - 1) & ~(uintptr_t)(huge - 1);
        const uintptr_t hi = ((uintptr_t)e + bytes) & ~(uintptr_t)(huge - 1);
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return e;
}

/* Stores a value.  The table doubles at load 1/2 up to MEMO_MAX_CAP; past that, or
 * when memory runs out, an entry may replace another (counts stay exact, only slower). */
static void memo_put(memo_t *m, uint64_t key, uint64_t val) {
    if (!m->e || (2 * (m->used + 1) > m->cap && m->cap < MEMO_MAX_CAP)) {
        const size_t ncap = m->e ? 2 * m->cap : (size_t)1 << 14;
        memo_ent_t *ne = memo_alloc(ncap);
        if (ne) {
            for (size_t i = 0; m->e && i < m->cap; i++) {
                if ((m->e[i].key & MEMO_GEN_MASK) != m->gen) continue;
                size_t j = memo_slot(m->e[i].key & ~MEMO_GEN_MASK, ncap);
                while ((ne[j].key & MEMO_GEN_MASK) == m->gen) j = (j + 1) & (ncap - 1);
                ne[j] = m->e[i];
            }
            free(m->e);
            m->e = ne;
            m->cap = ncap;
        }
        if (!m->e) return;
    }
    const uint64_t tagged = key | m->gen;
    const size_t home = memo_slot(key, m->cap);
    size_t i = home;
    for (int k = 0; k < MEMO_PROBES; k++, i = (i + 1) & (m->cap - 1)) {
        memo_ent_t *e = &m->e[i];
        if (e->key == tagged || (e->key & MEMO_GEN_MASK) != m->gen) {
            if (e->key != tagged) m->used++;
            e->key = tagged;
            e->val = val;
            return;
        }
    }
    m->e[home].key = tagged; /* full run: replace */
    m->e[home].val = val;
}

static uint64_t perft_rec(perft_ctx_t *c, const gk_pos_t *p, int d);

/* Depth-1 chain counting without positions.  During a chain the occupancy never
 * changes (a leg moves the piece between empty squares and turns an enemy into an own
 * piece; the start square is empty and the moving piece never blocks its own rays), so
 * the legs from each square are fixed groups "jump enemy e, land on one of these
 * squares", usable while e is unflipped, and the state is (square, flipped set). */
typedef struct {
    uint64_t bit; /* 1 << enemy index of the jumped piece */
    uint8_t n;    /* number of landing squares */
    uint8_t land[7];
} lean_grp_t;

typedef struct {
    lean_grp_t g[GOBS_SQUARES][8];
    uint8_t ng[GOBS_SQUARES];
    bool ready[GOBS_SQUARES]; /* g[s] filled: squares are set up when first reached */
    uint8_t cell[GOBS_SQUARES];
    uint8_t oc;
    bool shrt;
    long budget; /* memo-free pass: calls left before it gives up */
    memo_t *m;
} lean_t;

static const lean_grp_t *lean_groups(lean_t *L, int s, int *ng) {
    if (!L->ready[s]) {
        L->ready[s] = true;
        L->ng[s] = 0;
        for (int d = 0; d < 8; d++) {
            const uint8_t *r = rays.sq[s][d];
            const int len = rays.len[s][d];
            int k = ray_skip(L->cell, r, len);
            if (k >= len || L->cell[r[k]] != L->oc || (L->shrt && k > 0)) continue;
            lean_grp_t *g = &L->g[s][L->ng[s]];
            g->bit = 1ull << L->m->idx[r[k]];
            g->n = 0;
            for (k++; k < len && L->cell[r[k]] == GOBS_EMPTY; k++) {
                g->land[g->n++] = r[k];
                if (L->shrt) break;
            }
            if (g->n) L->ng[s]++;
        }
    }
    *ng = L->ng[s];
    return L->g[s];
}

/* Children of state (cur, mask): landing squares and masks; returns their number. */
static int lean_children(lean_t *L, int cur, uint64_t mask, uint8_t *land, uint64_t *cmask) {
    int ng, n = 0;
    const lean_grp_t *g = lean_groups(L, cur, &ng);
    for (int k = 0; k < ng; k++) {
        if (mask & g[k].bit) continue;
        for (int j = 0; j < g[k].n; j++) {
            land[n] = g[k].land[j];
            cmask[n++] = mask | g[k].bit;
        }
    }
    return n;
}

/* Most chains are a handful of states: count them without the memo, giving up (-1) when
 * the budget of calls runs out. */
static int64_t lean_count_small(lean_t *L, int cur, uint64_t mask) {
    uint8_t land[56];
    uint64_t cmask[56];
    const int n = lean_children(L, cur, mask, land, cmask);
    int64_t v = n;
    for (int i = 0; i < n; i++) {
        if (--L->budget < 0) return -1;
        const int64_t c = lean_count_small(L, land[i], cmask[i]);
        if (c < 0) return -1;
        v += c;
    }
    return v;
}

static uint64_t lean_count(lean_t *L, int cur, uint64_t mask) {
    /* Legs first: a dead end (most states' children) never touches the memo. */
    uint8_t land[56];
    uint64_t cmask[56];
    const int n = lean_children(L, cur, mask, land, cmask);
    if (!n) return 0;
    const memo_t *m = L->m;
    const uint64_t key = mask << 7 | (uint64_t)cur;
    uint64_t v;
    if (memo_get(m, key, &v)) return v;
    /* The children's memo slots are random memory: ask for them all before the first
     * child's subtree is walked, so most later lookups find them in cache. */
    for (int i = 0; i < n && m->e; i++)
        __builtin_prefetch(&m->e[memo_slot(cmask[i] << 7 | land[i], m->cap)]);
    v = (uint64_t)n;
    for (int i = 0; i < n; i++) v += lean_count(L, land[i], cmask[i]);
    memo_put(L->m, key, v);
    return v;
}

/* Depth-1 chains from sq: with `root_end` the state itself counts (mid-turn "stop"). */
static uint64_t lean_chains(memo_t *m, const gk_pos_t *p, int sq, bool root_end) {
    lean_t lt, *L = &lt;
    L->m = m;
    memo_index(m, p);
    memcpy(L->cell, p->b.cell, sizeof L->cell);
    L->cell[sq] = GOBS_EMPTY;
    memset(L->ready, 0, sizeof L->ready);
    L->oc = (uint8_t)(2 - p->stm);
    L->shrt = p->variant == GOBS_VAR_SHORT;
    L->budget = 256;
    const int64_t small = lean_count_small(L, sq, 0);
    if (small >= 0) return (uint64_t)small + root_end;
    memo_new_root(m, p);
    return lean_count(L, sq, 0) + root_end;
}

/* Complete moves of depth d through the chain state q (mid-turn, after at least one leg,
 * or the mid-turn root): ending here, plus every continuation. */
static uint64_t chain_val(perft_ctx_t *c, const gk_pos_t *q, uint64_t mask, int d) {
    memo_t *m = &c->lv[d];
    const int cur = q->aux[GOBS_AUX_JUMPER];
    const uint64_t key = mask << 7 | (uint64_t)cur;
    uint64_t v;
    if (memo_get(m, key, &v)) return v;
    uint8_t land[56], over[56];
    const int n = legs_from(q, cur, land, over);
    if (d == 1) {
        v = 1;
    } else {
        gk_pos_t e = *q;
        finish_chain(&e);
        v = perft_rec(c, &e, d - 1);
    }
    for (int i = 0; i < n; i++) {
        gk_pos_t r = *q;
        do_leg(&r, cur, land[i], over[i]);
        v += chain_val(c, &r, mask | 1ull << m->idx[over[i]], d);
    }
    if (n) memo_put(m, key, v); /* dead ends are cheaper to recompute than to store */
    return v;
}

/* Chains of the piece on sq at turn boundary p (no "end" before the first leg). */
static uint64_t chains_from(perft_ctx_t *c, const gk_pos_t *p, int sq, int d) {
    if (d == 1) return lean_chains(&c->lv[1], p, sq, false);
    uint8_t land[56], over[56];
    const int n = legs_from(p, sq, land, over);
    if (!n) return 0;
    memo_t *m = &c->lv[d];
    memo_new_root(m, p);
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t r = *p;
        do_leg(&r, sq, land[i], over[i]);
        v += chain_val(c, &r, 1ull << m->idx[over[i]], d);
    }
    return v;
}

/* Chains (non-empty landing sequences) of the piece on cur, walked on `cell`, which is
 * restored before returning; -1 once the budget of legs runs out. */
static int64_t small_chains(uint8_t *cell, int cur, int mc, int oc, bool shrt, long *budget) {
    int64_t v = 0;
    for (int d = 0; d < 8; d++) {
        const uint8_t *r = rays.sq[cur][d];
        const int len = rays.len[cur][d];
        int k = shrt ? 0 : ray_skip(cell, r, len);
        if (k >= len || cell[r[k]] != oc) continue;
        const int e = r[k];
        for (k++; k < len && cell[r[k]] == GOBS_EMPTY; k++) {
            if (--*budget < 0) return -1;
            const int land = r[k];
            cell[e] = (uint8_t)mc;
            cell[cur] = GOBS_EMPTY;
            cell[land] = (uint8_t)mc;
            const int64_t sub = small_chains(cell, land, mc, oc, shrt, budget);
            cell[land] = GOBS_EMPTY;
            cell[cur] = (uint8_t)mc;
            cell[e] = (uint8_t)oc;
            if (sub < 0) return -1;
            v += 1 + sub;
            if (shrt) break;
        }
    }
    return v;
}

static uint64_t perft_rec(perft_ctx_t *c, const gk_pos_t *p, int d) {
    if (d == 0) return 1;
    if (p->result != GK_ONGOING) return 0;
    if (p->in_turn) {
        if (d == 1) return lean_chains(&c->lv[1], p, p->aux[GOBS_AUX_JUMPER], true);
        memo_new_root(&c->lv[d], p);
        return chain_val(c, p, 0, d);
    }
    const uint8_t *cell = p->b.cell;
    const int mc = p->stm + 1, oc = 2 - p->stm;
    const bool shrt = p->variant == GOBS_VAR_SHORT;
    uint64_t total = 0;
    if (d == 1) {
        /* Bulk counting: slides and eliminations need no move to be made. */
        uint8_t pl[9], scratch[GOBS_SQUARES];
        bool scratch_ready = false;
        const int place_base = shrt ? placements(p, -1, pl) : 1;
        const int row = first_row(1 - p->stm);
        for (int sq = 0; sq < GOBS_SQUARES; sq++) {
            if (cell[sq] != mc) continue;
            bool jumps = false;
            for (int dir = 0; dir < 8; dir++) {
                const uint8_t *r = rays.sq[sq][dir];
                const int len = rays.len[sq][dir];
                if (shrt) {
                    if (len < 1) continue;
                    if (cell[r[0]] == GOBS_EMPTY) {
                        total++;
                        if (len >= 2 && cell[r[1]] == GOBS_EMPTY)
                            total++;
                        else if (len >= 2 && cell[r[1]] == oc)
                            total += (uint64_t)(place_base + (sq / 9 == row));
                    } else if (cell[r[0]] == oc && len >= 2 && cell[r[1]] == GOBS_EMPTY) {
                        jumps = true;
                    }
                    continue;
                }
                const int k = ray_skip(cell, r, len);
                total += (uint64_t)k;
                if (k < len && cell[r[k]] == oc) {
                    total += k > 0;
                    if (k + 1 < len && cell[r[k + 1]] == GOBS_EMPTY) jumps = true;
                }
            }
            if (!jumps) continue;
            /* Most chains are a few legs: walk them on a scratch board first. */
            if (!scratch_ready) memcpy(scratch, cell, sizeof scratch), scratch_ready = true;
            long budget = 256;
            const int64_t small = small_chains(scratch, sq, mc, oc, shrt, &budget);
            total += small >= 0 ? (uint64_t)small : chains_from(c, p, sq, 1);
        }
        return total;
    }
    uint64_t key[3];
    ptt_ent_t *te = NULL;
    if (c->tt) {
        ptt_key(p, d, key);
        te = &c->tt[(p->hash ^ (uint64_t)d * 0x9E3779B97F4A7C15ull) & c->tt_mask];
        if (te->k[0] == key[0] && te->k[1] == key[1] && te->k[2] == key[2]) return te->n;
    }
    gk_action_t list[GK_MAX_ACTIONS];
    const int n = gobs_gen(p, list);
    int done_sq = -1;
    for (int i = 0; i < n; i++) {
        if (gobs_act_kind(list[i]) == GOBS_ACT_LEG) {
            const int sq = gobs_act_from(list[i]);
            if (sq != done_sq) total += chains_from(c, p, sq, d);
            done_sq = sq;
            continue;
        }
        gk_pos_t q = *p;
        gobs_play(&q, list[i]);
        total += perft_rec(c, &q, d - 1);
    }
    if (te) {
        memcpy(te->k, key, sizeof key);
        te->n = total;
    }
    return total;
}

static uint64_t gobs_perft(const gk_pos_t *p, int depth) {
    assert(depth >= 0);
    if (depth <= 0) return 1;
    perft_ctx_t c;
    c.nlv = depth + 1;
    c.lv = calloc((size_t)c.nlv, sizeof *c.lv);
    if (!c.lv) return gk_perft_generic(p, depth);
    /* 32 MB of table from depth 3 on (depth-2 nodes exist below the root); without it
     * the counts are the same, only slower. */
    c.tt_mask = ((size_t)1 << 20) - 1;
    c.tt = depth >= 3 ? calloc(c.tt_mask + 1, sizeof *c.tt) : NULL;
    uint64_t v = perft_rec(&c, p, depth);
    for (int i = 0; i < c.nlv; i++) free(c.lv[i].e);
    free(c.lv);
    free(c.tt);
    return v;
}

/* ------------------------------------------------------------------------------------ */
/* Notation                                                                             */

typedef struct {
    char *buf;
    size_t cap, len;
    bool full;
} sbuf_t;

static void sb_putc(sbuf_t *b, char ch) {
    if (b->len + 1 >= b->cap) {
        b->full = true;
        return;
    }
    b->buf[b->len++] = ch;
    b->buf[b->len] = 0;
}

static void sb_puts(sbuf_t *b, const char *s) {
    while (*s) sb_putc(b, *s++);
}

static void sb_sq(sbuf_t *b, int sq) {
    sb_putc(b, (char)('a' + sq % 9));
    sb_putc(b, (char)('1' + sq / 9));
}

static int sb_done(sbuf_t *b) {
    if (b->cap == 0 || b->full) return -1;
    return (int)b->len;
}

static void sb_init(sbuf_t *b, char *buf, size_t cap) {
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    b->full = false;
    if (cap) buf[0] = 0;
}

static void sb_action(sbuf_t *b, gk_action_t a) {
    switch (gobs_act_kind(a)) {
    case GOBS_ACT_SLIDE:
        sb_sq(b, gobs_act_from(a));
        sb_putc(b, '-');
        sb_sq(b, gobs_act_to(a));
        break;
    case GOBS_ACT_ELIM:
        sb_sq(b, gobs_act_from(a));
        sb_putc(b, 'x');
        sb_sq(b, gobs_act_to(a));
        break;
    case GOBS_ACT_LEG:
        sb_sq(b, gobs_act_from(a));
        sb_putc(b, ':');
        sb_sq(b, gobs_act_to(a));
        break;
    case GOBS_ACT_STOP: sb_puts(b, "stop"); break;
    default: sb_puts(b, "?"); break;
    }
}

static int gobs_action_text(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap) {
    sbuf_t b;
    sb_init(&b, buf, cap);
    sb_action(&b, a);
    if (gobs_act_kind(a) == GOBS_ACT_ELIM && p->variant == GOBS_VAR_SHORT) {
        sb_putc(&b, '/');
        sb_sq(&b, gobs_act_place(a));
    }
    return sb_done(&b);
}

static int gobs_move_text(const gk_pos_t *p, const gk_action_t *seq, int n, char *buf, size_t cap) {
    sbuf_t b;
    sb_init(&b, buf, cap);
    if (n <= 0) return -1;
    if (gobs_act_kind(seq[0]) != GOBS_ACT_LEG) {
        /* A lone "stop" only occurs when p is already mid-turn. */
        if (n != 1) return -1;
        return gobs_action_text(p, seq[0], buf, cap);
    }
    sb_sq(&b, gobs_act_from(seq[0]));
    for (int i = 0; i < n; i++) {
        if (gobs_act_kind(seq[i]) == GOBS_ACT_STOP) {
            if (i != n - 1) return -1;
            break;
        }
        if (gobs_act_kind(seq[i]) != GOBS_ACT_LEG) return -1;
        sb_putc(&b, ':');
        sb_sq(&b, gobs_act_to(seq[i]));
    }
    return sb_done(&b);
}

/* Reads a square "e4" (case already folded) at *s; returns it or -1. */
static int read_sq(const char **s) {
    const char *t = *s;
    if (t[0] < 'a' || t[0] > 'i' || t[1] < '1' || t[1] > '9') return -1;
    *s = t + 2;
    return (t[1] - '1') * 9 + (t[0] - 'a');
}

static void sq_name(int sq, char out[3]) {
    out[0] = (char)('a' + sq % 9);
    out[1] = (char)('1' + sq / 9);
    out[2] = 0;
}

/* A short-variant elimination's shape: an enemy exactly 2 squares away in a line, the
 * square between empty (whether a placement square exists is checked apart). */
static bool short_elim_shape(const gk_pos_t *p, int from, int to) {
    for (int d = 0; d < 8; d++)
        if (rays.len[from][d] >= 2 && rays.sq[from][d][1] == to)
            return p->b.cell[rays.sq[from][d][0]] == GOBS_EMPTY && p->b.cell[to] == 2 - p->stm;
    return false;
}

static int too_many(char *err, size_t errcap) {
    return gk_fail(err, errcap, GK_E_INVALID, "move has too many actions");
}

/* A slide "FROM-TO" or an elimination "FROMxTO" (short: "FROMxTO/PLACE"); s is the text
 * after the separator, n1 the name of from. */
static int parse_slide_elim(const gk_pos_t *p, int from, char sep, const char *s, const char *n1,
                            gk_action_t *seq, int cap, char *err, size_t errcap) {
    char n2[3];
    const int to = read_sq(&s);
    if (to < 0)
        return gk_fail(err, errcap, GK_E_INVALID, "expected a square after '%s%c'", n1, sep);
    sq_name(to, n2);
    int place = 0;
    const bool shrt = p->variant == GOBS_VAR_SHORT;
    if (sep == 'x' && shrt) {
        if (*s != '/') {
            /* The example names a square the piece can really go to, when there is one. */
            uint8_t pl[9];
            const char *victim = p->stm == GK_WHITE ? "Black" : "White";
            const int rank = first_row(1 - p->stm) + 1;
            if (!short_elim_shape(p, from, to))
                return gk_fail(err, errcap, GK_E_INVALID, "%sx%s is not a legal elimination", n1,
                               n2);
            if (placements(p, from, pl) == 0)
                return gk_fail(err, errcap, GK_E_INVALID,
                               "%sx%s: %s's first rank (%d) has no empty square for the piece", n1,
                               n2, victim, rank);
            char n3[3];
            sq_name(pl[0], n3);
            return gk_fail(err, errcap, GK_E_INVALID,
                           "%sx%s: the short variant needs the placement square, as in %sx%s/%s "
                           "(an empty square of %s's first rank, %d)",
                           n1, n2, n1, n2, n3, victim, rank);
        }
        s++;
        place = read_sq(&s);
        if (place < 0)
            return gk_fail(err, errcap, GK_E_INVALID, "expected a placement square after '/'");
    }
    if (*s) return gk_fail(err, errcap, GK_E_INVALID, "unexpected text after the move: '%.20s'", s);
    gk_action_t list[GK_MAX_ACTIONS];
    const int nl = gobs_gen(p, list);
    const gk_action_t a = gobs_act(sep == '-' ? GOBS_ACT_SLIDE : GOBS_ACT_ELIM, from, to, place);
    if (gk_action_index(list, nl, a) < 0) {
        if (sep == '-')
            snprintf(err, errcap, "%s-%s is not a legal slide", n1, n2);
        else if (shrt && short_elim_shape(p, from, to)) {
            /* The capture itself is fine: the placement is what fails. */
            const char *victim = p->stm == GK_WHITE ? "Black" : "White";
            const int rank = first_row(1 - p->stm) + 1;
            uint8_t pl[9];
            char n3[3];
            sq_name(place, n3);
            if (placements(p, from, pl) == 0)
                snprintf(err, errcap,
                         "%sx%s: %s's first rank (%d) has no empty square for "
                         "the piece",
                         n1, n2, victim, rank);
            else
                snprintf(err, errcap,
                         "%sx%s/%s: %s is not an empty square of %s's first "
                         "rank (%d)",
                         n1, n2, n3, n3, victim, rank);
        } else {
            snprintf(err, errcap, "%sx%s is not a legal elimination", n1, n2);
        }
        return -1;
    }
    if (cap < 1) return too_many(err, errcap);
    seq[0] = a;
    return 1;
}

/* A jump chain "FROM:TO:TO..." (s is the text after the first ':'), played leg by leg
 * on a copy of p, with "stop" appended when the piece could jump on. */
static int parse_chain(const gk_pos_t *p, int from, const char *s, gk_action_t *seq, int cap,
                       char *err, size_t errcap) {
    gk_action_t list[GK_MAX_ACTIONS];
    char n1[3], n2[3];
    gk_pos_t q = *p;
    int n = 0, cur = from;
    for (;;) {
        const int to = read_sq(&s);
        if (to < 0)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "expected a square after ':' in a jump chain");
        if (q.stm != p->stm || q.result != GK_ONGOING ||
            (n > 0 && q.in_turn == 0)) { /* the chain already ended */
            sq_name(cur, n1);
            snprintf(err, errcap, "the chain cannot continue after %s (no further jump)", n1);
            return -1;
        }
        const gk_action_t a = gobs_act(GOBS_ACT_LEG, cur, to, 0);
        const int nl = gobs_gen(&q, list);
        if (gk_action_index(list, nl, a) < 0) {
            sq_name(cur, n1);
            sq_name(to, n2);
            snprintf(err, errcap, "%s:%s is not a legal jump", n1, n2);
            return -1;
        }
        if (n >= cap) return too_many(err, errcap);
        seq[n++] = a;
        gobs_play(&q, a);
        cur = to;
        if (*s == 0) break;
        if (*s != ':')
            return gk_fail(err, errcap, GK_E_INVALID, "unexpected text in a jump chain: '%.20s'",
                           s);
        s++;
    }
    if (q.in_turn) {
        if (n >= cap) return too_many(err, errcap);
        seq[n++] = GOBS_STOP;
    }
    return n;
}

static int gobs_parse_move(const gk_pos_t *p, const char *text, gk_action_t *seq, int cap,
                           char *err, size_t errcap);

/* A move typed with spaces between squares ("e3 e5", "g4 d4 b4"): low holds one ' '
 * where a space stood between two squares.  Several, or a ':' anywhere, make a jump
 * chain; one alone is the slide, elimination or jump that is legal (they never share
 * a destination square). */
static int parse_spaced(const gk_pos_t *p, const char *low, gk_action_t *seq, int cap, char *err,
                        size_t errcap) {
    const char *sp = strchr(low, ' ');
    char t[GK_MOVE_TEXT_MAX];
    snprintf(t, sizeof t, "%s", low);
    if (strchr(sp + 1, ' ') || strchr(low, ':')) {
        for (char *c = t; *c; c++)
            if (*c == ' ') *c = ':';
        return gobs_parse_move(p, t, seq, cap, err, errcap);
    }
    const char *to = sp + 1;
    const int from = (low[1] - '1') * 9 + (low[0] - 'a');
    const int dest = (to[1] - '1') * 9 + (to[0] - 'a');
    const int ff = from % 9, fr = from / 9, tf = dest % 9, tr = dest / 9;
    const int sf = (tf > ff) - (tf < ff), sr = (tr > fr) - (tr < fr);
    bool over = false; /* a piece between, on a line: the shape of a jump */
    if (from != dest && (ff == tf || fr == tr || abs(tf - ff) == abs(tr - fr)))
        for (int f = ff + sf, r = fr + sr; f != tf || r != tr; f += sf, r += sr)
            over |= p->b.cell[9 * r + f] != GOBS_EMPTY;
    /* The reason worth giving when none is legal: a capture's, a jump's or a slide's. */
    const char want = p->b.cell[dest] == 2 - p->stm ? 'x' : over ? ':' : '-';
    char keep[256] = "";
    for (const char *sep = "-x:"; *sep; sep++) {
        t[sp - low] = *sep;
        int n = gobs_parse_move(p, t, seq, cap, err, errcap);
        if (n >= 0) return n;
        if (*sep == want) snprintf(keep, sizeof keep, "%s", err);
    }
    return gk_fail(err, errcap, GK_E_INVALID, "%s", keep);
}

static int gobs_parse_move(const gk_pos_t *p, const char *text, gk_action_t *seq, int cap,
                           char *err, size_t errcap) {
    char low[GK_MOVE_TEXT_MAX];
    size_t len = 0;
    bool spaced = false;
    for (size_t i = 0; text[i]; i++) {
        if (len + 1 >= sizeof low)
            return gk_fail(err, errcap, GK_E_INVALID, "move text is too long");
        const unsigned char ch = (unsigned char)text[i];
        if (ch == ' ' || ch == '\t') {
            /* Spaces are read as Gounki reads them: between two squares they separate
             * them, elsewhere ("e3 - e5") they are dropped. */
            const char *next = text + i + strspn(text + i, " \t");
            bool between = len >= 2 && low[len - 1] >= '1' && low[len - 1] <= '9' &&
                           tolower((unsigned char)next[0]) >= 'a' &&
                           tolower((unsigned char)next[0]) <= 'i' && next[1] >= '1' &&
                           next[1] <= '9';
            if (between) low[len++] = ' ', spaced = true;
            i = (size_t)(next - text) - 1;
            continue;
        }
        if (ch < ' ' || ch > '~') { /* also keeps the error messages one printable line */
            return gk_fail(err, errcap, GK_E_INVALID,
                           "move contains a control or non-ASCII character");
        }
        low[len++] = (char)tolower(ch);
    }
    low[len] = 0;
    if (spaced && low[0] >= 'a' && low[0] <= 'i' && low[1] >= '1' && low[1] <= '9' &&
        p->result == GK_ONGOING)
        return parse_spaced(p, low, seq, cap, err, errcap);
    if (p->result != GK_ONGOING) return gk_fail(err, errcap, GK_E_INVALID, "the game is over");
    if (len == 0) return gk_fail(err, errcap, GK_E_INVALID, "empty move");
    char n1[3], n2[3];
    if (!strcmp(low, "stop")) {
        if (!p->in_turn)
            return gk_fail(err, errcap, GK_E_INVALID, "'stop' only ends a jump chain in progress");
        if (cap < 1) return too_many(err, errcap);
        seq[0] = GOBS_STOP;
        return 1;
    }
    const char *s = low;
    const int from = read_sq(&s);
    if (from < 0)
        return gk_fail(err, errcap, GK_E_INVALID, "'%.40s' does not start with a square (a1..i9)",
                       text);
    sq_name(from, n1);
    if (p->b.cell[from] != p->stm + 1)
        return gk_fail(err, errcap, GK_E_INVALID, "%s: no %s piece there", n1,
                       p->stm == GK_WHITE ? "white" : "black");
    if (p->in_turn && (*s != ':' || from != p->aux[GOBS_AUX_JUMPER])) {
        sq_name(p->aux[GOBS_AUX_JUMPER], n2);
        return gk_fail(err, errcap, GK_E_INVALID,
                       "a jump chain is in progress: continue it from %s or 'stop'", n2);
    }
    const char sep = *s++;
    if (sep == '-' || sep == 'x')
        return parse_slide_elim(p, from, sep, s, n1, seq, cap, err, errcap);
    if (sep != ':')
        return gk_fail(err, errcap, GK_E_INVALID, "expected '-', 'x' or ':' after %s", n1);
    return parse_chain(p, from, s, seq, cap, err, errcap);
}

/* ------------------------------------------------------------------------------------ */
/* Position strings                                                                     */

static const char *const variant_names[] = {"standard", "short"};

static int gobs_pos_to_text(const gk_pos_t *p, char *buf, size_t cap) {
    sbuf_t b;
    sb_init(&b, buf, cap);
    sb_puts(&b, variant_names[p->variant & 1]);
    sb_putc(&b, ' ');
    for (int row = 8; row >= 0; row--) {
        int run = 0;
        for (int f = 0; f < 9; f++) {
            const int c = p->b.cell[9 * row + f];
            if (c == GOBS_EMPTY) {
                run++;
                continue;
            }
            if (run) sb_putc(&b, (char)('0' + run));
            run = 0;
            sb_putc(&b, c == GOBS_WHITE ? 'w' : 'b');
        }
        if (run) sb_putc(&b, (char)('0' + run));
        if (row) sb_putc(&b, '/');
    }
    char tmp[40];
    snprintf(tmp, sizeof tmp, " %c %u ", p->stm == GK_WHITE ? 'w' : 'b', (unsigned)p->turn);
    sb_puts(&b, tmp);
    if (p->in_turn) {
        sb_sq(&b, p->aux[GOBS_AUX_JUMPER]);
        snprintf(tmp, sizeof tmp, "+%u", (unsigned)p->in_turn);
        sb_puts(&b, tmp);
    } else {
        sb_putc(&b, '-');
    }
    sb_putc(&b, ' ');
    sb_puts(&b, gk_result_text((gk_result_t)p->result));
    if (p->result != GK_ONGOING) {
        sb_putc(&b, ':');
        sb_puts(&b, gk_reason_text((gk_reason_t)p->reason));
    }
    return sb_done(&b);
}

/* Splits text into at most `max` fields separated by runs of spaces; returns the count
 * or -1 when there are more. */
static int split_fields(const char *text, const char **f, size_t *flen, int max) {
    int n = 0;
    const char *s = text;
    for (;;) {
        while (*s == ' ') s++;
        if (!*s) return n;
        if (n == max) return -1;
        f[n] = s;
        while (*s && *s != ' ') s++;
        flen[n] = (size_t)(s - f[n]);
        n++;
    }
}

static bool field_is(const char *f, size_t len, const char *word) {
    return strlen(word) == len && !strncmp(f, word, len);
}

/* The BOARD field: ranks 9 to 1, separated by '/'; fills the cells and the counts. */
static int parse_board(gk_pos_t *p, const char *f, size_t fl, char *err, size_t errcap) {
    int row = 8, file = 0;
    for (size_t i = 0; i < fl; i++) {
        const char ch = f[i];
        if (ch == '/') {
            if (file != 9) {
                snprintf(err, errcap, "board rank %d has %d squares, not 9", row + 1, file);
                return -1;
            }
            if (row == 0) {
                snprintf(err, errcap, "board has more than 9 ranks");
                return -1;
            }
            row--;
            file = 0;
        } else if (ch >= '1' && ch <= '9') {
            file += ch - '0';
            if (file > 9) {
                snprintf(err, errcap, "board rank %d has more than 9 squares", row + 1);
                return -1;
            }
        } else if (ch == 'w' || ch == 'b') {
            if (file >= 9) {
                snprintf(err, errcap, "board rank %d has more than 9 squares", row + 1);
                return -1;
            }
            const int side = ch == 'w' ? GK_WHITE : GK_BLACK;
            p->b.cell[9 * row + file++] = (uint8_t)(side + 1);
            p->aux[GOBS_AUX_COUNT + side]++;
        } else {
            snprintf(err, errcap, "board: unexpected character '%c' (w, b, 1-9 or /)", ch);
            return -1;
        }
    }
    if (row != 0 || file != 9) {
        snprintf(err, errcap, "board must have 9 ranks of 9 squares, rank 9 first");
        return -1;
    }
    const int nw = p->aux[GOBS_AUX_COUNT], nb = p->aux[GOBS_AUX_COUNT + 1];
    if (nw + nb > 54) {
        snprintf(err, errcap, "board has %d pieces; the game has 54", nw + nb);
        return -1;
    }
    return 0;
}

/* The TURNS field: 0..65535 without leading zeros. */
static int parse_turns(gk_pos_t *p, const char *f, size_t fl, char *err, size_t errcap) {
    unsigned long turns = 0;
    if (fl < 1 || fl > 5 || (fl > 1 && f[0] == '0')) {
        snprintf(err, errcap, "the turn count must be a number 0..65535 without leading zeros");
        return -1;
    }
    for (size_t i = 0; i < fl; i++) {
        if (!isdigit((unsigned char)f[i])) {
            snprintf(err, errcap, "the turn count must be a number 0..65535 without leading zeros");
            return -1;
        }
        turns = turns * 10 + (unsigned long)(f[i] - '0');
    }
    if (turns > 65535) {
        snprintf(err, errcap, "turn count %lu is above 65535", turns);
        return -1;
    }
    p->turn = (uint16_t)turns;
    return 0;
}

/* The CHAIN field other than "-": SQUARE+LEGS, a jump chain in progress. */
static int parse_turn(gk_pos_t *p, const char *s, size_t fl, char *err, size_t errcap) {
    char low[3] = {(char)tolower((unsigned char)s[0]),
                   fl > 1 ? (char)tolower((unsigned char)s[1]) : 0, 0};
    const char *t = low;
    const int sq = fl >= 2 ? read_sq(&t) : -1;
    unsigned long legs = 0;
    bool ok = sq >= 0 && fl >= 4 && fl <= 5 && s[2] == '+' && s[3] != '0';
    for (size_t i = 3; ok && i < fl; i++) {
        if (!isdigit((unsigned char)s[i])) ok = false;
        legs = legs * 10 + (unsigned long)(s[i] - '0');
    }
    if (!ok || legs < 1 || legs > 53) {
        snprintf(err, errcap, "turn must be '-' or SQUARE+LEGS (e.g. d4+2, legs 1..53)");
        return -1;
    }
    if (p->b.cell[sq] != p->stm + 1) {
        snprintf(err, errcap, "turn: the jumping piece on %c%c is not the side to move's", low[0],
                 low[1]);
        return -1;
    }
    p->in_turn = (uint8_t)legs;
    p->aux[GOBS_AUX_JUMPER] = (uint8_t)sq;
    return 0;
}

/* The RESULT field other than "*": RESULT:REASON, the reason fitting the result. */
static int parse_result(gk_pos_t *p, const char *f, size_t fl, char *err, size_t errcap) {
    const char *colon = memchr(f, ':', fl);
    gk_result_t r = GK_ONGOING;
    if (colon) {
        const size_t rl = (size_t)(colon - f);
        for (int i = GK_WIN_WHITE; i <= GK_DRAW; i++)
            if (field_is(f, rl, gk_result_text((gk_result_t)i))) r = (gk_result_t)i;
    }
    int why = -1;
    if (colon && r != GK_ONGOING) {
        const size_t wl = fl - (size_t)(colon + 1 - f);
        why = gk_reason_named(colon + 1, wl); /* reads the old name ply-limit too */
        if (why < GK_REASON_NO_MOVE) why = -1;
    }
    const bool drawish =
        why == GK_REASON_REPETITION || why == GK_REASON_TURN_LIMIT || why == GK_REASON_GOBS_DRAW;
    if (why < 0 || (r == GK_DRAW) != drawish) {
        snprintf(err, errcap,
                 "result must be '*' or RESULT:REASON as in '1-0:gobs', "
                 "'1/2-1/2:gobs-draw' (reasons: gobs, gobs-draw, no-move, "
                 "repetition, turn-limit, resign)");
        return -1;
    }
    p->result = (uint8_t)r;
    p->reason = (uint8_t)why;
    return 0;
}

/* An unfinished position must be one the rules can reach: the mover started its turn
 * with at least 5 pieces (5 = GOBSed), the other side with at least 6 (it did not just
 * fail), a chain in progress can go on, and the turn limit is not reached. */
static int check_reachable(const gk_pos_t *p, uint16_t turn_limit, char *err, size_t errcap) {
    const int me = p->stm, opp = 1 - me, legs = p->in_turn;
    if (p->aux[GOBS_AUX_COUNT + me] - legs < GOBS_LIMIT) {
        snprintf(err, errcap, "the side to move has fewer than 5 pieces: the game is over");
        return -1;
    }
    if (p->aux[GOBS_AUX_COUNT + opp] + legs <= GOBS_LIMIT) {
        snprintf(err, errcap, "the side not to move has 5 pieces or fewer: the game would be over");
        return -1;
    }
    if (p->in_turn && !has_leg(p, p->aux[GOBS_AUX_JUMPER])) {
        snprintf(err, errcap,
                 "turn: the jumping piece has no further jump, so the turn "
                 "would already have ended");
        return -1;
    }
    if (turn_limit && p->turn >= turn_limit) {
        snprintf(err, errcap, "turn count %u is not below the turn limit %u (see --turn-limit)",
                 (unsigned)p->turn, (unsigned)turn_limit);
        return -1;
    }
    return 0;
}

static int gobs_pos_from_text(gk_pos_t *out, const char *text, uint16_t turn_limit, char *err,
                              size_t errcap) {
    const char *f[6];
    size_t fl[6];
    gk_pos_t p;
    memset(&p, 0, sizeof p);
    p.game = GK_GAME_GOBS;
    p.turn_limit = turn_limit;
    for (const char *s = text; *s; s++)
        if ((unsigned char)*s < 32 || (unsigned char)*s > 126)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "position contains a control or non-ASCII character");
    const int nf = split_fields(text, f, fl, 6);
    if (nf < 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "too many fields (at most 6: RULES BOARD SIDE TURNS CHAIN RESULT)");
    if (nf < 4)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "expected 'RULES BOARD SIDE TURNS [CHAIN [RESULT]]', got %d field%s", nf,
                       nf == 1 ? "" : "s");
    if (field_is(f[0], fl[0], "standard"))
        p.variant = GOBS_VAR_STANDARD;
    else if (field_is(f[0], fl[0], "short"))
        p.variant = GOBS_VAR_SHORT;
    else {
        snprintf(err, errcap, "rule set '%.*s' is not 'standard' or 'short'",
                 (int)(fl[0] > 20 ? 20 : fl[0]), f[0]);
        return -1;
    }
    if (parse_board(&p, f[1], fl[1], err, errcap) < 0) return -1;
    if (field_is(f[2], fl[2], "w"))
        p.stm = GK_WHITE;
    else if (field_is(f[2], fl[2], "b"))
        p.stm = GK_BLACK;
    else {
        snprintf(err, errcap, "side to move must be 'w' or 'b'");
        return -1;
    }
    if (parse_turns(&p, f[3], fl[3], err, errcap) < 0) return -1;
    if (nf >= 5 && !field_is(f[4], fl[4], "-") && parse_turn(&p, f[4], fl[4], err, errcap) < 0)
        return -1;
    if (nf == 6 && !field_is(f[5], fl[5], "*") && parse_result(&p, f[5], fl[5], err, errcap) < 0)
        return -1;
    if (p.result == GK_ONGOING && check_reachable(&p, turn_limit, err, errcap) < 0) return -1;
    p.hash = gobs_hash_full(&p);
    *out = p;
    return 0;
}

static int gobs_board_text(const gk_pos_t *p, char *buf, size_t cap) {
    sbuf_t b;
    sb_init(&b, buf, cap);
    const int jumper = p->in_turn ? p->aux[GOBS_AUX_JUMPER] : -1;
    sb_puts(&b, "    a b c d e f g h i\n");
    for (int row = 8; row >= 0; row--) {
        sb_putc(&b, ' ');
        sb_putc(&b, (char)('1' + row));
        sb_puts(&b, "  ");
        for (int f = 0; f < 9; f++) {
            const int s = 9 * row + f, c = p->b.cell[s];
            char ch = c == GOBS_WHITE ? 'w' : c == GOBS_BLACK ? 'b' : '.';
            if (s == jumper) ch = (char)toupper((unsigned char)ch);
            sb_putc(&b, ch);
            if (f < 8) sb_putc(&b, ' ');
        }
        sb_puts(&b, "  ");
        sb_putc(&b, (char)('1' + row));
        sb_putc(&b, '\n');
    }
    sb_puts(&b, "    a b c d e f g h i\n");
    char tmp[200];
    const int me = p->stm;
    const bool on = p->result == GK_ONGOING; /* the turn being played, or the last one */
    snprintf(tmp, sizeof tmp, "gobs %s, %s %u, white %d, black %d, %s to move",
             variant_names[p->variant & 1], on ? "turn" : "after turn", (unsigned)p->turn + on,
             gobs_count(p, GK_WHITE), gobs_count(p, GK_BLACK), me == GK_WHITE ? "white" : "black");
    sb_puts(&b, tmp);
    if (p->result != GK_ONGOING) {
        snprintf(tmp, sizeof tmp, "; game over %s (%s)", gk_result_text((gk_result_t)p->result),
                 gk_reason_text((gk_reason_t)p->reason));
        sb_puts(&b, tmp);
    } else if (p->in_turn) {
        snprintf(
            tmp, sizeof tmp, "; jump chain in progress, piece on %c%c (upper case) after %u leg%s",
            'a' + jumper % 9, '1' + jumper / 9, (unsigned)p->in_turn, p->in_turn == 1 ? "" : "s");
        sb_puts(&b, tmp);
    } else if (gobs_count(p, me) == GOBS_LIMIT) {
        sb_puts(&b, "; GOBSed: must flip to more than 5 pieces or eliminate to draw");
    }
    sb_putc(&b, '\n');
    return sb_done(&b);
}

const gk_game_t gk_gobs_game = {
    .name = "gobs",
    .variants = {"standard", "short", NULL, NULL},
    .setup = gobs_setup,
    .gen = gobs_gen,
    .play = gobs_play,
    .hash_full = gobs_hash_full,
    .perft = gobs_perft,
    .action_text = gobs_action_text,
    .move_text = gobs_move_text,
    .parse_move = gobs_parse_move,
    .pos_to_text = gobs_pos_to_text,
    .pos_from_text = gobs_pos_from_text,
    .board_text = gobs_board_text,
};
