/* FIPA interaction protocols over a stream. Every protocol is data: a table of transitions
 * (state x act x who sends -> next state, fipa_protocols.h) that each participant of a
 * conversation walks on its own. Conversations are keyed by conversation_id, or by the reply_with /
 * in_reply_to chain when there is none. A finished conversation shrinks to a tombstone (key,
 * initiator, protocol, last line) so that late messages and reused ids are recognised; tombstones
 * and idle conversations expire by message time, oldest first, a few per message. Message time is
 * the stream clock (streamclock.h), so that no single sender's clock, and no single timestamp,
 * moves it for the others. */
#include "engine/stream.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/duequeue.h"
#include "base/hashtab.h"
#include "base/keyform.h"
#include "base/list.h"
#include "base/streamclock.h"
#include "base/timeutil.h"
#include "base/util.h"
#include "diag/findings.h"
#include "engine/fipa_digest.h"
#include "engine/fipa_protocols.h"
#include "proto/dialect.h"
#include "proto/fipa.h"

#include "engine/fipa_stream_parts.h"

/* The name of an agent of the message (a receiver, a reply_to) as it is remembered (keyform.h:
 * name_form), in buf when it is long; NULL when it names none. */
static const char *agent_kept(const struct incoming *in, const struct jv *agent,
                              struct name_form_buf *buf)
{
    return name_form_of(in->secret, fipa_agent_name_jv(agent), buf);
}

/* A message's time as written (not as the stream clock reads it), NAN when it has none. */
static double written_time(const struct incoming *in)
{
    return in->digest->timed ? in->digest->stamped : NAN;
}

struct conversation *fs_oldest(const struct list *l)
{
    return LIST_ITEM(l->head, struct conversation, link);
}

void fs_free_parties(struct conversation *c)
{
    for (size_t i = 0; i < c->nparties; i++)
        free(c->parties[i].name);
    free(c->parties);
    c->parties = NULL;
    c->nparties = c->cap = c->open_parties = c->leader = 0;
}

void fs_relay_clear(struct relay *r)
{
    for (size_t i = 0; i < r->ntargets; i++)
        free(r->targets[i]);
    free(r->targets);
    free(r->answered);
    *r = (struct relay){0};
}

static struct rare *rare(struct conversation *c)
{
    if (!c->rare) {
        c->rare = xcalloc(1, sizeof *c->rare);
        c->rare->broadcast_reply_by = NAN;
    }
    return c->rare;
}

const char *fs_cancel_ref(const struct conversation *c)
{
    return c->rare ? c->rare->cancel_ref : NULL;
}

static const char *answer_to(const struct conversation *c)
{
    return c->rare ? c->rare->answer_to : NULL;
}

static void rare_free(struct rare *r)
{
    if (!r)
        return;
    free(r->answer_to);
    free(r->declared);
    free(r->cancel_ref);
    fs_relay_clear(&r->relay);
    free(r);
}

enum { REPLIES_LOCAL = 2 };

static uint32_t *reply_digests(struct conversation *c)
{
    return c->replies_cap > REPLIES_LOCAL ? c->replies.heap : c->replies.local;
}

void fs_forget_replies(struct conversation *c)
{
    if (c->replies_cap > REPLIES_LOCAL)
        free(c->replies.heap);
    c->replies.heap = NULL;
    c->nreplies = c->replies_cap = 0;
}

static void drop_alias(struct fipa_stream *s, struct alias *a)
{
    if (a->keyed)
        hashtab_remove(&s->aliases, &a->node);
    free(a);
}

/* The form an alias key is remembered by (keyform.h), in s->alias_digest when it is long. */
static const char *alias_form(struct fipa_stream *s, const char *alias, size_t *len)
{
    return key_form(&s->secret, alias, strlen(alias), &s->alias_digest, len);
}

/* The conversation an alias names, or NULL. */
static struct conversation *aliased(struct fipa_stream *s, const char *alias)
{
    size_t len;
    alias = alias_form(s, alias, &len);
    struct alias *a = HASH_ITEM(
        hashtab_find_hashed(&s->aliases, alias, hashtab_hash_len(alias, len)), struct alias, node);
    return a ? a->target : NULL;
}

/* Names c by alias, which a later conversation takes over from an earlier one: one lookup, and
 * the key hashed once. */
static void add_alias(struct fipa_stream *s, struct conversation *c, const char *alias)
{
    size_t len;
    alias = alias_form(s, alias, &len);
    for (size_t i = 0; i < c->naliases; i++)
        if (strcmp(c->aliases[i]->key, alias) == 0)
            return;
    if (c->naliases == ALIAS_MAX) {
        drop_alias(s, c->aliases[0]);
        memmove(c->aliases, c->aliases + 1, (ALIAS_MAX - 1) * sizeof *c->aliases);
        c->naliases--;
    }
    if (c->naliases == c->alias_cap) {
        c->alias_cap = c->alias_cap ? c->alias_cap * 2 : 4;
        c->aliases = xrealloc(c->aliases, c->alias_cap * sizeof *c->aliases);
    }
    size_t hash = hashtab_hash_len(alias, len);
    struct alias *before =
        HASH_ITEM(hashtab_find_hashed(&s->aliases, alias, hash), struct alias, node);
    if (before) {
        hashtab_remove(&s->aliases, &before->node);
        before->keyed = false;
    }
    struct alias *a = xmalloc(sizeof *a + len + 1);
    a->target = c;
    a->keyed = true;
    memcpy(a->key, alias, len + 1);
    hashtab_add_hashed(&s->aliases, &a->node, hash);
    c->aliases[c->naliases++] = a;
}

void fs_story_free(struct story *t)
{
    if (t)
        findings_free(t->findings);
    free(t);
}

/* The story of a conversation, begun with its opening act (or, when it was not begun at its
 * opening, with none known). */
static struct story *story_of(struct conversation *c, int act, double opened_at)
{
    if (!c->story) {
        c->story = xmalloc(sizeof *c->story);
        *c->story = (struct story){
            .opened_at = opened_at,
            .first_reply_at = NAN,
            .latest_reply_at = NAN,
            .opening_act = (int8_t)act,
            .first_act = FIPA_ACT_INVALID,
            .latest_act = FIPA_ACT_INVALID,
        };
    }
    return c->story;
}

/* Forgets a conversation entirely (it must already be out of its list). */
void fs_conversation_free(struct fipa_stream *s, struct conversation *c)
{
    if (s->blame == c)
        s->blame = NULL;
    due_queue_remove(&s->due, &c->due);
    if (c->keyed)
        hashtab_remove(&s->conversations, &c->node);
    for (size_t i = 0; i < c->naliases; i++)
        drop_alias(s, c->aliases[i]);
    free(c->aliases);
    fs_free_parties(c);
    fs_forget_replies(c);
    rare_free(c->rare);
    fs_story_free(c->story);
    free(c->key);
    free(c->initiator);
    free(c);
}

/* Its id as it is quoted: the whole id, or its first KEY_SHOWN_BYTES when it is longer. */
const char *fs_conversation_id(const struct conversation *c)
{
    return c->key + c->id_at;
}

/* An agent's name and a reply_with value it chose, as one key (the length makes it
 * unambiguous). */
static const char *agent_key(struct strbuf *sb, const char *agent, const char *value)
{
    size_t agent_len = strlen(agent);
    char digits[24], *end = digits + sizeof digits, *d = end;
    *--d = ':';
    do /* by hand: vsnprintf would cost more than the lookup */
        *--d = (char)('0' + agent_len % 10);
    while ((agent_len /= 10) != 0);
    sb_reset(sb);
    sb_add(sb, d, (size_t)(end - d));
    sb_adds(sb, agent);
    sb_adds(sb, value);
    return sb->buf;
}

static const char *conversation_key(const struct hash_node *node)
{
    return HASH_ITEM(node, struct conversation, node)->key;
}

static const char *alias_key(const struct hash_node *node)
{
    return HASH_ITEM(node, struct alias, node)->key;
}

/* The conversation keyed by s->key, whose remembered form is made and hashed here for the
 * conversation_alloc that may follow (every one follows a lookup of its key). */
static struct conversation *find_conversation(struct fipa_stream *s)
{
    s->key_form = key_form(&s->secret, s->key.buf, s->key.len, &s->key_digest, &s->key_form_len);
    s->key_hash = hashtab_hash_len(s->key_form, s->key_form_len);
    return HASH_ITEM(hashtab_find_hashed(&s->conversations, s->key_form, s->key_hash),
                     struct conversation, node);
}

/* A small digest for telling values apart, where a collision would cost a finding not made: 32
 * bits of SipHash-2-4 under the run's key (siphash.h), so that no input can choose two values
 * that collide; by chance two do with a probability of 2^-32. */
static uint32_t digest_of(const struct siphash_key *secret, const char *text)
{
    return (uint32_t)siphash64(secret, text, strlen(text));
}

/* Whether the conversation remembers a reply_with value whose digest is h. */
static bool digest_seen(struct conversation *c, uint32_t h)
{
    const uint32_t *digests = reply_digests(c);
    for (size_t i = 0; i < c->nreplies; i++)
        if (digests[i] == h)
            return true;
    return false;
}

static bool reply_seen(const struct siphash_key *secret, struct conversation *c,
                       const char *reply_with)
{
    return digest_seen(c, digest_of(secret, reply_with));
}

/* Returns whether the value is new to the conversation: not among those it remembers, while it
 * remembers them all. */
