/* How acp-send composes an MCP message: a JSON-RPC 2.0 request, notification or response; the
 * response to a request; what it fills in (jsonrpc, a request's fresh id); the order of the
 * members. */
#include <limits.h>
#include <string.h>

#include "live/outgoing_rules.h"
#include "proto/dialect.h"
#include "proto/jsonrpc.h"
#include "proto/mcp.h"

/* A message composed with a method, or an id and a result or an error, is JSON-RPC's though it
 * does not say "jsonrpc" yet: the member is filled in. */
static bool mcp_claims(const json_t *root)
{
    if (json_is_string(json_object_get(root, "method")))
        return true;
    return json_object_get(root, "id") &&
           (json_object_get(root, "result") || json_object_get(root, "error"));
}

static void mcp_reply_to(json_t *reply, const json_t *original, bool *several_receivers)
{
    (void)several_receivers; /* a response goes back to the one side that asked */
    json_t *id = json_object_get(original, "id");
    if (id)
        json_object_set(reply, "id", id);
}

/* A request's id: the one it brings (a number keeps the next fresh one past it), else the next
 * number of the run's. */
static void own_request_id(json_t *root, const struct outgoing_config *cfg)
{
    json_t *id = json_object_get(root, "id");
    if (!id) {
        json_object_set_new(root, "id", json_integer((*cfg->next_number)++));
        return;
    }
    if (json_is_integer(id) && json_integer_value(id) >= *cfg->next_number &&
        json_integer_value(id) < LLONG_MAX)
        *cfg->next_number = json_integer_value(id) + 1;
}

static const char *complete_mcp(json_t *root, bool no_new_conversation,
                                const struct outgoing_config *cfg)
{
    (void)no_new_conversation; /* a request is its own conversation */
    if (!json_object_get(root, "jsonrpc"))
        outgoing_set_string(root, "jsonrpc", "2.0");
    const char *method = json_member_string(root, "method");
    if (method && !mcp_notification_method(method))
        own_request_id(root, cfg);
    return NULL;
}

static const char *const mcp_order[] = {"jsonrpc", "id",    "method", "params",
                                        "result",  "error", NULL};

const struct compose_rules mcp_compose_rules = {
    .proto = PROTO_MCP,
    .claims = mcp_claims,
    .reply_to = mcp_reply_to,
    .complete = complete_mcp,
    .order = mcp_order,
};
