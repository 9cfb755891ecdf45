#include "tool/filter.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "base/escape.h"
#include "tool/progress.h"

/* The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), set by its handler; the only
 * state a signal may touch. */
static volatile sig_atomic_t interrupted;

static void on_stop_signal(int sig)
{
    interrupted = sig;
}

/* SIGTERM and SIGHUP stop a run as SIGINT does, so that nothing buffered is lost; then, once main
 * has returned and exit() is under way, the process dies of the signal, as its sender expects. */
static void die_of_stop_signal(void)
{
    int sig = interrupted;
    if (sig == 0 || sig == SIGINT)
        return;
    (void)fflush(NULL);
    signal(sig, SIG_DFL);
    raise(sig);
}

enum { EXIT_OK = 0, EXIT_FINDINGS = 1, EXIT_TROUBLE = 2, EXIT_INTERRUPTED = 130 };
enum { OUTPUT_BUFFER = 64 * 1024 };

struct stats {
    unsigned long records, valid, rejected, blank;
    unsigned long unread; /* lines left unread when --max-errors or the tool stopped the run */
    bool unread_unknown;  /* and more that could not be counted (a pipe) */
    unsigned long unused; /* valid records the tool then left unused: unread in the end */
};

struct jobs;

struct filter {
    const struct filter_config *cfg;
    const struct filter_ops *ops;
    struct diag_sink sink;
    FILE *out;
    char *out_buffer; /* ours: given NULL, glibc ignores the size asked for */
    const char *out_name;
    FILE *rejects;
    struct stats stats;
    struct reader *in;  /* the file being read, if any: a write error exits from deep inside a
                           read, and what it holds is still the run's */
    bool trouble;       /* an I/O problem: exit 2 */
    bool stop;          /* stop reading: --max-errors reached, or the tool asked */
    bool limit_reached; /* --max-errors reached */
    bool tool_stopped;  /* the tool asked for no more records (filter_stop) */
    struct diag_where stop_at; /* the record that reached it */
    struct progress progress;  /* the line on the terminal of a long run */
    struct jobs *jobs;         /* --jobs above 1: the worker threads; NULL otherwise */
    struct jscan *scan;        /* reads every JSON record in this thread; holds its view */
    struct jscan *scratch;     /* for views of prepare's own in this thread */
    /* with jobs: where the last record read from this file ends (a copy of the whole record
     * per record waited for the reader's stores of it) */
    unsigned long last_end_line;
    bool last_ends_mid_line;
    bool stop_mid_line; /* with jobs: the record that reached --max-errors ended mid-line */
    bool count_pending; /* with jobs: --max-errors stopped the run, unread not counted */
    /* with jobs, while a batch is finished: its texts lie one after the other, each with its
     * newline, so the records passed in a row go out as one write (run, run_len) */
    bool in_batch;
    const char *run;
    size_t run_len;
};

/* A standard descriptor that was closed (`tool <&-`, `>&-`, `2>&-`) would be the next file we
 * open: the rejects file would receive the output, the output file the diagnostics. Each closed
 * one is held by /dev/null opened the wrong way round, so that using it still fails (EBADF) as
 * using the closed descriptor would, and says so. */
static void hold_closed_std_fds(void)
{
    static const int flags[] = {O_WRONLY, O_RDONLY, O_RDONLY};
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int held = open("/dev/null", flags[fd]);
        if (held >= 0 && held != fd)
            close(held); /* cannot be: open takes the lowest free descriptor */
    }
}

void filter_tool_init(const char *progname)
{
    hold_closed_std_fds();
    util_set_progname(progname);
    json_set_alloc_funcs(xmalloc, free);
}

struct diag_sink *filter_sink(struct filter *f)
{
    return &f->sink;
}

time_t filter_now(const struct filter *f)
{
    return f->cfg->opts->now;
}

/* A reader that went away is no error: stop as a killed `cat` would, without a word. */
static _Noreturn void die_quietly_on_broken_pipe(void)
{
    (void)fflush(stderr); /* the diagnostics so far, unless stderr went with it */
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(EXIT_TROUBLE);
}

static _Noreturn void die_write_error(struct filter *f, const char *name, int err)
{
    progress_end(&f->progress);
    if (err == EPIPE)
        die_quietly_on_broken_pipe();
    /* SIGINT (SIGTERM, SIGHUP) while a reader holds the pipe full: the user asked to stop, and
     * what is left could only be flushed by waiting for that reader, so leave at once (no exit
     * handlers flushing), with the diagnostics so far: a stderr stuck as well gives way to a
     * second signal. SIGTERM and SIGHUP end as their sender expects. */
    if (err == EINTR && interrupted) {
        (void)fflush(stderr);
        if (interrupted != SIGINT) {
            signal(interrupted, SIG_DFL);
            raise(interrupted);
        }
        _exit(EXIT_INTERRUPTED);
    }
    f->sink.quiet = f->cfg->opts->quiet;
    struct diag_where at = {.file = name};
    diag_emit(&f->sink, &at, SEV_ERROR, "io-error", "write error: %s", strerror(err));
    exit(EXIT_TROUBLE);
}

static void write_run(struct filter *f)
{
    const char *run = f->run;
    size_t len = f->run_len;
    f->run = NULL;
    f->run_len = 0;
    if (len && fwrite(run, 1, len, f->out) != len)
        die_write_error(f, f->out_name, errno);
}

static void checked_write(struct filter *f, FILE *stream, const char *name, const char *data,
                          size_t len)
{
    if (stream == f->out && f->run_len)
        write_run(f);
    if (len && fwrite(data, 1, len, stream) != len)
        die_write_error(f, name, errno);
}

void filter_write(struct filter *f, const char *data, size_t len)
{
    if (f->cfg->opts->quiet && f->out == stdout)
        return;
    checked_write(f, f->out, f->out_name, data, len);
}

static void flush_stream(struct filter *f, FILE *stream, const char *name)
{
    if (stream && fflush(stream) != 0)
        die_write_error(f, name, errno);
}

