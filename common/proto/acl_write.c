#include "proto/acl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/jsonout.h"
#include "base/swar.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "proto/acl_lex.h"
#include "proto/acl_parts.h"
#include "proto/fipa.h"

/* --- from FIPA JSON to the string form --- */

struct acl_writer {
    struct strbuf *out;
    struct diag_sink *sink;
    const struct diag_where *at;
    bool failed;
    struct strbuf lower;         /* a name being claimed */
                                 /* Of the object being written (the message, or an agent): */
    const char *const *reserved; /* the writer's markers' names (each x-acp-), no member's */
    struct acl_names *names;
    const struct jv *expressions;    /* its x-acp-expressions, checked, or NULL */
    const struct jv *quoted;         /* its x-acp-quoted, checked, or NULL */
    const struct json_text *content; /* the text the message's content came with, or NULL */
    size_t *hole; /* a draft's: where its conversation_id "" is written, or NULL */
};

/* Reports the first reason a message cannot be written; later ones add nothing. */
#define unwritable(w, ...)                                                                         \
    do {                                                                                           \
        if (!(w)->failed)                                                                          \
            diag_emit((w)->sink, (w)->at, "convert-unwritable", __VA_ARGS__);                      \
        (w)->failed = true;                                                                        \
    } while (0)

/* A literal cannot say a backslash before a quote, or one at the end, so that every reader
 * (JADE's lexer included) agrees on where it ends. */
static bool literal_safe(const char *s, size_t len)
{
    if (len > 0 && s[len - 1] == '\\')
        return false;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '\\' && s[i + 1] == '"')
            return false;
    return true;
}

static void write_text(struct acl_writer *w, const char *s, size_t len, bool allow_word)
{
    if (memchr(s, '\0', len)) {
        unwritable(w, "a string holds a NUL character, which the string form cannot carry");
        return;
    }
    if (allow_word && acl_plain_word(s, len)) {
        sb_add(w->out, s, len);
        return;
    }
    if (!literal_safe(s, len)) {
        sb_addf(w->out, "#%zu\"", len);
        sb_add(w->out, s, len);
        return;
    }
    sb_addc(w->out, '"');
    for (const char *quote; (quote = memchr(s, '"', len));
         len -= (size_t)(quote + 1 - s), s = quote + 1) {
        sb_add(w->out, s, (size_t)(quote - s));
        sb_add(w->out, "\\\"", 2);
    }
    sb_add(w->out, s, len);
    sb_addc(w->out, '"');
}

