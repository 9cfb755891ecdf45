/* acp-convert: rewrites a stream of messages from one format into another: IACP 1.1 JSON Lines,
 * Caxton's FIPA JSON Lines, or FIPA's string form as JADE writes it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl.h"
#include "convert.h"
#include "filter.h"
#include "fipa.h"

enum { OPT_FROM = OPT_TOOL, OPT_TO, OPT_SPELLING };

static const struct opt convert_options[] = {
    {"from", OPT_FROM, required_argument, "FORMAT",
     "input format: iacp, fipa, fipa-acl, or auto (the default: per message)"},
    {"to", OPT_TO, required_argument, "FORMAT", "output format: iacp, fipa or fipa-acl (required)"},
    {"spelling", OPT_SPELLING, required_argument, "STYLE",
     "FIPA performatives as snake (default), kebab or upper"},
    {"idle-timeout", OPT_IDLE_TIMEOUT, required_argument, "SECONDS",
     "message time after which a conversation is forgotten (default 3600)"},
    {"max-open", OPT_MAX_OPEN, required_argument, "N",
     "most conversations remembered for conversation_id (default 100000)"},
    {NULL, 0, 0, NULL, NULL},
};

enum format { FORMAT_AUTO, FORMAT_IACP, FORMAT_FIPA, FORMAT_FIPA_ACL, FORMAT_NONE };

struct convert_run {
    enum format from, to;
    enum fipa_spelling spelling;
    struct converter *converter;
    struct strbuf out;
};

static enum format parse_format(const char *s, bool auto_allowed)
{
    if (auto_allowed && strcmp(s, "auto") == 0)
        return FORMAT_AUTO;
    if (strcmp(s, "iacp") == 0)
        return FORMAT_IACP;
    if (strcmp(s, "fipa") == 0)
        return FORMAT_FIPA;
    if (strcmp(s, "fipa-acl") == 0)
        return FORMAT_FIPA_ACL;
    return FORMAT_NONE;
}

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct convert_run *run = ctx;
    switch (key) {
    case OPT_FROM:
        run->from = parse_format(arg, true);
        if (run->from == FORMAT_NONE)
            options_usage_error("--from must be auto, iacp, fipa or fipa-acl");
        return run->from != FORMAT_NONE;
    case OPT_TO:
        run->to = parse_format(arg, false);
        if (run->to == FORMAT_NONE)
            options_usage_error("--to must be iacp, fipa or fipa-acl");
        return run->to != FORMAT_NONE;
    case OPT_SPELLING:
        if (strcmp(arg, "snake") == 0)
            run->spelling = SPELL_SNAKE;
        else if (strcmp(arg, "kebab") == 0)
            run->spelling = SPELL_KEBAB;
        else if (strcmp(arg, "upper") == 0)
            run->spelling = SPELL_UPPER;
        else {
            options_usage_error("--spelling must be snake, kebab or upper");
            return false;
        }
        return true;
    }
    return false;
}

static json_t *parse_acl(void *ctx, struct filter *f, const struct record *rec)
{
    (void)ctx;
    return acl_parse(rec, filter_sink(f));
}

/* The message as FIPA JSON (a new reference), or NULL after an error was reported. */
static json_t *as_fipa(struct convert_run *run, struct message *m, enum protocol proto,
                       struct diag_sink *sink)
{
    if (proto == PROTO_IACP)
        return convert_iacp_to_fipa(run->converter, m->root, sink, &m->at);
    json_t *copy = json_deep_copy(m->root);
    const char *performative = json_member_string(copy, "performative");
    if (!convert_respell(copy, SPELL_SNAKE)) {
        diag_emit(sink, &m->at, SEV_ERROR, "convert-fipa",
                  performative ? "'%s' is not a FIPA act; the message cannot be converted"
                               : "%sno string 'performative': the message cannot be converted",
                  performative ? performative : "");
        json_decref(copy);
        return NULL;
    }
    return copy;
}

static json_t *as_iacp(struct convert_run *run, struct message *m, enum protocol proto,
                       struct diag_sink *sink)
{
    if (proto == PROTO_IACP)
        return json_incref(m->root);
    return convert_fipa_to_iacp(run->converter, m->root, sink, &m->at);
}

static void append_json_line(struct strbuf *out, const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!text)
        die_oom();
    sb_adds(out, text);
    sb_addc(out, '\n');
    free(text);
}

