/* The IACP 1.1 pairing rules over a stream. A task.assign or a tool.query opens a conversation
 * keyed by its sender and id; replies join it through ref and the agent they are sent to. State
 * is kept bounded for endless live streams: a finished conversation shrinks to a tombstone, and
 * everything idle for --idle-timeout of message time is forgotten, oldest first, without ever
 * scanning everything on one message. */
#include "iacp_stream.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iacp.h"
#include "list.h"
#include "strmap.h"
#include "util.h"

/* An agent is called silent after this many heartbeat periods without a message. */
enum { SILENT_PERIODS = 3 };
/* The agent map is swept each time message time advanced by this fraction of --idle-timeout,
 * so that a sweep's cost is spread over many messages. */
enum { SWEEP_FRACTION = 16 };
/* Message time may stand still (a sender's clock stuck, or one far ahead that the others take
 * long to reach): then nothing expires by time, so ids and tombstones are also bounded by count.
 * At most this many ids per --max-open are remembered, and --max-open tombstones. */
enum { IDS_PER_OPEN = 10 };

/* A ts above this (the year 5138) is milliseconds by mistake (iacp-ts-millis): taken as seconds
 * of message time it would age every conversation and silence every agent at once, so message
 * time reads it as milliseconds. */
static const double MILLISECONDS_TS = 1e11;

static const size_t NOT_IN_HEAP = SIZE_MAX;

struct agent {
    size_t heap_at;   /* index in the silence heap, or NOT_IN_HEAP */
    double heard;     /* stream time of its last message; NAN before it spoke */
    double active;    /* stream time it last took part in anything */
    const char *file; /* its last message */
    unsigned long line;
    const char *assign_file; /* the last task.assign sent to it */
    unsigned long assign_line;
    unsigned long outstanding; /* task.assign it holds */
    unsigned long refs;        /* open conversations that name it */
    unsigned long advertised;  /* body.slots of its latest hb; 0 when none */
    unsigned long configured;  /* --slots for it; 0 when none */
    bool heartbeats;           /* its heartbeats were seen: only then can it fall silent */
    bool silence_reported;     /* once per silence */
    char name[];
};

enum conv_kind { CONV_TASK, CONV_TOOL };
enum ending { END_RESULT, END_REJECT, END_EVICTED };

struct node_chain;

/* An open conversation. Its key is the opener's name with its length, then the id, so that two
 * agents may use the same id (ids are unique per sender only). */
struct conv {
    struct list_link active_link; /* in the open list, least recently active first */
    struct agent *initiator;
    struct agent *assignee;
    struct node_chain *chain;    /* the assigns of its node; NULL when none or cancelled */
    struct list_link chain_link; /* among the open assigns of its node */
    const char *file;            /* the opening message */
    unsigned long line;
    unsigned long last_line;
    unsigned long messages;
    unsigned long seq;        /* opening order */
    const char *reissue_file; /* the assign that reissued this one, if any */
    unsigned long reissue_line;
    double opened; /* ts of the opening message */
    double last_ts;
    double active;   /* stream time of its last message */
    double deadline; /* body.deadline; NAN when none */
    enum conv_kind kind;
    bool cancelled;
    size_t id_at; /* the id inside key */
    char key[];
};

/* What is left of a finished conversation: enough to recognise late messages. */
struct tombstone {
    struct list_link link; /* the tombstones in the order they were made */
    double finished;       /* stream time */
    const char *file;      /* the message that ended it */
    unsigned long line;
    enum conv_kind kind;
    enum ending ending;
    size_t id_at;
    char key[];
};

/* The open assigns of one task graph node: a reissue adds to the chain, and two final results
 * in one chain mean the node ran twice. An assign that ends leaves it, so that the next reissue
 * is told against the latest assign still open. */
struct node_chain {
    struct list assigns; /* of struct conv: its open assigns, the latest last */
    char *done_id;       /* the first assign with a final result */
    const char *done_file;
    unsigned long done_line;
    char node[];
};

/* A message id seen from one sender, kept to catch reuse and to name what a ref points at. */
struct sent {
    struct list_link link; /* the ids in the order they were seen */
    double heard;
    const char *file;
    unsigned long line;
    enum iacp_kind kind;
    char key[];
};

