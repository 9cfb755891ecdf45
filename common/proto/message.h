/* A message: one parsed record, the protocol it speaks, and where it came from. */
#ifndef ACP_MESSAGE_H
#define ACP_MESSAGE_H

#include <jansson.h>

#include "diag.h"
#include "reader.h"

enum protocol { PROTO_NONE, PROTO_IACP, PROTO_FIPA };

enum protocol_choice { CHOOSE_AUTO, CHOOSE_IACP, CHOOSE_FIPA };

struct message {
    const struct record *rec;
    json_t *root; /* the object; owned by the message */
    enum protocol proto;
    const char *id;       /* IACP id or FIPA reply_with, when a string; owned by root */
    struct diag_where at; /* where diagnostics about this message point */
    bool passed;          /* what filter_ops.prepare returned for it (filter.h) */
    struct strbuf output; /* what prepare wrote for it: the filter writes it after `message` */
};

/* Parses a JSON record into an object. On failure reports the reason (bad-json, not-object,
 * duplicate-key, ...) at the record's line and column and returns NULL. */
json_t *message_parse_json(const struct record *rec, struct diag_sink *sink);

/* Decides the protocol: with auto, a "kind" or "v" member means IACP, otherwise a
 * "performative" member means FIPA, otherwise PROTO_NONE. */
enum protocol message_protocol(const json_t *root, enum protocol_choice choice);

/* Fills m for root (taking ownership) and points its diagnostics at the record. A record of
 * the FIPA string form is FIPA whatever choice says. */
void message_init(struct message *m, const struct record *rec, json_t *root,
                  enum protocol_choice choice);
void message_clear(struct message *m);

/* A string member, or NULL when absent or not a string. */
const char *json_member_string(const json_t *obj, const char *key);

#endif
