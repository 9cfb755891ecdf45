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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/keyform.h"
#include "base/util.h"
#include "diag/diag.h"
#include "diag/findings.h"

/* A message a span names. */
struct moment {
    double at;
    const char *file, *id;
    unsigned long line; /* 0: none */
};

/* An assign of a node, as its partition's summary told it, and what following its node's chain
 * here made of it. */
struct run {
    /* Names and keys in the form the partitions remember them by (keyform.h: a long one by its
     * first bytes and digest), in which they are compared; and the names as they are shown. */
    const char *key;  /* its initiator's name and its id: what a reply names */
    const char *node; /* NULL: none, no chain */
    const char *forager;
    const char *node_shown, *forager_shown;
    const char *id;                /* as one process quotes it */
    double sent;                   /* the queen's ts of the assign */
    struct moment assign;          /* its summary's file and first line, its id */
    struct moment accept;          /* the first task.accept */
    struct moment left;            /* where it stopped being a run of its node */
    bool left_by_result;           /* a final task.result did */
    struct moment ended;           /* the message that ended it */
    const char *ending;            /* "result", "reject", "evicted"; NULL: open at the end */
    size_t input;                  /* which of the files read it came in */
    unsigned long ordinal;         /* its summary among the records read */
    size_t chain;                  /* its node's, in iacp_merge.chains */
    bool chained;                  /* a run of its node now */
    const struct run *done;        /* the run of its node that finished while it was one */
    const struct moment *reissue;  /* the assign that reissued it, if any */
    const struct run *first;       /* the run that finished first, when it ran twice */
    struct findings *findings;     /* what the merge blamed on it */
    bool queens;                   /* the queen assigned it: its id is one of hers */
    size_t assign_seq;             /* its assign's place in the one order (order_events) */
    const struct moment *id_first; /* the queen's message that had its id first, if another */
};

struct chain {
    struct run **v; /* the runs of a node now, in the order of their assigns */
    size_t n, cap;
};

static const size_t NO_CHAIN = SIZE_MAX; /* an event that follows no chain */

enum event_kind { EVENT_ASSIGN, EVENT_ACCEPT, EVENT_LEFT, EVENT_REPLY, EVENT_SENT };

/* A message of the queen's that opened no assign, or took an id she had used. */
struct sent {
    const char *key; /* the queen's name and the id, as remembered */
    struct moment at;
    size_t input;
    size_t seq;                 /* its place in the one order (order_events) */
    const struct moment *first; /* the message that had its id first, if another */
};

/* One of the queen's ids, where it was sent: to find those she sent twice. */
struct queen_id {
    const char *key;
    const struct moment *at;
    size_t seq;
    const struct moment **first; /* where to say the message that had it first */
};

/* A reply whose partition had no message with the id its ref names. */
struct reply {
    const char *kind;
    const char *from, *from_shown; /* its sender's form and name */
    const char *key;               /* the key of the conversation its ref names */
    const char *ref, *owner;       /* as one process quotes them */
    struct moment at;
    size_t input;
};

struct event {
    struct run *run;     /* NULL for a reply's */
    size_t chain;        /* its node's chain; NO_CHAIN for what follows none */
    struct reply *reply; /* a reply's, else NULL */
    struct sent *sent;   /* a message of the queen's, else NULL */
    const struct moment *when;
    size_t input;
    enum event_kind kind;
};

struct span_merge {
    const struct engine_config *cfg;
    struct arena names;
    struct run **runs; /* in the order read: by ordinal */
    size_t n, cap;
    struct run **named;        /* the runs by key, then by the order of their assigns */
    const char *print;         /* the print of the secret the first long form was made under */
    struct moment other_print; /* the first span of another, if any */
    struct reply *replies;
    size_t nreplies, replies_cap;
    struct sent *sents;
    size_t nsents, sents_cap;

