/* A session's lifecycle (MCP Base Protocol, Lifecycle and Cancellation, revisions 2024-11-05 to
 * 2025-11-25): initialize first, nothing but ping before its result, notifications/initialized
 * before the client operates, a version in the result; a cancellation naming a request of its
 * sender in progress, never the initialize, and no response after it. A session of 2026-07-28
 * has no lifecycle: each request carries its protocol version in _meta. */
#include <ctype.h>
#include <string.h>

#include "base/escape.h"
#include "engine/mcp_stream_parts.h"

/* The _meta member that marks a request of 2026-07-28 (Base Protocol, per-request fields). */
#define REQUEST_VERSION_META "io.modelcontextprotocol/protocolVersion"

/* Whether msg, the client's request of method, is one of 2026-07-28: made without a session. */
static bool stateless_request(const struct jv *msg, const struct jv *method)
{
    if (jv_string_is(method, "server/discover"))
        return true;
    const struct jv *meta = jv_object_get(jv_object_get(msg, "params"), "_meta");
    return jv_is_string(jv_object_get(meta, REQUEST_VERSION_META));
}

/* A request of 2026-07-28 makes its session one without a lifecycle, of its version. */
static void stateless_version(struct session *sess, const struct jv *msg)
{
    sess->stateless = true;
    const struct jv *meta = jv_object_get(jv_object_get(msg, "params"), "_meta");
    const struct jv *version = jv_object_get(meta, REQUEST_VERSION_META);
    if (jv_is_string(version) && jv_string_length(version) <= REVISION_MAX)
        memcpy(sess->revision, jv_string_value(version), jv_string_length(version) + 1);
}

/* Whether the session's lifecycle is checked: up to 2025-11-25, from its start. */
static bool has_lifecycle(const struct mcp_stream *s, const struct session *sess)
{
    const char *forced = s->cfg->mcp_revision;
    return sess->started && !sess->stateless && (!forced || mcp_revision_has_sessions(forced));
}

static const char *sender_name(enum side side)
{
    switch (side) {
    case SIDE_CLIENT:
        return "the client";
    case SIDE_SERVER:
        return "the server";
    case SIDE_UNKNOWN:
        break;
    }
    return "a peer";
}

/* A method for a diagnostic, made safe to show, in shown. */
static const char *method_of(const struct jv *method, struct strbuf *shown)
{
    sb_reset(shown);
    if (jv_is_string(method))
        escape_text(shown, jv_string_value(method), jv_string_length(method), 80);
    else
        sb_adds(shown, "(no method)");
    return shown->buf;
}

/* Before initialize: the initialization MUST come first. Told once a session. */
static void check_new(struct session *sess, const struct fed *f, const struct jv *msg,
                      const struct jv *method, enum side side, struct diag_sink *sink)
{
    if (side == SIDE_CLIENT && jv_string_is(method, "initialize") && jv_object_get(msg, "id")) {
        sess->phase = PHASE_INITIALIZE;
        return;
    }
    if (sess->told_uninitialized)
        return;
    sess->told_uninitialized = true;
    struct strbuf shown = STRBUF_INIT;
    diag_emit(sink, &f->m->at, "mcp-initialize-first",
              "%s sends '%s' before the session was initialized: initialize comes first",
              sender_name(side), method_of(method, &shown));
    sb_free(&shown);
}

/* Between initialize and notifications/initialized: the client sends only ping until the result,
 * then notifications/initialized before any other request; the server only ping. */
static void check_initializing(struct session *sess, const struct fed *f, const struct jv *msg,
                               const struct jv *method, enum side side, struct diag_sink *sink)
{
    if (side == SIDE_CLIENT && jv_string_is(method, "notifications/initialized")) {
        sess->phase = PHASE_OPERATION;
        return;
    }
    if (!jv_object_get(msg, "id") || jv_string_is(method, "ping") || side == SIDE_UNKNOWN)
        return; /* a notification, a ping, or a request of a side no line says */
    struct strbuf shown = STRBUF_INIT;
    if (side == SIDE_SERVER)
        diag_emit(sink, &f->m->at, "mcp-early-request",
                  "the server sends the request '%s' before the client's "
                  "notifications/initialized",
                  method_of(method, &shown));
    else if (sess->phase == PHASE_INITIALIZE)
        diag_emit(sink, &f->m->at, "mcp-early-request",
                  "the client sends the request '%s' before the server's result to initialize",
                  method_of(method, &shown));
    else
        diag_emit(sink, &f->m->at, "mcp-initialized-first",
                  "the client sends the request '%s' before notifications/initialized",
                  method_of(method, &shown));
    sb_free(&shown);
}

