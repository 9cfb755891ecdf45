/* mcpsnoop's session logs (github.com/kerlenton/mcpsnoop): its proxy writes one envelope a line
 * for each frame it relays, {"session_id", "server_label", "seq", "ts", "direction",
 * "transport", "raw" | "text", ...}. A frame that was JSON is raw, as it was; one that was not
 * (or was cut at the proxy's frame cap, "truncated") is text. "c2s" goes from the client to the
 * server, the agent it runs; "s2c" back; "stderr" is a line of the server's stderr and "meta" the
 * session's command, no message either. Over HTTP one proxy carries several clients, each a
 * "conn_id", whose ids are their own. The log has no record of a session's end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
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
    if ((r->message = jv_object_get(view, capture_form_mcpsnoop.message_member)))
        return true;
    const struct jv *text = jv_object_get(view, "text");
    r->kind = TAPRECORD_TEXT; /* an empty frame has neither */
    r->text = jv_is_string(text) ? jv_string_value(text) : "";
    r->text_len = jv_is_string(text) ? jv_string_length(text) : 0;
    return true;
}

/* A member's bytes as the record has them, appended as "name":bytes. */
static bool put_member(const char *text, size_t len, const char *member, const char *name,
                       struct strbuf *out)
{
    size_t start, end;
    if (!jscan_member_text(text, len, member, &start, &end))
        return false;
    sb_addf(out, ",\"%s\":", name);
    sb_add(out, text + start, end - start);
    return true;
}

/* Another form's session start: its command, if it says one, and no pid. */
static void put_start(const struct jv *view, struct strbuf *out)
{
    sb_adds(out, ",\"event\":\"start\",\"pid\":null,\"command\":");
    const struct jv *command = jv_object_get(jv_object_get(view, "raw"), "command");
    json_t *tree = jv_is_array(command) ? jscan_to_tree(command) : json_array();
    char *dumped = json_dumps(tree, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(tree);
    if (!dumped)
        die_oom();
    sb_adds(out, dumped);
    free(dumped);
}

/* An envelope as acp-tap's record: what acp-tap's records cannot say, it says in *lost. */
static bool mcpsnoop_as_tap(const char *text, size_t len, const struct jv *view,
                            const struct taprecord *r, struct strbuf *out, const char **lost)
{
    if (r->kind == TAPRECORD_EVENT && !r->starts_session) {
        *lost = "a line of the server's stderr, which acp-tap leaves alone";
        return false;
    }
    if (r->kind == TAPRECORD_TOO_LONG) {
        *lost = "a line cut short, whose whole length acp-tap's record says";
        return false;
    }
    const struct jv *seq = jv_object_get(view, "seq");
    if (r->kind != TAPRECORD_EVENT && !(jv_is_integer(seq) && jv_integer_value(seq) >= 1)) {
        *lost = "a line without its number in the session (seq)";
        return false;
    }
    size_t before = out->len;
    if (!taprecord_put_head_of(r, out, lost))
        return false;
    if (r->kind == TAPRECORD_EVENT) {
        put_start(view, out);
    } else {
        sb_addf(out, ",\"seq\":%lld,\"dir\":\"%s\"", (long long)jv_integer_value(seq),
                r->dir == TAPRECORD_IN ? "in" : "out");
        if (r->kind == TAPRECORD_TEXT) { /* no message: its text need not keep its escapes */
            struct jsonout w;
            sb_adds(out, ",\"text\":");
            jsonout_init(&w, out, JSONOUT_VALID);
            jsonout_string(&w, r->text, r->text_len);
        } else if (!put_member(text, len, r->form->message_member, "message", out)) {
            out->len = before;
            out->buf[before] = '\0';
            *lost = "a record whose members are spelt with escapes";
            return false;
        }
    }
    sb_adds(out, "}\n");
    return true;
}

const struct capture_form capture_form_mcpsnoop = {
    .name = "mcpsnoop",
    .too_long = "cut short at mcpsnoop's frame cap",
    .message_member = "raw",
    .read = mcpsnoop_read,
    .as_tap = mcpsnoop_as_tap,
};
