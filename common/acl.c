#include "acl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "escape.h"
#include "fipa.h"
#include "jsonout.h"
#include "timeutil.h"

/* Deeper nesting than any message needs; the limit keeps the recursion bounded. */
enum { MAX_DEPTH = 64 };

enum sexp_type { SX_LIST, SX_WORD, SX_STRING };

/* One expression of the record: a list, a word, or a decoded string. */
struct sexp {
    enum sexp_type type;
    char *text; /* word or string bytes, NUL-terminated (strings may hold NULs: see len) */
    size_t len;
    size_t start, end; /* bytes of the record it spans */
    struct sexp **items;
    size_t count;
};

/* Where the last diagnostic was, so that the next one later in the record counts lines from
 * there: a message with many warnings costs time in proportion to its length, not its square. */
struct line_mark {
    size_t offset;
    unsigned long lines;
    size_t line_start;
};

struct acl_parser {
    const struct record *rec;
    struct diag_sink *sink;
    size_t pos;
    bool failed;
    struct line_mark mark;
};

static void sexp_free(struct sexp *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->count; i++)
        sexp_free(x->items[i]);
    free(x->items);
    free(x->text);
    free(x);
}

/* Line and column of a byte of the record, for diagnostics. */
static struct diag_where where_at(struct acl_parser *p, size_t offset)
{
    const struct record *rec = p->rec;
    if (offset < p->mark.offset)
        p->mark = (struct line_mark){0, 0, 0};
    for (size_t i = p->mark.offset; i < offset && i < rec->len; i++)
        if (rec->text[i] == '\n') {
            p->mark.lines++;
            p->mark.line_start = i + 1;
        }
    p->mark.offset = offset;
    size_t line_start = p->mark.line_start;
    struct diag_where at = {.file = rec->file, .line = rec->line + p->mark.lines};
    at.column = offset - line_start + 1 + (line_start == 0 ? rec->column_base : 0);
    return at;
}

static void syntax_error(struct acl_parser *p, size_t offset, const char *what)
{
    if (p->failed)
        return;
    struct diag_where at = where_at(p, offset);
    diag_emit(p->sink, &at, SEV_ERROR, "acl-syntax", "%s (byte %zu of the message)", what,
              offset + 1);
    p->failed = true;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
}

static void skip_space(struct acl_parser *p)
{
    while (p->pos < p->rec->len && is_space(p->rec->text[p->pos]))
        p->pos++;
}

static struct sexp *new_node(enum sexp_type type, size_t start)
{
    struct sexp *x = xcalloc(1, sizeof *x);
    x->type = type;
    x->start = start;
    return x;
}

/* "..." in which only \" is an escape: JADE's rule, so every other backslash stays. */
static struct sexp *read_literal(struct acl_parser *p)
{
    const char *s = p->rec->text;
    size_t start = p->pos++;
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "", 0);
    while (p->pos < p->rec->len) {
        char c = s[p->pos];
        if (c == '\\' && p->pos + 1 < p->rec->len && s[p->pos + 1] == '"') {
            sb_addc(&sb, '"');
            p->pos += 2;
            continue;
        }
        p->pos++;
        if (c == '"') {
            struct sexp *x = new_node(SX_STRING, start);
            x->len = sb.len;
            x->text = sb_detach(&sb);
            x->end = p->pos;
            return x;
        }
        sb_addc(&sb, c);
    }
    sb_free(&sb);
    syntax_error(p, start, "string literal without its closing quote");
    return NULL;
}

/* #N" followed by exactly N bytes (SC00070 counts bytes). */
static struct sexp *read_counted(struct acl_parser *p, size_t digits_end)
{
    const char *s = p->rec->text;
    size_t start = p->pos;
    unsigned long long n = 0;
    for (size_t i = start + 1; i < digits_end; i++) {
        n = n * 10 + (unsigned)(s[i] - '0');
        if (n > p->rec->len) {
            syntax_error(p, start, "byte-length string longer than the message");
            return NULL;
        }
    }
    size_t body = digits_end + 1;
    if (n > p->rec->len - body) {
        syntax_error(p, start, "byte-length string longer than the message");
        return NULL;
    }
    struct sexp *x = new_node(SX_STRING, start);
    x->text = xstrndup(s + body, (size_t)n);
    x->len = (size_t)n;
    p->pos = x->end = body + (size_t)n;
    return x;
}

