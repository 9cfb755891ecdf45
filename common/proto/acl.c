#include "proto/acl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "proto/acl_lex.h"
#include "proto/acl_parts.h"
#include "proto/fipa.h"
#include "proto/memberlist.h"

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
    time_t now; /* relative date-times count from here */
    bool failed;
    struct line_mark mark;
    struct arena sexps;  /* the expression tree's nodes and texts, freed at once */
    struct strbuf lower; /* a parameter name in lower case */
    struct jscan *json;  /* JSON text's reader (content, json-x): the caller's scratch */
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

/* The tokens of a record in turn: those the reader kept, or the lexer's. */
struct token_source {
    const struct record *rec;
    size_t next;
    struct acl_lexer lx;
};

static void token_source_init(struct token_source *ts, const struct record *rec)
{
    ts->rec = rec;
    ts->next = 0;
    acl_lex_init(&ts->lx);
}

static bool next_token(struct token_source *ts, struct acl_token *tok)
{
    const struct record *rec = ts->rec;
    if (!rec->tokens)
        return acl_lex_next(&ts->lx, rec->text, rec->len, true, tok) == ACL_LEX_TOKEN;
    if (ts->next == rec->ntokens)
        return false;
    *tok = acl_token_of(&rec->tokens[ts->next++], rec->text);
    return true;
}

/* Lexes a record whose tokens the reader did not keep, with the shape check the reader splits
 * records with; false after reporting why it is not one message, else the nodes its tree will
 * have (its tokens but the closing parentheses) counted in *n. */
static bool check_shape(struct acl_parser *p, size_t *n)
{
    const struct record *rec = p->rec;
    size_t open[ACL_MAX_DEPTH + 2]; /* where the lists open start, innermost last */
    size_t depth = 0, count = 0;
    bool opened = false;
    struct acl_lexer lx;
    struct acl_shape sh;
    acl_lex_init(&lx);
    acl_shape_init(&sh);
    struct acl_token tok, key = {.kind = ACL_WORD};
    enum acl_lex_result res;
    while ((res = acl_lex_next(&lx, rec->text, rec->len, true, &tok)) == ACL_LEX_TOKEN) {
        enum acl_shape_error err = acl_shape_feed(&sh, &tok, rec->text);
        if (err != SHAPE_OK) {
            shape_error(p, &sh, err, &tok, depth ? open[depth - 1] : tok.start, &key);
            return false;
        }
        if (sh.depth > 0 && sh.frame[sh.depth - 1].step == STEP_VALUE && tok.kind == ACL_WORD)
            key = tok;
        if (tok.kind == ACL_OPEN) {
            open[depth++] = tok.start;
            opened = true;
        } else if (tok.kind == ACL_CLOSE) {
            depth--;
        }
        count += tok.kind != ACL_CLOSE;
    }
    if (res == ACL_LEX_UNFINISHED)
        syntax_error(p, tok.start,
                     tok.kind == ACL_LITERAL
                         ? "string literal without its closing quote"
                         : "byte-length string runs past the end of the message");
    else if (!opened)
        syntax_error(p, rec->len, "expected '(' to start a message");
    else if (!sh.done)
        syntax_error(p, open[depth - 1], "expression without its closing parenthesis");
    *n = count;
    return !p->failed;
}

/* The expression tree of a record that is one message, of n nodes at most, made in three pieces of
 * the arena (nodes, item arrays, texts), not one a node: a list's items wait on a stack until it
 * closes, then take their place in an array of their number. */
