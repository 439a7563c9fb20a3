/* data/gamelog.c -- game records, zstd frames, shards, manifests (see gamelog.h). */
#define _GNU_SOURCE /* F_OFD_SETLK: locks owned by the open file, not the process */
#include "gamelog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "../common/files.h"
#include "xxh64.h"

#define SKIP_MAGIC    0x184D2A5Eu /* a zstd skippable frame: zstd -d passes over it */
#define FRAME_MAGIC   0x464C4B47u /* "GKLF" */
#define HDR_FIXED     28u         /* magic .. payload checksum */
#define HDR_MIN       (HDR_FIXED + 8u + 8u)
#define MANIFEST_HEAD "gounki-selfplay-manifest"

/* ------------------------------------------------------------------ buffers */

void gl_buf_free(gl_buf_t *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

int gl_buf_reserve(gl_buf_t *b, size_t extra) {
    if (extra > SIZE_MAX / 2 - b->n) return GK_E_NOMEM;
    if (b->n + extra <= b->cap) return GK_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) return GK_E_NOMEM;
    b->p = p;
    b->cap = cap;
    return GK_OK;
}

/* Writers below reserve first, so these never fail. */
static void put8(gl_buf_t *b, unsigned v) {
    b->p[b->n++] = (uint8_t)v;
}
static void put16(gl_buf_t *b, unsigned v) {
    put8(b, v & 0xff);
    put8(b, (v >> 8) & 0xff);
}
static void put32(gl_buf_t *b, uint32_t v) {
    for (int i = 0; i < 4; i++) put8(b, (v >> (8 * i)) & 0xff);
}
static void put64(gl_buf_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) put8(b, (unsigned)(v >> (8 * i)) & 0xff);
}
static void putv(gl_buf_t *b, uint64_t v) { /* LEB128 */
    while (v >= 0x80) {
        put8(b, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    put8(b, (unsigned)v);
}
static uint64_t zigzag(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t unzigzag(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) {
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* A bounds-checked cursor: any read past the end sets bad and returns 0. */
typedef struct {
    const uint8_t *p, *end;
    int bad;
} cur_t;

static unsigned get8(cur_t *c) {
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}
static uint64_t getn(cur_t *c, int bytes) {
    uint64_t v = 0;
    if (c->end - c->p < bytes) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    for (int i = 0; i < bytes; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += bytes;
    return v;
}
static uint64_t getv(cur_t *c) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        unsigned byte = get8(c);
        if (c->bad) return 0;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            if (shift == 63 && byte > 1) break; /* more than 64 bits */
            return v;
        }
    }
    c->bad = 1;
    return 0;
}
/* A varint that must fit in [0, max]. */
static uint64_t getv_max(cur_t *c, uint64_t max) {
    uint64_t v = getv(c);
    if (v > max) c->bad = 1;
    return c->bad ? 0 : v;
}

/* ------------------------------------------------------------------ games */

void gl_game_init(gl_game_t *g) {
    memset(g, 0, sizeof *g);
}

void gl_game_free(gl_game_t *g) {
    free(g->action);
    free(g->stats);
    free(g->child);
    gl_game_init(g);
}

void gl_game_clear(gl_game_t *g) {
    gl_game_t keep = *g;
    memset(g, 0, sizeof *g);
    g->action = keep.action;
    g->stats = keep.stats;
    g->child = keep.child;
    g->cap = keep.cap;
    g->child_cap = keep.child_cap;
}

static int game_grow(gl_game_t *g, uint32_t actions, uint32_t children) {
    if (actions > g->cap) {
        uint32_t cap = g->cap ? g->cap : 64;
        while (cap < actions) cap *= 2;
        gk_action_t *a = realloc(g->action, cap * sizeof *a);
        if (!a) return GK_E_NOMEM;
        g->action = a;
        gl_action_stats_t *p = realloc(g->stats, cap * sizeof *p);
        if (!p) return GK_E_NOMEM;
        g->stats = p;
        g->cap = cap;
    }
    if (children > g->child_cap) {
        uint32_t cap = g->child_cap ? g->child_cap : 256;
        while (cap < children) cap *= 2;
        gl_child_t *c = realloc(g->child, cap * sizeof *c);
        if (!c) return GK_E_NOMEM;
        g->child = c;
        g->child_cap = cap;
    }
    return GK_OK;
}

static int child_cmp(const void *a, const void *b) {
    const gl_child_t *x = a, *y = b;
    if (x->visits != y->visits) return x->visits > y->visits ? -1 : 1;
    return x->action < y->action ? -1 : x->action > y->action;
}

int gl_game_push(gl_game_t *g, gk_action_t a, const gl_action_stats_t *st, const gl_child_t *top,
                 int ntop) {
    if (g->nactions >= GL_MAX_GAME_ACTIONS) return GK_E_ARG;
    if (ntop < 0 || !st || st->kind != GL_ACTION_SEARCH) ntop = 0;
    if (ntop > GL_MAX_TOP) ntop = GL_MAX_TOP;
    int rc = game_grow(g, g->nactions + 1, g->nchild + (uint32_t)ntop);
    if (rc) return rc;
    gl_action_stats_t *p = &g->stats[g->nactions];
    if (st) {
        *p = *st;
        g->has_stats = true;
    } else {
        memset(p, 0, sizeof *p);
        p->kind = GL_ACTION_FORCED;
    }
    p->ntop = (uint8_t)ntop;
    p->first = g->nchild;
    if (ntop) {
        memcpy(&g->child[g->nchild], top, (size_t)ntop * sizeof *top);
        /* Most visited first, ties by action: the on-disk delta coding needs the order. */
        qsort(&g->child[g->nchild], (size_t)ntop, sizeof *top, child_cmp);
    }
    g->nchild += (uint32_t)ntop;
    g->action[g->nactions++] = a;
    return GK_OK;
}

const char *gl_action_kind_text(int kind) {
    static const char *const names[GL_NACTION_KINDS] = {"search", "random", "book", "forced"};
    return kind >= 0 && kind < GL_NACTION_KINDS ? names[kind] : "unknown";
}

/* The legal actions of a position, sorted, to turn actions into gen() indices and back. */
typedef struct {
    int n;
    gk_action_t list[GK_MAX_ACTIONS]; /* gen() order */
    uint32_t sorted[GK_MAX_ACTIONS];  /* (action, index) pairs sorted by action */
    uint16_t sidx[GK_MAX_ACTIONS];
} legal_t;

static void legal_fill(legal_t *L, const gk_pos_t *p) {
    L->n = gk_gen(p, L->list);
    if (L->n < 0) L->n = 0;
    if (L->n > GK_MAX_ACTIONS) L->n = GK_MAX_ACTIONS;
    /* insertion sort of indices is too slow for 1000 actions; use a shell sort */
    for (int i = 0; i < L->n; i++) L->sidx[i] = (uint16_t)i;
    for (int gap = L->n / 2; gap > 0; gap /= 2)
        for (int i = gap; i < L->n; i++) {
            uint16_t t = L->sidx[i];
            int j = i;
            while (j >= gap && L->list[L->sidx[j - gap]] > L->list[t]) {
                L->sidx[j] = L->sidx[j - gap];
                j -= gap;
            }
            L->sidx[j] = t;
        }
    for (int i = 0; i < L->n; i++) L->sorted[i] = L->list[L->sidx[i]];
}

/* gen() index of a, or -1 when a is not legal. */
static int legal_index(const legal_t *L, gk_action_t a) {
    int lo = 0, hi = L->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (L->sorted[mid] == a) return L->sidx[mid];
        if (L->sorted[mid] < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* The replay rules shared by writer and reader: play, then at the end of a turn the
 * repetition rule (gk_play_turn), by which self-play writes too. */
typedef struct {
    gk_pos_t pos;
    gk_hist_t hist;
    legal_t legal;
} replay_t;

static void replay_start(replay_t *r, const gk_rules_t *rules) {
    gk_game_by_id(rules->game)->setup(&r->pos, rules);
    gk_hist_init(&r->hist, &r->pos);
}

static void replay_play(replay_t *r, gk_action_t a) {
    gk_play_turn(&r->pos, &r->hist, a);
}

static int rules_ok(const gk_rules_t *r) {
    const gk_game_t *g = gk_game_by_id(r->game);
    return g && r->variant < 4 && g->variants[r->variant];
}

static int settings_put(gl_buf_t *b, const gl_settings_t *s) {
    putv(b, s->playouts);
    putv(b, s->time_ms);
    putv(b, s->threads_per_game);
    putv(b, s->top);
    putv(b, (uint64_t)lroundf(fmaxf(0.f, fminf(s->temperature, 1e6f)) * 1000.f));
    putv(b, s->temp_turns);
    putv(b, s->open_turns);
    put8(b, s->open_kind);
    put8(b, s->resign_on);
    putv(b, zigzag(lroundf(fmaxf(-1e6f, fminf(s->resign_value, 1e6f)) * 1000.f)));
    putv(b, (uint64_t)lroundf(fmaxf(0.f, fminf(s->resign_share, 1.f)) * 1000.f));
    put64(b, s->book_hash);
    return GK_OK;
}

static void settings_get(cur_t *c, gl_settings_t *s) {
    s->playouts = (uint32_t)getv_max(c, UINT32_MAX);
    s->time_ms = (uint32_t)getv_max(c, UINT32_MAX);
    s->threads_per_game = (uint16_t)getv_max(c, UINT16_MAX);
    s->top = (uint16_t)getv_max(c, GL_MAX_TOP);
    s->temperature = (float)getv_max(c, 1000000000u) / 1000.f;
    s->temp_turns = (uint16_t)getv_max(c, UINT16_MAX);
    s->open_turns = (uint16_t)getv_max(c, UINT16_MAX);
    s->open_kind = (uint8_t)get8(c);
    s->resign_on = (uint8_t)get8(c);
    s->resign_value = (float)unzigzag(getv_max(c, 4000000000u)) / 1000.f;
    s->resign_share = (float)getv_max(c, 1000) / 1000.f;
    s->book_hash = getn(c, 8);
    if (s->open_kind > GL_OPEN_POLICY || s->resign_on > 1) c->bad = 1;
}

static int16_t value_q(float v) {
    if (!(v >= -1.f)) v = -1.f; /* NaN too */
    if (v > 1.f) v = 1.f;
    return (int16_t)lroundf(v * 32767.f);
}

static int code_action(gl_buf_t *b, const legal_t *L, gk_action_t a, int code) {
    if (code == GL_CODE_RAW) {
        put32(b, a);
        return legal_index(L, a) >= 0 ? 0 : -1;
    }
    int i = legal_index(L, a);
    if (i < 0) return -1;
    putv(b, (uint64_t)i);
    return 0;
}

static gk_action_t decode_action(cur_t *c, const legal_t *L, int code) {
    if (code == GL_CODE_RAW) {
        gk_action_t a = (gk_action_t)getn(c, 4);
        if (!c->bad && legal_index(L, a) < 0) c->bad = 1;
        return c->bad ? GK_NO_ACTION : a;
    }
    uint64_t i = getv(c);
    if (c->bad || i >= (uint64_t)L->n) {
        c->bad = 1;
        return GK_NO_ACTION;
    }
    return L->list[i];
}

int gl_encode_game(const gl_game_t *g, int code, bool stats, gl_buf_t *out, char *err,
                   size_t errcap) {
    if (code != GL_CODE_INDEX && code != GL_CODE_RAW)
        return gk_fail(err, errcap, GK_E_ARG, "unknown action coding %d", code);
    if (!rules_ok(&g->rules))
        return gk_fail(err, errcap, GK_E_ARG, "game %" PRIu64 ": bad rules", g->index);
    if (g->nactions > GL_MAX_GAME_ACTIONS)
        return gk_fail(err, errcap, GK_E_ARG, "game %" PRIu64 ": too many actions", g->index);
    stats = stats && g->has_stats;
    replay_t *r = malloc(sizeof *r);
    if (!r) return GK_E_NOMEM;
    gl_buf_t body = {0};
    /* Worst case per action: 5 (action) + 2 (kind, ntop) + 10 + 3 + GL_MAX_TOP * 10. */
    size_t need = 256 + GL_ENGINE_MAX + (size_t)g->nactions * 5 +
                  (stats ? (size_t)g->nactions * 20 + (size_t)g->nchild * 10 : 0);
    int rc = gl_buf_reserve(&body, need);
    if (rc) goto done;
    putv(&body, g->index);
    put64(&body, g->seed);
    put8(&body, g->rules.game);
    put8(&body, g->rules.variant);
    putv(&body, g->rules.turn_limit);
    put8(&body, (unsigned)code);
    put8(&body, g->flags);
    put8(&body, stats ? 1 : 0);
    size_t elen = strnlen(g->engine, GL_ENGINE_MAX - 1);
    put8(&body, (unsigned)elen);
    memcpy(body.p + body.n, g->engine, elen);
    body.n += elen;
    put64(&body, g->weights_hash);
    settings_put(&body, &g->set);
    put8(&body, g->result);
    put8(&body, g->reason);
    put8(&body, g->resign_side);
    putv(&body, g->resign_at);
    putv(&body, g->turns);
    putv(&body, g->time_ms);
    put64(&body, g->final_hash);
    putv(&body, g->nactions);

    /* Actions first, statistics after: each stream is more uniform, which zstd likes. */
    replay_start(r, &g->rules);
    gl_buf_t st = {0};
    if (stats && (rc = gl_buf_reserve(&st, (size_t)g->nactions * 20 + (size_t)g->nchild * 10)))
        goto done;
    for (uint32_t i = 0; i < g->nactions; i++) {
        if (gk_over(&r->pos)) {
            rc = gk_fail(err, errcap, GK_E_REPLAY,
                         "game %" PRIu64 ": action %u played after the end of the game", g->index,
                         i);
            goto done_st;
        }
        legal_fill(&r->legal, &r->pos);
        if (code_action(&body, &r->legal, g->action[i], code) < 0) {
            rc = gk_fail(err, errcap, GK_E_REPLAY, "game %" PRIu64 ": action %u (0x%x) is illegal",
                         g->index, i, (unsigned)g->action[i]);
            goto done_st;
        }
        if (stats) {
            const gl_action_stats_t *p = &g->stats[i];
            if (p->kind >= GL_NACTION_KINDS || p->ntop > GL_MAX_TOP ||
                (p->ntop && (uint64_t)p->first + p->ntop > g->nchild)) {
                rc = gk_fail(err, errcap, GK_E_ARG, "game %" PRIu64 ": bad statistics at action %u",
                             g->index, i);
                goto done_st;
            }
            put8(&st, p->kind);
            if (p->kind == GL_ACTION_SEARCH) {
                putv(&st, p->visits);
                putv(&st, zigzag(value_q(p->value)));
                put8(&st, p->ntop);
                uint32_t prev = 0;
                for (int k = 0; k < p->ntop; k++) {
                    const gl_child_t *ch = &g->child[p->first + (uint32_t)k];
                    if (code_action(&st, &r->legal, ch->action, code) < 0 ||
                        (k && ch->visits > prev)) {
                        rc = gk_fail(err, errcap, GK_E_ARG,
                                     "game %" PRIu64 ": bad child %d at action %u", g->index, k, i);
                        goto done_st;
                    }
                    /* visits are non-increasing: the first as is, then the drops */
                    putv(&st, k ? prev - ch->visits : ch->visits);
                    prev = ch->visits;
                }
            }
        }
        replay_play(r, g->action[i]);
    }
    if (r->pos.hash != g->final_hash || r->pos.turn != g->turns) {
        rc =
            gk_fail(err, errcap, GK_E_REPLAY,
                    "game %" PRIu64 ": the replay does not end on the recorded position", g->index);
        goto done_st;
    }
    if ((rc = gl_buf_reserve(&body, st.n))) goto done_st;
    if (st.n) memcpy(body.p + body.n, st.p, st.n);
    body.n += st.n;
    if ((rc = gl_buf_reserve(out, body.n + 10))) goto done_st;
    putv(out, body.n);
    memcpy(out->p + out->n, body.p, body.n);
    out->n += body.n;
done_st:
    gl_buf_free(&st);
done:
    gl_buf_free(&body);
    free(r);
    if (rc == GK_E_NOMEM) gk_fail(err, errcap, rc, "out of memory");
    return rc;
}

int gl_decode_game(const uint8_t *data, size_t n, int version, gl_game_t *g, size_t *used,
                   char *err, size_t errcap) {
    if (version < 1 || version > GL_VERSION)
        return gk_fail(err, errcap, GK_E_VERSION, "record version %d is not readable (1..%d)",
                       version, GL_VERSION);
    cur_t c0 = {data, data + n, 0};
    uint64_t len = getv(&c0);
    if (c0.bad || len > (uint64_t)(c0.end - c0.p))
        return gk_fail(err, errcap, GK_E_FORMAT, "record length runs past the frame");
    *used = (size_t)(c0.p - data) + (size_t)len;
    cur_t c = {c0.p, c0.p + len, 0};
    gl_game_clear(g);
    g->index = getv(&c);
    g->seed = getn(&c, 8);
    g->rules.game = (uint8_t)get8(&c);
    g->rules.variant = (uint8_t)get8(&c);
    g->rules.turn_limit = (uint16_t)getv_max(&c, UINT16_MAX);
    int code = (int)get8(&c);
    g->flags = (uint8_t)get8(&c);
    unsigned has_stats = get8(&c);
    unsigned elen = get8(&c);
    if (c.bad || elen >= GL_ENGINE_MAX || (size_t)(c.end - c.p) < elen)
        return gk_fail(err, errcap, GK_E_FORMAT, "truncated record header");
    memcpy(g->engine, c.p, elen);
    g->engine[elen] = 0;
    c.p += elen;
    g->weights_hash = getn(&c, 8);
    settings_get(&c, &g->set);
    g->result = (uint8_t)get8(&c);
    g->reason = (uint8_t)get8(&c);
    g->resign_side = (uint8_t)get8(&c);
    g->resign_at = (uint32_t)getv_max(&c, GL_MAX_GAME_ACTIONS);
    g->turns = (uint32_t)getv_max(&c, UINT16_MAX);
    g->time_ms = (uint32_t)getv_max(&c, UINT32_MAX);
    g->final_hash = getn(&c, 8);
    uint64_t nact = getv_max(&c, GL_MAX_GAME_ACTIONS);
    if (c.bad) return gk_fail(err, errcap, GK_E_FORMAT, "truncated or malformed record header");
    if (!rules_ok(&g->rules))
        return gk_fail(err, errcap, GK_E_FORMAT, "game %" PRIu64 ": unknown game or variant",
                       g->index);
    if ((code != GL_CODE_INDEX && code != GL_CODE_RAW) || has_stats > 1 || g->result > GK_DRAW ||
        g->result == GK_ONGOING || g->reason >= GK_NREASONS || g->resign_side > 1 ||
        g->resign_at > nact + 1)
        return gk_fail(err, errcap, GK_E_FORMAT, "game %" PRIu64 ": bad header field", g->index);
    /* Every action takes at least one byte: bounds the allocation by the input. */
    if (nact > (uint64_t)(c.end - c.p))
        return gk_fail(err, errcap, GK_E_FORMAT, "game %" PRIu64 ": truncated actions", g->index);
    int rc = game_grow(g, (uint32_t)nact, 0);
    if (rc) return gk_fail(err, errcap, rc, "out of memory");
    replay_t *r = malloc(sizeof *r);
    if (!r) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    replay_start(r, &g->rules);
    /* The statistics follow all actions; decode actions first, remembering each
     * position's legal count, then walk the statistics with a second replay. */
    for (uint64_t i = 0; i < nact; i++) {
        if (gk_over(&r->pos)) {
            rc = gk_fail(err, errcap, GK_E_REPLAY, "game %" PRIu64 ": actions after the end",
                         g->index);
            goto out;
        }
        legal_fill(&r->legal, &r->pos);
        gk_action_t a = decode_action(&c, &r->legal, code);
        if (c.bad) {
            rc = gk_fail(err, errcap, GK_E_REPLAY,
                         "game %" PRIu64 ": action %" PRIu64 " is missing or illegal", g->index, i);
            goto out;
        }
        g->action[i] = a;
        memset(&g->stats[i], 0, sizeof g->stats[i]);
        g->stats[i].kind = GL_ACTION_FORCED;
        g->stats[i].nlegal = (uint16_t)r->legal.n;
        g->nactions = (uint32_t)i + 1;
        replay_play(r, a);
    }
    /* The end of the game as the rules see it, then what the record says. */
    gk_pos_t end = r->pos;
    if (!gk_over(&end)) {
        gk_action_t tmp[GK_MAX_ACTIONS];
        if (gk_gen(&end, tmp) == 0) gk_apply_no_move(&end);
    }
    /* Ended off the board: the record's result stands where the rules have not ended it. */
    bool resigned =
        (g->reason == GK_REASON_RESIGN || g->reason == GK_REASON_ADJUDICATED) && !gk_over(&end);
    if (end.hash != g->final_hash || end.turn != g->turns ||
        (!resigned && (end.result != g->result || end.reason != g->reason))) {
        rc = gk_fail(err, errcap, GK_E_REPLAY,
                     "game %" PRIu64 ": the replay does not end as recorded (%s %s)", g->index,
                     gk_result_text(g->result), gk_reason_text(g->reason));
        goto out;
    }
    if (has_stats) {
        replay_start(r, &g->rules);
        for (uint32_t i = 0; i < g->nactions; i++) {
            gl_action_stats_t *p = &g->stats[i];
            p->kind = (uint8_t)get8(&c);
            if (c.bad || p->kind >= GL_NACTION_KINDS) {
                rc = gk_fail(err, errcap, GK_E_FORMAT, "game %" PRIu64 ": bad statistics at %u",
                             g->index, i);
                goto out;
            }
            p->first = g->nchild;
            if (p->kind == GL_ACTION_SEARCH) {
                p->visits = (uint32_t)getv_max(&c, UINT32_MAX);
                int64_t q = unzigzag(getv_max(&c, 65535));
                p->value = (float)q / 32767.f;
                unsigned ntop = get8(&c);
                if (c.bad || q < -32767 || q > 32767 || ntop > GL_MAX_TOP ||
                    ntop > (unsigned)p->nlegal) {
                    rc = gk_fail(err, errcap, GK_E_FORMAT,
                                 "game %" PRIu64 ": bad statistics at action %u", g->index, i);
                    goto out;
                }
                p->ntop = (uint8_t)ntop;
                if (ntop) {
                    legal_fill(&r->legal, &r->pos);
                    if ((rc = game_grow(g, g->nactions, g->nchild + ntop))) {
                        gk_fail(err, errcap, rc, "out of memory");
                        goto out;
                    }
                }
                uint32_t prev = 0;
                for (unsigned k = 0; k < ntop; k++) {
                    gl_child_t *ch = &g->child[g->nchild];
                    ch->action = decode_action(&c, &r->legal, code);
                    uint64_t v = getv_max(&c, UINT32_MAX);
                    if (k && v > prev) c.bad = 1;
                    if (c.bad) {
                        rc = gk_fail(err, errcap, GK_E_FORMAT,
                                     "game %" PRIu64 ": bad child %u at action %u", g->index, k, i);
                        goto out;
                    }
                    ch->visits = k ? prev - (uint32_t)v : (uint32_t)v;
                    prev = ch->visits;
                    g->nchild++;
                }
            }
            replay_play(r, g->action[i]);
        }
        g->has_stats = true;
    }
    /* Later format versions may append fields: c.p < c.end is allowed. */
    rc = GK_OK;
out:
    free(r);
    return rc;
}

/* ------------------------------------------------------------------ frames */

int gl_frame_build(const gl_buf_t *payload, const uint64_t *idx, uint32_t ngames, int level,
                   gl_buf_t *out, char *err, size_t errcap) {
    if (ngames == 0 || ngames > GL_MAX_FRAME_GAMES || payload->n > GL_MAX_FRAME_BYTES)
        return gk_fail(err, errcap, GK_E_ARG, "frame of %u games / %zu bytes is out of bounds",
                       ngames, payload->n);
    size_t bound = ZSTD_compressBound(payload->n);
    uint32_t user = HDR_FIXED + 8u * ngames + 8u;
    out->n = 0;
    if (gl_buf_reserve(out, 8 + user + bound))
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (!cc) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory (zstd context)");
    size_t z = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level ? level : 9);
    if (!ZSTD_isError(z)) z = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(z)) z = ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(z))
        z = ZSTD_compress2(cc, out->p + 8 + user, bound, payload->p ? payload->p : (void *)"",
                           payload->n);
    ZSTD_freeCCtx(cc);
    if (ZSTD_isError(z)) return gk_fail(err, errcap, GK_E_ZSTD, "zstd: %s", ZSTD_getErrorName(z));
    uint64_t sum = gk_xxh64(out->p + 8 + user, z, 0);
    put32(out, SKIP_MAGIC);
    put32(out, user);
    size_t h0 = out->n;
    put32(out, FRAME_MAGIC);
    put16(out, GL_VERSION);
    put16(out, 0);
    put32(out, ngames);
    put32(out, (uint32_t)z);
    put32(out, (uint32_t)payload->n);
    put64(out, sum);
    for (uint32_t i = 0; i < ngames; i++) put64(out, idx[i]);
    put64(out, gk_xxh64(out->p + h0, out->n - h0, 0));
    out->n += z;
    return GK_OK;
}

static int src_read(const gl_src_t *s, uint64_t off, void *buf, size_t n) {
    if (off > s->size || n > s->size - off) return -1;
    if (s->fd < 0) {
        memcpy(buf, s->mem + off, n);
        return 0;
    }
    uint8_t *p = buf;
    while (n) {
        ssize_t r = pread(s->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        off += (uint64_t)r;
        n -= (size_t)r;
    }
    return 0;
}

/* Bytes [off, off+n) of src: a pointer into memory, or into *tmp after a read. */
static const uint8_t *src_view(const gl_src_t *s, uint64_t off, size_t n, gl_buf_t *tmp) {
    if (off > s->size || n > s->size - off) return NULL;
    if (s->fd < 0) return s->mem + off;
    tmp->n = 0;
    if (gl_buf_reserve(tmp, n ? n : 1)) return NULL;
    if (src_read(s, off, tmp->p, n)) return NULL;
    return tmp->p;
}

void gl_shard_init(gl_shard_t *s) {
    memset(s, 0, sizeof *s);
}

void gl_shard_free(gl_shard_t *s) {
    free(s->frame);
    free(s->index);
    gl_shard_init(s);
}

static int all_zero(const gl_src_t *src, uint64_t off, char *err, size_t errcap, int *zero) {
    uint8_t buf[4096];
    *zero = 1;
    while (off < src->size) {
        size_t n = src->size - off < sizeof buf ? (size_t)(src->size - off) : sizeof buf;
        if (src_read(src, off, buf, n)) return gk_fail(err, errcap, GK_E_IO, "read error");
        for (size_t i = 0; i < n; i++)
            if (buf[i]) {
                *zero = 0;
                return GK_OK;
            }
        off += n;
    }
    return GK_OK;
}

static void shard_bad(gl_shard_t *s, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void shard_bad(gl_shard_t *s, int status, const char *fmt, ...) {
    va_list ap;
    s->status = status;
    va_start(ap, fmt);
    vsnprintf(s->problem, sizeof s->problem, fmt, ap);
    va_end(ap);
}

int gl_shard_scan(const gl_src_t *src, gl_shard_t *s, bool verify, char *err, size_t errcap) {
    gl_shard_free(s);
    s->size = src->size;
    uint64_t off = 0;
    gl_buf_t tmp = {0};
    int rc = GK_OK;
    while (off < src->size) {
        uint64_t left = src->size - off;
        uint8_t h8[8];
        if (left < 8) {
            shard_bad(s, GL_SHARD_TORN, "frame header cut short at byte %" PRIu64, off);
            break;
        }
        if (src_read(src, off, h8, 8)) {
            rc = gk_fail(err, errcap, GK_E_IO, "read error at byte %" PRIu64, off);
            break;
        }
        uint32_t user = rd32(h8 + 4);
        if (rd32(h8) != SKIP_MAGIC || user < HDR_MIN ||
            user > HDR_FIXED + 8u * GL_MAX_FRAME_GAMES + 8u || (user - HDR_FIXED - 8u) % 8) {
            int zero;
            if ((rc = all_zero(src, off, err, errcap, &zero))) break;
            if (zero)
                shard_bad(s, GL_SHARD_TORN, "zero bytes from byte %" PRIu64 " on", off);
            else
                shard_bad(s, GL_SHARD_CORRUPT, "no frame header at byte %" PRIu64, off);
            break;
        }
        if (user > left - 8) {
            shard_bad(s, GL_SHARD_TORN, "frame header cut short at byte %" PRIu64, off);
            break;
        }
        const uint8_t *h = src_view(src, off + 8, user, &tmp);
        if (!h) {
            rc = gk_fail(err, errcap, GK_E_IO, "read error at byte %" PRIu64, off);
            break;
        }
        uint32_t ngames = (user - HDR_FIXED - 8u) / 8u;
        if (rd32(h) != FRAME_MAGIC || gk_xxh64(h, user - 8u, 0) != rd64(h + user - 8u)) {
            shard_bad(s, left == 8u + user ? GL_SHARD_TORN : GL_SHARD_CORRUPT,
                      "frame header checksum mismatch at byte %" PRIu64, off);
            break;
        }
        gl_frame_t f = {.offset = off, .zoffset = off + 8 + user};
        f.version = (uint16_t)(h[4] | h[5] << 8);
        f.ngames = rd32(h + 8);
        f.clen = rd32(h + 12);
        f.ulen = rd32(h + 16);
        f.checksum = rd64(h + 20);
        if (f.version < 1 || f.version > GL_VERSION) {
            shard_bad(s, GL_SHARD_CORRUPT,
                      "frame at byte %" PRIu64 " has format version %u; this reader reads 1..%d",
                      off, f.version, GL_VERSION);
            break;
        }
        if (f.ngames != ngames || ngames == 0 || f.ulen > GL_MAX_FRAME_BYTES || f.clen < 9 ||
            f.clen > ZSTD_compressBound(f.ulen)) {
            shard_bad(s, GL_SHARD_CORRUPT, "inconsistent frame header at byte %" PRIu64, off);
            break;
        }
        if (f.clen > src->size - f.zoffset) {
            shard_bad(s, GL_SHARD_TORN,
                      "frame at byte %" PRIu64 " cut short (%" PRIu64 " of %u bytes)", off,
                      src->size - f.zoffset, f.clen);
            break;
        }
        /* Keep the indices before `tmp` is reused by the payload read. */
        if (s->nframes == s->frame_cap) {
            uint32_t cap = s->frame_cap ? 2 * s->frame_cap : 64;
            gl_frame_t *fr = realloc(s->frame, cap * sizeof *fr);
            if (!fr) {
                rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
                break;
            }
            s->frame = fr;
            s->frame_cap = cap;
        }
        if (s->nindex + ngames > s->index_cap) {
            uint64_t cap = s->index_cap ? s->index_cap : 1024;
            while (cap < s->nindex + ngames) cap *= 2;
            uint64_t *ix = realloc(s->index, cap * sizeof *ix);
            if (!ix) {
                rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
                break;
            }
            s->index = ix;
            s->index_cap = cap;
        }
        for (uint32_t i = 0; i < ngames; i++) s->index[s->nindex + i] = rd64(h + HDR_FIXED + 8 * i);
        if (verify) {
            const uint8_t *z = src_view(src, f.zoffset, f.clen, &tmp);
            if (!z) {
                rc = gk_fail(err, errcap, GK_E_IO, "read error at byte %" PRIu64, f.zoffset);
                break;
            }
            if (gk_xxh64(z, f.clen, 0) != f.checksum) {
                shard_bad(s, f.zoffset + f.clen == src->size ? GL_SHARD_TORN : GL_SHARD_CORRUPT,
                          "payload checksum mismatch in the frame at byte %" PRIu64, off);
                break;
            }
        }
        f.first = s->nindex;
        s->nindex += ngames;
        s->frame[s->nframes++] = f;
        off = f.zoffset + f.clen;
        s->valid_end = off;
    }
    gl_buf_free(&tmp);
    return rc;
}

int gl_frame_load(const gl_src_t *src, const gl_frame_t *f, gl_buf_t *payload, char *err,
                  size_t errcap) {
    gl_buf_t tmp = {0};
    const uint8_t *z = src_view(src, f->zoffset, f->clen, &tmp);
    int rc = GK_OK;
    if (!z) {
        rc = gk_fail(err, errcap, GK_E_IO, "cannot read the frame at byte %" PRIu64, f->offset);
        goto out;
    }
    if (gk_xxh64(z, f->clen, 0) != f->checksum) {
        rc = gk_fail(err, errcap, GK_E_CHECKSUM,
                     "payload checksum mismatch in the frame at byte %" PRIu64, f->offset);
        goto out;
    }
    unsigned long long csize = ZSTD_getFrameContentSize(z, f->clen);
    size_t fsize = ZSTD_findFrameCompressedSize(z, f->clen);
    if (csize != f->ulen || ZSTD_isError(fsize) || fsize != f->clen) {
        rc = gk_fail(err, errcap, GK_E_FORMAT,
                     "the zstd frame at byte %" PRIu64 " does not match its header", f->zoffset);
        goto out;
    }
    payload->n = 0;
    if (gl_buf_reserve(payload, f->ulen ? f->ulen : 1)) {
        rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        goto out;
    }
    size_t d = ZSTD_decompress(payload->p, f->ulen, z, f->clen);
    if (ZSTD_isError(d) || d != f->ulen) {
        rc = gk_fail(err, errcap, GK_E_ZSTD, "zstd: %s in the frame at byte %" PRIu64,
                     ZSTD_isError(d) ? ZSTD_getErrorName(d) : "short content", f->offset);
        goto out;
    }
    payload->n = d;
out:
    gl_buf_free(&tmp);
    return rc;
}

int gl_frame_next_game(const gl_frame_t *f, const gl_buf_t *payload, size_t *pos, gl_game_t *g,
                       char *err, size_t errcap) {
    if (*pos >= payload->n)
        return gk_fail(err, errcap, GK_E_FORMAT,
                       "frame at byte %" PRIu64 " holds fewer games"
                       " than its header says",
                       f->offset);
    size_t used;
    int rc =
        gl_decode_game(payload->p + *pos, payload->n - *pos, f->version, g, &used, err, errcap);
    if (rc) return rc;
    *pos += used;
    return GK_OK;
}

/* ------------------------------------------------------------------ writer */

struct gl_writer {
    int fd;
    char path[4096];
    gl_writer_opts_t o;
    uint64_t off;
    gl_buf_t payload, frame;
    uint64_t *idx;
    uint32_t nidx, idx_cap;
};

/* A file system without record locks (Lustre mounted without -o flock, some FUSE file
 * systems) must not stop a run: the lock only guards against a second job on the DIR. */
static int lock_unsupported(int e) {
    return e == ENOSYS || e == ENOLCK || e == EOPNOTSUPP;
}

static int lock_fd(int fd) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
#ifdef F_OFD_SETLK
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0) return 0;
    if (lock_unsupported(errno)) return 0;
    if (errno != EINVAL) return -1;
#endif
    if (fcntl(fd, F_SETLK, &fl) == 0 || lock_unsupported(errno)) return 0;
    return -1;
}

int gl_writer_open(gl_writer_t **wp, const char *path, const gl_writer_opts_t *o, bool repair,
                   uint64_t *dropped, char *err, size_t errcap) {
    *wp = NULL;
    if (dropped) *dropped = 0;
    gl_writer_t *w = calloc(1, sizeof *w);
    if (!w) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    snprintf(w->path, sizeof w->path, "%s", path);
    w->o = *o;
    if (!w->o.level) w->o.level = 9;
    int rc = GK_OK;
    bool created = access(path, F_OK) != 0;
    w->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        rc = gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
        goto bad;
    }
    if (lock_fd(w->fd)) {
        rc = (errno == EACCES || errno == EAGAIN)
                 ? gk_fail(err, errcap, GK_E_LOCKED, "%s is being written by another process", path)
                 : gk_fail(err, errcap, GK_E_IO, "%s: lock: %s", path, strerror(errno));
        goto bad;
    }
    struct stat st;
    if (fstat(w->fd, &st)) {
        rc = gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
        goto bad;
    }
    gl_src_t src = {.fd = w->fd, .size = (uint64_t)st.st_size};
    gl_shard_t sh;
    gl_shard_init(&sh);
    rc = gl_shard_scan(&src, &sh, true, err, errcap);
    if (rc) {
        gl_shard_free(&sh);
        goto bad;
    }
    if (sh.status == GL_SHARD_CORRUPT && !repair) {
        rc = gk_fail(err, errcap, GK_E_FORMAT, "%s: %s (not a torn write; see 'gounki log verify')",
                     path, sh.problem);
        gl_shard_free(&sh);
        goto bad;
    }
    if (sh.status != GL_SHARD_OK) {
        if (ftruncate(w->fd, (off_t)sh.valid_end) || fsync(w->fd)) {
            rc = gk_fail(err, errcap, GK_E_IO, "%s: truncate: %s", path, strerror(errno));
            gl_shard_free(&sh);
            goto bad;
        }
        if (dropped) *dropped = sh.size - sh.valid_end;
    }
    w->off = sh.valid_end;
    gl_shard_free(&sh);
    if (created && gk_fsync_dir_of(path)) {
        rc = gk_fail(err, errcap, GK_E_IO, "%s: fsync of its directory: %s", path, strerror(errno));
        goto bad;
    }
    *wp = w;
    return GK_OK;
bad:
    if (w->fd >= 0) close(w->fd);
    free(w);
    return rc;
}