    const char *last_file; /* the file named last */
    struct chain *chains;  /* a node each */
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

static const char *kept_text(struct span_merge *m, const char *s, size_t len)
{
    char *copy = arena_alloc(&m->names, len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static const char *kept(struct span_merge *m, const json_t *v)
{
    const char *s = json_string_value(v);
    return s ? kept_text(m, s, json_string_length(v)) : NULL;
}

/* A file's name: the same few for every message, kept once. */
static const char *kept_file(struct span_merge *m, const json_t *v)
{
    const char *s = json_string_value(v);
    if (s && m->last_file && strcmp(s, m->last_file) == 0)
        return m->last_file;
    return s ? m->last_file = kept(m, v) : NULL;
}

/* A name as it is shown, of its form: a long one's first bytes, before '#' and 32 hex digits. */
static const char *kept_shown(struct span_merge *m, const char *form)
{
    size_t len = strlen(form);
    if (len <= KEY_SHOWN_BYTES)
        return form;
    size_t shown = len - KEY_DIGEST_FORM_LEN;
    char *copy = arena_alloc(&m->names, shown + 1);
    memcpy(copy, form, shown);
    copy[shown] = '\0';
    return copy;
}

/* The print of the secret a span's long forms were made under, if it has one; the first span
 * whose print is another than the first's. */
static void note_print(struct span_merge *m, const json_t *span, const struct diag_where *at)
{
    const char *print = json_string_value(json_object_get(span, "digests"));
    if (!print)
        return;
    if (!m->print) {
        m->print = kept(m, json_object_get(span, "digests"));
    } else if (strcmp(print, m->print) != 0 && !m->other_print.line) {
        m->other_print.file = at->file ? kept_text(m, at->file, strlen(at->file)) : "";
        m->other_print.line = at->line;
    }
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
        !(out->file = kept_file(m, json_object_get(v, "file"))))
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
    r->node_shown = r->node ? kept_shown(m, r->node) : NULL;
    r->key = kept(m, json_object_get(span, "key"));
    r->id = kept(m, json_object_get(span, "id"));
    r->forager = kept(m, json_object_get(span, "forager"));
    r->forager_shown = r->forager ? kept_shown(m, r->forager) : NULL;
    r->assign.file = kept_file(m, json_object_get(record, "file"));
    if ((!r->node && !json_is_null(node)) || !r->key || !r->id || !r->forager || !r->assign.file ||
        !json_is_integer(line) || json_integer_value(line) < 1 ||
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
    r.from_shown = r.from ? kept_shown(m, r.from) : NULL;
    r.key = kept(m, json_object_get(span, "key"));
    r.ref = kept(m, json_object_get(span, "ref"));
    r.owner = kept(m, json_object_get(span, "owner"));
    if (!r.kind || !r.from || !r.key || !r.ref || !r.owner ||
        !read_moment(m, json_object_get(span, "reply"), &r.at) || !r.at.line) {
        *why = "its span is not an IACP reply's";
        return -1;
    }
    m->replies = xgrow(m->replies, &m->replies_cap, m->nreplies + 1, sizeof *m->replies);
    m->replies[m->nreplies++] = r;
    return 1;
}

/* A span of its own: {"from", "sent": {...}}. */
static int collect_sent(struct span_merge *m, const json_t *span, size_t input, const char **why)
{
    struct sent e = {.input = input};
    e.key = kept(m, json_object_get(span, "key"));
    if (!e.key || !read_moment(m, json_object_get(span, "sent"), &e.at) || !e.at.line || !e.at.id) {
        *why = "its span is not an IACP message's";
        return -1;
    }
    m->sents = xgrow(m->sents, &m->sents_cap, m->nsents + 1, sizeof *m->sents);
    m->sents[m->nsents++] = e;
    return 1;
}

static int iacp_merge_collect(struct span_merge *m, const json_t *record, size_t input,
                              unsigned long ordinal, const struct diag_where *at, const char **why)
{
    const json_t *span = json_object_get(record, "span");
    const char *type = json_string_value(json_object_get(record, "type"));
    const char *protocol = json_string_value(json_object_get(record, "protocol"));
    note_print(m, span, at);
    if (type && strcmp(type, "span") == 0 && json_object_get(span, "reply"))
        return collect_reply(m, span, input, why);
    if (type && strcmp(type, "span") == 0 && json_object_get(span, "sent"))
        return collect_sent(m, span, input, why);
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
    const char *initiator = json_string_value(json_object_get(record, "initiator"));
    r.queens = initiator && strcmp(initiator, m->cfg->queen) == 0;
    r.left_by_result = how && strcmp(how, "result") == 0;
    m->runs = xgrow(m->runs, &m->cap, m->n + 1, sizeof *m->runs);
    m->runs[m->n] = arena_alloc(&m->names, sizeof r);
    *m->runs[m->n++] = r;
    return 1;
}

/* ---- one order over the partitions ---- */

/* Whether the lines of two messages count in one stream: those of one input, and those of one
 * file on disk that the partitions all read (a capture split by --partition). A bus's partitions
 * come on standard input, each its own stream. */
static bool lines_comparable(const struct moment *x, size_t x_input, const struct moment *y,
                             size_t y_input)
{
    return x_input == y_input ||
           (strcmp(x->file, y->file) == 0 && strcmp(x->file, DIAG_STANDARD_INPUT) != 0);
}

/* Whether x came before y for certain: by line where lines count in one stream, else by time;
 * two messages of one second in different partitions of a bus are in no known order. */
static bool surely_before(const struct moment *x, size_t x_input, const struct moment *y,
                          size_t y_input)
{
    if (lines_comparable(x, x_input, y, y_input))
        return x->line < y->line;
    return x->at < y->at;
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
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    if (x->assign.at != y->assign.at)
        return x->assign.at < y->assign.at ? -1 : 1;
    if (x->input != y->input)
        return x->input < y->input ? -1 : 1;
    return x->assign.line < y->assign.line ? -1 : x->assign.line > y->assign.line;
}

/* Of one second in no known order, the queen's assigns come first, then the foragers' accepts,
 * then what ends a run: the order a colony speaks in within a second (a reissue, then the accept
 * of the forager it passed over, is a late accept). */
static int kind_order(const struct event *x, const struct event *y)
{
    return (int)x->kind - (int)y->kind;
}

/* A capture on disk that every partition read: its lines are the stream's order. */
static int by_line(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->when->line != y->when->line)
        return x->when->line < y->when->line ? -1 : 1;
    return kind_order(x, y);
}

/* Each input's events of each chain (and those of none) in their own order: its lines. */
static int by_sequence(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->input != y->input)
        return x->input < y->input ? -1 : 1;
    if (x->chain != y->chain)
        return x->chain < y->chain ? -1 : 1;
    return by_line(a, b);
}

/* Whether every event is of one file on disk that every partition read. */
static bool one_file(const struct event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ev[i].when->file, DIAG_STANDARD_INPUT) == 0 ||
            strcmp(ev[i].when->file, ev[0].when->file) != 0)
            return false;
    return true;
}

