#include "base/keyform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

void key_secret_draw(struct siphash_key *secret)
{
    if (siphash_key_draw(secret))
        return;
    fprintf(stderr, "%s: cannot draw a random key: %s\n", util_progname(), strerror(errno));
    exit(2);
}

/* Writes the digest form of text (0xff and 32 hex digits, then a NUL) at out. */
static void put_digest_form(const struct siphash_key *secret, const char *text, size_t len,
                            char *out)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char digest[SIPHASH_128_BYTES];
    siphash128(secret, text, len, digest);
    out[0] = '\xff';
    for (size_t i = 0; i < SIPHASH_128_BYTES; i++) {
        out[1 + 2 * i] = digits[digest[i] >> 4];
        out[2 + 2 * i] = digits[digest[i] & 15];
    }
    out[KEY_DIGEST_FORM_LEN] = '\0';
}

const char *key_form(const struct siphash_key *secret, const char *key, size_t len,
                     struct key_form_buf *buf, size_t *form_len)
{
    if (len <= KEY_KEPT_BYTES) {
        *form_len = len;
        return key;
    }
    put_digest_form(secret, key, len, buf->text);
    *form_len = KEY_DIGEST_FORM_LEN;
    return buf->text;
}

const char *name_form(const struct siphash_key *secret, const char *name, size_t len,
                      struct name_form_buf *buf)
{
    if (len <= KEY_SHOWN_BYTES)
        return name;
    size_t shown = key_shown_len(name, len);
    memcpy(buf->text, name, shown);
    put_digest_form(secret, name, len, buf->text + shown);
    return buf->text;
}

const char *name_form_of(const struct siphash_key *secret, const char *name,
                         struct name_form_buf *buf)
{
    if (!name || strnlen(name, KEY_SHOWN_BYTES + 1) <= KEY_SHOWN_BYTES)
        return name;
    return name_form(secret, name, strlen(name), buf);
}

size_t name_shown_len(const char *form)
{
    return strcspn(form, "\xff");
}

const char *name_shown(const char *form, struct strbuf *scratch)
{
    size_t len = name_shown_len(form);
    if (!form[len])
        return form;
    sb_reset(scratch);
    sb_add(scratch, form, len);
    return scratch->buf;
}

size_t key_shown_len(const char *text, size_t len)
{
    return utf8_cut(text, len, KEY_SHOWN_BYTES);
}
