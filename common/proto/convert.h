/* The mapping between IACP 1.1 and FIPA ACL (Caxton's JSON), both ways, lossless: what one side
 * cannot say travels in x-iacp-* / x-fipa-* members and comes back. acp(7) and acp-convert(1)
 * have the table.
 *
 * Members keep their order: each member is written where its counterpart stood (the
 * performative first in FIPA), and what the mapping adds (conversation_id, protocol, a fresh id,
 * ...) comes after them, so a round trip gives the members back in the order they came.
 *
 * IACP -> FIPA is stateful: conversation_id is the opener's sender, "/", and the opener's id
 * (ids are unique per sender only), found by following ref; the converter also remembers the
 * cancels sent for each assign, so that a result with status "cancelled" answers the cancel.
 * That state expires by message time (idle_timeout), which is the stream clock (streamclock.h)
 * so that no single sender or timestamp moves it, and is capped (max_open), so that no stream
 * makes it grow without bound. FIPA -> IACP follows the stream the same way, so that
 * conversation_id comes back.
 * FIPA -> IACP writes fresh ids (common/proto/idgen.h) where a message has no reply_with, or one
 * that its sender already used, and, without a timestamp, the time of conversion. The ids are
 * derived from the input (seed_from_input: the seed is a hash of the first message that needs
 * one), so that converting a log twice gives the same output; --seed changes them, and --now
 * reproduces the times. */
#ifndef ACP_CONVERT_H
#define ACP_CONVERT_H

#include <jansson.h>
#include <time.h>

#include "base/jsonout.h"
#include "diag/diag.h"
#include "proto/fipa.h"
#include "proto/iacp.h"
#include "proto/jscan.h"

struct convert_config {
    double idle_timeout;    /* seconds of message time a conversation is remembered */
    unsigned long max_open; /* most conversations (and ids per direction) remembered */
    double clock_skew;      /* a sender's clock offset from the others' tolerated (streamclock.h) */
    unsigned long seed;     /* for fresh ids */
    bool seed_from_input;   /* no --seed: mix seed with the first message that needs an id */
    time_t now;             /* the time of conversion */
};

struct converter;

struct converter *converter_new(const struct convert_config *cfg);
void converter_free(struct converter *c);

/* A new FIPA object for an IACP one, read through its view (performative in snake_case), or
 * NULL after reporting why (convert-iacp) at *at. */
/* Whether messages of proto have a mapping: IACP's and FIPA's, into each other. */
bool convert_maps(enum protocol proto);

json_t *convert_iacp_to_fipa(struct converter *c, const struct jv *iacp, struct diag_sink *sink,
                             const struct diag_where *at);

/* The same as a line of FIPA JSON, with no tree: appended to out (with its newline), content
 * written as body_text (the text of the message's body as it came; NULL: none) where it is the
 * body as it is, which *content_is_body then says. */
enum fipa_line {
    FIPA_LINE_NONE,    /* nothing written: an error was reported */
    FIPA_LINE_TREE,    /* nothing written or done: only convert_iacp_to_fipa converts it (fipa.*) */
    FIPA_LINE_WRITTEN, /* the line, the message followed along the stream */
};

enum fipa_line convert_iacp_fipa_line(struct converter *c, const struct jv *iacp,
                                      const struct json_text *body_text, struct strbuf *out,
                                      bool *content_is_body, struct diag_sink *sink,
                                      const struct diag_where *at);

/* --jobs converts IACP to FIPA in two steps: a draft, which needs nothing of the stream and so
 * is made in a worker thread, then, in input order, the message followed along the stream, which
 * gives the draft its conversation_id. Together they write what convert_iacp_to_fipa writes. */
enum draft {
    DRAFT_NONE,         /* no draft: an error was reported */
    DRAFT_NEEDS_STREAM, /* no draft: only convert_iacp_to_fipa can convert the message (a fipa.*
                           kind, a result that may answer a cancel) */
    DRAFT_WHOLE,        /* a draft that is the output as it stands */
    DRAFT_HOLE,         /* a draft whose conversation_id is "", for the stream to say */
};

/* Appends to out the line of FIPA JSON of an IACP message as far as the message alone says, as
 * acp-convert writes convert_iacp_to_fipa's object (performative in the given spelling); with
 * DRAFT_HOLE, *hole is where the "" of its conversation_id starts. body_text: the text of the
 * message's body as it came (NULL: none), which the content is written as when it is the body
 * as it is. Reports what convert_iacp_to_fipa would, at *at; with DRAFT_NONE or
 * DRAFT_NEEDS_STREAM, nothing is written. */
enum draft convert_iacp_draft(const struct jv *iacp, const struct json_text *body_text,
                              enum fipa_spelling spelling, struct strbuf *out, size_t *hole,
                              struct diag_sink *sink, const struct diag_where *at);

/* convert_iacp_fipa_line and convert_iacp_draft for the string form's writer, which reads views:
 * in place of the line, the view jscan_scan_made would read of it, built in js (*view; valid
 * until js builds or scans again); a draft's conversation_id is "" in it. */
enum fipa_line convert_iacp_fipa_view(struct converter *c, const struct jv *iacp, struct jscan *js,
                                      const struct jv **view, bool *content_is_body,
                                      struct diag_sink *sink, const struct diag_where *at);
enum draft convert_iacp_draft_view(const struct jv *iacp, enum fipa_spelling spelling,
                                   struct jscan *js, const struct jv **view, struct diag_sink *sink,
                                   const struct diag_where *at);

