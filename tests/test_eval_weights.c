/*
 * tests/test_eval_weights.c -- weight vectors and weight files: names, defaults, the text
 * format (round trip, load by name, every rejection), atomic save, hash, and that the
 * shipped weights/<game>-default.txt files equal the built-in defaults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/eval.h"
#include "games/game.h"
#include "check.h"

static int parse(const char *text, int game, ev_weights_t *w, char *err, size_t cap) {
    return ev_weights_parse(text, strlen(text), "t", game, w, err, cap);
}

/* Expects text to be rejected with a message containing `needle`. */
static void expect_error(const char *text, int game, const char *needle) {
    ev_weights_t w;
    char err[256];
    int rc = parse(text, game, &w, err, sizeof err);
    CHECK(rc == -1, "accepted bad text (%s expected): %.60s", needle, text);
    CHECK(rc == 0 || strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

static void test_names(int g) {
    int n = ev_num_features(g), np = ev_policy_num_features(g);
    CHECK(n > 0 && n <= EV_MAX_FEATURES, "game %d: %d value features", g, n);
    CHECK(np > 0 && np <= EV_MAX_POLICY, "game %d: %d policy features", g, np);
    for (int i = 0; i < n; i++) {
        const char *s = ev_feature_name(g, i);
        CHECK(s && ev_feature_index(g, s) == i, "game %d: value name %d not unique", g, i);
        CHECK(ev_policy_feature_index(g, s) < 0, "game %d: '%s' is both value and policy", g, s);
        for (const char *c = s; *c; c++)
            CHECK((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_',
                  "bad character in '%s'", s);
    }
    for (int i = 0; i < np; i++) {
        const char *s = ev_policy_feature_name(g, i);
        CHECK(s && ev_policy_feature_index(g, s) == i, "game %d: policy name %d not unique", g, i);
    }
    CHECK(ev_feature_name(g, n) == NULL && ev_feature_name(g, -1) == NULL, "out of range name");
    CHECK(ev_num_features(99) == 0 && ev_feature_name(99, 0) == NULL, "unknown game");
}

static void test_round_trip(int g) {
    ev_weights_t w, w2;
    CHECK(ev_weights_default(g, &w) == 0, "no defaults for game %d", g);
    CHECK(w.scale > 0 && w.nvalue == ev_num_features(g), "bad defaults");
    /* Awkward numbers must survive exactly. */
    w.value[0] = 1.0f / 3.0f;
    w.value[1] = -1e-7f;
    w.policy[0] = 123456.789f;
    char *buf = malloc(65536);
    long len = ev_weights_format(&w, buf, 65536);
    CHECK(len > 0, "format failed");
    char err[256];
    CHECK(ev_weights_parse(buf, (size_t)len, "rt", g, &w2, err, sizeof err) == 0, "reparse: %s",
          err);
    CHECK(ev_weights_hash(&w) == ev_weights_hash(&w2), "round trip changed the weights");
    CHECK(!memcmp(w.value, w2.value, sizeof w.value) &&
              !memcmp(w.policy, w2.policy, sizeof w.policy),
          "round trip not exact");
    CHECK(!strcmp(w.provenance, w2.provenance), "provenance lost");
    CHECK(ev_weights_format(&w, buf, 10) == -1, "tiny buffer accepted");
    /* A flipped digit in a value breaks the checksum. */
    char *p = strstr(buf, "\ntempo ");
    if (p) {
        p[7] = p[7] == '9' ? '8' : '9';
        CHECK(ev_weights_parse(buf, (size_t)len, "rt", g, &w2, err, sizeof err) == -1 &&
                  strstr(err, "checksum"),
              "checksum not verified");
    }
    /* The hash follows the weights but not the provenance. */
    uint64_t h = ev_weights_hash(&w);
    snprintf(w.provenance, sizeof w.provenance, "something else");
    CHECK(ev_weights_hash(&w) == h, "provenance changed the hash");
    w.value[2] += 1.0f;
    CHECK(ev_weights_hash(&w) != h, "hash blind to a weight");
    free(buf);
}

static void test_shipped_file(int g) {
    char path[256], err[256];
    snprintf(path, sizeof path, "../weights/%s-default.txt", gk_game_by_id(g)->name);
    ev_weights_t w, d;
    CHECK(ev_weights_load(path, g, &w, err, sizeof err) == 0, "%s: %s", path, err);
    ev_weights_default(g, &d);
    CHECK(ev_weights_hash(&w) == ev_weights_hash(&d),
          "%s differs from the built-in defaults (regenerate it with ev_weights_save)", path);
}

static void test_by_name(void) {
    ev_weights_t w;
    char err[256];
    /* Missing names load as 0; comments and blank lines anywhere; CRLF accepted. */
    const char *ok = "# a comment\r\ngkweights 1\r\n\ngame gounki   # trailing\r\nscale 0.5\r\n"
                     "mat_rrs 350\r\n  p_exit 12\r\n";
    CHECK(parse(ok, GK_GAME_GOUNKI, &w, err, sizeof err) == 0, "minimal file: %s", err);
    CHECK(w.scale == 0.5f && w.value[ev_feature_index(0, "mat_rrs")] == 350.0f &&
              w.policy[ev_policy_feature_index(0, "p_exit")] == 12.0f &&
              w.value[ev_feature_index(0, "mat_r")] == 0.0f,
          "values not loaded by name");
    expect_error(ok, GK_GAME_GOBS, "game");
    expect_error("", 0, "empty");
    expect_error("hello 1\n", 0, "not a weight file");
    expect_error("gkweights 2\ngame gounki\nscale 1\n", 0, "version");
    expect_error("gkweights x\n", 0, "version");
    expect_error("gkweights 1\nscale 1\n", 0, "game");
    expect_error("gkweights 1\ngame gounki\n", 0, "scale");
    expect_error("gkweights 1\ngame gounki\nscale 0\n", 0, "scale");
    expect_error("gkweights 1\ngame gounki\nscale -1\n", 0, "scale");
    expect_error("gkweights 1\nmat_r 1\ngame gounki\nscale 1\n", 0, "game");
    expect_error("gkweights 1\ngame gounki\nscale 1\nnot_a_feature 1\n", 0, "unknown feature");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r 1\nmat_r 2\n", 0, "duplicate");
    expect_error("gkweights 1\ngame gounki\ngame gounki\nscale 1\n", 0, "duplicate");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r\n", 0, "no value");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r 1x\n", 0, "bad value");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r nan\n", 0, "bad value");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r 1e300\n", 0, "bad value");
    expect_error("gkweights 1\ngame gounki\nscale 1\nchecksum 0000000000000000\n", 0, "checksum");
    expect_error("gkweights 1\ngame gounki\nscale 1\nchecksum zz\n", 0, "checksum");
    expect_error("gkweights 1\ngame gounki\nscale 1\nmat_r 1\x01\n", 0, "control");
    char longline[3000];
    memset(longline, 'a', sizeof longline);
    memcpy(longline, "gkweights 1\n", 12);
    longline[sizeof longline - 1] = '\0';
    expect_error(longline, 0, "longer");
    const char nul[] = "gkweights 1\ngame gounki\0scale 1\n";
    CHECK(ev_weights_parse(nul, sizeof nul - 1, "t", 0, &w, err, sizeof err) == -1, "NUL accepted");
    /* Text after the checksum line is refused. */
    ev_weights_default(0, &w);
    char *buf = malloc(65536);
    long len = ev_weights_format(&w, buf, 65536 - 32);
    memcpy(buf + len, "mat_r 5\n", 9);
    CHECK(ev_weights_parse(buf, (size_t)len + 8, "t", 0, &w, err, sizeof err) == -1 &&
              strstr(err, "after the checksum"),
          "text after the checksum accepted: %s", err);
    free(buf);
}

static void test_save(void) {
    char dir[] = "/tmp/gk_weights_XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/gk_weights_XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    char *d = mkdtemp(tmpl);
    if (!d) d = mkdtemp(dir);
    CHECK(d != NULL, "mkdtemp failed");
    if (!d) return;
    char path[600], err[256];
    snprintf(path, sizeof path, "%s/w.txt", d);
    ev_weights_t w, w2;
    ev_weights_default(GK_GAME_GOBS, &w);
    w.value[3] = 7.25f;
    CHECK(ev_weights_save(path, &w, "test #1\nline", err, sizeof err) == 0, "save: %s", err);
    CHECK(ev_weights_load(path, GK_GAME_GOBS, &w2, err, sizeof err) == 0, "load: %s", err);
    CHECK(ev_weights_hash(&w) == ev_weights_hash(&w2), "saved weights differ");
    CHECK(!strcmp(w2.provenance, "test  1 line"), "provenance '%s' not cleaned", w2.provenance);
    CHECK(ev_weights_load(path, GK_GAME_GOUNKI, &w2, err, sizeof err) == -1, "wrong game loaded");
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0, "temporary file left behind");
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no/such/dir/w.txt", d);
    CHECK(ev_weights_save(bad, &w, NULL, err, sizeof err) == GK_E_IO && strstr(err, bad) &&
              !strstr(err, ".tmp"),
          "save into a missing folder: %s", err);
    CHECK(ev_weights_load(bad, GK_GAME_GOBS, &w2, err, sizeof err) == GK_E_IO && strstr(err, bad),
          "load of a missing file: %s", err);
    remove(path);
    rmdir(d);
}

int main(void) {
    gk_init();
    for (int g = 0; g < GK_NGAMES; g++) {
        test_names(g);
        test_round_trip(g);
        test_shipped_file(g);
    }
    test_by_name();
    test_save();
    return check_exit("test_eval_weights");
}
