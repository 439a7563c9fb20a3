/*
 * tests/test_gounki_rules.c -- runs the Gounki rule tests written as data files in
 * tests/fixtures/gounki/rules/ (one .txt file per decision).
 *
 * A file is a list of directives, one per line ('#' starts a comment line):
 *   turn-limit N        turn limit for the positions that follow (default 500)
 *   position STRING     starts a case: the current position is STRING
 *   start               starts a case at the standard start position
 *   moves M1 M2 ...     the legal moves of the current position are exactly these
 *                       (output notation, any order)
 *   count N             the current position has exactly N legal moves
 *   has M / lacks M     M is / is not one of the legal moves (output notation)
 *   play TEXT           TEXT parses to a legal move, which is played (repetition is
 *                       applied with the game history of the case)
 *   parse TEXT => M     TEXT parses to the legal move whose notation is M
 *   illegal TEXT [:: SUBSTRING]   TEXT is rejected (with SUBSTRING in the reason)
 *   result R [REASON]   the game result is R (1-0, 0-1, 1/2-1/2 or *) for REASON
 *   is STRING           the position string of the current position is STRING
 *   badpos STRING [:: SUBSTRING]  STRING is rejected as a position (SUBSTRING in reason)
 * Every generated move is also checked to print uniquely.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gounki.h"

static int failures, checks;
static const char *cur_file;
static int cur_line;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        printf("FAIL %s:%d: ", cur_file, cur_line);                                                \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        failures++;                                                                                \
    } while (0)

static const gk_game_t *G;

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Legal moves of p as sorted strings; returns their number. */
static int move_texts(const gk_pos_t *p, char texts[][GK_MOVE_TEXT_MAX], char **sorted) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = G->gen(p, list);
    for (int i = 0; i < n; i++) {
        if (G->action_text(p, list[i], texts[i], GK_MOVE_TEXT_MAX) < 0) FAIL("action_text failed");
        sorted[i] = texts[i];
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmpstr);
    for (int i = 1; i < n; i++)
        if (!strcmp(sorted[i], sorted[i - 1])) FAIL("move %s generated twice", sorted[i]);
    return n;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\n' || s[l - 1] == '\r'))
        s[--l] = 0;
    return s;
}

/* Splits "A :: B" into A and B (B NULL when absent). */
static char *split2(char *s, const char *sep) {
    char *k = strstr(s, sep);
    if (!k) return NULL;
    *k = 0;
    trim(s);
    return trim(k + strlen(sep));
}

