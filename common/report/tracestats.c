#include "report/tracestats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/keyform.h"
#include "base/jsonout.h"
#include "base/strmap.h"
#include "diag/findings.h"
#include "proto/dialect.h"
#include "report/histogram.h"

/* Counts by name; past the cap, names are counted together in other. */
struct tally {
    struct strmap *map; /* name -> unsigned long long */
    unsigned long long other;
};

struct agent_stats {
    unsigned long long messages; /* that it sent */
    struct strmap *latency;      /* pair -> struct histogram, as the replying agent */
};

struct trace_stats {
    bool by_agent;
    unsigned long max_names;
    unsigned long long messages;
    struct tally kinds;
    struct strmap *agents; /* name -> struct agent_stats */
    unsigned long long other_agents;
    struct strmap *conversations; /* protocol -> struct tally of outcomes */
    struct tally anomalies;
    struct strmap *latency;            /* pair -> struct histogram */
    unsigned long long pairs_left_out; /* merged pairs past TRACE_STATS_PAIRS_MAX */
    struct strbuf pair;                /* scratch space for a pair's name */
    struct strbuf name;                /* scratch space for a long name's first bytes (told_as) */
};

static void tally_init(struct tally *t)
{
    t->map = strmap_new();
    t->other = 0;
}

static void tally_free(struct tally *t)
{
    strmap_free(t->map, free);
}

/* A name of the input as the statistics tell it apart: its first KEY_SHOWN_BYTES at most, as a
 * summary names it (keyform.h), so that what a name holds is bounded. Not a digest: the objects
 * of several processes (--merge-stats) must name an agent alike. */
static const char *told_as(struct strbuf *scratch, const char *name)
{
    size_t len = strnlen(name, KEY_SHOWN_BYTES + 1);
    if (len <= KEY_SHOWN_BYTES)
        return name;
    sb_reset(scratch);
    sb_add(scratch, name, key_shown_len(name, len));
    return scratch->buf;
}

static void tally_add(struct tally *t, const char *name, unsigned long long n, size_t max)
{
    unsigned long long *count = strmap_get_recent(t->map, name);
    if (!count && strmap_size(t->map) >= max) {
        t->other += n;
        return;
    }
    if (!count) {
        count = xcalloc(1, sizeof *count);
        strmap_put(t->map, name, count);
    }
    *count += n;
}

static void free_histogram(void *v)
{
    histogram_free(v);
    free(v);
}

/* The histogram of a pair, made when it is new; NULL past TRACE_STATS_PAIRS_MAX pairs: an object
 * may name any number of pairs, and each histogram costs kilobytes. One lookup either way. */
static struct histogram *histogram_of(struct strmap *map, const char *pair)
{
    struct histogram *h = strmap_get_recent(map, pair);
    if (!h && strmap_size(map) < TRACE_STATS_PAIRS_MAX) {
        h = xmalloc(sizeof *h);
        histogram_init(h);
        strmap_put(map, pair, h);
    }
    return h;
}

static void free_agent(void *v)
{
    struct agent_stats *a = v;
    strmap_free(a->latency, free_histogram);
    free(a);
}

static void free_tally(void *v)
{
    tally_free(v);
    free(v);
}

struct trace_stats *trace_stats_new(bool by_agent, unsigned long max_names)
{
    struct trace_stats *t = xcalloc(1, sizeof *t);
    t->by_agent = by_agent;
    t->max_names = max_names;
    tally_init(&t->kinds);
    tally_init(&t->anomalies);
    t->agents = strmap_new();
    t->conversations = strmap_new();
    t->latency = strmap_new();
    return t;
}

void trace_stats_free(struct trace_stats *t)
{
    if (!t)
        return;
    tally_free(&t->kinds);
    tally_free(&t->anomalies);
    strmap_free(t->agents, free_agent);
    strmap_free(t->conversations, free_tally);
    strmap_free(t->latency, free_histogram);
    sb_free(&t->pair);
    sb_free(&t->name);
    free(t);
}

/* The agent's record, or NULL past the cap (then counted with the others). */
static struct agent_stats *agent_of(struct trace_stats *t, const char *name)
{
    name = told_as(&t->name, name);
    struct agent_stats *a = strmap_get_recent(t->agents, name);
    if (!a && strmap_size(t->agents) < t->max_names) {
        a = xcalloc(1, sizeof *a);
        a->latency = strmap_new();
        strmap_put(t->agents, name, a);
    }
    return a;
}