static bool is_ascii(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

static void dump_json(struct strbuf *text, const struct jv *v, unsigned flags)
{
    struct jsonout w;
    jsonout_init(&w, text, flags);
    jv_write_json(&w, v);
}

/* JSON text as a string. When it needs a byte-length string, its non-ASCII characters are
 * written as \u escapes, so that JADE, which counts characters, reads the same text. */
static void write_json_text(struct acl_writer *w, const struct jv *v)
{
    struct strbuf text = STRBUF_INIT;
    dump_json(&text, v, 0);
    if (!literal_safe(text.buf, text.len) && !is_ascii(text.buf, text.len)) {
        sb_reset(&text);
        dump_json(&text, v, JSONOUT_ASCII);
    }
    write_text(w, text.buf, text.len, false);
    sb_free(&text);
}

/* Reserves a user parameter's name for the object: the reader compares names without regard to
 * case, so two members that differ only in case must not become two equal names. */
static bool claim_name(struct acl_writer *w, const char *prefix, const char *name)
{
    size_t prefix_len = strlen(prefix), name_len = strlen(name);
    bool nul; /* no name holds one */
    sb_reset(&w->lower);
    sb_grow(&w->lower, prefix_len + name_len);
    acl_lower_ascii(w->lower.buf, prefix, prefix_len, &nul);
    acl_lower_ascii(w->lower.buf + prefix_len, name, name_len, &nul);
    w->lower.len = prefix_len + name_len;
    if (strncmp(w->lower.buf, "x-acp-", 6) == 0)
        for (const char *const *r = w->reserved; *r; r++)
            if (strcmp(*r, w->lower.buf) == 0)
                return false;
    return acl_names_add(w->names, w->lower.buf, w->lower.len);
}

static bool is_listed(const struct jv *list, const char *name)
{
    for (const struct jv *e = jv_array_first(list); e; e = jv_array_next(list, e))
        if (strcmp(jv_string_value(e), name) == 0)
            return true;
    return false;
}

static bool is_expression(const struct acl_writer *w, const char *name)
{
    return is_listed(w->expressions, name);
}

/* A member the string form has no parameter for, as a user parameter (rules in acl.h). */
static void write_user_parameter(struct acl_writer *w, const char *name, const struct jv *v)
{
    if (strcmp(name, acl_partial_member) == 0 && jv_is_true(v) &&
        claim_name(w, "x-acp-", "partial")) {
        SB_ADD_LITERAL(w->out, " :X-acp-partial true");
        return;
    }
    /* Names the reader would take for its own prefixes go the long way, so that none is lost;
     * so does a "partial" that :X-acp-partial true would turn into the marker, and an x- name
     * whose prefix the reader would not give back in its case (x-priority, X-iacp-kind). */
    bool x_name = strncasecmp(name, "x-", 2) == 0 && strncasecmp(name, "x-acp-", 6) != 0 &&
                  name[0] == acl_user_prefix_letter(name + 2);
    const char *prefix = x_name ? "X-" : "X-acp-";
    const char *rest = x_name ? name + 2 : name;
    if (jv_is_string(v) && !acl_written_as_json(name, jv_string_value(v)) &&
        claim_name(w, prefix, rest)) {
        SB_ADD_LITERAL(w->out, " :");
        sb_adds(w->out, prefix);
        sb_adds(w->out, rest);
        sb_addc(w->out, ' ');
        if (is_expression(w, name))
            sb_add(w->out, jv_string_value(v), jv_string_length(v));
        else
            write_text(w, jv_string_value(v), jv_string_length(v), !is_listed(w->quoted, name));
        return;
    }
    if (!claim_name(w, "X-acp-json-", name)) {
        unwritable(w,
                   "member '%s' differs from another only in case, which the string form's "
                   "parameter names cannot tell apart",
                   name);
        return;
    }
    SB_ADD_LITERAL(w->out, " :X-acp-json-");
    sb_adds(w->out, name);
    sb_addc(w->out, ' ');
    if (jv_is_string(v) && is_expression(w, name)) /* read back as an expression, not JSON */
        sb_add(w->out, jv_string_value(v), jv_string_length(v));
    else
        write_json_text(w, v);
}

/* Whether text is one parenthesised expression, as the lexer reads it. */
static bool is_one_list(const char *text, size_t len)
{
    struct acl_lexer lx;
    acl_lex_init(&lx);
    struct acl_token tok;
    enum acl_lex_result res;
    unsigned long depth = 0;
    bool first = true;
    while ((res = acl_lex_next(&lx, text, len, true, &tok)) == ACL_LEX_TOKEN) {
        if (depth == 0 && !(first && tok.kind == ACL_OPEN))
            return false;
        first = false;
        if (tok.kind == ACL_OPEN)
            depth++;
        else if (tok.kind == ACL_CLOSE)
            depth--;
    }
    return res == ACL_LEX_END && !first && depth == 0 && text[0] == '(' && text[len - 1] == ')' &&
           !memchr(text, '\0', len);
}

static bool fits_quoted(const struct jv *v)
{
    return jv_is_string(v);
}

static bool fits_expression(const struct jv *v)
{
    return jv_is_string(v) && is_one_list(jv_string_value(v), jv_string_length(v));
}

/* A marker of the object (x-acp-expressions: members whose text is a parenthesised expression,
 * written as one; x-acp-quoted: string members written as "..." strings, never as words): the
 * list of its members, each of whose value fits, or NULL, after reporting it when it is not. */
static const struct jv *checked_marker(struct acl_writer *w, const struct jv *obj,
                                       const char *marker, bool (*fits)(const struct jv *v),
                                       const char *values)
{
    const struct jv *list = jv_object_get(obj, marker);
    if (!list)
        return NULL;
    bool ok = jv_is_array(list);
    for (const struct jv *name = jv_array_first(list); name; name = jv_array_next(list, name)) {
        const char *text = jv_string_value(name);
        if (!text || !fits(jv_object_get(obj, text)))
            ok = false;
    }
    if (!ok) {
        unwritable(w, "'%s' must list members whose %s", marker, values);
        return NULL;
    }
    return list;
}

static const struct jv *checked_expressions(struct acl_writer *w, const struct jv *obj)
{
    return checked_marker(w, obj, acl_expressions_member, fits_expression,
                          "text is one parenthesised expression");
}

static const struct jv *checked_quoted(struct acl_writer *w, const struct jv *obj)
{
    return checked_marker(w, obj, acl_quoted_member, fits_quoted, "values are strings");
}

static bool is_member_name_writable(const char *name)
{
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f || *c == '(' || *c == ')')
            return false;
    return *name != '\0';
}