static bool remember_reply(const struct siphash_key *secret, struct conversation *c,
                           const char *reply_with)
{
    if (c->replies_forgotten)
        return false;
    uint32_t h = digest_of(secret, reply_with);
    if (digest_seen(c, h))
        return false;
    if (c->nreplies == REPLIES_MAX) {
        c->replies_forgotten = true;
        fs_forget_replies(c);
        return true;
    }
    if (c->nreplies == c->replies_cap && c->replies_cap == 0) {
        c->replies_cap = REPLIES_LOCAL;
    } else if (c->nreplies == c->replies_cap) {
        size_t cap = (size_t)c->replies_cap * 2;
        uint32_t *heap = xmalloc(cap * sizeof *heap);
        memcpy(heap, reply_digests(c), c->nreplies * sizeof *heap);
        if (c->replies_cap > REPLIES_LOCAL)
            free(c->replies.heap);
        c->replies.heap = heap;
        c->replies_cap = (uint8_t)cap;
    }
    reply_digests(c)[c->nreplies++] = h;
    return true;
}

/* Feeds len bytes of text to h, then zeros to the next multiple of 8, so that what comes next is
 * fed a word at a time (its length, fed before it, tells where it ends). */
static void add_padded(struct siphash64 *h, const char *text, size_t len)
{
    static const char zeros[8];
    siphash64_add(h, text, len);
    siphash64_add(h, zeros, (8 - len % 8) % 8);
}

/* A JSON value as written into h: strings byte for byte, numbers by value, members in their
 * order. A value's nodes follow one another in the view (jscan.h), so this is one pass over
 * them; each node's type and length go first, so that no two values give the same bytes. */
static void add_value(struct siphash64 *h, const struct jv *v)
{
    for (const struct jv *n = v, *end = v + v->size; n < end; n++) {
        uint64_t head[2] = {(uint64_t)n->type << 32 | n->len, 0};
        bool number = n->type == JV_INTEGER || n->type == JV_REAL;
        if (number)
            memcpy(&head[1], &n->u, sizeof head[1]);
        siphash64_add(h, head, number ? sizeof head : sizeof head[0]);
        if (n->type == JV_STRING)
            add_padded(h, n->u.s, n->len);
    }
}

/* What the copies of one opening message share (JADE's initiators address several receivers
 * with one copy each, every copy with its own reply_with): its act, its protocol member and its
 * content, as digest_of digests. Sender and conversation are the conversation's own. */
static uint32_t opening_digest(const struct incoming *in)
{
    struct siphash64 h;
    siphash64_begin(&h, in->secret);
    /* the act, then the protocol's length (all ones when it has none), then its text */
    size_t protocol_len = in->protocol ? strlen(in->protocol) : 0;
    uint64_t head[2] = {(uint64_t)in->act, in->protocol ? protocol_len : UINT64_MAX};
    siphash64_add(&h, head, sizeof head);
    if (in->protocol)
        add_padded(&h, in->protocol, protocol_len);
    const struct jv *content = jv_object_get(in->m->view, "content");
    if (content)
        add_value(&h, content);
    return (uint32_t)siphash64_end(&h);
}

/* A conversation keyed by s->key, opened by the message, in no list yet. */
static struct conversation *conversation_alloc(struct fipa_stream *s, const struct incoming *in)
{
    struct conversation *c = xcalloc(1, sizeof *c);
    if (s->key_form == s->key.buf) { /* kept as it is: the id is in it */
        c->key = xstrdup(s->key.buf);
        c->id_at = (uint8_t)s->key_id_at;
    } else {
        const char *id = s->key.buf + s->key_id_at;
        size_t id_len = key_shown_len(id, s->key.len - s->key_id_at);
        c->key = xmalloc(s->key_form_len + 1 + id_len + 1);
        memcpy(c->key, s->key_form, s->key_form_len + 1);
        memcpy(c->key + s->key_form_len + 1, id, id_len);
        c->key[s->key_form_len + 1 + id_len] = '\0';
        c->id_at = (uint8_t)(s->key_form_len + 1);
    }
    c->by_chain = s->key.buf[0] == 'r';
    c->initiator = xstrdup(in->sender);
    c->started = c->ended = c->active = NAN;
    c->first_file = in->m->at.file;
    c->first_line = in->m->at.line;
    if (s->done)
        story_of(c, in->act, written_time(in));
    c->foreign = s->sharded && c->by_chain &&
                 engine_shard_of(fs_qualified(s, s->key.buf), s->cfg->shards) != s->cfg->shard;
    /* A new run of a conversation takes its key over. */
    struct conversation *before = HASH_ITEM(
        hashtab_find_hashed(&s->conversations, c->key, s->key_hash), struct conversation, node);
    if (before) {
        hashtab_remove(&s->conversations, &before->node);
        before->keyed = false;
    }
    hashtab_add_new(&s->conversations, &c->node, s->key_hash);
    c->keyed = true;
    return c;
}

static struct conversation *conversation_new(struct fipa_stream *s, const struct incoming *in,
                                             enum fipa_protocol p, bool named)
{
    struct conversation *c = conversation_alloc(s, in);
    if (p == FP_BROKERING || p == FP_RECRUITING) {
        const struct jv *reply_to = jv_object_get(in->m->view, "reply_to");
        struct name_form_buf buf;
        const char *name =
            agent_kept(in, jv_is_array(reply_to) ? jv_array_get(reply_to, 0) : reply_to, &buf);
        if (name)
            rare(c)->answer_to = xstrdup(name);
    }
    c->protocol = p;
    c->protocol_named = named;
    c->opening = opening_digest(in);
    list_append(&s->open, &c->link);
    return c;
}

static bool is_contract_net(enum fipa_protocol p)
{
    return p == FP_CONTRACT_NET || p == FP_ITERATED_CONTRACT_NET;
}

/* Over when every addressed party is done, except after a broadcast that nobody took up: more
 * listeners may still answer it. */
static bool is_over(const struct conversation *c)
{
    if (c->nparties == 0 || c->open_parties)
        return false;
    if (c->broadcast_state == PS_NONE)
        return true;
    enum outcome o = fs_overall_outcome(c);
    return o != OUT_REFUSED && o != OUT_NOT_UNDERSTOOD;
}

static struct party *party_find(struct conversation *c, const char *name)
{
    for (size_t i = 0; i < c->nparties; i++)
        if (strcmp(c->parties[i].name, name) == 0)
            return &c->parties[i];
    return NULL;
}

/* Returns NULL when the conversation already follows PARTIES_MAX agents: from then on, agents
 * it does not know are not checked, since they may be among those it could not follow. */
static struct party *party_add(struct conversation *c, const char *name)
{
    if (c->nparties == PARTIES_MAX) {
        c->crowded = true;
        return NULL;
    }
    if (c->nparties == c->cap) {
        /* Most conversations have one party, many a handful: grow one by one at first. */
        c->cap = c->cap < 4 ? (uint16_t)(c->cap + 1) : (uint16_t)(c->cap * 2);
        c->parties = xrealloc(c->parties, c->cap * sizeof *c->parties);
    }
    struct party *p = &c->parties[c->nparties++];
    *p = (struct party){.name = xstrdup(name), .state = PS_NONE};
    p->reply_due = p->answer_due = NAN;
    return p;
}

/* In the auctions an accept-proposal marks the bid that leads (English) or wins the round
 * (Dutch). In an English auction the closing inform makes the leading bidder the winner,
 * whatever the state the later rounds left it in (called again, with nobody outbidding it), and
 * nobody else. */
static const struct transition *auction_step(struct conversation *c, const struct party *p,
                                             const struct transition *t)
{
    static const struct transition won = {PS_ACTIVE, BY_INITIATOR, FIPA_INFORM, PS_WON, OUT_NONE};
    static const struct transition outbid = {PS_ACTIVE, BY_INITIATOR, FIPA_INFORM, PS_ENDED,
                                             OUT_DONE};
    if (!fipa_protocol_is_auction(c->protocol) || t->by != BY_INITIATOR)
        return t;
    size_t index = (size_t)(p - c->parties) + 1;
    if (t->act == FIPA_ACCEPT_PROPOSAL) {
        if (!c->leader || c->protocol == FP_AUCTION_ENGLISH)
            c->leader =
                (uint16_t)index; /* a second winner in a Dutch round does not replace the first */
        return t;
    }
    if (c->protocol != FP_AUCTION_ENGLISH)
        return t;
    bool leads = c->leader == index;
    if (t->act == FIPA_INFORM && t->to == PS_ENDED && leads)
        return &won;
    if (t->act == FIPA_INFORM && t->to == PS_WON && !leads)
        return &outbid;
    return t;
}

static void party_enter(struct conversation *c, struct party *p, const struct transition *t,
                        const struct message *m)
{
    t = auction_step(c, p, t);
    if (p->state == PS_NONE)
        c->open_parties++;
    if (t->to == PS_CANCELLING && p->state != PS_CANCELLING)
        p->before_cancel = p->state;
    if (t->to == PS_CANCELLING)
        p->cancel_heard = false;
    p->state = t->to == PS_RESUME ? p->before_cancel : t->to;
    if (p->state == PS_ENDED) {
        p->outcome = t->outcome;
        c->open_parties--;
    }
    p->file = m->at.file;
    p->line = m->at.line;
}

static bool is_broadcast(const char *name)
{
    return strncasecmp(name, "broadcast://", 12) == 0;
}

