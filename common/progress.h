/*
 * common/progress.h -- progress lines of long work: rate-limited, terminal-aware.
 *
 * A gk_progress_t writes one line of progress at a time to a stream (standard error, or a
 * command's report stream).  On a terminal a line replaces the one before it ("\r" and
 * "\033[K", erase to the end of the line), at most once per tty_every seconds; anywhere
 * else (a file, a pipe, an Open MPI rank, whose output mpirun forwards from a
 * pseudo-terminal even to a file) each line is a plain line ending in "\n", at most once
 * per plain_every seconds, so that a log file gets a few lines, not thousands, and no
 * escape codes.  The caller asks gk_progress_due() (cheap: one clock read) and
 * formats its line only when it is due.
 *
 * gk_progress_init(p, out, tty_every, plain_every): out NULL means no progress at all (the
 * --quiet of the callers).  GK_PROGRESS_TTY / GK_PROGRESS_PLAIN are the usual rates; the
 * environment variable GK_PROGRESS_EVERY (seconds, 0 = every update) replaces both, for
 * batch jobs that want another rate and for tests.
 * gk_progress_due(p): 1 when a line may be written now (the first call after init counts
 * from init: a command that ends within the interval prints nothing).
 * gk_progress_line(p, fmt, ...): writes the line now (due or not: a final line) and
 * restarts the interval.
 * gk_progress_end(p): on a terminal, ends the line on screen with "\n" so that what follows
 * starts on a line of its own; nothing otherwise or when no line is on screen.  Call it
 * before printing anything else to the same stream, and when the work ends.
 * gk_progress_is_tty(p): whether lines replace each other.
 * No global state: one gk_progress_t per piece of work; not for use by two threads at once.
 */
#ifndef GK_COMMON_PROGRESS_H
#define GK_COMMON_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#define GK_PROGRESS_TTY   1.0  /* seconds between lines on a terminal */
#define GK_PROGRESS_PLAIN 10.0 /* seconds between plain lines (files, pipes, mpirun) */

typedef struct gk_progress {
    FILE *out;      /* NULL: quiet */
    bool tty;       /* out is a terminal */
    bool on_screen; /* a terminal line is shown and not ended */
    double every;   /* the interval for this stream */
    double last;    /* when the last line was written (or init) */
} gk_progress_t;

void gk_progress_init(gk_progress_t *p, FILE *out, double tty_every, double plain_every);
bool gk_progress_due(const gk_progress_t *p);
void gk_progress_line(gk_progress_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gk_progress_end(gk_progress_t *p);
bool gk_progress_is_tty(const gk_progress_t *p);

#endif
