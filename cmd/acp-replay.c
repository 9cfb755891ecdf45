/* acp-replay: replays a capture with its recorded timing, to stdout, a socket or a child; or
 * drives a live agent with a recording and compares its replies with the recorded ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/jsonout.h"
#include "base/timeutil.h"
#include "io/command.h"
#include "io/transport.h"
#include "live/agentcheck.h"
#include "live/mockserver.h"
#include "live/peer.h"
#include "live/session.h"
#include "proto/dialect.h"
#include "proto/idrewrite.h"
#include "proto/schedule.h"
#include "tool/filter.h"

enum {
    OPT_SPEED = OPT_TOOL,
    OPT_TOPSPEED,
    OPT_RATE,
    OPT_BURST,
    OPT_LOOP,
    OPT_LIMIT,
    OPT_DURATION,
    OPT_MAX_GAP,
    OPT_START,
    OPT_REWRITE_TS,
    OPT_REWRITE_IDS,
    OPT_CONNECT,
    OPT_EXEC,
    OPT_ALL,
    OPT_AS,
    OPT_TIMED,
    OPT_REPLY_TIMEOUT,
    OPT_COMPARE,
    OPT_IO_TIMEOUT,
    OPT_GRACE,
    OPT_SERVE,
};

static const struct opt replay_options[] = {
    {"speed", OPT_SPEED, required_argument, "X",
     "replay X times as fast as recorded (default 1; 0.5 is half speed)"},
    {"topspeed", OPT_TOPSPEED, no_argument, NULL,
     "send every message at once, as fast as possible"},
    {"rate", OPT_RATE, required_argument, "N", "send N messages per second, whatever their times"},
    {"burst", OPT_BURST, no_argument, NULL,
     "send IACP messages that share a second together, not spread over it"},
    {"loop", OPT_LOOP, required_argument, "N",
     "replay the files N times (0: for ever); not with standard input"},
    {"limit", OPT_LIMIT, required_argument, "N", "stop after sending N messages"},
    {"duration", OPT_DURATION, required_argument, "SECONDS", "stop after SECONDS of replay"},
    {"max-gap", OPT_MAX_GAP, required_argument, "SECONDS",
     "shorten every longer idle gap of the capture to SECONDS"},
    {"start", OPT_START, required_argument, "SECONDS",
     "skip the first SECONDS of capture time of each loop"},
    {"rewrite-ts", OPT_REWRITE_TS, no_argument, NULL,
     "stamp each message with the time it is sent (ts, timestamp)"},
    {"rewrite-ids", OPT_REWRITE_IDS, no_argument, NULL,
     "fresh ids in every message and loop, references rewritten to match"},
    {"connect", OPT_CONNECT, required_argument, "ADDRESS",
     "send to tcp:HOST:PORT, tcp:[IPv6]:PORT or unix:PATH instead of stdout"},
    {"exec", OPT_EXEC, required_argument, "COMMAND",
     "start COMMAND (words split, no shell) and send to its stdin"},
    {"all", OPT_ALL, no_argument, NULL, "write to stdout what the peer or agent sends back"},
    {"as", OPT_AS, required_argument, "AGENT",
     "test the live agent AGENT (--exec or --connect) against the recording"},
    {"timed", OPT_TIMED, no_argument, NULL, "with --as: keep the recorded timing, not lockstep"},
    {"reply-timeout", OPT_REPLY_TIMEOUT, required_argument, "SECONDS",
     "with --as: the least time a reply may take (default 5)"},
    {"compare", OPT_COMPARE, required_argument, "FIELD,...",
     "with --as: fields compared too (default body.status,content.status)"},
    {"io-timeout", OPT_IO_TIMEOUT, required_argument, "SECONDS",
     "longest wait to connect, or for the peer to read (default 10)"},
    {"grace", OPT_GRACE, required_argument, "SECONDS",
     "time the peer has to finish once its input ends (default 2)"},
    {"serve", OPT_SERVE, required_argument, "ROLE",
     "be the recording's server to a live MCP client on stdin and stdout (ROLE: server)"},
    {NULL, 0, 0, NULL, NULL},
};

/* A run of IACP messages with the same whole-second ts is spread evenly over that second, so
 * the run must be known whole before its first message goes: it is held here, up to a bound. */
enum { MAX_RUN = 10000, MAX_RUN_BYTES = 64 * 1024 * 1024 };

struct held {
    json_t *root; /* its tree, where a rewrite or the live agent's check needs one; else NULL */
    char *raw;    /* the record as it came */
    size_t len;
    enum protocol proto;
    struct diag_where at;
};

struct run {
    struct held *items;
    size_t count, cap, bytes;
    double second;
    bool overflowed; /* this second outgrew the look-ahead: the rest goes as with --burst */
};

