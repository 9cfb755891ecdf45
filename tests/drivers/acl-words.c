/* acl-words: holds acl_plain_word, which says whether the string form's writer may write a text
 * as a bare word (its table of word bytes, read eight at a time), to the rule as acl_parts.h
 * states it, written here a byte at a time: at least one byte, each of them printable ASCII
 * (0x21 to 0x7e) but ( ) " and \, the first none of # - @ : " or a digit. Every byte value at
 * every place of texts of 1 to 24 bytes, then random texts of such bytes.
 * Prints the texts that differ, then "checked N, differ N", and exits 1 when any differ.
 * Usage: acl-words [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecases.h"
#include "proto/acl_parts.h"
#include "xorshift.h"

enum { MAX_TEXT = 24 };

static bool word_by_rule(const unsigned char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    if (s[0] == '#' || s[0] == '-' || s[0] == '@' || s[0] == ':' || s[0] == '"')
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x21 || s[i] > 0x7e || s[i] == '(' || s[i] == ')' || s[i] == '"' ||
            s[i] == '\\')
            return false;
    return true;
}

static void check(struct tally *t, const char *text, size_t len)
{
    tally_case(t, acl_plain_word(text, len) == word_by_rule((const unsigned char *)text, len), text,
               len);
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    struct tally t = {0, 0};
    char text[MAX_TEXT];
    check(&t, text, 0);
    each_byte_at_each_place(text, MAX_TEXT, 'w', check, &t);
    /* bytes drawn mostly from word bytes, so that whole words come up as often as others */
    static const char pieces[] = "aZ09_.+-/:#@\"()\\ \t\x7f\x80\xff";
    uint64_t state = 0x2545F4914F6CDD1DULL;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t n = 1 + xorshift64(&state) % MAX_TEXT;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = xorshift64(&state);
            text[i] = x % 4 ? (char)('a' + x % 26) : pieces[(x >> 8) % (sizeof pieces - 1)];
        }
        check(&t, text, n);
    }
    return tally_report(&t);
}
