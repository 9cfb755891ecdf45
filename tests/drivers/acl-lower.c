/* acl-lower: holds acl_lower_ascii, which lowers a parameter name eight bytes at a time, to
 * tolower in the C locale a byte at a time. Every byte value at every place of names of 0 to 40
 * bytes (so in the words and in the tail), then random names of such bytes: the lowered bytes,
 * the NUL after them, the bytes ORed together and whether one was NUL must all agree.
 * Prints the cases that differ, then "checked N, differ N", and exits 1 when any differ.
 * Usage: acl-lower [ROUNDS] */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecases.h"
#include "proto/acl_parts.h"
#include "xorshift.h"

enum { MAX_NAME = 40 };

/* Compares one name's lowering with tolower's. */
static void check(struct tally *t, const char *name, size_t n)
{
    char out[MAX_NAME + 1], want[MAX_NAME + 1];
    unsigned want_bits = 0;
    bool want_nul = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        want[i] = (char)tolower(c);
        want_bits |= c;
        want_nul |= c == 0;
    }
    memset(out, 'x', sizeof out);
    bool nul = !want_nul;
    unsigned bits = acl_lower_ascii(out, name, n, &nul);
    tally_case(t,
               memcmp(out, want, n) == 0 && out[n] == '\0' && bits == want_bits && nul == want_nul,
               name, n);
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    struct tally t = {0, 0};
    char name[MAX_NAME];
    each_byte_at_each_place(name, MAX_NAME, 'Q', check, &t);
    check(&t, name, 0);
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t n = xorshift64(&state) % (MAX_NAME + 1);
        for (size_t i = 0; i < n; i++)
            name[i] = (char)(xorshift64(&state) & 0xff);
        check(&t, name, n);
    }
    return tally_report(&t);
}
