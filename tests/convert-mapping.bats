load test_helper

# acp-convert's mapping and output: numbers, member order, fresh ids, conversation_id, partial
# and cancelled results, ctl kinds, the check of the output, and the clean-stays-clean property.

setup_file() {
    build_test_programs
}

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
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"x-n\":[2.0,2,1e2,1E2,-0.0],\"content\":1}' | acp-convert --to=fipa"
    assert_output '{"performative":"inform","sender":"a","receiver":"b","x-n":[2.0,2,100.0,100.0,-0.0],"content":1}'
    run -0 jq -c '."x-n" | map(type)' <<<"$output"
    assert_output '["number","number","number","number","number"]'
}

# Issue 22, rule 4: the content is the text it came with, numbers as spelt, through every
# conversion: JADE does not parse content, so 1e3 and 1000.0 are two contents to it.
@test "numbers: the content (an IACP body) keeps its text through every conversion" {
    local fipa='{"performative":"inform","sender":"a","receiver":"b","content":{"task": 7, "big": 1e3, "r": 0.50, "z": -0, "e": "\u00e9", "x": 1.5E-7}}'
    local to back
    for to in fipa iacp fipa-acl; do
        run -0 bash -c "acp-convert --seed=1 --now=1 --to=$to <<<'$fipa' | acp-convert --seed=1 --now=1 --to=fipa"
        assert_output "$fipa"
    done
    run -0 bash -c "acp-convert --seed=1 --now=1 --to=iacp <<<'$fipa'"
    assert_output --partial '"body":{"task": 7, "big": 1e3, "r": 0.50, "z": -0, "e": "\u00e9", "x": 1.5E-7}'
    local iacp='{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"hb","ts":1,"body":{"load": 5e1, "t": 1.0}}'
    for to in fipa iacp fipa-acl; do
        for back in "" "-j 2"; do
            run -0 bash -c "acp-convert $back --to=$to <<<'$iacp' | acp-convert --to=iacp"
            assert_output "$iacp"
        done
    done
    run -0 bash -c "acp-convert -j 2 --to=fipa <<<'$iacp'"
    assert_output --partial '"content":{"load": 5e1, "t": 1.0}'
}

@test "a ctl message's content, its action and body, goes to the string form as made, not as the body's text" {
    local iacp='{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"ctl.drain","ts":1,"body":{"after": 5}}'
    run -0 bash -c "acp-convert --to=fipa-acl <<<'$iacp'"
    assert_output --partial ':content "{\"action\":\"drain\",\"after\":5}"'
    run -0 bash -c "acp-convert --to=fipa-acl <<<'$iacp' | acp-convert --to=iacp"
    assert_output '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"ctl.drain","ts":1,"body":{"after":5}}'
}

@test "numbers: random doubles read back as the same double" {
    # 2,000 doubles from awk's generator, spelled with 17 digits; acp-convert's shortest text
    # must read back (in jq, IEEE doubles too) as the very same number.
    awk 'BEGIN { srand(7); printf "{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":["; for (i = 0; i < 2000; i++) { x = (rand() - 0.5) * 10 ^ int(rand() * 40 - 20); printf "%s%.17g", (i ? "," : ""), x } print "]}" }' >"$BATS_TEST_TMPDIR/in"
    run -0 bash -c "acp-convert --to=fipa '$BATS_TEST_TMPDIR/in' | jq -c '.content | map(. + 0)' >'$BATS_TEST_TMPDIR/got'; jq -c '.content | map(. + 0)' '$BATS_TEST_TMPDIR/in' >'$BATS_TEST_TMPDIR/want'; cmp '$BATS_TEST_TMPDIR/want' '$BATS_TEST_TMPDIR/got'"
    # and no text is longer than 17 significant digits would make it
    run -0 bash -c "acp-convert --to=fipa '$BATS_TEST_TMPDIR/in' | jq -r '.content[]' | awk 'length(\$0) > 25' | wc -l"
    assert_output 0
}

# --- member order ---

@test "order: iacp -> fipa -> iacp keeps the members in the order they came" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":1312284100123,"body":{"node":"n"}}' \
        '{"kind":"hb","trace":{"b":1,"a":2},"ts":1312284100.5,"from":"f","v":"1.1","to":"queen","id":"m-000001"}' \
        '{"body":{"status":"ok"},"ref":"q-1","ts":1312284101,"kind":"task.result","id":"m-000002","to":"queen","from":"f","v":"1.1"}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"ctl.drain","ts":1312284102,"x":1,"body":{"grace":5},"y":[2.50,1E2]}')
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(sed -e 's/2.50/2.5/; s/1E2/100.0/' "$f")"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$(sed -e 's/2.50/2.5/; s/1E2/100.0/' "$f")"
}

