/*
 * tests/test_gobs_props.c -- properties of the Gobs implementation over seeded random
 * games of both rule sets:
 *   - play() keeps hash == hash_full() after every action (mid-turn included);
 *   - gen() lists no action twice, and returns 0 only when the game is over or the side
 *     to move is stuck;
 *   - pos_from_text(pos_to_text(p)) == p byte for byte, at every action;
 *   - every complete move's text parses back (also upper-cased) to the same actions;
 *   - perft 1 == the number of enumerated complete moves, and perft 2 (chain-counting)
 *     == the generic gen/play perft, at turn boundaries and mid-turn;
 *   - gobs_chain_flips() (the longest chain, stopping at a target) equals the longest leg
 *     sequence found by playing every chain with gen()/play(), at turn boundaries and
 *     mid-turn;
 *   - the same seed replays the same game.
 * Usage: test_gobs_props [GAMES]   (default 20 per rule set)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gobs.h"
#include "check.h"

static long long n_actions, n_moves_rt, n_perft2, n_midturn_perft, n_chain_checks;
static int longest_chain_seen;
static int max_actions_seen, max_turn_seen;

static int cmp_action(const void *a, const void *b) {
    const gk_action_t x = *(const gk_action_t *)a, y = *(const gk_action_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int bad;
} rt_ctx_t;

/* The most legs of a chain from p (the jumper's if mid-turn), by playing every leg action:
 * the reference for gobs_chain_flips(), which walks its own copy of the board. */
static int longest_by_play(const gk_pos_t *p) {
    gk_action_t list[GK_MAX_ACTIONS];
    const int n = gk_gobs_game.gen(p, list);
    int best = 0;
    for (int i = 0; i < n; i++) {
        if (gobs_act_kind(list[i]) != GOBS_ACT_LEG) continue;
        gk_pos_t q = *p;
        gk_gobs_game.play(&q, list[i]);
        const int k = 1 + (q.in_turn ? longest_by_play(&q) : 0);
        if (k > best) best = k;
    }
    return best;
}

/* Text of a complete move -> parse -> the same actions, in lower and upper case. */
static int roundtrip(void *ctx, const gk_pos_t *start, const gk_action_t *seq, int n) {
    rt_ctx_t *c = ctx;
    const gk_game_t *g = &gk_gobs_game;
    char text[GK_MOVE_TEXT_MAX], err[256];
    gk_action_t back[GK_MAX_TURN];
    if (g->move_text(start, seq, n, text, sizeof text) < 0) {
        c->bad = 1;
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            for (char *t = text; *t; t++) *t = (char)toupper((unsigned char)*t);
        const int k = g->parse_move(start, text, back, GK_MAX_TURN, err, sizeof err);
        if (k != n || memcmp(back, seq, (size_t)n * sizeof *seq)) {
            printf("move '%s' does not round-trip (%s)\n", text, k < 0 ? err : "other actions");
            c->bad = 1;
            return 1;
        }
    }
    n_moves_rt++;
    return 0;
}

static void check_position(const gk_pos_t *p, uint64_t *rng) {
    const gk_game_t *g = &gk_gobs_game;
    char text[GK_POS_TEXT_MAX], err[256];
    CHECK(p->hash == g->hash_full(p), "hash differs from hash_full");
    CHECK(g->pos_to_text(p, text, sizeof text) > 0, "pos_to_text failed");
    gk_pos_t q;
    const int rc = g->pos_from_text(&q, text, p->turn_limit, err, sizeof err);
    CHECK(rc == 0, "pos_from_text rejects its own output %s: %s", text, err);
    CHECK(rc != 0 || !memcmp(&q, p, sizeof q), "position does not round-trip: %s", text);

    gk_action_t list[GK_MAX_ACTIONS];
    const int n = g->gen(p, list);
    if (n > max_actions_seen) max_actions_seen = n;
    gk_action_t sorted[GK_MAX_ACTIONS];
    memcpy(sorted, list, (size_t)n * sizeof *list);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_action);
    for (int i = 1; i < n; i++) CHECK(sorted[i] != sorted[i - 1], "duplicate action at %s", text);
    for (int i = 0; i < n; i++) {
        char at[64];
        CHECK(list[i] != GK_NO_ACTION, "action 0 listed");
        CHECK(g->action_text(p, list[i], at, sizeof at) > 0, "action_text failed");
    }
    if (n == 0 && !gk_over(p)) CHECK(!p->in_turn, "no action in the middle of a turn at %s", text);

    /* The heavier checks on a sample of positions, before turn 100: later positions of
     * random games reach billions of complete moves (seconds of counting each). */
    if (gk_over(p) || p->turn >= 100 || gk_splitmix64(rng) % 8) return;
    const uint64_t p1 = g->perft(p, 1);
    if (p1 <= 3000) {
        rt_ctx_t c = {0};
        const uint64_t k = gk_enum_moves(p, UINT64_MAX, p->in_turn ? NULL : roundtrip, &c);
        CHECK(k == p1, "perft 1 %llu != enumerated %llu at %s", (unsigned long long)p1,
              (unsigned long long)k, text);
        CHECK(!c.bad, "move text round trip failed at %s", text);
    }
    if (p1 <= 3000) {
        const int want = longest_by_play(p);
        long budget = 1L << 40;
        gk_action_t first;
        const int got = gobs_chain_flips(p, 64, &budget, &first);
        CHECK(got == want, "chain flips %d != longest chain %d at %s", got, want, text);
        if (want > 0) { /* its first leg begins a longest chain */
            int legal = 0;
            for (int i = 0; i < n; i++) legal |= list[i] == first;
            CHECK(legal, "chain flips: first leg not legal at %s", text);
            gk_pos_t after = *p;
            g->play(&after, first);
            CHECK(1 + (after.in_turn ? longest_by_play(&after) : 0) == want,
                  "chain flips: no longest chain after its first leg at %s", text);
        } else {
            CHECK(first == GK_NO_ACTION, "chain flips: a first leg of no chain at %s", text);
        }
        budget = 1L << 40;
        const int capped = gobs_chain_flips(p, want, &budget, NULL);
        CHECK(capped == want, "chain flips up to %d gave %d at %s", want, capped, text);
        if (want > 1) {
            budget = 1L << 40;
            CHECK(gobs_chain_flips(p, want - 1, &budget, NULL) == want - 1,
                  "chain flips stops at its target at %s", text);
        }
        if (want > longest_chain_seen) longest_chain_seen = want;
        n_chain_checks++;
    }
    const uint64_t a = p1 <= 300 ? g->perft(p, 2) : UINT64_MAX;
    if (a <= 200000) { /* the generic perft lists every chain: keep it small */
        const uint64_t b = gk_perft_generic(p, 2);
        CHECK(a == b, "perft 2 %llu != generic %llu at %s", (unsigned long long)a,
              (unsigned long long)b, text);
        n_perft2++;
        n_midturn_perft += p->in_turn != 0;
    }
}

