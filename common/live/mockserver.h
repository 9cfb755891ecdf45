/* A recording served in its server's place (acp-replay --serve=server): the live client that
 * started acp-replay as its server gets, for each request, the response the recording has to the
 * same request (answers_request_key: MCP's method and params, their _meta aside), the recorded
 * bytes as they were with the live request's id in place of the recorded one. A request asked
 * again gets the recorded responses to it in their order, then the last one again. A request the
 * recording does not have is answered with a JSON-RPC error, -32601 when the recording has no
 * request of its method, else -32602 naming the request, and reported (serve-unrecorded).
 * Notifications and the client's responses are taken and not answered.
 *
 * What it keeps: each recorded response's text, and each recorded request until its response
 * comes (the requests of a recording's sessions told apart by their session). */
#ifndef ACP_MOCKSERVER_H
#define ACP_MOCKSERVER_H

#include "diag/diag.h"
#include "proto/message.h"

struct mockserver;

struct mockserver_counts {
    unsigned long recorded;   /* responses the recording gave to a request it has */
    unsigned long served;     /* requests answered as recorded */
    unsigned long unrecorded; /* requests the recording does not have */
};

struct mockserver *mockserver_new(void);
void mockserver_free(struct mockserver *ms);

/* A message of the recording: a request of the client's (a capture's record of what went to the
 * server) is kept until the server's response to it comes, which is then its answer. Messages of
 * no capture, whose side no record says, and of dialects that serve no recording are left. */
void mockserver_record(struct mockserver *ms, const struct message *m);

/* A message from the live client: what to write back to it (whole lines) appended to out. */
void mockserver_serve(struct mockserver *ms, const struct message *m, struct strbuf *out,
                      struct diag_sink *sink);

struct mockserver_counts mockserver_counts(const struct mockserver *ms);

#endif
