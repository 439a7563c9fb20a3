/* cli/cmd_tune.c -- `gounki tune`: fit evaluation (and policy) weights to self-play logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/files.h"
#include "../common/progress.h"
#include "../eval/eval.h"
#include "../eval/tune.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_tune_summary[] = "fit evaluation weights to self-play logs";

static const char *const CMD = "tune";

static void usage(FILE *f) {
    fprintf(f, "usage: gounki tune --logs DIR [DIR...] --out FILE [options]\n"
               "\n"
               "Replays every game of the logs, turns the position before each searched action\n"
               "into a sample (evaluation trace from the side to move, target), fits the scale K,\n"
               "then the value weights by mini-batch Adam; --policy also fits the move priors to\n"
               "the stored visit counts.  The new weights go to --out with their provenance.\n"
               "\n"
               "  --logs DIR...      self-play log directories or shard files (repeatable)\n"
               "  --from FILE        start weights (default: the shipped defaults of the game)\n"
               "  --out FILE         where the tuned weights go (written only on success)\n"
               "  --game NAME        gounki (default) or gobs; the logs must be of this game\n"
               "  --threads T        threads (default: all cores); results do not depend on T\n"
               "  --seed S           split and shuffling seed (default 1)\n"
               "  --top N            rows of the table of weights that moved most (default 12)\n"
               "  --quiet            no per-epoch lines\n"
               "the tuner (the same options in 'gounki train'):\n");
    cli_tune_help(f);
}

static void progress(void *ctx, int epoch, double train, double val, double secs) {
    const char *what = ctx;
    printf("  %s epoch %3d  train %.5f  val %.5f  %.1fs\n", what, epoch, train, val, secs);
    fflush(stdout);
}

static void load_progress(void *ctx, uint64_t done, uint64_t total) {
    gk_progress_t *p = ctx;
    if (gk_progress_due(p) || (done == total && p->on_screen))
        gk_progress_line(p, "tune: reading the logs: %llu/%llu games", (unsigned long long)done,
                         (unsigned long long)total);
    if (done == total) gk_progress_end(p); /* before the fit's lines on standard output */
}

typedef struct moved {
    int i;
    double effect;
} moved_t;

static int moved_cmp(const void *a, const void *b) {
    const moved_t *x = a, *y = b;
    if (x->effect != y->effect) return x->effect > y->effect ? -1 : 1;
    return x->i - y->i;
}

/* The weights whose change moves the logit most on average: |dw| * scale * mean|f|. */
static void print_moved(const ev_weights_t *a, const ev_weights_t *b, const tune_run_report_t *r,
                        int top) {
    int nf = a->nvalue;
    moved_t m[EV_MAX_FEATURES];
    for (int j = 0; j < nf; j++)
        m[j] = (moved_t){j, fabs((double)b->value[j] - a->value[j]) * b->scale * r->mean_abs_f[j]};
    qsort(m, (size_t)nf, sizeof *m, moved_cmp);
    printf("weights that moved most (effect = |change| x scale x mean |feature|, in logits):\n");
    printf("  %-28s %10s %10s %10s %8s\n", "feature", "from", "to", "change", "effect");
    for (int k = 0; k < top && k < nf; k++) {
        int j = m[k].i;
        if (a->value[j] == b->value[j]) break;
        printf("  %-28s %10.3f %10.3f %+10.3f %8.4f\n", ev_feature_name(a->game, j), a->value[j],
               b->value[j], (double)b->value[j] - a->value[j], m[k].effect);
    }
    if (r->did_policy) {
        printf("policy weights:\n");
        for (int j = 0; j < a->npolicy; j++)
            if (a->policy[j] != b->policy[j])
                printf("  %-28s %10.3f %10.3f %+10.3f\n", ev_policy_feature_name(a->game, j),
                       a->policy[j], b->policy[j], (double)b->policy[j] - a->policy[j]);
    }
}

static void print_report(const tune_run_opts_t *o, const tune_run_report_t *rep) {
    const tune_data_stats_t *d = &rep->data;
    printf("logs: %llu games, %llu actions; %llu positions (%llu opening and %llu unsearched "
           "actions skipped, %ld duplicates dropped)%s\n",
           (unsigned long long)d->games, (unsigned long long)d->actions,
           (unsigned long long)d->positions, (unsigned long long)d->skipped_opening,
           (unsigned long long)d->skipped_unsearched, rep->dropped,
           d->torn_shards ? " [torn shard tails ignored]" : "");
    printf("samples: %zu train, %zu validation (%.0f%% of games)\n", rep->train_n, rep->val_n,
           100 * o->val_frac);
    double nt = d->threads > 0 ? d->threads : 1;
    printf("speed: load %.0f positions/s with %d threads (%.0f per thread, replay and "
           "decoding included)\n",
           d->secs > 0 ? d->positions / d->secs : 0, d->threads,
           d->secs > 0 ? d->positions / d->secs / nt : 0);
    printf("speed: feature extraction %.0f positions/s per thread (ev_trace)",
           d->trace_secs > 0 ? d->positions / d->trace_secs : 0);
    if (d->candidates)
        printf(", policy %.0f actions/s per thread (ev_policy_trace)",
               d->ptrace_secs > 0 ? d->candidates / d->ptrace_secs : 0);
    printf("\n");
    printf("speed: value gradient %.0f samples/s with %d threads (%.0f per thread), %d epochs "
           "in %.2fs\n",
           rep->value.samples_per_sec, d->threads, rep->value.samples_per_sec / nt,
           rep->value.epochs_run, rep->value.secs);
    if (rep->did_policy)
        printf("speed: policy gradient %.0f samples/s with %d threads (%.0f per thread), %d "
               "epochs in %.2fs\n",
               rep->policy.samples_per_sec, d->threads, rep->policy.samples_per_sec / nt,
               rep->policy.epochs_run, rep->policy.secs);
    printf("scale K: %.6g (start file %.6g)\n", rep->k, rep->k_start);
    printf("value loss (%s): train %.5f -> %.5f, validation %.5f -> %.5f "
           "(start weights as loaded; after the K fit: train %.5f, val %.5f)\n",
           o->fit.loss == TUNE_MSE ? "mse" : "xent", rep->train_start, rep->value.train_after,
           rep->val_start, rep->value.val_after, rep->value.train_before, rep->value.val_before);
    if (rep->did_policy)
        printf("policy loss: %zu train, %zu val; train %.5f -> %.5f, validation %.5f -> %.5f\n",
               rep->ptrain_n, rep->pval_n, rep->policy.train_before, rep->policy.train_after,
               rep->policy.val_before, rep->policy.val_after);
}