/* Room for one more pending game index in the writer's frame. */
static int writer_room(gl_writer_t *w, char *err, size_t errcap) {
    if (w->nidx >= GL_MAX_FRAME_GAMES)
        return gk_fail(err, errcap, GK_E_ARG, "too many games pending; flush first");
    if (w->nidx == w->idx_cap) {
        uint32_t cap = w->idx_cap ? 2 * w->idx_cap : 64;
        uint64_t *ix = realloc(w->idx, cap * sizeof *ix);
        if (!ix) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        w->idx = ix;
        w->idx_cap = cap;
    }
    return GK_OK;
}

int gl_writer_add(gl_writer_t *w, const gl_game_t *g, char *err, size_t errcap) {
    int room = writer_room(w, err, errcap);
    if (room) return room;
    size_t before = w->payload.n;
    int rc = gl_encode_game(g, w->o.code, w->o.stats, &w->payload, err, errcap);
    if (rc) {
        w->payload.n = before;
        return rc;
    }
    w->idx[w->nidx++] = g->index;
    return GK_OK;
}

int gl_writer_add_encoded(gl_writer_t *w, uint64_t index, const uint8_t *rec, size_t n, char *err,
                          size_t errcap) {
    cur_t c = {rec, rec + n, 0};
    uint64_t len = getv(&c);
    cur_t body = {c.p, c.end, 0};
    if (c.bad || len != (uint64_t)(c.end - c.p) || getv(&body) != index || body.bad)
        return gk_fail(err, errcap, GK_E_ARG, "not the record of game %" PRIu64, index);
    int room = writer_room(w, err, errcap);
    if (room) return room;
    if (gl_buf_reserve(&w->payload, n)) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memcpy(w->payload.p + w->payload.n, rec, n);
    w->payload.n += n;
    w->idx[w->nidx++] = index;
    return GK_OK;
}

