/* The records of a capture file that acp-tap writes (io/capture.h; acp(7), CAPTURE RECORDS), as
 * every tool reads them: a record of a line is the message it holds, with its direction, time,
 * session and number; a record of an event (start, end, dropped) is no message. */
#ifndef ACP_TAPRECORD_H
#define ACP_TAPRECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/jscan.h"

enum taprecord_kind {
    TAPRECORD_MESSAGE,  /* a line that was JSON: message holds it */
    TAPRECORD_TEXT,     /* a line that was not: text holds it */
    TAPRECORD_TOO_LONG, /* a line acp-tap kept only the length of */
    TAPRECORD_EVENT,    /* the session's start, end, or records dropped */
};

enum taprecord_dir { TAPRECORD_IN, TAPRECORD_OUT, TAPRECORD_NO_DIR };

struct taprecord {
    enum taprecord_kind kind;
    enum taprecord_dir dir;
    const struct jv *session; /* a string */
    double time;              /* unix seconds; NAN when the record has none readable */
    const struct jv *message; /* TAPRECORD_MESSAGE's value */
    const char *text;         /* TAPRECORD_TEXT's */
    size_t text_len;
    const char *event; /* TAPRECORD_EVENT's name */
};

/* Whether view is a capture record (an object with tap 1 and a string session), read into *r. */
bool taprecord_read(const struct jv *view, struct taprecord *r);

#endif
