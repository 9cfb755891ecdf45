#include "io/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "proto/acl_lex.h"

/* Bytes asked of each read(2): large enough that a batch run makes few system calls. The fuzz
 * build makes it tiny, so that records cross reads everywhere. */
#ifndef ACP_READER_CHUNK
#define ACP_READER_CHUNK (64 * 1024)
#endif
enum { CHUNK = ACP_READER_CHUNK };

static const char utf8_bom[3] = {'\xef', '\xbb', '\xbf'};

struct reader {
    int fd;
    bool own_fd;
    const char *display;
    enum reader_mode mode;
    struct reader_hooks hooks;
    size_t max_line;
    char *buf;
    size_t cap;
    size_t start;   /* first unconsumed byte */
    size_t scanned; /* bytes from start already searched for a line end */
    size_t end;     /* one past the last byte read */
    bool eof;
    bool at_file_start;
    bool mid_line;      /* a string-form record ended on the current line, which goes on */
    unsigned long line; /* lines consumed so far */
    size_t line_offset; /* bytes of the current line consumed so far */
    /* the tokens of the string-form record being read, handed to the parser with it */
    struct acl_mark *tokens;
    size_t ntokens, tokens_cap;
};

struct reader *reader_open(const char *path, const char *display, size_t max_line,
                           enum reader_mode mode, const struct reader_hooks *hooks)
{
    int fd = 0;
    bool own = false;
    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return NULL;
        own = true;
    }
    struct reader *r = xcalloc(1, sizeof *r);
    r->fd = fd;
    r->own_fd = own;
    r->display = display;
    r->mode = mode;
    if (hooks)
        r->hooks = *hooks;
    r->max_line = max_line;
    r->cap = CHUNK + 1;
    r->buf = xmalloc(r->cap);
    r->at_file_start = true;
    return r;
}

void reader_close(struct reader *r)
{
    if (!r)
        return;
    if (r->own_fd)
        close(r->fd);
    free(r->buf);
    free(r->tokens);
    free(r);
}

static bool input_would_block(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    return poll(&pfd, 1, 0) == 0;
}

static bool stop_requested(const struct reader *r);

/* While input is idle, calls the idle hook whenever the wait it asked for passed. Returns false
 * when SIGINT asked to stop (errno EINTR). */
static bool wait_while_idle(struct reader *r)
{
    for (;;) {
        double wait = r->hooks.idle(r->hooks.ctx);
        if (r->hooks.before_block)
            r->hooks.before_block(r->hooks.ctx);
        if (!(wait < INFINITY))
            return true;
        struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
        int n = poll(&pfd, 1, (int)fmin(ceil(fmax(wait, 0) * 1000), 60 * 60 * 1000));
        if (stop_requested(r))
            return false;
        if (n > 0 || (n < 0 && errno != EINTR)) /* input, or an error that read will report */
            return true;
    }
}

/* Reads more bytes after end, making room first. 1: got bytes; 0: end of file; -1: error. */
static int fill(struct reader *r)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->cap - r->end < CHUNK) {
        /* Room for a whole line of max_line bytes plus its end, and a chunk to find that end. */
        size_t want = r->end + CHUNK;
        r->buf = xrealloc(r->buf, want);
        r->cap = want;
    }
    if ((r->hooks.before_block || r->hooks.idle) && input_would_block(r->fd)) {
        if (r->hooks.before_block && !r->hooks.idle)
            r->hooks.before_block(r->hooks.ctx);
        if (r->hooks.idle && !wait_while_idle(r))
            return -1;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n > 0) {
            r->end += (size_t)n;
            return 1;
        }
        if (n == 0) {
            r->eof = true;
            return 0;
        }
        if (errno == EINTR && !(r->hooks.interrupted && *r->hooks.interrupted))
            continue;
        return -1;
    }
}

/* A read from a regular file or a device such as /dev/zero is not cut short by SIGINT: loops
 * that read on without returning a record ask here. */
static bool stop_requested(const struct reader *r)
{
    if (!(r->hooks.interrupted && *r->hooks.interrupted))
        return false;
    errno = EINTR;
    return true;
}

