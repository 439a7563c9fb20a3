/* cli/view_out.c -- board pictures and game pages for show and replay (see view_out.h). */
#include "view_out.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/files.h"
#include "../common/status.h"
#include "../view/view.h"

extern char **environ;

/* The last move of po->moves: `before` is the position it was played from. */
static int last_move(const char *cmd, const cli_pos_opts_t *po, gk_pos_t *before, gk_action_t *seq,
                     int *n) {
    *n = 0;
    const char *s = po->moves;
    if (!s) return 0;
    const char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n')) end--;
    const char *tok = end;
    while (tok > s && tok[-1] != ' ' && tok[-1] != '\t' && tok[-1] != '\n') tok--;
    if (tok == end) return 0; /* no move at all */
    char *prefix = strndup(s, (size_t)(tok - s)), *last = strndup(tok, (size_t)(end - tok));
    if (!prefix || !last) {
        free(prefix);
        free(last);
        cli_error(cmd, "out of memory");
        return CLI_FAIL;
    }
    cli_pos_opts_t o = *po;
    o.moves = prefix;
    int rc = cli_load_position(cmd, &o, before, NULL);
    if (!rc) {
        char err[256];
        *n = gk_game_of(before)->parse_move(before, last, seq, GK_MAX_TURN, err, sizeof err);
        if (*n < 0) { /* the whole --moves was read already: this cannot fail */
            cli_error(cmd, "--moves: '%s': %s", last, err);
            rc = CLI_FAIL;
        }
    }
    free(prefix);
    free(last);
    return rc;
}

/* rsvg-convert (Debian: librsvg2-bin) turns the SVG into a PNG; it is run, not linked,
 * so that nothing else of the program depends on librsvg. */
static int write_png(const char *cmd, const char *png, const char *svg, size_t n) {
    char err[512];
    if (gk_check_writable(png, err, sizeof err)) {
        cli_error(cmd, "--png: %s", err);
        return CLI_FAIL;
    }
    const char *tmpdir = getenv("TMPDIR");
    char svgtmp[4096], pngtmp[4096];
    snprintf(svgtmp, sizeof svgtmp, "%s/gounki-svg-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (snprintf(pngtmp, sizeof pngtmp, "%s.tmp.%ld", png, (long)getpid()) >= (int)sizeof pngtmp) {
        cli_error(cmd, "--png: path too long");
        return CLI_FAIL;
    }
    int fd = mkstemp(svgtmp);
    if (fd < 0) {
        cli_error(cmd, "--png: temporary file in %s: %s", tmpdir ? tmpdir : "/tmp",
                  strerror(errno));
        return CLI_FAIL;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, svg + done, n - done);
        if (k <= 0) break;
        done += (size_t)k;
    }
    close(fd);
    int rc = CLI_FAIL;
    if (done < n) {
        cli_error(cmd, "--png: cannot write the temporary SVG %s", svgtmp);
        goto out;
    }
    char *args[] = {"rsvg-convert", "-f", "png", "-o", pngtmp, svgtmp, NULL};
    pid_t pid;
    int e = posix_spawnp(&pid, "rsvg-convert", NULL, NULL, args, environ);
    if (e) {
        if (e == ENOENT)
            cli_error(cmd, "--png needs rsvg-convert (Debian package librsvg2-bin), which is not "
                           "installed; --svg works without it");
        else
            cli_error(cmd, "--png: cannot run rsvg-convert: %s", strerror(e));
        goto out;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        cli_error(cmd, "--png: rsvg-convert failed (%s %d)", WIFEXITED(st) ? "exit" : "signal",
                  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        unlink(pngtmp);
        goto out;
    }
    if (rename(pngtmp, png)) {
        cli_error(cmd, "--png: %s: %s", png, strerror(errno));
        unlink(pngtmp);
        goto out;
    }
    gk_fsync_dir_of(png);
    rc = CLI_OK;
out:
    unlink(svgtmp);
    return rc;
}

int cli_view_board(const char *cmd, const cli_pos_opts_t *po, const gk_pos_t *pos, const char *svg,
                   const char *png) {
    gk_pos_t before;
    gk_action_t seq[GK_MAX_TURN];
    int n = 0;
    int rc = last_move(cmd, po, &before, seq, &n);
    if (rc) return rc;
    view_marks_t *marks = NULL;
    if (n > 0) {
        marks = malloc(sizeof *marks);
        if (!marks) {
            cli_error(cmd, "out of memory");
            return CLI_FAIL;
        }
        view_marks_of(&before, seq, n, marks);
    }
    gk_sb_t b;
    gk_sb_growing(&b);
    char err[512];
    if (view_board_svg(&b, pos, marks, NULL)) {
        cli_error(cmd, "out of memory");
        rc = CLI_FAIL;
    } else if (svg && !strcmp(svg, "-")) {
        if (fwrite(b.p, 1, b.n, stdout) != b.n || fflush(stdout)) {
            cli_error(cmd, "--svg: write error on standard output");
            rc = CLI_FAIL;
        }
    } else if (svg && view_write(svg, &b, err, sizeof err)) {
        cli_error(cmd, "--svg: %s", err);
        rc = CLI_FAIL;
    }
    if (!rc && png) rc = write_png(cmd, png, b.p, b.n);
    gk_sb_free(&b);
    free(marks);
    return rc;
}

static gk_result_t claimed(const char *token) {
    int r = token ? gk_result_parse(token) : -1;
    return r < 0 ? GK_ONGOING : (gk_result_t)r;
}

int cli_view_write_page(const char *cmd, const char *flag, const char *path, const gk_sb_t *page) {
    char err[512];
    if (view_write(path, page, err, sizeof err)) {
        cli_error(cmd, "%s: %s", flag, err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cli_view_record_html(const char *cmd, const gk_record_t *rec, const gk_pos_t *fin,
                         const char *file, gk_sb_t *page) {
    view_game_t g = {0};
    g.start = rec->start;
    g.action = rec->actions;
    g.nactions = (uint32_t)rec->move_start[rec->nmoves];
    if (gk_over(fin)) {
        g.result = (gk_result_t)fin->result; /* a no-move loss is not in the actions */
        g.reason = (gk_reason_t)fin->reason;
    } else { /* a resignation or an agreement: the record's word */
        g.result = claimed(*rec->result ? rec->result : gk_record_tag(rec, "Result"));
        g.reason = g.result == GK_ONGOING ? GK_REASON_NONE
                   : g.result == GK_DRAW  ? GK_REASON_NONE
                                          : GK_REASON_RESIGN;
    }
    const char *event = gk_record_tag(rec, "Event");
    g.title = event && *event ? event : file;
    /* The header lines: the tags that the title and the line under it do not show. */
    const char *tags[2 * GK_RECORD_MAX_TAGS];
    int nt = 0;
    for (int i = 0; i < rec->ntags; i++) {
        const char *name = rec->tags[i].name;
        if (!strcmp(name, "Result") || !strcmp(name, "Game") || !strcmp(name, "Variant") ||
            (!strcmp(name, "Event") && g.title == event))
            continue;
        tags[2 * nt] = name;
        tags[2 * nt + 1] = rec->tags[i].value;
        nt++;
    }
    g.tag = tags;
    g.ntags = nt;
    char err[512];
    if (view_game_html(page, &g, err, sizeof err)) {
        cli_error(cmd, "--html: %s", err);
        return CLI_FAIL;
    }
    return CLI_OK;
}
