#include "diag/findings.h"

#include <stdlib.h>
#include <string.h>

static void keep(struct findings *list, const struct finding *f)
{
    if (list->n == FINDINGS_KEPT) {
        list->omitted++;
        free(f->message);
        return;
    }
    if (list->n == list->cap) {
        list->cap = list->cap ? 2 * list->cap : 2;
        list->v = xrealloc(list->v, list->cap * sizeof *list->v);
    }
    list->v[list->n++] = *f;
}

void findings_add(struct findings **list, const struct diag_finding *finding)
{
    if (!*list)
        *list = xcalloc(1, sizeof **list);
    const struct diag_where *w = finding->where;
    struct finding f = {
        .code = finding->code,
        .severity = finding->severity,
        .file = w->file,
        .line = w->line,
        .column = w->column,
        .related_line = w->related_line,
        .message = xstrndup(finding->message, finding->message_len),
    };
    if (w->related_line && w->related_file && w->file && strcmp(w->related_file, w->file) != 0)
        f.related_file = w->related_file;
    if (finding->severity == SEV_ERROR)
        (*list)->errors = true;
    keep(*list, &f);
}

void findings_move(struct findings **to, struct findings **from)
{
    struct findings *src = *from;
    if (!src)
        return;
    if (!*to) {
        *to = src;
        *from = NULL;
        return;
    }
    for (size_t i = 0; i < src->n; i++)
        keep(*to, &src->v[i]);
    (*to)->omitted += src->omitted;
    (*to)->errors = (*to)->errors || src->errors;
    src->n = 0;
    findings_free(src);
    *from = NULL;
}

void findings_print(struct diag_sink *sink, const struct findings *list)
{
    for (size_t i = 0; list && i < list->n; i++) {
        const struct finding *f = &list->v[i];
        const struct diag_where at = {
            .file = f->file,
            .line = f->line,
            .column = f->column,
            .related_file = f->related_file,
            .related_line = f->related_line,
        };
        diag_print(sink, &at, f->severity, f->code, f->message, strlen(f->message));
    }
}

void findings_free(struct findings *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->n; i++)
        free(list->v[i].message);
    free(list->v);
    free(list);
}