struct iacp_stream {
    const struct engine_config *cfg;
    conversation_done_fn done;
    void *ctx;
    struct strmap *agents; /* name -> struct agent */
    struct strmap *open;   /* key -> struct conv */
    struct strmap *closed; /* key -> struct tombstone */
    struct strmap *sent;   /* key -> struct sent */
    struct strmap *nodes;  /* body.node -> struct node_chain */
    struct list active;    /* of struct conv: the open ones, least recently active first */
    struct list tombs;     /* of struct tombstone, the oldest first */
    struct list ids;       /* of struct sent, the oldest first */
    struct agent **heap;   /* agents holding tasks, the longest silent first */
    size_t heap_len, heap_cap;
    double now;            /* stream time: the latest ts seen; NAN before the first */
    double last_sweep;     /* stream time of the last sweep */
    const char *last_file; /* the latest message */
    unsigned long last_line;
    unsigned long seq;
    struct strbuf key;       /* scratch space for map keys */
    struct strbuf number[2]; /* scratch space for durations in messages */
};

/* ---- small helpers ---- */

static const char *make_key(struct iacp_stream *s, const char *agent, const char *id)
{
    sb_reset(&s->key);
    sb_addf(&s->key, "%zu:", strlen(agent));
    sb_adds(&s->key, agent);
    sb_adds(&s->key, id);
    return s->key.buf;
}

/* A number of seconds as people write it: no trailing zeros. */
static const char *seconds(struct strbuf *sb, double value)
{
    sb_reset(sb);
    sb_addf(sb, "%.3f", value);
    while (sb->len > 0 && sb->buf[sb->len - 1] == '0')
        sb->buf[--sb->len] = '\0';
    if (sb->len > 0 && sb->buf[sb->len - 1] == '.')
        sb->buf[--sb->len] = '\0';
    return sb->buf;
}

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

static const char *conv_id(const struct conv *c)
{
    return c->key + c->id_at;
}

static const char *tomb_id(const struct tombstone *t)
{
    return t->key + t->id_at;
}

static bool status_ok(const json_t *body)
{
    const char *status = json_member_string(body, "status");
    return !status || strcmp(status, "ok") == 0;
}

/* ---- the silence heap: agents holding tasks, ordered by when they were last heard ---- */

static void heap_set(struct iacp_stream *s, size_t i, struct agent *a)
{
    s->heap[i] = a;
    a->heap_at = i;
}

static void heap_sift_up(struct iacp_stream *s, size_t i)
{
    struct agent *a = s->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!(a->heard < s->heap[parent]->heard))
            break;
        heap_set(s, i, s->heap[parent]);
        i = parent;
    }
    heap_set(s, i, a);
}

static void heap_sift_down(struct iacp_stream *s, size_t i)
{
    struct agent *a = s->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= s->heap_len)
            break;
        if (child + 1 < s->heap_len && s->heap[child + 1]->heard < s->heap[child]->heard)
            child++;
        if (!(s->heap[child]->heard < a->heard))
            break;
        heap_set(s, i, s->heap[child]);
        i = child;
    }
    heap_set(s, i, a);
}

static void heap_push(struct iacp_stream *s, struct agent *a)
{
    if (s->heap_len == s->heap_cap) {
        s->heap_cap = s->heap_cap ? 2 * s->heap_cap : 16;
        s->heap = xrealloc(s->heap, s->heap_cap * sizeof *s->heap);
    }
    heap_set(s, s->heap_len++, a);
    heap_sift_up(s, s->heap_len - 1);
}

static void heap_remove(struct iacp_stream *s, struct agent *a)
{
    size_t i = a->heap_at;
    a->heap_at = NOT_IN_HEAP;
    struct agent *last = s->heap[--s->heap_len];
    if (i == s->heap_len)
        return;
    heap_set(s, i, last);
    heap_sift_up(s, i);
    heap_sift_down(s, last->heap_at);
}

/* Puts an agent holding tasks under watch, unless it is already or its silence was told. */
static void watch_agent(struct iacp_stream *s, struct agent *a)
{
    if (a->heartbeats && a->outstanding > 0 && !a->silence_reported && a->heap_at == NOT_IN_HEAP &&
        !isnan(a->heard))
        heap_push(s, a);
}

/* ---- agents ---- */

