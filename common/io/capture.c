#include "io/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "proto/taprecord.h"

/* How long capture_close waits for the file to take what is queued: a file that takes nothing
 * (a pipe nobody reads) must not keep the agent's client waiting for the tap to end. */
static const double CLOSE_WAIT = 5.0;

struct queued {
    struct queued *next;
    size_t len;
    char text[];
};

struct capture {
    int fd;
    char *path;         /* the file's name, escaped for stderr */
    char *session_json; /* the session id as a JSON string, quotes included */
    pthread_t writer;
    pthread_mutex_t lock;
    pthread_cond_t ready; /* something was queued, or the capture is closing */
    pthread_cond_t done;  /* the writer ended */
    /* under lock */
    struct queued *head, **tail;
    size_t queued_bytes, queue_max;
    unsigned long long seq;             /* lines recorded so far, dropped or not */
    unsigned long long dropped_queued;  /* dropped for a full queue, not yet told */
    unsigned long long dropped_written; /* told, or refused by the file */
    bool closing, ended;
    bool queue_warned; /* said on stderr that records are being dropped */
    /* the writer's own */
    unsigned long long refused; /* records the file refused, not yet told */
    bool refused_warned;
};

/* ---- Records ---- */

/* The members every record starts with: the format's mark, the session, the time. */
static void record_head(struct capture *c, struct strbuf *sb)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    taprecord_put_head(sb, c->session_json, strlen(c->session_json), (long long)now.tv_sec,
                       now.tv_nsec / 1000);
}

static struct queued *node_of(const struct strbuf *sb)
{
    struct queued *q = xmalloc(sizeof *q + sb->len);
    q->next = NULL;
    q->len = sb->len;
    memcpy(q->text, sb->buf, sb->len);
    return q;
}

static void dropped_record(struct capture *c, struct strbuf *sb, unsigned long long count)
{
    record_head(c, sb);
    sb_addf(sb, ",\"event\":\"dropped\",\"count\":%llu}\n", count);
}

/* ---- The queue ---- */

static void push(struct capture *c, struct queued *q)
{
    *c->tail = q;
    c->tail = &q->next;
    c->queued_bytes += q->len;
}

/* Queues the record that counts the records dropped for a full queue, if any, under the lock. */
static void tell_dropped(struct capture *c)
{
    if (!c->dropped_queued)
        return;
    struct strbuf told = STRBUF_INIT;
    dropped_record(c, &told, c->dropped_queued);
    push(c, node_of(&told));
    sb_free(&told);
    c->dropped_written += c->dropped_queued;
    c->dropped_queued = 0;
}

/* Queues the record whose members after the head are body (a line's: its seq comes first), under
 * the lock, so that the order of the file is the order of the times. */
static void enqueue(struct capture *c, const char *body, size_t len, bool is_line)
{
    struct strbuf sb = STRBUF_INIT;
    bool warn = false;
    pthread_mutex_lock(&c->lock);
    if (is_line)
        c->seq++;
    record_head(c, &sb);
    if (is_line)
        sb_addf(&sb, ",\"seq\":%llu", c->seq);
    sb_add(&sb, body, len);
    sb_adds(&sb, "}\n");
    if (c->queued_bytes && c->queued_bytes + sb.len > c->queue_max) {
        c->dropped_queued++;
        warn = !c->queue_warned;
        c->queue_warned = true;
    } else {
        tell_dropped(c);
        c->queue_warned = false;
        push(c, node_of(&sb));
        pthread_cond_signal(&c->ready);
    }
    pthread_mutex_unlock(&c->lock);
    sb_free(&sb);
    if (warn)
        fprintf(stderr, "%s: %s: records come faster than it takes them: dropping some\n",
                util_progname(), c->path);
}

static const char *const dir_names[] = {[CAPTURE_IN] = "in", [CAPTURE_OUT] = "out"};

/* JSON's white space, which may stand around a value. */
static bool is_json_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

void capture_line(struct capture *c, enum capture_dir dir, const char *line, size_t len,
                  bool terminated, struct jscan *js)
{
    struct strbuf body = STRBUF_INIT;
    sb_addf(&body, ",\"dir\":\"%s\"", dir_names[dir]);
    if (!terminated)
        sb_adds(&body, ",\"unterminated\":true");
    size_t start = 0, end = len;
    while (start < end && is_json_space(line[start]))
        start++;
    while (end > start && is_json_space(line[end - 1]))
        end--;
    if (end > start && jscan_scan(js, line + start, end - start)) {
        sb_adds(&body, ",\"message\":");
        sb_add(&body, line + start, end - start);
    } else {
        sb_adds(&body, ",\"text\":");
        escape_json_string(&body, line, len);
    }
    enqueue(c, body.buf, body.len, true);
    sb_free(&body);
}

