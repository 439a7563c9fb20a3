/*
 * tests/test_mcts_tactics.c -- the search solves the tactic positions of
 * tests/fixtures/tactics/ (every .txt file) within their small playout budgets.
 *
 * Each record's accepted moves are first re-derived by exhaustive search (so a wrong
 * data line fails the test instead of weakening it):
 *   win1    the moves that win at once;
 *   deploy  the same, all deployments;
 *   block   the moves after which the opponent cannot win at once (and it can now);
 *   win2    no win at once; the moves after which every reply allows a win at once.
 * Then the MCTS (default parameters, seed 1, one thread) must choose an accepted move,
 * and for the winning kinds prove the win in 1 (win1, deploy) or 3 actions (win2).
 *
 * The leaf searches of search/leaf.h must see the same tactics: a win in one scores 1 at
 * one quiescence action (and at one full-width action), a fork (win2) 1 at one full-width action
 * plus one of quiescence, and in a block position every move that does not block scores 1
 * for the opponent at one quiescence action while the position itself scores above 0.
 *
 * As a benchmark (issue 15): `test_mcts_tactics --playouts N [--set NAME=V,...]` searches
 * every record with N playouts instead of its own budget and the given search parameters,
 * and prints how many it solved (the same criteria) without failing on the others.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gounki.h"
#include "search/leaf.h"
#include "search/mcts.h"
#include "check.h"
#include "search_util.h"

/* Does action a at p win in at most 3 actions against every defence? */
static int forces_win3(const gk_pos_t *p, gk_action_t a) {
    gk_pos_t q = *p;
    gk_play(&q, a);
    if (gk_over(&q)) return gk_result_for(&q, p->stm) > 0;
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(&q, l);
    if (n == 0) return 1;
    for (int i = 0; i < n; i++) {
        gk_pos_t r = q;
        gk_play(&r, l[i]);
        if (gk_over(&r) || !test_wins_now(&r)) return 0;
    }
    return 1;
}

/* The accepted set of a kind, by exhaustive search; returns its size or -1 (bad kind). */
static int derive(const char *kind, const gk_pos_t *p, gk_action_t *out) {
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(p, l), k = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, l[i]);
        int ok;
        if (!strcmp(kind, "win1"))
            ok = gk_over(&q) && gk_result_for(&q, p->stm) > 0;
        else if (!strcmp(kind, "deploy"))
            ok = gk_over(&q) && gk_result_for(&q, p->stm) > 0 && gounki_act_is_deploy(l[i]);
        else if (!strcmp(kind, "block"))
            ok = !gk_over(&q) && !test_wins_now(&q);
        else if (!strcmp(kind, "win2"))
            ok = forces_win3(p, l[i]);
        else
            return -1;
        if (ok) out[k++] = l[i];
    }
    return k;
}

typedef struct {
    char name[64], kind[16], position[GK_POS_TEXT_MAX], best[1024];
    long playouts;
} record_t;

static int set_has(const gk_action_t *s, int n, gk_action_t a) {
    for (int i = 0; i < n; i++)
        if (s[i] == a) return 1;
    return 0;
}

static void check_leaf(const record_t *r, const gk_pos_t *p, const gk_action_t *derived, int nd,
                       const ev_weights_t *w) {
    CHECK(leaf_search_value(w, p, 0, 0, 0) == ev_value(w, p), "%s: leaf search 0/0 is not ev_value",
          r->name);
    if (!strcmp(r->kind, "win1") || !strcmp(r->kind, "deploy")) {
        CHECK(leaf_search_value(w, p, 0, 1, 0) == 1.0f, "%s: quiescence misses the exit", r->name);
        CHECK(leaf_search_value(w, p, 1, 0, 0) == 1.0f, "%s: 1-action minimax misses the exit",
              r->name);
    } else if (!strcmp(r->kind, "win2")) {
        CHECK(leaf_search_value(w, p, 1, 1, 0) == 1.0f,
              "%s: minimax 1 + quiescence 1 misses the fork", r->name);
        CHECK(leaf_search_value(w, p, 0, 2, 1) == 1.0f,
              "%s: quiescence 2 with threats misses the fork", r->name);
    } else if (!strcmp(r->kind, "block")) {
        CHECK(leaf_search_value(w, p, 0, 1, 0) > 0.0f, "%s: quiescence sees no block", r->name);
        gk_action_t l[GK_MAX_ACTIONS];
        int n = gk_gen(p, l);
        for (int i = 0; i < n; i++) {
            gk_pos_t q = *p;
            gk_play(&q, l[i]);
            if (gk_over(&q) || set_has(derived, nd, l[i])) continue;
            CHECK(leaf_search_value(w, &q, 0, 1, 0) == 1.0f,
                  "%s: quiescence misses the exit left by action %d", r->name, i);
        }
    }
}

