load test_helper

# The IACP stream checks of acp-validate: pairing, slots, reissues, liveness, end of input.

# m ID FROM TO KIND TS [REF] [BODY]: one IACP 1.1 message.
m() {
    local s
    s=$(printf '{"v":"1.1","id":"%s","from":"%s","to":"%s","kind":"%s","ts":%s' \
        "$1" "$2" "$3" "$4" "$5")
    if [ -n "${6:-}" ]; then
        s+=$(printf ',"ref":"%s"' "$6")
    fi
    if [ -n "${7:-}" ]; then
        s+=",\"body\":$7"
    fi
    printf '%s}\n' "$s"
}

# Saves standard input as the capture file of the test and prints its path.
capture() {
    cat >"$BATS_TEST_TMPDIR/capture.jsonl"
    printf '%s' "$BATS_TEST_TMPDIR/capture.jsonl"
}

# findings ARGS...: acp-validate's findings, one a line: "LINE SEVERITY CODE RELATED_LINE".
findings() {
    acp-validate --diagnostics=json "$@" 2>&1 >/dev/null |
        jq -r '"\(.line) \(.severity) \(.code) \(.related_line // "-")"'
}

NODE='{"node":"tg:n/1"}'
OK='{"status":"ok"}'
BUSY='{"reason":"busy"}'

@test "the seed's example exchange gives no finding" {
    run -0 acp-validate "$TESTS_DIR/golden/validate/seed-iacp-exchange/input"
    assert_equal "$stderr" ""
    run -0 findings "$TESTS_DIR/golden/validate/seed-iacp-exchange/input"
    assert_output ""
}

@test "a correct exchange with slots, partials, cancel, tool query and control gives no finding" {
    run -0 findings "$FIXTURES/stream-iacp/correct.jsonl"
    assert_output ""
    run -0 acp-validate "$FIXTURES/stream-iacp/correct.jsonl"
}

@test "a reply whose ref names nothing seen is an orphan warning" {
    f=$(m m-000001 forager-01 queen task.result 100 q-0001 "$OK" | capture)
    run -0 findings "$f"
    assert_output "1 warning iacp-orphan -"
    run -0 --separate-stderr acp-validate "$f"
    assert_output --partial '"ref":"q-0001"'
    [[ "$stderr" == *"no message with that id from 'queen'"* ]]
}

@test "--strict makes an orphan an error" {
    f=$(m m-000001 forager-01 queen task.accept 100 q-0001 | capture)
    run -0 findings --strict "$f"
    assert_output "1 error iacp-orphan -"
    run -1 acp-validate --strict "$f"
}

@test "every reply kind and task.cancel can be an orphan" {
    f=$({
        m m-000001 forager-01 queen task.accept 100 q-0001
        m m-000002 forager-01 queen task.reject 100 q-0002 "$BUSY"
        m m-000003 forager-01 forager-02 tool.reply 100 m-000009 "$OK"
        m q-0003 queen forager-01 task.cancel 100 q-0004
    } | capture)
    run -0 findings "$f"
    assert_output "$(printf '%s\n' '1 warning iacp-orphan -' '2 warning iacp-orphan -' \
        '3 warning iacp-orphan -' '4 warning iacp-orphan -')"
}

@test "ref is required on task.result only: other replies without it pass unpaired, with a warning" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 101
        m m-000002 forager-01 queen task.reject 102 "" "$BUSY"
        m q-0002 queen forager-01 task.cancel 103
        m m-000003 forager-02 forager-01 tool.reply 104 "" "$OK"
        m m-000004 forager-01 queen task.result 105 "" "$OK"
        m m-000005 forager-01 queen task.result 106 q-0001 "$OK"
    } | capture)
    for mode in "" --stateless; do
        run -1 --separate-stderr acp-validate $mode "$f"
        assert_equal "${#lines[@]}" 6
        refute_output --partial '"id":"m-000004"'
        run findings $mode "$f"
        assert_output "$(printf '%s\n' '2 warning iacp-no-ref -' '3 warning iacp-no-ref -' \
            '4 warning iacp-no-ref -' '5 warning iacp-no-ref -' '6 error iacp-ref-missing -')"
    done
    run -0 findings --stateless "$FIXTURES/stream-iacp/correct.jsonl"
    assert_output ""
}

