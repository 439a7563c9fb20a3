/*
 * tests/test_train_state.c -- the training loop's state file: round trip, checksum,
 * truncation, mutations, and the report files written from it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selfplay/train.h"
#include "check.h"

static train_state_t s, t;

static void fill(void) {
    memset(&s, 0, sizeof s);
    s.fingerprint = 0x0123456789abcdefull;
    snprintf(s.settings, sizeof s.settings, "game 0 variant 0 games 24 start 00ff");
    s.ngen = 3;
    s.gen[0] = (train_gen_t){.phases = TRAIN_PH_ALL,
                             .promoted = 1,
                             .ladder = 1,
                             .val_before = NAN,
                             .val_after = NAN,
                             .elo = NAN};
    s.gen[1] = (train_gen_t){.phases = TRAIN_PH_ALL,
                             .best_before = 0,
                             .best_after = 1,
                             .promoted = 1,
                             .games = 200,
                             .selfplay_s = 123.25,
                             .positions = 9000,
                             .k = 0.0041,
                             .train_before = 0.68,
                             .train_after = 0.61,
                             .val_before = 0.69,
                             .val_after = 0.625,
                             .mw = 60,
                             .md = 10,
                             .ml = 30,
                             .elo = 107.5,
                             .elo_lo = 40.1,
                             .elo_hi = 180.2,
                             .ladder = 1,
                             .lw = 61,
                             .ld = 9,
                             .ll = 30,
                             .lelo = 110,
                             .lelo_lo = 41,
                             .lelo_hi = 185};
    s.gen[2] = (train_gen_t){.phases = TRAIN_PH_SELFPLAY | TRAIN_PH_TUNE,
                             .best_before = 1,
                             .best_after = 1,
                             .games = 200,
                             .selfplay_s = 118,
                             .positions = 18000,
                             .k = 0.0042,
                             .val_before = 0.63,
                             .val_after = 0.62,
                             .elo = NAN,
                             .elo_lo = NAN,
                             .elo_hi = NAN,
                             .lelo = NAN};
}

int main(void) {
    char err[256], buf[16384];
    fill();
    long n = train_state_format(&s, buf, sizeof buf);
    CHECK(n > 0, "format");
    CHECK(train_state_parse(buf, (size_t)n, &t, err, sizeof err) == 0, "parse: %s", err);
    CHECK(t.ngen == 3 && t.fingerprint == s.fingerprint, "header fields");
    CHECK(!strcmp(t.settings, s.settings), "settings '%s'", t.settings);
    CHECK(t.gen[1].elo == 107.5 && t.gen[1].k == 0.0041 && t.gen[1].lw == 61 &&
              t.gen[2].phases == (TRAIN_PH_SELFPLAY | TRAIN_PH_TUNE) && isnan(t.gen[2].elo),
          "fields do not round-trip");
    char buf2[16384];
    long n2 = train_state_format(&t, buf2, sizeof buf2);
    CHECK(n2 == n && memcmp(buf, buf2, (size_t)n) == 0, "format(parse(x)) != x");

    /* every cut of the text is refused (the checksum line is last) */
    int accepted = 0;
    for (long cut = 0; cut < n - 1; cut++)
        if (!train_state_parse(buf, (size_t)cut, &t, err, sizeof err)) accepted++;
    CHECK(accepted == 0, "%d truncated texts accepted", accepted);
    /* every single-byte change before the checksum line is caught */
    char *ck = strstr(buf, "checksum ");
    accepted = 0;
    for (char *p = buf; p < ck; p++) {
        char old = *p;
        *p = (char)(old ^ 0x01);
        if (!train_state_parse(buf, (size_t)n, &t, err, sizeof err)) accepted++;
        *p = old;
    }
    CHECK(accepted == 0, "%d corrupted texts accepted", accepted);
    CHECK(train_state_parse("gktrain 2\n", 10, &t, err, sizeof err) != 0, "no checksum");
    CHECK(train_state_parse("", 0, &t, err, sizeof err) != 0, "empty");

    /* the report: a table and an SVG that names the ladder */
    char dir[] = "/tmp/gk_train_state_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    FILE *out = tmpfile();
    CHECK(train_report(dir, &s, out, err, sizeof err) == 0, "report: %s", err);
    char path[256];
    static char text[1 << 16];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *f = fopen(path, "r");
    size_t k = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[k] = 0;
    if (f) fclose(f);
    CHECK(strstr(text, "+110 [+41, +185]") != NULL, "ladder entry missing from report:\n%s", text);
    CHECK(strstr(text, "games per hour") != NULL, "games per hour missing");
    snprintf(path, sizeof path, "%s/ladder.svg", dir);
    f = fopen(path, "r");
    k = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[k] = 0;
    if (f) fclose(f);
    CHECK(strstr(text, "<svg") && strstr(text, "</g>\n</svg>\n") &&
              strstr(text, "generation 1: +110 [+41, +185]"),
          "svg incomplete");
    if (out) fclose(out);

    /* DIR/state.txt: none yet (ENOENT: a new run), saved, loaded back, a damaged one named */
    memset(&t, 0, sizeof t);
    errno = 0;
    CHECK(train_state_load(dir, &t, err, sizeof err) == GK_E_IO && errno == ENOENT,
          "no state file: %s", err);
    CHECK_OK(train_state_save(dir, &s, err, sizeof err), err);
    CHECK_OK(train_state_load(dir, &t, err, sizeof err), err);
    CHECK(t.ngen == s.ngen && t.gen[1].lw == 61, "state file round trip");
    snprintf(path, sizeof path, "%s/state.txt", dir);
    f = fopen(path, "r+");
    if (f) {
        fputc('x', f); /* the magic line */
        fclose(f);
    }
    CHECK(train_state_load(dir, &t, err, sizeof err) == GK_E_CHECKSUM && strstr(err, path) &&
              strstr(err, "checksum mismatch"),
          "damaged state file: %s", err);
    unlink(path);
    snprintf(path, sizeof path, "%s/report.txt", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/ladder.svg", dir);
    unlink(path);
    rmdir(dir);
    return check_exit("test_train_state");
}
