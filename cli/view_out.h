/*
 * cli/view_out.h -- the pictures of `gounki show --svg/--png` and `gounki replay --html`
 * (view/view.h draws them; this file finds the last move, writes the files and runs
 * rsvg-convert for PNG).
 *
 * Both functions report their own errors ("gounki CMD: ...") and return an exit status
 * (CLI_OK, CLI_FAIL, CLI_USAGE).  Files are written atomically; "-" as the SVG path
 * writes the SVG to standard output.
 */
#ifndef GK_VIEW_OUT_H
#define GK_VIEW_OUT_H

#include "../common/strbuf.h"
#include "../games/record.h"
#include "cli.h"

/* Draws pos (the position that po describes, already loaded) with the last move of
 * po->moves as its marks, to svg and/or png (either may be NULL). */
int cli_view_board(const char *cmd, const cli_pos_opts_t *po, const gk_pos_t *pos, const char *svg,
                   const char *png);

/* Builds the HTML page of one replayed record into page (a gk_sb_t, growing); fin is its
 * final position with the rules' end applied (no-move).  The caller writes it with
 * cli_view_write_page() once it knows the file holds one game. */
int cli_view_record_html(const char *cmd, const gk_record_t *rec, const gk_pos_t *fin,
                         const char *file, gk_sb_t *page);
/* Writes page to path atomically; flag names the option in errors ("--html"). */
int cli_view_write_page(const char *cmd, const char *flag, const char *path, const gk_sb_t *page);

#endif
