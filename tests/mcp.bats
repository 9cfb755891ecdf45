# MCP through the tools: a session of real peers (the TypeScript SDK's client and server-everything,
# pinned in tests/package.json) captured by acp-tap and checked, and a misbehaving server of our own
# whose messages fire the rules of the JSON-RPC shape.
load test_helper
load mcp_helper

@test "the SDK client and server-everything through acp-tap: relayed, captured whole, valid" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" \
        acp-tap --out=cap.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio
    assert_output '[{"type":"text","text":"Echo: hi"}]'
    # the session: started, then every request of the client answered by the server, in order
    run -0 jq -r 'select(.seq) | "\(.dir) \(.message.method // "response") \(.message.id // "-")"' cap.jsonl
    assert_line --index 0 "in initialize 0"
    assert_line --index 1 "out response 0"
    assert_line --index 2 "in notifications/initialized -"
    local requests responses
    requests=$(grep -c '^in [a-z/]* [0-9]' <<<"$output")
    responses=$(grep -c '^out response [0-9]' <<<"$output")
    [ "$requests" -eq 6 ] && [ "$responses" -eq 6 ] || fail "$requests requests, $responses responses"
    run -0 jq -r 'select(.event) | .event' cap.jsonl
    assert_output $'start\nend'
    # the capture as it is: every record passes, nothing said
    run -0 --separate-stderr acp-validate cap.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
    [ "$output" = "$(cat cap.jsonl)" ] || fail "the capture did not pass whole"
    # every message of both peers keeps the JSON-RPC shape: all of them pass, and nothing is said
    local messages
    messages=$(jq -s 'map(select(has("message"))) | length' cap.jsonl)
    run -0 --separate-stderr bash -c "jq -c 'select(has(\"message\")) | .message' cap.jsonl | acp-validate --protocol=mcp"
    [ "$stderr" = "" ] || fail "$stderr"
    [ "${#lines[@]}" -eq "$messages" ] && [ "$messages" -ge 13 ] || fail "${#lines[@]} of $messages messages passed"
}

@test "each SDK client (v1, v2) with each server (server-everything, one of our own on v2): a session with no finding" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    local client server n=0
    local v1=(env MCP_SESSION=tools node "$TESTS_DIR/drivers/mcp-session.mjs")
    local v2=(node "$TESTS_DIR/drivers/mcp-v2-session.mjs")
    for client in v1 v2; do
        for server in "$PEERS/server-everything/dist/index.js stdio" "$TESTS_DIR/drivers/mcp-v2-server.mjs"; do
            n=$((n + 1))
            local -n run_client=$client
            # shellcheck disable=SC2086 # the server's command is words
            run -0 --separate-stderr "${run_client[@]}" acp-tap --out="cap$n.jsonl" -- node $server
            assert_output '[{"type":"text","text":"Echo: hi"}]'
            run -0 --separate-stderr acp-validate "cap$n.jsonl"
            [ "$stderr" = "" ] || fail "$client with $server: $stderr"
            # the session as the client's SDK began it: initialize, its result, initialized
            run -0 jq -r 'select(.seq) | .message.method // "result"' "cap$n.jsonl"
            assert_line --index 0 initialize
            assert_line --index 2 notifications/initialized
        done
    done
}

@test "a v2 client of both eras probes with server/discover: a legacy server makes it fall back to initialize, one of both eras serves 2026-07-28" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    # server-everything is legacy: on stdio the SDK probes a server process of its own, which
    # answers as a legacy one, then starts another for its session of initialize
    MCP_ERA=auto run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-v2-session.mjs" \
        acp-tap --out=legacy.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio
    assert_output '[{"type":"text","text":"Echo: hi"}]'
    run -0 jq -r '"\(.session) \(.event // .message.method // .message.error.code // "result")"' legacy.jsonl
    [ "$(cut -d' ' -f2 <<<"$output" | head -6 | tr '\n' ' ')" = "start server/discover -32601 end start initialize " ] || fail "$output"
    [ "$(cut -d' ' -f1 <<<"$output" | uniq | wc -l)" -eq 2 ] || fail "$output"
    run -0 --separate-stderr acp-validate legacy.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
    # our v2 server serves both eras: the probe's answer makes a session of 2026-07-28, whose
    # every request carries its _meta; the client pinned to 2026-07-28 makes the same
    local era
    for era in auto 2026-07-28; do
        MCP_ERA=$era run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-v2-session.mjs" \
            acp-tap --out="$era.jsonl" -- node "$TESTS_DIR/drivers/mcp-v2-server.mjs"
        assert_output '[{"type":"text","text":"Echo: hi"}]'
        run -0 jq -r 'select(.seq) | "\(.dir) \(.message.method // "result") \(.message.params._meta["io.modelcontextprotocol/protocolVersion"] // "-")"' "$era.jsonl"
        assert_output $'in server/discover 2026-07-28\nout result -\nin tools/list 2026-07-28\nout result -\nin tools/call 2026-07-28\nout result -'
        run -0 --separate-stderr acp-validate "$era.jsonl"
        [ "$stderr" = "" ] || fail "$era: $stderr"
        # (the SDK probes in a server process of its own here too: two sessions, the second begun
        # by tools/list). Its rules run there: a request without its _meta is told, and so is
        # the server answering it all the same
        [ "$(jq -r .session "$era.jsonl" | uniq | wc -l)" -eq 2 ] || fail "$(cat "$era.jsonl")"
        run -1 --separate-stderr bash -c "jq -c 'if .message.method == \"tools/call\" then del(.message.params._meta) else . end' '$era.jsonl' | acp-validate"
        [ "$(grep -c '\[mcp-request-meta\]$' <<<"$stderr")" -eq 1 ] || fail "$stderr"
        [ "$(grep -c '\[mcp-meta-accepted\]$' <<<"$stderr")" -eq 1 ] || fail "$stderr"
    done
    # in one session (one connection), the fallback makes it a session of initialize after all:
    # its lifecycle is checked from there, and it is no session of 2026-07-28
    local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    {
        started d
        record d 0 in '{"jsonrpc":"2.0","id":"probe","method":"server/discover","params":{'"$meta"'}}'
        record d 0 out '{"jsonrpc":"2.0","id":"probe","error":{"code":-32601,"message":"Method not found"}}'
        record d 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
        record d 1 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
    } >one.jsonl
    run -1 --separate-stderr acp-validate one.jsonl
    assert_equal "$stderr" "acp-validate: one.jsonl:4: error: the client sends 'tools/list' before the session was initialized: initialize comes first [mcp-initialize-first]"
}

