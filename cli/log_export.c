/* cli/log_export.c -- self-play log games as text records and JSON lines (log_export.h). */
#include "log_export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "../games/record.h"

/* The record's tags from the log's fields.  Returns non-zero when a tag does not fit. */
static int set_tags(gk_record_t *rec, const gl_game_t *g) {
    char v[GK_TAG_VALUE_MAX];
    int bad = 0;
    bad |= gk_record_set_tag(rec, "Event", "gounki selfplay");
    snprintf(v, sizeof v, "%" PRIu64, g->index);
    bad |= gk_record_set_tag(rec, "Round", v);
    snprintf(v, sizeof v, "gounki %s", g->engine);
    bad |= gk_record_set_tag(rec, "White", v);
    bad |= gk_record_set_tag(rec, "Black", v);
    bad |= gk_record_set_tag(rec, "Result", gk_result_text((gk_result_t)g->result));
    bad |= gk_record_set_tag(rec, "Termination", gk_reason_text((gk_reason_t)g->reason));
    snprintf(v, sizeof v, "%016" PRIx64, g->seed);
    bad |= gk_record_set_tag(rec, "Seed", v);
    snprintf(v, sizeof v, "%016" PRIx64, g->weights_hash);
    bad |= gk_record_set_tag(rec, "Weights", v);
    if (g->set.playouts)
        snprintf(v, sizeof v, "playouts %u", g->set.playouts);
    else
        snprintf(v, sizeof v, "time %u ms", g->set.time_ms);
    bad |= gk_record_set_tag(rec, "Search", v);
    if (g->resign_at) {
        snprintf(v, sizeof v, "%s before action %u%s", g->resign_side ? "Black" : "White",
                 g->resign_at, g->flags & GL_FLAG_PLAYOUT ? " (played out)" : "");
        bad |= gk_record_set_tag(rec, "Resign", v);
    }
    return bad;
}

/* The note of actions [a, b) of g: "value +0.1234 visits 30" per searched action, the
 * kind of the others, joined by "; " (a Gobs turn of several actions). */
static char *turn_note(const gl_game_t *g, uint32_t a, uint32_t b) {
    gk_sb_t s;
    gk_sb_growing(&s);
    for (uint32_t i = a; i < b; i++) {
        const gl_action_stats_t *pl = &g->stats[i];
        if (i > a) gk_sb_puts(&s, "; ");
        if (pl->kind == GL_ACTION_SEARCH)
            gk_sb_printf(&s, "value %+.4f visits %u", (double)pl->value, pl->visits);
        else
            gk_sb_puts(&s, gl_action_kind_text(pl->kind));
    }
    char *t = gk_sb_take(&s, NULL);
    gk_sb_free(&s);
    return t;
}