@test "order: fipa -> iacp -> fipa keeps the members in the order they came" {
    local f
    f=$(lines_file \
        '{"performative":"cfp","conversation_id":"c-1","sender":"a","receiver":["b","c"],"protocol":"fipa-contract-net","content":{"t":1},"reply_with":"r-1","timestamp":"2024-01-15T10:35:00Z"}' \
        '{"performative":"propose","timestamp":"2024-01-15T10:35:01.5Z","content":"text","language":"en","in_reply_to":"r-1","sender":{"name":"b","addresses":["http://b"]},"receiver":"a","conversation_id":"c-1"}')
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "order: FIPA to IACP writes each member where its counterpart stood" {
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"receiver\":\"b\",\"sender\":\"a\",\"content\":{},\"reply_with\":\"r\",\"timestamp\":\"2024-01-15T10:35:00Z\"}' | acp-convert --to=iacp"
    assert_output '{"v":"1.1","kind":"fipa.inform","to":"b","from":"a","body":{},"id":"r","ts":1705314900}'
}

# The recipe of acp-convert(1), EXAMPLES, run exactly as the man page prints it.
man_recipe() {
    sed -n '/^Check that a capture survives/,/^\.fi/p' "$TESTS_DIR/../man/acp-convert.1" |
        sed -n '/^\.nf/,/^\.fi/p' | sed -e '/^\.nf/d' -e '/^\.fi/d' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g'
}

@test "order: the round-trip recipe of acp-convert(1) holds, run as printed" {
    local recipe
    recipe=$(man_recipe)
    [[ $recipe == *"jq -S"* ]] || fail "no recipe found: $recipe"
    # a capture with what a diff of text would trip on: a millisecond ts, numbers spelled
    # otherwise, a CR before the newline, members in an unusual order
    printf '%s\n' \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":1312284100123,"body":{"p":1.50,"q":1e2}}' \
        '{"ts":1312284101,"kind":"task.accept","ref":"q-1","v":"1.1","id":"m-000001","from":"f","to":"queen"}' >"$BATS_TEST_TMPDIR/cap.jsonl"
    printf '%s\r\n' '{"v":"1.1","id":"m-000002","from":"f","to":"queen","kind":"task.result","ref":"q-1","ts":1312284102,"body":{"status":"ok"}}' >>"$BATS_TEST_TMPDIR/cap.jsonl"
    cd "$BATS_TEST_TMPDIR"
    run -0 bash -c "$recipe"
    assert_output ''
    # and it notices a message that does not come back
    run -1 bash -c "${recipe/acp-convert --to=iacp/acp-convert --to=iacp | sed 2d}"
}

# --- fresh ids ---

# N FIPA messages from one sender, without reply_with.
anonymous_informs() {
    local n=$1
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{\"i\":%d},\"timestamp\":\"2024-01-15T10:35:00Z\"}\n", i }'
}

@test "fresh ids: 20,000 messages of one sender get 20,000 different ids, and IACP finds no duplicate" {
    anonymous_informs 20000 >"$BATS_TEST_TMPDIR/in"
    acp-convert --to=iacp --seed=3 "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
    run -0 bash -c "jq -r .id '$BATS_TEST_TMPDIR/out' | grep -c -E '^m-[0-9a-f]{6}\$'"
    assert_output 20000
    run -0 bash -c "jq -r .id '$BATS_TEST_TMPDIR/out' | sort | uniq -d"
    assert_output ''
    run -0 bash -c "acp-validate '$BATS_TEST_TMPDIR/out' 2>&1 >/dev/null | { grep -c iacp-duplicate-id || true; }"
    assert_output 0
}

@test "fresh ids come from the input: the same log converted twice gives the same output; --seed changes them" {
    local f=$BATS_TEST_TMPDIR/log.jsonl
    printf '%s\n' '{"performative":"inform","sender":"a","receiver":"b","content":"x","timestamp":"2024-01-15T10:00:00Z"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":"y","timestamp":"2024-01-15T10:00:01Z"}' >"$f"
    local once twice
    once=$(acp-convert --to=iacp "$f")
    twice=$(acp-convert --to=iacp "$f")
    assert_equal "$twice" "$once"
    assert_equal "$(acp-convert -j 2 --to=iacp "$f")" "$once"
    assert_equal "$(jq -r .id <<<"$once" | sort -u | wc -l)" 2
    [ "$(acp-convert --to=iacp --seed=1 "$f")" != "$once" ] || fail "--seed=1 changed no id"
    [ "$(acp-convert --to=iacp --seed=1 "$f")" != "$(acp-convert --to=iacp --seed=2 "$f")" ] || fail "--seed=2 gave --seed=1's ids"
    assert_equal "$(acp-convert --to=iacp --seed=1 "$f")" "$(acp-convert --to=iacp --seed=1 "$f")"
    # another log, other ids
    sed 's/"x"/"z"/' "$f" >"$BATS_TEST_TMPDIR/other.jsonl"
    [ "$(acp-convert --to=iacp "$BATS_TEST_TMPDIR/other.jsonl" | jq -r .id)" != "$(jq -r .id <<<"$once")" ] ||
        fail "two logs got the same ids"
}

@test "fresh ids: never an id its sender uses in the stream, before or after" {
    local first
    first=$(printf '%s\n' '{"performative":"inform","sender":"a","receiver":"b","content":{}}' |
        acp-convert --to=iacp --seed=9 --now=0 | jq -r .id)
    # the id the generator would give first is already a's: the fresh one is another
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{},\"reply_with\":\"$first\"}' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{}}' | acp-convert --to=iacp --seed=9 --now=0 | jq -r .id"
    assert_line --index 0 "$first"
    refute_line --index 1 "$first"
    # a's reply_with that repeats its earlier fresh id gets a fresh one too
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{}}' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{},\"reply_with\":\"$first\"}' | acp-convert --to=iacp --seed=9 --now=0 | jq -c '[.id, .\"x-fipa-reply_with\"]'"
    assert_line --index 0 "[\"$first\",null]"
    refute_line --index 1 "[\"$first\",\"$first\"]"
    assert_line --index 1 --regexp "^\\[\"m-[0-9a-f]{6}\",\"$first\"\\]\$"
    # another sender may use it
    run -0 bash -c "printf '%s\n' '{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":{}}' '{\"performative\":\"inform\",\"sender\":\"c\",\"receiver\":\"b\",\"content\":{},\"reply_with\":\"$first\"}' | acp-convert --to=iacp --seed=9 --now=0 | jq -r .id"
    assert_line --index 1 "$first"
}

