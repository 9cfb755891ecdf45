/* How a FIPA request, proposal or call for proposals is answered, for acp-send --wait. */
#include <stdlib.h>
#include <string.h>

#include "live/answers_rules.h"
#include "proto/dialect.h"
#include "proto/fipa.h"

static enum flow fipa_act_flow(enum fipa_act act)
{
    switch (act) {
    case FIPA_REQUEST:
    case FIPA_REQUEST_WHEN:
    case FIPA_REQUEST_WHENEVER:
    case FIPA_PROXY:
    case FIPA_QUERY_IF:
    case FIPA_QUERY_REF:
    case FIPA_SUBSCRIBE:
    case FIPA_CANCEL:
    case FIPA_ACCEPT_PROPOSAL:
        return FLOW_REQUEST;
    case FIPA_PROPOSE:
    case FIPA_COUNTER_PROPOSE:
        return FLOW_PROPOSE;
    case FIPA_CFP:
        return FLOW_CFP;
    default:
        return FLOW_NONE;
    }
}

static enum fipa_act act_of(const json_t *msg)
{
    const char *p = json_member_string(msg, "performative");
    return p ? fipa_act_parse(p) : FIPA_ACT_INVALID;
}

static void add_participant(struct answers *a, const json_t *agent)
{
    const char *name = fipa_agent_name(agent);
    if (!name || a->nreceivers == MAX_PARTICIPANTS)
        return;
    a->receivers = xrealloc(a->receivers, (a->nreceivers + 1) * sizeof *a->receivers);
    a->answered = xrealloc(a->answered, (a->nreceivers + 1) * sizeof *a->answered);
    a->receivers[a->nreceivers] = xstrdup(name);
    a->answered[a->nreceivers++] = false;
}

static enum flow fipa_flow(const json_t *sent)
{
    return fipa_act_flow(act_of(sent));
}

static void fipa_begin(struct answers *a, const json_t *sent)
{
    const char *conversation = json_member_string(sent, "conversation_id");
    a->conversation = conversation ? xstrdup(conversation) : NULL;
    a->standing = act_of(sent) == FIPA_SUBSCRIBE || act_of(sent) == FIPA_REQUEST_WHENEVER;
    switch (a->flow) {
    case FLOW_REQUEST:
        answers_set_state(a, act_of(sent) == FIPA_SUBSCRIBE
                                 ? "waiting for agree, refuse or an inform"
                                 : "waiting for agree, refuse or the result");
        break;
    case FLOW_PROPOSE:
        answers_set_state(a, "waiting for accept_proposal or reject_proposal");
        break;
    case FLOW_CFP: {
        const json_t *receiver = json_object_get(sent, "receiver");
        if (json_is_array(receiver)) {
            size_t i;
            json_t *agent;
            json_array_foreach(receiver, i, agent)
            {
                add_participant(a, agent);
            }
        } else {
            add_participant(a, receiver);
        }
        answers_set_state(a, "no proposal and no refusal came");
        break;
    }
    default:
        break;
    }
}

/* Whether a FIPA receiver (an agent or an array of them) names agent. */
static bool names_agent(const json_t *receiver, const char *agent)
{
    if (!json_is_array(receiver))
        return answers_same(fipa_agent_name(receiver), agent);
    size_t i;
    json_t *item;
    json_array_foreach(receiver, i,
                       item) if (answers_same(fipa_agent_name(item), agent)) return true;
    return false;
}

static enum answer_role classify_fipa(const struct answers *a, const json_t *msg)
{
    const char *sender = fipa_agent_name(json_object_get(msg, "sender"));
    if (answers_same(sender, a->sender) &&
        answers_same(json_member_string(msg, "reply_with"), a->id))
        return ANSWER_ECHO;
    if (!answers_same(json_member_string(msg, "in_reply_to"), a->id))
        return ANSWER_UNRELATED;
    const char *conversation = json_member_string(msg, "conversation_id");
    if (conversation && a->conversation && strcmp(conversation, a->conversation) != 0)
        return ANSWER_UNRELATED;
    const json_t *receiver = json_object_get(msg, "receiver");
    if (receiver && a->sender && !names_agent(receiver, a->sender))
        return ANSWER_UNRELATED;
    return ANSWER_REPLY;
}

