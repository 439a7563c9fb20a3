/* solitaire/solitaire.c -- the one-player Gobs puzzle: rules, a beam finder, an IDA* prover. */
#include "solitaire.h"

#include "mirror.h"

#include "../common/clock.h"
#include "../common/hash.h"

#include <assert.h>
#include <limits.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const int dfile[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int drank[8] = {0, 1, 1, 1, 0, -1, -1, -1};

int gs_square_parse(const char *s) {
    if (!s) return GS_ERR_PARSE;
    int f = s[0] >= 'A' && s[0] <= 'I' ? s[0] - 'A' : s[0] - 'a';
    if (f < 0 || f >= GS_SIZE || s[1] < '1' || s[1] > '9' || s[2] != '\0') return GS_ERR_PARSE;
    return 9 * (s[1] - '1') + f;
}

void gs_square_text(int sq, char out[3]) {
    out[0] = (char)('a' + sq % 9);
    out[1] = (char)('1' + sq / 9);
    out[2] = '\0';
}

void gs_move_text(gs_move_t m, char out[9]) {
    gs_square_text(m.from, out);
    out[2] = 'x';
    gs_square_text(m.over, out + 3);
    out[5] = '-';
    gs_square_text(m.to, out + 6);
}

const char *gs_strerror(int err) {
    switch (err) {
    case GS_ERR_SIZE: return "the square size must be 2..7";
    case GS_ERR_PREFLIP: return "the pre-flipped square must hold a piece of the square";
    case GS_ERR_FIXED: return "bad fixed square (or it is the pre-flipped square)";
    case GS_ERR_NOMEM: return "out of memory";
    case GS_ERR_PARSE: return "malformed square (expected a1..i9) or square list";
    case GS_ERR_WHITE: return "a white-start square must hold a piece of the square, not fixed";
    case GS_ERR_SHARE: return "the parts of the search could not share their results";
    default: return "unknown error";
    }
}

static int lo_of(int n) {
    return (GS_SIZE - n) / 2;
}

int gs_problem_init(gs_problem_t *p, int n) {
    if (n < GS_MIN_N || n > GS_MAX_N) return GS_ERR_SIZE;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->preflip = -1;
    return 0;
}

int gs_in_square(const gs_problem_t *p, int sq) {
    int lo = lo_of(p->n), f = sq % 9, r = sq / 9;
    return sq >= 0 && sq < GS_SQUARES && f >= lo && f < lo + p->n && r >= lo && r < lo + p->n;
}

static int mark_list(uint8_t marks[GS_SQUARES], const char *list) {
    uint8_t fx[GS_SQUARES];
    memcpy(fx, marks, sizeof fx);
    const char *s = list;
    if (!s || !*s) return GS_ERR_PARSE;
    for (;;) {
        char buf[3];
        size_t len = strcspn(s, ",");
        if (len != 2) return GS_ERR_PARSE;
        buf[0] = s[0], buf[1] = s[1], buf[2] = '\0';
        int sq = gs_square_parse(buf);
        if (sq < 0) return GS_ERR_PARSE;
        fx[sq] = 1;
        if (s[2] == '\0') break;
        s += 3; /* past the comma; an empty item after it fails above */
    }
    memcpy(marks, fx, sizeof fx);
    return 0;
}

int gs_problem_fix(gs_problem_t *p, const char *list) {
    return mark_list(p->fixed, list);
}

int gs_problem_white(gs_problem_t *p, const char *list) {
    return mark_list(p->white, list);
}

int gs_problem_check(const gs_problem_t *p) {
    if (p->n < GS_MIN_N || p->n > GS_MAX_N) return GS_ERR_SIZE;
    for (int sq = 0; sq < GS_SQUARES; sq++)
        if (p->fixed[sq] > 1) return GS_ERR_FIXED;
    for (int sq = 0; sq < GS_SQUARES; sq++)
        if (p->white[sq] && (p->white[sq] > 1 || !gs_in_square(p, sq) || p->fixed[sq]))
            return GS_ERR_WHITE;
    if (p->preflip != -1) {
        if (!gs_in_square(p, p->preflip)) return GS_ERR_PREFLIP;
        if (p->fixed[p->preflip]) return GS_ERR_FIXED;
    }
    return 0;
}

void gs_start(const gs_problem_t *p, gs_state_t *s) {
    for (int sq = 0; sq < GS_SQUARES; sq++)
        s->cell[sq] = p->fixed[sq]           ? GS_FIXED
                      : !gs_in_square(p, sq) ? GS_EMPTY
                      : p->white[sq]         ? GS_WHITE
                                             : GS_BLACK;
    if (p->preflip >= 0) s->cell[p->preflip] = GS_WHITE;
    s->first = (int8_t)p->preflip;
}

static int movable(int c) {
    return c == GS_BLACK || c == GS_WHITE;
}

int gs_play(gs_state_t *s, gs_move_t m) {
    if (m.from >= GS_SQUARES || m.over >= GS_SQUARES || m.to >= GS_SQUARES) return 0;
    int df = m.over % 9 - m.from % 9, dr = m.over / 9 - m.from / 9;
    if (df < -1 || df > 1 || dr < -1 || dr > 1 || (df == 0 && dr == 0)) return 0;
    int tf = m.over % 9 + df, tr = m.over / 9 + dr;
    if (tf < 0 || tf >= GS_SIZE || tr < 0 || tr >= GS_SIZE || 9 * tr + tf != m.to) return 0;
    if (!movable(s->cell[m.from]) || !movable(s->cell[m.over]) || s->cell[m.to] != GS_EMPTY)
        return 0;
    if (s->first >= 0 && m.from != s->first) return 0;
    s->cell[m.to] = s->cell[m.from];
    s->cell[m.from] = GS_EMPTY;
    s->cell[m.over] = s->cell[m.over] == GS_BLACK ? GS_WHITE : GS_BLACK;
    s->first = -1;
    return 1;
}

int gs_is_goal(const gs_problem_t *p, const gs_state_t *s) {
    for (int sq = 0; sq < GS_SQUARES; sq++)
        if (gs_in_square(p, sq) && !p->fixed[sq] && s->cell[sq] != GS_WHITE) return 0;
    return 1;
}

/* ---------------------------------------------------------------- solver ---- */

/* Transposition table entry: the full position (occupancy and white sets over 81
 * squares, fixed pieces included) so that a hit is never a collision, and the largest
 * remaining budget with which the position is known to have no solution.  "No solution
 * within r moves" is a fact about the position alone, so entries stay valid across
 * iterations. */
typedef struct tt_entry {
    uint64_t occ_lo, white_lo;
    uint64_t hi; /* bits 0-16 occ_hi, 17-33 white_hi, 34-41 budget + 1 (0 = empty) */
} tt_entry_t;

enum { TT_WAYS = 4 };
#define TT_START_BYTES ((size_t)1 << 20) /* the table's first size; it doubles from there */

/* The positions near the goal with their exact distance to it (see perim_build). */
typedef struct perim {
    tt_entry_t *slot;    /* linear probing; hi bits 34-41 hold the distance + 1 (0 = empty) */
    size_t mask;         /* slots - 1 */
    size_t used, cap;    /* entries, and the most the build may add */
    int radius;          /* every position within radius moves of the goal is in; -1 = none */
    int whole;           /* every position the goal reaches is in: one not found is unsolvable */
    int full;            /* the last layer filled the cap (or the budget): no more layers */
    size_t prev, last;   /* the sizes of the last two complete layers */
    uint64_t last_nodes; /* the nodes the last layer cost */
    uint64_t nodes;      /* the nodes all layers cost */
} perim_t;

typedef struct ctx {
    uint8_t cell[GS_SQUARES];
    int8_t nbr[GS_SQUARES][8]; /* neighbour in each direction, or -1 */
    uint8_t dist[GS_SQUARES];  /* jumps from a square to the nearest goal square of its class */
    uint8_t fixed[GS_SQUARES]; /* 1 = a fixed piece */
    uint8_t home[GS_SQUARES];  /* 1 = a goal square (in the N x N square, not fixed) */
    uint64_t occ[2], white[2];
    int nblack, sumdist, first;
    int nb[4], sd[4]; /* the same per class (file parity, rank parity) */
    tt_entry_t *tt;
    size_t tt_mask;  /* number of buckets - 1 */
    size_t tt_used;  /* entries filled, for growing the table */
    size_t tt_limit; /* the most bytes the table may grow to */
    int tt_nomem;    /* a growth failed: the table stays as it is */
    uint64_t nodes, max_nodes;
    double t0, max_seconds;
    const gs_limits_t *lim; /* for its progress callback */
    int bound;              /* of the iteration under way */
    int aborted;
    int next_bound;
    int sol_len; /* the length of the solution dfs() found */
    perim_t perim;
    size_t perim_cap;           /* the most entries the perimeter may hold (0: none) */
    int nsym;                   /* symmetries of the problem other than the identity */
    uint8_t sym[7][GS_SQUARES]; /* their square maps */
    gs_move_t path[GS_MAX_LEN];
    atomic_flag *locks; /* the table is shared among threads (TT_LOCKS locks), or NULL */
    struct team *team;  /* a worker of the parallel proof: its shared counters; else NULL */
    int reporter;       /* the worker that calls the progress callback */
} ctx_t;

