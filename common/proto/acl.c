#include "proto/acl.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/jsonout.h"
#include "base/strmap.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "proto/acl_lex.h"
#include "proto/fipa.h"

/* Members the reader and writer keep for themselves (acl.h says what each means). */
static const char expressions_member[] = "x-acp-expressions";
static const char quoted_member[] = "x-acp-quoted";
static const char spelling_member[] = "x-acp-reply-by";
static const char partial_member[] = "x-acp-partial";
static const char content_text_member[] = "x-acp-content-text";

/* The parameter names one object (the message, or an agent) has read or written, in lower case:
 * names are compared without regard to case. An object has a few, searched in turn; one with
 * many keeps them in a map too, so that a hostile one costs no square. */
enum { NAME_SET_SEARCHED = 16 };

struct name_set {
    struct strbuf names; /* each with its NUL */
    size_t count;
    /* of each name searched: where it starts in names, and its length and first byte, which
     * tell most names apart before their bytes are compared */
    struct {
        size_t at, len;
        char first;
    } searched[NAME_SET_SEARCHED];
    struct strmap *many; /* every name, once there are NAME_SET_SEARCHED */
};

static void name_set_free(struct name_set *s)
{
    sb_free(&s->names);
    if (s->many)
        strmap_free(s->many, NULL);
}

/* Adds name; false when the set holds it already. */
static bool name_set_add(struct name_set *s, const char *name)
{
    size_t len = strlen(name);
    if (!s->many && s->count < NAME_SET_SEARCHED) {
        for (size_t i = 0; i < s->count; i++)
            if (s->searched[i].len == len && s->searched[i].first == name[0] &&
                memcmp(s->names.buf + s->searched[i].at, name, len) == 0)
                return false;
        s->searched[s->count].at = s->names.len;
        s->searched[s->count].len = len;
        s->searched[s->count++].first = name[0];
        sb_add(&s->names, name, len + 1);
        return true;
    }
    if (!s->many) {
        s->many = strmap_new();
        for (size_t i = 0; i < s->count; i++)
            strmap_put(s->many, s->names.buf + s->searched[i].at, s);
    }
    return strmap_put(s->many, name, s) == NULL;
}

enum sexp_type { SX_LIST, SX_WORD, SX_STRING };

/* One expression of the record: a list, a word, or a decoded string. */
struct sexp {
    enum sexp_type type;
    char *text; /* word or string bytes, NUL-terminated (strings may hold NULs: see len) */
    size_t len;
    size_t start, end; /* bytes of the record it spans */
    struct sexp **items;
    size_t count, cap;
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
    time_t now; /* relative date-times count from here */
    bool failed;
    struct line_mark mark;
    struct arena sexps;  /* the expression tree's nodes and texts, freed at once */
    struct strbuf lower; /* a parameter name in lower case */
};

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
    diag_emit(p->sink, &at, "acl-syntax", "%s (byte %zu of the message)", what, offset + 1);
    p->failed = true;
}

static struct sexp *new_node(struct acl_parser *p, enum sexp_type type, size_t start)
{
    struct sexp *x = arena_alloc(&p->sexps, sizeof *x);
    *x = (struct sexp){.type = type, .start = start};
    return x;
}

/* A list's items grow by doubling in the arena: the arrays left behind add up to no more than
 * the last. */
static void append_item(struct acl_parser *p, struct sexp *list, struct sexp *item)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 8;
        struct sexp **items = arena_alloc(&p->sexps, cap * sizeof *items);
        if (list->count)
            memcpy(items, list->items, list->count * sizeof *items);
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = item;
}

/* Writes the text of a word, literal or byte-length string of s to out, which has room for the
 * token's bytes; returns its length: a word as it is; a literal with \" read as a quote (JADE's
 * rule: every other backslash stays); a byte-length string as its N bytes. */
static size_t atom_text(const char *s, const struct acl_token *tok, char *out)
{
    if (tok->kind == ACL_WORD) {
        memcpy(out, s + tok->start, tok->size);
        return tok->size;
    }
    if (tok->kind == ACL_BYTES) {
        memcpy(out, s + tok->end - tok->length, (size_t)tok->length);
        return (size_t)tok->length;
    }
    size_t n = 0;
    for (size_t i = tok->start + 1; i + 1 < tok->end; i++) {
        if (s[i] == '\\' && i + 2 < tok->end && s[i + 1] == '"')
            i++;
        out[n++] = s[i];
    }
    return n;
}

static struct sexp *read_atom(struct acl_parser *p, const struct acl_token *tok)
{
    struct sexp *x = new_node(p, tok->kind == ACL_WORD ? SX_WORD : SX_STRING, tok->start);
    x->end = tok->end;
    char *text = arena_alloc(&p->sexps, tok->end - tok->start + 1);
    x->len = atom_text(p->rec->text, tok, text);
    text[x->len] = '\0';
    x->text = text;
    return x;
}

