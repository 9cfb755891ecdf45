/* A hash map from strings to pointers, for the state the stream checks keep per id and agent. */
#ifndef ACP_STRMAP_H
#define ACP_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap;

struct strmap *strmap_new(void);
/* Frees the map; free_value (may be NULL) is called on every value still in it. */
void strmap_free(struct strmap *map, void (*free_value)(void *));

void *strmap_get(const struct strmap *map, const char *key);
/* The same, for keys asked for again and again (a report's agents, kinds and names): the entries
 * found last are remembered, a few, by a cheap mix of the key's length and bytes, and one of
 * them that holds the key is taken without hashing it. It changes what the map remembers, so
 * one thread alone may use a map so. */
void *strmap_get_recent(struct strmap *map, const char *key);
/* Inserts or replaces; the key is copied. Returns the value it replaced, or NULL. */
void *strmap_put(struct strmap *map, const char *key, void *value);
/* Removes key; returns its value, or NULL when it was not there. */
void *strmap_remove(struct strmap *map, const char *key);
size_t strmap_size(const struct strmap *map);

/* Calls fn on every entry, in no particular order; fn returns true to remove the entry
 * (after freeing the value itself if it must). The map must not be changed otherwise. */
void strmap_sweep(struct strmap *map, bool (*fn)(void *ctx, const char *key, void *value),
                  void *ctx);

/* The entries of a map in the order of their keys, for output that must not depend on the
 * hash (each run draws its own key): valid while the map is unchanged; free(v) afterwards. */
struct strmap_entry {
    const char *key;
    void *value;
};

struct strmap_entries {
    struct strmap_entry *v;
    size_t n;
};

struct strmap_entries strmap_sorted(struct strmap *map);

#endif
