/* The records of a capture file, as every tool reads them: a record of a line is the message it
 * holds, with its direction, time and session; a record of an event (a session's start or end,
 * records dropped) is no message. Each form of capture file is a struct capture_form, defined at
 * the end of its own file: acp-tap's (io/capture.h writes it; acp(7), CAPTURE RECORDS) in
 * taprecord.c, mcpsnoop's session logs in mcpsnoop.c. */
#ifndef ACP_TAPRECORD_H
#define ACP_TAPRECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "proto/jscan.h"

enum taprecord_kind {
    TAPRECORD_MESSAGE,  /* a line that was JSON: message holds it */
    TAPRECORD_TEXT,     /* a line that was not: text holds it */
    TAPRECORD_TOO_LONG, /* a line the capture cut short, or kept only the length of */
    TAPRECORD_EVENT,    /* an event of the session, or a line of no protocol (a server's stderr) */
};

enum taprecord_dir { TAPRECORD_IN, TAPRECORD_OUT, TAPRECORD_NO_DIR };

struct capture_form;

struct taprecord {
    const struct capture_form *form;
    enum taprecord_kind kind;
    enum taprecord_dir dir;      /* IN: to the captured agent (an MCP server); OUT: from it */
    const struct jv *session;    /* a string */
    const struct jv *connection; /* a string, or NULL: which of a session's peers (HTTP) */
    double time;                 /* unix seconds; NAN when the record has none readable */
    const struct jv *message;    /* TAPRECORD_MESSAGE's value */
    const char *text;            /* TAPRECORD_TEXT's */
    size_t text_len;
    bool starts_session; /* TAPRECORD_EVENT: the session started here */
    bool ends_session;   /* TAPRECORD_EVENT: the session ended here */
};

/* A form of capture file. */
struct capture_form {
    const char *name;
    /* what a record of TAPRECORD_TOO_LONG says of its line, after "a line" */
    const char *too_long;
    /* the member that holds a line that was JSON, as it was: acp-tap's message, mcpsnoop's raw */
    const char *message_member;
    /* Whether view is a record of this form, read into *r (its form set by the caller). */
    bool (*read)(const struct jv *view, struct taprecord *r);
    /* Appends the record (text, len bytes, its view read into *r) as a record of acp-tap's,
     * ending in a newline; false, appending nothing, where acp-tap's records cannot say it,
     * *lost saying what (acp-convert --to=tap). */
    bool (*as_tap)(const char *text, size_t len, const struct jv *view, const struct taprecord *r,
                   struct strbuf *out, const char **lost);
};

extern const struct capture_form capture_form_tap, capture_form_mcpsnoop;

/* Whether view is a record of a capture form, read into *r. */
bool taprecord_read(const struct jv *view, struct taprecord *r);

/* Appends the members every record of acp-tap's starts with, "{"tap":1,"session":" and the
 * session (the text of a JSON string), then the time, sec and usec written to the microsecond in
 * UTC. */
void taprecord_put_head(struct strbuf *out, const char *session_json, size_t len, long long sec,
                        long usec);

/* The head of a record of acp-tap's made of another form's, *r: its session (with its connection,
 * where one session carries several: each numbers its own ids, as a session does), its time;
 * false, *lost saying why, for a record without a time. */
bool taprecord_put_head_of(const struct taprecord *r, struct strbuf *out, const char **lost);

#endif
