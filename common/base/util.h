/* Small helpers every tool needs: allocation that cannot fail silently, and a growable buffer. */
#ifndef ACP_UTIL_H
#define ACP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ACP_VERSION "0.3.0"
#define ACP_PACKAGE "acp-tools"

#if defined(__GNUC__)
#define ACP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ACP_PRINTF(f, a)
#endif

/* Set once by main before anything else runs; used to prefix fatal messages. */
void util_set_progname(const char *name);
const char *util_progname(void);

/* Allocation failures end the process with a message and status 2: a filter that cannot allocate
 * cannot keep its promise of never losing a line, so it must say so loudly. */
_Noreturn void die_oom(void);
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

struct strbuf {
    char *buf; /* always NUL-terminated once anything was added */
    size_t len;
    size_t cap;
};

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sb_grow(struct strbuf *sb, size_t extra);

/* Grows an array of elem-sized items so that it holds at least need of them: its capacity, in
 * *cap, doubles from 2 (small, as a report keeps thousands of small arrays). Returns the array,
 * which may have moved. */
void *xgrow(void *items, size_t *cap, size_t need, size_t elem);

/* Inline, as the writers add a few bytes at a time: a call to grow only when the room is short. */
static inline void sb_add(struct strbuf *sb, const void *data, size_t len)
{
    if (len >= sb->cap - sb->len)
        sb_grow(sb, len);
    if (len)
        memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s);
/* A literal, whose length the compiler knows. */
#define SB_ADD_LITERAL(sb, literal) sb_add((sb), literal, sizeof literal - 1)

static inline void sb_addc(struct strbuf *sb, char c)
{
    if (sb->cap - sb->len < 2)
        sb_grow(sb, 1);
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = '\0';
}

void sb_addf(struct strbuf *sb, const char *fmt, ...) ACP_PRINTF(2, 3);
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);
/* Hands the buffer to the caller (never NULL) and leaves sb empty. */
char *sb_detach(struct strbuf *sb);

/* Parses a whole decimal number with an optional K, M or G (binary) suffix. */
bool parse_size(const char *s, unsigned long long *out);
/* Parses a non-negative duration: seconds, or a number with an s, m or h suffix ("90", "1.5m"). */
bool parse_duration(const char *s, double *seconds);
/* Parses a whole non-negative decimal number. */
bool parse_ulong(const char *s, unsigned long *out);

/* Whether s is one of the n strings of v. */
bool strv_has(char *const *v, size_t n, const char *s);

/* Whether v converts to long long (its whole part fits, and it is a number): a conversion out
 * of range is undefined behaviour, so every double a cast makes an integer of is checked. */
bool double_fits_llong(double v);

/* Asks the cache for the line at p, which the caller will read or write soon: for memory whose
 * turn comes predictably (the oldest record, about to expire) and would be a miss by then. */
static inline void prefetch(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

/* The same for a line the caller will only read: asked for writing, a line another core wrote
 * is taken from that core's cache (and that cost what it saved). */
static inline void prefetch_to_read(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0);
#else
    (void)p;
#endif
}

#endif
