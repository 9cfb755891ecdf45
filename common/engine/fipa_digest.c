#include "engine/fipa_digest.h"

#include <math.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/jscan.h"

/* The members the digest reads, found in one pass over the message's members: a lookup of each
 * walked them again, and this is most of what the digest costs one thread. */
enum member {
    M_PERFORMATIVE,
    M_PROTOCOL,
    M_REPLY_BY,
    M_SENDER,
    M_RECEIVER,
    M_CONVERSATION_ID,
    M_IN_REPLY_TO,
    M_REPLY_WITH,
    M_PARTIAL,
    M_TIMESTAMP,
    M_CREATED_AT,
    MEMBERS
};

static const struct {
    const char *name;
    size_t len;
} names[MEMBERS] = {
#define NAME(s)                                                                                    \
    {                                                                                              \
        s, sizeof s - 1                                                                            \
    }
    [M_PERFORMATIVE] = NAME("performative"), [M_PROTOCOL] = NAME("protocol"),
    [M_REPLY_BY] = NAME("reply_by"),         [M_SENDER] = NAME("sender"),
    [M_RECEIVER] = NAME("receiver"),         [M_CONVERSATION_ID] = NAME("conversation_id"),
    [M_IN_REPLY_TO] = NAME("in_reply_to"),   [M_REPLY_WITH] = NAME("reply_with"),
    [M_PARTIAL] = NAME("x-acp-partial"),     [M_TIMESTAMP] = NAME("timestamp"),
    [M_CREATED_AT] = NAME("created_at"),
#undef NAME
};

/* found[i]: the value of the first member names[i] of obj (as jv_object_get finds it), or
 * NULL. */
static void find_members(const struct jv *obj, const struct jv *found[MEMBERS])
{
    for (size_t i = 0; i < MEMBERS; i++)
        found[i] = NULL;
    for (const struct jv *k = jv_object_first(obj); k; k = jv_object_next(obj, k)) {
        size_t len = jv_string_length(k);
        const char *key = jv_string_value(k);
        for (size_t i = 0; i < MEMBERS; i++)
            if (names[i].len == len && !found[i] && memcmp(names[i].name, key, len) == 0) {
                found[i] = jv_object_value(k);
                break;
            }
    }
}

/* Where v is in the view of m: 0 for none. */
static uint32_t place_of(const struct message *m, const struct jv *v)
{
    return v ? (uint32_t)(v - m->view) : 0;
}

static uint32_t string_place(const struct message *m, const struct jv *v)
{
    return jv_is_string(v) ? place_of(m, v) : 0;
}

static bool is_partial(const struct jv *v)
{
    const char *text = jv_string_value(v);
    return jv_is_true(v) || (text && strcmp(text, "true") == 0);
}

static double reply_by_of(const struct jv *v)
{
    const char *text = jv_string_value(v);
    double at;
    bool zone;
    return text && time_parse_rfc3339(text, &at, &zone) ? at : NAN;
}

void fipa_digest_make(struct fipa_digest *d, const struct message *m)
{
    const struct jv *found[MEMBERS];
    find_members(m->view, found);
    const char *performative = jv_string_value(found[M_PERFORMATIVE]);
    const char *protocol = jv_string_value(found[M_PROTOCOL]);
    *d = (struct fipa_digest){
        .act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID,
        .declared = protocol ? fipa_protocol_lookup(protocol) : FP_NONE,
        .reply_by = reply_by_of(found[M_REPLY_BY]),
        .sender = place_of(m, found[M_SENDER]),
        .receiver = place_of(m, found[M_RECEIVER]),
        .conversation_id = string_place(m, found[M_CONVERSATION_ID]),
        .in_reply_to = string_place(m, found[M_IN_REPLY_TO]),
        .reply_with = string_place(m, found[M_REPLY_WITH]),
        .protocol = string_place(m, found[M_PROTOCOL]),
    };
    d->partial = d->act == FIPA_INFORM && is_partial(found[M_PARTIAL]);
    d->timed = fipa_time_value_jv(found[M_TIMESTAMP], &d->stamped) ||
               fipa_time_value_jv(found[M_CREATED_AT], &d->stamped);
}
