#include "live/agentcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/list.h"
#include "base/strmap.h"
#include "diag/diag.h"
#include "live/answers.h"
#include "proto/dialect.h"
#include "proto/jsonrpc.h"
#include "proto/schedule.h"

enum { MAX_CAUSES = 10000, MAX_POOL = 10000, MAX_PENDING = 10000 };

/* A line of the recording, kept for diagnostics after its record is gone. */
struct place {
    char *file;
    unsigned long line;
    char *id;
};

/* A message that was sent to the agent: what its replies answer. */
struct cause {
    struct list_link age;
    struct place where;
    char *recorded_id, *recorded_conv; /* as in the recording (NULL when absent) */
    char *live_id, *live_conv;         /* as sent */
    double sent_at;
    double recorded_time; /* NAN when the recording has none */
    struct list pending;  /* expectations that answer it, in file order */
    struct list pool;     /* live replies to it that no expectation took yet */
    struct answers *flow; /* how the conversation it opens goes; NULL when it expects no answer */
    char *ended_by;       /* the kind of the live reply that ended that conversation, or NULL */
};

struct expectation {
    struct list_link in_cause, in_all;
    struct cause *cause;
    json_t *recorded;
    enum protocol proto;
    struct place where;
    double deadline;
    bool by_delay; /* the deadline is twice the recorded delay, not --reply-timeout */
};

struct live_reply {
    struct list_link in_cause, in_all;
    struct cause *cause;
    json_t *msg;
    enum protocol proto;
};

struct agentcheck {
    struct agentcheck_config cfg;
    struct idrewrite *ids;
    /* id -> the cause that carried it last; a cause is found by the id its replies name */
    struct strmap *by_recorded, *by_recorded_conv, *by_live, *by_live_conv;
    struct list causes;  /* oldest first */
    struct list pending; /* every expectation, in file order */
    struct list pool;    /* every unmatched live reply, in order of arrival */
    struct place last_sent;
    double last_output; /* when the agent last wrote anything */
    bool broken;
    struct agentcheck_counts counts;
};

static void place_set(struct place *p, const struct diag_where *at)
{
    free(p->file);
    free(p->id);
    p->file = xstrdup(at->file ? at->file : DIAG_STANDARD_INPUT);
    p->line = at->line;
    p->id = at->id ? xstrdup(at->id) : NULL;
}

static void place_free(struct place *p)
{
    free(p->file);
    free(p->id);
    p->file = p->id = NULL;
}

static struct diag_where where_of(const struct place *p, const struct cause *related)
{
    struct diag_where at = {.file = p->file ? p->file : "<agent>", .line = p->line, .id = p->id};
    if (related && related->where.file) {
        at.related_line = related->where.line;
        if (strcmp(related->where.file, at.file) != 0)
            at.related_file = related->where.file;
    }
    return at;
}

static char *strdup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

struct agentcheck *agentcheck_new(const struct agentcheck_config *cfg, struct idrewrite *ids)
{
    struct agentcheck *ac = xcalloc(1, sizeof *ac);
    ac->cfg = *cfg;
    ac->ids = ids;
    ac->by_recorded = strmap_new();
    ac->by_recorded_conv = strmap_new();
    ac->by_live = strmap_new();
    ac->by_live_conv = strmap_new();
    ac->last_output = -INFINITY;
    return ac;
}

/* --- reading messages --- */

static const char *member(const json_t *msg, const char *key)
{
    return json_string_value(dialect_member_of_tree(msg, key));
}

static const char *own_id(const json_t *msg, enum protocol proto)
{
    return member(msg, dialect_of(proto)->id.name);
}

/* Whether msg answers a message by its own id (a JSON-RPC response), or is one such a message
 * answers (a request): the others of such a dialect (notifications, responses of ours) neither
 * answer nor are answered. */
static bool answers_by_id(const json_t *msg, enum protocol proto)
{
    return dialect_of(proto)->answers_by_own_id && jsonrpc_kind_of_tree(msg) == JSONRPC_RESPONSE;
}

