/* MCP 2026-07-28, which has no sessions: each request of the client carries its protocol version
 * and the capabilities it relies on in _meta (Base Protocol, _meta, per-request fields), the
 * server asks the client for nothing with requests of its own (Multi Round-Trip Requests replace
 * them), so the client answers none (Transports, stdio), and ping, logging/setLevel and
 * notifications/roots/list_changed are gone (Changelog). A session is of 2026-07-28 by its
 * requests' _meta version, or by --mcp-revision. */
#include <string.h>

#include "base/escape.h"
#include "engine/mcp_stream_parts.h"

#define META_PREFIX "io.modelcontextprotocol/"

static bool method_in(const struct jv *method, const char *const *names)
{
    for (; *names; names++)
        if (jv_string_is(method, *names))
            return true;
    return false;
}

/* The required per-request fields a request of the client lacks: NULL when it has them. */
static const char *meta_missing(const struct jv *msg)
{
    const struct jv *meta = jv_object_get(jv_object_get(msg, "params"), "_meta");
    if (!jv_is_string(jv_object_get(meta, META_PREFIX "protocolVersion")))
        return META_PREFIX "protocolVersion";
    if (!jv_is_object(jv_object_get(meta, META_PREFIX "clientCapabilities")))
        return META_PREFIX "clientCapabilities";
    return NULL;
}

/* notifications/message: request-scoped, for a request of the client in progress that asked for
 * log messages with a level (Server Utilities, Logging), never on a subscription's stream. */
static void check_log_message(const struct session *sess, const struct fed *f, const struct jv *msg,
                              struct diag_sink *sink)
{
    const struct jv *meta = jv_object_get(jv_object_get(msg, "params"), "_meta");
    if (jv_object_get(meta, META_PREFIX "subscriptionId")) {
        diag_emit(sink, &f->m->at, "mcp-log-unrequested",
                  "notifications/message on a subscription's stream: a log message belongs to "
                  "the request that asked for it");
        return;
    }
    for (const struct pending *p = sess->first; p; p = p->snext)
        if (p->log_level)
            return;
    diag_emit(sink, &f->m->at, "mcp-log-unrequested",
              "notifications/message while no request in progress asks for log messages "
              "(_meta's " META_PREFIX "logLevel)");
}

/* The server's notifications/cancelled tears down a subscription (subscriptions/listen of the
 * client, in progress), and is for nothing else (Cancellation); the subscription is owed no
 * response from there. */
static void check_server_cancel(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                                struct diag_sink *sink)
{
    const struct jv *id = jv_object_get(jv_object_get(msg, "params"), "requestId");
    struct pending *p = mcp_request_of(s, f, SIDE_CLIENT, id);
    if (p && mcp_pending_method_is(p, "subscriptions/listen")) {
        p->torn_down = true;
        return;
    }
    diag_emit(sink, &f->m->at, "mcp-server-cancel",
              "the server cancels %s: from 2026-07-28 a server cancels only a subscription "
              "(subscriptions/listen) in progress",
              p ? "a request of the client other than subscriptions/listen"
                : "no request of the client in progress");
}

void mcp_stateless_check(struct mcp_stream *s, const struct session *sess, const struct fed *f,
                         const struct jv *msg, enum side side, struct diag_sink *sink)
{
    static const char *const removed[] = {"ping",
                                          "logging/setLevel",
                                          "notifications/roots/list_changed",
                                          "resources/subscribe",
                                          "resources/unsubscribe",
                                          "notifications/elicitation/complete",
                                          NULL};
    if (!mcp_session_of_2026(s, sess))
        return;
    const struct jv *method = jv_object_get(msg, "method");
    bool request = method && jv_object_get(msg, "id");
    struct strbuf shown = STRBUF_INIT;
    if (!method) {
        if (side == SIDE_CLIENT)
            diag_emit(sink, &f->m->at, "mcp-client-response",
                      "the client answers a request, which no server of 2026-07-28 sends");
    } else if (!jv_is_string(method)) {
        /* the shape's own check told it */
    } else if (method_in(method, removed)) {
        escape_text(&shown, jv_string_value(method), jv_string_length(method), 80);
        diag_emit(sink, &f->m->at, "mcp-removed", "'%s' is gone from 2026-07-28", shown.buf);
    } else if (jv_string_is(method, "notifications/message") && side == SIDE_SERVER) {
        check_log_message(sess, f, msg, sink);
    } else if (jv_string_is(method, "notifications/cancelled") && side == SIDE_SERVER) {
        check_server_cancel(s, f, msg, sink);
    } else if (request && side == SIDE_SERVER) {
        escape_text(&shown, jv_string_value(method), jv_string_length(method), 80);
        diag_emit(sink, &f->m->at, "mcp-server-request",
                  "the server sends the request '%s': 2026-07-28 asks the client with "
                  "InputRequiredResult instead",
                  shown.buf);
    }
    sb_free(&shown);
}

