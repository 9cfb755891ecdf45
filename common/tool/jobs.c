/* --jobs: the reader (this thread) cuts the input into batches of records; worker threads
 * parse them and run the tool's prepare step, each message's findings kept in a log; this thread
 * then takes the batches back in input order and does the rest (the findings reported through
 * the real sink, the tool's `message`, the output) exactly as without workers. Batches in flight
 * are bounded in number and in bytes, so memory does not grow with the input. Before the reader
 * would block, and before anything else happens in order (a spilled long line, an idle call, the
 * end of a file), every batch in flight is finished: the output is the same as with one thread,
 * and a live pipe gets each result at once. */
#include "tool/jobs.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "proto/acl_lex.h"

enum { BATCH_RECORDS = 512, BATCH_BYTES = 128 * 1024 };

struct slot {
    struct record rec;
    size_t text_at;   /* where rec's text is in the batch's bytes */
    size_t tokens_at; /* and its tokens, when the reader kept them (record.h) */
    bool parsed;      /* a message, and not a line that failed to parse */
    bool elsewhere;   /* a message of another partition, left out */
    bool live;        /* m holds what message_clear frees */
    bool stored;      /* m's view was kept in the batch's views, at view_at */
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
        if (!filter_read_message(f, &s->rec, scans->input, scans->scratch, &s->m, sink))
            continue;
        s->parsed = s->live = true;
        if ((s->elsewhere = s->m.elsewhere)) { /* of another partition: left out */
            free_message(s);
            continue;
        }
        s->m.arena = &b->arena;
        bool scanned = !s->m.tree && !s->m.own; /* else its view is made of a tree */
        if (f->ops->prepare)
            s->m.passed = f->ops->prepare(f->ops->ctx, &s->m, scans->scratch, sink);
        if (!f->ops->message) /* prepare did all there is to do with the message */
            free_message(s);
        else if (scanned && (!s->m.drafted || s->m.draft_keeps_view)) {
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

size_t jobs_wanted(const struct common_opts *o)
{
    if (o->jobs != 0)
        return o->jobs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? (size_t)cores : 1;
}

void jobs_start(struct filter *f, size_t n)
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
        jscan_note_spans(j->scans[i].input, f->cfg->content_text);
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

void jobs_stop(struct filter *f)
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
        filter_handle_record(f, &s->rec);
    } else {
        f->stats.records++;
        unsigned long errors_before = f->sink.errors;
        diag_replay(&f->sink, &s->log);
        /* its thread's scanner has read on since */
        if (s->elsewhere)
            ; /* freed by its worker */
        else if (s->stored)
            message_rebind_view(&s->m, jv_store_view(&b->views, s->view_at));
        else if (s->parsed && f->ops->message && s->m.drafted && !s->m.draft_keeps_view)
            message_unbind(&s->m);
        else if (s->parsed && f->ops->message)
            message_rebind(&s->m, f->scan);
        if (s->parsed && s->elsewhere)
            f->stats.elsewhere++;
        else if (s->parsed)
            filter_deliver(f, &s->m, errors_before);
        else
            filter_reject(f, &s->rec);
    }
    if (filter_limit_reached(f, &s->rec)) {
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
    filter_write_run(f); /* before the batch's texts are reused */
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
    for (size_t i = 0; i < b->n; i++) {
        struct slot *s = &b->slots[i];
        if (s->rec.kind == REC_LINE)
            s->rec.text = b->bytes.buf + s->text_at;
        if (s->rec.tokens)
            s->rec.tokens = (const struct acl_mark *)(const void *)(b->bytes.buf + s->tokens_at);
    }
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

void jobs_drain(struct filter *f)
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

/* Copies a record's tokens into a batch's bytes, aligned for them; returns where. Counted in
 * the bytes, they bound the batch's size as its texts do. */
static size_t add_tokens(struct strbuf *bytes, const struct acl_mark *tokens, size_t n)
{
    while (bytes->len % _Alignof(struct acl_mark))
        sb_addc(bytes, '\0');
    size_t at = bytes->len;
    sb_add(bytes, tokens, n * sizeof *tokens);
    return at;
}

void jobs_add_record(struct filter *f, const struct record *rec)
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
    if (rec->tokens) /* the string form's tokens, so that the worker does not lex again */
        s->tokens_at = add_tokens(&b->bytes, rec->tokens, rec->ntokens);
    /* copied after the text: the reader has just stored the record's members one by one, and
     * a copy in wider pieces (as a struct is copied) right away waited for each store to land */
    s->rec = *rec;
    if (b->n >= BATCH_RECORDS || b->bytes.len >= BATCH_BYTES)
        submit(f);
}
