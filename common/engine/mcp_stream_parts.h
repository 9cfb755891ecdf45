/* What MCP's stream shares between its files: mcp_stream.c pairs requests and responses, session
 * by session; mcp_rules.c hands each message to MCP's rules beyond the pairing, each in a file of
 * its own (mcp_lifecycle.c, mcp_progress.c, mcp_capabilities.c, mcp_stateless.c, mcp_caching.c,
 * mcp_tasks.c). Private to them. */
#ifndef ACP_MCP_STREAM_PARTS_H
#define ACP_MCP_STREAM_PARTS_H

#include "base/keyform.h"
#include "base/keyring.h"
#include "base/pool.h"
#include "base/strmap.h"
#include "engine/stream.h"
#include "proto/mcp.h"

/* Who sent a request: a capture says, bare lines sometimes. The letters are in its key. */
enum side { SIDE_CLIENT = 'c', SIDE_SERVER = 's', SIDE_UNKNOWN = 'u' };

/* What is kept of a revision: they are dates ("2025-06-18"). */
enum { REVISION_MAX = 32 };

struct pending;
struct task;
struct story;
struct findings;

/* Who may cache a result of 2026-07-28 (Server Utilities, Caching). */
enum cache_scope { SCOPE_UNKNOWN, SCOPE_PUBLIC, SCOPE_PRIVATE };

/* Where a session is in its lifecycle (up to 2025-11-25: MCP Base Protocol, Lifecycle). */
enum phase {
    PHASE_NEW,         /* no initialize yet */
    PHASE_INITIALIZE,  /* the client's initialize is in progress, or failed */
    PHASE_INITIALIZED, /* the server's result came: the client owes notifications/initialized */
    PHASE_OPERATION,   /* notifications/initialized came */
};

/* A session: its requests in progress, its revision, where it is in its lifecycle. */
struct session {
    struct pending *first, *last;    /* its requests in progress, in the order of their records */
    char revision[REVISION_MAX + 1]; /* "": none agreed */
    enum phase phase;
    bool started;            /* the input holds its start: its lifecycle is checked from there */
    bool told_uninitialized; /* a message before initialize has been told (once a session) */
    bool stateless;          /* a request of 2026-07-28 (per-request _meta) came: no lifecycle */
    bool capabilities_known; /* both sides' capabilities: initialize and its result came */
    uint32_t client_capabilities, server_capabilities; /* mcp_capabilities.c's bits */
    char key[];                                        /* the sessions map's */
};

/* A doubly linked list of requests in progress, through the links of one role. */
struct pending_list {
    struct pending *first, *last;
};

/* A request in progress. It is in one of the stream's two lists, those waiting for their response
 * and those told late already (--request-timeout), both in the order of their records, and in its
 * session's. */
struct pending {
    struct hash_node node;         /* in the stream's table of those in progress, by key */
    uint32_t hash;                 /* its key's (hashtab_hash) */
    unsigned char size_class;      /* in the stream's pool */
    struct pending *prev, *next;   /* in the stream's list */
    struct pending *sprev, *snext; /* in its session's */
    struct session *session;
    const char *file; /* one of the stream's file names */
    unsigned long line;
    unsigned long long order; /* its place among the requests: the later of two */
    /* bare lines: a response answered the request at this line (0: none) that might have been
     * this one's, both being in progress with its id */
    unsigned long maybe_answered_line;
    unsigned twins; /* more requests in progress with its key, of a side bare lines do not say */
    double sent;    /* its record's time; NAN: unknown */
    enum side side;
    bool told;           /* late: in the stream's list of those told */
    bool initialize;     /* the client's initialize */
    bool meta_missing;   /* a request of 2026-07-28 without its required _meta fields */
    bool task_augmented; /* params.task: its receiver may run it as a task */
    char *task_key; /* the task it belongs to, whose result carries its related-task, or NULL */
    struct story *story; /* what acp-trace tells of it (mcp_story.c); NULL for acp-validate */
    bool log_level;      /* 2026-07-28: it asks for log messages (_meta's logLevel) */
    bool torn_down;      /* a subscription its server ended: no response is owed */
    /* 2026-07-28: a list's page after the first, of the cache scope of the page before, there */
    enum cache_scope page_scope;
    const char *page_file;
    unsigned long page_line;
    const char *cancelled_file; /* where its sender cancelled it; NULL: it did not */
    unsigned long cancelled_line;
    char *token;     /* the key of its progress token in the stream's tokens, or NULL */
    double progress; /* the latest progress told of it; NAN: none yet */
    bool has_method;
    size_t method_len;
    char *method; /* its method's first bytes (KEY_SHOWN_BYTES at most), after key */
    char key[];   /* the pending map's: session, side, id in keyform */
};

