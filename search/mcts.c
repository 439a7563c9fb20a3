/*
 * search/mcts.c -- PUCT Monte Carlo tree search with MCTS-Solver, tree or root parallel.
 *
 * Map of this file
 *   1. nodes and the arena (atomic bump allocation, children published last)
 *   2. proofs (MCTS-Solver) and values, fixed point
 *   3. one playout: selection with virtual loss, expansion, evaluation, backup
 *   4. the search driver: limits, threads, early stop, root noise
 *   5. results, tree reuse and compaction, parameters
 *
 * Perspective: a node's statistics and proof are those of its MOVER, the side to move
 * of its parent position.  The root's mover is recorded separately (root_mover): the
 * opponent of the side to move for a fresh tree, the real mover for a reused one (a
 * Gobs root in the middle of a turn was reached by the same player).
 */
#include "mcts.h"

#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"

#include "leaf.h"
#include "params.h"
#include "../common/status.h"

/* ---- 1. nodes and the arena ---- */

typedef struct node {
    _Atomic uint64_t wsum;  /* sum of values for the mover, fixed point (VAL_ONE = 1) */
    _Atomic uint64_t vn;    /* low 32 bits: completed playouts through this node (visits);
                               high 32 bits: playouts in flight (virtual loss).  One word,
                               so a backup updates both with one atomic add. */
    _Atomic uint32_t first; /* arena index of the first child; 0 = not expanded */
    gk_action_t action;     /* the action from the parent */
    uint16_t nchild;        /* children in the block at `first` (set before publishing) */
    uint16_t prior;         /* policy prior * 65535 */
    _Atomic int16_t proof;  /* PROOF_* from the mover's point of view */
    _Atomic uint8_t state;  /* 0 leaf, 1 being expanded, 2 expanded, 3 expanded and
                               searched by minimax in selection (ms_depth) */
    uint8_t pad;
} node_t;

#define VN_INFLIGHT (1ull << 32)
static inline uint32_t vn_visits(uint64_t vn) {
    return (uint32_t)vn;
}
static inline uint32_t vn_inflight(uint64_t vn) {
    return (uint32_t)(vn >> 32);
}
static inline uint32_t node_visits(const node_t *x) {
    return vn_visits(atomic_load_explicit(&x->vn, memory_order_relaxed));
}

_Static_assert(sizeof(node_t) == MCTS_NODE_BYTES, "node size is part of the contract");

#define VAL_SHIFT 20
#define VAL_ONE   (1u << VAL_SHIFT)

/* Proofs: 0 unknown, PROOF_DRAW, or a win / loss with the number of actions d from the
 * node's position to the end of the game encoded as PROOF_BASE - d / -(PROOF_BASE - d). */
#define PROOF_NONE 0
#define PROOF_DRAW 1
#define PROOF_BASE 30000
#define PROOF_MAXD 29000
static inline int16_t proof_win(int d) {
    return (int16_t)(PROOF_BASE - (d > PROOF_MAXD ? PROOF_MAXD : d));
}
static inline int16_t proof_loss(int d) {
    return (int16_t) - (PROOF_BASE - (d > PROOF_MAXD ? PROOF_MAXD : d));
}
static inline int proof_is_win(int pr) {
    return pr > PROOF_DRAW;
}
static inline int proof_is_loss(int pr) {
    return pr < 0;
}
static inline int proof_dist(int pr) {
    return pr > 0 ? PROOF_BASE - pr : PROOF_BASE + pr;
}
static inline int16_t proof_flip(int pr) {
    return (int16_t)(pr == PROOF_DRAW ? pr : -pr);
}
static inline float proof_value(int pr) {
    return proof_is_win(pr) ? 1.0f : proof_is_loss(pr) ? 0.0f : 0.5f;
}

typedef struct arena {
    node_t *nodes; /* index 0 is never used: 0 means "none" */
    /* implicit_minimax > 0: per node (same index) the implicit minimax value for its mover
     * (IM_NONE until the node or a child is evaluated); else NULL.  Beside the nodes rather
     * than in them, so that a node stays MCTS_NODE_BYTES when the option is off. */
    _Atomic float *imv;
    uint32_t cap; /* nodes, index 0 included */
    _Atomic uint32_t next;
    _Atomic int full;
} arena_t;