/* The benchmark mode: playouts > 0 replaces each record's budget and only counts. */
typedef struct {
    long playouts;
    int solved, moved, searched; /* moved: an accepted move, proven or not */
} bench_t;

static void run_record(const record_t *r, const ev_weights_t *w, mcts_t *m, mcts_result_t *res,
                       bench_t *b) {
    const gk_game_t *g = gk_game_by_id(GK_GAME_GOUNKI);
    gk_pos_t p;
    char err[256];
    if (g->pos_from_text(&p, r->position, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        CHECK(0, "%s: bad position: %s", r->name, err);
        return;
    }
    /* Accepted moves as written. */
    gk_action_t listed[GK_MAX_ACTIONS];
    int nl = 0;
    char buf[sizeof r->best];
    memcpy(buf, r->best, sizeof buf);
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        gk_action_t seq[GK_MAX_TURN];
        int k = g->parse_move(&p, tok, seq, GK_MAX_TURN, err, sizeof err);
        CHECK(k == 1, "%s: bad move '%s': %s", r->name, tok, k < 0 ? err : "not one action");
        if (k == 1) listed[nl++] = seq[0];
    }
    gk_action_t derived[GK_MAX_ACTIONS];
    int nd = derive(r->kind, &p, derived);
    CHECK(nd >= 0, "%s: unknown kind '%s'", r->name, r->kind);
    if (nd < 0) return;
    CHECK(nd > 0, "%s: no move of kind %s exists", r->name, r->kind);
    int same = nd == nl;
    for (int i = 0; i < nl && same; i++) same = set_has(derived, nd, listed[i]);
    CHECK(same, "%s: the listed moves (%d) differ from the exhaustive search's (%d)", r->name, nl,
          nd);
    if (!strcmp(r->kind, "win2")) CHECK(!test_wins_now(&p), "%s: has a win in one", r->name);
    if (!strcmp(r->kind, "block")) {
        gk_pos_t t = p;
        t.stm ^= 1;
        CHECK(test_wins_now(&t), "%s: the opponent threatens nothing", r->name);
        CHECK(!test_wins_now(&p), "%s: has a win in one", r->name);
    }

    check_leaf(r, &p, derived, nd, w);

    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = (uint64_t)(b->playouts > 0 ? b->playouts : r->playouts);
    mcts_clear(m);
    int rc = mcts_search(m, &p, NULL, &lim, res);
    CHECK(rc == 0, "%s: search failed", r->name);
    if (rc) return;
    char mv[GK_MOVE_TEXT_MAX];
    g->action_text(&p, res->best, mv, sizeof mv);
    int want_actions = !strcmp(r->kind, "win2") ? 3 : 1;
    if (b->playouts > 0) {
        int moved = set_has(derived, nd, res->best);
        int ok = moved && (!strcmp(r->kind, "block") ||
                           (res->proof == MCTS_PROVEN_WIN && res->proof_actions == want_actions));
        b->searched++;
        b->solved += ok;
        b->moved += moved;
        printf("%-10s %-7s %-22s %s\n", r->name, r->kind, mv,
               ok      ? "solved"
               : moved ? "unproven"
                       : "missed");
        return;
    }
    CHECK(set_has(derived, nd, res->best), "%s: played %s, not one of: %s (%llu playouts)", r->name,
          mv, r->best, (unsigned long long)res->playouts);
    if (strcmp(r->kind, "block"))
        CHECK(res->proof == MCTS_PROVEN_WIN && res->proof_actions == want_actions,
              "%s: proof %d in %d actions, expected a win in %d", r->name, res->proof,
              res->proof_actions, want_actions);
    printf("%-10s %-7s %-22s %5llu playouts  proof %d/%d  value %.3f\n", r->name, r->kind, mv,
           (unsigned long long)res->playouts, res->proof, res->proof_actions, (double)res->value);
}

