#include "proto/jscan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/jsonout.h"
#include "base/realdigits.h"
#include "base/swar.h"
#include "base/utf8.h"
#include "base/util.h"

/* Up to this many members an object's keys are told apart by comparing each new key with the
 * earlier ones; from then on through the context's hash table, so that a huge object costs
 * linear time. */
enum { LINEAR_KEYS = 16 };

struct key_slot {
    uint32_t object; /* node index of the object, plus 1; 0 for a free slot */
    uint32_t key;    /* node index of the key */
};

struct jscan {
    struct jv *nodes;
    size_t nnodes, cap;
    char *chars; /* the strings, unescaped; reserved whole before a scan, so it never moves */
    size_t chars_cap;
    char *number; /* a number's text, NUL-terminated for strtod */
    size_t number_cap;
    struct key_slot *keys; /* the duplicate-key table of large objects */
    size_t keys_cap, keys_used;
    size_t nchars; /* what the last scan wrote in chars */
    /* Where the values of the first members of the last text's object stand in it (a name
     * spelt with an escape is left out): a converter copies a content as it came. */
    struct value_span {
        uint32_t node, start, end;
    } spans[JSCAN_SPANS];
    size_t nspans;
    bool note_spans; /* jscan_note_spans */
};

struct scanner {
    struct jscan *js;
    const unsigned char *text, *p, *end;
    char *out; /* where the next string's bytes go in js->chars */
    int depth;
};

struct jscan *jscan_new(void)
{
    return xcalloc(1, sizeof(struct jscan));
}

void jscan_free(struct jscan *js)
{
    if (!js)
        return;
    free(js->nodes);
    free(js->chars);
    free(js->number);
    free(js->keys);
    free(js);
}

static inline uint32_t push(struct jscan *js, uint32_t type)
{
    if (js->nnodes == js->cap) {
        js->cap = js->cap ? js->cap * 2 : 256;
        js->nodes = xrealloc(js->nodes, js->cap * sizeof *js->nodes);
    }
    js->nodes[js->nnodes] = (struct jv){.type = type, .size = 1};
    return (uint32_t)js->nnodes++;
}

static void skip_space(struct scanner *sc)
{
    while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\n' || *sc->p == '\r'))
        sc->p++;
}

/* --- strings --- */

/* Bytes a string copies as they are: printable ASCII but the quote and the backslash. */
static inline bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Copies the plain bytes from p on; returns the first other byte, or end. Eight bytes at a time
 * where it can (base/swar.h): a word holds none but plain bytes when no byte is a quote or a
 * backslash, below 0x20 or above 0x7f. */
