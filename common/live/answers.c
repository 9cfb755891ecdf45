#include "live/answers.h"

#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/dialect.h"
#include "proto/fipa.h"
#include "proto/iacp.h"

/* How a conversation goes, by what opened it. */
enum flow {
    FLOW_TASK,    /* task.assign */
    FLOW_TOOL,    /* tool.query */
    FLOW_REQUEST, /* (agree), then an inform or a refusal */
    FLOW_PROPOSE, /* accept_proposal or reject_proposal */
    FLOW_CFP,     /* proposals until the deadline */
    FLOW_NONE,    /* no answer expected */
};

/* Most receivers of a cfp whose answers are told apart. */
enum { MAX_PARTICIPANTS = 4096 };

struct answers {
    enum protocol proto;
    enum flow flow;
    char *id;           /* the IACP id or FIPA reply_with of what was sent */
    char *sender;       /* its sender's name */
    char *conversation; /* its FIPA conversation_id */
    char **receivers;   /* a cfp's participants */
    bool *answered;
    size_t nreceivers;
    unsigned long proposals, refusals;
    bool agreed;   /* task.accept or agree came */
    bool standing; /* a subscribe or request_whenever: informs go on after the first */
    enum answer_outcome outcome;
    struct strbuf state;
};

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static enum flow iacp_flow(const json_t *sent)
{
    const char *kind = json_member_string(sent, "kind");
    switch (kind ? iacp_kind_parse(kind) : IACP_INVALID) {
    case IACP_TASK_ASSIGN:
        return FLOW_TASK;
    case IACP_TOOL_QUERY:
        return FLOW_TOOL;
    default:
        return FLOW_NONE;
    }
}

static enum flow fipa_flow(enum fipa_act act)
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

static void set_state(struct answers *a, const char *text)
{
    sb_reset(&a->state);
    sb_adds(&a->state, text);
}

struct answers *answers_new(const json_t *sent, enum protocol proto)
{
    enum flow flow = proto == PROTO_IACP   ? iacp_flow(sent)
                     : proto == PROTO_FIPA ? fipa_flow(act_of(sent))
                                           : FLOW_NONE;
    if (flow == FLOW_NONE)
        return NULL;
    struct answers *a = xcalloc(1, sizeof *a);
    a->proto = proto;
    a->flow = flow;
    bool fipa = proto == PROTO_FIPA;
    a->id = dup_or_null(json_member_string(sent, fipa ? "reply_with" : "id"));
    a->sender = dup_or_null(fipa ? fipa_agent_name(json_object_get(sent, "sender"))
                                 : json_member_string(sent, "from"));
    a->conversation = dup_or_null(fipa ? json_member_string(sent, "conversation_id") : NULL);
    a->standing = fipa && (act_of(sent) == FIPA_SUBSCRIBE || act_of(sent) == FIPA_REQUEST_WHENEVER);
    switch (flow) {
    case FLOW_TASK:
        set_state(a, "waiting for task.accept or task.reject");
        break;
    case FLOW_TOOL:
        set_state(a, "waiting for the tool.reply");
        break;
    case FLOW_REQUEST:
        set_state(a, act_of(sent) == FIPA_SUBSCRIBE ? "waiting for agree, refuse or an inform"
                                                    : "waiting for agree, refuse or the result");
        break;
    case FLOW_PROPOSE:
        set_state(a, "waiting for accept_proposal or reject_proposal");
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
        set_state(a, "no proposal and no refusal came");
        break;
    }
    case FLOW_NONE:
        break;
    }
    return a;
}

void answers_free(struct answers *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nreceivers; i++)
        free(a->receivers[i]);
    free(a->receivers);
    free(a->answered);
    free(a->id);
    free(a->sender);
    free(a->conversation);
    sb_free(&a->state);
    free(a);
}

static bool same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Whether a FIPA receiver (an agent or an array of them) names agent. */
static bool names_agent(const json_t *receiver, const char *agent)
{
    if (!json_is_array(receiver))
        return same(fipa_agent_name(receiver), agent);
    size_t i;
    json_t *item;
    json_array_foreach(receiver, i, item) if (same(fipa_agent_name(item), agent)) return true;
    return false;
}

static enum answer_role classify_iacp(const struct answers *a, const json_t *msg)
{
    const char *from = json_member_string(msg, "from");
    if (same(from, a->sender) && same(json_member_string(msg, "id"), a->id))
        return ANSWER_ECHO;
    if (!same(json_member_string(msg, "ref"), a->id))
        return ANSWER_UNRELATED;
    if (a->sender && !same(json_member_string(msg, "to"), a->sender))
        return ANSWER_UNRELATED;
    return ANSWER_REPLY;
}

static enum answer_role classify_fipa(const struct answers *a, const json_t *msg)
{
    const char *sender = fipa_agent_name(json_object_get(msg, "sender"));
    if (same(sender, a->sender) && same(json_member_string(msg, "reply_with"), a->id))
        return ANSWER_ECHO;
    if (!same(json_member_string(msg, "in_reply_to"), a->id))
        return ANSWER_UNRELATED;
    const char *conversation = json_member_string(msg, "conversation_id");
    if (conversation && a->conversation && strcmp(conversation, a->conversation) != 0)
        return ANSWER_UNRELATED;
    const json_t *receiver = json_object_get(msg, "receiver");
    if (receiver && a->sender && !names_agent(receiver, a->sender))
        return ANSWER_UNRELATED;
    return ANSWER_REPLY;
}