static struct sexp *build_tree(struct acl_parser *p, size_t n)
{
    struct sexp *nodes = arena_alloc(&p->sexps, n * sizeof *nodes);
    struct sexp **items = arena_alloc(&p->sexps, 2 * n * sizeof *items);
    struct sexp **waiting = items + n; /* the items of the lists open */
    char *texts = arena_alloc(&p->sexps, p->rec->len + n);
    struct sexp *open[ACL_MAX_DEPTH + 2];
    size_t first_item[ACL_MAX_DEPTH + 2]; /* where each open list's items wait */
    size_t depth = 0, nwaiting = 0, used = 0;
    struct sexp *root = NULL, *x = nodes;
    struct token_source ts;
    token_source_init(&ts, p->rec);
    struct acl_token tok;
    while (next_token(&ts, &tok)) {
        if (tok.kind == ACL_CLOSE) {
            struct sexp *list = open[--depth];
            size_t first = first_item[depth];
            list->count = nwaiting - first;
            list->items = items + used;
            if (list->count)
                memcpy(list->items, waiting + first, list->count * sizeof *items);
            used += list->count;
            nwaiting = first;
            list->end = tok.end;
            continue;
        }
        if (tok.kind == ACL_OPEN) {
            *x = (struct sexp){.type = SX_LIST, .start = tok.start};
        } else {
            *x = (struct sexp){.type = tok.kind == ACL_WORD ? SX_WORD : SX_STRING,
                               .text = texts,
                               .start = tok.start,
                               .end = tok.end};
            x->len = atom_text(p->rec->text, &tok, texts);
            texts[x->len] = '\0';
            texts += x->len + 1;
        }
        if (depth > 0)
            waiting[nwaiting++] = x;
        else
            root = x;
        if (tok.kind == ACL_OPEN) {
            first_item[depth] = nwaiting;
            open[depth++] = x;
        }
        x++;
    }
    return root;
}

/* The record's expression tree, read with the lexer and the shape check the reader split it
 * with; NULL after reporting why it is not one message. A record whose tokens the reader kept
 * was lexed and checked there. */
