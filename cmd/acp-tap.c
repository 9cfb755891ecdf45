/* acp-tap: stands in for a stdio agent (an MCP server in its client's configuration, an IACP
 * forager): runs COMMAND, relays its stdin and stdout byte for byte, and appends every line of
 * both directions to a capture file that the other tools read. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/siphash.h"
#include "io/capture.h"
#include "io/spawn.h"
#include "tool/filter.h"

/* The statuses of acp-tap's own failures, as env(1) and timeout(1) give them. */
enum { EXIT_TAP_ERROR = 125, EXIT_CANNOT_RUN = 126, EXIT_NOT_FOUND = 127 };

enum { OPT_OUT = OPT_TOOL, OPT_SESSION, OPT_BUFFER, OPT_LINE_BYTES };

enum { DEFAULT_BUFFER = 8 * 1024 * 1024, DEFAULT_LINE_BYTES = 1024 * 1024, CHUNK = 64 * 1024 };

static const struct opt tap_options[] = {
    {"out", OPT_OUT, required_argument, "FILE",
     "append the capture records to FILE (created when missing; required)"},
    {"session", OPT_SESSION, required_argument, "ID",
     "the session id the records carry (default: drawn at random)"},
    {"buffer", OPT_BUFFER, required_argument, "SIZE",
     "records waiting for a slow FILE before some are dropped (default 8M; K, M, G)"},
    {"max-line-bytes", OPT_LINE_BYTES, required_argument, "N",
     "record a line longer than N bytes by its length alone (default 1M; K, M, G)"},
    {NULL, 0, 0, NULL, NULL},
};

struct tap_config {
    const char *out;
    const char *session;
    size_t buffer;
    size_t max_line;
};

static bool size_option(const char *option, const char *arg, size_t *out)
{
    unsigned long long v;
    if (!parse_size(arg, &v) || v == 0 || v > SIZE_MAX / 2)
        return options_bad_value(option, "a size above 0 (K, M, G suffixes)");
    *out = (size_t)v;
    return true;
}

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct tap_config *t = ctx;
    switch (key) {
    case OPT_OUT:
        t->out = arg;
        return *arg || options_bad_value("out", "a file name");
    case OPT_SESSION:
        t->session = arg;
        return *arg || options_bad_value("session", "an id of one character or more");
    case OPT_BUFFER:
        return size_option("buffer", arg, &t->buffer);
    case OPT_LINE_BYTES:
        return size_option("max-line-bytes", arg, &t->max_line);
    }
    return false;
}

/* ---- The child, and the signals it is sent ---- */

/* The child's process group, which the stop signals are passed on to: the only state the
 * handler touches, set once the child runs. */
static volatile sig_atomic_t child_group;

static void pass_on(int sig)
{
    if (child_group > 0)
        kill(-(pid_t)child_group, sig);
}

static const int passed_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void pass_signals_on(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pass_on;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof passed_signals / sizeof *passed_signals; i++)
        sigaction(passed_signals[i], &sa, NULL);
}

static void block_passed_signals(sigset_t *was)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof passed_signals / sizeof *passed_signals; i++)
        sigaddset(&set, passed_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, was);
}

/* Starts argv; 0, or the status to exit with after saying why it could not run. The passed
 * signals are blocked until they can be passed on, and the child starts with them unblocked. */
static int start_child(char **argv, struct spawned *ch, const sigset_t *mask)
{
    int err;
    switch (spawn_piped(argv, &(struct spawn_config){.mask = mask}, ch, &err)) {
    case SPAWN_STARTED:
        child_group = ch->pid;
        return 0;
    case SPAWN_NO_PIPE:
        fprintf(stderr, "%s: cannot make a pipe: %s\n", util_progname(), strerror(err));
        return EXIT_TAP_ERROR;
    case SPAWN_NO_FORK:
        fprintf(stderr, "%s: cannot fork: %s\n", util_progname(), strerror(err));
        return EXIT_TAP_ERROR;
    case SPAWN_NO_EXEC:
        break;
    }
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, argv[0], strlen(argv[0]), 200);
    fprintf(stderr, "%s: cannot run '%s': %s\n", util_progname(), shown.buf, strerror(err));
    sb_free(&shown);
    return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

/* The child's status as a shell gives it: its exit status, or 128 + the signal that ended it. */
static int status_of(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return EXIT_TAP_ERROR;
}

/* ---- Relaying ---- */

