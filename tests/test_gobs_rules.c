/*
 * tests/test_gobs_rules.c -- runs the Gobs rule fixtures (tests/fixtures/gobs/rules, *.txt).
 *
 * A fixture is a list of lines; '#' starts a comment.  Commands:
 *   turn-limit N             turn limit for the next `position` (default 0 = none)
 *   position STRING          the current position (docs/FORMATS.md)
 *   bad-position STRING      pos_from_text must reject STRING
 *   moves M1 M2 ...          the complete moves of the position are exactly these
 *   count N                  perft 1 == N (and the enumerated moves when N is small)
 *   perft D N                perft D == N, also checked with the generic gen/play perft
 *   legal M1 M2 ...          each parses as a legal complete move
 *   illegal M1 M2 ...        each is rejected by parse_move
 *   play M                   plays the complete move M
 *   action A                 plays the single action whose action_text is A
 *   actions A1 A2 ...        the legal actions (gen) are exactly these
 *   expect STRING            the position string is STRING
 *   result R [REASON]        the result (1-0, 0-1, 1/2-1/2, *) and reason name
 *   no-legal-action          gen() returns 0 while the game is still on (no-move rule)
 *   board-contains TEXT      board_text contains TEXT
 * Each failure prints file:line and the reason; the exit status is the failure count.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/gobs.h"

#define FIXDIR "fixtures/gobs/rules"

static int failures, checks;
static const char *cur_file;
static int cur_line;

static void fail(const char *fmt, const char *a, const char *b) {
    printf("FAIL %s:%d: ", cur_file, cur_line);
    printf(fmt, a, b);
    printf("\n");
    failures++;
}

typedef struct {
    char (*t)[GK_MOVE_TEXT_MAX];
    size_t n, cap;
} strlist_t;

static void sl_add(strlist_t *l, const char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->t = realloc(l->t, l->cap * sizeof *l->t);
        if (!l->t) abort();
    }
    snprintf(l->t[l->n++], GK_MOVE_TEXT_MAX, "%.*s", GK_MOVE_TEXT_MAX - 1, s);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(a, b);
}

static int collect(void *ctx, const gk_pos_t *start, const gk_action_t *seq, int n) {
    char buf[GK_MOVE_TEXT_MAX];
    if (gk_gobs_game.move_text(start, seq, n, buf, sizeof buf) < 0) strcpy(buf, "?");
    sl_add(ctx, buf);
    return 0;
}

/* Splits s in place on spaces into words; returns their number. */
static int words(char *s, char **w, int max) {
    int n = 0;
    for (char *t = strtok(s, " \t"); t && n < max; t = strtok(NULL, " \t")) w[n++] = t;
    return n;
}

static void check_moves(const gk_pos_t *p, char *rest) {
    strlist_t got = {0};
    gk_enum_moves(p, 100000, collect, &got);
    char *w[512];
    const int n = words(rest, w, 512);
    strlist_t want = {0};
    for (int i = 0; i < n; i++) sl_add(&want, w[i]);
    if (got.n) qsort(got.t, got.n, sizeof *got.t, cmp_str);
    if (want.n) qsort(want.t, want.n, sizeof *want.t, cmp_str);
    int same = got.n == want.n;
    for (size_t i = 0; same && i < got.n; i++) same = !strcmp(got.t[i], want.t[i]);
    if (!same) {
        char g[4096] = "", x[4096] = "";
        for (size_t i = 0; i < got.n && strlen(g) < 4000; i++) {
            strcat(g, " ");
            strncat(g, got.t[i], 40);
        }
        for (size_t i = 0; i < want.n && strlen(x) < 4000; i++) {
            strcat(x, " ");
            strncat(x, want.t[i], 40);
        }
        fail("moves differ\n   got:%s\n  want:%s", g, x);
    }
    if (gk_gobs_game.perft(p, 1) != got.n) fail("perft 1 differs from the enumeration%s%s", "", "");
    free(got.t);
    free(want.t);
}

