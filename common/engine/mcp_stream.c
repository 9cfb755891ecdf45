/* MCP's half of the conversation engine: the pairing of JSON-RPC requests and responses in a
 * capture, session by session. A request is in progress from its record until the other side's
 * response with its id; the sides number their ids each on its own (both SDKs count from 0), so
 * a request is known by its session, the side that sent it and its id. Only a capture says the
 * side: bare JSON-RPC lines are not paired (acp-validate(1) says so). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/keyform.h"
#include "base/strmap.h"
#include "engine/stream.h"
#include "proto/dialect.h"
#include "proto/mcp.h"

/* A request in progress. Until it is told late (--request-timeout) it is also in a list, in the
 * order of the records, so that what falls due comes first and what is left at the end is told
 * in input order; told, it waits in the map alone for its response. */
struct pending {
    struct pending *prev, *next;
    char *key;        /* the strmap's: session, side, id in keyform */
    const char *file; /* one of the stream's file names */
    unsigned long line;
    char *method; /* kept short: what a diagnostic quotes */
    double sent;  /* its record's time; NAN: unknown */
    bool from_server;
    bool told; /* late: out of the list */
};

/* A request that was answered or forgotten: where it was. */
struct used {
    const char *file;
    unsigned long line;
};

/* Keys remembered with a struct used each, the latest cap of them: the oldest is forgotten, so
 * that what is kept stays bounded. */
struct key_ring {
    struct strmap *map; /* key -> struct used */
    char **keys;
    size_t next, cap;
};

static void ring_put(struct key_ring *r, size_t cap, const char *key, const char *file,
                     unsigned long line)
{
    if (!r->cap) {
        r->cap = cap;
        r->keys = xcalloc(cap, sizeof *r->keys);
        r->map = strmap_new();
    }
    char **slot = &r->keys[r->next];
    if (*slot) {
        free(strmap_remove(r->map, *slot));
        free(*slot);
    }
    *slot = xstrdup(key);
    r->next = (r->next + 1) % r->cap;
    struct used *u = xmalloc(sizeof *u);
    *u = (struct used){.file = file, .line = line};
    free(strmap_put(r->map, key, u));
}

static const struct used *ring_get(const struct key_ring *r, const char *key)
{
    return r->map ? strmap_get(r->map, key) : NULL;
}

static void ring_free(struct key_ring *r)
{
    if (!r->map)
        return;
    strmap_free(r->map, free);
    for (size_t i = 0; i < r->cap; i++)
        free(r->keys[i]);
    free(r->keys);
}

/* What is kept of a revision: they are dates ("2025-06-18"). */
enum { REVISION_MAX = 32 };

struct mcp_stream {
    const struct engine_config *cfg;
    struct strmap *pending; /* key -> struct pending */
    struct pending *first, *last;
    size_t npending;
    struct strmap *files;      /* display name -> its copy, which the pendings point to */
    struct strmap *revisions;  /* session -> the revision it agreed on (its copy) */
    struct key_ring used;      /* requests answered, in a session that holds its ids to its end */
    struct key_ring forgotten; /* requests in progress forgotten past --max-open */
    struct siphash_key secret;
    double now;
};

static struct mcp_stream *of(struct stream *s)
{
    return (struct mcp_stream *)s;
}

static struct stream *mcp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                     void *ctx)
{
    (void)done;
    (void)ctx;
    struct mcp_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    s->pending = strmap_new();
    s->files = strmap_new();
    s->revisions = strmap_new();
    if (!siphash_key_draw(&s->secret))
        die_oom();
    s->now = NAN;
    return (struct stream *)s;
}

static const char *file_copy(struct mcp_stream *s, const char *file)
{
    if (!file)
        return NULL;
    char *kept = strmap_get(s->files, file);
    if (!kept) {
        kept = xstrdup(file);
        strmap_put(s->files, kept, kept);
    }
    return kept;
}

/* The key of the request of side from_server with id in session: the id as its JSON text, so
 * that 1 and "1" stay apart, the whole in keyform. */
