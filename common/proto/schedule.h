/* When each message of a replay is due, and how late it went.
 *
 * tcpreplay's lesson: every message is scheduled against one fixed anchor, the monotonic time
 * the first message was due, as anchor + (capture offset) / speed; never by adding up gaps, so
 * that the error of one sleep never carries over to the next. A message whose due time has passed
 * goes at once and the ones after it catch up. The capture offsets themselves are exact sums of
 * capture times: loops follow each other (a loop starts where the previous one's last slot
 * ended), and --max-gap removes the excess of each long idle gap. */
#ifndef ACP_SCHEDULE_H
#define ACP_SCHEDULE_H

#include <jansson.h>
#include <stdbool.h>

#include "proto/message.h"

enum pace {
    PACE_SPEED,    /* by message time, times a multiplier */
    PACE_TOPSPEED, /* as fast as possible */
    PACE_RATE,     /* a fixed number of messages per second */
};

struct schedule_config {
    enum pace pace;
    double speed;   /* PACE_SPEED: 2 replays twice as fast */
    double rate;    /* PACE_RATE: messages per second */
    double max_gap; /* PACE_SPEED: longest idle gap of capture time kept; 0 keeps every gap */
};

struct schedule {
    struct schedule_config cfg;
    bool anchored;
    double anchor;       /* monotonic time at which offset 0 is due */
    double base;         /* capture seconds of the loops before this one */
    bool in_loop;        /* this loop's origin is set */
    double origin;       /* capture time of this loop's offset 0 */
    double latest;       /* latest capture time seen in this loop */
    double cut;          /* capture seconds that max_gap removed in this loop */
    double span;         /* the end of this loop's last slot, as an offset */
    unsigned long count; /* messages scheduled, over every loop */
};

/* The time a message was sent, in seconds since 1970: IACP ts (a ts above 10^11 is read as
 * milliseconds), FIPA timestamp, else created_at. *whole_second is true for an IACP ts in whole
 * seconds, which only says in which second the message went. False when there is no usable
 * time. */
bool schedule_message_time(const json_t *root, enum protocol proto, double *t, bool *whole_second);
/* The same time of a message read through its view (m->view), without a tree; where it says
 * none, its capture record's (not in whole seconds). */
bool schedule_view_time(const struct message *m, double *t, bool *whole_second);

/* Whether the message has an IACP ts above 10^14 (iacp-ts-range), no time of this era:
 * schedule_message_time finds no time in it, since the wait for it would never end. */
bool schedule_beyond_era(const json_t *root, enum protocol proto);

void schedule_init(struct schedule *s, const struct schedule_config *cfg);

/* Whether this loop's origin is set yet. */
bool schedule_has_origin(const struct schedule *s);
/* Sets this loop's origin: the capture time that is due at the loop's start (the first message's
 * time, later by --start). */
void schedule_set_origin(struct schedule *s, double t);

/* The monotonic time at which a message of capture time t is due (t is ignored unless the pace is
 * PACE_SPEED). slot is the capture time the message occupies after t (1/n for one of n messages
 * spread over a second, else 0): the loop ends where its last slot ends. The first call anchors
 * the schedule at now. */
double schedule_due(struct schedule *s, double t, double slot, double now);

/* The loop is over: the next one starts where this one's last slot ended. */
void schedule_next_loop(struct schedule *s);

/* How late messages went against their schedule: a log-linear histogram of microseconds (3%
 * resolution above 64 us), so that memory stays constant however long the replay. */
enum { LATENESS_BUCKETS = 64 + 35 * 32 };

struct lateness {
    unsigned long count;
    double max; /* seconds */
    unsigned long buckets[LATENESS_BUCKETS];
};

void lateness_add(struct lateness *l, double seconds);
/* The q-quantile (0 < q <= 1) in seconds, within the histogram's resolution; 0 when empty. */
double lateness_quantile(const struct lateness *l, double q);

#endif
