/*
 * games/gobs.h -- Gobs (standard and "short" variant) behind the game.h interface.
 *
 * The rules and every decision the source text leaves open are in docs/RULES.md.
 */
#ifndef GK_GOBS_H
#define GK_GOBS_H

#include "game.h"

extern const gk_game_t gk_gobs_game;

/* Fills the Gobs Zobrist keys; called by gk_init(). */
void gobs_init(void);

#endif
