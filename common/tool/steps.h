/* Private to tool/: the run's state, and the steps of a record's handling that the filter loop
 * (filter.c) takes for each record and its -j pipeline (jobs.c) takes in input order; with the
 * writes of the run, whose failure ends it. The tools include filter.h, never this. */
#ifndef ACP_STEPS_H
#define ACP_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "tool/filter.h"
#include "tool/progress.h"

/* The exit statuses of a run. */
enum { EXIT_OK = 0, EXIT_FINDINGS = 1, EXIT_TROUBLE = 2, EXIT_INTERRUPTED = 130 };

struct stats {
    unsigned long records, valid, rejected, blank;
    unsigned long unread;    /* lines left unread when --max-errors or the tool stopped the run */
    bool unread_unknown;     /* and more that could not be counted (a pipe) */
    unsigned long unused;    /* valid records the tool then left unused: unread in the end */
    unsigned long elsewhere; /* messages of other partitions (filter_config.partition) */
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
    /* without jobs: what prepare makes of the message being handled (message_alloc), emptied
     * once it is, as a batch's arena is under --jobs: its digest and notes cost no malloc and
     * free each, in memory the cache holds */
    struct arena message_memory;
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

/* Reads rec into m, its view in js (scratch: the thread's other scanner, which the string form's
 * parse uses). Reads nothing of the run's state but the configuration: worker threads call it
 * too, each with scanners of their own. */
bool filter_read_message(const struct filter *f, const struct record *rec, struct jscan *js,
                         struct jscan *scratch, struct message *m, struct diag_sink *sink);
/* What follows the parse and the tool's prepare step, in input order: the tool's own work, and
 * where the record goes. errors_before is the sink's count of errors before the record. */
void filter_deliver(struct filter *f, struct message *m, unsigned long errors_before);
/* Counts rec as rejected and writes it to --rejects. */
void filter_reject(struct filter *f, const struct record *rec);
/* The whole handling of one record in this thread: counted, parsed, prepared, delivered. */
void filter_handle_record(struct filter *f, const struct record *rec);
/* After each record: whether --max-errors is reached now, and so the run stops there. Inline:
 * it runs for every record, in both files. */
static inline bool filter_limit_reached(struct filter *f, const struct record *rec)
{
    if (!f->cfg->opts->max_errors || f->sink.errors < f->cfg->opts->max_errors)
        return false;
    f->stop = f->limit_reached = true;
    f->stop_at = (struct diag_where){.file = rec->file, .line = rec->end_line};
    return true;
}
/* Writes out the records passed in a row of the batch being finished (f->run). */
void filter_write_run(struct filter *f);
/* Writes data to stream (the output or --rejects, named name), after the run of records waiting
 * when it is the output; a write that fails ends the process (filter_die_write_error). */
void filter_checked_write(struct filter *f, FILE *stream, const char *name, const char *data,
                          size_t len);
/* Ends the process after a write to name failed with err: silently on a broken pipe, as a killed
 * `cat` would; at once after a stop signal; else with an io-error, exit 2. */
_Noreturn void filter_die_write_error(struct filter *f, const char *name, int err);

#endif
