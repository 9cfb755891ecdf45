/* A dialect's half of the conversation engine, as one table of operations: engine.c keeps a
 * stream for each table and hands each message to its dialect's, and never names one. Each
 * table is defined at the end of its own file (iacp_stream.c, fipa_stream.c, mcp_stream.c). */
#ifndef ACP_STREAM_H
#define ACP_STREAM_H

#include "engine/conversation.h"

/* A stream: each stream file's own structure, behind the table. */
struct stream;

/* A dialect's half of acp-trace --merge, for what spans the partitions of a stream
 * (--partition): told from the span each partition's summaries carry, in two passes over them.
 * Its own structure behind the table. */
struct span_merge;
struct diag_sink;

struct merge_ops {
    struct span_merge *(*open)(const struct engine_config *cfg);
    /* Pass 1: a record (a JSON object, at at) the input-th file held, the ordinal-th read: 1 when
     * it is a summary of its dialect with a span (kept), 0 when it is not its dialect's, -1 with
     * *why when it is but its span cannot be read. */
    int (*collect)(struct span_merge *m, const json_t *record, size_t input, unsigned long ordinal,
                   const struct diag_where *at, const char **why);
    /* Between the passes: reports what spans partitions through sink. */
    void (*settle)(struct span_merge *m, struct diag_sink *sink);
    /* Pass 2: the ordinal-th record, given what settle blamed on it (issues, outcome). */
    void (*patch)(struct span_merge *m, json_t *record, unsigned long ordinal);
    void (*free)(struct span_merge *m);
};

struct stream_ops {
    enum protocol proto; /* the dialect whose messages it follows */
    struct stream *(*open)(const struct engine_config *cfg, conversation_done_fn done, void *ctx);
    /* Follows m (which passed its per-message checks); returns what engine_feed does. */
    const char *(*feed)(struct stream *s, const struct message *m, struct diag_sink *sink);
    /* A message that failed its own checks (engine_check_message), which changes nothing: one
     * naming an open conversation is one of its messages all the same, counted in it, with its
     * own findings (*own, taken). Returns what feed would, NULL for a message of none. */
    const char *(*failed)(struct stream *s, const struct message *m, struct findings **own);
    /* A finding the sink reported while the stream was being fed or finished: kept for the
     * conversation the stream blames it on, if any (the engine observes the sink for it). */
    void (*note)(struct stream *s, const struct diag_finding *finding);
    /* A capture's record that a session started or ended (m->capture.starts_session,
     * ends_session): a session's start is where its checks begin, and what was in progress in
     * it ends with it (reported). NULL for a stream of a dialect without sessions. */
    void (*session_event)(struct stream *s, const struct message *m, struct diag_sink *sink);
    /* End of input: reports what is open or overdue and hands over every conversation. */
    void (*finish)(struct stream *s, struct diag_sink *sink);
    /* Hands over every open conversation as "open", reporting nothing. */
    void (*hand_over)(struct stream *s);
    /* Message time: NAN before the first message. */
    double (*now)(const struct stream *s);
    /* Moves message time forward to at least now (--wall-clock), and expires what is due;
     * where locates the findings (the latest message). */
    void (*advance)(struct stream *s, double now, const struct diag_where *where,
                    struct diag_sink *sink);
    /* The message time at which something falls due next; INFINITY when nothing is pending. */
    double (*next_due)(const struct stream *s);
    void (*free)(struct stream *s);
    /* What feed reads of m, made beforehand in any thread (--jobs) into m->digest, and with
     * DIGEST_ONLY the message drafted with it; NULL for a stream that reads the message itself. */
    void (*digest)(struct message *m, enum engine_digest how);
    /* What spans partitions in this dialect; NULL when nothing does. */
    const struct merge_ops *merge;
};

/* Each defined at the end of its own file. */
extern const struct stream_ops iacp_stream_ops, fipa_stream_ops, mcp_stream_ops;
extern const struct merge_ops iacp_merge_ops;

#endif
