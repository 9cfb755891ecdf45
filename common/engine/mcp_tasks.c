/* MCP's tasks (Base Protocol, Utilities, Tasks; 2025-11-25): a request with params.task asks its
 * receiver to run it as a task, whose CreateTaskResult names the task, and the task's status is
 * told again by tasks/get, tasks/cancel, tasks/list and notifications/tasks/status. A task MUST
 * begin working, and move only from working to input_required or a terminal status (completed,
 * failed, cancelled), from input_required back to working or to a terminal one, and never out of
 * a terminal one. The stream keeps the latest status of the latest --max-open tasks.
 *
 * The messages that belong to a task MUST carry its id in _meta's related-task: a request the
 * task's receiver makes for it (an elicitation, say) and that request's result, and the result of
 * tasks/result, the task's own; tasks/get, tasks/result and tasks/cancel name their task in
 * params.taskId, and they, the results of tasks/get, tasks/list and tasks/cancel and
 * notifications/tasks/status SHOULD NOT carry it. */
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "engine/mcp_stream_parts.h"

enum status { WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED, NO_STATUS };

static const char *const status_names[NO_STATUS] = {
    [WORKING] = "working", [INPUT_REQUIRED] = "input_required", [COMPLETED] = "completed",
    [FAILED] = "failed",   [CANCELLED] = "cancelled",
};

/* A task whose status was told, in the stream's list, oldest first. */
struct task {
    struct task *prev, *next;
    enum status status;
    char key[];
};

static enum status status_of(const struct jv *status)
{
    enum status s = WORKING;
    while (s < NO_STATUS && !jv_string_is(status, status_names[s]))
        s++;
    return s;
}

static const char *name_of(enum status status)
{
    return status < NO_STATUS ? status_names[status] : "(none)";
}

static bool terminal(enum status status)
{
    return status == COMPLETED || status == FAILED || status == CANCELLED;
}

/* Whether a task may move from one status to another (staying is no move). */
static bool may_move(enum status from, enum status to)
{
    return from == to || (!terminal(from) && to != NO_STATUS);
}

static void task_unlink(struct mcp_stream *s, struct task *t)
{
    *(t->prev ? &t->prev->next : &s->first_task) = t->next;
    *(t->next ? &t->next->prev : &s->last_task) = t->prev;
    strmap_remove(s->tasks, t->key);
    s->ntasks--;
    free(t);
}

static struct task *task_new(struct mcp_stream *s, const char *key, enum status status)
{
    if (s->ntasks >= s->cfg->max_open && s->first_task)
        task_unlink(s, s->first_task); /* the oldest told is forgotten: memory stays bounded */
    size_t len = strlen(key);
    struct task *t = xcalloc(1, sizeof *t + len + 1);
    memcpy(t->key, key, len + 1);
    t->status = status;
    t->prev = s->last_task;
    *(s->last_task ? &s->last_task->next : &s->first_task) = t;
    s->last_task = t;
    strmap_put(s->tasks, key, t);
    s->ntasks++;
    return t;
}

/* A status told of the task of id in f's session: one of the five, and one it may move to. */
static void told_status(struct mcp_stream *s, const struct fed *f, const struct jv *id,
                        const struct jv *status_member, bool created, struct diag_sink *sink)
{
    if (!jv_is_string(id))
        return;
    enum status status = status_of(status_member);
    if (status == NO_STATUS) {
        diag_emit(sink, &f->m->at, "mcp-task-status",
                  "a task's status is none of working, input_required, completed, failed and "
                  "cancelled");
        return;
    }
    if (created && status != WORKING)
        diag_emit(sink, &f->m->at, "mcp-task-status", "a task begins %s, not working",
                  name_of(status));
    const char *key = mcp_scoped_key(s, f, "task", id); /* the session's task ids */
    struct task *t = strmap_get(s->tasks, key);
    if (!t) {
        task_new(s, key, status);
        return;
    }
    if (!may_move(t->status, status))
        diag_emit(sink, &f->m->at, "mcp-task-transition", "a task moves from %s to %s",
                  name_of(t->status), name_of(status));
    t->status = status;
}

#define RELATED_TASK "io.modelcontextprotocol/related-task"

/* The related-task metadata in holder's _meta (a request's params, a result), or NULL. */
static const struct jv *related_task(const struct jv *holder)
{
    return jv_object_get(jv_object_get(holder, "_meta"), RELATED_TASK);
}

/* The task id of related-task metadata, or NULL (told) when it is no object with a string
 * taskId. */
