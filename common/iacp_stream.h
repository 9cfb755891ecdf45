/* The IACP 1.1 pairing rules over a stream: the IACP half of the conversation engine. */
#ifndef ACP_IACP_STREAM_H
#define ACP_IACP_STREAM_H

#include "engine.h"

struct iacp_stream;

struct iacp_stream *iacp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx);
const char *iacp_stream_feed(struct iacp_stream *s, const struct message *m,
                             struct diag_sink *sink);
void iacp_stream_finish(struct iacp_stream *s, struct diag_sink *sink);
void iacp_stream_free(struct iacp_stream *s);

#endif
