/* selfplay/match.c -- colour-swapped pair matches between two players (see match.h). */
#include "match.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../common/status.h"
#include "../common/strbuf.h"
#include "../search/player.h"
#include "engine_proc.h"

#define OPENING_TRIES 1000

typedef struct pair_slot {
    int done;
    match_game_t g[2];
} pair_slot_t;

typedef struct shared {
    const match_opts_t *o;
    pair_slot_t *pairs;
    int npairs;
    atomic_int next; /* next pair to start */
    atomic_int stop; /* SPRT decided or an error: start nothing new */
    match_stats_t st;
    double t0;
    char err[512];
    int failed;
} shared_t;

int match_check(const match_opts_t *o, char *err, size_t errcap) {
    if (o->games < 2 || o->games % 2)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the number of games must be even and at least 2 (got %d)", o->games);
    if (o->threads < 1) return gk_fail(err, errcap, GK_E_INVALID, "threads must be at least 1");
    if (o->opening_turns < 0 || o->opening_turns > 200)
        return gk_fail(err, errcap, GK_E_INVALID, "opening turns must be in [0, 200] (got %d)",
                       o->opening_turns);
    if (o->book) {
        gk_pos_t setup;
        const gk_rules_t r = {o->start.game, o->start.variant, o->start.turn_limit};
        gk_game_of(&o->start)->setup(&setup, &r);
        if (o->book->nlines < 1 || setup.hash != o->start.hash || setup.turn != o->start.turn)
            return gk_fail(err, errcap, GK_E_INVALID,
                           "an opening book needs the game's start position and a line");
    }
    if (gk_over(&o->start) || o->start.in_turn != 0)
        return gk_fail(err, errcap, GK_E_INVALID,
                       "the start position must be an unfinished turn boundary");
    if (o->sprt) GK_FORWARD_IF(elo_sprt_check(&o->sprt_params, err, errcap));
    GK_RETURN_IF(
        !(o->tc_base_s >= 0 && o->tc_inc_s >= 0 && o->tc_base_s <= 1e7 && o->tc_inc_s <= 1e7), err,
        errcap, GK_E_INVALID, "the time control must be two numbers >= 0");
    GK_RETURN_IF((match_spec_is_cmd(o->spec_a) || match_spec_is_cmd(o->spec_b)) &&
                     !(o->timeout_s > 0 && o->timeout_s <= 1e6),
                 err, errcap, GK_E_INVALID, "an engine needs a timeout in (0, 1e6] seconds");
    return 0;
}

/* Opening of pair i: K random turns from the start; redrawn when one ends the game. */
static int make_opening(const match_opts_t *o, int pair, gk_pos_t *pos, gk_hist_t *hist,
                        gk_action_t *acts, int *nacts) {
    uint64_t rng = gk_seed_mix(o->seed, 0x0BE17000ull + (uint64_t)pair);
    gk_action_t list[GK_MAX_ACTIONS];
    for (int attempt = 0; attempt < OPENING_TRIES; attempt++) {
        *pos = o->start;
        gk_hist_init(hist, pos);
        int n = 0, ok = 1;
        if (o->book) {
            /* Book lines are checked legal when loaded; the same line for a pair on every
             * attempt, so a line that ends the game is refused rather than redrawn. */
            const ol_lines_t *b = o->book;
            uint64_t line =
                (gk_seed_mix(o->seed, 0xB00Cull) + (uint64_t)pair) % (uint64_t)b->nlines;
            for (uint32_t k = b->start[line]; k < b->start[line + 1] && ok; k++) {
                if (n >= MATCH_MAX_ACTIONS)
                    ok = 0;
                else {
                    acts[n++] = b->act[k];
                    gk_play_turn(pos, hist, b->act[k]);
                    if (gk_over(pos)) ok = 0;
                }
            }
            if (!ok) return -1;
        }
        for (int t = 0; t < o->opening_turns && ok; t++) {
            do {
                int k = gk_gen(pos, list);
                if (k <= 0 || n >= MATCH_MAX_ACTIONS) {
                    ok = 0;
                    break;
                }
                gk_action_t a = list[gk_splitmix64(&rng) % (uint64_t)k];
                acts[n++] = a;
                gk_play(pos, a);
            } while (pos->in_turn != 0 && !gk_over(pos));
            if (!ok) break;
            gk_end_turn(pos, hist);
            if (gk_over(pos)) ok = 0;
        }
        if (ok) {
            *nacts = n;
            return 0;
        }
    }
    return -1;
}

