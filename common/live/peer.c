#include "live/peer.h"

#include <string.h>

#include "base/clock.h"
#include "base/escape.h"
#include "io/command.h"
#include "tool/options.h"

bool peer_address_option(const char *arg)
{
    struct strbuf err = STRBUF_INIT;
    bool ok = transport_address_valid(arg, &err);
    if (!ok) {
        struct strbuf shown = STRBUF_INIT;
        escape_text(&shown, arg, strlen(arg), 80);
        options_usage_error("--connect=%s: %s", shown.buf ? shown.buf : "", err.buf);
        sb_free(&shown);
    }
    sb_free(&err);
    return ok;
}

bool peer_command_option(char ***words, const char *arg)
{
    struct strbuf err = STRBUF_INIT;
    command_free(*words);
    *words = command_split(arg, &err);
    if (!*words)
        options_usage_error("--exec: %s", err.buf);
    sb_free(&err);
    return *words != NULL;
}

struct transport *peer_open(const char *address, char *const *command,
                            const struct transport_config *cfg, struct diag_sink *sink,
                            const struct diag_where *at)
{
    struct strbuf err = STRBUF_INIT;
    struct transport *peer =
        address ? transport_connect(address, cfg, &err) : transport_exec(command, cfg, &err);
    if (!peer)
        diag_emit(sink, at, "peer-connect",
                  address ? "cannot connect: %s" : "cannot run the command: %s", err.buf);
    sb_free(&err);
    return peer;
}

void peer_describe_end(struct transport *peer, struct strbuf *how)
{
    int wstatus;
    /* A child that closed its output is given a moment to exit, so its status can be told. */
    if (!transport_is_child(peer))
        sb_adds(how, "closed the connection");
    else if (transport_child_exited(peer, clock_monotonic() + 1, &wstatus))
        transport_describe_exit(how, wstatus);
    else
        sb_adds(how, "closed its standard output");
}

void peer_report_stalled(struct diag_sink *sink, const struct diag_where *at, double io_timeout,
                         unsigned long sent)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%g", io_timeout);
    diag_emit(sink, at, "peer-timeout", "the peer has not read for %s s; %lu messages were sent",
              secs, sent);
}
