#include "base/strmap.h"

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

struct strmap {
    struct entry **buckets;
    size_t nbuckets; /* a power of two */
    size_t size;
};

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