struct status {
    bool on;
    bool shares_terminal; /* stdout is the same terminal: clear the line before writing there */
    bool drawn;
    double next;
    double last_time;
    unsigned long last_sent;
    double rate;
};

struct replay {
    /* options */
    struct schedule_config pace;
    int paces_given;
    bool speed_given;
    bool burst;
    bool loop_given;
    unsigned long loops; /* passes over the files; 0: for ever */
    unsigned long limit;
    double duration, start;
    bool rewrite_ts, rewrite_ids;
    const char *connect;
    char **exec;
    bool all;
    const char *agent;
    bool timed, reply_timeout_given, compare_given;
    double reply_timeout;
    char **compare;
    size_t ncompare;
    double io_timeout, grace;
    bool serve; /* --serve=server */

    /* the run */
    const struct common_opts *opts;
    /* its sink has the findings about the peer or agent, not about an input record */
    struct session session;
    struct schedule sched;
    struct idrewrite *ids;
    struct agentcheck *check;
    struct mockserver *mock; /* --serve */
    bool serving;            /* it reads the live client, the recording read */
    struct run run;
    bool skipping_start; /* before --start's point in this loop */
    unsigned long pass_messages;
    unsigned long sent;
    double first_sent, last_sent; /* monotonic */
    double mono_base, wall_base;  /* for --rewrite-ts */
    double behind;                /* lateness of the last message */
    bool ended, finished;
    struct lateness late;
    struct status status;
    struct strbuf out;
    struct strbuf own; /* the message a capture's record holds, as it goes to the agent */
};

/* --- options --- */

static bool positive(const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v > 0) || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool split_compare(struct replay *r, const char *arg)
{
    for (size_t i = 0; i < r->ncompare; i++)
        free(r->compare[i]);
    r->ncompare = 0;
    const char *p = arg;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len) {
            r->compare = xrealloc(r->compare, (r->ncompare + 1) * sizeof *r->compare);
            r->compare[r->ncompare++] = xstrndup(p, len);
        }
        p += len + (p[len] == ',');
    }
    r->compare_given = true;
    return true;
}

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct replay *r = ctx;
    switch (key) {
    case OPT_SPEED:
        r->paces_given += !r->speed_given;
        r->speed_given = true;
        return positive(arg, &r->pace.speed) || options_bad_value("speed", "a number above 0");
    case OPT_TOPSPEED:
        r->paces_given += r->pace.pace != PACE_TOPSPEED;
        r->pace.pace = PACE_TOPSPEED;
        return true;
    case OPT_RATE:
        r->paces_given += r->pace.pace != PACE_RATE;
        r->pace.pace = PACE_RATE;
        return positive(arg, &r->pace.rate) || options_bad_value("rate", "a number above 0");
    case OPT_BURST:
        r->burst = true;
        return true;
    case OPT_LOOP:
        r->loop_given = true;
        return parse_ulong(arg, &r->loops) ||
               options_bad_value("loop", "a whole number (0: for ever)");
    case OPT_LIMIT:
        return (parse_ulong(arg, &r->limit) && r->limit > 0) ||
               options_bad_value("limit", "a whole number above 0");
    case OPT_DURATION:
        return options_positive_duration(arg, &r->duration) ||
               options_bad_value("duration", "a number of seconds above 0");
    case OPT_MAX_GAP:
        return parse_duration(arg, &r->pace.max_gap) ||
               options_bad_value("max-gap", "a number of seconds");
    case OPT_START:
        return parse_duration(arg, &r->start) || options_bad_value("start", "a number of seconds");
    case OPT_REWRITE_TS:
        r->rewrite_ts = true;
        return true;
    case OPT_REWRITE_IDS:
        r->rewrite_ids = true;
        return true;
    case OPT_CONNECT:
        r->connect = arg;
        return peer_address_option(arg);
    case OPT_EXEC:
        return peer_command_option(&r->exec, arg);
    case OPT_ALL:
        r->all = true;
        return true;
    case OPT_AS:
        r->agent = arg;
        return *arg || options_bad_value("as", "an agent name");
    case OPT_TIMED:
        r->timed = true;
        return true;
    case OPT_REPLY_TIMEOUT:
        r->reply_timeout_given = true;
        return parse_duration(arg, &r->reply_timeout) ||
               options_bad_value("reply-timeout", "a number of seconds");
    case OPT_COMPARE:
        return split_compare(r, arg);
    case OPT_IO_TIMEOUT:
        return options_positive_duration(arg, &r->io_timeout) ||
               options_bad_value("io-timeout", "a number of seconds above 0");
    case OPT_GRACE:
        return parse_duration(arg, &r->grace) || options_bad_value("grace", "a number of seconds");
    case OPT_SERVE:
        r->serve = true;
        return strcmp(arg, "server") == 0 ||
               options_bad_value("serve", "server (a recording's client is tested with --as)");
    default:
        return false;
    }
}

