# What the MCP suites share: the real peers' place, a capture's records written by hand, and
# what a run told.

PEERS=$TESTS_DIR/node_modules/@modelcontextprotocol

# What a run told ($1, its stderr), a line each: the line of the input, the rest of the diagnostic.
told() {
    sed -n 's/^[^:]*: [^:]*:\([0-9]*\): \(.*\)$/\1 \2/p' <<<"$1"
}

needs_peers() {
    command -v node >/dev/null || skip "node is not installed"
    [ -f "$PEERS/server-everything/dist/index.js" ] && [ -d "$PEERS/sdk" ] &&
        [ -d "$PEERS/client" ] && [ -d "$PEERS/server" ] ||
        skip "MCP's peers are not installed (scripts/deps installs them)"
}

# A record of acp-tap's, by hand: session, time (seconds after 12:00:00), dir, message.
record() {
    printf '{"tap":1,"session":"%s","time":"2026-12-06T12:%02d:%02d.000000Z","seq":1,"dir":"%s","message":%s}\n' \
        "$1" $(($2 / 60)) $(($2 % 60)) "$3" "$4"
}

# acp-tap's start event of session $1, by hand.
started() {
    printf '{"tap":1,"session":"%s","time":"2026-12-06T12:00:00.000000Z","event":"start","pid":1,"command":["server"]}\n' "$1"
}

# A session of acp-tap's initialized, by hand: its start, initialize, the result, initialized.
initialized_session() {
    started "$1"
    record "$1" 0 in '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}'
    record "$1" 0 out '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}'
    record "$1" 0 in '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
