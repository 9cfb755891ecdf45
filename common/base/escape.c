#include "base/escape.h"

#include <string.h>

#include "base/jsonout.h"
#include "base/utf8.h"

static const char hex[] = "0123456789abcdef";

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
