/* What the writers of the sequence diagrams share (diagram.h is what the tools use): the diagram
 * itself, the two layers every text goes through (made visible, then written in the format's
 * own references), the walk over messages and notes, the colours and the legend. diagram.c holds
 * the diagram, which the formats only read, drawing.c the rest; diagram_mermaid.c,
 * diagram_plantuml.c, diagram_svg.c and diagram_text.c each draw one format. */
#ifndef ACP_DRAWING_H
#define ACP_DRAWING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/siphash.h"
#include "base/strmap.h"
#include "report/diagram.h"

struct finding {
    enum diagram_mark mark;
    char *text;
};

/* A message: its arrows, their label, when and where it was read, and its findings. */
struct row {
    size_t from;
    size_t first, n; /* its receivers: the columns d->to[first] to d->to[first + n - 1] */
    char *label;
    const char *file; /* one of d->files, or NULL */
    unsigned long line;
    double time, delta; /* NAN: unknown */
    struct finding *marks;
    size_t nmarks;
    enum diagram_mark worst;
};

/* A note, or a conversation's outcome, after `after` messages. */
struct note {
    size_t after;
    size_t a, b; /* over the columns a to b (a == b: over one) */
    bool outcome;
    enum diagram_mark mark; /* a note's severity */
    enum diagram_end end;   /* an outcome's */
    char *text;
};

struct diagram {
    enum diagram_format format;
    char *title;            /* NULL for none */
    struct strmap *columns; /* a name's form (column_key) -> column + 1; NULL while few, short */
    struct siphash_key *key_secret; /* for long names' digests; NULL until one comes */
    char **names;
    size_t nnames, names_cap;
    struct row *rows;
    size_t nrows, rows_cap;
    size_t *to; /* every message's receivers, in order: arrow n is to[n - 1] */
    size_t nto, to_cap;
    struct note *notes; /* in the order they were added */
    size_t nnotes, notes_cap;
    char **files; /* the files messages were read from, each once, in order */
    size_t nfiles;
    struct arena texts; /* every text above (title, names, labels, notes, marks, files), and
                         * the marks of each row */
};

/* When messages were sent, as a page shows it: the time of day (UTC), with its date on the first
 * message of the page and whenever the date changes, then the delta. */
struct when {
    bool shown;     /* times are drawn at all */
    long long day;  /* the day of the last time written on this page */
    bool day_known; /* one was */
};

enum { WHEN_SIZE = 96 };

/* Writes what w shows of r's time into buf ("" when nothing). */
void draw_when(struct when *w, const struct row *r, char *buf);

/* ---- Texts ---- */

struct writer {
    struct strbuf *out;
    enum diagram_format format;
    unsigned prev; /* the last character written as itself, 0 after a reference */
};

/* Writes s made visible, cut to at most max columns (max is at least 4). */
void draw_text(struct writer *w, const char *s, size_t max);
/* Writes a name made visible, cut in the middle to at most max columns (max is at least 5). */
void draw_name(struct writer *w, const char *s, size_t max);
/* Writes a fixed ASCII text (a severity word, "..."), escaped like any other. */
void draw_ascii(struct writer *w, const char *s);
/* A finding or a note: its severity, then its text. */
void draw_finding(struct writer *w, enum diagram_mark mark, const char *text, size_t max);
/* The columns s takes as draw_text(s, max) shows it; a name as draw_name shows it. */
size_t draw_width(const char *s, size_t max, bool ascii);
size_t draw_name_width(const char *s, size_t max, bool ascii);
/* "error: ", "warning: " or "". */
const char *draw_mark_word(enum diagram_mark mark);

/* How much of a text the Mermaid and PlantUML sources show, in characters. */
enum {
    SOURCE_NAME_MAX = 64,
    SOURCE_LABEL_MAX = 100,
    SOURCE_NOTE_MAX = 300,
    SOURCE_TITLE_MAX = 200
};

/* ---- Pages: the walk over messages and notes in order, cut where a page holds no more ---- */

/* Some arrows of a message: first to first + n - 1 (from 0) of its arrows; last: its marks
 * follow them. */
struct piece {
    const struct row *r;
    size_t first, n;
    bool last;
};

struct draw_sink {
    void (*row)(void *ctx, const struct piece *p);
    void (*note)(void *ctx, const struct note *n);
};

/* One thing a page draws: a note, or arrows of a message (all of them but where one message is
 * more than a page holds). */
struct item {
    const struct note *note; /* NULL for arrows */
    const struct row *row;
    size_t first, n;
};

struct page {
    size_t first, end; /* its items */
    bool block;        /* starts a block of pages that share their columns (PlantUML) */
};

struct plan {
    struct item *items;
    size_t nitems, items_cap;
    struct page *pages; /* at least one */
    size_t npages, pages_cap;
    bool oversize; /* an item was more than a page holds even alone */
};

