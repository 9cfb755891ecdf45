load test_helper

setup_file() {
    build_test_programs
}

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

@test "a second accept, an accept or reject after the final result, and a reject after an accept are errors" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 101 q-0001
        m m-000002 forager-01 queen task.accept 102 q-0001
        m m-000003 forager-01 queen task.reject 103 q-0001 "$BUSY"
        m m-000004 forager-01 queen task.result 104 q-0001 "$OK"
        m q-0002 queen forager-01 task.assign 105 "" '{"node":"b"}'
        m m-000005 forager-01 queen task.result 106 q-0002 "$OK"
        m m-000006 forager-01 queen task.accept 107 q-0002
        m m-000007 forager-01 queen task.reject 108 q-0002 "$BUSY"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '3 error iacp-accept-twice 2' '4 error iacp-reject-after-accept 2' \
        '5 error iacp-reply-after-reject 4' '8 error iacp-result-after-final 7' \
        '9 error iacp-result-after-final 7')"
}

@test "an accept, partial results and one final result, or a reject before any accept, are in order" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 101 q-0001
        m m-000002 forager-01 queen task.result 102 q-0001 '{"status":"ok","partial":true}'
        m m-000003 forager-01 queen task.result 103 q-0001 "$OK"
        m q-0002 queen forager-01 task.assign 104 "" '{"node":"b"}'
        m m-000004 forager-01 queen task.reject 105 q-0002 "$BUSY"
        m q-0003 queen forager-01 task.assign 106 "" '{"node":"c"}'
        m m-000005 forager-01 queen task.result 107 q-0003 '{"status":"error"}'
    } | capture)
    run -0 findings "$f"
    assert_output ""
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

@test "when message time stands still, ids are forgotten by count: --max-open of them" {
    f=$({
        for i in 1 2 3 4; do
            m m-00000$i forager-01 queen hb 100
        done
        m m-000001 forager-01 queen hb 100
        m m-000004 forager-01 queen hb 100
    } | capture)
    run findings --max-open=3 "$f"
    assert_output "6 error iacp-duplicate-id 4"
}

@test "when message time stands still, the ends of conversations are forgotten by count too" {
    f=$({
        m m-000001 forager-01 registry tool.query 100
        m m-0000a1 registry forager-01 tool.reply 100 m-000001
        m m-000002 forager-01 registry tool.query 100
        m m-0000a2 registry forager-01 tool.reply 100 m-000002
        m m-0000a3 registry forager-01 tool.reply 100 m-000001
        m m-0000a4 registry forager-01 tool.reply 100 m-000002
    } | capture)
    run findings --max-open=2 "$f"
    assert_output "$(printf '%s\n' '5 warning iacp-orphan -' '6 error iacp-result-after-final 4')"
}

@test "when more than --max-open agents are known, one that holds nothing is forgotten, least recently active first" {
    f=$({
        m m-000001 forager-01 queen hb 100 "" '{"slots":2}'
        m m-000001 forager-02 queen hb 101
        m m-000001 forager-03 queen hb 102
        m q-0001 queen forager-01 task.assign 103 "" '{"node":"a"}'
        m q-0002 queen forager-01 task.assign 104 "" '{"node":"b"}'
    } | capture)
    run findings --max-open=3 "$f"
    assert_output "$(printf '%s\n' '4 warning iacp-open-at-end -' '5 warning iacp-open-at-end -')"
    run findings --max-open=2 "$f"
    assert_line --index 0 "5 error iacp-slots 4"
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        for a in 1 2 3 4 5 6; do
            m m-000001 "agent-$a" queen hb 101
        done
        m q-0002 queen forager-01 task.assign 102 "" '{"node":"b"}'
    } | capture)
    run findings --max-open=2 "$f"
    assert_line --index 0 "8 error iacp-slots 1"
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

@test "--assign-timeout decides: a reissue sooner, or to the same forager, is an error" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-02 task.assign 250 "" "$NODE"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_line --index 0 "2 error iacp-reissue-unexpected 1"
    run -1 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *":2: error: node 'tg:n/1' reissued to 'forager-02' only 150 s after assign 'q-0001' to 'forager-01', before the assign timeout (300 s)"* ]]
    run findings --assign-timeout=150 "$f"
    assert_line --index 0 "2 warning iacp-reissue 1"
    run findings --assign-timeout=151 "$f"
    assert_line --index 0 "2 error iacp-reissue-unexpected 1"
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-01 task.assign 500 "" "$NODE"
    } | capture)
    run findings "$f"
    assert_line --index 0 "2 error iacp-slots 1"
    assert_line --index 1 "2 error iacp-reissue-unexpected 1"
    run findings --slots=forager-01=2 "$f"
    assert_line --index 0 "2 error iacp-reissue-unexpected 1"
    assert_line --index 1 "1 warning iacp-open-at-end -"
}

@test "drain: an assign to a drained forager is a warning; its accept of one sent after the drain an error" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-01 ctl.drain 101
        m m-000001 forager-01 queen task.accept 102 q-0001
        m m-000002 forager-01 queen hb 110 "" '{"slots":1}'
        m m-000003 forager-01 queen task.result 112 q-0001 "$OK"
        m q-0003 queen forager-01 task.assign 113 "" '{"node":"b"}'
        m m-000004 forager-01 queen task.accept 114 q-0003
        m m-000005 forager-01 queen task.result 115 q-0003 "$OK"
        m q-0004 queen forager-01 task.assign 116 "" '{"node":"c"}'
        m m-000006 forager-01 queen task.reject 117 q-0004 "$BUSY"
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '6 warning iacp-assign-drained 2' '7 error iacp-accept-drained 2' \
        '9 warning iacp-assign-drained 2')"
}

