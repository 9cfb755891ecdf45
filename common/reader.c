#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Bytes asked of each read(2): large enough that a batch run makes few system calls. */
enum { CHUNK = 64 * 1024 };

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
    bool after_acl;     /* the rest of the current line follows an ACL record */
    unsigned long line; /* lines consumed so far */
    size_t line_offset; /* bytes of the current line consumed so far (ACL records only) */
};

/* Where a resumable scan of one parenthesised expression stands. */
enum acl_state { ACL_BETWEEN, ACL_WORD, ACL_STRING, ACL_HASH, ACL_BYTES };

struct acl_scan {
    enum acl_state state;
    unsigned long depth;
    unsigned long long count; /* ACL_HASH: the length read so far; ACL_BYTES: bytes still due */
    bool digits;              /* ACL_HASH: a digit has followed the # */
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
    free(r);
}

static bool input_would_block(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    return poll(&pfd, 1, 0) == 0;
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
    if (r->hooks.before_block && input_would_block(r->fd))
        r->hooks.before_block(r->hooks.ctx);
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

static void make_line(struct reader *r, struct record *rec, size_t len, bool newline)
{
    const char *p = r->buf + r->start;
    rec->syntax = SYNTAX_JSON;
    rec->file = r->display;
    rec->line = rec->end_line = ++r->line;
    rec->text = p;
    rec->raw_len = len;
    rec->len = (len > 0 && p[len - 1] == '\r') ? len - 1 : len;
    rec->had_newline = newline;
    rec->kind = is_blank(p, len) ? REC_BLANK : REC_LINE;
    r->start += len + (newline ? 1 : 0);
    r->scanned = 0;
    r->line_offset = 0;
}

static void spill(struct reader *r, const char *p, size_t n)
{
    if (r->hooks.spill && n)
        r->hooks.spill(r->hooks.ctx, p, n);
}

/* Passes an over-long line to the spill hook without keeping it. nl is its end when that is
 * already in the buffer, else NULL and the rest is read and passed on piece by piece. */
static int skip_long_line(struct reader *r, struct record *rec, const char *nl)
{
    const char *p = r->buf + r->start;
    size_t total = nl ? (size_t)(nl - p) : r->end - r->start;
    spill(r, p, total);
    bool newline = nl != NULL;
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
    rec->syntax = SYNTAX_JSON;
    rec->file = r->display;
    rec->line = rec->end_line = ++r->line;
    rec->text = NULL;
    rec->len = rec->raw_len = total;
    rec->had_newline = newline;
    return 1;
}

/* A byte-order mark marks the file, not the message: drop it when it opens the file. */
static int drop_file_bom(struct reader *r, struct record *rec)
{
    r->at_file_start = false;
    while (r->end - r->start < sizeof utf8_bom && !r->eof) {
        if (fill(r) < 0)
            return -1;
    }
    if (r->end - r->start >= sizeof utf8_bom &&
        memcmp(r->buf + r->start, utf8_bom, sizeof utf8_bom) == 0) {
        r->start += sizeof utf8_bom;
        rec->column_base = sizeof utf8_bom;
    }
    return 0;
}

static int next_line(struct reader *r, struct record *rec)
{
    for (;;) {
        size_t avail = r->end - r->start;
        char *from = r->buf + r->start + r->scanned;
        char *nl = memchr(from, '\n', avail - r->scanned);
        if (nl) {
            size_t len = (size_t)(nl - (r->buf + r->start));
            if (len > r->max_line)
                return skip_long_line(r, rec, nl);
            make_line(r, rec, len, true);
            return 1;
        }
        r->scanned = avail;
        if (avail > r->max_line)
            return skip_long_line(r, rec, NULL);
        if (r->eof) {
            if (avail == 0)
                return 0;
            make_line(r, rec, avail, false);
            return 1;
        }
        if (fill(r) < 0)
            return -1;
    }
}

static bool is_acl_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
}

