/* acp-convert: rewrites a stream of messages from one format into another: IACP 1.1 JSON Lines,
 * Caxton's FIPA JSON Lines, or FIPA's string form as JADE writes it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jsonout.h"
#include "base/strmap.h"
#include "proto/acl.h"
#include "proto/convert.h"
#include "proto/dialect.h"
#include "proto/fipa.h"
#include "proto/iacp.h"
#include "proto/jsonrpc.h"
#include "proto/memberlist.h"
#include "proto/taprecord.h"
#include "tool/filter.h"

enum { OPT_FROM = OPT_TOOL, OPT_TO, OPT_SPELLING };

static const struct opt convert_options[] = {
    {"from", OPT_FROM, required_argument, "FORMAT",
     "input format: iacp, fipa, fipa-acl; tap, mcpsnoop or jsonrpc (an MCP capture's form); "
     "or auto (the default: per message)"},
    {"to", OPT_TO, required_argument, "FORMAT",
     "output format: iacp, fipa, fipa-acl; jsonrpc (MCP's messages bare) or tap (capture "
     "records as acp-tap writes them); required"},
    {"spelling", OPT_SPELLING, required_argument, "STYLE",
     "FIPA performatives as snake (default), kebab or upper"},
    {"idle-timeout", OPT_IDLE_TIMEOUT, required_argument, "SECONDS",
     "message time after which a conversation is forgotten (default 3600)"},
    {"max-open", OPT_MAX_OPEN, required_argument, "N",
     "most conversations remembered for conversation_id (default 100000)"},
    {NULL, 0, 0, NULL, NULL},
};

enum format {
    FORMAT_AUTO,
    FORMAT_IACP,
    FORMAT_FIPA,
    FORMAT_FIPA_ACL,
    FORMAT_JSONRPC,
    FORMAT_TAP,
    FORMAT_MCPSNOOP,
    FORMAT_NONE
};

/* How every line of JSON is written: safe on a terminal, its strings valid UTF-8 already. */
enum { LINE_FLAGS = JSONOUT_VALID | JSONOUT_TERMINAL };

struct convert_run {
    enum format from, to;
    enum fipa_spelling spelling;
    /* --jobs above 1: IACP to the string form, and FIPA to IACP, are drafted in the worker
     * threads, which costs one job more than converting each message whole in order
     * (draft_to_acl, draft_to_iacp) */
    bool drafts;
    struct converter *converter;
    time_t now; /* the time of conversion (--now), which a draft of FIPA of its own may write */
    struct strbuf out;
    struct fipa_rules fipa;
    struct jscan *scan; /* the outputs' views: the input's stays in the filter's */
    /* a message as a line of JSON on its way: FIPA JSON to the string form, IACP to its check */
    struct strbuf line;
    struct member_list members; /* the members of an IACP line made of FIPA */
    /* --to=tap of bare lines, a file a session: its name, its lines so far, and the side of each
     * request in progress by its id (the latest --max-open), which its response answers */
    char *bare_file;
    unsigned long long bare_seq;
    struct strmap *bare_sides;
    unsigned long max_open;
};

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct convert_run *run = ctx;
    switch (key) {
    case OPT_FROM: {
        static const char *const words[] = {"auto",    "iacp", "fipa",     "fipa-acl",
                                            "jsonrpc", "tap",  "mcpsnoop", NULL};
        static const enum format formats[] = {FORMAT_AUTO,     FORMAT_IACP,    FORMAT_FIPA,
                                              FORMAT_FIPA_ACL, FORMAT_JSONRPC, FORMAT_TAP,
                                              FORMAT_MCPSNOOP};
        int i = options_choice("from", arg, words);
        if (i >= 0)
            run->from = formats[i];
        return i >= 0;
    }
    case OPT_TO: {
        static const char *const words[] = {"iacp", "fipa", "fipa-acl", "jsonrpc", "tap", NULL};
        static const enum format formats[] = {FORMAT_IACP, FORMAT_FIPA, FORMAT_FIPA_ACL,
                                              FORMAT_JSONRPC, FORMAT_TAP};
        int i = options_choice("to", arg, words);
        if (i >= 0)
            run->to = formats[i];
        return i >= 0;
    }
    case OPT_SPELLING: {
        static const char *const words[] = {"snake", "kebab", "upper", NULL};
        static const enum fipa_spelling spellings[] = {SPELL_SNAKE, SPELL_KEBAB, SPELL_UPPER};
        int i = options_choice("spelling", arg, words);
        if (i >= 0)
            run->spelling = spellings[i];
        return i >= 0;
    }
    }
    return false;
}

/* The message as FIPA JSON (a new reference), or NULL after an error was reported. */
static json_t *as_fipa(struct convert_run *run, struct message *m, enum protocol proto,
                       struct diag_sink *sink)
{
    if (proto == PROTO_IACP)
        return convert_iacp_to_fipa(run->converter, m->view, sink, &m->at);
    /* Only the performative changes: a copy of the top level will do. */
    json_t *copy = json_copy(message_tree(m));
    const char *performative = json_member_string(copy, "performative");
    if (!convert_respell(copy, SPELL_SNAKE)) {
        diag_emit(sink, &m->at, "convert-fipa",
                  performative ? "'%s' is not a FIPA act; the message cannot be converted"
                               : "%sno string 'performative': the message cannot be converted",
                  performative ? performative : "");
        json_decref(copy);
        return NULL;
    }
    return copy;
}

/* --- the check of the output: what acp-validate --stateless would say of it --- */

/* The protocol of a format of messages: what --from reads, and what a conversion to it writes
 * (FIPA JSON and the string form are FIPA's). */
static enum protocol_choice protocol_choice(enum format format)
{
    switch (format) {
    case FORMAT_IACP:
        return CHOOSE_IACP;
    case FORMAT_FIPA:
    case FORMAT_FIPA_ACL:
        return CHOOSE_FIPA;
    default: /* jsonrpc too: a capture's record read as a bare line speaks no dialect */
        return CHOOSE_AUTO;
    }
}