static unsigned long configured_slots(const struct engine_config *cfg, const char *name)
{
    unsigned long slots = 0;
    for (size_t i = 0; i < cfg->nslots; i++)
        if (strcmp(cfg->slots[i].agent, name) == 0)
            slots = cfg->slots[i].slots;
    return slots;
}

static struct agent *agent_get(struct iacp_stream *s, const char *name)
{
    struct agent *a = strmap_get(s->agents, name);
    if (!a) {
        size_t len = strlen(name);
        a = xcalloc(1, sizeof *a + len + 1);
        memcpy(a->name, name, len + 1);
        a->heap_at = NOT_IN_HEAP;
        a->heard = NAN;
        a->configured = configured_slots(s->cfg, name);
        strmap_put(s->agents, name, a);
    }
    a->active = s->now;
    return a;
}

static void agent_heard(struct iacp_stream *s, struct agent *a, const struct message *m)
{
    a->heard = s->now;
    a->file = m->at.file;
    a->line = m->at.line;
    a->silence_reported = false;
    if (a->heap_at != NOT_IN_HEAP)
        heap_sift_down(s, a->heap_at);
    else
        watch_agent(s, a);
}

static unsigned long allowed_slots(const struct agent *a)
{
    unsigned long slots = 1;
    if (a->advertised > slots)
        slots = a->advertised;
    if (a->configured > slots)
        slots = a->configured;
    return slots;
}

/* ---- liveness ---- */

static void check_silence(struct iacp_stream *s, const struct diag_where *at,
                          struct diag_sink *sink)
{
    double limit = SILENT_PERIODS * s->cfg->heartbeat_period;
    while (s->heap_len > 0 && s->heap[0]->heard + limit < s->now) {
        struct agent *a = s->heap[0];
        heap_remove(s, a);
        if (a->outstanding == 0 || a->silence_reported)
            continue;
        a->silence_reported = true;
        struct diag_where w = related_to(at, a->file, a->line);
        diag_emit(sink, &w, SEV_WARNING, "iacp-silent",
                  "'%s' holds %lu task(s) and has been silent for %s s (%d heartbeat periods "
                  "without a message)",
                  a->name, a->outstanding, seconds(&s->number[0], s->now - a->heard),
                  SILENT_PERIODS);
    }
}

/* ---- conversations ---- */

static struct conv *least_active(const struct iacp_stream *s)
{
    return LIST_ITEM(s->active.head, struct conv, active_link);
}

static struct conv *latest_assign(const struct node_chain *chain)
{
    return LIST_ITEM(chain->assigns.tail, struct conv, chain_link);
}

static void report_done(struct iacp_stream *s, const struct conv *c, const char *outcome)
{
    if (!s->done)
        return;
    const struct conversation_summary summary = {
        .proto = PROTO_IACP,
        .id = conv_id(c),
        .protocol = c->kind == CONV_TASK ? "iacp-task" : "iacp-tool",
        .initiator = c->initiator->name,
        .outcome = outcome,
        .messages = c->messages,
        .first_file = c->file,
        .first_line = c->line,
        .last_line = c->last_line,
        .started = c->opened,
        .ended = c->last_ts,
    };
    s->done(s->ctx, &summary);
}

static void free_chain(void *value)
{
    struct node_chain *chain = value;
    if (chain)
        free(chain->done_id);
    free(chain);
}

/* Takes an assign out of its node's chain; the chain goes when no assign of it is open. */
static void leave_chain(struct iacp_stream *s, struct conv *c)
{
    struct node_chain *chain = c->chain;
    if (!chain)
        return;
    c->chain = NULL;
    list_remove(&chain->assigns, &c->chain_link);
    if (chain->assigns.size == 0) {
        strmap_remove(s->nodes, chain->node);
        free_chain(chain);
    }
}

/* Forgets an open conversation: it no longer holds its agents or its node. */
static void drop_open(struct iacp_stream *s, struct conv *c)
{
    leave_chain(s, c);
    if (c->kind == CONV_TASK && c->assignee->outstanding > 0)
        c->assignee->outstanding--;
    c->assignee->refs--;
    c->initiator->refs--;
    list_remove(&s->active, &c->active_link);
    strmap_remove(s->open, c->key);
}

/* Ends a conversation: hands it over, and leaves a tombstone in its place. Returns its id, which
 * stays valid until the tombstone expires. */
