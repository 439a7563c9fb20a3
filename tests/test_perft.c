/*
 * tests/test_perft.c -- runs the perft data of tests/fixtures/perft/ (every game, every
 * rule set): each line's counts from the game's perft, and from independent ways of
 * counting where they are affordable.
 *
 * usage: test_perft [--slow] [DIR]   (DIR defaults to fixtures/perft, from tests/)
 *
 * A data file GAME[_NAME].epd (GAME = gounki or gobs) holds one position a line, as in
 * Ethereal's perft/standard.epd:
 *     POSITION ;D1 COUNT ;D2 COUNT ...
 * POSITION is the game's position string (docs/FORMATS.md; Gobs names its rule set and
 * may be mid-turn), read with no turn limit; '#' starts a comment line.  Files whose
 * name ends in _slow.epd are run only with --slow (tests/test_perft_slow.sh), the others
 * only without it.
 *
 * Each (position, depth, count) is checked three ways:
 *  - the game's perft (gk_game_t.perft: the counting perft, memo and tables);
 *  - first action by first action, as `gounki perft --divide/--threads` splits it (no
 *    work shared across first actions), up to SPLIT_MAX;
 *  - gk_perft_generic(), which shares nothing with the fast perft but gen() and play()
 *    and enumerates every complete move, up to GENERIC_MAX.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/game.h"

#define GENERIC_MAX 300000ull
#define SPLIT_MAX   20000000ull

static int failures, checks;

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The count of `gounki perft` with --divide or --threads: each first action's subtree
 * alone (a Gobs leg keeps the depth, the turn goes on). */
static uint64_t perft_split(const gk_game_t *g, const gk_pos_t *p, int depth) {
    gk_action_t list[GK_MAX_ACTIONS];
    int n = g->gen(p, list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        gk_pos_t q = *p;
        g->play(&q, list[i]);
        total += g->perft(&q, q.in_turn != 0 && !gk_over(&q) ? depth : depth - 1);
    }
    return total;
}

static void check(const char *where, const gk_game_t *g, const gk_pos_t *p, int depth,
                  uint64_t want) {
    double t0 = seconds();
    uint64_t got = g->perft(p, depth);
    double dt = seconds() - t0;
    checks++;
    if (got != want) {
        printf("FAIL %s: D%d = %" PRIu64 ", want %" PRIu64 "\n", where, depth, got, want);
        failures++;
        return;
    }
    char also[64] = "";
    if (depth >= 1 && want <= SPLIT_MAX) {
        uint64_t s = perft_split(g, p, depth);
        checks++;
        if (s != want) {
            printf("FAIL %s: D%d split by first action = %" PRIu64 ", want %" PRIu64 "\n", where,
                   depth, s, want);
            failures++;
        }
        strcat(also, ", split");
    }
    if (want <= GENERIC_MAX) {
        uint64_t s = gk_perft_generic(p, depth);
        checks++;
        if (s != want) {
            printf("FAIL %s: D%d generic = %" PRIu64 ", want %" PRIu64 "\n", where, depth, s, want);
            failures++;
        }
        strcat(also, ", generic");
    }
    printf("ok   %s: D%d %" PRIu64 " (%.3f s%s)\n", where, depth, want, dt, also);
}

/* Reads one data line: the position, then ";Dd COUNT" fields. */
static void run_line(const char *where, const gk_game_t *g, char *line) {
    char *semi = strchr(line, ';');
    if (!semi) {
        printf("FAIL %s: no ';D<depth> <count>' field\n", where);
        failures++;
        return;
    }
    *semi = 0;
    gk_pos_t p;
    char err[256];
    if (g->pos_from_text(&p, line, 0, err, sizeof err) < 0) {
        printf("FAIL %s: bad position: %s\n", where, err);
        failures++;
        return;
    }
    for (char *f = semi + 1; f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL) {
        int depth, used = 0;
        uint64_t want;
        if (sscanf(f, " D%d %" SCNu64 " %n", &depth, &want, &used) != 2 || depth < 0 ||
            depth > 16 || (f[used] && f[used] != ';' && f[used] != '\n')) {
            printf("FAIL %s: bad field '%.30s' (want ';D<depth> <count>')\n", where, f);
            failures++;
            return;
        }
        check(where, g, &p, depth, want);
    }
}

static void run_file(const char *dir, const char *name) {
    char path[1024], game[16];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t k = strcspn(name, "_.");
    snprintf(game, sizeof game, "%.*s", (int)(k < sizeof game ? k : sizeof game - 1), name);
    const gk_game_t *g = gk_game_by_name(game);
    if (!g) {
        printf("FAIL %s: the file name does not start with a game name\n", path);
        failures++;
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("FAIL %s: cannot open\n", path);
        failures++;
        return;
    }
    char line[1024];
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || !*s) continue;
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", name, ln);
        run_line(where, g, s);
    }
    fclose(f);
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    int slow = argc > 1 && !strcmp(argv[1], "--slow");
    const char *dir = argc > 1 + slow ? argv[1 + slow] : "fixtures/perft";
    gk_init();
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL: cannot open %s\n", dir);
        return 1;
    }
    char *names[64];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 64;)
        if (ends_with(e->d_name, ".epd") && ends_with(e->d_name, "_slow.epd") == slow)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmpstr);
    for (int i = 0; i < n; i++) {
        run_file(dir, names[i]);
        free(names[i]);
    }
    printf("%d files, %d checks, %d failures\n", n, checks, failures);
    return failures != 0 || n == 0 || checks == 0;
}
