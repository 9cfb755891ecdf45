/* A message about to leave acp-send: the members it may leave out, filled in; the reply to another
 * message, built as JADE's createReply builds one; and its members in the protocol's order.
 *
 * Filled in when absent:
 *   IACP  v "1.1"; from the queen for the kinds the queen sends (task.assign, task.cancel,
 *         ctl.drain, ctl.halt) and to the queen for the kinds sent to her (task.accept,
 *         task.reject, task.result); a fresh id (q- and 8 hex digits from the queen, m- and 6 hex
 *         digits from anyone else); ts, now in whole seconds.
 *   FIPA  on every act that expects an answer (request, request_when, request_whenever,
 *         query_if, query_ref, cfp, propose, counter_propose, subscribe, proxy, cancel,
 *         accept_proposal): a fresh reply_with (m- and 6 hex digits) and conversation_id (conv-
 *         and 12 hex digits; not for a reply to a message that had none); timestamp, now in
 *         RFC 3339 (UTC); and a reply_by of "+DURATION" ("+30s", "+5m", "+90") becomes now plus
 *         that duration.
 *   MCP   jsonrpc "2.0" (a message with a method, or with an id and a result or an error, is
 *         MCP's); on a request (a method not under notifications/), a fresh id: the next integer
 *         of the run's, from 0, past every integer id a message brought.
 * Ids a message brings are noted with the generator, so that no fresh one repeats them. */
#ifndef ACP_OUTGOING_H
#define ACP_OUTGOING_H

#include <jansson.h>
#include <stdbool.h>

#include "proto/fipa.h"
#include "proto/idgen.h"
#include "proto/message.h"

struct outgoing_config {
    const char *queen; /* the queen's name */
    struct idgen *ids;
    json_int_t *next_number; /* the next fresh integer id (MCP's), counted up */
    double now; /* unix seconds: ts, timestamp, and what a relative reply_by counts from */
};

/* The reply to original (a JSON object), as JADE's createReply builds it: IACP to its from, from
 * its to, ref its id; FIPA to its reply_to if set, else its sender, from its receiver when that is
 * a single agent (*several_receivers set otherwise), with its conversation_id, protocol, language
 * and ontology, and in_reply_to its reply_with; MCP the request's id. Returns NULL when original
 * is of no dialect; *proto gets its protocol. */
json_t *outgoing_reply_to(const json_t *original, enum protocol *proto, bool *several_receivers);

/* The protocol of a message to compose: the one its members mark, else that of a dialect whose
 * composing fills in its mark (MCP's jsonrpc, for a message with a method), else PROTO_NONE. */
enum protocol outgoing_protocol(const json_t *root);

/* Copies every member of defaults that root lacks into root (members root has win whole). */
void outgoing_merge(json_t *root, const json_t *defaults);

/* Fills in what root (a message of protocol proto) leaves out. no_new_conversation: root answers
 * a message that had no conversation_id, so none is made up. Returns the reply_by relative to now
 * ("+30s") that could not be made a date-time, since it falls past the year 9999, left in root as
 * it was; NULL when there is none. */
const char *outgoing_complete(json_t *root, enum protocol proto, bool no_new_conversation,
                              const struct outgoing_config *cfg);

/* root's members in the protocol's order (IACP v, id, from, to, kind, ts, ref, body; FIPA
 * performative, sender, receiver, reply_to, content, language, encoding, ontology, protocol,
 * conversation_id, reply_with, in_reply_to, reply_by, timestamp; MCP jsonrpc, id, method,
 * params, result, error), the others after them in the order they have. Returns a new object. */
json_t *outgoing_ordered(const json_t *root, enum protocol proto);

#endif