static bool reads_stdin(char **files, int nfiles)
{
    if (nfiles == 0)
        return true;
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i], "-") == 0)
            return true;
    return false;
}

static bool usage_ok(const struct replay *r, char **files, int nfiles)
{
    const char *problem = NULL;
    if (r->serve && (r->agent || r->connect || r->exec || r->all))
        problem = "--serve answers the client that started acp-replay, on its standard input and "
                  "output: not with --as, --connect, --exec or --all";
    else if (r->serve && (r->paces_given || r->loop_given || r->limit || r->duration > 0 ||
                          r->start > 0 || r->rewrite_ts || r->rewrite_ids || r->burst))
        problem = "--serve answers each request as it comes: the pace and the rewriting of a "
                  "replay do not apply";
    else if (r->serve && reads_stdin(files, nfiles))
        problem = "--serve reads the live client on standard input: name the recording's files";
    else if (r->paces_given > 1)
        problem = "--speed, --topspeed and --rate exclude each other";
    else if (r->loop_given && reads_stdin(files, nfiles))
        problem = "--loop reads the files again, which standard input cannot be: name files";
    else if (r->connect && r->exec)
        problem = "--connect and --exec exclude each other";
    else if (r->all && !r->connect && !r->exec)
        problem = "--all shows what a peer sends back: it needs --connect or --exec";
    else if (r->agent && !r->connect && !r->exec)
        problem = "--as tests a live agent: it needs --exec=COMMAND or --connect=ADDRESS";
    else if (!r->agent && (r->timed || r->reply_timeout_given || r->compare_given))
        problem = "--timed, --reply-timeout and --compare go with --as=AGENT";
    else if (r->agent && !r->timed && r->paces_given)
        problem = "the live-agent mode runs in lockstep: --speed, --topspeed and --rate need "
                  "--timed";
    if (problem)
        options_usage_error("%s", problem);
    return !problem;
}

/* --- the status line and the statistics --- */

static void status_clear(struct replay *r)
{
    if (r->status.drawn)
        (void)fputs("\r\033[K", stderr);
    r->status.drawn = false;
}

static void status_draw(struct replay *r, struct filter *f, double now)
{
    struct status *s = &r->status;
    if (!s->on || now < s->next)
        return;
    if (s->shares_terminal)
        filter_flush(f); /* the messages first, the status line under them */
    if (now > s->last_time && s->last_time > 0)
        s->rate = (double)(r->sent - s->last_sent) / (now - s->last_time);
    s->last_time = now;
    s->last_sent = r->sent;
    s->next = now + 0.25;
    fprintf(stderr, "\r\033[K%s: %lu sent", util_progname(), r->sent);
    if (r->check) {
        struct agentcheck_counts c = agentcheck_counts(r->check);
        fprintf(stderr, ", %lu of %lu replies matched, %lu differences", c.matched, c.expected,
                c.differences);
    } else if (r->pace.pace != PACE_TOPSPEED) {
        fprintf(stderr, ", %.1f ms behind schedule", r->behind * 1000);
    }
    fprintf(stderr, ", %.0f msg/s", s->rate);
    (void)fflush(stderr); /* a line without its end: stderr is buffered */
    s->drawn = true;
}

/* A time the clock measured, to the microsecond it is good to: 0, not 0.000000. */
static void put_measured(struct jsonout *w, const char *key, double seconds)
{
    jsonout_key(w, key);
    jsonout_number(w, round(seconds * 1e6) / 1e6);
}

static void put_count(struct jsonout *w, const char *key, unsigned long n)
{
    jsonout_key(w, key);
    jsonout_integer(w, (json_int_t)n);
}

static void print_stats_json(const struct replay *r, double elapsed, bool timed,
                             const struct agentcheck_counts *c)
{
    struct strbuf sb = STRBUF_INIT;
    struct jsonout w;
    jsonout_init(&w, &sb, 0);
    jsonout_begin_object(&w);
    jsonout_key(&w, "type");
    jsonout_string(&w, "replay", 6);
    put_count(&w, "sent", r->sent);
    put_measured(&w, "seconds", elapsed);
    if (timed) {
        jsonout_key(&w, "lateness");
        jsonout_begin_object(&w);
        put_measured(&w, "median", lateness_quantile(&r->late, 0.5));
        put_measured(&w, "p99", lateness_quantile(&r->late, 0.99));
        put_measured(&w, "max", r->late.max);
        jsonout_end_object(&w);
    }
    if (r->check) {
        put_count(&w, "expected", c->expected);
        put_count(&w, "matched", c->matched);
        put_count(&w, "differences", c->differences);
    }
    jsonout_end_object(&w);
    sb_addc(&sb, '\n');
    (void)fwrite(sb.buf, 1, sb.len, stderr);
    sb_free(&sb);
}