static struct sexp *read_tree(struct acl_parser *p)
{
    /* kept tokens are few (the reader keeps no more than a few thousand): a node each, closing
     * parentheses too, rather than a pass to count them */
    size_t n = p->rec->ntokens;
    if (!p->rec->tokens && !check_shape(p, &n))
        return NULL;
    return build_tree(p, n);
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

/* Bytes that a JSON string is made of, which may be written as one: no NUL, valid UTF-8. */
struct span {
    const char *s;
    size_t len;
};

/* Whether bytes of x, what (a string, a parameter name), can be a JSON string or a member's
 * name: no NUL, valid UTF-8; false after reporting why not. */
static bool bytes_valid(struct acl_parser *p, const struct sexp *x, const char *s, size_t len,
                        const char *what)
{
    if (memchr(s, '\0', len)) {
        fail_at(p, x, "nul-byte", "NUL byte in %s", what);
        return false;
    }
    if (!utf8_valid((const unsigned char *)s, len)) {
        fail_at(p, x, "bad-utf8", "%s is not valid UTF-8", what);
        return false;
    }
    return true;
}

/* Whether the bytes of x can be a JSON string; false after reporting why not. */
static bool text_valid(struct acl_parser *p, const struct sexp *x, const struct span *text)
{
    return bytes_valid(p, x, text->s, text->len, "a string");
}

/* Any expression as text: text as it is, a list as the source text it spans; false after
 * reporting why it can be no JSON string. */
static bool expression_text(struct acl_parser *p, const struct sexp *x, struct span *out)
{
    if (is_text(x))
        *out = (struct span){x->text, x->len};
    else
        *out = (struct span){p->rec->text + x->start, x->end - x->start};
    return text_valid(p, x, out);
}

/* The value of text when it is JSON as jansson reads it (JSON_DECODE_ANY |
 * JSON_REJECT_DUPLICATES), by the scanner, which accepts what jansson does; else NULL, with
 * jansson's reason in err. Valid until the next call. */
static const struct jv *json_text(struct acl_parser *p, const struct span *text, json_error_t *err)
{
    const struct jv *v = jscan_scan(p->json, text->s, text->len);
    if (!v)
        json_decref(json_loadb(text->s, text->len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, err));
    return v;
}

/* What one message or agent-identifier has read so far. */
struct object_reading {
    struct acl_names seen;     /* its parameter names */
    struct strbuf expressions; /* members read from a parenthesised expression: a JSON array
                                  open at its end, or empty: none */
    struct strbuf quoted;      /* user parameters read from a "..." string that could be a word */
};

static void object_reading_init(struct object_reading *r)
{
    acl_names_init(&r->seen);
    r->expressions = (struct strbuf)STRBUF_INIT;
    r->quoted = (struct strbuf)STRBUF_INIT;
}

/* Appends name to a list of member names, opened when it is first needed. */
static void note_member(struct strbuf *list, const char *name)
{
    sb_addc(list, list->len ? ',' : '[');
    struct jsonout w;
    jsonout_init(&w, list, JSONOUT_VALID);
    jsonout_string(&w, name, strlen(name));
}

/* Copies a parameter's name without its colon, in lower case, to p->lower; false when it holds
 * a byte that is no ASCII (or a NUL), for the slower checks. Most names are ASCII. */
static bool lower_ascii_name(struct acl_parser *p, const struct sexp *key)
{
    sb_reset(&p->lower);
    sb_grow(&p->lower, key->len);
    size_t n = key->len - 1;
    bool nul;
    unsigned bits = acl_lower_ascii(p->lower.buf, key->text + 1, n, &nul);
    p->lower.len = n;
    return bits < 0x80 && !nul;
}

/* Whether the name lower_parameter lowered last is lit (n bytes), or starts with it and goes on:
 * the tests of a name that strcasecmp and strncasecmp made, on bytes lowered once. Valid until
 * the next parameter is read (an agent's slots are read inside a message's parameter). */
static bool lowered_is(const struct acl_parser *p, const char *lit, size_t n)
{
    return p->lower.len == n && memcmp(p->lower.buf, lit, n) == 0;
}

static bool lowered_starts(const struct acl_parser *p, const char *lit, size_t n, size_t more)
{
    return p->lower.len >= n + more && memcmp(p->lower.buf, lit, n) == 0;
}

#define LOWERED_IS(p, lit) lowered_is((p), lit, sizeof lit - 1)
/* starts with lit, or also has more bytes after it (as a prefix of a member's name) */
#define LOWERED_STARTS(p, lit)   lowered_starts((p), lit, sizeof lit - 1, 0)
#define LOWERED_PREFIXES(p, lit) lowered_starts((p), lit, sizeof lit - 1, 1)

/* Lowers a parameter's name (p->lower), which must be a member's name: no NUL, valid UTF-8;
 * false after reporting why not. */
static bool lower_parameter(struct acl_parser *p, const struct sexp *key)
{
    /* lowered all the same: bytes above 0x7f stay as they are */
    return lower_ascii_name(p, key) || bytes_valid(p, key, key->text, key->len, "a parameter name");
}

/* A parameter may come only once, whatever its case: one of a table's names by its bit (known),
 * any other (known < 0) by its name as lower_parameter left it. */
static bool first_time(struct acl_parser *p, struct object_reading *r, const struct sexp *key,
                       int known)
{
    bool first = known >= 0 ? acl_names_add_known(&r->seen, (unsigned)known)
                            : acl_names_add(&r->seen, p->lower.buf, p->lower.len);
    if (!first)
        fail_at(p, key, "duplicate-key",
                "parameter '%s' is given twice (names are compared without regard to case)",
                key->text);
    return first;
}

/* Two parameters that give one member a value are an error, as duplicate keys are in JSON. */
static void duplicate_member(struct acl_parser *p, const char *name, const struct sexp *key)
{
    fail_at(p, key, "duplicate-key", "'%s' gives member '%s' a second value", key->text, name);
}

static void set_string(struct acl_parser *p, struct member_list *obj, const char *name,
                       const struct span *v, const struct sexp *key)
{
    if (!member_list_add_string(obj, name, v->s, v->len))
        duplicate_member(p, name, key);
}

static void set_json(struct acl_parser *p, struct member_list *obj, const char *name,
                     const char *json, size_t len, const struct sexp *key)
{
    if (!member_list_add_json(obj, name, json, len))
        duplicate_member(p, name, key);
}

/* Adds the markers to obj (when there are any) and frees the rest. */
static void object_reading_finish(struct acl_parser *p, struct object_reading *r,
                                  struct member_list *obj, const struct sexp *x)
{
    if (!p->failed && r->expressions.len) {
        sb_addc(&r->expressions, ']');
        set_json(p, obj, acl_expressions_member, r->expressions.buf, r->expressions.len, x);
    }
    if (!p->failed && r->quoted.len) {
        sb_addc(&r->quoted, ']');
        set_json(p, obj, acl_quoted_member, r->quoted.buf, r->quoted.len, x);
    }
    acl_names_free(&r->seen);
    sb_free(&r->expressions);
    sb_free(&r->quoted);
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
static void set_value(struct acl_parser *p, struct object_reading *r, struct member_list *obj,
                      const char *name, const struct span *v, const struct sexp *key,
                      const struct sexp *value, bool agent)
{
    if (value->type == SX_LIST && !written_in_own_form(name, agent))
        note_member(&r->expressions, name);
    set_string(p, obj, name, v, key);
}

/* A user parameter's value as a string, and the member it sets: a "..." string whose text would
 * be written as a word is marked, so that it is written back as a string (in FIPA SL "yes" and
 * yes are a String and a Word). */
static void set_user_value(struct acl_parser *p, struct object_reading *r, struct member_list *obj,
                           const char *name, const struct span *v, const struct sexp *key,
                           const struct sexp *value, bool agent)
{
    if (value->type == SX_STRING && acl_plain_word(value->text, value->len) &&
        !acl_written_as_json(name, value->text))
        note_member(&r->quoted, name);
    set_value(p, r, obj, name, v, key, value, agent);
}

/* :X-acp-json-NAME: JSON text, or an expression whose member's name took the long way (json-x);
 * text that is no JSON is kept as text, with a warning. */
static void set_json_parameter(struct acl_parser *p, struct object_reading *r,
                               struct member_list *obj, const struct sexp *key,
                               const struct sexp *value, const struct span *v, bool agent)
{
    const char *name = key->text + 1;
    json_error_t err;
    const struct jv *json = value->type != SX_LIST ? json_text(p, v, &err) : NULL;
    if (jv_is_string(json)) { /* a string, which a member's readers read as one */
        set_string(p, obj, name + 11, &(struct span){json->u.s, json->len}, key);
        return;
    }
    if (json) {
        set_json(p, obj, name + 11, v->s, v->len, key);
        return;
    }
    if (value->type != SX_LIST) {
        struct diag_where at = where_at(p, value->start);
        diag_emit(p->sink, &at, "acl-json", "':%s' is not JSON (%s); kept as text", name, err.text);
    }
    set_value(p, r, obj, name + 11, v, key, value, agent);
}

/* A user parameter (":X-...") or unknown parameter into its member, by the rules in acl.h. agent:
 * it is a slot of an agent-identifier. */
static void set_user_parameter(struct acl_parser *p, struct object_reading *r,
                               struct member_list *obj, const struct sexp *key,
                               const struct sexp *value, bool agent)
{
    const char *name = key->text + 1;
    struct span v;
    if (!expression_text(p, value, &v))
        return;
    if (LOWERED_PREFIXES(p, "x-acp-json-")) {
        set_json_parameter(p, r, obj, key, value, &v, agent);
        return;
    }
    if (LOWERED_PREFIXES(p, "x-acp-")) {
        set_user_value(p, r, obj, name + 6, &v, key, value, agent);
        return;
    }
    if (!LOWERED_STARTS(p, "x-")) {
        set_user_value(p, r, obj, name, &v, key, value, agent);
        return;
    }
    /* in the arena: the member list keeps the name until the message is written */
    size_t len = strlen(name);
    char *member = arena_alloc(&p->sexps, len + 1);
    memcpy(member, name, len + 1);
    member[0] = acl_user_prefix_letter(name + 2);
    set_user_value(p, r, obj, member, &v, key, value, agent);
}

static bool read_agent(struct acl_parser *p, const struct sexp *x, struct strbuf *out,
                       struct span *name_only);

/* (sequence ...) of addresses or agents, as a JSON array appended to out. */
static bool read_sequence(struct acl_parser *p, const struct sexp *x, bool agents,
                          struct strbuf *out)
{
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "sequence")) {
        fail_at(p, x, "acl-syntax", "expected (sequence ...)");
        return false;
    }
    sb_addc(out, '[');
    for (size_t i = 1; i < x->count && !p->failed; i++) {
        const struct sexp *item = x->items[i];
        if (i > 1)
            sb_addc(out, ',');
        if (agents) {
            read_agent(p, item, out, NULL);
        } else if (!is_text(item)) {
            fail_at(p, item, "acl-syntax", "expected an address");
        } else {
            struct span address = {item->text, item->len};
            struct jsonout w;
            jsonout_init(&w, out, JSONOUT_VALID);
            if (text_valid(p, item, &address))
                jsonout_string(&w, address.s, address.len);
        }
    }
    sb_addc(out, ']');
    return !p->failed;
}

