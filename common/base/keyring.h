/* A ring of keys remembered with where each was, the latest cap of them: the oldest is forgotten,
 * so that what is kept stays bounded however long the input. A key put again is remembered from
 * its latest put. Each slot's record is made once and used again, so that the ring allocates
 * nothing once it is full. Keys are in keyform (KEY_KEPT_BYTES at most). */
#ifndef ACP_KEYRING_H
#define ACP_KEYRING_H

#include <stdint.h>

#include "base/hashtab.h"
#include "base/keyform.h"

/* A key remembered: where it was. */
struct ring_entry {
    struct hash_node node;
    const char *file; /* the caller's, kept as long as the ring */
    unsigned long line;
    uint32_t hash; /* its key's (hashtab_hash) */
    bool kept;     /* in the table: not put again since, nor forgotten */
    char key[KEY_KEPT_BYTES + 1];
};

/* Zeroed, a ring is empty: it takes its capacity at its first put. */
struct key_ring {
    struct hashtab table; /* key -> struct ring_entry */
    struct ring_entry **slots;
    size_t next, cap;
};

/* Remembers key at file:line, forgetting the oldest of cap (cap > 0, the same at every put). */
void key_ring_put(struct key_ring *r, size_t cap, const char *key, const char *file,
                  unsigned long line);
/* The same, for a key whose hash (hashtab_hash) the caller has. */
void key_ring_put_hashed(struct key_ring *r, size_t cap, const char *key, size_t hash,
                         const char *file, unsigned long line);
/* Where key was put last, or NULL when it is not among those kept. */
const struct ring_entry *key_ring_get(const struct key_ring *r, const char *key);
const struct ring_entry *key_ring_get_hashed(const struct key_ring *r, const char *key,
                                             size_t hash);
void key_ring_free(struct key_ring *r);

#endif
