#include "report/drawing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"

/* ---- Text: a flow for a terminal ----
 *
 * Lines of `width` columns at the most. A row a message: a gutter (where it was read, the flag of
 * its worst finding, its time and delta), then the lifelines of the agents of its band, the
 * arrow to each of its receivers, and its label after them; its findings wrapped under it. A
 * band is a page: as many messages as keep their columns within the width, its columns those of
 * its agents alone, each as wide as its name, under a line of their names. */

enum {
    TEXT_WIDTH = 80,      /* off a terminal, without --width */
    TEXT_NAME_MAX = 20,   /* a name is cut in the middle to this, or less in a narrow width */
    TEXT_NAME_MIN = 5,    /* but not to less */
    TEXT_SLOT_MIN = 6,    /* a column's width at the least: room for "|-->|" between two */
    TEXT_LABEL_MIN = 12,  /* kept right of a band's columns for the labels */
    TEXT_NOTE_MIN = 32,   /* a note's lines are as wide as this at the least */
    TEXT_SOURCE_MAX = 24, /* file:line, cut at its start */
    TEXT_LABEL_MAX = 100,
    TEXT_TIME = 8,     /* HH:MM:SS */
    TEXT_TIME_MS = 12, /* HH:MM:SS.mmm */
};

struct flow {
    const struct diagram *d;
    const struct plan *plan;
    struct strbuf *out;
    const struct diagram_flush *flush;
    size_t width, name_max;
    bool color;
    struct when when;
    bool several_files;
    size_t source_w, time_w, delta_w; /* the gutter's fields; 0: none */
    size_t gutter;                    /* where the columns start */
    size_t *slot;                     /* each column's width */
    size_t *x;                        /* each column's lifeline on the band drawn */
    size_t *cols, ncols;              /* the band's columns, in order */
    size_t busiest;                   /* the column of the most arrows, first in every band */
    char *cells;                      /* the line being drawn */
    unsigned char *ink;               /* each cell's tone */
    struct strbuf tmp;
};

/* ---- A line of cells ---- */

static void line_clear(struct flow *f)
{
    memset(f->cells, ' ', f->width);
    memset(f->ink, TONE_PLAIN, f->width);
}

/* The band's lifelines left of column upto (all of them with SIZE_MAX). */
static void line_lifelines(struct flow *f, size_t upto)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (f->x[f->cols[i]] < upto && f->x[f->cols[i]] < f->width)
            f->cells[f->x[f->cols[i]]] = '|';
}

static void line_put(struct flow *f, size_t at, const char *s, size_t len, enum tone tone)
{
    for (size_t i = 0; i < len && at + i < f->width; i++) {
        f->cells[at + i] = s[i];
        f->ink[at + i] = (unsigned char)tone;
    }
}

static const char *const sgr[] = {"",         "\033[1;35m", "\033[1;31m",
                                  "\033[32m", "\033[1m",    "\033[33m"};

/* Writes the line, its blanks at the end left out, in colour where it has any. */
static void line_emit(struct flow *f)
{
    size_t len = f->width;
    while (len > 0 && f->cells[len - 1] == ' ')
        len--;
    unsigned char inked = TONE_PLAIN;
    for (size_t i = 0; i < len; i++) {
        unsigned char tone = f->cells[i] == ' ' ? inked : f->ink[i];
        if (f->color && tone != inked) {
            sb_adds(f->out, inked != TONE_PLAIN ? "\033[0m" : "");
            sb_adds(f->out, sgr[tone]);
            inked = tone;
        }
        sb_addc(f->out, f->cells[i]);
    }
    if (f->color && inked != TONE_PLAIN)
        sb_adds(f->out, "\033[0m");
    sb_addc(f->out, '\n');
    diagram_flush_when_full(f->flush, f->out);
}

/* s made visible, in at most max columns, in f->tmp; a name cut in the middle. */
static const char *visible(struct flow *f, const char *s, size_t max, bool name)
{
    struct writer w = {&f->tmp, DIAGRAM_TEXT, 0};
    sb_reset(&f->tmp);
    if (name)
        draw_name(&w, s, max);
    else
        draw_text(&w, s, max);
    return f->tmp.buf;
}

/* ---- The gutter ---- */

/* Where r was read: its line, after its file's name where there are several (without its
 * folders, and cut at its start, where the room there is takes no more). */