static struct sexp *read_word(struct acl_parser *p)
{
    const char *s = p->rec->text;
    size_t start = p->pos;
    if (s[start] == '#') {
        size_t i = start + 1;
        while (i < p->rec->len && isdigit((unsigned char)s[i]))
            i++;
        if (i > start + 1 && i < p->rec->len && s[i] == '"')
            return read_counted(p, i);
    }
    while (p->pos < p->rec->len && !is_space(s[p->pos]) && s[p->pos] != '(' && s[p->pos] != ')')
        p->pos++;
    struct sexp *x = new_node(SX_WORD, start);
    x->len = p->pos - start;
    x->text = xstrndup(s + start, x->len);
    x->end = p->pos;
    return x;
}

static struct sexp *read_expression(struct acl_parser *p, int depth);

static struct sexp *read_list(struct acl_parser *p, int depth)
{
    struct sexp *x = new_node(SX_LIST, p->pos++);
    if (depth > MAX_DEPTH) {
        syntax_error(p, x->start, "expressions nested too deeply");
        sexp_free(x);
        return NULL;
    }
    size_t cap = 0;
    for (;;) {
        skip_space(p);
        if (p->pos >= p->rec->len) {
            syntax_error(p, x->start, "expression without its closing parenthesis");
            sexp_free(x);
            return NULL;
        }
        if (p->rec->text[p->pos] == ')') {
            x->end = ++p->pos;
            return x;
        }
        struct sexp *item = read_expression(p, depth + 1);
        if (!item) {
            sexp_free(x);
            return NULL;
        }
        if (x->count == cap) {
            cap = cap ? 2 * cap : 8;
            x->items = xrealloc(x->items, cap * sizeof *x->items);
        }
        x->items[x->count++] = item;
    }
}

static struct sexp *read_expression(struct acl_parser *p, int depth)
{
    char c = p->rec->text[p->pos];
    if (c == '(')
        return read_list(p, depth);
    if (c == '"')
        return read_literal(p);
    if (c == ')') {
        syntax_error(p, p->pos, "unexpected ')'");
        return NULL;
    }
    return read_word(p);
}

/* --- from expressions to FIPA JSON --- */

static bool word_is(const struct sexp *x, const char *keyword)
{
    return x && x->type == SX_WORD && strcasecmp(x->text, keyword) == 0;
}

static bool is_text(const struct sexp *x)
{
    return x->type == SX_WORD || x->type == SX_STRING;
}

/* Reports an error at an expression; a macro so that every format stays a checked literal. */
#define fail_at(p, x, code, ...)                                                                   \
    do {                                                                                           \
        struct diag_where at_ = where_at((p), (x)->start);                                         \
        diag_emit((p)->sink, &at_, SEV_ERROR, code, __VA_ARGS__);                                  \
        (p)->failed = true;                                                                        \
    } while (0)

/* A JSON string of the bytes, or NULL after reporting NUL bytes or invalid UTF-8. */
static json_t *text_json(struct acl_parser *p, const struct sexp *x)
{
    if (memchr(x->text, '\0', x->len)) {
        fail_at(p, x, "nul-byte", "NUL byte in a string");
        return NULL;
    }
    json_t *s = json_stringn(x->text, x->len);
    if (!s)
        fail_at(p, x, "bad-utf8", "a string is not valid UTF-8");
    return s;
}

/* Any expression as a string: text as it is, a list as the source text it spans. */
static json_t *expression_json(struct acl_parser *p, const struct sexp *x)
{
    if (is_text(x))
        return text_json(p, x);
    struct sexp span = {.type = SX_STRING, .start = x->start};
    span.len = x->end - x->start;
    span.text = xstrndup(p->rec->text + x->start, span.len);
    json_t *s = text_json(p, &span);
    free(span.text);
    return s;
}