static const char *finish_conv(struct iacp_stream *s, struct conv *c, enum ending ending,
                               const char *outcome, const struct diag_where *by)
{
    report_done(s, c, outcome);
    drop_open(s, c);
    size_t len = strlen(c->key);
    struct tombstone *t = xmalloc(sizeof *t + len + 1);
    memcpy(t->key, c->key, len + 1);
    t->finished = s->now;
    t->file = by->file;
    t->line = by->line;
    t->kind = c->kind;
    t->ending = ending;
    t->id_at = c->id_at;
    list_append(&s->tombs, &t->link);
    /* A tombstone this one replaces stays in the list until it expires; see expire_tombstones. */
    strmap_put(s->closed, t->key, t);
    free(c);
    return tomb_id(t);
}

static void evict(struct iacp_stream *s, struct conv *c, const struct diag_where *at,
                  struct diag_sink *sink, bool idle)
{
    struct diag_where w = related_to(at, c->file, c->line);
    if (idle)
        diag_emit(sink, &w, SEV_WARNING, "iacp-evicted",
                  "conversation '%s' had no message for %s s and is forgotten (--idle-timeout)",
                  conv_id(c), seconds(&s->number[0], s->now - c->active));
    else
        diag_emit(sink, &w, SEV_WARNING, "iacp-evicted",
                  "more than %lu conversations are open; the least recently active, '%s', is "
                  "forgotten (--max-open)",
                  s->cfg->max_open, conv_id(c));
    struct diag_where here = {.file = at->file, .line = at->line};
    finish_conv(s, c, END_EVICTED, "evicted", &here);
}

/* ---- expiry: everything idle for --idle-timeout of message time ---- */

static void expire_tombstones(struct iacp_stream *s)
{
    double idle = s->cfg->idle_timeout;
    for (struct tombstone *t; (t = LIST_ITEM(s->tombs.head, struct tombstone, link)) &&
                              (t->finished + idle < s->now || s->tombs.size > s->cfg->max_open);) {
        list_remove(&s->tombs, &t->link);
        if (strmap_get(s->closed, t->key) == t)
            strmap_remove(s->closed, t->key);
        free(t);
    }
}

static void expire_ids(struct iacp_stream *s)
{
    size_t cap = s->cfg->max_open * IDS_PER_OPEN;
    for (struct sent *e; (e = LIST_ITEM(s->ids.head, struct sent, link)) &&
                         (e->heard + s->cfg->idle_timeout < s->now || s->ids.size > cap);) {
        list_remove(&s->ids, &e->link);
        strmap_remove(s->sent, e->key);
        free(e);
    }
}

static bool agent_expired(void *ctx, const char *key, void *value)
{
    (void)key;
    struct iacp_stream *s = ctx;
    struct agent *a = value;
    if (a->refs > 0 || !(a->active + s->cfg->idle_timeout < s->now))
        return false;
    if (a->heap_at != NOT_IN_HEAP)
        heap_remove(s, a);
    free(a);
    return true;
}

static void expire(struct iacp_stream *s, const struct diag_where *at, struct diag_sink *sink)
{
    for (struct conv *c; (c = least_active(s)) && c->active + s->cfg->idle_timeout < s->now;)
        evict(s, c, at, sink, true);
    expire_tombstones(s);
    expire_ids(s);
    if (s->now > s->last_sweep && s->now - s->last_sweep >= s->cfg->idle_timeout / SWEEP_FRACTION) {
        s->last_sweep = s->now;
        strmap_sweep(s->agents, agent_expired, s);
    }
}

/* ---- per message ---- */

/* The fields every rule needs, read once. */
struct fields {
    const char *from, *to, *ref;
    enum iacp_kind kind;
    const json_t *body;
    double ts;
    bool legacy; /* IACP 1.0: no ref, so no ref rules */
};

static bool read_fields(const struct message *m, struct fields *f)
{
    const char *kind = json_member_string(m->root, "kind");
    const char *v = json_member_string(m->root, "v");
    const json_t *ts = json_object_get(m->root, "ts");
    f->from = json_member_string(m->root, "from");
    f->to = json_member_string(m->root, "to");
    f->ref = json_member_string(m->root, "ref");
    f->body = json_object_get(m->root, "body");
    if (!json_is_object(f->body))
        f->body = NULL;
    if (!kind || !f->from || !f->to || !m->id || !json_is_number(ts))
        return false;
    f->kind = iacp_kind_parse(kind);
    f->ts = json_number_value(ts);
    f->legacy = v && iacp_version_parse(v) == IACP_V1_0;
    return true;
}

