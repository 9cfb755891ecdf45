/* The per-message checks: each line is parsed as JSON (message.c) and checked as IACP and as FIPA
 * in both profiles, alone and as the stream checks see it, with diagnostics in text and in JSON.
 * Properties: every diagnostic is one line safe on a terminal (JSON: a well-formed object with a
 * code of the table); a message is rejected exactly when an error was reported. */
#include "fuzz.h"
#include "proto/fipa.h"
#include "proto/iacp.h"

static void check_line(const struct record *rec, bool json)
{
    struct fuzz_sink s;
    fuzz_sink_begin(&s, json);
    json_t *root = message_parse_json(rec, &s.sink);
    FUZZ_ASSERT(!root == (s.sink.errors > 0), "parse: %lu errors, %s", s.sink.errors,
                root ? "an object" : "no object");
    if (root) {
        static const enum protocol_choice choices[] = {CHOOSE_AUTO, CHOOSE_IACP, CHOOSE_FIPA};
        static const struct iacp_rules iacp = {"queen"}, other_queen = {"forager-07"};
        static const struct fipa_rules caxton = {FIPA_PROFILE_CAXTON},
                                       standard = {FIPA_PROFILE_STANDARD};
        for (size_t i = 0; i < sizeof choices / sizeof *choices; i++) {
            struct message m;
            message_init(&m, rec, json_incref(root), choices[i]);
            if (m.proto == PROTO_IACP) {
                iacp_check(&m, &iacp, &s.sink);
                iacp_check(&m, &other_queen, &s.sink);
            } else if (m.proto == PROTO_FIPA) {
                fipa_check(&m, &caxton, &s.sink);
                fipa_check(&m, &standard, &s.sink);
                fipa_check_in_stream(&m, &caxton, &s.sink);
                fipa_check_in_stream(&m, &standard, &s.sink);
            }
            message_clear(&m);
        }
        json_decref(root);
    }
    fuzz_sink_end(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct fuzz_lines it;
    struct record rec;
    fuzz_lines_init(&it, data, size);
    while (fuzz_next_line(&it, &rec)) {
        check_line(&rec, false);
        check_line(&rec, true);
    }
    return 0;
}
