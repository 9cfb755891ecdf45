/* jscan: the strict JSON scanner of the hot path. It accepts exactly the texts jansson's
 * json_loadb accepts with JSON_REJECT_DUPLICATES | JSON_DECODE_ANY (syntax, UTF-8 without
 * overlong forms or surrogates, no \u0000, no lone surrogate escape, no duplicate key at any
 * level, jansson's depth limit, integers within json_int_t and reals within double), and records
 * the value in one pass into a flat array of nodes held by a reusable context: no allocation per
 * value, and the context's memory is reused from one text to the next. A context holds no global
 * state: one per thread. A text holding a NUL byte is rejected (jansson, which loses a NUL that
 * follows a number, never sees one: message.c rejects it first).
 *
 * It says only whether a text is valid; jansson, parsing a rejected text again, says why.
 *
 * The view: a value is a const struct jv *, valid until the context scans again or is freed.
 * The accessors mirror jansson's and, as jansson's, take NULL for "no value". Strings are
 * unescaped and NUL-terminated (jansson rejects \u0000, so a string holds no NUL). */
#ifndef ACP_JSCAN_H
#define ACP_JSCAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum jv_type { JV_OBJECT, JV_ARRAY, JV_STRING, JV_INTEGER, JV_REAL, JV_TRUE, JV_FALSE, JV_NULL };

/* One value. An object is followed by its members, each a string node (the key) then the
 * value's nodes; an array by its elements' nodes. */
struct jv {
    uint32_t type;
    uint32_t len;  /* string: its bytes; object: its members; array: its elements */
    uint32_t size; /* nodes this value takes, itself included */
    uint32_t head; /* string: its first 4 bytes, zero-padded, which tell most keys apart */
    union {
        const char *s;
        json_int_t i;
        double d;
        uint64_t keys; /* object: a bit per key (jv_key_bit), so that most misses cost nothing */
    } u;
};

struct jscan;

struct jscan *jscan_new(void);
void jscan_free(struct jscan *js);

/* Scans text as one JSON value; returns its view, or NULL when jansson would reject the text. */
const struct jv *jscan_scan(struct jscan *js, const char *text, size_t len);

/* Scans a text the tools made of values each of which jscan_scan accepted on its own (the string
 * form's message as FIPA JSON, with its content's JSON in it), nested at most JSCAN_MADE_DEPTH
 * levels deeper than they stood: a value at jansson's depth limit stays readable there. */
enum { JSCAN_MADE_DEPTH = 256 };
const struct jv *jscan_scan_made(struct jscan *js, const char *text, size_t len);

/* The view of a jansson value (strings and keys point into the tree, which must outlive it). */
const struct jv *jscan_of_tree(struct jscan *js, const json_t *tree);

/* Where the value of the top-level member key stands in text, a JSON object that jscan_scan
 * accepted: *start and *end around its bytes (no white space about them). False when the object
 * has no such member, or spells its name with an escape (the caller then does without the
 * text). */
bool jscan_member_text(const char *text, size_t len, const char *key, size_t *start, size_t *end);
/* The same, as the scan of the text found it: where value, a member of the object js scanned
 * last (jscan_scan, jscan_scan_made), stands in that text. False when the context does not note
 * them (jscan_note_spans), or value is not one of the object's first JSCAN_SPANS members, or its
 * name was spelt with an escape (jscan_member_text then says as much). */
enum { JSCAN_SPANS = 16 };
bool jscan_value_text(const struct jscan *js, const struct jv *value, size_t *start, size_t *end);
/* Whether js notes where its texts' members stand (for jscan_value_text): off at first, as it
 * costs a scan some instructions a member. */
void jscan_note_spans(struct jscan *js, bool note);

/* Whether a and b are equal as json_equal says: of one type, equal strings and numbers (an
 * integer is never equal to a real), arrays element by element, objects with the same keys
 * whatever their order. */
bool jv_equal(const struct jv *a, const struct jv *b);

/* A new jansson value equal to v, members in order. */
json_t *jscan_to_tree(const struct jv *v);

/* Writes v as jsonout_value writes a jansson value equal to it. */
struct jsonout;
void jv_write_json(struct jsonout *w, const struct jv *v);

/* A view made value by value, as a scan of the text they would make gives it: the string form's
 * message, read member by member, need not be written as JSON and scanned again. Between
 * jscan_build_begin and jscan_build_end (which returns the first value made) the context's
 * earlier view is gone and the new one is not readable yet. */
void jscan_build_begin(struct jscan *js);
/* An object or array, whose members (a key, then its value) or elements follow; its node. */
uint32_t jscan_build_open(struct jscan *js, enum jv_type type);
/* Ends the object or array at node at, of count members or elements. */
void jscan_build_close(struct jscan *js, uint32_t at, uint32_t count);
/* A member's key, prefix then name, of the object at node object; no key is checked against the
 * object's others (the caller's keys are unique). */
void jscan_build_key(struct jscan *js, uint32_t object, const char *prefix, size_t prefix_len,
                     const char *name, size_t name_len);
/* A string, valid UTF-8 without NUL; a number. */
void jscan_build_string(struct jscan *js, const char *s, size_t len);
void jscan_build_integer(struct jscan *js, json_int_t v);
void jscan_build_real(struct jscan *js, double v);
/* A copy of v, a view of another context. */
void jscan_build_view(struct jscan *js, const struct jv *v);
/* The value of a JSON text, depth levels deep in what is built, as jscan_scan_made reads it
 * there; false, with nothing added, when it would reject it. */
bool jscan_build_text(struct jscan *js, const char *text, size_t len, unsigned depth);
const struct jv *jscan_build_end(struct jscan *js);

