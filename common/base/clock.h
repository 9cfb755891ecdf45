/* Clocks for tools that act in real time: a monotonic clock for schedules, deadlines and
 * timeouts (it never jumps when the wall clock is set), and the wall clock for timestamps. Times
 * are seconds as doubles: nanosecond resolution for years of uptime. */
#ifndef ACP_CLOCK_H
#define ACP_CLOCK_H

#include <stdbool.h>
#include <time.h>

/* Seconds on the monotonic clock (since an arbitrary point). */
double clock_monotonic(void);
/* Seconds since 1970 on the wall clock, with the fraction. */
double clock_wall(void);

/* Sleeps until the monotonic clock reads deadline, against that absolute time, so that the
 * wake-up error never adds up over many sleeps. Returns false when a signal cut the sleep short
 * (the caller decides whether to sleep again). Waits are capped at about 31 years. */
bool clock_sleep_until(double deadline);

/* The time left until deadline as a relative timeout for ppoll, never negative. Returns NULL for
 * a deadline of INFINITY (wait without a timeout), else out. */
struct timespec *clock_timeout_until(double deadline, struct timespec *out);

#endif
