/* The IACP 1.1 pairing rules over a stream. A task.assign or a tool.query opens a conversation
 * keyed by its sender and id; replies join it through ref and the agent they are sent to.
 * Message time is the stream clock (clock.h), so that no single sender's clock moves it for the
 * others. State is kept bounded for endless live streams, by time and by count: the id of every
 * message is remembered (with how its conversation ended, once it did) for --idle-timeout and at
 * most --max-open of them; at most --max-open conversations are open; agents that hold nothing
 * are forgotten after --idle-timeout, or the least recently active first when more than
 * --max-open agents are known. Nothing ever scans everything on one message. */
#include "engine/iacp_spans.h"
#include "engine/iacp_digest.h"
#include "engine/stream.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/duequeue.h"
#include "base/hashtab.h"
#include "base/jsonout.h"
#include "base/keyform.h"
#include "base/siphash.h"
#include "base/list.h"
#include "base/pool.h"
#include "base/streamclock.h"
#include "base/timeutil.h"
#include "base/util.h"
#include "diag/findings.h"
#include "proto/iacp.h"

/* An agent is called silent after this many heartbeat periods without a message. */
enum { SILENT_PERIODS = 3 };
/* At most this many iacp-skew findings wait for the clock; the oldest is judged beyond it. */
enum { HELD_SKEWS = 64 };

/* A ctl.drain or ctl.halt in force for a forager. */
struct control {
    bool given;
    double at;         /* the message time of the control message */
    double issued;     /* the stream time when it came */
    unsigned long fed; /* its place in the stream (messages followed before it) */
    const char *file;  /* the control message */
    unsigned long line;
};

/* The queen's orders to a forager that are in force. */
struct orders {
    struct control drain, halt;
};

struct agent {
    struct hash_node node;      /* in the agents map, by name */
    struct list_link idle_link; /* in the idle list while it holds nothing (refs == 0) */
    struct due_entry silence;   /* in the silence queue while it holds tasks, by when heard */
    uint32_t advertised;        /* body.slots of its latest hb; 0 when none */
    uint32_t name_hash;         /* in the agents map: removed without reading its name */
    double heard;               /* stream time of its last message; NAN before it spoke */
    double active;              /* stream time it last took part in anything */
    const char *file;           /* its last message */
    unsigned long line;
    const char *assign_file; /* the last task.assign sent to it */
    unsigned long assign_line;
    unsigned long outstanding; /* task.assign it holds */
    unsigned long refs;        /* open conversations that name it */
    struct orders *orders;     /* NULL when none is in force */
    /* What the stream clock knows of it as a sender (sender_clock): NULL while it was only ever
     * sent to, as the foragers of an assign nobody answers are; else after its name, when it
     * was first heard as a sender, or apart */
    struct clock_sender *clock;
    bool clock_apart;
    bool heartbeats;       /* its heartbeats were seen: only then can it fall silent */
    bool silence_reported; /* once per silence */
    char name[];           /* as it is remembered (keyform.h: name_form) */
};

enum conv_kind { CONV_TASK, CONV_TOOL };
/* How the conversation that a remembered id opened ended. */
enum ending { END_NONE, END_RESULT, END_REJECT, END_EVICTED, END_FOREIGN };

/* An assign of the same node that already had its final result: when this one gets its own,
 * the node ran twice. */
struct done_by {
    char *id;
    char *forager; /* the agent it went to */
    const char *file;
    unsigned long line;
};

/* What few conversations have, kept apart so that every open one does not pay for it: another
 * run of its node that had its final result, and the assign that reissued it to another
 * forager. */
struct conv_rare {
    struct done_by done; /* done.id NULL when none */
    const char *reissue_file;
    unsigned long reissue_line; /* 0 when it was not reissued */
};

/* What only a conversation's summary needs: kept apart, so that the stream checks alone do not
 * pay for it with every open conversation. */
/* A message a span names (below): where it is, and its time. */
struct moment {
    double at; /* the message's time (fields.at) */
    const char *file;
    unsigned long line; /* 0: no such message */
    char *id;           /* its id, or NULL */
};

struct story {
    struct findings *findings; /* blamed on it; NULL when none */
    /* --partition, an assign: what acp-trace --merge needs to follow its node's runs and the
     * replies of other partitions over partitions (its span): when it was assigned, first
     * accepted, when it stopped being a run of its node (how: "result" for a final task.result,
     * else "closed"), and the message that ended it (closing; ending: "result", "reject",
     * "evicted"). */
    double assign_at;
    struct moment accept, left, closing;
    const char *left_how, *ending;
    const char *last_file; /* its latest message's */
    double accept_ts;      /* its task.accept's ts as written; NAN when none */
    /* Once it ended and lingers (iacp_stream.lingering): how, the ts of the final reply as
     * written (NAN when none), and the stream time then. */
    const char *outcome;
    double result_ts, ended;
};

enum { SECRET_PRINT_LEN = 16 };

/* An open conversation. Its key is the opener's name with its length, then the id, so that two
 * agents may use the same id (ids are unique per sender only), in the form it is remembered by
 * (keyform.h); after a digest form, the id as it is quoted (at most KEY_SHOWN_BYTES of it); then
 * the name of the agent it went to and an assign's body.node, as they are remembered (name_form).
 * It holds the agent record of its
 * initiator, and a task that of its forager (the agent a tool query went to needs none). The open
 * assigns of one node are a chain: a reissue adds to it, and two final results in one chain mean
 * the node ran twice. */
struct conv {
    struct hash_node node;        /* in the open map, by key */
    struct hash_node by_node;     /* in the nodes map while it is a run of its node */
    struct list_link active_link; /* in the open list, least recently active first */
    struct due_entry due;         /* an assign's, in the due queue while something falls due */
    struct agent *initiator;      /* the agent that opened it */
    struct agent *forager;        /* a task's assignee; NULL for a tool query */
    struct conv_rare *rare;       /* NULL when it has none of that */
    struct story *story;          /* for its summary; NULL without a callback */
    const char *file;             /* the opening message */
    unsigned long line;
    unsigned long last_line;
    unsigned long messages;
    unsigned long fed;       /* messages followed before the opening one: opening order */
    const char *accept_file; /* its task.accept, if any */
    unsigned long accept_line;
    double sent_ts; /* the opening message's ts, by its sender's clock */
    double last_at;
    double active;                /* stream time of its last message */
    double deadline;              /* body.deadline, by the queen's clock; NAN when none */
    double opened;                /* an assign's message time, for --assign-timeout */
    uint32_t key_hash, node_hash; /* kept: each is looked up or removed by again */
    unsigned char kind;           /* enum conv_kind */
    bool cancelled;
    bool has_node;            /* an assign with a body.node */
    bool chained;             /* in the nodes map */
    bool ran_twice;           /* its final result made iacp-duplicate-execution, with done */
    bool deadline_told;       /* iacp-deadline-passed was reported */
    bool timeout_told;        /* iacp-assign-timeout was reported */
    unsigned char size_class; /* in the stream's pool */
    char key[]; /* then (after a digest) its id as quoted, the agent it went to, its node */
};

/* A message id seen from one sender, kept to catch reuse and to name what a ref points at; once
 * the conversation it opened ended, also how, to recognise late replies (a tombstone). Its key
 * is in the form it is remembered by (keyform.h): at most KEY_KEPT_BYTES. */
struct sent {
    /* what forgetting the oldest id reads (expire) comes first, within 40 bytes */
    struct hash_node node;    /* in the ids map, by key */
    struct list_link link;    /* the ids, least recently seen or ended first */
    uint32_t hash;            /* of key: forgotten without reading the key again */
    unsigned char kind;       /* enum iacp_kind of its message */
    unsigned char ending;     /* enum ending */
    unsigned char size_class; /* in the stream's pool */
    double heard;             /* stream time it was seen, or its conversation ended */
    const char *file;         /* the message that carried it */
    unsigned long line;
    const char *end_file; /* the message that ended its conversation */
    unsigned long end_line;
    char key[];
};

/* An iacp-skew held back: the clock of the reply's sender, or of its cause's, looked off by more
 * than --clock-skew, so it is judged once the clock knows whether that offset is steady (then
 * the message is read with it) or not. */
struct held_skew {
    struct list_link link;   /* in the held list, oldest first */
    struct agent *replier;   /* both held by the note, so that they are not forgotten */
    struct agent *initiator; /* meanwhile */
    bool replier_off;        /* whose clock looked off: the note waits for it */
    bool initiator_off;
    struct diag_where at; /* the reply, and its cause as related line */
    char *id;             /* the reply's id, which at.id points at */
    char *conversation;   /* the key of the conversation it is blamed on, as remembered */
    double reply_ts;      /* by the replier's clock */
    double cause_ts;      /* by the initiator's clock */
    enum conv_kind kind;
};

/* A key of the maps, with its length and hash. */
struct id_key {
    const char *text;
    size_t len, hash;
};

struct iacp_stream {
    const struct engine_config *cfg;
    struct siphash_key secret; /* drawn for the run: the digests of long keys (keyform.h) */
    char secret_print[SECRET_PRINT_LEN + 1]; /* for spans (secret_print) */
    conversation_done_fn done;
    void *ctx;
    struct stream_clock clock;
    struct hashtab agents; /* of struct agent, by name */
    struct hashtab open;   /* of struct conv, by key */
    struct hashtab sent;   /* of struct sent, by key */
    struct hashtab nodes;  /* of struct conv: the open runs of each node, by body.node */
    struct list active;    /* of struct conv: the open ones, least recently active first */
    struct list ids;       /* of struct sent, the least recently seen first */
    struct list idle;      /* of struct agent: those holding nothing, least recently active first */
    struct list held;      /* of struct held_skew */
    /* Of struct conv (their active_link and node): those that ended and wait --linger of message
     * time before their summary, so that a late reply still lands in it; the oldest first. */
    struct list lingering;
    struct hashtab lingering_map;
    struct due_queue silent; /* of struct agent: those holding tasks, the longest silent first */
    struct due_queue due;   /* of struct conv: open assigns, by when their deadline or timeout is */
    double now;             /* stream time (the clock's); NAN before the first message */
    double wall;            /* --wall-clock: how far idle input moved it; NAN when not */
    double reply_ts;        /* the ts of the reply being applied, as written */
    struct conv *blame;     /* the conversation findings are kept for, or NULL */
    bool sharded;           /* --shard */
    struct diag_sink probe; /* for findings another shard reports */
    const char *last_file;  /* the latest message */
    unsigned long last_line;
    /* the message being fed, and its time; NULL between messages (where nothing that ends a
     * run is a message's doing) */
    const struct message *msg;
    double msg_at;
    struct strbuf span; /* a summary's span (--partition) */
    unsigned long fed;  /* messages followed */
    /* the keys of the message being followed (its digest's), the ref's absent (NULL) when the
     * message is no reply with a ref */
    struct id_key own, ref;
    struct key_form_buf own_form, ref_form; /* their digest forms, for long ones */
    /* the forms of the message's long names: from, to and body.node (name_form) */
    struct name_form_buf from_form, to_form, node_form;
    char **slot_agents;         /* the agents of --slots, as they are remembered */
    struct strbuf shown[4];     /* long names as a summary shows them (shown) */
    struct strbuf digest;       /* the digest of a message that came without one */
    struct pool pool;           /* the records of ids and conversations */
    struct strbuf conversation; /* the conversation_id engine_feed returns */
    struct strbuf number[2];    /* scratch space for durations in messages */
    /* An assign or a query being followed: what is found on it before its conversation opens
     * (iacp-slots, iacp-after-halt) is pending, then given to the conversation it opens, as the
     * FIPA half does with what it finds before a conversation opens. */
    bool opening;
    struct findings *pending;
};