/* A receiver member that names somebody: SC00061 lets a message have none, or an empty set. */
static bool has_receiver(const struct jv *receiver)
{
    return receiver && !(jv_is_array(receiver) && jv_array_size(receiver) == 0);
}

/* Lists what the protocol allows in a state: "agree, refuse from bob; cancel from alice". */
static const char *expected_acts(struct fipa_stream *s, const struct conversation *c,
                                 enum party_state state, const char *party)
{
    struct strbuf *sb = &s->scratch;
    sb_reset(sb);
    sb_adds(sb, "");
    static const enum sender_role roles[] = {BY_PARTICIPANT, BY_INITIATOR};
    for (size_t r = 0; r < 2; r++) {
        size_t before = sb->len;
        for (int act = 0; act < FIPA_ACT_COUNT; act++)
            if (fipa_transition_find(c->protocol, state, roles[r], act)) {
                sb_adds(sb, sb->len == before ? (before ? "; " : "") : ", ");
                sb_adds(sb, fipa_act_name((enum fipa_act)act, SPELL_KEBAB));
            }
        if (sb->len != before) {
            sb_adds(sb, " from ");
            sb_adds(sb, roles[r] == BY_PARTICIPANT ? party : c->initiator);
        }
    }
    if (sb->len == 0)
        sb_adds(sb, "nothing");
    return sb->buf;
}

/* The acts that open a protocol: "query-if, query-ref". */
static const char *opening_acts(struct fipa_stream *s, enum fipa_protocol p)
{
    struct strbuf *sb = &s->scratch;
    sb_reset(sb);
    sb_adds(sb, "");
    for (int act = 0; act < FIPA_ACT_COUNT; act++)
        if (fipa_protocol_opens(p, (enum fipa_act)act)) {
            sb_adds(sb, sb->len ? " or " : "");
            sb_adds(sb, fipa_act_name((enum fipa_act)act, SPELL_KEBAB));
        }
    return sb->buf;
}

/* In contract net a reject-proposal ends the bidder's part: an accept-proposal or an inform
 * between the initiator and that bidder afterwards means the two disagree on who holds the task
 * (as IACP's iacp-reply-after-reject). Returns whether it reported one. */
static bool after_reject(const struct conversation *c, const struct party *p,
                         const struct incoming *in, struct diag_sink *sink)
{
    if (!p || p->state != PS_ENDED || p->outcome != OUT_REJECTED || !is_contract_net(c->protocol) ||
        (in->act != FIPA_ACCEPT_PROPOSAL && in->act != FIPA_INFORM))
        return false;
    struct diag_where at = fs_related_to(in->m, p->file, p->line);
    bool to_bidder = strcmp(in->sender, p->name) != 0;
    diag_emit(sink, &at, "fipa-after-reject",
              "%s %s %s, whose proposal was rejected, in conversation '%s'",
              fipa_act_name(in->act, SPELL_KEBAB), to_bidder ? "to" : "from", p->name,
              fs_conversation_id(c));
    return true;
}

static void unexpected(struct fipa_stream *s, struct conversation *c, const struct party *p,
                       const struct incoming *in, struct diag_sink *sink)
{
    if (after_reject(c, p, in, sink))
        return;
    struct diag_where at = fs_related_to(in->m, p->file, p->line);
    if (p->state == PS_ENDED) {
        diag_emit(sink, &at, "fipa-after-end", "%s after %s's part of conversation '%s' ended (%s)",
                  fipa_act_name(in->act, SPELL_KEBAB), p->name, fs_conversation_id(c),
                  fipa_outcome_name(p->outcome));
        return;
    }
    const char *expected = expected_acts(s, c, p->state, p->name);
    diag_emit(sink, &at, "fipa-unexpected-act",
              "%s from %s is not allowed in %s when %s is %s; expected %s",
              fipa_act_name(in->act, SPELL_KEBAB), in->sender, fipa_protocol_name(c->protocol),
              p->name, fipa_party_state_name(p->state), expected);
}

/* The first message after a reply_by answers it (the party's file and line name the message that
 * set it): reported when it came later than the deadline by more than --max-skew. The deadline
 * is spent either way. Returns whether it was late. */
static bool check_late(const struct fipa_stream *s, const struct conversation *c,
                       const struct party *p, double *due, const struct incoming *in,
                       struct diag_sink *sink)
{
    double deadline = *due;
    *due = NAN;
    if (isnan(deadline) || isnan(in->time) || in->time <= deadline + s->cfg->max_skew)
        return false;
    struct diag_where at = fs_related_to(in->m, p->file, p->line);
    long long seconds = fs_whole_seconds(in->time - deadline);
    /* A participant's propose answers a cfp: contract net and the auctions. */
    if (in->act == FIPA_PROPOSE && strcmp(in->sender, c->initiator) != 0)
        diag_emit(sink, &at, "fipa-late-proposal",
                  "proposal from %s arrived %lld s after the cfp's reply_by", in->sender, seconds);
    else
        diag_emit(sink, &at, "fipa-late-reply",
                  "%s from %s arrived %lld s after the reply_by of the message it answers",
                  fipa_act_name(in->act, SPELL_KEBAB), in->sender, seconds);
    return true;
}

static bool accepts_proposals(enum fipa_protocol p)
{
    return is_contract_net(p) || p == FP_AUCTION_ENGLISH || p == FP_AUCTION_DUTCH;
}

/* Only a bidder that proposed can be accepted; one that refused or was never asked cannot. */
static bool accept_without_proposal(const struct conversation *c, const struct party *p,
                                    const char *name, const struct incoming *in,
                                    struct diag_sink *sink)
{
    if (in->act != FIPA_ACCEPT_PROPOSAL || !accepts_proposals(c->protocol))
        return false;
    const char *why;
    if (!p)
        why = "was never asked";
    else if (p->state == PS_ENDED && p->outcome == OUT_REFUSED)
        why = "refused";
    else if (p->state == PS_ASKED || p->state == PS_CALLED || p->state == PS_INFORMED)
        why = "has not proposed";
    else
        return false;
    struct diag_where at = p ? fs_related_to(in->m, p->file, p->line)
                             : fs_related_to(in->m, c->first_file, c->first_line);
    diag_emit(sink, &at, "fipa-accept-no-proposal",
              "accept-proposal to %s, who %s in conversation '%s'", name, why,
              fs_conversation_id(c));
    return true;
}

/* In a Dutch auction the first bid accepted in a round wins it: a second accept-proposal in the
 * same round sells the same item twice. It is reported, and followed as sent. */
static void second_accept(const struct conversation *c, const struct party *p, const char *name,
                          const struct incoming *in, struct diag_sink *sink)
{
    if (c->protocol != FP_AUCTION_DUTCH || in->act != FIPA_ACCEPT_PROPOSAL || !c->leader)
        return;
    const struct party *winner = &c->parties[c->leader - 1];
    if (winner == p)
        return;
    struct diag_where at = fs_related_to(in->m, winner->file, winner->line);
    diag_emit(sink, &at, "fipa-auction-second-accept",
              "accept-proposal to %s, but %s's bid already won this round of auction '%s'", name,
              winner->name, fs_conversation_id(c));
}

/* What the initiator's act does to one party: it answers the party's reply_by, may accept a
 * proposal that came late, moves the party, and may set a deadline for it. */
static void initiator_reaches(struct fipa_stream *s, struct conversation *c, struct party *p,
                              const struct transition *t, const struct incoming *in,
                              struct diag_sink *sink)
{
    check_late(s, c, p, &p->answer_due, in, sink);
    if (in->act == FIPA_ACCEPT_PROPOSAL && p->late) {
        struct diag_where at = fs_related_to(in->m, p->file, p->line);
        diag_emit(sink, &at, "fipa-late-accept",
                  "accept-proposal to %s, whose proposal came after the reply_by, in conversation "
                  "'%s'",
                  p->name, fs_conversation_id(c));
    }
    party_enter(c, p, t, in->m);
    fs_set_due(s, c, &p->reply_due, &p->reply_told, in->reply_by);
}

/* The initiator's act reaches one named receiver. */
static void initiator_to(struct fipa_stream *s, struct conversation *c, const char *name,
                         const struct incoming *in, struct diag_sink *sink)
{
    if (strcmp(name, c->initiator) == 0)
        return;
    struct party *p = party_find(c, name);
    enum party_state state = p ? p->state : PS_NONE;
    const struct transition *t = fipa_transition_find(c->protocol, state, BY_INITIATOR, in->act);
    /* A cfp to a bidder that proposed starts the next round: the run is iterated. */
    if (!t && c->protocol == FP_CONTRACT_NET && !c->protocol_named && in->act == FIPA_CFP &&
        state == PS_PROPOSED) {
        c->protocol = FP_ITERATED_CONTRACT_NET;
        t = fipa_transition_find(c->protocol, state, BY_INITIATOR, in->act);
    }
    if (t) {
        second_accept(c, p, name, in, sink);
        if (!p && !(p = party_add(c, name)))
            return;
        initiator_reaches(s, c, p, t, in, sink);
        return;
    }
    if (accept_without_proposal(c, p, name, in, sink))
        return;
    if (p) {
        unexpected(s, c, p, in, sink);
        return;
    }
    struct diag_where at = fs_related_to(in->m, c->first_file, c->first_line);
    diag_emit(sink, &at, "fipa-unexpected-act",
              "%s to %s, who is not part of %s conversation '%s'; expected %s",
              fipa_act_name(in->act, SPELL_KEBAB), name, fipa_protocol_name(c->protocol),
              fs_conversation_id(c), expected_acts(s, c, PS_NONE, name));
}

