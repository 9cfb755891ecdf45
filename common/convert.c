#include "convert.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iacp.h"
#include "strmap.h"
#include "timeutil.h"

/* How often (in messages) remembered conversations are checked for expiry. */
enum { SWEEP_EVERY = 4096 };

/* Unix seconds that RFC 3339 can write with four-digit years. */
static const double LAST_WRITABLE_SECOND = 253402300799.0;

struct remembered {
    char *opener; /* id of the message that opened the conversation */
    double seen;  /* message time it was last used */
};

struct converter {
    struct convert_config cfg;
    struct strmap *conversations; /* message id -> struct remembered */
    uint64_t rng;
    unsigned long fed;
    double latest; /* the latest message time seen */
};

static void free_remembered(void *v)
{
    struct remembered *r = v;
    if (r)
        free(r->opener);
    free(r);
}

struct converter *converter_new(const struct convert_config *cfg)
{
    struct converter *c = xcalloc(1, sizeof *c);
    c->cfg = *cfg;
    c->conversations = strmap_new();
    c->rng = (uint64_t)cfg->seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    c->latest = -INFINITY;
    return c;
}

void converter_free(struct converter *c)
{
    if (!c)
        return;
    strmap_free(c->conversations, free_remembered);
    free(c);
}

size_t converter_remembered(const struct converter *c)
{
    return strmap_size(c->conversations);
}

static uint64_t next_random(struct converter *c)
{
    /* xorshift64*: the same sequence on every machine for a given --seed. */
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 2685821657736338717ULL;
}

/* --- remembering conversations --- */

struct expiry {
    double before; /* forget what was last used before this time */
};

static bool expired(void *ctx, const char *key, void *value)
{
    (void)key;
    const struct expiry *e = ctx;
    struct remembered *r = value;
    if (r->seen >= e->before)
        return false;
    free_remembered(r);
    return true;
}

static bool oldest_and_newest(void *ctx, const char *key, void *value)
{
    (void)key;
    double *range = ctx;
    const struct remembered *r = value;
    range[0] = fmin(range[0], r->seen);
    range[1] = fmax(range[1], r->seen);
    return false;
}

/* Forgets idle conversations, then the older half of the rest until under the cap. */
static void forget(struct converter *c)
{
    if (isfinite(c->latest)) {
        struct expiry e = {c->latest - c->cfg.idle_timeout};
        strmap_sweep(c->conversations, expired, &e);
    }
    while (strmap_size(c->conversations) > c->cfg.max_open) {
        double range[2] = {INFINITY, -INFINITY};
        strmap_sweep(c->conversations, oldest_and_newest, range);
        double lo = range[0], hi = range[1];
        struct expiry e = {lo + (hi - lo) / 2};
        if (!isfinite(lo) || e.before <= lo)
            e.before = hi;
        if (lo == hi) /* all as old as each other: forget them all */
            e.before = INFINITY;
        strmap_sweep(c->conversations, expired, &e);
    }
}

/* The opener of the conversation that a message with this id (answering ref) belongs to. */
static const char *follow_conversation(struct converter *c, const char *id, const char *ref,
                                       double when)
{
    if (isfinite(when) && when > c->latest)
        c->latest = when;
    if (++c->fed % SWEEP_EVERY == 0 || strmap_size(c->conversations) > c->cfg.max_open)
        forget(c);
    const char *opener = id;
    if (ref) {
        /* A ref whose conversation is unknown (forgotten, or before the capture started)
         * answers the opener as far as this stream can tell. */
        struct remembered *known = strmap_get(c->conversations, ref);
        if (known && known->seen < c->latest - c->cfg.idle_timeout)
            known = NULL; /* idle too long: forgotten, even if not swept yet */
        opener = known ? known->opener : ref;
        if (known)
            known->seen = isfinite(when) ? when : c->latest;
    }
    struct remembered *r = xmalloc(sizeof *r);
    r->opener = xstrdup(opener);
    r->seen = isfinite(when) ? when : c->latest;
    free_remembered(strmap_put(c->conversations, id, r));
    return r->opener;
}

/* Makes opener the conversation of id, as a message that said so (x-fipa-conversation_id) has
 * it, so that the replies to id follow it too. */
