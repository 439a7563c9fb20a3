/*
 * games/record.h -- game records (docs/FORMATS.md, "Game records"): read and write the
 * text form of a whole game, for any game of game.h.
 *
 * A record is optional `[Tag "value"]` header lines, then the moves, numbered or not
 * (`12. e2-b5 a1-Out`, or a table `12.<TAB>e2-b5<TAB>a1-Out<TAB>a note`), comments in
 * braces or after ';', annotation glyphs after a move (`?`, `??`, `!`, `!!`, `?!`, `!?`;
 * dropped), and an optional result token (1-0, 0-1, 1/2-1/2, *, and the spellings of
 * gk_result_parse(): "1 - 0", "½-½"; kept as written in rec->result).  A move may
 * contain spaces (`c1 b1+`, `Move A 1 A 2`): the reader takes the shortest run of
 * words on one line that the game parses as a legal move at the current position,
 * plus a following lone "+" word.  Everything is checked against the rules: each move
 * must be legal, the game must not have ended before it, repetition ends the game
 * (gk_hist_*).
 *
 * Tags the reader interprets: Game and Variant (override the caller's defaults),
 * Position (or FEN: the start position string), TurnLimit (or its old name MaxPlies).  All tags are
 * kept.
 *
 * Contract: gk_record_read() never reads past `len` bytes, never crashes on any input,
 * and on failure returns -1 with a one-line reason naming the line, the turn, the text
 * and why; the record then holds the moves read before the error (`final` is the
 * position after them), so a caller can show how far the game went.  The reader does
 * not judge the result token and tags against the game: gk_record_outcome() does.
 * A record owns heap memory: init it, and free it with gk_record_free().
 */
#ifndef GK_RECORD_H
#define GK_RECORD_H

#include <stdio.h>

#include "game.h"

#define GK_RECORD_MAX_TAGS 32
#define GK_TAG_NAME_MAX    32
#define GK_TAG_VALUE_MAX   256

typedef struct gk_tag {
    char name[GK_TAG_NAME_MAX];
    char value[GK_TAG_VALUE_MAX];
} gk_tag_t;

typedef struct gk_record {
    gk_rules_t rules;
    int ntags;
    gk_tag_t tags[GK_RECORD_MAX_TAGS];
    gk_pos_t start;
    int nmoves;           /* complete moves (turns) */
    int *move_start;      /* move i is actions[move_start[i] .. move_start[i+1]) */
    gk_action_t *actions; /* nmoves + 1 entries in move_start */
    int cap_moves, cap_actions;
    char result[16]; /* result token of the move text as written ("1-0", ...), "" when none */
    gk_pos_t final;  /* position after the last move, with repetition applied */
    gk_hist_t *hist; /* turn-boundary hashes of the game, for repetition */
} gk_record_t;

/* An empty record of the rule set r at its start position. Returns 0 or -1 (memory). */
int gk_record_init(gk_record_t *rec, const gk_rules_t *r);
void gk_record_free(gk_record_t *rec);

/* Parses the record text[0..len) with `defaults` as the rules unless tags say
 * otherwise.  rec is initialised here (free it in all cases). */
int gk_record_read(gk_record_t *rec, const char *text, size_t len, const gk_rules_t *defaults,
                   char *err, size_t errcap);

/* Reads a text holding several records (a match file): each starts with its tags and
 * ends at the next record's tags.  Calls fn(ctx, rec, k, NULL) for record k = 0, 1, ...
 * (rec is valid during the call only), or fn(ctx, rec, k, reason) for a record that
 * fails, with rec holding its moves before the error; reading stops there.  fn returns
 * non-zero to stop early.  Returns the number of records read, or -1 on an error
 * (reason in err; fn has seen it when it concerns a record). */
typedef int (*gk_record_fn)(void *ctx, const gk_record_t *rec, int index, const char *err);
int gk_record_read_all(const char *text, size_t len, const gk_rules_t *defaults, gk_record_fn fn,
                       void *ctx, char *err, size_t errcap);

/* Restarts rec at position `start` (its rules taken from it). */
void gk_record_set_start(gk_record_t *rec, const gk_pos_t *start);
/* Appends a complete legal move (n actions) played from rec->final. Returns 0, or -1
 * when memory runs out or the game is over. */
int gk_record_push(gk_record_t *rec, const gk_action_t *seq, int n);

/* Tags: the value of `name` or NULL; set (add or replace) returns 0 or -1 (full, or a
 * name/value too long or with characters a record cannot hold). */
const char *gk_record_tag(const gk_record_t *rec, const char *name);
int gk_record_set_tag(gk_record_t *rec, const char *name, const char *value);

/* Position before move i (0 <= i <= nmoves), replayed from start. */
void gk_record_pos_at(const gk_record_t *rec, int i, gk_pos_t *out);

/* The meaning of a result as records write it: 1-0, 0-1, 1/2-1/2 or ½-½ (UTF-8), with
 * or without up to three spaces around the dash ("1 - 0", as gounki.org files write it),
 * or "*".  Returns the gk_result_t ("*" is GK_ONGOING), or -1 for any other text. */
int gk_result_parse(const char *s);

/* How a record's game ended. */
typedef struct gk_outcome {
    gk_pos_t final;     /* rec->final, ended by the rules when the side to move has no move */
    gk_result_t result; /* the rules' result, else the record's claim, else GK_ONGOING */
    int by_rules;       /* 1 when the rules ended the game */
    /* Why: the rules' reason (gk_reason_text) when they ended it; else the Termination
     * tag ("resign", "agreement", "time forfeit", ...); "" when the record claims a result
     * without saying why. */
    char how[GK_TAG_VALUE_MAX];
} gk_outcome_t;

/* Judges the end of a record.  The result token and the Result tag must mean the same
 * result; when the rules ended the game they must give the rules' result and the
 * Termination tag the rules' reason (or "normal").  When the rules have not ended the
 * game, a claimed result is a game ended off the board (a resignation, an agreed draw, a
 * loss on time) and is valid, unless the Termination tag names an ending of the rules
 * ("exit", ...) or a resignation claims a draw.  Returns 0, or -1 with a one-line reason
 * that names the tag or token (no path). */
int gk_record_outcome(const gk_record_t *rec, gk_outcome_t *out, char *err, size_t errcap);

/* "White wins", "Black wins", "draw" or "game not over". */
const char *gk_winner_text(gk_result_t r);

/* Writes the record: tags (Game, then Variant and Position when not the defaults, then
 * the others), numbered moves in the output notation, and the result (the game's when
 * it is over, else rec->result, else "*"; rec->result as written when it means the
 * game's result).  gk_record_read() reads it back to the same
 * moves.  Returns 0 or -1 on a write error. */
int gk_record_write(const gk_record_t *rec, FILE *f);
/* The same with annotations: glyph[m] (may be NULL or "") is written right after move m
 * ("?", "??": the reader drops such glyphs), note[m] (may be NULL or "") as a comment in
 * braces after it (a brace inside becomes a parenthesis).  glyph and note may be NULL. */
int gk_record_write_notes(const gk_record_t *rec, FILE *f, const char *const *glyph,
                          const char *const *note);

#endif
