/* A message: one parsed record, the protocol it speaks, and where it came from. The checks read
 * it through the scanner's view (jscan.h); a jansson tree is made only for a tool that asks for
 * one (message_tree). */
#ifndef ACP_MESSAGE_H
#define ACP_MESSAGE_H

#include <jansson.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/record.h"
#include "diag/diag.h"
#include "proto/jscan.h"

enum protocol { PROTO_NONE, PROTO_IACP, PROTO_FIPA, PROTO_MCP };

/* What --protocol chose: a protocol, of the same value, or auto (by the message's members). */
enum protocol_choice {
    CHOOSE_AUTO = PROTO_NONE,
    CHOOSE_IACP = PROTO_IACP,
    CHOOSE_FIPA = PROTO_FIPA,
    CHOOSE_MCP = PROTO_MCP
};

struct dialect;
struct capture_form;

/* Which records are read as a capture's (acp-convert --from): NULL, or a zeroed one, for every
 * form's; only, for that form's alone (any other record an error, capture-form); bare, for none:
 * every record is read as the message it is. */
struct capture_choice {
    const struct capture_form *only;
    bool bare;
};

/* Where a message of a capture file (acp-tap's records, mcpsnoop's; proto/taprecord.h) came from:
 * which way it went, when, and in which session. */
struct message_capture {
    bool present;           /* the record is a capture record */
    bool event;             /* of an event of the session (start, end, dropped): no message */
    bool starts_session;    /* the event is the session's start: its checks begin there */
    bool ends_session;      /* the event is the session's end: what is in progress in it ends */
    bool out;               /* the agent wrote it (its stdout); else it was written to the agent */
    uint32_t session_place; /* the session's node in the record's view (message_session) */
    uint32_t connection_place; /* 0, or the node of the connection within the session */
    double time;               /* unix seconds; NAN: unknown */
};

struct message {
    const struct record *rec;
    const struct jv *view; /* the object as the checks read it; valid until message_clear */
    /* view's node in the record's view: 0, or the message a capture record holds */
    uint32_t view_place;
    struct message_capture capture;
    json_t *tree;      /* the object as a jansson tree, or NULL until message_tree made it */
    struct jscan *own; /* holds view when the message was made from a tree; else NULL */
    enum protocol proto;
    const struct dialect *dialect; /* proto's (dialect.h), NULL for none */
    const char *id;                /* IACP id or FIPA reply_with, when a string; valid as view */
    uint32_t id_place;             /* its node in view (0: none): valid in any copy of the view */
    /* Where the value of the dialect's content_member stands in the record's text, when the
     * read noted it (message_note_content): content_end 0 with content_noted, none there. */
    uint32_t content_start, content_end;
    bool content_noted;
    struct diag_where at; /* where diagnostics about this message point */
    bool passed;          /* what filter_ops.prepare returned for it (filter.h) */
    bool elsewhere; /* of another partition than the run's (filter_config.partition): left out */
    struct strbuf output; /* what prepare wrote for it: the filter writes it after `message` */
    /* prepare did the work that reads the message (message_drafted): `message` reads only what
     * prepare left it, in output and notes */
    bool drafted;
    bool draft_keeps_view; /* its view is kept for `message` all the same (message_drafted) */
    size_t hole; /* where in output `message` writes what needs the stream; MESSAGE_NO_HOLE */
    void *notes; /* what else prepare left for `message`: one allocation of message_alloc's, freed
                  * with m */
    /* what the stream checks read of m first, made beforehand in a worker thread of --jobs
     * (engine_check_message), or NULL: one allocation of message_alloc's, freed with m */
    void *digest;
    /* where message_alloc takes memory: the arena of m's --jobs batch, which lives as long as
     * m, or NULL for malloc's */
    struct arena *arena;
};

#define MESSAGE_NO_HOLE SIZE_MAX

/* Parses a JSON record into an object. On failure reports the reason (bad-json, not-object,
 * duplicate-key, ...) at the record's line and column and returns NULL. */
json_t *message_parse_json(const struct record *rec, struct diag_sink *sink);

/* Reads into m, through the scanner js, a line of JSON the tools made of rec (a converter's
 * output), which jscan_scan_made reads: m's record is rec. False only when text is no JSON
 * object (never, for a line made so). */
bool message_read_made(struct message *m, const struct record *rec, const char *text, size_t len,
                       struct jscan *js, enum protocol_choice choice);
