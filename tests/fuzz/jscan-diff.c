/* The hot path's JSON scanner (common/jscan.h) against jansson, which it stands in for. The whole
 * input, and each of its lines, is given to both: jscan_scan and json_loadb with
 * JSON_REJECT_DUPLICATES | JSON_DECODE_ANY. Properties: they agree on accept or reject (a text
 * with a NUL byte, which message.c rejects before any parser, is rejected by the scanner); for an
 * accepted text the scanner's value is jansson's (json_equal, and the same text written out with
 * members in input order and reals to 17 digits), and the view made from jansson's tree gives
 * it back. And through message.c as the tools read a line: message_read reports exactly what
 * message_parse_json reports (same diagnostics, byte for byte), and when it accepts, the same
 * object with the same protocol and id. */
#include <string.h>

#include "fuzz.h"
#include "proto/jscan.h"

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

static void compare_text(struct jscan *js, const char *text, size_t len)
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

static void compare_message(struct jscan *js, const struct record *rec)
{
    struct captured by_jansson, by_scanner;
    capture_begin(&by_jansson);
    capture_begin(&by_scanner);
    json_t *root = message_parse_json(rec, &by_jansson.sink);
    struct message m;
    bool read = message_read(&m, rec, js, CHOOSE_AUTO, &by_scanner.sink);
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
    compare_text(js, (const char *)data, size);
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        compare_text(js, rec.text, rec.len);
        compare_message(js, &rec);
    }
    jscan_free(js);
    return 0;
}