void trace_stats_message(struct trace_stats *t, const char *kind, const char *sender)
{
    t->messages++;
    tally_add(&t->kinds, told_as(&t->name, kind), 1, t->max_names);
    struct agent_stats *a = agent_of(t, sender ? sender : "");
    if (a)
        a->messages++;
    else
        t->other_agents++;
}

static struct tally *outcomes_of(struct trace_stats *t, const char *protocol)
{
    struct tally *o = strmap_get_recent(t->conversations, protocol);
    if (!o) {
        o = xmalloc(sizeof *o);
        tally_init(o);
        strmap_put(t->conversations, protocol, o);
    }
    return o;
}

/* "request->reply", or "request[subject]->reply" for what a request named. */
static const char *pair_name(struct trace_stats *t, const char *request, const char *subject,
                             const char *reply)
{
    sb_reset(&t->pair); /* without printf's machinery: a pair is made for every conversation */
    sb_adds(&t->pair, request);
    if (subject) {
        sb_addc(&t->pair, '[');
        sb_adds(&t->pair, subject);
        sb_addc(&t->pair, ']');
    }
    sb_adds(&t->pair, "->");
    sb_adds(&t->pair, reply);
    return t->pair.buf;
}

/* A latency of pair, kept while the pairs are TRACE_STATS_PAIRS_MAX at most (an MCP method is
 * any name the input gives): what the statistics hold stays bounded. */
static void add_latency(struct strmap *latency, const char *pair, double seconds)
{
    struct histogram *h = histogram_of(latency, pair);
    if (h)
        histogram_add(h, seconds);
}

void trace_stats_conversation(struct trace_stats *t, const struct conversation_summary *s,
                              const char *outcome)
{
    tally_add(outcomes_of(t, s->protocol), outcome, 1, SIZE_MAX);
    for (size_t i = 0; i < s->nlatency; i++) {
        const struct latency *l = &s->latency[i];
        if (!l->reply || l->repeats || !isfinite(l->seconds))
            continue;
        const char *pair = pair_name(t, l->request, NULL, l->reply);
        add_latency(t->latency, pair, l->seconds);
        struct agent_stats *a = t->by_agent && l->agent ? agent_of(t, l->agent) : NULL;
        if (a)
            add_latency(a->latency, pair, l->seconds);
        if (s->subject) /* and of what the request named: a tool, a prompt */
            add_latency(t->latency, pair_name(t, l->request, s->subject, l->reply), l->seconds);
    }
}

void trace_stats_finding(struct trace_stats *t, const char *code)
{
    tally_add(&t->anomalies, code, 1, SIZE_MAX);
}

/* ---- JSON ---- */

static void write_key(struct jsonout *w, const char *name)
{
    jsonout_key(w, name);
}

static void write_count(struct jsonout *w, unsigned long long n)
{
    jsonout_integer(w, (json_int_t)n);
}

static void write_tally(struct jsonout *w, const struct tally *t)
{
    struct strmap_entries e = strmap_sorted(t->map);
    jsonout_begin_object(w);
    for (size_t i = 0; i < e.n; i++) {
        write_key(w, e.v[i].key);
        write_count(w, *(unsigned long long *)e.v[i].value);
    }
    jsonout_end_object(w);
    free(e.v);
}

/* Percentiles people read: p50, p90, p99 and the exact extremes. */
static void write_percentiles(struct jsonout *w, struct strmap *latency)
{
    struct strmap_entries e = strmap_sorted(latency);
    jsonout_begin_object(w);
    for (size_t i = 0; i < e.n; i++) {
        const struct histogram *h = e.v[i].value;
        write_key(w, e.v[i].key);
        jsonout_begin_object(w);
        write_key(w, "count");
        write_count(w, h->count);
        write_key(w, "min");
        jsonout_number(w, h->min);
        write_key(w, "p50");
        jsonout_number(w, histogram_quantile(h, 0.5));
        write_key(w, "p90");
        jsonout_number(w, histogram_quantile(h, 0.9));
        write_key(w, "p99");
        jsonout_number(w, histogram_quantile(h, 0.99));
        write_key(w, "max");
        jsonout_number(w, h->max);
        jsonout_end_object(w);
    }
    jsonout_end_object(w);
    free(e.v);
}

static void write_histograms(struct jsonout *w, struct strmap *latency)
{
    struct strmap_entries e = strmap_sorted(latency);
    jsonout_begin_object(w);
    for (size_t i = 0; i < e.n; i++) {
        write_key(w, e.v[i].key);
        histogram_write(e.v[i].value, w);
    }
    jsonout_end_object(w);
    free(e.v);
}