/* A user parameter (":X-...") or unknown parameter into its member, by the rules in acl.h. */
static void set_user_parameter(struct acl_parser *p, json_t *obj, const char *name,
                               const struct sexp *value)
{
    json_t *v = expression_json(p, value);
    if (!v)
        return;
    if (strncasecmp(name, "x-acp-json-", 11) == 0 && name[11]) {
        json_error_t err;
        const char *text = json_string_value(v);
        json_t *parsed = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
        if (parsed) {
            json_object_set_new(obj, name + 11, parsed);
            json_decref(v);
            return;
        }
        struct diag_where at = where_at(p, value->start);
        diag_emit(p->sink, &at, SEV_WARNING, "acl-json", "':%s' is not JSON (%s); kept as text",
                  name, err.text);
        json_object_set_new(obj, name + 11, v);
        return;
    }
    if (strncasecmp(name, "x-acp-", 6) == 0 && name[6])
        name += 6;
    json_object_set_new(obj, name, v);
}

static json_t *read_agent(struct acl_parser *p, const struct sexp *x);

static json_t *read_sequence(struct acl_parser *p, const struct sexp *x, bool agents)
{
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "sequence")) {
        fail_at(p, x, "acl-syntax", "expected (sequence ...)");
        return NULL;
    }
    json_t *arr = json_array();
    for (size_t i = 1; i < x->count && !p->failed; i++) {
        json_t *item = agents ? read_agent(p, x->items[i])
                              : (is_text(x->items[i]) ? text_json(p, x->items[i]) : NULL);
        if (!item && !p->failed)
            fail_at(p, x->items[i], "acl-syntax", "expected an address");
        if (item)
            json_array_append_new(arr, item);
    }
    if (p->failed) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* (agent-identifier :name N [:addresses (sequence ...)] [:resolvers (sequence ...)] ...) */
static json_t *read_agent(struct acl_parser *p, const struct sexp *x)
{
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "agent-identifier")) {
        fail_at(p, x, "acl-syntax", "expected (agent-identifier ...)");
        return NULL;
    }
    json_t *agent = json_object();
    json_object_set_new(agent, "name", json_null());
    bool object = false; /* :X-acp-object: an object although it holds only the name */
    for (size_t i = 1; i < x->count && !p->failed; i += 2) {
        const struct sexp *key = x->items[i];
        if (key->type != SX_WORD || key->text[0] != ':' || i + 1 >= x->count) {
            fail_at(p, key, "acl-syntax", "expected :name, :addresses or :resolvers");
            break;
        }
        const char *name = key->text + 1;
        const struct sexp *value = x->items[i + 1];
        json_t *v = NULL;
        if (strcasecmp(name, "name") == 0)
            v = is_text(value) ? text_json(p, value) : NULL;
        else if (strcasecmp(name, "addresses") == 0)
            v = read_sequence(p, value, false);
        else if (strcasecmp(name, "resolvers") == 0)
            v = read_sequence(p, value, true);
        else if (strcasecmp(name, "x-acp-object") == 0) {
            object = true;
            continue;
        } else {
            set_user_parameter(p, agent, name, value);
            continue;
        }
        if (!v && !p->failed)
            fail_at(p, value, "acl-syntax", "expected a name");
        if (v)
            json_object_set_new(agent,
                                strcasecmp(name, "name") == 0        ? "name"
                                : strcasecmp(name, "addresses") == 0 ? "addresses"
                                                                     : "resolvers",
                                v);
    }
    if (!p->failed && !json_is_string(json_object_get(agent, "name")))
        fail_at(p, x, "acl-syntax", "agent-identifier without :name");
    if (p->failed) {
        json_decref(agent);
        return NULL;
    }
    if (json_object_size(agent) == 1 && !object) {
        json_t *name = json_incref(json_object_get(agent, "name"));
        json_decref(agent);
        return name;
    }
    return agent;
}

/* (set AID...) — or, leniently, one bare agent-identifier. One agent becomes that agent. */
static json_t *read_agent_set(struct acl_parser *p, const struct sexp *x)
{
    if (x->type == SX_LIST && x->count > 0 && word_is(x->items[0], "agent-identifier"))
        return read_agent(p, x);
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "set")) {
        fail_at(p, x, "acl-syntax", "expected (set (agent-identifier ...) ...)");
        return NULL;
    }
    json_t *arr = json_array();
    for (size_t i = 1; i < x->count && !p->failed; i++) {
        json_t *a = read_agent(p, x->items[i]);
        if (a)
            json_array_append_new(arr, a);
    }
    if (p->failed) {
        json_decref(arr);
        return NULL;
    }
    if (json_array_size(arr) == 1) {
        json_t *one = json_incref(json_array_get(arr, 0));
        json_decref(arr);
        return one;
    }
    return arr;
}

