/* cli/cmd_log.c -- `gounki log verify|cat|stats|export`: read self-play game logs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "../common/files.h"
#include "../data/gamelog.h"
#include "../games/record.h"
#include "../view/view.h"
#include "cli.h"
#include "log_export.h"

const char cmd_log_summary[] =
    "check, print, measure and export self-play game logs (verify, cat, stats, export)";

static const char help[] =
    "usage: gounki log verify DIR|FILE [--complete] [--quick]\n"
    "       gounki log cat DIR|FILE [--index I] [--stats]\n"
    "       gounki log stats DIR|FILE [--level L]\n"
    "       gounki log export DIR|FILE [--game I] [--format record|json] [--out FILE]\n"
    "       gounki log export DIR|FILE --game I --html OUT\n"

    "DIR is a self-play run directory (DIR/manifest.gkm, DIR/shard-*.gkz); FILE one shard.\n"
    "A directory or file with no game in it is an error (exit 1).\n"
    "verify  checks every frame (checksums, decompression) and every game (replayed against\n"
    "        the rules), reports torn or corrupt shards, duplicate games and, with a\n"
    "        manifest, missing games.  Exit 1 on any fault; --complete makes missing\n"
    "        games a fault too.  A training run directory (gounki train --run DIR) is\n"
    "        verified generation by generation (DIR/gen-GGG/logs).  --quick checks the\n"
    "        frames' checksums and the game indices of their headers only (no\n"
    "        decompression, no replay; at the speed of reading).\n"
    "cat     prints the games in game-index order as text game records (docs/FORMATS.md),\n"
    "        readable one at a time by 'gounki replay'.  --index I prints game I only\n"
    "        (--game I says the same: a number is an index, not a game's name);\n"
    "        --stats adds the search's root statistics of each action as ';' comments.\n"
    "stats   games, results by colour, terminations, lengths, false resignations, and the\n"
    "        bytes per game and per action of the log against the alternatives: without\n"
    "        statistics, with raw 32-bit actions, and zstd on the text records\n"
    "        (each compressed by frame at level L, default 9).\n"
    "export  writes the games (or game I) for other programs, to standard output or\n"
    "        atomically to --out FILE: as game records (the default; what 'gounki replay'\n"
    "        reads) with each move's root value and visits as {comments}, or with\n"
    "        --format json as JSON lines, one game a line (moves, result, and per action\n"
    "        its value, visits and most visited children; docs/FORMATS.md).  --html OUT\n"
    "        writes game I as one self-contained HTML page that steps through it.\n";

#define CMD "log"

/* ------------------------------------------------------------------ helpers */

static const char *status_text(int st) {
    return st == GL_SHARD_OK ? "ok" : st == GL_SHARD_TORN ? "torn" : "corrupt";
}

