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

/* The texts a diagram keeps come from blocks of its own, which go (or are emptied) at once with
 * it: the HTML report drops a diagram of most conversations, and freeing each label and name
 * apart, cold by then, was much of what dropping one cost. */
static char *kept_text(struct diagram *d, const char *text)
{
    size_t len = strnlen(text, TEXT_KEPT + 1);
    if (len <= TEXT_KEPT)
        return arena_copy(&d->texts, text, len);
    size_t cut = utf8_cut(text, len, TEXT_KEPT - 3);
    char *kept = arena_alloc(&d->texts, cut + 4);
    memcpy(kept, text, cut);
    memcpy(kept + cut, "...", 4);
    return kept;
}

static char *kept_name(struct diagram *d, const char *name, size_t len)
{
    if (len <= NAME_HEAD + NAME_TAIL)
        return arena_copy(&d->texts, name, len);
    size_t head = utf8_cut(name, len, NAME_HEAD), tail = utf8_tail(name, len, NAME_TAIL);
    char *kept = arena_alloc(&d->texts, head + 3 + (len - tail) + 1);
    memcpy(kept, name, head);
    memcpy(kept + head, "...", 3);
    memcpy(kept + head + 3, name + tail, len - tail);
    kept[head + 3 + len - tail] = '\0';
    return kept;
}

/* A diagram's texts start in a block of this many bytes (a conversation's labels, names and
 * file), each next block twice the last, up to the arena's usual size. */
enum { TEXTS_FIRST_BLOCK = 256, TEXTS_LAST_BLOCK = 64 * 1024 };

struct diagram *diagram_new(enum diagram_format format, const char *title)
{
    struct diagram *d = xcalloc(1, sizeof *d);
    d->format = format;
    d->texts = (struct arena){.block_size = TEXTS_FIRST_BLOCK, .grow_to = TEXTS_LAST_BLOCK};
    diagram_restart(d, title);
    return d;
}

void diagram_restart(struct diagram *d, const char *title)
{
    if (d->columns)
        strmap_free(d->columns, NULL);
    d->columns = NULL;
    d->nnames = d->nrows = d->nto = d->nnotes = d->nfiles = 0;
    arena_reset(&d->texts);
    d->title = title && *title ? kept_text(d, title) : NULL;
}

void diagram_free(struct diagram *d)
{
    if (!d)
        return;
    if (d->columns)
        strmap_free(d->columns, NULL);
    free(d->key_secret);
    free(d->rows);
    free(d->to);
    free(d->notes);
    free(d->names);
    free(d->files);
    arena_free(&d->texts);
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
            d->names[d->nnames] = kept_name(d, name, len);
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
    d->names[d->nnames] = kept_name(d, name, len);
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
        d->files[d->nfiles++] = arena_copy(&d->texts, file, strlen(file));
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
        .label = kept_text(d, m->label),
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
    if ((r->nmarks & (r->nmarks - 1)) == 0) { /* full: its room is the power of two at or past n */
        struct finding *more =
            arena_alloc(&d->texts, (r->nmarks ? 2 * r->nmarks : 1) * sizeof *more);
        if (r->nmarks)
            memcpy(more, r->marks, r->nmarks * sizeof *more);
        r->marks = more;
    }
    r->marks[r->nmarks++] = (struct finding){mark, kept_text(d, diagnostic)};
    if (mark > r->worst)
        r->worst = mark;
}

static void add_note(struct diagram *d, const struct note *n)
{
    d->notes = xgrow(d->notes, &d->notes_cap, d->nnotes + 1, sizeof *d->notes);
    d->notes[d->nnotes] = *n;
    d->notes[d->nnotes++].text = kept_text(d, n->text);
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
