/* JSON text written by us rather than by json_dumps: compact, members in the order given, and
 * every number in its shortest form, so that a number comes out as it went in (0.1 stays 0.1,
 * 19.99 stays 19.99, 2.0 stays 2.0 and so stays a real).
 *
 * Two ways to use it. jsonout_value writes a whole jansson value. The piece-by-piece calls
 * (begin/end, key, string, integer, real, ...) write a document without building a tree: a tool
 * that knows the shape of its output can write it directly. Both may be mixed: a member's value
 * may be a jansson value inside an object written piece by piece. Commas are placed by the
 * writer, so a caller only says what comes next.
 *
 * Strings are taken to be UTF-8 (as jansson's are); a byte that is not part of valid UTF-8 is
 * written as U+FFFD, so the output is always valid JSON. Escapes are jansson's: \" \\ \b \f \n
 * \r \t, \u00XX for other control characters, and with JSONOUT_ASCII \uXXXX (surrogate pairs
 * above U+FFFF) for every non-ASCII character. */
#ifndef ACP_JSONOUT_H
#define ACP_JSONOUT_H

#include <jansson.h>

#include "base/util.h"

enum {
    JSONOUT_ASCII = 1,    /* non-ASCII characters as \u escapes */
    JSONOUT_TERMINAL = 2, /* also DEL and what acts on a terminal (utf8_acts_on_terminal), and
                             invalid UTF-8 as an escaped U+FFFD: safe to show raw */
    JSONOUT_VALID = 4,    /* the strings are known to be valid UTF-8 (jansson's always are):
                             non-ASCII is copied without decoding it again */
    JSONOUT_SCRIPT = 8,   /* also < > & U+2028 U+2029: JSON inside an HTML <script> block, which
                             nothing written can end or open a comment in */
};

struct jsonout {
    struct strbuf *sb;
    unsigned flags;
    unsigned plain; /* the classes of bytes that go out as they are under flags (jsonout.c) */
    size_t start;   /* where this writer's document starts in sb */
};

/* Starts a document at the end of sb (which may already hold earlier lines). */
void jsonout_init(struct jsonout *w, struct strbuf *sb, unsigned flags);

void jsonout_begin_object(struct jsonout *w);
void jsonout_end_object(struct jsonout *w);
void jsonout_begin_array(struct jsonout *w);
void jsonout_end_array(struct jsonout *w);
/* The name of the next member of the object being written; its value follows. */
void jsonout_key(struct jsonout *w, const char *key);
/* A key that is a literal of ours in plain printable ASCII (no '"', '\\', '<', '>' or '&'),
 * written as it is: for the writers of many objects of fixed keys (a summary a conversation). */
void jsonout_key_literal(struct jsonout *w, const char *key, size_t len);
#define JSONOUT_KEY(w, literal) jsonout_key_literal((w), "" literal, sizeof(literal) - 1)

void jsonout_string(struct jsonout *w, const char *s, size_t len);
/* A NUL-terminated string, or null for NULL. */
void jsonout_string_or_null(struct jsonout *w, const char *s);
/* A string written in pieces, so that a long one need not be in memory whole, or escaped whole:
 * open, parts, close. A part should end where a character does (a character cut in two is
 * written as two invalid sequences). Between parts the buffer may be given away; after the close,
 * the next value is placed by a writer started again (jsonout_init). */
void jsonout_string_open(struct jsonout *w);
void jsonout_string_part(struct jsonout *w, const char *s, size_t len);
void jsonout_string_close(struct jsonout *w);
/* The bytes jsonout_string writes for s (its quotes too) under flags. */
size_t jsonout_string_size(const char *s, size_t len, unsigned flags);
void jsonout_integer(struct jsonout *w, json_int_t v);
/* A real: the shortest digits that read back as the same double; a whole number keeps ".0". */
void jsonout_real(struct jsonout *w, double v);
/* A number the tools computed (a duration, a percentile): an integer when whole and exact as a
 * double (80, not 80.0), otherwise the shortest digits that read back as the same double; null
 * when it is not finite (unknown). */
void jsonout_number(struct jsonout *w, double v);
void jsonout_bool(struct jsonout *w, bool v);
void jsonout_null(struct jsonout *w);
/* Any jansson value, objects in their (insertion) order. */
void jsonout_value(struct jsonout *w, const json_t *v);

/* A value's JSON text as it was written, kept so that it goes out as it came (its numbers as
 * spelt, its escapes, its spacing) rather than in this writer's spelling: a message's content. */
struct json_text {
    const char *text;
    size_t len;
    const json_t *value; /* what the text reads as */
};

/* Whether v is the value kept (NULL: none) reads as, so that its text may stand for it. */
bool json_text_says(const struct json_text *kept, const json_t *v);

/* JSON text, which must be valid JSON, as it is: but that it goes on one line, so a run of white
 * space that holds a line break is left out, and so is white space before and after the value;
 * and that in its strings what the flags escape is escaped (jsonout_string's rules). */
void jsonout_text(struct jsonout *w, const char *text, size_t len);

/* Appends v and a newline to sb: one line of JSON Lines, safe on a terminal (JSONOUT_TERMINAL),
 * since the tools write their JSON with it. */
void jsonout_line(struct strbuf *sb, const json_t *v);

#endif