static bool answered_by_id(const json_t *msg, enum protocol proto)
{
    return dialect_of(proto)->answers_by_own_id && jsonrpc_kind_of_tree(msg) == JSONRPC_REQUEST;
}

/* The key an id is found by: the id as it is, or, in a dialect whose id is any JSON value (a
 * JSON-RPC one), as JSON writes it, so that 1 and "1" stay apart. NULL when there is none. */
static char *id_key(const json_t *msg, enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    if (!d->answers_by_own_id)
        return strdup_or_null(own_id(msg, proto));
    json_t *id = json_object_get(msg, d->id.name);
    if (!id)
        return NULL;
    struct strbuf key = STRBUF_INIT;
    jsonrpc_id_text(id, &key);
    return sb_detach(&key);
}

/* The kind or performative in one spelling, so that spellings compare equal; a partial result is
 * a kind of its own, so that the final result never stands for a missing partial. */
static const char *kind_of(const json_t *msg, enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    const char *k = member(msg, d->act_member);
    if (!k && d->jsonrpc)
        return jsonrpc_response_act_tree(msg);
    if (!k)
        return "(no kind)";
    const char *act = d->act_canonical(k);
    if (strcmp(act, d->result_act) == 0 && d->partial_tree(msg))
        return d->partial_result_act;
    return act;
}

static bool same_kind(const json_t *a, enum protocol pa, const json_t *b, enum protocol pb)
{
    return pa == pb && strcmp(kind_of(a, pa), kind_of(b, pb)) == 0;
}

/* The names of an agent identifier or of an array of them, comma-separated. */
static void add_names(struct strbuf *out, const json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
            if (i)
                sb_addc(out, ',');
            add_names(out, item);
        }
        return;
    }
    const char *name = json_is_string(v) ? json_string_value(v) : fipa_agent_name(v);
    sb_adds(out, name ? name : "?");
}

static bool names_include(const json_t *v, const char *agent)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) if (names_include(item, agent)) return true;
        return false;
    }
    const char *name = json_is_string(v) ? json_string_value(v) : fipa_agent_name(v);
    return name && strcmp(name, agent) == 0;
}

static const json_t *sender_of(const json_t *msg, enum protocol proto)
{
    return dialect_member_of_tree(msg, dialect_of(proto)->sender_member);
}

static const json_t *receiver_of(const json_t *msg, enum protocol proto)
{
    return dialect_member_of_tree(msg, dialect_of(proto)->receivers_member);
}

enum agent_role agentcheck_role(const struct agentcheck *ac, const struct message *m)
{
    const struct dialect *d = message_dialect(m);
    if (!d)
        return ROLE_OTHER;
    if (d->capture_sides) { /* the agent is a side of the capture's session: client, server */
        if (!m->capture.present)
            return ROLE_OTHER;
        if (strcmp(d->capture_sides[m->capture.out], ac->cfg.agent) == 0)
            return ROLE_FROM_AGENT;
        return strcmp(d->capture_sides[!m->capture.out], ac->cfg.agent) == 0 ? ROLE_TO_AGENT
                                                                             : ROLE_OTHER;
    }
    if (names_include(sender_of(message_tree(m), m->proto), ac->cfg.agent))
        return ROLE_FROM_AGENT;
    if (names_include(receiver_of(message_tree(m), m->proto), ac->cfg.agent))
        return ROLE_TO_AGENT;
    return ROLE_OTHER;
}

/* The cause a message answers, through the ids of one side (recorded or live): its ref or
 * in_reply_to; a FIPA message without in_reply_to answers the last message of its
 * conversation. */
