#include "report/drawing.h"

#include <stdint.h>
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

static void svg_arrow(struct svg_ctx *s, const struct row *r, size_t i, const char *gutter)
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
        widest = max_size(widest, draw_width(text.buf, SIZE_MAX, false));
    }
    s->when = saved;
    sb_free(&text);
    return widest;
}

void draw_svg(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out)
{
    struct strbuf body = STRBUF_INIT;
    struct svg_ctx s = {.d = d,
                        .w = {&body, DIAGRAM_SVG, 0},
                        .when = {.shown = !layout->no_times},
                        .several_files = d->nfiles > 1};
    size_t name_w = 0, label_w = 0, gutter_chars = svg_gutter_chars(&s);
    s.gutter = gutter_chars ? svg_px(gutter_chars) + 16 : 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, draw_name_width(d->names[i], SVG_NAME_MAX, false));
    for (size_t i = 0; i < d->nrows; i++)
        label_w = max_size(label_w, draw_width(d->rows[i].label, SVG_LABEL_MAX, false));
    s.gap = max_size(SVG_MIN_GAP, max_size(svg_px(name_w) + 40, svg_px(label_w) + 40));
    size_t top = SVG_MARGIN + (d->title ? SVG_TITLE_H : 0);
    s.y = top + SVG_BOX_H + 12;
    s.right = SVG_MARGIN + s.gutter + d->nnames * s.gap;
    static const struct draw_sink sink = {svg_row, svg_note};
    sb_add(&body, "", 0);
    draw_walk(d, &sink, &s);
    size_t lifelines_end = s.y + 12;
    struct legend l = draw_legend_of(d, !layout->no_times);
    svg_legend(&s, &l);
    size_t height = s.y + 12 + SVG_MARGIN;
    size_t width = max_size(SVG_MIN_WIDTH, s.right + SVG_MARGIN);
    if (d->title)
        width = max_size(width, 2 * SVG_MARGIN +
                                    svg_px(draw_width(d->title, SVG_TITLE_MAX, false)) * 7 / 6);

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
    if (d->title) {
        sb_addf(out,
                "<text class=\"title\" x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">",
                SVG_MARGIN, SVG_MARGIN + 16);
        draw_text(&w, d->title, SVG_TITLE_MAX);
        sb_adds(out, "</text>\n");
    }
    for (size_t i = 0; i < d->nnames; i++) {
        size_t x = svg_x(&s, i);
        size_t box = svg_px(draw_name_width(d->names[i], SVG_NAME_MAX, false)) + 16;
        sb_addf(out, "<g class=\"participant\" id=\"participant-%zu\">\n<title>", i + 1);
        draw_text(&w, d->names[i], SVG_TIP_MAX);
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
        draw_name(&w, d->names[i], SVG_NAME_MAX);
        sb_adds(out, "</text>\n</g>\n");
    }
    sb_add(out, body.buf, body.len);
    sb_adds(out, "</svg>\n");
    sb_free(&body);
}
