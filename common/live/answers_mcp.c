/* How an MCP request is answered, for acp-send --wait: by the response of its id, a result (it
 * succeeded) or an error (it failed); a result whose isError is true, a tool's error as the
 * specification reports one (Tools, Error Handling), failed too. Notifications in between
 * (progress, logging) answer nothing: --all shows them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/answers_rules.h"
#include "proto/dialect.h"
#include "proto/jsonrpc.h"
#include "proto/mcp.h"

/* An id as JSON writes it, so that 1 and "1" stay apart. */
static char *id_text(const json_t *id)
{
    return id ? json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
}

static enum flow mcp_flow(const json_t *sent)
{
    return mcp_request_tree(sent) ? FLOW_REQUEST : FLOW_NONE;
}

static void mcp_begin(struct answers *a, const json_t *sent)
{
    free(a->id);
    a->id = id_text(json_object_get(sent, "id"));
    sb_reset(&a->state);
    sb_addf(&a->state, "waiting for the response to %s", json_member_string(sent, "method"));
    a->method = xstrdup(json_member_string(sent, "method"));
}

static bool same_id(const struct answers *a, const json_t *msg)
{
    char *text = id_text(json_object_get(msg, "id"));
    bool same = answers_same(text, a->id);
    free(text);
    return same;
}

static enum answer_role classify_mcp(const struct answers *a, const json_t *msg)
{
    if (!same_id(a, msg))
        return ANSWER_UNRELATED;
    const char *method = json_member_string(msg, "method");
    if (!method)
        return ANSWER_REPLY;
    /* a bus hands the sender its own request back */
    return answers_same(method, a->method) ? ANSWER_ECHO : ANSWER_UNRELATED;
}

/* The text a tool's error result gives first, if any (Tools, Error Handling). */
static const char *tool_error_text(const json_t *result)
{
    size_t i;
    const json_t *part;
    json_array_foreach(json_object_get(result, "content"), i, part)
    {
        const char *text = json_member_string(part, "text");
        if (text)
            return text;
    }
    return NULL;
}

static enum answer_outcome take_mcp(struct answers *a, const json_t *reply)
{
    const json_t *error = json_object_get(reply, "error");
    const json_t *result = json_object_get(reply, "result");
    if (!error && json_is_true(json_object_get(result, "isError")))
        return answers_failed_by(a, "the server", "a result whose isError is true",
                                 tool_error_text(result));
    if (!error)
        return answers_end(a, ANSWER_SUCCEEDED);
    char what[64];
    const json_t *code = json_object_get(error, "code");
    if (json_is_integer(code))
        snprintf(what, sizeof what, "error %lld", (long long)json_integer_value(code));
    else
        snprintf(what, sizeof what, "an error");
    return answers_failed_by(a, "the server", what, json_member_string(error, "message"));
}

static bool mcp_deadline(const json_t *sent, double *epoch)
{
    (void)sent; /* a request states no deadline of its own */
    (void)epoch;
    return false;
}

const struct answer_rules mcp_answer_rules = {
    .proto = PROTO_MCP,
    .flow = mcp_flow,
    .begin = mcp_begin,
    .classify = classify_mcp,
    .take = take_mcp,
    .deadline = mcp_deadline,
};
