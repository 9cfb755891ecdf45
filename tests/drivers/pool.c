/* pool: a property test of common/pool.h. Random gets and puts of records of random sizes (most
 * within the size classes, some beyond them), each filled with a pattern of its own while it is
 * held; after every step every record held keeps its pattern (no two overlap, a put record is
 * not handed out while held) and is aligned as malloc's. Under AddressSanitizer a record that
 * reached past what malloc gave would be caught too. Prints "ok STEPS" or the first fault, and
 * exits 1 on one. Usage: pool SEED STEPS RECORDS */
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "base/util.h"

struct held {
    unsigned char *at; /* NULL when not held */
    size_t size;
    unsigned char fill, size_class;
};

static bool intact(const struct held *h)
{
    for (size_t k = 0; k < h->size; k++)
        if (h->at[k] != h->fill)
            return false;
    return (uintptr_t)h->at % alignof(max_align_t) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pool SEED STEPS RECORDS\n");
        return 2;
    }
    srand((unsigned)strtoul(argv[1], NULL, 10));
    unsigned long steps = strtoul(argv[2], NULL, 10);
    size_t n = strtoul(argv[3], NULL, 10);
    struct held *h = xcalloc(n ? n : 1, sizeof *h);
    struct pool p = {0};
    int status = 0;
    for (unsigned long step = 1; step <= steps && n; step++) {
        struct held *r = &h[(size_t)rand() % n];
        if (r->at) {
            pool_put(&p, r->at, r->size_class);
            r->at = NULL;
        } else {
            r->size = rand() % 50 == 0 ? 400 + (size_t)(rand() % 2000) : (size_t)(rand() % 300);
            r->fill = (unsigned char)step;
            r->at = rand() % 2 ? pool_get(&p, r->size, &r->size_class)
                               : pool_get_zeroed(&p, r->size, &r->size_class);
            memset(r->at, r->fill, r->size);
        }
        for (size_t i = 0; i < n && !status; i++) {
            if (h[i].at && !intact(&h[i])) {
                printf("step %lu: record %zu was overwritten or misaligned\n", step, i);
                status = 1;
            }
        }
        if (status)
            break;
    }
    for (size_t i = 0; i < n; i++)
        pool_put(&p, h[i].at, h[i].size_class);
    pool_free(&p);
    free(h);
    if (!status)
        printf("ok %lu\n", steps);
    return status;
}
