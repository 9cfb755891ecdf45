/* What the fuzz targets share: input split into records, a diagnostics sink whose every line is
 * checked (terminal-safe text, or a JSON object), acp-convert(1)'s normalisation and equality of
 * JSON values, and the conversion of one message as acp-convert does it.
 *
 * Each target is one file tests/fuzz/NAME.c defining LLVMFuzzerTestOneInput; `make fuzz` builds
 * and runs every one (tests/fuzz/README.md). A property that fails calls fuzz_fail, which
 * aborts: libFuzzer then keeps the input as a crash. */
#ifndef ACP_FUZZ_H
#define ACP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "diag/diag.h"
#include "io/reader.h"
#include "proto/convert.h"
#include "proto/message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reports a broken property and aborts. */
_Noreturn void fuzz_fail(const char *fmt, ...) ACP_PRINTF(1, 2);
#define FUZZ_ASSERT(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__VA_ARGS__);                                                                \
    } while (0)

/* Makes jansson allocate as the tools do (filter_tool_init); call at the start of every run. */
void fuzz_setup(void);

/* The lines of data, one record each as the JSON reader would give them (a CR before the line
 * end excluded from len, kept in raw_len): fuzz_next_line fills rec and returns false at the end.
 */
struct fuzz_lines {
    const char *data;
    size_t size, pos;
    unsigned long line;
};
void fuzz_lines_init(struct fuzz_lines *it, const uint8_t *data, size_t size);
bool fuzz_next_line(struct fuzz_lines *it, struct record *rec);

/* A reader over text, reading it as a tool reads a regular file (a memory file whose path is
 * opened, so reads return what the reader asks, up to the end). */
struct reader *fuzz_reader_open(const void *text, size_t len, enum reader_mode mode,
                                size_t max_line, const struct reader_hooks *hooks);

/* A sink whose diagnostics are written to memory and checked by fuzz_sink_end: in text, one line
 * each with no byte that acts on a terminal (no control character but its newline, no C1, bidi
 * control or invalid UTF-8); in JSON, one object each with type, file, line, severity, code and
 * message. json: the format; ordinal: tells runs apart. */
struct fuzz_sink {
    struct diag_sink sink;
    char *text;
    size_t len;
    FILE *memory;
};
void fuzz_sink_begin(struct fuzz_sink *s, bool json);
void fuzz_sink_end(struct fuzz_sink *s);

/* Whether two messages are equal under acp-convert(1)'s normalisation (tests/normalise.jq): a
 * null member counts as absent, a performative is compared in snake_case, a receiver or reply_to
 * of one element as that element, numbers as numbers. */
bool fuzz_equal_messages(const json_t *a, const json_t *b);
/* The JSON text of v, for messages about a broken property (free it). */
char *fuzz_dump(const json_t *v);

/* acl_write of a tree, through its view. */
bool fuzz_acl_write(struct strbuf *out, const json_t *msg, bool upper, struct diag_sink *sink,
                    const struct diag_where *at);

/* The formats of acp-convert's --to. */
enum fuzz_format { FUZZ_IACP, FUZZ_FIPA, FUZZ_FIPA_ACL };

/* Converts one message of protocol proto (read from a record of syntax) as `acp-convert --to=to`
 * does, into out (its text as written, a line of JSON or a string-form expression). Returns false
 * when acp-convert would reject the message (a diagnostic was reported). */
bool fuzz_convert(struct converter *c, const struct message *m, enum fuzz_format to,
                  struct diag_sink *sink, struct strbuf *out);

/* The round trip of acp-convert(1): the messages of data (JSON Lines, read as acp-convert reads
 * them) that acp-validate --stateless accepts as protocol `from` are converted by one converter
 * to `via`, as `acp-convert --to=VIA`; its output is read back and converted by another to
 * `back`, as `acp-convert --to=BACK`. Properties: every message written comes back, each equal
 * to its input under acp-convert(1)'s normalisation; diagnostics are safe on a terminal. */
void fuzz_round_trip(const uint8_t *data, size_t size, enum protocol from, enum fuzz_format via,
                     enum fuzz_format back);

#endif