static int is_dir(const char *path) {
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A `gounki train` run directory: DIR/gen-000 (docs/FORMATS.md, "Training runs"). */
static int is_train_run(const char *path) {
    char d[4096];
    return snprintf(d, sizeof d, "%s/gen-000", path) < (int)sizeof d && is_dir(d);
}

typedef struct {
    gl_logset_t ls;
    gl_loc_t *loc;
    uint64_t n;
} opened_t;

static int open_logs(const char *path, bool verify, opened_t *o) {
    char err[512];
    memset(o, 0, sizeof *o);
    if (gl_logset_open(&o->ls, path, verify, err, sizeof err)) {
        cli_error(CMD, "%s", err);
        return CLI_FAIL;
    }
    if (o->ls.nshards == 0) { /* an empty directory, or a training run's top */
        cli_error(CMD, "%s: no game logs here (no shard-*.gkz files)%s", path,
                  is_train_run(path) ? "; a training run: its logs are in gen-GGG/logs" : "");
        gl_logset_free(&o->ls);
        return CLI_FAIL;
    }
    if (gl_logset_locate(&o->ls, &o->loc, &o->n, err, sizeof err)) {
        cli_error(CMD, "%s", err);
        gl_logset_free(&o->ls);
        return CLI_FAIL;
    }
    return 0;
}

static void close_logs(opened_t *o) {
    free(o->loc);
    gl_logset_free(&o->ls);
}

/* Calls fn for every game of every sound frame, frame by frame, with the frame's
 * compressed size.  A frame or game that does not decode is reported and counted. */
typedef int (*frame_fn)(void *ctx, const gl_frame_t *f, const gl_buf_t *payload, gl_game_t *games,
                        uint32_t n);

static uint64_t for_each_frame(const gl_logset_t *ls, frame_fn fn, void *ctx, bool report) {
    uint64_t faults = 0;
    gl_buf_t payload = {0};
    gl_game_t *games = NULL;
    uint32_t cap = 0;
    char err[512];
    for (int i = 0; i < ls->nshards; i++) {
        FILE *fp = fopen(ls->path[i], "rb");
        if (!fp) {
            if (report) cli_error(CMD, "%s: %s", ls->path[i], strerror(errno));
            faults++;
            continue;
        }
        gl_src_t src = {.fd = fileno(fp), .size = ls->shard[i].size};
        for (uint32_t fi = 0; fi < ls->shard[i].nframes; fi++) {
            const gl_frame_t *f = &ls->shard[i].frame[fi];
            if (gl_frame_load(&src, f, &payload, err, sizeof err)) {
                if (report) cli_error(CMD, "%s: %s", ls->path[i], err);
                faults++;
                continue;
            }
            if (f->ngames > cap) {
                gl_game_t *g = realloc(games, f->ngames * sizeof *g);
                if (!g) {
                    cli_error(CMD, "out of memory");
                    faults++;
                    break;
                }
                for (uint32_t k = cap; k < f->ngames; k++) gl_game_init(&g[k]);
                games = g;
                cap = f->ngames;
            }
            size_t pos = 0;
            uint32_t k;
            for (k = 0; k < f->ngames; k++) {
                if (gl_frame_next_game(f, &payload, &pos, &games[k], err, sizeof err)) break;
                if (games[k].index != ls->shard[i].index[f->first + k]) {
                    snprintf(err, sizeof err,
                             "game %u is game %" PRIu64 ", the header says %" PRIu64, k,
                             games[k].index, ls->shard[i].index[f->first + k]);
                    break;
                }
            }
            if (k == f->ngames && pos != payload.n)
                snprintf(err, sizeof err, "%zu bytes after the last game", payload.n - pos);
            if (k < f->ngames || pos != payload.n) {
                if (report)
                    cli_error(CMD, "%s: frame at byte %" PRIu64 ": %s", ls->path[i], f->offset,
                              err);
                faults++;
                continue;
            }
            if (fn && fn(ctx, f, &payload, games, f->ngames)) faults++;
        }
        fclose(fp);
    }
    for (uint32_t k = 0; k < cap; k++) gl_game_free(&games[k]);
    free(games);
    gl_buf_free(&payload);
    return faults;
}

/* ------------------------------------------------------------------ verify */

/* Verifies one log directory or shard; *ngames gets its distinct games. */
static int verify_logs(const char *path, bool complete, bool quick, uint64_t *ngames) {
    opened_t o;
    int rc = open_logs(path, true, &o);
    if (rc) return rc;
    uint64_t faults = 0, games = 0;
    for (int i = 0; i < o.ls.nshards; i++) {
        const gl_shard_t *s = &o.ls.shard[i];
        printf("%s: %s, %u frames, %" PRIu64 " games, %" PRIu64 " bytes", o.ls.path[i],
               status_text(s->status), s->nframes, s->nindex, s->size);
        if (s->status != GL_SHARD_OK) {
            printf(": %s; %" PRIu64 " bytes from byte %" PRIu64 " unreadable", s->problem,
                   s->size - s->valid_end, s->valid_end);
            faults++;
        }
        printf("\n");
        games += s->nindex;
    }
    if (!quick) faults += for_each_frame(&o.ls, NULL, NULL, true);
    uint64_t dups = 0, distinct = 0, beyond = 0;
    for (uint64_t i = 0; i < o.n; i++) {
        if (i && o.loc[i].index == o.loc[i - 1].index) {
            if (dups < 10)
                cli_error(CMD, "game %" PRIu64 " is stored more than once (%s and %s)",
                          o.loc[i].index, o.ls.path[o.loc[i - 1].shard], o.ls.path[o.loc[i].shard]);
            dups++;
            continue;
        }
        distinct++;
        if (o.ls.has_manifest && o.loc[i].index >= o.ls.manifest.games) beyond++;
    }
    faults += dups + beyond;
    if (beyond)
        cli_error(CMD, "%" PRIu64 " games have an index beyond the run's %" PRIu64, beyond,
                  o.ls.manifest.games);
    printf("verify: %d shard%s, %" PRIu64 " games, %" PRIu64 " distinct, %" PRIu64 " duplicates",
           o.ls.nshards, o.ls.nshards == 1 ? "" : "s", games, distinct, dups);
    if (o.ls.has_manifest) {
        uint64_t missing = o.ls.manifest.games - (distinct - beyond);
        printf("; run of %" PRIu64 " games: %s", o.ls.manifest.games,
               missing ? "incomplete" : "complete");
        if (missing) printf(" (%" PRIu64 " missing)", missing);
        if (missing && complete) faults++;
    } else if (complete) {
        printf("; no manifest, --complete cannot be checked");
        faults++;
    }
    if (distinct == 0) {
        printf("; no games");
        faults++;
    }
    printf("\n%s\n", faults ? "verify: FAULTS FOUND" : "verify: ok");
    close_logs(&o);
    *ngames = distinct;
    return faults ? CLI_FAIL : CLI_OK;
}

/* A training run: the logs of each generation in turn, until the first generation
 * directory that is missing. */
static int verify_train(const char *dir, bool complete, bool quick) {
    int rc = CLI_OK, played = 0, bad = 0;
    uint64_t total = 0;
    for (int g = 0;; g++) {
        char gd[4096], logs[4200];
        if (snprintf(gd, sizeof gd, "%s/gen-%03d", dir, g) >= (int)sizeof gd || !is_dir(gd)) break;
        snprintf(logs, sizeof logs, "%s/logs", gd);
        if (!is_dir(logs)) {
            printf("== generation %d: no logs (not played)\n", g);
            continue;
        }
        printf("== generation %d: %s\n", g, logs);
        uint64_t n = 0;
        int r = verify_logs(logs, complete, quick, &n);
        played++, total += n;
        if (r) rc = r, bad++;
    }
    if (played == 0) {
        cli_error(CMD, "%s: a training run with no generation played (no gen-GGG/logs)", dir);
        return CLI_FAIL;
    }
    printf("verify: training run, %d generation%s with logs, %" PRIu64 " games: %s\n", played,
           played == 1 ? "" : "s", total, bad ? "FAULTS FOUND" : "ok");
    return rc;
}

static int log_verify(const char *path, bool complete, bool quick) {
    uint64_t n;
    if (is_train_run(path)) return verify_train(path, complete, quick);
    return verify_logs(path, complete, quick, &n);
}

/* ------------------------------------------------------------------ cat, export */

typedef enum { OUT_RECORD, OUT_RECORD_STATS, OUT_RECORD_NOTES, OUT_JSON, OUT_HTML } out_kind_t;

typedef struct {
    bool one;       /* --index I / --game I */
    uint64_t which; /* I */
    out_kind_t kind;
    const char *out; /* --out FILE or --html OUT; NULL: standard output */
} emit_t;

/* Writes game g as e asks to f (records separated by a blank line). */
static int emit_game(const emit_t *e, FILE *f, const gl_game_t *g, bool first) {
    if (e->kind == OUT_JSON) return log_write_json(f, g);
    if (!first && fputc('\n', f) == EOF) return -1;
    return log_write_record(f, g,
                            e->kind == OUT_RECORD_STATS   ? LOG_RECORD_STATS
                            : e->kind == OUT_RECORD_NOTES ? LOG_RECORD_NOTES
                                                          : LOG_RECORD_PLAIN);
}

/* The games of path in game-index order (a duplicate once), or game e->which. */
static int log_games(const char *path, const emit_t *e) {
    opened_t o;
    int rc = open_logs(path, false, &o);
    if (rc) return rc;
    for (int i = 0; i < o.ls.nshards; i++)
        if (o.ls.shard[i].status != GL_SHARD_OK)
            fprintf(stderr, "gounki log: warning: %s is %s (%s); its sound frames are read\n",
                    o.ls.path[i], status_text(o.ls.shard[i].status), o.ls.shard[i].problem);
    gl_reader_t *r;
    char err[512];
    if (gl_reader_new(&r, &o.ls, err, sizeof err)) {
        cli_error(CMD, "%s", err);
        close_logs(&o);
        return CLI_FAIL;
    }
    gk_afile_t af = {0};
    FILE *f = stdout;
    if (e->out && e->kind != OUT_HTML) {
        if (gk_afile_open(&af, e->out, err, sizeof err)) {
            cli_error(CMD, "--out: %s", err);
            gl_reader_free(r);
            close_logs(&o);
            return CLI_FAIL;
        }
        f = af.f;
    }
    gl_game_t g;
    gl_game_init(&g);
    bool found = false, first = true;
    uint64_t written = 0;
    for (uint64_t i = 0; i < o.n && rc == CLI_OK; i++) {
        if (i && o.loc[i].index == o.loc[i - 1].index) continue; /* a duplicate: once */
        if (e->one && o.loc[i].index != e->which) continue;
        found = true;
        if (gl_reader_get(r, &o.loc[i], &g, err, sizeof err)) {
            cli_error(CMD, "%s", err);
            rc = CLI_FAIL;
        } else if (e->kind == OUT_HTML) {
            if (view_gamelog_write(e->out, &g, NULL, err, sizeof err)) {
                cli_error(CMD, "--html: game %" PRIu64 ": %s", g.index, err);
                rc = CLI_FAIL;
            }
        } else if (emit_game(e, f, &g, first)) {
            cli_error(CMD, "game %" PRIu64 ": cannot write it%s%s", g.index, e->out ? " to " : "",
                      e->out ? e->out : "");
            rc = CLI_FAIL;
        }
        first = false;
        written++;
    }
    if (rc == CLI_OK && e->one && !found) {
        cli_error(CMD, "no game %" PRIu64 " in %s", e->which, path);
        rc = CLI_FAIL;
    }
    if (af.f) {
        if (rc == CLI_OK && gk_afile_commit(&af, err, sizeof err)) {
            cli_error(CMD, "--out: %s", err);
            rc = CLI_FAIL;
        }
        gk_afile_abort(&af); /* after a failure: no partial file is left */
    }
    if (rc == CLI_OK && e->out)
        fprintf(stderr, "gounki log: wrote %s (%" PRIu64 " game%s)\n", e->out, written,
                written == 1 ? "" : "s");
    gl_game_free(&g);
    gl_reader_free(r);
    close_logs(&o);
    return rc;
}

/* ------------------------------------------------------------------ stats */

typedef struct {
    int level;
    ZSTD_CCtx *cc;
    uint64_t games, actions, searched, random, book, forced, top_children;
    uint64_t res[4], reason[GK_NREASONS];
    uint32_t *len;
    uint64_t nlen, caplen;
    uint64_t log_bytes, payload_bytes;
    uint64_t z_nostats, z_raw, z_raw_nostats, text_raw, z_text, text_nostats_raw, z_text_nostats;
    uint64_t playout_games, would_resign, false_resign, resigned;
    int err;
} stats_t;

static uint64_t zsize(stats_t *s, const void *p, size_t n) {
    size_t bound = ZSTD_compressBound(n);
    void *dst = malloc(bound ? bound : 1);
    if (!dst) {
        s->err = 1;
        return 0;
    }
    size_t z = ZSTD_compressCCtx(s->cc, dst, bound, p, n, s->level);
    free(dst);
    if (ZSTD_isError(z)) {
        s->err = 1;
        return 0;
    }
    return z;
}

/* Frame header as gl_frame_build writes it: 8 + 28 + 8 per game + 8 bytes. */
static uint64_t frame_overhead(uint32_t n) {
    return 8 + 28 + 8ull * n + 8;
}

static int stats_frame(void *ctx, const gl_frame_t *f, const gl_buf_t *payload, gl_game_t *games,
                       uint32_t n) {
    (void)payload;
    stats_t *s = ctx;
    char err[256];
    s->log_bytes += frame_overhead(n) + f->clen;
    s->payload_bytes += f->ulen;
    gl_buf_t nostats = {0}, raw = {0}, rawns = {0};
    char *text = NULL, *textns = NULL;
    size_t tlen = 0, tnlen = 0;
    FILE *t = open_memstream(&text, &tlen), *tn = open_memstream(&textns, &tnlen);
    int bad = !t || !tn;
    for (uint32_t k = 0; k < n && !bad; k++) {
        const gl_game_t *g = &games[k];
        s->games++;
        s->actions += g->nactions;
        s->res[g->result & 3]++;
        s->reason[g->reason < GK_NREASONS ? g->reason : 0]++;
        if (s->nlen == s->caplen) {
            uint64_t cap = s->caplen ? 2 * s->caplen : 1024;
            uint32_t *l = realloc(s->len, cap * sizeof *l);
            if (!l) {
                bad = 1;
                break;
            }
            s->len = l;
            s->caplen = cap;
        }
        s->len[s->nlen++] = g->turns;
        for (uint32_t i = 0; g->has_stats && i < g->nactions; i++) {
            switch (g->stats[i].kind) {
            case GL_ACTION_SEARCH: s->searched++; break;
            case GL_ACTION_RANDOM: s->random++; break;
            case GL_ACTION_BOOK: s->book++; break;
            default: s->forced++; break;
            }
            s->top_children += g->stats[i].ntop;
        }
        if (g->reason == GK_REASON_RESIGN) s->resigned++;
        if (g->flags & GL_FLAG_PLAYOUT) {
            s->playout_games++;
            if (g->resign_at) {
                s->would_resign++;
                int loser = g->result == GK_WIN_WHITE   ? GK_BLACK
                            : g->result == GK_WIN_BLACK ? GK_WHITE
                                                        : -1;
                if (loser != g->resign_side) s->false_resign++;
            }
        }
        if (gl_encode_game(g, GL_CODE_INDEX, false, &nostats, err, sizeof err) ||
            gl_encode_game(g, GL_CODE_RAW, true, &raw, err, sizeof err) ||
            gl_encode_game(g, GL_CODE_RAW, false, &rawns, err, sizeof err) ||
            log_write_record(t, g, LOG_RECORD_STATS) || log_write_record(tn, g, LOG_RECORD_PLAIN))
            bad = 1;
    }
    if (t) fclose(t);
    if (tn) fclose(tn);
    if (!bad) {
        s->z_nostats += frame_overhead(n) + zsize(s, nostats.p, nostats.n);
        s->z_raw += frame_overhead(n) + zsize(s, raw.p, raw.n);
        s->z_raw_nostats += frame_overhead(n) + zsize(s, rawns.p, rawns.n);
        s->text_raw += tlen;
        s->z_text += zsize(s, text, tlen);
        s->text_nostats_raw += tnlen;
        s->z_text_nostats += zsize(s, textns, tnlen);
    }
    free(text);
    free(textns);
    gl_buf_free(&nostats);
    gl_buf_free(&raw);
    gl_buf_free(&rawns);
    if (bad) s->err = 1;
    return bad;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void size_line(const char *what, uint64_t bytes, const stats_t *s, uint64_t base) {
    printf("  %-38s %10" PRIu64 " B  %8.1f B/game  %6.2f B/action  %5.2fx\n", what, bytes,
           s->games ? (double)bytes / (double)s->games : 0.0,
           s->actions ? (double)bytes / (double)s->actions : 0.0,
           bytes ? (double)base / (double)bytes : 0.0);
}

static int log_stats(const char *path, int level) {
    opened_t o;
    int rc = open_logs(path, true, &o);
    if (rc) return rc;
    stats_t s;
    memset(&s, 0, sizeof s);
    s.level = level;
    s.cc = ZSTD_createCCtx();
    if (!s.cc) {
        cli_error(CMD, "out of memory");
        close_logs(&o);
        return CLI_FAIL;
    }
    uint64_t faults = for_each_frame(&o.ls, stats_frame, &s, true);
    uint64_t files = 0;
    for (int i = 0; i < o.ls.nshards; i++) files += o.ls.shard[i].size;
    printf("log stats: %s: %d shard%s, %" PRIu64 " games", path, o.ls.nshards,
           o.ls.nshards == 1 ? "" : "s", s.games);
    if (o.ls.has_manifest) printf(" (run of %" PRIu64 ")", o.ls.manifest.games);
    printf("\n");
    if (s.games) {
        double g = (double)s.games;
        printf("results: White %" PRIu64 " (%.1f%%)  Draw %" PRIu64 " (%.1f%%)  Black %" PRIu64
               " (%.1f%%)\n",
               s.res[GK_WIN_WHITE], 100.0 * (double)s.res[GK_WIN_WHITE] / g, s.res[GK_DRAW],
               100.0 * (double)s.res[GK_DRAW] / g, s.res[GK_WIN_BLACK],
               100.0 * (double)s.res[GK_WIN_BLACK] / g);
        printf("termination:");
        for (int r = 0; r < GK_NREASONS; r++)
            if (s.reason[r]) printf(" %s %" PRIu64, gk_reason_text((gk_reason_t)r), s.reason[r]);
        printf("\n");
        qsort(s.len, s.nlen, sizeof *s.len, cmp_u32);
        uint64_t sum = 0;
        for (uint64_t i = 0; i < s.nlen; i++) sum += s.len[i];
        printf("length (turns): min %u  p10 %u  median %u  p90 %u  max %u  mean %.1f\n", s.len[0],
               s.len[s.nlen / 10], s.len[s.nlen / 2], s.len[s.nlen * 9 / 10], s.len[s.nlen - 1],
               (double)sum / g);
        /* A small histogram of lengths in ten equal buckets. */
        uint32_t lo = s.len[0], hi = s.len[s.nlen - 1];
        uint32_t w = (hi - lo) / 10 + 1;
        uint64_t b[10] = {0};
        for (uint64_t i = 0; i < s.nlen; i++) b[(s.len[i] - lo) / w]++;
        printf("length histogram:");
        for (int i = 0; i < 10; i++)
            if (lo + (uint32_t)i * w <= hi)
                printf(" %u-%u:%" PRIu64, lo + (uint32_t)i * w, lo + (uint32_t)(i + 1) * w - 1,
                       b[i]);
        printf("\n");
        printf("actions: %" PRIu64 " (%.1f per game): searched %" PRIu64 ", random %" PRIu64
               ", book %" PRIu64 ", forced %" PRIu64 "; %.1f children kept per search\n",
               s.actions, (double)s.actions / g, s.searched, s.random, s.book, s.forced,
               s.searched ? (double)s.top_children / (double)s.searched : 0.0);
        printf("resignations: %" PRIu64 " games resigned; %" PRIu64 " played out, %" PRIu64
               " of them would have resigned, %" PRIu64 " wrongly (false resignations %.1f%%)\n",
               s.resigned, s.playout_games, s.would_resign, s.false_resign,
               s.would_resign ? 100.0 * (double)s.false_resign / (double)s.would_resign : 0.0);
        printf("sizes (zstd level %d per frame; last column: text records + zstd / this):\n",
               level);
        size_line("log as written (files)", files, &s, s.z_text);
        size_line("log payload before zstd", s.payload_bytes, &s, s.z_text);
        size_line("log recompressed, gen() indices", s.log_bytes, &s, s.z_text);
        size_line("  without search statistics", s.z_nostats, &s, s.z_text_nostats);
        size_line("  raw 32-bit actions", s.z_raw, &s, s.z_text);
        size_line("  raw 32-bit actions, no statistics", s.z_raw_nostats, &s, s.z_text_nostats);
        size_line("text records with statistics, raw", s.text_raw, &s, s.z_text);
        size_line("text records with statistics + zstd", s.z_text, &s, s.z_text);
        size_line("text records (log cat), raw", s.text_nostats_raw, &s, s.z_text_nostats);
        size_line("text records (log cat) + zstd", s.z_text_nostats, &s, s.z_text_nostats);
        printf("compression: log %.1fx against its payload; text records + zstd are %.2fx the "
               "log without statistics\n",
               files ? (double)s.payload_bytes / (double)files : 0.0,
               s.z_nostats ? (double)s.z_text_nostats / (double)s.z_nostats : 0.0);
    }
    for (int i = 0; i < o.ls.nshards; i++)
        if (o.ls.shard[i].status != GL_SHARD_OK) {
            printf("warning: %s is %s: %s\n", o.ls.path[i], status_text(o.ls.shard[i].status),
                   o.ls.shard[i].problem);
            faults++;
        }
    ZSTD_freeCCtx(s.cc);
    free(s.len);
    close_logs(&o);
    if (s.err) cli_error(CMD, "could not measure every frame");
    return faults || s.err ? CLI_FAIL : CLI_OK;
}

/* ------------------------------------------------------------------ main */

/* The subcommand's options are checked once they are all known. */
typedef struct {
    bool stats, complete, quick, format_set;
    const char *out, *html;
} log_flags_t;

static int run_sub(const char *sub, const char *path, const log_flags_t *fl, emit_t *e,
                   long level) {
    bool is_cat = !strcmp(sub, "cat"), is_export = !strcmp(sub, "export");
    if ((e->one && !is_cat && !is_export) || (fl->stats && !is_cat) ||
        ((fl->complete || fl->quick) && strcmp(sub, "verify")) ||
        ((fl->out || fl->html || fl->format_set) && !is_export)) {
        cli_error(CMD, "an option does not apply to '%s' (see 'gounki log --help')", sub);
        return CLI_USAGE;
    }
    if (!strcmp(sub, "verify")) return log_verify(path, fl->complete, fl->quick);
    if (is_cat) {
        e->kind = fl->stats ? OUT_RECORD_STATS : OUT_RECORD;
        return log_games(path, e);
    }
    if (is_export) {
        if (fl->html && (!e->one || fl->out || fl->format_set)) {
            cli_error(CMD, "--html writes the page of one game: give --game I, and no --out "
                           "or --format");
            return CLI_USAGE;
        }
        if (fl->html) e->kind = OUT_HTML, e->out = fl->html;
        if (!fl->html) e->out = fl->out && strcmp(fl->out, "-") ? fl->out : NULL;
        return log_games(path, e);
    }
    if (!strcmp(sub, "stats")) return log_stats(path, (int)level);
    cli_error(CMD, "unknown subcommand '%s' (verify, cat, stats, export)", sub);
    return CLI_USAGE;
}

enum { OPT_FORMAT = 0x2001, OPT_OUT, OPT_HTML };

int cmd_log(int argc, char **argv) {
    static const struct option opts[] = {{"index", required_argument, 0, 'i'},
                                         {"game", required_argument, 0, 'g'},
                                         {"stats", no_argument, 0, 's'},
                                         {"complete", no_argument, 0, 'c'},
                                         {"quick", no_argument, 0, 'q'},
                                         {"level", required_argument, 0, 'l'},
                                         {"format", required_argument, 0, OPT_FORMAT},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"html", required_argument, 0, OPT_HTML},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    emit_t e = {.kind = OUT_RECORD_NOTES};
    log_flags_t fl = {0};
    long level = 9;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'g':
            /* --game names a game everywhere else; here an old spelling of --index. */
            if (!(*optarg >= '0' && *optarg <= '9')) {
                cli_error(CMD,
                          "--game: '%s' is not a game index (a log knows its game; "
                          "use --index I)",
                          optarg);
                return CLI_USAGE;
            }
            /* fall through */
        case 'i':
            if (cli_parse_u64(CMD, c == 'i' ? "--index" : "--game", optarg, &e.which))
                return CLI_USAGE;
            e.one = true;
            break;
        case 's': fl.stats = true; break;
        case 'c': fl.complete = true; break;
        case 'q': fl.quick = true; break;
        case 'l':
            if (cli_parse_long(CMD, "--level", optarg, 1, 22, &level)) return CLI_USAGE;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "record") && strcmp(optarg, "json")) {
                cli_error(CMD, "--format: '%s' is not a format (record, json)", optarg);
                return CLI_USAGE;
            }
            e.kind = strcmp(optarg, "json") ? OUT_RECORD_NOTES : OUT_JSON;
            fl.format_set = true;
            break;
        case OPT_OUT: fl.out = optarg; break;
        case OPT_HTML:
            if (!strcmp(optarg, "-")) {
                cli_error(CMD, "--html needs a file name");
                return CLI_USAGE;
            }
            fl.html = optarg;
            break;
        default: return cli_bad_option(CMD, argc, argv);
        }
    }
    if (argc - optind != 2) {
        cli_error(CMD, "expected a subcommand and a DIR or FILE (see 'gounki log --help')");
        return CLI_USAGE;
    }
    return run_sub(argv[optind], argv[optind + 1], &fl, &e, level);
}
