/* selfplay/selfplay.c -- one self-play game as a pure function, and its settings. */
#include "selfplay.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/status.h"
#include "../games/gobs.h"

/* Independent streams of one game: the same stream id gives the same numbers. */
enum { STREAM_OPENING = 1, STREAM_SEARCH, STREAM_TEMPERATURE, STREAM_RESIGN, STREAM_BOOK };

static uint64_t stream(uint64_t seed, uint64_t id) {
    uint64_t s = seed ^ id * 0x9E6C63D0676A9A99ull;
    gk_splitmix64(&s);
    return gk_splitmix64(&s);
}

uint64_t sp_game_seed(uint64_t run_seed, uint64_t index) {
    return gk_seed_mix(run_seed, index);
}

/* A uniform double in [0, 1). */
static double unit(uint64_t *rng) {
    return (double)(gk_splitmix64(rng) >> 11) * 0x1.0p-53;
}

void sp_settings_default(sp_settings_t *s, int game) {
    memset(s, 0, sizeof *s);
    s->rules = (gk_rules_t){(uint8_t)game, 0, GK_DEFAULT_TURN_LIMIT};
    s->seed = 1;
    ev_weights_default(game, &s->weights);
    mcts_params_default(&s->mcts);
    s->mcts.threads = 1;
    s->mcts.reuse = true;
    mcts_limits_default(&s->limits);
    s->limits.playouts = 800;
    /* The visit counts are the policy targets: keep the whole budget. */
    s->limits.early_stop = false;
    s->open_kind = GL_OPEN_RANDOM;
    s->open_turns = 4;
    s->temperature = 1.0f;
    s->temp_turns = 10;
    s->resign_on = false;
    s->resign_value = -0.95f;
    s->resign_share = 0.1f;
    s->top = 16;
}

