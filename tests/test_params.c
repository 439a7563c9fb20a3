/*
 * tests/test_params.c -- values, NAME=VALUE lists, the search parameter table, specs.
 *
 * Typed values and lists (search/params.h), the parameter table of search/mcts.h
 * (defaults, setter, help, configs) and player specs checked without being built.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "search/mcts.h"
#include "search/params.h"
#include "search/player.h"
#include "check.h"

static void values(void) {
    char err[200];
    long long n;
    uint64_t u;
    double x;
    bool b;
    int k;
    CHECK(params_int("42", 0, 100, &n, err, sizeof err) == 0 && n == 42, "int");
    CHECK(params_int("-3", -5, 5, &n, err, sizeof err) == 0 && n == -3, "negative int");
    CHECK(params_int("101", 0, 100, &n, err, sizeof err) < 0 &&
              !strcmp(err, "101 is out of range [0, 100]"),
          "int range: '%s'", err);
    CHECK(params_int("1.5", 0, 100, &n, err, sizeof err) < 0 &&
              !strcmp(err, "'1.5' is not an integer in [0, 100]"),
          "int syntax: '%s'", err);
    CHECK(params_int("1e3", 0, 10000, &n, err, sizeof err) < 0, "1e3 is not an integer");
    CHECK(params_int(" 5", 0, 10, &n, err, sizeof err) < 0, "leading space");
    CHECK(params_int("5 ", 0, 10, &n, err, sizeof err) < 0, "trailing space");
    CHECK(params_int("", 0, 10, &n, err, sizeof err) < 0, "empty int");
    CHECK(params_int("99999999999999999999", 0, 10, &n, err, sizeof err) < 0 &&
              strstr(err, "out of range [0, 10]"),
          "int overflow: '%s'", err);
    CHECK(params_u64("18446744073709551615", 0, UINT64_MAX, &u, err, sizeof err) == 0 &&
              u == UINT64_MAX,
          "u64 max");
    CHECK(params_u64("-1", 0, 10, &u, err, sizeof err) < 0 &&
              !strcmp(err, "-1 is out of range [0, 10]"),
          "u64 negative: '%s'", err);
    CHECK(params_u64("+1", 0, 10, &u, err, sizeof err) < 0, "u64 sign");
    CHECK(params_double("0.25", 0, 1, &x, err, sizeof err) == 0 && x == 0.25, "double");
    CHECK(params_double("2", 0, 1, &x, err, sizeof err) < 0 &&
              !strcmp(err, "2 is out of range [0, 1]"),
          "double range: '%s'", err);
    CHECK(params_double("nan", 0, 1, &x, err, sizeof err) < 0 &&
              !strcmp(err, "'nan' is not a number in [0, 1]"),
          "nan: '%s'", err);
    CHECK(params_double("inf", -1e9, 1e9, &x, err, sizeof err) < 0, "inf");
    CHECK(params_double("0.5x", 0, 1, &x, err, sizeof err) < 0, "trailing text");
    CHECK(params_bool("off", &b, err, sizeof err) == 0 && !b, "off");
    CHECK(params_bool("yes", &b, err, sizeof err) == 0 && b, "yes");
    CHECK(params_bool("maybe", &b, err, sizeof err) < 0 && strstr(err, "maybe"), "maybe");
    CHECK(params_choice("root", "tree|root", &k, err, sizeof err) == 0 && k == 1, "choice");
    CHECK(params_choice("tre", "tree|root", &k, err, sizeof err) < 0 &&
              !strcmp(err, "'tre' is not one of tree, root"),
          "choice prefix: '%s'", err);
}

typedef struct seen {
    char names[8][32], values[8][32];
    int n;
} seen_t;

/* Takes a, b and c; "bad" values are refused. */
static int take(void *ctx, const char *name, const char *value, char *err, size_t cap) {
    seen_t *s = ctx;
    if (strcmp(name, "a") && strcmp(name, "b") && strcmp(name, "c")) return 0;
    if (!strcmp(value, "bad")) {
        snprintf(err, cap, "'bad' is not good");
        return -1;
    }
    snprintf(s->names[s->n], sizeof s->names[0], "%s", name);
    snprintf(s->values[s->n++], sizeof s->values[0], "%s", value);
    return 1;
}

static void bad_list(const char *list, const char *want) {
    seen_t s = {.n = 0};
    char err[200] = "";
    int r = params_list(list, take, &s, err, sizeof err);
    CHECK(r < 0 && strstr(err, want) && !strchr(err, '\n'), "list '%s': '%s' lacks '%s'", list, err,
          want);
}

