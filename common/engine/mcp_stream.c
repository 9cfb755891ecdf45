/* MCP's half of the conversation engine: the pairing of JSON-RPC requests and responses, session
 * by session. A request is in progress from its record until the other side's response with its
 * id; the sides number their ids each on its own (both SDKs count from 0), so a request is known
 * by its session, the side that sent it and its id.
 *
 * A capture says the side and the session. Bare JSON-RPC lines say neither: the lines of a file
 * are one session, a request's method says its side where one side alone sends it (the profile's
 * lists), and a response answers the request in progress with its id, whichever side sent it; when
 * both sides have one, the later (a request made while another is being handled is answered
 * first, as a server's sampling/createMessage within the client's tools/call). What needs a side
 * the lines do not give is not checked (acp-validate(1), BARE JSON-RPC LINES). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "diag/findings.h"
#include "engine/mcp_stream_parts.h"
#include "proto/dialect.h"

static const char *pending_key(const struct hash_node *node)
{
    return HASH_ITEM(node, const struct pending, node)->key;
}

static struct pending *pending_find(const struct mcp_stream *s, const char *key, size_t hash)
{
    return HASH_ITEM(hashtab_find_hashed(&s->pending, key, hash), struct pending, node);
}

static struct pending *pending_get(const struct mcp_stream *s, const char *key)
{
    return pending_find(s, key, hashtab_hash(key));
}

static struct mcp_stream *of(struct stream *s)
{
    return (struct mcp_stream *)s;
}

static struct stream *mcp_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                     void *ctx)
{
    struct mcp_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    s->done = done;
    s->done_ctx = ctx;
    s->named = (struct strbuf)STRBUF_INIT;
    s->pending = (struct hashtab){.key = pending_key};
    s->sessions = strmap_new();
    s->tokens = strmap_new();
    s->tasks = strmap_new();
    s->files = strmap_new();
    if (!siphash_key_draw(&s->secret))
        die_oom();
    s->session_raw = s->request_raw = s->token_raw = s->shown = (struct strbuf)STRBUF_INIT;
    s->now = NAN;
    return (struct stream *)s;
}

const char *mcp_file_copy(struct mcp_stream *s, const char *file)
{
    if (!file)
        return NULL;
    if (s->last_file && strcmp(s->last_file, file) == 0)
        return s->last_file;
    char *kept = strmap_get(s->files, file);
    if (!kept) {
        kept = xstrdup(file);
        strmap_put(s->files, kept, kept);
    }
    return s->last_file = kept;
}

/* The key of m's session, valid until the next message: a capture's session (with its connection,
 * where one session carries several), or the file of bare lines. */
static const char *session_key_of(struct mcp_stream *s, const struct message *m)
{
    struct strbuf *raw = &s->session_raw;
    sb_reset(raw);
    const char *session = message_session(m);
    if (session) {
        const char *connection = message_connection(m);
        if (connection) /* the session's length first: no choice of names makes two pairs one */
            sb_addf(raw, "h%zu:", strlen(session));
        else
            sb_addc(raw, 'c');
        sb_adds(raw, session);
        if (connection)
            sb_adds(raw, connection);
    } else {
        sb_addc(raw, 'f');
        sb_adds(raw, m->at.file ? m->at.file : "");
    }
    size_t len;
    return key_form(&s->secret, raw->buf, raw->len, &s->session_buf, &len);
}

/* Appends n in decimal: a key is made for every request and response, and printf's machinery
 * cost more than the rest of the key. */
static void add_integer(struct strbuf *sb, json_int_t n)
{
    char digits[24];
    size_t at = sizeof digits;
    unsigned long long magnitude = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
    do
        digits[--at] = (char)('0' + magnitude % 10);
    while ((magnitude /= 10) != 0);
    if (n < 0)
        digits[--at] = '-';
    sb_add(sb, digits + at, sizeof digits - at);
}

/* Appends an id (or a token), a string or an integer, as its JSON text, so that 1 and "1" stay
 * apart. */
static void add_id(struct strbuf *sb, const struct jv *id)
{
    if (jv_is_string(id)) {
        sb_addc(sb, '"');
        sb_add(sb, jv_string_value(id), jv_string_length(id));
    } else {
        add_integer(sb, jv_integer_value(id));
    }
}

