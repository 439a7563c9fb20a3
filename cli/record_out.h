/*
 * cli/record_out.h -- writes a game of `gounki match --pgn` or of `gounki play`'s `save`
 * as a game record through games/record.h (docs/FORMATS.md, "Game records"), readable by
 * `gounki replay`.
 *
 * The actions are cut into complete moves by replaying them from `start` (a turn ends
 * when play() leaves in_turn at 0).  A result that the moves do not reach on their own (a
 * resignation) is written as the record's result token with a Termination tag.
 */
#ifndef GK_RECORD_OUT_H
#define GK_RECORD_OUT_H

#include <stdio.h>

#include "../games/game.h"

/* Writes one record, followed by a blank line, to f.  Any of event, round, white, black
 * may be NULL (tag left out).  Returns 0, or -1 when an action is not legal where it is
 * played, the actions stop in the middle of a turn, memory runs out or writing fails. */
int record_write_game(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                      gk_result_t result, gk_reason_t reason, const char *event, const char *round,
                      const char *white, const char *black);
/* The same with the Termination tag given (NULL: the reason's name), for a game lost by a
 * fault (time, an illegal answer, a crashed engine) rather than by the rules. */
int record_write_game_term(FILE *f, const gk_pos_t *start, const gk_action_t *acts, int n,
                           gk_result_t result, gk_reason_t reason, const char *termination,
                           const char *event, const char *round, const char *white,
                           const char *black);

#endif
