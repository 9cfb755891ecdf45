#include "proto/mcp.h"

#include <string.h>

#include "proto/dialect.h"
#include "proto/jsonrpc.h"

/* The requests of one side alone, in every revision (schema.ts's ClientRequest and ServerRequest;
 * server/discover is 2026-07-28's). Both send ping and the requests of tasks. */
static const char *const client_requests[] = {
    "initialize",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    NULL,
};
static const char *const server_requests[] = {"sampling/createMessage", "elicitation/create",
                                              "roots/list", NULL};
/* The same of notifications (ClientNotification, ServerNotification); both send cancelled,
 * progress and the tasks' status. */
static const char *const client_notifications[] = {"notifications/initialized",
                                                   "notifications/roots/list_changed", NULL};
static const char *const server_notifications[] = {
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/elicitation/complete",
    NULL,
};

/* What MCP makes stricter than JSON-RPC 2.0 (the specification's Base Protocol, Messages). */
const struct jsonrpc_profile mcp_profile = {
    .params_object_code = "mcp-params",
    .id_strict_code = "mcp-id",
    .notification_prefix = "notifications/",
    .notification_id_code = "mcp-notification-id",
    .client_requests = client_requests,
    .server_requests = server_requests,
    .client_notifications = client_notifications,
    .server_notifications = server_notifications,
};

const char *const mcp_revisions[] = {"2024-11-05", "2025-03-26", "2025-06-18",
                                     "2025-11-25", "2026-07-28", NULL};

bool mcp_revision_has_sessions(const char *rev)
{
    return rev && strcmp(rev, "2026-07-28") < 0; /* the dates compare as strings */
}

bool mcp_notification_method(const char *method)
{
    const char *prefix = mcp_profile.notification_prefix;
    return strncmp(method, prefix, strlen(prefix)) == 0;
}

bool mcp_request_tree(const json_t *msg)
{
    const char *method = json_member_string(msg, "method");
    return method && json_object_get(msg, "id") && !mcp_notification_method(method);
}

void mcp_check(const struct message *m, struct diag_sink *sink)
{
    jsonrpc_check_shape(m, &mcp_profile, sink);
}

static void mcp_check_by_rules(const struct message *m, const struct check_rules *rules,
                               struct diag_sink *sink)
{
    (void)rules;
    mcp_check(m, sink);
}

/* A message names no agent: who sent it is the side of the session it came from, which a capture
 * says and the message does not. */
static const char *mcp_agent_name(const struct jv *agent)
{
    (void)agent;
    return NULL;
}

static const char *mcp_agent_name_tree(const json_t *agent)
{
    (void)agent;
    return NULL;
}

/* A request's or a notification's method; a response is named by its outcome. */
static const char *mcp_act_name(const struct jv *view)
{
    if (jv_is_array(view))
        return "(batch)";
    const char *method = jv_member_string(view, "method");
    if (method)
        return method;
    if (jv_object_get(view, "error"))
        return "(error)";
    return jv_object_get(view, "result") ? "(result)" : "(no method)";
}

/* A message carries no time: a capture's record does. */
static bool mcp_time(const struct jv *view, double *t, bool *whole_second)
{
    (void)view;
    (void)t;
    *whole_second = false;
    return false;
}

static bool mcp_time_tree(const json_t *root, double *t, bool *whole_second)
{
    (void)root;
    (void)t;
    (void)whole_second;
    return false;
}

static bool mcp_beyond_era(const json_t *root)
{
    (void)root;
    return false;
}

static void mcp_set_time(json_t *root, double wall)
{
    (void)root;
    (void)wall;
}

static const char *mcp_act_canonical(const char *act)
{
    return act;
}

/* Progress comes in notifications of its own, not as partial results. */
static bool mcp_partial(const struct jv *view)
{
    (void)view;
    return false;
}

static bool mcp_partial_tree(const json_t *root)
{
    (void)root;
    return false;
}

const struct dialect dialect_mcp = {
    .proto = PROTO_MCP,
    .name = "mcp",
    .display = "MCP",
    .marks = (const struct dialect_member[]){DIALECT_MEMBER("jsonrpc"), {0}},
    .id = DIALECT_MEMBER("id"),
    /* a response answers the request of its own id; no member names a sender or a receiver */
    .answers_member = NULL,
    .sender_member = NULL,
    .receivers_member = NULL,
    .answers_by_own_id = true,
    .batches = true,
    .names_agents = false,
    .capture_sides = (const char *const[]){"client", "server"}, /* the tapped agent serves */
    .act_member = "method",
    .label_id_members = (const char *const[]){"id", NULL},
    .answers_by_conversation = false,
    .result_act = "(result)",
    .partial_result_act = "(partial result)",
    .agent_name = mcp_agent_name,
    .agent_name_tree = mcp_agent_name_tree,
    .act_name = mcp_act_name,
    .time = mcp_time,
    .time_tree = mcp_time_tree,
    .beyond_era = mcp_beyond_era,
    .set_time = mcp_set_time,
    .act_canonical = mcp_act_canonical,
    .partial = mcp_partial,
    .partial_tree = mcp_partial_tree,
    .codes = mcp_codes,
    .core_name = "jsonrpc",
    .core_codes = jsonrpc_codes,
    .jsonrpc = &mcp_profile,
    .check = mcp_check_by_rules,
};
