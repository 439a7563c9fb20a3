/*
 * cli/log_export.h -- a self-play log's game written for other programs (records, JSON).
 * A game of data/gamelog.h as a text game record (docs/FORMATS.md, "Game records": `log cat`, `log
 * export`) and as one line of JSON (`log export --format json`, docs/FORMATS.md, "Exported games").
 *
 * Records carry the log's fields as tags (Event, Round, White, Black, Result,
 * Termination, Seed, Weights, Search, Resign) and replay with `gounki replay`; the moves
 * are the complete moves (turns) cut from the actions, and actions of a turn cut short
 * by a resignation are left out (tag Annotation says so).  Each function returns 0, or
 * -1 when memory runs out or writing fails.
 */
#ifndef GK_LOG_EXPORT_H
#define GK_LOG_EXPORT_H

#include <stdio.h>

#include "../data/gamelog.h"

typedef enum {
    LOG_RECORD_PLAIN, /* the record alone */
    LOG_RECORD_STATS, /* then one ';' line per action with its root statistics (log cat) */
    LOG_RECORD_NOTES, /* each move followed by {value V visits N} of its search (export) */
} log_style_t;

int log_write_record(FILE *f, const gl_game_t *g, log_style_t style);
/* One JSON object on one line (ends with '\n'). */
int log_write_json(FILE *f, const gl_game_t *g);

#endif