static const unsigned char *copy_plain(const unsigned char *p, const unsigned char *end, char **out)
{
    char *o = *out;
    while (SWAR_USABLE && end - p >= SWAR_BYTES) {
        uint64_t w = swar_load(p);
        uint64_t flagged =
            swar_equal(w, '"') | swar_equal(w, '\\') | swar_below(w, 0x20) | swar_high(w);
        /* Always 8 bytes: the output runs behind the input, so there is room, and what follows
         * the plain ones is written over. */
        memcpy(o, &w, SWAR_BYTES);
        if (flagged) {
            size_t n = swar_lowest(flagged);
            o += n;
            p += n;
            break;
        }
        o += SWAR_BYTES;
        p += SWAR_BYTES;
    }
    while (p < end && plain(*p))
        *o++ = (char)*p++;
    *out = o;
    return p;
}

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The code unit of the \uXXXX at p (p at the backslash), or -1. */
static long unicode_escape(const unsigned char *p, const unsigned char *end)
{
    if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
        return -1;
    long v = 0;
    for (int i = 2; i < 6; i++) {
        int d = hex_digit(p[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

static char *put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        *out++ = (char)cp;
    } else if (cp < 0x800) {
        *out++ = (char)(0xc0 | cp >> 6);
        *out++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *out++ = (char)(0xe0 | cp >> 12);
        *out++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *out++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *out++ = (char)(0xf0 | cp >> 18);
        *out++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *out++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *out++ = (char)(0x80 | (cp & 0x3f));
    }
    return out;
}

/* An escape at p (the backslash): writes what it stands for and returns the byte after it, or
 * NULL when jansson rejects it (unknown escape, \u0000, a surrogate not in a pair). */
static const unsigned char *unescape(const unsigned char *p, const unsigned char *end, char **out)
{
    if (end - p < 2)
        return NULL;
    static const char simple[256] = {['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
                                     ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};
    if (simple[p[1]]) {
        *(*out)++ = simple[p[1]];
        return p + 2;
    }
    long cp = unicode_escape(p, end);
    if (cp <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
        return NULL;
    p += 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        long low = unicode_escape(p, end);
        if (low < 0xdc00 || low > 0xdfff)
            return NULL;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        p += 6;
    }
    *out = put_utf8(*out, (uint32_t)cp);
    return p;
}

/* The string at sc->p (its opening quote) into node at. */
static bool scan_string(struct scanner *sc, uint32_t at)
{
    const unsigned char *p = sc->p + 1, *end = sc->end;
    char *out = sc->out, *start = out;
    for (;;) {
        p = copy_plain(p, end, &out);
        if (p == end)
            return false;
        if (*p == '"')
            break;
        if (*p == '\\') {
            p = unescape(p, end, &out);
            if (!p)
                return false;
        } else {
            /* a control character, or UTF-8 as jansson accepts it (escape.h) */
            size_t n = *p < 0x80 ? 0 : utf8_sequence_length(p, (size_t)(end - p));
            if (n == 0)
                return false;
            memcpy(out, p, n);
            out += n;
            p += n;
        }
    }
    *out++ = '\0';
    struct jv *node = &sc->js->nodes[at];
    node->u.s = start;
    node->len = (uint32_t)(out - start - 1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The buffer has room for 4 bytes at any string's start (jscan_scan). */
    static const uint32_t masks[4] = {0, 0xff, 0xffff, 0xffffff};
    uint32_t head;
    memcpy(&head, start, 4);
    node->head = node->len < 4 ? head & masks[node->len] : head;
#else
    node->head = jv_head(start, node->len);
#endif
    sc->out = out;
    sc->p = p + 1;
    return true;
}

/* --- duplicate keys --- */

static bool same_key(const struct jv *a, const struct jv *b)
{
    return a->head == b->head && a->len == b->len &&
           (a->len <= 4 || memcmp(a->u.s + 4, b->u.s + 4, a->len - 4) == 0);
}

static size_t key_hash(const struct jv *key, uint32_t object)
{
    uint64_t h = UINT64_C(14695981039346656037) ^ object;
    for (uint32_t i = 0; i < key->len; i++)
        h = (h ^ (unsigned char)key->u.s[i]) * UINT64_C(1099511628211);
    return (size_t)(h ^ h >> 29);
}

/* Enters key into the table; false when its object already has it. */
static bool table_insert(struct jscan *js, uint32_t object, uint32_t key)
{
    if (2 * (js->keys_used + 1) > js->keys_cap) {
        struct key_slot *old = js->keys;
        size_t old_cap = js->keys_cap;
        js->keys_cap = old_cap ? old_cap * 2 : 256;
        js->keys = xcalloc(js->keys_cap, sizeof *js->keys);
        js->keys_used = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].object)
                table_insert(js, old[i].object - 1, old[i].key);
        free(old);
    }
    const struct jv *k = &js->nodes[key];
    size_t mask = js->keys_cap - 1;
    for (size_t i = key_hash(k, object) & mask;; i = (i + 1) & mask) {
        struct key_slot *slot = &js->keys[i];
        if (!slot->object) {
            *slot = (struct key_slot){.object = object + 1, .key = key};
            js->keys_used++;
            return true;
        }
        if (slot->object == object + 1 && same_key(&js->nodes[slot->key], k))
            return false;
    }
}

/* Whether the key at node key differs from the count keys object has before it. */
static bool unique_key(struct jscan *js, uint32_t object, uint32_t key, uint32_t count)
{
    const struct jv *nodes = js->nodes;
    if (count < LINEAR_KEYS) {
        for (uint32_t k = object + 1; k < key; k += 1 + nodes[k + 1].size)
            if (same_key(&nodes[k], &nodes[key]))
                return false;
        return true;
    }
    if (count == LINEAR_KEYS)
        for (uint32_t k = object + 1; k < key; k += 1 + nodes[k + 1].size)
            table_insert(js, object, k);
    return table_insert(js, object, key);
}

/* --- numbers --- */

static bool is_digit(const unsigned char *p, const unsigned char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

static const char *number_text(struct jscan *js, const unsigned char *start, size_t len)
{
    if (len + 1 > js->number_cap) {
        js->number_cap = len + 1 < 64 ? 64 : len + 1;
        free(js->number);
        js->number = xmalloc(js->number_cap);
    }
    memcpy(js->number, start, len);
    js->number[len] = '\0';
    return js->number;
}

/* A number as jansson lexes it: an integer unless it has a fraction or an exponent, an error
 * when it overflows json_int_t or double (underflow is no error). */
static bool scan_number(struct scanner *sc, uint32_t at)
{
    const unsigned char *start = sc->p, *p = start, *end = sc->end;
    bool negative = *p == '-';
    p += negative;
    if (!is_digit(p, end))
        return false;
    if (*p == '0') {
        p++;
        if (is_digit(p, end))
            return false;
    } else {
        while (is_digit(p, end))
            p++;
    }
    bool real = false;
    if (p < end && *p == '.') {
        real = true;
        p++;
        if (!is_digit(p, end))
            return false;
        while (is_digit(p, end))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!is_digit(p, end))
            return false;
        while (is_digit(p, end))
            p++;
    }
    struct jv *node = &sc->js->nodes[at];
    size_t len = (size_t)(p - start), digits = len - negative;
    if (!real && digits <= 18) {
        json_int_t v = 0;
        for (const unsigned char *d = start + negative; d < p; d++)
            v = v * 10 + (*d - '0');
        node->type = JV_INTEGER;
        node->u.i = negative ? -v : v;
    } else if (!real) {
        if (digits > 19) /* LLONG_MAX has 19 digits */
            return false;
        errno = 0;
        node = &sc->js->nodes[at];
        long long v = strtoll(number_text(sc->js, start, len), NULL, 10);
        if (errno == ERANGE)
            return false;
        node->type = JV_INTEGER;
        node->u.i = v;
    } else if (real_read_exact((const char *)start, len, &node->u.d)) {
        node->type = JV_REAL;
    } else {
        errno = 0;
        double v = strtod(number_text(sc->js, start, len), NULL);
        if ((v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE)
            return false;
        node->type = JV_REAL;
        node->u.d = v;
    }
    sc->p = p;
    return true;
}

/* --- values --- */

enum after { AFTER_BAD, AFTER_CLOSED, AFTER_COMMA };

/* What follows a member or an element: the container's close, or a comma and the next one. */
static enum after after_item(struct scanner *sc, char close)
{
    skip_space(sc);
    if (sc->p == sc->end)
        return AFTER_BAD;
    char c = *sc->p++;
    if (c == close)
        return AFTER_CLOSED;
    if (c != ',')
        return AFTER_BAD;
    skip_space(sc);
    return AFTER_COMMA;
}

static bool scan_value(struct scanner *sc);

/* An object; top: the text's own, whose values' places the context notes (a constant where it
 * is inlined, so that the objects inside pay nothing for it). */
static inline __attribute__((always_inline)) bool scan_members(struct scanner *sc, bool top)
{
    struct jscan *js = sc->js;
    uint32_t at = push(js, JV_OBJECT), count = 0;
    size_t spans = 0;
    sc->p++;
    skip_space(sc);
    if (sc->p < sc->end && *sc->p == '}') {
        sc->p++;
    } else {
        for (;;) {
            if (sc->p == sc->end || *sc->p != '"')
                return false;
            const unsigned char *key_start = sc->p;
            uint32_t key = push(js, JV_STRING);
            if (!scan_string(sc, key))
                return false;
            /* a name spelt with an escape is longer than its bytes */
            bool kept = top && (size_t)(sc->p - key_start) == js->nodes[key].len + 2;
            /* A key whose bit no earlier key set is new, as long as the search is linear. */
            uint64_t bit = jv_key_bit(js->nodes[key].head, js->nodes[key].len);
            if (((js->nodes[at].u.keys & bit) || count >= LINEAR_KEYS) &&
                !unique_key(js, at, key, count))
                return false;
            js->nodes[at].u.keys |= bit;
            skip_space(sc);
            if (sc->p == sc->end || *sc->p != ':')
                return false;
            sc->p++;
            skip_space(sc);
            const unsigned char *value_start = sc->p;
            if (!scan_value(sc))
                return false;
            if (kept && count < JSCAN_SPANS)
                js->spans[spans++] = (struct value_span){
                    key + 1, (uint32_t)(value_start - sc->text), (uint32_t)(sc->p - sc->text)};
            count++;
            enum after next = after_item(sc, '}');
            if (next == AFTER_BAD)
                return false;
            if (next == AFTER_CLOSED)
                break;
        }
    }
    js->nodes[at].len = count;
    js->nodes[at].size = (uint32_t)(js->nnodes - at);
    if (top)
        js->nspans = spans;
    return true;
}

static bool scan_object(struct scanner *sc)
{
    return scan_members(sc, false);
}

static bool scan_array(struct scanner *sc)
{
    struct jscan *js = sc->js;
    uint32_t at = push(js, JV_ARRAY), count = 0;
    sc->p++;
    skip_space(sc);
    if (sc->p < sc->end && *sc->p == ']') {
        sc->p++;
    } else {
        for (;;) {
            if (!scan_value(sc))
                return false;
            count++;
            enum after next = after_item(sc, ']');
            if (next == AFTER_BAD)
                return false;
            if (next == AFTER_CLOSED)
                break;
        }
    }
    js->nodes[at].len = count;
    js->nodes[at].size = (uint32_t)(js->nnodes - at);
    return true;
}

static bool scan_word(struct scanner *sc, const char *word, size_t len, uint32_t type)
{
    if ((size_t)(sc->end - sc->p) < len || memcmp(sc->p, word, len) != 0)
        return false;
    sc->p += len;
    push(sc->js, type);
    return true;
}

/* The value at sc->p, which is no white space. jansson counts every value's depth, scalars too. */
static bool scan_value(struct scanner *sc)
{
    if (sc->p == sc->end || ++sc->depth > JSON_PARSER_MAX_DEPTH)
        return false;
    bool ok;
    switch (*sc->p) {
    case '{':
        ok = scan_object(sc);
        break;
    case '[':
        ok = scan_array(sc);
        break;
    case '"':
        ok = scan_string(sc, push(sc->js, JV_STRING));
        break;
    case 't':
        ok = scan_word(sc, "true", 4, JV_TRUE);
        break;
    case 'f':
        ok = scan_word(sc, "false", 5, JV_FALSE);
        break;
    case 'n':
        ok = scan_word(sc, "null", 4, JV_NULL);
        break;
    default:
        ok = (*sc->p == '-' || (*sc->p >= '0' && *sc->p <= '9')) &&
             scan_number(sc, push(sc->js, JV_INTEGER));
        break;
    }
    sc->depth--;
    return ok;
}

/* The text's value, as scan_value reads it but for the places of its members' values. */
static bool scan_top_value(struct scanner *sc)
{
    if (sc->p == sc->end || *sc->p != '{')
        return scan_value(sc);
    if (++sc->depth > JSON_PARSER_MAX_DEPTH)
        return false;
    /* a copy of each, so that a scan that notes nothing pays nothing */
    bool ok = sc->js->note_spans ? scan_members(sc, true) : scan_members(sc, false);
    sc->depth--;
    return ok;
}

/* What a context keeps between texts: more than this, grown for one huge text, goes back when
 * an ordinary one comes, so that memory follows the input rather than its worst line. */
enum { KEEP_BYTES = 1 << 20 };

static void shrink(struct jscan *js, size_t len)
{
    if (len >= KEEP_BYTES / 8)
        return;
    if (js->cap * sizeof *js->nodes > KEEP_BYTES) {
        free(js->nodes);
        js->nodes = NULL;
        js->cap = 0;
    }
    if (js->chars_cap > KEEP_BYTES) {
        free(js->chars);
        js->chars = NULL;
        js->chars_cap = 0;
    }
    if (js->keys_cap * sizeof *js->keys > KEEP_BYTES) {
        free(js->keys);
        js->keys = NULL;
        js->keys_cap = js->keys_used = 0;
    }
}

/* Empties the duplicate-key table of the last view's large objects. */
static void forget_keys(struct jscan *js)
{
    if (js->keys_used) {
        memset(js->keys, 0, js->keys_cap * sizeof *js->keys);
        js->keys_used = 0;
    }
}

/* depth_allowance: levels beyond jansson's limit (the scanner's depth starts below zero). */
static const struct jv *scan_text(struct jscan *js, const char *text, size_t len,
                                  int depth_allowance)
{
    if (len >= UINT32_MAX / 2)
        return NULL;
    shrink(js, len);
    /* Room for every string and its NUL, and for reading 4 bytes at the last one's start. */
    if (len + 4 > js->chars_cap) {
        js->chars_cap = len + 4 < 4096 ? 4096 : len + 4;
        free(js->chars);
        js->chars = xmalloc(js->chars_cap);
    }
    forget_keys(js);
    js->nnodes = 0;
    js->nspans = 0;
    struct scanner sc = {.js = js,
                         .text = (const unsigned char *)text,
                         .p = (const unsigned char *)text,
                         .end = (const unsigned char *)text + len,
                         .out = js->chars,
                         .depth = -depth_allowance};
    js->nchars = 0;
    skip_space(&sc);
    if (!scan_top_value(&sc))
        return NULL;
    skip_space(&sc);
    js->nchars = (size_t)(sc.out - js->chars);
    return sc.p == sc.end ? js->nodes : NULL;
}

const struct jv *jscan_scan(struct jscan *js, const char *text, size_t len)
{
    return scan_text(js, text, len, 0);
}

const struct jv *jscan_scan_made(struct jscan *js, const char *text, size_t len)
{
    return scan_text(js, text, len, JSCAN_MADE_DEPTH);
}

/* --- views built --- */

void jscan_build_begin(struct jscan *js)
{
    shrink(js, 0);
    forget_keys(js);
    js->nnodes = 0;
    js->nchars = 0;
    js->nspans = 0;
}

/* Room for n more bytes of strings, and for reading 4 bytes at the last one's start: the
 * chars grown (strings hold offsets until jscan_build_end). */
static void grow_chars(struct jscan *js, size_t n)
{
    if (n > SIZE_MAX / 4 - js->nchars)
        die_oom();
    size_t need = js->nchars + n + 4;
    size_t cap = js->chars_cap < 4096 ? 4096 : js->chars_cap;
    while (cap < need)
        cap *= 2;
    js->chars = xrealloc(js->chars, cap);
    js->chars_cap = cap;
}

static inline void reserve_chars(struct jscan *js, size_t n)
{
    if (n + 4 > js->chars_cap - js->nchars)
        grow_chars(js, n);
}

uint32_t jscan_build_open(struct jscan *js, enum jv_type type)
{
    return push(js, type);
}

void jscan_build_close(struct jscan *js, uint32_t at, uint32_t count)
{
    js->nodes[at].len = count;
    js->nodes[at].size = (uint32_t)(js->nnodes - at);
}

/* A string node of the a_len bytes at a then the b_len at b, copied; its offset in chars stands
 * for its pointer. */
static inline uint32_t build_string(struct jscan *js, const char *a, size_t a_len, const char *b,
                                    size_t b_len)
{
    size_t len = a_len + b_len;
    reserve_chars(js, len + 1);
    uint32_t at = push(js, JV_STRING);
    char *out = js->chars + js->nchars;
    memcpy(out, a, a_len);
    if (b_len)
        memcpy(out + a_len, b, b_len);
    out[len] = '\0';
    struct jv *node = &js->nodes[at];
    node->u.i = (json_int_t)js->nchars;
    node->len = (uint32_t)len;
    node->head = jv_head(out, len);
    js->nchars += len + 1;
    return at;
}

void jscan_build_key(struct jscan *js, uint32_t object, const char *prefix, size_t prefix_len,
                     const char *name, size_t name_len)
{
    uint32_t at = build_string(js, prefix, prefix_len, name, name_len);
    js->nodes[object].u.keys |= jv_key_bit(js->nodes[at].head, js->nodes[at].len);
}

void jscan_build_string(struct jscan *js, const char *s, size_t len)
{
    build_string(js, s, len, "", 0);
}

void jscan_build_integer(struct jscan *js, json_int_t v)
{
    uint32_t at = push(js, JV_INTEGER); /* before the nodes are read: push may move them */
    js->nodes[at].u.i = v;
}

void jscan_build_real(struct jscan *js, double v)
{
    uint32_t at = push(js, JV_REAL);
    js->nodes[at].u.d = v;
}

void jscan_build_view(struct jscan *js, const struct jv *v)
{
    for (uint32_t i = 0; i < v->size; i++) {
        if (v[i].type == JV_STRING) {
            build_string(js, v[i].u.s, v[i].len, "", 0);
        } else {
            uint32_t at = push(js, v[i].type);
            js->nodes[at] = v[i];
        }
    }
}

bool jscan_build_text(struct jscan *js, const char *text, size_t len, unsigned depth)
{
    if (len >= UINT32_MAX / 2)
        return false;
    reserve_chars(js, len);
    size_t first = js->nnodes;
    struct scanner sc = {.js = js,
                         .p = (const unsigned char *)text,
                         .end = (const unsigned char *)text + len,
                         .out = js->chars + js->nchars,
                         .depth = (int)depth - JSCAN_MADE_DEPTH};
    skip_space(&sc);
    bool ok = scan_value(&sc);
    skip_space(&sc);
    if (!ok || sc.p != sc.end) {
        js->nnodes = first;
        return false;
    }
    for (size_t i = first; i < js->nnodes; i++)
        if (js->nodes[i].type == JV_STRING)
            js->nodes[i].u.i = (json_int_t)(js->nodes[i].u.s - js->chars);
    js->nchars = (size_t)(sc.out - js->chars);
    return true;
}

const struct jv *jscan_build_end(struct jscan *js)
{
    for (size_t i = 0; i < js->nnodes; i++)
        if (js->nodes[i].type == JV_STRING)
            js->nodes[i].u.s = js->chars + js->nodes[i].u.i;
    return js->nodes;
}

/* --- views kept --- */

void jv_store_reset(struct jv_store *st)
{
    if (st->cap * sizeof *st->nodes > KEEP_BYTES || st->chars_cap > KEEP_BYTES) {
        jv_store_free(st);
        return;
    }
    st->nnodes = st->nchars = 0;
}

void jv_store_free(struct jv_store *st)
{
    free(st->nodes);
    free(st->chars);
    *st = (struct jv_store){0};
}

size_t jv_store_add(struct jv_store *st, const struct jscan *js)
{
    if (st->nnodes + js->nnodes > st->cap) {
        st->cap = st->nnodes + js->nnodes < 1024 ? 1024 : 2 * (st->nnodes + js->nnodes);
        st->nodes = xrealloc(st->nodes, st->cap * sizeof *st->nodes);
    }
    if (st->nchars + js->nchars > st->chars_cap) {
        size_t need = st->nchars + js->nchars;
        st->chars_cap = need < 16384 ? 16384 : 2 * need;
        st->chars = xrealloc(st->chars, st->chars_cap);
    }
    size_t place = st->nnodes;
    struct jv *nodes = st->nodes + place;
    memcpy(nodes, js->nodes, js->nnodes * sizeof *nodes);
    if (js->nchars) /* a text without strings ({}, a number) may come before any has chars */
        memcpy(st->chars + st->nchars, js->chars, js->nchars);
    /* Either buffer may move until the last add: a string holds its offset until the seal. */
    for (size_t i = 0; i < js->nnodes; i++)
        if (nodes[i].type == JV_STRING)
            nodes[i].u.i = (json_int_t)(st->nchars + (size_t)(nodes[i].u.s - js->chars));
    st->nnodes += js->nnodes;
    st->nchars += js->nchars;
    return place;
}

void jv_store_seal(struct jv_store *st)
{
    for (size_t i = 0; i < st->nnodes; i++)
        if (st->nodes[i].type == JV_STRING)
            st->nodes[i].u.s = st->chars + st->nodes[i].u.i;
}

/* --- from and to jansson --- */

static void of_tree(struct jscan *js, const json_t *v)
{
    uint32_t at;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        at = push(js, JV_OBJECT);
        const char *key;
        size_t key_len;
        json_t *value;
        json_object_keylen_foreach((json_t *)v, key, key_len, value)
        {
            uint32_t k = push(js, JV_STRING);
            js->nodes[k].u.s = key;
            js->nodes[k].len = (uint32_t)key_len;
            js->nodes[k].head = jv_head(key, key_len);
            js->nodes[at].u.keys |= jv_key_bit(js->nodes[k].head, key_len);
            of_tree(js, value);
        }
        js->nodes[at].len = (uint32_t)json_object_size(v);
        break;
    }
    case JSON_ARRAY: {
        at = push(js, JV_ARRAY);
        for (size_t i = 0; i < json_array_size(v); i++)
            of_tree(js, json_array_get(v, i));
        js->nodes[at].len = (uint32_t)json_array_size(v);
        break;
    }
    case JSON_STRING:
        at = push(js, JV_STRING);
        js->nodes[at].u.s = json_string_value(v);
        js->nodes[at].len = (uint32_t)json_string_length(v);
        js->nodes[at].head = jv_head(js->nodes[at].u.s, js->nodes[at].len);
        break;
    case JSON_INTEGER:
        at = push(js, JV_INTEGER);
        js->nodes[at].u.i = json_integer_value(v);
        break;
    case JSON_REAL:
        at = push(js, JV_REAL);
        js->nodes[at].u.d = json_real_value(v);
        break;
    case JSON_TRUE:
        at = push(js, JV_TRUE);
        break;
    case JSON_FALSE:
        at = push(js, JV_FALSE);
        break;
    case JSON_NULL:
    default:
        at = push(js, JV_NULL);
        break;
    }
    js->nodes[at].size = (uint32_t)(js->nnodes - at);
}

const struct jv *jscan_of_tree(struct jscan *js, const json_t *tree)
{
    js->nnodes = 0;
    js->nspans = 0;
    of_tree(js, tree);
    return js->nodes;
}

static json_t *checked(json_t *v)
{
    if (!v)
        die_oom();
    return v;
}

json_t *jscan_to_tree(const struct jv *v)
{
    switch (v->type) {
    case JV_OBJECT: {
        json_t *obj = checked(json_object());
        for (const struct jv *k = jv_object_first(v); k; k = jv_object_next(v, k))
            if (json_object_setn_new_nocheck(obj, k->u.s, k->len, jscan_to_tree(k + 1)) != 0)
                die_oom();
        return obj;
    }
    case JV_ARRAY: {
        json_t *arr = checked(json_array());
        for (const struct jv *e = jv_array_first(v); e; e = jv_array_next(v, e))
            if (json_array_append_new(arr, jscan_to_tree(e)) != 0)
                die_oom();
        return arr;
    }
    case JV_STRING:
        return checked(json_stringn_nocheck(v->u.s, v->len));
    case JV_INTEGER:
        return checked(json_integer(v->u.i));
    case JV_REAL:
        return checked(json_real(v->u.d));
    case JV_TRUE:
        return json_true();
    case JV_FALSE:
        return json_false();
    default:
        return json_null();
    }
}

/* --- the view --- */

const struct jv *jv_object_first(const struct jv *obj)
{
    return jv_is_object(obj) && obj->len ? obj + 1 : NULL;
}

const struct jv *jv_object_next(const struct jv *obj, const struct jv *key)
{
    const struct jv *next = key + 1 + key[1].size;
    return next < obj + obj->size ? next : NULL;
}

const struct jv *jv_object_find(const struct jv *obj, const char *key, size_t len, uint32_t head)
{
    if (!jv_is_object(obj) || !(obj->u.keys & jv_key_bit(head, len)))
        return NULL;
    const struct jv *end = obj + obj->size;
    for (const struct jv *k = obj + 1; k < end; k += 1 + k[1].size)
        if (k->head == head && k->len == len &&
            (len <= 4 || memcmp(k->u.s + 4, key + 4, len - 4) == 0))
            return k + 1;
    return NULL;
}

const struct jv *jv_array_first(const struct jv *arr)
{
    return jv_is_array(arr) && arr->len ? arr + 1 : NULL;
}

const struct jv *jv_array_next(const struct jv *arr, const struct jv *elem)
{
    const struct jv *next = elem + elem->size;
    return next < arr + arr->size ? next : NULL;
}

const struct jv *jv_array_get(const struct jv *arr, size_t index)
{
    if (!jv_is_array(arr) || index >= arr->len)
        return NULL;
    /* An array of scalars only (one node each) is indexed directly. */
    if (arr->size == arr->len + 1)
        return arr + 1 + index;
    const struct jv *e = arr + 1;
    while (index--)
        e += e->size;
    return e;
}

/* --- the text of a member, in a text already scanned --- */

static bool text_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_text_space(const char *text, size_t len, size_t i)
{
    while (i < len && text_space(text[i]))
        i++;
    return i;
}

/* Past the string whose quote is at text[i]: its closing quote is the first one after it that
 * an even number of backslashes stands before (memchr finds quotes faster than a loop). */
static size_t skip_text_string(const char *text, size_t len, size_t i)
{
    for (i++; i < len;) {
        const char *quote = memchr(text + i, '"', len - i);
        if (!quote)
            return len;
        size_t at = (size_t)(quote - text), backslashes = 0;
        while (at - backslashes > i && text[at - backslashes - 1] == '\\')
            backslashes++;
        if (backslashes % 2 == 0)
            return at + 1;
        i = at + 1;
    }
    return len;
}

/* Past the value at text[i]: a string, a nested object or array, or a word or number. */
static size_t skip_text_value(const char *text, size_t len, size_t i)
{
    if (i < len && text[i] == '"')
        return skip_text_string(text, len, i);
    size_t depth = 0;
    while (i < len) {
        char c = text[i];
        if (c == '"') {
            i = skip_text_string(text, len, i);
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || text_space(c))) {
            return i;
        }
        i++;
    }
    return i;
}

