/* acp-send: composes a message from MEMBER=VALUE arguments (or completes each line of standard
 * input), checks it with acp-validate's rules, and sends it to stdout, a socket or a command;
 * with --wait, follows its conversation to the end and prints the replies as they come. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/escape.h"
#include "base/jsonout.h"
#include "engine/engine.h"
#include "io/command.h"
#include "io/transport.h"
#include "live/answers.h"
#include "live/opening.h"
#include "live/outgoing.h"
#include "live/peer.h"
#include "live/session.h"
#include "proto/compose.h"
#include "proto/dialect.h"
#include "proto/fipa.h"
#include "proto/idgen.h"
#include "tool/filter.h"

enum {
    OPT_STDIN = OPT_TOOL,
    OPT_ANSWER,
    OPT_CONNECT,
    OPT_EXEC,
    OPT_WAIT,
    OPT_ALL,
    OPT_TIMEOUT,
    OPT_IO_TIMEOUT,
    OPT_GRACE,
};

static const struct opt send_options[] = {
    {"stdin", OPT_STDIN, no_argument, NULL,
     "complete, check and send each line of stdin (a JSON object)"},
    {"answer", OPT_ANSWER, required_argument, "FILE",
     "compose the reply to the message in FILE (-: standard input)"},
    {"connect", OPT_CONNECT, required_argument, "ADDRESS",
     "send to tcp:HOST:PORT, tcp:[IPv6]:PORT or unix:PATH instead of stdout"},
    {"exec", OPT_EXEC, required_argument, "COMMAND",
     "start COMMAND (words split, no shell) and send to its stdin"},
    {"wait", OPT_WAIT, no_argument, NULL,
     "follow each conversation to its end; the replies go to stdout"},
    {"all", OPT_ALL, no_argument, NULL, "also write the peer's other messages, and our echo"},
    {"timeout", OPT_TIMEOUT, required_argument, "SECONDS",
     "longest --wait (default: the message's deadline, else 30)"},
    {"io-timeout", OPT_IO_TIMEOUT, required_argument, "SECONDS",
     "longest wait to connect, or for the peer to read (default 10)"},
    {"grace", OPT_GRACE, required_argument, "SECONDS",
     "time the peer has to finish once its input ends (default 2; with --wait, part of "
     "--timeout)"},
    {NULL, 0, 0, NULL, NULL},
};

/* When the message states no deadline in the future, --wait waits this long. */
static const double DEFAULT_TIMEOUT = 30;

enum { EXIT_TIMEOUT = 3 };

struct send {
    /* options */
    bool from_stdin;
    const char *answer_path;
    const char *connect;
    char **exec;
    bool wait, all;
    bool timeout_given;
    double timeout, io_timeout, grace;
    char **members;
    int nmembers;

    /* what every message starts from */
    const struct common_opts *opts;
    struct compose_reader reader;
    json_t *base;               /* the arguments' members over the reply --answer builds */
    enum protocol answer_proto; /* PROTO_NONE without --answer */
    bool answer_has_conversation;
    bool answer_several_receivers;

    /* the run */
    struct session session; /* its sink has the findings about the peer and the conversations */
    struct diag_sink quiet; /* the stream rules' findings on the replies: not ours to report */
    struct idgen *ids;
    json_int_t next_number;  /* the next fresh integer id (MCP's) */
    struct opening *opening; /* the session's opening, once a message of a dialect that has
                              * one is to go (MCP's lifecycle) */
    enum protocol opening_proto;
    struct check_rules rules; /* in_stream when the stream checks follow (--wait) */
    struct engine *engine;    /* --stdin: the script passes the stream rules too */
    const char *script_file;  /* where its lines come from, which the peer's share there */
    bool ended;
    /* The deadline of the last conversation awaited (monotonic), which the peer's grace period
     * does not outlast: --timeout bounds the whole wait. INFINITY when none is. */
    double wait_ends;
    unsigned long sent, succeeded, failed, timed_out;
    struct strbuf out;
};

