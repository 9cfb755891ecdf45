/* The input/output contract every tool follows, in one place: read the files in order (or
 * stdin), parse each record, hand each message to the tool, write what it keeps to the output
 * and what it rejects to --rejects, count, and turn the run into an exit status. */
#ifndef ACP_FILTER_H
#define ACP_FILTER_H

#include "io/reader.h"
#include "proto/message.h"
#include "tool/options.h"

struct filter;

enum verdict {
    VERDICT_PASS,    /* write the record as it came */
    VERDICT_WRITTEN, /* the tool wrote its own output for it */
};

struct filter_ops {
    /* Called for every message in order. A message for which an error was reported during the
     * call is rejected whatever the verdict (unless filter_config.pass lets it through); the tool
     * must not have written output for it. May be NULL when prepare does all there is to do (the
     * verdict is then VERDICT_PASS). */
    enum verdict (*message)(void *ctx, struct filter *f, struct message *m);
    /* Called once after the last record, unless the run was cut short. */
    void (*end_of_input)(void *ctx, struct filter *f);
    /* Called once instead, when SIGINT or --max-errors cut the run short. May be NULL. */
    void (*cut_short)(void *ctx, struct filter *f);
    /* Called while the input is idle (see reader_hooks.idle): returns the seconds until it
     * wants to be called again, INFINITY for never until more input came. May be NULL. */
    double (*idle)(void *ctx, struct filter *f);
    /* Optional: the part of the work on a message that needs nothing of the run's state (the
     * per-message checks). Called for each message just before `message`, which finds what it
     * returned in m->passed. With --jobs above 1 it runs in worker threads, on many messages at
     * once and ahead of `message`, with a sink of its own whose findings are reported in order
     * before `message` is called: it may read ctx, but changes nothing outside m. What it
     * writes to m->output is written after `message`, unless an error was reported. scratch is
     * a scanner of the calling thread's own, for views of prepare's own (m's is in another). */
    bool (*prepare)(void *ctx, struct message *m, struct jscan *scratch, struct diag_sink *sink);
    /* Parses a record of the FIPA string form into the view of its FIPA JSON, in js
     * (acl_parse_view; scratch is the thread's other scanner); NULL after reporting why. Tools
     * that do not read the string form leave it NULL. With --jobs above 1 it runs in worker
     * threads, as prepare does. */
    const struct jv *(*parse_acl)(void *ctx, const struct record *rec, struct diag_sink *sink,
                                  time_t now, struct jscan *js, struct jscan *scratch);
    /* Called before each file is read, with its name as given ("-": standard input); so that a
     * tool reads some files otherwise than others (acp-replay --serve: the recording, then the
     * live client). May be NULL. */
    void (*next_file)(void *ctx, struct filter *f, const char *path);
    /* Called after the last file; true reads the files again (acp-replay --loop). May be NULL. */
    bool (*next_pass)(void *ctx, struct filter *f);
    void *ctx;
    /* With --jobs above 1: `message` costs more than the parse and prepare (the stream checks),
     * so the thread that calls it is the one the others wait for, and it parses only what no
     * worker took in time. Otherwise it parses whatever batch waits rather than wait itself. */
    bool heavy_in_order;
};

/* Which messages go to the output despite an error (acp-validate --pass). */
enum pass_rule {
    PASS_VALID,       /* none: a message with an error is rejected */
    PASS_WELL_FORMED, /* those whose errors all came from `message` (the stream checks) */
    PASS_ALL,         /* every message read: a JSON object, or a parsed string-form record */
};

struct filter_config {
    const struct common_opts *opts;
    enum protocol_choice protocol;
    struct capture_choice captures; /* zeroed: every capture form's records are read as such */
    enum reader_mode mode;
    enum pass_rule pass;
    /* The tool copies messages' contents as they came: where each stands is noted as it is read
     * (message_note_content). */
    bool content_text;
    struct diag_observer *observer; /* told of every finding of the run; may be NULL */
    /* When set, which findings are written (diag_sink.shows); every one is counted. */
    bool (*shows)(void *ctx, const struct diag_finding *finding);
    void *shows_ctx;
    /* A sink of the tool's own, whose warnings and errors --stats counts with the run's (the
     * live agent's findings in acp-replay --as); may be NULL. */
    const struct diag_sink *counted_too;
    /* --partition=K/N: the run's share of the input is the messages whose key falls in partition
     * K of N (proto/partition.h); the others are left out, neither checked, written nor handed
     * to the tool. A message of no key is partition 1's; a record that is no message, every
     * partition's. n is 0 for a run of the whole input. queen: the name IACP's queen goes by. */
    struct {
        unsigned long k, n;
        const char *queen;
    } partition;
};

/* The first call of every tool's main: names the program in messages, and makes jansson's
 * allocations fail the way ours do (loudly, exit 2), never as a silent NULL. */
void filter_tool_init(const char *progname);

/* Runs the whole filter over the operands (none: stdin) and returns the exit status. */
int filter_run(const struct filter_config *cfg, const struct filter_ops *ops, char **files,
               int nfiles);

/* The same over one record held in memory instead of files (acp-send's message composed from its
 * arguments), named display in diagnostics. */
int filter_run_text(const struct filter_config *cfg, const struct filter_ops *ops,
                    const char *display, const char *text, size_t len);

/* For tools writing their own output: appends bytes to the output stream. */
void filter_write(struct filter *f, const char *data, size_t len);
/* Writes out what the outputs hold, as before a wait: for tools that wait for other things than
 * input (acp-replay waits for each message's time). */
void filter_flush(struct filter *f);
/* Reads no further record: the tool has what it wants (acp-replay --limit), or cannot go on.
 * What is left of the input is counted unread, where it can be (regular files). */
void filter_stop(struct filter *f);
/* Counts records the tool took (valid) and then did not use, since the run stopped before
 * (acp-replay's --limit and --duration): --stats gives them as unread, not valid. */
void filter_unused(struct filter *f, unsigned long records);
/* Whether SIGINT asked the run to stop. */
bool filter_interrupted(void);
struct diag_sink *filter_sink(struct filter *f);
/* The descriptor the output goes to (standard output, or --output's file). */
int filter_output_fd(struct filter *f);

#endif