/* Back from text[i], the byte after a string's closing quote, to its opening quote: the first
 * quote before it that an even number of backslashes stands before. */
static size_t back_over_string(const char *text, size_t i)
{
    for (size_t at = i - 1; at > 0;) {
        at--;
        if (text[at] != '"')
            continue;
        size_t backslashes = 0;
        while (at > backslashes && text[at - backslashes - 1] == '\\')
            backslashes++;
        if (backslashes % 2 == 0)
            return at;
    }
    return 0;
}

/* Back from text[i], the byte after a value, to where the value starts. */
static size_t back_over_value(const char *text, size_t i)
{
    char last = text[i - 1];
    if (last == '"')
        return back_over_string(text, i);
    if (last != '}' && last != ']') {
        while (i > 0 && !strchr(",:[{ \t\r\n", text[i - 1]))
            i--;
        return i;
    }
    size_t depth = 0;
    while (i > 0) {
        char c = text[i - 1];
        if (c == '"') {
            i = back_over_string(text, i);
            continue;
        }
        i--;
        if (c == '}' || c == ']')
            depth++;
        else if ((c == '{' || c == '[') && --depth == 0)
            return i;
    }
    return 0;
}

static size_t back_over_space(const char *text, size_t i)
{
    while (i > 0 && text_space(text[i - 1]))
        i--;
    return i;
}

