# acp-send: composing (MEMBER=VALUE, --answer, --stdin), the members filled in, the checks before
# sending, and sending: to stdout, to a peer on a Unix socket or loopback TCP, to a command; --wait
# following each protocol to its end, and every way a peer can misbehave. Peers are the example
# forager and tests/drivers/scripted-agent (a script of steps), behind tests/drivers/peer for the
# sockets.
load test_helper

setup_file() {
    build_test_programs
}

setup() {
    FORAGER=$ACP_BUILD/forager
    PEER=$ACP_BUILD/tests/peer
    AGENT=$TESTS_DIR/drivers/scripted-agent
    AGENTS=$EXAMPLES/agents
}

teardown() {
    if [ -n "${PEER_PID-}" ]; then
        kill "$PEER_PID" 2>/dev/null || true
        wait "$PEER_PID" 2>/dev/null || true
    fi
}

# Starts tests/drivers/peer in the background (fd 3 closed, so that bats does not wait for it) and
# sets PEER_ADDRESS once it listens: start_peer unix:PATH|tcp [MODE]... [-- COMMAND...]
start_peer() {
    local ready=$BATS_TEST_TMPDIR/ready.$RANDOM
    "$PEER" "$1" "$ready" "${@:2}" 3>&- &
    PEER_PID=$!
    local i
    for i in $(seq 100); do
        [ -s "$ready" ] && break
        kill -0 "$PEER_PID" 2>/dev/null || return 1
        sleep 0.05
    done
    PEER_ADDRESS=$(cat "$ready")
}

# Runs a command (as `run` does) and sets ELAPSED to its wall time in seconds.
timed_run() {
    local t0=$EPOCHREALTIME
    run "$@"
    ELAPSED=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
}

assert_elapsed() { # LOW HIGH
    awk -v t="$ELAPSED" -v lo="$1" -v hi="$2" 'BEGIN { exit !(t >= lo && t <= hi) }' ||
        fail "took $ELAPSED s, expected between $1 and $2 s"
}

# No process whose pid is in FILE may be left.
assert_gone() {
    local pid
    pid=$(cat "$1")
    ! kill -0 "$pid" 2>/dev/null || fail "process $pid is still there"
}

# Members of a task.assign and of a FIPA request, as arguments.
ASSIGN=(kind=task.assign to=forager-07 body.node=tg:crawl-index/3)
REQUEST=(performative=request sender=client_001 receiver=agent_123 content.action=process)

# --- composing ---

