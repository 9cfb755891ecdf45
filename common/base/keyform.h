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
#include "base/util.h"

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

/* The form in which the stream checks remember a name (an agent's, an assign's body.node): a name
 * of at most KEY_SHOWN_BYTES bytes as it is; a longer one by its first bytes (key_shown_len), the
 * byte 0xff and the 32 hex digits of its SipHash-128 under secret. Names are compared as they are
 * remembered, so two names are one only when their forms are (a short name never equals a long
 * one's form, which holds 0xff), and a name is shown by what comes before the 0xff: a diagnostic,
 * which quotes 120 bytes of a string and then "...", quotes a long name's form as it would quote
 * the name. */
enum { NAME_FORM_MAX = KEY_SHOWN_BYTES + KEY_DIGEST_FORM_LEN };

struct name_form_buf {
    char text[NAME_FORM_MAX + 1];
};

/* The form name (len bytes) is remembered by: name itself, or its form written to buf. */
const char *name_form(const struct siphash_key *secret, const char *name, size_t len,
                      struct name_form_buf *buf);

/* The same for a name with its NUL (NULL: NULL); only a long one is read to its end. */
const char *name_form_of(const struct siphash_key *secret, const char *name,
                         struct name_form_buf *buf);

/* How many bytes of a name's form show it: those before its 0xff (all of a short name's). */
size_t name_shown_len(const char *form);

/* A name's form as it is shown: form itself, or a long name's first bytes copied into scratch. */
const char *name_shown(const char *form, struct strbuf *scratch);

/* Draws a secret for the digests of a run; ends the process with status 2 when the kernel's
 * random source gives none (a secret anybody could guess would let the input forge collisions). */
void key_secret_draw(struct siphash_key *secret);

/* How many bytes of text (len bytes, valid UTF-8) are kept for quoting it: KEY_SHOWN_BYTES at
 * most, cut where a character begins. */
size_t key_shown_len(const char *text, size_t len);

#endif