static void source_text(const struct flow *f, const struct row *r, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!r->line)
        return;
    int len = snprintf(buf, size, "%lu", r->line);
    if (!f->several_files || !r->file || len < 0)
        return;
    struct strbuf file = STRBUF_INIT;
    struct writer w = {&file, DIAGRAM_TEXT, 0};
    size_t room = f->source_w > (size_t)len + 1 ? f->source_w - (size_t)len - 1 : 0;
    const char *base = strrchr(r->file, '/');
    draw_text(&w, r->file, SIZE_MAX);
    if (file.len > room && base && base[1]) { /* its name without its folders */
        sb_reset(&file);
        draw_text(&w, base + 1, SIZE_MAX);
    }
    if (file.len <= room)
        snprintf(buf, size, "%s:%lu", file.buf, r->line);
    else if (room > 3)
        snprintf(buf, size, "...%s:%lu", file.buf + file.len - (room - 3), r->line);
    sb_free(&file);
}

/* The time of day of r, and its delta, as the gutter shows them ("" when none). */
static void time_texts(const struct flow *f, const struct row *r, char *time, char *delta)
{
    char stamp[48];
    time[0] = delta[0] = '\0';
    if (!f->when.shown || isnan(r->time) || !time_format_rfc3339_ms(r->time, stamp, sizeof stamp))
        return;
    stamp[strlen(stamp) - 1] = '\0';
    snprintf(time, 16, "%.12s", stamp + 11); /* HH:MM:SS.mmm */
    if (!isnan(r->delta)) {
        char d[DIAGRAM_DURATION_SIZE];
        diagram_duration(r->delta, d, sizeof d);
        snprintf(delta, DIAGRAM_DURATION_SIZE + 1, "%s%s", r->delta < 0 ? "" : "+", d);
    }
}

/* The fields of the gutter, as wide as the widest of any message. */
static void size_gutter(struct flow *f)
{
    char source[64], time[16], delta[DIAGRAM_DURATION_SIZE + 1];
    bool lines = false;
    f->source_w = min_size(TEXT_SOURCE_MAX, max_size(16, f->width / 5)); /* source_text's cut */
    size_t source_w = 0;
    for (size_t i = 0; i < f->d->nrows; i++) {
        const struct row *r = &f->d->rows[i];
        source_text(f, r, source, sizeof source);
        time_texts(f, r, time, delta);
        lines = lines || r->line;
        source_w = max_size(source_w, strlen(source));
        f->time_w = max_size(f->time_w, strlen(time));
        f->delta_w = max_size(f->delta_w, strlen(delta));
    }
    f->source_w = lines ? max_size(source_w, 4) : 0; /* "line" over it */
    if (f->time_w)
        f->time_w = max_size(f->time_w, TEXT_TIME);
    if (f->time_w && f->delta_w)
        f->delta_w = max_size(f->delta_w, 5);
    /* source, flag, blank; time and two blanks; delta and two blanks */
    f->gutter =
        f->source_w + 2 + (f->time_w ? f->time_w + 2 : 0) + (f->delta_w ? f->delta_w + 2 : 0);
}

static char flag_of(enum tone tone)
{
    static const char flags[] = {'*', '!', 'X', '=', '=', '='};
    return flags[tone];
}

static void gutter_row(struct flow *f, const struct row *r)
{
    char source[64], time[16], delta[DIAGRAM_DURATION_SIZE + 1];
    source_text(f, r, source, sizeof source);
    time_texts(f, r, time, delta);
    size_t len = strlen(source);
    line_put(f, f->source_w - min_size(len, f->source_w), source, len, TONE_PLAIN);
    if (r->worst != MARK_NONE) {
        char flag = flag_of(tone_of_mark(r->worst));
        line_put(f, f->source_w, &flag, 1, tone_of_mark(r->worst));
    }
    size_t at = f->source_w + 2;
    line_put(f, at, time, strlen(time), TONE_PLAIN);
    if (f->time_w)
        at += f->time_w + 1;
    line_put(f, at + f->delta_w - min_size(strlen(delta), f->delta_w), delta, strlen(delta),
             TONE_PLAIN);
}

