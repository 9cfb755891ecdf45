#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { INITIAL_SLOTS = 64 };

size_t hashtab_hash(const char *s)
{
    return hashtab_hash_len(s, strlen(s));
}

static uint64_t mix_word(uint64_t h, uint64_t word)
{
    return ((h << 23 | h >> 41) ^ word) * 0x517CC1B727220A95ULL;
}

size_t hashtab_hash_len(const char *s, size_t len)
{
    /* Eight bytes a step (FNV's byte a step was a tenth of the stream checks' time); the keys are
     * in memory only, so the byte order of the words does not matter. The top bits home_of takes
     * depend on every byte. */
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len, word;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&word, s, 8);
        h = mix_word(h, word);
    }
    word = 0;
    memcpy(&word, s, len);
    return (size_t)mix_word(h, word);
}

/* Where a hash's probe starts: the top bits of its product with 2^64 / phi, which depend on every
 * bit of the hash (FNV's low bits depend on the low bits of the key's bytes alone). */
static size_t home_of(const struct hashtab *t, size_t hash)
{
    return (size_t)(((uint64_t)hash * 0x9E3779B97F4A7C15ULL) >> t->shift);
}

static size_t next_slot(const struct hashtab *t, size_t i)
{
    return (i + 1) & (t->nslots - 1);
}

/* The slot of key, or NULL. */
static struct hash_slot *slot_of(const struct hashtab *t, const char *key, size_t hash)
{
    for (size_t i = home_of(t, hash);; i = next_slot(t, i)) {
        struct hash_slot *slot = &t->slots[i];
        if (!slot->node)
            return NULL;
        if (slot->hash == hash && strcmp(t->key(slot->node), key) == 0)
            return slot;
    }
}

struct hash_node *hashtab_find_hashed(const struct hashtab *t, const char *key, size_t hash)
{
    if (t->size == 0)
        return NULL;
    struct hash_slot *slot = slot_of(t, key, hash);
    return slot ? slot->node : NULL;
}

struct hash_node *hashtab_find(const struct hashtab *t, const char *key)
{
    return t->size ? hashtab_find_hashed(t, key, hashtab_hash(key)) : NULL;
}

struct hash_node *hashtab_find_next(const struct hashtab *t, const struct hash_node *node)
{
    (void)t;
    return node->next;
}

static void resize(struct hashtab *t, size_t nslots)
{
    struct hash_slot *old = t->slots;
    size_t nold = t->nslots;
    t->slots = xcalloc(nslots, sizeof *t->slots);
    t->nslots = nslots;
    t->shift = 64;
    for (size_t n = nslots; n > 1; n >>= 1)
        t->shift--;
    for (size_t i = 0; i < nold; i++) {
        if (!old[i].node)
            continue;
        size_t j = home_of(t, old[i].hash);
        while (t->slots[j].node)
            j = next_slot(t, j);
        t->slots[j] = old[i];
    }
    free(old);
}

void hashtab_add(struct hashtab *t, struct hash_node *node)
{
    hashtab_add_hashed(t, node, hashtab_hash(t->key(node)));
}

void hashtab_add_hashed(struct hashtab *t, struct hash_node *node, size_t hash)
{
    /* at most three quarters full: a probe that misses reads a few slots, in one or two lines */
    if (4 * (t->used + 1) > 3 * t->nslots)
        resize(t, t->nslots ? 2 * t->nslots : INITIAL_SLOTS);
    node->hash = hash;
    node->next = NULL;
    size_t i = home_of(t, hash);
    const char *key = NULL;
    for (; t->slots[i].node; i = next_slot(t, i)) {
        if (t->slots[i].hash != hash)
            continue;
        if (!key)
            key = t->key(node);
        if (strcmp(t->key(t->slots[i].node), key) == 0)
            break;
    }
    node->next = t->slots[i].node;
    if (!node->next) {
        t->slots[i].hash = hash;
        t->used++;
    }
    t->slots[i].node = node;
    t->size++;
}

/* Empties slot i, moving back the slots after it whose probe passed it, so that every probe
 * still finds its key before an empty slot (no tombstones). */
static void empty_slot(struct hashtab *t, size_t i)
{
    for (size_t j = next_slot(t, i); t->slots[j].node; j = next_slot(t, j)) {
        size_t home = home_of(t, t->slots[j].hash);
        /* j may move to i unless its home lies cyclically in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i] = (struct hash_slot){0};
    t->used--;
}

void hashtab_remove(struct hashtab *t, struct hash_node *node)
{
    for (size_t i = home_of(t, node->hash);; i = next_slot(t, i)) {
        struct hash_slot *slot = &t->slots[i];
        if (!slot->node)
            return; /* not in the table */
        if (slot->hash != node->hash)
            continue;
        struct hash_node **link = &slot->node;
        while (*link && *link != node)
            link = &(*link)->next;
        if (!*link)
            continue; /* another key of the same hash */
        *link = node->next;
        if (!slot->node)
            empty_slot(t, i);
        t->size--;
        return;
    }
}

void hashtab_prefetch(const struct hashtab *t, size_t hash)
{
    if (t->nslots)
        prefetch(&t->slots[home_of(t, hash)]);
}

void hashtab_free(struct hashtab *t, void (*free_record)(struct hash_node *))
{
    for (size_t i = 0; free_record && i < t->nslots; i++) {
        for (struct hash_node *n = t->slots[i].node, *next; n; n = next) {
            next = n->next;
            free_record(n);
        }
    }
    free(t->slots);
    *t = (struct hashtab){.key = t->key};
}
