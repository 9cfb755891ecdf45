#include "proto/memberlist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"

void member_list_init(struct member_list *l)
{
    *l = (struct member_list){.text = STRBUF_INIT};
}

/* Up to this many members a key is found by comparing it with each; from then on through an
 * index of the members by a hash of their keys, so that an object of many members (a string-form
 * message of a hundred thousand user parameters, a FIPA message as large) costs linear time. */
enum { MEMBERS_SEARCHED = 16 };

void member_list_reset(struct member_list *l)
{
    l->n = 0;
    l->shapes = 0;
    sb_reset(&l->text);
    free(l->index);
    l->index = NULL;
    l->nindex = 0;
}

void member_list_free(struct member_list *l)
{
    free(l->members);
    free(l->index);
    sb_free(&l->text);
    member_list_init(l);
}

/* The key's first byte: most keys differ in it or in their length. */
static char first_of(const char *prefix, size_t prefix_len, const char *name)
{
    return prefix_len ? prefix[0] : name[0];
}

/* Whether m's key is prefix+name: compared as the one string each key is, however it is split
 * (x-fipa- + id is "" + x-fipa-id). */
static bool key_is(const struct member *m, const char *prefix, size_t prefix_len, const char *name,
                   size_t name_len)
{
    if (m->prefix_len == prefix_len)
        return memcmp(m->prefix, prefix, prefix_len) == 0 && memcmp(m->name, name, name_len) == 0;
    const char *a[2] = {m->prefix, m->name}, *b[2] = {prefix, name};
    size_t a_len[2] = {m->prefix_len, m->name_len}, b_len[2] = {prefix_len, name_len};
    size_t i = 0, j = 0, at_a = 0, at_b = 0;
    while (i < 2 && j < 2) {
        if (at_a == a_len[i]) {
            i++, at_a = 0;
        } else if (at_b == b_len[j]) {
            j++, at_b = 0;
        } else {
            size_t n = a_len[i] - at_a < b_len[j] - at_b ? a_len[i] - at_a : b_len[j] - at_b;
            if (memcmp(a[i] + at_a, b[j] + at_b, n) != 0)
                return false;
            at_a += n;
            at_b += n;
        }
    }
    return true;
}

/* The hash of the key prefix+name, under the run's key (hashtab_hash_len), so that no input
 * chooses keys that collide. */
static uint32_t key_hash(const char *prefix, size_t prefix_len, const char *name, size_t name_len)
{
    if (!prefix_len)
        return (uint32_t)hashtab_hash_len(name, name_len);
    char small[128];
    size_t len = prefix_len + name_len;
    char *key = len <= sizeof small ? small : xmalloc(len);
    memcpy(key, prefix, prefix_len);
    memcpy(key + prefix_len, name, name_len);
    uint32_t hash = (uint32_t)hashtab_hash_len(key, len);
    if (key != small)
        free(key);
    return hash;
}

/* A key sought: its parts, and what tells it apart from most others at once. */
struct sought {
    const char *prefix, *name;
    size_t prefix_len, name_len, key_len;
    char first;
    uint32_t hash; /* when the list has an index */
};

static bool is_sought(const struct member *m, const struct sought *k, bool hashed)
{
    return m->key_len == k->key_len && m->first == k->first && (!hashed || m->hash == k->hash) &&
           key_is(m, k->prefix, k->prefix_len, k->name, k->name_len);
}

static size_t index_mask(const struct member_list *l)
{
    return l->nindex - 1;
}

static void index_add(struct member_list *l, size_t i)
{
    size_t slot = l->members[i].hash & index_mask(l);
    while (l->index[slot])
        slot = (slot + 1) & index_mask(l);
    l->index[slot] = (uint32_t)i + 1;
}

/* Makes the index anew for the members there are, at most half full. */
static void index_build(struct member_list *l)
{
    size_t n = 64;
    while (n < 2 * (l->n + 1))
        n *= 2;
    free(l->index);
    l->index = xcalloc(n, sizeof *l->index);
    l->nindex = n;
    for (size_t i = 0; i < l->n; i++)
        index_add(l, i);
}

