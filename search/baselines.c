/* search/baselines.c -- random, greedy and alpha-beta players (see baselines.h). */
#include "baselines.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../eval/classic.h"
#include "../common/clock.h"

#define WIN_BOUND (BL_WIN - 10000) /* scores beyond this are proven wins or losses */

int bl_eval_points(const bl_eval_t *e, const gk_pos_t *p) {
    assert(!gk_over(p)); /* finished positions score by final_score() */
    if (e->kind == BL_EVAL_CLASSIC) return classic_eval(p);
    float scale = e->w.scale > 0 ? e->w.scale : 1.0f;
    float pts = ev_logit(&e->w, p) / scale;
    if (pts > WIN_BOUND / 2) pts = WIN_BOUND / 2;
    if (pts < -WIN_BOUND / 2) pts = -WIN_BOUND / 2;
    return (int)lrintf(pts);
}

double bl_points_to_prob(const bl_eval_t *e, int points) {
    if (points >= WIN_BOUND) return 1.0;
    if (points <= -WIN_BOUND) return 0.0;
    /* Classic: one square (100 points) ahead is worth about a 62% chance. */
    double k = e->kind == BL_EVAL_OURS && e->w.scale > 0 ? e->w.scale : 0.005;
    return 1.0 / (1.0 + exp(-k * points));
}

gk_action_t bl_random(const gk_pos_t *p, uint64_t seed) {
    gk_action_t list[GK_MAX_ACTIONS];
    if (gk_over(p)) return GK_NO_ACTION;
    int n = gk_gen(p, list);
    if (n <= 0) return GK_NO_ACTION;
    uint64_t st = seed;
    return list[gk_splitmix64(&st) % (uint64_t)n];
}

/* Score of a finished position for `side`, d actions from the root. */
static int final_score(const gk_pos_t *q, int side, int d) {
    int r = gk_result_for(q, side);
    return r > 0 ? BL_WIN - d : r < 0 ? -(BL_WIN - d) : 0;
}

gk_action_t bl_greedy(const bl_eval_t *e, const gk_pos_t *p, uint64_t seed, int *score) {
    gk_action_t list[GK_MAX_ACTIONS];
    if (gk_over(p)) return GK_NO_ACTION;
    int n = gk_gen(p, list);
    if (n <= 0) return GK_NO_ACTION;
    uint64_t st = seed;
    int best = INT32_MIN, ties = 0;
    gk_action_t pick = GK_NO_ACTION;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        int s;
        if (gk_over(&q)) {
            s = final_score(&q, p->stm, 1);
        } else {
            s = bl_eval_points(e, &q);
            if (q.stm != p->stm) s = -s;
        }
        if (s > best) {
            best = s;
            pick = list[i];
            ties = 1;
        } else if (s == best) {
            /* Reservoir choice among the ties: uniform, one draw per tie. */
            ties++;
            if (gk_splitmix64(&st) % (uint64_t)ties == 0) pick = list[i];
        }
    }
    assert(pick != GK_NO_ACTION); /* n > 0: the first action always beats INT32_MIN */
    if (score) *score = best;
    return pick;
}

/* ---- alpha-beta ---- */

enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct tt_entry {
    uint64_t key;
    gk_action_t move;
    int32_t score;
    int16_t depth;
    uint8_t flag;
} tt_entry_t;

#define HISTORY_SIZE 8192

struct ab_search {
    bl_eval_t eval;
    tt_entry_t *tt;
    uint64_t tt_mask;
    int history[HISTORY_SIZE];
    gk_action_t killer[AB_MAX_DEPTH + 1][2];
    /* Per-dist move lists and ordering keys: a Gobs node can have ~1000 actions, too many
     * for the stack of a deep recursion. */
    gk_action_t acts[AB_MAX_DEPTH + 1][GK_MAX_ACTIONS];
    int64_t keys[AB_MAX_DEPTH + 1][GK_MAX_ACTIONS];
    uint64_t path[AB_MAX_DEPTH + 2]; /* hashes of turn-boundary positions on the path */
    const gk_hist_t *hist;
    uint64_t nodes;
    double deadline; /* 0 = none */
    int stop;
    gk_action_t root_best;
    int root_best_score;
    int root_done; /* root moves fully searched in the current iteration */
    int plain;     /* ab_limits_t.plain: values from the search alone (no table values) */
    int order;     /* move ordering (and the table's move as a hint); plain: unless literal */
    /* plain: the triangular principal variation, pvt[dist] the line from dist on */
    gk_action_t pvt[AB_MAX_DEPTH + 2][AB_MAX_PV];
    int pvn[AB_MAX_DEPTH + 2];
};

