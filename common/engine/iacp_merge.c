/* IACP's half of acp-trace --merge: what spans partitions by forager (--partition). A reissue
 * sends a node to another forager, so the runs of one node fall in several partitions, and no
 * partition can tell a reissue, a late accept or a duplicate execution; a reply from a forager
 * an assign did not go to is in that forager's partition, away from its assign. Each
 * partition's summary of an assign carries its span (iacp_stream.c: its node, the queen's ts,
 * the message times of its assign, first accept, leaving its node's runs and ending), and a
 * reply whose ref the partition could not find comes as a span of its own. Here the spans of
 * every partition are put in one order, by message time, then line, then input; each node's
 * chain is followed as the stream checks follow it in one process, and each reply finds the
 * assign it names, saying what they say (iacp_spans.c). Memory: a few names and numbers an
 * assign. */
#include "engine/iacp_spans.h"
#include "engine/stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "diag/findings.h"
#include "proto/message.h"

/* A message a span names. */
struct moment {
    double at;
    const char *file, *id;
    unsigned long line; /* 0: none */
};

/* An assign of a node, as its partition's summary told it, and what following its node's chain
 * here made of it. */
struct run {
    const char *conversation; /* its summary's: the key a reply names it by */
    const char *node;         /* NULL: none, no chain */
    const char *id, *forager;
    double sent;                  /* the queen's ts of the assign */
    struct moment assign;         /* its summary's file and first line, its id */
    struct moment accept;         /* the first task.accept */
    struct moment left;           /* where it stopped being a run of its node */
    bool left_by_result;          /* a final task.result did */
    struct moment ended;          /* the message that ended it */
    const char *ending;           /* "result", "reject", "evicted"; NULL: open at the end */
    size_t input;                 /* which of the files read it came in */
    unsigned long ordinal;        /* its summary among the records read */
    size_t chain;                 /* its node's, in iacp_merge.chains */
    bool chained;                 /* a run of its node now */
    const struct run *done;       /* the run of its node that finished while it was one */
    const struct moment *reissue; /* the assign that reissued it, if any */
    const struct run *first;      /* the run that finished first, when it ran twice */
    struct findings *findings;    /* what the merge blamed on it */
};

struct chain {
    struct run **v; /* the runs of a node now, in the order of their assigns */
    size_t n, cap;
};

enum event_kind { EVENT_ASSIGN, EVENT_ACCEPT, EVENT_LEFT, EVENT_REPLY };

/* A reply whose partition had no message with the id its ref names. */
struct reply {
    const char *kind, *from, *ref, *owner;
    struct moment at;
    size_t input;
};

struct event {
    struct run *run;     /* NULL for a reply's */
    struct reply *reply; /* a reply's, else NULL */
    const struct moment *when;
    size_t input;
    enum event_kind kind;
};

struct span_merge {
    const struct engine_config *cfg;
    struct arena names;
    struct run **runs; /* in the order read: by ordinal */
    size_t n, cap;
    struct run **named; /* the runs by conversation, then by the order of their assigns */
    struct reply *replies;
    size_t nreplies, replies_cap;
    struct strbuf key;
    struct chain *chains; /* a node each */
    size_t nchains;
    struct run *blamed; /* the run the finding being reported goes to */
};

static struct span_merge *iacp_merge_open(const struct engine_config *cfg)
{
    struct span_merge *m = xcalloc(1, sizeof *m);
    m->cfg = cfg;
    return m;
}

/* ---- reading a span ---- */

static const char *kept(struct span_merge *m, const json_t *v)
{
    const char *s = json_string_value(v);
    if (!s)
        return NULL;
    size_t len = json_string_length(v);
    char *copy = arena_alloc(&m->names, len + 1);
    memcpy(copy, s, len + 1);
    return copy;
}

static bool read_number(const json_t *obj, const char *key, double *out)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return true;
}

/* A moment of a span: null, or {at, file, line, id}. */
static bool read_moment(struct span_merge *m, const json_t *v, struct moment *out)
{
    *out = (struct moment){.at = NAN};
    if (json_is_null(v))
        return true;
    const json_t *line = json_object_get(v, "line");
    if (!read_number(v, "at", &out->at) || !json_is_integer(line) || json_integer_value(line) < 1 ||
        !(out->file = kept(m, json_object_get(v, "file"))))
        return false;
    out->line = (unsigned long)json_integer_value(line);
    out->id = kept(m, json_object_get(v, "id"));
    return true;
}