/* The fields every rule needs, read once. The names are as they are remembered (name_form): a
 * long one by its first bytes and digest, so that it is compared with what is remembered. */
struct fields {
    const char *from, *to, *ref;
    const char *node; /* an assign's body.node, or NULL */
    /* from, to and node as written: what names the message's conversation and shard */
    const char *from_text, *to_text, *node_text;
    size_t from_hash; /* of from, for the agents map */
    size_t to_hash;   /* of to, for the kinds that look its agent up (to_agent) and a long to;
                       * else 0 */
    size_t node_hash; /* of node, for the chains of runs of nodes */
    struct agent *sender;
    enum iacp_kind kind;
    struct body_facts body;
    double ts;   /* ts in seconds, by its sender's clock */
    double at;   /* the message's time: ts less its sender's learned offset */
    bool legacy; /* IACP 1.0: no ref, so no ref rules */
};

/* ---- small helpers ---- */

/* The digest made in a worker thread of --jobs (stream_ops.digest). */
static void iacp_stream_digest(struct message *m, enum engine_digest how)
{
    struct iacp_digest *d = iacp_digest_make(NULL, m);
    m->digest = d;
    if (how == DIGEST_ONLY)
        message_drafted(m, NULL, iacp_digest_id(d), false);
}

/* A key of the maps that was not made with its hash. */
static struct id_key id_key_of(const char *text)
{
    size_t len = strlen(text);
    return (struct id_key){text, len, hashtab_hash_len(text, len)};
}

/* A number of seconds as people write it: no trailing zeros, and no endless digits. */
static struct diag_where related_to(const struct diag_where *at, const char *file,
                                    unsigned long line)
{
    struct diag_where w = *at;
    w.related_line = line;
    w.related_file = NULL;
    if (file && at->file && strcmp(file, at->file) != 0)
        w.related_file = file;
    return w;
}

/* Where findings about no conversation go: in shard mode, shard 1 reports them. */
static struct diag_sink *outside(struct iacp_stream *s, struct diag_sink *sink)
{
    return s->sharded && s->cfg->shard != 1 ? &s->probe : sink;
}

/* Whether a key is a digest form (keyform.h): a key kept as it is begins with a digit. */
static bool digested(const char *key)
{
    return key[0] == '\xff';
}

/* The id inside a key kept as it is (iacp_digest_put_key). */
static const char *key_id(const char *key)
{
    char *colon;
    unsigned long len = strtoul(key, &colon, 10);
    return colon + 1 + len;
}

/* Its id as it is quoted: inside its key, or after a digest form its first KEY_SHOWN_BYTES. */
static const char *conv_id(const struct conv *c)
{
    return digested(c->key) ? c->key + strlen(c->key) + 1 : key_id(c->key);
}

/* The agent the opening message went to. */
static const char *conv_to(const struct conv *c)
{
    const char *before = digested(c->key) ? conv_id(c) : c->key;
    return before + strlen(before) + 1;
}

/* An assign's body.node, or NULL. */
static const char *conv_node(const struct conv *c)
{
    const char *to = conv_to(c);
    return c->has_node ? to + strlen(to) + 1 : NULL;
}

/* The keys of the maps. */
/* Another run of c's node that had its final result, or NULL. */
static const struct done_by *done_of(const struct conv *c)
{
    return c->rare && c->rare->done.id ? &c->rare->done : NULL;
}

static struct conv_rare *rare_of(struct conv *c)
{
    if (!c->rare)
        c->rare = xcalloc(1, sizeof *c->rare);
    return c->rare;
}

/* The line of the assign that reissued c to another forager, or 0. */
static unsigned long reissued_at(const struct conv *c)
{
    return c->rare ? c->rare->reissue_line : 0;
}

static const char *agent_key(const struct hash_node *n)
{
    return HASH_ITEM(n, struct agent, node)->name;
}

static const char *conv_key(const struct hash_node *n)
{
    return HASH_ITEM(n, struct conv, node)->key;
}

static const char *node_key(const struct hash_node *n)
{
    return conv_node(HASH_ITEM(n, struct conv, by_node));
}

static const char *sent_key(const struct hash_node *n)
{
    return HASH_ITEM(n, struct sent, node)->key;
}

static struct agent *find_agent(const struct iacp_stream *s, const char *name, size_t hash)
{
    return HASH_ITEM(hashtab_find_hashed(&s->agents, name, hash), struct agent, node);
}

static struct conv *find_open(const struct iacp_stream *s, const struct id_key *key)
{
    return HASH_ITEM(hashtab_find_hashed(&s->open, key->text, key->hash), struct conv, node);
}

static struct conv *find_lingering(const struct iacp_stream *s, const struct id_key *key)
{
    return HASH_ITEM(hashtab_find_hashed(&s->lingering_map, key->text, key->hash), struct conv,
                     node);
}

static struct sent *find_sent(const struct iacp_stream *s, const struct id_key *key)
{
    return HASH_ITEM(hashtab_find_hashed(&s->sent, key->text, key->hash), struct sent, node);
}

static enum conv_kind kind_opened(enum iacp_kind k)
{
    return k == IACP_TOOL_QUERY ? CONV_TOOL : CONV_TASK;
}

/* Puts an agent holding tasks under watch, unless it is already or its silence was told. */
static void watch_agent(struct iacp_stream *s, struct agent *a)
{
    if (a->heartbeats && a->outstanding > 0 && !a->silence_reported && !due_queued(&a->silence) &&
        !isnan(a->heard))
        due_queue_set(&s->silent, &a->silence, a->heard);
}

/* ---- agents ---- */

static unsigned long configured_slots(const struct iacp_stream *s, const char *name)
{
    unsigned long slots = 0;
    for (size_t i = 0; i < s->cfg->nslots; i++)
        if (strcmp(s->slot_agents[i], name) == 0)
            slots = s->cfg->slots[i].slots;
    return slots;
}

static void free_agent_record(struct agent *a)
{
    if (a->clock_apart)
        free(a->clock);
    free(a->orders);
    free(a);
}

/* The clock of an agent that sends: made now when it was only ever sent to. */
static struct clock_sender *sender_clock(struct iacp_stream *s, struct agent *a)
{
    if (!a->clock) {
        a->clock = xmalloc(sizeof *a->clock);
        a->clock_apart = true;
        clock_sender_init(&s->clock, a->clock);
    }
    return a->clock;
}

/* An agent's clock offset (streamclock.h): none for one that never sent. */
static double offset_of(const struct agent *a)
{
    return a->clock ? a->clock->offset : 0;
}

/* Its messages in a row off the stream clock by more than --clock-skew, one way. */
static unsigned streak_of(const struct agent *a)
{
    return a->clock ? a->clock->streak : 0;
}

static void drop_agent(struct iacp_stream *s, struct agent *a)
{
    due_queue_remove(&s->silent, &a->silence);
    list_remove(&s->idle, &a->idle_link);
    hashtab_remove_hashed(&s->agents, &a->node, a->name_hash);
    free_agent_record(a);
}

/* The agent of a name whose hash is hash. */
/* An agent of a name whose hash is hash, made when new: with room for its clock after its name
 * when it sends. */
static struct agent *agent_get(struct iacp_stream *s, const char *name, size_t hash, bool sends)
{
    struct agent *a = find_agent(s, name, hash);
    if (!a) {
        size_t len = strlen(name);
        size_t name_end = offsetof(struct agent, name) + len + 1;
        size_t clock_at =
            (name_end + alignof(struct clock_sender) - 1) & ~(alignof(struct clock_sender) - 1);
        a = xcalloc(1, sends ? clock_at + sizeof *a->clock : name_end);
        memcpy(a->name, name, len + 1);
        a->heard = NAN;
        a->name_hash = (uint32_t)hash;
        if (sends) {
            a->clock = (struct clock_sender *)(void *)((char *)a + clock_at);
            clock_sender_init(&s->clock, a->clock);
        }
        hashtab_add_new(&s->agents, &a->node, hash);
    } else if (a->refs == 0) {
        list_remove(&s->idle, &a->idle_link);
    }
    if (a->refs == 0)
        list_append(&s->idle, &a->idle_link);
    a->active = s->now;
    return a;
}

/* The agent a message goes to (of a kind names_agent_to says). */
static struct agent *to_agent(struct iacp_stream *s, const struct fields *f)
{
    /* 0: not made in the digest (a hash that is 0 is made again, the same) */
    return agent_get(s, f->to, f->to_hash ? f->to_hash : hashtab_hash(f->to), false);
}

/* An open conversation names the agent: it must not be forgotten meanwhile. */
static void hold_agent(struct iacp_stream *s, struct agent *a)
{
    if (a->refs++ == 0)
        list_remove(&s->idle, &a->idle_link);
}

static void release_agent(struct iacp_stream *s, struct agent *a)
{
    if (--a->refs == 0) {
        a->active = s->now;
        list_append(&s->idle, &a->idle_link);
    }
}

static void agent_heard(struct iacp_stream *s, struct agent *a, const struct message *m)
{
    a->heard = s->now;
    a->file = m->at.file;
    a->line = m->at.line;
    a->silence_reported = false;
    if (due_queued(&a->silence))
        due_queue_set(&s->silent, &a->silence, a->heard);
    else
        watch_agent(s, a);
}

static unsigned long allowed_slots(const struct iacp_stream *s, const struct agent *a)
{
    unsigned long slots = 1, configured = configured_slots(s, a->name);
    if (a->advertised > slots)
        slots = a->advertised;
    if (configured > slots)
        slots = configured;
    return slots;
}

/* ---- liveness ---- */

