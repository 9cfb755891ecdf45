#include "proto/convert.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/jsonout.h"
#include "base/list.h"
#include "base/streamclock.h"
#include "base/timeutil.h"
#include "proto/iacp.h"
#include "proto/idgen.h"
#include "proto/memberlist.h"

/* The most bytes the texts of the remembered messages (conversation, cancel, cancel_to) may
 * hold: the least recently used go first past it. Those texts are written out as they are, so
 * they cannot be digests; the keys are (keyform.h). */
enum { REMEMBERED_TEXT_MAX = 16 << 20 };

/* A message remembered by its sender and id: one allocation that holds its key. */
struct remembered {
    struct hash_node node;
    struct list_link age; /* in converter.by_age */
    char *conversation;   /* the conversation_id of its conversation */
    char *cancel;         /* an assign: the id of the latest task.cancel sent for it, or NULL */
    char *cancel_to;      /* and whom that cancel went to */
    double seen;          /* message time it was last used; -INFINITY before any */
    size_t text_bytes;    /* of its texts */
    uint32_t hash;        /* of its key: forgotten without reading the key again */
    char key[]; /* sender "/" id (message_conversation_id), in the form it is remembered by */
};

struct converter {
    struct convert_config cfg;
    struct hashtab conversations; /* of struct remembered, by key */
    /* The same, least recently used first: message time does not go back once two senders
     * agreed on it (streamclock.h), so this is the order of seen, and expiry takes from the
     * front. (A provisional time may go back: a lookup checks idleness itself.) */
    struct list by_age;
    struct idgen *ids; /* the ids of the IACP written, and fresh ones */
    /* Message time is the stream clock (streamclock.h), so that one far-future ts does not make
     * the converter forget every conversation, nor one sender's clock the others'. */
    struct clock_book *clock;
    double now; /* message time; NAN before any */
    struct strbuf key, answered_key;
    size_t text_bytes;         /* of the texts of every remembered message */
    struct siphash_key secret; /* the digests of long keys */
    struct key_form_buf key_form, answered_form;
    /* The timestamp written last, and its second: a capture's messages come many to a second,
     * so most are written from here without formatting them again. */
    long long stamp_second;
    json_t *stamp;
};

static const char *remembered_key(const struct hash_node *node)
{
    return HASH_ITEM(node, struct remembered, node)->key;
}

static void free_remembered(struct hash_node *node)
{
    struct remembered *r = HASH_ITEM(node, struct remembered, node);
    free(r->conversation);
    free(r->cancel);
    free(r->cancel_to);
    free(r);
}

struct converter *converter_new(const struct convert_config *cfg)
{
    struct converter *c = xcalloc(1, sizeof *c);
    c->cfg = *cfg;
    c->conversations.key = remembered_key;
    struct idgen_config ids = {
        .seed = cfg->seed, .keep_for = cfg->idle_timeout, .max_ids = cfg->max_open};
    c->ids = idgen_new(&ids);
    c->clock = clock_book_quiet(cfg->clock_skew, cfg->max_open);
    c->now = NAN;
    key_secret_draw(&c->secret);
    return c;
}

void converter_free(struct converter *c)
{
    if (!c)
        return;
    for (struct list_link *n; (n = list_pop(&c->by_age));)
        free_remembered(&LIST_ITEM(n, struct remembered, age)->node);
    hashtab_free(&c->conversations, NULL);
    idgen_free(c->ids);
    clock_book_free(c->clock);
    sb_free(&c->key);
    sb_free(&c->answered_key);
    json_decref(c->stamp);
    free(c);
}

/* --- remembering conversations --- */

static void forget_one(struct converter *c, struct remembered *r)
{
    list_remove(&c->by_age, &r->age);
    hashtab_remove_hashed(&c->conversations, &r->node, r->hash);
    c->text_bytes -= r->text_bytes;
    free_remembered(&r->node);
}

/* Forgets idle conversations, then the least recently used until at most max_open are left and
 * their texts within REMEMBERED_TEXT_MAX: a few from the front of by_age per message, never a
 * pass over them all. */
static void forget(struct converter *c)
{
    double idle_before = isnan(c->now) ? -INFINITY : c->now - c->cfg.idle_timeout;
    struct remembered *oldest;
    while ((oldest = LIST_ITEM(c->by_age.head, struct remembered, age)) &&
           (oldest->seen < idle_before || c->conversations.size > c->cfg.max_open ||
            c->text_bytes > REMEMBERED_TEXT_MAX))
        forget_one(c, oldest);
    /* At the bound, one goes a message, cold by then: the slot of the next is asked for now, and
     * the record after it (whose link and hash are read then). */
    if (oldest && c->conversations.size >= c->cfg.max_open) {
        if (oldest->age.next)
            prefetch(LIST_ITEM(oldest->age.next, struct remembered, age));
        hashtab_prefetch(&c->conversations, oldest->hash);
    }
}

/* Sets one of r's texts (NULL: none), counting what the texts hold. */
static void set_text(struct converter *c, struct remembered *r, char **text, const char *value)
{
    size_t before = *text ? strlen(*text) : 0, after = value ? strlen(value) : 0;
    char *copy = value ? xstrdup(value) : NULL; /* value may be the text it replaces */
    free(*text);
    *text = copy;
    r->text_bytes += after - before;
    c->text_bytes += after - before;
}

/* Marks r used at message time now. */
static void touch(struct converter *c, struct remembered *r, double now)
{
    r->seen = now;
    list_remove(&c->by_age, &r->age);
    list_append(&c->by_age, &r->age);
}

/* A key (in sb) in the form it is remembered by, in buf when it is long. */
static const char *key_kept(const struct converter *c, const struct strbuf *key,
                            struct key_form_buf *buf, size_t *len)
{
    return key_form(&c->secret, key->buf, key->len, buf, len);
}

/* The message remembered by key (in sb), or NULL. */
static struct remembered *recall(struct converter *c, const struct strbuf *key)
{
    size_t len;
    const char *kept = key_kept(c, key, &c->answered_form, &len);
    return HASH_ITEM(hashtab_find_hashed(&c->conversations, kept, hashtab_hash_len(kept, len)),
                     struct remembered, node);
}

/* The message remembered by key, remembered now if it was not (its fields all empty): one
 * lookup, and the key hashed once. */
static struct remembered *recall_or_add(struct converter *c, const struct strbuf *key, bool *added)
{
    size_t len;
    const char *kept = key_kept(c, key, &c->key_form, &len);
    size_t hash = hashtab_hash_len(kept, len);
    struct hash_node *node = hashtab_find_hashed(&c->conversations, kept, hash);
    *added = !node;
    if (node)
        return HASH_ITEM(node, struct remembered, node);
    struct remembered *r = xcalloc(1, sizeof *r + len + 1);
    memcpy(r->key, kept, len + 1);
    r->seen = -INFINITY;
    r->hash = (uint32_t)hash;
    hashtab_add_new(&c->conversations, &r->node, hash);
    list_append(&c->by_age, &r->age);
    return r;
}

/* An agent's name and an id it chose, as a conversation_id: the name with % and / written %25
 * and %2F, a "/", then the id as it is. Ids are unique per sender only, so the name makes the
 * conversation_id unique, and the first "/" tells where the name ends. */
/* Reads a message's time, by its sender's clock, on the stream clock: every message converted
 * passes here once, before anything is remembered of it. A message without sender or time moves
 * nothing. */
static void read_clock(struct converter *c, const char *sender, bool timed, double ts)
{
    if (!sender || !timed)
        return;
    clock_book_observe(c->clock, sender, ts);
    c->now = clock_book_now(c->clock);
}

/* An IACP ts (when it is a number) as message time: seconds, milliseconds above 10^11, none
 * above 10^14 (iacp.h). */
static bool ts_seconds(bool number, double value, double *ts)
{
    if (!number || !(value >= 0 && value <= UNIX_NO_TIME_ABOVE))
        return false;
    *ts = value > UNIX_MILLISECONDS_ABOVE ? value / 1000 : value;
    return true;
}

static bool iacp_view_time(const struct jv *iacp, double *ts)
{
    const struct jv *v = jv_object_get(iacp, "ts");
    return ts_seconds(jv_is_number(v), jv_number_value(v), ts);
}

/* What the converter needs of an IACP message to follow it. */
struct envelope {
    enum iacp_kind kind;
    const char *id, *from, *to, *ref;
};

static struct envelope view_envelope(const struct jv *iacp, enum iacp_kind kind)
{
    return (struct envelope){
        .kind = kind,
        .id = jv_member_string(iacp, "id"),
        .from = jv_member_string(iacp, "from"),
        .to = jv_member_string(iacp, "to"),
        .ref = jv_member_string(iacp, "ref"),
    };
}

struct followed {
    const char *conversation;    /* NULL for a message without id; valid until the next call */
    struct remembered *answered; /* the message its ref names, when remembered */
};

/* Follows a message along the stream: remembers it by its sender and id, in the conversation
 * of the message its ref names (sent by the agent it answers; a task.cancel names its sender's
 * own assign), or, when that message is not remembered (forgotten, or before the capture
 * started), in the conversation that message would have opened. */
