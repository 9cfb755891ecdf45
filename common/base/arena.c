#include "base/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

enum { BLOCK_SIZE = 64 * 1024, ALIGN = alignof(max_align_t) };

struct arena_block {
    struct arena_block *next;
    size_t size, used;
    alignas(max_align_t) char data[];
};

static struct arena_block *new_block(size_t size)
{
    if (size > SIZE_MAX - sizeof(struct arena_block))
        die_oom();
    struct arena_block *b = xmalloc(sizeof *b + size);
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

static size_t block_size(const struct arena *a)
{
    return a->block_size ? a->block_size : BLOCK_SIZE;
}

void *arena_alloc(struct arena *a, size_t size)
{
    if (size > SIZE_MAX - ALIGN)
        die_oom();
    size = (size + ALIGN - 1) / ALIGN * ALIGN;
    for (;;) {
        struct arena_block *b = a->current;
        if (b && b->size - b->used >= size) {
            void *p = b->data + b->used;
            b->used += size;
            return p;
        }
        struct arena_block **next = b ? &b->next : &a->first;
        if (!*next) {
            *next = new_block(size > block_size(a) ? size : block_size(a));
            if (a->grow_to > block_size(a))
                a->block_size = 2 * block_size(a) < a->grow_to ? 2 * block_size(a) : a->grow_to;
        }
        a->current = *next;
        a->current->used = 0; /* a block is emptied as it is entered */
    }
}

void *arena_or_malloc(struct arena *a, size_t size)
{
    return a ? arena_alloc(a, size) : xmalloc(size);
}

char *arena_copy(struct arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        die_oom();
    char *copy = arena_alloc(a, len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

void arena_reset(struct arena *a)
{
    /* A block made for an object larger than usual goes, or each arena would keep the largest
     * it ever held. */
    for (struct arena_block **b = &a->first; *b;) {
        if ((*b)->size > block_size(a)) {
            struct arena_block *big = *b;
            *b = big->next;
            free(big);
        } else {
            b = &(*b)->next;
        }
    }
    a->current = NULL;
}

void arena_free(struct arena *a)
{
    for (struct arena_block *b = a->first, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->first = a->current = NULL;
}
