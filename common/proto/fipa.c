#include "proto/fipa.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/timeutil.h"
#include "proto/dialect.h"

/* Each act in the three spellings a writer may choose, indexed by enum fipa_spelling. */
static const char *const act_names[FIPA_ACT_COUNT][3] = {
    [FIPA_ACCEPT_PROPOSAL] = {"accept_proposal", "accept-proposal", "ACCEPT_PROPOSAL"},
    [FIPA_AGREE] = {"agree", "agree", "AGREE"},
    [FIPA_CANCEL] = {"cancel", "cancel", "CANCEL"},
    [FIPA_CFP] = {"cfp", "cfp", "CFP"},
    [FIPA_CONFIRM] = {"confirm", "confirm", "CONFIRM"},
    [FIPA_DISCONFIRM] = {"disconfirm", "disconfirm", "DISCONFIRM"},
    [FIPA_FAILURE] = {"failure", "failure", "FAILURE"},
    [FIPA_INFORM] = {"inform", "inform", "INFORM"},
    [FIPA_INFORM_IF] = {"inform_if", "inform-if", "INFORM_IF"},
    [FIPA_INFORM_REF] = {"inform_ref", "inform-ref", "INFORM_REF"},
    [FIPA_NOT_UNDERSTOOD] = {"not_understood", "not-understood", "NOT_UNDERSTOOD"},
    [FIPA_PROPAGATE] = {"propagate", "propagate", "PROPAGATE"},
    [FIPA_PROPOSE] = {"propose", "propose", "PROPOSE"},
    [FIPA_PROXY] = {"proxy", "proxy", "PROXY"},
    [FIPA_QUERY_IF] = {"query_if", "query-if", "QUERY_IF"},
    [FIPA_QUERY_REF] = {"query_ref", "query-ref", "QUERY_REF"},
    [FIPA_REFUSE] = {"refuse", "refuse", "REFUSE"},
    [FIPA_REJECT_PROPOSAL] = {"reject_proposal", "reject-proposal", "REJECT_PROPOSAL"},
    [FIPA_REQUEST] = {"request", "request", "REQUEST"},
    [FIPA_REQUEST_WHEN] = {"request_when", "request-when", "REQUEST_WHEN"},
    [FIPA_REQUEST_WHENEVER] = {"request_whenever", "request-whenever", "REQUEST_WHENEVER"},
    [FIPA_SUBSCRIBE] = {"subscribe", "subscribe", "SUBSCRIBE"},
    [FIPA_COUNTER_PROPOSE] = {"counter_propose", "counter-propose", "COUNTER_PROPOSE"},
};

/* Longest act name plus its NUL: "request_whenever". */
enum { ACT_NAME_MAX = 24 };

/* s is the snake_case name, or its kebab-case. */
static bool is_lower_name(const char *s, const char *snake)
{
    for (; *snake; s++, snake++)
        if (*s != *snake && !(*s == '-' && *snake == '_'))
            return false;
    return *s == '\0';
}

/* The act whose snake_case or kebab-case name s is. */
static enum fipa_act lookup_lower(const char *s)
{
    for (int a = 0; a < FIPA_ACT_COUNT; a++) {
        const char *name = act_names[a][SPELL_SNAKE];
        if (name[0] == s[0] && is_lower_name(s, name))
            return (enum fipa_act)a;
    }
    return FIPA_ACT_INVALID;
}

/* AcceptProposal -> accept_proposal; false when s is not PascalCase. */
static bool pascal_to_snake(const char *s, char *out)
{
    size_t n = 0;
    if (!isupper((unsigned char)s[0]))
        return false;
    for (const char *p = s; *p; p++) {
        if (!isalpha((unsigned char)*p) || n + 3 > ACT_NAME_MAX)
            return false;
        if (isupper((unsigned char)*p) && p != s)
            out[n++] = '_';
        out[n++] = (char)tolower((unsigned char)*p);
    }
    out[n] = '\0';
    return true;
}