static struct followed follow(struct converter *c, const struct envelope *e)
{
    struct followed f = {NULL, NULL};
    forget(c);
    double now = isnan(c->now) ? -INFINITY : c->now;
    if (e->ref) {
        const char *owner = e->kind == IACP_TASK_CANCEL ? e->from : e->to;
        message_conversation_id(&c->answered_key, owner, e->ref);
        f.answered = recall(c, &c->answered_key);
        if (f.answered && f.answered->seen < now - c->cfg.idle_timeout)
            f.answered = NULL; /* idle too long: forgotten, even if still behind a newer one */
        if (f.answered)
            touch(c, f.answered, now);
    }
    if (!e->id)
        return f;
    const char *own = message_conversation_id(&c->key, e->from, e->id);
    const char *conversation = f.answered ? f.answered->conversation
                               : e->ref   ? c->answered_key.buf
                                          : own;
    bool added;
    struct remembered *r = recall_or_add(c, &c->key, &added);
    if (!added && r != f.answered) { /* an id used again: a new message */
        set_text(c, r, &r->cancel, NULL);
        set_text(c, r, &r->cancel_to, NULL);
    }
    set_text(c, r, &r->conversation, conversation);
    touch(c, r, now);
    if (e->kind == IACP_TASK_CANCEL && f.answered && f.answered != r) {
        set_text(c, f.answered, &f.answered->cancel, e->id);
        set_text(c, f.answered, &f.answered->cancel_to, e->to);
    }
    f.conversation = r->conversation;
    return f;
}

/* Makes conversation that of the message from sender with id, as a message that said so
 * (x-fipa-conversation_id) has it, so that the replies to it follow it too. */
static void correct_conversation(struct converter *c, const char *sender, const char *id,
                                 const char *conversation)
{
    message_conversation_id(&c->key, sender, id);
    struct remembered *r = recall(c, &c->key);
    if (r && strcmp(r->conversation, conversation) != 0)
        set_text(c, r, &r->conversation, conversation);
}

/* --- small JSON helpers --- */

/* Every key and string this file gives jansson is valid UTF-8 already: a name of ours, or made
 * of the input's, which jansson (or the string form's parser) validated. So the _nocheck
 * calls: validating again cost more than setting the member. */
