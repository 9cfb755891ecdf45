/* STUB until h7-diagram lands: see diagram.h. */
#include "diagram.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"

struct item {
    bool note;
    size_t from, to; /* a note's column in from */
    enum diagram_mark mark;
    char *text, *diagnostic;
};

struct diagram {
    enum diagram_format format;
    char *title;
    char **names;
    size_t nnames;
    struct item *items;
    size_t nitems, narrows;
    size_t *arrow_item;
};

struct diagram *diagram_new(enum diagram_format format, const char *title)
{
    struct diagram *d = xcalloc(1, sizeof *d);
    d->format = format;
    d->title = xstrdup(title);
    return d;
}

void diagram_free(struct diagram *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i]);
    for (size_t i = 0; i < d->nitems; i++) {
        free(d->items[i].text);
        free(d->items[i].diagnostic);
    }
    free(d->names);
    free(d->items);
    free(d->arrow_item);
    free(d->title);
    free(d);
}

size_t diagram_participant(struct diagram *d, const char *name)
{
    for (size_t i = 0; i < d->nnames; i++)
        if (strcmp(d->names[i], name) == 0)
            return i;
    d->names = xrealloc(d->names, (d->nnames + 1) * sizeof *d->names);
    d->names[d->nnames] = xstrdup(name);
    return d->nnames++;
}

static struct item *add_item(struct diagram *d)
{
    d->items = xrealloc(d->items, (d->nitems + 1) * sizeof *d->items);
    struct item *it = &d->items[d->nitems++];
    memset(it, 0, sizeof *it);
    return it;
}

size_t diagram_arrow(struct diagram *d, size_t from, size_t to, const char *label)
{
    struct item *it = add_item(d);
    it->from = from;
    it->to = to;
    it->text = xstrdup(label);
    d->arrow_item = xrealloc(d->arrow_item, (d->narrows + 1) * sizeof *d->arrow_item);
    d->arrow_item[d->narrows++] = d->nitems - 1;
    return d->narrows; /* numbered from 1, as h7-diagram's */
}

void diagram_mark(struct diagram *d, size_t n, enum diagram_mark mark, const char *diagnostic)
{
    if (n == 0 || n > d->narrows)
        return;
    struct item *it = &d->items[d->arrow_item[n - 1]];
    if (mark > it->mark)
        it->mark = mark;
    struct strbuf sb = STRBUF_INIT;
    if (it->diagnostic)
        sb_addf(&sb, "%s; ", it->diagnostic);
    sb_adds(&sb, diagnostic);
    free(it->diagnostic);
    it->diagnostic = sb_detach(&sb);
}

void diagram_note(struct diagram *d, size_t column, enum diagram_mark mark, const char *text)
{
    struct item *it = add_item(d);
    it->note = true;
    it->from = column;
    it->mark = mark;
    it->text = xstrdup(text);
}

size_t diagram_arrows(const struct diagram *d)
{
    return d->narrows;
}

static void put(struct strbuf *out, const char *s)
{
    escape_text(out, s, strlen(s), 0);
}

void diagram_write(const struct diagram *d, struct strbuf *out)
{
    static const char *const marks[] = {"", " [warning]", " [error]"};
    sb_adds(out, "stub diagram: ");
    put(out, d->title);
    sb_addc(out, '\n');
    for (size_t i = 0; i < d->nitems; i++) {
        const struct item *it = &d->items[i];
        if (it->note) {
            sb_adds(out, "note over ");
            put(out, d->names[it->from]);
        } else {
            put(out, d->names[it->from]);
            sb_adds(out, " -> ");
            put(out, d->names[it->to]);
        }
        sb_adds(out, ": ");
        put(out, it->text);
        sb_adds(out, marks[it->mark]);
        if (it->diagnostic) {
            sb_adds(out, " (");
            put(out, it->diagnostic);
            sb_addc(out, ')');
        }
        sb_addc(out, '\n');
    }
}
