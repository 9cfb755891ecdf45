#include "proto/taprecord.h"

#include <math.h>
#include <string.h>

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
    if ((r->message = jv_object_get(view, "message"))) {
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

const struct capture_form capture_form_tap = {
    .name = "acp-tap",
    .too_long = "longer than acp-tap's --max-line-bytes, not kept",
    .read = tap_read,
};