static void correct_opener(struct converter *c, const char *id, const char *opener)
{
    struct remembered *r = strmap_get(c->conversations, id);
    if (r && strcmp(r->opener, opener) != 0) {
        free(r->opener);
        r->opener = xstrdup(opener);
    }
}

/* --- small JSON helpers --- */

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void set_prefixed(json_t *obj, const char *prefix, const char *name, json_t *v)
{
    size_t n = strlen(prefix) + strlen(name) + 1;
    char *key = xmalloc(n);
    snprintf(key, n, "%s%s", prefix, name);
    json_object_set(obj, key, v);
    free(key);
}

/* Whole unix seconds that RFC 3339 can write, or false. */
static bool unix_seconds(const json_t *v, long long *out)
{
    if (!json_is_integer(v))
        return false;
    json_int_t t = json_integer_value(v);
    if (t < 0 || (double)t > LAST_WRITABLE_SECOND)
        return false;
    *out = (long long)t;
    return true;
}

static json_t *rfc3339(long long t)
{
    char buf[48];
    time_format_rfc3339(t, buf, sizeof buf);
    return json_string(buf);
}

/* ts back from a timestamp that this converter wrote: an integer when it is whole. */
static json_t *seconds_json(double epoch)
{
    if (epoch == floor(epoch) && fabs(epoch) < 9e15)
        return json_integer((json_int_t)epoch);
    return json_real(epoch);
}

/* The member that says what a message is (kind, performative) is missing or unknown. */
static void report_unconvertible(struct diag_sink *sink, const struct diag_where *at,
                                 const char *code, const char *member, const char *value,
                                 const char *what)
{
    if (value)
        diag_emit(sink, at, SEV_ERROR, code, "'%s' is not %s; the message cannot be converted",
                  value, what);
    else
        diag_emit(sink, at, SEV_ERROR, code, "no string '%s': the message cannot be converted",
                  member);
}

/* --- IACP -> FIPA --- */

struct kind_mapping {
    enum fipa_act act;
    const char *protocol; /* NULL: none */
    const char *action;   /* ctl kinds: the action the content names */
};

static struct kind_mapping map_kind(enum iacp_kind kind, const json_t *body)
{
    switch (kind) {
    case IACP_TASK_ASSIGN:
        return (struct kind_mapping){FIPA_REQUEST, "fipa-request", NULL};
    case IACP_TASK_ACCEPT:
        return (struct kind_mapping){FIPA_AGREE, "fipa-request", NULL};
    case IACP_TASK_REJECT:
        return (struct kind_mapping){FIPA_REFUSE, "fipa-request", NULL};
    case IACP_TASK_RESULT: {
        const char *status = json_member_string(body, "status");
        bool ok = status && strcmp(status, "ok") == 0;
        return (struct kind_mapping){ok ? FIPA_INFORM : FIPA_FAILURE, "fipa-request", NULL};
    }
    case IACP_TASK_CANCEL:
        return (struct kind_mapping){FIPA_CANCEL, "fipa-request", NULL};
    case IACP_TOOL_QUERY:
        return (struct kind_mapping){FIPA_QUERY_REF, "fipa-query", NULL};
    case IACP_TOOL_REPLY:
        return (struct kind_mapping){FIPA_INFORM, "fipa-query", NULL};
    case IACP_CTL_DRAIN:
        return (struct kind_mapping){FIPA_REQUEST, "fipa-request", "drain"};
    case IACP_CTL_HALT:
        return (struct kind_mapping){FIPA_REQUEST, "fipa-request", "halt"};
    default:
        return (struct kind_mapping){FIPA_INFORM, NULL, NULL};
    }
}

static bool has_action_member(const json_t *body)
{
    return json_object_get(body, "action") != NULL;
}

/* body -> content: a ctl kind's action is added to it; a body the way back could not tell from
 * the content ({} or a body that clashes with the action) also travels whole in x-iacp-body. */