/* The key of the request of side with id in the session of session_key, valid until the next
 * key: the id as its JSON text, so that 1 and "1" stay apart, the whole in keyform. */
static const char *request_key(struct mcp_stream *s, const char *session_key, enum side side,
                               const struct jv *id)
{
    struct strbuf *raw = &s->request_raw;
    sb_reset(raw);
    sb_adds(raw, session_key);
    sb_addc(raw, '\x1f');
    sb_addc(raw, (char)side);
    add_id(raw, id);
    size_t len;
    return key_form(&s->secret, raw->buf, raw->len, &s->request_buf, &len);
}

const char *mcp_side_scope(enum side side)
{
    switch (side) {
    case SIDE_CLIENT:
        return "c";
    case SIDE_SERVER:
        return "s";
    case SIDE_UNKNOWN:
        break;
    }
    return "u";
}

const char *mcp_scoped_key(struct mcp_stream *s, const struct fed *f, const char *scope,
                           const struct jv *value)
{
    struct strbuf *raw = &s->token_raw;
    sb_reset(raw);
    sb_adds(raw, f->session_key);
    sb_addc(raw, '\x1f');
    sb_adds(raw, scope);
    sb_addc(raw, '\x1f');
    add_id(raw, value);
    size_t len;
    return key_form(&s->secret, raw->buf, raw->len, &s->token_buf, &len);
}

static struct session *session_get(struct mcp_stream *s, const char *key)
{
    return strmap_get(s->sessions, key);
}

/* A session without requests in progress, a revision or a lifecycle begun holds nothing worth its
 * memory. */
static void session_release_if_idle(struct mcp_stream *s, struct session *sess)
{
    if (sess == s->feeding || sess->first || sess->revision[0] || sess->phase != PHASE_NEW ||
        sess->started)
        return;
    strmap_remove(s->sessions, sess->key);
    free(sess);
}

static bool drop_idle(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    struct session *sess = value;
    if (sess->first)
        return false;
    free(sess);
    return true;
}

/* The session of key, made when it is new. What is kept stays bounded: past twice --max-open
 * sessions, those with nothing in progress are forgotten with their revisions (those with
 * requests in progress are at most --max-open). */
static struct session *session_make(struct mcp_stream *s, const char *key)
{
    struct session *sess = session_get(s, key);
    if (sess)
        return sess;
    if (strmap_size(s->sessions) >= 2 * s->cfg->max_open)
        strmap_sweep(s->sessions, drop_idle, s);
    size_t len = strlen(key);
    sess = xcalloc(1, sizeof *sess + len + 1);
    memcpy(sess->key, key, len + 1);
    strmap_put(s->sessions, key, sess);
    return sess;
}

static void list_append(struct pending_list *l, struct pending *p)
{
    p->prev = l->last;
    p->next = NULL;
    *(l->last ? &l->last->next : &l->first) = p;
    l->last = p;
}

static void list_remove(struct pending_list *l, struct pending *p)
{
    *(p->prev ? &p->prev->next : &l->first) = p->next;
    *(p->next ? &p->next->prev : &l->last) = p->prev;
    p->prev = p->next = NULL;
}

static struct pending_list *list_of(struct mcp_stream *s, const struct pending *p)
{
    return p->told ? &s->told : &s->waiting;
}

static void unlink_pending(struct mcp_stream *s, struct pending *p)
{
    struct session *sess = p->session;
    *(p->sprev ? &p->sprev->snext : &sess->first) = p->snext;
    *(p->snext ? &p->snext->sprev : &sess->last) = p->sprev;
    list_remove(list_of(s, p), p);
    hashtab_remove_hashed(&s->pending, &p->node, p->hash);
    mcp_progress_closed(s, p);
    s->npending--;
    free(p->task_key);
    mcp_story_free(p);
    pool_put(&s->pool, p, p->size_class);
    session_release_if_idle(s, sess);
}

/* Its first 80 bytes. */
const char *mcp_method_shown(struct mcp_stream *s, const struct pending *p)
{
    sb_reset(&s->shown);
    if (p->has_method)
        escape_text(&s->shown, p->method, p->method_len, 80);
    else
        sb_adds(&s->shown, "(no method)");
    return s->shown.buf;
}