static const struct jv *related_id(const struct fed *f, const struct jv *related,
                                   struct diag_sink *sink)
{
    const struct jv *id = jv_object_get(related, "taskId");
    if (jv_is_string(id))
        return id;
    diag_emit(sink, &f->m->at, "mcp-related-task",
              "_meta's " RELATED_TASK " is no object with a string taskId");
    return NULL;
}

/* A message that names its task otherwise, and carries related-task all the same. */
static void tell_redundant(const struct fed *f, const char *what, const struct jv *related,
                           struct diag_sink *sink)
{
    if (related && related_id(f, related, sink))
        diag_emit(sink, &f->m->at, "mcp-related-task-redundant",
                  "%s carries _meta's " RELATED_TASK ", though it names its task", what);
}

static bool of_task_methods(const struct pending *p, const char *const *methods)
{
    if (p->method_len < 6 || memcmp(p->method, "tasks/", 6) != 0)
        return false; /* most requests, at once */
    for (; *methods; methods++)
        if (mcp_pending_method_is(p, *methods))
            return true;
    return false;
}

void mcp_tasks_opened(struct mcp_stream *s, const struct fed *f, struct pending *p,
                      const struct jv *msg, struct diag_sink *sink)
{
    static const char *const by_id[] = {"tasks/get", "tasks/result", "tasks/cancel", NULL};
    const struct jv *params = jv_object_get(msg, "params");
    const struct jv *related = related_task(params);
    const struct jv *task = NULL;
    if (of_task_methods(p, by_id)) {
        tell_redundant(f, "a request of the tasks' methods", related, sink);
        if (mcp_pending_method_is(p, "tasks/result"))
            task = jv_object_get(params, "taskId");
    } else if (related) {
        task = related_id(f, related, sink);
    }
    if (jv_is_string(task))
        p->task_key = xstrdup(mcp_scoped_key(s, f, "task", task));
}

/* A result for a task carries its related-task; one of the methods that name it, none. */
static void check_related(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                          const struct jv *result, struct diag_sink *sink)
{
    static const char *const naming[] = {"tasks/get", "tasks/list", "tasks/cancel", NULL};
    const struct jv *related = related_task(result);
    if (of_task_methods(p, naming)) {
        tell_redundant(f, "a result of the tasks' methods", related, sink);
        return;
    }
    const struct jv *id = related ? related_id(f, related, sink) : NULL;
    if (!p->task_key || (related && !id))
        return;
    if (!id || strcmp(mcp_scoped_key(s, f, "task", id), p->task_key) != 0) {
        struct diag_where at = f->m->at;
        at.related_file = p->file != at.file ? p->file : NULL;
        at.related_line = p->line;
        diag_emit(sink, &at, "mcp-related-task", "the result of '%s' %s", mcp_method_shown(s, p),
                  id ? "carries the related-task of another task than its own"
                     : "lacks the related-task of its task");
    }
}

void mcp_tasks_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                        const struct jv *msg, struct diag_sink *sink)
{
    const struct jv *result = jv_object_get(msg, "result");
    if (!jv_is_object(result))
        return;
    check_related(s, f, p, result, sink);
    const struct jv *task = jv_object_get(result, "task");
    if (p->task_augmented && jv_is_object(task)) {
        told_status(s, f, jv_object_get(task, "taskId"), jv_object_get(task, "status"), true, sink);
    } else if (of_task_methods(p, (const char *const[]){"tasks/get", "tasks/cancel", NULL})) {
        told_status(s, f, jv_object_get(result, "taskId"), jv_object_get(result, "status"), false,
                    sink);
    } else if (of_task_methods(p, (const char *const[]){"tasks/list", NULL})) {
        const struct jv *tasks = jv_object_get(result, "tasks");
        if (jv_is_array(tasks))
            for (const struct jv *t = jv_array_first(tasks); t; t = jv_array_next(tasks, t))
                told_status(s, f, jv_object_get(t, "taskId"), jv_object_get(t, "status"), false,
                            sink);
    }
}

void mcp_tasks_notified(struct mcp_stream *s, const struct fed *f, const struct jv *msg,
                        struct diag_sink *sink)
{
    const struct jv *params = jv_object_get(msg, "params");
    tell_redundant(f, "notifications/tasks/status", related_task(params), sink);
    told_status(s, f, jv_object_get(params, "taskId"), jv_object_get(params, "status"), false,
                sink);
}

void mcp_tasks_free(struct mcp_stream *s)
{
    while (s->first_task)
        task_unlink(s, s->first_task);
    strmap_free(s->tasks, NULL);
}