static void check_silence(struct iacp_stream *s, const struct diag_where *at,
                          struct diag_sink *sink)
{
    double limit = SILENT_PERIODS * s->cfg->heartbeat_period;
    while (due_queue_next(&s->silent) + limit < s->now) {
        struct agent *a = DUE_ITEM(due_queue_first(&s->silent), struct agent, silence);
        due_queue_remove(&s->silent, &a->silence);
        if (a->outstanding == 0 || a->silence_reported)
            continue;
        a->silence_reported = true;
        struct diag_where w = related_to(at, a->file, a->line);
        diag_emit(sink, &w, "iacp-silent",
                  "'%s' holds %lu task(s) and has been silent for %s s (%d heartbeat periods "
                  "without a message)",
                  a->name, a->outstanding, iacp_seconds(&s->number[0], s->now - a->heard),
                  SILENT_PERIODS);
    }
}

/* ---- ids, and the ends of conversations ---- */

static void forget_id(struct iacp_stream *s, struct sent *e)
{
    list_remove(&s->ids, &e->link);
    hashtab_remove_hashed(&s->sent, &e->node, e->hash);
    pool_put(&s->pool, e, e->size_class);
}

static struct sent *remember_id(struct iacp_stream *s, const struct id_key *key,
                                const struct message *m, enum iacp_kind kind)
{
    /* one made and an old one forgotten for nearly every message: from the pool */
    unsigned char size_class;
    struct sent *e = pool_get(&s->pool, offsetof(struct sent, key) + key->len + 1, &size_class);
    *e = (struct sent){.heard = s->now,
                       .file = m->at.file,
                       .line = m->at.line,
                       .kind = kind,
                       .size_class = size_class,
                       .hash = (uint32_t)key->hash};
    memcpy(e->key, key->text, key->len + 1);
    list_append(&s->ids, &e->link);
    hashtab_add_hashed(&s->sent, &e->node, key->hash);
    return e;
}

/* ---- conversations ---- */

static struct conv *least_active(const struct iacp_stream *s)
{
    return LIST_ITEM(s->active.head, struct conv, active_link);
}

static struct conv *next_run(const struct iacp_stream *s, const struct conv *c)
{
    return HASH_ITEM(hashtab_find_next(&s->nodes, &c->by_node), struct conv, by_node);
}

/* The latest open assign of a node, or NULL. */
static struct conv *latest_run(const struct iacp_stream *s, const char *node, size_t hash)
{
    struct conv *latest =
        HASH_ITEM(hashtab_find_hashed(&s->nodes, node, hash), struct conv, by_node);
    for (struct conv *c = latest; c; c = next_run(s, c))
        if (c->fed > latest->fed)
            latest = c;
    return latest;
}

/* The id of the conversation an agent opened with id, as acp-convert writes it. */
static const char *conversation_of(struct iacp_stream *s, const char *agent, const char *id)
{
    return message_conversation_id(&s->conversation, agent, id);
}

/* A remembered name as a summary shows it (keyform.h): a long one by its first bytes, copied
 * into s->shown[slot]. */
static const char *shown(struct iacp_stream *s, size_t slot, const char *form)
{
    return name_shown(form, &s->shown[slot]);
}

/* A latency from the opening message's ts to a reply's, as written; NAN for none. */
static struct latency latency_to(const struct conv *c, const char *to, const char *name,
                                 const char *reply, double ts)
{
    bool came = !isnan(ts);
    return (struct latency){
        .name = name,
        .request = c->kind == CONV_TASK ? "task.assign" : "tool.query",
        .reply = came ? reply : NULL,
        .agent = came ? to : NULL,
        .seconds = came ? time_elapsed(ts, c->sent_ts) : NAN,
    };
}

/* Whether a conversation's summary has a span: an assign, in a partition. */
static bool spans(const struct iacp_stream *s, const struct conv *c)
{
    return s->cfg->partitions && c->kind == CONV_TASK && c->story;
}

/* Notes the message being fed as one a span names, once. */
static void note_moment(struct iacp_stream *s, struct moment *at)
{
    if (at->line || !s->msg)
        return;
    *at = (struct moment){.at = s->msg_at,
                          .file = s->msg->at.file,
                          .line = s->msg->at.line,
                          .id = s->msg->id ? xstrdup(s->msg->id) : NULL};
}

/* In a partition, where one process would take an assign out of its node's chain: the span
 * notes the message that did (the first such). */
static void note_left(struct iacp_stream *s, struct conv *c, const char *how)
{
    if (!spans(s, c) || c->story->left.line || !s->msg)
        return;
    note_moment(s, &c->story->left);
    c->story->left_how = how;
}

static void put_name(struct jsonout *w, const char *key, const char *name)
{
    jsonout_key(w, key);
    jsonout_string_or_null(w, name);
}

/* A message a span names: {at, file, line, id}; null for none (line 0). */
static void put_place(struct jsonout *w, const char *key, double at, const char *file,
                      unsigned long line, const char *id)
{
    jsonout_key(w, key);
    if (!line) {
        jsonout_null(w);
        return;
    }
    jsonout_begin_object(w);
    jsonout_key(w, "at");
    jsonout_number(w, at);
    put_name(w, "file", file);
    jsonout_key(w, "line");
    jsonout_integer(w, (json_int_t)line);
    put_name(w, "id", id);
    jsonout_end_object(w);
}

static void put_moment(struct jsonout *w, const char *key, const struct moment *at)
{
    put_place(w, key, at->at, at->file, at->line, at->id);
}

/* A name or key as it is remembered (keyform.h), which is how the merge compares it: a long
 * one's digest form with its byte 0xff written '#' (no name or key kept as it is is as long as
 * a form with a digest, so none reads as one). True for a long one. */
static bool put_form_len(struct jsonout *w, const char *key, const char *form, size_t len)
{
    jsonout_key(w, key);
    const char *mark = memchr(form, 0xff, len);
    size_t before = mark ? (size_t)(mark - form) : len;
    jsonout_string_open(w);
    jsonout_string_part(w, form, before);
    if (mark) {
        jsonout_string_part(w, "#", 1);
        jsonout_string_part(w, mark + 1, len - before - 1);
    }
    jsonout_string_close(w);
    return mark != NULL;
}

static bool put_form(struct jsonout *w, const char *key, const char *form)
{
    if (form)
        return put_form_len(w, key, form, strlen(form));
    jsonout_key(w, key);
    jsonout_null(w);
    return false;
}

/* After a span's long forms: the print of the secret they were made under, so that the merge
 * knows whether every partition made them alike (--span-secret). */
static void put_secret_print(struct iacp_stream *s, struct jsonout *w, bool long_forms)
{
    if (long_forms)
        put_name(w, "digests", s->secret_print);
}

static void begin_span(struct iacp_stream *s, struct jsonout *w)
{
    sb_reset(&s->span);
    jsonout_init(w, &s->span, JSONOUT_TERMINAL);
    jsonout_begin_object(w);
}

/* Hands over a span of no conversation. */
static void hand_over_span(struct iacp_stream *s, struct jsonout *w)
{
    jsonout_end_object(w);
    const struct conversation_summary summary = {.proto = PROTO_IACP, .span = s->span.buf};
    s->done(s->ctx, &summary);
}

/* A run's span (iacp_merge.c reads it): its node, key and forager in the forms they are compared
 * in, the queen's ts of its assign, and the messages of its assign, first accept, leaving the
 * node's runs and ending; NULL when it has none. */
static const char *span_of(struct iacp_stream *s, const struct conv *c)
{
    if (!spans(s, c))
        return NULL;
    const struct story *st = c->story;
    struct jsonout w;
    begin_span(s, &w);
    bool long_forms = put_form(&w, "node", conv_node(c));
    long_forms |= put_form(&w, "key", c->key);
    jsonout_key(&w, "id");
    jsonout_string(&w, conv_id(c), strlen(conv_id(c)));
    long_forms |= put_form(&w, "forager", conv_to(c));
    jsonout_key(&w, "sent");
    jsonout_number(&w, c->sent_ts);
    jsonout_key(&w, "at");
    jsonout_number(&w, st->assign_at);
    put_moment(&w, "accept", &st->accept);
    put_moment(&w, "left", &st->left);
    put_name(&w, "how", st->left_how);
    put_moment(&w, "ended", &st->closing);
    put_name(&w, "ending", st->ending);
    put_secret_print(s, &w, long_forms);
    jsonout_end_object(&w);
    return s->span.buf;
}

static void report_done(struct iacp_stream *s, const struct conv *c, const char *outcome,
                        double result_ts)
{
    if (!s->done)
        return;
    /* A final task.result (or tool.reply) ended it. */
    bool result = strcmp(outcome, "done") == 0 || strcmp(outcome, "failed") == 0 ||
                  strcmp(outcome, "cancelled") == 0;
    const char *initiator = shown(s, 0, c->initiator->name), *to = shown(s, 1, conv_to(c));
    const char *participants[] = {initiator, to};
    struct duplicate_execution twice = {0};
    if (c->ran_twice)
        twice = (struct duplicate_execution){
            .node = shown(s, 2, conv_node(c)),
            .assigns = {done_of(c)->id, conv_id(c)},
            .foragers = {shown(s, 3, done_of(c)->forager), to},
        };
    const struct conversation_summary summary = {
        .proto = PROTO_IACP,
        .id = conv_id(c),
        .conversation = conversation_of(s, initiator, conv_id(c)),
        .protocol = c->kind == CONV_TASK ? "iacp-task" : "iacp-tool",
        .initiator = initiator,
        .participants = participants,
        .nparticipants = strcmp(c->initiator->name, conv_to(c)) == 0 ? 1 : 2,
        .outcome = outcome,
        .cancelled = c->cancelled,
        .messages = c->messages,
        .first_file = c->file,
        .first_line = c->line,
        .last_file = c->story->last_file,
        .last_line = c->last_line,
        .started = c->sent_ts - offset_of(c->initiator),
        .ended = c->last_at,
        .latency = {latency_to(c, to, "accept", "task.accept", c->story->accept_ts),
                    latency_to(c, to, "result", c->kind == CONV_TASK ? "task.result" : "tool.reply",
                               result ? result_ts : NAN)},
        .nlatency = 2,
        .duplicate = c->ran_twice ? &twice : NULL,
        .findings = c->story->findings,
        .span = span_of(s, c),
    };
    s->done(s->ctx, &summary);
}

/* Takes an assign out of its node's chain: it is no longer a run of its node. */
static void leave_chain(struct iacp_stream *s, struct conv *c)
{
    if (!c->chained)
        return;
    c->chained = false;
    hashtab_remove_hashed(&s->nodes, &c->by_node, c->node_hash);
}

static void free_conv(struct iacp_stream *s, struct conv *c)
{
    if (c->rare) {
        free(c->rare->done.id);
        free(c->rare->done.forager);
    }
    free(c->rare);
    if (c->story) {
        findings_free(c->story->findings);
        free(c->story->accept.id);
        free(c->story->left.id);
        free(c->story->closing.id);
    }
    free(c->story);
    pool_put(&s->pool, c, c->size_class);
}