@test "the SDK client and server-everything: progress, and the progress server-everything still sends after a cancellation" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    MCP_SESSION=progress run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" \
        acp-tap --out=cap.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio
    [[ $output == *'"cancelled"]' ]] || fail "$output"
    # the client cancels its second call at its first progress; the server goes on with it (a
    # SHOULD broken, a warning), and never answers it, which a cancelled request is not owed
    run -0 --separate-stderr acp-validate cap.jsonl
    local after
    after=$(grep -c 'progress of the request .tools/call. that was cancelled .*\[mcp-after-cancel\]$' <<<"$stderr")
    [ "$after" -ge 1 ] || fail "$stderr"
    [ "$(grep -c . <<<"$stderr")" -eq "$after" ] || fail "$stderr"
    # its progress, of the first call, increased and stopped with the result
    [ "$(jq -s 'map(select(.message.method == "notifications/progress")) | length' cap.jsonl)" -ge 4 ]
}

@test "the SDK client and server-everything: a task that asks for a clarification, whose answer the SDK's client sends without the task's related-task" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    MCP_SESSION=tasks run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" \
        acp-tap --out=cap.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio
    assert_output '["taskCreated","taskStatus","result"]'
    # the task: created working, input_required while it waits, completed; its elicitation and
    # its tasks/result's result carry its related-task, the client's answer to the elicitation
    # does not (a MUST of 2025-11-25 broken by the SDK's client, 1.x)
    run -0 jq -r 'select(.message.method == "notifications/tasks/status") | .message.params.status' cap.jsonl
    assert_line --index 0 working
    assert_line input_required
    assert_line --index $((${#lines[@]} - 1)) completed
    local asked answer
    asked=$(grep -n '"method":"elicitation/create"' cap.jsonl | cut -d: -f1)
    answer=$(awk -v from="$asked" 'NR > from && /"action":"accept"/ { print NR; exit }' cap.jsonl)
    run -1 --separate-stderr acp-validate cap.jsonl
    assert_equal "$stderr" "acp-validate: cap.jsonl:$answer: error: the result of 'elicitation/create' lacks the related-task of its task (see line $asked) [mcp-related-task]"
    run -0 jq -r 'select(.message.method == "elicitation/create") | .message.params._meta["io.modelcontextprotocol/related-task"].taskId' cap.jsonl
    [ "$output" = "$(jq -r 'select(.message.result.task) | .message.result.task.taskId' cap.jsonl)" ] || fail "$output"
}

@test "server-everything's own departures, to a client of raw lines: a request before initialize answered, a cancelled initialize, a batch of 2025-03-26 never answered" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    local init='"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}'
    # tools/list before initialize, which the server answers; the client cancels its initialize,
    # which the server ought to ignore, and answers or not as the race goes
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
        '!{"jsonrpc":"2.0","id":2,'"$init"'}' \
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}' '#wait' >early
    run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-lines.mjs" \
        acp-tap --out=early.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio <early
    assert_line --index 0 --partial '"tools":[{"name":"echo"'
    run -1 --separate-stderr acp-validate early.jsonl
    local expected="early.jsonl:2: error: the client sends 'tools/list' before the session was initialized: initialize comes first [mcp-initialize-first]
early.jsonl:5: error: the client cancels its initialize (see line 4) [mcp-initialize-cancelled]"
    if [ "$(jq -s 'map(.message | objects | select(.id == 2 and .result)) | length' early.jsonl)" -eq 0 ]; then
        expected+="
early.jsonl:4: warning: the client's request 'initialize' was never answered before its session ended (see line $(wc -l <early.jsonl)) [jsonrpc-unanswered]"
    fi
    assert_equal "$(sed 's/^acp-validate: //' <<<"$stderr")" "$expected"
    # a batch in a session of 2025-03-26, which MUST take batches: the server never answers it
    printf '%s\n' '{"jsonrpc":"2.0","id":0,'"$init"'}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]' \
        '{"jsonrpc":"2.0","id":3,"method":"ping"}' >batch
    run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-lines.mjs" \
        acp-tap --out=batch.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio <batch
    assert_line --index 0 --partial '"protocolVersion":"2025-03-26"'
    run -0 --separate-stderr acp-validate batch.jsonl
    local at end
    at=$(grep -n '^{"tap":1.*"message":\[' batch.jsonl | cut -d: -f1)
    end=$(wc -l <batch.jsonl)
    assert_equal "$(sed 's/^acp-validate: //' <<<"$stderr")" "batch.jsonl:$at: warning: the client's request 'ping' was never answered before its session ended (see line $end) [jsonrpc-unanswered]
batch.jsonl:$at: warning: the client's request 'tools/list' was never answered before its session ended (see line $end) [jsonrpc-unanswered]"
}

@test "a misbehaving server, tapped: each broken message fires its rule, and a stray print is text" {
    cd "$BATS_TEST_TMPDIR"
    cat >server <<'SERVER'
#!/bin/sh
# answers the first line with every way a message can break, then ends
read -r request
echo 'Server started'
echo '{"jsonrpc":"1.0","id":0,"result":{}}'
echo '{"jsonrpc":"2.0","id":0,"result":{},"error":{"code":-32603,"message":"x"}}'
echo '{"jsonrpc":"2.0","id":1,"method":"notifications/message","params":{"level":"info"}}'
echo '{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":[]}'
echo '{"jsonrpc":"2.0","id":null,"method":"ping"}'
echo '{"jsonrpc":"2.0","id":0,"error":{"code":"internal"}}'
SERVER
    chmod +x server
    run -0 bash -c "echo '{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}' | acp-tap --out=cap.jsonl -- ./server"
    run -0 jq -r 'select(.dir == "out" and has("text")) | .text' cap.jsonl
    assert_output "Server started"
    run -1 --separate-stderr bash -c "jq -c 'select(has(\"message\")) | .message' cap.jsonl | acp-validate"
    run -0 bash -c "sed -n 's/.*\[\([a-z-]*\)\]\$/\1/p' <<<\"\$1\" | sort | uniq -c | awk '{ print \$2, \$1 }'" _ "$stderr"
    assert_output - <<'CODES'
jsonrpc-error 2
jsonrpc-response 1
jsonrpc-unanswered 1
jsonrpc-version 1
mcp-id 1
mcp-initialize-first 1
mcp-notification-id 1
mcp-params 1
CODES
}

# A capture where each side breaks the pairing once, and the same messages as bare lines.
pairing_capture() {
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"ping"}' '{"jsonrpc":"2.0","id":0,"method":"tools/list"}' \
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}' |
        acp-tap --out="$1" --session=s -- sh -c '
            read -r first; read -r second; read -r third
            echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"
            echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}"
            echo "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"no\"}}"
            echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}"' >/dev/null
}

