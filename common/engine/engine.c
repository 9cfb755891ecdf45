#include "engine/engine.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/util.h"
#include "diag/findings.h"
#include "engine/stream.h"
#include "proto/dialect.h"

/* The streams the engine keeps, one a dialect, in the order they finish. */
static const struct stream_ops *const stream_table[] = {&iacp_stream_ops, &fipa_stream_ops,
                                                        &mcp_stream_ops};
enum { STREAMS = sizeof stream_table / sizeof stream_table[0] };

/* A stream, and what the engine keeps of it. */
struct engine_stream {
    const struct stream_ops *ops;
    struct stream *s;
    double then; /* --wall-clock: its message time when the latest message came */
};

struct engine {
    const struct engine_config *cfg;
    bool summaries; /* made with a callback: findings are routed to conversations */
    struct engine_stream streams[STREAMS];
    struct diag_sink probe; /* the per-message checks of shards other than 1 */
    struct findings *own;   /* a failed message's findings, while its stream may take them */
    /* --wall-clock: where the latest message was, and when it came (monotonic clock). */
    struct diag_where latest;
    double came;
};

struct engine *engine_new(const struct engine_config *cfg, conversation_done_fn done, void *ctx)
{
    struct engine *e = xcalloc(1, sizeof *e);
    e->cfg = cfg;
    e->summaries = done != NULL;
    for (size_t i = 0; i < STREAMS; i++)
        e->streams[i] =
            (struct engine_stream){stream_table[i], stream_table[i]->open(cfg, done, ctx), NAN};
    diag_sink_init(&e->probe, NULL);
    e->probe.quiet = true;
    e->came = NAN;
    return e;
}

/* Where the stream of a dialect's messages is in stream_table; STREAMS for a message of none. */
static size_t stream_index(enum protocol proto)
{
    size_t i = 0;
    while (i < STREAMS && stream_table[i]->proto != proto)
        i++;
    return i;
}

static struct engine_stream *stream_of(struct engine *e, enum protocol proto)
{
    size_t i = stream_index(proto);
    return i < STREAMS ? &e->streams[i] : NULL;
}

/* The engine observes the sink while a stream works, so that the stream can keep each finding
 * for the conversation it blames. */
static void route(void *ctx, const struct diag_finding *finding)
{
    struct engine_stream *es = ctx;
    es->ops->note(es->s, finding);
}

static void observe(struct engine *e, struct diag_sink *sink, struct diag_observer *o,
                    struct engine_stream *es)
{
    *o = (struct diag_observer){.notify = route, .ctx = es};
    if (e->summaries)
        diag_observe(sink, o);
}

static void unobserve(struct engine *e, struct diag_sink *sink, struct diag_observer *o)
{
    if (e->summaries)
        diag_unobserve(sink, o);
}

/* A capture's record of its session is of no dialect: every stream with sessions is told. */
static void session_event(struct engine *e, const struct message *m, struct diag_sink *sink)
{
    if (!m->capture.starts_session && !m->capture.ends_session)
        return;
    for (size_t i = 0; i < STREAMS; i++) {
        struct engine_stream *es = &e->streams[i];
        if (!es->ops->session_event)
            continue;
        struct diag_observer o;
        observe(e, sink, &o, es);
        es->ops->session_event(es->s, m, sink);
        unobserve(e, sink, &o);
    }
}

const char *engine_feed(struct engine *e, const struct message *m, struct diag_sink *sink)
{
    if (m->capture.event) {
        session_event(e, m, sink);
        return NULL;
    }
    struct engine_stream *es = stream_of(e, m->proto);
    if (!es)
        return NULL;
    struct diag_observer o;
    observe(e, sink, &o, es);
    const char *key = es->ops->feed(es->s, m, sink);
    unobserve(e, sink, &o);
    if (e->cfg->wall_clock) {
        e->latest = (struct diag_where){.file = m->at.file, .line = m->at.line};
        e->came = clock_monotonic();
        for (size_t i = 0; i < STREAMS; i++)
            e->streams[i].then = e->streams[i].ops->now(e->streams[i].s);
    }
    return key;
}

/* The per-message checks of engine_check; true when the message passed them. Reads nothing but
 * the configuration. */
static bool check_message(const struct engine_config *cfg, const struct message *m,
                          struct diag_sink *checks)
{
    unsigned long errors_before = checks->errors;
    message_check(m,
                  &(struct check_rules){.iacp = {.queen = cfg->queen},
                                        .fipa = {.profile = cfg->fipa_profile},
                                        .in_stream = true},
                  checks);
    return checks->errors == errors_before;
}

static bool reports_checks(const struct engine_config *cfg)
{
    return cfg->shards == 0 || cfg->shard == 1;
}

const char *engine_check(struct engine *e, const struct message *m, struct diag_sink *sink)
{
    struct diag_sink *checks = reports_checks(e->cfg) ? sink : &e->probe;
    e->probe.strict = sink->strict;
    return engine_check_passed(e, m, check_message(e->cfg, m, checks), sink);
}

/* engine_check_message's checks, reporting what this shard reports. */
static bool check_reported(const struct engine_config *cfg, const struct message *m,
                           struct diag_sink *sink)
{
    if (reports_checks(cfg))
        return check_message(cfg, m, sink);
    struct diag_sink probe;
    diag_sink_init(&probe, NULL);
    probe.quiet = true;
    probe.strict = sink->strict;
    bool passed = check_message(cfg, m, &probe);
    diag_sink_free(&probe);
    return passed;
}

bool engine_check_message(const struct engine_config *cfg, struct message *m,
                          enum engine_digest digest, struct diag_sink *sink)
{
    bool passed = check_reported(cfg, m, sink);
    if (!passed || digest == DIGEST_NONE || m->digest)
        return passed;
    size_t i = stream_index(m->proto);
    if (i < STREAMS && stream_table[i]->digest)
        stream_table[i]->digest(m, digest);
    return passed;
}