@test "the issue's two examples, with --now and --seed" {
    run -0 --separate-stderr acp-send --now=1312284100 --seed=1 kind=task.assign to=forager-07 \
        body.node=tg:crawl-index/3 body.deadline:=1312284400
    [[ $output =~ ^\{\"v\":\"1\.1\",\"id\":\"q-[0-9a-f]{8}\",\"from\":\"queen\",\"to\":\"forager-07\",\"kind\":\"task.assign\",\"ts\":1312284100,\"body\":\{\"node\":\"tg:crawl-index/3\",\"deadline\":1312284400\}\}$ ]] ||
        fail "$output"
    assert [ -z "$stderr" ]
    run -0 --separate-stderr acp-send --now=2024-01-15T10:35:00Z --seed=1 performative=request sender=client_001 \
        receiver=agent_123 content.action=process reply_by=+30s
    run -0 jq -c '[.performative, .sender, .receiver, .content, .reply_by, .timestamp,
        (.reply_with | test("^m-[0-9a-f]{6}$")), (.conversation_id | test("^conv-[0-9a-f]{12}$"))]' <<<"$output"
    assert_output '["request","client_001","agent_123",{"action":"process"},"2024-01-15T10:35:30Z","2024-01-15T10:35:00Z",true,true]'
}

@test "the composed messages pass acp-validate, byte for byte" {
    local out
    out=$(acp-send --now=1312284100 "${ASSIGN[@]}")
    run -0 acp-validate --stateless <<<"$out"
    assert_output "$out"
    out=$(acp-send --now=1312284100 "${REQUEST[@]}")
    run -0 acp-validate --stateless <<<"$out"
    assert_output "$out"
}

@test "types are said, not guessed: =, :=, arrays, dotted paths, numbers as written" {
    run -0 --separate-stderr acp-send --now=0 performative=inform sender=a receiver=b 'content.n=1.0' \
        'content.m:=1.0' 'content.x:={"a":[0.1,19.99,1e300,2.0,-0.0,17]}' 'content.t:=true' \
        'content.z:=null' 'content.l[]=one' 'content.l[]:=2' 'content.l[]:={"three":3}' \
        'content.deep.er.est=x'
    # numbers keep their text: a real stays a real, nothing is re-rounded
    [[ $output == *'"content":{"n":"1.0","m":1.0,"x":{"a":[0.1,19.99,1e300,2.0,-0.0,17]},"t":true,"z":null,"l":["one",2,{"three":3}],"deep":{"er":{"est":"x"}}}'* ]] ||
        fail "$output"
}

@test "@FILE reads a file's text (one final newline dropped) or its JSON; - is standard input" {
    printf 'line one\nline two\n\n' >"$BATS_TEST_TMPDIR/two-newlines"
    printf 'no newline' >"$BATS_TEST_TMPDIR/none"
    printf '{"k": [1, 2.50]}\n' >"$BATS_TEST_TMPDIR/doc.json"
    run -0 --separate-stderr acp-send --now=0 performative=inform sender=a receiver=b \
        "content.a=@$BATS_TEST_TMPDIR/two-newlines" "content.b=@$BATS_TEST_TMPDIR/none" \
        "content.c:=@$BATS_TEST_TMPDIR/doc.json" "content.d[]=@$BATS_TEST_TMPDIR/none"
    assert_equal "$(jq -c .content <<<"$output")" \
        '{"a":"line one\nline two\n","b":"no newline","c":{"k":[1,2.5]},"d":["no newline"]}'
    run -0 bash -c 'printf "from stdin\n" | acp-send --now=0 performative=inform sender=a receiver=b content=@-'
    assert_equal "$(jq -c .content <<<"$output")" '"from stdin"'
    run -0 bash -c 'echo "[1,2]" | acp-send --now=0 performative=inform sender=a receiver=b content:=@-'
    assert_equal "$(jq -c .content <<<"$output")" '[1,2]'
}

@test "escapes: \\@ and \\\\ lead a value; \\ escapes . = : [ and itself in a key" {
    run -0 --separate-stderr acp-send --now=0 performative=inform sender=a receiver=b 'content.a=\@home' \
        'content.b=\\x' 'content.c=a\b@c' 'content.d\.e=1' 'content.f\=g=2' 'content.h\:=3' \
        'content.i\[]=4' 'content.j\\k=5' 'content.@m=6'
    assert_equal "$(jq -c .content <<<"$output")" \
        '{"a":"@home","b":"\\x","c":"a\\b@c","d.e":"1","f=g":"2","h:":"3","i[]":"4","j\\k":"5","@m":"6"}'
}

@test "a bad MEMBER=VALUE is a usage error that names it, exit 2, nothing written" {
    local arg
    local -A why=(
        ['novalue']="no '='"
        ['a..b=1']="a member name is empty"
        ['.a=1']="a member name is empty"
        ['=1']="a member name is empty"
        ['a:b=1']="':' in a key is written '\\:'"
        ['a[0]=1']="'[' in a key is written '\\['"
        ['a\x=1']="in a key, '\\' escapes"
        ['a=\x']="a value that starts with '\\' is written '\\\\'"
        ['a:=nope']="not JSON"
        ['a:={"x":1,"x":2}']="not JSON: duplicate object key"
        ['a:=18446744073709551616']="not JSON"
        ['a=@']="no file name after '@'"
        ['a=@/no/such/file']="cannot open: No such file or directory"
        ['a=@/']="cannot read: Is a directory"
    )
    for arg in "${!why[@]}"; do
        run -2 --separate-stderr acp-send performative=inform "$arg"
        assert [ -z "$output" ]
        [[ $stderr == "acp-send: '"*"': ${why[$arg]}"*$'\n'"Try 'acp-send --help' for more information." ]] ||
            fail "$arg: $stderr"
    done
}

@test "a key has at most 64 levels; a longer line from the peer is cut and reported" {
    local key
    key=$(printf 'a.%.0s' $(seq 63))z
    run -0 --separate-stderr acp-send --now=0 performative=inform sender=a receiver=b "content.${key#a.}=1"
    run -2 --separate-stderr acp-send performative=inform "content.$key=1"
    [[ $stderr == *"the key has more than 64 levels"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-send --wait --max-line-bytes=300 --exec="$AGENT read 'say {\"pad\":\"$(printf '%0400d' 0)\"}' 'say {\"v\":\"1.1\",\"id\":\"m-000001\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"tool.reply\",\"ts\":1,\"ref\":\"@id@\"}'" \
        kind=tool.query from=queen to=f
    assert_equal "$(jq -r .kind <<<"$output")" tool.reply
    [[ $stderr == *":1: warning: the peer wrote a line that is not a message (longer than --max-line-bytes): '{\"pad\":\"000"*"[peer-garbage]" ]] || fail "$stderr"
}

@test "a member is set once; objects grow, arrays append, other values clash" {
    run -2 --separate-stderr acp-send performative=inform performative=agree
    [[ $stderr == *"'performative=agree': this member is set already"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send performative=inform content=x content.y=1
    [[ $stderr == *"'content.y=1': a member on its path is set already, and is no object"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send performative=inform content=x 'content[]=1'
    [[ $stderr == *"'content[]=1': '[]' appends to an array, and this member is no array"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-send --now=0 performative=inform sender=a receiver=b 'content:={"a":1}' content.b=2 \
        'l:=[0]' 'l[]:=1'
    assert_equal "$(jq -c '[.content, .l]' <<<"$output")" '[{"a":1,"b":"2"},[0,1]]'
}

@test "standard input is read once; a file larger than --max-line-bytes is refused" {
    run -2 --separate-stderr bash -c 'echo x | acp-send performative=inform a=@- b=@-'
    [[ $stderr == *"'b=@-': standard input is read once only"* ]] || fail "$stderr"
    head -c 5000 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/big"
    run -2 --separate-stderr acp-send --max-line-bytes=1K performative=inform "a=@$BATS_TEST_TMPDIR/big"
    [[ $stderr == *"the file is longer than 1024 bytes"* ]] || fail "$stderr"
    printf 'a\0b' >"$BATS_TEST_TMPDIR/nul"
    run -2 --separate-stderr acp-send performative=inform "a=@$BATS_TEST_TMPDIR/nul"
    [[ $stderr == *"NUL byte"* ]] || fail "$stderr"
    printf '\xff\xfe' >"$BATS_TEST_TMPDIR/latin"
    run -2 --separate-stderr acp-send performative=inform "a=@$BATS_TEST_TMPDIR/latin"
    [[ $stderr == *"not valid UTF-8"* ]] || fail "$stderr"
}

@test "hostile text in an argument is escaped in the message, never a terminal control" {
    run -2 --separate-stderr acp-send performative=inform $'a\e[2J:b=1'
    [[ $stderr == *"'a\\x1b[2J:b=1'"* ]] || fail "$stderr"
    [[ $stderr != *$'\e'* ]] || fail "an escape reached the terminal"
}

# --- filled in ---

@test "IACP: v, from (the queen for her kinds), to (the queen for hers), id and ts" {
    run -0 --separate-stderr acp-send --now=1700000000 kind=task.assign to=f1
    assert_equal "$(jq -c '[.v, .from, .to, .ts, (.id | test("^q-[0-9a-f]{8}$"))]' <<<"$output")" \
        '["1.1","queen","f1",1700000000,true]'
    run -0 --separate-stderr acp-send --now=1700000000 kind=task.result from=f1 ref=q-1 body.status=ok
    assert_equal "$(jq -c '[.from, .to, (.id | test("^m-[0-9a-f]{6}$"))]' <<<"$output")" '["f1","queen",true]'
    # --queen renames the queen, and her ids stay q-
    run -0 --separate-stderr acp-send --queen=boss --now=1700000000 kind=ctl.drain to=f1
    assert_equal "$(jq -c '[.from, (.id | test("^q-"))]' <<<"$output")" '["boss",true]'
    # given members are kept as given, in the protocol's order
    run -0 --separate-stderr acp-send body.x=1 ts:=5 id=q-7 kind=hb to=b from=a v=1.1
    assert_output '{"v":"1.1","id":"q-7","from":"a","to":"b","kind":"hb","ts":5,"body":{"x":"1"}}'
}

@test "ts and timestamp come from --now, SOURCE_DATE_EPOCH, else the clock" {
    run -0 env SOURCE_DATE_EPOCH=1600000000 acp-send kind=hb from=a to=b
    assert_equal "$(jq .ts <<<"$output")" 1600000000
    local before after ts
    before=$(date +%s)
    ts=$(acp-send kind=hb from=a to=b | jq .ts)
    after=$(date +%s)
    [ "$ts" -ge "$before" ] && [ "$ts" -le "$after" ] || fail "ts $ts not in [$before, $after]"
    run -0 --separate-stderr acp-send --now=1700000000 performative=inform sender=a receiver=b content=x
    assert_equal "$(jq -r .timestamp <<<"$output")" 2023-11-14T22:13:20Z
    run -0 --separate-stderr acp-send performative=inform sender=a receiver=b content=x
    [[ $(jq -r .timestamp <<<"$output") =~ ^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\.[0-9]{3})?Z$ ]] || fail "$output"
}

@test "FIPA: reply_with and conversation_id on every act that expects an answer, and only there" {
    local act
    for act in request request_when request_whenever query_if query_ref cfp propose subscribe \
        proxy cancel accept_proposal counter_propose REQUEST query-ref; do
        run -0 --separate-stderr acp-send --now=0 performative=$act sender=a receiver=b content=x
        jq -e '(.reply_with | test("^m-[0-9a-f]{6}$")) and (.conversation_id | test("^conv-[0-9a-f]{12}$"))' \
            <<<"$output" >/dev/null || fail "$act: $output"
    done
    for act in inform agree refuse failure not_understood reject_proposal confirm inform_ref; do
        run -0 --separate-stderr acp-send --now=0 performative=$act sender=a receiver=b content=x in_reply_to=r
        jq -e 'has("reply_with") or has("conversation_id") | not' <<<"$output" >/dev/null || fail "$act: $output"
    done
    # given ones are kept
    run -0 --separate-stderr acp-send --now=0 performative=request sender=a receiver=b content=x reply_with=r1 conversation_id=c1
    assert_equal "$(jq -c '[.reply_with, .conversation_id]' <<<"$output")" '["r1","c1"]'
}

@test "reply_by: +30s, +5m, +90 and +1.5h count from --now; an absolute one is kept" {
    local rel want
    for rel in +30s:2024-01-15T10:35:30Z +5m:2024-01-15T10:40:00Z +90:2024-01-15T10:36:30Z \
        +1.5h:2024-01-15T12:05:00Z +0.25s:2024-01-15T10:35:00.250Z; do
        want=${rel#*:}
        run -0 --separate-stderr acp-send --now=2024-01-15T10:35:00Z performative=cfp sender=a receiver=b content=x "reply_by=${rel%%:*}"
        assert_equal "$(jq -r .reply_by <<<"$output")" "$want"
    done
    run -0 --separate-stderr acp-send --now=0 performative=cfp sender=a receiver=b content=x reply_by=2030-01-01T00:00:00Z
    assert_equal "$(jq -r .reply_by <<<"$output")" 2030-01-01T00:00:00Z
    # a relative time that is none is left for the checks to refuse
    run -1 --separate-stderr acp-send performative=cfp sender=a receiver=b content=x reply_by=+soon
    [[ $stderr == *"'reply_by' must be an RFC 3339 date-time [fipa-time]"* ]] || fail "$stderr"
}

@test "fresh ids: random per run, reproduced by --seed, unique within a run" {
    local a b
    a=$(acp-send --now=0 kind=hb from=a to=b | jq -r .id)
    b=$(acp-send --now=0 kind=hb from=a to=b | jq -r .id)
    [ "$a" != "$b" ] || fail "two runs gave the same id $a"
    a=$(acp-send --seed=4 --now=0 kind=hb from=a to=b)
    b=$(acp-send --seed=4 --now=0 kind=hb from=a to=b)
    assert_equal "$a" "$b"
    # 5,000 messages of one script: 5,000 ids, never one the script gave itself
    run -0 bash -c 'for i in $(seq 5000); do echo "{\"kind\":\"hb\",\"from\":\"f\"}"; done |
        sed "2500s/.*/{\"kind\":\"hb\",\"from\":\"f\",\"id\":\"m-000001\"}/" |
        acp-send --stdin --seed=1 --now=0 to=b | jq -r .id | sort | uniq -d'
    assert_output ''
}

@test "idgen makes the queen's ids, prefixed ids and ids like another, unique and seeded" {
    local drv=$ACP_BUILD/tests/idgen
    run -0 bash -c "echo 'queen q 100000' | '$drv' 1 1h 10 | grep -v '^q-[0-9a-f]\{8\}\$' | wc -l"
    assert_output 0
    run -0 bash -c "echo 'queen q 100000' | '$drv' 1 1h 10 | sort | uniq -d"
    assert_output ''
    run -0 bash -c "printf 'like a conv_789 2\nlike a abc 1\nlike a q-1 1\nlike a m-00a1b2 1\nlike a m-1 1\n' | '$drv' 1 1h 10"
    [[ ${lines[0]} =~ ^conv_[0-9a-f]{12}$ && ${lines[1]} =~ ^conv_[0-9a-f]{12}$ ]] || fail "$output"
    [ "${lines[0]}" != "${lines[1]}" ]
    [[ ${lines[2]} =~ ^abc-[0-9a-f]{12}$ && ${lines[3]} =~ ^q-[0-9a-f]{8}$ ]] || fail "$output"
    [[ ${lines[4]} =~ ^m-[0-9a-f]{6}$ && ${lines[5]} =~ ^m-[0-9a-f]{12}$ ]] || fail "$output"
    run -0 bash -c "echo 'queen q 3' | '$drv' 1 1h 10"
    local first=$output
    run -0 bash -c "echo 'queen q 3' | '$drv' 1 1h 10"
    assert_output "$first"
    run -0 bash -c "echo 'queen q 3' | '$drv' 2 1h 10"
    [ "$output" != "$first" ]
}

# --- --answer ---

@test "--answer builds the reply as JADE's createReply: reply_to, else the sender; same conversation" {
    local req=$BATS_TEST_TMPDIR/req.json
    printf '%s\n' '{"performative":"request","sender":"client_001","receiver":"agent_123","content":{"action":"process"},"conversation_id":"conv_789","reply_with":"msg_001","protocol":"fipa-request","language":"json","ontology":"caxton-v1","encoding":"utf8"}' >"$req"
    run -0 --separate-stderr acp-send --now=0 --answer="$req" performative=agree 'content:={}'
    assert_output '{"performative":"agree","sender":"agent_123","receiver":"client_001","content":{},"language":"json","ontology":"caxton-v1","protocol":"fipa-request","conversation_id":"conv_789","in_reply_to":"msg_001","timestamp":"1970-01-01T00:00:00Z"}'
    # reply_to wins over the sender; the answered message may come on standard input
    run -0 bash -c "jq -c '.reply_to = [\"client_002\"]' '$req' | acp-send --now=0 --answer=- performative=agree 'content:={}'"
    assert_equal "$(jq -c .receiver <<<"$output")" '["client_002"]'
    # members given win over the built ones
    run -0 --separate-stderr acp-send --now=0 --answer="$req" performative=inform content=done receiver=other
    assert_equal "$(jq -c '[.receiver, .in_reply_to]' <<<"$output")" '["other","msg_001"]'
    # and the exchange is what the stream rules expect
    run -0 bash -c "{ cat '$req'; acp-send --now=0 --answer='$req' performative=agree 'content:={}'; } | acp-validate"
}

@test "--answer: an IACP reply to its from, ref its id; no conversation made up" {
    run -0 bash -c "head -1 '$EXAMPLES/iacp-exchange.jsonl' | acp-send --now=1312284101 --answer=- kind=task.accept"
    assert_equal "$(jq -c '[.from, .to, .kind, .ref]' <<<"$output")" '["forager-07","queen","task.accept","q-00a1"]'
    printf '%s\n' '{"performative":"cfp","sender":"a","receiver":"b","content":{},"reply_with":"c1"}' >"$BATS_TEST_TMPDIR/cfp"
    run -0 --separate-stderr acp-send --now=0 --answer="$BATS_TEST_TMPDIR/cfp" performative=propose content.price:=3
    jq -e '(has("conversation_id") | not) and .in_reply_to == "c1" and (.reply_with | test("^m-"))' \
        <<<"$output" >/dev/null || fail "$output"
}

@test "--answer: a Caxton reply without content is refused, and the error says how to give one" {
    local req=$BATS_TEST_TMPDIR/req.json
    printf '%s\n' '{"performative":"request","sender":"client_001","receiver":"agent_123","content":{"action":"process"},"conversation_id":"conv_789","reply_with":"msg_001"}' >"$req"
    run -1 --separate-stderr acp-send --now=0 --answer="$req" performative=agree
    assert_output ''
    assert_equal "$stderr" "acp-send: <arguments>:1: error: missing required member 'content': a Caxton reply carries one too; give it as content:={} (an empty object), content=TEXT or content.KEY=VALUE [fipa-missing]"
    run -0 acp-send --now=0 --fipa-profile=standard --answer="$req" performative=agree
}

@test "--answer: several receivers need sender=; the reply keeps the protocol; bad files are usage errors" {
    local cfp=$BATS_TEST_TMPDIR/cfp
    printf '%s\n' '{"performative":"cfp","sender":"a","receiver":["b","c"],"content":{}}' >"$cfp"
    run -1 --separate-stderr acp-send --answer="$cfp" performative=propose content=x
    assert [ -z "$output" ]
    [[ $stderr == "acp-send: <arguments>:1: error: the message answered went to several receivers: say which one answers with sender=NAME [send-answer]" ]] || fail "$stderr"
    run -0 --separate-stderr acp-send --now=0 --answer="$cfp" performative=propose content=x sender=c
    assert_equal "$(jq -r .sender <<<"$output")" c
    run -1 --separate-stderr acp-send --answer="$cfp" kind=task.accept
    [[ $stderr == *"the message answered is FIPA"*"[send-answer]"* ]] || fail "$stderr"
    run -1 --separate-stderr bash -c "head -1 '$EXAMPLES/iacp-exchange.jsonl' | acp-send --answer=- performative=agree"
    [[ $stderr == *"the message answered is IACP"*"[send-answer]"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --answer=/no/such kind=hb
    [[ $stderr == *"--answer=/no/such: cannot open: No such file or directory"* ]] || fail "$stderr"
    run -2 --separate-stderr bash -c 'echo "[1]" | acp-send --answer=- kind=hb'
    [[ $stderr == *"--answer=-: not a JSON object"* ]] || fail "$stderr"
    run -2 --separate-stderr bash -c 'echo "{\"x\":1}" | acp-send --answer=- kind=hb'
    [[ $stderr == *"--answer=-: neither an IACP message"* ]] || fail "$stderr"
    run -2 --separate-stderr bash -c 'echo "{\"kind\":\"hb\"}" | acp-send --answer=- a=@- kind=hb'
    [[ $stderr == *": standard input is read once only"* ]] || fail "$stderr"
}

# --- checks before sending ---

@test "an invalid message is reported and nothing is sent: exit 1" {
    run -1 --separate-stderr acp-send kind=task.reject from=f to=queen ref=q-1
    assert [ -z "$output" ]
    assert_equal "$stderr" "acp-send: <arguments>:1: error: task.reject must carry a string body.reason [iacp-reason]"
    run -1 --separate-stderr acp-send content=x
    assert_equal "$stderr" "acp-send: <arguments>:1: error: neither IACP (no 'kind' or 'v') nor FIPA (no 'performative') nor MCP (no 'jsonrpc') [no-protocol]"
    # nor to a peer: the command is never started
    run -1 --separate-stderr acp-send --exec="sh -c 'touch $BATS_TEST_TMPDIR/started'" kind=task.result from=f
    [ ! -e "$BATS_TEST_TMPDIR/started" ] || fail "the command was started"
    # --rejects keeps the message composed
    run -1 --separate-stderr acp-send --rejects="$BATS_TEST_TMPDIR/rej" kind=task.result from=f
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" '{"kind":"task.result","from":"f"}'
}

@test "checks follow --fipa-profile, --queen and --strict; warnings do not stop a message" {
    run -1 --separate-stderr acp-send performative=inform
    [[ $stderr == *"missing required member 'sender' [fipa-missing]"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-send --fipa-profile=standard performative=inform
    run -0 --separate-stderr acp-send kind=task.assign from=queen to=f
    run -1 --separate-stderr acp-send --queen=boss kind=task.assign from=queen to=f
    [[ $stderr == *"[iacp-reserved-name]"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-send performative=agree sender=a receiver=b content=x
    [[ $stderr == *"warning: agree answers a message but has no in_reply_to [fipa-no-in-reply-to]"* ]] || fail "$stderr"
    assert_equal "$(jq -r .performative <<<"$output")" agree
    run -1 --separate-stderr acp-send --strict performative=agree sender=a receiver=b content=x
    assert [ -z "$output" ]
}

# --- --stdin ---

@test "--stdin completes, checks and sends each line; arguments give every line's defaults" {
    run -1 --separate-stderr acp-send --stdin --now=100 --seed=1 from=f1 to=queen <<'EOF'
{"kind":"hb"}
{"kind":"tool.query","to":"registry","body":{"tool":"grep"}}
not json
{"kind":"task.result"}
{"kind":"hb","from":"f2"}
EOF
    assert_equal "${#lines[@]}" 3
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -c '[.kind, .from, .to, .ts]')" \
        "$(printf '%s\n' '["hb","f1","queen",100]' '["tool.query","f1","registry",100]' '["hb","f2","queen",100]')"
    [[ $stderr == *"<stdin>:3:3: error: invalid token near 'not' [bad-json]"* ]] || fail "$stderr"
    [[ $stderr == *"<stdin>:4: error: task.result must carry 'ref' [iacp-ref-missing]"* ]] || fail "$stderr"
    # standard input holds the script
    run -2 --separate-stderr acp-send --stdin a=@- </dev/null
    [[ $stderr == *"'a=@-': standard input holds the messages (--stdin)"* ]] || fail "$stderr"
}

@test "--stdin: the whole script passes the stream rules too" {
    run -1 --separate-stderr acp-send --stdin --now=100 <<'EOF'
{"kind":"task.assign","to":"f1","body":{"node":"a"}}
{"kind":"task.assign","to":"f1","body":{"node":"b"}}
{"performative":"cfp","sender":"a","receiver":"b","content":{},"conversation_id":"c9"}
{"performative":"accept_proposal","sender":"a","receiver":"b","content":{},"conversation_id":"c9","in_reply_to":"p-1"}
EOF
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r '.kind // .performative' | tr '\n' ' ')" "task.assign cfp "
    [[ $stderr == *"<stdin>:2: error: "*"[iacp-slots]"* ]] || fail "$stderr"
    [[ $stderr == *"<stdin>:4: error: accept-proposal to b, who has not proposed in conversation 'c9' (see line 3) [fipa-accept-no-proposal]"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-send --stdin --now=100 --slots=f1=2 <<'EOF'
{"kind":"task.assign","to":"f1","body":{"node":"a"}}
{"kind":"task.assign","to":"f1","body":{"node":"b"}}
EOF
    # without --stdin, one message has no stream to break
    run -0 --separate-stderr acp-send --now=100 kind=task.assign to=f1
}

@test "--stdin --wait: the replies are part of the stream the script is checked against" {
    run -0 --separate-stderr acp-send --stdin --wait --exec="$FORAGER agent_456" sender=client_001 receiver=agent_456 <<'EOF'
{"performative":"cfp","conversation_id":"c1","content":{"task":"t"},"reply_by":"+5s"}
{"performative":"accept_proposal","conversation_id":"c1","in_reply_to":"p-1","content":{}}
EOF
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .performative)" "$(printf 'propose\ninform')"
    assert [ -z "$stderr" ]
}

# --- sending and waiting ---

@test "a peer on a Unix socket and on loopback TCP gets the message; --wait prints its replies" {
    local where
    for where in "unix:$BATS_TEST_TMPDIR/s" tcp; do
        start_peer "$where" -- "$FORAGER"
        run -0 --separate-stderr acp-send --wait --connect="$PEER_ADDRESS" "${ASSIGN[@]}"
        assert_equal "$(printf '%s\n' "${lines[@]}" | jq -c '[.kind, .body.status]')" \
            "$(printf '%s\n' '["task.accept",null]' '["task.result","ok"]')"
        assert [ -z "$stderr" ]
        wait "$PEER_PID"
    done
    # without --wait the message only goes
    start_peer "unix:$BATS_TEST_TMPDIR/s2" --record="$BATS_TEST_TMPDIR/got"
    run -0 --separate-stderr acp-send --now=5 --seed=2 --connect="$PEER_ADDRESS" "${ASSIGN[@]}"
    assert [ -z "$output" ]
    wait "$PEER_PID"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/got")" "$(acp-send --now=5 --seed=2 "${ASSIGN[@]}")"
}

@test "--exec: the example forager answers each protocol, and each succeeds" {
    run -0 --separate-stderr acp-send --wait --exec="$FORAGER" "${ASSIGN[@]}"
    assert_equal "${#lines[@]}" 2
    local act
    for act in request query_ref query_if subscribe; do
        run -0 --separate-stderr acp-send --wait --exec="$FORAGER agent_123" performative=$act \
            sender=client_001 receiver=agent_123 content.action=process
        assert [ -z "$stderr" ]
        [[ $(jq -r .performative <<<"${lines[-1]}") == inform ]] || fail "$act: $output"
    done
    # a subscription ends at its first inform: the second is not waited for, nor printed
    run -0 --separate-stderr acp-send --wait --exec="$FORAGER agent_123" performative=subscribe sender=c receiver=agent_123 content=x
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .performative)" "$(printf 'agree\ninform')"
    run -0 --separate-stderr acp-send --wait --exec="$FORAGER agent_123" performative=cfp sender=c receiver=agent_123 content=x
    assert_equal "$(jq -r .performative <<<"$output")" propose
}

@test "exit 1: refused, rejected, failed; the diagnostic quotes the answer" {
    run -1 --separate-stderr acp-send --wait --exec="$FORAGER agent_123" performative=request \
        sender=c receiver=agent_123 content.action=refuse
    assert_equal "$(jq -r .performative <<<"$output")" refuse
    assert_equal "$stderr" "acp-send: <arguments>:1: error: the conversation failed: agent_123 answered refuse: busy [send-failed]"
    run -1 --separate-stderr acp-send --wait --exec="$FORAGER" kind=task.assign to=forager-07 body.node=tg:reject-1
    [[ $stderr == *"the conversation failed: forager-07 answered task.reject: busy [send-failed]"* ]] || fail "$stderr"
    run -1 --separate-stderr acp-send --wait --exec="$FORAGER" kind=task.assign to=forager-07 body.node=tg:fail-1
    assert_equal "${#lines[@]}" 2
    [[ $stderr == *"forager-07 answered task.result with status \"failed\" [send-failed]"* ]] || fail "$stderr"
}

@test "acts that expect no reply are 0 once sent, without waiting" {
    timed_run -0 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENTS/hanging.sh" \
        performative=inform sender=a receiver=b content=x
    assert_elapsed 0 1.5
    timed_run -0 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENTS/hanging.sh" kind=hb from=a to=b
    assert_elapsed 0 1.5
}

@test "exit 3: no final answer by --timeout, saying what was awaited" {
    timed_run -3 --separate-stderr acp-send --wait --timeout=0.5 --grace=0.2 --exec="$AGENT read 'say {\"performative\":\"agree\",\"sender\":\"b\",\"receiver\":\"a\",\"content\":{},\"in_reply_to\":\"@reply_with@\"}' hang" \
        performative=request sender=a receiver=b content=x
    assert_elapsed 0.4 2
    assert_equal "$(jq -r .performative <<<"$output")" agree
    [[ $stderr == "acp-send: <arguments>:1: error: no final answer within 0.5 s (agree came; waiting for the inform or failure) [send-timeout]" ]] || fail "$stderr"
}

@test "the default timeout is the message's deadline when it is still to come" {
    timed_run -3 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENTS/hanging.sh" \
        performative=request sender=a receiver=b content=x reply_by=+1s
    assert_elapsed 0.8 2.5
    [[ $stderr == *"no final answer within 1 s"* ]] || fail "$stderr"
    timed_run -3 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENTS/hanging.sh" \
        kind=task.assign to=f body.deadline:=$(($(date +%s) + 2))
    assert_elapsed 0.8 3.5
    # a deadline already past does not end the wait at once: 30 s are given
    timed_run -0 --separate-stderr acp-send --wait --exec="$AGENT read sleep 0.5 'say {\"v\":\"1.1\",\"id\":\"m-000001\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"task.result\",\"ts\":1,\"ref\":\"@id@\"}'" \
        kind=task.assign to=f body.deadline:=1
    assert_elapsed 0.4 3
}

@test "a cfp gathers every proposal until its reply_by; all answered ends it sooner" {
    local propose='say {"performative":"propose","sender":"b","receiver":"a","content":{"price":1},"in_reply_to":"@reply_with@","conversation_id":"@conversation_id@"}'
    local refuse='say {"performative":"refuse","sender":"c","receiver":"a","content":{"reason":"no"},"in_reply_to":"@reply_with@","conversation_id":"@conversation_id@"}'
    # both participants answered: done at once, with the proposal: 0
    timed_run -0 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENT read '$propose' '$refuse' hang" \
        performative=cfp sender=a 'receiver:=["b","c"]' content=x reply_by=+10s
    assert_elapsed 0 3
    assert_equal "${#lines[@]}" 2
    # one is silent: the proposal counts at the reply_by
    timed_run -0 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENT read '$propose' hang" \
        performative=cfp sender=a 'receiver:=["b","c"]' content=x reply_by=+1s
    assert_elapsed 0.8 3
    assert_equal "${#lines[@]}" 1
    # every participant refused: 1
    run -1 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENT read '$refuse' hang" \
        performative=cfp sender=a receiver=c content=x reply_by=+10s
    [[ $stderr == *"the conversation failed: 0 proposals and 1 refusal came from 1 of 1 participant [send-failed]"* ]] || fail "$stderr"
    # nothing at all: 3
    run -3 --separate-stderr acp-send --wait --grace=0.2 --exec="$AGENTS/hanging.sh" \
        performative=cfp sender=a receiver=c content=x reply_by=+0.5s
}

@test "replies print as they arrive; the echo and unrelated messages only with --all" {
    local agree='say {"performative":"agree","sender":"b","receiver":"a","content":{},"in_reply_to":"@reply_with@"}'
    local inform='say {"performative":"inform","sender":"b","receiver":"a","content":{},"in_reply_to":"@reply_with@"}'
    local other='say {"performative":"inform","sender":"b","receiver":"a","content":{},"in_reply_to":"someone-else"}'
    local hb='say {"v":"1.1","id":"m-000009","from":"b","to":"queen","kind":"hb","ts":1}'
    local script="$AGENT read echo '$other' '$hb' '$agree' sleep 1 '$inform'"
    run -0 --separate-stderr bash -c 'acp-send --wait --exec="$1" performative=request sender=a receiver=b content=x |
        while IFS= read -r line; do printf "%s %s\n" "$EPOCHREALTIME" "$(jq -r .performative <<<"$line")"; done' _ "$script"
    assert_equal "${#lines[@]}" 2
    assert_equal "${lines[0]#* } ${lines[1]#* }" "agree inform"
    awk -v a="${lines[0]%% *}" -v b="${lines[1]%% *}" 'BEGIN { exit !(b - a > 0.7) }' ||
        fail "the agree did not come before the inform: $output"
    run -0 --separate-stderr acp-send --wait --all --exec="$script" performative=request sender=a receiver=b content=x
    assert_equal "${#lines[@]}" 5
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r '.performative // .kind')" "$(printf 'request\ninform\nhb\nagree\ninform')"
}

@test "garbage from the peer is reported and ignored; the conversation goes on" {
    run -0 --separate-stderr acp-send --wait --exec="$AGENT read 'say hello' 'say [1]' 'say {\"x\":1}' 'say {\"v\":\"1.1\",\"id\":\"m-000001\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"tool.reply\",\"ts\":1,\"ref\":\"@id@\"}'" \
        kind=tool.query from=queen to=f
    assert_equal "$(jq -r .kind <<<"$output")" tool.reply
    assert_equal "$(grep -c 'warning: the peer wrote a line that is not a message' <<<"$stderr")" 3
    [[ $stderr == *"scripted-agent:1: warning: the peer wrote a line that is not a message (not JSON): 'hello'; ignored [peer-garbage]"* ]] || fail "$stderr"
    [[ $stderr == *"scripted-agent:3: warning: "*"(neither IACP, FIPA nor MCP): '{\"x\":1}'"* ]] || fail "$stderr"
}

@test "a reply_by from now past the year 9999 is refused as such, converted to no integer" {
    run -1 --separate-stderr acp-send --now=0 reply_by=+303e108s performative=request sender=a receiver=b content=x
    assert_output ''
    assert_equal "$stderr" "acp-send: <arguments>:1: error: reply_by=+303e108s falls past the year 9999, the last an RFC 3339 date-time can name [fipa-time]"
    run -0 --separate-stderr acp-send --now=0 reply_by=+87600h performative=request sender=a receiver=b content=x
}

@test "peer-garbage quotes a line with a NUL whole, the NUL escaped" {
    local peer="$BATS_TEST_TMPDIR/nul-peer"
    printf '#!/bin/sh\nread -r message\nprintf "hello\\000 world\\n"\n' >"$peer"
    run -2 --separate-stderr acp-send --wait --exec="sh $peer" kind=tool.query from=queen to=f
    [[ $stderr == *"(not JSON): 'hello\x00 world'; ignored [peer-garbage]"* ]] || fail "$stderr"
}

@test "exit 2: a refused connection, a command that cannot start" {
    start_peer tcp
    local address=$PEER_ADDRESS
    kill "$PEER_PID"
    wait "$PEER_PID" || true
    run -2 --separate-stderr acp-send --wait --connect="$address" "${ASSIGN[@]}"
    assert_equal "$stderr" "acp-send: $address:0: error: cannot connect: Connection refused [peer-connect]"
    run -2 --separate-stderr acp-send --connect="unix:$BATS_TEST_TMPDIR/none" "${ASSIGN[@]}"
    [[ $stderr == *"No such file or directory [peer-connect]"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --exec=no-such-command-here "${ASSIGN[@]}"
    [[ $stderr == *"no-such-command-here:0: error: cannot run the command: No such file or directory [peer-connect]"* ]] || fail "$stderr"
}

@test "exit 2: a peer that closes halfway through a message, or before the end" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" -- "$AGENT" read raw '{"v":"1.1","id":"m-0000' exit 0
    timed_run -2 --separate-stderr acp-send --wait --connect="$PEER_ADDRESS" "${ASSIGN[@]}"
    assert_elapsed 0 3
    [[ $stderr == *"warning: the peer wrote a line that is not a message (cut short: the peer closed in the middle of it): '{\"v\":\"1.1\",\"id\":\"m-0000'"* ]] || fail "$stderr"
    [[ $stderr == *"<arguments>:1: error: the peer closed the connection before the conversation ended (waiting for task.accept or task.reject) [peer-closed]"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --wait --exec="$AGENTS/crashing.sh" "${ASSIGN[@]}"
    [[ $stderr == *"error: the peer was killed by signal 11 (Segmentation fault) before the conversation ended"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --wait --exec="$AGENT read exit 4" "${ASSIGN[@]}"
    [[ $stderr == *"error: the peer exited with status 4 before the conversation ended"* ]] || fail "$stderr"
}

@test "exit 2: a command that exits while what it started holds its stdout, at once" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    # before, its pipe stayed open: the whole --timeout went by, and the exit status was 3
    run -2 --separate-stderr timeout 30 acp-send --wait --timeout=20 \
        --exec="$AGENTS/leaving.sh $pidfile" "${ASSIGN[@]}"
    assert_equal "$(jq -r .kind <<<"$output")" task.accept
    assert_equal "$stderr" "acp-send: <arguments>:1: error: the peer exited with status 0 before the conversation ended (task.accept came; waiting for the task.result) [peer-closed]"
    assert_ended "$pidfile"
}

@test "exit 2: a peer that stops reading makes the write time out" {
    head -c 3000000 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/big"
    start_peer "unix:$BATS_TEST_TMPDIR/s" --no-read
    timed_run -2 --separate-stderr acp-send --max-line-bytes=4M --io-timeout=0.5 --grace=0.2 \
        --connect="$PEER_ADDRESS" kind=hb from=a to=b "body.pad=@$BATS_TEST_TMPDIR/big"
    assert_elapsed 0.4 3
    [[ $stderr == *"error: the peer has not read for 0.5 s; 0 messages were sent [peer-timeout]"* ]] || fail "$stderr"
}

# N messages with a pad of SIZE bytes each, one a line, in a file whose path is printed.
padded() {
    local pad i f=$BATS_TEST_TMPDIR/padded.$1.$2
    pad=$(head -c "$2" /dev/zero | tr '\0' x)
    for ((i = 1; i <= $1; i++)); do
        printf '{"v":"1.1","id":"m-%06x","from":"a","to":"b","kind":"hb","ts":100,"body":{"pad":"%s"}}\n' "$i" "$pad"
    done >"$f"
    echo "$f"
}

@test "exit 2: a peer that closes while a message is being written to it, no hang" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --close-after-bytes=150000
    local big
    big=$(padded 20 100000)
    timed_run -2 --separate-stderr acp-send --stdin --io-timeout=5 --connect="$PEER_ADDRESS" <"$big"
    assert_elapsed 0 4
    [[ $stderr == *"error: the peer closed the connection"*"[peer-closed]"* ]] || fail "$stderr"
    assert_equal "$(grep -c 'error:' <<<"$stderr")" 1
}

@test "a peer that sends a 100 MB line: it is cut at --max-line-bytes, never held whole, and the wait goes on" {
    skip_under valgrind "100 MB"
    local limit=() agent=$BATS_TEST_TMPDIR/agent
    local reply='{"v":"1.1","id":"m-000001","from":"f","to":"queen","kind":"tool.reply","ts":1,"ref":"q-00000001"}'
    printf '#!/bin/sh\nread -r l\nhead -c 100000000 /dev/zero | tr "\\0" x\necho\necho %s\ncat >/dev/null\n' "'$reply'" >"$agent"
    chmod +x "$agent"
    # 100 MB of address space more than the tool needs, but not 100 MB of line on top
    [[ $ACP_BIN == *asan* ]] || limit=(ulimit -v 150000 ';')
    timed_run -0 --separate-stderr bash -c "${limit[*]} exec acp-send --wait --timeout=60 --exec=$agent \
        kind=tool.query from=queen to=f id=q-00000001 ts:=1"
    assert_elapsed 0 40
    assert_output "$reply"
    [[ $stderr == *":1: warning: the peer wrote a line that is not a message (longer than --max-line-bytes): 'xxx"*"[peer-garbage]" ]] ||
        fail "$stderr"
    assert_equal "$(grep -c . <<<"$stderr")" 1
}

@test "a slow peer gets every message, as long as it reads within --io-timeout" {
    skip_under valgrind "a timing test"
    # 330 kB at 200 kB/s, beyond what the socket holds: the writes wait for the peer again and
    # again
    start_peer "unix:$BATS_TEST_TMPDIR/s" --slow=5 --record="$BATS_TEST_TMPDIR/got"
    local big
    big=$(padded 300 1000)
    timed_run -0 --separate-stderr acp-send --stdin --io-timeout=2 --connect="$PEER_ADDRESS" <"$big"
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$big"
    assert_elapsed 0.5 15
}

@test "--stdin --wait awaits each conversation before reading the next line" {
    local reply='say {"v":"1.1","id":"m-000001","from":"f","to":"queen","kind":"tool.reply","ts":1,"ref":"@id@"}'
    run -0 --separate-stderr acp-send --stdin --wait --exec="$AGENT read sleep 0.5 quiet '$reply' read sleep 0.5 quiet '$reply'" \
        from=queen to=f kind=tool.query <<'EOF'
{}
{}
EOF
    assert [ -z "$stderr" ]
    assert_equal "${#lines[@]}" 2
    # without --wait both lines go at once: the agent is not left quiet
    run -0 --separate-stderr acp-send --stdin --exec="$AGENT read sleep 0.5 quiet drain" from=queen to=f kind=tool.query <<'EOF'
{}
{}
EOF
    [[ $stderr == *"not quiet"* ]] || fail "$stderr"
}

@test "--stdin: a scripted exchange in a here-document, the worst status wins" {
    run -1 --separate-stderr acp-send --stdin --wait --exec="$FORAGER" to=forager-07 <<'EOF'
{"kind":"task.assign","body":{"node":"tg:crawl-a/1"}}
{"kind":"task.assign","body":{"node":"tg:reject-b/2"}}
{"kind":"task.assign","body":{"node":"tg:crawl-c/3"}}
EOF
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .kind | tr '\n' ' ')" "task.accept task.result task.reject task.accept task.result "
    [[ $stderr == "acp-send: <stdin>:2: error: the conversation failed: forager-07 answered task.reject: busy [send-failed]" ]] || fail "$stderr"
    run -3 --separate-stderr acp-send --stdin --wait --timeout=0.3 --grace=0.2 --exec="$FORAGER agent_1" sender=c receiver=agent_1 content=x <<'EOF'
{"performative":"request","content":{"action":"refuse"}}
{"performative":"propose"}
{"performative":"query_ref"}
EOF
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .performative | tr '\n' ' ')" "refuse inform "
    [[ $stderr == *"<stdin>:1: error: "*"[send-failed]"*"<stdin>:2: error: no final answer within 0.3 s"* ]] || fail "$stderr"
}

@test "child hygiene: a command that ignores the end of its input is killed after --grace, and reaped" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    # the conversation ends at once (rejected), then the command has its grace period
    timed_run -1 --separate-stderr acp-send --wait --timeout=10 --grace=0.5 \
        --exec="$AGENT --pid=$pidfile read 'say {\"v\":\"1.1\",\"id\":\"m-1\",\"from\":\"forager-07\",\"to\":\"queen\",\"kind\":\"task.reject\",\"ts\":1,\"ref\":\"@id@\"}' hang" \
        "${ASSIGN[@]}"
    assert_elapsed 0.4 3
    assert_gone "$pidfile"
}

@test "--timeout bounds the whole wait: the grace period at the end is part of it" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    # before, the peer had its whole --grace after the timeout: 21 s
    timed_run -3 --separate-stderr timeout 15 acp-send --wait --timeout=1 --grace=20 \
        --exec="sh -c 'echo \$\$ >$pidfile; trap \"\" TERM; exec sleep 60'" "${ASSIGN[@]}"
    [[ $stderr == *"no final answer within 1 s (waiting for task.accept or task.reject) [send-timeout]" ]] || fail "$stderr"
    assert_elapsed 0 10
    assert_gone "$pidfile"
    # a conversation that ended in time leaves the peer what is left of the wait, up to --grace
    timed_run -0 --separate-stderr timeout 15 acp-send --wait --timeout=1 --grace=20 \
        --exec="$AGENT --pid=$pidfile read 'say {\"v\":\"1.1\",\"id\":\"m-1\",\"from\":\"f\",\"to\":\"a\",\"kind\":\"tool.reply\",\"ts\":1,\"ref\":\"@id@\"}' hang" \
        kind=tool.query from=a to=f
    assert_elapsed 0 10
    assert_gone "$pidfile"
}

@test "Ctrl-C ends the wait at once with status 130, and the command goes too" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    acp-send --wait --exec="$AGENT --pid=$pidfile read hang" "${ASSIGN[@]}" >/dev/null 2>&1 3>&- &
    local pid=$!
    sleep 0.5
    kill -INT "$pid"
    local t0=$EPOCHREALTIME status=0
    wait "$pid" || status=$?
    assert_equal "$status" 130
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 1.5) }' || fail "slow to stop"
    sleep 0.1
    assert_gone "$pidfile"
}

@test "a reader that goes away stops acp-send quietly, with a command too" {
    run -0 --separate-stderr bash -c 'yes "{\"kind\":\"hb\"}" | acp-send --stdin from=a to=b | head -1 >/dev/null; echo "${PIPESTATUS[1]}"'
    assert_output 141
    assert [ -z "$stderr" ]
    run -0 --separate-stderr bash -c 'yes "{\"kind\":\"hb\"}" | acp-send --stdin --all --exec=cat from=a to=b | head -1 >/dev/null; echo "${PIPESTATUS[1]}"'
    assert_output 141
    assert [ -z "$stderr" ]
}

# --- usage ---

@test "usage errors: --wait and --all need a peer, --timeout needs --wait, --answer=- with --stdin" {
    run -2 --separate-stderr acp-send --wait kind=hb
    [[ $stderr == *"--wait follows the conversation with a peer: it needs --connect or --exec"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --all kind=hb
    [[ $stderr == *"--all"*"needs --connect or --exec"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --timeout=3 --exec=cat kind=hb
    [[ $stderr == *"--timeout"*"goes with --wait"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --stdin --answer=-
    [[ $stderr == *"--answer=- and --stdin would both read standard input"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --connect=unix:/x --exec=cat kind=hb
    run -2 --separate-stderr acp-send
    [[ $stderr == *"nothing to send"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-send --timeout=0 --wait --exec=cat kind=hb
    run -2 --separate-stderr acp-send --connect=localhost:80 kind=hb
}

@test "--stats counts the messages sent and how their conversations ended" {
    run -3 --separate-stderr acp-send --stats --stdin --wait --timeout=0.3 --grace=0.1 --exec="$FORAGER" to=forager-07 <<'EOF'
{"kind":"task.assign","body":{"node":"tg:crawl-a/1"}}
{"kind":"task.assign","body":{"node":"tg:reject-b/2"}}
{"kind":"tool.query","from":"queen"}
EOF
    [[ $stderr == *"acp-send: 3 sent; 1 succeeded, 1 failed, 1 timed out"* ]] || fail "$stderr"
}

# Memory the input cannot blow up: acp-send --stdin remembers the ids its input used (so that no
# fresh id repeats one) by digest when they are long: 1,000 heartbeats with ids of 1 MB each held
# 962 MiB.
# The test feeds a fifth as many: held whole, even they would be several times its bound.
@test "--stdin: 200 ids of 1 MB each hold a few MiB" {
    skip_under valgrind "200 MB through it takes too long"
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-adversarial" long-ids 200 >"$t/in"
    "$ACP_BUILD/peak-rss" acp-send --stdin <"$t/in" >"$t/out" 2>"$t/err" || fail "status $?"
    assert_rss_below "$t/err" $((32 * 1024))
    [ "$(wc -l <"$t/out")" -eq 200 ] || fail "$(wc -l <"$t/out") lines"
}

# --- completion ---

@test "the bash completion completes acp-send's values as bash splits the words" {
    run -0 bash -c '
        compopt() { :; }
        source "$1"
        COMP_LINE="acp-send --connect=un"
        COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<<"$COMP_LINE"
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _acp_send
        printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$TESTS_DIR/../completions/acp-send.bash"
    assert_output "unix:"
}

# Issue 38: what the message is comes first; a member acp-send fills in is never asked for.
@test "acp-send names the real problem first: a misspelt kind or act before the members it lacks" {
    run -1 --separate-stderr acp-send kind=task.asign to=forager-01
    assert_equal "${stderr_lines[0]}" "acp-send: <arguments>:1: warning: unknown kind 'task.asign' [iacp-kind-unknown]"
    run -1 --separate-stderr acp-send performative=infrom receiver=b
    assert_equal "${stderr_lines[0]}" "acp-send: <arguments>:1: error: 'infrom' is not a FIPA communicative act [fipa-performative]"
    # an assign without 'to': that alone, not the 'from' it fills in with the queen
    run -1 --separate-stderr acp-send kind=task.assign body.node=x
    assert_equal "$stderr" "acp-send: <arguments>:1: error: missing required member 'to' [iacp-missing]"
}

# Issue 41: an MCP message is checked and sent as it is composed (issue 44: in JSON-RPC's order;
# tests/send-mcp.bats follows it to its response).
@test "an MCP message: checked as JSON-RPC and sent" {
    run -0 acp-send jsonrpc=2.0 method=ping id:=1
    assert_output '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    run -1 --separate-stderr acp-send jsonrpc=2.0 method=ping id:=null
    assert_equal "$stderr" "acp-send: <arguments>:1: error: a request's id must not be null [mcp-id]"
}
