/* The end of a FIPA conversation: its summary (its participants, latencies and outcome), the
 * reply_by values that fall due, and how a conversation ends, is held for --linger, becomes a
 * tombstone and is forgotten, by message time or to make room. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"
#include "base/util.h"
#include "engine/fipa_stream_parts.h"

/* A key of a reply chain ('r', then an agent_key) as acp-convert writes the conversation_id:
 * the agent's name qualifies the reply_with. */
const char *fs_qualified(struct fipa_stream *s, const char *key)
{
    char *colon;
    size_t len = strtoul(key + 1, &colon, 10);
    sb_reset(&s->name);
    sb_add(&s->name, colon + 1, len);
    return message_conversation_id(&s->qualified, s->name.buf, colon + 1 + len);
}

/* What engine_feed says of a message of conversation c: a chain is named by its opener (the
 * agent of its key, as shown) and the reply_with. */
const char *fs_belongs_to(struct fipa_stream *s, const struct conversation *c)
{
    if (c->foreign)
        return ENGINE_ELSEWHERE;
    return c->by_chain ? message_conversation_id(&s->qualified, name_shown(c->initiator, &s->name),
                                                 fs_conversation_id(c))
                       : fs_conversation_id(c);
}

static void add_name(struct fipa_stream *s, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(s->names[i], name) == 0)
            return;
    if (*n == s->names_cap) {
        s->names_cap = s->names_cap ? 2 * s->names_cap : 8;
        s->names = xrealloc(s->names, s->names_cap * sizeof *s->names);
    }
    s->names[(*n)++] = name;
}

/* The first n names of s->names as a summary shows them (keyform.h): a long one by its first
 * bytes, copied into s->shown_names. */
static void show_names(struct fipa_stream *s, size_t n)
{
    struct strbuf *shown = &s->shown_names;
    sb_reset(shown);
    for (size_t i = 0; i < n; i++) {
        size_t len = name_shown_len(s->names[i]);
        if (s->names[i][len]) {
            sb_add(shown, s->names[i], len);
            sb_addc(shown, '\0');
        }
    }
    const char *next = shown->buf; /* where it stays, now that it is written */
    for (size_t i = 0; i < n; i++)
        if (s->names[i][name_shown_len(s->names[i])]) {
            s->names[i] = next;
            next += strlen(next) + 1;
        }
}

/* The initiator, the agents it addressed, and those a broker forwarded to, as shown. */
static size_t participants(struct fipa_stream *s, const struct conversation *c)
{
    size_t n = 0;
    add_name(s, &n, c->initiator);
    for (size_t i = 0; i < c->nparties; i++)
        add_name(s, &n, c->parties[i].name);
    const struct relay *r = c->rare ? &c->rare->relay : NULL;
    for (size_t i = 0; r && i < r->ntargets; i++)
        add_name(s, &n, r->targets[i]);
    show_names(s, n);
    return n;
}

static const char *replier(const struct conversation *c, uint16_t index)
{
    return index && index <= c->nparties ? c->parties[index - 1].name : NULL;
}

/* A latency of c to the reply from its party index, whose name shows in *shown. */
static struct latency reply_latency(const struct conversation *c, const char *name, int act,
                                    uint16_t index, double at, struct strbuf *shown)
{
    bool came = act != FIPA_ACT_INVALID;
    const char *agent = came ? replier(c, index) : NULL;
    return (struct latency){
        .name = name,
        .request = fipa_act_name((enum fipa_act)c->story->opening_act, SPELL_KEBAB),
        .reply = came ? fipa_act_name((enum fipa_act)act, SPELL_KEBAB) : NULL,
        .agent = agent ? name_shown(agent, shown) : NULL,
        .seconds = came ? time_elapsed(at, c->story->opened_at) : NAN,
    };
}

static bool is_ending(const char *outcome)
{
    static const char *const open[] = {"open", "expired", "evicted", "reused"};
    for (size_t i = 0; i < sizeof open / sizeof *open; i++)
        if (strcmp(outcome, open[i]) == 0)
            return false;
    return true;
}

