#include "report/drawing.h"

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
static void plantuml_row(void *ctx, const struct row *r, size_t number)
{
    struct plantuml *p = ctx;
    struct strbuf *out = p->w.out;
    char when[WHEN_SIZE];
    (void)number;
    draw_when(&p->when, r, when);
    for (size_t i = 0; i < r->n; i++) {
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
    draw_legend_lines(l, &words, &lines);
    if (lines.len)
        sb_addf(out, "legend\n%sendlegend\n", lines.buf);
    sb_free(&lines);
}

void draw_plantuml(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out)
{
    struct plantuml p = {d, {out, DIAGRAM_PLANTUML, 0}, {.shown = !layout->no_times}};
    sb_adds(out, "@startuml\n");
    if (d->title) {
        sb_adds(out, "title ");
        draw_text(&p.w, d->title, SOURCE_TITLE_MAX);
        sb_addc(out, '\n');
    }
    for (size_t i = 0; i < d->nnames; i++) {
        sb_adds(out, "participant \"");
        draw_name(&p.w, d->names[i], SOURCE_NAME_MAX);
        sb_addf(out, "\" as p%zu\n", i + 1);
    }
    static const struct draw_sink sink = {plantuml_row, plantuml_standalone_note};
    draw_walk(d, &sink, &p);
    struct legend l = draw_legend_of(d, !layout->no_times);
    plantuml_legend(out, &l);
    sb_adds(out, "@enduml\n");
}
