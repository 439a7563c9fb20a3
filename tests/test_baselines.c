/* tests/test_baselines.c -- the classic evaluation and the random, greedy and alpha-beta
 * players on hand-made Gounki positions and on Gobs. */
#include <stdio.h>
#include <string.h>

#include "eval/classic.h"
#include "games/game.h"
#include "search/baselines.h"

static int failures;

static void check(const char *what, int ok) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static gk_pos_t load(int game, const char *text) {
    gk_pos_t p;
    char err[256];
    if (gk_game_by_id(game)->pos_from_text(&p, text, GK_DEFAULT_TURN_LIMIT, err, sizeof err) < 0) {
        printf("FAIL cannot load '%s': %s\n", text, err);
        failures++;
        gk_rules_t r = {(uint8_t)game, 0, GK_DEFAULT_TURN_LIMIT};
        gk_game_by_id(game)->setup(&p, &r);
    }
    return p;
}

static const char *act(const gk_pos_t *p, gk_action_t a) {
    static char buf[GK_MOVE_TEXT_MAX];
    if (a == GK_NO_ACTION || gk_game_of(p)->action_text(p, a, buf, sizeof buf) < 0) return "(none)";
    return buf;
}

static void test_classic(void) {
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
    /* 16 pieces (1600), no round captured, 8 stacks on rank 1 and 8 on rank 2 (24). */
    check("classic: start count",
          classic_gounki_side(&p, GK_WHITE) == 1624 && classic_gounki_side(&p, GK_BLACK) == 1624);
    check("classic: start is level", classic_eval(&p) == 0);
    /* White: square a1 (rank 1) and round e4 (rank 4): 200 + 7 rounds taken (231) + 5.
     * Black: square b1 (rank 8 for Black) and round h8 (rank 1): 200 + 231 + 9. */
    gk_pos_t q = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    check("classic: white's count", classic_gounki_side(&q, GK_WHITE) == 436);
    check("classic: black's count", classic_gounki_side(&q, GK_BLACK) == 440);
    check("classic: white to move", classic_eval(&q) == -4);
    gk_pos_t qb = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 b 10");
    check("classic: black to move", classic_eval(&qb) == 4);
    /* A stack counts its pieces but its rank once: RRS on c3 is 300 + 6 rounds taken
     * (198) + 3 = 501; the same pieces on c3, d3, e3 are 300 + 198 + 9 = 507.  Black's
     * lone square on h8: 100 + 264 + 1 = 365. */
    gk_pos_t st = load(GK_GAME_GOUNKI, "7s/8/8/8/8/2(RRS)5/8/8 w 3");
    check("classic: stack",
          classic_gounki_side(&st, GK_WHITE) == 501 && classic_eval(&st) == 501 - 365);
    gk_pos_t sp = load(GK_GAME_GOUNKI, "7s/8/8/8/8/2RRS3/8/8 w 3");
    check("classic: spread", classic_gounki_side(&sp, GK_WHITE) == 507);
    /* A lost round costs 67 (+ its rank, 1 on b1), a lost square 100 (+ 1 on a1). */
    gk_pos_t nr = load(GK_GAME_GOUNKI, "rsrsrsrs/srsrsrsr/8/8/8/8/RSRSRSRS/S1SRSRSR w 0");
    check("classic: a round lost", classic_eval(&nr) == -68);
    gk_pos_t ns = load(GK_GAME_GOUNKI, "rsrsrsrs/srsrsrsr/8/8/8/8/RSRSRSRS/1RSRSRSR w 0");
    check("classic: a square lost", classic_eval(&ns) == -101);
    /* Advancing a stack one rank earns 1: the start after a2-b3 (a round, rank 2 -> 3). */
    gk_pos_t adv = p;
    char err[256];
    check("classic: a2-b3 plays", gk_play_move_text(&adv, "a2-b3", err, sizeof err) == 0);
    check("classic: advance", classic_eval(&adv) == -1 /* black to move */);

    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    check("classic gobs: start is level", classic_eval(&p) == 0);
}