static bool is_answer(enum fipa_act act)
{
    return act == FIPA_INFORM || act == FIPA_INFORM_IF || act == FIPA_INFORM_REF ||
           act == FIPA_CONFIRM || act == FIPA_DISCONFIRM;
}

static bool is_refusal(enum fipa_act act)
{
    return act == FIPA_REFUSE || act == FIPA_FAILURE || act == FIPA_NOT_UNDERSTOOD;
}

static const char *reason_of(const json_t *reply)
{
    const json_t *content = json_object_get(reply, "content");
    const char *reason = json_member_string(content, "reason");
    return reason ? reason : json_string_value(content);
}

static void describe_cfp(struct answers *a)
{
    size_t answered = 0;
    for (size_t i = 0; i < a->nreceivers; i++)
        answered += a->answered[i];
    sb_reset(&a->state);
    sb_addf(&a->state, "%lu proposal%s and %lu refusal%s came", a->proposals,
            a->proposals == 1 ? "" : "s", a->refusals, a->refusals == 1 ? "" : "s");
    if (a->nreceivers)
        sb_addf(&a->state, " from %zu of %zu participant%s", answered, a->nreceivers,
                a->nreceivers == 1 ? "" : "s");
}

static enum answer_outcome take_cfp(struct answers *a, enum fipa_act act, const char *from)
{
    if (act == FIPA_PROPOSE || act == FIPA_COUNTER_PROPOSE)
        a->proposals++;
    else if (is_refusal(act) || act == FIPA_REJECT_PROPOSAL)
        a->refusals++;
    else
        return ANSWER_OPEN;
    bool all = a->nreceivers > 0;
    for (size_t i = 0; i < a->nreceivers; i++) {
        if (answers_same(a->receivers[i], from))
            a->answered[i] = true;
        all = all && a->answered[i];
    }
    describe_cfp(a);
    if (!all)
        return ANSWER_OPEN;
    return answers_end(a, a->proposals ? ANSWER_SUCCEEDED : ANSWER_FAILED);
}

static enum answer_outcome take_fipa(struct answers *a, const json_t *reply)
{
    enum fipa_act act = act_of(reply);
    const char *from = fipa_agent_name(json_object_get(reply, "sender"));
    const char *name = fipa_act_name(act, SPELL_SNAKE);
    switch (a->flow) {
    case FLOW_REQUEST:
        if (act == FIPA_AGREE) {
            a->agreed = true;
            answers_set_state(a, "agree came; waiting for the inform or failure");
            return ANSWER_OPEN;
        }
        if (is_answer(act))
            return answers_end(a, ANSWER_SUCCEEDED);
        if (is_refusal(act))
            return answers_failed_by(a, from, name, reason_of(reply));
        return ANSWER_OPEN;
    case FLOW_PROPOSE:
        if (act == FIPA_ACCEPT_PROPOSAL)
            return answers_end(a, ANSWER_SUCCEEDED);
        if (act == FIPA_REJECT_PROPOSAL || is_refusal(act))
            return answers_failed_by(a, from, name, reason_of(reply));
        return ANSWER_OPEN;
    case FLOW_CFP:
        return take_cfp(a, act, from);
    default:
        return ANSWER_OPEN;
    }
}

static bool fipa_deadline(const json_t *sent, double *epoch)
{
    return answers_time_of(json_object_get(sent, "reply_by"), epoch);
}

const struct answer_rules fipa_answer_rules = {
    .proto = PROTO_FIPA,
    .flow = fipa_flow,
    .begin = fipa_begin,
    .classify = classify_fipa,
    .take = take_fipa,
    .deadline = fipa_deadline,
};
