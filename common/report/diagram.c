#include "report/diagram.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/timeutil.h"
#include "base/utf8.h"

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
    struct strmap *columns; /* name -> column + 1 */
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
    for (size_t i = 0; i < d->nrows; i++) {
        for (size_t k = 0; k < d->rows[i].nmarks; k++)
            free(d->rows[i].marks[k].text);
        free(d->rows[i].marks);
        free(d->rows[i].label);
    }
    for (size_t i = 0; i < d->nnotes; i++)
        free(d->notes[i].text);
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i]);
    for (size_t i = 0; i < d->nfiles; i++)
        free(d->files[i]);
    strmap_free(d->columns, NULL);
    free(d->rows);
    free(d->to);
    free(d->notes);
    free(d->names);
    free(d->files);
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

/* The file's copy the rows share: messages come file after file, so it is the last one but when
 * a file starts. */
static const char *file_of(struct diagram *d, const char *file)
{
    if (!file)
        return NULL;
    if (!d->nfiles || strcmp(d->files[d->nfiles - 1], file) != 0) {
        d->files = xrealloc(d->files, (d->nfiles + 1) * sizeof *d->files);
        d->files[d->nfiles++] = xstrdup(file);
    }
    return d->files[d->nfiles - 1];
}

size_t diagram_message(struct diagram *d, const struct diagram_message *m)
{
    if (m->from >= d->nnames || m->nto == 0)
        return 0;
    for (size_t i = 0; i < m->nto; i++)
        if (m->to[i] >= d->nnames)
            return 0;
    d->to = grow(d->to, &d->to_cap, d->nto + m->nto, sizeof *d->to);
    memcpy(d->to + d->nto, m->to, m->nto * sizeof *m->to);
    d->rows = grow(d->rows, &d->rows_cap, d->nrows + 1, sizeof *d->rows);
    d->rows[d->nrows++] = (struct row){
        .from = m->from,
        .first = d->nto,
        .n = m->nto,
        .label = xstrdup(m->label),
        .file = file_of(d, m->file),
        .line = m->line,
        .time = m->time,
        .delta = m->delta,
    };
    d->nto += m->nto;
    return d->nto - m->nto + 1;
}

size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label)
{
    return diagram_message(
        d, &(struct diagram_message){
               .from = from, .to = &to, .nto = 1, .label = label, .time = NAN, .delta = NAN});
}

/* The message of arrow n (from 1), or NULL. */
static struct row *row_of(const struct diagram *d, size_t n)
{
    if (n == 0 || n > d->nto)
        return NULL;
    size_t lo = 0, hi = d->nrows;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->rows[mid].first < n)
            lo = mid;
        else
            hi = mid;
    }
    return &d->rows[lo];
}

void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic)
{
    struct row *r = row_of(d, n);
    if (!r)
        return;
    r->marks = xrealloc(r->marks, (r->nmarks + 1) * sizeof *r->marks);
    r->marks[r->nmarks++] = (struct finding){mark, xstrdup(diagnostic)};
    if (mark > r->worst)
        r->worst = mark;
}

static void add_note(struct diagram *d, const struct note *n)
{
    d->notes = grow(d->notes, &d->notes_cap, d->nnotes + 1, sizeof *d->notes);
    d->notes[d->nnotes] = *n;
    d->notes[d->nnotes++].text = xstrdup(n->text);
}

void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text)
{
    if (column >= d->nnames)
        return;
    add_note(d,
             &(struct note){
                 .after = d->nrows, .a = column, .b = column, .mark = mark, .text = (char *)text});
}

void diagram_outcome(struct diagram *d, size_t n, enum diagram_end end, const char *text)
{
    const struct row *r = row_of(d, n);
    if (!r)
        return;
    add_note(d, &(struct note){.after = (size_t)(r - d->rows) + 1,
                               .a = r->from,
                               .b = d->to[r->first + r->n - 1],
                               .outcome = true,
                               .end = end,
                               .text = (char *)text});
}

size_t diagram_arrows(const struct diagram *d)
{
    return d->nto;
}

/* ---- Times, as the diagrams write them ---- */

