/*
 * tests/test_leaf_prove.c -- leaf_prove() against an exhaustive search, and in the MCTS.
 * leaf_prove() (search/leaf.h) is the win/loss search of minimax in selection; the
 * exhaustive search written here has no windows or shortcuts.
 *
 *  - Soundness: wherever it says won (lost), the side to move wins (loses) by force within
 *    the length it gives, and that length is at most depth + 1.
 *  - Completeness: a win or a loss that an exhaustive search finds within `depth` actions
 *    is found; an exit available to the side to move is a win in one at every depth (the
 *    horizon's bitboard filter must not hide one).
 *  - The tactics suite (tests/fixtures/tactics-suite/gounki.txt): a "win" record of depth D
 *    (a forced win within D actions and not sooner, established by the alpha-beta of
 *    search/baselines.h) is proven at depth D and not at D - 3, which sees wins within
 *    D - 2 actions at most.
 *  - In the search (search/mcts.h, ms_depth): at the same small playout budget, the MCTS
 *    with minimax in selection proves more of the suite's wins at the root than without
 *    it, and every root it proves won is won in no fewer actions than the suite's D (a
 *    shorter proof would be unsound) with a move that leaf_prove() confirms.
 * Positions: every position of seeded random Gounki games, and the suite's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gounki.h"
#include "search/leaf.h"
#include "search/mcts.h"
#include "check.h"

#define GAMES    24
#define MAXDEPTH 2 /* the exhaustive checks cost up to 40^(depth + 1) plays a position */
#define PLAYOUTS 200

typedef struct {
    mcts_t *off, *on; /* the same search without and with minimax in selection */
    mcts_result_t res;
    int proven_off, proven_on;
} searches_t;

static int loses_within(const gk_pos_t *p, int k);

/* Can the side to move force a win within k actions? */
static int wins_within(const gk_pos_t *p, int k) {
    if (gk_over(p)) return gk_result_for(p, p->stm) > 0;
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(p, l);
    if (k == 0 || n == 0) return 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, l[i]);
        if (q.stm == p->stm ? wins_within(&q, k - 1) : loses_within(&q, k - 1)) return 1;
    }
    return 0;
}

/* Does the side to move lose whatever it does within k actions? */
static int loses_within(const gk_pos_t *p, int k) {
    if (gk_over(p)) return gk_result_for(p, p->stm) < 0;
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(p, l);
    if (n == 0) return 1;
    if (k == 0) return 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, l[i]);
        if (!(q.stm == p->stm ? loses_within(&q, k - 1) : wins_within(&q, k - 1))) return 0;
    }
    return 1;
}

static int has_exit(const gk_pos_t *p) {
    gk_action_t l[GK_MAX_ACTIONS];
    int n = gk_gen(p, l);
    for (int i = 0; i < n; i++)
        if (gounki_act_exits(l[i])) return 1;
    return 0;
}

typedef struct {
    long positions, won, lost;
} tally_t;

static void check_position(const gk_pos_t *p, const char *where, tally_t *t) {
    t->positions++;
    for (int d = 0; d <= MAXDEPTH; d++) {
        int len = -1, r = leaf_prove(p, d, &len);
        if (r > 0) {
            t->won++;
            CHECK(len >= 0 && len <= d + 1 && wins_within(p, len),
                  "%s depth %d: proven won in %d, not so", where, d, len);
        } else if (r < 0) {
            t->lost++;
            CHECK(len >= 0 && len <= d + 1 && loses_within(p, len),
                  "%s depth %d: proven lost in %d, not so", where, d, len);
        } else {
            CHECK(len == 0, "%s depth %d: unproven with a length %d", where, d, len);
        }
        if (wins_within(p, d)) CHECK(r > 0, "%s depth %d: a win is missed", where, d);
        if (loses_within(p, d)) CHECK(r < 0, "%s depth %d: a loss is missed", where, d);
        if (!gk_over(p) && has_exit(p))
            CHECK(r > 0 && len == 1, "%s depth %d: an exit is not a win in one", where, d);
    }
}

static void random_games(tally_t *t) {
    uint64_t seed = 0x1eafu;
    gk_action_t l[GK_MAX_ACTIONS];
    for (int g = 0; g < GAMES; g++) {
        gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
        gk_pos_t p;
        gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
        char where[64];
        for (int ply = 0; ply < 400 && !gk_over(&p); ply++) {
            snprintf(where, sizeof where, "game %d ply %d", g, ply);
            check_position(&p, where, t);
            int n = gk_gen(&p, l);
            if (n == 0) break;
            gk_play(&p, l[gk_splitmix64(&seed) % (uint64_t)n]);
        }
        snprintf(where, sizeof where, "game %d end", g);
        check_position(&p, where, t);
    }
}

