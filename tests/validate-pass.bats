# acp-validate --pass: which messages go on to the next tool when the stream checks found something.
load test_helper

setup_file() {
    build_test_programs
}

# A colony of 2,000 messages with faults planted for the stream checks, and what they must find.
colony() {
    "$ACP_BUILD/gen-colony" --faults="$BATS_TEST_TMPDIR/faults" 2000 8 5 >"$BATS_TEST_TMPDIR/colony"
}

# The codes of the findings on stderr file $1, one a line, sorted.
codes_of() {
    sed -n 's/.*\[\([a-z0-9-]*\)\]$/\1/p' "$1" | sort
}

@test "--pass=well-formed: the tracer behind finds every stream fault, with no false orphan" {
    colony
    local t=$BATS_TEST_TMPDIR
    sh_run "acp-validate --pass=well-formed --rejects='$t/rejects' '$t/colony' 2>'$t/validate' |
        acp-trace >/dev/null 2>'$t/trace'"
    awk '{print $2}' "$t/faults" | sort >"$t/want"
    [ -s "$t/want" ] || fail "the capture has no planted fault"
    diff -u "$t/want" <(codes_of "$t/validate") || fail "acp-validate's findings"
    diff -u "$t/want" <(codes_of "$t/trace") || fail "acp-trace's findings behind acp-validate"
    [ ! -s "$t/rejects" ] || fail "a message passed also went to --rejects"
    diff -q "$t/colony" <(acp-validate --pass=well-formed "$t/colony" 2>/dev/null) ||
        fail "not every message passed"
}

@test "--pass=well-formed keeps the exit status: 1 when the stream checks found an error" {
    colony
    run acp-validate --pass=well-formed -q "$BATS_TEST_TMPDIR/colony"
    assert_failure 1
    "$ACP_BUILD/gen-colony" 500 4 3 >"$BATS_TEST_TMPDIR/clean"
    run acp-validate --pass=well-formed -q "$BATS_TEST_TMPDIR/clean"
    assert_success
}

@test "--pass=valid, the default, still rejects what the stream checks found" {
    colony
    local t=$BATS_TEST_TMPDIR
    acp-validate --rejects="$t/rejects" "$t/colony" >"$t/default" 2>/dev/null || true
    acp-validate --pass=valid "$t/colony" 2>/dev/null | diff -q "$t/default" - || fail "--pass=valid differs"
    [ -s "$t/rejects" ] || fail "no message rejected by default"
}

@test "--pass=well-formed rejects a message that fails its own checks; --pass=all passes every JSON object" {
    local in
    in=$(lines_file \
        '{"v":"1.1","id":"m-1","from":"forager-07","to":"queen","kind":"hb","ts":1312284200,"body":{"slots":1}}' \
        '{"v":"1.1","id":"m-2","from":"forager-07","to":"queen","kind":"task.reject","ts":1312284201,"ref":"q-1","body":{}}' \
        '{"v":"1.1","id":"m-3","from":"forager-07","to":"queen","kind":"hb","ts":1312284202,"body":{"slots":1}' \
        '(inform :sender (agent-identifier :name a) :content "x")' \
        '[1,2]')
    local t=$BATS_TEST_TMPDIR
    run acp-validate --pass=well-formed --rejects="$t/wf-rejects" "$in"
    assert_failure 1
    diff -u <(sed -n '2,5p' "$in") "$t/wf-rejects" || fail "a message with an error of its own passed"
    run --separate-stderr acp-validate --pass=all --rejects="$t/all-rejects" "$in"
    assert_failure 1
    assert_line --index 0 --partial '"id":"m-1"'
    assert_line --index 1 --partial '"id":"m-2"'
    assert_line --index 2 '(inform :sender (agent-identifier :name a) :content "x")'
    assert_equal "${#lines[@]}" 3
    diff -u <(sed -n '3p;5p' "$in") "$t/all-rejects" || fail "--rejects holds what is not an object"
}

@test "--pass=well-formed with -j 2 passes what -j 1 passes" {
    colony
    local t=$BATS_TEST_TMPDIR
    acp-validate --pass=well-formed "$t/colony" >"$t/one" 2>"$t/one-err" || true
    acp-validate --pass=well-formed -j 2 "$t/colony" >"$t/two" 2>"$t/two-err" || true
    diff -q "$t/one" "$t/two" || fail "stdout differs"
    diff -u "$t/one-err" "$t/two-err" || fail "stderr differs"
}

@test "--pass takes valid, well-formed or all" {
    run acp-validate --pass=some /dev/null
    assert_failure 2
    assert_output --partial "--pass must be valid, well-formed or all"
}
