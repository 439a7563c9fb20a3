/* common/files.c -- directories, whole-file reads and atomic writes (common/files.h). */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "status.h"

#define PATH_CAP 4096

const char *gk_path_shown(const char *path) {
    return path && *path ? path : "''";
}

int gk_path_join(char *buf, size_t cap, const char *dir, const char *name) {
    int k = snprintf(buf, cap, "%s/%s", dir, name);
    return k < 0 || (size_t)k >= cap ? -1 : 0;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int gk_mkdir_p(const char *path, char *err, size_t errcap) {
    char p[PATH_CAP];
    GK_RETURN_IF(!path || !*path, err, errcap, GK_E_INVALID, "empty directory name ''");
    GK_RETURN_IF(snprintf(p, sizeof p, "%s", path) >= (int)sizeof p, err, errcap, GK_E_INVALID,
                 "%s: path too long", path);
    for (char *q = p + 1; *q; q++) {
        if (*q != '/') continue;
        *q = 0;
        if (mkdir(p, 0777) && errno != EEXIST)
            return gk_fail(err, errcap, GK_E_IO, "%s: %s", p, strerror(errno));
        GK_RETURN_IF(!is_dir(p), err, errcap, GK_E_IO, "%s: not a directory", p);
        *q = '/';
    }
    if (mkdir(p, 0777) && errno != EEXIST)
        return gk_fail(err, errcap, GK_E_IO, "%s: %s", p, strerror(errno));
    GK_RETURN_IF(!is_dir(p), err, errcap, GK_E_IO, "%s: not a directory", p);
    return GK_OK;
}

/* The directory part of path ("." for a bare name, "/" for a name in the root). */
static void dir_of(const char *path, char *dir, size_t cap) {
    snprintf(dir, cap, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
}

int gk_fsync_dir_of(const char *path) {
    char dir[PATH_CAP];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int r = fsync(fd);
    int e = errno;
    close(fd);
    /* Some file systems do not fsync directories; that is not an error of ours. */
    if (r && (e == EINVAL || e == EBADF || e == ENOTSUP)) r = 0;
    errno = e;
    return r;
}

int gk_check_writable(const char *path, char *err, size_t errcap) {
    GK_RETURN_IF(!path || !*path, err, errcap, GK_E_INVALID, "empty file name ''");
    GK_RETURN_IF(strlen(path) >= PATH_CAP - 32, err, errcap, GK_E_INVALID, "%s: path too long",
                 path);
    GK_RETURN_IF(path[strlen(path) - 1] == '/' || is_dir(path), err, errcap, GK_E_INVALID,
                 "%s: is a directory, not a file name", path);
    char dir[PATH_CAP];
    dir_of(path, dir, sizeof dir);
    struct stat st;
    GK_RETURN_IF(stat(dir, &st), err, errcap, GK_E_IO, "%s: directory %s does not exist", path,
                 dir);
    GK_RETURN_IF(!S_ISDIR(st.st_mode), err, errcap, GK_E_IO, "%s: %s is not a directory", path,
                 dir);
    GK_RETURN_IF(access(dir, W_OK | X_OK), err, errcap, GK_E_IO, "%s: directory %s: %s", path, dir,
                 strerror(errno));
    return GK_OK;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int gk_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errcap) {
    GK_FORWARD_IF(gk_check_writable(path, err, errcap));
    char tmp[PATH_CAP];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return gk_fail(err, errcap, GK_E_IO, "%s: cannot write: %s", path, strerror(errno));
    int bad = write_all(fd, data, n) || fsync(fd);
    int e = errno;
    if (close(fd) && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path)) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return gk_fail(err, errcap, GK_E_IO, "%s: cannot write: %s", path, strerror(e ? e : EIO));
    }
    if (gk_fsync_dir_of(path))
        return gk_fail(err, errcap, GK_E_IO, "%s: fsync of its directory: %s", path,
                       strerror(errno));
    return GK_OK;
}

int gk_afile_open(gk_afile_t *a, const char *path, char *err, size_t errcap) {
    memset(a, 0, sizeof *a);
    GK_FORWARD_IF(gk_check_writable(path, err, errcap));
    size_t n = strlen(path) + 32;
    a->path = strdup(path);
    a->tmp = malloc(n);
    if (!a->path || !a->tmp) {
        gk_afile_abort(a);
        return gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", path);
    }
    snprintf(a->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        gk_afile_abort(a);
        return gk_fail(err, errcap, GK_E_IO, "%s: cannot write: %s", path, strerror(e));
    }
    return GK_OK;
}

void gk_afile_abort(gk_afile_t *a) {
    if (a->f) fclose(a->f);
    if (a->tmp) unlink(a->tmp);
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
}

int gk_afile_commit(gk_afile_t *a, char *err, size_t errcap) {
    int bad = fflush(a->f) || ferror(a->f) || fsync(fileno(a->f));
    int e = errno;
    if (fclose(a->f) && !bad) bad = 1, e = errno;
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path)) bad = 1, e = errno;
    int rc = GK_OK;
    if (bad)
        rc = gk_fail(err, errcap, GK_E_IO, "%s: cannot write: %s", a->path, strerror(e ? e : EIO));
    else if (gk_fsync_dir_of(a->path))
        rc = gk_fail(err, errcap, GK_E_IO, "%s: fsync of its directory: %s", a->path,
                     strerror(errno));
    if (!bad) {
        free(a->tmp); /* renamed: nothing to remove */
        a->tmp = NULL;
    }
    gk_afile_abort(a);
    return rc;
}

int gk_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errcap) {
    *data = NULL;
    *n = 0;
    GK_RETURN_IF(!path || !*path, err, errcap, GK_E_INVALID, "empty file name ''");
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(e));
        errno = e; /* callers tell a missing file (ENOENT) from the others */
        return GK_E_IO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return gk_fail(err, errcap, GK_E_IO, "%s: is a directory", path);
    }
    char *b = malloc(max + 1);
    if (!b) {
        fclose(f);
        return gk_fail(err, errcap, GK_E_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(b, 1, max, f);
    int rd_err = ferror(f);
    int more = !rd_err && fgetc(f) != EOF;
    fclose(f);
    if (rd_err || more) {
        free(b);
        return rd_err ? gk_fail(err, errcap, GK_E_IO, "%s: read error", path)
                      : gk_fail(err, errcap, GK_E_FORMAT, "%s: larger than %zu bytes", path, max);
    }
    b[got] = 0;
    *data = b;
    *n = got;
    return GK_OK;
}
