/* acp-validate: checks every message of a stream against IACP 1.1 or FIPA ACL. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "filter.h"
#include "fipa.h"
#include "iacp.h"

enum { OPT_PROTOCOL = OPT_TOOL, OPT_STATELESS };

static const struct opt validate_options[] = {
    {"protocol", OPT_PROTOCOL, required_argument, "PROTO",
     "check as 'iacp', 'fipa', or decide per message ('auto', the default)"},
    {"stateless", OPT_STATELESS, no_argument, NULL,
     "per-message checks only: no stream-level (conversation) checks"},
    {NULL, 0, 0, NULL, NULL},
};

struct validate {
    enum protocol_choice protocol;
    bool stateless;
    struct iacp_rules iacp;
    struct fipa_rules fipa;
    struct engine *engine; /* NULL with --stateless */
};

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct validate *v = ctx;
    switch (key) {
    case OPT_PROTOCOL:
        if (strcmp(arg, "auto") == 0)
            v->protocol = CHOOSE_AUTO;
        else if (strcmp(arg, "iacp") == 0)
            v->protocol = CHOOSE_IACP;
        else if (strcmp(arg, "fipa") == 0)
            v->protocol = CHOOSE_FIPA;
        else {
            options_usage_error("--protocol must be auto, iacp or fipa");
            return false;
        }
        return true;
    case OPT_STATELESS:
        v->stateless = true;
        return true;
    }
    return false;
}

static enum verdict check_message(void *ctx, struct filter *f, struct message *m)
{
    struct validate *v = ctx;
    struct diag_sink *sink = filter_sink(f);
    unsigned long errors_before = sink->errors;
    switch (m->proto) {
    case PROTO_IACP:
        iacp_check(m, &v->iacp, sink);
        break;
    case PROTO_FIPA:
        if (v->engine)
            fipa_check_in_stream(m, &v->fipa, sink);
        else
            fipa_check(m, &v->fipa, sink);
        break;
    case PROTO_NONE:
        diag_emit(sink, &m->at, SEV_ERROR, "no-protocol",
                  "neither IACP (no 'kind' or 'v') nor FIPA (no 'performative')");
        break;
    }
    /* A message that fails its own checks says nothing reliable about its conversation. */
    if (v->engine && sink->errors == errors_before)
        engine_feed(v->engine, m, sink);
    return VERDICT_PASS;
}

static void end_of_input(void *ctx, struct filter *f)
{
    struct validate *v = ctx;
    if (v->engine)
        engine_finish(v->engine, filter_sink(f));
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-validate");
    struct validate v = {.protocol = CHOOSE_AUTO};
    const struct tool_spec spec = {
        .name = "acp-validate",
        .usage = "[OPTION]... [FILE]...",
        .summary = "Check each message of IACP 1.1 or FIPA ACL (JSON Lines) against its "
                   "protocol;\nwrite the valid ones to stdout and report the others on stderr.",
        .options = validate_options,
        .groups = GROUP_CHECKS | GROUP_ENGINE | GROUP_FIPA,
        .handle = handle_option,
        .ctx = &v,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0)
        return 2;
    v.iacp.queen = opts.engine.queen;
    v.fipa.profile = opts.engine.fipa_profile;
    if (!v.stateless)
        v.engine = engine_new(&opts.engine, NULL, NULL);
    const struct filter_config cfg = {.opts = &opts, .protocol = v.protocol, .mode = READ_JSON};
    const struct filter_ops ops = {
        .message = check_message, .end_of_input = end_of_input, .ctx = &v};
    int status = filter_run(&cfg, &ops, argv + first, argc - first);
    engine_free(v.engine);
    options_free(&opts);
    return status;
}