/* Builds the output in run->out, so that nothing is written for a message that fails. */
static bool convert_one(struct convert_run *run, struct message *m, enum protocol proto,
                        struct diag_sink *sink)
{
    json_t *result =
        run->to == FORMAT_IACP ? as_iacp(run, m, proto, sink) : as_fipa(run, m, proto, sink);
    if (!result)
        return false;
    bool ok = true;
    if (run->to == FORMAT_FIPA_ACL) {
        ok = acl_write(&run->out, result, run->spelling == SPELL_UPPER, sink, &m->at);
    } else {
        if (run->to == FORMAT_FIPA)
            convert_respell(result, run->spelling);
        append_json_line(&run->out, result);
    }
    json_decref(result);
    return ok;
}

static enum verdict convert_message(void *ctx, struct filter *f, struct message *m)
{
    struct convert_run *run = ctx;
    struct diag_sink *sink = filter_sink(f);
    /* The string form is FIPA whatever members its user parameters happen to carry. */
    enum protocol proto = m->rec->syntax == SYNTAX_ACL ? PROTO_FIPA : m->proto;
    if (proto == PROTO_NONE) {
        diag_emit(sink, &m->at, SEV_ERROR, "no-protocol",
                  "neither IACP (no 'kind' or 'v') nor FIPA (no 'performative')");
        return VERDICT_WRITTEN;
    }
    unsigned long errors_before = sink->errors;
    sb_reset(&run->out);
    if (convert_one(run, m, proto, sink) && sink->errors == errors_before)
        filter_write(f, run->out.buf, run->out.len);
    return VERDICT_WRITTEN;
}

static enum protocol_choice protocol_choice(enum format from)
{
    switch (from) {
    case FORMAT_IACP:
        return CHOOSE_IACP;
    case FORMAT_FIPA:
    case FORMAT_FIPA_ACL:
        return CHOOSE_FIPA;
    default:
        return CHOOSE_AUTO;
    }
}

static enum reader_mode reader_mode(enum format from)
{
    switch (from) {
    case FORMAT_FIPA_ACL:
        return READ_ACL;
    case FORMAT_AUTO:
        return READ_AUTO;
    default:
        return READ_JSON;
    }
}

static const char help_tail[] =
    "IACP -> FIPA: task.assign request, task.accept agree, task.reject refuse,\n"
    "task.result inform (status ok) or failure, task.cancel cancel, tool.query query_ref,\n"
    "tool.reply inform, hb and mem.sync inform, ctl.drain and ctl.halt request.\n"
    "FIPA -> IACP: a message that came from IACP maps back exactly; any other becomes\n"
    "the kind fipa.<act>. What one side cannot say travels in x-iacp-* / x-fipa-*.\n";

int main(int argc, char **argv)
{
    filter_tool_init("acp-convert");
    struct convert_run run = {.from = FORMAT_AUTO, .to = FORMAT_NONE, .spelling = SPELL_SNAKE};
    const struct tool_spec spec = {
        .name = "acp-convert",
        .usage = "--to=FORMAT [OPTION]... [FILE]...",
        .summary = "Rewrite a stream of messages from one format into another: IACP 1.1 or\n"
                   "FIPA ACL as JSON Lines, or FIPA's string form (SC00070) as JADE writes it.",
        .options = convert_options,
        .groups = GROUP_CHECKS | GROUP_CLOCK | GROUP_FIPA,
        .help_tail = help_tail,
        .handle = handle_option,
        .ctx = &run,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0)
        return 2;
    if (run.to == FORMAT_NONE) {
        options_usage_error("--to=FORMAT is required (iacp, fipa or fipa-acl)");
        options_free(&opts);
        return 2;
    }
    struct convert_config cc = {
        .idle_timeout = opts.engine.idle_timeout,
        .max_open = opts.engine.max_open,
        .seed = opts.seed_given ? opts.seed : (unsigned long)opts.now ^ (unsigned long)getpid(),
        .now = opts.now,
    };
    run.converter = converter_new(&cc);
    const struct filter_config cfg = {
        .opts = &opts, .protocol = protocol_choice(run.from), .mode = reader_mode(run.from)};
    const struct filter_ops ops = {.message = convert_message, .parse_acl = parse_acl, .ctx = &run};
    int status = filter_run(&cfg, &ops, argv + first, argc - first);
    converter_free(run.converter);
    sb_free(&run.out);
    options_free(&opts);
    return status;
}