static json_t *iacp_content(const json_t *body, const char *action, json_t **x_body)
{
    *x_body = NULL;
    if (action) {
        json_t *content = json_pack("{ss}", "action", action);
        if (!body)
            return content;
        if (json_is_object(body) && json_object_size(body) > 0 && !has_action_member(body))
            json_object_update(content, (json_t *)body);
        else
            *x_body = (json_t *)body;
        return content;
    }
    if (!body)
        return json_object();
    if (json_is_object(body) && json_object_size(body) == 0)
        *x_body = (json_t *)body;
    return json_incref((json_t *)body); /* shared: nobody changes the content afterwards */
}

static json_t *deadline_reply_by(const json_t *body)
{
    json_t *deadline = json_object_get(body, "deadline");
    long long t;
    double epoch;
    bool zone;
    if (unix_seconds(deadline, &t))
        return rfc3339(t);
    const char *s = json_string_value(deadline);
    if (s && time_parse_rfc3339(s, &epoch, &zone) && zone)
        return json_string(s);
    return NULL;
}

static json_t *fipa_from_fipa_kind(struct converter *c, json_t *iacp, enum fipa_act act);

/* Whether an IACP member was carried by a FIPA member, so it needs no x-iacp- copy. */
static bool carried(const char *key, const json_t *v)
{
    long long t;
    if (strcmp(key, "kind") == 0 || strcmp(key, "body") == 0)
        return true;
    if (strcmp(key, "id") == 0 || strcmp(key, "from") == 0 || strcmp(key, "to") == 0 ||
        strcmp(key, "ref") == 0)
        return json_is_string(v);
    if (strcmp(key, "ts") == 0)
        return unix_seconds(v, &t);
    if (strcmp(key, "x-fipa-conversation_id") == 0)
        return json_is_string(v);
    return false;
}

json_t *convert_iacp_to_fipa(struct converter *c, json_t *iacp, struct diag_sink *sink,
                             const struct diag_where *at)
{
    const char *kind_name = json_member_string(iacp, "kind");
    enum iacp_kind kind = kind_name ? iacp_kind_parse(kind_name) : IACP_INVALID;
    if (kind == IACP_INVALID) {
        report_unconvertible(sink, at, "convert-iacp", "kind", kind_name, "an IACP kind");
        return NULL;
    }
    if (kind == IACP_FIPA)
        return fipa_from_fipa_kind(c, iacp, fipa_act_parse(kind_name + 5));
    if (kind == IACP_DOTTED)
        diag_emit(sink, at, SEV_WARNING, "convert-kind-unknown",
                  "unknown kind '%s' written as inform (x-iacp-kind keeps it)", kind_name);
    json_t *body = json_object_get(iacp, "body");
    struct kind_mapping map = map_kind(kind, body);
    json_t *out = json_object();
    json_object_set_new(out, "performative", json_string(fipa_act_name(map.act, SPELL_SNAKE)));
    const char *id = json_member_string(iacp, "id"), *ref = json_member_string(iacp, "ref");
    if (json_member_string(iacp, "from"))
        json_object_set(out, "sender", json_object_get(iacp, "from"));
    if (json_member_string(iacp, "to"))
        json_object_set(out, "receiver", json_object_get(iacp, "to"));
    json_t *x_body;
    json_object_set_new(out, "content", iacp_content(body, map.action, &x_body));
    if (id)
        json_object_set_new(out, "reply_with", json_string(id));
    if (ref)
        json_object_set_new(out, "in_reply_to", json_string(ref));
    json_t *ts = json_object_get(iacp, "ts");
    /* The way back keeps a conversation_id that the stream would not find again (a capture cut
     * in the middle of a conversation) in x-fipa-conversation_id; it wins here. */
    const char *conversation = json_member_string(iacp, "x-fipa-conversation_id");
    if (id) {
        double when = json_is_number(ts) ? json_number_value(ts) : NAN;
        const char *found = follow_conversation(c, id, ref, when);
        if (conversation)
            correct_opener(c, id, conversation);
        else
            conversation = found;
    }
    if (conversation)
        json_object_set_new(out, "conversation_id", json_string(conversation));
    if (map.protocol)
        json_object_set_new(out, "protocol", json_string(map.protocol));
    json_t *reply_by = kind == IACP_TASK_ASSIGN ? deadline_reply_by(body) : NULL;
    if (reply_by)
        json_object_set_new(out, "reply_by", reply_by);
    long long t;
    if (unix_seconds(ts, &t))
        json_object_set_new(out, "timestamp", rfc3339(t));
    json_object_set(out, "x-iacp-kind", json_object_get(iacp, "kind"));
    if (x_body)
        json_object_set(out, "x-iacp-body", x_body);
    const char *key;
    json_t *v;
    json_object_foreach(iacp, key, v)
    {
        if (!carried(key, v))
            set_prefixed(out, "x-iacp-", key, v);
    }
    return out;
}

