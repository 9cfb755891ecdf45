#include "report/tracehtml.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/jsonout.h"
#include "base/list.h"
#include "base/placemap.h"
#include "base/sha256.h"
#include "base/strmap.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "diag/findings.h"
#include "proto/schedule.h"
#include "report/tracediagram.h"

enum {
    /* Names up to this long, and so many of them, are written once, in the string table, and
     * referred to by their index: a protocol, an outcome, an agent, a file. */
    STRING_SHARED_MAX = 256,
    STRINGS_MAX = 1 << 16,
    STRINGS_BYTES_MAX = 2 << 20, /* and so many bytes of them: past that, names go inline */
    DATA_VERSION = 4,
    /* The captures the heading names (their number is whole), and the kinds of the messages of
     * no conversation that "Left out" tells apart. */
    CAPTURES_MAX = 64,
    OUTSIDE_KINDS_MAX = 32,
    /* What a kept conversation and a kept message cost beyond the text, about: their records,
     * their diagram's model, their entries in maps, and what malloc keeps around them (the peak
     * resident memory over the summaries' on 10,000 one-message conversations: 3.4 KB each). */
    KEPT_CONVERSATION_COST = 2560,
    KEPT_MESSAGE_COST = 768,
    /* The ids of open conversations left out that are remembered, the latest: a conversation
     * that never gets a row (FIPA's of an unknown protocol, which the engine does not follow)
     * would be remembered for ever. One forgotten is kept again from its next message, and left
     * out at its row, which shows it was not kept whole (whole()). */
    DROPPED_MAX = 1 << 14,
    /* Dropped conversations' records kept for the next ones, their diagrams emptied
     * (trace_diagram_restart): as many as a message may drop, of those small enough that what
     * they hold is no matter (the budget no longer counts it: a spare that held large texts
     * would keep their blocks). */
    SPARE_KEPT = 4,
    SPARE_ARROWS_MAX = 64,
    SPARE_MESSAGES_MAX = 64,
    SPARE_BYTES_MAX = 32 * 1024,
    /* A kept conversation's id and texts start in a block of this many bytes, each next block
     * twice the last, up to 4 KiB: a text longer than that has a block of its own, its size, so
     * that what a block leaves unused is little beside what the budget counts. */
    TEXTS_FIRST_BLOCK = 256,
    TEXTS_LAST_BLOCK = 4 * 1024,
};

/* A diagnostic of the run, for the page's list under "Anomalies by code". */
struct page_diagnostic {
    const char *file; /* in diagnostic_files */
    unsigned long line;
    const char *code; /* a literal of ours */
    enum severity severity;
    char *message;
    long row;         /* the row of the conversation whose summary names it; -1 for none */
    size_t prev_same; /* 1 + the index of the one before it at the same line with its code */
};

/* A message kept: where it was read, its arrows in its conversation's diagram, its text. */
struct kept_message {
    const char *file;     /* display names live for the whole run */
    uint32_t file_number; /* in the lines map (file_number) */
    unsigned long line;
    size_t arrow, arrows; /* its first arrow's number (from 1), and how many it drew */
    char *text;
    size_t len;
    struct findings *findings; /* those at its line, or NULL */
};

/* A conversation whose messages the report keeps. */
struct kept {
    struct list_link link; /* in plain or flagged, in the order they came to be there */
    struct arena texts;    /* its id and its messages' texts */
    char *id;
    const char *first_file;   /* where the first message it saw was read */
    unsigned long first_line; /* 0 before that */
    struct trace_diagram *diagram;
    struct kept_message *messages;
    size_t n, cap;
    size_t arrows, bytes; /* what it costs of the budget: bytes of memory (cost_of) */
    bool flagged;         /* findings blamed on it */
    long row;             /* its row in the table; -1 while it is open */
    unsigned long summary_messages;
};

/* The conversation the message being traced ended: told by the engine before the message is
 * drawn, and drawn after it. */
struct ending {
    char *id; /* NULL: none */
    struct kept *kept;
    bool dropped; /* its messages are left out */
    long row;
    struct conversation_summary summary; /* what trace_diagram_outcome reads of it */
    char *outcome;
};

struct trace_html {
    unsigned long max_arrows;
    char *const *hidden;
    size_t nhidden;
    bool no_times;
    bool begun; /* the page's beginning is written */

    struct strmap *open; /* id -> struct kept, until its summary */
    /* The ids of open conversations whose messages are left out, the latest DROPPED_MAX: a
     * ring of them, oldest first (NULL where one got its row), and an index id -> slot + 1. */
    struct strmap *dropped;
    char **dropped_ring;
    size_t dropped_head, ndropped;
    /* where each kept message was read (its file's number, its line) -> its struct kept */
    struct place_map lines;
    /* the files' numbers, from 1: name -> number; and the latest file numbered, asked first (the
     * files are read one after the other) */
    struct strmap *file_numbers;
    struct strbuf latest_file;
    uint32_t latest_number;
    struct list plain, flagged;
    size_t arrows, bytes; /* kept, in all */
    struct kept *spare[SPARE_KEPT];
    size_t nspare;
    size_t strings_bytes;