/* What the threads of one part share during a parallel IDA* iteration. */
typedef struct team {
    _Atomic uint64_t nodes;      /* every thread's nodes, by steps of 16k, from the part's start */
    _Atomic uint64_t best;       /* the lowest item with a solution, UINT64_MAX: none yet */
    _Atomic int stop;            /* a thread spent the budget: the others stop too */
    _Atomic uint64_t items_done; /* of this part's items, for the progress lines */
    uint64_t items;              /* this part's items in the iteration */
    uint64_t node_cap;           /* the part stops past this many nodes (0: no cap) */
} team_t;

static void bit_flip(uint64_t b[2], int sq) {
    b[sq >> 6] ^= (uint64_t)1 << (sq & 63);
}

static uint64_t key_hi(const ctx_t *c) {
    return c->occ[1] | c->white[1] << 17;
}

static size_t tt_index(uint64_t occ_lo, uint64_t white_lo, uint64_t hi, size_t mask) {
    return (size_t)(gk_mix64(occ_lo ^ gk_mix64(white_lo ^ gk_mix64(hi))) & mask) * TT_WAYS;
}

static tt_entry_t *tt_bucket(const ctx_t *c) {
    return c->tt + tt_index(c->occ[0], c->white[0], key_hi(c), c->tt_mask);
}

/* The table starts small and doubles when half full, up to tt_limit: a small puzzle's
 * search touches a few pages instead of faulting in a table sized for the largest one (2x2
 * took 0.2-0.8 s in page faults of a 256 MB table for 38k nodes).  Entries move to their
 * bucket in the new table; one that finds its bucket full is dropped, as a replacement
 * would drop it (an entry is a proven fact, never needed for correctness). */
static void tt_grow(ctx_t *c) {
    size_t buckets = (c->tt_mask + 1) * 2;
    if (c->tt_nomem || buckets * TT_WAYS * sizeof(tt_entry_t) > c->tt_limit) return;
    tt_entry_t *nt = calloc(buckets * TT_WAYS, sizeof *nt);
    if (!nt) {
        c->tt_nomem = 1; /* go on with the table we have */
        return;
    }
    size_t used = 0;
    for (size_t i = 0, n = (c->tt_mask + 1) * TT_WAYS; i < n; i++) {
        const tt_entry_t *e = &c->tt[i];
        if ((e->hi >> 34) == 0) continue;
        tt_entry_t *b = nt + tt_index(e->occ_lo, e->white_lo, e->hi & 0x3ffffffffULL, buckets - 1);
        for (int w = 0; w < TT_WAYS; w++)
            if ((b[w].hi >> 34) == 0) {
                b[w] = *e;
                used++;
                break;
            }
    }
    free(c->tt);
    c->tt = nt;
    c->tt_mask = buckets - 1;
    c->tt_used = used;
}

/* The budget with which this position is known to fail, or -1. */
static int tt_probe(const ctx_t *c) {
    const tt_entry_t *e = tt_bucket(c);
    uint64_t hi = key_hi(c);
    for (int i = 0; i < TT_WAYS; i++)
        if (e[i].occ_lo == c->occ[0] && e[i].white_lo == c->white[0] &&
            (e[i].hi & 0x3ffffffffULL) == hi && (e[i].hi >> 34) != 0)
            return (int)(e[i].hi >> 34) - 1;
    return -1;
}

static void tt_store(ctx_t *c, int budget) {
    if (!c->locks && c->tt_used * 2 > (c->tt_mask + 1) * TT_WAYS) tt_grow(c);
    tt_entry_t *e = tt_bucket(c), *victim = e;
    uint64_t hi = key_hi(c);
    for (int i = 0; i < TT_WAYS; i++) {
        if (e[i].occ_lo == c->occ[0] && e[i].white_lo == c->white[0] &&
            (e[i].hi & 0x3ffffffffULL) == hi) {
            victim = &e[i];
            if ((int)(e[i].hi >> 34) - 1 >= budget) return;
            break;
        }
        /* Keep the entries that cut the most: replace the one with the smallest budget. */
        if ((e[i].hi >> 34) < (victim->hi >> 34)) victim = &e[i];
    }
    if ((victim->hi >> 34) == 0 && !c->locks) c->tt_used++;
    victim->occ_lo = c->occ[0];
    victim->white_lo = c->white[0];
    victim->hi = hi | (uint64_t)(budget + 1) << 34;
}

/* The threads of a parallel proof share one table of a fixed size, each bucket guarded by
 * one of TT_LOCKS spin locks (held for one probe or store: uncontended nearly always).
 * Shared, it keeps the transpositions between the threads' subtrees: with a table each,
 * 4x4 --fixed d4,e5 took 1.7 times the serial nodes on 2 threads. */
enum { TT_LOCKS = 4096 };

static atomic_flag *tt_lock(const ctx_t *c) {
    atomic_flag *l = &c->locks[(size_t)(tt_bucket(c) - c->tt) / TT_WAYS & (TT_LOCKS - 1)];
    while (atomic_flag_test_and_set_explicit(l, memory_order_acquire))
        sched_yield(); /* more threads than cores: let the holder run */
    return l;
}

static int tt_probe_shared(const ctx_t *c) {
    if (!c->locks) return tt_probe(c);
    atomic_flag *l = tt_lock(c);
    int known = tt_probe(c);
    atomic_flag_clear_explicit(l, memory_order_release);
    return known;
}

static void tt_store_shared(ctx_t *c, int budget) {
    if (!c->locks) {
        tt_store(c, budget);
        return;
    }
    atomic_flag *l = tt_lock(c);
    tt_store(c, budget);
    atomic_flag_clear_explicit(l, memory_order_release);
}

static int cls(int sq) {
    return (sq % 9 & 1) * 2 + (sq / 9 & 1);
}

/* Admissible distance to the goal.  Each move turns over exactly one movable piece, so at
 * least nblack moves remain; each move carries one piece one jump, so at least sumdist
 * remain.  Sharper, per class k of squares (file and rank parity, which a jumping piece
 * keeps): the jumped piece is never of the jumper's class (it is one step away), so a
 * move either turns over a class-k piece or moves one, never both: at least
 * nb[k] + sd[k] moves remain.  Every move changes nblack by one, so the remaining length
 * has the parity of nblack. */
static int heur(const int nb[4], const int sd[4]) {
    int tb = 0, ts = 0, h = 0;
    for (int k = 0; k < 4; k++) {
        tb += nb[k], ts += sd[k];
        if (nb[k] + sd[k] > h) h = nb[k] + sd[k];
    }
    if (tb > h) h = tb;
    if (ts > h) h = ts;
    return h + ((h - tb) & 1);
}

static void apply(ctx_t *c, int from, int over, int to) {
    c->cell[to] = c->cell[from];
    c->cell[from] = GS_EMPTY;
    bit_flip(c->occ, from);
    bit_flip(c->occ, to);
    if (c->cell[to] == GS_WHITE) {
        bit_flip(c->white, from);
        bit_flip(c->white, to);
    }
    c->nblack += c->cell[over] == GS_BLACK ? -1 : 1;
    c->nb[cls(over)] += c->cell[over] == GS_BLACK ? -1 : 1;
    c->sd[cls(to)] += c->dist[to] - c->dist[from];
    c->cell[over] = c->cell[over] == GS_BLACK ? GS_WHITE : GS_BLACK;
    bit_flip(c->white, over);
    c->sumdist += c->dist[to] - c->dist[from];
}

typedef struct cand {
    uint8_t from, over, to;
    uint16_t key; /* try the smallest estimate first, then the fewest jumps home */
} cand_t;

static void xform(const uint8_t *map, const uint64_t in[2], uint64_t out[2]) {
    out[0] = out[1] = 0;
    for (int sq = 0; sq < GS_SQUARES; sq++)
        if (in[sq >> 6] >> (sq & 63) & 1) bit_flip(out, map[sq]);
}

/* Near the root, children that a symmetry of the current position maps onto each other
 * have mirrored subtrees: search one of each.  Deeper positions are rarely symmetric, so
 * this is tried only at the first moves, where it divides the work by up to 8. */