@test "pairing in a capture: an id reused in progress, a response to no request, a request never answered before its session ended" {
    cd "$BATS_TEST_TMPDIR"
    pairing_capture cap.jsonl
    run -1 --separate-stderr acp-validate cap.jsonl
    run -0 bash -c "sed -n 's/^acp-validate: cap.jsonl:\([0-9]*\): \(.*\)$/\1 \2/p' <<<\"\$1\"" _ "$stderr"
    assert_output - <<'EOF2'
2 error: the client sends 'ping' before the session was initialized: initialize comes first [mcp-initialize-first]
3 error: the client reuses the id of its request 'ping', still in progress (see line 2) [mcp-id-reused]
6 error: the server answers a request of the client that is not in progress (never sent, a notification, or answered already) [jsonrpc-no-request]
7 error: the server answers a request of the client that is not in progress (never sent, a notification, or answered already) [jsonrpc-no-request]
4 warning: the client's request 'tools/call' was never answered before its session ended (see line 9) [jsonrpc-unanswered]
8 warning: the server's request 'roots/list' was never answered before its session ended (see line 9) [jsonrpc-unanswered]
EOF2
    # the two sides number their ids each on its own: the server's request 0 pairs with nothing
    # of the client's; and the sessions stay apart
    run -0 bash -c "sed 's/\"session\":\"s\"/\"session\":\"t\"/' cap.jsonl >>cap2.jsonl; cat cap.jsonl cap2.jsonl | acp-validate --stateless >/dev/null"
    run -1 --separate-stderr bash -c "cat cap.jsonl cap2.jsonl | acp-validate"
    [ "$(grep -c 'mcp-id-reused' <<<"$stderr")" -eq 2 ] || fail "$stderr"
    # each session's requests are told at its end, before the next session's findings
    run -0 bash -c "sed -n 's/^acp-validate: <stdin>:\([0-9]*\): .*\[\(.*\)\]$/\1 \2/p' <<<\"\$1\"" _ "$stderr"
    assert_line --index 5 "8 jsonrpc-unanswered"
    assert_line --index 6 "11 mcp-initialize-first"
    assert_line --index 11 "17 jsonrpc-unanswered"
    [ "${#lines[@]}" -eq 12 ] || fail "$output"
}

@test "a session's end: what it left in progress is told there, once, and its revision goes with it" {
    {
        record s 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
        record s 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}}}'
        record s 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record t 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}'
        record s 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s"}}'
        record s 2 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        record s 70 in '{"jsonrpc":"2.0","id":3,"method":"ping"}'
        printf '{"tap":1,"session":"s","time":"2026-12-06T12:01:20.000000Z","event":"end","status":0}\n'
        record s 81 in '[{"jsonrpc":"2.0","id":4,"method":"ping"}]'
        record t 82 out '{"jsonrpc":"2.0","id":1,"result":{}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    # told late at line 6's time; at the end, the one not told yet; t's request goes on, and
    # a batch after s's end is no batch of a 2025-06-18 session, s being forgotten
    assert_output - <<'EOF2'
4 warning: the client's request 'tools/call' has had no response for 60s (--request-timeout) [mcp-request-timeout]
5 warning: the client's request 'tools/call' has had no response for 60s (--request-timeout) [mcp-request-timeout]
6 warning: the client's request 'ping' has had no response for 60s (--request-timeout) [mcp-request-timeout]
7 warning: the client's request 'ping' was never answered before its session ended (see line 8) [jsonrpc-unanswered]
9 warning: the client's request 'ping' was never answered [jsonrpc-unanswered]
EOF2
}

@test "bare JSON-RPC lines: a request's side where its method says it, a response paired by its id alone" {
    cd "$BATS_TEST_TMPDIR"
    pairing_capture cap.jsonl
    jq -c 'select(has("message")) | .message' cap.jsonl >bare.jsonl
    # ping is either side's, so the client's tools/list 0 is no reuse; the first response 0
    # answers tools/list, the later, the second the ping; 7 answers nothing of either side
    run -1 --separate-stderr acp-validate bare.jsonl
    assert_equal "$stderr" "acp-validate: bare.jsonl:1: error: a peer sends 'ping' before the session was initialized: initialize comes first [mcp-initialize-first]
acp-validate: bare.jsonl:6: error: a response answers no request in progress with its id (never sent, a notification, or answered already) [jsonrpc-no-request]
acp-validate: bare.jsonl:3: warning: the client's request 'tools/call' was never answered [jsonrpc-unanswered]
acp-validate: bare.jsonl:7: warning: the server's request 'roots/list' was never answered [jsonrpc-unanswered]"
    # requests of one side with one id, both in progress: reused, whatever the lines say of sides
    {
        initialization
        printf '%s\n' '{"jsonrpc":"2.0","id":"a","method":"tools/list"}' \
            '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}' \
            '{"jsonrpc":"2.0","id":"a","result":{}}'
    } >reused.jsonl
    run -1 --separate-stderr acp-validate reused.jsonl
    assert_equal "$stderr" "acp-validate: reused.jsonl:5: error: the client reuses the id of its request 'tools/list', still in progress (see line 4) [mcp-id-reused]"
    # each file is a session of its own: its ids are its own
    cp reused.jsonl again.jsonl
    run -1 --separate-stderr acp-validate reused.jsonl again.jsonl
    [ "$(grep -c 'mcp-id-reused' <<<"$stderr")" -eq 2 ] || fail "$stderr"
    [ "$(grep -c 'jsonrpc-' <<<"$stderr")" -eq 0 ] || fail "$stderr"
}

# A session's initialization as bare lines, what a clean session begins with: lines 1 to 3.
initialization() {
    printf '%s\n' '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}

@test "bare JSON-RPC lines: the same id in progress on both sides, and a side no method says" {
    cd "$BATS_TEST_TMPDIR"
    # the server samples within the client's call, both numbering from 0: the response within
    # answers the later request; then the call's
    {
        initialization
        printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"ask"}}' \
            '{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}' \
            '{"jsonrpc":"2.0","id":0,"result":{"role":"assistant"}}' \
            '{"jsonrpc":"2.0","id":0,"result":{"content":[]}}'
    } >nested.jsonl
    run -0 --separate-stderr acp-validate nested.jsonl
    assert_equal "$stderr" ""
    # one response for the two: which was left, no line says, and the warning says so
    sed 7d nested.jsonl >one.jsonl
    run -0 --separate-stderr acp-validate one.jsonl
    assert_equal "$stderr" "acp-validate: one.jsonl:4: warning: the client's request 'tools/call' was never answered, or the one a response answered in its place (bare lines do not say which) (see line 5) [jsonrpc-unanswered]"
    # a ping of each side with one id: two requests, two responses; one response leaves one
    {
        initialization
        printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"ping"}' '{"jsonrpc":"2.0","id":3,"method":"ping"}' \
            '{"jsonrpc":"2.0","id":3,"result":{}}' '{"jsonrpc":"2.0","id":3,"result":{}}'
    } >pings.jsonl
    run -0 --separate-stderr acp-validate pings.jsonl
    assert_equal "$stderr" ""
    sed 7d pings.jsonl >ping.jsonl
    run -0 --separate-stderr acp-validate ping.jsonl
    assert_equal "$stderr" "acp-validate: ping.jsonl:4: warning: the request 'ping' was never answered [jsonrpc-unanswered]"
    run -1 --separate-stderr bash -c "sed 4d pings.jsonl | acp-validate"
    assert_equal "$stderr" "acp-validate: <stdin>:6: error: a response answers no request in progress with its id (never sent, a notification, or answered already) [jsonrpc-no-request]"
}

