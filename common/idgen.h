/* Fresh message ids for tools that must make some up: acp-convert for FIPA messages without a
 * reply_with, acp-replay and acp-send for the messages they compose.
 *
 * A fresh id looks like a forager's: "m-" and six hex digits. Each sender has its own counter,
 * and the id is a permutation of the 2^24 six-digit values, keyed by the seed and the sender,
 * applied to that counter: so one sender's fresh ids never repeat within a run (after 2^24 of
 * them a "-" and the round number are added, "m-3fa2c1-1", still unique), and the same seed
 * gives the same ids in the same order.
 *
 * The generator also remembers the ids each sender was seen to use (idgen_note) and never hands
 * one of those to the same sender. What it remembers is bounded: an id is forgotten keep_for
 * seconds (of the times the caller passes: message time, or the clock) after its last use, and
 * past max_ids ids (or max_ids senders) the least recently used are forgotten first. A sender
 * that is forgotten starts its counter again, so "unique within a run" holds for every sender
 * heard from at least once in every max_ids senders.
 *
 * Ids and senders are compared byte for byte; a sender of NULL is the sender with no name. */
#ifndef ACP_IDGEN_H
#define ACP_IDGEN_H

#include <stdbool.h>
#include <stddef.h>

struct idgen_config {
    unsigned long seed;
    double keep_for; /* seconds an id is remembered after its last use */
    size_t max_ids;  /* most ids (and senders) remembered at once; at least 1 */
};

struct idgen;

struct idgen *idgen_new(const struct idgen_config *cfg);
void idgen_free(struct idgen *g);

/* Notes that sender used id at time when (NAN when unknown: the latest time seen so far).
 * Returns true when that sender had already used that id and it was still remembered. */
bool idgen_note(struct idgen *g, const char *sender, const char *id, double when);

/* Whether sender used id and it is still remembered. */
bool idgen_seen(struct idgen *g, const char *sender, const char *id);

/* A fresh id for sender, which is noted as used at when. The text is valid until the next call
 * on g. */
const char *idgen_fresh(struct idgen *g, const char *sender, double when);

/* How many ids and senders it remembers now (for tests of the bound). */
size_t idgen_remembered_ids(const struct idgen *g);
size_t idgen_remembered_senders(const struct idgen *g);

#endif
