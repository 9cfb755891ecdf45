/* hash-flood: keys an attacker chose to collide, against the tables' hash (issue 39). The tables
 * hashed with a fixed multiply-xor mixer that anyone can run backwards: for 16-byte keys, any
 * first word, and a second word solved from it, give one value. This driver makes COUNT such keys
 * (the mixer is modelled here as the attacker knows it) and counts the distinct values and
 * 32-bit tags hashtab_hash_len gives them under the run's key; with "unkeyed" it gives the model's
 * own values instead, to show that the keys do collide there. With "ids", it prints COUNT ids,
 * one a line, for make bench's flood: printable ASCII without '"' and '\\' (a capture carries
 * them as they are), each of which, after PREFIX, makes a key the mixer gives one value (16 bytes
 * without a prefix, else 24: the FIPA stream checks key a conversation by "c" and its id); with
 * "random", as many random ids of that alphabet and length, the flood's twin.
 * Usage: hash-flood COUNT [unkeyed]   prints "COUNT keys, N distinct hashes, M distinct tags"
 *        hash-flood ids COUNT flood|random [PREFIX] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/util.h"

enum { KEY_BYTES = 16 };

static const uint64_t MIX = 0x517CC1B727220A95ULL;

static uint64_t rotate_left(uint64_t word, unsigned bits)
{
    return word << bits | word >> (64 - bits);
}

/* The old mixer's state after a 16-byte key's first word. */
static uint64_t after_first(uint64_t first)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ KEY_BYTES;
    return (rotate_left(h, 23) ^ first) * MIX;
}

/* The old mixer's value of a 16-byte key, before its final avalanche (a bijection, so that equal
 * values here are equal hashes). */
static uint64_t unkeyed(const unsigned char *key)
{
    uint64_t first, second;
    memcpy(&first, key, 8);
    memcpy(&second, key + 8, 8);
    return (rotate_left(after_first(first), 23) ^ second) * MIX;
}

/* The second word that brings the state to 0 whatever the first: (rot(h) ^ w) * MIX == 0. */
static void craft(unsigned long n, unsigned char *key)
{
    uint64_t first = 0x6b65792d00000000ULL | n; /* "key-" and a number */
    uint64_t second = rotate_left(after_first(first), 23);
    memcpy(key, &first, 8);
    memcpy(key + 8, &second, 8);
}

/* The characters of a printable id: '!' to '~' but '"' and '\\'. */
static const char id_alphabet[] = "!#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`"
                                  "abcdefghijklmnopqrstuvwxyz{|}~";

static bool printable(uint64_t word)
{
    for (int i = 0; i < 8; i++, word >>= 8)
        if (!memchr(id_alphabet, (int)(word & 0xff), sizeof id_alphabet - 1))
            return false;
    return true;
}

/* The old mixer's state before the last word of a key of len bytes (a multiple of 8). */
static uint64_t before_last(const unsigned char *key, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
    for (size_t i = 0; i + 8 < len; i += 8) {
        uint64_t word;
        memcpy(&word, key + i, 8);
        h = (rotate_left(h, 23) ^ word) * MIX;
    }
    return h;
}

/* Fills key[from, to) with characters of the alphabet, the nth such filling counting up. */
static void fill(unsigned char *key, size_t from, size_t to, uint64_t n)
{
    for (size_t i = from; i < to; i++, n /= sizeof id_alphabet - 1)
        key[i] = (unsigned char)id_alphabet[n % (sizeof id_alphabet - 1)];
}

/* Keys that the old mixer makes one: their bytes but the last word counted up, each kept when the
 * last word that brings the state to 0 is printable too (about one in 3,600); or random ones. */
static int print_ids(unsigned long count, bool random_ids, const char *prefix)
{
    unsigned char key[24 + 1];
    size_t skip = strlen(prefix), len = skip ? 24 : KEY_BYTES;
    if (skip >= len - 8)
        return 2;
    memcpy(key, prefix, skip);
    uint64_t state = 0x9E3779B97F4A7C15ULL, n = 0;
    for (unsigned long i = 0; i < count;) {
        if (random_ids) {
            for (size_t at = skip; at < len; at += 4) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                fill(key, at, at + 4 < len ? at + 4 : len, state >> 24);
            }
        } else {
            fill(key, skip, len - 8, n++);
            uint64_t last = rotate_left(before_last(key, len), 23);
            if (!printable(last))
                continue;
            memcpy(key + len - 8, &last, 8);
        }
        key[len] = '\0';
        puts((const char *)key + skip);
        i++;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t distinct(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    size_t d = n ? 1 : 0;
    for (size_t i = 1; i < n; i++)
        d += v[i] != v[i - 1];
    return d;
}

int main(int argc, char **argv)
{
    util_set_progname("hash-flood");
    if (argc > 3 && strcmp(argv[1], "ids") == 0)
        return print_ids(strtoul(argv[2], NULL, 10), strcmp(argv[3], "random") == 0,
                         argc > 4 ? argv[4] : "");
    unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    bool model = argc > 2 && strcmp(argv[2], "unkeyed") == 0;
    if (count == 0) {
        fprintf(stderr, "usage: hash-flood COUNT [unkeyed] | ids COUNT flood|random [PREFIX]\n");
        return 2;
    }
    hashtab_key_draw();
    uint64_t *hashes = xmalloc(count * sizeof *hashes), *tags = xmalloc(count * sizeof *tags);
    for (unsigned long i = 0; i < count; i++) {
        unsigned char key[KEY_BYTES];
        craft(i, key);
        hashes[i] = model ? unkeyed(key) : hashtab_hash_len((const char *)key, KEY_BYTES);
        tags[i] = (uint32_t)hashes[i];
    }
    printf("%lu keys, %zu distinct hashes, %zu distinct tags\n", count, distinct(hashes, count),
           distinct(tags, count));
    free(hashes);
    free(tags);
    return 0;
}
