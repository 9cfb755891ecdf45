#include "report/drawing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    SVG_PAGE_PX = 4000, /* a page's height at the most */
    SVG_PAGE_GAP = 24,  /* between pages */
};

static const char svg_font[] = "DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace";

static size_t svg_px(size_t columns)
{
    return (columns * 36 + 4) / 5;
}

struct svg_ctx {
    const struct diagram *d;
    const struct plan *plan;
    struct writer w; /* writes to the body */
    struct when when;
    bool several_files; /* rows name their file too */
    size_t gutter;      /* the width of the gutter left of the columns: lines and times */
    size_t gap, y, right;
    size_t *slot; /* each column's place on the page being drawn */
};

static size_t svg_x(const struct svg_ctx *s, size_t column)
{
    return SVG_MARGIN + s->gutter + s->gap / 2 + s->slot[column] * s->gap;
}

/* Where a message was read, as the gutters show it: its line, with its file when the diagram
 * has messages of several. */
static void put_source(struct writer *w, const struct row *r, bool several_files)
{
    if (!r->line)
        return;
    if (several_files && r->file) {
        draw_text(w, r->file, SVG_NAME_MAX);
        sb_addc(w->out, ':');
    }
    sb_addf(w->out, "%lu", r->line);
}

/* The gutter's text for r: where it was read, then when it was sent. */
static void svg_gutter_text(struct svg_ctx *s, const struct row *r, struct strbuf *out)
{
    char when[WHEN_SIZE];
    struct writer w = {out, DIAGRAM_SVG, 0};
    draw_when(&s->when, r, when);
    put_source(&w, r, s->several_files);
    if (*when)
        sb_addf(out, "%s%s", r->line ? "  " : "", when);
}

static void svg_arrow(struct svg_ctx *s, const struct row *r, size_t i, bool first,
                      const char *gutter)
{
    struct strbuf *out = s->w.out;
    size_t from = r->from, to = s->d->to[r->first + i];
    size_t xf = svg_x(s, from), xt = svg_x(s, to), y = s->y;
    const char *colour = r->worst != MARK_NONE ? draw_stroke[tone_of_mark(r->worst)] : "#333333";
    unsigned stroke = r->worst != MARK_NONE ? 2 : 1;
    sb_addf(out, "<g class=\"arrow\" id=\"arrow-%zu\">\n<title>", r->first + i + 1);
    if (*gutter)
        sb_addf(out, "%s\n", gutter);
    draw_text(&s->w, r->label, SVG_TIP_MAX);
    for (size_t k = 0; k < r->nmarks; k++) {
        sb_addc(out, '\n');
        draw_finding(&s->w, r->marks[k].mark, r->marks[k].text, SVG_TIP_MAX);
    }
    sb_adds(out, "</title>\n");
    if (first && *gutter)
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
        draw_text(&s->w, r->label, max);
        /* Right of the last column, the label may reach past the columns. */
        s->right = max_size(s->right, xf + 6 + svg_px(draw_width(r->label, max, false)));
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
        draw_text(&s->w, r->label, min_size(max, SVG_LABEL_MAX));
        s->y += SVG_ROW;
    }
    sb_adds(out, "</text>\n");
}