/* What taking a conversation out of the open ones changes but the due queue and the map of open
 * ones, which close_open empties at once: it no longer holds its node, or its forager's slot. */
static void leave_open(struct iacp_stream *s, struct conv *c)
{
    note_left(s, c, "closed");
    leave_chain(s, c);
    if (c->forager)
        c->forager->outstanding--;
    list_remove(&s->active, &c->active_link);
}

/* Takes a conversation out of the open ones. */
static void close_conv(struct iacp_stream *s, struct conv *c)
{
    leave_open(s, c);
    due_queue_remove(&s->due, &c->due);
    hashtab_remove_hashed(&s->open, &c->node, c->key_hash);
}

/* It no longer holds its agents (which its summary names). */
static void release_agents(struct iacp_stream *s, struct conv *c)
{
    if (c->forager)
        release_agent(s, c->forager);
    release_agent(s, c->initiator);
}

/* Forgets an open conversation: it no longer holds its agents or its node. */
static void drop_open(struct iacp_stream *s, struct conv *c)
{
    close_conv(s, c);
    release_agents(s, c);
}

/* Hands over a conversation that lingered, and forgets it. */
static void release_lingering(struct iacp_stream *s, struct conv *c)
{
    list_remove(&s->lingering, &c->active_link);
    hashtab_remove_hashed(&s->lingering_map, &c->node, c->key_hash);
    if (s->blame == c)
        s->blame = NULL;
    report_done(s, c, c->story->outcome, c->story->result_ts);
    release_agents(s, c);
    free_conv(s, c);
}

static void release_lingered(struct iacp_stream *s)
{
    for (struct conv *c; (c = LIST_ITEM(s->lingering.head, struct conv, active_link)) &&
                         !(s->now - c->story->ended <= s->cfg->linger);)
        release_lingering(s, c);
}

static void release_all_lingering(struct iacp_stream *s)
{
    for (struct conv *c; (c = LIST_ITEM(s->lingering.head, struct conv, active_link));)
        release_lingering(s, c);
}

/* A conversation that ended on a reply lingers for --linger of message time before it is handed
 * over (as FIPA's do), so that what comes late, a second result, a reply to a reject, is still
 * among its messages and findings. An evicted one goes at once: it makes room. */
static bool lingers(const struct iacp_stream *s, const struct conv *c, enum ending ending)
{
    return c->story && ending != END_EVICTED && s->cfg->linger > 0;
}

static void linger(struct iacp_stream *s, struct conv *c, const char *outcome)
{
    close_conv(s, c);
    c->story->outcome = outcome;
    c->story->result_ts = s->reply_ts;
    c->story->ended = s->now;
    list_append(&s->lingering, &c->active_link);
    hashtab_add_hashed(&s->lingering_map, &c->node, c->key_hash);
}

/* Ends a conversation: hands it over, and marks its id with how it ended (a tombstone). */
static void finish_conv(struct iacp_stream *s, struct conv *c, enum ending ending,
                        const char *outcome, const struct diag_where *by)
{
    if (spans(s, c)) {
        static const char *const endings[] = {[END_NONE] = NULL,
                                              [END_RESULT] = "result",
                                              [END_REJECT] = "reject",
                                              [END_EVICTED] = "evicted",
                                              [END_FOREIGN] = NULL};
        note_moment(s, &c->story->closing);
        c->story->ending = endings[ending];
    }
    bool lingering = lingers(s, c, ending);
    if (lingering) {
        linger(s, c, outcome);
    } else {
        report_done(s, c, outcome, s->reply_ts);
        if (s->blame == c)
            s->blame = NULL;
        drop_open(s, c);
    }
    /* the hash the conversation kept is its id's: find_sent reads its low 32 bits only */
    const struct id_key key = {c->key, strlen(c->key), c->key_hash};
    struct sent *e = find_sent(s, &key);
    if (s->sharded) {
        /* Every shard keeps the ids as they came, so that all of them know the same ids for as
         * long: how a conversation ended is for its own shard only. */
        if (e) {
            e->ending = (unsigned char)ending;
            e->end_file = by->file;
            e->end_line = by->line;
        }
        if (!lingering)
            free_conv(s, c);
        return;
    }
    if (e) {
        list_remove(&s->ids, &e->link);
        list_append(&s->ids, &e->link);
    } else {
        /* Its id was forgotten by count while it was open. */
        const struct message opener = {.at = {.file = c->file, .line = c->line}};
        e = remember_id(s, &key, &opener,
                        c->kind == CONV_TASK ? IACP_TASK_ASSIGN : IACP_TOOL_QUERY);
    }
    e->heard = s->now;
    e->ending = (unsigned char)ending;
    e->end_file = by->file;
    e->end_line = by->line;
    if (!lingering)
        free_conv(s, c);
}

static void evict(struct iacp_stream *s, struct conv *c, const struct diag_where *at,
                  struct diag_sink *sink, bool idle)
{
    struct conv *blamed = s->blame;
    s->blame = c;
    struct diag_where w = related_to(at, c->file, c->line);
    if (idle)
        diag_emit(sink, &w, "iacp-evicted",
                  "conversation '%s' had no message for %s s and is forgotten (--idle-timeout)",
                  conv_id(c), iacp_seconds(&s->number[0], s->now - c->active));
    else
        diag_emit(sink, &w, "iacp-evicted",
                  "more than %lu conversations are open; the least recently active, '%s', is "
                  "forgotten (--max-open)",
                  s->cfg->max_open, conv_id(c));
    struct diag_where here = {.file = at->file, .line = at->line};
    finish_conv(s, c, END_EVICTED, "evicted", &here);
    s->blame = blamed != c ? blamed : NULL;
}

/* ---- expiry: everything idle for --idle-timeout of message time, and counts ---- */

static bool expired(const struct iacp_stream *s, double since)
{
    return since + s->cfg->idle_timeout < s->now;
}

static void expire(struct iacp_stream *s, const struct diag_where *at, struct diag_sink *sink)
{
    for (struct conv *c; (c = least_active(s)) && expired(s, c->active);)
        evict(s, c, at, sink, true);
    for (struct sent *e; (e = LIST_ITEM(s->ids.head, struct sent, link)) &&
                         (expired(s, e->heard) || s->ids.size > s->cfg->max_open);)
        forget_id(s, e);
    /* The ids go oldest first, about one per message, and by then they are cold: fetch what
     * forgetting reads of the record after the next one (it may span two lines), and the slot of
     * the next one. */
    struct sent *next = LIST_ITEM(s->ids.head, struct sent, link);
    struct sent *after = next ? LIST_ITEM(next->link.next, struct sent, link) : NULL;
    if (after) {
        prefetch(&after->node);
        prefetch(&after->heard);
    }
    if (next)
        hashtab_prefetch(&s->sent, next->hash);
    for (struct agent *a;
         (a = LIST_ITEM(s->idle.head, struct agent, idle_link)) && expired(s, a->active);)
        drop_agent(s, a);
}

/* The agents map is full: those holding nothing go, the least recently active first. */
static void cap_agents(struct iacp_stream *s)
{
    for (struct agent *a; s->agents.size > s->cfg->max_open &&
                          (a = LIST_ITEM(s->idle.head, struct agent, idle_link));)
        drop_agent(s, a);
    /* At the bound, the next agent to go is the oldest idle one, cold by then: its slot is asked
     * for now, and the record of the one after it (as expire does for the ids). */
    const struct agent *next = LIST_ITEM(s->idle.head, struct agent, idle_link);
    if (!next || s->agents.size < s->cfg->max_open)
        return;
    if (next->idle_link.next)
        prefetch(LIST_ITEM(next->idle_link.next, struct agent, idle_link));
    hashtab_prefetch(&s->agents, next->name_hash);
}

/* ---- what falls due: an open assign's body.deadline, and its --assign-timeout ---- */

/* The message time at which an assign's body.deadline passes: by the queen's clock, less the
 * offset learned for it. NAN when it has none. */
static double deadline_due(const struct conv *c)
{
    return c->deadline - offset_of(c->initiator);
}

/* The message time past which the queen should have reissued an assign that has had no final
 * result: --assign-timeout (with --max-skew to spare) after it came. Only an assign of a node
 * can be seen reissued; one reissued or cancelled is no longer waited for. NAN when none. */
static double timeout_due(const struct iacp_stream *s, const struct conv *c)
{
    if (c->timeout_told || !c->has_node || c->cancelled || reissued_at(c))
        return NAN;
    return c->opened + s->cfg->assign_timeout + s->cfg->max_skew;
}

/* Queues an open assign at the earlier of what it still has to tell, or takes it out. The due
 * time may turn out early (a cancel since): it is judged again when it comes. */
static void schedule(struct iacp_stream *s, struct conv *c)
{
    if (c->kind != CONV_TASK)
        return;
    double deadline = c->deadline_told ? NAN : deadline_due(c);
    due_queue_set(&s->due, &c->due, fmin(deadline, timeout_due(s, c))); /* fmin skips a NAN */
}

static void report_due(struct iacp_stream *s, struct conv *c, const struct diag_where *at,
                       struct diag_sink *sink)
{
    struct conv *blamed = s->blame;
    s->blame = c;
    struct diag_where w = related_to(at, c->file, c->line);
    double deadline = deadline_due(c);
    if (!c->deadline_told && deadline < s->now) {
        c->deadline_told = true;
        diag_emit(sink, &w, "iacp-deadline-passed",
                  "the deadline of '%s' passed %s s ago (message time) without a final "
                  "task.result",
                  conv_id(c), iacp_seconds(&s->number[0], s->now - deadline));
    }
    if (timeout_due(s, c) < s->now) {
        c->timeout_told = true;
        diag_emit(sink, &w, "iacp-assign-timeout",
                  "assign '%s' of node '%s' to '%s' has had no final result for %s s, past the "
                  "assign timeout (%s s): the queen should have reissued it to another forager",
                  conv_id(c), conv_node(c), c->forager->name,
                  iacp_seconds(&s->number[0], s->now - c->opened),
                  iacp_seconds(&s->number[1], s->cfg->assign_timeout));
    }
    s->blame = blamed;
    schedule(s, c);
}

/* Reports what fell due by message time, the earliest first. */
static void check_due(struct iacp_stream *s, const struct diag_where *at, struct diag_sink *sink)
{
    while (due_queue_next(&s->due) < s->now)
        report_due(s, DUE_ITEM(due_queue_first(&s->due), struct conv, due), at, sink);
}

/* ---- per message ---- */

/* The agent that sent the message a reply's ref names, as written. */
static const char *ref_owner(const struct fields *f)
{
    return ref_is_senders(f->kind) ? f->from_text : f->to_text;
}

/* A key of the digest (hashed there when it is kept as it is) in the form it is remembered by: a
 * long one by its digest under the run's secret, which the digest, made without the stream,
 * cannot know. */
