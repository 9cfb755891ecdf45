/* The stream clock; streamclock.h says what it promises and why. */
#include "base/streamclock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/list.h"
#include "base/util.h"

void clock_init(struct stream_clock *c, const struct clock_config *cfg)
{
    *c = (struct stream_clock){.cfg = *cfg, .step = fmin(cfg->step, cfg->skew), .now = NAN};
}

void clock_sender_init(struct stream_clock *c, struct clock_sender *s)
{
    *s = (struct clock_sender){.serial = ++c->serials};
}

static void hold(struct stream_clock *c, const struct clock_sender *s, double t, double ts)
{
    c->claim = (struct clock_claim){.held = true, .sender = s->serial, .time = t, .run_start = ts};
}

/* The clock moves to t when that is one step at most; otherwise t becomes the claim. */
static void step_or_hold(struct stream_clock *c, const struct clock_sender *s, double t, double ts)
{
    if (t - c->now <= c->step)
        c->now = fmax(c->now, t);
    else
        hold(c, s, t, ts);
}

/* Whether two claims of a jump tell roughly the same story: they differ by no more than a step,
 * or than the smaller jump. Two senders' bad clocks seldom do, a real gap always. */
static bool agree(const struct stream_clock *c, double a, double b)
{
    return fabs(a - b) <= fmax(c->step, fmin(a, b) - c->now);
}

/* Two senders say time jumped: it did, at least as far as the smaller claim. The larger one is
 * a claim still, of its own sender. */
static void confirm(struct stream_clock *c, const struct clock_sender *s, double t, double ts)
{
    struct clock_claim other = c->claim;
    c->claim.held = false;
    c->agreed = true;
    if (other.time <= t) {
        c->now = other.time;
        step_or_hold(c, s, t, ts);
    } else {
        c->now = t;
        if (other.time - c->now > c->step)
            c->claim = other;
        else
            c->now = other.time;
    }
}

/* A message whose time t is more than a step ahead. */
static void jump(struct stream_clock *c, const struct clock_sender *s, double t, double ts)
{
    struct clock_claim *k = &c->claim;
    if (!k->held || !agree(c, k->time, t)) {
        hold(c, s, t, ts);
        return;
    }
    if (k->sender != s->serial) {
        confirm(c, s, t, ts);
        return;
    }
    /* The same sender goes on: followed when nobody else is there to say otherwise. Once
     * followed, it is followed at its next message until somebody else speaks, as in a stream of
     * one sender. */
    bool alone = !c->several || s->serial == c->alone;
    if (alone || ts - k->run_start >= c->cfg.alone_after) {
        k->held = false;
        c->agreed = true;
        c->alone = s->serial;
        c->now = t;
        return;
    }
    k->time = fmax(k->time, t);
}

/* Learns a sender's offset from a streak of its messages off the clock by more than skew. A
 * message off the clock counts only when somebody else spoke near the present since the sender's
 * previous one: a sender alone may just be telling that time passed. */
static void learn(const struct stream_clock *c, struct clock_sender *s, double off, bool witnessed,
                  struct clock_reading *r)
{
    double skew = c->cfg.skew;
    if (fabs(off) <= skew) {
        s->streak = 0;
        return;
    }
    if (!witnessed)
        return;
    bool same_way = s->streak > 0 && (off > 0) == (s->streak_lo > 0);
    double lo = fmin(s->streak_lo, off), hi = fmax(s->streak_hi, off);
    if (!same_way || hi - lo > skew) {
        s->streak = 1;
        s->streak_lo = s->streak_hi = off;
        return;
    }
    s->streak_lo = lo;
    s->streak_hi = hi;
    if (++s->streak < CLOCK_STEADY)
        return;
    s->streak = 0;
    /* The clock lags the senders' time a little (it moves when they speak), which makes every
     * message look later than its sender's clock is off: the least of the streak is the
     * closest, ahead or behind. */
    s->offset += lo;
    if (fabs(s->offset) <= skew)
        s->offset = 0;
    r->learned = true;
    if (s->offset != 0 && fabs(s->offset - s->reported) > skew) {
        s->reported = s->offset;
        r->report = true;
    }
}

