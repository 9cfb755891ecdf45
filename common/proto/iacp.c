#include "proto/iacp.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/dialect.h"
#include "proto/fipa.h"

enum direction { ANY_WAY, FROM_QUEEN, TO_QUEEN };

/* The seed: "Results must carry ref". The other replies answer a message too, but without ref
 * they are only unpaired, not wrong. */
enum ref_rule { REF_NONE, REF_EXPECTED, REF_REQUIRED };

struct kind_info {
    const char *name;
    enum direction direction;
    enum ref_rule ref;
};

static const struct kind_info kinds[] = {
    [IACP_TASK_ASSIGN] = {"task.assign", FROM_QUEEN, REF_NONE},
    [IACP_TASK_ACCEPT] = {"task.accept", TO_QUEEN, REF_EXPECTED},
    [IACP_TASK_REJECT] = {"task.reject", TO_QUEEN, REF_EXPECTED},
    [IACP_TASK_RESULT] = {"task.result", TO_QUEEN, REF_REQUIRED},
    [IACP_TASK_CANCEL] = {"task.cancel", FROM_QUEEN, REF_EXPECTED},
    [IACP_HB] = {"hb", ANY_WAY, REF_NONE},
    [IACP_MEM_SYNC] = {"mem.sync", ANY_WAY, REF_NONE},
    [IACP_TOOL_QUERY] = {"tool.query", ANY_WAY, REF_NONE},
    [IACP_TOOL_REPLY] = {"tool.reply", ANY_WAY, REF_EXPECTED},
    [IACP_CTL_DRAIN] = {"ctl.drain", FROM_QUEEN, REF_NONE},
    [IACP_CTL_HALT] = {"ctl.halt", FROM_QUEEN, REF_NONE},
    [IACP_FIPA] = {"fipa.*", ANY_WAY, REF_NONE},
    [IACP_DOTTED] = {"(unknown)", ANY_WAY, REF_NONE},
    [IACP_INVALID] = {"(invalid)", ANY_WAY, REF_NONE},
};

enum iacp_kind iacp_kind_parse(const char *kind)
{
    for (int k = 0; k < IACP_FIPA; k++)
        if (strcmp(kind, kinds[k].name) == 0)
            return (enum iacp_kind)k;
    if (strncmp(kind, "fipa.", 5) == 0 && fipa_act_parse(kind + 5) != FIPA_ACT_INVALID)
        return IACP_FIPA;
    const char *dot = strchr(kind, '.');
    if (dot && dot != kind && dot[1] != '\0')
        return IACP_DOTTED;
    return IACP_INVALID;
}

const char *iacp_kind_name(enum iacp_kind kind)
{
    return kinds[kind].name;
}

enum iacp_version iacp_version_parse(const char *v)
{
    if (strcmp(v, "1.1") == 0)
        return IACP_V1_1;
    if (strcmp(v, "1.0") == 0)
        return IACP_V1_0;
    if (strcmp(v, "2.0") == 0)
        return IACP_V2_0;
    return IACP_V_OTHER;
}

/* Checks a required member that must be a string (non-empty when asked); returns it or NULL. */
static const char *required_string(const struct message *m, struct diag_sink *sink, const char *key,
                                   bool non_empty)
{
    const struct jv *v = jv_object_get(m->view, key);
    if (!v) {
        diag_emit(sink, &m->at, "iacp-missing", "missing required member '%s'", key);
        return NULL;
    }
    const char *s = jv_string_value(v);
    if (!s || (non_empty && *s == '\0')) {
        diag_emit(sink, &m->at, "iacp-type", "'%s' must be a %sstring", key,
                  non_empty ? "non-empty " : "");
        return NULL;
    }
    return s;
}

static void check_version(const struct message *m, struct diag_sink *sink,
                          enum iacp_version *version)
{
    const char *v = required_string(m, sink, "v", false);
    *version = IACP_V1_1;
    if (!v)
        return;
    *version = iacp_version_parse(v);
    if (*version == IACP_V_OTHER)
        diag_emit(sink, &m->at, "iacp-version", "unknown IACP version '%s'", v);
    else if (*version != IACP_V1_1)
        diag_emit(sink, &m->at, "iacp-version-legacy", "IACP version %s (the colony speaks 1.1)",
                  v);
}

