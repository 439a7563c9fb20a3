/*
 * tests/check.h -- CHECK, CHECK_OK and check_exit(): the checks of every C test.
 *
 * Contract
 * --------
 * CHECK(cond) and CHECK(cond, fmt, ...) count a failure when cond is false and print
 * "FILE:LINE: CHECK failed: cond" (and ": message" when given) on stderr.  Only the
 * first CHECK_MAX_SHOWN failures are printed, so a broken property over thousands of
 * random games does not flood the log; every one is counted.
 * CHECK_OK(rc, err) expects rc == 0 (GK_OK) and prints the code's name and the reason
 * buffer err otherwise.
 * check_failures is the number of failures so far (tests may stop early on it);
 * `return check_exit("NAME");` ends main: it prints the count when there were failures
 * and returns the exit status (0 = pass).
 * The header is for test programs only (one translation unit each): it defines its
 * counter and functions as statics.
 */
#ifndef GK_TESTS_CHECK_H
#define GK_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "common/status.h"

#define CHECK_MAX_SHOWN 50

static int check_failures;

/* A CHECK without a message passes "" as the format; that is intended here. */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

__attribute__((format(printf, 4, 5), unused)) static void
check_failed(const char *file, int line, const char *cond, const char *fmt, ...) {
    if (check_failures++ >= CHECK_MAX_SHOWN) return;
    fprintf(stderr, "%s:%d: CHECK failed: %s", file, line, cond);
    if (fmt[0]) {
        fputs(": ", stderr);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) check_failed(__FILE__, __LINE__, #cond, "" __VA_ARGS__);                      \
    } while (0)

#define CHECK_OK(rc, err)                                                                          \
    do {                                                                                           \
        int check_rc_ = (rc);                                                                      \
        if (check_rc_)                                                                             \
            check_failed(__FILE__, __LINE__, #rc, "%d (%s): %s", check_rc_,                        \
                         gk_status_name(check_rc_), (err));                                        \
    } while (0)

__attribute__((unused)) static int check_exit(const char *name) {
    if (check_failures) fprintf(stderr, "%s: %d failure(s)\n", name, check_failures);
    return check_failures != 0;
}

#endif
