/* The stream clock: one message time for a stream of messages that many senders stamp, each by
 * its own clock.
 *
 * Message time drives every timeout of the stream checks (idle state, silences, deadlines,
 * expiry). Taken as the largest ts seen, one sender whose clock runs ahead would make every other
 * agent look silent, and one far-future ts would age everything at once. This clock is built so
 * that no single sender and no single message moves it for the others:
 *
 *  - On its own, a message moves the clock forward by at most `step` seconds (for IACP one
 *    heartbeat period: in a live stream somebody speaks at least that often). So the first
 *    message of a sender does show that time passed, as liveness needs (a clock that only adds
 *    each sender's own ts deltas cannot).
 *  - A larger jump is only a claim, held until it is settled. Another sender's message that also
 *    jumps, about as far (the two differ by no more than a step, or than the smaller jump),
 *    confirms it: both say time passed, so the clock moves to the smaller of the two claims (a
 *    gap in the capture, which every sender shows); a jump that does not agree replaces it. The
 * same sender confirms it by going on for `alone_after` seconds of its own clock while nobody else
 * speaks, or with its next message when it is the only sender the clock ever heard (a one-sender
 * stream is followed) or was followed so since anybody else spoke. A message of anyone stamped near
 *    the present (from `skew` behind to `step` ahead) drops the claim.
 *  - A sender whose messages are off the clock by more than `skew`, steadily (CLOCK_STEADY
 *    messages in a row, in the same direction, within `skew` of each other, each after somebody
 *    else spoke near the present), has its offset learned: from then on its ts less the offset is
 * read, and the caller is told once, so that it can report it. Offsets within `skew` are never
 * corrected: they are for the caller to judge message by message (IACP's --max-skew between a reply
 * and its cause). A sender's clock never moves the clock for the others, learned or not.
 *  - Until a second message agrees with the first one's time, a message far behind replaces it,
 *    so that a stream whose first ts is bad does not stay stuck in the future.
 *
 * The clock never goes back once two messages agreed, and it never reads the machine's clock.
 * Its state is a few numbers; per sender, a struct clock_sender that the caller keeps with its
 * own record of the sender (IACP keeps it in its agents), or, for a caller without one, a
 * struct clock_book that keeps them by sender name with a bound on their number.
 *
 * Use, in stream order (a message without a time is simply not observed):
 *     struct stream_clock clock;
 *     clock_init(&clock, &(struct clock_config){.step = 10, .skew = 30, .alone_after = 30});
 *     ...for each message, with its sender's struct clock_sender (clock_sender_init on first use):
 *     struct clock_reading r = clock_observe(&clock, &sender->clock, ts);
 *     now = clock_now(&clock);  -- message time, for every timeout and expiry
 *     r.at                       -- this message's own time, to compare it with other messages
 *     if (r.report) ...report sender->clock.offset, once
 * or, keeping no record per sender:
 *     struct clock_book *book = clock_book_new(&cfg, max_senders);
 *     struct clock_reading r = clock_book_observe(book, sender_name, ts);
 *     now = clock_book_now(book);
 * Choosing `step`: the longest quiet spell a live stream has. IACP has heartbeats every 10 s;
 * traffic without them (FIPA conversations, acp-convert's input) may want a minute or more, so
 * that a sparse stream is followed message by message; a longer jump is still followed, at the
 * second sender that shows it. `alone_after` of a few steps, and `skew` (--clock-skew) of at
 * least a step, are sensible.
 */
#ifndef ACP_STREAMCLOCK_H
#define ACP_STREAMCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Messages in a row that show the same offset before it is learned. */
enum { CLOCK_STEADY = 3 };

struct clock_config {
    double step;        /* the most one message moves the clock on its own; > 0 */
    double skew;        /* offsets beyond it are learned and reported (--clock-skew); > 0 */
    double alone_after; /* a sender that jumps and goes on alone this long is followed */
};

/* What the clock knows of one sender. Zero it with clock_sender_init before the first use; to
 * forget the sender, drop it (the clock holds no pointer to it). */
struct clock_sender {
    unsigned long serial;        /* tells senders apart; 0 before clock_sender_init */
    double offset;               /* learned: its clock minus the stream's; 0 when none */
    double reported;             /* the offset last reported; 0 when none */
    double streak_lo, streak_hi; /* how far off its messages of the current streak were */
    uint32_t present_seen;       /* the clock's count of messages near the present, at its last */
    unsigned streak;             /* its messages in a row off by more than skew, one way */
};

/* What clock_observe found out about one message. */
struct clock_reading {
    /* The message's own time: its ts less its sender's offset as learned after this message,
     * whether or not it moved the clock. Compare it with other senders' (a reply with its
     * cause); use clock_now for timeouts. */
    double at;
    bool learned; /* the sender's offset was learned (or unlearned) from this message */
    bool report;  /* and it is beyond skew, and differs from any reported: say so once */
};

/* A claim that time jumped, waiting for a second voice. */
struct clock_claim {
    bool held;
    unsigned long sender; /* serial of its sender */
    double time;          /* the time it claims */
    double run_start;     /* the sender's own ts when the claim started */
};

struct stream_clock {
    struct clock_config cfg;
    double step;                /* min(cfg.step, cfg.skew) */
    double now;                 /* NAN before the first message */
    bool agreed;                /* a second message agreed with the first time */
    bool several;               /* a second sender was heard */
    unsigned long first_sender; /* serial of the first sender heard */
    unsigned long alone;        /* serial of a sender followed alone since nobody else spoke */
    uint32_t present;           /* messages stamped near the present so far (it may wrap) */
    unsigned long serials;      /* the last serial handed out */
    struct clock_claim claim;
};

void clock_init(struct stream_clock *c, const struct clock_config *cfg);
void clock_sender_init(struct stream_clock *c, struct clock_sender *s);

/* Reads one message, stamped ts (seconds) by the sender s, and moves the clock. A ts that is not
 * a finite number is ignored. */
struct clock_reading clock_observe(struct stream_clock *c, struct clock_sender *s, double ts);

/* Message time: NAN before the first message. */
static inline double clock_now(const struct stream_clock *c)
{
    return c->now;
}

/* A clock that keeps its senders itself, by name, for callers that keep no record per sender
 * (the FIPA stream, acp-convert's memory of conversations). At most max_senders are kept; past
 * that the least recently heard is forgotten, with whatever offset was learned of it. */
struct clock_book;

struct clock_book *clock_book_new(const struct clock_config *cfg, size_t max_senders);
/* The clock of traffic without heartbeats (FIPA, acp-convert's input), where a quiet minute is
 * ordinary: its step is a minute (less when skew is), a sender going on alone is followed after
 * three, and it keeps at most CLOCK_BOOK_SENDERS senders (max_open when fewer, and not 0): a
 * conversation needs no sender's clock, so a million conversations of a million senders keep
 * no million clocks. */
enum { CLOCK_QUIET_STEP = 60, CLOCK_BOOK_SENDERS = 10000 };
struct clock_book *clock_book_quiet(double skew, unsigned long max_open);
struct clock_reading clock_book_observe(struct clock_book *b, const char *sender, double ts);
/* The learned offset of a sender (0 when none or not known), for reporting it. */
double clock_book_offset(const struct clock_book *b, const char *sender);
double clock_book_now(const struct clock_book *b);
/* Whether two messages agreed on a time yet. Before that, message time is provisional: the first
 * ts is dropped when nothing confirms it. */
bool clock_book_agreed(const struct clock_book *b);
void clock_book_free(struct clock_book *b);

#endif
