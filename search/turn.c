/* search/turn.c -- complete moves from search results (see turn.h). */
#include "turn.h"

#include <stdio.h>
#include <string.h>

int turn_from_result(const gk_pos_t *p, const mcts_result_t *r, gk_action_t *seq, int cap,
                     bool *complete) {
    *complete = false;
    if (r->best == GK_NO_ACTION || cap < 1 || gk_over(p)) return 0;
    gk_pos_t q = *p;
    int n = 0;
    seq[n++] = r->best;
    gk_play(&q, r->best);
    /* The PV starts with the best action when the search agrees with itself; otherwise
     * (a proven best that is not the most visited) only the best action is known. */
    int i = r->pv_len > 0 && r->pv[0] == r->best ? 1 : r->pv_len;
    while (q.in_turn != 0 && !gk_over(&q) && i < r->pv_len && n < cap) {
        if (!gk_is_legal(&q, r->pv[i])) break;
        seq[n++] = r->pv[i];
        gk_play(&q, r->pv[i++]);
    }
    *complete = q.in_turn == 0 || gk_over(&q);
    return n;
}

/* Ends the turn of q (in the middle of it) with the policy's choices: a winning action,
 * else the highest logit.  The line did not reach that far. */
static void end_turn(gk_pos_t *q, turn_move_t *mv, const ev_weights_t *w) {
    gk_action_t acts[GK_MAX_ACTIONS];
    float logits[GK_MAX_ACTIONS];
    uint8_t outc[GK_MAX_ACTIONS];
    while (q->in_turn != 0 && !gk_over(q) && mv->n < GK_MAX_TURN) {
        int n = gk_gen(q, acts), b = 0;
        if (n <= 0) break;
        ev_policy_logits(w, q, acts, n, logits, outc);
        for (int i = 1; i < n; i++)
            if ((outc[i] == EV_CHILD_WIN) > (outc[b] == EV_CHILD_WIN) ||
                ((outc[i] == EV_CHILD_WIN) == (outc[b] == EV_CHILD_WIN) && logits[i] > logits[b]))
                b = i;
        mv->seq[mv->n++] = acts[b];
        mv->policy++;
        gk_play(q, acts[b]);
    }
}

/* Plays line[*i..n) into mv at q while legal and the same side is to move.  Returns true
 * when the move ended its turn (or the game), false when the line ran out or stopped. */
static bool take_move(gk_pos_t *q, const gk_action_t *line, int n, int *i, turn_move_t *mv) {
    while (*i < n && !gk_over(q) && mv->n < GK_MAX_TURN && gk_is_legal(q, line[*i])) {
        mv->seq[mv->n++] = line[*i];
        gk_play(q, line[(*i)++]);
        if (q->in_turn == 0 || gk_over(q)) return true;
    }
    return false;
}

int turn_moves(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line, int n,
               const ev_weights_t *w, turn_move_t *out, int cap) {
    const gk_game_t *g = gk_game_of(ts);
    gk_pos_t start = *ts, q = *ts;
    turn_move_t cur = {.n = 0};
    for (int j = 0; j < npre && cur.n < GK_MAX_TURN; j++) {
        cur.seq[cur.n++] = pre[j];
        gk_play(&q, pre[j]);
    }
    int k = 0, i = 0;
    while (k < cap) {
        bool ended = take_move(&q, line, n, &i, &cur);
        if (!ended && w && i == n) end_turn(&q, &cur, w);
        if (cur.n == 0) break;
        turn_move_t *mv = &out[k++];
        memcpy(mv->seq, cur.seq, (size_t)cur.n * sizeof *cur.seq);
        mv->n = cur.n;
        mv->policy = cur.policy;
        if (g->move_text(&start, cur.seq, cur.n, mv->text, sizeof mv->text) < 0)
            snprintf(mv->text, sizeof mv->text, "?");
        if (!ended) break; /* the line ran out, or its next action is not legal here */
        start = q;
        cur.n = cur.policy = 0;
    }
    return k;
}

int turn_line_text(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line,
                   int n, gk_sb_t *sb) {
    turn_move_t mv[MCTS_MAX_PV];
    int k = turn_moves(ts, pre, npre, line, n, NULL, mv, MCTS_MAX_PV), moves = 0;
    while (moves < k && strcmp(mv[moves].text, "?")) {
        gk_sb_printf(sb, "%s%s", moves ? " " : "", mv[moves].text);
        moves++;
    }
    return moves;
}
