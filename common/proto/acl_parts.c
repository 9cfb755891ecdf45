#include "proto/acl_parts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/timeutil.h"

const char acl_expressions_member[] = "x-acp-expressions";
const char acl_quoted_member[] = "x-acp-quoted";
const char acl_spelling_member[] = "x-acp-reply-by";
const char acl_partial_member[] = "x-acp-partial";
const char acl_content_text_member[] = "x-acp-content-text";

void acl_names_init(struct acl_names *s)
{
    s->names = (struct strbuf)STRBUF_INIT;
    s->used = 0;
    s->count = 0;
    s->many = NULL;
    s->known = 0;
}

void acl_names_free(struct acl_names *s)
{
    sb_free(&s->names);
    if (s->many)
        strmap_free(s->many, NULL);
}

/* Where the names are: small until they outgrow it, then names. */
static const char *names_held(const struct acl_names *s)
{
    return s->names.buf ? s->names.buf : s->small;
}

/* Copies name and its NUL after the names held. */
static void hold_name(struct acl_names *s, const char *name, size_t len)
{
    if (!s->names.buf && len + 1 <= sizeof s->small - s->used) {
        memcpy(s->small + s->used, name, len + 1);
    } else {
        if (!s->names.buf)
            sb_add(&s->names, s->small, s->used);
        sb_add(&s->names, name, len + 1);
    }
    s->used += len + 1;
}

bool acl_names_add(struct acl_names *s, const char *name, size_t len)
{
    if (!s->many && s->count < ACL_NAMES_SEARCHED) {
        const char *held = names_held(s);
        for (size_t i = 0; i < s->count; i++)
            if (s->searched[i].len == len && s->searched[i].first == name[0] &&
                memcmp(held + s->searched[i].at, name, len) == 0)
                return false;
        s->searched[s->count].at = s->used;
        s->searched[s->count].len = len;
        s->searched[s->count++].first = name[0];
        hold_name(s, name, len);
        return true;
    }
    if (!s->many) {
        s->many = strmap_new();
        for (size_t i = 0; i < s->count; i++)
            strmap_put(s->many, names_held(s) + s->searched[i].at, s);
    }
    return strmap_put(s->many, name, s) == NULL;
}

char acl_user_prefix_letter(const char *rest)
{
    return strncmp(rest, "iacp-", 5) == 0 || strncmp(rest, "fipa-", 5) == 0 ? 'x' : 'X';
}

bool acl_plain_word(const char *s, size_t len);

bool acl_written_as_json(const char *name, const char *value)
{
    return strncasecmp(name, "json-", 5) == 0 ||
           (strcasecmp(name, "partial") == 0 && value && strcmp(value, "true") == 0);
}

