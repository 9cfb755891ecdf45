/* ppoll and pipe2 are Linux (and BSD) interfaces. */
#define _GNU_SOURCE
#include "io/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "io/spawn.h"

enum { READ_CHUNK = 64 * 1024 };

/* While a child is awaited, how often it is looked for: soon at first (a child that was told to
 * end is usually gone within a millisecond), then less often. */
static const double REAP_FIRST_POLL = 0.0002, REAP_LAST_POLL = 0.01;

/* How often a running child is looked for while its pipes are awaited: one that exits while
 * something it started still holds its stdout closes nothing, and is only seen by its exit. */
static const double EXIT_CHECK_INTERVAL = 0.1;

/* Most reads of what an exited child left in its pipe (64 KiB each): what it wrote before it
 * exited, not what whatever it left running goes on writing. */
enum { LEFT_IN_PIPE_READS = 16 };

struct transport {
    struct transport_config cfg;
    int rfd, wfd; /* the same socket, or the child's stdout and stdin; -1 once closed */
    bool socket;  /* send with MSG_NOSIGNAL */
    pid_t pid;    /* the child, 0 for a socket or once reaped */
    int wstatus;  /* the child's, once reaped */
    bool reaped;
    double next_exit_check; /* monotonic: when a running child is next looked for */
    int error;              /* errno of the last failure */
    bool eof;               /* the peer closed its side */
    bool skipping;          /* inside an over-long line: drop bytes up to its newline */
    struct strbuf in;
    size_t in_start;   /* bytes of in already handed out */
    size_t in_scanned; /* bytes of in (from in_start) known to hold no newline */
    struct strbuf out;
    size_t out_start; /* bytes of out already written */
};

static struct transport *transport_new(const struct transport_config *cfg)
{
    struct transport *t = xcalloc(1, sizeof *t);
    t->cfg = *cfg;
    t->rfd = t->wfd = -1;
    return t;
}

static void transport_free(struct transport *t)
{
    if (t->rfd >= 0)
        close(t->rfd);
    if (t->wfd >= 0 && t->wfd != t->rfd)
        close(t->wfd);
    sb_free(&t->in);
    sb_free(&t->out);
    free(t);
}

bool transport_is_child(const struct transport *t)
{
    return !t->socket;
}

int transport_error(const struct transport *t)
{
    return t->error;
}

/* --- addresses and connecting --- */

struct address {
    bool unix_path;
    char *host; /* or the path */
    char *port;
};

static void address_free(struct address *a)
{
    free(a->host);
    free(a->port);
}

static bool address_parse(const char *spec, struct address *a, struct strbuf *err)
{
    memset(a, 0, sizeof *a);
    if (strncmp(spec, "unix:", 5) == 0) {
        const char *path = spec + 5;
        if (!*path || strlen(path) >= sizeof((struct sockaddr_un *)0)->sun_path) {
            sb_adds(err, *path ? "the socket path is too long" : "no socket path after unix:");
            return false;
        }
        a->unix_path = true;
        a->host = xstrdup(path);
        return true;
    }
    if (strncmp(spec, "tcp:", 4) != 0) {
        sb_adds(err, "an address is tcp:HOST:PORT, tcp:[IPv6]:PORT or unix:PATH");
        return false;
    }
    const char *host = spec + 4, *colon;
    size_t host_len;
    if (*host == '[') {
        const char *close = strchr(host, ']');
        if (!close || close[1] != ':') {
            sb_adds(err, "an IPv6 address is written tcp:[ADDRESS]:PORT");
            return false;
        }
        host++;
        host_len = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(host, ':');
        if (!colon) {
            sb_adds(err, "no port: the address is tcp:HOST:PORT");
            return false;
        }
        host_len = (size_t)(colon - host);
        if (memchr(host, ':', host_len)) {
            sb_adds(err, "an IPv6 address needs brackets: tcp:[ADDRESS]:PORT");
            return false;
        }
    }
    if (!host_len || !colon[1]) {
        sb_adds(err, host_len ? "no port: the address is tcp:HOST:PORT" : "no host in the address");
        return false;
    }
    a->host = xstrndup(host, host_len);
    a->port = xstrdup(colon + 1);
    return true;
}

