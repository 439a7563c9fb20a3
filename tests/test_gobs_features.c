/*
 * tests/test_gobs_features.c -- the Gobs features against the plain reference code.
 *
 * eval/features_gobs.c computes its threats with bitboards and its exposures along the
 * ray tables of games/gobs.h (issue 14, speed).  The reference below is the code it
 * replaced, square by square with bounds-checked lookups; every value feature and every
 * move feature of every legal action must agree bit for bit (the bench signature and
 * the tuned weights depend on them).  Positions: seeded random games of both rule sets
 * (chains in progress included) and random boards of every density, where the board's
 * edges, crowded lines and the short variant's two-square limits are all reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "games/game.h"
#include "games/gobs.h"
#include "check.h"

enum { NV = 13, NP = 10 };

static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};

static int cell_at(const gk_pos_t *p, int x, int y) {
    if (x < 0 || x >= GOBS_SIZE || y < 0 || y >= GOBS_SIZE) return -1;
    return p->b.cell[GOBS_SIZE * y + x];
}

typedef struct {
    char flip[GOBS_SQUARES], elim[GOBS_SQUARES];
    int slides;
} ref_threats_t;

static int count_of(const char *s) {
    int n = 0;
    for (int i = 0; i < GOBS_SQUARES; i++) n += s[i];
    return n;
}

static void ref_threats(const gk_pos_t *p, int side, int only, ref_threats_t *t) {
    memset(t, 0, sizeof *t);
    const int mc = side + 1, oc = 2 - side, short_var = p->variant == GOBS_VAR_SHORT;
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        if (p->b.cell[sq] != mc || (only >= 0 && sq != only)) continue;
        int x0 = sq % GOBS_SIZE, y0 = sq / GOBS_SIZE;
        for (int d = 0; d < 8; d++) {
            int x = x0 + DX[d], y = y0 + DY[d], k = 0, v;
            while ((v = cell_at(p, x, y)) == GOBS_EMPTY && (!short_var || k < 2)) {
                t->slides++;
                k++;
                x += DX[d];
                y += DY[d];
            }
            if (v != oc) continue;
            int beyond = cell_at(p, x + DX[d], y + DY[d]);
            if (short_var) {
                if (k == 0 && beyond == GOBS_EMPTY) t->flip[GOBS_SIZE * y + x] = 1;
                if (k == 1) t->elim[GOBS_SIZE * y + x] = 1;
            } else {
                if (beyond == GOBS_EMPTY) t->flip[GOBS_SIZE * y + x] = 1;
                if (k > 0) t->elim[GOBS_SIZE * y + x] = 1;
            }
        }
    }
}

static int is_edge(int sq) {
    int x = sq % GOBS_SIZE, y = sq / GOBS_SIZE;
    return x == 0 || y == 0 || x == GOBS_SIZE - 1 || y == GOBS_SIZE - 1;
}

static void ref_trace(const gk_pos_t *p, float *f) {
    memset(f, 0, sizeof(float) * NV);
    int me = p->stm, op = me ^ 1;
    int own = gobs_count(p, me), opp = gobs_count(p, op);
    f[0] = (float)(own - opp);
    f[1] = (float)(own < 8 ? 8 - own : 0);
    f[2] = (float)(opp < 8 ? 8 - opp : 0);
    f[3] = own <= GOBS_LIMIT ? 1.0f : 0.0f;
    ref_threats_t tm, to;
    ref_threats(p, me, p->in_turn ? p->aux[GOBS_AUX_JUMPER] : -1, &tm);
    ref_threats(p, op, -1, &to);
    f[4] = (float)count_of(tm.flip);
    f[5] = (float)count_of(to.flip);
    if (!p->in_turn) f[6] = (float)count_of(tm.elim);
    f[7] = (float)count_of(to.elim);
    if (p->in_turn) ref_threats(p, me, -1, &tm);
    f[8] = (float)(tm.slides - to.slides);
    int safe_me = 0, safe_op = 0, edge = 0;
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        int v = p->b.cell[sq];
        if (v == GOBS_EMPTY) continue;
        int mine = v == me + 1;
        if (mine)
            safe_me += !to.flip[sq] && !to.elim[sq];
        else
            safe_op += !tm.flip[sq] && !tm.elim[sq];
        if (is_edge(sq)) edge += mine ? 1 : -1;
    }
    f[9] = (float)(safe_me - safe_op);
    f[10] = (float)edge;
    f[11] = p->in_turn ? 1.0f : 0.0f;
    f[12] = 1.0f;
}

static void ref_exposure(const gk_pos_t *q, int side, int sq, int *flip, int *elim) {
    const int oc = 2 - side, short_var = q->variant == GOBS_VAR_SHORT;
    int x0 = sq % GOBS_SIZE, y0 = sq / GOBS_SIZE;
    *flip = *elim = 0;
    for (int d = 0; d < 8; d++) {
        int x = x0 + DX[d], y = y0 + DY[d], k = 0, v;
        while ((v = cell_at(q, x, y)) == GOBS_EMPTY && (!short_var || k < 2)) {
            k++;
            x += DX[d];
            y += DY[d];
        }
        if (v != oc) continue;
        int past = cell_at(q, x0 - DX[d], y0 - DY[d]);
        if (past == GOBS_EMPTY && (!short_var || k == 0)) *flip = 1;
        if (short_var ? k == 1 : k > 0) *elim = 1;
    }
}

static int centre_dist(int sq) {
    int x = sq % GOBS_SIZE - 4, y = sq / GOBS_SIZE - 4;
    x = x < 0 ? -x : x;
    y = y < 0 ? -y : y;
    return x > y ? x : y;
}

static void ref_move(const gk_pos_t *p, const ref_threats_t *op, gk_action_t a, float *f) {
    gk_pos_t child = *p;
    gk_play(&child, a);
    memset(f, 0, sizeof(float) * NP);
    int me = p->stm, kind = gobs_act_kind(a);
    if (kind >= GOBS_ACT_SLIDE && kind <= GOBS_ACT_STOP) f[kind - 1] = 1.0f;
    if (kind != GOBS_ACT_STOP) {
        int from = gobs_act_from(a), to = gobs_act_to(a);
        f[6] = (op->flip[from] || op->elim[from]) ? 1.0f : 0.0f;
        int fl, el;
        ref_exposure(&child, me, to, &fl, &el);
        f[4] = (float)fl;
        f[5] = (float)el;
        f[9] = (float)(centre_dist(from) - centre_dist(to));
    }
    if (kind == GOBS_ACT_LEG && !gk_over(&child) && child.in_turn) f[7] = 1.0f;
    f[8] = gobs_count(&child, me ^ 1) <= GOBS_LIMIT + 1 ? 1.0f : 0.0f;
}

static long moves_checked;

static void check_position(const gk_pos_t *p) {
    float f[EV_MAX_FEATURES], g[NV];
    CHECK(ev_trace(p, f) == NV, "value trace length");
    ref_trace(p, g);
    for (int i = 0; i < NV; i++)
        CHECK(memcmp(&f[i], &g[i], sizeof(float)) == 0, "turn %d in_turn %d: %s is %g, ref %g",
              p->turn, p->in_turn, ev_feature_name(GK_GAME_GOBS, i), (double)f[i], (double)g[i]);
    gk_action_t *acts = malloc(sizeof(gk_action_t) * GK_MAX_ACTIONS);
    int n = gk_gen(p, acts);
    ref_threats_t op;
    ref_threats(p, p->stm ^ 1, -1, &op);
    for (int k = 0; k < n; k++) {
        float pf[EV_MAX_POLICY], pg[NP];
        CHECK(ev_policy_trace(p, acts[k], pf) == NP, "policy trace length");
        ref_move(p, &op, acts[k], pg);
        for (int i = 0; i < NP; i++)
            CHECK(memcmp(&pf[i], &pg[i], sizeof(float)) == 0,
                  "turn %d action %08x: %s is %g, ref %g", p->turn, (unsigned)acts[k],
                  ev_policy_feature_name(GK_GAME_GOBS, i), (double)pf[i], (double)pg[i]);
        moves_checked++;
    }
    free(acts);
}

/* A random board: each square empty with probability pe, else white or black; a chain
 * in progress for a quarter of them when the side to move has a piece. */
