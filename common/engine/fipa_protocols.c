/* The FIPA interaction protocols as tables of transitions, and the lookups over them. */
#include "engine/fipa_protocols.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define T(from, by, act, to)                                                                       \
    {                                                                                              \
        PS_##from, BY_##by, FIPA_##act, PS_##to, OUT_NONE                                          \
    }
#define END(from, by, act, outcome)                                                                \
    {                                                                                              \
        PS_##from, BY_##by, FIPA_##act, PS_ENDED, OUT_##outcome                                    \
    }
#define PARTIAL(from, to)                                                                          \
    {                                                                                              \
        PS_##from, BY_PARTICIPANT, ACT_PARTIAL_INFORM, PS_##to, OUT_NONE                           \
    }
#define LAST                                                                                       \
    {                                                                                              \
        PS_COUNT, 0, 0, 0, 0                                                                       \
    }

/* How a participant answers a request or a query; agree is optional, and partial results may
 * come before the final answer (implying the agreement). */
#define ANSWER_ROWS                                                                                \
    T(ASKED, PARTICIPANT, AGREE, AGREED), END(ASKED, PARTICIPANT, REFUSE, REFUSED),                \
        END(ASKED, PARTICIPANT, INFORM, DONE), END(ASKED, PARTICIPANT, FAILURE, FAILED),           \
        END(AGREED, PARTICIPANT, INFORM, DONE), END(AGREED, PARTICIPANT, FAILURE, FAILED),         \
        PARTIAL(ASKED, AGREED), PARTIAL(AGREED, AGREED)

static const struct transition request_rows[] = {
    T(NONE, INITIATOR, REQUEST, ASKED),
    ANSWER_ROWS,
    LAST,
};

static const struct transition query_rows[] = {
    T(NONE, INITIATOR, QUERY_IF, ASKED),
    T(NONE, INITIATOR, QUERY_REF, ASKED),
    ANSWER_ROWS,
    LAST,
};

static const struct transition request_when_rows[] = {
    T(NONE, INITIATOR, REQUEST_WHEN, ASKED),   T(ASKED, PARTICIPANT, AGREE, AGREED),
    END(ASKED, PARTICIPANT, REFUSE, REFUSED),  END(AGREED, PARTICIPANT, INFORM, DONE),
    END(AGREED, PARTICIPANT, FAILURE, FAILED), LAST,
};

#define CONTRACT_NET_ROWS                                                                          \
    T(NONE, INITIATOR, CFP, ASKED), T(ASKED, PARTICIPANT, PROPOSE, PROPOSED),                      \
        END(ASKED, PARTICIPANT, REFUSE, REFUSED), END(ASKED, PARTICIPANT, FAILURE, FAILED),        \
        T(PROPOSED, INITIATOR, ACCEPT_PROPOSAL, ACCEPTED),                                         \
        END(PROPOSED, INITIATOR, REJECT_PROPOSAL, REJECTED),                                       \
        END(ACCEPTED, PARTICIPANT, INFORM, DONE), END(ACCEPTED, PARTICIPANT, FAILURE, FAILED)

static const struct transition contract_net_rows[] = {CONTRACT_NET_ROWS, LAST};

static const struct transition iterated_contract_net_rows[] = {
    CONTRACT_NET_ROWS,
    T(PROPOSED, INITIATOR, CFP, ASKED), /* the next round */
    LAST,
};

/* Caxton's counter_propose answers a propose and hands the decision back to the initiator. */
static const struct transition propose_rows[] = {
    T(NONE, INITIATOR, PROPOSE, ASKED),
    END(ASKED, PARTICIPANT, ACCEPT_PROPOSAL, DONE),
    END(ASKED, PARTICIPANT, REJECT_PROPOSAL, REJECTED),
    T(ASKED, PARTICIPANT, COUNTER_PROPOSE, COUNTERED),
    END(COUNTERED, INITIATOR, ACCEPT_PROPOSAL, DONE),
    END(COUNTERED, INITIATOR, REJECT_PROPOSAL, REJECTED),
    T(COUNTERED, INITIATOR, COUNTER_PROPOSE, ASKED),
    T(COUNTERED, INITIATOR, PROPOSE, ASKED),
    LAST,
};