static struct id_key remembered(const struct iacp_stream *s, const char *text, size_t len,
                                size_t hash, struct key_form_buf *buf)
{
    if (len <= KEY_KEPT_BYTES)
        return (struct id_key){text, len, hash};
    struct id_key key;
    key.text = key_form(&s->secret, text, len, buf, &key.len);
    key.hash = hashtab_hash_len(key.text, key.len);
    return key;
}

/* A name of the message in the form it is remembered by (name_form), in buf when it is long;
 * *hash (NULL: none), made of the name in the digest, is then that of the form. */
static const char *name_kept(const struct iacp_stream *s, const char *name, size_t *hash,
                             struct name_form_buf *buf)
{
    const char *form = name_form_of(&s->secret, name, buf);
    if (form != name && hash)
        *hash = hashtab_hash(form);
    return form;
}

/* The fields of a message whose digest says it is followed, and its keys. */
static void read_fields(struct iacp_stream *s, const struct iacp_digest *d, struct fields *f)
{
    *f = (struct fields){
        .from_text = iacp_digest_string(d, d->from),
        .to_text = iacp_digest_string(d, d->to),
        .ref = iacp_digest_string(d, d->ref),
        .node_text = iacp_digest_string(d, d->node),
        .from_hash = d->from_hash,
        .to_hash = d->to_hash,
        .node_hash = d->node_hash,
        .kind = d->kind,
        .body = d->body,
        .ts = d->ts,
        .at = d->ts,
        .legacy = d->legacy,
    };
    f->from = name_kept(s, f->from_text, &f->from_hash, &s->from_form);
    f->to = name_kept(s, f->to_text, &f->to_hash, &s->to_form);
    f->node = name_kept(s, f->node_text, &f->node_hash, &s->node_form);
    s->own = remembered(s, d->text, d->own_len, d->own_hash, &s->own_form);
    s->ref = (struct id_key){0};
    if (d->ref_len != SIZE_MAX)
        s->ref = remembered(s, d->text + d->own_len + 1, d->ref_len, d->ref_hash, &s->ref_form);
}

/* In a partition, a reply whose ref names no message of the partition: its span, for
 * acp-trace --merge to find the conversation it names in another partition, or none. */
static void hand_over_reply(struct iacp_stream *s, const struct message *m, const struct fields *f)
{
    if (!s->done)
        return;
    struct jsonout w;
    begin_span(s, &w);
    put_name(&w, "kind", iacp_kind_name(f->kind));
    bool long_forms = put_form(&w, "from", f->from);
    long_forms |= put_form_len(&w, "key", s->ref.text, s->ref.len);
    /* as one process quotes them */
    jsonout_key(&w, "ref");
    jsonout_string(&w, f->ref, key_shown_len(f->ref, strlen(f->ref)));
    put_name(&w, "owner", shown(s, 1, ref_is_senders(f->kind) ? f->from : f->to));
    put_place(&w, "reply", f->at, m->at.file, m->at.line, m->id);
    put_secret_print(s, &w, long_forms);
    hand_over_span(s, &w);
}

/* In a partition, a message of the queen's that opens no assign: its id, for acp-trace --merge
 * to compare with those of the other partitions (the queen's ids span them). */
static void hand_over_sent(struct iacp_stream *s, const struct message *m, const struct fields *f)
{
    if (!s->done || !m->id)
        return;
    struct jsonout w;
    begin_span(s, &w);
    put_name(&w, "from", shown(s, 0, f->from));
    bool long_forms = put_form_len(&w, "key", s->own.text, s->own.len);
    put_place(&w, "sent", f->at, m->at.file, m->at.line, m->id);
    put_secret_print(s, &w, long_forms);
    hand_over_span(s, &w);
}

/* Records the id; reports its reuse by the same sender. Returns false for a reused id. */
static bool note_id(struct iacp_stream *s, const struct message *m, const struct fields *f,
                    struct diag_sink *sink)
{
    const struct sent *prev = find_sent(s, &s->own);
    const struct conv *c = prev ? NULL : find_open(s, &s->own);
    /* a per-agent check; but the queen's ids span partitions: --merge tells hers */
    bool queens = s->cfg->partitions && f->from_text && strcmp(f->from_text, s->cfg->queen) == 0;
    /* An id whose record was forgotten while its conversation is still open is still taken. */
    if (prev || c) {
        struct diag_where w = prev ? related_to(&m->at, prev->file, prev->line)
                                   : related_to(&m->at, c->file, c->line);
        if (queens)
            hand_over_sent(s, m, f);
        else if (!s->sharded)
            iacp_report_duplicate_id(sink, &w, f->from, m->id);
        return false;
    }
    remember_id(s, &s->own, m, f->kind);
    /* an assign's id is in its summary */
    if (queens && (f->kind != IACP_TASK_ASSIGN || f->legacy))
        hand_over_sent(s, m, f);
    return true;
}

static struct conv *open_conv(struct iacp_stream *s, const struct message *m,
                              const struct fields *f, struct agent *forager, const char *node)
{
    /* a key kept as it is holds the id; after a digest form, the id as quoted follows */
    bool quoted = digested(s->own.text);
    size_t len = s->own.len, to_len = strlen(f->to), node_len = node ? strlen(node) : 0;
    size_t id_room = quoted ? key_shown_len(m->id, strlen(m->id)) + 1 : 0;
    unsigned char size_class;
    struct conv *c = pool_get_zeroed(
        &s->pool, offsetof(struct conv, key) + len + 1 + id_room + to_len + 1 + node_len + 1,
        &size_class);
    c->size_class = size_class;
    char *at = c->key;
    memcpy(at, s->own.text, len + 1);
    at += len + 1;
    if (quoted)
        memcpy(at, m->id, id_room - 1); /* zeroed: the NUL follows */
    at += id_room;
    memcpy(at, f->to, to_len + 1);
    at += to_len + 1;
    if (node) {
        memcpy(at, node, node_len + 1);
        c->has_node = true;
        c->node_hash = (uint32_t)f->node_hash;
    }
    c->kind = forager ? CONV_TASK : CONV_TOOL;
    c->initiator = f->sender;
    hold_agent(s, c->initiator);
    c->forager = forager;
    if (forager)
        hold_agent(s, forager);
    c->file = m->at.file;
    c->line = c->last_line = m->at.line;
    c->messages = 1;
    c->fed = s->fed;
    c->last_at = f->at;
    c->sent_ts = f->ts;
    if (s->done) {
        c->story = xmalloc(sizeof *c->story);
        *c->story = (struct story){.last_file = c->file, .accept_ts = NAN};
        findings_move(&c->story->findings, &s->pending);
    }
    c->active = s->now;
    c->deadline = NAN;
    list_append(&s->active, &c->active_link);
    c->key_hash = (uint32_t)s->own.hash;
    hashtab_add_hashed(&s->open, &c->node, s->own.hash);
    return c;
}

static void check_slots(const struct iacp_stream *s, const struct message *m,
                        const struct agent *forager, struct diag_sink *sink)
{
    unsigned long slots = allowed_slots(s, forager);
    if (forager->outstanding >= slots) {
        struct diag_where w = related_to(&m->at, forager->assign_file, forager->assign_line);
        diag_emit(sink, &w, "iacp-slots",
                  "'%s' already holds %lu outstanding task.assign and has %lu slot(s)",
                  forager->name, forager->outstanding, slots);
    }
}

/* An assign of a node that an open assign already has: the seed's queen reissues an assign
 * unanswered for assign_timeout, to a different forager; anything else is no reissue it makes. */
static void report_reissue(struct iacp_stream *s, const struct message *m, const struct conv *c,
                           struct conv *prev, const char *node, struct diag_sink *sink)
{
    struct diag_where w = related_to(&m->at, prev->file, prev->line);
    const struct iacp_reassign r = {
        .node = node,
        .forager = c->forager->name,
        .prev_id = conv_id(prev),
        .prev_forager = prev->forager->name,
        .waited = c->sent_ts - prev->sent_ts, /* both by the queen's clock */
        .timeout = s->cfg->assign_timeout,
    };
    iacp_report_reassign(sink, &w, &r);
    if (prev->forager == c->forager)
        return; /* no reissue: the same forager holds both */
    rare_of(prev)->reissue_file = m->at.file;
    prev->rare->reissue_line = m->at.line;
    schedule(s, prev); /* it was reissued: only its deadline is still to come */
}

/* c's node had its final result in another run: of id, sent to forager, at line of file. */
static void set_done(struct conv *c, const char *id, const char *forager, const char *file,
                     unsigned long line)
{
    rare_of(c)->done = (struct done_by){
        .id = xstrdup(id), .forager = xstrdup(forager), .file = file, .line = line};
}

/* Joins an assign to the chain of its node, reporting a reissue. */
static void join_chain(struct iacp_stream *s, const struct message *m, struct conv *c,
                       struct diag_sink *sink)
{
    struct conv *prev = latest_run(s, conv_node(c), c->node_hash);
    if (prev) {
        report_reissue(s, m, c, prev, conv_node(c), sink);
        const struct done_by *done = done_of(prev);
        if (done)
            set_done(c, done->id, done->forager, done->file, done->line);
    }
    hashtab_add_hashed(&s->nodes, &c->by_node, c->node_hash);
    c->chained = true;
}

static void check_drained(const struct message *m, const struct agent *forager,
                          struct diag_sink *sink)
{
    if (!forager->orders || !forager->orders->drain.given)
        return;
    const struct control *drain = &forager->orders->drain;
    struct diag_where w = related_to(&m->at, drain->file, drain->line);
    diag_emit(sink, &w, "iacp-assign-drained",
              "task.assign to '%s', which was drained (ctl.drain: accept nothing new)",
              forager->name);
}

static const char *open_task(struct iacp_stream *s, const struct message *m, const struct fields *f,
                             struct diag_sink *sink)
{
    struct agent *forager = to_agent(s, f);
    if (!s->sharded)
        check_slots(s, m, forager, sink);
    struct conv *c = open_conv(s, m, f, forager, f->node);
    s->blame = c;
    check_drained(m, forager, sink);
    forager->outstanding++;
    forager->assign_file = m->at.file;
    forager->assign_line = m->at.line;
    watch_agent(s, forager);
    c->deadline = f->body.deadline;
    /* its own time, unless that is before the stream time (a jump the clock has not followed
     * yet would have the timeout count from before the assign) */
    c->opened = fmax(s->now, f->at);
    if (c->story)
        c->story->assign_at = f->at;
    if (c->has_node && !s->cfg->partitions) /* a node's runs span partitions: --merge's */
        join_chain(s, m, c, sink);
    schedule(s, c);
    return conv_id(c);
}