/* Feeds one byte to the scan; returns true when it closed the top-level expression. The rules
 * are the lexer's: "..." literals in which only \" is an escape, #N" strings of N raw bytes, and
 * words, in which quotes and # are ordinary characters. */
static bool acl_scan_byte(struct acl_scan *sc, char c)
{
    switch (sc->state) {
    case ACL_BYTES:
        if (--sc->count == 0)
            sc->state = ACL_BETWEEN;
        return false;
    case ACL_STRING:
        if (c == '"')
            sc->state = ACL_BETWEEN;
        return false;
    case ACL_HASH:
        if (c >= '0' && c <= '9' && sc->count < (1ULL << 40)) {
            sc->count = sc->count * 10 + (unsigned)(c - '0');
            sc->digits = true;
            return false;
        }
        if (c == '"' && sc->count > 0) {
            sc->state = ACL_BYTES;
            return false;
        }
        /* #0" is an empty string; a # without digits starts a word, as the parser reads it */
        sc->state = c == '"' && sc->digits ? ACL_BETWEEN : ACL_WORD;
        if (c == '"')
            return false;
        break;
    case ACL_WORD:
    case ACL_BETWEEN:
        break;
    }
    if (c == '(' || c == ')') {
        sc->state = ACL_BETWEEN;
        if (c == '(')
            sc->depth++;
        else if (sc->depth > 0)
            sc->depth--;
        return sc->depth == 0;
    }
    if (is_acl_space(c)) {
        sc->state = ACL_BETWEEN;
        return false;
    }
    if (sc->state == ACL_BETWEEN) {
        if (c == '"')
            sc->state = ACL_STRING;
        else if (c == '#') {
            sc->state = ACL_HASH;
            sc->count = 0;
            sc->digits = false;
        } else
            sc->state = ACL_WORD;
    }
    return false;
}

/* Scans r->buf from start + *done on; returns the length of the expression, or 0 when it is not
 * complete yet (then *done says how far the scan got). */
static size_t acl_scan_buffer(struct reader *r, struct acl_scan *sc, size_t *done)
{
    const char *p = r->buf + r->start;
    size_t avail = r->end - r->start;
    size_t i = *done;
    while (i < avail) {
        /* An escaped quote needs its second byte; wait for it rather than misread it. */
        if (sc->state == ACL_STRING && p[i] == '\\' && i + 1 >= avail && !r->eof)
            break;
        if (sc->state == ACL_STRING && p[i] == '\\' && i + 1 < avail && p[i + 1] == '"') {
            i += 2;
            continue;
        }
        /* JADE indents inner lines: a "(" at the start of a line outside any string starts the
         * next message, so one unbalanced message cannot swallow the rest of the stream. */
        if (i > 0 && p[i] == '(' && p[i - 1] == '\n' && sc->depth > 0 &&
            (sc->state == ACL_BETWEEN || sc->state == ACL_WORD)) {
            *done = i;
            return i;
        }
        bool closed = acl_scan_byte(sc, p[i]);
        i++;
        if (closed) {
            *done = i;
            return i;
        }
    }
    *done = i;
    return 0;
}

static void count_lines(struct reader *r, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            r->line++;
            r->line_offset = 0;
        } else {
            r->line_offset++;
        }
    }
}

/* Skips white space (and, in ACL mode, blank lines) before a record. 1: a byte is waiting;
 * 0: end of input; -1: read error. */
static int skip_acl_space(struct reader *r)
{
    for (;;) {
        while (r->start < r->end && is_acl_space(r->buf[r->start])) {
            count_lines(r, r->buf + r->start, 1);
            r->start++;
        }
        if (r->start < r->end)
            return 1;
        if (r->eof)
            return 0;
        if (fill(r) < 0)
            return -1;
    }
}

static void make_acl_record(struct reader *r, struct record *rec, size_t len)
{
    rec->kind = REC_LINE;
    rec->syntax = SYNTAX_ACL;
    rec->file = r->display;
    rec->line = r->line + 1;
    rec->column_base = r->line_offset;
    rec->text = r->buf + r->start;
    rec->len = rec->raw_len = len;
    rec->had_newline = true;
    count_lines(r, rec->text, len);
    rec->end_line = r->line + 1;
    r->start += len;
    r->scanned = 0;
    r->after_acl = true;
}