/* Which of two inputs' next events comes first: the earlier message time, then kind_order, then
 * the input read first. */
static bool goes_before(const struct event *x, const struct event *y)
{
    if (x->when->at != y->when->at)
        return x->when->at < y->when->at;
    int c = kind_order(x, y);
    return c ? c < 0 : x->input < y->input;
}

/* The inputs' cursors in a heap by their next event (goes_before). */
struct cursors {
    size_t *next, *end; /* each input's next event and the end of its own, in ev */
    size_t *heap, len;
    const struct event *ev;
};

static bool cursor_before(const struct cursors *c, size_t i, size_t j)
{
    return goes_before(&c->ev[c->next[c->heap[i]]], &c->ev[c->next[c->heap[j]]]);
}

static void cursor_sift_down(struct cursors *c, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < c->len && cursor_before(c, l, least))
            least = l;
        if (r < c->len && cursor_before(c, r, least))
            least = r;
        if (least == i)
            return;
        size_t t = c->heap[i];
        c->heap[i] = c->heap[least];
        c->heap[least] = t;
        i = least;
    }
}

/* The events of a bus's partitions in one order: the events of one chain in one input (and
 * those of no chain in one input) in their own order, the lines of that input; merged by their
 * times, and in one second by goes_before, where no line tells. A node's chain keeps each
 * input's order; events of other nodes, which no finding relates, do not hold it back. */