/* The last member of the object text: its name's bytes between the quotes and its value's; false
 * when the object is empty. Read back from the end, as most messages end in their content. */
static bool last_member(const char *text, size_t len, size_t *name, size_t *name_len,
                        size_t *value_start, size_t *value_end)
{
    size_t i = back_over_space(text, len);
    if (i < 2 || text[i - 1] != '}')
        return false;
    *value_end = i = back_over_space(text, i - 1);
    if (i == 0 || text[i - 1] == '{')
        return false;
    *value_start = i = back_over_value(text, i);
    i = back_over_space(text, i);
    if (i == 0 || text[i - 1] != ':')
        return false;
    i = back_over_space(text, i - 1);
    if (i == 0 || text[i - 1] != '"')
        return false;
    size_t open = back_over_string(text, i);
    *name = open + 1;
    *name_len = i - 1 - *name;
    return true;
}

void jscan_note_spans(struct jscan *js, bool note)
{
    js->note_spans = note;
}

bool jscan_value_text(const struct jscan *js, const struct jv *value, size_t *start, size_t *end)
{
    uintptr_t at = (uintptr_t)value, first = (uintptr_t)js->nodes;
    if (!value || at < first || at >= first + js->nnodes * sizeof *js->nodes)
        return false;
    size_t node = (at - first) / sizeof *js->nodes;
    for (size_t i = 0; i < js->nspans; i++)
        if (js->spans[i].node == node) {
            *start = js->spans[i].start;
            *end = js->spans[i].end;
            return true;
        }
    return false;
}