static void flush_outputs(void *ctx)
{
    struct filter *f = ctx;
    diag_flush(&f->sink); /* first, as when stderr was unbuffered */
    flush_stream(f, f->out, f->out_name);
    flush_stream(f, f->rejects, f->cfg->opts->rejects);
    progress_check(&f->progress); /* the input is idle: a good time to read the clock */
}

void filter_flush(struct filter *f)
{
    flush_outputs(f);
}

void filter_stop(struct filter *f)
{
    f->stop = f->tool_stopped = true;
}

void filter_unused(struct filter *f, unsigned long records)
{
    f->stats.unused += records;
}

bool filter_interrupted(void)
{
    return interrupted != 0;
}

static void write_record(struct filter *f, FILE *stream, const char *name, const struct record *rec)
{
    if (stream == f->out && f->in_batch) {
        if (f->run_len && f->run + f->run_len == rec->text) {
            f->run_len += rec->raw_len + 1;
            return;
        }
        write_run(f);
        f->run = rec->text;
        f->run_len = rec->raw_len + 1;
        return;
    }
    checked_write(f, stream, name, rec->text, rec->raw_len);
    checked_write(f, stream, name, "\n", 1);
}

static void reject(struct filter *f, const struct record *rec)
{
    f->stats.rejected++;
    if (f->rejects && rec->kind != REC_TOO_LONG)
        write_record(f, f->rejects, f->cfg->opts->rejects, rec);
    else if (f->rejects)
        checked_write(f, f->rejects, f->cfg->opts->rejects, "\n", 1);
}

/* Reads rec into m, its view in js. Reads nothing of the run's state but the configuration:
 * worker threads call it too, each with a scanner of its own. */
static bool read_message(const struct filter *f, const struct record *rec, struct jscan *js,
                         struct message *m, struct diag_sink *sink)
{
    if (rec->syntax == SYNTAX_ACL && f->ops->parse_acl) {
        json_t *root = f->ops->parse_acl(f->ops->ctx, rec, sink, f->cfg->opts->now);
        if (!root)
            return false;
        message_init_in(m, rec, root, f->cfg->protocol, js);
        return true;
    }
    return message_read(m, rec, js, f->cfg->protocol, sink);
}

/* What follows the parse and the tool's prepare step, in input order: the tool's own work, and
 * where the record goes. */
static void deliver(struct filter *f, struct message *m, unsigned long errors_before)
{
    const struct record *rec = m->rec;
    enum verdict v = f->ops->message ? f->ops->message(f->ops->ctx, f, m) : VERDICT_PASS;
    if (f->sink.errors > errors_before) {
        reject(f, rec);
        return;
    }
    f->stats.valid++;
    if (m->output.len)
        filter_write(f, m->output.buf, m->output.len);
    if (v == VERDICT_PASS && !(f->cfg->opts->quiet && f->out == stdout))
        write_record(f, f->out, f->out_name, rec);
}

static void handle_message(struct filter *f, const struct record *rec)
{
    unsigned long errors_before = f->sink.errors;
    struct message m;
    if (!read_message(f, rec, f->scan, &m, &f->sink)) {
        reject(f, rec);
        return;
    }
    if (f->ops->prepare)
        m.passed = f->ops->prepare(f->ops->ctx, &m, f->scratch, &f->sink);
    deliver(f, &m, errors_before);
    message_clear(&m);
}

static void handle_record(struct filter *f, const struct record *rec)
{
    f->stats.records++;
    switch (rec->kind) {
    case REC_BLANK:
        f->stats.blank++;
        return;
    case REC_TOO_LONG: {
        struct diag_where at = {.file = rec->file, .line = rec->line};
        diag_emit(&f->sink, &at, SEV_ERROR, "line-too-long",
                  rec->message ? "message of %zu bytes is longer than --max-line-bytes=%zu"
                               : "line of %zu bytes is longer than --max-line-bytes=%zu",
                  rec->raw_len, f->cfg->opts->max_line_bytes);
        reject(f, rec);
        return;
    }
    case REC_LINE:
        handle_message(f, rec);
        return;
    }
}

/* After each record: whether --max-errors is reached now, and so the run stops there. */
static bool limit_reached(struct filter *f, const struct record *rec)
{
    if (!f->cfg->opts->max_errors || f->sink.errors < f->cfg->opts->max_errors)
        return false;
    f->stop = f->limit_reached = true;
    f->stop_at = (struct diag_where){.file = rec->file, .line = rec->end_line};
    return true;
}

/* ---- --jobs: the reader (this thread) cuts the input into batches of records; worker threads
 * parse them and run the tool's prepare step, each message's findings kept in a log; this thread
 * then takes the batches back in input order and does the rest (the findings reported through
 * the real sink, the tool's `message`, the output) exactly as without workers. Batches in flight
 * are bounded in number and in bytes, so memory does not grow with the input. Before the reader
 * would block, and before anything else happens in order (a spilled long line, an idle call, the
 * end of a file), every batch in flight is finished: the output is the same as with one thread,
 * and a live pipe gets each result at once. ---- */

enum { BATCH_RECORDS = 512, BATCH_BYTES = 128 * 1024 };

struct slot {
    struct record rec;
    size_t text_at; /* where rec's text is in the batch's bytes */
    bool parsed;    /* a message, and not a line that failed to parse */
    bool live;      /* m holds what message_clear frees */
    bool stored;    /* m's view was kept in the batch's views, at view_at */
    size_t view_at;
    struct message m;    /* m.root NULL once freed, or when there is no message */
    struct diag_log log; /* what parsing and prepare found */
};

enum batch_state { BATCH_QUEUED, BATCH_CLAIMED, BATCH_DONE };

struct batch {
    struct slot *slots;
    size_t n, cap;
    struct strbuf bytes; /* the records' texts */
    /* the views of the messages the ordered stage reads, kept from the parse: read again, the
     * texts would cost the ordered stage, which bounds the speed of -j, a scan each */
    struct jv_store views;
    struct arena arena; /* for what prepare makes of its messages (message_alloc) */
    enum batch_state state;
    size_t worker; /* who parsed it, and so frees its messages (malloc is fastest so) */
    /* its messages are kept for `message`, to be freed after; else prepare was the last to read
     * them and each was freed at once (its slots are not read again to free them: they are in
     * the other core's cache by then, and that read was a fifth of a --stateless worker's time) */
    bool kept;
    struct batch *next;
};

