/* MCP, the Model Context Protocol: JSON-RPC 2.0 between a client and a server, one message a
 * line over stdio, as a profile of the JSON-RPC core (jsonrpc.h) with rules of its own. */
#ifndef ACP_MCP_H
#define ACP_MCP_H

#include "proto/message.h"

/* Reports every per-message finding for an MCP message. */
void mcp_check(const struct message *m, struct diag_sink *sink);

#endif
