#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/jsonout.h"
#include "base/utf8.h"
#include "io/reader.h"
#include "proto/acl.h"
#include "proto/dialect.h"
#include "proto/fipa.h"
#include "proto/iacp.h"
#include "proto/memberlist.h"

_Noreturn void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: property broken: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fuzz_setup(void)
{
    util_set_progname("fuzz");
    json_set_alloc_funcs(xmalloc, free);
}

void fuzz_lines_init(struct fuzz_lines *it, const uint8_t *data, size_t size)
{
    *it = (struct fuzz_lines){.data = (const char *)data, .size = size};
}

bool fuzz_next_line(struct fuzz_lines *it, struct record *rec)
{
    if (it->pos >= it->size)
        return false;
    const char *p = it->data + it->pos;
    const char *nl = memchr(p, '\n', it->size - it->pos);
    size_t len = nl ? (size_t)(nl - p) : it->size - it->pos;
    *rec = (struct record){.kind = REC_LINE,
                           .syntax = SYNTAX_JSON,
                           .file = "fuzz",
                           .line = ++it->line,
                           .end_line = it->line,
                           .text = p,
                           .raw_len = len,
                           .len = len && p[len - 1] == '\r' ? len - 1 : len,
                           .had_newline = nl != NULL};
    it->pos += len + (nl != NULL);
    return true;
}

struct reader *fuzz_reader_open(const void *text, size_t len, enum reader_mode mode,
                                size_t max_line, const struct reader_hooks *hooks)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-input", MFD_CLOEXEC);
        FUZZ_ASSERT(fd >= 0, "memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_ASSERT(ftruncate(fd, 0) == 0 && pwrite(fd, text, len, 0) == (ssize_t)len,
                "cannot write the memory file");
    struct reader *r = reader_open(path, "fuzz", max_line, mode, hooks);
    FUZZ_ASSERT(r, "cannot open the memory file");
    return r;
}

/* --- diagnostics --- */

void fuzz_sink_begin(struct fuzz_sink *s, bool json)
{
    s->text = NULL;
    s->len = 0;
    s->memory = open_memstream(&s->text, &s->len);
    if (!s->memory)
        die_oom();
    diag_sink_init(&s->sink, s->memory);
    s->sink.format = json ? DIAG_JSON : DIAG_TEXT;
}

/* A line of text that is safe on a terminal: valid UTF-8 without controls or characters that act
 * on a terminal (escape.h). */
static void check_terminal_safe(const char *line, size_t len)
{
    const unsigned char *p = (const unsigned char *)line;
    for (size_t i = 0; i < len;) {
        FUZZ_ASSERT(p[i] >= 0x20 && p[i] != 0x7f, "diagnostic with control byte 0x%02x: %.*s", p[i],
                    (int)len, line);
        size_t n = utf8_sequence_length(p + i, len - i);
        FUZZ_ASSERT(n > 0, "diagnostic with invalid UTF-8 at byte %zu: %.*s", i, (int)len, line);
        FUZZ_ASSERT(n == 1 || !utf8_acts_on_terminal(utf8_decode(p + i, n)),
                    "diagnostic with U+%04X: %.*s", utf8_decode(p + i, n), (int)len, line);
        i += n;
    }
}

static void check_json_diagnostic(const char *line, size_t len)
{
    json_error_t err;
    json_t *d = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
    FUZZ_ASSERT(json_is_object(d), "diagnostic is no JSON object (%s): %.*s", err.text, (int)len,
                line);
    static const char *const strings[] = {"type", "file", "severity", "code", "message"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        FUZZ_ASSERT(json_is_string(json_object_get(d, strings[i])), "diagnostic without %s: %.*s",
                    strings[i], (int)len, line);
    FUZZ_ASSERT(json_is_integer(json_object_get(d, "line")), "diagnostic without line: %.*s",
                (int)len, line);
    const char *code = json_string_value(json_object_get(d, "code"));
    FUZZ_ASSERT(diag_code_find(code), "diagnostic code '%s' is not in the table", code);
    json_decref(d);
}

void fuzz_sink_end(struct fuzz_sink *s)
{
    if (fclose(s->memory) != 0)
        die_oom();
    unsigned long lines = 0;
    for (size_t at = 0; at < s->len;) {
        const char *line = s->text + at;
        const char *nl = memchr(line, '\n', s->len - at);
        FUZZ_ASSERT(nl, "diagnostic without a line end: %s", line);
        size_t len = (size_t)(nl - line);
        check_terminal_safe(line, len);
        if (s->sink.format == DIAG_JSON)
            check_json_diagnostic(line, len);
        at += len + 1;
        lines++;
    }
    FUZZ_ASSERT(lines == s->sink.errors + s->sink.warnings,
                "%lu diagnostic lines for %lu errors and %lu warnings", lines, s->sink.errors,
                s->sink.warnings);
    diag_sink_free(&s->sink);
    free(s->text);
}

/* --- acp-convert(1)'s equality --- */

/* accept-proposal, ACCEPT_PROPOSAL, AcceptProposal -> accept_proposal, as tests/normalise.jq. */
static char *canonical_act(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "", 0);
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i > 0 && isupper(c) && islower((unsigned char)s[i - 1]))
            sb_addc(&sb, '_');
        sb_addc(&sb, c == '-' ? '_' : (char)tolower(c));
    }
    return sb_detach(&sb);
}

