/* member-view: the view a member list builds (member_list_view, jscan's builder) against the one
 * a scan of the line it writes gives (member_list_write, jscan_scan_made), node for node: type,
 * length, size, a string's head and bytes, an object's key bits, a number's value. ROUNDS random
 * lists of every kind of member (strings with escapes, controls and UTF-8, long enough that the
 * strings' buffer moves as the view grows; JSON texts spread over lines, some no JSON or with a
 * key twice, some with the view they read as; views of another scanner; numbers), keys split as prefix and name. A list whose
 * line does not scan must build no view. The view built must also survive a jv_store as the
 * scanned one does. Prints "lists N (K of no JSON), nodes M" and exits 1, saying what differs, on any
 * difference. Usage: member-view [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/jsonout.h"
#include "proto/memberlist.h"
#include "sameview.h"
#include "xorshift.h"

static uint64_t state = 0x9e3779b97f4a7c15;

static size_t below(size_t n)
{
    return (size_t)(xorshift64(&state) % n);
}

/* A string of valid UTF-8 without NUL, of up to max bytes: every byte JSON escapes comes up. */
static void random_string(struct strbuf *out, size_t max)
{
    static const char *const pieces[] = {"a", "Z", " ", "\"", "\\", "/", "\x01", "\x1f", "\t",
                                         "\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                         "\x7f", "x-fipa-", "{", "}"};
    size_t n = below(max + 1);
    for (size_t i = 0; i < n; i++)
        sb_adds(out, pieces[below(sizeof pieces / sizeof *pieces)]);
}

static void spaces(struct strbuf *out)
{
    static const char *const ws[] = {"", "", " ", "\n", "\r\n\t ", "  "};
    sb_adds(out, ws[below(sizeof ws / sizeof *ws)]);
}

/* A JSON value's text, depth levels at most, spread with white space; keys of an object unique
 * (its number) unless dup. */
static void random_json(struct strbuf *out, int depth, bool dup)
{
    static const char *const scalars[] = {"true",   "false", "null", "0",     "-0",     "12",
                                          "1e300",  "-2.5",  "0.1",  "1E-7",  "\"\"",   "\"\\u00e9\"",
                                          "\"a\\\"b\"", "\"\\ud83d\\ude00\"", "9223372036854775807",
                                          "-9223372036854775808", "123456789012345678"};
    spaces(out);
    size_t pick = depth > 0 ? below(4) : 3;
    if (pick == 0 || pick == 1) {
        bool object = pick == 0;
        sb_addc(out, object ? '{' : '[');
        size_t n = below(5);
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_addc(out, ',');
            if (object) {
                spaces(out);
                sb_addf(out, "\"k%zu\"", dup && i == n - 1 ? (size_t)0 : i);
                spaces(out);
                sb_addc(out, ':');
            }
            random_json(out, depth - 1, false);
        }
        spaces(out);
        sb_addc(out, object ? '}' : ']');
    } else {
        sb_adds(out, scalars[below(sizeof scalars / sizeof *scalars)]);
    }
    spaces(out);
}

static void fail(const char *what, size_t round, size_t node)
{
    printf("member-view: %s (list %zu, node %zu)\n", what, round, node);
    exit(1);
}

/* Whether a and b are the same nodes, strings byte for byte. */
static void compare(const struct jv *a, const struct jv *b, size_t round)
{
    size_t node;
    const char *difference = view_difference(a, b, &node);
    if (difference)
        fail(difference, round, node);
}

