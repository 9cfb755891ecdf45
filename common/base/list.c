#include "base/list.h"

/* Merges the sorted chains a and b (linked by next, ended by NULL) into one; a's elements go
 * first among equals. *last: the merged chain's last element. */
static struct list_link *merge(struct list_link *a, struct list_link *b,
                               bool (*before)(const struct list_link *, const struct list_link *),
                               struct list_link **last)
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
    while (tail->next)
        tail = tail->next;
    *last = tail;
    return head.next;
}

/* Cuts the chain at *rest (not empty) after its first run, the longest front in which no
 * element comes before the one ahead of it; returns the run. */
static struct list_link *take_run(struct list_link **rest, bool (*before)(const struct list_link *,
                                                                          const struct list_link *))
{
    struct list_link *first = *rest, *last = first;
    while (last->next && !before(last->next, last))
        last = last->next;
    *rest = last->next;
    last->next = NULL;
    return first;
}

/* The stream checks' open conversations at the end are in the order they were last active, most
 * in the order they opened: a pass or two, where merging runs of 1, 2, 4, ... elements took
 * seventeen over 100,000 of them, each element cold. */
void list_sort(struct list *l, bool (*before)(const struct list_link *a, const struct list_link *b))
{
    struct list_link *chain = l->head;
    for (bool one_run = !chain; !one_run;) {
        struct list_link *rest = chain, *sorted = NULL, *sorted_tail = NULL, *last;
        one_run = true;
        while (rest) {
            struct list_link *a = take_run(&rest, before);
            struct list_link *b = rest ? take_run(&rest, before) : NULL;
            struct list_link *merged = merge(a, b, before, &last);
            if (sorted_tail) {
                sorted_tail->next = merged;
                one_run = false;
            } else {
                sorted = merged;
            }
            sorted_tail = last;
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
