/* data/xxh64.c -- XXH64 through Debian's libxxhash (see xxh64.h for why one wrapper). */
#include "xxh64.h"

#include <xxhash.h>

uint64_t gk_xxh64(const void *data, size_t len, uint64_t seed) {
    /* XXH64 accepts NULL with length 0, which an empty buffer of ours may be. */
    return (uint64_t)XXH64(len ? data : "", len, (XXH64_hash_t)seed);
}
