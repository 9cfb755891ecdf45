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

/* An id as JSON writes it (jsonrpc_id_text); NULL for none. */
static char *id_text(const json_t *id)
{
    if (!id)
        return NULL;
    struct strbuf text = STRBUF_INIT;
    jsonrpc_id_text(id, &text);
    return sb_detach(&text);
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
    struct strbuf what = STRBUF_INIT;
    jsonrpc_describe_error(error, &what);
    enum answer_outcome outcome = answers_failed_by(a, "the server", what.buf, NULL);
    sb_free(&what);
    return outcome;
}

/* A JSON value's type, as JSON Schema names it. */
static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        break;
    }
    return "null";
}

/* A result's shape: each member's name and type, {"content": "array", "isError": "boolean"}. */
static json_t *shape_of(const json_t *result)
{
    if (!json_is_object(result))
        return json_string(type_name(result));
    json_t *shape = json_object();
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)result, key, value)
    {
        json_object_set_new(shape, key, json_string(type_name(value)));
    }
    return shape;
}

static void compare_mcp(const json_t *recorded, const json_t *live, answers_differ_fn *differ,
                        void *ctx)
{
    const json_t *recorded_error = json_object_get(recorded, "error");
    const json_t *live_error = json_object_get(live, "error");
    if (recorded_error || live_error) {
        const json_t *a = json_object_get(recorded_error, "code");
        const json_t *b = json_object_get(live_error, "code");
        if (!(a && b && json_equal(a, b)))
            differ(ctx, "its error's code", a, b);
        return;
    }
    json_t *a = shape_of(json_object_get(recorded, "result"));
    json_t *b = shape_of(json_object_get(live, "result"));
    if (!json_equal(a, b))
        differ(ctx, "its result's members (names and types)", a, b);
    json_decref(a);
    json_decref(b);
}

/* Requests whose params say who asks (the client, its capabilities), not what it asks for. */
static bool lifecycle_method(const char *method)
{
    return strcmp(method, "initialize") == 0 || strcmp(method, "server/discover") == 0;
}

static bool mcp_request_key(const json_t *msg, struct strbuf *key)
{
    if (!mcp_request_tree(msg))
        return false;
    const json_t *method = json_object_get(msg, "method");
    const json_t *params = json_object_get(msg, "params");
    json_t *asked = json_array(); /* [method, params]: as JSON, no two requests alike */
    json_array_append(asked, (json_t *)method);
    if (params && !lifecycle_method(json_string_value(method))) {
        json_t *copy =
            json_is_object(params) ? json_copy((json_t *)params) : json_incref((json_t *)params);
        if (json_is_object(copy))
            json_object_del(copy, "_meta");
        json_array_append_new(asked, copy);
    }
    char *text = json_dumps(asked, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(asked);
    if (!text)
        die_oom();
    sb_adds(key, text);
    free(text);
    return true;
}

const struct answer_rules mcp_answer_rules = {
    .proto = PROTO_MCP,
    .flow = mcp_flow,
    .begin = mcp_begin,
    .classify = classify_mcp,
    .take = take_mcp,
    .deadline = NULL, /* a request states no deadline of its own */
    .compare = compare_mcp,
    .request_key = mcp_request_key,
};
