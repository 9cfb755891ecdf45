/* What the FIPA stream checks read of every message before they look at any state, made with
 * --jobs in a worker thread (fipa_stream.c's stream_ops.digest), else by the thread that follows
 * the stream: the thread that keeps the order, whose time bounds the speed of -j, reads it where
 * it looked the members up, parsed the times and the act, and walked the view. Unlike the IACP
 * digest it is not all the checks read (a protocol's rules read more of an opening message, of a
 * reply_to, of the content): the message's view is kept beside it. Private to fipa_stream.c and
 * fipa_digest.c. */
#ifndef ACP_FIPA_DIGEST_H
#define ACP_FIPA_DIGEST_H

#include <stdint.h>

#include "engine/fipa_protocols.h"
#include "proto/fipa.h"
#include "proto/message.h"

struct fipa_digest {
    enum fipa_act act;           /* FIPA_ACT_INVALID when its performative is none */
    enum fipa_protocol declared; /* its protocol member's: FP_NONE when absent or unknown */
    bool partial;                /* an inform marked x-acp-partial */
    bool timed;                  /* it has a time (fipa_message_time_jv): stamped */
    double stamped;
    double reply_by; /* as written, by its sender's clock; NAN when it has none */
    /* The members the following reads, as places in the message's view (m->view + place; 0:
     * absent, or for the strings one of no string), valid in any copy of the view: */
    uint32_t sender, receiver, conversation_id, in_reply_to, reply_with, protocol;
};

/* Makes m's digest in *d. */
void fipa_digest_make(struct fipa_digest *d, const struct message *m);

#endif