struct mcp_stream {
    const struct engine_config *cfg;
    struct hashtab pending; /* key -> struct pending */
    struct pool pool;       /* the pendings' records, made once a size and used again */
    struct pending_list waiting, told;
    size_t npending;
    unsigned long long opened;           /* requests opened so far: the next one's order */
    struct strmap *sessions;             /* session key -> struct session */
    struct strmap *tokens;               /* progress token key -> struct pending (mcp_progress.c) */
    struct strmap *tasks;                /* task key -> struct task (mcp_tasks.c) */
    struct task *first_task, *last_task; /* the tasks, oldest told first */
    size_t ntasks;
    struct strmap *files;    /* display name -> its copy, which the pendings point to */
    const char *last_file;   /* the copy given last: a file's messages come together */
    struct session *feeding; /* the session of the message being fed: kept to its end */
    /* acp-trace's: who is told each request's story as it ends, the request the findings
     * reported now are blamed on, those of the message being fed before its request is known,
     * and the name of its conversation, which feed returns */
    conversation_done_fn done;
    void *done_ctx;
    struct pending *blame;
    struct findings *held;
    struct strbuf named;
    bool has_named;
    struct key_ring used;      /* requests answered, in a session that holds its ids to its end */
    struct key_ring forgotten; /* requests in progress forgotten past --max-open */
    struct key_ring cursors;   /* the cursors of the latest pages, by list and cache scope */
    struct siphash_key secret;
    /* scratch: the keys of the message being fed before their keyform, and a method shown */
    struct strbuf session_raw, request_raw, token_raw, shown;
    struct key_form_buf session_buf, request_buf, token_buf;
    double now;
};

/* The message being fed: its session, its key and its side, found once. */
struct fed {
    const struct message *m;
    struct session *session;
    const char *session_key;
    enum side side; /* a capture's; SIDE_UNKNOWN in bare lines */
};

/* The side that answers a request of side, or sends progress of it; SIDE_UNKNOWN for one of a
 * side bare lines do not say. */
static inline enum side mcp_other_side(enum side side)
{
    return side == SIDE_CLIENT ? SIDE_SERVER : side == SIDE_SERVER ? SIDE_CLIENT : SIDE_UNKNOWN;
}

/* A request's side as f's message, or its method, says it. */
enum side mcp_sender_side(const struct fed *f, const struct jv *msg);

/* The request of asker with id in progress in f's session (of either side, the later, when
 * asker is unknown); NULL for none. */
struct pending *mcp_request_of(struct mcp_stream *s, const struct fed *f, enum side asker,
                               const struct jv *id);

/* The revision sess is checked as: --mcp-revision's, else the one it agreed on, else NULL. */
const char *mcp_session_revision(struct mcp_stream *s, const struct session *sess);

/* Whether sess is checked as 2026-07-28 or later: a revision without sessions. */
bool mcp_session_of_2026(struct mcp_stream *s, const struct session *sess);

/* Whether sess holds the ids of its requests to its end (its revision does, 2025-11-25 and
 * before), so that the stream remembers those answered (the latest --max-open). */
bool mcp_session_holds_ids(struct mcp_stream *s, const struct session *sess);

/* Whether the request of asker with id in f's session was answered (among the latest --max-open)
 * or forgotten past --max-open. */
bool mcp_request_ended(struct mcp_stream *s, const struct fed *f, enum side asker,
                       const struct jv *id);

/* Whether p's method is name (what is kept of it: a longer one is no name of MCP's). */
static inline bool mcp_pending_method_is(const struct pending *p, const char *name)
{
    return p->has_method && p->method_len == strlen(name) &&
           memcmp(p->method, name, p->method_len) == 0;
}

/* What a diagnostic quotes of a request's method: made safe to show; valid until the next call. */
const char *mcp_method_shown(struct mcp_stream *s, const struct pending *p);

/* One of the stream's copies of a file's name, for a finding to point at later. */
const char *mcp_file_copy(struct mcp_stream *s, const char *file);

/* The key of a value (a string or an integer) in a scope of f's session, valid until the next:
 * a progress token in its requester's side's (mcp_side_scope), a task id in "task", a list's
 * cursor in its method's and cache scope's. */
const char *mcp_scoped_key(struct mcp_stream *s, const struct fed *f, const char *scope,
                           const struct jv *value);
/* The scope of the values of a side: its letter. */
const char *mcp_side_scope(enum side side);