/* "the client's request", "the server's request", or "the request" of a side bare lines do not
 * say, for a diagnostic. */
static const char *whose(const struct pending *p)
{
    switch (p->side) {
    case SIDE_CLIENT:
        return "the client's request";
    case SIDE_SERVER:
        return "the server's request";
    case SIDE_UNKNOWN:
        break;
    }
    return "the request";
}

/* The revision a session is checked as: --mcp-revision's, else what its initialize agreed, else
 * NULL. */
static const char *revision_of(struct mcp_stream *s, const struct session *sess)
{
    if (s->cfg->mcp_revision)
        return s->cfg->mcp_revision;
    return sess && sess->revision[0] ? sess->revision : NULL;
}

const char *mcp_session_revision(struct mcp_stream *s, const struct session *sess)
{
    return revision_of(s, sess);
}

bool mcp_session_of_2026(struct mcp_stream *s, const struct session *sess)
{
    const char *revision = revision_of(s, sess);
    return revision && strcmp(revision, "2026-07-28") >= 0;
}

bool mcp_session_holds_ids(struct mcp_stream *s, const struct session *sess)
{
    return mcp_revision_has_sessions(revision_of(s, sess));
}

/* The revision a session agreed on: the protocolVersion of the server's result to initialize. */
static void agree_revision(struct session *sess, const struct jv *response)
{
    const struct jv *version = jv_object_get(jv_object_get(response, "result"), "protocolVersion");
    if (!jv_is_string(version) || jv_string_length(version) > REVISION_MAX)
        return;
    memcpy(sess->revision, jv_string_value(version), jv_string_length(version) + 1);
}

/* Forgets p, the oldest request in progress, so that what is kept stays bounded; its response
 * is still taken when it comes (among the latest --max-open forgotten). */
static void forget(struct mcp_stream *s, struct pending *p, struct diag_sink *sink)
{
    struct diag_where at = {.file = p->file, .line = p->line};
    s->blame = p;
    diag_emit(sink, &at, "mcp-evicted",
              "%s '%s' is forgotten, more than --max-open=%lu being in progress", whose(p),
              mcp_method_shown(s, p), s->cfg->max_open);
    s->blame = NULL;
    mcp_story_end(s, p, "evicted", NULL, NULL);
    key_ring_put_hashed(&s->forgotten, s->cfg->max_open, p->key, p->hash, p->file, p->line);
    unlink_pending(s, p);
}

/* The request that has been in progress the longest, told late or not. */
static struct pending *oldest(struct mcp_stream *s)
{
    struct pending *waiting = s->waiting.first, *told = s->told.first;
    if (!waiting || !told)
        return waiting ? waiting : told;
    return told->order < waiting->order ? told : waiting;
}

/* Reports an id reused by the sender of a request whose key is in progress or was answered. */
static bool reused(struct mcp_stream *s, const struct fed *f, const char *key, size_t hash,
                   enum side side, struct diag_sink *sink)
{
    struct pending *was = pending_find(s, key, hash);
    const char *sender = side == SIDE_SERVER ? "server" : "client";
    struct diag_where at = f->m->at;
    if (was) {
        at.related_file = was->file != at.file ? was->file : NULL;
        at.related_line = was->line;
        diag_emit(sink, &at, "mcp-id-reused",
                  "the %s reuses the id of its request '%s', still in progress", sender,
                  mcp_method_shown(s, was));
        mcp_story_end(s, was, "reused", NULL, NULL);
        unlink_pending(s, was);
        return true;
    }
    const struct ring_entry *used = key_ring_get_hashed(&s->used, key, hash);
    if (!used || !mcp_revision_has_sessions(revision_of(s, f->session)))
        return false;
    at.related_file = used->file != at.file ? used->file : NULL;
    at.related_line = used->line;
    diag_emit(sink, &at, "mcp-id-reused",
              "the %s reuses the id of an earlier request of the session", sender);
    return true;
}