static bool read_assign(struct span_merge *m, const json_t *record, const json_t *span,
                        struct run *r)
{
    const json_t *line = json_object_get(record, "first_line");
    const json_t *node = json_object_get(span, "node");
    r->node = kept(m, node);
    r->conversation = kept(m, json_object_get(record, "conversation"));
    r->id = kept(m, json_object_get(span, "id"));
    r->forager = kept(m, json_object_get(span, "forager"));
    r->assign.file = kept(m, json_object_get(record, "file"));
    if ((!r->node && !json_is_null(node)) || !r->conversation || !r->id || !r->forager ||
        !r->assign.file || !json_is_integer(line) || json_integer_value(line) < 1 ||
        !read_number(span, "sent", &r->sent) || !read_number(span, "at", &r->assign.at))
        return false;
    r->assign.line = (unsigned long)json_integer_value(line);
    r->assign.id = r->id;
    return true;
}

/* A span of its own: {"kind", "from", "ref", "owner", "reply": {...}}. */
static int collect_reply(struct span_merge *m, const json_t *span, size_t input, const char **why)
{
    struct reply r = {.input = input};
    r.kind = kept(m, json_object_get(span, "kind"));
    r.from = kept(m, json_object_get(span, "from"));
    r.ref = kept(m, json_object_get(span, "ref"));
    r.owner = kept(m, json_object_get(span, "owner"));
    if (!r.kind || !r.from || !r.ref || !r.owner ||
        !read_moment(m, json_object_get(span, "reply"), &r.at) || !r.at.line) {
        *why = "its span is not an IACP reply's";
        return -1;
    }
    if (m->nreplies == m->replies_cap) {
        m->replies_cap = m->replies_cap ? 2 * m->replies_cap : 64;
        m->replies = xrealloc(m->replies, m->replies_cap * sizeof *m->replies);
    }
    m->replies[m->nreplies++] = r;
    return 1;
}

static int iacp_merge_collect(struct span_merge *m, const json_t *record, size_t input,
                              unsigned long ordinal, const char **why)
{
    const json_t *span = json_object_get(record, "span");
    const char *type = json_string_value(json_object_get(record, "type"));
    const char *protocol = json_string_value(json_object_get(record, "protocol"));
    if (type && strcmp(type, "span") == 0 && json_object_get(span, "reply"))
        return collect_reply(m, span, input, why);
    if (!protocol || strcmp(protocol, "iacp-task") != 0)
        return 0;
    struct run r = {.input = input, .ordinal = ordinal};
    const char *how = json_string_value(json_object_get(span, "how"));
    if (!read_assign(m, record, span, &r) ||
        !read_moment(m, json_object_get(span, "accept"), &r.accept) ||
        !read_moment(m, json_object_get(span, "left"), &r.left) ||
        !read_moment(m, json_object_get(span, "ended"), &r.ended)) {
        *why = "its span is not an IACP run's";
        return -1;
    }
    r.ending = kept(m, json_object_get(span, "ending"));
    r.left_by_result = how && strcmp(how, "result") == 0;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->runs = xrealloc(m->runs, m->cap * sizeof *m->runs);
    }
    m->runs[m->n] = arena_alloc(&m->names, sizeof r);
    *m->runs[m->n++] = r;
    return 1;
}

/* ---- one order over the partitions ---- */

/* The one order over the partitions: message time, then line, then input. */
static int moment_order(const struct moment *x, size_t x_input, const struct moment *y,
                        size_t y_input)
{
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x_input != y_input)
        return x_input < y_input ? -1 : 1;
    return 0;
}

static int by_node(const void *a, const void *b)
{
    const struct run *x = *(struct run *const *)a, *y = *(struct run *const *)b;
    return strcmp(x->node, y->node);
}

/* Numbers the nodes: a run's chain is its node's. */
static void number_chains(struct span_merge *m)
{
    struct run **sorted = xmalloc((m->n ? m->n : 1) * sizeof *sorted);
    size_t n = 0, chains = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->runs[i]->node)
            sorted[n++] = m->runs[i];
    qsort(sorted, n, sizeof *sorted, by_node);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(sorted[i]->node, sorted[i - 1]->node) != 0)
            chains++;
        sorted[i]->chain = chains;
    }
    free(sorted);
    m->nchains = n ? chains + 1 : 0;
    m->chains = xcalloc(m->nchains + 1, sizeof *m->chains);
}

static int by_conversation(const void *a, const void *b)
{
    const struct run *x = *(struct run *const *)a, *y = *(struct run *const *)b;
    int c = strcmp(x->conversation, y->conversation);
    return c ? c : moment_order(&x->assign, x->input, &y->assign, y->input);
}

static int by_time(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    int c = moment_order(x->when, x->input, y->when, y->input);
    return c ? c : (int)x->kind - (int)y->kind;
}