/* accept-proposal, ACCEPT_PROPOSAL -> accept_proposal; false on mixed case. */
static bool uniform_to_snake(const char *s, char *out)
{
    bool lower = false, upper = false;
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (n + 2 > ACT_NAME_MAX)
            return false;
        if (islower(c))
            lower = true;
        else if (isupper(c))
            upper = true;
        else if (c != '_' && c != '-')
            return false;
        out[n++] = c == '-' ? '_' : (char)tolower(c);
    }
    out[n] = '\0';
    return !(lower && upper);
}

enum fipa_act fipa_act_parse(const char *s)
{
    /* the spellings of nearly every message need no copy (every tool parses each message's
     * performative several times) */
    enum fipa_act act = lookup_lower(s);
    if (act != FIPA_ACT_INVALID)
        return act;
    char snake[ACT_NAME_MAX];
    if (uniform_to_snake(s, snake)) {
        act = lookup_lower(snake);
        if (act != FIPA_ACT_INVALID)
            return act;
    }
    if (pascal_to_snake(s, snake))
        return lookup_lower(snake);
    return FIPA_ACT_INVALID;
}

const char *fipa_act_name(enum fipa_act act, enum fipa_spelling spelling)
{
    if (act < 0 || act >= FIPA_ACT_COUNT)
        return NULL;
    return act_names[act][spelling];
}

static const char *const protocols[] = {
    "fipa-request",
    "fipa-query",
    "fipa-request-when",
    "fipa-contract-net",
    "fipa-iterated-contract-net",
    "fipa-propose",
    "fipa-subscribe",
    "fipa-brokering",
    "fipa-recruiting",
    "fipa-auction-english",
    "fipa-auction-dutch",
    "fipa-english-auction",
    "fipa-dutch-auction",
};

/* Whether name is an interaction protocol this toolkit knows (case-insensitively). */
static bool fipa_protocol_known(const char *name)
{
    for (size_t i = 0; i < sizeof protocols / sizeof *protocols; i++)
        if (strcasecmp(name, protocols[i]) == 0)
            return true;
    return false;
}

const char *fipa_agent_name(const json_t *v)
{
    const char *name =
        json_is_object(v) ? json_string_value(json_object_get(v, "name")) : json_string_value(v);
    return name && *name ? name : NULL;
}

static bool jv_string_array(const struct jv *v)
{
    if (!jv_is_array(v))
        return false;
    for (const struct jv *item = jv_array_first(v); item; item = jv_array_next(v, item))
        if (!jv_is_string(item))
            return false;
    return true;
}

const char *fipa_agent_name_jv(const struct jv *v)
{
    const char *name = jv_is_object(v) ? jv_member_string(v, "name") : jv_string_value(v);
    return name && *name ? name : NULL;
}

bool fipa_agent_valid_jv(const struct jv *v)
{
    if (!fipa_agent_name_jv(v))
        return false;
    if (!jv_is_object(v))
        return true;
    const struct jv *addresses = jv_object_get(v, "addresses");
    if (addresses && !jv_string_array(addresses))
        return false;
    const struct jv *resolvers = jv_object_get(v, "resolvers");
    if (resolvers) {
        if (!jv_is_array(resolvers))
            return false;
        for (const struct jv *r = jv_array_first(resolvers); r; r = jv_array_next(resolvers, r))
            if (!fipa_agent_valid_jv(r))
                return false;
    }
    return true;
}

/* A single agent, or a non-empty array of them. */
static bool agent_set_valid(const struct jv *v)
{
    if (!jv_is_array(v))
        return fipa_agent_valid_jv(v);
    if (jv_array_size(v) == 0)
        return false;
    for (const struct jv *a = jv_array_first(v); a; a = jv_array_next(v, a))
        if (!fipa_agent_valid_jv(a))
            return false;
    return true;
}

static enum fipa_act check_performative(const struct message *m, struct diag_sink *sink)
{
    const struct jv *p = jv_object_get(m->view, "performative");
    const char *s = jv_string_value(p);
    if (!s) {
        diag_emit(sink, &m->at, "fipa-type", "'performative' must be a string");
        return FIPA_ACT_INVALID;
    }
    enum fipa_act act = fipa_act_parse(s);
    if (act == FIPA_ACT_INVALID)
        diag_emit(sink, &m->at, "fipa-performative", "'%s' is not a FIPA communicative act", s);
    return act;
}

