/* The session with a peer that acp-replay and acp-send both hold: opening it (--connect or
 * --exec), writing messages to it, taking and awaiting what it says, reporting how it failed,
 * and closing it with a grace period to drain its last replies. What a line from the peer means
 * is the tool's business: the session hands each one to the tool's handler. */
#ifndef ACP_SESSION_H
#define ACP_SESSION_H

#include <stdbool.h>

#include "diag/diag.h"
#include "io/transport.h"
#include "tool/filter.h"
#include "tool/options.h"

/* Takes one line from the peer, taken at monotonic time now. */
typedef void session_line_fn(void *ctx, struct filter *f, const struct transport_line *line,
                             double now);

struct session_config {
    const char *address;  /* --connect=ADDRESS, or NULL */
    char *const *command; /* --exec=COMMAND in words, or NULL; kept, not copied */
    double io_timeout;    /* --io-timeout: the longest wait to connect, or for the peer to read */
    double grace;         /* --grace: the time the peer has to finish once its input ends */
    /* Each batch of lines taken is written out at once (what the handler wrote with
     * filter_write), rather than before the tool next waits for its own input. */
    bool flush_each_batch;
    /* The peer is a party to a conversation: a command that exits is gone, whatever it leaves
     * running (transport_config's exit_ends_output). */
    bool converses;
    session_line_fn *on_line;
    void *ctx; /* the handler's */
};

struct session {
    struct session_config cfg;
    size_t max_line;        /* --max-line-bytes: the longest line kept from the peer */
    struct transport *peer; /* NULL before it is opened, and once it is closed */
    struct diag_sink sink;  /* findings about the peer and what it says */
    char *name;          /* the peer, for diagnostics: the address, or the command's first word */
    unsigned long sent;  /* messages written to the peer */
    unsigned long lines; /* lines taken from the peer */
    bool eof;            /* the peer's output has ended: it says nothing more, may still read */
    bool trouble;        /* the peer could not be reached, or failed: exit status 2 */
};

/* Sets up a session (nothing opened yet) and its sink, on stderr in the form the options ask
 * for; the tool may set the sink's other fields (strict) after this. */
void session_init(struct session *s, const struct session_config *cfg,
                  const struct common_opts *opts);

/* Ends the peer if it is still open, without reading it (see session_close), and frees s. */
void session_free(struct session *s);

/* Where a finding about the peer stands: its name, and its line number line (0: the peer
 * itself, not one of its lines). */
struct diag_where session_where(const struct session *s, unsigned long line);

/* Reports a line the peer wrote that is no message (why: "not JSON", "cut short: ..."), quoted,
 * at its line: peer-garbage, a warning. acp-send and acp-replay say it alike. */
void session_report_garbage(struct session *s, const struct transport_line *line, const char *why);

/* Connects to the address, else starts the command; false after reporting peer-connect and
 * marking the session in trouble. */
bool session_open(struct session *s);

/* Whether the peer is open and may still say something. */
bool session_listening(const struct session *s);

/* Writes text (whole lines) to the open peer, waiting while it reads; a signal other than the
 * user's interrupt does not stop the write. TRANSPORT_OK (the message counted as sent),
 * TRANSPORT_INTERRUPTED (the user interrupted), or how the transport failed. */
enum transport_status session_write(struct session *s, const char *text, size_t len);

/* Takes the next line the peer has sent, counted; false when no whole line is ready. */
bool session_line(struct session *s, struct transport_line *line);

/* Hands every line the peer has sent so far to the handler. */
void session_take_lines(struct session *s, struct filter *f);

/* Waits until a line from the peer is ready (TRANSPORT_OK), the monotonic clock passes deadline
 * (TRANSPORT_TIMEOUT) or the transport says otherwise; TRANSPORT_CLOSED sets eof. */
enum transport_status session_wait(struct session *s, double deadline);

/* How the peer failed with st, appended to how for a message: how it went away for
 * TRANSPORT_CLOSED ("closed the connection", "exited with status 3"), else the system's error. */
void session_describe_failure(const struct session *s, enum transport_status st,
                              struct strbuf *how);

/* Reports that the transport failed with st (peer-timeout when the peer stopped reading, else
 * peer-closed with how it went away) at *at, or at the peer when at is NULL, and marks the
 * session in trouble. awaited, when not NULL, says what the conversation was still waiting for
 * when the peer went away. */
void session_failed(struct session *s, enum transport_status st, const struct diag_where *at,
                    const char *awaited);

/* Closes the peer's input and, with drain, hands what it still says to the handler (writing to
 * f; NULL without drain) until it closes or the grace period ends; then the connection ends (a
 * command still running is given the grace period, then killed, and always reaped). After the
 * user's interrupt, the peer is given no time and not read. Does nothing once it is closed. */
void session_close(struct session *s, struct filter *f, bool drain);

/* session_close, with the grace period ending by the monotonic time latest at the latest: at
 * once when that has passed (INFINITY: the whole grace period). */
void session_close_by(struct session *s, struct filter *f, bool drain, double latest);

#endif
