/*
 * common/clock.h -- the project's clocks.
 *
 * gk_now_s() is a monotonic wall clock in seconds (CLOCK_MONOTONIC): for time budgets,
 * speeds and progress lines.  It never goes back and has no meaning as a date.
 * gk_cpu_s() is the CPU time of the whole process (every thread), for per-game costs.
 * gk_utc_iso() writes the current UTC date and time as "2026-12-01T22:18:02Z" (for
 * provenance lines), returning the length or -1 when cap is too small.
 * gk_deadline_ms(ts, ms) sets *ts to ms milliseconds from now on CLOCK_REALTIME, the clock
 * of pthread_cond_timedwait() (ms in [0, 1000)).
 */
#ifndef GK_COMMON_CLOCK_H
#define GK_COMMON_CLOCK_H

#include <stddef.h>
#include <time.h>

double gk_now_s(void);
double gk_cpu_s(void);
int gk_utc_iso(char *buf, size_t cap);
void gk_deadline_ms(struct timespec *ts, long ms);

#endif