/* What a page may hold, in the units its format measures: bytes of text (Mermaid), pixels
 * (PlantUML, SVG), or columns of a terminal (text). */
struct limits {
    size_t width;          /* of a block's columns, with width_overhead; SIZE_MAX: none */
    size_t width_overhead; /* a block's width besides its columns (the text format's gutter) */
    /* what of width_overhead a block may use when a message's columns fit no block without it
     * (the text format's room for labels, which then go under their arrows) */
    size_t width_slack;
    size_t size;          /* of a page's things, with page_overhead; SIZE_MAX: none */
    size_t page_overhead; /* a page's size besides its things (header, legend) */
    bool width_in_size;   /* the columns count towards the size too (Mermaid's declarations) */
    /* pages a block holds at the most (0: each page is a block); a page too wide starts a block,
     * one too long a page in the block */
    size_t block_pages;
    size_t rows; /* messages a page holds (--page-size); 0: no limit */
};

/* How a format measures what a page holds. */
struct measures {
    const struct limits *limits;
    const size_t *column;                             /* what each column adds to a width */
    size_t (*size)(void *ctx, const struct item *it); /* what a thing adds to a page's size */
    void *ctx;
};

/* How high a format draws an arrow, one to oneself, a message's mark and a note. */
struct heights {
    size_t arrow, self, mark, note;
};

/* How high a thing of a page is drawn: its arrows, and the marks after a message's last. */
size_t draw_height(const struct diagram *d, const struct item *it, const struct heights *h);

/* Cuts the diagram into pages: each as much as fits, a message on the next page when it does not
 * fit whole, and on pages of its own, as many arrows a page as fit, when no page holds it. */
void draw_plan(const struct diagram *d, const struct measures *m, struct plan *plan);
void draw_plan_free(struct plan *plan);
/* Walks a page's notes and arrows in order. */
void draw_page(const struct diagram *d, const struct plan *plan, size_t page,
               const struct draw_sink *sink, void *ctx);
/* The columns of pages first to end - 1, in order, into cols (room for every column): all of
 * them when there is one page. */
size_t draw_page_columns(const struct diagram *d, const struct plan *plan, size_t first, size_t end,
                         size_t *cols);

static inline size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static inline size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The column of the last arrow of r. */
static inline size_t last_to(const struct diagram *d, const struct row *r)
{
    return d->to[r->first + r->n - 1];
}

/* ---- Colours and the legend ---- */

/* The colour a note is drawn in: its severity's, or its outcome's. */
enum tone { TONE_PLAIN, TONE_WARNING, TONE_ERROR, TONE_DONE, TONE_ENDED, TONE_OPEN };

static inline enum tone tone_of_mark(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? TONE_ERROR : mark == MARK_WARNING ? TONE_WARNING : TONE_PLAIN;
}

static inline enum tone tone_of(const struct note *n)
{
    static const enum tone ends[] = {
        [END_DONE] = TONE_DONE,
        [END_ENDED] = TONE_ENDED,
        [END_OPEN] = TONE_OPEN,
        [END_VIOLATED] = TONE_ERROR,
    };
    return n->outcome ? ends[n->end] : tone_of_mark(n->mark);
}

/* The colours of each tone: a stroke, a fill, and the colour's name. */
extern const char *const draw_stroke[];
extern const char *const draw_fill[];
extern const char *const draw_colour_name[];

/* What a diagram holds that its legend explains. */
struct legend {
    bool times;    /* a message with its time */
    bool tones[6]; /* marks and notes of each colour; outcomes apart */
    bool ends[4];  /* outcomes of each kind */
};

/* What pages first to end - 1 hold that a legend explains; the whole diagram without a plan. */
struct legend draw_legend_of(const struct diagram *d, const struct plan *plan, size_t first,
                             size_t end, bool times_shown);

/* How a format words its legend: what it puts before each line, what it colours for an anomaly
 * and where it attaches the diagnostic, and how it writes a word in a colour. */
struct legend_words {
    const char *prefix;   /* "legend: " where the legend is no box of its own */
    const char *coloured; /* what is in colour: "arrow", "box" */
    const char *attached; /* where the diagnostic is: "in a note", "under it" */
    void (*colour)(struct strbuf *out, enum tone tone, const char *word);
};

void draw_plain_word(struct strbuf *out, enum tone tone, const char *word);
/* The legend's lines (the text format draws its own), each appended to out with "\n" after it:
 * what the times say, the colours of anomalies and of outcomes, as far as the diagram has them. */
void draw_legend_lines(const struct legend *l, const struct legend_words *words,
                       struct strbuf *out);

/* ---- The formats ---- */

void draw_mermaid(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
                  struct diagram_fit *fit);
void draw_plantuml(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
                   struct diagram_fit *fit);
void draw_svg(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
              struct diagram_fit *fit);
void draw_flow(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
               struct diagram_fit *fit);

#endif
