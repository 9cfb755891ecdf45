#include "tool/steps.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/partition.h"
#include "tool/stopsignal.h"

/* A reader that went away is no error: stop as a killed `cat` would, without a word. */
static _Noreturn void die_quietly_on_broken_pipe(void)
{
    (void)fflush(stderr); /* the diagnostics so far, unless stderr went with it */
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(EXIT_TROUBLE);
}

_Noreturn void filter_die_write_error(struct filter *f, const char *name, int err)
{
    progress_end(&f->progress);
    if (err == EPIPE)
        die_quietly_on_broken_pipe();
    /* SIGINT (SIGTERM, SIGHUP) while a reader holds the pipe full: the user asked to stop, and
     * what is left could only be flushed by waiting for that reader, so leave at once (no exit
     * handlers flushing), with the diagnostics so far: a stderr stuck as well gives way to a
     * second signal. SIGTERM and SIGHUP end as their sender expects. */
    if (err == EINTR && stop_signal()) {
        int sig = stop_signal();
        (void)fflush(stderr);
        if (sig != SIGINT) {
            signal(sig, SIG_DFL);
            raise(sig);
        }
        _exit(EXIT_INTERRUPTED);
    }
    f->sink.quiet = f->cfg->opts->quiet;
    struct diag_where at = {.file = name};
    diag_emit(&f->sink, &at, "io-error", "write error: %s", strerror(err));
    exit(EXIT_TROUBLE);
}

void filter_write_run(struct filter *f)
{
    const char *run = f->run;
    size_t len = f->run_len;
    f->run = NULL;
    f->run_len = 0;
    if (len && fwrite(run, 1, len, f->out) != len)
        filter_die_write_error(f, f->out_name, errno);
}

void filter_checked_write(struct filter *f, FILE *stream, const char *name, const char *data,
                          size_t len)
{
    if (stream == f->out && f->run_len)
        filter_write_run(f);
    if (len && fwrite(data, 1, len, stream) != len)
        filter_die_write_error(f, name, errno);
}

void filter_write(struct filter *f, const char *data, size_t len)
{
    if (f->cfg->opts->quiet && f->out == stdout)
        return;
    filter_checked_write(f, f->out, f->out_name, data, len);
}

static void write_record(struct filter *f, FILE *stream, const char *name, const struct record *rec)
{
    if (stream == f->out && f->in_batch) {
        if (f->run_len && f->run + f->run_len == rec->text) {
            f->run_len += rec->raw_len + 1;
            return;
        }
        filter_write_run(f);
        f->run = rec->text;
        f->run_len = rec->raw_len + 1;
        return;
    }
    filter_checked_write(f, stream, name, rec->text, rec->raw_len);
    filter_checked_write(f, stream, name, "\n", 1);
}

void filter_reject(struct filter *f, const struct record *rec)
{
    f->stats.rejected++;
    if (f->rejects && rec->kind != REC_TOO_LONG)
        write_record(f, f->rejects, f->cfg->opts->rejects, rec);
    else if (f->rejects)
        filter_checked_write(f, f->rejects, f->cfg->opts->rejects, "\n", 1);
}

static bool read_message(const struct filter *f, const struct record *rec, struct jscan *js,
                         struct jscan *scratch, struct message *m, struct diag_sink *sink)
{
    if (rec->syntax == SYNTAX_ACL && f->ops->parse_acl) {
        const struct jv *view =
            f->ops->parse_acl(f->ops->ctx, rec, sink, f->cfg->opts->now, js, scratch);
        return view && message_read_view(m, rec, view, f->cfg->protocol);
    }
    if (!message_read(m, rec, js, f->cfg->protocol, &f->cfg->captures, sink))
        return false;
    if (f->cfg->content_text)
        message_note_content(m, js);
    return true;
}

/* Whether m falls outside the run's partition (filter_config.partition). */
static bool elsewhere(const struct filter *f, const struct message *m)
{
    if (!f->cfg->partition.n)
        return false;
    unsigned long k = message_partition(m, f->cfg->partition.queen, f->cfg->partition.n);
    return (k ? k : 1) != f->cfg->partition.k;
}

bool filter_read_message(const struct filter *f, const struct record *rec, struct jscan *js,
                         struct jscan *scratch, struct message *m, struct diag_sink *sink)
{
    if (!read_message(f, rec, js, scratch, m, sink))
        return false;
    m->elsewhere = elsewhere(f, m);
    return true;
}

/* Whether a message read with errors_before errors reported before it, and errors_prepared
 * after its parse and prepare step, goes to --rejects rather than to the output. */
static bool rejected(const struct filter *f, unsigned long errors_before,
                     unsigned long errors_prepared)
{
    switch (f->cfg->pass) {
    case PASS_WELL_FORMED:
        return errors_prepared > errors_before;
    case PASS_ALL:
        return false;
    case PASS_VALID:
        break;
    }
    return f->sink.errors > errors_before; /* any error, the stream checks' too */
}

void filter_deliver(struct filter *f, struct message *m, unsigned long errors_before)
{
    const struct record *rec = m->rec;
    unsigned long errors_prepared = f->sink.errors;
    enum verdict v = f->ops->message ? f->ops->message(f->ops->ctx, f, m) : VERDICT_PASS;
    if (rejected(f, errors_before, errors_prepared)) {
        filter_reject(f, rec);
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
    if (!filter_read_message(f, rec, f->scan, f->scratch, &m, &f->sink)) {
        filter_reject(f, rec);
        return;
    }
    if (m.elsewhere) {
        f->stats.elsewhere++;
        message_clear(&m);
        return;
    }
    m.arena = &f->message_memory;
    if (f->ops->prepare)
        m.passed = f->ops->prepare(f->ops->ctx, &m, f->scratch, &f->sink);
    filter_deliver(f, &m, errors_before);
    message_clear(&m);
    arena_reset(&f->message_memory);
}

void filter_handle_record(struct filter *f, const struct record *rec)
{
    f->stats.records++;
    switch (rec->kind) {
    case REC_BLANK:
        f->stats.blank++;
        return;
    case REC_TOO_LONG: {
        struct diag_where at = {.file = rec->file, .line = rec->line};
        diag_emit(&f->sink, &at, "line-too-long",
                  rec->message ? "message of %zu bytes is longer than --max-line-bytes=%zu"
                               : "line of %zu bytes is longer than --max-line-bytes=%zu",
                  rec->raw_len, f->cfg->opts->max_line_bytes);
        filter_reject(f, rec);
        return;
    }
    case REC_LINE:
        handle_message(f, rec);
        return;
    }
}