uint32_t gl_writer_pending(const gl_writer_t *w) {
    return w->nidx;
}
size_t gl_writer_pending_bytes(const gl_writer_t *w) {
    return w->payload.n;
}

int gl_writer_flush(gl_writer_t *w, char *err, size_t errcap) {
    if (!w->nidx) return GK_OK;
    int rc = gl_frame_build(&w->payload, w->idx, w->nidx, w->o.level, &w->frame, err, errcap);
    if (rc) return rc;
    const uint8_t *p = w->frame.p;
    size_t left = w->frame.n;
    uint64_t off = w->off;
    while (left) {
        ssize_t r = pwrite(w->fd, p, left, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            /* Leave no half frame behind: the next scan would call it torn anyway. */
            if (ftruncate(w->fd, (off_t)w->off)) { /* the scan will handle it */
            }
            return gk_fail(err, errcap, GK_E_IO, "%s: write: %s", w->path, strerror(e));
        }
        p += r;
        left -= (size_t)r;
        off += (uint64_t)r;
    }
    if (fsync(w->fd))
        return gk_fail(err, errcap, GK_E_IO, "%s: fsync: %s", w->path, strerror(errno));
    w->off = off;
    w->payload.n = 0;
    w->nidx = 0;
    return GK_OK;
}

int gl_writer_close(gl_writer_t *w, char *err, size_t errcap) {
    if (!w) return GK_OK;
    int rc = gl_writer_flush(w, err, errcap);
    if (close(w->fd) && !rc)
        rc = gk_fail(err, errcap, GK_E_IO, "%s: close: %s", w->path, strerror(errno));
    gl_buf_free(&w->payload);
    gl_buf_free(&w->frame);
    free(w->idx);
    free(w);
    return rc;
}

