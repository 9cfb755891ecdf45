/* Placeholder: the stream rules land with the stream-level checks (issue 3). */
#include "fipa_stream.h"

#include <stdlib.h>

#include "util.h"

struct fipa_stream {
    const struct engine_config *cfg;
};

struct fipa_stream *fipa_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx)
{
    (void)done;
    (void)ctx;
    struct fipa_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    return s;
}

const char *fipa_stream_feed(struct fipa_stream *s, const struct message *m,
                             struct diag_sink *sink)
{
    (void)s;
    (void)m;
    (void)sink;
    return NULL;
}

void fipa_stream_finish(struct fipa_stream *s, struct diag_sink *sink)
{
    (void)s;
    (void)sink;
}

void fipa_stream_free(struct fipa_stream *s)
{
    free(s);
}
