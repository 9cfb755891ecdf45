#include "proto/schedule.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/dialect.h"

bool schedule_message_time(const json_t *root, enum protocol proto, double *t, bool *whole_second)
{
    const struct dialect *d = dialect_of(proto);
    *whole_second = false;
    return d && d->time_tree(root, t, whole_second);
}

bool schedule_view_time(const struct message *m, double *t, bool *whole_second)
{
    const struct dialect *d = message_dialect(m);
    *whole_second = false;
    if (d && d->time(m->view, t, whole_second))
        return true;
    if (!m->capture.present || !isfinite(m->capture.time))
        return false;
    *t = m->capture.time; /* a capture's record says when, where the message does not */
    return true;
}

bool schedule_beyond_era(const json_t *root, enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    return d && d->beyond_era(root);
}

void schedule_init(struct schedule *s, const struct schedule_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
}

bool schedule_has_origin(const struct schedule *s)
{
    return s->in_loop;
}

void schedule_set_origin(struct schedule *s, double t)
{
    s->in_loop = true;
    s->origin = s->latest = t;
    s->cut = 0;
    s->span = 0;
}

/* The offset of capture time t in this loop, after the gaps max_gap cut. */
static double capture_offset(struct schedule *s, double t)
{
    if (!s->in_loop)
        schedule_set_origin(s, t);
    if (t > s->latest) {
        double gap = t - s->latest;
        if (s->cfg.max_gap > 0 && gap > s->cfg.max_gap)
            s->cut += gap - s->cfg.max_gap;
        s->latest = t;
    }
    return t - s->origin - s->cut;
}

double schedule_due(struct schedule *s, double t, double slot, double now)
{
    if (!s->anchored) {
        s->anchored = true;
        s->anchor = now;
    }
    unsigned long n = s->count++;
    switch (s->cfg.pace) {
    case PACE_TOPSPEED:
        return now;
    case PACE_RATE:
        return s->anchor + (double)n / s->cfg.rate;
    case PACE_SPEED:
        break;
    }
    double offset = capture_offset(s, t);
    if (offset + slot > s->span)
        s->span = offset + slot;
    return s->anchor + (s->base + offset) / s->cfg.speed;
}

void schedule_next_loop(struct schedule *s)
{
    s->base += s->span;
    s->in_loop = false;
    s->span = 0;
}

static unsigned bucket_of(double seconds)
{
    double us = seconds * 1e6;
    if (!(us >= 1))
        return 0;
    uint64_t v = us >= 0x1p40 ? (1ULL << 40) - 1 : (uint64_t)us;
    if (v < 64)
        return (unsigned)v;
    unsigned e = 63 - (unsigned)__builtin_clzll(v); /* 6 .. 39 */
    unsigned sub = (unsigned)(v >> (e - 5)) - 32;
    return 64 + (e - 6) * 32 + sub;
}

/* The middle of a bucket, in seconds. */
static double bucket_value(unsigned b)
{
    if (b < 64)
        return (b + 0.5) / 1e6;
    unsigned e = (b - 64) / 32 + 6, sub = (b - 64) % 32;
    double width = ldexp(1, (int)e - 5);
    return ((32 + sub) * width + width / 2) / 1e6;
}

void lateness_add(struct lateness *l, double seconds)
{
    if (seconds < 0)
        seconds = 0;
    l->count++;
    if (seconds > l->max)
        l->max = seconds;
    l->buckets[bucket_of(seconds)]++;
}

double lateness_quantile(const struct lateness *l, double q)
{
    if (!l->count)
        return 0;
    unsigned long rank = (unsigned long)ceil(q * (double)l->count), seen = 0;
    if (rank < 1)
        rank = 1;
    for (unsigned b = 0; b < LATENESS_BUCKETS; b++) {
        seen += l->buckets[b];
        if (seen >= rank) {
            double v = bucket_value(b);
            return v < l->max ? v : l->max;
        }
    }
    return l->max;
}