@test "fresh ids: a reply_with its sender already used gets a fresh id and comes back" {
    local f
    f=$(lines_file \
        '{"performative":"request","sender":"a","receiver":"b","content":{},"conversation_id":"c1","reply_with":"r1"}' \
        '{"performative":"agree","sender":"b","receiver":"a","content":{},"conversation_id":"c1","reply_with":"ack","in_reply_to":"r1"}' \
        '{"performative":"request","sender":"a","receiver":"b","content":{},"conversation_id":"c2","reply_with":"r1"}' \
        '{"performative":"agree","sender":"b","receiver":"a","content":{},"conversation_id":"c2","reply_with":"ack","in_reply_to":"r1"}')
    run -0 acp-convert --to=iacp --seed=1 --now=0 "$f"
    run -0 jq -c '[.from, .id, ."x-fipa-reply_with"]' <<<"$output"
    assert_line --index 0 '["a","r1",null]'
    assert_line --index 1 '["b","ack",null]'
    assert_line --index 2 --regexp '^\["a","m-[0-9a-f]{6}","r1"\]$'
    assert_line --index 3 --regexp '^\["b","m-[0-9a-f]{6}","ack"\]$'
    run -0 bash -c "acp-convert --to=iacp --seed=1 --now=0 '$f' | acp-validate"
    run -0 bash -c "acp-convert --to=iacp --seed=1 --now=0 '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

# The way back of a message made from IACP reads its time from the IACP message it gives back:
# the id it notes is remembered at that time, so that a later FIPA message of the same sender that
# uses it again gets a fresh one (read at time 0, it was forgotten by then).
@test "fresh ids: an id a message made from IACP used is not given again to its sender" {
    local f
    # the queen's request moves message time to 11:21:40; the agree, made from IACP, notes its id
    # at 11:21:41, and the agree that follows, a FIPA message of its own, uses it again
    f=$(lines_file \
        '{"performative":"request","x-iacp-v":"1.1","reply_with":"q-0000","sender":"queen","receiver":"forager-07","x-iacp-kind":"task.assign","timestamp":"2011-08-02T11:21:40Z","conversation_id":"queen/q-0000","protocol":"fipa-request","reply_by":"2011-08-02T11:29:42Z"}' \
        '{"x-iacp-v":"1.1","performative":"agree","protocol":"fipa-request","x-iacp-kind":"task.accept","conversation_id":"queen/q-0000","timestamp":"2011-08-02T11:21:41Z","reply_with":"m-0001","receiver":"queen","sender":"forager-07","content":{"n":1},"in_reply_to":"q-0000"}' \
        '{"reply_with":"m-0001","protocol":"fipa-request","sender":"forager-07","conversation_id":"queen/q-0000","receiver":"queen","performative":"agree","content":{"n":1},"in_reply_to":"q-0000","timestamp":"2011-08-02T11:21:41Z"}')
    run -0 acp-convert --to=iacp --seed=1 --now=0 "$f"
    run -0 jq -c '[.kind, .id, ."x-fipa-reply_with"]' <<<"$output"
    assert_line --index 1 '["task.accept","m-0001",null]'
    assert_line --index 2 --regexp '^\["fipa.agree","m-[0-9a-f]{6}","m-0001"\]$'
}

@test "fresh ids: the generator's ids are unique per sender and reproducible by seed" {
    local drv=$ACP_BUILD/tests/idgen
    run -0 bash -c "echo 'many a 300000' | '$drv' 1 1h 10 | sort | uniq -d"
    assert_output ''
    run -0 bash -c "echo 'many a 3' | '$drv' 1 1h 10"
    local first=$output
    run -0 bash -c "echo 'many a 3' | '$drv' 1 1h 10"
    assert_output "$first"
    run -0 bash -c "echo 'many a 3' | '$drv' 2 1h 10"
    [ "$output" != "$first" ]
    run -0 bash -c "printf 'many a 1\nmany b 1\n' | '$drv' 1 1h 10 | uniq | wc -l"
    assert_output 2
}

@test "fresh ids: the generator skips remembered ids, and forgets by time and count" {
    local drv=$ACP_BUILD/tests/idgen first
    first=$(echo 'fresh a 0' | "$drv" 1 10 100)
    run -0 bash -c "printf 'note a $first 0\nfresh a 0\nseen a $first\nseen b $first\n' | '$drv' 1 10 100"
    assert_line --index 0 new
    refute_line --index 1 "$first"
    assert_line --index 2 yes
    assert_line --index 3 no
    # ten seconds later it is forgotten
    run -0 bash -c "printf 'note a x 0\nnote b y 11\nseen a x\nnote a x 12\n' | '$drv' 1 10 100"
    assert_output "$(printf 'new\nnew\nno\nnew')"
    # and no more than MAX_IDS ids and senders are remembered
    run -0 bash -c "awk 'BEGIN { for (i = 0; i < 5000; i++) print \"note s\" i \" id\" i \" 0\" }' | '$drv' 1 1h 100 >/dev/null; (awk 'BEGIN { for (i = 0; i < 5000; i++) print \"note s\" i \" id\" i \" 0\" }'; echo count) | '$drv' 1 1h 100 | tail -1"
    assert_output 'ids 100 senders 100'
    run -0 bash -c "(echo 'many a 1000'; echo count) | '$drv' 1 1h 100 | tail -1"
    assert_output 'ids 100 senders 1'
}

# --- conversation_id, partial and cancelled results, ctl kinds ---

@test "conversation_id: the opener's sender, a slash and its id; two senders' equal ids stay apart" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"m-000001","from":"forager-01","to":"queen","kind":"tool.query","ts":100}' \
        '{"v":"1.1","id":"m-000001","from":"forager-02","to":"queen","kind":"tool.query","ts":100}' \
        '{"v":"1.1","id":"q-1","from":"queen","to":"forager-02","kind":"tool.reply","ref":"m-000001","ts":101}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"forager-01","kind":"tool.reply","ref":"m-000001","ts":101}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -r .conversation_id"
    assert_output "$(printf 'forager-01/m-000001\nforager-02/m-000001\nforager-02/m-000001\nforager-01/m-000001')"
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-validate"
    assert_output "$(acp-convert --to=fipa "$f")"
    # and it comes back exactly, with nothing riding along
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
}

@test "conversation_id: % and / in the sender's name are percent-encoded, and come back" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q/1","from":"queen/50%","to":"f","kind":"tool.query","ts":100}' \
        '{"v":"1.1","id":"m-1","from":"f","to":"queen/50%","kind":"tool.reply","ref":"q/1","ts":101}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -r .conversation_id"
    assert_output "$(printf 'queen%%2F50%%25/q/1\nqueen%%2F50%%25/q/1')"
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
}

@test "partial results: inform with x-acp-partial, the final result after them; they come back" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":100,"body":{"node":"n"}}' \
        '{"v":"1.1","id":"m-000001","from":"f","to":"queen","kind":"task.accept","ref":"q-1","ts":101}' \
        '{"v":"1.1","id":"m-000002","from":"f","to":"queen","kind":"task.result","ref":"q-1","ts":102,"body":{"status":"ok","partial":true}}' \
        '{"v":"1.1","id":"m-000003","from":"f","to":"queen","kind":"task.result","ref":"q-1","ts":103,"body":{"status":"error","partial":true}}' \
        '{"v":"1.1","id":"m-000004","from":"f","to":"queen","kind":"task.result","ref":"q-1","ts":104,"body":{"status":"ok","partial":false}}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -c '[.performative, .\"x-acp-partial\"]'"
    assert_output "$(printf '%s\n' '["request",null]' '["agree",null]' '["inform",true]' '["inform",true]' '["inform",null]')"
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    # an x-acp-partial the body does not say is an ordinary member
    f=$(lines_file '{"performative":"inform","sender":"a","receiver":"b","content":{},"reply_with":"r","timestamp":"2024-01-15T10:35:00Z","x-acp-partial":true,"x-iacp-kind":"hb","x-iacp-v":"1.1"}')
    run -0 acp-convert --to=iacp "$f"
    assert_output --partial '"x-fipa-x-acp-partial":true'
}

