/*
 * tests/test_common.c -- the helpers of common/: reasons, directories, atomic writes,
 * whole-file reads, text builders, hashes.
 *
 * - gk_fail/gk_err_wrap write one line and return the code; NULL err is allowed.
 * - gk_mkdir_p creates nested directories, accepts existing ones, refuses a file in the way.
 * - gk_write_atomic replaces a file's contents, names the user's path (not a temporary
 *   one) in its reasons, leaves no temporary file behind, refuses an empty name and a
 *   directory; gk_check_writable refuses a missing directory.
 * - gk_afile_*: a streamed atomic write appears only on commit, an aborted one leaves
 *   nothing, and a missing directory is refused at open with the user's path.
 * - gk_read_file returns the bytes with a NUL, refuses a file over the limit.
 * - gk_sb_*: fixed buffers truncate and flag, growing buffers hold megabytes, escaping.
 * - gk_fnv1a64 matches the published FNV-1a test vectors (the values are in files).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/status.h"
#include "common/strbuf.h"
#include "check.h"

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void test_status(void) {
    char err[32];
    CHECK(gk_fail(err, sizeof err, GK_E_IO, "x: %d", 7) == GK_E_IO, "code");
    CHECK(!strcmp(err, "x: 7"), "reason '%s'", err);
    CHECK(gk_err_wrap(err, sizeof err, GK_E_FORMAT, "line %d: ", 3) == GK_E_FORMAT, "wrap code");
    CHECK(!strcmp(err, "line 3: x: 7"), "wrapped '%s'", err);
    CHECK(gk_fail(NULL, 0, GK_E_NOMEM, "ignored") == GK_E_NOMEM, "NULL err");
    char small[8];
    gk_fail(small, sizeof small, GK_E_INVALID, "a much longer reason than fits");
    CHECK(strlen(small) == 7, "truncated to the buffer");
    CHECK(!strcmp(gk_status_name(GK_E_CHECKSUM), "checksum"), "name");
    CHECK(!strcmp(gk_status_name(-999), "unknown"), "unknown name");
}

static void test_files(const char *tmp) {
    char err[512], path[1024], sub[1024];
    snprintf(sub, sizeof sub, "%s/a/b/c", tmp);
    CHECK(gk_mkdir_p(sub, err, sizeof err) == GK_OK, "mkdir_p: %s", err);
    CHECK(gk_mkdir_p(sub, err, sizeof err) == GK_OK, "mkdir_p again: %s", err);
    snprintf(path, sizeof path, "%s/a/file", tmp);
    CHECK(gk_write_atomic(path, "one", 3, err, sizeof err) == GK_OK, "write: %s", err);
    CHECK(gk_write_atomic(path, "second", 6, err, sizeof err) == GK_OK, "rewrite: %s", err);
    char *data;
    size_t n;
    CHECK(gk_read_file(path, 100, &data, &n, err, sizeof err) == GK_OK, "read: %s", err);
    CHECK(n == 6 && !strcmp(data, "second"), "contents '%s'", data);
    free(data);
    CHECK(gk_read_file(path, 5, &data, &n, err, sizeof err) == GK_E_FORMAT && !data,
          "over the limit: %s", err);
    snprintf(sub, sizeof sub, "%s/a", tmp);
    CHECK(count_entries(sub) == 2, "no temporary file left (%d entries)", count_entries(sub));
    snprintf(sub, sizeof sub, "%s/a/file/x", tmp);
    CHECK(gk_mkdir_p(sub, err, sizeof err) == GK_E_IO, "a file in the way");
    CHECK(gk_write_atomic("", "x", 1, err, sizeof err) == GK_E_INVALID && strstr(err, "''"),
          "empty name: %s", err);
    snprintf(sub, sizeof sub, "%s/a/b", tmp);
    CHECK(gk_write_atomic(sub, "x", 1, err, sizeof err) == GK_E_INVALID &&
              strstr(err, "is a directory"),
          "directory: %s", err);
    snprintf(sub, sizeof sub, "%s/missing/w.txt", tmp);
    CHECK(gk_check_writable(sub, err, sizeof err) == GK_E_IO && strstr(err, sub) &&
              !strstr(err, ".tmp"),
          "missing directory: %s", err);
    CHECK(gk_write_atomic(sub, "x", 1, err, sizeof err) == GK_E_IO, "no write there");
    snprintf(sub, sizeof sub, "%s/a/file/w.txt", tmp);
    CHECK(gk_check_writable(sub, err, sizeof err) == GK_E_IO && strstr(err, "is not a directory"),
          "a file as the directory: %s", err);
    CHECK(gk_read_file(sub, 10, &data, &n, err, sizeof err) == GK_E_IO && strstr(err, sub),
          "missing file: %s", err);
    char joined[16];
    CHECK(gk_path_join(joined, sizeof joined, "dir", "name") == 0 && !strcmp(joined, "dir/name"),
          "join");
    CHECK(gk_path_join(joined, sizeof joined, "a-long-dir", "a-long-name") == -1, "join fits");
}

static void test_strbuf(void) {
    char buf[8];
    gk_sb_t b;
    gk_sb_fixed(&b, buf, sizeof buf);
    gk_sb_printf(&b, "%d-%s", 12, "ab");
    CHECK(gk_sb_len(&b) == 5 && !strcmp(buf, "12-ab"), "fixed '%s'", buf);
    gk_sb_puts(&b, "xyz");
    CHECK(b.over && gk_sb_len(&b) == -1 && !strcmp(buf, "12-abxy"), "overflow keeps '%s'", buf);
    gk_sb_growing(&b);
    for (int i = 0; i < 100000; i++) gk_sb_printf(&b, "%05d\n", i);
    CHECK(gk_sb_len(&b) == 600000 && !memcmp(b.p + 599994, "99999\n", 6), "growing");
    size_t len;
    char *t = gk_sb_take(&b, &len);
    CHECK(t && len == 600000, "take");
    free(t);
    gk_sb_put_xml(&b, "<a href=\"x\">&'</a>");
    CHECK(!strcmp(b.p, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"), "xml '%s'", b.p);
    gk_sb_free(&b);
    gk_sb_put_json(&b, "a\"b\\c\n");
    CHECK(!strcmp(b.p, "\"a\\\"b\\\\c\\u000a\""), "json '%s'", b.p);
    gk_sb_free(&b);
    gk_sb_fixed(&b, buf, sizeof buf);
    CHECK(gk_sb_take(&b, &len) == NULL, "take of a fixed buffer");
}

static void test_hash_clock(void) {
    CHECK(gk_fnv1a64(GK_FNV1A_INIT, "", 0) == 0xcbf29ce484222325ull, "fnv empty");
    CHECK(gk_fnv1a64(GK_FNV1A_INIT, "a", 1) == 0xaf63dc4c8601ec8cull, "fnv a");
    CHECK(gk_fnv1a64(GK_FNV1A_INIT, "foobar", 6) == 0x85944171f73967e8ull, "fnv foobar");
    CHECK(gk_fnv1a64(gk_fnv1a64(GK_FNV1A_INIT, "foo", 3), "bar", 3) == 0x85944171f73967e8ull,
          "fnv chained");
    double a = gk_now_s(), b = gk_now_s();
    CHECK(b >= a && a > 0, "monotonic");
    char iso[32];
    CHECK(gk_utc_iso(iso, sizeof iso) == 20 && iso[10] == 'T' && iso[19] == 'Z', "iso '%s'", iso);
    CHECK(gk_cpu_s() >= 0, "cpu time");
}

static void test_afile(const char *tmp) {
    char err[512], dir[512], path[1100];
    snprintf(dir, sizeof dir, "%s/af", tmp);
    CHECK(gk_mkdir_p(dir, err, sizeof err) == GK_OK, "mkdir: %s", err);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    gk_afile_t a;
    CHECK(gk_afile_open(&a, path, err, sizeof err) == GK_OK, "open: %s", err);
    fprintf(a.f, "line %d\n", 1);
    CHECK(access(path, F_OK) != 0, "the file appears before the commit");
    CHECK(gk_afile_commit(&a, err, sizeof err) == GK_OK, "commit: %s", err);
    char *data;
    size_t n;
    CHECK(gk_read_file(path, 100, &data, &n, err, sizeof err) == GK_OK && !strcmp(data, "line 1\n"),
          "committed contents");
    free(data);
    CHECK(gk_afile_open(&a, path, err, sizeof err) == GK_OK, "open again: %s", err);
    fputs("half", a.f);
    gk_afile_abort(&a);
    CHECK(gk_read_file(path, 100, &data, &n, err, sizeof err) == GK_OK && !strcmp(data, "line 1\n"),
          "an aborted write keeps the old contents");
    free(data);
    CHECK(count_entries(dir) == 1, "no temporary file left (%d entries)", count_entries(dir));
    snprintf(path, sizeof path, "%s/missing/out.txt", tmp);
    CHECK(gk_afile_open(&a, path, err, sizeof err) == GK_E_IO && strstr(err, path) && !a.f,
          "missing directory: %s", err);
}

int main(void) {
    char tmp[] = "/tmp/gk_common_XXXXXX";
    if (!mkdtemp(tmp)) return 1;
    test_status();
    test_files(tmp);
    test_afile(tmp);
    test_strbuf();
    test_hash_clock();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK(system(cmd) == 0, "%s", cmd);
    return check_exit("test_common");
}