static void run_check(const struct message *out, const struct fipa_rules *fipa,
                      struct diag_sink *sink)
{
    /* acp-convert is not told the queen's name: the default's, whose direction rules it does not
     * apply (ignored) */
    const struct check_rules rules = {.iacp = {"queen"}, .fipa = *fipa};
    message_check(out, &rules, sink);
}

/* Findings that do not make an output invalid here: the direction rules depend on the queen's
 * name, which acp-convert is not told, and a conversion never changes who sends what. */
static bool ignored(const char *code)
{
    return strcmp(code, "iacp-direction") == 0 || strcmp(code, "iacp-reserved-name") == 0;
}

/* Whether codes, a list "a, b", holds code. */
static bool listed(const struct strbuf *codes, const char *code)
{
    size_t n = strlen(code);
    for (const char *p = codes->buf; p && (p = strstr(p, code)); p += n)
        if ((p == codes->buf || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* Collects the codes of the errors a check finds, each once and comma-separated. */
struct error_codes {
    struct strbuf *codes;
    unsigned long errors;
};

static void collect_error(void *ctx, const struct diag_finding *finding)
{
    struct error_codes *c = ctx;
    if (finding->severity != SEV_ERROR || ignored(finding->code))
        return;
    c->errors++;
    if (!listed(c->codes, finding->code)) {
        if (c->codes->len)
            sb_adds(c->codes, ", ");
        sb_adds(c->codes, finding->code);
    }
}

/* The per-message errors the output protocol's rules find in out: their codes in codes; returns
 * how many. */
static unsigned long output_errors(const struct message *out, const struct fipa_rules *fipa,
                                   struct strbuf *codes)
{
    sb_reset(codes);
    struct error_codes collected = {codes, 0};
    struct diag_observer observer = {.notify = collect_error, .ctx = &collected};
    struct diag_sink probe;
    diag_sink_init(&probe, NULL);
    probe.quiet = true;
    diag_observe(&probe, &observer);
    run_check(out, fipa, &probe);
    diag_sink_free(&probe);
    return collected.errors;
}

/* The members the Caxton guide requires and the standard (SC00061) does not. */
static const char *const caxton_members[] = {"sender", "receiver", "content"};

/* Whether msg has no such member, or only an empty set of agents. */
static bool lacks(const struct jv *msg, const char *member)
{
    const struct jv *v = jv_object_get(msg, member);
    return !v || (jv_is_array(v) && jv_array_size(v) == 0);
}

/* Whether out, which the chosen rules reject, passes the standard profile's. */
static bool standard_allows(const struct message *out, const struct fipa_rules *fipa)
{
    static const struct fipa_rules standard = {.profile = FIPA_PROFILE_STANDARD};
    struct strbuf codes = STRBUF_INIT;
    bool allowed = out->proto == PROTO_FIPA && fipa->profile != FIPA_PROFILE_STANDARD &&
                   output_errors(out, &standard, &codes) == 0;
    sb_free(&codes);
    return allowed;
}

/* An output that acp-validate --stateless would reject is an error for its input, and is not
 * written; one that only the standard FIPA profile allows (no sender, receiver or content, as
 * JADE sends some messages) is written with a warning. out is the output as a message of m's
 * record. */
static bool check_message_out(struct convert_run *run, struct message *m, struct message *out,
                              struct diag_sink *sink)
{
    out->rec = m->rec;
    out->id = NULL;
    out->at = m->at;
    const char *name = out->proto == PROTO_IACP ? "IACP" : "FIPA";
    struct strbuf codes = STRBUF_INIT;
    unsigned long errors = output_errors(out, &run->fipa, &codes);
    bool allowed = errors == 0 || standard_allows(out, &run->fipa);
    if (!allowed)
        diag_emit(sink, &m->at, "convert-output-invalid",
                  "converted to %s, the message breaks its rules (%s); it is not written", name,
                  codes.buf);
    sb_free(&codes);
    if (errors == 0)
        return true;
    if (!allowed)
        return false;
    struct strbuf missing = STRBUF_INIT;
    for (size_t i = 0; i < sizeof caxton_members / sizeof *caxton_members; i++)
        if (lacks(out->view, caxton_members[i]))
            sb_addf(&missing, "%s%s", missing.len ? ", " : "", caxton_members[i]);
    diag_emit(sink, &m->at, "convert-output-standard",
              "converted to FIPA, the message has no %s: valid in the standard profile only",
              missing.buf ? missing.buf : "?");
    sb_free(&missing);
    return true;
}

/* The check of an output made as a tree; js holds its view: the run's own in input order,
 * prepare's scratch scanner in prepare. */
static bool check_output(struct convert_run *run, struct message *m, json_t *result,
                         struct jscan *js, struct diag_sink *sink)
{
    struct message out;
    message_init_in(&out, NULL, json_incref(result), protocol_choice(run->to), js);
    bool ok = check_message_out(run, m, &out, sink);
    message_clear(&out);
    return ok;
}

/* Reads the view of an output, made in a line of JSON the converter wrote (with its newline) or
 * from the members it was written from, as a message of m's record, as a message in the
 * protocol choice says; false, after saying so, when it is no JSON object (never: what the
 * writer writes is JSON). */
static bool read_view_out(struct message *out, const struct message *m, const struct jv *view,
                          enum protocol_choice choice, struct diag_sink *sink)
{
    /* a line's record, not m's: whose syntax may be the string form's */
    struct record rec = {.kind = REC_LINE};
    if (!message_read_view(out, &rec, view, choice)) {
        diag_emit(sink, &m->at, "convert-output-invalid",
                  "converted to %s, the message is no JSON object; it is not written",
                  dialect_of((enum protocol)choice)->display);
        return false;
    }
    out->rec = m->rec; /* not rec, which ends here */
    out->at = m->at;
    return true;
}

/* The same for a line, read in js. */
static bool read_line_out(struct message *out, const struct message *m, const struct strbuf *line,
                          enum protocol_choice choice, struct jscan *js, struct diag_sink *sink)
{
    /* made of values each read on its own: content as deep as jansson reads stays readable */
    return read_view_out(out, m, jscan_scan_made(js, line->buf, line->len - 1), choice, sink);
}

/* The check of an output written as a line of FIPA JSON (with its newline), read in js. */
static bool check_line(struct convert_run *run, struct message *m, const struct strbuf *line,
                       struct jscan *js, struct diag_sink *sink)
{
    struct message out;
    if (!read_line_out(&out, m, line, protocol_choice(run->to), js, sink))
        return false;
    bool ok = check_message_out(run, m, &out, sink);
    message_clear(&out);
    return ok;
}

/* The same for the line members were written as, from the view they build in js: the line is
 * not scanned again. */
static bool check_members(struct convert_run *run, struct message *m,
                          const struct member_list *members, struct jscan *js,
                          struct diag_sink *sink)
{
    struct message out;
    if (!read_view_out(&out, m, member_list_view(members, js), protocol_choice(run->to), sink))
        return false;
    bool ok = check_message_out(run, m, &out, sink);
    message_clear(&out);
    return ok;
}

/* --- the content as it came (issue 22): its text, not this writer's spelling of its value --- */

/* The text a message's content came with, and the value it reads as. */
struct kept_content {
    struct json_text text;
    struct strbuf decoded; /* a string-form content's text */
    json_t *owned;         /* a value made to compare with */
};

static void kept_content_clear(struct kept_content *k)
{
    sb_free(&k->decoded);
    json_decref(k->owned);
}

/* Whether text starts, after white space, with a quote: JSON text that is a string. */
static bool starts_as_string(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", text[i]))
        i++;
    return i < len && text[i] == '"';
}

/* The text of a string form's :content as it came (acl_content_text), when it reads as the
 * content's value (a string content only when its text is that string's JSON), through js. */
static const struct json_text *keep_acl_content(struct kept_content *k, struct message *m,
                                                struct jscan *js)
{
    const struct jv *content = jv_object_get(m->view, "content");
    if (!content || !acl_content_text(m->rec, &k->decoded))
        return NULL;
    if (jv_is_string(content) &&
        !(starts_as_string(k->decoded.buf, k->decoded.len) &&
          jv_equal(jscan_scan(js, k->decoded.buf, k->decoded.len), content)))
        return NULL;
    k->text = (struct json_text){k->decoded.buf, k->decoded.len, NULL};
    return &k->text;
}

/* The member of a JSON line that the output's content (or body) is made of: a FIPA message's
 * content; an IACP message's body, or the x-fipa-content that the way back takes instead. */
static const char *content_member(const struct message *m, enum protocol proto)
{
    if (proto == PROTO_FIPA)
        return "content";
    return jv_object_get(m->view, "x-fipa-content") ? "x-fipa-content" : "body";
}

/* The text a message's content came with, for a line written from its view; NULL when it has
 * none (or its name was spelt with an escape). Its value is not read; js is a scratch scanner. */
static const struct json_text *content_text(struct kept_content *k, struct message *m,
                                            enum protocol proto, struct jscan *js)
{
    if (m->rec->syntax == SYNTAX_ACL)
        return keep_acl_content(k, m, js);
    size_t start, end;
    if (!message_member_text(m, content_member(m, proto), &start, &end))
        return NULL;
    k->text = (struct json_text){m->rec->text + start, end - start, NULL};
    return &k->text;
}

/* The same with the value the text reads as, for a tree's line: tree, the value is to be taken
 * from message_tree (which the conversion makes anyway), else made from the view. */
static const struct json_text *keep_content(struct kept_content *k, struct message *m,
                                            enum protocol proto, bool tree, struct jscan *js)
{
    if (!content_text(k, m, proto, js))
        return NULL;
    const char *name = content_member(m, proto);
    k->text.value = tree ? json_object_get(message_tree(m), name)
                         : (k->owned = jscan_to_tree(jv_object_get(m->view, name)));
    return &k->text;
}

/* The members of a line that may hold the content as it came. */
static bool carries_content(const char *key)
{
    return strcmp(key, "content") == 0 || strcmp(key, "body") == 0 ||
           strcmp(key, "x-fipa-content") == 0;
}

/* A message's members as they are, in their order: the performative, when given, spelt so; a
 * member that carries the content and says what it does (reads as content), as kept's text. */
static void write_view_line(struct strbuf *out, const struct jv *view, const char *performative,
                            const struct json_text *kept, const struct jv *content)
{
    struct jsonout w;
    jsonout_init(&w, out, LINE_FLAGS);
    jsonout_begin_object(&w);
    for (const struct jv *k = jv_object_first(view); k; k = jv_object_next(view, k)) {
        const char *key = jv_string_value(k);
        const struct jv *v = jv_object_value(k);
        jsonout_key(&w, key);
        if (performative && strcmp(key, "performative") == 0)
            jsonout_string(&w, performative, strlen(performative));
        else if (kept && carries_content(key) && (v == content || jv_equal(v, content)))
            jsonout_text(&w, kept->text, kept->len);
        else
            jv_write_json(&w, v);
    }
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}

/* Builds the output in out, so that nothing is written for a message that fails. */
static bool convert_by_tree(struct convert_run *run, struct message *m, enum protocol proto,
                            struct jscan *js, struct diag_sink *sink, struct strbuf *out)
{
    /* to FIPA JSON or the string form: IACP's way by tree, or FIPA to the string form (the rest
     * take lines: fipa_to_iacp, keep_protocol_line, iacp_to_acl, draft_to_fipa) */
    json_t *result = as_fipa(run, m, proto, sink);
    if (!result)
        return false;
    struct kept_content k = {.decoded = STRBUF_INIT};
    /* From IACP to FIPA the conversion reads the view; from FIPA, the tree. */
    const struct json_text *kept = keep_content(&k, m, proto, proto == PROTO_FIPA, js);
    bool ok;
    if (run->to == FORMAT_FIPA_ACL) {
        struct message fipa;
        message_init_in(&fipa, NULL, json_incref(result), CHOOSE_FIPA, js);
        const json_t *content = json_object_get(result, "content");
        /* What the string form cannot carry at all is the more telling report. */
        ok = acl_write(out, fipa.view, run->spelling == SPELL_UPPER,
                       json_text_says(kept, content) ? kept : NULL, sink, &m->at) &&
             check_message_out(run, m, &fipa, sink);
        message_clear(&fipa);
    } else {
        ok = check_output(run, m, result, js, sink);
        /* as_fipa spells snake_case already */
        if (ok && run->to == FORMAT_FIPA && run->spelling != SPELL_SNAKE)
            convert_respell(result, run->spelling);
        if (ok)
            write_view_line(out, jscan_of_tree(js, result), NULL, kept,
                            kept ? jv_object_get(m->view, content_member(m, proto)) : NULL);
    }
    kept_content_clear(&k);
    json_decref(result);
    return ok;
}

/* The text an IACP message's body came with, which the FIPA content is written as where it is
 * the body as it is; false when there is none (or its name was spelt with an escape). */
static bool body_text(const struct message *m, struct json_text *body)
{
    size_t start, end;
    if (!message_member_text(m, "body", &start, &end))
        return false;
    *body = (struct json_text){m->rec->text + start, end - start, NULL};
    return true;
}

/* FIPA (JSON or the string form) to IACP with no tree of the output: the line written from the
 * message's view, then checked as IACP, as acp-validate --stateless would read it. */
static bool fipa_to_iacp(struct convert_run *run, struct message *m, struct jscan *js,
                         struct diag_sink *sink, struct strbuf *out)
{
    struct kept_content k = {.decoded = STRBUF_INIT};
    const struct json_text *kept = content_text(&k, m, PROTO_FIPA, js);
    sb_reset(&run->line);
    bool passes;
    bool ok = convert_fipa_iacp_line(run->converter, m->view, kept, &run->members, &run->line,
                                     LINE_FLAGS, &passes, sink, &m->at) &&
              (passes || check_members(run, m, &run->members, js, sink));
    if (ok)
        sb_add(out, run->line.buf, run->line.len);
    kept_content_clear(&k);
    return ok;
}

/* The act of a FIPA message, or FIPA_ACT_INVALID after saying that it cannot be converted. */
static enum fipa_act act_to_convert(const struct message *m, struct diag_sink *sink)
{
    const char *performative = jv_member_string(m->view, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID)
        diag_emit(sink, &m->at, "convert-fipa",
                  performative ? "'%s' is not a FIPA act; the message cannot be converted"
                               : "%sno string 'performative': the message cannot be converted",
                  performative ? performative : "");
    return act;
}

/* A message that stays in its protocol, written from its view with no tree: checked as its line
 * reads with a FIPA performative in snake_case, then written in the run's spelling. It runs in
 * prepare (convert_alone), in a worker thread under --jobs: nothing of run's is written. */
static bool keep_protocol_line(struct convert_run *run, struct message *m, enum protocol proto,
                               struct jscan *js, struct diag_sink *sink, struct strbuf *out)
{
    enum fipa_act act = FIPA_ACT_INVALID;
    /* dialect: FIPA's performative alone has spellings */
    if (proto == PROTO_FIPA && (act = act_to_convert(m, sink)) == FIPA_ACT_INVALID)
        return false;
    const char *snake = act == FIPA_ACT_INVALID ? NULL : fipa_act_name(act, SPELL_SNAKE);
    struct kept_content k = {.decoded = STRBUF_INIT};
    const struct json_text *kept = content_text(&k, m, proto, js);
    const struct jv *content = kept ? jv_object_get(m->view, content_member(m, proto)) : NULL;
    struct strbuf line = STRBUF_INIT;
    write_view_line(&line, m->view, snake, kept, content);
    bool ok = check_line(run, m, &line, js, sink);
    if (ok && snake && run->spelling != SPELL_SNAKE)
        write_view_line(out, m->view, fipa_act_name(act, run->spelling), kept, content);
    else if (ok)
        sb_add(out, line.buf, line.len);
    sb_free(&line);
    kept_content_clear(&k);
    return ok;
}

enum outcome { OUTCOME_FAILED, OUTCOME_WRITTEN, OUTCOME_BY_TREE };

/* IACP to the string form with no tree: the message's line of FIPA JSON, read back as the view
 * the string form is written from, its content written as the body's text where it is the body
 * as it is; checked, unless it passes by construction. Only a fipa.* kind takes the tree's way. */
static enum outcome iacp_to_acl(struct convert_run *run, struct message *m, struct jscan *js,
                                struct diag_sink *sink, struct strbuf *out)
{
    struct json_text body;
    bool has_body = body_text(m, &body);
    bool content_is_body = false;
    const struct jv *view = NULL;
    enum fipa_line made =
        convert_iacp_fipa_view(run->converter, m->view, js, &view, &content_is_body, sink, &m->at);
    if (made != FIPA_LINE_WRITTEN)
        return made == FIPA_LINE_TREE ? OUTCOME_BY_TREE : OUTCOME_FAILED;
    struct message fipa;
    if (!read_view_out(&fipa, m, view, CHOOSE_FIPA, sink))
        return OUTCOME_FAILED;
    const struct json_text *kept = has_body && content_is_body ? &body : NULL;
    bool ok = acl_write(out, fipa.view, run->spelling == SPELL_UPPER, kept, sink, &m->at) &&
              (convert_fipa_line_passes(m->view) || check_message_out(run, m, &fipa, sink));
    message_clear(&fipa);
    return ok ? OUTCOME_WRITTEN : OUTCOME_FAILED;
}

/* FIPA (JSON or the string form) to the string form with no tree: the message's line with its
 * performative in snake_case and its content as it came, read back as the view the string form
 * is written from, then checked. It runs in prepare (convert_alone), in a worker thread under
 * --jobs: nothing of run's is written. */
static bool fipa_to_acl(struct convert_run *run, struct message *m, struct jscan *js,
                        struct diag_sink *sink, struct strbuf *out)
{
    enum fipa_act act = act_to_convert(m, sink);
    if (act == FIPA_ACT_INVALID)
        return false;
    struct kept_content k = {.decoded = STRBUF_INIT};
    const struct json_text *kept = content_text(&k, m, PROTO_FIPA, js);
    const struct jv *content = kept ? jv_object_get(m->view, "content") : NULL;
    struct strbuf line = STRBUF_INIT;
    write_view_line(&line, m->view, fipa_act_name(act, SPELL_SNAKE), kept, content);
    struct message fipa;
    bool ok = read_line_out(&fipa, m, &line, CHOOSE_FIPA, js, sink);
    sb_free(&line);
    if (ok) {
        ok = acl_write(out, fipa.view, run->spelling == SPELL_UPPER, kept, sink, &m->at) &&
             check_message_out(run, m, &fipa, sink);
        message_clear(&fipa);
    }
    kept_content_clear(&k);
    return ok;
}

/* Whether the message stays in its protocol (IACP to IACP; FIPA, in either syntax, to FIPA):
 * then nothing of the stream matters, no fresh id nor conversation_id. */
static bool keeps_protocol(const struct convert_run *run, enum protocol proto)
{
    return (proto == PROTO_IACP) == (run->to == FORMAT_IACP);
}

static bool convert_one(struct convert_run *run, struct message *m, enum protocol proto,
                        struct jscan *js, struct diag_sink *sink, struct strbuf *out)
{
    /* x-fipa-content, the content of the way back, is the text the content keeps */
    if (run->to == FORMAT_FIPA_ACL && proto == PROTO_IACP &&
        !jv_object_get(m->view, "x-fipa-content")) {
        enum outcome o = iacp_to_acl(run, m, js, sink, out);
        if (o != OUTCOME_BY_TREE)
            return o == OUTCOME_WRITTEN;
    }
    if (run->to == FORMAT_IACP && proto == PROTO_FIPA)
        return fipa_to_iacp(run, m, js, sink, out);
    if (run->to == FORMAT_FIPA_ACL && proto == PROTO_FIPA)
        return fipa_to_acl(run, m, js, sink, out);
    if ((run->to == FORMAT_FIPA || run->to == FORMAT_IACP) && keeps_protocol(run, proto))
        return keep_protocol_line(run, m, proto, js, sink, out);
    return convert_by_tree(run, m, proto, js, sink, out);
}

/* The string form is FIPA whatever members its user parameters happen to carry. */
static enum protocol input_protocol(const struct message *m)
{
    return m->rec->syntax == SYNTAX_ACL ? PROTO_FIPA : m->proto;
}

/* IACP to FIPA JSON as far as the message alone says (convert_iacp_draft): the draft checked
 * and written, but for the conversation_id that convert_message finds along the stream.
 * Returns whether convert_message has work left. */
static bool draft_to_fipa(struct convert_run *run, struct message *m, struct jscan *scratch,
                          struct diag_sink *sink)
{
    sb_grow(&m->output, 2 * m->rec->len + 256); /* FIPA's names are longer: one allocation */
    size_t hole = MESSAGE_NO_HOLE;
    struct json_text body;
    bool kept = body_text(m, &body);
    enum draft draft = convert_iacp_draft(m->view, kept ? &body : NULL, run->spelling, &m->output,
                                          &hole, sink, &m->at);
    if (draft == DRAFT_NONE || draft == DRAFT_NEEDS_STREAM)
        return draft == DRAFT_NEEDS_STREAM;
    /* followed along the stream even when its output fails its check */
    struct iacp_trail *trail = convert_iacp_trail(m->view, m->arena);
    unsigned long errors_before = sink->errors;
    bool passes =
        convert_fipa_line_passes(m->view) || check_line(run, m, &m->output, scratch, sink);
    if (passes && sink->errors == errors_before)
        m->hole = hole;
    else
        sb_reset(&m->output);
    message_drafted(m, trail, trail->id, false);
    return true;
}

/* IACP to the string form as far as the message alone says: its FIPA line's draft read as a view
 * and written in the string form, but for the conversation_id that convert_message finds along
 * the stream (acl_hole_value). What the draft cannot say as iacp_to_acl would (a line the FIPA
 * rules must check, markers that the conversation_id's text could decide, a fipa.* kind, the
 * tree's way of x-fipa-content) is left to convert_message whole. Returns whether
 * convert_message has work left. */
static bool draft_to_acl(struct convert_run *run, struct message *m, struct jscan *scratch,
                         struct diag_sink *sink)
{
    if (jv_object_get(m->view, "x-fipa-content") || !convert_fipa_line_passes(m->view))
        return true;
    struct json_text body;
    bool has_body = body_text(m, &body);
    size_t hole = MESSAGE_NO_HOLE;
    const struct jv *view = NULL;
    enum draft draft = convert_iacp_draft_view(m->view, SPELL_SNAKE, scratch, &view, sink, &m->at);
    struct message fipa;
    bool read = (draft == DRAFT_WHOLE || draft == DRAFT_HOLE) &&
                read_view_out(&fipa, m, view, CHOOSE_FIPA, sink);
    if (!read)
        return draft == DRAFT_NEEDS_STREAM;
    sb_grow(&m->output, 2 * m->rec->len + 256); /* the string form is longer: one allocation */
    if (!acl_draft_fits(fipa.view)) {
        message_clear(&fipa);
        return true;
    }
    const struct json_text *kept = has_body && convert_content_is_body(m->view) ? &body : NULL;
    if (acl_write_draft(&m->output, fipa.view, run->spelling == SPELL_UPPER, kept,
                        draft == DRAFT_HOLE ? &hole : NULL, sink, &m->at))
        m->hole = hole;
    message_clear(&fipa);
    struct iacp_trail *trail = convert_iacp_trail(m->view, m->arena);
    message_drafted(m, trail, trail->id, false);
    return true;
}

/* FIPA to IACP as far as the message alone says (convert_fipa_iacp_draft): the line written and
 * checked, but for what convert_message may add along the stream. A message that the stream may
 * have to convert whole after all keeps its view for it. Returns whether convert_message has
 * work left. */
static bool draft_to_iacp(struct convert_run *run, struct message *m, struct jscan *scratch,
                          struct diag_sink *sink)
{
    struct kept_content k = {.decoded = STRBUF_INIT};
    const struct json_text *kept = content_text(&k, m, PROTO_FIPA, scratch);
    struct member_list members;
    member_list_init(&members);
    size_t hole = MESSAGE_NO_HOLE;
    struct iacp_trail *trail = NULL;
    bool passes = false;
    sb_grow(&m->output, m->rec->len + 256);
    bool drafted = convert_fipa_iacp_draft(m->view, kept, run->now, &members, &m->output,
                                           LINE_FLAGS, &passes, &hole, m->arena, &trail);
    /* FIPA of its own passes as made, with the id made up in its hole; what the draft of FIPA
     * made from IACP lacks is an x- member, which no IACP rule reads: its check is the line's */
    bool written = drafted && (passes || check_members(run, m, &members, scratch, sink));
    member_list_free(&members);
    kept_content_clear(&k);
    if (!drafted)
        return true;
    if (written)
        m->hole = hole;
    else
        sb_reset(&m->output);
    message_drafted(m, trail, trail->id, convert_draft_may_not_hold(trail));
    return true;
}

/* Writes a draft with run->out in place of its hole's len bytes: its two pieces and the value
 * between them, with no copy of the draft. */
static void write_filled(struct convert_run *run, struct filter *f, struct message *m, size_t len)
{
    size_t after = m->hole + len;
    filter_write(f, m->output.buf, m->hole);
    filter_write(f, run->out.buf, run->out.len);
    filter_write(f, m->output.buf + after, m->output.len - after);
    sb_reset(&m->output);
}

/* In order: follows a drafted message along the stream, and writes its line with what the
 * stream says in its hole: the conversation_id of IACP to FIPA JSON or to the string form, the
 * x-fipa-conversation_id that FIPA made from IACP may keep, the id made up for FIPA of its own.
 * False when the draft does not hold, and the message is to be converted whole. */
static bool complete_draft(struct convert_run *run, struct filter *f, struct message *m)
{
    sb_reset(&run->out);
    if (run->to == FORMAT_IACP) {
        const struct iacp_trail *trail = m->notes;
        enum followed_draft followed =
            convert_fipa_follow(run->converter, trail, LINE_FLAGS, &run->out);
        if (followed == FOLLOWED_FILL && m->output.len)
            write_filled(run, f, m, trail->hole_len);
        return followed != FOLLOWED_AGAIN;
    }
    const char *said = convert_iacp_follow(run->converter, m->notes);
    if (m->hole == MESSAGE_NO_HOLE || !m->output.len || !said)
        return true; /* the filter writes the output as it stands, if there is one */
    if (run->to == FORMAT_FIPA_ACL) {
        if (acl_hole_value(&run->out, said, filter_sink(f), &m->at))
            write_filled(run, f, m, ACL_HOLE_LEN);
        else
            sb_reset(&m->output);
    } else {
        convert_hole_value(&run->out, said);
        write_filled(run, f, m, CONVERT_HOLE_LEN);
    }
    return true;
}

/* Whether the message is of a dialect over JSON-RPC (MCP), whose lines --to=jsonrpc writes. */
static bool over_jsonrpc(enum protocol proto)
{
    const struct dialect *d = dialect_of(proto);
    return d && d->jsonrpc;
}

static bool convert_to_jsonrpc(struct message *m, enum protocol proto, struct diag_sink *sink)
{
    if (!over_jsonrpc(proto)) {
        diag_emit(sink, &m->at, "convert-no-mapping",
                  "%s has no mapping to JSON-RPC: the message cannot be converted",
                  dialect_of(proto)->display);
        return false;
    }
    message_own_text(m, &m->output);
    return false;
}

/* --to=tap: each record of a capture as acp-tap writes one (acp(7), CAPTURE RECORDS), its
 * message as it is; a record its form cannot carry is an error. A bare line of JSON-RPC is made
 * one in order (bare_to_tap). */
static bool convert_to_tap(struct message *m, enum protocol proto, struct diag_sink *sink)
{
    if (!m->capture.present) {
        if (over_jsonrpc(proto))
            return true; /* convert_message, in order */
        diag_emit(sink, &m->at, "convert-capture",
                  "a bare line of %s says no direction, time or session: no record of acp-tap's",
                  proto == PROTO_NONE ? "no dialect" : dialect_of(proto)->display);
        return false;
    }
    const struct jv *view = m->view - m->view_place;
    struct taprecord r;
    const char *lost = "a record of no capture form";
    if (!taprecord_read(view, &r) ||
        !r.form->as_tap(m->rec->text, m->rec->len, view, &r, &m->output, &lost))
        diag_emit(sink, &m->at, "convert-capture", "%s: no record of acp-tap's", lost);
    return false;
}

/* What needs nothing of the stream, which --jobs runs in worker threads: the whole conversion of
 * a message that keeps its protocol, or the draft of one from IACP to FIPA JSON, into
 * m->output. */
static bool convert_alone(void *ctx, struct message *m, struct jscan *scratch,
                          struct diag_sink *sink)
{
    struct convert_run *run = ctx;
    enum protocol proto = input_protocol(m);
    if (run->to == FORMAT_TAP)
        return convert_to_tap(m, proto, sink);
    if (m->capture.event)
        return false; /* a capture's record of its session: no message, nothing to write */
    if (proto == PROTO_NONE) {
        dialect_no_protocol(m, sink);
        return false;
    }
    if (run->to == FORMAT_JSONRPC)
        return convert_to_jsonrpc(m, proto, sink);
    if (!convert_maps(proto)) {
        diag_emit(sink, &m->at, "convert-no-mapping",
                  "%s has no mapping to IACP or FIPA: the message cannot be converted",
                  dialect_of(proto)->display);
        return false;
    }
    if (proto == PROTO_IACP && run->to == FORMAT_FIPA)
        return draft_to_fipa(run, m, scratch, sink);
    if (proto == PROTO_IACP && run->to == FORMAT_FIPA_ACL)
        return !run->drafts || draft_to_acl(run, m, scratch, sink);
    if (proto == PROTO_FIPA && run->to == FORMAT_IACP)
        return !run->drafts || draft_to_iacp(run, m, scratch, sink);
    if (!keeps_protocol(run, proto))
        return true;
    unsigned long errors_before = sink->errors;
    if (!convert_one(run, m, proto, scratch, sink, &m->output) || sink->errors != errors_before)
        sb_reset(&m->output);
    return false;
}

/* The key of a JSON-RPC id: its JSON type's letter and its text. */
static const char *id_key(struct strbuf *sb, const struct jv *id)
{
    sb_reset(sb);
    if (jv_is_string(id)) {
        sb_addc(sb, 's');
        sb_add(sb, jv_string_value(id), jv_string_length(id));
    } else {
        sb_addf(sb, "i%lld", (long long)jv_integer_value(id));
    }
    return sb->buf;
}

/* The side remembered under key (an id's, 'i' or 's' first; a progress token's, 't' first). */
static enum jsonrpc_side side_of(struct convert_run *run, const char *key)
{
    const char *side = strmap_get(run->bare_sides, key);
    return side ? (enum jsonrpc_side) * side : JSONRPC_EITHER;
}

static void remember_side(struct convert_run *run, const char *key, enum jsonrpc_side side)
{
    if (side == JSONRPC_EITHER || strmap_size(run->bare_sides) >= run->max_open)
        return;
    char *kept = xmalloc(1);
    *kept = (char)side;
    free(strmap_put(run->bare_sides, key, kept));
}

/* A notification both sides send: a cancellation goes the way of the request it names, progress
 * the other way from the request that gave its token. */
static enum jsonrpc_side notified_side(struct convert_run *run, const struct jv *msg)
{
    const struct jv *params = jv_object_get(msg, "params");
    const struct jv *request = jv_object_get(params, "requestId");
    if (jv_is_string(request) || jv_is_integer(request))
        return side_of(run, id_key(&run->out, request));
    const struct jv *token = jv_object_get(params, "progressToken");
    if (!jv_is_string(token) && !jv_is_integer(token))
        return JSONRPC_EITHER;
    id_key(&run->out, token);
    run->out.buf[0] = 't';
    return jsonrpc_other_side(side_of(run, run->out.buf));
}

/* Which way a bare message went: a request or notification by what its method's side is (the
 * dialect's profile), a response by the side of the request in progress with its id; a batch by
 * its first message. Requests of a known side are remembered for their responses, their progress
 * tokens for their progress. */
static enum jsonrpc_side bare_side(struct convert_run *run, const struct message *m)
{
    const struct jv *msg = jv_is_array(m->view) ? jv_array_first(m->view) : m->view;
    const struct jsonrpc_profile *profile = m->dialect->jsonrpc;
    const struct jv *method = jv_object_get(msg, "method"), *id = jv_object_get(msg, "id");
    bool has_id = jv_is_string(id) || jv_is_integer(id);
    if (!method) {
        if (!has_id)
            return JSONRPC_EITHER;
        char *side = strmap_remove(run->bare_sides, id_key(&run->out, id));
        enum jsonrpc_side asker = side ? (enum jsonrpc_side) * side : JSONRPC_EITHER;
        free(side);
        return jsonrpc_other_side(asker);
    }
    if (!has_id) {
        enum jsonrpc_side side = jsonrpc_notification_side(profile, method);
        return side != JSONRPC_EITHER ? side : notified_side(run, msg);
    }
    enum jsonrpc_side side = jsonrpc_request_side(profile, method);
    remember_side(run, id_key(&run->out, id), side);
    const struct jv *token =
        jv_object_get(jv_object_get(jv_object_get(msg, "params"), "_meta"), "progressToken");
    if (jv_is_string(token) || jv_is_integer(token)) {
        id_key(&run->out, token);
        run->out.buf[0] = 't';
        remember_side(run, run->out.buf, side);
    }
    return side;
}

/* A bare line of JSON-RPC as acp-tap's record: its file the session, numbered in it, its side
 * what its method or its request says; no time, which a bare line does not say (told once a
 * file, as the way back from --to=jsonrpc cannot restore it). */
static void bare_to_tap(struct convert_run *run, struct filter *f, struct message *m)
{
    const char *file = m->at.file ? m->at.file : "-";
    if (!run->bare_file || strcmp(run->bare_file, file) != 0) {
        free(run->bare_file);
        run->bare_file = xstrdup(file);
        run->bare_seq = 0;
        strmap_free(run->bare_sides, free);
        run->bare_sides = strmap_new();
        diag_emit(filter_sink(f), &m->at, "convert-no-time",
                  "bare lines say no time: their records' time is null, their session the file");
    }
    enum jsonrpc_side side = bare_side(run, m);
    if (side == JSONRPC_EITHER) {
        diag_emit(filter_sink(f), &m->at, "convert-capture",
                  "a bare line whose direction neither its method nor a request says: no "
                  "record of acp-tap's");
        return;
    }
    struct strbuf session = STRBUF_INIT, *out = &run->out;
    struct jsonout w;
    jsonout_init(&w, &session, 0);
    jsonout_string(&w, file, strlen(file));
    sb_reset(out);
    sb_adds(out, "{\"tap\":1,\"session\":");
    sb_add(out, session.buf, session.len);
    sb_addf(out, ",\"time\":null,\"seq\":%llu,\"dir\":\"%s\",\"message\":", ++run->bare_seq,
            side == JSONRPC_CLIENT ? "in" : "out");
    sb_add(out, m->rec->text, m->rec->len);
    sb_adds(out, "}\n");
    filter_write(f, out->buf, out->len);
    sb_free(&session);
}

/* In order: the conversions that follow the stream. */
static enum verdict convert_message(void *ctx, struct filter *f, struct message *m)
{
    struct convert_run *run = ctx;
    struct diag_sink *sink = filter_sink(f);
    if (!m->passed) /* done by convert_alone */
        return VERDICT_WRITTEN;
    if (m->drafted) {
        if (complete_draft(run, f, m))
            return VERDICT_WRITTEN;
        sb_reset(&m->output); /* a draft that does not hold: the message is converted whole */
    }
    if (run->to == FORMAT_TAP) {
        bare_to_tap(run, f, m);
        return VERDICT_WRITTEN;
    }
    unsigned long errors_before = sink->errors;
    sb_reset(&run->out);
    if (convert_one(run, m, input_protocol(m), run->scan, sink, &run->out) &&
        sink->errors == errors_before)
        filter_write(f, run->out.buf, run->out.len);
    return VERDICT_WRITTEN;
}

/* The capture form --from names: a capture's records of it alone, or (jsonrpc) bare lines. */
static struct capture_choice capture_choice(enum format from)
{
    switch (from) {
    case FORMAT_TAP:
        return (struct capture_choice){.only = &capture_form_tap};
    case FORMAT_MCPSNOOP:
        return (struct capture_choice){.only = &capture_form_mcpsnoop};
    case FORMAT_JSONRPC:
        return (struct capture_choice){.bare = true};
    default:
        return (struct capture_choice){0};
    }
}

static enum reader_mode reader_mode(enum format from)
{
    switch (from) {
    case FORMAT_FIPA_ACL:
        return READ_ACL;
    case FORMAT_AUTO:
        return READ_AUTO;
    default:
        return READ_JSON;
    }
}

static const char help_tail[] =
    "IACP -> FIPA: task.assign request, task.accept agree, task.reject refuse,\n"
    "task.result inform (status ok; partial, marked x-acp-partial; cancelled, answering\n"
    "the cancel) or failure, task.cancel cancel, tool.query query_ref, tool.reply inform,\n"
    "hb, mem.sync, ctl.drain and ctl.halt inform; conversation_id is FROM/ID of the opener.\n"
    "FIPA -> IACP: a message that came from IACP maps back exactly; any other becomes\n"
    "the kind fipa.<act>. What one side cannot say travels in x-iacp-* / x-fipa-*.\n";

int main(int argc, char **argv)
{
    filter_tool_init("acp-convert");
    struct convert_run run = {.from = FORMAT_AUTO, .to = FORMAT_NONE, .spelling = SPELL_SNAKE};
    const struct tool_spec spec = {
        .name = "acp-convert",
        .usage = "--to=FORMAT [OPTION]... [FILE]...",
        .summary = "Rewrite a stream of messages from one format into another: IACP 1.1 or\n"
                   "FIPA ACL as JSON Lines, or FIPA's string form (SC00070) as JADE writes it;\n"
                   "or an MCP capture's messages as bare JSON-RPC lines, or its records as\n"
                   "acp-tap writes them.",
        .options = convert_options,
        .groups = GROUP_CHECKS | GROUP_CLOCK | GROUP_FIPA | GROUP_PROGRESS | GROUP_JOBS,
        .help_tail = help_tail,
        .handle = handle_option,
        .ctx = &run,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0)
        return 2;
    if (run.to == FORMAT_NONE) {
        options_usage_error("--to=FORMAT is required (iacp, fipa, fipa-acl, jsonrpc or tap)");
        options_free(&opts);
        return 2;
    }
    struct convert_config cc = {
        .idle_timeout = opts.engine.idle_timeout,
        .max_open = opts.engine.max_open,
        .clock_skew = opts.engine.clock_skew,
        .seed = opts.seed_given ? opts.seed : 0,
        .seed_from_input = !opts.seed_given,
        .now = opts.now,
    };
    run.fipa.profile = opts.engine.fipa_profile;
    run.drafts = opts.jobs != 1;
    run.now = opts.now;
    run.converter = converter_new(&cc);
    run.bare_sides = strmap_new();
    run.max_open = opts.engine.max_open;
    run.scan = jscan_new();
    member_list_init(&run.members);
    const struct filter_config cfg = {.opts = &opts,
                                      .protocol = protocol_choice(run.from),
                                      .captures = capture_choice(run.from),
                                      .mode = reader_mode(run.from),
                                      .content_text = true};
    const struct filter_ops ops = {.prepare = convert_alone,
                                   .message = convert_message,
                                   .parse_acl = acl_parse_hook,
                                   .ctx = &run};
    int status = filter_run(&cfg, &ops, argv + first, argc - first);
    converter_free(run.converter);
    strmap_free(run.bare_sides, free);
    free(run.bare_file);
    jscan_free(run.scan);
    sb_free(&run.out);
    sb_free(&run.line);
    member_list_free(&run.members);
    options_free(&opts);
    return status;
}
