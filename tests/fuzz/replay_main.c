/*
 * tests/fuzz/replay_main.c -- runs a libFuzzer target without libFuzzer.
 *
 * Usage: fuzz_NAME [CORPUS_DIR] [ITERATIONS]
 * Feeds every file of CORPUS_DIR, then ITERATIONS (default 20000) inputs made by
 * seeded random mutations of them (byte flips, inserts, deletions, truncations,
 * splices), so ctest exercises each parser with the same inputs on every run, under
 * whatever sanitizers the build has.  Real coverage-guided fuzzing: cmake -DGK_FUZZ=ON
 * with clang (docs/HACKING.md).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 4096
#define MAX_INPUT 65536

static uint64_t rng_state = 0x5EEDF00Dull;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct {
    uint8_t *data;
    size_t size;
} blob_t;

static int load_dir(const char *dir, blob_t *files, int max) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int n = 0;
    char path[4096];
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *buf = malloc(MAX_INPUT);
        size_t len = buf ? fread(buf, 1, MAX_INPUT, f) : 0;
        fclose(f);
        if (!buf) break;
        files[n].data = buf;
        files[n].size = len;
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    static blob_t files[MAX_FILES];
    int n = argc > 1 ? load_dir(argv[1], files, MAX_FILES) : 0;
    long iters = argc > 2 ? atol(argv[2]) : 20000;
    for (int i = 0; i < n; i++) LLVMFuzzerTestOneInput(files[i].data, files[i].size);

    static uint8_t buf[MAX_INPUT];
    for (long it = 0; it < iters; it++) {
        size_t len = 0;
        if (n > 0) {
            const blob_t *b = &files[rnd() % (uint64_t)n];
            len = b->size;
            memcpy(buf, b->data, len);
        }
        int edits = 1 + (int)(rnd() % 8);
        for (int k = 0; k < edits; k++) {
            switch (rnd() % 6) {
            case 0: /* flip a byte */
                if (len) buf[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
                break;
            case 1: /* random byte */
                if (len) buf[rnd() % len] = (uint8_t)rnd();
                break;
            case 2: /* insert a byte */
                if (len < MAX_INPUT) {
                    size_t at = len ? rnd() % (len + 1) : 0;
                    memmove(buf + at + 1, buf + at, len - at);
                    static const char alphabet[] = "abcdefghi0123456789-x*+:,/ \n";
                    uint8_t byte = (uint8_t)alphabet[rnd() % (sizeof alphabet - 1)];
                    buf[at] = rnd() % 4 ? byte : (uint8_t)rnd();
                    len++;
                }
                break;
            case 3: /* delete a byte */
                if (len) {
                    size_t at = rnd() % len;
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
                break;
            case 4: /* truncate */
                if (len) len = rnd() % len;
                break;
            case 5: /* splice a piece of another input */
                if (n > 0) {
                    const blob_t *o = &files[rnd() % (uint64_t)n];
                    if (o->size) {
                        size_t from = rnd() % o->size, cnt = rnd() % (o->size - from + 1);
                        size_t at = len ? rnd() % (len + 1) : 0;
                        if (at + cnt > MAX_INPUT) cnt = MAX_INPUT - at;
                        memcpy(buf + at, o->data + from, cnt);
                        if (at + cnt > len) len = at + cnt;
                    }
                }
                break;
            }
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("replayed %d corpus files and %ld mutated inputs\n", n, iters);
    return 0;
}
