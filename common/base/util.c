#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "acp";

void util_set_progname(const char *name)
{
    const char *slash = strrchr(name, '/');
    progname = slash ? slash + 1 : name;
}

const char *util_progname(void)
{
    return progname;
}

_Noreturn void die_oom(void)
{
    fprintf(stderr, "%s: out of memory\n", progname);
    exit(2);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        die_oom();
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        die_oom();
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        die_oom();
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void *xgrow(void *items, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return items;
    size_t n = *cap ? *cap : 2;
    while (n < need) {
        if (n > (size_t)-1 / 2 / elem)
            die_oom();
        n *= 2;
    }
    *cap = n;
    return xrealloc(items, n * elem);
}

void sb_grow(struct strbuf *sb, size_t extra)
{
    if (extra >= (size_t)-1 / 2 - sb->len)
        die_oom();
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->buf = xrealloc(sb->buf, cap);
    sb->cap = cap;
}

void sb_adds(struct strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

/* sb_addf with its arguments in ap. */
static void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap) ACP_PRINTF(2, 0);

/* The conversion at fmt (after its %) that sb_vaddf writes itself: its length, or 0 for one
 * left to vsnprintf (a width, a precision, a flag, a real). */
static size_t plain_conversion(const char *fmt)
{
    switch (fmt[0]) {
    case 's':
    case 'd':
    case 'u':
    case 'c':
    case '%':
        return 1;
    case 'z':
        return fmt[1] == 'u' ? 2 : 0;
    case 'l':
        if (fmt[1] == 'u' || fmt[1] == 'd')
            return 2;
        return fmt[1] == 'l' && (fmt[2] == 'u' || fmt[2] == 'd') ? 3 : 0;
    default:
        return 0;
    }
}

/* Room for any number add_plain writes: a long long's 19 digits and a sign. */
enum { NUMBER_ROOM = 24 };

/* Writes v, after a minus when negative, at out (NUMBER_ROOM bytes); returns its length. */
static size_t put_number(char *out, unsigned long long v, bool negative)
{
    char digits[NUMBER_ROOM];
    size_t n = sizeof digits;
    do
        digits[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (negative)
        digits[--n] = '-';
    memcpy(out, digits + n, sizeof digits - n);
    return sizeof digits - n;
}

static size_t put_signed(char *out, long long v)
{
    /* the magnitude as unsigned: -LLONG_MIN does not fit a long long */
    return put_number(out, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, v < 0);
}

/* Writes the plain conversion at c (plain_conversion's n bytes) of the next argument at out
 * (NUMBER_ROOM bytes), or a string's to sb; returns the bytes written at out. */
static size_t put_conversion(struct strbuf *sb, char *out, const char *c, size_t n, va_list *ap)
{
    char last = c[n - 1]; /* the letter, after any l or z */
    switch (*c) {
    case 's': {
        const char *s = va_arg(*ap, const char *);
        sb_adds(sb, s ? s : "(null)");
        return 0;
    }
    case 'd':
        return put_signed(out, va_arg(*ap, int));
    case 'u':
        return put_number(out, va_arg(*ap, unsigned), false);
    case 'c':
        *out = (char)va_arg(*ap, int);
        return 1;
    case '%':
        *out = '%';
        return 1;
    case 'z':
        return put_number(out, va_arg(*ap, size_t), false);
    default:
        break;
    }
    if (n == 2)
        return last == 'u' ? put_number(out, va_arg(*ap, unsigned long), false)
                           : put_signed(out, va_arg(*ap, long));
    return last == 'u' ? put_number(out, va_arg(*ap, unsigned long long), false)
                       : put_signed(out, va_arg(*ap, long long));
}

/* What vsnprintf writes of a format of plain conversions only, without it: the SVG and HTML
 * writers format hundreds of thousands of numbers, so each piece of text and each number is
 * written in place, after one check for room. False, with nothing written, at the first
 * conversion it leaves to vsnprintf (ap is then spent: the caller holds a copy). */
static bool add_plain(struct strbuf *sb, const char *fmt, va_list ap)
{
    size_t mark = sb->len;
    va_list args;
    va_copy(args, ap);
    for (const char *p = fmt;;) {
        const char *text = p;
        while (*p && *p != '%')
            p++;
        size_t n = (size_t)(p - text);
        if (n + NUMBER_ROOM >= sb->cap - sb->len)
            sb_grow(sb, n + NUMBER_ROOM);
        memcpy(sb->buf + sb->len, text, n);
        sb->len += n;
        sb->buf[sb->len] = '\0';
        if (!*p)
            break;
        size_t conversion = plain_conversion(p + 1);
        if (!conversion) {
            sb->len = mark;
            sb->buf[mark] = '\0';
            va_end(args);
            return false;
        }
        size_t len = sb->len;
        size_t wrote = put_conversion(sb, sb->buf + len, p + 1, conversion, &args);
        if (wrote) {
            sb->len = len + wrote;
            sb->buf[sb->len] = '\0';
        }
        p += 1 + conversion;
    }
    va_end(args);
    return true;
}

static void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    if (add_plain(sb, fmt, ap))
        return;
    /* Most pieces are short: format into the stack first, and only measure twice when not. */
    char small[128];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_add(sb, small, (size_t)n);
        return;
    }
    sb_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

char *sb_detach(struct strbuf *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

bool parse_ulong(const char *s, unsigned long *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool parse_size(const char *s, unsigned long long *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    default:
        return false;
    }
    if (*end && end[1] && strcmp(end + 1, "iB") != 0 && strcmp(end + 1, "B") != 0)
        return false;
    if (shift && v > (~0ULL >> shift))
        return false;
    *out = v << shift;
    return true;
}

bool parse_duration(const char *s, double *seconds)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || v < 0)
        return false;
    double unit = 1;
    if (*end == 'm')
        unit = 60;
    else if (*end == 'h')
        unit = 3600;
    else if (*end != 's' && *end != '\0')
        return false;
    if (*end && end[1])
        return false;
    *seconds = v * unit;
    return true;
}

bool strv_has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

bool double_fits_llong(double v)
{
    const double two_to_63 = 9223372036854775808.0; /* LLONG_MAX + 1, exactly */
    return v >= -two_to_63 && v < two_to_63;        /* false for NaN */
}