@test "a drain lasts through regular heartbeats and ends at the first hb after a silence" {
    f=$({
        m q-0001 queen forager-01 ctl.drain 100
        for t in 110 120 130; do
            m "m-000$t" forager-01 queen hb "$t"
        done
        m q-0002 queen forager-01 task.assign 131 "" "$NODE"
        m m-000001 forager-01 queen task.reject 132 q-0002 "$BUSY"
        m m-000001 forager-02 queen hb 140
        m m-000150 forager-01 queen hb 150
        m q-0003 queen forager-01 task.assign 151 "" "$NODE"
        m m-000002 forager-01 queen task.accept 152 q-0003
        m m-000003 forager-01 queen task.result 153 q-0003 "$OK"
    } | capture)
    run -0 findings "$f"
    assert_output "5 warning iacp-assign-drained 1"
}

@test "halt: a message other than hb from a halted forager is an error, unless it was on its way" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-01 queen task.accept 101 q-0001
        m q-0002 queen forager-01 ctl.halt 102
        m m-000002 forager-01 queen task.result 104 q-0001 '{"status":"ok","partial":true}'
        m m-000003 forager-01 queen hb 105
        m m-000004 forager-01 queen task.result 106 q-0001 "$OK"
        m m-000005 forager-01 forager-02 tool.query 107
    } | capture)
    run -1 acp-validate "$f"
    run findings "$f"
    assert_output "$(printf '%s\n' '6 error iacp-after-halt 3' '7 error iacp-after-halt 3' \
        '7 warning iacp-open-at-end -')"
    run findings --max-skew=10 "$f"
    assert_output "7 warning iacp-open-at-end -"
}

@test "a halt ends when the forager beats its heart again after a silence (a restart)" {
    f=$({
        m q-0001 queen forager-01 ctl.halt 100
        m m-000001 forager-02 queen hb 105
        m m-000002 forager-02 queen hb 115
        m m-000001 forager-01 queen hb 116
        m q-0002 queen forager-01 task.assign 117 "" "$NODE"
        m m-000002 forager-01 queen task.accept 118 q-0002
        m m-000003 forager-01 queen task.result 119 q-0002 "$OK"
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
        m m-000001 forager-02 queen hb 110
        m m-000002 forager-02 queen hb 120
        m m-000003 forager-02 queen hb 130
        m m-000004 forager-02 queen hb 133
        m m-000005 forager-02 queen hb 140
        m m-000003 forager-01 queen task.result 141 q-0001 "$OK"
    } | capture)
    run -0 acp-validate "$f"
    run findings "$f"
    assert_output "7 warning iacp-silent 3"
}

@test "a silence is reported again after the agent spoke" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" "$NODE"
        for t in 110 120 130 140; do
            m "m-000$t" forager-02 queen hb "$t"
        done
        m m-000002 forager-01 queen hb 141
        for t in 150 160 170 180; do
            m "m-000$t" forager-02 queen hb "$t"
        done
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '6 warning iacp-silent 1' '11 warning iacp-silent 7' \
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

@test "one sender alone cannot make the others silent by jumping ahead; a second sender can" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" "$NODE"
        m m-000001 forager-02 queen hb 140
        m m-000002 forager-02 queen hb 141
        m m-000002 forager-01 queen hb 102
    } | capture)
    run -0 findings "$f"
    assert_output "2 warning iacp-open-at-end -"
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" "$NODE"
        m m-000001 forager-02 queen hb 140
        m m-000001 forager-03 queen hb 141
    } | capture)
    run -0 findings "$f"
    assert_output "$(printf '%s\n' '4 warning iacp-silent 1' '2 warning iacp-open-at-end -')"
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

@test "open conversations are reported at the end of the input, a passed deadline at the first message past it" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a","deadline":150}'
        m q-0002 queen forager-02 task.assign 100 "" '{"node":"b","deadline":500}'
        m m-000001 forager-01 queen task.accept 101 q-0001
        m m-000001 forager-03 forager-02 tool.query 101
        m q-0003 queen forager-04 task.assign 102 "" '{"node":"c","deadline":150}'
        m m-000001 forager-05 queen hb 200
        m m-000001 forager-04 queen task.result 200 q-0003 "$OK"
    } | capture)
    run -0 acp-validate "$f"
    run findings "$f"
    # message time reaches 200 at line 7, whose own late result for q-0003 is no missing one
    assert_output "$(printf '%s\n' '7 warning iacp-deadline-passed 1' \
        '1 warning iacp-open-at-end -' '2 warning iacp-open-at-end -' \
        '4 warning iacp-open-at-end -')"
    run -0 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *":1: warning: task.assign to 'forager-01' is still open at the end of the input (2 message(s), the last at line 3)"* ]]
    [[ "$stderr" == *":7: warning: the deadline of 'q-0001' passed 50 s ago (message time) without a final task.result (see line 1)"* ]]
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
        m m-000001 forager-03 queen hb 250
        m m-000001 forager-01 queen task.result 260 q-0001 "$OK"
    } | capture)
    run -0 findings --idle-timeout=100 "$f"
    assert_output "3 warning iacp-evicted 1"
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
        iacp-deadline-passed iacp-evicted iacp-accept-twice iacp-reject-after-accept \
        iacp-reissue-unexpected iacp-assign-drained iacp-accept-drained iacp-after-halt \
        iacp-clock-skew iacp-no-ref iacp-ts-range; do
        run -0 acp-validate --explain="$code"
        assert_line --index 0 --regexp "^$code \((error|warning)\): "
        grep -qxF ".B ${code//-/\\-}" "$TESTS_DIR/../man/acp.7" || fail "$code is not in acp(7)"
    done
}