/* --- FIPA -> IACP --- */

static bool is_ctl_kind(const char *kind)
{
    return kind && (strcmp(kind, "ctl.drain") == 0 || strcmp(kind, "ctl.halt") == 0);
}

/* content -> body for a message that came from IACP: the inverse of iacp_content. */
static json_t *body_from_content(const json_t *content, const char *kind)
{
    if (!content)
        return NULL;
    json_t *body = json_deep_copy(content);
    if (is_ctl_kind(kind) && json_is_object(body))
        json_object_del(body, "action");
    if (json_is_object(body) && json_object_size(body) == 0) {
        json_decref(body);
        return NULL;
    }
    return body;
}

static json_t *timestamp_seconds(const json_t *timestamp)
{
    double epoch;
    bool zone;
    const char *s = json_string_value(timestamp);
    if (s && time_parse_rfc3339(s, &epoch, &zone))
        return seconds_json(epoch);
    return NULL;
}

/* The way back of convert_iacp_to_fipa: exact, by x-iacp-kind and the other x-iacp-* members. */
/* conversation_id travels in x-fipa-conversation_id when the way there, following this
 * stream as this direction does, would not find it again (a capture cut in the middle of a
 * conversation). A redundant x-fipa-conversation_id of the input is not kept. */
static void keep_conversation(struct converter *c, json_t *fipa, json_t *out)
{
    const char *id = json_member_string(out, "id");
    const char *found = NULL;
    if (id) {
        json_t *ts = json_object_get(out, "ts");
        found = follow_conversation(c, id, json_member_string(out, "ref"),
                                    json_is_number(ts) ? json_number_value(ts) : NAN);
    }
    const char *conversation = json_member_string(fipa, "conversation_id");
    if (conversation && !(found && strcmp(conversation, found) == 0)) {
        json_object_set_new(out, "x-fipa-conversation_id", json_string(conversation));
        if (id)
            correct_opener(c, id, conversation);
    }
}

static json_t *iacp_from_iacp_origin(struct converter *c, json_t *fipa)
{
    json_t *out = json_object();
    json_t *kind = json_object_get(fipa, "x-iacp-kind");
    json_t *v = json_object_get(fipa, "x-iacp-v");
    if (v)
        json_object_set(out, "v", v);
    json_t *reply_with = json_object_get(fipa, "reply_with");
    if (json_is_string(reply_with))
        json_object_set(out, "id", reply_with);
    const char *sender = fipa_agent_name(json_object_get(fipa, "sender"));
    if (sender)
        json_object_set_new(out, "from", json_string(sender));
    json_t *receiver = json_object_get(fipa, "receiver");
    if (json_is_array(receiver) && json_array_size(receiver) == 1)
        receiver = json_array_get(receiver, 0);
    const char *to = fipa_agent_name(receiver);
    if (to)
        json_object_set_new(out, "to", json_string(to));
    json_object_set(out, "kind", kind);
    json_t *in_reply_to = json_object_get(fipa, "in_reply_to");
    if (json_is_string(in_reply_to))
        json_object_set(out, "ref", in_reply_to);
    json_t *ts = timestamp_seconds(json_object_get(fipa, "timestamp"));
    if (ts)
        json_object_set_new(out, "ts", ts);
    if (!json_object_get(fipa, "x-iacp-body")) {
        json_t *body = body_from_content(json_object_get(fipa, "content"), json_string_value(kind));
        if (body)
            json_object_set_new(out, "body", body);
    }
    static const char *const derived[] = {
        "performative", "sender",          "receiver", "content",  "reply_with",
        "in_reply_to",  "conversation_id", "protocol", "reply_by", "timestamp"};
    const char *key;
    json_t *member;
    json_object_foreach(fipa, key, member)
    {
        bool is_derived = false;
        for (size_t i = 0; i < sizeof derived / sizeof *derived; i++)
            is_derived = is_derived || strcmp(key, derived[i]) == 0;
        if (is_derived || strcmp(key, "x-iacp-kind") == 0 || strcmp(key, "x-iacp-v") == 0)
            continue;
        if (starts_with(key, "x-iacp-"))
            json_object_set(out, key + 7, member);
        else
            set_prefixed(out, "x-fipa-", key, member);
    }
    keep_conversation(c, fipa, out);
    return out;
}