int sp_settings_text(const sp_settings_t *s, char *buf, size_t cap) {
    const gk_game_t *g = gk_game_by_id(s->rules.game);
    if (!g || s->rules.variant >= 4 || !g->variants[s->rules.variant]) return -1;
    char open[64], resign[64];
    switch (s->open_kind) {
    case GL_OPEN_RANDOM: snprintf(open, sizeof open, "random:%d", s->open_turns); break;
    case GL_OPEN_POLICY: snprintf(open, sizeof open, "policy:%d", s->open_turns); break;
    case GL_OPEN_BOOK:
        if (s->dag)
            snprintf(open, sizeof open, "dag:%016" PRIx64 ",%.9g", s->dag->file_sum, s->dag_temp);
        else
            snprintf(open, sizeof open, "book:%016" PRIx64, s->book ? s->book->hash : 0);
        break;
    default: snprintf(open, sizeof open, "none"); break;
    }
    if (s->resign_on)
        snprintf(resign, sizeof resign, "%.9g,%.9g", (double)s->resign_value,
                 (double)s->resign_share);
    else
        snprintf(resign, sizeof resign, "off");
    const mcts_params_t *m = &s->mcts;
    const mcts_limits_t *l = &s->limits;
    /* max_plies= is the turn limit under its first name: the text is the fingerprint of
     * runs on disk (docs/FORMATS.md), so its keys never change. */
    int n = snprintf(
        buf, cap,
        "game=%s variant=%s max_plies=%u seed=%" PRIu64 " weights=%016" PRIx64 " playouts=%" PRIu64
        " nodes=%" PRIu64 " time=%.9g early_stop=%d openings=%s"
        " temperature=%.9g,%d resign=%s top=%d threads_per_game=%d parallel=%d c_puct=%.9g"
        " fpu=%.9g prior_temperature=%.9g playout_depth=%d playout=%d eval=%d priors=%d"
        " solver=%d virtual_loss=%d tree_mb=%d noise=%.9g,%.9g reuse=%d",
        g->name, g->variants[s->rules.variant], s->rules.turn_limit, s->seed,
        ev_weights_hash(&s->weights), l->playouts, l->nodes, l->time_s, l->early_stop, open,
        (double)s->temperature, s->temp_turns, resign, s->top, m->threads, m->parallel,
        (double)m->c_puct, (double)m->fpu, (double)m->temperature, m->playout_depth, m->playout,
        m->use_eval, m->use_priors, m->solver, m->virtual_loss, m->tree_mb, (double)m->noise_alpha,
        (double)m->noise_frac, m->reuse);
    /* Adjudication, the tactical options of issue 15 and minimax in selection only when
     * on, so that the runs made before them keep their fingerprint. */
    if (n >= 0 && (size_t)n < cap && s->adj_turn > 0)
        n += snprintf(buf + n, cap - (size_t)n, " adjudicate=%d,%d,%d", s->adj_turn, s->adj_lead,
                      s->adj_span);
    if (n >= 0 && (size_t)n < cap &&
        (m->leaf_minimax || m->quiesce || m->implicit_minimax > 0.0f || m->leaf_proof ||
         m->quiesce_threats))
        n += snprintf(buf + n, cap - (size_t)n, " tactics=%d,%d,%.9g,%d,%d", m->leaf_minimax,
                      m->quiesce, (double)m->implicit_minimax, m->leaf_proof, m->quiesce_threats);
    if (n >= 0 && (size_t)n < cap && m->ms_depth > 0)
        n += snprintf(buf + n, cap - (size_t)n, " ms=%d,%d", m->ms_depth, m->ms_visits);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* ------------------------------------------------------------------ one game */

static float clampf(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* A random opening action at p: uniform (or by the priors) over those that do not end
 * the game, so that every game reaches the search. */
static gk_action_t opening_action(const sp_settings_t *s, const gk_pos_t *p,
                                  const gk_action_t *list, int n, uint64_t *rng) {
    gk_action_t keep[GK_MAX_ACTIONS];
    float w[GK_MAX_ACTIONS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        gk_play(&q, list[i]);
        if (!gk_over(&q)) keep[k++] = list[i];
    }
    if (k == 0) return list[gk_splitmix64(rng) % (uint64_t)n];
    if (s->open_kind != GL_OPEN_POLICY) return keep[gk_splitmix64(rng) % (uint64_t)k];
    ev_policy_priors(&s->weights, p, keep, k, s->mcts.temperature, w);
    double u = unit(rng), acc = 0;
    for (int i = 0; i < k; i++) {
        acc += w[i];
        if (u < acc) return keep[i];
    }
    return keep[k - 1];
}

/* The settings of s as a game record keeps them. */
static gl_settings_t game_settings(const sp_settings_t *s) {
    return (gl_settings_t){
        .playouts = (uint32_t)(s->limits.playouts > UINT32_MAX ? UINT32_MAX : s->limits.playouts),
        .time_ms = (uint32_t)lround(s->limits.time_s * 1000.0),
        .threads_per_game = (uint16_t)s->mcts.threads,
        .top = (uint16_t)s->top,
        .temperature = s->temperature,
        .temp_turns = (uint16_t)s->temp_turns,
        .open_turns = (uint16_t)(s->open_kind == GL_OPEN_BOOK ? 0 : s->open_turns),
        .open_kind = (uint8_t)s->open_kind,
        .resign_on = s->resign_on,
        .resign_value = s->resign_value,
        .resign_share = s->resign_share,
        .book_hash = s->open_kind != GL_OPEN_BOOK ? 0
                     : s->dag                     ? s->dag->file_sum
                     : s->book                    ? s->book->hash
                                                  : 0,
    };
}

/* Adjudication (sp_settings_t.adj_*), called at each turn end of a Gobs game: *held
 * counts the turn ends in a row with the same side ahead by adj_lead or more (*leader). */
static void adjudicate(const sp_settings_t *s, gk_pos_t *pos, int *leader, int *held) {
    if (s->adj_turn <= 0 || s->rules.game != GK_GAME_GOBS || gk_over(pos)) return;
    int lead = gobs_count(pos, GK_WHITE) - gobs_count(pos, GK_BLACK);
    int side = lead >= s->adj_lead ? GK_WHITE : -lead >= s->adj_lead ? GK_BLACK : -1;
    *held = side >= 0 && side == *leader ? *held + 1 : side >= 0;
    *leader = side;
    if (side >= 0 && *held >= s->adj_span && (int)pos->turn >= s->adj_turn)
        gk_set_result(pos, side == GK_WHITE ? GK_WIN_WHITE : GK_WIN_BLACK, GK_REASON_ADJUDICATED);
}

/* The book line of the game with this seed: a walk of the opening book or one of its
 * lines (none: *line stays NULL). */
static int opening_line(const sp_settings_t *s, uint64_t seed, gk_action_t *walk,
                        const gk_action_t **line, uint32_t *line_len, char *err, size_t errcap) {
    if (s->open_kind != GL_OPEN_BOOK) return 0;
    uint64_t rb = stream(seed, STREAM_BOOK);
    if (s->dag) {
        *line_len = (uint32_t)bk_walk(s->dag, s->dag_temp, &rb, walk, SP_WALK_MAX);
        *line = walk;
        return 0;
    }
    if (!s->book || s->book->nlines <= 0)
        return gk_fail(err, errcap, GK_E_ARG, "book openings asked for without a book");
    int i = (int)(gk_splitmix64(&rb) % (uint64_t)s->book->nlines);
    *line = s->book->act + s->book->start[i];
    *line_len = s->book->start[i + 1] - s->book->start[i];
    return 0;
}

int sp_play_game(const sp_settings_t *s, uint64_t index, gl_game_t *g, const atomic_int *stop,
                 char *err, size_t errcap) {
    const gk_game_t *G = gk_game_by_id(s->rules.game);
    if (!G) return gk_fail(err, errcap, GK_E_INVALID, "unknown game %d", s->rules.game);
    double t0 = gk_now_s();
    uint64_t seed = sp_game_seed(s->seed, index);
    uint64_t rng_open = stream(seed, STREAM_OPENING), rng_temp = stream(seed, STREAM_TEMPERATURE);
    uint64_t rng_resign = stream(seed, STREAM_RESIGN);

    gl_game_clear(g);
    g->index = index;
    g->seed = seed;
    g->rules = s->rules;
    snprintf(g->engine, sizeof g->engine, "%s", GK_VERSION);
    g->weights_hash = ev_weights_hash(&s->weights);
    g->set = game_settings(s);
    bool playout_game = s->resign_on && unit(&rng_resign) < (double)s->resign_share;
    if (playout_game) g->flags |= GL_FLAG_PLAYOUT;

    mcts_params_t mp = s->mcts;
    mp.seed = stream(seed, STREAM_SEARCH);
    mcts_t *m = mcts_new(&mp, &s->weights);
    gk_hist_t *hist = malloc(sizeof *hist);
    mcts_result_t *res = malloc(sizeof *res);
    int rc = SP_DONE;
    if (!m || !hist || !res) {
        rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory (search of game %" PRIu64 ")", index);
        goto out;
    }
    const gk_action_t *line = NULL;
    uint32_t line_len = 0;
    gk_action_t walk[SP_WALK_MAX];
    if ((rc = opening_line(s, seed, walk, &line, &line_len, err, errcap))) goto out;
    gk_pos_t pos;
    G->setup(&pos, &s->rules);
    gk_hist_init(hist, &pos);
    gk_action_t list[GK_MAX_ACTIONS];
    gl_child_t top[GL_MAX_TOP];
    bool low[2] = {false, false};
    int adj_leader = -1, adj_held = 0;
    int ntop_max = s->top < 1 ? 1 : s->top > GL_MAX_TOP ? GL_MAX_TOP : s->top;
    for (;;) {
        if (gk_over(&pos)) break;
        int n = gk_gen(&pos, list);
        if (n == 0) {
            gk_apply_no_move(&pos);
            break;
        }
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
            rc = SP_ABANDONED;
            goto out;
        }
        gk_action_t a;
        gl_action_stats_t st = {0};
        int ntop = 0;
        if (line && g->nactions < line_len) {
            a = line[g->nactions];
            st.kind = GL_ACTION_BOOK;
        } else if ((s->open_kind == GL_OPEN_RANDOM || s->open_kind == GL_OPEN_POLICY) &&
                   pos.turn < s->open_turns) {
            a = opening_action(s, &pos, list, n, &rng_open);
            st.kind = GL_ACTION_RANDOM;
        } else if (n == 1) {
            a = list[0];
            st.kind = GL_ACTION_FORCED;
        } else {
            if (mcts_search(m, &pos, hist, &s->limits, res) != 0 || res->best == GK_NO_ACTION) {
                rc = gk_fail(err, errcap, GK_E_INVALID,
                             "game %" PRIu64 ": the search found no action at turn %u", index,
                             pos.turn);
                goto out;
            }
            float v = clampf(2.f * res->value - 1.f, -1.f, 1.f);
            if (s->resign_on) {
                int side = pos.stm;
                if (v < s->resign_value) {
                    if (low[side] && g->resign_at == 0) {
                        g->resign_at = g->nactions + 1;
                        g->resign_side = (uint8_t)side;
                        if (!playout_game) {
                            gk_set_result(&pos, side == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE,
                                          GK_REASON_RESIGN);
                            break;
                        }
                    }
                    low[side] = true;
                } else
                    low[side] = false;
            }
            st.kind = GL_ACTION_SEARCH;
            st.visits = (uint32_t)((res->playouts + res->reused) > UINT32_MAX
                                       ? UINT32_MAX
                                       : res->playouts + res->reused);
            /* A root proven by its expansion alone (a win in one) had no playout; it
             * counts 1, so that a searched action always has visits and its stored
             * children never hold more than the root. */
            if (st.visits == 0 && res->proof != MCTS_UNPROVEN) st.visits = 1;
            st.value = v;
            if (res->proof != MCTS_UNPROVEN) {
                /* The search stops at a proof: its best action is the whole target. */
                top[ntop++] = (gl_child_t){res->best, st.visits};
            } else {
                for (int i = 0; i < res->nchildren && ntop < ntop_max; i++)
                    if (res->children[i].visits > 0)
                        top[ntop++] =
                            (gl_child_t){res->children[i].action, res->children[i].visits};
            }
            a = (s->temperature > 0 && pos.turn < s->temp_turns && res->proof != MCTS_PROVEN_WIN)
                    ? mcts_sample(res, s->temperature, &rng_temp)
                    : res->best;
            if (a == GK_NO_ACTION) a = res->best;
        }
        if (gl_game_push(g, a, &st, top, ntop)) {
            rc = gk_fail(err, errcap, GK_E_NOMEM, "game %" PRIu64 ": too long or out of memory",
                         index);
            goto out;
        }
        gk_play_turn(&pos, hist, a);
        mcts_advance(m, a);
        if (!pos.in_turn) adjudicate(s, &pos, &adj_leader, &adj_held);
    }
    g->result = pos.result;
    g->reason = pos.reason;
    g->turns = pos.turn;
    g->final_hash = pos.hash;
    g->time_ms = (uint32_t)lround((gk_now_s() - t0) * 1000.0);
out:
    mcts_free(m);
    free(hist);
    free(res);
    return rc;
}

/* ------------------------------------------------------------------ bench */

int sp_bench(const sp_settings_t *s, uint64_t first, uint64_t n, int threads, sp_summary_t *sum,
             char *err, size_t errcap) {
    memset(sum, 0, sizeof *sum);
    sum->ranks = 1;
    sum->games_total = n;
    if (threads < 1) threads = 1;
    double t0 = gk_now_s();
    int failed = 0;
    if (s->mcts.threads > 1 && omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
#pragma omp parallel num_threads(threads) reduction(+ : failed)
    {
        gl_game_t g;
        gl_game_init(&g);
        char e[256];
#pragma omp for schedule(dynamic, 1)
        for (uint64_t i = 0; i < n; i++) {
            if (failed) continue;
            if (sp_play_game(s, first + i, &g, NULL, e, sizeof e) != SP_DONE) {
                failed = 1;
#pragma omp critical(sp_bench_err)
                snprintf(err, errcap, "%s", e);
                continue;
            }
#pragma omp critical(sp_bench_sum)
            {
                sum->games_played++;
                sum->actions += g.nactions;
                sum->white += g.result == GK_WIN_WHITE;
                sum->black += g.result == GK_WIN_BLACK;
                sum->draws += g.result == GK_DRAW;
            }
        }
        gl_game_free(&g);
    }
    sum->seconds = gk_now_s() - t0;
    sum->complete = !failed;
    return failed ? -1 : 0;
}
