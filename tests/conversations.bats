load test_helper

# Errors stay with their conversation (issue 38), as a property: every error acp-validate reports
# at a message of a conversation is among that conversation's findings in acp-trace's summaries,
# in the report and under --follow (tests/conversation-findings says how it is checked), over
# every fixture and over generated colonies, with faults planted in the stream and in the
# messages themselves.

setup_file() {
    build_test_programs || return 1
}

# Checks the property on each FILE, with OPTIONS for both tools; fails naming what is missing.
property() {
    local opts=() f out
    while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
        opts+=("$1")
        shift
    done
    for f in "$@"; do
        out=$("$TESTS_DIR/conversation-findings" "${opts[@]}" "$f" 2>&1) || fail "$f: $out"
    done
}

@test "property: the fixtures of the stream checks, IACP and FIPA, and the examples" {
    property "$FIXTURES"/stream-iacp/*.jsonl "$FIXTURES"/stream-fipa/*.jsonl "$EXAMPLES"/*.jsonl
}

@test "property: the JADE captures, in both FIPA profiles" {
    # the Caxton profile wants a content in every message, which JADE's agree leaves out: those
    # fail their own checks, and stay in their conversations
    property "$FIXTURES"/jade/*.acl
    property --fipa-profile=standard "$FIXTURES"/jade/*.acl
}

@test "property: a colony with faults in the stream (tests/faults of gen-colony)" {
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-colony" --faults="$t/faults" 2000 16 3 >"$t/colony.jsonl"
    run -0 "$TESTS_DIR/conversation-findings" "$t/colony.jsonl"
    # the second results of the planted duplicates are among them
    assert_output --regexp '^[1-9][0-9]* errors in conversations'
}

@test "property: a colony and a FIPA capture whose replies fail their own checks" {
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-colony" 3000 16 5 | jq -c '
        if input_line_number % 7 == 0 and .kind == "task.reject" then del(.body.reason)
        elif input_line_number % 5 == 0 and .kind == "task.result" and .body.partial then .body.partial = "yes"
        elif input_line_number % 11 == 0 and .kind == "task.accept" then del(.from)
        else . end' >"$t/colony.jsonl"
    "$ACP_BUILD/gen-fipa" 3000 100 5 | jq -c '
        if input_line_number % 13 == 0 and .performative == "agree" then .performative = "agreed"
        elif input_line_number % 17 == 0 and .performative == "inform" then del(.content)
        elif input_line_number % 19 == 0 and (.in_reply_to | type) == "string" then .in_reply_to = "nowhere"
        else . end' >"$t/fipa.jsonl"
    run -0 "$TESTS_DIR/conversation-findings" "$t/colony.jsonl"
    assert_output --regexp '^[1-9][0-9]* errors in conversations'
    run -0 "$TESTS_DIR/conversation-findings" "$t/fipa.jsonl"
    assert_output --regexp '^[1-9][0-9]* errors in conversations'
}