ab_search_t *ab_new(const bl_eval_t *e, size_t tt_mb) {
    ab_search_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (tt_mb == 0) tt_mb = 16;
    uint64_t n = 1;
    while (n * 2 * sizeof(tt_entry_t) <= (uint64_t)tt_mb << 20) n *= 2;
    s->tt = calloc(n, sizeof(tt_entry_t));
    if (!s->tt) {
        free(s);
        return NULL;
    }
    s->tt_mask = n - 1;
    s->eval = *e;
    return s;
}

void ab_free(ab_search_t *s) {
    if (!s) return;
    free(s->tt);
    free(s);
}

void ab_clear(ab_search_t *s) {
    memset(s->tt, 0, (s->tt_mask + 1) * sizeof(tt_entry_t));
    memset(s->history, 0, sizeof s->history);
    memset(s->killer, 0, sizeof s->killer);
}

static unsigned hist_slot(gk_action_t a, int stm) {
    return (unsigned)(((uint64_t)a * 0x9E3779B97F4A7C15ull + (uint64_t)stm) >> 51) &
           (HISTORY_SIZE - 1);
}

/* Mate scores are stored relative to the node so that they stay right wherever the
 * position is met again. */
static int to_tt(int v, int dist) {
    return v > WIN_BOUND ? v + dist : v < -WIN_BOUND ? v - dist : v;
}
static int from_tt(int v, int dist) {
    return v > WIN_BOUND ? v - dist : v < -WIN_BOUND ? v + dist : v;
}

static int repeated(const ab_search_t *s, const gk_pos_t *q, int dist) {
    for (int i = 0; i <= dist; i++)
        if (s->path[i] == q->hash) return 1;
    return s->hist && gk_hist_count(s->hist, q->hash) > 0;
}

/* The line at dist becomes a followed by the line of the child (plain searches). */
static void pv_update(ab_search_t *s, int dist, gk_action_t a) {
    int m = s->pvn[dist + 1];
    if (m > AB_MAX_PV - 1) m = AB_MAX_PV - 1;
    s->pvt[dist][0] = a;
    memcpy(&s->pvt[dist][1], s->pvt[dist + 1], (size_t)m * sizeof(gk_action_t));
    s->pvn[dist] = m + 1;
}

static int negamax(ab_search_t *s, const gk_pos_t *p, int depth, int alpha, int beta, int dist);

/* The value of q (reached from p by one action) for p's side to move, window (lo, hi). */
static int child(ab_search_t *s, const gk_pos_t *p, const gk_pos_t *q, int depth, int lo, int hi,
                 int dist) {
    if (q->stm == p->stm) return negamax(s, q, depth - 1, lo, hi, dist + 1);
    return -negamax(s, q, depth - 1, -hi, -lo, dist + 1);
}

