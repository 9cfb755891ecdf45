/* acp-trace: tells the story of each conversation of a stream of IACP and FIPA messages: a summary
 * of each as it ends, the statistics of the whole stream, or a sequence diagram. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jsonout.h"
#include "base/keyform.h"
#include "base/siphash.h"
#include "diag/findings.h"
#include "engine/engine.h"
#include "io/terminal.h"
#include "proto/acl.h"
#include "proto/dialect.h"
#include "proto/fipa.h"
#include "report/tracediagram.h"
#include "report/tracehtml.h"
#include "report/tracestats.h"
#include "report/tracesummary.h"
#include "tool/filter.h"

enum {
    OPT_FORMAT = OPT_TOOL,
    OPT_FOLLOW,
    OPT_BY_AGENT,
    OPT_SHARD,
    OPT_PARTITION,
    OPT_SPAN_SECRET,
    OPT_MERGE_STATS,
    OPT_MERGE,
    OPT_HIDE,
    OPT_MAX_ARROWS,
    OPT_NO_TIMES,
    OPT_PAGE_SIZE,
    OPT_WIDTH,
};

static const struct opt trace_options[] = {
    {"format", OPT_FORMAT, required_argument, "FORMAT",
     "summary (default), stats, report, html, mermaid, plantuml, svg or text"},
    {"follow", OPT_FOLLOW, required_argument, "ID",
     "only conversation ID (or those under ID/: an MCP session's); without --format, their "
     "messages verbatim"},
    {"by-agent", OPT_BY_AGENT, no_argument, NULL, "stats and report: latencies per agent too"},
    {"shard", OPT_SHARD, required_argument, "K/N", "follow only the conversations of shard K of N"},
    {"partition", OPT_PARTITION, required_argument, "K/N",
     "trace partition K of N alone: the messages whose key NATS maps there (acp(7))"},
    {"span-secret", OPT_SPAN_SECRET, required_argument, "FILE",
     "with --partition: the secret of the digests of long names and ids, shared by the "
     "partitions (32 hex digits in FILE)"},
    {"merge-stats", OPT_MERGE_STATS, no_argument, NULL,
     "merge the --format=stats objects in the FILEs"},
    {"merge", OPT_MERGE, no_argument, NULL,
     "merge the summaries of the --partition runs in the FILEs"},
    {"hide", OPT_HIDE, required_argument, "KIND,...",
     "diagrams, the report and the stats leave out these kinds or performatives"},
    {"max-arrows", OPT_MAX_ARROWS, required_argument, "N",
     "diagrams stop after N arrows, html keeps N arrows' messages (default 10000)"},
    {"no-times", OPT_NO_TIMES, no_argument, NULL,
     "diagrams leave out each message's time and delta"},
    {"page-size", OPT_PAGE_SIZE, required_argument, "N",
     "diagrams: at most N messages a page (default: as many as fit)"},
    {"width", OPT_WIDTH, required_argument, "N",
     "the text diagram's width (default: the terminal's, else 80)"},
    {"now", OPT_NOW, required_argument, "TIME",
     "relative date-times count from TIME (default: SOURCE_DATE_EPOCH, else the clock)"},
    {NULL, 0, 0, NULL, NULL},
};

enum format {
    FORMAT_SUMMARY,
    FORMAT_STATS,
    FORMAT_REPORT,
    FORMAT_MESSAGES, /* --follow without --format */
    FORMAT_HTML,
    FORMAT_MERMAID,
    FORMAT_PLANTUML,
    FORMAT_SVG,
    FORMAT_TEXT,
};

static const char *const format_names[] = {
    [FORMAT_SUMMARY] = "summary", [FORMAT_STATS] = "stats",     [FORMAT_REPORT] = "report",
    [FORMAT_HTML] = "html",       [FORMAT_MERMAID] = "mermaid", [FORMAT_PLANTUML] = "plantuml",
    [FORMAT_SVG] = "svg",         [FORMAT_TEXT] = "text",
};