# An assign to f, accepted, cancelled by the queen, and the forager's answer.
cancelled_task() {
    local status=$1 cancel_to=${2:-f}
    lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":100,"body":{"node":"n"}}' \
        '{"v":"1.1","id":"m-000001","from":"f","to":"queen","kind":"task.accept","ref":"q-1","ts":101}' \
        "{\"v\":\"1.1\",\"id\":\"q-2\",\"from\":\"queen\",\"to\":\"$cancel_to\",\"kind\":\"task.cancel\",\"ref\":\"q-1\",\"ts\":102}" \
        "{\"v\":\"1.1\",\"id\":\"m-000002\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"task.result\",\"ref\":\"q-1\",\"ts\":103,\"body\":{\"status\":\"$status\"}}"
}

@test "cancelled results: inform answering the cancel, not failure answering the assign" {
    local f
    f=$(cancelled_task cancelled)
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -c '[.performative, .in_reply_to, .\"x-iacp-ref\", .conversation_id]'"
    assert_line --index 2 '["cancel","q-1",null,"queen/q-1"]'
    assert_line --index 3 '["inform","q-2","q-1","queen/q-1"]'
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-validate"
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    # another status after a cancel answers the assign, as before
    f=$(cancelled_task error)
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -c '[.performative, .in_reply_to]' | tail -1"
    assert_output '["failure","q-1"]'
    # a cancel that went to another forager is not the one answered
    f=$(cancelled_task cancelled g)
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -c '[.performative, .in_reply_to]' | tail -1"
    assert_output '["failure","q-1"]'
    # no cancel seen (the capture started later): failure answering the assign
    run -0 bash -c "tail -1 '$(cancelled_task cancelled)' | acp-convert --to=fipa | jq -c '[.performative, .in_reply_to]'"
    assert_output '["failure","q-1"]'
}

@test "ctl.drain and ctl.halt: an inform of the action, complete as it stands" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"ctl.drain","ts":100}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"g","kind":"ctl.halt","ts":101,"body":{"reason":"recovery"}}')
    run -0 acp-convert --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","x-iacp-v":"1.1","reply_with":"q-1","sender":"queen","receiver":"f","x-iacp-kind":"ctl.drain","timestamp":"1970-01-01T00:01:40Z","content":{"action":"drain"},"conversation_id":"queen/q-1"}'
    assert_line --index 1 '{"performative":"inform","x-iacp-v":"1.1","reply_with":"q-2","sender":"queen","receiver":"g","x-iacp-kind":"ctl.halt","timestamp":"1970-01-01T00:01:41Z","content":{"action":"halt","reason":"recovery"},"conversation_id":"queen/q-2"}'
    # nothing is left open: no warning at the end of the stream
    run -0 --separate-stderr bash -c "acp-convert --to=fipa '$f' | acp-validate"
    assert_equal "$stderr" ''
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
}

# --- the property: a clean stream stays clean, and comes back ---

# Fails unless acp-validate finds no error in FILE.
no_error() {
    local file=$1 what=$2
    acp-validate "$file" >/dev/null 2>"$BATS_TEST_TMPDIR/findings" || true
    if grep -q ': error:' "$BATS_TEST_TMPDIR/findings"; then
        grep ': error:' "$BATS_TEST_TMPDIR/findings" | sed 's/.*\[//' | sort | uniq -c >&2
        fail "$what: acp-validate finds errors"
    fi
}

# IN (clean) converted to VIA is clean, and converted back gives IN byte for byte; the same
# through the string form, which must give the same FIPA.
clean_stays_clean() {
    local in=$1 via=$2 back=$3 tmp=$BATS_TEST_TMPDIR
    no_error "$in" "the input"
    acp-convert --seed=5 --now=1700000000 --to="$via" "$in" >"$tmp/out" || fail "conversion to $via failed"
    no_error "$tmp/out" "converted to $via"
    acp-convert --to="$back" "$tmp/out" >"$tmp/back" || fail "conversion back failed"
    cmp "$in" "$tmp/back" || fail "the way back differs"
    acp-convert --seed=5 --now=1700000000 --to=fipa-acl "$in" | acp-convert --to="$back" >"$tmp/back-acl" ||
        fail "the trip through the string form failed"
    cmp "$in" "$tmp/back-acl" || fail "the way back through the string form differs"
}

# Whether acp-validate lets fipa-request and fipa-query take intermediate informs marked
# x-acp-partial before the final answer (built on branch h2-fipa).
fipa_accepts_partials() {
    printf '%s\n' \
        '{"performative":"request","sender":"a","receiver":"b","content":{},"conversation_id":"c","protocol":"fipa-request","reply_with":"r"}' \
        '{"performative":"inform","sender":"b","receiver":"a","content":{},"conversation_id":"c","protocol":"fipa-request","in_reply_to":"r","x-acp-partial":true}' \
        '{"performative":"inform","sender":"b","receiver":"a","content":{},"conversation_id":"c","protocol":"fipa-request","in_reply_to":"r"}' |
        acp-validate >/dev/null 2>&1
}

@test "property: a clean IACP stream of every kind is clean in FIPA and comes back (no partial results)" {
    for seed in 1 2 3; do
        "$ACP_BUILD/gen-clean" iacp 1500 "$seed" | jq -c 'select(.body.partial != true)' >"$BATS_TEST_TMPDIR/in"
        run -0 jq -r .kind "$BATS_TEST_TMPDIR/in"
        for k in task.assign task.accept task.reject task.result task.cancel hb mem.sync tool.query tool.reply ctl.drain ctl.halt; do
            assert_line "$k"
        done
        clean_stays_clean "$BATS_TEST_TMPDIR/in" fipa iacp
    done
}

