/* What falls due by message time, earliest first: an intrusive binary min-heap. Each element
 * holds a due_entry and is in the queue at most once, at the time it is next due; it is moved
 * or taken out in O(log n), so that what is kept (the open conversations) is all the queue ever
 * holds, and the earliest due time is known at once (how long idle input may wait). */
#ifndef ACP_DUEQUEUE_H
#define ACP_DUEQUEUE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* Zeroed, an entry is in no queue. */
struct due_entry {
    double due;
    size_t slot; /* 1 + its index in the queue; 0 when it is in none */
};

struct due_queue {
    struct due_entry **items;
    size_t len, cap;
};

/* The element that holds entry, or NULL for a NULL entry. */
#define DUE_ITEM(entry, type, member)                                                              \
    ((entry) ? (type *)(void *)((char *)(entry)-offsetof(type, member)) : (type *)NULL)

/* Puts the entry in the queue at due, or moves it there; a due that is NAN takes it out. */
void due_queue_set(struct due_queue *q, struct due_entry *e, double due);
/* Takes the entry out of the queue; one in none is left as it is. */
void due_queue_remove(struct due_queue *q, struct due_entry *e);
void due_queue_free(struct due_queue *q);

/* The entry due first, or NULL when the queue is empty. Inline, as the stream checks look at
 * it for every message. */
static inline struct due_entry *due_queue_first(const struct due_queue *q)
{
    return q->len ? q->items[0] : NULL;
}

/* When the first entry is due: INFINITY when the queue is empty. */
static inline double due_queue_next(const struct due_queue *q)
{
    return q->len ? q->items[0]->due : INFINITY;
}

static inline bool due_queued(const struct due_entry *e)
{
    return e->slot != 0;
}

#endif
