/* The reader, in every mode (json, acl, auto) and with a small and a large --max-line-bytes.
 * Properties: the records' bytes (an over-long record's as the spill hook got them), with the
 * line ends consumed and the white space skipped after a string-form message, give back the
 * input exactly (a byte-order mark at its start aside); each record's line, end line and column
 * base are where its bytes are; no record held is longer than max_line; and the count of unread
 * lines agrees with the input. The fuzz build reads in tiny chunks (ACP_READER_CHUNK), so that
 * records cross chunk boundaries everywhere. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/reader.h"

struct spilled {
    struct strbuf bytes;
};

static void on_spill(void *ctx, const char *data, size_t len)
{
    sb_add(&((struct spilled *)ctx)->bytes, data, len);
}

struct cursor {
    const char *in;
    size_t size, pos;
    unsigned long *lines; /* lines[i]: the line byte i is on (i == size: after the last byte) */
    size_t *line_starts;  /* line_starts[i]: where the line of byte i starts */
};

static void cursor_init(struct cursor *c, const uint8_t *data, size_t size)
{
    *c = (struct cursor){.in = (const char *)data, .size = size};
    c->lines = xmalloc((size + 1) * sizeof *c->lines);
    c->line_starts = xmalloc((size + 1) * sizeof *c->line_starts);
    unsigned long line = 1;
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        c->lines[i] = line;
        c->line_starts[i] = start;
        if (i < size && data[i] == '\n') {
            line++;
            start = i + 1;
        }
    }
}

static unsigned long line_at(const struct cursor *c, size_t pos)
{
    return c->lines[pos];
}

static size_t column_at(const struct cursor *c, size_t pos)
{
    return pos - c->line_starts[pos];
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f';
}

/* Checks one record against the input at the cursor and moves the cursor past it. */
static void account(struct cursor *c, const struct record *rec, const struct strbuf *spilled,
                    size_t max_line)
{
    const char *bytes = rec->kind == REC_TOO_LONG ? spilled->buf : rec->text;
    size_t n = rec->kind == REC_TOO_LONG ? spilled->len : rec->raw_len;
    if (rec->kind == REC_TOO_LONG)
        FUZZ_ASSERT(rec->raw_len == n, "too long: raw_len %zu, %zu bytes spilled", rec->raw_len, n);
    else
        FUZZ_ASSERT(rec->raw_len <= max_line, "a record of %zu bytes held, max %zu", rec->raw_len,
                    max_line);
    FUZZ_ASSERT(rec->len <= rec->raw_len, "len %zu > raw_len %zu", rec->len, rec->raw_len);
    FUZZ_ASSERT(c->pos + n <= c->size && (n == 0 || memcmp(c->in + c->pos, bytes, n) == 0),
                "record at line %lu: its %zu bytes are not the input's at %zu", rec->line, n,
                c->pos);
    FUZZ_ASSERT(rec->line == line_at(c, c->pos), "record says line %lu, starts on line %lu",
                rec->line, line_at(c, c->pos));
    /* The line its text ends on (a text may end in a line end: then on the empty line after). */
    FUZZ_ASSERT(rec->end_line == line_at(c, c->pos + n),
                "record of line %lu says end line %lu, ends on line %lu", rec->line, rec->end_line,
                line_at(c, c->pos + n));
    FUZZ_ASSERT(rec->column_base == column_at(c, c->pos), "line %lu: column base %zu, not %zu",
                rec->line, rec->column_base, column_at(c, c->pos));
    c->pos += n;
    if (rec->syntax == SYNTAX_ACL && rec->message && rec->had_newline) {
        /* A message ends at its ")": white space to the end of its line goes with it. */
        while (c->pos < c->size && is_space(c->in[c->pos]))
            c->pos++;
        if (c->pos < c->size && c->in[c->pos] == '\n')
            c->pos++;
        else if (c->pos == c->size)
            FUZZ_ASSERT(n > 0 && bytes[n - 1] == ')',
                        "message of line %lu has a line end, but ends the input unclosed",
                        rec->line);
    } else if (rec->had_newline) {
        FUZZ_ASSERT(c->pos < c->size && c->in[c->pos] == '\n',
                    "record of line %lu has a line end the input lacks", rec->line);
        c->pos++;
    } else {
        FUZZ_ASSERT(c->pos == c->size, "record of line %lu has no line end, before the end",
                    rec->line);
    }
}

static unsigned long lines_left(const struct cursor *c)
{
    unsigned long n = 0;
    for (size_t i = c->pos; i < c->size; i++)
        n += c->in[i] == '\n';
    return n + (c->pos < c->size && c->in[c->size - 1] != '\n');
}

/* Reads the whole input; with stop_after, counts what is left after that many records. */
static void read_all(const uint8_t *data, size_t size, enum reader_mode mode, size_t max_line,
                     unsigned long stop_after)
{
    struct spilled sp = {STRBUF_INIT};
    struct reader_hooks hooks = {.spill = on_spill, .ctx = &sp};
    struct reader *r = fuzz_reader_open(data, size, mode, max_line, &hooks);
    struct cursor c;
    cursor_init(&c, data, size);
    if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
        c.pos = 3;
    struct record rec;
    int got;
    unsigned long records = 0;
    while ((got = reader_next(r, &rec)) > 0) {
        account(&c, &rec, &sp.bytes, max_line);
        sb_reset(&sp.bytes);
        if (stop_after && ++records == stop_after && c.pos < size && c.in[c.pos - 1] == '\n') {
            unsigned long unread;
            FUZZ_ASSERT(reader_count_unread_lines(r, &unread), "cannot count unread lines");
            FUZZ_ASSERT(unread == lines_left(&c), "%lu lines unread counted, %lu left", unread,
                        lines_left(&c));
            break;
        }
    }
    FUZZ_ASSERT(got >= 0, "read error");
    if (got == 0)
        FUZZ_ASSERT(c.pos == size, "the records end at byte %zu of %zu", c.pos, size);
    reader_close(r);
    sb_free(&sp.bytes);
    free(c.lines);
    free(c.line_starts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    static const enum reader_mode modes[] = {READ_JSON, READ_ACL, READ_AUTO};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        read_all(data, size, modes[i], 1 << 20, 0);
        read_all(data, size, modes[i], 24, 0);
    }
    read_all(data, size, READ_JSON, 1 << 20, 1 + size % 5);
    return 0;
}