enum { DEFAULT_MAX_ARROWS = 10000 };
/* The text diagram's width: --width's least, and what a narrower terminal gets. */
enum { TEXT_WIDTH_MIN = 60 };
/* The line limit of --merge-stats unless --max-line-bytes is given: 1 GiB. */
enum { MERGE_MAX_LINE_BYTES = 1 << 30 };

struct trace {
    enum format format;
    bool format_given;
    const char *follow;
    bool by_agent;
    bool merge;       /* --merge-stats */
    bool merge_spans; /* --merge */
    unsigned long shard, shards;
    unsigned long partition, partitions; /* --partition=K/N */
    struct siphash_key span_secret;      /* --span-secret */
    bool span_secret_given;
    char **hidden; /* kinds and acts (kebab) that diagrams and the counts leave out */
    size_t nhidden;
    unsigned long max_arrows;
    bool no_times;
    unsigned long page_size; /* 0: as many messages a page as its renderer takes */
    unsigned long width;     /* --width; 0: the terminal's, else 80 */
    const struct common_opts *opts;

    struct engine *engine;
    const struct engine_config *engine_config;
    enum engine_digest digest; /* --jobs: workers digest the messages for the stream checks */
    struct trace_stats *stats;
    bool counting; /* the statistics are written (stats, report, html): kept as the run goes */
    struct filter *filter; /* the run, for the engine's callback to write to */
    struct strbuf out;
    struct strbuf session; /* a capture's session as --follow names it */
    struct diag_observer observer;
    bool inside; /* in a message, or at the end: what is found is counted */

    struct trace_diagram *diagram; /* NULL unless a diagram is drawn */
    struct trace_html *html;       /* NULL unless the page is written */

    /* --merge: the summaries are read twice, the second time to be written */
    struct engine_merge *spans;
    bool writing;          /* the second pass */
    size_t input;          /* the file being read, from 1 */
    unsigned long ordinal; /* the record, from 1 in each pass */

    bool follow_matched;   /* a message or a summary of the followed conversation was seen */
    bool follow_errors;    /* an error among the followed conversation's findings */
    char *follow_near;     /* the first conversation whose id ends in "/" --follow, or NULL */
    const char *last_file; /* the display name of the last message's file, or NULL */
};

/* ---- options ---- */

static bool parse_shard(struct trace *t, const char *arg)
{
    const char *slash = strchr(arg, '/');
    char *k = slash ? xstrndup(arg, (size_t)(slash - arg)) : NULL;
    bool ok = k && parse_ulong(k, &t->shard) && parse_ulong(slash + 1, &t->shards) &&
              t->shard >= 1 && t->shard <= t->shards;
    free(k);
    if (!ok)
        options_usage_error("--shard must be K/N with 1 <= K <= N, as in --shard=2/4");
    return ok;
}

static bool parse_hide(struct trace *t, const char *arg)
{
    const char *p = arg;
    do {
        size_t len = strcspn(p, ",");
        char *word = xstrndup(p, len);
        if (!*word) {
            free(word);
            options_usage_error("--hide takes kinds or performatives separated by commas");
            return false;
        }
        enum fipa_act act = fipa_act_parse(word);
        if (act != FIPA_ACT_INVALID) {
            free(word);
            word = xstrdup(fipa_act_name(act, SPELL_KEBAB));
        }
        t->hidden = xrealloc(t->hidden, (t->nhidden + 1) * sizeof *t->hidden);
        t->hidden[t->nhidden++] = word;
        p += len;
    } while (*p++ == ',');
    return true;
}

/* --hide: the report and the statistics leave these kinds out of their counts, as diagrams do
 * out of their arrows. */
static bool kind_hidden(const struct trace *t, const char *kind)
{
    return strv_has(t->hidden, t->nhidden, kind);
}

/* --span-secret=FILE: a file whose first line is 32 hex digits, the 16 bytes of a SipHash key
 * (a file, not the command line, where other users of the machine would read it). */