/* 20240115T103500000Z -> "2024-01-15T10:35:00Z" (milliseconds kept when not zero). */
static json_t *read_date_time(struct acl_parser *p, const struct sexp *x)
{
    const char *s = x->text;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, ms = 0;
    size_t n = is_text(x) ? strlen(s) : 0;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        fail_at(p, x, "acl-time", "relative date-time '%s' cannot be converted", s);
        return NULL;
    }
    bool ok = n >= 15 && time_digits(s, 4, &y) && time_digits(s + 4, 2, &mo) &&
              time_digits(s + 6, 2, &d) && (s[8] == 'T' || s[8] == 't') &&
              time_digits(s + 9, 2, &h) && time_digits(s + 11, 2, &mi) &&
              time_digits(s + 13, 2, &sec);
    size_t rest = 15;
    if (ok && n >= 18 && time_digits(s + 15, 3, &ms))
        rest = 18;
    bool zone = ok && rest < n && (s[rest] == 'Z' || s[rest] == 'z');
    if (ok && !(rest + (zone ? 1 : 0) == n))
        ok = false;
    char buf[48];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, sec);
    double epoch;
    bool has_zone;
    if (!ok || !time_parse_rfc3339(buf, &epoch, &has_zone)) {
        fail_at(p, x, "acl-time", "'%s' is not a date-time such as 20240115T103500000Z",
                is_text(x) ? s : "(...)");
        return NULL;
    }
    if (!zone) {
        struct diag_where at = where_at(p, x->start);
        diag_emit(p->sink, &at, SEV_WARNING, "acl-time-zone",
                  "date-time '%s' has no Z; read as UTC", s);
    }
    size_t len = strlen(buf);
    if (ms)
        snprintf(buf + len, sizeof buf - len, ".%03dZ", ms);
    else
        snprintf(buf + len, sizeof buf - len, "Z");
    return json_string(buf);
}

struct parameter {
    const char *keyword; /* as SC00070 spells it */
    const char *member;  /* as Caxton's JSON spells it */
};

static const struct parameter parameters[] = {
    {"sender", "sender"},
    {"receiver", "receiver"},
    {"reply-to", "reply_to"},
    {"content", "content"},
    {"language", "language"},
    {"encoding", "encoding"},
    {"ontology", "ontology"},
    {"protocol", "protocol"},
    {"conversation-id", "conversation_id"},
    {"reply-with", "reply_with"},
    {"in-reply-to", "in_reply_to"},
    {"reply-by", "reply_by"},
};

static const struct parameter *find_parameter_by_keyword(const char *keyword)
{
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++)
        if (strcasecmp(keyword, parameters[i].keyword) == 0)
            return &parameters[i];
    return NULL;
}

static const struct parameter *find_parameter_by_member(const char *member)
{
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++)
        if (strcmp(member, parameters[i].member) == 0)
            return &parameters[i];
    return NULL;
}

struct markers {
    bool json_content;   /* :X-acp-json-content */
    bool language_added; /* :X-acp-language none */
};

static void read_parameter(struct acl_parser *p, json_t *msg, const struct sexp *key,
                           const struct sexp *value, struct markers *mk)
{
    const char *name = key->text + 1;
    if (strcasecmp(name, "x-acp-json-content") == 0) {
        mk->json_content = true;
        return;
    }
    if (strcasecmp(name, "x-acp-language") == 0) {
        mk->language_added = true;
        return;
    }
    const struct parameter *param = find_parameter_by_keyword(name);
    if (!param) {
        if (strncasecmp(name, "x-", 2) != 0) {
            struct diag_where at = where_at(p, key->start);
            diag_emit(p->sink, &at, SEV_WARNING, "acl-parameter",
                      "unknown parameter ':%s' kept as a member", name);
        }
        set_user_parameter(p, msg, name, value);
        return;
    }
    json_t *v;
    if (strcmp(param->member, "sender") == 0)
        v = read_agent(p, value);
    else if (strcmp(param->member, "receiver") == 0 || strcmp(param->member, "reply_to") == 0)
        v = read_agent_set(p, value);
    else if (strcmp(param->member, "reply_by") == 0)
        v = read_date_time(p, value);
    else
        v = expression_json(p, value);
    if (v)
        json_object_set_new(msg, param->member, v);
}