static void write_by_agent(struct jsonout *w, const struct trace_stats *t)
{
    struct strmap_entries e = strmap_sorted(t->agents);
    jsonout_begin_object(w);
    for (size_t i = 0; i < e.n; i++) {
        const struct agent_stats *a = e.v[i].value;
        if (strmap_size(a->latency) == 0)
            continue; /* it replied to nothing */
        write_key(w, e.v[i].key);
        jsonout_begin_object(w);
        write_key(w, "latency");
        write_percentiles(w, a->latency);
        write_key(w, "histograms");
        write_histograms(w, a->latency);
        jsonout_end_object(w);
    }
    jsonout_end_object(w);
    free(e.v);
}

void trace_stats_write(const struct trace_stats *t, struct strbuf *out)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_TERMINAL);
    jsonout_begin_object(&w);
    write_key(&w, "type");
    jsonout_string(&w, "trace-stats", 11);
    write_key(&w, "version");
    jsonout_integer(&w, TRACE_STATS_VERSION);
    write_key(&w, "messages");
    write_count(&w, t->messages);
    write_key(&w, "kinds");
    write_tally(&w, &t->kinds);
    write_key(&w, "other_kinds");
    write_count(&w, t->kinds.other);
    struct strmap_entries e = strmap_sorted(t->agents);
    write_key(&w, "agents");
    jsonout_begin_object(&w);
    for (size_t i = 0; i < e.n; i++) {
        write_key(&w, e.v[i].key);
        write_count(&w, ((const struct agent_stats *)e.v[i].value)->messages);
    }
    jsonout_end_object(&w);
    free(e.v);
    write_key(&w, "other_agents");
    write_count(&w, t->other_agents);
    e = strmap_sorted(t->conversations);
    write_key(&w, "conversations");
    jsonout_begin_object(&w);
    for (size_t i = 0; i < e.n; i++) {
        write_key(&w, e.v[i].key);
        write_tally(&w, e.v[i].value);
    }
    jsonout_end_object(&w);
    free(e.v);
    write_key(&w, "anomalies");
    write_tally(&w, &t->anomalies);
    write_key(&w, "latency");
    write_percentiles(&w, t->latency);
    write_key(&w, "histograms");
    jsonout_begin_object(&w);
    write_key(&w, "scheme");
    jsonout_string(&w, HISTOGRAM_SCHEME, strlen(HISTOGRAM_SCHEME));
    write_key(&w, "base");
    jsonout_number(&w, HISTOGRAM_BASE);
    write_key(&w, "zero");
    jsonout_number(&w, HISTOGRAM_ZERO);
    write_key(&w, "version");
    jsonout_integer(&w, HISTOGRAM_VERSION);
    write_key(&w, "latency");
    write_histograms(&w, t->latency);
    jsonout_end_object(&w);
    if (t->by_agent) {
        write_key(&w, "by_agent");
        write_by_agent(&w, t);
    }
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}

/* ---- merging ---- */

static bool read_count(const json_t *v, unsigned long long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (unsigned long long)json_integer_value(v);
    return true;
}

static bool read_tally(struct tally *t, const json_t *v, size_t max)
{
    if (!json_is_object(v))
        return false;
    const char *name;
    const json_t *n;
    json_object_foreach((json_t *)v, name, n)
    {
        unsigned long long count;
        if (!read_count(n, &count))
            return false;
        tally_add(t, name, count, max);
    }
    return true;
}

/* The histogram of a pair a merge reads, or NULL past TRACE_STATS_PAIRS_MAX pairs (counted). */
static struct histogram *merged_histogram(struct trace_stats *t, struct strmap *map,
                                          const char *pair)
{
    struct histogram *h = histogram_of(map, pair);
    if (!h)
        t->pairs_left_out++;
    return h;
}

static bool read_histograms(struct trace_stats *t, struct strmap *latency, const json_t *v)
{
    if (!json_is_object(v))
        return false;
    const char *pair;
    const json_t *h;
    json_object_foreach((json_t *)v, pair, h)
    {
        struct histogram *kept = merged_histogram(t, latency, pair);
        if (kept && !histogram_read(kept, h))
            return false;
    }
    return true;
}