    const struct message *now;
    struct findings *current; /* findings at the message being traced */
    bool replayed;            /* and told to the diagrams (replay_findings) */
    struct ending ending;

    long rows;
    unsigned long long row_messages; /* the messages the rows count */
    unsigned long long outside;      /* messages in no conversation */

    /* Every diagnostic of the run, up to TRACE_HTML_DIAGNOSTICS_MAX; the rest are counted. */
    struct page_diagnostic *diagnostics;
    size_t ndiagnostics, diagnostics_cap;
    unsigned long long diagnostics_omitted;
    struct strmap *diagnostic_index; /* "LINE:FILE:CODE" -> 1 + index of the latest such */
    /* The files the diagnostics name, copied: a finding told again from a worker's log (--jobs)
     * names its file in the log's memory, which the next batch reuses. */
    struct strmap *diagnostic_files;
    const char *captures[CAPTURES_MAX]; /* the files read, in order */
    size_t ncaptures;
    unsigned long long more_captures;
    double first_time, last_time;     /* the span of message time; NAN before any */
    struct strmap *outside_kinds;     /* kind -> count (unsigned long long *) of no conversation */
    unsigned long long outside_other; /* those of kinds past OUTSIDE_KINDS_MAX */

    struct strmap *string_index; /* name -> its index + 1 */
    char **strings;
    size_t nstrings;
    bool strings_written; /* the table is on the page: no name joins it any more */

    struct strbuf json, key;
};

struct trace_html *trace_html_new(unsigned long max_arrows, char *const *hidden, size_t nhidden,
                                  bool no_times)
{
    struct trace_html *h = xcalloc(1, sizeof *h);
    h->max_arrows = max_arrows;
    h->hidden = hidden;
    h->nhidden = nhidden;
    h->no_times = no_times;
    h->open = strmap_new();
    h->dropped = strmap_new();
    h->file_numbers = strmap_new();
    h->string_index = strmap_new();
    h->diagnostic_index = strmap_new();
    h->diagnostic_files = strmap_new();
    h->outside_kinds = strmap_new();
    h->first_time = h->last_time = NAN;
    return h;
}

/* What k's messages hold beside their texts (in k's blocks): the findings at them. */
static void free_findings(struct kept *k)
{
    for (size_t i = 0; i < k->n; i++)
        findings_free(k->messages[i].findings);
}

static void free_kept(struct kept *k)
{
    free_findings(k);
    free(k->messages);
    trace_diagram_free(k->diagram);
    arena_free(&k->texts);
    free(k);
}

static void clear_ending(struct ending *e)
{
    free(e->id);
    free(e->outcome);
    free((char *)e->summary.conversation);
    *e = (struct ending){0};
}

void trace_html_free(struct trace_html *h)
{
    if (!h)
        return;
    struct list *lists[] = {&h->plain, &h->flagged};
    for (size_t i = 0; i < 2; i++)
        for (struct kept *k; (k = LIST_ITEM(lists[i]->head, struct kept, link));) {
            list_remove(lists[i], &k->link);
            free_kept(k);
        }
    for (size_t i = 0; i < h->nspare; i++)
        free_kept(h->spare[i]);
    strmap_free(h->open, NULL);
    strmap_free(h->dropped, NULL);
    for (size_t i = 0; h->dropped_ring && i < DROPPED_MAX; i++)
        free(h->dropped_ring[i]);
    free(h->dropped_ring);
    place_map_free(&h->lines);
    strmap_free(h->file_numbers, NULL);
    sb_free(&h->latest_file);
    strmap_free(h->string_index, NULL);
    strmap_free(h->diagnostic_index, NULL);
    strmap_free(h->diagnostic_files, free);
    strmap_free(h->outside_kinds, free);
    for (size_t i = 0; i < h->ndiagnostics; i++)
        free(h->diagnostics[i].message);
    free(h->diagnostics);
    for (size_t i = 0; i < h->nstrings; i++)
        free(h->strings[i]);
    free(h->strings);
    findings_free(h->current);
    clear_ending(&h->ending);
    sb_free(&h->json);
    sb_free(&h->key);
    free(h);
}

/* ---- JSON inside the page ---- */

/* Starts a JSON value at the end of out, written as the page carries it (JSONOUT_SCRIPT: '<',
 * '>', '&', U+2028 and U+2029 as \u escapes, so that nothing in it can end its block). */
static struct jsonout *json_start(struct jsonout *w, struct strbuf *out)
{
    jsonout_init(w, out, JSONOUT_SCRIPT);
    return w;
}

/* A long string is written in pieces of about this many bytes, each given away once out is full:
 * what it costs to write is a piece, not the string widened by its escapes. */
enum { STRING_PIECE = 1 << 14 };

static void put_string_parts(struct jsonout *w, const char *text, size_t len,
                             const struct diagram_flush *flush)
{
    while (len) {
        size_t n = utf8_cut(text, len, STRING_PIECE);
        jsonout_string_part(w, text, n);
        diagram_flush_when_full(flush, w->sb);
        text += n;
        len -= n;
    }
}

/* A string of any length, at the end of out, as a piece of the page. */
static void put_long_string(const char *text, size_t len, const struct diagram_flush *flush,
                            struct strbuf *out)
{
    struct jsonout w;
    jsonout_string_open(json_start(&w, out));
    put_string_parts(&w, text, len, flush);
    jsonout_string_close(&w);
}