static size_t list_events(const struct span_merge *m, struct event *ev)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct run *r = m->runs[i];
        if (!r->node)
            continue;
        ev[n++] = (struct event){r, NULL, &r->assign, r->input, EVENT_ASSIGN};
        if (r->accept.line)
            ev[n++] = (struct event){r, NULL, &r->accept, r->input, EVENT_ACCEPT};
        if (r->left.line)
            ev[n++] = (struct event){r, NULL, &r->left, r->input, EVENT_LEFT};
    }
    for (size_t i = 0; i < m->nreplies; i++) {
        struct reply *r = &m->replies[i];
        ev[n++] = (struct event){NULL, r, &r->at, r->input, EVENT_REPLY};
    }
    return n;
}

/* ---- following each node's chain ---- */

static struct diag_where where_of(const struct moment *at, const struct moment *related)
{
    return (struct diag_where){
        .file = at->file,
        .line = at->line,
        .id = at->id,
        .related_file = strcmp(related->file, at->file) != 0 ? related->file : NULL,
        .related_line = related->line,
    };
}

static void join(struct span_merge *m, struct run *r, struct diag_sink *sink)
{
    struct chain *c = &m->chains[r->chain];
    struct run *prev = c->n ? c->v[c->n - 1] : NULL;
    if (prev) {
        struct diag_where w = where_of(&r->assign, &prev->assign);
        const struct iacp_reassign again = {
            .node = r->node,
            .forager = r->forager,
            .prev_id = prev->id,
            .prev_forager = prev->forager,
            .waited = r->sent - prev->sent,
            .timeout = m->cfg->assign_timeout,
        };
        m->blamed = r;
        iacp_report_reassign(sink, &w, &again);
        if (strcmp(prev->forager, r->forager) != 0)
            prev->reissue = &r->assign;
        r->done = prev->done;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 2;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = r;
    r->chained = true;
}

static void leave(struct span_merge *m, struct run *r)
{
    struct chain *c = &m->chains[r->chain];
    size_t i = 0;
    while (i < c->n && c->v[i] != r)
        i++;
    if (i == c->n)
        return;
    memmove(c->v + i, c->v + i + 1, (c->n - i - 1) * sizeof *c->v);
    c->n--;
    r->chained = false;
}

static void finish(struct span_merge *m, struct run *r, struct diag_sink *sink)
{
    if (!r->chained)
        return;
    if (r->left_by_result && r->done) {
        struct diag_where w = where_of(&r->left, &r->done->assign);
        const struct iacp_twice twice = {
            .node = r->node,
            .id = r->id,
            .forager = r->forager,
            .line = r->assign.line,
            .done_id = r->done->id,
            .done_line = r->done->assign.line,
        };
        m->blamed = r;
        iacp_report_twice(sink, &w, &twice);
        r->first = r->done;
    } else if (r->left_by_result) {
        const struct chain *c = &m->chains[r->chain];
        for (size_t i = 0; i < c->n; i++)
            if (c->v[i] != r && !c->v[i]->done)
                c->v[i]->done = r;
    }
    leave(m, r);
}

/* The latest assign of the conversation a reply names that came before it, or NULL. */
static struct run *named_by(struct span_merge *m, const struct reply *reply)
{
    const char *key = message_conversation_id(&m->key, reply->owner, reply->ref);
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(m->named[mid]->conversation, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct run *latest = NULL;
    for (; lo < m->n && strcmp(m->named[lo]->conversation, key) == 0; lo++)
        if (moment_order(&m->named[lo]->assign, m->named[lo]->input, &reply->at, reply->input) < 0)
            latest = m->named[lo];
    return latest;
}

/* A reply that names another partition's assign, as one process follows it (follow_reply):
 * from the wrong agent while it is open, a reply to one that ended, or no assign at all. A
 * tool.reply naming an assign (iacp-ref-kind) is not told here. */
static void follow_reply(struct span_merge *m, const struct reply *reply, struct diag_sink *sink)
{
    struct run *r = named_by(m, reply);
    if (!r) {
        m->blamed = NULL;
        const struct diag_where w = {
            .file = reply->at.file, .line = reply->at.line, .id = reply->at.id};
        iacp_report_orphan(sink, &w, reply->kind, reply->ref, reply->owner);
        return;
    }
    if (strcmp(reply->kind, "task.cancel") == 0 || strcmp(reply->kind, "tool.reply") == 0)
        return;
    if (r->ending && moment_order(&r->ended, r->input, &reply->at, reply->input) < 0) {
        if (strcmp(r->ending, "evicted") == 0)
            return;
        struct diag_where w = where_of(&reply->at, &r->ended);
        /* one process keeps a conversation that ended for --linger, and blames it */
        m->blamed = reply->at.at - r->ended.at <= m->cfg->linger ? r : NULL;
        iacp_report_after_end(sink, &w, reply->kind, r->id, strcmp(r->ending, "reject") == 0, true);
        return;
    }
    if (strcmp(reply->from, r->forager) != 0) {
        struct diag_where w = where_of(&reply->at, &r->assign);
        m->blamed = r;
        iacp_report_wrong_replier(sink, &w, reply->kind, reply->from, r->id, r->forager);
    }
}

static void follow(struct span_merge *m, const struct event *e, struct diag_sink *sink)
{
    struct run *r = e->run;
    switch (e->kind) {
    case EVENT_REPLY:
        follow_reply(m, e->reply, sink);
        return;
    case EVENT_ASSIGN:
        join(m, r, sink);
        return;
    case EVENT_ACCEPT:
        if (r->reissue) {
            struct diag_where w = where_of(&r->accept, r->reissue);
            m->blamed = r;
            iacp_report_late_accept(sink, &w, r->forager, r->id);
        }
        return;
    case EVENT_LEFT:
        finish(m, r, sink);
        return;
    }
}

/* Keeps each finding for the run it is blamed on, for its summary. */
static void blame(void *ctx, const struct diag_finding *finding)
{
    struct span_merge *m = ctx;
    if (m->blamed)
        findings_add(&m->blamed->findings, finding);
}

static void iacp_merge_settle(struct span_merge *m, struct diag_sink *sink)
{
    number_chains(m);
    m->named = xmalloc((m->n ? m->n : 1) * sizeof *m->named);
    if (m->n) /* runs is NULL when there is none */
        memcpy(m->named, m->runs, m->n * sizeof *m->named);
    qsort(m->named, m->n, sizeof *m->named, by_conversation);
    struct event *ev = xmalloc((3 * m->n + m->nreplies + 1) * sizeof *ev);
    size_t n = list_events(m, ev);
    qsort(ev, n, sizeof *ev, by_time);
    struct diag_observer observer = {.notify = blame, .ctx = m};
    diag_observe(sink, &observer);
    for (size_t i = 0; i < n; i++)
        follow(m, &ev[i], sink);
    diag_unobserve(sink, &observer);
    m->blamed = NULL;
    free(ev);
}

/* ---- writing the summaries ---- */

static struct run *run_of(const struct span_merge *m, unsigned long ordinal)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->runs[mid]->ordinal < ordinal)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->runs[lo]->ordinal == ordinal ? m->runs[lo] : NULL;
}

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *line_or_null(unsigned long line)
{
    return line ? json_integer((json_int_t)line) : json_null();
}

