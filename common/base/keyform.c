#include "base/keyform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void key_secret_draw(struct siphash_key *secret)
{
    if (siphash_key_draw(secret))
        return;
    fprintf(stderr, "%s: cannot draw a random key: %s\n", util_progname(), strerror(errno));
    exit(2);
}

const char *key_form(const struct siphash_key *secret, const char *key, size_t len,
                     struct key_form_buf *buf, size_t *form_len)
{
    if (len <= KEY_KEPT_BYTES) {
        *form_len = len;
        return key;
    }
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[SIPHASH_128_BYTES];
    siphash128(secret, key, len, digest);
    buf->text[0] = '\xff';
    for (size_t i = 0; i < SIPHASH_128_BYTES; i++) {
        buf->text[1 + 2 * i] = digits[digest[i] >> 4];
        buf->text[2 + 2 * i] = digits[digest[i] & 15];
    }
    buf->text[KEY_DIGEST_FORM_LEN] = '\0';
    *form_len = KEY_DIGEST_FORM_LEN;
    return buf->text;
}

size_t key_shown_len(const char *text, size_t len)
{
    if (len <= KEY_SHOWN_BYTES)
        return len;
    size_t cut = KEY_SHOWN_BYTES;
    while (cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80) /* a continuation byte */
        cut--;
    return cut;
}
