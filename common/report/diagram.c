#include "report/diagram.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/strmap.h"
#include "base/utf8.h"

struct finding {
    enum diagram_mark mark;
    char *text;
};

struct arrow {
    size_t from, to;
    char *label;
    struct finding *marks;
    size_t nmarks;
    enum diagram_mark worst;
};

struct note {
    size_t after; /* how many arrows came before it */
    size_t column;
    enum diagram_mark mark;
    char *text;
};

struct diagram {
    enum diagram_format format;
    char *title;            /* NULL for none */
    struct strmap *columns; /* name -> column + 1 */
    char **names;
    size_t nnames, names_cap;
    struct arrow *arrows;
    size_t narrows, arrows_cap;
    struct note *notes;
    size_t nnotes, notes_cap;
};

/* Grows an array of elem-sized items so that it holds at least need of them. */
static void *grow(void *items, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return items;
    size_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    *cap = n;
    return xrealloc(items, n * elem);
}

struct diagram *diagram_new(enum diagram_format format, const char *title)
{
    struct diagram *d = xcalloc(1, sizeof *d);
    d->format = format;
    d->title = title && *title ? xstrdup(title) : NULL;
    d->columns = strmap_new();
    return d;
}

void diagram_free(struct diagram *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->narrows; i++) {
        for (size_t k = 0; k < d->arrows[i].nmarks; k++)
            free(d->arrows[i].marks[k].text);
        free(d->arrows[i].marks);
        free(d->arrows[i].label);
    }
    for (size_t i = 0; i < d->nnotes; i++)
        free(d->notes[i].text);
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i]);
    strmap_free(d->columns, NULL);
    free(d->arrows);
    free(d->notes);
    free(d->names);
    free(d->title);
    free(d);
}

size_t diagram_participant(struct diagram *d, const char *name)
{
    uintptr_t known = (uintptr_t)strmap_get(d->columns, name);
    if (known)
        return (size_t)known - 1;
    d->names = grow(d->names, &d->names_cap, d->nnames + 1, sizeof *d->names);
    d->names[d->nnames] = xstrdup(name);
    strmap_put(d->columns, name, (void *)(uintptr_t)(d->nnames + 1));
    return d->nnames++;
}

size_t diagram_participants(const struct diagram *d)
{
    return d->nnames;
}

size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label)
{
    if (from >= d->nnames || to >= d->nnames)
        return 0;
    d->arrows = grow(d->arrows, &d->arrows_cap, d->narrows + 1, sizeof *d->arrows);
    d->arrows[d->narrows] = (struct arrow){.from = from, .to = to, .label = xstrdup(label)};
    return ++d->narrows;
}

void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic)
{
    if (n == 0 || n > d->narrows)
        return;
    struct arrow *a = &d->arrows[n - 1];
    a->marks = xrealloc(a->marks, (a->nmarks + 1) * sizeof *a->marks);
    a->marks[a->nmarks++] = (struct finding){mark, xstrdup(diagnostic)};
    if (mark > a->worst)
        a->worst = mark;
}

void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text)
{
    if (column >= d->nnames)
        return;
    d->notes = grow(d->notes, &d->notes_cap, d->nnotes + 1, sizeof *d->notes);
    d->notes[d->nnotes++] = (struct note){d->narrows, column, mark, xstrdup(text)};
}

size_t diagram_arrows(const struct diagram *d)
{
    return d->narrows;
}

/* ---- Making a text visible: the first layer, the same for every format. ---- */

/* One visible character of a text: the character itself, or the ASCII escape that stands for a
 * byte or a character that must not be shown as it is. */
struct glyph {
    char text[12];
    size_t len;
    unsigned width; /* columns it takes */
    bool literal;   /* text is the character cp itself */
    unsigned cp;
};

/* Characters shown as escapes, so that two names that differ never look the same: the Unicode
 * categories Cc (C1 controls here: C0 ones and DEL are bytes below 0x80), Cf (invisible, or
 * reordering a line), Zs but U+0020 (blanks that look like a space, or like nothing), Zl and Zp;
 * and non-characters (U+FDD0 to U+FDEF, U+xFFFE and U+xFFFF, which XML 1.0 forbids). Unicode
 * 15.1's tables; U+2065 and the rest of the tags block, unassigned, with their neighbours. */