static bool same_scheme(const json_t *h)
{
    const char *scheme = json_string_value(json_object_get(h, "scheme"));
    const json_t *base = json_object_get(h, "base"), *zero = json_object_get(h, "zero");
    return scheme && strcmp(scheme, HISTOGRAM_SCHEME) == 0 && json_is_number(base) &&
           json_number_value(base) == HISTOGRAM_BASE && json_is_number(zero) &&
           json_number_value(zero) == HISTOGRAM_ZERO &&
           json_integer_value(json_object_get(h, "version")) == HISTOGRAM_VERSION;
}

static bool read_agents(struct trace_stats *t, const json_t *messages, const json_t *by_agent)
{
    if (!json_is_object(messages))
        return false;
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)messages, name, v)
    {
        unsigned long long count;
        if (!read_count(v, &count))
            return false;
        struct agent_stats *a = agent_of(t, name);
        if (a)
            a->messages += count;
        else
            t->other_agents += count;
    }
    if (!t->by_agent)
        return true;
    if (!json_is_object(by_agent))
        return false;
    json_object_foreach((json_t *)by_agent, name, v)
    {
        struct agent_stats *a = agent_of(t, name);
        if (!a || !read_histograms(t, a->latency, json_object_get(v, "histograms")))
            return false;
    }
    return true;
}

/* Reads obj into a fresh t. */
static bool read_stats(struct trace_stats *t, const json_t *obj, const char **why)
{
    const char *type = json_string_value(json_object_get(obj, "type"));
    const json_t *histograms = json_object_get(obj, "histograms");
    const json_t *conversations = json_object_get(obj, "conversations");
    if (!type || strcmp(type, "trace-stats") != 0) {
        *why = "not a trace-stats object";
        return false;
    }
    if (json_integer_value(json_object_get(obj, "version")) != TRACE_STATS_VERSION ||
        !same_scheme(histograms)) {
        *why = "trace-stats of another version or histogram scheme";
        return false;
    }
    if (t->by_agent && !json_object_get(obj, "by_agent")) {
        *why = "no statistics by agent (written without --by-agent)";
        return false;
    }
    *why = "trace-stats with a member missing or of the wrong type";
    if (!read_count(json_object_get(obj, "messages"), &t->messages) ||
        !read_tally(&t->kinds, json_object_get(obj, "kinds"), SIZE_MAX) ||
        !read_count(json_object_get(obj, "other_kinds"), &t->kinds.other) ||
        !read_count(json_object_get(obj, "other_agents"), &t->other_agents) ||
        !read_agents(t, json_object_get(obj, "agents"), json_object_get(obj, "by_agent")) ||
        !read_tally(&t->anomalies, json_object_get(obj, "anomalies"), SIZE_MAX) ||
        !read_histograms(t, t->latency, json_object_get(histograms, "latency")) ||
        !json_is_object(conversations))
        return false;
    const char *protocol;
    const json_t *outcomes;
    json_object_foreach((json_t *)conversations, protocol, outcomes)
    {
        if (!read_tally(outcomes_of(t, protocol), outcomes, SIZE_MAX))
            return false;
    }
    return true;
}

static void add_tally(struct tally *into, const struct tally *from, size_t max)
{
    struct strmap_entries e = strmap_sorted(from->map);
    for (size_t i = 0; i < e.n; i++)
        tally_add(into, e.v[i].key, *(unsigned long long *)e.v[i].value, max);
    into->other += from->other;
    free(e.v);
}

static void add_histograms(struct trace_stats *t, struct strmap *into, struct strmap *from)
{
    struct strmap_entries e = strmap_sorted(from);
    for (size_t i = 0; i < e.n; i++) {
        struct histogram *kept = merged_histogram(t, into, e.v[i].key);
        if (kept)
            histogram_merge(kept, e.v[i].value);
    }
    free(e.v);
}

static void add_stats(struct trace_stats *t, const struct trace_stats *part)
{
    t->messages += part->messages;
    add_tally(&t->kinds, &part->kinds, t->max_names);
    add_tally(&t->anomalies, &part->anomalies, SIZE_MAX);
    add_histograms(t, t->latency, part->latency);
    t->pairs_left_out += part->pairs_left_out;
    t->other_agents += part->other_agents;
    struct strmap_entries e = strmap_sorted(part->agents);
    for (size_t i = 0; i < e.n; i++) {
        const struct agent_stats *from = e.v[i].value;
        struct agent_stats *a = agent_of(t, e.v[i].key);
        if (!a) {
            t->other_agents += from->messages;
            continue;
        }
        a->messages += from->messages;
        add_histograms(t, a->latency, from->latency);
    }
    free(e.v);
    e = strmap_sorted(part->conversations);
    for (size_t i = 0; i < e.n; i++)
        add_tally(outcomes_of(t, e.v[i].key), e.v[i].value, SIZE_MAX);
    free(e.v);
}

