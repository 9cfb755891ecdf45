/* Private to the FIPA half of the engine (fipa_stream.c): the interaction protocols as data. Each
 * protocol is a table of transitions (state x act x who sends -> next state) that each
 * participant of a conversation walks on its own; these are the tables, the names of their
 * states and outcomes, and the lookups over them. */
#ifndef ACP_FIPA_PROTOCOLS_H
#define ACP_FIPA_PROTOCOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/fipa.h"

enum fipa_protocol {
    FP_REQUEST,
    FP_QUERY,
    FP_REQUEST_WHEN,
    FP_CONTRACT_NET,
    FP_ITERATED_CONTRACT_NET,
    FP_PROPOSE,
    FP_SUBSCRIBE,
    FP_BROKERING,
    FP_RECRUITING,
    FP_AUCTION_ENGLISH,
    FP_AUCTION_DUTCH,
    FP_COUNT,
    FP_NONE = -1,
};

/* Where one participant stands. NONE: not addressed (yet); ENDED: its part is over. */
enum party_state {
    PS_NONE,
    PS_ASKED,      /* the initiator's opening act reached it */
    PS_AGREED,     /* it agreed; the result is due */
    PS_PROPOSED,   /* it proposed; the initiator decides */
    PS_ACCEPTED,   /* its proposal was accepted; the result is due */
    PS_COUNTERED,  /* it answered a propose with counter_propose; the initiator decides */
    PS_SUBSCRIBED, /* it agreed to a subscription or already informed */
    PS_RELAYING,   /* a broker or recruiter agreed; the targets' replies are due */
    PS_INFORMED,   /* an auction was announced to it */
    PS_CALLED,     /* an auction round's cfp reached it */
    PS_BID,        /* it bid in the current round */
    PS_LEADING,    /* its bid was accepted (the leading bid) */
    PS_WON,        /* the auction closed with its bid: the request to the winner is due */
    PS_CANCELLING, /* the initiator cancelled; inform or failure is due */
    PS_ENDED,
    PS_COUNT,
    PS_ACTIVE, /* in a transition: any state but NONE and ENDED */
    PS_RESUME, /* in a transition: back to the state the cancel interrupted */
};

/* An inform carrying "x-acp-partial": true, an intermediate result before the final answer (an
 * acp-tools convention): a pseudo-act of the tables, next to the real ones. */
enum { ACT_PARTIAL_INFORM = FIPA_ACT_COUNT };

/* How a participant's part ended; also the conversation's outcome (the most telling one). */
enum outcome {
    OUT_NONE,
    OUT_DONE,
    OUT_FAILED,
    OUT_CANCELLED,
    OUT_NOT_UNDERSTOOD,
    OUT_REJECTED,
    OUT_REFUSED,
    OUT_COUNT,
};

enum sender_role { BY_INITIATOR, BY_PARTICIPANT, BY_EITHER };

struct transition {
    uint8_t from;    /* enum party_state, or PS_ACTIVE */
    uint8_t by;      /* enum sender_role */
    int8_t act;      /* enum fipa_act */
    uint8_t to;      /* enum party_state */
    uint8_t outcome; /* enum outcome, when to is PS_ENDED */
};

struct protocol_info {
    const char *name; /* as JADE spells it */
    const struct transition *rows;
    bool auction; /* no not-understood rule, no cancel */
};

/* The tables, by enum fipa_protocol, enum party_state (below PS_COUNT) and enum outcome, read
 * through the functions below: inline, since they run for nearly every message. */
extern const struct protocol_info fipa_protocol_table[FP_COUNT];
extern const char *const fipa_party_state_names[PS_COUNT];
extern const char *const fipa_outcome_names[OUT_COUNT];

/* The protocol's name as JADE spells it: "fipa-request". */
static inline const char *fipa_protocol_name(enum fipa_protocol p)
{
    return fipa_protocol_table[p].name;
}

/* Whether p is an auction: no not-understood rule, no cancel. */
static inline bool fipa_protocol_is_auction(enum fipa_protocol p)
{
    return fipa_protocol_table[p].auction;
}

/* A participant's state in words ("asked"), for diagnostics. */
static inline const char *fipa_party_state_name(enum party_state state)
{
    return fipa_party_state_names[state];
}

/* An outcome as a conversation's summary says it: "open", "done", "refused"... */
static inline const char *fipa_outcome_name(enum outcome outcome)
{
    return fipa_outcome_names[outcome];
}

/* Whether act opens a conversation of protocol p. */
static inline bool fipa_protocol_opens(enum fipa_protocol p, enum fipa_act act)
{
    for (const struct transition *t = fipa_protocol_table[p].rows; t->from != PS_COUNT; t++)
        if (t->from == PS_NONE && t->act == (int8_t)act)
            return true;
    return false;
}

/* Contract net turns out to be iterated when a second round starts: the same run. */
static inline bool fipa_protocol_same_family(enum fipa_protocol a, enum fipa_protocol b)
{
    bool a_cn = a == FP_CONTRACT_NET || a == FP_ITERATED_CONTRACT_NET;
    bool b_cn = b == FP_CONTRACT_NET || b == FP_ITERATED_CONTRACT_NET;
    return a == b || (a_cn && b_cn);
}

/* The protocol name (as JADE spells it, case-insensitively, and the two auctions by their
 * other names too) stands for; FP_NONE when it is none of them. */
enum fipa_protocol fipa_protocol_lookup(const char *name);
/* The protocol an act opens when the message names none; auctions are never guessed. */
enum fipa_protocol fipa_protocol_inferred(enum fipa_act act);
/* The transition of protocol p for act (an enum fipa_act or ACT_PARTIAL_INFORM) sent by `by`
 * to or from a participant in state: the protocol's own rows first, then (but in an auction)
 * the not-understood rule and the cancel meta-protocol. NULL when the act is not expected. */
const struct transition *fipa_transition_find(enum fipa_protocol p, enum party_state state,
                                              enum sender_role by, int act);

#endif
