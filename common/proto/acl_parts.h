/* What the string form's reader (acl.c) and writer (acl_write.c) share: the members they keep
 * for themselves, the sets of parameter names they compare without regard to case, a message's
 * parameters, SC00070's date-times, and the rules for how a member's name is written. Private to
 * the two. */
#ifndef ACP_ACL_PARTS_H
#define ACP_ACL_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "base/swar.h"
#include "base/util.h"

/* Members the reader and writer keep for themselves (acl.h says what each means). */
extern const char acl_expressions_member[];
extern const char acl_quoted_member[];
extern const char acl_spelling_member[];
extern const char acl_partial_member[];
extern const char acl_content_text_member[];

/* The parameter names one object (the message, or an agent) has read or written, in lower case:
 * names are compared without regard to case. An object has a few, searched in turn; one with
 * many keeps them in a map too, so that a hostile one costs no square. */
enum { ACL_NAMES_SEARCHED = 16 };

struct acl_names {
    struct strbuf names; /* each with its NUL, once they outgrow small */
    char small[256];     /* the names of most objects: no allocation */
    size_t used;         /* bytes of the names held */
    size_t count;
    /* of each name searched: where it starts in names, and its length and first byte, which
     * tell most names apart before their bytes are compared */
    struct {
        size_t at, len;
        char first;
    } searched[ACL_NAMES_SEARCHED];
    struct strmap *many; /* every name, once there are ACL_NAMES_SEARCHED */
    uint32_t known;      /* the names of a table the reader knows, by their bits */
};

/* An empty set; its buffers are filled as they are used, not cleared (a set is made for every
 * agent of every message). */
void acl_names_init(struct acl_names *s);
void acl_names_free(struct acl_names *s);
/* Adds name (len bytes, then a NUL), copied; false when the set holds it already. */
bool acl_names_add(struct acl_names *s, const char *name, size_t len);

/* The same for a name of a table the caller knows (a message's parameters, an agent's slots),
 * by its bit (below 32), which no name added by its bytes may also be. */
static inline bool acl_names_add_known(struct acl_names *s, unsigned bit)
{
    uint32_t mask = UINT32_C(1) << bit;
    if (s->known & mask)
        return false;
    s->known |= mask;
    return true;
}

/* What a parameter's value is, which says how it is read and written. */
enum acl_parameter_form { FORM_TEXT, FORM_AGENT, FORM_AGENT_SET, FORM_CONTENT, FORM_DATE_TIME };

struct acl_parameter {
    const char *keyword; /* as SC00070 spells it */
    const char *member;  /* as Caxton's JSON spells it */
    enum acl_parameter_form form;
    unsigned char keyword_len, member_len; /* which tell most names apart at once */
};

/* The parameter of a keyword in lower case (len bytes), or of a member; NULL when none. */
const struct acl_parameter *acl_parameter_by_lowered(const char *keyword, size_t len);
const struct acl_parameter *acl_parameter_by_member(const char *member, size_t len);
/* Its place among the parameters, below 32. */
unsigned acl_parameter_index(const struct acl_parameter *param);

/* SC00070's DateTime: [sign] YYYYMMDD T hhmmss mmm [type designator], the milliseconds
 * optional (as JADE reads them). */
struct acl_date_time {
    bool relative;
    long long millis; /* absolute: since 1970-01-01 UTC; relative: signed, the duration */
    char designator;  /* the type designator letter, or 0 */
};

bool acl_date_time_parse(const char *s, size_t n, struct acl_date_time *dt);
/* RFC 3339 in UTC, with milliseconds when there are any: 2024-01-15T10:35:00.250Z */
void acl_rfc3339_millis(long long millis, char *buf, size_t size);
/* The writer's spelling, JADE's: 20240115T103500250Z */
void acl_date_time_format(long long millis, char *buf, size_t size);
/* Whether millis falls in the years 0000 to 9999, which the two spellings can say. */
bool acl_date_time_in_range(long long millis);

/* The letter of the prefix of the member that a user parameter :X-rest (or :x-rest: JADE reads
 * either as the same parameter) stands for: x for the mappings' own families (x-iacp-kind,
 * x-fipa-sender), X, JADE's, for any other name (X-priority). */
char acl_user_prefix_letter(const char *rest);

/* Printable ASCII that JADE's lexer takes as one word and writes back bare. */
bool acl_plain_word(const char *s, size_t len);

/* Whether the writer writes a member of this name and string value as JSON text
 * (:X-acp-json-NAME), where a string is a string however it is spelt: a name the reader would
 * take for its prefix, or a "partial" that :X-acp-partial true would turn into the marker. */
bool acl_written_as_json(const char *name, const char *value);

/* Writes in's n bytes to out with 'A'..'Z' lowered, as tolower does in the C locale the tools
 * run in (they set none), then a NUL; returns the bytes ORed together (0x80 among them: a byte
 * above 0x7f), and sets *nul when one was NUL. Inline, eight bytes at a time: the string form's
 * reader and writer lower every parameter name. */
static inline unsigned acl_lower_ascii(char *out, const char *in, size_t n, bool *nul)
{
    uint64_t bits = 0, zeros = 0;
    size_t i = 0;
    for (; n - i >= SWAR_BYTES; i += SWAR_BYTES) {
        uint64_t w = swar_load(in + i);
        bits |= w;
        zeros |= swar_equal(w, 0);
        w |= swar_upper_ascii(w) >> 2; /* 'A'..'Z' take 0x20 */
        memcpy(out + i, &w, sizeof w);
    }
    for (; i < n; i++) {
        unsigned c = (unsigned char)in[i];
        bits |= c;
        zeros |= c == 0;
        out[i] = (char)(c + ((c - 'A' < 26u) << 5));
    }
    out[n] = '\0';
    *nul = zeros != 0;
    bits |= bits >> 32;
    bits |= bits >> 16;
    bits |= bits >> 8;
    return (unsigned)(bits & 0xff);
}

#endif