/* An agent-identifier being read. */
struct agent_reading {
    struct object_reading object;
    struct member_list slots; /* every member but the name, in order */
    struct span name;
    bool named;
    bool object_marked; /* :X-acp-object: an object although it holds only the name */
};

/* The slots an agent-identifier's reader knows, each its bit among its names. */
enum agent_slot { SLOT_OTHER = -1, SLOT_NAME, SLOT_ADDRESSES, SLOT_RESOLVERS, SLOT_OBJECT };

static enum agent_slot agent_slot(const struct acl_parser *p)
{
    if (LOWERED_IS(p, "name"))
        return SLOT_NAME;
    if (LOWERED_IS(p, "addresses"))
        return SLOT_ADDRESSES;
    if (LOWERED_IS(p, "resolvers"))
        return SLOT_RESOLVERS;
    if (LOWERED_IS(p, "x-acp-object"))
        return SLOT_OBJECT;
    return SLOT_OTHER;
}

/* One slot of an agent-identifier. */
static void read_agent_slot(struct acl_parser *p, struct agent_reading *a, enum agent_slot slot,
                            const struct sexp *key, const struct sexp *value)
{
    if (slot == SLOT_NAME) {
        if (!is_text(value)) {
            if (!p->failed)
                fail_at(p, value, "acl-syntax", "expected a name");
        } else {
            a->name = (struct span){value->text, value->len};
            a->named = text_valid(p, value, &a->name);
        }
    } else if (slot == SLOT_ADDRESSES || slot == SLOT_RESOLVERS) {
        bool resolvers = slot == SLOT_RESOLVERS;
        struct strbuf sequence = STRBUF_INIT;
        if (read_sequence(p, value, resolvers, &sequence))
            set_json(p, &a->slots, resolvers ? "resolvers" : "addresses", sequence.buf,
                     sequence.len, key);
        sb_free(&sequence);
    } else if (slot == SLOT_OBJECT) {
        a->object_marked = true;
    } else {
        set_user_parameter(p, &a->object, &a->slots, key, value, true);
    }
    /* :X-acp-name gives the name a second value, as a second :name would. */
    if (a->named && member_list_get(&a->slots, "", "name") && !p->failed)
        fail_at(p, key, "duplicate-key", "'%s' gives member 'name' a second value", key->text);
}