/* ------------------------------------------------------------------ manifest */

int gl_manifest_format(const gl_manifest_t *m, char *buf, size_t cap) {
    int n = snprintf(buf, cap,
                     MANIFEST_HEAD " %d\n"
                                   "games %" PRIu64 "\n"
                                   "fingerprint %016" PRIx64 "\n"
                                   "engine %s\n"
                                   "settings %s\n",
                     GL_VERSION, m->games, m->fingerprint, m->engine, m->settings);
    if (n < 0 || (size_t)n >= cap) return -1;
    int k = snprintf(buf + n, cap - (size_t)n, "checksum %016" PRIx64 "\n",
                     gk_xxh64(buf, (size_t)n, 0));
    if (k < 0 || (size_t)k >= cap - (size_t)n) return -1;
    return n + k;
}

/* The next line of text[*pos..len) without its '\n'; -1 at the end or on a NUL. */
static int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n) {
    if (*pos >= len) return -1;
    const char *s = text + *pos;
    const char *e = memchr(s, '\n', len - *pos);
    if (!e) return -1; /* every line ends in '\n' */
    if (memchr(s, 0, (size_t)(e - s))) return -1;
    *line = s;
    *n = (size_t)(e - s);
    *pos = (size_t)(e - text) + 1;
    return 0;
}