/* A name: its index in the string table, or itself when long or the table is full. */
static void put_name(struct trace_html *h, struct jsonout *w, const char *s)
{
    if (!s || strlen(s) > STRING_SHARED_MAX) {
        jsonout_string_or_null(w, s);
        return;
    }
    uintptr_t index = (uintptr_t)strmap_get_recent(h->string_index, s);
    if (!index && h->nstrings < STRINGS_MAX && h->strings_bytes < STRINGS_BYTES_MAX &&
        !h->strings_written) {
        h->strings_bytes += strlen(s) + 1;
        h->strings = xrealloc(h->strings, (h->nstrings + 1) * sizeof *h->strings);
        h->strings[h->nstrings++] = xstrdup(s);
        index = h->nstrings;
        strmap_put(h->string_index, s, (void *)index);
    }
    if (index)
        jsonout_integer(w, (json_int_t)(index - 1));
    else
        jsonout_string_or_null(w, s);
}

/* ---- the page ---- */

/* The policy's source for an inline text: 'sha256-' and its digest in base64. */
static void put_hash_source(struct strbuf *out, const char *text)
{
    unsigned char digest[SHA256_BYTES];
    char base64[45];
    sha256(text, strlen(text), digest);
    sha256_base64(digest, base64);
    sb_addf(out, "'sha256-%s'", base64);
}

static const char *const columns[] = {
    "conversation", "protocol",  "initiator", "participants", "messages", "file",
    "first_line",   "last_line", "start",     "duration",     "latency",  "outcome",
    "findings",     "method",    "subject",   "error_code",
};

static void begin_page(struct trace_html *h, struct strbuf *out)
{
    if (h->begun)
        return;
    h->begun = true;
    sb_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "script-src ");
    put_hash_source(out, trace_html_script);
    sb_adds(out, "; style-src ");
    put_hash_source(out, trace_html_style);
    sb_adds(out, "; img-src data:\">\n");
    sb_adds(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"acp-trace " ACP_VERSION "\">\n"
                 "<title>acp-trace report</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>");
    sb_adds(out, trace_html_style);
    sb_adds(out, "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>This report is drawn by "
                 "its script: open it in a browser with JavaScript on.</noscript></div>\n"
                 "<script type=\"application/json\" id=\"acp-data\">{\"version\":");
    sb_addf(out, "%d,\"conversations\":{\"columns\":[", DATA_VERSION);
    for (size_t i = 0; i < sizeof columns / sizeof *columns; i++)
        sb_addf(out, "%s\"%s\"", i ? "," : "", columns[i]);
    sb_adds(out, "],\"rows\":[\n");
}

static double final_latency(const struct conversation_summary *s)
{
    return s->nlatency ? s->latency[s->nlatency - 1].seconds : NAN;
}

static void write_row(struct trace_html *h, const struct conversation_summary *s,
                      const char *outcome, struct strbuf *out)
{
    if (h->rows)
        sb_adds(out, ",\n");
    struct jsonout w;
    json_start(&w, out);
    jsonout_begin_array(&w);
    jsonout_string_or_null(&w, s->conversation);
    put_name(h, &w, s->protocol);
    put_name(h, &w, s->initiator);
    jsonout_begin_array(&w);
    for (size_t i = 0; i < s->nparticipants; i++)
        put_name(h, &w, s->participants[i]);
    jsonout_end_array(&w);
    jsonout_integer(&w, (json_int_t)s->messages);
    put_name(h, &w, s->first_file);
    jsonout_integer(&w, (json_int_t)s->first_line);
    jsonout_integer(&w, (json_int_t)s->last_line);
    jsonout_number(&w, s->started);
    jsonout_number(&w, time_elapsed(s->ended, s->started));
    jsonout_number(&w, final_latency(s));
    put_name(h, &w, outcome);
    jsonout_integer(&w, s->findings ? (json_int_t)(s->findings->n + s->findings->omitted) : 0);
    put_name(h, &w, s->method);
    put_name(h, &w, s->subject);
    if (s->has_error_code)
        jsonout_integer(&w, (json_int_t)s->error_code);
    else
        jsonout_null(&w);
    jsonout_end_array(&w);
}

/* ---- what is kept, within the budget ---- */

static bool hidden(const struct trace_html *h, const char *kind)
{
    return strv_has(h->hidden, h->nhidden, kind);
}

/* The number of a file for the lines map, or 0 for one with none yet: a new one gets one when
 * add. Told by name, not by pointer: a finding's file told again from a worker's log (--jobs) is
 * in memory the next batch reuses. No file is "" (a message read from no file). */
static uint32_t file_number(struct trace_html *h, const char *file, bool add)
{
    if (!file)
        file = "";
    if (h->latest_number && strcmp(h->latest_file.buf, file) == 0)
        return h->latest_number;
    uint32_t number = (uint32_t)(uintptr_t)strmap_get(h->file_numbers, file);
    if (!number && !add)
        return 0;
    if (!number) {
        number = (uint32_t)strmap_size(h->file_numbers) + 1;
        strmap_put(h->file_numbers, file, (void *)(uintptr_t)number);
    }
    sb_reset(&h->latest_file);
    sb_adds(&h->latest_file, file);
    h->latest_number = number;
    return number;
}

