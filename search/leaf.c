/*
 * search/leaf.c -- shallow alpha-beta, quiescence and win/loss proofs (see leaf.h).
 *
 * Values are win probabilities for the side to move, so negamax is v -> 1 - v and the
 * window (alpha, beta) becomes (1 - beta, 1 - alpha) one action down.  Exits and captures are
 * read from the Gounki action bits (games/gounki.h), which costs no play(); other games
 * get the full-width part only.
 */
#include "leaf.h"

#include "../games/gobs.h"
#include "../games/gounki.h"

/* Exact value of a finished position for its side to move. */
static float over_value(const gk_pos_t *p) {
    int r = gk_result_for(p, p->stm);
    return r > 0 ? 1.0f : r < 0 ? 0.0f : 0.5f;
}

static int any_exit(const gk_action_t *acts, int n) {
    for (int i = 0; i < n; i++)
        if (gounki_act_exits(acts[i])) return 1;
    return 0;
}

/* Could colour c have an exit at all?  A stack moves or deploys at most its size (<= 3)
 * steps, each at most one rank forward, so only a stack within its size of the far edge
 * can leave: a test on the bitboards that spares most generator calls. */
static int may_exit(const gk_pos_t *p, int c) {
    uint64_t zone = c == GK_WHITE ? 0xFFFFFF0000000000ull : 0x0000000000FFFFFFull;
    for (uint64_t bb = gounki_occ(p, c) & zone; bb; bb &= bb - 1) {
        int sq = __builtin_ctzll(bb);
        if (gounki_rel_rank(sq, c) + gounki_size(p, sq) >= 8) return 1;
    }
    return 0;
}

/* Does action a (of the side to move c, not an exit) leave one of its stacks within exit
 * range (see may_exit), on a square it moved to or dropped on?  Read from the action and
 * the cells before it, without playing it. */
static int makes_threat(const gk_pos_t *p, gk_action_t a, int c) {
    int from = gounki_act_from(a);
    if (!gounki_act_is_deploy(a)) {
        int to = gounki_act_to(a);
        int size = gounki_size(p, from) + (gounki_act_stacks(a) ? gounki_size(p, to) : 0);
        return gounki_rel_rank(to, c) + size >= 8;
    }
    for (int i = 0; i < gounki_act_ndrops(a); i++) {
        int sq = gounki_act_drop(a, i);
        int size = 1 + (gounki_owner(p, sq) == c ? gounki_size(p, sq) : 0);
        if (gounki_rel_rank(sq, c) + size >= 8) return 1;
    }
    return 0;
}

/* Could the opponent of the side to move exit if it were to move now?  (A Gounki turn is
 * one action, so handing the move over is just the other colour's generator.) */
static int threatened(const gk_pos_t *p) {
    if (!may_exit(p, p->stm ^ 1)) return 0;
    gk_pos_t q = *p;
    q.stm ^= 1;
    gk_action_t acts[GK_MAX_ACTIONS];
    return any_exit(acts, gk_gen(&q, acts));
}

/* Does every action leave the opponent an exit?  (The last quiescence action under a threat.) */
static int all_leave_exit(const gk_pos_t *p, const gk_action_t *acts, int n) {
    gk_action_t reply[GK_MAX_ACTIONS];
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, acts[i]);
        if (gk_over(&q) || !may_exit(&q, q.stm)) return 0;
        if (!any_exit(reply, gk_gen(&q, reply))) return 0;
    }
    return 1;
}

static float quiesce(const ev_weights_t *w, const gk_pos_t *p, int qd, int threats, float alpha,
                     float beta) {
    if (gk_over(p)) return over_value(p);
    /* Standing pat needs neither an own exit nor an exit threat: most quiescence nodes end
     * there, after two bitboard tests and one evaluation, without listing their actions
     * (a position with no legal action, lost, is then only seen by the tree). */
    gk_action_t acts[GK_MAX_ACTIONS];
    int n = -1;
    if (may_exit(p, p->stm)) {
        n = gk_gen(p, acts);
        if (any_exit(acts, n)) return 1.0f;
    }
    int forced = threatened(p);
    float best = -1.0f;
    if (!forced) {
        best = ev_value(w, p);
        if (qd == 0 || best >= beta) return best;
        if (best > alpha) alpha = best;
    }
    if (n < 0) n = gk_gen(p, acts);
    if (n == 0) return 0.0f;
    if (forced && qd == 0) return all_leave_exit(p, acts, n) ? 0.0f : ev_value(w, p);
    for (int i = 0; i < n; i++) {
        if (!forced && !gounki_act_captures(acts[i]) &&
            !(threats && makes_threat(p, acts[i], p->stm)))
            continue;
        gk_pos_t q = *p;
        gk_play(&q, acts[i]);
        float v = 1.0f - quiesce(w, &q, qd - 1, threats, 1.0f - beta, 1.0f - alpha);
        if (v > best) best = v;
        if (best >= beta) break;
        if (best > alpha) alpha = best;
    }
    return best;
}

