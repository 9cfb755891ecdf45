#include "tool/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/hashtab.h"
#include "diag/diag.h"
#include "io/terminal.h"
#include "tool/jobs.h"
#include "tool/progress.h"
#include "tool/steps.h"
#include "tool/stopsignal.h"

enum { OUTPUT_BUFFER = 64 * 1024 };

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
    hashtab_key_draw();
    json_set_alloc_funcs(xmalloc, free);
}

struct diag_sink *filter_sink(struct filter *f)
{
    return &f->sink;
}

int filter_output_fd(struct filter *f)
{
    return fileno(f->out);
}

static void flush_stream(struct filter *f, FILE *stream, const char *name)
{
    if (stream && fflush(stream) != 0)
        filter_die_write_error(f, name, errno);
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

/* ---- the reader's hooks ---- */

static void before_block(void *ctx)
{
    struct filter *f = ctx;
    jobs_drain(f);
    flush_outputs(f);
}

static void spill_to_rejects(void *ctx, const char *data, size_t len)
{
    struct filter *f = ctx;
    jobs_drain(f);
    if (f->rejects && !f->stop)
        filter_checked_write(f, f->rejects, f->cfg->opts->rejects, data, len);
}

static void report_io_error(struct filter *f, const char *display, const char *what, int err)
{
    struct diag_where at = {.file = display};
    diag_emit(&f->sink, &at, "io-error", "%s: %s", what, strerror(err));
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
    struct reader_hooks hooks = {.interrupted = stop_signal_flag()};
    for (int i = 0; i < nfiles && !f->stats.unread_unknown; i++) {
        const char *display = strcmp(files[i], "-") == 0 ? DIAG_STANDARD_INPUT : files[i];
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
    jobs_drain(f);
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
    const char *display = strcmp(path, "-") == 0 ? DIAG_STANDARD_INPUT : path;
    struct reader_hooks hooks = {
        .before_block = f->jobs ? before_block : flush_outputs,
        .idle = f->ops->idle ? idle_input : NULL,
        .spill = spill_to_rejects,
        .ctx = f,
        .interrupted = stop_signal_flag(),
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
    while (!stop_signal() && !f->stop && (got = reader_next(r, &rec)) > 0) {
        progress_record(&f->progress, rec.column_base + rec.raw_len + rec.had_newline,
                        rec.kind == REC_LINE);
        if (f->jobs) {
            f->last_end_line = rec.end_line;
            f->last_ends_mid_line = rec.ends_mid_line;
            if (!f->stop) /* a hook may have finished the batches in flight, and so the run */
                jobs_add_record(f, &rec);
            continue;
        }
        filter_handle_record(f, &rec);
        if (filter_limit_reached(f, &rec))
            count_unread(f, r);
    }
    int err = errno;
    jobs_drain(f);
    if (f->count_pending)
        count_unread_ahead(f, r);
    else if (f->tool_stopped && !f->limit_reached && !stop_signal())
        count_unread(f, r);
    if (got < 0 && !stop_signal())
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
    const struct diag_sink *too = f->cfg->counted_too;
    unsigned long warnings = f->sink.warnings + (too ? too->warnings : 0);
    unsigned long errors = f->sink.errors + (too ? too->errors : 0);
    char unread[64];
    if (f->sink.format == DIAG_JSON) {
        if (s->unread_unknown)
            snprintf(unread, sizeof unread, "null");
        else
            snprintf(unread, sizeof unread, "%lu", s->unread);
        char elsewhere[64] = "";
        if (f->cfg->partition.n)
            snprintf(elsewhere, sizeof elsewhere, ",\"elsewhere\":%lu", s->elsewhere);
        fprintf(stderr,
                "{\"type\":\"stats\",\"records\":%lu,\"lines\":%lu,\"valid\":%lu,"
                "\"rejected\":%lu,\"blank\":%lu%s,\"unread\":%s,\"warnings\":%lu,\"errors\":%lu}\n",
                s->records, s->records, s->valid, s->rejected, s->blank, elsewhere, unread,
                warnings, errors);
        return;
    }
    if (!f->limit_reached && !s->unread && !(f->tool_stopped && s->unread_unknown))
        unread[0] = '\0';
    else if (s->unread_unknown)
        snprintf(unread, sizeof unread, ", the rest unread");
    else
        snprintf(unread, sizeof unread, ", %lu line%s unread", s->unread,
                 s->unread == 1 ? "" : "s");
    char elsewhere[64] = "";
    if (f->cfg->partition.n)
        snprintf(elsewhere, sizeof elsewhere, ", %lu of other partitions", s->elsewhere);
    fprintf(stderr,
            "%s: %lu records: %lu valid, %lu rejected, %lu blank%s%s; %lu warnings, %lu errors\n",
            util_progname(), s->records, s->valid, s->rejected, s->blank, elsewhere, unread,
            warnings, errors);
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

/* What a and b both are when they are one node: "file", "pipe" or "socket"; else NULL. A
 * character device (/dev/null, a terminal) is none of these: it clashes with nothing here. */
static const char *same_node(const struct stat *a, const struct stat *b)
{
    if (a->st_dev != b->st_dev || a->st_ino != b->st_ino || (a->st_mode ^ b->st_mode) & S_IFMT)
        return NULL;
    if (S_ISREG(a->st_mode))
        return "file";
    if (S_ISFIFO(a->st_mode))
        return "pipe";
    return S_ISSOCK(a->st_mode) ? "socket" : NULL;
}

static void stat_stream(FILE *stream, struct stat *st)
{
    if (!stream || fstat(fileno(stream), st) != 0)
        memset(st, 0, sizeof *st); /* no mode bits: not a regular file, clashes with nothing */
}

static void report_clash(struct filter *f, const char *display, const char *what, const char *other)
{
    struct diag_where at = {.file = display};
    diag_emit(&f->sink, &at, "io-error", "%s '%s'; nothing was read", what, other);
    f->trouble = true;
}

/* What --rejects and the output share, if anything: the lines of both would mix in it. A
 * character device other than a terminal (/dev/null) takes any number of writers unharmed. */
static const char *shared_with_output(struct filter *f, const struct stat *out,
                                      const struct stat *rej)
{
    if (!f->rejects || (f->cfg->opts->quiet && f->out == stdout))
        return NULL; /* -q: nothing goes to stdout */
    const char *shared = same_node(out, rej);
    if (shared)
        return shared;
    if (terminal_same(fileno(f->out), fileno(f->rejects)))
        return "terminal";
    return NULL;
}

/* Whether an output is an input by what it is, whatever its name (/dev/stdin, /proc/self/fd/0,
 * a link): the same file, which writing would destroy or feed forever, or the same pipe, which
 * would feed the tool its own output (--rejects=/dev/stdin read back what it wrote, without end).
 * A socket counts for an output the tool opened only: standard output on the input's socket
 * (inetd, a socket-activated service) goes to the peer, not back in. */
static bool is_input(const struct stat *in, const struct stat *out, bool opened)
{
    const char *shared = same_node(in, out);
    return shared && (opened || strcmp(shared, "socket") != 0);
}

/* The output an input is, if any: reported. */
static bool input_is_output(struct filter *f, const char *display, const struct stat *in,
                            const struct stat *out, const struct stat *rej)
{
    const char *rejects = f->cfg->opts->rejects;
    bool out_opened = f->out != stdout;
    if (is_input(in, out, out_opened)) {
        report_clash(f, display, "this input is also the output", f->out_name);
        return true;
    }
    if (f->rejects && is_input(in, rej, true)) {
        report_clash(f, display, "this input is also the output", rejects);
        return true;
    }
    return false;
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
        if (input_is_output(f, is_stdin ? DIAG_STANDARD_INPUT : files[i], &in, &out, &rej))
            return true;
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
        filter_die_write_error(f, name, err ? err : EIO);
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
    jscan_note_spans(f.scan, cfg->content_text);
    diag_sink_init(&f.sink, stderr);
    f.sink.format = cfg->opts->diagnostics;
    f.sink.quiet = cfg->opts->quiet;
    f.sink.strict = cfg->opts->strict;
    f.sink.color = cfg->opts->diagnostics == DIAG_TEXT && options_want_color(cfg->opts);
    if (cfg->observer)
        diag_observe(&f.sink, cfg->observer);
    f.sink.shows = cfg->shows;
    f.sink.shows_ctx = cfg->shows_ctx;
    stop_signals_install();
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
            jobs_start(&f, jobs - 1); /* and this thread */
        if (one)
            filter_handle_record(&f, one);
        else
            do
                for (i = 0; i < nfiles && !stop_signal() && !f.stop;) {
                    if (ops->next_file)
                        ops->next_file(ops->ctx, &f, files[i]);
                    if (!f.stop)
                        run_file(&f, files[i++]);
                }
            while (!stop_signal() && !f.stop && ops->next_pass && ops->next_pass(ops->ctx, &f));
        progress_end(&f.progress);
        jobs_stop(&f);
        if (f.limit_reached || (f.tool_stopped && !stop_signal()))
            count_unread_files(&f, files + i, nfiles - i);
        if (!stop_signal() && !f.stop && ops->end_of_input)
            ops->end_of_input(ops->ctx, &f);
        else if ((stop_signal() || f.limit_reached) && ops->cut_short)
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
    int status = stop_signal()   ? EXIT_INTERRUPTED
                 : f.trouble     ? EXIT_TROUBLE
                 : f.sink.errors ? EXIT_FINDINGS
                                 : EXIT_OK;
    diag_sink_free(&f.sink);
    jscan_free(f.scan);
    jscan_free(f.scratch);
    arena_free(&f.message_memory);
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