static int dedupe_symmetric(ctx_t *c, cand_t *list, int n) {
    int stab[7], ns = 0;
    for (int t = 0; t < c->nsym; t++) {
        uint64_t o[2], w[2];
        xform(c->sym[t], c->occ, o);
        xform(c->sym[t], c->white, w);
        if (o[0] == c->occ[0] && o[1] == c->occ[1] && w[0] == c->white[0] && w[1] == c->white[1])
            stab[ns++] = t;
    }
    if (ns == 0) return n;
    uint64_t kept[8 * GS_SQUARES][4];
    int k = 0;
    for (int i = 0; i < n; i++) {
        apply(c, list[i].from, list[i].over, list[i].to);
        uint64_t me[4] = {c->occ[0], c->occ[1], c->white[0], c->white[1]};
        int dup = 0;
        for (int t = 0; t < ns && !dup; t++) {
            uint64_t im[4];
            xform(c->sym[stab[t]], me, im);
            xform(c->sym[stab[t]], me + 2, im + 2);
            for (int j = 0; j < k && !dup; j++) dup = memcmp(kept[j], im, sizeof im) == 0;
        }
        apply(c, list[i].to, list[i].over, list[i].from);
        if (!dup) {
            memcpy(kept[k], me, sizeof me);
            list[k++] = list[i];
        }
    }
    return k;
}

/* ------------------------------------------------------------- perimeter ---- */

/* The positions within a few moves of the goal, each with its exact distance, from a
 * breadth-first search that starts at the goal.  A move is undone by the reverse jump
 * (which turns the same piece back), so the moves form an undirected graph: the positions
 * the goal reaches in d moves are those that reach the goal in d moves.  Layers 0..radius
 * are complete, so a position not in the table is more than radius moves away: near the
 * end, where the estimate says 1 or 3 moves but the last move must bring a piece from
 * outside over the last black piece into the last hole, the table gives the exact answer
 * (7x7: 1.6 M positions within 4 moves, in 100 MB, built in about a second).  The dfs and
 * the finder stop at the perimeter instead of searching the last moves. */
enum { PERIM_LOAD_NUM = 1, PERIM_LOAD_DEN = 2 }; /* the table doubles past half full */
#define PERIM_CAP_DEFAULT ((size_t)3 << 20)
#define PERIM_FREE_NODES  4096.0 /* what the first layers may cost in any case */

/* 1 (and c->aborted) when the node or time budget is spent; calls the progress callback. */
static int budget_spent(ctx_t *c, int phase, int bound) {
    double el = gk_now_s() - c->t0;
    uint64_t nodes = c->nodes;
    team_t *tm = c->team;
    double done = -1;
    if (tm) {
        nodes = atomic_fetch_add(&tm->nodes, 0x4000) + 0x4000; /* called every 16k */
        done = tm->items ? (double)atomic_load(&tm->items_done) / (double)tm->items : 1;
    }
    if (c->lim->progress && (!tm || c->reporter))
        c->lim->progress(c->lim->progress_arg, phase, bound, nodes, el, done);
    if ((c->max_nodes && c->nodes > c->max_nodes) || (c->max_seconds > 0 && el > c->max_seconds))
        c->aborted = 1;
    if (tm && ((tm->node_cap && nodes > tm->node_cap) || atomic_load(&tm->stop))) c->aborted = 1;
    if (tm && c->aborted) atomic_store(&tm->stop, 1);
    return c->aborted;
}

static size_t perim_home(size_t mask, uint64_t lo, uint64_t wlo, uint64_t hi) {
    return (size_t)gk_mix64(lo ^ gk_mix64(wlo ^ gk_mix64(hi))) & mask;
}

/* The distance to the goal of the position (occ, white), or -1 when not in the table. */
static int perim_find(const perim_t *pm, const uint64_t occ[2], const uint64_t white[2]) {
    if (!pm->slot) return -1;
    uint64_t hi = occ[1] | white[1] << 17;
    for (size_t i = perim_home(pm->mask, occ[0], white[0], hi);; i = (i + 1) & pm->mask) {
        const tt_entry_t *e = &pm->slot[i];
        if ((e->hi >> 34) == 0) return -1;
        if (e->occ_lo == occ[0] && e->white_lo == white[0] && (e->hi & 0x3ffffffffULL) == hi)
            return (int)(e->hi >> 34) - 1;
    }
}

static void perim_place(tt_entry_t *slot, size_t mask, const tt_entry_t *e) {
    size_t i = perim_home(mask, e->occ_lo, e->white_lo, e->hi & 0x3ffffffffULL);
    while (slot[i].hi >> 34) i = (i + 1) & mask;
    slot[i] = *e;
}

/* Adds the position at distance d: 1 added, 0 already in, -1 the table is full (its cap,
 * or no memory to grow). */
static int perim_add(perim_t *pm, const uint64_t occ[2], const uint64_t white[2], int d) {
    if (perim_find(pm, occ, white) >= 0) return 0;
    if (pm->used >= pm->cap) return -1;
    if ((pm->used + 1) * PERIM_LOAD_DEN > (pm->mask + 1) * PERIM_LOAD_NUM) {
        size_t slots = (pm->mask + 1) * 2;
        tt_entry_t *ns = calloc(slots, sizeof *ns);
        if (!ns) return -1;
        for (size_t i = 0; i <= pm->mask; i++)
            if (pm->slot[i].hi >> 34) perim_place(ns, slots - 1, &pm->slot[i]);
        free(pm->slot);
        pm->slot = ns, pm->mask = slots - 1;
    }
    tt_entry_t e = {occ[0], white[0], occ[1] | white[1] << 17 | (uint64_t)(d + 1) << 34};
    perim_place(pm->slot, pm->mask, &e);
    pm->used++;
    return 1;
}

static void perim_decode(const ctx_t *c, const tt_entry_t *e, uint8_t cell[GS_SQUARES]) {
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        int o = sq < 64 ? (int)(e->occ_lo >> sq & 1) : (int)(e->hi >> (sq - 64) & 1);
        int w = sq < 64 ? (int)(e->white_lo >> sq & 1) : (int)(e->hi >> (sq - 64 + 17) & 1);
        cell[sq] = c->fixed[sq] ? GS_FIXED : !o ? GS_EMPTY : w ? GS_WHITE : GS_BLACK;
    }
}

/* Adds the positions one move from the layer d - 1 entries of layer (count n): the
 * number added, or -1 when the table filled up (the layer is then incomplete). */
static long perim_layer(ctx_t *c, int d, size_t n) {
    perim_t *pm = &c->perim;
    tt_entry_t *layer = malloc((n ? n : 1) * sizeof *layer);
    if (!layer) return -1;
    size_t k = 0;
    for (size_t i = 0; i <= pm->mask && k < n; i++)
        if ((int)(pm->slot[i].hi >> 34) - 1 == d) layer[k++] = pm->slot[i];
    long added = 0;
    for (size_t i = 0; i < k && added >= 0; i++) {
        if ((i & 255) == 0 && budget_spent(c, GS_PHASE_PERIMETER, d + 1)) {
            added = -1;
            break;
        }
        uint8_t cell[GS_SQUARES];
        perim_decode(c, &layer[i], cell);
        uint64_t occ[2] = {layer[i].occ_lo, layer[i].hi & 0x1ffff};
        uint64_t white[2] = {layer[i].white_lo, layer[i].hi >> 17 & 0x1ffff};
        for (int from = 0; from < GS_SQUARES && added >= 0; from++) {
            if (!movable(cell[from])) continue;
            for (int dir = 0; dir < 8; dir++) {
                int over = c->nbr[from][dir];
                if (over < 0 || !movable(cell[over])) continue;
                int to = c->nbr[over][dir];
                if (to < 0 || cell[to] != GS_EMPTY) continue;
                uint64_t o[2] = {occ[0], occ[1]}, w[2] = {white[0], white[1]};
                bit_flip(o, from), bit_flip(o, to), bit_flip(w, over);
                if (cell[from] == GS_WHITE) bit_flip(w, from), bit_flip(w, to);
                c->nodes++;
                int r = perim_add(pm, o, w, d + 1);
                if (r < 0) {
                    added = -1;
                    break;
                }
                added += r;
            }
        }
    }
    free(layer);
    return added;
}

/* Grows the breadth-first search from the goal by whole layers while the next one is
 * likely to fit in the table's cap and to cost (in nodes, predicted from the growth of
 * the last layer) at most half of what the search has spent so far: the perimeter takes
 * a bounded share of any run (2x2's whole space, 0.7 M positions, would cost 14 times
 * its 0.1 M-node solution).  A layer that fills the table or the budget stays in it
 * incomplete (its distances are still exact) and growth stops.  Without memory the table
 * stays smaller or absent: it speeds the search, never decides it. */
static void perim_grow(ctx_t *c) {
    perim_t *pm = &c->perim;
    if (c->perim_cap == 0 || pm->whole || pm->full) return;
    if (!pm->slot) {
        pm->slot = calloc(1024, sizeof *pm->slot);
        if (!pm->slot) return;
        pm->mask = 1023, pm->cap = c->perim_cap;
        uint64_t occ[2] = {0, 0}, white[2] = {0, 0};
        for (int sq = 0; sq < GS_SQUARES; sq++) {
            if (c->fixed[sq] || c->home[sq]) bit_flip(occ, sq);
            if (c->home[sq]) bit_flip(white, sq);
        }
        perim_add(pm, occ, white, 0);
        pm->radius = 0, pm->last = 1, pm->last_nodes = 16;
    }
    for (;;) {
        double growth = pm->prev ? (double)pm->last / (double)pm->prev : 64;
        double work = (double)(c->nodes - pm->nodes);
        if ((double)pm->last * growth > (double)(pm->cap - pm->used) ||
            (double)(pm->nodes + pm->last_nodes * growth) > work / 2 + PERIM_FREE_NODES)
            break;
        uint64_t n0 = c->nodes;
        long added = perim_layer(c, pm->radius, pm->last);
        pm->nodes += c->nodes - n0;
        if (added < 0) {
            pm->full = 1;
            break;
        }
        if (added == 0) {
            pm->whole = 1;
            break;
        }
        pm->radius++;
        pm->prev = pm->last, pm->last = (size_t)added, pm->last_nodes = c->nodes - n0;
    }
}