static struct cause *cause_of(const json_t *msg, enum protocol proto, struct strmap *by_id,
                              struct strmap *by_conv)
{
    const struct dialect *d = dialect_of(proto);
    if (d->answers_by_own_id) {
        if (!answers_by_id(msg, proto))
            return NULL;
        char *key = id_key(msg, proto);
        struct cause *c = key ? strmap_get(by_id, key) : NULL;
        free(key);
        return c;
    }
    const char *ref = member(msg, d->answers_member);
    if (ref)
        return strmap_get(by_id, ref);
    const char *conv = member(msg, "conversation_id");
    return d->answers_by_conversation && conv ? strmap_get(by_conv, conv) : NULL;
}

/* --- causes --- */

static void unmap(struct strmap *map, const char *key, const struct cause *c)
{
    if (key && strmap_get(map, key) == c)
        strmap_remove(map, key);
}

static void remap(struct strmap *map, const char *key, struct cause *c)
{
    if (key)
        strmap_put(map, key, c);
}

static void expectation_free(struct agentcheck *ac, struct expectation *e)
{
    list_remove(&e->cause->pending, &e->in_cause);
    list_remove(&ac->pending, &e->in_all);
    json_decref(e->recorded);
    place_free(&e->where);
    free(e);
}

static void live_free(struct agentcheck *ac, struct live_reply *r)
{
    list_remove(&r->cause->pool, &r->in_cause);
    list_remove(&ac->pool, &r->in_all);
    json_decref(r->msg);
    free(r);
}

static void report_extra(struct agentcheck *ac, struct live_reply *r, struct diag_sink *sink)
{
    struct diag_where at = where_of(&r->cause->where, NULL);
    ac->counts.differences++;
    diag_emit(sink, &at, "agent-extra",
              "the agent answered this message with %s, which the recording does not have",
              kind_of(r->msg, r->proto));
}

static void report_missing(struct agentcheck *ac, struct expectation *e, struct diag_sink *sink,
                           const char *why);
static void settle(struct agentcheck *ac, struct expectation *e, struct diag_sink *sink);

static void cause_free(struct agentcheck *ac, struct cause *c, struct diag_sink *sink)
{
    while (c->pending.head) {
        struct expectation *e = LIST_ITEM(c->pending.head, struct expectation, in_cause);
        if (sink)
            report_missing(ac, e, sink, "no longer followed: 10,000 messages were sent since");
        expectation_free(ac, e);
    }
    while (c->pool.head) {
        struct live_reply *r = LIST_ITEM(c->pool.head, struct live_reply, in_cause);
        if (sink)
            report_extra(ac, r, sink);
        live_free(ac, r);
    }
    unmap(ac->by_recorded, c->recorded_id, c);
    unmap(ac->by_recorded_conv, c->recorded_conv, c);
    unmap(ac->by_live, c->live_id, c);
    unmap(ac->by_live_conv, c->live_conv, c);
    list_remove(&ac->causes, &c->age);
    answers_free(c->flow);
    free(c->ended_by);
    place_free(&c->where);
    free(c->recorded_id);
    free(c->recorded_conv);
    free(c->live_id);
    free(c->live_conv);
    free(c);
}

void agentcheck_free(struct agentcheck *ac)
{
    if (!ac)
        return;
    while (ac->causes.head)
        cause_free(ac, LIST_ITEM(ac->causes.head, struct cause, age), NULL);
    strmap_free(ac->by_recorded, NULL);
    strmap_free(ac->by_recorded_conv, NULL);
    strmap_free(ac->by_live, NULL);
    strmap_free(ac->by_live_conv, NULL);
    place_free(&ac->last_sent);
    free(ac);
}

static double message_time(const json_t *msg, enum protocol proto)
{
    double t;
    bool whole;
    return schedule_message_time(msg, proto, &t, &whole) ? t : NAN;
}

