#include "proto/dialect.h"

#include <ctype.h>
#include <string.h>

const struct dialect *const dialects[] = {&dialect_iacp, &dialect_fipa, &dialect_mcp, NULL};

/* The dialects' codes, in the order of dialects[], a core's before its first profile's
 * (tests/drivers/dialects checks it). */
const struct diag_code *const diag_dialect_tables[] = {iacp_codes, fipa_codes, jsonrpc_codes,
                                                       mcp_codes, NULL};

const struct dialect *dialect_of(enum protocol proto)
{
    for (const struct dialect *const *d = dialects; *d; d++)
        if ((*d)->proto == proto)
            return *d;
    return NULL;
}

const struct dialect *dialect_named(const char *name)
{
    for (const struct dialect *const *d = dialects; *d; d++)
        if (strcmp((*d)->name, name) == 0)
            return *d;
    return NULL;
}

/* Each member is looked for only when the rule needs it: this runs on every message. */
enum protocol dialect_recognise(const struct jv *view)
{
    const struct jv *first = jv_is_array(view) ? jv_array_first(view) : NULL;
    for (const struct dialect *const *d = dialects; *d; d++)
        for (const struct dialect_member *mark = (*d)->marks; mark->name; mark++)
            if (first ? (*d)->batches && jv_object_get_len(first, mark->name, mark->len)
                      : jv_object_get_len(view, mark->name, mark->len) != NULL)
                return (*d)->proto;
    return PROTO_NONE;
}

bool dialect_batch(const struct jv *view)
{
    return jv_is_array(view) && dialect_recognise(view) != PROTO_NONE;
}

enum protocol dialect_recognise_tree(const json_t *root)
{
    for (const struct dialect *const *d = dialects; *d; d++)
        for (const struct dialect_member *mark = (*d)->marks; mark->name; mark++)
            if (json_object_getn(root, mark->name, mark->len))
                return (*d)->proto;
    return PROTO_NONE;
}

void dialect_add_marks(struct strbuf *sb, const struct dialect *d)
{
    for (const struct dialect_member *mark = d->marks; mark->name; mark++)
        sb_addf(sb, "%s'%s'", mark == d->marks ? "" : " or ", mark->name);
}

void dialect_no_protocol(const struct message *m, struct diag_sink *sink)
{
    struct strbuf why = STRBUF_INIT;
    for (const struct dialect *const *d = dialects; *d; d++) {
        sb_adds(&why, d == dialects ? "neither " : " nor ");
        sb_adds(&why, (*d)->display);
        sb_adds(&why, " (no ");
        dialect_add_marks(&why, *d);
        sb_addc(&why, ')');
    }
    diag_emit(sink, &m->at, "no-protocol", "%s", why.buf);
    sb_free(&why);
}

void message_check(const struct message *m, const struct check_rules *rules, struct diag_sink *sink)
{
    const struct dialect *d = message_dialect(m);
    if (m->capture.event)
        return; /* a record of the capture's session, no message to check */
    if (d)
        d->check(m, rules, sink);
    else
        dialect_no_protocol(m, sink);
}

const char *message_sender(const struct message *m)
{
    const struct dialect *d = message_dialect(m);
    if (!d)
        return NULL;
    if (d->capture_sides)
        return m->capture.present ? d->capture_sides[m->capture.out] : NULL;
    return d->agent_name(dialect_member_of(m->view, d->sender_member));
}

const char *message_act(const struct message *m)
{
    const struct dialect *d = message_dialect(m);
    return d ? d->act_name(m->view) : "(no protocol)";
}