struct clock_reading clock_observe(struct stream_clock *c, struct clock_sender *s, double ts)
{
    double t = ts - s->offset;
    struct clock_reading r = {.at = t};
    if (!isfinite(t))
        return r; /* no time at all: it says nothing */
    bool witnessed = c->present != s->present_seen;
    if (!c->first_sender)
        c->first_sender = s->serial;
    else if (s->serial != c->first_sender)
        c->several = true;
    if (s->serial != c->alone)
        c->alone = 0;
    if (isnan(c->now)) {
        c->now = t;
        return r;
    }
    double ahead = t - c->now;
    if (ahead > c->step) {
        jump(c, s, t, ts);
    } else if (ahead >= -c->cfg.skew) {
        /* Near the present: time did not jump, whatever a claim said. */
        c->now = fmax(c->now, t);
        c->claim.held = false;
        c->agreed = true;
        c->present++;
    } else if (!c->agreed) {
        /* Far behind: a late message, or a clock running behind. Only while nothing confirmed
         * the first time can it be that time which was wrong. */
        c->now = t;
        c->claim.held = false;
    }
    if (c->agreed) {
        learn(c, s, t - c->now, witnessed, &r);
        r.at = ts - s->offset;
    }
    s->present_seen = c->present;
    return r;
}

/* ---- senders kept by name ---- */

/* One allocation per sender, its name stored once (the table is intrusive), in the form it is
 * remembered by (keyform.h), so that what a sender holds is bounded. */
struct book_entry {
    struct hash_node node; /* in the book's table, by name */
    struct list_link link; /* in the book's list, least recently heard first */
    struct clock_sender sender;
    char name[];
};

struct clock_book {
    struct stream_clock clock;
    struct hashtab senders; /* of struct book_entry */
    struct list heard;
    size_t max;
    struct siphash_key secret; /* the digests of long names */
};

static const char *entry_name(const struct hash_node *n)
{
    return HASH_ITEM(n, struct book_entry, node)->name;
}

struct clock_book *clock_book_new(const struct clock_config *cfg, size_t max_senders)
{
    struct clock_book *b = xcalloc(1, sizeof *b);
    clock_init(&b->clock, cfg);
    b->senders = (struct hashtab){.key = entry_name};
    b->max = max_senders > 0 ? max_senders : 1;
    key_secret_draw(&b->secret);
    return b;
}

struct clock_book *clock_book_quiet(double skew, unsigned long max_open)
{
    const struct clock_config cfg = {
        .step = CLOCK_QUIET_STEP, .skew = skew, .alone_after = 3 * CLOCK_QUIET_STEP};
    return clock_book_new(&cfg, max_open && max_open < CLOCK_BOOK_SENDERS ? max_open
                                                                          : CLOCK_BOOK_SENDERS);
}

/* A sender's name as the book remembers it, in buf when it is long. */
static const char *book_key(const struct clock_book *b, const char *name, struct key_form_buf *buf)
{
    size_t len;
    return key_form(&b->secret, name, strlen(name), buf, &len);
}

static struct book_entry *book_find(const struct clock_book *b, const char *key)
{
    return HASH_ITEM(hashtab_find(&b->senders, key), struct book_entry, node);
}

static struct book_entry *book_entry(struct clock_book *b, const char *name)
{
    struct key_form_buf buf;
    name = book_key(b, name, &buf);
    struct book_entry *e = book_find(b, name);
    if (e) {
        list_remove(&b->heard, &e->link);
        list_append(&b->heard, &e->link);
        return e;
    }
    if (b->heard.size >= b->max) {
        struct book_entry *old = LIST_ITEM(b->heard.head, struct book_entry, link);
        list_remove(&b->heard, &old->link);
        hashtab_remove(&b->senders, &old->node);
        free(old);
    }
    size_t len = strlen(name);
    e = xmalloc(sizeof *e + len + 1);
    memcpy(e->name, name, len + 1);
    clock_sender_init(&b->clock, &e->sender);
    list_append(&b->heard, &e->link);
    hashtab_add(&b->senders, &e->node);
    return e;
}

struct clock_reading clock_book_observe(struct clock_book *b, const char *sender, double ts)
{
    return clock_observe(&b->clock, &book_entry(b, sender)->sender, ts);
}

double clock_book_offset(const struct clock_book *b, const char *sender)
{
    struct key_form_buf buf;
    const struct book_entry *e = book_find(b, book_key(b, sender, &buf));
    return e ? e->sender.offset : 0;
}

double clock_book_now(const struct clock_book *b)
{
    return clock_now(&b->clock);
}

bool clock_book_agreed(const struct clock_book *b)
{
    return b->clock.agreed;
}

void clock_book_free(struct clock_book *b)
{
    if (!b)
        return;
    while (b->heard.head) {
        struct book_entry *e = LIST_ITEM(b->heard.head, struct book_entry, link);
        list_remove(&b->heard, &e->link);
        free(e);
    }
    hashtab_free(&b->senders, NULL);
    free(b);
}
