/* placemap: holds the place map (base/placemap.h) to a plain array over random puts, gets and
 * removes of few files and lines, so that probes collide, wrap around the slots' end and close
 * up after removals; the map grows from empty and empties again. Twice: at most a few dozen
 * places at a time, ever other ones, so that the map stays at its first sizes and its probes
 * wrap often; then some thousands.
 * Prints "checked N, differ N" and exits 1 when any lookup differs.
 * Usage: placemap [ROUNDS] */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "xorshift.h"
#include "base/placemap.h"

enum { FILES = 3, LINES = 700 };

static uint64_t state = 88172645463325252ULL;

static uint64_t next_random(void)
{
    return xorshift64(&state);
}

/* Lines far apart too: the numbers are mixed, not taken as they are. */
static uint64_t line_of(size_t i)
{
    return i % 2 ? (uint64_t)i : (uint64_t)i << 40 | (uint64_t)1 << 39;
}

static unsigned long differ;

/* Runs rounds of random operations on files x lines places (few: at most 24 held at once);
 * returns how many were checked. */
static unsigned long run(long rounds, size_t files, size_t lines, bool few)
{
    static void *model[FILES][LINES];
    static char values[FILES][LINES];
    struct place_map map = {0};
    unsigned long checked = 0;
    for (long r = 0; r < rounds; r++) {
        size_t file = next_random() % files;
        size_t line = next_random() % lines;
        uint64_t op = next_random() % 8;
        /* puts outweigh removes in the first half, then the other way round; with few, a place
         * held is removed once they are 24 */
        bool put = r < rounds / 2 ? op < 4 : op < 2;
        bool removing = !put && op < 6;
        if (few && map.size >= 24) {
            put = false;
            removing = true;
            while (!model[file][line]) {
                file = next_random() % files;
                line = next_random() % lines;
            }
        }
        void *got;
        if (put) {
            place_map_put(&map, (uint32_t)file, line_of(line), &values[file][line]);
            model[file][line] = &values[file][line];
            got = place_map_get(&map, (uint32_t)file, line_of(line));
        } else if (removing) {
            got = place_map_remove(&map, (uint32_t)file, line_of(line));
        } else {
            got = place_map_get(&map, (uint32_t)file, line_of(line));
        }
        checked++;
        if (got != model[file][line] && ++differ <= 10)
            printf("round %ld: file %zu line %zu: %p, not %p\n", r, file, line, got,
                   model[file][line]);
        if (removing)
            model[file][line] = NULL;
    }
    size_t left = 0;
    for (size_t f = 0; f < files; f++)
        for (size_t l = 0; l < lines; l++) {
            left += model[f][l] != NULL;
            checked++;
            if (place_map_get(&map, (uint32_t)f, line_of(l)) != model[f][l])
                differ++;
            model[f][l] = NULL;
        }
    if (left != map.size)
        differ++;
    place_map_free(&map);
    return checked;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    unsigned long checked = run(rounds, FILES, LINES, true) + run(rounds, FILES, LINES, false);
    printf("checked %lu, differ %lu\n", checked, differ);
    return differ != 0;
}
