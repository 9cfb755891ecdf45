/* What the writers of the diagrams share (drawing.h): times as they are written, the two layers
 * every text goes through, the cutting into pages and the legend. Nothing here is called by
 * diagram.c, which builds the diagram and hands it to a format's writer. */
#include "report/drawing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"
#include "base/utf8.h"

/* ---- Times, as the diagrams write them ---- */

void diagram_flush_when_full(const struct diagram_flush *flush, struct strbuf *out)
{
    if (flush && out->len >= DIAGRAM_FLUSH_BYTES)
        flush->flush(flush->ctx, out);
}

/* A text being built in a buffer of its own, then given out cut to the caller's size, as
 * snprintf would: by hand, since the diagrams write two times a message. */
struct short_text {
    char text[64];
    size_t len;
};

static void short_adds(struct short_text *p, const char *s)
{
    size_t n = strlen(s);
    if (n > sizeof p->text - 1 - p->len)
        n = sizeof p->text - 1 - p->len;
    memcpy(p->text + p->len, s, n);
    p->len += n;
}

static void short_addc(struct short_text *p, char c)
{
    if (p->len < sizeof p->text - 1)
        p->text[p->len++] = c;
}

/* v (not negative) in at least width digits, zeros before it. */
static void short_number(struct short_text *p, long long v, int width)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0 && n < (int)sizeof digits);
    while (n < width && n < (int)sizeof digits)
        digits[n++] = '0';
    while (n > 0)
        short_addc(p, digits[--n]);
}

static void short_give(const struct short_text *p, char *buf, size_t size)
{
    if (size == 0)
        return;
    size_t n = p->len < size - 1 ? p->len : size - 1;
    memcpy(buf, p->text, n);
    buf[n] = '\0';
}

void diagram_duration(double seconds, char *buf, size_t size)
{
    const char *sign = seconds < 0 ? "-" : "";
    double magnitude = fabs(seconds);
    if (!(magnitude < 1e15)) {
        snprintf(buf, size, "%s%.3gs", sign, magnitude);
        return;
    }
    struct short_text p = {.len = 0};
    short_adds(&p, sign);
    long long ms = llround(magnitude * 1000);
    if (ms < 60000) {
        long long whole = ms / 1000, frac = ms % 1000;
        short_number(&p, whole, 1);
        if (frac) {
            int digits = frac % 100 == 0 ? 1 : frac % 10 == 0 ? 2 : 3;
            long long shown = digits == 1 ? frac / 100 : digits == 2 ? frac / 10 : frac;
            short_addc(&p, '.');
            short_number(&p, shown, digits);
        }
        short_addc(&p, 's');
        short_give(&p, buf, size);
        return;
    }
    long long s = (ms + 500) / 1000;
    long long days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60, secs = s % 60;
    /* 1d02h03m04s, 2h03m04s, 3m04s: the largest unit as it is, the others in two digits */
    const long long units[] = {days, hours, minutes, secs};
    const char names[] = {'d', 'h', 'm', 's'};
    int first = days ? 0 : hours ? 1 : 2;
    for (int i = first; i < 4; i++) {
        short_number(&p, units[i], i == first ? 1 : 2);
        short_addc(&p, names[i]);
    }
    short_give(&p, buf, size);
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
    struct short_text p = {.len = 0};
    short_adds(&p, dated ? stamp : stamp + 11);
    if (!isnan(r->delta)) {
        char delta[DIAGRAM_DURATION_SIZE];
        diagram_duration(r->delta, delta, sizeof delta);
        short_addc(&p, ' ');
        short_adds(&p, r->delta < 0 ? "" : "+");
        short_adds(&p, delta);
    }
    short_give(&p, buf, WHEN_SIZE);
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

/* Makes g the escape backslash, kind, then value in digits hex digits ("\\x1b", "\\n"). */
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

/* Makes g the escape of a code point, in capitals, four hex digits at the least: \u{00A0},
 * \u{1F600}. */
static void set_codepoint(struct glyph *g, unsigned cp)
{
    int len = snprintf(g->text, sizeof g->text, "\\u{%04X}", cp);
    g->len = g->width = len > 0 ? (size_t)len : 0;
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
        set_codepoint(g, c);
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
        set_codepoint(g, cp);
    } else {
        memcpy(g->text, v->s + i, n);
        g->len = n;
        g->width = char_width(cp);
        g->literal = true;
        g->cp = cp;
    }
    return i + n;
}

