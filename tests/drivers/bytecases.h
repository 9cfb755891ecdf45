/* The drivers' cases of short byte strings: every byte value at every place of strings of 1 to
 * max bytes (the other bytes a filler), and how a failing one is shown. */
#ifndef ACP_TESTS_BYTECASES_H
#define ACP_TESTS_BYTECASES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Prints "differs:" and the bytes of text in hex, on a line of its own. */
static inline void print_differing(const char *text, size_t len)
{
    printf("differs:");
    for (size_t i = 0; i < len; i++)
        printf(" %02x", (unsigned char)text[i]);
    printf("\n");
}

/* The tally of a driver's cases. */
struct tally {
    unsigned long checked, differ;
};

/* Counts a case, shown when it does not agree with what it is held to. */
static inline void tally_case(struct tally *t, bool agrees, const char *text, size_t len)
{
    t->checked++;
    if (agrees)
        return;
    t->differ++;
    print_differing(text, len);
}

/* Prints "checked N, differ N"; the driver's exit status: 1 when any differ. */
static inline int tally_report(const struct tally *t)
{
    printf("checked %lu, differ %lu\n", t->checked, t->differ);
    return t->differ ? 1 : 0;
}

/* Calls check on every byte value at every place of strings of 1 to max bytes, made in buf (at
 * least max bytes), the others filler. */
static inline void each_byte_at_each_place(char *buf, size_t max, char filler,
                                           void (*check)(struct tally *t, const char *text,
                                                         size_t len),
                                           struct tally *t)
{
    for (size_t n = 1; n <= max; n++)
        for (size_t at = 0; at < n; at++)
            for (unsigned c = 0; c < 256; c++) {
                memset(buf, filler, n);
                buf[at] = (char)c;
                check(t, buf, n);
            }
}

#endif