static void report(struct fipa_stream *s, const struct conversation *c, const char *outcome)
{
    if (!s->done || c->foreign || !c->story)
        return;
    const struct story *t = c->story;
    bool ended = is_ending(outcome);
    struct latency final = reply_latency(c, "final_reply", ended ? t->latest_act : FIPA_ACT_INVALID,
                                         t->latest_replier, t->latest_reply_at, &s->shown[1]);
    final.repeats = ended && !t->replied_again;
    size_t nparticipants = participants(s, c);
    const struct conversation_summary summary = {
        .proto = PROTO_FIPA,
        .id = fs_conversation_id(c),
        .conversation = fs_belongs_to(s, c),
        .protocol = fipa_protocol_name(c->protocol),
        .initiator = name_shown(c->initiator, &s->shown[0]),
        .participants = s->names,
        .nparticipants = nparticipants,
        .outcome = outcome,
        .cancelled = c->cancelled,
        .messages = c->messages,
        .first_file = c->first_file,
        .first_line = c->first_line,
        .last_file = c->last_file,
        .last_line = c->last_line,
        .started = c->started,
        .ended = c->ended,
        .latency = {reply_latency(c, "first_reply", t->first_act, t->first_replier,
                                  t->first_reply_at, &s->shown[2]),
                    final},
        .nlatency = 2,
        .findings = t->findings,
    };
    s->done(s->ctx, &summary);
}

/* The most telling outcome of the parts that ended: a result beats a refusal. A conversation
 * that a late copy of its opening took out of its hold starts from the outcome it had. */
enum outcome fs_overall_outcome(const struct conversation *c)
{
    enum outcome best = c->outcome;
    for (size_t i = 0; i < c->nparties; i++) {
        enum outcome o = c->parties[i].outcome;
        if (o != OUT_NONE && (best == OUT_NONE || o < best))
            best = o;
    }
    return best;
}

struct diag_where fs_related_to(const struct message *m, const char *file, unsigned long line)
{
    struct diag_where at = m->at;
    at.related_line = line;
    if (file && at.file && strcmp(file, at.file) != 0)
        at.related_file = file;
    return at;
}

/* The first party that is not finished, for telling what a conversation waits for. */
const struct party *fs_first_open_party(const struct conversation *c)
{
    for (size_t i = 0; i < c->nparties; i++)
        if (c->parties[i].state != PS_ENDED)
            return &c->parties[i];
    return NULL;
}

/* The parts of participants that a cancel nothing can name interrupted, and that sent something
 * since (a notification that crossed it, or its answer: they cannot be told apart), end as
 * cancelled when the conversation is handed over; a participant that sent nothing since still
 * owes the answer. */
void fs_settle_cancels(struct conversation *c)
{
    if (!c->cancelled || fs_cancel_ref(c))
        return;
    for (size_t i = 0; i < c->nparties; i++) {
        struct party *p = &c->parties[i];
        if (p->state == PS_CANCELLING && p->cancel_heard) {
            p->state = PS_ENDED;
            p->outcome = OUT_CANCELLED;
            c->open_parties--;
        }
    }
}

/* Drops an open conversation that is abandoned (evicted, expired, replaced, open at the end). */
void fs_abandon(struct fipa_stream *s, struct conversation *c, const char *outcome)
{
    list_remove(&s->open, &c->link);
    report(s, c, c->open_parties ? outcome : fipa_outcome_name(fs_overall_outcome(c)));
    fs_conversation_free(s, c);
}

/* Where the findings about a conversation go: in shard mode, those of another shard's to nobody. */
struct diag_sink *fs_sink_for(struct fipa_stream *s, const struct conversation *c,
                              struct diag_sink *sink)
{
    return c->foreign ? &s->probe : sink;
}

/* Where findings about no conversation go (a sender's clock): in shard mode, shard 1 reports
 * them, as every shard sees every message. */
struct diag_sink *fs_outside(struct fipa_stream *s, struct diag_sink *sink)
{
    return s->sharded && s->cfg->shard != 1 ? &s->probe : sink;
}

static void warn_abandoned(struct fipa_stream *s, struct conversation *c, const struct message *m,
                           struct diag_sink *sink, const char *code, const char *why,
                           const char *outcome)
{
    struct conversation *blamed = s->blame;
    s->blame = c;
    sink = fs_sink_for(s, c, sink);
    fs_settle_cancels(c);
    const struct party *waiting = fs_first_open_party(c);
    if (waiting) {
        struct diag_where at = fs_related_to(m, c->last_file, c->last_line);
        diag_emit(sink, &at, code, "%s conversation '%s' %s while %s was %s",
                  fipa_protocol_name(c->protocol), fs_conversation_id(c), why, waiting->name,
                  fipa_party_state_name(waiting->state));
    }
    fs_abandon(s, c, outcome);
    s->blame = blamed != c ? blamed : NULL;
}

