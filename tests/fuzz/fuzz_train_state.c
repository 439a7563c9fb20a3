/* tests/fuzz/fuzz_train_state.c -- the training state parser on arbitrary bytes: never a
 * crash; anything accepted formats back to a text that parses to the same state. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "selfplay/train.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static train_state_t s, t;
    char err[256];
    if (train_state_parse((const char *)data, size, &s, err, sizeof err)) return 0;
    size_t cap = 4096 + (size_t)s.ngen * 1024;
    char *buf = malloc(cap);
    if (!buf) return 0;
    long n = train_state_format(&s, buf, cap);
    if (n < 0 || train_state_parse(buf, (size_t)n, &t, err, sizeof err)) abort();
    if (t.ngen != s.ngen || t.fingerprint != s.fingerprint) abort();
    free(buf);
    return 0;
}
