/* MCP's opening of a session, by a client of both eras (opening.h). */
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "live/opening_rules.h"
#include "proto/mcp.h"

/* The revision a legacy session asks for when --mcp-revision names none: the newest of them. */
static const char LEGACY_REVISION[] = "2025-11-25";
/* UnsupportedProtocolVersionError (2026-07-28, Versioning). */
enum { UNSUPPORTED_VERSION = -32022, METHOD_NOT_FOUND = -32601 };

#define META_PREFIX "io.modelcontextprotocol/"

enum mcp_step {
    STEP_PROBE,       /* server/discover */
    STEP_INITIALIZE,  /* initialize */
    STEP_INITIALIZED, /* notifications/initialized, to send */
    STEP_OPEN,
};

struct mcp_opening {
    struct opening base;
    struct opening_config cfg;
    enum mcp_step step;
    bool sent;            /* the step's request went */
    json_t *awaited;      /* its id */
    const char *revision; /* one of mcp_revisions, once known */
};

static struct mcp_opening *mcp_of(struct opening *o)
{
    return (struct mcp_opening *)o;
}

static const struct mcp_opening *const_mcp_of(const struct opening *o)
{
    return (const struct mcp_opening *)o;
}

/* The revision of mcp_revisions spelled so, or NULL. */
static const char *known_revision(const char *name)
{
    for (const char *const *r = mcp_revisions; name && *r; r++)
        if (strcmp(*r, name) == 0)
            return *r;
    return NULL;
}

/* The newest modern revision (one without sessions) that list (an array of strings) names. */
static const char *newest_modern(const json_t *list)
{
    const char *best = NULL;
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
    {
        const char *r = known_revision(json_string_value(v));
        if (r && !mcp_revision_has_sessions(r) && (!best || strcmp(r, best) > 0))
            best = r;
    }
    return best;
}

static void say(struct opening *o, const char *text)
{
    sb_reset(&o->why);
    sb_adds(&o->why, text);
}

static void open_at(struct mcp_opening *m, const char *revision)
{
    m->revision = revision;
    m->step = STEP_OPEN;
    m->base.state = OPENING_DONE;
    sb_reset(&m->base.why);
    sb_addf(&m->base.why, "open at revision %s", revision);
}

static void fail(struct mcp_opening *m, const char *text)
{
    say(&m->base, text);
    m->base.state = OPENING_FAILED;
}

static void begin_initialize(struct mcp_opening *m)
{
    m->step = STEP_INITIALIZE;
    m->sent = false;
    m->revision = m->cfg.revision ? m->cfg.revision : LEGACY_REVISION;
    say(&m->base, "sending initialize");
}

static struct opening *mcp_new(const struct opening_config *cfg)
{
    struct mcp_opening *m = xcalloc(1, sizeof *m);
    m->base.rules = &mcp_opening_rules;
    m->base.state = OPENING_UNDER_WAY;
    m->cfg = *cfg;
    say(&m->base, "probing with server/discover");
    if (!cfg->revision)
        m->step = STEP_PROBE;
    else if (mcp_revision_has_sessions(cfg->revision))
        begin_initialize(m);
    else
        open_at(m, cfg->revision);
    return &m->base;
}

static void mcp_free(struct opening *o)
{
    json_decref(mcp_of(o)->awaited);
    free(o);
}

/* The _meta of a modern request: its revision, the client and its capabilities (none). */
static json_t *modern_meta(const struct mcp_opening *m, const char *revision)
{
    return json_pack("{s:s, s:{s:s, s:s}, s:{}}", META_PREFIX "protocolVersion", revision,
                     META_PREFIX "clientInfo", "name", m->cfg.client_name, "version",
                     m->cfg.client_version, META_PREFIX "clientCapabilities");
}

static json_t *request(struct mcp_opening *m, const char *method, json_t *params)
{
    json_t *id = json_integer((*m->cfg.next_number)++);
    json_decref(m->awaited);
    m->awaited = json_incref(id);
    m->sent = true;
    return json_pack("{s:s, s:o, s:s, s:o}", "jsonrpc", "2.0", "id", id, "method", method, "params",
                     params);
}

static json_t *mcp_next(struct opening *o)
{
    struct mcp_opening *m = mcp_of(o);
    switch (m->step) {
    case STEP_PROBE:
        if (m->sent)
            return NULL;
        say(o, "waiting for the response to server/discover");
        return request(m, "server/discover",
                       json_pack("{s:o}", "_meta", modern_meta(m, "2026-07-28")));
    case STEP_INITIALIZE:
        if (m->sent)
            return NULL;
        say(o, "waiting for the response to initialize");
        return request(m, "initialize",
                       json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", m->revision,
                                 "capabilities", "clientInfo", "name", m->cfg.client_name,
                                 "version", m->cfg.client_version));
    case STEP_INITIALIZED:
        open_at(m, m->revision);
        return json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized");
    case STEP_OPEN:
        break;
    }
    return NULL;
}