static bool read_span_secret(const char *path, struct siphash_key *secret)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        options_usage_error("--span-secret: %s: %s", path, strerror(errno));
        return false;
    }
    char line[2 * SIPHASH_KEY_BYTES + 2];
    bool read = fgets(line, sizeof line, in) != NULL;
    fclose(in);
    unsigned char bytes[SIPHASH_KEY_BYTES];
    size_t n = 0;
    while (read && n < SIPHASH_KEY_BYTES && isxdigit((unsigned char)line[2 * n]) &&
           isxdigit((unsigned char)line[2 * n + 1]) &&
           sscanf(line + 2 * n, "%2hhx", &bytes[n]) == 1)
        n++;
    const char *end = line + 2 * n;
    if (!read || n < SIPHASH_KEY_BYTES || (*end && *end != '\n')) {
        options_usage_error("--span-secret: %s must hold 32 hex digits (od -An -N16 -tx1 "
                            "/dev/urandom | tr -d ' \\n' makes them)",
                            path);
        return false;
    }
    *secret = siphash_key_of(bytes);
    return true;
}

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct trace *t = ctx;
    switch (key) {
    case OPT_FORMAT:
        for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
            if (format_names[i] && strcmp(arg, format_names[i]) == 0) {
                t->format = (enum format)i;
                t->format_given = true;
                return true;
            }
        options_usage_error("--format must be summary, stats, report, html, mermaid, plantuml, "
                            "svg or text");
        return false;
    case OPT_FOLLOW:
        t->follow = arg;
        if (!*arg)
            options_usage_error("--follow needs a conversation id");
        return *arg != '\0';
    case OPT_BY_AGENT:
        t->by_agent = true;
        return true;
    case OPT_SHARD:
        return parse_shard(t, arg);
    case OPT_PARTITION:
        return options_partition(arg, &t->partition, &t->partitions);
    case OPT_SPAN_SECRET:
        return t->span_secret_given = read_span_secret(arg, &t->span_secret);
    case OPT_MERGE_STATS:
        t->merge = true;
        return true;
    case OPT_MERGE:
        t->merge_spans = true;
        return true;
    case OPT_HIDE:
        return parse_hide(t, arg);
    case OPT_NO_TIMES:
        t->no_times = true;
        return true;
    case OPT_PAGE_SIZE:
        if (parse_ulong(arg, &t->page_size) && t->page_size > 0)
            return true;
        options_usage_error("--page-size must be a whole number above 0");
        return false;
    case OPT_WIDTH:
        if (parse_ulong(arg, &t->width) && t->width >= TEXT_WIDTH_MIN && t->width <= 100000)
            return true;
        options_usage_error("--width must be a whole number from %d to 100000", TEXT_WIDTH_MIN);
        return false;
    case OPT_MAX_ARROWS:
        if (parse_ulong(arg, &t->max_arrows) && t->max_arrows > 0)
            return true;
        options_usage_error("--max-arrows must be a whole number above 0");
        return false;
    }
    return false;
}

static bool is_diagram(enum format f)
{
    return f >= FORMAT_MERMAID;
}

/* Options that make no sense together are refused before anything is read. */
static bool settle_options(struct trace *t)
{
    if (t->follow && !t->format_given)
        t->format = FORMAT_MESSAGES;
    if (t->merge) {
        if (t->format_given && t->format != FORMAT_STATS && t->format != FORMAT_REPORT) {
            options_usage_error("--merge-stats writes --format=stats or report");
            return false;
        }
        if (!t->format_given)
            t->format = FORMAT_STATS;
        if (t->follow || t->shards || t->partitions) {
            options_usage_error("--merge-stats reads statistics: --follow, --shard and "
                                "--partition do not apply");
            return false;
        }
    }
    if (t->merge_spans &&
        (t->merge || t->format_given || t->follow || t->shards || t->partitions)) {
        options_usage_error("--merge reads the summaries of --partition runs and writes "
                            "summaries: --merge-stats, --format, --follow, --shard and "
                            "--partition do not apply");
        return false;
    }
    if (t->span_secret_given && !t->partitions) {
        options_usage_error("--span-secret is for the partitions of a run: give --partition");
        return false;
    }
    if (t->shards && t->partitions) {
        options_usage_error("--shard and --partition exclude each other: a shard reads the "
                            "whole input, a partition its share");
        return false;
    }
    return true;
}