static const struct transition subscribe_rows[] = {
    T(NONE, INITIATOR, SUBSCRIBE, ASKED),
    T(ASKED, PARTICIPANT, AGREE, SUBSCRIBED),
    T(ASKED, PARTICIPANT, INFORM, SUBSCRIBED), /* agree is optional */
    END(ASKED, PARTICIPANT, REFUSE, REFUSED),
    END(ASKED, PARTICIPANT, FAILURE, FAILED),
    T(SUBSCRIBED, PARTICIPANT, INFORM, SUBSCRIBED),
    END(SUBSCRIBED, PARTICIPANT, FAILURE, FAILED),
    LAST,
};

static const struct transition brokering_rows[] = {
    T(NONE, INITIATOR, PROXY, ASKED),
    T(ASKED, PARTICIPANT, AGREE, RELAYING),
    END(ASKED, PARTICIPANT, REFUSE, REFUSED),
    END(RELAYING, PARTICIPANT, INFORM, DONE),
    END(RELAYING, PARTICIPANT, FAILURE, FAILED),
    LAST,
};

#define AUCTION_OPENING_ROWS                                                                       \
    T(NONE, INITIATOR, INFORM, INFORMED), T(NONE, INITIATOR, CFP, CALLED),                         \
        T(INFORMED, INITIATOR, CFP, CALLED), END(INFORMED, INITIATOR, INFORM, DONE),               \
        T(CALLED, INITIATOR, CFP, CALLED), T(CALLED, PARTICIPANT, PROPOSE, BID),                   \
        T(CALLED, PARTICIPANT, NOT_UNDERSTOOD, CALLED), END(CALLED, INITIATOR, INFORM, DONE),      \
        T(BID, INITIATOR, ACCEPT_PROPOSAL, LEADING), T(BID, INITIATOR, REJECT_PROPOSAL, CALLED)

/* Rising prices: the leading bidder may be outbid in the next round; the winner gets a request. */
static const struct transition auction_english_rows[] = {
    AUCTION_OPENING_ROWS,
    T(BID, INITIATOR, CFP, CALLED),
    T(LEADING, INITIATOR, CFP, CALLED),
    T(LEADING, INITIATOR, INFORM, WON),
    T(WON, INITIATOR, REQUEST, ASKED),
    T(ASKED, PARTICIPANT, AGREE, AGREED),
    END(ASKED, PARTICIPANT, REFUSE, REFUSED),
    END(ASKED, PARTICIPANT, INFORM, DONE),
    END(ASKED, PARTICIPANT, FAILURE, FAILED),
    END(AGREED, PARTICIPANT, INFORM, DONE),
    END(AGREED, PARTICIPANT, FAILURE, FAILED),
    LAST,
};

/* Falling prices: the first bid wins; the closing inform ends it for everyone. */
static const struct transition auction_dutch_rows[] = {
    AUCTION_OPENING_ROWS,
    END(LEADING, INITIATOR, INFORM, DONE),
    LAST,
};

/* The not-understood rule and the cancel meta-protocol, for every protocol but the auctions:
 * inform says the cancellation succeeded; failure that it failed, and the protocol goes on. */
static const struct transition meta_rows[] = {
    END(ACTIVE, EITHER, NOT_UNDERSTOOD, NOT_UNDERSTOOD),
    T(ACTIVE, INITIATOR, CANCEL, CANCELLING),
    END(CANCELLING, PARTICIPANT, INFORM, CANCELLED),
    T(CANCELLING, PARTICIPANT, FAILURE, RESUME),
    LAST,
};

#undef T
#undef END
#undef PARTIAL
#undef LAST

