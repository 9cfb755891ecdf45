#include "live/session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "live/peer.h"

void session_init(struct session *s, const struct session_config *cfg,
                  const struct common_opts *opts)
{
    const char *name = cfg->address ? cfg->address : cfg->command ? cfg->command[0] : "<stdout>";
    *s = (struct session){.cfg = *cfg, .max_line = opts->max_line_bytes, .name = xstrdup(name)};
    diag_sink_init(&s->sink, stderr);
    s->sink.format = opts->diagnostics;
    s->sink.quiet = opts->quiet;
    s->sink.color = opts->diagnostics == DIAG_TEXT && options_want_color(opts);
}

void session_free(struct session *s)
{
    session_close(s, NULL, false);
    free(s->name);
    diag_sink_free(&s->sink);
}

struct diag_where session_where(const struct session *s, unsigned long line)
{
    return (struct diag_where){.file = s->name, .line = line};
}

void session_report_garbage(struct session *s, const struct transport_line *line, const char *why)
{
    struct diag_where at = session_where(s, s->lines);
    diag_emit(&s->sink, &at, "peer-garbage",
              "the peer wrote a line that is not a message (%s): '%.*s'; ignored", why,
              diag_quote_len(line->len), line->text);
}

bool session_open(struct session *s)
{
    struct transport_config tc = {.io_timeout = s->cfg.io_timeout,
                                  .max_line = s->max_line,
                                  .exit_ends_output = s->cfg.converses};
    struct diag_where at = session_where(s, 0);
    s->peer = peer_open(s->cfg.address, s->cfg.command, &tc, &s->sink, &at);
    if (!s->peer)
        s->trouble = true;
    return s->peer != NULL;
}

bool session_listening(const struct session *s)
{
    return s->peer && !s->eof;
}

enum transport_status session_write(struct session *s, const char *text, size_t len)
{
    enum transport_status st = transport_write(s->peer, text, len);
    while (st == TRANSPORT_INTERRUPTED && !filter_interrupted())
        st = transport_flush(s->peer);
    if (st == TRANSPORT_OK)
        s->sent++;
    return st;
}

bool session_line(struct session *s, struct transport_line *line)
{
    if (!s->peer || !transport_line(s->peer, line))
        return false;
    s->lines++;
    return true;
}

void session_take_lines(struct session *s, struct filter *f)
{
    struct transport_line line;
    double now = clock_monotonic(); /* the lines came by now: the handler times them so */
    while (session_line(s, &line))
        s->cfg.on_line(s->cfg.ctx, f, &line, now);
    if (s->cfg.flush_each_batch)
        filter_flush(f);
}

enum transport_status session_wait(struct session *s, double deadline)
{
    enum transport_status st = transport_wait(s->peer, deadline);
    if (st == TRANSPORT_CLOSED)
        s->eof = true;
    return st;
}

void session_describe_failure(const struct session *s, enum transport_status st, struct strbuf *how)
{
    if (st == TRANSPORT_CLOSED)
        peer_describe_end(s->peer, how);
    else
        sb_adds(how, strerror(transport_error(s->peer)));
}

void session_failed(struct session *s, enum transport_status st, const struct diag_where *at,
                    const char *awaited)
{
    struct diag_where peer_at = session_where(s, 0);
    if (!at)
        at = &peer_at;
    s->trouble = true;
    if (st == TRANSPORT_STALLED) {
        peer_report_stalled(&s->sink, at, s->cfg.io_timeout, s->sent);
        return;
    }
    struct strbuf how = STRBUF_INIT;
    if (st != TRANSPORT_CLOSED)
        sb_adds(&how, "failed: ");
    session_describe_failure(s, st, &how);
    if (awaited)
        diag_emit(&s->sink, at, "peer-closed", "the peer %s before the conversation ended (%s)",
                  how.buf, awaited);
    else
        diag_emit(&s->sink, at, "peer-closed", "the peer %s after %lu messages", how.buf, s->sent);
    sb_free(&how);
}

/* Reads the peer until it closes, fails or deadline passes: the replies it still owed. */
static void read_last_replies(struct session *s, struct filter *f, double deadline)
{
    enum transport_status st = TRANSPORT_OK;
    while (!s->eof && st != TRANSPORT_CLOSED && st != TRANSPORT_TIMEOUT && st != TRANSPORT_ERROR &&
           !filter_interrupted()) {
        st = session_wait(s, deadline);
        session_take_lines(s, f);
    }
}

void session_close(struct session *s, struct filter *f, bool drain)
{
    session_close_by(s, f, drain, INFINITY);
}

void session_close_by(struct session *s, struct filter *f, bool drain, double latest)
{
    if (!s->peer)
        return;
    bool interrupted = filter_interrupted();
    double now = clock_monotonic();
    double deadline = now + (interrupted ? 0 : s->cfg.grace);
    if (deadline > latest)
        deadline = latest > now ? latest : now;
    if (!interrupted && drain) {
        transport_close_write(s->peer);
        read_last_replies(s, f, deadline);
    }
    transport_end(s->peer, filter_interrupted() ? clock_monotonic() : deadline, NULL);
    s->peer = NULL;
}