static void write_agent(struct acl_writer *w, const struct jv *agent);

static void write_agent_sequence(struct acl_writer *w, const struct jv *arr, bool agents)
{
    SB_ADD_LITERAL(w->out, "(sequence");
    for (const struct jv *item = jv_array_first(arr); item; item = jv_array_next(arr, item)) {
        sb_addc(w->out, ' ');
        if (agents)
            write_agent(w, item);
        else
            write_text(w, jv_string_value(item), jv_string_length(item), true);
    }
    sb_addc(w->out, ')');
}

static void write_agent_slots(struct acl_writer *w, const struct jv *agent)
{
    for (const struct jv *k = jv_object_first(agent); k; k = jv_object_next(agent, k)) {
        const char *key = jv_string_value(k);
        const struct jv *v = jv_object_value(k);
        if (strcmp(key, "addresses") == 0 || strcmp(key, "resolvers") == 0) {
            SB_ADD_LITERAL(w->out, " :");
            sb_adds(w->out, key);
            sb_addc(w->out, ' ');
            write_agent_sequence(w, v, key[0] == 'r');
        } else if (strcmp(key, "name") == 0 ||
                   (w->expressions && strcmp(key, acl_expressions_member) == 0) ||
                   (w->quoted && strcmp(key, acl_quoted_member) == 0)) {
            continue;
        } else if (!is_member_name_writable(key)) {
            unwritable(w, "member name '%s' cannot be a parameter name", key);
        } else {
            write_user_parameter(w, key, v);
        }
    }
}

static void write_agent(struct acl_writer *w, const struct jv *agent)
{
    if (!fipa_agent_valid_jv(agent)) {
        unwritable(w, "an agent is not a name or an agent-identifier object");
        return;
    }
    /* dialect: the string form is FIPA's own */
    const char *name = fipa_agent_name_jv(agent);
    SB_ADD_LITERAL(w->out, "(agent-identifier :name ");
    write_text(w, name, strlen(name), true);
    if (jv_is_object(agent) && agent->len == 1)
        SB_ADD_LITERAL(w->out, " :X-acp-object true");
    if (jv_is_object(agent)) {
        /* the marker's, whether written or not */
        static const char *const agent_markers[] = {"x-acp-object", NULL};
        struct acl_names *names = w->names, own;
        acl_names_init(&own);
        const char *const *reserved = w->reserved;
        const struct jv *expressions = w->expressions, *quoted = w->quoted;
        w->names = &own;
        w->reserved = agent_markers;
        w->expressions = checked_expressions(w, agent);
        w->quoted = checked_quoted(w, agent);
        write_agent_slots(w, agent);
        acl_names_free(&own);
        w->names = names;
        w->reserved = reserved;
        w->expressions = expressions;
        w->quoted = quoted;
    }
    sb_addc(w->out, ')');
}

static void write_agent_set(struct acl_writer *w, const struct jv *v)
{
    SB_ADD_LITERAL(w->out, "(set");
    if (jv_is_array(v)) {
        for (const struct jv *a = jv_array_first(v); a; a = jv_array_next(v, a)) {
            sb_addc(w->out, ' ');
            write_agent(w, a);
        }
    } else {
        sb_addc(w->out, ' ');
        write_agent(w, v);
    }
    sb_addc(w->out, ')');
}

/* The spelling the message came with (x-acp-reply-by), when it still says its reply_by: the
 * same instant, or a relative time (which no instant can be checked against). */