# ---- the stream clock ----

@test "one message with an absurd ts moves nothing" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-01 task.assign 101 "" '{"node":"a","deadline":130}'
        m m-000002 forager-01 queen task.accept 102 q-0001
        m m-000001 forager-02 queen hb 103
        m m-000003 forager-01 queen hb 110
        m m-000002 forager-02 queen hb 113
        m m-000003 forager-02 queen hb 99999999999
        m m-000004 forager-01 queen hb 120
        m m-000004 forager-02 queen hb 123
    } | capture)
    run -0 findings "$f"
    assert_output "2 warning iacp-open-at-end -"
    m m-000005 forager-02 queen hb 99999999999 >>"$f"
    run -0 findings "$f"
    assert_output "2 warning iacp-open-at-end -"
    m m-000005 forager-01 queen task.result 125 q-0001 "$OK" >>"$f"
    run -0 findings "$f"
    assert_output ""
}

@test "a ts above 10^14 is rejected and moves nothing; durations print readably" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m m-000001 forager-02 queen hb 1e300
        m m-000002 forager-02 queen hb 101
        m m-000001 forager-01 queen task.result 102 q-0001 "$OK"
    } | capture)
    run -1 --separate-stderr acp-validate "$f"
    [[ "$stderr" != *"fractional"* ]] || fail "1e300 called fractional: $stderr"
    run findings "$f"
    assert_output "2 error iacp-ts-range -"
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" "$NODE"
        m q-0002 queen forager-02 task.assign 200 "" "$NODE"
    } | capture)
    run -1 --separate-stderr acp-validate --assign-timeout=1e300 --max-skew=1e300 "$f"
    [[ "$stderr" == *"before the assign timeout (1e+300 s)"* ]] || fail "$stderr"
    [[ ! "$stderr" =~ [0-9]{20} ]] || fail "a number of 20 digits: $stderr"
}

@test "a sender whose clock runs steadily off by more than --clock-skew gets one warning, and no one looks silent" {
    gen_colony 20000 16 5 >"$BATS_TEST_TMPDIR/colony.jsonl"
    local who off
    for who in forager-05 queen; do
        for off in 100 -100 3600; do
            # the sender's clock writes its deadlines too
            jq -c --arg who "$who" --argjson off "$off" \
                'if .from == $who then .ts += $off | if .body.deadline then .body.deadline += $off else . end else . end' \
                "$BATS_TEST_TMPDIR/colony.jsonl" \
                >"$BATS_TEST_TMPDIR/shifted.jsonl"
            run -0 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/shifted.jsonl"
            assert_equal "${#lines[@]}" 20000
            [[ "$stderr" == *": warning: the clock of '$who' runs ${off#-} s $( ((off > 0)) && echo ahead of || echo behind) the others' (--clock-skew is 30 s)"* ]] ||
                fail "$who $off: $stderr"
            assert_equal "$(grep -c . <<<"$stderr")" 1
        done
    done
    jq -c 'if .from == "forager-05" then .ts += 100 else . end' "$BATS_TEST_TMPDIR/colony.jsonl" \
        >"$BATS_TEST_TMPDIR/shifted.jsonl"
    run -0 findings --clock-skew=200 "$BATS_TEST_TMPDIR/shifted.jsonl"
    assert_output ""
}

