/* Sequence diagrams in the spirit of JADE's Sniffer: one column per agent, one arrow per message,
 * anomalies marked. One writer for four formats: Mermaid and PlantUML sources, a self-contained
 * SVG drawn here, and an ASCII flow for a terminal.
 *
 * Every name, label and note is text from the input. Whatever its bytes, it cannot break the
 * document or inject syntax, and two names that differ never look the same: each text is first
 * made visible (invalid UTF-8 becomes \xNN; C0 controls \n, \t, \r or \xNN; the characters of the
 * Unicode categories Cc, Cf and Zs but U+0020, line and paragraph separators and non-characters
 * \u{XXXX}; a blank at either end \u{0020}; a backslash \\; the text format escapes all beyond
 * printable ASCII), then every character that could mean something to the format is written as
 * the format's own character reference (Mermaid #NN;, its placeholder characters too; PlantUML
 * <U+XXXX>; XML &lt; ...). Participants are referred to by generated ids (p1, p2, ...), never by
 * name. An empty text is shown as "". Long names are cut in the middle with "...", so that names
 * that differ at their end stay apart, and long labels and notes at their end (the SVG keeps more
 * of the text, escaped, in a tooltip). A diagram keeps of a long text what it may show (diagram.c,
 * kept_text and kept_name), so that its memory follows what it draws, not what the input sends. */
#ifndef ACP_DIAGRAM_H
#define ACP_DIAGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

enum diagram_format { DIAGRAM_MERMAID, DIAGRAM_PLANTUML, DIAGRAM_SVG, DIAGRAM_TEXT };
enum diagram_mark { MARK_NONE, MARK_WARNING, MARK_ERROR };
/* How a conversation ended, for the colour of its outcome: done; ended otherwise (failed,
 * refused, rejected, not-understood, cancelled); not ended (open, timeout); violated. */
enum diagram_end { END_DONE, END_ENDED, END_OPEN, END_VIOLATED };

struct diagram;

/* title: shown where the format has a title (NULL or "" for none). */
struct diagram *diagram_new(enum diagram_format format, const char *title);
void diagram_free(struct diagram *d);
/* Empties d, as diagram_new made it with this title, keeping its memory for what comes next. */
void diagram_restart(struct diagram *d, const char *title);

/* The column of agent name (from 0), added at its first appearance (participants in order of
 * first appearance); the same name (byte for byte) gives the same column, and two names differ
 * in their columns, a long one's told by its head and a keyed digest of the whole (keyform.h). */
size_t diagram_participant(struct diagram *d, const char *name);
/* How many participants (columns) it holds. */
size_t diagram_participants(const struct diagram *d);

/* One message: an arrow from column `from` to each column of to (from itself, for a message to
 * oneself), all with one label (e.g. "task.assign q-00a1"), shown with the message's time and the
 * delta since its conversation's previous message, and (text, SVG) with where it was read. */
struct diagram_message {
    size_t from;
    const size_t *to;
    size_t nto;
    const char *label;
    const char *file;   /* the file it was read from, as diagnostics name it; NULL: none */
    unsigned long line; /* its line there; 0: unknown */
    double time;        /* its time, in unix seconds; NAN: unknown */
    double delta;       /* seconds since its conversation's previous message; NAN: none */
};

/* Adds a message, in order; returns the number of its first arrow, from 1 (its others follow).
 * Returns 0 and adds nothing when a column was never returned by diagram_participant, or when it
 * has no receiver. */
size_t diagram_message(struct diagram *d, const struct diagram_message *m);
/* A message to one receiver, with neither time nor place. */
size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label);

/* Marks the message of arrow n as an anomaly with a diagnostic ("code: message"): its arrows are
 * drawn in the colour of its worst mark, one no renderer uses by default, and each diagnostic is
 * attached, under them (a note in Mermaid, PlantUML and text; a line under the arrow and in its
 * tooltip in the SVG). May be called more than once (several findings), also after later
 * messages were added. An n that names no arrow is ignored. */
void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic);

/* A note not tied to a message (e.g. "conversation c1 still open at the end"), over a column,
 * after the messages added so far. A column that names no participant is ignored. */
void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text);

/* How a conversation ended (e.g. "queen/q-00a1: done after 1m20s"), noted where it ended: after
 * the message of arrow n (and its marks and the notes already there), over its columns. An n that
 * names no arrow is ignored. */
void diagram_outcome(struct diagram *d, size_t n, enum diagram_end end, const char *text);

/* How many arrows it holds (acp-trace stops adding at --max-arrows and adds a note). */
size_t diagram_arrows(const struct diagram *d);

/* A duration as the diagrams write a delta: "0.25s", "80s", "1m20s", "2h05m03s", "3d04h05m06s"
 * (to the millisecond below a minute, to the second above), with a '-' before a negative one.
 * size is at least DIAGRAM_DURATION_SIZE. */
enum { DIAGRAM_DURATION_SIZE = 32 };
void diagram_duration(double seconds, char *buf, size_t size);

/* Takes what a document being written has so far, and empties out, so that a long document is
 * given away as it grows rather than held whole. */
struct diagram_flush {
    void (*flush)(void *ctx, struct strbuf *out);
    void *ctx;
};
enum { DIAGRAM_FLUSH_BYTES = 1 << 16 };
/* Gives out away to flush (which may be NULL) once it holds DIAGRAM_FLUSH_BYTES or more. */
void diagram_flush_when_full(const struct diagram_flush *flush, struct strbuf *out);

/* What came of drawing a diagram. */
struct diagram_fit {
    size_t pages;
    /* more than its renderer takes by default even in pages: a message wider or longer than a
     * page (the text format: than the width), or pages that make an SVG larger than
     * DIAGRAM_SVG_MAX pixels either way */
    bool too_big;
    size_t width, height; /* the SVG's, in pixels */
};

/* librsvg (rsvg-convert) and cairo draw no image larger than this either way. */
enum { DIAGRAM_SVG_MAX = 32767 };

/* How to lay a diagram out, beyond its format. Zeroed: the defaults. */
struct diagram_layout {
    bool no_times;    /* leave the times and deltas out */
    size_t page_size; /* at most so many messages a page; 0: as many as the renderer takes */
    size_t width;     /* the text format's width, in columns (0: 80) */
    bool color;       /* the text format in colour (ANSI escapes) */
    const struct diagram_flush *flush; /* called whenever out holds DIAGRAM_FLUSH_BYTES or more */
    struct diagram_fit *fit;           /* when not NULL, told what came of it */
};

/* The whole document, appended to out, in pages within what its renderer takes by default:
 * Mermaid's maxTextSize (50,000 characters), PlantUML's largest image (4,096 pixels either way),
 * rsvg-convert's (32,767), a terminal's width. Mermaid in pages is a Markdown document, a fenced
 * mermaid block a page (mmdc draws an image a page); PlantUML's pages are newpage, and blocks of
 * pages (@startuml to @enduml) where their columns would be wider than an image; the SVG's
 * pages are laid side by side, rows of them, in one picture; the text format's are bands of
 * rows, each headed by the columns it has. One page is the diagram as it always was. */
void diagram_write(const struct diagram *d, struct strbuf *out);
/* The same, laid out as layout says (NULL: the defaults). */
void diagram_render(const struct diagram *d, const struct diagram_layout *layout,
                    struct strbuf *out);

#endif