@test "IACP 1.0 messages are not paired" {
    f=$(printf '%s\n' \
        '{"v":"1.0","id":"q-0001","from":"queen","to":"forager-01","kind":"task.assign","ts":100}' \
        '{"v":"1.0","id":"m-000001","from":"forager-01","to":"queen","kind":"task.result","ts":101,"ref":"q-0999"}' | capture)
    run -0 findings "$f"
    assert_output "$(printf '%s\n' '1 warning iacp-version-legacy -' '2 warning iacp-version-legacy -')"
}

@test "a ref naming a heartbeat or the other kind of conversation is an error" {
    f=$({
        m q-0001 queen forager-01 hb 100
        m m-000001 forager-01 queen task.result 101 q-0001 "$OK"
        m q-0002 queen forager-01 task.assign 102 "" "$NODE"
        m m-000002 forager-01 queen tool.reply 103 q-0002 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '2 error iacp-ref-kind 1' '4 error iacp-ref-kind 3' \
        '3 warning iacp-open-at-end -')"
}

@test "a task reply to a tool.query is an error" {
    f=$({
        m q-0001 queen forager-01 tool.query 100
        m m-000001 forager-01 queen task.result 101 q-0001 "$OK"
        m m-000002 forager-01 queen tool.reply 101 q-0001 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "2 error iacp-ref-kind 1"
}

@test "a reply from an agent the assign did not go to is an error and is not applied" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-02 queen task.result 101 q-0001 "$OK"
        m m-000001 forager-01 queen task.result 102 q-0001 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "2 error iacp-wrong-replier 1"
}

@test "a reply after a reject is an error" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.reject 101 q-0001 "$BUSY"
        m m-000002 forager-01 queen task.accept 102 q-0001
        m m-000003 forager-01 queen task.result 103 q-0001 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '3 error iacp-reply-after-reject 2' \
        '4 error iacp-reply-after-reject 2')"
}

@test "a result after the final result is an error; partial results before it are not" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.result 101 q-0001 '{"status":"ok","partial":true}'
        m m-000002 forager-01 queen task.result 102 q-0001 '{"status":"ok","partial":true}'
        m m-000003 forager-01 queen task.result 103 q-0001 "$OK"
        m m-000004 forager-01 queen task.result 104 q-0001 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "5 error iacp-result-after-final 4"
}

@test "a second tool.reply is a result after the final one" {
    f=$({
        m m-000001 forager-02 forager-01 tool.query 100
        m m-000001 forager-01 forager-02 tool.reply 101 m-000001 "$OK"
        m m-000002 forager-01 forager-02 tool.reply 102 m-000001 "$OK"
    } | capture)
    run findings "$f"
    assert_output "3 error iacp-result-after-final 2"
}

@test "an id used twice by one sender is an error; two senders may share an id" {
    f=$({
        m m-000001 forager-01 queen hb 100 "" '{"slots":1}'
        m m-000001 forager-02 queen hb 100 "" '{"slots":1}'
        m m-000002 forager-01 queen hb 101 "" '{"slots":1}'
        m m-000001 forager-01 queen hb 102 "" '{"slots":1}'
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "4 error iacp-duplicate-id 1"
}

@test "ids are forgotten after --idle-timeout of message time" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m m-000001 forager-01 queen hb 150
        m m-000002 forager-01 queen hb 400
        m m-000001 forager-01 queen hb 401
    } | capture)
    run findings --idle-timeout=100 "$f"
    assert_output "2 error iacp-duplicate-id 1"
}

@test "when message time stands still, ids are forgotten by count: ten per --max-open" {
    f=$({
        for i in 1 2 3 4 5 6 7 8 9 a b; do
            m m-00000$i forager-01 queen hb 100
        done
        m m-000001 forager-01 queen hb 100
        m m-00000b forager-01 queen hb 100
    } | capture)
    run findings --max-open=1 "$f"
    assert_output "13 error iacp-duplicate-id 11"
}

@test "when message time stands still, at most --max-open tombstones are kept" {
    f=$({
        m m-000001 forager-01 registry tool.query 100
        m m-0000a1 registry forager-01 tool.reply 100 m-000001
        m m-000002 forager-01 registry tool.query 100
        m m-0000a2 registry forager-01 tool.reply 100 m-000002
        m m-0000a3 registry forager-01 tool.reply 100 m-000001
        m m-0000a4 registry forager-01 tool.reply 100 m-000002
    } | capture)
    run findings --max-open=1 "$f"
    assert_output "6 error iacp-result-after-final 4"
}