static json_t *valid_string(const char *s)
{
    return s ? json_stringn_nocheck(s, strlen(s)) : NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is(const char *key, const char *name)
{
    return key[0] == name[0] && strcmp(key, name) == 0; /* most keys differ at once */
}

/* prefix and name, in small when they fit (free the result unless it is small). */
static char *prefixed(char small[64], const char *prefix, const char *name)
{
    size_t prefix_len = strlen(prefix), name_len = strlen(name);
    char *key = prefix_len + name_len < 64 ? small : xmalloc(prefix_len + name_len + 1);
    memcpy(key, prefix, prefix_len);
    memcpy(key + prefix_len, name, name_len + 1);
    return key;
}

static void set_prefixed(json_t *obj, const char *prefix, const char *name, json_t *v)
{
    char small[64];
    char *key = prefixed(small, prefix, name);
    json_object_set_nocheck(obj, key, v);
    if (key != small)
        free(key);
}

/* Whole unix seconds that RFC 3339 can write, or false. */
static bool unix_seconds(const json_t *v, long long *out)
{
    if (!json_is_integer(v))
        return false;
    json_int_t t = json_integer_value(v);
    if (t < 0 || (double)t > TIME_RFC3339_LAST)
        return false;
    *out = (long long)t;
    return true;
}

/* The RFC 3339 timestamp of unix second t (a new reference). */
static json_t *rfc3339(struct converter *c, long long t)
{
    if (!c->stamp || c->stamp_second != t) {
        char buf[48];
        time_format_rfc3339(t, buf, sizeof buf);
        json_decref(c->stamp);
        c->stamp = json_stringn_nocheck(buf, strlen(buf)); /* ASCII */
        c->stamp_second = t;
    }
    return json_incref(c->stamp);
}

/* Whether seconds go back as an integer (whole, and exact as one): as a timestamp's ts does. */
static bool whole_seconds(double epoch)
{
    return epoch == floor(epoch) && fabs(epoch) < 9e15;
}

/* ts back from a timestamp that this converter wrote: an integer when it is whole. */
static json_t *seconds_json(double epoch)
{
    if (whole_seconds(epoch))
        return json_integer((json_int_t)epoch);
    return json_real(epoch);
}

static json_t *timestamp_seconds(const json_t *timestamp)
{
    double epoch;
    bool zone;
    const char *s = json_string_value(timestamp);
    if (s && time_parse_rfc3339(s, &epoch, &zone))
        return seconds_json(epoch);
    return NULL;
}

/* The member that says what a message is (kind, performative) is missing or unknown. */
static void report_unconvertible(struct diag_sink *sink, const struct diag_where *at,
                                 const char *code, const char *member, const char *value,
                                 const char *what)
{
    if (value)
        diag_emit(sink, at, code, "'%s' is not %s; the message cannot be converted", value, what);
    else
        diag_emit(sink, at, code, "no string '%s': the message cannot be converted", member);
}

/* --- IACP -> FIPA --- */

struct kind_mapping {
    enum fipa_act act;
    const char *protocol; /* NULL: none */
    const char *action;   /* ctl kinds: the action the content names */
};

/* What a body says of the result a message carries. */
struct result_status {
    const char *status; /* NULL: none, or no string */
    bool partial;
};

static struct result_status view_status_of(const struct jv *body)
{
    return (struct result_status){jv_member_string(body, "status"),
                                  jv_is_true(jv_object_get(body, "partial"))};
}

/* A ctl kind asks for nothing back: the queen informs the forager of its action, so the
 * conversation is complete as it stands. */
static struct kind_mapping map_kind(enum iacp_kind kind, struct result_status result)
{
    switch (kind) {
    case IACP_TASK_ASSIGN:
        return (struct kind_mapping){FIPA_REQUEST, "fipa-request", NULL};
    case IACP_TASK_ACCEPT:
        return (struct kind_mapping){FIPA_AGREE, "fipa-request", NULL};
    case IACP_TASK_REJECT:
        return (struct kind_mapping){FIPA_REFUSE, "fipa-request", NULL};
    case IACP_TASK_RESULT: {
        const char *status = result.status;
        bool ok = (status && strcmp(status, "ok") == 0) || result.partial;
        return (struct kind_mapping){ok ? FIPA_INFORM : FIPA_FAILURE, "fipa-request", NULL};
    }
    case IACP_TASK_CANCEL:
        return (struct kind_mapping){FIPA_CANCEL, "fipa-request", NULL};
    case IACP_TOOL_QUERY:
        return (struct kind_mapping){FIPA_QUERY_REF, "fipa-query", NULL};
    case IACP_TOOL_REPLY:
        return (struct kind_mapping){FIPA_INFORM, "fipa-query", NULL};
    case IACP_CTL_DRAIN:
        return (struct kind_mapping){FIPA_INFORM, NULL, "drain"};
    case IACP_CTL_HALT:
        return (struct kind_mapping){FIPA_INFORM, NULL, "halt"};
    default:
        return (struct kind_mapping){FIPA_INFORM, NULL, NULL};
    }
}

/* Whether a message may answer a cancel, by what it says itself: a final task.result with
 * status "cancelled". */
static bool may_answer_cancel(enum iacp_kind kind, struct result_status result)
{
    return kind == IACP_TASK_RESULT && result.status && strcmp(result.status, "cancelled") == 0 &&
           !result.partial;
}

/* The cancel a task.result with status "cancelled" answers: the latest cancel sent for the
 * assign it names, to the forager that sends the result. NULL when there is none. */
static const char *cancel_answered(enum iacp_kind kind, struct result_status result,
                                   const struct envelope *e, const struct followed *f)
{
    if (!may_answer_cancel(kind, result) || !f->answered || !f->answered->cancel || !e->from)
        return NULL;
    const char *to = f->answered->cancel_to;
    return to && strcmp(to, e->from) == 0 ? f->answered->cancel : NULL;
}

static json_t *fipa_from_fipa_kind(struct converter *c, json_t *iacp, enum fipa_act act);

/* The kind of an IACP message, or IACP_INVALID after reporting why it cannot be converted. */
static enum iacp_kind kind_to_convert(const struct jv *iacp, struct diag_sink *sink,
                                      const struct diag_where *at)
{
    const char *kind_name = jv_member_string(iacp, "kind");
    enum iacp_kind kind = kind_name ? iacp_kind_parse(kind_name) : IACP_INVALID;
    if (kind == IACP_INVALID)
        report_unconvertible(sink, at, "convert-iacp", "kind", kind_name, "an IACP kind");
    return kind;
}

static void warn_unknown_kind(const struct jv *iacp, enum iacp_kind kind, struct diag_sink *sink,
                              const struct diag_where *at)
{
    const char *name = kind == IACP_DOTTED ? jv_member_string(iacp, "kind") : NULL;
    if (name)
        diag_emit(sink, at, "convert-kind-unknown",
                  "unknown kind '%s' written as inform (x-iacp-kind keeps it)", name);
}

/* Follows an IACP message of a known kind along the stream, its time already read: returns the
 * conversation_id of its FIPA counterpart (NULL: none; valid until the next call), and in *f
 * what following found. The way back keeps a conversation_id that the stream would not find
 * again (a capture cut in the middle of a conversation) in x-fipa-conversation_id; it wins. */
static const char *follow_iacp(struct converter *c, const struct envelope *e,
                               const char *conversation, struct followed *f)
{
    *f = follow(c, e);
    if (conversation && e->id)
        correct_conversation(c, e->from, e->id, conversation);
    return conversation ? conversation : f->conversation;
}

/* --- IACP -> FIPA: written from the view, member by member, with no tree --- */

/* Where the FIPA members of an IACP message go: a line of JSON text, written by w; or, with w
 * NULL, the view a scan of that line gives, built in js (for the string form's writer, which
 * reads views: the line is then not written and scanned again). */
struct fipa_out {
    struct jsonout *w;
    struct jscan *js;
    uint32_t object[2]; /* the builder's objects open: the message, its content */
    uint32_t members[2];
    unsigned depth; /* objects open */
};

static void out_begin_object(struct fipa_out *o)
{
    if (o->w) {
        jsonout_begin_object(o->w);
        return;
    }
    o->object[o->depth] = jscan_build_open(o->js, JV_OBJECT);
    o->members[o->depth++] = 0;
}

static void out_end_object(struct fipa_out *o)
{
    if (o->w) {
        jsonout_end_object(o->w);
        return;
    }
    o->depth--;
    jscan_build_close(o->js, o->object[o->depth], o->members[o->depth]);
}

/* A key of this file's, written without looking for what to escape. */
static inline void out_key_literal(struct fipa_out *o, const char *key, size_t len)
{
    if (o->w) {
        jsonout_key_literal(o->w, key, len);
        return;
    }
    jscan_build_key(o->js, o->object[o->depth - 1], "", 0, key, len);
    o->members[o->depth - 1]++;
}

#define OUT_KEY(o, literal) out_key_literal((o), "" literal, sizeof(literal) - 1)

/* A key of the input's (after a prefix of this file's), which may need escapes. */
static void out_key(struct fipa_out *o, const char *prefix, const char *key)
{
    if (o->w && !*prefix) {
        jsonout_key(o->w, key);
        return;
    }
    if (o->w) {
        char small[64];
        char *name = prefixed(small, prefix, key);
        jsonout_key(o->w, name);
        if (name != small)
            free(name);
        return;
    }
    jscan_build_key(o->js, o->object[o->depth - 1], prefix, strlen(prefix), key, strlen(key));
    o->members[o->depth - 1]++;
}

static inline void out_view(struct fipa_out *o, const struct jv *v)
{
    if (o->w)
        jv_write_json(o->w, v);
    else
        jscan_build_view(o->js, v);
}

static inline void out_string(struct fipa_out *o, const char *s)
{
    if (o->w)
        jsonout_string(o->w, s, strlen(s));
    else
        jscan_build_string(o->js, s, strlen(s));
}

/* v, which its text as it came (when there is one) is written as: the view, which a scan of the
 * text gives. */
static void out_text(struct fipa_out *o, const struct json_text *text, const struct jv *v)
{
    if (o->w && text)
        jsonout_text(o->w, text->text, text->len);
    else
        out_view(o, v);
}

static void out_true(struct fipa_out *o)
{
    if (o->w)
        jsonout_bool(o->w, true);
    else
        jscan_build_open(o->js, JV_TRUE);
}

/* Members whose keys are this file's literals. */
#define OUT_MEMBER(o, literal, v)        (OUT_KEY((o), literal), out_view((o), (v)))
#define OUT_STRING_MEMBER(o, literal, s) (OUT_KEY((o), literal), out_string((o), (s)))
#define OUT_TIME_MEMBER(o, literal, t)   (OUT_KEY((o), literal), out_time((o), (t)))

/* The member as unix_seconds reads it: whole seconds that RFC 3339 can write. */
static bool view_unix_seconds(const struct jv *v, long long *out)
{
    if (!jv_is_integer(v) || jv_integer_value(v) < 0 ||
        (double)jv_integer_value(v) > TIME_RFC3339_LAST)
        return false;
    *out = (long long)jv_integer_value(v);
    return true;
}

static void out_time(struct fipa_out *o, long long t)
{
    char buf[48];
    time_format_rfc3339(t, buf, sizeof buf);
    out_string(o, buf);
}

/* content, and x-iacp-body when the way back needs it, as iacp_content makes them. A body that
 * becomes the content as it is goes as the text it came with (body_text, when there is one). */
static void write_content(struct fipa_out *o, const struct jv *body, const char *action,
                          const struct json_text *body_text)
{
    const struct jv *x_body = NULL;
    OUT_KEY(o, "content");
    if (action) {
        out_begin_object(o);
        OUT_STRING_MEMBER(o, "action", action);
        if (jv_object_first(body) && !jv_object_get(body, "action")) {
            for (const struct jv *k = jv_object_first(body); k; k = jv_object_next(body, k)) {
                out_key(o, "", jv_string_value(k));
                out_view(o, jv_object_value(k));
            }
        } else {
            x_body = body;
        }
        out_end_object(o);
    } else if (!body) {
        out_begin_object(o);
        out_end_object(o);
    } else {
        if (jv_is_object(body) && body->len == 0)
            x_body = body;
        out_text(o, body_text, body);
    }
    if (x_body)
        OUT_MEMBER(o, "x-iacp-body", x_body);
}

/* Everything about one IACP message that its FIPA members are made of. */
struct to_fipa {
    enum iacp_kind kind;
    const struct jv *body;
    struct result_status result;
    struct kind_mapping map;
    const char *answers_cancel; /* in_reply_to instead of ref, or NULL */
    const char *conversation;   /* NULL: none */
    size_t *hole;               /* when set, conversation_id is "" and *hole where it starts */
    const struct json_text *body_text; /* the body's text as it came, or NULL */
};

/* Writes the FIPA counterpart of one IACP member where it stood. */
static void write_member_to_fipa(struct fipa_out *o, const struct jv *k, const struct jv *v,
                                 const struct to_fipa *t)
{
    long long seconds;
    if (jv_key_is(k, "v")) {
        OUT_MEMBER(o, "x-iacp-v", v);
    } else if (jv_key_is(k, "kind")) {
        OUT_MEMBER(o, "x-iacp-kind", v);
    } else if (jv_key_is(k, "id") && jv_is_string(v)) {
        OUT_MEMBER(o, "reply_with", v);
    } else if (jv_key_is(k, "from") && jv_is_string(v)) {
        OUT_MEMBER(o, "sender", v);
    } else if (jv_key_is(k, "to") && jv_is_string(v)) {
        OUT_MEMBER(o, "receiver", v);
    } else if (jv_key_is(k, "ref") && jv_is_string(v) && t->answers_cancel) {
        OUT_STRING_MEMBER(o, "in_reply_to", t->answers_cancel);
        OUT_MEMBER(o, "x-iacp-ref", v);
    } else if (jv_key_is(k, "ref") && jv_is_string(v)) {
        OUT_MEMBER(o, "in_reply_to", v);
    } else if (jv_key_is(k, "ts") && view_unix_seconds(v, &seconds)) {
        OUT_TIME_MEMBER(o, "timestamp", seconds);
    } else if (jv_key_is(k, "body")) {
        write_content(o, v, t->map.action, t->body_text);
    } else if (!(jv_key_is(k, "x-fipa-conversation_id") && jv_is_string(v))) {
        out_key(o, "x-iacp-", jv_string_value(k));
        out_view(o, v);
    }
}

/* reply_by of a task.assign: its deadline, in seconds or RFC 3339 with a zone. */
static void write_reply_by(struct fipa_out *o, const struct jv *body)
{
    const struct jv *deadline = jv_object_get(body, "deadline");
    long long t;
    double epoch;
    bool zone;
    const char *s = jv_string_value(deadline);
    if (view_unix_seconds(deadline, &t))
        OUT_TIME_MEMBER(o, "reply_by", t);
    else if (s && time_parse_rfc3339(s, &epoch, &zone) && zone)
        OUT_STRING_MEMBER(o, "reply_by", s);
}

/* The FIPA members of an IACP message of a known kind (not fipa.*), as one object; with a hole,
 * the position of its conversation_id's "" in out, the line written. */
static void put_fipa(struct fipa_out *o, const struct strbuf *out, const struct jv *iacp,
                     const struct to_fipa *t, enum fipa_spelling spelling)
{
    out_begin_object(o);
    enum fipa_act act = t->answers_cancel ? FIPA_INFORM : t->map.act;
    OUT_STRING_MEMBER(o, "performative", fipa_act_name(act, spelling));
    for (const struct jv *k = jv_object_first(iacp); k; k = jv_object_next(iacp, k))
        write_member_to_fipa(o, k, jv_object_value(k), t);
    if (!t->body)
        write_content(o, NULL, t->map.action, NULL);
    if (t->hole) {
        OUT_KEY(o, "conversation_id");
        if (out)
            *t->hole = out->len;
        out_string(o, "");
    } else if (t->conversation) {
        OUT_STRING_MEMBER(o, "conversation_id", t->conversation);
    }
    if (t->map.protocol)
        OUT_STRING_MEMBER(o, "protocol", t->map.protocol);
    if (t->kind == IACP_TASK_ASSIGN)
        write_reply_by(o, t->body);
    if (t->kind == IACP_TASK_RESULT && t->result.partial) {
        OUT_KEY(o, "x-acp-partial");
        out_true(o);
    }
    out_end_object(o);
}

/* Appends the line of FIPA JSON of an IACP message of a known kind (not fipa.*) to out. */
static void write_fipa(struct strbuf *out, const struct jv *iacp, const struct to_fipa *t,
                       enum fipa_spelling spelling)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_VALID | JSONOUT_TERMINAL);
    struct fipa_out o = {.w = &w};
    put_fipa(&o, out, iacp, t, spelling);
    sb_addc(out, '\n');
}

/* The view of that line (as jscan_scan_made reads it), built in js. */
static const struct jv *build_fipa(struct jscan *js, const struct jv *iacp, const struct to_fipa *t,
                                   enum fipa_spelling spelling)
{
    struct fipa_out o = {.js = js};
    jscan_build_begin(js);
    put_fipa(&o, NULL, iacp, t, spelling);
    return jscan_build_end(js);
}

