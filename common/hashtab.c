#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { INITIAL_BUCKETS = 64 };

size_t hashtab_hash(const char *s)
{
    /* FNV-1a, as strmap: short keys, good spread, no setup. */
    size_t h = (size_t)14695981039346656037ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= (size_t)1099511628211ULL;
    }
    return h;
}

static struct hash_node *first_from(const struct hashtab *t, struct hash_node *n, const char *key,
                                    size_t hash)
{
    while (n && (n->hash != hash || strcmp(t->key(n), key) != 0))
        n = n->next;
    return n;
}

struct hash_node *hashtab_find_hashed(const struct hashtab *t, const char *key, size_t hash)
{
    if (t->size == 0)
        return NULL;
    return first_from(t, t->buckets[hash & (t->nbuckets - 1)], key, hash);
}

struct hash_node *hashtab_find(const struct hashtab *t, const char *key)
{
    return t->size ? hashtab_find_hashed(t, key, hashtab_hash(key)) : NULL;
}

struct hash_node *hashtab_find_next(const struct hashtab *t, const struct hash_node *node)
{
    return first_from(t, node->next, t->key(node), node->hash);
}

static void resize(struct hashtab *t, size_t nbuckets)
{
    struct hash_node **buckets = xcalloc(nbuckets, sizeof *buckets);
    for (size_t i = 0; i < t->nbuckets; i++) {
        for (struct hash_node *n = t->buckets[i], *next; n; n = next) {
            next = n->next;
            n->next = buckets[n->hash & (nbuckets - 1)];
            buckets[n->hash & (nbuckets - 1)] = n;
        }
    }
    free(t->buckets);
    t->buckets = buckets;
    t->nbuckets = nbuckets;
}

void hashtab_add(struct hashtab *t, struct hash_node *node)
{
    hashtab_add_hashed(t, node, hashtab_hash(t->key(node)));
}

void hashtab_add_hashed(struct hashtab *t, struct hash_node *node, size_t hash)
{
    if (t->size >= t->nbuckets)
        resize(t, t->nbuckets ? 2 * t->nbuckets : INITIAL_BUCKETS);
    node->hash = hash;
    struct hash_node **bucket = &t->buckets[node->hash & (t->nbuckets - 1)];
    node->next = *bucket;
    *bucket = node;
    t->size++;
}

void hashtab_remove(struct hashtab *t, struct hash_node *node)
{
    struct hash_node **slot = &t->buckets[node->hash & (t->nbuckets - 1)];
    while (*slot != node)
        slot = &(*slot)->next;
    *slot = node->next;
    t->size--;
}

void hashtab_free(struct hashtab *t, void (*free_record)(struct hash_node *))
{
    for (size_t i = 0; free_record && i < t->nbuckets; i++) {
        for (struct hash_node *n = t->buckets[i], *next; n; n = next) {
            next = n->next;
            free_record(n);
        }
    }
    free(t->buckets);
    *t = (struct hashtab){.key = t->key};
}
