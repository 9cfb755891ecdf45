# acp-trace on MCP: each request a conversation, with its response, progress and cancellation,
# named SESSION/ID; its summary, the statistics per method and per tool, and --follow.
load test_helper
load mcp_helper

# A session "a/1" (a '/' in its name) of every way a request ends.
ends_capture() {
    initialized_session a/1
    record a/1 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"p"}}}'
    record a/1 2 out '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}'
    record a/1 4 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    record a/1 5 in '{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///x"}}'
    record a/1 6 out '{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such resource"}}'
    record a/1 7 in '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}'
    record a/1 8 in '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}'
    record a/1 9 out '{"jsonrpc":"2.0","id":0,"method":"roots/list"}'
    record a/1 9 in '{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}'
    record a/1 10 in '{"jsonrpc":"2.0","id":4,"method":"tools/list"}'
}

@test "each request is a conversation: its method, what it names, its latency, how it ended" {
    cd "$BATS_TEST_TMPDIR"
    ends_capture >cap.jsonl
    run -0 --separate-stderr acp-trace cap.jsonl
    # (a null is an empty field)
    run -0 jq -rc '[.conversation, .method, .subject, .error_code, .initiator, .messages, .latency.response, .outcome] | @tsv' <<<"$output"
    assert_output - <<'EOF'
a%2F1/0	initialize			client	2	0	done
a%2F1/1	tools/call	echo		client	3	3	done
a%2F1/2	resources/read	file:///x	-32602	client	2	1	failed
a%2F1/server/0	roots/list			server	2	0	done
a%2F1/3	tools/call	slow		client	2		cancelled
a%2F1/4	tools/list			client	1		open
EOF
    # the input's end leaves the last open, and says so
    [[ $stderr == *"cap.jsonl:14: warning: the client's request 'tools/list' was never answered [jsonrpc-unanswered]"* ]] ||
        fail "$stderr"
}

@test "a session's end leaves its requests unanswered; a finding goes with the message's request" {
    cd "$BATS_TEST_TMPDIR"
    {
        initialized_session s
        record s 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
        record s 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
        record s 2 in '{"jsonrpc":"2.0","id":2,"method":"ping"}'
        printf '%s\n' '{"tap":1,"session":"s","time":"2026-12-06T12:00:03.000000Z","event":"end","status":0}'
    } >cap.jsonl
    # the request whose id is used again ends there (reused: violated); the one that reuses it
    # has the error, and is left unanswered by the session's end
    run -1 --separate-stderr acp-trace cap.jsonl
    run -0 jq -rc '[.conversation, .outcome, (.issues | map(.code) | join(","))] | @tsv' <<<"$output"
    assert_output - <<'EOF'
s/0	done	
s/1	violated	
s/1	violated	mcp-id-reused,jsonrpc-unanswered
s/2	unanswered	jsonrpc-unanswered
EOF
}

@test "--format=stats: the latency of each method, and of each tool, prompt or resource, p50 to p99" {
    cd "$BATS_TEST_TMPDIR"
    {
        initialized_session s
        for i in 1 2 3 4; do
            record s $((i * 10)) in '{"jsonrpc":"2.0","id":'$i',"method":"tools/call","params":{"name":"'$((i % 2))'"}}'
            record s $((i * 10 + i)) out '{"jsonrpc":"2.0","id":'$i',"result":{"content":[]}}'
        done
    } >cap.jsonl
    run -0 --separate-stderr acp-trace --format=stats cap.jsonl
    run -0 jq -rc '.latency | to_entries[] | [.key, .value.count, .value.min, .value.max, .value.p50 != null, .value.p99 != null] | @tsv' <<<"$output"
    assert_output - <<'EOF'
initialize->result	1	0	0	true	true
tools/call->result	4	1	4	true	true
tools/call[0]->result	2	2	4	true	true
tools/call[1]->result	2	1	3	true	true
EOF
    run -0 jq -c '.conversations' <<<"$(acp-trace --format=stats cap.jsonl)"
    assert_output '{"mcp":{"done":5}}'
}

