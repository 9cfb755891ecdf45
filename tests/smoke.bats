load test_helper

@test "acp-validate prints its version" {
    run -0 acp-validate --version
    assert_line --index 0 --regexp '^acp-validate \(acp-tools\) [0-9]'
}

@test "the licence --version names is in LICENSE, and the README says so" {
    run -0 acp-validate --version
    assert_line "License MIT: see the LICENSE file of acp-tools."
    assert_line "Copyright (c) 2026 the acp-tools authors."
    run -0 head -3 "$TESTS_DIR/../LICENSE"
    assert_line --index 0 "MIT License"
    assert_line --index 1 "Copyright (c) 2026 the acp-tools authors"
    grep -q 'MIT: see `LICENSE`' "$TESTS_DIR/../README.md" || fail "the README does not name LICENSE"
}
