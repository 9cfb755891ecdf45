/* acp-trace's sequence diagrams, over diagram.h: one message a row, an arrow to each receiver,
 * labelled with its kind or performative and a short id, with its time, the delta since the
 * previous message of its conversation drawn, and its file and line; each finding marked on the
 * message it is about, or, when it is about time passing or comes at the end, a note over the
 * column of the agent whose message it names; each conversation's outcome where it ends; hidden
 * kinds left out; and a stop, with a note, at the most arrows asked for, since a diagram holds
 * everything it draws. */
#ifndef ACP_TRACEDIAGRAM_H
#define ACP_TRACEDIAGRAM_H

#include "engine/conversation.h"
#include "proto/message.h"
#include "report/diagram.h"

struct trace_diagram;

/* hidden: the IACP kinds and FIPA acts (kebab-case) left out, as given; kept by reference. */
struct trace_diagram *trace_diagram_new(enum diagram_format format, const char *title,
                                        unsigned long max_arrows, char *const *hidden,
                                        size_t nhidden);
void trace_diagram_free(struct trace_diagram *t);
/* Empties t, as trace_diagram_new made it with this title (its format, bound and hidden kinds
 * unchanged), keeping its memory: the HTML report makes a diagram of each conversation and drops
 * most, by the thousand, and freeing each piece of them, cold by then, was a tenth of its time. */
void trace_diagram_restart(struct trace_diagram *t, const char *title);

/* The message being traced (NULL once it was): findings at it wait for its arrows. */
void trace_diagram_begin(struct trace_diagram *t, const struct message *m);
/* Draws the message being traced, sent by sender (NULL: not drawn), of the given kind, in the
 * conversation whose id engine_check returned (NULL: none). */
void trace_diagram_message(struct trace_diagram *t, const struct message *m, const char *kind,
                           const char *sender, const char *conversation);
void trace_diagram_end(struct trace_diagram *t);
/* A finding of the run. */
void trace_diagram_finding(struct trace_diagram *t, const struct diag_finding *f);
/* A conversation handed over, with the outcome acp-trace gives it: noted after its last message
 * drawn (none when the drawing stopped before its end). */
void trace_diagram_outcome(struct trace_diagram *t, const struct conversation_summary *s,
                           const char *outcome);

/* How many arrows it holds. */
size_t trace_diagram_arrows(const struct trace_diagram *t);

/* The diagram, laid out as layout says, appended to out (diagram_render). */
void trace_diagram_write(const struct trace_diagram *t, const struct diagram_layout *layout,
                         struct strbuf *out);

#endif
