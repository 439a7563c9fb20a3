/* common/status.c -- the reason buffer and code names of common/status.h. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gk_fail(char *err, size_t errcap, int code, const char *fmt, ...) {
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return code;
}

int gk_err_wrap(char *err, size_t errcap, int code, const char *fmt, ...) {
    if (!err || !errcap) return code;
    char old[1024];
    snprintf(old, sizeof old, "%s", err);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(err, errcap, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < errcap) snprintf(err + k, errcap - (size_t)k, "%s", old);
    return code;
}

const char *gk_status_name(int code) {
    static const char *const names[] = {
        "ok",   "invalid", "io",  "format", "checksum", "version", "nomem",    "replay",
        "zstd", "locked",  "arg", "empty",  "mpi",      "stopped", "mismatch",
    };
    if (code > 0) code = 0;
    size_t i = (size_t)(-code);
    return i < sizeof names / sizeof names[0] ? names[i] : "unknown";
}
