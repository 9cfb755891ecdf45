/* Placeholder: the stream rules land with the stream-level checks (issue 3). */
#include "iacp_stream.h"

#include <stdlib.h>

#include "util.h"

struct iacp_stream {
    const struct engine_config *cfg;
};

struct iacp_stream *iacp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx)
{
    (void)done;
    (void)ctx;
    struct iacp_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    return s;
}

const char *iacp_stream_feed(struct iacp_stream *s, const struct message *m,
                             struct diag_sink *sink)
{
    (void)s;
    (void)m;
    (void)sink;
    return NULL;
}

void iacp_stream_finish(struct iacp_stream *s, struct diag_sink *sink)
{
    (void)s;
    (void)sink;
}

void iacp_stream_free(struct iacp_stream *s)
{
    free(s);
}