/* `acp-trace --follow capture.jsonl`, the id forgotten, would take the file for the id and
 * wait on standard input: a --follow naming a file, with no FILE to read, is a usage error ('-'
 * reads standard input on purpose). */
static bool follow_is_no_file(const struct trace *t, int nfiles)
{
    if (!t->follow || nfiles > 0 || access(t->follow, F_OK) != 0)
        return true;
    options_usage_error("--follow takes a conversation id, not the file to read: --follow=ID FILE "
                        "(FILE '-' for standard input)");
    return false;
}

/* ---- what is found ---- */

/* --follow: what stderr shows of the findings as they are reported. Those of the followed
 * conversation are shown when it ends (summary_done), from what it kept; as they are reported
 * it is not yet known whose they are (a FIPA reply before its conversation is found). */
static bool shown_now(void *ctx, const struct diag_finding *finding)
{
    (void)ctx;
    return finding->where->line == 0; /* about a file or the run, not a message */
}

static void observe_finding(void *ctx, const struct diag_finding *f)
{
    struct trace *t = ctx;
    /* In shards other than 1, what the filter reports of records that are no messages is
     * reported by every shard, and counted by shard 1. */
    if (!t->inside && t->shard > 1)
        return;
    if (!t->follow && t->counting)
        trace_stats_finding(t->stats, f->code);
    else if (f->severity == SEV_ERROR && shown_now(t, f))
        t->follow_errors = true; /* an error about a file or the run is the run's */
    if (t->diagram)
        trace_diagram_finding(t->diagram, f);
    if (t->html)
        trace_html_finding(t->html, f);
}

/* ---- conversations ---- */

/* --follow=ID: the conversation ID, or every one whose name it begins, up to a '/' (an MCP
 * session's requests, SESSION/ID, and its messages outside them, SESSION). */
static bool followed(const struct trace *t, const char *conversation)
{
    if (!t->follow)
        return true;
    if (!conversation)
        return false;
    size_t n = strlen(t->follow);
    return strncmp(conversation, t->follow, n) == 0 &&
           (conversation[n] == '\0' || conversation[n] == '/');
}

/* Whether id is "PREFIX/" --follow: a --follow=q-00a1 that meant queen/q-00a1. */
static bool follow_near(const struct trace *t, const char *id)
{
    size_t n = strlen(id), k = strlen(t->follow);
    return n > k && id[n - k - 1] == '/' && strcmp(id + n - k, t->follow) == 0;
}

/* What --follow knows m by: its conversation, or, for a message of none, its capture's session
 * (its first bytes, '%' and '/' escaped, as an MCP request's conversation begins). */
static const char *followed_as(struct trace *t, const struct message *m, const char *conversation)
{
    const char *session = message_session(m);
    if (conversation || !t->follow || !session)
        return conversation;
    char *shown = xstrndup(session, key_shown_len(session, strlen(session)));
    message_conversation_owner(&t->session, shown);
    free(shown);
    return t->session.buf;
}

/* Remembers what --follow found, for the warning when it found nothing. */
static void note_conversation(struct trace *t, const char *conversation)
{
    if (!t->follow || !conversation || conversation == ENGINE_ELSEWHERE)
        return;
    if (followed(t, conversation))
        t->follow_matched = true;
    else if (!t->follow_near && follow_near(t, conversation))
        t->follow_near = xstrdup(conversation);
}

/* A --follow that matched nothing would otherwise be an empty output and status 0, which reads
 * as a clean conversation. */
static void warn_follow_unmatched(struct trace *t, struct filter *f)
{
    if (!t->follow || t->follow_matched)
        return;
    const struct diag_where at = {.file = t->last_file ? t->last_file : "<stdin>"};
    if (t->follow_near)
        diag_emit(filter_sink(f), &at, "trace-follow-unmatched",
                  "--follow=%s matched no conversation; did you mean --follow=%s?", t->follow,
                  t->follow_near);
    else
        diag_emit(filter_sink(f), &at, "trace-follow-unmatched",
                  "--follow=%s matched no conversation", t->follow);
}

