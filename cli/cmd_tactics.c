/*
 * cli/cmd_tactics.c -- `gounki tactics`: how many tactic positions the search solves.
 *
 * Reads tactics files (docs/FORMATS.md, "Tactic files": tests/fixtures/tactics-suite/ and
 * tests/fixtures/tactics/), searches every position with the MCTS under the budget given
 * (a fresh tree each, the search's seed) and counts the positions where the move played is
 * one of the record's accepted moves: a benchmark of tactical sharpness per budget (issue
 * 15).  --verify instead re-derives every accepted set with the alpha-beta of
 * search/baselines.h (the definition of each kind), so a wrong record is found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../eval/eval.h"
#include "../search/baselines.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_tactics_summary[] = "tactic positions solved by the search (a benchmark)";

#define CMD       "tactics"
#define WIN_BOUND (BL_WIN - 10000)
#define MAX_KINDS 16

typedef struct record {
    char name[64], kind[16], position[GK_POS_TEXT_MAX], best[1024];
    int depth; /* 0: not given */
    int line;  /* where the record starts */
} record_t;

typedef struct tally {
    char kind[16];
    int n, solved;
} tally_t;

typedef struct own {
    bool verify;
} own_t;

enum { O_VERIFY = 0x2101 };

static int take_own(const char *cmd, void *st, int opt, const char *arg) {
    (void)cmd, (void)arg;
    own_t *o = st;
    if (opt != O_VERIFY) return 0;
    o->verify = true;
    return 1;
}

static void usage(const cli_search_t *s) {
    printf("usage: gounki tactics FILE... [--playouts N | --time S] [--set NAME=V,...] "
           "[--quiet]\n"
           "       gounki tactics FILE... --verify\n"
           "Searches every position of the tactics FILEs (docs/FORMATS.md, \"Tactic files\";\n"
           "the suite: tests/fixtures/tactics-suite/gounki.txt) with the MCTS, a fresh tree\n"
           "each, and prints per position the move played and whether it is one of the\n"
           "record's accepted moves, then the positions solved per kind and in all:\n"
           "'Solved: S/N'.  With a playout budget and one thread the count is the same on\n"
           "every run.\n"
           "  --verify           re-derive every record's accepted moves with the alpha-beta\n"
           "                     at the record's depth (kinds win, defend, material) and\n"
           "                     report each record whose moves differ (exit 1)\n"
           "  --quiet            only the summary lines\n");
    cli_search_help(stdout, s);
}

/* Parses the accepted moves of r at p into set; their number, or -1 (reported). */
static int parse_best(const record_t *r, const char *path, const gk_pos_t *p, gk_action_t *set) {
    const gk_game_t *g = gk_game_of(p);
    char buf[sizeof r->best], err[256];
    memcpy(buf, r->best, sizeof buf);
    int n = 0;
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        gk_action_t seq[GK_MAX_TURN];
        int k = g->parse_move(p, tok, seq, GK_MAX_TURN, err, sizeof err);
        if (k != 1) {
            cli_error(CMD, "%s:%d: [%s]: move '%s': %s", path, r->line, r->name, tok,
                      k < 0 ? err : "not one action");
            return -1;
        }
        if (n < GK_MAX_ACTIONS) set[n++] = seq[0];
    }
    return n;
}

static int in_set(const gk_action_t *s, int n, gk_action_t a) {
    for (int i = 0; i < n; i++)
        if (s[i] == a) return 1;
    return 0;
}

/* The accepted set of r's kind by the alpha-beta (the suite's definitions, see the
 * header of tests/fixtures/tactics-suite/gounki.txt); its size, or -1 for a kind it
 * cannot derive. */
static int derive(ab_search_t *ab, const record_t *r, const gk_pos_t *p, gk_action_t *out) {
    ab_limits_t lim = {.depth = r->depth, .top_k = AB_MAX_TOP, .floor_set = true};
    ab_result_t res;
    if (!strcmp(r->kind, "win")) {
        lim.floor = WIN_BOUND;
    } else if (!strcmp(r->kind, "defend")) {
        lim.floor = -WIN_BOUND;
    } else if (!strcmp(r->kind, "material")) {
        ab_limits_t best = {.depth = r->depth};
        ab_clear(ab);
        ab_search(ab, p, NULL, &best, &res);
        lim.floor = res.score - 34;
    } else {
        return -1;
    }
    ab_clear(ab);
    ab_search(ab, p, NULL, &lim, &res);
    /* win: no faster win than depth (else the record would have the smaller depth) */
    if (!strcmp(r->kind, "win") && res.ntop > 0 && res.top_score[0] != BL_WIN - r->depth) return 0;
    memcpy(out, res.top, (size_t)res.ntop * sizeof *out);
    return res.ntop;
}

