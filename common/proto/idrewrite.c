#include "proto/idrewrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyform.h"
#include "base/list.h"
#include "base/strmap.h"
#include "proto/dialect.h"
#include "proto/idgen.h"

/* The mapping's bound, the stream checks' window of ids at the defaults (--max-open): a
 * duplicate id of the recording stays one within it; and how many fresh ids the generator
 * remembers, which it needs only to skip the ones noted as used, and replays note none. */
enum { MAX_REMEMBERED = 100000, GENERATOR_MEMORY = 1024 };
/* The most bytes of live ids the mapping holds: a live agent chooses its ids, which may be long;
 * the least recently used mappings go first past it. Fresh ids are short (idgen.h). */
enum { LIVE_BYTES_MAX = 16 << 20 };

/* The recorded id and its owner are kept in the form they are remembered by (keyform.h): a long
 * one by its digest, so that what a mapping holds is bounded by its live id. */
struct mapping {
    struct list_link age; /* in order of last use */
    char *recorded;
    char *live;
    bool owned;  /* set by the message that carries the id, not only by a reference to it */
    char *owner; /* the sender of the message that carried it, or NULL: an IACP id is unique per
                  * sender, so only the same sender's id again is a duplicate */
};

struct idrewrite {
    struct strmap *map; /* recorded id -> struct mapping */
    struct list ages;
    struct idgen *ids;
    size_t live_bytes;         /* of the live ids of the mappings */
    struct siphash_key secret; /* the digests of long ids and names */
    struct key_form_buf recorded_form, owner_form;
};

/* A recorded id or an owner's name as the mapping remembers it, in buf when it is long. */
static const char *kept(const struct idrewrite *r, const char *text, struct key_form_buf *buf)
{
    size_t len;
    return text ? key_form(&r->secret, text, strlen(text), buf, &len) : NULL;
}

struct idrewrite *idrewrite_new(unsigned long seed)
{
    struct idrewrite *r = xcalloc(1, sizeof *r);
    r->map = strmap_new();
    struct idgen_config ids = {.seed = seed, .keep_for = INFINITY, .max_ids = GENERATOR_MEMORY};
    r->ids = idgen_new(&ids);
    key_secret_draw(&r->secret);
    return r;
}

static void mapping_free(void *p)
{
    struct mapping *m = p;
    free(m->recorded);
    free(m->live);
    free(m->owner);
    free(m);
}

void idrewrite_free(struct idrewrite *r)
{
    if (!r)
        return;
    strmap_free(r->map, mapping_free);
    idgen_free(r->ids);
    free(r);
}

void idrewrite_forget(struct idrewrite *r)
{
    strmap_free(r->map, mapping_free);
    r->map = strmap_new();
    r->ages = (struct list){NULL, NULL, 0};
    r->live_bytes = 0;
}

/* The one place fresh ids are made: the toolkit's generator, in the style of the id replaced.
 * owner is the agent whose id it is, when known (the sender of the message, or the receiver of a
 * reply for the id it answers). The ids are made as the unnamed sender's, so that they are
 * unique across senders too, as they were when replays had a generator of their own. */
static char *fresh_id(struct idrewrite *r, const char *recorded, const char *owner)
{
    (void)owner;
    return xstrdup(idgen_fresh_like(r->ids, NULL, recorded, NAN));
}

static void touch(struct idrewrite *r, struct mapping *m)
{
    list_remove(&r->ages, &m->age);
    list_append(&r->ages, &m->age);
}

static void forget_oldest(struct idrewrite *r)
{
    struct mapping *oldest = LIST_ITEM(r->ages.head, struct mapping, age);
    list_remove(&r->ages, &oldest->age);
    strmap_remove(r->map, oldest->recorded);
    r->live_bytes -= strlen(oldest->live);
    mapping_free(oldest);
}