@test "--request-timeout: a request without a response that long is told once, and a late response still answers it" {
    {
        record s 0 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}'
        record s 1 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        record s 2 out '{"jsonrpc":"2.0","id":2,"result":{}}'
        record s 30 in '{"jsonrpc":"2.0","id":3,"method":"ping"}'
        record s 30 out '{"jsonrpc":"2.0","id":3,"result":{}}'
        record s 70 in '{"jsonrpc":"2.0","id":4,"method":"ping"}'
        record s 71 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
        record s 72 out '{"jsonrpc":"2.0","id":4,"result":{}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/cap.jsonl:1: warning: the client's request 'tools/call' has had no response for 60s (--request-timeout) [mcp-request-timeout]"
    run -0 --separate-stderr acp-validate --request-timeout=20 "$BATS_TEST_TMPDIR/cap.jsonl"
    assert_equal "$(grep -c 'mcp-request-timeout' <<<"$stderr")" 1
    run -0 --separate-stderr acp-validate --request-timeout=2m "$BATS_TEST_TMPDIR/cap.jsonl"
    assert_equal "$stderr" ""
    run -2 acp-validate --request-timeout=0 </dev/null
}

@test "--request-timeout with --wall-clock: a live request left without a response is told while the input is quiet" {
    local fifo=$BATS_TEST_TMPDIR/fifo now
    mkfifo "$fifo"
    acp-validate --wall-clock --request-timeout=0.5 <"$fifo" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
    local validate=$!
    exec 5>"$fifo"
    now=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
    printf '{"tap":1,"session":"s","time":"%s","seq":1,"dir":"in","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}\n' "$now" >&5
    local i
    for i in $(seq 50); do
        grep -q mcp-request-timeout "$BATS_TEST_TMPDIR/err" && break
        sleep 0.1
    done
    exec 5>&-
    wait "$validate" || true
    grep -q "<stdin>:1: warning: the client's request 'ping' has had no response for 0.5s" "$BATS_TEST_TMPDIR/err" ||
        fail "not told while the input was open: $(cat "$BATS_TEST_TMPDIR/err")"
    [ "$i" -lt 50 ] || fail "not told within 5 s"
}

@test "batches: each of their messages checked and paired; only in a session of revision 2025-03-26" {
    local rev
    for rev in 2025-03-26 2025-06-18; do
        record "$rev" 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'"$rev"'","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}'
        record "$rev" 1 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"'"$rev"'","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}'
        record "$rev" 2 in '[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'
        # the first session's server answers the batch's tools/list alone
        if [ "$rev" = 2025-03-26 ]; then
            record "$rev" 3 out '[{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}]'
        else
            record "$rev" 3 out '[{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},{"jsonrpc":"2.0","id":1,"result":{}}]'
        fi
    done >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/cap.jsonl:7: error: a batch in a session of revision 2025-06-18: only 2025-03-26 has batches [mcp-batch]
acp-validate: $BATS_TEST_TMPDIR/cap.jsonl:8: error: a batch in a session of revision 2025-06-18: only 2025-03-26 has batches [mcp-batch]
acp-validate: $BATS_TEST_TMPDIR/cap.jsonl:3: warning: the client's request 'ping' was never answered [jsonrpc-unanswered]"
    # a batch is one message of MCP, bare too; its messages are checked one by one
    run -1 --separate-stderr acp-validate <<<'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"1.0","method":"x"},3]'
    assert_equal "$stderr" "acp-validate: <stdin>:1: error: jsonrpc must be \"2.0\", not \"1.0\" [jsonrpc-version]
acp-validate: <stdin>:1: error: a batch holds messages, not an integer [jsonrpc-shape]"
    # an array that is no batch is no message
    run -1 --separate-stderr acp-validate <<<'[1,2]'
    assert_equal "$stderr" "acp-validate: <stdin>:1:1: error: the message is an array, not an object [not-object]"
}

@test "an id reused after its request ended: an error up to 2025-11-25, where a session holds its ids; --mcp-revision forces one" {
    local rev meta
    for rev in 2025-06-18 2026-07-28; do
        meta=
        if [ "$rev" = 2026-07-28 ]; then # no initialize: each request says its version
            meta=',"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}'
        else
            record "$rev" 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'"$rev"'","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}'
            record "$rev" 1 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"'"$rev"'","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}'
            record "$rev" 1 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        fi
        record "$rev" 2 in '{"jsonrpc":"2.0","id":1,"method":"tools/list"'"$meta"'}'
        record "$rev" 3 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}'
        record "$rev" 4 in '{"jsonrpc":"2.0","id":1,"method":"tools/list"'"$meta"'}'
        record "$rev" 5 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}'
    done >"$BATS_TEST_TMPDIR/cap.jsonl"
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    run -1 --separate-stderr acp-validate "$cap"
    assert_equal "$stderr" "acp-validate: $cap:6: error: the client reuses the id of an earlier request of the session (see line 4) [mcp-id-reused]"
    run -1 --separate-stderr acp-validate --mcp-revision=2026-07-28 "$cap"
    [ "$(grep -c 'mcp-id-reused' <<<"$stderr")" -eq 0 ] || fail "$stderr"
    run -1 --separate-stderr acp-validate --mcp-revision=2025-11-25 "$cap"
    assert_equal "$(grep -c 'mcp-id-reused' <<<"$stderr")" 2
    run -2 --separate-stderr acp-validate --mcp-revision=2025-13-01 "$cap"
    [[ $stderr == *"invalid argument '2025-13-01' for '--mcp-revision'"* ]] || fail "$stderr"
}

@test "--max-open bounds the requests in progress: the oldest forgotten with a warning, its response still taken" {
    {
        record s 0 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}'
        record s 1 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        record s 2 in '{"jsonrpc":"2.0","id":3,"method":"ping"}'
        record s 3 out '{"jsonrpc":"2.0","id":3,"result":{}}'
        record s 4 out '{"jsonrpc":"2.0","id":2,"result":{}}'
        record s 5 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    run -0 --separate-stderr acp-validate --max-open=2 "$cap"
    assert_equal "$stderr" "acp-validate: $cap:1: warning: the client's request 'tools/call' is forgotten, more than --max-open=2 being in progress [mcp-evicted]"
    run -0 --separate-stderr acp-validate "$cap"
    assert_equal "$stderr" ""
}

