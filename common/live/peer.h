/* The peer acp-replay and acp-send talk to, as their options name it (--connect=ADDRESS or
 * --exec=COMMAND): reading those options, opening the peer, and saying how it went away. */
#ifndef ACP_PEER_H
#define ACP_PEER_H

#include <stdbool.h>

#include "diag/diag.h"
#include "io/transport.h"

/* --connect=ADDRESS: true when its form is right; otherwise reports a usage error. */
bool peer_address_option(const char *arg);

/* --exec=COMMAND: the command split into words (the previous one, *words, freed); false after
 * reporting a usage error. */
bool peer_command_option(char ***words, const char *arg);

/* Connects to address, or else starts command; NULL after reporting peer-connect at *at. */
struct transport *peer_open(const char *address, char *const *command,
                            const struct transport_config *cfg, struct diag_sink *sink,
                            const struct diag_where *at);

/* How the peer went away, for a message: "closed the connection", "exited with status 3",
 * "closed its standard output". */
void peer_describe_end(struct transport *peer, struct strbuf *how);

/* Reports that the peer has not read for io_timeout seconds (peer-timeout). */
void peer_report_stalled(struct diag_sink *sink, const struct diag_where *at, double io_timeout,
                         unsigned long sent);

#endif
