/* Talking JSON Lines to a peer: a stream socket (tcp:HOST:PORT, tcp:[IPv6]:PORT, unix:PATH) or
 * a child process over a pair of pipes (its stdin and stdout; its stderr stays ours). Shared by
 * acp-replay and acp-send.
 *
 * Every descriptor is non-blocking and every wait has a bound: connecting and each stretch of a
 * write that makes no progress take at most io_timeout, reading waits until a deadline. Lines
 * read from the peer are kept in a buffer until asked for; a line longer than max_line is cut
 * there and the rest of it skipped, so no peer can make the buffer grow without bound. While a
 * write waits for the peer to read, what the peer writes is read into that buffer (up to a
 * bound), so that two programs writing to each other never deadlock.
 *
 * Signals: sockets are written with MSG_NOSIGNAL. A pipe cannot be, so transport_exec ignores
 * SIGPIPE in the calling process; a write to a standard output whose reader went away then
 * fails with EPIPE, which the filter contract turns back into the quiet death by SIGPIPE. The
 * child gets SIGPIPE back at its default and its own process group, so that it can be ended
 * whole (it and what it started); should the calling process die without ending it, the child
 * is killed (Linux's parent-death signal). */
#ifndef ACP_TRANSPORT_H
#define ACP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct transport_config {
    double io_timeout; /* seconds for a connect, and for a write that makes no progress */
    size_t max_line;   /* longest line kept from the peer */
    /* A child's exit ends its output, even while something it started holds its stdout open:
     * for a party to a conversation, which what it leaves running is not. Otherwise only the
     * pipe's end does, so that a command may hand its input to a process it leaves running. */
    bool exit_ends_output;
};

enum transport_status {
    TRANSPORT_OK,          /* done; after transport_wait: a line is ready */
    TRANSPORT_TIMEOUT,     /* the deadline passed */
    TRANSPORT_STALLED,     /* the peer has not read for io_timeout: a write cannot go on */
    TRANSPORT_INTERRUPTED, /* a signal arrived; call again to go on */
    TRANSPORT_CLOSED,      /* the peer closed its end, or the child its stdout, or it went away */
    TRANSPORT_ERROR,       /* any other error: transport_error says which */
};

struct transport;

/* Checks the form of an address ("tcp:HOST:PORT", "tcp:[V6]:PORT", "unix:PATH") without
 * connecting; false with the reason in *err. */
bool transport_address_valid(const char *address, struct strbuf *err);

/* Connects to address within cfg->io_timeout; NULL with the reason in *err. */
struct transport *transport_connect(const char *address, const struct transport_config *cfg,
                                    struct strbuf *err);

/* Starts argv[0] (looked up in PATH, never through a shell) with its stdin and stdout on pipes;
 * NULL with the reason in *err when it cannot be started. */
struct transport *transport_exec(char *const *argv, const struct transport_config *cfg,
                                 struct strbuf *err);

bool transport_is_child(const struct transport *t);
/* The errno behind the last TRANSPORT_ERROR or TRANSPORT_CLOSED (0 for a plain end of file). */
int transport_error(const struct transport *t);

/* Writes all of data, waiting while the peer reads (at most io_timeout without progress). After
 * TRANSPORT_INTERRUPTED, transport_flush writes the rest. */
enum transport_status transport_write(struct transport *t, const char *data, size_t len);
enum transport_status transport_flush(struct transport *t);

/* Waits until a whole line from the peer is ready (TRANSPORT_OK), the monotonic clock passes
 * deadline (TRANSPORT_TIMEOUT; INFINITY waits for ever), or the peer closes: a child closes its
 * stdout or, with exit_ends_output, exits while its stdin is open (it is reaped within 0.1 s of
 * its exit, and what it left in the pipe read). Unwritten output is written meanwhile. */
enum transport_status transport_wait(struct transport *t, double deadline);

struct transport_line {
    const char *text; /* without its newline; valid until the next call on the transport */
    size_t len;
    bool too_long;     /* the line was longer than max_line: text holds its first max_line bytes */
    bool unterminated; /* the peer closed its end in the middle of this line */
};

/* Takes the next line read from the peer (a last line without a newline included); false when
 * no whole line is ready. */
bool transport_line(struct transport *t, struct transport_line *line);

/* Says that nothing more will be written: the socket's write side is shut down, the child's
 * stdin closed. */
void transport_close_write(struct transport *t);

/* For a child: waits until deadline for it to exit and reaps it. True with its wait status in
 * *wstatus when it did; false when it still runs. For a socket: true, status 0. */
bool transport_child_exited(struct transport *t, double deadline, int *wstatus);

/* Ends the connection and frees t. A child's stdin is closed and it is given until deadline to
 * exit (its output read and dropped meanwhile), then its process group is killed (SIGKILL); it
 * is always reaped, so no zombie is left. Returns true when the child exited by itself (always
 * for a socket); *wstatus (may be NULL) gets its wait status. */
bool transport_end(struct transport *t, double deadline, int *wstatus);

/* "exited with status 3", "was killed by signal 11 (Segmentation fault)". */
void transport_describe_exit(struct strbuf *out, int wstatus);

#endif