/* Progress: p, opened by msg, asks for it (its token must be unique among those in progress). */
void mcp_progress_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                         const struct jv *msg, struct diag_sink *sink);
/* p ends, or gives up its token: no progress names it from here. */
void mcp_progress_closed(struct mcp_stream *s, struct pending *p);
/* msg, notifications/progress sent by side: of a request in progress, increasing. Returns the
 * request, or NULL for none. */
struct pending *mcp_progress_check(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                                   enum side side, struct diag_sink *sink);

/* The capabilities declared (an initialize's params.capabilities, or its result's), as bits. */
uint32_t mcp_capabilities_of(const struct jv *declared);
/* msg, a request or notification of side: of a capability the other side (or, for some
 * notifications, its sender) declared, once both are known. */
void mcp_capabilities_check(struct mcp_stream *s, const struct session *sess, const struct fed *f,
                            const struct jv *msg, enum side side, struct diag_sink *sink);

/* 2026-07-28 (mcp_stateless.c): msg, any message of side, in a session of that revision. */
void mcp_stateless_check(struct mcp_stream *s, const struct session *sess, const struct fed *f,
                         const struct jv *msg, enum side side, struct diag_sink *sink);
/* p, opened by msg: its _meta fields. */
void mcp_stateless_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                          const struct jv *msg, struct diag_sink *sink);
/* msg answered p: one without its _meta fields with -32602. */
void mcp_stateless_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                            const struct jv *msg, struct diag_sink *sink);

/* Caching hints of 2026-07-28 (mcp_caching.c): p, opened by msg, asks for the page after one
 * whose cursor is remembered; msg answered p, with the hints a cacheable result carries. */
void mcp_caching_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                        const struct jv *msg);
void mcp_caching_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                          const struct jv *msg, struct diag_sink *sink);

/* Stories (mcp_story.c), for acp-trace: a request's conversation begins with p, opened by msg
 * with id, and takes the findings held; msg (a notification, a response) is one of p's, named
 * as feed returns it; p ends with outcome ("done", "failed", "cancelled", "unanswered", "open",
 * "evicted", "reused"), answered by response (or NULL) as f (or NULL) says, and its summary is
 * told. Nothing is kept without a callback. */
void mcp_story_open(struct mcp_stream *s, const struct fed *f, struct pending *p,
                    const struct jv *msg, const struct jv *id);
void mcp_story_add(struct mcp_stream *s, const struct fed *f, struct pending *p);
void mcp_story_end(struct mcp_stream *s, struct pending *p, const char *outcome,
                   const struct jv *response, const struct fed *f);
/* A finding reported now: the request blamed's, or held for the message being fed's. */
void mcp_story_note(struct mcp_stream *s, const struct diag_finding *finding);
void mcp_story_free(struct pending *p);

/* Tasks (mcp_tasks.c): the task p, opened by msg, belongs to; the status a response to p tells
 * of a task, or notifications/tasks/status does, and their related-task metadata; the tasks'
 * memory freed. */
void mcp_tasks_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                      const struct jv *msg, struct diag_sink *sink);
void mcp_tasks_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                        const struct jv *msg, struct diag_sink *sink);
void mcp_tasks_notified(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                        struct diag_sink *sink);
void mcp_tasks_free(struct mcp_stream *s);

/* The lifecycle (mcp_lifecycle.c): msg, notifications/cancelled of side, of the request it
 * returns (or NULL); msg, a request of the
 * client with method, which may begin its session or make it one of 2026-07-28; msg of side with
 * method (NULL: a response) as its session's phase allows; msg, a response that answered p,
 * before p ends. */
struct pending *mcp_lifecycle_cancel(struct mcp_stream *s, const struct session *sess,
                                     const struct fed *f, const struct jv *msg, enum side side,
                                     struct diag_sink *sink);
void mcp_lifecycle_request(struct session *sess, const struct jv *msg, const struct jv *method);
void mcp_lifecycle_check(struct mcp_stream *s, struct session *sess, const struct fed *f,
                         const struct jv *msg, const struct jv *method, enum side side,
                         struct diag_sink *sink);
void mcp_lifecycle_answered(struct mcp_stream *s, const struct fed *f, struct pending *p,
                            const struct jv *msg, struct diag_sink *sink);

/* MCP's rules of a session (mcp_rules.c), each file's in turn: msg (f's message, or one of its
 * batch) before it is paired; msg, a response that answered p, before p ends. */
void mcp_rules_check(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                     struct diag_sink *sink);
void mcp_rules_answered(struct mcp_stream *s, const struct fed *f, struct pending *p,
                        const struct jv *msg, struct diag_sink *sink);

#endif