static void check_ts(const struct message *m, struct diag_sink *sink)
{
    const struct jv *ts = jv_object_get(m->view, "ts");
    if (!ts) {
        diag_emit(sink, &m->at, "iacp-missing", "missing required member 'ts'");
        return;
    }
    if (!jv_is_number(ts)) {
        diag_emit(sink, &m->at, "iacp-type", "'ts' must be a number of unix seconds");
        return;
    }
    double value = jv_number_value(ts);
    if (value < 0) {
        diag_emit(sink, &m->at, "iacp-ts", "'ts' is negative");
        return;
    }
    if (value > UNIX_NO_TIME_ABOVE) {
        diag_emit(sink, &m->at, "iacp-ts-range",
                  "'ts' is above 10^14: no time of this era, in seconds or in milliseconds");
        return;
    }
    /* 1312284100.0 is whole seconds written by a float-minded encoder; only a real fraction is
     * worth a word. */
    if (jv_is_real(ts) && value != floor(value))
        diag_emit(sink, &m->at, "iacp-ts-fraction",
                  "'ts' has a fractional part; IACP time is whole seconds");
    if (value > UNIX_MILLISECONDS_ABOVE)
        diag_emit(sink, &m->at, "iacp-ts-millis",
                  "'ts' is above 10^11 and looks like milliseconds");
}

static enum iacp_kind check_kind(const struct message *m, struct diag_sink *sink)
{
    const char *kind = required_string(m, sink, "kind", false);
    if (!kind)
        return IACP_INVALID;
    enum iacp_kind k = iacp_kind_parse(kind);
    if (k == IACP_INVALID)
        diag_emit(sink, &m->at, "iacp-kind", "'%s' is not an IACP kind", kind);
    else if (k == IACP_DOTTED)
        diag_emit(sink, &m->at, "iacp-kind-unknown", "unknown kind '%s'", kind);
    return k;
}

static void check_direction(const struct message *m, struct diag_sink *sink,
                            const struct iacp_rules *rules, enum iacp_kind k, const char *from,
                            const char *to)
{
    if (strcmp(rules->queen, "queen") != 0) {
        if (from && strcmp(from, "queen") == 0)
            diag_emit(sink, &m->at, "iacp-reserved-name",
                      "sender 'queen' is not the queen ('%s'); only the queen may be called queen",
                      rules->queen);
        if (to && strcmp(to, "queen") == 0)
            diag_emit(sink, &m->at, "iacp-reserved-name",
                      "receiver 'queen' is not the queen ('%s'); only the queen may be called "
                      "queen",
                      rules->queen);
    }
    if (!from || !to)
        return;
    bool from_queen = strcmp(from, rules->queen) == 0;
    bool to_queen = strcmp(to, rules->queen) == 0;
    const char *name = kinds[k].name;
    if (kinds[k].direction == FROM_QUEEN && (!from_queen || to_queen))
        diag_emit(sink, &m->at, "iacp-direction",
                  "%s goes from the queen to a forager, not from '%s' to '%s'", name, from, to);
    else if (kinds[k].direction == TO_QUEEN && (from_queen || !to_queen))
        diag_emit(sink, &m->at, "iacp-direction",
                  "%s goes from a forager to the queen, not from '%s' to '%s'", name, from, to);
}

static bool all_hex(const char *s, size_t min, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]))
            return false;
    return n >= min && n <= max;
}

static void check_id_style(const struct message *m, struct diag_sink *sink, const char *id,
                           bool from_queen)
{
    bool ok = from_queen ? strncmp(id, "q-", 2) == 0 && all_hex(id + 2, 1, (size_t)-1)
                         : strncmp(id, "m-", 2) == 0 && all_hex(id + 2, 6, 6);
    if (!ok)
        diag_emit(sink, &m->at, "iacp-id-style",
                  from_queen ? "id '%s' is not q- and hex digits, as the queen writes them"
                             : "id '%s' is not m- and 6 hex digits, as foragers write them",
                  id);
}

static void check_body(const struct message *m, struct diag_sink *sink, enum iacp_kind k)
{
    const struct jv *body = jv_object_get(m->view, "body");
    if (body && !jv_is_object(body)) {
        diag_emit(sink, &m->at, "iacp-type", "'body' must be an object");
        body = NULL;
    }
    if (k == IACP_TASK_REJECT && !jv_is_string(jv_object_get(body, "reason")))
        diag_emit(sink, &m->at, "iacp-reason", "task.reject must carry a string body.reason");
    if (k == IACP_TASK_RESULT) {
        const struct jv *partial = jv_object_get(body, "partial");
        if (partial && !jv_is_boolean(partial))
            diag_emit(sink, &m->at, "iacp-partial", "body.partial must be true or false");
    }
}

void iacp_check(const struct message *m, const struct iacp_rules *rules, struct diag_sink *sink)
{
    enum iacp_version version;
    check_version(m, sink, &version);
    /* The kind first: what the message is says which members it needs, and an unknown one (a
     * typo) is the problem to name before the members a known kind would have had filled in. */
    enum iacp_kind k = check_kind(m, sink);
    const char *id = required_string(m, sink, "id", true);
    const char *from = required_string(m, sink, "from", true);
    const char *to = required_string(m, sink, "to", true);
    check_ts(m, sink);
    const struct jv *ref = jv_object_get(m->view, "ref");
    if (ref && !jv_is_string(ref))
        diag_emit(sink, &m->at, "iacp-type", "'ref' must be a string");
    else if (!ref && kinds[k].ref == REF_REQUIRED && version != IACP_V1_0)
        diag_emit(sink, &m->at, "iacp-ref-missing", "%s must carry 'ref'", kinds[k].name);
    else if (!ref && kinds[k].ref == REF_EXPECTED && version != IACP_V1_0)
        diag_emit(sink, &m->at, "iacp-no-ref",
                  "%s carries no 'ref': it cannot be paired with the message it answers",
                  kinds[k].name);
    check_direction(m, sink, rules, k, from, to);
    check_body(m, sink, k);
    if (k == IACP_MEM_SYNC && version == IACP_V1_1)
        diag_emit(sink, &m->at, "iacp-mem-sync",
                  "mem.sync came with IACP 2.0; a 1.1 agent may not know it");
    if (id && from)
        check_id_style(m, sink, id, strcmp(from, rules->queen) == 0);
}