static struct pending *pending_new(struct mcp_stream *s, const char *key, const struct jv *method)
{
    size_t key_len = strlen(key);
    size_t method_len =
        jv_is_string(method) ? key_shown_len(jv_string_value(method), jv_string_length(method)) : 0;
    unsigned char size_class;
    struct pending *p =
        pool_get_zeroed(&s->pool, sizeof *p + key_len + 1 + method_len + 1, &size_class);
    p->size_class = size_class;
    memcpy(p->key, key, key_len + 1);
    p->method = p->key + key_len + 1;
    p->has_method = jv_is_string(method);
    p->method_len = method_len;
    if (method_len)
        memcpy(p->method, jv_string_value(method), method_len);
    p->method[method_len] = '\0';
    return p;
}

static void open_request(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                         const struct jv *id, struct diag_sink *sink)
{
    const struct jv *method = jv_object_get(msg, "method");
    enum side side = mcp_sender_side(f, msg);
    const char *key = request_key(s, f->session_key, side, id);
    size_t hash = hashtab_hash(key);
    struct session *sess = f->session;
    if (side == SIDE_UNKNOWN) {
        struct pending *twin = pending_find(s, key, hash);
        if (twin) { /* the other side's, or the same side's id reused: no line says which */
            twin->twins++;
            return;
        }
    } else {
        reused(s, f, key, hash, side, sink);
    }
    struct pending *p = pending_new(s, key, method);
    p->hash = (uint32_t)hash;
    p->session = sess;
    p->file = mcp_file_copy(s, f->m->at.file);
    p->line = f->m->at.line;
    p->order = s->opened++;
    p->sent = f->m->capture.time;
    p->side = side;
    p->initialize = side == SIDE_CLIENT && jv_string_is(method, "initialize");
    list_append(&s->waiting, p);
    p->sprev = sess->last;
    *(sess->last ? &sess->last->snext : &sess->first) = p;
    sess->last = p;
    hashtab_add_hashed(&s->pending, &p->node, hash);
    p->task_augmented = jv_is_object(jv_object_get(jv_object_get(msg, "params"), "task"));
    mcp_progress_opened(s, f, p, msg, sink);
    mcp_stateless_opened(s, f, p, msg, sink);
    mcp_caching_opened(s, f, p, msg);
    mcp_tasks_opened(s, f, p, msg, sink);
    mcp_story_open(s, f, p, msg, id);
    if (++s->npending > s->cfg->max_open)
        forget(s, oldest(s), sink);
}

/* The requests in progress with id in f's session, of each side and of one unknown, into found;
 * returns the latest. */
static struct pending *bare_candidates(struct mcp_stream *s, const struct fed *f,
                                       const struct jv *id, struct pending *found[3])
{
    static const enum side sides[] = {SIDE_CLIENT, SIDE_SERVER, SIDE_UNKNOWN};
    struct pending *latest = NULL;
    for (size_t i = 0; i < 3; i++) {
        found[i] = pending_get(s, request_key(s, f->session_key, sides[i], id));
        if (found[i] && (!latest || found[i]->order > latest->order))
            latest = found[i];
    }
    return latest;
}

/* The request a response answers in bare lines: of the requests in progress with its id, of
 * either side or of one unknown, the latest; the others are noted as maybe answered. */
static struct pending *bare_answered(struct mcp_stream *s, const struct fed *f, const struct jv *id,
                                     bool *guessed)
{
    struct pending *found[3];
    struct pending *latest = bare_candidates(s, f, id, found);
    *guessed = false;
    for (size_t i = 0; i < 3; i++)
        if (found[i] && found[i] != latest) {
            found[i]->maybe_answered_line = latest->line;
            *guessed = true;
        }
    return latest;
}

struct pending *mcp_request_of(struct mcp_stream *s, const struct fed *f, enum side asker,
                               const struct jv *id)
{
    if (!jv_is_string(id) && !jv_is_integer(id))
        return NULL;
    struct pending *found[3];
    if (asker == SIDE_UNKNOWN)
        return bare_candidates(s, f, id, found);
    return pending_get(s, request_key(s, f->session_key, asker, id));
}