struct pending *mcp_lifecycle_cancel(struct mcp_stream *s, const struct session *sess,
                                     const struct fed *f, const struct jv *msg, enum side side,
                                     struct diag_sink *sink)
{
    const struct jv *id = jv_object_get(jv_object_get(msg, "params"), "requestId");
    struct pending *p = mcp_request_of(s, f, side, id);
    if (!p) {
        /* what was answered is known only where the session holds its ids */
        if ((jv_is_string(id) || jv_is_integer(id)) && mcp_session_holds_ids(s, sess) &&
            !mcp_request_ended(s, f, side, id))
            diag_emit(sink, &f->m->at, "mcp-cancel-unknown",
                      "%s cancels a request it has not sent, as far as the input shows",
                      sender_name(side));
        return NULL; /* answered already: the race the specification allows */
    }
    if (p->initialize) {
        struct diag_where at = f->m->at;
        at.related_file = p->file != at.file ? p->file : NULL;
        at.related_line = p->line;
        diag_emit(sink, &at, "mcp-initialize-cancelled", "the client cancels its initialize");
        return p; /* which the server is right to ignore */
    }
    if (!p->cancelled_file) {
        p->cancelled_file = mcp_file_copy(s, f->m->at.file);
        p->cancelled_line = f->m->at.line;
    }
    return p;
}

void mcp_lifecycle_request(struct session *sess, const struct jv *msg, const struct jv *method)
{
    if (stateless_request(msg, method)) {
        stateless_version(sess, msg);
    } else if (sess->phase == PHASE_NEW && jv_string_is(method, "initialize")) {
        sess->started = true; /* whatever came before, the session starts here */
        sess->client_capabilities =
            mcp_capabilities_of(jv_object_get(jv_object_get(msg, "params"), "capabilities"));
    }
}

void mcp_lifecycle_check(struct mcp_stream *s, struct session *sess, const struct fed *f,
                         const struct jv *msg, const struct jv *method, enum side side,
                         struct diag_sink *sink)
{
    if (!has_lifecycle(s, sess))
        return;
    switch (sess->phase) {
    case PHASE_NEW:
        check_new(sess, f, msg, method, side, sink);
        break;
    case PHASE_INITIALIZE:
    case PHASE_INITIALIZED:
        check_initializing(sess, f, msg, method, side, sink);
        break;
    case PHASE_OPERATION:
        break;
    }
}

/* A protocol version is a date, YYYY-MM-DD (MCP Versioning). */
static bool version_form(const struct jv *version)
{
    static const char form[] = "dddd-dd-dd";
    if (!jv_is_string(version) || jv_string_length(version) != strlen(form))
        return false;
    const char *v = jv_string_value(version);
    for (size_t i = 0; form[i]; i++)
        if (form[i] == 'd' ? !isdigit((unsigned char)v[i]) : v[i] != form[i])
            return false;
    return true;
}

/* The server's response to initialize: a result names the version of the session. */
static void initialize_answered(const struct fed *f, struct pending *p, const struct jv *msg,
                                struct diag_sink *sink)
{
    struct session *sess = p->session;
    const struct jv *result = jv_object_get(msg, "result");
    if (!result) {
        if (sess->phase == PHASE_INITIALIZE)
            sess->phase = PHASE_NEW; /* failed: the client may try again */
        return;
    }
    if (!version_form(jv_object_get(result, "protocolVersion"))) {
        struct diag_where at = f->m->at;
        at.related_file = p->file != at.file ? p->file : NULL;
        at.related_line = p->line;
        diag_emit(sink, &at, "mcp-version",
                  "the server's result to initialize names no protocol version (YYYY-MM-DD)");
    }
    if (sess->phase == PHASE_INITIALIZE)
        sess->phase = PHASE_INITIALIZED;
    sess->server_capabilities = mcp_capabilities_of(jv_object_get(result, "capabilities"));
    sess->capabilities_known = true;
}

/* A client of both eras probes with server/discover; a legacy server answers it with an error,
 * and the client falls back to initialize (MCP Transports, stdio, probing): the session is no
 * session of 2026-07-28 after all, and its lifecycle begins with that initialize. */
static void discover_answered(struct session *sess, const struct pending *p, const struct jv *msg)
{
    if (p->side != SIDE_CLIENT || !jv_object_get(msg, "error") ||
        !mcp_pending_method_is(p, "server/discover"))
        return;
    sess->stateless = false;
    sess->revision[0] = '\0';
}

void mcp_lifecycle_answered(struct mcp_stream *s, const struct fed *f, struct pending *p,
                            const struct jv *msg, struct diag_sink *sink)
{
    discover_answered(p->session, p, msg);
    if (p->initialize)
        initialize_answered(f, p, msg, sink);
    if (!p->cancelled_file)
        return;
    struct diag_where at = f->m->at;
    at.related_file = p->cancelled_file != at.file ? p->cancelled_file : NULL;
    at.related_line = p->cancelled_line;
    diag_emit(sink, &at, "mcp-after-cancel", "%s answers the request '%s' that was cancelled",
              sender_name(mcp_other_side(p->side)), mcp_method_shown(s, p));
}