const char *match_end_name(int end) {
    static const char *const names[MATCH_NENDS] = {
        "rules", "time forfeit", "illegal move", "engine crashed", "engine hung", "protocol error"};
    return end >= 0 && end < MATCH_NENDS ? names[end] : "?";
}

int match_spec_is_cmd(const char *spec) {
    return spec && !strncmp(spec, "cmd:", 4);
}

/* One side of a game: a built-in player or an external engine (started when needed). */
typedef struct side {
    const char *spec;
    int is_a;
    player_t *pl;
    ep_t *ep;
} side_t;

/* A fault of the side to move: why into g, the game lost by it. */
typedef struct fault {
    int end; /* MATCH_END_*, RULES = none */
    char why[160];
} fault_t;

static void set_fault(fault_t *f, int end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fault(fault_t *f, int end, const char *fmt, ...) {
    f->end = end;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
}

static void engine_down(side_t *s) {
    ep_kill(s->ep);
    ep_free(s->ep);
    s->ep = NULL;
}

/* Sends isready and waits for readyok; an `error` line before it is a refusal. */
static int engine_sync(ep_t *ep, double timeout_s, char *err, size_t cap) {
    GK_FORWARD_IF(ep_send(ep, "isready", err, cap));
    double deadline = gk_now_s() + timeout_s;
    char line[512];
    for (;;) {
        int r = ep_read(ep, deadline, line, sizeof line, err, cap);
        if (r < 0) return r;
        if (r == 0) return gk_fail(err, cap, GK_E_IO, "no 'readyok' within %g s", timeout_s);
        if (!strncmp(line, "error", 5))
            return gk_fail(err, cap, GK_E_INVALID, "refused a command: %.200s", line);
        if (!strcmp(line, "readyok")) return 0;
    }
}

/* Starts side s's engine when it is not running: handshake, rule set, checked. */
static int engine_up(const match_opts_t *o, side_t *s, char *err, size_t cap) {
    if (s->ep) return 0;
    GK_FORWARD_IF(ep_start(s->spec + 4, &s->ep, err, cap));
    const gk_game_t *g = gk_game_of(&o->start);
    char line[128];
    int rc = ep_handshake(s->ep, 10, err, cap);
    snprintf(line, sizeof line, "setoption name turn_limit value %d", o->start.turn_limit);
    if (rc == 0) rc = ep_send(s->ep, line, err, cap);
    snprintf(line, sizeof line, "game %s %s", g->name, g->variants[o->start.variant]);
    if (rc == 0) rc = ep_send(s->ep, line, err, cap);
    if (rc == 0) rc = engine_sync(s->ep, 10, err, cap);
    if (rc) engine_down(s);
    return rc;
}

/* The engine's turn at pos (a turn start): `position` + `go`, then its answer parsed into
 * seq.  Returns the number of actions, or 0 with the fault in f (the engine killed). */
static int engine_turn(const match_opts_t *o, side_t *s, const gk_pos_t *pos, const char *posline,
                       const double clock[2], uint64_t *work, gk_action_t *seq, fault_t *f) {
    char err[256], go[160], line[1024];
    bool tc = o->tc_base_s > 0;
    if (tc)
        snprintf(go, sizeof go, "go wtime %lld btime %lld winc %lld binc %lld",
                 (long long)llround(clock[0] * 1000), (long long)llround(clock[1] * 1000),
                 (long long)llround(o->tc_inc_s * 1000), (long long)llround(o->tc_inc_s * 1000));
    else
        snprintf(go, sizeof go, "go");
    double t0 = gk_now_s();
    double deadline = t0 + o->timeout_s + (tc ? clock[pos->stm] : 0);
    int rc = ep_send(s->ep, posline, err, sizeof err);
    if (rc == 0) rc = ep_send(s->ep, go, err, sizeof err);
    while (rc == 0) {
        int r = ep_read(s->ep, deadline, line, sizeof line, err, sizeof err);
        if (r < 0) {
            rc = r;
            break;
        }
        if (r == 0) {
            if (tc)
                set_fault(f, MATCH_END_TIME, "no answer %g s after its clock ran out (killed)",
                          o->timeout_s);
            else
                set_fault(f, MATCH_END_HANG, "no answer within %g s (killed)", o->timeout_s);
            engine_down(s);
            return 0;
        }
        if (!strncmp(line, "info playouts ", 14)) *work = strtoull(line + 14, NULL, 10);
        if (!strncmp(line, "error", 5)) {
            set_fault(f, MATCH_END_PROTOCOL, "refused a command: %.120s", line);
            engine_down(s);
            return 0;
        }
        if (strncmp(line, "bestmove ", 9)) continue;
        double used = gk_now_s() - t0;
        if (tc && used > clock[pos->stm]) {
            /* Late is lost, whatever the answer. */
            set_fault(f, MATCH_END_TIME, "answered after %.3f s with %.3f s left", used,
                      clock[pos->stm]);
            return 0;
        }
        const gk_game_t *g = gk_game_of(pos);
        char why[256];
        int n = g->parse_move(pos, line + 9, seq, GK_MAX_TURN, why, sizeof why);
        if (n <= 0) {
            set_fault(f, MATCH_END_ILLEGAL, "answered '%.40s': %.80s", line + 9,
                      !strcmp(line + 9, "none") ? "no move in an unfinished game" : why);
            engine_down(s);
            return 0;
        }
        return n;
    }
    set_fault(f, MATCH_END_CRASH, "%.150s", err);
    engine_down(s);
    return 0;
}

/* Tells the players of a new game: seeds, and `newgame` to the engines (started again
 * when they are down).  Returns 0, -1 with the fault of a side (in f, that side in *who),
 * or GK_E_NOMEM. */
static int new_game(const match_opts_t *o, side_t *sd, uint64_t gseed, fault_t *f, int *who) {
    char err[256], line[64];
    for (int k = 0; k < 2; k++) {
        uint64_t seed = gk_seed_mix(gseed, k == 0 ? 0xA : 0xB);
        if (sd[k].pl) {
            if (player_new_game(sd[k].pl, seed)) return GK_E_NOMEM;
            continue;
        }
        snprintf(line, sizeof line, "newgame seed %llu", (unsigned long long)seed);
        if (engine_up(o, &sd[k], err, sizeof err) || ep_send(sd[k].ep, line, err, sizeof err)) {
            set_fault(f, MATCH_END_PROTOCOL, "could not start the engine: %.120s", err);
            if (sd[k].ep) engine_down(&sd[k]);
            *who = k;
            return -1;
        }
    }
    return 0;
}

/* Ends g by the fault of side `who` (0 A, 1 B). */
static void forfeit(match_game_t *g, int who, const fault_t *f) {
    int a_loses = who == 0;
    g->end = f->end;
    g->end_a = a_loses;
    bool loser_white = (g->a_white != 0) == a_loses;
    g->result = loser_white ? GK_WIN_BLACK : GK_WIN_WHITE;
    g->reason = GK_REASON_NONE;
    g->score_a = a_loses ? 0 : 2;
    snprintf(g->termination, sizeof g->termination, "%s (%s): %s", match_end_name(f->end),
             loser_white ? "White" : "Black", f->why);
}

/* A game's moves so far, for the engines: the `position` line and the turn being built. */
typedef struct moves {
    gk_sb_t line;   /* "position text START moves M1 M2 ..." */
    gk_pos_t start; /* of the current turn */
    gk_action_t turn[GK_MAX_TURN];
    int nturn;
    int nmoves;
} moves_t;

static void moves_push(moves_t *mv, const gk_pos_t *after, gk_action_t a) {
    if (mv->nturn < GK_MAX_TURN) mv->turn[mv->nturn++] = a;
    if (after->in_turn != 0 && !gk_over(after)) return;
    char t[GK_MOVE_TEXT_MAX];
    if (gk_game_of(after)->move_text(&mv->start, mv->turn, mv->nturn, t, sizeof t) >= 0)
        gk_sb_printf(&mv->line, "%s%s", mv->nmoves++ ? " " : " moves ", t);
    mv->nturn = 0;
    mv->start = *after;
}

/* Plays game `index` from the opening; fills g (g->actions is malloc'ed). */
static int play_game(const match_opts_t *o, side_t *sd, int index, const gk_pos_t *opening,
                     const gk_hist_t *ohist, const gk_action_t *oacts, int nopen, gk_hist_t *hist,
                     gk_action_t *buf, match_game_t *g, char *err, size_t errcap) {
    memset(g, 0, sizeof *g);
    g->index = index;
    g->a_white = index % 2 == 0;
    g->start = o->start;
    g->nopening = nopen;
    memcpy(buf, oacts, (size_t)nopen * sizeof *buf);
    int n = nopen, who = 0;
    gk_pos_t pos = *opening;
    *hist = *ohist;
    uint64_t gseed = gk_seed_mix(o->seed, (uint64_t)index);
    fault_t f = {0};
    int rc = new_game(o, sd, gseed, &f, &who);
    if (rc == GK_E_NOMEM)
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory starting game %d", index + 1);
    moves_t mv = {.start = o->start};
    gk_sb_growing(&mv.line);
    char stext[GK_POS_TEXT_MAX];
    if (gk_game_of(&o->start)->pos_to_text(&o->start, stext, sizeof stext) < 0) stext[0] = 0;
    gk_sb_printf(&mv.line, "position text %s", stext);
    {
        gk_pos_t q = o->start;
        for (int i = 0; i < nopen; i++) {
            gk_play(&q, oacts[i]);
            moves_push(&mv, &q, oacts[i]);
        }
    }
    bool tc = o->tc_base_s > 0;
    double clock[2] = {o->tc_base_s, o->tc_base_s}, turn_t0 = 0, turn_secs = 0;
    gk_action_t list[GK_MAX_ACTIONS], pend[GK_MAX_TURN];
    int npend = 0, ipend = 0;
    for (uint64_t step = 0; rc == 0 && !gk_over(&pos); step++) {
        int k = gk_gen(&pos, list);
        if (k <= 0) {
            gk_apply_no_move(&pos);
            break;
        }
        int a_moves = (pos.stm == GK_WHITE) == (g->a_white != 0);
        side_t *mover = &sd[a_moves ? 0 : 1];
        who = a_moves ? 0 : 1;
        if (pos.in_turn == 0) turn_t0 = gk_now_s(), turn_secs = 0;
        gk_action_t act;
        double *secs = a_moves ? &g->seconds_a : &g->seconds_b;
        uint64_t *work = a_moves ? &g->work_a : &g->work_b;
        if (!mover->pl) {
            if (pos.in_turn == 0) {
                uint64_t wk = 0;
                npend =
                    engine_turn(o, mover, &pos, mv.line.p ? mv.line.p : "", clock, &wk, pend, &f);
                *work += wk;
                ipend = 0;
                if (npend == 0) {
                    rc = -1;
                    break;
                }
            }
            act = pend[ipend++];
        } else {
            player_move_t pm;
            if (tc)
                player_set_clock(mover->pl, clock[pos.stm] - (gk_now_s() - turn_t0), o->tc_inc_s);
            if (player_choose(mover->pl, &pos, hist, gk_seed_mix(gseed, step), &pm) < 0 ||
                gk_action_index(list, k, pm.action) < 0) {
                gk_sb_free(&mv.line);
                return gk_fail(err, errcap, GK_E_INVALID, "game %d: player %s (%s) %s", index + 1,
                               a_moves ? "A" : "B", mover->spec,
                               pm.action == GK_NO_ACTION ? "returned no action"
                                                         : "chose an illegal action");
            }
            act = pm.action;
            *secs += pm.seconds;
            turn_secs += pm.seconds;
            *work += pm.work;
        }
        for (int s = 0; s < 2; s++)
            if (sd[s].pl) player_observe(sd[s].pl, &pos, act);
        if (n < MATCH_MAX_ACTIONS)
            buf[n++] = act;
        else
            g->truncated = 1;
        int colour = pos.stm;
        gk_play(&pos, act);
        moves_push(&mv, &pos, act);
        if (pos.in_turn != 0 && !gk_over(&pos)) continue;
        double used = gk_now_s() - turn_t0;
        if (!mover->pl) *secs += used, turn_secs = used;
        *(a_moves ? &g->moves_a : &g->moves_b) += 1;
        double *mx = a_moves ? &g->max_a : &g->max_b;
        if (turn_secs > *mx) *mx = turn_secs;
        if (tc) {
            clock[colour] -= used;
            if (clock[colour] < 0) {
                set_fault(&f, MATCH_END_TIME, "took %.3f s with %.3f s left", used,
                          clock[colour] + used);
                rc = -1;
                break;
            }
            clock[colour] += o->tc_inc_s;
        }
        gk_end_turn(&pos, hist);
    }
    gk_sb_free(&mv.line);
    if (rc) {
        forfeit(g, who, &f);
    } else {
        g->result = (gk_result_t)pos.result;
        g->reason = (gk_reason_t)pos.reason;
        g->score_a = gk_result_for(&pos, g->a_white ? GK_WHITE : GK_BLACK) + 1;
        snprintf(g->termination, sizeof g->termination, "%s", gk_reason_text(g->reason));
    }
    g->turns = pos.turn - o->start.turn;
    g->nactions = n;
    g->actions = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->actions);
    if (!g->actions) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    memcpy(g->actions, buf, (size_t)n * sizeof *buf);
    return 0;
}

