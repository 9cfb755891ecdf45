/* jsonout-strings: holds jsonout_string to what its flags promise, over random strings of every
 * kind of byte (plain ASCII, what JSON escapes, markup, DEL, multi-byte UTF-8 among them
 * characters that act on a terminal, and bytes of no valid UTF-8), of lengths on both sides of
 * the writer's chunks, under every combination of flags:
 *   - the output is one JSON string that jansson reads;
 *   - it reads as the input, its invalid sequences each read as U+FFFD;
 *   - no byte goes out raw that the flags escape (JSONOUT_SCRIPT: < > &; JSONOUT_ASCII: any
 *     non-ASCII; JSONOUT_TERMINAL: DEL and the characters that act on a terminal);
 *   - jsonout_string_size says its size.
 * Prints the cases that fail, then "checked N, failed N", and exits 1 when any failed.
 * Usage: jsonout-strings [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/utf8.h"

static unsigned long long next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Pieces a string is made of: each a kind of byte or character the writer treats its own way. */
static const char *const pieces[] = {
    "a",   "svg", " ",      "\"",       "\\",       "<",        ">",        "&",
    "\n",  "\t",  "\x01",   "\x1f",     "\x7f",     "\xc3\xa9", "\xe2\x82\xac",
    "\xf0\x9f\x90\x9c",     "\xc2\x85", "\xe2\x80\xae", "\xe2\x80\xa8", "\xff", "\xc3",
    "\xed\xa0\x80",         "\xe2\x82", "</script>",
};

static void make_string(struct strbuf *s, unsigned long long *state)
{
    /* lengths about the writer's chunk of 512 bytes, and short ones */
    size_t target = next_random(state) % 4 == 0 ? next_random(state) % 1600 : next_random(state) % 40;
    size_t npieces = sizeof pieces / sizeof *pieces;
    while (s->len < target) {
        /* plain text mostly, as an SVG is */
        size_t k = next_random(state) % 3 ? next_random(state) % 3 : next_random(state) % npieces;
        sb_adds(s, pieces[k]);
    }
}

/* The input as it reads once written: each invalid sequence as U+FFFD. */
static void expected(const struct strbuf *in, struct strbuf *out)
{
    const unsigned char *p = (const unsigned char *)in->buf;
    for (size_t i = 0; i < in->len;) {
        size_t n = utf8_sequence_length(p + i, in->len - i);
        if (n == 0) {
            sb_adds(out, "\xef\xbf\xbd");
            i++;
        } else {
            sb_add(out, p + i, n);
            i += n;
        }
    }
}

/* What the flags forbid going out raw, found in out; NULL when nothing. */
static const char *raw_forbidden(const struct strbuf *out, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)out->buf;
    for (size_t i = 0; i < out->len;) {
        if ((flags & JSONOUT_SCRIPT) && (p[i] == '<' || p[i] == '>' || p[i] == '&'))
            return "markup";
        if ((flags & JSONOUT_TERMINAL) && p[i] == 0x7f)
            return "DEL";
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        if (flags & JSONOUT_ASCII)
            return "non-ASCII";
        size_t n = utf8_sequence_length(p + i, out->len - i);
        if (n == 0)
            return "invalid UTF-8";
        if ((flags & JSONOUT_TERMINAL) && utf8_acts_on_terminal(utf8_decode(p + i, n)))
            return "a character that acts on a terminal";
        i += n;
    }
    return NULL;
}

static bool check(const struct strbuf *in, unsigned flags)
{
    struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
    struct jsonout w;
    jsonout_init(&w, &out, flags);
    jsonout_string(&w, in->buf ? in->buf : "", in->len);
    expected(in, &want);
    json_error_t err;
    json_t *read = json_loadb(out.buf, out.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    const char *why = NULL;
    if (!json_is_string(read))
        why = "no JSON string";
    else if (json_string_length(read) != want.len ||
             memcmp(json_string_value(read), want.buf ? want.buf : "", want.len) != 0)
        why = "reads otherwise than the input";
    else if (jsonout_string_size(in->buf ? in->buf : "", in->len, flags) != out.len)
        why = "jsonout_string_size says another size";
    else
        why = raw_forbidden(&out, flags);
    if (why)
        printf("flags %u, %zu bytes in: %s: %s\n", flags, in->len, why, out.buf);
    json_decref(read);
    sb_free(&out);
    sb_free(&want);
    return !why;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    unsigned long long state = 46;
    unsigned long checked = 0, failed = 0;
    for (unsigned long r = 0; r < rounds; r++) {
        struct strbuf in = STRBUF_INIT;
        make_string(&in, &state);
        bool valid = utf8_valid((const unsigned char *)in.buf, in.len);
        for (unsigned flags = 0; flags < 16; flags++) {
            /* JSONOUT_VALID promises valid UTF-8: not given with bytes of none */
            if ((flags & JSONOUT_VALID) && !valid)
                continue;
            checked++;
            failed += !check(&in, flags);
        }
        sb_free(&in);
    }
    printf("checked %lu, failed %lu\n", checked, failed);
    return failed ? 1 : 0;
}