@test "a reply from a sender whose clock runs behind is judged with its offset once it is known" {
    f=$({
        for t in 100 110 120 130; do
            m "m-000$t" forager-01 queen hb "$t"
            m "m-000$t" forager-02 queen hb "$((t + 1))"
            m "m-100$t" forager-03 queen hb "$((t - 98))"
            if [ "$t" = 100 ]; then
                m q-0001 queen forager-03 task.assign 103 "" "$NODE"
                m m-000001 forager-03 queen task.accept 5 q-0001
            fi
        done
        m m-000002 forager-03 queen task.result 35 q-0001 "$OK"
        m m-000003 forager-03 queen task.result 36 q-0001 "$OK"
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '8 warning iacp-clock-skew -' '16 error iacp-result-after-final 15')"
    run -1 --separate-stderr acp-validate "$f"
    [[ "$stderr" == *":8: warning: the clock of 'forager-03' runs 99 s behind the others'"* ]] || fail "$stderr"
    run findings --clock-skew=200 "$f"
    assert_output "$(printf '%s\n' '5 warning iacp-skew 4' '15 warning iacp-skew 4' \
        '16 error iacp-result-after-final 15')"
}

@test "a real gap in the capture, where every sender jumps, is followed" {
    f=$({
        m m-000001 forager-01 queen hb 100
        m q-0001 queen forager-02 task.assign 101 "" "$NODE"
        m m-000001 forager-02 queen hb 102
        m m-000002 forager-01 queen hb 110
        m m-000002 forager-02 queen hb 112
        m m-000003 forager-01 queen hb 1110
        m q-0002 queen forager-01 hb 1111
    } | capture)
    run -0 findings --idle-timeout=500 "$f"
    assert_output "$(printf '%s\n' '7 warning iacp-silent 5' '7 warning iacp-evicted 2')"
}

@test "a stream of one sender is followed, but not to a single absurd ts" {
    f=$({
        m m-000001 forager-01 registry tool.query 100
        m m-000002 forager-01 queen hb 110
        m m-000003 forager-01 queen hb 5000
        m m-000004 forager-01 queen hb 5010
    } | capture)
    run -0 findings "$f"
    assert_output "4 warning iacp-evicted 1"
    f=$({
        m m-000001 forager-01 registry tool.query 100
        m m-000002 forager-01 queen hb 110
        m m-000003 forager-01 queen hb 99999999999
        m m-000004 forager-01 queen hb 120
    } | capture)
    run -0 findings "$f"
    assert_output "1 warning iacp-open-at-end -"
}

# The stream clock alone: a small driver prints the stream time after each "SENDER TS" line.
stream_clock() {
    "$ACP_BUILD/tests/stream-clock" "$@"
}

# honest_stream SEED [OFFSET]: 3000 messages of 20 senders whose clocks agree within a second,
# two a second; with OFFSET, a sender "skewed" whose clock is that far off speaks now and then.
honest_stream() {
    awk -v seed="$1" -v offset="${2:-}" 'BEGIN {
        srand(seed); t = 1000
        for (i = 0; i < 3000; i++) {
            t += rand(); printf "s%02d %d\n", int(rand() * 20), int(t + rand())
            jitter = rand()
            if (rand() < 0.05 && offset != "") printf "skewed %d\n", int(t + offset + jitter)
        }
    }'
}

@test "clock property: one absurd ts, anywhere, changes the stream time of no other message" {
    local seed at
    for seed in 1 2 3 4 5; do
        honest_stream "$seed" >"$BATS_TEST_TMPDIR/plain"
        stream_clock <"$BATS_TEST_TMPDIR/plain" | cut -d' ' -f2 >"$BATS_TEST_TMPDIR/want"
        for at in 1 2 700 2999 3000; do
            awk -v at="$at" 'NR == at { print "s07 99999999999" } { print }' \
                "$BATS_TEST_TMPDIR/plain" >"$BATS_TEST_TMPDIR/absurd"
            stream_clock <"$BATS_TEST_TMPDIR/absurd" | cut -d' ' -f2 | sed "${at}d" \
                >"$BATS_TEST_TMPDIR/got"
            cmp -s "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" || fail "seed $seed, at $at"
        done
    done
}

@test "clock property: a sender steadily off by more than the skew is learned once and moves nothing" {
    local seed off
    for seed in 1 2 3; do
        honest_stream "$seed" | stream_clock | cut -d' ' -f2 >"$BATS_TEST_TMPDIR/want"
        for off in 100 -100 100000; do
            honest_stream "$seed" "$off" >"$BATS_TEST_TMPDIR/mixed"
            stream_clock <"$BATS_TEST_TMPDIR/mixed" >"$BATS_TEST_TMPDIR/out"
            run grep -c ' report skewed offset ' "$BATS_TEST_TMPDIR/out"
            assert_output 1
            run grep -c -e ' learned ' -e ' report s[0-9]' "$BATS_TEST_TMPDIR/out"
            assert_output 0
            # At the other senders' messages, stream time differs by their jitter at most.
            paste -d' ' "$BATS_TEST_TMPDIR/mixed" "$BATS_TEST_TMPDIR/out" | grep -v '^skewed' |
                cut -d' ' -f4 | paste - "$BATS_TEST_TMPDIR/want" |
                awk '{ d = $1 - $2; if (d < -1 || d > 2) { print NR ": " $0; bad = 1 } } END { exit bad }' ||
                fail "seed $seed, offset $off"
        done
    done
}

@test "clock property: a gap that every sender shows is followed at its second message" {
    local seed
    for seed in 1 2 3; do
        honest_stream "$seed" | awk 'NR > 1500 { $2 += 86400 } { print }' >"$BATS_TEST_TMPDIR/gap"
        stream_clock <"$BATS_TEST_TMPDIR/gap" | cut -d' ' -f2 >"$BATS_TEST_TMPDIR/now"
        run sed -n '1501p' "$BATS_TEST_TMPDIR/now"
        [ "$output" -lt 86400 ] || fail "seed $seed: one message moved the clock"
        paste -d' ' "$BATS_TEST_TMPDIR/gap" "$BATS_TEST_TMPDIR/now" | sed -n '1502,$p' |
            awk '$3 < $2 - 30 { print; bad = 1 } END { exit bad }' || fail "seed $seed: gap not followed"
    done
}

@test "the clock: one sender is followed; a first ts that nothing confirms is dropped" {
    run stream_clock <<<$'a 100\na 101\na 500\na 501\na 9e9\na 502\na 503'
    assert_output - <<'OUT'
now 100 at 100
now 101 at 101
now 101 at 500
now 501 at 501
now 501 at 9000000000
now 502 at 502
now 503 at 503
OUT
    run stream_clock <<<$'a 9e9\nb 100\nc 101\na 102'
    assert_output - <<'OUT'
now 9000000000 at 9000000000
now 100 at 100
now 101 at 101
now 102 at 102
OUT
}

