/* What acp-trace tells of MCP: each request is a conversation, with its response, its progress
 * and its cancellation, named SESSION/ID, or SESSION/server/ID for a request of the server (both
 * sides count their ids from 0), SESSION being the capture's session or the file of bare lines,
 * its '%' and '/' escaped as IACP's agents are.
 * Its summary says its method and what it names (a tool, a prompt, a resource), the latency of
 * its response, and how it ended: done, failed (with the error's code), cancelled, unanswered
 * (its session ended first), open (the input did), evicted (past --max-open) or reused (its
 * sender used its id again). Only an engine made with a callback keeps any of it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyform.h"
#include "base/timeutil.h"
#include "diag/findings.h"
#include "engine/mcp_stream_parts.h"
#include "proto/message.h"

struct story {
    char *conversation;
    char *subject; /* the tool, prompt or resource its request names; NULL: none */
    unsigned long messages;
    const char *last_file;
    unsigned long last_line;
    double last_time;
    struct findings *findings;
};

/* A name of the input as a story keeps it: its first KEY_SHOWN_BYTES at most. */
static void add_bounded(struct strbuf *sb, const char *text, size_t len)
{
    sb_add(sb, text, key_shown_len(text, len));
}

/* The name of f's session, in session: the capture's, or the file's. A connection within a
 * session (mcpsnoop's HTTP) is not in it: --follow=SESSION takes them all. */
static void session_name(const struct fed *f, struct strbuf *session)
{
    const char *of = message_session(f->m);
    if (of)
        add_bounded(session, of, strlen(of));
    else
        sb_adds(session, f->m->at.file ? f->m->at.file : "-");
}

/* The name of the conversation of p, which f's message opened with id. */
static char *conversation_name(const struct fed *f, const struct pending *p, const struct jv *id)
{
    struct strbuf session = STRBUF_INIT, request = STRBUF_INIT, name = STRBUF_INIT;
    session_name(f, &session);
    if (p->side == SIDE_SERVER)
        sb_adds(&request, "server/");
    if (jv_is_string(id)) {
        add_bounded(&request, jv_string_value(id), jv_string_length(id));
    } else {
        char digits[24];
        int n = snprintf(digits, sizeof digits, "%lld", (long long)jv_integer_value(id));
        sb_add(&request, digits, (size_t)n);
    }
    char *kept = xstrdup(message_conversation_id(&name, session.buf, request.buf));
    sb_free(&session);
    sb_free(&request);
    sb_free(&name);
    return kept;
}

/* What a request names: the tool it calls, the prompt it gets, the resource it reads. */
static char *subject_of(const struct pending *p, const struct jv *msg)
{
    static const char *const named[][2] = {
        {"tools/call", "name"},         {"prompts/get", "name"},          {"resources/read", "uri"},
        {"resources/subscribe", "uri"}, {"resources/unsubscribe", "uri"},
    };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        if (!mcp_pending_method_is(p, named[i][0]))
            continue;
        const struct jv *v = jv_object_get(jv_object_get(msg, "params"), named[i][1]);
        if (!jv_is_string(v))
            return NULL;
        struct strbuf sb = STRBUF_INIT;
        add_bounded(&sb, jv_string_value(v), jv_string_length(v));
        return sb_detach(&sb);
    }
    return NULL;
}

/* The message being fed is one of p's: feed returns its conversation's name. */
static void name_fed(struct mcp_stream *s, const struct story *st)
{
    sb_reset(&s->named);
    sb_adds(&s->named, st->conversation);
    s->has_named = true;
}

static void take_message(struct mcp_stream *s, const struct fed *f, struct story *st)
{
    st->messages++;
    st->last_file = mcp_file_copy(s, f->m->at.file);
    st->last_line = f->m->at.line;
    st->last_time = f->m->capture.time;
    findings_move(&st->findings, &s->held);
    name_fed(s, st);
}

void mcp_story_open(struct mcp_stream *s, const struct fed *f, struct pending *p,
                    const struct jv *msg, const struct jv *id)
{
    if (!s->done)
        return;
    struct story *st = xcalloc(1, sizeof *st);
    st->conversation = conversation_name(f, p, id);
    st->subject = subject_of(p, msg);
    p->story = st;
    take_message(s, f, st);
}

void mcp_story_add(struct mcp_stream *s, const struct fed *f, struct pending *p)
{
    if (p && p->story)
        take_message(s, f, p->story);
}

static const char *side_name(enum side side)
{
    switch (side) {
    case SIDE_CLIENT:
        return "client";
    case SIDE_SERVER:
        return "server";
    case SIDE_UNKNOWN:
        break;
    }
    return NULL;
}

void mcp_story_end(struct mcp_stream *s, struct pending *p, const char *outcome,
                   const struct jv *response, const struct fed *f)
{
    struct story *st = p->story;
    if (!st)
        return;
    if (f)
        take_message(s, f, st);
    const struct jv *error = jv_object_get(response, "error");
    const struct jv *code = jv_object_get(error, "code");
    const char *asker = side_name(p->side), *answerer = side_name(mcp_other_side(p->side));
    const char *participants[2] = {asker ? asker : "client", answerer ? answerer : "server"};
    const char *method = mcp_method_shown(s, p);
    struct conversation_summary summary = {
        .proto = PROTO_MCP,
        .id = st->conversation,
        .conversation = st->conversation,
        .protocol = "mcp",
        .initiator = asker,
        .participants = participants,
        .nparticipants = 2,
        .outcome = outcome,
        .cancelled = p->cancelled_file != NULL,
        .messages = st->messages,
        .first_file = p->file,
        .first_line = p->line,
        .last_file = st->last_file,
        .last_line = st->last_line,
        .started = p->sent,
        .ended = st->last_time,
        .latency = {{
            .name = "response",
            .request = method,
            .reply = response ? (error ? "error" : "result") : NULL,
            .agent = response ? answerer : NULL,
            .seconds = response ? time_elapsed(st->last_time, p->sent) : NAN,
        }},
        .nlatency = 1,
        .method = method,
        .subject = st->subject,
        .has_error_code = jv_is_integer(code),
        .error_code = jv_is_integer(code) ? (long long)jv_integer_value(code) : 0,
        .findings = st->findings,
    };
    s->done(s->done_ctx, &summary);
}

void mcp_story_note(struct mcp_stream *s, const struct diag_finding *finding)
{
    if (s->blame && s->blame->story)
        findings_add(&s->blame->story->findings, finding);
    else if (!s->blame && s->feeding)
        findings_add(&s->held, finding); /* the message's own, until its request is known */
}

void mcp_story_free(struct pending *p)
{
    struct story *st = p->story;
    if (!st)
        return;
    free(st->conversation);
    free(st->subject);
    findings_free(st->findings);
    free(st);
    p->story = NULL;
}