/* The initiator's act to a broadcast address reaches every party it applies to, and every
 * listener that answers later. */
static void initiator_to_all(struct fipa_stream *s, struct conversation *c,
                             const struct incoming *in, struct diag_sink *sink)
{
    bool applied = false;
    for (size_t i = 0; i < c->nparties; i++) {
        struct party *p = &c->parties[i];
        const struct transition *t =
            fipa_transition_find(c->protocol, p->state, BY_INITIATOR, in->act);
        if (t) {
            initiator_reaches(s, c, p, t, in, sink);
            applied = true;
        }
    }
    const struct transition *t = fipa_transition_find(c->protocol, PS_NONE, BY_INITIATOR, in->act);
    if (t) {
        c->broadcast_state = t->to;
        struct rare *r = rare(c);
        r->broadcast_file = in->m->at.file;
        r->broadcast_line = in->m->at.line;
        r->broadcast_reply_by = in->reply_by;
        applied = true;
    }
    if (!applied) {
        struct diag_where at = fs_related_to(in->m, c->last_file, c->last_line);
        diag_emit(sink, &at, "fipa-unexpected-act",
                  "broadcast %s applies to no participant of %s conversation '%s'",
                  fipa_act_name(in->act, SPELL_KEBAB), fipa_protocol_name(c->protocol),
                  fs_conversation_id(c));
    }
}

/* A message the protocol needs a sender or a receiver in, without one (the standard profile
 * allows that): the conversation cannot tell who acts or who is asked. */
static void cannot_follow(const struct conversation *c, const struct incoming *in,
                          const char *member, struct diag_sink *sink)
{
    struct diag_where at = fs_related_to(in->m, c->last_file, c->last_line);
    diag_emit(sink, &at, "fipa-cannot-follow",
              "%s has no %s: %s conversation '%s' cannot follow it",
              fipa_act_name(in->act, SPELL_KEBAB), member, fipa_protocol_name(c->protocol),
              fs_conversation_id(c));
}

/* own_reply_with: the message's reply_with when no earlier message of the conversation had it,
 * else NULL. A cancel is named by its answer only through a reply_with of its own: JADE's
 * cancel(r, false) carries the subscribe's, which every notification names. */
static void from_initiator(struct fipa_stream *s, struct conversation *c, const struct incoming *in,
                           const char *own_reply_with, struct diag_sink *sink)
{
    if (!has_receiver(in->receiver)) {
        cannot_follow(c, in, "receiver", sink);
        return;
    }
    if (in->act == FIPA_CANCEL) {
        c->cancelled = true;
        struct rare *r = rare(c);
        free(r->cancel_ref);
        struct name_form_buf buf;
        r->cancel_ref =
            own_reply_with ? xstrdup(name_form_of(&s->secret, own_reply_with, &buf)) : NULL;
    }
    if (in->act == FIPA_CFP && c->protocol == FP_AUCTION_DUTCH)
        c->leader = 0; /* a new round */
    const struct jv *r = in->receiver;
    for (const struct jv *a = dialect_agents_first(r); a; a = dialect_agents_next(r, a)) {
        struct name_form_buf buf;
        const char *name = agent_kept(in, a, &buf);
        if (!name)
            continue;
        if (is_broadcast(name))
            initiator_to_all(s, c, in, sink);
        else
            initiator_to(s, c, name, in, sink);
    }
}

static bool addresses(const struct incoming *in, const char *name)
{
    const struct jv *receiver = in->receiver;
    if (!has_receiver(receiver))
        return false;
    for (const struct jv *a = dialect_agents_first(receiver); a;
         a = dialect_agents_next(receiver, a)) {
        struct name_form_buf buf;
        const char *r = agent_kept(in, a, &buf);
        if (r && strcmp(r, name) == 0)
            return true;
    }
    return false;
}

static bool is_brokered(const struct conversation *c)
{
    return c->protocol == FP_BROKERING || c->protocol == FP_RECRUITING;
}

/* Whether a message goes to the initiator, or to the agent the proxy's reply_to named. */
static bool to_initiator(const struct conversation *c, const struct incoming *in)
{
    return addresses(in, c->initiator) || (answer_to(c) && addresses(in, answer_to(c)));
}

static const size_t NO_TARGET = SIZE_MAX;

static size_t target_find(const struct relay *r, const char *name)
{
    for (size_t i = 0; r && i < r->ntargets; i++)
        if (strcmp(r->targets[i], name) == 0)
            return i;
    return NO_TARGET;
}

static void target_add(struct conversation *c, const char *name)
{
    struct relay *r = &rare(c)->relay;
    if (target_find(r, name) != NO_TARGET || r->ntargets == PARTIES_MAX)
        return;
    if (r->ntargets == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 2;
        r->targets = xrealloc(r->targets, r->cap * sizeof *r->targets);
        r->answered = xrealloc(r->answered, r->cap * sizeof *r->answered);
    }
    r->targets[r->ntargets] = xstrdup(name);
    r->answered[r->ntargets++] = false;
}

static bool has_targets(const struct conversation *c)
{
    return c->rare && c->rare->relay.ntargets;
}

/* Ends the broker's part once every target has answered or been answered for. */
static void relay_settle(struct conversation *c, const struct message *m)
{
    struct relay *r = &c->rare->relay;
    size_t accounted = r->nanswered > r->nrelayed ? r->nanswered : r->nrelayed;
    if (accounted < r->ntargets)
        return;
    const struct transition done = {PS_RELAYING, BY_PARTICIPANT, FIPA_INFORM, PS_ENDED,
                                    r->outcome ? r->outcome : OUT_DONE};
    for (size_t i = 0; i < c->nparties; i++)
        if (c->parties[i].state == PS_RELAYING)
            party_enter(c, &c->parties[i], &done, m);
}

static void relay_count(struct conversation *c, enum fipa_act act)
{
    if (act == FIPA_INFORM)
        c->rare->relay.outcome = OUT_DONE;
    else if (c->rare->relay.outcome == OUT_NONE)
        c->rare->relay.outcome = OUT_FAILED;
}

/* A target's answer, to the broker or (recruiting) to the initiator. Returns false when the
 * sender is no target. */
static bool target_answered(struct conversation *c, const struct incoming *in)
{
    if (!has_targets(c))
        return false;
    struct relay *r = &c->rare->relay;
    size_t i = target_find(r, in->sender);
    if (i == NO_TARGET)
        return false;
    if (in->act != FIPA_INFORM && in->act != FIPA_FAILURE && in->act != FIPA_REFUSE &&
        in->act != FIPA_NOT_UNDERSTOOD)
        return true;
    if (!r->answered[i]) {
        r->answered[i] = true;
        r->nanswered++;
    }
    relay_count(c, in->act);
    relay_settle(c, in->m);
    return true;
}

/* The broker's own exchanges with the targets are not the initiator's business, except that
 * its forwards name the targets and their answers count. */
static void broker_exchange(struct conversation *c, const struct incoming *in)
{
    const struct party *p = party_find(c, in->sender);
    if (!p || p->state == PS_NONE || p->state == PS_ENDED) {
        target_answered(c, in);
        return;
    }
    const struct jv *r = in->receiver;
    for (const struct jv *a = dialect_agents_first(r); a; a = dialect_agents_next(r, a)) {
        struct name_form_buf buf;
        const char *name = agent_kept(in, a, &buf);
        if (name && strcmp(name, c->initiator) != 0) {
            target_add(c, name);
            c->forwarded = true;
        }
    }
}

/* A reply the broker relays while its targets are known: one more target answered for. */
static bool relayed_answer(struct conversation *c, const struct party *p, const struct incoming *in)
{
    if (p->state != PS_RELAYING || !has_targets(c) ||
        (in->act != FIPA_INFORM && in->act != FIPA_FAILURE))
        return false;
    c->rare->relay.nrelayed++;
    relay_count(c, in->act);
    relay_settle(c, in->m);
    return true;
}

/* In recruiting, the targets answer the initiator directly although it never addressed them:
 * with the targets known, each of them; otherwise the first answer ends the recruiter's part. */
static bool recruited_reply(struct conversation *c, const struct incoming *in)
{
    if (c->protocol != FP_RECRUITING || (in->act != FIPA_INFORM && in->act != FIPA_FAILURE))
        return false;
    if (has_targets(c))
        return target_answered(c, in);
    for (size_t i = 0; i < c->nparties; i++) {
        struct party *p = &c->parties[i];
        if (p->state == PS_RELAYING) {
            static const struct transition relayed = {PS_RELAYING, BY_PARTICIPANT, FIPA_INFORM,
                                                      PS_ENDED, OUT_DONE};
            c->forwarded = true;
            party_enter(c, p, &relayed, in->m);
            return true;
        }
    }
    return false;
}

/* The step a participant's message takes from a state: a partial result where the protocol
 * knows them, else its act. */
static const struct transition *participant_step(const struct conversation *c,
                                                 enum party_state state, const struct incoming *in)
{
    const struct transition *t =
        in->partial ? fipa_transition_find(c->protocol, state, BY_PARTICIPANT, ACT_PARTIAL_INFORM)
                    : NULL;
    return t ? t : fipa_transition_find(c->protocol, state, BY_PARTICIPANT, in->act);
}