/* (agent-identifier :name N [:addresses (sequence ...)] [:resolvers (sequence ...)] ...),
 * appended to out as JSON: its name, or an object when it holds more. *name_only (unless NULL):
 * its name when it is written as that string, else {NULL}, so that a member of one plain agent
 * is set as the string, not as JSON to be read again. */
static bool read_agent(struct acl_parser *p, const struct sexp *x, struct strbuf *out,
                       struct span *name_only)
{
    if (name_only)
        *name_only = (struct span){NULL, 0};
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "agent-identifier")) {
        fail_at(p, x, "acl-syntax", "expected (agent-identifier ...)");
        return false;
    }
    struct agent_reading a; /* not zeroed whole: its object's names are filled as used */
    object_reading_init(&a.object);
    a.name = (struct span){NULL, 0};
    a.named = a.object_marked = false;
    member_list_init(&a.slots);
    for (size_t i = 1; i < x->count && !p->failed; i += 2) {
        const struct sexp *key = x->items[i];
        if (key->type != SX_WORD || key->text[0] != ':' || key->len < 2 || i + 1 >= x->count) {
            fail_at(p, key, "acl-syntax", "expected :name, :addresses or :resolvers");
            break;
        }
        if (!lower_parameter(p, key))
            break;
        enum agent_slot slot = agent_slot(p);
        if (first_time(p, &a.object, key, (int)slot))
            read_agent_slot(p, &a, slot, key, x->items[i + 1]);
    }
    if (!p->failed && !a.named)
        fail_at(p, x, "acl-syntax", "agent-identifier without :name");
    object_reading_finish(p, &a.object, &a.slots, x);
    if (!p->failed) {
        struct jsonout w;
        jsonout_init(&w, out, JSONOUT_VALID);
        if (a.slots.n == 0 && !a.object_marked) {
            jsonout_string(&w, a.name.s, a.name.len);
            if (name_only)
                *name_only = a.name;
        } else {
            jsonout_begin_object(&w);
            JSONOUT_KEY(&w, "name");
            jsonout_string(&w, a.name.s, a.name.len);
            member_list_write_members(&a.slots, &w);
            jsonout_end_object(&w);
        }
    }
    member_list_free(&a.slots);
    return !p->failed;
}