/* Reports where the shape check found the record not to be a message. */
static void shape_error(struct acl_parser *p, const struct acl_shape *sh, enum acl_shape_error err,
                        const struct acl_token *tok, size_t list_start, const struct acl_token *key)
{
    size_t at = sh->at == SHAPE_AT_LIST  ? list_start
                : sh->at == SHAPE_AT_KEY ? key->start
                                         : tok->start;
    if (err != SHAPE_NO_VALUE) {
        syntax_error(p, at, acl_shape_message(err));
        return;
    }
    char *name = xstrndup(p->rec->text + key->start, key->size);
    struct diag_where where = where_at(p, at);
    diag_emit(p->sink, &where, "acl-syntax",
              "parameter '%s' without a value (byte %zu of the message)", name, at + 1);
    free(name);
    p->failed = true;
}

/* The record's expression tree, read with the lexer and the shape check the reader split it
 * with; NULL after reporting why it is not one message. */
static struct sexp *read_tree(struct acl_parser *p)
{
    const struct record *rec = p->rec;
    struct acl_lexer lx;
    struct acl_shape sh;
    acl_lex_init(&lx);
    acl_shape_init(&sh);
    struct sexp *open[ACL_MAX_DEPTH + 2];
    size_t depth = 0;
    struct sexp *root = NULL;
    struct acl_token tok, key = {.kind = ACL_WORD};
    enum acl_lex_result res;
    while ((res = acl_lex_next(&lx, rec->text, rec->len, true, &tok)) == ACL_LEX_TOKEN) {
        enum acl_shape_error err = acl_shape_feed(&sh, &tok, rec->text);
        if (err != SHAPE_OK) {
            shape_error(p, &sh, err, &tok, depth ? open[depth - 1]->start : tok.start, &key);
            return NULL;
        }
        if (sh.depth > 0 && sh.frame[sh.depth - 1].step == STEP_VALUE && tok.kind == ACL_WORD)
            key = tok;
        if (tok.kind == ACL_OPEN) {
            struct sexp *list = new_node(p, SX_LIST, tok.start);
            if (depth > 0)
                append_item(p, open[depth - 1], list);
            else
                root = list;
            open[depth++] = list;
        } else if (tok.kind == ACL_CLOSE) {
            open[--depth]->end = tok.end;
        } else {
            append_item(p, open[depth - 1], read_atom(p, &tok));
        }
    }
    if (res == ACL_LEX_UNFINISHED)
        syntax_error(p, tok.start,
                     tok.kind == ACL_LITERAL
                         ? "string literal without its closing quote"
                         : "byte-length string runs past the end of the message");
    else if (!root)
        syntax_error(p, rec->len, "expected '(' to start a message");
    else if (!sh.done)
        syntax_error(p, open[depth - 1]->start, "expression without its closing parenthesis");
    return p->failed ? NULL : root;
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
        diag_emit((p)->sink, &at_, code, __VA_ARGS__);                                             \
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

/* What one message or agent-identifier has read so far. */
struct object_reading {
    struct name_set seen; /* its parameter names */
    json_t *expressions;  /* members read from a parenthesised expression, or NULL: none */
    json_t *quoted;       /* user parameters read from a "..." string that could be a word */
};

static void object_reading_init(struct object_reading *r)
{
    *r = (struct object_reading){.seen = {.names = STRBUF_INIT}};
}

/* Appends name to a list of member names made when it is first needed. */
static void note_member(json_t **list, const char *name)
{
    if (!*list)
        *list = json_array();
    json_array_append_new(*list, json_string(name));
}

/* Adds the expressions marker to obj (when there is one) and frees the rest. */
static void object_reading_finish(struct acl_parser *p, struct object_reading *r, json_t *obj,
                                  const struct sexp *x);

/* A parameter's name must be a member's name: no NUL, valid UTF-8. And it may come only once,
 * whatever its case. */
static bool first_parameter(struct acl_parser *p, struct object_reading *r, const struct sexp *key)
{
    if (memchr(key->text, '\0', key->len)) {
        fail_at(p, key, "nul-byte", "NUL byte in a parameter name");
        return false;
    }
    if (!utf8_valid((const unsigned char *)key->text, key->len)) {
        fail_at(p, key, "bad-utf8", "a parameter name is not valid UTF-8");
        return false;
    }
    sb_reset(&p->lower);
    sb_add(&p->lower, key->text + 1, key->len - 1);
    for (size_t i = 0; i < p->lower.len; i++)
        p->lower.buf[i] = (char)tolower((unsigned char)p->lower.buf[i]);
    bool first = name_set_add(&r->seen, p->lower.buf);
    if (!first)
        fail_at(p, key, "duplicate-key",
                "parameter '%s' is given twice (names are compared without regard to case)",
                key->text);
    return first;
}

/* Sets a member the object does not have yet: two parameters that give one member a value are
 * an error, as duplicate keys are in JSON. Takes v. */
static void set_member(struct acl_parser *p, json_t *obj, const char *name, json_t *v,
                       const struct sexp *key)
{
    if (json_object_get(obj, name)) {
        fail_at(p, key, "duplicate-key", "'%s' gives member '%s' a second value", key->text, name);
        json_decref(v);
        return;
    }
    json_object_set_new(obj, name, v);
}

static void object_reading_finish(struct acl_parser *p, struct object_reading *r, json_t *obj,
                                  const struct sexp *x)
{
    if (!p->failed && r->expressions)
        set_member(p, obj, expressions_member, json_incref(r->expressions), x);
    if (!p->failed && r->quoted)
        set_member(p, obj, quoted_member, json_incref(r->quoted), x);
    name_set_free(&r->seen);
    json_decref(r->expressions);
    json_decref(r->quoted);
}

/* Whether the writer writes the member in a form of its own (an agent, a set of agents, a
 * date-time, a sequence), never as text. agent: a slot of an agent-identifier. */
static bool written_in_own_form(const char *member, bool agent)
{
    static const char *const message_members[] = {"sender", "receiver", "reply_to", "reply_by"};
    static const char *const agent_members[] = {"name", "addresses", "resolvers"};
    const char *const *list = agent ? agent_members : message_members;
    size_t n = agent ? sizeof agent_members / sizeof *agent_members
                     : sizeof message_members / sizeof *message_members;
    for (size_t i = 0; i < n; i++)
        if (strcmp(member, list[i]) == 0)
            return true;
    return false;
}

/* A list value read as its text is marked, so that the writer writes it as a list again; for a
 * member written in a form of its own (:X-acp-sender (...)) it is just text, as the writer
 * would not write it back as that list. */
static void set_value(struct acl_parser *p, struct object_reading *r, json_t *obj, const char *name,
                      json_t *v, const struct sexp *key, const struct sexp *value, bool agent)
{
    if (value->type == SX_LIST && json_is_string(v) && !written_in_own_form(name, agent))
        note_member(&r->expressions, name);
    set_member(p, obj, name, v, key);
}

/* The letter of the prefix of the member that a user parameter :X-rest (or :x-rest: JADE reads
 * either as the same parameter) stands for: x for the mappings' own families (x-iacp-kind,
 * x-fipa-sender), X, JADE's, for any other name (X-priority). */
static char user_prefix_letter(const char *rest)
{
    return strncmp(rest, "iacp-", 5) == 0 || strncmp(rest, "fipa-", 5) == 0 ? 'x' : 'X';
}

static bool is_plain_word(const char *s, size_t len);

/* Whether the writer writes a member of this name and string value as JSON text
 * (:X-acp-json-NAME), where a string is a string however it is spelt: a name the reader would
 * take for its prefix, or a "partial" that :X-acp-partial true would turn into the marker. */
static bool written_as_json(const char *name, const char *value)
{
    return strncasecmp(name, "json-", 5) == 0 ||
           (strcasecmp(name, "partial") == 0 && value && strcmp(value, "true") == 0);
}

/* A user parameter's value as a string, and the member it sets: a "..." string whose text would
 * be written as a word is marked, so that it is written back as a string (in FIPA SL "yes" and
 * yes are a String and a Word). */
static void set_user_value(struct acl_parser *p, struct object_reading *r, json_t *obj,
                           const char *name, json_t *v, const struct sexp *key,
                           const struct sexp *value, bool agent)
{
    if (value->type == SX_STRING && is_plain_word(value->text, value->len) &&
        !written_as_json(name, value->text))
        note_member(&r->quoted, name);
    set_value(p, r, obj, name, v, key, value, agent);
}

/* A user parameter (":X-...") or unknown parameter into its member, by the rules in acl.h. agent:
 * it is a slot of an agent-identifier. */
static void set_user_parameter(struct acl_parser *p, struct object_reading *r, json_t *obj,
                               const struct sexp *key, const struct sexp *value, bool agent)
{
    const char *name = key->text + 1;
    json_t *v = expression_json(p, value);
    if (!v)
        return;
    if (strncasecmp(name, "x-acp-json-", 11) == 0 && name[11]) {
        if (value->type == SX_LIST) { /* no JSON: an expression, whose member's name took the
                                         long way (json-x) */
            set_value(p, r, obj, name + 11, v, key, value, agent);
            return;
        }
        json_error_t err;
        const char *text = json_string_value(v);
        json_t *parsed = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
        if (parsed) {
            set_member(p, obj, name + 11, parsed, key);
            json_decref(v);
            return;
        }
        struct diag_where at = where_at(p, value->start);
        diag_emit(p->sink, &at, "acl-json", "':%s' is not JSON (%s); kept as text", name, err.text);
        set_value(p, r, obj, name + 11, v, key, value, agent);
        return;
    }
    if (strncasecmp(name, "x-acp-", 6) == 0 && name[6]) {
        set_user_value(p, r, obj, name + 6, v, key, value, agent);
        return;
    }
    if (strncasecmp(name, "x-", 2) != 0) {
        set_user_value(p, r, obj, name, v, key, value, agent);
        return;
    }
    char *member = xstrdup(name);
    member[0] = user_prefix_letter(name + 2);
    set_user_value(p, r, obj, member, v, key, value, agent);
    free(member);
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

/* One slot of an agent-identifier into name or slots. */
static void read_agent_slot(struct acl_parser *p, struct object_reading *r, json_t *slots,
                            json_t **name, bool *object, const struct sexp *key,
                            const struct sexp *value)
{
    const char *slot = key->text + 1;
    if (strcasecmp(slot, "name") == 0) {
        *name = is_text(value) ? text_json(p, value) : NULL;
        if (!*name && !p->failed)
            fail_at(p, value, "acl-syntax", "expected a name");
    } else if (strcasecmp(slot, "addresses") == 0 || strcasecmp(slot, "resolvers") == 0) {
        bool resolvers = tolower((unsigned char)slot[0]) == 'r';
        json_t *v = read_sequence(p, value, resolvers);
        if (v)
            set_member(p, slots, resolvers ? "resolvers" : "addresses", v, key);
    } else if (strcasecmp(slot, "x-acp-object") == 0) {
        *object = true; /* an object although it holds only the name */
    } else {
        set_user_parameter(p, r, slots, key, value, true);
    }
    /* :X-acp-name gives the name a second value, as a second :name would. */
    if (*name && json_object_get(slots, "name") && !p->failed)
        fail_at(p, key, "duplicate-key", "'%s' gives member 'name' a second value", key->text);
}

/* (agent-identifier :name N [:addresses (sequence ...)] [:resolvers (sequence ...)] ...) */
static json_t *read_agent(struct acl_parser *p, const struct sexp *x)
{
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "agent-identifier")) {
        fail_at(p, x, "acl-syntax", "expected (agent-identifier ...)");
        return NULL;
    }
    struct object_reading r;
    object_reading_init(&r);
    json_t *slots = json_object(); /* every member but the name, in order */
    json_t *name = NULL;
    bool object = false;
    for (size_t i = 1; i < x->count && !p->failed; i += 2) {
        const struct sexp *key = x->items[i];
        if (key->type != SX_WORD || key->text[0] != ':' || key->len < 2 || i + 1 >= x->count) {
            fail_at(p, key, "acl-syntax", "expected :name, :addresses or :resolvers");
            break;
        }
        if (first_parameter(p, &r, key))
            read_agent_slot(p, &r, slots, &name, &object, key, x->items[i + 1]);
    }
    if (!p->failed && !name)
        fail_at(p, x, "acl-syntax", "agent-identifier without :name");
    object_reading_finish(p, &r, slots, x);
    if (p->failed) {
        json_decref(name);
        json_decref(slots);
        return NULL;
    }
    if (json_object_size(slots) == 0 && !object) {
        json_decref(slots);
        return name;
    }
    json_t *agent = json_object();
    json_object_set_new(agent, "name", name);
    json_object_update(agent, slots);
    json_decref(slots);
    return agent;
}

