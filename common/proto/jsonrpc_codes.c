/* The diagnostic codes of the JSON-RPC 2.0 core that MCP (and any profile after it) is built on,
 * with their explanations: its part of the table --explain and acp(7) give (diag/codes.c). Codes
 * are stable: never rename one. A MUST of the specification broken is an error. */
#include "proto/dialect.h"

const struct diag_code jsonrpc_codes[] = {
    {"jsonrpc-version", "error", "jsonrpc is not \"2.0\"",
     "Every JSON-RPC 2.0 message carries the member jsonrpc, exactly the string \"2.0\" "
     "(JSON-RPC 2.0, sections 4 and 5: MUST). A server that meets another value answers with "
     "the error -32600, Invalid Request."},
    {"jsonrpc-method", "error", "method is not a string",
     "A request or a notification names the method to call in method, a string (JSON-RPC 2.0, "
     "section 4: MUST)."},
    {"jsonrpc-id", "error", "an id is neither a string nor a number",
     "An id is a string, a number or null (JSON-RPC 2.0, section 4); a response carries the "
     "id of the request it answers, null only when that request could not be read, and then "
     "with an error (section 5)."},
    {"jsonrpc-params", "error", "params is neither an object nor an array",
     "params, when present, holds the arguments of the call by name (an object) or by position "
     "(an array) (JSON-RPC 2.0, section 4.2: MUST)."},
    {"jsonrpc-response", "error", "a response has both result and error, or neither",
     "A response carries result when the call succeeded and error when it failed, exactly one "
     "of the two (JSON-RPC 2.0, section 5: MUST, MUST NOT)."},
    {"jsonrpc-error", "error", "an error is not an object with an integer code and a message",
     "The error of a response is an object whose code is an integer and whose message is a "
     "string; data is optional (JSON-RPC 2.0, section 5.1: MUST)."},
    {"jsonrpc-error-reserved", "error", "an error code JSON-RPC reserves for future use",
     "The error codes from -32768 to -32000 are reserved for pre-defined errors (JSON-RPC 2.0, "
     "section 5.1): -32700 (parse error), -32600 (invalid request), -32601 (method not found), "
     "-32602 (invalid params), -32603 (internal error), and -32099 to -32000 for errors an "
     "implementation defines; any other code of the range is reserved for future use, which "
     "no peer may give it now."},
    {"jsonrpc-shape", "error", "a message is neither a request, a notification nor a response",
     "A request has method and id, a notification method without id, a response id with result "
     "or error (JSON-RPC 2.0, sections 4, 4.1 and 5). A message with method and a result or an "
     "error, or with neither method nor id, is none of them."},
    /* The core's pairing: a capture says which side sent a message; bare lines, only some. */
    {"jsonrpc-no-request", "error", "a response to no request in progress",
     "A response answers the request of the other side that carries its id, once (JSON-RPC "
     "2.0, section 5: the id MUST be the same as the request's). A response whose id names no "
     "request in progress answers a request that was never sent, a notification (which is "
     "never answered), or one answered already. In a capture of acp-tap the request is the "
     "other side's; in bare JSON-RPC lines, which do not say who sent a response, a request of "
     "either side."},
    {"jsonrpc-unanswered", "warning", "a request was never answered",
     "The receiver of a request MUST answer it with a response (JSON-RPC 2.0, section 4); at "
     "the end of the input, or at the end of its session in a capture of acp-tap (related_line "
     "names the record of the end), no response carried its id. A warning, since a capture may "
     "end before its session does. A request its sender cancelled (MCP) is owed none. In bare "
     "lines, when one response came for the same id in "
     "progress on both sides, it is taken as the later request's, and the earlier, left, says "
     "that it may be the other (related_line)."},
    {NULL, NULL, NULL, NULL},
};