/* Content is JSON when the language says so (or the writer's marker does). */
static void decode_content(struct acl_parser *p, json_t *msg, const struct markers *mk,
                           size_t content_at)
{
    const char *language = json_member_string(msg, "language");
    json_t *content = json_object_get(msg, "content");
    bool is_json = mk->json_content || (language && strcasecmp(language, "json") == 0);
    if (mk->language_added)
        json_object_del(msg, "language");
    if (!is_json || !json_is_string(content))
        return;
    json_error_t err;
    json_t *parsed = json_loadb(json_string_value(content), json_string_length(content),
                                JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
    if (!parsed) {
        struct diag_where at = where_at(p, content_at);
        diag_emit(p->sink, &at, SEV_WARNING, "acl-json",
                  "the content is not JSON (%s); kept as text", err.text);
        return;
    }
    json_object_set_new(msg, "content", parsed);
}

static json_t *read_message(struct acl_parser *p, const struct sexp *x)
{
    if (x->count == 0 || x->items[0]->type != SX_WORD) {
        fail_at(p, x, "acl-syntax", "a message starts with its performative");
        return NULL;
    }
    enum fipa_act act = fipa_act_parse(x->items[0]->text);
    if (act == FIPA_ACT_INVALID) {
        char *lower = xstrdup(x->items[0]->text);
        for (char *c = lower; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        act = fipa_act_parse(lower);
        free(lower);
    }
    if (act == FIPA_ACT_INVALID) {
        fail_at(p, x->items[0], "acl-performative", "'%s' is not a FIPA communicative act",
                x->items[0]->text);
        return NULL;
    }
    json_t *msg = json_object();
    json_object_set_new(msg, "performative", json_string(fipa_act_name(act, SPELL_SNAKE)));
    struct markers mk = {false, false};
    size_t content_at = x->start;
    for (size_t i = 1; i < x->count && !p->failed; i += 2) {
        const struct sexp *key = x->items[i];
        if (key->type != SX_WORD || key->text[0] != ':' || key->len < 2) {
            fail_at(p, key, "acl-syntax", "expected a parameter such as :sender");
            break;
        }
        if (i + 1 >= x->count) {
            fail_at(p, key, "acl-syntax", "parameter '%s' without a value", key->text);
            break;
        }
        if (strcasecmp(key->text, ":content") == 0)
            content_at = x->items[i + 1]->start;
        read_parameter(p, msg, key, x->items[i + 1], &mk);
    }
    if (!p->failed)
        decode_content(p, msg, &mk, content_at);
    if (p->failed) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *acl_parse(const struct record *rec, struct diag_sink *sink)
{
    struct acl_parser p = {.rec = rec, .sink = sink};
    skip_space(&p);
    if (p.pos >= rec->len || rec->text[p.pos] != '(') {
        syntax_error(&p, p.pos, "expected '(' to start a message");
        return NULL;
    }
    struct sexp *x = read_list(&p, 0);
    if (!x)
        return NULL;
    skip_space(&p);
    json_t *msg = NULL;
    if (p.pos < rec->len)
        syntax_error(&p, p.pos, "bytes after the end of the message");
    else
        msg = read_message(&p, x);
    sexp_free(x);
    return msg;
}

/* --- from FIPA JSON to the string form --- */

struct acl_writer {
    struct strbuf *out;
    struct diag_sink *sink;
    const struct diag_where *at;
    bool failed;
};

/* Reports the first reason a message cannot be written; later ones add nothing. */
#define unwritable(w, ...)                                                                         \
    do {                                                                                           \
        if (!(w)->failed)                                                                          \
            diag_emit((w)->sink, (w)->at, SEV_ERROR, "convert-unwritable", __VA_ARGS__);           \
        (w)->failed = true;                                                                        \
    } while (0)

/* Printable ASCII that JADE's lexer takes as one word and writes back bare. */
static bool is_plain_word(const char *s, size_t len)
{
    if (len == 0 || strchr("#0123456789-@:\"", s[0]))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f || c == '(' || c == ')' || c == '"' || c == '\\')
            return false;
    }
    return true;
}

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
    if (allow_word && is_plain_word(s, len)) {
        sb_add(w->out, s, len);
        return;
    }
    if (!literal_safe(s, len)) {
        sb_addf(w->out, "#%zu\"", len);
        sb_add(w->out, s, len);
        return;
    }
    sb_addc(w->out, '"');
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            sb_addc(w->out, '\\');
        sb_addc(w->out, s[i]);
    }
    sb_addc(w->out, '"');
}