static void show_followed_findings(struct trace *t, const struct conversation_summary *s)
{
    if (!s->findings)
        return;
    for (size_t i = 0; t->counting && i < s->findings->n; i++)
        trace_stats_finding(t->stats, s->findings->v[i].code);
    findings_print(filter_sink(t->filter), s->findings);
    t->follow_errors = t->follow_errors || s->findings->errors;
}

static void summary_done(void *ctx, const struct conversation_summary *s)
{
    struct trace *t = ctx;
    if (!s->conversation) { /* a span alone (--partition), for --merge: with the summaries */
        if (t->format == FORMAT_SUMMARY && !t->follow) {
            sb_reset(&t->out);
            trace_span_write(s, &t->out);
            filter_write(t->filter, t->out.buf, t->out.len);
        }
        return;
    }
    note_conversation(t, s->conversation);
    if (!followed(t, s->conversation))
        return;
    const char *outcome = trace_outcome(s);
    if (t->counting)
        trace_stats_conversation(t->stats, s, outcome);
    if (t->diagram)
        trace_diagram_outcome(t->diagram, s, outcome);
    if (t->follow)
        show_followed_findings(t, s);
    if (t->format != FORMAT_SUMMARY && !t->html)
        return;
    sb_reset(&t->out);
    if (t->html)
        trace_html_conversation(t->html, s, outcome, &t->out);
    else
        trace_summary_write(s, outcome, &t->out);
    filter_write(t->filter, t->out.buf, t->out.len);
}

/* ---- messages ---- */

static void write_record(struct filter *f, const struct record *rec)
{
    filter_write(f, rec->text, rec->raw_len);
    filter_write(f, "\n", 1);
}

static enum verdict trace_message(void *ctx, struct filter *f, struct message *m)
{
    struct trace *t = ctx;
    t->filter = f;
    if (m->capture.event) { /* a capture's record of its session, no message to trace */
        engine_feed(t->engine, m, filter_sink(f)); /* its end ends what is in progress in it */
        return VERDICT_WRITTEN;
    }
    t->inside = true;
    if (t->diagram)
        trace_diagram_begin(t->diagram, m);
    if (t->html)
        trace_html_begin(t->html, m);
    /* A diagram places each finding at its message: the checks run here, inside it. */
    const char *conversation = t->diagram || t->html
                                   ? engine_check(t->engine, m, filter_sink(f))
                                   : engine_check_passed(t->engine, m, m->passed, filter_sink(f));
    t->last_file = m->rec->file;
    const char *as = followed_as(t, m, conversation);
    note_conversation(t, as);
    if (conversation != ENGINE_ELSEWHERE && followed(t, as)) {
        const char *kind = message_act(m), *sender = message_sender(m);
        if (t->counting && !kind_hidden(t, kind))
            trace_stats_message(t->stats, kind, sender);
        if (t->format == FORMAT_MESSAGES)
            write_record(f, m->rec);
        if (t->diagram)
            trace_diagram_message(t->diagram, m, kind, sender, conversation);
        if (t->html)
            trace_html_message(t->html, m, kind, sender, conversation);
    }
    if (t->diagram)
        trace_diagram_end(t->diagram);
    if (t->html)
        trace_html_end(t->html);
    t->inside = false;
    return VERDICT_WRITTEN;
}

/* Without a diagram, the per-message checks, which --jobs runs in worker threads. */
static bool check_alone(void *ctx, struct message *m, struct jscan *scratch, struct diag_sink *sink)
{
    (void)scratch;
    struct trace *t = ctx;
    return engine_check_message(t->engine_config, m, t->digest, sink);
}

/* ---- the end ---- */

static void flush_view(void *ctx, struct strbuf *out)
{
    struct trace *t = ctx;
    filter_write(t->filter, out->buf, out->len);
    sb_reset(out);
}