static void check_required(const struct message *m, const struct fipa_rules *rules,
                           struct diag_sink *sink)
{
    static const char *const required[] = {"performative", "sender", "receiver", "content"};
    size_t n = rules->profile == FIPA_PROFILE_STANDARD ? 1 : sizeof required / sizeof *required;
    for (size_t i = 0; i < n; i++)
        if (!jv_object_get(m->view, required[i]))
            diag_emit(sink, &m->at, "fipa-missing", "missing required member '%s'", required[i]);
}

static void check_agents(const struct message *m, const struct fipa_rules *rules,
                         struct diag_sink *sink)
{
    const struct jv *sender = jv_object_get(m->view, "sender");
    if (sender && !fipa_agent_valid_jv(sender))
        diag_emit(sink, &m->at, "fipa-agent",
                  "'sender' must be an agent name or an agent-identifier object");
    const struct jv *receiver = jv_object_get(m->view, "receiver");
    /* SC00061 makes the receiver optional: an empty set says the same as none. */
    bool no_receiver = rules->profile == FIPA_PROFILE_STANDARD && jv_is_array(receiver) &&
                       jv_array_size(receiver) == 0;
    if (receiver && !no_receiver && !agent_set_valid(receiver))
        diag_emit(sink, &m->at, "fipa-agent",
                  "'receiver' must be an agent or a non-empty array of agents");
    const struct jv *reply_to = jv_object_get(m->view, "reply_to");
    if (reply_to && !agent_set_valid(reply_to))
        diag_emit(sink, &m->at, "fipa-agent",
                  "'reply_to' must be an agent or a non-empty array of agents");
}

static void check_strings(const struct message *m, struct diag_sink *sink)
{
    static const char *const strings[] = {"conversation_id", "reply_with", "language",
                                          "encoding",        "ontology",   "protocol"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        const struct jv *v = jv_object_get(m->view, strings[i]);
        if (v && !jv_is_string(v))
            diag_emit(sink, &m->at, "fipa-type", "'%s' must be a string", strings[i]);
    }
    const struct jv *irt = jv_object_get(m->view, "in_reply_to");
    if (irt && !jv_is_string(irt) && !jv_is_null(irt))
        diag_emit(sink, &m->at, "fipa-type", "'in_reply_to' must be a string or null");
}

/* A time in unix seconds: reported when it cannot be seconds of this era. */
static void check_seconds(const struct message *m, struct diag_sink *sink, const char *key,
                          double value)
{
    if (value > UNIX_NO_TIME_ABOVE)
        diag_emit(sink, &m->at, "fipa-time-range",
                  "'%s' is above 10^14: neither unix seconds nor milliseconds of this era", key);
    else if (value > UNIX_MILLISECONDS_ABOVE)
        diag_emit(sink, &m->at, "fipa-time-millis",
                  "'%s' is above 10^11 and looks like milliseconds", key);
}

static void check_date_time(const struct message *m, struct diag_sink *sink, const char *key,
                            bool seconds_allowed)
{
    const struct jv *v = jv_object_get(m->view, key);
    if (!v)
        return;
    if (seconds_allowed && jv_is_number(v) && jv_number_value(v) >= 0) {
        check_seconds(m, sink, key, jv_number_value(v));
        return;
    }
    double epoch;
    bool zone;
    const char *s = jv_string_value(v);
    if (!s || !time_parse_rfc3339(s, &epoch, &zone)) {
        diag_emit(sink, &m->at, "fipa-time",
                  seconds_allowed ? "'%s' must be an RFC 3339 date-time or unix seconds"
                                  : "'%s' must be an RFC 3339 date-time",
                  key);
        return;
    }
    if (!zone)
        diag_emit(sink, &m->at, "fipa-time-zone", "'%s' has no time zone; read as UTC", key);
}

