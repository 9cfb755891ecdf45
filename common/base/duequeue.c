#include "base/duequeue.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

static void place(struct due_queue *q, size_t i, struct due_item item)
{
    q->items[i] = item;
    item.entry->slot = (uint32_t)(i + 1);
}

/* Moves the item at i up to where it goes; returns where that is. */
static size_t sift_up(struct due_queue *q, size_t i)
{
    struct due_item item = q->items[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!(item.due < q->items[parent].due))
            break;
        place(q, i, q->items[parent]);
        i = parent;
    }
    place(q, i, item);
    return i;
}

static void sift_down(struct due_queue *q, size_t i)
{
    struct due_item item = q->items[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && q->items[child + 1].due < q->items[child].due)
            child++;
        if (!(q->items[child].due < item.due))
            break;
        place(q, i, q->items[child]);
        i = child;
    }
    place(q, i, item);
}

/* The item at i, whose due changed or which took another's place, goes where it belongs. */
static void settle(struct due_queue *q, size_t i)
{
    sift_down(q, sift_up(q, i));
}

void due_queue_remove(struct due_queue *q, struct due_entry *e)
{
    if (!due_queued(e))
        return;
    size_t i = e->slot - 1;
    e->slot = 0;
    struct due_item last = q->items[--q->len];
    if (i == q->len)
        return;
    place(q, i, last);
    settle(q, i);
}

void due_queue_set(struct due_queue *q, struct due_entry *e, double due)
{
    if (isnan(due)) {
        due_queue_remove(q, e);
        return;
    }
    if (due_queued(e)) {
        q->items[e->slot - 1].due = due;
        settle(q, e->slot - 1);
        return;
    }
    if (q->len == q->cap) {
        if (q->cap >= (size_t)INT32_MAX)
            die_oom();
        q->cap = q->cap ? 2 * q->cap : 16;
        q->items = xrealloc(q->items, q->cap * sizeof *q->items);
    }
    size_t i = q->len++;
    q->items[i] = (struct due_item){due, e};
    sift_up(q, i);
}

void due_queue_free(struct due_queue *q)
{
    free(q->items);
    *q = (struct due_queue){0};
}