static struct list *list_of(struct trace_html *h, const struct kept *k)
{
    return k->flagged ? &h->flagged : &h->plain;
}

/* Findings were blamed on k: it goes before those without. */
static void flag(struct trace_html *h, struct kept *k)
{
    if (k->flagged)
        return;
    list_remove(&h->plain, &k->link);
    k->flagged = true;
    list_append(&h->flagged, &k->link);
}

static void forget_dropped_slot(struct trace_html *h, size_t slot)
{
    char *id = h->dropped_ring[slot];
    if (!id)
        return;
    strmap_remove(h->dropped, id);
    free(id);
    h->dropped_ring[slot] = NULL;
}

/* An open conversation is left out: remembered, forgetting the oldest when DROPPED_MAX are. */
static void remember_dropped(struct trace_html *h, const char *id)
{
    if (!h->dropped_ring)
        h->dropped_ring = xcalloc(DROPPED_MAX, sizeof *h->dropped_ring);
    if (h->ndropped == DROPPED_MAX) {
        forget_dropped_slot(h, h->dropped_head);
        h->dropped_head = (h->dropped_head + 1) % DROPPED_MAX;
        h->ndropped--;
    }
    size_t slot = (h->dropped_head + h->ndropped++) % DROPPED_MAX;
    h->dropped_ring[slot] = xstrdup(id);
    strmap_put(h->dropped, id, (void *)(uintptr_t)(slot + 1));
}

/* Whether the conversation id was left out while open; forgotten once it has its row. */
static bool take_dropped(struct trace_html *h, const char *id)
{
    size_t slot = (uintptr_t)strmap_get(h->dropped, id);
    if (slot)
        forget_dropped_slot(h, slot - 1);
    return slot != 0;
}

/* A dropped conversation's record: emptied and kept for the next one when there is room and it is
 * small, else freed. Freeing its pieces, cold by then, and making the next anew was most of what
 * dropping one cost. */
static void retire(struct trace_html *h, struct kept *k)
{
    if (h->nspare == SPARE_KEPT || trace_diagram_arrows(k->diagram) > SPARE_ARROWS_MAX ||
        k->cap > SPARE_MESSAGES_MAX || k->bytes > SPARE_BYTES_MAX) {
        free_kept(k);
        return;
    }
    free_findings(k);
    arena_reset(&k->texts);
    *k = (struct kept){
        .texts = k->texts, .diagram = k->diagram, .messages = k->messages, .cap = k->cap};
    h->spare[h->nspare++] = k;
}

/* Leaves out every message of k. */
static void drop(struct trace_html *h, struct kept *k)
{
    list_remove(list_of(h, k), &k->link);
    for (size_t i = 0; i < k->n; i++)
        place_map_remove(&h->lines, k->messages[i].file_number, k->messages[i].line);
    h->arrows -= k->arrows;
    h->bytes -= k->bytes;
    if (k->row < 0) {
        strmap_remove(h->open, k->id);
        remember_dropped(h, k->id);
    }
    if (h->ending.kept == k) {
        h->ending.kept = NULL;
        h->ending.dropped = true;
    }
    retire(h, k);
}

static bool over_budget(const struct trace_html *h)
{
    return h->arrows > h->max_arrows || h->bytes > TRACE_HTML_KEPT_MAX;
}

/* What a message kept costs: its text as the page writes it (a '<' takes six bytes there), which
 * is at least what it holds in memory, and its records. */
static size_t cost_of(const struct kept_message *km)
{
    return jsonout_string_size(km->text, km->len, JSONOUT_SCRIPT) + KEPT_MESSAGE_COST;
}

static void charge(struct trace_html *h, struct kept *k, size_t arrows, size_t bytes)
{
    k->arrows += arrows;
    k->bytes += bytes;
    h->arrows += arrows;
    h->bytes += bytes;
}

/* Drops the earliest kept of those without findings, then the last of those with, until what is
 * kept is within the budget; false when k itself went. A conversation that comes when the budget
 * is spent so gets its chance of a finding, and those with findings stay. */
static bool make_room(struct trace_html *h, struct kept *k)
{
    struct kept *victim;
    while (over_budget(h) && (victim = LIST_ITEM(h->plain.head ? h->plain.head : h->flagged.tail,
                                                 struct kept, link))) {
        drop(h, victim);
        if (victim == k)
            return false;
    }
    return true;
}

static struct kept *keep_new(struct trace_html *h, const char *id, long row)
{
    struct kept *k;
    if (h->nspare) {
        k = h->spare[--h->nspare];
        trace_diagram_restart(k->diagram, id);
    } else {
        k = xcalloc(1, sizeof *k);
        k->texts = (struct arena){.block_size = TEXTS_FIRST_BLOCK, .grow_to = TEXTS_LAST_BLOCK};
        k->diagram = trace_diagram_new(DIAGRAM_SVG, id, ULONG_MAX, h->hidden, h->nhidden);
    }
    k->id = arena_copy(&k->texts, id, strlen(id));
    k->row = row;
    list_append(&h->plain, &k->link);
    if (row < 0)
        strmap_put(h->open, id, k);
    charge(h, k, 0, KEPT_CONVERSATION_COST + strlen(id));
    return k;
}

