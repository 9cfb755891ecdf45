#include "base/jsonout.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/realdigits.h"
#include "base/swar.h"
#include "base/utf8.h"

/* sb_grow, without the call when there is room already: the writer asks for a few bytes at a
 * time. */
static inline void room(struct strbuf *sb, size_t extra)
{
    if (sb->cap - sb->len <= extra) /* sb_grow keeps len < cap once it allocated */
        sb_grow(sb, extra);
}

/* One byte, where room was made for it. */
static inline void put(struct strbuf *sb, char c)
{
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = '\0';
}

static unsigned plain_classes(unsigned flags);

void jsonout_init(struct jsonout *w, struct strbuf *sb, unsigned flags)
{
    w->sb = sb;
    w->flags = flags;
    w->plain = plain_classes(flags);
    w->start = sb->len;
}

/* A value or a key that follows another in the same object or array takes a comma. Output is
 * compact, so the byte before tells where we are. */
static void separate(struct jsonout *w)
{
    if (w->sb->len <= w->start)
        return;
    char last = w->sb->buf[w->sb->len - 1];
    if (last != '{' && last != '[' && last != ':') {
        room(w->sb, 1);
        put(w->sb, ',');
    }
}

void jsonout_begin_object(struct jsonout *w)
{
    separate(w);
    room(w->sb, 1);
    put(w->sb, '{');
}

void jsonout_end_object(struct jsonout *w)
{
    room(w->sb, 1);
    put(w->sb, '}');
}

void jsonout_begin_array(struct jsonout *w)
{
    separate(w);
    sb_addc(w->sb, '[');
}

void jsonout_end_array(struct jsonout *w)
{
    sb_addc(w->sb, ']');
}

static const char hex_digits[] = "0123456789ABCDEF";

static const char *short_escape(unsigned char c)
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
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

/* What a byte is to the writer: printable ASCII but " \\ < > & (P), what always takes an escape
 * (E), DEL (D), < > & (M: markup, escaped in a page's script), and a byte of a multi-byte UTF-8
 * sequence, or of no valid one (H). */
enum byte_class { P, E, D, M, H };
static const unsigned char byte_class[256] = {
    E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
    P, P, E, P, P, P, M, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, M, P, M, P,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, E, P, P, P,
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, D,
    H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
    H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
    H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
    H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H, H,
};

/* The classes of bytes that go out as they are under flags, as a bit mask. Known-valid UTF-8
 * (JSONOUT_VALID, without ASCII or TERMINAL) needs no decoding: its sequences are copied whole. */
static unsigned plain_classes(unsigned flags)
{
    unsigned mask = 1u << P;
    if (!(flags & JSONOUT_TERMINAL))
        mask |= 1u << D;
    if (!(flags & JSONOUT_SCRIPT))
        mask |= 1u << M;
    if ((flags & (JSONOUT_VALID | JSONOUT_ASCII | JSONOUT_TERMINAL | JSONOUT_SCRIPT)) ==
        JSONOUT_VALID)
        mask |= 1u << H;
    return mask;
}

/* The length of the run at p that goes out as it is. */
static inline size_t plain_run(const unsigned char *p, size_t len, unsigned plain)
{
    size_t i = 0;
    while (i < len && (plain >> byte_class[p[i]]) & 1)
        i++;
    return i;
}

/* Whether the character cp goes out as a \u escape under flags. */
static bool escaped_code_point(unsigned flags, unsigned cp)
{
    return (flags & JSONOUT_ASCII) || ((flags & JSONOUT_TERMINAL) && utf8_acts_on_terminal(cp)) ||
           ((flags & JSONOUT_SCRIPT) && (cp == 0x2028 || cp == 0x2029));
}

enum { SPECIAL_FORM_MAX = 12 }; /* a surrogate pair's two escapes */

static size_t u_escape(char *out, unsigned unit)
{
    out[0] = '\\';
    out[1] = 'u';
    for (int i = 0; i < 4; i++)
        out[2 + i] = hex_digits[(unit >> (12 - 4 * i)) & 15];
    return 6;
}

/* How one character that does not go out as it is, at p, is written under flags: its form in
 * out (SPECIAL_FORM_MAX bytes at most), whose length is returned; *took receives how many bytes
 * of p it was. */
