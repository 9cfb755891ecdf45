/* An intrusive doubly-linked list: the link lives inside the element, so the stream checks can
 * keep their state in order of age, expire it from the oldest end and unlink any element in
 * constant time, without an allocation per entry. */
#ifndef ACP_LIST_H
#define ACP_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_link {
    struct list_link *prev, *next;
};

struct list {
    struct list_link *head, *tail; /* oldest and newest */
    size_t size;
};

/* The element that holds link, or NULL for a NULL link. */
#define LIST_ITEM(link, type, member)                                                              \
    ((link) ? (type *)(void *)((char *)(link)-offsetof(type, member)) : (type *)NULL)

static inline void list_append(struct list *l, struct list_link *n)
{
    n->prev = l->tail;
    n->next = NULL;
    if (l->tail)
        l->tail->next = n;
    else
        l->head = n;
    l->tail = n;
    l->size++;
}

static inline void list_remove(struct list *l, struct list_link *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->tail = n->prev;
    n->prev = n->next = NULL;
    l->size--;
}

/* Takes the oldest element's link off the list, or NULL when it is empty: to free the elements
 * in the list's order, about the order they were made (a table's order is none, a cache miss
 * each). */
static inline struct list_link *list_pop(struct list *l)
{
    struct list_link *n = l->head;
    if (n)
        list_remove(l, n);
    return n;
}

/* Sorts the list, stably, by before (whether a goes before b), with no memory of its own: the
 * runs already in order are merged two by two each pass, so that a list in order takes one, as
 * the elements may be many and the memory of an array of them is what a bound on memory
 * counts. */
void list_sort(struct list *l,
               bool (*before)(const struct list_link *a, const struct list_link *b));

#endif
