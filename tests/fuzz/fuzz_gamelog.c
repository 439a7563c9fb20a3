/*
 * tests/fuzz/fuzz_gamelog.c -- the self-play log readers on arbitrary bytes.
 *
 * The first byte chooses what the rest is:
 *   0  a shard image: scanned with payload checksums, every sound frame decompressed and
 *      every game decoded (replayed by the rules);
 *   1  the same shard image with every frame's checksums recomputed first, so that
 *      mutations reach zstd and the record decoder behind the checksums;
 *   2  a frame payload (decompressed records) decoded game by game;
 *   3  a run manifest;
 *   4  an opening-line file (selfplay --book).
 * Nothing may crash, hang or leak, whatever the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/gamelog.h"
#include "data/openings.h"
#include "data/xxh64.h"
#include "games/game.h"

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites the payload and header checksums of every frame that can be walked. */
static void reseal(uint8_t *d, size_t n) {
    size_t off = 0;
    while (n - off >= 8 && get32(d + off) == 0x184D2A5Eu) {
        uint32_t user = get32(d + off + 4);
        if (user < 44 || user > n - off - 8) return;
        uint8_t *h = d + off + 8;
        uint32_t clen = get32(h + 12);
        size_t z = off + 8 + user;
        if (clen > n - z) return;
        put64(h + 20, gk_xxh64(d + z, clen, 0));
        put64(h + user - 8, gk_xxh64(h, user - 8, 0));
        off = z + clen;
    }
}

static void read_shard(const uint8_t *d, size_t n) {
    char err[256];
    gl_src_t src = {.fd = -1, .mem = d, .size = n};
    gl_shard_t s;
    gl_shard_init(&s);
    if (gl_shard_scan(&src, &s, true, err, sizeof err) == 0) {
        gl_buf_t payload = {0};
        gl_game_t g;
        gl_game_init(&g);
        for (uint32_t f = 0; f < s.nframes; f++) {
            if (gl_frame_load(&src, &s.frame[f], &payload, err, sizeof err)) continue;
            size_t pos = 0;
            for (uint32_t k = 0; k < s.frame[f].ngames; k++)
                if (gl_frame_next_game(&s.frame[f], &payload, &pos, &g, err, sizeof err)) break;
        }
        gl_game_free(&g);
        gl_buf_free(&payload);
    }
    gl_shard_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        gk_init();
        init = 1;
    }
    if (size < 1) return 0;
    int mode = data[0] % 5;
    data++, size--;
    char err[256];
    switch (mode) {
    case 0: read_shard(data, size); break;
    case 1: {
        uint8_t *copy = malloc(size ? size : 1);
        if (!copy) return 0;
        memcpy(copy, data, size);
        reseal(copy, size);
        read_shard(copy, size);
        free(copy);
        break;
    }
    case 2: {
        gl_game_t g;
        gl_game_init(&g);
        size_t pos = 0, used;
        while (pos < size &&
               gl_decode_game(data + pos, size - pos, GL_VERSION, &g, &used, err, sizeof err) == 0)
            pos += used;
        gl_game_free(&g);
        break;
    }
    case 3: {
        gl_manifest_t m;
        gl_manifest_parse((const char *)data, size, &m, err, sizeof err);
        break;
    }
    case 4: {
        for (int game = 0; game < GK_NGAMES; game++) {
            ol_lines_t b;
            gk_rules_t r = {(uint8_t)game, 0, GK_DEFAULT_TURN_LIMIT};
            if (ol_parse((const char *)data, size, "fuzz", &r, &b, err, sizeof err) == 0)
                ol_free(&b);
        }
        break;
    }
    }
    return 0;
}
