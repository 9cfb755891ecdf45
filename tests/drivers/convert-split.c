/* convert-split: holds the two ways of converting IACP to FIPA to agreement. Every line of
 * standard input (an IACP message) is converted by convert_iacp_to_fipa with one converter and
 * written as acp-convert writes it, and with another by convert_iacp_draft (the line written
 * directly) then convert_iacp_follow (the hole filled), as acp-convert does; the two lines and
 * the two diagnostics must be the same. A line, the draft or the whole conversion's of a kind
 * but fipa.*, that convert_fipa_line_passes says passes the FIPA rules must pass them, in both
 * profiles, as acp-convert would check it (it does not).
 * Lines that are not JSON objects are skipped. Prints a line for each message that differs or
 * passes wrongly, then
 *   messages N, drafts N, holes N, from the stream N, differ N, passes N, wrongly N
 * and exits 1 when any differs or passes wrongly. Usage: convert-split <IACP */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/util.h"
#include "proto/convert.h"
#include "proto/fipa.h"
#include "proto/message.h"

struct way {
    struct converter *converter;
    struct diag_sink sink;
    char *said;
    size_t said_len;
    FILE *diagnostics;
    struct strbuf out;
};

static void way_open(struct way *w, const struct convert_config *cfg)
{
    w->converter = converter_new(cfg);
    w->said = NULL;
    w->diagnostics = open_memstream(&w->said, &w->said_len);
    if (!w->diagnostics)
        die_oom();
    diag_sink_init(&w->sink, w->diagnostics);
    w->out = (struct strbuf)STRBUF_INIT;
}

static void way_close(struct way *w)
{
    diag_sink_free(&w->sink);
    fclose(w->diagnostics);
    free(w->said);
    converter_free(w->converter);
    sb_free(&w->out);
}

/* What a way said of the latest message: its output line (already in out for a draft), then
 * its diagnostics. */
static void way_write(struct way *w, const json_t *fipa)
{
    if (fipa) {
        struct jsonout out;
        jsonout_init(&out, &w->out, JSONOUT_VALID | JSONOUT_TERMINAL);
        jsonout_value(&out, fipa);
        sb_addc(&w->out, '\n');
    }
    fflush(w->diagnostics);
    sb_add(&w->out, w->said, w->said_len);
    rewind(w->diagnostics);
    w->said_len = 0;
}

struct tally {
    unsigned long messages, drafts, holes, streamed, differ, passes, wrongly;
    struct jscan *scratch; /* where a draft is read back to be checked */
};

/* The errors the FIPA rules of a profile find in a draft line, as acp-convert reads it back. */
static unsigned long draft_errors(struct jscan *js, const struct strbuf *line,
                                  enum fipa_profile profile)
{
    struct record rec = {.kind = REC_LINE, .text = line->buf, .len = line->len - 1};
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    struct message m;
    bool read = message_read(&m, &rec, js, CHOOSE_FIPA, NULL, &quiet);
    diag_sink_free(&quiet);
    if (!read)
        return 1;
    struct fipa_rules rules = {.profile = profile};
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    fipa_check(&m, &rules, &quiet);
    unsigned long errors = quiet.errors;
    diag_sink_free(&quiet);
    message_clear(&m);
    return errors;
}

/* Holds convert_fipa_line_passes to what the FIPA rules say of the draft in line. */
static void check_passes(const struct jv *iacp, const struct strbuf *line, unsigned long n,
                         struct tally *t)
{
    if (!convert_fipa_line_passes(iacp))
        return;
    t->passes++;
    if (draft_errors(t->scratch, line, FIPA_PROFILE_CAXTON) == 0 &&
        draft_errors(t->scratch, line, FIPA_PROFILE_STANDARD) == 0)
        return;
    t->wrongly++;
    printf("line %lu: passes by construction, not by the FIPA rules: %s", n, line->buf);
}

/* The other way: a tree when the draft leaves it to the whole conversion, else NULL with the
 * line in w->out. */
static json_t *by_draft(struct way *w, const struct jv *iacp, const struct diag_where *at,
                        struct tally *t)
{
    size_t hole = 0;
    enum draft draft = convert_iacp_draft(iacp, NULL, SPELL_SNAKE, &w->out, &hole, &w->sink, at);
    if (draft == DRAFT_NEEDS_STREAM) {
        t->streamed++;
        return convert_iacp_to_fipa(w->converter, iacp, &w->sink, at);
    }
    if (draft == DRAFT_NONE)
        return NULL;
    t->drafts++;
    check_passes(iacp, &w->out, at->line, t);
    struct iacp_trail *trail = convert_iacp_trail(iacp, NULL);
    const char *conversation = convert_iacp_follow(w->converter, trail);
    if (draft == DRAFT_HOLE) {
        t->holes++;
        struct strbuf filled = STRBUF_INIT;
        convert_fill_hole(&filled, &w->out, hole, conversation);
        sb_free(&w->out);
        w->out = filled;
    }
    free(trail);
    return NULL;
}

int main(void)
{
    util_set_progname("convert-split");
    struct convert_config cfg = {
        .idle_timeout = 3600, .max_open = 100000, .clock_skew = 30, .seed = 1, .now = 0};
    struct way whole, split;
    way_open(&whole, &cfg);
    way_open(&split, &cfg);
    struct tally t = {.scratch = jscan_new()};
    struct jscan *js = jscan_new();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    for (unsigned long n = 1; (len = getline(&line, &cap, stdin)) > 0; n++) {
        json_t *iacp = json_loadb(line, (size_t)len, 0, NULL);
        if (!json_is_object(iacp)) {
            json_decref(iacp);
            continue;
        }
        t.messages++;
        struct diag_where at = {.file = "-", .line = n};
        const struct jv *view = jscan_of_tree(js, iacp);
        sb_reset(&whole.out);
        sb_reset(&split.out);
        json_t *a = convert_iacp_to_fipa(whole.converter, view, &whole.sink, &at);
        const char *kind = jv_member_string(view, "kind");
        if (a && !(kind && strncmp(kind, "fipa.", 5) == 0)) {
            struct strbuf written = STRBUF_INIT;
            jsonout_line(&written, a);
            check_passes(view, &written, n, &t);
            sb_free(&written);
        }
        json_t *b = by_draft(&split, view, &at, &t);
        way_write(&whole, a);
        way_write(&split, b);
        if (whole.out.len != split.out.len || memcmp(whole.out.buf, split.out.buf, whole.out.len)) {
            t.differ++;
            printf("line %lu:\n  whole: %s  split: %s", n, whole.out.buf ? whole.out.buf : "\n",
                   split.out.buf ? split.out.buf : "\n");
        }
        json_decref(a);
        json_decref(b);
        json_decref(iacp);
    }
    free(line);
    jscan_free(js);
    jscan_free(t.scratch);
    way_close(&whole);
    way_close(&split);
    printf("messages %lu, drafts %lu, holes %lu, from the stream %lu, differ %lu, passes %lu, "
           "wrongly %lu\n",
           t.messages, t.drafts, t.holes, t.streamed, t.differ, t.passes, t.wrongly);
    return t.differ || t.wrongly ? 1 : 0;
}
