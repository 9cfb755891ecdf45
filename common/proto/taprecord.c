#include "proto/taprecord.h"

#include <math.h>
#include <string.h>

#include "base/timeutil.h"

static enum taprecord_dir dir_of(const char *dir)
{
    if (!dir)
        return TAPRECORD_NO_DIR;
    if (strcmp(dir, "in") == 0)
        return TAPRECORD_IN;
    return strcmp(dir, "out") == 0 ? TAPRECORD_OUT : TAPRECORD_NO_DIR;
}

bool taprecord_read(const struct jv *view, struct taprecord *r)
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
        r->event = jv_member_string(view, "event");
    }
    return true;
}
