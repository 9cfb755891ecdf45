#include "live/outgoing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/iacp.h"

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

/* --- the reply to a message --- */

static void copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    if (v && !json_is_null(v))
        json_object_set(to, to_key, v);
}

/* The one agent of a receiver: a string or an object, or an array of one. */
static const json_t *single_agent(const json_t *receiver)
{
    if (json_is_array(receiver))
        return json_array_size(receiver) == 1 ? json_array_get(receiver, 0) : NULL;
    return receiver;
}

json_t *outgoing_reply_to(const json_t *original, enum protocol *proto, bool *several_receivers)
{
    *several_receivers = false;
    *proto = message_protocol(original, CHOOSE_AUTO);
    json_t *reply = json_object();
    if (*proto == PROTO_IACP) {
        copy_member(reply, "from", original, "to");
        copy_member(reply, "to", original, "from");
        copy_member(reply, "ref", original, "id");
        return reply;
    }
    if (*proto != PROTO_FIPA) {
        json_decref(reply);
        return NULL;
    }
    const json_t *reply_to = json_object_get(original, "reply_to");
    bool has_reply_to = reply_to && !json_is_null(reply_to) &&
                        !(json_is_array(reply_to) && !json_array_size(reply_to));
    copy_member(reply, "receiver", original, has_reply_to ? "reply_to" : "sender");
    const json_t *receiver = json_object_get(original, "receiver");
    const json_t *me = single_agent(receiver);
    if (me)
        json_object_set(reply, "sender", (json_t *)me);
    else if (receiver)
        *several_receivers = true;
    static const char *const kept[] = {"conversation_id", "protocol", "language", "ontology"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        copy_member(reply, kept[i], original, kept[i]);
    copy_member(reply, "in_reply_to", original, "reply_with");
    return reply;
}

void outgoing_merge(json_t *root, const json_t *defaults)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)defaults, key, value)
    {
        if (!json_object_get(root, key))
            json_object_set(root, key, value);
    }
}

/* --- filling in --- */

static void set_string(json_t *root, const char *key, const char *value)
{
    json_object_set_new(root, key, json_string(value));
}

/* Notes the id a message brings with the generator, or gives it a fresh one. */
static void own_id(json_t *root, const char *key, const char *sender, enum idgen_form form,
                   const char *prefix, const struct outgoing_config *cfg)
{
    const char *id = json_member_string(root, key);
    if (id) {
        idgen_note(cfg->ids, sender, id, cfg->now);
        return;
    }
    if (!json_object_get(root, key))
        set_string(root, key, idgen_fresh_form(cfg->ids, sender, form, prefix, cfg->now));
}

static void complete_iacp(json_t *root, const struct outgoing_config *cfg)
{
    if (!json_object_get(root, "v"))
        set_string(root, "v", "1.1");
    const char *kind = json_member_string(root, "kind");
    switch (kind ? iacp_kind_parse(kind) : IACP_INVALID) {
    case IACP_TASK_ASSIGN:
    case IACP_TASK_CANCEL:
    case IACP_CTL_DRAIN:
    case IACP_CTL_HALT:
        if (!json_object_get(root, "from"))
            set_string(root, "from", cfg->queen);
        break;
    case IACP_TASK_ACCEPT:
    case IACP_TASK_REJECT:
    case IACP_TASK_RESULT:
        if (!json_object_get(root, "to"))
            set_string(root, "to", cfg->queen);
        break;
    default:
        break;
    }
    const char *from = json_member_string(root, "from");
    bool queen = from && strcmp(from, cfg->queen) == 0;
    own_id(root, "id", from, queen ? IDGEN_QUEEN : IDGEN_FORAGER, NULL, cfg);
    if (!json_object_get(root, "ts"))
        json_object_set_new(root, "ts", json_integer((json_int_t)floor(cfg->now)));
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
    set_string(root, "reply_by", buf);
    return NULL;
}

static const char *complete_fipa(json_t *root, bool no_new_conversation,
                                 const struct outgoing_config *cfg)
{
    const char *performative = json_member_string(root, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    const char *sender = fipa_agent_name(json_object_get(root, "sender"));
    if (outgoing_expects_answer(act)) {
        own_id(root, "reply_with", sender, IDGEN_FORAGER, NULL, cfg);
        if (!no_new_conversation)
            own_id(root, "conversation_id", sender, IDGEN_PREFIXED, "conv-", cfg);
    } else if (json_member_string(root, "reply_with")) {
        idgen_note(cfg->ids, sender, json_member_string(root, "reply_with"), cfg->now);
    }
    char buf[48];
    /* A --now past the year 9999 leaves the timestamp out: it is optional. */
    if (!json_object_get(root, "timestamp") && time_format_rfc3339_ms(cfg->now, buf, sizeof buf))
        set_string(root, "timestamp", buf);
    return absolute_reply_by(root, cfg->now);
}

const char *outgoing_complete(json_t *root, enum protocol proto, bool no_new_conversation,
                              const struct outgoing_config *cfg)
{
    if (proto == PROTO_FIPA)
        return complete_fipa(root, no_new_conversation, cfg);
    if (proto == PROTO_IACP)
        complete_iacp(root, cfg);
    return NULL;
}

/* --- order --- */

static const char *const iacp_order[] = {"v",  "id",  "from", "to", "kind",
                                         "ts", "ref", "body", NULL};
static const char *const fipa_order[] = {
    "performative", "sender",      "receiver", "reply_to",  "content",
    "language",     "encoding",    "ontology", "protocol",  "conversation_id",
    "reply_with",   "in_reply_to", "reply_by", "timestamp", NULL};

json_t *outgoing_ordered(const json_t *root, enum protocol proto)
{
    const char *const *order = proto == PROTO_IACP   ? iacp_order
                               : proto == PROTO_FIPA ? fipa_order
                                                     : NULL;
    json_t *out = json_object();
    for (size_t i = 0; order && order[i]; i++) {
        json_t *v = json_object_get(root, order[i]);
        if (v)
            json_object_set(out, order[i], v);
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)root, key, value)
    {
        if (!json_object_get(out, key))
            json_object_set(out, key, value);
    }
    return out;
}