/* (set AID...) — or, leniently, one bare agent-identifier. One agent becomes that agent, and an
 * empty set no member at all: it names no agent, as a missing parameter does. NULL then too. */
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
    if (p->failed || json_array_size(arr) == 0) {
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

/* --- date-times --- */

/* SC00070's DateTime: [sign] YYYYMMDD T hhmmss mmm [type designator], the milliseconds
 * optional (as JADE reads them). */
struct date_time {
    bool relative;
    long long millis; /* absolute: since 1970-01-01 UTC; relative: signed, the duration */
    char designator;  /* the type designator letter, or 0 */
};

enum { MILLIS_PER_DAY = 86400000 };

static bool parse_date_time(const char *s, size_t n, struct date_time *dt)
{
    memset(dt, 0, sizeof *dt);
    size_t i = 0;
    bool negative = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        dt->relative = true;
        negative = s[0] == '-';
        i = 1;
    }
    int y, mo, d, h, mi, sec, ms = 0;
    if (n - i < 15 || !time_digits(s + i, 4, &y) || !time_digits(s + i + 4, 2, &mo) ||
        !time_digits(s + i + 6, 2, &d) || (s[i + 8] != 'T' && s[i + 8] != 't') ||
        !time_digits(s + i + 9, 2, &h) || !time_digits(s + i + 11, 2, &mi) ||
        !time_digits(s + i + 13, 2, &sec))
        return false;
    size_t rest = i + 15;
    if (n - rest >= 3 && time_digits(s + rest, 3, &ms))
        rest += 3;
    if (rest < n && isalpha((unsigned char)s[rest]))
        dt->designator = s[rest++];
    if (rest != n)
        return false;
    if (dt->relative) {
        /* JADE's reckoning: a year is 365 days, a month 30. */
        long long days = y * 365LL + mo * 30LL + d;
        long long millis = ((days * 24 + h) * 60 + mi) * 60000LL + sec * 1000LL + ms;
        dt->millis = negative ? -millis : millis;
        return true;
    }
    char iso[32];
    snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, d, h, mi, sec);
    double epoch;
    bool zone;
    if (!time_parse_rfc3339(iso, &epoch, &zone))
        return false;
    dt->millis = (long long)epoch * 1000 + ms;
    return true;
}