static void merge_inputs(struct event *ev, size_t n)
{
    qsort(ev, n, sizeof *ev, by_sequence);
    struct cursors c = {.next = xmalloc((n + 1) * sizeof *c.next),
                        .end = xmalloc((n + 1) * sizeof *c.end),
                        .heap = xmalloc((n + 1) * sizeof *c.heap),
                        .ev = ev};
    size_t sequences = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || ev[i].input != ev[i - 1].input || ev[i].chain != ev[i - 1].chain)
            c.next[sequences++] = i;
        c.end[sequences - 1] = i + 1;
    }
    for (size_t k = 0; k < sequences; k++)
        c.heap[c.len++] = k;
    for (size_t i = c.len / 2; i-- > 0;)
        cursor_sift_down(&c, i);
    struct event *merged = xmalloc((n ? n : 1) * sizeof *merged);
    for (size_t out = 0; out < n; out++) {
        size_t k = c.heap[0];
        merged[out] = ev[c.next[k]++];
        if (c.next[k] == c.end[k])
            c.heap[0] = c.heap[--c.len];
        cursor_sift_down(&c, 0);
    }
    if (n)
        memcpy(ev, merged, n * sizeof *ev);
    free(merged);
    free(c.next);
    free(c.end);
    free(c.heap);
}

static void number_event(const struct event *e, size_t seq)
{
    if (e->kind == EVENT_ASSIGN)
        e->run->assign_seq = seq;
    else if (e->kind == EVENT_SENT)
        e->sent->seq = seq;
}

/* The events in one order: a capture's lines where the partitions read one file, else each
 * partition's own order, merged by time. */
static void order_events(struct event *ev, size_t n)
{
    if (one_file(ev, n))
        qsort(ev, n, sizeof *ev, by_line);
    else
        merge_inputs(ev, n);
}

static size_t list_events(const struct span_merge *m, struct event *ev)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct run *r = m->runs[i];
        ev[n++] = (struct event){
            r, r->node ? r->chain : NO_CHAIN, NULL, NULL, &r->assign, r->input, EVENT_ASSIGN};
        if (!r->node)
            continue;
        if (r->accept.line)
            ev[n++] = (struct event){r, r->chain, NULL, NULL, &r->accept, r->input, EVENT_ACCEPT};
        if (r->left.line)
            ev[n++] = (struct event){r, r->chain, NULL, NULL, &r->left, r->input, EVENT_LEFT};
    }
    for (size_t i = 0; i < m->nreplies; i++) {
        struct reply *r = &m->replies[i];
        ev[n++] = (struct event){NULL, NO_CHAIN, r, NULL, &r->at, r->input, EVENT_REPLY};
    }
    for (size_t i = 0; i < m->nsents; i++) {
        struct sent *e = &m->sents[i];
        ev[n++] = (struct event){NULL, NO_CHAIN, NULL, e, &e->at, e->input, EVENT_SENT};
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
            .node = r->node_shown,
            .forager = r->forager_shown,
            .prev_id = prev->id,
            .prev_forager = prev->forager_shown,
            .waited = r->sent - prev->sent,
            .timeout = m->cfg->assign_timeout,
        };
        m->blamed = r;
        iacp_report_reassign(sink, &w, &again);
        if (strcmp(prev->forager, r->forager) != 0)
            prev->reissue = &r->assign;
        r->done = prev->done;
    }
    c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
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
            .node = r->node_shown,
            .id = r->id,
            .forager = r->forager_shown,
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

