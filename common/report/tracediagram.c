#include "report/tracediagram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "proto/dialect.h"
#include "proto/schedule.h"

/* A message drawn: where it was, its arrows, and its sender's column. */
struct drawn {
    unsigned long file; /* the how-manieth file, from 1 */
    unsigned long line;
    size_t first, arrows, column;
};

/* A conversation with messages drawn, until its outcome: its last message drawn. */
struct drawn_conversation {
    size_t arrow;       /* the first arrow of its last message drawn */
    unsigned long file; /* where that message was read */
    unsigned long line;
    double time; /* its time, NAN when it had none */
    bool cut;    /* a message of it came after the drawing stopped */
    char id[];   /* while in few */
};

/* Up to this many conversations with messages drawn are looked for one by one, without a map:
 * the HTML report makes and drops a diagram of one conversation by the thousand. */
enum { CONVERSATIONS_SEARCHED = 4 };

/* A finding at the message being traced, for its arrows. */
struct pending {
    enum diagram_mark mark;
    char *diagnostic;
};

struct trace_diagram {
    struct diagram *d;
    unsigned long max_arrows;
    char *const *hidden;
    size_t nhidden;
    bool stopped;        /* max_arrows reached */
    struct drawn *drawn; /* in input order */
    size_t ndrawn, drawn_cap;
    const char **files; /* the files read, in order, to number them */
    size_t nfiles;
    const struct message *now; /* the message being traced, or NULL */
    struct pending *pending;
    size_t npending, pending_cap;
    /* The conversations with messages drawn, until their outcomes: a few in few, then (once
     * more come at once) all in the map conversations, id -> struct drawn_conversation. */
    struct drawn_conversation *few[CONVERSATIONS_SEARCHED];
    size_t nfew;
    struct strmap *conversations;
    /* The outcome of a conversation that the message being traced ended, told by the engine
     * before the message is drawn: it goes after that message. */
    char *ended; /* its id, or NULL */
    char *ended_text;
    enum diagram_end ended_end;
    size_t *to; /* the receivers' columns of the message being drawn */
    size_t to_cap;
    struct strbuf text;
    char *first_session;  /* a capture's first session, whose sides are columns by their names */
    struct strbuf column; /* scratch: a side's column's name */
};

struct trace_diagram *trace_diagram_new(enum diagram_format format, const char *title,
                                        unsigned long max_arrows, char *const *hidden,
                                        size_t nhidden)
{
    struct trace_diagram *t = xcalloc(1, sizeof *t);
    t->d = diagram_new(format, title);
    t->max_arrows = max_arrows;
    t->hidden = hidden;
    t->nhidden = nhidden;
    return t;
}

static struct drawn_conversation *conversation_get(const struct trace_diagram *t, const char *id)
{
    if (t->conversations)
        return strmap_get(t->conversations, id);
    for (size_t i = 0; i < t->nfew; i++)
        if (strcmp(t->few[i]->id, id) == 0)
            return t->few[i];
    return NULL;
}

/* A conversation's entry, new (its time unknown): in few while there is room, then in the map
 * with those of few. */
static struct drawn_conversation *conversation_add(struct trace_diagram *t, const char *id)
{
    size_t len = strlen(id);
    struct drawn_conversation *c = xmalloc(sizeof *c + len + 1);
    *c = (struct drawn_conversation){.time = NAN};
    memcpy(c->id, id, len + 1);
    if (!t->conversations && t->nfew < CONVERSATIONS_SEARCHED) {
        t->few[t->nfew++] = c;
        return c;
    }
    if (!t->conversations) {
        t->conversations = strmap_new();
        for (size_t i = 0; i < t->nfew; i++)
            strmap_put(t->conversations, t->few[i]->id, t->few[i]);
        t->nfew = 0;
    }
    strmap_put(t->conversations, id, c);
    return c;
}

static void conversation_remove(struct trace_diagram *t, const char *id)
{
    if (t->conversations) {
        free(strmap_remove(t->conversations, id));
        return;
    }
    for (size_t i = 0; i < t->nfew; i++)
        if (strcmp(t->few[i]->id, id) == 0) {
            free(t->few[i]);
            t->few[i] = t->few[--t->nfew];
            return;
        }
}

static void clear_pending(struct trace_diagram *t)
{
    for (size_t i = 0; i < t->npending; i++)
        free(t->pending[i].diagnostic);
    t->npending = 0;
}

/* Lets go of what a drawing holds beside its arrays (which restart keeps and free frees). */
static void forget_drawing(struct trace_diagram *t)
{
    clear_pending(t);
    strmap_free(t->conversations, free);
    t->conversations = NULL;
    for (size_t i = 0; i < t->nfew; i++)
        free(t->few[i]);
    t->nfew = 0;
    free(t->ended);
    free(t->ended_text);
    free(t->first_session);
    t->ended = t->ended_text = t->first_session = NULL;
}

