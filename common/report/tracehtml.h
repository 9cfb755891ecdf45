/* acp-trace --format=html: one self-contained page to open in a browser: the statistics, a table
 * of every conversation, and, for the conversations it keeps, their sequence diagram (the SVG
 * diagram.h draws, one a conversation) and the messages behind its arrows, verbatim, with their
 * file, line and findings.
 *
 * Input is data, never markup: the page's only markup is ours; everything from the input travels
 * as JSON in a <script type="application/json"> block, in which '<', '>', '&', U+2028 and U+2029
 * are written as \u escapes so that no input can close it, and the page's script puts it on the
 * page as text. A Content-Security-Policy allows the page's own inline script and style, by their
 * SHA-256, and nothing else (no network, no other script).
 *
 * Sized for any capture: a conversation's row is written when it ends, so that the table costs
 * no memory; the messages are kept of conversations whose arrows come to at most max_arrows
 * (and whose cost to at most TRACE_HTML_KEPT_MAX bytes: their text as the page writes it, and what
 * their records and diagrams take), those with findings first: past that a conversation's
 * messages are left out (all of them), and the page says how many. The page is written in pieces
 * of DIAGRAM_FLUSH_BYTES or so, a long text too, never held whole. */
#ifndef ACP_TRACEHTML_H
#define ACP_TRACEHTML_H

#include "engine/conversation.h"
#include "proto/message.h"
#include "report/diagram.h"
#include "report/tracestats.h"

/* What the kept messages may cost, and the diagnostics listed (each is counted in the
 * statistics). */
enum { TRACE_HTML_KEPT_MAX = 16 << 20, TRACE_HTML_DIAGNOSTICS_MAX = 20000 };

struct trace_html;

/* hidden: the kinds and acts (kebab-case) left out, kept by reference; no_times: the diagrams
 * leave out times and deltas. */
struct trace_html *trace_html_new(unsigned long max_arrows, char *const *hidden, size_t nhidden,
                                  bool no_times);
void trace_html_free(struct trace_html *h);

/* The message being traced, before its checks run: findings at it wait for its conversation. */
void trace_html_begin(struct trace_html *h, const struct message *m);
/* A finding of the run. */
void trace_html_finding(struct trace_html *h, const struct diag_finding *f);
/* The message being traced, of the given kind, sent by sender (NULL: none), in the conversation
 * whose id engine_check returned (NULL: none). */
void trace_html_message(struct trace_html *h, const struct message *m, const char *kind,
                        const char *sender, const char *conversation);
void trace_html_end(struct trace_html *h);

/* A conversation handed over, with the outcome acp-trace gives it: its row, appended to out
 * (after the page's beginning, for the first). */
void trace_html_conversation(struct trace_html *h, const struct conversation_summary *s,
                             const char *outcome, struct strbuf *out);

/* The rest of the page: the statistics, the kept conversations' diagrams and messages, what was
 * left out, and the script. flush (may be NULL) takes what out holds as it grows. */
void trace_html_finish(struct trace_html *h, const struct trace_stats *stats,
                       const struct diagram_flush *flush, struct strbuf *out);

/* The page's script and style sheet (common/report/html/, built in by make), NUL-terminated. */
extern const char trace_html_script[];
extern const char trace_html_style[];

#endif
