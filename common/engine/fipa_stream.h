/* FIPA interaction-protocol conformance over a stream: the FIPA half of the conversation
 * engine. */
#ifndef ACP_FIPA_STREAM_H
#define ACP_FIPA_STREAM_H

#include "engine/conversation.h"

struct fipa_stream;

struct fipa_stream *fipa_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx);
const char *fipa_stream_feed(struct fipa_stream *s, const struct message *m,
                             struct diag_sink *sink);
void fipa_stream_finish(struct fipa_stream *s, struct diag_sink *sink);
/* A finding the sink reported while the stream was being fed or finished: kept for the
 * conversation the stream blames it on, if any (the engine observes the sink for it). */
void fipa_stream_note(struct fipa_stream *s, const struct diag_finding *finding);
/* A message that failed its own checks (engine_check_message), which changes nothing: one
 * naming an open conversation (by conversation_id, or the chain) is one of its messages all the
 * same, counted in it, with its own findings (*own, taken). Returns what fipa_stream_feed would,
 * NULL for a message of none. */
const char *fipa_stream_failed(struct fipa_stream *s, const struct message *m,
                               struct findings **own);
/* Hands over every open conversation as "open", reporting nothing. */
void fipa_stream_hand_over(struct fipa_stream *s);
/* Message time: NAN before the first message. */
double fipa_stream_now(const struct fipa_stream *s);
/* Moves message time forward to at least now (--wall-clock), and expires what is due; where
 * locates the findings (the latest message). */
void fipa_stream_advance(struct fipa_stream *s, double now, const struct diag_where *where,
                         struct diag_sink *sink);
/* The message time at which a reply_by pending in an open conversation is next overdue, to be
 * told when message time passes it; INFINITY when none is pending. */
double fipa_stream_next_due(const struct fipa_stream *s);
void fipa_stream_free(struct fipa_stream *s);

#endif