static void note_absent(json_t **absent, const char *member)
{
    if (!*absent)
        *absent = json_array();
    json_array_append_new(*absent, json_string(member));
}

/* An id in the foragers' style: m- and six hex digits. */
static json_t *fresh_id(struct converter *c)
{
    char buf[16];
    snprintf(buf, sizeof buf, "m-%06" PRIx64, next_random(c) >> 40);
    return json_string(buf);
}

/* from and to: names; what a name cannot say (addresses, several receivers) rides along. */
static void map_agents(json_t *fipa, json_t *out)
{
    json_t *sender = json_object_get(fipa, "sender");
    const char *from = fipa_agent_name(sender);
    if (from)
        json_object_set_new(out, "from", json_string(from));
    if (sender && !(json_is_string(sender) && from))
        json_object_set(out, "x-fipa-sender", sender);
    json_t *receiver = json_object_get(fipa, "receiver");
    json_t *single = receiver;
    if (json_is_array(receiver))
        single = json_array_size(receiver) == 1 ? json_array_get(receiver, 0) : NULL;
    const char *to = fipa_agent_name(single);
    if (!to && json_is_array(receiver))
        to = fipa_agent_name(json_array_get(receiver, 0));
    if (to)
        json_object_set_new(out, "to", json_string(to));
    if (receiver && !(json_is_string(single) && fipa_agent_name(single)))
        json_object_set(out, "x-fipa-receiver", receiver);
}

/* The x-iacp-ts of a message without timestamp, written by fipa_from_fipa_kind for a ts that
 * no timestamp can say (not whole unix seconds, or none at all), or NULL. */
static json_t *ts_marker(const json_t *fipa)
{
    json_t *marker = json_object_get(fipa, "x-iacp-ts");
    long long t;
    if (!marker || json_object_get(fipa, "timestamp") || unix_seconds(marker, &t))
        return NULL;
    return marker;
}

/* Whether x-iacp-body says what the IACP body was, as fipa_from_fipa_kind writes it: null
 * beside a content of {} for no body, or a copy of a content that is not an object (null too). */
static bool body_marker(const json_t *fipa)
{
    json_t *marker = json_object_get(fipa, "x-iacp-body");
    json_t *content = json_object_get(fipa, "content");
    if (!marker || !content)
        return false;
    if (json_is_null(marker) && json_is_object(content))
        return json_object_size(content) == 0;
    return !json_is_object(content) && json_equal(marker, content);
}

/* ts from timestamp; a timestamp that its ts would not write back the same rides along. */
static void map_timestamp(struct converter *c, json_t *fipa, json_t *out, json_t **absent)
{
    json_t *timestamp = json_object_get(fipa, "timestamp");
    json_t *marker = ts_marker(fipa);
    if (marker) {
        json_object_set(out, "ts", marker);
        return;
    }
    if (!timestamp || json_is_null(timestamp)) {
        json_object_set_new(out, "ts", json_integer((json_int_t)c->cfg.now));
        if (!timestamp)
            note_absent(absent, "timestamp");
        else
            json_object_set(out, "x-fipa-timestamp", timestamp);
        return;
    }
    json_t *ts = json_is_number(timestamp) ? json_incref(timestamp) : timestamp_seconds(timestamp);
    if (!ts)
        ts = json_integer((json_int_t)c->cfg.now);
    json_object_set_new(out, "ts", ts);
    long long t;
    json_t *back = unix_seconds(ts, &t) ? rfc3339(t) : NULL;
    if (!back || !json_equal(back, timestamp))
        json_object_set(out, "x-fipa-timestamp", timestamp);
    json_decref(back);
}