enum answer_role answers_classify(const struct answers *a, const json_t *msg, enum protocol proto)
{
    if (proto != a->proto || !a->id)
        return ANSWER_UNRELATED;
    return proto == PROTO_IACP ? classify_iacp(a, msg) : classify_fipa(a, msg);
}

static enum answer_outcome end(struct answers *a, enum answer_outcome outcome)
{
    a->outcome = outcome;
    return outcome;
}

/* "forager-07 answered refuse", the reason quoted when the reply gives one. */
static enum answer_outcome failed_by(struct answers *a, const char *who, const char *what,
                                     const char *reason)
{
    sb_reset(&a->state);
    sb_addf(&a->state, "%s answered %s", who ? who : "the peer", what);
    if (reason)
        sb_addf(&a->state, ": %s", reason);
    return end(a, ANSWER_FAILED);
}

static enum answer_outcome take_iacp(struct answers *a, const json_t *reply)
{
    const char *kind = json_member_string(reply, "kind");
    const char *from = json_member_string(reply, "from");
    const json_t *body = json_object_get(reply, "body");
    switch (kind ? iacp_kind_parse(kind) : IACP_INVALID) {
    case IACP_TASK_ACCEPT:
        if (a->flow == FLOW_TASK) {
            a->agreed = true;
            set_state(a, "task.accept came; waiting for the task.result");
        }
        return ANSWER_OPEN;
    case IACP_TASK_REJECT:
        if (a->flow != FLOW_TASK)
            return ANSWER_OPEN;
        return failed_by(a, from, "task.reject", json_member_string(body, "reason"));
    case IACP_TASK_RESULT: {
        if (a->flow != FLOW_TASK || answers_partial(reply, PROTO_IACP))
            return ANSWER_OPEN;
        const json_t *status = json_object_get(body, "status");
        if (!status || same(json_string_value(status), "ok"))
            return end(a, ANSWER_SUCCEEDED);
        sb_reset(&a->state);
        sb_addf(&a->state, "%s answered task.result with status ", from ? from : "the peer");
        char *text = json_dumps(status, JSON_ENCODE_ANY | JSON_COMPACT);
        sb_adds(&a->state, text ? text : "?");
        free(text);
        return end(a, ANSWER_FAILED);
    }
    case IACP_TOOL_REPLY:
        return a->flow == FLOW_TOOL ? end(a, ANSWER_SUCCEEDED) : ANSWER_OPEN;
    default:
        return ANSWER_OPEN;
    }
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
        if (same(a->receivers[i], from))
            a->answered[i] = true;
        all = all && a->answered[i];
    }
    describe_cfp(a);
    if (!all)
        return ANSWER_OPEN;
    return end(a, a->proposals ? ANSWER_SUCCEEDED : ANSWER_FAILED);
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
            set_state(a, "agree came; waiting for the inform or failure");
            return ANSWER_OPEN;
        }
        if (is_answer(act))
            return end(a, ANSWER_SUCCEEDED);
        if (is_refusal(act))
            return failed_by(a, from, name, reason_of(reply));
        return ANSWER_OPEN;
    case FLOW_PROPOSE:
        if (act == FIPA_ACCEPT_PROPOSAL)
            return end(a, ANSWER_SUCCEEDED);
        if (act == FIPA_REJECT_PROPOSAL || is_refusal(act))
            return failed_by(a, from, name, reason_of(reply));
        return ANSWER_OPEN;
    case FLOW_CFP:
        return take_cfp(a, act, from);
    default:
        return ANSWER_OPEN;
    }
}

enum answer_outcome answers_take(struct answers *a, const json_t *reply, enum protocol proto)
{
    if (a->outcome != ANSWER_OPEN)
        return a->outcome;
    return proto == PROTO_IACP ? take_iacp(a, reply) : take_fipa(a, reply);
}

enum answer_outcome answers_expire(struct answers *a)
{
    if (a->outcome != ANSWER_OPEN)
        return a->outcome;
    if (a->flow == FLOW_CFP && a->proposals)
        return end(a, ANSWER_SUCCEEDED);
    if (a->flow == FLOW_CFP && a->refusals) {
        sb_adds(&a->state, "; no proposal");
        return end(a, ANSWER_FAILED);
    }
    return end(a, ANSWER_TIMEOUT);
}

enum answer_outcome answers_outcome(const struct answers *a)
{
    return a->outcome;
}

bool answers_over(const struct answers *a)
{
    return a->outcome == ANSWER_FAILED || (a->outcome == ANSWER_SUCCEEDED && !a->standing);
}

bool answers_partial(const json_t *msg, enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    return d && d->partial_tree(msg);
}

const char *answers_state(const struct answers *a)
{
    return a->state.buf ? a->state.buf : "";
}

static bool time_of(const json_t *v, double *epoch)
{
    if (json_is_number(v)) {
        double t = json_number_value(v);
        *epoch = t > UNIX_MILLISECONDS_ABOVE ? t / 1000 : t;
        return t >= 0;
    }
    bool zone;
    const char *s = json_string_value(v);
    return s && time_parse_rfc3339(s, epoch, &zone);
}

bool answers_deadline(const json_t *sent, enum protocol proto, double *epoch)
{
    if (proto == PROTO_IACP)
        return time_of(json_object_get(json_object_get(sent, "body"), "deadline"), epoch);
    if (proto == PROTO_FIPA)
        return time_of(json_object_get(sent, "reply_by"), epoch);
    return false;
}
