/* search/turn.c -- complete moves from search results (see turn.h). */
#include "turn.h"

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

int turn_line_text(const gk_pos_t *ts, const gk_action_t *pre, int npre, const gk_action_t *line,
                   int n, gk_sb_t *sb) {
    const gk_game_t *g = gk_game_of(ts);
    gk_action_t seq[GK_MAX_TURN];
    gk_pos_t start = *ts, q = *ts;
    int k = 0, moves = 0;
    for (int i = 0; i < npre && k < GK_MAX_TURN; i++) {
        seq[k++] = pre[i];
        gk_play(&q, pre[i]);
    }
    char t[GK_MOVE_TEXT_MAX];
    for (int i = 0; i < n; i++) {
        if (gk_over(&q) || k >= GK_MAX_TURN || !gk_is_legal(&q, line[i])) break;
        seq[k++] = line[i];
        gk_play(&q, line[i]);
        if (q.in_turn != 0 && !gk_over(&q)) continue;
        if (g->move_text(&start, seq, k, t, sizeof t) < 0) return moves;
        gk_sb_printf(sb, "%s%s", moves ? " " : "", t);
        moves++;
        k = 0;
        start = q;
    }
    if (k > 0 && g->move_text(&start, seq, k, t, sizeof t) >= 0) {
        gk_sb_printf(sb, "%s%s", moves ? " " : "", t);
        moves++;
    }
    return moves;
}