static const char *kept_spelling(const struct jv *msg)
{
    const char *spelling = jv_member_string(msg, acl_spelling_member);
    const char *reply_by = jv_member_string(msg, "reply_by");
    struct acl_date_time dt;
    double epoch;
    bool zone;
    if (!spelling || !reply_by || !acl_date_time_parse(spelling, strlen(spelling), &dt) ||
        !time_parse_rfc3339(reply_by, &epoch, &zone))
        return NULL;
    return dt.relative || dt.millis == llround(epoch * 1000) ? spelling : NULL;
}

/* "2024-01-15T10:35:00.250Z" -> 20240115T103500250Z, always in UTC as JADE writes it, unless the
 * message keeps the spelling it came with. */
static void write_date_time(struct acl_writer *w, const struct jv *msg, const struct jv *v)
{
    double epoch;
    bool zone;
    const char *s = jv_string_value(v);
    if (!s || !time_parse_rfc3339(s, &epoch, &zone)) {
        unwritable(w, "reply_by '%s' is not an RFC 3339 date-time", s ? s : "(not a string)");
        return;
    }
    long long millis = llround(epoch * 1000);
    if (!acl_date_time_in_range(millis)) {
        unwritable(w, "reply_by '%s' is outside the years 0 to 9999", s);
        return;
    }
    const char *spelling = kept_spelling(msg);
    struct acl_date_time dt;
    char buf[48];
    acl_date_time_format(millis, buf, sizeof buf);
    sb_adds(w->out, spelling ? spelling : buf);
    /* What the reader makes of that; any other spelling (a zone offset, more digits, no
     * milliseconds where they are zero), or a relative time read at another time, also travels
     * as written, so that it comes back. */
    acl_rfc3339_millis(millis, buf, sizeof buf);
    bool relative = spelling && acl_date_time_parse(spelling, strlen(spelling), &dt) && dt.relative;
    if (relative || strcmp(buf, s) != 0) {
        SB_ADD_LITERAL(w->out, " :X-acp-reply_by ");
        write_text(w, s, strlen(s), true);
    }
}

/* JSON content as the text it came with. When that needs a byte-length string, its non-ASCII
 * characters are written as \u escapes, as write_json_text does. */
static void write_kept_text(struct acl_writer *w, const struct json_text *kept)
{
    if (literal_safe(kept->text, kept->len) || is_ascii(kept->text, kept->len)) {
        write_text(w, kept->text, kept->len, false);
        return;
    }
    struct strbuf ascii = STRBUF_INIT;
    struct jsonout out;
    jsonout_init(&out, &ascii, JSONOUT_ASCII | JSONOUT_VALID);
    jsonout_text(&out, kept->text, kept->len);
    write_text(w, ascii.buf, ascii.len, false);
    sb_free(&ascii);
}

/* Whether msg's content is text that the reader marked (decode_content): a string, with
 * x-acp-content-text true. */
static bool is_marked_text(const struct jv *msg)
{
    return jv_is_string(jv_object_get(msg, "content")) &&
           jv_is_true(jv_object_get(msg, acl_content_text_member));
}

/* Whether the reader would take text for JSON content. */
static bool reads_as_json(const char *text, size_t len)
{
    json_t *parsed = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    json_decref(parsed);
    return parsed != NULL;
}

/* Marked text goes as it is; the marker follows it where the reader would not mark it again
 * (not under a JSON language, or text that it would read as JSON). */
static void write_marked_text(struct acl_writer *w, const struct jv *content, bool json_language)
{
    const char *text = jv_string_value(content);
    size_t len = jv_string_length(content);
    write_text(w, text, len, false);
    if (!json_language || reads_as_json(text, len))
        SB_ADD_LITERAL(w->out, "\n :X-acp-content-text true");
}

/* Content as JADE carries it: a string. JSON content is written as JSON text (the text it came
 * with, when there is one), and the language (or a marker) says so, so that the reader can tell
 * "42" from 42. */
static void write_content(struct acl_writer *w, const struct jv *msg, const struct jv *content)
{
    const char *language = jv_member_string(msg, "language");
    bool json_language = language && strcasecmp(language, "json") == 0;
    SB_ADD_LITERAL(w->out, "\n :content ");
    if (is_expression(w, "content")) {
        sb_add(w->out, jv_string_value(content), jv_string_length(content));
        return;
    }
    if (is_marked_text(msg)) {
        write_marked_text(w, content, json_language);
        return;
    }
    if (jv_is_string(content) && !json_language) {
        write_text(w, jv_string_value(content), jv_string_length(content), false);
        return;
    }
    if (w->content)
        write_kept_text(w, w->content);
    else
        write_json_text(w, content);
    if (!jv_object_get(msg, "language"))
        SB_ADD_LITERAL(w->out, "\n :language json :X-acp-language none");
    else if (!json_language)
        SB_ADD_LITERAL(w->out, " :X-acp-json-content true");
}