static void note_heartbeat(struct agent *a, const struct fields *f)
{
    a->heartbeats = true;
    /* Only the latest heartbeat counts: a forager may shrink its slots. */
    a->advertised = f->body.slots;
}

/* ---- drain and halt ---- */

static void note_control(struct iacp_stream *s, const struct message *m, const struct fields *f)
{
    struct agent *forager = to_agent(s, f);
    if (!forager->orders)
        forager->orders = xcalloc(1, sizeof *forager->orders);
    struct control *order =
        f->kind == IACP_CTL_DRAIN ? &forager->orders->drain : &forager->orders->halt;
    *order = (struct control){.given = true,
                              .at = f->at,
                              .issued = s->now,
                              .fed = s->fed,
                              .file = m->at.file,
                              .line = m->at.line};
}

/* A drained or halted forager that was silent for more than a heartbeat period (since its last
 * message, or since the orders if it spoke none after them) and beats its heart again has
 * restarted: the orders are over. */
static void end_controls(struct iacp_stream *s, struct agent *a)
{
    if (!a->orders)
        return;
    double since = fmax(a->orders->drain.given ? a->orders->drain.issued : -INFINITY,
                        a->orders->halt.given ? a->orders->halt.issued : -INFINITY);
    if (!isnan(a->heard) && a->heard > since)
        since = a->heard;
    if (!(s->now - since > s->cfg->heartbeat_period))
        return;
    free(a->orders);
    a->orders = NULL;
}

/* A message from a halted forager, other than a heartbeat, after the halt reached it. */
static void check_halted(struct iacp_stream *s, const struct message *m, const struct fields *f,
                         const struct agent *a, struct diag_sink *sink)
{
    const struct control *halt = a->orders ? &a->orders->halt : NULL;
    if (!halt || !halt->given || f->kind == IACP_HB || f->at <= halt->at + s->cfg->max_skew)
        return;
    struct diag_where w = related_to(&m->at, halt->file, halt->line);
    diag_emit(sink, &w, "iacp-after-halt",
              "%s from '%s' after it was halted (ctl.halt: stop immediately)",
              iacp_kind_name(f->kind), a->name);
}

/* ---- replies ---- */

static enum conv_kind kind_answered(enum iacp_kind k)
{
    return k == IACP_TOOL_REPLY ? CONV_TOOL : CONV_TASK;
}

static const char *opener_name(enum conv_kind kind)
{
    return kind == CONV_TASK ? "task.assign" : "tool.query";
}

static void report_ref_kind(const struct message *m, const struct fields *f, const char *file,
                            unsigned long line, const char *named, struct diag_sink *sink)
{
    struct diag_where w = related_to(&m->at, file, line);
    diag_emit(sink, &w, "iacp-ref-kind", "%s answers a %s, but ref '%s' names a %s",
              iacp_kind_name(f->kind), opener_name(kind_answered(f->kind)), f->ref, named);
}

/* A message that changes nothing in a conversation, but is one of its messages. */
static void land(struct conv *c, const struct message *m)
{
    c->messages++;
    if (c->story)
        c->story->last_file = m->at.file;
    c->last_line = m->at.line;
}

/* An open conversation had a message: the most recently active now. */
static void mark_active(struct iacp_stream *s, struct conv *c)
{
    c->active = s->now;
    list_remove(&s->active, &c->active_link);
    list_append(&s->active, &c->active_link);
}

/* A reply to a conversation that is over: one of its messages while it lingers. */
static const char *late_reply(struct iacp_stream *s, const struct message *m,
                              const struct fields *f, const struct sent *t, struct diag_sink *sink)
{
    const char *id = f->ref; /* the id it names */
    struct conv *lingering = find_lingering(s, &s->ref);
    if (lingering) {
        land(lingering, m);
        lingering->last_at = f->at;
        s->blame = lingering;
    }
    enum conv_kind kind = kind_opened(t->kind);
    if (t->ending == END_EVICTED || f->kind == IACP_TASK_CANCEL)
        return id;
    if (kind != kind_answered(f->kind)) {
        report_ref_kind(m, f, NULL, 0, opener_name(kind), sink);
        return id;
    }
    struct diag_where w = related_to(&m->at, t->end_file, t->end_line);
    iacp_report_after_end(sink, &w, iacp_kind_name(f->kind), id, t->ending == END_REJECT,
                          kind == CONV_TASK);
    return id;
}

/* A reply whose ref names no open conversation and no finished one. */
static void unknown_ref(const struct message *m, const struct fields *f, const char *owner,
                        const struct sent *named, struct diag_sink *sink)
{
    if (!named) {
        iacp_report_orphan(sink, &m->at, iacp_kind_name(f->kind), f->ref, owner);
        return;
    }
    /* An opener the rules did not follow (IACP 1.0, or a reused id) says nothing. */
    if (named->kind == IACP_TASK_ASSIGN || named->kind == IACP_TOOL_QUERY)
        return;
    report_ref_kind(m, f, named->file, named->line, iacp_kind_name(named->kind), sink);
}

static void report_skew(struct iacp_stream *s, const struct diag_where *w, double early,
                        enum conv_kind kind, struct diag_sink *sink)
{
    if (early > s->cfg->max_skew)
        diag_emit(sink, w, "iacp-skew",
                  "stamped %s s before the %s it answers (clock skew; --max-skew is %s s)",
                  iacp_seconds(&s->number[0], early), opener_name(kind),
                  iacp_seconds(&s->number[1], s->cfg->max_skew));
}

/* How much earlier a reply is than its cause, each read with its sender's offset. */
static double earlier_by(const struct agent *replier, double reply_ts,
                         const struct agent *initiator, double cause_ts)
{
    return (cause_ts - offset_of(initiator)) - (reply_ts - offset_of(replier));
}

static void free_held(struct held_skew *h)
{
    free(h->id);
    free(h->conversation);
    free(h);
}

static void settle_skew(struct iacp_stream *s, struct held_skew *h, struct diag_sink *sink)
{
    struct conv *blamed = s->blame;
    const struct id_key conversation = id_key_of(h->conversation);
    s->blame = find_open(s, &conversation); /* unless it ended meanwhile */
    report_skew(s, &h->at, earlier_by(h->replier, h->reply_ts, h->initiator, h->cause_ts), h->kind,
                sink);
    s->blame = blamed;
    list_remove(&s->held, &h->link);
    release_agent(s, h->replier);
    release_agent(s, h->initiator);
    free_held(h);
}

/* Judges the skews held back for an agent whose clock looked off (all of them for NULL), with
 * what the clock knows now. */
static void settle_skews(struct iacp_stream *s, const struct agent *a, struct diag_sink *sink)
{
    for (struct list_link *l = s->held.head, *next; l; l = next) {
        next = l->next;
        struct held_skew *h = LIST_ITEM(l, struct held_skew, link);
        if (!a || (h->replier == a && h->replier_off) || (h->initiator == a && h->initiator_off))
            settle_skew(s, h, sink);
    }
}

static void check_skew(struct iacp_stream *s, const struct message *m, const struct fields *f,
                       const struct conv *c, struct diag_sink *sink)
{
    double early = earlier_by(f->sender, f->ts, c->initiator, c->sent_ts);
    if (!(early > s->cfg->max_skew))
        return;
    struct diag_where w = related_to(&m->at, c->file, c->line);
    if (streak_of(f->sender) == 0 && streak_of(c->initiator) == 0) {
        report_skew(s, &w, early, c->kind, sink);
        return;
    }
    struct held_skew *h = xmalloc(sizeof *h);
    *h = (struct held_skew){.replier = f->sender,
                            .initiator = c->initiator,
                            .replier_off = streak_of(f->sender) > 0,
                            .initiator_off = streak_of(c->initiator) > 0,
                            .at = w,
                            .reply_ts = f->ts,
                            .cause_ts = c->sent_ts,
                            .kind = c->kind};
    if (w.id) /* quoted as the reply's id: a long one is quoted by its prefix */
        h->id = xstrndup(w.id, key_shown_len(w.id, strlen(w.id)));
    h->at.id = h->id;
    h->conversation = xstrdup(c->key);
    hold_agent(s, h->replier);
    hold_agent(s, h->initiator);
    list_append(&s->held, &h->link);
    if (s->held.size > HELD_SKEWS)
        settle_skew(s, LIST_ITEM(s->held.head, struct held_skew, link), sink);
}

/* A final result of a run of a node: a second one in its chain means the node ran twice. The
 * other runs still open remember this one. */
static void check_twice_done(struct iacp_stream *s, const struct message *m, struct conv *c,
                             struct diag_sink *sink)
{
    if (!c->chained)
        return;
    const struct done_by *done = done_of(c);
    if (done) {
        struct diag_where w = related_to(&m->at, done->file, done->line);
        const struct iacp_twice twice = {
            .node = conv_node(c),
            .id = conv_id(c),
            .forager = conv_to(c),
            .line = c->line,
            .done_id = done->id,
            .done_line = done->line,
        };
        iacp_report_twice(sink, &w, &twice);
        c->ran_twice = true;
        return;
    }
    struct conv *other =
        HASH_ITEM(hashtab_find_hashed(&s->nodes, conv_node(c), c->node_hash), struct conv, by_node);
    for (; other; other = next_run(s, other))
        if (other != c && !done_of(other))
            set_done(other, conv_id(c), conv_to(c), c->file, c->line);
}

static const char *final_outcome(const struct conv *c, const struct fields *f)
{
    if (c->cancelled)
        return "cancelled";
    return f->body.status_ok ? "done" : "failed";
}

static void apply_accept(struct iacp_stream *s, const struct message *m, const struct fields *f,
                         struct conv *c, struct diag_sink *sink)
{
    if (c->accept_line) {
        struct diag_where w = related_to(&m->at, c->accept_file, c->accept_line);
        diag_emit(sink, &w, "iacp-accept-twice", "a second task.accept for '%s'", conv_id(c));
        return;
    }
    c->accept_file = m->at.file;
    c->accept_line = m->at.line;
    if (c->story)
        c->story->accept_ts = f->ts;
    if (spans(s, c))
        note_moment(s, &c->story->accept);
    if (reissued_at(c)) {
        struct diag_where w = related_to(&m->at, c->rare->reissue_file, c->rare->reissue_line);
        iacp_report_late_accept(sink, &w, f->from, conv_id(c));
    }
    const struct control *drain = c->forager->orders ? &c->forager->orders->drain : NULL;
    if (drain && drain->given && c->fed > drain->fed) {
        struct diag_where w = related_to(&m->at, drain->file, drain->line);
        diag_emit(sink, &w, "iacp-accept-drained",
                  "'%s' accepts '%s', assigned after it was drained (ctl.drain: accept nothing "
                  "new)",
                  f->from, conv_id(c));
    }
}

