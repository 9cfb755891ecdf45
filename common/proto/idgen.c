#include "proto/idgen.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/list.h"
#include "base/util.h"

/* Each form: its fixed prefix (NULL: the caller's), and the hex digits of its counter's width. */
static const struct {
    const char *prefix;
    unsigned digits;
} forms[IDGEN_FORMS] = {
    [IDGEN_FORAGER] = {"m-", 6},
    [IDGEN_QUEEN] = {"q-", 8},
    [IDGEN_PREFIXED] = {NULL, 12},
};

/* An id a sender used, in the map by sender and id and in the list by last use. */
struct used_id {
    struct hash_node node;
    struct sender *sender;
    double seen;
    struct list_link link;
    uint32_t hash; /* of key: forgotten without reading the key again */
    char key[];    /* id_key, in the form it is remembered by (keyform.h) */
};

struct sender {
    struct hash_node node;
    uint64_t key;               /* of its permutations */
    unsigned long key_seed;     /* the seed key was made with (idgen_reseed changes it) */
    uint64_t next[IDGEN_FORMS]; /* its counters */
    size_t ids;                 /* of its ids remembered */
    bool idle;                  /* in the idle list: it holds no id */
    struct list_link link;
    char name[]; /* sender_key, in the form it is remembered by (keyform.h) */
};

struct idgen {
    struct idgen_config cfg;
    struct hashtab ids;     /* of struct used_id, by id_key */
    struct hashtab senders; /* of struct sender, by name */
    struct list by_use;     /* of struct used_id, the least recently used first */
    struct list idle;       /* senders that hold no id, the earliest to become idle first */
    double latest;          /* the latest time seen; -INFINITY before any */
    struct strbuf scratch;
    struct strbuf fresh;
    struct siphash_key secret; /* the digests of long keys */
    struct key_form_buf form;  /* and the latest one */
};

static uint64_t mix64(uint64_t x)
{
    /* splitmix64's finaliser: every input bit moves every output bit. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* A bijection of the values of 2 * half bits chosen by key: four Feistel rounds on halves of
 * half bits (at most 24). Any round function gives a bijection; a keyed hash makes the order
 * look random. */
static uint64_t permute(uint64_t key, uint64_t x, unsigned half)
{
    uint64_t mask = (1ULL << half) - 1;
    uint64_t left = x >> half, right = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
        uint64_t f = mix64(key ^ (round << 32) ^ right) & mask;
        uint64_t t = left ^ f;
        left = right;
        right = t;
    }
    return (left << half) | right;
}

static const char *used_id_key(const struct hash_node *node)
{
    return HASH_ITEM(node, struct used_id, node)->key;
}

static const char *sender_name(const struct hash_node *node)
{
    return HASH_ITEM(node, struct sender, node)->name;
}

struct idgen *idgen_new(const struct idgen_config *cfg)
{
    struct idgen *g = xcalloc(1, sizeof *g);
    g->cfg = *cfg;
    if (g->cfg.max_ids == 0)
        g->cfg.max_ids = 1;
    g->ids.key = used_id_key;
    g->senders.key = sender_name;
    g->latest = -INFINITY;
    key_secret_draw(&g->secret);
    return g;
}

static void free_sender(struct hash_node *node)
{
    free(HASH_ITEM(node, struct sender, node));
}

void idgen_free(struct idgen *g)
{
    if (!g)
        return;
    for (struct list_link *n; (n = list_pop(&g->by_use));)
        free(LIST_ITEM(n, struct used_id, link));
    hashtab_free(&g->ids, NULL);
    hashtab_free(&g->senders, free_sender);
    sb_free(&g->scratch);
    sb_free(&g->fresh);
    free(g);
}

size_t idgen_remembered_ids(const struct idgen *g)
{
    return g->ids.size;
}

size_t idgen_remembered_senders(const struct idgen *g)
{
    return g->senders.size;
}

/* The map key of a sender's id, in the form it is remembered by; *len receives its length. The
 * length prefix keeps "ab"+"c" apart from "a"+"bc". */
static const char *id_key(struct idgen *g, const char *sender, const char *id, size_t *key_len)
{
    struct strbuf *sb = &g->scratch;
    sb_reset(sb);
    if (sender) {
        size_t len = strlen(sender), n = len;
        char digits[24], *end = digits + sizeof digits, *d = end;
        *--d = ':';
        do /* by hand: vsnprintf would cost more than the lookup */
            *--d = (char)('0' + n % 10);
        while ((n /= 10) != 0);
        sb_add(sb, d, (size_t)(end - d));
        sb_add(sb, sender, len);
    } else {
        sb_adds(sb, "-:");
    }
    sb_adds(sb, id);
    return key_form(&g->secret, sb->buf, sb->len, &g->form, key_len);
}