/* The same for a view made of rec (acl_parse_view's), which stays where it was made. */
bool message_read_view(struct message *m, const struct record *rec, const struct jv *view,
                       enum protocol_choice choice);

/* Reads a JSON record into m through the scanner js (which holds m's view until it scans again),
 * deciding the protocol as message_init does. When the record is no JSON object, reports why
 * exactly as message_parse_json does (jansson reads the record again to say it) and returns
 * false. */
bool message_read(struct message *m, const struct record *rec, struct jscan *js,
                  enum protocol_choice choice, const struct capture_choice *captures,
                  struct diag_sink *sink);

/* Notes where m's content (its dialect's content_member) stands in its record, as the scan js
 * that read it found it: right after message_read, for a tool that copies contents as they came
 * (message_member_text). */
void message_note_content(struct message *m, const struct jscan *js);
/* Where the value of m's top-level member stands in its record's text (jscan_member_text): as
 * noted when member is the content, else found in the text. */
bool message_member_text(const struct message *m, const char *member, size_t *start, size_t *end);

/* Decides the protocol: the one chosen, or with auto the first dialect whose marks the message
 * has (dialect.h: a "kind" or "v" member means IACP, otherwise a "performative" member means
 * FIPA), otherwise PROTO_NONE. */
enum protocol message_protocol(const json_t *root, enum protocol_choice choice);

/* Fills m for root (taking ownership) and points its diagnostics at the record (which may be
 * NULL: then the protocol is what choice says, or decided as auto). A record of the FIPA string
 * form is FIPA whatever choice says. The view is made in js, or with js NULL in a scanner the
 * message owns. */
void message_init(struct message *m, const struct record *rec, json_t *root,
                  enum protocol_choice choice);
void message_init_in(struct message *m, const struct record *rec, json_t *root,
                     enum protocol_choice choice, struct jscan *js);
/* Whether m carries a partial result, more to come: an IACP task.result with body.partial true,
 * a FIPA message with x-acp-partial true (acp-convert's mapping of it). */
bool message_partial(const struct message *m);

/* Memory for what lives as long as m (its digest, its notes), from m's arena when it has one. */
void *message_alloc(const struct message *m, size_t size);

/* Makes m's view again in js, for a message another thread read (--jobs): the scanner that
 * holds its view has read on since. */
void message_rebind(struct message *m, struct jscan *js);
/* For prepare, when it has done all the work that reads the message: what `message` needs is in
 * output and in notes (one allocation of message_alloc's, freed with m, or NULL), id (or NULL)
 * holds the message's id for its diagnostics and lives as long as m. The tree is freed at once, by
 * the thread that made it (memory that malloc hands out next), and --jobs does not make the view
 * again; unless keep_view: `message` may find that the draft does not hold, and read the message
 * after all. */
void message_drafted(struct message *m, void *notes, const char *id, bool keep_view);
/* Instead of message_rebind, for a message whose view was kept in a jv_store: view is the copy. */
void message_rebind_view(struct message *m, const struct jv *view);
/* Instead of message_rebind for a drafted message: its view is not read again. */
void message_unbind(struct message *m);
/* The message as a jansson tree, made from the view on first use; owned by the message. */
json_t *message_tree(const struct message *m);
/* Appends the message's own text to out, a line: its bytes as they came, the member of a
 * capture's record that holds it (the form's message_member), or the whole line of a bare one;
 * as the view reads it where the member's name was spelt with an escape. */
void message_own_text(const struct message *m, struct strbuf *out);
void message_clear(struct message *m);

/* The conversation_id of the conversation an agent opened with a message id (an IACP task.assign
 * or tool.query), or of a FIPA reply chain without conversation_id, as acp-convert writes it and
 * the stream checks name it: the agent's name with % and / written %25 and %2F, a "/", then the
 * id as it is. Written into sb; returns sb's text. */
const char *message_conversation_id(struct strbuf *sb, const char *agent, const char *id);
/* The agent's part of it alone (an MCP session's, whose messages outside any request it names):
 * written into sb; returns sb's text. */
const char *message_conversation_owner(struct strbuf *sb, const char *agent);

/* The session of a message of a capture file, valid as its view; NULL for another message. */
const char *message_session(const struct message *m);
/* Which of its session's connections a message of a capture file came by (mcpsnoop's HTTP
 * proxy carries several clients in one session), valid as its view; NULL for one alone. */
const char *message_connection(const struct message *m);

/* A string member, or NULL when absent or not a string. */
const char *json_member_string(const json_t *obj, const char *key);

#endif