/* --- options --- */

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct send *s = ctx;
    switch (key) {
    case OPT_STDIN:
        s->from_stdin = true;
        return true;
    case OPT_ANSWER:
        s->answer_path = arg;
        return *arg || options_bad_value("answer", "a file name, or - for standard input");
    case OPT_CONNECT:
        s->connect = arg;
        return peer_address_option(arg);
    case OPT_EXEC:
        return peer_command_option(&s->exec, arg);
    case OPT_WAIT:
        s->wait = true;
        return true;
    case OPT_ALL:
        s->all = true;
        return true;
    case OPT_TIMEOUT:
        s->timeout_given = true;
        return options_positive_duration(arg, &s->timeout) ||
               options_bad_value("timeout", "a number of seconds above 0");
    case OPT_IO_TIMEOUT:
        return options_positive_duration(arg, &s->io_timeout) ||
               options_bad_value("io-timeout", "a number of seconds above 0");
    case OPT_GRACE:
        return parse_duration(arg, &s->grace) || options_bad_value("grace", "a number of seconds");
    default:
        return false;
    }
}

static bool usage_ok(const struct send *s)
{
    bool peer = s->connect || s->exec;
    const char *problem = NULL;
    if (s->connect && s->exec)
        problem = "--connect and --exec exclude each other";
    else if (s->wait && !peer)
        problem = "--wait follows the conversation with a peer: it needs --connect or --exec";
    else if (s->all && !peer)
        problem = "--all shows what a peer sends back: it needs --connect or --exec";
    else if (s->timeout_given && !s->wait)
        problem = "--timeout is how long --wait waits: it goes with --wait";
    else if (s->from_stdin && s->answer_path && strcmp(s->answer_path, "-") == 0)
        problem = "--answer=- and --stdin would both read standard input";
    else if (!s->from_stdin && !s->answer_path && s->nmembers == 0)
        problem = "nothing to send: give MEMBER=VALUE arguments, --answer or --stdin";
    if (problem)
        options_usage_error("%s", problem);
    return !problem;
}

/* --- what every message starts from --- */

static bool read_answered(struct send *s, json_t **original)
{
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, s->answer_path, strlen(s->answer_path), 80);
    bool ok = compose_read_file(&s->reader, s->answer_path, &text, &err);
    if (!ok) {
        options_usage_error("--answer=%s: %s", shown.buf, err.buf);
    } else {
        json_error_t jerr;
        *original = json_loadb(text.buf ? text.buf : "", text.len,
                               JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (!*original) {
            struct strbuf why = STRBUF_INIT;
            escape_text(&why, jerr.text, strlen(jerr.text), 0);
            options_usage_error("--answer=%s: not JSON: %s", shown.buf, why.buf);
            sb_free(&why);
            ok = false;
        } else if (!json_is_object(*original)) {
            options_usage_error("--answer=%s: not a JSON object", shown.buf);
            json_decref(*original);
            *original = NULL;
            ok = false;
        }
    }
    sb_free(&text);
    sb_free(&err);
    sb_free(&shown);
    return ok;
}

/* The reply --answer asks for, as the members under the arguments'. */
static bool start_answer(struct send *s)
{
    json_t *original = NULL;
    if (!read_answered(s, &original))
        return false;
    json_t *reply = outgoing_reply_to(original, &s->answer_proto, &s->answer_several_receivers);
    s->answer_has_conversation = json_member_string(original, "conversation_id") != NULL;
    json_decref(original);
    if (!reply) {
        struct strbuf shown = STRBUF_INIT, why = STRBUF_INIT;
        escape_text(&shown, s->answer_path, strlen(s->answer_path), 80);
        for (const struct dialect *const *d = dialects; *d; d++) {
            sb_addf(&why, "%s%s message (no ", d == dialects ? "neither an " : " nor an ",
                    (*d)->display);
            dialect_add_marks(&why, *d);
            sb_addc(&why, ')');
        }
        options_usage_error("--answer=%s: %s", shown.buf, why.buf);
        sb_free(&shown);
        sb_free(&why);
        return false;
    }
    outgoing_merge(s->base, reply);
    json_decref(reply);
    return true;
}

