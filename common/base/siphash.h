/* SipHash-2-4 with a 128-bit output (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012): a keyed digest that nobody who does not know the key can make collide on purpose. The
 * stream checks remember a long key by its digest under a key drawn for the run, so that what
 * they hold per id is bounded whatever the input chooses, and no input can make two ids one. */
#ifndef ACP_SIPHASH_H
#define ACP_SIPHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { SIPHASH_KEY_BYTES = 16, SIPHASH_128_BYTES = 16 };

/* The 128-bit key as the two little-endian words the algorithm reads it as. */
struct siphash_key {
    uint64_t k0, k1;
};

/* The key of 16 bytes, as the reference code and its test vectors give it. */
struct siphash_key siphash_key_of(const unsigned char bytes[SIPHASH_KEY_BYTES]);

/* Fills buf with n bytes (a few dozen at most) of the kernel's random source (getrandom(2), else
 * /dev/urandom); false, with errno set, when neither gives them. */
bool random_bytes(void *buf, size_t n);

/* Draws a key from the kernel's random source (getrandom(2), else /dev/urandom); false, with
 * errno set, when neither gave 16 bytes. */
bool siphash_key_draw(struct siphash_key *key);

/* SipHash-2-4-128 of len bytes at data under key, into out (the bytes the reference writes). */
void siphash128(const struct siphash_key *key, const void *data, size_t len,
                unsigned char out[SIPHASH_128_BYTES]);

/* SipHash-2-4 with its 64-bit output (the reference's bytes read as a little-endian word), of
 * bytes given in pieces: the digest of the pieces joined. For a value that is not in one piece of
 * memory, such as the nodes of a JSON value. */
struct siphash64 {
    uint64_t v0, v1, v2, v3;
    uint64_t pending; /* the bytes of an unfinished word, little-endian */
    size_t len;       /* bytes given so far */
};

void siphash64_begin(struct siphash64 *h, const struct siphash_key *key);
void siphash64_add(struct siphash64 *h, const void *data, size_t len);
uint64_t siphash64_end(struct siphash64 *h);

/* The same of len bytes at data, in one piece. */
uint64_t siphash64(const struct siphash_key *key, const void *data, size_t len);

/* SipHash-1-3 (one round a word, three to finish; the parameters the SipHash paper names and
 * Rust's and Python's hash tables use), 64-bit, of len bytes at data: a hash table's hash, keyed
 * so that no input can choose keys that collide, at a few nanoseconds a short key. */
uint64_t siphash13(const struct siphash_key *key, const void *data, size_t len);

#endif
