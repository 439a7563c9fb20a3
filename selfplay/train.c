/* selfplay/train.c -- the training loop of selfplay/train.h (phases, steps, MPI ranks).
 * Its state file is train_state.c, its report and plot train_report.c. */
#include "train.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/files.h"
#include "../common/hash.h"
#include "../common/status.h"
#include "../eval/eval.h"
#include "match.h"
#include "selfplay.h"

void train_opts_default(train_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->rules.game = GK_GAME_GOUNKI;
    o->rules.turn_limit = GK_DEFAULT_TURN_LIMIT;
    o->generations = 4;
    o->games = 200;
    o->playouts = 200;
    o->openings = 4;
    o->match_games = 100;
    o->sprt_params = (elo_sprt_t){0, 20, 0.05, 0.05};
    o->gate = TRAIN_GATE_INTERVAL;
    o->ladder_games = 100;
    o->window = 2;
    o->seed = 1;
    o->threads = 0;
    sp_settings_t d;
    sp_settings_default(&d, GK_GAME_GOUNKI); /* the search's defaults are every game's */
    o->mcts = d.mcts;
    o->limits = d.limits;
    tune_run_opts_default(&o->tune);
    o->resign = -1;
    o->resign_value = d.resign_value;
    o->resign_share = d.resign_share;
    o->adj_turn = -1;
}

void train_opts_endings(train_opts_t *o) {
    bool gobs = o->rules.game == GK_GAME_GOBS;
    if (o->resign < 0) o->resign = gobs;
    if (o->adj_turn < 0) o->adj_turn = 0;
}

/* The search parameters of o that differ from self-play's defaults, as a NAME=VALUE list
 * that an mcts: player spec reads ("" when none): the same text goes into the matches'
 * specs and the settings fingerprint.  Returns 0, or -1 when cap is too small. */
static int search_text(const train_opts_t *o, char *buf, size_t cap) {
    sp_settings_t d;
    sp_settings_default(&d, o->rules.game);
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < mcts_param_count(); i++) {
        const mcts_param_info_t *r = mcts_param_at(i);
        if (r->limit ? strcmp(r->name, "nodes") && strcmp(r->name, "early_stop")
                     : !strcmp(r->name, "seed"))
            continue; /* not read (see train.h) */
        const char *v =
            (const char *)(r->limit ? (const void *)&o->limits : (const void *)&o->mcts);
        const char *dv = (const char *)(r->limit ? (const void *)&d.limits : (const void *)&d.mcts);
        v += r->offset, dv += r->offset;
        char val[64];
        switch (r->kind) {
        case MCTS_PK_FLOAT:
            if (*(const float *)v == *(const float *)dv) continue;
            snprintf(val, sizeof val, "%.9g", (double)*(const float *)v);
            break;
        case MCTS_PK_DOUBLE:
            if (*(const double *)v == *(const double *)dv) continue;
            snprintf(val, sizeof val, "%.17g", *(const double *)v);
            break;
        case MCTS_PK_U64:
            if (*(const uint64_t *)v == *(const uint64_t *)dv) continue;
            snprintf(val, sizeof val, "%llu", (unsigned long long)*(const uint64_t *)v);
            break;
        case MCTS_PK_BOOL:
            if (*(const bool *)v == *(const bool *)dv) continue;
            snprintf(val, sizeof val, "%s", *(const bool *)v ? "on" : "off");
            break;
        default: { /* INT, ENUM (the index of its choice) */
            int k = *(const int *)v;
            if (k == *(const int *)dv) continue;
            if (r->kind == MCTS_PK_ENUM) { /* the choice's name, as a spec writes it */
                const char *c = r->choices;
                for (int j = 0; j < k && c; j++) c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL;
                snprintf(val, sizeof val, "%.*s", c ? (int)strcspn(c, "|") : 0, c ? c : "");
            } else {
                snprintf(val, sizeof val, "%d", k);
            }
        }
        }
        int w = snprintf(buf + n, cap - n, "%s%s=%s", n ? "," : "", r->name, val);
        if (w < 0 || (size_t)w >= cap - n) return -1;
        n += (size_t)w;
    }
    return 0;
}

static void gen_dir(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d", dir, g);
}

static void gen_weights(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d/weights.txt", dir, g);
}

static void gen_logs(const char *dir, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/gen-%03d/logs", dir, g);
}

/* ------------------------------------------------------------------ the loop */