static int negamax(ab_search_t *s, const gk_pos_t *p, int depth, int alpha, int beta, int dist) {
    /* acts[dist], keys[dist], killer[dist] and path[dist + 1] have room up to AB_MAX_DEPTH;
     * callers never recurse into a finished position. */
    assert(dist >= 0 && dist <= AB_MAX_DEPTH && !gk_over(p));
    assert(alpha < beta);
    s->nodes++;
    s->pvn[dist] = 0;
    if (s->deadline > 0 && (s->nodes & 1023) == 0 && gk_now_s() >= s->deadline) s->stop = 1;
    if (s->stop) return 0;
    if (depth <= 0 || dist >= AB_MAX_DEPTH) return bl_eval_points(&s->eval, p);

    int alpha0 = alpha;
    tt_entry_t *te = &s->tt[p->hash & s->tt_mask];
    gk_action_t ttmove = GK_NO_ACTION;
    if (s->order && te->key == p->hash) {
        ttmove = te->move;
        int v = from_tt(te->score, dist);
        if (!s->plain && dist > 0 && te->depth >= depth &&
            (te->flag == TT_EXACT || (te->flag == TT_LOWER && v >= beta) ||
             (te->flag == TT_UPPER && v <= alpha)))
            return v;
    }

    gk_action_t *acts = s->acts[dist];
    int64_t *keys = s->keys[dist];
    int n = gk_gen(p, acts);
    if (n <= 0) return -(BL_WIN - dist); /* no legal action: the side to move loses */

    /* Move ordering: the table's move, killers, history; near the root (depth >= 2) the
     * static value of each child, which pays for itself in cut-offs.  Literal: none. */
    for (int i = 0; i < n && s->order; i++) {
        gk_action_t a = acts[i];
        int64_t k = s->history[hist_slot(a, p->stm)];
        if (a == ttmove)
            k = INT64_C(1) << 60;
        else if (a == s->killer[dist][0])
            k += INT64_C(1) << 40;
        else if (a == s->killer[dist][1])
            k += INT64_C(1) << 39;
        if (depth >= 2 && a != ttmove) {
            gk_pos_t q = *p;
            gk_play(&q, a);
            int v;
            if (gk_over(&q))
                v = final_score(&q, p->stm, dist + 1);
            else
                v = q.stm == p->stm ? bl_eval_points(&s->eval, &q) : -bl_eval_points(&s->eval, &q);
            k += (int64_t)v * (INT64_C(1) << 20);
        }
        keys[i] = k;
    }

    int best = INT32_MIN;
    gk_action_t bestmove = GK_NO_ACTION;
    for (int i = 0; i < n; i++) {
        if (s->order) {
            int j = i;
            for (int k = i + 1; k < n; k++)
                if (keys[k] > keys[j]) j = k;
            gk_action_t t = acts[j];
            acts[j] = acts[i];
            keys[j] = keys[i];
            acts[i] = t;
        }
        gk_action_t a = acts[i];

        gk_pos_t q = *p;
        gk_play(&q, a);
        int v;
        s->pvn[dist + 1] = 0;
        if (gk_over(&q)) {
            v = final_score(&q, p->stm, dist + 1);
        } else if (q.in_turn == 0 && repeated(s, &q, dist)) {
            v = 0;
        } else {
            s->path[dist + 1] = q.in_turn == 0 ? q.hash : 0;
            /* Plain, ordered: after the first action a null window, and the full one only
             * for an action that beats alpha (principal variation search). */
            int lo = alpha,
                hi = s->plain && s->order && i > 0 && alpha + 1 < beta ? alpha + 1 : beta;
            v = child(s, p, &q, depth, lo, hi, dist);
            if (hi < beta && v > lo && !s->stop) v = child(s, p, &q, depth, lo, beta, dist);
        }
        if (s->stop) return 0;
        if (dist == 0) s->root_done++;
        if (v > best) {
            best = v;
            bestmove = a;
            if (dist == 0) s->root_best = a, s->root_best_score = v;
        }
        if (v > alpha) {
            alpha = v;
            if (s->plain) pv_update(s, dist, a);
        }
        if (alpha >= beta && !s->order) break;
        if (alpha >= beta) {
            unsigned h = hist_slot(a, p->stm);
            if (s->history[h] < (1 << 28)) s->history[h] += depth * depth;
            if (s->killer[dist][0] != a) {
                s->killer[dist][1] = s->killer[dist][0];
                s->killer[dist][0] = a;
            }
            break;
        }
    }

    assert(bestmove != GK_NO_ACTION && best > INT32_MIN);
    if (!s->order) return best;
    /* Plain: the move is a hint for the next iteration; the score is never read. */
    te->key = p->hash;
    te->move = bestmove;
    te->score = to_tt(best, dist);
    te->depth = (int16_t)depth;
    te->flag = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
    return best;
}

/* The value of root action a for the side to move of p, searched to `depth` with the
 * window (lo, hi) at dist 0 (exact inside it, a bound outside). */
static int root_child(ab_search_t *s, const gk_pos_t *p, gk_action_t a, int depth, int lo, int hi) {
    gk_pos_t q = *p;
    gk_play(&q, a);
    if (gk_over(&q)) return final_score(&q, p->stm, 1);
    if (q.in_turn == 0 && repeated(s, &q, 0)) return 0;
    s->path[1] = q.in_turn == 0 ? q.hash : 0;
    return child(s, p, &q, depth, lo, hi, 0);
}