/* x-iacp-<name>, as fipa_from_fipa_kind writes an IACP member that FIPA has no place for, goes
 * back to <name>; but not a name that the mapping writes itself (v only when it is not the one
 * written anyway), nor one that the way back would take for an x-fipa- member. */
static bool is_iacp_extra(const char *key, const json_t *v)
{
    static const char *const envelope[] = {"id", "from", "to", "kind", "body", "ref", "ts"};
    if (!starts_with(key, "x-iacp-") || !key[7] || starts_with(key + 7, "x-fipa-"))
        return false;
    for (size_t i = 0; i < sizeof envelope / sizeof *envelope; i++)
        if (strcmp(key + 7, envelope[i]) == 0)
            return false;
    const char *version = json_string_value(v);
    return strcmp(key + 7, "v") != 0 || !version || strcmp(version, "1.1") != 0;
}

json_t *convert_fipa_to_iacp(struct converter *c, json_t *fipa, struct diag_sink *sink,
                             const struct diag_where *at)
{
    if (json_object_get(fipa, "x-iacp-kind"))
        return iacp_from_iacp_origin(c, fipa);
    const char *performative = json_member_string(fipa, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID) {
        report_unconvertible(sink, at, "convert-fipa", "performative", performative, "a FIPA act");
        return NULL;
    }
    json_t *out = json_object();
    json_t *absent = NULL;
    char kind[48];
    snprintf(kind, sizeof kind, "fipa.%s", fipa_act_name(act, SPELL_SNAKE));
    json_object_set_new(out, "v", json_string("1.1"));
    json_t *reply_with = json_object_get(fipa, "reply_with");
    if (json_is_string(reply_with)) {
        json_object_set(out, "id", reply_with);
    } else {
        json_object_set_new(out, "id", fresh_id(c));
        if (!reply_with)
            note_absent(&absent, "reply_with");
    }
    map_agents(fipa, out);
    json_object_set_new(out, "kind", json_string(kind));
    json_t *in_reply_to = json_object_get(fipa, "in_reply_to");
    if (json_is_string(in_reply_to))
        json_object_set(out, "ref", in_reply_to);
    map_timestamp(c, fipa, out, &absent);
    json_t *content = json_object_get(fipa, "content");
    bool marked_body = body_marker(fipa);
    if (marked_body) {
        if (!json_is_object(content)) /* else {} stood for no body */
            json_object_set(out, "body", content);
    } else if (json_is_object(content))
        json_object_set(out, "body", content);
    else if (content)
        json_object_set(out, "x-fipa-content", content);
    else
        note_absent(&absent, "content");
    const char *key;
    json_t *v;
    json_object_foreach(fipa, key, v)
    {
        bool mapped = strcmp(key, "performative") == 0 || strcmp(key, "sender") == 0 ||
                      strcmp(key, "receiver") == 0 || strcmp(key, "content") == 0 ||
                      strcmp(key, "timestamp") == 0 ||
                      (strcmp(key, "reply_with") == 0 && json_is_string(v)) ||
                      (strcmp(key, "in_reply_to") == 0 && (json_is_string(v) || json_is_null(v)));
        bool marker = (strcmp(key, "x-iacp-body") == 0 && marked_body) ||
                      (strcmp(key, "x-iacp-ts") == 0 && ts_marker(fipa));
        if (mapped || marker)
            continue;
        if (is_iacp_extra(key, v))
            json_object_set(out, key + 7, v);
        else
            set_prefixed(out, "x-fipa-", key, v);
    }
    if (absent)
        json_object_set_new(out, "x-fipa-absent", absent);
    return out;
}

/* --- fipa.<act> IACP -> FIPA: the way back of convert_fipa_to_iacp --- */

static bool listed(const json_t *absent, const char *member)
{
    size_t i;
    json_t *v;
    json_array_foreach(absent, i, v) if (json_is_string(v) &&
                                         strcmp(json_string_value(v), member) == 0) return true;
    return false;
}