static void run_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL: cannot open %s\n", path);
        failures++;
        return;
    }
    const gk_game_t *g = &gk_gobs_game;
    gk_pos_t p;
    int have = 0, turn_limit = 0;
    char line[4096], err[256], buf[GK_BOARD_TEXT_MAX];
    cur_file = path;
    cur_line = 0;
    while (fgets(line, sizeof line, f)) {
        cur_line++;
        line[strcspn(line, "\r\n")] = 0;
        char *s = line;
        while (*s == ' ') s++;
        if (!*s || *s == '#') continue;
        char *rest = strchr(s, ' ');
        if (rest)
            *rest++ = 0;
        else
            rest = s + strlen(s);
        while (*rest == ' ') rest++;
        checks++;
        if (!strcmp(s, "turn-limit")) {
            turn_limit = atoi(rest);
            continue;
        }
        if (!strcmp(s, "position")) {
            if (g->pos_from_text(&p, rest, (uint16_t)turn_limit, err, sizeof err) < 0) {
                fail("bad position: %s%s", err, "");
                have = 0;
            } else {
                have = 1;
                char back[GK_POS_TEXT_MAX];
                g->pos_to_text(&p, back, sizeof back);
                if (strcmp(back, rest)) fail("position does not round-trip: %s", back, "");
            }
            continue;
        }
        if (!strcmp(s, "bad-position")) {
            gk_pos_t q;
            if (g->pos_from_text(&q, rest, (uint16_t)turn_limit, err, sizeof err) == 0)
                fail("position accepted: %s%s", rest, "");
            continue;
        }
        if (!have) {
            fail("'%s' without a valid position%s", s, "");
            continue;
        }
        if (!strcmp(s, "moves")) {
            check_moves(&p, rest);
        } else if (!strcmp(s, "count")) {
            const unsigned long long want = strtoull(rest, NULL, 10);
            const unsigned long long got = g->perft(&p, 1);
            if (got != want) {
                char a[32], b[32];
                snprintf(a, sizeof a, "%llu", got);
                snprintf(b, sizeof b, "%llu", want);
                fail("perft 1 = %s, want %s", a, b);
            }
            if (want <= 200000 && gk_enum_moves(&p, UINT64_MAX, NULL, NULL) != want)
                fail("enumeration disagrees with perft 1%s%s", "", "");
        } else if (!strcmp(s, "perft")) {
            int d = 0;
            unsigned long long want = 0;
            sscanf(rest, "%d %llu", &d, &want);
            const unsigned long long got = g->perft(&p, d), gen = gk_perft_generic(&p, d);
            if (got != want || gen != want) {
                char a[64], b[32];
                snprintf(a, sizeof a, "%llu (generic %llu)", got, gen);
                snprintf(b, sizeof b, "%llu", want);
                fail("perft = %s, want %s", a, b);
            }
        } else if (!strcmp(s, "legal") || !strcmp(s, "illegal")) {
            char *w[64];
            const int n = words(rest, w, 64);
            for (int i = 0; i < n; i++) {
                gk_action_t seq[GK_MAX_TURN];
                const int k = g->parse_move(&p, w[i], seq, GK_MAX_TURN, err, sizeof err);
                if (s[0] == 'l' && k < 0) fail("%s rejected: %s", w[i], err);
                if (s[0] == 'i' && k >= 0) fail("%s accepted%s", w[i], "");
                if (s[0] == 'i' && k < 0 && (!err[0] || strchr(err, '\n')))
                    fail("%s: error is not one line%s", w[i], "");
            }
        } else if (!strcmp(s, "play")) {
            if (gk_play_move_text(&p, rest, err, sizeof err) < 0) fail("%s: %s", rest, err);
            if (p.hash != g->hash_full(&p))
                fail("hash differs from hash_full after %s%s", rest, "");
        } else if (!strcmp(s, "action") || !strcmp(s, "actions")) {
            gk_action_t list[GK_MAX_ACTIONS];
            const int n = g->gen(&p, list);
            if (s[6] == 's') {
                strlist_t got = {0};
                for (int i = 0; i < n; i++) {
                    g->action_text(&p, list[i], buf, sizeof buf);
                    sl_add(&got, buf);
                }
                char tmp[GK_MOVE_TEXT_MAX * 4];
                snprintf(tmp, sizeof tmp, "%s", rest);
                char *w[256];
                const int k = words(tmp, w, 256);
                strlist_t want = {0};
                for (int i = 0; i < k; i++) sl_add(&want, w[i]);
                if (got.n) qsort(got.t, got.n, sizeof *got.t, cmp_str);
                if (want.n) qsort(want.t, want.n, sizeof *want.t, cmp_str);
                int same = got.n == want.n;
                for (size_t i = 0; same && i < got.n; i++) same = !strcmp(got.t[i], want.t[i]);
                if (!same) {
                    char gs[2048] = "";
                    for (size_t i = 0; i < got.n && strlen(gs) < 1900; i++) {
                        strcat(gs, " ");
                        strncat(gs, got.t[i], 20);
                    }
                    fail("actions differ; got:%s%s", gs, "");
                }
                free(got.t);
                free(want.t);
            } else {
                int found = -1;
                for (int i = 0; i < n; i++) {
                    g->action_text(&p, list[i], buf, sizeof buf);
                    if (!strcmp(buf, rest)) found = i;
                }
                if (found < 0)
                    fail("no legal action '%s'%s", rest, "");
                else
                    g->play(&p, list[found]);
                if (p.hash != g->hash_full(&p)) fail("hash differs from hash_full%s%s", "", "");
            }
        } else if (!strcmp(s, "expect")) {
            g->pos_to_text(&p, buf, sizeof buf);
            if (strcmp(buf, rest)) fail("position is\n    %s\n  want %s", buf, rest);
        } else if (!strcmp(s, "result")) {
            char want[64];
            snprintf(want, sizeof want, "%s", gk_result_text((gk_result_t)p.result));
            if (p.result != GK_ONGOING) {
                strcat(want, " ");
                strcat(want, gk_reason_text((gk_reason_t)p.reason));
            }
            if (strcmp(want, rest)) fail("result is '%s', want '%s'", want, rest);
        } else if (!strcmp(s, "no-legal-action")) {
            gk_action_t list[GK_MAX_ACTIONS];
            if (gk_over(&p) || g->gen(&p, list) != 0)
                fail("the side to move has a legal action%s%s", "", "");
            gk_pos_t q = p;
            gk_apply_no_move(&q);
            if (q.result != (p.stm == GK_WHITE ? GK_WIN_BLACK : GK_WIN_WHITE))
                fail("no-move does not lose%s%s", "", "");
        } else if (!strcmp(s, "board-contains")) {
            g->board_text(&p, buf, sizeof buf);
            if (!strstr(buf, rest)) fail("board text lacks '%s':\n%s", rest, buf);
        } else {
            fail("unknown command '%s'%s", s, "");
        }
    }
    fclose(f);
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    gk_init();
    const char *dir = argc > 1 ? argv[1] : FIXDIR;
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL: no fixture folder %s\n", dir);
        return 1;
    }
    char *names[512];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 512) {
        const size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".txt")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        const int before = failures;
        run_file(path);
        printf("%-40s %s\n", names[i], failures == before ? "ok" : "FAILED");
        free(names[i]);
    }
    printf("gobs rules: %d fixture files, %d checks, %d failures\n", n, checks, failures);
    if (n < 10) {
        printf("FAIL: expected at least 10 fixture files\n");
        return 1;
    }
    return failures ? 1 : 0;
}