/* Passes an over-long expression to the spill hook, scanning on to its end unless the first
 * complete_len bytes already hold all of it. */
static int skip_long_acl(struct reader *r, struct record *rec, struct acl_scan *sc, size_t done,
                         size_t complete_len)
{
    rec->kind = REC_TOO_LONG;
    rec->syntax = SYNTAX_ACL;
    rec->file = r->display;
    rec->line = r->line + 1;
    size_t total = 0;
    for (;;) {
        size_t len = complete_len ? complete_len : acl_scan_buffer(r, sc, &done);
        complete_len = 0;
        size_t take = len ? len : done;
        spill(r, r->buf + r->start, take);
        count_lines(r, r->buf + r->start, take);
        total += take;
        r->start += take;
        done = 0;
        if (len)
            break;
        if (r->eof)
            break;
        if (stop_requested(r))
            return -1;
        int got = fill(r);
        if (got < 0)
            return -1;
    }
    rec->text = NULL;
    rec->len = rec->raw_len = total;
    rec->end_line = r->line + 1;
    rec->had_newline = true;
    r->scanned = 0;
    r->after_acl = true;
    return 1;
}

/* A record that does not start with "(" in an ACL stream: everything up to the next "(" that
 * starts a line (or the end), so that the parser reports it once and the stream goes on. */
static size_t junk_length(const char *p, size_t avail)
{
    for (size_t i = 1; i < avail; i++)
        if (p[i] == '(' && p[i - 1] == '\n')
            return i;
    return avail;
}

static int next_acl(struct reader *r, struct record *rec)
{
    int got = skip_acl_space(r);
    if (got <= 0)
        return got;
    struct acl_scan sc = {.state = ACL_BETWEEN};
    size_t done = 0;
    for (;;) {
        size_t avail = r->end - r->start;
        size_t len;
        if (r->buf[r->start] != '(') {
            len = junk_length(r->buf + r->start, avail);
            if (len == avail && !r->eof && avail <= r->max_line)
                len = 0;
        } else {
            len = acl_scan_buffer(r, &sc, &done);
        }
        if (len > r->max_line || (!len && avail > r->max_line))
            return skip_long_acl(r, rec, &sc, done, len);
        if (len) {
            make_acl_record(r, rec, len);
            return 1;
        }
        if (r->eof) {
            make_acl_record(r, rec, avail); /* unterminated: the parser says so */
            return 1;
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

/* After an ACL record, the white space that ends its last line belongs to it. */
static int finish_acl_line(struct reader *r)
{
    r->after_acl = false;
    char first;
    if (peek_line_start(r, &first) < 0)
        return -1;
    if (first != '\n')
        return 0;
    while (r->start < r->end && r->buf[r->start] != '\n')
        r->start++;
    if (r->start < r->end) {
        r->start++;
        r->line++;
    }
    r->line_offset = 0;
    return 0;
}

static int next_auto(struct reader *r, struct record *rec)
{
    if (r->after_acl && finish_acl_line(r) < 0)
        return -1;
    char first;
    if (peek_line_start(r, &first) < 0)
        return -1;
    if (first == '(') {
        while (r->buf[r->start] != '(') {
            r->start++;
            r->line_offset++;
        }
        return next_acl(r, rec);
    }
    return next_line(r, rec);
}

int reader_next(struct reader *r, struct record *rec)
{
    memset(rec, 0, sizeof *rec);
    if (r->at_file_start) {
        if (drop_file_bom(r, rec) < 0)
            return -1;
        r->line_offset = rec->column_base;
    }
    switch (r->mode) {
    case READ_ACL:
        return next_acl(r, rec);
    case READ_AUTO:
        return next_auto(r, rec);
    case READ_JSON:
        break;
    }
    return next_line(r, rec);
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
