#include "base/list.h"

/* Merges the sorted chains a and b (linked by next, ended by NULL) into one; a's elements go
 * first among equals. */
static struct list_link *merge(struct list_link *a, struct list_link *b,
                               bool (*before)(const struct list_link *, const struct list_link *))
{
    struct list_link head = {0}, *tail = &head;
    while (a && b) {
        if (before(b, a)) {
            tail->next = b;
            b = b->next;
        } else {
            tail->next = a;
            a = a->next;
        }
        tail = tail->next;
    }
    tail->next = a ? a : b;
    return head.next;
}

/* Cuts the chain at *rest after n elements (or fewer); returns the part cut off the front. */
static struct list_link *take(struct list_link **rest, size_t n)
{
    struct list_link *first = *rest, *last = NULL;
    for (; *rest && n > 0; n--) {
        last = *rest;
        *rest = (*rest)->next;
    }
    if (last)
        last->next = NULL;
    return first;
}

void list_sort(struct list *l, bool (*before)(const struct list_link *a, const struct list_link *b))
{
    struct list_link *chain = l->head;
    for (size_t run = 1; run < l->size; run *= 2) {
        struct list_link *rest = chain, *sorted = NULL, *sorted_tail = NULL;
        while (rest) {
            struct list_link *a = take(&rest, run), *b = take(&rest, run);
            struct list_link *merged = merge(a, b, before);
            if (sorted_tail)
                sorted_tail->next = merged;
            else
                sorted = merged;
            for (sorted_tail = merged; sorted_tail->next; sorted_tail = sorted_tail->next)
                ;
        }
        chain = sorted;
    }
    /* the chain is linked forward: link it back */
    struct list_link *prev = NULL;
    for (struct list_link *n = chain; n; n = n->next) {
        n->prev = prev;
        prev = n;
    }
    l->head = chain;
    l->tail = prev;
}
