/* cli/record_out.c -- game records of matches and played games (see record_out.h). */
#include "record_out.h"

#include <string.h>

#include "../games/record.h"

/* Tag values cannot hold every character; a spec or name that does not fit is dropped
 * rather than failing the whole record. */
static void tag(gk_record_t *rec, const char *name, const char *value) {
    if (value) gk_record_set_tag(rec, name, value);
}

int record_write_game(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                      gk_result_t result, gk_reason_t reason, const char *event, const char *round,
                      const char *white, const char *black) {
    return record_write_game_term(f, start, acts, n, result, reason, NULL, event, round, white,
                                  black);
}

int record_write_game_term(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                           gk_result_t result, gk_reason_t reason, const char *termination,
                           const char *event, const char *round, const char *white,
                           const char *black) {
    gk_rules_t r = {start->game, start->variant, start->turn_limit};
    gk_record_t rec;
    if (gk_record_init(&rec, &r)) return -1;
    gk_record_set_start(&rec, start);
    tag(&rec, "Event", event);
    tag(&rec, "Round", round);
    tag(&rec, "White", white);
    tag(&rec, "Black", black);

    int rc = 0, k = 0;
    gk_action_t seq[GK_MAX_TURN];
    gk_pos_t p = *start;
    for (int i = 0; i < n && rc == 0; i++) {
        if (gk_over(&p) || k >= GK_MAX_TURN || !gk_is_legal(&p, acts[i])) {
            rc = -1;
            break;
        }
        seq[k++] = acts[i];
        gk_play(&p, acts[i]);
        if (p.in_turn != 0 && !gk_over(&p)) continue;
        rc = gk_record_push(&rec, seq, k);
        k = 0;
    }
    if (k) rc = -1;
    if (rc == 0) {
        tag(&rec, "Result", gk_result_text(result));
        if (result != GK_ONGOING) {
            tag(&rec, "Termination", termination ? termination : gk_reason_text(reason));
            if (!gk_over(&rec.final)) {
                const char *t = gk_result_text(result);
                memcpy(rec.result, t, strlen(t) + 1);
            }
        }
        if (gk_record_write(&rec, f) || fputc('\n', f) == EOF) rc = -1;
    }
    gk_record_free(&rec);
    return rc;
}