/* "KEY VALUE": copies VALUE into val (NUL-terminated) when the key matches. */
static int keyed(const char *line, size_t n, const char *key, char *val, size_t cap) {
    size_t k = strlen(key);
    if (n <= k || memcmp(line, key, k) || line[k] != ' ' || n - k - 1 >= cap) return -1;
    memcpy(val, line + k + 1, n - k - 1);
    val[n - k - 1] = 0;
    return 0;
}

static int parse_u64(const char *s, int base, uint64_t *v) {
    if (!*s || *s == '-' || *s == '+' || *s == ' ') return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, base);
    if (*end || errno) return -1;
    *v = x;
    return 0;
}

int gl_manifest_parse(const char *text, size_t len, gl_manifest_t *m, char *err, size_t errcap) {
    memset(m, 0, sizeof *m);
    size_t pos = 0, n;
    const char *line;
    char val[1100];
    const char *what = "first";
    uint64_t v, version;
    if (next_line(text, len, &pos, &line, &n) || keyed(line, n, MANIFEST_HEAD, val, sizeof val) ||
        parse_u64(val, 10, &version))
        goto bad;
    if (version < 1 || version > GL_VERSION)
        return gk_fail(err, errcap, GK_E_VERSION,
                       "manifest version %" PRIu64 " is not readable (1..%d)", version, GL_VERSION);
    what = "games";
    if (next_line(text, len, &pos, &line, &n) || keyed(line, n, "games", val, sizeof val) ||
        parse_u64(val, 10, &m->games))
        goto bad;
    what = "fingerprint";
    if (next_line(text, len, &pos, &line, &n) || keyed(line, n, "fingerprint", val, sizeof val) ||
        strlen(val) != 16 || parse_u64(val, 16, &m->fingerprint))
        goto bad;
    what = "engine";
    if (next_line(text, len, &pos, &line, &n) ||
        keyed(line, n, "engine", m->engine, sizeof m->engine))
        goto bad;
    what = "settings";
    if (next_line(text, len, &pos, &line, &n) ||
        keyed(line, n, "settings", m->settings, sizeof m->settings))
        goto bad;
    size_t body = pos;
    what = "checksum";
    if (next_line(text, len, &pos, &line, &n) || keyed(line, n, "checksum", val, sizeof val) ||
        strlen(val) != 16 || parse_u64(val, 16, &v))
        goto bad;
    if (pos != len) {
        what = "end (trailing bytes)";
        goto bad;
    }
    if (v != gk_xxh64(text, body, 0))
        return gk_fail(err, errcap, GK_E_CHECKSUM, "manifest checksum mismatch");
    if (gk_xxh64(m->settings, strlen(m->settings), 0) != m->fingerprint)
        return gk_fail(err, errcap, GK_E_CHECKSUM,
                       "manifest fingerprint does not match its settings");
    return GK_OK;
bad:
    return gk_fail(err, errcap, GK_E_FORMAT, "manifest: bad or missing %s line", what);
}