@test "a second assign to a forager with one slot is an error" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m q-0002 queen forager-01 task.assign 101 "" '{"node":"b"}'
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_line --index 0 "2 error iacp-slots 1"
    run -1 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *"'forager-01' already holds 1 outstanding task.assign and has 1 slot(s)"* ]]
}

@test "slots advertised by the latest heartbeat or given by --slots allow more assigns" {
    f=$({
        m m-000001 forager-01 queen hb 99 "" '{"slots":2}'
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m q-0002 queen forager-01 task.assign 101 "" '{"node":"b"}'
        m q-0003 queen forager-02 task.assign 101 "" '{"node":"c"}'
        m q-0004 queen forager-02 task.assign 101 "" '{"node":"d"}'
        m q-0005 queen forager-01 task.assign 102 "" '{"node":"e"}'
    } | capture)
    run findings "$f" --slots=forager-02=2
    assert_output "$(printf '%s\n' '6 error iacp-slots 3' '2 warning iacp-open-at-end -' \
        '3 warning iacp-open-at-end -' '4 warning iacp-open-at-end -' \
        '5 warning iacp-open-at-end -' '6 warning iacp-open-at-end -')"
    run findings "$f"
    assert_line --index 0 "5 error iacp-slots 4"
    assert_line --index 1 "6 error iacp-slots 3"
}

@test "only the latest heartbeat's slots count" {
    f=$({
        m m-000001 forager-01 queen hb 98 "" '{"slots":2}'
        m m-000002 forager-01 queen hb 99 "" '{"slots":1}'
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m q-0002 queen forager-01 task.assign 101 "" '{"node":"b"}'
    } | capture)
    run findings "$f"
    assert_line --index 0 "4 error iacp-slots 3"
}

@test "a slot is held until the final result, the reject, or the result after a cancel" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m m-000001 forager-01 queen task.result 101 q-0001 '{"status":"ok","partial":true}'
        m m-000002 forager-01 queen task.result 102 q-0001 "$OK"
        m q-0002 queen forager-01 task.assign 103 "" '{"node":"b"}'
        m m-000003 forager-01 queen task.reject 104 q-0002 "$BUSY"
        m q-0003 queen forager-01 task.assign 105 "" '{"node":"c"}'
        m q-0004 queen forager-01 task.cancel 106 q-0003
        m q-0005 queen forager-01 task.assign 107 "" '{"node":"d"}'
        m m-000004 forager-01 queen task.result 108 q-0003 '{"status":"cancelled"}'
        m m-000005 forager-01 queen task.reject 109 q-0005 "$BUSY"
        m q-0006 queen forager-01 task.assign 110 "" '{"node":"e"}'
        m m-000006 forager-01 queen task.result 111 q-0006 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "8 error iacp-slots 6"
}

@test "a reissue, the late accept and the duplicate execution are reported" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-02 task.assign 400 "" "$NODE"
        m m-000001 forager-01 queen task.accept 401 q-0001
        m m-000001 forager-02 queen task.accept 402 q-0002
        m m-000002 forager-02 queen task.result 403 q-0002 "$OK"
        m m-000002 forager-01 queen task.result 404 q-0001 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '2 warning iacp-reissue 1' '3 warning iacp-late-accept 2' \
        '6 error iacp-duplicate-execution 2')"
    run -1 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *":2: warning: node 'tg:n/1' reissued to 'forager-02': assign 'q-0001' to 'forager-01' has had no final result for 300 s (assign timeout 300 s)"* ]]
    [[ "$stderr" == *":6: error: node 'tg:n/1' ran twice: assign 'q-0001' (line 1) to 'forager-01' and assign 'q-0002' (line 2) both have a final task.result (see line 2) [iacp-duplicate-execution]"* ]]
}

@test "a second reissue, after the first one was rejected, is told against the assign still open" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-02 task.assign 400 "" "$NODE"
        m m-000001 forager-02 queen task.reject 401 q-0002 "$BUSY"
        m q-0003 queen forager-03 task.assign 402 "" "$NODE"
        m m-000001 forager-03 queen task.result 403 q-0003 "$OK"
        m m-000001 forager-01 queen task.result 404 q-0001 "$OK"
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '2 warning iacp-reissue 1' '4 warning iacp-reissue 1' \
        '6 error iacp-duplicate-execution 4')"
}