static enum side side_said(enum jsonrpc_side side)
{
    switch (side) {
    case JSONRPC_CLIENT:
        return SIDE_CLIENT;
    case JSONRPC_SERVER:
        return SIDE_SERVER;
    case JSONRPC_EITHER:
        break;
    }
    return SIDE_UNKNOWN;
}

enum side mcp_sender_side(const struct fed *f, const struct jv *msg)
{
    if (f->side != SIDE_UNKNOWN)
        return f->side;
    const struct jv *method = jv_object_get(msg, "method");
    if (!method)
        return SIDE_UNKNOWN; /* a response: the side of its request says */
    return side_said(jv_object_get(msg, "id") ? jsonrpc_request_side(&mcp_profile, method)
                                              : jsonrpc_notification_side(&mcp_profile, method));
}

/* Whether the request of asker with id is remembered in ring. */
static bool in_ring(struct mcp_stream *s, const struct key_ring *ring, const struct fed *f,
                    enum side asker, const struct jv *id)
{
    if (asker != SIDE_UNKNOWN)
        return key_ring_get(ring, request_key(s, f->session_key, asker, id));
    return key_ring_get(ring, request_key(s, f->session_key, SIDE_CLIENT, id)) ||
           key_ring_get(ring, request_key(s, f->session_key, SIDE_SERVER, id)) ||
           key_ring_get(ring, request_key(s, f->session_key, SIDE_UNKNOWN, id));
}

/* Whether a response with id answers a request forgotten past --max-open (said so then). */
static bool answers_forgotten(struct mcp_stream *s, const struct fed *f, enum side asker,
                              const struct jv *id)
{
    return in_ring(s, &s->forgotten, f, asker, id);
}

bool mcp_request_ended(struct mcp_stream *s, const struct fed *f, enum side asker,
                       const struct jv *id)
{
    return in_ring(s, &s->used, f, asker, id) || in_ring(s, &s->forgotten, f, asker, id);
}

static void tell_no_request(const struct fed *f, enum side asker, struct diag_sink *sink)
{
    if (asker == SIDE_UNKNOWN) {
        diag_emit(sink, &f->m->at, "jsonrpc-no-request",
                  "a response answers no request in progress with its id (never sent, a "
                  "notification, or answered already)");
        return;
    }
    diag_emit(sink, &f->m->at, "jsonrpc-no-request",
              "the %s answers a request of the %s that is not in progress (never sent, a "
              "notification, or answered already)",
              asker == SIDE_CLIENT ? "server" : "client",
              asker == SIDE_CLIENT ? "client" : "server");
}

static void answer(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                   const struct jv *id, struct diag_sink *sink)
{
    enum side asker = mcp_other_side(f->side);
    bool guessed = false;
    struct pending *p = asker == SIDE_UNKNOWN
                            ? bare_answered(s, f, id, &guessed)
                            : pending_get(s, request_key(s, f->session_key, asker, id));
    if (!p) {
        if (!answers_forgotten(s, f, asker, id))
            tell_no_request(f, asker, sink);
        return;
    }
    if (p->twins) {
        p->twins--;
        return;
    }
    mcp_rules_answered(s, f, p, msg, sink);
    mcp_story_end(s, p, jv_object_get(msg, "error") ? "failed" : "done", msg, f);
    if (p->initialize)
        agree_revision(p->session, msg);
    /* an id is remembered as used where its sender is known, its response sure, and its session
     * holds its ids to its end */
    if (p->side != SIDE_UNKNOWN && !guessed &&
        mcp_revision_has_sessions(revision_of(s, p->session)))
        key_ring_put_hashed(&s->used, s->cfg->max_open, p->key, p->hash, p->file, p->line);
    unlink_pending(s, p);
}

/* Tells that p was never answered: at the end of the input, or at its session's end. */
static void tell_unanswered(struct mcp_stream *s, struct pending *p, const struct diag_where *end,
                            struct diag_sink *sink)
{
    if (p->cancelled_file || p->torn_down)
        return; /* the receiver of a cancellation SHOULD not answer: none is owed */
    struct diag_where at = {.file = p->file, .line = p->line};
    const char *when = "";
    if (p->maybe_answered_line) {
        at.related_line = p->maybe_answered_line;
        when = ", or the one a response answered in its place (bare lines do not say which)";
    } else if (end) {
        at.related_file = end->file != p->file ? end->file : NULL;
        at.related_line = end->line;
        when = " before its session ended";
    }
    s->blame = p;
    diag_emit(sink, &at, "jsonrpc-unanswered", "%s '%s' was never answered%s", whose(p),
              mcp_method_shown(s, p), when);
    s->blame = NULL;
}

