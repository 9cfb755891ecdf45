/* What may span partitions (IACP): the findings about a node's runs (a task's body.node assigned
 * again while an assign of it is outstanding) and about a reply to an assign another forager
 * holds, as the stream checks tell them in one process and acp-trace --merge tells them over
 * partitions (iacp_merge.c), so that both say the same words. */
#ifndef ACP_IACP_SPANS_H
#define ACP_IACP_SPANS_H

#include <stdbool.h>

#include "base/util.h"
#include "diag/diag.h"

/* An assign of a node that an open assign of it already has. */
struct iacp_reassign {
    const char *node;
    const char *forager;      /* the new assign's */
    const char *prev_id;      /* the outstanding assign */
    const char *prev_forager; /* and where it went */
    double waited;            /* between the two, by the queen's clock */
    double timeout;           /* --assign-timeout */
};

/* Seconds as a finding writes them: at most three decimals, no trailing zeros. */
const char *iacp_seconds(struct strbuf *sb, double value);

/* Reports the assign (at w, related to the outstanding one): iacp-reissue when it is the queen's
 * reissue to another forager after the timeout, iacp-reissue-unexpected otherwise. */
void iacp_report_reassign(struct diag_sink *sink, const struct diag_where *w,
                          const struct iacp_reassign *r);

/* A forager accepts an assign after the queen reissued it (w related to the reissue). */
void iacp_report_late_accept(struct diag_sink *sink, const struct diag_where *w,
                             const char *forager, const char *id);

/* The final task.result (at w, related to the other run's assign) of a node another run of it
 * already finished. */
struct iacp_twice {
    const char *node;
    const char *id, *forager; /* this run's assign, and its forager */
    unsigned long line;       /* where that assign is */
    const char *done_id, *done_forager;
    unsigned long done_line;
};
void iacp_report_twice(struct diag_sink *sink, const struct diag_where *w,
                       const struct iacp_twice *t);

/* A reply (kind, from its sender) whose ref names no message of the owner's seen. */
void iacp_report_orphan(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                        const char *ref, const char *owner);

/* A reply to an open assign (id) from another agent than the one it went to. */
void iacp_report_wrong_replier(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                               const char *from, const char *id, const char *to);

/* A reply to a conversation (id) that ended: on a reject, or on its final result (of a task, or
 * of a tool query). */
void iacp_report_after_end(struct diag_sink *sink, const struct diag_where *w, const char *kind,
                           const char *id, bool rejected, bool task);

/* A message whose sender already sent one with its id (w related to that one). */
void iacp_report_duplicate_id(struct diag_sink *sink, const struct diag_where *w, const char *from,
                              const char *id);

#endif
