# acp-send to an MCP server: a request composed from its members, the session opened as a client of
# both eras opens one (server/discover, else initialize), the response awaited, the exit status
# telling how it went; against the real peers (server-everything, a legacy server; a server of our
# own on the SDK's v2, of both eras), and a server of canned answers for what they do not do on
# demand (tests/drivers/mcp-canned-server.mjs). Each session goes through acp-tap, whose capture
# says what acp-send wrote, and acp-validate holds it to MCP's rules.
load test_helper
load mcp_helper

EVERYTHING="node $PEERS/server-everything/dist/index.js stdio"
V2_SERVER="node $TESTS_DIR/drivers/mcp-v2-server.mjs"

# canned FILE JSON: a table of canned answers, for mcp-canned-server.mjs.
canned() {
    printf '%s\n' "$2" >"$1"
    CANNED="node $TESTS_DIR/drivers/mcp-canned-server.mjs $1"
}

# What acp-send wrote to the server, in the capture $1: "method id" (a response: "response id").
written() {
    jq -r 'select(.dir == "in") | .message | "\(.method // "response") \(.id // "-")"' "$1"
}

@test "acp-send composes an MCP message: method= makes a request with jsonrpc and a fresh integer id, in JSON-RPC's order" {
    run -0 --separate-stderr acp-send method=tools/call params.name=echo params.arguments.message=hi
    assert_output '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}'
    # a notification has no id; ids brought are kept, and the fresh ones go past the integers
    run -0 --separate-stderr acp-send method=notifications/initialized
    assert_output '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    run -0 --separate-stderr acp-send --stdin <<<'{"method":"initialize","id":7,"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"method":"ping"}
{"id":"a","method":"ping"}
{"method":"ping"}'
    assert_output '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":8,"method":"ping"}
{"jsonrpc":"2.0","id":"a","method":"ping"}
{"jsonrpc":"2.0","id":9,"method":"ping"}'
    # without a peer nothing is opened; a modern revision given, the request carries its _meta
    run -0 --separate-stderr acp-send --mcp-revision=2026-07-28 method=tools/list
    assert_output '{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"acp-send","version":"'"$(acp-send --version | awk 'NR == 1 {print $NF}')"'"},"io.modelcontextprotocol/clientCapabilities":{}}}}'
    # the checks of acp-validate hold: params an object
    run -1 --separate-stderr acp-send method=tools/list params:='[1]'
    [[ $stderr == *"[mcp-params]"* ]] || fail "$stderr"
}

@test "acp-send --answer: the response to an MCP request, by its id; a reply of another dialect is refused" {
    cd "$BATS_TEST_TMPDIR"
    echo '{"jsonrpc":"2.0","id":5,"method":"ping"}' >req.json
    run -0 --separate-stderr acp-send --answer=req.json result:={}
    assert_output '{"jsonrpc":"2.0","id":5,"result":{}}'
    run -0 --separate-stderr acp-send --answer=req.json error.code:=-32601 error.message=no
    assert_output '{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"no"}}'
    run -1 --separate-stderr acp-send --answer=req.json kind=task.accept
    [[ $stderr == *"the message answered is MCP: its reply is MCP too ('jsonrpc'), not IACP ("*"[send-answer]" ]] || fail "$stderr"
    echo '{"hello":1}' >none.json
    run -2 --separate-stderr acp-send --answer=none.json result:={}
    [[ $stderr == *"neither an IACP message (no 'kind' or 'v') nor an FIPA message (no 'performative') nor an MCP message (no 'jsonrpc')"* ]] || fail "$stderr"
}

@test "acp-send --wait to server-everything: the probe fails, initialize opens a legacy session, the tool's answer is printed, exit 0" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr acp-send --wait --exec="acp-tap --out=cap.jsonl -- $EVERYTHING" \
        method=tools/call params.name=echo params.arguments.message=hi
    assert_output '{"result":{"content":[{"type":"text","text":"Echo: hi"}]},"jsonrpc":"2.0","id":2}'
    run -0 written cap.jsonl
    assert_output $'server/discover 0\ninitialize 1\nnotifications/initialized -\ntools/call 2'
    # the initialize of 2025-11-25, the client named; the session holds to MCP's rules
    jq -e -s 'map(select(.message.method == "initialize"))[0].message.params == {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "acp-send", "version": "'"$(acp-send --version | awk 'NR == 1 {print $NF}')"'"}}' cap.jsonl
    run -0 --separate-stderr acp-validate cap.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
    # --all shows the opening's responses too (and the server's notifications), in order; its list
    # of tools, as jq reads it
    run -0 --separate-stderr acp-send --wait --all --exec="$EVERYTHING" method=tools/list
    jq -e -s 'map(select(has("id"))) | .[0].error.code == -32601 and .[1].result.protocolVersion == "2025-11-25" and
        (.[2].result.tools | map(.name) | index("echo")) and length == 3' <<<"$output"
    run -0 --separate-stderr acp-send --wait --exec="$EVERYTHING" method=tools/list
    assert_equal "${#lines[@]}" 1
}

