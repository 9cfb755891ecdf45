#include "report/drawing.h"

#include <math.h>
#include <stdlib.h>

/* ---- PlantUML ---- */

/* PlantUML draws no image larger than 4,096 pixels either way (PLANTUML_LIMIT_SIZE): it cuts
 * the rest off. A page's pixels are estimated from PlantUML's default skin (1.2020): a message
 * some 30 pixels high, a note 40, a character of a label or note some 7 wide, of a name 9; kept
 * under 4,000 with room to spare. */
enum {
    PLANTUML_PAGE_PX = 4000,
    PLANTUML_ARROW_PX = 30,
    PLANTUML_SELF_PX = 45,
    PLANTUML_NOTE_PX = 40,
    PLANTUML_LEGEND_LINE_PX = 20,
    PLANTUML_HEADER_PX = 170, /* title, the boxes at the top and foot of the columns, margins */
    PLANTUML_TEXT_PX = 7,
    PLANTUML_NAME_PX = 9,
    PLANTUML_PAD_PX = 40,
    PLANTUML_WHEN_CHARS = 36, /* "2011-08-02 11:21:40.250 +1d00h00m08s " */
    /* PlantUML 1.2020 lays the whole diagram out again for each page after a newpage: the 23
     * pages of 2,000 messages took 234 s in one block, 65 s in blocks of 2 pages, 41 s in blocks
     * of one. Two keep the work in proportion to the messages. */
    PLANTUML_BLOCK_PAGES = 2,
};

struct plantuml {
    const struct diagram *d;
    const struct plan *plan;
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
    plantuml_colour(out, draw_stroke[tone]);
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
        plantuml_colour(w->out, draw_fill[tone]);
    }
    sb_adds(w->out, " : ");
    draw_finding(w, n->outcome ? MARK_NONE : n->mark, n->text, SOURCE_NOTE_MAX);
    sb_addc(w->out, '\n');
}

