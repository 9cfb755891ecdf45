#include "proto/jsonrpc.h"

#include <string.h>

#include "base/escape.h"
#include "base/jsonout.h"

enum jsonrpc_kind jsonrpc_kind_of(const struct jv *view)
{
    if (!jv_object_get(view, "method"))
        return JSONRPC_RESPONSE;
    return jv_object_get(view, "id") ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
}

enum jsonrpc_kind jsonrpc_kind_of_tree(const json_t *msg)
{
    if (!json_object_get(msg, "method"))
        return JSONRPC_RESPONSE;
    return json_object_get(msg, "id") ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
}

const char *jsonrpc_response_act_tree(const json_t *msg)
{
    if (json_object_get(msg, "error"))
        return "(error)";
    return json_object_get(msg, "result") ? "(result)" : "(no method)";
}

void jsonrpc_id_text(const json_t *id, struct strbuf *out)
{
    struct jsonout w;
    jsonout_init(&w, out, 0);
    jsonout_value(&w, id);
}

void jsonrpc_describe_error(const json_t *error, struct strbuf *out)
{
    const json_t *code = json_object_get(error, "code");
    if (json_is_integer(code))
        sb_addf(out, "error %lld", (long long)json_integer_value(code));
    else
        sb_adds(out, "an error");
    const char *message = json_member_string(error, "message");
    if (message)
        sb_addf(out, ": %s", message);
}

json_t *jsonrpc_error_response(const json_t *id, int code, const char *message)
{
    json_t *response = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
                                 id ? id : json_null(), "error", "code", code, "message", message);
    if (!response)
        die_oom();
    return response;
}

/* A method's string is compared with its length: it may hold a NUL. */
static bool listed(const char *const *methods, const struct jv *method)
{
    for (const char *const *name = methods; name && *name; name++)
        if (jv_string_is(method, *name))
            return true;
    return false;
}

static enum jsonrpc_side side_of(const char *const *client, const char *const *server,
                                 const struct jv *method)
{
    if (!jv_is_string(method))
        return JSONRPC_EITHER;
    if (listed(client, method))
        return JSONRPC_CLIENT;
    return listed(server, method) ? JSONRPC_SERVER : JSONRPC_EITHER;
}

enum jsonrpc_side jsonrpc_request_side(const struct jsonrpc_profile *profile,
                                       const struct jv *method)
{
    return side_of(profile->client_requests, profile->server_requests, method);
}

enum jsonrpc_side jsonrpc_notification_side(const struct jsonrpc_profile *profile,
                                            const struct jv *method)
{
    return side_of(profile->client_notifications, profile->server_notifications, method);
}

static const char *type_name(const struct jv *v)
{
    static const char *const names[] = {
        [JV_OBJECT] = "an object",   [JV_ARRAY] = "an array",     [JV_STRING] = "a string",
        [JV_INTEGER] = "an integer", [JV_REAL] = "a real number", [JV_TRUE] = "true",
        [JV_FALSE] = "false",        [JV_NULL] = "null",
    };
    return names[v->type];
}

static void check_version(const struct message *m, struct diag_sink *sink)
{
    const struct jv *v = jv_object_get(m->view, "jsonrpc");
    const char *s = jv_string_value(v);
    if (s && strcmp(s, "2.0") == 0)
        return;
    if (!v) {
        diag_emit(sink, &m->at, "jsonrpc-version", "no jsonrpc member: it must be \"2.0\"");
        return;
    }
    if (!s) {
        diag_emit(sink, &m->at, "jsonrpc-version", "jsonrpc must be the string \"2.0\", not %s",
                  type_name(v));
        return;
    }
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, s, jv_string_length(v), 40);
    diag_emit(sink, &m->at, "jsonrpc-version", "jsonrpc must be \"2.0\", not \"%s\"", shown.buf);
    sb_free(&shown);
}

/* A request's id: a string or a number in the core (null discouraged, a fraction too); the
 * profile may allow only strings and integers. */
