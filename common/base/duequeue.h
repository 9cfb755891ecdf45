/* What falls due by message time, earliest first: an intrusive binary min-heap. Each element
 * holds a due_entry and is in the queue at most once, at the time it is next due; it is moved
 * or taken out in O(log n), so that what is kept (the open conversations) is all the queue ever
 * holds, and the earliest due time is known at once (how long idle input may wait).
 *
 * The queue's array holds each due time beside its entry: sifting compares the times it holds
 * and reads no element, which is cold (at the stream checks' bound of 100,000 open
 * conversations, each element read was a cache miss, two a level of the heap, as the oldest
 * were evicted one a message). An entry holds only where it is. */
#ifndef ACP_DUEQUEUE_H
#define ACP_DUEQUEUE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Zeroed, an entry is in no queue. */
struct due_entry {
    uint32_t slot; /* 1 + its index in the queue; 0 when it is in none */
};

struct due_item {
    double due;
    struct due_entry *entry;
};

struct due_queue {
    struct due_item *items;
    size_t len, cap;
};

/* The element that holds entry, or NULL for a NULL entry. */
#define DUE_ITEM(entry, type, member)                                                              \
    ((entry) ? (type *)(void *)((char *)(entry)-offsetof(type, member)) : (type *)NULL)

/* Puts the entry in the queue at due, or moves it there; a due that is NAN takes it out. Dies,
 * as out of memory, past 2^31 entries. */
void due_queue_set(struct due_queue *q, struct due_entry *e, double due);
/* Takes the entry out of the queue; one in none is left as it is. */
void due_queue_remove(struct due_queue *q, struct due_entry *e);
void due_queue_free(struct due_queue *q);

/* The entry due first, or NULL when the queue is empty. Inline, as the stream checks look at
 * it for every message. */
static inline struct due_entry *due_queue_first(const struct due_queue *q)
{
    return q->len ? q->items[0].entry : NULL;
}

/* When the first entry is due: INFINITY when the queue is empty. */
static inline double due_queue_next(const struct due_queue *q)
{
    return q->len ? q->items[0].due : INFINITY;
}

static inline bool due_queued(const struct due_entry *e)
{
    return e->slot != 0;
}

/* When an entry of q's is due: NAN when it is in no queue. */
static inline double due_queue_due(const struct due_queue *q, const struct due_entry *e)
{
    return e->slot ? q->items[e->slot - 1].due : NAN;
}

#endif
