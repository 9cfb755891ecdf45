/* listsort: holds list_sort (base/list.h) to a stable sort of the same elements: lists of every
 * length up to 70 (runs that end short of a power of two) and some long ones, of keys drawn from
 * few values (so that ties are many), in an order of their own, or already in order, in reverse,
 * or in runs in order (as the sort finds and merges them), each checked in order, stable,
 * linked both ways, with its head, tail and size.
 * Prints "checked N, differ N" and exits 1 when any list is wrong.
 * Usage: listsort [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>

#include "xorshift.h"
#include "base/list.h"

struct item {
    struct list_link link;
    unsigned key, order; /* order: its place before the sort */
};

static uint64_t state = 2463534242ULL;

static uint64_t next_random(void)
{
    return xorshift64(&state);
}

static bool key_before(const struct list_link *a, const struct list_link *b)
{
    return LIST_ITEM(a, struct item, link)->key < LIST_ITEM(b, struct item, link)->key;
}

/* Whether l holds the n items, sorted by key, equal keys in their first order. */
static bool sorted_stably(const struct list *l, size_t n)
{
    size_t seen = 0;
    const struct list_link *prev = NULL;
    for (const struct list_link *p = l->head; p; prev = p, p = p->next, seen++) {
        if (p->prev != prev)
            return false;
        if (prev) {
            const struct item *a = LIST_ITEM(prev, struct item, link);
            const struct item *b = LIST_ITEM(p, struct item, link);
            if (a->key > b->key || (a->key == b->key && a->order > b->order))
                return false;
        }
    }
    return seen == n && l->size == n && l->tail == prev;
}

/* How the keys lie before the sort. */
enum shape { SHAPE_RANDOM, SHAPE_ASCENDING, SHAPE_DESCENDING, SHAPE_RUNS, SHAPES };

static unsigned key_at(enum shape shape, size_t i, size_t n, unsigned values)
{
    unsigned key = next_random() % values;
    switch (shape) {
    case SHAPE_ASCENDING: /* ties among neighbours, in order */
        return (unsigned)(i * values / (n + 1));
    case SHAPE_DESCENDING:
        return (unsigned)((n - i) * values / (n + 1));
    case SHAPE_RUNS: /* in order for a while, then a drop: a run ends */
        return next_random() % 4 == 0 ? key / 2 : (unsigned)(i * values / (n + 1)) + key % 2;
    default:
        return key;
    }
}

static bool check(struct item *items, size_t n, unsigned values, enum shape shape)
{
    struct list l = {0};
    for (size_t i = 0; i < n; i++) {
        items[i] = (struct item){.key = key_at(shape, i, n, values), .order = (unsigned)i};
        list_append(&l, &items[i].link);
    }
    list_sort(&l, key_before);
    return sorted_stably(&l, n);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 20;
    enum { LONG = 5000 };
    static struct item items[LONG];
    unsigned long checked = 0, differ = 0;
    for (long r = 0; r < rounds; r++) {
        for (enum shape shape = 0; shape < SHAPES; shape++) {
            for (size_t n = 0; n <= 70; n++, checked++)
                if (!check(items, n, 1 + (unsigned)r % 8, shape))
                    differ += printf("length %zu, %u values, shape %d: wrong\n", n,
                                     1 + (unsigned)r % 8, (int)shape) > 0;
            size_t n = LONG - next_random() % 100;
            checked++;
            if (!check(items, n, 1 + next_random() % 1000, shape))
                differ += printf("length %zu, shape %d: wrong\n", n, (int)shape) > 0;
        }
    }
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ != 0;
}
