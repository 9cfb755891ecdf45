#include "live/mockserver.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/strmap.h"
#include "live/answers.h"
#include "proto/dialect.h"
#include "proto/jscan.h"
#include "proto/jsonrpc.h"

/* The recorded responses to one request, in their order. */
struct answers_to {
    char **texts; /* each response's own text, without a newline */
    size_t n, next;
};

struct mockserver {
    struct strmap *by_request; /* answers_request_key -> struct answers_to */
    struct strmap *methods;    /* each method the recording has a request of */
    struct strmap *awaited;    /* session and recorded id -> the request's key */
    struct mockserver_counts counts;
    struct strbuf key;
};

struct mockserver *mockserver_new(void)
{
    struct mockserver *ms = xcalloc(1, sizeof *ms);
    ms->by_request = strmap_new();
    ms->methods = strmap_new();
    ms->awaited = strmap_new();
    return ms;
}

static void answers_to_free(void *v)
{
    struct answers_to *a = v;
    for (size_t i = 0; i < a->n; i++)
        free(a->texts[i]);
    free(a->texts);
    free(a);
}

void mockserver_free(struct mockserver *ms)
{
    if (!ms)
        return;
    strmap_free(ms->by_request, answers_to_free);
    strmap_free(ms->methods, NULL);
    strmap_free(ms->awaited, free);
    sb_free(&ms->key);
    free(ms);
}

/* The session and the id of a recorded message, as the key of the request awaiting it. */
static const char *awaited_key(struct mockserver *ms, const struct message *m, const json_t *msg)
{
    const json_t *id = json_object_get(msg, "id");
    if (!id)
        return NULL;
    const char *session = message_session(m);
    sb_reset(&ms->key);
    jsonrpc_id_text(id, &ms->key);
    sb_addf(&ms->key, "\n%s", session ? session : "");
    return ms->key.buf;
}

static void keep_request(struct mockserver *ms, const struct message *m, const json_t *msg)
{
    struct strbuf request = STRBUF_INIT;
    if (answers_request_key(msg, m->proto, &request)) {
        strmap_put(ms->methods, json_member_string(msg, "method"), ms);
        const char *key = awaited_key(ms, m, msg);
        if (key)
            free(strmap_put(ms->awaited, key, sb_detach(&request)));
    }
    sb_free(&request);
}

static void keep_response(struct mockserver *ms, const struct message *m, const json_t *msg)
{
    const char *key = awaited_key(ms, m, msg);
    char *request = key ? strmap_remove(ms->awaited, key) : NULL;
    if (!request)
        return; /* it answers no request the recording has */
    struct answers_to *a = strmap_get(ms->by_request, request);
    if (!a) {
        a = xcalloc(1, sizeof *a);
        strmap_put(ms->by_request, request, a);
    }
    struct strbuf text = STRBUF_INIT;
    message_own_text(m, &text);
    text.buf[--text.len] = '\0'; /* its newline */
    a->texts = xrealloc(a->texts, (a->n + 1) * sizeof *a->texts);
    a->texts[a->n++] = sb_detach(&text);
    ms->counts.recorded++;
    free(request);
}

void mockserver_record(struct mockserver *ms, const struct message *m)
{
    const struct dialect *d = message_dialect(m);
    if (!d || !d->capture_sides || !m->capture.present || m->capture.event)
        return;
    const json_t *msg = message_tree(m);
    bool from_server = m->capture.out;
    enum jsonrpc_kind kind = jsonrpc_kind_of_tree(msg);
    if (!from_server && kind == JSONRPC_REQUEST)
        keep_request(ms, m, msg);
    else if (from_server && kind == JSONRPC_RESPONSE)
        keep_response(ms, m, msg);
}

/* The recorded response's text with id in place of the recorded one. */
static void put_answer(const char *recorded, const json_t *id, struct strbuf *out)
{
    size_t start, end;
    if (jscan_member_text(recorded, strlen(recorded), "id", &start, &end)) {
        sb_add(out, recorded, start);
        jsonrpc_id_text(id, out);
        sb_adds(out, recorded + end);
    } else { /* "id" spelt with an escape: the response made again */
        json_t *tree = json_loads(recorded, JSON_DECODE_ANY, NULL);
        json_object_set(tree, "id", (json_t *)id);
        char *text = tree ? json_dumps(tree, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(tree);
        if (!text)
            die_oom();
        sb_adds(out, text);
        free(text);
    }
    sb_addc(out, '\n');
}

static void put_error(const json_t *id, int code, const char *message, struct strbuf *out)
{
    json_t *error = jsonrpc_error_response(id, code, message);
    struct jsonout w;
    jsonout_init(&w, out, 0);
    jsonout_value(&w, error);
    sb_addc(out, '\n');
    json_decref(error);
}

static void answer_unrecorded(struct mockserver *ms, const json_t *msg, struct strbuf *out,
                              struct diag_sink *sink, const struct diag_where *at)
{
    const char *method = json_member_string(msg, "method");
    bool known = strmap_get(ms->methods, method) != NULL;
    struct strbuf why = STRBUF_INIT;
    sb_addf(&why,
            known ? "the recording has no %s request with these params"
                  : "Method not found: the recording has no %s request",
            method);
    put_error(json_object_get(msg, "id"), known ? -32602 : -32601, why.buf, out);
    ms->counts.unrecorded++;
    diag_emit(sink, at, "serve-unrecorded", "%s; answered with error %d", why.buf,
              known ? -32602 : -32601);
    sb_free(&why);
}

void mockserver_serve(struct mockserver *ms, const struct message *m, struct strbuf *out,
                      struct diag_sink *sink)
{
    const json_t *msg = message_tree(m);
    struct strbuf request = STRBUF_INIT;
    if (answers_request_key(msg, m->proto, &request)) {
        struct answers_to *a = strmap_get(ms->by_request, request.buf);
        if (a) {
            put_answer(a->texts[a->next], json_object_get(msg, "id"), out);
            if (a->next + 1 < a->n)
                a->next++;
            ms->counts.served++;
        } else {
            answer_unrecorded(ms, msg, out, sink, &m->at);
        }
    }
    sb_free(&request);
}

struct mockserver_counts mockserver_counts(const struct mockserver *ms)
{
    return ms->counts;
}
