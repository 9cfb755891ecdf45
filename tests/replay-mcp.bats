# acp-replay and an MCP recording: the client's side of a session captured by acp-tap replayed to a
# live server (--as=server), its responses compared with the recorded ones (the kind of outcome,
# the error's code, the result's shape); and the recording served in the server's place
# (--serve=server) to a live client that started acp-replay as its server. Against the real peers
# (the SDK's clients, v1 and v2; server-everything; a server of our own on the SDK's v2, of both
# eras) and a server of canned answers (tests/drivers/mcp-canned-server.mjs).
load test_helper
load mcp_helper

EVERYTHING="node $PEERS/server-everything/dist/index.js stdio"
V2_SERVER="node $TESTS_DIR/drivers/mcp-v2-server.mjs"

# The recordings, once for the file: the v1 client with server-everything (initialize, ping, the
# lists, a call of echo), and the v2 client of 2026-07-28 with our v2 server.
setup_file() {
    command -v node >/dev/null && [ -f "$PEERS/server-everything/dist/index.js" ] || return 0
    cd "$BATS_FILE_TMPDIR" || return 1
    node "$TESTS_DIR/drivers/mcp-session.mjs" acp-tap --out=legacy.jsonl -- $EVERYTHING >/dev/null 2>&1 || true
    MCP_ERA=2026-07-28 node "$TESTS_DIR/drivers/mcp-v2-session.mjs" acp-tap --out=modern.jsonl -- $V2_SERVER \
        >/dev/null 2>&1 || true
}

# The recording NAME, made by setup_file.
recording() {
    needs_peers
    REC=$BATS_FILE_TMPDIR/$1.jsonl
    [ -s "$REC" ] || fail "setup_file made no $1 recording"
}

# canned FILE JSON: a table of canned answers, for mcp-canned-server.mjs.
canned() {
    printf '%s\n' "$2" >"$1"
    CANNED="node $TESTS_DIR/drivers/mcp-canned-server.mjs $1"
}

# The line of the recording of the client's first request of method $1.
request_line() {
    jq -n --arg m "$1" '[inputs] | to_entries | map(select(.value.dir == "in" and .value.message.method == $m))[0].key + 1' "$REC"
}

# The line of the recording at which the server answered the client's request of method $1.
response_line() {
    jq -n --arg m "$1" '[inputs] | (map(select(.dir == "in" and .message.method == $m))[0].message.id) as $id |
        to_entries | map(select(.value.dir == "out" and .value.message.id == $id and (.value.message.method | not)))[0].key + 1' "$REC"
}

@test "acp-replay --as=server: the client's side of a recorded session, replayed to the live server, is answered as recorded" {
    recording legacy
    run -0 --separate-stderr acp-replay --as=server --exec="$EVERYTHING" --stats "$REC"
    [[ $stderr == *"7 sent in "*"; 6 replies expected, 6 matched, 0 differences"* ]] || fail "$stderr"
    # 2026-07-28: the v2 client's session, to the v2 server
    recording modern
    run -0 --separate-stderr acp-replay --as=server --exec="$V2_SERVER" --stats "$REC"
    [[ $stderr == *"; 3 replies expected, 3 matched, 0 differences"* ]] || fail "$stderr"
}

@test "acp-replay --as=server: a server that answers one tool otherwise fails at that request; an error for a result is another kind" {
    recording legacy
    cd "$BATS_TEST_TMPDIR"
    local ok='{"jsonrpc":"2.0","id":"$id","result":'
    canned other.json '{"initialize":['"$ok"'{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"c","version":"1"},"instructions":"x"}}],
        "ping":['"$ok"'{}}],"tools/list":['"$ok"'{"tools":[]}}],"resources/list":['"$ok"'{"resources":[]}}],
        "prompts/list":[{"jsonrpc":"2.0","id":"$id","error":{"code":-32601,"message":"no prompts"}}],
        "tools/call":['"$ok"'{"content":[{"type":"text","text":"no"}],"isError":true}}]}'
    run -1 --separate-stderr acp-replay --as=server --exec="$CANNED" "$REC"
    [ "$output" = "" ]
    run -0 told "$stderr"
    assert_output "$(response_line prompts/list) error: the agent answered the message with (error) where the recording has (result) (see line $(request_line prompts/list)) [agent-kind]
$(response_line tools/call) error: the agent's (result) differs in its result's members (names and types): recorded {\"content\":\"array\"}, live {\"content\":\"array\",\"isError\":\"boolean\"} (see line $(request_line tools/call)) [agent-differs]"
}

@test "acp-replay --as=server: an error of another code differs; a server silent to a request hangs" {
    needs_peers
    cd "$BATS_TEST_TMPDIR"
    # a session of acp-send's: its probe answered with -32601, then initialize and a call
    acp-send --wait --exec="acp-tap --out=rec.jsonl -- $EVERYTHING" method=tools/call params.name=echo params.arguments.message=hi >/dev/null 2>&1
    REC=$BATS_TEST_TMPDIR/rec.jsonl
    local ok='{"jsonrpc":"2.0","id":"$id","result":'
    canned codes.json '{"server/discover":[{"jsonrpc":"2.0","id":"$id","error":{"code":-32600,"message":"no"}}],
        "initialize":['"$ok"'{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"c","version":"1"},"instructions":"x"}}],
        "tools/call":null}'
    run -1 --separate-stderr acp-replay --as=server --reply-timeout=0.5 --exec="$CANNED" "$REC"
    run -0 told "$stderr"
    assert_line --index 0 "$(response_line server/discover) error: the agent's (error) differs in its error's code: recorded -32601, live -32600 (see line $(request_line server/discover)) [agent-differs]"
    assert_line --index 1 "$(response_line tools/call) error: the agent wrote nothing in the 0.5 s after the message was sent, where the recording has (result); it seems to hang, and the replay ends (see line $(request_line tools/call)) [agent-hang]"
    assert_equal "${#lines[@]}" 2
}

