/* acp-trace's account of one conversation: the JSON object ("type": "conversation") it writes
 * for each conversation the engine hands over. acp(7) has its schema. */
#ifndef ACP_TRACESUMMARY_H
#define ACP_TRACESUMMARY_H

#include "base/util.h"
#include "engine/engine.h"

/* Appends the summary s, with the outcome acp-trace gives it, as one line of JSON. */
void trace_summary_write(const struct conversation_summary *s, const char *outcome,
                         struct strbuf *out);

/* A summary of no conversation (its span alone, conversation_summary.span): one line
 * {"type":"span","span":...} for acp-trace --merge. */
void trace_span_write(const struct conversation_summary *s, struct strbuf *out);

#endif