static void lists(void) {
    seen_t s = {.n = 0};
    char err[200] = "";
    CHECK(params_list("a=1,b=x y,c=/p/q", take, &s, err, sizeof err) == 0 && s.n == 3 &&
              !strcmp(s.values[1], "x y") && !strcmp(s.values[2], "/p/q"),
          "good list: %s", err);
    bad_list("", "empty list");
    bad_list("a=1,,b=2", "empty item 2");
    bad_list(",a=1", "empty item 1");
    bad_list("a=1,", "empty item 2");
    bad_list("a", "'a' is not NAME=VALUE");
    bad_list("=1", "is not NAME=VALUE");
    bad_list("a=", "is not NAME=VALUE");
    bad_list("a=1=2", "a: the value contains '='");
    bad_list("a=1,a=2", "'a' is given twice");
    bad_list("d=1", "unknown parameter 'd'");
    bad_list("a=1,b=bad", "b: 'bad' is not good");
    bad_list("a=\t1", "control character");
    char big[PARAMS_LIST_MAX + 8];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    bad_list(big, "longer than");
}

static void table(void) {
    mcts_params_t p;
    mcts_limits_t l;
    mcts_params_default(&p);
    mcts_limits_default(&l);
    /* The defaults the search had before the table (mcts_params_default's old body). */
    CHECK(p.c_puct == 1.0f && p.fpu == 0.0f && p.temperature == 1.0f && p.playout_depth == 0 &&
              p.playout == MCTS_PLAYOUT_POLICY && p.use_eval && p.use_priors && p.solver &&
              p.virtual_loss == 1 && p.threads == 1 && p.parallel == MCTS_PAR_TREE &&
              p.tree_mb == 256 && p.seed == 1 && p.noise_alpha == 0.3f && p.noise_frac == 0.0f &&
              p.reuse,
          "parameter defaults");
    CHECK(l.playouts == MCTS_DEFAULT_PLAYOUTS && l.nodes == 0 && l.time_s == 0 && l.clock_s == 0 &&
              l.inc_s == 0 && l.early_stop && l.clock_moves == 10 && l.extend == 3,
          "limit defaults");
    char err[200], help[MCTS_HELP_MAX];
    int n = mcts_params_help(help, sizeof help, NULL, NULL);
    CHECK(n > 0 && n < (int)sizeof help, "help fits");
    for (int i = 0; i < mcts_param_count(); i++) {
        const mcts_param_info_t *r = mcts_param_at(i);
        char key[64];
        snprintf(key, sizeof key, "  %s=", r->name);
        CHECK(strstr(help, key) != NULL, "help lacks %s", r->name);
        CHECK(mcts_param_find(r->name) == i, "find %s", r->name);
        CHECK(strlen(r->help) > 0, "%s has no help", r->name);
    }
    CHECK(strstr(help, "  parallel=tree ") && strstr(help, "  solver=on "), "help values");
    CHECK(mcts_param_find("temperature") == mcts_param_find("prior_temperature"), "alias");
    CHECK(mcts_params_set(&p, &l, "temperature", "2", err, sizeof err) == 1 && p.temperature == 2,
          "temperature alias sets the prior temperature");
    CHECK(mcts_params_set(&p, &l, "seed", "18446744073709551615", err, sizeof err) == 1 &&
              p.seed == UINT64_MAX,
          "full 64-bit seed");
    CHECK(mcts_params_set(&p, &l, "fpu", "5", err, sizeof err) == -1 &&
              !strcmp(err, "5 is out of range [-1, 1]"),
          "fpu range: '%s'", err);
    CHECK(mcts_params_set(&p, &l, "playouts", "1e3", err, sizeof err) == -1, "playouts 1e3");
    /* Another view of the help: the values of a given configuration. */
    p.tree_mb = 512;
    l.playouts = 5000;
    mcts_params_help(help, sizeof help, &p, &l);
    CHECK(strstr(help, "  tree_mb=512 ") && strstr(help, "  playouts=5000 "), "help of p and l");
}