/* The scanners a thread reads through: one holds the views of the messages it reads, the other
 * prepare's views of its own. */
struct thread_scans {
    struct jscan *input, *scratch;
};

struct jobs {
    pthread_mutex_t lock;
    pthread_cond_t queued;           /* a batch waits for a worker, or the workers are to quit */
    pthread_cond_t done;             /* a worker finished a batch */
    struct batch *oldest, *newest;   /* in flight, in input order */
    struct batch *unclaimed;         /* the oldest batch in flight that no one works on yet */
    size_t in_flight, max_in_flight; /* batches given to the workers, not finished in order */
    size_t held, held_bytes;         /* batches whose messages are not freed, and their bytes */
    size_t max_held, max_held_bytes;
    struct batch **garbage; /* per worker: batches finished with, whose messages it is to free */
    bool want_room;         /* the reader waits for garbage to be freed */
    bool quit;
    struct batch *spare;   /* finished with, for reuse */
    struct batch *filling; /* the batch the reader fills */
    const struct filter *f;
    pthread_t *threads;
    size_t nthreads;
    struct diag_sink *sinks;    /* one per worker, and the last for this thread */
    struct thread_scans *scans; /* the same: each thread reads JSON through scanners of its own */
    size_t nscans;
    atomic_ulong wakeups; /* notify's count (wait_on) */
};

struct worker {
    struct jobs *jobs;
    size_t index;
};

/* Every wake-up is counted: a thread about to sleep spins first while the count stays, for a few
 * to some tens of microseconds (the batches come and go every hundred or so, and sleeping and
 * waking cost system calls and switches each time: a tenth of a --stateless run's time), then
 * sleeps as before. */
enum { SPINS = 1024 };

static void cpu_relax(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#endif
}

/* Wakes the threads waiting on cond (one, or all); the lock is held. */
static void notify(struct jobs *j, pthread_cond_t *cond, bool all)
{
    atomic_fetch_add_explicit(&j->wakeups, 1, memory_order_release);
    if (all)
        pthread_cond_broadcast(cond);
    else
        pthread_cond_signal(cond);
}

/* As pthread_cond_wait on cond, the lock held, but spinning a while first: returns when a
 * notify came (its waiter checks again what it waits for). */
static void wait_on(struct jobs *j, pthread_cond_t *cond)
{
    unsigned long seen = atomic_load_explicit(&j->wakeups, memory_order_relaxed);
    pthread_mutex_unlock(&j->lock);
    for (int i = 0; i < SPINS && atomic_load_explicit(&j->wakeups, memory_order_acquire) == seen;
         i++)
        cpu_relax();
    pthread_mutex_lock(&j->lock);
    if (atomic_load_explicit(&j->wakeups, memory_order_relaxed) == seen)
        pthread_cond_wait(cond, &j->lock);
}

static void free_message(struct slot *s)
{
    if (s->live)
        message_clear(&s->m);
    s->live = false;
}

/* Parses and prepares the records of b. The messages of trash, a batch this thread parsed before,
 * are freed one for each message parsed: what malloc gets back is what it hands out next, from
 * its per-thread cache, as when one thread parses and frees each message in turn. */
static void work_on(const struct filter *f, struct batch *b, struct diag_sink *sink,
                    const struct thread_scans *scans, struct batch *trash)
{
    size_t freed = 0;
    if (trash && !trash->kept)
        trash = NULL;
    b->kept = f->ops->message != NULL;
    jv_store_reset(&b->views);
    arena_reset(&b->arena);
    for (size_t i = 0; i < b->n; i++) {
        struct slot *s = &b->slots[i];
        s->live = false;
        s->parsed = false;
        s->stored = false;
        diag_log_reset(&s->log);
        if (s->rec.kind != REC_LINE)
            continue;
        if (trash && freed < trash->n)
            free_message(&trash->slots[freed++]);
        sink->log = &s->log;
        if (!read_message(f, &s->rec, scans->input, &s->m, sink))
            continue;
        s->parsed = s->live = true;
        s->m.arena = &b->arena;
        bool scanned = !s->m.tree && !s->m.own; /* else its view is made of a tree */
        if (f->ops->prepare)
            s->m.passed = f->ops->prepare(f->ops->ctx, &s->m, scans->scratch, sink);
        if (!f->ops->message) /* prepare did all there is to do with the message */
            free_message(s);
        else if (scanned && !s->m.drafted) {
            s->view_at = jv_store_add(&b->views, scans->input);
            s->stored = true;
        }
    }
    jv_store_seal(&b->views);
    sink->log = NULL;
    while (trash && freed < trash->n)
        free_message(&trash->slots[freed++]);
}

/* Takes the oldest batch no one works on; the lock is held. */
static struct batch *claim(struct jobs *j)
{
    struct batch *b = j->unclaimed;
    j->unclaimed = b->next;
    b->state = BATCH_CLAIMED;
    return b;
}

/* A batch whose messages are freed becomes spare; the lock is held. */
static void recycle(struct jobs *j, struct batch *b)
{
#ifdef __GLIBC__
    /* Each thread's malloc keeps what it freed for itself: after the trees of lines far longer
     * than usual, give it back, or every thread would hold the most it ever parsed. */
    if (b->bytes.len > 4 * BATCH_BYTES)
        malloc_trim(0);
#endif
    b->n = 0;
    j->held--;
    j->held_bytes -= b->bytes.len;
    b->next = j->spare;
    j->spare = b;
}

/* Frees the messages of a batch and makes it spare; the lock is held, and released meanwhile. */
static void clean(struct jobs *j, struct batch *b)
{
    pthread_mutex_unlock(&j->lock);
    for (size_t i = 0; b->kept && i < b->n; i++)
        free_message(&b->slots[i]);
    pthread_mutex_lock(&j->lock);
    recycle(j, b);
}