static bool compose_base(struct send *s)
{
    struct compose_files files = {.read = compose_read_file, .ctx = &s->reader};
    struct strbuf err = STRBUF_INIT;
    s->base = json_object();
    for (int i = 0; i < s->nmembers; i++) {
        if (!compose_member(s->base, s->members[i], &files, &err)) {
            options_usage_error("%s", err.buf);
            sb_free(&err);
            return false;
        }
    }
    sb_free(&err);
    return !s->answer_path || start_answer(s);
}

/* --- the peer --- */

/* A line from the peer as a message; NULL with the reason when it is none. */
static const char *peer_message(const struct transport_line *line, json_t **msg,
                                enum protocol *proto)
{
    *msg = NULL;
    if (line->too_long)
        return "longer than --max-line-bytes";
    json_error_t err;
    json_t *v = json_loadb(line->text, line->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!v)
        return line->unterminated ? "cut short: the peer closed in the middle of it" : "not JSON";
    if (!json_is_object(v)) {
        json_decref(v);
        return "not a JSON object";
    }
    *proto = message_protocol(v, CHOOSE_AUTO);
    if (*proto == PROTO_NONE) {
        json_decref(v);
        return "neither IACP, FIPA nor MCP";
    }
    *msg = v;
    return NULL;
}

static void write_line(struct filter *f, const struct transport_line *line)
{
    filter_write(f, line->text, line->len);
    filter_write(f, "\n", 1);
}

/* The stream rules follow the replies too, and the session's opening, so that later lines of the
 * script are checked against what the peer said and what opened the session; what they find there
 * is not the script's business, not reported. */
static void follow_message(struct send *s, const json_t *msg, enum protocol proto)
{
    if (!s->engine)
        return;
    struct message m;
    message_init(&m, NULL, json_incref((json_t *)msg), (enum protocol_choice)proto);
    m.at = session_where(&s->session, s->session.lines);
    m.at.file = s->script_file; /* bare lines of one file are one MCP session */
    m.at.id = m.id;
    unsigned long before = s->quiet.errors;
    message_check(&m, &s->rules, &s->quiet);
    if (s->quiet.errors == before)
        engine_feed(s->engine, &m, &s->quiet);
    message_clear(&m);
}

static bool deliver(struct send *s, struct filter *f, const json_t *msg);

/* The client's own response to a request of the peer's (MCP's ping), written back to it. */
static void answer_peer(struct send *s, struct filter *f, const json_t *msg)
{
    json_t *response = opening_respond(s->opening, msg);
    if (response) {
        deliver(s, f, response);
        json_decref(response);
    }
}

/* One line from the peer: a reply to the conversation a follows (printed and taken), the echo of
 * ours, a response the session's opening awaited or an unrelated message (printed with --all),
 * or garbage (reported); a request of the peer's that the client answers itself is answered. */
static void handle_line(struct send *s, struct filter *f, struct answers *a,
                        const struct transport_line *line)
{
    if (line->len == 0 || (line->len == 1 && line->text[0] == '\r'))
        return;
    json_t *msg;
    enum protocol proto;
    const char *why = peer_message(line, &msg, &proto);
    if (why) {
        session_report_garbage(&s->session, line, why);
        return;
    }
    if (s->opening && proto == s->opening_proto) {
        if (opening_take(s->opening, msg)) {
            a = NULL; /* the opening's own: shown with --all */
            follow_message(s, msg, proto);
        } else
            answer_peer(s, f, msg);
    }
    enum answer_role role = a ? answers_classify(a, msg, proto) : ANSWER_UNRELATED;
    if (role == ANSWER_REPLY || s->all)
        write_line(f, line);
    if (role == ANSWER_REPLY) {
        follow_message(s, msg, proto);
        answers_take(a, msg, proto);
    }
    json_decref(msg);
}