/* Records the id; reports its reuse by the same sender. Returns false for a reused id. */
static bool note_id(struct iacp_stream *s, const struct message *m, const struct fields *f,
                    struct diag_sink *sink)
{
    const char *key = make_key(s, f->from, m->id);
    struct sent *prev = strmap_get(s->sent, key);
    if (prev) {
        struct diag_where w = related_to(&m->at, prev->file, prev->line);
        diag_emit(sink, &w, SEV_ERROR, "iacp-duplicate-id",
                  "'%s' already sent a message with id '%s'", f->from, m->id);
        return false;
    }
    /* An id whose record expired while its conversation is still open is still taken. */
    struct conv *c = strmap_get(s->open, key);
    if (c) {
        struct diag_where w = related_to(&m->at, c->file, c->line);
        diag_emit(sink, &w, SEV_ERROR, "iacp-duplicate-id",
                  "'%s' already sent a message with id '%s'", f->from, m->id);
        return false;
    }
    size_t len = strlen(key);
    struct sent *e = xmalloc(sizeof *e + len + 1);
    *e = (struct sent){.heard = s->now, .file = m->at.file, .line = m->at.line, .kind = f->kind};
    memcpy(e->key, key, len + 1);
    list_append(&s->ids, &e->link);
    strmap_put(s->sent, e->key, e);
    return true;
}

static struct conv *open_conv(struct iacp_stream *s, const struct message *m,
                              const struct fields *f, enum conv_kind kind)
{
    const char *key = make_key(s, f->from, m->id);
    size_t len = strlen(key);
    struct conv *c = xcalloc(1, sizeof *c + len + 1);
    memcpy(c->key, key, len + 1);
    c->id_at = len - strlen(m->id);
    c->kind = kind;
    c->initiator = agent_get(s, f->from);
    c->assignee = agent_get(s, f->to);
    c->initiator->refs++;
    c->assignee->refs++;
    c->file = m->at.file;
    c->line = c->last_line = m->at.line;
    c->messages = 1;
    c->seq = ++s->seq;
    c->opened = c->last_ts = f->ts;
    c->active = s->now;
    c->deadline = NAN;
    list_append(&s->active, &c->active_link);
    strmap_put(s->open, c->key, c);
    return c;
}

static void check_slots(const struct message *m, const struct agent *forager,
                        struct diag_sink *sink)
{
    unsigned long slots = allowed_slots(forager);
    if (forager->outstanding >= slots) {
        struct diag_where w = related_to(&m->at, forager->assign_file, forager->assign_line);
        diag_emit(sink, &w, SEV_ERROR, "iacp-slots",
                  "'%s' already holds %lu outstanding task.assign and has %lu slot(s)",
                  forager->name, forager->outstanding, slots);
    }
}

/* Joins an assign to the chain of its node, reporting a reissue to another forager. */
static void join_chain(struct iacp_stream *s, const struct message *m, struct conv *c,
                       const char *node, struct diag_sink *sink)
{
    struct node_chain *chain = strmap_get(s->nodes, node);
    if (!chain) {
        size_t len = strlen(node);
        chain = xcalloc(1, sizeof *chain + len + 1);
        memcpy(chain->node, node, len + 1);
        strmap_put(s->nodes, node, chain);
    } else if (latest_assign(chain) && latest_assign(chain)->assignee != c->assignee) {
        struct conv *prev = latest_assign(chain);
        struct diag_where w = related_to(&m->at, prev->file, prev->line);
        diag_emit(sink, &w, SEV_WARNING, "iacp-reissue",
                  "node '%s' reissued to '%s': assign '%s' to '%s' has had no final result for "
                  "%s s (assign timeout %s s)",
                  node, c->assignee->name, conv_id(prev), prev->assignee->name,
                  seconds(&s->number[0], c->opened - prev->opened),
                  seconds(&s->number[1], s->cfg->assign_timeout));
        prev->reissue_file = m->at.file;
        prev->reissue_line = m->at.line;
    }
    list_append(&chain->assigns, &c->chain_link);
    c->chain = chain;
}

