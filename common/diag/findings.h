/* The findings of one conversation, kept for its summary (acp-trace's "issues"): copies of what
 * the sink reported while the conversation engine blamed the conversation. A conversation keeps
 * at most FINDINGS_KEPT of them and counts the rest, so that no conversation grows without bound
 * however wrong its messages are. */
#ifndef ACP_FINDINGS_H
#define ACP_FINDINGS_H

#include "diag/diag.h"

enum { FINDINGS_KEPT = 32 };

struct finding {
    const char *code; /* a literal of ours */
    enum severity severity;
    const char *file; /* display names live for the whole run */
    unsigned long line, column;
    const char *related_file; /* NULL when none, or the same as file */
    unsigned long related_line;
    char *message; /* as the text form shows it, escaped */
};

struct findings {
    struct finding *v;
    size_t n, cap;
    unsigned long omitted; /* past FINDINGS_KEPT */
    bool errors;           /* an error among them, kept or omitted */
};

/* Adds a copy of finding to *list, made on first use. */
void findings_add(struct findings **list, const struct diag_finding *finding);
/* Moves every finding of *from to the end of *to, leaving *from empty (NULL). */
void findings_move(struct findings **to, struct findings **from);
/* Writes each finding kept to sink, as it was reported (diag_print): nothing is counted. */
void findings_print(struct diag_sink *sink, const struct findings *list);
void findings_free(struct findings *list);

#endif