static void forget_id(struct idgen *g, struct used_id *u)
{
    list_remove(&g->by_use, &u->link);
    hashtab_remove_hashed(&g->ids, &u->node, u->hash);
    if (--u->sender->ids == 0) {
        list_append(&g->idle, &u->sender->link);
        u->sender->idle = true;
    }
    free(u);
}

static void forget_sender(struct idgen *g, struct sender *s)
{
    list_remove(&g->idle, &s->link);
    hashtab_remove(&g->senders, &s->node);
    free(s);
}

static bool expired(const struct idgen *g, double seen)
{
    return isfinite(seen) && isfinite(g->latest) && g->latest - seen > g->cfg.keep_for;
}

/* Forgets ids unused for keep_for, and the least recently used past the cap; then, past their
 * cap, senders that hold no id. */
static void forget(struct idgen *g)
{
    struct used_id *u;
    while ((u = LIST_ITEM(g->by_use.head, struct used_id, link)) &&
           (g->by_use.size > g->cfg.max_ids || expired(g, u->seen)))
        forget_id(g, u);
    /* At the cap, one goes an id noted, cold by then: the slot of the next is asked for now, and
     * the record after it (whose link and hash are read then). */
    if (u && g->by_use.size >= g->cfg.max_ids) {
        if (u->link.next)
            prefetch(LIST_ITEM(u->link.next, struct used_id, link));
        hashtab_prefetch(&g->ids, u->hash);
    }
    while (g->senders.size > g->cfg.max_ids && g->idle.head)
        forget_sender(g, LIST_ITEM(g->idle.head, struct sender, link));
}

static void advance(struct idgen *g, double when)
{
    if (isfinite(when) && when > g->latest)
        g->latest = when;
}

/* A sender, created when new; a new one holds no id but is in no list until it does. */
static struct sender *sender_get(struct idgen *g, const char *name)
{
    if (!name) /* NULL and "" differ in their id keys but share a counter: no harm, both unnamed */
        name = "";
    size_t len;
    struct key_form_buf buf;
    const char *key = key_form(&g->secret, name, strlen(name), &buf, &len);
    size_t hash = hashtab_hash_len(key, len);
    struct sender *s = HASH_ITEM(hashtab_find_hashed(&g->senders, key, hash), struct sender, node);
    if (s && s->key_seed == g->cfg.seed)
        return s;
    if (!s) {
        s = xcalloc(1, sizeof *s + len + 1);
        memcpy(s->name, key, len + 1);
        hashtab_add_new(&g->senders, &s->node, hash);
    }
    /* New, or reseeded since its key was made: made of the name itself, as the ids must be the
     * same in every run, whatever form the name is remembered by. */
    s->key = mix64(mix64((uint64_t)g->cfg.seed) ^ hash_name(name));
    s->key_seed = g->cfg.seed;
    return s;
}

static void sender_hold(struct idgen *g, struct sender *s)
{
    s->ids++;
    if (s->idle)
        list_remove(&g->idle, &s->link);
    s->idle = false;
}

/* A sender's id looked up: its key (in g's buffers, valid until the next lookup), its hash, and
 * its entry when it is remembered (perhaps expired). */
struct lookup {
    const char *key;
    size_t len, hash;
    struct used_id *u;
};

static void look_up(struct idgen *g, const char *sender, const char *id, struct lookup *l)
{
    l->key = id_key(g, sender, id, &l->len);
    l->hash = hashtab_hash_len(l->key, l->len);
    l->u = HASH_ITEM(hashtab_find_hashed(&g->ids, l->key, l->hash), struct used_id, node);
}

static bool looked_up_seen(const struct idgen *g, const struct lookup *l)
{
    return l->u && !expired(g, l->u->seen);
}

/* Notes the id looked up as used at when by s, which is sender's entry or NULL (found here when
 * the id is new); returns whether it was seen. */
static bool note_looked_up(struct idgen *g, const struct lookup *l, struct sender *s,
                           const char *sender, double when)
{
    advance(g, when);
    double seen = isfinite(when) ? when : g->latest;
    bool again = looked_up_seen(g, l);
    struct used_id *u = l->u;
    if (u) {
        list_remove(&g->by_use, &u->link);
    } else {
        u = xcalloc(1, sizeof *u + l->len + 1);
        memcpy(u->key, l->key, l->len + 1);
        u->sender = s ? s : sender_get(g, sender);
        sender_hold(g, u->sender);
        u->hash = (uint32_t)l->hash;
        hashtab_add_new(&g->ids, &u->node, l->hash);
    }
    u->seen = seen;
    list_append(&g->by_use, &u->link);
    forget(g);
    return again;
}

