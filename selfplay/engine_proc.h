/*
 * selfplay/engine_proc.h -- external engines (docs/PROTOCOL.md) as child processes.
 *
 * An engine speaks the protocol on its standard input and output: start, lines both ways
 * with deadlines, and an end that always reaps the process.
 *
 * Contract
 * --------
 * ep_start() runs a command line (words split at spaces and tabs, the first one found on
 * PATH as execvp does) with a socket as its standard input and output; its standard error
 * is ours.  No descriptor of ours leaks into it (close-on-exec), and writing to an engine
 * that has died fails with a reason instead of raising SIGPIPE, so any number of engines
 * may run in the threads of one process.  Every function returns 0 (or a count) or a
 * negative gk_status_t with a one-line reason; ep_read() tells a deadline passed (0) from
 * the engine gone (GK_E_IO, with how it ended: "exited with status 1", "killed by signal
 * 9").  ep_free() asks the engine to quit, waits a little, kills it if it is still there,
 * and reaps it.  One ep_t is used by one thread at a time.
 */
#ifndef GK_ENGINE_PROC_H
#define GK_ENGINE_PROC_H

#include <stddef.h>

typedef struct ep ep_t;

#define EP_LINE_MAX 65536

/* Starts the command.  *out is NULL on failure. */
int ep_start(const char *cmdline, ep_t **out, char *err, size_t errcap);
/* Writes one line (a '\n' is added). */
int ep_send(ep_t *e, const char *line, char *err, size_t errcap);
/* Reads one line (without its '\n'; a longer line than cap is cut) into buf, waiting until
 * the monotonic time deadline_s (common/clock.h).  Returns 1 with a line, 0 when the
 * deadline passed, GK_E_IO when the engine closed its output or died. */
int ep_read(ep_t *e, double deadline_s, char *buf, size_t cap, char *err, size_t errcap);
/* The handshake: sends `gep` and reads up to `gepok` (within timeout_s), keeping the
 * engine's name (`id name`).  Refuses an engine of another protocol version. */
int ep_handshake(ep_t *e, double timeout_s, char *err, size_t errcap);
const char *ep_name(const ep_t *e);
/* Kills the engine at once (it hung or misbehaved); ep_free() still has to be called. */
void ep_kill(ep_t *e);
void ep_free(ep_t *e); /* NULL is fine */

#endif