/* The session's handler: a line the peer sent while no conversation was awaited. */
static void take_unawaited_line(void *ctx, struct filter *f, const struct transport_line *line,
                                double now)
{
    (void)now;
    handle_line(ctx, f, NULL, line);
}

/* Stops reading the input; the peer is given its grace period to say what it still has to. */
static void end_run(struct send *s, struct filter *f)
{
    if (s->ended)
        return;
    s->ended = true;
    filter_stop(f);
    filter_flush(f);
    session_close_by(&s->session, f, true, s->wait_ends);
}

/* The transport failed: say why, where (at the message whose conversation a was awaited, else at
 * the peer), and end the run. */
static void peer_failed(struct send *s, struct filter *f, enum transport_status st,
                        const struct diag_where *waiting, const struct answers *a)
{
    session_failed(&s->session, st, waiting, a ? answers_state(a) : NULL);
    end_run(s, f);
}

/* --- sending --- */

/* Writes the message to stdout or to the peer (connected at the first message); false when it
 * could not go (the run has ended). */
static bool deliver(struct send *s, struct filter *f, const json_t *msg)
{
    sb_reset(&s->out);
    jsonout_line(&s->out, msg);
    if (!s->connect && !s->exec) {
        filter_write(f, s->out.buf, s->out.len); /* flushed before the next read would block */
        return true;
    }
    if (!s->session.peer && !session_open(&s->session)) {
        end_run(s, f);
        return false;
    }
    enum transport_status st = session_write(&s->session, s->out.buf, s->out.len);
    if (st == TRANSPORT_INTERRUPTED)
        end_run(s, f);
    else if (st != TRANSPORT_OK)
        peer_failed(s, f, st, NULL, NULL);
    return st == TRANSPORT_OK;
}

/* Sends what the opening has to send, and takes the peer's lines, until it is done, failed, or
 * waits for a response; the deadline of that response: --io-timeout after its request went, and
 * never past limit. */
static double opening_step(struct send *s, struct filter *f, double deadline, double limit)
{
    bool took = true;
    while (took) { /* a response taken may be followed by the next message */
        json_t *next;
        while (!s->ended && (next = opening_next(s->opening))) {
            if (deliver(s, f, next))
                follow_message(s, next, s->opening_proto);
            json_decref(next);
            deadline = fmin(clock_monotonic() + s->io_timeout, limit);
        }
        struct transport_line line;
        took = false;
        while (!s->ended && opening_state(s->opening) == OPENING_UNDER_WAY &&
               session_line(&s->session, &line)) {
            handle_line(s, f, NULL, &line);
            took = true;
        }
    }
    filter_flush(f);
    return deadline;
}

/* With --wait, the opening took the whole of the time the conversation had (limit, of seconds). */
static void opening_timed_out(struct send *s, struct filter *f, const struct diag_where *at,
                              double seconds)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%.15g", round(seconds * 1000) / 1000);
    diag_emit(&s->session.sink, at, "send-timeout",
              "no final answer within %s s (the session's opening was %s)", secs,
              opening_why(s->opening));
    s->timed_out++;
    s->wait_ends = clock_monotonic(); /* nothing is awaited any more: no grace */
    end_run(s, f);
}

/* Goes through the opening of the session with the peer (MCP's lifecycle), before the first
 * message of its dialect goes, by the monotonic time limit (INFINITY: none; with --wait, the
 * conversation's deadline, of seconds); false when it failed (reported at, the run ended). */
