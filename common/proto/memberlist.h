/* An object made member by member as json_object_set makes one, without a tree: a member set
 * again keeps its place and takes the new value. Values are views of the input (struct jv), or
 * made here (strings, numbers, JSON text written with jsonout); the object is written out once.
 * So that a mapping from one JSON object to another reads views and writes a line. */
#ifndef ACP_MEMBERLIST_H
#define ACP_MEMBERLIST_H

#include "base/jsonout.h"
#include "proto/jscan.h"

enum member_kind {
    MEMBER_VIEW,    /* view */
    MEMBER_STRING,  /* a string, its bytes at text[at..at+len) */
    MEMBER_INTEGER, /* integer */
    MEMBER_REAL,    /* real */
    MEMBER_JSON,    /* JSON text at text[at..at+len): copied, or written there by the caller */
    MEMBER_TEXT,    /* JSON text as it came, at source (not copied), written by jsonout_text; and
                     * view, when set, what it reads as */
};

/* The key is prefix then name, kept as two pointers (both must outlive the list's use): the
 * names of a mapping are the input's keys or literals, and a prefix is a literal. */
struct member {
    const char *prefix, *name;
    size_t prefix_len, name_len, key_len;
    char first;    /* the key's first byte */
    uint32_t hash; /* of the key, once the list has an index */
    enum member_kind kind;
    const struct jv *view;
    const char *source;
    size_t at, len;
    json_int_t integer;
    double real;
};

struct member_list {
    struct member *members;
    size_t n, cap;
    struct strbuf text; /* the made strings and JSON texts */
    size_t json;        /* the member whose JSON text is being written */
    uint32_t *index;    /* past a few members: slots of member indices + 1 (0: empty), or NULL */
    size_t nindex;      /* slots, a power of two */
    /* Before the index: a bit for each key's first byte and length there is (or was), so that
     * a key the list does not have, as most set are, is seldom compared with any. */
    uint64_t shapes;
};

void member_list_init(struct member_list *l);
/* Empties the list, keeping its memory. */
void member_list_reset(struct member_list *l);
void member_list_free(struct member_list *l);

/* The member prefix+name (prefix "" for none), or NULL. */
const struct member *member_list_get(const struct member_list *l, const char *prefix,
                                     const char *name);
/* How many members a lookup of prefix+name compares with it: for the tests of its cost. */
size_t member_list_compared(const struct member_list *l, const char *prefix, const char *name);
/* found[i]: the member names[i] (no prefix), or NULL; for at most 8 names, in one pass. */
void member_list_find_each(const struct member_list *l, const char *const *names, size_t n,
                           const struct member **found);
/* Sets a member to a view; nothing when v is NULL (jansson sets no NULL value either). */
void member_list_set_view(struct member_list *l, const char *prefix, const char *name,
                          const struct jv *v);
/* Sets a member to a string of len bytes, copied, valid UTF-8 without NUL. */
void member_list_set_string(struct member_list *l, const char *prefix, const char *name,
                            const char *s, size_t len);
void member_list_set_integer(struct member_list *l, const char *name, json_int_t v);
void member_list_set_real(struct member_list *l, const char *name, double v);
/* Sets a member to valid JSON text as it came (a content as spelt), which must outlive the
 * list's use; written on one line (jsonout_text). value: a view the text reads as (jv_equal),
 * which member_list_view copies instead of scanning the text again, or NULL. */
void member_list_set_text(struct member_list *l, const char *prefix, const char *name,
                          const char *text, size_t len, const struct jv *value);
/* Sets a member to valid JSON text, copied (not from the list's own text). */
void member_list_set_json(struct member_list *l, const char *prefix, const char *name,
                          const char *json, size_t len);
/* Adds a member the list does not have yet, as set_string and set_json set one; false, with
 * nothing changed, when it has one (duplicate keys, where a reader rejects them). */
bool member_list_add_string(struct member_list *l, const char *name, const char *s, size_t len);
bool member_list_add_json(struct member_list *l, const char *name, const char *json, size_t len);
/* Removes a member, if there is one; the others keep their order (json_object_del). */
void member_list_remove(struct member_list *l, const char *prefix, const char *name);
/* Sets a member to JSON text the caller writes with w between this call and member_list_json_end
 * (w->flags, which the caller sets, as the line's; nothing else set in between). */
void member_list_json_begin(struct member_list *l, const char *name, struct jsonout *w);
void member_list_json_end(struct member_list *l);

/* A member's string: its view's, or the one made; NULL when it is no string. Valid until the
 * list changes. */
const char *member_string(const struct member_list *l, const struct member *m);
/* Whether a member is a number, and its value. */
bool member_number(const struct member *m, double *v);

/* Appends the object to out as one line (its newline too), written with jsonout's flags. */
void member_list_write(const struct member_list *l, struct strbuf *out, unsigned flags);
/* The same, and returns where in out the value of the member name (no prefix) starts, or
 * SIZE_MAX when there is none: for a placeholder that the caller fills in later. */
size_t member_list_write_finding(const struct member_list *l, struct strbuf *out, unsigned flags,
                                 const char *name);
/* The object as a view in js, as jscan_scan_made would read the line member_list_write writes
 * (no view of the list's may be in js); NULL when a member's JSON text is none. Valid until js
 * is used again. */
const struct jv *member_list_view(const struct member_list *l, struct jscan *js);
/* Writes the members with w, into an object w has begun. */
void member_list_write_members(const struct member_list *l, struct jsonout *w);

#endif
