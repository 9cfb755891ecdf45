/* What the FIPA stream's two files share: its records (a conversation, its parties, its
 * aliases, the stream itself, the message being followed) and the functions each calls of the
 * other's. fipa_stream.c follows the messages; fipa_stream_end.c tells the summaries, what falls
 * due, and ends, holds and forgets conversations. Private to them. */
#ifndef ACP_FIPA_STREAM_PARTS_H
#define ACP_FIPA_STREAM_PARTS_H

#include "base/duequeue.h"
#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/list.h"
#include "base/streamclock.h"
#include "diag/findings.h"
#include "engine/fipa_digest.h"
#include "engine/fipa_protocols.h"
#include "engine/stream.h"
#include "proto/fipa.h"

/* reply_with values remembered per conversation keyed by the chain: enough for a contract net
 * with dozens of proposers, bounded for a subscription that informs forever. */
enum { ALIAS_MAX = 64 };

/* Agents followed per conversation: a broadcast may draw answers from anywhere. */
enum { PARTIES_MAX = 1024 };

/* reply_with values remembered per conversation (as digests) to tell whether an in_reply_to
 * names one of its messages; past this many the check is left off for it rather than guessed. */
enum { REPLIES_MAX = 64 };

struct party {
    char *name;
    uint8_t state;           /* enum party_state */
    uint8_t outcome;         /* enum outcome */
    uint8_t before_cancel;   /* its state when the initiator cancelled */
    bool late;               /* its latest proposal came after the reply_by it answered */
    bool cancel_answer_open; /* its final answer crossed a cancel, which it may still answer */
    bool cancel_heard;       /* it sent something after a cancel that nothing can name */
    bool reply_told;         /* fipa-reply-by-passed was reported for reply_due */
    bool answer_told;        /* and for answer_due */
    const char *file;
    unsigned long line; /* the last message between it and the initiator */
    /* reply_by deadlines: the first message of the other side after the message that set it (the
     * last between the two, so file and line name it) is due by then; NAN when none is pending. */
    double reply_due;  /* from the initiator's message: due from this party */
    double answer_due; /* from this party's message: due from the initiator */
};

/* Brokering and recruiting: the agents the broker forwarded the proxy to. The broker's part is
 * over when each of them has answered (the broker, or in recruiting the initiator) or has been
 * answered for (a reply the broker relayed to the initiator). */
struct relay {
    char **targets;
    bool *answered;
    size_t ntargets, cap, nanswered, nrelayed;
    uint8_t outcome; /* done once any inform came, else failed */
};

/* What few conversations need, apart and allocated when first needed, so that a million plain
 * open conversations stay small. */
struct rare {
    /* brokering, recruiting: the opener's reply_to, who gets the answers (name_form) */
    char *answer_to;
    char *declared; /* unfollowed: the protocol name its first message gave (declared_form) */
    /* the latest cancel's own reply_with, which its answer names, as it is remembered
     * (name_form); or NULL */
    char *cancel_ref;
    const char *broadcast_file; /* the latest broadcast */
    unsigned long broadcast_line;
    double broadcast_reply_by; /* NAN if none */
    struct relay relay;
};

/* What only a conversation's summary needs: kept apart, so that the stream checks alone do not
 * pay for it in every conversation and tombstone. For its latencies: the act that opened it, the
 * first and the latest act from a participant (FIPA_ACT_INVALID before any), who sent them (1 +
 * the party's index; 0 for none), and their times as written (NAN when unknown). */
struct story {
    struct findings *findings; /* blamed on it; NULL when none */
    double opened_at, first_reply_at, latest_reply_at;
    uint16_t first_replier, latest_replier;
    int8_t opening_act, first_act, latest_act;
    bool replied_again; /* a participant sent more than one message */
};

