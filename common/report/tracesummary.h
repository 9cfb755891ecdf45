/* acp-trace's account of one conversation: the JSON object ("type": "conversation") it writes
 * for each conversation the engine hands over. acp(7) has its schema. */
#ifndef ACP_TRACESUMMARY_H
#define ACP_TRACESUMMARY_H

#include "base/util.h"
#include "engine/engine.h"

/* Appends the summary s, with the outcome acp-trace gives it, as one line of JSON. */
void trace_summary_write(const struct conversation_summary *s, const char *outcome,
                         struct strbuf *out);

/* Writes a message time as RFC 3339 in UTC, with milliseconds when it has a fraction:
 * "2011-08-02T11:21:40Z", "2011-08-02T11:21:40.250Z". buf holds at least 40 bytes. */
void trace_format_time(double t, char *buf, size_t size);

#endif