static void test_random(void) {
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
    int seen_other = 0;
    gk_action_t first = bl_random(&p, 1);
    for (uint64_t s = 1; s < 200; s++) {
        gk_action_t a = bl_random(&p, s);
        check("random: legal", gk_is_legal(&p, a));
        check("random: same seed, same action", a == bl_random(&p, s));
        seen_other |= a != first;
    }
    check("random: varies with the seed", seen_other);
}

static void test_greedy(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    /* A round on d8 exits at once; greedy must take the win. */
    gk_pos_t p = load(GK_GAME_GOUNKI, "3R4/8/8/8/4S3/8/8/7s w 0");
    int score;
    gk_action_t a = bl_greedy(&ev, &p, 7, &score);
    gk_pos_t q = p;
    gk_play(&q, a);
    check("greedy: takes the exit", gk_over(&q) && q.result == GK_WIN_WHITE);
    check("greedy: win score", score == BL_WIN - 1);
    /* Material: the capture a1xb1 wins a square. */
    p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    a = bl_greedy(&ev, &p, 3, NULL);
    check("greedy: captures", !strcmp(act(&p, a), "a1xb1"));
    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    for (uint64_t s = 0; s < 5; s++)
        check("greedy gobs: legal", gk_is_legal(&p, bl_greedy(&ev, &p, s, NULL)));
}

static void test_ab(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    ab_search_t *s = ab_new(&ev, 1);
    check("ab: allocated", s != NULL);
    if (!s) return;
    ab_result_t r, r2;
    ab_limits_t lim = {.depth = 4};

    /* Must block: Black's square on b1 exits next move unless captured. */
    gk_pos_t p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/Ss6 w 10");
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: captures the exiting square", !strcmp(act(&p, r.best), "a1xb1"));
    check("ab: not a proven result", r.score < BL_WIN - 100 && r.score > -BL_WIN + 100);

    /* The same with two black rounds on the back rank, at depth 2. */
    p = load(GK_GAME_GOUNKI, "6rr/8/8/8/4R3/8/8/Ss6 w 10");
    lim.depth = 2;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: blocks at depth 2", !strcmp(act(&p, r.best), "a1xb1"));

    /* Faster win preferred: d8 exits now; the square e4 would need more moves. */
    p = load(GK_GAME_GOUNKI, "3R4/8/8/8/4S3/8/8/7s w 0");
    lim.depth = 5;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: win in one", r.score == BL_WIN - 1 && !strcmp(act(&p, r.best), "d8-Out"));

    /* Lost position: Black exits next move whatever White does (b1 cannot be reached). */
    p = load(GK_GAME_GOUNKI, "7r/8/8/8/4R3/8/8/1s5S w 10");
    lim.depth = 3;
    ab_search(s, &p, NULL, &lim, &r);
    check("ab: sees the loss", r.score == -(BL_WIN - 2));

    /* Determinism and legality from the start, depth 4, both evaluations' table reset. */
    gk_rules_t rr = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &rr);
    lim.depth = 4;
    ab_clear(s);
    ab_search(s, &p, NULL, &lim, &r);
    ab_clear(s);
    ab_search(s, &p, NULL, &lim, &r2);
    check("ab: legal from the start", gk_is_legal(&p, r.best));
    check("ab: deterministic", r.best == r2.best && r.score == r2.score && r.nodes == r2.nodes);
    check("ab: depth reached", r.depth == 4);
    check("ab: pv starts with the move", r.npv >= 1 && r.pv[0] == r.best);
    printf("ab depth 4 from the Gounki start: %s score %d nodes %llu\n", act(&p, r.best), r.score,
           (unsigned long long)r.nodes);

    /* A time limit stops the search and still returns a legal move. */
    ab_limits_t tl = {.depth = 0, .time_s = 0.05};
    ab_search(s, &p, NULL, &tl, &r);
    check("ab: timed search legal", gk_is_legal(&p, r.best) && r.seconds < 1.0);

    /* Gobs: actions of jump chains are ordinary nodes. */
    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&p, &rg);
    ab_search_t *g = ab_new(&ev, 1);
    lim.depth = 2;
    for (int t = 0; t < 12 && g && !gk_over(&p); t++) {
        check("ab gobs: search ok", ab_search(g, &p, NULL, &lim, &r) == 0);
        check("ab gobs: legal", gk_is_legal(&p, r.best));
        gk_play(&p, r.best);
    }
    ab_free(g);
    ab_free(s);
}

