#include "base/siphash.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* The four words of the state between rounds. */
struct sip_state {
    uint64_t v0, v1, v2, v3;
};

static uint64_t rotate_left(uint64_t word, unsigned bits)
{
    return word << bits | word >> (64 - bits);
}

/* Bytes (at most 8) as a little-endian word, whatever the machine's byte order: the digest is
 * the algorithm's, so that the reference vectors check it. */
static uint64_t read_le(const unsigned char *p, size_t n)
{
    uint64_t word = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&word, p, n); /* one load for a whole word: the digest of a short key is a few words */
#else
    for (size_t i = 0; i < n; i++)
        word |= (uint64_t)p[i] << (8 * i);
#endif
    return word;
}

static void write_le(unsigned char *p, uint64_t word)
{
    for (size_t i = 0; i < 8; i++)
        p[i] = (unsigned char)(word >> (8 * i));
}

/* One SipRound: two add-rotate-xor halves that meet across the words. */
static void sip_round(struct sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = rotate_left(s->v1, 13) ^ s->v0;
    s->v0 = rotate_left(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotate_left(s->v3, 16) ^ s->v2;
    s->v0 += s->v3;
    s->v3 = rotate_left(s->v3, 21) ^ s->v0;
    s->v2 += s->v1;
    s->v1 = rotate_left(s->v1, 17) ^ s->v2;
    s->v2 = rotate_left(s->v2, 32);
}

static void sip_rounds(struct sip_state *s, int rounds)
{
    for (int i = 0; i < rounds; i++)
        sip_round(s);
}

/* A message word goes in with c rounds between its two xors: 2 in SipHash-2-4, 1 in 1-3. */
static void absorb(struct sip_state *s, uint64_t word, int c)
{
    s->v3 ^= word;
    sip_rounds(s, c);
    s->v0 ^= word;
}

static uint64_t fold(const struct sip_state *s)
{
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

void siphash64_begin(struct siphash64 *h, const struct siphash_key *key)
{
    *h = (struct siphash64){
        .v0 = key->k0 ^ 0x736f6d6570736575ULL,
        .v1 = key->k1 ^ 0x646f72616e646f6dULL,
        .v2 = key->k0 ^ 0x6c7967656e657261ULL,
        .v3 = key->k1 ^ 0x7465646279746573ULL,
    };
}

/* The state of h as the rounds read it. */
static struct sip_state state_of(const struct siphash64 *h)
{
    return (struct sip_state){h->v0, h->v1, h->v2, h->v3};
}

static void set_state(struct siphash64 *h, const struct sip_state *s)
{
    h->v0 = s->v0;
    h->v1 = s->v1;
    h->v2 = s->v2;
    h->v3 = s->v3;
}

void siphash64_add(struct siphash64 *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t filled = h->len % 8;
    h->len += len;
    if (filled + len < 8) { /* within the unfinished word */
        h->pending |= read_le(p, len) << (8 * filled);
        return;
    }
    struct sip_state s = state_of(h);
    if (filled != 0) { /* the unfinished word first */
        size_t take = 8 - filled;
        absorb(&s, h->pending | read_le(p, take) << (8 * filled), 2);
        p += take;
        len -= take;
    }
    for (; len >= 8; p += 8, len -= 8)
        absorb(&s, read_le(p, 8), 2);
    h->pending = read_le(p, len);
    set_state(h, &s);
}

uint64_t siphash64_end(struct siphash64 *h)
{
    struct sip_state s = state_of(h);
    /* the last 0 to 7 bytes, with the length's low byte in the top one */
    absorb(&s, h->pending | (uint64_t)(h->len & 0xff) << 56, 2);
    s.v2 ^= 0xff; /* finalization: d = 4 rounds */
    sip_rounds(&s, 4);
    return fold(&s);
}

uint64_t siphash64(const struct siphash_key *key, const void *data, size_t len)
{
    struct siphash64 h;
    siphash64_begin(&h, key);
    siphash64_add(&h, data, len);
    return siphash64_end(&h);
}

/* SipHash-1-3: one round a word and three to finish, in one piece, for the hash tables: fast on
 * short keys, and keyed, so that no input can choose keys that collide. */
uint64_t siphash13(const struct siphash_key *key, const void *data, size_t len)
{
    struct siphash64 begun;
    siphash64_begin(&begun, key);
    struct sip_state s = state_of(&begun);
    const unsigned char *p = data;
    size_t n = len;
    for (; n >= 8; p += 8, n -= 8)
        absorb(&s, read_le(p, 8), 1);
    absorb(&s, read_le(p, n) | (uint64_t)(len & 0xff) << 56, 1);
    s.v2 ^= 0xff;
    sip_rounds(&s, 3);
    return fold(&s);
}

struct siphash_key siphash_key_of(const unsigned char bytes[SIPHASH_KEY_BYTES])
{
    return (struct siphash_key){read_le(bytes, 8), read_le(bytes + 8, 8)};
}

void siphash128(const struct siphash_key *key, const void *data, size_t len,
                unsigned char out[SIPHASH_128_BYTES])
{
    /* the constants spell "somepseudorandomlygeneratedbytes"; 0xee in v1 marks the 128-bit
     * output, so that its first half differs from SipHash-64's */
    struct sip_state s = {
        .v0 = key->k0 ^ 0x736f6d6570736575ULL,
        .v1 = key->k1 ^ 0x646f72616e646f6dULL ^ 0xee,
        .v2 = key->k0 ^ 0x6c7967656e657261ULL,
        .v3 = key->k1 ^ 0x7465646279746573ULL,
    };
    const unsigned char *p = data;
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8)
        absorb(&s, read_le(p + i, 8), 2);
    /* the last 0 to 7 bytes, with the length's low byte in the top one */
    absorb(&s, read_le(p + whole, len % 8) | (uint64_t)(len & 0xff) << 56, 2);
    /* finalization, d = 4 rounds for each half of the output */
    s.v2 ^= 0xee;
    sip_rounds(&s, 4);
    write_le(out, fold(&s));
    s.v1 ^= 0xdd;
    sip_rounds(&s, 4);
    write_le(out + 8, fold(&s));
}

/* Reads exactly n bytes of /dev/urandom; false when it could not. */
static bool read_urandom(unsigned char *bytes, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, bytes + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    int saved = errno;
    close(fd);
    errno = got == n ? 0 : (saved ? saved : EIO);
    return got == n;
}

bool random_bytes(void *buf, size_t n)
{
    ssize_t got;
    do /* a short request never comes short from getrandom once it is seeded, but it may be
        * interrupted */
        got = getrandom(buf, n, 0);
    while (got < 0 && errno == EINTR);
    return got == (ssize_t)n || read_urandom(buf, n);
}

bool siphash_key_draw(struct siphash_key *key)
{
    unsigned char bytes[SIPHASH_KEY_BYTES];
    if (!random_bytes(bytes, sizeof bytes))
        return false;
    *key = siphash_key_of(bytes);
    return true;
}
