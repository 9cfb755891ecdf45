#include "base/placemap.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/util.h"

enum { PLACE_MAP_INITIAL = 64 };

/* A slot's home: the numbers mixed (a 64-bit finaliser), the top bits taken. */
static size_t home_of(const struct place_map *m, uint32_t file, uint64_t line)
{
    uint64_t x = line ^ ((uint64_t)file << 32 | file);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (size_t)x & (m->nslots - 1);
}

static bool holds(const struct place_slot *s, uint32_t file, uint64_t line)
{
    return s->value && s->line == line && s->file == file;
}

/* The slot of the place, or of the empty slot that ends its probe. */
static struct place_slot *probe(const struct place_map *m, uint32_t file, uint64_t line)
{
    size_t i = home_of(m, file, line);
    while (m->slots[i].value && !holds(&m->slots[i], file, line))
        i = (i + 1) & (m->nslots - 1);
    return &m->slots[i];
}

void *place_map_get(const struct place_map *m, uint32_t file, uint64_t line)
{
    return m->size ? probe(m, file, line)->value : NULL;
}

static void grow(struct place_map *m)
{
    struct place_slot *old = m->slots;
    size_t nold = m->nslots;
    m->nslots = nold ? 2 * nold : PLACE_MAP_INITIAL;
    m->slots = xcalloc(m->nslots, sizeof *m->slots);
    for (size_t i = 0; i < nold; i++)
        if (old[i].value)
            *probe(m, old[i].file, old[i].line) = old[i];
    free(old);
}

void place_map_put(struct place_map *m, uint32_t file, uint64_t line, void *value)
{
    if (2 * (m->size + 1) > m->nslots) /* at most half full: probes stay short */
        grow(m);
    struct place_slot *s = probe(m, file, line);
    if (!s->value)
        m->size++;
    *s = (struct place_slot){.line = line, .file = file, .value = value};
}

/* Whether a slot's entry, whose home is home, may move back to the hole at i (linear probing:
 * it may when the hole lies on its probe, from its home up to where it is, at j). */
static bool may_fill(size_t home, size_t i, size_t j)
{
    return i <= j ? home <= i || home > j : home <= i && home > j;
}

void *place_map_remove(struct place_map *m, uint32_t file, uint64_t line)
{
    if (!m->size)
        return NULL;
    struct place_slot *s = probe(m, file, line);
    void *value = s->value;
    if (!value)
        return NULL;
    /* no tombstones: the entries after the hole that may fill it move back */
    size_t i = (size_t)(s - m->slots);
    for (size_t j = (i + 1) & (m->nslots - 1); m->slots[j].value; j = (j + 1) & (m->nslots - 1)) {
        size_t home = home_of(m, m->slots[j].file, m->slots[j].line);
        if (may_fill(home, i, j)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i] = (struct place_slot){0};
    m->size--;
    return value;
}

void place_map_free(struct place_map *m)
{
    free(m->slots);
    *m = (struct place_map){0};
}
