/*
 * common/status.h -- the one error convention of the library.
 *
 * Contract
 * --------
 * A library function that can fail returns an int: 0 (GK_OK) or a non-negative count on
 * success, a negative gk_status_t on failure.  Functions that can fail take a reason buffer
 * (char *err, size_t errcap) and, on failure, write one line into it: what went wrong,
 * naming the file, line, item or value concerned, with no trailing newline and no program
 * name (the caller in cli/ adds "gounki CMD: ").  A reason names a path once; callers that
 * add context put it before the reason with gk_err_wrap(), never the same path twice.
 * err may be NULL (errcap 0) when the caller only wants the code.
 *
 * The codes say what kind of failure it was so that callers can decide without parsing
 * the text (retry on GK_E_LOCKED, repair on GK_E_FORMAT/GK_E_CHECKSUM, ...).  Every
 * library layer uses these codes; there are no per-module code sets.
 *
 * GK_RETURN_IF and GK_FORWARD_IF are the two shapes of error return (as zstd's
 * RETURN_ERROR_IF / FORWARD_IF_ERROR): the first fails with a reason, the second passes a
 * callee's negative code (and its reason, already written) up unchanged.
 */
#ifndef GK_COMMON_STATUS_H
#define GK_COMMON_STATUS_H

#include <stddef.h>

typedef enum gk_status {
    GK_OK = 0,
    GK_E_INVALID = -1,  /* bad input or an illegal request (text, move, value, flag) */
    GK_E_IO = -2,       /* open/read/write/fsync/rename failed (errno in the reason) */
    GK_E_FORMAT = -3,   /* bytes that are not a valid file of the expected format */
    GK_E_CHECKSUM = -4, /* a checksum did not match */
    GK_E_VERSION = -5,  /* written by another format version or key table */
    GK_E_NOMEM = -6,    /* an allocation failed */
    GK_E_REPLAY = -7,   /* recorded actions are not legal, or the replay disagrees */
    GK_E_ZSTD = -8,     /* the zstd library reported an error */
    GK_E_LOCKED = -9,   /* another process holds the file */
    GK_E_ARG = -10,     /* the caller passed something inconsistent (a bug of the caller) */
    GK_E_EMPTY = -11,   /* nothing to work on (no games, no positions, no shards) */
    GK_E_MPI = -12,     /* an MPI call failed */
    GK_E_STOPPED = -13, /* stopped by a signal or a stop request before completion */
    GK_E_MISMATCH = -14 /* an existing file or run was made with other settings */
} gk_status_t;

/* Writes the formatted reason into err (when err is not NULL and errcap > 0) and returns
 * code, so that `return gk_fail(err, errcap, GK_E_IO, "%s: %s", path, strerror(errno));`
 * is the whole error path. */
int gk_fail(char *err, size_t errcap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Puts formatted context before the reason already in err ("line 3: " + reason) and
 * returns code.  Truncates, never overflows. */
int gk_err_wrap(char *err, size_t errcap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A short name of the code ("io", "format", ...), for logs and tests. */
const char *gk_status_name(int code);

#define GK_RETURN_IF(cond, err, errcap, code, ...)                                                 \
    do {                                                                                           \
        if (cond) return gk_fail((err), (errcap), (code), __VA_ARGS__);                            \
    } while (0)

#define GK_FORWARD_IF(expr)                                                                        \
    do {                                                                                           \
        int gk_rc_ = (expr);                                                                       \
        if (gk_rc_ < 0) return gk_rc_;                                                             \
    } while (0)

#endif
