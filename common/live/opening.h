/* What a dialect asks of a client before its first request to a peer, and of every request it
 * sends after: MCP's lifecycle (opening_mcp.c), which acp-send goes through with a server. A
 * dialect without one (IACP, FIPA) opens nothing. The opening is a state machine the tool drives:
 * it sends what opening_next gives, hands over the peer's messages (opening_take keeps those it
 * awaited), and says when the peer let the time pass (opening_expire); the session is open once
 * opening_state says OPENING_DONE.
 *
 * MCP: a client of both eras, as the specification's stdio binding has it (Transports, stdio,
 * Backward Compatibility). It probes with server/discover, its _meta naming 2026-07-28: a result
 * makes the session modern, at the newest revision both speak; an UnsupportedProtocolVersionError
 * (-32022) too, at a modern revision the error lists (none: the opening fails; no fallback);
 * any other error, or no response in time, makes it legacy: initialize (revision 2025-11-25),
 * its result (a revision with sessions), then notifications/initialized. --mcp-revision=REV
 * skips the probe: initialize at REV, or modern at REV at once. A modern session's requests carry
 * the revision, the client's name and its capabilities in params._meta (where they do not
 * already). The client declares no capability: a request of the server's is answered by the
 * client itself, ping with an empty result, any other with error -32601. */
#ifndef ACP_OPENING_H
#define ACP_OPENING_H

#include <jansson.h>
#include <stdbool.h>

#include "proto/message.h"

struct opening_config {
    const char *revision;    /* speak this one (--mcp-revision), or NULL: find out */
    json_int_t *next_number; /* the run's fresh integer ids (outgoing_config's) */
    const char *client_name; /* what the client calls itself, and its version */
    const char *client_version;
};

enum opening_state {
    OPENING_UNDER_WAY, /* a message waits to go, or a response to come */
    OPENING_DONE,
    OPENING_FAILED,
};

struct opening;

/* The opening of a session for messages of proto; NULL when the dialect has none. */
struct opening *opening_new(enum protocol proto, const struct opening_config *cfg);
void opening_free(struct opening *o);

/* The next message to send to the peer (the caller's to free), or NULL when none waits. */
json_t *opening_next(struct opening *o);

/* A message from the peer: true when it is a response the opening awaited (taken). */
bool opening_take(struct opening *o, const json_t *msg);

/* The response awaited did not come in time. */
void opening_expire(struct opening *o);

enum opening_state opening_state(const struct opening *o);

/* What the opening waits for, or why it failed, for a diagnostic. */
const char *opening_why(const struct opening *o);

/* The revision the session speaks once open, for a diagnostic ("2026-07-28"). */
const char *opening_revision(const struct opening *o);

/* Adds to msg, a message about to go once the session is open, what the session asks of it. */
void opening_complete(const struct opening *o, json_t *msg);

/* The client's own response to msg from the peer, a request it owes one (the caller's to free);
 * NULL when msg is none. */
json_t *opening_respond(const struct opening *o, const json_t *msg);

#endif