/* ab_limits_t.top_k: the K best root actions, exactly scored, into out->top[]. */
static void rank_root(ab_search_t *s, const gk_pos_t *p, int depth, int k, int floor,
                      ab_result_t *out) {
    gk_action_t *acts = s->acts[0]; /* the children use acts[1..] */
    int n = gk_gen(p, acts);
    if (k > AB_MAX_TOP) k = AB_MAX_TOP;
    out->ntop = 0;
    for (int i = 0; i < n; i++) {
        int lo = out->ntop >= k && out->top_score[k - 1] > floor ? out->top_score[k - 1] : floor;
        int v = root_child(s, p, acts[i], depth, lo, BL_WIN + 1);
        if (s->stop) break;
        if (v <= lo) continue;
        /* After the earlier actions of equal score (ties go to gen() order). */
        int at = out->ntop < k ? out->ntop : k - 1;
        while (at > 0 && out->top_score[at - 1] < v) {
            out->top[at] = out->top[at - 1];
            out->top_score[at] = out->top_score[at - 1];
            at--;
        }
        out->top[at] = acts[i];
        out->top_score[at] = v;
        if (out->ntop < k) out->ntop++;
    }
}

/* ab_limits_t.plain with ordering: the move and score of the literal search, which
 * returns the first action in gen() order of the largest exact score at maxd.  Ordered
 * iterations to maxd - 1 give the hints; values come from the searches alone (none from
 * the table: a repetition on the path makes them depend on it), so every score is the
 * literal one; the root takes the hint first and ties by gen() order.  Under a deadline:
 * the deepest result. */
static void deepen(ab_search_t *s, const gk_pos_t *p, int maxd, gk_action_t *best, int *score,
                   ab_result_t *out);

static void plain_search(ab_search_t *s, const gk_pos_t *p, int maxd, gk_action_t *best, int *score,
                         ab_result_t *out) {
    s->root_best = GK_NO_ACTION;
    s->root_done = 0;
    if (!s->order) {
        int v = negamax(s, p, maxd, -BL_WIN - 1, BL_WIN + 1, 0);
        if (!s->stop || s->root_done > 0) *best = s->root_best;
        *score = s->stop ? s->root_best_score : v;
        if (!s->stop) out->depth = maxd;
        return;
    }
    gk_action_t hint = GK_NO_ACTION;
    if (maxd > 1) {
        deepen(s, p, maxd - 1, best, score, out);
        out->depth = 0; /* the fixed depth alone counts */
        if (s->stop) return;
        hint = *best;
    }
    /* The hint first, exactly; then the others in gen() order, each asked "at least the
     * best score so far?" (window (cur - 1, cur)) and scored exactly only when it is. */
    gk_action_t *acts = s->acts[0]; /* the children use acts[1..] */
    int n = gk_gen(p, acts), first = 0, cur_i = -1, cur = 0;
    for (int i = 0; i < n; i++)
        if (acts[i] == hint) first = i;
    for (int k = 0; k < n; k++) {
        int i = k == 0 ? first : k <= first ? k - 1 : k;
        s->pvn[1] = 0;
        int v = root_child(s, p, acts[i], maxd, cur_i < 0 ? -BL_WIN - 1 : cur - 1,
                           cur_i < 0 ? BL_WIN + 1 : cur);
        if (s->stop) break;
        if (cur_i >= 0 && v < cur) continue;
        if (cur_i >= 0) {
            s->pvn[1] = 0;
            v = root_child(s, p, acts[i], maxd, cur - 1, BL_WIN + 1);
            if (s->stop) break;
        }
        if (cur_i < 0 || v > cur || (v == cur && i < cur_i)) {
            cur = v, cur_i = i;
            pv_update(s, 0, acts[i]);
        }
    }
    if (cur_i < 0) return; /* stopped in the first action: the hint stands */
    *best = acts[cur_i];
    *score = cur;
    if (!s->stop) out->depth = maxd;
}

/* Iterative deepening from depth 1 to maxd; the best action and its score of the
 * deepest finished iteration (or the better part of an unfinished one) into *best and
 * *score, the depth finished into out->depth.  Stops at a proven score. */
