/* What outgoing.c asks of a dialect, and what it shares with the dialects' files: how a message
 * of each dialect is composed (outgoing_iacp.c, outgoing_fipa.c), each a struct compose_rules
 * defined at the end of its file. Private to the outgoing files. */
#ifndef ACP_OUTGOING_RULES_H
#define ACP_OUTGOING_RULES_H

#include "live/outgoing.h"

struct compose_rules {
    enum protocol proto;
    /* Whether a message composed without the dialect's mark is of the dialect all the same,
     * since completing it adds the mark (NULL: never). */
    bool (*claims)(const json_t *root);
    /* Fills reply, an empty object, with what a reply to original takes from it (its receiver,
     * its sender when original went to one agent, the id it answers); *several_receivers when
     * original went to several, so that the reply must say which one answers. */
    void (*reply_to)(json_t *reply, const json_t *original, bool *several_receivers);
    /* outgoing_complete for a message of the dialect. */
    const char *(*complete)(json_t *root, bool no_new_conversation,
                            const struct outgoing_config *cfg);
    /* The members in the order the dialect writes them (NULL ends it). */
    const char *const *order;
};

extern const struct compose_rules iacp_compose_rules, fipa_compose_rules, mcp_compose_rules;

/* Shared by the dialects' files. */
void outgoing_copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key);
void outgoing_set_string(json_t *root, const char *key, const char *value);
/* Notes the id a message brings with the generator, or gives it a fresh one. */
void outgoing_own_id(json_t *root, const char *key, const char *sender, enum idgen_form form,
                     const char *prefix, const struct outgoing_config *cfg);

#endif
