/* The one diagnostics path: every finding of every tool goes through diag_emit, which writes it
 * to stderr as a GNU-style line or as a JSON object, escapes input text and keeps the counts. */
#ifndef ACP_DIAG_H
#define ACP_DIAG_H

#include <stdio.h>

#include "util.h"

enum severity { SEV_WARNING, SEV_ERROR };
enum diag_format { DIAG_TEXT, DIAG_JSON };

struct diag_where {
    const char *file;           /* display name; "<stdin>" for standard input */
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
};

void diag_sink_init(struct diag_sink *sink, FILE *stream);
void diag_sink_free(struct diag_sink *sink);

/* Adds an observer, told of each finding before those added earlier. The caller keeps it alive
 * until diag_unobserve, which must remove the latest one added. */
void diag_observe(struct diag_sink *sink, struct diag_observer *observer);
void diag_unobserve(struct diag_sink *sink, struct diag_observer *observer);

/* Reports one finding. fmt is always a literal of ours; every %s argument is treated as input
 * text and escaped. Supported conversions: %s %c %d %u %ld %lu %lld %llu %zu %%. */
void diag_emit(struct diag_sink *sink, const struct diag_where *where, enum severity severity,
               const char *code, const char *fmt, ...) ACP_PRINTF(5, 6);

/* The table of diagnostic codes: short stable tokens with a one-line summary and an explanation,
 * the source of --explain and of the list in acp(7). */
struct diag_code {
    const char *code;
    const char *severity; /* "error", "warning", or "error or warning" */
    const char *summary;
    const char *explanation;
};

const struct diag_code *diag_code_find(const char *code);
const struct diag_code *diag_codes(void); /* terminated by an entry whose code is NULL */

#endif