static void deepen(ab_search_t *s, const gk_pos_t *p, int maxd, gk_action_t *best, int *score,
                   ab_result_t *out) {
    for (int d = 1; d <= maxd; d++) {
        s->root_best = GK_NO_ACTION;
        s->root_done = 0;
        int v = negamax(s, p, d, -BL_WIN - 1, BL_WIN + 1, 0);
        if (s->stop) {
            /* The first root move searched is the previous best (the table's move), so
             * any move that beat it in the unfinished iteration is a real improvement. */
            if (s->root_done > 0 && s->root_best != GK_NO_ACTION) *best = s->root_best;
            break;
        }
        *best = s->root_best;
        *score = v;
        out->depth = d;
        if (v > WIN_BOUND || v < -WIN_BOUND) break; /* proven: deeper cannot change it */
    }
}

int ab_search(ab_search_t *s, const gk_pos_t *p, const gk_hist_t *h, const ab_limits_t *lim,
              ab_result_t *out) {
    memset(out, 0, sizeof *out);
    assert(s && lim && lim->depth >= 0 && lim->top_k >= 0);
    if (gk_over(p)) return -1;
    double t0 = gk_now_s();
    int maxd = lim->depth > 0 && lim->depth < AB_MAX_DEPTH ? lim->depth : AB_MAX_DEPTH;
    s->hist = h;
    s->nodes = 0;
    s->stop = 0;
    s->plain = lim->plain;
    s->order = !lim->plain || !lim->literal;
    s->deadline = lim->time_s > 0 ? t0 + lim->time_s : 0;
    s->path[0] = p->in_turn == 0 ? p->hash : 0;
    memset(s->killer, 0, sizeof s->killer);

    gk_action_t best = GK_NO_ACTION;
    int score = 0;
    if (lim->top_k > 0) {
        if (s->order && maxd > 1) deepen(s, p, maxd - 1, &best, &score, out);
        if (s->plain && !s->stop) {
            /* The iterations were hints: the literal search's result is rank_root's. */
            best = GK_NO_ACTION, score = 0, out->depth = 0;
        }
        int floor = lim->floor_set && lim->floor > -BL_WIN - 1 ? lim->floor : -BL_WIN - 1;
        if (floor > BL_WIN - 1) floor = BL_WIN - 1;
        if (!s->stop) rank_root(s, p, maxd, lim->top_k, floor, out);
        if (out->ntop > 0) {
            uint64_t st = lim->seed;
            int i = lim->randomize ? (int)(gk_splitmix64(&st) % (uint64_t)out->ntop) : 0;
            best = out->top[i];
            score = out->top_score[i];
            if (!s->stop) out->depth = maxd;
        }
    } else if (s->plain) {
        plain_search(s, p, maxd, &best, &score, out);
    } else {
        deepen(s, p, maxd, &best, &score, out);
    }
    if (best == GK_NO_ACTION) {
        /* Stopped before the first move of depth 1 finished: any legal move will do. */
        gk_action_t list[GK_MAX_ACTIONS];
        int n = gk_gen(p, list);
        best = n > 0 ? list[0] : GK_NO_ACTION;
        score = n > 0 ? 0 : -BL_WIN;
    }
    out->best = best;
    out->score = score;
    out->nodes = s->nodes;
    out->seconds = gk_now_s() - t0;

    if (s->plain && lim->top_k == 0 && s->pvn[0] > 0 && s->pvt[0][0] == best) {
        out->npv = s->pvn[0];
        memcpy(out->pv, s->pvt[0], (size_t)out->npv * sizeof(gk_action_t));
        return 0;
    }
    /* Principal variation: the table's moves from the root, checked for legality since
     * a slot may have been overwritten by another position with the same index. */
    gk_pos_t q = *p;
    gk_action_t a = best;
    while (out->npv < AB_MAX_PV && a != GK_NO_ACTION && !gk_over(&q) && gk_is_legal(&q, a)) {
        out->pv[out->npv++] = a;
        gk_play(&q, a);
        if (s->plain) break;
        tt_entry_t *te = &s->tt[q.hash & s->tt_mask];
        a = te->key == q.hash ? te->move : GK_NO_ACTION;
    }
    return 0;
}
