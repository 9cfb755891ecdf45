/* The FIPA string form: acl_parse on any bytes taken as one record, and the writer on what it
 * reads. Properties: a parse that reports no error gives an object; what acl_write writes of it
 * is read by the reader as exactly one message, which parses again to the same message (in the
 * performative's either case); diagnostics are safe on a terminal. And the records the reader
 * cuts the bytes into parse from the tokens it kept as they do lexed again: the same message,
 * the same number of errors and warnings, the same content text. */
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

/* A record parsed, with its findings counted in a sink of its own. */
static json_t *parse_counted(const struct record *rec, unsigned long *errors,
                             unsigned long *warnings)
{
    struct fuzz_sink s;
    fuzz_sink_begin(&s, false);
    json_t *msg = acl_parse(rec, &s.sink, NOW);
    *errors = s.sink.errors;
    *warnings = s.sink.warnings;
    fuzz_sink_end(&s);
    return msg;
}

static void tokens_as_lexed(const uint8_t *data, size_t size)
{
    struct reader *r = fuzz_reader_open(data, size, READ_ACL, 1 << 20, NULL);
    struct record rec;
    while (reader_next(r, &rec) > 0) {
        if (!rec.tokens)
            continue;
        struct record lexed = rec;
        lexed.tokens = NULL;
        lexed.ntokens = 0;
        unsigned long errors[2], warnings[2];
        json_t *a = parse_counted(&rec, &errors[0], &warnings[0]);
        json_t *b = parse_counted(&lexed, &errors[1], &warnings[1]);
        FUZZ_ASSERT(errors[0] == errors[1] && warnings[0] == warnings[1],
                    "from the tokens: %lu errors, %lu warnings; lexed: %lu, %lu", errors[0],
                    warnings[0], errors[1], warnings[1]);
        FUZZ_ASSERT(!a == !b && (!a || json_equal(a, b)),
                    "a record parses otherwise from its tokens than lexed");
        json_decref(a);
        json_decref(b);
        struct strbuf text[2] = {STRBUF_INIT, STRBUF_INIT};
        bool has[2] = {acl_content_text(&rec, &text[0]), acl_content_text(&lexed, &text[1])};
        FUZZ_ASSERT(has[0] == has[1] &&
                        (!has[0] || (text[0].len == text[1].len &&
                                     memcmp(text[0].buf, text[1].buf, text[0].len) == 0)),
                    "the content's text differs from the tokens and lexed");
        sb_free(&text[0]);
        sb_free(&text[1]);
    }
    reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    tokens_as_lexed(data, size);
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