bool jscan_member_text(const char *text, size_t len, const char *key, size_t *start, size_t *end)
{
    size_t key_len = strlen(key);
    size_t last, last_len;
    if (last_member(text, len, &last, &last_len, start, end) && last_len == key_len &&
        memcmp(text + last, key, key_len) == 0)
        return true;
    size_t i = skip_text_space(text, len, 0);
    if (i == len || text[i] != '{')
        return false;
    i++;
    while ((i = skip_text_space(text, len, i)) < len && text[i] == '"') {
        size_t name = i + 1;
        i = skip_text_string(text, len, i);
        bool wanted = i - name - 1 == key_len && memcmp(text + name, key, key_len) == 0;
        i = skip_text_space(text, len, i);
        if (i == len || text[i] != ':')
            return false;
        i = skip_text_space(text, len, i + 1);
        size_t value_end = skip_text_value(text, len, i);
        if (wanted) {
            *start = i;
            *end = value_end;
            return true;
        }
        i = skip_text_space(text, len, value_end);
        if (i < len && text[i] == ',')
            i++;
    }
    return false;
}

/* Up to this many members, an object's key is found in the other by jv_object_get; past it both
 * objects' keys are sorted, since each lookup walks the members (and a huge object would cost the
 * square of its size). */
enum { EQUAL_LOOKUPS = 16 };

