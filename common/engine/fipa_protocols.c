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
};

enum sender_role { BY_INITIATOR, BY_PARTICIPANT, BY_EITHER };

struct transition {
    uint8_t from;    /* enum party_state, or PS_ACTIVE */
    uint8_t by;      /* enum sender_role */
    int8_t act;      /* enum fipa_act */
    uint8_t to;      /* enum party_state */
    uint8_t outcome; /* enum outcome, when to is PS_ENDED */
};

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

struct protocol_info {
    const char *name; /* as JADE spells it */
    const struct transition *rows;
    bool auction; /* no not-understood rule, no cancel */
};

static const struct protocol_info protocols[FP_COUNT] = {
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

static const char *const state_names[PS_COUNT] = {
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

static const char *const outcome_names[] = {
    [OUT_NONE] = "open",
    [OUT_DONE] = "done",
    [OUT_FAILED] = "failed",
    [OUT_CANCELLED] = "cancelled",
    [OUT_NOT_UNDERSTOOD] = "not-understood",
    [OUT_REJECTED] = "rejected",
    [OUT_REFUSED] = "refused",
};

static enum fipa_protocol protocol_lookup(const char *name)
{
    /* Every name is "fipa-" and more: the letter after it tells most of them apart, before a
     * whole compare (this runs for nearly every message). */
    char after = strlen(name) > 5 ? (char)tolower((unsigned char)name[5]) : '\0';
    for (int p = 0; p < FP_COUNT; p++)
        if (protocols[p].name[5] == after && strcasecmp(name, protocols[p].name) == 0)
            return (enum fipa_protocol)p;
    if (strcasecmp(name, "fipa-english-auction") == 0)
        return FP_AUCTION_ENGLISH;
    if (strcasecmp(name, "fipa-dutch-auction") == 0)
        return FP_AUCTION_DUTCH;
    return FP_NONE;
}

/* The protocol an act opens when the message names none; auctions are never guessed. */
static enum fipa_protocol protocol_inferred(enum fipa_act act)
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

static bool opens(enum fipa_protocol p, enum fipa_act act)
{
    for (const struct transition *t = protocols[p].rows; t->from != PS_COUNT; t++)
        if (t->from == PS_NONE && t->act == (int8_t)act)
            return true;
    return false;
}

/* Contract net turns out to be iterated when a second round starts: the same run. */
static bool same_family(enum fipa_protocol a, enum fipa_protocol b)
{
    bool a_cn = a == FP_CONTRACT_NET || a == FP_ITERATED_CONTRACT_NET;
    bool b_cn = b == FP_CONTRACT_NET || b == FP_ITERATED_CONTRACT_NET;
    return a == b || (a_cn && b_cn);
}

/* act is an enum fipa_act or ACT_PARTIAL_INFORM. */
static bool row_matches(const struct transition *t, enum party_state state, enum sender_role by,
                        int act)
{
    bool state_ok =
        t->from == state || (t->from == PS_ACTIVE && state != PS_NONE && state != PS_ENDED);
    return state_ok && (t->by == by || t->by == BY_EITHER) && t->act == (int8_t)act;
}

static const struct transition *transition_find(enum fipa_protocol p, enum party_state state,
                                                enum sender_role by, int act)
{
    for (const struct transition *t = protocols[p].rows; t->from != PS_COUNT; t++)
        if (row_matches(t, state, by, act))
            return t;
    if (protocols[p].auction)
        return NULL;
    for (const struct transition *t = meta_rows; t->from != PS_COUNT; t++)
        if (row_matches(t, state, by, act))
            return t;
    return NULL;
}