void agentcheck_sent(struct agentcheck *ac, const struct message *recorded, const json_t *sent,
                     double now, struct diag_sink *sink)
{
    struct cause *c = xcalloc(1, sizeof *c);
    place_set(&c->where, &recorded->at);
    const json_t *tree = message_tree(recorded);
    bool answerable =
        !dialect_of(recorded->proto)->answers_by_own_id || answered_by_id(tree, recorded->proto);
    c->recorded_id = answerable ? id_key(tree, recorded->proto) : NULL;
    c->recorded_conv = strdup_or_null(member(message_tree(recorded), "conversation_id"));
    c->live_id = answerable && sent ? id_key(sent, recorded->proto) : NULL;
    c->live_conv = strdup_or_null(member(sent, "conversation_id"));
    c->sent_at = now;
    c->recorded_time = message_time(message_tree(recorded), recorded->proto);
    c->flow = answers_new(sent ? sent : message_tree(recorded), recorded->proto);
    remap(ac->by_recorded, c->recorded_id, c);
    remap(ac->by_recorded_conv, c->recorded_conv, c);
    remap(ac->by_live, c->live_id, c);
    remap(ac->by_live_conv, c->live_conv, c);
    list_append(&ac->causes, &c->age);
    place_set(&ac->last_sent, &recorded->at);
    ac->counts.sent++;
    if (ac->causes.size > MAX_CAUSES)
        cause_free(ac, LIST_ITEM(ac->causes.head, struct cause, age), sink);
}

/* --- comparing --- */

static void format_seconds(char *buf, size_t size, double s)
{
    snprintf(buf, size, s < 100 ? "%.1f s" : "%.0f s", s);
}

/* The value at a dotted path (array items by index), or NULL. */
static json_t *path_get(const json_t *root, const char *path)
{
    json_t *v = (json_t *)root;
    const char *p = path;
    while (v && *p) {
        size_t len = strcspn(p, ".");
        char *key = xstrndup(p, len);
        char *end;
        unsigned long index = strtoul(key, &end, 10);
        if (json_is_array(v) && *key && !*end)
            v = json_array_get(v, index);
        else
            v = json_object_get(v, key);
        free(key);
        p += len + (p[len] == '.');
    }
    return v;
}

static void add_value(struct strbuf *out, const json_t *v)
{
    if (!v) {
        sb_adds(out, "(absent)");
        return;
    }
    /* As the recording writes it: 0.1, not 0.10000000000000001. diag_emit escapes it. */
    struct jsonout w;
    jsonout_init(&w, out, 0);
    jsonout_value(&w, v);
}

static void report_difference(struct agentcheck *ac, const struct expectation *e,
                              struct diag_sink *sink, const char *what, const json_t *recorded,
                              const json_t *live)
{
    struct strbuf r = STRBUF_INIT, l = STRBUF_INIT;
    add_value(&r, recorded);
    add_value(&l, live);
    struct diag_where at = where_of(&e->where, e->cause);
    ac->counts.differences++;
    diag_emit(sink, &at, "agent-differs", "the agent's %s differs in %s: recorded %s, live %s",
              kind_of(e->recorded, e->proto), what, r.buf, l.buf);
    sb_free(&r);
    sb_free(&l);
}

static void compare_names(struct agentcheck *ac, const struct expectation *e,
                          struct diag_sink *sink, const char *what, const json_t *recorded,
                          const json_t *live)
{
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    add_names(&a, recorded);
    add_names(&b, live);
    if (strcmp(a.buf, b.buf) != 0) {
        json_t *ra = json_string(a.buf), *lb = json_string(b.buf);
        report_difference(ac, e, sink, what, ra, lb);
        json_decref(ra);
        json_decref(lb);
    }
    sb_free(&a);
    sb_free(&b);
}

/* The live agent's ids from now on stand for the ones it chose in the recording. */
static void bind_ids(struct agentcheck *ac, const struct expectation *e, const struct live_reply *r)
{
    const char *recorded = own_id(e->recorded, e->proto), *live = own_id(r->msg, r->proto);
    if (recorded && live)
        idrewrite_bind(ac->ids, recorded, live);
    const char *rconv = member(e->recorded, "conversation_id"),
               *lconv = member(r->msg, "conversation_id");
    if (rconv && lconv && strcmp(rconv, lconv) != 0 && !idrewrite_lookup(ac->ids, rconv))
        idrewrite_bind(ac->ids, rconv, lconv);
}