@test "property: a clean IACP stream with partial results is clean in FIPA and comes back" {
    fipa_accepts_partials || skip "needs the FIPA stream changes (branch h2-fipa)"
    for seed in 1 2 3; do
        "$ACP_BUILD/gen-clean" iacp 1500 "$seed" >"$BATS_TEST_TMPDIR/in"
        grep -q '"partial":true' "$BATS_TEST_TMPDIR/in"
        clean_stays_clean "$BATS_TEST_TMPDIR/in" fipa iacp
    done
}

@test "property: a clean colony capture is clean in FIPA and comes back (no partial results)" {
    "$ACP_BUILD/gen-colony" 5000 16 7 | jq -c 'select(.body.partial != true)' >"$BATS_TEST_TMPDIR/in"
    clean_stays_clean "$BATS_TEST_TMPDIR/in" fipa iacp
}

@test "property: a clean colony capture with partial results is clean in FIPA and comes back" {
    fipa_accepts_partials || skip "needs the FIPA stream changes (branch h2-fipa)"
    "$ACP_BUILD/gen-colony" 5000 16 7 >"$BATS_TEST_TMPDIR/in"
    clean_stays_clean "$BATS_TEST_TMPDIR/in" fipa iacp
}

@test "property: a clean FIPA stream of every act is clean in IACP and comes back" {
    for seed in 1 2 3; do
        "$ACP_BUILD/gen-clean" fipa 1500 "$seed" >"$BATS_TEST_TMPDIR/in"
        run -0 jq -r .performative "$BATS_TEST_TMPDIR/in"
        for act in accept_proposal agree cancel cfp confirm disconfirm failure inform inform_if inform_ref \
            not_understood propagate propose proxy query_if query_ref refuse reject_proposal request \
            request_when request_whenever subscribe counter_propose; do
            assert_line "$act"
        done
        clean_stays_clean "$BATS_TEST_TMPDIR/in" iacp fipa
    done
}

@test "property: a clean FIPA capture of interleaved conversations is clean in IACP and comes back" {
    "$ACP_BUILD/gen-fipa" 5000 200 3 >"$BATS_TEST_TMPDIR/in"
    clean_stays_clean "$BATS_TEST_TMPDIR/in" iacp fipa
}

# --- the check of the output ---

@test "output check: a message the target's rules reject is an error for its record" {
    local f
    f=$(lines_file \
        '{"performative":"inform","content":"x"}' \
        '{"performative":"inform","sender":"a","receiver":[],"content":{},"reply_with":"r"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{},"timestamp":"2024-01-15T10:35:00Z","x-iacp-kind":"hb","x-iacp-v":"1.1"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{},"reply_with":"ok"}')
    run -1 --separate-stderr acp-convert --to=iacp --now=0 --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output --regexp '^\{"v":"1.1","kind":"fipa.inform","from":"a","to":"b","body":\{\},"id":"ok",'
    [[ $stderr == *":1: error: converted to IACP, the message breaks its rules (iacp-missing); it is not written [convert-output-invalid]"* ]]
    [[ $stderr == *":2: error: converted to IACP, the message breaks its rules (iacp-missing)"* ]]
    [[ $stderr == *":3: error: converted to IACP, the message breaks its rules (iacp-missing)"* ]]
    run -0 cat "$BATS_TEST_TMPDIR/rej"
    assert_output "$(head -3 "$f")"
    # an empty receiver set is no receiver: only the standard profile allows that
    run -0 --separate-stderr acp-convert --to=fipa "$f"
    [[ $stderr == *":2: warning: converted to FIPA, the message has no receiver: valid in the standard profile only [convert-output-standard]"* ]]
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_equal "$stderr" ''
}

@test "output check: what only the standard profile allows is written with a warning" {
    local f
    f=$(lines_file '{"performative":"cancel","sender":"a","receiver":"b","reply_with":"c1","conversation_id":"s1"}')
    run -0 --separate-stderr acp-convert --to=fipa "$f"
    assert_output "$(cat "$f")"
    [[ $stderr == *":1: warning: converted to FIPA, the message has no content: valid in the standard profile only [convert-output-standard]"* ]]
    run -0 --separate-stderr acp-convert --to=fipa-acl "$f"
    [[ $stderr == *"[convert-output-standard]"* ]]
    run -1 --separate-stderr acp-convert --strict --to=fipa "$f"
    assert_output ''
}

@test "output check: the direction rules are not applied (acp-convert is not told the queen's name)" {
    local f
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"boss","to":"f","kind":"task.assign","ts":1,"body":{}}')
    run -0 --separate-stderr bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
    assert_equal "$stderr" ''
}

# Fails unless every output line passes acp-validate --stateless, apart from the direction rules
# and the members only the standard profile lets go, of which acp-convert warned.
outputs_pass() {
    local in=$1 to=$2 tmp=$BATS_TEST_TMPDIR
    acp-convert --seed=1 --now=0 --to="$to" --diagnostics=json "$in" >"$tmp/out" 2>"$tmp/convert.err" || true
    if [ "$to" = fipa-acl ]; then
        acp-convert --to=fipa "$tmp/out" >"$tmp/out.json" 2>/dev/null || fail "the string form does not read back"
        mv "$tmp/out.json" "$tmp/out"
    fi
    acp-validate --stateless --diagnostics=json "$tmp/out" 2>"$tmp/validate.err" >/dev/null || true
    run -0 jq -r 'select(.severity == "error") | "\(.line) \(.code)"' "$tmp/validate.err"
    local standard
    standard=$(grep -c '"convert-output-standard"' "$tmp/convert.err" || true)
    [ "$(grep -c -v -e ' iacp-direction$' -e ' fipa-missing$' -e '^$' <<<"$output")" -eq 0 ] ||
        fail "$to: acp-validate rejects: $(cut -d' ' -f2 <<<"$output" | sort | uniq -c | tr '\n' ' ')"
    [ "$(grep ' fipa-missing$' <<<"$output" | sort -u -k1,1 | grep -c .)" -le "$standard" ] ||
        fail "$to: fipa-missing without the warning"
}