@test "the clock: a sender alone through a quiet spell is followed, not taken for a skewed clock" {
    run stream_clock <<<$'a 100\nb 100\na 115\na 117\na 120\na 135\na 136\na 138\na 150\nb 151'
    assert_output - <<'OUT'
now 100 at 100
now 100 at 100
now 100 at 115
now 100 at 117
now 100 at 120
now 100 at 135
now 100 at 136
now 100 at 138
now 150 at 150
now 151 at 151
OUT
}

@test "the clock keeps at most its bound of senders, forgetting the least recently heard" {
    run stream_clock 10 30 30 2 <<<$'a 99\nx 200\na 100\nx 201\na 101\nx 202\na 102\nx 203'
    assert_line --index 7 'now 102 at 102 report x offset 101'
    run stream_clock 10 30 30 2 <<<$'a 99\nx 200\na 100\nx 201\na 101\nb 101\nx 202\na 102\nx 203'
    refute_output --partial report
}

# The colony generator, built once for the tests below.
gen_colony() {
    "$ACP_BUILD/gen-colony" "$@"
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
    "$ACP_BUILD/tests/engine-summaries" "$@"
}

# A conversation that ended is handed over once --linger (2 s) of message time passed, so that a
# late reply still lands in it: after a later message, or at the end.
@test "the engine hands over each conversation with its outcome and names it for every message" {
    run -0 --separate-stderr engine_summaries <"$FIXTURES/stream-iacp/correct.jsonl"
    assert_output - <<'OUT'
line 1: -
line 2: -
line 3: queen/q-00a1
line 4: queen/q-00a2
line 5: queen/q-00a1
line 6: queen/q-00a2
line 7: queen/q-00a3
line 8: queen/q-00a3
done queen/q-00a2 iacp-task from queen: refused, 2 message(s), lines 4-6 of <stdin>, time 1312284101-1312284101
line 9: forager-02/m-000003
line 10: forager-02/m-000003
line 11: queen/q-00a1
line 12: queen/q-00a3
done forager-02/m-000003 iacp-tool from forager-02: done, 2 message(s), lines 9-10 of <stdin>, time 1312284104-1312284104
line 13: queen/q-00a3
line 14: -
line 15: queen/q-00a1
done queen/q-00a3 iacp-task from queen: cancelled, 4 message(s), lines 7-13 of <stdin>, time 1312284102-1312284107
line 16: -
done queen/q-00a1 iacp-task from queen: done, 4 message(s), lines 3-15 of <stdin>, time 1312284100-1312284109
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
    # q-0002 lingers, and counts as open: it is handed over to make room before q-0001 is evicted
    run -0 --separate-stderr engine_summaries 2 <"$f"
    assert_output - <<'OUT'
line 1: queen/q-0001
line 2: queen/q-0002
line 3: queen/q-0002
done queen/q-0002 iacp-task from queen: failed, 2 message(s), lines 2-3 of <stdin>, time 101-102
line 4: queen/q-0003
done queen/q-0001 iacp-task from queen: evicted, 1 message(s), lines 1-1 of <stdin>, time 100-100
line 5: queen/q-0004
done queen/q-0003 iacp-task from queen: open, 1 message(s), lines 4-4 of <stdin>, time 103-103
done queen/q-0004 iacp-task from queen: open, 1 message(s), lines 5-5 of <stdin>, time 104-104
OUT
}

# timed_stderr SECONDS ARGS...: runs acp-validate ARGS on a live pipe that writes one assign and
# then stays quiet for SECONDS; prints each diagnostic with the seconds it came after the start.
timed_stderr() {
    local quiet=$1
    shift
    local start
    start=$(date +%s.%N)
    { m q-0001 queen forager-01 task.assign 1700000000 "" "$NODE"; sleep "$quiet"; } |
        acp-validate "$@" 2>&1 >/dev/null |
        while IFS= read -r line; do
            printf '%s %s\n' "$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }')" "$line"
        done
}

@test "--wall-clock: on a quiet live pipe, an idle conversation expires without another message" {
    run -0 timed_stderr 4 --wall-clock --idle-timeout=1
    assert_line --partial "conversation 'q-0001' had no message for"
    local at=${lines[0]%% *}
    # it came about a second after the assign, not when the input ended
    awk -v t="$at" 'BEGIN { exit !(t >= 0.9 && t < 3.5) }' || fail "the warning came after $at s"
    # without it, message time stands still while nothing comes
    run -0 timed_stderr 2 --idle-timeout=1
    refute_output --partial "had no message for"
    assert_output --partial "still open at the end of the input"
}

# The stream checks' tables (common/hashtab.h): open addressing, each key's records newest first,
# removals that move later slots back. A driver adds and removes records at random against a
# plain model and checks every key after each step; "colliding" gives every key one of eight
# hashes, so that keys of equal hash share probes too.
@test "the stream checks' table finds each key's records, newest first, through adds and removals" {
    run -0 "$ACP_BUILD/tests/hashtab" 1 100000 3000
    assert_output "ok 100000"
    run -0 "$ACP_BUILD/tests/hashtab" 2 20000 40
    assert_output "ok 20000"
    run -0 "$ACP_BUILD/tests/hashtab" 3 30000 500 colliding
    assert_output "ok 30000"
}