static struct to_fipa to_fipa_of(const struct jv *iacp, enum iacp_kind kind)
{
    struct to_fipa t = {.kind = kind, .body = jv_object_get(iacp, "body")};
    t.result = view_status_of(t.body);
    t.map = map_kind(kind, t.result);
    return t;
}

/* Follows an IACP message of a known kind but fipa.* along the stream, and appends its line of
 * FIPA JSON to out; returns whether its content is its body as it is. */
static struct to_fipa followed_to_fipa(struct converter *c, const struct jv *iacp,
                                       enum iacp_kind kind, struct diag_sink *sink,
                                       const struct diag_where *at)
{
    warn_unknown_kind(iacp, kind, sink, at);
    struct envelope e = view_envelope(iacp, kind);
    struct followed f;
    struct to_fipa t = to_fipa_of(iacp, kind);
    t.conversation = follow_iacp(c, &e, jv_member_string(iacp, "x-fipa-conversation_id"), &f);
    t.answers_cancel = cancel_answered(kind, t.result, &e, &f);
    return t;
}

/* Whether the FIPA content is the IACP body as it is (no ctl action made of it). */
static bool body_as_content(const struct to_fipa *t)
{
    return t->body && !t->map.action;
}

static bool write_followed(struct converter *c, const struct jv *iacp, enum iacp_kind kind,
                           const struct json_text *body_text, struct strbuf *out,
                           struct diag_sink *sink, const struct diag_where *at)
{
    struct to_fipa t = followed_to_fipa(c, iacp, kind, sink, at);
    t.body_text = body_text;
    write_fipa(out, iacp, &t, SPELL_SNAKE);
    return body_as_content(&t);
}

/* Reads an IACP message's time on the stream clock. */
static void read_iacp_clock(struct converter *c, const struct jv *iacp)
{
    double ts;
    bool timed = iacp_view_time(iacp, &ts);
    read_clock(c, jv_member_string(iacp, "from"), timed, ts);
}

json_t *convert_iacp_to_fipa(struct converter *c, const struct jv *iacp, struct diag_sink *sink,
                             const struct diag_where *at)
{
    enum iacp_kind kind = kind_to_convert(iacp, sink, at);
    if (kind == IACP_INVALID)
        return NULL;
    read_iacp_clock(c, iacp);
    if (kind == IACP_FIPA) {
        json_t *tree = jscan_to_tree(iacp);
        json_t *out =
            fipa_from_fipa_kind(c, tree, fipa_act_parse(jv_member_string(iacp, "kind") + 5));
        json_decref(tree);
        return out;
    }
    /* One mapping, the writer's: the tree is the line it wrote, read back. */
    struct strbuf line = STRBUF_INIT;
    write_followed(c, iacp, kind, NULL, &line, sink, at);
    json_t *out = json_loadb(line.buf, line.len, 0, NULL);
    sb_free(&line);
    if (!out)
        die_oom(); /* what jsonout writes is JSON: only memory can fail */
    return out;
}

/* Whether an IACP message is one a line of FIPA is made of (FIPA_LINE_WRITTEN: its kind in
 * *kind, its time read on the stream clock). */
static enum fipa_line line_to_make(struct converter *c, const struct jv *iacp, enum iacp_kind *kind,
                                   struct diag_sink *sink, const struct diag_where *at)
{
    *kind = kind_to_convert(iacp, sink, at);
    if (*kind == IACP_INVALID)
        return FIPA_LINE_NONE;
    if (*kind == IACP_FIPA)
        return FIPA_LINE_TREE;
    read_iacp_clock(c, iacp);
    return FIPA_LINE_WRITTEN;
}

enum fipa_line convert_iacp_fipa_line(struct converter *c, const struct jv *iacp,
                                      const struct json_text *body_text, struct strbuf *out,
                                      bool *content_is_body, struct diag_sink *sink,
                                      const struct diag_where *at)
{
    enum iacp_kind kind;
    enum fipa_line made = line_to_make(c, iacp, &kind, sink, at);
    if (made == FIPA_LINE_WRITTEN)
        *content_is_body = write_followed(c, iacp, kind, body_text, out, sink, at);
    return made;
}

enum fipa_line convert_iacp_fipa_view(struct converter *c, const struct jv *iacp, struct jscan *js,
                                      const struct jv **view, bool *content_is_body,
                                      struct diag_sink *sink, const struct diag_where *at)
{
    enum iacp_kind kind;
    enum fipa_line made = line_to_make(c, iacp, &kind, sink, at);
    if (made != FIPA_LINE_WRITTEN)
        return made;
    struct to_fipa t = followed_to_fipa(c, iacp, kind, sink, at);
    *view = build_fipa(js, iacp, &t, SPELL_SNAKE);
    *content_is_body = body_as_content(&t);
    return made;
}

/* What a draft of an IACP message says as far as the message alone does, in t (with hole for
 * its conversation_id's place where the stream says it); DRAFT_NONE and DRAFT_NEEDS_STREAM:
 * nothing to draft. */
static enum draft draft_to_fipa(const struct jv *iacp, size_t *hole, struct to_fipa *t,
                                struct diag_sink *sink, const struct diag_where *at)
{
    enum iacp_kind kind = kind_to_convert(iacp, sink, at);
    if (kind == IACP_INVALID)
        return DRAFT_NONE;
    *t = to_fipa_of(iacp, kind);
    if (kind == IACP_FIPA || may_answer_cancel(kind, t->result))
        return DRAFT_NEEDS_STREAM;
    warn_unknown_kind(iacp, kind, sink, at);
    t->conversation = jv_member_string(iacp, "x-fipa-conversation_id");
    if (t->conversation || !jv_member_string(iacp, "id"))
        return DRAFT_WHOLE;
    t->hole = hole;
    return DRAFT_HOLE;
}

static bool drafted(enum draft draft)
{
    return draft == DRAFT_WHOLE || draft == DRAFT_HOLE;
}

enum draft convert_iacp_draft(const struct jv *iacp, const struct json_text *body_text,
                              enum fipa_spelling spelling, struct strbuf *out, size_t *hole,
                              struct diag_sink *sink, const struct diag_where *at)
{
    struct to_fipa t;
    enum draft draft = draft_to_fipa(iacp, hole, &t, sink, at);
    t.body_text = body_text;
    if (drafted(draft))
        write_fipa(out, iacp, &t, spelling);
    return draft;
}

enum draft convert_iacp_draft_view(const struct jv *iacp, enum fipa_spelling spelling,
                                   struct jscan *js, const struct jv **view, struct diag_sink *sink,
                                   const struct diag_where *at)
{
    struct to_fipa t;
    size_t unused; /* the "" is in the view; the string form's writer makes a hole of its own */
    enum draft draft = draft_to_fipa(iacp, &unused, &t, sink, at);
    if (drafted(draft))
        *view = build_fipa(js, iacp, &t, spelling);
    return draft;
}

bool convert_content_is_body(const struct jv *iacp)
{
    const char *kind_name = jv_member_string(iacp, "kind");
    enum iacp_kind kind = kind_name ? iacp_kind_parse(kind_name) : IACP_INVALID;
    if (kind == IACP_INVALID || kind == IACP_FIPA)
        return false;
    struct to_fipa t = to_fipa_of(iacp, kind);
    return body_as_content(&t);
}

/* Of the members the FIPA rules read, write_fipa makes performative, content, protocol,
 * timestamp, reply_by and conversation_id itself, in forms they accept, and copies in_reply_to
 * and reply_with from strings only; sender and receiver are the message's 'from' and 'to', which
 * fail them when absent (the Caxton profile requires both) or not a name. The rest it writes are
 * x- members, which no rule reads. */
bool convert_fipa_line_passes(const struct jv *iacp)
{
    const char *from = jv_member_string(iacp, "from");
    const char *to = jv_member_string(iacp, "to");
    return from && *from && to && *to;
}

/* Copies s, when there is one, to *p, and moves *p past it. */
static const char *copy_to(char **p, const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    char *copy = memcpy(*p, s, len);
    *p += len;
    return copy;
}

static size_t size_of(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* A trail of kind, its time, and its id, from, to, ref and conversation (each NULL or copied),
 * in memory (NULL: malloc's). */
static struct iacp_trail *make_trail(struct arena *memory, const char *kind, bool timed, double ts,
                                     const char *const strings[5])
{
    size_t size = sizeof(struct iacp_trail);
    for (size_t i = 0; i < 5; i++)
        size += size_of(strings[i]);
    struct iacp_trail *t = arena_or_malloc(memory, size);
    t->kind = kind ? iacp_kind_parse(kind) : IACP_INVALID;
    t->timed = timed;
    t->ts = timed ? ts : 0;
    char *p = t->strings;
    t->id = copy_to(&p, strings[0]);
    t->from = copy_to(&p, strings[1]);
    t->to = copy_to(&p, strings[2]);
    t->ref = copy_to(&p, strings[3]);
    t->conversation = copy_to(&p, strings[4]);
    t->fresh = t->first = false;
    t->hole_len = 0;
    return t;
}

struct iacp_trail *convert_iacp_trail(const struct jv *iacp, struct arena *memory)
{
    const char *const strings[] = {
        jv_member_string(iacp, "id"),
        jv_member_string(iacp, "from"),
        jv_member_string(iacp, "to"),
        jv_member_string(iacp, "ref"),
        jv_member_string(iacp, "x-fipa-conversation_id"),
    };
    double ts = 0;
    bool timed = iacp_view_time(iacp, &ts);
    return make_trail(memory, jv_member_string(iacp, "kind"), timed, ts, strings);
}

const char *convert_iacp_follow(struct converter *c, const struct iacp_trail *t)
{
    struct envelope e = {t->kind, t->id, t->from, t->to, t->ref};
    read_clock(c, e.from, t->timed, t->ts);
    struct followed f;
    return follow_iacp(c, &e, t->conversation, &f);
}

void convert_hole_value(struct strbuf *out, const char *conversation)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_VALID | JSONOUT_TERMINAL);
    jsonout_string(&w, conversation, strlen(conversation));
}