/* One random member into l; texts that must outlive the list go to keep. */
static void random_member(struct member_list *l, struct jscan *other, struct strbuf *keep,
                          size_t i, bool *viewed)
{
    /* names outlive the list (memberlist.h): literals */
    static const char *const names[] = {"m0", "m1", "m2", "m3", "m4",  "m5",
                                        "m6", "m7", "m8", "m9", "m10", "m11"};
    const char *name = names[i];
    const char *prefix = below(3) == 0 ? "x-fipa-" : "";
    struct strbuf text = STRBUF_INIT;
    size_t kind = below(7);
    if (kind == 3 && *viewed) /* other holds one view at a time */
        kind = 4;
    switch (kind) {
    case 0:
        random_string(&text, below(20) == 0 ? 3000 : 12);
        member_list_set_string(l, prefix, name, text.buf ? text.buf : "", text.len);
        break;
    case 1:
        member_list_set_integer(l, name, (json_int_t)xorshift64(&state));
        break;
    case 2: {
        uint64_t bits = xorshift64(&state) & ~(UINT64_C(0x7ff) << 52); /* finite */
        double d;
        memcpy(&d, &bits, sizeof d);
        member_list_set_real(l, name, d);
        break;
    }
    case 3: /* a view of another scanner's, which outlives the list's use; some of more nodes
               than the view built has room for yet, so that they move while it is copied */
        *viewed = true;
        if (below(4) == 0) {
            sb_addc(&text, '[');
            for (size_t k = 0, n = 200 + below(400); k < n; k++)
                sb_adds(&text, k ? ",1" : "1");
            sb_addc(&text, ']');
        } else {
            random_json(&text, 3, false);
        }
        member_list_set_view(l, prefix, name, jscan_scan(other, text.buf, text.len));
        break;
    case 4: {
        bool dup = below(20) == 0;
        random_json(&text, 4, dup);
        if (below(30) == 0) {
            sb_adds(&text, " ,"); /* no JSON */
            dup = true;
        }
        member_list_set_json(l, prefix, name, text.buf, text.len);
        break;
    }
    default: { /* JSON text as it came: kept by the caller; with the view it reads as, some */
        random_json(&text, 3, false);
        size_t at = keep->len;
        sb_add(keep, text.buf, text.len);
        sb_addc(keep, '\0');
        const struct jv *value = NULL;
        if (!*viewed && below(2) == 0) {
            value = jscan_scan(other, keep->buf + at, text.len);
            *viewed = value != NULL;
        }
        member_list_set_text(l, prefix, name, keep->buf + at, text.len, value);
        break;
    }
    }
    sb_free(&text);
}

int main(int argc, char **argv)
{
    size_t rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000, nodes = 0, none = 0;
    hashtab_key_draw();
    struct jscan *scanned = jscan_new(), *built = jscan_new(), *other = jscan_new();
    struct jv_store store = {0};
    for (size_t round = 0; round < rounds; round++) {
        struct member_list l;
        member_list_init(&l);
        struct strbuf keep = STRBUF_INIT, line = STRBUF_INIT;
        sb_grow(&keep, 1 << 16); /* a text kept must not move while the list holds it */
        size_t n = below(12);
        bool viewed = false;
        for (size_t i = 0; i < n; i++) /* a key set twice (i / 2) replaces the first */
            random_member(&l, other, &keep, below(2) ? i : i / 2, &viewed);
        member_list_write(&l, &line, JSONOUT_VALID);
        const struct jv *want = jscan_scan_made(scanned, line.buf, line.len - 1);
        const struct jv *got = member_list_view(&l, built);
        if (!want != !got)
            fail(want ? "no view built for a line that scans" : "a view built for no JSON", round,
                 0);
        if (want) {
            compare(got, want, round);
            jv_store_reset(&store);
            jv_store_add(&store, built);
            jv_store_seal(&store);
            compare(jv_store_view(&store, 0), want, round);
            nodes += want->size;
        } else {
            none++;
        }
        member_list_free(&l);
        sb_free(&keep);
        sb_free(&line);
    }
    printf("lists %zu (%zu of no JSON), nodes %zu\n", rounds, none, nodes);
    jv_store_free(&store);
    jscan_free(scanned);
    jscan_free(built);
    jscan_free(other);
    return 0;
}
