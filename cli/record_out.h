/*
 * cli/record_out.h -- writes a game as a text game record (docs/FORMATS.md, "Game
 * records"): [Tag "value"] headers, numbered complete moves in the notation, and the
 * result token, readable by `gounki replay`.  Used by `gounki match --pgn` and the
 * `save` command of `gounki play`.
 *
 * The actions of the game are cut into turns by replaying them from `start` (a turn ends
 * when play() leaves in_turn at 0), and each turn is written with the game's move_text().
 * A start position other than the rule set's start is given in a [Position "..."] tag.
 */
#ifndef GK_RECORD_OUT_H
#define GK_RECORD_OUT_H

#include <stdio.h>

#include "../games/game.h"

/* Writes one record to f.  Any of event, round, white, black may be NULL (tag left out).
 * Returns 0, or -1 when an action is not legal where it is played or writing fails. */
int record_write_game(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                      gk_result_t result, gk_reason_t reason, const char *event, const char *round,
                      const char *white, const char *black);

#endif
