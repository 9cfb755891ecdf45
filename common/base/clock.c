#include "base/clock.h"

#include <errno.h>
#include <math.h>
#include <time.h>

static double seconds_of(const struct timespec *ts)
{
    return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

double clock_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return seconds_of(&ts);
}

double clock_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return seconds_of(&ts);
}

/* Far enough for any wait, near enough for every time_t. */
enum { MAX_SECONDS = 1000000000 };

static struct timespec timespec_of(double t)
{
    if (!(t > 0))
        t = 0;
    if (t > MAX_SECONDS)
        t = MAX_SECONDS;
    double whole = floor(t);
    struct timespec ts = {.tv_sec = (time_t)whole, .tv_nsec = (long)((t - whole) * 1e9)};
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

bool clock_sleep_until(double deadline)
{
    if (!isfinite(deadline))
        return false;
    struct timespec ts = timespec_of(deadline);
    int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    return err != EINTR;
}

struct timespec *clock_timeout_until(double deadline, struct timespec *out)
{
    if (isinf(deadline) && deadline > 0)
        return NULL;
    double left = deadline - clock_monotonic();
    *out = timespec_of(left > 0 ? left : 0);
    return out;
}
