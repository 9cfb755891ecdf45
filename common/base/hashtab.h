/* An intrusive hash table keyed by strings: the node lives in the caller's record, which holds
 * its key, so that a record of the stream checks costs one allocation and stores its key once (a
 * strmap entry would add an allocation and a copy of the key to each). The table never owns the
 * records. Several records may share a key: find and find_next walk them, the newest first.
 *
 * Open addressing: beside the slots of records, an array holds 32 bits of each key's hash, so a
 * lookup that misses and a removal read that array alone (a quarter of the slots' size: for the
 * stream checks' 100,000 ids it stays in a core's cache), never the records of other keys. On
 * the stream checks' hot path (an id remembered, an old one forgotten, per message) those
 * records are cold, and each one read was a cache miss. */
#ifndef ACP_HASHTAB_H
#define ACP_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

struct hash_node {
    struct hash_node *next; /* the next older record of the same key */
};

struct hashtab {
    uint32_t *tags;           /* per slot: 0 when empty, else from its key's hash (tag_of) */
    struct hash_node **nodes; /* per slot: the newest record of its key */
    size_t nslots;            /* a power of two, or 0 before the first record */
    unsigned shift; /* 64 less the bits of nslots: a slot's index is the top bits of a product */
    size_t used;    /* slots holding a key */
    size_t size;    /* records */
    const char *(*key)(const struct hash_node *node); /* the key of a record */
    /* The hash of a key: NULL for hashtab_hash, which the hashes given to the functions below
     * must then be. Another only where a test wants keys to collide. */
    size_t (*hash)(const char *key);
};

static inline void *hash_record(const struct hash_node *node, size_t offset)
{
    return node ? (char *)(void *)(uintptr_t)node - offset : NULL;
}

/* The record that holds node, or NULL for a NULL node (node is evaluated once). */
#define HASH_ITEM(node, type, member) ((type *)hash_record((node), offsetof(type, member)))

/* Draws the key every table's hash is keyed with (SipHash-1-3), so that no input can choose
 * keys that collide and turn each lookup into a walk (hash flooding): once, in main, before any
 * table is filled or any thread started. Dies when the kernel gives no random bytes. */
void hashtab_key_draw(void);

/* The hash of a key: computed once, it serves a lookup and the insertion that may follow. The
 * functions below that take a hash read its low 32 bits only, so a record may keep those. */
size_t hashtab_hash(const char *key);
/* The same, for a key of len bytes. */
size_t hashtab_hash_len(const char *key, size_t len);

struct hash_node *hashtab_find(const struct hashtab *t, const char *key);
/* The same, for a key whose hash (hashtab_hash, or the table's own) is hash. */
struct hash_node *hashtab_find_hashed(const struct hashtab *t, const char *key, size_t hash);
/* The next older record after node with the same key, or NULL. */
struct hash_node *hashtab_find_next(const struct hashtab *t, const struct hash_node *node);
/* Adds a record; its key must not change while it is in the table. */
void hashtab_add(struct hashtab *t, struct hash_node *node);
/* The same, for a record whose key's hash is hash. */
void hashtab_add_hashed(struct hashtab *t, struct hash_node *node, size_t hash);
/* The same, for a record whose key no record in the table has (the caller looked it up just
 * before): the table is not probed for it first. */
void hashtab_add_new(struct hashtab *t, struct hash_node *node, size_t hash);
void hashtab_remove(struct hashtab *t, struct hash_node *node);
/* The same, for a record whose key's hash is hash: the record's key is not read. */
void hashtab_remove_hashed(struct hashtab *t, struct hash_node *node, size_t hash);
/* Asks the cache for the slots a lookup, an insertion or a removal of a key whose hash is hash
 * reads first, when one comes soon. */
void hashtab_prefetch(const struct hashtab *t, size_t hash);
/* Frees the table; free_record (may be NULL) is called on the node of every record in it. */
void hashtab_free(struct hashtab *t, void (*free_record)(struct hash_node *));

#endif