static char *request_key(struct mcp_stream *s, const char *session, bool from_server,
                         const struct jv *id)
{
    struct strbuf raw = STRBUF_INIT;
    sb_adds(&raw, session ? session : "");
    sb_addc(&raw, '\x1f');
    sb_addc(&raw, from_server ? 's' : 'c');
    if (jv_is_string(id)) {
        sb_addc(&raw, '"');
        sb_add(&raw, jv_string_value(id), jv_string_length(id));
    } else {
        sb_addf(&raw, "%lld", (long long)jv_integer_value(id));
    }
    struct key_form_buf buf;
    size_t len;
    const char *form = key_form(&s->secret, raw.buf, raw.len, &buf, &len);
    char *key = xstrndup(form, len);
    sb_free(&raw);
    return key;
}

static void leave_list(struct mcp_stream *s, struct pending *p)
{
    *(p->prev ? &p->prev->next : &s->first) = p->next;
    *(p->next ? &p->next->prev : &s->last) = p->prev;
    p->prev = p->next = NULL;
}

static void unlink_pending(struct mcp_stream *s, struct pending *p)
{
    if (!p->told)
        leave_list(s, p);
    strmap_remove(s->pending, p->key);
    s->npending--;
    free(p->key);
    free(p->method);
    free(p);
}

/* What a diagnostic quotes of a method: its first 80 bytes, made safe to show. */
static char *method_shown(const struct jv *method)
{
    struct strbuf shown = STRBUF_INIT;
    const char *name = jv_string_value(method);
    if (name)
        escape_text(&shown, name, jv_string_length(method), 80);
    else
        sb_adds(&shown, "(no method)");
    return sb_detach(&shown);
}

/* The form a session is remembered by (keyform), as a string in buf. */
static const char *session_key(struct mcp_stream *s, const char *session, struct key_form_buf *buf,
                               struct strbuf *key)
{
    size_t len;
    const char *form =
        key_form(&s->secret, session ? session : "", session ? strlen(session) : 0, buf, &len);
    sb_reset(key);
    sb_add(key, form, len);
    return key->buf ? key->buf : "";
}

/* The revision a session is checked as: --mcp-revision's, else what its initialize agreed, else
 * NULL. */
static const char *revision_of(struct mcp_stream *s, const char *session)
{
    if (s->cfg->mcp_revision)
        return s->cfg->mcp_revision;
    struct key_form_buf buf;
    struct strbuf key = STRBUF_INIT;
    const char *revision = strmap_get(s->revisions, session_key(s, session, &buf, &key));
    sb_free(&key);
    return revision;
}

/* The revision a session agreed on: the protocolVersion of the server's result to initialize. */
static void agree_revision(struct mcp_stream *s, const char *session, const struct jv *response)
{
    const struct jv *version = jv_object_get(jv_object_get(response, "result"), "protocolVersion");
    if (!jv_is_string(version) || jv_string_length(version) > REVISION_MAX)
        return;
    if (strmap_size(s->revisions) >= s->cfg->max_open) { /* bounded: start again */
        strmap_free(s->revisions, free);
        s->revisions = strmap_new();
    }
    struct key_form_buf buf;
    struct strbuf key = STRBUF_INIT;
    free(strmap_put(s->revisions, session_key(s, session, &buf, &key),
                    xstrdup(jv_string_value(version))));
    sb_free(&key);
}

/* Forgets p, the oldest request in progress, so that what is kept stays bounded; its response
 * is still taken when it comes (among the latest --max-open forgotten). */
static void forget(struct mcp_stream *s, struct pending *p, struct diag_sink *sink)
{
    struct diag_where at = {.file = p->file, .line = p->line};
    diag_emit(sink, &at, "mcp-evicted",
              "the %s's request '%s' is forgotten, more than --max-open=%lu being in progress",
              p->from_server ? "server" : "client", p->method, s->cfg->max_open);
    ring_put(&s->forgotten, s->cfg->max_open, p->key, p->file, p->line);
    unlink_pending(s, p);
}

