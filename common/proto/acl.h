/* The FIPA string form (SC00070) as JADE writes it: one parenthesised expression per message,
 * read into Caxton's FIPA JSON and written back from it. Tokens and the shape of a message are
 * acl_lex.h's, which the reader splits records with too.
 *
 * Reading: keywords in any case; (set ...) of agent-identifiers with :addresses and :resolvers;
 * "..." literals (only \" is an escape); #N" strings of N bytes; user parameters :X-... .
 * An agent identifier with only a name becomes a string, one with more (or with the writer's
 * marker :X-acp-object, for an object that holds only its name) an object
 * {"name", "addresses", "resolvers", ...}; a set of one agent becomes that agent, a larger one an
 * array, and an empty set no member at all (it names no agent, as a missing parameter does).
 * Content is a string, or JSON when the language is json; under json, text that is no JSON, or
 * JSON the JSON Lines tools cannot hold (number-range), stays a string marked
 * x-acp-content-text: true (":X-acp-content-text true" where the reader would not mark it again),
 * which the writer writes as it is. acl_content_text gives the content's text, so that a
 * converter can write it back as it came (acl_write's content). A parameter given twice (names
 * compared without case), or two that give one member a value, is a duplicate-key error.
 *
 * Date-times: 20240115T103500000Z is UTC; with no letter, or another letter than Z, it is read
 * as UTC with a warning (JADE would read local time); a relative one (+00000000T000500000)
 * counts from the caller's now, with JADE's 30-day months and 365-day years. A spelling other
 * than the writer's is kept in the member x-acp-reply-by, and written back while it still says
 * reply_by's instant (a relative one always).
 *
 * Members the string form has no parameter for travel as user parameters, and come back:
 *   member M (not starting with x-), string value   <->  :X-acp-M "value"
 *   member M, any other JSON value                  <->  :X-acp-json-M "<JSON text>"
 *   member x-iacp-N, x-fipa-N, or X-N, string value  <->  :X-N "value"
 *   member x-acp-partial, true                      <->  :X-acp-partial true (the exception)
 * A user parameter given a "..." string that the writer would write as a word (:X-track "yes":
 * a String in FIPA SL, where yes is a Word) is named in the member x-acp-quoted, so that it is
 * written back as a string; not one the writer writes as JSON text (json-x), where a string is
 * a string however it was spelt.
 * JADE reads :x-N and :X-N as one parameter, N, and writes it :X-N; so the reader takes the
 * prefix in either case, giving the mappings' families their lower-case x (x-iacp-kind,
 * x-fipa-sender) and any other name JADE's X (X-priority), and the writer writes X-. An x-
 * member that would not come back so spelt (x-note, X-iacp-kind) goes as :X-acp-x-note.
 * Two markers keep JSON content exact: ":X-acp-json-content true" (the content is JSON although
 * the language is not json) and ":X-acp-language none" (":language json" was added by the
 * writer, the message had no language). A reply_by that :reply-by (UTC, milliseconds) would not
 * give back as spelled also travels as ":X-acp-reply_by", which the reader takes last. A member
 * whose name starts with x-acp- or json- takes the :X-acp-json- form whatever its value, so that
 * no name is mistaken for a prefix; so does one whose name would equal another's, or a marker's
 * (reply_By), but for case. In that form an expression (a member x-acp-expressions names) goes
 * as itself, not as JSON text, and a list read there is one.
 * counter_propose, which JADE cannot read, is written (propose ... :X-acp-performative
 * counter_propose) and read back. A parameter whose value is a list (:encoding (a b)) is read as
 * the list's text, and the member x-acp-expressions (of the message, or of an agent) names it,
 * so that it is written back as a list; not when the member is one written in a form of its own
 * (a list given to :X-acp-sender is the sender's name). :X-acp-name in an agent-identifier gives
 * its name a second value, a duplicate-key error.
 *
 * Writing rule for a text value: a bare word when it is printable ASCII that JADE reads as a word
 * (not for :content, which is always quoted as JADE does); otherwise a "..." literal with every
 * quote written \" ; otherwise, when the text contains a backslash followed by a quote or ends in
 * a backslash (which no literal can say unambiguously to JADE), a #N" byte-length string; JSON
 * text in one is ASCII (\u escapes), because JADE counts characters where SC00070 counts bytes. */
#ifndef ACP_ACL_H
#define ACP_ACL_H

#include <jansson.h>
#include <time.h>

#include "base/jsonout.h"
#include "base/record.h"
#include "base/util.h"
#include "diag/diag.h"
#include "proto/jscan.h"

/* Parses one record (a whole expression) into the view, in js, of a FIPA JSON object whose
 * performative is in snake_case, as jscan_scan_made reads the line of it (content that is JSON
 * goes in as the value of its text, nested one level deeper than it stood); relative date-times
 * count from now; scratch is a scanner for the parser's own use. Problems are reported at their
 * line and byte column; NULL after an error. */
const struct jv *acl_parse_view(const struct record *rec, struct diag_sink *sink, time_t now,
                                struct jscan *js, struct jscan *scratch);
/* acl_parse_view as struct filter_ops' parse_acl hook calls it (ctx unused): what a tool that
 * reads the string form sets there. */
const struct jv *acl_parse_hook(void *ctx, const struct record *rec, struct diag_sink *sink,
                                time_t now, struct jscan *js, struct jscan *scratch);
/* The same as a jansson tree; NULL after an error. */
json_t *acl_parse(const struct record *rec, struct diag_sink *sink, time_t now);

/* The text of a parsed record's :content, as acl_parse read it (before any JSON decoding), into
 * out; false when it has none, or an expression. */
bool acl_content_text(const struct record *rec, struct strbuf *out);

/* Appends msg, a view of a FIPA JSON object, in the string form (several lines, JADE's layout,
 * ending in a newline). upper: the performative in capitals (JADE's own spelling), else lower
 * case. content: the text msg's content came with (NULL: none), which JSON content is written as;
 * the caller knows that it reads as the content. Returns false, having reported at *at why (code
 * convert-unwritable), when msg cannot be written. */
bool acl_write(struct strbuf *out, const struct jv *msg, bool upper,
               const struct json_text *content, struct diag_sink *sink,
               const struct diag_where *at);

/* The same for a draft (convert_iacp_draft's DRAFT_HOLE, made in a worker thread), whose
 * conversation_id is "" until the stream says it: *hole receives where in out its "" starts
 * (ACL_HOLE_LEN bytes), which acl_hole_value's text replaces. */
bool acl_write_draft(struct strbuf *out, const struct jv *msg, bool upper,
                     const struct json_text *content, size_t *hole, struct diag_sink *sink,
                     const struct diag_where *at);
enum { ACL_HOLE_LEN = 2 };

/* Whether a draft of msg can take its conversation_id later: no marker of it names members whose
 * text is written as an expression or quoted (x-acp-expressions, x-acp-quoted), which the
 * conversation_id's text could decide. */
bool acl_draft_fits(const struct jv *msg);

/* Appends to out the text of conversation as acl_write would have written it in a draft's
 * hole: false, having reported why (a terminal control in it, convert-unwritable), with nothing
 * appended. */
bool acl_hole_value(struct strbuf *out, const char *conversation, struct diag_sink *sink,
                    const struct diag_where *at);

#endif
