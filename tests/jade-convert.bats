load test_helper

# Issue 22's acceptance for acp-convert: the round trips fipa-acl -> fipa -> fipa-acl and
# fipa-acl -> iacp -> fipa-acl give every message back, every content byte for byte (a content
# with a line break may lose the white space around its line breaks, and that only), and every
# other field as it was. Over every JADE capture (tests/fixtures/jade) and every string-form
# fixture of the suites. The contents are compared as the library's reader and parser read
# them (tests/drivers/acl-contents); the other fields as acp-convert reads them back to FIPA
# JSON; and, where JADE_CLASSES names a build of JADE, as JADE's own parser reads them
# (tests/jade/readback).

CONTENTS=$ACP_BUILD/tests/acl-contents

# Every file of the string form the suites hold.
string_form_files() {
    local f
    for f in "$FIXTURES"/jade/*.acl "$FIXTURES"/acl/*.acl "$FIXTURES"/stream-fipa/*.acl; do
        echo "$f"
    done
    grep -l '^(' "$TESTS_DIR"/golden/*/*/input
}

# A content as acl-contents prints it (a JSON string), with the white space around its line
# breaks left out, as a JSON line must.
one_line() {
    jq -r 'if type == "string" and test("[\r\n]") then gsub("[ \t]*[\r\n][ \t\r\n]*"; "") | tojson else tojson end'
}

# round_trip FILE VIA: $out is FILE through VIA and back, the legs' diagnostics in err1, err2;
# fails on any error.
round_trip() {
    out=$BATS_TEST_TMPDIR/$(basename "$1").$2.acl
    acp-convert --fipa-profile=standard --seed=1 --now=1700000000 --from=fipa-acl --to="$2" "$1" \
        2>"$BATS_TEST_TMPDIR/err1" >"$BATS_TEST_TMPDIR/leg1" || fail "$1 to $2: $(cat "$BATS_TEST_TMPDIR/err1")"
    acp-convert --fipa-profile=standard --from="$2" --to=fipa-acl "$BATS_TEST_TMPDIR/leg1" \
        2>"$BATS_TEST_TMPDIR/err2" >"$out" || fail "$1 back from $2: $(cat "$BATS_TEST_TMPDIR/err2")"
    ! grep -E ': error: ' "$BATS_TEST_TMPDIR/err1" "$BATS_TEST_TMPDIR/err2" || fail "$1 via $2: errors"
}

# Every content of the round trip $out is the original's, byte for byte where it has no line
# break; prints how many were compared byte for byte.
same_contents() {
    "$CONTENTS" "$1" >"$BATS_TEST_TMPDIR/want" && "$CONTENTS" "$out" >"$BATS_TEST_TMPDIR/got" || fail "acl-contents failed"
    [ -s "$BATS_TEST_TMPDIR/want" ] || fail "$1: no message"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/want")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/got")" ] ||
        fail "$1 via $2: $(wc -l <"$BATS_TEST_TMPDIR/want") messages, $(wc -l <"$BATS_TEST_TMPDIR/got") back"
    local exact
    exact=$(paste "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | awk -F'\t' '$1 == $2 && $1 !~ /\\[nr]/' | wc -l)
    one_line <"$BATS_TEST_TMPDIR/want" >"$BATS_TEST_TMPDIR/want1"
    one_line <"$BATS_TEST_TMPDIR/got" >"$BATS_TEST_TMPDIR/got1"
    diff "$BATS_TEST_TMPDIR/want1" "$BATS_TEST_TMPDIR/got1" >&2 || fail "$1 via $2: contents differ"
    # a content without a line break comes back byte for byte, not only once line breaks go
    paste "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | awk -F'\t' '$1 !~ /\\[nr]/ && $1 != $2 { bad = 1 } END { exit bad }' ||
        fail "$1 via $2: a content without a line break changed"
    echo "$exact"
}

# Every other field of the round trip $out reads as the original's.
same_fields() {
    local fields='del(.content)'
    acp-convert --fipa-profile=standard --now=1700000000 --from=fipa-acl --to=fipa "$1" 2>/dev/null |
        jq -S -c "$fields" >"$BATS_TEST_TMPDIR/want-fields"
    acp-convert --fipa-profile=standard --now=1700000000 --from=fipa-acl --to=fipa "$out" 2>/dev/null |
        jq -S -c "$fields" >"$BATS_TEST_TMPDIR/got-fields"
    diff "$BATS_TEST_TMPDIR/want-fields" "$BATS_TEST_TMPDIR/got-fields" >&2 || fail "$1 via $2: fields differ"
}

check_round_trips() {
    local via=$1 f exact total=0 files=0
    while read -r f; do
        round_trip "$f" "$via"
        exact=$(same_contents "$f" "$via")
        same_fields "$f" "$via"
        total=$((total + exact)) files=$((files + 1))
    done < <(string_form_files)
    [ "$files" -ge 10 ] || fail "only $files files"
    [ "$total" -ge 1100 ] || fail "only $total contents compared byte for byte"
}

@test "jade-convert: fipa-acl -> fipa -> fipa-acl gives every message, content and field back" {
    check_round_trips fipa
}

@test "jade-convert: fipa-acl -> iacp -> fipa-acl gives every message, content and field back" {
    check_round_trips iacp
}

@test "jade-convert: the JADE captures go through both round trips without a false warning" {
    local f via
    for f in "$FIXTURES"/jade/*.acl; do
        for via in fipa iacp; do
            round_trip "$f" "$via"
            # the only warning: SL content under :language json, which is no JSON
            ! grep -v 'warning: the content is not JSON (invalid token near' "$BATS_TEST_TMPDIR/err1" "$BATS_TEST_TMPDIR/err2" ||
                fail "$f via $via"
        done
    done
}

# Where a JADE build is at hand: JADE's own parser reads both round trips of every capture
# and string-form fixture as it reads the original, field by field. A content with a line
# break may differ only by the white space around its line breaks.
@test "jade-convert: JADE's parser reads every round trip as the original (JADE_CLASSES)" {
    [ -n "${JADE_CLASSES:-}" ] ||
        skip "JADE_CLASSES names no build of JADE (tests/jade/README.md), so JADE's own read-back is not run"
    local files=() f
    while read -r f; do
        files+=("$f")
    done < <(string_form_files)
    run --separate-stderr env ACP_BIN="$ACP_BIN" "$TESTS_DIR/jade/readback" "${files[@]}"
    [ "$status" -le 1 ] || fail "readback: status $status: $stderr"
    # every difference left is a content's white space around a line break
    local diffs
    diffs=$(awk -F'\t' '$4 != "content" || $5 !~ /\\n/ { print; next }
        { before = $5; gsub(/[ ]*\\n[ ]*/, "", before); if (before != $6) print }' <<<"$output")
    [ -z "$diffs" ] || fail "JADE reads differences: $diffs"
    [[ $stderr == *"ReadBack: request.acl via iacp: 344 messages, 344 read back"* ]] || fail "$stderr"
}
