/* The FIPA string form: acl_parse on any bytes taken as one record, and the writer on what it
 * reads. Properties: a parse that reports no error gives an object; what acl_write writes of it
 * is read by the reader as exactly one message, which parses again to the same message (in the
 * performative's either case); diagnostics are safe on a terminal. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/acl.h"

enum { NOW = 1700000000 };

/* The written text read back as a tool reads it: one record, parsed. */
static json_t *read_back(const struct strbuf *text, struct diag_sink *sink)
{
    struct reader *r = fuzz_reader_open(text->buf, text->len, READ_ACL, 1 << 24, NULL);
    struct record rec;
    FUZZ_ASSERT(reader_next(r, &rec) == 1 && rec.kind == REC_LINE && rec.message,
                "the written text is no message record: %s", text->buf);
    json_t *back = acl_parse(&rec, sink, NOW);
    struct record after;
    int more = reader_next(r, &after);
    FUZZ_ASSERT(more == 0, "the written text is more than one record: %s", text->buf);
    reader_close(r);
    return back;
}

static void write_and_read(const json_t *msg, bool upper)
{
    struct fuzz_sink s;
    fuzz_sink_begin(&s, upper);
    struct strbuf text = STRBUF_INIT;
    struct diag_where at = {.file = "fuzz", .line = 1};
    if (fuzz_acl_write(&text, msg, upper, &s.sink, &at)) {
        FUZZ_ASSERT(s.sink.errors == 0, "acl_write wrote and reported an error");
        json_t *back = read_back(&text, &s.sink);
        char *a = fuzz_dump(msg);
        FUZZ_ASSERT(back, "what acl_write wrote does not parse:\n%s\nfrom %s", text.buf, a);
        char *b = fuzz_dump(back);
        FUZZ_ASSERT(fuzz_equal_messages(msg, back),
                    "parse, write, parse differs:\n%s\nwritten\n%s\nread back\n%s", a, text.buf, b);
        free(a);
        free(b);
        json_decref(back);
    } else {
        FUZZ_ASSERT(s.sink.errors > 0, "acl_write refused without a word");
    }
    sb_free(&text);
    fuzz_sink_end(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct record rec = {.kind = REC_LINE,
                         .syntax = SYNTAX_ACL,
                         .file = "fuzz",
                         .line = 1,
                         .end_line = 1,
                         .text = (const char *)data,
                         .len = size,
                         .raw_len = size,
                         .message = size > 0 && data[0] == '('};
    struct fuzz_sink s;
    fuzz_sink_begin(&s, size % 2);
    json_t *msg = acl_parse(&rec, &s.sink, NOW);
    FUZZ_ASSERT(!msg == (s.sink.errors > 0), "acl_parse: %lu errors, %s", s.sink.errors,
                msg ? "a message" : "none");
    fuzz_sink_end(&s);
    if (msg) {
        FUZZ_ASSERT(json_is_object(msg), "acl_parse gave no object");
        write_and_read(msg, false);
        write_and_read(msg, true);
    }
    json_decref(msg);
    return 0;
}