static bool open_session(struct send *s, struct filter *f, const struct diag_where *at,
                         double limit, double seconds)
{
    double deadline = INFINITY;
    while (!s->ended && opening_state(s->opening) == OPENING_UNDER_WAY) {
        deadline = opening_step(s, f, deadline, limit);
        if (s->ended || opening_state(s->opening) != OPENING_UNDER_WAY)
            break;
        enum transport_status st = session_wait(&s->session, deadline);
        if (st == TRANSPORT_TIMEOUT && clock_monotonic() >= limit)
            opening_timed_out(s, f, at, seconds);
        else if (st == TRANSPORT_TIMEOUT)
            opening_expire(s->opening);
        else if (st == TRANSPORT_INTERRUPTED && filter_interrupted())
            end_run(s, f);
        else if (st != TRANSPORT_OK && st != TRANSPORT_INTERRUPTED) {
            session_failed(&s->session, st, at, opening_why(s->opening));
            end_run(s, f);
        }
    }
    if (opening_state(s->opening) == OPENING_FAILED) {
        diag_emit(&s->session.sink, at, "send-opening", "the session could not be opened: %s",
                  opening_why(s->opening));
        s->session.trouble = true;
        s->wait_ends = clock_monotonic();
        end_run(s, f);
    }
    return !s->ended && opening_state(s->opening) == OPENING_DONE;
}

/* The session's opening, for a message of proto: made at the first message of a dialect that has
 * one, and gone through with a peer before the message is completed (so that its fresh id comes
 * after the opening's). False when the run ended. */
static bool opened_for(struct send *s, struct filter *f, enum protocol proto,
                       const struct diag_where *at, double limit, double seconds)
{
    if (!s->opening) {
        struct opening_config oc = {.revision = s->opts->engine.mcp_revision,
                                    .next_number = &s->next_number,
                                    .client_name = "acp-send",
                                    .client_version = ACP_VERSION};
        s->opening = opening_new(proto, &oc);
        s->opening_proto = proto;
    }
    if (!s->opening || proto != s->opening_proto)
        return true;
    return !(s->connect || s->exec) || opening_state(s->opening) != OPENING_UNDER_WAY ||
           open_session(s, f, at, limit, seconds);
}

/* How long --wait waits: --timeout, else until the deadline the message states when that is
 * still to come, else 30 s. */
static double wait_for(const struct send *s, const json_t *msg, enum protocol proto, double now)
{
    double deadline;
    if (s->timeout_given)
        return s->timeout;
    if (answers_deadline(msg, proto, &deadline) && deadline > now)
        return deadline - now;
    return DEFAULT_TIMEOUT;
}

static void settle(struct send *s, const struct answers *a, const struct diag_where *at,
                   double seconds)
{
    char secs[32];
    switch (answers_outcome(a)) {
    case ANSWER_SUCCEEDED:
        s->succeeded++;
        break;
    case ANSWER_FAILED:
        s->failed++;
        diag_emit(&s->session.sink, at, "send-failed", "the conversation failed: %s",
                  answers_state(a));
        break;
    case ANSWER_TIMEOUT:
        s->timed_out++;
        snprintf(secs, sizeof secs, "%.15g", round(seconds * 1000) / 1000);
        diag_emit(&s->session.sink, at, "send-timeout", "no final answer within %s s (%s)", secs,
                  answers_state(a));
        break;
    case ANSWER_OPEN:
        break; /* the run ended while it was awaited */
    }
}

/* Reads the peer until the conversation msg opened is over, or the time is up: the time counted
 * from started (monotonic), when the session's opening began. */
