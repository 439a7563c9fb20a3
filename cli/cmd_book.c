/* cli/cmd_book.c -- `gounki book build|expand|show|stats|lines|bench|sample`: opening books. */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/files.h"
#include "../common/progress.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "../data/book.h"
#include "../data/gamelog.h"
#include "../eval/eval.h"
#include "../search/mcts.h"
#include "../search/params.h"
#include "../selfplay/book_expand.h"
#include "../selfplay/selfplay.h"
#include "cli.h"

const char cmd_book_summary[] = "opening books: build from logs, expand by search, show, lines";

static const char help[] =
    "usage: gounki book build --logs DIR... [--merge BOOK...] --out BOOK [--max-turns T]\n"
    "                         [--min-games N] [--game G --variant V]\n"
    "       [mpirun -np R] gounki book expand BOOK --nodes N [--playouts P | --time S]\n"
    "                         [--seed S] [--alpha A] [--width W] [--batch K] [--threads T]\n"
    "                         [--policy-cost C] [--weights FILE] [--mcts NAME=V,...]\n"
    "                         [--checkpoint S] [--peer-timeout S] [--stop-status S]\n"
    "       gounki book show BOOK [--position P] [--moves \"...\"] [--json]\n"
    "       gounki book stats BOOK\n"
    "       gounki book lines BOOK --out FILE [--max-error E] [--total-error E] [--turns T]\n"
    "                         [--balanced V] [--count N]\n"
    "       gounki book bench BOOK [--probes N]\n"
    "       gounki book sample BOOK [--count N] [--temperature T] [--random K] [--playouts P]\n"
    "An opening book is a graph of positions (transpositions are one node) with the book\n"
    "moves played from each, their game counts (W/D/L for the side to move), the search's\n"
    "value of the best move outside the book (the leaf), and the negamax value backed up\n"
    "from both.  Values are in [-1, 1] for the side to move.  docs/FORMATS.md, \"Opening\n"
    "books\"; docs/CLUSTER.md for expansion on a cluster.\n"
    "build   counts every position and move of the games in the logs (replayed), up to turn\n"
    "        T (--max-turns, default 16), drops moves played by fewer than N games\n"
    "        (--min-games, default 1), merges books given with --merge, writes BOOK.  With\n"
    "        neither logs nor books it writes a book holding the start position of --game.\n"
    "expand  best-first drop-out expansion until the book holds N nodes: each batch takes\n"
    "        the K (--batch, default 16) most urgent leaf moves (priority: alpha * value\n"
    "        shortfall + 1 per move from the start, alpha default 100; --policy-cost adds\n"
    "        C * -log(prior); --width W: at most W book moves a node, default 8, 0 = no\n"
    "        limit), makes them book moves and searches the new positions and,\n"
    "        without their book moves, their parents (P playouts each, default 800, one\n"
    "        thread per search; --threads searches at once per rank).  Nodes never searched\n"
    "        are searched first.  Same seed and budget: the same book at any number of ranks\n"
    "        and threads.  Killed or stopped (SIGTERM/SIGINT, exit 3 or --stop-status S),\n"
    "        the same command resumes from BOOK.journal; --checkpoint S rewrites BOOK every\n"
    "        S seconds (60).  --peer-timeout S: a rank not heard from for S seconds (10)\n"
    "        is given up and its searches go to the other ranks.\n"
    "show    the book moves at a position (default: the start) with counts, W/D/L, values\n"
    "        and depth below, the leaf, and the principal book line.\n"
    "stats   nodes, book moves, depth histogram, exits, bytes per node, provenance.\n"
    "lines   the book's exits as opening lines (the file --book reads): moves within E\n"
    "        (--max-error, default 0.1) of the best and a total error within E\n"
    "        (--total-error, default 0.2), up to T turns (0: where the book ends), exits\n"
    "        whose value is within +-V (--balanced) when asked, distinct exits, at most N.\n"
    "bench   load time, probes per second (positions in and not in the book), bytes per\n"
    "        node on disk and in memory.\n"
    "sample  N openings (default 10000) as self-play draws them: walks of the book at\n"
    "        temperature T (selfplay --openings book:BOOK,T; default 0.1) or, with --random\n"
    "        K, K uniformly random turns (--openings random:K); prints the distinct exit\n"
    "        positions, their length and the spread of their values for White (the book's,\n"
    "        or with --playouts P a search of each distinct exit, for both kinds alike).\n";

#define CMD "book"

/* ---- options: each subcommand's own are a table of rows, read by cli_getopt ---- */

enum { BO_STR, BO_ON, BO_INT, BO_LONG, BO_U64, BO_SEED, BO_DOUBLE, BO_PATHS };

/* A repeatable path option (at most 256). */
typedef struct paths {
    const char *p[256];
    int n;
} paths_t;

/* One option: its flag, how its value is read ([lo, hi] for numbers) and where it goes
 * (const char **, bool *, int *, long *, uint64_t *, double *, paths_t *). */
typedef struct bopt {
    const char *name;
    int kind;
    void *dst;
    double lo, hi;
    bool *given; /* set when the option is given; may be NULL */
} bopt_t;

#define BOPT_MAX   20
#define BOPT_FIRST 0x2001
typedef struct bopts {
    const bopt_t *row;
    int n;
    struct option opts[BOPT_MAX + 1];
} bopts_t;

