/* A dialect of agent traffic (IACP, FIPA): how a message says what it is, and where its envelope
 * lies, as one table of hooks, so that code which reads an envelope asks the message's dialect
 * rather than choosing between two. Each dialect's table is defined at the end of its own file
 * (iacp.c, fipa.c), in the manner of git's ref backends; dialect.c holds the list of them and the
 * look-ups. Adding one: its file, its table, its place in dialects[] (auto-detection tries them
 * in order), its enum protocol value, and tests/drivers/dialects checks that it fills every hook.
 *
 * The envelope is read from the scanner's view of a message (jscan.h), or from a jansson tree
 * where a tool holds one (the live tools, acp-replay). */
#ifndef ACP_DIALECT_H
#define ACP_DIALECT_H

#include <jansson.h>
#include <stdbool.h>

#include "proto/fipa.h"
#include "proto/iacp.h"
#include "proto/message.h"

/* What the per-message checks take from the options, each dialect its own. */
struct check_rules {
    struct iacp_rules iacp;
    struct fipa_rules fipa;
    /* The stream checks follow: what they report once a conversation (a FIPA protocol unknown)
     * is left to them. */
    bool in_stream;
};

/* A member's name with its length, known when the table is compiled (DIALECT_MEMBER): looked
 * for on every message. */
struct dialect_member {
    const char *name;
    size_t len;
};
#define DIALECT_MEMBER(name)                                                                       \
    {                                                                                              \
        name, sizeof name - 1                                                                      \
    }

struct jsonrpc_profile;

struct dialect {
    enum protocol proto;
    const char *name;    /* as --protocol spells it: "iacp", "fipa" */
    const char *display; /* as a sentence names it: "IACP", "FIPA" */
    /* A message that has any of these members speaks the dialect, when none is chosen (one
     * whose name is NULL ends the list). */
    const struct dialect_member *marks;

    /* The members of the envelope. */
    struct dialect_member id;     /* the message's own id: IACP id, FIPA reply_with */
    const char *answers_member;   /* the id of the message it answers: IACP ref, FIPA in_reply_to */
    const char *sender_member;    /* IACP from, FIPA sender */
    const char *receivers_member; /* IACP to, FIPA receiver: one agent or an array of them */
    /* A response carries the id of the request it answers as its own id (JSON-RPC's): then
     * answers_member is NULL. */
    bool answers_by_own_id;
    /* Its messages may also come several in a JSON array, a batch (JSON-RPC 2.0, section 6):
     * an array whose first element the dialect's marks recognise is one message of it. */
    bool batches;
    /* The envelope names its sender and receivers; false where they are the sides of a session,
     * which a capture knows and the message does not (MCP's client and server): then
     * sender_member and receivers_member are NULL. */
    bool names_agents;
    /* Where the envelope names no agents: the sides of a capture's session, as their sender,
     * [0] of what was written to the tapped agent, [1] of what it wrote; NULL otherwise. */
    const char *const *capture_sides;
    const char *act_member; /* IACP kind, FIPA performative */
    /* What the message says, which a conversion copies as it came: IACP body, FIPA content;
     * NULL for none. */
    const char *content_member;
    /* What ties a message to its conversation, the first present, for a diagram's label (NULL
     * ends the list). */
    const char *const *label_id_members;
    /* A message that names no message it answers answers the latest of its conversation
     * (conversation_id): FIPA's, not IACP's. */
    bool answers_by_conversation;
    /* The act of a result (as act_canonical spells it), and how a partial one is named, as a
     * kind of its own: "task.result" and "partial task.result", "inform" and "partial inform". */
    const char *result_act;
    const char *partial_result_act;

    /* The name of an agent as the envelope writes one (its sender, one of its receivers), or
     * NULL when it names none. */
    const char *(*agent_name)(const struct jv *agent);
    const char *(*agent_name_tree)(const json_t *agent);
    /* The message's act as the tools' outputs name it (acp-trace's kinds), never NULL: the act
     * in a known spelling, else what the message says, else a placeholder. */
    const char *(*act_name)(const struct jv *view);
    /* When the message was sent, in unix seconds; false when it does not say, in a form the
     * dialect reads. whole_second: the time was given in whole seconds (IACP's ts), so that a
     * message of the same second may come before it. */
    bool (*time)(const struct jv *view, double *t, bool *whole_second);
    bool (*time_tree)(const json_t *root, double *t, bool *whole_second);
    /* Whether the message's time is a number beyond any era (an error of its own). */
    bool (*beyond_era)(const json_t *root);
    /* Sets the message's time to wall (unix seconds), as the dialect writes a time. */
    void (*set_time)(json_t *root, double wall);
    /* The act as the message writes it, in one spelling, so that spellings compare equal:
     * IACP's kind as it is, a FIPA act in snake case (a performative that is none as it is). */
    const char *(*act_canonical)(const char *act);
    /* Whether the message carries a partial result, more to come. */
    bool (*partial)(const struct jv *view);
    bool (*partial_tree)(const json_t *root);

