/* The form in which the stream checks remember a key (an id with its sender, a conversation id,
 * a reply_with with its agent): a key of at most KEY_KEPT_BYTES bytes as it is, a longer one by
 * its SipHash-128 under a key drawn for the run (siphash.h). So what a remembered key holds is
 * bounded whatever the input chooses (1,000 ids of 1 MB held 982 MB), and since the input does
 * not know the run's key, no choice of ids makes two of them one: two long keys are one only if
 * their 128-bit digests are, by chance, about 2^-128 for a pair.
 *
 * The digest form is the byte 0xff, then the digest's 32 hex digits. No key kept as it is can
 * be one: a key is text of the input, valid UTF-8, where 0xff never occurs (and the keys of the
 * stream checks begin with a digit or a letter); so a short key never equals a long key's
 * digest, and a long key never equals a short one. */
#ifndef ACP_KEYFORM_H
#define ACP_KEYFORM_H

#include <stddef.h>

#include "base/siphash.h"

enum {
    KEY_KEPT_BYTES = 64,                             /* longer keys are remembered by digest */
    KEY_DIGEST_FORM_LEN = 1 + 2 * SIPHASH_128_BYTES, /* 0xff and 32 hex digits */
    /* What is kept of a long id for quoting it: a diagnostic quotes 120 bytes of a string and
     * the rest of a UTF-8 sequence begun there, 123 at most (diag.c), then "..."; cut at a
     * character's start, 128 bytes leave at least 125, so that a diagnostic quotes the prefix
     * as it would quote the whole id. */
    KEY_SHOWN_BYTES = 128,
};

/* Room for a digest form with its NUL. */
struct key_form_buf {
    char text[KEY_DIGEST_FORM_LEN + 1];
};

/* The form key (len bytes) is remembered by: key itself when len is at most KEY_KEPT_BYTES,
 * else its digest form under secret, written to buf. *form_len receives its length. */
const char *key_form(const struct siphash_key *secret, const char *key, size_t len,
                     struct key_form_buf *buf, size_t *form_len);

/* Draws a secret for the digests of a run; ends the process with status 2 when the kernel's
 * random source gives none (a secret anybody could guess would let the input forge collisions). */
void key_secret_draw(struct siphash_key *secret);

/* How many bytes of text (len bytes, valid UTF-8) are kept for quoting it: KEY_SHOWN_BYTES at
 * most, cut where a character begins. */
size_t key_shown_len(const char *text, size_t len);

#endif