static void configs(void) {
    mcts_config_t c;
    char err[200];
    mcts_config_init(&c, NULL, NULL);
    CHECK(mcts_config_set_list(&c, "c_puct=2,threads=3,parallel=root", err, sizeof err) == 0 &&
              c.p.c_puct == 2 && c.p.threads == 3 && c.p.parallel == MCTS_PAR_ROOT,
          "list: %s", err);
    CHECK(mcts_config_set(&c, "c_puct", "3", err, sizeof err) == -1 && c.p.c_puct == 2,
          "a parameter set twice across options");
    CHECK(mcts_config_set_list(&c, "fpu=0.1,fpu=0.2", err, sizeof err) == -1 &&
              strstr(err, "given twice"),
          "twice in a list: %s", err);
    CHECK(mcts_config_set_list(&c, "nope=1", err, sizeof err) == -1 &&
              strstr(err, "unknown parameter 'nope'"),
          "unknown: %s", err);
    /* time alone: no playout limit; time and playouts: both */
    mcts_config_init(&c, NULL, NULL);
    mcts_config_set_list(&c, "time=0.5", err, sizeof err);
    CHECK(mcts_config_finish(&c, err, sizeof err) == 0, "finish: %s", err);
    CHECK(c.l.playouts == 0 && c.l.time_s == 0.5 && !c.l.early_stop,
          "time alone: no playout limit, the whole time (early_stop off)");
    mcts_config_init(&c, NULL, NULL);
    mcts_config_set_list(&c, "time=0.5,early_stop=on", err, sizeof err);
    CHECK(mcts_config_finish(&c, err, sizeof err) == 0, "finish: %s", err);
    CHECK(c.l.playouts == 0 && c.l.early_stop, "time alone with early_stop=on");
    mcts_config_init(&c, NULL, NULL);
    mcts_config_set_list(&c, "time=0.5,playouts=10", err, sizeof err);
    CHECK(mcts_config_finish(&c, err, sizeof err) == 0, "finish: %s", err);
    CHECK(c.l.playouts == 10 && c.l.time_s == 0.5 && c.l.early_stop, "time and playouts");
    mcts_config_init(&c, NULL, NULL);
    mcts_config_set_list(&c, "clock=60,inc=1", err, sizeof err);
    CHECK(mcts_config_finish(&c, err, sizeof err) == 0, "finish: %s", err);
    CHECK(c.l.playouts == 0 && c.l.clock_s == 60 && c.l.inc_s == 1 && c.l.early_stop,
          "clock alone (early stop on: the time saved goes to later moves)");
    /* zero is "no limit": playouts=0 or time=0 alone leaves no budget and is refused */
    const char *none[] = {"playouts=0", "time=0", "time=0,playouts=0"};
    for (int i = 0; i < 3; i++) {
        mcts_config_init(&c, NULL, NULL);
        mcts_config_set_list(&c, none[i], err, sizeof err);
        CHECK(mcts_config_finish(&c, err, sizeof err) != 0 && strstr(err, "no budget"),
              "%s alone accepted (%s)", none[i], err);
    }
    mcts_config_init(&c, NULL, NULL);
    mcts_config_set_list(&c, "playouts=0,time=1", err, sizeof err);
    CHECK(mcts_config_finish(&c, err, sizeof err) == 0, "playouts=0 with time: %s", err);
}

static void bad_spec(const char *spec, const char *want) {
    char err[256] = "";
    int r = player_check_spec(spec, GK_GAME_GOUNKI, err, sizeof err);
    CHECK(r < 0 && strstr(err, want) && !strchr(err, '\n'), "spec '%s': '%s' lacks '%s'", spec, err,
          want);
}

static void specs(void) {
    char err[256];
    /* A spec that parses passes the check without its weight file being read. */
    CHECK(player_check_spec("mcts:weights=/nonexistent/w.txt,playouts=5", GK_GAME_GOUNKI, err,
                            sizeof err) == 0,
          "check reads no file: %s", err);
    CHECK(player_new("mcts:weights=/nonexistent/w.txt", GK_GAME_GOUNKI, err, sizeof err) == NULL &&
              strstr(err, "weights"),
          "player_new reads it: %s", err);
    CHECK(player_check_spec("ab:depth=2,eval=classic", GK_GAME_GOBS, err, sizeof err) == 0, "ab");
    bad_spec("mcts:c_puct=1,,fpu=0", "empty item 2");
    bad_spec("mcts:playouts=10,playouts=20", "given twice");
    bad_spec("mcts:temperature=1,prior_temperature=2", "prior_temperature");
    bad_spec("mcts:fpu=2", "fpu: 2 is out of range [-1, 1]");
    bad_spec("ab:depth=99", "depth: 99 is out of range [1, ");
    bad_spec("ab:time=0", "time: 0 is out of range");
    bad_spec("greedy:eval=best", "'best' is not one of classic, ours");
    bad_spec("greedy:depth=2", "unknown parameter 'depth'");
    bad_spec("random:x=1", "takes no parameters");
    bad_spec("mcts:", "nothing after ':'");
}

int main(void) {
    gk_init();
    values();
    lists();
    table();
    configs();
    specs();
    if (!check_failures) printf("test_params: all passed\n");
    return check_exit("test_params");
}