static bool is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return false;
    return true;
}

static char *dump_json(const json_t *v, unsigned flags)
{
    struct strbuf text = STRBUF_INIT;
    struct jsonout w;
    jsonout_init(&w, &text, flags);
    jsonout_value(&w, v);
    return sb_detach(&text);
}

/* JSON text as a string. When it needs a byte-length string, its non-ASCII characters are
 * written as \u escapes, so that JADE, which counts characters, reads the same text. */
static void write_json_text(struct acl_writer *w, const json_t *v)
{
    char *text = dump_json(v, 0);
    if (!literal_safe(text, strlen(text)) && !is_ascii(text)) {
        free(text);
        text = dump_json(v, JSONOUT_ASCII);
    }
    write_text(w, text, strlen(text), false);
    free(text);
}

/* A member the string form has no parameter for, as a user parameter (rules in acl.h). */
static void write_user_parameter(struct acl_writer *w, const char *name, const json_t *v)
{
    /* Names the reader would take for its own prefixes go the long way, so that none is lost. */
    bool x_name = strncasecmp(name, "x-", 2) == 0 && strncasecmp(name, "x-acp-", 6) != 0;
    bool json_name = strncasecmp(name, "json-", 5) == 0;
    if (json_is_string(v) && !json_name) {
        sb_addf(w->out, x_name ? " :%s " : " :X-acp-%s ", name);
        write_text(w, json_string_value(v), json_string_length(v), true);
        return;
    }
    sb_addf(w->out, " :X-acp-json-%s ", name);
    write_json_text(w, v);
}

static bool is_member_name_writable(const char *name)
{
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f || *c == '(' || *c == ')')
            return false;
    return *name != '\0';
}

static void write_agent(struct acl_writer *w, const json_t *agent);

static void write_agent_sequence(struct acl_writer *w, const json_t *arr, bool agents)
{
    sb_adds(w->out, "(sequence");
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item)
    {
        sb_addc(w->out, ' ');
        if (agents)
            write_agent(w, item);
        else
            write_text(w, json_string_value(item), json_string_length(item), true);
    }
    sb_addc(w->out, ')');
}

static void write_agent(struct acl_writer *w, const json_t *agent)
{
    if (!fipa_agent_valid(agent)) {
        unwritable(w, "an agent is not a name or an agent-identifier object");
        return;
    }
    const char *name = fipa_agent_name(agent);
    sb_adds(w->out, "(agent-identifier :name ");
    write_text(w, name, strlen(name), true);
    if (json_is_object(agent) && json_object_size(agent) == 1)
        sb_adds(w->out, " :X-acp-object true");
    if (json_is_object(agent)) {
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)agent, key, v)
        {
            if (strcmp(key, "addresses") == 0 || strcmp(key, "resolvers") == 0) {
                sb_addf(w->out, " :%s ", key);
                write_agent_sequence(w, v, key[0] == 'r');
            } else if (strcmp(key, "name") != 0) {
                if (!is_member_name_writable(key))
                    unwritable(w, "member name '%s' cannot be a parameter name", key);
                else
                    write_user_parameter(w, key, v);
            }
        }
    }
    sb_addc(w->out, ')');
}

static void write_agent_set(struct acl_writer *w, const json_t *v)
{
    sb_adds(w->out, "(set");
    if (json_is_array(v)) {
        size_t i;
        json_t *a;
        json_array_foreach(v, i, a)
        {
            sb_addc(w->out, ' ');
            write_agent(w, a);
        }
    } else {
        sb_addc(w->out, ' ');
        write_agent(w, v);
    }
    sb_addc(w->out, ')');
}

