# The hot path's JSON scanner (common/proto/jscan.h) against jansson, which it stands in for: through
# a driver (tests/drivers/jscan-diff.c) that gives each text to both and fails on any difference
# in verdict (accept or reject) or, for an accepted text, in the value (members in order, numbers
# to the bit). Every fixture, golden input and example, line by line and whole; the bad-input
# cases, each of which both must reject; the edges of depth and number range; and mutations.
# What the tools say of a rejected line is held by the golden cases
# tests/golden/validate/scanner-rejects-as-jansson*, written by the jansson-only acp-validate.
load test_helper

setup_file() {
    build_test_programs
}

setup() {
    DIFF=$ACP_BUILD/tests/jscan-diff
    ROOT=$TESTS_DIR/..
}

# The texts that every test below feeds to the driver.
fixtures() {
    printf '%s\n' "$FIXTURES"/*/* "$ROOT"/examples/*.jsonl "$TESTS_DIR"/golden/*/*/input \
        "$TESTS_DIR"/golden/*/*/stdout
}

@test "every fixture, golden case and example: the scanner agrees with jansson, line by line" {
    mapfile -t files < <(fixtures)
    run -0 "$DIFF" "${files[@]}"
    assert_output --regexp '^[0-9]+ texts, [1-9][0-9]* accepted, [1-9][0-9]* rejected$'
}

@test "every fixture, golden case and example, each file as one text" {
    mapfile -t files < <(fixtures)
    run -0 "$DIFF" -w "${files[@]}"
}

@test "the bad-input cases: invalid JSON, UTF-8, NUL, duplicate keys, range, depth: both reject each" {
    local in=$TESTS_DIR/golden/validate/scanner-rejects-as-jansson/input
    run -0 "$DIFF" -v "$in"
    # The lines acp-validate (jansson only, when the case was written) reports no parse error for:
    # the good ones, the emoji id, a body within the depth limit, a 1e-400 that is 0, and the
    # JSON that is no object.
    local accepted=" 1 14 29 30 45 46 49 51 55 56 57 58 59 61 " want
    want=$(awk -v a="$accepted" '{ print index(a, " " NR " ") ? "accept" : "reject" }' "$in")
    assert_output "$(printf '%s\n' "$want" '61 texts, 14 accepted, 47 rejected')"
}

@test "depth: jansson's limit of 2048 counts every value, scalars too" {
    local d lines=()
    for d in 2047 2048 2049; do
        lines+=("$(printf '%*s' "$d" '' | tr ' ' '[')$(printf '%*s' "$d" '' | tr ' ' ']')")
        lines+=("$(printf '%*s' "$d" '' | tr ' ' '[')1$(printf '%*s' "$d" '' | tr ' ' ']')")
        lines+=("$(printf '{"a":%.0s' $(seq "$d"))0$(printf '}%.0s' $(seq "$d"))")
    done
    run -0 "$DIFF" -v "$(lines_file "${lines[@]}")"
    assert_output "$(printf '%s\n' accept accept accept accept reject reject reject reject reject \
        '9 texts, 4 accepted, 5 rejected')"
}

@test "numbers: integers overflow json_int_t and reals overflow double where jansson says" {
    # 1.7976931348623159e308 rounds up past DBL_MAX; a long integer is an integer, not a real.
    local in
    in=$(lines_file 9223372036854775807 -9223372036854775808 9223372036854775808 \
        -9223372036854775809 123456789012345678 99999999999999999999 1e400 -1e400 1e-400 \
        4.9e-324 1.7976931348623157e308 1.7976931348623159e308 -0 -0.0 0e0 01 1. .5 - 1e+ +1 \
        "$(printf '1%0400d' 0)" "0.$(printf '%0400d' 0)1")
    run -0 "$DIFF" -v "$in"
    assert_output "$(printf '%s\n' accept accept reject reject accept reject reject reject accept \
        accept accept reject accept accept accept reject reject reject reject reject reject reject \
        accept '23 texts, 10 accepted, 13 rejected')"
}

@test "duplicate keys: in large objects (past the linear search), nested, and spelled with escapes" {
    local big dup nested
    big=$(seq 0 4999 | awk '{ printf "%s\"k%d\":%d", (NR > 1 ? "," : ""), $1, $1 }')
    nested=$(seq 0 99 | awk '{ printf "%s\"k%d\":{\"a\":1,\"a%d\":2}", (NR > 1 ? "," : ""), $1, $1 }')
    dup=$(seq 0 99 | awk '{ printf "%s\"k%d\":{\"a\":1,\"b\":2}", (NR > 1 ? "," : ""), $1 }')
    run -0 "$DIFF" -v "$(lines_file "{$big}" "{$big,\"k4999\":0}" "{$big,\"k0\":0}" "{$nested}" \
        "{$dup,\"x\":{$big,\"k17\":1}}" '{"a":1,"\u0061":2}' '{"\ud83d\ude00":1,"😀":2}' \
        '{"":1,"":2}' '{"":1,"a":{"":2}}')"
    assert_output "$(printf '%s\n' accept reject reject accept reject reject reject reject accept \
        '9 texts, 3 accepted, 6 rejected')"
}

@test "mutations of every fixture: flipped, dropped and doubled bytes, spliced tokens and escapes" {
    mapfile -t files < <(fixtures)
    local seed
    for seed in 1 2; do
        run -0 "$DIFF" -m 8 "$seed" "${files[@]}"
    done
}

@test "acp-validate passes exactly the lines that parse as objects and pass the checks" {
    local in=$TESTS_DIR/golden/validate/scanner-rejects-as-jansson/input
    run -1 --separate-stderr acp-validate --stateless "$in"
    assert_equal "$(grep -c . <<<"$output")" 7
    assert_equal "$(grep -c -E '\[(bad-json|bad-utf8|nul-byte|duplicate-key|number-range|trailing-data|too-deep|not-object|bom-mid-stream)\]$' <<<"$stderr")" 53
}

@test "a context grown for a huge text gives the memory back and reads the next texts right" {
    local in=$BATS_TEST_TMPDIR/huge
    {
        awk 'BEGIN { printf "{\"a\":["; for (i = 0; i < 200000; i++) printf "%s{\"k\":\"v%d\"}", i ? "," : "", i; print "]}" }'
        printf '%s\n' '{"b":1}' '{"b":1,"b":2}' '["x",{"y":[1,2,{"z":"\u00e9"}]}]'
        awk 'BEGIN { printf "{"; for (i = 0; i < 70000; i++) printf "%s\"k%d\":%d", i ? "," : "", i, i; print ",\"k69999\":0}" }'
        printf '%s\n' '{"k1":1,"k1":1}' '{"k1":1,"k2":1}'
    } >"$in"
    run -0 "$DIFF" -v "$in"
    assert_output "$(printf '%s\n' accept accept reject accept reject reject accept \
        '7 texts, 4 accepted, 3 rejected')"
}

# The string form's message is built as a view member by member (member_list_view), not written
# as a line and scanned again: the view built must be the view the scan gives, node for node.
@test "a view built member by member is the scan of the line the members make" {
    run -0 "$ACP_BUILD/tests/member-view" 20000
    assert_output --regexp '^lists 20000 \([1-9][0-9]* of no JSON\), nodes [0-9]+$'
}