/* The bytes a word may hold: printable ASCII but ( ) " and \\. */
static const bool word_byte[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1,
    [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, ['0'] = 1, ['1'] = 1,  ['2'] = 1, ['3'] = 1,
    ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,  [':'] = 1, [';'] = 1,
    ['<'] = 1, ['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 1,  ['B'] = 1, ['C'] = 1,
    ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,  ['J'] = 1, ['K'] = 1,
    ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,  ['R'] = 1, ['S'] = 1,
    ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1,  ['Z'] = 1, ['['] = 1,
    [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1, ['b'] = 1,  ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,  ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,  ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,  ['{'] = 1, ['|'] = 1,
    ['}'] = 1, ['~'] = 1,
};

bool acl_plain_word(const char *s, size_t len)
{
    if (len == 0 || strchr("#0123456789-@:\"", s[0]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!word_byte[(unsigned char)s[i]])
            return false;
    return true;
}

/* --- date-times --- */

enum { MILLIS_PER_DAY = 86400000 };

bool acl_date_time_parse(const char *s, size_t n, struct acl_date_time *dt)
{
    memset(dt, 0, sizeof *dt);
    size_t i = 0;
    bool negative = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        dt->relative = true;
        negative = s[0] == '-';
        i = 1;
    }
    int y, mo, d, h, mi, sec, ms = 0;
    if (n - i < 15 || !time_digits(s + i, 4, &y) || !time_digits(s + i + 4, 2, &mo) ||
        !time_digits(s + i + 6, 2, &d) || (s[i + 8] != 'T' && s[i + 8] != 't') ||
        !time_digits(s + i + 9, 2, &h) || !time_digits(s + i + 11, 2, &mi) ||
        !time_digits(s + i + 13, 2, &sec))
        return false;
    size_t rest = i + 15;
    if (n - rest >= 3 && time_digits(s + rest, 3, &ms))
        rest += 3;
    if (rest < n && isalpha((unsigned char)s[rest]))
        dt->designator = s[rest++];
    if (rest != n)
        return false;
    if (dt->relative) {
        /* JADE's reckoning: a year is 365 days, a month 30. */
        long long days = y * 365LL + mo * 30LL + d;
        long long millis = ((days * 24 + h) * 60 + mi) * 60000LL + sec * 1000LL + ms;
        dt->millis = negative ? -millis : millis;
        return true;
    }
    /* the digits as RFC 3339 spells them, for its checks of the date (no snprintf: a message's
     * reply-by is read at the pace of its other parameters) */
    const char *t = s + i;
    char iso[] = "YYYY-MM-DDTHH:MM:SSZ";
    memcpy(iso, t, 4);
    memcpy(iso + 5, t + 4, 2);
    memcpy(iso + 8, t + 6, 2);
    memcpy(iso + 11, t + 9, 2);
    memcpy(iso + 14, t + 11, 2);
    memcpy(iso + 17, t + 13, 2);
    double epoch;
    bool zone;
    if (!time_parse_rfc3339(iso, &epoch, &zone))
        return false;
    dt->millis = (long long)epoch * 1000 + ms;
    return true;
}

static void split_millis(long long millis, long long *secs, int *ms)
{
    *secs = millis / 1000;
    *ms = (int)(millis % 1000);
    if (*ms < 0) {
        *ms += 1000;
        (*secs)--;
    }
}

void acl_rfc3339_millis(long long millis, char *buf, size_t size)
{
    long long secs;
    int ms;
    split_millis(millis, &secs, &ms);
    time_format_rfc3339(secs, buf, size);
    size_t len = strlen(buf);
    if (ms && len > 0)
        snprintf(buf + len - 1, size - (len - 1), ".%03dZ", ms);
}

void acl_date_time_format(long long millis, char *buf, size_t size)
{
    long long secs;
    int ms;
    split_millis(millis, &secs, &ms);
    char iso[48];
    time_format_rfc3339(secs, iso, sizeof iso);
    size_t n = 0;
    for (const char *c = iso; *c && n + 1 < size; c++)
        if (isdigit((unsigned char)*c) || *c == 'T')
            buf[n++] = *c;
    snprintf(buf + n, size - n, "%03dZ", ms);
}

bool acl_date_time_in_range(long long millis)
{
    return millis >= time_days_from_civil(0, 1, 1) * MILLIS_PER_DAY &&
           millis < time_days_from_civil(10000, 1, 1) * MILLIS_PER_DAY;
}

/* --- messages --- */

#define PARAMETER(keyword, member, form)                                                           \
    {                                                                                              \
        keyword, member, form, sizeof keyword - 1, sizeof member - 1                               \
    }
static const struct acl_parameter parameters[] = {
    PARAMETER("sender", "sender", FORM_AGENT),
    PARAMETER("receiver", "receiver", FORM_AGENT_SET),
    PARAMETER("reply-to", "reply_to", FORM_AGENT_SET),
    PARAMETER("content", "content", FORM_CONTENT),
    PARAMETER("language", "language", FORM_TEXT),
    PARAMETER("encoding", "encoding", FORM_TEXT),
    PARAMETER("ontology", "ontology", FORM_TEXT),
    PARAMETER("protocol", "protocol", FORM_TEXT),
    PARAMETER("conversation-id", "conversation_id", FORM_TEXT),
    PARAMETER("reply-with", "reply_with", FORM_TEXT),
    PARAMETER("in-reply-to", "in_reply_to", FORM_TEXT),
    PARAMETER("reply-by", "reply_by", FORM_DATE_TIME),
};

/* The parameter whose keyword (in lower case), or whose member, is name's len bytes. Its length
 * and first byte tell most names apart before they are compared. */
static const struct acl_parameter *parameter_spelt(const char *name, size_t len, bool member)
{
    for (size_t i = 0; i < sizeof parameters / sizeof *parameters; i++) {
        const struct acl_parameter *p = &parameters[i];
        const char *spelling = member ? p->member : p->keyword;
        if (len == (member ? p->member_len : p->keyword_len) && name[0] == spelling[0] &&
            memcmp(name, spelling, len) == 0)
            return p;
    }
    return NULL;
}

const struct acl_parameter *acl_parameter_by_lowered(const char *keyword, size_t len)
{
    return parameter_spelt(keyword, len, false);
}

const struct acl_parameter *acl_parameter_by_member(const char *member, size_t len)
{
    return parameter_spelt(member, len, true);
}

unsigned acl_parameter_index(const struct acl_parameter *param)
{
    return (unsigned)(param - parameters);
}