@test "mcpsnoop's session logs are read as they are: their frames checked and paired, their other lines passed" {
    cd "$FIXTURES/mcp"
    # stdio: a stray print and a frame cut at the proxy's cap are no messages; the session agreed
    # on 2025-06-18 (a response's time with its zone's offset), which has no batches and holds its
    # ids to its end; the record's times tell the late requests
    run -1 --separate-stderr acp-validate mcpsnoop-stdio.jsonl
    assert_equal "$stderr" "acp-validate: mcpsnoop-stdio.jsonl:7: error: the agent wrote a line that is not JSON: 'debug: echo called' [capture-not-message]
acp-validate: mcpsnoop-stdio.jsonl:9: error: a batch in a session of revision 2025-06-18: only 2025-03-26 has batches [mcp-batch]
acp-validate: mcpsnoop-stdio.jsonl:10: error: the agent was sent a line cut short at mcpsnoop's frame cap [capture-not-message]
acp-validate: mcpsnoop-stdio.jsonl:11: error: the client reuses the id of an earlier request of the session (see line 6) [mcp-id-reused]
acp-validate: mcpsnoop-stdio.jsonl:9: warning: the client's request 'ping' has had no response for 60s (--request-timeout) [mcp-request-timeout]
acp-validate: mcpsnoop-stdio.jsonl:11: warning: the client's request 'tools/list' has had no response for 60s (--request-timeout) [mcp-request-timeout]
acp-validate: mcpsnoop-stdio.jsonl:12: warning: the client's request 'resources/list' was never answered [jsonrpc-unanswered]"
    # the meta and stderr lines pass as they came, with every frame but the two of no message
    run -0 bash -c "acp-validate --pass=all mcpsnoop-stdio.jsonl 2>/dev/null | cmp - <(sed '7d;10d' mcpsnoop-stdio.jsonl)"
    # HTTP: two clients of one proxy each number their own ids; a batch comes as its frames
    run -1 --separate-stderr acp-validate mcpsnoop-http.jsonl
    assert_equal "$stderr" "acp-validate: mcpsnoop-http.jsonl:5: error: the server answers a request of the client that is not in progress (never sent, a notification, or answered already) [jsonrpc-no-request]"
    # acp-trace and acp-replay leave the lines of no message out, as acp-tap's events
    run -0 bash -c "acp-replay --topspeed mcpsnoop-http.jsonl | wc -l"
    assert_output 8
    run -0 bash -c "acp-replay --topspeed mcpsnoop-stdio.jsonl 2>/dev/null | wc -l"
    assert_output 8
}

# acp-tap's records (file $1) as mcpsnoop's envelopes: an event of acp-tap's as a line of no
# message, so that the lines keep their numbers.
tap_as_mcpsnoop() {
    jq -c '{session_id: .session, server_label: "tapped", seq: (.seq // 0), ts: .time} +
        if has("event") then {direction: "stderr", transport: "stdio", text: .event}
        else {direction: (if .dir == "in" then "c2s" else "s2c" end), transport: "stdio"} +
            if has("message") then {raw: .message} elif has("text") then {text: .text}
            else {truncated: true, text: ""} end
        end' "$1"
}

# A run's findings, by line and code, in order; a session's end, which mcpsnoop's logs do not
# record, left out.
findings() {
    told "$1" | sed 's/ before its session ended (see line [0-9]*)//'
}

@test "property: a capture of acp-tap and the same as mcpsnoop's log give the same findings, with -j 1 and -j 2" {
    cd "$BATS_TEST_TMPDIR"
    {
        printf '{"tap":1,"session":"s","time":"2026-12-06T12:00:00.000000Z","event":"start","pid":1,"command":["x"]}\n'
        record s 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
        record t 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
        record s 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}}}'
        record s 1 in '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":0,"method":"ping"}]'
        record s 2 out 'null'
        record s 3 in '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}'
        record s 4 out '{"jsonrpc":"2.0","id":2,"method":"roots/list"}'
        record t 5 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}}}'
        record t 6 in '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'
        record t 7 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        record t 8 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        record s 90 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        printf '{"tap":1,"session":"s","time":"2026-12-06T12:01:40.000000Z","seq":9,"dir":"out","text":"oops"}\n'
        printf '{"tap":1,"session":"s","time":"2026-12-06T12:01:41.000000Z","seq":10,"dir":"out","too_long":5000}\n'
        printf '{"tap":1,"session":"s","time":"2026-12-06T12:01:42.000000Z","event":"end","status":0}\n'
    } >cap.jsonl
    tap_as_mcpsnoop cap.jsonl >snoop.jsonl
    local tap
    run -1 --separate-stderr acp-validate cap.jsonl
    # capture-not-message's words of a line cut short are each form's own
    tap=$(findings "$stderr" | sed 's/ a line longer than .*\[/ a line cut short [/' | sort)
    [ "$(wc -l <<<"$tap")" -ge 10 ] || fail "$tap"
    for jobs in 1 2; do
        run -1 --separate-stderr acp-validate -j "$jobs" snoop.jsonl
        assert_equal "$(findings "$stderr" | sed 's/ a line cut short at .*\[/ a line cut short [/' | sort)" "$tap"
    done
}

@test "--max-open bounds the ids remembered as used by the latest uses: an id used again is remembered from then" {
    {
        record s 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
        record s 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}}}}'
        record s 1 in '{"jsonrpc":"2.0","id":1,"method":"ping"}'
        record s 1 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        record s 2 in '{"jsonrpc":"2.0","id":1,"method":"ping"}'
        record s 2 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        record s 3 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        record s 3 out '{"jsonrpc":"2.0","id":2,"result":{}}'
        record s 4 in '{"jsonrpc":"2.0","id":1,"method":"ping"}'
        record s 4 out '{"jsonrpc":"2.0","id":1,"result":{}}'
        record s 5 in '{"jsonrpc":"2.0","id":0,"method":"ping"}'
        record s 5 out '{"jsonrpc":"2.0","id":0,"result":{}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    # the two latest answered are kept: 1 (used again at line 5) and 2 when 1 comes back at
    # line 9; 0, three uses back, is forgotten
    run -1 --separate-stderr acp-validate --max-open=2 "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 bash -c "sed -n 's/^acp-validate: [^:]*:\([0-9]*\): .*(see line \([0-9]*\)) \[\(.*\)\]$/\1 \2 \3/p' <<<\"\$1\"" _ "$stderr"
    assert_output $'5 3 mcp-id-reused\n9 5 mcp-id-reused'
}

