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

static unsigned long checked, differ;

static void check(const char *text, size_t len)
{
    checked++;
    if (acl_plain_word(text, len) == word_by_rule((const unsigned char *)text, len))
        return;
    differ++;
    printf("differs:");
    for (size_t i = 0; i < len; i++)
        printf(" %02x", (unsigned char)text[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    char text[MAX_TEXT];
    check(text, 0);
    for (size_t n = 1; n <= MAX_TEXT; n++)
        for (size_t at = 0; at < n; at++)
            for (unsigned c = 0; c < 256; c++) {
                memset(text, 'w', n);
                text[at] = (char)c;
                check(text, n);
            }
    /* bytes drawn mostly from word bytes, so that whole words come up as often as others */
    static const char pieces[] = "aZ09_.+-/:#@\"()\\ \t\x7f\x80\xff";
    uint64_t state = 0x2545F4914F6CDD1DULL;
    for (unsigned long r = 0; r < rounds; r++) {
        size_t n = 1 + xorshift64(&state) % MAX_TEXT;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = xorshift64(&state);
            text[i] = x % 4 ? (char)('a' + x % 26) : pieces[(x >> 8) % (sizeof pieces - 1)];
        }
        check(text, n);
    }
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ ? 1 : 0;
}