static void *worker_main(void *arg)
{
    struct jobs *j = ((struct worker *)arg)->jobs;
    size_t me = ((struct worker *)arg)->index;
    free(arg);
    pthread_mutex_lock(&j->lock);
    for (;;) {
        /* Garbage waits for the next batch, to be freed while it is parsed, unless the reader
         * waits for room. */
        while (!j->quit && !j->unclaimed && !(j->garbage[me] && j->want_room))
            wait_on(j, &j->queued);
        if (j->quit)
            break;
        struct batch *trash = j->garbage[me];
        if (trash)
            j->garbage[me] = trash->next;
        if (!j->unclaimed) {
            clean(j, trash);
            notify(j, &j->done, false); /* only the reader waits for it */
            continue;
        }
        struct batch *b = claim(j);
        b->worker = me;
        pthread_mutex_unlock(&j->lock);
        work_on(j->f, b, &j->sinks[me], &j->scans[me], trash);
        pthread_mutex_lock(&j->lock);
        b->state = BATCH_DONE;
        if (trash)
            recycle(j, trash);
        notify(j, &j->done, false);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* The number of workers --jobs asks for: 0 is one per online core. */
static size_t jobs_wanted(const struct common_opts *o)
{
    if (o->jobs != 0)
        return o->jobs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? (size_t)cores : 1;
}

static void start_jobs(struct filter *f, size_t n)
{
    /* jansson seeds its hash function on first use; seeded now, no two threads race to. */
    json_object_seed(0);
    struct jobs *j = xcalloc(1, sizeof *j);
    j->f = f;
    atomic_init(&j->wakeups, 0);
    j->max_in_flight = 2 * n + 2;
    /* Room for them all at their usual size; lines as long as --max-line-bytes allows (whose
     * trees may be many times their size) go fewer at a time. */
    j->max_held = 2 * j->max_in_flight; /* in flight, and as many waiting to be freed */
    j->max_held_bytes = 2 * j->max_held * BATCH_BYTES;
    j->threads = xcalloc(n, sizeof *j->threads);
    j->garbage = xcalloc(n + 1, sizeof *j->garbage); /* the last for this thread */
    j->sinks = xcalloc(n + 1, sizeof *j->sinks);
    j->nscans = n + 1;
    j->scans = xcalloc(j->nscans, sizeof *j->scans);
    for (size_t i = 0; i <= n; i++) {
        diag_sink_init_log(&j->sinks[i], NULL, &f->sink);
        j->scans[i] = (struct thread_scans){jscan_new(), jscan_new()};
    }
    if (pthread_mutex_init(&j->lock, NULL) || pthread_cond_init(&j->queued, NULL) ||
        pthread_cond_init(&j->done, NULL))
        die_oom();
    /* Signals are this thread's to take: SIGINT must interrupt its reads, SIGPIPE its writes. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; j->nthreads < n; j->nthreads++) {
        struct worker *w = xmalloc(sizeof *w);
        *w = (struct worker){j, j->nthreads};
        if (pthread_create(&j->threads[j->nthreads], NULL, worker_main, w) != 0) {
            free(w);
            break; /* fewer workers; this thread does the work the others do not take */
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    f->jobs = j;
}

static void free_batch(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        free_message(&b->slots[i]);
    for (size_t i = 0; i < b->cap; i++)
        diag_log_free(&b->slots[i].log);
    free(b->slots);
    sb_free(&b->bytes);
    jv_store_free(&b->views);
    arena_free(&b->arena);
    free(b);
}

static void free_batches(struct batch *b)
{
    while (b) {
        struct batch *next = b->next;
        free_batch(b);
        b = next;
    }
}

/* Called with nothing in flight (drain_jobs). */
static void stop_jobs(struct filter *f)
{
    struct jobs *j = f->jobs;
    if (!j)
        return;
    pthread_mutex_lock(&j->lock);
    j->quit = true;
    notify(j, &j->queued, true);
    pthread_mutex_unlock(&j->lock);
    for (size_t i = 0; i < j->nthreads; i++)
        pthread_join(j->threads[i], NULL);
    free_batches(j->oldest);
    for (size_t i = 0; i <= j->nthreads; i++)
        free_batches(j->garbage[i]);
    free_batches(j->spare);
    if (j->filling)
        free_batch(j->filling);
    for (size_t i = 0; i <= j->nthreads; i++)
        diag_sink_free(&j->sinks[i]);
    for (size_t i = 0; i < j->nscans; i++) {
        jscan_free(j->scans[i].input);
        jscan_free(j->scans[i].scratch);
    }
    free(j->scans);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->queued);
    pthread_cond_destroy(&j->done);
    free(j->threads);
    free(j->garbage);
    free(j->sinks);
    free(j);
    f->jobs = NULL;
}

/* The rest of one record's handling, in order, after a worker parsed and prepared it. */
static void finish_slot(struct filter *f, const struct batch *b, struct slot *s)
{
    if (f->stop) /* --max-errors: what was read ahead is left unread */
        return;
    if (s->rec.kind != REC_LINE) {
        handle_record(f, &s->rec);
    } else {
        f->stats.records++;
        unsigned long errors_before = f->sink.errors;
        diag_replay(&f->sink, &s->log);
        /* its thread's scanner has read on since */
        if (s->parsed && f->ops->message && s->m.drafted)
            message_unbind(&s->m);
        else if (s->stored)
            message_rebind_view(&s->m, jv_store_view(&b->views, s->view_at));
        else if (s->parsed && f->ops->message)
            message_rebind(&s->m, f->scan);
        if (s->parsed)
            deliver(f, &s->m, errors_before);
        else
            reject(f, &s->rec);
    }
    if (limit_reached(f, &s->rec)) {
        f->count_pending = true;
        f->stop_mid_line = s->rec.ends_mid_line;
    }
}

/* What finishing a slot reads, a worker wrote: in the other core's cache. Asked for a few slots
 * ahead, it comes while the slots before are finished, where each line would stall this
 * thread, whose time bounds the speed of -j: the slot, then the message's digest and view. */
enum { SLOTS_AHEAD = 4 };

static void fetch_ahead(const struct batch *b, size_t i)
{
    if (i + SLOTS_AHEAD < b->n) {
        const char *s = (const char *)&b->slots[i + SLOTS_AHEAD];
        for (size_t at = 0; at < sizeof(struct slot); at += 64)
            prefetch_to_read(s + at);
    }
    if (i + SLOTS_AHEAD / 2 < b->n) {
        const struct slot *s = &b->slots[i + SLOTS_AHEAD / 2];
        if (s->live && s->m.digest)
            prefetch_to_read(s->m.digest);
        if (s->stored) {
            const struct jv *view = jv_store_view(&b->views, s->view_at);
            prefetch_to_read(view);
            prefetch_to_read(view + s->m.id_place);
        }
    }
}

/* Waits for the oldest batch in flight and finishes its records in order; then hands it to the
 * thread that parsed it to free its messages. Rather than wait, this thread parses a batch no
 * worker took yet, the oldest first: it is one of the --jobs threads; with heavy_in_order, the
 * oldest only. */
static void finish_oldest(struct filter *f)
{
    struct jobs *j = f->jobs;
    pthread_mutex_lock(&j->lock);
    struct batch *b = j->oldest;
    while (b->state != BATCH_DONE) {
        if (j->unclaimed && (!f->ops->heavy_in_order || j->unclaimed == b)) {
            size_t me = j->nthreads;
            struct batch *mine = claim(j);
            mine->worker = me;
            struct batch *trash = j->garbage[me];
            if (trash)
                j->garbage[me] = trash->next;
            pthread_mutex_unlock(&j->lock);
            work_on(f, mine, &j->sinks[me], &j->scans[me], trash);
            pthread_mutex_lock(&j->lock);
            mine->state = BATCH_DONE;
            if (trash)
                recycle(j, trash);
        } else {
            wait_on(j, &j->done);
        }
    }
    j->oldest = b->next;
    if (!j->oldest)
        j->newest = NULL;
    j->in_flight--;
    pthread_mutex_unlock(&j->lock);
    f->in_batch = true;
    for (size_t i = 0; i < b->n; i++) {
        fetch_ahead(b, i);
        finish_slot(f, b, &b->slots[i]);
    }
    write_run(f); /* before the batch's texts are reused */
    f->in_batch = false;
    pthread_mutex_lock(&j->lock);
    b->next = j->garbage[b->worker];
    j->garbage[b->worker] = b;
    pthread_mutex_unlock(&j->lock);
}

/* Waits until fewer batches are in flight (counting those not freed yet). */
static void make_room(struct filter *f, size_t bytes)
{
    struct jobs *j = f->jobs;
    pthread_mutex_lock(&j->lock);
    while (j->in_flight >= j->max_in_flight || j->held >= j->max_held ||
           (j->held && j->held_bytes + bytes > j->max_held_bytes)) {
        if (j->oldest) {
            pthread_mutex_unlock(&j->lock);
            finish_oldest(f);
            pthread_mutex_lock(&j->lock);
        } else if (j->garbage[j->nthreads]) {
            struct batch *trash = j->garbage[j->nthreads];
            j->garbage[j->nthreads] = trash->next;
            clean(j, trash);
        } else {
            j->want_room = true;
            notify(j, &j->queued, true);
            wait_on(j, &j->done);
        }
    }
    j->want_room = false;
    pthread_mutex_unlock(&j->lock);
}

/* Finishes the batches at the front that are done, without waiting. */
static void finish_ready(struct filter *f)
{
    struct jobs *j = f->jobs;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        bool ready = j->oldest && j->oldest->state == BATCH_DONE;
        pthread_mutex_unlock(&j->lock);
        if (!ready)
            return;
        finish_oldest(f);
    }
}

