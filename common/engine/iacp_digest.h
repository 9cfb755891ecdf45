/* What the IACP stream checks read of a message, made before they look at any state: with --jobs
 * in a worker thread (iacp_stream.c's stream_ops.digest), else by the thread that follows the
 * stream. Private to iacp_stream.c and iacp_digest.c. */
#ifndef ACP_IACP_DIGEST_H
#define ACP_IACP_DIGEST_H

#include <stdint.h>
#include <string.h>

#include "proto/iacp.h"

/* What the rules read of a message's body, but its node (fields.node). */
struct body_facts {
    double deadline; /* an assign's body.deadline; NAN when it is no number */
    uint32_t slots;  /* a heartbeat's body.slots, 0 unless a non-negative integer */
    bool status_ok;  /* body.status absent or "ok" */
    bool partial;    /* body.partial is true */
};

/* All the stream checks read of a message, and the keys they make of it (hashed), made before
 * they look at any state (iacp_digest_make): with --jobs a worker thread makes it
 * (iacp_stream_digest), and the thread that keeps the order, whose time bounds the speed of -j,
 * reads this one allocation where it walked the members, made the keys and read strings in another
 * core's cache; nor need the workers keep the message's view for it. Strings are copies in text, at
 * offsets (NO_TEXT: absent). */
struct iacp_digest {
    bool followed; /* the envelope the checks need is there; else only id is set */
    bool legacy;
    enum iacp_kind kind;
    double ts; /* in seconds */
    struct body_facts body;
    /* of from and to if short enough to be remembered as they are (name_form); to_hash: as
     * fields.to_hash */
    size_t from_hash, to_hash;
    size_t node_hash; /* of an assign's body.node if short enough to be remembered as it is */
    size_t own_len, own_hash; /* the hashes of keys of at most KEY_KEPT_BYTES only */
    size_t ref_len, ref_hash; /* ref_len SIZE_MAX: no ref key */
    size_t id, from, to, ref, node;
    char text[]; /* the own key (at 0), a NUL, the ref key, a NUL, then the strings */
};

static const size_t NO_TEXT = SIZE_MAX;

static inline bool is_reply(enum iacp_kind k)
{
    return k == IACP_TASK_ACCEPT || k == IACP_TASK_REJECT || k == IACP_TASK_RESULT ||
           k == IACP_TASK_CANCEL || k == IACP_TOOL_REPLY;
}

/* Whether the message a reply's ref names is its sender's own: a task.cancel names its sender's
 * assign; any other reply names a message of the agent it goes to. */
static inline bool ref_is_senders(enum iacp_kind k)
{
    return k == IACP_TASK_CANCEL;
}

/* The kinds whose following looks up the agent a message goes to: the forager of an assign
 * (open_task), the agent a control is for (note_control). */
static inline bool names_agent_to(enum iacp_kind k)
{
    return k == IACP_TASK_ASSIGN || k == IACP_CTL_DRAIN || k == IACP_CTL_HALT;
}

/* A string member of obj, or NULL. */
static inline const struct jv *string_member(const struct jv *obj, const char *key)
{
    const struct jv *value = jv_object_get(obj, key);
    return jv_is_string(value) ? value : NULL;
}

/* The digest's text as it is written: room was made for all of it beforehand (digest_room). */
struct digest_text {
    char *start, *end;
};

/* "<length of agent>:<agent><id>": an id's key in the maps, for ids of different senders; with
 * its NUL. Returns its length. */
size_t iacp_digest_put_key(struct digest_text *t, const struct jv *agent, const char *id,
                           size_t id_len);

/* Makes m's digest in into (which it empties), or given NULL in memory of m's (message_alloc). */
struct iacp_digest *iacp_digest_make(struct strbuf *into, const struct message *m);

static inline const char *iacp_digest_id(const struct iacp_digest *d)
{
    return d->id == NO_TEXT ? NULL : d->text + d->id;
}

static inline const char *iacp_digest_string(const struct iacp_digest *d, size_t at)
{
    return at == NO_TEXT ? NULL : d->text + at;
}

#endif
