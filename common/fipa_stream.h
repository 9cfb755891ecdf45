/* FIPA interaction-protocol conformance over a stream: the FIPA half of the conversation
 * engine. */
#ifndef ACP_FIPA_STREAM_H
#define ACP_FIPA_STREAM_H

#include "engine.h"

struct fipa_stream;

struct fipa_stream *fipa_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx);
const char *fipa_stream_feed(struct fipa_stream *s, const struct message *m,
                             struct diag_sink *sink);
void fipa_stream_finish(struct fipa_stream *s, struct diag_sink *sink);
void fipa_stream_free(struct fipa_stream *s);

#endif