static void split_millis(long long millis, long long *secs, int *ms)
{
    *secs = millis / 1000;
    *ms = (int)(millis % 1000);
    if (*ms < 0) {
        *ms += 1000;
        (*secs)--;
    }
}

/* RFC 3339 in UTC, with milliseconds when there are any: 2024-01-15T10:35:00.250Z */
static void format_rfc3339_millis(long long millis, char *buf, size_t size)
{
    long long secs;
    int ms;
    split_millis(millis, &secs, &ms);
    time_format_rfc3339(secs, buf, size);
    size_t len = strlen(buf);
    if (ms && len > 0)
        snprintf(buf + len - 1, size - (len - 1), ".%03dZ", ms);
}

/* The writer's spelling, JADE's: 20240115T103500250Z */
static void format_date_time(long long millis, char *buf, size_t size)
{
    long long secs;
    int ms;
    split_millis(millis, &secs, &ms);
    char iso[48];
    time_format_rfc3339(secs, iso, sizeof iso);
    size_t n = 0;
    for (const char *c = iso; *c && n + 1 < size; c++)
        if (isdigit((unsigned char)*c) || *c == 'T')
            buf[n++] = *c;
    snprintf(buf + n, size - n, "%03dZ", ms);
}

/* Whether millis falls in the years 0000 to 9999, which the two spellings can say. */
static bool date_time_in_range(long long millis)
{
    return millis >= time_days_from_civil(0, 1, 1) * MILLIS_PER_DAY &&
           millis < time_days_from_civil(10000, 1, 1) * MILLIS_PER_DAY;
}

