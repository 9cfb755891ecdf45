/* mcpsnoop's session logs (github.com/kerlenton/mcpsnoop): its proxy writes one envelope a line
 * for each frame it relays, {"session_id", "server_label", "seq", "ts", "direction",
 * "transport", "raw" | "text", ...}. A frame that was JSON is raw, as it was; one that was not
 * (or was cut at the proxy's frame cap, "truncated") is text. "c2s" goes from the client to the
 * server, the agent it runs; "s2c" back; "stderr" is a line of the server's stderr and "meta" the
 * session's command, no message either. Over HTTP one proxy carries several clients, each a
 * "conn_id", whose ids are their own. The log has no record of a session's end. */
#include <math.h>
#include <string.h>

#include "base/timeutil.h"
#include "proto/taprecord.h"

/* Which way a frame went; false for a direction mcpsnoop does not write. */
static bool direction_of(const char *direction, struct taprecord *r)
{
    if (!direction)
        return false;
    if (strcmp(direction, "c2s") == 0)
        r->dir = TAPRECORD_IN;
    else if (strcmp(direction, "s2c") == 0)
        r->dir = TAPRECORD_OUT;
    else if (strcmp(direction, "meta") == 0) { /* its first record: the session's command */
        r->kind = TAPRECORD_EVENT;
        r->starts_session = true;
    } else if (strcmp(direction, "stderr") == 0)
        r->kind = TAPRECORD_EVENT;
    else
        return false;
    return true;
}

/* An envelope: a string session_id and a direction of mcpsnoop's mark it. */
static bool mcpsnoop_read(const struct jv *view, struct taprecord *r)
{
    const struct jv *session = jv_object_get(view, "session_id");
    if (!jv_is_string(session))
        return false;
    *r = (struct taprecord){
        .session = session, .time = NAN, .dir = TAPRECORD_NO_DIR, .kind = TAPRECORD_MESSAGE};
    if (!direction_of(jv_member_string(view, "direction"), r))
        return false;
    const struct jv *connection = jv_object_get(view, "conn_id");
    if (jv_is_string(connection) && jv_string_length(connection) > 0)
        r->connection = connection;
    bool zone;
    const char *ts = jv_member_string(view, "ts");
    if (!ts || !time_parse_rfc3339(ts, &r->time, &zone))
        r->time = NAN;
    if (r->kind == TAPRECORD_EVENT)
        return true;
    if (jv_is_true(jv_object_get(view, "truncated"))) {
        r->kind = TAPRECORD_TOO_LONG;
        return true;
    }
    if ((r->message = jv_object_get(view, "raw")))
        return true;
    const struct jv *text = jv_object_get(view, "text");
    r->kind = TAPRECORD_TEXT; /* an empty frame has neither */
    r->text = jv_is_string(text) ? jv_string_value(text) : "";
    r->text_len = jv_is_string(text) ? jv_string_length(text) : 0;
    return true;
}

const struct capture_form capture_form_mcpsnoop = {
    .name = "mcpsnoop",
    .too_long = "cut short at mcpsnoop's frame cap",
    .read = mcpsnoop_read,
};