static void count_game(match_stats_t *st, const match_game_t *g) {
    if (g->score_a == 2)
        st->w++;
    else if (g->score_a == 1)
        st->d++;
    else
        st->l++;
    if (g->result == GK_WIN_WHITE) st->white_wins++;
    if (g->result == GK_WIN_BLACK) st->black_wins++;
    st->turns += (uint64_t)g->turns;
    st->seconds_a += g->seconds_a;
    st->seconds_b += g->seconds_b;
    st->moves_a += (uint64_t)g->moves_a;
    st->moves_b += (uint64_t)g->moves_b;
    if (g->max_a > st->max_a) st->max_a = g->max_a;
    if (g->max_b > st->max_b) st->max_b = g->max_b;
    st->work_a += g->work_a;
    st->work_b += g->work_b;
    if (g->end != MATCH_END_RULES) st->ends[g->end_a ? 0 : 1][g->end]++;
}

/* Under the lock: counts every finished pair that follows the counted prefix. */
static void advance_counted(shared_t *sh) {
    const match_opts_t *o = sh->o;
    match_stats_t *st = &sh->st;
    while (st->pairs_counted < sh->npairs && sh->pairs[st->pairs_counted].done &&
           !(st->sprt && st->sprt_state != ELO_SPRT_CONTINUE)) {
        pair_slot_t *ps = &sh->pairs[st->pairs_counted];
        count_game(st, &ps->g[0]);
        count_game(st, &ps->g[1]);
        st->penta[ps->g[0].score_a + ps->g[1].score_a]++;
        st->pairs_counted++;
        st->elo_ok = elo_estimate_penta(st->penta, 0.95, &st->elo) == 0;
        if (st->sprt) {
            st->llr = elo_sprt_llr_penta(&o->sprt_params, st->penta);
            st->sprt_state = elo_sprt_state(&o->sprt_params, st->llr);
            if (st->sprt_state != ELO_SPRT_CONTINUE) atomic_store(&sh->stop, 1);
        }
        st->wall_s = gk_now_s() - sh->t0;
        if (o->on_pair) o->on_pair(o->ctx, &ps->g[0], &ps->g[1], st);
        free(ps->g[0].actions);
        free(ps->g[1].actions);
        ps->g[0].actions = ps->g[1].actions = NULL;
    }
}