void diagram_duration(double seconds, char *buf, size_t size)
{
    const char *sign = seconds < 0 ? "-" : "";
    double magnitude = fabs(seconds);
    if (!(magnitude < 1e15)) {
        snprintf(buf, size, "%s%.3gs", sign, magnitude);
        return;
    }
    long long ms = llround(magnitude * 1000);
    if (ms < 60000) {
        long long whole = ms / 1000, frac = ms % 1000;
        if (!frac) {
            snprintf(buf, size, "%s%llds", sign, whole);
            return;
        }
        int digits = frac % 100 == 0 ? 1 : frac % 10 == 0 ? 2 : 3;
        long long shown = digits == 1 ? frac / 100 : digits == 2 ? frac / 10 : frac;
        snprintf(buf, size, "%s%lld.%0*llds", sign, whole, digits, shown);
        return;
    }
    long long s = (ms + 500) / 1000;
    long long days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60, secs = s % 60;
    if (days)
        snprintf(buf, size, "%s%lldd%02lldh%02lldm%02llds", sign, days, hours, minutes, secs);
    else if (hours)
        snprintf(buf, size, "%s%lldh%02lldm%02llds", sign, hours, minutes, secs);
    else
        snprintf(buf, size, "%s%lldm%02llds", sign, minutes, secs);
}

/* When messages were sent, as a page shows it: the time of day (UTC), with its date on the first
 * message of the page and whenever the date changes, then the delta. */
struct when {
    bool shown;     /* times are drawn at all */
    long long day;  /* the day of the last time written on this page */
    bool day_known; /* one was */
};

enum { WHEN_SIZE = 96 };