/* Whether the content of the message's FIPA line (a draft's, or convert_iacp_fipa_line's) is its
 * body as it is, which the string form writes as the body's text. */
bool convert_content_is_body(const struct jv *iacp);

/* Whether every line of FIPA JSON made of the message (its draft, or the whole conversion's
 * line, convert_iacp_fipa_line) passes the FIPA rules (fipa_check, either profile) as it is
 * made: so that acp-convert need not read it back to check it. */
bool convert_fipa_line_passes(const struct jv *iacp);

/* What following an IACP message along the stream reads of it, taken with its draft so that the
 * message can be freed before it is followed: one allocation, its strings in it; free() it. */
struct iacp_trail {
    enum iacp_kind kind;
    bool timed;                       /* whether ts is a message time */
    double ts;                        /* in seconds */
    const char *id, *from, *to, *ref; /* NULL when absent or no string */
    const char *conversation;         /* x-fipa-conversation_id, or NULL */
    bool fresh;      /* FIPA of its own (kind IACP_FIPA) whose id is made up along the stream */
    bool first;      /* the hole of FIPA made from IACP follows its object's "{" */
    size_t hole_len; /* the draft's bytes at its hole that what fills it replaces */
    char strings[];
};

struct arena;

/* The trail of an IACP message's view, in memory (the message's, message_alloc; NULL: malloc's,
 * free() it). */
struct iacp_trail *convert_iacp_trail(const struct jv *iacp, struct arena *memory);

/* In input order, for a message that has a draft: follows it along the stream as
 * convert_iacp_to_fipa does, and returns the conversation_id a DRAFT_HOLE takes (valid until
 * the next call). */
const char *convert_iacp_follow(struct converter *c, const struct iacp_trail *t);

struct member_list;

/* FIPA to IACP as far as the message alone says, for a worker thread under --jobs: the line
 * convert_fipa_iacp_line writes but for what only following the stream can add at *hole, and in
 * *trail (made in memory, as convert_iacp_trail makes it) what following reads. Of FIPA made from
 * IACP, that is the x-fipa-conversation_id at its object's "}"; of FIPA of its own, the "" of an id
 * made up (a message without reply_with, or with one of no string), and the draft takes a
 * reply_with for one its sender did not use before (convert_fipa_follow checks it). now: the time
 * of conversion. *passes: the line passes the IACP rules as it is made (as convert_fipa_iacp_line
 * says). False, with nothing written or reported, for a message convert_fipa_iacp_line is to
 * convert whole in order: FIPA made from IACP that names x-fipa-conversation_id itself, FIPA of
 * its own whose line would not pass the IACP rules as it is made. */
bool convert_fipa_iacp_draft(const struct jv *fipa, const struct json_text *content_text,
                             time_t now, struct member_list *scratch, struct strbuf *out,
                             unsigned flags, bool *passes, size_t *hole, struct arena *memory,
                             struct iacp_trail **trail);

/* Whether following such a draft may find that it does not hold (FOLLOWED_AGAIN): its message
 * is to be kept until then. */
bool convert_draft_may_not_hold(const struct iacp_trail *t);

enum followed_draft {
    FOLLOWED_WHOLE, /* the draft is the line as it stands */
    FOLLOWED_FILL,  /* the line is the draft with fill at its hole */
    FOLLOWED_AGAIN, /* the draft does not hold (its reply_with was used before, or its made-up id
                       is the first, which the ids' seed is taken from): nothing was followed, and
                       convert_fipa_iacp_line is to convert the message whole */
};

/* In input order, for such a draft: follows its message along the stream as
 * convert_fipa_iacp_line does, appending to fill what goes at its hole in place of its trail's
 * hole_len bytes (written with flags). */
enum followed_draft convert_fipa_follow(struct converter *c, const struct iacp_trail *t,
                                        unsigned flags, struct strbuf *fill);

/* The bytes of a DRAFT_HOLE's "": what the conversation_id replaces. */
enum { CONVERT_HOLE_LEN = 2 };

/* Appends to out the conversation_id as it goes in a draft's hole (a JSON string). */
void convert_hole_value(struct strbuf *out, const char *conversation);

/* Appends to out the draft with the conversation_id in its hole, which starts at hole. */
void convert_fill_hole(struct strbuf *out, const struct strbuf *draft, size_t hole,
                       const char *conversation);

/* A FIPA message, read through its view, as a line of IACP appended to out (its newline too),
 * written with jsonout's flags; the members built in scratch. content_text: the text the
 * message's content came with (NULL: none; its value is not read), which a member that carries
 * the content (body, x-fipa-content) is written as where it says the same. *passes: the line
 * passes the IACP rules (iacp_check, with no error) as it is made, so that acp-convert need not
 * read it back to check it (said of a FIPA message of its own, not of one made from IACP, whose
 * x-iacp- members may say anything). False, with nothing written, after reporting why
 * (convert-fipa) at *at. */
struct member_list;
bool convert_fipa_iacp_line(struct converter *c, const struct jv *fipa,
                            const struct json_text *content_text, struct member_list *scratch,
                            struct strbuf *out, unsigned flags, bool *passes,
                            struct diag_sink *sink, const struct diag_where *at);

/* Rewrites the performative of a FIPA object in the given spelling; false when it is not an act
 * (nothing is changed then). */
bool convert_respell(json_t *fipa, enum fipa_spelling spelling);

#endif
