/* hashtab: a property test of the intrusive hash table (common/hashtab.h) against a plain model.
 * Random additions and removals of records over a small set of keys, so that keys repeat (the
 * newest record first, then the older ones; the first of a key added by hashtab_add_new), probes run into each other, and removals move the
 * slots after them back (by hashtab_remove, or by hashtab_remove_hashed with the low 32 bits of
 * the hash); with "colliding", every key's hash is one of eight values, so that keys of equal
 * hashes share probes too. After every step each key's records are found, newest first,
 * and nothing else. Prints "ok STEPS" or the first difference, and exits 1 on one.
 * Usage: hashtab SEED STEPS KEYS [colliding] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/util.h"

struct record {
    struct hash_node node;
    unsigned long number; /* of its key, "k<number>" */
    bool in;
    char key[24];
};

struct model {
    struct hashtab table;
    struct record *records;
    size_t nrecords;
    unsigned long steps;
};

static const char *record_key(const struct hash_node *n)
{
    return HASH_ITEM(n, struct record, node)->key;
}

/* "colliding": the tags of the keys collide too, and their probes all start in eight places */
static size_t weak_hash(const char *key)
{
    return hashtab_hash(key) & 7;
}

static unsigned long next_random(unsigned long *state)
{
    *state = *state * 6364136223846793005UL + 1442695040888963407UL;
    return *state >> 33;
}

/* key's records as the table walks them, against want[0..n): the model's, newest first. */
static bool check_key(const struct model *m, const char *key, struct record *const *want, size_t n)
{
    size_t i = 0;
    struct hash_node *node = hashtab_find(&m->table, key);
    for (; node; node = hashtab_find_next(&m->table, node), i++) {
        if (i >= n || HASH_ITEM(node, struct record, node) != want[i]) {
            printf("step %lu: key %s: record %zu is not the one expected\n", m->steps, key, i);
            return false;
        }
    }
    if (i != n) {
        printf("step %lu: key %s: %zu record(s) found, %zu expected\n", m->steps, key, i, n);
        return false;
    }
    return true;
}

/* Every key's records, and the size. The records are in the order they were added, so each
 * key's, gathered from the last, are newest first. */
static bool check_all(const struct model *m, unsigned long keys, struct record **want,
                      size_t *count, size_t *start)
{
    memset(count, 0, (keys + 1) * sizeof *count);
    size_t in = 0;
    for (size_t i = 0; i < m->nrecords; i++)
        if (m->records[i].in) {
            count[m->records[i].number]++;
            in++;
        }
    if (m->table.size != in) {
        printf("step %lu: size %zu, %zu expected\n", m->steps, m->table.size, in);
        return false;
    }
    for (unsigned long k = 0, at = 0; k <= keys; at += count[k++])
        start[k] = at;
    for (size_t i = m->nrecords; i-- > 0;)
        if (m->records[i].in)
            want[start[m->records[i].number]++] = &m->records[i];
    char key[24];
    for (unsigned long k = 0; k <= keys; k++) { /* key number `keys` is never added */
        snprintf(key, sizeof key, "k%lu", k);
        if (!check_key(m, key, want + start[k] - count[k], count[k]))
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    util_set_progname("hashtab");
    unsigned long seed, steps, keys;
    if (argc < 4 || argc > 5 || !parse_ulong(argv[1], &seed) || !parse_ulong(argv[2], &steps) ||
        !parse_ulong(argv[3], &keys) || keys == 0 || (argc == 5 && strcmp(argv[4], "colliding"))) {
        fputs("usage: hashtab SEED STEPS KEYS [colliding]\n", stderr);
        return 2;
    }
    struct model m = {.table = {.key = record_key, .hash = argc == 5 ? weak_hash : NULL}};
    m.records = xcalloc(steps, sizeof *m.records);
    struct record **want = xcalloc(steps, sizeof *want);
    size_t *count = xcalloc(keys + 1, sizeof *count), *start = xcalloc(keys + 1, sizeof *start);
    unsigned long state = seed;
    for (m.steps = 1; m.steps <= steps; m.steps++) {
        /* more additions than removals while it fills, then as many of each */
        bool add = m.table.size == 0 || next_random(&state) % 100 < (m.steps < steps / 2 ? 70 : 50);
        if (add) {
            struct record *r = &m.records[m.nrecords++];
            r->number = next_random(&state) % keys;
            snprintf(r->key, sizeof r->key, "k%lu", r->number);
            r->in = true;
            size_t hash = m.table.hash ? m.table.hash(r->key) : hashtab_hash(r->key);
            if (hashtab_find_hashed(&m.table, r->key, hash)) /* one of its key's records more */
                hashtab_add(&m.table, &r->node);
            else /* the first of its key: as a caller that looked it up adds it */
                hashtab_add_new(&m.table, &r->node, hash);
        } else {
            size_t i;
            do
                i = next_random(&state) % m.nrecords;
            while (!m.records[i].in);
            struct record *r = &m.records[i];
            if (next_random(&state) % 2) {
                hashtab_remove(&m.table, &r->node);
            } else { /* by the low 32 bits of its hash, as a record may keep them */
                size_t hash = m.table.hash ? m.table.hash(r->key) : hashtab_hash(r->key);
                hashtab_remove_hashed(&m.table, &r->node, (uint32_t)hash);
            }
            r->in = false;
        }
        /* every step while the table is small, then now and then: the check walks every key */
        if ((m.steps < 2000 || m.steps % 97 == 0 || m.steps == steps) &&
            !check_all(&m, keys, want, count, start))
            return 1;
    }
    printf("ok %lu\n", steps);
    hashtab_free(&m.table, NULL);
    free(m.records);
    free(want);
    free(count);
    free(start);
    return 0;
}