static void random_board(gk_pos_t *p, int variant, uint64_t *rng) {
    gk_rules_t r = {.game = GK_GAME_GOBS, .variant = (uint8_t)variant, .turn_limit = 500};
    gk_game_by_id(GK_GAME_GOBS)->setup(p, &r);
    memset(p->b.cell, 0, sizeof p->b.cell);
    int pe = (int)(gk_splitmix64(rng) % 101), cnt[2] = {0, 0};
    for (int sq = 0; sq < GOBS_SQUARES; sq++) {
        if ((int)(gk_splitmix64(rng) % 100) < pe) continue;
        int c = (int)(gk_splitmix64(rng) & 1);
        p->b.cell[sq] = (uint8_t)(c + 1);
        cnt[c]++;
    }
    p->aux[GOBS_AUX_COUNT + 0] = (uint8_t)cnt[0];
    p->aux[GOBS_AUX_COUNT + 1] = (uint8_t)cnt[1];
    p->stm = (uint8_t)(gk_splitmix64(rng) & 1);
    if (cnt[p->stm] && gk_splitmix64(rng) % 4 == 0) {
        int sq;
        do sq = (int)(gk_splitmix64(rng) % GOBS_SQUARES);
        while (p->b.cell[sq] != p->stm + 1);
        p->in_turn = 1;
        p->aux[GOBS_AUX_JUMPER] = (uint8_t)sq;
    }
    p->hash = gk_game_by_id(GK_GAME_GOBS)->hash_full(p);
}

int main(void) {
    gk_init();
    uint64_t rng = 14;
    int positions = 0, chains = 0;
    for (int variant = 0; variant < 2; variant++) {
        for (int game = 0; game < 12; game++) {
            gk_rules_t r = {.game = GK_GAME_GOBS, .variant = (uint8_t)variant, .turn_limit = 300};
            gk_pos_t p;
            gk_game_by_id(GK_GAME_GOBS)->setup(&p, &r);
            gk_action_t l[GK_MAX_ACTIONS];
            while (!gk_over(&p)) {
                check_position(&p);
                positions++;
                chains += p.in_turn > 0;
                int n = gk_gen(&p, l);
                if (!n) break;
                /* Legs first half of the time, so that long chains occur. */
                int pick = (int)(gk_splitmix64(&rng) % (uint64_t)n);
                if (gk_splitmix64(&rng) & 1)
                    for (int i = 0; i < n; i++)
                        if (gobs_act_kind(l[i]) == GOBS_ACT_LEG) {
                            pick = i;
                            break;
                        }
                gk_play(&p, l[pick]);
            }
        }
        for (int k = 0; k < 3000; k++) {
            gk_pos_t p;
            random_board(&p, variant, &rng);
            check_position(&p);
            positions++;
            chains += p.in_turn > 0;
        }
    }
    CHECK(positions > 8000 && chains > 1000, "%d positions, %d in a chain", positions, chains);
    printf("%d positions (%d in a chain), %ld actions checked\n", positions, chains, moves_checked);
    return check_exit("test_gobs_features");
}
