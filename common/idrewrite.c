#include "idrewrite.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "strmap.h"

enum { MAX_REMEMBERED = 100000 };

enum style { STYLE_QUEEN, STYLE_FORAGER, STYLE_OTHER, STYLE_COUNT };

struct mapping {
    struct list_link age; /* in order of last use */
    char *recorded;
    char *live;
    bool owned; /* set by the message that carries the id, not only by a reference to it */
};

struct idrewrite {
    struct strmap *map; /* recorded id -> struct mapping */
    struct list ages;
    uint64_t key;
    uint64_t counter[STYLE_COUNT];
};

struct idrewrite *idrewrite_new(unsigned long seed)
{
    struct idrewrite *r = xcalloc(1, sizeof *r);
    r->map = strmap_new();
    r->key = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    return r;
}

static void mapping_free(void *p)
{
    struct mapping *m = p;
    free(m->recorded);
    free(m->live);
    free(m);
}

void idrewrite_free(struct idrewrite *r)
{
    if (!r)
        return;
    strmap_free(r->map, mapping_free);
    free(r);
}

void idrewrite_forget(struct idrewrite *r)
{
    strmap_free(r->map, mapping_free);
    r->map = strmap_new();
    r->ages = (struct list){NULL, NULL, 0};
}

/* A bijection of the numbers below 2^bits, keyed: counting through it never repeats a value
 * within 2^bits steps, and looks random. Each step (adding, multiplying by an odd number, a right
 * xorshift) is invertible modulo 2^bits. */
static uint64_t permute(uint64_t x, unsigned bits, uint64_t key)
{
    uint64_t mask = (1ULL << bits) - 1;
    x = (x + key) & mask;
    for (int round = 0; round < 3; round++) {
        x = (x * 0xD6E8FEB86659FD93ULL) & mask;
        x ^= x >> (bits / 2);
        x = (x + (key >> (8 * round + 5))) & mask;
    }
    return x;
}

static bool all_hex(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr("0123456789abcdefABCDEF", *s))
            return false;
    return true;
}

static enum style style_of(const char *id)
{
    if (strncmp(id, "q-", 2) == 0 && all_hex(id + 2))
        return STYLE_QUEEN;
    if (strncmp(id, "m-", 2) == 0 && strlen(id) == 8 && all_hex(id + 2))
        return STYLE_FORAGER;
    return STYLE_OTHER;
}

/* The one place fresh ids are made (see idrewrite.h). owner is the agent whose id it is, when
 * known (the sender of the message, or the receiver of a reply for the id it answers): what a
 * per-sender generator such as idgen_fresh() needs. */
static char *fresh_id(struct idrewrite *r, const char *recorded, const char *owner)
{
    (void)owner; /* one counter per style for now, so ids are unique across senders too */
    enum style style = style_of(recorded);
    uint64_t n = r->counter[style]++;
    struct strbuf id = STRBUF_INIT;
    switch (style) {
    case STYLE_QUEEN:
        sb_addf(&id, "q-%08" PRIx64, permute(n, 32, r->key));
        break;
    case STYLE_FORAGER:
        sb_addf(&id, "m-%06" PRIx64, permute(n, 24, r->key));
        break;
    default: {
        const char *dash = strrchr(recorded, '-'), *under = strrchr(recorded, '_');
        const char *cut = dash > under ? dash : under;
        if (cut)
            sb_add(&id, recorded, (size_t)(cut - recorded) + 1);
        else
            sb_addf(&id, "%s-", recorded);
        sb_addf(&id, "%012" PRIx64, permute(n, 48, r->key));
        break;
    }
    }
    return sb_detach(&id);
}

static void touch(struct idrewrite *r, struct mapping *m)
{
    list_remove(&r->ages, &m->age);
    list_append(&r->ages, &m->age);
}

static struct mapping *put(struct idrewrite *r, const char *recorded, char *live, bool owned)
{
    struct mapping *m = strmap_get(r->map, recorded);
    if (m) {
        free(m->live);
        touch(r, m);
    } else {
        if (r->ages.size >= MAX_REMEMBERED) {
            struct mapping *oldest = LIST_ITEM(r->ages.head, struct mapping, age);
            list_remove(&r->ages, &oldest->age);
            strmap_remove(r->map, oldest->recorded);
            mapping_free(oldest);
        }
        m = xcalloc(1, sizeof *m);
        m->recorded = xstrdup(recorded);
        strmap_put(r->map, recorded, m);
        list_append(&r->ages, &m->age);
    }
    m->live = live;
    m->owned = owned;
    return m;
}

void idrewrite_bind(struct idrewrite *r, const char *recorded, const char *live)
{
    put(r, recorded, xstrdup(live), true);
}

const char *idrewrite_lookup(const struct idrewrite *r, const char *recorded)
{
    struct mapping *m = strmap_get(r->map, recorded);
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

static bool rewrite_own(struct idrewrite *r, json_t *root, const char *key, const char *owner)
{
    const char *recorded = json_string_value(json_object_get(root, key));
    if (!recorded)
        return false;
    struct mapping *m = strmap_get(r->map, recorded);
    if (m && !m->owned) {
        /* A reference came first: the message takes the id that reference was given. */
        m->owned = true;
        touch(r, m);
    } else {
        m = put(r, recorded, fresh_id(r, recorded, owner), true);
    }
    return set_string(root, key, m->live);
}

static bool rewrite_reference(struct idrewrite *r, json_t *root, const char *key, bool fresh,
                              const char *owner)
{
    const char *recorded = json_string_value(json_object_get(root, key));
    if (!recorded)
        return false;
    struct mapping *m = strmap_get(r->map, recorded);
    if (m)
        touch(r, m);
    else if (fresh)
        m = put(r, recorded, fresh_id(r, recorded, owner), false);
    return m && set_string(root, key, m->live);
}

bool idrewrite_message(struct idrewrite *r, json_t *root, enum protocol proto, bool fresh)
{
    bool fipa = proto == PROTO_FIPA;
    const char *sender = agent_name(json_object_get(root, fipa ? "sender" : "from"));
    const char *receiver = agent_name(json_object_get(root, fipa ? "receiver" : "to"));
    bool changed = false;
    if (fresh)
        changed |= rewrite_own(r, root, fipa ? "reply_with" : "id", sender);
    changed |= rewrite_reference(r, root, fipa ? "in_reply_to" : "ref", fresh, receiver);
    changed |= rewrite_reference(r, root, "conversation_id", fresh, NULL);
    return changed;
}
