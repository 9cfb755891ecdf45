/* How acp-send composes a FIPA message: a reply's envelope, what it fills in, the order of the
 * members. */
#include <stdio.h>
#include <string.h>

#include "base/timeutil.h"
#include "live/outgoing_rules.h"
#include "proto/fipa.h"

/* Whether a FIPA act expects an answer: request, request_when, request_whenever, query_if,
 * query_ref, cfp, propose, counter_propose, subscribe, proxy, cancel, accept_proposal. */
static bool outgoing_expects_answer(enum fipa_act act)
{
    switch (act) {
    case FIPA_REQUEST:
    case FIPA_REQUEST_WHEN:
    case FIPA_REQUEST_WHENEVER:
    case FIPA_QUERY_IF:
    case FIPA_QUERY_REF:
    case FIPA_CFP:
    case FIPA_PROPOSE:
    case FIPA_COUNTER_PROPOSE:
    case FIPA_SUBSCRIBE:
    case FIPA_PROXY:
    case FIPA_CANCEL:
    case FIPA_ACCEPT_PROPOSAL:
        return true;
    default:
        return false;
    }
}

/* The one agent of a receiver: a string or an object, or an array of one. */
static const json_t *single_agent(const json_t *receiver)
{
    if (json_is_array(receiver))
        return json_array_size(receiver) == 1 ? json_array_get(receiver, 0) : NULL;
    return receiver;
}

static void fipa_reply_to(json_t *reply, const json_t *original, bool *several_receivers)
{
    const json_t *reply_to = json_object_get(original, "reply_to");
    bool has_reply_to = reply_to && !json_is_null(reply_to) &&
                        !(json_is_array(reply_to) && !json_array_size(reply_to));
    outgoing_copy_member(reply, "receiver", original, has_reply_to ? "reply_to" : "sender");
    const json_t *receiver = json_object_get(original, "receiver");
    const json_t *me = single_agent(receiver);
    if (me)
        json_object_set(reply, "sender", (json_t *)me);
    else if (receiver)
        *several_receivers = true;
    static const char *const kept[] = {"conversation_id", "protocol", "language", "ontology"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        outgoing_copy_member(reply, kept[i], original, kept[i]);
    outgoing_copy_member(reply, "in_reply_to", original, "reply_with");
}

/* "+30s", "+5m", "+90": a time relative to now. Returns the one it cannot make a date-time of,
 * past the year 9999, left as it is; NULL when there is none. */
static const char *absolute_reply_by(json_t *root, double now)
{
    const char *reply_by = json_member_string(root, "reply_by");
    double after;
    char buf[48];
    if (!reply_by || reply_by[0] != '+' || !parse_duration(reply_by + 1, &after))
        return NULL;
    if (!time_format_rfc3339_ms(now + after, buf, sizeof buf))
        return reply_by;
    outgoing_set_string(root, "reply_by", buf);
    return NULL;
}

static const char *complete_fipa(json_t *root, bool no_new_conversation,
                                 const struct outgoing_config *cfg)
{
    const char *performative = json_member_string(root, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    const char *sender = fipa_agent_name(json_object_get(root, "sender"));
    if (outgoing_expects_answer(act)) {
        outgoing_own_id(root, "reply_with", sender, IDGEN_FORAGER, NULL, cfg);
        if (!no_new_conversation)
            outgoing_own_id(root, "conversation_id", sender, IDGEN_PREFIXED, "conv-", cfg);
    } else if (json_member_string(root, "reply_with")) {
        idgen_note(cfg->ids, sender, json_member_string(root, "reply_with"), cfg->now);
    }
    char buf[48];
    /* A --now past the year 9999 leaves the timestamp out: it is optional. */
    if (!json_object_get(root, "timestamp") && time_format_rfc3339_ms(cfg->now, buf, sizeof buf))
        outgoing_set_string(root, "timestamp", buf);
    return absolute_reply_by(root, cfg->now);
}

static const char *const fipa_order[] = {
    "performative", "sender",      "receiver", "reply_to",  "content",
    "language",     "encoding",    "ontology", "protocol",  "conversation_id",
    "reply_with",   "in_reply_to", "reply_by", "timestamp", NULL};

const struct compose_rules fipa_compose_rules = {
    .proto = PROTO_FIPA,
    .reply_to = fipa_reply_to,
    .complete = complete_fipa,
    .order = fipa_order,
};
