/* MCP 2026-07-28's caching hints (Server Utilities, Caching): a complete result of
 * server/discover, of a list or of resources/read MUST carry ttlMs and cacheScope, public or
 * private, and the pages of one list MUST keep one scope. A page after the first is asked for with
 * the cursor the page before gave (nextCursor): the stream remembers the latest --max-open cursors
 * under their list's method and their page's scope. */
#include <stdio.h>
#include <string.h>

#include "engine/mcp_stream_parts.h"

static const char *const cacheable[] = {
    "server/discover",          "tools/list",     "prompts/list", "resources/list",
    "resources/templates/list", "resources/read", NULL,
};

/* The paged lists are the cacheable methods from tools/list on, up to resources/read. */
enum { FIRST_LIST = 1, AFTER_LISTS = 5 };

static const char *const scope_names[] = {
    [SCOPE_UNKNOWN] = "unknown",
    [SCOPE_PUBLIC] = "public",
    [SCOPE_PRIVATE] = "private",
};

/* p's method's place in cacheable, or -1. */
static int cacheable_method(const struct pending *p)
{
    for (int i = 0; cacheable[i]; i++)
        if (mcp_pending_method_is(p, cacheable[i]))
            return i;
    return -1;
}

static bool paged(int method)
{
    return method >= FIRST_LIST && method < AFTER_LISTS;
}

/* The key of cursor, a page of method's list that was of scope. */
static const char *cursor_key(struct mcp_stream *s, const struct fed *f, int method,
                              enum cache_scope scope, const struct jv *cursor)
{
    char name[64];
    snprintf(name, sizeof name, "%s %s", cacheable[method], scope_names[scope]);
    return mcp_scoped_key(s, f, name, cursor);
}

void mcp_caching_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                        const struct jv *msg)
{
    if (p->side == SIDE_SERVER || !mcp_session_of_2026(s, p->session))
        return;
    int method = cacheable_method(p);
    const struct jv *cursor = jv_object_get(jv_object_get(msg, "params"), "cursor");
    if (!paged(method) || !jv_is_string(cursor))
        return;
    for (enum cache_scope scope = SCOPE_PUBLIC; scope <= SCOPE_PRIVATE; scope++) {
        const struct ring_entry *page =
            key_ring_get(&s->cursors, cursor_key(s, f, method, scope, cursor));
        if (page && page->line > p->page_line) {
            p->page_scope = scope;
            p->page_file = page->file;
            p->page_line = page->line;
        }
    }
}

static enum cache_scope scope_of(const struct jv *result)
{
    const struct jv *scope = jv_object_get(result, "cacheScope");
    if (jv_string_is(scope, "public"))
        return SCOPE_PUBLIC;
    if (jv_string_is(scope, "private"))
        return SCOPE_PRIVATE;
    return SCOPE_UNKNOWN;
}

/* A page of another scope than the page before. */
static void check_page(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                       enum cache_scope scope, struct diag_sink *sink)
{
    if (!p->page_scope || p->page_scope == scope)
        return;
    struct diag_where at = f->m->at;
    at.related_file = p->page_file != at.file ? p->page_file : NULL;
    at.related_line = p->page_line;
    diag_emit(sink, &at, "mcp-cache-scope", "a page of '%s' is %s, the page before %s",
              mcp_method_shown(s, p), scope_names[scope], scope_names[p->page_scope]);
}

void mcp_caching_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                          const struct jv *msg, struct diag_sink *sink)
{
    if (p->side == SIDE_SERVER || !mcp_session_of_2026(s, p->session))
        return;
    const struct jv *result = jv_object_get(msg, "result");
    int method = cacheable_method(p);
    if (!jv_is_object(result) || method < 0)
        return;
    /* an interim result is not cacheable; one without its type is taken as complete */
    if (jv_string_is(jv_object_get(result, "resultType"), "input_required"))
        return;
    if (!jv_object_get(result, "ttlMs"))
        diag_emit(sink, &f->m->at, "mcp-cache-hints", "a result of '%s' without its ttlMs",
                  cacheable[method]);
    enum cache_scope scope = scope_of(result);
    if (!scope) {
        diag_emit(sink, &f->m->at, "mcp-cache-hints",
                  "a result of '%s' without its cacheScope, public or private", cacheable[method]);
        return;
    }
    check_page(s, f, p, scope, sink);
    const struct jv *next = jv_object_get(result, "nextCursor");
    if (paged(method) && jv_is_string(next))
        key_ring_put(&s->cursors, s->cfg->max_open, cursor_key(s, f, method, scope, next),
                     mcp_file_copy(s, f->m->at.file), f->m->at.line);
}
