/* arena: a property test of common/arena.h. Rounds of allocations of random sizes (some far
 * larger than a block), each piece filled with a pattern of its own; after each round every
 * piece still holds its pattern (no two overlap) and is aligned as malloc's, then the arena is
 * reset and the next round reuses its blocks. A third of them are copies (arena_copy), a NUL
 * after each. Under AddressSanitizer a piece that reached past its block would be caught too.
 * Prints "ok ROUNDS" or the first fault, and exits 1 on one.
 * With FIRST, its blocks start at FIRST bytes and each is twice the one before, up to 64 KiB (a
 * diagram's texts).
 * Usage: arena SEED ROUNDS PIECES [FIRST] */
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

struct piece {
    unsigned char *at;
    size_t size;
    unsigned char fill;
    bool copied; /* by arena_copy, a NUL after it */
};

static size_t random_size(void)
{
    int kind = rand() % 100;
    if (kind == 0)
        return 64 * 1024 + (size_t)(rand() % (256 * 1024)); /* larger than a block */
    if (kind < 5)
        return (size_t)(rand() % 8192);
    return (size_t)(rand() % 300);
}

static bool check_round(const struct piece *p, size_t n, unsigned long round)
{
    for (size_t i = 0; i < n; i++) {
        if ((uintptr_t)p[i].at % alignof(max_align_t) != 0) {
            printf("round %lu: piece %zu is not aligned\n", round, i);
            return false;
        }
        for (size_t k = 0; k < p[i].size; k++) {
            if (p[i].at[k] != p[i].fill) {
                printf("round %lu: piece %zu was overwritten at byte %zu\n", round, i, k);
                return false;
            }
        }
        if (p[i].copied && p[i].at[p[i].size] != '\0') {
            printf("round %lu: piece %zu lost its NUL\n", round, i);
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: arena SEED ROUNDS PIECES [FIRST]\n");
        return 2;
    }
    srand((unsigned)strtoul(argv[1], NULL, 10));
    unsigned long rounds = strtoul(argv[2], NULL, 10);
    size_t pieces = strtoul(argv[3], NULL, 10);
    struct piece *p = xcalloc(pieces ? pieces : 1, sizeof *p);
    static char pattern[8192];
    struct arena a = ARENA_INIT;
    if (argc == 5)
        a = (struct arena){.block_size = strtoul(argv[4], NULL, 10), .grow_to = 64 * 1024};
    for (unsigned long round = 1; round <= rounds; round++) {
        size_t n = (size_t)rand() % (pieces + 1);
        for (size_t i = 0; i < n; i++) {
            p[i].size = random_size();
            p[i].fill = (unsigned char)(i * 31 + round) | 1;
            p[i].copied = i % 3 == 0 && p[i].size <= sizeof pattern;
            if (p[i].copied) {
                memset(pattern, p[i].fill, p[i].size);
                p[i].at = (unsigned char *)arena_copy(&a, pattern, p[i].size);
            } else {
                p[i].at = arena_alloc(&a, p[i].size);
                memset(p[i].at, p[i].fill, p[i].size);
            }
        }
        if (!check_round(p, n, round)) {
            arena_free(&a);
            free(p);
            return 1;
        }
        arena_reset(&a);
    }
    arena_free(&a);
    free(p);
    printf("ok %lu\n", rounds);
    return 0;
}
