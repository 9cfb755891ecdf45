/* The conversation engine: follows every conversation through a stream of messages and reports
 * what no single message shows (pairing faults, protocol violations, duplicate execution).
 * Feed it messages in order; it reports diagnostics through the sink as it goes, and hands each
 * conversation that ends (or is evicted, or is still open at the end) to a callback. acp-validate
 * and acp-trace share it. */
#ifndef ACP_ENGINE_H
#define ACP_ENGINE_H

#include "engine/conversation.h"
#include "proto/message.h"

struct engine;

struct engine *engine_new(const struct engine_config *cfg, conversation_done_fn done, void *ctx);

/* Follows one message (which passed its per-message checks). Findings go to sink, located at the
 * message, with related_line naming the earlier message involved. Returns the id of the
 * conversation the message belongs to as acp-convert writes it (conversation_id), NULL when it
 * belongs to none, or ENGINE_ELSEWHERE; valid until the next call. */
const char *engine_feed(struct engine *e, const struct message *m, struct diag_sink *sink);
/* What acp-validate does with a message: its protocol's per-message checks (the queen and FIPA
 * profile of the configuration), then, when it passed them, engine_feed. Returns what
 * engine_feed returned. A message that failed them changes no conversation; for an engine made
 * with a callback, one that names an open conversation is counted in it with its findings, and
 * its id returned; otherwise NULL or ENGINE_ELSEWHERE. In shards other than 1 the per-message
 * checks report nothing. */
const char *engine_check(struct engine *e, const struct message *m, struct diag_sink *sink);

/* engine_check in its two halves, for --jobs: the per-message checks, which read nothing but the
 * configuration (so any thread may run them), and, in order, what follows them. */
bool engine_check_message(const struct engine_config *cfg, struct message *m,
                          enum engine_digest digest, struct diag_sink *sink);
const char *engine_check_passed(struct engine *e, const struct message *m, bool passed,
                                struct diag_sink *sink);
/* End of input: reports what is still open or overdue and hands over every conversation. */
void engine_finish(struct engine *e, struct diag_sink *sink);
/* A run cut short (SIGINT): hands over every open conversation as "open", reporting nothing. */
void engine_hand_over(struct engine *e);
/* With --wall-clock, for input that went idle: message time advances by the wall-clock time
 * since the last message, and what expired or fell due is reported. Returns the seconds until it
 * should be called again while the input stays idle, no later than when the next thing falls
 * due (INFINITY without --wall-clock). */
double engine_idle(struct engine *e, struct diag_sink *sink);
void engine_free(struct engine *e);

#endif
