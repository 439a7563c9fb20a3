/* cli/cmd_log.c -- `gounki log verify|cat|stats|export`: read self-play game logs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../data/gamelog.h"
#include "../games/record.h"
#include "cli.h"

const char cmd_log_summary[] = "check, print and measure self-play game logs (verify, cat, stats)";

static const char help[] =
    "usage: gounki log verify DIR|FILE [--complete] [--quick]\n"
    "       gounki log cat DIR|FILE [--index I] [--stats]\n"
    "       gounki log stats DIR|FILE [--level L]\n"

    "DIR is a self-play run directory (DIR/manifest.gkm, DIR/shard-*.gkz); FILE one shard.\n"
    "verify  checks every frame (checksums, decompression) and every game (replayed against\n"
    "        the rules), reports torn or corrupt shards, duplicate games and, with a\n"
    "        manifest, missing games.  Exit 1 on any fault; --complete makes missing\n"
    "        games a fault too.  --quick checks the frames' checksums and the game indices\n"
    "        of their headers only (no decompression, no replay; at the speed of reading).\n"
    "cat     prints the games in game-index order as text game records (docs/FORMATS.md),\n"
    "        readable one at a time by 'gounki replay'.  --index I prints game I only\n"
    "        (--game I says the same: a number is an index, not a game's name);\n"
    "        --stats adds the search's root statistics of each action as ';' comments.\n"
    "stats   games, results by colour, terminations, lengths, false resignations, and the\n"
    "        bytes per game and per action of the log against the alternatives: without\n"
    "        statistics, with raw 32-bit actions, and zstd on the text records\n"
    "        (each compressed by frame at level L, default 9).\n";

#define CMD "log"

/* ------------------------------------------------------------------ helpers */

static const char *status_text(int st) {
    return st == GL_SHARD_OK ? "ok" : st == GL_SHARD_TORN ? "torn" : "corrupt";
}