static void print_stats(const struct replay *r)
{
    double elapsed = r->sent ? r->last_sent - r->first_sent : 0;
    double rate = elapsed > 0 ? (double)(r->sent - 1) / elapsed : 0;
    bool timed = r->pace.pace != PACE_TOPSPEED && !(r->check && !r->timed);
    const struct lateness *l = &r->late;
    struct agentcheck_counts c =
        r->check ? agentcheck_counts(r->check) : (struct agentcheck_counts){0};
    if (r->opts->diagnostics == DIAG_JSON) {
        print_stats_json(r, elapsed, timed, &c);
        return;
    }
    fprintf(stderr, "%s: %lu sent in %.3f s (%.0f msg/s)", util_progname(), r->sent, elapsed, rate);
    if (timed)
        fprintf(stderr, "; late against the schedule: median %.3f ms, p99 %.3f ms, max %.3f ms",
                lateness_quantile(l, 0.5) * 1000, lateness_quantile(l, 0.99) * 1000, l->max * 1000);
    if (r->check)
        fprintf(stderr, "; %lu replies expected, %lu matched, %lu differences", c.expected,
                c.matched, c.differences);
    (void)fputc('\n', stderr);
}

/* --- the peer --- */

static void end_run(struct replay *r, struct filter *f);

/* The live agent failed: the check says so in its own words, and counts it against the agent. */
static void agent_failed(struct replay *r, enum transport_status st)
{
    if (st == TRANSPORT_STALLED) {
        agentcheck_stalled(r->check, r->io_timeout, &r->session.sink);
        return;
    }
    struct strbuf how = STRBUF_INIT;
    session_describe_failure(&r->session, st, &how);
    agentcheck_gone(r->check, how.buf, &r->session.sink);
    sb_free(&how);
}

/* A transport error other than the peer's going away or stalling: acp-replay's own words, not
 * acp-send's ("the peer failed: ..."), which session_failed uses. */
static void connection_error(struct replay *r, enum transport_status st)
{
    struct strbuf how = STRBUF_INIT;
    struct diag_where at = session_where(&r->session, 0);
    session_describe_failure(&r->session, st, &how);
    diag_emit(&r->session.sink, &at, "peer-closed", "connection error: %s, after %lu messages",
              how.buf, r->session.sent);
    r->session.trouble = true;
    sb_free(&how);
}

/* The transport failed: say why and end the run. */
static void peer_failed(struct replay *r, struct filter *f, enum transport_status st)
{
    if (r->check) {
        agent_failed(r, st);
    } else {
        status_clear(r);
        if (st == TRANSPORT_STALLED || st == TRANSPORT_CLOSED)
            session_failed(&r->session, st, NULL, NULL);
        else
            connection_error(r, st);
    }
    end_run(r, f);
}

/* A last line the peer closed in the middle of: not a whole JSON value (a whole one, whose
 * newline alone is missing, is a message, as acp-send takes it). Written as a line, it would
 * pass for one. */
static bool cut_short(const struct transport_line *line)
{
    if (!line->unterminated)
        return false;
    json_error_t err;
    json_t *v = json_loadb(line->text, line->len, JSON_DECODE_ANY, &err);
    json_decref(v);
    return v == NULL;
}

/* The session's handler: shown with --all, compared with the recording with --as. */
static void handle_peer_line(void *ctx, struct filter *f, const struct transport_line *line,
                             double now)
{
    struct replay *r = ctx;
    if (r->all && cut_short(line)) {
        status_clear(r);
        session_report_garbage(&r->session, line, "cut short: the peer closed in the middle of it");
    } else if (r->all) {
        if (r->status.shares_terminal)
            status_clear(r);
        filter_write(f, line->text, line->len);
        filter_write(f, "\n", 1);
    }
    if (r->check) {
        status_clear(r);
        agentcheck_live(r->check, line, now, &r->session.sink);
    }
}

/* --- waiting --- */

/* Waits until the monotonic clock reads due (or, with until_settled, until no reply is awaited
 * any more), reading the peer meanwhile. False when the run must end instead. */
