/*
 * tests/test_gamelog.c -- game records, frames, shards and manifests (data/gamelog.h).
 *
 * Games are played with uniformly random actions from a seeded generator and carry
 * made-up root statistics, so the log format is exercised without the search.
 * Checks: XXH64 against zstd's own frame checksum; record round trips in both action
 * codings, with and without statistics; shards of several frames read back game by
 * game; every truncation point of the last frame is seen as TORN and cut off by the
 * writer; a flipped byte anywhere is caught (TORN at the tail, CORRUPT before);
 * zero-filled tails; newer format versions refused; the manifest's checks; locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "data/gamelog.h"
#include "data/xxh64.h"
#include "games/game.h"
#include "check.h"

static void test_xxh64(void) {
    CHECK(gk_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
    static uint8_t buf[3000], out[4000];
    uint64_t s = 7;
    for (int len = 0; len < 3000; len += len < 70 ? 1 : 97) {
        for (int i = 0; i < len; i++) buf[i] = (uint8_t)gk_splitmix64(&s);
        ZSTD_CCtx *c = ZSTD_createCCtx();
        CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
        size_t r = ZSTD_compress2(c, out, sizeof out, buf, (size_t)len);
        ZSTD_freeCCtx(c);
        CHECK(!ZSTD_isError(r) && r >= 4);
        uint32_t stored =
            out[r - 4] | out[r - 3] << 8 | out[r - 2] << 16 | (uint32_t)out[r - 1] << 24;
        CHECK(stored == (uint32_t)gk_xxh64(buf, (size_t)len, 0));
    }
}

/* A game of uniformly random actions with invented statistics, ended like self-play. */
static void random_game(gl_game_t *g, int game, int variant, uint64_t index, uint64_t seed,
                        int turn_limit, bool stats) {
    gl_game_clear(g);
    g->index = index;
    g->seed = seed;
    g->rules = (gk_rules_t){(uint8_t)game, (uint8_t)variant, (uint16_t)turn_limit};
    snprintf(g->engine, sizeof g->engine, "test-1");
    g->weights_hash = 0x1234;
    g->set = (gl_settings_t){.playouts = 100,
                             .threads_per_game = 1,
                             .top = 8,
                             .temperature = 1.0f,
                             .temp_turns = 10,
                             .open_turns = 4,
                             .open_kind = GL_OPEN_RANDOM,
                             .resign_on = 1,
                             .resign_value = -0.9f,
                             .resign_share = 0.25f};
    const gk_game_t *G = gk_game_by_id(game);
    gk_pos_t p;
    gk_hist_t *h = malloc(sizeof *h);
    G->setup(&p, &g->rules);
    gk_hist_init(h, &p);
    gk_action_t list[GK_MAX_ACTIONS];
    uint64_t rng = seed;
    for (;;) {
        int n = gk_gen(&p, list);
        if (gk_over(&p)) break;
        if (n == 0) {
            gk_apply_no_move(&p);
            break;
        }
        gk_action_t a = list[gk_splitmix64(&rng) % (uint64_t)n];
        gl_action_stats_t st = {.kind = GL_ACTION_SEARCH,
                                .visits = 100 + (uint32_t)(rng % 50),
                                .value = (float)((int)(rng % 2001) - 1000) / 1000.f};
        gl_child_t top[GL_MAX_TOP];
        int ntop = n < 8 ? n : 8;
        for (int k = 0; k < ntop; k++)
            top[k] = (gl_child_t){list[(k * 7 + rng) % (uint64_t)n], (uint32_t)(90 - 10 * k)};
        /* distinct children only */
        for (int k = 1; k < ntop; k++)
            for (int j = 0; j < k; j++)
                if (top[j].action == top[k].action)
                    top[k].visits = 0, top[k].action = top[0].action;
        int m = 0;
        for (int k = 0; k < ntop; k++) {
            bool dup = false;
            for (int j = 0; j < m; j++) dup |= top[j].action == top[k].action;
            if (!dup) top[m++] = top[k];
        }
        if (g->nactions < 4)
            st.kind = GL_ACTION_RANDOM;
        else if (n == 1)
            st.kind = GL_ACTION_FORCED;
        CHECK(gl_game_push(g, a, stats ? &st : NULL, top, m) == 0);
        gk_play(&p, a);
        if (p.in_turn == 0 && !gk_over(&p) && gk_hist_push(h, &p) == 0)
            gk_hist_check_repetition(h, &p);
    }
    g->result = p.result;
    g->reason = p.reason;
    g->turns = p.turn;
    g->final_hash = p.hash;
    g->time_ms = 1234;
    free(h);
}

