/* cli/cmd_analyse.c -- `gounki analyse`: search one position and report what the MCTS thinks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "../eval/eval.h"
#include "../search/mcts.h"
#include "cli.h"

const char cmd_analyse_summary[] = "search a position: best move, win probability, PV, top moves";

static const char help[] =
    "usage: gounki analyse [--game G] [--position P] [--moves \"...\"] [--playouts N | --time S]\n"
    "                      [--threads T] [--weights FILE] [--json] [--top K] [search options]\n"
    "Searches the position with the MCTS and prints the best action, the win probability of\n"
    "the side to move, the principal variation and the most visited actions with their\n"
    "visits, value and prior.  Proven results (win/loss/draw in N actions) are "
    "shown.\n" CLI_POS_HELP "  --playouts N       playouts (default 1000 unless --time is given)\n"
    "  --time S           seconds to think\n"
    "  --threads T        search threads (default 1)\n"
    "  --weights FILE     evaluation weights (default: the shipped defaults of the game)\n"
    "  --top K            actions listed (default 10)\n"
    "  --json             one JSON object on stdout instead of text\n"
    "  --set NAME=VALUE   any search parameter by name (repeatable):\n";

static int json_str(FILE *f, const char *s) {
    gk_sb_t b;
    gk_sb_growing(&b);
    gk_sb_put_json(&b, s);
    int rc = b.over ? EOF : fputs(b.p, f);
    gk_sb_free(&b);
    return rc;
}

static const char *proof_name(int p) {
    switch (p) {
    case MCTS_PROVEN_WIN: return "win";
    case MCTS_PROVEN_LOSS: return "loss";
    case MCTS_PROVEN_DRAW: return "draw";
    default: return "none";
    }
}

static void act_text(const gk_pos_t *p, gk_action_t a, char *buf, size_t cap) {
    if (gk_game_of(p)->action_text(p, a, buf, cap) < 0) snprintf(buf, cap, "?");
}

/* Flags that map to a search parameter of the same name with '-' for '_'. */
enum { OPT_SET = 0x2000, OPT_JSON, OPT_TOP, OPT_WEIGHTS, OPT_PARAM };
static const char *const param_flags[] = {"playouts",      "time",        "threads",      "seed",
                                          "tree-mb",       "parallel",    "c-puct",       "fpu",
                                          "playout-depth", "temperature", "virtual-loss", "nodes",
                                          "clock",         "inc",         "early-stop",   "solver"};
#define NPARAM_FLAGS ((int)(sizeof param_flags / sizeof param_flags[0]))

static int set_param(mcts_params_t *mp, mcts_limits_t *ml, const char *name, const char *val) {
    char key[64], err[160];
    size_t n = strlen(name);
    if (n >= sizeof key) {
        cli_error("analyse", "unknown search parameter '%s'", name);
        return -1;
    }
    for (size_t i = 0; i <= n; i++) key[i] = name[i] == '-' ? '_' : name[i];
    int r = mcts_params_set(mp, ml, key, val, err, sizeof err);
    if (r < 0)
        cli_error("analyse", "%s", err);
    else if (r == 0)
        cli_error("analyse", "unknown search parameter '%s'", name);
    return r > 0 ? 0 : -1;
}