/* What answers_compare tells a difference to. */
struct differing {
    struct agentcheck *ac;
    const struct expectation *e;
    struct diag_sink *sink;
};

static void tell_difference(void *ctx, const char *what, const json_t *recorded, const json_t *live)
{
    struct differing *d = ctx;
    report_difference(d->ac, d->e, d->sink, what, recorded, live);
}

static void match(struct agentcheck *ac, struct expectation *e, struct live_reply *r,
                  struct diag_sink *sink)
{
    ac->counts.matched++;
    compare_names(ac, e, sink, "its sender", sender_of(e->recorded, e->proto),
                  sender_of(r->msg, r->proto));
    compare_names(ac, e, sink, "its receiver", receiver_of(e->recorded, e->proto),
                  receiver_of(r->msg, r->proto));
    for (size_t i = 0; i < ac->cfg.ncompare; i++) {
        const char *path = ac->cfg.compare[i];
        json_t *a = path_get(e->recorded, path), *b = path_get(r->msg, path);
        if ((a || b) && !(a && b && json_equal(a, b))) {
            struct strbuf what = STRBUF_INIT;
            sb_addf(&what, "'%s'", path);
            report_difference(ac, e, sink, what.buf, a, b);
            sb_free(&what);
        }
    }
    struct differing d = {.ac = ac, .e = e, .sink = sink};
    answers_compare(e->recorded, r->msg, e->proto, tell_difference, &d);
    bind_ids(ac, e, r);
}

static struct live_reply *pooled_of_kind(struct cause *c, const json_t *msg, enum protocol proto)
{
    for (struct live_reply *r = LIST_ITEM(c->pool.head, struct live_reply, in_cause); r;
         r = LIST_ITEM(r->in_cause.next, struct live_reply, in_cause))
        if (same_kind(r->msg, r->proto, msg, proto))
            return r;
    return NULL;
}

static struct expectation *pending_of_kind(struct cause *c, const json_t *msg, enum protocol proto)
{
    for (struct expectation *e = LIST_ITEM(c->pending.head, struct expectation, in_cause); e;
         e = LIST_ITEM(e->in_cause.next, struct expectation, in_cause))
        if (same_kind(e->recorded, e->proto, msg, proto))
            return e;
    return NULL;
}

void agentcheck_expect(struct agentcheck *ac, const struct message *recorded,
                       struct diag_sink *sink)
{
    struct cause *c =
        cause_of(message_tree(recorded), recorded->proto, ac->by_recorded, ac->by_recorded_conv);
    if (!c)
        return;
    ac->counts.expected++;
    struct expectation *e = xcalloc(1, sizeof *e);
    e->cause = c;
    e->recorded = json_incref(message_tree(recorded));
    e->proto = recorded->proto;
    place_set(&e->where, &recorded->at);
    double delay = message_time(message_tree(recorded), recorded->proto) - c->recorded_time;
    double allowed = ac->cfg.reply_timeout;
    if (delay > 0 && 2 * delay > allowed) {
        allowed = 2 * delay;
        e->by_delay = true;
    }
    e->deadline = c->sent_at + allowed;
    list_append(&c->pending, &e->in_cause);
    list_append(&ac->pending, &e->in_all);
    struct live_reply *r = pooled_of_kind(c, e->recorded, e->proto);
    if (r) {
        match(ac, e, r, sink);
        expectation_free(ac, e);
        live_free(ac, r);
    } else if (c->ended_by) {
        settle(ac, e, sink); /* the live conversation is over: it cannot come */
    } else if (ac->pending.size > MAX_PENDING) {
        struct expectation *oldest = LIST_ITEM(ac->pending.head, struct expectation, in_all);
        report_missing(ac, oldest, sink, "no longer awaited: 10,000 replies were awaited at once");
        expectation_free(ac, oldest);
    }
}

/* --- the live side --- */