static size_t special_form(unsigned flags, const unsigned char *p, size_t avail, char *out,
                           size_t *took)
{
    unsigned char c = p[0];
    *took = 1;
    if (c < 0x80) {
        const char *esc = short_escape(c);
        if (!esc)
            return u_escape(out, c);
        memcpy(out, esc, 2);
        return 2;
    }
    size_t n = utf8_sequence_length(p, avail);
    if (n == 0) {
        if (flags & (JSONOUT_ASCII | JSONOUT_TERMINAL))
            return u_escape(out, 0xfffd);
        memcpy(out, "\xef\xbf\xbd", 3);
        return 3;
    }
    *took = n;
    unsigned cp = utf8_decode(p, n);
    if (!escaped_code_point(flags, cp)) {
        memcpy(out, p, n);
        return n;
    }
    if (cp < 0x10000)
        return u_escape(out, cp);
    cp -= 0x10000;
    size_t len = u_escape(out, 0xd800 | (cp >> 10));
    return len + u_escape(out + len, 0xdc00 | (cp & 0x3ff));
}

/* One character that does not go out as it is, at p; returns how many bytes it took. */
static size_t add_special(struct jsonout *w, const unsigned char *p, size_t avail)
{
    char form[SPECIAL_FORM_MAX];
    size_t took;
    size_t len = special_form(w->flags, p, avail, form, &took);
    sb_add(w->sb, form, len);
    return took;
}

/* How many bytes add_chars writes in place at a time: room for each escaped is made first. */
enum { CHARS_CHUNK = 512, ESCAPE_MAX = 6 };

/* The characters of a string, without its quotes. Written in place a chunk at a time, since in
 * some texts (an SVG in a page: a quote or a bracket every few bytes) escapes are common. */
static void add_chars(struct jsonout *w, const unsigned char *p, size_t len)
{
    unsigned plain = w->plain;
    struct strbuf *sb = w->sb;
    size_t i = 0;
    while (i < len) {
        size_t end = len - i < CHARS_CHUNK ? len : i + CHARS_CHUNK;
        room(sb, ESCAPE_MAX * (end - i));
        char *out = sb->buf + sb->len;
        for (; i < end; i++) {
            unsigned char c = p[i];
            if ((plain >> byte_class[c]) & 1) {
                *out++ = (char)c;
            } else if (c < 0x80) { /* its form whatever the flags */
                const char *esc = short_escape(c);
                if (esc) {
                    memcpy(out, esc, 2);
                    out += 2;
                } else { /* \u00XX: an SVG's < and > */
                    memcpy(out, "\\u00", 4);
                    out[4] = hex_digits[c >> 4];
                    out[5] = hex_digits[c & 15];
                    out += 6;
                }
            } else {
                break; /* a character of more bytes, or none: add_special's */
            }
        }
        sb->len = (size_t)(out - sb->buf);
        sb->buf[sb->len] = '\0';
        if (i < end)
            i += add_special(w, p + i, len - i);
    }
}

static void add_string(struct jsonout *w, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    struct strbuf *sb = w->sb;
    room(sb, len + 2);
    sb->buf[sb->len++] = '"';
    size_t i = plain_run(p, len, w->plain);
    memcpy(sb->buf + sb->len, p, i); /* most strings: all of it, in the room grown above */
    sb->len += i;
    if (i < len) {
        add_chars(w, p + i, len - i);
        room(sb, 1); /* escapes took the room made above */
    }
    sb->buf[sb->len++] = '"';
    sb->buf[sb->len] = '\0';
}

void jsonout_string_open(struct jsonout *w)
{
    separate(w);
    sb_addc(w->sb, '"');
}

void jsonout_string_part(struct jsonout *w, const char *s, size_t len)
{
    add_chars(w, (const unsigned char *)s, len);
}

void jsonout_string_close(struct jsonout *w)
{
    sb_addc(w->sb, '"');
}

/* What the escapes of a word of ASCII bytes and no control add to its size: a quote or a
 * backslash one byte each (\" \\), markup and DEL five each where plain does not hold them
 * (\u003C). */
