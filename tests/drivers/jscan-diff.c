/* jscan-diff: holds the scanner (common/jscan.h) to jansson. Each line of the input files (each
 * file whole with -w) is given to both: json_loadb with JSON_REJECT_DUPLICATES |
 * JSON_DECODE_ANY, as message.c calls it, and jscan_scan. They must agree on accept or reject,
 * and on an accepted text give the same value: the scanner's view turned into a jansson tree is
 * json_equal to jansson's, and written out the same (members in input order, reals to 17
 * digits); the view made from jansson's tree gives the same tree back; where the scan says an
 * object's members stand (every other text) is where jscan_member_text finds them.
 * With -m N SEED, each line is also mutated N times (bytes flipped, dropped, doubled, and
 * tokens, escapes and UTF-8 forms spliced in) and each mutation held to the same agreement.
 * A text holding a NUL byte must be rejected by the scanner, whatever jansson says (message.c
 * rejects it first). With -v, says "accept" or "reject" for each original text (not for the
 * mutations). Prints "N texts, N accepted, N rejected" and exits 1 at the first disagreement,
 * showing the text. Usage: jscan-diff [-v] [-w] [-m N SEED] FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "proto/jscan.h"

static unsigned long texts, accepted, rejected;
static bool verbose; /* -v: a line "accept" or "reject" for each text of the input */

static void show(const char *what, const char *text, size_t len)
{
    fprintf(stderr, "jscan-diff: %s on the text of %zu bytes: ", what, len);
    for (size_t i = 0; i < len && i < 4096; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fputc('\n', stderr);
    exit(1);
}

static char *dump(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    if (!s)
        die_oom();
    return s;
}

static bool same_tree(const json_t *a, const json_t *b)
{
    char *da = dump(a), *db = dump(b);
    bool same = json_equal(a, b) && strcmp(da, db) == 0;
    free(da);
    free(db);
    return same;
}

/* Views kept in a store, as --jobs keeps them from one thread to the next, with the trees they
 * must give once the store is sealed: a batch at a time, so that the store grows mid-batch. */
enum { STORED_BATCH = 16 };
static struct jv_store store;
static json_t *stored_trees[STORED_BATCH];
static size_t stored_places[STORED_BATCH], nstored;

static void check_stored(void)
{
    jv_store_seal(&store);
    for (size_t i = 0; i < nstored; i++) {
        json_t *got = jscan_to_tree(jv_store_view(&store, stored_places[i]));
        if (!same_tree(stored_trees[i], got)) {
            char *want = dump(stored_trees[i]);
            show("a view kept in a store differs", want, strlen(want));
        }
        json_decref(got);
        json_decref(stored_trees[i]);
    }
    nstored = 0;
    jv_store_reset(&store);
}

static void keep(const struct jscan *js, json_t *want)
{
    stored_places[nstored] = jv_store_add(&store, js);
    stored_trees[nstored++] = json_incref(want);
    if (nstored == STORED_BATCH)
        check_stored();
}

/* jv_equal says what json_equal says: of a value and its own tree, and of a value and the one
 * accepted before it (a mutation and its original differ by little). */
static json_t *previous;

static void compare_equal(const char *text, size_t len, const struct jv *view, json_t *want)
{
    struct jscan *other = jscan_new();
    if (!jv_equal(view, jscan_of_tree(other, want)))
        show("jv_equal: a value is not itself", text, len);
    if (previous &&
        jv_equal(view, jscan_of_tree(other, previous)) != json_equal(want, previous))
        show("jv_equal and json_equal differ", text, len);
    jscan_free(other);
    json_decref(previous);
    previous = json_incref(want);
}

/* Where the scan says each member of an object text stands (jscan_value_text) is where
 * jscan_member_text finds it in the text, for the first JSCAN_SPANS members, when the scanner
 * notes them; never when it does not. */
static void compare_spans(const struct jscan *js, const char *text, size_t len,
                          const struct jv *view, bool noted)
{
    size_t i = 0;
    for (const struct jv *k = jv_object_first(view); k; k = jv_object_next(view, k), i++) {
        size_t text_start, text_end, scan_start, scan_end;
        bool in_text = jscan_member_text(text, len, jv_string_value(k), &text_start, &text_end);
        bool in_scan = jscan_value_text(js, jv_object_value(k), &scan_start, &scan_end);
        if (in_scan && (!noted || i >= JSCAN_SPANS))
            show("jscan_value_text says where a member stands, unasked or past its bound", text,
                 len);
        if (noted && i < JSCAN_SPANS &&
            (in_scan != in_text ||
             (in_scan && (scan_start != text_start || scan_end != text_end))))
            show("jscan_value_text and jscan_member_text differ", text, len);
    }
}

static void compare(struct jscan *js, const char *text, size_t len)
{
    /* The tools reject a NUL byte before any parser sees it (message.c). jansson itself loses a
     * NUL that follows a number ("[1\0]" passes): a quirk the scanner does not copy. */
    if (memchr(text, '\0', len)) {
        texts++;
        rejected++;
        if (verbose)
            puts("reject");
        if (jscan_scan(js, text, len))
            show("the scanner accepts a NUL byte", text, len);
        return;
    }
    json_error_t err;
    json_t *want = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    bool noted = texts % 2 == 0; /* the scanner's two ways with the text's own object */
    jscan_note_spans(js, noted);
    const struct jv *view = jscan_scan(js, text, len);
    texts++;
    if (!want != !view)
        show(want ? "jansson accepts, the scanner rejects" : "the scanner accepts, jansson rejects",
             text, len);
    if (verbose)
        puts(want ? "accept" : "reject");
    if (!want) {
        rejected++;
        return;
    }
    accepted++;
    compare_spans(js, text, len, view, noted);
    compare_equal(text, len, view, want);
    keep(js, want);
    json_t *got = jscan_to_tree(view);
    if (!same_tree(want, got))
        show("the values differ", text, len);
    json_t *back = jscan_to_tree(jscan_of_tree(js, want));
    if (!same_tree(want, back))
        show("the view of jansson's tree differs", text, len);
    json_decref(got);
    json_decref(back);
    json_decref(want);
}

/* --- mutations --- */

static unsigned long long state;

static unsigned long rnd(unsigned long n)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned long)((state >> 33) % n) : 0;
}