/* (set AID...) — or, leniently, one bare agent-identifier — appended to out: one agent becomes
 * that agent, several an array. An empty set appends nothing and leaves *some false: it names no
 * agent, as a missing parameter does. */
static bool read_agent_set(struct acl_parser *p, const struct sexp *x, struct strbuf *out,
                           bool *some, struct span *name_only)
{
    *some = false;
    *name_only = (struct span){NULL, 0};
    if (x->type == SX_LIST && x->count > 0 && word_is(x->items[0], "agent-identifier")) {
        *some = read_agent(p, x, out, name_only);
        return *some;
    }
    if (x->type != SX_LIST || x->count == 0 || !word_is(x->items[0], "set")) {
        fail_at(p, x, "acl-syntax", "expected (set (agent-identifier ...) ...)");
        return false;
    }
    struct strbuf agents = STRBUF_INIT;
    size_t n = 0;
    struct span name = {NULL, 0};
    for (size_t i = 1; i < x->count && !p->failed; i++) {
        if (n)
            sb_addc(&agents, ',');
        if (read_agent(p, x->items[i], &agents, &name))
            n++;
    }
    if (n == 1)
        *name_only = name;
    if (!p->failed && n == 1) {
        sb_add(out, agents.buf, agents.len);
    } else if (!p->failed && n > 1) {
        sb_addc(out, '[');
        sb_add(out, agents.buf, agents.len);
        sb_addc(out, ']');
    }
    sb_free(&agents);
    *some = !p->failed && n > 0;
    return !p->failed;
}

/* :reply-by: UTC with Z; another letter, or none, is read as UTC with a warning (JADE would read
 * local time); a relative time counts from now. A spelling other than the writer's is kept in
 * x-acp-reply-by, so that it goes back as it came. */