/* A parameter's text; a draft's conversation_id "" is its hole. */
static void write_text_value(struct acl_writer *w, const struct acl_parameter *param,
                             const struct jv *v)
{
    if (w->hole && jv_string_length(v) == 0 && strcmp(param->member, "conversation_id") == 0)
        *w->hole = w->out->len;
    write_text(w, jv_string_value(v), jv_string_length(v), true);
}

static void write_parameter(struct acl_writer *w, const struct jv *msg, const char *key,
                            size_t key_len, const struct jv *v)
{
    const struct acl_parameter *param = acl_parameter_by_member(key, key_len);
    /* the prefix of every member below */
    bool marker = key_len > 6 && memcmp(key, "x-acp-", 6) == 0;
    if (marker && ((strcmp(key, acl_expressions_member) == 0 && w->expressions) ||
                   (strcmp(key, acl_quoted_member) == 0 && w->quoted) ||
                   (strcmp(key, acl_spelling_member) == 0 && kept_spelling(msg)) ||
                   (strcmp(key, acl_content_text_member) == 0 && is_marked_text(msg) &&
                    !is_expression(w, "content"))))
        return; /* said by the parameters they describe */
    if (!param) {
        if (!is_member_name_writable(key)) {
            unwritable(w, "member name '%s' cannot be a parameter name", key);
            return;
        }
        sb_addc(w->out, '\n');
        write_user_parameter(w, key, v);
        return;
    }
    if (param->form == FORM_CONTENT) {
        write_content(w, msg, v);
        return;
    }
    if (jv_is_null(v))
        return; /* in_reply_to: null says no more than leaving it out */
    SB_ADD_LITERAL(w->out, "\n :");
    sb_adds(w->out, param->keyword);
    sb_addc(w->out, ' ');
    if (param->form == FORM_AGENT)
        write_agent(w, v);
    else if (param->form == FORM_AGENT_SET)
        write_agent_set(w, v);
    else if (param->form == FORM_DATE_TIME)
        write_date_time(w, msg, v);
    else if (jv_is_string(v) && is_expression(w, key))
        sb_add(w->out, jv_string_value(v), jv_string_length(v));
    else if (jv_is_string(v))
        write_text_value(w, param, v);
    else
        unwritable(w, "'%s' must be a string to be written in the string form", key);
}
/* How many bytes text starts with that are printable ASCII (0x20 to 0x7e), most of a message:
 * eight at a time (base/swar.h), each word tested for a byte below 0x20 or above 0x7e (adding
 * one sets its high bit; a carry out of a byte comes only from one above 0x7e, flagged itself).
 * Each test flags its lowest byte exactly, so where a word's first byte is its lowest the run
 * ends at the lowest flagged; elsewhere the bytes of that word are read one by one. */
static size_t printable_ascii_run(const unsigned char *text, size_t len)
{
    size_t i = 0;
    for (uint64_t w; i + SWAR_BYTES <= len; i += SWAR_BYTES) {
        w = swar_load(text + i);
        uint64_t flagged = swar_below(w, 0x20) | swar_high(w + SWAR_ONES) | swar_high(w);
        if (flagged && SWAR_USABLE)
            return i + swar_lowest(flagged);
        if (flagged)
            break;
    }
    while (i < len && text[i] >= 0x20 && text[i] < 0x7f)
        i++;
    return i;
}

/* The first character of text that a terminal takes for a command rather than text (ESC, BEL, a
 * CR that ends no line, DEL, a C1 control, a direction override: utf8_acts_on_terminal), or -1.
 * A tab, a newline and CRLF, which JADE writes in content, are text. */
