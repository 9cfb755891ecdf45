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

/* acp-trace --merge: what spans the partitions of a stream (--partition), from their summaries,
 * read twice. Pass 1 gives each record (a JSON object) with the number of the file it came in
 * and its ordinal among the records read; engine_merge_settle reports what spans them; pass 2
 * gives each record again, in the same order, to be made what one process would have written:
 * its span left out, and what the merge blamed on it among its issues. */
struct engine_merge;

struct engine_merge *engine_merge_new(const struct engine_config *cfg);
/* False, with *why, for a span that cannot be read. */
bool engine_merge_collect(struct engine_merge *e, const json_t *record, size_t input,
                          unsigned long ordinal, const struct diag_where *at, const char **why);
void engine_merge_settle(struct engine_merge *e, struct diag_sink *sink);
void engine_merge_patch(struct engine_merge *e, json_t *record, unsigned long ordinal);
void engine_merge_free(struct engine_merge *e);

#endif
