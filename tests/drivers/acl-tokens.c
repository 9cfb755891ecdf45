/* acl-tokens: holds the string form's lexer to one reading whatever way its text arrives. Over
 * random texts of the pieces the form is made of (parentheses, words, literals with quotes and
 * runs of backslashes, byte-length strings, # words, white space of every kind, NUL and
 * non-ASCII bytes), the tokens read from the whole text at once (where acl_lex_next reads most
 * tokens in one go) are those read as the text grows a byte at a time (where it reads each byte
 * by its states, as the reader does at the end of what it holds): kinds, offsets, sizes, first
 * bytes, lengths and the result that ends each reading.
 * Prints the texts that differ, then "checked N, differ N", and exits 1 when any differ.
 * Usage: acl-tokens [ROUNDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/acl_lex.h"

enum { MAX_TOKENS = 4096 };

struct reading {
    struct acl_token tokens[MAX_TOKENS];
    size_t n;
    enum acl_lex_result end;
};

static void whole(const char *text, size_t len, struct reading *r)
{
    struct acl_lexer lx;
    acl_lex_init(&lx);
    r->n = 0;
    while ((r->end = acl_lex_next(&lx, text, len, true, &r->tokens[r->n])) == ACL_LEX_TOKEN &&
           r->n + 1 < MAX_TOKENS)
        r->n++;
}

static void byte_by_byte(const char *text, size_t len, struct reading *r)
{
    struct acl_lexer lx;
    acl_lex_init(&lx);
    r->n = 0;
    for (size_t held = 0; held <= len; held++) {
        bool eof = held == len;
        while ((r->end = acl_lex_next(&lx, text, held, eof, &r->tokens[r->n])) == ACL_LEX_TOKEN &&
               r->n + 1 < MAX_TOKENS)
            r->n++;
        if (r->end != ACL_LEX_MORE)
            return;
    }
}

static bool same_token(const struct acl_token *a, const struct acl_token *b)
{
    return a->kind == b->kind && a->start == b->start && a->end == b->end && a->size == b->size &&
           a->first == b->first && a->length == b->length;
}

static bool same(const struct reading *a, const struct reading *b)
{
    if (a->n != b->n || a->end != b->end)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!same_token(&a->tokens[i], &b->tokens[i]))
            return false;
    /* the token an unfinished reading ends in */
    return a->end != ACL_LEX_UNFINISHED || same_token(&a->tokens[a->n], &b->tokens[b->n]);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static const char *const pieces[] = {
    "(",        ")",      " ",          "\n",         "\t",    "\r\n",        "\f",
    "inform",   ":sender", "agent-identifier", "word", "x\"y",  "#",           "#12",
    "#3\"abc",  "#0\"",    "#2\"",       "\"",         "\"\"",  "\"text\"",    "\\",
    "\\\\",     "\\\"",    "\"a\\\"b\"", "\"a\\\\\"",  "\"\\\\\\\"\"", "\xc3\xa9", "\x00",
    "#99999999999999999999\"", "a(b", "\"(not a list)\"",
};

static void make_text(struct strbuf *s, uint64_t *state)
{
    size_t n = 1 + next_random(state) % 40;
    size_t npieces = sizeof pieces / sizeof *pieces;
    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[next_random(state) % npieces];
        sb_add(s, p, *p ? strlen(p) : 1); /* the NUL piece is one byte */
    }
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    uint64_t state = 47;
    unsigned long checked = 0, differ = 0;
    static struct reading a, b;
    struct strbuf text = STRBUF_INIT;
    for (unsigned long i = 0; i < rounds; i++) {
        sb_reset(&text);
        make_text(&text, &state);
        whole(text.buf, text.len, &a);
        byte_by_byte(text.buf, text.len, &b);
        checked++;
        if (!same(&a, &b) && differ++ < 10) {
            printf("differ on %zu bytes: ", text.len);
            for (size_t k = 0; k < text.len; k++)
                printf(text.buf[k] >= 0x20 && text.buf[k] < 0x7f ? "%c" : "\\x%02x",
                       (unsigned char)text.buf[k]);
            printf(" (%zu tokens at once, %zu byte by byte)\n", a.n, b.n);
        }
    }
    sb_free(&text);
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ ? 1 : 0;
}