static const char *open_task(struct iacp_stream *s, const struct message *m, const struct fields *f,
                             struct diag_sink *sink)
{
    struct agent *forager = agent_get(s, f->to);
    check_slots(m, forager, sink);
    struct conv *c = open_conv(s, m, f, CONV_TASK);
    forager->outstanding++;
    forager->assign_file = m->at.file;
    forager->assign_line = m->at.line;
    watch_agent(s, forager);
    const json_t *deadline = json_object_get(f->body, "deadline");
    if (json_is_number(deadline))
        c->deadline = json_number_value(deadline);
    const char *node = json_member_string(f->body, "node");
    if (node)
        join_chain(s, m, c, node, sink);
    return conv_id(c);
}

static void note_heartbeat(struct iacp_stream *s, const struct fields *f)
{
    struct agent *a = agent_get(s, f->from);
    a->heartbeats = true;
    /* Only the latest heartbeat counts: a forager may shrink its slots. */
    const json_t *slots = json_object_get(f->body, "slots");
    a->advertised = 0;
    if (json_is_integer(slots) && json_integer_value(slots) >= 0)
        a->advertised = (unsigned long)json_integer_value(slots);
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
    diag_emit(sink, &w, SEV_ERROR, "iacp-ref-kind", "%s answers a %s, but ref '%s' names a %s",
              iacp_kind_name(f->kind), opener_name(kind_answered(f->kind)), f->ref, named);
}

/* A reply to a conversation that is over. */
static const char *late_reply(const struct message *m, const struct fields *f,
                              const struct tombstone *t, struct diag_sink *sink)
{
    if (t->ending == END_EVICTED || f->kind == IACP_TASK_CANCEL)
        return tomb_id(t);
    if (t->kind != kind_answered(f->kind)) {
        report_ref_kind(m, f, NULL, 0, opener_name(t->kind), sink);
        return tomb_id(t);
    }
    struct diag_where w = related_to(&m->at, t->file, t->line);
    if (t->ending == END_REJECT)
        diag_emit(sink, &w, SEV_ERROR, "iacp-reply-after-reject", "%s for '%s', which was rejected",
                  iacp_kind_name(f->kind), tomb_id(t));
    else if (f->kind == IACP_TASK_RESULT || f->kind == IACP_TOOL_REPLY)
        diag_emit(sink, &w, SEV_ERROR, "iacp-result-after-final",
                  "%s for '%s', which already had its final %s", iacp_kind_name(f->kind),
                  tomb_id(t), t->kind == CONV_TASK ? "task.result" : "tool.reply");
    return tomb_id(t);
}

/* A reply whose ref names no open conversation and no tombstone. */
static void unknown_ref(struct iacp_stream *s, const struct message *m, const struct fields *f,
                        const char *owner, const char *key, struct diag_sink *sink)
{
    const struct sent *named = strmap_get(s->sent, key);
    if (!named) {
        diag_emit(sink, &m->at, SEV_WARNING, "iacp-orphan",
                  "%s with ref '%s': no message with that id from '%s' was seen",
                  iacp_kind_name(f->kind), f->ref, owner);
        return;
    }
    /* An opener the rules did not follow (IACP 1.0, or a reused id) says nothing. */
    if (named->kind == IACP_TASK_ASSIGN || named->kind == IACP_TOOL_QUERY)
        return;
    report_ref_kind(m, f, named->file, named->line, iacp_kind_name(named->kind), sink);
}

static void check_skew(struct iacp_stream *s, const struct message *m, const struct fields *f,
                       const struct conv *c, struct diag_sink *sink)
{
    double early = c->opened - f->ts;
    if (early > s->cfg->max_skew) {
        struct diag_where w = related_to(&m->at, c->file, c->line);
        diag_emit(sink, &w, SEV_WARNING, "iacp-skew",
                  "stamped %s s before the %s it answers (clock skew; --max-skew is %s s)",
                  seconds(&s->number[0], early), opener_name(c->kind),
                  seconds(&s->number[1], s->cfg->max_skew));
    }
}