@test "property: with no error reported, every output passes acp-validate --stateless" {
    local gen=$ACP_BUILD/gen-mixed
    for seed in 1 2; do
        "$gen" iacp 300 "$seed" >"$BATS_TEST_TMPDIR/iacp.in"
        "$gen" fipa 300 "$seed" >"$BATS_TEST_TMPDIR/fipa.in"
        # and hand-made ones that no message should survive as they are
        printf '%s\n' '{"performative":"inform"}' '{"performative":"cfp","receiver":[],"reply_by":"soon"}' \
            '{"performative":"inform","sender":"a","receiver":"b","content":{},"x-iacp-kind":"task.result","x-iacp-ts":"x"}' \
            '{"v":"1.1","kind":"hb"}' '{"v":"1.1","kind":"fipa.inform","x-fipa-reply_by":"soon","x-fipa-receiver":[]}' >>"$BATS_TEST_TMPDIR/fipa.in"
        for to in iacp fipa fipa-acl; do
            outputs_pass "$BATS_TEST_TMPDIR/iacp.in" "$to"
            outputs_pass "$BATS_TEST_TMPDIR/fipa.in" "$to"
        done
    done
}

# IACP -> the string form builds the view of its FIPA line, which the string form is written
# from, with no line written and scanned: the view built is the scan of the line, node for node,
# the message whole and drafted, over the colony with its faults, mixed traffic, every IACP
# fixture and example, and IACP made hostile (odd types, escapes, controls, deep bodies).
@test "the FIPA view built for the string form is the scan of the FIPA line written" {
    local t=$BATS_TEST_TMPDIR drv=$ACP_BUILD/tests/fipa-view
    "$ACP_BUILD/gen-colony" --faults="$t/faults" 5000 16 3 >"$t/colony"
    "$ACP_BUILD/gen-mixed" iacp 3000 11 >"$t/mixed"
    run -0 "$drv" <"$t/colony"
    assert_output --regexp '^messages 5[0-9]{3}, lines 5[0-9]{3}, drafts [1-9][0-9]*$'
    run -0 "$drv" <"$t/mixed"
    assert_output --regexp '^messages [1-9][0-9]*, lines [1-9][0-9]*, drafts [1-9][0-9]*$'
    cat "$FIXTURES"/*/*.jsonl "$TESTS_DIR/../examples/"*.jsonl >"$t/fixtures"
    run -0 "$drv" <"$t/fixtures"
    assert_output --regexp ', lines [1-9][0-9]*, drafts [1-9][0-9]*$'
    head -2000 "$t/colony" | jq -c '
        if (.id | test("0$")) then .body = {"action": "x", "node": "\u001b[31m\u2028", "deep": [[[{"a": null}]]], "n": 1e300}
        elif (.id | test("1$")) then .extra = {"é": [true, false, -0.5]} | .to = 7
        elif (.id | test("2$")) then .ts = 1312284100.5 | .ref = "c\"q\\"
        elif (.id | test("3$")) then .kind = "ctl.pause" | .body = {"partial": true}
        else . end' >"$t/hostile"
    run -0 "$drv" <"$t/hostile"
    assert_output --regexp '^messages 2000, lines [1-9][0-9]*, drafts [1-9][0-9]*$'
}

# Under --jobs, IACP -> FIPA is a draft made from the message alone (in a worker thread) and
# the message followed along the stream in order, which fills in conversation_id. The two
# together must be the whole conversion, message for message, diagnostics included. A line that
# convert_fipa_line_passes lets go unchecked (a draft, or the whole conversion's, which the string
# form is written from) must pass the FIPA rules.
@test "the draft and the stream together convert IACP to FIPA as the whole conversion does" {
    local t=$BATS_TEST_TMPDIR drv=$ACP_BUILD/tests/convert-split stream f
    "$ACP_BUILD/gen-colony" --faults="$t/faults" 20000 16 3 >"$t/colony"
    "$ACP_BUILD/gen-mixed" iacp 3000 11 >"$t/mixed"
    # what only the stream can say: the cancel a cancelled result answers, a fipa.* kind, a
    # conversation_id of the way back, a message without id, an unknown kind, no kind; and
    # drafts that do not pass: an empty sender, no receiver
    stream=$(lines_file \
        '{"v":"1.1","id":"a1","from":"queen","to":"f1","kind":"task.assign","ts":1312284100,"body":{"node":"x","deadline":1312284200}}' \
        '{"v":"1.1","id":"c1","from":"queen","to":"f1","kind":"task.cancel","ref":"a1","ts":1312284101}' \
        '{"v":"1.1","id":"r1","from":"f1","to":"queen","kind":"task.result","ref":"a1","ts":1312284102,"body":{"status":"cancelled"}}' \
        '{"v":"1.1","id":"r2","from":"f2","to":"queen","kind":"task.result","ref":"a1","ts":1312284102,"body":{"status":"cancelled"}}' \
        '{"v":"1.1","id":"p1","from":"f1","to":"queen","kind":"task.result","ref":"a1","ts":1312284102,"body":{"status":"cancelled","partial":true}}' \
        '{"v":"1.1","id":"k1","from":"f1","to":"queen","kind":"task.accept","ref":"a1","ts":1312284102,"x-fipa-conversation_id":"elsewhere"}' \
        '{"v":"1.1","id":"k2","from":"f1","to":"queen","kind":"task.accept","ref":"k1","ts":1312284103}' \
        '{"v":"1.1","id":"q1","from":"a","to":"b","kind":"fipa.propose","ts":1312284103,"body":{}}' \
        '{"v":"1.1","from":"queen","to":"f1","kind":"hb","ts":1312284104}' \
        '{"v":"1.1","id":"u1","from":"queen","to":"f1","kind":"colony.swarm","ts":1312284104}' \
        '{"v":"1.1","id":"n1","from":"queen","to":"f1","ts":1312284104}' \
        '{"v":"1.1","id":"e1","from":"","to":"f1","kind":"hb","ts":1312284105}' \
        '{"v":"1.1","id":"e2","from":"queen","kind":"hb","ts":1312284105}')
    for f in "$t/colony" "$t/mixed"; do
        run -0 "$drv" <"$f"
        assert_output --regexp 'differ 0, passes [1-9][0-9]*, wrongly 0$'
    done
    run -0 "$drv" <"$stream"
    assert_output 'messages 13, drafts 9, holes 7, from the stream 3, differ 0, passes 16, wrongly 0'
    cat "$BATS_TEST_DIRNAME"/golden/*/*/input >"$t/golden"
    run -0 "$drv" <"$t/golden"
    assert_output --regexp 'from the stream [1-9][0-9]*, differ 0, passes [1-9][0-9]*, wrongly 0$'
}