/* Our own words hold no creole (no "--", "__" or "//") and go as they are. */
static void plantuml_piece(void *ctx, const struct piece *pc)
{
    struct plantuml *p = ctx;
    const struct row *r = pc->r;
    struct strbuf *out = p->w.out;
    char when[WHEN_SIZE];
    draw_when(&p->when, r, when);
    for (size_t i = pc->first; i < pc->first + pc->n; i++) {
        sb_addf(out, "p%zu -", r->from + 1);
        if (r->worst != MARK_NONE) {
            sb_adds(out, "[");
            plantuml_colour(out, draw_stroke[tone_of_mark(r->worst)]);
            sb_adds(out, "]");
        }
        sb_addf(out, "> p%zu : %s%s", p->d->to[r->first + i] + 1, when, *when ? " " : "");
        draw_text(&p->w, r->label, SOURCE_LABEL_MAX);
        sb_addc(out, '\n');
    }
    for (size_t k = 0; pc->last && k < r->nmarks; k++)
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

/* The legend's lines, without the box around them. */
static void plantuml_legend_lines(const struct legend *l, struct strbuf *lines)
{
    static const struct legend_words words = {"", "arrow", "in a note", plantuml_coloured};
    draw_legend_lines(l, &words, lines);
}

static void plantuml_legend(struct strbuf *out, const struct legend *l)
{
    struct strbuf lines = STRBUF_INIT;
    plantuml_legend_lines(l, &lines);
    if (lines.len)
        sb_addf(out, "legend\n%sendlegend\n", lines.buf);
    sb_free(&lines);
}

static void plantuml_title(struct plantuml *p, const char *keyword, size_t page)
{
    size_t pages = p->plan->npages;
    if (!p->d->title && pages == 1)
        return;
    sb_adds(p->w.out, keyword);
    if (p->d->title)
        draw_text(&p->w, p->d->title, SOURCE_TITLE_MAX);
    if (pages > 1)
        sb_addf(p->w.out, "%spage %zu of %zu", p->d->title ? " - " : "", page + 1, pages);
    sb_addc(p->w.out, '\n');
}

/* Pages first to end - 1, one block: their columns, each page after a newpage, the legend of
 * them all (which PlantUML draws on each). */
static void plantuml_block(struct plantuml *p, size_t first, size_t end, size_t *cols,
                           bool times_shown)
{
    static const struct draw_sink sink = {plantuml_piece, plantuml_standalone_note};
    struct strbuf *out = p->w.out;
    sb_adds(out, "@startuml\n");
    plantuml_title(p, "title ", first);
    size_t n = draw_page_columns(p->d, p->plan, first, end, cols);
    for (size_t i = 0; i < n; i++) {
        sb_adds(out, "participant \"");
        draw_name(&p->w, p->d->names[cols[i]], SOURCE_NAME_MAX);
        sb_addf(out, "\" as p%zu\n", cols[i] + 1);
    }
    for (size_t page = first; page < end; page++) {
        if (page > first)
            plantuml_title(p, "newpage ", page);
        p->when.day_known = false;
        draw_page(p->d, p->plan, page, &sink, p);
    }
    struct legend l = draw_legend_of(p->d, p->plan, first, end, times_shown);
    plantuml_legend(out, &l);
    sb_adds(out, "@enduml\n");
}

/* The pixels of a page's thing. */
static size_t plantuml_size(void *ctx, const struct item *it)
{
    const struct plantuml *p = ctx;
    static const struct heights heights = {PLANTUML_ARROW_PX, PLANTUML_SELF_PX, PLANTUML_NOTE_PX,
                                           PLANTUML_NOTE_PX};
    return draw_height(p->d, it, &heights);
}

static void widen(size_t *column, size_t c, size_t px)
{
    column[c] = max_size(column[c], px);
}

/* How wide each column may make a block, at the most: its name's box, or the longest label or
 * note next to it (a note over two columns, half of it each). */
static size_t *plantuml_columns(const struct diagram *d, bool times_shown)
{
    size_t *column = xcalloc(d->nnames + 1, sizeof *column);
    for (size_t c = 0; c < d->nnames; c++)
        column[c] = draw_name_width(d->names[c], SOURCE_NAME_MAX, false) * PLANTUML_NAME_PX;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct row *r = &d->rows[i];
        size_t label = draw_width(r->label, SOURCE_LABEL_MAX, false) +
                       (times_shown && !isnan(r->time) ? PLANTUML_WHEN_CHARS : 0);
        widen(column, r->from, label * PLANTUML_TEXT_PX);
        for (size_t k = 0; k < r->n; k++)
            widen(column, d->to[r->first + k], label * PLANTUML_TEXT_PX);
        for (size_t k = 0; k < r->nmarks; k++) {
            size_t note =
                (draw_width(r->marks[k].text, SOURCE_NOTE_MAX, false) + 9) * PLANTUML_TEXT_PX;
            widen(column, r->from, note / 2);
            widen(column, last_to(d, r), note / 2);
        }
    }
    for (size_t i = 0; i < d->nnotes; i++) {
        const struct note *n = &d->notes[i];
        size_t note = (draw_width(n->text, SOURCE_NOTE_MAX, false) + 9) * PLANTUML_TEXT_PX;
        widen(column, n->a, n->a == n->b ? note : note / 2);
        widen(column, n->b, n->a == n->b ? note : note / 2);
    }
    for (size_t c = 0; c < d->nnames; c++)
        column[c] += PLANTUML_PAD_PX;
    return column;
}

/* One page, as it always was; more, pages of a block after newpage, and blocks where their
 * columns would be too wide for an image. */
void draw_plantuml(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
                   struct diagram_fit *fit)
{
    bool times_shown = !layout->no_times;
    struct plantuml p = {d, NULL, {out, DIAGRAM_PLANTUML, 0}, {.shown = times_shown}};
    size_t *column = plantuml_columns(d, times_shown);
    struct strbuf lines = STRBUF_INIT;
    struct legend whole = draw_legend_of(d, NULL, 0, 0, times_shown);
    plantuml_legend_lines(&whole, &lines);
    size_t legend_lines = 0;
    for (size_t i = 0; i < lines.len; i++)
        legend_lines += lines.buf[i] == '\n';
    sb_free(&lines);
    const struct limits limits = {
        .width = PLANTUML_PAGE_PX,
        .width_overhead = PLANTUML_PAD_PX,
        .size = PLANTUML_PAGE_PX,
        .page_overhead = PLANTUML_HEADER_PX + (legend_lines + 1) * PLANTUML_LEGEND_LINE_PX,
        .block_pages = PLANTUML_BLOCK_PAGES,
        .rows = layout->page_size,
    };
    const struct measures measures = {&limits, column, plantuml_size, &p};
    struct plan plan;
    draw_plan(d, &measures, &plan);
    p.plan = &plan;
    size_t *cols = xmalloc((d->nnames + 1) * sizeof *cols);
    for (size_t first = 0, end; first < plan.npages; first = end) {
        for (end = first + 1; end < plan.npages && !plan.pages[end].block; end++)
            continue;
        plantuml_block(&p, first, end, cols, times_shown);
    }
    free(cols);
    fit->pages = plan.npages;
    fit->too_big = plan.oversize;
    draw_plan_free(&plan);
    free(column);
}
