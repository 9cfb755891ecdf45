/* The JSON-RPC 2.0 core that a dialect of JSON-RPC (MCP; A2A or the Agent Client Protocol later)
 * builds on: what a message is (a request, a notification, a response) and the checks of its
 * shape, which every such dialect shares; what a dialect adds is a profile (struct
 * jsonrpc_profile), its own rules and codes over the core's. */
#ifndef ACP_JSONRPC_H
#define ACP_JSONRPC_H

#include <stdbool.h>

#include "proto/message.h"

enum jsonrpc_kind {
    JSONRPC_REQUEST,      /* a method and an id */
    JSONRPC_NOTIFICATION, /* a method and no id */
    JSONRPC_RESPONSE,     /* no method: an id, with a result or an error */
};

/* Which side of a connection sends a request. JSON-RPC 2.0 has peers, not sides; a dialect of it
 * names them (MCP's client and server). */
enum jsonrpc_side {
    JSONRPC_EITHER, /* both may send it, or the dialect does not say */
    JSONRPC_CLIENT,
    JSONRPC_SERVER,
};

/* What a dialect of JSON-RPC makes stricter than the core, and what it says of its sides. */
struct jsonrpc_profile {
    /* params, when present, is an object (MCP), not an array too (the core): the code when not */
    const char *params_object_code;
    /* a request's id is never null, nor a number with a fraction (MCP): the code when it is */
    const char *id_strict_code;
    /* methods of notifications, by their prefix ("notifications/"), which never carry an id:
     * the code when one does (NULL: no such rule) */
    const char *notification_prefix;
    const char *notification_id_code;
    /* the methods of requests that only a client sends, and those only a server sends, then the
     * same of notifications (each ending with NULL): in lines that do not say which side sent
     * them, they do */
    const char *const *client_requests;
    const char *const *server_requests;
    const char *const *client_notifications;
    const char *const *server_notifications;
};

/* What kind of message view is, by its members. */
enum jsonrpc_kind jsonrpc_kind_of(const struct jv *view);

/* The same of a jansson tree. */
enum jsonrpc_kind jsonrpc_kind_of_tree(const json_t *msg);
/* A response's act as the tools name it: "(error)", "(result)", or "(no method)" with neither. */
const char *jsonrpc_response_act_tree(const json_t *msg);

/* The side that answers what side sent; JSONRPC_EITHER for either. */
static inline enum jsonrpc_side jsonrpc_other_side(enum jsonrpc_side side)
{
    return side == JSONRPC_CLIENT   ? JSONRPC_SERVER
           : side == JSONRPC_SERVER ? JSONRPC_CLIENT
                                    : JSONRPC_EITHER;
}

/* Appends id (a request's, a response's: any JSON value) as JSON writes it, so that 1 and "1"
 * stay apart where an id is a key. */
void jsonrpc_id_text(const json_t *id, struct strbuf *out);

/* Appends what an error response's error says: "error -32601: Method not found" ("an error"
 * where its code is no integer; no message where it has none). */
void jsonrpc_describe_error(const json_t *error, struct strbuf *out);

/* The error response {"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE}}; id NULL
 * is null. */
json_t *jsonrpc_error_response(const json_t *id, int code, const char *message);

/* The side that sends a request of method (a string, or NULL), as profile says. */
enum jsonrpc_side jsonrpc_request_side(const struct jsonrpc_profile *profile,
                                       const struct jv *method);
/* The same of a notification. */
enum jsonrpc_side jsonrpc_notification_side(const struct jsonrpc_profile *profile,
                                            const struct jv *method);

/* Whether an error code is one JSON-RPC 2.0 reserves for future use (section 5.1: -32768 to
 * -32000, but for the five it defines and the implementation-defined -32099 to -32000). */
bool jsonrpc_code_reserved(long long code);

/* Reports every finding of the core's rules on m's shape, as profile makes them; for a batch (an
 * array), on each of its messages, and on the batch (empty, or holding what is no message). */
void jsonrpc_check_shape(const struct message *m, const struct jsonrpc_profile *profile,
                         struct diag_sink *sink);

#endif