/* Hashes every member, then indexes them: when the list outgrows its linear search, or its
 * index fills up. */
static void index_rehash(struct member_list *l)
{
    if (!l->index)
        for (size_t i = 0; i < l->n; i++) {
            struct member *m = &l->members[i];
            m->hash = key_hash(m->prefix, m->prefix_len, m->name, m->name_len);
        }
    index_build(l);
}

/* The bit of shapes a key of this first byte and length sets. */
static uint64_t shape_bit(char first, size_t key_len)
{
    return UINT64_C(1) << (((unsigned char)first * 31u + key_len) & 63);
}

/* The member k names, or NULL; *compared counts the members compared on the way. */
static struct member *find(const struct member_list *l, const struct sought *k, size_t *compared)
{
    if (!l->index) {
        if (!(l->shapes & shape_bit(k->first, k->key_len)))
            return NULL;
        for (size_t i = 0; i < l->n; i++) {
            ++*compared;
            if (is_sought(&l->members[i], k, false))
                return &l->members[i];
        }
        return NULL;
    }
    for (size_t slot = k->hash & index_mask(l); l->index[slot]; slot = (slot + 1) & index_mask(l)) {
        struct member *m = &l->members[l->index[slot] - 1];
        ++*compared;
        if (is_sought(m, k, true))
            return m;
    }
    return NULL;
}

static struct sought sought_of(const struct member_list *l, const char *prefix, const char *name)
{
    struct sought k = {.prefix = prefix, .name = name};
    k.prefix_len = prefix[0] ? strlen(prefix) : 0; /* most keys have none */
    k.name_len = strlen(name);
    k.key_len = k.prefix_len + k.name_len;
    k.first = first_of(prefix, k.prefix_len, name);
    if (l->index)
        k.hash = key_hash(prefix, k.prefix_len, name, k.name_len);
    return k;
}

size_t member_list_compared(const struct member_list *l, const char *prefix, const char *name)
{
    size_t compared = 0;
    struct sought k = sought_of(l, prefix, name);
    find(l, &k, &compared);
    return compared;
}

const struct member *member_list_get(const struct member_list *l, const char *prefix,
                                     const char *name)
{
    size_t compared = 0;
    struct sought k = sought_of(l, prefix, name);
    return find(l, &k, &compared);
}

void member_list_find_each(const struct member_list *l, const char *const *names, size_t n,
                           const struct member **found)
{
    size_t len[8];
    for (size_t j = 0; j < n && j < 8; j++) {
        len[j] = strlen(names[j]);
        found[j] = NULL;
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct member *m = &l->members[i];
        for (size_t j = 0; j < n && j < 8; j++)
            if (m->key_len == len[j] && m->first == names[j][0] &&
                key_is(m, "", 0, names[j], len[j]))
                found[j] = m;
    }
}

/* The member to set: the one of that key, or a new one at the end; with only_new, NULL when
 * there is one already (nothing changed). One lookup either way. */
static struct member *place_member(struct member_list *l, const char *prefix, const char *name,
                                   enum member_kind kind, bool only_new)
{
    size_t compared = 0;
    struct sought k = sought_of(l, prefix, name);
    struct member *m = find(l, &k, &compared);
    if (m && only_new)
        return NULL;
    if (!m) {
        /* a message's members at once: one allocation, not a run of doublings */
        if (l->n == l->cap)
            l->members = xgrow(l->members, &l->cap, l->n < 16 ? 16 : l->n + 1, sizeof *l->members);
        l->shapes |= shape_bit(k.first, k.key_len);
        m = &l->members[l->n++];
        *m = (struct member){.prefix = prefix,
                             .name = name,
                             .prefix_len = k.prefix_len,
                             .name_len = k.name_len,
                             .key_len = k.key_len,
                             .first = k.first,
                             .hash = l->index ? k.hash : 0};
        if (l->index && 2 * l->n <= l->nindex)
            index_add(l, l->n - 1);
        else if (l->n > MEMBERS_SEARCHED)
            index_rehash(l);
    }
    m->kind = kind;
    m->view = NULL;
    return m;
}

