#include "idgen.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "strmap.h"
#include "util.h"

enum { ID_BITS = 24 };
static const uint32_t ID_MASK = (1u << ID_BITS) - 1;

/* An id a sender used, in the map by sender and id and in the list by last use. */
struct used_id {
    char *key; /* the map's key, to remove it when forgotten */
    struct sender *sender;
    double seen;
    struct list_link link;
};

struct sender {
    char *name;    /* the map's key */
    uint64_t key;  /* of its permutation */
    uint64_t next; /* its counter */
    size_t ids;    /* of its ids remembered */
    bool idle;     /* in the idle list: it holds no id */
    struct list_link link;
};

struct idgen {
    struct idgen_config cfg;
    struct strmap *ids;     /* sender and id -> struct used_id */
    struct strmap *senders; /* name -> struct sender */
    struct list by_use;     /* of struct used_id, the least recently used first */
    struct list idle;       /* senders that hold no id, the earliest to become idle first */
    double latest;          /* the latest time seen; -INFINITY before any */
    struct strbuf scratch;
    char fresh[40];
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

/* A bijection of the 24-bit values chosen by key: four Feistel rounds on 12-bit halves. Any
 * round function gives a bijection; a keyed hash makes the order look random. */
static uint32_t permute(uint64_t key, uint32_t x)
{
    uint32_t left = x >> 12, right = x & 0xfff;
    for (uint64_t round = 0; round < 4; round++) {
        uint32_t f = (uint32_t)(mix64(key ^ (round << 32) ^ right) & 0xfff);
        uint32_t t = left ^ f;
        left = right;
        right = t;
    }
    return (left << 12) | right;
}

struct idgen *idgen_new(const struct idgen_config *cfg)
{
    struct idgen *g = xcalloc(1, sizeof *g);
    g->cfg = *cfg;
    if (g->cfg.max_ids == 0)
        g->cfg.max_ids = 1;
    g->ids = strmap_new();
    g->senders = strmap_new();
    g->latest = -INFINITY;
    return g;
}

static void free_used(void *v)
{
    struct used_id *u = v;
    free(u->key);
    free(u);
}

static void free_sender(void *v)
{
    struct sender *s = v;
    free(s->name);
    free(s);
}

void idgen_free(struct idgen *g)
{
    if (!g)
        return;
    strmap_free(g->ids, free_used);
    strmap_free(g->senders, free_sender);
    sb_free(&g->scratch);
    free(g);
}

size_t idgen_remembered_ids(const struct idgen *g)
{
    return strmap_size(g->ids);
}

size_t idgen_remembered_senders(const struct idgen *g)
{
    return strmap_size(g->senders);
}

/* The map key of a sender's id; the length prefix keeps "ab"+"c" apart from "a"+"bc". */
static const char *id_key(struct strbuf *sb, const char *sender, const char *id)
{
    sb_reset(sb);
    if (sender)
        sb_addf(sb, "%zu:%s", strlen(sender), sender);
    else
        sb_adds(sb, "-:");
    sb_adds(sb, id);
    return sb->buf;
}

static const char *sender_key(const char *sender)
{
    return sender ? sender : "";
}

static void forget_id(struct idgen *g, struct used_id *u)
{
    list_remove(&g->by_use, &u->link);
    strmap_remove(g->ids, u->key);
    if (--u->sender->ids == 0) {
        list_append(&g->idle, &u->sender->link);
        u->sender->idle = true;
    }
    free_used(u);
}

static void forget_sender(struct idgen *g, struct sender *s)
{
    list_remove(&g->idle, &s->link);
    strmap_remove(g->senders, s->name);
    free_sender(s);
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
    while (strmap_size(g->senders) > g->cfg.max_ids && g->idle.head)
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
    struct sender *s = strmap_get(g->senders, sender_key(name));
    if (!s) {
        s = xcalloc(1, sizeof *s);
        s->name = xstrdup(sender_key(name));
        /* NULL and "" differ in their id keys but share a counter: no harm, both unnamed. */
        s->key = mix64(mix64((uint64_t)g->cfg.seed) ^ hash_name(s->name));
        strmap_put(g->senders, s->name, s);
    }
    return s;
}

static void sender_hold(struct idgen *g, struct sender *s)
{
    s->ids++;
    if (s->idle)
        list_remove(&g->idle, &s->link);
    s->idle = false;
}

bool idgen_note(struct idgen *g, const char *sender, const char *id, double when)
{
    advance(g, when);
    double seen = isfinite(when) ? when : g->latest;
    const char *key = id_key(&g->scratch, sender, id);
    struct used_id *u = strmap_get(g->ids, key);
    bool again = u && !expired(g, u->seen);
    if (u) {
        list_remove(&g->by_use, &u->link);
    } else {
        u = xcalloc(1, sizeof *u);
        u->key = xstrdup(key);
        u->sender = sender_get(g, sender);
        sender_hold(g, u->sender);
        strmap_put(g->ids, u->key, u);
    }
    u->seen = seen;
    list_append(&g->by_use, &u->link);
    forget(g);
    return again;
}

bool idgen_seen(struct idgen *g, const char *sender, const char *id)
{
    const struct used_id *u = strmap_get(g->ids, id_key(&g->scratch, sender, id));
    return u && !expired(g, u->seen);
}

static void format_id(char *buf, size_t size, const struct sender *s, uint64_t n)
{
    uint32_t digits = permute(s->key, (uint32_t)(n & ID_MASK));
    uint64_t round = n >> ID_BITS;
    if (round == 0)
        snprintf(buf, size, "m-%06" PRIx32, digits);
    else
        snprintf(buf, size, "m-%06" PRIx32 "-%" PRIx64, digits, round);
}

const char *idgen_fresh(struct idgen *g, const char *sender, double when)
{
    advance(g, when);
    struct sender *s = sender_get(g, sender);
    do
        format_id(g->fresh, sizeof g->fresh, s, s->next++);
    while (idgen_seen(g, sender, g->fresh));
    idgen_note(g, sender, g->fresh, when);
    return g->fresh;
}
