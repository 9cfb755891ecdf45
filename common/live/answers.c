#include "live/answers.h"

#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"
#include "live/answers_rules.h"
#include "proto/dialect.h"

/* The dialects' rules of answering. */
static const struct answer_rules *const answer_table[] = {&iacp_answer_rules, &fipa_answer_rules,
                                                          &mcp_answer_rules};

static const struct answer_rules *rules_of(enum protocol proto)
{
    for (size_t i = 0; i < sizeof answer_table / sizeof answer_table[0]; i++)
        if (answer_table[i]->proto == proto)
            return answer_table[i];
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

bool answers_followed(enum protocol proto)
{
    return rules_of(proto) != NULL;
}

void answers_set_state(struct answers *a, const char *text)
{
    sb_reset(&a->state);
    sb_adds(&a->state, text);
}

struct answers *answers_new(const json_t *sent, enum protocol proto)
{
    const struct answer_rules *r = rules_of(proto);
    enum flow flow = r ? r->flow(sent) : FLOW_NONE;
    if (flow == FLOW_NONE)
        return NULL;
    const struct dialect *d = dialect_of(proto);
    struct answers *a = xcalloc(1, sizeof *a);
    a->rules = r;
    a->proto = proto;
    a->flow = flow;
    a->id = dup_or_null(json_member_string(sent, d->id.name));
    a->sender = dup_or_null(d->agent_name_tree(dialect_member_of_tree(sent, d->sender_member)));
    r->begin(a, sent);
    return a;
}

void answers_free(struct answers *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nreceivers; i++)
        free(a->receivers[i]);
    free(a->receivers);
    free(a->answered);
    free(a->id);
    free(a->sender);
    free(a->conversation);
    free(a->method);
    sb_free(&a->state);
    free(a);
}

bool answers_same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

enum answer_role answers_classify(const struct answers *a, const json_t *msg, enum protocol proto)
{
    if (proto != a->proto || !a->id)
        return ANSWER_UNRELATED;
    return a->rules->classify(a, msg);
}

enum answer_outcome answers_end(struct answers *a, enum answer_outcome outcome)
{
    a->outcome = outcome;
    return outcome;
}

enum answer_outcome answers_failed_by(struct answers *a, const char *who, const char *what,
                                      const char *reason)
{
    sb_reset(&a->state);
    sb_addf(&a->state, "%s answered %s", who ? who : "the peer", what);
    if (reason)
        sb_addf(&a->state, ": %s", reason);
    return answers_end(a, ANSWER_FAILED);
}

enum answer_outcome answers_take(struct answers *a, const json_t *reply, enum protocol proto)
{
    if (a->outcome != ANSWER_OPEN)
        return a->outcome;
    if (proto != a->proto) /* of another dialect: no answer to what was sent */
        return ANSWER_OPEN;
    return a->rules->take(a, reply);
}

enum answer_outcome answers_expire(struct answers *a)
{
    if (a->outcome != ANSWER_OPEN)
        return a->outcome;
    if (a->flow == FLOW_CFP && a->proposals)
        return answers_end(a, ANSWER_SUCCEEDED);
    if (a->flow == FLOW_CFP && a->refusals) {
        sb_adds(&a->state, "; no proposal");
        return answers_end(a, ANSWER_FAILED);
    }
    return answers_end(a, ANSWER_TIMEOUT);
}

enum answer_outcome answers_outcome(const struct answers *a)
{
    return a->outcome;
}

bool answers_over(const struct answers *a)
{
    return a->outcome == ANSWER_FAILED || (a->outcome == ANSWER_SUCCEEDED && !a->standing);
}

bool answers_partial(const json_t *msg, enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    return d && d->partial_tree(msg);
}

const char *answers_state(const struct answers *a)
{
    return a->state.buf ? a->state.buf : "";
}

bool answers_time_of(const json_t *v, double *epoch)
{
    if (json_is_number(v)) {
        double t = json_number_value(v);
        *epoch = t > UNIX_MILLISECONDS_ABOVE ? t / 1000 : t;
        return t >= 0;
    }
    bool zone;
    const char *s = json_string_value(v);
    return s && time_parse_rfc3339(s, epoch, &zone);
}

bool answers_request_key(const json_t *msg, enum protocol proto, struct strbuf *key)
{
    const struct answer_rules *r = rules_of(proto);
    return r && r->request_key && r->request_key(msg, key);
}

void answers_compare(const json_t *recorded, const json_t *live, enum protocol proto,
                     answers_differ_fn *differ, void *ctx)
{
    const struct answer_rules *r = rules_of(proto);
    if (r && r->compare)
        r->compare(recorded, live, differ, ctx);
}

bool answers_deadline(const json_t *sent, enum protocol proto, double *epoch)
{
    const struct answer_rules *r = rules_of(proto);
    return r && r->deadline && r->deadline(sent, epoch);
}
