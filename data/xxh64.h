/*
 * data/xxh64.h -- XXH64, the checksum of every binary file format of the project.
 *
 * Contract: gk_xxh64(p, n, seed) is the XXH64 hash of Yann Collet's specification
 * (the same function zstd uses for its frame checksums: the low 32 bits of
 * gk_xxh64(content, size, 0) are what a zstd frame with a content checksum stores), so
 * any xxhsum tool can check our files.  Reentrant, any alignment.  The implementation
 * is Debian's libxxhash (the reference one); this wrapper keeps its header out of the
 * rest of the code.
 */
#ifndef GK_XXH64_H
#define GK_XXH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t gk_xxh64(const void *data, size_t len, uint64_t seed);

#endif