/* The text diagram's width: --width, else a terminal's at the least TEXT_WIDTH_MIN, else 0 (the
 * format's own 80), for output that is no terminal. */
static unsigned long text_width(const struct trace *t, unsigned columns)
{
    if (t->width)
        return t->width;
    if (columns == 0)
        return 0;
    return columns > TEXT_WIDTH_MIN ? columns : TEXT_WIDTH_MIN;
}

/* A diagram beyond what its renderer takes by default, even in pages, says so. */
static void warn_too_big(struct trace *t, struct filter *f, const struct diagram_fit *fit)
{
    if (!fit->too_big)
        return;
    const struct diag_where at = {.file = t->last_file ? t->last_file : "<stdin>"};
    if (t->format == FORMAT_SVG && fit->pages > 0 &&
        (fit->width > DIAGRAM_SVG_MAX || fit->height > DIAGRAM_SVG_MAX))
        diag_emit(filter_sink(f), &at, "trace-diagram-size",
                  "the SVG is %zux%zu pixels in %zu pages, more than rsvg-convert draws (%d "
                  "either way): draw less with --follow=ID or --hide=KIND, or in smaller pages "
                  "with --page-size=N",
                  fit->width, fit->height, fit->pages, DIAGRAM_SVG_MAX);
    else
        diag_emit(filter_sink(f), &at, "trace-diagram-size",
                  "a message is more than a page of the %s diagram holds: draw less with "
                  "--follow=ID or --hide=KIND, or in smaller pages with --page-size=N",
                  format_names[t->format]);
}

static void write_views(struct trace *t, struct filter *f)
{
    t->filter = f;
    sb_reset(&t->out);
    if (t->format == FORMAT_STATS) {
        trace_stats_write(t->stats, &t->out);
    } else if (t->format == FORMAT_REPORT) {
        trace_stats_report(t->stats, &t->out);
    } else if (t->html) {
        trace_html_finish(t->html, t->stats, &(struct diagram_flush){.flush = flush_view, .ctx = t},
                          &t->out);
    } else if (t->diagram) {
        struct diagram_fit fit = {0};
        int fd = filter_output_fd(f);
        unsigned columns = terminal_columns(fd);
        trace_diagram_write(t->diagram,
                            &(struct diagram_layout){
                                .no_times = t->no_times,
                                .page_size = t->page_size,
                                .width = text_width(t, columns),
                                .color = options_color_on(t->opts, fd),
                                .flush = &(struct diagram_flush){.flush = flush_view, .ctx = t},
                                .fit = &fit},
                            &t->out);
        warn_too_big(t, f, &fit);
    }
    filter_write(f, t->out.buf, t->out.len);
}

static void end_of_input(void *ctx, struct filter *f)
{
    struct trace *t = ctx;
    t->filter = f;
    t->inside = true;
    engine_finish(t->engine, filter_sink(f));
    warn_follow_unmatched(t, f);
    t->inside = false;
    write_views(t, f);
}

/* SIGINT or --max-errors: what is open is handed over as open, and the views are written. */
static void cut_short(void *ctx, struct filter *f)
{
    struct trace *t = ctx;
    t->filter = f;
    engine_hand_over(t->engine);
    write_views(t, f);
}

static double idle(void *ctx, struct filter *f)
{
    struct trace *t = ctx;
    t->filter = f;
    t->inside = true;
    double wait = engine_idle(t->engine, filter_sink(f));
    t->inside = false;
    return wait;
}

/* ---- --merge-stats ---- */

static enum verdict merge_message(void *ctx, struct filter *f, struct message *m)
{
    struct trace *t = ctx;
    const char *why;
    unsigned long long left_out = trace_stats_pairs_left_out(t->stats);
    if (!trace_stats_merge(t->stats, message_tree(m), &why))
        diag_emit(filter_sink(f), &m->at, "trace-stats-invalid", "%s: it cannot be merged", why);
    else if (trace_stats_pairs_left_out(t->stats) > left_out)
        diag_emit(filter_sink(f), &m->at, "trace-stats-capped",
                  "%llu latency pair(s) past the first %d left out of the merge",
                  trace_stats_pairs_left_out(t->stats) - left_out, TRACE_STATS_PAIRS_MAX);
    return VERDICT_WRITTEN;
}

