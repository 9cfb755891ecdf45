load test_helper

@test "acp-validate prints its version" {
    run -0 acp-validate --version
    assert_line --index 0 --regexp '^acp-validate \(acp-tools\) [0-9]'
}