/* While a cancel is pending, what the participant sends is the answer to the cancel or a
 * message it sent before the cancel reached it (it crossed the cancel), judged by the state the
 * cancel interrupted. Returns the crossing step, or NULL for the answer. Only a message that names
 * the cancel's own reply_with is surely the answer. Any other notification, or partial result,
 * that fits is a crossing one, however many come: a subscription may notify dozens of times
 * before it reads the cancel, and where nothing can name the cancel (JADE's carries no reply_with
 * of its own) its answer is one of them, which is why such a part ends as cancelled only when
 * the conversation is handed over (settle_cancels). A final answer crosses when it names an
 * earlier message; without in_reply_to it is read as the answer. */
static const struct transition *crossing(const struct conversation *c, const struct party *p,
                                         const struct incoming *in)
{
    if (p->state != PS_CANCELLING)
        return NULL;
    const char *in_reply_to = in->in_reply_to;
    const char *cancel = fs_cancel_ref(c);
    if (cancel && in_reply_to && strcmp(in_reply_to, cancel) == 0)
        return NULL;
    const struct transition *t = participant_step(c, p->before_cancel, in);
    if (!t || t->to != PS_ENDED || in->partial)
        return t;
    return in_reply_to ? t : NULL;
}

/* A crossing message: a notification leaves the cancel pending; a final answer ends the part,
 * and the answer to the cancel is then no longer due (it may still come). */
static void crossed(struct conversation *c, struct party *p, const struct transition *t,
                    const struct incoming *in, struct diag_sink *sink)
{
    if (!fs_cancel_ref(c))
        p->cancel_heard = true;
    if (t->to != PS_ENDED) {
        if (t->to != PS_RESUME)
            p->before_cancel = t->to;
        return;
    }
    if (!fs_cancel_ref(c)) {
        struct diag_where at = fs_related_to(in->m, p->file, p->line);
        diag_emit(sink, &at, "fipa-cancel-crossed",
                  "%s from %s names an earlier message, not the cancel, which has no reply_with: "
                  "read as the final answer, sent before the cancel arrived",
                  fipa_act_name(in->act, SPELL_KEBAB), in->sender);
    }
    party_enter(c, p, t, in->m);
    p->cancel_answer_open = true;
}

/* The answer to a cancel that a final answer crossed: it names the cancel (or nothing, when the
 * cancel had no reply_with). */
static bool answers_crossed_cancel(const char *cancel_ref, const struct incoming *in)
{
    if (in->act != FIPA_INFORM && in->act != FIPA_FAILURE && in->act != FIPA_NOT_UNDERSTOOD)
        return false;
    const char *in_reply_to = in->in_reply_to;
    return cancel_ref ? in_reply_to && strcmp(in->in_reply_to_kept, cancel_ref) == 0 : !in_reply_to;
}

/* The party a participant's message comes from: one addressed, or a listener of a broadcast. */
static struct party *sender_party(struct conversation *c, const struct incoming *in)
{
    struct party *p = party_find(c, in->sender);
    if (p || c->broadcast_state == PS_NONE || !(p = party_add(c, in->sender)))
        return p;
    p->state = c->broadcast_state;
    p->file = c->rare->broadcast_file;
    p->line = c->rare->broadcast_line;
    p->reply_due = c->rare->broadcast_reply_by;
    c->open_parties++;
    return p;
}

static void from_participant(struct fipa_stream *s, struct conversation *c,
                             const struct incoming *in, struct diag_sink *sink)
{
    if (is_brokered(c) && !has_receiver(in->receiver)) {
        cannot_follow(c, in, "receiver", sink);
        return;
    }
    if (is_brokered(c) && !to_initiator(c, in)) {
        broker_exchange(c, in);
        return;
    }
    struct party *p = sender_party(c, in);
    if (!p) {
        if (recruited_reply(c, in) || c->crowded)
            return;
        struct diag_where at = fs_related_to(in->m, c->first_file, c->first_line);
        diag_emit(sink, &at, "fipa-not-addressed",
                  "%s from %s, whom %s conversation '%s' never addressed",
                  fipa_act_name(in->act, SPELL_KEBAB), in->sender, fipa_protocol_name(c->protocol),
                  fs_conversation_id(c));
        return;
    }
    if (p->state == PS_ENDED && p->cancel_answer_open &&
        answers_crossed_cancel(fs_cancel_ref(c), in)) {
        p->cancel_answer_open = false;
        return;
    }
    bool late = check_late(s, c, p, &p->reply_due, in, sink);
    fs_set_due(s, c, &p->answer_due, &p->answer_told, in->reply_by);
    const struct transition *t = crossing(c, p, in);
    if (t) {
        crossed(c, p, t, in, sink);
        return;
    }
    if (!(t = participant_step(c, p->state, in))) {
        unexpected(s, c, p, in, sink);
        return;
    }
    if (in->act == FIPA_PROPOSE)
        p->late = late;
    if (p->state == PS_ASKED && in->act == FIPA_FAILURE && is_contract_net(c->protocol)) {
        struct diag_where at = fs_related_to(in->m, p->file, p->line);
        diag_emit(sink, &at, "fipa-cfp-failure",
                  "failure from %s answers a cfp in conversation '%s'; contract net expects "
                  "propose or refuse",
                  in->sender, fs_conversation_id(c));
    }
    if (!relayed_answer(c, p, in))
        party_enter(c, p, t, in->m);
}

static void touch(struct fipa_stream *s, struct conversation *c, const struct incoming *in)
{
    c->messages++;
    c->last_file = in->m->at.file;
    c->last_line = in->m->at.line;
    c->last_seq = s->seq;
    c->active = s->now;
    if (!isnan(in->time)) {
        if (isnan(c->started))
            c->started = in->time;
        c->ended = in->time;
    }
}

/* An open conversation had a message: counted, and the most recently active now. */
static void touch_open(struct fipa_stream *s, struct conversation *c, const struct incoming *in)
{
    touch(s, c, in);
    list_remove(&s->open, &c->link);
    list_append(&s->open, &c->link);
}

/* A reply whose in_reply_to names none of the messages its conversation has seen: reported,
 * and true. An initiator waits for the answer to what it sent by its reply_with (JADE's
 * protocol initiators match in_reply_to, and drop what they did not ask for), so such an answer
 * moves nothing in the protocol: the conversation goes on without it. */
static bool reply_unknown(struct conversation *c, const struct incoming *in, struct diag_sink *sink)
{
    const char *in_reply_to = in->in_reply_to;
    if (!in_reply_to || c->messages == 0 || c->replies_forgotten ||
        reply_seen(in->secret, c, in_reply_to))
        return false;
    struct diag_where at = fs_related_to(in->m, c->first_file, c->first_line);
    diag_emit(sink, &at, "fipa-reply-unknown",
              "in_reply_to '%s' names no message of conversation '%s'%s", in_reply_to,
              fs_conversation_id(c),
              strcmp(in->sender, c->initiator) == 0 ? "" : ": its initiator does not take it");
    return true;
}

/* A participant's message, for the latencies of the summary. */
static void note_reply(const struct fipa_stream *s, struct conversation *c,
                       const struct incoming *in)
{
    if (!s->done)
        return;
    const struct party *p = party_find(c, in->sender);
    uint16_t index = p ? (uint16_t)(p - c->parties + 1) : 0;
    double at = written_time(in);
    struct story *t = story_of(c, FIPA_ACT_INVALID, NAN);
    if (t->first_act == FIPA_ACT_INVALID) {
        t->first_act = (int8_t)in->act;
        t->first_replier = index;
        t->first_reply_at = at;
    } else {
        t->replied_again = true;
    }
    t->latest_act = (int8_t)in->act;
    t->latest_replier = index;
    t->latest_reply_at = at;
}

static void follow(struct fipa_stream *s, struct conversation *c, const struct incoming *in,
                   struct diag_sink *sink)
{
    bool unknown = reply_unknown(c, in, sink);
    const char *reply_with = in->reply_with;
    bool own = reply_with && remember_reply(in->secret, c, reply_with);
    if (strcmp(in->sender, c->initiator) == 0) {
        from_initiator(s, c, in, own ? reply_with : NULL, sink);
    } else if (!unknown) {
        from_participant(s, c, in, sink);
        note_reply(s, c, in);
    }
    touch_open(s, c, in);
    if (is_over(c))
        fs_finish(s, c);
}

/* A relayed reply after the broker's part ended is fine when the targets were many (each answers
 * for itself, with inform or failure) or when the first one ended it well. */
static bool late_relay(const struct conversation *c, const struct incoming *in)
{
    return is_brokered(c) && (c->outcome == OUT_DONE || c->forwarded) &&
           (in->act == FIPA_INFORM || in->act == FIPA_FAILURE) && strcmp(in->sender, c->initiator);
}

/* The participant a message after the end is between the initiator and: its sender, or the
 * first receiver the conversation knows. Only a held conversation still knows its parties. */
static struct party *party_involved(struct conversation *c, const struct incoming *in)
{
    if (!c->held)
        return NULL;
    if (strcmp(in->sender, c->initiator) != 0)
        return party_find(c, in->sender);
    if (!has_receiver(in->receiver))
        return NULL;
    const struct jv *r = in->receiver;
    struct party *p = NULL;
    for (const struct jv *a = dialect_agents_first(r); a && !p; a = dialect_agents_next(r, a)) {
        struct name_form_buf buf;
        const char *name = agent_kept(in, a, &buf);
        p = name ? party_find(c, name) : NULL;
    }
    return p;
}

