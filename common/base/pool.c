#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void *pool_get(struct pool *p, size_t size, unsigned char *size_class)
{
    if (size > 16 * (POOL_CLASSES - 1) - 8) {
        *size_class = POOL_NO_CLASS;
        return xmalloc(size);
    }
    size_t c = (size + 8 + 15) / 16;
    *size_class = (unsigned char)c;
    void *record = p->spare[c];
    if (!record)
        return xmalloc(16 * c - 8);
    memcpy(&p->spare[c], record, sizeof(void *));
    return record;
}

void *pool_get_zeroed(struct pool *p, size_t size, unsigned char *size_class)
{
    void *record = pool_get(p, size, size_class);
    memset(record, 0, size);
    return record;
}

void pool_put(struct pool *p, void *record, unsigned char size_class)
{
    if (!record)
        return;
    if (size_class == POOL_NO_CLASS) {
        free(record);
        return;
    }
    memcpy(record, &p->spare[size_class], sizeof(void *));
    p->spare[size_class] = record;
}

void pool_free(struct pool *p)
{
    for (size_t c = 0; c < POOL_CLASSES; c++) {
        while (p->spare[c]) {
            void *record = p->spare[c];
            memcpy(&p->spare[c], record, sizeof(void *));
            free(record);
        }
    }
}