static bool wait_until(struct replay *r, struct filter *f, double due, bool until_settled)
{
    for (;;) {
        double now = clock_monotonic();
        if (r->check) {
            if (agentcheck_next_deadline(r->check) <= now)
                status_clear(r);
            agentcheck_expire(r->check, now, &r->session.sink);
            if (agentcheck_broken(r->check)) {
                end_run(r, f);
                return false;
            }
            if (until_settled && !agentcheck_waiting(r->check))
                return true;
        }
        if (!until_settled && now >= due)
            return true;
        filter_flush(f);
        status_draw(r, f, now);
        double until = until_settled ? INFINITY : due;
        if (r->check && agentcheck_next_deadline(r->check) < until)
            until = agentcheck_next_deadline(r->check);
        if (r->status.on && r->status.next < until)
            until = r->status.next;
        if (session_listening(&r->session)) {
            enum transport_status st = session_wait(&r->session, until);
            /* Without --as, a peer that says no more may still read what we send. */
            bool only_quiet = st == TRANSPORT_CLOSED && !r->check;
            if (st == TRANSPORT_OK) {
                session_take_lines(&r->session, f);
            } else if (!only_quiet && st != TRANSPORT_TIMEOUT && st != TRANSPORT_INTERRUPTED) {
                peer_failed(r, f, st);
                return false;
            }
        } else if (isfinite(until)) {
            clock_sleep_until(until);
        } else {
            return true; /* nothing can come: a settled wait without a peer */
        }
        if (filter_interrupted()) {
            end_run(r, f);
            return false;
        }
    }
}

/* --- sending --- */

static void set_send_time(struct replay *r, json_t *msg, enum protocol proto, double now)
{
    const struct dialect *d = dialect_of(proto);
    if (d)
        d->set_time(msg, r->wall_base + (now - r->mono_base));
}

/* Whether a message is sent otherwise than as it came, or checked against the live agent: read
 * as a tree. Otherwise its text goes as it is, and no tree is made. */
static bool needs_tree(const struct replay *r)
{
    return r->rewrite_ts || r->rewrite_ids || r->check;
}

/* The text of a message as it goes out: as it came, or rewritten (ids, time). */
static void prepare(struct replay *r, const struct held *m, double now, json_t **sent)
{
    sb_reset(&r->out);
    *sent = NULL;
    if (!needs_tree(r)) {
        sb_add(&r->out, m->raw, m->len);
        sb_addc(&r->out, '\n');
        return;
    }
    json_t *copy = json_deep_copy(m->root);
    if (!copy)
        die_oom();
    bool changed = idrewrite_message(r->ids, copy, m->proto, r->rewrite_ids);
    if (r->rewrite_ts) {
        set_send_time(r, copy, m->proto, now);
        changed = true;
    }
    if (changed) {
        jsonout_line(&r->out, copy); /* numbers keep their text, members their order */
    } else {
        sb_add(&r->out, m->raw, m->len);
        sb_addc(&r->out, '\n');
    }
    *sent = copy;
}

/* Writes the prepared text; false when it could not be (the run has ended). */
static bool deliver(struct replay *r, struct filter *f)
{
    if (!r->session.peer) {
        if (r->status.shares_terminal)
            status_clear(r);
        filter_write(f, r->out.buf, r->out.len);
        return true;
    }
    enum transport_status st = session_write(&r->session, r->out.buf, r->out.len);
    if (st == TRANSPORT_INTERRUPTED)
        end_run(r, f);
    else if (st != TRANSPORT_OK)
        peer_failed(r, f, st);
    return st == TRANSPORT_OK;
}

static bool past_duration(const struct replay *r, double when)
{
    return r->duration > 0 && r->sent && when - r->first_sent >= r->duration;
}

/* Sends one message when it is due; t is its capture time (with slot, the time it occupies),
 * recorded its record for the live-agent mode. */
static void send_at(struct replay *r, struct filter *f, const struct held *m, double t, double slot,
                    const struct message *recorded)
{
    bool lockstep = r->check && !r->timed;
    double now = clock_monotonic();
    double due = lockstep ? now : schedule_due(&r->sched, t, slot, now);
    /* The live-agent mode stops before a message, so that the replies to the last one sent are
     * still read from the recording and awaited. */
    if (past_duration(r, due > now ? due : now) || (r->check && r->limit && r->sent >= r->limit)) {
        end_run(r, f);
        filter_unused(f, 1);
        return;
    }
    /* Nothing to wait for (a message due already, at --topspeed every one) and no live agent to
     * watch: the clock read above stands, one read a message (a tenth of --topspeed's time). */
    if (due > now || r->check) {
        if (!wait_until(r, f, due, lockstep)) {
            filter_unused(f, 1);
            return;
        }
        now = clock_monotonic();
    }
    json_t *sent;
    prepare(r, m, now, &sent);
    if (!deliver(r, f)) {
        filter_unused(f, 1);
    } else {
        if (!r->sent)
            r->first_sent = lockstep || r->pace.pace == PACE_TOPSPEED ? now : due;
        r->sent++;
        r->last_sent = now;
        r->behind = now - due;
        if (!lockstep && r->pace.pace != PACE_TOPSPEED)
            lateness_add(&r->late, r->behind);
        if (r->check)
            agentcheck_sent(r->check, recorded, sent, now, &r->session.sink);
        if (r->session.peer)
            session_take_lines(&r->session, f);
        status_draw(r, f, now);
        if ((r->check && agentcheck_broken(r->check)) ||
            (!r->check && r->limit && r->sent >= r->limit))
            end_run(r, f);
    }
    json_decref(sent);
}