/* The kept message at line of file (its number in the lines map), in k, or NULL; none of no
 * file. */
static struct kept_message *message_at(struct kept *k, const char *file, uint32_t number,
                                       unsigned long line)
{
    for (size_t i = k->n; i-- > 0;)
        if (k->messages[i].line == line && k->messages[i].file && file &&
            k->messages[i].file_number == number)
            return &k->messages[i];
    return NULL;
}

/* ---- messages and findings ---- */

/* The file a message came from, for the heading: the files are read one after the other. */
static void note_capture(struct trace_html *h, const char *file)
{
    if (h->ncaptures &&
        (h->captures[h->ncaptures - 1] == file || strcmp(h->captures[h->ncaptures - 1], file) == 0))
        return;
    if (h->more_captures || h->ncaptures == CAPTURES_MAX)
        h->more_captures += !h->more_captures || strcmp(h->captures[CAPTURES_MAX - 1], file) != 0;
    else
        h->captures[h->ncaptures++] = file;
}

void trace_html_begin(struct trace_html *h, const struct message *m)
{
    h->now = m;
    h->replayed = false;
    if (m->at.file)
        note_capture(h, m->at.file);
    double t;
    bool whole_second;
    if (schedule_view_time(m, &t, &whole_second) && isfinite(t)) {
        h->first_time = isnan(h->first_time) ? t : fmin(h->first_time, t);
        h->last_time = isnan(h->last_time) ? t : fmax(h->last_time, t);
    }
}

static bool at_now(const struct trace_html *h, const char *file, unsigned long line)
{
    return h->now && line && h->now->at.line == line && h->now->at.file == file;
}

/* A finding about a message of a kept conversation other than the one being traced: its
 * diagram places it (marked on that message's arrows while a message is traced, else noted),
 * and the page lists it with that message when it is about it. Returns that conversation; one
 * that is placed already (the conversation of the finding's own line) gets it only once. */
static struct kept *route(struct trace_html *h, const struct diag_finding *f, const char *file,
                          unsigned long line, bool about, const struct kept *placed)
{
    uint32_t number = file_number(h, file, false);
    struct kept *k = number ? place_map_get(&h->lines, number, line) : NULL;
    if (!k || k == placed)
        return k;
    if (h->now)
        trace_diagram_begin(k->diagram, h->now);
    trace_diagram_finding(k->diagram, f);
    if (h->now)
        trace_diagram_end(k->diagram);
    struct kept_message *km = about ? message_at(k, file, number, line) : NULL;
    if (km)
        findings_add(&km->findings, f);
    if (about)
        flag(h, k);
    return k;
}

static void route_related(struct trace_html *h, const struct diag_finding *f,
                          const struct kept *placed)
{
    const struct diag_where *w = f->where;
    if (w->related_line)
        route(h, f, w->related_file ? w->related_file : w->file, w->related_line, false, placed);
}

/* A finding at the message being traced waits for it (h->current): its conversation, and so
 * whether the related line is in another, is known once the message is followed. */
static const char *diagnostic_key(struct trace_html *h, const char *file, unsigned long line,
                                  const char *code)
{
    sb_reset(&h->key);
    sb_addf(&h->key, "%lu:%s:%s", line, file ? file : "", code);
    return h->key.buf;
}

static const char *file_kept(struct trace_html *h, const char *file)
{
    if (!file)
        return NULL;
    char *kept = strmap_get(h->diagnostic_files, file);
    if (!kept) {
        kept = xstrdup(file);
        strmap_put(h->diagnostic_files, file, kept);
    }
    return kept;
}

static void keep_diagnostic(struct trace_html *h, const struct diag_finding *f)
{
    if (h->ndiagnostics == TRACE_HTML_DIAGNOSTICS_MAX) {
        h->diagnostics_omitted++;
        return;
    }
    if (h->ndiagnostics == h->diagnostics_cap) {
        h->diagnostics_cap = h->diagnostics_cap ? 2 * h->diagnostics_cap : 64;
        h->diagnostics = xrealloc(h->diagnostics, h->diagnostics_cap * sizeof *h->diagnostics);
    }
    const struct diag_where *w = f->where;
    const char *key = diagnostic_key(h, w->file, w->line, f->code);
    h->diagnostics[h->ndiagnostics] = (struct page_diagnostic){
        .file = file_kept(h, w->file),
        .line = w->line,
        .code = f->code,
        .severity = f->severity,
        .message = xstrndup(f->message, f->message_len),
        .row = -1,
        .prev_same = (uintptr_t)strmap_get(h->diagnostic_index, key),
    };
    strmap_put(h->diagnostic_index, key, (void *)(uintptr_t)++h->ndiagnostics);
}

/* The diagnostics a conversation's summary names are its: the latest of each not yet another's. */
static void claim_diagnostics(struct trace_html *h, const struct findings *list, long row)
{
    for (size_t i = 0; list && i < list->n; i++) {
        const struct finding *f = &list->v[i];
        size_t at = (uintptr_t)strmap_get(h->diagnostic_index,
                                          diagnostic_key(h, f->file, f->line, f->code));
        while (at && h->diagnostics[at - 1].row >= 0)
            at = h->diagnostics[at - 1].prev_same;
        if (at)
            h->diagnostics[at - 1].row = row;
    }
}