@test "a session's lifecycle: initialize first, ping alone before its result, notifications/initialized before the client operates" {
    local init='{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}'
    {
        started a
        record a 0 in '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
        record a 0 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        record a 1 in '{"jsonrpc":"2.0","id":3,"method":"initialize","params":'"$init"'}'
        record a 1 in '{"jsonrpc":"2.0","id":4,"method":"ping"}'
        record a 1 in '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}'
        record a 1 out '{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}'
        record a 1 out '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"up"}}'
        record a 2 out '{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}'
        record a 2 in '{"jsonrpc":"2.0","id":8,"method":"resources/list"}'
        record a 2 in '{"jsonrpc":"2.0","id":6,"method":"ping"}'
        record a 3 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record a 3 in '{"jsonrpc":"2.0","id":7,"method":"tools/list"}'
        record a 3 out '{"jsonrpc":"2.0","id":9,"method":"roots/list"}'
        for id in 1 2 4 5 6 7 8; do record a 4 out '{"jsonrpc":"2.0","id":'$id',"result":{}}'; done
        record a 5 in '{"jsonrpc":"2.0","id":0,"result":{"role":"assistant"}}'
        record a 5 in '{"jsonrpc":"2.0","id":9,"result":{"roots":[]}}'
        # a session whose start the input does not hold is checked from its initialize
        record b 5 in '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
        record b 5 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
        # 2026-07-28 has no lifecycle: each request says its version
        started c
        record c 6 in '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
        record c 6 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
2 error: the client sends 'tools/list' before the session was initialized: initialize comes first [mcp-initialize-first]
6 warning: the client sends the request 'tools/call' before the server's result to initialize [mcp-early-request]
7 warning: the server sends the request 'sampling/createMessage' before the client's notifications/initialized [mcp-early-request]
10 error: the client sends the request 'resources/list' before notifications/initialized [mcp-initialized-first]
EOF2
    # bare lines begin their session with their file
    run -1 --separate-stderr bash -c "jq -c 'select(.session == \"a\" and .message) | .message' '$BATS_TEST_TMPDIR/cap.jsonl' | acp-validate"
    [ "$(grep -c 'mcp-initialize-first\|mcp-early-request\|mcp-initialized-first' <<<"$stderr")" -eq 4 ] || fail "$stderr"
    # --mcp-revision=2026-07-28 says no session has a lifecycle (its own rules fire instead)
    run -1 --separate-stderr acp-validate --mcp-revision=2026-07-28 "$BATS_TEST_TMPDIR/cap.jsonl"
    [ "$(grep -c 'mcp-initialize-first\|mcp-early-request\|mcp-initialized-first' <<<"$stderr")" -eq 0 ] || fail "$stderr"
    grep -q 'mcp-request-meta' <<<"$stderr" || fail "$stderr"
}

@test "cancellation: never the initialize; a request of its sender in progress; no response after it; and the version the server answers" {
    local init='{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}'
    {
        started a
        record a 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":'"$init"'}'
        record a 0 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}'
        record a 1 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"latest","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}'
        record a 1 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record a 2 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}'
        record a 3 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timeout"}}'
        record a 4 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
        record a 5 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
        record a 5 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never"}}'
        record a 6 out '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    # a second cancellation of a request answered is the race the specification allows; the
    # server cancelling the client's request is a cancellation of no request of its own: told
    # where the session's revision holds its ids, so that what was answered is remembered
    run -1 --separate-stderr acp-validate --mcp-revision=2025-06-18 "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
3 error: the client cancels its initialize (see line 2) [mcp-initialize-cancelled]
4 error: the server's result to initialize names no protocol version (YYYY-MM-DD) (see line 2) [mcp-version]
8 warning: the server answers the request 'tools/call' that was cancelled (see line 7) [mcp-after-cancel]
10 warning: the client cancels a request it has not sent, as far as the input shows [mcp-cancel-unknown]
11 warning: the server cancels a request it has not sent, as far as the input shows [mcp-cancel-unknown]
EOF2
    # the server's "latest" is no revision: nothing is known of what was answered
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    [ "$(grep -c 'mcp-cancel-unknown' <<<"$stderr")" -eq 0 ] || fail "$stderr"
    [ "$(grep -c 'mcp-after-cancel' <<<"$stderr")" -eq 1 ] || fail "$stderr"
}

@test "progress: a token unique among the requests in progress, progress only of one in progress, increasing, and none after a cancellation" {
    local call='"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":'
    {
        initialized_session a
        record a 1 in '{"jsonrpc":"2.0","id":1,'"$call"'"t1"}}}'
        record a 1 in '{"jsonrpc":"2.0","id":2,'"$call"'"t1"}}}'
        record a 2 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}'
        record a 2 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":4}}'
        record a 2 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nope","progress":2}}'
        record a 3 out '{"jsonrpc":"2.0","id":2,"result":{"content":[]}}'
        record a 3 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":5}}'
        record a 4 in '{"jsonrpc":"2.0","id":3,'"$call"'7}}}'
        record a 4 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5}}'
        record a 4 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}'
        record a 5 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.75}}'
        record a 5 out '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
        record a 5 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    # the token is the later request's once reused; its string "7" would be no integer 7
    assert_output - <<'EOF2'
6 error: the progress token of the request 'tools/call', still in progress, is used again (see line 5) [mcp-progress-token-reused]
8 error: the progress of the request 'tools/call' does not increase (see line 6) [mcp-progress-decreasing]
9 error: progress for no request in progress: its token was never given, or its request completed [mcp-progress-unknown]
11 error: progress for no request in progress: its token was never given, or its request completed [mcp-progress-unknown]
15 warning: progress of the request 'tools/call' that was cancelled (see line 14) [mcp-after-cancel]
16 warning: the server answers the request 'tools/call' that was cancelled (see line 14) [mcp-after-cancel]
EOF2
}

@test "error codes: those JSON-RPC reserves for future use, and from 2026-07-28 those MCP reserves" {
    cd "$BATS_TEST_TMPDIR"
    local code
    for code in -32700 -32601 -32603 -32099 -32000 -32002 -1 -31999 -32769; do
        printf '{"jsonrpc":"2.0","id":1,"error":{"code":%s,"message":"m"}}\n' "$code"
    done >allowed.jsonl
    run -0 --separate-stderr acp-validate --stateless allowed.jsonl
    assert_equal "$stderr" ""
    printf '{"jsonrpc":"2.0","id":1,"error":{"code":%s,"message":"m"}}\n' -32768 -32604 -32100 -32599 >reserved.jsonl
    run -1 --separate-stderr acp-validate --stateless reserved.jsonl
    [ "$(grep -c '\[jsonrpc-error-reserved\]$' <<<"$stderr")" -eq 4 ] || fail "$stderr"
    grep -qxF "acp-validate: reserved.jsonl:2: error: error.code -32604 is reserved by JSON-RPC 2.0 for future use [jsonrpc-error-reserved]" <<<"$stderr" || fail "$stderr"
    # 2026-07-28 allocates -32020 on, and never reuses -32002 and -32042; up to 2025-11-25 they
    # are the implementation's
    local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    {
        started new
        started old
        initialized_session old
        for code in -32002 -32042 -32030 -32021 -32010; do
            record new 1 in '{"jsonrpc":"2.0","id":"'"$code"'","method":"resources/read","params":{"uri":"x:y",'"$meta"'}}'
            record new 1 out '{"jsonrpc":"2.0","id":"'"$code"'","error":{"code":'"$code"',"message":"m"}}'
            record old 1 in '{"jsonrpc":"2.0","id":"'"$code"'","method":"resources/read","params":{"uri":"x:y"}}'
            record old 1 out '{"jsonrpc":"2.0","id":"'"$code"'","error":{"code":'"$code"',"message":"m"}}'
        done
    } >cap.jsonl
    run -1 --separate-stderr acp-validate cap.jsonl
    run -0 told "$stderr"
    assert_output - <<'EOF2'
8 error: error.code -32002 is one MCP reserves in a session of 2026-07-28 [mcp-error-code]
12 error: error.code -32042 is one MCP reserves in a session of 2026-07-28 [mcp-error-code]
16 error: error.code -32030 is one MCP reserves in a session of 2026-07-28 [mcp-error-code]
EOF2
}