static void await_end(struct send *s, struct filter *f, const json_t *msg, enum protocol proto,
                      const struct diag_where *at, double now, double started)
{
    struct answers *a = answers_new(msg, proto);
    s->wait_ends = INFINITY;
    if (!a) {
        s->succeeded++; /* it expects no answer: done once sent */
        return;
    }
    double seconds = wait_for(s, msg, proto, now);
    double deadline = started + seconds;
    s->wait_ends = deadline;
    while (!s->ended && answers_outcome(a) == ANSWER_OPEN) {
        struct transport_line line;
        while (answers_outcome(a) == ANSWER_OPEN && session_line(&s->session, &line))
            handle_line(s, f, a, &line);
        filter_flush(f);
        if (answers_outcome(a) != ANSWER_OPEN)
            break;
        enum transport_status st = session_wait(&s->session, deadline);
        if (st == TRANSPORT_TIMEOUT)
            answers_expire(a);
        else if (st == TRANSPORT_INTERRUPTED && filter_interrupted())
            end_run(s, f);
        else if (st != TRANSPORT_OK && st != TRANSPORT_INTERRUPTED)
            peer_failed(s, f, st, at, a);
    }
    settle(s, a, at, seconds);
    answers_free(a);
}

/* A Caxton reply needs a content as every Caxton message does, and --answer fills in all the
 * other members but that one: the user is told how to give it, where fipa_check would only say
 * that it is missing. */
static bool answer_lacks_content(const struct send *s, const struct message *m,
                                 struct diag_sink *sink)
{
    /* dialect: Caxton's rule, told in acp-send's words where fipa_check would say less */
    if (s->answer_proto != PROTO_FIPA || s->rules.fipa.profile == FIPA_PROFILE_STANDARD ||
        json_object_get(message_tree(m), "content"))
        return false;
    diag_emit(sink, &m->at, "fipa-missing",
              "missing required member 'content': a Caxton reply carries one too; give it as "
              "content:={} (an empty object), content=TEXT or content.KEY=VALUE");
    return true;
}

static void check(struct send *s, const struct message *m, struct diag_sink *sink)
{
    unsigned long before = sink->errors;
    if (answer_lacks_content(s, m, sink))
        return;
    message_check(m, &s->rules, sink);
    if (s->engine && sink->errors == before)
        engine_feed(s->engine, m, sink);
}

/* The protocol of what is to be sent, or PROTO_NONE after saying why there is none. */
static enum protocol settle_protocol(struct send *s, const struct message *m,
                                     struct diag_sink *sink)
{
    enum protocol proto = outgoing_protocol(message_tree(m));
    if (s->answer_proto != PROTO_NONE) {
        if (proto != PROTO_NONE && proto != s->answer_proto) {
            struct strbuf answered = STRBUF_INIT, given = STRBUF_INIT;
            dialect_add_marks(&answered, dialect_of(s->answer_proto));
            dialect_add_marks(&given, dialect_of(proto));
            diag_emit(sink, &m->at, "send-answer",
                      "the message answered is %s: its reply is %s too (%s), not %s (%s)",
                      dialect_of(s->answer_proto)->display, dialect_of(s->answer_proto)->display,
                      answered.buf, dialect_of(proto)->display, given.buf);
            sb_free(&answered);
            sb_free(&given);
            return PROTO_NONE;
        }
        proto = s->answer_proto;
        if (s->answer_several_receivers &&
            !dialect_member_of_tree(message_tree(m), dialect_of(proto)->sender_member)) {
            diag_emit(sink, &m->at, "send-answer",
                      "the message answered went to several receivers: say which one answers "
                      "with sender=NAME");
            return PROTO_NONE;
        }
    }
    if (proto == PROTO_NONE)
        dialect_no_protocol(m, sink);
    else if (s->wait && !answers_followed(proto)) {
        diag_emit(sink, &m->at, "send-not-followed",
                  "--wait cannot follow the replies of --protocol=%s", dialect_of(proto)->name);
        return PROTO_NONE;
    }
    return proto;
}