bool transport_address_valid(const char *address, struct strbuf *err)
{
    struct address a;
    bool ok = address_parse(address, &a, err);
    address_free(&a);
    return ok;
}

/* Finishes a non-blocking connect within the deadline; 0 or an errno. */
static int connect_wait(int fd, const struct sockaddr *sa, socklen_t len, double deadline)
{
    if (connect(fd, sa, len) == 0)
        return 0;
    if (errno != EINPROGRESS && errno != EINTR)
        return errno;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        struct timespec ts;
        int n = ppoll(&p, 1, clock_timeout_until(deadline, &ts), NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return ETIMEDOUT;
        int soerr = 0;
        socklen_t solen = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &solen) != 0)
            return errno;
        return soerr;
    }
}

static int connect_unix(const char *path, double deadline, int *out)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    memcpy(sun.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int err = connect_wait(fd, (struct sockaddr *)&sun, sizeof sun, deadline);
    if (err) {
        close(fd);
        return err;
    }
    *out = fd;
    return 0;
}

static int connect_tcp(const struct address *a, double deadline, int *out, struct strbuf *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *list;
    int gai = getaddrinfo(a->host, a->port, &hints, &list);
    if (gai != 0) {
        sb_addf(err, "%s", gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
        return -1;
    }
    int last = ECONNREFUSED;
    for (struct addrinfo *ai = list; ai; ai = ai->ai_next) {
        int fd =
            socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        last = connect_wait(fd, ai->ai_addr, ai->ai_addrlen, deadline);
        if (last == 0) {
            /* Timed replay is about latency: never hold a line back to fill a segment. */
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            *out = fd;
            break;
        }
        close(fd);
    }
    freeaddrinfo(list);
    if (last)
        sb_adds(err, last == ETIMEDOUT ? "timed out" : strerror(last));
    return last ? -1 : 0;
}

struct transport *transport_connect(const char *address, const struct transport_config *cfg,
                                    struct strbuf *err)
{
    struct address a;
    if (!address_parse(address, &a, err))
        return NULL;
    double deadline = clock_monotonic() + cfg->io_timeout;
    int fd = -1, rc;
    if (a.unix_path) {
        rc = connect_unix(a.host, deadline, &fd);
        if (rc)
            sb_adds(err, rc == ETIMEDOUT ? "timed out" : strerror(rc));
    } else {
        rc = connect_tcp(&a, deadline, &fd, err);
    }
    address_free(&a);
    if (rc)
        return NULL;
    struct transport *t = transport_new(cfg);
    t->rfd = t->wfd = fd;
    t->socket = true;
    return t;
}

/* --- a child over pipes --- */

struct transport *transport_exec(char *const *argv, const struct transport_config *cfg,
                                 struct strbuf *err)
{
    signal(SIGPIPE, SIG_IGN);
    struct spawned child;
    int why;
    if (spawn_piped(argv, &(struct spawn_config){.dies_with_parent = true}, &child, &why) !=
        SPAWN_STARTED) {
        sb_adds(err, strerror(why));
        return NULL;
    }
    struct transport *t = transport_new(cfg);
    t->pid = child.pid;
    t->wfd = child.in;
    t->rfd = child.out;
    fcntl(t->wfd, F_SETFL, fcntl(t->wfd, F_GETFL) | O_NONBLOCK);
    fcntl(t->rfd, F_SETFL, fcntl(t->rfd, F_GETFL) | O_NONBLOCK);
    return t;
}

/* --- reading --- */

/* How much unread input a transport holds before it stops reading while it waits to write. */
static size_t input_bound(const struct transport *t)
{
    return t->cfg.max_line + 2 * READ_CHUNK;
}

static void compact_input(struct transport *t)
{
    if (!t->in_start)
        return;
    memmove(t->in.buf, t->in.buf + t->in_start, t->in.len - t->in_start);
    t->in.len -= t->in_start;
    t->in_start = 0;
}

/* Drops the bytes of an over-long line up to and including its newline. */
static void skip_long_line(struct transport *t)
{
    char *start = t->in.buf + t->in_start;
    char *nl = memchr(start, '\n', t->in.len - t->in_start);
    if (!nl) {
        t->in.len = t->in_start = t->in_scanned = 0;
        return;
    }
    t->in_start += (size_t)(nl - start) + 1;
    t->skipping = false;
}

/* Reads what is there; false on an error (t->error set). The end of file sets t->eof. */
static bool read_some(struct transport *t)
{
    if (t->rfd < 0 || t->eof)
        return true;
    compact_input(t);
    sb_grow(&t->in, READ_CHUNK);
    ssize_t n = read(t->rfd, t->in.buf + t->in.len, READ_CHUNK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    if (n < 0 && errno != ECONNRESET) {
        t->error = errno;
        return false;
    }
    if (n <= 0) {
        t->error = n < 0 ? errno : 0;
        t->eof = true;
        return true;
    }
    t->in.len += (size_t)n;
    t->in.buf[t->in.len] = '\0';
    if (t->skipping)
        skip_long_line(t);
    return true;
}

static bool line_ready(struct transport *t)
{
    size_t avail = t->in.len - t->in_start;
    if (t->skipping || !avail)
        return false;
    const char *from = t->in.buf + t->in_start + t->in_scanned;
    if (memchr(from, '\n', avail - t->in_scanned))
        return true;
    t->in_scanned = avail;
    return avail > t->cfg.max_line || t->eof;
}

bool transport_line(struct transport *t, struct transport_line *line)
{
    if (!line_ready(t))
        return false;
    char *start = t->in.buf + t->in_start;
    size_t avail = t->in.len - t->in_start;
    char *nl = memchr(start, '\n', avail);
    size_t len = nl ? (size_t)(nl - start) : avail;
    *line = (struct transport_line){.text = start, .len = len, .unterminated = !nl && t->eof};
    if (len > t->cfg.max_line) {
        line->len = t->cfg.max_line;
        line->too_long = true;
    }
    t->in_scanned = 0;
    if (nl) {
        t->in_start += len + 1;
    } else if (line->too_long && !t->eof) {
        t->in_start = t->in.len; /* handed out below; the rest of the line is skipped later */
        t->skipping = true;
    } else {
        t->in_start = t->in.len;
    }
    return true;
}

/* --- writing --- */

static bool output_pending(const struct transport *t)
{
    return t->out_start < t->out.len;
}

/* Writes what the peer takes now; false on an error (t->error set, t->eof for a closed peer). */
static bool write_some(struct transport *t, bool *progress)
{
    *progress = false;
    while (output_pending(t)) {
        const char *data = t->out.buf + t->out_start;
        size_t len = t->out.len - t->out_start;
        ssize_t n = t->socket ? send(t->wfd, data, len, MSG_NOSIGNAL) : write(t->wfd, data, len);
        if (n > 0) {
            t->out_start += (size_t)n;
            *progress = true;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return true;
        t->error = errno;
        return false;
    }
    sb_reset(&t->out);
    t->out_start = 0;
    return true;
}

static enum transport_status write_failure(struct transport *t)
{
    return t->error == EPIPE || t->error == ECONNRESET ? TRANSPORT_CLOSED : TRANSPORT_ERROR;
}

static bool reap(struct transport *t, bool block);

/* Whether any of the peer's output is there to be read now. */
static bool input_waiting(const struct transport *t)
{
    struct pollfd p = {.fd = t->rfd, .events = POLLIN};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

/* A child that exited has said all it will, even while something it started holds its stdout
 * open: what it left in the pipe is read, and its output ends there. False on a read error. */
static bool take_what_exited_child_left(struct transport *t)
{
    for (int i = 0; i < LEFT_IN_PIPE_READS && !t->eof && input_waiting(t); i++)
        if (!read_some(t))
            return false;
    t->eof = true;
    return true;
}

/* Whether a running child's exit ends its output: while its input is open. Once it is closed,
 * whatever holds the child's pipes has the caller's grace period to finish what it was given. */
static bool watching_exit(const struct transport *t)
{
    return t->cfg.exit_ends_output && !t->socket && !t->reaped && !t->eof && t->rfd >= 0 &&
           t->wfd >= 0;
}

/* Looks whether a running child exited, at most every EXIT_CHECK_INTERVAL (reaping it when it
 * did); false on a read error. The clock is read only when a child is watched. */
static bool notice_exit(struct transport *t)
{
    if (!watching_exit(t))
        return true;
    double now = clock_monotonic();
    if (now < t->next_exit_check)
        return true;
    t->next_exit_check = now + EXIT_CHECK_INTERVAL;
    return !reap(t, false) || take_what_exited_child_left(t);
}

/* The deadline of one poll: a running child's exit is looked for between polls. */
static double poll_deadline(const struct transport *t, double deadline)
{
    return watching_exit(t) && t->next_exit_check < deadline ? t->next_exit_check : deadline;
}

/* One poll for what the transport needs: room to write (when output is pending), and input
 * (unless the buffer is full while a write waits). */
static enum transport_status poll_once(struct transport *t, double deadline, bool *timed_out)
{
    struct pollfd p[2];
    nfds_t n = 0;
    bool want_input =
        t->rfd >= 0 && !t->eof && (!output_pending(t) || t->in.len - t->in_start < input_bound(t));
    if (want_input)
        p[n++] = (struct pollfd){.fd = t->rfd, .events = POLLIN};
    if (output_pending(t) && t->wfd >= 0) {
        if (n && t->wfd == t->rfd)
            p[0].events |= POLLOUT;
        else
            p[n++] = (struct pollfd){.fd = t->wfd, .events = POLLOUT};
    }
    struct timespec ts;
    int got = ppoll(n ? p : NULL, n, clock_timeout_until(poll_deadline(t, deadline), &ts), NULL);
    *timed_out = got == 0;
    if (got < 0) {
        if (errno == EINTR)
            return TRANSPORT_INTERRUPTED;
        t->error = errno;
        return TRANSPORT_ERROR;
    }
    for (nfds_t i = 0; i < n; i++) {
        if ((p[i].revents & POLLOUT) || (p[i].fd == t->wfd && (p[i].revents & POLLERR))) {
            bool progress;
            if (!write_some(t, &progress))
                return write_failure(t);
        }
        if (p[i].fd == t->rfd && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) && !read_some(t))
            return TRANSPORT_ERROR;
    }
    return notice_exit(t) ? TRANSPORT_OK : TRANSPORT_ERROR;
}

enum transport_status transport_flush(struct transport *t)
{
    if (t->wfd < 0)
        return output_pending(t) ? TRANSPORT_CLOSED : TRANSPORT_OK;
    double stall_deadline = clock_monotonic() + t->cfg.io_timeout;
    for (;;) {
        bool progress;
        if (!write_some(t, &progress))
            return write_failure(t);
        if (!output_pending(t))
            return TRANSPORT_OK;
        if (progress)
            stall_deadline = clock_monotonic() + t->cfg.io_timeout;
        bool timed_out;
        size_t before = t->out_start;
        enum transport_status st = poll_once(t, stall_deadline, &timed_out);
        if (st != TRANSPORT_OK)
            return st;
        if (t->out_start != before)
            stall_deadline = clock_monotonic() + t->cfg.io_timeout;
        else if (timed_out && clock_monotonic() >= stall_deadline)
            return TRANSPORT_STALLED;
    }
}

enum transport_status transport_write(struct transport *t, const char *data, size_t len)
{
    sb_add(&t->out, data, len);
    return transport_flush(t);
}

enum transport_status transport_wait(struct transport *t, double deadline)
{
    double stall_deadline = clock_monotonic() + t->cfg.io_timeout;
    for (;;) {
        if (line_ready(t))
            return TRANSPORT_OK;
        if (t->eof || t->rfd < 0)
            return TRANSPORT_CLOSED;
        double now = clock_monotonic();
        bool writing = output_pending(t) && t->wfd >= 0;
        if (writing && now >= stall_deadline)
            return TRANSPORT_STALLED;
        if (now >= deadline)
            return TRANSPORT_TIMEOUT;
        size_t before = t->out_start;
        bool timed_out;
        enum transport_status st = poll_once(
            t, writing && stall_deadline < deadline ? stall_deadline : deadline, &timed_out);
        if (st != TRANSPORT_OK)
            return st;
        if (t->out_start != before)
            stall_deadline = clock_monotonic() + t->cfg.io_timeout;
    }
}

void transport_close_write(struct transport *t)
{
    if (t->wfd < 0)
        return;
    if (t->socket)
        shutdown(t->wfd, SHUT_WR);
    else
        close(t->wfd);
    t->wfd = -1;
}

/* --- the end of a child --- */

static bool reap(struct transport *t, bool block)
{
    if (t->reaped || !t->pid)
        return true;
    int status;
    pid_t got;
    do
        got = waitpid(t->pid, &status, block ? 0 : WNOHANG);
    while (got < 0 && errno == EINTR);
    if (got == t->pid || (got < 0 && errno == ECHILD)) {
        t->reaped = true;
        t->wstatus = got == t->pid ? status : 0;
        return true;
    }
    return false;
}

/* Reads and drops the child's output, so that it cannot block on a full pipe while it exits. */
static void drain(struct transport *t)
{
    for (int i = 0; i < 16 && t->rfd >= 0 && !t->eof; i++) {
        size_t before = t->in.len;
        if (!read_some(t) || t->in.len == before)
            break;
        t->in.len = t->in_start = t->in_scanned = 0;
    }
}

bool transport_child_exited(struct transport *t, double deadline, int *wstatus)
{
    if (t->socket) {
        *wstatus = 0;
        return true;
    }
    double poll = REAP_FIRST_POLL;
    while (!reap(t, false)) {
        if (clock_monotonic() >= deadline)
            return false;
        struct pollfd p = {.fd = t->eof ? -1 : t->rfd, .events = POLLIN};
        double step = clock_monotonic() + poll;
        poll = poll * 2 < REAP_LAST_POLL ? poll * 2 : REAP_LAST_POLL;
        struct timespec ts;
        ppoll(&p, 1, clock_timeout_until(step < deadline ? step : deadline, &ts), NULL);
        if (p.revents)
            drain(t);
    }
    *wstatus = t->wstatus;
    return true;
}

bool transport_end(struct transport *t, double deadline, int *wstatus)
{
    bool by_itself = true;
    int status = 0;
    if (!t->socket) {
        transport_close_write(t);
        by_itself = transport_child_exited(t, deadline, &status);
        /* Whatever it left running in its group goes too; the group may be gone already. */
        kill(-t->pid, SIGKILL);
        if (!by_itself) {
            reap(t, true);
            status = t->wstatus;
        }
    }
    if (wstatus)
        *wstatus = status;
    transport_free(t);
    return by_itself;
}

void transport_describe_exit(struct strbuf *out, int wstatus)
{
    if (WIFEXITED(wstatus))
        sb_addf(out, "exited with status %d", WEXITSTATUS(wstatus));
    else if (WIFSIGNALED(wstatus))
        sb_addf(out, "was killed by signal %d (%s)", WTERMSIG(wstatus),
                strsignal(WTERMSIG(wstatus)));
    else
        sb_adds(out, "ended");
}
