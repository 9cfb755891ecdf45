#include "engine/engine.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/util.h"
#include "diag/findings.h"
#include "engine/fipa_stream.h"
#include "engine/iacp_stream.h"
#include "proto/iacp.h"

struct engine {
    const struct engine_config *cfg;
    bool summaries; /* made with a callback: findings are routed to conversations */
    struct iacp_stream *iacp;
    struct fipa_stream *fipa;
    struct diag_sink probe; /* the per-message checks of shards other than 1 */
    /* --wall-clock: where the latest message was, and when it came (monotonic clock) with the
     * message time of each half then. */
    struct diag_where latest;
    double came, iacp_then, fipa_then;
};

struct engine *engine_new(const struct engine_config *cfg, conversation_done_fn done, void *ctx)
{
    struct engine *e = xcalloc(1, sizeof *e);
    e->cfg = cfg;
    e->summaries = done != NULL;
    e->iacp = iacp_stream_new(cfg, done, ctx);
    e->fipa = fipa_stream_new(cfg, done, ctx);
    diag_sink_init(&e->probe, NULL);
    e->probe.quiet = true;
    e->came = NAN;
    return e;
}

/* The engine observes the sink while a half works, so that the half can keep each finding for
 * the conversation it blames. */
static void route_iacp(void *ctx, const struct diag_finding *finding)
{
    iacp_stream_note(ctx, finding);
}

static void route_fipa(void *ctx, const struct diag_finding *finding)
{
    fipa_stream_note(ctx, finding);
}

static void observe(struct engine *e, struct diag_sink *sink, struct diag_observer *o,
                    enum protocol proto)
{
    *o = proto == PROTO_IACP ? (struct diag_observer){.notify = route_iacp, .ctx = e->iacp}
                             : (struct diag_observer){.notify = route_fipa, .ctx = e->fipa};
    if (e->summaries)
        diag_observe(sink, o);
}

static void unobserve(struct engine *e, struct diag_sink *sink, struct diag_observer *o)
{
    if (e->summaries)
        diag_unobserve(sink, o);
}

const char *engine_feed(struct engine *e, const struct message *m, struct diag_sink *sink)
{
    if (m->proto == PROTO_NONE)
        return NULL;
    struct diag_observer o;
    observe(e, sink, &o, m->proto);
    const char *key = m->proto == PROTO_IACP ? iacp_stream_feed(e->iacp, m, sink)
                                             : fipa_stream_feed(e->fipa, m, sink);
    unobserve(e, sink, &o);
    if (e->cfg->wall_clock) {
        e->latest = (struct diag_where){.file = m->at.file, .line = m->at.line};
        e->came = clock_monotonic();
        e->iacp_then = iacp_stream_now(e->iacp);
        e->fipa_then = fipa_stream_now(e->fipa);
    }
    return key;
}

/* The per-message checks of engine_check; true when the message passed them. Reads nothing but
 * the configuration. */
static bool check_message(const struct engine_config *cfg, const struct message *m,
                          struct diag_sink *checks)
{
    unsigned long errors_before = checks->errors;
    switch (m->proto) {
    case PROTO_IACP:
        iacp_check(m, &(struct iacp_rules){.queen = cfg->queen}, checks);
        break;
    case PROTO_FIPA:
        fipa_check_in_stream(m, &(struct fipa_rules){.profile = cfg->fipa_profile}, checks);
        break;
    case PROTO_NONE:
        diag_emit(checks, &m->at, "no-protocol",
                  "neither IACP (no 'kind' or 'v') nor FIPA (no 'performative')");
        break;
    }
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
    if (!passed || digest == DIGEST_NONE || m->proto != PROTO_IACP || m->digest)
        return passed;
    m->digest = iacp_digest_new(m);
    if (digest == DIGEST_ONLY)
        message_drafted(m, NULL, iacp_digest_id(m->digest));
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
    if (!e->summaries || m->proto == PROTO_NONE)
        return NULL;
    struct findings *own = own_findings(e, m, sink);
    const char *key = m->proto == PROTO_IACP ? iacp_stream_failed(e->iacp, m, &own)
                                             : fipa_stream_failed(e->fipa, m, &own);
    findings_free(own);
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
    struct diag_observer o;
    observe(e, sink, &o, PROTO_IACP);
    iacp_stream_finish(e->iacp, sink);
    unobserve(e, sink, &o);
    observe(e, sink, &o, PROTO_FIPA);
    fipa_stream_finish(e->fipa, sink);
    unobserve(e, sink, &o);
}

void engine_hand_over(struct engine *e)
{
    iacp_stream_hand_over(e->iacp);
    fipa_stream_hand_over(e->fipa);
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
    double idle = clock_monotonic() - e->came;
    struct diag_observer o;
    observe(e, sink, &o, PROTO_IACP);
    iacp_stream_advance(e->iacp, e->iacp_then + idle, &e->latest, sink);
    unobserve(e, sink, &o);
    observe(e, sink, &o, PROTO_FIPA);
    fipa_stream_advance(e->fipa, e->fipa_then + idle, &e->latest, sink);
    unobserve(e, sink, &o);
    double iacp_due = until(iacp_stream_next_due(e->iacp), iacp_stream_now(e->iacp));
    double fipa_due = until(fipa_stream_next_due(e->fipa), fipa_stream_now(e->fipa));
    return fmin(idle_step(e->cfg), fmin(iacp_due, fipa_due));
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    iacp_stream_free(e->iacp);
    fipa_stream_free(e->fipa);
    diag_sink_free(&e->probe);
    free(e);
}
