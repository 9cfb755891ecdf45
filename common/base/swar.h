/* Eight bytes at a time in a 64-bit word: scans that look for a few kinds of byte (the end of a
 * word, a byte a string must escape) test a word of the text for them at once. A test flags a
 * byte by its high bit; the flag is exact for the lowest flagged byte (a borrow may flag bytes
 * above it), which is all a scan reads. Only where a word's first byte is its lowest
 * (SWAR_USABLE): elsewhere a scan goes a byte at a time. */
#ifndef ACP_SWAR_H
#define ACP_SWAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_USABLE 1
#else
#define SWAR_USABLE 0
#endif

enum { SWAR_BYTES = 8 };

#define SWAR_ONES  UINT64_C(0x0101010101010101)
#define SWAR_HIGHS UINT64_C(0x8080808080808080)

static inline uint64_t swar_load(const void *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The bytes of w that equal c; that are below c; that are above 0x7f. */
static inline uint64_t swar_equal(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (SWAR_ONES * c);
    return (x - SWAR_ONES) & ~x & SWAR_HIGHS;
}

static inline uint64_t swar_below(uint64_t w, unsigned char c)
{
    return (w - SWAR_ONES * c) & ~w & SWAR_HIGHS;
}

static inline uint64_t swar_high(uint64_t w)
{
    return w & SWAR_HIGHS;
}

/* The bytes of w that are 'A' to 'Z', each exact (no borrow crosses a byte: the sums are of
 * seven bits), whatever the byte order. */
static inline uint64_t swar_upper_ascii(uint64_t w)
{
    uint64_t low7 = w & ~SWAR_HIGHS;
    uint64_t from_a = low7 + SWAR_ONES * (0x80 - 'A');     /* high bit: at least 'A' */
    uint64_t past_z = low7 + SWAR_ONES * (0x80 - 'Z' - 1); /* high bit: above 'Z' */
    return from_a & ~past_z & ~w & SWAR_HIGHS;
}

/* The bytes of w that are c, each flagged exactly (the sums are of seven bits: no carry crosses
 * a byte), so that they can be counted. */
static inline uint64_t swar_each_equal(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (SWAR_ONES * c);
    return ~(((x & ~SWAR_HIGHS) + ~SWAR_HIGHS) | x) & SWAR_HIGHS;
}

/* How many bytes flags flags (exact flags, high bits only): their sum in the top byte of a
 * product, which no carry reaches beyond (at most eight). No popcount: x86-64's baseline has
 * none, and the builtin is a call. */
static inline size_t swar_count(uint64_t flags)
{
    return (size_t)(((flags >> 7) * SWAR_ONES) >> 56);
}

/* The offset of the lowest byte flagged (flagged is not 0). */
static inline size_t swar_lowest(uint64_t flagged)
{
    return (size_t)__builtin_ctzll(flagged) / 8;
}

#endif