@test "acp-replay --as=ROLE on an MCP recording: client or server; another name is told there is nothing to test" {
    recording legacy
    run -1 --separate-stderr acp-replay --as=Server --exec="$EVERYTHING" "$REC"
    [[ $stderr == *"the recording has no message to or from 'Server', so nothing was tested (an MCP recording's agents are client and server) [agent-absent]" ]] || fail "$stderr"
}

@test "acp-replay --serve=server: the SDK's client completes the recorded session against the recording, answered byte for byte" {
    recording legacy
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" acp-tap --out=served.jsonl -- acp-replay --serve=server "$REC"
    assert_output '[{"type":"text","text":"Echo: hi"}]'
    [ "$stderr" = "" ] || fail "$stderr"
    # the same session: what the client sent, and what it was answered (the server's own
    # notifications aside, which the recording does not serve)
    diff <(jq -c 'select(.message and (.dir == "in" or (.message | has("id")))) | .message' "$REC") \
        <(jq -c 'select(.message) | .message' served.jsonl)
    run -0 --separate-stderr acp-validate served.jsonl
    [ "$stderr" = "" ] || fail "$stderr"
    # 2026-07-28: the v2 client of that revision, and one of both eras, against the v2 session
    recording modern
    local era
    for era in 2026-07-28 auto; do
        run -0 --separate-stderr env MCP_ERA=$era node "$TESTS_DIR/drivers/mcp-v2-session.mjs" acp-replay --serve=server "$REC"
        assert_output '[{"type":"text","text":"Echo: hi"}]'
    done
    # a legacy client against a modern recording: its initialize is not there
    run -1 --separate-stderr node "$TESTS_DIR/drivers/mcp-session.mjs" acp-replay --serve=server "$REC"
    [[ $stderr == *"warning: Method not found: the recording has no initialize request; answered with error -32601 [serve-unrecorded]"* ]] || fail "$stderr"
}

@test "acp-replay --serve=server: each request answered with its recorded response and the live id; others with -32601 or -32602" {
    cd "$BATS_TEST_TMPDIR"
    {
        started s
        record s 1 in '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a"},"_meta":{"progressToken":7}}}'
        record s 2 out '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"A"}],"n":1.50}}'
        record s 3 in '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a"}}}'
        record s 4 out '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"A again"}]}}'
        record s 5 in '{"jsonrpc":"2.0","id":3,"method":"ping"}'
        record s 6 out '{"jsonrpc":"2.0","id":3,"result":{}}'
        started t
        record t 7 in '{"jsonrpc":"2.0","id":1,"method":"ping"}'
        record t 8 out '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"session t"}}'
    } >rec.jsonl
    run -0 --separate-stderr acp-replay --serve=server rec.jsonl <<<'{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"message":"a"},"name":"echo"}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a"},"_meta":{"progressToken":"p"}}}
{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a"}}}
{"jsonrpc":"2.0","id":12,"method":"ping"}
{"jsonrpc":"2.0","id":13,"method":"ping"}
{"jsonrpc":"2.0","id":14,"method":"ping"}
{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"echo","arguments":{"message":"b"}}}
{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"x"}}'
    assert_output '{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"A"}],"n":1.50}}
{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"A again"}]}}
{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"A again"}]}}
{"jsonrpc":"2.0","id":12,"result":{}}
{"jsonrpc":"2.0","id":13,"error":{"code":-1,"message":"session t"}}
{"jsonrpc":"2.0","id":14,"error":{"code":-1,"message":"session t"}}
{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"the recording has no tools/call request with these params"}}
{"jsonrpc":"2.0","id":16,"error":{"code":-32601,"message":"Method not found: the recording has no resources/read request"}}'
    run -0 told "$stderr"
    assert_output '8 warning: the recording has no tools/call request with these params; answered with error -32602 [serve-unrecorded]
9 warning: Method not found: the recording has no resources/read request; answered with error -32601 [serve-unrecorded]'
    run -1 --separate-stderr acp-replay --serve=server --strict rec.jsonl <<<'{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"x"}}'
}

@test "acp-replay --serve: usage, and a recording with nothing to serve" {
    cd "$BATS_TEST_TMPDIR"
    run -2 --separate-stderr acp-replay --serve=client x.jsonl
    [[ $stderr == *"--serve"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-replay --serve=server --as=server --exec=cat x.jsonl
    [[ $stderr == *"--serve answers the client that started acp-replay"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-replay --serve=server --topspeed x.jsonl
    run -2 --separate-stderr acp-replay --serve=server </dev/null
    [[ $stderr == *"--serve reads the live client on standard input: name the recording's files"* ]] || fail "$stderr"
    run -1 --separate-stderr acp-replay --serve=server "$EXAMPLES/iacp-exchange.jsonl" </dev/null
    [[ $stderr == *"<recording>:0: error: the recording has no response of a server to a request of its client"*"[serve-empty]" ]] || fail "$stderr"
}
