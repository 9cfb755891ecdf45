load test_helper

# acp-convert's mapping and output: numbers, member order, fresh ids, conversation_id, partial
# and cancelled results, ctl kinds, the check of the output, and the clean-stays-clean property.

# Numbers as a writer would spell them, each the shortest text of its double.
NUMBERS='[0.1,19.99,2.0,1e300,100.0,-2.5,0.30000000000000004,5e-324,1e-7,0.000001,1312284100.5,1705312800,123456789012345680000.0,1e21,-0.0,17]'

@test "numbers: every direction keeps the text of a number" {
    local f out
    f=$(lines_file "{\"v\":\"1.1\",\"id\":\"q-1\",\"from\":\"queen\",\"to\":\"f\",\"kind\":\"hb\",\"ts\":1,\"body\":{\"n\":$NUMBERS}}")
    run -0 acp-convert --to=fipa "$f"
    assert_output --partial "\"content\":{\"n\":$NUMBERS}"
    out=$output
    run -0 acp-convert --to=iacp <<<"$out"
    assert_output "$(cat "$f")"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    f=$(lines_file "{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":$NUMBERS,\"reply_with\":\"r\",\"timestamp\":1705312800.25}")
    run -0 acp-convert --to=iacp "$f"
    assert_output --partial "\"x-fipa-content\":$NUMBERS"
    assert_output --partial '"ts":1705312800.25'
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "numbers: string-form content keeps the text of its numbers both ways" {
    local f
    f=$(lines_file '{"performative":"inform","sender":"a","receiver":"b","content":{"price":19.99,"p":0.1,"whole":2.0}}')
    run -0 acp-convert --to=fipa-acl "$f"
    assert_line --partial ':content "{\"price\":19.99,\"p\":0.1,\"whole\":2.0}"'
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
    # and what JADE would send: JSON content read from the string form
    f=$BATS_TEST_TMPDIR/jade.acl
    printf '(INFORM :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "{\\"price\\":19.99,\\"r\\":1.0}" :language json)\n' >"$f"
    run -0 acp-convert --to=fipa "$f"
    assert_output --partial '"content":{"price":19.99,"r":1.0}'
}

@test "numbers: a whole real keeps .0, an integer stays an integer" {
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"content\":[2.0,2,1e2,1E2,-0.0]}' | acp-convert --to=fipa"
    assert_output '{"performative":"inform","content":[2.0,2,100.0,100.0,-0.0]}'
    run -0 jq -c '.content | map(type)' <<<"$output"
    assert_output '["number","number","number","number","number"]'
}

@test "numbers: random doubles read back as the same double" {
    # 2,000 doubles from awk's generator, spelled with 17 digits; acp-convert's shortest text
    # must read back (in jq, IEEE doubles too) as the very same number.
    awk 'BEGIN { srand(7); printf "{\"performative\":\"inform\",\"content\":["; for (i = 0; i < 2000; i++) { x = (rand() - 0.5) * 10 ^ int(rand() * 40 - 20); printf "%s%.17g", (i ? "," : ""), x } print "]}" }' >"$BATS_TEST_TMPDIR/in"
    run -0 bash -c "acp-convert --to=fipa '$BATS_TEST_TMPDIR/in' | jq -c '.content | map(. + 0)' >'$BATS_TEST_TMPDIR/got'; jq -c '.content | map(. + 0)' '$BATS_TEST_TMPDIR/in' >'$BATS_TEST_TMPDIR/want'; cmp '$BATS_TEST_TMPDIR/want' '$BATS_TEST_TMPDIR/got'"
    # and no text is longer than 17 significant digits would make it
    run -0 bash -c "acp-convert --to=fipa '$BATS_TEST_TMPDIR/in' | jq -r '.content[]' | awk 'length(\$0) > 25' | wc -l"
    assert_output 0
}
