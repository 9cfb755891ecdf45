/* The one diagnostics path: every finding of every tool goes through diag_emit, which writes it
 * to stderr as a GNU-style line or as a JSON object, escapes input text and keeps the counts. */
#ifndef ACP_DIAG_H
#define ACP_DIAG_H

#include <stdio.h>

#include "base/util.h"

enum severity { SEV_WARNING, SEV_ERROR };

/* The severity's word in every output: "error" or "warning". */
static inline const char *diag_severity_word(enum severity severity)
{
    return severity == SEV_ERROR ? "error" : "warning";
}

/* The display name of standard input, as findings and summaries name its file. */
#define DIAG_STANDARD_INPUT "<stdin>"
enum diag_format { DIAG_TEXT, DIAG_JSON };

struct diag_where {
    const char *file;           /* display name; DIAG_STANDARD_INPUT for standard input */
    unsigned long line;         /* 1-based; 0 for a problem with the whole file */
    unsigned long column;       /* 1-based byte column; 0 when unknown */
    const char *id;             /* the message's IACP id or FIPA reply_with, or NULL */
    const char *related_file;   /* file of related_line when it differs from file, or NULL */
    unsigned long related_line; /* an earlier message the finding involves; 0 for none */
};

/* One finding as the sink reports it, for those who observe the sink (below). */
struct diag_finding {
    const struct diag_where *where;
    enum severity severity; /* as counted: a warning is SEV_ERROR under --strict */
    const char *code;       /* a literal of ours: valid for the whole run */
    const char *message;    /* the message as the text form shows it (input text escaped), without
                             * the "(see line N)" that the text form adds */
    size_t message_len;
};

/* Told of every finding, printed or not (a quiet sink too), before it is printed: so that a tool
 * can collect the codes of a check, or the conversation engine the findings of a conversation. */
struct diag_observer {
    void (*notify)(void *ctx, const struct diag_finding *finding);
    void *ctx;
    struct diag_observer *next; /* the one observed before it; set by diag_observe */
};

struct diag_log;

struct diag_sink {
    FILE *stream;
    enum diag_format format;
    bool color;
    bool quiet;  /* count, but print nothing */
    bool strict; /* warnings count as errors */
    unsigned long errors;
    unsigned long warnings;
    struct strbuf line;              /* scratch space for one diagnostic */
    struct strbuf text;              /* scratch space for its message */
    struct diag_observer *observers; /* the latest first; NULL when none */
    /* Called before a line is written to stream, so that what a terminal shows there (a
     * progress line) can make way for it. May be NULL. */
    void (*before_write)(void *ctx);
    void *before_write_ctx;
    struct diag_log *log; /* when set, findings are counted and kept here, not written */
    /* When set, a finding it returns false for is counted and observed but not written (the
     * findings of other conversations than acp-trace --follow's). */
    bool (*shows)(void *ctx, const struct diag_finding *finding);
    void *shows_ctx;
};

void diag_sink_init(struct diag_sink *sink, FILE *stream);

/* Buffers stderr, which C leaves unbuffered (one write(2) per diagnostic): fully, or line by line
 * when it is a terminal, where a person reads as the lines come. Whoever buffers it flushes it
 * before waiting for anything and before every exit: see diag_flush. Call before the first
 * write to stderr of the run. */
void diag_buffer_stderr(void);
/* Writes out what the sink's stream holds. A reader of it that went away ends the process as
 * SIGPIPE would have with an unbuffered stream. */
void diag_flush(struct diag_sink *sink);
void diag_sink_free(struct diag_sink *sink);

/* Adds an observer, told of each finding before those added earlier. The caller keeps it alive
 * until diag_unobserve, which must remove the latest one added. */
void diag_observe(struct diag_sink *sink, struct diag_observer *observer);
void diag_unobserve(struct diag_sink *sink, struct diag_observer *observer);

/* Reports one finding, with the severity the table of codes gives code (a code it lacks counts as
 * an error). fmt is always a literal of ours; every %s argument is treated as input text and
 * escaped. Supported conversions: %s %c %d %u %ld %lu %lld %llu %zu %%, and %.*s, the given
 * number of bytes (NULs included: a line of input quoted whole, diag_quote_len of it). */
void diag_emit(struct diag_sink *sink, const struct diag_where *where, const char *code,
               const char *fmt, ...) ACP_PRINTF(4, 5);

/* Writes a finding reported earlier (and counted, and observed, then), whose message is text as
 * the text form shows it: a finding a conversation kept, shown when the conversation ends.
 * Writes nothing to a quiet sink; sink->shows is not asked. */
void diag_print(struct diag_sink *sink, const struct diag_where *where, enum severity severity,
                const char *code, const char *text, size_t len);
/* The length to give %.*s for len bytes of input: no more than a quote shows. */
int diag_quote_len(size_t len);

/* Findings kept to be reported later: work done away from the sink (a worker thread of --jobs)
 * gets a sink of its own whose log keeps each finding as diag_emit formatted it, and the one
 * thread that owns the real sink reports them, in input order, with diag_replay. */
struct diag_logged;

struct diag_log {
    struct diag_logged *v;
    size_t n, cap;
    struct strbuf strings; /* the entries' texts and names, each NUL-terminated */
};

/* Makes sink a sink that keeps what it is told in log, formatting it only when real, the sink it
 * is replayed into, would show it to someone (printed, or observed). */
void diag_sink_init_log(struct diag_sink *sink, struct diag_log *log, const struct diag_sink *real);
void diag_log_reset(struct diag_log *log);
void diag_log_free(struct diag_log *log);
/* Reports what log keeps through sink, in order, counted, printed and observed as if each finding
 * had been emitted there. */
void diag_replay(struct diag_sink *sink, const struct diag_log *log);

/* The table of diagnostic codes: short stable tokens with a one-line summary and an explanation,
 * the source of --explain and of the list in acp(7). */
struct diag_code {
    const char *code;
    const char *severity; /* "error" or "warning": the one place a code's severity is written */
    const char *summary;
    const char *explanation;
};

/* The tables of the dialects' codes, each ending with an entry whose code is NULL, the list
 * ending with NULL: each dialect brings its own (its file's), and the layer that lists the
 * dialects lists them (proto/dialect.c), so that this one never names a protocol. */
extern const struct diag_code *const diag_dialect_tables[];

const struct diag_code *diag_code_find(const char *code);
/* Whether the table makes code an error; true for a code it does not have. */
bool diag_code_is_error(const char *code);
/* Every code, in the order --explain=list gives them: the input contract's, each dialect's, the
 * tools': for (c = diag_code_first(&w); c; c = diag_code_next(&w)). */
struct diag_code_walk {
    size_t table;
    const struct diag_code *at;
};
const struct diag_code *diag_code_first(struct diag_code_walk *w);
const struct diag_code *diag_code_next(struct diag_code_walk *w);

#endif