static void open_request(struct mcp_stream *s, const struct message *m, const struct jv *msg,
                         char *key, bool from_server, struct diag_sink *sink)
{
    struct pending *was = strmap_get(s->pending, key);
    const struct used *used;
    if (was) {
        struct diag_where at = m->at;
        at.related_file = was->file != m->at.file ? was->file : NULL;
        at.related_line = was->line;
        diag_emit(sink, &at, "mcp-id-reused",
                  "the %s reuses the id of its request '%s', still in progress",
                  from_server ? "server" : "client", was->method);
        unlink_pending(s, was);
    } else if ((used = ring_get(&s->used, key)) &&
               mcp_revision_has_sessions(revision_of(s, message_session(m)))) {
        struct diag_where at = m->at;
        at.related_file = used->file != m->at.file ? used->file : NULL;
        at.related_line = used->line;
        diag_emit(sink, &at, "mcp-id-reused",
                  "the %s reuses the id of an earlier request of the session",
                  from_server ? "server" : "client");
    }
    struct pending *p = xcalloc(1, sizeof *p);
    p->key = key;
    p->file = file_copy(s, m->at.file);
    p->line = m->at.line;
    p->method = method_shown(jv_object_get(msg, "method"));
    p->sent = m->capture.time;
    p->from_server = from_server;
    p->prev = s->last;
    *(s->last ? &s->last->next : &s->first) = p;
    s->last = p;
    strmap_put(s->pending, key, p);
    if (++s->npending > s->cfg->max_open && s->first)
        forget(s, s->first, sink);
}

static void answer(struct mcp_stream *s, const struct message *m, const struct jv *msg, char *key,
                   bool from_server, struct diag_sink *sink)
{
    struct pending *p = strmap_get(s->pending, key);
    bool forgotten = !p && ring_get(&s->forgotten, key); /* past --max-open, said so then */
    free(key);
    if (p) {
        const char *session = message_session(m);
        if (strcmp(p->method, "initialize") == 0 && !p->from_server)
            agree_revision(s, session, msg);
        if (mcp_revision_has_sessions(revision_of(s, session)))
            ring_put(&s->used, s->cfg->max_open, p->key, p->file, p->line);
        unlink_pending(s, p);
        return;
    }
    if (forgotten)
        return;
    diag_emit(sink, &m->at, "jsonrpc-no-request",
              "the %s answers a request of the %s that is not in progress (never sent, a "
              "notification, or answered already)",
              from_server ? "server" : "client", from_server ? "client" : "server");
}

/* Moves message time to now, and tells each request in progress that has waited longer than
 * --request-timeout since, once. */
static void expire(struct mcp_stream *s, double now, struct diag_sink *sink)
{
    if (!(now <= s->now))
        s->now = now;
    struct pending *p;
    while ((p = s->first) && p->sent + s->cfg->request_timeout < s->now) {
        struct diag_where at = {.file = p->file, .line = p->line};
        char waited[32]; /* the diagnostics' own format has no %g */
        snprintf(waited, sizeof waited, "%g", s->cfg->request_timeout);
        diag_emit(sink, &at, "mcp-request-timeout",
                  "the %s's request '%s' has had no response for %ss (--request-timeout)",
                  p->from_server ? "server" : "client", p->method, waited);
        leave_list(s, p);
        p->told = true;
    }
}

/* Opens a request, or answers one, by msg: m, or a message of m's batch. */
static void pair(struct mcp_stream *s, const struct message *m, const struct jv *msg,
                 struct diag_sink *sink)
{
    bool from_server = m->capture.out;
    const struct jv *id = jv_object_get(msg, "id");
    if (!jv_is_string(id) && !jv_is_integer(id))
        return; /* a notification, or an id its own check rejected */
    const char *session = message_session(m);
    if (jv_object_get(msg, "method"))
        open_request(s, m, msg, request_key(s, session, from_server, id), from_server, sink);
    else
        answer(s, m, msg, request_key(s, session, !from_server, id), from_server, sink);
}

