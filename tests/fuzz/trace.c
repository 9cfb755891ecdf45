/* acp-trace's path: a sequence of messages (IACP and FIPA mixed) through engine_check, with the
 * summary callback writing each conversation's summary, the statistics counting every message,
 * conversation and finding, a diagram of each format drawing them, and the HTML report keeping
 * them, as cmd/acp-trace.c does.
 * Twice: with a tiny --max-open and short timeouts (evictions and expiry on small inputs), and
 * with the defaults as shard 1 of 2. Properties: each summary is one line holding one JSON object
 * of type conversation; the statistics are one JSON object that merges back into the same
 * statistics; the report and the text diagram are printable ASCII lines, the other diagrams valid
 * UTF-8 with no control character but the line end (and, in SVG, nothing that opens a script);
 * the report's data block is valid UTF-8 without '<', '>', '&', U+2028 or U+2029 (nothing can
 * end it), and one JSON object; diagnostics as in every target. */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "base/escape.h"
#include "base/utf8.h"
#include "engine/engine.h"
#include "fuzz.h"
#include "proto/dialect.h"
#include "report/tracediagram.h"
#include "report/tracehtml.h"
#include "report/tracestats.h"
#include "report/tracesummary.h"

enum { FORMATS = 4 };

struct trace {
    struct engine *engine;
    struct trace_stats *stats;
    struct trace_diagram *diagram[FORMATS];
    struct trace_html *html;
    struct strbuf out, page;
    unsigned long lines;
};

static void check_text(const char *what, const char *text, size_t len, bool ascii)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        FUZZ_ASSERT(p[i] == '\n' || (p[i] >= 0x20 && p[i] != 0x7f),
                    "%s: control byte 0x%02x at byte %zu", what, p[i], i);
        FUZZ_ASSERT(!ascii || p[i] < 0x80, "%s: byte 0x%02x at byte %zu is not ASCII", what, p[i],
                    i);
        size_t n = utf8_sequence_length(p + i, len - i);
        FUZZ_ASSERT(n > 0, "%s: invalid UTF-8 at byte %zu", what, i);
        FUZZ_ASSERT(n == 1 || !utf8_acts_on_terminal(utf8_decode(p + i, n)), "%s: U+%04X", what,
                    utf8_decode(p + i, n));
        i += n;
    }
    FUZZ_ASSERT(!len || text[len - 1] == '\n', "%s does not end its last line", what);
}

static void summary_done(void *ctx, const struct conversation_summary *s)
{
    struct trace *t = ctx;
    const char *outcome = trace_outcome(s);
    FUZZ_ASSERT(outcome, "no outcome for %s", s->id);
    trace_stats_conversation(t->stats, s, outcome);
    trace_html_conversation(t->html, s, outcome, &t->page);
    sb_reset(&t->out);
    trace_summary_write(s, outcome, &t->out);
    FUZZ_ASSERT(t->out.len && memchr(t->out.buf, '\n', t->out.len) == t->out.buf + t->out.len - 1,
                "a summary is not one line: %s", t->out.buf);
    json_error_t err;
    json_t *obj = json_loadb(t->out.buf, t->out.len, JSON_REJECT_DUPLICATES, &err);
    FUZZ_ASSERT(json_is_object(obj), "a summary is no JSON object (%s): %s", err.text, t->out.buf);
    const char *type = json_string_value(json_object_get(obj, "type"));
    FUZZ_ASSERT(type && strcmp(type, "conversation") == 0, "a summary's type: %s", t->out.buf);
    json_decref(obj);
}

static void observe(void *ctx, const struct diag_finding *f)
{
    struct trace *t = ctx;
    trace_stats_finding(t->stats, f->code);
    trace_html_finding(t->html, f);
    for (int i = 0; i < FORMATS; i++)
        trace_diagram_finding(t->diagram[i], f);
}

static void trace_message(struct trace *t, const struct message *m, struct diag_sink *sink)
{
    for (int i = 0; i < FORMATS; i++)
        trace_diagram_begin(t->diagram[i], m);
    trace_html_begin(t->html, m);
    const char *conversation = engine_check(t->engine, m, sink);
    if (conversation != ENGINE_ELSEWHERE) {
        const char *kind = message_act(m), *sender = message_sender(m);
        trace_stats_message(t->stats, kind, sender);
        for (int i = 0; i < FORMATS; i++)
            trace_diagram_message(t->diagram[i], m, kind, sender, conversation);
        trace_html_message(t->html, m, kind, sender, conversation);
    }
    for (int i = 0; i < FORMATS; i++)
        trace_diagram_end(t->diagram[i]);
    trace_html_end(t->html);
}

/* The statistics written, merged into new ones, and written again: the same text. */
static void check_stats(struct trace *t, bool by_agent, unsigned long max_names)
{
    sb_reset(&t->out);
    trace_stats_write(t->stats, &t->out);
    json_error_t err;
    json_t *obj = json_loadb(t->out.buf, t->out.len, JSON_REJECT_DUPLICATES, &err);
    FUZZ_ASSERT(json_is_object(obj), "the statistics are no JSON object (%s): %s", err.text,
                t->out.buf);
    struct trace_stats *again = trace_stats_new(by_agent, max_names);
    const char *why = NULL;
    FUZZ_ASSERT(trace_stats_merge(again, obj, &why), "the statistics do not merge back: %s: %s",
                why, t->out.buf);
    struct strbuf text = STRBUF_INIT;
    trace_stats_write(again, &text);
    FUZZ_ASSERT(text.len == t->out.len && memcmp(text.buf, t->out.buf, text.len) == 0,
                "the statistics merged back differ:\n%s%s", t->out.buf, text.buf);
    sb_free(&text);
    trace_stats_free(again);
    json_decref(obj);
    sb_reset(&t->out);
    trace_stats_report(t->stats, &t->out);
    /* Names are escaped as diagnostics escape them: printable UTF-8, not only ASCII. */
    check_text("the report", t->out.buf, t->out.len, false);
}

