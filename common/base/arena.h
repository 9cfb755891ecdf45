/* Memory handed out in small pieces from large blocks and taken back all at once: for objects
 * that die together, such as what the workers of --jobs make for the messages of a batch. One
 * malloc and free per message, in sizes that vary, made the stream checks' -j 2 a tenth slower
 * (each batch's objects lay among those of the others in flight). */
#ifndef ACP_ARENA_H
#define ACP_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
    struct arena_block *first, *current;
    size_t block_size; /* of its blocks; 0: 64 KiB */
    /* When above block_size: each block made is twice the size of the one before, up to this,
     * for objects that hold a few hundred bytes as often as megabytes (a diagram of one
     * conversation, or of a whole capture). */
    size_t grow_to;
};

#define ARENA_INIT                                                                                 \
    {                                                                                              \
        NULL, NULL, 0, 0                                                                           \
    }

/* size bytes, aligned as malloc's, valid until arena_reset or arena_free; never NULL. */
void *arena_alloc(struct arena *a, size_t size);
/* size bytes from a, or from malloc when a is NULL (free() them then): what lives as long as an
 * object that may have an arena, or not (a message's digest and notes). */
void *arena_or_malloc(struct arena *a, size_t size);
/* A copy of the len bytes at s and a NUL, as arena_alloc hands out. */
char *arena_copy(struct arena *a, const char *s, size_t len);
/* Takes back everything handed out; keeps the blocks of ordinary size for reuse. */
void arena_reset(struct arena *a);
void arena_free(struct arena *a);

#endif
