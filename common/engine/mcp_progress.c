/* MCP's progress (Base Protocol, Utilities, Progress): a request asks for progress with a token
 * in params._meta.progressToken, and the receiver may then send notifications/progress naming
 * it. A token MUST be unique among the active requests of its sender; a notification MUST name
 * the token of a request in progress, and stop once it completed; its progress MUST increase.
 * Progress after a cancellation goes against the cancellation's SHOULD (mcp-after-cancel). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mcp_stream_parts.h"

static const struct jv *token_of_request(const struct jv *msg)
{
    const struct jv *meta = jv_object_get(jv_object_get(msg, "params"), "_meta");
    const struct jv *token = jv_object_get(meta, "progressToken");
    return jv_is_string(token) || jv_is_integer(token) ? token : NULL;
}

void mcp_progress_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                         const struct jv *msg, struct diag_sink *sink)
{
    const struct jv *token = token_of_request(msg);
    if (!token)
        return;
    const char *key = mcp_scoped_key(s, f, mcp_side_scope(p->side), token);
    struct pending *was = strmap_get(s->tokens, key);
    if (was) {
        struct diag_where at = f->m->at;
        at.related_file = was->file != at.file ? was->file : NULL;
        at.related_line = was->line;
        diag_emit(sink, &at, "mcp-progress-token-reused",
                  "the progress token of the request '%s', still in progress, is used again",
                  mcp_method_shown(s, was));
        mcp_progress_closed(s, was); /* the later request's, from here */
    }
    p->token = xstrdup(key);
    p->progress = NAN;
    strmap_put(s->tokens, key, p);
}

void mcp_progress_closed(struct mcp_stream *s, struct pending *p)
{
    if (!p->token)
        return;
    strmap_remove(s->tokens, p->token);
    free(p->token);
    p->token = NULL;
}

/* The request whose token a notification of side names: the other side's, or in bare lines of
 * either side. */
static struct pending *token_request(struct mcp_stream *s, const struct fed *f, enum side side,
                                     const struct jv *token)
{
    if (side != SIDE_UNKNOWN)
        return strmap_get(s->tokens,
                          mcp_scoped_key(s, f, mcp_side_scope(mcp_other_side(side)), token));
    static const enum side sides[] = {SIDE_CLIENT, SIDE_SERVER, SIDE_UNKNOWN};
    struct pending *latest = NULL, *found;
    for (size_t i = 0; i < 3; i++)
        if ((found =
                 strmap_get(s->tokens, mcp_scoped_key(s, f, mcp_side_scope(sides[i]), token))) &&
            (!latest || found->order > latest->order))
            latest = found;
    return latest;
}

struct pending *mcp_progress_check(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                                   enum side side, struct diag_sink *sink)
{
    const struct jv *params = jv_object_get(msg, "params");
    const struct jv *token = jv_object_get(params, "progressToken");
    if (!jv_is_string(token) && !jv_is_integer(token))
        return NULL;
    struct pending *p = token_request(s, f, side, token);
    if (!p) {
        diag_emit(sink, &f->m->at, "mcp-progress-unknown",
                  "progress for no request in progress: its token was never given, or its "
                  "request completed");
        return NULL;
    }
    struct diag_where at = f->m->at;
    at.related_file = p->file != at.file ? p->file : NULL;
    at.related_line = p->line;
    if (p->cancelled_file) {
        at.related_file = p->cancelled_file != at.file ? p->cancelled_file : NULL;
        at.related_line = p->cancelled_line;
        diag_emit(sink, &at, "mcp-after-cancel", "progress of the request '%s' that was cancelled",
                  mcp_method_shown(s, p));
    }
    const struct jv *progress = jv_object_get(params, "progress");
    if (!jv_is_number(progress))
        return p;
    double now = jv_number_value(progress);
    if (!isnan(p->progress) && !(now > p->progress)) {
        at.related_file = p->file != at.file ? p->file : NULL;
        at.related_line = p->line;
        diag_emit(sink, &at, "mcp-progress-decreasing",
                  "the progress of the request '%s' does not increase", mcp_method_shown(s, p));
    }
    p->progress = now;
    return p;
}