/* Applies a reply from the right agent to its open conversation. */
static const char *apply_reply(struct iacp_stream *s, const struct message *m,
                               const struct fields *f, struct conv *c, struct diag_sink *sink)
{
    land(c, m);
    c->last_at = f->at;
    s->reply_ts = f->ts;
    mark_active(s, c);
    switch (f->kind) {
    case IACP_TASK_ACCEPT:
        apply_accept(s, m, f, c, sink);
        return conv_id(c);
    case IACP_TASK_CANCEL:
        /* A cancelled assign is no longer a run of its node, but it holds its slot until the
         * forager's final result. */
        c->cancelled = true;
        note_left(s, c, "closed");
        leave_chain(s, c);
        return conv_id(c);
    case IACP_TASK_REJECT:
        if (c->accept_line) {
            struct diag_where w = related_to(&m->at, c->accept_file, c->accept_line);
            diag_emit(sink, &w, "iacp-reject-after-accept",
                      "task.reject for '%s', which '%s' had accepted", conv_id(c), f->from);
        }
        finish_conv(s, c, END_REJECT, "refused", &m->at);
        return f->ref;
    case IACP_TASK_RESULT:
        if (f->body.partial)
            return conv_id(c);
        note_left(s, c, "result");
        check_twice_done(s, m, c, sink);
        finish_conv(s, c, END_RESULT, final_outcome(c, f), &m->at);
        return f->ref;
    default:
        finish_conv(s, c, END_RESULT, final_outcome(c, f), &m->at);
        return f->ref;
    }
}

static const char *follow_reply(struct iacp_stream *s, const struct message *m,
                                const struct fields *f, struct diag_sink *sink)
{
    if (!f->ref)
        return NULL; /* iacp-no-ref said it: it cannot be paired */
    struct conv *c = find_open(s, &s->ref);
    if (!c) {
        const struct sent *named = find_sent(s, &s->ref);
        if (named && named->ending != END_NONE)
            return late_reply(s, m, f, named, sink);
        /* an id no message of this partition has may be another's: --merge tells */
        if (named || !s->cfg->partitions)
            unknown_ref(m, f, ref_owner(f), named, sink);
        else
            hand_over_reply(s, m, f);
        return NULL;
    }
    s->blame = c;
    /* A reply of the wrong kind or from the wrong agent changes nothing in the conversation, but
     * is part of its story: acp-trace --follow shows it, and its diagram draws it marked. */
    if (c->kind != kind_answered(f->kind)) {
        report_ref_kind(m, f, c->file, c->line, opener_name(c->kind), sink);
        return f->ref;
    }
    if (f->kind != IACP_TASK_CANCEL) {
        if (strcmp(f->from, conv_to(c)) != 0) {
            struct diag_where w = related_to(&m->at, c->file, c->line);
            iacp_report_wrong_replier(sink, &w, iacp_kind_name(f->kind), f->from, conv_id(c),
                                      conv_to(c));
            return f->ref;
        }
        check_skew(s, m, f, c, sink);
    }
    return apply_reply(s, m, f, c, sink);
}

static const char *follow(struct iacp_stream *s, const struct message *m, const struct fields *f,
                          struct agent *sender, struct diag_sink *sink)
{
    if (f->kind == IACP_HB) {
        note_heartbeat(sender, f);
        return NULL;
    }
    if (f->legacy)
        return NULL;
    switch (f->kind) {
    case IACP_TASK_ASSIGN:
        return open_task(s, m, f, sink);
    case IACP_TOOL_QUERY:
        return conv_id(s->blame = open_conv(s, m, f, NULL, NULL));
    case IACP_TASK_ACCEPT:
    case IACP_TASK_REJECT:
    case IACP_TASK_RESULT:
    case IACP_TASK_CANCEL:
    case IACP_TOOL_REPLY:
        return follow_reply(s, m, f, sink);
    case IACP_CTL_DRAIN:
    case IACP_CTL_HALT:
        note_control(s, m, f);
        return NULL;
    default:
        return NULL;
    }
}

/* Those that linger count as open: the one that ended first is handed over before any open one
 * is evicted, so that the bound is the same. */
/* At the bound, the next message that opens a conversation evicts the least recently active,
 * which is cold by then: its record, the slots of its keys and its forager are asked for now, to
 * come while that message is read, and the record after it (whose link is read now) a message
 * ahead of that. The IACP stream of assigns nobody answers spent most of its time waiting for
 * them. */
static void fetch_next_evicted(const struct iacp_stream *s)
{
    const struct conv *next = least_active(s);
    if (!next || s->active.size < s->cfg->max_open)
        return;
    const struct conv *after = LIST_ITEM(next->active_link.next, struct conv, active_link);
    if (after)
        for (size_t at = 0; at < sizeof *after; at += 64)
            prefetch((const char *)after + at);
    hashtab_prefetch(&s->open, next->key_hash);
    hashtab_prefetch(&s->sent, next->key_hash);
    if (next->chained)
        hashtab_prefetch(&s->nodes, next->node_hash);
    if (next->forager)
        prefetch(next->forager);
}

static void cap_open(struct iacp_stream *s, const struct message *m, struct diag_sink *sink)
{
    while (s->active.size + s->lingering.size > s->cfg->max_open && s->lingering.size)
        release_lingering(s, LIST_ITEM(s->lingering.head, struct conv, active_link));
    while (s->active.size > s->cfg->max_open && s->active.size > 1)
        evict(s, least_active(s), &m->at, sink, false);
    fetch_next_evicted(s);
}

/* Reads the message's time on the stream clock, and reports a sender whose clock was found to be
 * off the others' by more than --clock-skew. */
static void read_clock(struct iacp_stream *s, const struct message *m, struct fields *f,
                       struct diag_sink *sink)
{
    struct agent *sender = f->sender;
    struct clock_sender *clock = sender_clock(s, sender);
    unsigned streak = clock->streak;
    struct clock_reading r = clock_observe(&s->clock, clock, f->ts);
    s->now = fmax(clock_now(&s->clock), s->wall); /* --wall-clock may have moved it on */
    f->at = r.at;
    sender->active = s->now;
    /* Its streak of messages off the clock ended, one way or the other. */
    if (streak > 0 && (r.learned || clock->streak != streak + 1))
        settle_skews(s, sender, sink);
    if (!r.report)
        return;
    double offset = clock->offset;
    diag_emit(outside(s, sink), &m->at, "iacp-clock-skew",
              "the clock of '%s' runs %s s %s the others' (--clock-skew is %s s); its messages "
              "are read with that offset from here on",
              sender->name, iacp_seconds(&s->number[0], fabs(offset)),
              offset > 0 ? "ahead of" : "behind", iacp_seconds(&s->number[1], s->cfg->clock_skew));
}

/* ---- the interface ---- */

/* What a span says of the secret its long forms were made under: the first 8 bytes, in hex, of
 * a digest under it, which tells secrets apart and gives nothing of one away. */
static void secret_print(const struct siphash_key *secret, char print[SECRET_PRINT_LEN + 1])
{
    static const char text[] = "acp-tools spans";
    unsigned char digest[SIPHASH_128_BYTES];
    siphash128(secret, text, sizeof text - 1, digest);
    for (size_t i = 0; i < SECRET_PRINT_LEN / 2; i++)
        snprintf(print + 2 * i, 3, "%02x", digest[i]);
}

static struct stream *iacp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                      void *ctx)
{
    struct iacp_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    s->done = done;
    s->ctx = ctx;
    if (cfg->span_secret)
        s->secret = *cfg->span_secret;
    else
        key_secret_draw(&s->secret);
    secret_print(&s->secret, s->secret_print);
    clock_init(&s->clock, &(struct clock_config){
                              .step = cfg->heartbeat_period,
                              .skew = cfg->clock_skew,
                              .alone_after = SILENT_PERIODS * cfg->heartbeat_period,
                          });
    s->agents = (struct hashtab){.key = agent_key};
    s->open = (struct hashtab){.key = conv_key};
    s->lingering_map = (struct hashtab){.key = conv_key};
    s->sent = (struct hashtab){.key = sent_key};
    s->nodes = (struct hashtab){.key = node_key};
    if (cfg->nslots)
        s->slot_agents = xcalloc(cfg->nslots, sizeof *s->slot_agents);
    for (size_t i = 0; i < cfg->nslots; i++) {
        struct name_form_buf buf;
        const char *agent = cfg->slots[i].agent;
        s->slot_agents[i] = xstrdup(name_form(&s->secret, agent, strlen(agent), &buf));
    }
    s->now = s->wall = NAN;
    s->sharded = cfg->shards > 0;
    diag_sink_init(&s->probe, NULL);
    s->probe.quiet = true;
    return (struct stream *)s;
}

/* ---- shards ---- */

/* Which shard accounts for a message: this one (a conversation it follows), another one, or none
 * (a message of no conversation, which shard 1 accounts for). */
enum place { PLACE_HERE, PLACE_ELSEWHERE, PLACE_OUTSIDE };

/* Decided the same way in every shard: each one remembers every id, and the conversations of
 * other shards as such. A task goes by its assign's body.node, so that a reissue stays in the
 * shard of the task it reissues, anything else by its conversation_id. */
static enum place place_of(struct iacp_stream *s, const struct message *m, const struct fields *f)
{
    if (f->legacy || find_sent(s, &s->own) || find_open(s, &s->own))
        return PLACE_OUTSIDE; /* IACP 1.0, or an id used again: followed nowhere */
    if (f->kind == IACP_TASK_ASSIGN || f->kind == IACP_TOOL_QUERY) {
        /* as written: the shards' digests of a long name differ, as each draws its own key */
        const char *node = f->node_text;
        const char *shard_key = node ? node : conversation_of(s, f->from_text, m->id);
        return engine_shard_of(shard_key, s->cfg->shards) == s->cfg->shard ? PLACE_HERE
                                                                           : PLACE_ELSEWHERE;
    }
    if (!is_reply(f->kind) || !f->ref)
        return PLACE_OUTSIDE;
    if (find_open(s, &s->ref))
        return PLACE_HERE;
    const struct sent *e = find_sent(s, &s->ref);
    if (!e || e->ending == END_NONE)
        return PLACE_OUTSIDE;
    return e->ending == END_FOREIGN ? PLACE_ELSEWHERE : PLACE_HERE;
}

/* A message another shard accounts for: only its id is remembered, and an opener's as one of
 * another shard's conversations. */
static void pass_over(struct iacp_stream *s, const struct message *m, const struct fields *f)
{
    if (!note_id(s, m, f, &s->probe))
        return;
    if (f->kind == IACP_TASK_ASSIGN || f->kind == IACP_TOOL_QUERY)
        find_sent(s, &s->own)->ending = END_FOREIGN;
}

/* ---- the interface ---- */

static void iacp_stream_note(struct stream *stream, const struct diag_finding *finding)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    if (s->blame)
        findings_add(&s->blame->story->findings, finding);
    else if (s->opening)
        findings_add(&s->pending, finding);
}

