/* SHA-256 (FIPS 180-4), for the hashes a page's Content-Security-Policy names its own inline
 * script and style by: a browser runs them only if their SHA-256 is the one the policy gives. */
#ifndef ACP_SHA256_H
#define ACP_SHA256_H

#include <stddef.h>
#include <stdint.h>

enum { SHA256_BYTES = 32, SHA256_BLOCK_BYTES = 64 };

/* A digest being made of bytes given in pieces: the digest of the pieces joined. */
struct sha256 {
    uint32_t state[8];
    uint64_t len; /* bytes given so far */
    unsigned char block[SHA256_BLOCK_BYTES];
};

void sha256_begin(struct sha256 *h);
void sha256_add(struct sha256 *h, const void *data, size_t len);
void sha256_end(struct sha256 *h, unsigned char out[SHA256_BYTES]);

/* The digest of len bytes at data, in one piece. */
void sha256(const void *data, size_t len, unsigned char out[SHA256_BYTES]);

/* The digest in base64 (RFC 4648, with padding), as a policy's 'sha256-...' source gives it:
 * 44 characters and a NUL. */
void sha256_base64(const unsigned char digest[SHA256_BYTES], char out[45]);

#endif