/* Whether ts says no more than the FIPA timestamp does: whole unix seconds (written as the
 * timestamp), or what map_timestamp made of the x-fipa-timestamp that travels beside it. */
static bool ts_mapped(const json_t *iacp, const json_t *ts)
{
    long long t;
    if (unix_seconds(ts, &t))
        return true;
    const json_t *timestamp = json_object_get(iacp, "x-fipa-timestamp");
    if (json_is_number(timestamp))
        return json_equal(timestamp, ts);
    json_t *seconds = timestamp_seconds(timestamp);
    bool same = seconds && json_equal(seconds, ts);
    json_decref(seconds);
    return same;
}

static json_t *fipa_from_fipa_kind(struct converter *c, json_t *iacp, enum fipa_act act)
{
    (void)c;
    json_t *absent = json_object_get(iacp, "x-fipa-absent");
    json_t *out = json_object();
    json_object_set_new(out, "performative", json_string(fipa_act_name(act, SPELL_SNAKE)));
    json_t *sender = json_object_get(iacp, "x-fipa-sender");
    if (!sender)
        sender = json_object_get(iacp, "from");
    if (sender)
        json_object_set(out, "sender", sender);
    json_t *receiver = json_object_get(iacp, "x-fipa-receiver");
    if (!receiver)
        receiver = json_object_get(iacp, "to");
    if (receiver)
        json_object_set(out, "receiver", receiver);
    json_t *body = json_object_get(iacp, "body");
    json_t *content = json_object_get(iacp, "x-fipa-content");
    if (!content)
        content = body;
    if (content)
        json_object_set(out, "content", content);
    else if (!listed(absent, "content"))
        json_object_set_new(out, "content", json_object());
    /* A body that the way back would not make of the content says so (see body_marker). */
    bool body_said = json_is_object(body) || json_object_get(iacp, "x-fipa-content") ||
                     (!body && listed(absent, "content"));
    if (!body_said)
        json_object_set_new(out, "x-iacp-body", body ? json_incref(body) : json_null());
    json_t *id = json_object_get(iacp, "id");
    if (id && !listed(absent, "reply_with"))
        json_object_set(out, "reply_with", id);
    json_t *ref = json_object_get(iacp, "ref");
    if (ref)
        json_object_set(out, "in_reply_to", ref);
    long long t;
    json_t *ts = json_object_get(iacp, "ts");
    if (!json_object_get(iacp, "x-fipa-timestamp") && !listed(absent, "timestamp") &&
        unix_seconds(ts, &t))
        json_object_set_new(out, "timestamp", rfc3339(t));
    /* Missing members that IACP requires come back missing (null) rather than made up. */
    if (!ts)
        json_object_set_new(out, "x-iacp-ts", json_null());
    if (!json_object_get(iacp, "v"))
        json_object_set_new(out, "x-iacp-v", json_null());
    const char *v_name = json_member_string(iacp, "v");
    const char *key;
    json_t *v;
    json_object_foreach(iacp, key, v)
    {
        if (strcmp(key, "x-fipa-absent") == 0 || strcmp(key, "x-fipa-content") == 0 ||
            strcmp(key, "x-fipa-sender") == 0 || strcmp(key, "x-fipa-receiver") == 0)
            continue;
        if (starts_with(key, "x-fipa-")) {
            json_object_set(out, key + 7, v);
            continue;
        }
        bool mapped = strcmp(key, "from") == 0 || strcmp(key, "to") == 0 ||
                      strcmp(key, "kind") == 0 || strcmp(key, "body") == 0 ||
                      strcmp(key, "id") == 0 || strcmp(key, "ref") == 0 ||
                      (strcmp(key, "ts") == 0 && ts_mapped(iacp, v)) ||
                      (strcmp(key, "v") == 0 && v_name && strcmp(v_name, "1.1") == 0);
        if (!mapped)
            set_prefixed(out, "x-iacp-", key, v);
    }
    return out;
}

bool convert_respell(json_t *fipa, enum fipa_spelling spelling)
{
    const char *performative = json_member_string(fipa, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID)
        return false;
    json_object_set_new(fipa, "performative", json_string(fipa_act_name(act, spelling)));
    return true;
}