static void check_diagrams(struct trace *t)
{
    static const char *const names[FORMATS] = {"Mermaid", "PlantUML", "SVG", "the text diagram"};
    for (int i = 0; i < FORMATS; i++) {
        sb_reset(&t->out);
        trace_diagram_write(t->diagram[i], NULL, &t->out);
        check_text(names[i], t->out.buf, t->out.len, i == DIAGRAM_TEXT || i == DIAGRAM_PLANTUML);
        if (i == DIAGRAM_SVG)
            FUZZ_ASSERT(!memmem(t->out.buf, t->out.len, "<script", 7) &&
                            !memmem(t->out.buf, t->out.len, "<!", 2),
                        "the SVG opens a script or a declaration");
    }
}

/* What the page has so far goes on to the whole page, as acp-trace writes it out. */
static void take_page(void *ctx, struct strbuf *out)
{
    struct trace *t = ctx;
    sb_add(&t->out, out->buf, out->len);
    sb_reset(out);
}

static void check_page(struct trace *t)
{
    sb_reset(&t->out);
    trace_html_finish(t->html, t->stats, &(struct diagram_flush){.flush = take_page, .ctx = t},
                      &t->page);
    take_page(t, &t->page);
    static const char open[] = "<script type=\"application/json\" id=\"acp-data\">";
    const char *start = memmem(t->out.buf, t->out.len, open, sizeof open - 1);
    FUZZ_ASSERT(start, "the page has no data block");
    start += sizeof open - 1;
    const char *end = memmem(start, t->out.len - (size_t)(start - t->out.buf), "</script>", 9);
    FUZZ_ASSERT(end, "the data block does not end");
    size_t len = (size_t)(end - start);
    for (size_t i = 0; i < len;) {
        const unsigned char *p = (const unsigned char *)start + i;
        FUZZ_ASSERT(*p != '<' && *p != '>' && *p != '&', "the data block holds '%c' at byte %zu",
                    *p, i);
        size_t n = utf8_sequence_length(p, len - i);
        FUZZ_ASSERT(n > 0, "the data block: invalid UTF-8 at byte %zu", i);
        unsigned cp = utf8_decode(p, n);
        FUZZ_ASSERT(cp != 0x2028 && cp != 0x2029, "the data block holds U+%04X", cp);
        i += n;
    }
    json_error_t err;
    json_t *data = json_loadb(start, len, JSON_REJECT_DUPLICATES, &err);
    FUZZ_ASSERT(json_is_object(data), "the data block is no JSON object: %s", err.text);
    json_decref(data);
}

static void run(const uint8_t *data, size_t size, const struct engine_config *cfg, bool json)
{
    static char *hidden[] = {"hb", "inform-if"};
    struct trace t = {.out = STRBUF_INIT, .page = STRBUF_INIT};
    bool by_agent = cfg->max_open > 2;
    unsigned long max_names = cfg->max_open;
    t.engine = engine_new(cfg, summary_done, &t);
    t.stats = trace_stats_new(by_agent, max_names);
    for (int i = 0; i < FORMATS; i++)
        t.diagram[i] = trace_diagram_new((enum diagram_format)i, "fuzz\x1b[2J", json ? 5 : 10000,
                                         hidden, json ? 0 : 2);
    t.html = trace_html_new(json ? 5 : 10000, hidden, json ? 0 : 2, json);
    struct fuzz_sink s;
    fuzz_sink_begin(&s, json);
    struct diag_observer observer = {.notify = observe, .ctx = &t};
    diag_observe(&s.sink, &observer);
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        t.lines = rec.line;
        json_t *root = message_parse_json(&rec, &s.sink);
        if (!root)
            continue;
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        if (m.proto != PROTO_NONE)
            trace_message(&t, &m, &s.sink);
        message_clear(&m);
    }
    engine_finish(t.engine, &s.sink);
    diag_unobserve(&s.sink, &observer);
    fuzz_sink_end(&s);
    check_stats(&t, by_agent, max_names);
    check_diagrams(&t);
    check_page(&t);
    engine_free(t.engine);
    trace_stats_free(t.stats);
    for (int i = 0; i < FORMATS; i++)
        trace_diagram_free(t.diagram[i]);
    trace_html_free(t.html);
    sb_free(&t.out);
    sb_free(&t.page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct engine_config small;
    engine_config_defaults(&small);
    small.max_open = 2;
    small.idle_timeout = 30;
    small.assign_timeout = 5;
    small.heartbeat_period = 1;
    small.clock_skew = 1;
    small.max_skew = 0.5;
    run(data, size, &small, false);
    struct engine_config defaults;
    engine_config_defaults(&defaults);
    defaults.shard = 1;
    defaults.shards = 2;
    run(data, size, &defaults, true);
    return 0;
}
