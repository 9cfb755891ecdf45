/* MCP's capabilities (Base Protocol, Lifecycle, Capability Negotiation; revisions 2024-11-05 to
 * 2025-11-25): each side declares in initialize what it offers, and both MUST only use the
 * capabilities negotiated. A request or a notification that needs the other side's capability
 * (the server's tools for tools/call, the client's sampling for sampling/createMessage) is told
 * when the session's initialization, which the input holds, did not declare it. */
#include <string.h>

#include "base/escape.h"
#include "engine/mcp_stream_parts.h"

/* A capability: a member of capabilities, or a flag within one ("listChanged": true). */
struct capability {
    const char *name;
    const char *flag; /* NULL: the member alone */
};

enum {
    TOOLS,
    TOOLS_LIST_CHANGED,
    RESOURCES,
    RESOURCES_SUBSCRIBE,
    RESOURCES_LIST_CHANGED,
    PROMPTS,
    PROMPTS_LIST_CHANGED,
    LOGGING,
    COMPLETIONS,
    TASKS,
    ROOTS,
    ROOTS_LIST_CHANGED,
    SAMPLING,
    ELICITATION,
    CAPABILITIES,
};

static const struct capability capabilities[CAPABILITIES] = {
    [TOOLS] = {"tools", NULL},
    [TOOLS_LIST_CHANGED] = {"tools", "listChanged"},
    [RESOURCES] = {"resources", NULL},
    [RESOURCES_SUBSCRIBE] = {"resources", "subscribe"},
    [RESOURCES_LIST_CHANGED] = {"resources", "listChanged"},
    [PROMPTS] = {"prompts", NULL},
    [PROMPTS_LIST_CHANGED] = {"prompts", "listChanged"},
    [LOGGING] = {"logging", NULL},
    [COMPLETIONS] = {"completions", NULL},
    [TASKS] = {"tasks", NULL},
    [ROOTS] = {"roots", NULL},
    [ROOTS_LIST_CHANGED] = {"roots", "listChanged"},
    [SAMPLING] = {"sampling", NULL},
    [ELICITATION] = {"elicitation", NULL},
};

/* What a method needs of the side it goes to. */
struct need {
    const char *method;
    int capability;
};

/* A client's requests and notifications, and what they need of the server. */
static const struct need of_server[] = {
    {"tools/list", TOOLS},
    {"tools/call", TOOLS},
    {"resources/list", RESOURCES},
    {"resources/templates/list", RESOURCES},
    {"resources/read", RESOURCES},
    {"resources/subscribe", RESOURCES_SUBSCRIBE},
    {"resources/unsubscribe", RESOURCES_SUBSCRIBE},
    {"prompts/list", PROMPTS},
    {"prompts/get", PROMPTS},
    {"logging/setLevel", LOGGING},
    {"tasks/get", TASKS},
    {"tasks/result", TASKS},
    {"tasks/list", TASKS},
    {"tasks/cancel", TASKS},
    {NULL, 0},
};

/* completion/complete needs the server's completions from 2025-03-26, which added the capability
 * (2024-11-05 had the method without one). */
static const struct need completion = {"completion/complete", COMPLETIONS};

/* A server's, and what they need of the client. Its notifications need its own capabilities,
 * which of_own lists. */
static const struct need of_client[] = {
    {"sampling/createMessage", SAMPLING},
    {"elicitation/create", ELICITATION},
    {"roots/list", ROOTS},
    {"tasks/get", TASKS},
    {"tasks/result", TASKS},
    {"tasks/list", TASKS},
    {"tasks/cancel", TASKS},
    {NULL, 0},
};

/* Notifications that a side sends of a capability it declared itself. */
static const struct need server_own[] = {
    {"notifications/tools/list_changed", TOOLS_LIST_CHANGED},
    {"notifications/resources/list_changed", RESOURCES_LIST_CHANGED},
    {"notifications/resources/updated", RESOURCES_SUBSCRIBE},
    {"notifications/prompts/list_changed", PROMPTS_LIST_CHANGED},
    {"notifications/message", LOGGING},
    {NULL, 0},
};
static const struct need client_own[] = {
    {"notifications/roots/list_changed", ROOTS_LIST_CHANGED},
    {NULL, 0},
};

uint32_t mcp_capabilities_of(const struct jv *declared)
{
    uint32_t set = 0;
    for (int c = 0; c < CAPABILITIES; c++) {
        const struct jv *member = jv_object_get(declared, capabilities[c].name);
        if (!jv_is_object(member))
            continue;
        if (!capabilities[c].flag || jv_is_true(jv_object_get(member, capabilities[c].flag)))
            set |= 1u << c;
    }
    return set;
}

static const struct need *need_of(const struct need *table, const struct jv *method)
{
    for (const struct need *n = table; n->method; n++)
        if (jv_string_is(method, n->method))
            return n;
    return NULL;
}

/* The capability "name" or "name.flag", for a diagnostic. */
static void capability_name(struct strbuf *out, int c)
{
    sb_adds(out, capabilities[c].name);
    if (capabilities[c].flag) {
        sb_addc(out, '.');
        sb_adds(out, capabilities[c].flag);
    }
}

static void tell(const struct fed *f, const struct jv *method, int c, const char *whose,
                 struct diag_sink *sink)
{
    struct strbuf shown = STRBUF_INIT, name = STRBUF_INIT;
    escape_text(&shown, jv_string_value(method), jv_string_length(method), 80);
    capability_name(&name, c);
    diag_emit(sink, &f->m->at, "mcp-capability", "'%s' needs the %s capability %s, not declared",
              shown.buf, whose, name.buf);
    sb_free(&name);
    sb_free(&shown);
}

/* What a request of the client needs of the server in a session of revision (NULL: unknown). */
static const struct need *server_need(const struct jv *method, const char *revision)
{
    const struct need *n = need_of(of_server, method);
    if (n || !revision || strcmp(revision, "2025-03-26") < 0)
        return n;
    return jv_string_is(method, completion.method) ? &completion : NULL;
}

void mcp_capabilities_check(struct mcp_stream *s, const struct session *sess, const struct fed *f,
                            const struct jv *msg, enum side side, struct diag_sink *sink)
{
    const struct jv *method = jv_object_get(msg, "method");
    if (!jv_is_string(method) || !sess->capabilities_known || side == SIDE_UNKNOWN)
        return;
    bool from_client = side == SIDE_CLIENT;
    const struct need *n = from_client ? server_need(method, mcp_session_revision(s, sess))
                                       : need_of(of_client, method);
    if (n && !((from_client ? sess->server_capabilities : sess->client_capabilities) &
               (1u << n->capability))) {
        tell(f, method, n->capability, from_client ? "server's" : "client's", sink);
        return;
    }
    n = need_of(from_client ? client_own : server_own, method);
    if (n && !((from_client ? sess->client_capabilities : sess->server_capabilities) &
               (1u << n->capability)))
        tell(f, method, n->capability, from_client ? "client's own" : "server's own", sink);
}