/* The late answer to a cancel that a final answer crossed, still accepted once. */
static bool answers_cancel_late(struct conversation *c, struct party *p, const struct incoming *in)
{
    if (strcmp(in->sender, c->initiator) == 0 || !answers_crossed_cancel(fs_cancel_ref(c), in))
        return false;
    if (c->held) {
        if (!p || !p->cancel_answer_open)
            return false;
        p->cancel_answer_open = false;
        return true;
    }
    if (!c->cancel_answers_open)
        return false;
    c->cancel_answers_open--;
    return true;
}

/* A message in a conversation that ended: held (its summary still to come) or a tombstone. */
static void after_end(struct conversation *c, const struct incoming *in, struct diag_sink *sink)
{
    bool broker_own = is_brokered(c) && strcmp(in->sender, c->initiator) != 0 &&
                      has_receiver(in->receiver) && !to_initiator(c, in);
    struct party *p = party_involved(c, in);
    if (broker_own || answers_cancel_late(c, p, in) || late_relay(c, in)) {
        if (c->finished)
            c->messages++;
        return;
    }
    if (after_reject(c, p, in, sink))
        return;
    struct diag_where at = p ? fs_related_to(in->m, p->file, p->line)
                             : fs_related_to(in->m, c->last_file, c->last_line);
    diag_emit(sink, &at, "fipa-after-end", "%s after %s conversation '%s' ended (%s)",
              fipa_act_name(in->act, SPELL_KEBAB), fipa_protocol_name(c->protocol),
              fs_conversation_id(c), fipa_outcome_name(c->outcome));
}

/* A message after a held conversation's end lands in it: its summary counts it. Its wait still
 * counts from the end. */
static void land(struct conversation *c, const struct incoming *in)
{
    c->messages++;
    c->last_file = in->m->at.file;
    c->last_line = in->m->at.line;
    if (!isnan(in->time)) {
        if (isnan(c->started))
            c->started = in->time;
        c->ended = in->time;
    }
}

static void reused(struct fipa_stream *s, struct conversation *c, const struct incoming *in,
                   enum fipa_protocol p, struct diag_sink *sink)
{
    struct diag_where at = fs_related_to(in->m, c->first_file, c->first_line);
    bool ended = c->finished || c->held;
    diag_emit(sink, &at, "fipa-conversation-reused",
              "%s opens a new %s run in conversation '%s', which %s (%s)",
              fipa_act_name(in->act, SPELL_KEBAB), fipa_protocol_name(p), fs_conversation_id(c),
              ended ? "already ended" : "is still open",
              ended ? fipa_outcome_name(c->outcome) : fipa_protocol_name(c->protocol));
    if (c->held)
        fs_release(s, c); /* its summary first, then the new run's */
    if (c->finished) {
        list_remove(&s->tombstones, &c->link);
        fs_conversation_free(s, c);
    } else {
        fs_abandon(s, c, "reused");
    }
}

/* The protocol the message would open, from its protocol member or its act; FP_NONE if none. */
static enum fipa_protocol would_open(const struct incoming *in, bool *named)
{
    *named = in->protocol != NULL;
    /* Guessed from the act, only a message that answers nothing opens: a propose answering a
     * cfp nobody saw is contract net met midway, not a new fipa-propose. */
    if (!in->protocol)
        return in->in_reply_to ? FP_NONE : fipa_protocol_inferred(in->act);
    enum fipa_protocol p = in->declared;
    return p != FP_NONE && fipa_protocol_opens(p, in->act) ? p : FP_NONE;
}

/* The conversation of the message a reply answers: the reply goes to the agent that chose the
 * in_reply_to value (or to one its reply_to named); failing that, an agent may name its own
 * earlier message (the opening cfp, when the proposals carried no reply_with). */
static struct conversation *answered(struct fipa_stream *s, const struct incoming *in,
                                     const char *in_reply_to)
{
    const struct jv *receiver = in->receiver;
    const struct jv *a = has_receiver(receiver) ? dialect_agents_first(receiver) : NULL;
    for (; a; a = dialect_agents_next(receiver, a)) {
        const char *name = fipa_agent_name_jv(a);
        struct conversation *c = name ? aliased(s, agent_key(&s->alias, name, in_reply_to)) : NULL;
        if (c)
            return c;
    }
    return aliased(s, agent_key(&s->alias, in->sender_text, in_reply_to));
}

/* Looks the conversation up by id, or by the chain of replies; *key gets the key a new
 * conversation would have (empty when the message cannot start one). */
static struct conversation *lookup(struct fipa_stream *s, const struct incoming *in,
                                   struct strbuf *key)
{
    const char *id = in->conversation_id;
    sb_reset(key);
    sb_adds(key, "");
    s->key_id_at = 1;
    if (id) {
        sb_addc(key, 'c');
        sb_adds(key, id);
        return find_conversation(s);
    }
    const char *in_reply_to = in->in_reply_to;
    struct conversation *c = in_reply_to ? answered(s, in, in_reply_to) : NULL;
    if (c)
        return c;
    const char *reply_with = in->reply_with;
    if (!reply_with)
        return NULL;
    sb_addc(key, 'r');
    sb_adds(key, agent_key(&s->alias, in->sender_text, reply_with));
    s->key_id_at = key->len - strlen(reply_with);
    return find_conversation(s);
}

/* Remembers a message's reply_with for the chain, under every agent a reply may go to: its
 * sender, and those its reply_to names. */
static void add_aliases(struct fipa_stream *s, struct conversation *c, const struct incoming *in)
{
    const char *reply_with = in->reply_with;
    if (!reply_with)
        return;
    add_alias(s, c, agent_key(&s->alias, in->sender_text, reply_with));
    const struct jv *reply_to = jv_object_get(in->m->view, "reply_to");
    for (const struct jv *a = dialect_agents_first(reply_to); a;
         a = dialect_agents_next(reply_to, a)) {
        const char *name = fipa_agent_name_jv(a);
        if (name)
            add_alias(s, c, agent_key(&s->alias, name, reply_with));
    }
}

/* A conversation that ended, or one running another protocol, gets a new run when a message
 * opens one without answering anything. */
static bool reuses(const struct conversation *c, const struct incoming *in, enum fipa_protocol p,
                   bool named)
{
    if (p == FP_NONE)
        return false;
    if (c->finished || c->held)
        return !in->in_reply_to;
    return named && !fipa_protocol_same_family(p, c->protocol);
}

/* A further copy of a held conversation's opening message: from its initiator, answering
 * nothing, with the opening's act, protocol member and content, to receivers none of whom is in
 * it yet. JADE's initiators address several responders with one copy each, in a loop, and a
 * responder that answers at once may have ended its part, and so the conversation, before the
 * next copy went out: the copy adds its receivers, as one message to all of them would have. */
static bool is_copy(struct conversation *c, const struct incoming *in)
{
    if (!c->held || strcmp(in->sender, c->initiator) != 0 || !has_receiver(in->receiver) ||
        !fipa_protocol_opens(c->protocol, in->act) || in->in_reply_to)
        return false;
    const struct jv *r = in->receiver;
    for (const struct jv *a = dialect_agents_first(r); a; a = dialect_agents_next(r, a)) {
        struct name_form_buf buf;
        const char *name = agent_kept(in, a, &buf);
        if (!name || is_broadcast(name) || strcmp(name, c->initiator) == 0 || party_find(c, name))
            return false;
    }
    return opening_digest(in) == c->opening;
}

/* Whether a message that names a protocol names the one its conversation runs: the names agree,
 * or, known, are the same run (contract net that turned iterated). */
/* A protocol name as an unfollowed conversation remembers it: names compare without case, so
 * a long one (keyform.h) by the form of its lower case. */
static const char *declared_form(struct fipa_stream *s, const char *name, struct name_form_buf *buf)
{
    if (strnlen(name, KEY_SHOWN_BYTES + 1) <= KEY_SHOWN_BYTES)
        return name;
    sb_reset(&s->scratch);
    for (const char *p = name; *p; p++)
        sb_addc(&s->scratch, (char)tolower((unsigned char)*p));
    return name_form(&s->secret, s->scratch.buf, s->scratch.len, buf);
}

static bool same_protocol(struct fipa_stream *s, enum fipa_protocol running,
                          const char *running_name, const struct incoming *in)
{
    if (in->declared != FP_NONE && running != FP_NONE)
        return fipa_protocol_same_family(in->declared, running);
    struct name_form_buf buf;
    return running_name && strcasecmp(declared_form(s, in->protocol, &buf), running_name) == 0;
}

static void protocol_changed(const struct conversation *c, const struct incoming *in,
                             const char *name, const char *running, struct diag_sink *sink)
{
    struct diag_where at = fs_related_to(in->m, c->first_file, c->first_line);
    diag_emit(sink, &at, "fipa-protocol-changed",
              "%s names protocol '%s' in conversation '%s', which runs %s",
              fipa_act_name(in->act, SPELL_KEBAB), name, fs_conversation_id(c), running);
}

/* A conversation that is not followed (unknown protocol, or opened by the wrong act) is still
 * remembered like a tombstone, so that its later messages are quiet. */
static const char *remember_unfollowed(struct fipa_stream *s, const struct incoming *in,
                                       enum fipa_protocol p, const char *name)
{
    if (s->key.len == 0)
        return NULL;
    fs_trim_tombstones(s);
    struct conversation *c = conversation_alloc(s, in);
    c->protocol = p;
    struct name_form_buf buf;
    rare(c)->declared = xstrdup(declared_form(s, name, &buf));
    c->unfollowed = c->finished = true;
    touch(s, c, in);
    list_append(&s->tombstones, &c->link);
    if (c->by_chain)
        add_aliases(s, c, in);
    return fs_belongs_to(s, c);
}