/* A line with the date in the time's place, where it changes. */
static void date_line(struct flow *f, const struct row *r)
{
    char stamp[48];
    if (!f->when.shown || !f->time_w || isnan(r->time) ||
        !time_format_rfc3339_ms(r->time, stamp, sizeof stamp))
        return;
    long long day = (long long)floor(r->time / 86400);
    if (f->when.day_known && f->when.day == day)
        return;
    f->when.day = day;
    f->when.day_known = true;
    line_clear(f);
    line_lifelines(f, SIZE_MAX);
    line_put(f, f->source_w + 2, stamp, 10, TONE_PLAIN);
    line_emit(f);
}

/* ---- Notes, wrapped under what they are about ---- */

/* Writes words over lines from column x + indent on, wrapped to the width (a word longer than
 * a line, cut), flag (when not '\0') at x on the first; lifelines left of x on each line. */
static void wrapped(struct flow *f, size_t x, size_t indent, char flag, enum tone tone,
                    const char *words, size_t len)
{
    size_t room = f->width > x + indent ? f->width - x - indent : 1;
    bool first = true;
    do {
        size_t take = len;
        if (take > room) { /* the last blank that fits, or a cut */
            take = room;
            while (take > 0 && words[take] != ' ')
                take--;
            if (take == 0)
                take = room;
        }
        line_clear(f);
        line_lifelines(f, x);
        if (first && flag)
            line_put(f, x, &flag, 1, tone);
        line_put(f, x + indent, words, take, tone);
        line_emit(f);
        words += take;
        len -= take;
        while (len > 0 && *words == ' ') {
            words++;
            len--;
        }
        first = false;
    } while (len > 0);
}

/* Words under what they are about, from column x on (further left when the width leaves them
 * too little room): the flag, then the words. */
static void under_lines(struct flow *f, size_t x, char flag, enum tone tone, const char *words,
                        size_t len)
{
    if (x + 2 + TEXT_NOTE_MIN > f->width)
        x = f->width > f->gutter + 2 + TEXT_NOTE_MIN ? f->width - 2 - TEXT_NOTE_MIN : f->gutter;
    wrapped(f, x, 2, flag, tone, words, len);
}

/* A finding or a note under what it is about: its flag, then its words. */
static void note_lines(struct flow *f, size_t x, char flag, enum tone tone, enum diagram_mark mark,
                       const char *text)
{
    struct strbuf words = STRBUF_INIT;
    struct writer w = {&words, DIAGRAM_TEXT, 0};
    draw_finding(&w, mark, text, SOURCE_NOTE_MAX);
    under_lines(f, x, flag, tone, words.buf, words.len);
    sb_free(&words);
}

/* ---- Messages ---- */

/* Draws the arrows of a piece of a message from its sender's lifeline to each receiver's (a
 * head before each), "<-+" for one to itself; the sender '+' where they go both ways, '@' where
 * it is a receiver too. Returns the column after the rightmost thing. */
static size_t arrows(struct flow *f, const struct piece *pc, enum tone tone)
{
    const struct row *r = pc->r;
    size_t xf = f->x[r->from], left = xf, right = xf;
    bool self = false;
    for (size_t i = pc->first; i < pc->first + pc->n; i++) {
        size_t xt = f->x[f->d->to[r->first + i]];
        self = self || xt == xf;
        left = min_size(left, xt);
        right = max_size(right, xt);
    }
    for (size_t c = left + 1; c < right; c++)
        line_put(f, c, "-", 1, tone);
    for (size_t i = pc->first; i < pc->first + pc->n; i++) {
        size_t xt = f->x[f->d->to[r->first + i]];
        line_put(f, xt, "|", 1, TONE_PLAIN);
        if (xt > xf)
            line_put(f, xt - 1, ">", 1, tone);
        else if (xt < xf)
            line_put(f, xt + 1, "<", 1, tone);
    }
    if (self && left == right) {
        line_put(f, xf + 1, "<-+", 3, tone);
        return xf + 4;
    }
    if (self) /* to itself too, among others */
        line_put(f, xf, "@", 1, tone);
    else if (left < xf && xf < right) /* to both sides: from where the arrows part */
        line_put(f, xf, "+", 1, tone);
    return right + 1;
}