/* Appends to c->path from g on the d moves to the goal of the current position, which
 * the table puts at distance d (each step: a move to a position at distance one less,
 * which exists since the layers below are complete); the position is left as it was. */
static void perim_path(ctx_t *c, int g, int d) {
    for (int k = 0; k < d; k++) {
        int found = 0;
        for (int from = 0; from < GS_SQUARES && !found; from++) {
            if (!movable(c->cell[from])) continue;
            for (int dir = 0; dir < 8 && !found; dir++) {
                int over = c->nbr[from][dir];
                if (over < 0 || !movable(c->cell[over])) continue;
                int to = c->nbr[over][dir];
                if (to < 0 || c->cell[to] != GS_EMPTY) continue;
                apply(c, from, over, to);
                if (perim_find(&c->perim, c->occ, c->white) == d - k - 1) {
                    c->path[g + k] = (gs_move_t){(uint8_t)from, (uint8_t)over, (uint8_t)to};
                    found = 1;
                } else {
                    apply(c, to, over, from);
                }
            }
        }
        assert(found);
    }
    for (int k = d - 1; k >= 0; k--)
        apply(c, c->path[g + k].to, c->path[g + k].over, c->path[g + k].from);
}

/* The smallest length at least lower with the parity of a solution from a position with
 * nblack black pieces. */
static int with_parity(int lower, int nblack) {
    return lower + ((lower - nblack) & 1);
}

/* What the table says of the current position at depth g with budget moves left: 0 when
 * it cannot tell (search on), 1 when it settles the position: a solution (*found, in
 * c->path, length c->sol_len) or a cut (c->next_bound lowered to what would pass it). */
static int perim_cut(ctx_t *c, int g, int budget, int *found) {
    const perim_t *pm = &c->perim;
    if (pm->radius < 0 || (g == 0 && c->first >= 0)) return 0;
    int h = heur(c->nb, c->sd);
    if (!pm->whole && h > pm->radius + 1) return 0; /* a position at distance d has h <= d */
    int d = perim_find(pm, c->occ, c->white);
    if (d >= 0) {
        if (d <= budget) {
            perim_path(c, g, d);
            c->sol_len = g + d;
            *found = 1;
        } else if (g + d < c->next_bound) {
            c->next_bound = g + d;
        }
        return 1;
    }
    if (pm->whole) return 1; /* the goal does not reach it: unsolvable, at any bound */
    if (h > pm->radius) return 0;
    int lower = with_parity(pm->radius + 1, c->nblack);
    if (lower <= budget) return 0;
    if (g + lower < c->next_bound) c->next_bound = g + lower;
    return 1;
}

/* The moves from the position at depth g that may finish within bound (c->next_bound
 * lowered to what would pass the others) into list, smallest estimate first, and near the
 * root one of each set that a symmetry maps onto each other; returns their number. */
static int children(ctx_t *c, int g, int bound, cand_t *list) {
    int n = 0;
    for (int from = 0; from < GS_SQUARES; from++) {
        if (!movable(c->cell[from])) continue;
        if (g == 0 && c->first >= 0 && from != c->first) continue;
        for (int d = 0; d < 8; d++) {
            int over = c->nbr[from][d];
            if (over < 0 || !movable(c->cell[over])) continue;
            int to = c->nbr[over][d];
            if (to < 0 || c->cell[to] != GS_EMPTY) continue;
            int nb[4], sd[4];
            memcpy(nb, c->nb, sizeof nb);
            memcpy(sd, c->sd, sizeof sd);
            nb[cls(over)] += c->cell[over] == GS_BLACK ? -1 : 1;
            sd[cls(from)] += c->dist[to] - c->dist[from];
            int h = heur(nb, sd);
            int sd_all = c->sumdist + c->dist[to] - c->dist[from];
            if (g + 1 + h > bound) {
                if (g + 1 + h < c->next_bound) c->next_bound = g + 1 + h;
                continue;
            }
            /* Insertion by h keeps generation order among equals: deterministic. */
            int i = n++;
            int key = 64 * h + sd_all;
            while (i > 0 && list[i - 1].key > key) list[i] = list[i - 1], i--;
            list[i] = (cand_t){(uint8_t)from, (uint8_t)over, (uint8_t)to, (uint16_t)key};
        }
    }
    if (g < 3 && c->nsym) n = dedupe_symmetric(c, list, n);
    return n;
}

static int dfs(ctx_t *c, int g, int bound) {
    if (c->nblack == 0 && c->sumdist == 0) {
        c->sol_len = g;
        return 1;
    }
    int budget = bound - g;
    int hit = 0;
    if (perim_cut(c, g, budget, &hit)) return hit;
    if (g > 0) {
        int known = tt_probe_shared(c);
        if (known >= budget) {
            if (g + known + 2 < c->next_bound) c->next_bound = g + known + 2;
            return 0;
        }
    }
    cand_t list[8 * GS_SQUARES];
    int n = children(c, g, bound, list);
    for (int i = 0; i < n; i++) {
        if ((++c->nodes & 0x3fff) == 0) budget_spent(c, GS_PHASE_PROOF, c->bound);
        if (c->max_nodes && c->nodes > c->max_nodes) c->aborted = 1;
        if (c->aborted) return 0;
        cand_t m = list[i];
        apply(c, m.from, m.over, m.to);
        c->path[g] = (gs_move_t){m.from, m.over, m.to};
        int found = dfs(c, g + 1, bound);
        apply(c, m.to, m.over, m.from); /* the reverse jump flips the same piece back */
        if (found) return 1;
        if (c->aborted) return 0;
    }
    if (g > 0) tt_store_shared(c, budget);
    return 0;
}

static void ctx_setup(ctx_t *c, const gs_problem_t *p) {
    gs_state_t s;
    gs_start(p, &s);
    memcpy(c->cell, s.cell, sizeof c->cell);
    c->first = s.first;
    c->occ[0] = c->occ[1] = c->white[0] = c->white[1] = 0;
    c->nblack = c->sumdist = 0;
    memset(c->nb, 0, sizeof c->nb);
    memset(c->sd, 0, sizeof c->sd);
    c->perim.radius = -1;
    gs_neighbours(c->nbr);
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        int f = sq % 9, r = sq / 9;
        c->fixed[sq] = p->fixed[sq];
        c->home[sq] = (uint8_t)(gs_in_square(p, sq) && !p->fixed[sq]);
        /* A jump moves a piece two files and/or two ranks: its file and rank parities
         * never change, and it covers Chebyshev distance 2 per move. */
        int best = 99;
        for (int t = 0; t < GS_SQUARES; t++) {
            int tf = t % 9, tr = t / 9;
            if (!gs_in_square(p, t) || p->fixed[t] || (tf - f) % 2 || (tr - r) % 2) continue;
            int df = abs(tf - f) / 2, dr = abs(tr - r) / 2;
            int dd = df > dr ? df : dr;
            if (dd < best) best = dd;
        }
        c->dist[sq] = (uint8_t)(best == 99 ? 0 : best);
        if (s.cell[sq] != GS_EMPTY) bit_flip(c->occ, sq);
        if (s.cell[sq] == GS_WHITE) bit_flip(c->white, sq);
        if (s.cell[sq] == GS_BLACK) c->nblack++, c->nb[cls(sq)]++;
        if (movable(s.cell[sq])) c->sumdist += c->dist[sq], c->sd[cls(sq)] += c->dist[sq];
    }
    /* The symmetries of the board that keep the square, the fixed pieces and the
     * pre-flipped square in place (all 8 for odd N without options; for even N the
     * off-centre square leaves only the diagonal a1-i9). */
    c->nsym = 0;
    for (int t = 1; t < 8; t++) c->nsym += gs_symmetry(p, t, 1, c->sym[c->nsym]);
}

static void state_counts(const ctx_t *c, const uint8_t *cell, int nb[4], int sd[4], int *sum) {
    memset(nb, 0, 4 * sizeof *nb);
    memset(sd, 0, 4 * sizeof *sd);
    *sum = 0;
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        if (cell[sq] == GS_BLACK) nb[cls(sq)]++;
        if (movable(cell[sq])) sd[cls(sq)] += c->dist[sq], *sum += c->dist[sq];
    }
}