/* The open conversation a reply answers, for blaming what is found before it is followed. */
static struct conv *replied(struct iacp_stream *s, const struct fields *f)
{
    if (!s->done || !is_reply(f->kind) || !f->ref)
        return NULL;
    struct conv *c = find_open(s, &s->ref);
    return c ? c : find_lingering(s, &s->ref);
}

static const char *iacp_stream_feed(struct stream *stream, const struct message *m,
                                    struct diag_sink *sink)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    const struct iacp_digest *d = m->digest;
    if (!d) {
        d = iacp_digest_make(&s->digest, m);
    }
    if (!d->followed)
        return NULL;
    struct fields f;
    read_fields(s, d, &f);
    /* note_id looks the id up among thousands remembered: a cache miss, unless asked for now;
     * so are an opener's slot among the open conversations and its forager's among the agents */
    hashtab_prefetch(&s->sent, s->own.hash);
    if (f.kind == IACP_TASK_ASSIGN || f.kind == IACP_TOOL_QUERY)
        hashtab_prefetch(&s->open, s->own.hash);
    if (names_agent_to(f.kind) && f.to_hash)
        hashtab_prefetch(&s->agents, f.to_hash);
    if (f.node) /* the chain of its node's runs (join_chain) */
        hashtab_prefetch(&s->nodes, f.node_hash);
    struct agent *sender = f.sender = agent_get(s, f.from, f.from_hash, true);
    read_clock(s, m, &f, sink);
    s->msg = m;
    s->msg_at = f.at;
    release_lingered(s);
    if (!s->sharded)
        check_silence(s, &m->at, sink);
    expire(s, &m->at, sink);
    s->last_file = m->at.file;
    s->last_line = m->at.line;
    if (f.kind == IACP_HB)
        end_controls(s, sender);
    enum place place = s->sharded ? place_of(s, m, &f) : PLACE_HERE;
    const char *key = NULL;
    if (place == PLACE_ELSEWHERE) {
        pass_over(s, m, &f);
        key = ENGINE_ELSEWHERE;
    } else {
        struct diag_sink *here = place == PLACE_OUTSIDE ? outside(s, sink) : sink;
        s->blame = replied(s, &f);
        s->opening = s->done && (f.kind == IACP_TASK_ASSIGN || f.kind == IACP_TOOL_QUERY);
        check_halted(s, m, &f, sender, here);
        s->blame = NULL;
        if (note_id(s, m, &f, here)) {
            key = follow(s, m, &f, sender, here);
            cap_open(s, m, sink);
        }
        s->blame = NULL;
        s->opening = false;
        if (s->pending) { /* it opened nothing */
            findings_free(s->pending);
            s->pending = NULL;
        }
        /* named by the message's own text: the conversation keeps only a prefix of a long id */
        if (key)
            key = conversation_of(s, is_reply(f.kind) ? ref_owner(&f) : f.from_text,
                                  is_reply(f.kind) ? f.ref : m->id);
        else if (here != sink)
            key = ENGINE_ELSEWHERE;
    }
    agent_heard(s, sender, m);
    s->fed++;
    cap_agents(s);
    /* after the message is followed: a final result that itself comes late is no missing one */
    check_due(s, &m->at, sink);
    s->msg = NULL;
    return key;
}

/* The key of the conversation a reply names (s->ref), read from the message itself: one that
 * failed its checks may lack what its digest needs (a from, a ts). It is its ref's, the id of
 * the agent the reply goes to (a cancel's: of its sender). False for a message naming none. */
static bool named_key(struct iacp_stream *s, const struct message *m, const struct jv **owner,
                      const struct jv **ref)
{
    const char *kind_text = jv_member_string(m->view, "kind");
    enum iacp_kind kind = kind_text ? iacp_kind_parse(kind_text) : IACP_INVALID;
    if (!is_reply(kind))
        return false;
    *ref = string_member(m->view, "ref");
    *owner = string_member(m->view, ref_is_senders(kind) ? "from" : "to");
    if (!*ref || !*owner)
        return false;
    sb_reset(&s->digest);
    sb_grow(&s->digest, (*owner)->len + (*ref)->len + 24);
    struct digest_text t = {s->digest.buf, s->digest.buf};
    size_t len = iacp_digest_put_key(&t, *owner, (*ref)->u.s, (*ref)->len);
    s->ref = remembered(s, s->digest.buf, len, hashtab_hash_len(s->digest.buf, len), &s->ref_form);
    return true;
}

static const char *iacp_stream_failed(struct stream *stream, const struct message *m,
                                      struct findings **own)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    const struct jv *owner, *ref;
    if (!named_key(s, m, &owner, &ref))
        return NULL;
    struct conv *c = find_open(s, &s->ref);
    if (c)
        mark_active(s, c);
    else if (!(c = find_lingering(s, &s->ref))) {
        /* --shard: one another shard follows (its opener was passed over) */
        const struct sent *named = find_sent(s, &s->ref);
        return named && named->ending == END_FOREIGN ? ENGINE_ELSEWHERE : NULL;
    }
    if (c->story)
        findings_move(&c->story->findings, own);
    land(c, m);
    return conversation_of(s, owner->u.s, ref->u.s);
}

/* The conversation of an active_link that is one (LIST_ITEM's, with no NULL to allow for). */
static const struct conv *conv_at(const struct list_link *link)
{
    return (const struct conv *)(const void *)((const char *)link -
                                               offsetof(struct conv, active_link));
}

static bool opened_before(const struct list_link *a, const struct list_link *b)
{
    return conv_at(a)->fed < conv_at(b)->fed;
}

static void report_open(struct iacp_stream *s, struct conv *c, struct diag_sink *sink)
{
    s->blame = c;
    const struct diag_where at = {.file = c->file, .line = c->line, .id = conv_id(c)};
    diag_emit(sink, &at, "iacp-open-at-end",
              "%s to '%s' is still open at the end of the input (%lu message(s), the last at "
              "line %lu)",
              opener_name(c->kind), conv_to(c), c->messages, c->last_line);
    double deadline = deadline_due(c);
    if (c->kind == CONV_TASK && !c->deadline_told && deadline < s->now)
        diag_emit(sink, &at, "iacp-deadline-passed",
                  "the deadline of '%s' passed %s s before the last message time without a "
                  "final task.result",
                  conv_id(c), iacp_seconds(&s->number[0], s->now - deadline));
    report_done(s, c, "open", NAN);
    s->blame = NULL;
}

/* Hands over every open conversation, in the order they opened; with a sink, after reporting
 * them open at the end. */
static void close_open(struct iacp_stream *s, struct diag_sink *sink)
{
    /* the open ones are the list of them, sorted where it lies: an array of 100,000 of them
     * was the peak of memory at the end of a stream that leaves them open */
    list_sort(&s->active, opened_before);
    for (struct conv *c; (c = least_active(s));) {
        if (sink)
            report_open(s, c, sink);
        else
            report_done(s, c, "open", NAN);
        leave_open(s, c);
        release_agents(s, c);
        free_conv(s, c);
    }
    /* Emptied once all are gone, which nothing reads meanwhile: taking each out of them (a sift
     * of the queue and a probe of the map, in memory long cold) was a third of what closing one
     * cost. */
    due_queue_free(&s->due);
    hashtab_free(&s->open, NULL);
}

static void iacp_stream_finish(struct stream *stream, struct diag_sink *sink)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    settle_skews(s, NULL, sink);
    if (s->last_line && !s->sharded) {
        const struct diag_where last = {.file = s->last_file, .line = s->last_line};
        check_silence(s, &last, sink);
    }
    release_all_lingering(s);
    close_open(s, sink);
}

static void iacp_stream_hand_over(struct stream *stream)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    s->blame = NULL;
    release_all_lingering(s);
    close_open(s, NULL);
}

static double iacp_stream_now(const struct stream *stream)
{
    const struct iacp_stream *s = (const struct iacp_stream *)stream;
    return s->now;
}

static void iacp_stream_advance(struct stream *stream, double now, const struct diag_where *where,
                                struct diag_sink *sink)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    if (isnan(s->now) || !(now > s->now))
        return;
    s->now = s->wall = now;
    release_lingered(s);
    if (!s->sharded)
        check_silence(s, where, sink);
    check_due(s, where, sink);
    expire(s, where, sink);
}

static double iacp_stream_next_due(const struct stream *stream)
{
    const struct iacp_stream *s = (const struct iacp_stream *)stream;
    return due_queue_next(&s->due);
}

static void free_agent(struct hash_node *node)
{
    free_agent_record(HASH_ITEM(node, struct agent, node));
}

static void iacp_stream_free(struct stream *stream)
{
    struct iacp_stream *s = (struct iacp_stream *)stream;
    if (!s)
        return;
    for (struct conv *c; (c = least_active(s));) {
        drop_open(s, c);
        free_conv(s, c);
    }
    for (struct conv *c; (c = LIST_ITEM(s->lingering.head, struct conv, active_link));) {
        list_remove(&s->lingering, &c->active_link);
        release_agents(s, c);
        free_conv(s, c);
    }
    hashtab_free(&s->lingering_map, NULL);
    for (struct held_skew *h; (h = LIST_ITEM(s->held.head, struct held_skew, link));) {
        list_remove(&s->held, &h->link);
        free_held(h);
    }
    hashtab_free(&s->open, NULL);
    hashtab_free(&s->nodes, NULL);
    for (struct list_link *n; (n = list_pop(&s->ids));)
        free(LIST_ITEM(n, struct sent, link));
    hashtab_free(&s->sent, NULL);
    pool_free(&s->pool);
    hashtab_free(&s->agents, free_agent);
    due_queue_free(&s->silent);
    due_queue_free(&s->due);
    sb_free(&s->digest);
    sb_free(&s->conversation);
    sb_free(&s->span);
    sb_free(&s->number[0]);
    sb_free(&s->number[1]);
    for (size_t i = 0; i < sizeof s->shown / sizeof s->shown[0]; i++)
        sb_free(&s->shown[i]);
    for (size_t i = 0; i < s->cfg->nslots; i++)
        free(s->slot_agents[i]);
    free(s->slot_agents);
    diag_sink_free(&s->probe);
    free(s);
}

const struct stream_ops iacp_stream_ops = {
    .proto = PROTO_IACP,
    .open = iacp_stream_new,
    .feed = iacp_stream_feed,
    .failed = iacp_stream_failed,
    .note = iacp_stream_note,
    .finish = iacp_stream_finish,
    .hand_over = iacp_stream_hand_over,
    .now = iacp_stream_now,
    .advance = iacp_stream_advance,
    .next_due = iacp_stream_next_due,
    .free = iacp_stream_free,
    .digest = iacp_stream_digest,
    .merge = &iacp_merge_ops,
};