static void check_twice_done(const struct message *m, struct conv *c, struct diag_sink *sink)
{
    struct node_chain *chain = c->chain;
    if (!chain)
        return;
    if (!chain->done_id) {
        chain->done_id = xstrdup(conv_id(c));
        chain->done_file = c->file;
        chain->done_line = c->line;
        return;
    }
    struct diag_where w = related_to(&m->at, chain->done_file, chain->done_line);
    diag_emit(sink, &w, SEV_ERROR, "iacp-duplicate-execution",
              "node '%s' ran twice: assign '%s' (line %lu) to '%s' and assign '%s' (line %lu) "
              "both have a final task.result",
              chain->node, conv_id(c), c->line, c->assignee->name, chain->done_id,
              chain->done_line);
}

static const char *final_outcome(const struct conv *c, const struct fields *f)
{
    if (c->cancelled)
        return "cancelled";
    return status_ok(f->body) ? "done" : "failed";
}

/* Applies a reply from the right agent to its open conversation. */
static const char *apply_reply(struct iacp_stream *s, const struct message *m,
                               const struct fields *f, struct conv *c, struct diag_sink *sink)
{
    c->messages++;
    c->last_line = m->at.line;
    c->last_ts = f->ts;
    c->active = s->now;
    list_remove(&s->active, &c->active_link);
    list_append(&s->active, &c->active_link);
    switch (f->kind) {
    case IACP_TASK_ACCEPT:
        if (c->reissue_line) {
            struct diag_where w = related_to(&m->at, c->reissue_file, c->reissue_line);
            diag_emit(sink, &w, SEV_WARNING, "iacp-late-accept",
                      "'%s' accepts '%s' after the queen reissued it", f->from, conv_id(c));
        }
        return conv_id(c);
    case IACP_TASK_CANCEL:
        /* A cancelled assign is no longer a run of its node, but it holds its slot until the
         * forager's final result. */
        c->cancelled = true;
        leave_chain(s, c);
        return conv_id(c);
    case IACP_TASK_REJECT:
        return finish_conv(s, c, END_REJECT, "rejected", &m->at);
    case IACP_TASK_RESULT:
        if (json_is_true(json_object_get(f->body, "partial")))
            return conv_id(c);
        check_twice_done(m, c, sink);
        return finish_conv(s, c, END_RESULT, final_outcome(c, f), &m->at);
    default:
        return finish_conv(s, c, END_RESULT, final_outcome(c, f), &m->at);
    }
}

static const char *follow_reply(struct iacp_stream *s, const struct message *m,
                                const struct fields *f, struct diag_sink *sink)
{
    if (!f->ref)
        return NULL;
    /* The message a reply answers was sent by the agent the reply goes to; a task.cancel names
     * its sender's own assign. */
    const char *owner = f->kind == IACP_TASK_CANCEL ? f->from : f->to;
    const char *key = make_key(s, owner, f->ref);
    struct conv *c = strmap_get(s->open, key);
    if (!c) {
        const struct tombstone *t = strmap_get(s->closed, key);
        if (t)
            return late_reply(m, f, t, sink);
        unknown_ref(s, m, f, owner, key, sink);
        return NULL;
    }
    if (c->kind != kind_answered(f->kind)) {
        report_ref_kind(m, f, c->file, c->line, opener_name(c->kind), sink);
        return NULL;
    }
    if (f->kind != IACP_TASK_CANCEL) {
        if (strcmp(f->from, c->assignee->name) != 0) {
            struct diag_where w = related_to(&m->at, c->file, c->line);
            diag_emit(sink, &w, SEV_ERROR, "iacp-wrong-replier",
                      "%s from '%s' for '%s', which went to '%s'", iacp_kind_name(f->kind), f->from,
                      conv_id(c), c->assignee->name);
            return NULL;
        }
        check_skew(s, m, f, c, sink);
    }
    return apply_reply(s, m, f, c, sink);
}

static const char *follow(struct iacp_stream *s, const struct message *m, const struct fields *f,
                          struct diag_sink *sink)
{
    if (f->kind == IACP_HB) {
        note_heartbeat(s, f);
        return NULL;
    }
    if (f->legacy)
        return NULL;
    switch (f->kind) {
    case IACP_TASK_ASSIGN:
        return open_task(s, m, f, sink);
    case IACP_TOOL_QUERY:
        return conv_id(open_conv(s, m, f, CONV_TOOL));
    case IACP_TASK_ACCEPT:
    case IACP_TASK_REJECT:
    case IACP_TASK_RESULT:
    case IACP_TASK_CANCEL:
    case IACP_TOOL_REPLY:
        return follow_reply(s, m, f, sink);
    default:
        return NULL;
    }
}