static void copy_field(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    CHECK(n < cap, "field too long: '%.40s...'", src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int run_file(const char *path, const ev_weights_t *w, mcts_t *m, mcts_result_t *res,
                    bench_t *b) {
    FILE *f = fopen(path, "r");
    if (!f) {
        CHECK(0, "%s: cannot open", path);
        return 0;
    }
    char line[2048];
    record_t r;
    int have = 0, count = 0;
    memset(&r, 0, sizeof r);
    for (;;) {
        char *ok = fgets(line, sizeof line, f);
        if (!ok || line[0] == '[') {
            if (have) {
                CHECK(r.kind[0] && r.position[0] && r.best[0] && r.playouts > 0,
                      "%s: record %s is incomplete", path, r.name);
                if (r.kind[0] && r.position[0] && r.best[0] && r.playouts > 0) {
                    run_record(&r, w, m, res, b);
                    count++;
                }
            }
            if (!ok) break;
            memset(&r, 0, sizeof r);
            have = 1;
            char *e = strchr(line, ']');
            size_t len = e ? (size_t)(e - line - 1) : 0;
            if (len >= sizeof r.name) len = sizeof r.name - 1;
            memcpy(r.name, line + 1, len);
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        if (!strncmp(line, "kind ", 5))
            copy_field(r.kind, sizeof r.kind, line + 5);
        else if (!strncmp(line, "position ", 9))
            copy_field(r.position, sizeof r.position, line + 9);
        else if (!strncmp(line, "best ", 5))
            copy_field(r.best, sizeof r.best, line + 5);
        else if (!strncmp(line, "playouts ", 9))
            r.playouts = strtol(line + 9, NULL, 10);
        else
            CHECK(0, "%s: unknown line '%s'", path, line);
    }
    fclose(f);
    return count;
}

int main(int argc, char **argv) {
    gk_init();
    ev_weights_t w;
    if (ev_weights_default(GK_GAME_GOUNKI, &w)) return 1;
    mcts_config_t cfg;
    mcts_config_init(&cfg, NULL, NULL);
    cfg.p.tree_mb = 64;
    bench_t b = {0, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        char err[256];
        if (!strcmp(argv[i], "--playouts") && i + 1 < argc) {
            b.playouts = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            if (mcts_config_set_list(&cfg, argv[++i], err, sizeof err)) {
                fprintf(stderr, "--set: %s\n", err);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: test_mcts_tactics [--playouts N [--set NAME=V,...]]\n");
            return 2;
        }
    }
    if (b.playouts <= 0 && argc > 1) {
        fprintf(stderr, "--playouts N (N > 0) is needed to measure\n");
        return 2;
    }
    mcts_params_t mp = cfg.p;
    mcts_t *m = mcts_new(&mp, &w);
    mcts_result_t *res = malloc(sizeof *res);
    if (!m || !res) return 1;
    const char *dir = "fixtures/tactics";
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s (run from tests/)\n", dir);
        return 1;
    }
    char names[64][256];
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 64) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".txt"))
            snprintf(names[nf++], sizeof names[0], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nf, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    int total = 0;
    for (int i = 0; i < nf; i++) total += run_file(names[i], &w, m, res, &b);
    CHECK(total >= 20, "only %d tactic records found", total);
    if (b.playouts > 0)
        printf("solved %d of %d at %ld playouts (an accepted move: %d)\n", b.solved, b.searched,
               b.playouts, b.moved);
    printf("%d tactic positions, %d failures\n", total, check_failures);
    mcts_free(m);
    free(res);
    return check_exit("test_mcts_tactics");
}
