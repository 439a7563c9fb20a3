/* cli/record_out.c -- text game records (see record_out.h). */
#include "record_out.h"

#include <string.h>

/* Tag values are quoted: a '"' or '\\' inside becomes '\'' so the header stays one token. */
static void tag(FILE *f, const char *name, const char *value) {
    if (!value) return;
    fprintf(f, "[%s \"", name);
    for (const char *s = value; *s; s++) fputc(*s == '"' || *s == '\\' ? '\'' : *s, f);
    fprintf(f, "\"]\n");
}

static int same_as_setup(const gk_pos_t *p) {
    const gk_game_t *g = gk_game_of(p);
    gk_rules_t r = {p->game, p->variant, p->max_plies};
    gk_pos_t s;
    g->setup(&s, &r);
    return s.hash == p->hash && s.ply == p->ply && s.stm == p->stm &&
           !memcmp(s.b.cell, p->b.cell, sizeof s.b.cell);
}

int record_write_game(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                      gk_result_t result, gk_reason_t reason, const char *event, const char *round,
                      const char *white, const char *black) {
    const gk_game_t *g = gk_game_of(start);
    tag(f, "Game", g->name);
    tag(f, "Variant", g->variants[start->variant]);
    tag(f, "Event", event);
    tag(f, "Round", round);
    tag(f, "White", white);
    tag(f, "Black", black);
    if (!same_as_setup(start)) {
        char pos[GK_POS_TEXT_MAX];
        if (g->pos_to_text(start, pos, sizeof pos) < 0) return -1;
        tag(f, "Position", pos);
    }
    tag(f, "Result", gk_result_text(result));
    if (result != GK_ONGOING) tag(f, "Termination", gk_reason_text(reason));
    fputc('\n', f);

    gk_pos_t p = *start, turn = *start;
    gk_action_t seq[GK_MAX_TURN];
    int k = 0, col = 0, first = 1;
    for (int i = 0; i < n; i++) {
        if (gk_over(&p) || k >= GK_MAX_TURN) return -1;
        gk_action_t list[GK_MAX_ACTIONS];
        int m = gk_gen(&p, list), ok = 0;
        for (int j = 0; j < m && !ok; j++) ok = list[j] == acts[i];
        if (!ok) return -1;
        seq[k++] = acts[i];
        gk_play(&p, acts[i]);
        if (p.in_turn != 0 && !gk_over(&p)) continue;
        char mv[GK_MOVE_TEXT_MAX], num[32] = "";
        if (g->move_text(&turn, seq, k, mv, sizeof mv) < 0) return -1;
        if (turn.stm == GK_WHITE)
            snprintf(num, sizeof num, "%d. ", turn.ply / 2 + 1);
        else if (first)
            snprintf(num, sizeof num, "%d... ", turn.ply / 2 + 1);
        int len = (int)(strlen(num) + strlen(mv)) + 1;
        if (col + len > 80) {
            fputc('\n', f);
            col = 0;
        } else if (col) {
            fputc(' ', f);
        }
        col += fprintf(f, "%s%s", num, mv);
        first = 0;
        turn = p;
        k = 0;
    }
    if (k) return -1; /* the actions end in the middle of a turn */
    fprintf(f, "%s%s\n\n", col ? " " : "", gk_result_text(result));
    return ferror(f) ? -1 : 0;
}