static void cap_open(struct iacp_stream *s, const struct message *m, struct diag_sink *sink)
{
    while (s->active.size > s->cfg->max_open && s->active.size > 1)
        evict(s, least_active(s), &m->at, sink, false);
}

/* ---- the interface ---- */

struct iacp_stream *iacp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                    void *ctx)
{
    struct iacp_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    s->done = done;
    s->ctx = ctx;
    s->agents = strmap_new();
    s->open = strmap_new();
    s->closed = strmap_new();
    s->sent = strmap_new();
    s->nodes = strmap_new();
    s->now = NAN;
    s->last_sweep = NAN;
    return s;
}

const char *iacp_stream_feed(struct iacp_stream *s, const struct message *m, struct diag_sink *sink)
{
    struct fields f;
    if (!read_fields(m, &f))
        return NULL;
    double time = f.ts > MILLISECONDS_TS ? f.ts / 1000 : f.ts;
    if (isnan(s->now) || time > s->now)
        s->now = time;
    if (isnan(s->last_sweep))
        s->last_sweep = s->now;
    check_silence(s, &m->at, sink);
    expire(s, &m->at, sink);
    s->last_file = m->at.file;
    s->last_line = m->at.line;
    const char *key = NULL;
    if (note_id(s, m, &f, sink)) {
        key = follow(s, m, &f, sink);
        cap_open(s, m, sink);
    }
    agent_heard(s, agent_get(s, f.from), m);
    return key;
}

static int by_seq(const void *a, const void *b)
{
    const struct conv *x = *(struct conv *const *)a;
    const struct conv *y = *(struct conv *const *)b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void report_open(struct iacp_stream *s, struct conv *c, struct diag_sink *sink)
{
    const struct diag_where at = {.file = c->file, .line = c->line, .id = conv_id(c)};
    diag_emit(sink, &at, SEV_WARNING, "iacp-open-at-end",
              "%s to '%s' is still open at the end of the input (%lu message(s), the last at "
              "line %lu)",
              opener_name(c->kind), c->assignee->name, c->messages, c->last_line);
    if (c->kind == CONV_TASK && !isnan(c->deadline) && c->deadline < s->now)
        diag_emit(sink, &at, SEV_WARNING, "iacp-deadline-passed",
                  "the deadline of '%s' passed %s s before the last message time without a "
                  "final task.result",
                  conv_id(c), seconds(&s->number[0], s->now - c->deadline));
    report_done(s, c, "open");
}

void iacp_stream_finish(struct iacp_stream *s, struct diag_sink *sink)
{
    if (s->last_line) {
        const struct diag_where last = {.file = s->last_file, .line = s->last_line};
        check_silence(s, &last, sink);
    }
    if (s->active.size == 0)
        return;
    struct conv **open = xmalloc(s->active.size * sizeof *open);
    size_t n = 0;
    for (struct list_link *l = s->active.head; l; l = l->next)
        open[n++] = LIST_ITEM(l, struct conv, active_link);
    qsort(open, n, sizeof *open, by_seq);
    for (size_t i = 0; i < n; i++) {
        report_open(s, open[i], sink);
        drop_open(s, open[i]);
        free(open[i]);
    }
    free(open);
}

void iacp_stream_free(struct iacp_stream *s)
{
    if (!s)
        return;
    for (struct conv *c; (c = least_active(s));) {
        drop_open(s, c);
        free(c);
    }
    for (struct tombstone *t; (t = LIST_ITEM(s->tombs.head, struct tombstone, link));) {
        list_remove(&s->tombs, &t->link);
        free(t);
    }
    strmap_free(s->closed, NULL);
    strmap_free(s->open, NULL);
    strmap_free(s->nodes, free_chain);
    strmap_free(s->sent, free);
    strmap_free(s->agents, free);
    free(s->heap);
    sb_free(&s->key);
    sb_free(&s->number[0]);
    sb_free(&s->number[1]);
    free(s);
}