static void submit(struct filter *f)
{
    struct jobs *j = f->jobs;
    struct batch *b = j->filling;
    if (!b)
        return;
    j->filling = NULL;
    for (size_t i = 0; i < b->n; i++)
        if (b->slots[i].rec.kind == REC_LINE)
            b->slots[i].rec.text = b->bytes.buf + b->slots[i].text_at;
    make_room(f, b->bytes.len);
    b->state = BATCH_QUEUED;
    b->next = NULL;
    pthread_mutex_lock(&j->lock);
    if (j->newest)
        j->newest->next = b;
    else
        j->oldest = b;
    j->newest = b;
    if (!j->unclaimed)
        j->unclaimed = b;
    j->in_flight++;
    j->held++;
    j->held_bytes += b->bytes.len;
    notify(j, &j->queued, false);
    pthread_mutex_unlock(&j->lock);
    finish_ready(f);
}

/* Everything read is handled, in order, before the function returns. */
static void drain_jobs(struct filter *f)
{
    if (!f->jobs)
        return;
    submit(f);
    while (f->jobs->oldest)
        finish_oldest(f);
}

/* A batch's arrays are made at the size a batch fills at once: grown step by step, each batch
 * freed its smaller arrays once (about 2 MiB at -j 2, which AddressSanitizer's quarantine kept),
 * and the pages not used yet cost nothing. */
static struct batch *new_batch(void)
{
    struct batch *b = xcalloc(1, sizeof *b);
    b->slots = xcalloc(BATCH_RECORDS, sizeof *b->slots);
    b->cap = BATCH_RECORDS;
    sb_grow(&b->bytes, BATCH_BYTES - 1); /* with the byte of a NUL: BATCH_BYTES */
    return b;
}