static void flow_piece(void *ctx, const struct piece *pc)
{
    struct flow *f = ctx;
    const struct row *r = pc->r;
    enum tone tone = tone_of_mark(r->worst);
    date_line(f, r);
    line_clear(f);
    line_lifelines(f, SIZE_MAX);
    gutter_row(f, r);
    size_t end = arrows(f, pc, tone);
    size_t room = f->width > end + 1 ? f->width - end - 1 : 0;
    const char *label = visible(f, r->label, TEXT_LABEL_MAX, false);
    size_t len = strlen(label);
    bool beside = len <= room || room >= TEXT_LABEL_MIN;
    if (beside) {
        if (len > room)
            label = visible(f, r->label, room, false);
        /* and a blank after it, so that no lifeline it crosses reads as part of it */
        line_put(f, end + 1, label, strlen(label), tone);
        line_put(f, end + 1 + strlen(label), " ", 1, TONE_PLAIN);
    }
    line_emit(f);
    size_t left = f->x[r->from];
    for (size_t i = pc->first; i < pc->first + pc->n; i++)
        left = min_size(left, f->x[f->d->to[r->first + i]]);
    if (!beside) /* too little room right of its arrows: under them */
        under_lines(f, left, '\0', tone, label, len);
    for (size_t k = 0; pc->last && k < r->nmarks; k++)
        note_lines(f, left, flag_of(tone_of_mark(r->marks[k].mark)), tone_of_mark(r->marks[k].mark),
                   r->marks[k].mark, r->marks[k].text);
}

static void flow_note(void *ctx, const struct note *n)
{
    struct flow *f = ctx;
    note_lines(f, min_size(f->x[n->a], f->x[n->b]), n->outcome ? '=' : flag_of(tone_of(n)),
               tone_of(n), n->outcome ? MARK_NONE : n->mark, n->text);
}

/* ---- Bands ---- */

/* The column that sends or receives the most arrows (the first of those): the queen, a broker. */
static size_t busiest_column(const struct diagram *d)
{
    size_t *arrows = xcalloc(d->nnames + 1, sizeof *arrows), best = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct row *r = &d->rows[i];
        arrows[r->from] += r->n;
        for (size_t k = 0; k < r->n; k++)
            arrows[d->to[r->first + k]]++;
    }
    for (size_t c = 1; c < d->nnames; c++)
        if (arrows[c] > arrows[best])
            best = c;
    free(arrows);
    return best;
}

/* Of several bands, the busiest column goes first in each it is in, so that the eye finds it in
 * one place from band to band, whoever else takes part. */
static void busiest_first(struct flow *f)
{
    if (f->plan->npages < 2)
        return;
    for (size_t i = 1; i < f->ncols; i++)
        if (f->cols[i] == f->busiest) {
            memmove(f->cols + 1, f->cols, i * sizeof *f->cols);
            f->cols[0] = f->busiest;
            return;
        }
}

/* A band's head: the gutter's titles and the names of its columns, where their lifelines start. */
static void band_head(struct flow *f, size_t page)
{
    f->ncols = draw_page_columns(f->d, f->plan, page, page + 1, f->cols);
    busiest_first(f);
    size_t at = f->gutter;
    for (size_t i = 0; i < f->ncols; i++) {
        size_t c = f->cols[i];
        f->x[c] = at + f->slot[c] / 2;
        at += f->slot[c];
    }
    if (page)
        sb_addc(f->out, '\n');
    line_clear(f);
    if (f->source_w)
        line_put(f, f->source_w - 4, "line", 4, TONE_PLAIN);
    if (f->time_w)
        line_put(f, f->source_w + 2, "time", 4, TONE_PLAIN);
    if (f->delta_w)
        line_put(f, f->gutter - 2 - 5, "delta", 5, TONE_PLAIN);
    for (size_t i = 0; i < f->ncols; i++) {
        const char *name = visible(f, f->d->names[f->cols[i]], f->name_max, true);
        size_t len = strlen(name);
        line_put(f, f->x[f->cols[i]] - min_size(len / 2, f->x[f->cols[i]]), name, len, TONE_PLAIN);
    }
    line_emit(f);
}

/* Whether the diagram has a note of no severity, flagged '*'. */
static bool plain_notes(const struct diagram *d)
{
    for (size_t i = 0; i < d->nnotes; i++)
        if (!d->notes[i].outcome && d->notes[i].mark == MARK_NONE)
            return true;
    return false;
}