static const json_t *single(const json_t *v)
{
    return json_is_array(v) && json_array_size(v) == 1 ? json_array_get(v, 0) : v;
}

static bool equal_values(const json_t *a, const json_t *b);

static bool equal_objects(const json_t *a, const json_t *b)
{
    if (json_object_size(a) != json_object_size(b))
        return false;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)a, key, v)
    {
        const json_t *w = json_object_get(b, key);
        if (!w || !equal_values(v, w))
            return false;
    }
    return true;
}

static bool equal_values(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_OBJECT:
        return equal_objects(a, b);
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!equal_values(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    default:
        return true; /* true, false, null */
    }
}

/* The message under the normalisation: a new object. */
static json_t *normalise(const json_t *msg)
{
    json_t *n = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)msg, key, v)
    {
        if (json_is_null(v))
            continue;
        if (strcmp(key, "performative") == 0 && json_is_string(v)) {
            char *act = canonical_act(json_string_value(v));
            json_object_set_new(n, key, json_string(act));
            free(act);
        } else if (strcmp(key, "receiver") == 0 || strcmp(key, "reply_to") == 0) {
            json_object_set(n, key, (json_t *)single(v));
        } else {
            json_object_set(n, key, v);
        }
    }
    return n;
}

bool fuzz_equal_messages(const json_t *a, const json_t *b)
{
    if (!json_is_object(a) || !json_is_object(b))
        return equal_values(a, b);
    json_t *na = normalise(a), *nb = normalise(b);
    bool equal = equal_values(na, nb);
    json_decref(na);
    json_decref(nb);
    return equal;
}

char *fuzz_dump(const json_t *v)
{
    struct strbuf sb = STRBUF_INIT;
    jsonout_line(&sb, v);
    return sb_detach(&sb);
}

/* --- one message through acp-convert --- */

/* The per-message rules acp-validate --stateless applies to an output, and whether it breaks
 * them: what cmd/acp-convert.c's check_output decides. */
static bool breaks_rules(const json_t *out, enum protocol proto, enum fipa_profile profile,
                         const struct message *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *memory = open_memstream(&text, &len);
    if (!memory)
        die_oom();
    struct diag_sink probe;
    diag_sink_init(&probe, memory);
    probe.format = DIAG_JSON;
    struct message msg;
    message_init(&msg, NULL, json_incref((json_t *)out),
                 proto == PROTO_IACP ? CHOOSE_IACP : CHOOSE_FIPA);
    msg.rec = m->rec;
    msg.at = m->at;
    const struct check_rules rules = {.iacp = {"queen"}, .fipa = {.profile = profile}};
    message_check(&msg, &rules, &probe);
    message_clear(&msg);
    diag_sink_free(&probe);
    if (fclose(memory) != 0)
        die_oom();
    bool broken = false;
    for (char *line = text, *end; line < text + len && !broken; line = end + 1) {
        end = memchr(line, '\n', (size_t)(text + len - line));
        json_t *d = json_loadb(line, (size_t)(end - line), 0, NULL);
        const char *code = json_member_string(d, "code");
        const char *severity = json_member_string(d, "severity");
        broken = code && severity && strcmp(severity, "error") == 0 &&
                 strcmp(code, "iacp-direction") != 0 && strcmp(code, "iacp-reserved-name") != 0;
        json_decref(d);
    }
    free(text);
    return broken;
}

static bool output_allowed(const json_t *out, enum fuzz_format to, const struct message *m,
                           struct diag_sink *sink)
{
    enum protocol proto = to == FUZZ_IACP ? PROTO_IACP : PROTO_FIPA;
    if (!breaks_rules(out, proto, FIPA_PROFILE_CAXTON, m))
        return true;
    if (proto == PROTO_FIPA && !breaks_rules(out, proto, FIPA_PROFILE_STANDARD, m))
        return true;
    diag_emit(sink, &m->at, "convert-output-invalid", "the output breaks its rules");
    return false;
}