static bool is_reply_act(enum fipa_act act)
{
    switch (act) {
    case FIPA_AGREE:
    case FIPA_REFUSE:
    case FIPA_FAILURE:
    case FIPA_NOT_UNDERSTOOD:
    case FIPA_ACCEPT_PROPOSAL:
    case FIPA_REJECT_PROPOSAL:
        return true;
    default:
        return false;
    }
}

static void check_conventions(const struct message *m, struct diag_sink *sink, enum fipa_act act)
{
    if (is_reply_act(act) && !jv_is_string(jv_object_get(m->view, "in_reply_to")))
        diag_emit(sink, &m->at, "fipa-no-in-reply-to",
                  "%s answers a message but has no in_reply_to", fipa_act_name(act, SPELL_KEBAB));
    if ((act == FIPA_REQUEST || act == FIPA_CFP) &&
        !jv_is_string(jv_object_get(m->view, "reply_with")))
        diag_emit(sink, &m->at, "fipa-no-reply-with",
                  "%s without reply_with: replies cannot name it", fipa_act_name(act, SPELL_KEBAB));
}

static void check_protocol_name(const struct message *m, struct diag_sink *sink)
{
    const char *protocol = jv_member_string(m->view, "protocol");
    if (protocol && !fipa_protocol_known(protocol))
        diag_emit(sink, &m->at, "fipa-protocol-unknown", "unknown interaction protocol '%s'",
                  protocol);
}

static bool time_value(const json_t *v, double *epoch)
{
    if (json_is_number(v) && json_number_value(v) >= 0) {
        double value = json_number_value(v);
        if (value > UNIX_NO_TIME_ABOVE)
            return false;
        *epoch = value > UNIX_MILLISECONDS_ABOVE ? value / 1000 : value;
        return true;
    }
    bool zone;
    const char *s = json_string_value(v);
    return s && time_parse_rfc3339(s, epoch, &zone);
}

bool fipa_message_time(const json_t *root, double *epoch)
{
    return time_value(json_object_get(root, "timestamp"), epoch) ||
           time_value(json_object_get(root, "created_at"), epoch);
}

bool fipa_time_value_jv(const struct jv *v, double *epoch)
{
    if (jv_is_number(v) && jv_number_value(v) >= 0) {
        double value = jv_number_value(v);
        if (value > UNIX_NO_TIME_ABOVE)
            return false;
        *epoch = value > UNIX_MILLISECONDS_ABOVE ? value / 1000 : value;
        return true;
    }
    bool zone;
    const char *s = jv_string_value(v);
    return s && time_parse_rfc3339(s, epoch, &zone);
}

bool fipa_message_time_jv(const struct jv *view, double *epoch)
{
    return fipa_time_value_jv(jv_object_get(view, "timestamp"), epoch) ||
           fipa_time_value_jv(jv_object_get(view, "created_at"), epoch);
}

bool fipa_profile_parse(const char *s, enum fipa_profile *profile)
{
    if (strcmp(s, "caxton") == 0)
        *profile = FIPA_PROFILE_CAXTON;
    else if (strcmp(s, "standard") == 0)
        *profile = FIPA_PROFILE_STANDARD;
    else
        return false;
    return true;
}

static void check_message(const struct message *m, const struct fipa_rules *rules,
                          bool protocol_name, struct diag_sink *sink)
{
    /* The act first: what the message is, and a misspelt one is the problem to name before
     * the members it lacks. */
    enum fipa_act act = FIPA_ACT_INVALID;
    if (jv_object_get(m->view, "performative"))
        act = check_performative(m, sink);
    check_required(m, rules, sink);
    check_agents(m, rules, sink);
    check_strings(m, sink);
    check_date_time(m, sink, "reply_by", false);
    check_date_time(m, sink, "timestamp", true);
    /* created_at is Caxton's, otherwise free; only a number that cannot be seconds matters. */
    const struct jv *created_at = jv_object_get(m->view, "created_at");
    if (jv_is_number(created_at))
        check_seconds(m, sink, "created_at", jv_number_value(created_at));
    check_conventions(m, sink, act);
    if (protocol_name)
        check_protocol_name(m, sink);
}

