/* IACP -> FIPA in two steps against the whole conversion, as --jobs splits it: each line that is
 * a JSON object is converted by convert_iacp_to_fipa with one converter, and with another by
 * convert_iacp_draft (the line written straight from the view) then convert_iacp_trail and
 * convert_iacp_follow (conversation_id filled in). Properties: the two lines are the same byte
 * for byte, and so are their diagnostics; a draft that convert_fipa_line_passes lets go unchecked
 * passes the FIPA rules of both profiles; the draft's view built for the string form's writer
 * (convert_iacp_draft_view), written as JSON, is the draft's line byte for byte (the driver
 * fipa-view compares the two views node for node). */
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "fuzz.h"
#include "proto/fipa.h"
#include "proto/jscan.h"
#include "proto/message.h"

struct way {
    struct converter *converter;
    struct fuzz_sink diagnostics;
    struct strbuf line;
};

static void way_begin(struct way *w)
{
    static const struct convert_config cfg = {
        .idle_timeout = 3600, .max_open = 64, .clock_skew = 30, .seed = 5, .now = 1700000000};
    w->converter = converter_new(&cfg);
    fuzz_sink_begin(&w->diagnostics, false);
    w->line = (struct strbuf)STRBUF_INIT;
}

static void way_end(struct way *w)
{
    converter_free(w->converter);
    fuzz_sink_end(&w->diagnostics);
    sb_free(&w->line);
}

static void whole(struct way *w, const struct jv *iacp, const struct diag_where *at)
{
    json_t *fipa = convert_iacp_to_fipa(w->converter, iacp, &w->diagnostics.sink, at);
    if (!fipa)
        return;
    struct jsonout out;
    jsonout_init(&out, &w->line, JSONOUT_VALID | JSONOUT_TERMINAL);
    jsonout_value(&out, fipa);
    sb_addc(&w->line, '\n');
    json_decref(fipa);
}

/* Whether the FIPA rules of a profile find no error in a draft line, read as acp-convert
 * reads one. */
static bool draft_valid(struct jscan *js, const struct strbuf *line, enum fipa_profile profile)
{
    struct record rec = {.kind = REC_LINE, .text = line->buf, .len = line->len - 1};
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    struct message m;
    bool valid = message_read(&m, &rec, js, CHOOSE_FIPA, NULL, &quiet);
    if (valid) {
        struct fipa_rules rules = {.profile = profile};
        unsigned long errors = quiet.errors;
        fipa_check(&m, &rules, &quiet);
        valid = quiet.errors == errors;
        message_clear(&m);
    }
    diag_sink_free(&quiet);
    return valid;
}

/* The draft's view, built, written as the line was (before its hole is filled). */
static void same_draft_view(const struct jv *iacp, const struct strbuf *line, enum draft draft,
                            const struct diag_where *at)
{
    struct jscan *built = jscan_new();
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    const struct jv *view = NULL;
    FUZZ_ASSERT(convert_iacp_draft_view(iacp, SPELL_SNAKE, built, &view, &quiet, at) == draft,
                "line %lu: the draft's view and its line are drafts of different kinds", at->line);
    diag_sink_free(&quiet);
    struct strbuf written = STRBUF_INIT;
    struct jsonout w;
    jsonout_init(&w, &written, JSONOUT_VALID | JSONOUT_TERMINAL);
    jv_write_json(&w, view);
    sb_addc(&written, '\n');
    FUZZ_ASSERT(written.len == line->len && memcmp(written.buf, line->buf, line->len) == 0,
                "line %lu: the draft's view built writes %.*s where its line is %.*s", at->line,
                (int)written.len, written.buf, (int)line->len, line->buf);
    sb_free(&written);
    jscan_free(built);
}

static void split(struct way *w, const struct jv *iacp, const struct diag_where *at,
                  struct jscan *scratch)
{
    size_t hole = 0;
    enum draft draft =
        convert_iacp_draft(iacp, NULL, SPELL_SNAKE, &w->line, &hole, &w->diagnostics.sink, at);
    if (draft == DRAFT_NEEDS_STREAM)
        whole(w, iacp, at);
    if (draft != DRAFT_WHOLE && draft != DRAFT_HOLE)
        return;
    same_draft_view(iacp, &w->line, draft, at);
    FUZZ_ASSERT(!convert_fipa_line_passes(iacp) ||
                    (draft_valid(scratch, &w->line, FIPA_PROFILE_CAXTON) &&
                     draft_valid(scratch, &w->line, FIPA_PROFILE_STANDARD)),
                "line %lu: the draft passes by construction, not by the FIPA rules: %.*s", at->line,
                (int)w->line.len, w->line.buf);
    struct iacp_trail *trail = convert_iacp_trail(iacp, NULL);
    const char *conversation = convert_iacp_follow(w->converter, trail);
    if (draft == DRAFT_HOLE) {
        FUZZ_ASSERT(conversation, "a draft with a hole, and no conversation_id for it");
        FUZZ_ASSERT(hole + CONVERT_HOLE_LEN <= w->line.len &&
                        memcmp(w->line.buf + hole, "\"\"", CONVERT_HOLE_LEN) == 0,
                    "the hole is not where the draft's conversation_id is");
        struct strbuf filled = STRBUF_INIT;
        convert_fill_hole(&filled, &w->line, hole, conversation);
        sb_free(&w->line);
        w->line = filled;
    }
    free(trail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct way a, b;
    way_begin(&a);
    way_begin(&b);
    struct jscan *js = jscan_new();
    struct jscan *scratch = jscan_new();
    struct fuzz_lines lines;
    struct record rec;
    fuzz_lines_init(&lines, data, size);
    while (fuzz_next_line(&lines, &rec)) {
        const struct jv *iacp = jscan_scan(js, rec.text, rec.len);
        if (!jv_is_object(iacp))
            continue;
        struct diag_where at = {.file = "-", .line = rec.line};
        sb_reset(&a.line);
        sb_reset(&b.line);
        whole(&a, iacp, &at);
        split(&b, iacp, &at, scratch);
        FUZZ_ASSERT(a.line.len == b.line.len &&
                        (!a.line.len || memcmp(a.line.buf, b.line.buf, a.line.len) == 0),
                    "line %lu: the whole conversion wrote %.*s, the draft %.*s", rec.line,
                    (int)a.line.len, a.line.buf ? a.line.buf : "", (int)b.line.len,
                    b.line.buf ? b.line.buf : "");
        fflush(a.diagnostics.memory);
        fflush(b.diagnostics.memory);
        FUZZ_ASSERT(a.diagnostics.len == b.diagnostics.len &&
                        (!a.diagnostics.len ||
                         memcmp(a.diagnostics.text, b.diagnostics.text, a.diagnostics.len) == 0),
                    "line %lu: the two ways reported different diagnostics", rec.line);
    }
    jscan_free(js);
    jscan_free(scratch);
    way_end(&a);
    way_end(&b);
    return 0;
}
