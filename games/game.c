/* games/game.c -- the game registry and the game-independent helpers of game.h. */
#include "game.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "gobs.h"
#include "gounki.h"
#include "../common/status.h"

static const gk_game_t *const games[GK_NGAMES] = {
    [GK_GAME_GOUNKI] = &gk_gounki_game,
    [GK_GAME_GOBS] = &gk_gobs_game,
};

void gk_init(void) {
    gounki_init();
    gobs_init();
}

const gk_game_t *gk_game_by_id(int id) {
    if (id < 0 || id >= GK_NGAMES) return NULL;
    return games[id];
}

const gk_game_t *gk_game_by_name(const char *name) {
    for (int i = 0; i < GK_NGAMES; i++)
        if (name && strcmp(games[i]->name, name) == 0) return games[i];
    return NULL;
}

int gk_variant_by_name(const gk_game_t *g, const char *name) {
    for (int i = 0; i < 4 && g->variants[i]; i++)
        if (name && strcmp(g->variants[i], name) == 0) return i;
    return -1;
}

int gk_gen(const gk_pos_t *p, gk_action_t *out) {
    assert(p->game < GK_NGAMES);
    int n = games[p->game]->gen(p, out);
    assert(n >= 0 && n <= GK_MAX_ACTIONS);
    assert(n == 0 || !gk_over(p));
    return n;
}
void gk_play(gk_pos_t *p, gk_action_t a) {
    assert(p->game < GK_NGAMES);
    games[p->game]->play(p, a);
}

void gk_set_result(gk_pos_t *p, gk_result_t r, gk_reason_t why) {
    assert(r >= GK_ONGOING && r <= GK_DRAW && why < GK_NREASONS);
    assert((r == GK_ONGOING) == (why == GK_REASON_NONE));
    p->result = (uint8_t)r;
    p->reason = (uint8_t)why;
}

void gk_apply_no_move(gk_pos_t *p) {
    assert(!gk_over(p));
    gk_set_result(p, p->stm == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE, GK_REASON_NO_MOVE);
}

int gk_result_for(const gk_pos_t *p, int side) {
    switch (p->result) {
    case GK_WIN_WHITE: return side == GK_WHITE ? 1 : -1;
    case GK_WIN_BLACK: return side == GK_BLACK ? 1 : -1;
    default: return 0;
    }
}

const char *gk_result_text(gk_result_t r) {
    switch (r) {
    case GK_WIN_WHITE: return "1-0";
    case GK_WIN_BLACK: return "0-1";
    case GK_DRAW: return "1/2-1/2";
    default: return "*";
    }
}

const char *gk_reason_text(gk_reason_t r) {
    static const char *const names[GK_NREASONS] = {
        [GK_REASON_NONE] = "none",
        [GK_REASON_EXIT] = "exit",
        [GK_REASON_CAPTURE_ALL] = "capture-all",
        [GK_REASON_NO_MOVE] = "no-move",
        [GK_REASON_REPETITION] = "repetition",
        [GK_REASON_TURN_LIMIT] = "turn-limit",
        [GK_REASON_GOBS] = "gobs",
        [GK_REASON_GOBS_DRAW] = "gobs-draw",
        [GK_REASON_RESIGN] = "resign",
        [GK_REASON_ADJUDICATED] = "adjudication",
    };
    return (unsigned)r < GK_NREASONS ? names[r] : "unknown";
}

int gk_reason_named(const char *s, size_t n) {
    for (int r = 0; r < GK_NREASONS; r++) {
        const char *t = gk_reason_text((gk_reason_t)r);
        if (strlen(t) == n && !memcmp(s, t, n)) return r;
    }
    return n == 9 && !memcmp(s, "ply-limit", 9) ? GK_REASON_TURN_LIMIT : -1;
}