# FIPA to IACP does not read back the line of a FIPA message of its own (not one made from IACP)
# that passes the IACP rules as it is made: the claim, held over generated FIPA traffic, the
# fixtures and examples, and lines made to sit at each of its edges.
@test "FIPA to IACP: a line said to pass the IACP rules as it is made does pass them" {
    local drv=$ACP_BUILD/tests/convert-back edges now
    edges=$(lines_file \
        '{"performative":"inform","sender":"a","receiver":"b","reply_with":"","timestamp":"2024-01-01T00:00:00Z","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","timestamp":"1969-12-31T23:59:59Z","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","timestamp":1e15,"content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","timestamp":null,"content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","x-iacp-ts":-1,"content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","x-iacp-v":"2.0","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","x-iacp-v":"9","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":[],"content":{}}' \
        '{"performative":"inform","sender":{"name":""},"receiver":["b","c"],"content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":"text","x-iacp-body":"text"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{},"x-iacp-body":null}')
    for now in 1700000000 -5 0; do
        run -0 bash -c "cat '$edges' '$FIXTURES'/stream-fipa/*.jsonl '$EXAMPLES'/fipa-*.jsonl | '$drv' $now"
        assert_output --regexp '^messages [0-9]+, converted [0-9]+, passes [1-9][0-9]*, wrongly 0$'
    done
    run -0 bash -c "'$ACP_BUILD/gen-fipa' 20000 | '$drv' 1700000000"
    assert_output --regexp '^messages 20000, converted 20000, passes [1-9][0-9]*, wrongly 0$'
}

@test "IACP to FIPA: a message whose output fails its check is still followed, with -j 1 and 2" {
    local f j
    # the assign says its conversation_id, and cannot be written (an empty receiver)
    f=$(lines_file \
        '{"v":"1.1","id":"a1","from":"queen","to":"","kind":"task.assign","ts":1312284100,"body":{},"x-fipa-conversation_id":"elsewhere"}' \
        '{"v":"1.1","id":"k1","from":"f1","to":"queen","kind":"task.accept","ref":"a1","ts":1312284101}')
    for j in 1 2; do
        run -1 --separate-stderr acp-convert -j $j --to=fipa "$f"
        assert_output --partial '"in_reply_to":"a1"'
        assert_output --partial '"conversation_id":"elsewhere"'
        [[ $stderr == *":1: error: converted to FIPA, the message breaks its rules (fipa-agent); it is not written [convert-output-invalid]"* ]]
    done
}

@test "round trip: a reply to a message whose ts travels in x-iacp-ts follows the same conversation back" {
    local f
    # 1312284105.5 is no whole second: FIPA's timestamp cannot hold it, x-iacp-ts does; the way
    # back must read the message's time from there, or the reply's opener looks long forgotten
    f=$(lines_file \
        '{"v":"1.1","id":"m-5","from":"forager-07","to":"queen","kind":"hb","ref":"m-2","ts":1312284105.5}' \
        '{"v":"1.1","id":"q-7","from":"queen","to":"forager-07","kind":"tool.query","ref":"m-5","ts":1312284107}')
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$(cat "$f")"
}

# Issue 22, rule 5: after a trip through JADE a message that came from IACP still maps back to
# its kind; one whose x-iacp- members a FIPA agent set itself is FIPA, its members data.
@test "fipa -> iacp: a message that came from IACP maps back to its kind after a trip through JADE" {
    local iacp='{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":1312284100,"body":{"node":"n","deadline":1312284400}}'
    # JADE writes the user parameters after the others, :X- before each
    local jade
    jade=$(acp-convert --to=fipa-acl <<<"$iacp" | sed -E 's/^ :x-(iacp-[a-z]+) (.*)$/ :X-\1 \2/')
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=iacp <<<"$jade"
    assert_output "$iacp"
}

@test "fipa -> iacp: a message with only some x-iacp- members is FIPA, and they come back" {
    local acl='(cfp :sender (agent-identifier :name p) :receiver (set (agent-identifier :name e)) :content "{\"task\": 73}" :language json :reply-with R1 :protocol fipa-contract-net :conversation-id c1 :x-iacp-kind task.offer :x-iacp-id q-3)'
    run -0 --separate-stderr acp-convert --seed=1 --now=1 --from=fipa-acl --to=iacp <<<"$acl"
    assert_output '{"v":"1.1","kind":"fipa.cfp","from":"p","to":"e","body":{"task": 73},"x-fipa-language":"json","id":"R1","x-fipa-protocol":"fipa-contract-net","x-fipa-conversation_id":"c1","x-fipa-x-iacp-kind":"task.offer","x-fipa-x-iacp-id":"q-3","ts":1,"x-fipa-absent":["timestamp"]}'
    run -0 --separate-stderr acp-convert --to=fipa-acl <<<"$output"
    assert_output "$(acp-convert --from=fipa-acl --to=fipa-acl <<<"$acl")"
    # a request with x-iacp-kind, x-iacp-v and a timestamp, but no reply_by for its deadline
    local fipa='{"performative":"request","sender":"queen","receiver":"f","content":{"deadline":1312284400},"reply_with":"q-1","protocol":"fipa-request","timestamp":"2011-08-02T11:21:40Z","x-iacp-kind":"task.assign","x-iacp-v":"1.1"}'
    run -0 --separate-stderr acp-convert --to=iacp <<<"$fipa"
    [[ $output == '{"v":"1.1","kind":"fipa.request",'* ]]
    run -0 --separate-stderr bash -c "acp-convert --to=iacp <<<'$fipa' | acp-convert --to=fipa"
    assert_output "$fipa"
}