@test "a reissue whose first assign never finishes is no duplicate execution" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-02 task.assign 400 "" "$NODE"
        m m-000001 forager-01 queen task.reject 401 q-0001 "$BUSY"
        m m-000002 forager-02 queen task.result 403 q-0002 "$OK"
    } | capture)
    run findings "$f"
    assert_output "2 warning iacp-reissue 1"
}

@test "an assign of a node after a cancel or after its final result is no reissue" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-01 task.cancel 200 q-0001
        m q-0003 queen forager-02 task.assign 201 "" "$NODE"
        m m-000001 forager-01 queen task.result 202 q-0001 '{"status":"cancelled"}'
        m m-000001 forager-02 queen task.result 203 q-0003 "$OK"
        m q-0004 queen forager-03 task.assign 204 "" "$NODE"
        m m-000001 forager-03 queen task.result 205 q-0004 "$OK"
    } | capture)
    run -0 findings "$f"
    assert_output ""
}

@test "a reply stamped before its assign by more than --max-skew is a warning" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 98 q-0001
        m m-000002 forager-01 queen task.result 95 q-0001 "$OK"
    } | capture)
    run -0 acp-validate "$f"
    run findings "$f"
    assert_output "3 warning iacp-skew 1"
    run -0 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *"stamped 5 s before the task.assign it answers (clock skew; --max-skew is 2 s)"* ]]
    run findings --max-skew=10 "$f"
    assert_output ""
}

@test "an agent holding a task and silent for three heartbeat periods is reported once" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" "$NODE"
        m m-000002 forager-01 queen task.accept 102 q-0001
        m m-000001 forager-02 queen hb 120
        m m-000002 forager-02 queen hb 132
        m m-000003 forager-02 queen hb 133
        m m-000004 forager-02 queen hb 150
        m m-000003 forager-01 queen task.result 151 q-0001 "$OK"
    } | capture)
    run -0 acp-validate "$f"
    run findings "$f"
    assert_output "6 warning iacp-silent 3"
}

@test "a silence is reported again after the agent spoke" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" "$NODE"
        m m-000001 forager-02 queen hb 140
        m m-000002 forager-01 queen hb 141
        m m-000002 forager-02 queen hb 180
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '3 warning iacp-silent 1' '5 warning iacp-silent 4' \
        '2 warning iacp-open-at-end -')"
}

@test "a silence shown by the last message is reported at the end of the input" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m m-000001 forager-02 queen hb 200
        m q-0001 queen forager-01 task.assign 200 "" "$NODE"
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '3 warning iacp-silent 1' '3 warning iacp-open-at-end -')"
}

@test "agents never seen to beat their heart are never called silent" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 101 q-0001
        m m-000001 forager-02 forager-01 tool.query 200
        m m-000002 forager-01 queen task.result 201 q-0001 "$OK"
        m m-000003 forager-01 forager-02 tool.reply 202 m-000001 "$OK"
    } | capture)
    run -0 findings "$f"
    assert_output ""
}

@test "open conversations and passed deadlines are reported at the end of the input" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a","deadline":150}'
        m q-0002 queen forager-02 task.assign 100 "" '{"node":"b","deadline":500}'
        m m-000001 forager-01 queen task.accept 101 q-0001
        m m-000001 forager-03 forager-02 tool.query 101
        m q-0003 queen forager-04 task.assign 102 "" '{"node":"c","deadline":150}'
        m m-000001 forager-04 queen task.result 200 q-0003 "$OK"
    } | capture)
    run -0 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '1 warning iacp-open-at-end -' \
        '1 warning iacp-deadline-passed -' '2 warning iacp-open-at-end -' \
        '4 warning iacp-open-at-end -')"
    run -0 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *":1: warning: task.assign to 'forager-01' is still open at the end of the input (2 message(s), the last at line 3)"* ]]
    [[ "$stderr" == *"the deadline of 'q-0001' passed 50 s before the last message time"* ]]
}