static long terminal_control(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        i += printable_ascii_run(s + i, len - i);
        if (i == len)
            break;
        unsigned char c = s[i];
        if (c < 0x80) {
            bool crlf = c == '\r' && i + 1 < len && s[i + 1] == '\n';
            if ((c < 0x20 && c != '\t' && c != '\n' && !crlf) || c == 0x7f)
                return c;
            i++;
            continue;
        }
        size_t n = utf8_sequence_length(s + i, len - i);
        if (n == 0)
            return -1; /* what was read as JSON is UTF-8: no character of the input's is here */
        unsigned cp = utf8_decode(s + i, n);
        if (utf8_acts_on_terminal(cp))
            return cp;
        i += n;
    }
    return -1;
}

/* The string form has no escape but \", so a message whose text holds a terminal control is not
 * written: raw, it would act on the terminal of whoever reads it (a title, a cleared screen). */
static void refuse_controls(struct acl_writer *w, const char *text, size_t len)
{
    long cp = terminal_control(text, len);
    if (cp < 0)
        return;
    char code[16];
    snprintf(code, sizeof code, "U+%04lX", (unsigned long)cp);
    unwritable(w,
               "a string holds the control character %s, which the string form has no escape "
               "for",
               code);
}

bool acl_draft_fits(const struct jv *msg)
{
    return !jv_object_get(msg, acl_expressions_member) && !jv_object_get(msg, acl_quoted_member);
}

bool acl_hole_value(struct strbuf *out, const char *conversation, struct diag_sink *sink,
                    const struct diag_where *at)
{
    struct acl_writer w = {.out = out, .sink = sink, .at = at};
    size_t mark = out->len, len = strlen(conversation);
    write_text(&w, conversation, len, true);
    /* the rest of the draft holds no control: its writer refused any (acl_write_draft) */
    refuse_controls(&w, conversation, len);
    if (w.failed)
        out->len = mark, out->buf[mark] = '\0';
    return !w.failed;
}

bool acl_write(struct strbuf *out, const struct jv *msg, bool upper,
               const struct json_text *content, struct diag_sink *sink, const struct diag_where *at)
{
    return acl_write_draft(out, msg, upper, content, NULL, sink, at);
}

bool acl_write_draft(struct strbuf *out, const struct jv *msg, bool upper,
                     const struct json_text *content, size_t *hole, struct diag_sink *sink,
                     const struct diag_where *at)
{
    struct acl_writer w = {.out = out, .sink = sink, .at = at, .content = content, .hole = hole};
    const char *performative = jv_member_string(msg, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID) {
        unwritable(&w, "'%s' is not a FIPA communicative act",
                   performative ? performative : "(no performative)");
        return false;
    }
    /* JADE knows no counter-propose: a propose carries it, with a marker that brings it back. */
    enum fipa_act written = act == FIPA_COUNTER_PROPOSE ? FIPA_PROPOSE : act;
    struct acl_names names;
    acl_names_init(&names);
    w.names = &names;
    w.lower = (struct strbuf)STRBUF_INIT;
    /* The names of the writer's markers are its own: a member whose user parameter would take
     * one (reply_By, Language) goes the long way. */
    static const char *const markers[] = {"x-acp-reply_by",     "x-acp-language",
                                          "x-acp-performative", "x-acp-json-content",
                                          "x-acp-content-text", NULL};
    w.reserved = markers;

    w.expressions = checked_expressions(&w, msg);
    w.quoted = checked_quoted(&w, msg);
    size_t mark = out->len;
    sb_addc(out, '(');
    sb_adds(out, fipa_act_name(written, upper ? SPELL_UPPER : SPELL_KEBAB));
    if (upper) /* JADE's capitals keep the standard's hyphen: ACCEPT-PROPOSAL */
        for (size_t i = mark + 1; i < out->len; i++)
            if (out->buf[i] == '_')
                out->buf[i] = '-';
    for (const struct jv *k = jv_object_first(msg); k; k = jv_object_next(msg, k))
        if (!jv_string_is(k, "performative"))
            write_parameter(&w, msg, jv_string_value(k), jv_string_length(k), jv_object_value(k));
    if (act == FIPA_COUNTER_PROPOSE)
        sb_adds(out, "\n :X-acp-performative counter_propose");
    sb_adds(out, ")\n");
    acl_names_free(&names);
    sb_free(&w.lower);
    if (!w.failed)
        refuse_controls(&w, out->buf + mark, out->len - mark);
    if (w.failed)
        out->len = mark, out->buf[mark] = '\0';
    return !w.failed;
}
