/* acp-validate: checks every message of a stream against IACP 1.1 or FIPA ACL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "proto/acl.h"
#include "proto/dialect.h"
#include "tool/filter.h"

enum { OPT_PROTOCOL = OPT_TOOL, OPT_STATELESS, OPT_FROM, OPT_PASS, OPT_PARTITION };

static const struct opt validate_options[] = {
    {"protocol", OPT_PROTOCOL, required_argument, "PROTO",
     "check as 'iacp', 'fipa', 'mcp', or decide per message ('auto', the default)"},
    {"from", OPT_FROM, required_argument, "FORMAT",
     "input: json, fipa-acl (FIPA's string form), or auto (default: per record)"},
    {"now", OPT_NOW, required_argument, "TIME",
     "relative date-times count from TIME (default: SOURCE_DATE_EPOCH, else the clock)"},
    {"stateless", OPT_STATELESS, no_argument, NULL,
     "per-message checks only: no stream-level (conversation) checks"},
    {"pass", OPT_PASS, required_argument, "WHICH",
     "write 'valid' messages (default), 'well-formed' (whatever the stream checks found), or "
     "'all'"},
    {"partition", OPT_PARTITION, required_argument, "K/N",
     "check partition K of N alone: the messages whose key NATS maps there (acp(7))"},
    {NULL, 0, 0, NULL, NULL},
};

struct validate {
    enum protocol_choice protocol;
    enum reader_mode mode;
    bool mode_given;
    bool stateless;
    enum pass_rule pass;
    unsigned long partition, partitions; /* --partition=K/N */
    struct check_rules rules;            /* --stateless: the checks alone */
    struct engine *engine;               /* NULL with --stateless */
    const struct engine_config *engine_config;
    enum engine_digest digest; /* --jobs: workers digest the messages for the stream checks */
};

/* --protocol: auto, or a dialect by its name. */
static bool parse_protocol(const char *arg, enum protocol_choice *choice)
{
    size_t n = 0;
    while (dialects[n])
        n++;
    const char **words = xcalloc(n + 2, sizeof *words);
    words[0] = "auto";
    for (size_t i = 0; i < n; i++)
        words[i + 1] = dialects[i]->name;
    int i = options_choice("protocol", arg, words);
    free(words);
    if (i >= 0)
        *choice = i ? (enum protocol_choice)dialects[i - 1]->proto : CHOOSE_AUTO;
    return i >= 0;
}

static bool handle_option(void *ctx, int key, const char *arg)
{
    struct validate *v = ctx;
    switch (key) {
    case OPT_PROTOCOL:
        return parse_protocol(arg, &v->protocol);
    case OPT_STATELESS:
        v->stateless = true;
        return true;
    case OPT_PARTITION:
        return options_partition(arg, &v->partition, &v->partitions);
    case OPT_PASS: {
        static const char *const words[] = {"valid", "well-formed", "all", NULL};
        static const enum pass_rule rules[] = {PASS_VALID, PASS_WELL_FORMED, PASS_ALL};
        int i = options_choice("pass", arg, words);
        if (i >= 0)
            v->pass = rules[i];
        return i >= 0;
    }
    case OPT_FROM: {
        static const char *const words[] = {"auto", "json", "fipa-acl", NULL};
        static const enum reader_mode modes[] = {READ_AUTO, READ_JSON, READ_ACL};
        int i = options_choice("from", arg, words);
        if (i >= 0) {
            v->mode = modes[i];
            v->mode_given = true;
        }
        return i >= 0;
    }
    }
    return false;
}

/* IACP is JSON: asked to check IACP only, a record starting with "(" is no string form. */
static bool settle_mode(struct validate *v)
{
    if (v->protocol != CHOOSE_IACP) /* dialect: the string form is FIPA's alone */
        return true;
    if (v->mode == READ_ACL) {
        options_usage_error("--from=fipa-acl reads FIPA messages, not --protocol=iacp");
        return false;
    }
    if (!v->mode_given)
        v->mode = READ_JSON;
    return true;
}

/* The per-message checks: in worker threads with --jobs. */
static bool check_alone(void *ctx, struct message *m, struct jscan *scratch, struct diag_sink *sink)
{
    (void)scratch;
    struct validate *v = ctx;
    if (!v->stateless)
        return engine_check_message(v->engine_config, m, v->digest, sink);
    message_check(m, &v->rules, sink);
    return true;
}

/* The stream checks, in order. */
static enum verdict check_in_stream(void *ctx, struct filter *f, struct message *m)
{
    struct validate *v = ctx;
    engine_check_passed(v->engine, m, m->passed, filter_sink(f));
    return VERDICT_PASS;
}

static void end_of_input(void *ctx, struct filter *f)
{
    struct validate *v = ctx;
    if (v->engine)
        engine_finish(v->engine, filter_sink(f));
}

static double idle(void *ctx, struct filter *f)
{
    struct validate *v = ctx;
    return v->engine ? engine_idle(v->engine, filter_sink(f)) : INFINITY;
}

int main(int argc, char **argv)
{
    filter_tool_init("acp-validate");
    struct validate v = {.protocol = CHOOSE_AUTO, .mode = READ_AUTO};
    const struct tool_spec spec = {
        .name = "acp-validate",
        .usage = "[OPTION]... [FILE]...",
        .summary = "Check each message of IACP 1.1 or FIPA ACL (JSON Lines, or FIPA's string "
                   "form)\nagainst its protocol; write the valid ones to stdout and report the "
                   "others on stderr.",
        .options = validate_options,
        .groups = GROUP_CHECKS | GROUP_ENGINE | GROUP_LINGER | GROUP_LIVE | GROUP_FIPA |
                  GROUP_PROGRESS | GROUP_JOBS,
        .handle = handle_option,
        .ctx = &v,
    };
    struct common_opts opts;
    int first = options_parse(&spec, &opts, argc, argv);
    if (first < 0 || !settle_mode(&v)) {
        options_free(&opts);
        return 2;
    }
    v.rules = (struct check_rules){.iacp = {.queen = opts.engine.queen},
                                   .fipa = {.profile = opts.engine.fipa_profile}};
    opts.engine.partition = v.partition;
    opts.engine.partitions = v.partitions;
    v.engine_config = &opts.engine;
    /* all the stream checks read of a message: its view is not kept for them */
    v.digest = opts.jobs != 1 ? DIGEST_ONLY : DIGEST_NONE;
    if (!v.stateless)
        v.engine = engine_new(&opts.engine, NULL, NULL);
    const struct filter_config cfg = {
        .opts = &opts,
        .protocol = v.protocol,
        .mode = v.mode,
        .pass = v.pass,
        .partition = {.k = v.partition, .n = v.partitions, .queen = opts.engine.queen}};
    const struct filter_ops ops = {.prepare = check_alone,
                                   .message = v.engine ? check_in_stream : NULL,
                                   .end_of_input = end_of_input,
                                   .parse_acl = acl_parse_hook,
                                   .idle = opts.engine.wall_clock ? idle : NULL,
                                   .ctx = &v,
                                   .heavy_in_order = v.engine != NULL};
    int status = filter_run(&cfg, &ops, argv + first, argc - first);
    engine_free(v.engine);
    options_free(&opts);
    return status;
}