@test "--follow=SESSION follows a session, --follow=SESSION/ID one request, the session's '/' written %2F" {
    cd "$BATS_TEST_TMPDIR"
    {
        ends_capture
        initialized_session other
    } >cap.jsonl
    run -0 --separate-stderr acp-trace --follow=a%2F1/1 cap.jsonl
    assert_equal "$(jq -r '.message.method // "response"' <<<"$output" | paste -sd' ')" "tools/call notifications/progress response"
    run -0 --separate-stderr acp-trace --follow=a%2F1 cap.jsonl
    [ "${#lines[@]}" -eq 13 ] || fail "${#lines[@]} messages: $output"
    [ "$(jq -r .session <<<"$output" | sort -u)" = a/1 ] || fail "$output"
    run -0 --separate-stderr acp-trace --follow=a%2F1 --format=summary cap.jsonl
    [ "${#lines[@]}" -eq 6 ] || fail "$output"
    run -0 --separate-stderr acp-trace --follow=a%2F1/server/0 --format=summary cap.jsonl
    assert_equal "$(jq -r .method <<<"$output")" roots/list
}

@test "the SDK client and server-everything, traced: a call with progress, and the call the client cancelled" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    MCP_SESSION=progress run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" \
        acp-tap --out=cap.jsonl -- node "$PEERS/server-everything/dist/index.js" stdio
    run -0 --separate-stderr acp-trace cap.jsonl
    run -0 jq -rc '[.method, .subject, .outcome, (.latency.response != null)] | @tsv' <<<"$output"
    assert_output - <<'EOF'
initialize		done	true
tools/call	trigger-long-running-operation	done	true
tools/call	trigger-long-running-operation	cancelled	false
EOF
    # the latency is the capture's, from the request's record to the response's: the call
    # lasts its 0.3 s
    local call
    call=$(acp-trace cap.jsonl 2>/dev/null | jq -c 'select(.outcome == "done" and .method == "tools/call")')
    [ "$(jq '.latency.response > 0.25 and .latency.response < 5' <<<"$call")" = true ] || fail "$call"
    [ "$(jq '.messages' <<<"$call")" -ge 5 ] || fail "$call: its progress is among its messages"
}

@test "README: an MCP capture's latencies per method, and one request as it went" {
    cd "$BATS_TEST_TMPDIR"
    {
        initialized_session SESSION
        record SESSION 1 in '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}'
        record SESSION 3 out '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
    } >mcp.jsonl
    run -0 --separate-stderr bash -c "$(
        cat <<'EOF'
acp-trace --format=stats mcp.jsonl | jq '.latency["tools/call->result"]'
EOF
    )"
    assert_equal "$(jq -c '[.count, .min, .max]' <<<"$output")" '[1,2,2]'
    run -0 --separate-stderr bash -c "$(
        cat <<'EOF'
acp-trace --follow=SESSION/3 mcp.jsonl
EOF
    )"
    assert_equal "$(jq -r '.message.method // "result"' <<<"$output" | paste -sd' ')" "tools/call result"
}

@test "diagrams: a column for the client and one for the server, a pair a session, each request's id in its label" {
    cd "$BATS_TEST_TMPDIR"
    {
        initialized_session a
        initialized_session b
        record a 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
        record b 1 out '{"jsonrpc":"2.0","id":"s-1","method":"roots/list"}'
        record a 2 out '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
        record b 2 in '{"jsonrpc":"2.0","id":"s-1","result":{"roots":[]}}'
    } >cap.jsonl
    run -0 --separate-stderr acp-trace --format=text --width=100 cap.jsonl
    # each message at its record's time, and how long after the one before in its request
    assert_line --regexp '^line +time +delta +client +server +client \(b\) +server \(b\)$'
    assert_line --regexp '^ +9 +12:00:01 +\|------>\| tools/call 1 +\|$'
    assert_line --regexp '^ +10 +12:00:01 +\| +\| +\|<-+\| roots/list s-1$'
    assert_line --regexp '^ +11 +12:00:02 +\+1s +\|<------\| \(result\) 1 +\|$'
    assert_line --partial '= a/1: done after 1s'
    assert_line --partial '= b/server/s-1: done after 1s'
    run -0 --separate-stderr acp-trace --format=mermaid --follow=b cap.jsonl
    assert_line '    participant p1 as client'
    assert_line '    p2->>p1: 12:00:01 roots/list s-1'
}
