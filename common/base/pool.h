/* Records made and dropped at a high rate, each of a size of its own (a fixed part, then its
 * keys), as the stream checks make one or two per message: a dropped record is kept for the next
 * one of its size class instead of being given back to malloc, whose bookkeeping was a sixth of
 * the time of the thread that keeps the order under --jobs. Class c holds 16c - 8 bytes, what a
 * chunk of 16c of glibc's malloc holds, so the records take no more memory than malloc gave
 * them; a pool holds at most what was in use at once, class by class. */
#ifndef ACP_POOL_H
#define ACP_POOL_H

#include <stddef.h>

enum { POOL_CLASSES = 32, POOL_NO_CLASS = 255 }; /* the largest class holds 488 bytes */

struct pool {
    void *spare[POOL_CLASSES]; /* dropped records, each holding the next */
};

/* size bytes (at least a pointer's), aligned as malloc's; *size_class receives what pool_put
 * needs to take it back. Never NULL. */
void *pool_get(struct pool *p, size_t size, unsigned char *size_class);
/* The same, zeroed. */
void *pool_get_zeroed(struct pool *p, size_t size, unsigned char *size_class);
/* Takes back a record of pool_get's; NULL is ignored. */
void pool_put(struct pool *p, void *record, unsigned char size_class);
/* Frees what the pool holds. */
void pool_free(struct pool *p);

#endif