/* A store of views that outlive their scanner: a thread that scans a batch of texts keeps each
 * view here, and the thread that reads them later in order need not scan the texts again. */
struct jv_store {
    struct jv *nodes;
    size_t nnodes, cap;
    char *chars;
    size_t nchars, chars_cap;
};

/* Empties the store, keeping its memory unless it grew past what ordinary texts need. */
void jv_store_reset(struct jv_store *st);
void jv_store_free(struct jv_store *st);
/* Copies the view js made last (jscan_scan's result, not jscan_of_tree's); returns its place. */
size_t jv_store_add(struct jv_store *st, const struct jscan *js);
/* After the last add: the views may be read. */
void jv_store_seal(struct jv_store *st);
/* The view at place, until the store is reset. */
static inline const struct jv *jv_store_view(const struct jv_store *st, size_t place)
{
    return &st->nodes[place];
}

static inline bool jv_is_object(const struct jv *v)
{
    return v && v->type == JV_OBJECT;
}
static inline bool jv_is_array(const struct jv *v)
{
    return v && v->type == JV_ARRAY;
}
static inline bool jv_is_string(const struct jv *v)
{
    return v && v->type == JV_STRING;
}
static inline bool jv_is_integer(const struct jv *v)
{
    return v && v->type == JV_INTEGER;
}
static inline bool jv_is_real(const struct jv *v)
{
    return v && v->type == JV_REAL;
}
static inline bool jv_is_number(const struct jv *v)
{
    return v && (v->type == JV_INTEGER || v->type == JV_REAL);
}
static inline bool jv_is_boolean(const struct jv *v)
{
    return v && (v->type == JV_TRUE || v->type == JV_FALSE);
}
static inline bool jv_is_true(const struct jv *v)
{
    return v && v->type == JV_TRUE;
}
static inline bool jv_is_null(const struct jv *v)
{
    return v && v->type == JV_NULL;
}

/* As json_string_value: NULL unless v is a string. */
static inline const char *jv_string_value(const struct jv *v)
{
    return jv_is_string(v) ? v->u.s : NULL;
}
static inline size_t jv_string_length(const struct jv *v)
{
    return jv_is_string(v) ? v->len : 0;
}
/* As json_integer_value: 0 unless v is an integer. */
static inline json_int_t jv_integer_value(const struct jv *v)
{
    return jv_is_integer(v) ? v->u.i : 0;
}
/* As json_number_value: 0 unless v is a number. */
static inline double jv_number_value(const struct jv *v)
{
    if (jv_is_integer(v))
        return (double)v->u.i;
    return jv_is_real(v) ? v->u.d : 0;
}

/* The head of a string (struct jv), as the scanner stores it: for a literal key, a constant. */
static inline uint32_t jv_head(const char *s, size_t len)
{
    uint32_t head = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len >= 4) {
        memcpy(&head, s, 4);
        return head;
    }
#endif
    size_t n = len < 4 ? len : 4;
    for (size_t i = 0; i < n; i++)
        head |= (uint32_t)(unsigned char)s[i] << 8 * i;
    return head;
}

static inline uint64_t jv_key_bit(uint32_t head, size_t len)
{
    return UINT64_C(1) << ((head * UINT32_C(0x9e3779b1) + (uint32_t)len) >> 26);
}

/* The member key of obj, or NULL (also when obj is no object). Inline, so that the length of a
 * literal key is known where it is written. */
const struct jv *jv_object_find(const struct jv *obj, const char *key, size_t len, uint32_t head);
/* The member key (len bytes) of obj, or NULL. */
static inline const struct jv *jv_object_get_len(const struct jv *obj, const char *key, size_t len)
{
    uint32_t head = jv_head(key, len);
    if (!jv_is_object(obj) || !(obj->u.keys & jv_key_bit(head, len)))
        return NULL;
    return jv_object_find(obj, key, len, head);
}
static inline const struct jv *jv_object_get(const struct jv *obj, const char *key)
{
    return jv_object_get_len(obj, key, strlen(key));
}
/* Whether v is the string name (all of it: a string may hold a NUL). */
static inline bool jv_string_is(const struct jv *v, const char *name)
{
    size_t len = strlen(name);
    return jv_is_string(v) && jv_string_length(v) == len &&
           memcmp(jv_string_value(v), name, len) == 0;
}

/* Whether the key k (a string) is name: one compare for most keys, as name's length and head are
 * constants where it is a literal (a mapping's cascade of names). */
static inline bool jv_key_is(const struct jv *k, const char *name)
{
    size_t len = strlen(name);
    return k->len == len && k->head == jv_head(name, len) &&
           (len <= 4 || memcmp(k->u.s + 4, name + 4, len - 4) == 0);
}

/* A string member, or NULL when absent or not a string. */
static inline const char *jv_member_string(const struct jv *obj, const char *key)
{
    return jv_string_value(jv_object_get(obj, key));
}

/* Iteration over an object's members in input order: for (k = jv_object_first(o); k;
 * k = jv_object_next(o, k)) with the key jv_string_value(k) and the value jv_object_value(k). */
const struct jv *jv_object_first(const struct jv *obj);
const struct jv *jv_object_next(const struct jv *obj, const struct jv *key);
static inline const struct jv *jv_object_value(const struct jv *key)
{
    return key + 1;
}

static inline size_t jv_array_size(const struct jv *v)
{
    return jv_is_array(v) ? v->len : 0;
}
/* Elements in order: for (e = jv_array_first(a); e; e = jv_array_next(a, e)). */
const struct jv *jv_array_first(const struct jv *arr);
const struct jv *jv_array_next(const struct jv *arr, const struct jv *elem);
/* The element at index, or NULL; walks the array (use the iteration for every element). */
const struct jv *jv_array_get(const struct jv *arr, size_t index);

#endif
