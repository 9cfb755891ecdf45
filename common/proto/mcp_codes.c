/* The diagnostic codes of MCP's own rules, with their explanations (the JSON-RPC 2.0 core's are
 * jsonrpc_codes.c): its part of the table --explain and acp(7) give (diag/codes.c). Codes are
 * stable: never rename one. A MUST of the specifications broken is an error, a SHOULD a warning. */
#include "proto/dialect.h"

const struct diag_code mcp_codes[] = {
    /* MCP's own rules on a message (the specification's Base Protocol, Messages). */
    {"mcp-id", "error", "a request's id is null or a number with a fraction",
     "MCP requests carry an id that is a string or an integer; unlike base JSON-RPC, it MUST "
     "NOT be null (MCP Base Protocol, Messages, Requests). A number with a fraction, which "
     "JSON-RPC 2.0 discourages, is no integer."},
    {"mcp-params", "error", "params is an array",
     "MCP's params are always an object, their members named by the method's schema (MCP "
     "schema: every request's and notification's params is an object). JSON-RPC 2.0 allows an "
     "array; MCP does not use one."},
    {"mcp-notification-id", "error", "a notification carries an id",
     "Notifications, the methods under notifications/, are never answered and MUST NOT carry "
     "an id (MCP Base Protocol, Messages, Notifications). With one it is a request that no "
     "peer will answer."},
    {"mcp-id-reused", "error", "a request reuses the id of one still in progress",
     "A request's id MUST NOT have been used by the same sender before in the session (MCP "
     "Base Protocol, Messages, Requests); one still in progress, reused, makes its response "
     "answer either. related_line names the request whose id was reused. In bare JSON-RPC "
     "lines only a request whose method says its side is checked. A request in progress is "
     "always checked; one that ended, in a session of a "
     "revision up to 2025-11-25 (2026-07-28 has no sessions), among the latest --max-open "
     "answered. The revision is what the session's initialize agreed, or --mcp-revision's."},
    {"mcp-evicted", "warning", "a request in progress was forgotten to bound memory",
     "More than --max-open requests were in progress: the oldest is "
     "forgotten, told at its record, so that what the checks keep stays bounded. Its response, "
     "when it comes (among the latest --max-open forgotten), is taken without a word; an id "
     "reused meanwhile is not seen."},
    {"mcp-request-timeout", "warning", "a request had no response within --request-timeout",
     "Senders SHOULD set a timeout on every request they send and, past it, cancel the "
     "request (MCP Base Protocol, Lifecycle, Timeouts); the SDKs wait 60 s by default, as "
     "--request-timeout does. In a capture of acp-tap the request is told once its record's "
     "time is that much behind the latest message's (or, with --wall-clock, the wall clock's), "
     "and a response that comes later still answers it."},
    {"mcp-batch", "error", "a batch in a session of another revision than 2025-03-26",
     "MCP's 2025-03-26 revision added JSON-RPC batches (an array of messages on one line) and "
     "2025-06-18 took them out: a peer of another revision reads a batch as no message. In a "
     "capture of acp-tap the session's revision is the protocolVersion the server's result to "
     "initialize gave; a batch before it, or in a session whose initialize the capture does "
     "not hold, is checked message by message only."},
    {NULL, NULL, NULL, NULL},
};