/* Makes cell (with first the piece that must move first, or -1) the searched position. */
static void load_position(ctx_t *c, const uint8_t *cell, int first) {
    memcpy(c->cell, cell, sizeof c->cell);
    c->first = first;
    c->occ[0] = c->occ[1] = c->white[0] = c->white[1] = 0;
    c->nblack = 0;
    state_counts(c, cell, c->nb, c->sd, &c->sumdist);
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        if (cell[sq] != GS_EMPTY) bit_flip(c->occ, sq);
        if (cell[sq] == GS_WHITE) bit_flip(c->white, sq);
        if (cell[sq] == GS_BLACK) c->nblack++;
    }
}

/* 1 when the start has a legal move: the perimeter is not built for a start that is
 * stuck (the pre-flipped corner, proven unsolvable with 0 nodes). */
static int start_moves(const ctx_t *c) {
    for (int from = 0; from < GS_SQUARES; from++) {
        if (!movable(c->cell[from]) || (c->first >= 0 && from != c->first)) continue;
        for (int d = 0; d < 8; d++) {
            int over = c->nbr[from][d], to = over < 0 ? -1 : c->nbr[over][d];
            if (to >= 0 && movable(c->cell[over]) && c->cell[to] == GS_EMPTY) return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- finder ---- */

/* A beam search: breadth-first by depth, keeping at each depth the beam_width positions of
 * smallest estimate (ties: fewest jumps home, then the hash, for a deterministic order),
 * and only the positions that can still finish within the length bound under the
 * admissible estimate.  It proves nothing (the beam drops positions); it gives a solution,
 * which replaying checks, and so an upper bound for the proof.  The bound starts at the
 * start's estimate and goes up two at a time (a solution's length has a fixed parity)
 * when the beam dies out. */
enum { COMPLETE_H = 8, COMPLETE_TRIES = 16 };

#ifndef LONELY_WEIGHT
#define LONELY_WEIGHT 1
#endif

typedef struct bchild {
    uint64_t hash;
    uint32_t parent;
    uint32_t score;
    uint8_t from, over, to;
    uint8_t goal; /* no black piece, every piece home */
    uint8_t h;    /* the estimate */
} bchild_t;

typedef struct bstep {
    uint32_t parent;
    uint8_t from, over, to;
} bstep_t;

typedef struct beam {
    int width;
    uint8_t (*cur)[GS_SQUARES], (*next)[GS_SQUARES];
    uint64_t *cur_hash, *next_hash;
    bchild_t *kids;
    size_t kids_cap;
    bstep_t *steps[GS_MAX_LEN + 1];
    uint64_t zob[GS_SQUARES][4];
    /* A child that the perimeter puts within the bound: its parent, move and distance. */
    int hit_d;
    bchild_t hit;
} beam_t;

static int bchild_cmp(const void *a, const void *b) {
    const bchild_t *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return 0;
}

/* A black piece with no movable neighbour: nothing can jump it until a piece comes next to
 * it, so it costs extra moves the admissible estimate does not count.  The finder's order
 * penalises them (the beam otherwise fills with such dead ends and dies out on 7x7). */
static int lonely_black(const ctx_t *c, const uint8_t *cell, int sq) {
    if (cell[sq] != GS_BLACK) return 0;
    for (int d = 0; d < 8; d++)
        if (c->nbr[sq][d] >= 0 && movable(cell[c->nbr[sq][d]])) return 0;
    return 1;
}

/* The change in lonely black pieces made by the move (from, over, to) on cell; only the
 * three squares and the neighbours of from and to can change. */
static int lonely_delta(const ctx_t *c, uint8_t *cell, int from, int over, int to) {
    int sqs[19], n = 0;
    sqs[n++] = from, sqs[n++] = to;
    for (int d = 0; d < 8; d++) {
        if (c->nbr[from][d] >= 0) sqs[n++] = c->nbr[from][d];
        if (c->nbr[to][d] >= 0 && c->nbr[to][d] != over) sqs[n++] = c->nbr[to][d];
    }
    int before = 0, after = 0;
    for (int i = 0; i < n; i++) before += lonely_black(c, cell, sqs[i]);
    uint8_t a = cell[from], b = cell[over];
    cell[to] = a, cell[from] = GS_EMPTY, cell[over] = b == GS_BLACK ? GS_WHITE : GS_BLACK;
    for (int i = 0; i < n; i++) after += lonely_black(c, cell, sqs[i]);
    cell[from] = a, cell[over] = b, cell[to] = GS_EMPTY;
    return after - before;
}

/* The children of the beam's position i at depth g that can finish within bound, appended
 * to b->kids; returns the new count or -1 (out of memory). */
static long beam_expand(const ctx_t *c, beam_t *b, int i, int g, int bound, long nk) {
    uint8_t cell[GS_SQUARES];
    memcpy(cell, b->cur[i], sizeof cell);
    int nb0[4], sd0[4], sum0, lonely0 = 0, nblack0 = 0;
    state_counts(c, cell, nb0, sd0, &sum0);
    uint64_t occ0[2] = {0, 0}, white0[2] = {0, 0};
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        lonely0 += lonely_black(c, cell, sq);
        nblack0 += cell[sq] == GS_BLACK;
        if (cell[sq] != GS_EMPTY) bit_flip(occ0, sq);
        if (cell[sq] == GS_WHITE) bit_flip(white0, sq);
    }
    const perim_t *pm = &c->perim;
    for (int from = 0; from < GS_SQUARES; from++) {
        if (!movable(cell[from])) continue;
        if (g == 0 && c->first >= 0 && from != c->first) continue;
        for (int d = 0; d < 8; d++) {
            int over = c->nbr[from][d];
            if (over < 0 || !movable(cell[over])) continue;
            int to = c->nbr[over][d];
            if (to < 0 || cell[to] != GS_EMPTY) continue;
            int nb[4], sd[4];
            memcpy(nb, nb0, sizeof nb);
            memcpy(sd, sd0, sizeof sd);
            nb[cls(over)] += cell[over] == GS_BLACK ? -1 : 1;
            sd[cls(from)] += c->dist[to] - c->dist[from];
            int h = heur(nb, sd);
            if (g + 1 + h > bound) continue;
            if (pm->radius >= 0 && (pm->whole || h <= pm->radius + 1)) {
                uint64_t o[2] = {occ0[0], occ0[1]}, w[2] = {white0[0], white0[1]};
                bit_flip(o, from), bit_flip(o, to), bit_flip(w, over);
                if (cell[from] == GS_WHITE) bit_flip(w, from), bit_flip(w, to);
                int dd = perim_find(pm, o, w);
                if (dd >= 0 && g + 1 + dd <= bound) {
                    b->hit_d = dd;
                    b->hit = (bchild_t){0,           (uint32_t)i, 0, (uint8_t)from, (uint8_t)over,
                                        (uint8_t)to, 0,           0};
                    return nk;
                }
                if (dd >= 0 || pm->whole) continue;
                int nblack = nblack0 + (cell[over] == GS_BLACK ? -1 : 1);
                if (h <= pm->radius) h = with_parity(pm->radius + 1, nblack);
                if (g + 1 + h > bound) continue;
            }
            if ((size_t)nk == b->kids_cap) {
                size_t cap = b->kids_cap ? 2 * b->kids_cap : 1 << 16;
                bchild_t *k = realloc(b->kids, cap * sizeof *k);
                if (!k) return -1;
                b->kids = k, b->kids_cap = cap;
            }
            int flipped = cell[over] == GS_BLACK ? GS_WHITE : GS_BLACK;
            uint64_t hs = b->cur_hash[i] ^ b->zob[from][cell[from]] ^ b->zob[to][cell[from]] ^
                          b->zob[over][cell[over]] ^ b->zob[over][flipped];
            int sum = sum0 + c->dist[to] - c->dist[from];
            int lonely = lonely0 + lonely_delta(c, cell, from, over, to);
            uint32_t score = (uint32_t)((h + LONELY_WEIGHT * lonely) * 1024 + sum);
            b->kids[nk++] =
                (bchild_t){hs,          (uint32_t)i, score,     (uint8_t)from, (uint8_t)over,
                           (uint8_t)to, h == 0,      (uint8_t)h};
        }
    }
    return nk;
}

static void beam_free(beam_t *b) {
    free(b->cur), free(b->next), free(b->cur_hash), free(b->next_hash), free(b->kids);
    for (int g = 0; g <= GS_MAX_LEN; g++) free(b->steps[g]);
}

/* The end of a solution from the beam's position j at depth g (b->cur) by IDA* within bound: the
 * beam keeps positions one move from the end that cannot finish (the last move must bring
 * a piece from outside over the last black piece into the last hole), so near the end an
 * exact search is cheap and finds what the beam's order misses.  1 and the whole solution
 * in res when found. */
/* The g moves that lead to the beam's position j at depth g, into res->moves. */
static void beam_path(const beam_t *b, int g, int j, gs_result_t *res) {
    for (int d = g; d > 0; j = (int)b->steps[d][j].parent, d--)
        res->moves[d - 1] =
            (gs_move_t){b->steps[d][j].from, b->steps[d][j].over, b->steps[d][j].to};
}

static int beam_complete(ctx_t *c, beam_t *b, int g, int j, int bound, gs_result_t *res) {
    load_position(c, b->cur[j], -1);
    for (int bd = g + heur(c->nb, c->sd); bd <= bound && !c->aborted; bd += 2) {
        c->next_bound = INT_MAX;
        if (dfs(c, g, bd)) {
            memcpy(res->moves + g, c->path + g, (size_t)(c->sol_len - g) * sizeof c->path[0]);
            beam_path(b, g, j, res);
            res->len = c->sol_len;
            return 1;
        }
        if (c->next_bound == INT_MAX) break;
    }
    return 0;
}

/* One beam run with a length bound: 1 and the solution in res when found, 0 when the
 * beam died out or the budget ran out (c->aborted), -1 out of memory. */
static int beam_run(ctx_t *c, beam_t *b, int bound, gs_result_t *res) {
    int n = 1;
    memcpy(b->cur[0], c->cell, GS_SQUARES);
    b->cur_hash[0] = 0;
    for (int sq = 0; sq < GS_SQUARES; sq++) b->cur_hash[0] ^= b->zob[sq][c->cell[sq]];
    for (int g = 0; g < bound && n > 0; g++) {
        long nk = 0;
        b->hit_d = -1;
        for (int i = 0; i < n && nk >= 0 && b->hit_d < 0; i++)
            nk = beam_expand(c, b, i, g, bound, nk);
        if (nk < 0) return -1;
        c->nodes += (uint64_t)nk;
        if (b->hit_d >= 0) { /* the perimeter knows the rest */
            const bchild_t *h = &b->hit;
            uint8_t cell[GS_SQUARES];
            memcpy(cell, b->cur[h->parent], GS_SQUARES);
            cell[h->to] = cell[h->from], cell[h->from] = GS_EMPTY;
            cell[h->over] = cell[h->over] == GS_BLACK ? GS_WHITE : GS_BLACK;
            load_position(c, cell, -1);
            perim_path(c, g + 1, b->hit_d);
            beam_path(b, g, (int)h->parent, res);
            res->moves[g] = (gs_move_t){h->from, h->over, h->to};
            memcpy(res->moves + g + 1, c->path + g + 1, (size_t)b->hit_d * sizeof c->path[0]);
            res->len = g + 1 + b->hit_d;
            return 1;
        }
        double el = gk_now_s() - c->t0;
        if (c->lim->progress)
            c->lim->progress(c->lim->progress_arg, GS_PHASE_FINDER, bound, c->nodes, el, -1.0);
        if ((c->max_nodes && c->nodes > c->max_nodes) ||
            (c->max_seconds > 0 && el > c->max_seconds)) {
            c->aborted = 1;
            return 0;
        }
        if (nk > 1) /* kids is NULL until a first child: qsort must not see it */
            qsort(b->kids, (size_t)nk, sizeof *b->kids, bchild_cmp);
        if (!b->steps[g + 1] && !(b->steps[g + 1] = malloc((size_t)b->width * sizeof(bstep_t))))
            return -1;
        int m = 0;
        for (long k = 0; k < nk && m < b->width; k++) {
            if (k > 0 && b->kids[k].hash == b->kids[k - 1].hash) continue;
            const bchild_t *ch = &b->kids[k];
            uint8_t *cell = b->next[m];
            memcpy(cell, b->cur[ch->parent], GS_SQUARES);
            cell[ch->to] = cell[ch->from];
            cell[ch->from] = GS_EMPTY;
            cell[ch->over] = cell[ch->over] == GS_BLACK ? GS_WHITE : GS_BLACK;
            b->next_hash[m] = ch->hash;
            b->steps[g + 1][m] = (bstep_t){ch->parent, ch->from, ch->over, ch->to};
            if (ch->goal) {
                beam_path(b, g + 1, m, res);
                res->len = g + 1;
                return 1;
            }
            m++;
        }
        uint8_t(*t)[GS_SQUARES] = b->cur;
        b->cur = b->next, b->next = t;
        uint64_t *th = b->cur_hash;
        b->cur_hash = b->next_hash, b->next_hash = th;
        n = m;
        for (int j = 0; j < n && j < COMPLETE_TRIES && b->kids[0].h < COMPLETE_H; j++)
            if (beam_complete(c, b, g + 1, j, bound, res)) return 1;
        if (c->aborted) return 0;
    }
    return 0;
}

/* Runs the finder up to its budget; res->found_* tell what it found (res->moves too). */
static int beam_find(ctx_t *c, int width, gs_result_t *res) {
    beam_t *b = calloc(1, sizeof *b);
    if (!b) return GS_ERR_NOMEM;
    b->width = width;
    b->cur = malloc((size_t)width * GS_SQUARES);
    b->next = malloc((size_t)width * GS_SQUARES);
    b->cur_hash = malloc((size_t)width * sizeof(uint64_t));
    b->next_hash = malloc((size_t)width * sizeof(uint64_t));
    int rc = 0;
    if (!b->cur || !b->next || !b->cur_hash || !b->next_hash) rc = GS_ERR_NOMEM;
    uint64_t z = 0x9e3779b97f4a7c15ULL;
    for (int sq = 0; sq < GS_SQUARES; sq++)
        for (int v = 0; v < 4; v++) b->zob[sq][v] = v == GS_EMPTY ? 0 : gk_mix64(z += 0x9e37ULL);
    uint8_t start[GS_SQUARES];
    int first = c->first;
    memcpy(start, c->cell, sizeof start);
    int best = 0;
    for (int bound = heur(c->nb, c->sd); !rc && bound <= GS_MAX_LEN && !(best && bound >= best);
         bound += 2) {
        load_position(c, start, first); /* a completion left another position there */
        int r = beam_run(c, b, bound, res);
        if (r < 0) rc = GS_ERR_NOMEM;
        if (r > 0) best = res->len; /* at most bound, so shorter than any found before */
        if (r != 0 || c->aborted) break;
        /* The beam died out: the end is the hard part (4x4-6x6 never get here). */
        if (start_moves(c)) perim_grow(c);
        if (c->aborted) break;
    }
    res->found_len = best;
    if (best) res->len = best;
    beam_free(b);
    free(b);
    return rc;
}

/* The finder's budget: its share of the caller's limits, or finder_nodes when none. */
static void finder_budget(ctx_t *c, const gs_limits_t *lim) {
    double share = lim->finder_share > 0 && lim->finder_share <= 1 ? lim->finder_share : 0.5;
    c->max_nodes = lim->max_nodes      ? (uint64_t)((double)lim->max_nodes * share)
                   : lim->finder_nodes ? lim->finder_nodes
                                       : 20000000;
    c->max_seconds = lim->max_seconds * share;
}

/* ------------------------------------------------------- parallel proof ---- */

/* The frontier: the positions FRONTIER_DEPTH moves deep at most, as the serial search
 * meets them (ones settled sooner, by the goal or the perimeter, are items too). */
enum { FRONTIER_DEPTH = 12, FRONTIER_PER_THREAD = 64 };

typedef struct item {
    uint64_t pos[4]; /* occupancy and white sets: the same position by another order */
    uint32_t index;  /* in walk order */
    gs_move_t moves[FRONTIER_DEPTH];
    uint8_t len;
} item_t;

typedef struct frontier {
    item_t *it;
    size_t n, cap;
    int depth;  /* of this walk */
    int deeper; /* some item is at that depth: a deeper walk would give more */
    int nomem;
} frontier_t;

typedef struct worker {
    ctx_t c;       /* its table (shared when threads > 1); the rest copied from the master */
    uint64_t item; /* the item of its solution, UINT64_MAX: none */
    int len;
    gs_move_t sol[GS_MAX_LEN];
} worker_t;

typedef struct par {
    const gs_limits_t *lim;
    int threads, part, parts;
    worker_t *w;
    tt_entry_t *tt;     /* the threads' shared table (threads > 1), else each has its own */
    atomic_flag *locks; /* its locks */
    frontier_t f;
    gs_state_t start;
    team_t team;
    gs_share_t share;
} par_t;

static void frontier_push(const ctx_t *c, frontier_t *f, int g) {
    if (f->nomem) return;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 1024;
        item_t *it = realloc(f->it, cap * sizeof *it);
        if (!it) {
            f->nomem = 1;
            return;
        }
        f->it = it, f->cap = cap;
    }
    item_t *it = &f->it[f->n];
    it->pos[0] = c->occ[0], it->pos[1] = c->occ[1], it->pos[2] = c->white[0];
    it->pos[3] = c->white[1];
    it->index = (uint32_t)f->n++;
    it->len = (uint8_t)g;
    memcpy(it->moves, c->path, (size_t)g * sizeof *c->path);
}

/* The serial dfs without the table, stopping at the frontier's depth. */
static void frontier_walk(ctx_t *c, frontier_t *f, int g, int bound) {
    int hit = 0;
    if ((c->nblack == 0 && c->sumdist == 0) || perim_cut(c, g, bound - g, &hit) || g == f->depth) {
        f->deeper |= g == f->depth;
        frontier_push(c, f, g);
        return;
    }
    cand_t list[8 * GS_SQUARES];
    int n = children(c, g, bound, list);
    for (int i = 0; i < n && !f->nomem; i++) {
        cand_t m = list[i];
        c->nodes++;
        apply(c, m.from, m.over, m.to);
        c->path[g] = (gs_move_t){m.from, m.over, m.to};
        frontier_walk(c, f, g + 1, bound);
        apply(c, m.to, m.over, m.from);
    }
}

static int item_by_pos(const void *a, const void *b) {
    const item_t *x = a, *y = b;
    int k = memcmp(x->pos, y->pos, sizeof x->pos);
    if (k) return k;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int item_by_index(const void *a, const void *b) {
    const item_t *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Keeps the first of the items that reach the same position at the same depth: the
 * serial search meets the others with the table saying they fail (or after the first
 * one's solution), and parts with tables of their own would search each again.  (Most
 * transpositions lie deeper: 4x4 --fixed d4,e5 went from 311 to 263 items, its nodes on
 * 2 ranks from 215 M to 214.6 M, against 135 M serial.) */
static void frontier_dedupe(frontier_t *f) {
    if (f->n < 2) return;
    qsort(f->it, f->n, sizeof *f->it, item_by_pos);
    size_t k = 1;
    for (size_t i = 1; i < f->n; i++)
        if (memcmp(f->it[i].pos, f->it[k - 1].pos, sizeof f->it[i].pos) ||
            f->it[i].len != f->it[k - 1].len)
            f->it[k++] = f->it[i];
    f->n = k;
    qsort(f->it, f->n, sizeof *f->it, item_by_index);
}

/* The shallowest frontier with at least target items (or the deepest there is); its
 * walk leaves c->next_bound lowered past what it cut. */
static int frontier_build(ctx_t *c, frontier_t *f, int bound, size_t target) {
    for (int d = 1;; d++) {
        f->n = 0, f->depth = d, f->deeper = 0;
        c->next_bound = INT_MAX;
        frontier_walk(c, f, 0, bound);
        if (f->nomem) return GS_ERR_NOMEM;
        frontier_dedupe(f);
        if (f->n >= target || !f->deeper || d == FRONTIER_DEPTH) return 0;
    }
}

/* A worker takes the master's state for the iteration and keeps its table. */
static void worker_sync(ctx_t *w, const ctx_t *m) {
    tt_entry_t *tt = w->tt;
    size_t mask = w->tt_mask, used = w->tt_used, limit = w->tt_limit;
    int nomem = w->tt_nomem;
    atomic_flag *locks = w->locks;
    *w = *m;
    w->tt = tt, w->tt_mask = mask, w->tt_used = used, w->tt_limit = limit, w->tt_nomem = nomem;
    w->locks = locks;
    w->nodes = 0, w->max_nodes = 0, w->next_bound = INT_MAX, w->aborted = 0;
}

/* Searches this part's items of the frontier (item i: part i % parts) on its threads. */
static void team_search(par_t *p, const ctx_t *c, int bound) {
    team_t *tm = &p->team;
    long mine = (long)tm->items;
#pragma omp parallel num_threads(p->threads)
    {
        worker_t *w = &p->w[omp_get_thread_num()];
        worker_sync(&w->c, c);
        w->c.team = tm;
        w->c.reporter = omp_get_thread_num() == 0;
        w->item = UINT64_MAX;
#pragma omp for schedule(dynamic, 1)
        for (long k = 0; k < mine; k++) {
            uint64_t i = (uint64_t)p->part + (uint64_t)k * (uint64_t)p->parts;
            if (w->c.aborted || i > atomic_load(&tm->best)) continue;
            const item_t *it = &p->f.it[i];
            load_position(&w->c, p->start.cell, p->start.first);
            for (int j = 0; j < it->len; j++) {
                apply(&w->c, it->moves[j].from, it->moves[j].over, it->moves[j].to);
                w->c.path[j] = it->moves[j];
            }
            int found = dfs(&w->c, it->len, bound);
            atomic_fetch_add(&tm->items_done, 1);
            if (!found || i >= w->item) continue;
            w->item = i, w->len = w->c.sol_len;
            memcpy(w->sol, w->c.path, (size_t)w->len * sizeof w->sol[0]);
            uint64_t b = atomic_load(&tm->best);
            while (i < b && !atomic_compare_exchange_weak(&tm->best, &b, i)) {
            }
        }
    }
}

/* One IDA* iteration split among the threads and parts; *found as dfs(c, 0, bound)
 * would return it, c left as it would leave it (nodes counted once per part for the
 * frontier walk, which every part repeats, plus every part's search); 0 or an error. */
static int par_iteration(ctx_t *c, par_t *p, int bound, int *found) {
    int err = frontier_build(c, &p->f, bound,
                             (size_t)FRONTIER_PER_THREAD * (size_t)p->threads * (size_t)p->parts);
    if (err) return err;
    team_t *tm = &p->team;
    atomic_store(&tm->nodes, c->nodes);
    atomic_store(&tm->best, UINT64_MAX);
    atomic_store(&tm->stop, 0);
    atomic_store(&tm->items_done, 0);
    tm->items = p->f.n > (size_t)p->part
                    ? (p->f.n - (size_t)p->part + (size_t)p->parts - 1) / (size_t)p->parts
                    : 0;
    tm->node_cap = 0;
    if (c->max_nodes)
        tm->node_cap = c->max_nodes > c->nodes
                           ? c->nodes + (c->max_nodes - c->nodes) / (uint64_t)p->parts
                           : c->nodes;
    team_search(p, c, bound);
    gs_share_t *sh = &p->share;
    sh->nodes = 0, sh->key = UINT64_MAX, sh->next_bound = c->next_bound, sh->aborted = 0;
    sh->len = 0;
    for (int t = 0; t < p->threads; t++) {
        const worker_t *w = &p->w[t];
        sh->nodes += w->c.nodes;
        if (w->c.next_bound < sh->next_bound) sh->next_bound = w->c.next_bound;
        sh->aborted |= w->c.aborted;
        if (w->item < sh->key) {
            sh->key = w->item, sh->len = w->len;
            memcpy(sh->moves, w->sol, (size_t)w->len * sizeof sh->moves[0]);
        }
    }
    if (p->parts > 1 && p->lim->share(p->lim->share_arg, sh)) return GS_ERR_SHARE;
    c->nodes += sh->nodes;
    c->next_bound = sh->next_bound;
    /* Any solution found is shortest (every shorter bound was exhausted), whatever
     * was cut short elsewhere. */
    *found = sh->key != UINT64_MAX;
    c->aborted = !*found && sh->aborted;
    if (*found) {
        c->sol_len = sh->len;
        memcpy(c->path, sh->moves, (size_t)sh->len * sizeof c->path[0]);
    }
    return 0;
}

static void par_free(par_t *p) {
    if (!p) return;
    for (int t = 0; p->w && !p->tt && t < p->threads; t++) free(p->w[t].c.tt);
    free(p->tt);
    free(p->locks);
    free(p->w);
    free(p->f.it);
    free(p);
}

/* The workers of a parallel proof (NULL and 0 when the limits ask for none). */
static int par_new(const ctx_t *c, const gs_limits_t *lim, par_t **out) {
    *out = NULL;
    int threads = lim->threads > 1 ? lim->threads : 1, parts = lim->parts > 1 ? lim->parts : 1;
    if (threads == 1 && parts == 1) return 0;
    par_t *p = calloc(1, sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    p->lim = lim, p->threads = threads, p->parts = parts, p->part = lim->part;
    p->w = calloc((size_t)threads, sizeof *p->w);
    if (!p->w) {
        par_free(p);
        return GS_ERR_NOMEM;
    }
    /* One thread: a table that grows as the serial one does.  More: one shared table of
     * the full size from the start (growing it would stop every thread). */
    size_t start = threads > 1 ? lim->tt_bytes : TT_START_BYTES, buckets = 1;
    if (start > lim->tt_bytes) start = lim->tt_bytes;
    while (buckets * 2 * TT_WAYS * sizeof(tt_entry_t) <= start) buckets *= 2;
    if (threads > 1) {
        p->tt = calloc(buckets * TT_WAYS, sizeof(tt_entry_t));
        p->locks = malloc(TT_LOCKS * sizeof *p->locks);
        if (!p->tt || !p->locks) {
            par_free(p);
            return GS_ERR_NOMEM;
        }
        for (int i = 0; i < TT_LOCKS; i++) atomic_flag_clear(&p->locks[i]);
    }
    for (int t = 0; t < threads; t++) {
        ctx_t *w = &p->w[t].c;
        w->tt = p->tt ? p->tt : calloc(buckets * TT_WAYS, sizeof(tt_entry_t));
        if (!w->tt) {
            par_free(p);
            return GS_ERR_NOMEM;
        }
        w->tt_mask = buckets - 1,
        w->tt_limit = p->tt ? buckets * TT_WAYS * sizeof(tt_entry_t) : lim->tt_bytes;
        w->locks = p->locks;
    }
    memcpy(p->start.cell, c->cell, sizeof p->start.cell);
    p->start.first = c->first;
    *out = p;
    return 0;
}

/* IDA* from the start's estimate up to the finders' best length res->len (0: no limit);
 * split among threads and parts when the limits ask for it.  0 or an error. */
static int ida(ctx_t *c, const gs_limits_t *lim, gs_result_t *res) {
    int bound = heur(c->nb, c->sd), upper = res->len;
    res->status = upper ? GS_FOUND : GS_BUDGET;
    res->lower_bound = bound;
    int moves = start_moves(c);
    par_t *par;
    int err = par_new(c, lim, &par);
    while (!err) {
        res->lower_bound = bound;
        if (upper && bound >= upper) {
            /* Every shorter bound was exhausted: the found solution is shortest. */
            res->status = GS_SOLVED;
            break;
        }
        if (bound > GS_MAX_LEN) break;
        c->next_bound = INT_MAX;
        c->bound = bound;
        if (lim->progress)
            lim->progress(lim->progress_arg, GS_PHASE_PROOF, bound, c->nodes, gk_now_s() - c->t0,
                          -1.0);
        /* After the line above: a budget spent while the table grows still shows the bound. */
        if (moves) perim_grow(c);
        if (c->aborted) break;
        int found = 0;
        if (par)
            err = par_iteration(c, par, bound, &found);
        else
            found = dfs(c, 0, bound);
        if (err) break;
        if (found) {
            res->status = GS_SOLVED;
            res->len = c->sol_len;
            memcpy(res->moves, c->path, (size_t)c->sol_len * sizeof c->path[0]);
            break;
        }
        if (c->aborted) break;
        if (c->next_bound == INT_MAX) {
            /* Nothing was cut by the bound nor by the table: every reachable position
             * has been seen, and none is a goal. */
            res->status = GS_NONE;
            break;
        }
        bound = c->next_bound;
    }
    if (par) {
        res->frontier_depth = par->f.depth;
        res->frontier_items = par->f.n;
    }
    for (int t = 0; par && t < (par->tt ? 1 : par->threads); t++)
        res->tt_bytes += (par->w[t].c.tt_mask + 1) * TT_WAYS * sizeof(tt_entry_t);
    par_free(par);
    return err;
}

#define MIRROR_NODES 1000000000ULL /* about 10 min */

/* With no solution to beat, the palindrome finder stops at twice the start's bound: it is
 * there for solutions near the bound, and a puzzle with no palindrome (3x3) would
 * otherwise spend its whole budget on every depth up to GS_MAX_LEN. */
static int mirror_len_cap(int lower) {
    int cap = 2 * lower < 16 ? 16 : 2 * lower;
    return cap < GS_MAX_LEN ? cap : GS_MAX_LEN;
}

/* The palindrome finder after the beam finder, for a solution shorter than the beam's.  It
 * gets a finder budget of its own, counted from its start and within the whole budget;
 * MIRROR_NODES when none is given. */
static int mirror(ctx_t *c, const gs_problem_t *p, const gs_limits_t *lim, int lower,
                  gs_result_t *res) {
    uint64_t base = c->nodes;
    double t = gk_now_s();
    finder_budget(c, lim);
    uint64_t cap = lim->max_nodes || lim->finder_nodes ? base + c->max_nodes : base + MIRROR_NODES;
    if (lim->max_nodes && cap > lim->max_nodes) cap = lim->max_nodes;
    double deadline = 0;
    if (lim->max_seconds > 0) {
        deadline = t + c->max_seconds;
        if (deadline > c->t0 + lim->max_seconds) deadline = c->t0 + lim->max_seconds;
    }
    gs_mirror_limits_t ml = {.width = lim->mirror_width,
                             .max_len = res->len ? res->len - 1 : mirror_len_cap(lower),
                             .target = lower,
                             .max_nodes = cap,
                             .deadline = deadline,
                             .progress = lim->progress,
                             .progress_arg = lim->progress_arg,
                             .t0 = c->t0};
    int len = gs_mirror_find(p, &ml, res->moves, &c->nodes, &c->aborted), aborted = c->aborted;
    c->aborted = 0;
    res->mirror_nodes = c->nodes - base;
    res->mirror_seconds = gk_now_s() - t;
    if (len < 0) return len;
    res->mirror_max = ml.max_len;
    res->mirror_aborted = aborted;
    if (len > 0) res->mirror_len = res->len = len;
    return 0;
}

void gs_neighbours(int8_t nbr[GS_SQUARES][8]) {
    for (int sq = 0; sq < GS_SQUARES; sq++)
        for (int d = 0; d < 8; d++) {
            int f = sq % 9 + dfile[d], r = sq / 9 + drank[d];
            nbr[sq][d] = (int8_t)(f >= 0 && f < 9 && r >= 0 && r < 9 ? 9 * r + f : -1);
        }
}

int gs_symmetry(const gs_problem_t *p, int t, int colours, uint8_t map[GS_SQUARES]) {
    for (int sq = 0; sq < GS_SQUARES; sq++) {
        int f = sq % 9, r = sq / 9;
        if (t & 1) {
            int x = f;
            f = r, r = x;
        }
        if (t & 2) f = 8 - f;
        if (t & 4) r = 8 - r;
        map[sq] = (uint8_t)(9 * r + f);
    }
    for (int sq = 0; sq < GS_SQUARES; sq++)
        if (gs_in_square(p, sq) != gs_in_square(p, map[sq]) || p->fixed[sq] != p->fixed[map[sq]] ||
            (colours && p->white[sq] != p->white[map[sq]]))
            return 0;
    return !colours || p->preflip < 0 || map[p->preflip] == p->preflip;
}

/* The parts of a split proof start IDA* from the shortest solution any finder found
 * (they differ only when a time budget cut the finders at different points). */
static int share_found(const gs_limits_t *lim, gs_result_t *res) {
    gs_share_t *sh = calloc(1, sizeof *sh);
    if (!sh) return GS_ERR_NOMEM;
    sh->key = res->len ? (uint64_t)res->len : UINT64_MAX;
    sh->next_bound = INT_MAX;
    sh->len = res->len;
    memcpy(sh->moves, res->moves, (size_t)res->len * sizeof sh->moves[0]);
    int err = lim->share(lim->share_arg, sh) ? GS_ERR_SHARE : 0;
    if (!err && sh->key != UINT64_MAX) {
        res->len = sh->len;
        memcpy(res->moves, sh->moves, (size_t)sh->len * sizeof res->moves[0]);
    }
    free(sh);
    return err;
}

int gs_solve(const gs_problem_t *p, const gs_limits_t *lim, gs_result_t *res) {
    if (lim->parts > 1 && (!lim->share || lim->part < 0 || lim->part >= lim->parts))
        return GS_ERR_SHARE;
    ctx_t *c = calloc(1, sizeof *c);
    if (!c) return GS_ERR_NOMEM;
    size_t buckets = 1;
    size_t start = lim->tt_bytes < TT_START_BYTES ? lim->tt_bytes : TT_START_BYTES;
    while (buckets * 2 * TT_WAYS * sizeof(tt_entry_t) <= start) buckets *= 2;
    c->tt = calloc(buckets * TT_WAYS, sizeof(tt_entry_t));
    if (!c->tt) {
        free(c);
        return GS_ERR_NOMEM;
    }
    c->tt_mask = buckets - 1;
    c->tt_limit = lim->tt_bytes;
    ctx_setup(c, p);
    c->perim_cap = lim->perim_entries < 0    ? 0
                   : lim->perim_entries == 0 ? PERIM_CAP_DEFAULT
                                             : (size_t)lim->perim_entries;
    c->lim = lim;
    c->t0 = gk_now_s();
    memset(res, 0, sizeof *res);

    int err = 0, lower = heur(c->nb, c->sd);
    if (lim->beam_width > 0) {
        finder_budget(c, lim);
        gs_state_t s0;
        gs_start(p, &s0);
        err = beam_find(c, lim->beam_width, res);
        load_position(c, s0.cell, s0.first);
        res->len = res->found_len;
        res->found_nodes = c->nodes;
        res->found_seconds = gk_now_s() - c->t0;
        c->aborted = 0;
    }
    if (!err && lim->mirror_width > 0 && !(res->len && res->len <= lower))
        err = mirror(c, p, lim, lower, res);
    c->max_nodes = lim->max_nodes;
    c->max_seconds = lim->max_seconds;
    if (!err && lim->parts > 1) err = share_found(lim, res);
    if (!err) err = ida(c, lim, res);
    res->nodes = c->nodes;
    res->seconds = gk_now_s() - c->t0;
    res->tt_bytes += (c->tt_mask + 1) * TT_WAYS * sizeof(tt_entry_t);
    res->perim_radius = c->perim.radius;
    res->perim_entries = c->perim.used;
    free(c->perim.slot);
    free(c->tt);
    free(c);
    return err;
}