int cmd_analyse(int argc, char **argv) {
    const struct option base[] = {CLI_POS_LONGOPTS,
                                  {"set", required_argument, 0, OPT_SET},
                                  {"json", no_argument, 0, OPT_JSON},
                                  {"top", required_argument, 0, OPT_TOP},
                                  {"weights", required_argument, 0, OPT_WEIGHTS},
                                  {"help", no_argument, 0, 'h'}};
    enum { NBASE = sizeof base / sizeof base[0] };
    struct option opts[NBASE + NPARAM_FLAGS + 1];
    int no = NBASE;
    memcpy(opts, base, sizeof base);
    for (int i = 0; i < NPARAM_FLAGS; i++)
        opts[no++] = (struct option){param_flags[i], required_argument, 0, OPT_PARAM + i};
    opts[no] = (struct option){0, 0, 0, 0};

    cli_pos_opts_t po;
    cli_pos_defaults(&po);
    mcts_params_t mp;
    mcts_limits_t ml;
    mcts_params_default(&mp);
    mcts_limits_default(&ml);
    int json = 0, playouts_set = 0, time_set = 0;
    long top = 10;
    const char *wfile = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int r = cli_pos_option("analyse", &po, c, optarg);
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (c >= OPT_PARAM && c < OPT_PARAM + NPARAM_FLAGS) {
            const char *name = param_flags[c - OPT_PARAM];
            if (set_param(&mp, &ml, name, optarg)) return CLI_USAGE;
            playouts_set |= !strcmp(name, "playouts");
            time_set |= !strcmp(name, "time") || !strcmp(name, "clock");
            continue;
        }
        switch (c) {
        case 'h':
            fputs(help, stdout);
            fputs(mcts_params_help(), stdout);
            return CLI_OK;
        case OPT_JSON: json = 1; break;
        case OPT_TOP:
            if (cli_parse_long("analyse", "--top", optarg, 0, GK_MAX_ACTIONS, &top))
                return CLI_USAGE;
            break;
        case OPT_WEIGHTS: wfile = optarg; break;
        case OPT_SET: {
            const char *eq = strchr(optarg, '=');
            char name[64];
            if (!eq || (size_t)(eq - optarg) >= sizeof name || eq == optarg) {
                cli_error("analyse", "--set: expected NAME=VALUE, got '%s'", optarg);
                return CLI_USAGE;
            }
            memcpy(name, optarg, (size_t)(eq - optarg));
            name[eq - optarg] = '\0';
            if (set_param(&mp, &ml, name, eq + 1)) return CLI_USAGE;
            playouts_set |= !strcmp(name, "playouts");
            time_set |= !strcmp(name, "time") || !strcmp(name, "clock");
            break;
        }
        default: return cli_bad_option("analyse", argc, argv);
        }
    }
    if (optind != argc) {
        cli_error("analyse", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    if (time_set && !playouts_set) ml.playouts = 0;

    gk_pos_t pos;
    gk_hist_t *hist = malloc(sizeof *hist);
    mcts_result_t *res = malloc(sizeof *res);
    ev_weights_t *w = malloc(sizeof *w);
    mcts_t *m = NULL;
    int rc = CLI_FAIL;
    if (!hist || !res || !w) {
        cli_error("analyse", "out of memory");
        goto done;
    }
    rc = cli_load_position("analyse", &po, &pos, hist);
    if (rc) goto done;
    rc = CLI_FAIL;
    if (gk_over(&pos)) {
        cli_error("analyse", "the game is over (%s, %s)", gk_result_text(pos.result),
                  gk_reason_text(pos.reason));
        goto done;
    }
    char err[512];
    if (wfile) {
        if (ev_weights_load(wfile, pos.game, w, err, sizeof err)) {
            cli_error("analyse", "--weights: %s", err);
            goto done;
        }
    } else if (ev_weights_default(pos.game, w)) {
        cli_error("analyse", "no default weights for this game");
        goto done;
    }
    m = mcts_new(&mp, w);
    if (!m) {
        cli_error("analyse", "cannot create the search (out of memory for --tree-mb %d?)",
                  mp.tree_mb);
        goto done;
    }
    if (mcts_search(m, &pos, hist, &ml, res) < 0) {
        cli_error("analyse", "the side to move has no legal action");
        goto done;
    }
    const gk_game_t *g = gk_game_of(&pos);
    char ptext[GK_POS_TEXT_MAX], buf[GK_MOVE_TEXT_MAX];
    if (g->pos_to_text(&pos, ptext, sizeof ptext) < 0) snprintf(ptext, sizeof ptext, "?");
    char pv[MCTS_MAX_PV][GK_MOVE_TEXT_MAX];
    gk_pos_t q = pos;
    for (int i = 0; i < res->pv_len; i++) {
        act_text(&q, res->pv[i], pv[i], sizeof pv[i]);
        gk_play(&q, res->pv[i]);
    }
    double rate = res->seconds > 0 ? (double)res->playouts / res->seconds : 0.0;
    int shown = res->nchildren < top ? res->nchildren : (int)top;
    act_text(&pos, res->best, buf, sizeof buf);
    if (json) {
        printf("{\"game\":");
        json_str(stdout, g->name);
        printf(",\"position\":");
        json_str(stdout, ptext);
        printf(",\"best\":");
        json_str(stdout, buf);
        printf(",\"value\":%.4f,\"playouts\":%llu,\"nodes\":%llu,\"reused\":%llu,"
               "\"seconds\":%.4f,\"playouts_per_s\":%.0f,\"depth_max\":%d,\"proof\":\"%s\","
               "\"proof_plies\":%d,\"tree_full\":%s,\"stopped_early\":%s,\"pv\":[",
               (double)res->value, (unsigned long long)res->playouts,
               (unsigned long long)res->nodes, (unsigned long long)res->reused, res->seconds, rate,
               res->depth_max, proof_name(res->proof), res->proof_plies,
               res->tree_full ? "true" : "false", res->stopped_early ? "true" : "false");
        for (int i = 0; i < res->pv_len; i++) {
            if (i) putchar(',');
            json_str(stdout, pv[i]);
        }
        printf("],\"moves\":[");
        for (int i = 0; i < shown; i++) {
            const mcts_child_t *ch = &res->children[i];
            act_text(&pos, ch->action, buf, sizeof buf);
            printf("%s{\"move\":", i ? "," : "");
            json_str(stdout, buf);
            printf(",\"visits\":%u,\"value\":", ch->visits);
            if (ch->visits || ch->proof != MCTS_UNPROVEN)
                printf("%.4f", (double)ch->value);
            else
                printf("null");
            printf(",\"prior\":%.4f,\"proof\":\"%s\",\"plies\":%d}", (double)ch->prior,
                   proof_name(ch->proof), ch->plies);
        }
        printf("]}\n");
    } else {
        printf("position  %s\n", ptext);
        printf("best      %s\n", buf);
        printf("value     %.3f (win probability of %s to move)\n", (double)res->value,
               pos.stm == GK_WHITE ? "White" : "Black");
        if (res->proof != MCTS_UNPROVEN)
            printf("proven    %s%s in %d action%s\n", proof_name(res->proof),
                   res->proof == MCTS_PROVEN_DRAW ? "" : "", res->proof_plies,
                   res->proof_plies == 1 ? "" : "s");
        printf("pv       ");
        for (int i = 0; i < res->pv_len; i++) printf(" %s", pv[i]);
        printf("\nsearch    %llu playouts (%llu reused), %llu nodes, depth %d, %.3f s, %.0f "
               "playouts/s%s%s\n",
               (unsigned long long)res->playouts, (unsigned long long)res->reused,
               (unsigned long long)res->nodes, res->depth_max, res->seconds, rate,
               res->tree_full ? ", tree full" : "", res->stopped_early ? ", stopped early" : "");
        printf("%-24s %8s %7s %7s  %s\n", "move", "visits", "value", "prior", "proof");
        for (int i = 0; i < shown; i++) {
            const mcts_child_t *ch = &res->children[i];
            act_text(&pos, ch->action, buf, sizeof buf);
            printf("%-24s %8u ", buf, ch->visits);
            if (ch->visits || ch->proof != MCTS_UNPROVEN)
                printf("%7.3f", (double)ch->value);
            else
                printf("%7s", "-");
            printf(" %7.3f", (double)ch->prior);
            if (ch->proof != MCTS_UNPROVEN) printf("  %s in %d", proof_name(ch->proof), ch->plies);
            putchar('\n');
        }
    }
    rc = CLI_OK;
done:
    mcts_free(m);
    free(w);
    free(res);
    free(hist);
    return rc;
}