static tally_t *tally_of(tally_t *t, int *nt, const char *kind) {
    for (int i = 0; i < *nt; i++)
        if (!strcmp(t[i].kind, kind)) return &t[i];
    if (*nt >= MAX_KINDS) return &t[MAX_KINDS - 1];
    snprintf(t[*nt].kind, sizeof t[*nt].kind, "%s", kind);
    return &t[(*nt)++];
}

typedef struct runner {
    cli_search_t *s;
    own_t *o;
    bool quiet;
    mcts_result_t *res;
    ab_search_t *ab;
    tally_t t[MAX_KINDS];
    int nt, bad, unchecked;
    uint64_t playouts;
    double secs;
} runner_t;

/* One record: searched (or verified).  Returns an exit status. */
static int run_record(runner_t *u, const record_t *r, const char *path) {
    const gk_game_t *g = gk_game_by_id(GK_GAME_GOUNKI);
    gk_pos_t p;
    char err[256];
    if (!r->kind[0] || !r->position[0] || !r->best[0]) {
        cli_error(CMD, "%s:%d: [%s]: needs kind, position and best", path, r->line, r->name);
        return CLI_FAIL;
    }
    if (g->pos_from_text(&p, r->position, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        cli_error(CMD, "%s:%d: [%s]: position: %s", path, r->line, r->name, err);
        return CLI_FAIL;
    }
    gk_action_t set[GK_MAX_ACTIONS], der[AB_MAX_TOP];
    int n = parse_best(r, path, &p, set);
    if (n < 0) return CLI_FAIL;
    tally_t *t = tally_of(u->t, &u->nt, r->kind);
    t->n++;
    if (u->o->verify) {
        int nd = r->depth > 0 ? derive(u->ab, r, &p, der) : -1;
        int same = nd == n;
        for (int i = 0; i < n && same; i++) same = in_set(der, nd, set[i]);
        t->solved += same;
        u->unchecked += nd < 0;
        if (!same && nd >= 0) u->bad++;
        if (!u->quiet || (!same && nd >= 0))
            printf("%-12s %-8s %s\n", r->name, r->kind,
                   nd < 0    ? "not checked (a kind or depth the alpha-beta does not derive)"
                   : same    ? "verified"
                   : nd == 0 ? "DIFFERS: the alpha-beta finds no such move"
                             : "DIFFERS from the alpha-beta's moves");
        return CLI_OK;
    }
    ev_weights_t w;
    if (cli_load_weights(CMD, "--weights", u->s->weights, p.game, &w)) return CLI_FAIL;
    mcts_t *m = mcts_new(&u->s->cfg.p, &w);
    if (!m) {
        cli_error(CMD, "cannot create the search (out of memory?)");
        return CLI_FAIL;
    }
    int rc = mcts_search(m, &p, NULL, &u->s->cfg.l, u->res);
    mcts_free(m);
    if (rc < 0) {
        cli_error(CMD, "%s:%d: [%s]: the search failed", path, r->line, r->name);
        return CLI_FAIL;
    }
    int ok = in_set(set, n, u->res->best);
    t->solved += ok;
    u->playouts += u->res->playouts;
    u->secs += u->res->seconds;
    if (!u->quiet) {
        char mv[GK_MOVE_TEXT_MAX];
        if (g->action_text(&p, u->res->best, mv, sizeof mv) < 0) strcpy(mv, "?");
        printf("%-12s %-8s %-7s %-20s %8llu playouts  value %.3f%s\n", r->name, r->kind,
               ok ? "solved" : "missed", mv, (unsigned long long)u->res->playouts,
               (double)u->res->value,
               u->res->proof == MCTS_PROVEN_WIN    ? "  proven win"
               : u->res->proof == MCTS_PROVEN_LOSS ? "  proven loss"
                                                   : "");
    }
    return CLI_OK;
}

/* 0, or -1 when src does not fit (reported by the caller). */
static int copy_field(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Reads and runs every record of path.  Returns an exit status. */
static int run_file(runner_t *u, const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(CMD, "'%s' is a directory (name its files: DIR/*.txt)", path);
        return CLI_FAIL;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error(CMD, "cannot open '%s'", path);
        return CLI_FAIL;
    }
    char line[2048];
    record_t r;
    int have = 0, ln = 0, rc = CLI_OK, count = 0;
    memset(&r, 0, sizeof r);
    for (;;) {
        char *got = fgets(line, sizeof line, f);
        ln++;
        if (!got || line[0] == '[') {
            if (have && (rc = run_record(u, &r, path)) != CLI_OK) break;
            count += have;
            if (!got) break;
            memset(&r, 0, sizeof r);
            have = 1;
            r.line = ln;
            char *e = strchr(line, ']');
            size_t len = e ? (size_t)(e - line - 1) : 0;
            if (!len || len >= sizeof r.name) {
                cli_error(CMD, "%s:%d: a record's name is [NAME] (1-63 characters)", path, ln);
                rc = CLI_FAIL;
                break;
            }
            memcpy(r.name, line + 1, len);
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        long d;
        if (!have) {
            cli_error(CMD, "%s:%d: '%.40s' before the first [NAME]", path, ln, line);
            rc = CLI_FAIL;
        } else if (!strncmp(line, "kind ", 5) || !strncmp(line, "position ", 9) ||
                   !strncmp(line, "best ", 5)) {
            int k = line[0] == 'k', b = line[0] == 'b';
            if (copy_field(k   ? r.kind
                           : b ? r.best
                               : r.position,
                           k   ? sizeof r.kind
                           : b ? sizeof r.best
                               : sizeof r.position,
                           strchr(line, ' ') + 1)) {
                cli_error(CMD, "%s:%d: '%.20s...' is too long", path, ln, line);
                rc = CLI_FAIL;
            }
        } else if (!strncmp(line, "depth ", 6)) {
            if (cli_parse_long(CMD, "depth", line + 6, 1, AB_MAX_DEPTH, &d)) rc = CLI_FAIL;
            r.depth = (int)d;
        } else if (strncmp(line, "playouts ", 9)) { /* playouts: the unit tests' budget */
            cli_error(CMD, "%s:%d: unknown line '%.40s'", path, ln, line);
            rc = CLI_FAIL;
        }
        if (rc) break;
    }
    fclose(f);
    if (rc == CLI_OK && count == 0) {
        cli_error(CMD, "%s: no record", path);
        rc = CLI_FAIL;
    }
    return rc;
}

static void summary(const runner_t *u) {
    int n = 0, solved = 0;
    for (int i = 0; i < u->nt; i++) {
        printf("%-10s %d/%d\n", u->t[i].kind, u->t[i].solved, u->t[i].n);
        n += u->t[i].n;
        solved += u->t[i].solved;
    }
    if (u->o->verify) {
        printf("Verified: %d/%d (%d not checked)\n", solved, n, u->unchecked);
        return;
    }
    printf("playouts %llu, %.3f s\n", (unsigned long long)u->playouts, u->secs);
    printf("Solved: %d/%d\n", solved, n);
}

int cmd_tactics(int argc, char **argv) {
    static const struct option run_opts[] = {CLI_LONGOPT_QUIET, {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"verify", no_argument, 0, O_VERIFY}, {0, 0, 0, 0}};
    mcts_params_t mp;
    mcts_params_default(&mp);
    mp.tree_mb = 64;
    mp.reuse = false;
    runner_t *u = calloc(1, sizeof *u);
    cli_search_t *s = malloc(sizeof *s);
    mcts_result_t *res = malloc(sizeof *res);
    own_t o = {0};
    cli_run_t run;
    cli_run_init(&run, run_opts);
    int rc = CLI_FAIL, first;
    if (!u || !s || !res) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    cli_search_init(s, &mp, NULL, CLI_SEARCH_WEIGHTS | CLI_SEARCH_FLAGS);
    const cli_group_t groups[] = {
        cli_search_group(s), cli_run_group(&run), {own_opts, take_own, &o}};
    rc = cli_getopt(CMD, argc, argv, groups, 3, -1, &first);
    if (rc == CLI_HELP) usage(s);
    if (rc) goto done;
    if (first >= argc) {
        cli_error(CMD, "no tactics file (try tests/fixtures/tactics-suite/gounki.txt)");
        rc = CLI_USAGE;
        goto done;
    }
    if (cli_search_finish(CMD, s)) {
        rc = CLI_USAGE;
        goto done;
    }
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    u->s = s;
    u->o = &o;
    u->quiet = run.quiet;
    u->res = res;
    if (o.verify && !(u->ab = ab_new(&ev, 64))) {
        cli_error(CMD, "out of memory for the alpha-beta's table");
        rc = CLI_FAIL;
        goto done;
    }
    for (int i = first; i < argc && rc == CLI_OK; i++) rc = run_file(u, argv[i]);
    if (rc == CLI_OK) summary(u);
    if (rc == CLI_OK && u->bad) rc = CLI_FAIL;
done:
    if (u) ab_free(u->ab);
    free(u);
    free(res);
    free(s);
    return rc == CLI_HELP ? CLI_OK : rc;
}