enum { O_LOGS = 0x2001, O_FROM, O_OUT, O_TOP };

typedef struct own {
    const char **logs;
    int nlogs;
    const char *from, *out;
    long top;
    bool quiet;
} own_t;

static int own_take(const char *cmd, void *state, int opt, const char *arg) {
    own_t *o = state;
    switch (opt) {
    case O_LOGS: o->logs[o->nlogs++] = arg; return 1;
    case O_FROM: o->from = arg; return 1;
    case O_OUT: o->out = arg; return 1;
    case O_TOP: return cli_parse_long(cmd, "--top", arg, 0, EV_MAX_FEATURES, &o->top) ? -1 : 1;
    }
    return 0;
}

/* Reads the options into o and own.  Returns an exit status, or CLI_HELP. */
static int options(int argc, char **argv, tune_run_opts_t *o, own_t *own, gk_rules_t *rules) {
    static const struct option run_opts[] = {
        CLI_LONGOPT_THREADS, CLI_LONGOPT_SEED, CLI_LONGOPT_QUIET, {0, 0, 0, 0}};
    static const struct option own_opts[] = {{"logs", required_argument, 0, O_LOGS},
                                             {"from", required_argument, 0, O_FROM},
                                             {"out", required_argument, 0, O_OUT},
                                             {"top", required_argument, 0, O_TOP},
                                             {0, 0, 0, 0}};
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    po.allow = CLI_POS_RULES;
    po.why = "of the position options only --game and --variant apply to tuning";
    cli_run_t run;
    cli_run_init(&run, run_opts);
    run.threads = cli_cores();
    const cli_group_t groups[] = {
        cli_pos_group(&po), cli_run_group(&run), cli_tune_group(o), {own_opts, own_take, own}};
    int first, rc = cli_getopt(CMD, argc, argv, groups, 4, -1, &first);
    if (rc) return rc;
    /* `--logs A B C`: the directories after the first arrive as operands */
    for (int i = first; i < argc; i++) own->logs[own->nlogs++] = argv[i];
    if (own->nlogs == 0 || !own->out) {
        cli_error(CMD, "%s is required (see 'gounki tune --help')",
                  own->nlogs ? "--out" : "--logs");
        return CLI_USAGE;
    }
    if ((rc = cli_rules(CMD, &po, rules))) return rc;
    o->fit.threads = o->data.threads = (int)run.threads;
    o->fit.seed = run.seed;
    o->data.game = rules->game;
    o->logs = own->logs;
    o->nlogs = own->nlogs;
    own->quiet = run.quiet;
    mcts_params_t mp;
    mcts_params_default(&mp);
    o->policy_temperature = mp.temperature > 0 ? mp.temperature : 1.0;
    return CLI_OK;
}

int cmd_tune(int argc, char **argv) {
    tune_run_opts_t o;
    tune_run_opts_default(&o);
    own_t own = {calloc((size_t)argc + 1, sizeof(const char *)), 0, NULL, NULL, 12, false};
    if (!own.logs) {
        cli_error(CMD, "out of memory");
        return CLI_FAIL;
    }
    gk_rules_t rules;
    int rc = options(argc, argv, &o, &own, &rules);
    if (rc == CLI_HELP) usage(stdout);
    if (rc) goto end;
    ev_weights_t start, tuned;
    char err[512];
    /* A bad --out is found before the logs are read and the fit runs, not after. */
    if (gk_check_writable(own.out, err, sizeof err)) {
        cli_error(CMD, "--out: %s", err);
        rc = CLI_FAIL;
        goto end;
    }
    if ((rc = cli_load_weights(CMD, "--from", own.from, rules.game, &start))) goto end;
    rc = CLI_FAIL;
    gk_progress_t prog;
    gk_progress_init(&prog, own.quiet ? NULL : stderr, GK_PROGRESS_TTY, GK_PROGRESS_PLAIN);
    if (!own.quiet) {
        o.fit.progress = progress;
        o.fit.ctx = "value";
        o.data.progress = load_progress;
        o.data.progress_ctx = &prog;
    }
    tune_run_report_t rep;
    int trc = tune_run(&o, &start, &tuned, &rep, err, sizeof err);
    gk_progress_end(&prog);
    if (trc) {
        cli_error(CMD, "%s", err);
        goto end;
    }
    print_report(&o, &rep);
    print_moved(&start, &tuned, &rep, (int)own.top);
    char prov[EV_PROVENANCE_MAX];
    tune_provenance(&o, &rep, prov, sizeof prov);
    if (ev_weights_save(own.out, &tuned, prov, err, sizeof err)) {
        cli_error(CMD, "--out: %s", err);
        goto end;
    }
    printf("wrote %s\n", own.out);
    rc = CLI_OK;
end:
    free(own.logs);
    return rc == CLI_HELP ? CLI_OK : rc;
}