int gl_manifest_read(const char *dir, gl_manifest_t *m, char *err, size_t errcap) {
    char path[4096], *text;
    size_t n;
    GK_RETURN_IF(gk_path_join(path, sizeof path, dir, GL_MANIFEST_NAME), err, errcap, GK_E_INVALID,
                 "%s: path too long", dir);
    /* gk_read_file keeps the errno of a failed open: ENOENT tells a new run. */
    int rc = gk_read_file(path, 4095, &text, &n, err, errcap);
    if (rc) return rc;
    rc = gl_manifest_parse(text, n, m, err, errcap);
    free(text);
    if (rc) {
        gk_err_wrap(err, errcap, rc, "%s: ", path);
        errno = 0;
    }
    return rc;
}

int gl_manifest_write(const char *dir, const gl_manifest_t *m, char *err, size_t errcap) {
    char path[4096], buf[4096];
    int n = gl_manifest_format(m, buf, sizeof buf);
    GK_RETURN_IF(n < 0, err, errcap, GK_E_ARG, "manifest too long");
    GK_RETURN_IF(gk_path_join(path, sizeof path, dir, GL_MANIFEST_NAME), err, errcap, GK_E_INVALID,
                 "%s: path too long", dir);
    return gk_write_atomic(path, buf, (size_t)n, err, errcap);
}

