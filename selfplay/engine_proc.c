/* selfplay/engine_proc.c -- external engines as child processes (see engine_proc.h). */
/* pipe2() and SOCK_CLOEXEC: the close-on-exec flag set atomically, since other threads
 * may fork at any time. */
#define _GNU_SOURCE
#include "engine_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/status.h"

#define EP_ARGS_MAX 64

struct ep {
    pid_t pid;
    int fd;
    bool reaped;
    int status; /* waitpid's, once reaped */
    char buf[EP_LINE_MAX];
    size_t have; /* bytes in buf */
    bool eof;
    char name[128];
};

/* How the process ended, once it has ("exited with status 1"), else "closed its output". */
static void how_ended(ep_t *e, char *buf, size_t cap) {
    if (!e->reaped) {
        /* It closed its output: give it a moment to finish dying. */
        for (int i = 0; i < 50 && !e->reaped; i++) {
            if (waitpid(e->pid, &e->status, WNOHANG) == e->pid) {
                e->reaped = true;
                break;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    if (!e->reaped)
        snprintf(buf, cap, "closed its output");
    else if (WIFEXITED(e->status))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(e->status));
    else if (WIFSIGNALED(e->status))
        snprintf(buf, cap, "killed by signal %d", WTERMSIG(e->status));
    else
        snprintf(buf, cap, "ended");
}

int ep_start(const char *cmdline, ep_t **out, char *err, size_t errcap) {
    *out = NULL;
    char *words = strdup(cmdline ? cmdline : "");
    char *argv[EP_ARGS_MAX + 1];
    int argc = 0;
    if (!words) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (argc == EP_ARGS_MAX) {
            free(words);
            return gk_fail(err, errcap, GK_E_INVALID, "more than %d words in '%.80s'", EP_ARGS_MAX,
                           cmdline);
        }
        argv[argc++] = w;
    }
    argv[argc] = NULL;
    if (argc == 0) {
        free(words);
        return gk_fail(err, errcap, GK_E_INVALID, "an empty command");
    }
    ep_t *e = calloc(1, sizeof *e);
    int sv[2] = {-1, -1}, ep[2] = {-1, -1};
    if (!e || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || pipe2(ep, O_CLOEXEC)) {
        int code = !e ? GK_E_NOMEM : GK_E_IO;
        gk_fail(err, errcap, code, "cannot start '%.80s': %s", argv[0], strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (sv[i] >= 0) close(sv[i]);
            if (ep[i] >= 0) close(ep[i]);
        }
        free(e);
        free(words);
        return code;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. */
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0) _exit(127);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        int x = errno;
        if (write(ep[1], &x, sizeof x) < 0) _exit(127);
        _exit(127);
    }
    int fork_errno = errno;
    close(sv[1]);
    close(ep[1]);
    if (pid < 0) {
        close(sv[0]);
        close(ep[0]);
        free(e);
        int rc = gk_fail(err, errcap, GK_E_IO, "cannot start '%.80s': fork: %s", argv[0],
                         strerror(fork_errno));
        free(words);
        return rc;
    }
    int x = 0;
    ssize_t n;
    do {
        n = read(ep[0], &x, sizeof x);
    } while (n < 0 && errno == EINTR);
    close(ep[0]);
    e->pid = pid;
    e->fd = sv[0];
    if (n == (ssize_t)sizeof x) {
        waitpid(pid, &e->status, 0);
        e->reaped = true;
        int rc = gk_fail(err, errcap, GK_E_IO, "cannot run '%.80s': %s", argv[0], strerror(x));
        ep_free(e);
        free(words);
        return rc;
    }
    free(words);
    *out = e;
    return 0;
}

int ep_send(ep_t *e, const char *line, char *err, size_t errcap) {
    size_t len = strlen(line);
    char *msg = malloc(len + 1);
    if (!msg) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memcpy(msg, line, len);
    msg[len] = '\n';
    size_t done = 0;
    while (done < len + 1) {
        ssize_t n = send(e->fd, msg + done, len + 1 - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            free(msg);
            char how[64];
            how_ended(e, how, sizeof how);
            return gk_fail(err, errcap, GK_E_IO, "the engine %s", how);
        }
        done += (size_t)n;
    }
    free(msg);
    return 0;
}

int ep_read(ep_t *e, double deadline_s, char *buf, size_t cap, char *err, size_t errcap) {
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->have);
        if (nl || (e->have == sizeof e->buf) || (e->eof && e->have)) {
            size_t len = nl ? (size_t)(nl - e->buf) : e->have;
            size_t k = len < cap - 1 ? len : cap - 1;
            memcpy(buf, e->buf, k);
            if (k > 0 && buf[k - 1] == '\r') k--;
            buf[k] = 0;
            size_t used = nl ? len + 1 : len;
            memmove(e->buf, e->buf + used, e->have - used);
            e->have -= used;
            return 1;
        }
        if (e->eof) {
            char how[64];
            how_ended(e, how, sizeof how);
            return gk_fail(err, errcap, GK_E_IO, "the engine %s", how);
        }
        double left = deadline_s - gk_now_s();
        if (left <= 0) return 0;
        struct pollfd pf = {e->fd, POLLIN, 0};
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        int r = poll(&pf, 1, ms);
        if (r < 0 && errno != EINTR)
            return gk_fail(err, errcap, GK_E_IO, "poll: %s", strerror(errno));
        if (r <= 0) continue;
        ssize_t n = read(e->fd, e->buf + e->have, sizeof e->buf - e->have);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0)
            e->eof = true;
        else
            e->have += (size_t)n;
    }
}

int ep_handshake(ep_t *e, double timeout_s, char *err, size_t errcap) {
    GK_FORWARD_IF(ep_send(e, "gep", err, errcap));
    double deadline = gk_now_s() + timeout_s;
    char line[1024];
    for (;;) {
        int r = ep_read(e, deadline, line, sizeof line, err, errcap);
        if (r < 0) return r;
        if (r == 0)
            return gk_fail(err, errcap, GK_E_IO, "no 'gepok' within %g s of 'gep'", timeout_s);
        if (!strncmp(line, "id name ", 8)) snprintf(e->name, sizeof e->name, "%.127s", line + 8);
        if (!strncmp(line, "protocol ", 9) && strcmp(line + 9, "1"))
            return gk_fail(err, errcap, GK_E_VERSION, "the engine speaks protocol %.20s, not 1",
                           line + 9);
        if (!strcmp(line, "gepok")) return 0;
    }
}

const char *ep_name(const ep_t *e) {
    return e->name;
}

void ep_kill(ep_t *e) {
    if (e && !e->reaped) {
        kill(e->pid, SIGKILL);
        waitpid(e->pid, &e->status, 0);
        e->reaped = true;
    }
}

void ep_free(ep_t *e) {
    if (!e) return;
    if (!e->reaped) {
        char err[64];
        ep_send(e, "quit", err, sizeof err);
        for (int i = 0; i < 250 && !e->reaped; i++) {
            if (waitpid(e->pid, &e->status, WNOHANG) == e->pid) e->reaped = true;
            if (!e->reaped) {
                struct timespec ts = {0, 2000000};
                nanosleep(&ts, NULL);
            }
        }
        ep_kill(e);
    }
    close(e->fd);
    free(e);
}
