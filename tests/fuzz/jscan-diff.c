/* The hot path's JSON scanner (common/jscan.h) against jansson, which it stands in for. The whole
 * input, and each of its lines, is given to both: jscan_scan and json_loadb with
 * JSON_REJECT_DUPLICATES | JSON_DECODE_ANY. Properties: they agree on accept or reject (a text
 * with a NUL byte, which message.c rejects before any parser, is rejected by the scanner); for an
 * accepted text the scanner's value is jansson's (json_equal, and the same text written out with
 * members in input order and reals to 17 digits), and the view made from jansson's tree gives
 * it back. And through message.c as the tools read a line: message_read reports exactly what
 * message_parse_json reports (same diagnostics, byte for byte), and when it accepts, the same
 * object with the same protocol and id; but for a capture record or a batch, which the scanner's
 * path alone reads as what it holds, the message it takes is the one jansson's tree holds. */
#include <string.h>

#include "fuzz.h"
#include "proto/dialect.h"
#include "proto/jscan.h"
#include "proto/taprecord.h"

static char *dump(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    FUZZ_ASSERT(s, "json_dumps failed");
    return s;
}

static void assert_same(const json_t *want, const json_t *got, const char *what)
{
    char *w = dump(want), *g = dump(got);
    FUZZ_ASSERT(json_equal(want, got) && strcmp(w, g) == 0, "%s: jansson read %s, the scanner %s",
                what, w, g);
    free(w);
    free(g);
}

/* jv_equal says what json_equal says: of a value and its own tree, and of a value and the one
 * read before it (lines of a file are often near copies, members reordered). */
static void compare_equal(const struct jv *view, const json_t *want, json_t **previous)
{
    struct jscan *other = jscan_new();
    FUZZ_ASSERT(jv_equal(view, jscan_of_tree(other, want)), "jv_equal: a value is not itself");
    if (*previous)
        FUZZ_ASSERT(jv_equal(view, jscan_of_tree(other, *previous)) == json_equal(want, *previous),
                    "jv_equal and json_equal differ");
    jscan_free(other);
    json_decref(*previous);
    *previous = json_incref((json_t *)want);
}

static void compare_text(struct jscan *js, const char *text, size_t len, json_t **previous)
{
    const struct jv *view = jscan_scan(js, text, len);
    if (memchr(text, '\0', len)) {
        FUZZ_ASSERT(!view, "the scanner accepts a text with a NUL byte");
        return;
    }
    json_error_t err;
    json_t *want = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    FUZZ_ASSERT(!want == !view, "jansson %s (%s), the scanner %s", want ? "accepts" : "rejects",
                want ? "" : err.text, view ? "accepts" : "rejects");
    if (!want)
        return;
    compare_equal(view, want, previous);
    json_t *got = jscan_to_tree(view);
    assert_same(want, got, "the value");
    json_t *back = jscan_to_tree(jscan_of_tree(js, want));
    assert_same(want, back, "the view of jansson's tree");
    json_decref(back);
    json_decref(got);
    json_decref(want);
}

/* What a sink wrote, for comparing two runs. */
struct captured {
    struct diag_sink sink;
    char *text;
    size_t len;
    FILE *memory;
};

static void capture_begin(struct captured *c)
{
    c->text = NULL;
    c->len = 0;
    c->memory = open_memstream(&c->text, &c->len);
    FUZZ_ASSERT(c->memory, "open_memstream failed");
    diag_sink_init(&c->sink, c->memory);
}

static void capture_end(struct captured *c)
{
    FUZZ_ASSERT(fclose(c->memory) == 0, "fclose failed");
    diag_sink_free(&c->sink);
}

/* What jansson's tree of a record holds as its message: the record itself, or the message a
 * capture record holds (taprecord.h), which message_read takes in its place. The tree is root's
 * or a member of it. */
static json_t *held_message(json_t *root, const struct message *m)
{
    struct taprecord r;
    if (!m->capture.present || m->capture.event)
        return root;
    struct jscan *own = jscan_new(); /* the message's scanner holds its view */
    const struct jv *view = jscan_of_tree(own, root);
    FUZZ_ASSERT(taprecord_read(view, &r) && r.kind == TAPRECORD_MESSAGE,
                "the scanner read a capture record's message that jansson's tree holds not");
    /* the member of root that holds it: the one whose view is r.message */
    json_t *held = NULL;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        if (jv_object_get(view, key) == r.message)
            held = value;
    }
    jscan_free(own);
    FUZZ_ASSERT(held, "no member of the record holds its message");
    return held;
}

/* A capture record, or a batch, which the scanner's path alone reads as what it holds (jansson's
 * path, which the tools take for what the scanner rejects, sees a record or an array): the
 * message it takes is the one jansson's tree holds. */
static void compare_held(struct jscan *js, const struct record *rec)
{
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    json_error_t err;
    json_t *root = json_loadb(rec->text, rec->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    struct message m;
    if (root && message_read(&m, rec, js, CHOOSE_AUTO, NULL, &quiet)) {
        json_t *held = held_message(root, &m);
        assert_same(held, message_tree(&m), "the message a record holds");
        message_clear(&m);
    }
    json_decref(root);
    diag_sink_free(&quiet);
}

static void compare_message(struct jscan *js, const struct record *rec)
{
    const struct jv *view = jscan_scan(js, rec->text, rec->len);
    struct taprecord r;
    if (view && (dialect_batch(view) || (jv_is_object(view) && taprecord_read(view, &r)))) {
        compare_held(js, rec);
        return;
    }
    struct captured by_jansson, by_scanner;
    capture_begin(&by_jansson);
    capture_begin(&by_scanner);
    json_t *root = message_parse_json(rec, &by_jansson.sink);
    struct message m;
    bool read = message_read(&m, rec, js, CHOOSE_AUTO, NULL, &by_scanner.sink);
    capture_end(&by_jansson);
    capture_end(&by_scanner);
    FUZZ_ASSERT(by_jansson.len == by_scanner.len &&
                    memcmp(by_jansson.text, by_scanner.text, by_jansson.len) == 0,
                "diagnostics differ: jansson's path says '%s', the scanner's '%s'", by_jansson.text,
                by_scanner.text);
    FUZZ_ASSERT(read == (root != NULL), "message_read %s, message_parse_json %s",
                read ? "accepts" : "rejects", root ? "accepts" : "rejects");
    if (read) {
        assert_same(root, message_tree(&m), "the message");
        FUZZ_ASSERT(m.proto == message_protocol(root, CHOOSE_AUTO), "the protocol differs");
        const char *id = json_member_string(root, m.proto == PROTO_FIPA ? "reply_with" : "id");
        FUZZ_ASSERT(!id == !m.id && (!id || strcmp(id, m.id) == 0), "the id differs");
        message_clear(&m);
    }
    json_decref(root);
    free(by_jansson.text);
    free(by_scanner.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct jscan *js = jscan_new();
    json_t *previous = NULL; /* the value read last */
    compare_text(js, (const char *)data, size, &previous);
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        compare_text(js, rec.text, rec.len, &previous);
        compare_message(js, &rec);
    }
    json_decref(previous);
    jscan_free(js);
    return 0;
}