/* ---- what falls due: a reply_by that passes with no reply ---- */

/* A span of time in whole seconds, for a message (LLONG_MAX past what fits). */
long long fs_whole_seconds(double span)
{
    return double_fits_llong(span) ? (long long)span : LLONG_MAX;
}

/* The message time past which a pending reply_by is overdue: by more than --max-skew, as a reply
 * is late (fipa-late-reply). NAN when none is pending, or it was told. */
static double overdue_at(const struct fipa_stream *s, double due, bool told)
{
    return told ? NAN : due + s->cfg->max_skew;
}

/* A reply_by now pending for a party (due, or NAN for none): the conversation is queued by it,
 * unless it is queued earlier already. A due time spent since leaves it queued early: it is
 * judged again when it comes (report_overdue). */
void fs_set_due(struct fipa_stream *s, struct conversation *c, double *due, bool *told,
                double value)
{
    *due = value;
    *told = false;
    double at = overdue_at(s, value, false);
    if (!isnan(at) && (!due_queued(&c->due) || at < due_queue_due(&s->due, &c->due)))
        due_queue_set(&s->due, &c->due, at);
}

/* Reports the reply_by values of a conversation that passed with no reply (m locates the
 * findings) and queues it by the earliest still to come, or takes it out of the queue. */
static void report_overdue(struct fipa_stream *s, struct conversation *c, const struct message *m,
                           struct diag_sink *sink)
{
    struct conversation *blamed = s->blame;
    s->blame = c;
    sink = m ? fs_sink_for(s, c, sink) : NULL;
    double next = NAN;
    for (size_t i = 0; i < c->nparties; i++) {
        struct party *p = &c->parties[i];
        if (p->state == PS_ENDED)
            continue;
        double reply = overdue_at(s, p->reply_due, p->reply_told);
        double answer = overdue_at(s, p->answer_due, p->answer_told);
        struct diag_where at = m ? fs_related_to(m, p->file, p->line) : (struct diag_where){0};
        if (sink && reply < s->now) {
            p->reply_told = true;
            diag_emit(sink, &at, "fipa-reply-by-passed",
                      "%s has not replied in %s conversation '%s' %lld s after the reply_by of "
                      "the message it was sent",
                      p->name, fipa_protocol_name(c->protocol), fs_conversation_id(c),
                      fs_whole_seconds(s->now - p->reply_due));
        } else {
            next = fmin(next, reply);
        }
        if (sink && answer < s->now) {
            p->answer_told = true;
            diag_emit(sink, &at, "fipa-reply-by-passed",
                      "%s has not answered %s in %s conversation '%s' %lld s after the reply_by of "
                      "its message",
                      c->initiator, p->name, fipa_protocol_name(c->protocol), fs_conversation_id(c),
                      fs_whole_seconds(s->now - p->answer_due));
        } else {
            next = fmin(next, answer);
        }
    }
    s->blame = blamed != c ? blamed : NULL;
    due_queue_set(&s->due, &c->due, next);
}

/* Queues a conversation by its earliest pending reply_by, reporting nothing. */
static void queue_due(struct fipa_stream *s, struct conversation *c)
{
    report_overdue(s, c, NULL, NULL);
}

/* Reports every reply_by that passed with no reply by message time, the earliest first. */
void fs_check_overdue(struct fipa_stream *s, const struct message *m, struct diag_sink *sink)
{
    while (due_queue_next(&s->due) < s->now)
        report_overdue(s, DUE_ITEM(due_queue_first(&s->due), struct conversation, due), m, sink);
}

/* Turns a conversation that ended into a tombstone. */
static void entomb(struct fipa_stream *s, struct conversation *c)
{
    if (s->blame == c)
        s->blame = NULL;
    fs_story_free(c->story);
    c->story = NULL;
    c->cancel_answers_open = 0;
    for (size_t i = 0; i < c->nparties; i++)
        if (c->parties[i].cancel_answer_open)
            c->cancel_answers_open++;
    fs_free_parties(c);
    if (c->rare && !c->cancel_answers_open) {
        free(c->rare->cancel_ref);
        c->rare->cancel_ref = NULL;
    }
    fs_forget_replies(c);
    if (c->rare)
        fs_relay_clear(&c->rare->relay);
    c->finished = true;
    list_append(&s->tombstones, &c->link);
}

