#include "message.h"

#include <string.h>

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

json_t *message_parse_json(const struct record *rec, struct diag_sink *sink)
{
    struct diag_where at = {.file = rec->file, .line = rec->line};
    if (rec->len >= sizeof utf8_bom && memcmp(rec->text, utf8_bom, sizeof utf8_bom) == 0) {
        at.column = rec->column_base + 1;
        diag_emit(sink, &at, SEV_ERROR, "bom-mid-stream",
                  "byte-order mark in the middle of the stream");
        return NULL;
    }
    const char *nul = memchr(rec->text, '\0', rec->len);
    if (nul) {
        at.column = rec->column_base + (size_t)(nul - rec->text) + 1;
        diag_emit(sink, &at, SEV_ERROR, "nul-byte", "NUL byte in the line");
        return NULL;
    }
    json_error_t err;
    json_t *root = json_loadb(rec->text, rec->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!root) {
        if (err.position > 0)
            at.column = rec->column_base + (size_t)err.position;
        diag_emit(sink, &at, SEV_ERROR, parse_error_code(&err), "%s", err.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        at.column = rec->column_base + 1;
        while (at.column - rec->column_base <= rec->len &&
               (rec->text[at.column - rec->column_base - 1] == ' ' ||
                rec->text[at.column - rec->column_base - 1] == '\t'))
            at.column++;
        diag_emit(sink, &at, SEV_ERROR, "not-object", "the message is %s, not an object",
                  json_type_name(root));
        json_decref(root);
        return NULL;
    }
    return root;
}

enum protocol message_protocol(const json_t *root, enum protocol_choice choice)
{
    switch (choice) {
    case CHOOSE_IACP:
        return PROTO_IACP;
    case CHOOSE_FIPA:
        return PROTO_FIPA;
    case CHOOSE_AUTO:
        break;
    }
    if (json_object_get(root, "kind") || json_object_get(root, "v"))
        return PROTO_IACP;
    if (json_object_get(root, "performative"))
        return PROTO_FIPA;
    return PROTO_NONE;
}

const char *json_member_string(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

void message_init(struct message *m, const struct record *rec, json_t *root,
                  enum protocol_choice choice)
{
    m->rec = rec;
    m->root = root;
    /* The string form is FIPA, whatever members its user parameters happen to carry. */
    m->proto = rec->syntax == SYNTAX_ACL ? PROTO_FIPA : message_protocol(root, choice);
    m->id = json_member_string(root, m->proto == PROTO_FIPA ? "reply_with" : "id");
    m->at = (struct diag_where){.file = rec->file, .line = rec->line, .id = m->id};
    m->passed = true;
    m->output = (struct strbuf)STRBUF_INIT;
}

void message_clear(struct message *m)
{
    json_decref(m->root);
    m->root = NULL;
    sb_free(&m->output);
}
