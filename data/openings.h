/*
 * data/openings.h -- opening-line files: the lines of moves self-play and matches open with.
 *
 * The format is docs/FORMATS.md, "Opening lines": complete moves from a game's start
 * position, one opening per line.
 *
 * Contract
 * --------
 * ol_parse() reads the text of an opening-line file for the rules r: the header
 * ("gkopenings 1", then "game NAME"), one opening per line (complete moves in the
 * notation, separated by spaces or tabs), and an optional last line "checksum HEX" (XXH64
 * of every byte before it).  Every move is parsed and played from r's start position, so
 * a book holds only legal lines, and a line that ends the game is refused.  The book's
 * hash is XXH64 of the whole text: logs and manifests record which book made their
 * openings.  At most OL_MAX_LINES lines.
 * Failures return a negative gk_status_t (common/status.h) with "NAME:LINE: reason"
 * (GK_E_FORMAT for a malformed file, GK_E_INVALID for a bad move or line, GK_E_CHECKSUM,
 * GK_E_EMPTY for a file without lines, GK_E_NOMEM); b is then empty.
 * ol_load() reads the file (at most OL_MAX_BYTES) and parses it under its path.
 * ol_free() releases the lines (an empty or zeroed set too).  Depends on games/ only.
 */
#ifndef GK_OPENINGS_H
#define GK_OPENINGS_H

#include <stddef.h>
#include <stdint.h>

#include "../games/game.h"

#define OL_MAX_LINES 100000
#define OL_MAX_BYTES (64u << 20)

typedef struct ol_lines {
    int nlines;
    uint32_t *start; /* nlines + 1 offsets into act: line i is act[start[i] .. start[i+1]) */
    uint32_t *turns; /* turns in line i */
    gk_action_t *act;
    uint64_t hash; /* XXH64 of the file */
} ol_lines_t;

int ol_load(const char *path, const gk_rules_t *r, ol_lines_t *b, char *err, size_t errcap);
/* name: what the reasons call the text (a path, "fuzz", ...). */
int ol_parse(const char *text, size_t len, const char *name, const gk_rules_t *r, ol_lines_t *b,
             char *err, size_t errcap);
void ol_free(ol_lines_t *b);

#endif