/* The end of a held conversation's wait: its summary is written, and it shrinks to a
 * tombstone. */
void fs_release(struct fipa_stream *s, struct conversation *c)
{
    list_remove(&s->held, &c->link);
    c->held = false;
    report(s, c, fipa_outcome_name(c->outcome));
    entomb(s, c);
}

/* A conversation whose every part ended is held, whole, for --linger of message time before its
 * summary is written: a late copy of its opening (JADE sends one per receiver, and a quick
 * refusal may end the conversation before the next copy goes out) still adds its receivers, and
 * what comes after the end still lands in it. */
void fs_finish(struct fipa_stream *s, struct conversation *c)
{
    c->outcome = fs_overall_outcome(c);
    due_queue_remove(&s->due, &c->due); /* nobody owes an answer any more */
    list_remove(&s->open, &c->link);
    c->held = true;
    list_append(&s->held, &c->link);
    if (!(s->cfg->linger > 0))
        fs_release(s, c);
}

/* A copy of its opening took a held conversation up again. */
void fs_unhold(struct fipa_stream *s, struct conversation *c)
{
    list_remove(&s->held, &c->link);
    c->held = false;
    list_append(&s->open, &c->link);
    queue_due(s, c);
}

/* When a conversation was last active: the time of its last message once the stream clock has
 * reached it (a jump the message showed was confirmed by others), else the stream time when it
 * came, so that a timestamp the clock did not believe neither keeps it nor ages it. */
static double last_active(const struct fipa_stream *s, const struct conversation *c)
{
    if (!isnan(c->ended) && c->ended <= s->now)
        return fmax(c->active, c->ended);
    return c->active;
}

static bool idle(const struct fipa_stream *s, const struct conversation *c)
{
    if (!isnan(c->active))
        return !isnan(s->now) && s->now - last_active(s, c) > s->cfg->idle_timeout;
    /* Without time, age is counted in messages: ten per conversation that may be open. */
    unsigned long limit = s->cfg->max_open ? s->cfg->max_open * 10 : 1000000;
    return s->seq - c->last_seq > limit;
}

/* Whether a held conversation has waited --linger of message time since it ended; without
 * message time it waits until it is idle by count (or the end, or --max-open). */
static bool lingered(const struct fipa_stream *s, const struct conversation *c)
{
    if (!isnan(c->active) && !isnan(s->now) && s->now - c->active > s->cfg->linger)
        return true;
    return idle(s, c);
}

/* Expires from the oldest end only, so each message costs little however much state there is. */
void fs_expire(struct fipa_stream *s, const struct message *m, struct diag_sink *sink)
{
    /* Those held first: one released long after it ended may expire as a tombstone at once. */
    for (struct conversation *c; (c = fs_oldest(&s->held)) && lingered(s, c);)
        fs_release(s, c);
    for (struct conversation *c; (c = fs_oldest(&s->tombstones)) && idle(s, c);) {
        list_remove(&s->tombstones, &c->link);
        fs_conversation_free(s, c);
    }
    for (struct conversation *c; (c = fs_oldest(&s->open)) && idle(s, c);)
        warn_abandoned(s, c, m, sink, "fipa-idle", "expired after being idle", "expired");
}

void fs_trim_tombstones(struct fipa_stream *s)
{
    unsigned long cap = s->cfg->max_open;
    while (cap && s->tombstones.size >= cap && s->tombstones.head) {
        struct conversation *c = fs_oldest(&s->tombstones);
        list_remove(&s->tombstones, &c->link);
        fs_conversation_free(s, c);
    }
}

void fs_make_room(struct fipa_stream *s, const struct message *m, struct diag_sink *sink)
{
    unsigned long cap = s->cfg->max_open;
    if (!cap)
        return;
    /* Held conversations count as open: the one held longest is released before any open one
     * is evicted, since it lost nothing but the chance of a late message. */
    while (s->open.size + s->held.size >= cap) {
        if (s->held.head)
            fs_release(s, fs_oldest(&s->held));
        else
            warn_abandoned(s, fs_oldest(&s->open), m, sink, "fipa-evicted",
                           "was evicted (more than --max-open conversations open)", "evicted");
    }
    fs_trim_tombstones(s);
}
