#include "report/drawing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/keyform.h"
#include "base/utf8.h"

/* What a diagram keeps of a text of the input, so that what it holds follows what it shows and
 * not what the input sends (300 heartbeats of 1 MB senders held 580 MiB): a label, a note or a
 * mark up to TEXT_KEPT bytes, then "..."; a name up to NAME_HEAD + NAME_TAIL bytes, else its head
 * and its tail with "..." between, more of either end than any format shows (draw_name cuts a
 * name in the middle, to 64 columns at most); and a long name is told apart by its keyed digest
 * (keyform.h), not by its bytes. */
enum { TEXT_KEPT = 1024, NAME_HEAD = 512, NAME_TAIL = 256 };

static char *kept_text(const char *text)
{
    size_t len = strnlen(text, TEXT_KEPT + 1);
    if (len <= TEXT_KEPT)
        return xstrdup(text);
    size_t cut = utf8_cut(text, len, TEXT_KEPT - 3);
    char *kept = xmalloc(cut + 4);
    memcpy(kept, text, cut);
    memcpy(kept + cut, "...", 4);
    return kept;
}

static char *kept_name(const char *name, size_t len)
{
    if (len <= NAME_HEAD + NAME_TAIL)
        return xstrdup(name);
    struct strbuf kept = STRBUF_INIT;
    sb_add(&kept, name, utf8_cut(name, len, NAME_HEAD));
    sb_adds(&kept, "...");
    size_t tail = utf8_tail(name, len, NAME_TAIL);
    sb_add(&kept, name + tail, len - tail);
    return sb_detach(&kept);
}

struct diagram *diagram_new(enum diagram_format format, const char *title)
{
    struct diagram *d = xcalloc(1, sizeof *d);
    d->format = format;
    d->title = title && *title ? kept_text(title) : NULL;
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
    if (d->columns)
        strmap_free(d->columns, NULL);
    free(d->key_secret);
    free(d->rows);
    free(d->to);
    free(d->notes);
    free(d->names);
    free(d->files);
    free(d->title);
    free(d);
}

/* The form a name is told apart by: itself, or a long one's head and keyed digest, under a key
 * drawn when the diagram meets its first long name. */
static const char *column_key(struct diagram *d, const char *name, size_t len,
                              struct name_form_buf *buf)
{
    if (len <= KEY_SHOWN_BYTES)
        return name;
    if (!d->key_secret) {
        d->key_secret = xmalloc(sizeof *d->key_secret);
        key_secret_draw(d->key_secret);
    }
    return name_form(d->key_secret, name, len, buf);
}

/* Up to this many participants of short names (their own keys) are looked for one by one: a
 * conversation has two or three, and the HTML report makes and frees a diagram of each. */
enum { NAMES_SEARCHED = 8 };

/* The column of a short name among the first participants, all short, or -1. */
static long searched_column(const struct diagram *d, const char *name)
{
    for (size_t i = 0; i < d->nnames; i++)
        if (strcmp(d->names[i], name) == 0)
            return (long)i;
    return -1;
}

/* The participants from now on in a map by their keys: so far all of short names, their own. */
static void index_columns(struct diagram *d)
{
    d->columns = strmap_new();
    for (size_t i = 0; i < d->nnames; i++)
        strmap_put(d->columns, d->names[i], (void *)(uintptr_t)(i + 1));
}

size_t diagram_participant(struct diagram *d, const char *name)
{
    struct name_form_buf buf;
    size_t len = strlen(name);
    if (!d->columns && len <= KEY_SHOWN_BYTES) {
        long column = searched_column(d, name);
        if (column >= 0)
            return (size_t)column;
        if (d->nnames < NAMES_SEARCHED) {
            d->names = xgrow(d->names, &d->names_cap, d->nnames + 1, sizeof *d->names);
            d->names[d->nnames] = kept_name(name, len);
            return d->nnames++;
        }
    }
    if (!d->columns)
        index_columns(d);
    const char *key = column_key(d, name, len, &buf);
    uintptr_t known = (uintptr_t)strmap_get(d->columns, key);
    if (known)
        return (size_t)known - 1;
    d->names = xgrow(d->names, &d->names_cap, d->nnames + 1, sizeof *d->names);
    d->names[d->nnames] = kept_name(name, len);
    strmap_put(d->columns, key, (void *)(uintptr_t)(d->nnames + 1));
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
    d->to = xgrow(d->to, &d->to_cap, d->nto + m->nto, sizeof *d->to);
    memcpy(d->to + d->nto, m->to, m->nto * sizeof *m->to);
    d->rows = xgrow(d->rows, &d->rows_cap, d->nrows + 1, sizeof *d->rows);
    d->rows[d->nrows++] = (struct row){
        .from = m->from,
        .first = d->nto,
        .n = m->nto,
        .label = kept_text(m->label),
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
    r->marks[r->nmarks++] = (struct finding){mark, kept_text(diagnostic)};
    if (mark > r->worst)
        r->worst = mark;
}

static void add_note(struct diagram *d, const struct note *n)
{
    d->notes = xgrow(d->notes, &d->notes_cap, d->nnotes + 1, sizeof *d->notes);
    d->notes[d->nnotes] = *n;
    d->notes[d->nnotes++].text = kept_text(n->text);
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

void diagram_write(const struct diagram *d, struct strbuf *out)
{
    diagram_render(d, NULL, out);
}

void diagram_render(const struct diagram *d, const struct diagram_layout *layout,
                    struct strbuf *out)
{
    static const struct diagram_layout defaults = {0};
    struct diagram_fit ignored = {0};
    if (!layout)
        layout = &defaults;
    struct diagram_fit *fit = layout->fit ? layout->fit : &ignored;
    *fit = (struct diagram_fit){0};
    switch (d->format) {
    case DIAGRAM_MERMAID:
        draw_mermaid(d, layout, out, fit);
        break;
    case DIAGRAM_PLANTUML:
        draw_plantuml(d, layout, out, fit);
        break;
    case DIAGRAM_SVG:
        draw_svg(d, layout, out, fit);
        break;
    case DIAGRAM_TEXT:
        draw_flow(d, layout, out, fit);
        break;
    }
}
