#include "base/hashtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyform.h"
#include "base/siphash.h"
#include "base/util.h"

enum { INITIAL_SLOTS = 64 };

size_t hashtab_hash(const char *s)
{
    return hashtab_hash_len(s, strlen(s));
}

/* The run's key: every table hashes under it (hashtab_key_draw, which main calls), so that an
 * input cannot choose keys that collide; zero until then (the tests' drivers). */
static struct siphash_key run_key;

void hashtab_key_draw(void)
{
    key_secret_draw(&run_key);
}

size_t hashtab_hash_len(const char *s, size_t len)
{
    return (size_t)siphash13(&run_key, s, len);
}

/* What a slot keeps of a hash: 32 bits, never 0, which marks an empty slot. */
static uint32_t tag_of(size_t hash)
{
    return (uint32_t)hash | 1;
}

/* Where a probe starts: the top bits of the tag's product with 2^64 / phi. Made of the tag alone,
 * so that moving slots (empty_slot) reads no record. */
static size_t home_of_tag(const struct hashtab *t, uint32_t tag)
{
    return (size_t)(((uint64_t)tag * 0x9E3779B97F4A7C15ULL) >> t->shift);
}

static size_t home_of(const struct hashtab *t, size_t hash)
{
    return home_of_tag(t, tag_of(hash));
}

static size_t hash_of(const struct hashtab *t, const char *key)
{
    return t->hash ? t->hash(key) : hashtab_hash(key);
}

static size_t next_slot(const struct hashtab *t, size_t i)
{
    return (i + 1) & (t->nslots - 1);
}

/* How far slot i holds its key from the key's home. */
static size_t distance(const struct hashtab *t, size_t i)
{
    return (i - home_of_tag(t, t->tags[i])) & (t->nslots - 1);
}

/* Robin Hood order: along a probe, no key sits farther from its home than the keys after it do
 * from theirs, unless they are of another run. So a probe that reaches a key nearer its home
 * than the probe has come, or an empty slot, knows its key is absent: at seven eighths full a
 * miss reads a few tags, not a dozen. */

/* The slot of key, or -1. */
static ptrdiff_t slot_of(const struct hashtab *t, const char *key, size_t hash)
{
    uint32_t tag = tag_of(hash);
    size_t i = home_of_tag(t, tag);
    for (size_t d = 0; t->tags[i] && distance(t, i) >= d; i = next_slot(t, i), d++)
        if (t->tags[i] == tag && strcmp(t->key(t->nodes[i]), key) == 0)
            return (ptrdiff_t)i;
    return -1;
}

/* Puts a key absent from the table in a slot, moving the keys nearer their home onward. */
static void place(struct hashtab *t, uint32_t tag, struct hash_node *node)
{
    size_t i = home_of_tag(t, tag);
    for (size_t d = 0; t->tags[i]; i = next_slot(t, i), d++) {
        size_t theirs = distance(t, i);
        if (theirs < d) {
            uint32_t moved_tag = t->tags[i];
            struct hash_node *moved = t->nodes[i];
            t->tags[i] = tag;
            t->nodes[i] = node;
            tag = moved_tag;
            node = moved;
            d = theirs;
        }
    }
    t->tags[i] = tag;
    t->nodes[i] = node;
}

struct hash_node *hashtab_find_hashed(const struct hashtab *t, const char *key, size_t hash)
{
    if (t->size == 0)
        return NULL;
    ptrdiff_t i = slot_of(t, key, hash);
    return i < 0 ? NULL : t->nodes[i];
}

struct hash_node *hashtab_find(const struct hashtab *t, const char *key)
{
    return t->size ? hashtab_find_hashed(t, key, hash_of(t, key)) : NULL;
}

struct hash_node *hashtab_find_next(const struct hashtab *t, const struct hash_node *node)
{
    (void)t;
    return node->next;
}

