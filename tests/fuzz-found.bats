# What the fuzz targets (tests/fuzz/) found, each reproduced through the tools. The inputs that
# broke a target also stay in tests/fuzz/regress/TARGET/, which `make fuzz` runs first.
load test_helper

# FIPA JSON through another format and back; the result must equal the input under
# acp-convert(1)'s normalisation: there_and_back FORMAT JSON-LINE...
there_and_back() {
    local via=$1 in=$BATS_TEST_TMPDIR/in
    shift
    printf '%s\n' "$@" >"$in"
    acp-convert --to="$via" "$in" >"$BATS_TEST_TMPDIR/mid" || fail "--to=$via failed"
    acp-convert --to=fipa --from=auto "$BATS_TEST_TMPDIR/mid" >"$BATS_TEST_TMPDIR/back" ||
        fail "back from $via failed"
    diff -u <(jq -S -c -f "$TESTS_DIR/normalise.jq" "$in") \
        <(jq -S -c -f "$TESTS_DIR/normalise.jq" "$BATS_TEST_TMPDIR/back")
}

@test "reader: an over-long string-form message running to the end is stopped at its last line" {
    printf '(inform :sender x :content "%s\nbbbb\n(SUBol' "$(printf 'a%.0s' $(seq 40))" >"$BATS_TEST_TMPDIR/in.acl"
    run -1 --separate-stderr acp-validate --from=fipa-acl --max-line-bytes=30 --max-errors=1 "$BATS_TEST_TMPDIR/in.acl"
    [[ $stderr == *"in.acl:3: note: stopped after 1 error"* ]] || fail "$stderr"
}