bool fuzz_acl_write(struct strbuf *out, const json_t *msg, bool upper, struct diag_sink *sink,
                    const struct diag_where *at)
{
    struct jscan *js = jscan_new();
    bool ok = acl_write(out, jscan_of_tree(js, msg), upper, NULL, sink, at);
    jscan_free(js);
    return ok;
}

/* The line of IACP made of a FIPA message, read back as a tree; NULL after an error. */
static json_t *fipa_to_iacp(struct converter *c, const struct message *m, struct diag_sink *sink)
{
    struct member_list members;
    struct strbuf line = STRBUF_INIT;
    member_list_init(&members);
    json_t *result = NULL;
    bool passes;
    if (convert_fipa_iacp_line(c, m->view, NULL, &members, &line, JSONOUT_VALID, &passes, sink,
                               &m->at)) {
        result = json_loadb(line.buf, line.len, JSON_REJECT_DUPLICATES, NULL);
        if (!result)
            fuzz_fail("the line of IACP made of a FIPA message is no JSON: %s", line.buf);
        FUZZ_ASSERT(!passes || !breaks_rules(result, PROTO_IACP, FIPA_PROFILE_CAXTON, m),
                    "a line said to pass the IACP rules breaks them: %s", line.buf);
    }
    member_list_free(&members);
    sb_free(&line);
    return result;
}

bool fuzz_convert(struct converter *c, const struct message *m, enum fuzz_format to,
                  struct diag_sink *sink, struct strbuf *out)
{
    enum protocol proto = m->rec->syntax == SYNTAX_ACL ? PROTO_FIPA : m->proto;
    json_t *result = NULL;
    if (proto == PROTO_NONE)
        return false;
    unsigned long errors_before = sink->errors;
    if (to == FUZZ_IACP) {
        result = proto == PROTO_IACP ? json_incref(message_tree(m)) : fipa_to_iacp(c, m, sink);
    } else if (proto == PROTO_IACP) {
        result = convert_iacp_to_fipa(c, m->view, sink, &m->at);
    } else {
        result = json_deep_copy(message_tree(m));
        if (!convert_respell(result, SPELL_SNAKE)) {
            json_decref(result);
            return false;
        }
    }
    if (!result)
        return false;
    bool ok;
    if (to == FUZZ_FIPA_ACL)
        ok =
            fuzz_acl_write(out, result, false, sink, &m->at) && output_allowed(result, to, m, sink);
    else if ((ok = output_allowed(result, to, m, sink)))
        jsonout_line(out, result);
    json_decref(result);
    return ok && sink->errors == errors_before;
}

/* --- the round trip --- */

enum { NOW = 1700000000, SEED = 5 };

struct trip {
    json_t **inputs; /* the valid messages, in order */
    size_t ninputs;
    size_t *source; /* for each message written on the way there, its input */
    size_t nwritten;
    /* The first valid input that was not written (SIZE_MAX: none). The way there followed it
     * along the stream and the way back cannot, so a later message whose conversation only it
     * named comes back keeping that conversation_id in x-fipa-conversation_id, as a capture cut
     * in the middle of a conversation does. */
    size_t first_unwritten;
    struct strbuf mid; /* the text written on the way there */
};

static struct converter *new_converter(void)
{
    struct convert_config cfg = {
        .idle_timeout = 3600, .max_open = 100000, .seed = SEED, .now = NOW};
    return converter_new(&cfg);
}

static json_t *parse_record(const struct record *rec, struct diag_sink *sink)
{
    return rec->syntax == SYNTAX_ACL ? acl_parse(rec, sink, NOW) : message_parse_json(rec, sink);
}

/* What acp-validate --stateless says of m: whether it finds no error. */
static bool valid(const struct message *m)
{
    struct diag_sink probe;
    diag_sink_init(&probe, NULL);
    probe.quiet = true;
    static const struct iacp_rules iacp = {"queen"};
    static const struct fipa_rules fipa = {FIPA_PROFILE_CAXTON};
    if (m->proto == PROTO_IACP)
        iacp_check(m, &iacp, &probe);
    else if (m->proto == PROTO_FIPA)
        fipa_check(m, &fipa, &probe);
    bool ok = m->proto != PROTO_NONE && probe.errors == 0;
    diag_sink_free(&probe);
    return ok;
}