/* --- the held run of one second --- */

static void release_run(struct replay *r)
{
    struct run *run = &r->run;
    for (size_t i = 0; i < run->count; i++) {
        json_decref(run->items[i].root);
        free(run->items[i].raw);
    }
    run->count = run->bytes = 0;
}

/* Sends the held run: spread evenly over its second, or all at its start. */
static void flush_run(struct replay *r, struct filter *f, bool burst)
{
    struct run *run = &r->run;
    size_t n = run->count, i = 0;
    for (; i < n && !r->ended; i++) {
        double t = burst ? run->second : run->second + (double)i / (double)n;
        send_at(r, f, &run->items[i], t, burst ? 0 : 1.0 / (double)n, NULL);
    }
    filter_unused(f, n - i); /* the run ended before their turn */
    release_run(r);
}

static struct held held_of(const struct replay *r, const struct message *m)
{
    return (struct held){.root = needs_tree(r) ? message_tree(m) : NULL,
                         .raw = (char *)m->rec->text,
                         .len = m->rec->raw_len,
                         .proto = m->proto,
                         .at = m->at};
}

static void hold(struct replay *r, struct filter *f, const struct message *m, double second)
{
    struct run *run = &r->run;
    if (run->count && run->second != second)
        flush_run(r, f, false);
    if (r->ended) {
        filter_unused(f, 1); /* the run ended with the second before */
        return;
    }
    if (run->second != second)
        run->overflowed = false;
    run->second = second;
    if (run->overflowed) {
        struct held h = held_of(r, m);
        send_at(r, f, &h, second, 0, NULL);
        return;
    }
    if (run->count == run->cap) {
        run->cap = run->cap ? 2 * run->cap : 64;
        run->items = xrealloc(run->items, run->cap * sizeof *run->items);
    }
    run->items[run->count++] =
        (struct held){.root = needs_tree(r) ? json_incref(message_tree(m)) : NULL,
                      .raw = xstrndup(m->rec->text, m->rec->raw_len),
                      .len = m->rec->raw_len,
                      .proto = m->proto,
                      .at = m->at};
    run->bytes += m->rec->raw_len;
    if (run->count >= MAX_RUN || run->bytes >= MAX_RUN_BYTES) {
        flush_run(r, f, true);
        run->overflowed = true;
    }
}

/* --- each message --- */

static bool needs_time(const struct replay *r)
{
    return (r->pace.pace == PACE_SPEED && (!r->check || r->timed)) || r->start > 0;
}

/* Whether the message falls before --start's point of this loop (and is skipped). */
static bool before_start(struct replay *r, double t)
{
    if (!r->skipping_start)
        return false;
    if (!schedule_has_origin(&r->sched))
        schedule_set_origin(&r->sched, t + r->start);
    if (t < r->sched.origin)
        return true;
    r->skipping_start = false;
    return false;
}

static void agent_message(struct replay *r, struct filter *f, struct message *m, double t)
{
    switch (agentcheck_role(r->check, m)) {
    case ROLE_OTHER:
        return;
    case ROLE_FROM_AGENT:
        status_clear(r);
        agentcheck_expect(r->check, m, &r->session.sink);
        return;
    case ROLE_TO_AGENT:
        break;
    }
    struct held h = held_of(r, m);
    if (m->capture.present) { /* a capture's record: the message it holds goes, not the record */
        sb_reset(&r->own);
        message_own_text(m, &r->own);
        h.raw = r->own.buf;
        h.len = r->own.len - 1; /* its newline: prepare adds one */
    }
    send_at(r, f, &h, t, 0, m);
}

static void report_no_time(struct filter *f, const struct message *m)
{
    if (schedule_beyond_era(message_tree(m), m->proto))
        diag_emit(filter_sink(f), &m->at, "replay-ts-range",
                  "ts is above 10^14, no time of this era: this message cannot be scheduled, "
                  "and is skipped (--rate and --topspeed send it)");
    else
        diag_emit(filter_sink(f), &m->at, "replay-no-time",
                  "no time to schedule this message by (IACP ts, FIPA timestamp or created_at); "
                  "replay a stream without times with --rate or --topspeed");
}

