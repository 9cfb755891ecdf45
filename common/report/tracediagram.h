/* acp-trace's sequence diagrams, over diagram.h: one arrow per message and receiver,
 * labelled with its kind or performative and a short id; each finding marked on the arrows of the
 * message it is about, or, when it is about time passing or comes at the end, a note over the
 * column of the agent whose message it names; hidden kinds left out; and a stop, with a note, at
 * the most arrows asked for, since a diagram holds everything it draws. */
#ifndef ACP_TRACEDIAGRAM_H
#define ACP_TRACEDIAGRAM_H

#include "proto/message.h"
#include "report/diagram.h"

struct trace_diagram;

/* hidden: the IACP kinds and FIPA acts (kebab-case) left out, as given; kept by reference. */
struct trace_diagram *trace_diagram_new(enum diagram_format format, const char *title,
                                        unsigned long max_arrows, char *const *hidden,
                                        size_t nhidden);
void trace_diagram_free(struct trace_diagram *t);

/* The message being traced (NULL once it was): findings at it wait for its arrows. */
void trace_diagram_begin(struct trace_diagram *t, const struct message *m);
/* Draws the message being traced, sent by sender (NULL: not drawn), of the given kind. */
void trace_diagram_message(struct trace_diagram *t, const struct message *m, const char *kind,
                           const char *sender);
void trace_diagram_end(struct trace_diagram *t);
/* A finding of the run. */
void trace_diagram_finding(struct trace_diagram *t, const struct diag_finding *f);

/* The diagram, appended to out; given away as it grows through flush, when not NULL
 * (diagram_write_flushing). */
void trace_diagram_write(const struct trace_diagram *t, struct strbuf *out,
                         const struct diagram_flush *flush);

#endif