struct relay {
    int from, to;
    enum capture_dir dir;
    struct capture *capture;
    size_t max_line;
    atomic_bool *child_ended; /* the child's end ends the relay */
    struct jscan *js;
    struct strbuf line;           /* the line so far, when it began in an earlier chunk */
    unsigned long long long_line; /* its length so far, once it is longer than max_line */
};

/* Records the line that ends at chunk[0..len) (its head in r->line, if any). */
static void end_line(struct relay *r, const char *chunk, size_t len, bool terminated)
{
    if (r->long_line) {
        capture_long_line(r->capture, r->dir, r->long_line + len, terminated);
    } else if (r->line.len + len > r->max_line) {
        capture_long_line(r->capture, r->dir, r->line.len + len, terminated);
    } else if (r->line.len) {
        sb_add(&r->line, chunk, len);
        capture_line(r->capture, r->dir, r->line.buf, r->line.len, terminated, r->js);
    } else {
        capture_line(r->capture, r->dir, chunk, len, terminated, r->js);
    }
    sb_reset(&r->line);
    r->long_line = 0;
}

/* Keeps the head of a line that goes on in the next chunk, up to max_line bytes. */
static void keep_head(struct relay *r, const char *chunk, size_t len)
{
    if (r->long_line || r->line.len + len > r->max_line) {
        r->long_line += r->line.len + len;
        sb_reset(&r->line);
        return;
    }
    sb_add(&r->line, chunk, len);
}

