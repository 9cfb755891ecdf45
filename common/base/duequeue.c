#include "base/duequeue.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

static void place(struct due_queue *q, size_t i, struct due_entry *e)
{
    q->items[i] = e;
    e->slot = i + 1;
}

static void sift_up(struct due_queue *q, size_t i)
{
    struct due_entry *e = q->items[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!(e->due < q->items[parent]->due))
            break;
        place(q, i, q->items[parent]);
        i = parent;
    }
    place(q, i, e);
}

static void sift_down(struct due_queue *q, size_t i)
{
    struct due_entry *e = q->items[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= q->len)
            break;
        if (child + 1 < q->len && q->items[child + 1]->due < q->items[child]->due)
            child++;
        if (!(q->items[child]->due < e->due))
            break;
        place(q, i, q->items[child]);
        i = child;
    }
    place(q, i, e);
}

void due_queue_remove(struct due_queue *q, struct due_entry *e)
{
    if (!due_queued(e))
        return;
    size_t i = e->slot - 1;
    e->slot = 0;
    struct due_entry *last = q->items[--q->len];
    if (i == q->len)
        return;
    place(q, i, last);
    sift_up(q, i);
    sift_down(q, last->slot - 1);
}

void due_queue_set(struct due_queue *q, struct due_entry *e, double due)
{
    if (isnan(due)) {
        due_queue_remove(q, e);
        return;
    }
    e->due = due;
    if (due_queued(e)) {
        sift_up(q, e->slot - 1);
        sift_down(q, e->slot - 1);
        return;
    }
    if (q->len == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 16;
        q->items = xrealloc(q->items, q->cap * sizeof *q->items);
    }
    place(q, q->len++, e);
    sift_up(q, q->len - 1);
}

void due_queue_free(struct due_queue *q)
{
    free(q->items);
    *q = (struct due_queue){0};
}
