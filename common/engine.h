/* The conversation engine: follows every conversation through a stream of messages and reports
 * what no single message shows (pairing faults, protocol violations, duplicate execution).
 * Feed it messages in order; it reports diagnostics through the sink as it goes, and hands each
 * conversation that ends (or is evicted, or is still open at the end) to a callback. acp-validate
 * and acp-trace share it. */
#ifndef ACP_ENGINE_H
#define ACP_ENGINE_H

#include "fipa.h"
#include "message.h"

struct slot_override {
    const char *agent;
    unsigned long slots;
};

struct engine_config {
    const char *queen;           /* the queen's name (IACP) */
    double assign_timeout;       /* seconds of message time before the queen reissues; 300 */
    double max_skew;             /* tolerated clock skew between a reply and its cause; 2 */
    double clock_skew;           /* a sender's clock offset from the stream's tolerated; 30 */
    double idle_timeout;         /* seconds of message time after which state expires; 3600 */
    double heartbeat_period;     /* IACP heartbeat period; 10 */
    unsigned long max_open;      /* cap on open conversations; the oldest is evicted */
    struct slot_override *slots; /* from --slots=AGENT=N */
    size_t nslots;
    enum fipa_profile fipa_profile; /* which members FIPA messages must carry; caxton */
};

void engine_config_defaults(struct engine_config *cfg);

/* A conversation as the engine saw it, handed over when it is done with it. */
struct conversation_summary {
    enum protocol proto;
    const char *id;         /* the conversation's key: the opening id, or conversation_id */
    const char *protocol;   /* "iacp-task", "iacp-tool", "fipa-request", ... */
    const char *initiator;  /* the agent that opened it */
    const char *outcome;    /* "done", "refused", "failed", "cancelled", "open", "evicted" ... */
    unsigned long messages; /* messages seen in it */
    const char *first_file;
    unsigned long first_line;
    unsigned long last_line;
    double started; /* message time of the first message, NAN when unknown */
    double ended;   /* message time of the last message, NAN when unknown */
};

typedef void (*conversation_done_fn)(void *ctx, const struct conversation_summary *summary);

struct engine;

struct engine *engine_new(const struct engine_config *cfg, conversation_done_fn done, void *ctx);
/* Follows one message (which passed its per-message checks). Findings go to sink, located at the
 * message, with related_line naming the earlier message involved. Returns the key of the
 * conversation the message belongs to, or NULL; valid until the next call. */
const char *engine_feed(struct engine *e, const struct message *m, struct diag_sink *sink);
/* End of input: reports what is still open or overdue and hands over every conversation. */
void engine_finish(struct engine *e, struct diag_sink *sink);
void engine_free(struct engine *e);

#endif
