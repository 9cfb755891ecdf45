/* fipa-view: holds the view of FIPA JSON that acp-convert builds for the string form's writer
 * (convert_iacp_fipa_view, convert_iacp_draft_view) to the scan of the line written for the same
 * IACP message (convert_iacp_fipa_line, convert_iacp_draft, read by jscan_scan_made, as the
 * writer read it before), node for node; and the two to the same outcome. Every line of
 * standard input that is a JSON object is converted both ways, each way followed along the
 * stream by a converter of its own. Prints "messages N, lines N, drafts N" and exits 1, saying
 * which message, at the first difference. Usage: fipa-view <IACP */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/convert.h"
#include "sameview.h"

struct ways {
    struct converter *text, *view;
    struct jscan *input, *line, *built;
    struct diag_sink quiet;
    struct strbuf out;
    unsigned long messages, lines, drafts;
};

static void differ(const struct ways *w, const char *what)
{
    printf("fipa-view: message %lu: %s\n", w->messages, what);
    exit(1);
}

static void compare(const struct ways *w, const struct jv *built)
{
    const struct jv *scanned = jscan_scan_made(w->line, w->out.buf, w->out.len - 1);
    if (!scanned || !built) {
        if (!scanned != !built)
            differ(w, "one way has a view, the other none");
        return;
    }
    size_t node;
    const char *difference = view_difference(scanned, built, &node);
    if (difference) {
        char what[128];
        snprintf(what, sizeof what, "%s (node %zu)", difference, node);
        differ(w, what);
    }
}

/* The body's text as it came, which the line writes as the content: as acp-convert finds it. */
static const struct json_text *body_of(const char *text, size_t len, struct json_text *body)
{
    size_t start, end;
    if (!jscan_member_text(text, len, "body", &start, &end))
        return NULL;
    *body = (struct json_text){text + start, end - start, NULL};
    return body;
}

static void convert_both(struct ways *w, const char *text, size_t len)
{
    const struct jv *iacp = jscan_scan(w->input, text, len);
    if (!jv_is_object(iacp))
        return;
    w->messages++;
    struct json_text body;
    const struct json_text *kept = body_of(text, len, &body);
    const struct diag_where at = {.line = w->messages};
    size_t hole;
    const struct jv *built = NULL;
    sb_reset(&w->out);
    enum draft draft =
        convert_iacp_draft(iacp, kept, SPELL_SNAKE, &w->out, &hole, &w->quiet, &at);
    if (convert_iacp_draft_view(iacp, SPELL_SNAKE, w->built, &built, &w->quiet, &at) != draft)
        differ(w, "the drafts differ");
    if (draft == DRAFT_WHOLE || draft == DRAFT_HOLE) {
        w->drafts++;
        compare(w, built);
    }
    bool text_body = false, view_body = false;
    sb_reset(&w->out);
    enum fipa_line made =
        convert_iacp_fipa_line(w->text, iacp, kept, &w->out, &text_body, &w->quiet, &at);
    built = NULL;
    if (convert_iacp_fipa_view(w->view, iacp, w->built, &built, &view_body, &w->quiet, &at) !=
            made ||
        text_body != view_body)
        differ(w, "the lines' outcomes differ");
    if (made == FIPA_LINE_WRITTEN) {
        w->lines++;
        compare(w, built);
    }
}

int main(void)
{
    util_set_progname("fipa-view");
    const struct convert_config cfg = {
        .idle_timeout = 3600, .max_open = 100000, .clock_skew = 300, .now = 1312284100};
    struct ways w = {.text = converter_new(&cfg),
                     .view = converter_new(&cfg),
                     .input = jscan_new(),
                     .line = jscan_new(),
                     .built = jscan_new(),
                     .out = STRBUF_INIT};
    diag_sink_init(&w.quiet, NULL);
    w.quiet.quiet = true;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            len--;
        convert_both(&w, line, (size_t)len);
    }
    free(line);
    printf("messages %lu, lines %lu, drafts %lu\n", w.messages, w.lines, w.drafts);
    converter_free(w.text);
    converter_free(w.view);
    jscan_free(w.input);
    jscan_free(w.line);
    jscan_free(w.built);
    diag_sink_free(&w.quiet);
    sb_free(&w.out);
    return 0;
}