/* Plain negamax without pruning, the reference of the plain alpha-beta (no repetition
 * can happen within 3 actions, so none is scored). */
static int minimax(const bl_eval_t *e, const gk_pos_t *p, int depth, int dist) {
    if (depth == 0) return bl_eval_points(e, p);
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(p, list), best = -BL_WIN - 1;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        int v;
        if (gk_over(&q)) {
            int res = gk_result_for(&q, p->stm);
            v = res > 0 ? BL_WIN - (dist + 1) : res < 0 ? -(BL_WIN - (dist + 1)) : 0;
        } else {
            v = minimax(e, &q, depth - 1, dist + 1);
            if (q.stm != p->stm) v = -v;
        }
        if (v > best) best = v;
    }
    return best;
}

/* Positions for the comparisons: the start, hand-made tactics, and seeded random games
 * cut after 4..40 turns. */
static int test_positions(gk_pos_t *out, int cap) {
    static const char *const fixed[] = {
        "7r/8/8/8/4R3/8/8/Ss6 w 10",
        "3R4/8/8/8/4S3/8/8/7s w 0",
        "rs3s1s/s(rr)1s1rsr/4s1S1/2Rs3r/2rS1R2/3S4/1SR3(RS)1/SrSR2SR w 24",
        "r4srs/s1s1Rrs1/ss4r1/r1R2(RSS)2/1S(rr)5/1r1R4/1S1SR1RS/3(RS)2SR w 24",
        "1s1s2rs/1rs1s1s1/s4r2/2S5/2S2R(rrs)1/4S(rr)2/(RR)S4(RS)1/S1S2RS1 b 31",
    };
    int n = 0;
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&out[n++], &r);
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && n < cap; i++)
        out[n++] = load(GK_GAME_GOUNKI, fixed[i]);
    for (uint64_t g = 1; n < cap; g++) {
        gk_pos_t p;
        gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
        int turns = 4 + (int)(g * 7 % 37);
        for (int t = 0; t < turns && !gk_over(&p); t++) gk_play(&p, bl_random(&p, g * 1000 + t));
        if (!gk_over(&p)) out[n++] = p;
    }
    return n;
}

/* id=off (plain): the minimax value at depths 1-3, the iterative deepening's value at
 * depths 1-4, every legal move, and the ranked root's exact scores. */