static void add_record(struct filter *f, const struct record *rec)
{
    struct jobs *j = f->jobs;
    if (!j->filling) {
        pthread_mutex_lock(&j->lock);
        j->filling = j->spare;
        if (j->spare)
            j->spare = j->spare->next;
        pthread_mutex_unlock(&j->lock);
        if (!j->filling)
            j->filling = new_batch();
        sb_reset(&j->filling->bytes);
    }
    struct batch *b = j->filling;
    /* a slot was last written by the thread that parsed it, a batch or more ago: asked for
     * ahead, its lines are here when their turn comes */
    if (b->n + 4 < b->cap)
        prefetch(&b->slots[b->n + 4]);
    struct slot *s = &b->slots[b->n++];
    s->live = false;
    s->parsed = false;
    if (rec->kind == REC_LINE) {
        s->text_at = b->bytes.len;
        sb_add(&b->bytes, rec->text, rec->raw_len);
        /* as written out, so that records passed in a row are one write (write_record); an
         * empty text still points into the buffer */
        sb_addc(&b->bytes, '\n');
    }
    /* copied after the text: the reader has just stored the record's members one by one, and
     * a copy in wider pieces (as a struct is copied) right away waited for each store to land */
    s->rec = *rec;
    if (b->n >= BATCH_RECORDS || b->bytes.len >= BATCH_BYTES)
        submit(f);
}

/* ---- the reader's hooks ---- */

static void before_block(void *ctx)
{
    struct filter *f = ctx;
    drain_jobs(f);
    flush_outputs(f);
}

static void spill_to_rejects(void *ctx, const char *data, size_t len)
{
    struct filter *f = ctx;
    drain_jobs(f);
    if (f->rejects && !f->stop)
        checked_write(f, f->rejects, f->cfg->opts->rejects, data, len);
}

static void report_io_error(struct filter *f, const char *display, const char *what, int err)
{
    struct diag_where at = {.file = display};
    diag_emit(&f->sink, &at, SEV_ERROR, "io-error", "%s: %s", what, strerror(err));
    f->trouble = true;
}

/* What --max-errors leaves unread is counted, not parsed, where it can be: in regular files. */
static void count_unread(struct filter *f, struct reader *r)
{
    unsigned long lines;
    if (reader_count_unread_lines(r, &lines))
        f->stats.unread += lines;
    else
        f->stats.unread_unknown = true;
}

static void count_unread_files(struct filter *f, char **files, int nfiles)
{
    struct reader_hooks hooks = {.interrupted = &interrupted};
    for (int i = 0; i < nfiles && !f->stats.unread_unknown; i++) {
        const char *display = strcmp(files[i], "-") == 0 ? "<stdin>" : files[i];
        struct reader *r = reader_open(files[i], display, 1, READ_JSON, &hooks);
        if (!r) {
            f->stats.unread_unknown = true;
            break;
        }
        count_unread(f, r);
        reader_close(r);
    }
}

/* Says that --max-errors stopped the run, where, and what it left unread. */
static void report_stop(struct filter *f)
{
    const struct stats *s = &f->stats;
    unsigned long max = f->cfg->opts->max_errors;
    struct strbuf l = STRBUF_INIT;
    if (f->sink.format == DIAG_JSON) {
        sb_adds(&l, "{\"type\":\"stopped\",\"file\":");
        escape_json_string(&l, f->stop_at.file, strlen(f->stop_at.file));
        sb_addf(&l, ",\"line\":%lu,\"errors\":%lu,\"max_errors\":%lu,\"unread\":", f->stop_at.line,
                f->sink.errors, max);
        if (s->unread_unknown)
            sb_adds(&l, "null}\n");
        else
            sb_addf(&l, "%lu}\n", s->unread);
    } else {
        sb_addf(&l, "%s: ", util_progname());
        escape_text(&l, f->stop_at.file, strlen(f->stop_at.file), 0);
        sb_addf(&l, ":%lu: note: stopped after %lu error%s (--max-errors=%lu); ", f->stop_at.line,
                f->sink.errors, f->sink.errors == 1 ? "" : "s", max);
        if (s->unread_unknown)
            sb_adds(&l, "the rest of the input was not read\n");
        else
            sb_addf(&l, "%lu line%s not read\n", s->unread, s->unread == 1 ? "" : "s");
    }
    fwrite(l.buf, 1, l.len, stderr);
    sb_free(&l);
}

static double idle_input(void *ctx)
{
    struct filter *f = ctx;
    drain_jobs(f);
    return f->ops->idle(f->ops->ctx, f);
}

/* With jobs, the reader is ahead of the record that reached --max-errors: the lines it read
 * past that record are unread too. A line a record ended in the middle of counts as unread (as
 * reader_count_unread_lines counts it) after that record, and not after the last one read. */
static void count_unread_ahead(struct filter *f, struct reader *r)
{
    f->count_pending = false;
    f->stats.unread +=
        f->last_end_line - f->stop_at.line + f->stop_mid_line - f->last_ends_mid_line;
    count_unread(f, r);
}

static void run_file(struct filter *f, const char *path)
{
    const char *display = strcmp(path, "-") == 0 ? "<stdin>" : path;
    struct reader_hooks hooks = {
        .before_block = f->jobs ? before_block : flush_outputs,
        .idle = f->ops->idle ? idle_input : NULL,
        .spill = spill_to_rejects,
        .ctx = f,
        .interrupted = &interrupted,
    };
    struct reader *r = f->in =
        reader_open(path, display, f->cfg->opts->max_line_bytes, f->cfg->mode, &hooks);
    if (!r) {
        report_io_error(f, display, "cannot open", errno);
        return;
    }
    progress_file(&f->progress, display);
    struct record rec;
    int got = 0;
    while (!interrupted && !f->stop && (got = reader_next(r, &rec)) > 0) {
        progress_record(&f->progress, rec.column_base + rec.raw_len + rec.had_newline,
                        rec.kind == REC_LINE);
        if (f->jobs) {
            f->last_end_line = rec.end_line;
            f->last_ends_mid_line = rec.ends_mid_line;
            if (!f->stop) /* a hook may have finished the batches in flight, and so the run */
                add_record(f, &rec);
            continue;
        }
        handle_record(f, &rec);
        if (limit_reached(f, &rec))
            count_unread(f, r);
    }
    int err = errno;
    drain_jobs(f);
    if (f->count_pending)
        count_unread_ahead(f, r);
    else if (f->tool_stopped && !f->limit_reached && !interrupted)
        count_unread(f, r);
    if (got < 0 && !interrupted)
        report_io_error(f, display, "cannot read", err);
    reader_close(r);
    f->in = NULL;
}