/* Maps recorded (in the form it is remembered by) to live, which it takes. */
static struct mapping *put(struct idrewrite *r, const char *recorded, char *live, bool owned)
{
    struct mapping *m = strmap_get(r->map, recorded);
    if (m) {
        r->live_bytes -= strlen(m->live);
        free(m->live);
        touch(r, m);
    } else {
        if (r->ages.size >= MAX_REMEMBERED)
            forget_oldest(r);
        m = xcalloc(1, sizeof *m);
        m->recorded = xstrdup(recorded);
        strmap_put(r->map, recorded, m);
        list_append(&r->ages, &m->age);
    }
    m->live = live;
    m->owned = owned;
    r->live_bytes += strlen(live);
    while (r->live_bytes > LIVE_BYTES_MAX && r->ages.head != &m->age)
        forget_oldest(r);
    return m;
}

void idrewrite_bind(struct idrewrite *r, const char *recorded, const char *live)
{
    put(r, kept(r, recorded, &r->recorded_form), xstrdup(live), true);
}

const char *idrewrite_lookup(const struct idrewrite *r, const char *recorded)
{
    struct key_form_buf buf;
    struct mapping *m = strmap_get(r->map, kept(r, recorded, &buf));
    return m ? m->live : NULL;
}

static bool set_string(json_t *root, const char *key, const char *value)
{
    if (strcmp(json_string_value(json_object_get(root, key)), value) == 0)
        return false;
    json_object_set_new(root, key, json_string(value));
    return true;
}

/* The name of an agent identifier (a string, an object's name, or an array's first item). */
static const char *agent_name(const json_t *v)
{
    if (json_is_array(v))
        v = json_array_get(v, 0);
    if (json_is_object(v))
        v = json_object_get(v, "name");
    return json_string_value(v);
}

/* Whether the message of sender that carries an id mapped as m carries the same id again: the
 * same sender's (a duplicate of the recording, which stays one), or any sender's when m came
 * from a reference (the message takes the id that reference was given). */
static bool same_id(const struct mapping *m, const char *sender)
{
    if (!m->owned)
        return true;
    if (!m->owner || !sender)
        return !m->owner && !sender;
    return strcmp(m->owner, sender) == 0;
}

static bool rewrite_own(struct idrewrite *r, json_t *root, const char *key, const char *owner)
{
    const char *recorded = json_string_value(json_object_get(root, key));
    if (!recorded)
        return false;
    const char *form = kept(r, recorded, &r->recorded_form);
    owner = kept(r, owner, &r->owner_form);
    struct mapping *m = strmap_get(r->map, form);
    if (m && same_id(m, owner)) {
        m->owned = true;
        touch(r, m);
    } else {
        m = put(r, form, fresh_id(r, recorded, owner), true);
    }
    if (owner && (!m->owner || strcmp(m->owner, owner) != 0)) {
        free(m->owner);
        m->owner = xstrdup(owner);
    }
    return set_string(root, key, m->live);
}

static bool rewrite_reference(struct idrewrite *r, json_t *root, const char *key, bool fresh,
                              const char *owner)
{
    const char *recorded = json_string_value(json_object_get(root, key));
    if (!recorded)
        return false;
    const char *form = kept(r, recorded, &r->recorded_form);
    struct mapping *m = strmap_get(r->map, form);
    if (m)
        touch(r, m);
    else if (fresh)
        m = put(r, form, fresh_id(r, recorded, owner), false);
    return m && set_string(root, key, m->live);
}

bool idrewrite_message(struct idrewrite *r, json_t *root, enum protocol proto, bool fresh)
{
    const struct dialect *d = dialect_of(proto);
    if (!d || !d->answers_member) /* ids that no member of another names: nothing to pair */
        return false;
    const char *sender = agent_name(dialect_member_of_tree(root, d->sender_member));
    const char *receiver = agent_name(dialect_member_of_tree(root, d->receivers_member));
    bool changed = false;
    if (fresh)
        changed |= rewrite_own(r, root, d->id.name, sender);
    changed |= rewrite_reference(r, root, d->answers_member, fresh, receiver);
    changed |= rewrite_reference(r, root, "conversation_id", fresh, NULL);
    return changed;
}
