/* tests/fuzz/fuzz_train_state.c -- the training state parser on arbitrary bytes: never a
 * crash; anything accepted formats back to a text that parses to the same state.  Each
 * input is also tried with a correct checksum line appended, so that mutations reach the
 * record parser instead of stopping at the checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "selfplay/train.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t n) {
    static train_state_t s, t;
    char err[256];
    if (train_state_parse(text, n, &s, err, sizeof err)) return;
    size_t cap = 4096 + (size_t)s.ngen * 1024;
    char *buf = malloc(cap);
    if (!buf) return;
    long k = train_state_format(&s, buf, cap);
    if (k < 0 || train_state_parse(buf, (size_t)k, &t, err, sizeof err)) abort();
    if (t.ngen != s.ngen || t.fingerprint != s.fingerprint) abort();
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check((const char *)data, size);
    if (size > 65536) return 0;
    char *text = malloc(size + 64);
    if (!text) return 0;
    memcpy(text, data, size);
    uint64_t h = gk_fnv1a64(GK_FNV1A_INIT, text, size);
    int k = snprintf(text + size, 64, "checksum %016llx\n", (unsigned long long)h);
    check(text, size + (size_t)k);
    free(text);
    return 0;
}