static bool same_game(const gl_game_t *a, const gl_game_t *b, bool stats) {
    if (a->index != b->index || a->seed != b->seed || a->rules.game != b->rules.game ||
        a->rules.variant != b->rules.variant || a->rules.turn_limit != b->rules.turn_limit ||
        strcmp(a->engine, b->engine) || a->weights_hash != b->weights_hash ||
        a->result != b->result || a->reason != b->reason || a->turns != b->turns ||
        a->final_hash != b->final_hash || a->nactions != b->nactions || a->time_ms != b->time_ms ||
        a->set.playouts != b->set.playouts || a->set.temperature != b->set.temperature ||
        a->set.resign_value != b->set.resign_value || a->set.resign_share != b->set.resign_share ||
        a->set.open_turns != b->set.open_turns || a->set.time_ms != b->set.time_ms ||
        a->set.threads_per_game != b->set.threads_per_game || a->set.top != b->set.top ||
        a->set.temp_turns != b->set.temp_turns || a->set.open_kind != b->set.open_kind ||
        a->set.resign_on != b->set.resign_on || a->set.book_hash != b->set.book_hash ||
        a->flags != b->flags || a->resign_side != b->resign_side || a->resign_at != b->resign_at)
        return false;
    for (uint32_t i = 0; i < a->nactions; i++)
        if (a->action[i] != b->action[i]) return false;
    if (!stats) return !b->has_stats;
    if (!b->has_stats) return false;
    for (uint32_t i = 0; i < a->nactions; i++) {
        const gl_action_stats_t *x = &a->stats[i], *y = &b->stats[i];
        if (x->kind != y->kind) return false;
        if (x->kind != GL_ACTION_SEARCH) continue;
        if (x->visits != y->visits || x->ntop != y->ntop) return false;
        if (x->value < y->value - 1e-4f || x->value > y->value + 1e-4f) return false;
        for (int k = 0; k < x->ntop; k++)
            if (a->child[x->first + (uint32_t)k].action !=
                    b->child[y->first + (uint32_t)k].action ||
                a->child[x->first + (uint32_t)k].visits != b->child[y->first + (uint32_t)k].visits)
                return false;
    }
    return true;
}

static void test_records(void) {
    char err[256] = "";
    gl_game_t g, h;
    gl_game_init(&g);
    gl_game_init(&h);
    for (int game = 0; game < GK_NGAMES; game++)
        for (int i = 0; i < 12; i++)
            for (int code = 0; code < 2; code++)
                for (int stats = 0; stats < 2; stats++) {
                    int variant = game == GK_GAME_GOBS ? i % 2 : 0;
                    random_game(&g, game, variant, (uint64_t)i * 1000003u, 99 + (uint64_t)i,
                                i % 3 ? 300 : 40, true);
                    gl_buf_t b = {0};
                    CHECK_OK(gl_encode_game(&g, code, stats, &b, err, sizeof err), err);
                    size_t used = 0;
                    CHECK_OK(gl_decode_game(b.p, b.n, GL_VERSION, &h, &used, err, sizeof err), err);
                    CHECK(used == b.n);
                    CHECK(same_game(&g, &h, stats));
                    /* every strict prefix fails cleanly */
                    for (size_t cut = 0; cut < b.n; cut += 1 + b.n / 50)
                        CHECK(gl_decode_game(b.p, cut, GL_VERSION, &h, &used, err, sizeof err) !=
                              0);
                    gl_buf_free(&b);
                }
    /* An action that is not legal is refused by the encoder. */
    random_game(&g, GK_GAME_GOUNKI, 0, 1, 5, 100, false);
    g.action[g.nactions / 2] ^= 0x5a5a5a;
    gl_buf_t b = {0};
    CHECK(gl_encode_game(&g, GL_CODE_INDEX, false, &b, err, sizeof err) == GK_E_REPLAY);
    /* A record whose final hash disagrees with its replay is refused by the decoder. */
    random_game(&g, GK_GAME_GOUNKI, 0, 1, 5, 100, false);
    b.n = 0;
    CHECK_OK(gl_encode_game(&g, GL_CODE_RAW, false, &b, err, sizeof err), err);
    size_t used;
    for (size_t i = 0; i < b.n; i++) { /* flip every byte in turn: decode fails or differs */
        b.p[i] ^= 0x40;
        int rc = gl_decode_game(b.p, b.n, GL_VERSION, &h, &used, err, sizeof err);
        CHECK(rc != 0 || !same_game(&g, &h, false) || used != b.n);
        b.p[i] ^= 0x40;
    }
    gl_buf_free(&b);
    gl_game_free(&g);
    gl_game_free(&h);
}

