#include "report/tracesummary.h"

#include <math.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/timeutil.h"
#include "diag/findings.h"

static void put_time(struct jsonout *w, double t)
{
    char buf[64];
    if (!time_format_rfc3339_ms(t, buf, sizeof buf)) { /* NAN: unknown */
        jsonout_null(w);
        return;
    }
    jsonout_string(w, buf, strlen(buf));
}

static void put_line(struct jsonout *w, unsigned long line)
{
    if (line)
        jsonout_integer(w, (json_int_t)line);
    else
        jsonout_null(w);
}

static void put_issues(struct jsonout *w, const struct findings *f)
{
    jsonout_begin_array(w);
    for (size_t i = 0; f && i < f->n; i++) {
        const struct finding *x = &f->v[i];
        jsonout_begin_object(w);
        JSONOUT_KEY(w, "code");
        jsonout_string_or_null(w, x->code);
        JSONOUT_KEY(w, "severity");
        jsonout_string_or_null(w, diag_severity_word(x->severity));
        JSONOUT_KEY(w, "file");
        jsonout_string_or_null(w, x->file);
        JSONOUT_KEY(w, "line");
        put_line(w, x->line);
        JSONOUT_KEY(w, "related_file");
        jsonout_string_or_null(w, x->related_file);
        JSONOUT_KEY(w, "related_line");
        put_line(w, x->related_line);
        JSONOUT_KEY(w, "message");
        jsonout_string_or_null(w, x->message);
        jsonout_end_object(w);
    }
    jsonout_end_array(w);
}

static void put_duplicate(struct jsonout *w, const struct duplicate_execution *d)
{
    if (!d) {
        jsonout_null(w);
        return;
    }
    jsonout_begin_object(w);
    JSONOUT_KEY(w, "node");
    jsonout_string_or_null(w, d->node);
    JSONOUT_KEY(w, "assigns");
    jsonout_begin_array(w);
    jsonout_string_or_null(w, d->assigns[0]);
    jsonout_string_or_null(w, d->assigns[1]);
    jsonout_end_array(w);
    JSONOUT_KEY(w, "foragers");
    jsonout_begin_array(w);
    jsonout_string_or_null(w, d->foragers[0]);
    jsonout_string_or_null(w, d->foragers[1]);
    jsonout_end_array(w);
    jsonout_end_object(w);
}

void trace_summary_write(const struct conversation_summary *s, const char *outcome,
                         struct strbuf *out)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_TERMINAL);
    jsonout_begin_object(&w);
    JSONOUT_KEY(&w, "type");
    jsonout_string_or_null(&w, "conversation");
    JSONOUT_KEY(&w, "conversation");
    jsonout_string_or_null(&w, s->conversation);
    JSONOUT_KEY(&w, "protocol");
    jsonout_string_or_null(&w, s->protocol);
    if (s->method) { /* a conversation of one request: what it asked, of what, and the error */
        JSONOUT_KEY(&w, "method");
        jsonout_string_or_null(&w, s->method);
        JSONOUT_KEY(&w, "subject");
        jsonout_string_or_null(&w, s->subject);
        JSONOUT_KEY(&w, "error_code");
        if (s->has_error_code)
            jsonout_integer(&w, (json_int_t)s->error_code);
        else
            jsonout_null(&w);
    }
    JSONOUT_KEY(&w, "initiator");
    jsonout_string_or_null(&w, s->initiator);
    JSONOUT_KEY(&w, "participants");
    jsonout_begin_array(&w);
    for (size_t i = 0; i < s->nparticipants; i++)
        jsonout_string_or_null(&w, s->participants[i]);
    jsonout_end_array(&w);
    JSONOUT_KEY(&w, "messages");
    jsonout_integer(&w, (json_int_t)s->messages);
    JSONOUT_KEY(&w, "file");
    jsonout_string_or_null(&w, s->first_file);
    JSONOUT_KEY(&w, "first_line");
    put_line(&w, s->first_line);
    JSONOUT_KEY(&w, "last_file");
    jsonout_string_or_null(&w, s->last_file);
    JSONOUT_KEY(&w, "last_line");
    put_line(&w, s->last_line);
    JSONOUT_KEY(&w, "start");
    put_time(&w, s->started);
    JSONOUT_KEY(&w, "end");
    put_time(&w, s->ended);
    JSONOUT_KEY(&w, "duration");
    jsonout_number(&w, time_elapsed(s->ended, s->started));
    JSONOUT_KEY(&w, "latency");
    jsonout_begin_object(&w);
    for (size_t i = 0; i < s->nlatency; i++) {
        jsonout_key(&w, s->latency[i].name);
        jsonout_number(&w, s->latency[i].seconds);
    }
    jsonout_end_object(&w);
    JSONOUT_KEY(&w, "outcome");
    jsonout_string_or_null(&w, outcome);
    JSONOUT_KEY(&w, "duplicate");
    put_duplicate(&w, s->duplicate);
    JSONOUT_KEY(&w, "issues");
    put_issues(&w, s->findings);
    JSONOUT_KEY(&w, "issues_omitted");
    jsonout_integer(&w, s->findings ? (json_int_t)s->findings->omitted : 0);
    if (s->span) { /* last, so that acp-trace --merge leaves it out as it writes the rest */
        JSONOUT_KEY(&w, "span");
        jsonout_text(&w, s->span, strlen(s->span));
    }
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}

void trace_span_write(const struct conversation_summary *s, struct strbuf *out)
{
    struct jsonout w;
    jsonout_init(&w, out, JSONOUT_TERMINAL);
    jsonout_begin_object(&w);
    JSONOUT_KEY(&w, "type");
    jsonout_string_or_null(&w, "span");
    JSONOUT_KEY(&w, "span");
    jsonout_text(&w, s->span, strlen(s->span));
    jsonout_end_object(&w);
    sb_addc(out, '\n');
}