/* Cuts g's actions into turns and writes a text record to f.  Returns 0 or -1. */
static int write_record(FILE *f, const gl_game_t *g, bool stats) {
    gk_record_t rec;
    if (gk_record_init(&rec, &g->rules)) return -1;
    char v[GK_TAG_VALUE_MAX];
    int bad = 0;
    snprintf(v, sizeof v, "gounki selfplay");
    bad |= gk_record_set_tag(&rec, "Event", v);
    snprintf(v, sizeof v, "%" PRIu64, g->index);
    bad |= gk_record_set_tag(&rec, "Round", v);
    snprintf(v, sizeof v, "gounki %s", g->engine);
    bad |= gk_record_set_tag(&rec, "White", v);
    bad |= gk_record_set_tag(&rec, "Black", v);
    bad |= gk_record_set_tag(&rec, "Result", gk_result_text((gk_result_t)g->result));
    bad |= gk_record_set_tag(&rec, "Termination", gk_reason_text((gk_reason_t)g->reason));
    snprintf(v, sizeof v, "%016" PRIx64, g->seed);
    bad |= gk_record_set_tag(&rec, "Seed", v);
    snprintf(v, sizeof v, "%016" PRIx64, g->weights_hash);
    bad |= gk_record_set_tag(&rec, "Weights", v);
    if (g->set.playouts)
        snprintf(v, sizeof v, "playouts %u", g->set.playouts);
    else
        snprintf(v, sizeof v, "time %u ms", g->set.time_ms);
    bad |= gk_record_set_tag(&rec, "Search", v);
    if (g->resign_at) {
        snprintf(v, sizeof v, "%s before action %u%s", g->resign_side ? "Black" : "White",
                 g->resign_at, g->flags & GL_FLAG_PLAYOUT ? " (played out)" : "");
        bad |= gk_record_set_tag(&rec, "Resign", v);
    }
    gk_pos_t p;
    gk_game_by_id(g->rules.game)->setup(&p, &g->rules);
    uint32_t start = 0;
    for (uint32_t i = 0; i < g->nactions && !bad; i++) {
        gk_play(&p, g->action[i]);
        if (p.in_turn == 0 || gk_over(&p)) {
            if (gk_record_push(&rec, g->action + start, (int)(i + 1 - start))) bad = 1;
            start = i + 1;
        }
    }
    /* A resignation in the middle of a Gobs turn leaves actions that are no complete move. */
    if (start < g->nactions) {
        snprintf(v, sizeof v, "%u actions of an unfinished turn left out", g->nactions - start);
        bad |= gk_record_set_tag(&rec, "Annotation", v);
    }
    snprintf(rec.result, sizeof rec.result, "%s", gk_result_text((gk_result_t)g->result));
    if (!bad && gk_record_write(&rec, f)) bad = 1;
    if (!bad && stats && g->has_stats) {
        const gk_game_t *G = gk_game_by_id(g->rules.game);
        G->setup(&p, &g->rules);
        for (uint32_t i = 0; i < g->nactions && !bad; i++) {
            const gl_ply_t *pl = &g->ply[i];
            char t[GK_MOVE_TEXT_MAX];
            if (G->action_text(&p, g->action[i], t, sizeof t) < 0) snprintf(t, sizeof t, "?");
            if (fprintf(f, "; %u turn %u %s %s: %s", i + 1, p.ply + 1,
                        p.stm == GK_WHITE ? "White" : "Black", t, gl_ply_kind_text(pl->kind)) < 0)
                bad = 1;
            if (pl->kind == GL_PLY_SEARCH) {
                fprintf(f, " visits %u value %+.4f legal %u top", pl->visits, (double)pl->value,
                        pl->nlegal);
                for (int k = 0; k < pl->ntop; k++) {
                    const gl_child_t *ch = &g->child[pl->first + (uint32_t)k];
                    if (G->action_text(&p, ch->action, t, sizeof t) < 0) snprintf(t, sizeof t, "?");
                    fprintf(f, " %s=%u", t, ch->visits);
                }
            }
            if (fputc('\n', f) == EOF) bad = 1;
            gk_play(&p, g->action[i]);
        }
    }
    gk_record_free(&rec);
    return bad ? -1 : 0;
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

static int log_verify(const char *path, bool complete, bool quick) {
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
    printf("\n%s\n", faults ? "verify: FAULTS FOUND" : "verify: ok");
    close_logs(&o);
    return faults ? CLI_FAIL : CLI_OK;
}

/* ------------------------------------------------------------------ cat */

static int log_cat(const char *path, bool one, uint64_t which, bool stats) {
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
    gl_game_t g;
    gl_game_init(&g);
    bool found = false, first = true;
    rc = CLI_OK;
    for (uint64_t i = 0; i < o.n && rc == CLI_OK; i++) {
        if (i && o.loc[i].index == o.loc[i - 1].index) continue; /* a duplicate: once */
        if (one && o.loc[i].index != which) continue;
        found = true;
        if (gl_reader_get(r, &o.loc[i], &g, err, sizeof err)) {
            cli_error(CMD, "%s", err);
            rc = CLI_FAIL;
            break;
        }
        if (!first) putchar('\n');
        first = false;
        if (write_record(stdout, &g, stats)) {
            cli_error(CMD, "game %" PRIu64 ": cannot write its record", g.index);
            rc = CLI_FAIL;
        }
    }
    if (rc == CLI_OK && one && !found) {
        cli_error(CMD, "no game %" PRIu64 " in %s", which, path);
        rc = CLI_FAIL;
    }
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
        s->len[s->nlen++] = g->plies;
        for (uint32_t i = 0; g->has_stats && i < g->nactions; i++) {
            switch (g->ply[i].kind) {
            case GL_PLY_SEARCH: s->searched++; break;
            case GL_PLY_RANDOM: s->random++; break;
            case GL_PLY_BOOK: s->book++; break;
            default: s->forced++; break;
            }
            s->top_children += g->ply[i].ntop;
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
            write_record(t, g, true) || write_record(tn, g, false))
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

int cmd_log(int argc, char **argv) {
    static const struct option opts[] = {
        {"index", required_argument, 0, 'i'}, {"game", required_argument, 0, 'g'},
        {"stats", no_argument, 0, 's'},       {"complete", no_argument, 0, 'c'},
        {"quick", no_argument, 0, 'q'},       {"level", required_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
    uint64_t which = 0;
    bool one = false, stats = false, complete = false, quick = false;
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
            if (cli_parse_u64(CMD, c == 'i' ? "--index" : "--game", optarg, &which))
                return CLI_USAGE;
            one = true;
            break;
        case 's': stats = true; break;
        case 'c': complete = true; break;
        case 'q': quick = true; break;
        case 'l':
            if (cli_parse_long(CMD, "--level", optarg, 1, 22, &level)) return CLI_USAGE;
            break;
        default: return cli_bad_option(CMD, argc, argv);
        }
    }
    if (argc - optind != 2) {
        cli_error(CMD, "expected a subcommand and a DIR or FILE (see 'gounki log --help')");
        return CLI_USAGE;
    }
    const char *sub = argv[optind], *path = argv[optind + 1];
    bool is_cat = !strcmp(sub, "cat");
    if ((one && !is_cat) || (stats && !is_cat) || ((complete || quick) && strcmp(sub, "verify"))) {
        cli_error(CMD, "an option does not apply to '%s' (see 'gounki log --help')", sub);
        return CLI_USAGE;
    }
    if (!strcmp(sub, "verify")) return log_verify(path, complete, quick);
    if (is_cat) return log_cat(path, one, which, stats);
    if (!strcmp(sub, "stats")) return log_stats(path, (int)level);
    cli_error(CMD, "unknown subcommand '%s' (verify, cat, stats)", sub);
    return CLI_USAGE;
}