uint64_t gk_perft_generic(const gk_pos_t *p, int depth) {
    assert(depth >= 0);
    if (depth == 0) return 1;
    gk_action_t list[GK_MAX_ACTIONS];
    int n = gk_gen(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        /* A turn that continues (same player, mid-turn) stays at the same depth. */
        int d = (q.in_turn != 0 && !gk_over(&q)) ? depth : depth - 1;
        total += gk_perft_generic(&q, d);
    }
    return total;
}

typedef struct {
    uint64_t count, limit;
    gk_move_fn fn;
    void *ctx;
    const gk_pos_t *start;
    gk_action_t seq[GK_MAX_TURN];
    int stop;
} enum_state_t;

static void enum_rec(enum_state_t *st, const gk_pos_t *p, int n) {
    assert(n >= 0 && n < GK_MAX_TURN); /* seq[n] below */
    gk_action_t list[GK_MAX_ACTIONS];
    int k = gk_gen(p, list);
    for (int i = 0; i < k && !st->stop; i++) {
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        st->seq[n] = list[i];
        if (q.in_turn != 0 && !gk_over(&q) && n + 1 < GK_MAX_TURN) {
            enum_rec(st, &q, n + 1);
            continue;
        }
        st->count++;
        if (st->fn && st->fn(st->ctx, st->start, st->seq, n + 1)) st->stop = 1;
        if (st->count >= st->limit) st->stop = 1;
    }
}

uint64_t gk_enum_moves(const gk_pos_t *p, uint64_t limit, gk_move_fn fn, void *ctx) {
    enum_state_t st = {.limit = limit, .fn = fn, .ctx = ctx, .start = p};
    if (limit == 0) return 0;
    enum_rec(&st, p, 0);
    return st.count;
}

int gk_action_index(const gk_action_t *list, int n, gk_action_t a) {
    for (int i = 0; i < n; i++)
        if (list[i] == a) return i;
    return -1;
}

bool gk_is_legal(const gk_pos_t *p, gk_action_t a) {
    gk_action_t list[GK_MAX_ACTIONS];
    return gk_action_index(list, gk_gen(p, list), a) >= 0;
}

int gk_play_move_text(gk_pos_t *p, const char *text, char *err, size_t errcap) {
    const gk_game_t *g = gk_game_of(p);
    gk_action_t seq[GK_MAX_TURN];
    if (gk_over(p))
        return gk_fail(err, errcap, GK_E_INVALID, "the game is already over (%s)",
                       gk_reason_text(p->reason));
    int n = g->parse_move(p, text, seq, GK_MAX_TURN, err, errcap);
    if (n < 0) return -1;
    assert(n >= 1 && n <= GK_MAX_TURN);
    for (int i = 0; i < n; i++) g->play(p, seq[i]);
    return 0;
}

void gk_hist_init(gk_hist_t *h, const gk_pos_t *start) {
    h->n = 0;
    gk_hist_push(h, start);
}

int gk_hist_push(gk_hist_t *h, const gk_pos_t *p) {
    if (h->n >= GK_HIST_MAX) return -1;
    h->h[h->n++] = p->hash;
    return 0;
}

int gk_hist_count(const gk_hist_t *h, uint64_t hash) {
    int c = 0;
    for (int i = 0; i < h->n; i++) c += h->h[i] == hash;
    return c;
}

bool gk_hist_check_repetition(const gk_hist_t *h, gk_pos_t *p) {
    if (gk_over(p) || p->in_turn != 0) return false;
    if (gk_hist_count(h, p->hash) < 3) return false;
    gk_set_result(p, GK_DRAW, GK_REASON_REPETITION);
    return true;
}

void gk_end_turn(gk_pos_t *p, gk_hist_t *h) {
    if (gk_over(p) || p->in_turn != 0) return;
    if (gk_hist_push(h, p))
        gk_set_result(p, GK_DRAW, GK_REASON_TURN_LIMIT); /* only without a turn limit */
    else
        gk_hist_check_repetition(h, p);
}

void gk_play_turn(gk_pos_t *p, gk_hist_t *h, gk_action_t a) {
    gk_play(p, a);
    gk_end_turn(p, h);
}