static bool is_blank(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

/* Moves the line count and the offset in the last line past n bytes at p: a record of the
 * string form spans several lines, which memchr finds faster than a look at every byte. */
static void count_lines(struct reader *r, const char *p, size_t n)
{
    const char *end = p + n, *line = p;
    for (const char *nl; line < end && (nl = memchr(line, '\n', (size_t)(end - line)));
         line = nl + 1)
        r->line++;
    r->line_offset = line == p ? r->line_offset + n : (size_t)(end - line);
}

/* A line of len bytes (its newline, if any, follows them) from the current position, which is
 * the start of a line or, after a string-form record, the rest of one. */
static void make_line(struct reader *r, struct record *rec, size_t len, bool newline,
                      enum record_syntax syntax)
{
    const char *p = r->buf + r->start;
    rec->syntax = syntax;
    rec->file = r->display;
    rec->line = rec->end_line = ++r->line;
    rec->column_base = r->line_offset;
    rec->text = p;
    rec->raw_len = len;
    rec->len = (len > 0 && p[len - 1] == '\r') ? len - 1 : len;
    rec->had_newline = newline;
    rec->kind = is_blank(p, len) ? REC_BLANK : REC_LINE;
    r->start += len + (newline ? 1 : 0);
    r->scanned = 0;
    r->line_offset = 0;
    r->mid_line = false;
}

static void spill(struct reader *r, const char *p, size_t n)
{
    if (r->hooks.spill && n)
        r->hooks.spill(r->hooks.ctx, p, n);
}

/* Passes an over-long line to the spill hook without keeping it. nl is its end when that is
 * already in the buffer, else NULL and the rest is read and passed on piece by piece. */
static int skip_long_line(struct reader *r, struct record *rec, const char *nl,
                          enum record_syntax syntax)
{
    const char *p = r->buf + r->start;
    size_t total = nl ? (size_t)(nl - p) : r->end - r->start;
    spill(r, p, total);
    bool newline = nl != NULL;
    rec->column_base = r->line_offset;
    r->scanned = 0;
    if (nl)
        r->start += total + 1;
    else
        r->start = r->end = 0;
    while (!newline) {
        if (stop_requested(r))
            return -1;
        int got = fill(r);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        const char *end = memchr(r->buf, '\n', r->end);
        size_t n = end ? (size_t)(end - r->buf) : r->end;
        spill(r, r->buf, n);
        total += n;
        newline = end != NULL;
        r->start = end ? n + 1 : 0;
        if (!end)
            r->end = 0;
    }
    rec->kind = REC_TOO_LONG;
    rec->syntax = syntax;
    rec->file = r->display;
    rec->line = rec->end_line = ++r->line;
    rec->text = NULL;
    rec->len = rec->raw_len = total;
    rec->had_newline = newline;
    r->line_offset = 0;
    r->mid_line = false;
    return 1;
}

/* A byte-order mark marks the file, not the message: drop it when it opens the file. */
static int drop_file_bom(struct reader *r)
{
    r->at_file_start = false;
    while (r->end - r->start < sizeof utf8_bom && !r->eof) {
        if (fill(r) < 0)
            return -1;
    }
    if (r->end - r->start >= sizeof utf8_bom &&
        memcmp(r->buf + r->start, utf8_bom, sizeof utf8_bom) == 0) {
        r->start += sizeof utf8_bom;
        r->line_offset = sizeof utf8_bom;
    }
    return 0;
}

static int next_line(struct reader *r, struct record *rec, enum record_syntax syntax)
{
    for (;;) {
        size_t avail = r->end - r->start;
        char *from = r->buf + r->start + r->scanned;
        char *nl = memchr(from, '\n', avail - r->scanned);
        if (nl) {
            size_t len = (size_t)(nl - (r->buf + r->start));
            if (len > r->max_line)
                return skip_long_line(r, rec, nl, syntax);
            make_line(r, rec, len, true, syntax);
            return 1;
        }
        r->scanned = avail;
        if (avail > r->max_line)
            return skip_long_line(r, rec, NULL, syntax);
        if (r->eof) {
            if (avail == 0)
                return 0;
            make_line(r, rec, avail, false, syntax);
            return 1;
        }
        if (fill(r) < 0)
            return -1;
    }
}

/* --- The string form: one record per message, found by the lexer of acl_lex.h. ---
 *
 * A record ends at the ")" that closes its message. A message whose syntax is broken (the shape
 * check fails, or a byte-length string could never fit in max_line) ends instead before the
 * first line inside it that starts a record (acl_starts_record: "(" and a communicative act, or
 * "{", at the very start of a line), when that comes first; so does a message that is still open
 * at the end of the input or when it outgrows max_line. Without "{", a lone "(" before a stream
 * of JSON would take in every line after it. Valid messages are never cut: inside them such a
 * line is text. */

struct acl_scan {
    struct acl_lexer lex;
    struct acl_shape shape;
    unsigned long depth; /* lists open */
    size_t closed;       /* the record's length once its ")" was read; 0 before */
    size_t searched;     /* bytes searched for a line that starts a record */
    size_t candidate;    /* where the first such line inside the record starts; 0: none yet */
    bool broken;         /* the message cannot be valid: it ends at candidate */
    bool tokens_kept;    /* every token so far is in the reader's tokens */
};

/* Searches for a line end followed by a line that starts a record, up to avail. */
static void find_candidate(struct acl_scan *sc, const char *p, size_t avail, bool eof)
{
    while (!sc->candidate && sc->searched < avail) {
        const char *nl = memchr(p + sc->searched, '\n', avail - sc->searched);
        if (!nl) {
            sc->searched = avail;
            return;
        }
        size_t at = (size_t)(nl - p) + 1;
        int starts = at < avail ? acl_starts_record(p + at, avail - at, eof) : (eof ? 0 : -1);
        if (starts < 0) {
            sc->searched = at - 1; /* wait at the newline for the bytes that decide */
            return;
        }
        if (starts)
            sc->candidate = at;
        sc->searched = at;
    }
}

/* A message's tokens are kept for its parser, up to a number that bounds their memory by far
 * less than max_line's (a token takes a byte of the text, and 16 of the reader's); the parser of
 * a longer message lexes it again. */
enum { TOKENS_KEPT = 4096 };

static void keep_token(struct reader *r, struct acl_scan *sc, const struct acl_token *tok)
{
    if (!sc->tokens_kept)
        return;
    if (r->ntokens == TOKENS_KEPT) {
        sc->tokens_kept = false;
        return;
    }
    if (r->ntokens == r->tokens_cap)
        r->tokens = xgrow(r->tokens, &r->tokens_cap, r->ntokens + 1, sizeof *r->tokens);
    if (acl_mark_of(tok, &r->tokens[r->ntokens]))
        r->ntokens++;
    else
        sc->tokens_kept = false;
}

static void lex_held(struct reader *r, struct acl_scan *sc, const char *p, size_t avail, bool eof,
                     size_t max_line)
{
    struct acl_token tok;
    while (!sc->closed && acl_lex_next(&sc->lex, p, avail, eof, &tok) == ACL_LEX_TOKEN) {
        if (!sc->broken && acl_shape_feed(&sc->shape, &tok, p) != SHAPE_OK)
            sc->broken = true;
        keep_token(r, sc, &tok);
        if (tok.kind == ACL_OPEN)
            sc->depth++;
        else if (tok.kind == ACL_CLOSE && sc->depth > 0 && --sc->depth == 0)
            sc->closed = tok.end;
    }
    /* A byte-length string that cannot fit would otherwise swallow what follows. */
    if (sc->lex.state == LEX_BYTES && sc->lex.length > max_line)
        sc->broken = true;
}

/* Where the record ends, once that is known (false: more input must decide): *len bytes from
 * where it starts (what is left of it, once an over-long one was passed on in part). *split: it
 * ends before a line that starts the next message. */
static bool acl_record_end(const struct acl_scan *sc, size_t avail, bool eof, size_t *len,
                           bool *split)
{
    *split = false;
    if (sc->closed && !(sc->broken && sc->candidate && sc->candidate < sc->closed)) {
        *len = sc->closed;
        return true;
    }
    if (sc->candidate && (sc->broken || eof)) {
        *split = true;
        *len = sc->candidate;
        return true;
    }
    *len = avail;
    return eof;
}

/* The bytes of a record that ends at take: its text excludes a final line end (LF, or CRLF
 * whose CR stays in raw_len), which consuming it takes along. */
struct acl_extent {
    size_t take, raw_len, len;
    bool newline;
};

static struct acl_extent acl_extent(const char *p, size_t take, bool closed)
{
    struct acl_extent e = {.take = take, .raw_len = take, .len = take};
    if (!closed && take > 0 && p[take - 1] == '\n') {
        e.newline = true;
        e.raw_len = e.len = take - 1;
        if (e.len > 0 && p[e.len - 1] == '\r')
            e.len--;
    }
    return e;
}

static void make_acl_record(struct reader *r, struct record *rec, const struct acl_extent *e,
                            bool closed, bool tokens_kept)
{
    rec->tokens = tokens_kept ? r->tokens : NULL;
    rec->ntokens = tokens_kept ? r->ntokens : 0;
    rec->kind = REC_LINE;
    rec->syntax = SYNTAX_ACL;
    rec->message = true;
    rec->file = r->display;
    rec->line = r->line + 1;
    rec->column_base = r->line_offset;
    rec->text = r->buf + r->start;
    rec->len = e->len;
    rec->raw_len = e->raw_len;
    rec->had_newline = e->newline || closed;
    count_lines(r, rec->text, e->raw_len);
    rec->end_line = r->line + 1;
    count_lines(r, rec->text + e->raw_len, e->take - e->raw_len);
    r->start += e->take;
    r->scanned = 0;
    r->mid_line = closed;
    rec->ends_mid_line = closed;
}

/* Passes on, and forgets, the first n bytes held of an over-long record (never its candidate's
 * line end: the record ends there, with it). */
static void spill_front(struct reader *r, struct acl_scan *sc, size_t n)
{
    spill(r, r->buf + r->start, n);
    count_lines(r, r->buf + r->start, n);
    r->start += n;
    acl_lex_drop(&sc->lex, n);
    sc->searched -= n;
    if (sc->candidate)
        sc->candidate -= n;
}

static int next_acl(struct reader *r, struct record *rec)
{
    struct acl_scan sc = {.tokens_kept = true};
    r->ntokens = 0;
    acl_lex_init(&sc.lex);
    acl_shape_init(&sc.shape);
    bool spilling = false;
    size_t spilled = 0;
    unsigned long first_line = r->line + 1;
    size_t column = r->line_offset;
    for (;;) {
        const char *p = r->buf + r->start;
        size_t avail = r->end - r->start;
        lex_held(r, &sc, p, avail, r->eof, r->max_line);
        /* Where the next message may start matters only to a message that did not close as a
         * message should (acl_record_end): most close, and their lines are not searched. */
        if (!sc.closed || sc.broken)
            find_candidate(&sc, p, avail, r->eof);
        bool split;
        size_t end;
        bool known = acl_record_end(&sc, avail, r->eof, &end, &split);
        if (!known && avail > r->max_line && !spilling) {
            /* Too long to be held: a broken message ends at its first message line, if that
             * comes soon enough; anything else is skipped as one over-long record. */
            if (sc.candidate && sc.candidate - 1 <= r->max_line) {
                known = split = true;
                end = sc.candidate;
            } else {
                spilling = true;
                sc.broken = true;
            }
        }
        if (known) {
            bool closed = sc.closed && end == sc.closed && !split; /* 0: not closed */
            struct acl_extent e = acl_extent(p, end, closed);
            if (!spilling && e.raw_len <= r->max_line) {
                /* tokens of a message that closed as a message should, all of them kept */
                make_acl_record(r, rec, &e, closed, closed && !sc.broken && sc.tokens_kept);
                return 1;
            }
            spill(r, p, e.raw_len);
            count_lines(r, p, e.raw_len);
            unsigned long end_line = r->line + 1;
            count_lines(r, p + e.raw_len, e.take - e.raw_len);
            r->start += e.take;
            r->scanned = 0;
            r->mid_line = closed;
            *rec = (struct record){.kind = REC_TOO_LONG,
                                   .syntax = SYNTAX_ACL,
                                   .message = true,
                                   .file = r->display,
                                   .line = first_line,
                                   .end_line = end_line,
                                   .len = spilled + e.raw_len,
                                   .raw_len = spilled + e.raw_len,
                                   .column_base = column,
                                   .had_newline = e.newline || closed,
                                   .ends_mid_line = closed};
            return 1;
        }
        if (spilling) {
            size_t safe = sc.searched < avail ? sc.searched : avail;
            if (sc.candidate && safe >= sc.candidate)
                safe = sc.candidate - 1; /* where the line before it ends */
            spill_front(r, &sc, safe);
            spilled += safe;
            if (stop_requested(r))
                return -1;
        }
        if (fill(r) < 0)
            return -1;
    }
}

/* The first byte of the current line that is not a space or tab; '\n' for a blank line, 0 at
 * the end of the input. Reads more when the line is not all there yet. */
static int peek_line_start(struct reader *r, char *first)
{
    for (;;) {
        size_t i = r->start;
        while (i < r->end && (r->buf[i] == ' ' || r->buf[i] == '\t' || r->buf[i] == '\r'))
            i++;
        if (i < r->end) {
            *first = r->buf[i];
            return 1;
        }
        if (r->eof) {
            *first = i > r->start ? '\n' : 0;
            return 1;
        }
        if (i - r->start > r->max_line) {
            *first = ' ';
            return 1;
        }
        if (fill(r) < 0)
            return -1;
    }
}

/* After a string-form record, white space to the end of its line is skipped. 1: another byte
 * of the line waits; 0: the line (or the input) ended; -1: read error. */
static int skip_rest_of_line(struct reader *r)
{
    for (;;) {
        while (r->start < r->end) {
            char c = r->buf[r->start];
            if (c == '\n') {
                r->start++;
                r->line++;
                r->line_offset = 0;
                r->mid_line = false;
                return 0;
            }
            if (c != ' ' && c != '\t' && c != '\r' && c != '\f')
                return 1;
            r->start++;
            r->line_offset++;
        }
        if (r->eof) {
            r->mid_line = false;
            return 0;
        }
        if (fill(r) < 0)
            return -1;
    }
}

int reader_next(struct reader *r, struct record *rec)
{
    memset(rec, 0, sizeof *rec);
    if (r->at_file_start && drop_file_bom(r) < 0)
        return -1;
    if (r->mid_line) {
        int more = skip_rest_of_line(r);
        if (more < 0)
            return -1;
        /* What follows a message on its line: the next message, or junk of its own. */
        if (more)
            return r->buf[r->start] == '(' ? next_acl(r, rec) : next_line(r, rec, SYNTAX_ACL);
    }
    if (r->mode == READ_JSON)
        return next_line(r, rec, SYNTAX_JSON);
    char first;
    if (peek_line_start(r, &first) < 0)
        return -1;
    if (first == '(')
        return next_acl(r, rec);
    return next_line(r, rec, r->mode == READ_ACL ? SYNTAX_ACL : SYNTAX_JSON);
}

bool reader_count_unread_lines(struct reader *r, unsigned long *lines)
{
    struct stat st;
    if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    unsigned long n = 0;
    bool partial = false; /* the rest ends in a line without a line end */
    for (;;) {
        const char *p = r->buf + r->start, *end = r->buf + r->end;
        if (p < end)
            partial = end[-1] != '\n';
        for (const char *nl; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
            n++;
        r->start = r->end;
        if (r->eof)
            break;
        if (stop_requested(r))
            return false;
        int got = fill(r);
        if (got < 0)
            return false;
        if (got == 0)
            break;
    }
    *lines = n + (partial ? 1 : 0);
    return true;
}