struct conversation {
    /* 'c' + conversation_id, or 'r' + the opener's name and reply_with, in the form it is
     * remembered by (keyform.h); after a digest form, the id as it is quoted (at most
     * KEY_SHOWN_BYTES of it), as IACP's conversations keep it */
    char *key;
    char *initiator;
    bool by_chain; /* keyed by the reply chain ('r'), not by conversation_id */
    uint8_t id_at; /* where the id as it is quoted starts in key: a key kept as it is holds it */
    enum fipa_protocol protocol;
    bool protocol_named;    /* from the protocol member, not inferred */
    bool finished;          /* a tombstone: only key, initiator, protocol, outcome, last line */
    bool unfollowed;        /* unknown protocol, or a wrong opening: kept so that it is quiet */
    bool crowded;           /* more agents took part than PARTIES_MAX */
    bool forwarded;         /* brokering, recruiting: the request reached targets */
    bool replies_forgotten; /* more reply_with values than REPLIES_MAX */
    bool cancelled;         /* the initiator cancelled */
    bool foreign;           /* --shard: another shard reports it (a chain all shards follow) */
    bool held;              /* it ended, and waits --linger before its summary (s->held) */
    uint8_t outcome;
    uint8_t broadcast_state; /* what a broadcast put every listener in; PS_NONE if none */
    uint8_t nreplies, replies_cap;
    uint8_t naliases, alias_cap;
    /* Counts of parties (at most PARTIES_MAX): small, since a million conversations may be open. */
    uint16_t nparties, cap, open_parties;
    uint16_t leader; /* auctions: 1 + the index of the party whose bid was accepted (English: the
                      * leading bid; Dutch: this round's winner); 0 if none */
    uint16_t cancel_answers_open; /* a tombstone: answers to crossed cancels that may still come */
    uint32_t opening;    /* digest of its opening message (opening_digest): copies have it */
    struct story *story; /* for its summary; NULL without a callback, or once it ended */
    struct party *parties;
    /* Digests of the reply_with values of its messages: the first two in place. */
    union {
        uint32_t local[2];
        uint32_t *heap;
    } replies;
    struct rare *rare;    /* or NULL */
    struct due_entry due; /* in the due queue while a reply_by of its parties is pending */
    unsigned long messages;
    const char *first_file, *last_file;
    unsigned long first_line, last_line;
    double started, ended;  /* message times; NAN when unknown */
    double active;          /* stream time at its last message, for expiry; NAN when none */
    unsigned long last_seq; /* for expiry by count when there is no time */
    struct alias **aliases; /* only for conversations keyed by the chain */
    struct list_link link;  /* in the open list (by activity), the held or the tombstones */
    struct hash_node node;  /* in fipa_stream.conversations, while keyed */
    bool keyed;             /* no later conversation took its key */
};

/* An agent and a reply_with value it chose (agent_key), naming a conversation of a chain. */
struct alias {
    struct hash_node node;       /* in fipa_stream.aliases, while keyed */
    struct conversation *target; /* the conversation that holds it */
    bool keyed;                  /* no later conversation took it */
    char key[];
};

struct fipa_stream {
    const struct engine_config *cfg;
    struct fipa_digest digest; /* of the message being followed, when no worker made one */
    conversation_done_fn done;
    void *ctx;
    struct conversation *blame; /* the conversation findings are kept for, or NULL */
    struct findings *pending;   /* found for the message before its conversation opened */
    bool sharded;               /* --shard */
    bool accounted;             /* this shard accounts for the message being followed */
    bool dispatching;           /* a message is being followed: pending findings are kept */
    struct diag_sink probe;     /* for findings another shard reports */
    struct strbuf qualified;    /* a conversation id as acp-convert writes it */
    struct strbuf name;         /* scratch space for an agent's name */
    const char **names;         /* scratch space for a summary's participants */
    size_t names_cap;
    struct hashtab conversations; /* of struct conversation, open or finished, by key */
    struct hashtab aliases;       /* of struct alias: agent and reply_with -> conversation, for
                                   * chains without an id: reply_with values are only unique per
                                   * agent */
    struct list open, tombstones; /* of struct conversation, the oldest first */
    struct list held;             /* ended, summaries not written yet (--linger), oldest first */
    struct due_queue due; /* of struct conversation: open ones, by their earliest reply_by */
    struct strbuf key;    /* the key of the message being followed */
    const char *key_form; /* the form it is remembered by (find_conversation) */
    size_t key_form_len;
    size_t key_hash;                              /* the hashtab_hash of key_form */
    size_t key_id_at;                             /* where its id starts in key */
    struct key_form_buf key_digest, alias_digest; /* the digest forms of long keys */
    struct siphash_key secret;                    /* drawn for the run: the digests of long keys */
    struct strbuf alias;                          /* scratch space for alias keys */
    unsigned long seq;                            /* messages seen */
    struct clock_book *clock; /* the stream clock, with what it knows of each sender */
    double now;               /* stream time (the clock's); NAN before any */
    double wall;              /* the time --wall-clock last moved it to; NAN before */
    bool clock_agreed;        /* two messages agreed on a time (clock_agreed) */
    struct strbuf scratch;
    /* the forms of the message's long sender and in_reply_to (name_form) */
    struct name_form_buf sender_form, in_reply_to_form;
    struct strbuf shown[3];    /* long names as a summary shows them: initiator, repliers */
    struct strbuf shown_names; /* and its participants' (show_names) */
};