/* Whether v->s[i] is a glyph of its own that is the byte itself, one column wide: printable
 * ASCII but the backslash, and a space between the text's blanks at either end. Most of every
 * text is, so measuring and writing take these without making a glyph of each. */
static bool plain_byte(const struct visible *v, size_t i)
{
    unsigned char c = v->s[i];
    return (c > 0x20 && c < 0x7f && c != '\\') || (c == ' ' && i >= v->lead && i < v->trail);
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
        size_t next = i + 1, width = 1;
        if (!plain_byte(&v, i)) {
            next = next_glyph(&v, i, &g);
            width = g.width;
        }
        m.width += width;
        if (fits && m.fit_width + width + 3 <= max) {
            m.fit_bytes = next;
            m.fit_width += width;
        } else {
            fits = false;
        }
        i = next;
    }
    return m;
}

/* How many bytes from v->s[i] on (up to end) are plain glyphs that w's format writes as they
 * are: the text and SVG formats' (SVG's markup characters excepted); none for the others, whose
 * plain characters put_char tells. */
static size_t format_plain_run(const struct writer *w, const struct visible *v, size_t i,
                               size_t end)
{
    size_t from = i;
    if (w->format == DIAGRAM_TEXT)
        while (i < end && plain_byte(v, i))
            i++;
    else if (w->format == DIAGRAM_SVG)
        while (i < end && plain_byte(v, i) && !strchr("&<>\"'", v->s[i]))
            i++;
    return i - from;
}