static void run_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL cannot open %s\n", path);
        failures++;
        return;
    }
    cur_file = path;
    cur_line = 0;
    static char texts[GK_MAX_ACTIONS][GK_MOVE_TEXT_MAX];
    static char *sorted[GK_MAX_ACTIONS];
    char line[4096], err[512];
    gk_pos_t pos;
    int have = 0, turn_limit = GK_DEFAULT_TURN_LIMIT;
    static gk_hist_t hist;
    while (fgets(line, sizeof line, f)) {
        cur_line++;
        char *s = trim(line);
        if (!*s || *s == '#') continue;
        char *arg = s;
        while (*arg && *arg != ' ' && *arg != '\t') arg++;
        if (*arg) *arg++ = 0;
        arg = trim(arg);
        checks++;
        if (!strcmp(s, "turn-limit")) {
            turn_limit = atoi(arg);
            continue;
        }
        if (!strcmp(s, "badpos")) {
            char *want = split2(arg, "::");
            gk_pos_t q;
            if (G->pos_from_text(&q, arg, (uint16_t)turn_limit, err, sizeof err) == 0)
                FAIL("position '%s' accepted", arg);
            else if (want && !strstr(err, want))
                FAIL("position '%s': reason '%s' lacks '%s'", arg, err, want);
            continue;
        }
        if (!strcmp(s, "position") || !strcmp(s, "start")) {
            if (!strcmp(s, "start")) {
                gk_rules_t r = {GK_GAME_GOUNKI, 0, (uint16_t)turn_limit};
                G->setup(&pos, &r);
            } else if (G->pos_from_text(&pos, arg, (uint16_t)turn_limit, err, sizeof err) < 0) {
                FAIL("bad position '%s': %s", arg, err);
                have = 0;
                continue;
            }
            have = 1;
            gk_hist_init(&hist, &pos);
            if (pos.hash != G->hash_full(&pos)) FAIL("hash of the position");
            char back[GK_POS_TEXT_MAX];
            G->pos_to_text(&pos, back, sizeof back);
            gk_pos_t q;
            if (G->pos_from_text(&q, back, (uint16_t)turn_limit, err, sizeof err) < 0 ||
                memcmp(&q, &pos, sizeof q))
                FAIL("position string '%s' does not round-trip", back);
            continue;
        }
        if (!have) {
            FAIL("directive '%s' before any position", s);
            continue;
        }
        if (!strcmp(s, "moves") || !strcmp(s, "count") || !strcmp(s, "has") ||
            !strcmp(s, "lacks")) {
            int n = move_texts(&pos, texts, sorted);
            if (!strcmp(s, "count")) {
                if (n != atoi(arg)) FAIL("%d legal moves, expected %s", n, arg);
                continue;
            }
            if (!strcmp(s, "has") || !strcmp(s, "lacks")) {
                int found = 0;
                for (int i = 0; i < n; i++) found |= !strcmp(sorted[i], arg);
                if (found != !strcmp(s, "has"))
                    FAIL("%s is %s legal", arg, found ? "unexpectedly" : "not");
                continue;
            }
            char *want[GK_MAX_ACTIONS];
            int nw = 0;
            for (char *t = strtok(arg, " \t"); t && nw < GK_MAX_ACTIONS; t = strtok(NULL, " \t"))
                want[nw++] = t;
            qsort(want, (size_t)nw, sizeof *want, cmpstr);
            int i = 0, j = 0;
            while (i < n || j < nw) {
                int c = i == n ? 1 : j == nw ? -1 : strcmp(sorted[i], want[j]);
                if (c < 0)
                    FAIL("unexpected legal move %s", sorted[i++]);
                else if (c > 0)
                    FAIL("missing legal move %s", want[j++]);
                else
                    i++, j++;
            }
            continue;
        }
        if (!strcmp(s, "play")) {
            gk_action_t a[GK_MAX_TURN];
            int n = G->parse_move(&pos, arg, a, GK_MAX_TURN, err, sizeof err);
            if (n != 1) {
                FAIL("cannot play '%s': %s", arg, n < 0 ? err : "not one action");
                have = 0;
                continue;
            }
            G->play(&pos, a[0]);
            gk_hist_push(&hist, &pos);
            gk_hist_check_repetition(&hist, &pos);
            if (pos.hash != G->hash_full(&pos)) FAIL("incremental hash after %s", arg);
            continue;
        }
        if (!strcmp(s, "parse")) {
            char *want = split2(arg, "=>");
            gk_action_t a[GK_MAX_TURN];
            char got[GK_MOVE_TEXT_MAX];
            int n = G->parse_move(&pos, arg, a, GK_MAX_TURN, err, sizeof err);
            if (!want)
                FAIL("parse needs '=> MOVE'");
            else if (n != 1)
                FAIL("'%s' does not parse: %s", arg, err);
            else if (G->move_text(&pos, a, n, got, sizeof got) < 0 || strcmp(got, want))
                FAIL("'%s' parsed as %s, expected %s", arg, got, want);
            continue;
        }
        if (!strcmp(s, "illegal")) {
            char *want = split2(arg, "::");
            gk_action_t a[GK_MAX_TURN];
            int n = G->parse_move(&pos, arg, a, GK_MAX_TURN, err, sizeof err);
            if (n >= 0)
                FAIL("'%s' accepted", arg);
            else if (want && !strstr(err, want))
                FAIL("'%s': reason '%s' lacks '%s'", arg, err, want);
            continue;
        }
        if (!strcmp(s, "result")) {
            char res[32] = "", why[32] = "";
            sscanf(arg, "%31s %31s", res, why);
            if (strcmp(gk_result_text((gk_result_t)pos.result), res))
                FAIL("result %s, expected %s", gk_result_text((gk_result_t)pos.result), res);
            if (why[0] && strcmp(gk_reason_text((gk_reason_t)pos.reason), why))
                FAIL("reason %s, expected %s", gk_reason_text((gk_reason_t)pos.reason), why);
            continue;
        }
        if (!strcmp(s, "is")) {
            char got[GK_POS_TEXT_MAX];
            G->pos_to_text(&pos, got, sizeof got);
            if (strcmp(got, arg)) FAIL("position is '%s', expected '%s'", got, arg);
            continue;
        }
        FAIL("unknown directive '%s'", s);
    }
    fclose(f);
}

int main(int argc, char **argv) {
    gk_init();
    G = &gk_gounki_game;
    const char *dir = argc > 1 ? argv[1] : "fixtures/gounki/rules";
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL cannot open %s\n", dir);
        return 1;
    }
    char *names[256];
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 256) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".txt")) names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, cmpstr);
    for (int i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int before = failures;
        run_file(path);
        printf("%-50s %s\n", names[i], failures == before ? "ok" : "FAILED");
        free(names[i]);
    }
    if (nn == 0) {
        printf("FAIL no rule files in %s\n", dir);
        return 1;
    }
    printf("%d files, %d directives, %d failures\n", nn, checks, failures);
    return failures != 0;
}