# Issue 39: the tables hashed with a fixed mixer anyone can run backwards; 50,000 conversation ids
# solved to collide took acp-validate 69 s where random ones took 0.1 s. Every table now hashes
# under a key drawn for the run (SipHash-1-3): keys made to collide under the old mixer (the driver
# models it as an attacker knows it) are as many distinct hashes and tags as keys.
@test "hash flooding: keys made to collide under the old fixed hash do not collide under the run's key" {
    run -0 "$ACP_BUILD/tests/hash-flood" 100000 unkeyed
    assert_output "100000 keys, 1 distinct hashes, 1 distinct tags"
    run -0 "$ACP_BUILD/tests/hash-flood" 100000
    # 32-bit tags of 100,000 random hashes meet about once in a run: allow a few
    assert_output --regexp '^100000 keys, 100000 distinct hashes, (9999[0-9]|100000) distinct tags$'
}

# Where the workers of --jobs make the digests of a batch's messages (common/arena.h): pieces of
# random sizes, some larger than a block, each filled with a pattern of its own, must all keep
# it (none overlaps another), be aligned as malloc's, and survive the resets between rounds.
@test "the arena of a batch hands out pieces that never overlap, through resets" {
    run -0 "$ACP_BUILD/tests/arena" 1 300 2000
    assert_output "ok 300"
    run -0 "$ACP_BUILD/tests/arena" 2 2000 40
    assert_output "ok 2000"
    # blocks that start small and grow (a diagram's texts, common/report/diagram.c)
    run -0 "$ACP_BUILD/tests/arena" 3 300 2000 16
    assert_output "ok 300"
    run -0 "$ACP_BUILD/tests/arena" 4 2000 40 256
    assert_output "ok 2000"
}

# The pool the records of ids and conversations come from (common/pool.h): records of random sizes
# got and put back at random, each filled with a pattern while it is held, must all keep it (a
# record put back is handed out again only once it is no longer held) and be aligned as malloc's.
@test "the stream checks' pool hands out a record again only after it was put back" {
    run -0 "$ACP_BUILD/tests/pool" 1 20000 200
    assert_output "ok 20000"
    run -0 "$ACP_BUILD/tests/pool" 2 5000 7
    assert_output "ok 5000"
}

# SipHash-2-4-128 (common/base/siphash.h), by which the stream checks remember long keys: the
# reference implementation's 64 test vectors, and two keys drawn for two runs differ.
@test "SipHash-128 gives the reference digests, and the keys drawn differ" {
    run -0 "$ACP_BUILD/tests/siphash"
    assert_output "ok 64"
}

# long_id N: an id of 100,000 bytes, the same but for its last 8 (N in hex).
long_id() {
    printf '%s%08x' "$(head -c 99992 /dev/zero | tr '\0' x)" "$1"
}

# The findings but iacp-id-style (long ids follow no convention).
findings_but_style() {
    findings "$@" | grep -v iacp-id-style
}

@test "ids longer than 64 bytes, remembered by digest: a reuse is a duplicate, distinct ones are not" {
    local a b
    a=$(long_id 1) b=$(long_id 2)
    f=$( (m "$a" forager-01 queen hb 100 "" '{"slots":1}'
        m "$b" forager-01 queen hb 101 "" '{"slots":1}'
        m "$a" forager-01 queen hb 102 "" '{"slots":1}'
        m "$b" forager-02 queen hb 103 "" '{"slots":1}') | capture)
    run -0 findings_but_style "$f"
    assert_output "3 error iacp-duplicate-id 1"
    # the diagnostic quotes the id as it would a short one: its first 120 bytes, then "..."
    run -1 --separate-stderr acp-validate "$f"
    [[ $stderr == *"with id '$(head -c 120 <<<"$a")...'"* ]] || fail "got: $stderr"
}

@test "a long id pairs its replies by digest, and its conversation is named by its whole id" {
    local q r
    q=$(long_id 7) r=$(long_id 8)
    f=$( (m "$q" queen forager-01 task.assign 100 "" "$NODE"
        m "$r" forager-01 queen task.accept 101 "$q"
        m m-000002 forager-01 queen task.result 102 "$q" "$OK"
        m m-000003 forager-01 queen task.result 103 "$q" "$OK"
        m m-000004 forager-01 queen task.result 104 "$(long_id 9)" "$OK") | capture)
    run -0 findings_but_style "$f"
    assert_output - <<'OUT'
4 error iacp-result-after-final 3
5 warning iacp-orphan -
OUT
    # acp-trace attributes the messages to the conversation by their whole id
    run -0 bash -c "acp-trace --follow='queen/$q' '$f' 2>/dev/null | wc -l"
    assert_output 4
}

# Memory the input cannot blow up: 1,000 heartbeats whose ids are 1 MB each, alike but for their
# last 8 bytes, at one ts so that no id expires; kept whole they held 962 MiB.
# The test feeds a fifth as many: held whole, even they would be several times its bound.
@test "200 ids of 1 MB each hold a few MiB, with -j 1 and -j 2" {
    skip_under valgrind "200 MB through it takes too long"
    skip_under ThreadSanitizer "its shadow memory is several times the program's"
    local t=$BATS_TEST_TMPDIR jobs
    for jobs in 1 2; do
        "$ACP_BUILD/gen-adversarial" long-ids 200 |
            "$ACP_BUILD/peak-rss" acp-validate -q -j "$jobs" 2>"$t/err" || fail "status $?"
        assert_rss_below "$t/err" $((32 * 1024)) "-j $jobs"
    done
}