static int key_order(const void *x, const void *y)
{
    const struct jv *a = *(const struct jv *const *)x, *b = *(const struct jv *const *)y;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->u.s, b->u.s, a->len);
}

/* The keys of an object, sorted (key_order); free() them. */
static const struct jv **sorted_keys(const struct jv *obj)
{
    const struct jv **keys = xmalloc(obj->len * sizeof *keys);
    size_t n = 0;
    for (const struct jv *k = jv_object_first(obj); k; k = jv_object_next(obj, k))
        keys[n++] = k;
    qsort(keys, n, sizeof *keys, key_order);
    return keys;
}

static bool large_objects_equal(const struct jv *a, const struct jv *b)
{
    const struct jv **ka = sorted_keys(a), **kb = sorted_keys(b);
    bool equal = true;
    for (size_t i = 0; i < a->len && equal; i++) /* keys are unique: the sorted lists pair up */
        equal = key_order(&ka[i], &kb[i]) == 0 &&
                jv_equal(jv_object_value(ka[i]), jv_object_value(kb[i]));
    free(ka);
    free(kb);
    return equal;
}

static bool objects_equal(const struct jv *a, const struct jv *b)
{
    if (a->len != b->len)
        return false;
    if (a->len > EQUAL_LOOKUPS)
        return large_objects_equal(a, b);
    for (const struct jv *k = jv_object_first(a); k; k = jv_object_next(a, k)) {
        const struct jv *other = jv_object_get_len(b, jv_string_value(k), jv_string_length(k));
        if (!jv_equal(jv_object_value(k), other))
            return false;
    }
    return true;
}

