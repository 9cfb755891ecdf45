/* Fresh message ids for tools that must make some up: acp-convert for FIPA messages without a
 * reply_with, acp-replay for the ids it rewrites, acp-send for the messages it composes. The one
 * generator of the toolkit.
 *
 * A fresh id takes one of three forms: a forager's, "m-" and 6 hex digits (the default); the
 * queen's, "q-" and 8 hex digits; or a prefix the caller gives and 12 hex digits. Each sender
 * has a counter per form, and the id is a permutation of the values of its width (2^24, 2^32,
 * 2^48), keyed by the seed, the sender and the form, applied to that counter: so one sender's
 * fresh ids of one form never repeat within a run (once a width is used up, a "-" and the round
 * number are added, "m-3fa2c1-1", still unique), and the same seed gives the same ids in the
 * same order. Ids of different prefixes share the counter of the prefixed form, so they differ
 * in their digits too.
 *
 * The generator also remembers the ids each sender was seen to use (idgen_note) and never hands
 * one of those to the same sender. What it remembers is bounded: an id is forgotten keep_for
 * seconds (of the times the caller passes: message time, or the clock) after its last use, and
 * past max_ids ids (or max_ids senders) the least recently used are forgotten first. A sender
 * that is forgotten starts its counter again, so "unique within a run" holds for every sender
 * heard from at least once in every max_ids senders.
 *
 * Ids and senders are compared byte for byte; a sender of NULL is the sender with no name. A
 * sender's id longer than 64 bytes, and a sender's name, are remembered by their digest under a
 * key drawn for the run (keyform.h), so that what each holds is bounded. */
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

enum idgen_form {
    IDGEN_FORAGER,  /* "m-" and 6 hex digits */
    IDGEN_QUEEN,    /* "q-" and 8 hex digits */
    IDGEN_PREFIXED, /* the caller's prefix and 12 hex digits */
    IDGEN_FORMS,
};

/* Mixes text into the seed of the ids made from now on (the seed xor text's FNV-1a hash, the same
 * on every machine and in every run): for a caller that takes the seed from its input, and so
 * learns it only at the first message that needs a fresh id (acp-convert). */
void idgen_reseed(struct idgen *g, const char *text);

/* A fresh id for sender in the forager's form, which is noted as used at when. The text is valid
 * until the next call on g. */
const char *idgen_fresh(struct idgen *g, const char *sender, double when);

/* The same in the form given; prefix is used by IDGEN_PREFIXED only. */
const char *idgen_fresh_form(struct idgen *g, const char *sender, enum idgen_form form,
                             const char *prefix, double when);

/* The most bytes of a model's text a fresh id in its style keeps (idgen_fresh_like). */
enum { IDGEN_STEM_MAX = 64 };

/* A fresh id in the style of model: the queen's form for "q-" and hex digits, the forager's for
 * "m-" and 6 hex digits, else model's text up to its last "-" or "_" (all of it and a "-" when
 * it has neither; past IDGEN_STEM_MAX bytes, its first bytes up to IDGEN_STEM_MAX - 1, cut where a
 * character begins, and the "-" or "_") and 12 hex digits. */
const char *idgen_fresh_like(struct idgen *g, const char *sender, const char *model, double when);

/* A seed that differs from run to run (the system's random bytes, else the clocks and the pid),
 * for tools whose ids must be random per run unless --seed is given. */
unsigned long idgen_random_seed(void);

/* How many ids and senders it remembers now (for tests of the bound). */
size_t idgen_remembered_ids(const struct idgen *g);
size_t idgen_remembered_senders(const struct idgen *g);

#endif
