/* The IACP 1.1 pairing rules over a stream: the IACP half of the conversation engine. */
#ifndef ACP_IACP_STREAM_H
#define ACP_IACP_STREAM_H

#include "engine/conversation.h"

struct iacp_stream;

struct iacp_stream *iacp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx);
/* Follows m, reading its digest (m->digest) when it has one. */
const char *iacp_stream_feed(struct iacp_stream *s, const struct message *m,
                             struct diag_sink *sink);
/* All iacp_stream_feed reads of m (the envelope, the keys of its id and ref, hashed, what it
 * reads of the body), made in any thread: for m->digest. free() it. */
struct iacp_digest *iacp_digest_new(const struct message *m);
/* The message's id as the digest holds it, or NULL: lives as long as the digest. */
const char *iacp_digest_id(const struct iacp_digest *d);
void iacp_stream_finish(struct iacp_stream *s, struct diag_sink *sink);
/* A finding the sink reported while the stream was being fed or finished: kept for the
 * conversation the stream blames it on, if any (the engine observes the sink for it). */
void iacp_stream_note(struct iacp_stream *s, const struct diag_finding *finding);
/* A message that failed its own checks (engine_check_message), which changes nothing: a reply
 * naming an open conversation is one of its messages all the same, counted in it, with its own
 * findings (*own, taken). Returns what iacp_stream_feed would, NULL for a message of none. */
const char *iacp_stream_failed(struct iacp_stream *s, const struct message *m,
                               struct findings **own);
/* Hands over every open conversation as "open", reporting nothing. */
void iacp_stream_hand_over(struct iacp_stream *s);
/* Message time: NAN before the first message. */
double iacp_stream_now(const struct iacp_stream *s);
/* Moves message time forward to at least now (--wall-clock), and expires what is due; where
 * locates the findings (the latest message). */
void iacp_stream_advance(struct iacp_stream *s, double now, const struct diag_where *where,
                         struct diag_sink *sink);
/* The message time at which something falls due next (an open assign's body.deadline, or its
 * --assign-timeout), to be told when message time passes it; INFINITY when nothing is pending. */
double iacp_stream_next_due(const struct iacp_stream *s);
void iacp_stream_free(struct iacp_stream *s);

#endif