static inline size_t ascii_word_escapes(uint64_t w, unsigned plain)
{
    size_t extra = swar_count(swar_each_equal(w, '"') | swar_each_equal(w, '\\'));
    if (!(plain & (1u << M)))
        extra += 5 * swar_count(swar_each_equal(w, '<') | swar_each_equal(w, '>') |
                                swar_each_equal(w, '&'));
    if (!(plain & (1u << D)))
        extra += 5 * swar_count(swar_each_equal(w, 0x7f));
    return extra;
}

size_t jsonout_string_size(const char *s, size_t len, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned plain = plain_classes(flags);
    size_t size = 2, i = 0;
    /* Eight bytes at a time while they are ASCII without controls (a message's text, most of a
     * page): their escapes are counted, not found one by one; the rest a character at a time. */
    for (uint64_t w; len - i >= SWAR_BYTES; i += SWAR_BYTES) {
        w = swar_load(p + i);
        if (swar_high(w) | swar_below(w, 0x20))
            break;
        size += SWAR_BYTES + ascii_word_escapes(w, plain);
    }
    while (i < len) {
        size_t run = plain_run(p + i, len - i, plain), took;
        size += run;
        i += run;
        if (i == len)
            break;
        if (p[i] < 0x80) { /* special_form's length, without its bytes: a message's quotes */
            size += short_escape(p[i]) ? 2 : 6;
            i++;
            continue;
        }
        char form[SPECIAL_FORM_MAX];
        size += special_form(flags, p + i, len - i, form, &took);
        i += took;
    }
    return size;
}

void jsonout_key(struct jsonout *w, const char *key)
{
    separate(w);
    add_string(w, key, strlen(key));
    room(w->sb, 1);
    put(w->sb, ':');
}

void jsonout_string_or_null(struct jsonout *w, const char *s)
{
    if (s)
        jsonout_string(w, s, strlen(s));
    else
        jsonout_null(w);
}

void jsonout_key_literal(struct jsonout *w, const char *key, size_t len)
{
    separate(w);
    struct strbuf *sb = w->sb;
    room(sb, len + 3);
    sb->buf[sb->len++] = '"';
    memcpy(sb->buf + sb->len, key, len);
    sb->len += len;
    sb->buf[sb->len++] = '"';
    put(sb, ':');
}

void jsonout_string(struct jsonout *w, const char *s, size_t len)
{
    separate(w);
    add_string(w, s, len);
}

void jsonout_integer(struct jsonout *w, json_int_t v)
{
    /* By hand: vsnprintf costs more than the rest of a member. */
    char digits[24], *end = digits + sizeof digits, *d = end;
    unsigned long long magnitude = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do
        *--d = (char)('0' + magnitude % 10);
    while ((magnitude /= 10) != 0);
    if (v < 0)
        *--d = '-';
    separate(w);
    sb_add(w->sb, d, (size_t)(end - d));
}

/* The shortest text of the double v (finite) that reads back as v, written into buf (at least
 * JSONOUT_REAL_MAX bytes) the way JSON writes a real: "0.1", "2.0", "1e300", "5e-324".
 * Returns its length. */
enum { JSONOUT_REAL_MAX = 32 };
static size_t jsonout_format_real(char *buf, double v)
{
    char *out = buf;
    if (signbit(v)) {
        *out++ = '-';
        v = -v;
    }
    char digits[REAL_DIGITS_MAX];
    int exp;
    int ndigits = real_digits(v, digits, &exp);
    /* Positional where a reader expects it (JavaScript's range), else with an exponent. */
    if (exp >= 21 || exp < -6) {
        *out++ = digits[0];
        if (ndigits > 1) {
            *out++ = '.';
            memcpy(out, digits + 1, (size_t)ndigits - 1);
            out += ndigits - 1;
        }
        out += sprintf(out, "e%d", exp);
    } else if (exp >= ndigits - 1) {
        memcpy(out, digits, (size_t)ndigits);
        out += ndigits;
        for (int i = ndigits - 1; i < exp; i++)
            *out++ = '0';
        memcpy(out, ".0", 2);
        out += 2;
    } else if (exp >= 0) {
        memcpy(out, digits, (size_t)exp + 1);
        out += exp + 1;
        *out++ = '.';
        memcpy(out, digits + exp + 1, (size_t)(ndigits - exp - 1));
        out += ndigits - exp - 1;
    } else {
        memcpy(out, "0.", 2);
        out += 2;
        for (int i = -1; i > exp; i--)
            *out++ = '0';
        memcpy(out, digits, (size_t)ndigits);
        out += ndigits;
    }
    *out = '\0';
    return (size_t)(out - buf);
}