static json_t *issue_of(const struct finding *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "code", json_string(x->code));
    json_object_set_new(o, "severity", json_string(x->severity == SEV_ERROR ? "error" : "warning"));
    json_object_set_new(o, "file", string_or_null(x->file));
    json_object_set_new(o, "line", line_or_null(x->line));
    json_object_set_new(o, "related_file", string_or_null(x->related_file));
    json_object_set_new(o, "related_line", line_or_null(x->related_line));
    json_object_set_new(o, "message", json_string(x->message));
    return o;
}

static json_t *pair(const char *a, const char *b)
{
    json_t *v = json_array();
    json_array_append_new(v, json_string(a));
    json_array_append_new(v, json_string(b));
    return v;
}

/* The run's findings among its summary's issues (no more than a conversation keeps), and a
 * second run of its node as one process tells it. */
static void add_issues(json_t *record, const struct run *r)
{
    json_t *issues = json_object_get(record, "issues");
    json_t *omitted = json_object_get(record, "issues_omitted");
    if (!json_is_array(issues) || !json_is_integer(omitted))
        return;
    for (size_t i = 0; r->findings && i < r->findings->n; i++) {
        if (json_array_size(issues) < FINDINGS_KEPT)
            json_array_append_new(issues, issue_of(&r->findings->v[i]));
        else
            json_integer_set(omitted, json_integer_value(omitted) + 1);
    }
    if (r->findings && r->findings->errors)
        json_object_set_new(record, "outcome", json_string("violated"));
    if (r->first) {
        json_t *d = json_object();
        json_object_set_new(d, "node", json_string(r->node));
        json_object_set_new(d, "assigns", pair(r->first->id, r->id));
        json_object_set_new(d, "foragers", pair(r->first->forager, r->forager));
        json_object_set_new(record, "duplicate", d);
    }
}

static void iacp_merge_patch(struct span_merge *m, json_t *record, unsigned long ordinal)
{
    const struct run *r = run_of(m, ordinal);
    if (r && (r->findings || r->first))
        add_issues(record, r);
}

static void iacp_merge_free(struct span_merge *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        findings_free(m->runs[i]->findings);
    for (size_t i = 0; i < m->nchains; i++)
        free(m->chains[i].v);
    free(m->chains);
    free(m->runs);
    free(m->named);
    free(m->replies);
    sb_free(&m->key);
    arena_free(&m->names);
    free(m);
}

const struct merge_ops iacp_merge_ops = {
    .open = iacp_merge_open,
    .collect = iacp_merge_collect,
    .settle = iacp_merge_settle,
    .patch = iacp_merge_patch,
    .free = iacp_merge_free,
};