void trace_html_finding(struct trace_html *h, const struct diag_finding *f)
{
    keep_diagnostic(h, f);
    const struct diag_where *w = f->where;
    if (at_now(h, w->file, w->line)) {
        findings_add(&h->current, f);
        return;
    }
    route_related(h, f, w->line ? route(h, f, w->file, w->line, true, NULL) : NULL);
}

/* The findings kept at the message being traced, told again to its conversation's diagram
 * (placed, NULL when none), and to those of the other conversations their related lines are in. */
static void replay_findings(struct trace_html *h, const struct kept *placed)
{
    const struct findings *list = h->current;
    h->replayed = true;
    for (size_t i = 0; list && i < list->n; i++) {
        const struct finding *f = &list->v[i];
        const struct diag_where at = {.file = f->file,
                                      .line = f->line,
                                      .column = f->column,
                                      .related_file = f->related_file,
                                      .related_line = f->related_line};
        const struct diag_finding again = {&at, f->severity, f->code, f->message,
                                           strlen(f->message)};
        if (placed)
            trace_diagram_finding(placed->diagram, &again);
        route_related(h, &again, placed);
    }
}

/* The kept conversation the message goes to: NULL when its messages are left out. */
static struct kept *kept_for(struct trace_html *h, const char *conversation)
{
    struct ending *e = &h->ending;
    if (e->id && strcmp(e->id, conversation) == 0) {
        if (!e->kept && !e->dropped)
            e->kept = keep_new(h, conversation, e->row);
        return e->kept;
    }
    struct kept *k = strmap_get(h->open, conversation);
    if (k || strmap_get(h->dropped, conversation))
        return k;
    return keep_new(h, conversation, -1);
}

static void keep_message(struct trace_html *h, struct kept *k, const struct message *m,
                         size_t first, size_t arrows)
{
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 2;
        k->messages = xrealloc(k->messages, k->cap * sizeof *k->messages);
    }
    struct kept_message *km = &k->messages[k->n++];
    *km = (struct kept_message){.file = m->at.file,
                                .line = m->at.line,
                                .arrow = first,
                                .arrows = arrows,
                                .text = arena_copy(&k->texts, m->rec->text, m->rec->len),
                                .len = m->rec->len};
    findings_move(&km->findings, &h->current);
    km->file_number = file_number(h, km->file, true);
    place_map_put(&h->lines, km->file_number, km->line, k);
    charge(h, k, arrows ? arrows : 1, cost_of(km));
    if (km->findings)
        flag(h, k);
}

/* A message of no conversation, told apart by its kind in "Left out". */
static void note_outside(struct trace_html *h, const char *kind)
{
    h->outside++;
    unsigned long long *n = strmap_get(h->outside_kinds, kind);
    if (!n && strmap_size(h->outside_kinds) < OUTSIDE_KINDS_MAX) {
        n = xcalloc(1, sizeof *n);
        strmap_put(h->outside_kinds, kind, n);
    }
    if (n)
        ++*n;
    else
        h->outside_other++;
}

void trace_html_message(struct trace_html *h, const struct message *m, const char *kind,
                        const char *sender, const char *conversation)
{
    if (!conversation) {
        if (!hidden(h, kind))
            note_outside(h, kind);
        return;
    }
    struct kept *k = kept_for(h, conversation);
    if (!k)
        return;
    if (!k->first_line) {
        k->first_file = m->at.file;
        k->first_line = m->at.line;
    }
    struct trace_diagram *d = k->diagram;
    trace_diagram_begin(d, m);
    replay_findings(h, k);
    if (h->ending.id && h->ending.kept == k)
        trace_diagram_outcome(d, &h->ending.summary, h->ending.outcome);
    size_t before = trace_diagram_arrows(d);
    trace_diagram_message(d, m, kind, sender, conversation);
    size_t after = trace_diagram_arrows(d);
    trace_diagram_end(d);
    if (hidden(h, kind))
        return;
    keep_message(h, k, m, before + 1, after - before);
    make_room(h, k);
}

void trace_html_end(struct trace_html *h)
{
    if (!h->replayed) /* the message is in no kept conversation */
        replay_findings(h, NULL);
    h->now = NULL;
    findings_free(h->current);
    h->current = NULL;
    clear_ending(&h->ending);
}

/* ---- conversations ---- */

static bool ends_now(const struct trace_html *h, const struct conversation_summary *s)
{
    return h->now && s->last_line == h->now->at.line && s->last_file && h->now->at.file &&
           strcmp(s->last_file, h->now->at.file) == 0;
}

/* The conversation's outcome goes after the message being traced, which ended it. */
static void end_with_message(struct trace_html *h, const struct conversation_summary *s,
                             const char *outcome, struct kept *k, bool dropped)
{
    struct ending *e = &h->ending;
    clear_ending(e);
    e->id = xstrdup(s->conversation);
    e->kept = k;
    e->dropped = dropped;
    e->row = h->rows;
    e->summary = (struct conversation_summary){.proto = s->proto,
                                               .conversation = xstrdup(s->conversation),
                                               .last_file = s->last_file,
                                               .last_line = s->last_line,
                                               .started = s->started,
                                               .ended = s->ended};
    e->outcome = xstrdup(outcome);
}