void trace_diagram_restart(struct trace_diagram *t, const char *title)
{
    diagram_restart(t->d, title);
    forget_drawing(t);
    t->stopped = false;
    t->ndrawn = t->nfiles = 0;
    t->now = NULL;
}

void trace_diagram_free(struct trace_diagram *t)
{
    if (!t)
        return;
    diagram_free(t->d);
    forget_drawing(t);
    free(t->pending);
    free(t->drawn);
    free(t->files);
    free(t->to);
    sb_free(&t->text);
    sb_free(&t->column);
    free(t);
}

static bool hidden(const struct trace_diagram *t, const char *kind)
{
    return strv_has(t->hidden, t->nhidden, kind);
}

/* Findings that tell of time passing: about a conversation or an agent that went quiet, not about
 * the message that showed it. */
static bool about_quiet(const char *code)
{
    return strcmp(code, "iacp-evicted") == 0 || strcmp(code, "iacp-silent") == 0 ||
           strcmp(code, "fipa-evicted") == 0 || strcmp(code, "fipa-idle") == 0;
}

/* Files are numbered from 1 as they come (0: not read yet). */
static unsigned long file_number(const struct trace_diagram *t, const char *file)
{
    for (size_t i = t->nfiles; file && i-- > 0;)
        if (t->files[i] == file || strcmp(t->files[i], file) == 0)
            return i + 1;
    return 0;
}