static int by_queen_id(const void *a, const void *b)
{
    const struct queen_id *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Marks each of the queen's messages whose id an earlier one of hers had, with that one. */
static void mark_queen_ids(struct span_merge *m)
{
    struct queen_id *ids = xmalloc((m->n + m->nsents + 1) * sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->runs[i]->queens)
            ids[n++] = (struct queen_id){m->runs[i]->key, &m->runs[i]->assign,
                                         m->runs[i]->assign_seq, &m->runs[i]->id_first};
    for (size_t i = 0; i < m->nsents; i++)
        ids[n++] = (struct queen_id){m->sents[i].key, &m->sents[i].at, m->sents[i].seq,
                                     &m->sents[i].first};
    qsort(ids, n, sizeof *ids, by_queen_id);
    for (size_t i = 1, first = 0; i < n; i++) {
        if (strcmp(ids[i].key, ids[first].key) != 0)
            first = i;
        else
            *ids[i].first = ids[first].at;
    }
    free(ids);
}

static void report_duplicate_id(struct span_merge *m, const struct moment *at,
                                const struct moment *first, struct diag_sink *sink)
{
    struct diag_where w = where_of(at, first);
    m->blamed = NULL; /* an agent's finding */
    iacp_report_duplicate_id(sink, &w, m->cfg->queen, at->id);
}

/* The latest assign of the conversation a reply names that came before it, or NULL. */
static struct run *named_by(struct span_merge *m, const struct reply *reply)
{
    const char *key = reply->key;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(m->named[mid]->key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct run *latest = NULL;
    for (; lo < m->n && strcmp(m->named[lo]->key, key) == 0; lo++)
        /* a reply comes after what it answers: an assign of its second is taken as before it */
        if (!surely_before(&reply->at, reply->input, &m->named[lo]->assign, m->named[lo]->input))
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
    /* one that ended in the reply's second, in no known order with it, is taken as open */
    if (r->ending && surely_before(&r->ended, r->input, &reply->at, reply->input)) {
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
        iacp_report_wrong_replier(sink, &w, reply->kind, reply->from_shown, r->id,
                                  r->forager_shown);
    }
}

static void follow(struct span_merge *m, const struct event *e, struct diag_sink *sink)
{
    struct run *r = e->run;
    switch (e->kind) {
    case EVENT_REPLY:
        follow_reply(m, e->reply, sink);
        return;
    case EVENT_SENT:
        if (e->sent->first)
            report_duplicate_id(m, &e->sent->at, e->sent->first, sink);
        return;
    case EVENT_ASSIGN:
        /* an assign with an id the queen used opens nothing in one process: no run of its node */
        if (r->id_first)
            report_duplicate_id(m, &r->assign, r->id_first, sink);
        else if (r->node)
            join(m, r, sink);
        return;
    case EVENT_ACCEPT:
        if (r->reissue) {
            struct diag_where w = where_of(&r->accept, r->reissue);
            m->blamed = r;
            iacp_report_late_accept(sink, &w, r->forager_shown, r->id);
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
    if (m->other_print.line) {
        const struct diag_where w = {.file = m->other_print.file, .line = m->other_print.line};
        diag_emit(sink, &w, "trace-span-secret",
                  "its long names and ids were digested under another secret than the spans' "
                  "before it: they are told apart within a partition only (give every partition "
                  "of a run the same --span-secret)");
    }
    number_chains(m);
    m->named = xmalloc((m->n ? m->n : 1) * sizeof *m->named);
    if (m->n) /* runs is NULL when there is none */
        memcpy(m->named, m->runs, m->n * sizeof *m->named);
    qsort(m->named, m->n, sizeof *m->named, by_conversation);
    struct event *ev = xmalloc((3 * m->n + m->nreplies + m->nsents + 1) * sizeof *ev);
    size_t n = list_events(m, ev);
    order_events(ev, n);
    for (size_t i = 0; i < n; i++)
        number_event(&ev[i], i);
    mark_queen_ids(m);
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
    json_object_set_new(o, "severity", json_string(diag_severity_word(x->severity)));
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
        json_object_set_new(d, "node", json_string(r->node_shown));
        json_object_set_new(d, "assigns", pair(r->first->id, r->id));
        json_object_set_new(d, "foragers", pair(r->first->forager_shown, r->forager_shown));
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
    free(m->sents);

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