static void merge_end(void *ctx, struct filter *f)
{
    write_views(ctx, f);
}

/* ---- --merge ---- */

static void span_next_file(void *ctx, struct filter *f, const char *path)
{
    struct trace *t = ctx;
    (void)f;
    (void)path;
    t->input++;
}

static enum verdict span_message(void *ctx, struct filter *f, struct message *m)
{
    struct trace *t = ctx;
    json_t *record = message_tree(m);
    t->ordinal++;
    if (!t->writing) {
        const char *why;
        if (!engine_merge_collect(t->spans, record, t->input, t->ordinal, &m->at, &why))
            diag_emit(filter_sink(f), &m->at, "trace-span-invalid", "%s: it cannot be merged", why);
        return VERDICT_WRITTEN;
    }
    if (!json_object_get(record, "span"))
        return VERDICT_PASS;
    const char *type = json_string_value(json_object_get(record, "type"));
    if (type && strcmp(type, "span") == 0) /* a span alone: merged, not a summary */
        return VERDICT_WRITTEN;
    engine_merge_patch(t->spans, record, t->ordinal);
    sb_reset(&t->out);
    jsonout_line(&t->out, record);
    filter_write(f, t->out.buf, t->out.len);
    return VERDICT_WRITTEN;
}

/* After the first pass: what spans the partitions, then the summaries again. */
static bool span_next_pass(void *ctx, struct filter *f)
{
    struct trace *t = ctx;
    if (t->writing)
        return false;
    engine_merge_settle(t->spans, filter_sink(f));
    t->writing = true;
    t->input = 0;
    t->ordinal = 0;
    return true;
}

/* Its files are read twice: standard input cannot be. */
static bool merge_reads_files(char **files, int nfiles)
{
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i], "-") == 0)
            nfiles = 0;
    if (nfiles > 0)
        return true;
    options_usage_error("--merge reads its FILEs twice: give the partitions' summaries as files, "
                        "not standard input");
    return false;
}

/* ---- main ---- */

static const char help_tail[] =
    "A conversation's summary is written --linger after it ends (late replies still\n"
    "land in it), or when it times out, one JSON object a line; its outcome is done,\n"
    "failed, refused, rejected,\n"
    "not-understood, cancelled, timeout, violated or open. --format=stats writes one\n"
    "object for the whole stream, which --merge-stats merges with others (e.g. the\n"
    "shards of a run). --format=html writes one page to open in a browser, offline:\n"
    "the statistics, every conversation, and the diagrams and messages of those of\n"
    "--max-arrows arrows, those with findings first. --color governs the text\n"
    "diagram's colours too.\n";

static void trace_free(struct trace *t)
{
    engine_free(t->engine);
    engine_merge_free(t->spans);
    trace_stats_free(t->stats);
    trace_diagram_free(t->diagram);
    trace_html_free(t->html);
    for (size_t i = 0; i < t->nhidden; i++)
        free(t->hidden[i]);
    free(t->hidden);
    free(t->follow_near);
    sb_free(&t->out);
    sb_free(&t->session);
}