/* The counts as the run ends: what the tool took and then left unused (filter_unused) is
 * unread, as what it never read. */
static struct stats final_stats(const struct filter *f)
{
    struct stats s = f->stats;
    unsigned long unused = s.unused <= s.valid ? s.unused : s.valid;
    s.valid -= unused;
    s.records -= unused;
    s.unread += unused;
    return s;
}

/* "lines" repeats "records" for the readers of 0.1's stats; it goes at 1.0 (acp(7)). */
static void print_stats(struct filter *f)
{
    const struct stats final = final_stats(f), *s = &final;
    char unread[64];
    if (f->sink.format == DIAG_JSON) {
        if (s->unread_unknown)
            snprintf(unread, sizeof unread, "null");
        else
            snprintf(unread, sizeof unread, "%lu", s->unread);
        fprintf(stderr,
                "{\"type\":\"stats\",\"records\":%lu,\"lines\":%lu,\"valid\":%lu,"
                "\"rejected\":%lu,\"blank\":%lu,\"unread\":%s,\"warnings\":%lu,\"errors\":%lu}\n",
                s->records, s->records, s->valid, s->rejected, s->blank, unread, f->sink.warnings,
                f->sink.errors);
        return;
    }
    if (!f->limit_reached && !s->unread && !(f->tool_stopped && s->unread_unknown))
        unread[0] = '\0';
    else if (s->unread_unknown)
        snprintf(unread, sizeof unread, ", the rest unread");
    else
        snprintf(unread, sizeof unread, ", %lu line%s unread", s->unread,
                 s->unread == 1 ? "" : "s");
    fprintf(stderr,
            "%s: %lu records: %lu valid, %lu rejected, %lu blank%s; %lu warnings, %lu errors\n",
            util_progname(), s->records, s->valid, s->rejected, s->blank, unread, f->sink.warnings,
            f->sink.errors);
}

/* Opens an output without truncating it yet: it may turn out to be one of the inputs. */
static FILE *open_output(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    FILE *stream = fdopen(fd, "w");
    if (!stream) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return stream;
}

static bool open_outputs(struct filter *f)
{
    const struct common_opts *o = f->cfg->opts;
    f->out = stdout;
    f->out_name = "<stdout>";
    if (o->output && strcmp(o->output, "-") != 0) {
        f->out = open_output(o->output);
        f->out_name = o->output;
        if (!f->out) {
            report_io_error(f, o->output, "cannot open for writing", errno);
            return false;
        }
    }
    if (o->rejects) {
        f->rejects = open_output(o->rejects);
        if (!f->rejects) {
            report_io_error(f, o->rejects, "cannot open for writing", errno);
            return false;
        }
    }
    f->out_buffer = xmalloc(OUTPUT_BUFFER);
    setvbuf(f->out, f->out_buffer, _IOFBF, OUTPUT_BUFFER);
    return true;
}

static bool same_regular_file(const struct stat *a, const struct stat *b)
{
    return S_ISREG(a->st_mode) && S_ISREG(b->st_mode) && a->st_dev == b->st_dev &&
           a->st_ino == b->st_ino;
}

static void stat_stream(FILE *stream, struct stat *st)
{
    if (!stream || fstat(fileno(stream), st) != 0)
        memset(st, 0, sizeof *st); /* no mode bits: not a regular file, clashes with nothing */
}

static void report_clash(struct filter *f, const char *display, const char *what, const char *other)
{
    struct diag_where at = {.file = display};
    diag_emit(&f->sink, &at, SEV_ERROR, "io-error", "%s '%s'; nothing was read", what, other);
    f->trouble = true;
}

/* Two descriptors on one terminal: one device, or both our controlling terminal (/dev/tty is a
 * device of its own that stands for it). */
static bool same_terminal(FILE *a, const struct stat *sa, FILE *b, const struct stat *sb)
{
    if (!S_ISCHR(sa->st_mode) || !S_ISCHR(sb->st_mode) || !isatty(fileno(a)) || !isatty(fileno(b)))
        return false;
    pid_t session_a = tcgetsid(fileno(a));
    return sa->st_rdev == sb->st_rdev || (session_a != -1 && session_a == tcgetsid(fileno(b)));
}

/* What --rejects and the output share, if anything: the lines of both would mix in it. A
 * character device other than a terminal (/dev/null) takes any number of writers unharmed. */
static const char *shared_with_output(struct filter *f, const struct stat *out,
                                      const struct stat *rej)
{
    if (!f->rejects || (f->cfg->opts->quiet && f->out == stdout))
        return NULL; /* -q: nothing goes to stdout */
    if (same_regular_file(out, rej))
        return "file";
    bool same_node = out->st_dev == rej->st_dev && out->st_ino == rej->st_ino;
    if (S_ISFIFO(out->st_mode) && S_ISFIFO(rej->st_mode) && same_node)
        return "pipe";
    if (S_ISSOCK(out->st_mode) && S_ISSOCK(rej->st_mode) && same_node)
        return "socket";
    if (same_terminal(f->out, out, f->rejects, rej))
        return "terminal";
    return NULL;
}

/* Truncating an input to write to it would destroy it (and appending would feed the tool its
 * own output forever); two outputs on one file would overwrite each other's lines. */
static bool outputs_clash(struct filter *f, char **files, int nfiles)
{
    const char *rejects = f->cfg->opts->rejects;
    struct stat out, rej, in;
    stat_stream(f->out, &out);
    stat_stream(f->rejects, &rej);
    const char *shared = shared_with_output(f, &out, &rej);
    if (shared) {
        char what[64];
        snprintf(what, sizeof what, "--rejects is the same %s as the output", shared);
        report_clash(f, rejects, what, f->out_name);
        return true;
    }
    for (int i = 0; i < nfiles; i++) {
        bool is_stdin = strcmp(files[i], "-") == 0;
        if ((is_stdin ? fstat(STDIN_FILENO, &in) : stat(files[i], &in)) != 0)
            continue; /* reported when the file is opened */
        const char *display = is_stdin ? "<stdin>" : files[i];
        if (same_regular_file(&in, &out) || same_regular_file(&in, &rej)) {
            report_clash(f, display, "this input is also the output",
                         same_regular_file(&in, &out) ? f->out_name : rejects);
            return true;
        }
    }
    return false;
}