typedef struct worker {
    side_t sd[2];
    gk_hist_t ohist, hist;
    gk_action_t oacts[MATCH_MAX_ACTIONS];
    gk_action_t buf[MATCH_MAX_ACTIONS];
} worker_t;

/* The first failure of any thread is the match's; the others stop starting pairs. */
static void shared_fail(shared_t *sh, const char *msg) {
#pragma omp critical(match_lock)
    {
        if (!sh->failed) {
            sh->failed = 1;
            snprintf(sh->err, sizeof sh->err, "%s", msg);
        }
    }
    atomic_store(&sh->stop, 1);
}

static void work(shared_t *sh) {
    const match_opts_t *o = sh->o;
    char err[256];
    int game = o->start.game;
    worker_t *w = calloc(1, sizeof *w);
    if (!w) {
        shared_fail(sh, "out of memory");
        return;
    }
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++) {
        side_t *sd = &w->sd[k];
        sd->spec = k ? o->spec_b : o->spec_a;
        sd->is_a = !k;
        if (match_spec_is_cmd(sd->spec)) continue; /* started by the first game */
        if (!(sd->pl = player_new(sd->spec, game, err, sizeof err))) {
            char msg[300];
            snprintf(msg, sizeof msg, "player %c: %s", k ? 'B' : 'A', err);
            shared_fail(sh, msg);
            ok = false;
        }
    }
    while (ok && !atomic_load(&sh->stop)) {
        int i = atomic_fetch_add(&sh->next, 1);
        if (i >= sh->npairs) break;
        gk_pos_t opening;
        int nopen = 0;
        if (make_opening(o, i, &opening, &w->ohist, w->oacts, &nopen)) {
            snprintf(err, sizeof err,
                     "no opening of %d random turns that leaves the game unfinished (pair %d)",
                     o->opening_turns, i + 1);
            shared_fail(sh, err);
            break;
        }
        pair_slot_t *ps = &sh->pairs[i];
        int bad = 0;
        for (int k = 0; k < 2 && !bad; k++) {
            bad = play_game(o, w->sd, 2 * i + k, &opening, &w->ohist, w->oacts, nopen, &w->hist,
                            w->buf, &ps->g[k], err, sizeof err) != 0;
            if (bad) {
                shared_fail(sh, err);
                break;
            }
#pragma omp critical(match_lock)
            {
                sh->st.games_finished++;
                if (o->on_game) o->on_game(o->ctx, &ps->g[k], &sh->st);
            }
        }
        if (bad) break;
#pragma omp critical(match_lock)
        {
            ps->done = 1;
            advance_counted(sh);
        }
    }
    for (int k = 0; k < 2; k++) {
        player_free(w->sd[k].pl);
        ep_free(w->sd[k].ep);
    }
    free(w);
}