/* What the gutter and the flags mean, as far as the diagram has them. */
static void legend(struct flow *f)
{
    struct legend l = draw_legend_of(f->d, NULL, 0, 0, f->when.shown && f->time_w);
    struct strbuf text = STRBUF_INIT;
    if (f->source_w)
        sb_adds(&text, "line: where a message was read");
    if (l.times)
        sb_addf(&text,
                "%stime: when it was sent (UTC); +delta: how long after the previous "
                "message of its conversation",
                text.len ? "; " : "");
    if (text.len)
        wrapped(f, 0, 0, '\0', TONE_PLAIN, text.buf, text.len);
    sb_reset(&text);
    static const char *const words[] = {"a note", "a warning", "an error"};
    for (int tone = TONE_ERROR; tone >= TONE_PLAIN; tone--)
        if (tone == TONE_PLAIN ? plain_notes(f->d) : l.tones[tone])
            sb_addf(&text, "%s%c %s", text.len ? ", " : "", flag_of((enum tone)tone), words[tone]);
    if (l.ends[END_DONE] || l.ends[END_ENDED] || l.ends[END_OPEN] || l.ends[END_VIOLATED])
        sb_addf(&text, "%s= how a conversation ended, after its last message",
                text.len ? ", " : "");
    if (text.len)
        wrapped(f, 0, 0, '\0', TONE_PLAIN, text.buf, text.len);
    sb_free(&text);
}

static size_t flow_size(void *ctx, const struct item *it)
{
    (void)ctx;
    (void)it;
    return 0; /* a band is as long as it likes */
}

void draw_flow(const struct diagram *d, const struct diagram_layout *layout, struct strbuf *out,
               struct diagram_fit *fit)
{
    static const struct draw_sink sink = {flow_piece, flow_note};
    struct flow f = {.d = d,
                     .out = out,
                     .flush = layout->flush,
                     .width = layout->width ? layout->width : TEXT_WIDTH,
                     .color = layout->color,
                     .when = {.shown = !layout->no_times},
                     .several_files = d->nfiles > 1,
                     .tmp = STRBUF_INIT};
    size_gutter(&f);
    /* two columns and the room for labels, whatever the names */
    size_t room = f.width > f.gutter + TEXT_LABEL_MIN ? f.width - f.gutter - TEXT_LABEL_MIN : 0;
    f.name_max = max_size(TEXT_NAME_MIN, min_size(TEXT_NAME_MAX, room / 2 > 2 ? room / 2 - 2 : 0));
    f.slot = xmalloc((d->nnames + 1) * sizeof *f.slot);
    f.x = xcalloc(d->nnames + 1, sizeof *f.x);
    f.cols = xmalloc((d->nnames + 1) * sizeof *f.cols);
    for (size_t c = 0; c < d->nnames; c++)
        f.slot[c] = max_size(TEXT_SLOT_MIN, draw_name_width(d->names[c], f.name_max, true) + 2);
    f.cells = xmalloc(f.width + 1);
    f.ink = xmalloc(f.width + 1);
    f.busiest = busiest_column(d);
    const struct limits limits = {.width = f.width,
                                  .width_overhead = f.gutter + TEXT_LABEL_MIN,
                                  /* a message's columns before its label's room: a band
                                   * keeps two, for an arrow to itself in its last */
                                  .width_slack = TEXT_LABEL_MIN - 2,
                                  .size = SIZE_MAX,
                                  .rows = layout->page_size};
    const struct measures measures = {&limits, f.slot, flow_size, NULL};
    struct plan plan;
    draw_plan(d, &measures, &plan);
    f.plan = &plan;
    if (d->title) {
        struct writer w = {out, DIAGRAM_TEXT, 0};
        draw_text(&w, d->title, SOURCE_TITLE_MAX);
        sb_addc(out, '\n');
    }
    size_t before = out->len;
    legend(&f);
    if (d->title || out->len > before)
        sb_addc(out, '\n');
    for (size_t page = 0; page < plan.npages; page++) {
        band_head(&f, page);
        draw_page(d, &plan, page, &sink, &f);
    }
    fit->pages = plan.npages;
    fit->too_big = plan.oversize;
    draw_plan_free(&plan);
    free(f.slot);
    free(f.x);
    free(f.cols);
    free(f.cells);
    free(f.ink);
    sb_free(&f.tmp);
}
