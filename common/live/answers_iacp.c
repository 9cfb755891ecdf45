/* How an IACP task.assign or tool.query is answered, for acp-send --wait. */
#include <stdlib.h>
#include <string.h>

#include "live/answers_rules.h"
#include "proto/dialect.h"
#include "proto/iacp.h"

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

static void iacp_begin(struct answers *a, const json_t *sent)
{
    (void)sent;
    answers_set_state(a, a->flow == FLOW_TASK ? "waiting for task.accept or task.reject"
                                              : "waiting for the tool.reply");
}

static enum answer_role classify_iacp(const struct answers *a, const json_t *msg)
{
    const char *from = json_member_string(msg, "from");
    if (answers_same(from, a->sender) && answers_same(json_member_string(msg, "id"), a->id))
        return ANSWER_ECHO;
    if (!answers_same(json_member_string(msg, "ref"), a->id))
        return ANSWER_UNRELATED;
    if (a->sender && !answers_same(json_member_string(msg, "to"), a->sender))
        return ANSWER_UNRELATED;
    return ANSWER_REPLY;
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
            answers_set_state(a, "task.accept came; waiting for the task.result");
        }
        return ANSWER_OPEN;
    case IACP_TASK_REJECT:
        if (a->flow != FLOW_TASK)
            return ANSWER_OPEN;
        return answers_failed_by(a, from, "task.reject", json_member_string(body, "reason"));
    case IACP_TASK_RESULT: {
        if (a->flow != FLOW_TASK || answers_partial(reply, PROTO_IACP))
            return ANSWER_OPEN;
        const json_t *status = json_object_get(body, "status");
        if (!status || answers_same(json_string_value(status), "ok"))
            return answers_end(a, ANSWER_SUCCEEDED);
        sb_reset(&a->state);
        sb_addf(&a->state, "%s answered task.result with status ", from ? from : "the peer");
        char *text = json_dumps(status, JSON_ENCODE_ANY | JSON_COMPACT);
        sb_adds(&a->state, text ? text : "?");
        free(text);
        return answers_end(a, ANSWER_FAILED);
    }
    case IACP_TOOL_REPLY:
        return a->flow == FLOW_TOOL ? answers_end(a, ANSWER_SUCCEEDED) : ANSWER_OPEN;
    default:
        return ANSWER_OPEN;
    }
}

static bool iacp_deadline(const json_t *sent, double *epoch)
{
    return answers_time_of(json_object_get(json_object_get(sent, "body"), "deadline"), epoch);
}

const struct answer_rules iacp_answer_rules = {
    .proto = PROTO_IACP,
    .flow = iacp_flow,
    .begin = iacp_begin,
    .classify = classify_iacp,
    .take = take_iacp,
    .deadline = iacp_deadline,
};