/* Writes the glyphs of v from byte i to byte end. */
static void put_glyphs(struct writer *w, const struct visible *v, size_t i, size_t end)
{
    struct glyph g;
    while (i < end) {
        size_t run = format_plain_run(w, v, i, end);
        if (run) {
            sb_add(w->out, (const char *)v->s + i, run);
            i += run;
            w->prev = v->s[i - 1];
            continue;
        }
        i = next_glyph(v, i, &g);
        put_glyph(w, &g);
    }
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
    put_glyphs(w, &v, 0, cut ? m.fit_bytes : v.len);
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
    put_glyphs(w, &v, 0, c.head_end);
    draw_ascii(w, "...");
    put_glyphs(w, &v, c.tail_start, v.len);
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

/* ---- Pages: the walk over messages and notes in order, cut where a page holds no more ---- */

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

void draw_plan_free(struct plan *p)
{
    free(p->items);
    free(p->pages);
}

/* What the page being planned holds so far, measured as its format measures it. */
struct pager {
    const struct diagram *d;
    const struct measures *m;
    struct plan *plan;
    size_t *counted; /* per column: the block that counts it, from 1 */
    size_t *tried;   /* per column: the try that counted it */
    size_t block, try_no, pages_in_block;
    size_t width, size, rows;
    bool slack; /* the block takes the limits' width_slack */
};

enum fit { FITS, TOO_WIDE, TOO_LONG };

static bool page_empty(const struct pager *p)
{
    return p->plan->pages[p->plan->npages - 1].first == p->plan->nitems;
}

/* Counts column c in *width unless the block or this try counted it. */
static void count_column(struct pager *p, size_t c, size_t *width)
{
    if (p->counted[c] == p->block || p->tried[c] == p->try_no)
        return;
    p->tried[c] = p->try_no;
    *width += p->m->column[c];
}

/* The block's width with the item's columns. */
static size_t width_with(struct pager *p, const struct item *it)
{
    size_t width = p->width;
    p->try_no++;
    if (it->note) {
        count_column(p, it->note->a, &width);
        count_column(p, it->note->b, &width);
        return width;
    }
    count_column(p, it->row->from, &width);
    for (size_t i = 0; i < it->n; i++)
        count_column(p, p->d->to[it->row->first + it->first + i], &width);
    return width;
}

static bool exceeds(size_t value, size_t overhead, size_t limit)
{
    return limit != SIZE_MAX && value + overhead > limit;
}

/* Whether the item fits the page; what it would make the block's width and the page's size. */
static enum fit measure_fit(struct pager *p, const struct item *it, size_t *width, size_t *size)
{
    const struct limits *l = p->m->limits;
    *width = width_with(p, it);
    *size = p->size + p->m->size(p->m->ctx, it);
    if (exceeds(*width, l->width_overhead - (p->slack ? l->width_slack : 0), l->width))
        return TOO_WIDE;
    if (exceeds(*size + (l->width_in_size ? *width : 0), l->page_overhead, l->size) ||
        (!it->note && l->rows && p->rows >= l->rows))
        return TOO_LONG;
    return FITS;
}

/* Puts the item on the page when it fits, or anyway when force. */
static enum fit try_item(struct pager *p, const struct item *it, bool force)
{
    size_t width, size;
    enum fit fit = measure_fit(p, it, &width, &size);
    if (fit != FITS && !force)
        return fit;
    if (it->note) {
        p->counted[it->note->a] = p->counted[it->note->b] = p->block;
    } else {
        p->counted[it->row->from] = p->block;
        for (size_t i = 0; i < it->n; i++)
            p->counted[p->d->to[it->row->first + it->first + i]] = p->block;
        p->rows++;
    }
    p->width = width;
    p->size = size;
    struct plan *plan = p->plan;
    plan->items = xgrow(plan->items, &plan->items_cap, plan->nitems + 1, sizeof *plan->items);
    plan->items[plan->nitems++] = *it;
    plan->pages[plan->npages - 1].end = plan->nitems;
    return fit;
}

/* A new page; a new block of pages too when block (or when the format has no blocks). */
static void start_page(struct pager *p, bool block)
{
    struct plan *plan = p->plan;
    block = block || !plan->npages || p->pages_in_block >= p->m->limits->block_pages;
    if (block) {
        p->block++;
        p->width = 0;
        p->slack = false;
        p->pages_in_block = 0;
    }
    p->pages_in_block++;
    p->size = 0;
    p->rows = 0;
    plan->pages = xgrow(plan->pages, &plan->pages_cap, plan->npages + 1, sizeof *plan->pages);
    plan->pages[plan->npages++] = (struct page){plan->nitems, plan->nitems, block};
}

/* A note on the page, or on the next. */
static void place_note(struct pager *p, const struct note *n)
{
    struct item it = {.note = n};
    bool empty = page_empty(p);
    enum fit fit = try_item(p, &it, empty);
    if (fit == FITS)
        return;
    if (!empty) {
        start_page(p, fit == TOO_WIDE);
        fit = try_item(p, &it, true);
    }
    if (fit != FITS)
        p->plan->oversize = true;
}

/* How many of the row's arrows from first on fit a page of their own: at least one. */
static size_t arrows_that_fit(struct pager *p, const struct row *r, size_t first)
{
    size_t lo = 1, hi = r->n - first, width, size;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        struct item it = {NULL, r, first, mid};
        if (measure_fit(p, &it, &width, &size) == FITS)
            lo = mid;
        else
            hi = mid - 1;
    }
    struct item one = {NULL, r, first, 1};
    if (lo == 1 && measure_fit(p, &one, &width, &size) != FITS)
        p->plan->oversize = true;
    return lo;
}

/* A message on the page, or on the next; one that no page holds whole, on pages of its own, as
 * many of its arrows a page as fit. */
static void place_row(struct pager *p, const struct row *r)
{
    for (size_t first = 0; first < r->n;) {
        struct item rest = {NULL, r, first, r->n - first};
        enum fit fit = try_item(p, &rest, false);
        if (fit == FITS)
            return;
        if (!page_empty(p)) {
            start_page(p, fit == TOO_WIDE);
            fit = try_item(p, &rest, false);
            if (fit == FITS)
                return;
        }
        if (fit == TOO_WIDE && p->m->limits->width_slack && !p->slack) {
            p->slack = true; /* a block of its own, wider; so are the rest of its pieces */
            fit = try_item(p, &rest, false);
            if (fit == FITS)
                return;
        }
        size_t n = arrows_that_fit(p, r, first);
        try_item(p, &(struct item){NULL, r, first, n}, true);
        first += n;
        if (first < r->n)
            start_page(p, fit == TOO_WIDE);
    }
}

void draw_plan(const struct diagram *d, const struct measures *m, struct plan *plan)
{
    *plan = (struct plan){0};
    struct pager p = {.d = d, .m = m, .plan = plan};
    p.counted = xcalloc(d->nnames + 1, sizeof *p.counted);
    p.tried = xcalloc(d->nnames + 1, sizeof *p.tried);
    start_page(&p, true);
    size_t *order = notes_in_order(d), k = 0;
    for (size_t r = 0;; r++) {
        for (; k < d->nnotes && d->notes[order[k]].after == r; k++)
            place_note(&p, &d->notes[order[k]]);
        if (r == d->nrows)
            break;
        place_row(&p, &d->rows[r]);
    }
    free(order);
    free(p.counted);
    free(p.tried);
}

