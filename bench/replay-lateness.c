/* replay-lateness: measures, from the outside, how precisely a replay keeps its schedule. Reads
 * lines from standard input, notes when each arrives (monotonic clock), and compares with the
 * schedule of a capture of RATE messages a second spread evenly: line i is due i / RATE seconds
 * after line 0. Prints the median, 99th percentile and maximum lateness, and the drift: the
 * median lateness of the last second minus that of the first. A replay never sends early, so the
 * schedule's anchor is taken where the least late line puts it: lateness is measured from there,
 * pipe included, whatever delayed the first line.
 * Usage: replay-lateness RATE < LINES */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of n values, sorting them in place. */
static double quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, by_value);
    size_t rank = (size_t)(q * (double)n + 0.999999);
    return v[rank ? rank - 1 : 0];
}

int main(int argc, char **argv)
{
    double rate = argc > 1 ? atof(argv[1]) : 0;
    if (!(rate > 0 && rate < 1e9)) { /* and (size_t)rate below stays in range */
        fprintf(stderr, "usage: replay-lateness RATE < LINES\n");
        return 2;
    }
    size_t cap = 1024, n = 0;
    double *late = malloc(cap * sizeof *late);
    char *line = NULL;
    size_t len = 0;
    double first = 0;
    while (late && getline(&line, &len, stdin) > 0) {
        double t = now();
        if (n == 0)
            first = t;
        if (n == cap) {
            cap *= 2;
            late = realloc(late, cap * sizeof *late);
            if (!late)
                break;
        }
        late[n] = (t - first) - (double)n / rate;
        n++;
    }
    free(line);
    if (!late || n < 2 * (size_t)rate) {
        fprintf(stderr, "replay-lateness: %zu lines, fewer than two seconds' worth\n", n);
        return 2;
    }
    double least = late[0];
    for (size_t i = 1; i < n; i++)
        if (late[i] < least)
            least = late[i];
    for (size_t i = 0; i < n; i++)
        late[i] -= least;
    size_t second = (size_t)rate;
    double *copy = malloc(n * sizeof *copy);
    if (!copy)
        return 2;
    memcpy(copy, late, second * sizeof *copy);
    double first_median = quantile(copy, second, 0.5);
    memcpy(copy, late + n - second, second * sizeof *copy);
    double last_median = quantile(copy, second, 0.5);
    memcpy(copy, late, n * sizeof *copy);
    double median = quantile(copy, n, 0.5), p99 = quantile(copy, n, 0.99), max = copy[n - 1];
    printf("%zu lines: median %.3f ms, p99 %.3f ms, max %.3f ms, drift %+.3f ms\n", n,
           median * 1000, p99 * 1000, max * 1000, (last_median - first_median) * 1000);
    free(copy);
    free(late);
    return 0;
}