/* The suite's records: "[name]", then "kind K", "position P", "depth D" lines. */
/* Searches the suite's win of depth `depth` at p with both engines and checks what the
 * one with minimax in selection proves. */
static void search_both(searches_t *s, const gk_pos_t *p, int depth, const char *name) {
    mcts_limits_t lim;
    mcts_limits_default(&lim);
    lim.playouts = PLAYOUTS;
    mcts_clear(s->off);
    if (mcts_search(s->off, p, NULL, &lim, &s->res) == 0)
        s->proven_off += s->res.proof == MCTS_PROVEN_WIN;
    mcts_clear(s->on);
    int rc = mcts_search(s->on, p, NULL, &lim, &s->res);
    CHECK(rc == 0, "%s: search failed", name);
    CHECK(s->res.proof != MCTS_PROVEN_LOSS, "%s: a won position proven lost", name);
    if (rc || s->res.proof != MCTS_PROVEN_WIN) return;
    s->proven_on++;
    CHECK(s->res.proof_actions >= depth, "%s: proven won in %d actions, the shortest is %d", name,
          s->res.proof_actions, depth);
    gk_pos_t q = *p;
    gk_play(&q, s->res.best);
    int len = 0, r = leaf_prove(&q, s->res.proof_actions - 1, &len);
    CHECK(gk_over(&q) ? gk_result_for(&q, p->stm) > 0 : r == (q.stm == p->stm ? 1 : -1),
          "%s: the proven move does not win within %d", name, s->res.proof_actions);
}

static int suite(const char *path, tally_t *t, searches_t *s) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from tests/)\n", path);
        return -1;
    }
    char line[4096], name[64] = "", kind[16] = "", pos[GK_POS_TEXT_MAX] = "";
    int wins = 0;
    const gk_game_t *g = gk_game_by_id(GK_GAME_GOUNKI);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '[') {
            snprintf(name, sizeof name, "%.*s", (int)(strcspn(line + 1, "]")), line + 1);
        } else if (!strncmp(line, "kind ", 5)) {
            snprintf(kind, sizeof kind, "%.15s", line + 5);
        } else if (!strncmp(line, "position ", 9)) {
            snprintf(pos, sizeof pos, "%.*s", (int)sizeof pos - 1, line + 9);
        } else if (!strncmp(line, "depth ", 6)) {
            int depth = atoi(line + 6);
            gk_pos_t p;
            char err[256];
            if (g->pos_from_text(&p, pos, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
                CHECK(0, "%s: bad position: %s", name, err);
                continue;
            }
            if (strcmp(kind, "win") || depth > 5) continue;
            wins++;
            int len = 0;
            CHECK(leaf_prove(&p, depth, &len) == 1 && len <= depth + 1,
                  "%s: the win within %d is not proven at depth %d", name, depth, depth);
            CHECK(leaf_prove(&p, depth - 3, &len) != 1,
                  "%s: proven at depth %d, sooner than the suite's %d", name, depth - 3, depth);
            check_position(&p, name, t);
            search_both(s, &p, depth, name);
        }
    }
    fclose(f);
    return wins;
}

int main(void) {
    gk_init();
    tally_t t = {0, 0, 0};
    random_games(&t);
    ev_weights_t w;
    if (ev_weights_default(GK_GAME_GOUNKI, &w)) return 1;
    mcts_config_t cfg;
    mcts_config_init(&cfg, NULL, NULL);
    cfg.p.tree_mb = 16;
    mcts_params_t off = cfg.p, on = cfg.p;
    on.ms_depth = 3;
    on.ms_visits = 5;
    searches_t s = {mcts_new(&off, &w), mcts_new(&on, &w), {0}, 0, 0};
    if (!s.off || !s.on) return 1;
    int wins = suite("fixtures/tactics-suite/gounki.txt", &t, &s);
    CHECK(wins >= 40, "only %d win records of depth 3 or 5", wins);
    CHECK(s.proven_on > s.proven_off, "minimax in selection proves %d roots, %d without it",
          s.proven_on, s.proven_off);
    printf("%d playouts: %d of the suite's wins proven at the root with ms_depth=3,ms_visits=5, "
           "%d without\n",
           PLAYOUTS, s.proven_on, s.proven_off);
    mcts_free(s.off);
    mcts_free(s.on);
    /* The properties above hold vacuously without proofs: random games must give some. */
    CHECK(t.won >= 100 && t.lost >= 20, "too few proofs to check: %ld won, %ld lost", t.won,
          t.lost);
    printf("%ld positions, %ld won and %ld lost proofs checked, %d suite wins\n", t.positions,
           t.won, t.lost, wins);
    return check_exit("test_leaf_prove");
}