/* The way there: the inputs that are valid messages of protocol from, converted to via. */
static void go_there(struct trip *t, const uint8_t *data, size_t size, enum protocol from,
                     enum fuzz_format via, struct fuzz_sink *s)
{
    struct converter *c = new_converter();
    struct reader *r = fuzz_reader_open(data, size, READ_AUTO, 1 << 20, NULL);
    struct record rec;
    struct strbuf out = STRBUF_INIT;
    while (reader_next(r, &rec) > 0) {
        if (rec.kind != REC_LINE || rec.syntax != SYNTAX_JSON)
            continue;
        struct diag_sink quiet;
        diag_sink_init(&quiet, NULL);
        quiet.quiet = true;
        json_t *root = message_parse_json(&rec, &quiet);
        diag_sink_free(&quiet);
        if (!root)
            continue;
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        if (m.proto == from && valid(&m)) {
            t->inputs = xrealloc(t->inputs, (t->ninputs + 1) * sizeof *t->inputs);
            t->inputs[t->ninputs] = json_incref(message_tree(&m));
            sb_reset(&out);
            if (fuzz_convert(c, &m, via, &s->sink, &out)) {
                sb_add(&t->mid, out.buf, out.len);
                t->source = xrealloc(t->source, (t->nwritten + 1) * sizeof *t->source);
                t->source[t->nwritten++] = t->ninputs;
            } else if (t->first_unwritten == SIZE_MAX) {
                t->first_unwritten = t->ninputs;
            }
            t->ninputs++;
        }
        message_clear(&m);
    }
    sb_free(&out);
    reader_close(r);
    converter_free(c);
}

static const char *sink_text(struct fuzz_sink *s)
{
    fflush(s->memory);
    return s->text ? s->text : "";
}

/* The way back: every message written comes back equal to its input. */
static void come_back(struct trip *t, enum fuzz_format via, enum fuzz_format back,
                      struct fuzz_sink *s)
{
    struct converter *c = new_converter();
    struct reader *r = fuzz_reader_open(t->mid.buf, t->mid.len, READ_AUTO, 1 << 24, NULL);
    struct record rec;
    struct strbuf out = STRBUF_INIT;
    size_t k = 0;
    static const char *const names[] = {"iacp", "fipa", "fipa-acl"};
    while (reader_next(r, &rec) > 0) {
        FUZZ_ASSERT(rec.kind == REC_LINE, "a blank or over-long record in the output");
        FUZZ_ASSERT(k < t->nwritten, "more records read back than written");
        const json_t *input = t->inputs[t->source[k++]];
        char *in = fuzz_dump(input);
        json_t *root = parse_record(&rec, &s->sink);
        FUZZ_ASSERT(root, "--to=%s wrote what it cannot read:\n%.*s\nfrom %s%s", names[via],
                    (int)rec.len, rec.text, in, sink_text(s));
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        sb_reset(&out);
        FUZZ_ASSERT(fuzz_convert(c, &m, back, &s->sink, &out),
                    "--to=%s refused what --to=%s wrote:\n%.*s\nfrom %s%s", names[back], names[via],
                    (int)rec.len, rec.text, in, sink_text(s));
        json_t *result = json_loadb(out.buf, out.len, 0, NULL);
        FUZZ_ASSERT(result, "--to=%s wrote no JSON: %s", names[back], out.buf);
        if (back == FUZZ_IACP && t->source[k - 1] > t->first_unwritten &&
            !json_object_get(input, "x-fipa-conversation_id"))
            json_object_del(result, "x-fipa-conversation_id");
        FUZZ_ASSERT(fuzz_equal_messages(input, result),
                    "%s -> %s -> %s differs:\n%svia\n%.*s\nback\n%s", names[back], names[via],
                    names[back], in, (int)rec.raw_len, rec.text, out.buf);
        json_decref(result);
        message_clear(&m);
        free(in);
    }
    FUZZ_ASSERT(k == t->nwritten, "%zu records read back, %zu written", k, t->nwritten);
    sb_free(&out);
    reader_close(r);
    converter_free(c);
}

void fuzz_round_trip(const uint8_t *data, size_t size, enum protocol from, enum fuzz_format via,
                     enum fuzz_format back)
{
    struct trip t = {.first_unwritten = SIZE_MAX, .mid = STRBUF_INIT};
    struct fuzz_sink s;
    fuzz_sink_begin(&s, false);
    go_there(&t, data, size, from, via, &s);
    come_back(&t, via, back, &s);
    fuzz_sink_end(&s);
    for (size_t i = 0; i < t.ninputs; i++)
        json_decref(t.inputs[i]);
    free(t.inputs);
    free(t.source);
    sb_free(&t.mid);
}