@test "--max-open evicts the least recently active conversation with a warning" {
    f=$({
        m m-000001 forager-01 forager-02 tool.query 100
        m m-000002 forager-01 forager-03 tool.query 101
        m m-000001 forager-02 forager-01 tool.reply 102 m-000001 "$OK"
        m m-000003 forager-01 forager-04 tool.query 103
        m m-000001 forager-03 forager-01 tool.reply 104 m-000002 "$OK"
    } | capture)
    run -0 findings --max-open=1 "$f"
    assert_output "$(printf '%s\n' '2 warning iacp-evicted 1' '4 warning iacp-evicted 2' \
        '4 warning iacp-open-at-end -')"
    run -0 --separate-stderr acp-validate --max-open=1 "$f"
    [[ "$stderr" == *":2: warning: more than 1 conversations are open; the least recently active, 'm-000001', is forgotten (--max-open) (see line 1)"* ]]
    run -0 findings --max-open=2 "$f"
    assert_output "4 warning iacp-open-at-end -"
}

@test "a conversation idle for --idle-timeout is evicted and its late replies pass quietly" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-02 queen hb 250
        m m-000001 forager-01 queen task.result 260 q-0001 "$OK"
    } | capture)
    run -0 findings --idle-timeout=100 "$f"
    assert_output "2 warning iacp-evicted 1"
    run -0 --separate-stderr acp-validate --idle-timeout=100 "$f"
    [[ "$stderr" == *"conversation 'q-0001' had no message for 150 s and is forgotten (--idle-timeout)"* ]]
    run -0 findings "$f"
    assert_output ""
}

@test "related_file names the earlier message's file when it differs" {
    m q-0001 queen forager-01 task.assign 100 "" "$NODE" >"$BATS_TEST_TMPDIR/a.jsonl"
    m m-000001 forager-02 queen task.accept 101 q-0001 >"$BATS_TEST_TMPDIR/b.jsonl"
    cd "$BATS_TEST_TMPDIR"
    run -1 --separate-stderr acp-validate --diagnostics=json a.jsonl b.jsonl
    run jq -r 'select(.code == "iacp-wrong-replier") | "\(.file) \(.line) \(.related_file) \(.related_line)"' <<<"$stderr"
    assert_output "b.jsonl 1 a.jsonl 1"
    run -1 --separate-stderr acp-validate a.jsonl b.jsonl
    [[ "$stderr" == *"b.jsonl:1:"*"(see line a.jsonl:1) [iacp-wrong-replier]"* ]]
}

@test "--stateless drops every stream finding" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-01 task.assign 101 "" '{"node":"b"}'
        m m-000001 forager-02 queen task.accept 102 q-0001
        m m-000002 forager-01 queen task.result 103 q-0009 "$OK"
    } | capture)
    run -1 acp-validate "$f"
    run -0 --separate-stderr acp-validate --stateless "$f"
    assert_equal "$stderr" ""
    assert_equal "${#lines[@]}" 4
}

@test "a message that fails its own checks is not followed" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.result 101 q-0001 '{"status":"ok","partial":"yes"}'
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '2 error iacp-partial -' '1 warning iacp-open-at-end -')"
}

@test "every IACP stream code is explained and listed in acp(7)" {
    local code
    for code in iacp-duplicate-id iacp-orphan iacp-ref-kind iacp-wrong-replier \
        iacp-reply-after-reject iacp-result-after-final iacp-slots iacp-reissue \
        iacp-late-accept iacp-duplicate-execution iacp-skew iacp-silent iacp-open-at-end \
        iacp-deadline-passed iacp-evicted; do
        run -0 acp-validate --explain="$code"
        assert_line --index 0 --regexp "^$code \((error|warning)\): "
        grep -qxF ".B ${code//-/\\-}" "$TESTS_DIR/../man/acp.7" || fail "$code is not in acp(7)"
    done
}

# The colony generator, built once for the tests below.
gen_colony() {
    if [ ! -x "$BATS_FILE_TMPDIR/gen-colony" ]; then
        ${CC:-cc} -std=c11 -O2 -o "$BATS_FILE_TMPDIR/gen-colony" "$TESTS_DIR/../bench/gen-colony.c" ||
            fail "cannot build gen-colony"
    fi
    "$BATS_FILE_TMPDIR/gen-colony" "$@"
}

@test "a generated colony of 20000 messages gives no finding" {
    gen_colony 20000 16 5 >"$BATS_TEST_TMPDIR/colony.jsonl"
    run -0 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/colony.jsonl"
    assert_equal "$stderr" ""
    assert_equal "${#lines[@]}" 20000
}