/* Every setting that decides the games and the weights (not threads, not the number
 * of generations), with the start weights' hash, as text into t[TRAIN_SETTINGS_MAX]:
 * keys, each followed by its values.  Returns its length. */
static size_t settings_text(const train_opts_t *o, uint64_t start_hash, char *t) {
    const size_t cap = TRAIN_SETTINGS_MAX;
    const tune_run_opts_t *u = &o->tune;
    /* "plies" is the turn limit under its first name: the text fingerprints runs on disk. */
    int n =
        snprintf(t, cap,
                 "game %d variant %d plies %d games %d playouts %d openings %d match %d "
                 "sprt %d %.6g %.6g %.6g %.6g gate %d ladder %d window %d seed %llu "
                 "start %016llx target %d %.6g policy %d loss %d epochs %d batch %d lr %.6g "
                 "l2 %.6g patience %d val %.6g fitk %d min %ld",
                 o->rules.game, o->rules.variant, o->rules.turn_limit, o->games, o->playouts,
                 o->openings, o->match_games, o->sprt, o->sprt_params.elo0, o->sprt_params.elo1,
                 o->sprt_params.alpha, o->sprt_params.beta, o->gate, o->ladder_games, o->window,
                 (unsigned long long)o->seed, (unsigned long long)start_hash, u->data.target,
                 u->data.mix, u->data.policy, u->fit.loss, u->fit.epochs, u->fit.batch, u->fit.lr,
                 u->fit.l2, u->fit.patience, u->val_frac, u->fit_k, u->min_positions);
    /* added later: only when set, so that older runs keep their fingerprint */
    if (o->policy_gens > 0 && n > 0 && (size_t)n < cap)
        n += snprintf(t + n, cap - (size_t)n, " pgens %d", o->policy_gens);
    /* Early endings of self-play (on by default for Gobs since issue 14). */
    if (o->resign > 0 && n > 0 && (size_t)n < cap)
        n += snprintf(t + n, cap - (size_t)n, " resign %.6g %.6g", (double)o->resign_value,
                      (double)o->resign_share);
    if (o->adj_turn > 0 && n > 0 && (size_t)n < cap)
        n += snprintf(t + n, cap - (size_t)n, " adjudicate %d %d %d", o->adj_turn, o->adj_lead,
                      o->adj_span);
    char search[512];
    if (search_text(o, search, sizeof search) == 0 && search[0] && n > 0 && (size_t)n < cap)
        n += snprintf(t + n, cap - (size_t)n, " search %s", search);
    return n > 0 && (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The keys of settings_text() and the options that set them. */
static const char *const setting_flag[][2] = {
    {"game", "--game"},
    {"variant", "--variant"},
    {"plies", "--turn-limit"},
    {"games", "--games"},
    {"playouts", "--playouts"},
    {"openings", "--openings"},
    {"match", "--match-games"},
    {"sprt", "--sprt"},
    {"gate", "--gate"},
    {"ladder", "--ladder-games"},
    {"window", "--window"},
    {"seed", "--seed"},
    {"start", "--from (the start weights' hash)"},
    {"target", "--target"},
    {"policy", "--policy"},
    {"loss", "--loss"},
    {"epochs", "--epochs"},
    {"batch", "--batch"},
    {"lr", "--lr"},
    {"l2", "--l2"},
    {"patience", "--patience"},
    {"val", "--val"},
    {"fitk", "--keep-scale"},
    {"min", "--min-positions"},
    {"pgens", "--policy-gens"},
    {"resign", "--resign"},
    {"adjudicate", "--adjudicate"},
    {"search", "--set"},
};

static const char *flag_of(const char *key, size_t len) {
    for (size_t i = 0; i < sizeof setting_flag / sizeof *setting_flag; i++)
        if (strlen(setting_flag[i][0]) == len && !memcmp(setting_flag[i][0], key, len))
            return setting_flag[i][1];
    return NULL;
}

/* The values of the key starting at s (up to the next key or the end), as "V1 V2". */
static void values_of(const char *s, char *out, size_t cap) {
    size_t k = strcspn(s, " "), n = 0;
    const char *p = s + k;
    out[0] = 0;
    while (*p == ' ') {
        p++;
        size_t l = strcspn(p, " ");
        if (flag_of(p, l)) break;
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%.*s", n ? " " : "", (int)l, p);
        if (n >= cap) break;
        p += l;
    }
}

/* Names the first setting that differs between the run's settings text and ours. */
static void settings_difference(const char *run, const char *ours, char *out, size_t cap) {
    const char *pa = run, *pb = ours, *ka = NULL, *kb = NULL;
    while (*pa || *pb) {
        size_t la = strcspn(pa, " "), lb = strcspn(pb, " ");
        if (flag_of(pa, la)) ka = pa;
        if (flag_of(pb, lb)) kb = pb;
        if (la != lb || memcmp(pa, pb, la)) {
            const char *key = kb ? kb : ka;
            if (!key) break;
            size_t lka = ka ? strcspn(ka, " ") : 0, lkb = kb ? strcspn(kb, " ") : 0;
            if (lka != lkb || memcmp(ka, kb, lka)) {
                /* A key on one side only: the settings added later are written only when
                 * set (settings_text), so the other side has that setting's default. */
                const char *k = kb == pb ? kb : ka == pa ? ka : NULL;
                if (!k) break;
                char v[160] = "";
                values_of(k, v, sizeof v);
                snprintf(out, cap, "%s differs (here %s, the run's %s)",
                         flag_of(k, strcspn(k, " ")), k == kb ? v : "none", k == kb ? "none" : v);
                return;
            }
            char va[160] = "", vb[160] = "";
            values_of(ka, va, sizeof va);
            values_of(kb, vb, sizeof vb);
            snprintf(out, cap, "%s differs (here %s, the run's %s)",
                     flag_of(key, strcspn(key, " ")), vb, va);
            return;
        }
        pa += la + (pa[la] == ' ');
        pb += lb + (pb[lb] == ' ');
    }
    snprintf(out, cap, "the settings differ");
}

/* Removes generation directory d of a run that never finished a generation: its logs
 * (shards, manifest), weights and match files; anything else in it is refused. */
static int remove_gen_dir(const char *d, char *err, size_t errcap) {
    static const char *const files[] = {"weights.txt", "match.txt", ("logs/" GL_MANIFEST_NAME)};
    char p[1400], sh[1300];
    snprintf(sh, sizeof sh, "%s/logs", d);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(p, sizeof p, "%s/%s", d, files[i]);
        if (unlink(p) && errno != ENOENT)
            return gk_fail(err, errcap, GK_E_IO, "%s: %s", p, strerror(errno));
    }
    for (int r = 0; r < 100000; r++) { /* shard-RRRRR.gkz, in rank order */
        if (gl_shard_path(sh, r, p, sizeof p)) break;
        if (unlink(p)) {
            if (errno == ENOENT) break;
            return gk_fail(err, errcap, GK_E_IO, "%s: %s", p, strerror(errno));
        }
    }
    int in_logs = rmdir(sh) && errno != ENOENT;
    if (in_logs || rmdir(d))
        return gk_fail(err, errcap, GK_E_IO,
                       "%s: cannot remove it to restart the run (%s): files of its own in it?",
                       in_logs ? sh : d, strerror(errno));
    return GK_OK;
}

static uint64_t fingerprint(const train_opts_t *o, uint64_t start_hash, char *text) {
    size_t n = settings_text(o, start_hash, text);
    return gk_fnv1a64(GK_FNV1A_INIT, text, n);
}

/* Waits for every rank without spinning: the waiting ranks leave the cores to rank 0's
 * OpenMP threads (an MPI_Barrier busy-polls in most MPI libraries). */
static void gentle_barrier(void) {
    MPI_Request rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    int done = 0;
    for (;;) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done) break;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

typedef struct loop {
    const train_opts_t *o;
    train_state_t *s;
    int rank, nranks;
    int threads;  /* per rank, self-play */
    int threads0; /* rank 0 alone: tuning and matches, while the other ranks sleep */
    ev_weights_t start;
    bool abandoned; /* self-play lost a rank: no more MPI calls */
} loop_t;

static void say(const loop_t *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const loop_t *L, const char *fmt, ...) {
    if (L->rank != 0 || L->o->quiet) return;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char ts[16];
    strftime(ts, sizeof ts, "%H:%M:%S", &tm);
    printf("[train %s] ", ts);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* A generation's record before any phase: what its phases measure unknown (NaN), its
 * self-play with the weights of generation best. */
static train_gen_t fresh_gen(int best) {
    return (train_gen_t){.best_before = best,
                         .best_after = best,
                         .elo = NAN,
                         .elo_lo = NAN,
                         .elo_hi = NAN,
                         .lelo = NAN,
                         .lelo_lo = NAN,
                         .lelo_hi = NAN,
                         .val_before = NAN,
                         .val_after = NAN,
                         .train_before = NAN,
                         .train_after = NAN};
}

/* Rank 0: creates the run or reads it back; checks the settings. */
static int open_run(loop_t *L, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_state_t *s = L->s;
    char path[1200];
    if (o->from) {
        int rc = ev_weights_load(o->from, o->rules.game, &L->start, err, errcap);
        if (rc) return gk_err_wrap(err, errcap, rc, "--from: ");
    } else if (ev_weights_default(o->rules.game, &L->start)) {
        return gk_fail(err, errcap, GK_E_INVALID, "no default weights for this game");
    }
    char text[TRAIN_SETTINGS_MAX];
    uint64_t fp = fingerprint(o, ev_weights_hash(&L->start), text);
    int rc = train_state_load(o->dir, s, err, errcap);
    if (rc == GK_OK && s->fingerprint == fp) {
        snprintf(s->settings, sizeof s->settings, "%s", text); /* older runs lack it */
        say(L, "resuming %s: %d generation(s) after generation 0 on record", o->dir, s->ngen - 1);
        return GK_OK;
    }
    if (rc == GK_OK) {
        int finished = 0;
        for (int g = 1; g < s->ngen; g++) finished |= s->gen[g].phases == TRAIN_PH_ALL;
        char why[400];
        if (s->settings[0])
            settings_difference(s->settings, text, why, sizeof why);
        else
            snprintf(why, sizeof why, "a setting or the --from weights differ");
        GK_RETURN_IF(finished, err, errcap, GK_E_MISMATCH,
                     "%s was started with other settings: %s; use the same options to resume, "
                     "or a new --run directory",
                     o->dir, why);
        /* No generation finished: the run is started again with these settings. */
        for (int g = TRAIN_MAX_GENERATIONS; g >= 1; g--) {
            gen_dir(o->dir, g, path, sizeof path);
            if (access(path, F_OK) == 0) GK_FORWARD_IF(remove_gen_dir(path, err, errcap));
        }
        say(L, "restarting %s with other settings (%s): no generation had finished", o->dir, why);
    } else if (rc != GK_E_IO || errno != ENOENT) {
        return rc;
    }
    char g0[1100];
    gen_dir(o->dir, 0, g0, sizeof g0);
    GK_FORWARD_IF(gk_mkdir_p(g0, err, errcap));
    gen_weights(o->dir, 0, path, sizeof path);
    char prov[EV_PROVENANCE_MAX];
    snprintf(prov, sizeof prov, "generation 0 of %s (from %s)", o->dir,
             o->from ? o->from : "the shipped defaults");
    GK_FORWARD_IF(ev_weights_save(path, &L->start, prov, err, errcap));
    memset(s, 0, sizeof *s);
    s->fingerprint = fp;
    snprintf(s->settings, sizeof s->settings, "%s", text);
    s->ngen = 1;
    s->gen[0] = fresh_gen(0); /* the start: every phase done, on the ladder at 0 */
    s->gen[0].phases = TRAIN_PH_ALL;
    s->gen[0].promoted = s->gen[0].ladder = 1;
    s->gen[0].lelo = s->gen[0].lelo_lo = s->gen[0].lelo_hi = 0;
    say(L, "new run in %s", o->dir);
    return train_state_save(o->dir, s, err, errcap);
}

static int phase_tune(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    char wpath[1200];
    gen_weights(o->dir, r->best_before, wpath, sizeof wpath);
    ev_weights_t best, cand;
    GK_FORWARD_IF(ev_weights_load(wpath, o->rules.game, &best, err, errcap));
    int first = g - o->window + 1 < 1 ? 1 : g - o->window + 1;
    int nlogs = g - first + 1;
    char(*paths)[1200] = malloc((size_t)nlogs * sizeof *paths);
    const char **logs = malloc((size_t)nlogs * sizeof *logs);
    if (!paths || !logs) {
        free(paths);
        free(logs);
        return gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < nlogs; i++) {
        gen_logs(o->dir, first + i, paths[i], sizeof paths[i]);
        logs[i] = paths[i];
    }
    tune_run_opts_t to = o->tune;
    to.logs = logs;
    to.nlogs = nlogs;
    to.data.game = o->rules.game;
    if (o->policy_gens > 0 && g > o->policy_gens) to.data.policy = 0;
    to.data.threads = to.fit.threads = L->threads0;
    to.fit.seed = gk_seed_mix(o->seed, (uint64_t)g * 3 + 1);
    to.fit.progress = NULL;
    tune_run_report_t rep;
    double t0 = gk_now_s();
    int rc = tune_run(&to, &best, &cand, &rep, err, errcap);
    if (rc) {
        gk_err_wrap(err, errcap, rc, "generation %d tuning: ", g);
    } else {
        char prov[EV_PROVENANCE_MAX];
        tune_provenance(&to, &rep, prov, sizeof prov);
        gen_weights(o->dir, g, wpath, sizeof wpath);
        rc = ev_weights_save(wpath, &cand, prov, err, errcap);
    }
    free(paths);
    free(logs);
    if (rc) return rc;
    r->positions = rep.train_n;
    r->k = rep.k;
    r->train_before = rep.train_start;
    r->train_after = rep.value.train_after;
    r->val_before = rep.val_start;
    r->val_after = rep.value.val_after;
    r->tune_s = gk_now_s() - t0;
    r->phases |= TRAIN_PH_TUNE;
    say(L,
        "gen %d tuned on %d generation(s) of logs: %zu positions, K %.4g, val loss %.4f -> "
        "%.4f (%.1fs)",
        g, nlogs, rep.train_n, rep.k, rep.val_start, rep.value.val_after, r->tune_s);
    return 0;
}

/* Plays generation a's weights against generation b's; fills W/D/L and Elo. */
static int play_match(loop_t *L, int a, int b, int games, bool sprt, uint64_t seed,
                      match_stats_t *st, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    char wa[1200], wb[1200], sa[1800], sb[1800];
    gen_weights(o->dir, a, wa, sizeof wa);
    gen_weights(o->dir, b, wb, sizeof wb);
    char search[512];
    GK_RETURN_IF(search_text(o, search, sizeof search - 1), err, errcap, GK_E_INVALID,
                 "--set: too many search parameters");
    if (search[0]) strcat(search, ",");
    snprintf(sa, sizeof sa, "mcts:playouts=%d,%sweights=%s", o->playouts, search, wa);
    snprintf(sb, sizeof sb, "mcts:playouts=%d,%sweights=%s", o->playouts, search, wb);
    match_opts_t mo;
    memset(&mo, 0, sizeof mo);
    mo.spec_a = sa;
    mo.spec_b = sb;
    gk_game_by_id(o->rules.game)->setup(&mo.start, &o->rules);
    mo.games = games;
    mo.opening_turns = o->openings;
    mo.seed = seed;
    mo.threads = L->threads0;
    mo.sprt = sprt;
    mo.sprt_params = o->sprt_params;
    return match_run(&mo, st, err, errcap);
}

static int phase_match(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    match_stats_t st;
    int rc = play_match(L, g, r->best_before, o->match_games, o->sprt,
                        gk_seed_mix(o->seed, 3 * (uint64_t)g + 2), &st, err, errcap);
    if (rc) return gk_err_wrap(err, errcap, rc, "generation %d match: ", g);
    r->mw = st.w;
    r->md = st.d;
    r->ml = st.l;
    r->elo = st.elo_ok ? st.elo.elo : NAN;
    r->elo_lo = st.elo_ok ? st.elo.lo : NAN;
    r->elo_hi = st.elo_ok ? st.elo.hi : NAN;
    r->match_s = st.wall_s;
    if (o->sprt && st.sprt_state != ELO_SPRT_CONTINUE)
        /* The SPRT can accept H1 after a single 2-0 pair (its variance estimate is then
         * tiny); a promotion also needs the interval above 0. */
        r->promoted = st.sprt_state == ELO_SPRT_H1 && st.elo_ok && st.elo.lo > 0;
    else if (o->gate == TRAIN_GATE_SCORE)
        r->promoted = st.elo_ok && st.elo.score > 0.5;
    else
        r->promoted = st.elo_ok && st.elo.lo > 0;
    r->best_after = r->promoted ? g : r->best_before;
    r->phases |= TRAIN_PH_MATCH;
    if (!r->promoted || o->ladder_games <= 0) r->phases |= TRAIN_PH_LADDER;
    say(L, "gen %d vs gen %d: +%llu =%llu -%llu, Elo %+.1f [%+.1f, %+.1f]%s -> %s (%.0fs)", g,
        r->best_before, (unsigned long long)st.w, (unsigned long long)st.d,
        (unsigned long long)st.l, r->elo, r->elo_lo, r->elo_hi,
        o->sprt ? (st.sprt_state == ELO_SPRT_H1   ? ", SPRT H1"
                   : st.sprt_state == ELO_SPRT_H0 ? ", SPRT H0"
                                                  : ", SPRT undecided")
                : "",
        r->promoted ? "promoted" : "not promoted", st.wall_s);
    char path[1200], text[512];
    snprintf(path, sizeof path, "%s/gen-%03d/match.txt", o->dir, g);
    int n = snprintf(text, sizeof text,
                     "gen %d vs gen %d: %d games of %s, W %llu D %llu L %llu, Elo %.2f "
                     "[%.2f, %.2f], %s\n",
                     g, r->best_before, st.games_finished, "mcts", (unsigned long long)st.w,
                     (unsigned long long)st.d, (unsigned long long)st.l, r->elo, r->elo_lo,
                     r->elo_hi, r->promoted ? "promoted" : "not promoted");
    return gk_write_atomic(path, text, (size_t)n, err, errcap);
}

static int phase_ladder(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    match_stats_t st;
    int rc = play_match(L, g, 0, o->ladder_games, false, gk_seed_mix(o->seed, 3 * (uint64_t)g + 3),
                        &st, err, errcap);
    if (rc) return gk_err_wrap(err, errcap, rc, "generation %d ladder match: ", g);
    r->ladder = 1;
    r->lw = st.w;
    r->ld = st.d;
    r->ll = st.l;
    r->lelo = st.elo_ok ? st.elo.elo : NAN;
    r->lelo_lo = st.elo_ok ? st.elo.lo : NAN;
    r->lelo_hi = st.elo_ok ? st.elo.hi : NAN;
    r->phases |= TRAIN_PH_LADDER;
    say(L, "ladder: gen %d vs gen 0: +%llu =%llu -%llu, Elo %+.1f [%+.1f, %+.1f] (%.0fs)", g,
        (unsigned long long)st.w, (unsigned long long)st.d, (unsigned long long)st.l, r->lelo,
        r->lelo_lo, r->lelo_hi, st.wall_s);
    return 0;
}

enum { STEP_DONE = 0, STEP_SELFPLAY, STEP_TUNE, STEP_MATCH, STEP_LADDER, STEP_ERROR };

/* Rank 0: what comes next; opens a new generation record when the last is finished. */
static int next_step(loop_t *L, int *g) {
    train_state_t *s = L->s;
    train_gen_t *last = &s->gen[s->ngen - 1];
    if (last->phases == TRAIN_PH_ALL) {
        if (s->ngen - 1 >= L->o->generations || s->ngen > TRAIN_MAX_GENERATIONS) return STEP_DONE;
        s->gen[s->ngen] = fresh_gen(last->best_after);
        s->ngen++;
        last = &s->gen[s->ngen - 1];
    }
    *g = s->ngen - 1;
    if (!(last->phases & TRAIN_PH_SELFPLAY)) return STEP_SELFPLAY;
    if (!(last->phases & TRAIN_PH_TUNE)) return STEP_TUNE;
    if (!(last->phases & TRAIN_PH_MATCH)) return STEP_MATCH;
    return STEP_LADDER;
}

static int phase_selfplay(loop_t *L, int g, char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    train_gen_t *r = &L->s->gen[g];
    char wpath[1200], logs[1200];
    gen_weights(o->dir, r->best_before, wpath, sizeof wpath);
    gen_logs(o->dir, g, logs, sizeof logs);
    sp_run_opts_t ro;
    memset(&ro, 0, sizeof ro);
    sp_settings_default(&ro.set, o->rules.game);
    ro.set.rules = o->rules;
    ro.set.seed = gk_seed_mix(o->seed, 3 * (uint64_t)g);
    GK_FORWARD_IF(ev_weights_load(wpath, o->rules.game, &ro.set.weights, err, errcap));
    ro.set.mcts = o->mcts;
    ro.set.limits.playouts = (uint64_t)o->playouts;
    ro.set.limits.nodes = o->limits.nodes;
    ro.set.limits.early_stop = o->limits.early_stop;
    ro.set.limits.time_s = 0;
    ro.set.open_kind = o->openings > 0 ? GL_OPEN_RANDOM : GL_OPEN_NONE;
    ro.set.open_turns = o->openings;
    ro.set.resign_on = o->resign > 0;
    ro.set.resign_value = o->resign_value;
    ro.set.resign_share = o->resign_share;
    ro.set.adj_turn = o->adj_turn > 0 ? o->adj_turn : 0;
    ro.set.adj_lead = o->adj_lead;
    ro.set.adj_span = o->adj_span;
    ro.games = (uint64_t)o->games;
    ro.dir = logs;
    ro.games_at_once = L->threads / (o->mcts.threads > 1 ? o->mcts.threads : 1);
    if (ro.games_at_once < 1) ro.games_at_once = 1;
    ro.quiet = o->quiet;
    ro.stats = true;
    ro.stop = o->stop;
    ro.out = stdout;
    sp_summary_t sum;
    memset(&sum, 0, sizeof sum);
    say(L,
        "gen %d self-play: %d games, %d playouts, weights of gen %d, %d rank(s) x %d "
        "thread(s)",
        g, o->games, o->playouts, r->best_before, L->nranks, L->threads);
    int rc = sp_run(&ro, &sum, err, errcap);
    if (sum.mpi_abandoned) {
        L->abandoned = true;
        if (L->o->mpi_abandoned) *L->o->mpi_abandoned = true;
        /* Even when rank 0 finished every game on the ranks left, the loop's next
         * collective would wait for the lost rank: stop here; a rerun resumes the step. */
        if (!rc || !err[0])
            rc = gk_fail(err, errcap, GK_E_STOPPED,
                         "generation %d self-play lost a rank (%llu games played); rerun "
                         "the same command to resume",
                         g, (unsigned long long)sum.games_played);
        return rc;
    }
    if (rc && err[0]) return gk_err_wrap(err, errcap, rc, "generation %d self-play: ", g);
    if (rc) return gk_fail(err, errcap, rc, "generation %d self-play: failed on another rank", g);
    if (L->rank != 0) return 0;
    GK_RETURN_IF(!sum.complete, err, errcap, GK_E_STOPPED,
                 "generation %d self-play stopped before the end; rerun the same command to "
                 "resume",
                 g);
    r->games = sum.games_played;
    r->selfplay_s = sum.seconds;
    r->phases |= TRAIN_PH_SELFPLAY;
    say(L, "gen %d self-play done: %llu games in %.0fs (%.0f games/hour)", g,
        (unsigned long long)sum.games_played, sum.seconds,
        sum.seconds > 0 ? sum.games_played / sum.seconds * 3600 : 0);
    return 0;
}

/* The self-play step: every rank plays; a failure anywhere fails the step everywhere.
 * Ranks other than 0 get a minimal view of the state (the best generation's number). */
static int step_selfplay(loop_t *L, int g, char *err, size_t errcap) {
    int best = L->rank == 0 ? L->s->gen[g].best_before : 0, rc = 0;
    MPI_Bcast(&best, 1, MPI_INT, 0, MPI_COMM_WORLD);
    train_state_t *mine = L->s;
    if (L->rank != 0) {
        mine = calloc(1, sizeof *mine);
        if (!mine) {
            rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        } else {
            mine->ngen = g + 1;
            mine->gen[g].best_before = best;
            L->s = mine;
        }
    }
    if (!rc) rc = phase_selfplay(L, g, err, errcap);
    if (L->rank != 0) {
        free(mine);
        L->s = NULL;
    }
    if (L->abandoned) return rc;
    int any = rc ? 1 : 0, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all && !rc)
        rc = L->rank == 0 ? gk_fail(err, errcap, GK_E_INVALID,
                                    "generation %d self-play failed on another rank", g)
                          : GK_E_INVALID;
    return rc;
}

/* One step of generation g: self-play on every rank, the others on rank 0 while the
 * other ranks wait. */
static int run_step(loop_t *L, int step, int g, char *err, size_t errcap) {
    if (step == STEP_SELFPLAY) return step_selfplay(L, g, err, errcap);
    int rc = 0;
    if (L->rank == 0)
        rc = step == STEP_TUNE    ? phase_tune(L, g, err, errcap)
             : step == STEP_MATCH ? phase_match(L, g, err, errcap)
                                  : phase_ladder(L, g, err, errcap);
    gentle_barrier();
    return rc;
}

/* Rank 0: the next step {step, generation} (STEP_ERROR once something failed). */
static int plan_step(loop_t *L, int msg[2], char *err, size_t errcap) {
    const train_opts_t *o = L->o;
    GK_RETURN_IF(o->stop && *o->stop, err, errcap, GK_E_STOPPED,
                 "stopped by a signal; rerun the same command to resume");
    msg[0] = next_step(L, &msg[1]);
    char d[1100];
    gen_dir(o->dir, msg[1], d, sizeof d);
    if (msg[0] != STEP_DONE) GK_FORWARD_IF(gk_mkdir_p(d, err, errcap));
    return GK_OK;
}

/* Rank 0, after each step: the state file, then the report written from it. */
static int record_step(loop_t *L, char *err, size_t errcap) {
    GK_FORWARD_IF(train_state_save(L->o->dir, L->s, err, errcap));
    return train_report(L->o->dir, L->s, NULL, err, errcap);
}

static int check_opts(const train_opts_t *o, char *err, size_t errcap) {
    GK_RETURN_IF(o->generations < 1 || o->generations > TRAIN_MAX_GENERATIONS || o->games < 1 ||
                     o->playouts < 1 || o->match_games < 2 || o->match_games % 2 || o->window < 1 ||
                     o->ladder_games < 0 || o->ladder_games % 2,
                 err, errcap, GK_E_INVALID,
                 "bad settings: generations 1..%d, games >= 1, playouts >= 1, even match and "
                 "ladder games, window >= 1",
                 TRAIN_MAX_GENERATIONS);
    GK_RETURN_IF(strchr(o->dir, ',') || strchr(o->dir, '='), err, errcap, GK_E_INVALID,
                 "--run: the directory name may not contain ',' or '=' (it goes into player "
                 "specs)");
    return GK_OK;
}

int train_run(const train_opts_t *o_in, char *err, size_t errcap) {
    train_opts_t settled = *o_in;
    train_opts_endings(&settled); /* a caller may leave them at the game's default */
    const train_opts_t *o = &settled;
    loop_t L;
    memset(&L, 0, sizeof L);
    L.o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &L.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &L.nranks);
    L.threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    if (L.threads < 1) L.threads = 1;
    /* Rank 0's phases get the cores of every rank on its node: the others sleep. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    L.threads0 = o->threads0 > 0 ? o->threads0 : L.nranks * L.threads;
    if (o->threads0 <= 0 && online > 0 && L.threads0 > online) L.threads0 = (int)online;
    if (L.threads0 < L.threads) L.threads0 = L.threads;
    err[0] = 0;
    GK_FORWARD_IF(check_opts(o, err, errcap));
    /* Rank 0 owns the state; the others follow its broadcast steps. */
    train_state_t *s = NULL;
    int rc = 0;
    if (L.rank == 0) {
        s = calloc(1, sizeof *s);
        L.s = s;
        if (!s) rc = gk_fail(err, errcap, GK_E_NOMEM, "out of memory");
        /* open_run creates the directory once the start weights are loaded: a bad --from
         * leaves nothing behind. */
        if (!rc) rc = open_run(&L, err, errcap);
    }
    for (;;) {
        int msg[2] = {STEP_ERROR, 0};
        if (L.rank == 0 && rc == 0) rc = plan_step(&L, msg, err, errcap);
        if (rc) msg[0] = STEP_ERROR;
        MPI_Bcast(msg, 2, MPI_INT, 0, MPI_COMM_WORLD);
        if (msg[0] == STEP_DONE) break;
        if (msg[0] == STEP_ERROR) {
            if (L.rank != 0) rc = gk_fail(err, errcap, GK_E_INVALID, "rank 0 failed");
            break;
        }
        int step_rc = run_step(&L, msg[0], msg[1], err, errcap);
        if (L.abandoned) { /* no broadcast: a lost rank would never take it */
            rc = step_rc;
            break;
        }
        if (L.rank == 0) rc = step_rc ? step_rc : record_step(&L, err, errcap);
        /* loop: rank 0 broadcasts STEP_ERROR next when rc != 0 */
    }
    if (L.rank == 0 && rc == 0) {
        if (!o->quiet) printf("\n"); /* after the progress lines; none to separate when quiet */
        rc = train_report(o->dir, s, stdout, err, errcap);
        if (!rc)
            printf("plot: %s/ladder.svg\nreport: %s/report.txt\npage: %s/report.html\nbest "
                   "weights: %s/gen-%03d/weights.txt\n",
                   o->dir, o->dir, o->dir, o->dir, s->gen[s->ngen - 1].best_after);
    }
    free(s);
    return rc;
}