/* :reply-by: UTC with Z; another letter, or none, is read as UTC with a warning (JADE would read
 * local time); a relative time counts from now. A spelling other than the writer's is kept in
 * x-acp-reply-by, so that it goes back as it came. */
static void read_reply_by(struct acl_parser *p, json_t *msg, const struct sexp *key,
                          const struct sexp *x)
{
    struct date_time dt;
    if (!is_text(x) || !parse_date_time(x->text, x->len, &dt)) {
        fail_at(p, x, "acl-time", "'%s' is not a date-time such as 20240115T103500000Z",
                is_text(x) ? x->text : "(...)");
        return;
    }
    long long millis = dt.millis;
    if (dt.relative) {
        millis += (long long)p->now * 1000;
        if (!date_time_in_range(millis)) {
            fail_at(p, x, "acl-time", "relative date-time '%s' falls outside the years 0 to 9999",
                    x->text);
            return;
        }
    } else if (dt.designator != 'Z' && dt.designator != 'z') {
        struct diag_where at = where_at(p, x->start);
        if (dt.designator)
            diag_emit(p->sink, &at, "acl-time-zone",
                      "date-time '%s' has the type designator '%c', not Z; read as UTC", x->text,
                      dt.designator);
        else
            diag_emit(p->sink, &at, "acl-time-zone", "date-time '%s' has no Z; read as UTC",
                      x->text);
    }
    char buf[48];
    format_rfc3339_millis(millis, buf, sizeof buf);
    set_member(p, msg, "reply_by", json_string(buf), key);
    format_date_time(millis, buf, sizeof buf);
    if (!p->failed && strcmp(buf, x->text) != 0)
        set_member(p, msg, spelling_member, json_string(x->text), key);
}

/* --- messages --- */

/* What a parameter's value is, which says how it is read and written. */
enum parameter_form { FORM_TEXT, FORM_AGENT, FORM_AGENT_SET, FORM_CONTENT, FORM_DATE_TIME };

struct parameter {
    const char *keyword; /* as SC00070 spells it */
    const char *member;  /* as Caxton's JSON spells it */
    enum parameter_form form;
};

static const struct parameter parameters[] = {
    {"sender", "sender", FORM_AGENT},
    {"receiver", "receiver", FORM_AGENT_SET},
    {"reply-to", "reply_to", FORM_AGENT_SET},
    {"content", "content", FORM_CONTENT},
    {"language", "language", FORM_TEXT},
    {"encoding", "encoding", FORM_TEXT},
    {"ontology", "ontology", FORM_TEXT},
    {"protocol", "protocol", FORM_TEXT},
    {"conversation-id", "conversation_id", FORM_TEXT},
    {"reply-with", "reply_with", FORM_TEXT},
    {"in-reply-to", "in_reply_to", FORM_TEXT},
    {"reply-by", "reply_by", FORM_DATE_TIME},
};

static const struct parameter *find_parameter_by_keyword(const char *keyword)
{
    int first = tolower((unsigned char)keyword[0]);
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++)
        if (first == parameters[i].keyword[0] && strcasecmp(keyword, parameters[i].keyword) == 0)
            return &parameters[i];
    return NULL;
}

static const struct parameter *find_parameter_by_member(const char *member)
{
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++)
        if (member[0] == parameters[i].member[0] && strcmp(member, parameters[i].member) == 0)
            return &parameters[i];
    return NULL;
}

/* What one message has read so far, besides its members. */
struct message_reading {
    struct object_reading object;
    json_t *reply_by;                /* :X-acp-reply_by, which replaces reply_by */
    bool json_content;               /* :X-acp-json-content */
    bool content_text;               /* :X-acp-content-text true */
    bool language_added;             /* :X-acp-language none */
    const struct sexp *performative; /* :X-acp-performative's value */
    size_t content_at;
    const struct sexp *content_key; /* :content, for a second value of its marker */
};

/* The writer's markers: parameters that say how to read the others. True when key is one. */
static bool read_marker(struct acl_parser *p, json_t *msg, const struct sexp *key,
                        const struct sexp *value, struct message_reading *mr)
{
    const char *name = key->text + 1;
    if (strncasecmp(name, "x-acp-", 6) != 0) /* every marker's prefix */
        return false;
    if (strcasecmp(name, "x-acp-json-content") == 0)
        mr->json_content = true;
    else if (strcasecmp(name, content_text_member) == 0 && is_text(value) &&
             strcmp(value->text, "true") == 0)
        mr->content_text = true;
    else if (strcasecmp(name, "x-acp-language") == 0)
        mr->language_added = true;
    else if (strcasecmp(name, "x-acp-performative") == 0)
        mr->performative = value;
    else if (strcasecmp(name, "x-acp-reply_by") == 0)
        mr->reply_by = expression_json(p, value);
    else if (strcasecmp(name, partial_member) == 0 && is_text(value) &&
             strcmp(value->text, "true") == 0)
        set_member(p, msg, partial_member, json_true(), key);
    else
        return false;
    return true;
}