static void read_reply_by(struct acl_parser *p, struct member_list *msg, const struct sexp *key,
                          const struct sexp *x)
{
    struct acl_date_time dt;
    if (!is_text(x) || !acl_date_time_parse(x->text, x->len, &dt)) {
        fail_at(p, x, "acl-time", "'%s' is not a date-time such as 20240115T103500000Z",
                is_text(x) ? x->text : "(...)");
        return;
    }
    long long millis = dt.millis;
    if (dt.relative) {
        millis += (long long)p->now * 1000;
        if (!acl_date_time_in_range(millis)) {
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
    acl_rfc3339_millis(millis, buf, sizeof buf);
    set_string(p, msg, "reply_by", &(struct span){buf, strlen(buf)}, key);
    acl_date_time_format(millis, buf, sizeof buf);
    if (!p->failed && strcmp(buf, x->text) != 0)
        set_string(p, msg, acl_spelling_member, &(struct span){x->text, strlen(x->text)}, key);
}

/* What one message has read so far, besides its members. */
struct message_reading {
    struct object_reading object;
    struct span reply_by; /* :X-acp-reply_by, which replaces reply_by */
    bool has_reply_by;
    bool json_content;               /* :X-acp-json-content */
    bool content_text;               /* :X-acp-content-text true */
    bool language_added;             /* :X-acp-language none */
    const struct sexp *performative; /* :X-acp-performative's value */
    size_t content_at;
    const struct sexp *content_key; /* :content, for a second value of its marker */
};

/* The writer's markers: parameters that say how to read the others. True when key is one. */
static bool read_marker(struct acl_parser *p, struct member_list *msg, const struct sexp *key,
                        const struct sexp *value, struct message_reading *mr)
{
    if (!LOWERED_STARTS(p, "x-acp-")) /* every marker's prefix */
        return false;
    if (LOWERED_IS(p, "x-acp-json-content"))
        mr->json_content = true;
    else if (lowered_is(p, acl_content_text_member, strlen(acl_content_text_member)) &&
             is_text(value) && strcmp(value->text, "true") == 0)
        mr->content_text = true;
    else if (LOWERED_IS(p, "x-acp-language"))
        mr->language_added = true;
    else if (LOWERED_IS(p, "x-acp-performative"))
        mr->performative = value;
    else if (LOWERED_IS(p, "x-acp-reply_by"))
        mr->has_reply_by = expression_text(p, value, &mr->reply_by);
    else if (lowered_is(p, acl_partial_member, strlen(acl_partial_member)) && is_text(value) &&
             strcmp(value->text, "true") == 0)
        set_json(p, msg, acl_partial_member, "true", 4, key);
    else
        return false;
    return true;
}

/* An agent (:sender) or a set of them (:receiver, :reply-to) into its member. */
static void read_agents(struct acl_parser *p, struct member_list *msg, const struct sexp *key,
                        const struct sexp *value, const struct acl_parameter *param)
{
    struct strbuf agents = STRBUF_INIT;
    bool some = true;
    struct span name;
    bool read = param->form == FORM_AGENT ? read_agent(p, value, &agents, &name)
                                          : read_agent_set(p, value, &agents, &some, &name);
    if (read && some && name.s)
        set_string(p, msg, param->member, &name, key);
    else if (read && some)
        set_json(p, msg, param->member, agents.buf, agents.len, key);
    sb_free(&agents);
}

static void read_parameter(struct acl_parser *p, struct member_list *msg, const struct sexp *key,
                           const struct sexp *value, struct message_reading *mr)
{
    if (!lower_parameter(p, key))
        return;
    const struct acl_parameter *param = acl_parameter_by_lowered(p->lower.buf, p->lower.len);
    if (!first_time(p, &mr->object, key, param ? (int)acl_parameter_index(param) : -1) ||
        read_marker(p, msg, key, value, mr))
        return;
    const char *name = key->text + 1;
    if (!param) {
        if (!LOWERED_STARTS(p, "x-")) {
            struct diag_where at = where_at(p, key->start);
            diag_emit(p->sink, &at, "acl-parameter", "unknown parameter ':%s' kept as a member",
                      name);
        }
        set_user_parameter(p, &mr->object, msg, key, value, false);
        return;
    }
    if (param->form == FORM_DATE_TIME) {
        read_reply_by(p, msg, key, value);
    } else if (param->form == FORM_AGENT || param->form == FORM_AGENT_SET) {
        read_agents(p, msg, key, value, param);
    } else {
        if (param->form == FORM_CONTENT) {
            mr->content_at = value->start;
            mr->content_key = key;
        }
        struct span v;
        if (expression_text(p, value, &v))
            set_value(p, &mr->object, msg, param->member, &v, key, value, false);
    }
}

/* Content is JSON when the language says so (or the writer's marker does). What is not stays
 * text, marked x-acp-content-text so that the writer writes it as it came, not as a JSON
 * string: SL content under :language json (JADE's createReply copies the language), and JSON
 * that the JSON Lines tools cannot hold (an integer beyond 64 bits, a real beyond a double:
 * number-range), which is valid JSON and so no warning. */
static void decode_content(struct acl_parser *p, struct member_list *msg,
                           const struct message_reading *mr)
{
    const char *language = member_string(msg, member_list_get(msg, "", "language"));
    bool is_json = mr->json_content || (language && strcasecmp(language, "json") == 0);
    if (mr->language_added)
        member_list_remove(msg, "", "language");
    const struct member *content = member_list_get(msg, "", "content");
    if (!content || content->kind != MEMBER_STRING || (!is_json && !mr->content_text))
        return;
    json_error_t err;
    if (!mr->content_text) {
        struct span text = {member_string(msg, content), content->len};
        const struct jv *value = json_text(p, &text, &err);
        if (value) { /* its text is JSON: its value, as the scratch scanner read it, goes in the
                        view (nothing scans there again before the view is built) */
            member_list_set_view(msg, "", "content", value);
            return;
        }
        if (json_error_code(&err) != json_error_numeric_overflow) {
            struct diag_where at = where_at(p, mr->content_at);
            diag_emit(p->sink, &at, "acl-json", "the content is not JSON (%s); kept as text",
                      err.text);
        }
    }
    set_json(p, msg, acl_content_text_member, "true", 4, mr->content_key);
}

/* counter_propose, which SC00037 lacks and JADE cannot read, travels as a propose with the
 * marker :X-acp-performative counter_propose. */
static void read_counter_propose(struct acl_parser *p, struct member_list *msg, enum fipa_act act,
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
                "':X-acp-performative counter_propose' belongs to a propose; this message is "
                "'%s'",
                fipa_act_name(act, SPELL_KEBAB));
        return;
    }
    const char *name = fipa_act_name(FIPA_COUNTER_PROPOSE, SPELL_SNAKE);
    member_list_set_string(msg, "", "performative", name, strlen(name));
}