/* The ';' lines of `log cat --stats`: every action with its root statistics. */
static int write_stat_lines(FILE *f, const gl_game_t *g) {
    const gk_game_t *G = gk_game_by_id(g->rules.game);
    gk_pos_t p;
    G->setup(&p, &g->rules);
    int bad = 0;
    for (uint32_t i = 0; i < g->nactions && !bad; i++) {
        const gl_action_stats_t *pl = &g->stats[i];
        char t[GK_MOVE_TEXT_MAX];
        if (G->action_text(&p, g->action[i], t, sizeof t) < 0) snprintf(t, sizeof t, "?");
        if (fprintf(f, "; %u turn %u %s %s: %s", i + 1, p.turn + 1,
                    p.stm == GK_WHITE ? "White" : "Black", t, gl_action_kind_text(pl->kind)) < 0)
            bad = 1;
        if (pl->kind == GL_ACTION_SEARCH) {
            fprintf(f, " visits %u value %+.4f legal %u top", pl->visits, (double)pl->value,
                    pl->nlegal);
            for (int k = 0; k < pl->ntop; k++) {
                const gl_child_t *ch = &g->child[pl->first + (uint32_t)k];
                if (G->action_text(&p, ch->action, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
                fprintf(f, " %s=%u", t, ch->visits);
            }
        }
        if (fputc('\n', f) == EOF) bad = 1;
        gk_play(&p, g->action[i]);
    }
    return bad;
}

int log_write_record(FILE *f, const gl_game_t *g, log_style_t style) {
    gk_record_t rec;
    if (gk_record_init(&rec, &g->rules)) return -1;
    int bad = set_tags(&rec, g);
    bool notes = style == LOG_RECORD_NOTES && g->has_stats;
    char **note = notes ? calloc((size_t)g->nactions + 1, sizeof *note) : NULL;
    if (notes && !note) bad = 1;
    gk_pos_t p;
    gk_game_by_id(g->rules.game)->setup(&p, &g->rules);
    uint32_t start = 0;
    for (uint32_t i = 0; i < g->nactions && !bad; i++) {
        gk_play(&p, g->action[i]);
        if (p.in_turn == 0 || gk_over(&p)) {
            if (note && !(note[rec.nmoves] = turn_note(g, start, i + 1))) bad = 1;
            if (gk_record_push(&rec, g->action + start, (int)(i + 1 - start))) bad = 1;
            start = i + 1;
        }
    }
    /* A resignation in the middle of a Gobs turn leaves actions that are no complete move. */
    if (start < g->nactions) {
        char v[GK_TAG_VALUE_MAX];
        snprintf(v, sizeof v, "%u actions of an unfinished turn left out", g->nactions - start);
        bad |= gk_record_set_tag(&rec, "Annotation", v);
    }
    snprintf(rec.result, sizeof rec.result, "%s", gk_result_text((gk_result_t)g->result));
    if (!bad && gk_record_write_notes(&rec, f, NULL, (const char *const *)note)) bad = 1;
    if (!bad && style == LOG_RECORD_STATS && g->has_stats) bad = write_stat_lines(f, g);
    if (note)
        for (int m = 0; m < rec.nmoves; m++) free(note[m]);
    free(note);
    gk_record_free(&rec);
    return bad ? -1 : 0;
}

/* "actions": one object per action with its move text and, when searched, statistics. */
static void json_actions(gk_sb_t *s, const gl_game_t *g) {
    const gk_game_t *G = gk_game_by_id(g->rules.game);
    gk_pos_t p;
    G->setup(&p, &g->rules);
    gk_sb_puts(s, ",\"actions\":[");
    for (uint32_t i = 0; i < g->nactions; i++) {
        char t[GK_MOVE_TEXT_MAX];
        if (G->action_text(&p, g->action[i], t, sizeof t) < 0) snprintf(t, sizeof t, "?");
        gk_sb_printf(s, "%s{\"turn\":%u,\"side\":\"%s\",\"action\":", i ? "," : "", p.turn + 1,
                     p.stm == GK_WHITE ? "white" : "black");
        gk_sb_put_json(s, t);
        if (g->has_stats) {
            const gl_action_stats_t *pl = &g->stats[i];
            gk_sb_printf(s, ",\"kind\":\"%s\"", gl_action_kind_text(pl->kind));
            if (pl->kind == GL_ACTION_SEARCH) {
                gk_sb_printf(s, ",\"value\":%.4f,\"visits\":%u,\"legal\":%u,\"top\":[",
                             (double)pl->value, pl->visits, pl->nlegal);
                for (int k = 0; k < pl->ntop; k++) {
                    const gl_child_t *ch = &g->child[pl->first + (uint32_t)k];
                    if (G->action_text(&p, ch->action, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
                    gk_sb_puts(s, k ? ",{\"action\":" : "{\"action\":");
                    gk_sb_put_json(s, t);
                    gk_sb_printf(s, ",\"visits\":%u}", ch->visits);
                }
                gk_sb_putc(s, ']');
            }
        }
        gk_sb_putc(s, '}');
        gk_play(&p, g->action[i]);
    }
    gk_sb_putc(s, ']');
}

/* "moves": the complete moves (turns) in the game's notation. */
static void json_moves(gk_sb_t *s, const gl_game_t *g) {
    const gk_game_t *G = gk_game_by_id(g->rules.game);
    gk_pos_t p, before;
    G->setup(&p, &g->rules);
    before = p;
    uint32_t start = 0;
    int m = 0;
    gk_sb_puts(s, ",\"moves\":[");
    for (uint32_t i = 0; i < g->nactions; i++) {
        gk_play(&p, g->action[i]);
        if (p.in_turn != 0 && !gk_over(&p)) continue;
        char t[GK_MOVE_TEXT_MAX];
        if (G->move_text(&before, g->action + start, (int)(i + 1 - start), t, sizeof t) < 0)
            snprintf(t, sizeof t, "?");
        if (m++) gk_sb_putc(s, ',');
        gk_sb_put_json(s, t);
        start = i + 1;
        before = p;
    }
    gk_sb_putc(s, ']');
}

int log_write_json(FILE *f, const gl_game_t *g) {
    const gk_game_t *G = gk_game_by_id(g->rules.game);
    gk_pos_t p;
    G->setup(&p, &g->rules);
    char ps[GK_POS_TEXT_MAX];
    if (G->pos_to_text(&p, ps, sizeof ps) < 0) ps[0] = 0;
    gk_sb_t s;
    gk_sb_growing(&s);
    gk_sb_printf(&s, "{\"index\":%" PRIu64 ",\"seed\":\"%016" PRIx64 "\",\"game\":\"%s\"", g->index,
                 g->seed, G->name);
    gk_sb_printf(&s,
                 ",\"variant\":\"%s\",\"turn_limit\":%u,\"start\":", G->variants[g->rules.variant],
                 (unsigned)g->rules.turn_limit);
    gk_sb_put_json(&s, ps);
    gk_sb_puts(&s, ",\"engine\":");
    gk_sb_put_json(&s, g->engine);
    gk_sb_printf(&s, ",\"weights\":\"%016" PRIx64 "\",\"playouts\":%u,\"time_ms\":%u",
                 g->weights_hash, g->set.playouts, g->set.time_ms);
    gk_sb_printf(&s, ",\"result\":\"%s\",\"reason\":\"%s\",\"turns\":%u",
                 gk_result_text((gk_result_t)g->result), gk_reason_text((gk_reason_t)g->reason),
                 g->turns);
    if (g->resign_at)
        gk_sb_printf(&s, ",\"resign\":{\"side\":\"%s\",\"before_action\":%u,\"played_out\":%s}",
                     g->resign_side ? "black" : "white", g->resign_at,
                     g->flags & GL_FLAG_PLAYOUT ? "true" : "false");
    json_moves(&s, g);
    json_actions(&s, g);
    gk_sb_puts(&s, "}\n");
    int bad = gk_sb_len(&s) < 0 || fwrite(s.p, 1, s.n, f) != s.n;
    gk_sb_free(&s);
    return bad ? -1 : 0;
}