/* One seeded game; returns a digest of its hashes. */
static uint64_t play_game(int variant, uint64_t seed, int check) {
    const gk_game_t *g = &gk_gobs_game;
    gk_rules_t r = {GK_GAME_GOBS, (uint8_t)variant, 200};
    gk_pos_t p;
    g->setup(&p, &r);
    gk_hist_t *hist = malloc(sizeof *hist);
    if (!hist) abort();
    gk_hist_init(hist, &p);
    uint64_t rng = seed, sample = ~seed, digest = 0; /* sampling must not steer the game */
    while (!gk_over(&p)) {
        if (check) check_position(&p, &sample);
        gk_action_t list[GK_MAX_ACTIONS];
        const int n = g->gen(&p, list);
        if (n == 0) {
            gk_apply_no_move(&p);
            break;
        }
        const int turn_before = p.stm;
        g->play(&p, list[gk_splitmix64(&rng) % (uint64_t)n]);
        n_actions++;
        digest = digest * 31 + p.hash;
        if (p.in_turn > max_turn_seen) max_turn_seen = p.in_turn;
        if (p.in_turn) CHECK(p.stm == turn_before, "side changed mid-turn");
        if (!p.in_turn && !gk_over(&p)) {
            CHECK(p.stm != turn_before, "side did not change at the end of a turn");
            gk_hist_push(hist, &p);
            gk_hist_check_repetition(hist, &p);
        }
    }
    if (check) check_position(&p, &sample);
    free(hist);
    return digest ^ p.result;
}

int main(int argc, char **argv) {
    gk_init();
    const int games = argc > 1 ? atoi(argv[1]) : 20;
    int results[2][GK_NREASONS] = {{0}};
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < games; i++) {
            const uint64_t seed = 1000 * (uint64_t)v + (uint64_t)i + 1;
            const uint64_t d = play_game(v, seed, 1);
            CHECK(d == play_game(v, seed, 0), "seed %llu does not replay the same game",
                  (unsigned long long)seed);
        }
    /* How the games ended, to show the end rules are exercised. */
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < games && i < 200; i++) {
            const gk_game_t *g = &gk_gobs_game;
            gk_rules_t r = {GK_GAME_GOBS, (uint8_t)v, 200};
            gk_pos_t p;
            g->setup(&p, &r);
            uint64_t rng = 1000 * (uint64_t)v + (uint64_t)i + 1;
            while (!gk_over(&p)) {
                gk_action_t list[GK_MAX_ACTIONS];
                const int n = g->gen(&p, list);
                if (!n) {
                    gk_apply_no_move(&p);
                    break;
                }
                g->play(&p, list[gk_splitmix64(&rng) % (uint64_t)n]);
            }
            results[v][p.reason]++;
        }
    printf("gobs props: %d games per rule set, %lld actions, %lld move texts round-tripped, "
           "%lld perft-2 checks (%lld mid-turn), max %d actions in a position, max %d legs in "
           "a turn; %lld longest-chain checks (longest %d)\n",
           games, n_actions, n_moves_rt, n_perft2, n_midturn_perft, max_actions_seen, max_turn_seen,
           n_chain_checks, longest_chain_seen);
    for (int v = 0; v < 2; v++) {
        printf("  %s endings:", v ? "short" : "standard");
        for (int k = 0; k < GK_NREASONS; k++)
            if (results[v][k]) printf(" %s %d", gk_reason_text((gk_reason_t)k), results[v][k]);
        printf("\n");
    }
    return check_exit("test_gobs_props");
}
