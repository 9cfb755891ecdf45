/* Sequence diagrams in the spirit of JADE's Sniffer: one column per agent, one arrow per message,
 * anomalies marked. One writer for four formats: Mermaid and PlantUML sources, a self-contained
 * SVG drawn here, and an ASCII flow for a terminal.
 *
 * Every name, label and note is text from the input. Whatever its bytes, it cannot break the
 * document or inject syntax, and two names that differ never look the same: each text is first
 * made visible (invalid UTF-8 becomes \xNN; C0 controls \n, \t, \r or \xNN; the characters of the
 * Unicode categories Cc, Cf and Zs but U+0020, line and paragraph separators and non-characters
 * \uXXXX; a blank at either end \u0020; a backslash \\; the text format escapes everything beyond
 * printable ASCII), then every character that could mean something to the format is written as
 * the format's own character reference (Mermaid #NN;, its placeholder characters too; PlantUML
 * <U+XXXX>; XML &lt; ...). Participants are referred to by generated ids (p1, p2, ...), never by
 * name. An empty text is shown as "". Long names are cut in the middle with "..." (but in the
 * text format), so that names that differ at their end stay apart, and long labels and notes at
 * their end (the SVG keeps the whole text, escaped, in a tooltip). */
#ifndef ACP_DIAGRAM_H
#define ACP_DIAGRAM_H

#include <stddef.h>

#include "base/util.h"

enum diagram_format { DIAGRAM_MERMAID, DIAGRAM_PLANTUML, DIAGRAM_SVG, DIAGRAM_TEXT };
enum diagram_mark { MARK_NONE, MARK_WARNING, MARK_ERROR };

struct diagram;

/* title: shown where the format has a title (NULL or "" for none). */
struct diagram *diagram_new(enum diagram_format format, const char *title);
void diagram_free(struct diagram *d);

/* The column of agent name (from 0), added at its first appearance (participants in order of
 * first appearance); the same name (byte for byte) gives the same column. */
size_t diagram_participant(struct diagram *d, const char *name);
/* How many participants (columns) it holds. */
size_t diagram_participants(const struct diagram *d);

/* One arrow, in order, from column `from` to column `to` (equal for a message to oneself),
 * labelled e.g. "task.assign q-00a1" or "request r1"; returns the arrow's number, from 1 (the
 * number the text format shows). Returns 0 and adds nothing when a column was never returned by
 * diagram_participant. */
size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label);

/* Marks arrow n as an anomaly with a diagnostic ("code: message"), shown in colour (svg), as a
 * note (mermaid, plantuml, text) and as a tooltip (svg: <title>); may be called more than once
 * per arrow (several findings), also after later arrows were added. The arrow is drawn in the
 * colour of its worst mark. An n that names no arrow is ignored. */
void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic);

/* A note not tied to an arrow (e.g. "conversation c1 still open at the end"), over a column,
 * after the arrows added so far. A column that names no participant is ignored. */
void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text);

/* How many arrows it holds (acp-trace stops adding at --max-arrows and adds a note). */
size_t diagram_arrows(const struct diagram *d);

/* The whole document, appended to out. */
void diagram_write(const struct diagram *d, struct strbuf *out);

/* Takes what a document being written has so far, and empties out: a text diagram is as long as
 * its arrows times its columns (a gigabyte for ten thousand agents), so it is given away as it
 * grows rather than held whole. */
struct diagram_flush {
    void (*flush)(void *ctx, struct strbuf *out);
    void *ctx;
};
enum { DIAGRAM_FLUSH_BYTES = 1 << 16 };

/* diagram_write, calling flush (when not NULL) whenever out holds DIAGRAM_FLUSH_BYTES or more. */
void diagram_write_flushing(const struct diagram *d, struct strbuf *out,
                            const struct diagram_flush *flush);

#endif
