/* sb-format: holds sb_addf, which writes formats of plain conversions itself (%s %d %u %c %%
 * %zu %lu %ld %llu %lld), to what snprintf writes of them, over the extremes of every type and
 * random values, alone and in formats of several conversions, and a format it leaves to
 * vsnprintf (a width). Prints the cases that differ, then
 *   checked N, differ N
 * and exits 1 when any differs. Usage: sb-format [ROUNDS] */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct tally {
    unsigned long checked, differ;
};

static void compare(struct tally *t, const char *fmt, const struct strbuf *got, const char *want)
{
    t->checked++;
    if (strcmp(got->buf ? got->buf : "", want) == 0)
        return;
    t->differ++;
    printf("format \"%s\": sb_addf wrote \"%s\", snprintf \"%s\"\n", fmt, got->buf, want);
}

/* One format with one or two arguments of a type, both ways. */
#define CHECK(t, fmt, ...)                                                                         \
    do {                                                                                           \
        struct strbuf got_ = STRBUF_INIT;                                                          \
        char want_[256];                                                                           \
        sb_addf(&got_, fmt, __VA_ARGS__);                                                          \
        snprintf(want_, sizeof want_, fmt, __VA_ARGS__);                                           \
        compare(t, fmt, &got_, want_);                                                             \
        sb_free(&got_);                                                                            \
    } while (0)

static unsigned long long next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 11 ^ *state << 7;
}

static void check_values(struct tally *t, unsigned long long r)
{
    CHECK(t, "%d", (int)r);
    CHECK(t, "%u", (unsigned)r);
    CHECK(t, "%zu", (size_t)r);
    CHECK(t, "%lu", (unsigned long)r);
    CHECK(t, "%ld", (long)r);
    CHECK(t, "%llu", r);
    CHECK(t, "%lld", (long long)r);
    CHECK(t, "[%c]", (int)(r % 95 + 32));
    CHECK(t, "<text x=\"%zu\" y=\"%zu\">%s</text>%%", (size_t)(r % 4000), (size_t)(r >> 40),
          r % 3 ? "word" : "");
    CHECK(t, "%s:%d,%lld;%u%%%c", "a b", (int)(r >> 3), (long long)(r * 7), (unsigned)(r >> 9),
          'z');
}

int main(int argc, char **argv)
{
    util_set_progname("sb-format");
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    struct tally t = {0};
    const unsigned long long extremes[] = {0,
                                           1,
                                           9,
                                           10,
                                           (unsigned long long)INT_MAX,
                                           (unsigned long long)INT_MIN,
                                           UINT_MAX,
                                           (unsigned long long)LLONG_MAX,
                                           (unsigned long long)LLONG_MIN,
                                           ULLONG_MAX,
                                           (unsigned long long)-1 / 10};
    for (size_t i = 0; i < sizeof extremes / sizeof *extremes; i++)
        check_values(&t, extremes[i]);
    unsigned long long state = 42;
    for (unsigned long i = 0; i < rounds; i++)
        check_values(&t, next_random(&state) >> (i % 64));
    CHECK(&t, "%s and %s", "text", (const char *)"");
    CHECK(&t, "%9s|%-4d|%05.1f", "right", 7, 2.25); /* left to vsnprintf */
    CHECK(&t, "no conversion at all%s", "");
    printf("checked %lu, differ %lu\n", t.checked, t.differ);
    return t.differ ? 1 : 0;
}