/* Whether k holds the conversation from its first message: not when it was left out and
 * forgotten (DROPPED_MAX) and kept again from a later one. */
static bool whole(const struct kept *k, const struct conversation_summary *s)
{
    return !k->first_line ||
           (k->first_line == s->first_line && k->first_file && s->first_file &&
            (k->first_file == s->first_file || strcmp(k->first_file, s->first_file) == 0));
}

void trace_html_conversation(struct trace_html *h, const struct conversation_summary *s,
                             const char *outcome, struct strbuf *out)
{
    begin_page(h, out);
    write_row(h, s, outcome, out);
    claim_diagnostics(h, s->findings, h->rows);
    if (s->conversation) {
        struct kept *k = strmap_remove(h->open, s->conversation);
        bool dropped = take_dropped(h, s->conversation);
        if (k && !whole(k, s)) {
            k->row = h->rows;
            drop(h, k);
            k = NULL;
            dropped = true;
        }
        if (k) {
            k->row = h->rows;
            k->summary_messages = s->messages;
            if (s->findings && (s->findings->n || s->findings->omitted))
                flag(h, k);
        }
        if (ends_now(h, s))
            end_with_message(h, s, outcome, k, dropped);
        else if (k)
            trace_diagram_outcome(k->diagram, s, outcome);
    }
    h->rows++;
    h->row_messages += s->messages;
}

/* ---- the end ---- */

static void put_findings(struct jsonout *w, const struct findings *list)
{
    jsonout_begin_array(w);
    for (size_t i = 0; list && i < list->n; i++) {
        const struct finding *f = &list->v[i];
        jsonout_begin_object(w);
        jsonout_key(w, "code");
        jsonout_string_or_null(w, f->code);
        jsonout_key(w, "severity");
        jsonout_string_or_null(w, diag_severity_word(f->severity));
        jsonout_key(w, "message");
        jsonout_string_or_null(w, f->message);
        jsonout_end_object(w);
    }
    jsonout_end_array(w);
}

/* Takes what the diagram being drawn holds so far into its string on the page. */
struct svg_pieces {
    struct jsonout *w;
    const struct diagram_flush *flush;
};

static void take_svg(void *ctx, struct strbuf *svg)
{
    struct svg_pieces *p = ctx;
    size_t whole = svg->len; /* up to the last character begun, which may want more bytes */
    for (size_t back = 1; back <= 3 && back <= svg->len; back++) {
        unsigned char c = (unsigned char)svg->buf[svg->len - back];
        if ((c & 0xC0) != 0x80) {
            if (c >= 0xC0)
                whole = svg->len - back;
            break;
        }
    }
    put_string_parts(p->w, svg->buf, whole, p->flush);
    memmove(svg->buf, svg->buf + whole, svg->len - whole);
    svg->len -= whole;
    svg->buf[svg->len] = '\0';
}

/* The diagram, drawn and written in pieces. */
static void put_svg(struct trace_html *h, const struct kept *k, struct strbuf *svg,
                    const struct diagram_flush *flush, struct strbuf *out)
{
    struct jsonout w;
    jsonout_string_open(json_start(&w, out));
    struct svg_pieces pieces = {&w, flush};
    sb_reset(svg);
    trace_diagram_write(k->diagram,
                        &(struct diagram_layout){
                            .no_times = h->no_times,
                            .flush = &(struct diagram_flush){.flush = take_svg, .ctx = &pieces}},
                        svg);
    put_string_parts(&w, svg->buf ? svg->buf : "", svg->len, flush);
    jsonout_string_close(&w);
}

/* A kept message: its text last, in pieces. */
static void put_message(struct trace_html *h, const struct kept_message *km,
                        const struct diagram_flush *flush, struct strbuf *out)
{
    struct jsonout w;
    json_start(&w, out);
    jsonout_begin_object(&w);
    jsonout_key(&w, "file");
    put_name(h, &w, km->file);
    jsonout_key(&w, "line");
    jsonout_integer(&w, (json_int_t)km->line);
    jsonout_key(&w, "arrow");
    jsonout_integer(&w, (json_int_t)km->arrow);
    jsonout_key(&w, "arrows");
    jsonout_integer(&w, (json_int_t)km->arrows);
    jsonout_key(&w, "findings");
    put_findings(&w, km->findings);
    jsonout_key(&w, "text");
    put_long_string(km->text, km->len, flush, out);
    sb_addc(out, '}');
}

static void write_details(struct trace_html *h, const struct kept *k, struct strbuf *svg,
                          const struct diagram_flush *flush, struct strbuf *out)
{
    sb_addf(out, "\"%ld\":{\"svg\":", k->row);
    put_svg(h, k, svg, flush, out);
    sb_adds(out, ",\"messages\":[");
    for (size_t i = 0; i < k->n; i++) {
        if (i)
            sb_addc(out, ',');
        put_message(h, &k->messages[i], flush, out);
        diagram_flush_when_full(flush, out);
    }
    sb_adds(out, "]}");
}