static enum verdict replay_message(void *ctx, struct filter *f, struct message *m)
{
    struct replay *r = ctx;
    if (r->ended) {
        filter_stop(f);
        filter_unused(f, 1);
        return VERDICT_WRITTEN;
    }
    if (m->capture.event)
        return VERDICT_WRITTEN; /* a capture's record of its session: no message to replay */
    r->pass_messages++;
    double t = 0;
    bool whole = false;
    /* read through the view (a capture's record says when, where the message does not) */
    bool has_time = schedule_view_time(m, &t, &whole);
    if (!has_time && needs_time(r)) {
        report_no_time(f, m);
        return VERDICT_WRITTEN;
    }
    if (r->start > 0 && before_start(r, t))
        return VERDICT_WRITTEN;
    if (r->check) {
        agent_message(r, f, m, t);
    } else if (whole && !r->burst && r->pace.pace == PACE_SPEED) {
        hold(r, f, m, t);
    } else {
        flush_run(r, f, false);
        struct held h = held_of(r, m);
        send_at(r, f, &h, t, 0, NULL);
    }
    if (r->ended)
        filter_stop(f);
    return VERDICT_WRITTEN;
}

static bool replay_next_pass(void *ctx, struct filter *f)
{
    struct replay *r = ctx;
    flush_run(r, f, false);
    bool again =
        !r->ended && r->loop_given && r->pass_messages > 0 && (r->loops == 0 || --r->loops > 0);
    if (again) {
        schedule_next_loop(&r->sched);
        idrewrite_forget(r->ids);
        r->skipping_start = true;
        r->pass_messages = 0;
    }
    return again;
}

/* --- the end --- */

/* The recording has nothing to or from the agent --as names: nothing was tested. */
static void tell_absent(struct replay *r)
{
    struct agentcheck_counts c = agentcheck_counts(r->check);
    if (c.sent || c.expected || r->limit || r->duration > 0)
        return;
    struct diag_where at = session_where(&r->session, 0);
    diag_emit(&r->session.sink, &at, "agent-absent",
              "the recording has no message to or from '%s', so nothing was tested (an MCP "
              "recording's agents are client and server)",
              r->agent);
}

/* Once, at the end of the run however it ends: the replies still owed are awaited (unless the
 * agent is broken or Ctrl-C was pressed), the peer is closed, extra replies are reported. */
static void finish(struct replay *r, struct filter *f)
{
    if (r->finished)
        return;
    r->finished = true;
    if (r->check && !agentcheck_broken(r->check) && !filter_interrupted())
        wait_until(r, f, INFINITY, true);
    status_clear(r);
    filter_flush(f);
    /* A broken agent's replies are not read: it has failed the check already. */
    session_close(&r->session, f, !r->check || !agentcheck_broken(r->check));
    if (r->check)
        agentcheck_finish(r->check, &r->session.sink);
    if (r->check && !filter_interrupted() && !agentcheck_broken(r->check))
        tell_absent(r);
    status_clear(r);
}

/* Stops reading the input and finishes: --limit, --duration, a peer gone, Ctrl-C. */
static void end_run(struct replay *r, struct filter *f)
{
    r->ended = true;
    filter_stop(f);
    finish(r, f);
}

static void end_of_input(void *ctx, struct filter *f)
{
    struct replay *r = ctx;
    flush_run(r, f, false);
    finish(r, f);
}

/* --- serving a recording (--serve) --- */

/* The recording's files are read first, then the live client on standard input ("-"). */
static void serve_next_file(void *ctx, struct filter *f, const char *path)
{
    struct replay *r = ctx;
    r->serving = strcmp(path, "-") == 0;
    if (!r->serving || mockserver_counts(r->mock).recorded)
        return;
    struct diag_where at = {.file = "<recording>"};
    diag_emit(filter_sink(f), &at, "serve-empty",
              "the recording has no response of a server to a request of its client (an MCP "
              "capture of acp-tap's or mcpsnoop's): there is nothing to serve");
    filter_stop(f);
}

static enum verdict serve_message(void *ctx, struct filter *f, struct message *m)
{
    struct replay *r = ctx;
    if (!r->serving) { /* the recording's */
        mockserver_record(r->mock, m);
        return VERDICT_WRITTEN;
    }
    sb_reset(&r->out);
    mockserver_serve(r->mock, m, &r->out, filter_sink(f));
    filter_write(f, r->out.buf, r->out.len); /* flushed before the next read would block */
    return VERDICT_WRITTEN;
}

/* Reads the recording, then answers the live client on standard input until it closes it. */
static int serve(struct replay *r, const struct common_opts *opts, char **files, int nfiles)
{
    r->mock = mockserver_new();
    char **all = xcalloc((size_t)nfiles + 1, sizeof *all);
    memcpy(all, files, (size_t)nfiles * sizeof *all);
    all[nfiles] = "-";
    const struct filter_config cfg = {.opts = opts, .protocol = CHOOSE_AUTO, .mode = READ_JSON};
    const struct filter_ops ops = {
        .message = serve_message, .next_file = serve_next_file, .ctx = r};
    int status = filter_run(&cfg, &ops, all, nfiles + 1);
    free(all);
    return status;
}