static void capture_chunk(struct relay *r, const char *chunk, size_t len)
{
    const char *end = chunk + len;
    const char *nl;
    while (chunk < end && (nl = memchr(chunk, '\n', (size_t)(end - chunk)))) {
        end_line(r, chunk, (size_t)(nl - chunk), true);
        chunk = nl + 1;
    }
    if (chunk < end)
        keep_head(r, chunk, (size_t)(end - chunk));
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Waits until r->from has something to read; false once the child ended: the agent's stdin has
 * nobody to go to, and its stdout is read while it has something (what the child wrote is in the
 * pipe by then; a process it left holding its stdout does not keep the relay going). */
static bool readable(struct relay *r)
{
    for (;;) {
        bool ended = atomic_load(r->child_ended);
        if (ended && r->dir == CAPTURE_IN)
            return false;
        struct pollfd p = {.fd = r->from, .events = POLLIN};
        int n = poll(&p, 1, ended ? 0 : 100);
        if (n > 0)
            return true;
        if (n == 0 && ended)
            return false;
    }
}

/* Relays until the end of r->from, each chunk recorded before it is passed on, so that the
 * capture never has an answer before its question. A destination that went away is passed back
 * as a pipe does: the source is closed. */
static void *relay_main(void *arg)
{
    struct relay *r = arg;
    char *chunk = xmalloc(CHUNK);
    for (;;) {
        if (!readable(r))
            break;
        ssize_t n = read(r->from, chunk, CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        capture_chunk(r, chunk, (size_t)n);
        if (!write_all(r->to, chunk, (size_t)n)) {
            close(r->from); /* the writer on our side now meets a closed pipe too */
            break;
        }
    }
    if (r->line.len || r->long_line)
        end_line(r, "", 0, false);
    if (r->dir == CAPTURE_IN)
        close(r->to); /* the child's stdin: its end of input */
    free(chunk);
    return NULL;
}

/* ---- The session ---- */

static char *random_session(void)
{
    unsigned char bytes[8];
    if (!random_bytes(bytes, sizeof bytes)) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned long long mixed = (unsigned long long)now.tv_nsec ^
                                   ((unsigned long long)now.tv_sec << 20) ^
                                   ((unsigned long long)getpid() << 40);
        memcpy(bytes, &mixed, sizeof bytes);
    }
    struct strbuf id = STRBUF_INIT;
    for (size_t i = 0; i < sizeof bytes; i++)
        sb_addf(&id, "%02x", bytes[i]);
    return sb_detach(&id);
}

static void record_start(struct capture *c, char **argv, pid_t pid)
{
    struct strbuf members = STRBUF_INIT;
    sb_addf(&members, "\"pid\":%ld,\"command\":[", (long)pid);
    for (char **a = argv; *a; a++) {
        if (a != argv)
            sb_addc(&members, ',');
        escape_json_string(&members, *a, strlen(*a));
    }
    sb_addc(&members, ']');
    capture_event(c, "start", members.buf);
    sb_free(&members);
}

static void record_end(struct capture *c, int wstatus)
{
    struct strbuf members = STRBUF_INIT;
    if (WIFSIGNALED(wstatus))
        sb_addf(&members, "\"signal\":%d,", WTERMSIG(wstatus));
    sb_addf(&members, "\"status\":%d", status_of(wstatus));
    capture_event(c, "end", members.buf);
    sb_free(&members);
}

static bool start_relay(pthread_t *thread, struct relay *r)
{
    int e = pthread_create(thread, NULL, relay_main, r);
    if (e)
        fprintf(stderr, "%s: cannot start a thread: %s\n", util_progname(), strerror(e));
    return e == 0;
}

static int wait_child(pid_t pid)
{
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            return -1;
    return wstatus;
}

/* Runs the session: the child, the two relays, the records of its start and end. */
static int tap(const struct tap_config *t, char **argv, struct capture *c, const sigset_t *was)
{
    struct spawned ch;
    int status = start_child(argv, &ch, was);
    if (status)
        return status;
    pass_signals_on();
    record_start(c, argv, ch.pid);
    atomic_bool child_ended = false;
    struct relay in = {.from = 0,
                       .to = ch.in,
                       .dir = CAPTURE_IN,
                       .capture = c,
                       .max_line = t->max_line,
                       .child_ended = &child_ended,
                       .js = jscan_new()};
    struct relay out = {.from = ch.out,
                        .to = 1,
                        .dir = CAPTURE_OUT,
                        .capture = c,
                        .max_line = t->max_line,
                        .child_ended = &child_ended,
                        .js = jscan_new()};
    pthread_t in_thread, out_thread;
    bool in_started = start_relay(&in_thread, &in);
    bool out_started = in_started && start_relay(&out_thread, &out);
    pthread_sigmask(SIG_SETMASK, was, NULL); /* a signal that came meanwhile is passed on now */
    if (!out_started)
        pass_on(SIGTERM);
    int wstatus = wait_child(ch.pid);
    atomic_store(&child_ended, true);
    if (out_started)
        pthread_join(out_thread, NULL);
    if (in_started)
        pthread_join(in_thread, NULL);
    jscan_free(out.js);
    jscan_free(in.js);
    sb_free(&out.line);
    sb_free(&in.line);
    if (wstatus < 0) {
        fprintf(stderr, "%s: cannot wait for the command: %s\n", util_progname(), strerror(errno));
        return EXIT_TAP_ERROR;
    }
    record_end(c, wstatus);
    return out_started ? status_of(wstatus) : EXIT_TAP_ERROR;
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-tap");
    struct tap_config t = {.buffer = DEFAULT_BUFFER, .max_line = DEFAULT_LINE_BYTES};
    struct tool_spec spec = {
        .name = "acp-tap",
        .usage = "[OPTION]... --out=FILE [--] COMMAND [ARG]...",
        .summary = "Run COMMAND, a stdio agent, relaying its stdin and stdout as they are, and\n"
                   "append every line of both to FILE as a capture record.",
        .options = tap_options,
        .groups = GROUP_COMMAND,
        .exit_status = "Exit status: COMMAND's, or 128+N when a signal N ended it; 125 when "
                       "acp-tap itself\nfails, 126 when COMMAND cannot be run, 127 when it is "
                       "not found.\n",
        .handle = handle_option,
        .ctx = &t,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0)
        return EXIT_TAP_ERROR;
    if (!t.out) {
        options_usage_error("--out=FILE is required: where the capture goes");
        return EXIT_TAP_ERROR;
    }
    if (first >= argc) {
        options_usage_error("no command to run");
        return EXIT_TAP_ERROR;
    }
    signal(SIGPIPE, SIG_IGN); /* a reader gone is met as EPIPE, and passed back as a pipe does */
    /* Blocked in every thread but this one, and here until they can be passed on. */
    sigset_t was;
    block_passed_signals(&was);
    char *drawn = t.session ? NULL : random_session();
    struct strbuf err = STRBUF_INIT;
    struct capture *c = capture_open(t.out, t.session ? t.session : drawn, t.buffer, &err);
    if (!c) {
        struct strbuf shown = STRBUF_INIT;
        escape_text(&shown, t.out, strlen(t.out), 200);
        fprintf(stderr, "%s: %s: %s\n", util_progname(), shown.buf, err.buf);
        sb_free(&shown);
        sb_free(&err);
        free(drawn);
        return EXIT_TAP_ERROR;
    }
    int status = tap(&t, argv + first, c, &was);
    capture_close(c); /* a capture that lost records says so; the status stays the child's */
    free(drawn);
    options_free(&opts);
    return status;
}
