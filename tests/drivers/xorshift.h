/* The drivers' random numbers: Marsaglia's xorshift64, the same stream on every machine and with
 * every compiler, from a state the driver seeds (never 0). */
#ifndef ACP_TESTS_XORSHIFT_H
#define ACP_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