static void resize(struct hashtab *t, size_t nslots)
{
    uint32_t *old_tags = t->tags;
    struct hash_node **old_nodes = t->nodes;
    size_t nold = t->nslots;
    t->tags = xcalloc(nslots, sizeof *t->tags);
    t->nodes = xcalloc(nslots, sizeof *t->nodes);
    t->nslots = nslots;
    t->shift = 64;
    for (size_t n = nslots; n > 1; n >>= 1)
        t->shift--;
    for (size_t i = 0; i < nold; i++)
        if (old_tags[i])
            place(t, old_tags[i], old_nodes[i]);
    free(old_tags);
    free(old_nodes);
}

void hashtab_add(struct hashtab *t, struct hash_node *node)
{
    hashtab_add_hashed(t, node, hash_of(t, t->key(node)));
}

/* At most seven eighths full: a probe that misses reads some tags, in one or two lines, and the
 * slots of the stream checks' bound of 100,000 records take 1.5 MiB. */
static void make_room(struct hashtab *t)
{
    if (8 * (t->used + 1) > 7 * t->nslots)
        resize(t, t->nslots ? 2 * t->nslots : INITIAL_SLOTS);
}

/* Places the first record of a key absent from the table, with room made for it. */
static void place_new(struct hashtab *t, struct hash_node *node, size_t hash)
{
    node->next = NULL;
    place(t, tag_of(hash), node);
    t->used++;
    t->size++;
}

void hashtab_add_new(struct hashtab *t, struct hash_node *node, size_t hash)
{
    make_room(t);
    place_new(t, node, hash);
}

void hashtab_add_hashed(struct hashtab *t, struct hash_node *node, size_t hash)
{
    make_room(t);
    ptrdiff_t i = slot_of(t, t->key(node), hash);
    if (i < 0) {
        place_new(t, node, hash);
        return;
    }
    node->next = t->nodes[i]; /* the newest of its key */
    t->nodes[i] = node;
    t->size++;
}

/* Empties slot i, moving back the keys after it that are not at home, so that the order holds
 * (no tombstones). */
static void empty_slot(struct hashtab *t, size_t i)
{
    for (size_t j = next_slot(t, i); t->tags[j] && distance(t, j) > 0; j = next_slot(t, j)) {
        t->tags[i] = t->tags[j];
        t->nodes[i] = t->nodes[j];
        i = j;
    }
    t->tags[i] = 0;
    t->nodes[i] = NULL;
    t->used--;
}

/* Takes node out of the records of slot i's key; false when it is not among them. */
static bool unlink_node(struct hashtab *t, size_t i, struct hash_node *node)
{
    struct hash_node **link = &t->nodes[i];
    while (*link && *link != node)
        link = &(*link)->next;
    if (!*link)
        return false;
    *link = node->next;
    if (!t->nodes[i])
        empty_slot(t, i);
    t->size--;
    return true;
}

void hashtab_remove(struct hashtab *t, struct hash_node *node)
{
    const char *key = t->key(node);
    hashtab_remove_hashed(t, node, hash_of(t, key));
}

void hashtab_remove_hashed(struct hashtab *t, struct hash_node *node, size_t hash)
{
    /* Slots are told apart by their tags and records, never by their keys: a record forgotten
     * long after it was added is cold, and reading its key (to hash it, then to compare it) was
     * most of what forgetting the stream checks' oldest id cost. */
    if (t->size == 0)
        return;
    uint32_t tag = tag_of(hash);
    size_t i = home_of_tag(t, tag);
    for (size_t d = 0; t->tags[i] && distance(t, i) >= d; i = next_slot(t, i), d++)
        if (t->tags[i] == tag && unlink_node(t, i, node))
            return;
}

void hashtab_prefetch(const struct hashtab *t, size_t hash)
{
    if (t->nslots) {
        size_t i = home_of(t, hash);
        prefetch(&t->tags[i]);
        prefetch(&t->nodes[i]);
    }
}

void hashtab_free(struct hashtab *t, void (*free_record)(struct hash_node *))
{
    for (size_t i = 0; free_record && i < t->nslots; i++) {
        for (struct hash_node *n = t->nodes[i], *next; n; n = next) {
            next = n->next;
            free_record(n);
        }
    }
    free(t->tags);
    free(t->nodes);
    *t = (struct hashtab){.key = t->key};
}