@test "acp-send --wait to a server of both eras: server/discover opens a modern session, and each request carries its _meta" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr acp-send --wait --exec="acp-tap --out=cap.jsonl -- $V2_SERVER" \
        method=tools/call params.name=echo params.arguments.message=hi
    jq -e '.result.content == [{"type": "text", "text": "Echo: hi"}] and .id == 1' <<<"$output"
    run -0 written cap.jsonl
    assert_output $'server/discover 0\ntools/call 1'
    jq -e -s 'map(select(.message.method == "tools/call"))[0].message.params._meta | ."io.modelcontextprotocol/protocolVersion" == "2026-07-28" and ."io.modelcontextprotocol/clientCapabilities" == {}' cap.jsonl
    run -0 --separate-stderr acp-validate cap.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
    # --mcp-revision=2025-11-25: no probe, initialize; the same server serves it
    run -0 --separate-stderr acp-send --wait --mcp-revision=2025-11-25 \
        --exec="acp-tap --out=legacy.jsonl -- $V2_SERVER" method=tools/call params.name=echo params.arguments.message=hi
    run -0 written legacy.jsonl
    assert_output $'initialize 0\nnotifications/initialized -\ntools/call 1'
    run -0 --separate-stderr acp-validate legacy.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
}

@test "acp-send --stdin --wait: a script of requests in one session, opened once" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr acp-send --stdin --wait --exec="acp-tap --out=cap.jsonl -- $EVERYTHING" <<'EOF'
{"method":"tools/list"}
{"method":"tools/call","params":{"name":"echo","arguments":{"message":"one"}}}
{"method":"ping"}
EOF
    assert_equal "${#lines[@]}" 3
    jq -e -s '(.[0].result.tools | length) > 0 and .[1].result.content[0].text == "Echo: one" and .[2].result == {}' <<<"$output"
    run -0 written cap.jsonl
    assert_output $'server/discover 0\ninitialize 1\nnotifications/initialized -\ntools/list 2\ntools/call 3\nping 4'
}

@test "acp-send --wait: an error response exits 1 with send-failed, and so does a tool's error result" {
    needs_peers
    run -1 --separate-stderr acp-send --wait --exec="$EVERYTHING" method=tools/lisst
    jq -e '.error.code == -32601' <<<"$output"
    [[ $stderr == *"<arguments>:1: error: the conversation failed: the server answered error -32601: Method not found [send-failed]" ]] || fail "$stderr"
    run -1 --separate-stderr acp-send --wait --exec="$EVERYTHING" method=tools/call params.name=nosuch
    jq -e '.result.isError == true' <<<"$output"
    [[ $stderr == *"the server answered a result whose isError is true: "*"nosuch"*"[send-failed]" ]] || fail "$stderr"
}