static enum verdict send_message(void *ctx, struct filter *f, struct message *m)
{
    struct send *s = ctx;
    if (s->ended) {
        filter_stop(f);
        return VERDICT_WRITTEN;
    }
    struct diag_sink *sink = filter_sink(f);
    if (s->from_stdin)
        outgoing_merge(message_tree(m), s->base);
    s->script_file = m->at.file;
    enum protocol proto = settle_protocol(s, m, sink);
    if (proto == PROTO_NONE)
        return VERDICT_WRITTEN;
    double now = s->opts->now_given ? (double)s->opts->now : clock_wall();
    double started = clock_monotonic();
    double seconds = wait_for(s, message_tree(m), proto, now);
    if (!opened_for(s, f, proto, &m->at, s->wait ? started + seconds : INFINITY, seconds)) {
        filter_stop(f);
        return VERDICT_WRITTEN;
    }
    struct outgoing_config oc = {
        .queen = s->opts->engine.queen, .ids = s->ids, .next_number = &s->next_number, .now = now};
    bool answering = s->answer_proto != PROTO_NONE;
    const char *reply_by =
        outgoing_complete(message_tree(m), proto, answering && !s->answer_has_conversation, &oc);
    if (reply_by) {
        diag_emit(sink, &m->at, "fipa-time",
                  "reply_by=%s falls past the year 9999, the last an RFC 3339 date-time can name",
                  reply_by);
        return VERDICT_WRITTEN;
    }
    if (s->opening && proto == s->opening_proto)
        opening_complete(s->opening, message_tree(m)); /* a modern MCP request's _meta */
    json_t *msg = outgoing_ordered(message_tree(m), proto);
    struct message out;
    message_init(&out, NULL, json_incref(msg), (enum protocol_choice)proto);
    out.rec = m->rec;
    out.at = m->at;
    out.at.id = out.id;
    unsigned long errors_before = sink->errors;
    check(s, &out, sink);
    if (sink->errors == errors_before && deliver(s, f, msg)) {
        s->sent++;
        if (s->wait)
            await_end(s, f, msg, proto, &out.at, now, started);
        else if (s->session.peer)
            session_take_lines(&s->session, f);
    }
    message_clear(&out);
    json_decref(msg);
    if (s->ended)
        filter_stop(f);
    return VERDICT_WRITTEN;
}

static void end_of_input(void *ctx, struct filter *f)
{
    end_run(ctx, f);
}

/* --- main --- */

static const char help_tail[] =
    "Each MEMBER=VALUE sets a member: KEY=TEXT a string, KEY:=JSON any JSON value,\n"
    "KEY=@FILE a file's text (one final newline dropped), KEY:=@FILE a JSON file\n"
    "(- is standard input), KEY[]=... appends to an array; KEY may be a dotted path\n"
    "(body.node). kind= makes an IACP message, performative= a FIPA one, method=\n"
    "an MCP request; v, from, id and ts, or reply_with, conversation_id and\n"
    "timestamp, or jsonrpc and id are filled in, and reply_by=+30s counts from now.\n"
    "The message is checked before it leaves. To an MCP server, the session is\n"
    "opened first (server/discover, else initialize; --mcp-revision=REV skips the\n"
    "probe).\n";

static const char exit_status[] =
    "Exit status: 0 if the message went (with --wait: the conversation succeeded),\n"
    "1 if it was invalid, or refused, rejected or failed (an MCP error response),\n"
    "2 on a usage error or when the peer cannot be reached, goes away or its MCP\n"
    "session cannot be opened, 3 when no final answer came in time, 130 when\n"
    "interrupted.\n";

static void print_stats(const struct send *s)
{
    if (s->opts->diagnostics == DIAG_JSON)
        fprintf(stderr,
                "{\"type\":\"send\",\"sent\":%lu,\"succeeded\":%lu,\"failed\":%lu,"
                "\"timed_out\":%lu}\n",
                s->sent, s->succeeded, s->failed, s->timed_out);
    else if (s->wait)
        fprintf(stderr, "%s: %lu sent; %lu succeeded, %lu failed, %lu timed out\n", util_progname(),
                s->sent, s->succeeded, s->failed, s->timed_out);
    else
        fprintf(stderr, "%s: %lu sent\n", util_progname(), s->sent);
}

