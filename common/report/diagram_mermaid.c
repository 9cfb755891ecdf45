#include "report/drawing.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Mermaid ---- */

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

/* Mermaid draws nothing of a text longer than its maxTextSize, 50,000 characters (UTF-16 units,
 * which are no more than bytes): a page's text stays under it, with room to spare. */
enum { MERMAID_PAGE_TEXT = 49000 };

struct mermaid {
    const struct diagram *d;
    const struct plan *plan;
    struct writer w;
    struct when when;
    struct strbuf scratch; /* a thing written to be measured */
};

static void mermaid_note(struct writer *w, size_t a, size_t b, enum diagram_mark mark,
                         const char *text)
{
    sb_addf(w->out, "    Note over p%zu", min_size(a, b) + 1);
    if (a != b)
        sb_addf(w->out, ",p%zu", max_size(a, b) + 1);
    sb_adds(w->out, ": ");
    draw_finding(w, mark, text, SOURCE_NOTE_MAX);
    sb_addc(w->out, '\n');
}

/* Our own words, which hold no ';' or '#' and begin with no "wrap:", go as they are in a
 * message's text. */
static void mermaid_piece(void *ctx, const struct piece *p)
{
    struct mermaid *m = ctx;
    const struct row *r = p->r;
    struct strbuf *out = m->w.out;
    char when[WHEN_SIZE];
    draw_when(&m->when, r, when);
    bool boxed = r->worst != MARK_NONE;
    if (boxed)
        mermaid_rect(out, tone_of_mark(r->worst));
    for (size_t i = p->first; i < p->first + p->n; i++) {
        sb_addf(out, "    p%zu->>p%zu: %s%s", r->from + 1, m->d->to[r->first + i] + 1, when,
                *when ? " " : "");
        draw_text(&m->w, r->label, SOURCE_LABEL_MAX);
        sb_addc(out, '\n');
    }
    for (size_t k = 0; p->last && k < r->nmarks; k++)
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

/* The legend: a note a line under the messages, over columns first to last. */
static void mermaid_legend(struct mermaid *m, const struct legend *l, size_t first, size_t last)
{
    struct strbuf lines = STRBUF_INIT;
    static const struct legend_words words = {"legend: ", "box", "in a note", draw_plain_word};
    draw_legend_lines(l, &words, &lines);
    for (char *line = lines.buf; line && *line;) {
        char *end = strchr(line, '\n');
        *end = '\0';
        sb_addf(m->w.out, "    Note over p%zu", first + 1);
        if (last != first)
            sb_addf(m->w.out, ",p%zu", last + 1);
        sb_adds(m->w.out, ": ");
        m->w.prev = 0;
        draw_ascii(&m->w, line);
        sb_addc(m->w.out, '\n');
        line = end + 1;
    }
    sb_free(&lines);
}

static void mermaid_title(struct mermaid *m, size_t page)
{
    size_t pages = m->plan ? m->plan->npages : 2;
    if (!m->d->title && pages == 1)
        return;
    sb_adds(m->w.out, "    title ");
    if (m->d->title)
        draw_text(&m->w, m->d->title, SOURCE_TITLE_MAX);
    if (pages > 1)
        sb_addf(m->w.out, "%spage %zu of %zu", m->d->title ? " - " : "", page + 1, pages);
    sb_addc(m->w.out, '\n');
}

static void mermaid_participant(struct mermaid *m, size_t column)
{
    sb_addf(m->w.out, "    participant p%zu as ", column + 1);
    draw_name(&m->w, m->d->names[column], SOURCE_NAME_MAX);
    sb_addc(m->w.out, '\n');
}

static const struct draw_sink mermaid_sink = {mermaid_piece, mermaid_standalone_note};

/* What a thing adds to a page's text: as much as with its date, which it may have. */
static size_t mermaid_size(void *ctx, const struct item *it)
{
    struct mermaid *m = ctx;
    struct strbuf *out = m->w.out;
    m->w.out = &m->scratch;
    sb_reset(&m->scratch);
    m->when.day_known = false;
    if (it->note)
        mermaid_standalone_note(m, it->note);
    else
        mermaid_piece(m, &(struct piece){it->row, it->first, it->n, true});
    m->w.out = out;
    return m->scratch.len;
}

/* What a page takes beside its things and columns: its header, its longest title, and as long
 * a legend as the diagram's (over the columns of the longest ids). */
static size_t mermaid_page_overhead(struct mermaid *m, bool times_shown)
{
    struct strbuf *out = m->w.out;
    m->w.out = &m->scratch;
    sb_reset(&m->scratch);
    sb_adds(&m->scratch, "sequenceDiagram\n");
    mermaid_title(m, SIZE_MAX / 2);
    struct legend l = draw_legend_of(m->d, NULL, 0, 0, times_shown);
    mermaid_legend(m, &l, m->d->nnames, m->d->nnames + 1);
    m->w.out = out;
    return m->scratch.len;
}

static void mermaid_page(struct mermaid *m, size_t page, size_t *cols, bool times_shown)
{
    sb_adds(m->w.out, "sequenceDiagram\n");
    mermaid_title(m, page);
    size_t n = draw_page_columns(m->d, m->plan, page, page + 1, cols);
    for (size_t i = 0; i < n; i++)
        mermaid_participant(m, cols[i]);
    m->when.day_known = false;
    draw_page(m->d, m->plan, page, &mermaid_sink, m);
    if (n) {
        struct legend l = draw_legend_of(m->d, m->plan, page, page + 1, times_shown);
        mermaid_legend(m, &l, cols[0], cols[n - 1]);
    }
}

/* One page: a Mermaid document. More, or pages asked for (--page-size): a Markdown document, a
 * fenced mermaid block a page, which mmdc draws as an image a page, so that what a recipe does
 * with the file does not hang on the capture's size. */
void draw_mermaid(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
                  struct diagram_fit *fit)
{
    struct mermaid m = {
        d, NULL, {out, DIAGRAM_MERMAID, 0}, {.shown = !layout->no_times}, STRBUF_INIT};
    size_t *column = xmalloc((d->nnames + 1) * sizeof *column);
    m.w.out = &m.scratch;
    for (size_t c = 0; c < d->nnames; c++) {
        sb_reset(&m.scratch);
        mermaid_participant(&m, c);
        column[c] = m.scratch.len;
    }
    m.w.out = out;
    const struct limits limits = {.width = SIZE_MAX,
                                  .size = MERMAID_PAGE_TEXT,
                                  .page_overhead = mermaid_page_overhead(&m, !layout->no_times),
                                  .width_in_size = true,
                                  .rows = layout->page_size};
    const struct measures measures = {&limits, column, mermaid_size, &m};
    struct plan plan;
    draw_plan(d, &measures, &plan);
    m.plan = &plan;
    bool markdown = plan.npages > 1 || layout->page_size > 0;
    size_t *cols = xmalloc((d->nnames + 1) * sizeof *cols);
    for (size_t page = 0; page < plan.npages; page++) {
        if (markdown)
            sb_adds(out, page ? "```\n\n```mermaid\n" : "```mermaid\n");
        mermaid_page(&m, page, cols, !layout->no_times);
    }
    free(cols);
    if (markdown)
        sb_adds(out, "```\n");
    fit->pages = plan.npages;
    fit->too_big = plan.oversize;
    draw_plan_free(&plan);
    free(column);
    sb_free(&m.scratch);
}
