/* common/clock.c -- clocks of common/clock.h. */
#include "clock.h"

#include <time.h>

double gk_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double gk_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gk_utc_iso(char *buf, size_t cap) {
    time_t t = time(NULL);
    struct tm tm;
    if (!gmtime_r(&t, &tm)) return -1;
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return n ? (int)n : -1;
}

void gk_deadline_ms(struct timespec *ts, long ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += ms * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}
