#include "engine/iacp_digest.h"

#include <math.h>
#include <stddef.h>

#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/timeutil.h"

static bool key_is(const struct jv *key, const char *name, size_t len)
{
    return key->len == len && memcmp(key->u.s, name, len) == 0;
}

/* The members the stream checks read: NULL when absent or not of the type they need. */
struct envelope {
    const struct jv *kind, *v, *ts, *from, *to, *ref, *body;
};

/* The envelope in one walk over the members: a lookup each would walk them seven times. */
static struct envelope read_envelope(const struct jv *view)
{
    struct envelope e = {0};
    for (const struct jv *k = jv_object_first(view); k; k = jv_object_next(view, k)) {
        const struct jv *value = jv_object_value(k);
        const struct jv *string = value->type == JV_STRING ? value : NULL;
        if (key_is(k, "kind", 4))
            e.kind = string;
        else if (key_is(k, "v", 1))
            e.v = string;
        else if (key_is(k, "ts", 2))
            e.ts = value;
        else if (key_is(k, "from", 4))
            e.from = string;
        else if (key_is(k, "to", 2))
            e.to = string;
        else if (key_is(k, "ref", 3))
            e.ref = string;
        else if (key_is(k, "body", 4))
            e.body = jv_is_object(value) ? value : NULL;
    }
    return e;
}

/* "<length of agent>:<agent><id>": an id's key in the maps, for ids of different senders; with
 * its NUL. Returns its length. */
size_t iacp_digest_put_key(struct digest_text *t, const struct jv *agent, const char *id,
                           size_t id_len)
{
    size_t agent_len = agent->len;
    char digits[24], *end = digits + sizeof digits, *d = end;
    *--d = ':';
    do /* by hand: vsnprintf would cost more than the lookups */
        *--d = (char)('0' + agent_len % 10);
    while ((agent_len /= 10) != 0);
    char *key = t->end;
    memcpy(t->end, d, (size_t)(end - d));
    t->end += end - d;
    memcpy(t->end, agent->u.s, agent->len);
    t->end += agent->len;
    memcpy(t->end, id, id_len);
    t->end += id_len;
    *t->end++ = '\0';
    return (size_t)(t->end - 1 - key);
}

/* A string with its NUL; returns its offset in the text. */
static size_t put_text(struct digest_text *t, const char *text, size_t len)
{
    size_t at = (size_t)(t->end - t->start);
    memcpy(t->end, text, len);
    t->end += len;
    *t->end++ = '\0';
    return at;
}

static size_t put_string(struct digest_text *t, const struct jv *string)
{
    return string ? put_text(t, string->u.s, string->len) : NO_TEXT;
}

static size_t length_of(const struct jv *string)
{
    return string ? string->len : 0;
}

/* Bytes enough for the digest's text: each string and key with its NUL, a key's length prefix of
 * at most 20 digits and a colon. */
static size_t digest_room(const struct envelope *e, size_t id_len, const struct jv *node)
{
    size_t from = length_of(e->from), to = length_of(e->to), ref = length_of(e->ref);
    return 22 + from + id_len + 22 + (from > to ? from : to) + ref + from + to + ref +
           length_of(node) + id_len + 5;
}

static struct body_facts read_body(const struct jv *body, enum iacp_kind kind)
{
    const char *status = jv_member_string(body, "status");
    struct body_facts b = {
        .deadline = NAN,
        .status_ok = !status || strcmp(status, "ok") == 0,
        .partial = jv_is_true(jv_object_get(body, "partial")),
    };
    if (kind == IACP_TASK_ASSIGN) {
        const struct jv *deadline = jv_object_get(body, "deadline");
        if (jv_is_number(deadline))
            b.deadline = jv_number_value(deadline);
    }
    if (kind == IACP_HB) {
        const struct jv *slots = jv_object_get(body, "slots");
        if (jv_is_integer(slots) && jv_integer_value(slots) >= 0)
            b.slots = jv_integer_value(slots) > UINT32_MAX ? UINT32_MAX
                                                           : (uint32_t)jv_integer_value(slots);
    }
    return b;
}