static void test_ab_plain(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    ab_search_t *s = ab_new(&ev, 4), *t = ab_new(&ev, 4);
    check("ab plain: allocated", s && t);
    if (!s || !t) return;
    gk_pos_t pos[24];
    int np = test_positions(pos, 24);
    int same_minimax = 0, same_id = 0, cmp_minimax = 0, cmp_id = 0;
    ab_result_t r, ri;
    for (int i = 0; i < np; i++) {
        for (int d = 1; d <= 4; d++) {
            ab_limits_t plain = {.depth = d, .plain = true}, id = {.depth = d};
            ab_clear(s);
            ab_clear(t);
            ab_search(s, &pos[i], NULL, &plain, &r);
            ab_search(t, &pos[i], NULL, &id, &ri);
            check("ab plain: legal", gk_is_legal(&pos[i], r.best));
            check("ab plain: depth", r.depth == d);
            check("ab plain: pv", r.npv >= 1 && r.pv[0] == r.best);
            /* id stops early at a proven score; compare only values both searched fully */
            if (ri.depth == d || ri.score > BL_WIN - 100 || ri.score < -BL_WIN + 100) {
                cmp_id++;
                same_id += r.score == ri.score;
                if (r.score != ri.score)
                    printf("position %d depth %d: plain %d, iterative deepening %d\n", i, d,
                           r.score, ri.score);
            }
            if (d <= 3) {
                cmp_minimax++;
                same_minimax += r.score == minimax(&ev, &pos[i], d, 0);
            }
            /* The best move scores what the search says (its child's minimax value). */
            if (d <= 3) {
                gk_pos_t q = pos[i];
                gk_play(&q, r.best);
                int v;
                if (gk_over(&q)) {
                    v = gk_result_for(&q, pos[i].stm) > 0 ? BL_WIN - 1 : -(BL_WIN - 1);
                } else {
                    v = minimax(&ev, &q, d - 1, 1);
                    if (q.stm != pos[i].stm) v = -v;
                }
                check("ab plain: the best move has the best score", v == r.score);
            }
        }
    }
    printf("ab plain: minimax value %d/%d, iterative deepening's value %d/%d\n", same_minimax,
           cmp_minimax, same_id, cmp_id);
    check("ab plain: equals minimax", same_minimax == cmp_minimax);
    check("ab plain: equals iterative deepening", same_id == cmp_id);

    /* Ranked root: the top K are the K best by exact score, ties in gen() order. */
    for (int i = 0; i < np && i < 8; i++) {
        const int d = 3, k = 16;
        gk_action_t list[GK_MAX_ACTIONS];
        int sc[GK_MAX_ACTIONS], n = gk_gen(&pos[i], list);
        for (int j = 0; j < n; j++) {
            gk_pos_t q = pos[i];
            gk_play(&q, list[j]);
            if (gk_over(&q)) {
                sc[j] = gk_result_for(&q, pos[i].stm) > 0 ? BL_WIN - 1 : -(BL_WIN - 1);
            } else {
                sc[j] = minimax(&ev, &q, d - 1, 1);
                if (q.stm != pos[i].stm) sc[j] = -sc[j];
            }
        }
        for (int plainv = 0; plainv < 2; plainv++) {
            ab_limits_t rk = {.depth = d, .plain = plainv, .top_k = k};
            ab_clear(s);
            ab_search(s, &pos[i], NULL, &rk, &r);
            int want = n < k ? n : k, ok = r.ntop == want;
            /* Selection by (score down, index up), as rank_root defines the top K. */
            int used[GK_MAX_ACTIONS] = {0};
            for (int m = 0; m < want && ok; m++) {
                int b = -1;
                for (int j = 0; j < n; j++)
                    if (!used[j] && (b < 0 || sc[j] > sc[b])) b = j;
                used[b] = 1;
                ok = r.top[m] == list[b] && r.top_score[m] == sc[b];
            }
            check("ab top_k: the K best with exact scores", ok);
            check("ab top_k: not randomized, the best", r.best == r.top[0]);
        }
    }

    /* randomize: a function of the seed, among the top K, and varying with the seed. */
    gk_pos_t st = pos[0];
    gk_action_t seen[AB_MAX_TOP];
    int nseen = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        ab_limits_t rl = {.depth = 3, .plain = true, .top_k = 16, .randomize = true, .seed = seed};
        ab_clear(s);
        ab_search(s, &st, NULL, &rl, &r);
        ab_clear(s);
        ab_search(s, &st, NULL, &rl, &ri);
        check("ab randomize: same seed, same move", r.best == ri.best && r.score == ri.score);
        int in = 0;
        for (int m = 0; m < r.ntop; m++) in |= r.top[m] == r.best;
        check("ab randomize: among the top K", in && r.ntop == 16);
        int known = 0;
        for (int m = 0; m < nseen; m++) known |= seen[m] == r.best;
        if (!known && nseen < AB_MAX_TOP) seen[nseen++] = r.best;
    }
    printf("ab randomize: %d different moves in 40 seeds\n", nseen);
    check("ab randomize: varies with the seed", nseen >= 8);
    ab_free(s);
    ab_free(t);
}