/* --- main --- */

static const char help_tail[] =
    "Each message goes at the time it has relative to the first one (IACP ts, spread\n"
    "evenly over its second; FIPA timestamp, else created_at), scheduled against one\n"
    "fixed start, so that lateness never adds up. With --as, messages to AGENT go to\n"
    "the live agent and its replies are compared with the recorded ones: exit 0 when\n"
    "it behaves as recorded, 1 otherwise.\n";

/* The session with the peer, and its sink: diagnostics as the options ask, --strict too. */
static void init_session(struct replay *r, const struct common_opts *opts)
{
    const struct session_config sc = {.address = r->connect,
                                      .command = r->exec,
                                      .io_timeout = r->io_timeout,
                                      .grace = r->grace,
                                      .converses = r->agent != NULL,
                                      .on_line = handle_peer_line,
                                      .ctx = r};
    session_init(&r->session, &sc, opts);
    r->session.sink.strict = opts->strict;
}

static void replay_free(struct replay *r)
{
    release_run(r);
    free(r->run.items);
    command_free(r->exec);
    for (size_t i = 0; i < r->ncompare; i++)
        free(r->compare[i]);
    free(r->compare);
    agentcheck_free(r->check);
    mockserver_free(r->mock);
    idrewrite_free(r->ids);
    sb_free(&r->out);
    sb_free(&r->own);
    session_free(&r->session);
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-replay");
    struct replay r = {.pace = {.pace = PACE_SPEED, .speed = 1, .rate = 1},
                       .loops = 1,
                       .reply_timeout = 5,
                       .io_timeout = 10,
                       .grace = 2,
                       .skipping_start = true};
    const struct tool_spec spec = {
        .name = "acp-replay",
        .usage = "[OPTION]... [FILE]...",
        .summary = "Replay captured messages with their recorded timing, to stdout, a socket or a\n"
                   "command; or test a live agent against a recording (--as).",
        .options = replay_options,
        .groups = GROUP_CHECKS | GROUP_CLOCK | GROUP_PROGRESS,
        .help_tail = help_tail,
        .handle = handle_option,
        .ctx = &r,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0 || !usage_ok(&r, argv + first, argc - first)) {
        replay_free(&r);
        options_free(&opts);
        return 2;
    }
    r.opts = &opts;
    if (r.serve) {
        int served = serve(&r, &opts, argv + first, argc - first);
        replay_free(&r);
        options_free(&opts);
        return served;
    }
    init_session(&r, &opts);
    const char *term = getenv("TERM");
    r.status.on = opts.progress && !opts.quiet && isatty(STDERR_FILENO) &&
                  !(term && strcmp(term, "dumb") == 0);
    opts.progress = false; /* the status line is its progress: the filter draws none */
    r.status.shares_terminal =
        (!opts.output || strcmp(opts.output, "-") == 0) && isatty(STDOUT_FILENO);
    r.mono_base = clock_monotonic();
    r.wall_base = opts.now_given ? (double)opts.now : clock_wall();
    if (!r.compare_given)
        split_compare(&r, "body.status,content.status");
    schedule_init(&r.sched, &r.pace);
    r.ids = idrewrite_new(opts.seed_given ? opts.seed
                                          : (unsigned long)opts.now ^ (unsigned long)getpid());
    if ((r.connect || r.exec) && !session_open(&r.session)) {
        replay_free(&r);
        options_free(&opts);
        return 2;
    }
    if (r.agent) {
        struct agentcheck_config ac = {.agent = r.agent,
                                       .compare = r.compare,
                                       .ncompare = r.ncompare,
                                       .reply_timeout = r.reply_timeout};
        r.check = agentcheck_new(&ac, r.ids);
    }
    const struct filter_config cfg = {
        .opts = &opts, .protocol = CHOOSE_AUTO, .mode = READ_JSON, .counted_too = &r.session.sink};
    const struct filter_ops ops = {.message = replay_message,
                                   .end_of_input = end_of_input,
                                   .next_pass = replay_next_pass,
                                   .ctx = &r};
    int status = filter_run(&cfg, &ops, argv + first, argc - first);
    /* The run stopped while reading (Ctrl-C, --max-errors): the outputs are closed, so what the
     * peer still says is dropped; Ctrl-C leaves it no time. */
    session_close(&r.session, NULL, false);
    status_clear(&r);
    if (opts.stats && !opts.quiet)
        print_stats(&r);
    if (status != 130 && r.session.trouble)
        status = 2;
    else if (status == 0 && r.session.sink.errors)
        status = 1;
    replay_free(&r);
    options_free(&opts);
    return status;
}
