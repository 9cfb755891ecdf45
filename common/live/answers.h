/* Following the conversation a message opens, for acp-send --wait: which of the peer's messages
 * answer it, which are its echo (a bus hands a sender its own messages back), and when the
 * conversation is over and how it ended.
 *
 * A reply names the message: IACP ref is its id, and the reply goes to its sender; FIPA
 * in_reply_to is its reply_with, in the same conversation_id when both carry one, and addressed
 * to its sender when the reply names a receiver. The echo is a message with the same sender and
 * id (reply_with). The conversation ends, by the protocol of what was sent:
 *   task.assign          task.accept, then the task.result that is not partial: succeeded when
 *                        its body.status is "ok" or absent, failed otherwise; task.reject: failed
 *   tool.query           tool.reply: succeeded
 *   request, request_when, request_whenever, proxy, query_if, query_ref, subscribe,
 *   cancel, accept_proposal
 *                        (agree, then) inform, inform_if, inform_ref, confirm or disconfirm:
 *                        succeeded; refuse, failure or not_understood: failed. A subscription
 *                        succeeds at its first inform.
 *   propose, counter_propose
 *                        accept_proposal: succeeded; reject_proposal, refuse, not_understood:
 *                        failed
 *   cfp                  every proposal until the deadline (or until every receiver answered):
 *                        succeeded with at least one proposal, failed when all refused
 *   an MCP request       the response of its id: succeeded with a result, failed with an error
 * Every other message expects no answer. */
#ifndef ACP_ANSWERS_H
#define ACP_ANSWERS_H

#include <jansson.h>
#include <stdbool.h>

#include "proto/message.h"

enum answer_role { ANSWER_UNRELATED, ANSWER_ECHO, ANSWER_REPLY };

enum answer_outcome {
    ANSWER_OPEN,      /* the final answer has not come */
    ANSWER_SUCCEEDED, /* exit status 0 */
    ANSWER_FAILED,    /* refused, rejected or failed: exit status 1 */
    ANSWER_TIMEOUT,   /* no final answer by the deadline: exit status 3 */
};

struct answers;

/* Follows the conversation sent (a completed message of protocol proto) opens; NULL when sent
 * expects no answer. */
struct answers *answers_new(const json_t *sent, enum protocol proto);
/* Whether the replies to messages of proto can be followed (IACP's, FIPA's, MCP's). */
bool answers_followed(enum protocol proto);
void answers_free(struct answers *a);

enum answer_role answers_classify(const struct answers *a, const json_t *msg, enum protocol proto);

/* Takes a reply (classified ANSWER_REPLY); returns the outcome so far. */
enum answer_outcome answers_take(struct answers *a, const json_t *reply, enum protocol proto);

/* The deadline passed: the outcome at that point (a cfp that had proposals succeeded). */
enum answer_outcome answers_expire(struct answers *a);

enum answer_outcome answers_outcome(const struct answers *a);

/* Whether the peer has nothing more to say in the conversation: it ended, and not with the
 * first inform of a subscribe or request_whenever, whose informs go on. */
bool answers_over(const struct answers *a);
/* Whether msg is a partial result (IACP body.partial, FIPA x-acp-partial: true), an
 * intermediate one before the final answer. */
bool answers_partial(const json_t *msg, enum protocol proto);

/* What the conversation waits for, or how it ended, for a diagnostic: "agree came; waiting for
 * inform or failure", "agent_456 answered refuse". */
const char *answers_state(const struct answers *a);

/* Told of each difference answers_compare finds: what differs, and its two values. */
typedef void answers_differ_fn(void *ctx, const char *what, const json_t *recorded,
                               const json_t *live);

/* What a dialect compares of a live reply with the recorded one it matched (of the same kind),
 * besides the fields acp-replay --compare names: MCP the error's code, and the result's shape,
 * its members' names and JSON types (not their values: a list of tools may grow); IACP and FIPA
 * nothing. */
void answers_compare(const json_t *recorded, const json_t *live, enum protocol proto,
                     answers_differ_fn *differ, void *ctx);

/* What makes two requests the same request, for a recording served in a server's place (acp-replay
 * --serve): appended to key; false when msg is no request the dialect can serve (IACP's and FIPA's
 * are not). MCP: the method and the params, their _meta left out (a client's progress token, its
 * name); initialize and server/discover by the method alone, whose params say who asks, not what.
 */
bool answers_request_key(const json_t *msg, enum protocol proto, struct strbuf *key);

/* The deadline the message states itself: IACP body.deadline, FIPA reply_by; in unix seconds. */
bool answers_deadline(const json_t *sent, enum protocol proto, double *epoch);

#endif