static const char *in_unfollowed(struct fipa_stream *s, struct conversation *c,
                                 const struct incoming *in, const char *name,
                                 struct diag_sink *sink)
{
    const char *declared = c->rare->declared;
    if (name && !same_protocol(s, c->protocol, declared, in))
        protocol_changed(c, in, name, declared, sink);
    touch(s, c, in);
    list_remove(&s->tombstones, &c->link);
    list_append(&s->tombstones, &c->link);
    if (c->by_chain)
        add_aliases(s, c, in);
    return fs_belongs_to(s, c);
}

static const char *unknown_protocol(struct fipa_stream *s, const struct incoming *in,
                                    const char *name, struct diag_sink *sink)
{
    diag_emit(sink, &in->m->at, "fipa-protocol-unknown", "unknown interaction protocol '%s'", name);
    return remember_unfollowed(s, in, FP_NONE, name);
}

/* Acts that start an interaction: sent without in_reply_to, one of them opens a conversation. */
static bool opens_some_protocol(const struct incoming *in)
{
    return fipa_protocol_inferred(in->act) != FP_NONE && !in->in_reply_to;
}

static const char *wrong_opening(struct fipa_stream *s, const struct incoming *in,
                                 enum fipa_protocol p, const char *name, struct diag_sink *sink)
{
    const char *id = in->conversation_id;
    const char *act = fipa_act_name(in->act, SPELL_KEBAB);
    const char *expected = opening_acts(s, p);
    if (id)
        diag_emit(sink, &in->m->at, "fipa-wrong-opening",
                  "%s opens conversation '%s' as %s, which opens with %s", act, id,
                  fipa_protocol_name(p), expected);
    else
        diag_emit(sink, &in->m->at, "fipa-wrong-opening",
                  "%s opens a %s conversation, which opens with %s", act, fipa_protocol_name(p),
                  expected);
    return remember_unfollowed(s, in, p, name);
}

/* The standard profile lets a message come without sender: in a conversation this tool
 * follows, or as the opening of one, that is reported, since nobody can tell who acts. */
static const char *follow_unattributed(struct fipa_stream *s, const struct incoming *in,
                                       struct diag_sink *sink)
{
    const char *id = in->conversation_id;
    struct conversation *c = NULL;
    if (id) {
        sb_reset(&s->key);
        sb_addc(&s->key, 'c');
        sb_adds(&s->key, id);
        c = find_conversation(s);
    }
    bool named;
    if (c && !c->finished) {
        s->blame = c;
        cannot_follow(c, in, "sender", sink);
        return fs_belongs_to(s, c);
    }
    enum fipa_protocol p = would_open(in, &named);
    if (!c && p != FP_NONE)
        diag_emit(sink, &in->m->at, "fipa-cannot-follow",
                  "%s has no sender: the %s conversation it opens cannot be followed",
                  fipa_act_name(in->act, SPELL_KEBAB), fipa_protocol_name(p));
    return c ? fs_belongs_to(s, c) : NULL;
}

/* A reply in no conversation: no conversation_id, and its in_reply_to names no message seen. At
 * the start of a capture begun midway, the message it answers came before; anywhere else it
 * answers nothing. */
static void reply_to_nothing(const struct incoming *in, struct diag_sink *sink)
{
    diag_emit(sink, &in->m->at, "fipa-reply-orphan",
              "%s has in_reply_to '%s', which names no message seen, and no conversation_id: it "
              "belongs to no conversation",
              fipa_act_name(in->act, SPELL_KEBAB), in->in_reply_to);
}

/* --shard: whether this shard accounts for a message of conversation c, or (c NULL) for one
 * that would have the key in s->key (none: a message of no conversation). */
static bool accounts_for(struct fipa_stream *s, const struct conversation *c)
{
    if (!s->sharded)
        return true;
    if (c)
        return !c->foreign;
    if (s->key.len == 0)
        return s->cfg->shard == 1;
    const char *key = s->key.buf[0] == 'r' ? fs_qualified(s, s->key.buf) : s->key.buf + 1;
    return engine_shard_of(key, s->cfg->shards) == s->cfg->shard;
}

static const char *follow_message(struct fipa_stream *s, const struct incoming *in,
                                  struct diag_sink *sink)
{
    const char *name = in->protocol;
    enum fipa_protocol declared = in->declared;
    struct conversation *c = lookup(s, in, &s->key);
    struct diag_sink *all = sink; /* for what is found about other conversations */
    s->accounted = accounts_for(s, c);
    if (!s->accounted)
        sink = &s->probe;
    if (c && c->unfollowed)
        return in_unfollowed(s, c, in, name, sink);
    /* Findings about a reused conversation that ended go to the new run (s->pending). */
    if (c && !c->finished && !c->held)
        s->blame = c;
    bool named;
    enum fipa_protocol p = would_open(in, &named);
    if (c && is_copy(c, in))
        fs_unhold(s, c);
    if (c && reuses(c, in, p, named)) {
        reused(s, c, in, p, sink);
        c = NULL;
    }
    if (c && c->finished) {
        after_end(c, in, sink);
        return fs_belongs_to(s, c);
    }
    if (c)
        s->blame = c;
    if (c && c->held) { /* it ended: what comes now goes into its summary */
        after_end(c, in, sink);
        land(c, in);
        return fs_belongs_to(s, c);
    }
    if (!c) {
        /* Only unknown protocols and wrong openings are remembered unfollowed: other messages
         * that open nothing belong to conversations met midway, or to none. */
        if (name && declared == FP_NONE)
            return unknown_protocol(s, in, name, sink);
        if (p == FP_NONE && declared != FP_NONE && opens_some_protocol(in))
            return wrong_opening(s, in, declared, name, sink);
        if (p == FP_NONE && in->in_reply_to && !in->conversation_id)
            reply_to_nothing(in, sink);
        if (p == FP_NONE || s->key.len == 0)
            return NULL;
        if (!has_receiver(in->receiver)) {
            diag_emit(sink, &in->m->at, "fipa-cannot-follow",
                      "%s has no receiver: the %s conversation it opens cannot be followed",
                      fipa_act_name(in->act, SPELL_KEBAB), fipa_protocol_name(p));
            return NULL;
        }
        fs_make_room(s, in->m, all);
        c = conversation_new(s, in, p, named);
        s->blame = c;
        if (s->pending) /* found before it opened: a reused conversation_id */
            findings_move(&story_of(c, in->act, NAN)->findings, &s->pending);
    } else if (name && !same_protocol(s, c->protocol, fipa_protocol_name(c->protocol), in)) {
        protocol_changed(c, in, name, fipa_protocol_name(c->protocol), sink);
    }
    follow(s, c, in, sink);
    if (c->by_chain)
        add_aliases(s, c, in);
    return fs_belongs_to(s, c);
}

/* --shard: a message with a conversation_id goes to the shard its id hashes to. */
static bool elsewhere(const struct fipa_stream *s, const struct incoming *in)
{
    const char *id = in->conversation_id;
    return s->sharded && id && engine_shard_of(id, s->cfg->shards) != s->cfg->shard;
}

/* What engine_feed answers for a message that was followed: a message with a conversation_id
 * belongs to that conversation, followed or not. */
static const char *accounted(struct fipa_stream *s, const struct incoming *in, const char *key)
{
    findings_free(s->pending);
    s->pending = NULL;
    s->blame = NULL;
    s->dispatching = false;
    if (key)
        return key;
    if (!s->accounted)
        return ENGINE_ELSEWHERE;
    return in->conversation_id;
}

static const char *unattributed(struct fipa_stream *s, const struct incoming *in,
                                struct diag_sink *sink)
{
    if (elsewhere(s, in))
        return ENGINE_ELSEWHERE;
    s->accounted = !s->sharded || s->cfg->shard == 1 || in->conversation_id;
    s->dispatching = true;
    return accounted(s, in, follow_unattributed(s, in, s->accounted ? sink : &s->probe));
}

static const char *dispatch(struct fipa_stream *s, const struct incoming *in,
                            struct diag_sink *sink)
{
    if (elsewhere(s, in))
        return ENGINE_ELSEWHERE;
    s->dispatching = true;
    return accounted(s, in, follow_message(s, in, sink));
}

static struct stream *fipa_stream_new(const struct engine_config *cfg, conversation_done_fn done,
                                      void *ctx)
{
    struct fipa_stream *s = xcalloc(1, sizeof *s);
    s->cfg = cfg;
    s->sharded = cfg->shards > 0;
    diag_sink_init(&s->probe, NULL);
    s->probe.quiet = true;
    s->done = done;
    s->ctx = ctx;
    key_secret_draw(&s->secret);
    s->conversations.key = conversation_key;
    s->aliases.key = alias_key;
    s->clock = clock_book_quiet(cfg->clock_skew, cfg->max_open);
    s->now = s->wall = NAN;
    return (struct stream *)s;
}

/* The clock agreed on a time for the first time. Until then stream time was provisional (the
 * first timestamp is dropped when nothing confirms it), and so was the time the conversations
 * seen so far were last active: they count from the time agreed. They are few, since the clock
 * agrees within a few messages of any stream that has time. */