/* The message's members, read into msg. */
static void read_message(struct acl_parser *p, const struct sexp *x, struct member_list *msg)
{
    const struct sexp *head = x->items[0]; /* a word: the shape check saw to it */
    enum fipa_act act = acl_act(head->text, head->len);
    if (act == FIPA_ACT_INVALID) {
        fail_at(p, head, "acl-performative", "'%s' is not a FIPA communicative act", head->text);
        return;
    }
    const char *performative = fipa_act_name(act, SPELL_SNAKE);
    member_list_set_string(msg, "", "performative", performative, strlen(performative));
    struct message_reading mr; /* not zeroed whole: its object's names are filled as used */
    object_reading_init(&mr.object);
    mr.reply_by = (struct span){NULL, 0};
    mr.has_reply_by = mr.json_content = mr.content_text = mr.language_added = false;
    mr.performative = NULL;
    mr.content_at = x->start;
    mr.content_key = NULL;
    for (size_t i = 1; i + 1 < x->count && !p->failed; i += 2)
        read_parameter(p, msg, x->items[i], x->items[i + 1], &mr);
    if (!p->failed && mr.performative)
        read_counter_propose(p, msg, act, mr.performative);
    if (!p->failed && mr.has_reply_by)
        member_list_set_string(msg, "", "reply_by", mr.reply_by.s, mr.reply_by.len);
    object_reading_finish(p, &mr.object, msg, x);
    if (!p->failed)
        decode_content(p, msg, &mr);
}

const struct jv *acl_parse_view(const struct record *rec, struct diag_sink *sink, time_t now,
                                struct jscan *js, struct jscan *scratch)
{
    /* blocks of a few messages' trees: one parse makes one, which malloc hands out again */
    struct acl_parser p = {
        .rec = rec, .sink = sink, .now = now, .sexps = {.block_size = 8192}, .json = scratch};
    struct member_list msg;
    member_list_init(&msg);
    /* the message's texts take about the record's bytes: one allocation, not a run of
     * doublings */
    sb_grow(&msg.text, rec->len);
    struct sexp *x = read_tree(&p);
    if (x)
        read_message(&p, x, &msg);
    const struct jv *view = x && !p.failed ? member_list_view(&msg, js) : NULL;
    member_list_free(&msg);
    arena_free(&p.sexps);
    sb_free(&p.lower);
    return view;
}

const struct jv *acl_parse_hook(void *ctx, const struct record *rec, struct diag_sink *sink,
                                time_t now, struct jscan *js, struct jscan *scratch)
{
    (void)ctx;
    return acl_parse_view(rec, sink, now, js, scratch);
}

json_t *acl_parse(const struct record *rec, struct diag_sink *sink, time_t now)
{
    struct jscan *js = jscan_new(), *scratch = jscan_new();
    const struct jv *view = acl_parse_view(rec, sink, now, js, scratch);
    json_t *msg = view ? jscan_to_tree(view) : NULL;
    jscan_free(js);
    jscan_free(scratch);
    return msg;
}

bool acl_content_text(const struct record *rec, struct strbuf *out)
{
    struct token_source ts;
    token_source_init(&ts, rec);
    struct acl_token tok;
    unsigned long depth = 0, item = 0; /* the message's items: its act, then keys and values */
    bool at_content = false;
    while (next_token(&ts, &tok)) {
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
