/* MCP's rules beyond the pairing of JSON-RPC, in the order a message meets them: a notification
 * of cancellation, progress or a task's status goes to its file's checks; a request of the client
 * may begin its session's lifecycle; then what the capabilities declared allow, what 2026-07-28
 * asks, and what the session's phase allows. A response goes to each file's checks of an
 * answer, once paired. */
#include "engine/mcp_stream_parts.h"

/* A notification of msg's, with method, that a rule follows. */
static void notified(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                     const struct jv *method, enum side side, struct diag_sink *sink)
{
    if (jv_string_is(method, "notifications/cancelled"))
        mcp_story_add(s, f, mcp_lifecycle_cancel(s, f->session, f, msg, side, sink));
    else if (jv_string_is(method, "notifications/progress"))
        mcp_story_add(s, f, mcp_progress_check(s, f, msg, side, sink));
    else if (jv_string_is(method, "notifications/tasks/status"))
        mcp_tasks_notified(s, f, msg, sink);
}

void mcp_rules_check(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                     struct diag_sink *sink)
{
    struct session *sess = f->session;
    enum side side = mcp_sender_side(f, msg);
    const struct jv *method = jv_object_get(msg, "method");
    if (!method) { /* a response: mcp_rules_answered, once paired */
        mcp_stateless_check(s, sess, f, msg, side, sink);
        return;
    }
    if (!jv_object_get(msg, "id"))
        notified(s, f, msg, method, side, sink);
    else if (side == SIDE_CLIENT)
        mcp_lifecycle_request(sess, msg, method);
    mcp_capabilities_check(s, sess, f, msg, side, sink);
    mcp_stateless_check(s, sess, f, msg, side, sink);
    mcp_lifecycle_check(s, sess, f, msg, method, side, sink);
}

void mcp_rules_answered(struct mcp_stream *s, const struct fed *f, struct pending *p,
                        const struct jv *msg, struct diag_sink *sink)
{
    mcp_lifecycle_answered(s, f, p, msg, sink);
    mcp_stateless_answered(s, f, p, msg, sink);
    mcp_caching_answered(s, f, p, msg, sink);
    mcp_tasks_answered(s, f, p, msg, sink);
}
