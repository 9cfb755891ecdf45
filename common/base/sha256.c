#include "base/sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t ROUND_CONSTANTS[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotate_right(uint32_t word, unsigned bits)
{
    return word >> bits | word << (32 - bits);
}

static uint32_t read_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void write_be32(unsigned char *p, uint32_t word)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(word >> (24 - 8 * i));
}

/* The message schedule of one block: its 16 words, then 48 made of them. */
static void schedule(const unsigned char block[SHA256_BLOCK_BYTES], uint32_t w[64])
{
    for (int t = 0; t < 16; t++)
        w[t] = read_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ w[t - 15] >> 3;
        uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ w[t - 2] >> 10;
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
}

static void compress(uint32_t state[8], const unsigned char block[SHA256_BLOCK_BYTES])
{
    uint32_t w[64], v[8];
    schedule(block, w);
    memcpy(v, state, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t e = v[4], a = v[0];
        uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
        uint32_t choose = (e & v[5]) ^ (~e & v[6]);
        uint32_t t1 = v[7] + sum1 + choose + ROUND_CONSTANTS[t] + w[t];
        uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
        uint32_t majority = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, 7 * sizeof *v);
        v[4] += t1;
        v[0] = t1 + sum0 + majority;
    }
    for (int i = 0; i < 8; i++)
        state[i] += v[i];
}

void sha256_begin(struct sha256 *h)
{
    /* the first 32 bits of the fractional parts of the square roots of the first 8 primes */
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(h->state, initial, sizeof initial);
    h->len = 0;
}

void sha256_add(struct sha256 *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t filled = (size_t)(h->len % SHA256_BLOCK_BYTES);
    h->len += len;
    while (len > 0) {
        size_t take = SHA256_BLOCK_BYTES - filled;
        if (take > len)
            take = len;
        memcpy(h->block + filled, p, take);
        filled += take;
        p += take;
        len -= take;
        if (filled == SHA256_BLOCK_BYTES) {
            compress(h->state, h->block);
            filled = 0;
        }
    }
}

void sha256_end(struct sha256 *h, unsigned char out[SHA256_BYTES])
{
    uint64_t bits = h->len * 8;
    size_t filled = (size_t)(h->len % SHA256_BLOCK_BYTES);
    /* a 1 bit, zeros, and the length in bits in the last 8 bytes of a block */
    h->block[filled++] = 0x80;
    if (filled > SHA256_BLOCK_BYTES - 8) {
        memset(h->block + filled, 0, SHA256_BLOCK_BYTES - filled);
        compress(h->state, h->block);
        filled = 0;
    }
    memset(h->block + filled, 0, SHA256_BLOCK_BYTES - 8 - filled);
    write_be32(h->block + SHA256_BLOCK_BYTES - 8, (uint32_t)(bits >> 32));
    write_be32(h->block + SHA256_BLOCK_BYTES - 4, (uint32_t)bits);
    compress(h->state, h->block);
    for (int i = 0; i < 8; i++)
        write_be32(out + 4 * i, h->state[i]);
}

void sha256(const void *data, size_t len, unsigned char out[SHA256_BYTES])
{
    struct sha256 h;
    sha256_begin(&h);
    sha256_add(&h, data, len);
    sha256_end(&h, out);
}

void sha256_base64(const unsigned char digest[SHA256_BYTES], char out[45])
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = out;
    for (size_t i = 0; i < SHA256_BYTES; i += 3) {
        uint32_t group = (uint32_t)digest[i] << 16;
        size_t have = SHA256_BYTES - i < 3 ? SHA256_BYTES - i : 3;
        if (have > 1)
            group |= (uint32_t)digest[i + 1] << 8;
        if (have > 2)
            group |= digest[i + 2];
        for (size_t k = 0; k < 4; k++)
            *o++ = k <= have ? alphabet[group >> (18 - 6 * k) & 63] : '=';
    }
    *o = '\0';
}
