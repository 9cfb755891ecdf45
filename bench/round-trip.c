/* round-trip: the time a line takes to go through a stdio agent and back. Starts COMMAND with
 * its stdin and stdout on pipes, writes N lines of JSON-RPC one at a time, each once the answer
 * to the one before came back, and prints the median and the 99th percentile of the round trips
 * in milliseconds. With `cat` as the agent, and then acp-tap in front of cat, the difference is
 * what acp-tap adds to each message. Usage: round-trip N COMMAND [ARG]... */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* Reads up to and with the next newline; false at the end or on an error. */
static bool read_line(int fd)
{
    char c;
    for (;;) {
        ssize_t n = read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        if (c == '\n')
            return true;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: round-trip N COMMAND [ARG]...\n");
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    int in[2], out[2];
    if (n <= 0 || pipe(in) || pipe(out)) {
        perror("round-trip");
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    double *took = malloc((size_t)n * sizeof *took);
    if (!took)
        return 2;
    for (long i = 0; i < n; i++) {
        char line[128];
        int len = snprintf(line, sizeof line,
                           "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}\n", i);
        double t0 = now();
        if (write(in[1], line, (size_t)len) != len || !read_line(out[0])) {
            fprintf(stderr, "round-trip: the agent went away at line %ld\n", i);
            return 1;
        }
        took[i] = (now() - t0) * 1000;
    }
    close(in[1]);
    waitpid(pid, NULL, 0);
    qsort(took, (size_t)n, sizeof *took, by_value);
    printf("median %.3f ms p99 %.3f ms\n", took[n / 2], took[(size_t)((double)n * 0.99)]);
    free(took);
    return 0;
}
