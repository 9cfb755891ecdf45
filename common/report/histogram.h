/* A histogram of latencies that merges exactly: each value is counted in a logarithmic bucket,
 * the bucket i holding the magnitudes in (B^(i-1), B^i] for the base B = 1.02. A bucket is read
 * back as the value 2 B^i / (B + 1), which is within (B - 1) / (B + 1) = 0.99% of every value in
 * it: a percentile read from the histogram is within 1% of the true one (the value of that rank
 * among those added), and clamped to the exact minimum and maximum, which are kept. Magnitudes
 * below HISTOGRAM_ZERO count as 0; negative values (a reply stamped before its cause) have buckets
 * of their own. Two histograms of the same scheme merge by adding their buckets, so that the
 * merge of the histograms of the parts of a stream is the histogram of the whole stream (sum
 * aside, which is a sum of doubles). The scheme has a version, written with it (acp(7)).
 *
 * While every value added is a whole number (IACP's ts are whole seconds), a bucket that can
 * hold only one whole number (below 50, where buckets are narrower than 1) is read back as that
 * number, exactly: 1 s is 1, not 0.99. */
#ifndef ACP_HISTOGRAM_H
#define ACP_HISTOGRAM_H

#include <jansson.h>
#include <stdbool.h>

#include "base/jsonout.h"

#define HISTOGRAM_SCHEME "log"
#define HISTOGRAM_BASE   1.02
#define HISTOGRAM_ZERO   1e-6
enum { HISTOGRAM_VERSION = 1 };

/* A bucket that holds values. */
struct histogram_bucket {
    long index;
    unsigned long long count; /* never 0 */
};

/* The buckets that hold values, by increasing index: sparse, so that what a histogram holds,
 * and the time to merge it, grow with its buckets in use, never with the span of their indices
 * (a stats file of histograms each spanning the whole range took 850 times its size). */
struct histogram_store {
    struct histogram_bucket *buckets;
    size_t n, cap;
};

struct histogram {
    unsigned long long count;      /* every value added */
    unsigned long long zero;       /* those of magnitude below HISTOGRAM_ZERO */
    unsigned long long fractional; /* those that are not whole numbers */
    double sum, min, max;          /* min and max NAN while empty */
    struct histogram_store positive, negative;
};

void histogram_init(struct histogram *h);
void histogram_free(struct histogram *h);
/* A value that is not a finite number is not counted. */
void histogram_add(struct histogram *h, double value);
void histogram_merge(struct histogram *into, const struct histogram *from);
/* The value of rank ceil(q * count) (at least 1) in increasing order, as the histogram knows it;
 * NAN when empty. */
double histogram_quantile(const struct histogram *h, double q);

/* Calls fn for every non-empty bucket in increasing order of value, with the bucket's bounds
 * (lower bound excluded, upper included; both 0 for the zero bucket) and its count. */
void histogram_each(const struct histogram *h,
                    void (*fn)(void *ctx, double low, double high, unsigned long long count),
                    void *ctx);

/* As a JSON object: count, sum, min, max, zero, fractional, and the non-empty buckets as
 * [index, count] pairs in "positive" and "negative". */
void histogram_write(const struct histogram *h, struct jsonout *w);
/* Reads what histogram_write wrote into h (initialised), adding to what it holds. Returns false,
 * with h unchanged, when v is not such an object. Without "fractional" (written before 0.3.0),
 * its values count as fractional: whether they were whole is not known. */
bool histogram_read(struct histogram *h, const json_t *v);

#endif