int gl_shard_path(const char *dir, int rank, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "%s/shard-%05d.gkz", dir, rank);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* ------------------------------------------------------------------ log sets */

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_shard_name(const char *s) {
    size_t n = strlen(s);
    return n > 10 && !strncmp(s, "shard-", 6) && !strcmp(s + n - 4, ".gkz");
}

void gl_logset_free(gl_logset_t *ls) {
    for (int i = 0; i < ls->nshards; i++) {
        free(ls->path[i]);
        if (ls->shard) gl_shard_free(&ls->shard[i]);
    }
    free(ls->path);
    free(ls->shard);
    memset(ls, 0, sizeof *ls);
}

static int scan_file(const char *path, gl_shard_t *s, bool verify, char *err, size_t errcap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc;
    if (fstat(fd, &st))
        rc = gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = gk_fail(err, errcap, GK_E_IO, "%s: not a regular file", path);
    else {
        gl_src_t src = {.fd = fd, .size = (uint64_t)st.st_size};
        rc = gl_shard_scan(&src, s, verify, err, errcap);
        if (rc) {
            gk_err_wrap(err, errcap, rc, "%s: ", path);
        }
    }
    close(fd);
    return rc;
}

int gl_logset_open(gl_logset_t *ls, const char *path, bool verify, char *err, size_t errcap) {
    memset(ls, 0, sizeof *ls);
    GK_RETURN_IF(!path || !*path, err, errcap, GK_E_INVALID, "empty directory name ''");
    struct stat st;
    if (stat(path, &st)) return gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
    int cap = 0, rc = GK_OK;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) return gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!is_shard_name(e->d_name)) continue;
            if (ls->nshards == cap) {
                cap = cap ? 2 * cap : 16;
                char **p = realloc(ls->path, (size_t)cap * sizeof *p);
                if (!p) {
                    rc = GK_E_NOMEM;
                    break;
                }
                ls->path = p;
            }
            size_t n = strlen(path) + strlen(e->d_name) + 2;
            char *full = malloc(n);
            if (!full) {
                rc = GK_E_NOMEM;
                break;
            }
            snprintf(full, n, "%s/%s", path, e->d_name);
            ls->path[ls->nshards++] = full;
        }
        closedir(d);
        if (rc) {
            gl_logset_free(ls);
            return gk_fail(err, errcap, rc, "out of memory");
        }
        if (ls->nshards) qsort(ls->path, (size_t)ls->nshards, sizeof *ls->path, name_cmp);
        rc = gl_manifest_read(path, &ls->manifest, err, errcap);
        if (rc == GK_OK)
            ls->has_manifest = true;
        else if (rc == GK_E_IO && errno == ENOENT)
            rc = GK_OK;
        if (rc) {
            gl_logset_free(ls);
            return rc;
        }
    } else {
        ls->path = malloc(sizeof *ls->path);
        if (!ls->path || !(ls->path[0] = strdup(path))) {
            gl_logset_free(ls);
            return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        }
        ls->nshards = 1;
    }
    ls->shard = calloc((size_t)(ls->nshards ? ls->nshards : 1), sizeof *ls->shard);
    if (!ls->shard) {
        gl_logset_free(ls);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < ls->nshards; i++)
        if ((rc = scan_file(ls->path[i], &ls->shard[i], verify, err, errcap))) {
            gl_logset_free(ls);
            return rc;
        }
    return GK_OK;
}