# long_name LETTER N: a name of 300 bytes, LETTER then the same bytes then N in 8 hex digits, so
# that two differ only past the 128 bytes by which a summary names them.
long_name() {
    printf '%s%s%08x' "$1" "$(head -c 291 /dev/zero | tr '\0' x)" "$2"
}

# Names longer than 128 bytes are remembered by their first 128 and a digest (keyform.h): two
# foragers alike but for their last bytes are two agents, and one cannot answer for the other.
@test "agent names longer than 128 bytes, remembered by digest: alike but at the end, they are two" {
    local a b
    a=$(long_name f 1) b=$(long_name f 2)
    f=$( (m q-0001 queen "$a" task.assign 100 "" "$NODE"
        m m-000001 "$b" queen task.accept 101 q-0001
        m m-000002 "$a" queen task.accept 102 q-0001
        m m-000003 "$a" queen task.result 103 q-0001 "$OK") | capture)
    run findings "$f"
    assert_output "2 error iacp-wrong-replier 1"
    # the diagnostic quotes the name as it would quote any string: its first 120 bytes, then "..."
    run -1 --separate-stderr acp-validate "$f"
    [[ $stderr == *"from '${b:0:120}...'"* ]] || fail "got: $stderr"
    # the summary names the forager by its first 128 bytes, and counts two participants
    run -0 bash -c "acp-trace '$f' 2>/dev/null | jq -r '.participants[1], (.participants | length), .latency.result'"
    assert_output "$(printf '%s\n' "${a:0:128}" 2 3)"
}

@test "a long forager name holds its slots and its --slots, and a long node its reissues" {
    local a b node other
    a=$(long_name f 1) b=$(long_name f 2)
    node="{\"node\":\"tg:$(long_name n 1)\"}" other="{\"node\":\"tg:$(long_name n 2)\"}"
    f=$( (m q-0001 queen "$a" task.assign 100 "" "$node"
        m q-0002 queen "$a" task.assign 101 "" "$other"
        m q-0003 queen "$b" task.assign 400 "" "$node"
        m m-000001 "$b" queen task.result 401 q-0003 "$OK"
        m m-000001 "$a" queen task.result 402 q-0001 "$OK") | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '2 error iacp-slots 1' '3 warning iacp-reissue 1' \
        '5 error iacp-duplicate-execution 3' '2 warning iacp-open-at-end -')"
    run findings --slots="$a=2" "$f"
    assert_output "$(printf '%s\n' '3 warning iacp-reissue 1' '5 error iacp-duplicate-execution 3' \
        '2 warning iacp-open-at-end -')"
}

# Memory the input cannot blow up: 500 foragers whose names are 480,000 bytes each, alike but for
# their last 8, each holding an assign of a node as long; kept whole they held 693 MiB
# (acp-validate) and 922 MiB (acp-trace).
# The test feeds a fifth as many: held whole, even they would be several times its bound.
@test "100 foragers and nodes of 480,000-byte names hold a few MiB, with -j 1 and -j 2" {
    skip_under valgrind "100 MB through it takes too long"
    skip_under ThreadSanitizer "its shadow memory is several times the program's"
    local t=$BATS_TEST_TMPDIR jobs tool
    "$ACP_BUILD/gen-adversarial" long-names 200 >"$t/in"
    for jobs in 1 2; do
        for tool in acp-validate acp-trace; do
            "$ACP_BUILD/peak-rss" "$tool" -q -j "$jobs" "$t/in" >/dev/null 2>"$t/err" ||
                fail "$tool: status $?"
            assert_rss_below "$t/err" $((32 * 1024)) "$tool -j $jobs"
        done
    done
    "$ACP_BUILD/peak-rss" acp-trace --format=stats --by-agent "$t/in" >"$t/stats" 2>"$t/err" ||
        fail "stats: status $?"
    assert_rss_below "$t/err" $((32 * 1024)) "acp-trace --format=stats --by-agent"
    # the table by agent names each forager by its first 128 bytes
    run -0 jq -r '.agents | keys | map(length) | unique | @csv' "$t/stats"
    assert_output '5,128'
}

# ---- issue 23: what falls due is told when it does ----

# An assign left past --assign-timeout (20 s here, and --max-skew 2 s), one answered in time,
# one cancelled, one reissued: only the first is told, at line 10, the first message whose
# time (123) is past its due time (122), not at line 9 (122) nor at the end of the input. Its
# result comes late (line 11), and is followed as any other: the warning stands.
DUE_TIMEOUT() {
    m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
    m q-0002 queen forager-02 task.assign 100 "" '{"node":"b"}'
    m q-0003 queen forager-03 task.assign 100 "" '{"node":"c"}'
    m q-0004 queen forager-04 task.assign 100 "" '{"node":"d"}'
    m m-000001 forager-02 queen task.result 105 q-0002 "$OK"
    m q-0006 queen forager-03 task.cancel 106 q-0003
    m m-000001 forager-09 queen hb 115
    m q-0005 queen forager-05 task.assign 121 "" '{"node":"d"}'
    m m-000002 forager-09 queen hb 122
    m m-000003 forager-09 queen hb 123
    m m-000001 forager-01 queen task.result 130 q-0001 "$OK"
}

