/* What answers.c asks of a dialect, and what it shares with the dialects' files: how a message
 * sent is answered, in each dialect (answers_iacp.c, answers_fipa.c), each a struct answer_rules
 * defined at the end of its file. Private to the answers files. */
#ifndef ACP_ANSWERS_RULES_H
#define ACP_ANSWERS_RULES_H

#include "live/answers.h"

/* How a conversation goes, by what opened it. */
enum flow {
    FLOW_TASK,    /* task.assign */
    FLOW_TOOL,    /* tool.query */
    FLOW_REQUEST, /* (agree), then an inform or a refusal; MCP's response */
    FLOW_PROPOSE, /* accept_proposal or reject_proposal */
    FLOW_CFP,     /* proposals until the deadline */
    FLOW_NONE,    /* no answer expected */
};

/* Most receivers of a cfp whose answers are told apart. */
enum { MAX_PARTICIPANTS = 4096 };

struct answer_rules;

struct answers {
    const struct answer_rules *rules;
    enum protocol proto;
    enum flow flow;
    char *id;           /* the IACP id or FIPA reply_with of what was sent */
    char *sender;       /* its sender's name */
    char *conversation; /* its FIPA conversation_id */
    char *method;       /* its MCP method */
    char **receivers;   /* a cfp's participants */
    bool *answered;
    size_t nreceivers;
    unsigned long proposals, refusals;
    bool agreed;   /* task.accept or agree came */
    bool standing; /* a subscribe or request_whenever: informs go on after the first */
    enum answer_outcome outcome;
    struct strbuf state;
};

struct answer_rules {
    enum protocol proto;
    /* The flow a message sent opens; FLOW_NONE when it expects no answer. */
    enum flow (*flow)(const json_t *sent);
    /* The rest of what a conversation begun by sent starts with: its state, and what the
     * dialect keeps of it (id and sender are answers.c's). */
    void (*begin)(struct answers *a, const json_t *sent);
    /* msg, of the dialect and with a->id: an echo of what was sent, a reply to it, or neither. */
    enum answer_role (*classify)(const struct answers *a, const json_t *msg);
    /* A reply to what was sent, while the outcome is open. */
    enum answer_outcome (*take)(struct answers *a, const json_t *reply);
    /* When the message sent wants its answer by, in unix seconds; NULL: it never says. */
    bool (*deadline)(const json_t *sent, double *epoch);
    /* answers_request_key for the dialect; NULL: it serves no recording. */
    bool (*request_key)(const json_t *msg, struct strbuf *key);
    /* answers_compare for the dialect; NULL: nothing beyond --compare. */
    void (*compare)(const json_t *recorded, const json_t *live, answers_differ_fn *differ,
                    void *ctx);
};

extern const struct answer_rules iacp_answer_rules, fipa_answer_rules, mcp_answer_rules;

/* Shared by the dialects' files. */
bool answers_same(const char *a, const char *b);
void answers_set_state(struct answers *a, const char *text);
enum answer_outcome answers_end(struct answers *a, enum answer_outcome outcome);
/* "forager-07 answered refuse", the reason quoted when the reply gives one. */
enum answer_outcome answers_failed_by(struct answers *a, const char *who, const char *what,
                                      const char *reason);
/* A time as a deadline gives it: unix seconds (milliseconds above 10^11) or RFC 3339. */
bool answers_time_of(const json_t *v, double *epoch);

#endif