    /* The dialect's diagnostic codes (its own file), ending with an entry whose code is NULL. */
    const struct diag_code *codes;
    /* The protocol it is a profile of, whose rules and codes it shares with the other profiles
     * (JSON-RPC 2.0's, "jsonrpc", for MCP), or NULL. */
    const char *core_name;
    const struct diag_code *core_codes;
    /* A dialect over JSON-RPC 2.0: its profile (what each side sends), or NULL. */
    const struct jsonrpc_profile *jsonrpc;
    /* The key of the message's partition (proto/partition.h), a string of view: what a
     * publisher puts in the message's subject (IACP: the forager, the party that is not the
     * queen; FIPA: the conversation_id). NULL when it has none; the hook is NULL for a dialect
     * of no partitions. */
    const char *(*partition_key)(const struct jv *view, const char *queen);
    /* Reports every per-message finding for a message of the dialect. */
    void (*check)(const struct message *m, const struct check_rules *rules, struct diag_sink *sink);
};

/* Each defined at the end of its own file; their codes each in a file of its own. */
extern const struct dialect dialect_iacp, dialect_fipa, dialect_mcp;
extern const struct diag_code iacp_codes[], fipa_codes[], jsonrpc_codes[], mcp_codes[];

/* The dialects, in the order auto-detection tries them, ending with NULL. */
extern const struct dialect *const dialects[];

/* The dialect of a protocol; NULL for PROTO_NONE. */
const struct dialect *dialect_of(enum protocol proto);
/* The dialect --protocol names so, or NULL. */
const struct dialect *dialect_named(const char *name);
/* The protocol a message speaks by its members (a view, or a tree): the first dialect one of
 * whose marks it has, else PROTO_NONE. */
enum protocol dialect_recognise(const struct jv *view);
/* Whether view is a batch of a dialect that has them (an array its first element marks). */
bool dialect_batch(const struct jv *view);
enum protocol dialect_recognise_tree(const json_t *root);

/* An envelope's member (sender_member, ...) of view, or of a tree; NULL where the dialect has no
 * such member (MCP names no agent). */
static inline const struct jv *dialect_member_of(const struct jv *view, const char *member)
{
    return member ? jv_object_get(view, member) : NULL;
}
static inline json_t *dialect_member_of_tree(const json_t *root, const char *member)
{
    return member ? json_object_get(root, member) : NULL;
}

/* The agents of an envelope's receivers member (one agent, or an array of them), in order:
 * for (a = dialect_agents_first(set); a; a = dialect_agents_next(set, a)). */
static inline const struct jv *dialect_agents_first(const struct jv *set)
{
    return jv_is_array(set) ? jv_array_first(set) : set;
}
static inline const struct jv *dialect_agents_next(const struct jv *set, const struct jv *agent)
{
    return jv_is_array(set) ? jv_array_next(set, agent) : NULL;
}

/* The message's dialect; NULL for one of no protocol. */
static inline const struct dialect *message_dialect(const struct message *m)
{
    return m->dialect;
}

/* The per-message checks of m's dialect; for a message of none, no-protocol. */
void message_check(const struct message *m, const struct check_rules *rules,
                   struct diag_sink *sink);
/* Appends the members that mark a message of d: "'kind' or 'v'". */
void dialect_add_marks(struct strbuf *sb, const struct dialect *d);
/* Reports that m speaks no dialect (no-protocol), naming what each would have it carry. */
void dialect_no_protocol(const struct message *m, struct diag_sink *sink);

/* The sender's name, and the act as message_dialect's act_name gives it; NULL (sender) or
 * "(no protocol)" (act) for a message of none. */
const char *message_sender(const struct message *m);
const char *message_act(const struct message *m);

#endif