void mcp_stateless_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                          const struct jv *msg, struct diag_sink *sink)
{
    const char *missing;
    if (p->side != SIDE_CLIENT || !mcp_session_of_2026(s, p->session))
        return;
    p->log_level = jv_is_string(jv_object_get(jv_object_get(jv_object_get(msg, "params"), "_meta"),
                                              META_PREFIX "logLevel"));
    if (!(missing = meta_missing(msg)))
        return;
    p->meta_missing = true;
    diag_emit(sink, &f->m->at, "mcp-request-meta", "the client's request lacks _meta's %s",
              missing);
}

/* From 2026-07-28 MCP allocates -32020 to -32099 itself, the codes it defines one by one, and
 * never reuses those of earlier revisions (-32002, -32042). */
static bool code_reserved_by_mcp(long long code)
{
    if (code == -32002 || code == -32042)
        return true;
    return code >= -32099 && code <= -32020 && code < -32022;
}

/* An error's code, as the session's revision allows it. */
static void check_error_code(const struct fed *f, const struct jv *code, struct diag_sink *sink)
{
    if (!jv_is_integer(code) || !code_reserved_by_mcp(jv_integer_value(code)))
        return;
    diag_emit(sink, &f->m->at, "mcp-error-code",
              "error.code %lld is one MCP reserves in a session of 2026-07-28",
              (long long)jv_integer_value(code));
}

/* Whether versions is a list of versions: strings, one at least. */
static bool versions_listed(const struct jv *versions)
{
    if (!jv_is_array(versions) || jv_array_size(versions) == 0)
        return false;
    for (const struct jv *v = jv_array_first(versions); v; v = jv_array_next(versions, v))
        if (!jv_is_string(v))
            return false;
    return true;
}

/* An UnsupportedProtocolVersionError (-32022) lists the versions the server supports. */
static void check_version_error(const struct fed *f, const struct jv *error, struct diag_sink *sink)
{
    if (!versions_listed(jv_object_get(jv_object_get(error, "data"), "supported")))
        diag_emit(sink, &f->m->at, "mcp-version-error",
                  "an unsupported protocol version error (-32022) without data.supported, the "
                  "versions the server supports");
}

/* A result of 2026-07-28 says its type (complete, or input_required for a multi round-trip
 * request's interim result), and a time to live it gives is not negative. */
static void check_result(const struct fed *f, const struct jv *result, struct diag_sink *sink)
{
    const struct jv *type = jv_object_get(result, "resultType");
    if (!jv_is_string(type))
        diag_emit(sink, &f->m->at, "mcp-result-type", "a result without its resultType");
    else if (!jv_string_is(type, "complete") && !jv_string_is(type, "input_required"))
        diag_emit(sink, &f->m->at, "mcp-result-type",
                  "a resultType neither complete nor input_required");
    const struct jv *ttl = jv_object_get(result, "ttlMs");
    if (ttl && !(jv_is_number(ttl) && jv_number_value(ttl) >= 0))
        diag_emit(sink, &f->m->at, "mcp-ttl", "ttlMs must be a number of milliseconds, 0 or more");
}

/* A DiscoverResult lists the versions the server supports and its capabilities. */
static void check_discover(const struct fed *f, const struct jv *result, struct diag_sink *sink)
{
    if (!versions_listed(jv_object_get(result, "supportedVersions")))
        diag_emit(sink, &f->m->at, "mcp-discover-result",
                  "the result of server/discover lists no supportedVersions");
    if (!jv_is_object(jv_object_get(result, "capabilities")))
        diag_emit(sink, &f->m->at, "mcp-discover-result",
                  "the result of server/discover gives no capabilities");
}

void mcp_stateless_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                            const struct jv *msg, struct diag_sink *sink)
{
    if (!mcp_session_of_2026(s, p->session))
        return;
    const struct jv *result = jv_object_get(msg, "result");
    if (jv_is_object(result) && p->side != SIDE_SERVER) { /* a client's is told already */
        check_result(f, result, sink);
        if (mcp_pending_method_is(p, "server/discover") &&
            !jv_string_is(jv_object_get(result, "resultType"), "input_required"))
            check_discover(f, result, sink);
    }
    const struct jv *error = jv_object_get(msg, "error");
    const struct jv *code = jv_object_get(error, "code");
    check_error_code(f, code, sink);
    if (jv_is_integer(code) && jv_integer_value(code) == -32022)
        check_version_error(f, error, sink);
    if (!p->meta_missing)
        return;
    if (jv_is_integer(code) && jv_integer_value(code) == -32602)
        return;
    struct diag_where at = f->m->at;
    at.related_file = p->file != at.file ? p->file : NULL;
    at.related_line = p->line;
    diag_emit(sink, &at, "mcp-meta-accepted",
              "the server answers a request without its _meta fields other than with -32602");
}
