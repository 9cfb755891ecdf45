#include "report/drawing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    draw_text(&w, s, max);
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
    draw_finding(&w, mark, text, SOURCE_NOTE_MAX);
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

static void text_message(void *ctx, const struct piece *p)
{
    struct text_ctx *t = ctx;
    const struct row *r = p->r;
    for (size_t i = p->first; i < p->first + p->n; i++)
        text_arrow(t, r->from, t->d->to[r->first + i], r->label, r->first + i + 1, r->worst);
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

/* One page, whatever it holds (for now). */
static size_t text_nothing(void *ctx, const struct item *it)
{
    (void)ctx;
    (void)it;
    return 0;
}

void draw_flow(const struct diagram *d, struct strbuf *out, const struct diagram_flush *flush)
{
    struct text_ctx t = {.d = d, .out = out, .flush = flush, .tmp = STRBUF_INIT};
    size_t name_w = 0, label_w = 0;
    for (size_t i = 0; i < d->nnames; i++)
        name_w = max_size(name_w, draw_width(d->names[i], TEXT_NAME_MAX, true));
    for (size_t i = 0; i < d->nrows; i++)
        label_w = max_size(label_w, draw_width(d->rows[i].label, TEXT_LABEL_MAX, true));
    t.gap = max_size(TEXT_MIN_GAP, max_size(name_w + 2, label_w + 6));
    /* Half a gap more: the label of an arrow to oneself in the last column. */
    t.width = TEXT_GUTTER + d->nnames * t.gap + t.gap / 2;
    t.row = xmalloc(t.width + 1);
    if (d->title) {
        struct writer w = {out, DIAGRAM_TEXT, 0};
        draw_text(&w, d->title, SOURCE_TITLE_MAX);
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
    static const struct draw_sink sink = {text_message, text_standalone_note};
    static const struct limits limits = {.width = SIZE_MAX, .size = SIZE_MAX};
    static const size_t none;
    const struct measures measures = {&limits, &none, text_nothing, NULL};
    struct plan plan;
    draw_plan(d, &measures, &plan);
    draw_page(d, &plan, 0, &sink, &t);
    draw_plan_free(&plan);
    text_row(&t);
    text_emit(&t);
    free(t.row);
    sb_free(&t.tmp);
}
