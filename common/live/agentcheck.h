/* The live-agent mode of acp-replay: a recording becomes a regression test for one agent.
 *
 * The messages the recording sent to the agent are sent to the live agent; the replies the
 * agent gave in the recording become expectations. A live reply answers the message its ref
 * (IACP) or in_reply_to (FIPA; else its conversation_id) names, as sent; it is matched to a
 * recorded reply to the same message of the same kind or performative (a partial result is a
 * kind of its own), and compared: sender, receiver, and the fields listed in the configuration.
 * An expectation that no reply of its kind meets by its deadline takes a reply of another kind
 * to the same message (a wrong kind), else it is a missing reply; when the agent wrote nothing
 * at all since that message was sent, the agent hangs. Once a live reply ends the conversation
 * the message opened (as acp-send --wait reads its end: a rejection, a refusal, a failure, a
 * final result), the expectations of that message are settled so at once, not at their
 * deadlines: nothing more can come. At the end, live replies nothing expected are extra. Messages
 * from the agent that answer nothing we sent (heartbeats, its own initiatives) are not compared, in
 * the recording or live. Every difference is an error diagnostic located at a line of the
 * recording. When a live reply is matched, the id the agent chose is bound to the one it chose in
 * the recording, so that later recorded messages that name it reach the agent rewritten.
 *
 * State is bounded: at most 10,000 messages sent are remembered for matching, at most 10,000
 * recorded replies are awaited at once (the oldest is then reported missing), and at most 10,000
 * live replies wait for a recorded one (the oldest is then reported as extra). */
#ifndef ACP_AGENTCHECK_H
#define ACP_AGENTCHECK_H

#include "io/transport.h"
#include "proto/idrewrite.h"
#include "proto/message.h"

struct agentcheck_config {
    const char *agent;    /* the agent under test */
    char *const *compare; /* dotted paths compared besides kind, sender and receiver */
    size_t ncompare;
    double reply_timeout; /* a reply may take max(this, twice its recorded delay) */
};

enum agent_role {
    ROLE_OTHER,      /* neither to nor from the agent: not replayed */
    ROLE_TO_AGENT,   /* sent to the live agent */
    ROLE_FROM_AGENT, /* what the agent said: an expectation when it answers something */
};

struct agentcheck_counts {
    unsigned long sent, expected, matched, differences;
};

struct agentcheck;

struct agentcheck *agentcheck_new(const struct agentcheck_config *cfg, struct idrewrite *ids);
void agentcheck_free(struct agentcheck *ac);

enum agent_role agentcheck_role(const struct agentcheck *ac, const struct message *m);

/* The recorded message went to the agent at now as sent (its ids as the agent sees them). The
 * oldest message sent is forgotten past the bound, and what still waited on it reported. */
void agentcheck_sent(struct agentcheck *ac, const struct message *recorded, const json_t *sent,
                     double now, struct diag_sink *sink);

/* A recorded message from the agent. When it answers a message that was sent, the live agent
 * owes a reply like it. */
void agentcheck_expect(struct agentcheck *ac, const struct message *recorded,
                       struct diag_sink *sink);

/* A line the live agent wrote at now. A line that is not a message is reported, and the agent
 * counts as broken. */
void agentcheck_live(struct agentcheck *ac, const struct transport_line *line, double now,
                     struct diag_sink *sink);

/* Whether expectations wait for replies, and the earliest deadline among them (INFINITY when
 * none). */
bool agentcheck_waiting(const struct agentcheck *ac);
double agentcheck_next_deadline(const struct agentcheck *ac);

/* Settles the expectations whose deadline is past. */
void agentcheck_expire(struct agentcheck *ac, double now, struct diag_sink *sink);

/* The agent went away (how: "exited with status 3", "closed the connection"), or stopped reading
 * its input: reported at the reply awaited first, else at the message sent last; the agent
 * counts as broken. */
void agentcheck_gone(struct agentcheck *ac, const char *how, struct diag_sink *sink);
void agentcheck_stalled(struct agentcheck *ac, double seconds, struct diag_sink *sink);

/* The agent crashed, hangs or wrote garbage: the replay must end. */
bool agentcheck_broken(const struct agentcheck *ac);

/* The end: live replies that no recorded one met are reported as extra. */
void agentcheck_finish(struct agentcheck *ac, struct diag_sink *sink);

struct agentcheck_counts agentcheck_counts(const struct agentcheck *ac);

#endif
