#include "diag/diag.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/keyform.h"

/* How much of one input string a diagnostic quotes before it says "...". */
enum { QUOTE_MAX = 120 };
/* A quote ends within the first character past QUOTE_MAX bytes (at most 3 more bytes), before the
 * 0xff that a long name's remembered form holds after at least KEY_SHOWN_BYTES - 3 bytes of the
 * name (keyform.h): so a diagnostic quotes that form as it would quote the whole name. */
_Static_assert(QUOTE_MAX + 3 < KEY_SHOWN_BYTES - 3, "a quote stops before a name form's digest");

void diag_sink_init(struct diag_sink *sink, FILE *stream)
{
    memset(sink, 0, sizeof *sink);
    sink->stream = stream;
}

enum { STDERR_BUFFER = 64 * 1024 };

void diag_buffer_stderr(void)
{
    /* Ours, not one stdio allocates: stdio may already hold its one-byte buffer for stderr.
     * Static, as it must outlive main for the flush that exit() does. */
    static char buffer[STDERR_BUFFER];
    setvbuf(stderr, buffer, isatty(STDERR_FILENO) ? _IOLBF : _IOFBF, sizeof buffer);
}

/* What an unbuffered stderr whose reader went away would have met at its next diagnostic. */
static _Noreturn void die_of_broken_pipe(void)
{
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(2);
}

void diag_flush(struct diag_sink *sink)
{
    if (fflush(sink->stream) != 0 && errno == EPIPE)
        die_of_broken_pipe();
}

void diag_sink_free(struct diag_sink *sink)
{
    sb_free(&sink->line);
    sb_free(&sink->text);
}

void diag_observe(struct diag_sink *sink, struct diag_observer *observer)
{
    observer->next = sink->observers;
    sink->observers = observer;
}

void diag_unobserve(struct diag_sink *sink, struct diag_observer *observer)
{
    if (sink->observers == observer)
        sink->observers = observer->next;
    observer->next = NULL;
}

int diag_quote_len(size_t len)
{
    /* escape_text shows QUOTE_MAX bytes and then "...": a byte more says there is more. */
    return len > QUOTE_MAX + 1 ? QUOTE_MAX + 1 : (int)len;
}

/* Our own small printf, so that every string argument is escaped on its way out. */
static void format_message(struct strbuf *out, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            sb_addc(out, *p);
            continue;
        }
        p++;
        int longs = 0;
        bool size = false;
        while (*p == 'l') {
            longs++;
            p++;
        }
        if (*p == 'z') {
            size = true;
            p++;
        }
        if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
            int len = va_arg(ap, int);
            const char *s = va_arg(ap, const char *);
            escape_text(out, s, len > 0 ? (size_t)len : 0, QUOTE_MAX);
            p += 2;
            continue;
        }
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            escape_text(out, s, strlen(s), QUOTE_MAX);
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            escape_text(out, &c, 1, 0);
            break;
        }
        case 'd':
            if (longs == 2)
                sb_addf(out, "%lld", va_arg(ap, long long));
            else if (longs == 1)
                sb_addf(out, "%ld", va_arg(ap, long));
            else
                sb_addf(out, "%d", va_arg(ap, int));
            break;
        case 'u':
            if (size)
                sb_addf(out, "%zu", va_arg(ap, size_t));
            else if (longs == 2)
                sb_addf(out, "%llu", va_arg(ap, unsigned long long));
            else if (longs == 1)
                sb_addf(out, "%lu", va_arg(ap, unsigned long));
            else
                sb_addf(out, "%u", va_arg(ap, unsigned));
            break;
        case '%':
            sb_addc(out, '%');
            break;
        default:
            /* Not reachable with the literals we pass; keep the text visible rather than guess. */
            sb_addc(out, '%');
            if (*p)
                sb_addc(out, *p);
            else
                p--;
            break;
        }
    }
}

static void put_text(struct diag_sink *sink, const struct diag_where *w, bool error,
                     const char *code)
{
    struct strbuf *l = &sink->line;
    const char *bold = sink->color ? "\033[1m" : "";
    const char *sev_on = sink->color ? (error ? "\033[1;31m" : "\033[1;35m") : "";
    const char *off = sink->color ? "\033[0m" : "";
    sb_addf(l, "%s: %s", util_progname(), bold);
    escape_text(l, w->file, strlen(w->file), 0);
    sb_addf(l, ":%lu:", w->line);
    if (w->column)
        sb_addf(l, "%lu:", w->column);
    sb_addf(l, "%s %s%s:%s %s [%s]\n", off, sev_on,
            diag_severity_word(error ? SEV_ERROR : SEV_WARNING), off, sink->text.buf, code);
}

static void put_json(struct diag_sink *sink, const struct diag_where *w, bool error,
                     const char *code)
{
    struct strbuf *l = &sink->line;
    /* File names are any bytes: JSON carries the name itself, invalid UTF-8 as U+FFFD. */
    sb_adds(l, "{\"type\":\"diagnostic\",\"file\":");
    escape_json_string(l, w->file, strlen(w->file));
    sb_addf(l, ",\"line\":%lu", w->line);
    if (w->column)
        sb_addf(l, ",\"column\":%lu", w->column);
    sb_addf(l, ",\"severity\":\"%s\",\"code\":\"%s\",\"message\":",
            diag_severity_word(error ? SEV_ERROR : SEV_WARNING), code);
    escape_json_string(l, sink->text.buf, sink->text.len);
    if (w->id) {
        sb_adds(l, ",\"id\":");
        escape_json_string(l, w->id, strlen(w->id));
    }
    if (w->related_line) {
        sb_addf(l, ",\"related_line\":%lu", w->related_line);
        if (w->related_file && strcmp(w->related_file, w->file) != 0) {
            sb_adds(l, ",\"related_file\":");
            escape_json_string(l, w->related_file, strlen(w->related_file));
        }
    }
    sb_adds(l, "}\n");
}