/* Every kept conversation with a row; returns how many, and the messages their rows count. */
static size_t write_all_details(struct trace_html *h, const struct diagram_flush *flush,
                                struct strbuf *out, unsigned long long *messages)
{
    struct strbuf svg = STRBUF_INIT;
    size_t n = 0;
    struct list *lists[] = {&h->flagged, &h->plain};
    for (size_t i = 0; i < 2; i++)
        for (const struct kept *k = LIST_ITEM(lists[i]->head, struct kept, link); k;
             k = LIST_ITEM(k->link.next, struct kept, link)) {
            if (k->row < 0)
                continue;
            if (n++)
                sb_addc(out, ',');
            write_details(h, k, &svg, flush, out);
            *messages += k->summary_messages;
            diagram_flush_when_full(flush, out);
        }
    sb_free(&svg);
    return n;
}

/* The files read and the span of message time, for the heading. */
static void write_captures(struct trace_html *h, struct strbuf *out)
{
    struct jsonout w;
    json_start(&w, out);
    jsonout_begin_object(&w);
    jsonout_key(&w, "files");
    jsonout_begin_array(&w);
    for (size_t i = 0; i < h->ncaptures; i++)
        jsonout_string_or_null(&w, h->captures[i]);
    jsonout_end_array(&w);
    jsonout_key(&w, "more");
    jsonout_integer(&w, (json_int_t)h->more_captures);
    jsonout_key(&w, "first");
    jsonout_number(&w, h->first_time);
    jsonout_key(&w, "last");
    jsonout_number(&w, h->last_time);
    jsonout_end_object(&w);
}

static void write_diagnostics(struct trace_html *h, const struct diagram_flush *flush,
                              struct strbuf *out)
{
    sb_adds(out, "{\"columns\":[\"file\",\"line\",\"severity\",\"code\",\"message\",\"row\"],"
                 "\"rows\":[");
    for (size_t i = 0; i < h->ndiagnostics; i++) {
        const struct page_diagnostic *d = &h->diagnostics[i];
        sb_adds(out, i ? ",\n" : "\n");
        struct jsonout w;
        json_start(&w, out);
        jsonout_begin_array(&w);
        put_name(h, &w, d->file);
        jsonout_integer(&w, (json_int_t)d->line);
        jsonout_string_or_null(&w, diag_severity_word(d->severity));
        jsonout_string_or_null(&w, d->code);
        jsonout_string_or_null(&w, d->message);
        if (d->row >= 0)
            jsonout_integer(&w, d->row);
        else
            jsonout_null(&w);
        jsonout_end_array(&w);
        diagram_flush_when_full(flush, out);
    }
    sb_adds(out, "]}");
}

static void write_outside_kinds(struct trace_html *h, struct strbuf *out)
{
    struct strmap_entries e = strmap_sorted(h->outside_kinds);
    struct jsonout w;
    json_start(&w, out);
    jsonout_begin_object(&w);
    for (size_t i = 0; i < e.n; i++) {
        jsonout_key(&w, e.v[i].key);
        jsonout_integer(&w, (json_int_t) * (unsigned long long *)e.v[i].value);
    }
    jsonout_end_object(&w);
    free(e.v);
}

void trace_html_finish(struct trace_html *h, const struct trace_stats *stats,
                       const struct diagram_flush *flush, struct strbuf *out)
{
    begin_page(h, out);
    sb_adds(out, "\n]},\"strings\":");
    struct jsonout w;
    json_start(&w, out);
    jsonout_begin_array(&w);
    for (size_t i = 0; i < h->nstrings; i++)
        jsonout_string_or_null(&w, h->strings[i]);
    jsonout_end_array(&w);
    h->strings_written = true;
    sb_adds(out, ",\n\"stats\":");
    sb_reset(&h->json);
    trace_stats_write(stats, &h->json);
    jsonout_text(json_start(&w, out), h->json.buf ? h->json.buf : "", h->json.len);
    sb_adds(out, ",\"details\":{");
    unsigned long long kept_messages = 0;
    size_t kept = write_all_details(h, flush, out, &kept_messages);
    sb_adds(out, "},\n\"captures\":");
    write_captures(h, out);
    sb_adds(out, ",\n\"diagnostics\":");
    write_diagnostics(h, flush, out);
    sb_addf(out,
            ",\n\"omitted\":{\"conversations\":%llu,\"messages\":%llu,\"outside\":%llu,"
            "\"outside_kinds\":",
            (unsigned long long)h->rows - kept, h->row_messages - kept_messages, h->outside);
    write_outside_kinds(h, out);
    sb_addf(out,
            ",\"outside_other\":%llu,\"diagnostics\":%llu,\"diagnostics_max\":%d,"
            "\"max_arrows\":%lu,\"kept_max\":%d}}</script>\n<script>",
            h->outside_other, h->diagnostics_omitted, TRACE_HTML_DIAGNOSTICS_MAX, h->max_arrows,
            TRACE_HTML_KEPT_MAX);
    sb_adds(out, trace_html_script);
    sb_adds(out, "</script>\n</body>\n</html>\n");
}
