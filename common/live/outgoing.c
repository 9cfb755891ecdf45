#include "live/outgoing.h"

#include <string.h>

#include "live/outgoing_rules.h"

/* The dialects' rules of composing. */
static const struct compose_rules *const compose_table[] = {
    &iacp_compose_rules, &fipa_compose_rules, &mcp_compose_rules};

static const struct compose_rules *rules_of(enum protocol proto)
{
    for (size_t i = 0; i < sizeof compose_table / sizeof compose_table[0]; i++)
        if (compose_table[i]->proto == proto)
            return compose_table[i];
    return NULL;
}

enum protocol outgoing_protocol(const json_t *root)
{
    enum protocol proto = message_protocol(root, CHOOSE_AUTO);
    for (size_t i = 0; proto == PROTO_NONE && i < sizeof compose_table / sizeof compose_table[0];
         i++)
        if (compose_table[i]->claims && compose_table[i]->claims(root))
            proto = compose_table[i]->proto;
    return proto;
}

/* --- the reply to a message --- */

void outgoing_copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    if (v && !json_is_null(v))
        json_object_set(to, to_key, v);
}

json_t *outgoing_reply_to(const json_t *original, enum protocol *proto, bool *several_receivers)
{
    *several_receivers = false;
    *proto = message_protocol(original, CHOOSE_AUTO);
    const struct compose_rules *r = rules_of(*proto);
    if (!r)
        return NULL;
    json_t *reply = json_object();
    r->reply_to(reply, original, several_receivers);
    return reply;
}

void outgoing_merge(json_t *root, const json_t *defaults)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)defaults, key, value)
    {
        if (!json_object_get(root, key))
            json_object_set(root, key, value);
    }
}

/* --- filling in --- */

void outgoing_set_string(json_t *root, const char *key, const char *value)
{
    json_object_set_new(root, key, json_string(value));
}

/* Notes the id a message brings with the generator, or gives it a fresh one. */
void outgoing_own_id(json_t *root, const char *key, const char *sender, enum idgen_form form,
                     const char *prefix, const struct outgoing_config *cfg)
{
    const char *id = json_member_string(root, key);
    if (id) {
        idgen_note(cfg->ids, sender, id, cfg->now);
        return;
    }
    if (!json_object_get(root, key))
        outgoing_set_string(root, key, idgen_fresh_form(cfg->ids, sender, form, prefix, cfg->now));
}

const char *outgoing_complete(json_t *root, enum protocol proto, bool no_new_conversation,
                              const struct outgoing_config *cfg)
{
    const struct compose_rules *r = rules_of(proto);
    return r ? r->complete(root, no_new_conversation, cfg) : NULL;
}

/* --- order --- */

json_t *outgoing_ordered(const json_t *root, enum protocol proto)
{
    const struct compose_rules *r = rules_of(proto);
    const char *const *order = r ? r->order : NULL;
    json_t *out = json_object();
    for (size_t i = 0; order && order[i]; i++) {
        json_t *v = json_object_get(root, order[i]);
        if (v)
            json_object_set(out, order[i], v);
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)root, key, value)
    {
        if (!json_object_get(out, key))
            json_object_set(out, key, value);
    }
    return out;
}