@test "capabilities: a request or notification of a capability its side's initialize did not declare" {
    {
        started a
        record a 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}'
        record a 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}'
        record a 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record a 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}'
        record a 1 in '{"jsonrpc":"2.0","id":2,"method":"prompts/list"}'
        record a 1 in '{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"x:y"}}'
        record a 1 out '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}'
        record a 1 out '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
        record a 1 out '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
        record a 1 out '{"jsonrpc":"2.0","id":0,"method":"roots/list"}'
        record a 1 out '{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}'
        record a 1 in '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$(grep 'mcp-capability' <<<"$stderr")"
    assert_output - <<'EOF2'
6 error: 'prompts/list' needs the server's capability prompts, not declared [mcp-capability]
7 error: 'resources/subscribe' needs the server's capability resources.subscribe, not declared [mcp-capability]
9 error: 'notifications/tools/list_changed' needs the server's own capability tools.listChanged, not declared [mcp-capability]
10 error: 'notifications/message' needs the server's own capability logging, not declared [mcp-capability]
12 error: 'sampling/createMessage' needs the client's capability sampling, not declared [mcp-capability]
13 error: 'notifications/roots/list_changed' needs the client's own capability roots.listChanged, not declared [mcp-capability]
EOF2
}

@test "2026-07-28: each request's _meta, -32602 for one without, no request of the server, no response of the client, ping gone, -32022's versions, each result's type" {
    local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    {
        started n
        record n 0 in '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'"$meta"'}}'
        record n 0 out '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"public"}}'
        record n 1 in '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}'
        record n 1 out '{"jsonrpc":"2.0","id":2,"result":{"content":[],"resultType":"complete"}}'
        record n 2 in '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"x:y"}}'
        record n 2 out '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no _meta"}}'
        record n 3 in '{"jsonrpc":"2.0","id":4,"method":"ping","params":{'"$meta"'}}'
        record n 3 out '{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete"}}'
        record n 4 out '{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}'
        record n 4 in '{"jsonrpc":"2.0","id":0,"result":{"role":"assistant"}}'
        record n 5 in '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{'"$meta"'}}'
        record n 5 out '{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}'
        record n 5 in '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{'"$meta"'}}'
        record n 5 out '{"jsonrpc":"2.0","id":6,"error":{"code":-32022,"message":"Unsupported protocol version"}}'
        record n 6 in '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x",'"$meta"'}}'
        record n 6 out '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'
        record n 6 in '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x",'"$meta"'}}'
        record n 6 out '{"jsonrpc":"2.0","id":8,"result":{"content":[],"resultType":"done","ttlMs":-1}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
4 error: the client's request lacks _meta's io.modelcontextprotocol/clientCapabilities [mcp-request-meta]
5 error: the server answers a request without its _meta fields other than with -32602 (see line 4) [mcp-meta-accepted]
6 error: the client's request lacks _meta's io.modelcontextprotocol/protocolVersion [mcp-request-meta]
8 warning: 'ping' is gone from 2026-07-28 [mcp-removed]
10 error: the server sends the request 'sampling/createMessage': 2026-07-28 asks the client with InputRequiredResult instead [mcp-server-request]
11 error: the client answers a request, which no server of 2026-07-28 sends [mcp-client-response]
15 error: an unsupported protocol version error (-32022) without data.supported, the versions the server supports [mcp-version-error]
17 error: a result without its resultType [mcp-result-type]
19 error: a resultType neither complete nor input_required [mcp-result-type]
19 error: ttlMs must be a number of milliseconds, 0 or more [mcp-ttl]
EOF2
    # none of it in a session of 2025-06-18
    run -0 --separate-stderr acp-validate --mcp-revision=2025-06-18 "$BATS_TEST_TMPDIR/cap.jsonl"
    [ "$(grep -c 'mcp-request-meta\|mcp-meta-accepted\|mcp-removed\|mcp-server-request\|mcp-client-response\|mcp-version-error\|mcp-result-type\|mcp-ttl' <<<"$stderr")" -eq 0 ] || fail "$stderr"
}

@test "2026-07-28: caching hints and one cache scope over a list's pages, discover's versions, log messages only for a request that asked, a server's cancellation only of a subscription, subscribe gone" {
    local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    local logged='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}'
    local done='"resultType":"complete"'
    {
        started n
        record n 0 in '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{'"$meta"'}}'
        record n 0 out '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":[],"capabilities":{},'"$done"',"ttlMs":0,"cacheScope":"public"}}'
        record n 1 in '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{'"$meta"'}}'
        record n 1 out '{"jsonrpc":"2.0","id":2,"result":{"tools":[],'"$done"',"ttlMs":5,"cacheScope":"private","nextCursor":"p2"}}'
        record n 2 in '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2",'"$meta"'}}'
        record n 2 out '{"jsonrpc":"2.0","id":3,"result":{"tools":[],'"$done"',"ttlMs":5,"cacheScope":"public"}}'
        record n 3 in '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"x:y",'"$meta"'}}'
        record n 3 out '{"jsonrpc":"2.0","id":4,"result":{"contents":[],'"$done"',"cacheScope":"shared"}}'
        record n 4 in '{"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{'"$meta"'}}'
        record n 4 out '{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{}}}'
        record n 5 in '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"x",'"$meta"'}}'
        record n 5 out '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}'
        record n 5 out '{"jsonrpc":"2.0","id":6,"result":{"content":[],'"$done"'}}'
        record n 6 in '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x",'"$logged"'}}'
        record n 6 out '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"b"}}'
        record n 6 out '{"jsonrpc":"2.0","id":7,"result":{"content":[],'"$done"'}}'
        record n 7 in '{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},'"$logged"'}}'
        record n 7 out '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"c","_meta":{"io.modelcontextprotocol/subscriptionId":8}}}'
        record n 8 in '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x",'"$meta"'}}'
        record n 8 out '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}'
        record n 8 out '{"jsonrpc":"2.0","id":9,"result":{"content":[],'"$done"'}}'
        record n 9 out '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}'
        record n 9 in '{"jsonrpc":"2.0","id":10,"method":"resources/subscribe","params":{"uri":"x:y",'"$meta"'}}'
        record n 9 out '{"jsonrpc":"2.0","id":10,"result":{'"$done"'}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
3 error: the result of server/discover lists no supportedVersions [mcp-discover-result]
7 error: a page of 'tools/list' is public, the page before private (see line 5) [mcp-cache-scope]
9 error: a result of 'resources/read' without its ttlMs [mcp-cache-hints]
9 error: a result of 'resources/read' without its cacheScope, public or private [mcp-cache-hints]
13 error: notifications/message while no request in progress asks for log messages (_meta's io.modelcontextprotocol/logLevel) [mcp-log-unrequested]
19 error: notifications/message on a subscription's stream: a log message belongs to the request that asked for it [mcp-log-unrequested]
21 error: the server cancels a request of the client other than subscriptions/listen: from 2026-07-28 a server cancels only a subscription (subscriptions/listen) in progress [mcp-server-cancel]
24 warning: 'resources/subscribe' is gone from 2026-07-28 [mcp-removed]
EOF2
    # the subscription the server tore down is owed no response; none of it in 2025-06-18
    run -0 --separate-stderr acp-validate --mcp-revision=2025-06-18 "$BATS_TEST_TMPDIR/cap.jsonl"
    [ "$(grep -c 'mcp-discover-result\|mcp-cache\|mcp-log-unrequested\|mcp-server-cancel' <<<"$stderr")" -eq 0 ] || fail "$stderr"
}

@test "tasks: a task begins working, is told one of its five statuses, and never leaves a terminal one" {
    local task='"task":{"ttl":60000}'
    {
        started t
        record t 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
        record t 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}'
        record t 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record t 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",'"$task"'}}'
        record t 1 out '{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}'
        record t 2 in '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fast",'"$task"'}}'
        record t 2 out '{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"T2","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}'
        record t 3 out '{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T1","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000}}'
        record t 4 in '{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1"}}'
        record t 4 out '{"jsonrpc":"2.0","id":3,"result":{"taskId":"T1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:02Z","ttl":60000}}'
        record t 5 out '{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:03Z","ttl":60000}}'
        record t 6 in '{"jsonrpc":"2.0","id":4,"method":"tasks/list"}'
        record t 6 out '{"jsonrpc":"2.0","id":4,"result":{"tasks":[{"taskId":"T2","status":"completed"},{"taskId":"T3","status":"done"}]}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
8 error: a task begins completed, not working [mcp-task-status]
12 error: a task moves from completed to working [mcp-task-transition]
14 error: a task's status is none of working, input_required, completed, failed and cancelled [mcp-task-status]
EOF2
}

@test "tasks: the messages of a task carry its related-task, the ones that name it do not" {
    local task='"task":{"ttl":60000}' times='"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000'
    local t1='"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}'
    {
        started t
        record t 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}'
        record t 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}'
        record t 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record t 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",'"$task"'}}'
        record t 1 out '{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T1","status":"working",'"$times"'}}}'
        record t 2 in '{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"T1",'"$t1"'}}'
        record t 2 out '{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"which?","requestedSchema":{"type":"object","properties":{}},'"$t1"'}}'
        record t 2 in '{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{}}}'
        record t 3 out '{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"and?","requestedSchema":{"type":"object","properties":{}},"_meta":{"io.modelcontextprotocol/related-task":"T1"}}}'
        record t 3 in '{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{},'"$t1"'}}'
        record t 4 out '{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T1","status":"completed",'"$times"','"$t1"'}}'
        record t 4 out '{"jsonrpc":"2.0","id":2,"result":{"content":[]}}'
        record t 5 in '{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"T1"}}'
        record t 5 out '{"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T2"}}}}'
        record t 6 in '{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"T1"}}'
        record t 6 out '{"jsonrpc":"2.0","id":4,"result":{"content":[],'"$t1"'}}'
        record t 7 in '{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"T1"}}'
        record t 7 out '{"jsonrpc":"2.0","id":5,"result":{"taskId":"T1","status":"completed",'"$times"','"$t1"'}}'
    } >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output - <<'EOF2'
7 warning: a request of the tasks' methods carries _meta's io.modelcontextprotocol/related-task, though it names its task [mcp-related-task-redundant]
9 error: the result of 'elicitation/create' lacks the related-task of its task (see line 8) [mcp-related-task]
10 error: _meta's io.modelcontextprotocol/related-task is no object with a string taskId [mcp-related-task]
12 warning: notifications/tasks/status carries _meta's io.modelcontextprotocol/related-task, though it names its task [mcp-related-task-redundant]
13 error: the result of 'tasks/result' lacks the related-task of its task (see line 7) [mcp-related-task]
15 error: the result of 'tasks/result' carries the related-task of another task than its own (see line 14) [mcp-related-task]
19 warning: a result of the tasks' methods carries _meta's io.modelcontextprotocol/related-task, though it names its task [mcp-related-task-redundant]
EOF2
}

@test "capabilities: completion/complete needs the server's completions from 2025-03-26, which added it" {
    local rev
    for rev in 2024-11-05 2025-03-26; do
        started "$rev"
        record "$rev" 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'"$rev"'","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
        record "$rev" 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"'"$rev"'","capabilities":{"prompts":{}},"serverInfo":{"name":"s","version":"1"}}}'
        record "$rev" 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        record "$rev" 1 in '{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}'
        record "$rev" 1 out '{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[]}}}'
    done >"$BATS_TEST_TMPDIR/cap.jsonl"
    run -1 --separate-stderr acp-validate "$BATS_TEST_TMPDIR/cap.jsonl"
    run -0 told "$stderr"
    assert_output "11 error: 'completion/complete' needs the server's capability completions, not declared [mcp-capability]"
}

@test "--explain of each of MCP's codes names its revisions, its page and section, and MUST or SHOULD" {
    local code text n=0
    for code in $(acp-validate --explain=list | cut -d' ' -f1 | grep '^mcp-'); do
        [ "$code" = mcp-evicted ] && continue # the tools' own bound on memory, no rule of MCP's
        text=$(acp-validate --explain="$code")
        [[ $text == *MUST* || $text == *SHOULD* ]] || fail "$code: no MUST or SHOULD: $text"
        [[ $text =~ 20[0-9]{2}-[0-9]{2}-[0-9]{2}|every\ revision ]] || fail "$code: no revision: $text"
        [[ $text == *"(MCP "* ]] || fail "$code: no page of MCP's: $text"
        n=$((n + 1))
    done
    [ "$n" -ge 30 ] || fail "$n codes"
}