void convert_fill_hole(struct strbuf *out, const struct strbuf *draft, size_t hole,
                       const char *conversation)
{
    sb_add(out, draft->buf, hole);
    convert_hole_value(out, conversation);
    sb_add(out, draft->buf + hole + CONVERT_HOLE_LEN, draft->len - hole - CONVERT_HOLE_LEN);
}

/* --- FIPA that came from IACP -> IACP: the way back of convert_iacp_to_fipa --- */

/* --- FIPA -> IACP, read through the view and written as a line --- */

/* One FIPA message on its way to IACP: the IACP members in out, in json_object_set's order. */
struct to_iacp {
    /* NULL for a draft of FIPA of its own, which reads nothing of the stream */
    struct converter *c;
    time_t now; /* the time of conversion */
    const struct jv *fipa;
    const struct jv *content;     /* fipa's, or NULL */
    const struct json_text *kept; /* the text content came with, or NULL */
    struct member_list *out;
    unsigned flags; /* the line's jsonout flags */
    enum fipa_act act;
    bool marked_body;      /* x-iacp-body says what the body was */
    const char *absent[3]; /* x-fipa-absent's names */
    size_t nabsent;
    const char *kind;         /* x-iacp-kind (the way back of an IACP message) */
    bool ref_done, body_done; /* the way back wrote ref, body (two members say each) */
    bool timed;               /* whether ts is the message's time (fipa_message_time_jv) */
    double ts;
    bool fresh; /* a draft's id is to be made up along the stream */
};

static bool is_ctl_kind(const char *kind)
{
    return kind && (strcmp(kind, "ctl.drain") == 0 || strcmp(kind, "ctl.halt") == 0);
}

static void set_c_string(struct member_list *out, const char *name, const char *s)
{
    member_list_set_string(out, "", name, s, strlen(s));
}

/* A whole number of seconds as an integer, as jansson's tree held it; else a real. */
static void set_seconds(struct member_list *out, const char *name, double epoch)
{
    if (whole_seconds(epoch))
        member_list_set_integer(out, name, (json_int_t)epoch);
    else
        member_list_set_real(out, name, epoch);
}

static bool timestamp_epoch(const struct jv *timestamp, double *epoch)
{
    bool zone;
    const char *s = jv_string_value(timestamp);
    return s && time_parse_rfc3339(s, epoch, &zone);
}

/* content -> body for a message that came from IACP: the inverse of iacp_content, which drops
 * a ctl kind's action and writes no body as {}. */
static void set_body_from_content(struct to_iacp *t, const struct jv *content)
{
    bool object = jv_is_object(content);
    const struct jv *action = object ? jv_object_get(content, "action") : NULL;
    if (!is_ctl_kind(t->kind))
        action = NULL;
    if (object && content->len == (action ? 1u : 0u))
        return;
    if (!action) {
        member_list_set_view(t->out, "", "body", content);
        return;
    }
    struct jsonout w = {.flags = t->flags};
    member_list_json_begin(t->out, "body", &w);
    jsonout_begin_object(&w);
    for (const struct jv *k = jv_object_first(content); k; k = jv_object_next(content, k)) {
        if (jv_object_value(k) == action)
            continue;
        jsonout_key(&w, jv_string_value(k));
        jv_write_json(&w, jv_object_value(k));
    }
    jsonout_end_object(&w);
    member_list_json_end(t->out);
}

static const struct jv *iacp_body_of(const struct jv *fipa)
{
    const struct jv *body = jv_object_get(fipa, "x-iacp-body");
    return body ? body : jv_object_get(fipa, "content");
}

/* x-acp-partial says nothing the body does not: a partial task.result. */
static bool partial_derived(const struct to_iacp *t, const struct jv *v)
{
    return jv_is_true(v) && t->kind && strcmp(t->kind, "task.result") == 0 &&
           jv_is_true(jv_object_get(iacp_body_of(t->fipa), "partial"));
}

/* The members of an IACP message given back that following it reads, found in one pass. */
enum { FOUND_TS, FOUND_KIND, FOUND_ID, FOUND_FROM, FOUND_TO, FOUND_REF, FOUND_MEMBERS };

/* conversation_id travels in x-fipa-conversation_id when the way there, following this stream
 * as this direction does, would not find it again (a capture cut in the middle of a
 * conversation). A redundant x-fipa-conversation_id of the input is not kept. */
static void keep_conversation(struct to_iacp *t, const struct member *const *found)
{
    const char *kind = member_string(t->out, found[FOUND_KIND]);
    struct envelope e = {
        .kind = kind ? iacp_kind_parse(kind) : IACP_INVALID,
        .id = member_string(t->out, found[FOUND_ID]),
        .from = member_string(t->out, found[FOUND_FROM]),
        .to = member_string(t->out, found[FOUND_TO]),
        .ref = member_string(t->out, found[FOUND_REF]),
    };
    const char *found_conversation = follow(t->c, &e).conversation;
    const char *conversation = jv_member_string(t->fipa, "conversation_id");
    if (conversation && !(found_conversation && strcmp(conversation, found_conversation) == 0)) {
        if (e.id)
            correct_conversation(t->c, e.from, e.id, conversation);
        set_c_string(t->out, "x-fipa-conversation_id", conversation);
    }
}

/* The agent a FIPA sender or receiver names, when it is a lone agent. */
static const char *lone_agent_name(const struct jv *agents)
{
    if (jv_is_array(agents))
        agents = jv_array_size(agents) == 1 ? jv_array_first(agents) : NULL;
    return fipa_agent_name_jv(agents);
}

/* Writes the IACP member one FIPA member of an IACP message stands for, where it stood. */
static void member_back_to_iacp(struct to_iacp *t, const struct jv *k, const struct jv *v)
{
    const char *key = jv_string_value(k);
    struct member_list *out = t->out;
    double epoch;
    if (jv_key_is(k, "performative") || jv_key_is(k, "conversation_id") ||
        jv_key_is(k, "protocol") || jv_key_is(k, "reply_by") ||
        (jv_key_is(k, "x-acp-partial") && partial_derived(t, v))) {
        return; /* derived from the IACP members */
    } else if (jv_key_is(k, "reply_with") && jv_is_string(v)) {
        member_list_set_view(out, "", "id", v);
    } else if ((jv_key_is(k, "sender") || jv_key_is(k, "receiver")) && lone_agent_name(v)) {
        set_c_string(out, key[0] == 's' ? "from" : "to", lone_agent_name(v));
    } else if (jv_key_is(k, "in_reply_to") || jv_key_is(k, "x-iacp-ref")) {
        const struct jv *ref = jv_object_get(t->fipa, "x-iacp-ref");
        if (!ref && jv_is_string(v))
            ref = v;
        if (!ref && !jv_is_null(v))
            member_list_set_view(out, "x-fipa-", key, v);
        else if (ref && !t->ref_done)
            member_list_set_view(out, "", "ref", ref);
        t->ref_done = t->ref_done || ref;
    } else if (jv_key_is(k, "timestamp") && timestamp_epoch(v, &epoch)) {
        set_seconds(out, "ts", epoch);
    } else if (jv_key_is(k, "content") || jv_key_is(k, "x-iacp-body")) {
        const struct jv *x_body = jv_object_get(t->fipa, "x-iacp-body");
        if (!t->body_done && x_body)
            member_list_set_view(out, "", "body", x_body);
        else if (!t->body_done)
            set_body_from_content(t, v);
        t->body_done = true;
    } else if (jv_key_is(k, "x-iacp-kind")) {
        member_list_set_view(out, "", "kind", v);
    } else if (starts_with(key, "x-iacp-")) {
        member_list_set_view(out, "", key + 7, v);
    } else {
        member_list_set_view(out, "x-fipa-", key, v);
    }
}

/* The IACP members of a message made from IACP, as far as the message alone says. */
static void back_members(struct to_iacp *t)
{
    t->kind = jv_member_string(t->fipa, "x-iacp-kind");
    for (const struct jv *k = jv_object_first(t->fipa); k; k = jv_object_next(t->fipa, k))
        member_back_to_iacp(t, k, jv_object_value(k));
}

/* The message time is read from the IACP message given back, as the way there read it: a ts
 * that FIPA's timestamp cannot hold (1312284105.5) travels in x-iacp-ts, and a message that
 * seemed to have no time would follow the stream otherwise than it did there. */
static void iacp_from_iacp_origin(struct to_iacp *t)
{
    struct converter *c = t->c;
    back_members(t);
    static const char *const names[FOUND_MEMBERS] = {"ts", "kind", "id", "from", "to", "ref"};
    const struct member *found[FOUND_MEMBERS];
    member_list_find_each(t->out, names, FOUND_MEMBERS, found);
    double value = 0, ts;
    bool number = member_number(found[FOUND_TS], &value); /* before value is read */
    bool timed = ts_seconds(number, value, &ts);
    const char *from = member_string(t->out, found[FOUND_FROM]);
    read_clock(c, from, timed, ts);
    /* before keep_conversation, which may add a member (moving the others and their strings);
     * the id generator and the conversations followed know nothing of each other */
    const char *id = member_string(t->out, found[FOUND_ID]);
    if (id)
        idgen_note(c->ids, from, id, c->now);
    keep_conversation(t, found);
}