bool idgen_note(struct idgen *g, const char *sender, const char *id, double when)
{
    struct lookup l;
    look_up(g, sender, id, &l);
    return note_looked_up(g, &l, NULL, sender, when);
}

bool idgen_seen(struct idgen *g, const char *sender, const char *id)
{
    struct lookup l;
    look_up(g, sender, id, &l);
    return looked_up_seen(g, &l);
}

/* v in lowercase hex, at least width digits (zero-padded): by hand, as vsnprintf would cost more
 * than the rest of a fresh id. */
static void add_hex(struct strbuf *out, uint64_t v, unsigned width)
{
    char digits[16], *end = digits + sizeof digits, *d = end;
    do
        *--d = "0123456789abcdef"[v & 15];
    while ((v >>= 4) != 0);
    for (; width > sizeof digits; width--) /* no form is wider than 16 digits */
        sb_addc(out, '0');
    while ((unsigned)(end - d) < width)
        *--d = '0';
    sb_add(out, d, (size_t)(end - d));
}

/* The n-th id of a sender's form: the permuted low bits as hex digits, then the round. The
 * forager's form keeps the sender's key as it is, so that its ids stay what they were before
 * there were other forms. */
static void format_id(struct strbuf *out, const struct sender *s, enum idgen_form form,
                      const char *prefix, uint64_t n)
{
    unsigned bits = 4 * forms[form].digits;
    uint64_t key = form == IDGEN_FORAGER ? s->key : mix64(s->key + (uint64_t)form);
    uint64_t digits = permute(key, n & ((1ULL << bits) - 1), bits / 2);
    uint64_t round = n >> bits;
    sb_reset(out);
    sb_adds(out, forms[form].prefix ? forms[form].prefix : prefix);
    add_hex(out, digits, forms[form].digits);
    if (round) {
        sb_addc(out, '-');
        add_hex(out, round, 1);
    }
}

const char *idgen_fresh_form(struct idgen *g, const char *sender, enum idgen_form form,
                             const char *prefix, double when)
{
    advance(g, when);
    struct sender *s = sender_get(g, sender);
    struct lookup l;
    do {
        format_id(&g->fresh, s, form, prefix ? prefix : "", s->next[form]++);
        look_up(g, sender, g->fresh.buf, &l);
    } while (looked_up_seen(g, &l));
    note_looked_up(g, &l, s, sender, when);
    return g->fresh.buf;
}

void idgen_reseed(struct idgen *g, const char *text)
{
    g->cfg.seed ^= (unsigned long)hash_name(text);
}

const char *idgen_fresh(struct idgen *g, const char *sender, double when)
{
    return idgen_fresh_form(g, sender, IDGEN_FORAGER, NULL, when);
}

static bool hex_digits(const char *s, size_t min, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!isxdigit((unsigned char)s[n]))
            return false;
    return n >= min && n <= max;
}

const char *idgen_fresh_like(struct idgen *g, const char *sender, const char *model, double when)
{
    if (strncmp(model, "q-", 2) == 0 && hex_digits(model + 2, 1, SIZE_MAX))
        return idgen_fresh_form(g, sender, IDGEN_QUEEN, NULL, when);
    if (strncmp(model, "m-", 2) == 0 && hex_digits(model + 2, 6, 6))
        return idgen_fresh_form(g, sender, IDGEN_FORAGER, NULL, when);
    const char *dash = strrchr(model, '-'), *under = strrchr(model, '_');
    const char *cut = dash > under ? dash : under;
    size_t stem = cut ? (size_t)(cut - model) : strlen(model);
    char separator = cut ? *cut : '-';
    if (stem > IDGEN_STEM_MAX - 1) { /* a fresh id stays short whatever the model's length */
        stem = IDGEN_STEM_MAX - 1;
        while (stem > 0 && ((unsigned char)model[stem] & 0xc0) == 0x80) /* not mid-character */
            stem--;
    }
    struct strbuf prefix = STRBUF_INIT;
    sb_add(&prefix, model, stem);
    sb_addc(&prefix, separator);
    idgen_fresh_form(g, sender, IDGEN_PREFIXED, prefix.buf, when);
    sb_free(&prefix);
    return g->fresh.buf;
}

unsigned long idgen_random_seed(void)
{
    unsigned long seed;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed)
        return seed;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long)mix64((uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
                                ((uint64_t)getpid() << 32));
}
