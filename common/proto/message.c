#include "proto/message.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "proto/dialect.h"
#include "proto/taprecord.h"

static const char utf8_bom[3] = {'\xef', '\xbb', '\xbf'};

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "a value";
}

static const char *parse_error_code(const json_error_t *err)
{
    switch (json_error_code(err)) {
    case json_error_invalid_utf8:
        return "bad-utf8";
    case json_error_null_character:
    case json_error_null_byte_in_key:
        return "nul-byte";
    case json_error_duplicate_key:
        return "duplicate-key";
    case json_error_numeric_overflow:
        return "number-range";
    case json_error_end_of_input_expected:
        return "trailing-data";
    case json_error_stack_overflow:
        return "too-deep";
    case json_error_out_of_memory:
        die_oom();
    default:
        break;
    }
    /* jansson reports a lone surrogate escape as a syntax error; it is a Unicode problem. */
    if (strncmp(err->text, "invalid Unicode", 15) == 0)
        return "bad-utf8";
    return "bad-json";
}

/* The length of the topic mosquitto_sub -v (or a like client) wrote before the JSON: a word of
 * visible characters and one space, then an object that parses; 0 when the line is no such. */
static size_t topic_length(const struct record *rec)
{
    const char *space = memchr(rec->text, ' ', rec->len);
    if (!space || space == rec->text)
        return 0;
    size_t topic = (size_t)(space - rec->text);
    for (size_t i = 0; i < topic; i++)
        if ((unsigned char)rec->text[i] <= ' ' || rec->text[i] == '{' || rec->text[i] == '"')
            return 0;
    if (topic + 1 >= rec->len || rec->text[topic + 1] != '{')
        return 0;
    json_t *rest =
        json_loadb(space + 1, rec->len - topic - 1, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
    bool object = json_is_object(rest);
    json_decref(rest);
    return object ? topic : 0;
}

/* A line that is not JSON: said in jansson's words, or, where a topic comes before the JSON, as
 * that, so that the user of a bus client finds the option that wrote it. */
static void report_parse_error(const struct record *rec, struct diag_where *at,
                               const json_error_t *err, struct diag_sink *sink)
{
    size_t topic = topic_length(rec);
    if (topic) {
        at->column = rec->column_base + 1;
        diag_emit(sink, at, "bad-json",
                  "a topic before the JSON: '%.*s', then the message (mosquitto_sub -v and "
                  "similar clients write the topic first; leave out -v, or cut it off)",
                  diag_quote_len(topic), rec->text);
        return;
    }
    if (err->position > 0)
        at->column = rec->column_base + (size_t)err->position;
    diag_emit(sink, at, parse_error_code(err), "%s", err->text);
}

json_t *message_parse_json(const struct record *rec, struct diag_sink *sink)
{
    struct diag_where at = {.file = rec->file, .line = rec->line};
    if (rec->len >= sizeof utf8_bom && memcmp(rec->text, utf8_bom, sizeof utf8_bom) == 0) {
        at.column = rec->column_base + 1;
        diag_emit(sink, &at, "bom-mid-stream", "byte-order mark in the middle of the stream");
        return NULL;
    }
    const char *nul = memchr(rec->text, '\0', rec->len);
    if (nul) {
        at.column = rec->column_base + (size_t)(nul - rec->text) + 1;
        diag_emit(sink, &at, "nul-byte", "NUL byte in the line");
        return NULL;
    }
    json_error_t err;
    json_t *root = json_loadb(rec->text, rec->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!root) {
        report_parse_error(rec, &at, &err, sink);
        return NULL;
    }
    if (!json_is_object(root)) {
        at.column = rec->column_base + 1;
        while (at.column - rec->column_base <= rec->len &&
               (rec->text[at.column - rec->column_base - 1] == ' ' ||
                rec->text[at.column - rec->column_base - 1] == '\t'))
            at.column++;
        diag_emit(sink, &at, "not-object", "the message is %s, not an object",
                  json_type_name(root));
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The protocol a choice names: the same value, but for auto. */
static enum protocol chosen(enum protocol_choice choice)
{
    return (enum protocol)choice;
}

enum protocol message_protocol(const json_t *root, enum protocol_choice choice)
{
    return choice != CHOOSE_AUTO ? chosen(choice) : dialect_recognise_tree(root);
}

/* message_protocol over the scanner's view. */
static enum protocol message_view_protocol(const struct jv *view, enum protocol_choice choice)
{
    return choice != CHOOSE_AUTO ? chosen(choice) : dialect_recognise(view);
}

const char *json_member_string(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

bool message_partial(const struct message *m)
{
    const struct dialect *d = message_dialect(m);
    return d && d->partial(m->view);
}

/* The id of a message as its dialect names it (IACP id, FIPA reply_with), and its place; a
 * message of no protocol's "id", for its diagnostics. */
static void find_id(struct message *m)
{
    const struct dialect *d = message_dialect(m);
    const struct jv *id =
        d ? jv_object_get_len(m->view, d->id.name, d->id.len) : jv_object_get(m->view, "id");
    bool string = id && id->type == JV_STRING;
    m->id = string ? jv_string_value(id) : NULL;
    m->id_place = string ? (uint32_t)(id - m->view) : 0;
}

static void settle(struct message *m, const struct record *rec, enum protocol_choice choice)
{
    m->rec = rec;
    /* The string form is FIPA, whatever members its user parameters happen to carry (dialect:
     * the record's syntax says it, not its members). */
    m->proto =
        rec && rec->syntax == SYNTAX_ACL ? PROTO_FIPA : message_view_protocol(m->view, choice);
    m->dialect = dialect_of(m->proto);
    find_id(m);
    m->at = (struct diag_where){.id = m->id};
    m->passed = true;
    m->output = (struct strbuf)STRBUF_INIT;
    m->drafted = m->draft_keeps_view = false;
    m->hole = MESSAGE_NO_HOLE;
    m->notes = NULL;
    m->digest = NULL;
    m->arena = NULL;
    m->content_start = m->content_end = 0;
    m->content_noted = false;
    if (rec) {
        m->at.file = rec->file;
        m->at.line = rec->line;
    }
}

void message_init_in(struct message *m, const struct record *rec, json_t *root,
                     enum protocol_choice choice, struct jscan *js)
{
    m->tree = root;
    m->own = js ? NULL : jscan_new();
    m->view = jscan_of_tree(js ? js : m->own, root);
    m->view_place = 0;
    m->capture = (struct message_capture){.time = NAN};
    settle(m, rec, choice);
}

void message_init(struct message *m, const struct record *rec, json_t *root,
                  enum protocol_choice choice)
{
    message_init_in(m, rec, root, choice, NULL);
}

/* Takes a capture record's message as the message (or its event as a record of no message); false
 * after saying why when the record holds a line that was no message. */
static bool unwrap_capture(struct message *m, const struct record *rec,
                           const struct capture_choice *captures, struct diag_sink *sink)
{
    struct taprecord r;
    m->capture = (struct message_capture){.time = NAN};
    if (captures && captures->bare)
        return true;
    struct diag_where at = {.file = rec->file, .line = rec->line};
    const struct capture_form *only = captures ? captures->only : NULL;
    bool read = taprecord_read(m->view, &r);
    if (only && (!read || r.form != only)) {
        if (read)
            diag_emit(sink, &at, "capture-form", "a record of %s's, not of %s's (--from)",
                      r.form->name, only->name);
        else
            diag_emit(sink, &at, "capture-form", "a line that is no record of %s's (--from)",
                      only->name);
        return false;
    }
    if (!read)
        return true;
    m->capture = (struct message_capture){.present = true,
                                          .out = r.dir == TAPRECORD_OUT,
                                          .session_place = (uint32_t)(r.session - m->view),
                                          .connection_place =
                                              r.connection ? (uint32_t)(r.connection - m->view) : 0,
                                          .time = r.time};
    const char *side = r.dir == TAPRECORD_OUT ? "the agent wrote" : "the agent was sent";
    struct strbuf shown = STRBUF_INIT;
    switch (r.kind) {
    case TAPRECORD_MESSAGE:
        if (!jv_is_object(r.message) && !dialect_batch(r.message)) {
            diag_emit(sink, &at, "capture-not-object", "%s %s, not an object", side,
                      r.message->type == JV_ARRAY ? "an array" : "a JSON value");
            return false;
        }
        m->view_place = (uint32_t)(r.message - m->view);
        m->view = r.message;
        return true;
    case TAPRECORD_TEXT:
        escape_text(&shown, r.text, r.text_len, 80);
        diag_emit(sink, &at, "capture-not-message", "%s a line that is not JSON: '%s'", side,
                  shown.buf);
        sb_free(&shown);
        return false;
    case TAPRECORD_TOO_LONG:
        diag_emit(sink, &at, "capture-not-message", "%s a line %s", side, r.form->too_long);
        return false;
    case TAPRECORD_EVENT:
        m->capture.event = true;
        m->capture.starts_session = r.starts_session;
        m->capture.ends_session = r.ends_session;
        return true;
    }
    return true;
}

bool message_read(struct message *m, const struct record *rec, struct jscan *js,
                  enum protocol_choice choice, const struct capture_choice *captures,
                  struct diag_sink *sink)
{
    /* A byte-order mark or a NUL byte is no JSON either: the scanner rejects them, and
     * message_parse_json names them. */
    const struct jv *view = jscan_scan(js, rec->text, rec->len);
    if (!jv_is_object(view) && !dialect_batch(view)) {
        /* jansson says why; should it take what the scanner did not, its tree is used. */
        json_t *root = message_parse_json(rec, sink);
        if (!root)
            return false;
        message_init_in(m, rec, root, choice, js);
        return true;
    }
    m->view = view;
    m->view_place = 0;
    m->tree = NULL;
    m->own = NULL;
    if (!unwrap_capture(m, rec, captures, sink))
        return false;
    settle(m, rec, choice);
    return true;
}

void message_note_content(struct message *m, const struct jscan *js)
{
    const char *member = m->dialect ? m->dialect->content_member : NULL;
    /* the text js scanned is the record's only when the message is the record's object */
    if (!member || m->tree || m->view_place != 0)
        return;
    const struct jv *content = jv_object_get(m->view, member);
    size_t start, end;
    if (!content) {
        m->content_noted = true; /* nor is it in the text */
    } else if (jscan_value_text(js, content, &start, &end)) {
        m->content_noted = true;
        m->content_start = (uint32_t)start;
        m->content_end = (uint32_t)end;
    }
}

bool message_member_text(const struct message *m, const char *member, size_t *start, size_t *end)
{
    if (m->content_noted && strcmp(member, m->dialect->content_member) == 0) {
        *start = m->content_start;
        *end = m->content_end;
        return m->content_end != 0;
    }
    return jscan_member_text(m->rec->text, m->rec->len, member, start, end);
}

bool message_read_made(struct message *m, const struct record *rec, const char *text, size_t len,
                       struct jscan *js, enum protocol_choice choice)
{
    return message_read_view(m, rec, jscan_scan_made(js, text, len), choice);
}

bool message_read_view(struct message *m, const struct record *rec, const struct jv *view,
                       enum protocol_choice choice)
{
    if (!jv_is_object(view))
        return false;
    m->view = view;
    m->view_place = 0;
    m->tree = NULL;
    m->own = NULL;
    m->capture = (struct message_capture){.time = NAN};
    settle(m, rec, choice);
    return true;
}

void message_rebind(struct message *m, struct jscan *js)
{
    if (m->own)
        return;
    m->view = m->tree ? jscan_of_tree(js, m->tree) : jscan_scan(js, m->rec->text, m->rec->len);
    if (!m->tree)
        m->view += m->view_place;
    else /* the tree is the message's alone: the record around it is not in the view */
        m->view_place = m->capture.session_place = 0;
    find_id(m);
    m->at.id = m->id;
}

void message_rebind_view(struct message *m, const struct jv *view)
{
    m->view = view + m->view_place;
    /* the id's place, not a walk of the members: the view is in another core's cache */
    m->id = m->at.id = m->id_place ? jv_string_value(&view[m->id_place]) : NULL;
}

void message_drafted(struct message *m, void *notes, const char *id, bool keep_view)
{
    m->drafted = true;
    m->draft_keeps_view = keep_view;
    m->notes = notes;
    m->id = m->at.id = id;
    if (!m->own && !keep_view) { /* else the view is made of the tree, or may be again */
        json_decref(m->tree);
        m->tree = NULL;
    }
}

void message_unbind(struct message *m)
{
    if (!m->own)
        m->view = NULL;
}

json_t *message_tree(const struct message *m)
{
    /* Made once and kept: the message is the tree's owner, as it was when every message had one. */
    if (!m->tree)
        ((struct message *)m)->tree = jscan_to_tree(m->view);
    return m->tree;
}

void message_clear(struct message *m)
{
    json_decref(m->tree);
    jscan_free(m->own);
    m->tree = NULL;
    m->own = NULL;
    m->view = NULL;
    sb_free(&m->output);
    if (!m->arena) {
        free(m->notes);
        free(m->digest);
    }
    m->notes = NULL;
    m->digest = NULL;
}

void *message_alloc(const struct message *m, size_t size)
{
    return arena_or_malloc(m->arena, size);
}

const char *message_conversation_owner(struct strbuf *sb, const char *agent)
{
    sb_reset(sb);
    for (const char *p = agent ? agent : "";;) {
        size_t run = strcspn(p, "%/");
        sb_add(sb, p, run);
        p += run;
        if (!*p)
            break;
        sb_adds(sb, *p++ == '%' ? "%25" : "%2F");
    }
    return sb->buf;
}

const char *message_conversation_id(struct strbuf *sb, const char *agent, const char *id)
{
    message_conversation_owner(sb, agent);
    sb_addc(sb, '/');
    sb_adds(sb, id);
    return sb->buf;
}

const char *message_session(const struct message *m)
{
    if (!m->capture.session_place)
        return NULL; /* no capture record, or a view made again of the message's tree alone */
    return jv_string_value(m->view - m->view_place + m->capture.session_place);
}

const char *message_connection(const struct message *m)
{
    if (!m->capture.session_place || !m->capture.connection_place)
        return NULL;
    return jv_string_value(m->view - m->view_place + m->capture.connection_place);
}

void message_own_text(const struct message *m, struct strbuf *out)
{
    const char *text = m->rec->text;
    size_t start = 0, end = m->rec->len;
    if (m->capture.present) {
        struct taprecord r;
        if (!taprecord_read(m->view - m->view_place, &r) ||
            !jscan_member_text(text, m->rec->len, r.form->message_member, &start, &end)) {
            json_t *tree = jscan_to_tree(m->view);
            char *dumped = json_dumps(tree, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
            json_decref(tree);
            if (!dumped)
                die_oom();
            sb_adds(out, dumped);
            sb_addc(out, '\n');
            free(dumped);
            return;
        }
    }
    sb_add(out, text + start, end - start);
    sb_addc(out, '\n');
}