static struct member *place(struct member_list *l, const char *prefix, const char *name,
                            enum member_kind kind)
{
    return place_member(l, prefix, name, kind, false);
}

void member_list_set_view(struct member_list *l, const char *prefix, const char *name,
                          const struct jv *v)
{
    if (v)
        place(l, prefix, name, MEMBER_VIEW)->view = v;
}

/* Sets m to bytes copied into the list's text (NUL-terminated, for member_string). */
static void copy_value(struct member_list *l, struct member *m, const char *bytes, size_t len)
{
    m->at = l->text.len;
    m->len = len;
    sb_add(&l->text, bytes, len);
    sb_addc(&l->text, '\0');
}

void member_list_set_string(struct member_list *l, const char *prefix, const char *name,
                            const char *s, size_t len)
{
    copy_value(l, place(l, prefix, name, MEMBER_STRING), s, len);
}

void member_list_set_text(struct member_list *l, const char *prefix, const char *name,
                          const char *text, size_t len, const struct jv *value)
{
    struct member *m = place(l, prefix, name, MEMBER_TEXT);
    m->source = text;
    m->len = len;
    m->view = value;
}

void member_list_set_json(struct member_list *l, const char *prefix, const char *name,
                          const char *json, size_t len)
{
    copy_value(l, place(l, prefix, name, MEMBER_JSON), json, len);
}

bool member_list_add_string(struct member_list *l, const char *name, const char *s, size_t len)
{
    struct member *m = place_member(l, "", name, MEMBER_STRING, true);
    if (m)
        copy_value(l, m, s, len);
    return m != NULL;
}

bool member_list_add_json(struct member_list *l, const char *name, const char *json, size_t len)
{
    struct member *m = place_member(l, "", name, MEMBER_JSON, true);
    if (m)
        copy_value(l, m, json, len);
    return m != NULL;
}

void member_list_remove(struct member_list *l, const char *prefix, const char *name)
{
    size_t compared = 0;
    struct sought k = sought_of(l, prefix, name);
    struct member *m = find(l, &k, &compared);
    if (!m)
        return;
    size_t i = (size_t)(m - l->members);
    memmove(m, m + 1, (l->n - i - 1) * sizeof *m);
    l->n--;
    if (l->index)
        index_build(l); /* the members after it moved down: rare (a marker's language) */
}

void member_list_set_integer(struct member_list *l, const char *name, json_int_t v)
{
    place(l, "", name, MEMBER_INTEGER)->integer = v;
}

void member_list_set_real(struct member_list *l, const char *name, double v)
{
    place(l, "", name, MEMBER_REAL)->real = v;
}

void member_list_json_begin(struct member_list *l, const char *name, struct jsonout *w)
{
    struct member *m = place(l, "", name, MEMBER_JSON);
    m->at = l->text.len;
    l->json = (size_t)(m - l->members);
    jsonout_init(w, &l->text, w->flags);
}

void member_list_json_end(struct member_list *l)
{
    struct member *m = &l->members[l->json];
    m->len = l->text.len - m->at;
}

const char *member_string(const struct member_list *l, const struct member *m)
{
    if (!m)
        return NULL;
    if (m->kind == MEMBER_VIEW)
        return jv_string_value(m->view);
    return m->kind == MEMBER_STRING ? l->text.buf + m->at : NULL;
}

bool member_number(const struct member *m, double *v)
{
    if (!m)
        return false;
    switch (m->kind) {
    case MEMBER_VIEW:
        *v = jv_number_value(m->view);
        return jv_is_number(m->view);
    case MEMBER_INTEGER:
        *v = (double)m->integer;
        return true;
    case MEMBER_REAL:
        *v = m->real;
        return true;
    case MEMBER_STRING:
    case MEMBER_JSON:
    case MEMBER_TEXT:
        break;
    }
    return false;
}

