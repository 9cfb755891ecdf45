/* A map from a place in the input (a file's number and a line in it) to a pointer: for a report
 * that finds what it keeps of a message by where the message was read. Open addressing over the
 * two numbers themselves, so that a message kept and forgotten costs no key made as text, no
 * allocation and no string hashed or compared.
 *
 * Lines are counted by the reader, not chosen by the input: the slots are placed by a fixed mix
 * of the numbers, which no stream can make collide more than its line count allows. */
#ifndef ACP_PLACEMAP_H
#define ACP_PLACEMAP_H

#include <stddef.h>
#include <stdint.h>

struct place_slot {
    uint64_t line;
    uint32_t file;
    void *value; /* NULL: an empty slot */
};

struct place_map {
    struct place_slot *slots;
    size_t nslots; /* a power of two, or 0 before the first put */
    size_t size;
};

/* The value at line of file, or NULL. */
void *place_map_get(const struct place_map *m, uint32_t file, uint64_t line);
/* Sets the value (not NULL) at line of file, replacing any. */
void place_map_put(struct place_map *m, uint32_t file, uint64_t line, void *value);
/* Removes the value at line of file; returns it, or NULL when there was none. */
void *place_map_remove(struct place_map *m, uint32_t file, uint64_t line);
void place_map_free(struct place_map *m);

#endif
