/* acp-send's MEMBER=VALUE parser (common/compose.h), then the rest of acp-send's way to the wire:
 * the arguments (one a line of the input) composed into an object, written as the one record
 * acp-send reads back, completed (outgoing.h), put in order, checked, and written as it is sent.
 * A file named by @FILE holds its own name and a newline ("-" holds a JSON object), and one whose
 * name starts with "!" cannot be read. Properties: compose_member gives a reason exactly when it
 * fails, and leaves the object as it was then; what it composes reads back as the same object;
 * a message acp-send's checks pass is one acp-validate --stateless accepts as it goes out (the
 * line sent, read again and checked, has no error); diagnostics as in every target. */
#include <string.h>

#include "base/jsonout.h"
#include "fuzz.h"
#include "live/outgoing.h"
#include "proto/compose.h"
#include "proto/fipa.h"
#include "proto/iacp.h"
#include "proto/idgen.h"

static bool read_file(void *ctx, const char *path, struct strbuf *out, struct strbuf *err)
{
    (void)ctx;
    if (path[0] == '!') {
        sb_adds(err, "cannot open: No such file or directory");
        return false;
    }
    sb_adds(out, strcmp(path, "-") == 0 ? "{\"performative\":\"inform\",\"sender\":\"a\"}" : path);
    sb_addc(out, '\n');
    return true;
}

/* The per-message checks acp-send runs (and acp-validate --stateless), with errors counted. */
static unsigned long check(const struct message *m, struct diag_sink *sink)
{
    static const struct iacp_rules iacp = {"queen"};
    static const struct fipa_rules fipa = {FIPA_PROFILE_CAXTON};
    unsigned long before = sink->errors;
    if (m->proto == PROTO_IACP)
        iacp_check(m, &iacp, sink);
    else if (m->proto == PROTO_FIPA)
        fipa_check(m, &fipa, sink);
    return sink->errors - before;
}

static struct record record_of(const struct strbuf *line)
{
    size_t len = line->len && line->buf[line->len - 1] == '\n' ? line->len - 1 : line->len;
    return (struct record){.kind = REC_LINE,
                           .syntax = SYNTAX_JSON,
                           .file = "<arguments>",
                           .line = 1,
                           .end_line = 1,
                           .text = line->buf,
                           .raw_len = len,
                           .len = len,
                           .had_newline = false};
}

/* acp-send from the record of its arguments on: complete, order, check, and what goes out. */
static void send(const json_t *base, struct idgen *ids)
{
    struct strbuf line = STRBUF_INIT;
    jsonout_line(&line, base);
    struct record rec = record_of(&line);
    struct fuzz_sink s;
    fuzz_sink_begin(&s, false);
    json_t *root = message_parse_json(&rec, &s.sink);
    if (root) {
        FUZZ_ASSERT(json_equal(root, base), "the composed object reads back different: %s",
                    line.buf);
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        if (m.proto != PROTO_NONE) {
            struct outgoing_config oc = {.queen = "queen", .ids = ids, .now = 1312284100.25};
            outgoing_complete(message_tree(&m), m.proto, false, &oc);
            json_t *msg = outgoing_ordered(message_tree(&m), m.proto);
            struct message out;
            message_init(&out, NULL, json_incref(msg),
                         m.proto == PROTO_FIPA ? CHOOSE_FIPA : CHOOSE_IACP);
            out.rec = &rec;
            out.at = m.at;
            out.at.id = out.id;
            if (check(&out, &s.sink) == 0) {
                struct strbuf sent = STRBUF_INIT;
                jsonout_line(&sent, msg);
                struct record again = record_of(&sent);
                struct fuzz_sink v;
                fuzz_sink_begin(&v, false);
                json_t *got = message_parse_json(&again, &v.sink);
                FUZZ_ASSERT(got, "what acp-send sends is no JSON object: %s", sent.buf);
                struct message w;
                message_init(&w, &again, got, CHOOSE_AUTO);
                FUZZ_ASSERT(w.proto == m.proto, "what acp-send sends changed protocol: %s",
                            sent.buf);
                unsigned long errors = check(&w, &v.sink);
                fflush(v.memory);
                FUZZ_ASSERT(errors == 0,
                            "acp-validate rejects what acp-send checked and sent: %s%s", sent.buf,
                            v.text ? v.text : "");
                message_clear(&w);
                fuzz_sink_end(&v);
                sb_free(&sent);
            }
            message_clear(&out);
            json_decref(msg);
        }
        message_clear(&m);
    }
    fuzz_sink_end(&s);
    sb_free(&line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    const struct compose_files files = {.read = read_file};
    json_t *base = json_object();
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        char *arg = xstrndup(rec.text, rec.raw_len); /* up to a NUL, as argv is */
        json_t *before = json_deep_copy(base);
        struct strbuf err = STRBUF_INIT;
        bool ok = compose_member(base, arg, &files, &err);
        FUZZ_ASSERT(ok == !err.len, "'%s': %s, %s reason", arg, ok ? "set" : "failed",
                    err.len ? "a" : "no");
        FUZZ_ASSERT(ok || json_equal(before, base), "'%s' failed and changed the object", arg);
        json_decref(before);
        sb_free(&err);
        free(arg);
    }
    struct idgen_config ic = {.seed = 1, .keep_for = 3600, .max_ids = 100};
    struct idgen *ids = idgen_new(&ic);
    send(base, ids);
    idgen_free(ids);
    json_decref(base);
    return 0;
}
