/*
 * common/files.h -- directories, whole-file reads and atomic writes.
 *
 * Contract
 * --------
 * Every function returns GK_OK or a negative gk_status_t with a one-line reason in err
 * (common/status.h).  Reasons name the path the caller gave (never a temporary file's
 * name) once, and show an empty path as ''.
 *
 * - gk_mkdir_p() creates a directory and its missing parents (mode 0777 less the umask).
 *   It succeeds when the directory exists already, and fails (GK_E_IO) when the path or a
 *   parent exists but is not a directory.
 * - gk_write_atomic() replaces path with exactly the n bytes given, or leaves it as it
 *   was: the bytes go to a temporary file beside it (same directory, so rename is atomic),
 *   which is fsynced, renamed over path, and the directory is fsynced, so that after a
 *   crash path holds either the old or the new contents and the new name is durable.
 * - gk_check_writable() tells before long work whether gk_write_atomic() could create
 *   path: the name is not empty, not an existing directory, and its directory exists and
 *   is writable.  (It cannot promise: the disk may fill up later.)
 * - gk_read_file() reads a whole file of at most max bytes into a malloc'd buffer with a
 *   NUL after the last byte; larger files are refused (GK_E_FORMAT), not truncated.  When
 *   the file cannot be opened it returns GK_E_IO with errno kept (ENOENT: there is none).
 * - gk_fsync_dir_of() fsyncs the directory holding path (returns 0, or -1 with errno);
 *   file systems that cannot fsync a directory count as success.
 * - gk_path_join() writes "dir/name"; -1 when it does not fit in cap.
 * - gk_afile_open() / gk_afile_commit() are gk_write_atomic() for output written as it is
 *   made (too large to hold in memory): a FILE * on a temporary file beside path, which
 *   commit flushes, fsyncs and renames over path (then fsyncs the directory), or removes
 *   when anything failed; gk_afile_abort() removes it.  Either ends the gk_afile_t.
 */
#ifndef GK_COMMON_FILES_H
#define GK_COMMON_FILES_H

#include <stddef.h>
#include <stdio.h>

int gk_mkdir_p(const char *path, char *err, size_t errcap);
int gk_write_atomic(const char *path, const void *data, size_t n, char *err, size_t errcap);
int gk_check_writable(const char *path, char *err, size_t errcap);
int gk_read_file(const char *path, size_t max, char **data, size_t *n, char *err, size_t errcap);
int gk_fsync_dir_of(const char *path);
int gk_path_join(char *buf, size_t cap, const char *dir, const char *name);

typedef struct gk_afile {
    FILE *f;    /* write here */
    char *path; /* the caller's path and the temporary beside it (malloc'd) */
    char *tmp;
} gk_afile_t;
int gk_afile_open(gk_afile_t *a, const char *path, char *err, size_t errcap);
int gk_afile_commit(gk_afile_t *a, char *err, size_t errcap);
void gk_afile_abort(gk_afile_t *a);

/* The path as reasons show it: the path itself, or '' when it is empty. */
const char *gk_path_shown(const char *path);

#endif
