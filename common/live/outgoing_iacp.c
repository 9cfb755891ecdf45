/* How acp-send composes an IACP message: a reply's envelope, what it fills in, the order of the
 * members. */
#include <math.h>
#include <string.h>

#include "live/outgoing_rules.h"
#include "proto/iacp.h"

static void iacp_reply_to(json_t *reply, const json_t *original, bool *several_receivers)
{
    (void)several_receivers; /* an IACP message goes to one agent */
    outgoing_copy_member(reply, "from", original, "to");
    outgoing_copy_member(reply, "to", original, "from");
    outgoing_copy_member(reply, "ref", original, "id");
}

static const char *complete_iacp(json_t *root, bool no_new_conversation,
                                 const struct outgoing_config *cfg)
{
    (void)no_new_conversation; /* IACP has no conversation id to make */
    if (!json_object_get(root, "v"))
        outgoing_set_string(root, "v", "1.1");
    const char *kind = json_member_string(root, "kind");
    switch (kind ? iacp_kind_parse(kind) : IACP_INVALID) {
    case IACP_TASK_ASSIGN:
    case IACP_TASK_CANCEL:
    case IACP_CTL_DRAIN:
    case IACP_CTL_HALT:
        if (!json_object_get(root, "from"))
            outgoing_set_string(root, "from", cfg->queen);
        break;
    case IACP_TASK_ACCEPT:
    case IACP_TASK_REJECT:
    case IACP_TASK_RESULT:
        if (!json_object_get(root, "to"))
            outgoing_set_string(root, "to", cfg->queen);
        break;
    default:
        break;
    }
    const char *from = json_member_string(root, "from");
    bool queen = from && strcmp(from, cfg->queen) == 0;
    outgoing_own_id(root, "id", from, queen ? IDGEN_QUEEN : IDGEN_FORAGER, NULL, cfg);
    if (!json_object_get(root, "ts"))
        json_object_set_new(root, "ts", json_integer((json_int_t)floor(cfg->now)));
    return NULL;
}

static const char *const iacp_order[] = {"v",  "id",  "from", "to", "kind",
                                         "ts", "ref", "body", NULL};

const struct compose_rules iacp_compose_rules = {
    .proto = PROTO_IACP,
    .reply_to = iacp_reply_to,
    .complete = complete_iacp,
    .order = iacp_order,
};
