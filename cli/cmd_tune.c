/* cli/cmd_tune.c -- `gounki tune`: fit evaluation (and policy) weights to self-play logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
               "  --target T         result (default), value (search root value) or mix:L\n"
               "                     (L * result + (1 - L) * value)\n"
               "  --loss L           xent (cross-entropy, default) or mse (Texel)\n"
               "  --policy           also fit the policy weights to the visit distributions\n"
               "  --epochs E         at most E passes (default 40)\n"
               "  --batch B          samples per Adam step (default 4096)\n"
               "  --lr X             Adam step in logit units (default 0.01)\n"
               "  --l2 X             penalty on the change from the start weights (default 1e-4)\n"
               "  --patience N       stop after N epochs without a better val loss (default 3)\n"
               "  --val FRAC         share of GAMES held out for validation (default 0.1)\n"
               "  --keep-scale       keep the start file's scale instead of fitting K\n"
               "  --min-positions N  refuse to fit on fewer positions (default 1000)\n"
               "  --threads T        OpenMP threads (default: all); results do not depend on T\n"
               "  --seed S           split and shuffling seed (default 1)\n"
               "  --top N            rows of the table of weights that moved most (default 12)\n"
               "  --quiet            no per-epoch lines\n");
}

static int parse_target(const char *s, tune_data_opts_t *d) {
    if (!strcmp(s, "result")) {
        d->target = TUNE_TARGET_RESULT;
        return 0;
    }
    if (!strcmp(s, "value")) {
        d->target = TUNE_TARGET_VALUE;
        return 0;
    }
    if (!strncmp(s, "mix:", 4)) {
        double l;
        if (cli_parse_double(CMD, "--target mix:L", s + 4, 0, 1, &l)) return -1;
        d->target = TUNE_TARGET_MIX;
        d->mix = l;
        return 0;
    }
    cli_error(CMD, "--target: '%s' is not result, value or mix:L", s);
    return -1;
}

static void progress(void *ctx, int epoch, double train, double val, double secs) {
    const char *what = ctx;
    printf("  %s epoch %3d  train %.5f  val %.5f  %.1fs\n", what, epoch, train, val, secs);
    fflush(stdout);
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

int cmd_tune(int argc, char **argv) {
    enum {
        O_LOGS = 0x2000,
        O_FROM,
        O_OUT,
        O_TARGET,
        O_LOSS,
        O_POLICY,
        O_EPOCHS,
        O_BATCH,
        O_LR,
        O_L2,
        O_PATIENCE,
        O_VAL,
        O_KEEP,
        O_MIN,
        O_THREADS,
        O_SEED,
        O_TOP,
        O_QUIET,
        O_HELP
    };
    static const struct option opts[] = {
        {"logs", required_argument, 0, O_LOGS},
        {"from", required_argument, 0, O_FROM},
        {"out", required_argument, 0, O_OUT},
        {"target", required_argument, 0, O_TARGET},
        {"loss", required_argument, 0, O_LOSS},
        {"policy", no_argument, 0, O_POLICY},
        {"epochs", required_argument, 0, O_EPOCHS},
        {"batch", required_argument, 0, O_BATCH},
        {"lr", required_argument, 0, O_LR},
        {"l2", required_argument, 0, O_L2},
        {"patience", required_argument, 0, O_PATIENCE},
        {"val", required_argument, 0, O_VAL},
        {"keep-scale", no_argument, 0, O_KEEP},
        {"min-positions", required_argument, 0, O_MIN},
        {"threads", required_argument, 0, O_THREADS},
        {"seed", required_argument, 0, O_SEED},
        {"top", required_argument, 0, O_TOP},
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},
        CLI_POS_LONGOPTS,
        {0, 0, 0, 0},
    };
    tune_run_opts_t o;
    tune_run_opts_default(&o);
    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    const char **logs = calloc((size_t)argc + 1, sizeof *logs);
    if (!logs) {
        cli_error(CMD, "out of memory");
        return CLI_FAIL;
    }
    int nlogs = 0, quiet = 0, rc = CLI_USAGE;
    long top = 12, v;
    const char *from = NULL, *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option(CMD, &po, c, optarg);
        if (r < 0) goto end;
        if (r > 0) {
            if (c != CLI_OPT_GAME && c != CLI_OPT_VARIANT) {
                cli_error(CMD, "only --game and --variant of the position options apply");
                goto end;
            }
            continue;
        }
        switch (c) {
        case O_LOGS: logs[nlogs++] = optarg; break;
        case O_FROM: from = optarg; break;
        case O_OUT: out = optarg; break;
        case O_TARGET:
            if (parse_target(optarg, &o.data)) goto end;
            break;
        case O_LOSS:
            if (!strcmp(optarg, "xent"))
                o.fit.loss = TUNE_XENT;
            else if (!strcmp(optarg, "mse"))
                o.fit.loss = TUNE_MSE;
            else {
                cli_error(CMD, "--loss: '%s' is not xent or mse", optarg);
                goto end;
            }
            break;
        case O_POLICY: o.data.policy = 1; break;
        case O_EPOCHS:
            if (cli_parse_long(CMD, "--epochs", optarg, 0, 100000, &v)) goto end;
            o.fit.epochs = (int)v;
            break;
        case O_BATCH:
            if (cli_parse_long(CMD, "--batch", optarg, 1, 1 << 24, &v)) goto end;
            o.fit.batch = (int)v;
            break;
        case O_LR:
            if (cli_parse_double(CMD, "--lr", optarg, 1e-9, 100, &o.fit.lr)) goto end;
            break;
        case O_L2:
            if (cli_parse_double(CMD, "--l2", optarg, 0, 1e6, &o.fit.l2)) goto end;
            break;
        case O_PATIENCE:
            if (cli_parse_long(CMD, "--patience", optarg, 1, 100000, &v)) goto end;
            o.fit.patience = (int)v;
            break;
        case O_VAL:
            if (cli_parse_double(CMD, "--val", optarg, 0, 0.9, &o.val_frac)) goto end;
            break;
        case O_KEEP: o.fit_k = 0; break;
        case O_MIN:
            if (cli_parse_long(CMD, "--min-positions", optarg, 1, 1L << 40, &o.min_positions))
                goto end;
            break;
        case O_THREADS:
            if (cli_parse_long(CMD, "--threads", optarg, 1, 1024, &v)) goto end;
            o.fit.threads = o.data.threads = (int)v;
            break;
        case O_SEED:
            if (cli_parse_u64(CMD, "--seed", optarg, &o.fit.seed)) goto end;
            break;
        case O_TOP:
            if (cli_parse_long(CMD, "--top", optarg, 0, EV_MAX_FEATURES, &top)) goto end;
            break;
        case O_QUIET: quiet = 1; break;
        case 'h':
        case O_HELP:
            usage(stdout);
            rc = CLI_OK;
            goto end;
        default: rc = cli_bad_option(CMD, argc, argv); goto end;
        }
    }
    /* `--logs A B C`: the directories after the first arrive as operands */
    for (int i = optind; i < argc; i++) logs[nlogs++] = argv[i];
    if (nlogs == 0 || !out) {
        cli_error(CMD, "%s is required (see 'gounki tune --help')", nlogs ? "--out" : "--logs");
        goto end;
    }
    gk_rules_t rules;
    if ((rc = cli_rules(CMD, &po, &rules))) goto end;
    o.data.game = rules.game;
    o.logs = logs;
    o.nlogs = nlogs;
    {
        mcts_params_t mp;
        mcts_params_default(&mp);
        o.policy_temperature = mp.temperature > 0 ? mp.temperature : 1.0;
    }

    ev_weights_t start, tuned;
    char err[512];
    rc = CLI_FAIL;
    if (from) {
        if (ev_weights_load(from, rules.game, &start, err, sizeof err)) {
            cli_error(CMD, "--from: %s", err);
            goto end;
        }
    } else {
        ev_weights_default(rules.game, &start);
    }
    if (!quiet) {
        o.fit.progress = progress;
        o.fit.ctx = "value";
    }
    tune_run_report_t rep;
    int trc = tune_run(&o, &start, &tuned, &rep, err, sizeof err);
    if (trc) {
        cli_error(CMD, "%s", err);
        goto end;
    }
    const tune_data_stats_t *d = &rep.data;
    printf("logs: %llu games, %llu actions; %llu positions (%llu opening and %llu unsearched "
           "actions skipped, %ld duplicates dropped)%s\n",
           (unsigned long long)d->games, (unsigned long long)d->actions,
           (unsigned long long)d->positions, (unsigned long long)d->skipped_opening,
           (unsigned long long)d->skipped_unsearched, rep.dropped,
           d->torn_shards ? " [torn shard tails ignored]" : "");
    printf("samples: %zu train, %zu validation (%.0f%% of games)\n", rep.train_n, rep.val_n,
           100 * o.val_frac);
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
           rep.value.samples_per_sec, d->threads, rep.value.samples_per_sec / nt,
           rep.value.epochs_run, rep.value.secs);
    if (rep.did_policy)
        printf("speed: policy gradient %.0f samples/s with %d threads (%.0f per thread), %d "
               "epochs in %.2fs\n",
               rep.policy.samples_per_sec, d->threads, rep.policy.samples_per_sec / nt,
               rep.policy.epochs_run, rep.policy.secs);
    printf("scale K: %.6g (start file %.6g)\n", rep.k, rep.k_start);
    printf("value loss (%s): train %.5f -> %.5f, validation %.5f -> %.5f "
           "(start weights as loaded; after the K fit: train %.5f, val %.5f)\n",
           o.fit.loss == TUNE_MSE ? "mse" : "xent", rep.train_start, rep.value.train_after,
           rep.val_start, rep.value.val_after, rep.value.train_before, rep.value.val_before);
    if (rep.did_policy)
        printf("policy loss: %zu train, %zu val; train %.5f -> %.5f, validation %.5f -> %.5f\n",
               rep.ptrain_n, rep.pval_n, rep.policy.train_before, rep.policy.train_after,
               rep.policy.val_before, rep.policy.val_after);
    print_moved(&start, &tuned, &rep, (int)top);

    char prov[EV_PROVENANCE_MAX];
    tune_provenance(&o, &rep, prov, sizeof prov);
    if (ev_weights_save(out, &tuned, prov, err, sizeof err)) {
        cli_error(CMD, "--out: %s", err);
        goto end;
    }
    printf("wrote %s\n", out);
    rc = CLI_OK;
end:
    free(logs);
    return rc;
}