static void check_request_id(const struct message *m, const struct jv *id,
                             const struct jsonrpc_profile *p, struct diag_sink *sink)
{
    if (jv_is_string(id) || jv_is_integer(id))
        return;
    if (jv_is_null(id) || jv_is_real(id)) {
        if (p->id_strict_code)
            diag_emit(sink, &m->at, p->id_strict_code, "a request's id must not be %s",
                      jv_is_null(id) ? "null" : "a number with a fraction");
        return;
    }
    diag_emit(sink, &m->at, "jsonrpc-id", "an id must be a string or a number, not %s",
              type_name(id));
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void check_call(const struct message *m, const struct jsonrpc_profile *p,
                       struct diag_sink *sink)
{
    const struct jv *method = jv_object_get(m->view, "method");
    const struct jv *id = jv_object_get(m->view, "id");
    if (!jv_is_string(method))
        diag_emit(sink, &m->at, "jsonrpc-method", "method must be a string, not %s",
                  type_name(method));
    if (jv_object_get(m->view, "result") || jv_object_get(m->view, "error"))
        diag_emit(sink, &m->at, "jsonrpc-shape",
                  "a message with a method is a request or a notification: it carries no result "
                  "or error");
    const struct jv *params = jv_object_get(m->view, "params");
    if (params && !jv_is_object(params) && !jv_is_array(params))
        diag_emit(sink, &m->at, "jsonrpc-params", "params must be an object or an array, not %s",
                  type_name(params));
    else if (jv_is_array(params) && p->params_object_code)
        diag_emit(sink, &m->at, p->params_object_code, "params must be an object, not an array");
    if (!id)
        return;
    check_request_id(m, id, p, sink);
    const char *name = jv_string_value(method);
    if (p->notification_prefix && name && starts_with(name, p->notification_prefix))
        diag_emit(sink, &m->at, p->notification_id_code,
                  "a notification carries no id (its method starts with %s)",
                  p->notification_prefix);
}

bool jsonrpc_code_reserved(long long code)
{
    if (code < -32768 || code > -32000)
        return false; /* the application's */
    if (code >= -32099)
        return false; /* implementation-defined server errors */
    return code != -32700 && (code < -32603 || code > -32600);
}

static void check_error_object(const struct message *m, const struct jv *error,
                               struct diag_sink *sink)
{
    if (!jv_is_object(error)) {
        diag_emit(sink, &m->at, "jsonrpc-error", "error must be an object, not %s",
                  type_name(error));
        return;
    }
    const struct jv *code = jv_object_get(error, "code");
    if (!code)
        diag_emit(sink, &m->at, "jsonrpc-error", "the error has no code (an integer)");
    else if (!jv_is_integer(code))
        diag_emit(sink, &m->at, "jsonrpc-error", "error.code must be an integer, not %s",
                  type_name(code));
    else if (jsonrpc_code_reserved(jv_integer_value(code)))
        diag_emit(sink, &m->at, "jsonrpc-error-reserved",
                  "error.code %lld is reserved by JSON-RPC 2.0 for future use",
                  (long long)jv_integer_value(code));
    const struct jv *message = jv_object_get(error, "message");
    if (!message)
        diag_emit(sink, &m->at, "jsonrpc-error", "the error has no message (a string)");
    else if (!jv_is_string(message))
        diag_emit(sink, &m->at, "jsonrpc-error", "error.message must be a string, not %s",
                  type_name(message));
}

static void check_response(const struct message *m, struct diag_sink *sink)
{
    const struct jv *id = jv_object_get(m->view, "id");
    const struct jv *result = jv_object_get(m->view, "result");
    const struct jv *error = jv_object_get(m->view, "error");
    if (!id && !result && !error) {
        diag_emit(sink, &m->at, "jsonrpc-shape",
                  "neither a request (method) nor a response (id, with result or error)");
        return;
    }
    if (!id)
        diag_emit(sink, &m->at, "jsonrpc-shape", "a response carries the id of its request");
    else if (jv_is_null(id) && !error)
        diag_emit(sink, &m->at, "jsonrpc-id",
                  "a null id answers only a request that could not be read, with an error");
    else if (!jv_is_null(id) && !jv_is_string(id) && !jv_is_number(id))
        diag_emit(sink, &m->at, "jsonrpc-id", "an id must be a string or a number, not %s",
                  type_name(id));
    if (result && error)
        diag_emit(sink, &m->at, "jsonrpc-response",
                  "a response carries a result or an error, not both");
    else if (!result && !error)
        diag_emit(sink, &m->at, "jsonrpc-response", "a response carries a result or an error");
    if (error)
        check_error_object(m, error, sink);
}

static void check_one(const struct message *m, const struct jsonrpc_profile *profile,
                      struct diag_sink *sink);

/* A batch: each element a message, checked as one (JSON-RPC 2.0, section 6). */
static void check_batch(const struct message *m, const struct jsonrpc_profile *profile,
                        struct diag_sink *sink)
{
    if (!jv_array_size(m->view)) {
        diag_emit(sink, &m->at, "jsonrpc-shape",
                  "an empty batch: a batch holds one message or more");
        return;
    }
    struct message one = *m;
    for (const struct jv *e = jv_array_first(m->view); e; e = jv_array_next(m->view, e)) {
        if (!jv_is_object(e)) {
            diag_emit(sink, &m->at, "jsonrpc-shape", "a batch holds messages, not %s",
                      type_name(e));
            continue;
        }
        one.view = e;
        check_one(&one, profile, sink);
    }
}

void jsonrpc_check_shape(const struct message *m, const struct jsonrpc_profile *profile,
                         struct diag_sink *sink)
{
    if (jv_is_array(m->view))
        check_batch(m, profile, sink);
    else
        check_one(m, profile, sink);
}

static void check_one(const struct message *m, const struct jsonrpc_profile *profile,
                      struct diag_sink *sink)
{
    check_version(m, sink);
    if (jsonrpc_kind_of(m->view) == JSONRPC_RESPONSE)
        check_response(m, sink);
    else
        check_call(m, profile, sink);
}