/* Batches are MCP's in its 2025-03-26 revision alone: it added them, 2025-06-18 took them out. */
static void check_batch_revision(struct mcp_stream *s, const struct message *m,
                                 struct diag_sink *sink)
{
    const char *revision = revision_of(s, message_session(m));
    if (!revision || strcmp(revision, "2025-03-26") == 0)
        return;
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, revision, strlen(revision), REVISION_MAX);
    diag_emit(sink, &m->at, "mcp-batch",
              "a batch in a session of revision %s: only 2025-03-26 has batches", shown.buf);
    sb_free(&shown);
}

static const char *mcp_stream_feed(struct stream *stream, const struct message *m,
                                   struct diag_sink *sink)
{
    struct mcp_stream *s = of(stream);
    if (!m->capture.present || m->capture.event)
        return NULL; /* which side sent a bare line, no line says */
    if (!isnan(m->capture.time))
        expire(s, m->capture.time, sink);
    if (!jv_is_array(m->view)) {
        pair(s, m, m->view, sink);
        return NULL;
    }
    check_batch_revision(s, m, sink);
    for (const struct jv *e = jv_array_first(m->view); e; e = jv_array_next(m->view, e))
        if (jv_is_object(e))
            pair(s, m, e, sink);
    return NULL;
}

static const char *mcp_stream_failed(struct stream *stream, const struct message *m,
                                     struct findings **own)
{
    (void)stream;
    (void)m;
    (void)own;
    return NULL;
}

static void mcp_stream_note(struct stream *stream, const struct diag_finding *finding)
{
    (void)stream;
    (void)finding;
}

static bool forget_told(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    struct pending *p = value;
    free(p->key);
    free(p->method);
    free(p);
    return true;
}

static void mcp_stream_finish(struct stream *stream, struct diag_sink *sink)
{
    struct mcp_stream *s = of(stream);
    while (s->first) {
        struct pending *p = s->first;
        struct diag_where at = {.file = p->file, .line = p->line};
        diag_emit(sink, &at, "jsonrpc-unanswered", "the %s's request '%s' was never answered",
                  p->from_server ? "server" : "client", p->method);
        unlink_pending(s, p);
    }
    strmap_sweep(s->pending, forget_told, s); /* told late already */
}

static void mcp_stream_hand_over(struct stream *stream)
{
    (void)stream;
}

static double mcp_stream_now(const struct stream *stream)
{
    return ((const struct mcp_stream *)stream)->now;
}

static void mcp_stream_advance(struct stream *stream, double now, const struct diag_where *where,
                               struct diag_sink *sink)
{
    (void)where;
    expire(of(stream), now, sink);
}

static double mcp_stream_next_due(const struct stream *stream)
{
    const struct mcp_stream *s = (const struct mcp_stream *)stream;
    return s->first && !isnan(s->first->sent) ? s->first->sent + s->cfg->request_timeout : INFINITY;
}

static void free_file(void *file)
{
    free(file);
}

static void mcp_stream_free(struct stream *stream)
{
    struct mcp_stream *s = of(stream);
    while (s->first)
        unlink_pending(s, s->first);
    strmap_sweep(s->pending, forget_told, s);
    strmap_free(s->pending, NULL);
    strmap_free(s->files, free_file);
    strmap_free(s->revisions, free);
    ring_free(&s->used);
    ring_free(&s->forgotten);
    free(s);
}

const struct stream_ops mcp_stream_ops = {
    .proto = PROTO_MCP,
    .open = mcp_stream_new,
    .feed = mcp_stream_feed,
    .failed = mcp_stream_failed,
    .note = mcp_stream_note,
    .finish = mcp_stream_finish,
    .hand_over = mcp_stream_hand_over,
    .now = mcp_stream_now,
    .advance = mcp_stream_advance,
    .next_due = mcp_stream_next_due,
    .free = mcp_stream_free,
    .digest = NULL,
};
