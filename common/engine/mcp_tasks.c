/* MCP's tasks (Base Protocol, Utilities, Tasks; 2025-11-25): a request with params.task asks its
 * receiver to run it as a task, whose CreateTaskResult names the task, and the task's status is
 * told again by tasks/get, tasks/cancel, tasks/list and notifications/tasks/status. A task MUST
 * begin working, and move only from working to input_required or a terminal status (completed,
 * failed, cancelled), from input_required back to working or to a terminal one, and never out of
 * a terminal one. The stream keeps the latest status of the latest --max-open tasks. */
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

void mcp_tasks_answered(struct mcp_stream *s, const struct fed *f, const struct pending *p,
                        const struct jv *msg, struct diag_sink *sink)
{
    const struct jv *result = jv_object_get(msg, "result");
    if (!jv_is_object(result))
        return;
    const struct jv *task = jv_object_get(result, "task");
    if (p->task_augmented && jv_is_object(task)) {
        told_status(s, f, jv_object_get(task, "taskId"), jv_object_get(task, "status"), true, sink);
    } else if (mcp_pending_method_is(p, "tasks/get") || mcp_pending_method_is(p, "tasks/cancel")) {
        told_status(s, f, jv_object_get(result, "taskId"), jv_object_get(result, "status"), false,
                    sink);
    } else if (mcp_pending_method_is(p, "tasks/list")) {
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
    told_status(s, f, jv_object_get(params, "taskId"), jv_object_get(params, "status"), false,
                sink);
}

void mcp_tasks_free(struct mcp_stream *s)
{
    while (s->first_task)
        task_unlink(s, s->first_task);
    strmap_free(s->tasks, NULL);
}
