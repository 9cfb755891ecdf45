#include "base/utf8.h"

size_t utf8_sequence_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

unsigned utf8_decode(const unsigned char *s, size_t n)
{
    static const unsigned char lead_bits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    unsigned cp = s[0] & lead_bits[n];
    for (size_t i = 1; i < n; i++)
        cp = (cp << 6) | (s[i] & 0x3f);
    return cp;
}

/* Characters beyond ASCII that act on a terminal instead of showing: the C1 controls (escape
 * sequences on some terminals), the bidi embeddings, overrides, isolates and marks (they make a
 * line read differently from its bytes), and the line and paragraph separators. */
bool utf8_acts_on_terminal(unsigned cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static bool continues(const char *text, size_t at)
{
    return ((unsigned char)text[at] & 0xC0) == 0x80;
}

size_t utf8_cut(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return len;
    for (size_t back = 0; back < 4 && back < max; back++)
        if (!continues(text, max - back))
            return max - back;
    return max;
}

size_t utf8_tail(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return 0;
    size_t start = len - max;
    for (size_t ahead = 0; ahead < 4 && start + ahead < len; ahead++)
        if (!continues(text, start + ahead))
            return start + ahead;
    return start;
}

bool utf8_valid(const unsigned char *s, size_t len)
{
    for (size_t i = 0, n; i < len; i += n) {
        if (s[i] < 0x80) {
            n = 1;
            continue;
        }
        if ((n = utf8_sequence_length(s + i, len - i)) == 0)
            return false;
    }
    return true;
}
