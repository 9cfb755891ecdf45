#include "report/drawing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"
#include "base/utf8.h"

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

/* Writes what w shows of r's time into buf ("" when nothing). */
void draw_when(struct when *w, const struct row *r, char *buf)
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
void draw_ascii(struct writer *w, const char *s)
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

/* The columns s takes as draw_text(s, max) shows it. */
size_t draw_width(const char *s, size_t max, bool ascii)
{
    struct measure m = measure(s, max, ascii);
    return m.width <= max ? m.width : m.fit_width + 3;
}

/* Writes s made visible, cut to at most max columns (max is at least 4). */
void draw_text(struct writer *w, const char *s, size_t max)
{
    bool ascii = w->format == DIAGRAM_TEXT;
    struct visible v = visible_of(s, ascii);
    w->prev = 0; /* what comes before a text is the format's own syntax */
    if (v.len == 0) {
        draw_ascii(w, "\"\"");
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
        draw_ascii(w, "...");
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

/* The columns a name takes as draw_name(s, max) shows it. */
size_t draw_name_width(const char *s, size_t max, bool ascii)
{
    return cut_name(s, max, ascii).width;
}

/* Writes a name made visible, cut in the middle to at most max columns (max is at least 5). */
void draw_name(struct writer *w, const char *s, size_t max)
{
    bool ascii = w->format == DIAGRAM_TEXT;
    struct visible v = visible_of(s, ascii);
    struct name_cut c = cut_name(s, max, ascii);
    if (c.head_end == v.len) {
        draw_text(w, s, max);
        return;
    }
    w->prev = 0;
    struct glyph g;
    for (size_t i = 0; i < c.head_end;) {
        i = next_glyph(&v, i, &g);
        put_glyph(w, &g);
    }
    draw_ascii(w, "...");
    for (size_t i = c.tail_start; i < v.len;) {
        i = next_glyph(&v, i, &g);
        put_glyph(w, &g);
    }
}

const char *draw_mark_word(enum diagram_mark mark)
{
    return mark == MARK_ERROR ? "error: " : mark == MARK_WARNING ? "warning: " : "";
}

/* A finding or a note: its severity, then its text. */
void draw_finding(struct writer *w, enum diagram_mark mark, const char *text, size_t max)
{
    draw_ascii(w, draw_mark_word(mark));
    draw_text(w, text, max);
}

/* ---- Walking the diagram in order: messages, each followed by its marks, and the notes ---- */

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

void draw_walk(const struct diagram *d, const struct draw_sink *sink, void *ctx)
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

/* ---- What a diagram shows, for its legend, and in which colours ---- */

/* Anomalies in colours no renderer draws with by default (PlantUML's arrows are #A80036, or
 * #181818 since 2023; Mermaid's and ours #333333): magenta for an error, orange for a warning;
 * outcomes green (done), grey (ended otherwise), yellow (open, timed out), magenta (violated). */
const char *const draw_stroke[] = {"#9e9d24", "#b26a00", "#c000c0",
                                   "#2e7d32", "#616161", "#9e9d24"};
const char *const draw_fill[] = {"#fffde7", "#ffe0b2", "#f8d0f8", "#c8e6c9", "#e0e0e0", "#fff59d"};
const char *const draw_colour_name[] = {"", "orange", "magenta", "green", "grey", "yellow"};

struct legend draw_legend_of(const struct diagram *d, bool times_shown)
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

void draw_plain_word(struct strbuf *out, enum tone tone, const char *word)
{
    (void)tone;
    sb_adds(out, word);
}

/* The legend's lines (the text format draws its own), each appended to out with "\n" after it:
 * what the times say, the colours of anomalies and of outcomes, as far as the diagram has them. */
void draw_legend_lines(const struct legend *l, const struct legend_words *words, struct strbuf *out)
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
            words->colour(out, tone, draw_colour_name[tone]);
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
            words->colour(out, end_tones[e], draw_colour_name[end_tones[e]]);
            sb_addf(out, " %s,", end_words[e]);
        }
        out->buf[--out->len] = '\n';
    }
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
        draw_mermaid(d, layout, out);
        break;
    case DIAGRAM_PLANTUML:
        draw_plantuml(d, layout, out);
        break;
    case DIAGRAM_SVG:
        draw_svg(d, layout, out);
        break;
    case DIAGRAM_TEXT:
        draw_flow(d, out, layout->flush);
        break;
    }
}
