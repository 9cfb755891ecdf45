/* duequeue: holds the due queue (base/duequeue.h) to a plain array over random sets, moves,
 * removals and takings of the first, with few distinct times (so that ties are many): after
 * each step the first is one of the earliest, every entry's due time and whether it is queued
 * are the model's, and the queue holds as many as the model.
 * Prints "checked N, differ N" and exits 1 when any differ.
 * Usage: duequeue [ROUNDS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "xorshift.h"
#include "base/duequeue.h"

enum { ENTRIES = 600 };

static uint64_t state = 88172645463325252ULL;

static uint64_t next_random(void)
{
    return xorshift64(&state);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    static struct due_entry entries[ENTRIES];
    static double model[ENTRIES]; /* NAN: in no queue */
    for (size_t i = 0; i < ENTRIES; i++)
        model[i] = NAN;
    struct due_queue q = {0};
    unsigned long checked = 0, differ = 0;
    size_t held = 0;
    for (long r = 0; r < rounds; r++) {
        size_t i = next_random() % ENTRIES;
        unsigned op = next_random() % 8;
        if (op < 4) { /* set or move, now and then to NAN */
            double due = op == 0 ? NAN : (double)(next_random() % 50);
            held += isnan(model[i]) && !isnan(due);
            held -= !isnan(model[i]) && isnan(due);
            due_queue_set(&q, &entries[i], due);
            model[i] = due;
        } else if (op < 6) {
            held -= !isnan(model[i]);
            due_queue_remove(&q, &entries[i]);
            model[i] = NAN;
        } else if (q.len) { /* take the first, which must be one of the earliest */
            struct due_entry *first = due_queue_first(&q);
            size_t at = (size_t)(first - entries);
            double earliest = INFINITY;
            for (size_t k = 0; k < ENTRIES; k++)
                if (!isnan(model[k]) && model[k] < earliest)
                    earliest = model[k];
            checked++;
            if (model[at] != earliest || due_queue_next(&q) != earliest)
                differ += printf("round %ld: first due %g, earliest %g\n", r, model[at],
                                 earliest) > 0;
            due_queue_remove(&q, first);
            model[at] = NAN;
            held--;
        }
        if (r % 97 == 0 || r == rounds - 1)
            for (size_t k = 0; k < ENTRIES; k++, checked++) {
                double due = due_queue_due(&q, &entries[k]);
                bool same = isnan(model[k]) ? isnan(due) && !due_queued(&entries[k])
                                            : due == model[k] && due_queued(&entries[k]);
                if (!same && ++differ <= 10)
                    printf("round %ld: entry %zu due %g, not %g\n", r, k, due, model[k]);
            }
        checked++;
        if (q.len != held && ++differ <= 10)
            printf("round %ld: %zu queued, not %zu\n", r, q.len, held);
    }
    due_queue_free(&q);
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ != 0;
}
