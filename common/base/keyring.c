#include "base/keyring.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const char *entry_key(const struct hash_node *node)
{
    return HASH_ITEM(node, const struct ring_entry, node)->key;
}

static void forget(struct key_ring *r, struct ring_entry *e)
{
    if (e && e->kept) {
        hashtab_remove_hashed(&r->table, &e->node, e->hash);
        e->kept = false;
    }
}

void key_ring_put(struct key_ring *r, size_t cap, const char *key, const char *file,
                  unsigned long line)
{
    key_ring_put_hashed(r, cap, key, hashtab_hash(key), file, line);
}

void key_ring_put_hashed(struct key_ring *r, size_t cap, const char *key, size_t hash,
                         const char *file, unsigned long line)
{
    if (!r->cap) {
        r->cap = cap;
        r->slots = xcalloc(cap, sizeof *r->slots);
        r->table = (struct hashtab){.key = entry_key};
    }
    forget(r, HASH_ITEM(hashtab_find_hashed(&r->table, key, hash), struct ring_entry, node));
    struct ring_entry **slot = &r->slots[r->next];
    r->next = (r->next + 1) % r->cap;
    forget(r, *slot);
    if (!*slot)
        *slot = xmalloc(sizeof **slot);
    struct ring_entry *e = *slot;
    *e = (struct ring_entry){.file = file, .line = line, .hash = (uint32_t)hash, .kept = true};
    size_t len = strnlen(key, KEY_KEPT_BYTES); /* a key's form: never longer */
    memcpy(e->key, key, len);
    e->key[len] = '\0';
    hashtab_add_hashed(&r->table, &e->node, hash);
}

const struct ring_entry *key_ring_get(const struct key_ring *r, const char *key)
{
    return r->cap ? key_ring_get_hashed(r, key, hashtab_hash(key)) : NULL;
}

const struct ring_entry *key_ring_get_hashed(const struct key_ring *r, const char *key, size_t hash)
{
    if (!r->cap)
        return NULL;
    return HASH_ITEM(hashtab_find_hashed(&r->table, key, hash), const struct ring_entry, node);
}

void key_ring_free(struct key_ring *r)
{
    if (!r->cap)
        return;
    hashtab_free(&r->table, NULL);
    for (size_t i = 0; i < r->cap; i++)
        free(r->slots[i]);
    free(r->slots);
}