static void report_garbage(struct agentcheck *ac, const struct transport_line *line,
                           const char *why, struct diag_sink *sink)
{
    /* diag_emit escapes what it quotes (a NUL too), and cuts it short. */
    struct diag_where at = where_of(&ac->last_sent, NULL);
    ac->broken = true;
    diag_emit(sink, &at, "agent-garbage",
              "the agent wrote a line that is not a message (%s): '%.*s'; the replay ends", why,
              diag_quote_len(line->len), line->text);
}

static bool blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr(" \t\r", s[i]))
            return false;
    return true;
}

/* Whether the live reply msg ends the conversation c opened (a rejection, a refusal, a failure,
 * a final result), so that the agent can send nothing more to c. No partial result does. */
static bool ends_conversation(struct cause *c, const json_t *msg, enum protocol proto)
{
    if (!c->flow || c->ended_by || answers_partial(msg, proto))
        return false;
    answers_take(c->flow, msg, proto);
    return answers_over(c->flow);
}

/* Once the conversation is over, the replies still expected to c cannot come: each is settled
 * now, not at its deadline (which may be minutes away, twice a recorded delay). */
static void end_conversation(struct agentcheck *ac, struct cause *c, struct diag_sink *sink)
{
    while (c->pending.head && !ac->broken)
        settle(ac, LIST_ITEM(c->pending.head, struct expectation, in_cause), sink);
}

void agentcheck_live(struct agentcheck *ac, const struct transport_line *line, double now,
                     struct diag_sink *sink)
{
    ac->last_output = now;
    if (ac->broken || blank(line->text, line->len))
        return;
    if (line->too_long) {
        report_garbage(ac, line, "longer than --max-line-bytes", sink);
        return;
    }
    json_error_t err;
    json_t *msg = json_loadb(line->text, line->len, JSON_REJECT_DUPLICATES, &err);
    enum protocol proto = msg ? message_protocol(msg, CHOOSE_AUTO) : PROTO_NONE;
    if (!msg || !dialect_of(proto)) {
        report_garbage(ac, line, msg ? "neither IACP, FIPA nor MCP" : err.text, sink);
        json_decref(msg);
        return;
    }
    struct cause *c = cause_of(msg, proto, ac->by_live, ac->by_live_conv);
    if (!c) {
        json_decref(msg); /* it answers nothing that was sent: a heartbeat, an initiative */
        return;
    }
    if (ends_conversation(c, msg, proto))
        c->ended_by = xstrdup(kind_of(msg, proto));
    struct live_reply *r = xcalloc(1, sizeof *r);
    r->cause = c;
    r->msg = msg;
    r->proto = proto;
    list_append(&c->pool, &r->in_cause);
    list_append(&ac->pool, &r->in_all);
    struct expectation *e = pending_of_kind(c, msg, proto);
    if (e) {
        match(ac, e, r, sink);
        expectation_free(ac, e);
        live_free(ac, r);
    } else if (ac->pool.size > MAX_POOL) {
        struct live_reply *oldest = LIST_ITEM(ac->pool.head, struct live_reply, in_all);
        report_extra(ac, oldest, sink);
        live_free(ac, oldest);
    }
    if (c->ended_by)
        end_conversation(ac, c, sink);
}

/* --- deadlines and the end --- */

bool agentcheck_waiting(const struct agentcheck *ac)
{
    return ac->pending.size > 0;
}

double agentcheck_next_deadline(const struct agentcheck *ac)
{
    double next = INFINITY;
    for (const struct expectation *e = LIST_ITEM(ac->pending.head, struct expectation, in_all); e;
         e = LIST_ITEM(e->in_all.next, struct expectation, in_all))
        if (e->deadline < next)
            next = e->deadline;
    return next;
}

static void report_missing(struct agentcheck *ac, struct expectation *e, struct diag_sink *sink,
                           const char *why)
{
    struct diag_where at = where_of(&e->where, e->cause);
    ac->counts.differences++;
    diag_emit(sink, &at, "agent-missing", "no %s from the agent in answer to the message (%s)",
              kind_of(e->recorded, e->proto), why);
}

