/*
 * games/gounki.h -- Gounki (Malavasi, 1997) behind the game.h interface.
 *
 * The rules and every decision the source texts leave open are in docs/RULES.md.
 * Board encoding, action encoding and the helpers that eval/ and search/ may use to
 * look inside a Gounki position or action are declared here.
 */
#ifndef GK_GOUNKI_H
#define GK_GOUNKI_H

#include "game.h"

extern const gk_game_t gk_gounki_game;

/* Fills the Gounki Zobrist keys; called by gk_init(). */
void gounki_init(void);

#endif
