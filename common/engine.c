#include "engine.h"

#include <stdlib.h>

#include "fipa_stream.h"
#include "iacp_stream.h"
#include "util.h"

struct engine {
    struct iacp_stream *iacp;
    struct fipa_stream *fipa;
};

void engine_config_defaults(struct engine_config *cfg)
{
    *cfg = (struct engine_config){
        .queen = "queen",
        .assign_timeout = 300,
        .max_skew = 2,
        .clock_skew = 30,
        .idle_timeout = 3600,
        .heartbeat_period = 10,
        .max_open = 100000,
    };
}

struct engine *engine_new(const struct engine_config *cfg, conversation_done_fn done, void *ctx)
{
    struct engine *e = xcalloc(1, sizeof *e);
    e->iacp = iacp_stream_new(cfg, done, ctx);
    e->fipa = fipa_stream_new(cfg, done, ctx);
    return e;
}

const char *engine_feed(struct engine *e, const struct message *m, struct diag_sink *sink)
{
    switch (m->proto) {
    case PROTO_IACP:
        return iacp_stream_feed(e->iacp, m, sink);
    case PROTO_FIPA:
        return fipa_stream_feed(e->fipa, m, sink);
    case PROTO_NONE:
        break;
    }
    return NULL;
}

void engine_finish(struct engine *e, struct diag_sink *sink)
{
    iacp_stream_finish(e->iacp, sink);
    fipa_stream_finish(e->fipa, sink);
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    iacp_stream_free(e->iacp);
    fipa_stream_free(e->fipa);
    free(e);
}