static bool arrays_equal(const struct jv *a, const struct jv *b)
{
    if (a->len != b->len)
        return false;
    const struct jv *x = jv_array_first(a), *y = jv_array_first(b);
    for (; x && y; x = jv_array_next(a, x), y = jv_array_next(b, y))
        if (!jv_equal(x, y))
            return false;
    return true;
}

bool jv_equal(const struct jv *a, const struct jv *b)
{
    if (!a || !b || a->type != b->type)
        return false;
    if (a == b)
        return true;
    switch (a->type) {
    case JV_OBJECT:
        return objects_equal(a, b);
    case JV_ARRAY:
        return arrays_equal(a, b);
    case JV_STRING:
        return a->len == b->len && memcmp(a->u.s, b->u.s, a->len) == 0;
    case JV_INTEGER:
        return a->u.i == b->u.i;
    case JV_REAL:
        return a->u.d == b->u.d;
    default:
        return true; /* true, false, null */
    }
}

void jv_write_json(struct jsonout *w, const struct jv *v)
{
    switch (v->type) {
    case JV_OBJECT:
        jsonout_begin_object(w);
        for (const struct jv *k = jv_object_first(v); k; k = jv_object_next(v, k)) {
            jsonout_key(w, jv_string_value(k));
            jv_write_json(w, jv_object_value(k));
        }
        jsonout_end_object(w);
        break;
    case JV_ARRAY:
        jsonout_begin_array(w);
        for (const struct jv *e = jv_array_first(v); e; e = jv_array_next(v, e))
            jv_write_json(w, e);
        jsonout_end_array(w);
        break;
    case JV_STRING:
        jsonout_string(w, jv_string_value(v), jv_string_length(v));
        break;
    case JV_INTEGER:
        jsonout_integer(w, jv_integer_value(v));
        break;
    case JV_REAL:
        jsonout_real(w, jv_number_value(v));
        break;
    case JV_TRUE:
    case JV_FALSE:
        jsonout_bool(w, v->type == JV_TRUE);
        break;
    default:
        jsonout_null(w);
        break;
    }
}
