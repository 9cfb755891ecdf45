/* Reading input records: lines of JSON, or (for the FIPA string form) parenthesised expressions
 * that may span lines. The reader never holds more than max_line bytes of one record, flushes
 * the caller's output before it would block, and keeps line numbers for diagnostics.
 *
 * A string-form record starts at a line whose first byte after blanks is "(" (its indentation
 * included), or right after the previous record on its line. It ends at the ")" that closes its
 * message; a message that cannot be one (see acl_lex.h) ends before the first line inside it
 * that starts a message ("(" and a communicative act) or a JSON object ("{" as its first byte).
 * White space after a record up to the end of its line is skipped;
 * anything else there is a record of its own, up to the end of the line. */
#ifndef ACP_READER_H
#define ACP_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/record.h"

enum reader_mode {
    READ_JSON, /* records are lines */
    READ_ACL,  /* records are messages of the string form; any other line is one record */
    READ_AUTO, /* per record: ACL when a line starts (after blanks) with "(", else JSON */
};

struct reader_hooks {
    /* Called when the next read would block, so that output written so far reaches a live
     * pipeline at once (and not once per line in a batch run). */
    void (*before_block)(void *ctx);
    /* Called when the next read would block (after before_block), and again each time the wait
     * it returns (in seconds) passes without input; INFINITY waits for input without it. So a
     * tool can act while input is idle (the stream checks' --wall-clock). May be NULL. */
    double (*idle)(void *ctx);
    /* Receives, in pieces, the bytes of a record longer than max_line. */
    void (*spill)(void *ctx, const char *data, size_t len);
    void *ctx;
    /* When set and non-zero after a read is interrupted, reading stops (SIGINT). */
    volatile sig_atomic_t *interrupted;
};

struct reader;

/* Opens path ("-" is standard input). On failure returns NULL with errno set. */
struct reader *reader_open(const char *path, const char *display, size_t max_line,
                           enum reader_mode mode, const struct reader_hooks *hooks);
/* 1: a record was read; 0: end of input; -1: a read error (errno set; EINTR when interrupted).
 * The record's text stays valid until the next call. */
int reader_next(struct reader *r, struct record *rec);
/* Counts the lines of the input that reader_next has not returned yet, without parsing them, by
 * reading to the end of the input; the reader is then at the end. Returns false, the count
 * unknown, when the input is not a regular file (a pipe, a terminal, /dev/zero: the rest could
 * only be counted by waiting for it, or never), on a read error or when interrupted. */
bool reader_count_unread_lines(struct reader *r, unsigned long *lines);
/* Closes the file; standard input is left open. */
void reader_close(struct reader *r);

#endif