static bool hidden(unsigned cp)
{
    static const struct {
        unsigned lo, hi;
    } ranges[] = {
        {0x80, 0xa0},       {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},
        {0x6dd, 0x6dd},     {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},
        {0x1680, 0x1680},   {0x180e, 0x180e},   {0x2000, 0x200f},   {0x2028, 0x202f},
        {0x205f, 0x206f},   {0x3000, 0x3000},   {0xfdd0, 0xfdef},   {0xfeff, 0xfeff},
        {0xfff9, 0xfffb},   {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f},
        {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe007f},
    };
    if ((cp & 0xfffe) == 0xfffe)
        return true;
    size_t lo = 0, hi = sizeof ranges / sizeof *ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < ranges[mid].lo)
            hi = mid;
        else if (cp > ranges[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* East Asian wide characters and emoji take two columns of a monospaced font. */
static unsigned char_width(unsigned cp)
{
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
                   (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
                   (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
                   (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) ||
                   (cp >= 0x20000 && cp <= 0x3fffd)
               ? 2
               : 1;
}

/* Makes g the escape backslash, kind, then value in digits hex digits ("\\x1b", "\\u202e"). */
static void set_escape(struct glyph *g, char kind, unsigned value, unsigned digits)
{
    static const char hex[] = "0123456789abcdef";
    g->text[0] = '\\';
    g->text[1] = kind;
    for (unsigned k = 0; k < digits; k++)
        g->text[2 + k] = hex[(value >> (4 * (digits - 1 - k))) & 15];
    g->len = g->width = 2 + digits;
    g->literal = false;
}

/* A text being made visible. The blanks (U+0020) before lead and from trail on are shown as
 * escapes too: "queen " and "queen" must not look alike, and a name's ends cannot be seen. */
struct visible {
    const unsigned char *s;
    size_t len, lead, trail;
    bool ascii; /* escape everything beyond printable ASCII too (the text format) */
};

static struct visible visible_of(const char *s, bool ascii)
{
    struct visible v = {(const unsigned char *)s, strlen(s), 0, 0, ascii};
    while (v.lead < v.len && v.s[v.lead] == ' ')
        v.lead++;
    v.trail = v.len;
    while (v.trail > v.lead && v.s[v.trail - 1] == ' ')
        v.trail--;
    return v;
}

/* Reads the glyph at v->s[i]; returns the index after it. */
static size_t next_glyph(const struct visible *v, size_t i, struct glyph *g)
{
    unsigned char c = v->s[i];
    if (c == '\\') { /* doubled, so that no text can look like an escape */
        set_escape(g, '\\', 0, 0);
        return i + 1;
    }
    if (c == ' ' && (i < v->lead || i >= v->trail)) {
        set_escape(g, 'u', c, 4);
        return i + 1;
    }
    if (c >= 0x20 && c < 0x7f) {
        g->text[0] = (char)c;
        g->len = g->width = 1;
        g->literal = true;
        g->cp = c;
        return i + 1;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
        set_escape(g, c == '\n' ? 'n' : c == '\r' ? 'r' : 't', 0, 0);
        return i + 1;
    }
    size_t n = c < 0x80 ? 0 : utf8_sequence_length(v->s + i, v->len - i);
    if (n == 0) {
        set_escape(g, 'x', c, 2);
        return i + 1;
    }
    unsigned cp = utf8_decode(v->s + i, n);
    if (v->ascii || hidden(cp)) {
        set_escape(g, cp > 0xffff ? 'U' : 'u', cp, cp > 0xffff ? 8 : 4);
    } else {
        memcpy(g->text, v->s + i, n);
        g->len = n;
        g->width = char_width(cp);
        g->literal = true;
        g->cp = cp;
    }
    return i + n;
}

/* ---- Writing a text in a format: the second layer. ---- */

struct writer {
    struct strbuf *out;
    enum diagram_format format;
    unsigned prev; /* the last character written as itself, 0 after a reference */
};

/* Characters Mermaid's sequence grammar never reads as syntax in a message, note or alias. Not
 * the four of the placeholders Mermaid hides its entities behind while it parses ("#38;" becomes
 * U+FB02 U+00B0 "38" U+00B6 U+00DF, turned back into "&#38;" afterwards): written as they are,
 * they would come out as "&" and ";" (a name "a\ufb02\u00b0b" drawn "a&b"). */
static bool mermaid_plain(unsigned cp)
{
    if (cp == 0xfb02 || cp == 0xb0 || cp == 0xb6 || cp == 0xdf)
        return false;
    return cp >= 0x80 || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           (cp >= '0' && cp <= '9') || cp == ' ' || cp == '.' || cp == '-' || cp == '_' ||
           cp == '/';
}

/* Characters PlantUML shows as they are: creole markup is two of a kind ("--", "__", "//"), so a
 * dash, underscore or slash is plain unless it follows one of its own. */
static bool plantuml_plain(unsigned cp, unsigned prev)
{
    if (cp == '-' || cp == '_' || cp == '/')
        return cp != prev;
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == ' ' || cp == '.' || cp == ',' || cp == ':';
}

static void put_char(struct writer *w, unsigned cp, const char *utf8, size_t len)
{
    bool plain = true;
    switch (w->format) {
    case DIAGRAM_TEXT:
        break;
    case DIAGRAM_SVG: {
        const char *ref = cp == '&'    ? "&amp;"
                          : cp == '<'  ? "&lt;"
                          : cp == '>'  ? "&gt;"
                          : cp == '"'  ? "&quot;"
                          : cp == '\'' ? "&#39;"
                                       : NULL;
        if (ref) {
            sb_adds(w->out, ref);
            plain = false;
        }
        break;
    }
    case DIAGRAM_MERMAID:
        if (!mermaid_plain(cp)) {
            sb_addf(w->out, "#%u;", cp);
            plain = false;
        }
        break;
    case DIAGRAM_PLANTUML:
        /* Everything else as a Unicode reference, non-ASCII too: the source stays ASCII, so it
         * reads the same whatever charset PlantUML assumes. (Its &#NN; form breaks on $ and \.) */
        if (!plantuml_plain(cp, w->prev)) {
            sb_addf(w->out, "<U+%04X>", cp);
            plain = false;
        }
        break;
    }
    if (plain)
        sb_add(w->out, utf8, len);
    w->prev = plain ? cp : 0;
}

static void put_glyph(struct writer *w, const struct glyph *g)
{
    if (g->literal) {
        put_char(w, g->cp, g->text, g->len);
        return;
    }
    for (size_t i = 0; i < g->len; i++)
        put_char(w, (unsigned char)g->text[i], g->text + i, 1);
}

/* Writes a fixed ASCII text (a severity word, "..."), escaped like any other. */
static void put_ascii(struct writer *w, const char *s)
{
    for (; *s; s++)
        put_char(w, (unsigned char)*s, s, 1);
}

/* How wide a text is once visible, and how much of it fits in max columns with room for "..."
 * after it (when it does not fit whole). */
struct measure {
    size_t width;
    size_t fit_bytes, fit_width;
};

static struct measure measure(const char *s, size_t max, bool ascii)
{
    struct measure m = {0, 0, 0};
    struct visible v = visible_of(s, ascii);
    bool fits = true;
    struct glyph g;
    if (v.len == 0) {
        m.width = 2; /* shown as "" */
        return m;
    }
    for (size_t i = 0; i < v.len;) {
        size_t next = next_glyph(&v, i, &g);
        m.width += g.width;
        if (fits && m.fit_width + g.width + 3 <= max) {
            m.fit_bytes = next;
            m.fit_width += g.width;
        } else {
            fits = false;
        }
        i = next;
    }
    return m;
}

/* The columns s takes as put_text(s, max) shows it. */
static size_t shown_width(const char *s, size_t max, bool ascii)
{
    struct measure m = measure(s, max, ascii);
    return m.width <= max ? m.width : m.fit_width + 3;
}

/* Writes s made visible, cut to at most max columns (max is at least 4). */
static void put_text(struct writer *w, const char *s, size_t max)
{
    bool ascii = w->format == DIAGRAM_TEXT;
    struct visible v = visible_of(s, ascii);
    w->prev = 0; /* what comes before a text is the format's own syntax */
    if (v.len == 0) {
        put_ascii(w, "\"\"");
        return;
    }
    struct measure m = measure(s, max, ascii);
    bool cut = m.width > max;
    size_t end = cut ? m.fit_bytes : v.len;
    struct glyph g;
    for (size_t i = 0; i < end;) {
        i = next_glyph(&v, i, &g);
        put_glyph(w, &g);
    }
    if (cut)
        put_ascii(w, "...");
}

/* Where a name wider than max columns is cut: its head, "...", then its tail, each about half of
 * what is left, so that names that differ at their end (agent-000001, agent-000002) stay apart. */
struct name_cut {
    size_t head_end, tail_start; /* bytes */
    size_t width;
};

static struct name_cut cut_name(const char *s, size_t max, bool ascii)
{
    struct measure m = measure(s, max, ascii);
    struct visible v = visible_of(s, ascii);
    struct name_cut c = {v.len, v.len, m.width};
    if (m.width <= max)
        return c;
    size_t head = (max - 3 + 1) / 2, tail = max - 3 - head, head_w = 0, tail_w = 0, at = 0;
    bool in_head = true;
    struct glyph g;
    c.head_end = 0;
    for (size_t i = 0; i < v.len;) {
        size_t next = next_glyph(&v, i, &g);
        if (in_head && at + g.width <= head) {
            c.head_end = next;
            head_w = at + g.width;
        } else {
            in_head = false;
        }
        if (c.tail_start == v.len && !in_head && m.width - at <= tail) {
            c.tail_start = i;
            tail_w = m.width - at;
        }
        at += g.width;
        i = next;
    }
    c.width = head_w + 3 + tail_w;
    return c;
}

/* The columns a name takes as put_name(s, max) shows it. */
static size_t name_width(const char *s, size_t max, bool ascii)
{
    return cut_name(s, max, ascii).width;
}

/* Writes a name made visible, cut in the middle to at most max columns (max is at least 5). */
static void put_name(struct writer *w, const char *s, size_t max)
{
    bool ascii = w->format == DIAGRAM_TEXT;
    struct visible v = visible_of(s, ascii);
    struct name_cut c = cut_name(s, max, ascii);
    if (c.head_end == v.len) {
        put_text(w, s, max);
        return;
    }
    w->prev = 0;
    struct glyph g;
    for (size_t i = 0; i < c.head_end;) {
        i = next_glyph(&v, i, &g);
        put_glyph(w, &g);
    }
    put_ascii(w, "...");
    for (size_t i = c.tail_start; i < v.len;) {
        i = next_glyph(&v, i, &g);
        put_glyph(w, &g);
    }
}

static const char *mark_word(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? "error: " : mark == MARK_WARNING ? "warning: " : "";
}

/* A finding or a note: its severity, then its text. */
static void put_finding(struct writer *w, enum diagram_mark mark, const char *text, size_t max)
{
    put_ascii(w, mark_word(mark));
    put_text(w, text, max);
}

/* ---- Walking the diagram in order: arrows, each followed by its marks, and the notes. ---- */

struct sink {
    void (*arrow)(void *ctx, const struct arrow *a, size_t number);
    void (*note)(void *ctx, const struct note *n);
};

static void walk(const struct diagram *d, const struct sink *sink, void *ctx)
{
    size_t k = 0;
    for (size_t a = 0;; a++) {
        for (; k < d->nnotes && d->notes[k].after == a; k++)
            sink->note(ctx, &d->notes[k]);
        if (a == d->narrows)
            break;
        sink->arrow(ctx, &d->arrows[a], a + 1);
    }
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* ---- Mermaid ---- */

enum {
    SOURCE_NAME_MAX = 64,
    SOURCE_LABEL_MAX = 100,
    SOURCE_NOTE_MAX = 300,
    SOURCE_TITLE_MAX = 200
};

static const char *mermaid_rect(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? "    rect rgb(255, 205, 210)\n" : "    rect rgb(255, 224, 178)\n";
}

static void mermaid_note(struct writer *w, size_t a, size_t b, enum diagram_mark mark,
                         const char *text)
{
    sb_addf(w->out, "    Note over p%zu", min_size(a, b) + 1);
    if (a != b)
        sb_addf(w->out, ",p%zu", max_size(a, b) + 1);
    sb_adds(w->out, ": ");
    put_finding(w, mark, text, SOURCE_NOTE_MAX);
    sb_addc(w->out, '\n');
}

static void mermaid_arrow(void *ctx, const struct arrow *a, size_t number)
{
    struct writer *w = ctx;
    (void)number;
    bool boxed = a->worst != MARK_NONE;
    if (boxed)
        sb_adds(w->out, mermaid_rect(a->worst));
    sb_addf(w->out, "    p%zu->>p%zu: ", a->from + 1, a->to + 1);
    put_text(w, a->label, SOURCE_LABEL_MAX);
    sb_addc(w->out, '\n');
    for (size_t k = 0; k < a->nmarks; k++)
        mermaid_note(w, a->from, a->to, a->marks[k].mark, a->marks[k].text);
    if (boxed)
        sb_adds(w->out, "    end\n");
}

static void mermaid_standalone_note(void *ctx, const struct note *n)
{
    struct writer *w = ctx;
    if (n->mark != MARK_NONE)
        sb_adds(w->out, mermaid_rect(n->mark));
    mermaid_note(w, n->column, n->column, n->mark, n->text);
    if (n->mark != MARK_NONE)
        sb_adds(w->out, "    end\n");
}

static void write_mermaid(const struct diagram *d, struct writer *w)
{
    sb_adds(w->out, "sequenceDiagram\n");
    if (d->title) {
        sb_adds(w->out, "    title ");
        put_text(w, d->title, SOURCE_TITLE_MAX);
        sb_addc(w->out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_addf(w->out, "    participant p%zu as ", i + 1);
        put_name(w, d->names[i], SOURCE_NAME_MAX);
        sb_addc(w->out, '\n');
    }
    static const struct sink sink = {mermaid_arrow, mermaid_standalone_note};
    walk(d, &sink, w);
}

/* ---- PlantUML ---- */

static const char *plantuml_colour(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? "#C62828" : mark == MARK_WARNING ? "#B26A00" : NULL;
}

static const char *plantuml_note_colour(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? " #FFCDD2" : mark == MARK_WARNING ? " #FFE0B2" : "";
}

static void plantuml_note(struct writer *w, size_t a, size_t b, enum diagram_mark mark,
                          const char *text)
{
    sb_addf(w->out, "note over p%zu", min_size(a, b) + 1);
    if (a != b)
        sb_addf(w->out, ", p%zu", max_size(a, b) + 1);
    sb_addf(w->out, "%s : ", plantuml_note_colour(mark));
    put_finding(w, mark, text, SOURCE_NOTE_MAX);
    sb_addc(w->out, '\n');
}

static void plantuml_arrow(void *ctx, const struct arrow *a, size_t number)
{
    struct writer *w = ctx;
    const char *colour = plantuml_colour(a->worst);
    (void)number;
    if (colour)
        sb_addf(w->out, "p%zu -[%s]> p%zu : ", a->from + 1, colour, a->to + 1);
    else
        sb_addf(w->out, "p%zu -> p%zu : ", a->from + 1, a->to + 1);
    put_text(w, a->label, SOURCE_LABEL_MAX);
    sb_addc(w->out, '\n');
    for (size_t k = 0; k < a->nmarks; k++)
        plantuml_note(w, a->from, a->to, a->marks[k].mark, a->marks[k].text);
}

static void plantuml_standalone_note(void *ctx, const struct note *n)
{
    plantuml_note(ctx, n->column, n->column, n->mark, n->text);
}

static void write_plantuml(const struct diagram *d, struct writer *w)
{
    sb_adds(w->out, "@startuml\n");
    if (d->title) {
        sb_adds(w->out, "title ");
        put_text(w, d->title, SOURCE_TITLE_MAX);
        sb_addc(w->out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_adds(w->out, "participant \"");
        put_name(w, d->names[i], SOURCE_NAME_MAX);
        sb_addf(w->out, "\" as p%zu\n", i + 1);
    }
    static const struct sink sink = {plantuml_arrow, plantuml_standalone_note};
    walk(d, &sink, w);
    sb_adds(w->out, "@enduml\n");
}

/* ---- Text: an ASCII flow for a terminal ---- */

/* A gutter for the arrow's number and its flag, then the columns, gap characters apart; names
 * are cut to TEXT_NAME_MAX and labels to the room between their columns, so columns stay aligned
 * whatever the input. */
enum { TEXT_GUTTER = 8, TEXT_NAME_MAX = 20, TEXT_LABEL_MAX = 40, TEXT_MIN_GAP = 10 };

struct text_ctx {
    const struct diagram *d;
    struct strbuf *out;
    const struct diagram_flush *flush; /* NULL: out holds it all */
    struct strbuf tmp;
    char *row;
    size_t gap, width;
};

static size_t text_x(const struct text_ctx *t, size_t column)
{
    return TEXT_GUTTER + t->gap / 2 + column * t->gap;
}

/* s made visible in at most max columns, in t->tmp. */
static const char *text_visible(struct text_ctx *t, const char *s, size_t max)
{
    struct writer w = {&t->tmp, DIAGRAM_TEXT, 0};
    sb_reset(&t->tmp);
    put_text(&w, s, max);
    return t->tmp.buf;
}

/* Starts a row: blank, with every lifeline. */
static void text_row(struct text_ctx *t)
{
    memset(t->row, ' ', t->width);
    for (size_t i = 0; i < t->d->nnames; i++)
        t->row[text_x(t, i)] = '|';
}

static void text_emit(struct text_ctx *t)
{
    size_t len = t->width;
    while (len > 0 && t->row[len - 1] == ' ')
        len--;
    sb_add(t->out, t->row, len);
    sb_addc(t->out, '\n');
    if (t->flush && t->out->len >= DIAGRAM_FLUSH_BYTES)
        t->flush->flush(t->flush->ctx, t->out);
}

static void text_put(struct text_ctx *t, size_t at, const char *s)
{
    if (at < t->width)
        memcpy(t->row + at, s, min_size(strlen(s), t->width - at));
}

static char text_flag(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? 'X' : mark == MARK_WARNING ? '!' : '*';
}

/* A note row: the lifelines left of the column, then the flag and the text. */
static void text_note(struct text_ctx *t, size_t column, enum diagram_mark mark, const char *text)
{
    text_row(t);
    size_t x = text_x(t, column);
    sb_add(t->out, t->row, x);
    sb_addc(t->out, text_flag(mark));
    sb_addc(t->out, ' ');
    struct writer w = {t->out, DIAGRAM_TEXT, 0};
    put_finding(&w, mark, text, SOURCE_NOTE_MAX);
    sb_addc(t->out, '\n');
}

static void text_gutter(struct text_ctx *t, size_t number, enum diagram_mark worst)
{
    char gutter[32];
    snprintf(gutter, sizeof gutter, "%6zu%c", number, worst ? text_flag(worst) : ' ');
    memcpy(t->row, gutter, min_size(strlen(gutter), TEXT_GUTTER - 1));
}

static void text_arrow(void *ctx, const struct arrow *a, size_t number)
{
    struct text_ctx *t = ctx;
    size_t xf = text_x(t, a->from), xt = text_x(t, a->to);
    text_row(t);
    text_gutter(t, number, a->worst);
    if (a->from == a->to) {
        text_put(t, xf + 1, "--+ ");
        text_put(t, xf + 5, text_visible(t, a->label, t->gap - 6));
        text_emit(t);
        text_row(t);
        text_put(t, xf + 1, "<-+");
    } else {
        size_t left = min_size(xf, xt), right = max_size(xf, xt);
        size_t span = right - left - 1;
        memset(t->row + left + 1, '-', span);
        t->row[xf < xt ? right - 1 : left + 1] = xf < xt ? '>' : '<';
        /* Centred on the shaft: the span less the head. */
        const char *label = text_visible(t, a->label, min_size(span - 4, TEXT_LABEL_MAX));
        size_t shaft = left + 1 + (xf < xt ? 0 : 1);
        text_put(t, shaft + (span - 1 - strlen(label)) / 2, label);
    }
    text_emit(t);
    for (size_t k = 0; k < a->nmarks; k++)
        text_note(t, min_size(a->from, a->to), a->marks[k].mark, a->marks[k].text);
}

static void text_standalone_note(void *ctx, const struct note *n)
{
    struct text_ctx *t = ctx;
    text_note(t, n->column, n->mark, n->text);
}

static void write_text(const struct diagram *d, struct strbuf *out,
                       const struct diagram_flush *flush)
{
    struct text_ctx t = {.d = d, .out = out, .flush = flush, .tmp = STRBUF_INIT};
    size_t name_w = 0, label_w = 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, shown_width(d->names[i], TEXT_NAME_MAX, true));
    for (size_t i = 0; i < d->narrows; i++)
        label_w = max_size(label_w, shown_width(d->arrows[i].label, TEXT_LABEL_MAX, true));
    t.gap = max_size(TEXT_MIN_GAP, max_size(name_w + 2, label_w + 6));
    /* Half a gap more: the label of an arrow to oneself in the last column. */
    t.width = TEXT_GUTTER + d->nnames * t.gap + t.gap / 2;
    t.row = xmalloc(t.width + 1);
    if (d->title) {
        struct writer w = {out, DIAGRAM_TEXT, 0};
        put_text(&w, d->title, SOURCE_TITLE_MAX);
        sb_adds(out, "\n\n");
    }
    memset(t.row, ' ', t.width);
    for (size_t i = 0; i < d->nnames; i++) {
        const char *name = text_visible(&t, d->names[i], min_size(TEXT_NAME_MAX, t.gap - 2));
        text_put(&t, text_x(&t, i) - strlen(name) / 2, name);
    }
    text_emit(&t);
    text_row(&t);
    text_emit(&t);
    static const struct sink sink = {text_arrow, text_standalone_note};
    walk(d, &sink, &t);
    text_row(&t);
    text_emit(&t);
    free(t.row);
    sb_free(&t.tmp);
}

/* ---- SVG, drawn here: one self-contained file, nothing external ---- */

/* Sizes in pixels of a 12 px monospaced font, whose characters are 0.6 em (7.2 px) wide. */
enum {
    SVG_MARGIN = 16,
    SVG_TITLE_H = 30,
    SVG_BOX_H = 28,
    SVG_ROW = 30,
    SVG_SELF_ROW = 42,
    SVG_NOTE_ROW = 28,
    SVG_MIN_GAP = 110,
    SVG_MIN_WIDTH = 160,
    SVG_NAME_MAX = 24,
    SVG_LABEL_MAX = 40,
    SVG_NOTE_MAX = 120,
    SVG_TITLE_MAX = 100,
    SVG_TIP_MAX = 2000,
};

static const char svg_font[] = "DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace";

static size_t svg_px(size_t columns)
{
    return (columns * 36 + 4) / 5;
}

struct svg_ctx {
    struct writer w; /* writes to the body */
    size_t gap, y, right;
};

static size_t svg_x(const struct svg_ctx *s, size_t column)
{
    return SVG_MARGIN + s->gap / 2 + column * s->gap;
}

static const char *svg_colour(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? "#c62828" : mark == MARK_WARNING ? "#b26a00" : "#333333";
}

static void svg_arrow(void *ctx, const struct arrow *a, size_t number)
{
    struct svg_ctx *s = ctx;
    struct strbuf *out = s->w.out;
    size_t xf = svg_x(s, a->from), xt = svg_x(s, a->to), y = s->y;
    const char *colour = svg_colour(a->worst);
    unsigned stroke = a->worst != MARK_NONE ? 2 : 1;
    sb_addf(out, "<g class=\"arrow\" id=\"arrow-%zu\">\n<title>", number);
    put_text(&s->w, a->label, SVG_TIP_MAX);
    for (size_t k = 0; k < a->nmarks; k++) {
        sb_addc(out, '\n');
        put_finding(&s->w, a->marks[k].mark, a->marks[k].text, SVG_TIP_MAX);
    }
    sb_adds(out, "</title>\n");
    if (a->from == a->to) {
        size_t line = y + 18, back = y + 32;
        sb_addf(out,
                "<path d=\"M%zu %zu H%zu V%zu H%zu\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"%u\"/>\n",
                xf, line, xf + 28, back, xf + 9, colour, stroke);
        sb_addf(out, "<polygon points=\"%zu,%zu %zu,%zu %zu,%zu\" fill=\"%s\"/>\n", xf, back,
                xf + 10, back - 4, xf + 10, back + 4, colour);
        size_t max = min_size((s->gap - 24) * 5 / 36, SVG_LABEL_MAX);
        sb_addf(out, "<text x=\"%zu\" y=\"%zu\" fill=\"%s\">", xf + 6, y + 12, colour);
        put_text(&s->w, a->label, max);
        /* Right of the last column, the label may reach past the columns. */
        s->right = max_size(s->right, xf + 6 + svg_px(shown_width(a->label, max, false)));
        s->y += SVG_SELF_ROW;
    } else {
        size_t line = y + 20, left = min_size(xf, xt), right = max_size(xf, xt);
        bool forward = xf < xt;
        size_t tip = xt, base = forward ? xt - 10 : xt + 10;
        sb_addf(out, "<path d=\"M%zu %zu H%zu\" stroke=\"%s\" stroke-width=\"%u\"/>\n", xf, line,
                forward ? xt - 8 : xt + 8, colour, stroke);
        sb_addf(out, "<polygon points=\"%zu,%zu %zu,%zu %zu,%zu\" fill=\"%s\"/>\n", tip, line, base,
                line - 4, base, line + 4, colour);
        size_t max = (right - left - 16) * 5 / 36;
        sb_addf(out, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\" fill=\"%s\">",
                (left + right) / 2, y + 13, colour);
        put_text(&s->w, a->label, min_size(max, SVG_LABEL_MAX));
        s->y += SVG_ROW;
    }
    sb_adds(out, "</text>\n</g>\n");
}

static void svg_note(void *ctx, const struct note *n)
{
    static const char *const fill[] = {"#fffde7", "#fff3e0", "#ffebee"};
    static const char *const edge[] = {"#9e9d24", "#b26a00", "#c62828"};
    struct svg_ctx *s = ctx;
    struct strbuf *out = s->w.out;
    size_t x = svg_x(s, n->column) - 12, y = s->y;
    size_t w = svg_px(strlen(mark_word(n->mark)) + shown_width(n->text, SVG_NOTE_MAX, false)) + 16;
    sb_adds(out, "<g class=\"note\">\n<title>");
    put_finding(&s->w, n->mark, n->text, SVG_TIP_MAX);
    sb_adds(out, "</title>\n");
    sb_addf(out,
            "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"20\" rx=\"3\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            x, y + 4, w, fill[n->mark], edge[n->mark]);
    sb_addf(out, "<text x=\"%zu\" y=\"%zu\">", x + 8, y + 18);
    put_finding(&s->w, n->mark, n->text, SVG_NOTE_MAX);
    sb_adds(out, "</text>\n</g>\n");
    s->right = max_size(s->right, x + w);
    s->y += SVG_NOTE_ROW;
}

/* The marks of an arrow are in its colour and tooltip; notes are for notes only. */
static void write_svg(const struct diagram *d, struct strbuf *out)
{
    struct strbuf body = STRBUF_INIT;
    struct svg_ctx s = {.w = {&body, DIAGRAM_SVG, 0}};
    size_t name_w = 0, label_w = 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, name_width(d->names[i], SVG_NAME_MAX, false));
    for (size_t i = 0; i < d->narrows; i++)
        label_w = max_size(label_w, shown_width(d->arrows[i].label, SVG_LABEL_MAX, false));
    s.gap = max_size(SVG_MIN_GAP, max_size(svg_px(name_w) + 40, svg_px(label_w) + 40));
    size_t top = SVG_MARGIN + (d->title ? SVG_TITLE_H : 0);
    s.y = top + SVG_BOX_H + 12;
    s.right = SVG_MARGIN + d->nnames * s.gap;
    static const struct sink sink = {svg_arrow, svg_note};
    sb_add(&body, "", 0);
    walk(d, &sink, &s);
    size_t height = s.y + 12 + SVG_MARGIN;
    size_t width = max_size(SVG_MIN_WIDTH, s.right + SVG_MARGIN);
    if (d->title)
        width = max_size(width, 2 * SVG_MARGIN +
                                    svg_px(shown_width(d->title, SVG_TITLE_MAX, false)) * 7 / 6);

    struct writer w = {out, DIAGRAM_SVG, 0};
    sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_addf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%zu\" "
            "height=\"%zu\" viewBox=\"0 0 %zu %zu\" font-family=\"%s\" font-size=\"12\" "
            "xml:space=\"preserve\">\n<title>",
            width, height, width, height, svg_font);
    if (d->title)
        put_text(&w, d->title, SVG_TIP_MAX);
    else
        sb_adds(out, "sequence diagram");
    sb_adds(out, "</title>\n");
    sb_addf(out, "<rect width=\"%zu\" height=\"%zu\" fill=\"#ffffff\"/>\n", width, height);
    if (d->title) {
        sb_addf(out,
                "<text class=\"title\" x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">",
                SVG_MARGIN, SVG_MARGIN + 16);
        put_text(&w, d->title, SVG_TITLE_MAX);
        sb_adds(out, "</text>\n");
    }
    for (size_t i = 0; i < d->nnames; i++) {
        size_t x = svg_x(&s, i);
        size_t box = svg_px(name_width(d->names[i], SVG_NAME_MAX, false)) + 16;
        sb_addf(out, "<g class=\"participant\" id=\"participant-%zu\">\n<title>", i + 1);
        put_text(&w, d->names[i], SVG_TIP_MAX);
        sb_adds(out, "</title>\n");
        sb_addf(out,
                "<line class=\"lifeline\" x1=\"%zu\" y1=\"%zu\" x2=\"%zu\" y2=\"%zu\" "
                "stroke=\"#999999\" stroke-dasharray=\"4 3\"/>\n",
                x, top + SVG_BOX_H, x, height - SVG_MARGIN);
        sb_addf(out,
                "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%d\" rx=\"4\" fill=\"#e8eaf6\" "
                "stroke=\"#3949ab\"/>\n",
                x - box / 2, top, box, SVG_BOX_H);
        sb_addf(out, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\">", x, top + 18);
        put_name(&w, d->names[i], SVG_NAME_MAX);
        sb_adds(out, "</text>\n</g>\n");
    }
    sb_add(out, body.buf, body.len);
    sb_adds(out, "</svg>\n");
    sb_free(&body);
}

void diagram_write(const struct diagram *d, struct strbuf *out)
{
    diagram_write_flushing(d, out, NULL);
}

void diagram_write_flushing(const struct diagram *d, struct strbuf *out,
                            const struct diagram_flush *flush)
{
    struct writer w = {out, d->format, 0};
    switch (d->format) {
    case DIAGRAM_MERMAID:
        write_mermaid(d, &w);
        break;
    case DIAGRAM_PLANTUML:
        write_plantuml(d, &w);
        break;
    case DIAGRAM_SVG:
        write_svg(d, out);
        break;
    case DIAGRAM_TEXT:
        write_text(d, out, flush);
        break;
    }
}