/* The outputs we opened start empty, as with fopen "w", once they are known to be no input. */
static bool truncate_outputs(struct filter *f)
{
    const struct common_opts *o = f->cfg->opts;
    FILE *streams[] = {f->out != stdout ? f->out : NULL, f->rejects};
    const char *names[] = {o->output, o->rejects};
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++) {
        struct stat st;
        stat_stream(streams[i], &st);
        if (S_ISREG(st.st_mode) && ftruncate(fileno(streams[i]), 0) != 0) {
            report_io_error(f, names[i], "cannot truncate", errno);
            return false;
        }
    }
    return true;
}

static void close_stream(struct filter *f, FILE *stream, const char *name)
{
    if (!stream)
        return;
    bool failed = fflush(stream) != 0 || ferror(stream);
    int err = errno;
    if (fclose(stream) != 0 && !failed) {
        failed = true;
        err = errno;
    }
    if (failed)
        die_write_error(f, name, err ? err : EIO);
}

static void install_sigint(void)
{
    struct sigaction sa, was;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read must return so that we can stop */
    sigaction(SIGINT, &sa, NULL);
    /* Left ignored where they are (nohup). */
    int more[] = {SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (sigaction(more[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(more[i], &sa, NULL);
    if (atexit(die_of_stop_signal) != 0)
        die_oom();
}

static void erase_progress(void *ctx)
{
    progress_erase(ctx);
}

/* The progress line of a long run over files (none over one record in memory), unless the tool
 * draws none, --no-progress or -q turned it off, or no terminal could show it without getting
 * in the way. */
static void start_progress(struct filter *f, char **files, int nfiles)
{
    const struct common_opts *o = f->cfg->opts;
    progress_init(&f->progress,
                  nfiles > 0 && o->progress && !o->quiet && progress_wanted(f->out, files, nfiles),
                  files, nfiles);
    f->sink.before_write = erase_progress;
    f->sink.before_write_ctx = &f->progress;
}

/* The run over the files, or over the one record given instead. */
static int run(const struct filter_config *cfg, const struct filter_ops *ops, char **files,
               int nfiles, const struct record *one)
{
    struct filter f = {.cfg = cfg, .ops = ops, .scan = jscan_new(), .scratch = jscan_new()};
    diag_sink_init(&f.sink, stderr);
    f.sink.format = cfg->opts->diagnostics;
    f.sink.quiet = cfg->opts->quiet;
    f.sink.strict = cfg->opts->strict;
    f.sink.color = cfg->opts->diagnostics == DIAG_TEXT && options_want_color(cfg->opts);
    if (cfg->observer)
        diag_observe(&f.sink, cfg->observer);
    install_sigint();
    /* A reader gone is met as EPIPE, so that the diagnostics buffered so far go out first. */
    signal(SIGPIPE, SIG_IGN);
    diag_buffer_stderr();
    char *dash[] = {"-"};
    if (nfiles == 0 && !one) {
        files = dash;
        nfiles = 1;
    }
    if (open_outputs(&f) && !outputs_clash(&f, files, nfiles) && truncate_outputs(&f)) {
        int i = 0;
        if (one && one->kind == REC_TOO_LONG)
            spill_to_rejects(&f, one->text, one->len); /* as the reader does with a long line */
        start_progress(&f, files, nfiles);
        size_t jobs = jobs_wanted(cfg->opts);
        if (!one && jobs > 1)
            start_jobs(&f, jobs - 1); /* and this thread */
        if (one)
            handle_record(&f, one);
        else
            do
                for (i = 0; i < nfiles && !interrupted && !f.stop;)
                    run_file(&f, files[i++]);
            while (!interrupted && !f.stop && ops->next_pass && ops->next_pass(ops->ctx, &f));
        progress_end(&f.progress);
        stop_jobs(&f);
        if (f.limit_reached || (f.tool_stopped && !interrupted))
            count_unread_files(&f, files + i, nfiles - i);
        if (!interrupted && !f.stop && ops->end_of_input)
            ops->end_of_input(ops->ctx, &f);
        else if ((interrupted || f.limit_reached) && ops->cut_short)
            ops->cut_short(ops->ctx, &f);
    }
    if (f.limit_reached && !cfg->opts->quiet)
        report_stop(&f);
    if (cfg->opts->stats && !cfg->opts->quiet)
        print_stats(&f);
    diag_flush(&f.sink);
    close_stream(&f, f.rejects, cfg->opts->rejects);
    close_stream(&f, f.out, f.out_name);
    if (f.out != stdout)
        close_stream(&f, stdout, "<stdout>");
    free(f.out_buffer);
    int status = interrupted     ? EXIT_INTERRUPTED
                 : f.trouble     ? EXIT_TROUBLE
                 : f.sink.errors ? EXIT_FINDINGS
                                 : EXIT_OK;
    diag_sink_free(&f.sink);
    jscan_free(f.scan);
    jscan_free(f.scratch);
    return status;
}

int filter_run(const struct filter_config *cfg, const struct filter_ops *ops, char **files,
               int nfiles)
{
    return run(cfg, ops, files, nfiles, NULL);
}

int filter_run_text(const struct filter_config *cfg, const struct filter_ops *ops,
                    const char *display, const char *text, size_t len)
{
    struct record rec = {.kind = REC_LINE,
                         .file = display,
                         .line = 1,
                         .end_line = 1,
                         .text = text,
                         .len = len,
                         .raw_len = len,
                         .had_newline = true};
    if (len > cfg->opts->max_line_bytes)
        rec.kind = REC_TOO_LONG;
    return run(cfg, ops, NULL, 0, &rec);
}