/* Everything known about the message being followed. */
struct incoming {
    const struct message *m;
    const struct fipa_digest *digest; /* what is read of m before any state */
    enum fipa_act act;
    bool partial; /* an inform marked x-acp-partial */
    /* as it is remembered (keyform.h: name_form), so that it compares with what is remembered;
     * sender_text as written, for the keys of reply chains (every shard makes them alike) */
    const char *sender, *sender_text;
    const struct jv *receiver;
    double time;     /* by the stream clock (its sender's learned offset taken off); NAN if none */
    double reply_by; /* likewise; NAN when it has none */
    /* The string members the following reads, looked up once: NULL when absent. */
    const char *conversation_id, *protocol, *in_reply_to, *reply_with;
    const char *in_reply_to_kept;     /* in_reply_to as a remembered reply_with is (cancel_ref) */
    const struct siphash_key *secret; /* the stream's: the forms of long names (agent_kept) */
    enum fipa_protocol declared;      /* the protocol member's: FP_NONE when absent or unknown */
};

struct conversation *fs_oldest(const struct list *l);

void fs_free_parties(struct conversation *c);

void fs_relay_clear(struct relay *r);

const char *fs_cancel_ref(const struct conversation *c);

void fs_forget_replies(struct conversation *c);

void fs_story_free(struct story *t);

/* Forgets a conversation entirely (it must already be out of its list). */
void fs_conversation_free(struct fipa_stream *s, struct conversation *c);

/* Its id as it is quoted: the whole id, or its first KEY_SHOWN_BYTES when it is longer. */
const char *fs_conversation_id(const struct conversation *c);

/* A key of a reply chain ('r', then an agent_key) as acp-convert writes the conversation_id:
 * the agent's name qualifies the reply_with. */
const char *fs_qualified(struct fipa_stream *s, const char *key);

/* What engine_feed says of a message of conversation c: a chain is named by its opener (the
 * agent of its key, as shown) and the reply_with. */
const char *fs_belongs_to(struct fipa_stream *s, const struct conversation *c);

/* The most telling outcome of the parts that ended: a result beats a refusal. A conversation
 * that a late copy of its opening took out of its hold starts from the outcome it had. */
enum outcome fs_overall_outcome(const struct conversation *c);

struct diag_where fs_related_to(const struct message *m, const char *file, unsigned long line);

/* The first party that is not finished, for telling what a conversation waits for. */
const struct party *fs_first_open_party(const struct conversation *c);

/* The parts of participants that a cancel nothing can name interrupted, and that sent something
 * since (a notification that crossed it, or its answer: they cannot be told apart), end as
 * cancelled when the conversation is handed over; a participant that sent nothing since still
 * owes the answer. */
void fs_settle_cancels(struct conversation *c);

/* Drops an open conversation that is abandoned (evicted, expired, replaced, open at the end). */
void fs_abandon(struct fipa_stream *s, struct conversation *c, const char *outcome);

/* Where the findings about a conversation go: in shard mode, those of another shard's to nobody. */
struct diag_sink *fs_sink_for(struct fipa_stream *s, const struct conversation *c,
                              struct diag_sink *sink);

/* Where findings about no conversation go (a sender's clock): in shard mode, shard 1 reports
 * them, as every shard sees every message. */
struct diag_sink *fs_outside(struct fipa_stream *s, struct diag_sink *sink);

/* A span of time in whole seconds, for a message (LLONG_MAX past what fits). */
long long fs_whole_seconds(double span);

/* A reply_by now pending for a party (due, or NAN for none): the conversation is queued by it,
 * unless it is queued earlier already. A due time spent since leaves it queued early: it is
 * judged again when it comes (report_overdue). */
void fs_set_due(struct fipa_stream *s, struct conversation *c, double *due, bool *told,
                double value);

/* Reports every reply_by that passed with no reply by message time, the earliest first. */
void fs_check_overdue(struct fipa_stream *s, const struct message *m, struct diag_sink *sink);

/* The end of a held conversation's wait: its summary is written, and it shrinks to a
 * tombstone. */
void fs_release(struct fipa_stream *s, struct conversation *c);

/* A conversation whose every part ended is held, whole, for --linger of message time before its
 * summary is written: a late copy of its opening (JADE sends one per receiver, and a quick
 * refusal may end the conversation before the next copy goes out) still adds its receivers, and
 * what comes after the end still lands in it. */
void fs_finish(struct fipa_stream *s, struct conversation *c);

/* A copy of its opening took a held conversation up again. */
void fs_unhold(struct fipa_stream *s, struct conversation *c);

/* Expires from the oldest end only, so each message costs little however much state there is. */
void fs_expire(struct fipa_stream *s, const struct message *m, struct diag_sink *sink);

void fs_trim_tombstones(struct fipa_stream *s);

void fs_make_room(struct fipa_stream *s, const struct message *m, struct diag_sink *sink);

#endif