static int bopt_take(const char *cmd, void *state, int opt, const char *arg) {
    const bopts_t *t = state;
    if (opt < BOPT_FIRST || opt >= BOPT_FIRST + t->n) return 0;
    const bopt_t *r = &t->row[opt - BOPT_FIRST];
    char flag[40];
    snprintf(flag, sizeof flag, "--%s", r->name);
    long v;
    int bad = 0;
    switch (r->kind) {
    case BO_STR: *(const char **)r->dst = arg; break;
    case BO_ON: *(bool *)r->dst = true; break;
    case BO_INT:
        if (!(bad = cli_parse_long(cmd, flag, arg, (long)r->lo, (long)r->hi, &v)))
            *(int *)r->dst = (int)v;
        break;
    case BO_LONG: bad = cli_parse_long(cmd, flag, arg, (long)r->lo, (long)r->hi, r->dst); break;
    case BO_U64:
        bad = cli_parse_u64_in(cmd, flag, arg, (uint64_t)r->lo, (uint64_t)r->hi, r->dst);
        break;
    case BO_SEED: bad = cli_parse_u64(cmd, flag, arg, r->dst); break;
    case BO_DOUBLE: bad = cli_parse_double(cmd, flag, arg, r->lo, r->hi, r->dst); break;
    case BO_PATHS: {
        paths_t *l = r->dst;
        if (l->n == 256) {
            cli_error(cmd, "build: more than 256 %s", flag);
            return -1;
        }
        l->p[l->n++] = arg;
        break;
    }
    }
    if (bad) return -1;
    if (r->given) *r->given = true;
    return 1;
}

/* Reads a subcommand's options: the position options when po is not NULL, then its own
 * rows[0..n).  Returns -1 when the subcommand goes on, its operands from argv[*first];
 * otherwise its exit status: CLI_OK after printing the help, CLI_USAGE after reporting. */
static int book_getopt(int argc, char **argv, cli_pos_opts_t *po, const bopt_t *rows, int n,
                       int *first) {
    bopts_t t = {.row = rows, .n = n};
    for (int i = 0; i < n && i < BOPT_MAX; i++)
        t.opts[i] =
            (struct option){rows[i].name, rows[i].kind == BO_ON ? no_argument : required_argument,
                            0, BOPT_FIRST + i};
    cli_group_t g[2];
    int ng = 0;
    if (po) g[ng++] = cli_pos_group(po);
    g[ng++] = (cli_group_t){t.opts, bopt_take, &t};
    int rc = cli_getopt(CMD, argc, argv, g, ng, -1, first);
    if (rc != CLI_HELP) return rc ? rc : -1;
    fputs(help, stdout);
    return CLI_OK;
}
#define NROWS(rows) ((int)(sizeof(rows) / sizeof *(rows)))

/* The one BOOK operand of argv[first..argc), or NULL (reported). */
static const char *book_arg(const char *sub, int argc, char **argv, int first) {
    if (first >= argc) {
        cli_error(CMD, "%s: which book? (gounki book %s BOOK ...)", sub, sub);
        return NULL;
    }
    if (first + 1 < argc) {
        cli_error(CMD, "%s: unexpected argument '%s'", sub, argv[first + 1]);
        return NULL;
    }
    return argv[first];
}

static const char *rules_text(const gk_rules_t *r, char *buf, size_t cap) {
    const gk_game_t *g = gk_game_by_id(r->game);
    snprintf(buf, cap, "%s (%s)", g->name, g->variants[r->variant]);
    return buf;
}

/* ------------------------------------------------------------------ build */

static int add_logs(const char *path, bk_book_t *b, bool *have_rules, gk_rules_t *rules,
                    int max_turns, uint64_t *games, char *err, size_t errcap) {
    gl_logset_t ls;
    memset(&ls, 0, sizeof ls);
    gl_loc_t *loc = NULL;
    uint64_t n = 0;
    gl_reader_t *rd = NULL;
    gl_game_t g;
    gl_game_init(&g);
    int rc = 0;
    gk_progress_t prog; /* reading the logs: "N/M games read" */
    gk_progress_init(&prog, stderr, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    if (gl_logset_open(&ls, path, true, err, errcap) < 0) {
        rc = GK_E_FORMAT;
        goto done;
    }
    for (int i = 0; i < ls.nshards; i++)
        if (ls.shard[i].status != GL_SHARD_OK)
            fprintf(stderr, "gounki book: warning: %s: %s; its sound frames are used\n", ls.path[i],
                    ls.shard[i].problem);
    if (gl_logset_locate(&ls, &loc, &n, err, errcap) < 0 ||
        gl_reader_new(&rd, &ls, err, errcap) < 0) {
        rc = GK_E_FORMAT;
        goto done;
    }
    if (n == 0) {
        rc = gk_fail(err, errcap, GK_E_EMPTY, "%s: no games", path);
        goto done;
    }
    uint64_t used = 0, w = 0, d = 0, l = 0;
    uint64_t wh = 0;
    bool mixed = false;
    uint32_t playouts = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (gk_progress_due(&prog))
            gk_progress_line(&prog, "book build: %s: %" PRIu64 "/%" PRIu64 " games read", path, i,
                             n);
        if (i && loc[i].index == loc[i - 1].index) continue; /* a duplicate */
        if (gl_reader_get(rd, &loc[i], &g, err, errcap) < 0) {
            gk_err_wrap(err, errcap, GK_E_FORMAT, "%s: ", path);
            rc = GK_E_FORMAT;
            goto done;
        }
        if (!*have_rules) {
            *rules = g.rules;
            *have_rules = true;
            if ((rc = bk_init(b, rules, err, errcap)) < 0) goto done;
        }
        if (g.rules.game != rules->game || g.rules.variant != rules->variant) {
            char r1[64], r2[64];
            rc = gk_fail(err, errcap, GK_E_MISMATCH, "%s: game %" PRIu64 " is %s, the book %s",
                         path, g.index, rules_text(&g.rules, r1, sizeof r1),
                         rules_text(rules, r2, sizeof r2));
            goto done;
        }
        if ((rc = bk_add_game(b, g.action, g.nactions, g.result, max_turns, err, errcap)) < 0) {
            gk_err_wrap(err, errcap, rc, "%s: game %" PRIu64 ": ", path, g.index);
            goto done;
        }
        if (used == 0) wh = g.weights_hash, playouts = g.set.playouts;
        mixed |= g.weights_hash != wh;
        used++;
        w += g.result == GK_WIN_WHITE, l += g.result == GK_WIN_BLACK, d += g.result == GK_DRAW;
    }
    gk_progress_end(&prog);
    *games += used;
    char name[32];
    int k = 0;
    for (; k < 64; k++) {
        snprintf(name, sizeof name, "log_%d", k);
        char tmp[8];
        if (!bk_prov_get(b, name, tmp, sizeof tmp)) break;
    }
    bk_prov_set(b, name,
                "%s games %" PRIu64 " white %" PRIu64 " draws %" PRIu64 " black %" PRIu64
                " weights %016" PRIx64 "%s playouts %u",
                path, used, w, d, l, wh, mixed ? " (and others)" : "", playouts);
    fprintf(stderr, "book build: %s: %" PRIu64 " games\n", path, used);
done:
    gk_progress_end(&prog); /* before the caller's error line */
    gl_game_free(&g);
    gl_reader_free(rd);
    free(loc);
    gl_logset_free(&ls);
    return rc;
}

