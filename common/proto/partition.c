#include "proto/partition.h"

#include <string.h>

#include "proto/dialect.h"

static bool token_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* What byte c of a key is in its token: itself, or '%' and two hex digits; their count. */
static size_t token_piece(unsigned char c, char piece[3])
{
    static const char hex[] = "0123456789ABCDEF";
    if (token_byte(c)) {
        piece[0] = (char)c;
        return 1;
    }
    piece[0] = '%';
    piece[1] = hex[c >> 4];
    piece[2] = hex[c & 15];
    return 3;
}

enum { FNV_BASIS = 2166136261u, FNV_PRIME = 16777619u };

static uint32_t hash_more(uint32_t h, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * FNV_PRIME;
    return h;
}

void partition_token(struct strbuf *out, const char *key, size_t len)
{
    char piece[3];
    if (len == 0)
        sb_addc(out, '%');
    for (size_t i = 0; i < len; i++)
        sb_add(out, piece, token_piece((unsigned char)key[i], piece));
}

uint32_t partition_hash(const char *text, size_t len)
{
    return hash_more(FNV_BASIS, text, len);
}

/* partition_hash of key's token, without writing the token: once a message in a partitioned run. */
static uint32_t token_hash(const char *key, size_t len)
{
    char piece[3];
    if (len == 0)
        return hash_more(FNV_BASIS, "%", 1);
    uint32_t h = FNV_BASIS;
    for (size_t i = 0; i < len; i++)
        h = hash_more(h, piece, token_piece((unsigned char)key[i], piece));
    return h;
}

static const char *key_of(const struct message *m, const char *queen)
{
    const struct dialect *d = message_dialect(m);
    return d && d->partition_key ? d->partition_key(m->view, queen) : NULL;
}

bool message_partition_token(const struct message *m, const char *queen, struct strbuf *out)
{
    const char *key = key_of(m, queen);
    if (key)
        partition_token(out, key, strlen(key));
    return key != NULL;
}

unsigned long message_partition(const struct message *m, const char *queen, unsigned long n)
{
    const char *key = key_of(m, queen);
    return key ? (unsigned long)(token_hash(key, strlen(key)) % n) + 1 : 0;
}
