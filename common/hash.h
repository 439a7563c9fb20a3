/*
 * common/hash.h -- small non-cryptographic hashes for text checksums and fingerprints.
 *
 * gk_fnv1a64() is 64-bit FNV-1a, chained: pass GK_FNV1A_INIT first, then the previous
 * result to hash several pieces as one.  It is the checksum of the project's text formats
 * (weights, training state); binary formats use XXH64 (data/xxh64.h).  The values are
 * stored in files, so the function must never change.
 *
 * gk_mix64() is the splitmix64 finaliser: a bijection of 64-bit words whose every output
 * bit depends on every input bit, for Zobrist keys and hash-table slots (never stored).
 */
#ifndef GK_COMMON_HASH_H
#define GK_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GK_FNV1A_INIT 0xcbf29ce484222325ull

static inline uint64_t gk_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static inline uint64_t gk_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#endif