# Two FIPA members may give one IACP member its name: it keeps the place the first gave it and
# takes the value of the last, as json_object_set does (the way back writes no tree).
@test "fipa -> iacp: a member named twice keeps its first place and its last value" {
    local f
    f=$(lines_file \
        '{"performative":"inform","sender":"a","receiver":"b","reply_with":"m1","timestamp":"2024-01-01T00:00:00Z","content":{"x":1},"absent":1}' \
        '{"absent":0,"performative":"inform","sender":"a","receiver":"b","content":{"x":1}}' \
        '{"performative":"inform","sender":"a","receiver":"b","reply_with":"m2","timestamp":"2024-01-01T00:00:00Z","x-iacp-v":"2.0","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","reply_with":"m3","timestamp":"2024-01-01T00:00:00Z","x-iacp-x-fipa-foo":1,"foo":2,"content":{"y":2}}' \
        '{"performative":"inform","sender":"queen","receiver":"f1","reply_with":"c1","timestamp":"2024-01-01T00:00:01Z","x-iacp-v":"1.1","x-iacp-kind":"ctl.drain","content":{"action":"drain","why":"x"}}' \
        '{"performative":"inform","sender":"queen","receiver":"f1","reply_with":"c2","timestamp":"2024-01-01T00:00:01Z","x-iacp-v":"1.1","x-iacp-kind":"ctl.halt","content":{"action":"halt"}}' \
        '{"performative":"inform","sender":"f1","receiver":"queen","reply_with":"h1","timestamp":"2024-01-01T00:00:02Z","x-iacp-v":"1.1","x-iacp-kind":"hb","x-iacp-from":"f9","x-iacp-x-fipa-conversation_id":"zz","conversation_id":"elsewhere","content":{"slots":1}}' \
        '{"performative":"inform","sender":"a","receiver":["b","c"],"reply_with":"m4","timestamp":"2024-01-01T00:00:00.5Z","content":"text  with  spaces","in_reply_to":5}' \
        '{"performative":"inform","sender":"f1","receiver":"queen","reply_with":"h2","timestamp":"2024-01-01T00:00:03Z","x-iacp-v":"1.1","x-iacp-kind":"hb","foo":1,"x-iacp-x-fipa-foo":2,"content":{"slots":2}}')
    run -0 --separate-stderr acp-convert --to=iacp --now=1700000000 "$f"
    assert_output "$(printf '%s\n' \
        '{"v":"1.1","kind":"fipa.inform","from":"a","to":"b","id":"m1","ts":1704067200,"body":{"x":1},"x-fipa-absent":1}' \
        '{"v":"1.1","x-fipa-absent":["reply_with","timestamp"],"kind":"fipa.inform","from":"a","to":"b","body":{"x":1},"ts":1700000000,"id":"m-cdc60a"}' \
        '{"v":"2.0","kind":"fipa.inform","from":"a","to":"b","id":"m2","ts":1704067200,"body":{}}' \
        '{"v":"1.1","kind":"fipa.inform","from":"a","to":"b","id":"m3","ts":1704067200,"x-fipa-x-iacp-x-fipa-foo":1,"x-fipa-foo":2,"body":{"y":2}}' \
        '{"from":"queen","to":"f1","id":"c1","ts":1704067201,"v":"1.1","kind":"ctl.drain","body":{"why":"x"}}' \
        '{"from":"queen","to":"f1","id":"c2","ts":1704067201,"v":"1.1","kind":"ctl.halt"}' \
        '{"from":"f9","to":"queen","id":"h1","ts":1704067202,"v":"1.1","kind":"hb","x-fipa-conversation_id":"elsewhere","body":{"slots":1}}' \
        '{"v":"1.1","kind":"fipa.inform","from":"a","to":"b","x-fipa-receiver":["b","c"],"id":"m4","ts":1704067200.5,"x-fipa-timestamp":"2024-01-01T00:00:00.5Z","x-fipa-content":"text  with  spaces","x-fipa-in_reply_to":5}' \
        '{"from":"f1","to":"queen","id":"h2","ts":1704067203,"v":"1.1","kind":"hb","x-fipa-foo":2,"body":{"slots":2}}')"
}

# The member list finds a key through an index past a few members: a message of many members
# costs linear time (a hundred thousand took minutes when each key was compared with every other).
@test "the member list: json_object_set's rules, and a lookup compares a few members however many" {
    run -0 "$ACP_BUILD/tests/member-list" 20000
    assert_output --regexp '^members 20000, most compared [0-9]+$'
    local f=$BATS_TEST_TMPDIR/many.acl
    {
        printf '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b))'
        seq 1 20000 | sed 's/.*/ :X-p& v&/' | tr -d '\n'
        printf ' :content "{}" :language json)\n'
    } >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=iacp --now=1 "$f"
    run -0 jq -r 'keys_unsorted | map(select(startswith("x-fipa-X-p"))) | "\(length) \(.[0]) \(.[-1])"' <<<"$output"
    assert_output '20000 x-fipa-X-p1 x-fipa-X-p20000'
}

@test "numbers: the content's text stays safe on a terminal, and a content named with an escape is re-spelt" {
    local rlo=$'\u202e'
    run -0 --separate-stderr acp-convert --to=fipa <<<'{"performative":"inform","sender":"a","receiver":"b","content":{"t": "'"$rlo"'x", "n": 1e3}}'
    assert_output '{"performative":"inform","sender":"a","receiver":"b","content":{"t": "\u202Ex", "n": 1e3}}'
    # the member's text is found by its name as written; written otherwise, the value is kept
    run -0 --separate-stderr acp-convert --to=fipa <<<'{"performative":"inform","sender":"a","receiver":"b","cont\u0065nt":{"n": 1e3}}'
    assert_output '{"performative":"inform","sender":"a","receiver":"b","content":{"n":1000.0}}'
}

@test "numbers: the body's text is found wherever it stands, whatever its strings hold" {
    # last, with quotes, backslashes and brackets in its strings, and blank space after it
    local line='{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"hb","ts":1,"body":{"a": "x\"}\\", "b": [1e1, {"c": "]"}]} }'
    run -0 bash -c "acp-convert --to=fipa <<<'$line' | acp-convert --to=iacp"
    assert_output '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"hb","ts":1,"body":{"a": "x\"}\\", "b": [1e1, {"c": "]"}]}}'
    # not last, and a "body" deeper in the message, or in a string, is not it
    line='{"v":"1.1","id":"m-1","body":{"a": 1e1},"from":"f","to":"queen","kind":"hb","ts":1,"x":{"body": 2e1}}'
    run -0 bash -c "acp-convert --to=fipa <<<'$line' | acp-convert --to=iacp"
    assert_output '{"v":"1.1","id":"m-1","body":{"a": 1e1},"from":"f","to":"queen","kind":"hb","ts":1,"x":{"body":20.0}}'
    line='{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"hb","ts":1,"x":"\"body\":3e1","body" : {"a": 5E0}}'
    run -0 bash -c "acp-convert --to=fipa <<<'$line' | acp-convert --to=iacp"
    assert_output '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"hb","ts":1,"x":"\"body\":3e1","body":{"a": 5E0}}'
}
