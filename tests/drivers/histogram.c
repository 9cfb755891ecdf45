/* histogram: property checks of common/report/histogram.h, printing one line per failure and
 * "ok". For many random samples (several distributions, negative values and zeros among them):
 * every quantile is within 1% of the exact value of that rank, and exact for whole values below
 * 50 (those of whole values only); the histogram of the whole equals
 * the merge of the histograms of its parts, as written; and a histogram read back from what it
 * wrote writes the same. Usage: histogram [ROUNDS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/histogram.h"

static unsigned long long rng = 88172645463325252ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static double sample(int kind)
{
    switch (kind) {
    case 0: /* whole seconds, as IACP ts make them */
        return floor(uniform() * 300);
    case 1: /* log-uniform over nine decades */
        return pow(10, uniform() * 9 - 5);
    case 2: /* mostly small, a long tail */
        return -log(1 - uniform()) * 0.2;
    default: /* skewed clocks: some replies before their cause */
        return uniform() * 10 - 2;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *written(const struct histogram *h)
{
    struct strbuf sb = STRBUF_INIT;
    struct jsonout w;
    jsonout_init(&w, &sb, 0);
    histogram_write(h, &w);
    return sb_detach(&sb);
}

/* 1 s, ten times, reads back as 1 (the bucket's value is 0.990); not once a value of it had a
 * fraction, nor from a histogram written without "fractional", whose values may have had one. */
static int check_whole_seconds(void)
{
    int failures = 0;
    struct histogram h, old;
    histogram_init(&h);
    histogram_init(&old);
    for (int i = 0; i < 10; i++)
        histogram_add(&h, 1);
    histogram_add(&h, 7);
    if (histogram_quantile(&h, 0.5) != 1) {
        printf("whole seconds: p50 %.17g, not 1\n", histogram_quantile(&h, 0.5));
        failures++;
    }
    json_t *j = json_loads("{\"count\":2,\"sum\":2,\"min\":0.5,\"max\":1.5,\"zero\":0,"
                           "\"positive\":[[0,2]],\"negative\":[]}",
                           0, NULL);
    if (!histogram_read(&old, j) || histogram_quantile(&old, 0.5) == 1) {
        printf("without \"fractional\": p50 %.17g, read as whole\n", histogram_quantile(&old, 0.5));
        failures++;
    }
    histogram_add(&h, 0.5);
    if (histogram_quantile(&h, 0.5) == 1) {
        printf("with a fraction: p50 exactly 1\n");
        failures++;
    }
    json_decref(j);
    histogram_free(&h);
    histogram_free(&old);
    return failures;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 200, failures = 0;
    static const double qs[] = {0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1};
    for (int round = 0; round < rounds; round++) {
        size_t n = 1 + (size_t)(uniform() * 5000);
        int kind = round % 4;
        double *v = malloc(n * sizeof *v);
        struct histogram whole, parts[4], merged, back;
        histogram_init(&whole);
        histogram_init(&merged);
        histogram_init(&back);
        for (int p = 0; p < 4; p++)
            histogram_init(&parts[p]);
        for (size_t i = 0; i < n; i++) {
            v[i] = sample(kind);
            histogram_add(&whole, v[i]);
            histogram_add(&parts[(size_t)(uniform() * 4)], v[i]);
        }
        qsort(v, n, sizeof *v, by_value);
        for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
            size_t rank = (size_t)ceil(qs[k] * (double)n);
            double exact = v[(rank ? rank : 1) - 1], got = histogram_quantile(&whole, qs[k]);
            double error =
                fabs(exact) < HISTOGRAM_ZERO ? fabs(got) : fabs(got - exact) / fabs(exact);
            double allowed = fabs(exact) < HISTOGRAM_ZERO ? HISTOGRAM_ZERO : 0.01;
            if (!(error <= allowed) || (kind == 0 && fabs(exact) < 50 && got != exact)) {
                printf("round %d: q%g of %zu: %.17g, exact %.17g\n", round, qs[k], n, got, exact);
                failures++;
            }
        }
        for (int p = 0; p < 4; p++)
            histogram_merge(&merged, &parts[p]);
        char *a = written(&whole), *b = written(&merged);
        /* the sums may differ in their last bits: compare everything else */
        json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
        json_object_del(ja, "sum");
        json_object_del(jb, "sum");
        if (!json_equal(ja, jb)) {
            printf("round %d: merged parts differ from the whole:\n%s\n%s\n", round, a, b);
            failures++;
        }
        json_t *parsed = json_loads(a, 0, NULL);
        char *c = NULL;
        if (!histogram_read(&back, parsed) || strcmp(a, c = written(&back)) != 0) {
            printf("round %d: read back differs:\n%s\n%s\n", round, a, c ? c : "(unread)");
            failures++;
        }
        json_decref(ja);
        json_decref(jb);
        json_decref(parsed);
        free(a);
        free(b);
        free(c);
        free(v);
        histogram_free(&whole);
        histogram_free(&merged);
        histogram_free(&back);
        for (int p = 0; p < 4; p++)
            histogram_free(&parts[p]);
    }
    /* what is not a histogram is refused */
    static const char *const bad[] = {
        "{}",
        "{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"zero\":0,\"positive\":[],\"negative\":[]}",
        "{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"zero\":0,\"positive\":[[1,-1]],"
        "\"negative\":[]}",
        "{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"zero\":0,\"positive\":[[999999,1]],"
        "\"negative\":[]}",
        "{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"zero\":0,\"fractional\":2,"
        "\"positive\":[[0,1]],\"negative\":[]}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        struct histogram h;
        histogram_init(&h);
        json_t *j = json_loads(bad[k], 0, NULL);
        if (histogram_read(&h, j)) {
            printf("accepted %s\n", bad[k]);
            failures++;
        }
        json_decref(j);
        histogram_free(&h);
    }
    failures += check_whole_seconds();
    if (!failures)
        printf("ok\n");
    return failures != 0;
}
