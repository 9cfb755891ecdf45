#include "proto/partition.h"

#include "proto/dialect.h"

static bool token_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

void partition_token(struct strbuf *out, const char *key, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    if (len == 0) {
        sb_addc(out, '%');
        return;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)key[i];
        if (token_byte(c)) {
            sb_addc(out, (char)c);
        } else {
            sb_addc(out, '%');
            sb_addc(out, hex[c >> 4]);
            sb_addc(out, hex[c & 15]);
        }
    }
}

uint32_t partition_hash(const char *text, size_t len)
{
    uint32_t h = UINT32_C(2166136261);
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * UINT32_C(16777619);
    return h;
}

bool message_partition_token(const struct message *m, const char *queen, struct strbuf *out)
{
    const struct dialect *d = message_dialect(m);
    struct strbuf key = STRBUF_INIT;
    bool found = d && d->partition_key && d->partition_key(m->view, queen, &key);
    if (found)
        partition_token(out, key.buf ? key.buf : "", key.len);
    sb_free(&key);
    return found;
}

unsigned long message_partition(const struct message *m, const char *queen, unsigned long n)
{
    struct strbuf token = STRBUF_INIT;
    unsigned long k = 0;
    if (message_partition_token(m, queen, &token))
        k = (unsigned long)(partition_hash(token.buf, token.len) % n) + 1;
    sb_free(&token);
    return k;
}
