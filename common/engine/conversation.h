/* The vocabulary the conversation engine and its two halves (iacp_stream, fipa_stream) share:
 * the configuration, a conversation's summary as it is handed over, and the shard a key falls
 * in. Its own header so that the halves need nothing of the engine that drives them. */
#ifndef ACP_CONVERSATION_H
#define ACP_CONVERSATION_H

#include "proto/fipa.h"
#include "proto/message.h"

struct siphash_key;

struct slot_override {
    const char *agent;
    unsigned long slots;
};

struct engine_config {
    const char *queen;           /* the queen's name (IACP) */
    double assign_timeout;       /* seconds of message time before the queen reissues; 300 */
    double max_skew;             /* tolerated clock skew between a reply and its cause; 2 */
    double linger;               /* message time an ended FIPA conversation is held; 2 */
    double clock_skew;           /* a sender's clock offset from the stream's tolerated; 30 */
    double idle_timeout;         /* seconds of message time after which state expires; 3600 */
    double request_timeout;      /* seconds of message time an MCP request waits; 60 */
    const char *mcp_revision;    /* --mcp-revision: one of mcp_revisions (proto/mcp.h), or NULL */
    double heartbeat_period;     /* IACP heartbeat period; 10 */
    unsigned long max_open;      /* cap on open conversations; the oldest is evicted */
    struct slot_override *slots; /* from --slots=AGENT=N */
    size_t nslots;
    enum fipa_profile fipa_profile; /* which members FIPA messages must carry; caxton */
    bool wall_clock;                /* --wall-clock: message time also passes while input is idle */
    /* --shard=K/N: follow only the conversations whose shard key hashes to K (engine_shard_of);
     * 0 for both when not sharded. Per-agent checks are off then, and findings outside any
     * conversation are reported by shard 1 only. */
    unsigned long shard, shards;
    /* --partition=K/N: the input is partition K of N, the filter having left out the others'
     * messages: what spans partitions (a task's node reissued or run by other foragers, the
     * queen's ids) is not told in it, but by acp-trace --merge over the partitions'
     * summaries. 0 for both when the input is whole. */
    unsigned long partition, partitions;
    /* --span-secret: the key of the digests of long names and ids, the same for every partition
     * of a run, so that acp-trace --merge compares them; NULL: one drawn for the run. */
    const struct siphash_key *span_secret;
};

void engine_config_defaults(struct engine_config *cfg);

/* The time from a conversation's opening message to one of its replies, by the times the two
 * messages carry as written. */
struct latency {
    const char *name;    /* "accept", "result" (IACP); "first_reply", "final_reply" (FIPA) */
    const char *request; /* the kind or act it is measured from: "task.assign", "request" */
    const char *reply;   /* and to: "task.accept", "inform"; NULL when no such reply came */
    const char *agent;   /* the agent that replied, or NULL */
    double seconds;      /* NAN when no such reply came, or a time is unknown */
    bool repeats;        /* the reply is the one the latency before measured (FIPA) */
};

/* Two assigns of one node that both had a final task.result (IACP). */
struct duplicate_execution {
    const char *node;
    const char *assigns[2];  /* the one that finished first, then this one */
    const char *foragers[2]; /* the agents they went to */
};

struct findings;

/* A conversation as the engine saw it, handed over when it is done with it. Every pointer is
 * valid during the callback only. */
struct conversation_summary {
    enum protocol proto;
    const char *id;           /* the conversation's key: the opening id, or conversation_id */
    const char *conversation; /* its id as acp-convert writes conversation_id */
    const char *protocol;     /* "iacp-task", "iacp-tool", "fipa-request", ... */
    const char *initiator;    /* the agent that opened it */
    const char *const *participants; /* every agent in it, the initiator first */
    size_t nparticipants;
    /* "done", "failed", "refused", "rejected", "not-understood", "cancelled": how it ended;
     * "open" (at the end of input), "evicted" or "expired" (IACP says "evicted" for both), or
     * "reused" (FIPA: a new run started in it) when it did not. */
    const char *outcome;
    bool cancelled;         /* its initiator cancelled it */
    unsigned long messages; /* messages seen in it */
    const char *first_file;
    unsigned long first_line;
    const char *last_file;
    unsigned long last_line;
    double started; /* message time of the first message, NAN when unknown */
    double ended;   /* message time of the last message, NAN when unknown */
    struct latency latency[2];
    size_t nlatency;
    const struct duplicate_execution *duplicate; /* NULL when none */
    /* A conversation of one request (MCP): its method, what it names (a tool, a prompt, a
     * resource; NULL: nothing), and the code of the error that answered it, if one did. NULL,
     * NULL and false for the other dialects. */
    const char *method;
    const char *subject;
    bool has_error_code;
    long long error_code;
    /* The findings the stream checks blamed on it, in the order reported; NULL when none. Only
     * collected for an engine made with a callback. Findings about an agent (slots, silence,
     * duplicate ids, clock skew), about no conversation, and about a conversation after it was
     * handed over are not among them. */
    const struct findings *findings;
    /* --partition: what acp-trace --merge needs of it to tell what spans partitions, as the JSON
     * text of an object its dialect writes and its dialect's merge reads; NULL when none. A
     * summary with a span and no conversation (NULL) is of none: a message whose conversation
     * may be another partition's, handed over for its span alone. */
    const char *span;
};

typedef void (*conversation_done_fn)(void *ctx, const struct conversation_summary *summary);

/* With --shard, engine_feed's answer for a message another shard accounts for: one of a
 * conversation that shard follows, or, in shards other than 1, one of no conversation. */
extern const char ENGINE_ELSEWHERE[];

/* The shard (1 to shards) of a shard key: FNV-1a (64-bit) of its bytes, modulo shards, plus 1. */
unsigned long engine_shard_of(const char *key, unsigned long shards);

/* What engine_check_message leaves of an IACP message that passed for the stream checks. */
enum engine_digest {
    DIGEST_NONE, /* nothing: engine_feed reads the message (one thread) */
    /* all the stream checks read of it (m->digest), so that the thread that follows the stream
     * in order reads that instead of the message: for the worker threads of --jobs */
    DIGEST_MADE,
    /* the same, and the message is drafted with it (message_drafted): its view is not kept, for
     * a tool whose `message` reads no more of it than engine_check_passed does (acp-validate) */
    DIGEST_ONLY,
};

#endif
