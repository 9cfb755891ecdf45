/* FIPA ACL in Caxton's JSON dialect: the communicative acts in their many spellings, agent
 * identifiers, and the checks a single message must pass. */
#ifndef ACP_FIPA_H
#define ACP_FIPA_H

#include "proto/message.h"

enum fipa_act {
    FIPA_ACCEPT_PROPOSAL,
    FIPA_AGREE,
    FIPA_CANCEL,
    FIPA_CFP,
    FIPA_CONFIRM,
    FIPA_DISCONFIRM,
    FIPA_FAILURE,
    FIPA_INFORM,
    FIPA_INFORM_IF,
    FIPA_INFORM_REF,
    FIPA_NOT_UNDERSTOOD,
    FIPA_PROPAGATE,
    FIPA_PROPOSE,
    FIPA_PROXY,
    FIPA_QUERY_IF,
    FIPA_QUERY_REF,
    FIPA_REFUSE,
    FIPA_REJECT_PROPOSAL,
    FIPA_REQUEST,
    FIPA_REQUEST_WHEN,
    FIPA_REQUEST_WHENEVER,
    FIPA_SUBSCRIBE,
    FIPA_COUNTER_PROPOSE, /* Caxton's own reply to a propose */
    FIPA_ACT_COUNT,
    FIPA_ACT_INVALID = -1,
};

enum fipa_spelling {
    SPELL_SNAKE, /* accept_proposal: the Caxton guide's, our default */
    SPELL_KEBAB, /* accept-proposal: the standard's */
    SPELL_UPPER, /* ACCEPT_PROPOSAL: Caxton's design records */
};

/* Accepts accept_proposal, accept-proposal, ACCEPT_PROPOSAL, ACCEPT-PROPOSAL, AcceptProposal. */
enum fipa_act fipa_act_parse(const char *s);
/* The act in the given spelling; the result is a static string. */
const char *fipa_act_name(enum fipa_act act, enum fipa_spelling spelling);

/* The name of an agent identifier, or NULL. */
const char *fipa_agent_name(const json_t *v);
/* The same over the scanner's view. */
const char *fipa_agent_name_jv(const struct jv *v);

/* Whether v is an agent identifier: a non-empty string, or an object with a non-empty string
 * "name" and optional "addresses" (array of strings) and "resolvers" (array of identifiers). */
bool fipa_agent_valid_jv(const struct jv *v);

/* The time a message was sent: its "timestamp" (RFC 3339 or unix seconds), else its
 * "created_at" (likewise). Unix seconds above 10^11 are read as milliseconds; above 10^14 they
 * are no time at all. Returns false when it has neither in a usable form. */
bool fipa_message_time(const json_t *root, double *epoch);
bool fipa_message_time_jv(const struct jv *view, double *epoch);
/* The same of one such member's value (timestamp's, or created_at's). */
bool fipa_time_value_jv(const struct jv *v, double *epoch);

/* Which members a message must carry: Caxton's guide requires sender, receiver and content;
 * FIPA's SC00061 only the performative (the stream checks then report a missing sender or
 * receiver where a protocol needs it). */
enum fipa_profile { FIPA_PROFILE_CAXTON, FIPA_PROFILE_STANDARD };

struct fipa_rules {
    enum fipa_profile profile;
};

/* Parses "caxton" or "standard"; false for anything else. */
bool fipa_profile_parse(const char *s, enum fipa_profile *profile);

/* Reports every per-message finding for a FIPA message. */
void fipa_check(const struct message *m, const struct fipa_rules *rules, struct diag_sink *sink);
/* The same, but an unknown protocol is left to the stream checks, which report it once per
 * conversation rather than once per message. */
void fipa_check_in_stream(const struct message *m, const struct fipa_rules *rules,
                          struct diag_sink *sink);

#endif
