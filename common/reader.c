#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
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
    unsigned long line; /* lines consumed so far */
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

int reader_next(struct reader *r, struct record *rec)
{
    memset(rec, 0, sizeof *rec);
    if (r->at_file_start && drop_file_bom(r, rec) < 0)
        return -1;
    return next_line(r, rec);
}
