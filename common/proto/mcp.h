/* MCP, the Model Context Protocol: JSON-RPC 2.0 between a client and a server, one message a
 * line over stdio, as a profile of the JSON-RPC core (jsonrpc.h) with rules of its own. */
#ifndef ACP_MCP_H
#define ACP_MCP_H

#include "proto/jsonrpc.h"
#include "proto/message.h"

/* MCP as a profile of the JSON-RPC core: its stricter rules, and which side sends what. */
extern const struct jsonrpc_profile mcp_profile;

/* MCP's revisions, oldest first, ending with NULL: what --mcp-revision takes. Up to 2025-11-25
 * a session spans the connection; 2026-07-28 has none. */
extern const char *const mcp_revisions[];
/* Whether a session of revision rev (NULL: unknown) holds its ids for its whole length. */
bool mcp_revision_has_sessions(const char *rev);

/* Whether method names a notification (notifications/...), which carries no id. */
bool mcp_notification_method(const char *method);
/* Whether msg, a tree, is a request: a method of no notification, and an id. */
bool mcp_request_tree(const json_t *msg);

/* Reports every per-message finding for an MCP message. */
void mcp_check(const struct message *m, struct diag_sink *sink);

#endif
