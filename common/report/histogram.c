#include "report/histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Indices beyond these hold nothing a latency can be: B^5000 is about 10^43. */
enum { INDEX_MAX = 5000 };

void histogram_init(struct histogram *h)
{
    *h = (struct histogram){.min = NAN, .max = NAN};
}

void histogram_free(struct histogram *h)
{
    free(h->positive.buckets);
    free(h->negative.buckets);
    histogram_init(h);
}

static long bucket_of(double magnitude)
{
    double i = ceil(log(magnitude) / log(HISTOGRAM_BASE));
    return (long)fmax(-INDEX_MAX, fmin(INDEX_MAX, i));
}

/* Room for at least n buckets in the store. */
static void reserve(struct histogram_store *s, size_t n)
{
    if (n <= s->cap)
        return;
    size_t cap = s->cap ? s->cap : 8;
    while (cap < n)
        cap *= 2;
    s->buckets = xrealloc(s->buckets, cap * sizeof *s->buckets);
    s->cap = cap;
}

/* Where index i is in the store, or where it would go. */
static size_t position(const struct histogram_store *s, long i)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->buckets[mid].index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adds count (not 0) to the bucket of index i, making it when absent. */
static void count_in(struct histogram_store *s, long i, unsigned long long count)
{
    size_t at = position(s, i);
    if (at < s->n && s->buckets[at].index == i) {
        s->buckets[at].count += count;
        return;
    }
    reserve(s, s->n + 1);
    memmove(&s->buckets[at + 1], &s->buckets[at], (s->n - at) * sizeof *s->buckets);
    s->buckets[at] = (struct histogram_bucket){i, count};
    s->n++;
}

static void note_extremes(struct histogram *h, double min, double max)
{
    if (isnan(h->min) || min < h->min)
        h->min = min;
    if (isnan(h->max) || max > h->max)
        h->max = max;
}

void histogram_add(struct histogram *h, double value)
{
    if (!isfinite(value))
        return;
    h->count++;
    h->fractional += value != floor(value);
    h->sum += value;
    note_extremes(h, value, value);
    double magnitude = fabs(value);
    if (magnitude < HISTOGRAM_ZERO)
        h->zero++;
    else
        count_in(value > 0 ? &h->positive : &h->negative, bucket_of(magnitude), 1);
}

/* Adds the buckets of from (in increasing order) to those of into: one walk of both, from the
 * high end, in place. */
static void merge_store(struct histogram_store *into, const struct histogram_store *from)
{
    size_t shared = 0;
    for (size_t a = 0, b = 0; a < into->n && b < from->n;) {
        long x = into->buckets[a].index, y = from->buckets[b].index;
        shared += x == y;
        a += x <= y;
        b += y <= x;
    }
    size_t n = into->n + from->n - shared;
    reserve(into, n);
    struct histogram_bucket *out = into->buckets;
    size_t a = into->n, b = from->n, k = n;
    while (b > 0) {
        const struct histogram_bucket *y = &from->buckets[b - 1];
        if (a > 0 && out[a - 1].index > y->index) {
            out[--k] = out[--a];
        } else if (a > 0 && out[a - 1].index == y->index) {
            out[--k] = (struct histogram_bucket){y->index, out[--a].count + y->count};
            b--;
        } else {
            out[--k] = *y;
            b--;
        }
    }
    into->n = n; /* what is left of into, below k, is where it was */
}

void histogram_merge(struct histogram *into, const struct histogram *from)
{
    if (from->count == 0)
        return;
    into->count += from->count;
    into->zero += from->zero;
    into->fractional += from->fractional;
    into->sum += from->sum;
    note_extremes(into, from->min, from->max);
    merge_store(&into->positive, &from->positive);
    merge_store(&into->negative, &from->negative);
}

struct rank_walk {
    unsigned long long rank, seen;
    bool whole; /* every value added was a whole number */
    double found;
    bool done;
};

/* The one whole number in (low, high], or NAN when there is none, or more than one. */
static double only_whole(double low, double high)
{
    double n = floor(high);
    return n > low && n - 1 <= low ? n : NAN;
}

static void find_rank(void *ctx, double low, double high, unsigned long long count)
{
    struct rank_walk *w = ctx;
    if (w->done)
        return;
    w->seen += count;
    if (w->seen < w->rank)
        return;
    w->done = true;
    /* 2 B^i / (B + 1), from the bucket's bound of largest magnitude B^i */
    double top = high > 0 ? high : low;
    w->found = 2 * top / (HISTOGRAM_BASE + 1);
    /* whole values, in a bucket narrower than 1 (below 50): the one it can hold, exactly */
    double exact = w->whole ? only_whole(fmin(fabs(low), fabs(high)), fabs(top)) : NAN;
    if (!isnan(exact))
        w->found = copysign(exact, top);
}

double histogram_quantile(const struct histogram *h, double q)
{
    if (h->count == 0)
        return NAN;
    double wanted = ceil(q * (double)h->count);
    struct rank_walk w = {.rank = wanted < 1 ? 1 : (unsigned long long)wanted,
                          .whole = h->fractional == 0};
    if (w.rank > h->count)
        w.rank = h->count;
    histogram_each(h, find_rank, &w);
    return fmin(h->max, fmax(h->min, w.found));
}