static char tmpdir[256];

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static int scan_path(const char *path, gl_shard_t *s) {
    char err[256];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    gl_src_t src = {.fd = fd, .size = file_size(path)};
    int rc = gl_shard_scan(&src, s, true, err, sizeof err);
    close(fd);
    return rc;
}

static void copy_file(const char *from, const char *to, uint64_t len) {
    FILE *f = fopen(from, "rb"), *t = fopen(to, "wb");
    char buf[4096];
    size_t n;
    while (len && (n = fread(buf, 1, len < sizeof buf ? (size_t)len : sizeof buf, f)) > 0) {
        CHECK(fwrite(buf, 1, n, t) == n);
        len -= n;
    }
    fclose(f);
    fclose(t);
}

static void test_shards(void) {
    char err[256] = "", path[512], path2[512];
    snprintf(path, sizeof path, "%s/shard-00000.gkz", tmpdir);
    snprintf(path2, sizeof path2, "%s/scratch.gkz", tmpdir);
    gl_writer_opts_t o = {.level = 3, .code = GL_CODE_INDEX, .stats = true};
    gl_writer_t *w;
    uint64_t dropped;
    CHECK_OK(gl_writer_open(&w, path, &o, false, &dropped, err, sizeof err), err);
    /* A second writer on the same shard is refused (another job on the same DIR). */
    gl_writer_t *w2;
    CHECK(gl_writer_open(&w2, path, &o, false, NULL, err, sizeof err) == GK_E_LOCKED);
    gl_game_t g, h;
    gl_game_init(&g);
    gl_game_init(&h);
    const int nframes = 5, per = 3;
    uint64_t ends[8];
    for (int f = 0; f < nframes; f++) {
        for (int k = 0; k < per; k++) {
            uint64_t idx = (uint64_t)(f * per + k) * 7 % 16;
            random_game(&g, f % 2 ? GK_GAME_GOBS : GK_GAME_GOUNKI, 0, idx, 1000 + idx, 200, true);
            CHECK_OK(gl_writer_add(w, &g, err, sizeof err), err);
        }
        CHECK(gl_writer_pending(w) == (uint32_t)per);
        CHECK_OK(gl_writer_flush(w, err, sizeof err), err);
        ends[f] = file_size(path);
    }
    CHECK_OK(gl_writer_close(w, err, sizeof err), err);

    /* Read back through a log set: located by index, decoded, equal. */
    gl_logset_t ls;
    CHECK_OK(gl_logset_open(&ls, tmpdir, true, err, sizeof err), err);
    CHECK(ls.nshards == 1 && ls.shard[0].status == GL_SHARD_OK && ls.shard[0].nframes == 5);
    gl_loc_t *loc;
    uint64_t n;
    CHECK_OK(gl_logset_locate(&ls, &loc, &n, err, sizeof err), err);
    CHECK(n == (uint64_t)(nframes * per));
    gl_reader_t *rd;
    CHECK_OK(gl_reader_new(&rd, &ls, err, sizeof err), err);
    for (uint64_t i = 0; i < n; i++) {
        if (i) CHECK(loc[i - 1].index <= loc[i].index);
        CHECK_OK(gl_reader_get(rd, &loc[i], &h, err, sizeof err), err);
        int f = (int)loc[i].frame;
        random_game(&g, f % 2 ? GK_GAME_GOBS : GK_GAME_GOUNKI, 0, loc[i].index, 1000 + loc[i].index,
                    200, true);
        CHECK(same_game(&g, &h, true));
    }
    gl_reader_free(rd);
    /* A shard gone after the scan: the reason names it once, and the game. */
    char gone[600];
    snprintf(gone, sizeof gone, "%s.gone", path);
    CHECK_OK(gl_reader_new(&rd, &ls, err, sizeof err), err);
    CHECK(rename(path, gone) == 0);
    CHECK(gl_reader_get(rd, &loc[0], &h, err, sizeof err) == GK_E_IO);
    char want[700];
    snprintf(want, sizeof want, "%s: game %llu: ", path, (unsigned long long)loc[0].index);
    CHECK(strncmp(err, want, strlen(want)) == 0 && !strstr(err + strlen(want), path), "%s", err);
    CHECK(rename(gone, path) == 0);
    gl_reader_free(rd);
    free(loc);
    gl_logset_free(&ls);

    /* Every cut inside the last frame is TORN; the writer cuts it off and appends. */
    uint64_t full = ends[nframes - 1], last = ends[nframes - 2];
    gl_shard_t s;
    gl_shard_init(&s);
    for (uint64_t cut = last + 1; cut < full; cut += 1 + (full - last) / 200) {
        copy_file(path, path2, cut);
        CHECK(scan_path(path2, &s) == 0);
        CHECK(s.status == GL_SHARD_TORN && s.valid_end == last && s.nframes == 4);
    }
    copy_file(path, path2, full - 3);
    CHECK_OK(gl_writer_open(&w, path2, &o, false, &dropped, err, sizeof err), err);
    CHECK(dropped == full - 3 - last);
    random_game(&g, GK_GAME_GOUNKI, 0, 99, 99, 100, true);
    CHECK_OK(gl_writer_add(w, &g, err, sizeof err), err);
    CHECK_OK(gl_writer_close(w, err, sizeof err), err);
    CHECK(scan_path(path2, &s) == 0 && s.status == GL_SHARD_OK && s.nframes == 5);
    CHECK(s.nindex == (uint64_t)(4 * per + 1) && s.index[s.nindex - 1] == 99);

    /* A zero-filled tail (a crash after the size grew) is TORN too. */
    copy_file(path, path2, full);
    FILE *f = fopen(path2, "ab");
    for (int i = 0; i < 5000; i++) fputc(0, f);
    fclose(f);
    CHECK(scan_path(path2, &s) == 0 && s.status == GL_SHARD_TORN && s.valid_end == full);

    /* A flipped byte: CORRUPT in an early frame, TORN or CORRUPT in the last; never OK. */
    FILE *in = fopen(path, "rb");
    uint8_t *img = malloc(full);
    CHECK(fread(img, 1, full, in) == full);
    fclose(in);
    int corrupt = 0, torn = 0;
    for (uint64_t i = 0; i < full; i += 1 + full / 300) {
        img[i] ^= 0x10;
        gl_src_t src = {.fd = -1, .mem = img, .size = full};
        CHECK(gl_shard_scan(&src, &s, true, err, sizeof err) == 0);
        CHECK(s.status != GL_SHARD_OK);
        if (s.status == GL_SHARD_CORRUPT)
            corrupt++;
        else
            torn++;
        if (i < last) CHECK(s.status == GL_SHARD_CORRUPT);
        img[i] ^= 0x10;
    }
    CHECK(corrupt > 0 && torn > 0);
    /* The writer refuses a corrupt shard unless told to repair it. */
    img[ends[0] + 40] ^= 1;
    f = fopen(path2, "wb");
    CHECK(fwrite(img, 1, full, f) == full);
    fclose(f);
    CHECK(gl_writer_open(&w, path2, &o, false, NULL, err, sizeof err) == GK_E_FORMAT);
    CHECK(strstr(err, "log verify") != NULL);
    CHECK_OK(gl_writer_open(&w, path2, &o, true, &dropped, err, sizeof err), err);
    CHECK_OK(gl_writer_close(w, err, sizeof err), err);
    CHECK(file_size(path2) == ends[0]);
    free(img);

    /* A frame of a newer format version is refused by name. */
    gl_buf_t pay = {0}, fr = {0};
    random_game(&g, GK_GAME_GOUNKI, 0, 5, 5, 100, true);
    CHECK_OK(gl_encode_game(&g, GL_CODE_INDEX, true, &pay, err, sizeof err), err);
    uint64_t idx5 = 5;
    CHECK_OK(gl_frame_build(&pay, &idx5, 1, 1, &fr, err, sizeof err), err);
    gl_src_t src = {.fd = -1, .mem = fr.p, .size = fr.n};
    CHECK(gl_shard_scan(&src, &s, true, err, sizeof err) == 0 && s.status == GL_SHARD_OK);
    CHECK(s.nframes == 1 && s.index[0] == 5);
    gl_buf_t out = {0};
    CHECK_OK(gl_frame_load(&src, &s.frame[0], &out, err, sizeof err), err);
    CHECK(out.n == pay.n && !memcmp(out.p, pay.p, pay.n));
    fr.p[12] = GL_VERSION + 1; /* version field, then re-seal the header checksum */
    uint32_t user = fr.p[4] | fr.p[5] << 8 | fr.p[6] << 16 | (uint32_t)fr.p[7] << 24;
    uint64_t hs = gk_xxh64(fr.p + 8, user - 8, 0);
    for (int i = 0; i < 8; i++) fr.p[8 + user - 8 + i] = (uint8_t)(hs >> (8 * i));
    CHECK(gl_shard_scan(&src, &s, true, err, sizeof err) == 0 && s.status == GL_SHARD_CORRUPT);
    CHECK(strstr(s.problem, "version") != NULL);
    gl_buf_free(&pay);
    gl_buf_free(&fr);
    gl_buf_free(&out);
    gl_shard_free(&s);
    gl_game_free(&g);
    gl_game_free(&h);
    unlink(path2);
}

