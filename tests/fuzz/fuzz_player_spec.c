/* tests/fuzz/fuzz_player_spec.c -- player spec strings (search/player.h) on arbitrary
 * bytes: never a crash; every rejection says why on one line.  The first byte picks the
 * game.  Specs naming a weight file or a memory size are skipped: opening arbitrary paths
 * and reserving gigabytes test the file system and the allocator, not the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "search/player.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) gk_init(), ready = 1;
    if (size < 1 || size > 4096) return 0;
    int game = data[0] % GK_NGAMES;
    char *spec = malloc(size);
    if (!spec) return 0;
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = 0;
    if (strstr(spec, "weights") || strstr(spec, "_mb")) {
        free(spec);
        return 0;
    }
    char err[256] = "";
    player_t *pl = player_new(spec, game, err, sizeof err);
    if (pl) {
        if (strcmp(player_spec(pl), spec)) abort();
        player_free(pl);
    } else if (!err[0] || strchr(err, '\n')) {
        abort();
    }
    free(spec);
    return 0;
}