static void write_key(struct jsonout *w, const struct member *m)
{
    if (!m->prefix_len) {
        jsonout_key(w, m->name);
        return;
    }
    char small[64];
    size_t len = m->prefix_len + m->name_len;
    char *key = len < sizeof small ? small : xmalloc(len + 1);
    memcpy(key, m->prefix, m->prefix_len);
    memcpy(key + m->prefix_len, m->name, m->name_len + 1);
    jsonout_key(w, key);
    if (key != small)
        free(key);
}

/* Writes the members; *found_at is where the value of the member found (an index, or SIZE_MAX)
 * starts. */
static void write_members(const struct member_list *l, struct jsonout *w, size_t found,
                          size_t *found_at)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct member *m = &l->members[i];
        write_key(w, m);
        if (i == found)
            *found_at = w->sb->len;
        switch (m->kind) {
        case MEMBER_VIEW:
            jv_write_json(w, m->view);
            break;
        case MEMBER_TEXT:
            jsonout_text(w, m->source, m->len);
            break;
        case MEMBER_STRING:
            jsonout_string(w, l->text.buf + m->at, m->len);
            break;
        case MEMBER_INTEGER:
            jsonout_integer(w, m->integer);
            break;
        case MEMBER_REAL:
            jsonout_real(w, m->real);
            break;
        case MEMBER_JSON:
            sb_add(w->sb, l->text.buf + m->at, m->len);
            break;
        }
    }
}

void member_list_write_members(const struct member_list *l, struct jsonout *w)
{
    write_members(l, w, SIZE_MAX, NULL);
}

static void write_line(const struct member_list *l, struct strbuf *out, unsigned flags,
                       size_t found, size_t *found_at)
{
    struct jsonout w;
    jsonout_init(&w, out, flags);
    jsonout_begin_object(&w);
    write_members(l, &w, found, found_at);
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}

void member_list_write(const struct member_list *l, struct strbuf *out, unsigned flags)
{
    write_line(l, out, flags, SIZE_MAX, NULL);
}

size_t member_list_write_finding(const struct member_list *l, struct strbuf *out, unsigned flags,
                                 const char *name)
{
    const struct member *m = member_list_get(l, "", name);
    size_t found_at = SIZE_MAX;
    write_line(l, out, flags, m ? (size_t)(m - l->members) : SIZE_MAX, &found_at);
    return found_at;
}

/* The value of m, into what js builds, depth levels deep; false when JSON text of it is none. */
static bool build_value(const struct member_list *l, const struct member *m, struct jscan *js,
                        unsigned depth)
{
    switch (m->kind) {
    case MEMBER_VIEW:
        jscan_build_view(js, m->view);
        return true;
    case MEMBER_TEXT:
        if (m->view) {
            jscan_build_view(js, m->view);
            return true;
        }
        return jscan_build_text(js, m->source, m->len, depth);
    case MEMBER_STRING:
        jscan_build_string(js, l->text.buf + m->at, m->len);
        return true;
    case MEMBER_INTEGER:
        jscan_build_integer(js, m->integer);
        return true;
    case MEMBER_REAL:
        jscan_build_real(js, m->real);
        return true;
    case MEMBER_JSON:
        return jscan_build_text(js, l->text.buf + m->at, m->len, depth);
    }
    return false;
}

const struct jv *member_list_view(const struct member_list *l, struct jscan *js)
{
    jscan_build_begin(js);
    uint32_t object = jscan_build_open(js, JV_OBJECT);
    for (size_t i = 0; i < l->n; i++) {
        const struct member *m = &l->members[i];
        jscan_build_key(js, object, m->prefix, m->prefix_len, m->name, m->name_len);
        if (!build_value(l, m, js, 1)) {
            jscan_build_end(js);
            return NULL;
        }
    }
    jscan_build_close(js, object, (uint32_t)l->n);
    return jscan_build_end(js);
}
