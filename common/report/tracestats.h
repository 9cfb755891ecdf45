/* acp-trace's statistics of a stream: messages by kind or performative and by agent,
 * conversations by protocol and outcome, findings by code, and a latency histogram for each
 * request -> reply pair (task.assign->task.accept, request->inform, ...), overall and, when asked,
 * per replying agent. They are written as one JSON object ("type": "trace-stats", acp(7) has its
 * schema) that trace_stats_merge reads back: counts add up exactly, and the histograms merge, so
 * that the statistics of the shards of a stream merge into those of the whole. */
#ifndef ACP_TRACESTATS_H
#define ACP_TRACESTATS_H

#include <jansson.h>

#include "base/util.h"
#include "engine/engine.h"
#include "proto/message.h"

enum { TRACE_STATS_VERSION = 1 };

struct trace_stats;

/* At most max_names kinds and agents are told apart (the rest are counted together), so that
 * no stream makes the statistics grow without bound. */
struct trace_stats *trace_stats_new(bool by_agent, unsigned long max_names);
void trace_stats_free(struct trace_stats *t);

/* One message of kind (an IACP kind, a FIPA act) sent by sender (NULL when it names none). */
void trace_stats_message(struct trace_stats *t, const char *kind, const char *sender);
/* A conversation handed over, with the outcome acp-trace gives it. */
void trace_stats_conversation(struct trace_stats *t, const struct conversation_summary *s,
                              const char *outcome);
/* One finding. */
void trace_stats_finding(struct trace_stats *t, const char *code);

/* Appends the statistics as one line of JSON. */
void trace_stats_write(const struct trace_stats *t, struct strbuf *out);
/* Appends them as a table for people, with a small histogram of each latency; every name from
 * the input is escaped. */
void trace_stats_report(const struct trace_stats *t, struct strbuf *out);

/* Adds the statistics a trace-stats object holds. Returns false, t unchanged, when obj is none
 * of this version (or, for statistics by agent, has none), with the reason in *why. */
bool trace_stats_merge(struct trace_stats *t, const json_t *obj, const char **why);
/* A merge keeps the latencies of TRACE_STATS_PAIRS_MAX pairs at most, overall and per agent (the
 * tools make a few dozen); the pairs it read past them, counted each time: */
enum { TRACE_STATS_PAIRS_MAX = 1024 };
unsigned long long trace_stats_pairs_left_out(const struct trace_stats *t);

/* The outcome acp-trace gives a conversation (acp(7)): violated (an error finding, or a new run
 * started in it) before cancelled before how its protocol ended; timeout when it was evicted or
 * expired; open when it was still open. */
const char *trace_outcome(const struct conversation_summary *s);

#endif