/* --- other FIPA -> IACP --- */

static void note_absent(struct to_iacp *t, const char *member)
{
    t->absent[t->nabsent++] = member;
}

/* The x-iacp-ts of a message without timestamp, written by fipa_from_fipa_kind for a ts that
 * no timestamp can say (not whole unix seconds, or none at all), or NULL. */
static const struct jv *ts_marker(const struct jv *fipa)
{
    const struct jv *marker = jv_object_get(fipa, "x-iacp-ts");
    long long t;
    if (!marker || jv_object_get(fipa, "timestamp") || view_unix_seconds(marker, &t))
        return NULL;
    return marker;
}

/* Whether x-iacp-body says what the IACP body was, as fipa_from_fipa_kind writes it: null
 * beside a content of {} for no body, or a copy of a content that is not an object (null too). */
static bool body_marker(const struct jv *fipa)
{
    const struct jv *marker = jv_object_get(fipa, "x-iacp-body");
    const struct jv *content = jv_object_get(fipa, "content");
    if (!marker || !content)
        return false;
    if (jv_is_null(marker) && jv_is_object(content))
        return content->len == 0;
    return !jv_is_object(content) && jv_equal(marker, content);
}

/* x-iacp-<name>, as fipa_from_fipa_kind writes an IACP member that FIPA has no place for, goes
 * back to <name>; but not a name that the mapping writes itself (v only when it is not the one
 * written anyway), nor one that the way back would take for an x-fipa- member. */
static bool is_iacp_extra(const char *key, const struct jv *v)
{
    static const char *const envelope[] = {"id", "from", "to", "kind", "body", "ref", "ts"};
    if (!starts_with(key, "x-iacp-") || !key[7] || starts_with(key + 7, "x-fipa-"))
        return false;
    for (size_t i = 0; i < sizeof envelope / sizeof *envelope; i++)
        if (strcmp(key + 7, envelope[i]) == 0)
            return false;
    return strcmp(key + 7, "v") != 0 || !jv_string_is(v, "1.1");
}

/* from and to: names; what a name cannot say (addresses, several receivers) rides along. */
static void map_sender(struct member_list *out, const struct jv *sender)
{
    const char *from = fipa_agent_name_jv(sender);
    if (from)
        set_c_string(out, "from", from);
    if (!(jv_is_string(sender) && from))
        member_list_set_view(out, "", "x-fipa-sender", sender);
}

static void map_receiver(struct member_list *out, const struct jv *receiver)
{
    const struct jv *single = receiver;
    if (jv_is_array(receiver))
        single = jv_array_size(receiver) == 1 ? jv_array_first(receiver) : NULL;
    const char *to = fipa_agent_name_jv(single);
    if (!to && jv_is_array(receiver))
        to = fipa_agent_name_jv(jv_array_first(receiver));
    if (to)
        set_c_string(out, "to", to);
    if (!(jv_is_string(single) && fipa_agent_name_jv(single)))
        member_list_set_view(out, "", "x-fipa-receiver", receiver);
}

/* ts from timestamp; a timestamp that its ts would not write back the same rides along. */
static void map_timestamp(struct to_iacp *t, const struct jv *timestamp)
{
    json_int_t now = (json_int_t)t->now;
    double epoch;
    if (jv_is_null(timestamp)) {
        member_list_set_integer(t->out, "ts", now);
        member_list_set_view(t->out, "", "x-fipa-timestamp", timestamp);
        return;
    }
    bool back = false; /* whether ts is whole unix seconds that write timestamp back */
    if (jv_is_number(timestamp)) {
        member_list_set_view(t->out, "", "ts", timestamp);
    } else if (timestamp_epoch(timestamp, &epoch)) {
        set_seconds(t->out, "ts", epoch);
        if (whole_seconds(epoch) && epoch >= 0 && epoch <= TIME_RFC3339_LAST) {
            char buf[48];
            time_format_rfc3339((long long)epoch, buf, sizeof buf);
            back = jv_string_is(timestamp, buf);
        }
    } else {
        member_list_set_integer(t->out, "ts", now);
    }
    if (!back)
        member_list_set_view(t->out, "", "x-fipa-timestamp", timestamp);
}

/* Without --seed, the ids are derived from the input: the seed mixed with the first message that
 * needs one (its members sorted, so that spacing and order do not matter), which the later
 * ones follow as counters, so that the same log gets the same ids and another log others. */
static void seed_ids(struct converter *c, const struct jv *fipa)
{
    if (c->cfg.seed_from_input) {
        c->cfg.seed_from_input = false;
        json_t *tree = jscan_to_tree(fipa);
        char *text = json_dumps(tree, JSON_COMPACT | JSON_SORT_KEYS);
        if (!text)
            die_oom();
        else
            idgen_reseed(c->ids, text);
        free(text);
        json_decref(tree);
    }
}

/* A fresh id, or in a draft a member id whose value the stream gives. */
static void set_fresh_id(struct to_iacp *t, const char *from)
{
    if (t->c) {
        seed_ids(t->c, t->fipa);
        set_c_string(t->out, "id", idgen_fresh(t->c->ids, from, t->c->now));
        return;
    }
    set_c_string(t->out, "id", ""); /* the draft's hole */
    t->fresh = true;
}

/* id from reply_with; one its sender already used in this run gets a fresh id, and the
 * reply_with rides along. A draft takes it for unused, which its following checks. */
static void map_reply_with(struct to_iacp *t, const struct jv *reply_with)
{
    const char *from = fipa_agent_name_jv(jv_object_get(t->fipa, "sender"));
    if (jv_is_string(reply_with) &&
        !(t->c && idgen_seen(t->c->ids, from, jv_string_value(reply_with)))) {
        member_list_set_view(t->out, "", "id", reply_with);
        return;
    }
    set_fresh_id(t, from);
    member_list_set_view(t->out, "", "x-fipa-reply_with", reply_with);
}

static void map_content(struct to_iacp *t, const struct jv *content)
{
    if (t->marked_body) {
        if (!jv_is_object(content)) /* else {} stood for no body */
            member_list_set_view(t->out, "", "body", content);
    } else if (jv_is_object(content)) {
        member_list_set_view(t->out, "", "body", content);
    } else {
        member_list_set_view(t->out, "", "x-fipa-content", content);
    }
}

/* Writes the IACP counterpart of one FIPA member where it stood. */
static void member_to_iacp(struct to_iacp *t, const struct jv *k, const struct jv *v)
{
    const char *key = jv_string_value(k);
    struct member_list *out = t->out;
    if (jv_key_is(k, "performative")) {
        const char *act = fipa_act_name(t->act, SPELL_SNAKE);
        char kind[48] = "fipa.";
        size_t act_len = strlen(act);
        if (act_len >= sizeof kind - 5) /* no act is that long */
            act_len = sizeof kind - 6;
        memcpy(kind + 5, act, act_len);
        member_list_set_string(out, "", "kind", kind, 5 + act_len);
    } else if (jv_key_is(k, "reply_with")) {
        map_reply_with(t, v);
    } else if (jv_key_is(k, "sender")) {
        map_sender(out, v);
    } else if (jv_key_is(k, "receiver")) {
        map_receiver(out, v);
    } else if (jv_key_is(k, "in_reply_to") && (jv_is_string(v) || jv_is_null(v))) {
        if (jv_is_string(v))
            member_list_set_view(out, "", "ref", v);
    } else if (jv_key_is(k, "timestamp")) {
        map_timestamp(t, v);
    } else if (jv_key_is(k, "content")) {
        map_content(t, v);
    } else if (jv_key_is(k, "x-iacp-body") && t->marked_body) {
        return; /* said by the content's place */
    } else if (jv_key_is(k, "x-iacp-ts") && ts_marker(t->fipa)) {
        member_list_set_view(out, "", "ts", v);
    } else if (is_iacp_extra(key, v)) {
        member_list_set_view(out, "", key + 7, v);
    } else {
        member_list_set_view(out, "x-fipa-", key, v);
    }
}

/* reply_by, which the way there derives from a task.assign's deadline, says what it would. */
static bool reply_by_agrees(const struct jv *fipa, enum iacp_kind kind, const struct jv *body)
{
    const struct jv *deadline = kind == IACP_TASK_ASSIGN ? jv_object_get(body, "deadline") : NULL;
    const char *spelt = jv_string_value(deadline);
    char buf[48];
    const char *derived = NULL;
    long long t;
    double epoch;
    bool zone;
    if (view_unix_seconds(deadline, &t)) {
        time_format_rfc3339(t, buf, sizeof buf);
        derived = buf;
    } else if (spelt && time_parse_rfc3339(spelt, &epoch, &zone) && zone) {
        derived = spelt;
    }
    const char *reply_by = jv_member_string(fipa, "reply_by");
    if (!derived)
        return !jv_object_get(fipa, "reply_by");
    return reply_by && strcmp(reply_by, derived) == 0;
}

/* Whether a FIPA message that carries x-iacp-kind is what the way there makes of an IACP
 * message, so that the way back is exact: it has what the way there writes of every IACP
 * message (x-iacp-v, and a timestamp or x-iacp-ts), and what it derives from the IACP members
 * (performative, protocol, reply_by) says what the way there would. Any other (an agent that
 * sets :x-iacp-kind itself, as JADE's do on a cfp, or a copy JADE made with fewer members) is a
 * FIPA message like any other, whose x-iacp- members are data. */