static enum diagram_format diagram_format(enum format f)
{
    switch (f) {
    case FORMAT_MERMAID:
        return DIAGRAM_MERMAID;
    case FORMAT_PLANTUML:
        return DIAGRAM_PLANTUML;
    case FORMAT_SVG:
        return DIAGRAM_SVG;
    default:
        return DIAGRAM_TEXT;
    }
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-trace");
    struct trace t = {.format = FORMAT_SUMMARY, .max_arrows = DEFAULT_MAX_ARROWS};
    const struct tool_spec spec = {
        .name = "acp-trace",
        .usage = "[OPTION]... [FILE]...",
        .summary = "Tell the story of each conversation in a stream of IACP 1.1, FIPA ACL and\n"
                   "MCP messages (each request one): a summary of each as it ends, statistics of\n"
                   "latency and anomalies, or a sequence diagram.",
        .options = trace_options,
        .groups = GROUP_CHECKS | GROUP_ENGINE | GROUP_LINGER | GROUP_LIVE | GROUP_FIPA |
                  GROUP_PROGRESS | GROUP_JOBS,
        .help_tail = help_tail,
        .handle = handle_option,
        .ctx = &t,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0 || !settle_options(&t) || !follow_is_no_file(&t, argc - first) ||
        (t.merge_spans && !merge_reads_files(argv + first, argc - first))) {
        options_free(&opts);
        trace_free(&t);
        return 2;
    }
    t.opts = &opts;
    opts.engine.shard = t.shard;
    opts.engine.shards = t.shards;
    opts.engine.partition = t.partition;
    opts.engine.partitions = t.partitions;
    opts.engine.span_secret = t.span_secret_given ? &t.span_secret : NULL;
    t.stats = trace_stats_new(t.by_agent, opts.engine.max_open);
    t.counting = t.format == FORMAT_STATS || t.format == FORMAT_REPORT || t.format == FORMAT_HTML;
    t.observer = (struct diag_observer){.notify = observe_finding, .ctx = &t};
    int status;
    if (t.merge_spans) {
        t.spans = engine_merge_new(&opts.engine);
        const struct filter_config cfg = {
            .opts = &opts, .protocol = CHOOSE_AUTO, .mode = READ_JSON, .observer = &t.observer};
        const struct filter_ops ops = {.message = span_message,
                                       .next_file = span_next_file,
                                       .next_pass = span_next_pass,
                                       .ctx = &t};
        status = filter_run(&cfg, &ops, argv + first, argc - first);
    } else if (t.merge) {
        /* A statistics object is one line, as long as the agents and kinds it tells apart make
         * it (--max-open bounds them): the default limit, meant for messages, would refuse what
         * a shard wrote. */
        if (!opts.max_line_bytes_given)
            opts.max_line_bytes = MERGE_MAX_LINE_BYTES;
        const struct filter_config cfg = {
            .opts = &opts, .protocol = CHOOSE_AUTO, .mode = READ_JSON, .observer = &t.observer};
        const struct filter_ops ops = {
            .message = merge_message, .end_of_input = merge_end, .ctx = &t};
        status = filter_run(&cfg, &ops, argv + first, argc - first);
    } else {
        t.engine = engine_new(&opts.engine, summary_done, &t);
        t.engine_config = &opts.engine;
        /* the summaries and the diagrams read the message too */
        t.digest = opts.jobs != 1 ? DIGEST_MADE : DIGEST_NONE;
        if (is_diagram(t.format))
            t.diagram =
                trace_diagram_new(diagram_format(t.format), t.follow ? t.follow : "acp-trace",
                                  t.max_arrows, t.hidden, t.nhidden);
        if (t.format == FORMAT_HTML)
            t.html = trace_html_new(t.max_arrows, t.hidden, t.nhidden, t.no_times);
        const struct filter_config cfg = {
            .opts = &opts,
            .protocol = CHOOSE_AUTO,
            .mode = READ_AUTO,
            .observer = &t.observer,
            .shows = t.follow ? shown_now : NULL,
            .partition = {.k = t.partition, .n = t.partitions, .queen = opts.engine.queen}};
        const struct filter_ops ops = {
            .prepare = t.diagram || t.html ? NULL : check_alone,
            .message = trace_message,
            .end_of_input = end_of_input,
            .cut_short = cut_short,
            .idle = opts.engine.wall_clock ? idle : NULL,
            .parse_acl = acl_parse_hook,
            .ctx = &t,
            .heavy_in_order = true,
        };
        status = filter_run(&cfg, &ops, argv + first, argc - first);
        /* --follow: the findings of that conversation say whether it went wrong */
        if (t.follow && status <= 1)
            status = t.follow_errors ? 1 : 0;
    }
    trace_free(&t);
    options_free(&opts);
    return status;
}
