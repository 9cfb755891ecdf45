/* A capture file, as acp-tap writes it: one JSON object a line, each a record of one line that
 * went to a stdio agent or came from it, or of what happened to the session (acp(7), CAPTURE
 * RECORDS). Records are appended with O_APPEND, one write(2) each, so that the taps of several
 * sessions may share a file and interleave whole records.
 *
 * Whoever relays the lines never waits for the file: a record is queued, and a thread of the
 * capture's own writes the queue out. The queue holds at most a given number of bytes; a record
 * that finds it full is dropped, as is one the file refuses (a full disk), and a record that says
 * how many were dropped takes their place once records can be written again, with one line on
 * stderr when the dropping starts. */
#ifndef ACP_CAPTURE_H
#define ACP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "proto/jscan.h"

/* Which way a line went, as the agent sees it: to its stdin, or from its stdout. */
enum capture_dir { CAPTURE_IN, CAPTURE_OUT };

struct capture;

/* Opens path for appending (created when missing) and starts the writer; NULL with the reason in
 * *err. session names the records; queue_max bytes of records wait at the most. */
struct capture *capture_open(const char *path, const char *session, size_t queue_max,
                             struct strbuf *err);

/* Records one line (its newline not included; terminated: false when the stream ended in its
 * middle): the JSON value it is, as it was, or else its text. js is the calling thread's. */
void capture_line(struct capture *c, enum capture_dir dir, const char *line, size_t len,
                  bool terminated, struct jscan *js);
/* Records a line of bytes bytes that was not kept (longer than the caller keeps). */
void capture_long_line(struct capture *c, enum capture_dir dir, unsigned long long bytes,
                       bool terminated);
/* Records an event of the session: "start", "end". members is what the record says besides the
 * event, as JSON members ("\"pid\":12"), or "". */
void capture_event(struct capture *c, const char *event, const char *members);

/* Writes out what is queued, stops the writer and closes the file. Returns false, after saying
 * why on stderr, when records were dropped or the file could not be closed. */
bool capture_close(struct capture *c);

#endif