void capture_long_line(struct capture *c, enum capture_dir dir, unsigned long long bytes,
                       bool terminated)
{
    struct strbuf body = STRBUF_INIT;
    sb_addf(&body, ",\"dir\":\"%s\"%s,\"too_long\":%llu", dir_names[dir],
            terminated ? "" : ",\"unterminated\":true", bytes);
    enqueue(c, body.buf, body.len, true);
    sb_free(&body);
}

void capture_event(struct capture *c, const char *event, const char *members)
{
    struct strbuf body = STRBUF_INIT;
    sb_addf(&body, ",\"event\":\"%s\"%s%s", event, *members ? "," : "", members);
    enqueue(c, body.buf, body.len, false);
    sb_free(&body);
}

/* ---- The writer ---- */

/* One write(2) for the whole record, so that records of taps sharing the file stay whole. */
static bool write_whole(struct capture *c, const char *text, size_t len, int *err)
{
    ssize_t n;
    do
        n = write(c->fd, text, len);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)len)
        return true;
    *err = n < 0 ? errno : ENOSPC;
    if (n > 0) /* a part of it: end the line, so that the next record starts one */
        (void)!write(c->fd, "\n", 1);
    return false;
}

static void write_queued(struct capture *c, const struct queued *q)
{
    int err = 0;
    if (c->refused) {
        struct strbuf told = STRBUF_INIT;
        dropped_record(c, &told, c->refused);
        if (write_whole(c, told.buf, told.len, &err)) {
            c->refused = 0;
            c->refused_warned = false;
        }
        sb_free(&told);
    }
    if (!c->refused && write_whole(c, q->text, q->len, &err))
        return;
    if (!c->refused)
        err = err ? err : EIO;
    c->refused++;
    pthread_mutex_lock(&c->lock);
    c->dropped_written++;
    pthread_mutex_unlock(&c->lock);
    if (!c->refused_warned && err)
        fprintf(stderr, "%s: %s: %s: dropping records\n", util_progname(), c->path, strerror(err));
    c->refused_warned = true;
}

static void *writer_main(void *arg)
{
    struct capture *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->head && !c->closing)
            pthread_cond_wait(&c->ready, &c->lock);
        if (!c->head)
            break;
        struct queued *q = c->head;
        c->head = NULL;
        c->tail = &c->head;
        c->queued_bytes = 0;
        pthread_mutex_unlock(&c->lock);
        while (q) {
            struct queued *next = q->next;
            write_queued(c, q);
            free(q);
            q = next;
        }
        pthread_mutex_lock(&c->lock);
    }
    c->ended = true;
    pthread_cond_broadcast(&c->done);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* ---- Open and close ---- */

struct capture *capture_open(const char *path, const char *session, size_t queue_max,
                             struct strbuf *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        sb_addf(err, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct capture *c = xcalloc(1, sizeof *c);
    c->fd = fd;
    struct strbuf shown = STRBUF_INIT; /* as a terminal may show it */
    escape_text(&shown, path, strlen(path), 200);
    c->path = sb_detach(&shown);
    struct strbuf id = STRBUF_INIT;
    escape_json_string(&id, session, strlen(session));
    c->session_json = sb_detach(&id);
    c->tail = &c->head;
    c->queue_max = queue_max;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->ready, NULL);
    pthread_cond_init(&c->done, NULL);
    int e = pthread_create(&c->writer, NULL, writer_main, c);
    if (e) {
        sb_addf(err, "cannot start its writer: %s", strerror(e));
        close(fd);
        free(c->path);
        free(c->session_json);
        free(c);
        return NULL;
    }
    return c;
}

static struct timespec deadline_after(double seconds)
{
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    double whole = floor(seconds);
    at.tv_sec += (time_t)whole;
    at.tv_nsec += (long)((seconds - whole) * 1e9);
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    return at;
}

bool capture_close(struct capture *c)
{
    pthread_mutex_lock(&c->lock);
    tell_dropped(c);
    c->closing = true;
    pthread_cond_signal(&c->ready);
    struct timespec until = deadline_after(CLOSE_WAIT);
    int e = 0;
    while (!c->ended && e != ETIMEDOUT)
        e = pthread_cond_timedwait(&c->done, &c->lock, &until);
    bool ended = c->ended;
    unsigned long long dropped = c->dropped_written;
    pthread_mutex_unlock(&c->lock);
    bool ok = true;
    if (!ended) {
        /* The writer is stuck in a write: leave it to the process's end, with what it holds. */
        fprintf(stderr, "%s: %s: records not written within %gs of the end: left unwritten\n",
                util_progname(), c->path, CLOSE_WAIT);
        return false;
    }
    pthread_join(c->writer, NULL);
    if (dropped) {
        fprintf(stderr, "%s: %s: %llu record%s dropped\n", util_progname(), c->path, dropped,
                dropped == 1 ? "" : "s");
        ok = false;
    }
    if (close(c->fd) != 0) {
        fprintf(stderr, "%s: %s: %s\n", util_progname(), c->path, strerror(errno));
        ok = false;
    }
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->ready);
    pthread_cond_destroy(&c->done);
    free(c->path);
    free(c->session_json);
    free(c);
    return ok;
}