/* p leaves, unanswered: the input ended (open), or its session did (unanswered); a request its
 * sender cancelled is owed nothing, and ends cancelled. */
static void end_unanswered(struct mcp_stream *s, struct pending *p, const char *outcome)
{
    mcp_story_end(s, p, p->cancelled_file ? "cancelled" : outcome, NULL, NULL);
    unlink_pending(s, p);
}

/* Moves message time to now, and tells each request in progress that has waited longer than
 * --request-timeout since, once. */
static void expire(struct mcp_stream *s, double now, struct diag_sink *sink)
{
    if (!(now <= s->now))
        s->now = now;
    struct pending *p;
    while ((p = s->waiting.first) && p->sent + s->cfg->request_timeout < s->now) {
        struct diag_where at = {.file = p->file, .line = p->line};
        char waited[32]; /* the diagnostics' own format has no %g */
        snprintf(waited, sizeof waited, "%g", s->cfg->request_timeout);
        s->blame = p;
        if (!p->cancelled_file && !p->torn_down) /* given up on already */
            diag_emit(sink, &at, "mcp-request-timeout",
                      "%s '%s' has had no response for %ss (--request-timeout)", whose(p),
                      mcp_method_shown(s, p), waited);
        s->blame = NULL;
        list_remove(&s->waiting, p);
        p->told = true;
        list_append(&s->told, p);
    }
}

/* Opens a request, or answers one, by msg: f's message, or a message of its batch. */
static void pair(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                 struct diag_sink *sink)
{
    const struct jv *id = jv_object_get(msg, "id");
    if (!jv_is_string(id) && !jv_is_integer(id))
        return; /* a notification, or an id its own check rejected */
    if (jv_object_get(msg, "method"))
        open_request(s, f, msg, id, sink);
    else
        answer(s, f, msg, id, sink);
}

/* Batches are MCP's in its 2025-03-26 revision alone: it added them, 2025-06-18 took them out. */
static void check_batch_revision(struct mcp_stream *s, const struct fed *f, struct diag_sink *sink)
{
    const char *revision = revision_of(s, f->session);
    if (!revision || strcmp(revision, "2025-03-26") == 0)
        return;
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, revision, strlen(revision), REVISION_MAX);
    diag_emit(sink, &f->m->at, "mcp-batch",
              "a batch in a session of revision %s: only 2025-03-26 has batches", shown.buf);
    sb_free(&shown);
}

static enum side capture_side(const struct message *m)
{
    if (!m->capture.present)
        return SIDE_UNKNOWN;
    return m->capture.out ? SIDE_SERVER : SIDE_CLIENT; /* the tapped agent is the server */
}

/* The session of f's message, made when it is new; bare lines begin theirs with their file. */
static struct session *session_of(struct mcp_stream *s, const struct fed *f)
{
    struct session *sess = session_get(s, f->session_key);
    if (!sess) {
        sess = session_make(s, f->session_key);
        sess->started = !f->m->capture.present;
    }
    return sess;
}

/* Checks msg, f's message or one of its batch, and pairs it. */
static void follow(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                   struct diag_sink *sink)
{
    mcp_rules_check(s, f, msg, sink);
    pair(s, f, msg, sink);
}

static const char *mcp_stream_feed(struct stream *stream, const struct message *m,
                                   struct diag_sink *sink)
{
    struct mcp_stream *s = of(stream);
    if (m->capture.event)
        return NULL;
    if (!isnan(m->capture.time))
        expire(s, m->capture.time, sink);
    struct fed f = {.m = m, .session_key = session_key_of(s, m), .side = capture_side(m)};
    f.session = session_of(s, &f);
    s->feeding = f.session; /* no request of it that ends frees it before the message is done */
    s->has_named = false;
    if (!jv_is_array(m->view)) {
        follow(s, &f, m->view, sink);
    } else {
        check_batch_revision(s, &f, sink);
        for (const struct jv *e = jv_array_first(m->view); e; e = jv_array_next(m->view, e))
            if (jv_is_object(e))
                follow(s, &f, e, sink);
    }
    s->feeding = NULL;
    session_release_if_idle(s, f.session);
    findings_free(s->held); /* about no request: told, and kept by none */
    s->held = NULL;
    return s->has_named ? s->named.buf : NULL;
}