const struct protocol_info fipa_protocol_table[FP_COUNT] = {
    [FP_REQUEST] = {"fipa-request", request_rows, false},
    [FP_QUERY] = {"fipa-query", query_rows, false},
    [FP_REQUEST_WHEN] = {"fipa-request-when", request_when_rows, false},
    [FP_CONTRACT_NET] = {"fipa-contract-net", contract_net_rows, false},
    [FP_ITERATED_CONTRACT_NET] = {"fipa-iterated-contract-net", iterated_contract_net_rows, false},
    [FP_PROPOSE] = {"fipa-propose", propose_rows, false},
    [FP_SUBSCRIBE] = {"fipa-subscribe", subscribe_rows, false},
    [FP_BROKERING] = {"fipa-brokering", brokering_rows, false},
    /* Recruiting runs as brokering between initiator and broker; the targets' own answers to
     * the initiator are handled apart (they were never addressed). */
    [FP_RECRUITING] = {"fipa-recruiting", brokering_rows, false},
    [FP_AUCTION_ENGLISH] = {"fipa-auction-english", auction_english_rows, true},
    [FP_AUCTION_DUTCH] = {"fipa-auction-dutch", auction_dutch_rows, true},
};

const char *const fipa_party_state_names[PS_COUNT] = {
    [PS_NONE] = "not addressed",
    [PS_ASKED] = "asked",
    [PS_AGREED] = "agreed",
    [PS_PROPOSED] = "proposed",
    [PS_ACCEPTED] = "accepted",
    [PS_COUNTERED] = "countered",
    [PS_SUBSCRIBED] = "subscribed",
    [PS_RELAYING] = "relaying",
    [PS_INFORMED] = "informed",
    [PS_CALLED] = "called",
    [PS_BID] = "bid",
    [PS_LEADING] = "leading",
    [PS_WON] = "won",
    [PS_CANCELLING] = "cancelling",
    [PS_ENDED] = "ended",
};

const char *const fipa_outcome_names[OUT_COUNT] = {
    [OUT_NONE] = "open",
    [OUT_DONE] = "done",
    [OUT_FAILED] = "failed",
    [OUT_CANCELLED] = "cancelled",
    [OUT_NOT_UNDERSTOOD] = "not-understood",
    [OUT_REJECTED] = "rejected",
    [OUT_REFUSED] = "refused",
};

enum fipa_protocol fipa_protocol_lookup(const char *name)
{
    /* Every name is "fipa-" and more: the letter after it tells most of them apart, before a
     * whole compare (this runs for nearly every message). */
    char after = strlen(name) > 5 ? (char)tolower((unsigned char)name[5]) : '\0';
    for (int p = 0; p < FP_COUNT; p++)
        if (fipa_protocol_table[p].name[5] == after &&
            strcasecmp(name, fipa_protocol_table[p].name) == 0)
            return (enum fipa_protocol)p;
    if (strcasecmp(name, "fipa-english-auction") == 0)
        return FP_AUCTION_ENGLISH;
    if (strcasecmp(name, "fipa-dutch-auction") == 0)
        return FP_AUCTION_DUTCH;
    return FP_NONE;
}

enum fipa_protocol fipa_protocol_inferred(enum fipa_act act)
{
    switch (act) {
    case FIPA_REQUEST:
        return FP_REQUEST;
    case FIPA_REQUEST_WHEN:
        return FP_REQUEST_WHEN;
    case FIPA_QUERY_IF:
    case FIPA_QUERY_REF:
        return FP_QUERY;
    case FIPA_SUBSCRIBE:
        return FP_SUBSCRIBE;
    case FIPA_PROPOSE:
        return FP_PROPOSE;
    case FIPA_CFP:
        return FP_CONTRACT_NET;
    case FIPA_PROXY:
        return FP_BROKERING;
    default:
        return FP_NONE;
    }
}

/* act is an enum fipa_act or ACT_PARTIAL_INFORM. */
static bool row_matches(const struct transition *t, enum party_state state, enum sender_role by,
                        int act)
{
    bool state_ok =
        t->from == state || (t->from == PS_ACTIVE && state != PS_NONE && state != PS_ENDED);
    return state_ok && (t->by == by || t->by == BY_EITHER) && t->act == (int8_t)act;
}

const struct transition *fipa_transition_find(enum fipa_protocol p, enum party_state state,
                                              enum sender_role by, int act)
{
    for (const struct transition *t = fipa_protocol_table[p].rows; t->from != PS_COUNT; t++)
        if (row_matches(t, state, by, act))
            return t;
    if (fipa_protocol_table[p].auction)
        return NULL;
    for (const struct transition *t = meta_rows; t->from != PS_COUNT; t++)
        if (row_matches(t, state, by, act))
            return t;
    return NULL;
}