/* Writes what w shows of r's time into buf ("" when nothing). */
static void when_text(struct when *w, const struct row *r, char *buf)
{
    char stamp[48];
    buf[0] = '\0';
    if (!w->shown || isnan(r->time) || !time_format_rfc3339_ms(r->time, stamp, sizeof stamp))
        return;
    long long day = (long long)floor(r->time / 86400);
    bool dated = !w->day_known || day != w->day;
    w->day = day;
    w->day_known = true;
    stamp[10] = ' ';
    stamp[strlen(stamp) - 1] = '\0'; /* the Z: the legend says UTC */
    size_t len = (size_t)snprintf(buf, WHEN_SIZE, "%s", dated ? stamp : stamp + 11);
    if (!isnan(r->delta)) {
        char delta[DIAGRAM_DURATION_SIZE];
        diagram_duration(r->delta, delta, sizeof delta);
        snprintf(buf + len, WHEN_SIZE - len, " %s%s", r->delta < 0 ? "" : "+", delta);
    }
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

/* ---- Walking the diagram in order: messages, each followed by its marks, and the notes ---- */

struct sink {
    void (*row)(void *ctx, const struct row *r, size_t number); /* number: its first arrow's */
    void (*note)(void *ctx, const struct note *n);
};

/* The notes in the order they are drawn: by the messages before them, then as they were added
 * (a counting sort: an outcome is added after the messages that followed its conversation's). */
static size_t *notes_in_order(const struct diagram *d)
{
    size_t *start = xcalloc(d->nrows + 2, sizeof *start);
    size_t *order = xmalloc((d->nnotes ? d->nnotes : 1) * sizeof *order);
    for (size_t i = 0; i < d->nnotes; i++)
        start[d->notes[i].after + 1]++;
    for (size_t r = 1; r <= d->nrows + 1; r++)
        start[r] += start[r - 1];
    for (size_t i = 0; i < d->nnotes; i++)
        order[start[d->notes[i].after]++] = i;
    free(start);
    return order;
}

static void walk(const struct diagram *d, const struct sink *sink, void *ctx)
{
    size_t *order = notes_in_order(d), k = 0;
    for (size_t r = 0;; r++) {
        for (; k < d->nnotes && d->notes[order[k]].after == r; k++)
            sink->note(ctx, &d->notes[order[k]]);
        if (r == d->nrows)
            break;
        sink->row(ctx, &d->rows[r], d->rows[r].first + 1);
    }
    free(order);
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The column of the last arrow of r. */
static size_t last_to(const struct diagram *d, const struct row *r)
{
    return d->to[r->first + r->n - 1];
}

/* ---- What a diagram shows, for its legend, and in which colours ---- */

/* The colour a note is drawn in: its severity's, or its outcome's. */
enum tone { TONE_PLAIN, TONE_WARNING, TONE_ERROR, TONE_DONE, TONE_ENDED, TONE_OPEN };

static enum tone tone_of_mark(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? TONE_ERROR : mark == MARK_WARNING ? TONE_WARNING : TONE_PLAIN;
}

static enum tone tone_of(const struct note *n)
{
    static const enum tone ends[] = {
        [END_DONE] = TONE_DONE,
        [END_ENDED] = TONE_ENDED,
        [END_OPEN] = TONE_OPEN,
        [END_VIOLATED] = TONE_ERROR,
    };
    return n->outcome ? ends[n->end] : tone_of_mark(n->mark);
}

/* Anomalies in colours no renderer draws with by default (PlantUML's arrows are #A80036, or
 * #181818 since 2023; Mermaid's and ours #333333): magenta for an error, orange for a warning;
 * outcomes green (done), grey (ended otherwise), yellow (open, timed out), magenta (violated). */
static const char *const tone_stroke[] = {"#9e9d24", "#b26a00", "#c000c0",
                                          "#2e7d32", "#616161", "#9e9d24"};
static const char *const tone_fill[] = {"#fffde7", "#ffe0b2", "#f8d0f8",
                                        "#c8e6c9", "#e0e0e0", "#fff59d"};
static const char *const tone_name[] = {"", "orange", "magenta", "green", "grey", "yellow"};

/* What a diagram holds that its legend explains. */
struct legend {
    bool times;    /* a message with its time */
    bool tones[6]; /* marks and notes of each colour; outcomes apart */
    bool ends[4];  /* outcomes of each kind */
};

static struct legend legend_of(const struct diagram *d, bool times_shown)
{
    struct legend l = {0};
    for (size_t i = 0; i < d->nrows; i++) {
        l.times = l.times || (times_shown && !isnan(d->rows[i].time));
        l.tones[tone_of_mark(d->rows[i].worst)] = true;
    }
    for (size_t i = 0; i < d->nnotes; i++) {
        if (d->notes[i].outcome)
            l.ends[d->notes[i].end] = true;
        else
            l.tones[tone_of(&d->notes[i])] = true;
    }
    return l;
}

static bool legend_has_outcomes(const struct legend *l)
{
    return l->ends[END_DONE] || l->ends[END_ENDED] || l->ends[END_OPEN] || l->ends[END_VIOLATED];
}

/* How a format words its legend: what it puts before each line, what it colours for an anomaly
 * and where it attaches the diagnostic, and how it writes a word in a colour. */
struct legend_words {
    const char *prefix;   /* "legend: " where the legend is no box of its own */
    const char *coloured; /* what is in colour: "arrow", "box" */
    const char *attached; /* where the diagnostic is: "in a note", "under it" */
    void (*colour)(struct strbuf *out, enum tone tone, const char *word);
};

static void plain_word(struct strbuf *out, enum tone tone, const char *word)
{
    (void)tone;
    sb_adds(out, word);
}

/* The legend's lines (the text format draws its own), each appended to out with "\n" after it:
 * what the times say, the colours of anomalies and of outcomes, as far as the diagram has them. */
static void legend_lines(const struct legend *l, const struct legend_words *words,
                         struct strbuf *out)
{
    static const char *const end_words[] = {"done", "ended otherwise", "still open or timed out",
                                            "violated"};
    static const enum tone end_tones[] = {TONE_DONE, TONE_ENDED, TONE_OPEN, TONE_ERROR};
    if (l->times)
        sb_addf(out,
                "%stimes: when each message was sent (UTC), then +how long after the previous "
                "message of its conversation\n",
                words->prefix);
    if (l->tones[TONE_ERROR] || l->tones[TONE_WARNING]) {
        sb_adds(out, words->prefix);
        for (enum tone tone = TONE_ERROR; tone >= TONE_WARNING; tone--) {
            if (!l->tones[tone])
                continue;
            words->colour(out, tone, tone_name[tone]);
            sb_addf(out, " %s: %s, ", words->coloured,
                    tone == TONE_ERROR ? "an error" : "a warning");
        }
        sb_addf(out, "each diagnostic %s\n", words->attached);
    }
    if (legend_has_outcomes(l)) {
        sb_addf(out, "%show each conversation ended, at its last message:", words->prefix);
        for (int e = END_DONE; e <= END_VIOLATED; e++) {
            if (!l->ends[e])
                continue;
            sb_adds(out, " ");
            words->colour(out, end_tones[e], tone_name[end_tones[e]]);
            sb_addf(out, " %s,", end_words[e]);
        }
        out->buf[--out->len] = '\n';
    }
}

/* ---- Mermaid ---- */

enum {
    SOURCE_NAME_MAX = 64,
    SOURCE_LABEL_MAX = 100,
    SOURCE_NOTE_MAX = 300,
    SOURCE_TITLE_MAX = 200
};

/* Mermaid colours no arrow: a box behind the messages and notes of a tone. */
static void mermaid_rect(struct strbuf *out, enum tone tone)
{
    static const char *const rgb[] = {"",
                                      "rgb(255, 224, 178)",
                                      "rgb(248, 208, 248)",
                                      "rgb(200, 230, 201)",
                                      "rgb(224, 224, 224)",
                                      "rgb(255, 245, 157)"};
    sb_addf(out, "    rect %s\n", rgb[tone]);
}

struct mermaid {
    const struct diagram *d;
    struct writer w;
    struct when when;
};

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

/* Our own words, which hold no ';' or '#' and begin with no "wrap:", go as they are in a
 * message's text. */
static void mermaid_row(void *ctx, const struct row *r, size_t number)
{
    struct mermaid *m = ctx;
    struct strbuf *out = m->w.out;
    char when[WHEN_SIZE];
    (void)number;
    when_text(&m->when, r, when);
    bool boxed = r->worst != MARK_NONE;
    if (boxed)
        mermaid_rect(out, tone_of_mark(r->worst));
    for (size_t i = 0; i < r->n; i++) {
        sb_addf(out, "    p%zu->>p%zu: %s%s", r->from + 1, m->d->to[r->first + i] + 1, when,
                *when ? " " : "");
        put_text(&m->w, r->label, SOURCE_LABEL_MAX);
        sb_addc(out, '\n');
    }
    for (size_t k = 0; k < r->nmarks; k++)
        mermaid_note(&m->w, r->from, last_to(m->d, r), r->marks[k].mark, r->marks[k].text);
    if (boxed)
        sb_adds(out, "    end\n");
}

static void mermaid_standalone_note(void *ctx, const struct note *n)
{
    struct mermaid *m = ctx;
    enum tone tone = tone_of(n);
    if (tone != TONE_PLAIN)
        mermaid_rect(m->w.out, tone);
    mermaid_note(&m->w, n->a, n->b, n->outcome ? MARK_NONE : n->mark, n->text);
    if (tone != TONE_PLAIN)
        sb_adds(m->w.out, "    end\n");
}

/* The legend: a note a line under the messages, over every column. */
static void mermaid_legend(struct mermaid *m, const struct legend *l)
{
    struct strbuf lines = STRBUF_INIT;
    static const struct legend_words words = {"legend: ", "box", "in a note", plain_word};
    legend_lines(l, &words, &lines);
    for (char *line = lines.buf; line && *line;) {
        char *end = strchr(line, '\n');
        *end = '\0';
        sb_addf(m->w.out, "    Note over p1%s", m->d->nnames > 1 ? "," : "");
        if (m->d->nnames > 1)
            sb_addf(m->w.out, "p%zu", m->d->nnames);
        sb_adds(m->w.out, ": ");
        m->w.prev = 0;
        put_ascii(&m->w, line);
        sb_addc(m->w.out, '\n');
        line = end + 1;
    }
    sb_free(&lines);
}

static void write_mermaid(const struct diagram *d, const struct diagram_layout *layout,
                          struct strbuf *out)
{
    struct mermaid m = {d, {out, DIAGRAM_MERMAID, 0}, {.shown = !layout->no_times}};
    sb_adds(out, "sequenceDiagram\n");
    if (d->title) {
        sb_adds(out, "    title ");
        put_text(&m.w, d->title, SOURCE_TITLE_MAX);
        sb_addc(out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_addf(out, "    participant p%zu as ", i + 1);
        put_name(&m.w, d->names[i], SOURCE_NAME_MAX);
        sb_addc(out, '\n');
    }
    static const struct sink sink = {mermaid_row, mermaid_standalone_note};
    walk(d, &sink, &m);
    if (d->nnames) {
        struct legend l = legend_of(d, !layout->no_times);
        mermaid_legend(&m, &l);
    }
}

/* ---- PlantUML ---- */

struct plantuml {
    const struct diagram *d;
    struct writer w;
    struct when when;
};

/* PlantUML's colours in capitals, as it writes them. */
static void plantuml_colour(struct strbuf *out, const char *colour)
{
    for (const char *c = colour; *c; c++)
        sb_addc(out, *c >= 'a' && *c <= 'f' ? (char)(*c - 'a' + 'A') : *c);
}

static void plantuml_coloured(struct strbuf *out, enum tone tone, const char *word)
{
    sb_adds(out, "<color:");
    plantuml_colour(out, tone_stroke[tone]);
    sb_addf(out, ">%s</color>", word);
}

static void plantuml_note(struct writer *w, const struct note *n)
{
    enum tone tone = tone_of(n);
    sb_addf(w->out, "note over p%zu", min_size(n->a, n->b) + 1);
    if (n->a != n->b)
        sb_addf(w->out, ", p%zu", max_size(n->a, n->b) + 1);
    if (tone != TONE_PLAIN) {
        sb_adds(w->out, " ");
        plantuml_colour(w->out, tone_fill[tone]);
    }
    sb_adds(w->out, " : ");
    put_finding(w, n->outcome ? MARK_NONE : n->mark, n->text, SOURCE_NOTE_MAX);
    sb_addc(w->out, '\n');
}

/* Our own words hold no creole (no "--", "__" or "//") and go as they are. */
static void plantuml_row(void *ctx, const struct row *r, size_t number)
{
    struct plantuml *p = ctx;
    struct strbuf *out = p->w.out;
    char when[WHEN_SIZE];
    (void)number;
    when_text(&p->when, r, when);
    for (size_t i = 0; i < r->n; i++) {
        sb_addf(out, "p%zu -", r->from + 1);
        if (r->worst != MARK_NONE) {
            sb_adds(out, "[");
            plantuml_colour(out, tone_stroke[tone_of_mark(r->worst)]);
            sb_adds(out, "]");
        }
        sb_addf(out, "> p%zu : %s%s", p->d->to[r->first + i] + 1, when, *when ? " " : "");
        put_text(&p->w, r->label, SOURCE_LABEL_MAX);
        sb_addc(out, '\n');
    }
    for (size_t k = 0; k < r->nmarks; k++)
        plantuml_note(&p->w, &(struct note){.a = r->from,
                                            .b = last_to(p->d, r),
                                            .mark = r->marks[k].mark,
                                            .text = r->marks[k].text});
}

static void plantuml_standalone_note(void *ctx, const struct note *n)
{
    struct plantuml *p = ctx;
    plantuml_note(&p->w, n);
}

static void plantuml_legend(struct strbuf *out, const struct legend *l)
{
    struct strbuf lines = STRBUF_INIT;
    static const struct legend_words words = {"", "arrow", "in a note", plantuml_coloured};
    legend_lines(l, &words, &lines);
    if (lines.len)
        sb_addf(out, "legend\n%sendlegend\n", lines.buf);
    sb_free(&lines);
}

static void write_plantuml(const struct diagram *d, const struct diagram_layout *layout,
                           struct strbuf *out)
{
    struct plantuml p = {d, {out, DIAGRAM_PLANTUML, 0}, {.shown = !layout->no_times}};
    sb_adds(out, "@startuml\n");
    if (d->title) {
        sb_adds(out, "title ");
        put_text(&p.w, d->title, SOURCE_TITLE_MAX);
        sb_addc(out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_adds(out, "participant \"");
        put_name(&p.w, d->names[i], SOURCE_NAME_MAX);
        sb_addf(out, "\" as p%zu\n", i + 1);
    }
    static const struct sink sink = {plantuml_row, plantuml_standalone_note};
    walk(d, &sink, &p);
    struct legend l = legend_of(d, !layout->no_times);
    plantuml_legend(out, &l);
    sb_adds(out, "@enduml\n");
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

static void text_arrow(struct text_ctx *t, size_t from, size_t to, const char *label, size_t number,
                       enum diagram_mark worst)
{
    size_t xf = text_x(t, from), xt = text_x(t, to);
    text_row(t);
    text_gutter(t, number, worst);
    if (from == to) {
        text_put(t, xf + 1, "--+ ");
        text_put(t, xf + 5, text_visible(t, label, t->gap - 6));
        text_emit(t);
        text_row(t);
        text_put(t, xf + 1, "<-+");
    } else {
        size_t left = min_size(xf, xt), right = max_size(xf, xt);
        size_t span = right - left - 1;
        memset(t->row + left + 1, '-', span);
        t->row[xf < xt ? right - 1 : left + 1] = xf < xt ? '>' : '<';
        /* Centred on the shaft: the span less the head. */
        const char *shown = text_visible(t, label, min_size(span - 4, TEXT_LABEL_MAX));
        size_t shaft = left + 1 + (xf < xt ? 0 : 1);
        text_put(t, shaft + (span - 1 - strlen(shown)) / 2, shown);
    }
    text_emit(t);
}

static void text_message(void *ctx, const struct row *r, size_t number)
{
    struct text_ctx *t = ctx;
    for (size_t i = 0; i < r->n; i++)
        text_arrow(t, r->from, t->d->to[r->first + i], r->label, number + i, r->worst);
    for (size_t k = 0; k < r->nmarks; k++)
        text_note(t, min_size(r->from, last_to(t->d, r)), r->marks[k].mark, r->marks[k].text);
}

/* Outcomes are not drawn yet. */
static void text_standalone_note(void *ctx, const struct note *n)
{
    struct text_ctx *t = ctx;
    if (!n->outcome)
        text_note(t, n->a, n->mark, n->text);
}

static void write_text(const struct diagram *d, struct strbuf *out,
                       const struct diagram_flush *flush)
{
    struct text_ctx t = {.d = d, .out = out, .flush = flush, .tmp = STRBUF_INIT};
    size_t name_w = 0, label_w = 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, shown_width(d->names[i], TEXT_NAME_MAX, true));
    for (size_t i = 0; i < d->nrows; i++)
        label_w = max_size(label_w, shown_width(d->rows[i].label, TEXT_LABEL_MAX, true));
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
    static const struct sink sink = {text_message, text_standalone_note};
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
    SVG_MARK_ROW = 16,
    SVG_LEGEND_ROW = 18,
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
    const struct diagram *d;
    struct writer w; /* writes to the body */
    struct when when;
    bool several_files; /* rows name their file too */
    size_t gutter;      /* the width of the gutter left of the columns: lines and times */
    size_t gap, y, right;
};

static size_t svg_x(const struct svg_ctx *s, size_t column)
{
    return SVG_MARGIN + s->gutter + s->gap / 2 + column * s->gap;
}

/* Where a message was read, as the gutters show it: its line, with its file when the diagram
 * has messages of several. */
static void put_source(struct writer *w, const struct row *r, bool several_files)
{
    if (!r->line)
        return;
    if (several_files && r->file) {
        put_text(w, r->file, SVG_NAME_MAX);
        sb_addc(w->out, ':');
    }
    sb_addf(w->out, "%lu", r->line);
}

/* The gutter's text for r: where it was read, then when it was sent. */
static void svg_gutter_text(struct svg_ctx *s, const struct row *r, struct strbuf *out)
{
    char when[WHEN_SIZE];
    struct writer w = {out, DIAGRAM_SVG, 0};
    when_text(&s->when, r, when);
    put_source(&w, r, s->several_files);
    if (*when)
        sb_addf(out, "%s%s", r->line ? "  " : "", when);
}

static void svg_arrow(struct svg_ctx *s, const struct row *r, size_t i, const char *gutter)
{
    struct strbuf *out = s->w.out;
    size_t from = r->from, to = s->d->to[r->first + i];
    size_t xf = svg_x(s, from), xt = svg_x(s, to), y = s->y;
    const char *colour = r->worst != MARK_NONE ? tone_stroke[tone_of_mark(r->worst)] : "#333333";
    unsigned stroke = r->worst != MARK_NONE ? 2 : 1;
    sb_addf(out, "<g class=\"arrow\" id=\"arrow-%zu\">\n<title>", r->first + i + 1);
    if (*gutter)
        sb_addf(out, "%s\n", gutter);
    put_text(&s->w, r->label, SVG_TIP_MAX);
    for (size_t k = 0; k < r->nmarks; k++) {
        sb_addc(out, '\n');
        put_finding(&s->w, r->marks[k].mark, r->marks[k].text, SVG_TIP_MAX);
    }
    sb_adds(out, "</title>\n");
    if (i == 0 && *gutter)
        sb_addf(out, "<text class=\"when\" x=\"%d\" y=\"%zu\" fill=\"#666666\">%s</text>\n",
                SVG_MARGIN, y + 24, gutter);
    if (from == to) {
        size_t line = y + 18, back = y + 32;
        sb_addf(out,
                "<path d=\"M%zu %zu H%zu V%zu H%zu\" fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"%u\"/>\n",
                xf, line, xf + 28, back, xf + 9, colour, stroke);
        sb_addf(out, "<polygon points=\"%zu,%zu %zu,%zu %zu,%zu\" fill=\"%s\"/>\n", xf, back,
                xf + 10, back - 4, xf + 10, back + 4, colour);
        size_t max = min_size((s->gap - 24) * 5 / 36, SVG_LABEL_MAX);
        sb_addf(out, "<text x=\"%zu\" y=\"%zu\" fill=\"%s\">", xf + 6, y + 12, colour);
        put_text(&s->w, r->label, max);
        /* Right of the last column, the label may reach past the columns. */
        s->right = max_size(s->right, xf + 6 + svg_px(shown_width(r->label, max, false)));
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
        put_text(&s->w, r->label, min_size(max, SVG_LABEL_MAX));
        s->y += SVG_ROW;
    }
    sb_adds(out, "</text>\n");
}

/* A message: an arrow a receiver, the gutter on the first, its diagnostics under the last. */
static void svg_row(void *ctx, const struct row *r, size_t number)
{
    struct svg_ctx *s = ctx;
    struct strbuf gutter = STRBUF_INIT;
    (void)number;
    sb_add(&gutter, "", 0);
    svg_gutter_text(s, r, &gutter);
    for (size_t i = 0; i < r->n; i++) {
        svg_arrow(s, r, i, gutter.buf);
        if (i + 1 == r->n) {
            size_t x = svg_x(s, min_size(r->from, min_size(s->d->to[r->first], last_to(s->d, r))));
            for (size_t k = 0; k < r->nmarks; k++) {
                const struct finding *f = &r->marks[k];
                sb_addf(s->w.out, "<text class=\"diagnostic\" x=\"%zu\" y=\"%zu\" fill=\"%s\">",
                        x + 4, s->y + 10, tone_stroke[tone_of_mark(f->mark)]);
                put_finding(&s->w, f->mark, f->text, SVG_NOTE_MAX);
                sb_adds(s->w.out, "</text>\n");
                size_t width =
                    svg_px(strlen(mark_word(f->mark)) + shown_width(f->text, SVG_NOTE_MAX, false));
                s->right = max_size(s->right, x + 4 + width);
                s->y += SVG_MARK_ROW;
            }
        }
        sb_adds(s->w.out, "</g>\n");
    }
    sb_free(&gutter);
}

static void svg_note(void *ctx, const struct note *n)
{
    struct svg_ctx *s = ctx;
    struct strbuf *out = s->w.out;
    enum tone tone = tone_of(n);
    enum diagram_mark mark = n->outcome ? MARK_NONE : n->mark;
    size_t x = svg_x(s, min_size(n->a, n->b)) - 12, y = s->y;
    size_t w = svg_px(strlen(mark_word(mark)) + shown_width(n->text, SVG_NOTE_MAX, false)) + 16;
    if (n->a != n->b)
        w = max_size(w, svg_x(s, max_size(n->a, n->b)) + 12 - x);
    sb_addf(out, "<g class=\"%s\">\n<title>", n->outcome ? "outcome" : "note");
    put_finding(&s->w, mark, n->text, SVG_TIP_MAX);
    sb_adds(out, "</title>\n");
    sb_addf(out,
            "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"20\" rx=\"3\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            x, y + 4, w, tone_fill[tone], tone_stroke[tone]);
    sb_addf(out, "<text x=\"%zu\" y=\"%zu\">", x + 8, y + 18);
    put_finding(&s->w, mark, n->text, SVG_NOTE_MAX);
    sb_adds(out, "</text>\n</g>\n");
    s->right = max_size(s->right, x + w);
    s->y += SVG_NOTE_ROW;
}

static void svg_coloured(struct strbuf *out, enum tone tone, const char *word)
{
    sb_addf(out, "<tspan fill=\"%s\" font-weight=\"bold\">%s</tspan>", tone_stroke[tone], word);
}

/* The legend under the messages: a line of text each. */
static void svg_legend(struct svg_ctx *s, const struct legend *l)
{
    struct strbuf lines = STRBUF_INIT, plain = STRBUF_INIT;
    static const struct legend_words words = {"", "arrow", "under it", svg_coloured};
    static const struct legend_words plain_words = {"", "arrow", "under it", plain_word};
    legend_lines(l, &words, &lines);
    legend_lines(l, &plain_words, &plain);
    if (!lines.len) {
        sb_free(&lines);
        sb_free(&plain);
        return;
    }
    s->y += 8;
    sb_adds(s->w.out, "<g class=\"legend\">\n");
    for (char *line = lines.buf, *p = plain.buf; *line;) {
        char *end = strchr(line, '\n'), *pend = strchr(p, '\n');
        sb_addf(s->w.out, "<text x=\"%d\" y=\"%zu\" fill=\"#444444\">%.*s</text>\n", SVG_MARGIN,
                s->y + 12, (int)(end - line), line);
        s->right = max_size(s->right, SVG_MARGIN + svg_px((size_t)(pend - p)));
        s->y += SVG_LEGEND_ROW;
        line = end + 1;
        p = pend + 1;
    }
    sb_adds(s->w.out, "</g>\n");
    sb_free(&lines);
    sb_free(&plain);
}

/* The widest gutter text of the rows, in characters. */
static size_t svg_gutter_chars(struct svg_ctx *s)
{
    struct strbuf text = STRBUF_INIT;
    size_t widest = 0;
    struct when saved = s->when;
    for (size_t i = 0; i < s->d->nrows; i++) {
        sb_reset(&text);
        sb_add(&text, "", 0);
        svg_gutter_text(s, &s->d->rows[i], &text);
        widest = max_size(widest, shown_width(text.buf, SIZE_MAX, false));
    }
    s->when = saved;
    sb_free(&text);
    return widest;
}

static void write_svg(const struct diagram *d, const struct diagram_layout *layout,
                      struct strbuf *out)
{
    struct strbuf body = STRBUF_INIT;
    struct svg_ctx s = {.d = d,
                        .w = {&body, DIAGRAM_SVG, 0},
                        .when = {.shown = !layout->no_times},
                        .several_files = d->nfiles > 1};
    size_t name_w = 0, label_w = 0, gutter_chars = svg_gutter_chars(&s);
    s.gutter = gutter_chars ? svg_px(gutter_chars) + 16 : 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, name_width(d->names[i], SVG_NAME_MAX, false));
    for (size_t i = 0; i < d->nrows; i++)
        label_w = max_size(label_w, shown_width(d->rows[i].label, SVG_LABEL_MAX, false));
    s.gap = max_size(SVG_MIN_GAP, max_size(svg_px(name_w) + 40, svg_px(label_w) + 40));
    size_t top = SVG_MARGIN + (d->title ? SVG_TITLE_H : 0);
    s.y = top + SVG_BOX_H + 12;
    s.right = SVG_MARGIN + s.gutter + d->nnames * s.gap;
    static const struct sink sink = {svg_row, svg_note};
    sb_add(&body, "", 0);
    walk(d, &sink, &s);
    size_t lifelines_end = s.y + 12;
    struct legend l = legend_of(d, !layout->no_times);
    svg_legend(&s, &l);
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
                x, top + SVG_BOX_H, x, lifelines_end);
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
    diagram_render(d, NULL, out);
}

void diagram_render(const struct diagram *d, const struct diagram_layout *layout,
                    struct strbuf *out)
{
    static const struct diagram_layout defaults = {0};
    if (!layout)
        layout = &defaults;
    switch (d->format) {
    case DIAGRAM_MERMAID:
        write_mermaid(d, layout, out);
        break;
    case DIAGRAM_PLANTUML:
        write_plantuml(d, layout, out);
        break;
    case DIAGRAM_SVG:
        write_svg(d, layout, out);
        break;
    case DIAGRAM_TEXT:
        write_text(d, out, layout->flush);
        break;
    }
}