bool trace_stats_merge(struct trace_stats *t, const json_t *obj, const char **why)
{
    struct trace_stats *part = trace_stats_new(t->by_agent, SIZE_MAX);
    bool ok = read_stats(part, obj, why);
    if (ok)
        add_stats(t, part);
    trace_stats_free(part);
    return ok;
}

unsigned long long trace_stats_pairs_left_out(const struct trace_stats *t)
{
    return t->pairs_left_out;
}

/* ---- the report ---- */

enum { NAME_WIDTH = 32, BAR_WIDTH = 40, HISTOGRAM_ROWS = 8 };

/* A row's name, an input name escaped, indented by two and padded to NAME_WIDTH (counted in
 * bytes of the escaped text); a longer one has its line, and the row's figures the next, in
 * their columns. */
static void put_name(struct strbuf *out, const char *name)
{
    sb_adds(out, "  ");
    size_t before = out->len;
    escape_text(out, name, strlen(name), 60);
    size_t n = out->len - before + 2;
    if (n > NAME_WIDTH) {
        sb_addc(out, '\n');
        n = 0;
    }
    for (; n < NAME_WIDTH; n++)
        sb_addc(out, ' ');
}

static void put_seconds(struct strbuf *out, double v)
{
    if (isnan(v))
        sb_addf(out, " %9s", "-");
    else if (v != 0 && (fabs(v) < 0.001 || fabs(v) >= 1e6))
        sb_addf(out, " %9.2e", v);
    else if (v == floor(v))
        sb_addf(out, " %9.0f", v); /* whole seconds are whole */
    else
        sb_addf(out, " %9.3f", v);
}

static void report_tally(struct strbuf *out, const char *title, const struct tally *t,
                         const char *other)
{
    struct strmap_entries e = strmap_sorted(t->map);
    sb_addf(out, "\n%-*s %9s\n", NAME_WIDTH, title, "count");
    for (size_t i = 0; i < e.n; i++) {
        put_name(out, e.v[i].key);
        sb_addf(out, " %9llu\n", *(unsigned long long *)e.v[i].value);
    }
    if (t->other)
        sb_addf(out, "  %-*s %9llu\n", NAME_WIDTH - 2, other, t->other);
    free(e.v);
}

/* Rows of a small histogram: values below zero, zero, then the positive buckets gathered into at
 * most HISTOGRAM_ROWS ranges, on a log scale when they span more than a decade. */
struct rows {
    double edge[HISTOGRAM_ROWS]; /* upper bounds of the positive rows */
    unsigned long long count[HISTOGRAM_ROWS];
    unsigned long long negative, zero;
    size_t n;
    double smallest; /* the least positive bucket's upper bound; 0 before any */
};

static void find_smallest(void *ctx, double low, double high, unsigned long long count)
{
    (void)low;
    (void)count;
    struct rows *r = ctx;
    if (high > 0 && r->smallest == 0)
        r->smallest = high;
}

static void gather(void *ctx, double low, double high, unsigned long long count)
{
    (void)low;
    struct rows *r = ctx;
    if (high < 0) {
        r->negative += count;
        return;
    }
    if (high == 0) {
        r->zero += count;
        return;
    }
    size_t i = 0;
    while (i + 1 < r->n && high > r->edge[i] * (1 + 1e-9))
        i++;
    r->count[i] += count;
}

static void report_row(struct strbuf *out, const char *bound, double value,
                       unsigned long long count, unsigned long long most)
{
    int bar = most ? (int)((count * BAR_WIDTH + most - 1) / most) : 0;
    sb_addf(out, "    %-2s", bound);
    put_seconds(out, value);
    sb_addf(out, " s  %-*.*s %llu\n", BAR_WIDTH, bar, "########################################",
            count);
}