static void test_manifest(void) {
    char err[256] = "", buf[4096];
    gl_manifest_t m = {.games = 1000}, r;
    snprintf(m.settings, sizeof m.settings, "game=gounki playouts=100 seed=1");
    snprintf(m.engine, sizeof m.engine, "0.1.0");
    m.fingerprint = gk_xxh64(m.settings, strlen(m.settings), 0);
    CHECK_OK(gl_manifest_write(tmpdir, &m, err, sizeof err), err);
    CHECK_OK(gl_manifest_read(tmpdir, &r, err, sizeof err), err);
    CHECK(r.games == 1000 && r.fingerprint == m.fingerprint && !strcmp(r.settings, m.settings));
    int n = gl_manifest_format(&m, buf, sizeof buf);
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        buf[i] ^= 0x01;
        CHECK(gl_manifest_parse(buf, (size_t)n, &r, err, sizeof err) != 0);
        buf[i] ^= 0x01;
    }
    for (int i = 0; i < n; i++) CHECK(gl_manifest_parse(buf, (size_t)i, &r, err, sizeof err) != 0);
    char dir2[300];
    snprintf(dir2, sizeof dir2, "%s/none", tmpdir);
    CHECK(gl_manifest_read(dir2, &r, err, sizeof err) == GK_E_IO && errno == ENOENT);
}

int main(void) {
    gk_init();
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/test_gamelog.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_xxh64();
    test_records();
    test_shards();
    test_manifest();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmpdir);
    if (!check_failures) printf("test_gamelog: ok\n");
    return check_exit("test_gamelog");
}
