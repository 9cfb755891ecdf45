#include "escape.h"

#include <string.h>

#include "jsonout.h"

static const char hex[] = "0123456789abcdef";

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

/* The escapes both JSON and a reader of diagnostics know by sight. */
static const char *short_escape(unsigned char c)
{
    switch (c) {
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        return NULL;
    }
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

static void add_byte_escape(struct strbuf *out, unsigned char c)
{
    char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    sb_add(out, esc, 4);
}

void escape_text(struct strbuf *out, const char *s, size_t len, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t shown = (max && len > max) ? max : len;
    size_t i = 0;
    sb_add(out, "", 0); /* an empty text is still a string: out->buf is never left NULL */
    while (i < shown) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f) {
            sb_addc(out, (char)c);
            i++;
            continue;
        }
        const char *esc = short_escape(c);
        if (esc) {
            sb_adds(out, esc);
            i++;
            continue;
        }
        if (c < 0x80) {
            add_byte_escape(out, c);
            i++;
            continue;
        }
        size_t n = utf8_sequence_length(p + i, len - i);
        if (n == 0) {
            add_byte_escape(out, c);
            i++;
        } else if (utf8_acts_on_terminal(utf8_decode(p + i, n))) {
            sb_addf(out, "\\u%04x", utf8_decode(p + i, n));
            i += n;
        } else {
            sb_add(out, p + i, n);
            i += n;
        }
    }
    if (shown < len)
        sb_adds(out, "...");
}

void escape_json_string(struct strbuf *out, const char *s, size_t len)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_TERMINAL);
    jsonout_string(&w, s, len);
}