static void keep_finding(void *ctx, const struct diag_finding *finding)
{
    findings_add(ctx, finding);
}

/* The findings of m's own checks, made again: with --jobs they were reported in another thread,
 * and in shards other than 1 not at all. Only messages that failed them are asked for these. */
static struct findings *own_findings(const struct engine *e, const struct message *m,
                                     const struct diag_sink *sink)
{
    struct findings *own = NULL;
    struct diag_sink probe;
    diag_sink_init(&probe, NULL);
    probe.quiet = true;
    probe.strict = sink->strict;
    struct diag_observer o = {.notify = keep_finding, .ctx = &own};
    diag_observe(&probe, &o);
    check_message(e->cfg, m, &probe);
    diag_unobserve(&probe, &o);
    diag_sink_free(&probe);
    return own;
}

/* A message that failed its own checks says nothing reliable about its conversation, so it
 * changes nothing there; but one that names an open conversation is one of its messages, with
 * its findings, in the conversation's summary. */
static const char *follow_failed(struct engine *e, const struct message *m,
                                 const struct diag_sink *sink)
{
    struct engine_stream *es = stream_of(e, m->proto);
    if (!e->summaries || !es)
        return NULL;
    e->own = own_findings(e, m, sink);
    const char *key = es->ops->failed(es->s, m, &e->own);
    findings_free(e->own);
    e->own = NULL;
    return key;
}

const char *engine_check_passed(struct engine *e, const struct message *m, bool passed,
                                struct diag_sink *sink)
{
    if (passed)
        return engine_feed(e, m, sink);
    const char *key = follow_failed(e, m, sink);
    if (key)
        return key;
    return reports_checks(e->cfg) ? NULL : ENGINE_ELSEWHERE;
}

void engine_finish(struct engine *e, struct diag_sink *sink)
{
    for (size_t i = 0; i < STREAMS; i++) {
        struct diag_observer o;
        observe(e, sink, &o, &e->streams[i]);
        e->streams[i].ops->finish(e->streams[i].s, sink);
        unobserve(e, sink, &o);
    }
}

void engine_hand_over(struct engine *e)
{
    for (size_t i = 0; i < STREAMS; i++)
        e->streams[i].ops->hand_over(e->streams[i].s);
}

/* How often idle input is looked at: often enough for --idle-timeout, never busily. */
static double idle_step(const struct engine_config *cfg)
{
    return fmin(1.0, fmax(0.05, cfg->idle_timeout / 8));
}

/* Seconds until the half whose message time is now has something fall due (due), with a
 * millisecond to spare so that the wait ends past it; INFINITY when nothing is pending, or the
 * half has no message time (FIPA messages without timestamps) for anything to fall due in. */
static double until(double due, double now)
{
    return due < INFINITY && !isnan(now) ? fmax(due - now, 0) + 0.001 : INFINITY;
}

double engine_idle(struct engine *e, struct diag_sink *sink)
{
    if (!e->cfg->wall_clock)
        return INFINITY;
    if (isnan(e->came))
        return idle_step(e->cfg);
    double idle = clock_monotonic() - e->came, next = idle_step(e->cfg);
    for (size_t i = 0; i < STREAMS; i++) {
        struct engine_stream *es = &e->streams[i];
        struct diag_observer o;
        observe(e, sink, &o, es);
        es->ops->advance(es->s, es->then + idle, &e->latest, sink);
        unobserve(e, sink, &o);
    }
    for (size_t i = 0; i < STREAMS; i++) {
        const struct engine_stream *es = &e->streams[i];
        next = fmin(next, until(es->ops->next_due(es->s), es->ops->now(es->s)));
    }
    return next;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < STREAMS; i++)
        e->streams[i].ops->free(e->streams[i].s);
    diag_sink_free(&e->probe);
    free(e);
}

/* ---- acp-trace --merge ---- */

struct engine_merge {
    struct span_merge *of[STREAMS]; /* a dialect's, where something spans its partitions */
};

struct engine_merge *engine_merge_new(const struct engine_config *cfg)
{
    struct engine_merge *e = xcalloc(1, sizeof *e);
    for (size_t i = 0; i < STREAMS; i++)
        if (stream_table[i]->merge)
            e->of[i] = stream_table[i]->merge->open(cfg);
    return e;
}

bool engine_merge_collect(struct engine_merge *e, const json_t *record, size_t input,
                          unsigned long ordinal, const struct diag_where *at, const char **why)
{
    if (!json_object_get(record, "span"))
        return true;
    for (size_t i = 0; i < STREAMS; i++) {
        int took = e->of[i]
                       ? stream_table[i]->merge->collect(e->of[i], record, input, ordinal, at, why)
                       : 0;
        if (took != 0)
            return took > 0;
    }
    *why = "its span is of no dialect";
    return false;
}

void engine_merge_settle(struct engine_merge *e, struct diag_sink *sink)
{
    for (size_t i = 0; i < STREAMS; i++)
        if (e->of[i])
            stream_table[i]->merge->settle(e->of[i], sink);
}

void engine_merge_patch(struct engine_merge *e, json_t *record, unsigned long ordinal)
{
    if (!json_object_get(record, "span"))
        return;
    for (size_t i = 0; i < STREAMS; i++)
        if (e->of[i])
            stream_table[i]->merge->patch(e->of[i], record, ordinal);
    json_object_del(record, "span");
}

void engine_merge_free(struct engine_merge *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < STREAMS; i++)
        if (e->of[i])
            stream_table[i]->merge->free(e->of[i]);
    free(e);
}
