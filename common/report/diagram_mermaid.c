#include "report/drawing.h"

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
    draw_finding(w, mark, text, SOURCE_NOTE_MAX);
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
    draw_when(&m->when, r, when);
    bool boxed = r->worst != MARK_NONE;
    if (boxed)
        mermaid_rect(out, tone_of_mark(r->worst));
    for (size_t i = 0; i < r->n; i++) {
        sb_addf(out, "    p%zu->>p%zu: %s%s", r->from + 1, m->d->to[r->first + i] + 1, when,
                *when ? " " : "");
        draw_text(&m->w, r->label, SOURCE_LABEL_MAX);
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
    static const struct legend_words words = {"legend: ", "box", "in a note", draw_plain_word};
    draw_legend_lines(l, &words, &lines);
    for (char *line = lines.buf; line && *line;) {
        char *end = strchr(line, '\n');
        *end = '\0';
        sb_addf(m->w.out, "    Note over p1%s", m->d->nnames > 1 ? "," : "");
        if (m->d->nnames > 1)
            sb_addf(m->w.out, "p%zu", m->d->nnames);
        sb_adds(m->w.out, ": ");
        m->w.prev = 0;
        draw_ascii(&m->w, line);
        sb_addc(m->w.out, '\n');
        line = end + 1;
    }
    sb_free(&lines);
}

void draw_mermaid(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out)
{
    struct mermaid m = {d, {out, DIAGRAM_MERMAID, 0}, {.shown = !layout->no_times}};
    sb_adds(out, "sequenceDiagram\n");
    if (d->title) {
        sb_adds(out, "    title ");
        draw_text(&m.w, d->title, SOURCE_TITLE_MAX);
        sb_addc(out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_addf(out, "    participant p%zu as ", i + 1);
        draw_name(&m.w, d->names[i], SOURCE_NAME_MAX);
        sb_addc(out, '\n');
    }
    static const struct draw_sink sink = {mermaid_row, mermaid_standalone_note};
    draw_walk(d, &sink, &m);
    if (d->nnames) {
        struct legend l = draw_legend_of(d, !layout->no_times);
        mermaid_legend(&m, &l);
    }
}
