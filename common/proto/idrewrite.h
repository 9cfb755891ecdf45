/* Id rewriting for replays: a fresh id for every message, and every reference that named the old
 * one (ref, in_reply_to, conversation_id) rewritten to match, so that a looped replay trips no
 * duplicate-id check; and, for the live-agent mode, the ids an agent chose bound to the ids it
 * chose in the recording, so that later recorded messages that name them can be rewritten.
 *
 * Fresh ids keep the style of the id they replace: q- and 8 hex digits for the queen's q- ids,
 * m- and 6 hex digits for the foragers' m- ids, and any other id keeps its text up to its last
 * - or _ followed by 12 hex digits. They come from the toolkit's generator (idgen.h,
 * idgen_fresh_like), one counter per style for the whole run, so ids are unique within a run
 * (for 16,777,216 m- ids) and a seed reproduces them. The mapping is bounded: it keeps the
 * 100,000 ids used last, as the stream checks remember at most --max-open (100,000) ids. Two
 * recorded messages of one sender with one id get one fresh id, so that a duplicate stays a
 * duplicate, while the first id is among those kept; another sender's message with that id (an
 * IACP id is unique per sender) gets one of its own. */
#ifndef ACP_IDREWRITE_H
#define ACP_IDREWRITE_H

#include <jansson.h>

#include "proto/message.h"

struct idrewrite;

struct idrewrite *idrewrite_new(unsigned long seed);
void idrewrite_free(struct idrewrite *r);

/* Forgets every mapping (a new loop: the same recorded ids get new fresh ones); the generator
 * goes on, so no fresh id repeats. */
void idrewrite_forget(struct idrewrite *r);

/* From now on, references to the recorded id are rewritten to live. */
void idrewrite_bind(struct idrewrite *r, const char *recorded, const char *live);

/* The id that recorded stands for now, or NULL when there is none. */
const char *idrewrite_lookup(const struct idrewrite *r, const char *recorded);

/* Rewrites root's ids in place. With fresh, the message's own id (IACP id, FIPA reply_with) gets
 * a fresh one, unless an earlier reference or message already gave it one. References (IACP ref,
 * FIPA in_reply_to, conversation_id in both) take the id their value stands for; with fresh, a
 * value that stands for nothing yet gets a fresh id too, so that references to messages outside the
 * capture change between loops as well. Returns whether anything changed. */
bool idrewrite_message(struct idrewrite *r, json_t *root, enum protocol proto, bool fresh);

#endif