static void clock_agreed(struct fipa_stream *s)
{
    s->clock_agreed = true;
    struct list *lists[] = {&s->open, &s->tombstones};
    for (size_t i = 0; i < 2; i++)
        for (struct conversation *c = fs_oldest(lists[i]); c;
             c = LIST_ITEM(c->link.next, struct conversation, link))
            if (!isnan(c->active))
                c->active = s->now;
    /* The held ones all wait from now, those that ended with no time too, so that the list
     * stays in the order they are due. */
    for (struct conversation *c = fs_oldest(&s->held); c;
         c = LIST_ITEM(c->link.next, struct conversation, link))
        c->active = s->now;
}

/* Reads the message's time on the stream clock, and reports a sender whose clock was found to be
 * off the others' by more than --clock-skew. A message without sender moves nothing: nobody's
 * clock can be told from it. */
static void read_clock(struct fipa_stream *s, struct incoming *in, struct diag_sink *sink)
{
    double stamped = in->digest->stamped;
    bool timed = in->digest->timed;
    in->time = timed ? stamped : NAN;
    if (!in->sender)
        return;
    struct clock_reading r = {.at = in->time};
    if (timed) {
        r = clock_book_observe(s->clock, in->sender, stamped);
        s->now = fmax(clock_book_now(s->clock), s->wall); /* --wall-clock may have moved it on */
        if (!s->clock_agreed && clock_book_agreed(s->clock))
            clock_agreed(s);
    }
    /* Its time, and any reply_by it sets, by its own clock: both less its offset. */
    double offset = timed ? stamped - r.at : clock_book_offset(s->clock, in->sender);
    in->time = r.at;
    in->reply_by -= offset;
    if (!r.report)
        return;
    char off[32], skew[32];
    snprintf(off, sizeof off, "%.0f", fabs(offset));
    snprintf(skew, sizeof skew, "%g", s->cfg->clock_skew);
    diag_emit(fs_outside(s, sink), &in->m->at, "fipa-clock-skew",
              "the clock of '%s' runs %s s %s the others' (--clock-skew is %s s); its messages "
              "are read with that offset from here on",
              in->sender, off, offset > 0 ? "ahead of" : "behind", skew);
}

static void fipa_stream_digest(struct message *m, enum engine_digest how)
{
    (void)how; /* the view is kept: a protocol's rules read more of some messages */
    struct fipa_digest *d = message_alloc(m, sizeof *d);
    fipa_digest_make(d, m);
    m->digest = d;
}

/* A string of the message's view at a place of its digest's, or NULL. */
static const char *string_at(const struct message *m, uint32_t place)
{
    return place ? jv_string_value(m->view + place) : NULL;
}

/* What every message is read for: the members that name its conversation, as its digest says
 * (made now when a worker thread did not). */
static struct incoming incoming_of(struct fipa_stream *s, const struct message *m)
{
    const struct fipa_digest *d = m->digest;
    if (!d) {
        fipa_digest_make(&s->digest, m);
        d = &s->digest;
    }
    return (struct incoming){
        .m = m,
        .digest = d,
        .act = d->act,
        .sender_text = fipa_agent_name_jv(d->sender ? m->view + d->sender : NULL),
        .receiver = d->receiver ? m->view + d->receiver : NULL,
        .time = NAN,
        .reply_by = NAN,
        .conversation_id = string_at(m, d->conversation_id),
        .in_reply_to = string_at(m, d->in_reply_to),
        .reply_with = string_at(m, d->reply_with),
        .secret = &s->secret,
    };
}

static const char *fipa_stream_feed(struct stream *stream, const struct message *m,
                                    struct diag_sink *sink)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    struct incoming in = incoming_of(s, m);
    in.reply_by = in.digest->reply_by;
    in.sender = name_form_of(&s->secret, in.sender_text, &s->sender_form);
    in.partial = in.digest->partial;
    bool standard = s->cfg->fipa_profile == FIPA_PROFILE_STANDARD;
    if (in.act == FIPA_ACT_INVALID || (!standard && (!in.sender || !in.receiver)))
        return NULL;
    in.protocol = string_at(m, in.digest->protocol);
    in.declared = in.digest->declared;
    in.in_reply_to_kept = name_form_of(&s->secret, in.in_reply_to, &s->in_reply_to_form);
    s->seq++;
    read_clock(s, &in, sink);
    fs_expire(s, m, sink);
    const char *key = in.sender ? dispatch(s, &in, sink) : unattributed(s, &in, sink);
    /* after the message is followed: a reply that itself comes late is fipa-late-reply only */
    fs_check_overdue(s, m, sink);
    return key;
}

/* The conversation a message that failed its own checks names, as lookup finds it; NULL for
 * none, or for one that is not followed or ended. */
static struct conversation *failed_conversation(struct fipa_stream *s, const struct incoming *in)
{
    if (!in->sender_text && !in->conversation_id)
        return NULL; /* neither names a conversation */
    struct conversation *c = lookup(s, in, &s->key);
    return c && !c->unfollowed && !c->finished ? c : NULL;
}

static const char *fipa_stream_failed(struct stream *stream, const struct message *m,
                                      struct findings **own)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    struct incoming in = incoming_of(s, m);
    struct conversation *c = failed_conversation(s, &in);
    if (!c)
        return elsewhere(s, &in) ? ENGINE_ELSEWHERE : NULL;
    if (c->foreign)
        return ENGINE_ELSEWHERE;
    findings_move(&story_of(c, FIPA_ACT_INVALID, NAN)->findings, own);
    if (c->held)
        land(c, &in);
    else
        touch_open(s, c, &in);
    return fs_belongs_to(s, c);
}

static void fipa_stream_finish(struct stream *stream, struct diag_sink *sink)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    while (s->held.head)
        fs_release(s, fs_oldest(&s->held));
    while (s->open.head) {
        struct conversation *c = fs_oldest(&s->open);
        s->blame = c;
        fs_settle_cancels(c);
        const struct party *waiting = fs_first_open_party(c);
        if (waiting) {
            struct diag_where at = {.file = c->first_file, .line = c->first_line};
            if (c->last_line != c->first_line || c->last_file != c->first_file) {
                at.related_line = c->last_line;
                if (c->last_file && strcmp(c->last_file, c->first_file) != 0)
                    at.related_file = c->last_file;
            }
            diag_emit(fs_sink_for(s, c, sink), &at, "fipa-open-at-end",
                      "%s conversation '%s' is still open at end of input: %s is %s",
                      fipa_protocol_name(c->protocol), fs_conversation_id(c), waiting->name,
                      fipa_party_state_name(waiting->state));
        }
        fs_abandon(s, c, "open");
    }
    s->blame = NULL;
}

static void fipa_stream_note(struct stream *stream, const struct diag_finding *finding)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    if (s->blame)
        findings_add(&story_of(s->blame, FIPA_ACT_INVALID, NAN)->findings, finding);
    else if (s->dispatching)
        findings_add(&s->pending, finding);
}

static void fipa_stream_hand_over(struct stream *stream)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    while (s->held.head)
        fs_release(s, fs_oldest(&s->held));
    while (s->open.head)
        fs_abandon(s, fs_oldest(&s->open), "open");
}

static double fipa_stream_now(const struct stream *stream)
{
    const struct fipa_stream *s = (const struct fipa_stream *)stream;
    return s->now;
}

static void fipa_stream_advance(struct stream *stream, double now, const struct diag_where *where,
                                struct diag_sink *sink)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    if (isnan(s->now) || !(now > s->now))
        return;
    s->now = s->wall = now;
    const struct message latest = {.at = *where};
    fs_check_overdue(s, &latest, sink);
    fs_expire(s, &latest, sink);
}

static double fipa_stream_next_due(const struct stream *stream)
{
    const struct fipa_stream *s = (const struct fipa_stream *)stream;
    return due_queue_next(&s->due);
}

static void fipa_stream_free(struct stream *stream)
{
    struct fipa_stream *s = (struct fipa_stream *)stream;
    if (!s)
        return;
    while (s->open.head) {
        struct conversation *c = fs_oldest(&s->open);
        list_remove(&s->open, &c->link);
        fs_conversation_free(s, c);
    }
    struct list *ended[] = {&s->held, &s->tombstones};
    for (size_t i = 0; i < 2; i++)
        while (ended[i]->head) {
            struct conversation *c = fs_oldest(ended[i]);
            list_remove(ended[i], &c->link);
            fs_conversation_free(s, c);
        }
    hashtab_free(&s->conversations, NULL);
    hashtab_free(&s->aliases, NULL);
    due_queue_free(&s->due);
    clock_book_free(s->clock);
    sb_free(&s->scratch);
    for (size_t i = 0; i < sizeof s->shown / sizeof s->shown[0]; i++)
        sb_free(&s->shown[i]);
    sb_free(&s->shown_names);
    sb_free(&s->key);
    sb_free(&s->alias);
    sb_free(&s->qualified);
    sb_free(&s->name);
    free(s->names);
    findings_free(s->pending);
    diag_sink_free(&s->probe);
    free(s);
}

const struct stream_ops fipa_stream_ops = {
    .proto = PROTO_FIPA,
    .open = fipa_stream_new,
    .feed = fipa_stream_feed,
    .failed = fipa_stream_failed,
    .note = fipa_stream_note,
    .finish = fipa_stream_finish,
    .hand_over = fipa_stream_hand_over,
    .now = fipa_stream_now,
    .advance = fipa_stream_advance,
    .next_due = fipa_stream_next_due,
    .free = fipa_stream_free,
    .digest = fipa_stream_digest,
};