static void report_histogram(struct strbuf *out, const struct histogram *h)
{
    struct rows r = {.n = HISTOGRAM_ROWS};
    histogram_each(h, find_smallest, &r);
    double lo = fmax(r.smallest, h->min > 0 ? h->min : 0), hi = h->max;
    if (r.smallest == 0 || !(hi > lo))
        r.n = 1;
    bool log_scale = lo > 0 && hi / lo > 10;
    for (size_t i = 0; i < r.n; i++) {
        double f = (double)(i + 1) / (double)r.n;
        r.edge[i] = r.n == 1 ? hi : log_scale ? lo * pow(hi / lo, f) : lo + (hi - lo) * f;
    }
    histogram_each(h, gather, &r);
    unsigned long long most = r.negative > r.zero ? r.negative : r.zero;
    for (size_t i = 0; i < r.n; i++)
        if (r.count[i] > most)
            most = r.count[i];
    if (r.negative)
        report_row(out, "<", 0, r.negative, most);
    if (r.zero)
        report_row(out, "=", 0, r.zero, most);
    for (size_t i = 0; r.smallest > 0 && i < r.n; i++)
        report_row(out, "<=", r.edge[i], r.count[i], most);
}

static void report_latency(struct strbuf *out, const char *title, struct strmap *latency)
{
    struct strmap_entries e = strmap_sorted(latency);
    sb_addf(out, "\n%-*s %9s %9s %9s %9s %9s\n", NAME_WIDTH, title, "count", "p50", "p90", "p99",
            "max");
    for (size_t i = 0; i < e.n; i++) {
        const struct histogram *h = e.v[i].value;
        put_name(out, e.v[i].key);
        sb_addf(out, " %9llu", h->count);
        put_seconds(out, histogram_quantile(h, 0.5));
        put_seconds(out, histogram_quantile(h, 0.9));
        put_seconds(out, histogram_quantile(h, 0.99));
        put_seconds(out, h->max);
        sb_addc(out, '\n');
        report_histogram(out, h);
    }
    free(e.v);
}

void trace_stats_report(const struct trace_stats *t, struct strbuf *out)
{
    unsigned long long conversations = 0;
    struct strmap_entries e = strmap_sorted(t->conversations);
    for (size_t i = 0; i < e.n; i++) {
        struct strmap_entries o = strmap_sorted(((struct tally *)e.v[i].value)->map);
        for (size_t k = 0; k < o.n; k++)
            conversations += *(unsigned long long *)o.v[k].value;
        free(o.v);
    }
    sb_addf(out, "%llu message%s, %llu conversation%s\n", t->messages, t->messages == 1 ? "" : "s",
            conversations, conversations == 1 ? "" : "s");
    report_tally(out, "messages by kind", &t->kinds, "(other kinds)");
    struct strmap_entries a = strmap_sorted(t->agents);
    sb_addf(out, "\n%-*s %9s\n", NAME_WIDTH, "messages by agent", "count");
    for (size_t i = 0; i < a.n; i++) {
        put_name(out, a.v[i].key);
        sb_addf(out, " %9llu\n", ((const struct agent_stats *)a.v[i].value)->messages);
    }
    if (t->other_agents)
        sb_addf(out, "  %-*s %9llu\n", NAME_WIDTH - 2, "(other agents)", t->other_agents);
    sb_addf(out, "\n%-*s %9s\n", NAME_WIDTH, "conversations by outcome", "count");
    for (size_t i = 0; i < e.n; i++) {
        struct strmap_entries o = strmap_sorted(((struct tally *)e.v[i].value)->map);
        for (size_t k = 0; k < o.n; k++) {
            struct strbuf name = STRBUF_INIT;
            sb_addf(&name, "%s %s", e.v[i].key, o.v[k].key);
            put_name(out, name.buf);
            sb_free(&name);
            sb_addf(out, " %9llu\n", *(unsigned long long *)o.v[k].value);
        }
        free(o.v);
    }
    free(e.v);
    report_tally(out, "anomalies by code", &t->anomalies, "(other codes)");
    report_latency(out, "latency (seconds)", t->latency);
    for (size_t i = 0; t->by_agent && i < a.n; i++) {
        const struct agent_stats *as = a.v[i].value;
        if (strmap_size(as->latency) == 0)
            continue;
        struct strbuf title = STRBUF_INIT;
        sb_adds(&title, "latency of ");
        escape_text(&title, a.v[i].key, strlen(a.v[i].key), 40);
        report_latency(out, title.buf, as->latency);
        sb_free(&title);
    }
    free(a.v);
}

/* ---- outcomes ---- */

const char *trace_outcome(const struct conversation_summary *s)
{
    const char *o = s->outcome;
    if ((s->findings && s->findings->errors) || strcmp(o, "reused") == 0)
        return "violated";
    if (strcmp(o, "open") == 0)
        return "open";
    if (strcmp(o, "evicted") == 0 || strcmp(o, "expired") == 0)
        return "timeout";
    return s->cancelled ? "cancelled" : o;
}