@test "iacp-assign-timeout: told at the first message past it; not for an assign answered, cancelled or reissued in time" {
    f=$(DUE_TIMEOUT | capture)
    run -0 findings --assign-timeout=20 "$f"
    assert_output "$(printf '%s\n' '8 warning iacp-reissue 4' '10 warning iacp-assign-timeout 1' \
        '3 warning iacp-open-at-end -' '4 warning iacp-open-at-end -' '8 warning iacp-open-at-end -')"
    run -0 --separate-stderr acp-validate --assign-timeout=20 "$f"
    [[ "$stderr" == *":10: warning: assign 'q-0001' of node 'a' to 'forager-01' has had no final result for 23 s, past the assign timeout (20 s): the queen should have reissued it to another forager (see line 1) [iacp-assign-timeout]"* ]] ||
        fail "$stderr"
    # the same with the work split, and with --wall-clock on a file read at once
    assert_equal "$(findings --assign-timeout=20 -j 2 "$f")" "$(findings --assign-timeout=20 -j 1 "$f")"
    assert_equal "$(findings --assign-timeout=20 --wall-clock "$f")" "$(findings --assign-timeout=20 "$f")"
    # acp-trace tells the same, at the same line
    run -0 bash -c 'acp-trace --diagnostics=json --assign-timeout=20 "$1" 2>&1 >/dev/null |
        jq -r "select(.code == \"iacp-assign-timeout\") | \"\(.line) \(.related_line)\""' _ "$f"
    assert_output "10 1"
}

@test "iacp-assign-timeout and iacp-deadline-passed: a final result that itself comes late is no missing one" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a","deadline":121}'
        m m-000001 forager-08 queen hb 110
        m m-000002 forager-08 queen hb 120
        m m-000001 forager-01 queen task.result 125 q-0001 "$OK"
    } | capture)
    run -0 findings --assign-timeout=20 "$f"
    assert_output ""
}

@test "iacp-deadline-passed: told once, at the first message past the deadline, not again at the end" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a","deadline":110}'
        m m-000001 forager-08 queen hb 110
        m m-000002 forager-08 queen hb 111
        m m-000003 forager-08 queen hb 112
    } | capture)
    run -0 findings "$f"
    assert_output "$(printf '%s\n' '3 warning iacp-deadline-passed 1' '1 warning iacp-open-at-end -')"
    assert_equal "$(findings -j 2 "$f")" "$(findings -j 1 "$f")"
    run -0 bash -c 'acp-trace --diagnostics=json "$1" 2>&1 >/dev/null |
        jq -r "select(.code == \"iacp-deadline-passed\") | \"\(.line) \(.related_line)\""' _ "$f"
    assert_output "3 1"
}

# live_due TOOL...: runs each TOOL at once with --wall-clock --assign-timeout=1 --max-skew=0, on a
# FIFO of its own kept open by a slow writer, which writes an assign whose assign timeout (1 s)
# and deadline (2 s) fall due within 3 s of it, then nothing until each tool told two findings (8
# s at most) and a second more, then its result. TOOL.err holds what stderr held before that.
live_due() {
    local now
    start_live "--wall-clock --assign-timeout=1 --max-skew=0" "$@"
    now=$(date +%s)
    tell_live "$(m q-0001 queen forager-01 task.assign "$now" "" "{\"node\":\"n\",\"deadline\":$((now + 2))}")"
    settle_live 2 "$@"
    stop_live "$(m m-000001 forager-01 queen task.result "$(date +%s)" q-0001 "$OK")"
}

@test "--wall-clock: on a quiet live pipe, the assign timeout and the deadline are told before the writer's next line" {
    skip_under valgrind "a timing test: the findings must come before the writer's next line"
    live_due acp-validate acp-trace
    for tool in acp-validate acp-trace; do
        run cat "$BATS_TEST_TMPDIR/$tool.err"
        assert_line --partial "has had no final result for"
        assert_line --partial "[iacp-assign-timeout]"
        assert_line --partial "the deadline of 'q-0001' passed"
        assert_equal "${#lines[@]}" 2
    done
}

# Conversations still open at the end are reported in the order they opened, not the order they
# were last active in (the list they are kept in, sorted where it lies: list_sort).
@test "conversations open at the end are reported in the order they opened" {
    f=$({
        m q-0001 queen forager-01 task.assign 100 "" '{"node":"a"}'
        m q-0002 queen forager-02 task.assign 101 "" '{"node":"b"}'
        m q-0003 queen forager-03 task.assign 102 "" '{"node":"c"}'
        m m-000001 forager-02 queen task.accept 103 q-0002
        m m-000002 forager-01 queen task.accept 104 q-0001
    } | capture)
    run findings "$f"
    assert_output "$(printf '%s\n' '1 warning iacp-open-at-end -' '2 warning iacp-open-at-end -' \
        '3 warning iacp-open-at-end -')"
}

# list_sort against a stable sort: lists of every length to 70 and some of 5,000, ties many.
@test "the sort of the stream checks' lists is stable and keeps every element, linked both ways" {
    run -0 "$ACP_BUILD/tests/listsort" 20
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# What falls due (base/duequeue.h), the open assigns' deadlines and the silence of agents that
# hold tasks: the first is always one of the earliest, through sets, moves and removals.
@test "the due queue keeps the earliest first and each entry's time, through moves and removals" {
    run -0 "$ACP_BUILD/tests/duequeue" 200000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}