static bool made_from_iacp(const struct jv *fipa)
{
    const char *kind_name = jv_member_string(fipa, "x-iacp-kind");
    enum iacp_kind kind = kind_name ? iacp_kind_parse(kind_name) : IACP_INVALID;
    if (kind == IACP_INVALID || kind == IACP_FIPA || !jv_object_get(fipa, "x-iacp-v") ||
        !(jv_object_get(fipa, "timestamp") || jv_object_get(fipa, "x-iacp-ts")))
        return false;
    const struct jv *body = iacp_body_of(fipa);
    struct result_status result = view_status_of(body);
    struct kind_mapping map = map_kind(kind, result);
    const char *performative = jv_member_string(fipa, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    bool act_agrees = act == map.act || (may_answer_cancel(kind, result) && act == FIPA_INFORM);
    const char *protocol = jv_member_string(fipa, "protocol");
    bool protocol_agrees = map.protocol ? protocol && strcmp(protocol, map.protocol) == 0
                                        : !jv_object_get(fipa, "protocol");
    return act_agrees && protocol_agrees && reply_by_agrees(fipa, kind, body);
}

static bool other_fipa_to_iacp(struct to_iacp *t, struct diag_sink *sink,
                               const struct diag_where *at)
{
    struct converter *c = t->c;
    const struct jv *fipa = t->fipa;
    t->timed = fipa_message_time_jv(fipa, &t->ts);
    if (c)
        read_clock(c, fipa_agent_name_jv(jv_object_get(fipa, "sender")), t->timed, t->ts);
    const char *performative = jv_member_string(fipa, "performative");
    t->act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (t->act == FIPA_ACT_INVALID) {
        report_unconvertible(sink, at, "convert-fipa", "performative", performative, "a FIPA act");
        return false;
    }
    t->marked_body = body_marker(fipa);
    /* v first, where IACP writers put it; x-iacp-v (not "1.1") then fills it in place. */
    const struct jv *version = jv_object_get(fipa, "x-iacp-v");
    if (version && is_iacp_extra("x-iacp-v", version))
        member_list_set_view(t->out, "", "v", version);
    else
        set_c_string(t->out, "v", "1.1");
    for (const struct jv *k = jv_object_first(fipa); k; k = jv_object_next(fipa, k))
        member_to_iacp(t, k, jv_object_value(k));
    if (!jv_object_get(fipa, "reply_with"))
        note_absent(t, "reply_with");
    if (!member_list_get(t->out, "", "ts")) {
        member_list_set_integer(t->out, "ts", (json_int_t)t->now);
        note_absent(t, "timestamp");
    }
    const char *from = member_string(t->out, member_list_get(t->out, "", "from"));
    const struct member *id = member_list_get(t->out, "", "id");
    if (!id)
        set_fresh_id(t, from);
    else if (c) /* a draft's following notes it */
        idgen_note(c->ids, from, member_string(t->out, id), c->now);
    if (!jv_object_get(fipa, "content"))
        note_absent(t, "content");
    if (t->nabsent) {
        struct jsonout w = {.flags = t->flags};
        member_list_json_begin(t->out, "x-fipa-absent", &w);
        jsonout_begin_array(&w);
        for (size_t i = 0; i < t->nabsent; i++)
            jsonout_string(&w, t->absent[i], strlen(t->absent[i]));
        jsonout_end_array(&w);
        member_list_json_end(t->out);
    }
    return true;
}

/* A member that carries the content, and says what it does, goes as the text the content came
 * with (acp-convert's rule for every line it writes). */
static void keep_content_text(struct to_iacp *t)
{
    static const char *const carriers[] = {"content", "body", "x-fipa-content"};
    if (!t->kept || !t->content)
        return;
    const struct member *found[3];
    member_list_find_each(t->out, carriers, 3, found);
    for (size_t i = 0; i < 3; i++) {
        const struct member *m = found[i];
        if (m && m->kind == MEMBER_VIEW && (m->view == t->content || jv_equal(m->view, t->content)))
            member_list_set_text(t->out, m->prefix, m->name, t->kept->text, t->kept->len,
                                 t->content);
    }
}

/* Whether a time is one IACP's ts may be: no error of the IACP rules (iacp-ts, iacp-ts-range). */
static bool ts_in_range(double t)
{
    return t >= 0 && t <= UNIX_NO_TIME_ABOVE;
}

/* The ts the line will hold is in range: timestamp's, or now where it gives none. Without a
 * timestamp, an x-iacp-ts may stand for the ts: not claimed. */
static bool ts_passes(const struct jv *fipa, time_t now)
{
    const struct jv *timestamp = jv_object_get(fipa, "timestamp");
    double epoch;
    if (!timestamp)
        return !jv_object_get(fipa, "x-iacp-ts") && ts_in_range((double)now);
    if (jv_is_number(timestamp))
        return ts_in_range(jv_number_value(timestamp));
    if (timestamp_epoch(timestamp, &epoch))
        return ts_in_range(epoch);
    return ts_in_range((double)now);
}

/* Whether other_fipa_to_iacp's line passes the IACP rules as it is made. */
static bool other_line_passes(time_t now, const struct jv *fipa)
{
    /* What other_fipa_to_iacp writes of the members the IACP rules read: v "1.1" unless an
     * x-iacp-v says otherwise; kind fipa.<act>, which goes any way and answers nothing; id a
     * reply_with that is no empty string, or a fresh one; from and to the agents' names; ts
     * (ts_passes); ref only from a string; body only from an object, but where x-iacp-body
     * marks a content that is none. Every other member it writes is no envelope member. */
    const struct jv *version = jv_object_get(fipa, "x-iacp-v");
    const struct jv *reply_with = jv_object_get(fipa, "reply_with");
    const struct jv *receiver = jv_object_get(fipa, "receiver");
    const char *performative = jv_member_string(fipa, "performative");
    if (jv_is_array(receiver))
        receiver = jv_array_first(receiver);
    return performative && fipa_act_parse(performative) != FIPA_ACT_INVALID &&
           (!version || jv_string_is(version, "1.1")) && !jv_string_is(reply_with, "") &&
           fipa_agent_name_jv(jv_object_get(fipa, "sender")) && fipa_agent_name_jv(receiver) &&
           ts_passes(fipa, now) &&
           (jv_is_object(jv_object_get(fipa, "content")) || !body_marker(fipa));
}

bool convert_fipa_iacp_line(struct converter *c, const struct jv *fipa,
                            const struct json_text *content_text, struct member_list *scratch,
                            struct strbuf *out, unsigned flags, bool *passes,
                            struct diag_sink *sink, const struct diag_where *at)
{
    member_list_reset(scratch);
    *passes = false;
    struct to_iacp t = {.c = c,
                        .now = c->cfg.now,
                        .fipa = fipa,
                        .content = jv_object_get(fipa, "content"),
                        .kept = content_text,
                        .out = scratch,
                        .flags = flags};
    if (made_from_iacp(fipa))
        iacp_from_iacp_origin(&t);
    else if (!other_fipa_to_iacp(&t, sink, at))
        return false;
    else
        *passes = other_line_passes(c->cfg.now, fipa);
    keep_content_text(&t);
    member_list_write(scratch, out, flags);
    return true;
}

/* What following the way back of a message made from IACP reads of its members: the trail of
 * its draft (convert_fipa_iacp_draft). */
static struct iacp_trail *trail_of_members(const struct member_list *l, const struct jv *fipa,
                                           struct arena *memory)
{
    static const char *const names[] = {"kind", "id", "from", "to", "ref", "ts"};
    const struct member *found[6];
    member_list_find_each(l, names, 6, found);
    const char *const strings[] = {
        member_string(l, found[1]),
        member_string(l, found[2]),
        member_string(l, found[3]),
        member_string(l, found[4]),
        jv_member_string(fipa, "conversation_id"),
    };
    double value = 0, ts = 0;
    bool number = member_number(found[5], &value); /* before value is read */
    bool timed = ts_seconds(number, value, &ts);
    struct iacp_trail *trail = make_trail(memory, member_string(l, found[0]), timed, ts, strings);
    trail->first = l->n == 0;
    return trail;
}

/* The way back of a message made from IACP, whose hole is at its object's end, where following
 * it may add x-fipa-conversation_id. */
static bool draft_from_iacp(struct to_iacp *t, struct strbuf *out, size_t *hole,
                            struct arena *memory, struct iacp_trail **trail)
{
    back_members(t);
    /* an x-fipa-conversation_id of its own keeps its place, which the stream may fill */
    static const char *const kept_name[] = {"x-fipa-conversation_id"};
    const struct member *found[1];
    member_list_find_each(t->out, kept_name, 1, found);
    if (found[0])
        return false;
    *trail = trail_of_members(t->out, t->fipa, memory);
    keep_content_text(t);
    member_list_write(t->out, out, t->flags);
    *hole = out->len - 2; /* the object's "}" */
    return true;
}

/* FIPA of its own, whose hole is its id's "" where the id is made up along the stream.
 * Drafted only when its line passes the IACP rules as made, so that nothing is checked or
 * reported of it in the worker: the rest is converted whole in order. */
static bool draft_of_its_own(struct to_iacp *t, struct strbuf *out, size_t *hole,
                             struct arena *memory, struct iacp_trail **trail)
{
    if (!other_line_passes(t->now, t->fipa) || !other_fipa_to_iacp(t, NULL, NULL))
        return false;
    static const char *const names[] = {"kind", "id", "from"};
    const struct member *found[3];
    member_list_find_each(t->out, names, 3, found);
    const char *const strings[] = {member_string(t->out, found[1]), member_string(t->out, found[2]),
                                   NULL, NULL, NULL};
    *trail = make_trail(memory, member_string(t->out, found[0]), t->timed, t->ts, strings);
    (*trail)->fresh = t->fresh;
    keep_content_text(t);
    *hole = member_list_write_finding(t->out, out, t->flags, "id");
    (*trail)->hole_len = CONVERT_HOLE_LEN;
    return true;
}

bool convert_fipa_iacp_draft(const struct jv *fipa, const struct json_text *content_text,
                             time_t now, struct member_list *scratch, struct strbuf *out,
                             unsigned flags, bool *passes, size_t *hole, struct arena *memory,
                             struct iacp_trail **trail)
{
    bool way_back = made_from_iacp(fipa);
    /* the way back's x-iacp- members may say anything; a draft of its own passes or is none */
    *passes = !way_back;
    member_list_reset(scratch);
    struct to_iacp t = {.now = now,
                        .fipa = fipa,
                        .content = jv_object_get(fipa, "content"),
                        .kept = content_text,
                        .out = scratch,
                        .flags = flags};
    return way_back ? draft_from_iacp(&t, out, hole, memory, trail)
                    : draft_of_its_own(&t, out, hole, memory, trail);
}

bool convert_draft_may_not_hold(const struct iacp_trail *t)
{
    return t->kind == IACP_FIPA;
}

/* Follows FIPA of its own as other_fipa_to_iacp does: its id noted, or made up into fill. */
static enum followed_draft follow_its_own(struct converter *c, const struct iacp_trail *t,
                                          unsigned flags, struct strbuf *fill)
{
    /* what its conversion would do otherwise, it has to do itself: no draft holds (the ids read
     * no clock, so this is what other_fipa_to_iacp would find after reading it) */
    if (t->fresh ? c->cfg.seed_from_input : idgen_seen(c->ids, t->from, t->id))
        return FOLLOWED_AGAIN;
    read_clock(c, t->from, t->timed, t->ts);
    if (!t->fresh) {
        idgen_note(c->ids, t->from, t->id, c->now);
        return FOLLOWED_WHOLE;
    }
    /* idgen_fresh notes the id it gives: other_fipa_to_iacp's note of it again changes nothing */
    const char *id = idgen_fresh(c->ids, t->from, c->now);
    struct jsonout w;
    jsonout_init(&w, fill, flags);
    jsonout_string(&w, id, strlen(id));
    return FOLLOWED_FILL;
}

enum followed_draft convert_fipa_follow(struct converter *c, const struct iacp_trail *t,
                                        unsigned flags, struct strbuf *fill)
{
    if (t->kind == IACP_FIPA)
        return follow_its_own(c, t, flags, fill);
    read_clock(c, t->from, t->timed, t->ts);
    struct envelope e = {t->kind, t->id, t->from, t->to, t->ref};
    const char *found = follow(c, &e).conversation;
    bool keeps = t->conversation && !(found && strcmp(t->conversation, found) == 0);
    if (keeps && t->id)
        correct_conversation(c, t->from, t->id, t->conversation);
    if (t->id)
        idgen_note(c->ids, t->from, t->id, c->now);
    if (!keeps)
        return FOLLOWED_WHOLE;
    if (!t->first)
        sb_addc(fill, ',');
    struct jsonout w;
    jsonout_init(&w, fill, flags);
    jsonout_key_literal(&w, "x-fipa-conversation_id", strlen("x-fipa-conversation_id"));
    jsonout_string(&w, t->conversation, strlen(t->conversation));
    return FOLLOWED_FILL;
}

/* --- fipa.<act> IACP -> FIPA: the way back of convert_fipa_iacp_line --- */

static bool listed(const json_t *absent, const char *member)
{
    size_t i;
    json_t *v;
    json_array_foreach(absent, i, v) if (json_is_string(v) &&
                                         strcmp(json_string_value(v), member) == 0) return true;
    return false;
}

/* Whether ts says no more than the FIPA timestamp does: whole unix seconds (written as the
 * timestamp), or what map_timestamp made of the x-fipa-timestamp that travels beside it. */
static bool ts_mapped(const json_t *iacp, const json_t *ts)
{
    long long t;
    if (unix_seconds(ts, &t))
        return true;
    const json_t *timestamp = json_object_get(iacp, "x-fipa-timestamp");
    if (json_is_number(timestamp))
        return json_equal(timestamp, ts);
    json_t *seconds = timestamp_seconds(timestamp);
    bool same = seconds && json_equal(seconds, ts);
    json_decref(seconds);
    return same;
}

/* One fipa.<act> IACP message on its way back to FIPA: the FIPA members that two IACP members
 * may stand for are written at the first of them. */
struct from_fipa_kind {
    struct converter *c;
    const json_t *iacp;
    const json_t *absent;
    bool reply_with, sender, receiver, timestamp, content;
};

static void first_of_two(json_t *out, const char *name, json_t *v, bool *done)
{
    if (!*done && v)
        json_object_set_nocheck(out, name, v);
    *done = true;
}

/* A body that the way back would not make of the content says so (see body_marker). */
static void back_to_content(struct from_fipa_kind *b, json_t *out)
{
    json_t *body = json_object_get(b->iacp, "body");
    json_t *content = json_object_get(b->iacp, "x-fipa-content");
    first_of_two(out, "content", content ? content : body, &b->content);
    bool body_said = json_is_object(body) || content || (!body && listed(b->absent, "content"));
    if (!body_said && !json_object_get(out, "x-iacp-body"))
        json_object_set_new_nocheck(out, "x-iacp-body", body ? json_incref(body) : json_null());
}

static void back_to_timestamp(struct from_fipa_kind *b, json_t *out, const char *key, json_t *v)
{
    json_t *timestamp = json_object_get(b->iacp, "x-fipa-timestamp");
    long long t;
    if (timestamp)
        first_of_two(out, "timestamp", timestamp, &b->timestamp);
    else if (!listed(b->absent, "timestamp") && unix_seconds(v, &t) && !b->timestamp) {
        json_object_set_new_nocheck(out, "timestamp", rfc3339(b->c, t));
        b->timestamp = true;
    }
    if (is(key, "ts") && !ts_mapped(b->iacp, v))
        json_object_set_nocheck(out, "x-iacp-ts", v);
}

static void member_back_to_fipa(struct from_fipa_kind *b, json_t *out, const char *key, json_t *v)
{
    json_t *x_sender = json_object_get(b->iacp, "x-fipa-sender");
    json_t *x_receiver = json_object_get(b->iacp, "x-fipa-receiver");
    json_t *x_reply_with = json_object_get(b->iacp, "x-fipa-reply_with");
    const char *version = json_string_value(v);
    if (is(key, "kind") || is(key, "x-fipa-absent")) {
        return;
    } else if (is(key, "v")) {
        if (!version || strcmp(version, "1.1") != 0)
            json_object_set_nocheck(out, "x-iacp-v", v);
    } else if (is(key, "id") || is(key, "x-fipa-reply_with")) {
        json_t *reply_with = x_reply_with                      ? x_reply_with
                             : listed(b->absent, "reply_with") ? NULL
                                                               : json_object_get(b->iacp, "id");
        first_of_two(out, "reply_with", reply_with, &b->reply_with);
    } else if (is(key, "from") || is(key, "x-fipa-sender")) {
        first_of_two(out, "sender", x_sender ? x_sender : v, &b->sender);
    } else if (is(key, "to") || is(key, "x-fipa-receiver")) {
        first_of_two(out, "receiver", x_receiver ? x_receiver : v, &b->receiver);
    } else if (is(key, "ref")) {
        json_object_set_nocheck(out, "in_reply_to", v);
    } else if (is(key, "ts") || is(key, "x-fipa-timestamp")) {
        back_to_timestamp(b, out, key, v);
    } else if (is(key, "body") || is(key, "x-fipa-content")) {
        back_to_content(b, out);
    } else if (starts_with(key, "x-fipa-")) {
        json_object_set_nocheck(out, key + 7, v);
    } else {
        set_prefixed(out, "x-iacp-", key, v);
    }
}

static json_t *fipa_from_fipa_kind(struct converter *c, json_t *iacp, enum fipa_act act)
{
    struct from_fipa_kind b = {
        .c = c, .iacp = iacp, .absent = json_object_get(iacp, "x-fipa-absent")};
    json_t *out = json_object();
    json_object_set_new_nocheck(out, "performative", valid_string(fipa_act_name(act, SPELL_SNAKE)));
    const char *key;
    json_t *v;
    json_object_foreach(iacp, key, v)
    {
        member_back_to_fipa(&b, out, key, v);
    }
    if (!b.content && !listed(b.absent, "content")) { /* no body: {} said so, and the marker */
        json_object_set_new_nocheck(out, "content", json_object());
        json_object_set_new_nocheck(out, "x-iacp-body", json_null());
    }
    /* Missing members that IACP requires come back missing (null) rather than made up. */
    if (!json_object_get(iacp, "ts"))
        json_object_set_new_nocheck(out, "x-iacp-ts", json_null());
    if (!json_object_get(iacp, "v"))
        json_object_set_new_nocheck(out, "x-iacp-v", json_null());
    return out;
}

bool convert_respell(json_t *fipa, enum fipa_spelling spelling)
{
    const char *performative = json_member_string(fipa, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID)
        return false;
    json_object_set_new_nocheck(fipa, "performative", valid_string(fipa_act_name(act, spelling)));
    return true;
}

bool convert_maps(enum protocol proto)
{
    return proto == PROTO_IACP || proto == PROTO_FIPA; /* dialect: the mapping is these two's */
}
