/* durations: holds diagram_duration (the times between arrows the diagrams write, by hand) to
 * the same written by snprintf, over durations of every size: whole and fractional seconds to
 * the millisecond, minutes, hours and days, rounding at each unit's edge, negative ones, past
 * 10^15 s, and buffers too small for the text (cut as snprintf cuts).
 * Prints the cases that differ, then "checked N, differ N", and exits 1 when any differ.
 * Usage: durations [ROUNDS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/diagram.h"

/* What the diagrams wrote through snprintf: the specification. */
static void by_snprintf(double seconds, char *buf, size_t size)
{
    const char *sign = seconds < 0 ? "-" : "";
    double magnitude = fabs(seconds);
    if (!(magnitude < 1e15)) {
        snprintf(buf, size, "%s%.3gs", sign, magnitude);
        return;
    }
    long long ms = llround(magnitude * 1000);
    if (ms < 60000) {
        long long whole = ms / 1000, frac = ms % 1000;
        if (!frac) {
            snprintf(buf, size, "%s%llds", sign, whole);
            return;
        }
        int digits = frac % 100 == 0 ? 1 : frac % 10 == 0 ? 2 : 3;
        long long shown = digits == 1 ? frac / 100 : digits == 2 ? frac / 10 : frac;
        snprintf(buf, size, "%s%lld.%0*llds", sign, whole, digits, shown);
        return;
    }
    long long s = (ms + 500) / 1000;
    long long days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60, secs = s % 60;
    if (days)
        snprintf(buf, size, "%s%lldd%02lldh%02lldm%02llds", sign, days, hours, minutes, secs);
    else if (hours)
        snprintf(buf, size, "%s%lldh%02lldm%02llds", sign, hours, minutes, secs);
    else
        snprintf(buf, size, "%s%lldm%02llds", sign, minutes, secs);
}

static unsigned long checked, differ;

static void check(double seconds, size_t size)
{
    char got[DIAGRAM_DURATION_SIZE + 8], want[DIAGRAM_DURATION_SIZE + 8];
    memset(got, 'x', sizeof got);
    memset(want, 'x', sizeof want);
    diagram_duration(seconds, got, size);
    by_snprintf(seconds, want, size);
    checked++;
    if (memcmp(got, want, sizeof got) != 0 && differ++ < 20)
        printf("%.17g in %zu bytes: got '%.*s', want '%.*s'\n", seconds, size,
               (int)strnlen(got, size), got, (int)strnlen(want, size), want);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 11;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    uint64_t state = 7;
    static const double edges[] = {0,        0.001,    0.0005,  0.0004999, 0.1,      0.25,
                                   0.999,    0.9995,   1,       59.999,    59.9995,  60,
                                   60.4999,  60.5,     3599.5,  3600,      86399.5,  86400,
                                   90061,    1e9,      1e14,    9.99e14,   1e15,     1e300,
                                   INFINITY, -INFINITY, NAN,    -0.0,      -0.25,    -90061};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        for (size_t size = 1; size <= DIAGRAM_DURATION_SIZE; size++) {
            check(edges[i], size);
            check(-edges[i], size);
        }
    for (unsigned long i = 0; i < rounds; i++) {
        /* a duration of milliseconds up to some days, or of any magnitude */
        double v;
        if (next_random(&state) % 2) {
            v = (double)(next_random(&state) % 400000000) / 1000;
        } else {
            double mantissa = (double)(next_random(&state) % 1000000);
            v = ldexp(mantissa, (int)(next_random(&state) % 80) - 30);
        }
        if (next_random(&state) % 4 == 0)
            v = -v;
        check(v, DIAGRAM_DURATION_SIZE);
        check(v, 1 + next_random(&state) % DIAGRAM_DURATION_SIZE);
    }
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ ? 1 : 0;
}