/* ---- the dialect ---- */

/* The time an IACP ts of v says: milliseconds above 10^11, none above 10^14 or below 0. */
static bool ts_time(double v, double *t, bool *whole_second)
{
    if (!(v >= 0 && v <= UNIX_NO_TIME_ABOVE))
        return false; /* below 0, or beyond any era */
    if (v > UNIX_MILLISECONDS_ABOVE) {
        *t = v / 1000;
        return true;
    }
    *t = v;
    *whole_second = v == floor(v);
    return true;
}

static bool iacp_time(const struct jv *view, double *t, bool *whole_second)
{
    *whole_second = false;
    const struct jv *ts = jv_object_get(view, "ts");
    return jv_is_number(ts) && ts_time(jv_number_value(ts), t, whole_second);
}

static bool iacp_time_tree(const json_t *root, double *t, bool *whole_second)
{
    *whole_second = false;
    const json_t *ts = json_object_get(root, "ts");
    return json_is_number(ts) && ts_time(json_number_value(ts), t, whole_second);
}

static bool iacp_beyond_era(const json_t *root)
{
    const json_t *ts = json_object_get(root, "ts");
    return json_is_number(ts) && !(json_number_value(ts) <= UNIX_NO_TIME_ABOVE);
}

/* ts in whole seconds. */
static void iacp_set_time(json_t *root, double wall)
{
    json_object_set_new(root, "ts", json_integer((json_int_t)floor(wall)));
}

static const char *iacp_agent_name(const struct jv *agent)
{
    return jv_string_value(agent);
}

static const char *iacp_agent_name_tree(const json_t *agent)
{
    return json_string_value(agent);
}

static const char *iacp_act_name(const struct jv *view)
{
    const char *kind = jv_member_string(view, "kind");
    return kind ? kind : "(no kind)";
}

static bool iacp_partial(const struct jv *view)
{
    return jv_is_true(jv_object_get(jv_object_get(view, "body"), "partial"));
}

static bool iacp_partial_tree(const json_t *root)
{
    return json_is_true(json_object_get(json_object_get(root, "body"), "partial"));
}

static const char *iacp_act_canonical(const char *kind)
{
    return kind;
}

static void iacp_check_by_rules(const struct message *m, const struct check_rules *rules,
                                struct diag_sink *sink)
{
    iacp_check(m, &rules->iacp, sink);
}

/* The forager: the party that is not the queen; between two others (the tool registry), the
 * forager that queried it, the receiver of a tool.reply, else the sender. */
static const char *iacp_partition_key(const struct jv *view, const char *queen)
{
    const char *from = jv_member_string(view, "from"), *to = jv_member_string(view, "to");
    const char *kind = jv_member_string(view, "kind");
    if (from && strcmp(from, queen) == 0)
        return to;
    if (to && strcmp(to, queen) == 0)
        return from;
    return kind && strcmp(kind, "tool.reply") == 0 ? to : from;
}

const struct dialect dialect_iacp = {
    .proto = PROTO_IACP,
    .name = "iacp",
    .display = "IACP",
    .marks = (const struct dialect_member[]){DIALECT_MEMBER("kind"), DIALECT_MEMBER("v"), {0}},
    .id = DIALECT_MEMBER("id"),
    .answers_member = "ref",
    .sender_member = "from",
    .receivers_member = "to",
    .names_agents = true,
    .act_member = "kind",
    .content_member = "body",
    .label_id_members = (const char *const[]){"ref", "id", NULL},
    .answers_by_conversation = false,
    .result_act = "task.result",
    .partial_result_act = "partial task.result",
    .agent_name = iacp_agent_name,
    .agent_name_tree = iacp_agent_name_tree,
    .act_name = iacp_act_name,
    .time = iacp_time,
    .time_tree = iacp_time_tree,
    .beyond_era = iacp_beyond_era,
    .set_time = iacp_set_time,
    .act_canonical = iacp_act_canonical,
    .partial = iacp_partial,
    .partial_tree = iacp_partial_tree,
    .codes = iacp_codes,
    .partition_key = iacp_partition_key,
    .check = iacp_check_by_rules,
};