@test "acp-send --wait: a request unanswered by --timeout exits 3, the opening counted in it; a server silent to initialize exits 2" {
    needs_peers
    local start
    # server-everything's long operation takes 10 s; --timeout=1 does not wait for it
    start=$SECONDS
    run -3 --separate-stderr acp-send --wait --timeout=1 --exec="$EVERYTHING" method=tools/call \
        params.name=trigger-long-running-operation params.arguments:='{"duration":10,"steps":2}'
    [ "$output" = "" ]
    [[ $stderr == *"no final answer within 1 s (waiting for the response to tools/call) [send-timeout]" ]] || fail "$stderr"
    [ $((SECONDS - start)) -lt 8 ] || fail "waited $((SECONDS - start)) s"
    # a server that says nothing: the probe and initialize take the whole of --timeout
    run -3 --separate-stderr acp-send --wait --timeout=0.5 --exec="sleep 30" method=tools/list
    [[ $stderr == *"no final answer within 0.5 s (the session's opening was waiting for the response to server/discover) [send-timeout]" ]] || fail "$stderr"
    # within --timeout, no answer to initialize for --io-timeout: no session
    run -2 --separate-stderr acp-send --wait --io-timeout=0.2 --exec="sleep 30" method=tools/list
    [[ $stderr == *"the session could not be opened: no response to initialize in time (--io-timeout) [send-opening]" ]] || fail "$stderr"
}

@test "acp-send: an UnsupportedProtocolVersionError opens a modern session at a revision it lists, or none; initialize refused or of an unknown revision opens none" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    local unsupported='{"jsonrpc":"2.0","id":"$id","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":SUPPORTED,"requested":"2026-07-28"}}}'
    canned modern.json '{"server/discover":['"${unsupported/SUPPORTED/[\"2099-01-01\",\"2026-07-28\",\"2025-11-25\"]}"'],"tools/list":[{"jsonrpc":"2.0","id":"$id","result":{"tools":[]}}]}'
    run -0 --separate-stderr acp-send --wait --exec="acp-tap --out=modern.jsonl -- $CANNED" method=tools/list
    assert_output '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
    run -0 written modern.jsonl
    assert_output $'server/discover 0\ntools/list 1'
    jq -e -s 'map(select(.message.method == "tools/list"))[0].message.params._meta."io.modelcontextprotocol/protocolVersion" == "2026-07-28"' modern.jsonl
    # none modern among them: no fallback to initialize
    canned legacy.json '{"server/discover":['"${unsupported/SUPPORTED/[\"2025-11-25\"]}"']}'
    run -2 --separate-stderr acp-send --wait --exec="acp-tap --out=none.jsonl -- $CANNED" method=tools/list
    [[ $stderr == *'the session could not be opened: the server supports no modern revision this client speaks (["2025-11-25"]) [send-opening]' ]] || fail "$stderr"
    run -0 written none.jsonl
    assert_output 'server/discover 0'
    # initialize refused; initialize agreeing on a revision the client does not know
    canned refused.json '{"initialize":[{"jsonrpc":"2.0","id":"$id","error":{"code":-32602,"message":"no"}}]}'
    run -2 --separate-stderr acp-send --wait --exec="$CANNED" method=tools/list
    [[ $stderr == *"the session could not be opened: the server answered initialize with error -32602: no [send-opening]" ]] || fail "$stderr"
    canned future.json '{"initialize":[{"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2099-01-01","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}]}'
    run -2 --separate-stderr acp-send --wait --exec="$CANNED" method=tools/list
    [[ $stderr == *"agrees on protocolVersion 2099-01-01, which this client does not speak [send-opening]" ]] || fail "$stderr"
}

@test "acp-send: the server's ping is answered with an empty result, its other requests with -32601, while the call goes on" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    canned pinging.json '{"initialize":[{"jsonrpc":"2.0","id":"$id","result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"p","version":"1"}}}],
        "tools/call":[{"jsonrpc":"2.0","id":"p1","method":"ping"},{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}},
        {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}},{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}]}'
    run -0 --separate-stderr acp-send --wait --mcp-revision=2025-11-25 --exec="acp-tap --out=cap.jsonl -- $CANNED" \
        method=tools/call params.name=x
    assert_output '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
    run -0 written cap.jsonl
    assert_output $'initialize 0\nnotifications/initialized -\ntools/call 1\nresponse p1\nresponse s1'
    jq -e -s 'map(select(.dir == "in") | .message) | .[3] == {"jsonrpc": "2.0", "id": "p1", "result": {}} and .[4].error.code == -32601' cap.jsonl
    # --all: the notification and the server's requests are shown
    run -0 --separate-stderr acp-send --wait --all --mcp-revision=2025-11-25 --exec="$CANNED" method=tools/call params.name=x
    assert_equal "${#lines[@]}" 5
    assert_line --index 3 '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}'
}