/* "2024-01-15T10:35:00.250Z" -> 20240115T103500250Z, always in UTC as JADE writes it. */
static void write_date_time(struct acl_writer *w, const json_t *v)
{
    double epoch;
    bool zone;
    const char *s = json_string_value(v);
    if (!s || !time_parse_rfc3339(s, &epoch, &zone)) {
        unwritable(w, "reply_by '%s' is not an RFC 3339 date-time", s ? s : "(not a string)");
        return;
    }
    double whole = floor(epoch);
    long long secs = (long long)whole;
    long ms = lround((epoch - whole) * 1000);
    if (ms >= 1000) {
        secs++;
        ms -= 1000;
    }
    char iso[48];
    time_format_rfc3339(secs, iso, sizeof iso);
    for (const char *c = iso; *c; c++)
        if (isdigit((unsigned char)*c) || *c == 'T')
            sb_addc(w->out, *c);
    sb_addf(w->out, "%03ldZ", ms);
    /* What the reader makes of that; any other spelling (a zone offset, more digits, no
     * milliseconds where they are zero) also travels as written, so that it comes back. */
    char read_back[64];
    size_t n = strlen(iso) - 1;
    if (ms)
        snprintf(read_back, sizeof read_back, "%.*s.%03ldZ", (int)n, iso, ms);
    else
        snprintf(read_back, sizeof read_back, "%.*sZ", (int)n, iso);
    if (strcmp(read_back, s) != 0)
        write_user_parameter(w, "reply_by", v);
}

/* Content as JADE carries it: a string. JSON content is written as JSON text, and the
 * language (or a marker) says so, so that the reader can tell "42" from 42. */
static void write_content(struct acl_writer *w, const json_t *msg, const json_t *content)
{
    const char *language = json_member_string(msg, "language");
    bool json_language = language && strcasecmp(language, "json") == 0;
    sb_adds(w->out, "\n :content ");
    if (json_is_string(content) && !json_language) {
        write_text(w, json_string_value(content), json_string_length(content), false);
        return;
    }
    write_json_text(w, content);
    if (!json_object_get(msg, "language"))
        sb_adds(w->out, "\n :language json :X-acp-language none");
    else if (!json_language)
        sb_adds(w->out, " :X-acp-json-content true");
}

static void write_parameter(struct acl_writer *w, const json_t *msg, const char *key,
                            const json_t *v)
{
    const struct parameter *param = find_parameter_by_member(key);
    if (!param) {
        if (!is_member_name_writable(key)) {
            unwritable(w, "member name '%s' cannot be a parameter name", key);
            return;
        }
        sb_adds(w->out, "\n");
        write_user_parameter(w, key, v);
        return;
    }
    if (strcmp(key, "content") == 0) {
        write_content(w, msg, v);
        return;
    }
    if (json_is_null(v))
        return; /* in_reply_to: null says no more than leaving it out */
    sb_addf(w->out, "\n :%s ", param->keyword);
    if (strcmp(key, "sender") == 0)
        write_agent(w, v);
    else if (strcmp(key, "receiver") == 0 || strcmp(key, "reply_to") == 0)
        write_agent_set(w, v);
    else if (strcmp(key, "reply_by") == 0)
        write_date_time(w, v);
    else if (json_is_string(v))
        write_text(w, json_string_value(v), json_string_length(v), true);
    else
        unwritable(w, "'%s' must be a string to be written in the string form", key);
}

bool acl_write(struct strbuf *out, const json_t *msg, bool upper, struct diag_sink *sink,
               const struct diag_where *at)
{
    struct acl_writer w = {.out = out, .sink = sink, .at = at};
    const char *performative = json_member_string(msg, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID) {
        unwritable(&w, "'%s' is not a FIPA communicative act",
                   performative ? performative : "(no performative)");
        return false;
    }
    size_t mark = out->len;
    sb_addc(out, '(');
    sb_adds(out, fipa_act_name(act, upper ? SPELL_UPPER : SPELL_KEBAB));
    if (upper) /* JADE's capitals keep the standard's hyphen: ACCEPT-PROPOSAL */
        for (size_t i = mark + 1; i < out->len; i++)
            if (out->buf[i] == '_')
                out->buf[i] = '-';
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)msg, key, v)
    {
        if (strcmp(key, "performative") != 0)
            write_parameter(&w, msg, key, v);
    }
    sb_adds(out, ")\n");
    if (w.failed)
        out->len = mark, out->buf[mark] = '\0';
    return !w.failed;
}
