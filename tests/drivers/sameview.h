/* sameview.h: whether two views are the same nodes, for the drivers that hold a view built to
 * the scan of the text it stands for (member-view, fipa-view). */
#ifndef ACP_TESTS_SAMEVIEW_H
#define ACP_TESTS_SAMEVIEW_H

#include <string.h>

#include "proto/jscan.h"

/* NULL when a and b are the same nodes (type, length, size, a string's head and bytes, an
 * object's key bits, a number's value); else what differs first, and *node where. */
static inline const char *view_difference(const struct jv *a, const struct jv *b, size_t *node)
{
    *node = 0;
    if (a->size != b->size)
        return "the views differ in size";
    for (size_t i = 0; i < a->size; i++) {
        const struct jv *x = &a[i], *y = &b[i];
        *node = i;
        if (x->type != y->type || x->len != y->len || x->size != y->size)
            return "a node differs in type, length or size";
        if (x->type == JV_STRING &&
            (x->head != y->head || memcmp(x->u.s, y->u.s, (size_t)x->len + 1) != 0))
            return "a string differs";
        if (x->type == JV_OBJECT && x->u.keys != y->u.keys)
            return "an object's key bits differ";
        if ((x->type == JV_INTEGER && x->u.i != y->u.i) ||
            (x->type == JV_REAL && memcmp(&x->u.d, &y->u.d, sizeof x->u.d) != 0))
            return "a number differs";
    }
    return NULL;
}

#endif