@test "every fault injected into a generated colony is found at its line, and nothing else" {
    gen_colony --faults="$BATS_TEST_TMPDIR/faults" 30000 16 1 >"$BATS_TEST_TMPDIR/colony.jsonl"
    local code
    for code in iacp-orphan iacp-duplicate-id iacp-wrong-replier iacp-result-after-final \
        iacp-reply-after-reject iacp-slots iacp-skew iacp-silent iacp-reissue \
        iacp-late-accept iacp-duplicate-execution; do
        grep -q " $code\$" "$BATS_TEST_TMPDIR/faults" || fail "no $code was injected"
    done
    sort "$BATS_TEST_TMPDIR/faults" >"$BATS_TEST_TMPDIR/want"
    findings "$BATS_TEST_TMPDIR/colony.jsonl" | cut -d' ' -f1,3 | sort >"$BATS_TEST_TMPDIR/got"
    run diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
    assert_success
    run -1 acp-validate -q "$BATS_TEST_TMPDIR/colony.jsonl"
}

@test "a ts in milliseconds does not age the stream by years" {
    f=$({
        m m-000001 forager-01 queen hb 1312284100
        m q-0001 queen forager-01 task.assign 1312284101 "" "$NODE"
        m m-000002 forager-01 queen task.accept 1312284102 q-0001
        m m-000001 forager-02 queen hb 1312284103000
        m m-000003 forager-01 queen task.result 1312284104 q-0001 "$OK"
        m m-000001 forager-03 queen hb 1312284110
    } | capture)
    run -0 findings "$f"
    assert_output "4 warning iacp-ts-millis -"
}

# The engine as acp-trace sees it: a small driver prints engine_feed's keys and the summaries.
engine_summaries() {
    if [ ! -x "$BATS_FILE_TMPDIR/engine-summaries" ]; then
        local root=$TESTS_DIR/..
        # shellcheck disable=SC2046
        ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -I"$root/common" \
            -o "$BATS_FILE_TMPDIR/engine-summaries" "$root/tests/drivers/engine-summaries.c" \
            "$root"/common/*.c $(pkg-config --cflags --libs jansson) -lm ||
            fail "cannot build the engine driver"
    fi
    "$BATS_FILE_TMPDIR/engine-summaries" "$@"
}

@test "the engine hands over each conversation with its outcome and names it for every message" {
    run -0 --separate-stderr engine_summaries <"$FIXTURES/stream-iacp/correct.jsonl"
    assert_output - <<'OUT'
line 1: -
line 2: -
line 3: q-00a1
line 4: q-00a2
line 5: q-00a1
done q-00a2 iacp-task from queen: rejected, 2 message(s), lines 4-6 of <stdin>, time 1312284101-1312284101
line 6: q-00a2
line 7: q-00a3
line 8: q-00a3
line 9: m-000003
done m-000003 iacp-tool from forager-02: done, 2 message(s), lines 9-10 of <stdin>, time 1312284104-1312284104
line 10: m-000003
line 11: q-00a1
line 12: q-00a3
done q-00a3 iacp-task from queen: cancelled, 4 message(s), lines 7-13 of <stdin>, time 1312284102-1312284107
line 13: q-00a3
line 14: -
done q-00a1 iacp-task from queen: done, 4 message(s), lines 3-15 of <stdin>, time 1312284100-1312284109
line 15: q-00a1
line 16: -
OUT
    assert_equal "$stderr" ""
}

@test "failed, evicted and still open conversations are handed over too" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m q-0002 queen forager-02 task.assign 101 "" '{"node":"b"}'
        m m-000001 forager-02 queen task.result 102 q-0002 '{"status":"error"}'
        m q-0003 queen forager-03 task.assign 103 "" '{"node":"c"}'
        m q-0004 queen forager-04 task.assign 104 "" '{"node":"d"}'
    } | capture)
    run -0 --separate-stderr engine_summaries 2 <"$f"
    assert_output - <<'OUT'
line 1: q-0001
line 2: q-0002
done q-0002 iacp-task from queen: failed, 2 message(s), lines 2-3 of <stdin>, time 101-102
line 3: q-0002
line 4: q-0003
done q-0001 iacp-task from queen: evicted, 1 message(s), lines 1-1 of <stdin>, time 100-100
line 5: q-0004
done q-0003 iacp-task from queen: open, 1 message(s), lines 4-4 of <stdin>, time 103-103
done q-0004 iacp-task from queen: open, 1 message(s), lines 5-5 of <stdin>, time 104-104
OUT
}
