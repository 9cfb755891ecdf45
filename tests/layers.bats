#!/usr/bin/env bats
# make layers (scripts/layers): common/ is a library in layers, and the check that keeps it so
# fails on each kind of include that breaks the rule. Each case plants one include in a copy of
# the tree.

load test_helper

setup() {
    tree=$BATS_TEST_TMPDIR/tree
    mkdir -p "$tree/scripts"
    cp -R "$TESTS_DIR/../common" "$TESTS_DIR/../cmd" "$TESTS_DIR/../bench" \
        "$TESTS_DIR/../examples" "$tree/"
    mkdir -p "$tree/tests"
    cp -R "$TESTS_DIR/drivers" "$TESTS_DIR/fuzz" "$tree/tests/"
    cp "$TESTS_DIR/../scripts/layers" "$tree/scripts/"
}

plant() { # FILE LINE: adds the include line at the top of FILE in the copy
    local f=$tree/$1
    { printf '%s\n' "$2"; cat "$f"; } >"$f.new" && mv "$f.new" "$f"
}

@test "layers: the tree as it is keeps the layers" {
    run "$tree/scripts/layers"
    assert_success
    assert_output ''
}

@test "layers: an include that points up a layer fails" {
    plant common/proto/fipa.c '#include "engine/engine.h"'
    run "$tree/scripts/layers"
    assert_failure
    assert_output --partial 'common/proto/fipa.c:1: engine/engine.h: proto/ is below engine/'
}

@test "layers: live/ and report/ may not include from each other" {
    plant common/live/peer.c '#include "report/diagram.h"'
    plant common/report/diagram.c '#include "live/peer.h"'
    run "$tree/scripts/layers"
    assert_failure
    assert_output --partial 'common/live/peer.c:1: report/diagram.h: live/ and report/ stand side by side'
    assert_output --partial 'common/report/diagram.c:1: live/peer.h: report/ and live/ stand side by side'
}

@test "layers: an include without its folder fails, in common/ and in the programs" {
    plant common/base/hashtab.c '#include "util.h"'
    plant cmd/acp-trace.c '#include "engine.h"'
    plant tests/drivers/pool.c '#include "pool.h"'
    run "$tree/scripts/layers"
    assert_failure
    assert_output --partial 'common/base/hashtab.c:1: util.h: an include names its folder'
    assert_output --partial 'cmd/acp-trace.c:1: engine.h: an include names its folder'
    assert_output --partial 'tests/drivers/pool.c:1: pool.h: an include names its folder'
}

@test "layers: a program may include a header of its own folder by name" {
    run grep -c '#include "fuzz.h"' "$tree/tests/fuzz/acl.c"
    assert_output 1
    run "$tree/scripts/layers"
    assert_success
}

@test "layers: an include of a header that is not there, or of no layer, fails" {
    plant common/engine/engine.c '#include "base/nosuch.h"'
    plant cmd/acp-send.c '#include "misc/util.h"'
    run "$tree/scripts/layers"
    assert_failure
    assert_output --partial 'common/engine/engine.c:1: base/nosuch.h: no such header in common/'
    assert_output --partial 'cmd/acp-send.c:1: misc/util.h: no such layer: misc'
}

# append FILE LINE...: adds lines at the end of FILE in the copy
append() {
    local f=$tree/$1
    shift
    printf '%s\n' "$@" >>"$f"
}

@test "layers: outside a dialect's files, a line that names a dialect's value or calls what its table offers fails" {
    append common/report/tracestats.c 'static int planted(const struct message *m) { return m->proto == PROTO_FIPA; }'
    append common/live/session.c 'static void planted(const struct message *m, struct diag_sink *s) { iacp_check(m, NULL, s); }'
    append cmd/acp-trace.c 'static int planted(int c) { return c == CHOOSE_IACP; }'
    append common/report/tracesummary.c 'static int planted(const struct message *m) { return m->proto == PROTO_MCP; }'
    append common/live/peer.c 'static void planted(const struct message *m, struct diag_sink *s) { jsonrpc_check_shape(m, NULL, s); }'
    run "$tree/scripts/layers"
    assert_failure
    assert_output --partial "common/report/tracesummary.c:$(wc -l <"$tree/common/report/tracesummary.c"): names a dialect outside its files"
    assert_output --partial "common/live/peer.c:$(wc -l <"$tree/common/live/peer.c"): names a dialect outside its files"
    assert_output --partial "common/report/tracestats.c:$(wc -l <"$tree/common/report/tracestats.c"): names a dialect outside its files"
    assert_output --partial "common/live/session.c:$(wc -l <"$tree/common/live/session.c"): names a dialect outside its files"
    assert_output --partial "cmd/acp-trace.c:$(wc -l <"$tree/cmd/acp-trace.c"): names a dialect outside its files"
}

@test "layers: a dialect's own files, the tables and the mapping may name it; elsewhere a line that says why" {
    append common/proto/fipa.c 'static int planted(const struct message *m) { return m->proto == PROTO_FIPA; }'
    append common/engine/iacp_stream.c 'static int planted(const struct message *m) { return m->proto == PROTO_IACP; }'
    append common/live/answers_fipa.c 'static int planted(int p) { return p == PROTO_FIPA; }'
    append common/proto/convert.c 'static int planted(int p) { return p == PROTO_IACP; }'
    append common/proto/mcp.c 'static int planted(const struct message *m) { return m->proto == PROTO_MCP; }'
    append common/report/tracestats.c '/* dialect: planted, with its reason */' \
        'static int planted(const struct message *m) { return m->proto == PROTO_FIPA; }'
    run "$tree/scripts/layers"
    assert_success
    assert_output ''
}

@test "dialects: every dialect of the table fills every hook, and the look-ups find it" {
    build_test_programs
    run -0 "$ACP_BUILD/tests/dialects"
    assert_output $'iacp: 23 hooks\nfipa: 23 hooks\nmcp: 23 hooks'
}