static void send_free(struct send *s)
{
    command_free(s->exec);
    json_decref(s->base);
    idgen_free(s->ids);
    engine_free(s->engine);
    opening_free(s->opening);
    sb_free(&s->out);
    session_free(&s->session);
    diag_sink_free(&s->quiet);
}

/* The session with the peer (opened at the first message), and the quiet sink. */
static void init_session(struct send *s, const struct common_opts *opts)
{
    const struct session_config sc = {.address = s->connect,
                                      .command = s->exec,
                                      .io_timeout = s->io_timeout,
                                      .grace = s->grace,
                                      .flush_each_batch = true, /* replies go out as they come */
                                      .converses = s->wait,
                                      .on_line = take_unawaited_line,
                                      .ctx = s};
    session_init(&s->session, &sc, opts);
    diag_sink_init(&s->quiet, stderr);
    s->quiet.quiet = true;
}

/* The composed arguments as the one record the filter reads. */
static int run_arguments(struct send *s, const struct filter_config *cfg,
                         const struct filter_ops *ops)
{
    struct strbuf text = STRBUF_INIT;
    jsonout_line(&text, s->base);
    text.buf[--text.len] = '\0';
    int status = filter_run_text(cfg, ops, "<arguments>", text.buf, text.len);
    sb_free(&text);
    return status;
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-send");
    struct send s = {
        .timeout = DEFAULT_TIMEOUT, .io_timeout = 10, .grace = 2, .wait_ends = INFINITY};
    const struct tool_spec spec = {
        .name = "acp-send",
        .usage = "[OPTION]... MEMBER=VALUE...",
        .summary =
            "Compose an IACP, FIPA or MCP message from its members, check it, and send it to\n"
            "stdout, a socket or a command; with --wait, follow its conversation to the end.",
        .options = send_options,
        .groups = GROUP_CHECKS | GROUP_ENGINE | GROUP_FIPA | GROUP_CLOCK,
        .help_tail = help_tail,
        .exit_status = exit_status,
        .handle = handle_option,
        .ctx = &s,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    s.members = argv + (first > 0 ? first : argc);
    s.nmembers = first > 0 ? argc - first : 0;
    s.opts = &opts;
    s.reader = (struct compose_reader){.max_bytes = opts.max_line_bytes,
                                       .stdin_taken = s.from_stdin ? "--stdin" : NULL};
    if (first < 0 || !usage_ok(&s) || !compose_base(&s)) {
        send_free(&s);
        options_free(&opts);
        return 2;
    }
    init_session(&s, &opts);
    struct idgen_config ic = {.seed = opts.seed_given ? opts.seed : idgen_random_seed(),
                              .keep_for = opts.engine.idle_timeout,
                              .max_ids = opts.engine.max_open};
    s.ids = idgen_new(&ic);
    s.rules = (struct check_rules){.iacp = {.queen = opts.engine.queen},
                                   .fipa = {.profile = opts.engine.fipa_profile}};
    if (s.from_stdin)
        s.engine = engine_new(&opts.engine, NULL, NULL);
    s.rules.in_stream = s.engine != NULL;
    const struct filter_config cfg = {.opts = &opts, .protocol = CHOOSE_AUTO, .mode = READ_JSON};
    const struct filter_ops ops = {
        .message = send_message, .end_of_input = end_of_input, .ctx = &s};
    int status = s.from_stdin ? filter_run(&cfg, &ops, NULL, 0) : run_arguments(&s, &cfg, &ops);
    /* The run stopped while reading (Ctrl-C, --max-errors): the peer is ended all the same. */
    session_close(&s.session, NULL, false);
    if (opts.stats && !opts.quiet)
        print_stats(&s);
    if (status != 130) {
        if (status == 2 || s.session.trouble)
            status = 2;
        else if (s.timed_out)
            status = EXIT_TIMEOUT;
        else if (status == 1 || s.failed)
            status = 1;
    }
    send_free(&s);
    options_free(&opts);
    return status;
}
