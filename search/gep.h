/*
 * search/gep.h -- the engine protocol (GEP, docs/PROTOCOL.md): commands, state, search.
 *
 * The engine's state and the search that answers `go`, without any I/O of its own.
 *
 * Contract
 * --------
 * A gep_t is one engine session.  Input arrives one line at a time through gep_line();
 * every reply is handed to the caller's out() function, one line (without its '\n') per
 * call, under the session's own lock, so replies from gep_line() and from a running search
 * never interleave within a line.
 *
 * gep_line() never blocks on a search: `go` prepares the search and returns GEP_GO, and the
 * caller runs gep_search() -- on a thread of its own when it wants to keep reading input
 * (`gounki engine`), or at once (the fuzz target).  While a search runs, gep_line() may be
 * called from another thread: it answers `isready`, `stop` and `quit` and refuses every
 * command that would change the state the search reads.  gep_stop() (also called by `stop`
 * and `quit`) may be called from any thread.  gep_search() clears the running state before
 * it writes `bestmove`, so a driver that sends its next command on reading `bestmove` is
 * never refused.  One gep_search() at a time; gep_free() only when none runs.
 *
 * Every malformed, unknown or out-of-order line gets exactly one `error CMD: REASON` reply
 * and leaves the state as it was.  Nothing here exits or writes to a stream.
 */
#ifndef GK_GEP_H
#define GK_GEP_H

#include <stddef.h>

#define GEP_PROTOCOL  1
#define GEP_LINE_MAX  65536 /* longest line read (bytes, without the '\n') */
#define GEP_MOVES_MAX 8192  /* most moves in one `position` */

enum { GEP_CONTINUE = 0, GEP_GO = 1, GEP_QUIT = 2 };

typedef struct gep gep_t;
typedef void (*gep_out_fn)(void *ctx, const char *line);

/* A session for game gounki at its start position (no position set yet: `go` wants a
 * `position` or `game` first), with the search defaults of search/mcts.h changed by the
 * NAME=VALUE list `defaults` (may be NULL) and weight file `weights` (NULL: the shipped
 * weights; a Gobs weight file starts the session in gobs standard).  NULL with a reason in
 * err on a bad list or weight file or a lack of memory. */
gep_t *gep_new(gep_out_fn out, void *ctx, const char *defaults, const char *weights, char *err,
               size_t errcap);
void gep_free(gep_t *g); /* NULL is fine */

/* Handles one line of input, len bytes (a trailing '\r' is ignored; it need not be
 * NUL-terminated).  Returns GEP_CONTINUE, GEP_GO (call gep_search()) or GEP_QUIT (the
 * caller stops a running search with gep_stop(), waits for it and ends the session). */
int gep_line(gep_t *g, const char *line, size_t len);

/* Runs the search that the last GEP_GO prepared: `info` lines every info_interval, then
 * one `bestmove` (not after `quit`).  With `go infinite` it holds `bestmove` back until
 * stopped, even when the search ends by itself. */
void gep_search(gep_t *g);

/* Ends the running search soon (no effect when none runs). */
void gep_stop(gep_t *g);
/* The end of input: a running `go infinite` is stopped (it would never end); a search with
 * a budget runs to its end.  Either writes its `bestmove`; the caller then waits for it. */
void gep_end_of_input(gep_t *g);

#endif