void histogram_each(const struct histogram *h,
                    void (*fn)(void *ctx, double low, double high, unsigned long long count),
                    void *ctx)
{
    const struct histogram_store *n = &h->negative, *p = &h->positive;
    for (size_t k = n->n; k-- > 0;) {
        long i = n->buckets[k].index;
        fn(ctx, -pow(HISTOGRAM_BASE, (double)i), -pow(HISTOGRAM_BASE, (double)(i - 1)),
           n->buckets[k].count);
    }
    if (h->zero)
        fn(ctx, 0, 0, h->zero);
    for (size_t k = 0; k < p->n; k++) {
        long i = p->buckets[k].index;
        fn(ctx, pow(HISTOGRAM_BASE, (double)(i - 1)), pow(HISTOGRAM_BASE, (double)i),
           p->buckets[k].count);
    }
}

static void write_store(struct jsonout *w, const struct histogram_store *s)
{
    jsonout_begin_array(w);
    for (size_t k = 0; k < s->n; k++) {
        jsonout_begin_array(w);
        jsonout_integer(w, s->buckets[k].index);
        jsonout_integer(w, (json_int_t)s->buckets[k].count);
        jsonout_end_array(w);
    }
    jsonout_end_array(w);
}

void histogram_write(const struct histogram *h, struct jsonout *w)
{
    jsonout_begin_object(w);
    jsonout_key(w, "count");
    jsonout_integer(w, (json_int_t)h->count);
    jsonout_key(w, "sum");
    jsonout_number(w, h->sum);
    jsonout_key(w, "min");
    jsonout_number(w, h->min);
    jsonout_key(w, "max");
    jsonout_number(w, h->max);
    jsonout_key(w, "zero");
    jsonout_integer(w, (json_int_t)h->zero);
    jsonout_key(w, "fractional");
    jsonout_integer(w, (json_int_t)h->fractional);
    jsonout_key(w, "positive");
    write_store(w, &h->positive);
    jsonout_key(w, "negative");
    write_store(w, &h->negative);
    jsonout_end_object(w);
}

static bool read_count(const json_t *v, unsigned long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (unsigned long long)json_integer_value(v);
    return true;
}

static int by_index(const void *a, const void *b)
{
    long x = ((const struct histogram_bucket *)a)->index;
    long y = ((const struct histogram_bucket *)b)->index;
    return (x > y) - (x < y);
}

/* Puts the buckets of s in increasing order, adding up those of one index. */
static void sort_store(struct histogram_store *s)
{
    if (s->n == 0)
        return;
    qsort(s->buckets, s->n, sizeof *s->buckets, by_index);
    size_t kept = 0;
    for (size_t k = 1; k < s->n; k++) {
        if (s->buckets[k].index == s->buckets[kept].index)
            s->buckets[kept].count += s->buckets[k].count;
        else
            s->buckets[++kept] = s->buckets[k];
    }
    s->n = kept + 1;
}

/* Reads [[index, count], ...] into s (empty), adding up the counts in *total: the pairs as they
 * come, then sorted once, so that the time grows with them as n log n whatever their order. */
static bool read_store(struct histogram_store *s, const json_t *v, unsigned long long *total)
{
    if (!json_is_array(v))
        return false;
    size_t k;
    const json_t *pair;
    json_array_foreach(v, k, pair)
    {
        unsigned long long count;
        const json_t *index = json_array_get(pair, 0);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(index) ||
            json_integer_value(index) < -INDEX_MAX || json_integer_value(index) > INDEX_MAX ||
            !read_count(json_array_get(pair, 1), &count))
            return false;
        if (count) {
            reserve(s, s->n + 1);
            s->buckets[s->n++] = (struct histogram_bucket){(long)json_integer_value(index), count};
        }
        *total += count;
    }
    sort_store(s);
    return true;
}

bool histogram_read(struct histogram *h, const json_t *v)
{
    struct histogram part;
    histogram_init(&part);
    const json_t *sum = json_object_get(v, "sum"), *min = json_object_get(v, "min"),
                 *max = json_object_get(v, "max");
    unsigned long long total = 0;
    bool ok = json_is_object(v) && read_count(json_object_get(v, "count"), &part.count) &&
              read_count(json_object_get(v, "zero"), &part.zero) && json_is_number(sum) &&
              read_store(&part.positive, json_object_get(v, "positive"), &total) &&
              read_store(&part.negative, json_object_get(v, "negative"), &total) &&
              total + part.zero == part.count;
    const json_t *fractional = json_object_get(v, "fractional");
    if (!fractional)
        part.fractional = part.count;
    else
        ok = ok && read_count(fractional, &part.fractional) && part.fractional <= part.count;
    if (ok && part.count) {
        ok = json_is_number(min) && json_is_number(max) &&
             json_number_value(min) <= json_number_value(max);
        part.sum = json_number_value(sum);
        part.min = json_number_value(min);
        part.max = json_number_value(max);
    }
    if (ok)
        histogram_merge(h, &part);
    histogram_free(&part);
    return ok;
}