size_t draw_height(const struct diagram *d, const struct item *it, const struct heights *h)
{
    if (it->note)
        return h->note;
    size_t height = 0;
    for (size_t i = it->first; i < it->first + it->n; i++)
        height += d->to[it->row->first + i] == it->row->from ? h->self : h->arrow;
    if (it->first + it->n == it->row->n)
        height += it->row->nmarks * h->mark;
    return height;
}

/* A page's things in order, each message's marks after its last arrow. */
void draw_page(const struct diagram *d, const struct plan *plan, size_t page,
               const struct draw_sink *sink, void *ctx)
{
    (void)d;
    const struct page *pg = &plan->pages[page];
    for (size_t i = pg->first; i < pg->end; i++) {
        const struct item *it = &plan->items[i];
        if (it->note)
            sink->note(ctx, it->note);
        else
            sink->row(ctx,
                      &(struct piece){it->row, it->first, it->n, it->first + it->n == it->row->n});
    }
}

static int compare_columns(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Adds column c to cols (n of them) unless on says it is there. */
static void take_column(bool *on, size_t *cols, size_t *n, size_t c)
{
    if (!on[c]) {
        on[c] = true;
        cols[(*n)++] = c;
    }
}

size_t draw_page_columns(const struct diagram *d, const struct plan *plan, size_t first, size_t end,
                         size_t *cols)
{
    if (plan->npages == 1) { /* every participant, those of no message too */
        for (size_t c = 0; c < d->nnames; c++)
            cols[c] = c;
        return d->nnames;
    }
    bool *on = xcalloc(d->nnames + 1, sizeof *on);
    size_t n = 0;
    for (size_t i = plan->pages[first].first; i < plan->pages[end - 1].end; i++) {
        const struct item *it = &plan->items[i];
        if (it->note) {
            take_column(on, cols, &n, it->note->a);
            take_column(on, cols, &n, it->note->b);
            continue;
        }
        take_column(on, cols, &n, it->row->from);
        for (size_t k = 0; k < it->n; k++)
            take_column(on, cols, &n, d->to[it->row->first + it->first + k]);
    }
    free(on);
    qsort(cols, n, sizeof *cols, compare_columns);
    return n;
}

static void legend_row(struct legend *l, const struct row *r, bool times_shown)
{
    l->times = l->times || (times_shown && !isnan(r->time));
    l->tones[tone_of_mark(r->worst)] = true;
}

static void legend_note(struct legend *l, const struct note *n)
{
    if (n->outcome)
        l->ends[n->end] = true;
    else
        l->tones[tone_of(n)] = true;
}

struct legend draw_legend_of(const struct diagram *d, const struct plan *plan, size_t first,
                             size_t end, bool times_shown)
{
    struct legend l = {0};
    if (!plan) {
        for (size_t i = 0; i < d->nrows; i++)
            legend_row(&l, &d->rows[i], times_shown);
        for (size_t i = 0; i < d->nnotes; i++)
            legend_note(&l, &d->notes[i]);
        return l;
    }
    for (size_t i = plan->pages[first].first; i < plan->pages[end - 1].end; i++) {
        const struct item *it = &plan->items[i];
        if (it->note)
            legend_note(&l, it->note);
        else
            legend_row(&l, it->row, times_shown);
    }
    return l;
}

/* ---- What a diagram shows, for its legend, and in which colours ---- */

/* Anomalies in colours no renderer draws with by default (PlantUML's arrows are #A80036, or
 * #181818 since 2023; Mermaid's and ours #333333): magenta for an error, orange for a warning;
 * outcomes green (done), grey (ended otherwise), yellow (open, timed out), magenta (violated). */
const char *const draw_stroke[] = {"#9e9d24", "#b26a00", "#c000c0",
                                   "#2e7d32", "#616161", "#9e9d24"};
const char *const draw_fill[] = {"#fffde7", "#ffe0b2", "#f8d0f8", "#c8e6c9", "#e0e0e0", "#fff59d"};
const char *const draw_colour_name[] = {"", "orange", "magenta", "green", "grey", "yellow"};

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