static int loc_cmp(const void *a, const void *b) {
    const gl_loc_t *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

int gl_logset_locate(const gl_logset_t *ls, gl_loc_t **out, uint64_t *n, char *err, size_t errcap) {
    uint64_t total = 0;
    for (int i = 0; i < ls->nshards; i++) total += ls->shard[i].nindex;
    gl_loc_t *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    if (!v) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    uint64_t k = 0;
    for (int i = 0; i < ls->nshards; i++) {
        const gl_shard_t *s = &ls->shard[i];
        for (uint32_t f = 0; f < s->nframes; f++)
            for (uint32_t j = 0; j < s->frame[f].ngames; j++)
                v[k++] = (gl_loc_t){s->index[s->frame[f].first + j], i, f, j};
    }
    qsort(v, (size_t)total, sizeof *v, loc_cmp);
    *out = v;
    *n = total;
    return GK_OK;
}

/* ------------------------------------------------------------------ reader */

#define READER_CACHE 16

typedef struct {
    int shard; /* -1: empty */
    uint32_t frame;
    uint64_t used; /* LRU clock */
    gl_buf_t payload;
    size_t *start; /* record offsets */
    uint32_t nstart;
} cache_t;

struct gl_reader {
    const gl_logset_t *ls;
    int *fd;
    uint64_t clock;
    cache_t c[READER_CACHE];
};

int gl_reader_new(gl_reader_t **rp, const gl_logset_t *ls, char *err, size_t errcap) {
    gl_reader_t *r = calloc(1, sizeof *r);
    if (!r) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    r->ls = ls;
    r->fd = malloc((size_t)(ls->nshards ? ls->nshards : 1) * sizeof *r->fd);
    if (!r->fd) {
        free(r);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < ls->nshards; i++) r->fd[i] = -1;
    for (int i = 0; i < READER_CACHE; i++) r->c[i].shard = -1;
    *rp = r;
    return GK_OK;
}

void gl_reader_free(gl_reader_t *r) {
    if (!r) return;
    for (int i = 0; i < r->ls->nshards; i++)
        if (r->fd[i] >= 0) close(r->fd[i]);
    for (int i = 0; i < READER_CACHE; i++) {
        gl_buf_free(&r->c[i].payload);
        free(r->c[i].start);
    }
    free(r->fd);
    free(r);
}

/* Offsets of the records of a loaded payload, checked against the header's count. */
static int record_starts(cache_t *c, const gl_frame_t *f, char *err, size_t errcap) {
    size_t *s = realloc(c->start, (size_t)f->ngames * sizeof *s);
    if (!s) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    c->start = s;
    size_t pos = 0;
    for (uint32_t k = 0; k < f->ngames; k++) {
        cur_t cu = {c->payload.p + pos, c->payload.p + c->payload.n, 0};
        uint64_t len = getv(&cu);
        if (cu.bad || len > (uint64_t)(cu.end - cu.p))
            return gk_fail(err, errcap, GK_E_FORMAT,
                           "frame at byte %" PRIu64 " holds fewer games than its header says",
                           f->offset);
        s[k] = pos;
        pos = (size_t)(cu.p - c->payload.p) + (size_t)len;
    }
    c->nstart = f->ngames;
    return GK_OK;
}

static int reader_get(gl_reader_t *r, const gl_loc_t *loc, gl_game_t *g, char *err, size_t errcap) {
    const gl_logset_t *ls = r->ls;
    const gl_frame_t *f = &ls->shard[loc->shard].frame[loc->frame];
    cache_t *c = NULL, *lru = &r->c[0];
    for (int i = 0; i < READER_CACHE; i++) {
        if (r->c[i].shard == loc->shard && r->c[i].frame == loc->frame) c = &r->c[i];
        if (r->c[i].used < lru->used) lru = &r->c[i];
    }
    if (!c) {
        c = lru;
        c->shard = -1;
        if (r->fd[loc->shard] < 0) {
            r->fd[loc->shard] = open(ls->path[loc->shard], O_RDONLY | O_CLOEXEC);
            if (r->fd[loc->shard] < 0) return gk_fail(err, errcap, GK_E_IO, "%s", strerror(errno));
        }
        gl_src_t src = {.fd = r->fd[loc->shard], .size = ls->shard[loc->shard].size};
        int rc = gl_frame_load(&src, f, &c->payload, err, errcap);
        if (!rc) rc = record_starts(c, f, err, errcap);
        if (rc) return rc;
        c->shard = loc->shard;
        c->frame = loc->frame;
    }
    c->used = ++r->clock;
    size_t pos = c->start[loc->k];
    int rc = gl_frame_next_game(f, &c->payload, &pos, g, err, errcap);
    if (rc) return rc;
    if (g->index != loc->index)
        return gk_fail(err, errcap, GK_E_FORMAT,
                       "game %u of the frame at byte %" PRIu64 " is game %" PRIu64
                       ", its header says %" PRIu64,
                       loc->k, f->offset, g->index, loc->index);
    return GK_OK;
}

int gl_reader_get(gl_reader_t *r, const gl_loc_t *loc, gl_game_t *g, char *err, size_t errcap) {
    const gl_logset_t *ls = r->ls;
    if (loc->shard < 0 || loc->shard >= ls->nshards ||
        loc->frame >= ls->shard[loc->shard].nframes ||
        loc->k >= ls->shard[loc->shard].frame[loc->frame].ngames)
        return gk_fail(err, errcap, GK_E_ARG, "no such game location");
    int rc = reader_get(r, loc, g, err, errcap);
    if (rc)
        gk_err_wrap(err, errcap, rc, "%s: game %" PRIu64 ": ", ls->path[loc->shard], loc->index);
    return rc;
}