/* A block of n fresh nodes, or 0 when the arena cannot hold it. */
static uint32_t arena_alloc(arena_t *a, uint32_t n) {
    uint32_t cur = atomic_load_explicit(&a->next, memory_order_relaxed);
    do {
        if ((uint64_t)cur + n > a->cap) {
            atomic_store_explicit(&a->full, 1, memory_order_relaxed);
            return 0;
        }
    } while (!atomic_compare_exchange_weak_explicit(&a->next, &cur, cur + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return cur;
}

static void node_init(node_t *x, gk_action_t a, uint16_t prior, int16_t proof) {
    atomic_init(&x->wsum, 0);
    atomic_init(&x->vn, 0);
    atomic_init(&x->first, 0);
    x->action = a;
    x->nchild = 0;
    x->prior = prior;
    atomic_init(&x->proof, proof);
    atomic_init(&x->state, 0);
    x->pad = 0;
}

#define IM_NONE (-1.0f)

static void im_set(arena_t *a, uint32_t i, float v) {
    if (a->imv) atomic_store_explicit(&a->imv[i], v, memory_order_relaxed);
}

static void arena_reset(arena_t *a) {
    atomic_store(&a->next, 2); /* 1 = the root */
    atomic_store(&a->full, 0);
}

/* ---- the search object ---- */

#define MAX_DEPTH 512

typedef struct {
    uint64_t hash;
    int count;
} hcount_t;

struct mcts {
    mcts_params_t prm;
    ev_weights_t w;
    arena_t main;      /* the whole arena: the shared tree, or carved up in root mode */
    gk_pos_t root_pos; /* position of node 1 when have_tree */
    int have_tree;
    uint32_t root;  /* node index of root_pos (1 after compaction) */
    int root_mover; /* mover of the root node (see the file comment) */
    hcount_t *hist; /* sorted repetition history of the current search */
    int nhist;
    const gk_action_t *excl; /* root actions the search may not play (mcts_search_excluding) */
    int nexcl;
    mcts_monitor_t mon; /* mon.stop and mon.info NULL: not watched */
};

typedef struct worker {
    _Alignas(64) const mcts_t *m; /* cache-line aligned: workers write their own fields */
    arena_t *ar;
    const gk_pos_t *root;
    uint32_t root_idx;
    int root_mover;
    uint64_t rng;
    uint64_t playouts;
    int depth_max;
    uint32_t path[MAX_DEPTH + 1];
    uint8_t stm[MAX_DEPTH + 1];
    uint64_t bhash[MAX_DEPTH + 1]; /* hashes of the turn-boundary positions on the path */
    int nb;
    gk_action_t acts[GK_MAX_ACTIONS];
    float logits[GK_MAX_ACTIONS];
    uint8_t outc[GK_MAX_ACTIONS];
    char pad[64];
} worker_t;

static inline double rand01(uint64_t *s) {
    return (double)(gk_splitmix64(s) >> 11) * 0x1p-53;
}

/* ---- 2. proofs ---- */

static int hist_count(const mcts_t *m, uint64_t h) {
    int lo = 0, hi = m->nhist - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (m->hist[mid].hash == h) return m->hist[mid].count;
        if (m->hist[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

/* Recomputes the proof of x (position side to move s, mover mv) from its children and
 * stores it when it changed: a first proof, or a faster win found later among the
 * root's children (proven nodes below the root are not searched further).  Returns the
 * new proof when it changed, else 0. */
static int update_proof(arena_t *ar, node_t *x, int s, int mv) {
    uint32_t first = atomic_load_explicit(&x->first, memory_order_acquire);
    if (!first) return 0;
    int n = x->nchild, best_win = -1, worst_loss = -1, draw = 0, open = 0;
    for (int i = 0; i < n; i++) {
        int pr = atomic_load_explicit(&ar->nodes[first + i].proof, memory_order_relaxed);
        if (proof_is_win(pr)) {
            int d = proof_dist(pr);
            if (best_win < 0 || d < best_win) best_win = d;
        } else if (proof_is_loss(pr)) {
            int d = proof_dist(pr);
            if (d > worst_loss) worst_loss = d;
        } else if (pr == PROOF_DRAW) {
            draw = 1;
        } else {
            open = 1;
        }
    }
    int16_t pr; /* for s */
    if (best_win >= 0)
        pr = proof_win(best_win + 1);
    else if (open)
        return 0;
    else if (draw)
        pr = PROOF_DRAW;
    else
        pr = proof_loss(worst_loss + 1);
    if (mv != s) pr = proof_flip(pr);
    int16_t cur = atomic_load(&x->proof);
    while (cur != pr) {
        if (atomic_compare_exchange_weak(&x->proof, &cur, pr)) return pr;
    }
    return 0;
}

static void set_proof(node_t *x, int16_t pr) {
    int16_t expect = PROOF_NONE;
    atomic_compare_exchange_strong(&x->proof, &expect, pr);
}

/* ---- 3. one playout ---- */

/* Mover of the node at depth i of the worker's current path. */
static inline int mover_at(const worker_t *wk, int i) {
    return i == 0 ? wk->root_mover : wk->stm[i - 1];
}

/* PUCT choice among the children of x (side to move s, mover mv).  With `sweep` (the
 * root is already won) unexpanded children come first: expanding them all is what lets
 * the search prove that no faster win exists. */
static uint32_t select_child(const worker_t *wk, const node_t *x, uint32_t first, int s, int mv,
                             int sweep) {
    const mcts_params_t *pp = &wk->m->prm;
    const node_t *nodes = wk->ar->nodes;
    _Atomic float *imv = wk->ar->imv;
    int n = x->nchild;
    uint32_t nx = node_visits(x);
    uint64_t wx = atomic_load_explicit(&x->wsum, memory_order_relaxed);
    float qx = nx ? (float)((double)wx / VAL_ONE / nx) : 0.5f;
    if (mv != s) qx = 1.0f - qx; /* now for s, the chooser */
    float fpu_q = qx - pp->fpu;
    float sq = sqrtf((float)(nx ? nx : 1));
    float vl = (float)pp->virtual_loss;
    int best = 0;
    float best_score = -INFINITY;
    for (int i = 0; i < n; i++) {
        const node_t *c = &nodes[first + i];
        int pr = atomic_load_explicit(&c->proof, memory_order_relaxed);
        float score;
        if (sweep && pr == PROOF_NONE && !atomic_load_explicit(&c->first, memory_order_relaxed) &&
            !vn_inflight(atomic_load_explicit(&c->vn, memory_order_relaxed)))
            return first + (uint32_t)i;
        if (proof_is_loss(pr)) {
            score = -1e9f + (float)proof_dist(pr);
        } else {
            uint64_t vn = atomic_load_explicit(&c->vn, memory_order_relaxed);
            uint32_t cn = vn_visits(vn), inf = vn_inflight(vn);
            float nv = (float)cn + vl * (float)inf;
            float q;
            if (pr == PROOF_DRAW)
                q = 0.5f;
            else if (nv > 0.0f)
                q = (float)((double)atomic_load_explicit(&c->wsum, memory_order_relaxed) /
                            VAL_ONE) /
                    nv;
            else
                q = fpu_q;
            if (imv && pr != PROOF_DRAW && nv > 0.0f) {
                float im = atomic_load_explicit(&imv[first + i], memory_order_relaxed);
                if (im >= 0.0f) q = (1.0f - pp->implicit_minimax) * q + pp->implicit_minimax * im;
            }
            score = q + pp->c_puct * ((float)c->prior * (1.0f / 65535.0f)) * sq / (1.0f + nv);
        }
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return first + (uint32_t)best;
}

/* The evaluation of q for its side to move: ev_value(), or the shallow search of
 * search/leaf.h when leaf_minimax or quiesce asks for one. */
static float eval_pos(const worker_t *wk, const gk_pos_t *q) {
    const mcts_params_t *pp = &wk->m->prm;
    if (!pp->use_eval) return 0.5f;
    if (pp->leaf_minimax > 0 || pp->quiesce > 0)
        return leaf_search_value(&wk->m->w, q, pp->leaf_minimax, pp->quiesce, pp->quiesce_threats);
    return ev_value(&wk->m->w, q);
}

/* Value of the leaf q for its side to move: the evaluation, after a playout when asked. */
static float leaf_value(worker_t *wk, const gk_pos_t *leaf) {
    const mcts_params_t *pp = &wk->m->prm;
    if (pp->playout_depth == 0) return eval_pos(wk, leaf);
    gk_pos_t q = *leaf;
    int limit = pp->playout_depth < 0 ? 1 << 20 : pp->playout_depth;
    for (int k = 0; k < limit && !gk_over(&q); k++) {
        int n = gk_gen(&q, wk->acts);
        if (n == 0) {
            gk_apply_no_move(&q);
            break;
        }
        int pick;
        if (pp->playout == MCTS_PLAYOUT_RANDOM || !pp->use_priors) {
            pick = (int)(rand01(&wk->rng) * n);
        } else {
            ev_policy_logits(&wk->m->w, &q, wk->acts, n, wk->logits, NULL);
            ev_softmax(wk->logits, n, pp->temperature);
            double r = rand01(&wk->rng), acc = 0.0;
            pick = n - 1;
            for (int i = 0; i < n; i++) {
                acc += wk->logits[i];
                if (r < acc) {
                    pick = i;
                    break;
                }
            }
        }
        if (pick >= n) pick = n - 1;
        gk_play(&q, wk->acts[pick]);
    }
    float v;
    if (gk_over(&q)) {
        int r = gk_result_for(&q, leaf->stm);
        v = r > 0 ? 1.0f : r < 0 ? 0.0f : 0.5f;
    } else {
        v = eval_pos(wk, &q);
        if (q.stm != leaf->stm) v = 1.0f - v;
    }
    return v;
}

static uint16_t quant_prior(float p) {
    float x = p * 65535.0f + 0.5f;
    if (!(x >= 1.0f)) return 1;
    if (x > 65535.0f) return 65535;
    return (uint16_t)x;
}

/* Expands node x (position pos, at path depth `depth`) when it can and returns the
 * value of pos for its side to move; *exact is set when that value is proven. */
static float expand_and_value(worker_t *wk, node_t *x, const gk_pos_t *pos, int depth, int *exact) {
    const mcts_t *m = wk->m;
    const mcts_params_t *pp = &m->prm;
    int s = pos->stm, mv = mover_at(wk, depth);
    *exact = 0;
    /* Third occurrence of a turn-boundary position: a draw (history + path). */
    if (depth > 0 && pos->in_turn == 0 && m->nhist + wk->nb > 0) {
        int c = hist_count(m, pos->hash) + 1;
        for (int i = 0; i < wk->nb - 1; i++) c += wk->bhash[i] == pos->hash;
        if (c >= 3) {
            set_proof(x, PROOF_DRAW);
            *exact = 1;
            return 0.5f;
        }
    }
    uint8_t expect = 0;
    if (depth >= MAX_DEPTH || atomic_load_explicit(&wk->ar->full, memory_order_relaxed) ||
        !atomic_compare_exchange_strong(&x->state, &expect, 1))
        return leaf_value(wk, pos);
    int n = gk_gen(pos, wk->acts);
    if (n == 0) {
        /* No legal action: the side to move loses. */
        set_proof(x, mv == s ? proof_loss(0) : proof_win(0));
        atomic_store(&x->state, 2);
        *exact = 1;
        return 0.0f;
    }
    uint32_t base = arena_alloc(wk->ar, (uint32_t)n);
    if (!base) {
        atomic_store(&x->state, 0);
        return leaf_value(wk, pos);
    }
    if (pp->use_priors) {
        ev_policy_logits(&m->w, pos, wk->acts, n, wk->logits, wk->outc);
        ev_softmax(wk->logits, n, pp->temperature);
    } else {
        for (int i = 0; i < n; i++) {
            gk_pos_t q = *pos;
            gk_play(&q, wk->acts[i]);
            int r = gk_over(&q) ? gk_result_for(&q, s) : 2;
            wk->outc[i] = r == 2  ? EV_CHILD_ONGOING
                          : r > 0 ? EV_CHILD_WIN
                          : r < 0 ? EV_CHILD_LOSS
                                  : EV_CHILD_DRAW;
            wk->logits[i] = 1.0f / (float)n;
        }
    }
    node_t *kids = &wk->ar->nodes[base];
    for (int i = 0; i < n; i++) {
        /* Finished children are exact whether or not the solver propagates proofs. */
        int16_t pr = PROOF_NONE;
        switch (wk->outc[i]) {
        case EV_CHILD_WIN: pr = proof_win(0); break;
        case EV_CHILD_LOSS: pr = proof_loss(0); break;
        case EV_CHILD_DRAW: pr = PROOF_DRAW; break;
        default: break;
        }
        node_init(&kids[i], wk->acts[i], quant_prior(wk->logits[i]), pr);
        im_set(wk->ar, base + (uint32_t)i, pr == PROOF_NONE ? IM_NONE : proof_value(pr));
    }
    /* Gobs: a jump chain that wins this turn is found before any playout, as a win in one
     * is: its first leg is proven won for the side to move (search/leaf.h). */
    int gobs_nowin = 0;
    if (pp->solver && pp->quiesce > 0 && pos->game == GK_GAME_GOBS) {
        gk_action_t first;
        const int d = leaf_gobs_win(pos, &first);
        for (int i = 0; d && i < n; i++)
            if (kids[i].action == first) set_proof(&kids[i], proof_win(d - 1));
        gobs_nowin = !d;
    }
    x->nchild = (uint16_t)n;
    atomic_store_explicit(&x->first, base, memory_order_release);
    atomic_store(&x->state, 2);
    if (pp->solver) {
        int pr = update_proof(wk->ar, x, s, mv);
        if (!pr) pr = atomic_load(&x->proof);
        if (pr != PROOF_NONE) {
            *exact = 1;
            float v = proof_value(pr); /* for the mover */
            return mv == s ? v : 1.0f - v;
        }
    }
    /* Without a winning chain the Gobs leaf search is ev_value(): spare the second look. */
    float v = gobs_nowin && pp->playout_depth == 0 && pp->leaf_minimax == 0 && pp->use_eval
                  ? ev_value(&m->w, pos)
                  : leaf_value(wk, pos);
    /* A leaf search scores exactly 1 or 0 only along forced exits (search/leaf.h): a proof,
     * whose length is at most its plies plus the move and exit after them.  Not at the root,
     * whose children would stay unproven. */
    if (pp->leaf_proof && pp->solver && depth > 0 && pp->playout_depth == 0 &&
        (pp->leaf_minimax > 0 || pp->quiesce > 0) && (v == 1.0f || v == 0.0f)) {
        int d = pp->leaf_minimax + pp->quiesce + 2;
        set_proof(x, (v == 1.0f) == (mv == s) ? proof_win(d) : proof_loss(d));
        *exact = 1;
    }
    return v;
}

/* Implicit minimax backups (Lanctot et al. 2014): after a leaf of the path got its value,
 * each node above takes the best value among its evaluated children for its side to move
 * (wk->stm[i]), seen from its mover. */
static void im_backup(worker_t *wk, int depth, float leaf_mover_value) {
    arena_t *ar = wk->ar;
    im_set(ar, wk->path[depth], leaf_mover_value);
    for (int i = depth - 1; i >= 0; i--) {
        const node_t *x = &ar->nodes[wk->path[i]];
        uint32_t first = atomic_load_explicit(&x->first, memory_order_acquire);
        if (!first) return;
        float best = IM_NONE;
        for (int k = 0; k < x->nchild; k++) {
            float c = atomic_load_explicit(&ar->imv[first + (uint32_t)k], memory_order_relaxed);
            if (c > best) best = c;
        }
        if (best < 0.0f) return;
        im_set(ar, wk->path[i], mover_at(wk, i) == wk->stm[i] ? best : 1.0f - best);
    }
}

/* Minimax in selection (MCTS-MS, Baier & Winands 2015): the first descent through an
 * expanded node x below the root (position pos, path depth `depth`) with ms_visits visits
 * runs the win/loss search of search/leaf.h from it, once (state 2 -> 3), and a result
 * proves x.  The tree alone finds a forced exit a few actions deep only after it has
 * expanded every defence; the search finds it for the cost of a few generator calls,
 * while the node is still visited often enough to be worth it.  Returns 1 with *v (the
 * value for pos's side to move) when x is proven. */
static int ms_check(worker_t *wk, node_t *x, const gk_pos_t *pos, int depth, float *v) {
    const mcts_params_t *pp = &wk->m->prm;
    if (pp->ms_depth <= 0 || !pp->solver || depth == 0 || node_visits(x) < (uint32_t)pp->ms_visits)
        return 0;
    uint8_t expect = 2;
    if (!atomic_compare_exchange_strong(&x->state, &expect, 3)) return 0;
    int len = 0, r = leaf_prove(pos, pp->ms_depth, &len);
    if (r == 0) return 0;
    int s = pos->stm, mv = mover_at(wk, depth);
    set_proof(x, (r > 0) == (mv == s) ? proof_win(len) : proof_loss(len));
    *v = r > 0 ? 1.0f : 0.0f;
    return 1;
}

/* One descent from the root, expansion or evaluation of a leaf, and backup. */
static void playout(worker_t *wk) {
    const mcts_t *m = wk->m;
    node_t *nodes = wk->ar->nodes;
    gk_pos_t pos = *wk->root;
    int depth = 0;
    wk->path[0] = wk->root_idx;
    wk->stm[0] = pos.stm;
    wk->nb = 0;
    float v; /* for the side to move at the end of the path */
    int exact = 0;
    for (;;) {
        node_t *x = &nodes[wk->path[depth]];
        int pr = atomic_load_explicit(&x->proof, memory_order_relaxed);
        if (depth > 0 && pr != PROOF_NONE) {
            float vm = proof_value(pr);
            v = mover_at(wk, depth) == pos.stm ? vm : 1.0f - vm;
            break;
        }
        uint32_t first = atomic_load_explicit(&x->first, memory_order_acquire);
        if (!first) {
            v = expand_and_value(wk, x, &pos, depth, &exact);
            break;
        }
        if (depth >= MAX_DEPTH) {
            v = leaf_value(wk, &pos);
            break;
        }
        if (ms_check(wk, x, &pos, depth, &v)) {
            exact = 1;
            break;
        }
        int sweep = depth == 0 && pr != PROOF_NONE &&
                    proof_is_win(wk->root_mover == pos.stm ? pr : proof_flip(pr));
        uint32_t c = select_child(wk, x, first, pos.stm, mover_at(wk, depth), sweep);
        atomic_fetch_add_explicit(&nodes[c].vn, VN_INFLIGHT, memory_order_relaxed);
        gk_play(&pos, nodes[c].action);
        depth++;
        wk->path[depth] = c;
        wk->stm[depth] = pos.stm;
        if (pos.in_turn == 0) wk->bhash[wk->nb++] = pos.hash;
    }
    if (exact && m->prm.solver) {
        for (int i = depth - 1; i >= 0; i--) {
            if (!update_proof(wk->ar, &nodes[wk->path[i]], wk->stm[i], mover_at(wk, i))) break;
        }
    }
    int leaf_stm = pos.stm;
    if (wk->ar->imv) im_backup(wk, depth, mover_at(wk, depth) == leaf_stm ? v : 1.0f - v);
    for (int i = depth; i >= 0; i--) {
        node_t *x = &nodes[wk->path[i]];
        float val = mover_at(wk, i) == leaf_stm ? v : 1.0f - v;
        uint64_t fx = (uint64_t)(val * (float)VAL_ONE + 0.5f);
        atomic_fetch_add_explicit(&x->wsum, fx, memory_order_relaxed);
        /* visits + 1, and for every node but the root inflight - 1 (mod 2^64). */
        atomic_fetch_add_explicit(&x->vn, i > 0 ? 1 - VN_INFLIGHT : 1, memory_order_relaxed);
    }
    if (depth > wk->depth_max) wk->depth_max = depth;
    wk->playouts++;
}

/* ---- 4. the search driver ---- */

typedef struct shared {
    _Atomic uint64_t claimed;
    _Atomic int stop;
    _Atomic int why; /* MCTS_STOP_* of the first reason that ended the search, 0: none yet */
    _Atomic uint64_t won_at; /* 1 + the playout at which the root was seen won, 0: not yet */
    uint64_t budget;         /* playouts; UINT64_MAX = none */
    uint64_t node_limit;
    double t0, deadline; /* deadline 0 = none */
    double hard;         /* > deadline: the search may go on to it while unstable() */
    int early_stop;
    int root_s, root_mv; /* side to move and mover of the root node */
    /* The monitor: polled by every thread, info written by the first thread only. */
    const _Atomic int *ext_stop;
    const mcts_t *m;
    arena_t *const *trees;
    int ntrees;
    const gk_pos_t *root;
    int root_mover;
    mcts_result_t *sofar; /* NULL: no info callback */
    double next_info;
} shared_t;

static double gamma_sample(double alpha, uint64_t *rng) {
    if (alpha < 1.0) {
        double u = rand01(rng);
        return gamma_sample(alpha + 1.0, rng) * pow(u > 0 ? u : 1e-300, 1.0 / alpha);
    }
    double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            double u1 = rand01(rng), u2 = rand01(rng);
            x = sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)) * cos(6.283185307179586 * u2);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = rand01(rng);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}

static void root_noise(const mcts_t *m, arena_t *ar, uint32_t root, uint64_t seed) {
    const mcts_params_t *pp = &m->prm;
    node_t *x = &ar->nodes[root];
    uint32_t first = atomic_load(&x->first);
    if (!first || pp->noise_frac <= 0.0f || pp->noise_alpha <= 0.0f) return;
    int n = x->nchild;
    double eta[GK_MAX_ACTIONS], sum = 0.0;
    for (int i = 0; i < n; i++) sum += eta[i] = gamma_sample(pp->noise_alpha, &seed);
    for (int i = 0; i < n; i++) {
        node_t *c = &ar->nodes[first + i];
        double p = (double)c->prior / 65535.0;
        double q = (1.0 - pp->noise_frac) * p + pp->noise_frac * (sum > 0 ? eta[i] / sum : 1.0 / n);
        c->prior = quant_prior((float)q);
    }
}

/* Most visited child of x not proven lost (proven wins first, fastest first); -1 if none. */
static int best_child(const arena_t *ar, const node_t *x) {
    uint32_t first = atomic_load(&x->first);
    if (!first) return -1;
    int n = x->nchild, best = -1, best_win = -1, longest_loss = -1;
    int best_wd = 1 << 30, best_ld = -1;
    uint32_t bv = 0;
    double bq = -1.0;
    for (int i = 0; i < n; i++) {
        const node_t *c = &ar->nodes[first + i];
        int pr = atomic_load(&c->proof);
        if (proof_is_win(pr)) {
            if (proof_dist(pr) < best_wd) best_wd = proof_dist(pr), best_win = i;
            continue;
        }
        if (proof_is_loss(pr)) {
            if (proof_dist(pr) > best_ld) best_ld = proof_dist(pr), longest_loss = i;
            continue;
        }
        uint32_t v = node_visits(c);
        double q = v ? (double)atomic_load(&c->wsum) / VAL_ONE / v : -0.5;
        if (pr == PROOF_DRAW) q = 0.5;
        if (best < 0 || v > bv || (v == bv && q > bq)) best = i, bv = v, bq = q;
    }
    if (best_win >= 0) return best_win;
    if (best >= 0) return best;
    return longest_loss;
}

/* The root's children not proven lost: how many (alive), how many unproven (open) and
 * of those unexpanded (leaves), whether one is proven won, and the two most visited with
 * their visits and mean values. */
typedef struct top2 {
    uint32_t v1, v2;
    double q1, q2;
    int alive, open, leaves;
    bool won_child;
} top2_t;
static void root_top2(const arena_t *ar, const node_t *x, top2_t *t) {
    memset(t, 0, sizeof *t);
    uint32_t first = atomic_load_explicit(&x->first, memory_order_acquire);
    if (!first) return;
    for (int i = 0; i < x->nchild; i++) {
        const node_t *c = &ar->nodes[first + i];
        int cp = atomic_load_explicit(&c->proof, memory_order_relaxed);
        if (proof_is_loss(cp)) continue;
        t->alive++;
        t->won_child |= proof_is_win(cp);
        if (cp == PROOF_NONE) {
            t->open++;
            t->leaves += !atomic_load_explicit(&c->first, memory_order_relaxed);
        }
        uint32_t v = node_visits(c);
        if (v <= t->v2) continue;
        double q =
            v ? (double)atomic_load_explicit(&c->wsum, memory_order_relaxed) / VAL_ONE / v : 0.0;
        if (v > t->v1)
            t->v2 = t->v1, t->q2 = t->q1, t->v1 = v, t->q1 = q;
        else
            t->v2 = v, t->q2 = q;
    }
}

/* True when the search can stop: the root is decided (lost, drawn, won in one action, or
 * won with no faster win possible: every child proven, or a win in at most 3 actions with
 * every child expanded, since the expansion of a child shows every win within 2
 * actions through it), or the most visited child
 * cannot be overtaken in `remaining` more playouts (UINT64_MAX: never). */
static int decided(const shared_t *sh, const arena_t *ar, uint32_t root, uint64_t remaining) {
    const node_t *x = &ar->nodes[root];
    int pr = atomic_load_explicit(&x->proof, memory_order_relaxed);
    int won = 0;
    if (pr != PROOF_NONE) {
        if (sh->root_mv != sh->root_s) pr = proof_flip(pr);
        if (!proof_is_win(pr) || proof_dist(pr) <= 1) return 1;
        won = proof_dist(pr);
    }
    top2_t t;
    root_top2(ar, x, &t);
    if (won) return t.open == 0 || (won <= 3 && t.leaves == 0);
    if (t.alive <= 1) return 1;
    return remaining != UINT64_MAX && (uint64_t)(t.v1 - t.v2) > remaining;
}

/* The extension rule under a clock (limit extend): the choice is unclear while the most
 * visited root action that is not proven lost has fewer than MCTS_CLEAR_RATIO times the
 * visits of the second, or a lower mean value than the second (the search is still moving
 * its visits over).  Pachi's best2 ratio of 2.5 is the model; 2 is the only value tried. */
#define MCTS_CLEAR_RATIO 2.0
static bool unstable(const arena_t *ar, uint32_t root) {
    const node_t *x = &ar->nodes[root];
    if (atomic_load_explicit(&x->proof, memory_order_relaxed) != PROOF_NONE) return false;
    top2_t t;
    root_top2(ar, x, &t);
    if (t.won_child || !t.v2) return false;
    return (double)t.v1 < MCTS_CLEAR_RATIO * (double)t.v2 || t.q1 < t.q2;
}

/* Ends the search for reason why (MCTS_STOP_*); the first reason stored is kept. */
static int stop_for(shared_t *sh, int why) {
    int none = 0;
    atomic_compare_exchange_strong(&sh->why, &none, why);
    atomic_store(&sh->stop, 1);
    return 1;
}

/* The early-stop rule under a time limit: the playouts still to come are estimated from
 * the rate so far, times MCTS_RATE_MARGIN, because the rate is not constant (it grows as
 * the tree gets deeper and the evaluations cheaper, and another process on the machine
 * can stop taking its share).  The margin keeps "cannot be overtaken" true in practice. */
#define MCTS_RATE_MARGIN 1.5
/* The least search for a faster win on a root proven won (should_stop): a few
 * hundredths of a second, and playout budgets up to it behave as before. */
#define MCTS_WON_EXTRA 4096

static int should_stop(shared_t *sh, const arena_t *ar, uint32_t root, uint64_t k) {
    if (atomic_load_explicit(&sh->stop, memory_order_relaxed)) return 1;
    if (sh->ext_stop && atomic_load_explicit(sh->ext_stop, memory_order_relaxed))
        return stop_for(sh, MCTS_STOP_SIGNAL);
    if (atomic_load_explicit(&ar->nodes[root].proof, memory_order_relaxed) != PROOF_NONE) {
        if (decided(sh, ar, root, UINT64_MAX)) return stop_for(sh, MCTS_STOP_PROVEN);
        /* Won, and a faster win may exist: look for it as long again as the proof took
         * (at least MCTS_WON_EXTRA playouts), then play the proven win.  Searching until
         * no faster win can exist used the whole budget (issue 15: 1-3 million playouts
         * on a proven root, the rest of its time). */
        uint64_t at = atomic_load_explicit(&sh->won_at, memory_order_relaxed);
        if (!at) {
            uint64_t none = 0;
            at = k + 1;
            if (!atomic_compare_exchange_strong(&sh->won_at, &none, at)) at = none;
        }
        if (k >= 2 * at + MCTS_WON_EXTRA) return stop_for(sh, MCTS_STOP_PROVEN);
    }
    if (sh->node_limit && atomic_load_explicit(&ar->next, memory_order_relaxed) >= sh->node_limit)
        return stop_for(sh, MCTS_STOP_NODES);
    double t = 0.0;
    if (sh->deadline > 0.0) {
        t = gk_now_s();
        if (t >= sh->deadline) {
            if (t >= sh->hard) return stop_for(sh, MCTS_STOP_TIME);
            if ((k & 31) == 0 && !unstable(ar, root)) return stop_for(sh, MCTS_STOP_TIME);
            return 0;
        }
    }
    if (sh->early_stop && (k & 31) == 0 && k > 0) {
        uint64_t remaining = sh->budget != UINT64_MAX ? sh->budget - k : UINT64_MAX;
        if (sh->deadline > 0.0 && t > sh->t0) {
            double rate = (double)k / (t - sh->t0);
            /* An unclear choice may search on to the hard limit: count that time too. */
            double end = sh->hard > sh->deadline && unstable(ar, root) ? sh->hard : sh->deadline;
            double r2 = MCTS_RATE_MARGIN * rate * (end - t) + 1.0;
            if (r2 < (double)remaining) remaining = (uint64_t)r2;
        }
        if (decided(sh, ar, root, remaining)) return stop_for(sh, MCTS_STOP_DECIDED);
    }
    return 0;
}

static void fill_result(const mcts_t *m, arena_t *const *trees, int ntrees, const gk_pos_t *root,
                        int root_mover, mcts_result_t *out);

/* Gives the monitor the result so far when its interval has passed (first thread only). */
static void report_sofar(shared_t *sh, uint64_t mine, int nthreads) {
    double t = gk_now_s();
    if (t < sh->next_info) return;
    mcts_result_t *r = sh->sofar;
    memset(r, 0, offsetof(mcts_result_t, children));
    fill_result(sh->m, sh->trees, sh->ntrees, sh->root, sh->root_mover, r);
    uint64_t c = atomic_load_explicit(&sh->claimed, memory_order_relaxed);
    r->playouts = c ? (c < sh->budget ? c : sh->budget) : mine * (uint64_t)nthreads;
    r->seconds = t - sh->t0;
    for (int i = 0; i < sh->ntrees; i++)
        r->nodes += atomic_load_explicit(&sh->trees[i]->next, memory_order_relaxed) - 1;
    sh->m->mon.info(r, sh->m->mon.ctx);
    double iv = sh->m->mon.interval_s > 0.05 ? sh->m->mon.interval_s : 0.05;
    sh->next_info = t + iv;
}

static void worker_run(worker_t *wk, shared_t *sh, uint64_t own_budget, int tid, int nthreads) {
    uint64_t mine = 0;
    for (;;) {
        if (tid == 0 && sh->sofar && (mine & 63) == 63) report_sofar(sh, mine, nthreads);
        uint64_t k;
        if (own_budget) {
            if (mine >= own_budget) break;
            k = mine;
        } else {
            k = atomic_fetch_add_explicit(&sh->claimed, 1, memory_order_relaxed);
            if (k >= sh->budget) break;
        }
        if (should_stop(sh, wk->ar, wk->root_idx, k)) break;
        playout(wk);
        mine++;
    }
}

static void init_worker(worker_t *wk, const mcts_t *m, arena_t *ar, const gk_pos_t *root,
                        uint32_t root_idx, int root_mover, int tid) {
    wk->m = m;
    wk->ar = ar;
    wk->root = root;
    wk->root_idx = root_idx;
    wk->root_mover = root_mover;
    wk->rng = m->prm.seed ^ root->hash ^ (0x9E3779B97F4A7C15ull * (uint64_t)(tid + 1));
    wk->playouts = 0;
    wk->depth_max = 0;
}

/* ---- 5. results, reuse, parameters ---- */

/* The variation from the root's child of action a into pv[0..cap): a, then the most visited
 * child of each node while it was visited or is proven.  Root mode walks the tree where that
 * child has the most visits.  Returns its length (0 when a is not a child). */
static int walk_pv(arena_t *const *trees, int ntrees, uint32_t r0, gk_action_t a, gk_action_t *pv,
                   int cap) {
    const arena_t *at = NULL;
    const node_t *x = NULL;
    uint32_t bvis = 0;
    for (int t = 0; t < ntrees; t++) {
        const node_t *xt = &trees[t]->nodes[ntrees > 1 ? 1 : r0];
        uint32_t ft = atomic_load(&xt->first);
        for (int i = 0; ft && i < xt->nchild; i++) {
            const node_t *c = &trees[t]->nodes[ft + i];
            if (c->action == a && (!x || node_visits(c) > bvis))
                at = trees[t], x = c, bvis = node_visits(c);
        }
    }
    if (!x) return 0;
    int n = 0;
    pv[n++] = a;
    while (n < cap) {
        int b = best_child(at, x);
        if (b < 0) break;
        const node_t *c = &at->nodes[atomic_load(&x->first) + (uint32_t)b];
        if (node_visits(c) == 0 && atomic_load(&c->proof) == 0) break;
        pv[n++] = c->action;
        x = c;
    }
    return n;
}

static void fill_result(const mcts_t *m, arena_t *const *trees, int ntrees, const gk_pos_t *root,
                        int root_mover, mcts_result_t *out) {
    const arena_t *a0 = trees[0];
    uint32_t r0 = m->prm.parallel == MCTS_PAR_ROOT ? 1 : m->root;
    const node_t *x0 = &a0->nodes[r0];
    uint32_t first0 = atomic_load(&x0->first);
    int n = first0 ? x0->nchild : 0;
    int s = root->stm;
    out->nchildren = n;
    int16_t root_proof = atomic_load(&x0->proof);
    for (int i = 0; i < n; i++) {
        mcts_child_t *c = &out->children[i];
        uint64_t vis = 0, ws = 0;
        int pr = PROOF_NONE;
        float prior = 0;
        for (int t = 0; t < ntrees; t++) {
            uint32_t rt = ntrees > 1 ? 1 : r0;
            const node_t *xt = &trees[t]->nodes[rt];
            uint32_t ft = atomic_load(&xt->first);
            if (!ft || xt->nchild != n) continue;
            const node_t *k = &trees[t]->nodes[ft + i];
            vis += node_visits(k);
            ws += atomic_load(&k->wsum);
            int kp = atomic_load(&k->proof);
            if (kp != PROOF_NONE) pr = kp;
            if (t == 0) prior = (float)k->prior / 65535.0f;
        }
        c->action = a0->nodes[first0 + i].action;
        c->visits = (uint32_t)(vis > UINT32_MAX ? UINT32_MAX : vis);
        c->value = vis ? (float)((double)ws / VAL_ONE / (double)vis) : 0.0f;
        c->prior = prior;
        c->proof = proof_is_win(pr)    ? MCTS_PROVEN_WIN
                   : proof_is_loss(pr) ? MCTS_PROVEN_LOSS
                   : pr == PROOF_DRAW  ? MCTS_PROVEN_DRAW
                                       : MCTS_UNPROVEN;
        c->actions = pr != PROOF_NONE && pr != PROOF_DRAW ? (uint16_t)(proof_dist(pr) + 1) : 0;
        if (pr != PROOF_NONE) c->value = proof_value(pr);
        if (ntrees > 1 && c->proof == MCTS_PROVEN_WIN) root_proof = proof_win(c->actions);
    }
    /* Sort by proof (wins fastest first), visits, value; losses last, longest first. */
    for (int i = 1; i < n; i++) {
        mcts_child_t t = out->children[i];
        int j = i - 1;
        for (; j >= 0; j--) {
            const mcts_child_t *u = &out->children[j];
            int tk = t.proof == MCTS_PROVEN_WIN ? 2 : t.proof == MCTS_PROVEN_LOSS ? 0 : 1;
            int uk = u->proof == MCTS_PROVEN_WIN ? 2 : u->proof == MCTS_PROVEN_LOSS ? 0 : 1;
            int before;
            if (tk != uk)
                before = tk > uk;
            else if (tk == 2)
                before = t.actions < u->actions;
            else if (tk == 0)
                before = t.actions > u->actions;
            else
                before = t.visits > u->visits || (t.visits == u->visits && t.value > u->value);
            if (!before) break;
            out->children[j + 1] = out->children[j];
        }
        out->children[j + 1] = t;
    }
    out->best = n ? out->children[0].action : GK_NO_ACTION;
    /* Root proof for the side to move. */
    int pr = root_proof;
    if (pr != PROOF_NONE && root_mover != s) pr = proof_flip(pr);
    if (ntrees > 1 && n) {
        int all = 1, draw = 0, lossd = 0;
        for (int i = 0; i < n; i++) {
            const mcts_child_t *c = &out->children[i];
            if (c->proof == MCTS_UNPROVEN) all = 0;
            if (c->proof == MCTS_PROVEN_DRAW) draw = 1;
            if (c->proof == MCTS_PROVEN_LOSS && c->actions > lossd) lossd = c->actions;
        }
        if (out->children[0].proof == MCTS_PROVEN_WIN)
            pr = proof_win(out->children[0].actions);
        else if (all)
            pr = draw ? PROOF_DRAW : proof_loss(lossd);
        else
            pr = PROOF_NONE;
    }
    out->proof = proof_is_win(pr)    ? MCTS_PROVEN_WIN
                 : proof_is_loss(pr) ? MCTS_PROVEN_LOSS
                 : pr == PROOF_DRAW  ? MCTS_PROVEN_DRAW
                                     : MCTS_UNPROVEN;
    out->proof_actions = pr != PROOF_NONE && pr != PROOF_DRAW ? (uint16_t)proof_dist(pr) : 0;
    if (out->proof != MCTS_UNPROVEN)
        out->value = proof_value(pr);
    else if (n && out->children[0].visits)
        out->value = out->children[0].value;
    else
        out->value = 0.5f;
    /* Principal variations: from each of the first children, the most visited child of each
     * node, in the tree where that child has the most visits (root mode). */
    out->pv_len = walk_pv(trees, ntrees, r0, out->best, out->pv, MCTS_MAX_PV);
    out->npv = n < MCTS_MULTIPV ? n : MCTS_MULTIPV;
    for (int i = 0; i < out->npv; i++) {
        if (out->children[i].action == out->best) {
            int k = out->pv_len < MCTS_CHILD_PV ? out->pv_len : MCTS_CHILD_PV;
            memcpy(out->child_pv[i], out->pv, sizeof(gk_action_t) * (size_t)k);
            out->child_pv_len[i] = (uint8_t)k;
        } else {
            out->child_pv_len[i] = (uint8_t)walk_pv(trees, ntrees, r0, out->children[i].action,
                                                    out->child_pv[i], MCTS_CHILD_PV);
        }
    }
}

size_t mcts_node_bytes(void) {
    return sizeof(node_t);
}

mcts_t *mcts_new(const mcts_params_t *p, const ev_weights_t *w) {
    if (!p || !w || !(p->c_puct >= 0.0f) || !(p->temperature >= 0.0f) || p->virtual_loss < 0 ||
        p->threads > 1024 || (p->parallel != MCTS_PAR_TREE && p->parallel != MCTS_PAR_ROOT) ||
        w->nvalue != ev_num_features(w->game) || w->npolicy != ev_policy_num_features(w->game) ||
        w->nvalue <= 0)
        return NULL;
    mcts_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->prm = *p;
    if (m->prm.threads < 1) m->prm.threads = 1;
    if (m->prm.tree_mb < 1) m->prm.tree_mb = 1;
    if (m->prm.tree_mb > 65536) m->prm.tree_mb = 65536;
    m->w = *w;
    uint64_t cap = ((uint64_t)m->prm.tree_mb << 20) / sizeof(node_t);
    if (cap > UINT32_MAX / 2) cap = UINT32_MAX / 2;
    m->main.cap = (uint32_t)cap;
    m->main.nodes = malloc((size_t)cap * sizeof(node_t));
    m->main.imv =
        m->prm.implicit_minimax > 0.0f ? malloc((size_t)cap * sizeof(_Atomic float)) : NULL;
    if (!m->main.nodes || (m->prm.implicit_minimax > 0.0f && !m->main.imv)) {
        free(m->main.nodes);
        free(m->main.imv);
        free(m);
        return NULL;
    }
    arena_reset(&m->main);
    return m;
}

void mcts_free(mcts_t *m) {
    if (!m) return;
    free(m->main.nodes);
    free(m->main.imv);
    free(m->hist);
    free(m);
}

void mcts_clear(mcts_t *m) {
    m->have_tree = 0;
    m->root = 0;
}

int mcts_advance(mcts_t *m, gk_action_t a) {
    if (!m->have_tree) return -1;
    const node_t *x = &m->main.nodes[m->root];
    uint32_t first = atomic_load(&x->first);
    for (int i = 0; first && i < x->nchild; i++) {
        if (m->main.nodes[first + i].action != a) continue;
        m->root_mover = m->root_pos.stm;
        gk_play(&m->root_pos, a);
        m->root = first + (uint32_t)i;
        return 0;
    }
    mcts_clear(m);
    return -1;
}

static int pos_order_lt(const gk_pos_t *a, const gk_pos_t *b) {
    return a->turn < b->turn || (a->turn == b->turn && a->in_turn < b->in_turn);
}

/* Node of `target` among the expanded descendants of idx (position pos), or 0. */
static uint32_t find_node(mcts_t *m, uint32_t idx, const gk_pos_t *pos, const gk_pos_t *target,
                          int depth, int *mover) {
    if (!memcmp(pos, target, sizeof *pos)) return idx;
    if (depth >= 2 * GK_MAX_TURN || !pos_order_lt(pos, target) || gk_over(pos)) return 0;
    const node_t *x = &m->main.nodes[idx];
    uint32_t first = atomic_load(&x->first);
    for (int i = 0; first && i < x->nchild; i++) {
        gk_pos_t q = *pos;
        gk_play(&q, m->main.nodes[first + i].action);
        int mv = pos->stm;
        uint32_t r = find_node(m, first + (uint32_t)i, &q, target, depth + 1, &mv);
        if (r) {
            if (r == first + (uint32_t)i)
                *mover = pos->stm;
            else
                *mover = mv;
            return r;
        }
    }
    return 0;
}

/* Moves the subtree of node r to the start of the arena (r becomes node 1).  Returns 0,
 * or -1 when memory for the copy is short (the tree is then dropped). */
static int compact(mcts_t *m, uint32_t r) {
    node_t *nodes = m->main.nodes;
    /* Count the subtree. */
    uint64_t count = 0;
    uint32_t *stack = malloc(sizeof(uint32_t) * (size_t)(atomic_load(&m->main.next) + 1));
    if (!stack) return -1;
    int sp = 0;
    stack[sp++] = r;
    while (sp) {
        uint32_t i = stack[--sp];
        count++;
        uint32_t f = atomic_load(&nodes[i].first);
        for (int k = 0; f && k < nodes[i].nchild; k++) stack[sp++] = f + (uint32_t)k;
    }
    free(stack);
    node_t *tmp = malloc((size_t)count * sizeof(node_t));
    _Atomic float *imv = m->main.imv;
    _Atomic float *tmpv = imv ? malloc((size_t)count * sizeof(*tmpv)) : NULL;
    if (!tmp || (imv && !tmpv)) {
        free(tmp);
        free(tmpv);
        return -1;
    }
    memcpy(&tmp[0], &nodes[r], sizeof(node_t));
    if (imv) memcpy(&tmpv[0], &imv[r], sizeof(*tmpv));
    uint64_t filled = 1;
    for (uint64_t q = 0; q < filled; q++) {
        node_t *x = &tmp[q];
        uint32_t f = atomic_load(&x->first);
        if (!f) continue;
        memcpy(&tmp[filled], &nodes[f], (size_t)x->nchild * sizeof(node_t));
        if (imv) memcpy(&tmpv[filled], &imv[f], (size_t)x->nchild * sizeof(*tmpv));
        atomic_store(&x->first, (uint32_t)(filled + 1));
        filled += x->nchild;
    }
    memcpy(&nodes[1], tmp, (size_t)count * sizeof(node_t));
    if (imv) memcpy(&imv[1], tmpv, (size_t)count * sizeof(*tmpv));
    free(tmp);
    free(tmpv);
    atomic_store(&m->main.next, (uint32_t)(count + 1));
    atomic_store(&m->main.full, 0);
    m->root = 1;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int load_hist(mcts_t *m, const gk_hist_t *h) {
    m->nhist = 0;
    if (!h || h->n <= 0) return 0;
    int n = h->n > GK_HIST_MAX ? GK_HIST_MAX : h->n;
    uint64_t *tmp = malloc(sizeof(uint64_t) * (size_t)n);
    hcount_t *hc = realloc(m->hist, sizeof(hcount_t) * (size_t)n);
    if (!tmp || !hc) {
        free(tmp);
        if (hc) m->hist = hc;
        return -1;
    }
    m->hist = hc;
    memcpy(tmp, h->h, sizeof(uint64_t) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(uint64_t), cmp_u64);
    for (int i = 0; i < n; i++) {
        if (m->nhist && m->hist[m->nhist - 1].hash == tmp[i])
            m->hist[m->nhist - 1].count++;
        else
            m->hist[m->nhist++] = (hcount_t){tmp[i], 1};
    }
    free(tmp);
    return 0;
}

/* Expands the root of a tree (single-threaded, before the workers start). */
static int prepare_root(worker_t *wk) {
    node_t *x = &wk->ar->nodes[wk->root_idx];
    if (atomic_load(&x->first)) return 0;
    int exact;
    float v = expand_and_value(wk, x, wk->root, 0, &exact);
    if (!atomic_load(&x->first)) return -1; /* no legal action or no room */
    float vm = wk->root_mover == wk->root->stm ? v : 1.0f - v;
    atomic_fetch_add(&x->wsum, (uint64_t)(vm * (float)VAL_ONE + 0.5f));
    atomic_fetch_add(&x->vn, 1);
    return 0;
}

/* Marks the root children whose action is excluded as lost for the side to move s (mv: the
 * root's mover), so that no playout goes through them and the root's value and proof are
 * those of the best other action. */
static void exclude_root(const mcts_t *m, arena_t *ar, uint32_t root, int s, int mv) {
    node_t *x = &ar->nodes[root];
    uint32_t first = atomic_load(&x->first);
    if (!m->nexcl || !first) return;
    for (int i = 0; i < x->nchild; i++)
        for (int k = 0; k < m->nexcl; k++)
            if (ar->nodes[first + i].action == m->excl[k]) {
                atomic_store(&ar->nodes[first + i].proof, proof_loss(0));
                break;
            }
    atomic_store(&x->proof, PROOF_NONE);
    update_proof(ar, x, s, mv);
}

static double allot_time(const mcts_limits_t *l) {
    double t = l->time_s > 0 ? l->time_s : 0.0;
    if (l->clock_s > 0) {
        double share = l->clock_s / l->clock_moves + 0.75 * l->inc_s;
        double cap = 0.5 * l->clock_s;
        if (share > cap) share = cap;
        share -= 0.01;
        if (share < 0.001) share = 0.001;
        if (t == 0.0 || share < t) t = share;
    }
    return t;
}

/* The state the search threads share, for a search of root under lim started at t0.
 * -1: out of memory. */
static int shared_init(shared_t *sh, const mcts_t *m, const gk_pos_t *root,
                       const mcts_limits_t *lim, double t0) {
    atomic_init(&sh->claimed, 0);
    atomic_init(&sh->stop, 0);
    atomic_init(&sh->why, 0);
    atomic_init(&sh->won_at, 0);
    sh->budget = lim->playouts ? lim->playouts : UINT64_MAX;
    sh->node_limit = lim->nodes ? lim->nodes + 1 : 0;
    sh->t0 = t0;
    double tt = allot_time(lim);
    sh->deadline = tt > 0 ? t0 + tt : 0.0;
    sh->hard = sh->deadline;
    if (tt > 0 && lim->clock_s > 0 && lim->extend > 1.0) {
        /* Never more than a fifth of what is left on the clock. */
        double hard = lim->extend * tt, cap = 0.2 * lim->clock_s;
        if (hard > cap) hard = cap;
        if (hard > tt) sh->hard = t0 + hard;
    }
    sh->early_stop = lim->early_stop && m->prm.threads == 1
                         ? 1
                         : lim->early_stop && m->prm.parallel == MCTS_PAR_TREE;
    sh->root_s = root->stm;
    sh->root_mv = root->stm ^ 1;
    sh->ext_stop = m->mon.stop;
    sh->m = m;
    sh->trees = NULL;
    sh->ntrees = 0;
    sh->root = root;
    sh->root_mover = root->stm ^ 1;
    sh->sofar = NULL;
    sh->next_info = t0 + (m->mon.interval_s > 0.05 ? m->mon.interval_s : 0.05);
    if (m->mon.info && !(sh->sofar = malloc(sizeof *sh->sofar))) return -1;
    return 0;
}

int mcts_search(mcts_t *m, const gk_pos_t *root, const gk_hist_t *hist, const mcts_limits_t *l,
                mcts_result_t *out) {
    double t0 = gk_now_s();
    memset(out, 0, offsetof(mcts_result_t, children));
    if (gk_over(root) || root->game != m->w.game) return -1;
    mcts_limits_t lim;
    if (l)
        lim = *l;
    else
        mcts_limits_default(&lim);
    if (!lim.playouts && !(lim.time_s > 0) && !(lim.clock_s > 0) && !lim.nodes)
        lim.playouts = MCTS_DEFAULT_PLAYOUTS;
    if (load_hist(m, hist)) return -1;
    const mcts_params_t *pp = &m->prm;
    int T = pp->threads;

    shared_t sh;
    if (shared_init(&sh, m, root, &lim, t0)) return -1;

    worker_t *wks = aligned_alloc(64, sizeof(worker_t) * (size_t)T);
    if (!wks) {
        free(sh.sofar);
        return -1;
    }
    int rc = 0;
    uint64_t noise_seed = pp->seed ^ root->hash ^ 0xD1B54A32D192ED03ull;

    if (pp->parallel == MCTS_PAR_TREE || T == 1) {
        /* Reuse the kept subtree when the root is in it. */
        uint32_t r = 0;
        int mover = root->stm ^ 1;
        if (pp->reuse && m->have_tree) {
            mover = m->root_mover;
            r = find_node(m, m->root, &m->root_pos, root, 0, &mover);
        }
        if (r && compact(m, r) == 0) {
            m->root_mover = mover;
        } else {
            arena_reset(&m->main);
            node_init(&m->main.nodes[1], GK_NO_ACTION, 0, PROOF_NONE);
            im_set(&m->main, 1, IM_NONE);
            m->root = 1;
            m->root_mover = root->stm ^ 1;
        }
        m->root_pos = *root;
        m->have_tree = 1;
        sh.root_mv = m->root_mover;
        out->reused = node_visits(&m->main.nodes[1]);
        for (int t = 0; t < T; t++)
            init_worker(&wks[t], m, &m->main, &m->root_pos, 1, m->root_mover, t);
        if (prepare_root(&wks[0]) < 0) {
            rc = -1;
        } else {
            exclude_root(m, &m->main, 1, root->stm, m->root_mover);
            root_noise(m, &m->main, 1, noise_seed);
            arena_t *const one[1] = {&m->main};
            sh.trees = one;
            sh.ntrees = 1;
            sh.root_mover = m->root_mover;
            if (T == 1) {
                worker_run(&wks[0], &sh, 0, 0, 1);
            } else {
#pragma omp parallel num_threads(T)
                worker_run(&wks[omp_get_thread_num()], &sh, 0, omp_get_thread_num(), T);
            }
            arena_t *trees[1] = {&m->main};
            fill_result(m, trees, 1, root, m->root_mover, out);
        }
        out->nodes = atomic_load(&m->main.next) - 1;
        out->tree_full = atomic_load(&m->main.full) != 0;
    } else {
        /* Root parallelism: one tree per thread in its share of the arena. */
        mcts_clear(m);
        arena_t *ars = malloc(sizeof(arena_t) * (size_t)T);
        arena_t **trees = malloc(sizeof(arena_t *) * (size_t)T);
        if (!ars || !trees) {
            free(ars);
            free(trees);
            free(wks);
            free(sh.sofar);
            return -1;
        }
        uint32_t share = m->main.cap / (uint32_t)T;
        for (int t = 0; t < T; t++) {
            ars[t].nodes = m->main.nodes + (size_t)t * share;
            ars[t].imv = m->main.imv ? m->main.imv + (size_t)t * share : NULL;
            ars[t].cap = share;
            arena_reset(&ars[t]);
            node_init(&ars[t].nodes[1], GK_NO_ACTION, 0, PROOF_NONE);
            im_set(&ars[t], 1, IM_NONE);
            trees[t] = &ars[t];
            init_worker(&wks[t], m, &ars[t], root, 1, root->stm ^ 1, t);
        }
        int bad = 0;
        for (int t = 0; t < T; t++) {
            if (prepare_root(&wks[t]) < 0) {
                bad = 1;
            } else {
                exclude_root(m, &ars[t], 1, root->stm, root->stm ^ 1);
                root_noise(m, &ars[t], 1, noise_seed + (uint64_t)t);
            }
        }
        if (bad) {
            rc = -1;
        } else {
            uint64_t per =
                sh.budget == UINT64_MAX ? 0 : (sh.budget + (uint64_t)T - 1) / (uint64_t)T;
            if (per) sh.budget = UINT64_MAX;
            sh.trees = trees;
            sh.ntrees = T;
#pragma omp parallel num_threads(T)
            {
                int t = omp_get_thread_num();
                uint64_t mine = per;
                if (per && (uint64_t)t * per >= lim.playouts)
                    mine = 0;
                else if (per && (uint64_t)(t + 1) * per > lim.playouts)
                    mine = lim.playouts - (uint64_t)t * per;
                if (!per || mine) worker_run(&wks[t], &sh, mine, t, T);
            }
            fill_result(m, trees, T, root, root->stm ^ 1, out);
        }
        out->nodes = 0;
        for (int t = 0; t < T; t++) {
            out->nodes += atomic_load(&ars[t].next) - 1;
            if (atomic_load(&ars[t].full)) out->tree_full = true;
        }
        free(ars);
        free(trees);
    }
    for (int t = 0; t < T; t++) {
        out->playouts += wks[t].playouts;
        if (wks[t].depth_max > out->depth_max) out->depth_max = wks[t].depth_max;
    }
    free(wks);
    out->seconds = gk_now_s() - t0;
    free(sh.sofar);
    int why = atomic_load(&sh.why);
    if (!why) why = MCTS_STOP_PLAYOUTS; /* the only stop that sets no reason */
    out->stop_reason = rc == 0 ? (uint8_t)why : MCTS_STOP_NONE;
    out->stopped_early =
        rc == 0 && (why == MCTS_STOP_DECIDED || why == MCTS_STOP_PROVEN || why == MCTS_STOP_SIGNAL);
    if (rc < 0) {
        out->best = GK_NO_ACTION;
        mcts_clear(m);
    }
    if (!pp->reuse) mcts_clear(m);
    return rc;
}

const char *mcts_stop_name(int why) {
    static const char *const names[] = {"none",    "playouts", "time",  "nodes",
                                        "decided", "proven",   "signal"};
    return why >= 0 && why <= MCTS_STOP_SIGNAL ? names[why] : "none";
}

void mcts_set_monitor(mcts_t *m, const mcts_monitor_t *mon) {
    if (mon)
        m->mon = *mon;
    else
        memset(&m->mon, 0, sizeof m->mon);
}

int mcts_search_excluding(mcts_t *m, const gk_pos_t *root, const gk_hist_t *hist,
                          const mcts_limits_t *l, const gk_action_t *excl, int nexcl,
                          mcts_result_t *out) {
    mcts_clear(m);
    m->excl = excl;
    m->nexcl = excl && nexcl > 0 ? nexcl : 0;
    int rc = mcts_search(m, root, hist, l, out);
    m->excl = NULL;
    m->nexcl = 0;
    mcts_clear(m); /* the marks are not a tree to reuse */
    return rc;
}

gk_action_t mcts_sample(const mcts_result_t *r, double temperature, uint64_t *rng) {
    if (r->nchildren <= 0) return GK_NO_ACTION;
    if (!(temperature > 0.0) || r->children[0].proof == MCTS_PROVEN_WIN) return r->best;
    double w[GK_MAX_ACTIONS], sum = 0.0, mx = 0.0;
    for (int i = 0; i < r->nchildren; i++) {
        const mcts_child_t *c = &r->children[i];
        w[i] = c->proof == MCTS_PROVEN_LOSS || c->visits == 0 ? -1.0 : log((double)c->visits);
        if (w[i] >= 0 && w[i] > mx) mx = w[i];
    }
    for (int i = 0; i < r->nchildren; i++) {
        w[i] = w[i] < 0 ? 0.0 : exp((w[i] - mx) / temperature);
        sum += w[i];
    }
    if (!(sum > 0.0)) return r->best;
    double x = rand01(rng) * sum;
    for (int i = 0; i < r->nchildren; i++) {
        if (x < w[i]) return r->children[i].action;
        x -= w[i];
    }
    return r->best;
}

/* ---- parameters by name: everything comes from the rows of MCTS_PARAMS and MCTS_LIMITS ---- */

#define PROW_(name, field, ctype, kind, lo, hi, def, choices, help)                                \
    {#name, MCTS_PK_##kind, false, offsetof(mcts_params_t, field), lo, hi, def, choices, help},
#define LROW_(name, field, ctype, kind, lo, hi, def, choices, help)                                \
    {#name, MCTS_PK_##kind, true, offsetof(mcts_limits_t, field), lo, hi, def, choices, help},
static const mcts_param_info_t rows[] = {MCTS_PARAMS(PROW_) MCTS_LIMITS(LROW_)};
#undef PROW_
#undef LROW_
#define NROWS ((int)(sizeof rows / sizeof rows[0]))
_Static_assert(sizeof rows / sizeof rows[0] <= 64, "mcts_config_t.set has 64 bits");
_Static_assert(MCTS_PAR_TREE == 0 && MCTS_PAR_ROOT == 1, "parallel=tree|root indices");
_Static_assert(MCTS_PLAYOUT_POLICY == 0 && MCTS_PLAYOUT_RANDOM == 1, "playout=policy|random");

int mcts_param_count(void) {
    return NROWS;
}

const mcts_param_info_t *mcts_param_at(int i) {
    return i >= 0 && i < NROWS ? &rows[i] : NULL;
}

int mcts_param_find(const char *name) {
    if (!strcmp(name, "temperature")) name = "prior_temperature";
    for (int i = 0; i < NROWS; i++)
        if (!strcmp(rows[i].name, name)) return i;
    return -1;
}

static uint64_t u64_max(double hi) {
    return hi >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)hi;
}

/* Stores x (already in range) into the field of row r in base. */
static void store(const mcts_param_info_t *r, void *base, double x, uint64_t u) {
    char *f = (char *)base + r->offset;
    switch (r->kind) {
    case MCTS_PK_FLOAT: *(float *)f = (float)x; break;
    case MCTS_PK_DOUBLE: *(double *)f = x; break;
    case MCTS_PK_INT:
    case MCTS_PK_ENUM: *(int *)f = (int)x; break;
    case MCTS_PK_U64: *(uint64_t *)f = u; break;
    case MCTS_PK_BOOL: *(bool *)f = x != 0; break;
    }
}

void mcts_params_default(mcts_params_t *p) {
    memset(p, 0, sizeof *p);
    for (int i = 0; i < NROWS; i++)
        if (!rows[i].limit) store(&rows[i], p, rows[i].def, (uint64_t)rows[i].def);
}

void mcts_limits_default(mcts_limits_t *l) {
    memset(l, 0, sizeof *l);
    for (int i = 0; i < NROWS; i++)
        if (rows[i].limit) store(&rows[i], l, rows[i].def, (uint64_t)rows[i].def);
}

/* Reads value for row r into its field.  0, or -1 with the reason in err. */
static int set_row(const mcts_param_info_t *r, void *base, const char *value, char *err,
                   size_t errcap) {
    double x = 0;
    uint64_t u = 0;
    long long n;
    bool b;
    int k;
    switch (r->kind) {
    case MCTS_PK_FLOAT:
    case MCTS_PK_DOUBLE:
        if (params_double(value, r->min, r->max, &x, err, errcap)) return -1;
        break;
    case MCTS_PK_INT:
        if (params_int(value, (long long)r->min, (long long)r->max, &n, err, errcap)) return -1;
        x = (double)n;
        break;
    case MCTS_PK_U64:
        if (params_u64(value, (uint64_t)r->min, u64_max(r->max), &u, err, errcap)) return -1;
        break;
    case MCTS_PK_BOOL:
        if (params_bool(value, &b, err, errcap)) return -1;
        x = b;
        break;
    case MCTS_PK_ENUM:
        if (params_choice(value, r->choices, &k, err, errcap)) return -1;
        x = k;
        break;
    }
    store(r, base, x, u);
    return 0;
}

int mcts_params_set(mcts_params_t *p, mcts_limits_t *l, const char *name, const char *value,
                    char *err, size_t errcap) {
    int i = mcts_param_find(name);
    if (i < 0 || (rows[i].limit && !l)) return 0;
    return set_row(&rows[i], rows[i].limit ? (void *)l : (void *)p, value, err, errcap) ? -1 : 1;
}

/* The value of row r's field in base as text ("1", "on", "tree"). */
static void value_text(const mcts_param_info_t *r, const void *base, char *buf, size_t cap) {
    const char *f = (const char *)base + r->offset;
    double x = 0;
    switch (r->kind) {
    case MCTS_PK_FLOAT: x = *(const float *)f; break;
    case MCTS_PK_DOUBLE: x = *(const double *)f; break;
    case MCTS_PK_INT:
    case MCTS_PK_ENUM: x = *(const int *)f; break;
    case MCTS_PK_BOOL: x = *(const bool *)f; break;
    case MCTS_PK_U64: snprintf(buf, cap, "%llu", (unsigned long long)*(const uint64_t *)f); return;
    }
    if (r->kind == MCTS_PK_BOOL) {
        snprintf(buf, cap, "%s", x != 0 ? "on" : "off");
    } else if (r->kind == MCTS_PK_ENUM) {
        const char *c = r->choices;
        for (int i = 0; i < (int)x && strchr(c, '|'); i++) c = strchr(c, '|') + 1;
        snprintf(buf, cap, "%.*s", (int)strcspn(c, "|"), c);
    } else {
        snprintf(buf, cap, "%g", x);
    }
}

int mcts_params_help(char *buf, size_t cap, const mcts_params_t *p, const mcts_limits_t *l) {
    mcts_params_t dp;
    mcts_limits_t dl;
    if (!p) mcts_params_default(&dp), p = &dp;
    if (!l) mcts_limits_default(&dl), l = &dl;
    size_t n = 0;
    for (int i = 0; i < NROWS; i++) {
        const mcts_param_info_t *r = &rows[i];
        char item[64], range[80] = "", lhs[96];
        value_text(r, r->limit ? (const void *)l : (const void *)p, item, sizeof item);
        snprintf(lhs, sizeof lhs, "%s=%s", r->name, item);
        if (r->kind == MCTS_PK_U64 && u64_max(r->max) == UINT64_MAX)
            snprintf(range, sizeof range, " [%g, 2^64-1]", r->min);
        else if (r->kind != MCTS_PK_BOOL && r->kind != MCTS_PK_ENUM)
            snprintf(range, sizeof range, " [%g, %g]", r->min, r->max);
        int k = snprintf(buf ? buf + (n < cap ? n : cap) : NULL, n < cap ? cap - n : 0,
                         "  %-20s %s%s\n", lhs, r->help, range);
        if (k > 0) n += (size_t)k;
    }
    return (int)n;
}

void mcts_config_init(mcts_config_t *c, const mcts_params_t *p, const mcts_limits_t *l) {
    if (p)
        c->p = *p;
    else
        mcts_params_default(&c->p);
    if (l)
        c->l = *l;
    else
        mcts_limits_default(&c->l);
    c->set = 0;
}

int mcts_config_set(mcts_config_t *c, const char *name, const char *value, char *err,
                    size_t errcap) {
    int i = mcts_param_find(name);
    if (i < 0) return 0;
    if (c->set >> i & 1)
        return gk_fail(err, errcap, GK_E_INVALID, "already set by an earlier option");
    int r = mcts_params_set(&c->p, &c->l, name, value, err, errcap);
    if (r > 0) c->set |= 1ull << i;
    return r;
}

static int config_item(void *ctx, const char *name, const char *value, char *err, size_t cap) {
    return mcts_config_set(ctx, name, value, err, cap);
}

int mcts_config_set_list(mcts_config_t *c, const char *list, char *err, size_t errcap) {
    return params_list(list, config_item, c, err, errcap);
}

bool mcts_config_isset(const mcts_config_t *c, const char *name) {
    int i = mcts_param_find(name);
    return i >= 0 && (c->set >> i & 1);
}

int mcts_config_finish(mcts_config_t *c, char *err, size_t errcap) {
    bool timed = mcts_config_isset(c, "time") || mcts_config_isset(c, "clock");
    if (timed && !mcts_config_isset(c, "playouts")) c->l.playouts = 0;
    /* A fixed time per move saves nothing by stopping early (see mcts.h, "Budgets"). */
    if (mcts_config_isset(c, "time") && !mcts_config_isset(c, "clock") &&
        !mcts_config_isset(c, "playouts") && !mcts_config_isset(c, "early_stop"))
        c->l.early_stop = false;
    /* Zero is "no limit of this kind": with every kind at zero (playouts=0 alone, time=0
     * alone) the search would quietly fall back to its default playouts. */
    if (c->l.playouts == 0 && c->l.time_s == 0 && c->l.clock_s == 0 && c->l.nodes == 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "no budget: playouts 0 and time 0 mean no limit; give playouts, time, "
                       "clock or nodes a positive value");
    return 0;
}