void fipa_check(const struct message *m, const struct fipa_rules *rules, struct diag_sink *sink)
{
    check_message(m, rules, true, sink);
}

void fipa_check_in_stream(const struct message *m, const struct fipa_rules *rules,
                          struct diag_sink *sink)
{
    check_message(m, rules, false, sink);
}

/* ---- the dialect ---- */

static bool fipa_time(const struct jv *view, double *t, bool *whole_second)
{
    *whole_second = false;
    return fipa_message_time_jv(view, t);
}

static bool fipa_time_tree(const json_t *root, double *t, bool *whole_second)
{
    *whole_second = false;
    return fipa_message_time(root, t);
}

static bool fipa_beyond_era(const json_t *root)
{
    (void)root; /* a time beyond any era is no time at all */
    return false;
}

/* The timestamp (created_at when only that is there), in RFC 3339 to the millisecond. */
static void fipa_set_time(json_t *root, double wall)
{
    const char *key = json_object_get(root, "timestamp") || !json_object_get(root, "created_at")
                          ? "timestamp"
                          : "created_at";
    long long secs = (long long)floor(wall);
    int millis = (int)((wall - (double)secs) * 1000);
    char buf[48];
    time_format_rfc3339(secs, buf, sizeof buf);
    size_t n = strlen(buf);
    snprintf(buf + n - 1, sizeof buf - (n - 1), ".%03dZ", millis);
    json_object_set_new(root, key, json_string(buf));
}

static const char *fipa_act_name_of(const struct jv *view)
{
    const char *performative = jv_member_string(view, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act != FIPA_ACT_INVALID)
        return fipa_act_name(act, SPELL_KEBAB);
    return performative ? performative : "(no performative)";
}

static bool fipa_partial(const struct jv *view)
{
    return jv_is_true(jv_object_get(view, "x-acp-partial"));
}

static bool fipa_partial_tree(const json_t *root)
{
    return json_is_true(json_object_get(root, "x-acp-partial"));
}

static const char *fipa_act_canonical(const char *performative)
{
    enum fipa_act act = fipa_act_parse(performative);
    return act != FIPA_ACT_INVALID ? fipa_act_name(act, SPELL_SNAKE) : performative;
}

static void fipa_check_by_rules(const struct message *m, const struct check_rules *rules,
                                struct diag_sink *sink)
{
    if (rules->in_stream)
        fipa_check_in_stream(m, &rules->fipa, sink);
    else
        fipa_check(m, &rules->fipa, sink);
}

/* The conversation_id, as the token of its subject; a message without one goes by its sender. */
static const char *fipa_partition_key(const struct jv *view, const char *queen)
{
    (void)queen;
    const char *name = jv_member_string(view, "conversation_id");
    return name ? name : fipa_agent_name_jv(jv_object_get(view, "sender"));
}

const struct dialect dialect_fipa = {
    .proto = PROTO_FIPA,
    .name = "fipa",
    .display = "FIPA",
    .marks = (const struct dialect_member[]){DIALECT_MEMBER("performative"), {0}},
    .id = DIALECT_MEMBER("reply_with"),
    .answers_member = "in_reply_to",
    .sender_member = "sender",
    .receivers_member = "receiver",
    .names_agents = true,
    .act_member = "performative",
    .content_member = "content",
    .label_id_members = (const char *const[]){"conversation_id", "in_reply_to", "reply_with", NULL},
    .answers_by_conversation = true,
    .result_act = "inform",
    .partial_result_act = "partial inform",
    .agent_name = fipa_agent_name_jv,
    .agent_name_tree = fipa_agent_name,
    .act_name = fipa_act_name_of,
    .time = fipa_time,
    .time_tree = fipa_time_tree,
    .beyond_era = fipa_beyond_era,
    .set_time = fipa_set_time,
    .act_canonical = fipa_act_canonical,
    .partial = fipa_partial,
    .partial_tree = fipa_partial_tree,
    .codes = fipa_codes,
    .partition_key = fipa_partition_key,
    .check = fipa_check_by_rules,
};
