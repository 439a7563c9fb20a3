/*
 * common/progress.c -- progress lines of long work: rate-limited, terminal-aware.
 */
#include "progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"

/* Open MPI gives each rank's standard output a pseudo-terminal of its own, whatever
 * mpirun's own output is (open-mpi/ompi#7868, no option turns it off), so isatty() says
 * nothing there; its ranks carry OMPI_COMM_WORLD_SIZE.  Plain lines are right for a file
 * and readable on a terminal. */
static bool is_terminal(FILE *out) {
    return isatty(fileno(out)) && !getenv("OMPI_COMM_WORLD_SIZE");
}

void gk_progress_init(gk_progress_t *p, FILE *out, double tty_every, double plain_every) {
    p->out = out;
    p->tty = out && is_terminal(out);
    p->on_screen = false;
    p->every = p->tty ? tty_every : plain_every;
    const char *env = getenv("GK_PROGRESS_EVERY");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (*end == '\0' && v >= 0 && v <= 1e6) p->every = v;
    }
    p->last = gk_now_s();
}

bool gk_progress_due(const gk_progress_t *p) {
    return p->out && gk_now_s() - p->last >= p->every;
}

void gk_progress_line(gk_progress_t *p, const char *fmt, ...) {
    if (!p->out) return;
    va_list ap;
    va_start(ap, fmt);
    if (p->tty) fputs("\r", p->out);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputs(p->tty ? "\033[K" : "\n", p->out);
    fflush(p->out);
    p->on_screen = p->tty;
    p->last = gk_now_s();
}

void gk_progress_end(gk_progress_t *p) {
    if (p->out && p->on_screen) {
        fputc('\n', p->out);
        fflush(p->out);
    }
    p->on_screen = false;
}

bool gk_progress_is_tty(const gk_progress_t *p) {
    return p->tty;
}