/* The keys, the strings and the body's facts of a followed message. */
static void digest_fields(struct digest_text *t, const struct message *m, size_t id_len,
                          const struct envelope *e, const struct jv *node, struct iacp_digest *d)
{
    /* a long name is hashed in the form it is remembered by, which only the stream can make */
    if (e->from->len <= KEY_SHOWN_BYTES)
        d->from_hash = hashtab_hash_len(e->from->u.s, e->from->len);
    if (names_agent_to(d->kind) && e->to->len <= KEY_SHOWN_BYTES)
        d->to_hash = hashtab_hash_len(e->to->u.s, e->to->len);
    if (node && node->len <= KEY_SHOWN_BYTES)
        d->node_hash = hashtab_hash_len(node->u.s, node->len);
    /* a key longer than KEY_KEPT_BYTES is hashed in the form it is remembered by, which only the
     * stream can make (remembered): hashed here as well, a 1 MB id was read once for nothing */
    d->own_len = iacp_digest_put_key(t, e->from, m->id, id_len);
    if (d->own_len <= KEY_KEPT_BYTES)
        d->own_hash = hashtab_hash_len(t->start, d->own_len);
    d->id = d->own_len - id_len; /* the key ends with it */
    if (is_reply(d->kind) && e->ref) {
        const struct jv *owner = ref_is_senders(d->kind) ? e->from : e->to;
        const char *key = t->end;
        d->ref_len = iacp_digest_put_key(t, owner, e->ref->u.s, e->ref->len);
        if (d->ref_len <= KEY_KEPT_BYTES)
            d->ref_hash = hashtab_hash_len(key, d->ref_len);
    }
    d->from = put_string(t, e->from);
    d->to = put_string(t, e->to);
    d->ref = put_string(t, e->ref);
    d->node = put_string(t, node);
    d->body = read_body(e->body, d->kind);
}

struct iacp_digest *iacp_digest_make(struct strbuf *into, const struct message *m)
{
    struct envelope e = read_envelope(m->view);
    struct iacp_digest d = {
        .ref_len = SIZE_MAX,
        .id = NO_TEXT,
        .from = NO_TEXT,
        .to = NO_TEXT,
        .ref = NO_TEXT,
        .node = NO_TEXT,
    };
    d.followed = e.kind && e.from && e.to && m->id && jv_is_number(e.ts);
    if (d.followed) {
        d.kind = iacp_kind_parse(jv_string_value(e.kind));
        d.ts = jv_number_value(e.ts);
        d.legacy = e.v && iacp_version_parse(jv_string_value(e.v)) == IACP_V1_0;
        /* A ts beyond any era (iacp-ts-range) says no time at all; one in milliseconds
         * (iacp-ts-millis) would age the stream by years. */
        d.followed = d.ts <= UNIX_NO_TIME_ABOVE;
        if (d.ts > UNIX_MILLISECONDS_ABOVE)
            d.ts /= 1000;
    }
    const struct jv *node =
        d.followed && d.kind == IACP_TASK_ASSIGN ? string_member(e.body, "node") : NULL;
    size_t id_len = m->id ? strlen(m->id) : 0;
    /* sized at once: grown as it was written, the digest was copied over and over */
    size_t size = offsetof(struct iacp_digest, text) + digest_room(&e, id_len, node);
    char *memory;
    if (into) {
        sb_reset(into);
        sb_grow(into, size);
        memory = into->buf;
    } else {
        memory = message_alloc(m, size);
    }
    struct iacp_digest *digest = (struct iacp_digest *)(void *)memory; /* malloc's: aligned */
    struct digest_text t = {digest->text, digest->text};
    if (d.followed)
        digest_fields(&t, m, id_len, &e, node, &d);
    else if (m->id)
        d.id = put_text(&t, m->id, id_len);
    memcpy(memory, &d, offsetof(struct iacp_digest, text));
    return digest;
}
