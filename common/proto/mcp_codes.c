/* The diagnostic codes of MCP's own rules, with their explanations (the JSON-RPC 2.0 core's are
 * jsonrpc_codes.c): its part of the table --explain and acp(7) give (diag/codes.c). Codes are
 * stable: never rename one. A MUST of the specifications broken is an error, a SHOULD a warning. */
#include "proto/dialect.h"

const struct diag_code mcp_codes[] = {
    /* MCP's own rules on a message (the specification's Base Protocol, Messages). */
    {"mcp-id", "error", "a request's id is null or a number with a fraction",
     "MCP requests carry an id that is a string or an integer; unlike base JSON-RPC, it MUST "
     "NOT be null (MCP Base Protocol, Messages, Requests; every revision). A number with a "
     "fraction, which "
     "JSON-RPC 2.0 discourages, is no integer."},
    {"mcp-params", "error", "params is an array",
     "MCP's params MUST be an object, their members named by the method's schema (MCP schema "
     "of every revision: each request's and notification's params is an object). JSON-RPC 2.0 "
     "allows an array; MCP does not use one."},
    {"mcp-notification-id", "error", "a notification carries an id",
     "Notifications, the methods under notifications/, are never answered and MUST NOT carry "
     "an id (MCP Base Protocol, Messages, Notifications; every revision). With one it is a request "
     "that no "
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
     "request (MCP Base Protocol, Lifecycle, Timeouts; every revision); the SDKs wait 60 s by "
     "default, as "
     "--request-timeout does. In a capture of acp-tap the request is told once its record's "
     "time is that much behind the latest message's (or, with --wall-clock, the wall clock's), "
     "and a response that comes later still answers it."},
    {"mcp-batch", "error", "a batch in a session of another revision than 2025-03-26",
     "MCP's 2025-03-26 revision added JSON-RPC batches (an array of messages on one line), "
     "which peers MUST support receiving, and 2025-06-18 took them out: in every other "
     "revision a message MUST be a single request, notification or response (MCP Transports, "
     "stdio), and a peer reads a batch as no message. In a "
     "capture of acp-tap the session's revision is the protocolVersion the server's result to "
     "initialize gave; a batch before it, or in a session whose initialize the capture does "
     "not hold, is checked message by message only."},
    /* A session's lifecycle, revisions 2024-11-05 to 2025-11-25 (engine/mcp_lifecycle.c). */
    {"mcp-initialize-first", "error", "a message before the session's initialize",
     "The initialization phase MUST be the first interaction between client and server (MCP "
     "Base Protocol, Lifecycle, Initialization; revisions 2024-11-05 to 2025-11-25): the "
     "client's initialize request comes before any other request or notification of either "
     "side. Told once a session, at the first such message, in a session whose start the input "
     "holds: acp-tap's start event, mcpsnoop's meta record, a file of bare JSON-RPC lines, or "
     "an initialize already seen. A session of 2026-07-28 (requests carrying their protocol "
     "version in _meta, or server/discover) has no initialization and is not checked."},
    {"mcp-early-request", "warning", "a request before the session is initialized",
     "The client SHOULD NOT send requests other than pings before the server has responded to "
     "its initialize, and the server SHOULD NOT send requests other than pings before it has "
     "received notifications/initialized (MCP Base Protocol, Lifecycle, Initialization; "
     "revisions 2024-11-05 to 2025-11-25). Notifications, such as the server's logging, are "
     "not told."},
    {"mcp-initialized-first", "error", "a request of the client before notifications/initialized",
     "After a successful initialization the client MUST send notifications/initialized to say "
     "it is ready to begin normal operation (MCP Base Protocol, Lifecycle, Initialization; "
     "revisions 2024-11-05 to 2025-11-25): a request of the client other than ping after the "
     "server's result to initialize, and before that notification, begins it too early."},
    {"mcp-version", "error", "the server's result to initialize names no protocol version",
     "The server MUST respond to initialize with the protocol version of the session, the one "
     "the client asked for or another it supports (MCP Base Protocol, Lifecycle, Version "
     "Negotiation; 2024-11-05 to 2025-11-25); a version is a date, YYYY-MM-DD (MCP Versioning). A "
     "result without "
     "protocolVersion, or with one of another form, names none. related_line names the "
     "initialize."},
    /* Cancellation (MCP Base Protocol, Utilities, Cancellation). */
    {"mcp-initialize-cancelled", "error", "the client cancels its initialize",
     "The initialize request MUST NOT be cancelled by clients (MCP Base Protocol, Utilities, "
     "Cancellation, Behavior Requirements; every revision with a lifecycle). related_line "
     "names the initialize."},
    {"mcp-cancel-unknown", "warning", "a cancellation of a request its sender never sent",
     "Cancellation notifications MUST only reference requests previously issued in the same "
     "direction and believed to be still in progress (MCP Base Protocol, Utilities, "
     "Cancellation). One naming a request answered already is the race the specification "
     "allows and is not told; one naming no request its sender sent, as far as the input shows "
     "(among the latest --max-open answered), is a warning, since a capture may begin after "
     "the request. Told in a session of a revision up to 2025-11-25, where the requests "
     "answered are remembered."},
    {"mcp-after-cancel", "warning", "a response or progress of a request that was cancelled",
     "Receivers of a cancellation SHOULD stop processing the request and not send a response "
     "for it (MCP Base Protocol, Utilities, Cancellation; every revision): a response, or "
     "progress, of a "
     "request after its cancellation. The one that was on its way "
     "when the cancellation came is the race the specification allows, which is why this is a "
     "warning. related_line names the cancellation."},
    {"mcp-error-code", "error", "an error code MCP reserves in the session's revision",
     "From 2026-07-28, MCP partitions the codes JSON-RPC leaves to implementations: -32000 to "
     "-32019 stay the implementation's, -32020 to -32099 are the specification's, allocated "
     "one by one (-32020 header mismatch, -32021 missing required client capability, -32022 "
     "unsupported protocol version), and the codes of earlier revisions MUST NOT be reused "
     "(-32002 resource not found, up to 2025-11-25; -32042 URL elicitation required, "
     "2025-11-25) (MCP schema, MCP error codes). An error with any other code of the "
     "specification's, in a session of 2026-07-28 (its requests' _meta protocol version, or "
     "--mcp-revision), uses one no peer can read. Up to 2025-11-25 these codes are the "
     "implementation's."},
    {"mcp-capability", "error", "a message of a capability not declared",
     "Both parties MUST only use capabilities that were successfully negotiated (MCP Base "
     "Protocol, Lifecycle, Operation; revisions 2024-11-05 to 2025-11-25): each side declares "
     "its capabilities in initialize (the client in its params, the server in its result), and "
     "a request needs the receiver's (tools/* the server's tools, resources/* its resources, "
     "resources/subscribe its resources.subscribe, prompts/*, logging/setLevel, tasks/*, "
     "completion/complete its completions from 2025-03-26, which added it; "
     "sampling/createMessage, elicitation/create and roots/list the client's sampling, "
     "elicitation and roots), and a notification of a change the sender's own (listChanged, "
     "resources.subscribe for notifications/resources/updated, logging for "
     "notifications/message). Checked once the input holds both declarations."},
    /* 2026-07-28, which has no sessions (engine/mcp_stateless.c). */
    {"mcp-request-meta", "error", "a request of 2026-07-28 without its _meta fields",
     "Every request of the client MUST carry in _meta io.modelcontextprotocol/protocolVersion "
     "(a string) and io.modelcontextprotocol/clientCapabilities (an object) (MCP Base "
     "Protocol, _meta, per-request fields; 2026-07-28): the server knows the version and the "
     "capabilities from the request alone. Checked in a session of 2026-07-28: one whose "
     "requests gave that version, or --mcp-revision's."},
    {"mcp-meta-accepted", "error", "a request without its _meta fields answered other than -32602",
     "A request missing a required per-request field is malformed, and the server MUST reject "
     "it with the JSON-RPC error -32602, invalid params (MCP Base Protocol, _meta; "
     "2026-07-28): a result, or another error, answers it as though it were whole. "
     "related_line names the request."},
    {"mcp-version-error", "error", "an unsupported protocol version error without the versions",
     "A server that does not implement the version a request asked for MUST answer with an "
     "UnsupportedProtocolVersionError, -32022, listing the versions it supports in "
     "data.supported, an array of strings, from which the client picks one to retry (MCP "
     "Versioning and Compatibility; 2026-07-28)."},
    {"mcp-result-type", "error", "a result of 2026-07-28 without a known resultType",
     "A result MUST include resultType, complete for an ordinary result or input_required for "
     "a multi round-trip request's interim one, and a client MUST hold any other value invalid "
     "(MCP Base Protocol, Responses; 2026-07-28). Earlier revisions have none, and are not "
     "checked."},
    {"mcp-ttl", "error", "a negative ttlMs",
     "Servers MUST provide a ttlMs, the time a result stays fresh, that is 0 or more (MCP "
     "Server Utilities, Caching; 2026-07-28): a result whose ttlMs is negative, or no number."},
    {"mcp-server-request", "error", "a request of the server in 2026-07-28",
     "From 2026-07-28 the server asks the client for roots, sampling or elicitation with an "
     "InputRequiredResult to the client's request, and MUST NOT send requests of its own (MCP "
     "Base Protocol, Multi Round-Trip Requests; Transports, stdio)."},
    {"mcp-client-response", "error", "a response of the client in 2026-07-28",
     "The client MUST NOT write JSON-RPC responses (MCP Transports, stdio; 2026-07-28): no "
     "server of that revision sends it a request to answer. Told where the capture says who "
     "wrote the response."},
    {"mcp-cache-hints", "error", "a cacheable result without its caching hints",
     "Servers MUST include caching hints on the complete results of server/discover, "
     "tools/list, prompts/list, resources/list, resources/templates/list and resources/read: "
     "ttlMs, and cacheScope, public or private (MCP Server Utilities, Caching, Cacheable "
     "Results; 2026-07-28). An interim result (input_required) carries none."},
    {"mcp-cache-scope", "error", "the pages of one list in two cache scopes",
     "Servers MUST apply the same cacheScope to all response pages for a given list request "
     "(MCP Server Utilities, Caching, Interaction with Pagination; 2026-07-28): a page asked "
     "for with the nextCursor of the page before is of that page's scope. The cursors of the "
     "latest --max-open pages are remembered."},
    {"mcp-discover-result", "error", "a result of server/discover without its versions",
     "Servers MUST implement server/discover, whose result lists the protocol versions the "
     "server supports (supportedVersions, strings) and gives its capabilities (MCP Server, "
     "Discovery; DiscoverResult in the schema; 2026-07-28): a client of both eras chooses its "
     "version from the list."},
    {"mcp-log-unrequested", "error", "a log message no request asked for",
     "The server MUST NOT emit notifications/message for a request that does not include "
     "io.modelcontextprotocol/logLevel in its _meta, and MUST NOT deliver it on a "
     "subscription's stream (MCP Server Utilities, Logging, Per-request log level; "
     "2026-07-28): told of a log message while no request of the client in progress asks for "
     "one, or that carries a subscriptionId."},
    {"mcp-server-cancel", "error", "a server's cancellation of no subscription",
     "A server MUST send notifications/cancelled only referencing a subscriptions/listen "
     "request, to tear down that subscription, and for no other purpose (MCP Base Protocol, "
     "Cancellation; 2026-07-28): told of one naming another request, or none of the client "
     "in progress. The subscription it ends is owed no response from there."},
    {"mcp-removed", "warning", "a method 2026-07-28 removed",
     "2026-07-28 removed ping, logging/setLevel (a request carries its log level in _meta "
     "instead), notifications/roots/list_changed, resources/subscribe and "
     "resources/unsubscribe (subscriptions/listen replaces them) and "
     "notifications/elicitation/complete (MCP Changelog, 2026-07-28): a peer of that revision "
     "does not know them, and answers a request of them as an unknown method (-32601). A "
     "warning: no MUST forbids sending them."},
    /* Tasks (MCP Base Protocol, Utilities, Tasks; 2025-11-25; engine/mcp_tasks.c). */
    {"mcp-task-status", "error",
     "a task's status that is none, or a task that does not begin working",
     "A task's status is working, input_required, completed, failed or cancelled, and a task "
     "MUST begin working (MCP Base Protocol, Utilities, Tasks, Task Status Lifecycle; "
     "2025-11-25): the CreateTaskResult that answers a request with params.task names it "
     "working; tasks/get, tasks/cancel, tasks/list and notifications/tasks/status tell it "
     "since."},
    {"mcp-task-transition", "error", "a task moves where its lifecycle does not go",
     "A task MUST only move from working to input_required, completed, failed or cancelled, "
     "and from input_required to working or one of the three terminal statuses; a terminal "
     "one (completed, failed, cancelled) MUST NOT change (MCP Base Protocol, Utilities, Tasks, "
     "Task Status Lifecycle; 2025-11-25). The latest status told of the latest --max-open "
     "tasks is kept."},
    {"mcp-related-task", "error", "a message of a task without its related-task metadata",
     "All requests, notifications and responses related to a task MUST include "
     "io.modelcontextprotocol/related-task in their _meta, an object whose taskId is the "
     "task's (MCP Base Protocol, Utilities, Tasks, Associating Task-Related Messages; "
     "2025-11-25): told of the result of tasks/result, which is the task's own, and of the "
     "result of a request that carried a task's related-task (the elicitation a task waits "
     "for), where it lacks the task's, and of related-task metadata that is no object with a "
     "string taskId."},
    {"mcp-related-task-redundant", "warning", "related-task metadata where the task is named",
     "tasks/get, tasks/result and tasks/cancel name their task in params.taskId, and requestors "
     "SHOULD NOT include related-task metadata in them; receivers SHOULD NOT include it in the "
     "results of tasks/get, tasks/list and tasks/cancel, nor in notifications/tasks/status, "
     "which name the task already (MCP Base Protocol, Utilities, Tasks; 2025-11-25)."},
    /* Progress (MCP Base Protocol, Utilities, Progress; engine/mcp_progress.c). */
    {"mcp-progress-token-reused", "error", "a progress token of a request still in progress",
     "Progress tokens MUST be unique across all active requests (MCP Base Protocol, "
     "Utilities, Progress; every revision): a request of a sender whose params._meta.progressToken "
     "is that of "
     "another of its requests still in progress makes their progress one. related_line names "
     "the earlier request; the token is the later one's from here."},
    {"mcp-progress-unknown", "error", "progress for no request in progress",
     "Progress notifications MUST only reference tokens provided in an active request, and "
     "MUST stop after the request completed (MCP Base Protocol, Utilities, Progress; every "
     "revision): "
     "notifications/progress whose progressToken names no request of the other side in "
     "progress (in bare JSON-RPC lines, of either side)."},
    {"mcp-progress-decreasing", "error", "progress that does not increase",
     "The progress value MUST increase with each notification, even if the total is unknown "
     "(MCP Base Protocol, Utilities, Progress; every revision): notifications/progress whose "
     "progress is not "
     "greater than the previous one of its request. related_line names the request."},
    {NULL, NULL, NULL, NULL},
};