/* The message drawn from line of file, by a binary search: they are in input order. */
static const struct drawn *drawn_at(const struct trace_diagram *t, const char *file,
                                    unsigned long line)
{
    unsigned long number = file_number(t, file);
    if (!number || !line)
        return NULL;
    for (size_t lo = 0, hi = t->ndrawn; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        const struct drawn *d = &t->drawn[mid];
        if (d->file == number && d->line == line)
            return d;
        if (d->file < number || (d->file == number && d->line < line))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void keep_pending(struct trace_diagram *t, enum diagram_mark mark, const char *diagnostic)
{
    if (t->npending == t->pending_cap) {
        t->pending_cap = t->pending_cap ? 2 * t->pending_cap : 4;
        t->pending = xrealloc(t->pending, t->pending_cap * sizeof *t->pending);
    }
    t->pending[t->npending++] = (struct pending){mark, xstrdup(diagnostic)};
}

void trace_diagram_finding(struct trace_diagram *t, const struct diag_finding *f)
{
    const struct diag_where *w = f->where;
    enum diagram_mark mark = f->severity == SEV_ERROR ? MARK_ERROR : MARK_WARNING;
    bool quiet = about_quiet(f->code);
    /* A finding about time passing names the quiet one in its related line. */
    const char *file =
        quiet && w->related_line ? (w->related_file ? w->related_file : w->file) : w->file;
    unsigned long line = quiet && w->related_line ? w->related_line : w->line;
    sb_reset(&t->text);
    sb_addf(&t->text, "%s: ", f->code);
    sb_add(&t->text, f->message, f->message_len);
    if (t->now && !quiet && t->now->at.line == line && t->now->at.file == file) {
        keep_pending(t, mark, t->text.buf);
        return;
    }
    const struct drawn *d = drawn_at(t, file, line);
    if (!d)
        return;
    if (t->now && !quiet) {
        diagram_mark(t->d, d->first, mark, t->text.buf);
    } else if (!t->stopped) {
        diagram_note(t->d, d->column, mark, t->text.buf);
    }
}

static enum diagram_end end_of(const char *outcome)
{
    if (strcmp(outcome, "done") == 0)
        return END_DONE;
    if (strcmp(outcome, "violated") == 0)
        return END_VIOLATED;
    if (strcmp(outcome, "open") == 0 || strcmp(outcome, "timeout") == 0)
        return END_OPEN;
    return END_ENDED;
}

/* Notes the outcome after arrow's message, unless the drawing stopped before the conversation's
 * end; the conversation's entry goes unless a later run of its id is drawn. */
static void place_outcome(struct trace_diagram *t, const char *conversation, size_t arrow,
                          enum diagram_end end, const char *text, bool later_run)
{
    struct drawn_conversation *c = conversation_get(t, conversation);
    if (c && !c->cut && arrow)
        diagram_outcome(t->d, arrow, end, text);
    if (c && !later_run)
        conversation_remove(t, conversation);
}

void trace_diagram_begin(struct trace_diagram *t, const struct message *m)
{
    t->now = m;
}

void trace_diagram_end(struct trace_diagram *t)
{
    clear_pending(t);
    t->now = NULL;
    if (t->ended) { /* the message that ended it was not drawn: after its last one that was */
        struct drawn_conversation *c = conversation_get(t, t->ended);
        place_outcome(t, t->ended, c ? c->arrow : 0, t->ended_end, t->ended_text, false);
        free(t->ended);
        t->ended = NULL;
    }
}

/* A label's short id: what ties the message to its conversation. */
enum { SHORT_ID_MAX = 24 };

/* Appends what ties m to its conversation, the first of the dialect's members present: a string
 * (its first SHORT_ID_MAX bytes), or an integer (a JSON-RPC id). */
static void add_short_id(struct strbuf *sb, const struct message *m, const struct dialect *d)
{
    for (const char *const *member = d->label_id_members; *member; member++) {
        const struct jv *v = jv_object_get(m->view, *member);
        if (jv_is_integer(v)) {
            sb_addf(sb, " %lld", (long long)jv_integer_value(v));
            return;
        }
        if (!jv_is_string(v))
            continue;
        const char *id = jv_string_value(v);
        size_t len = strlen(id);
        sb_addc(sb, ' ');
        sb_add(sb, id, len <= SHORT_ID_MAX ? len : utf8_cut(id, len, SHORT_ID_MAX));
        if (len > SHORT_ID_MAX)
            sb_adds(sb, "...");
        return;
    }
}

static const char *label_of(struct trace_diagram *t, const struct message *m,
                            const struct dialect *d, const char *kind)
{
    sb_reset(&t->text);
    if (message_partial(m)) /* more to come: not the answer that ends the task */
        sb_adds(&t->text, "partial ");
    sb_adds(&t->text, kind);
    add_short_id(&t->text, m, d);
    return t->text.buf;
}

static void stop_drawing(struct trace_diagram *t)
{
    sb_reset(&t->text);
    sb_addf(&t->text,
            "stopped after %lu arrows (--max-arrows): draw less with --follow=ID or --hide=KIND",
            t->max_arrows);
    diagram_note(t->d, 0, MARK_WARNING, t->text.buf);
    t->stopped = true;
}

static void remember_drawn(struct trace_diagram *t, const struct message *m, size_t first,
                           size_t arrows, size_t column)
{
    if (!t->nfiles || t->files[t->nfiles - 1] != m->at.file) {
        t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof *t->files);
        t->files[t->nfiles++] = m->at.file;
    }
    if (t->ndrawn == t->drawn_cap) {
        t->drawn_cap = t->drawn_cap ? 2 * t->drawn_cap : 2;
        t->drawn = xrealloc(t->drawn, t->drawn_cap * sizeof *t->drawn);
    }
    t->drawn[t->ndrawn++] = (struct drawn){t->nfiles, m->at.line, first, arrows, column};
}

/* The receivers of a message: IACP's to, FIPA's receiver (one, or a set). */
static const struct jv *receivers(const struct message *m, const struct dialect *d, size_t *n)
{
    const struct jv *to = dialect_member_of(m->view, d->receivers_member);
    *n = jv_is_array(to) ? jv_array_size(to) : to ? 1 : 0;
    return to;
}

/* The message's time, and the delta since the previous message of its conversation drawn; the
 * conversation now ends, as far as the diagram knows, at this message. */
static void note_conversation(struct trace_diagram *t, const char *conversation,
                              struct diagram_message *dm, size_t first)
{
    bool whole_second;
    if (!schedule_view_time(t->now, &dm->time, &whole_second))
        dm->time = NAN;
    if (!conversation)
        return;
    struct drawn_conversation *c = conversation_get(t, conversation);
    if (!c)
        c = conversation_add(t, conversation);
    if (!isnan(c->time) && !isnan(dm->time))
        dm->delta = time_elapsed(dm->time, c->time);
    c->time = dm->time;
    c->arrow = first;
    c->file = t->nfiles;
    c->line = dm->line;
}

/* The column of a side of m's session (a dialect whose agents are a capture's sides, MCP's
 * client and server): each session has a pair of its own, the first session's named by the
 * sides alone, a later one's with the session after them. */
static size_t side_column(struct trace_diagram *t, const struct message *m, const char *side)
{
    const char *session = message_session(m);
    if (!session)
        session = "";
    if (!t->first_session)
        t->first_session = xstrdup(session);
    sb_reset(&t->column);
    sb_adds(&t->column, side);
    if (strcmp(session, t->first_session) != 0) {
        size_t len = strlen(session);
        sb_adds(&t->column, " (");
        sb_add(&t->column, session, utf8_cut(session, len, SHORT_ID_MAX));
        sb_adds(&t->column, len > SHORT_ID_MAX ? "...)" : ")");
    }
    return diagram_participant(t->d, t->column.buf);
}

static void add_receiver(struct trace_diagram *t, size_t *arrows, size_t column)
{
    if (*arrows == t->to_cap) {
        t->to_cap = t->to_cap ? 2 * t->to_cap : 8;
        t->to = xrealloc(t->to, t->to_cap * sizeof *t->to);
    }
    t->to[(*arrows)++] = column;
}

/* The columns of m's sender (*from) and receivers (t->to; to, those the envelope names, where
 * the dialect's agents are no capture's sides): how many arrows it draws. */
static size_t columns_of(struct trace_diagram *t, const struct message *m, const struct dialect *d,
                         const char *sender, const struct jv *to, size_t *from)
{
    size_t arrows = 0;
    if (d->capture_sides) {
        *from = side_column(t, m, d->capture_sides[m->capture.out]);
        add_receiver(t, &arrows, side_column(t, m, d->capture_sides[!m->capture.out]));
        return arrows;
    }
    *from = diagram_participant(t->d, sender);
    for (const struct jv *r = dialect_agents_first(to); r; r = dialect_agents_next(to, r)) {
        const char *name = d->agent_name(r);
        if (name)
            add_receiver(t, &arrows, diagram_participant(t->d, name));
    }
    return arrows;
}

/* Whether the drawing can take arrows more; a conversation with a message past it is cut. */
static bool room_for(struct trace_diagram *t, size_t arrows, const char *conversation)
{
    if (!t->stopped && diagram_arrows(t->d) + arrows > t->max_arrows)
        stop_drawing(t);
    if (!t->stopped)
        return true;
    struct drawn_conversation *c = conversation ? conversation_get(t, conversation) : NULL;
    if (c)
        c->cut = true;
    return false;
}

void trace_diagram_message(struct trace_diagram *t, const struct message *m, const char *kind,
                           const char *sender, const char *conversation)
{
    const struct dialect *d = message_dialect(m);
    if (!d || !sender || hidden(t, kind))
        return;
    size_t expected = 1; /* a capture's side to the other */
    const struct jv *to = d->capture_sides ? NULL : receivers(m, d, &expected);
    if (expected == 0 || !room_for(t, expected, conversation))
        return;
    size_t from = 0, arrows = columns_of(t, m, d, sender, to, &from);
    if (!arrows)
        return;
    struct diagram_message dm = {.from = from,
                                 .to = t->to,
                                 .nto = arrows,
                                 .label = label_of(t, m, d, kind),
                                 .file = m->at.file,
                                 .line = m->at.line,
                                 .delta = NAN};
    remember_drawn(t, m, diagram_arrows(t->d) + 1, arrows, from);
    note_conversation(t, conversation, &dm, diagram_arrows(t->d) + 1);
    size_t first = diagram_message(t->d, &dm);
    for (size_t i = 0; i < t->npending; i++)
        diagram_mark(t->d, first, t->pending[i].mark, t->pending[i].diagnostic);
    if (t->ended && conversation && strcmp(t->ended, conversation) == 0) {
        place_outcome(t, t->ended, first, t->ended_end, t->ended_text, false);
        free(t->ended);
        t->ended = NULL;
    }
}

void trace_diagram_outcome(struct trace_diagram *t, const struct conversation_summary *s,
                           const char *outcome)
{
    struct drawn_conversation *c = s->conversation ? conversation_get(t, s->conversation) : NULL;
    bool ends_now = t->now && s->last_line == t->now->at.line && s->last_file && t->now->at.file &&
                    strcmp(s->last_file, t->now->at.file) == 0;
    if (!c && !ends_now)
        return;
    sb_reset(&t->text);
    sb_addf(&t->text, "%s: %s", s->conversation, outcome);
    double took = time_elapsed(s->ended, s->started);
    if (took > 0) {
        char duration[DIAGRAM_DURATION_SIZE];
        diagram_duration(took, duration, sizeof duration);
        sb_addf(&t->text, " after %s", duration);
    }
    if (ends_now) { /* its last message is the one being traced, which is drawn next */
        free(t->ended);
        free(t->ended_text);
        t->ended = xstrdup(s->conversation);
        t->ended_text = xstrdup(t->text.buf);
        t->ended_end = end_of(outcome);
        return;
    }
    /* Its last message drawn; but when a message of a later run of the id was drawn since, that
     * run's entry stays, and this run's outcome goes at its last message if it was drawn. */
    unsigned long file = file_number(t, s->last_file);
    size_t arrow = c->arrow;
    bool later_run = c->file > file || (c->file == file && c->line > s->last_line);
    if (later_run) {
        const struct drawn *last = drawn_at(t, s->last_file, s->last_line);
        arrow = last ? last->first : 0;
    }
    place_outcome(t, s->conversation, arrow, end_of(outcome), t->text.buf, later_run);
}

size_t trace_diagram_arrows(const struct trace_diagram *t)
{
    return diagram_arrows(t->d);
}

void trace_diagram_write(const struct trace_diagram *t, const struct diagram_layout *layout,
                         struct strbuf *out)
{
    diagram_render(t->d, layout, out);
}