static void take_discovery(struct mcp_opening *m, const json_t *result, const json_t *error)
{
    const json_t *code = json_object_get(error, "code");
    if (error && !(json_is_integer(code) && json_integer_value(code) == UNSUPPORTED_VERSION)) {
        begin_initialize(m); /* a legacy server: any error that is not a modern one */
        return;
    }
    const json_t *list = result ? json_object_get(result, "supportedVersions")
                                : json_object_get(json_object_get(error, "data"), "supported");
    const char *revision = newest_modern(list);
    if (revision) {
        open_at(m, revision);
        return;
    }
    struct strbuf why = STRBUF_INIT;
    sb_adds(&why, "the server supports no modern revision this client speaks (");
    if (list) {
        struct jsonout w;
        jsonout_init(&w, &why, 0);
        jsonout_value(&w, list);
    } else {
        sb_adds(&why, "none");
    }
    sb_addc(&why, ')');
    fail(m, why.buf);
    sb_free(&why);
}

static void take_initialized(struct mcp_opening *m, const json_t *result, const json_t *error)
{
    struct strbuf why = STRBUF_INIT;
    if (error) {
        sb_adds(&why, "the server answered initialize with ");
        jsonrpc_describe_error(error, &why);
        fail(m, why.buf);
    } else {
        const char *agreed = json_member_string(result, "protocolVersion");
        const char *revision = known_revision(agreed);
        if (revision && mcp_revision_has_sessions(revision)) {
            m->revision = revision;
            m->step = STEP_INITIALIZED;
        } else {
            sb_addf(&why,
                    "the server's initialize result agrees on protocolVersion %s, which "
                    "this client does not speak",
                    agreed ? agreed : "(none)");
            fail(m, why.buf);
        }
    }
    sb_free(&why);
}

static bool mcp_take(struct opening *o, const json_t *msg)
{
    struct mcp_opening *m = mcp_of(o);
    if (!m->sent || json_object_get(msg, "method") ||
        !json_equal(json_object_get(msg, "id"), m->awaited))
        return false;
    const json_t *result = json_object_get(msg, "result");
    const json_t *error = json_object_get(msg, "error");
    if (m->step == STEP_PROBE)
        take_discovery(m, result, error);
    else if (m->step == STEP_INITIALIZE)
        take_initialized(m, result, error);
    return true;
}

static void mcp_expire(struct opening *o)
{
    struct mcp_opening *m = mcp_of(o);
    if (m->step == STEP_PROBE)
        begin_initialize(m); /* a legacy server may say nothing to what it does not know */
    else
        fail(m, "no response to initialize in time (--io-timeout)");
}

static const char *mcp_revision(const struct opening *o)
{
    return const_mcp_of(o)->revision;
}

/* A modern request carries the revision, the client and its capabilities in params._meta. */
static void mcp_complete(const struct opening *o, json_t *msg)
{
    const struct mcp_opening *m = const_mcp_of(o);
    if (mcp_revision_has_sessions(m->revision) || !mcp_request_tree(msg))
        return;
    json_t *params = json_object_get(msg, "params");
    if (!params) {
        params = json_object();
        json_object_set_new(msg, "params", params);
    }
    if (!json_is_object(params))
        return; /* the checks told what is wrong with it */
    json_t *meta = json_object_get(params, "_meta");
    if (!meta) {
        meta = json_object();
        json_object_set_new(params, "_meta", meta);
    }
    if (json_is_object(meta)) {
        json_t *ours = modern_meta(m, m->revision);
        json_object_update_missing(meta, ours);
        json_decref(ours);
    }
}

static json_t *mcp_respond(const struct opening *o, const json_t *msg)
{
    (void)o;
    if (!mcp_request_tree(msg))
        return NULL;
    json_t *id = json_object_get(msg, "id");
    if (strcmp(json_member_string(msg, "method"), "ping") == 0)
        return json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id", id, "result");
    return jsonrpc_error_response(id, METHOD_NOT_FOUND,
                                  "Method not found: this client offers none");
}

const struct opening_rules mcp_opening_rules = {
    .proto = PROTO_MCP,
    .new = mcp_new,
    .free = mcp_free,
    .next = mcp_next,
    .take = mcp_take,
    .expire = mcp_expire,
    .revision = mcp_revision,
    .complete = mcp_complete,
    .respond = mcp_respond,
};