int leaf_gobs_win(const gk_pos_t *p, gk_action_t *first) {
    *first = GK_NO_ACTION;
    if (p->game != GK_GAME_GOBS || gk_over(p)) return 0;
    const int need = gobs_count(p, p->stm ^ 1) - (GOBS_LIMIT - 1);
    if (need <= 0) { /* mid-turn, the opponent already below the limit */
        *first = GOBS_STOP;
        return 1;
    }
    long budget = LEAF_GOBS_LEGS;
    return gobs_chain_flips(p, need, &budget, first) >= need ? need + 1 : 0;
}

/* Gobs: a side whose jump chain can leave the opponent below GOBS_LIMIT wins this turn, the
 * game's counterpart of a Gounki exit. */
static float gobs_horizon(const ev_weights_t *w, const gk_pos_t *p) {
    gk_action_t first;
    return leaf_gobs_win(p, &first) ? 1.0f : ev_value(w, p);
}

static float horizon(const ev_weights_t *w, const gk_pos_t *p, int qd, int threats, float alpha,
                     float beta) {
    if (qd > 0 && p->game == GK_GAME_GOUNKI) return quiesce(w, p, qd, threats, alpha, beta);
    if (qd > 0 && p->game == GK_GAME_GOBS) return gobs_horizon(w, p);
    return ev_value(w, p);
}

static float negamax(const ev_weights_t *w, const gk_pos_t *p, int d, int qd, int threats,
                     float alpha, float beta) {
    if (gk_over(p)) return over_value(p);
    if (d == 0) return horizon(w, p, qd, threats, alpha, beta);
    gk_action_t acts[GK_MAX_ACTIONS];
    int n = gk_gen(p, acts);
    if (n == 0) return 0.0f;
    if (p->game == GK_GAME_GOUNKI && any_exit(acts, n)) return 1.0f;
    float best = -1.0f;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, acts[i]);
        /* A Gobs action that keeps the turn is scored from the same side. */
        float v = q.stm == p->stm
                      ? negamax(w, &q, d - 1, qd, threats, alpha, beta)
                      : 1.0f - negamax(w, &q, d - 1, qd, threats, 1.0f - beta, 1.0f - alpha);
        if (v > best) best = v;
        if (best >= beta) break;
        if (best > alpha) alpha = best;
    }
    return best;
}

/* Win/loss-only negamax for leaf_prove(): 1, -1 or 0 (not proven) for the side to move,
 * fail-soft in the integer window (alpha, beta).  1 and -1 are exact whatever the window
 * (they are the ends of the range, so neither is ever a bound), 0 only says "not a win"
 * below alpha or "not a loss" above beta: a search that only needs to know whether a
 * node is lost stops at its first action that is not. */
static int prove(const gk_pos_t *p, int d, int alpha, int beta, int *len) {
    if (gk_over(p)) {
        int r = gk_result_for(p, p->stm);
        *len = 0;
        return r > 0 ? 1 : r < 0 ? -1 : 0;
    }
    int gounki = p->game == GK_GAME_GOUNKI;
    /* At the horizon only an own exit counts: a bitboard test spares the generator. */
    if (d == 0 && (!gounki || !may_exit(p, p->stm))) return 0;
    gk_action_t acts[GK_MAX_ACTIONS];
    int n = gk_gen(p, acts);
    if (n == 0) {
        *len = 0;
        return -1;
    }
    if (gounki && any_exit(acts, n)) {
        *len = 1;
        return 1;
    }
    if (d == 0) return 0;
    int best = -1, longest = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, acts[i]);
        int l = 0;
        int v = q.stm == p->stm ? prove(&q, d - 1, alpha, beta, &l)
                                : -prove(&q, d - 1, -beta, -alpha, &l);
        if (v == 1) {
            *len = l + 1;
            return 1;
        }
        if (v < 0) {
            if (l + 1 > longest) longest = l + 1;
            continue;
        }
        best = 0;
        if (best >= beta) return 0;
        if (best > alpha) alpha = best;
    }
    if (best < 0) *len = longest;
    return best;
}

int leaf_prove(const gk_pos_t *p, int depth, int *len) {
    int l = 0;
    if (depth < 0) depth = 0;
    if (depth > LEAF_MAX_DEPTH) depth = LEAF_MAX_DEPTH;
    int r = prove(p, depth, -1, 1, &l);
    if (len) *len = r ? l : 0;
    return r;
}

float leaf_search_value(const ev_weights_t *w, const gk_pos_t *p, int depth, int qdepth,
                        int threats) {
    if (depth < 0) depth = 0;
    if (qdepth < 0) qdepth = 0;
    if (depth + qdepth > LEAF_MAX_DEPTH) qdepth = LEAF_MAX_DEPTH - depth;
    if (qdepth < 0) depth = LEAF_MAX_DEPTH, qdepth = 0;
    return negamax(w, p, depth, qdepth, threats, 0.0f, 1.0f);
}