/* Plain without literal (ordered iterations, move hints only, a null-window check of the
 * earlier actions) gives the literal search's move, score and ranked root: on the test
 * positions at depths 1-4 (5 on some), on positions of a game between two plain players
 * with its history (so that repetitions score as draws), and on Gobs at depth 2. */
static int plain_pair(ab_search_t *s, const gk_pos_t *p, const gk_hist_t *h, int d, int k,
                      uint64_t *nodes) {
    ab_limits_t lit = {.depth = d, .plain = true, .literal = true, .top_k = k};
    ab_limits_t fast = lit;
    fast.literal = false;
    ab_result_t a, b;
    ab_clear(s);
    ab_search(s, p, h, &lit, &a);
    ab_clear(s);
    ab_search(s, p, h, &fast, &b);
    nodes[0] += a.nodes, nodes[1] += b.nodes;
    int same = a.best == b.best && a.score == b.score && a.depth == b.depth && a.ntop == b.ntop;
    for (int m = 0; m < a.ntop && same; m++)
        same = a.top[m] == b.top[m] && a.top_score[m] == b.top_score[m];
    if (!same)
        printf("plain d%d k%d: literal %s %d, ordered %s %d\n", d, k, act(p, a.best), a.score,
               act(p, b.best), b.score);
    check("ab plain ordered: same result as literal", same);
    return same;
}

static void test_ab_plain_ordered(void) {
    bl_eval_t ev = {.kind = BL_EVAL_CLASSIC};
    ab_search_t *s = ab_new(&ev, 4);
    check("ab plain ordered: allocated", s != NULL);
    if (!s) return;
    gk_pos_t pos[24];
    int np = test_positions(pos, 24), cases = 0;
    uint64_t nodes[2] = {0, 0};
    for (int i = 0; i < np; i++)
        for (int d = 1; d <= (i % 4 == 0 ? 5 : 4); d++)
            cases += plain_pair(s, &pos[i], NULL, d, 0, nodes);
    for (int i = 0; i < 6; i++) cases += plain_pair(s, &pos[i], NULL, 3, 16, nodes);
    /* Two plain depth-2 players from the start: their game and its history. */
    gk_rules_t r = {GK_GAME_GOUNKI, 0, GK_DEFAULT_TURN_LIMIT};
    gk_pos_t p;
    gk_game_by_id(GK_GAME_GOUNKI)->setup(&p, &r);
    static gk_hist_t h;
    gk_hist_init(&h, &p);
    ab_search_t *pl = ab_new(&ev, 4);
    check("ab plain ordered: player allocated", pl != NULL);
    for (int t = 0; pl && t < 80 && !gk_over(&p); t++) {
        if (t % 8 == 7) cases += plain_pair(s, &p, &h, 4, 0, nodes);
        ab_limits_t two = {.depth = 2, .plain = true, .literal = true};
        ab_result_t res;
        ab_search(pl, &p, &h, &two, &res);
        gk_play_turn(&p, &h, res.best);
    }
    ab_free(pl);
    gk_pos_t g;
    gk_rules_t rg = {GK_GAME_GOBS, 0, GK_DEFAULT_TURN_LIMIT};
    gk_game_by_id(GK_GAME_GOBS)->setup(&g, &rg);
    for (int t = 0; t < 12 && !gk_over(&g); t++) {
        if (t % 4 == 3) cases += plain_pair(s, &g, NULL, 2, 0, nodes);
        gk_play(&g, bl_random(&g, 77 + (uint64_t)t));
    }
    printf("ab plain ordered: %d cases equal; nodes literal %llu, ordered %llu\n", cases,
           (unsigned long long)nodes[0], (unsigned long long)nodes[1]);
    ab_free(s);
}

int main(void) {
    gk_init();
    test_classic();
    test_random();
    test_greedy();
    test_ab();
    test_ab_plain();
    test_ab_plain_ordered();
    if (failures) return 1;
    printf("test_baselines: all passed\n");
    return 0;
}