/* A session's start is where its lifecycle is checked from. */
static void session_started(struct mcp_stream *s, const struct message *m)
{
    const char *key = session_key_of(s, m);
    struct session *sess = session_get(s, key);
    if (sess) /* a session of this name went on before: its records no longer start it */
        return;
    session_make(s, key)->started = true;
}

/* A session's end ends what is in progress in it: each request not told late yet is told
 * unanswered, at its record; the session is forgotten, its revision with it. */
static void session_ended(struct mcp_stream *s, const struct message *m, struct diag_sink *sink)
{
    struct session *sess = session_get(s, session_key_of(s, m));
    if (!sess)
        return;
    sess->revision[0] = '\0'; /* so that it goes with its last request */
    sess->phase = PHASE_NEW;
    sess->started = false;
    while (sess->first) {
        struct pending *p = sess->first;
        bool last = p == sess->last;
        if (!p->told)
            tell_unanswered(s, p, &m->at, sink);
        end_unanswered(s, p, "unanswered");
        if (last)
            return; /* the session went with it */
    }
    session_release_if_idle(s, sess);
}

static void mcp_stream_session_event(struct stream *stream, const struct message *m,
                                     struct diag_sink *sink)
{
    struct mcp_stream *s = of(stream);
    if (m->capture.starts_session)
        session_started(s, m);
    if (m->capture.ends_session)
        session_ended(s, m, sink);
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
    mcp_story_note(of(stream), finding);
}

static void mcp_stream_finish(struct stream *stream, struct diag_sink *sink)
{
    struct mcp_stream *s = of(stream);
    while (s->waiting.first) {
        tell_unanswered(s, s->waiting.first, NULL, sink);
        end_unanswered(s, s->waiting.first, "open");
    }
    while (s->told.first) /* told late already */
        end_unanswered(s, s->told.first, "open");
}

static void mcp_stream_hand_over(struct stream *stream)
{
    struct mcp_stream *s = of(stream);
    while (s->waiting.first)
        end_unanswered(s, s->waiting.first, "open");
    while (s->told.first)
        end_unanswered(s, s->told.first, "open");
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
    const struct pending *first = s->waiting.first;
    return first && !isnan(first->sent) ? first->sent + s->cfg->request_timeout : INFINITY;
}

static void free_file(void *file)
{
    free(file);
}

static void mcp_stream_free(struct stream *stream)
{
    struct mcp_stream *s = of(stream);
    while (s->waiting.first)
        unlink_pending(s, s->waiting.first);
    while (s->told.first)
        unlink_pending(s, s->told.first);
    hashtab_free(&s->pending, NULL);
    pool_free(&s->pool);
    strmap_free(s->sessions, free);
    strmap_free(s->tokens, NULL);
    mcp_tasks_free(s);
    strmap_free(s->files, free_file);
    key_ring_free(&s->used);
    key_ring_free(&s->forgotten);
    key_ring_free(&s->cursors);
    sb_free(&s->session_raw);
    sb_free(&s->request_raw);
    sb_free(&s->token_raw);
    sb_free(&s->shown);
    sb_free(&s->named);
    findings_free(s->held);
    free(s);
}

const struct stream_ops mcp_stream_ops = {
    .proto = PROTO_MCP,
    .open = mcp_stream_new,
    .feed = mcp_stream_feed,
    .failed = mcp_stream_failed,
    .note = mcp_stream_note,
    .session_event = mcp_stream_session_event,
    .finish = mcp_stream_finish,
    .hand_over = mcp_stream_hand_over,
    .now = mcp_stream_now,
    .advance = mcp_stream_advance,
    .next_due = mcp_stream_next_due,
    .free = mcp_stream_free,
    .digest = NULL,
};