static const char *const splices[] = {
    "\"",
    "\\",
    "\\u0000",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\ud800\\u0041",
    "\\u00e9",
    "\\uD834\\uDD1E",
    "\\x",
    "\xc0\xaf",
    "\xe0\x80\xaf",
    "\xed\xa0\x80",
    "\xf4\x90\x80\x80",
    "\xf0\x9f\x98\x80",
    "\xc3\xa9",
    "\xc3",
    "\xff",
    "\x7f",
    "\t",
    "\x01",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"a\":1,",
    "\"a\":1",
    "-",
    "0",
    "01",
    "-0",
    "1e400",
    "1e-400",
    "-1e400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999",
    "1.5",
    "1.",
    ".5",
    "1e",
    "1E+2",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    " ",
    "\r",
    "\n",
    "[[[[[[[[",
    "\"\":0,",
};

static size_t mutate(const char *text, size_t len, char *out)
{
    size_t n = 0, at = rnd(len + 1);
    switch (rnd(6)) {
    case 0: /* flip a byte */
        memcpy(out, text, len);
        n = len;
        if (len)
            out[rnd(len)] = (char)rnd(256);
        break;
    case 1: /* drop a span */ {
        size_t span = rnd(8) + 1;
        if (at + span > len)
            span = len - at;
        memcpy(out, text, at);
        memcpy(out + at, text + at + span, len - at - span);
        n = len - span;
        break;
    }
    case 2: /* double a span */ {
        size_t span = rnd(32) + 1;
        if (at + span > len)
            span = len - at;
        memcpy(out, text, at + span);
        memcpy(out + at + span, text + at, len - at);
        n = len + span;
        break;
    }
    default: /* splice in a token, escape or UTF-8 form */ {
        const char *s = splices[rnd(sizeof splices / sizeof *splices)];
        size_t sl = strlen(s), drop = rnd(3);
        if (at + drop > len)
            drop = len - at;
        memcpy(out, text, at);
        memcpy(out + at, s, sl);
        memcpy(out + at + sl, text + at + drop, len - at - drop);
        n = len + sl - drop;
        break;
    }
    }
    return n;
}

static void compare_mutations(struct jscan *js, const char *text, size_t len, unsigned long count)
{
    char *out = xmalloc(2 * len + 64), *again = xmalloc(4 * len + 192);
    bool said = verbose;
    verbose = false;
    for (unsigned long i = 0; i < count; i++) {
        size_t n = mutate(text, len, out);
        compare(js, out, n);
        /* A second mutation on top of the first reaches further. */
        compare(js, again, mutate(out, n, again));
    }
    verbose = said;
    free(out);
    free(again);
}

static void compare_file(struct jscan *js, FILE *f, bool whole, unsigned long mutations)
{
    struct strbuf sb = STRBUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        size_t len = (size_t)got;
        if (whole) {
            sb_add(&sb, line, len);
            continue;
        }
        if (line[len - 1] == '\n')
            len--;
        compare(js, line, len);
        if (mutations)
            compare_mutations(js, line, len, mutations);
    }
    if (whole && sb.len) {
        compare(js, sb.buf, sb.len);
        if (mutations)
            compare_mutations(js, sb.buf, sb.len, mutations);
    }
    free(line);
    sb_free(&sb);
}

int main(int argc, char **argv)
{
    util_set_progname("jscan-diff");
    json_set_alloc_funcs(xmalloc, free);
    bool whole = false;
    unsigned long mutations = 0;
    int opt;
    while ((opt = getopt(argc, argv, "vwm:")) != -1) {
        if (opt == 'v') {
            verbose = true;
        } else if (opt == 'w') {
            whole = true;
        } else if (opt == 'm' && optind < argc) {
            mutations = strtoul(optarg, NULL, 10);
            state = strtoull(argv[optind++], NULL, 10);
        } else {
            fprintf(stderr, "usage: jscan-diff [-v] [-w] [-m N SEED] FILE...\n");
            return 2;
        }
    }
    struct jscan *js = jscan_new();
    for (int i = optind; i < argc; i++) {
        FILE *f = strcmp(argv[i], "-") == 0 ? stdin : fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        compare_file(js, f, whole, mutations);
        if (f != stdin)
            fclose(f);
    }
    jscan_free(js);
    check_stored();
    jv_store_free(&store);
    json_decref(previous);
    printf("%lu texts, %lu accepted, %lu rejected\n", texts, accepted, rejected);
    return 0;
}