static void read_parameter(struct acl_parser *p, json_t *msg, const struct sexp *key,
                           const struct sexp *value, struct message_reading *mr)
{
    if (!first_parameter(p, &mr->object, key) || read_marker(p, msg, key, value, mr))
        return;
    const char *name = key->text + 1;
    const struct parameter *param = find_parameter_by_keyword(name);
    if (!param) {
        if (strncasecmp(name, "x-", 2) != 0) {
            struct diag_where at = where_at(p, key->start);
            diag_emit(p->sink, &at, "acl-parameter", "unknown parameter ':%s' kept as a member",
                      name);
        }
        set_user_parameter(p, &mr->object, msg, key, value, false);
        return;
    }
    json_t *v = NULL;
    if (param->form == FORM_DATE_TIME) {
        read_reply_by(p, msg, key, value);
    } else if (param->form == FORM_AGENT) {
        v = read_agent(p, value);
    } else if (param->form == FORM_AGENT_SET) {
        v = read_agent_set(p, value);
    } else {
        if (param->form == FORM_CONTENT) {
            mr->content_at = value->start;
            mr->content_key = key;
        }
        v = expression_json(p, value);
        if (v)
            set_value(p, &mr->object, msg, param->member, v, key, value, false);
        return;
    }
    if (v)
        set_member(p, msg, param->member, v, key);
}

/* The value of JSON text content, by the scanner, which accepts what jansson does with these
 * flags; NULL, with jansson's reason in err, when it is none. */
static json_t *content_json(const json_t *content, json_error_t *err)
{
    const char *text = json_string_value(content);
    size_t len = json_string_length(content);
    struct jscan *js = jscan_new();
    const struct jv *v = jscan_scan(js, text, len);
    json_t *parsed =
        v ? jscan_to_tree(v) : json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, err);
    jscan_free(js);
    return parsed;
}

/* Content is JSON when the language says so (or the writer's marker does). What is not stays
 * text, marked x-acp-content-text so that the writer writes it as it came, not as a JSON
 * string: SL content under :language json (JADE's createReply copies the language), and JSON
 * that the JSON Lines tools cannot hold (an integer beyond 64 bits, a real beyond a double:
 * number-range), which is valid JSON and so no warning. */
static void decode_content(struct acl_parser *p, json_t *msg, const struct message_reading *mr)
{
    const char *language = json_member_string(msg, "language");
    json_t *content = json_object_get(msg, "content");
    bool is_json = mr->json_content || (language && strcasecmp(language, "json") == 0);
    if (mr->language_added)
        json_object_del(msg, "language");
    if (!json_is_string(content) || (!is_json && !mr->content_text))
        return;
    json_error_t err;
    json_t *parsed = mr->content_text ? NULL : content_json(content, &err);
    if (parsed) {
        json_object_set_new(msg, "content", parsed);
        return;
    }
    if (!mr->content_text && json_error_code(&err) != json_error_numeric_overflow) {
        struct diag_where at = where_at(p, mr->content_at);
        diag_emit(p->sink, &at, "acl-json", "the content is not JSON (%s); kept as text", err.text);
    }
    set_member(p, msg, content_text_member, json_true(), mr->content_key);
}

/* counter_propose, which SC00037 lacks and JADE cannot read, travels as a propose with the
 * marker :X-acp-performative counter_propose. */
static void read_counter_propose(struct acl_parser *p, json_t *msg, enum fipa_act act,
                                 const struct sexp *value)
{
    if (!is_text(value) || acl_act(value->text, value->len) != FIPA_COUNTER_PROPOSE) {
        fail_at(p, value, "acl-performative",
                "':X-acp-performative' names '%s'; only counter_propose is read there",
                is_text(value) ? value->text : "(...)");
        return;
    }
    if (act != FIPA_PROPOSE) {
        fail_at(p, value, "acl-performative",
                "':X-acp-performative counter_propose' belongs to a propose, not a %s",
                fipa_act_name(act, SPELL_KEBAB));
        return;
    }
    json_object_set_new(msg, "performative",
                        json_string(fipa_act_name(FIPA_COUNTER_PROPOSE, SPELL_SNAKE)));
}