int match_run(const match_opts_t *o, match_stats_t *st, char *err, size_t errcap) {
    GK_FORWARD_IF(match_check(o, err, errcap));
    /* Check the specs once here, so that a bad one is reported before any thread runs: a
     * built-in player is built, an engine started and checked. */
    int nested = 0;
    for (int k = 0; k < 2; k++) {
        side_t sd = {.spec = k ? o->spec_b : o->spec_a, .is_a = !k};
        if (match_spec_is_cmd(sd.spec)) {
            int rc = engine_up(o, &sd, err, errcap);
            ep_free(sd.ep);
            if (rc) return gk_err_wrap(err, errcap, rc, "player %c (%s): ", k ? 'B' : 'A', sd.spec);
            continue;
        }
        player_t *pl = player_new(sd.spec, o->start.game, err, errcap);
        if (!pl) return -1;
        nested |= player_threads(pl) > 1;
        player_free(pl);
    }

    shared_t *sh = calloc(1, sizeof *sh);
    if (!sh) return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    sh->o = o;
    sh->npairs = o->games / 2;
    sh->pairs = calloc((size_t)sh->npairs, sizeof *sh->pairs);
    if (!sh->pairs) {
        free(sh);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    atomic_init(&sh->next, 0);
    atomic_init(&sh->stop, 0);
    sh->st.games_total = o->games;
    sh->st.sprt = o->sprt;
    if (o->sprt) elo_sprt_bounds(&o->sprt_params, &sh->st.llr_lower, &sh->st.llr_upper);
    sh->t0 = gk_now_s();

    int threads = o->threads < sh->npairs ? o->threads : sh->npairs;
    if (threads <= 1) {
        /* No parallel region: a player's own search threads then get the cores. */
        work(sh);
    } else {
        /* Players with search threads of their own run a nested parallel region. */
        if (nested && omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
#pragma omp parallel num_threads(threads)
        work(sh);
    }
    sh->st.wall_s = gk_now_s() - sh->t0;
    *st = sh->st;
    int rc = 0;
    if (sh->failed) rc = gk_fail(err, errcap, GK_E_INVALID, "%s", sh->err);
    for (int i = 0; i < sh->npairs; i++) {
        free(sh->pairs[i].g[0].actions);
        free(sh->pairs[i].g[1].actions);
    }
    free(sh->pairs);
    free(sh);
    return rc;
}
