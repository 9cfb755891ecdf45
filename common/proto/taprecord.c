#include "proto/taprecord.h"

#include <math.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/timeutil.h"

static const struct capture_form *const forms[] = {&capture_form_tap, &capture_form_mcpsnoop, NULL};

bool taprecord_read(const struct jv *view, struct taprecord *r)
{
    for (const struct capture_form *const *form = forms; *form; form++)
        if ((*form)->read(view, r)) {
            r->form = *form;
            return true;
        }
    return false;
}

static enum taprecord_dir dir_of(const char *dir)
{
    if (!dir)
        return TAPRECORD_NO_DIR;
    if (strcmp(dir, "in") == 0)
        return TAPRECORD_IN;
    return strcmp(dir, "out") == 0 ? TAPRECORD_OUT : TAPRECORD_NO_DIR;
}

/* acp-tap's record: tap 1 and a string session mark it. */
static bool tap_read(const struct jv *view, struct taprecord *r)
{
    const struct jv *tap = jv_object_get(view, "tap");
    const struct jv *session = jv_object_get(view, "session");
    if (!jv_is_integer(tap) || jv_integer_value(tap) != 1 || !jv_is_string(session))
        return false;
    *r = (struct taprecord){.session = session, .time = NAN};
    bool zone;
    const char *time = jv_member_string(view, "time");
    if (!time || !time_parse_rfc3339(time, &r->time, &zone))
        r->time = NAN;
    r->dir = dir_of(jv_member_string(view, "dir"));
    const struct jv *text;
    if ((r->message = jv_object_get(view, capture_form_tap.message_member))) {
        r->kind = TAPRECORD_MESSAGE;
    } else if ((text = jv_object_get(view, "text")) && jv_is_string(text)) {
        r->kind = TAPRECORD_TEXT;
        r->text = jv_string_value(text);
        r->text_len = jv_string_length(text);
    } else if (jv_object_get(view, "too_long")) {
        r->kind = TAPRECORD_TOO_LONG;
    } else {
        r->kind = TAPRECORD_EVENT;
        const char *event = jv_member_string(view, "event");
        r->starts_session = event && strcmp(event, "start") == 0;
        r->ends_session = event && strcmp(event, "end") == 0;
    }
    return true;
}

void taprecord_put_head(struct strbuf *out, const char *session_json, size_t len, long long sec,
                        long usec)
{
    sb_adds(out, "{\"tap\":1,\"session\":");
    sb_add(out, session_json, len);
    char stamp[40];
    time_format_rfc3339(sec, stamp, sizeof stamp);
    sb_adds(out, ",\"time\":\"");
    sb_add(out, stamp, strlen(stamp) - 1); /* "...:SSZ" less its Z */
    sb_addf(out, ".%06ldZ\"", usec);
}

bool taprecord_put_head_of(const struct taprecord *r, struct strbuf *out, const char **lost)
{
    if (!isfinite(r->time)) {
        *lost = "a record without a time it can read, which acp-tap's records all have";
        return false;
    }
    struct strbuf session = STRBUF_INIT, json = STRBUF_INIT;
    sb_add(&session, jv_string_value(r->session), jv_string_length(r->session));
    if (r->connection) {
        sb_addc(&session, ':');
        sb_add(&session, jv_string_value(r->connection), jv_string_length(r->connection));
    }
    struct jsonout w;
    jsonout_init(&w, &json, JSONOUT_VALID);
    jsonout_string(&w, session.buf, session.len);
    double whole = floor(r->time);
    long usec = lround((r->time - whole) * 1e6);
    if (usec == 1000000) {
        whole += 1;
        usec = 0;
    }
    taprecord_put_head(out, json.buf, json.len, (long long)whole, usec);
    sb_free(&session);
    sb_free(&json);
    return true;
}

/* acp-tap's records are acp-tap's. */
static bool tap_as_tap(const char *text, size_t len, const struct jv *view,
                       const struct taprecord *r, struct strbuf *out, const char **lost)
{
    (void)view;
    (void)r;
    (void)lost;
    sb_add(out, text, len);
    sb_addc(out, '\n');
    return true;
}

const struct capture_form capture_form_tap = {
    .name = "acp-tap",
    .too_long = "longer than acp-tap's --max-line-bytes, not kept",
    .message_member = "message",
    .read = tap_read,
    .as_tap = tap_as_tap,
};