static json_t *read_message(struct acl_parser *p, const struct sexp *x)
{
    const struct sexp *head = x->items[0]; /* a word: the shape check saw to it */
    enum fipa_act act = acl_act(head->text, head->len);
    if (act == FIPA_ACT_INVALID) {
        fail_at(p, head, "acl-performative", "'%s' is not a FIPA communicative act", head->text);
        return NULL;
    }
    json_t *msg = json_object();
    json_object_set_new(msg, "performative", json_string(fipa_act_name(act, SPELL_SNAKE)));
    struct message_reading mr = {.content_at = x->start};
    object_reading_init(&mr.object);
    for (size_t i = 1; i + 1 < x->count && !p->failed; i += 2)
        read_parameter(p, msg, x->items[i], x->items[i + 1], &mr);
    if (!p->failed && mr.performative)
        read_counter_propose(p, msg, act, mr.performative);
    if (!p->failed && mr.reply_by)
        json_object_set(msg, "reply_by", mr.reply_by);
    object_reading_finish(p, &mr.object, msg, x);
    json_decref(mr.reply_by);
    if (!p->failed)
        decode_content(p, msg, &mr);
    if (p->failed) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *acl_parse(const struct record *rec, struct diag_sink *sink, time_t now)
{
    struct acl_parser p = {.rec = rec, .sink = sink, .now = now};
    struct sexp *x = read_tree(&p);
    json_t *msg = x ? read_message(&p, x) : NULL;
    arena_free(&p.sexps);
    sb_free(&p.lower);
    return msg;
}

bool acl_content_text(const struct record *rec, struct strbuf *out)
{
    struct acl_lexer lx;
    acl_lex_init(&lx);
    struct acl_token tok;
    unsigned long depth = 0, item = 0; /* the message's items: its act, then keys and values */
    bool at_content = false;
    while (acl_lex_next(&lx, rec->text, rec->len, true, &tok) == ACL_LEX_TOKEN) {
        if (tok.kind == ACL_CLOSE) {
            depth--;
            continue;
        }
        if (depth == 1 && at_content) {
            if (tok.kind == ACL_OPEN)
                return false; /* an expression, not text */
            sb_reset(out);
            sb_grow(out, tok.end - tok.start);
            out->len = atom_text(rec->text, &tok, out->buf);
            out->buf[out->len] = '\0';
            return true;
        }
        if (depth == 1) {
            item++;
            at_content = item % 2 == 0 && tok.kind == ACL_WORD && tok.size == 8 &&
                         strncasecmp(rec->text + tok.start, ":content", 8) == 0;
        }
        if (tok.kind == ACL_OPEN)
            depth++;
    }
    return false;
}

/* --- from FIPA JSON to the string form --- */

struct acl_writer {
    struct strbuf *out;
    struct diag_sink *sink;
    const struct diag_where *at;
    bool failed;
    struct strbuf lower;         /* a name being claimed */
                                 /* Of the object being written (the message, or an agent): */
    const char *const *reserved; /* the writer's markers' names (each x-acp-), no member's */
    struct name_set *names;
    const struct jv *expressions;    /* its x-acp-expressions, checked, or NULL */
    const struct jv *quoted;         /* its x-acp-quoted, checked, or NULL */
    const struct json_text *content; /* the text the message's content came with, or NULL */
};

/* Reports the first reason a message cannot be written; later ones add nothing. */
#define unwritable(w, ...)                                                                         \
    do {                                                                                           \
        if (!(w)->failed)                                                                          \
            diag_emit((w)->sink, (w)->at, "convert-unwritable", __VA_ARGS__);                      \
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
    sb_reset(&w->lower);
    sb_adds(&w->lower, prefix);
    sb_adds(&w->lower, name);
    for (size_t i = 0; i < w->lower.len; i++)
        w->lower.buf[i] = (char)tolower((unsigned char)w->lower.buf[i]);
    for (const char *const *r = w->reserved; *r && strncmp(w->lower.buf, "x-acp-", 6) == 0; r++)
        if (strcmp(*r, w->lower.buf) == 0)
            return false;
    return name_set_add(w->names, w->lower.buf);
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
    if (strcmp(name, partial_member) == 0 && jv_is_true(v) && claim_name(w, "x-acp-", "partial")) {
        sb_adds(w->out, " :X-acp-partial true");
        return;
    }
    /* Names the reader would take for its own prefixes go the long way, so that none is lost;
     * so does a "partial" that :X-acp-partial true would turn into the marker, and an x- name
     * whose prefix the reader would not give back in its case (x-priority, X-iacp-kind). */
    bool x_name = strncasecmp(name, "x-", 2) == 0 && strncasecmp(name, "x-acp-", 6) != 0 &&
                  name[0] == user_prefix_letter(name + 2);
    const char *prefix = x_name ? "X-" : "X-acp-";
    const char *rest = x_name ? name + 2 : name;
    if (jv_is_string(v) && !written_as_json(name, jv_string_value(v)) &&
        claim_name(w, prefix, rest)) {
        sb_adds(w->out, " :");
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
    sb_adds(w->out, " :X-acp-json-");
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
    return checked_marker(w, obj, expressions_member, fits_expression,
                          "text is one parenthesised expression");
}

static const struct jv *checked_quoted(struct acl_writer *w, const struct jv *obj)
{
    return checked_marker(w, obj, quoted_member, fits_quoted, "values are strings");
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
    sb_adds(w->out, "(sequence");
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
            sb_adds(w->out, " :");
            sb_adds(w->out, key);
            sb_addc(w->out, ' ');
            write_agent_sequence(w, v, key[0] == 'r');
        } else if (strcmp(key, "name") == 0 ||
                   (w->expressions && strcmp(key, expressions_member) == 0) ||
                   (w->quoted && strcmp(key, quoted_member) == 0)) {
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
    sb_adds(w->out, "(agent-identifier :name ");
    write_text(w, name, strlen(name), true);
    if (jv_is_object(agent) && agent->len == 1)
        sb_adds(w->out, " :X-acp-object true");
    if (jv_is_object(agent)) {
        /* the marker's, whether written or not */
        static const char *const agent_markers[] = {"x-acp-object", NULL};
        struct name_set *names = w->names, own = {.names = STRBUF_INIT};
        const char *const *reserved = w->reserved;
        const struct jv *expressions = w->expressions, *quoted = w->quoted;
        w->names = &own;
        w->reserved = agent_markers;
        w->expressions = checked_expressions(w, agent);
        w->quoted = checked_quoted(w, agent);
        write_agent_slots(w, agent);
        name_set_free(&own);
        w->names = names;
        w->reserved = reserved;
        w->expressions = expressions;
        w->quoted = quoted;
    }
    sb_addc(w->out, ')');
}

static void write_agent_set(struct acl_writer *w, const struct jv *v)
{
    sb_adds(w->out, "(set");
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
    const char *spelling = jv_member_string(msg, spelling_member);
    const char *reply_by = jv_member_string(msg, "reply_by");
    struct date_time dt;
    double epoch;
    bool zone;
    if (!spelling || !reply_by || !parse_date_time(spelling, strlen(spelling), &dt) ||
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
    if (!date_time_in_range(millis)) {
        unwritable(w, "reply_by '%s' is outside the years 0 to 9999", s);
        return;
    }
    const char *spelling = kept_spelling(msg);
    struct date_time dt;
    char buf[48];
    format_date_time(millis, buf, sizeof buf);
    sb_adds(w->out, spelling ? spelling : buf);
    /* What the reader makes of that; any other spelling (a zone offset, more digits, no
     * milliseconds where they are zero), or a relative time read at another time, also travels
     * as written, so that it comes back. */
    format_rfc3339_millis(millis, buf, sizeof buf);
    bool relative = spelling && parse_date_time(spelling, strlen(spelling), &dt) && dt.relative;
    if (relative || strcmp(buf, s) != 0) {
        sb_adds(w->out, " :X-acp-reply_by ");
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
           jv_is_true(jv_object_get(msg, content_text_member));
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
        sb_adds(w->out, "\n :X-acp-content-text true");
}

/* Content as JADE carries it: a string. JSON content is written as JSON text (the text it came
 * with, when there is one), and the language (or a marker) says so, so that the reader can tell
 * "42" from 42. */
static void write_content(struct acl_writer *w, const struct jv *msg, const struct jv *content)
{
    const char *language = jv_member_string(msg, "language");
    bool json_language = language && strcasecmp(language, "json") == 0;
    sb_adds(w->out, "\n :content ");
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
        sb_adds(w->out, "\n :language json :X-acp-language none");
    else if (!json_language)
        sb_adds(w->out, " :X-acp-json-content true");
}

static void write_parameter(struct acl_writer *w, const struct jv *msg, const char *key,
                            const struct jv *v)
{
    const struct parameter *param = find_parameter_by_member(key);
    bool marker = strncmp(key, "x-acp-", 6) == 0; /* the prefix of every member below */
    if (marker && ((strcmp(key, expressions_member) == 0 && w->expressions) ||
                   (strcmp(key, quoted_member) == 0 && w->quoted) ||
                   (strcmp(key, spelling_member) == 0 && kept_spelling(msg)) ||
                   (strcmp(key, content_text_member) == 0 && is_marked_text(msg) &&
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
    sb_adds(w->out, "\n :");
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
        write_text(w, jv_string_value(v), jv_string_length(v), true);
    else
        unwritable(w, "'%s' must be a string to be written in the string form", key);
}
/* How many bytes text starts with that are printable ASCII (0x20 to 0x7e), most of a message:
 * eight at a time, each word tested for a byte below 0x20 (the borrow sets its high bit) or
 * above 0x7e (adding one sets it). */
static size_t printable_ascii_run(const unsigned char *text, size_t len)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    size_t i = 0;
    for (uint64_t w; i + 8 <= len; i += 8) {
        memcpy(&w, text + i, 8);
        if ((((w - 0x20 * ones) & ~w) | (w + ones) | w) & highs)
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

bool acl_write(struct strbuf *out, const struct jv *msg, bool upper,
               const struct json_text *content, struct diag_sink *sink, const struct diag_where *at)
{
    struct acl_writer w = {.out = out, .sink = sink, .at = at, .content = content};
    const char *performative = jv_member_string(msg, "performative");
    enum fipa_act act = performative ? fipa_act_parse(performative) : FIPA_ACT_INVALID;
    if (act == FIPA_ACT_INVALID) {
        unwritable(&w, "'%s' is not a FIPA communicative act",
                   performative ? performative : "(no performative)");
        return false;
    }
    /* JADE knows no counter-propose: a propose carries it, with a marker that brings it back. */
    enum fipa_act written = act == FIPA_COUNTER_PROPOSE ? FIPA_PROPOSE : act;
    struct name_set names = {.names = STRBUF_INIT};
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
            write_parameter(&w, msg, jv_string_value(k), jv_object_value(k));
    if (act == FIPA_COUNTER_PROPOSE)
        sb_adds(out, "\n :X-acp-performative counter_propose");
    sb_adds(out, ")\n");
    name_set_free(&names);
    sb_free(&w.lower);
    if (!w.failed)
        refuse_controls(&w, out->buf + mark, out->len - mark);
    if (w.failed)
        out->len = mark, out->buf[mark] = '\0';
    return !w.failed;
}