/* Writes the finding whose message (without "(see line N)") is in sink->text, in the sink's
 * format. */
static void write_finding(struct diag_sink *sink, const struct diag_where *where, bool error,
                          const char *code)
{
    if (where->related_line && sink->format == DIAG_TEXT) {
        sb_adds(&sink->text, " (see line ");
        if (where->related_file && strcmp(where->related_file, where->file) != 0) {
            escape_text(&sink->text, where->related_file, strlen(where->related_file), 0);
            sb_addc(&sink->text, ':');
        }
        sb_addf(&sink->text, "%lu)", where->related_line);
    }
    sb_reset(&sink->line);
    if (sink->format == DIAG_JSON)
        put_json(sink, where, error, code);
    else
        put_text(sink, where, error, code);
    if (sink->before_write)
        sink->before_write(sink->before_write_ctx);
    if (fwrite(sink->line.buf, 1, sink->line.len, sink->stream) != sink->line.len && errno == EPIPE)
        die_of_broken_pipe();
}

/* Reports the finding whose message (without "(see line N)") is in sink->text. */
static void publish(struct diag_sink *sink, const struct diag_where *where, bool error,
                    const char *code)
{
    const struct diag_finding finding = {
        .where = where,
        .severity = error ? SEV_ERROR : SEV_WARNING,
        .code = code,
        .message = sink->text.buf ? sink->text.buf : "",
        .message_len = sink->text.len,
    };
    for (struct diag_observer *o = sink->observers; o; o = o->next)
        o->notify(o->ctx, &finding);
    if (sink->quiet || (sink->shows && !sink->shows(sink->shows_ctx, &finding)))
        return;
    write_finding(sink, where, error, code);
}

void diag_print(struct diag_sink *sink, const struct diag_where *where, enum severity severity,
                const char *code, const char *text, size_t len)
{
    if (sink->quiet)
        return;
    sb_reset(&sink->text);
    sb_add(&sink->text, text, len);
    write_finding(sink, where, severity == SEV_ERROR, code);
}

/* One finding of a log: its strings are offsets into the log's strings, NO_STRING for none. */
struct diag_logged {
    size_t file, id, related_file, text, text_len;
    unsigned long line, column, related_line;
    const char *code;
    bool error;
    bool formatted; /* text holds the message */
};

#define NO_STRING ((size_t)-1)

static size_t log_string(struct diag_log *log, const char *s, size_t len)
{
    if (!s)
        return NO_STRING;
    size_t at = log->strings.len;
    sb_add(&log->strings, s, len);
    sb_addc(&log->strings, '\0');
    return at;
}

static size_t log_name(struct diag_log *log, const char *s)
{
    return log_string(log, s, s ? strlen(s) : 0);
}

static void log_finding(struct diag_sink *sink, const struct diag_where *w, bool error,
                        const char *code, bool formatted)
{
    struct diag_log *log = sink->log;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 4;
        log->v = xrealloc(log->v, log->cap * sizeof *log->v);
    }
    log->v[log->n++] = (struct diag_logged){
        .file = log_name(log, w->file),
        .id = log_name(log, w->id),
        .related_file = log_name(log, w->related_file),
        .text = formatted ? log_string(log, sink->text.buf ? sink->text.buf : "", sink->text.len)
                          : NO_STRING,
        .text_len = formatted ? sink->text.len : 0,
        .line = w->line,
        .column = w->column,
        .related_line = w->related_line,
        .code = code,
        .error = error,
        .formatted = formatted,
    };
}

void diag_sink_init_log(struct diag_sink *sink, struct diag_log *log, const struct diag_sink *real)
{
    diag_sink_init(sink, NULL);
    sink->log = log;
    sink->strict = real->strict;
    sink->quiet = real->quiet && !real->observers; /* no one would read the message */
}

void diag_log_reset(struct diag_log *log)
{
    log->n = 0;
    sb_reset(&log->strings);
}

void diag_log_free(struct diag_log *log)
{
    free(log->v);
    sb_free(&log->strings);
    memset(log, 0, sizeof *log);
}

static const char *logged_string(const struct diag_log *log, size_t at)
{
    return at == NO_STRING ? NULL : log->strings.buf + at;
}

void diag_replay(struct diag_sink *sink, const struct diag_log *log)
{
    for (size_t i = 0; i < log->n; i++) {
        const struct diag_logged *e = &log->v[i];
        if (e->error)
            sink->errors++;
        else
            sink->warnings++;
        if (sink->quiet && !sink->observers)
            continue;
        const struct diag_where where = {
            .file = logged_string(log, e->file),
            .line = e->line,
            .column = e->column,
            .id = logged_string(log, e->id),
            .related_file = logged_string(log, e->related_file),
            .related_line = e->related_line,
        };
        sb_reset(&sink->text);
        if (e->formatted)
            sb_add(&sink->text, logged_string(log, e->text), e->text_len);
        publish(sink, &where, e->error, e->code);
    }
}

void diag_emit(struct diag_sink *sink, const struct diag_where *where, const char *code,
               const char *fmt, ...)
{
    bool error = diag_code_is_error(code) || sink->strict;
    if (error)
        sink->errors++;
    else
        sink->warnings++;
    if (sink->quiet && !sink->observers) {
        if (sink->log)
            log_finding(sink, where, error, code, false);
        return;
    }
    sb_reset(&sink->text);
    va_list ap;
    va_start(ap, fmt);
    format_message(&sink->text, fmt, ap);
    va_end(ap);
    if (sink->log)
        log_finding(sink, where, error, code, true);
    else
        publish(sink, where, error, code);
}