/* A message: an arrow a receiver, the gutter on the first, its diagnostics under the last. */
static void svg_row(void *ctx, const struct piece *p)
{
    struct svg_ctx *s = ctx;
    const struct row *r = p->r;
    struct strbuf gutter = STRBUF_INIT;
    sb_add(&gutter, "", 0);
    svg_gutter_text(s, r, &gutter);
    for (size_t i = p->first; i < p->first + p->n; i++) {
        svg_arrow(s, r, i, i == p->first, gutter.buf);
        if (i + 1 == r->n) {
            size_t x = svg_x(s, min_size(r->from, min_size(s->d->to[r->first], last_to(s->d, r))));
            for (size_t k = 0; k < r->nmarks; k++) {
                const struct finding *f = &r->marks[k];
                sb_addf(s->w.out, "<text class=\"diagnostic\" x=\"%zu\" y=\"%zu\" fill=\"%s\">",
                        x + 4, s->y + 10, draw_stroke[tone_of_mark(f->mark)]);
                draw_finding(&s->w, f->mark, f->text, SVG_NOTE_MAX);
                sb_adds(s->w.out, "</text>\n");
                size_t width = svg_px(strlen(draw_mark_word(f->mark)) +
                                      draw_width(f->text, SVG_NOTE_MAX, false));
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
    size_t w = svg_px(strlen(draw_mark_word(mark)) + draw_width(n->text, SVG_NOTE_MAX, false)) + 16;
    if (n->a != n->b)
        w = max_size(w, svg_x(s, max_size(n->a, n->b)) + 12 - x);
    sb_addf(out, "<g class=\"%s\">\n<title>", n->outcome ? "outcome" : "note");
    draw_finding(&s->w, mark, n->text, SVG_TIP_MAX);
    sb_adds(out, "</title>\n");
    sb_addf(out,
            "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"20\" rx=\"3\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            x, y + 4, w, draw_fill[tone], draw_stroke[tone]);
    sb_addf(out, "<text x=\"%zu\" y=\"%zu\">", x + 8, y + 18);
    draw_finding(&s->w, mark, n->text, SVG_NOTE_MAX);
    sb_adds(out, "</text>\n</g>\n");
    s->right = max_size(s->right, x + w);
    s->y += SVG_NOTE_ROW;
}

static void svg_coloured(struct strbuf *out, enum tone tone, const char *word)
{
    sb_addf(out, "<tspan fill=\"%s\" font-weight=\"bold\">%s</tspan>", draw_stroke[tone], word);
}

/* The legend under the messages: a line of text each. */
static void svg_legend(struct svg_ctx *s, const struct legend *l)
{
    struct strbuf lines = STRBUF_INIT, plain = STRBUF_INIT;
    static const struct legend_words words = {"", "arrow", "under it", svg_coloured};
    static const struct legend_words plain_words = {"", "arrow", "under it", draw_plain_word};
    draw_legend_lines(l, &words, &lines);
    draw_legend_lines(l, &plain_words, &plain);
    if (!lines.len) {
        sb_free(&lines);
        sb_free(&plain);
        return;
    }
    s->y += 8;
    sb_adds(s->w.out, "<g class=\"legend\">\n");
    for (char *line = lines.buf, *p = plain.buf; *line;) {
        char *end = strchr(line, '\n'), *pend = strchr(p, '\n');
        sb_addf(s->w.out, "<text x=\"%d\" y=\"%zu\" fill=\"#444444\">", SVG_MARGIN, s->y + 12);
        sb_add(s->w.out, line, (size_t)(end - line));
        sb_adds(s->w.out, "</text>\n");
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
        widest = max_size(widest, draw_width(text.buf, SIZE_MAX, false));
    }
    s->when = saved;
    sb_free(&text);
    return widest;
}

/* A page drawn: its size, and what it holds, drawn from its own top left corner. */
struct svg_page {
    size_t width, height;
    struct strbuf text;
};

/* The page's title: the diagram's, with the page's number when there are several. */
static void svg_page_title(struct svg_ctx *s, size_t page, struct writer *w)
{
    if (s->d->title)
        draw_text(w, s->d->title, SVG_TITLE_MAX);
    if (s->plan->npages > 1)
        sb_addf(w->out, "%spage %zu of %zu", s->d->title ? " - " : "", page + 1, s->plan->npages);
}

/* The columns of a page, its boxes and lifelines; ids on the first page as they always were,
 * on the others with the page's number (ids are unique in a document). */
static void svg_participants(struct svg_ctx *s, size_t page, const size_t *cols, size_t n,
                             size_t top, size_t lifelines_end, struct writer *w)
{
    struct strbuf *out = w->out;
    for (size_t i = 0; i < n; i++) {
        const char *name = s->d->names[cols[i]];
        size_t x = svg_x(s, cols[i]);
        size_t box = svg_px(draw_name_width(name, SVG_NAME_MAX, false)) + 16;
        if (page)
            sb_addf(out, "<g class=\"participant\" id=\"page-%zu-participant-%zu\">\n<title>",
                    page + 1, cols[i] + 1);
        else
            sb_addf(out, "<g class=\"participant\" id=\"participant-%zu\">\n<title>", cols[i] + 1);
        draw_text(w, name, SVG_TIP_MAX);
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
        draw_name(w, name, SVG_NAME_MAX);
        sb_adds(out, "</text>\n</g>\n");
    }
}

/* Draws a page: its title, its columns, its messages and notes, its legend. */
static void svg_page(struct svg_ctx *s, size_t page, size_t *cols, bool times_shown,
                     struct svg_page *pg)
{
    static const struct draw_sink sink = {svg_row, svg_note};
    struct strbuf body = STRBUF_INIT, title = STRBUF_INIT;
    struct writer tw = {&title, DIAGRAM_SVG, 0};
    svg_page_title(s, page, &tw);
    size_t n = draw_page_columns(s->d, s->plan, page, page + 1, cols);
    for (size_t i = 0; i < n; i++)
        s->slot[cols[i]] = i;
    size_t top = SVG_MARGIN + (title.len ? SVG_TITLE_H : 0);
    s->w.out = &body;
    s->y = top + SVG_BOX_H + 12;
    s->right = SVG_MARGIN + s->gutter + n * s->gap;
    s->when.day_known = false;
    sb_add(&body, "", 0);
    draw_page(s->d, s->plan, page, &sink, s);
    size_t lifelines_end = s->y + 12;
    struct legend l = draw_legend_of(s->d, s->plan, page, page + 1, times_shown);
    svg_legend(s, &l);
    pg->height = s->y + 12 + SVG_MARGIN;
    pg->width = max_size(SVG_MIN_WIDTH, s->right + SVG_MARGIN);
    if (title.len) {
        size_t chars = (s->d->title ? draw_width(s->d->title, SVG_TITLE_MAX, false) : 0) +
                       (s->plan->npages > 1 ? 24 : 0); /* " - page 1 of 2" and more */
        pg->width = max_size(pg->width, 2 * SVG_MARGIN + svg_px(chars) * 7 / 6);
    }
    struct writer w = {&pg->text, DIAGRAM_SVG, 0};
    pg->text = (struct strbuf)STRBUF_INIT;
    if (title.len)
        sb_addf(&pg->text,
                "<text class=\"title\" x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">"
                "%s</text>\n",
                SVG_MARGIN, SVG_MARGIN + 16, title.buf);
    svg_participants(s, page, cols, n, top, lifelines_end, &w);
    sb_add(&pg->text, body.buf, body.len);
    sb_free(&body);
    sb_free(&title);
}

/* The pixels of a page's thing, as svg_row and svg_note draw it. */
static size_t svg_size(void *ctx, const struct item *it)
{
    const struct svg_ctx *s = ctx;
    static const struct heights heights = {SVG_ROW, SVG_SELF_ROW, SVG_MARK_ROW, SVG_NOTE_ROW};
    return draw_height(s->d, it, &heights);
}

/* Where each page goes: in rows left to right, about as wide as all of them are high. Returns
 * the picture's width and height. */
static void svg_grid(const struct svg_page *pages, size_t n, size_t *x, size_t *y, size_t *width,
                     size_t *height)
{
    double area = 0;
    size_t widest = 0;
    for (size_t i = 0; i < n; i++) {
        area += (double)(pages[i].width + SVG_PAGE_GAP) * (double)(pages[i].height + SVG_PAGE_GAP);
        widest = max_size(widest, pages[i].width);
    }
    double side = fmin(sqrt(area), DIAGRAM_SVG_MAX);
    size_t row_width = side > (double)widest ? (size_t)side : widest;
    size_t at_x = 0, at_y = 0, row_height = 0;
    *width = 0;
    for (size_t i = 0; i < n; i++) {
        if (at_x && at_x + pages[i].width > row_width) {
            at_y += row_height + SVG_PAGE_GAP;
            at_x = 0;
            row_height = 0;
        }
        x[i] = at_x;
        y[i] = at_y;
        at_x += pages[i].width + SVG_PAGE_GAP;
        row_height = max_size(row_height, pages[i].height);
        *width = max_size(*width, x[i] + pages[i].width);
    }
    *height = at_y + row_height;
}

static void svg_document(const struct diagram *d, size_t width, size_t height, struct strbuf *out)
{
    struct writer w = {out, DIAGRAM_SVG, 0};
    sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_addf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%zu\" "
            "height=\"%zu\" viewBox=\"0 0 %zu %zu\" font-family=\"%s\" font-size=\"12\" "
            "xml:space=\"preserve\">\n<title>",
            width, height, width, height, svg_font);
    if (d->title)
        draw_text(&w, d->title, SVG_TIP_MAX);
    else
        sb_adds(out, "sequence diagram");
    sb_adds(out, "</title>\n");
    sb_addf(out, "<rect width=\"%zu\" height=\"%zu\" fill=\"#ffffff\"/>\n", width, height);
}

/* One page, as it always was; more, pages side by side in rows, each framed, in one picture. */
void draw_svg(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
              struct diagram_fit *fit)
{
    bool times_shown = !layout->no_times;
    struct svg_ctx s = {.d = d,
                        .w = {NULL, DIAGRAM_SVG, 0},
                        .when = {.shown = times_shown},
                        .several_files = d->nfiles > 1,
                        .slot = xcalloc(d->nnames + 1, sizeof *s.slot)};
    size_t name_w = 0, label_w = 0, gutter_chars = svg_gutter_chars(&s);
    s.gutter = gutter_chars ? svg_px(gutter_chars) + 16 : 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, draw_name_width(d->names[i], SVG_NAME_MAX, false));
    for (size_t i = 0; i < d->nrows; i++)
        label_w = max_size(label_w, draw_width(d->rows[i].label, SVG_LABEL_MAX, false));
    s.gap = max_size(SVG_MIN_GAP, max_size(svg_px(name_w) + 40, svg_px(label_w) + 40));

    size_t *column = xmalloc((d->nnames + 1) * sizeof *column);
    for (size_t c = 0; c < d->nnames; c++)
        column[c] = s.gap;
    struct legend whole = draw_legend_of(d, NULL, 0, 0, times_shown);
    size_t legend_lines = whole.times + (whole.tones[TONE_ERROR] || whole.tones[TONE_WARNING]) +
                          (whole.ends[END_DONE] || whole.ends[END_ENDED] || whole.ends[END_OPEN] ||
                           whole.ends[END_VIOLATED]);
    const struct limits limits = {
        .width = DIAGRAM_SVG_MAX,
        .width_overhead = 2 * SVG_MARGIN + s.gutter,
        .size = SVG_PAGE_PX,
        .page_overhead =
            2 * SVG_MARGIN + SVG_TITLE_H + SVG_BOX_H + 36 + legend_lines * SVG_LEGEND_ROW,
        .rows = layout->page_size,
    };
    const struct measures measures = {&limits, column, svg_size, &s};
    struct plan plan;
    draw_plan(d, &measures, &plan);
    s.plan = &plan;
    struct svg_page *pages = xcalloc(plan.npages, sizeof *pages);
    for (size_t page = 0; page < plan.npages; page++)
        svg_page(&s, page, column, times_shown, &pages[page]);
    size_t *x = xmalloc(plan.npages * sizeof *x), *y = xmalloc(plan.npages * sizeof *y);
    size_t width, height;
    if (plan.npages == 1) {
        x[0] = y[0] = 0;
        width = pages[0].width;
        height = pages[0].height;
    } else {
        svg_grid(pages, plan.npages, x, y, &width, &height);
    }
    svg_document(d, width, height, out);
    for (size_t page = 0; page < plan.npages; page++) {
        if (plan.npages > 1)
            sb_addf(out,
                    "<g class=\"page\" id=\"page-%zu\" transform=\"translate(%zu %zu)\">\n"
                    "<rect class=\"frame\" width=\"%zu\" height=\"%zu\" fill=\"none\" "
                    "stroke=\"#bbbbbb\"/>\n",
                    page + 1, x[page], y[page], pages[page].width, pages[page].height);
        sb_add(out, pages[page].text.buf, pages[page].text.len);
        if (plan.npages > 1)
            sb_adds(out, "</g>\n");
        sb_free(&pages[page].text);
    }
    sb_adds(out, "</svg>\n");
    fit->pages = plan.npages;
    fit->width = width;
    fit->height = height;
    fit->too_big = plan.oversize || width > DIAGRAM_SVG_MAX || height > DIAGRAM_SVG_MAX;
    free(x);
    free(y);
    free(pages);
    draw_plan_free(&plan);
    free(column);
    free(s.slot);
}
