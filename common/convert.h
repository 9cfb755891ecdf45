/* The mapping between IACP 1.1 and FIPA ACL (Caxton's JSON), both ways, lossless: what one side
 * cannot say travels in x-iacp-* / x-fipa-* members and comes back. acp(7) and acp-convert(1)
 * have the table.
 *
 * Members keep their order: each member is written where its counterpart stood (the
 * performative first in FIPA), and what the mapping adds (conversation_id, protocol, a fresh id,
 * ...) comes after them, so a round trip gives the members back in the order they came.
 *
 * IACP -> FIPA is stateful: conversation_id is the opener's sender, "/", and the opener's id
 * (ids are unique per sender only), found by following ref; the converter also remembers the
 * cancels sent for each assign, so that a result with status "cancelled" answers the cancel.
 * That state expires by message time (idle_timeout), which is the stream clock (streamclock.h)
 * so that no single sender or timestamp moves it, and is capped (max_open), so that no stream
 * makes it grow without bound. FIPA -> IACP follows the stream the same way, so that
 * conversation_id comes back.
 * FIPA -> IACP writes fresh ids (common/idgen.h) where a message has no reply_with, or one that
 * its sender already used, and, without a timestamp, the time of conversion; --seed and --now
 * reproduce a run. */
#ifndef ACP_CONVERT_H
#define ACP_CONVERT_H

#include <jansson.h>
#include <time.h>

#include "diag.h"
#include "fipa.h"

struct convert_config {
    double idle_timeout;    /* seconds of message time a conversation is remembered */
    unsigned long max_open; /* most conversations (and ids per direction) remembered */
    double clock_skew;      /* a sender's clock offset from the others' tolerated (streamclock.h) */
    unsigned long seed;     /* for fresh ids */
    time_t now;             /* the time of conversion */
};

struct converter;

struct converter *converter_new(const struct convert_config *cfg);
void converter_free(struct converter *c);

/* A new FIPA object for an IACP one (performative in snake_case), or NULL after reporting why
 * (convert-iacp) at *at. */
json_t *convert_iacp_to_fipa(struct converter *c, json_t *iacp, struct diag_sink *sink,
                             const struct diag_where *at);

/* A new IACP object for a FIPA one, or NULL after reporting why (convert-fipa). */
json_t *convert_fipa_to_iacp(struct converter *c, json_t *fipa, struct diag_sink *sink,
                             const struct diag_where *at);

/* Rewrites the performative of a FIPA object in the given spelling; false when it is not an act
 * (nothing is changed then). */
bool convert_respell(json_t *fipa, enum fipa_spelling spelling);

/* The conversation_id of the conversation an agent opened with a message id (an IACP task.assign
 * or tool.query), or of a FIPA reply chain without conversation_id: the agent's name with % and /
 * written %25 and %2F, a "/", then the id as it is. Written into sb; returns sb's text. */
const char *convert_conversation_id(struct strbuf *sb, const char *agent, const char *id);

/* How many conversations the converter remembers now (for tests of the bound). */
size_t converter_remembered(const struct converter *c);

#endif