static void settle(struct agentcheck *ac, struct expectation *e, struct diag_sink *sink)
{
    struct cause *c = e->cause;
    char waited[32];
    format_seconds(waited, sizeof waited, e->deadline - c->sent_at);
    if (c->pool.head) {
        struct live_reply *r = LIST_ITEM(c->pool.head, struct live_reply, in_cause);
        struct diag_where at = where_of(&e->where, c);
        ac->counts.differences++;
        diag_emit(sink, &at, "agent-kind",
                  "the agent answered the message with %s where the recording has %s",
                  kind_of(r->msg, r->proto), kind_of(e->recorded, e->proto));
        bind_ids(ac, e, r);
        live_free(ac, r);
    } else if (c->ended_by) {
        struct strbuf why = STRBUF_INIT;
        sb_addf(&why, "the agent's %s ended the conversation", c->ended_by);
        report_missing(ac, e, sink, why.buf);
        sb_free(&why);
    } else if (ac->last_output < c->sent_at) {
        struct diag_where at = where_of(&e->where, c);
        ac->broken = true;
        diag_emit(sink, &at, "agent-hang",
                  "the agent wrote nothing in the %s after the message was sent, where the "
                  "recording has %s; it seems to hang, and the replay ends",
                  waited, kind_of(e->recorded, e->proto));
    } else {
        struct strbuf why = STRBUF_INIT;
        sb_addf(&why, "waited %s%s", waited, e->by_delay ? ", twice the recorded delay" : "");
        report_missing(ac, e, sink, why.buf);
        sb_free(&why);
    }
    expectation_free(ac, e);
}

void agentcheck_expire(struct agentcheck *ac, double now, struct diag_sink *sink)
{
    struct expectation *next;
    for (struct expectation *e = LIST_ITEM(ac->pending.head, struct expectation, in_all);
         e && !ac->broken; e = next) {
        next = LIST_ITEM(e->in_all.next, struct expectation, in_all);
        if (e->deadline <= now)
            settle(ac, e, sink);
    }
}

void agentcheck_gone(struct agentcheck *ac, const char *how, struct diag_sink *sink)
{
    if (ac->broken)
        return;
    ac->broken = true;
    if (ac->pending.head) {
        struct expectation *e = LIST_ITEM(ac->pending.head, struct expectation, in_all);
        struct diag_where at = where_of(&e->where, e->cause);
        diag_emit(sink, &at, "agent-exited",
                  "the agent %s while its %s was awaited; the replay ends", how,
                  kind_of(e->recorded, e->proto));
        return;
    }
    struct diag_where at = where_of(&ac->last_sent, NULL);
    diag_emit(sink, &at, "agent-exited", "the agent %s%s; the replay ends", how,
              ac->last_sent.file ? " after this message was sent" : " before anything was sent");
}

void agentcheck_stalled(struct agentcheck *ac, double seconds, struct diag_sink *sink)
{
    if (ac->broken)
        return;
    ac->broken = true;
    char waited[32];
    format_seconds(waited, sizeof waited, seconds);
    struct diag_where at = where_of(&ac->last_sent, NULL);
    diag_emit(sink, &at, "agent-hang",
              "the agent has not read its input for %s; it seems to hang, and the replay ends",
              waited);
}

bool agentcheck_broken(const struct agentcheck *ac)
{
    return ac->broken;
}

void agentcheck_finish(struct agentcheck *ac, struct diag_sink *sink)
{
    while (ac->pool.head) {
        struct live_reply *r = LIST_ITEM(ac->pool.head, struct live_reply, in_all);
        if (!ac->broken)
            report_extra(ac, r, sink);
        live_free(ac, r);
    }
}

struct agentcheck_counts agentcheck_counts(const struct agentcheck *ac)
{
    return ac->counts;
}
