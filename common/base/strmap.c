#include "base/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/util.h"

struct entry {
    struct entry *next;
    void *value;
    size_t hash;
    char key[]; /* NUL-terminated copy */
};

enum { RECENT_BITS = 6, RECENT = 1 << RECENT_BITS };

struct strmap {
    struct entry **buckets;
    size_t nbuckets; /* a power of two */
    size_t size;
    struct entry *recent[RECENT]; /* strmap_get_recent's, by recent_slot of their keys */
};

/* Where a key's entry is remembered: a mix of its length and its first and last eight bytes (all
 * of a short name's), not a hash an input could not choose, which need not be: a key found there
 * is compared whole. */
static size_t recent_slot(const char *key, size_t len)
{
    uint64_t head = 0, tail = 0;
    memcpy(&head, key, len < 8 ? len : 8);
    if (len > 8)
        memcpy(&tail, key + len - 8, 8);
    uint64_t x = (head ^ (tail * 0x9E3779B97F4A7C15ULL) ^ len) * 0xff51afd7ed558ccdULL;
    return (size_t)(x >> (64 - RECENT_BITS));
}

/* Small: a diagram holds two maps, and the report thousands of diagrams. */
enum { INITIAL_BUCKETS = 4 };

struct strmap *strmap_new(void)
{
    struct strmap *map = xcalloc(1, sizeof *map);
    map->nbuckets = INITIAL_BUCKETS;
    map->buckets = xcalloc(map->nbuckets, sizeof *map->buckets);
    return map;
}

void strmap_free(struct strmap *map, void (*free_value)(void *))
{
    if (!map)
        return;
    for (size_t i = 0; i < map->nbuckets; i++) {
        struct entry *e = map->buckets[i];
        while (e) {
            struct entry *next = e->next;
            if (free_value)
                free_value(e->value);
            free(e);
            e = next;
        }
    }
    free(map->buckets);
    free(map);
}

static struct entry **find_slot(const struct strmap *map, const char *key, size_t hash)
{
    struct entry **slot = &map->buckets[hash & (map->nbuckets - 1)];
    while (*slot && ((*slot)->hash != hash || strcmp((*slot)->key, key) != 0))
        slot = &(*slot)->next;
    return slot;
}

void *strmap_get(const struct strmap *map, const char *key)
{
    struct entry *e = *find_slot(map, key, hashtab_hash(key));
    return e ? e->value : NULL;
}

void *strmap_get_recent(struct strmap *map, const char *key)
{
    size_t len = strlen(key);
    struct entry **recent = &map->recent[recent_slot(key, len)];
    if (*recent && strcmp((*recent)->key, key) == 0)
        return (*recent)->value;
    struct entry *e = *find_slot(map, key, hashtab_hash_len(key, len));
    if (e)
        *recent = e;
    return e ? e->value : NULL;
}

/* An entry about to be freed is remembered no more. */
static void forget_recent(struct strmap *map, const struct entry *e)
{
    struct entry **recent = &map->recent[recent_slot(e->key, strlen(e->key))];
    if (*recent == e)
        *recent = NULL;
}

static void grow(struct strmap *map)
{
    size_t n = map->nbuckets * 2;
    struct entry **buckets = xcalloc(n, sizeof *buckets);
    for (size_t i = 0; i < map->nbuckets; i++) {
        struct entry *e = map->buckets[i];
        while (e) {
            struct entry *next = e->next;
            e->next = buckets[e->hash & (n - 1)];
            buckets[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(map->buckets);
    map->buckets = buckets;
    map->nbuckets = n;
}

void *strmap_put(struct strmap *map, const char *key, void *value)
{
    size_t hash = hashtab_hash(key);
    struct entry **slot = find_slot(map, key, hash);
    if (*slot) {
        void *old = (*slot)->value;
        (*slot)->value = value;
        return old;
    }
    size_t len = strlen(key);
    struct entry *e = xmalloc(sizeof *e + len + 1);
    memcpy(e->key, key, len + 1);
    e->hash = hash;
    e->value = value;
    e->next = NULL;
    *slot = e;
    if (++map->size > map->nbuckets)
        grow(map);
    return NULL;
}

void *strmap_remove(struct strmap *map, const char *key)
{
    struct entry **slot = find_slot(map, key, hashtab_hash(key));
    struct entry *e = *slot;
    if (!e)
        return NULL;
    void *value = e->value;
    *slot = e->next;
    forget_recent(map, e);
    free(e);
    map->size--;
    return value;
}

size_t strmap_size(const struct strmap *map)
{
    return map->size;
}

void strmap_sweep(struct strmap *map, bool (*fn)(void *ctx, const char *key, void *value),
                  void *ctx)
{
    for (size_t i = 0; i < map->nbuckets; i++) {
        struct entry **slot = &map->buckets[i];
        while (*slot) {
            struct entry *e = *slot;
            if (fn(ctx, e->key, e->value)) {
                *slot = e->next;
                forget_recent(map, e);
                free(e);
                map->size--;
            } else {
                slot = &e->next;
            }
        }
    }
}

static bool collect(void *ctx, const char *key, void *value)
{
    struct strmap_entries *e = ctx;
    e->v[e->n++] = (struct strmap_entry){key, value};
    return false;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct strmap_entry *)a)->key, ((const struct strmap_entry *)b)->key);
}

struct strmap_entries strmap_sorted(struct strmap *map)
{
    struct strmap_entries e = {xmalloc((strmap_size(map) + 1) * sizeof *e.v), 0};
    strmap_sweep(map, collect, &e);
    qsort(e.v, e.n, sizeof *e.v, by_key);
    return e;
}
