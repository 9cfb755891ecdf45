/* strmap: holds the string map (base/strmap.h) to a plain array over random puts (new keys and
 * replaced values), removals, sweeps and lookups, by strmap_get and by strmap_get_recent, whose
 * remembered entries must never outlive their keys: keys drawn from a few hundred (so that the
 * remembered slots are shared and taken over), short and long, some alike but for one byte.
 * After each step the looked-up key's value is the model's; now and then every key is looked up,
 * both ways, and the size compared.
 * Prints "checked N, differ N" and exits 1 when any differ.
 * Usage: strmap [ROUNDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "xorshift.h"
#include "base/strmap.h"

enum { KEYS = 300 };

static uint64_t state = 0x2545F4914F6CDD1DULL;

static uint64_t next_random(void)
{
    return xorshift64(&state);
}

static char keys[KEYS][48];
static uintptr_t model[KEYS]; /* 0: absent */

static void make_keys(void)
{
    for (size_t i = 0; i < KEYS; i++) {
        if (i % 3 == 0) /* short, as an agent's name */
            snprintf(keys[i], sizeof keys[i], "a%zu", i);
        else if (i % 3 == 1) /* alike but for one byte in the middle */
            snprintf(keys[i], sizeof keys[i], "forager-%03zu-of-the-colony", i);
        else /* long, alike at both ends */
            snprintf(keys[i], sizeof keys[i], "queen/%zu/x-acp-some-long-id", i);
    }
}

/* Removes the entries whose value is odd (the model's too). */
static bool odd_value(void *ctx, const char *key, void *value)
{
    (void)ctx;
    (void)key;
    return (uintptr_t)value % 2 == 1;
}

static unsigned long differ;

static void expect(struct strmap *map, size_t i, unsigned long step)
{
    void *got = next_random() % 2 ? strmap_get_recent(map, keys[i]) : strmap_get(map, keys[i]);
    if ((uintptr_t)got != model[i])
        differ += printf("step %lu: '%s' holds %lu, not %lu\n", step, keys[i],
                         (unsigned long)(uintptr_t)got, (unsigned long)model[i]) > 0;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    make_keys();
    struct strmap *map = strmap_new();
    unsigned long checked = 0;
    size_t size = 0;
    for (long r = 1; r <= rounds && differ < 10; r++) {
        size_t i = next_random() % KEYS;
        unsigned op = next_random() % 16;
        if (op < 6) { /* put: new, or a value replaced */
            uintptr_t value = 1 + next_random() % 1000;
            size += model[i] == 0;
            model[i] = value;
            strmap_put(map, keys[i], (void *)value);
        } else if (op < 9) {
            size -= model[i] != 0;
            model[i] = 0;
            strmap_remove(map, keys[i]);
        } else if (op == 9 && next_random() % 50 == 0) {
            strmap_sweep(map, odd_value, NULL);
            for (size_t k = 0; k < KEYS; k++)
                if (model[k] % 2 == 1) {
                    model[k] = 0;
                    size--;
                }
        }
        expect(map, i, (unsigned long)r);
        checked++;
        if (r % 997 == 0) {
            for (size_t k = 0; k < KEYS; k++, checked++)
                expect(map, k, (unsigned long)r);
            if (strmap_size(map) != size)
                differ += printf("step %ld: %zu entries, not %zu\n", r, strmap_size(map), size) > 0;
        }
    }
    strmap_free(map, NULL);
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ != 0;
}