void jsonout_real(struct jsonout *w, double v)
{
    char buf[JSONOUT_REAL_MAX];
    separate(w);
    size_t len = jsonout_format_real(buf, v);
    sb_add(w->sb, buf, len);
}

void jsonout_number(struct jsonout *w, double v)
{
    const double exact = 9007199254740992.0; /* 2^53: past it, not every integer is a double */
    if (!isfinite(v))
        jsonout_null(w);
    else if (v == floor(v) && fabs(v) <= exact)
        jsonout_integer(w, (json_int_t)v);
    else
        jsonout_real(w, v);
}

void jsonout_bool(struct jsonout *w, bool v)
{
    separate(w);
    sb_adds(w->sb, v ? "true" : "false");
}

void jsonout_null(struct jsonout *w)
{
    separate(w);
    sb_adds(w->sb, "null");
}

void jsonout_value(struct jsonout *w, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        jsonout_begin_object(w);
        const char *key;
        json_t *member;
        json_object_foreach((json_t *)v, key, member)
        {
            jsonout_key(w, key);
            jsonout_value(w, member);
        }
        jsonout_end_object(w);
        break;
    }
    case JSON_ARRAY: {
        jsonout_begin_array(w);
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
            jsonout_value(w, item);
        }
        jsonout_end_array(w);
        break;
    }
    case JSON_STRING:
        jsonout_string(w, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        jsonout_integer(w, json_integer_value(v));
        break;
    case JSON_REAL:
        jsonout_real(w, json_real_value(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        jsonout_bool(w, json_is_true(v));
        break;
    case JSON_NULL:
        jsonout_null(w);
        break;
    }
}

bool json_text_says(const struct json_text *kept, const json_t *v)
{
    return kept && kept->value && v && (v == kept->value || json_equal(v, kept->value));
}

static bool is_json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The string of JSON text that starts at text[i] (its quote), copied but for what the flags
 * escape; returns where it ends. Its escapes are copied as they are. */
static size_t copy_text_string(struct jsonout *w, const unsigned char *text, size_t i, size_t end)
{
    unsigned plain = w->plain;
    sb_addc(w->sb, '"');
    i++;
    while (i < end) {
        size_t run = plain_run(text + i, end - i, plain);
        sb_add(w->sb, text + i, run);
        i += run;
        if (i == end)
            break;
        if (text[i] == '"') {
            sb_addc(w->sb, '"');
            return i + 1;
        }
        if (text[i] == '\\') {
            size_t n = i + 1 < end ? 2 : 1;
            sb_add(w->sb, text + i, n);
            i += n;
        } else {
            i += add_special(w, text + i, end - i);
        }
    }
    return i;
}

/* Whether JSON text goes out as it is under any flags: printable ASCII without white space or
 * markup. */
static bool text_as_is(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] <= ' ' || p[i] >= 0x7f || byte_class[p[i]] == M)
            return false;
    return true;
}

void jsonout_text(struct jsonout *w, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    separate(w);
    if (text_as_is(p, len)) { /* most texts: one copy */
        sb_add(w->sb, text, len);
        return;
    }
    size_t i = 0, end = len;
    while (i < end && is_json_space(p[i]))
        i++;
    while (end > i && is_json_space(p[end - 1]))
        end--;
    while (i < end) {
        size_t run = i;
        while (run < end && p[run] != '"' && !is_json_space(p[run]))
            run++;
        sb_add(w->sb, p + i, run - i);
        i = run;
        if (i == end)
            break;
        if (p[i] == '"') {
            i = copy_text_string(w, p, i, end);
            continue;
        }
        bool line_break = false;
        for (run = i; run < end && is_json_space(p[run]); run++)
            line_break = line_break || p[run] == '\n' || p[run] == '\r';
        if (!line_break)
            sb_add(w->sb, p + i, run - i);
        i = run;
    }
}

void jsonout_line(struct strbuf *sb, const json_t *v)
{
    struct jsonout w;
    jsonout_init(&w, sb, JSONOUT_TERMINAL);
    jsonout_value(&w, v);
    sb_addc(sb, '\n');
}
