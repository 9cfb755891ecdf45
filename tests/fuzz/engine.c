/* The conversation engine, fed a sequence of messages (IACP and FIPA mixed) as acp-validate feeds
 * it: each line parsed, checked alone, and followed when it passed. Twice: with a tiny --max-open
 * and short timeouts, so that eviction and expiry run on small inputs, and with the defaults and
 * the standard FIPA profile. Properties: every summary handed over is complete (names, an
 * outcome, at least one message, lines in order and within the input); diagnostics are safe on a
 * terminal and well-formed. */
#include "engine/engine.h"
#include "fuzz.h"
#include "proto/fipa.h"
#include "proto/iacp.h"

struct seen {
    unsigned long lines;
    unsigned long summaries;
};

static void on_done(void *ctx, const struct conversation_summary *s)
{
    struct seen *seen = ctx;
    seen->summaries++;
    FUZZ_ASSERT(s->proto == PROTO_IACP || s->proto == PROTO_FIPA, "summary without a protocol");
    FUZZ_ASSERT(s->id && s->protocol && s->initiator && s->outcome && s->first_file,
                "summary with a NULL name");
    FUZZ_ASSERT(s->messages >= 1, "summary of %s with no message", s->id);
    FUZZ_ASSERT(s->first_line >= 1 && s->first_line <= s->last_line && s->last_line <= seen->lines,
                "summary of %s: lines %lu-%lu of %lu", s->id, s->first_line, s->last_line,
                seen->lines);
}

static void run(const uint8_t *data, size_t size, const struct engine_config *cfg, bool json)
{
    struct seen seen = {0};
    struct engine *e = engine_new(cfg, on_done, &seen);
    struct fuzz_sink s;
    fuzz_sink_begin(&s, json);
    const struct iacp_rules iacp = {cfg->queen};
    const struct fipa_rules fipa = {cfg->fipa_profile};
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        seen.lines = rec.line;
        unsigned long errors = s.sink.errors;
        json_t *root = message_parse_json(&rec, &s.sink);
        if (!root)
            continue;
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        if (m.proto == PROTO_IACP)
            iacp_check(&m, &iacp, &s.sink);
        else if (m.proto == PROTO_FIPA)
            fipa_check_in_stream(&m, &fipa, &s.sink);
        if (m.proto != PROTO_NONE && s.sink.errors == errors)
            engine_feed(e, &m, &s.sink);
        message_clear(&m);
    }
    engine_finish(e, &s.sink);
    engine_free(e);
    fuzz_sink_end(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct slot_override slots[] = {{"forager-07", 1}, {"b", 2}};
    struct engine_config small;
    engine_config_defaults(&small);
    small.max_open = 2;
    small.idle_timeout = 30;
    small.assign_timeout = 5;
    small.heartbeat_period = 1;
    small.clock_skew = 1;
    small.max_skew = 0.5;
    small.slots = slots;
    small.nslots = sizeof slots / sizeof *slots;
    run(data, size, &small, false);
    struct engine_config defaults;
    engine_config_defaults(&defaults);
    defaults.fipa_profile = FIPA_PROFILE_STANDARD;
    run(data, size, &defaults, true);
    return 0;
}
