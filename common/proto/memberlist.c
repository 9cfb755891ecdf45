#include "proto/memberlist.h"

#include <stdlib.h>
#include <string.h>

void member_list_init(struct member_list *l)
{
    *l = (struct member_list){.text = STRBUF_INIT};
}

void member_list_reset(struct member_list *l)
{
    l->n = 0;
    sb_reset(&l->text);
}

void member_list_free(struct member_list *l)
{
    free(l->members);
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

static struct member *find(const struct member_list *l, const char *prefix, size_t prefix_len,
                           const char *name, size_t name_len)
{
    size_t key_len = prefix_len + name_len;
    char first = first_of(prefix, prefix_len, name);
    for (size_t i = 0; i < l->n; i++) {
        struct member *m = &l->members[i];
        if (m->key_len == key_len && m->first == first &&
            key_is(m, prefix, prefix_len, name, name_len))
            return m;
    }
    return NULL;
}

const struct member *member_list_get(const struct member_list *l, const char *prefix,
                                     const char *name)
{
    return find(l, prefix, strlen(prefix), name, strlen(name));
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

/* The member to set: the one of that key, or a new one at the end. */
static struct member *place(struct member_list *l, const char *prefix, const char *name,
                            enum member_kind kind)
{
    size_t prefix_len = strlen(prefix), name_len = strlen(name);
    struct member *m = find(l, prefix, prefix_len, name, name_len);
    if (!m) {
        /* a message's members at once: one allocation, not a run of doublings */
        l->members = xgrow(l->members, &l->cap, l->n < 16 ? 16 : l->n + 1, sizeof *l->members);
        m = &l->members[l->n++];
        *m = (struct member){.prefix = prefix,
                             .name = name,
                             .prefix_len = prefix_len,
                             .name_len = name_len,
                             .key_len = prefix_len + name_len,
                             .first = first_of(prefix, prefix_len, name)};
    }
    m->kind = kind;
    m->view = NULL;
    return m;
}

void member_list_set_view(struct member_list *l, const char *prefix, const char *name,
                          const struct jv *v)
{
    if (v)
        place(l, prefix, name, MEMBER_VIEW)->view = v;
}

/* Sets a member to bytes copied into the list's text (NUL-terminated, for member_string). */
static void place_copy(struct member_list *l, const char *prefix, const char *name,
                       enum member_kind kind, const char *bytes, size_t len)
{
    struct member *m = place(l, prefix, name, kind);
    m->at = l->text.len;
    m->len = len;
    sb_add(&l->text, bytes, len);
    sb_addc(&l->text, '\0');
}

void member_list_set_string(struct member_list *l, const char *prefix, const char *name,
                            const char *s, size_t len)
{
    place_copy(l, prefix, name, MEMBER_STRING, s, len);
}

void member_list_set_text(struct member_list *l, const char *prefix, const char *name,
                          const char *text, size_t len)
{
    struct member *m = place(l, prefix, name, MEMBER_TEXT);
    m->source = text;
    m->len = len;
}

void member_list_set_json(struct member_list *l, const char *prefix, const char *name,
                          const char *json, size_t len)
{
    place_copy(l, prefix, name, MEMBER_JSON, json, len);
}

void member_list_remove(struct member_list *l, const char *prefix, const char *name)
{
    struct member *m = find(l, prefix, strlen(prefix), name, strlen(name));
    if (!m)
        return;
    size_t i = (size_t)(m - l->members);
    memmove(m, m + 1, (l->n - i - 1) * sizeof *m);
    l->n--;
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

void member_list_write_members(const struct member_list *l, struct jsonout *w)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct member *m = &l->members[i];
        write_key(w, m);
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

void member_list_write(const struct member_list *l, struct strbuf *out, unsigned flags)
{
    struct jsonout w;
    jsonout_init(&w, out, flags);
    jsonout_begin_object(&w);
    member_list_write_members(l, &w);
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}