/* Records in b's provenance that m (read from path) was merged, and, when the merge
 * succeeded, m's own provenance under the merge's number. */
static void note_merge(bk_book_t *b, const bk_book_t *m, const char *path, bool merged) {
    char name[32], tmp[8];
    int k = 0;
    for (; k < 64; k++) {
        snprintf(name, sizeof name, "merged_%d", k);
        if (!bk_prov_get(b, name, tmp, sizeof tmp)) break;
    }
    bk_prov_set(b, name, "%s nodes %u book_moves %" PRIu64 " batches %" PRIu64, path, m->nnodes,
                m->nedges, m->batches);
    for (const char *s = m->prov; merged && s && *s;) {
        const char *e = strchr(s, '\n');
        size_t ll = e ? (size_t)(e - s) : strlen(s);
        const char *sp = memchr(s, ' ', ll);
        if (sp) {
            char key[96];
            snprintf(key, sizeof key, "m%d_%.*s", k, (int)(sp - s), s);
            bk_prov_set(b, key, "%.*s", (int)(ll - (size_t)(sp - s) - 1), sp + 1);
        }
        s += ll + (e ? 1 : 0);
    }
}

static int sub_build(int argc, char **argv) {
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    paths_t logs = {.n = 0}, merges = {.n = 0};
    const char *out = NULL;
    long max_turns = 16, min_games = 1;
    const bopt_t rows[] = {{"logs", BO_PATHS, &logs, 0, 0, NULL},
                           {"merge", BO_PATHS, &merges, 0, 0, NULL},
                           {"out", BO_STR, &out, 0, 0, NULL},
                           {"max-turns", BO_LONG, &max_turns, 1, 65535, NULL},
                           {"min-games", BO_LONG, &min_games, 1, 1000000000, NULL}};
    int first, st = book_getopt(argc, argv, &po, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    bool game_given = po.game || po.variant;
    const int nlogs = logs.n, nmerges = merges.n;
    if (first != argc) {
        cli_error(CMD, "build: unexpected argument '%s'", argv[first]);
        return CLI_USAGE;
    }
    if (!out) {
        cli_error(CMD, "build: --out BOOK is required");
        return CLI_USAGE;
    }
    if (po.position || po.moves) {
        cli_error(CMD, "build: a book starts at the start position (no --position, --moves)");
        return CLI_USAGE;
    }
    char err[1024];
    if (gk_check_writable(out, err, sizeof err) < 0) {
        cli_error(CMD, "build: --out: %s", err);
        return CLI_FAIL;
    }
    gk_rules_t rules, want;
    bool have_rules = false;
    if (game_given || (!nlogs && !nmerges)) {
        int rc = cli_rules(CMD, &po, &want);
        if (rc) return rc;
        want.turn_limit = GK_DEFAULT_TURN_LIMIT;
        rules = want;
        have_rules = true;
    }
    bk_book_t b;
    memset(&b, 0, sizeof b);
    if (have_rules && bk_init(&b, &rules, err, sizeof err) < 0) {
        cli_error(CMD, "build: %s", err);
        return CLI_FAIL;
    }
    int rc = CLI_FAIL;
    uint64_t games = 0;
    for (int i = 0; i < nmerges; i++) {
        bk_book_t m;
        if (bk_load(merges.p[i], have_rules ? &rules : NULL, &m, err, sizeof err) < 0) {
            cli_error(CMD, "build: --merge: %s", err);
            goto done;
        }
        if (!have_rules) {
            rules = m.rules;
            have_rules = true;
            if (bk_init(&b, &rules, err, sizeof err) < 0) {
                bk_free(&m);
                cli_error(CMD, "build: %s", err);
                goto done;
            }
        }
        int mr = bk_merge(&b, &m, err, sizeof err);
        note_merge(&b, &m, merges.p[i], mr == 0);
        bk_free(&m);
        if (mr < 0) {
            cli_error(CMD, "build: --merge %s: %s", merges.p[i], err);
            goto done;
        }
    }
    for (int i = 0; i < nlogs; i++) {
        if (add_logs(logs.p[i], &b, &have_rules, &rules, (int)max_turns, &games, err, sizeof err) <
            0) {
            cli_error(CMD, "build: %s", err);
            goto done;
        }
    }
    if (bk_prune(&b, (uint32_t)min_games, err, sizeof err) < 0 ||
        bk_update(&b, err, sizeof err) < 0) {
        cli_error(CMD, "build: %s", err);
        goto done;
    }
    bk_prov_set(&b, "build_engine", "gounki %s", GK_VERSION);
    char rt[64];
    bk_prov_set(&b, "build_rules", "%s", rules_text(&rules, rt, sizeof rt));
    if (nlogs)
        bk_prov_set(&b, "build_counts", "games %" PRIu64 " max_turns %ld min_games %ld", games,
                    max_turns, min_games);
    if (bk_new_lineage(&b, err, sizeof err) < 0 || bk_save(&b, out, err, sizeof err) < 0) {
        cli_error(CMD, "build: %s", err);
        goto done;
    }
    printf("book build: %s: %u nodes, %" PRIu64 " book moves (%s; %" PRIu64
           " games from %d log%s, %d book%s merged)\n",
           out, b.nnodes, b.nedges, rt, games, nlogs, nlogs == 1 ? "" : "s", nmerges,
           nmerges == 1 ? "" : "s");
    rc = CLI_OK;
done:
    bk_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ expand */

static volatile sig_atomic_t stop_flag; /* the one mutable global: the signal handler's flag */

static void on_signal(int sig) {
    (void)sig;
    stop_flag = 1;
}

/* A search parameter of book expand's --mcts list; the ones expand sets itself are refused. */
static int expand_param(void *ctx, const char *name, const char *value, char *err, size_t cap) {
    if (!strcmp(name, "threads") || !strcmp(name, "seed") || !strcmp(name, "reuse")) {
        snprintf(err, cap, "book expand sets it itself (see --threads, --seed)");
        return -1;
    }
    return mcts_params_set(ctx, NULL, name, value, err, cap);
}

/* Rank 0's closing line; the exit status of any rank. */
static int expand_summary(const bx_opts_t *o, const bx_summary_t *sum, int stop_status) {
    if (sum->rank != 0) return sum->stopped || stop_flag ? stop_status : CLI_OK;
    uint64_t added = sum->nodes - sum->nodes_before;
    fprintf(stderr,
            "book expand: %s: %s: %" PRIu64 " nodes (+%" PRIu64 " in %.1f s: %.0f nodes/h, %" PRIu64
            " searches, %" PRIu64 " batches, %.0f playouts/s; %d rank%s x %d thread%s%s); root "
            "value %+.3f%s\n",
            sum->stopped     ? "stopped by a signal"
            : sum->exhausted ? "no leaf left to expand"
                             : "done",
            o->book, sum->nodes, added, sum->seconds,
            sum->seconds > 0 ? (double)added / sum->seconds * 3600 : 0.0, sum->searches,
            sum->batches, sum->seconds > 0 ? (double)sum->playouts / sum->seconds : 0.0, sum->ranks,
            sum->ranks > 1 ? "s" : "", o->threads, o->threads > 1 ? "s" : "",
            sum->lost == 0   ? ""
            : sum->lost == 1 ? ", 1 rank lost"
                             : ", ranks lost",
            isnan(sum->root_value) ? 0.0 : (double)sum->root_value,
            sum->stopped ? "; run the same command to continue" : "");
    return sum->stopped ? stop_status : CLI_OK;
}

static int sub_expand(int argc, char **argv) {
    bx_opts_t o;
    memset(&o, 0, sizeof o);
    o.playouts = 800;
    o.seed = 1;
    o.sel.alpha = 100;
    o.sel.width = 8;
    o.batch = 16;
    o.threads = 1;
    o.checkpoint_s = 60;
    o.peer_seconds = 10;
    o.out = stderr;
    mcts_params_default(&o.mcts);
    const char *mcts = NULL;
    bool have_nodes = false, have_playouts = false;
    long stop_status = 3; /* --stop-status: exit status of a stop by a signal */
    const bopt_t rows[] = {{"nodes", BO_U64, &o.nodes, 1, BK_MAX_NODES, &have_nodes},
                           {"playouts", BO_U64, &o.playouts, 1, 100000000, &have_playouts},
                           {"time", BO_DOUBLE, &o.time_s, 0.001, 86400, NULL},
                           {"seed", BO_SEED, &o.seed, 0, 0, NULL},
                           {"alpha", BO_DOUBLE, &o.sel.alpha, 0, 1e6, NULL},
                           {"width", BO_INT, &o.sel.width, 0, GK_MAX_ACTIONS, NULL},
                           {"batch", BO_INT, &o.batch, 1, BK_MAX_BATCH / 2, NULL},
                           {"threads", BO_INT, &o.threads, 1, 1024, NULL},
                           {"policy-cost", BO_DOUBLE, &o.sel.policy_cost, 0, 1e6, NULL},
                           {"weights", BO_STR, &o.weights, 0, 0, NULL},
                           {"mcts", BO_STR, &mcts, 0, 0, NULL},
                           {"checkpoint", BO_DOUBLE, &o.checkpoint_s, 0, 1e7, NULL},
                           {"peer-timeout", BO_DOUBLE, &o.peer_seconds, 0.1, 1e6, NULL},
                           {"quiet", BO_ON, &o.quiet, 0, 0, NULL},
                           {"stop-status", BO_LONG, &stop_status, 0, 125, NULL}};
    int first, st = book_getopt(argc, argv, NULL, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    o.book = book_arg("expand", argc, argv, first);
    if (!o.book) return CLI_USAGE;
    if (!have_nodes) {
        cli_error(CMD, "expand: --nodes N is required (the book's target size)");
        return CLI_USAGE;
    }
    if (have_playouts && o.time_s > 0) {
        cli_error(CMD, "expand: --playouts and --time exclude each other");
        return CLI_USAGE;
    }
    if (o.time_s > 0) o.playouts = 0;
    char err[1024];
    if (mcts && params_list(mcts, expand_param, &o.mcts, err, sizeof err) < 0) {
        cli_error(CMD, "expand: --mcts: %s", err);
        return CLI_USAGE;
    }
    o.stop = &stop_flag;
    /* Before MPI_Init, which can take long: a signal then is a stop too, not a kill. */
    cli_catch_stop_signals(on_signal, true); /* the expansion ends at a batch boundary */
    if (cli_mpi_begin(CMD)) return CLI_FAIL;
    bx_summary_t sum;
    memset(&sum, 0, sizeof sum);
    int rc = bx_run(&o, &sum, err, sizeof err);
    if (rc < 0) {
        if (err[0]) cli_error(CMD, "expand: %s", err);
        rc = CLI_FAIL;
    } else {
        rc = expand_summary(&o, &sum, (int)stop_status);
    }
    cli_mpi_end(sum.abandoned);
    return rc;
}

/* ------------------------------------------------------------------ show */

static int load_book(const char *sub, const char *path, bk_book_t *b) {
    char err[1024];
    if (bk_load(path, NULL, b, err, sizeof err) < 0) {
        cli_error(CMD, "%s: %s", sub, err);
        return CLI_FAIL;
    }
    return 0;
}

static int sub_show(int argc, char **argv) {
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    bool json = false;
    const bopt_t rows[] = {{"json", BO_ON, &json, 0, 0, NULL}};
    int first, st = book_getopt(argc, argv, &po, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    bool game_given = po.game || po.variant;
    const char *path = book_arg("show", argc, argv, first);
    if (!path) return CLI_USAGE;
    bk_book_t b;
    int rc = load_book("show", path, &b);
    if (rc) return rc;
    const gk_game_t *g = gk_game_by_id(b.rules.game);
    if (game_given) {
        gk_rules_t r;
        rc = cli_rules(CMD, &po, &r);
        if (!rc && (r.game != b.rules.game || r.variant != b.rules.variant)) {
            char r1[64];
            cli_error(CMD, "show: %s is a book for %s", path, rules_text(&b.rules, r1, sizeof r1));
            rc = CLI_USAGE;
        }
        if (rc) goto done;
    }
    po.game = g->name;
    po.variant = g->variants[b.rules.variant];
    po.turn_limit = b.rules.turn_limit;
    gk_pos_t pos;
    rc = cli_load_position(CMD, &po, &pos, NULL);
    if (rc) goto done;
    gk_sb_t sb;
    gk_sb_growing(&sb);
    bk_describe(&b, &pos, json, &sb);
    if (gk_sb_len(&sb) < 0) {
        cli_error(CMD, "show: out of memory");
        rc = CLI_FAIL;
    } else {
        fputs(sb.p, stdout);
    }
    gk_sb_free(&sb);
done:
    bk_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ stats */

static int sub_stats(int argc, char **argv) {
    int first, st = book_getopt(argc, argv, NULL, NULL, 0, &first);
    if (st >= 0) return st;
    const char *path = book_arg("stats", argc, argv, first);
    if (!path) return CLI_USAGE;
    bk_book_t b;
    double t0 = gk_now_s();
    int rc = load_book("stats", path, &b);
    double tl = gk_now_s() - t0;
    if (rc) return rc;
    char rt[64];
    uint64_t games = 0, w = 0, d = 0, l = 0, exits = 0, exit_turns = 0, budget = 0;
    uint64_t leaf_value = 0, leaf_full = 0, leaf_none = 0, term = 0, leaf_best = 0, inner_n = 0;
    uint32_t max_turn = 0;
    for (uint32_t i = 0; i < b.nnodes; i++) {
        const bk_node_t *x = &b.node[i];
        if (x->turn > max_turn) max_turn = x->turn;
        bool inner = false;
        float top = -INFINITY;
        for (int j = 0; j < x->nedges; j++) {
            const bk_edge_t *e = &b.edge[x->first + (uint32_t)j];
            if (!isnan(e->value) && e->value > top) top = e->value;
            w += e->w, d += e->d, l += e->l;
            if (e->term == BK_CHILD_NODE)
                inner = true;
            else
                term++;
        }
        if (!inner) exits++, exit_turns += x->turn;
        if (x->nedges) inner_n++;
        if (x->nedges && x->leaf.kind == BK_LEAF_VALUE && x->leaf.value > top) leaf_best++;
        if (x->leaf.kind == BK_LEAF_VALUE)
            leaf_value++, budget += x->leaf.budget;
        else if (x->leaf.kind == BK_LEAF_FULL)
            leaf_full++;
        else
            leaf_none++;
    }
    const bk_edge_t *re = b.edge + b.node[b.root].first;
    for (int j = 0; j < b.node[b.root].nedges; j++) games += re[j].w + re[j].d + re[j].l;
    printf("book        %s\n", path);
    printf("rules       %s\n", rules_text(&b.rules, rt, sizeof rt));
    printf("nodes       %u\n", b.nnodes);
    printf("book moves  %" PRIu64 " (%.2f per node; %" PRIu64 " end the game)\n", b.nedges,
           (double)b.nedges / b.nnodes, term);
    printf("games       %" PRIu64 " at the start position (moves played in all: W %" PRIu64
           " D %" PRIu64 " L %" PRIu64 " for the mover)\n",
           games, w, d, l);
    printf("leaves      %" PRIu64 " searched (%.0f playouts on average), %" PRIu64
           " with every move in the book, %" PRIu64 " not searched\n",
           leaf_value, leaf_value ? (double)budget / (double)leaf_value : 0.0, leaf_full,
           leaf_none);
    printf("out of book %" PRIu64 " of the %" PRIu64 " nodes with book moves have a leaf better "
           "than every book move (an engine leaves the book there)\n",
           leaf_best, inner_n);
    const bk_node_t *root = &b.node[b.root];
    printf("root value  %+.3f (for White), %u actions of book on the longest line\n",
           isnan(root->value) ? 0.0 : (double)root->value, root->below);
    printf("exits       %" PRIu64 " nodes without a book move to a position, mean depth %.2f "
           "turns\n",
           exits, exits ? (double)exit_turns / (double)exits : 0.0);
    printf("size        %" PRIu64 " bytes on disk (%.1f per node), %zu in memory (%.1f per "
           "node), loaded in %.3f s\n",
           b.file_bytes, (double)b.file_bytes / b.nnodes, bk_memory(&b),
           (double)bk_memory(&b) / b.nnodes, tl);
    printf("batches     %" PRIu64 " expansion batches, lineage %016" PRIx64 "\n", b.batches,
           b.lineage);
    printf("depth       turn: nodes\n");
    uint64_t *hist = calloc((size_t)max_turn + 1, sizeof *hist);
    if (hist) {
        for (uint32_t i = 0; i < b.nnodes; i++) hist[b.node[i].turn]++;
        for (uint32_t p = 0; p <= max_turn; p++)
            if (hist[p]) printf("            %4u: %" PRIu64 "\n", p, hist[p]);
        free(hist);
    }
    printf("provenance\n");
    for (const char *s = b.prov; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t ll = e ? (size_t)(e - s) : strlen(s);
        printf("            %.*s\n", (int)ll, s);
        s += ll + (e ? 1 : 0);
    }
    bk_free(&b);
    return CLI_OK;
}

/* ------------------------------------------------------------------ lines */

static int sub_lines(int argc, char **argv) {
    bk_lines_opts_t lo = {.max_error = 0.1, .total_error = 0.2, .turns = 0, .balanced = -1};
    const char *out = NULL;
    long count = 0;
    const bopt_t rows[] = {{"out", BO_STR, &out, 0, 0, NULL},
                           {"max-error", BO_DOUBLE, &lo.max_error, 0, 2, NULL},
                           {"total-error", BO_DOUBLE, &lo.total_error, 0, 1e6, NULL},
                           {"turns", BO_INT, &lo.turns, 0, 65535, NULL},
                           {"balanced", BO_DOUBLE, &lo.balanced, 0, 1, NULL},
                           {"count", BO_LONG, &count, 1, OL_MAX_LINES - 1, NULL}};
    int first, st = book_getopt(argc, argv, NULL, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    lo.count = (uint32_t)count;
    const char *path = book_arg("lines", argc, argv, first);
    if (!path) return CLI_USAGE;
    if (!out) {
        cli_error(CMD, "lines: --out FILE is required");
        return CLI_USAGE;
    }
    char err[1024];
    if (gk_check_writable(out, err, sizeof err) < 0) {
        cli_error(CMD, "lines: --out: %s", err);
        return CLI_FAIL;
    }
    bk_book_t b;
    int rc = load_book("lines", path, &b);
    if (rc) return rc;
    bk_lines_t L;
    gk_sb_t sb;
    gk_sb_growing(&sb);
    rc = CLI_FAIL;
    if (bk_lines(&b, &lo, &L, err, sizeof err) < 0) {
        cli_error(CMD, "lines: %s", err);
        goto done;
    }
    if (L.nlines == 0) {
        cli_error(CMD, "lines: no line of the book fits the windows (try larger errors)");
        bk_lines_free(&L);
        goto done;
    }
    if (L.nlines > (OL_MAX_LINES - 1)) L.nlines = (OL_MAX_LINES - 1);
    if (bk_lines_text(&b, &L, &sb, err, sizeof err) < 0 ||
        gk_write_atomic(out, sb.p, sb.n, err, sizeof err) < 0) {
        cli_error(CMD, "lines: %s", err);
        bk_lines_free(&L);
        goto done;
    }
    double sum = 0, sq = 0, mx = 0, turns = 0;
    uint32_t nv = 0;
    for (uint32_t i = 0; i < L.nlines; i++) {
        turns += L.line[i].turns;
        if (isnan(L.line[i].exit)) continue;
        double v = L.line[i].exit;
        sum += v, sq += v * v, nv++;
        if (fabs(v) > mx) mx = fabs(v);
    }
    double mean = nv ? sum / nv : 0, sd = nv ? sqrt(fmax(0, sq / nv - mean * mean)) : 0;
    printf("book lines: %s: %u lines (distinct exits), %.1f turns on average; exit values for "
           "White: mean %+.3f, sd %.3f, max |v| %.3f\n",
           out, L.nlines, turns / L.nlines, mean, sd, mx);
    bk_lines_free(&L);
    rc = CLI_OK;
done:
    gk_sb_free(&sb);
    bk_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ bench */

static int sub_bench(int argc, char **argv) {
    uint64_t probes = 20000000;
    const bopt_t rows[] = {{"probes", BO_U64, &probes, 1, 1000000000000.0, NULL}};
    int first, st = book_getopt(argc, argv, NULL, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    const char *path = book_arg("bench", argc, argv, first);
    if (!path) return CLI_USAGE;
    bk_book_t b;
    double loads[3];
    for (int k = 0; k < 3; k++) {
        double t0 = gk_now_s();
        int rc = load_book("bench", path, &b);
        loads[k] = gk_now_s() - t0;
        if (rc) return rc;
        if (k < 2) bk_free(&b);
    }
    double tload = loads[0];
    for (int k = 1; k < 3; k++)
        if (loads[k] < tload) tload = loads[k];
    /* The positions of every node (hits) and one position next to each (misses). */
    uint32_t n = b.nnodes;
    gk_pos_t *hit = malloc((size_t)n * sizeof *hit), *miss = malloc((size_t)n * sizeof *miss);
    if (!hit || !miss) {
        free(hit);
        free(miss);
        bk_free(&b);
        cli_error(CMD, "bench: out of memory");
        return CLI_FAIL;
    }
    uint32_t nh = 0, nm = 0;
    char err[512];
    for (uint32_t i = 0; i < n; i++) {
        gk_pos_t p;
        if (bk_position(&b, i, &p, err, sizeof err) < 0) continue;
        hit[nh++] = p;
        gk_action_t list[GK_MAX_ACTIONS];
        int k = gk_gen(&p, list);
        for (int j = 0; j < k; j++) {
            gk_pos_t q = p;
            gk_play(&q, list[j]);
            if (bk_probe(&b, &q) < 0) {
                miss[nm++] = q;
                break;
            }
        }
    }
    double rate[2], wall[2] = {0, 0};
    uint64_t found[2] = {0, 0};
    for (int kind = 0; kind < 2; kind++) {
        const gk_pos_t *ps = kind ? miss : hit;
        uint32_t np = kind ? nm : nh;
        if (!np) {
            rate[kind] = 0;
            continue;
        }
        /* CPU time of this one thread (the machine may be shared): probes per CPU second. */
        double t0 = gk_cpu_s(), w0 = gk_now_s();
        for (uint64_t i = 0; i < probes; i++) found[kind] += bk_probe(&b, &ps[i % np]) >= 0;
        double dt = gk_cpu_s() - t0;
        wall[kind] = gk_now_s() - w0;
        rate[kind] = dt > 0 ? (double)probes / dt : 0;
    }
    printf("book bench: %s: %u nodes, %" PRIu64 " book moves\n", path, b.nnodes, b.nedges);
    printf("load        %.3f s (best of 3), %.2f M nodes/s\n", tload, n / tload / 1e6);
    printf("probes      hits %.2f M per CPU second (%u positions, %" PRIu64 " of %" PRIu64
           " found), misses %.2f M per CPU second (%u positions, %" PRIu64
           " found), 1 thread; wall %.2f + %.2f s\n",
           rate[0] / 1e6, nh, found[0], nh ? probes : 0, rate[1] / 1e6, nm, found[1], wall[0],
           wall[1]);
    printf("bytes/node  %.1f on disk, %.1f in memory\n", (double)b.file_bytes / n,
           (double)bk_memory(&b) / n);
    int bad = found[0] != (nh ? probes : 0) || found[1] != 0;
    free(hit);
    free(miss);
    bk_free(&b);
    if (bad) {
        cli_error(CMD, "bench: a probe gave a wrong answer");
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* ------------------------------------------------------------------ sample */

typedef struct exit_rec {
    uint64_t key, check;
    uint32_t count;
    float value; /* for White: the book's, or the search's */
    gk_pos_t pos;
} exit_rec_t;

static int cmp_exit(const void *a, const void *b) {
    const exit_rec_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->check != y->check) return x->check < y->check ? -1 : 1;
    return 0;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int sub_sample(int argc, char **argv) {
    long count = 10000, random_turns = -1, playouts = 0;
    double temp = 0.1;
    uint64_t seed = 1;
    const bopt_t rows[] = {{"count", BO_LONG, &count, 1, 10000000, NULL},
                           {"temperature", BO_DOUBLE, &temp, 0, 100, NULL},
                           {"random", BO_LONG, &random_turns, 0, 1000, NULL},
                           {"playouts", BO_LONG, &playouts, 1, 100000000, NULL},
                           {"seed", BO_SEED, &seed, 0, 0, NULL}};
    int first, st = book_getopt(argc, argv, NULL, rows, NROWS(rows), &first);
    if (st >= 0) return st;
    const char *path = book_arg("sample", argc, argv, first);
    if (!path) return CLI_USAGE;
    bk_book_t b;
    int rc = load_book("sample", path, &b);
    if (rc) return rc;
    const gk_game_t *g = gk_game_by_id(b.rules.game);
    exit_rec_t *ex = malloc((size_t)count * sizeof *ex);
    if (!ex) {
        bk_free(&b);
        cli_error(CMD, "sample: out of memory");
        return CLI_FAIL;
    }
    double turns = 0;
    gk_action_t walk[512], list[GK_MAX_ACTIONS];
    for (long i = 0; i < count; i++) {
        uint64_t rng = seed ^ ((uint64_t)i + 1) * 0xD1B54A32D192ED03ull;
        gk_splitmix64(&rng);
        gk_pos_t p;
        g->setup(&p, &b.rules);
        if (random_turns >= 0) {
            while (p.turn < random_turns && !gk_over(&p)) {
                int n = gk_gen(&p, list), k = 0;
                gk_action_t keep[GK_MAX_ACTIONS];
                for (int j = 0; j < n; j++) {
                    gk_pos_t q = p;
                    gk_play(&q, list[j]);
                    if (!gk_over(&q)) keep[k++] = list[j];
                }
                if (!k) break;
                gk_play(&p, keep[gk_splitmix64(&rng) % (uint64_t)k]);
            }
        } else {
            int n = bk_walk(&b, temp, &rng, walk, 512);
            for (int j = 0; j < n; j++) gk_play(&p, walk[j]);
        }
        turns += p.turn;
        int32_t k = bk_probe(&b, &p);
        float v = k >= 0 ? b.node[k].value : NAN;
        if (k >= 0 && !isnan(v) && b.node[k].stm != GK_WHITE) v = -v;
        ex[i] = (exit_rec_t){p.hash, bk_check(&p), 1, v, p};
    }
    qsort(ex, (size_t)count, sizeof *ex, cmp_exit);
    long nd = 0;
    for (long i = 0; i < count; i++) {
        if (nd && !cmp_exit(&ex[nd - 1], &ex[i]))
            ex[nd - 1].count++;
        else
            ex[nd++] = ex[i];
    }
    if (playouts > 0) {
        ev_weights_t w;
        mcts_params_t mp;
        mcts_limits_t ml;
        mcts_params_default(&mp);
        mcts_limits_default(&ml);
        ml.playouts = (uint64_t)playouts;
        ml.early_stop = false;
        mcts_result_t *res = malloc(sizeof *res);
        mcts_t *m = NULL;
        if (!res || ev_weights_default(b.rules.game, &w) || !(m = mcts_new(&mp, &w))) {
            free(res);
            free(ex);
            bk_free(&b);
            cli_error(CMD, "sample: cannot make the search");
            return CLI_FAIL;
        }
        for (long i = 0; i < nd; i++) {
            mcts_clear(m);
            if (mcts_search(m, &ex[i].pos, NULL, &ml, res) != 0) {
                ex[i].value = NAN;
                continue;
            }
            float v = 2.0f * res->value - 1.0f;
            ex[i].value = ex[i].pos.stm == GK_WHITE ? v : -v;
        }
        mcts_free(m);
        free(res);
    }
    /* Value spread over the samples (each exit weighted by how often it was drawn). */
    float *vals = malloc((size_t)count * sizeof *vals);
    long nv = 0;
    double sum = 0, sq = 0;
    for (long i = 0; vals && i < nd; i++) {
        if (isnan(ex[i].value)) continue;
        for (uint32_t k = 0; k < ex[i].count; k++) vals[nv++] = ex[i].value;
        sum += (double)ex[i].value * ex[i].count;
        sq += (double)ex[i].value * ex[i].value * ex[i].count;
    }
    printf("book sample: %s: %ld %s openings: %ld distinct exits (%.0f per 10,000), %.2f turns "
           "on average\n",
           path, count, random_turns >= 0 ? "random" : "book", nd, nd * 10000.0 / (double)count,
           turns / (double)count);
    if (nv) {
        qsort(vals, (size_t)nv, sizeof *vals, cmp_float);
        double mean = sum / (double)nv, sd = sqrt(fmax(0, sq / (double)nv - mean * mean));
        long far = 0;
        for (long i = 0; i < nv; i++) far += fabsf(vals[i]) > 0.2f;
        printf("exit values for White (%s, %ld of %ld samples valued): mean %+.3f, sd %.3f, 10%% "
               "%+.3f, median %+.3f, 90%% %+.3f, |v| > 0.2 in %.1f%%\n",
               playouts > 0 ? "searched" : "the book's", nv, count, mean, sd, (double)vals[nv / 10],
               (double)vals[nv / 2], (double)vals[nv * 9 / 10], 100.0 * (double)far / (double)nv);
    } else {
        printf("exit values: none known (use --playouts P)\n");
    }
    free(vals);
    free(ex);
    bk_free(&b);
    return CLI_OK;
}

int cmd_book(int argc, char **argv) {
    if (argc < 2) {
        fputs(help, stderr);
        return CLI_USAGE;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(help, stdout);
        return CLI_OK;
    }
    if (!strcmp(sub, "build")) return sub_build(argc - 1, argv + 1);
    if (!strcmp(sub, "expand")) return sub_expand(argc - 1, argv + 1);
    if (!strcmp(sub, "show")) return sub_show(argc - 1, argv + 1);
    if (!strcmp(sub, "stats")) return sub_stats(argc - 1, argv + 1);
    if (!strcmp(sub, "lines")) return sub_lines(argc - 1, argv + 1);
    if (!strcmp(sub, "bench")) return sub_bench(argc - 1, argv + 1);
    if (!strcmp(sub, "sample")) return sub_sample(argc - 1, argv + 1);
    cli_error(CMD, "unknown subcommand '%s' (build, expand, show, stats, lines, bench, sample)",
              sub);
    return CLI_USAGE;
}
