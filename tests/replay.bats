# acp-replay: order, counts, the pace modes' arithmetic on short schedules, rewriting, peers
# (sockets, commands) and the live-agent mode. Timing bounds are loose on purpose (a 1 s schedule
# takes 0.9 to 2 s): they check the arithmetic; precision belongs to `make bench`.
load test_helper

setup_file() {
    build_test_programs
}

setup() {
    FORAGER=$ACP_BUILD/forager
    PEER=$ACP_BUILD/tests/peer
    AGENTS=$EXAMPLES/agents
    REPLAY_FIXTURES=$FIXTURES/replay
    # accepts the first message it reads, then says nothing more until its input ends
    ACCEPTING="$TESTS_DIR/drivers/scripted-agent read 'say {\"v\":\"1.1\",\"id\":\"m-9\",\"from\":\"forager-07\",\"to\":\"queen\",\"kind\":\"task.accept\",\"ts\":1,\"ref\":\"@id@\"}'"
}

# An IACP message: iacp ID FROM TO KIND TS [REF [BODY]]
iacp() {
    local ref=${6:+,\"ref\":\"$6\"} body=${7:+,\"body\":$7}
    printf '{"v":"1.1","id":"%s","from":"%s","to":"%s","kind":"%s","ts":%s%s%s}\n' \
        "$1" "$2" "$3" "$4" "$5" "$ref" "$body"
}

# A FIPA inform at an RFC 3339 time: fipa ID TIME [TIME-MEMBER]
fipa() {
    printf '{"performative":"inform","sender":"a","receiver":"b","reply_with":"%s","%s":"%s"}\n' \
        "$1" "${3:-timestamp}" "$2"
}

# Writes standard input to a fresh file and prints its path.
capture() {
    local f
    f=$(mktemp "$BATS_TEST_TMPDIR/cap.XXXXXX")
    cat >"$f"
    printf '%s' "$f"
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

# The time each line arrives, relative to the first, then the line: stamps < INPUT
stamps() {
    local t0="" line
    while IFS= read -r line; do
        [ -n "$t0" ] || t0=$EPOCHREALTIME
        printf '%s %s\n' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" "$line"
    done
}

export -f stamps

# Starts the test peer in the background (fd 3 closed, so that bats does not wait for it) and
# sets PEER_ADDRESS once it listens: start_peer unix:PATH|tcp|tcp6 [MODE]... [-- COMMAND...]
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

teardown() {
    if [ -n "${PEER_PID-}" ]; then
        kill "$PEER_PID" 2>/dev/null || true
        wait "$PEER_PID" 2>/dev/null || true
    fi
}

# No process whose pid is in FILE may be left.
assert_gone() {
    local pid
    pid=$(cat "$1")
    ! kill -0 "$pid" 2>/dev/null || fail "process $pid is still there"
}

# N hb messages (or task.assign from the queen to AGENT), each padded with PAD bytes:
# many N PAD [AGENT]
many() {
    awk -v n="$1" -v pad="$2" -v agent="${3-}" 'BEGIN {
        p = sprintf("%0" pad "d", 0)
        for (i = 1; i <= n; i++)
            if (agent == "")
                printf "{\"v\":\"1.1\",\"id\":\"m-%06x\",\"from\":\"a\",\"to\":\"b\",\"kind\":\"hb\",\"ts\":100,\"body\":{\"pad\":\"%s\"}}\n", i, p
            else
                printf "{\"v\":\"1.1\",\"id\":\"q-%x\",\"from\":\"queen\",\"to\":\"%s\",\"kind\":\"task.assign\",\"ts\":100,\"body\":{\"pad\":\"%s\"}}\n", i, agent, p
    }' | capture
}

seed_exchange() {
    printf '%s' "$EXAMPLES/iacp-exchange.jsonl"
}

# --- order, counts, the contract ---

@test "every message goes out in file order, byte for byte" {
    local f
    f=$(
        {
            iacp q-1 queen f1 task.assign 100
            printf '{ "kind" : "hb", "v":"1.1", "id":"m-000002","from":"f1","to":"queen","ts":100 }\r\n'
            fipa r-1 2011-08-02T11:21:41Z
            iacp m-000003 f1 queen task.accept 99 q-1
        } | capture
    )
    run -0 --separate-stderr acp-replay --topspeed "$f"
    cmp <(printf '%s\n' "$output") "$f" || fail "output differs from the input"
    assert [ -z "$stderr" ]
}

@test "a bad line is reported and kept by --rejects; the others are replayed" {
    run -1 --separate-stderr acp-replay --topspeed --rejects="$BATS_TEST_TMPDIR/rej" \
        "$EXAMPLES/colony-capture.jsonl"
    # 20 lines: one blank, two rejected
    assert_equal "$(wc -l <<<"$output")" 17
    assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/rej")" 2
    [[ $stderr == *"[bad-json]"* ]] || fail "$stderr"
}

@test "--limit stops after N messages and reads no further" {
    local f
    f=$(for i in 1 2 3; do iacp "m-00000$i" a b hb 100; done | capture)
    timed_run -0 --separate-stderr bash -c \
        'acp-replay --topspeed --limit=2 < <(exec 3>&- 2>/dev/null; cat "$1"; exec sleep 5)' _ "$f"
    assert_equal "${#lines[@]}" 2
    assert_elapsed 0 2
}

@test "--loop=N replays the files N times; --loop needs files" {
    run -0 acp-replay --topspeed --loop=3 "$(seed_exchange)"
    assert_equal "${#lines[@]}" 9
    assert_equal "${lines[3]}" "$(head -1 "$(seed_exchange)")"
    run -2 --separate-stderr acp-replay --loop=2 <"$(seed_exchange)"
    [[ $stderr == *"--loop"*"standard input"* ]] || fail "$stderr"
    run -2 acp-replay --loop=2 "$(seed_exchange)" - </dev/null
}

@test "--loop=0 goes on until --duration ends it" {
    timed_run -0 --separate-stderr bash -c 'acp-replay --topspeed --loop=0 --duration=1 "$1" | wc -l' _ \
        "$(seed_exchange)"
    assert_elapsed 0.9 2
    [ "$output" -gt 30 ] || fail "only $output messages"
}

@test "a loop over a file without messages ends" {
    timed_run -0 acp-replay --topspeed --loop=0 /dev/null
    assert_elapsed 0 1
}

@test "--speed, --topspeed and --rate exclude each other" {
    run -2 --separate-stderr acp-replay --speed=2 --topspeed "$(seed_exchange)"
    [[ $stderr == *"exclude each other"* ]] || fail "$stderr"
    run -2 acp-replay --rate=5 --speed=2 "$(seed_exchange)"
    run -2 acp-replay --rate=5 --topspeed "$(seed_exchange)"
    run -2 acp-replay --speed=0 "$(seed_exchange)"
    run -2 acp-replay --rate=-1 "$(seed_exchange)"
}

# --- the pace modes' arithmetic ---

@test "the schedule, the lateness histogram and the id rewriting, checked exactly" {
    run -0 "$ACP_BUILD/tests/replay-units"
    assert_output --regexp '^[0-9]+ checks, 0 failed$'
}

@test "speed 1: messages a second apart take a second" {
    local f
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 101; } | capture)
    timed_run -0 acp-replay "$f"
    assert_elapsed 0.9 2
    assert_equal "${#lines[@]}" 2
}

@test "--speed=2 halves a two-second schedule; --speed=0.5 doubles a half-second one" {
    local f
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 102; } | capture)
    timed_run -0 acp-replay --speed=2 "$f"
    assert_elapsed 0.9 2
    f=$({ fipa r-1 2024-01-15T10:00:00.000Z; fipa r-2 2024-01-15T10:00:00.500Z; } | capture)
    timed_run -0 acp-replay --speed=0.5 "$f"
    assert_elapsed 0.9 2
}

@test "--rate=N sends N messages a second whatever their times, and needs none" {
    local f
    f=$(for i in 1 2 3; do printf '{"performative":"inform","n":%d}\n' "$i"; done | capture)
    timed_run -0 acp-replay --rate=2 "$f"
    assert_elapsed 0.9 2
    assert_equal "${#lines[@]}" 3
}

@test "--topspeed ignores the times" {
    local f
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 200; } | capture)
    timed_run -0 acp-replay --topspeed "$f"
    assert_elapsed 0 0.5
}

@test "FIPA timestamp, else created_at, times a message" {
    local f
    f=$({ fipa r-1 2024-01-15T10:00:00Z created_at; fipa r-2 2024-01-15T10:00:01Z created_at; } | capture)
    timed_run -0 acp-replay "$f"
    assert_elapsed 0.9 2
    # timestamp wins over created_at
    f=$(printf '%s\n' \
        '{"performative":"inform","timestamp":"2024-01-15T10:00:00Z","created_at":"2024-01-15T10:00:00Z"}' \
        '{"performative":"inform","timestamp":"2024-01-15T10:00:01Z","created_at":"2024-01-15T09:00:00Z"}' | capture)
    timed_run -0 acp-replay "$f"
    assert_elapsed 0.9 2
}

@test "IACP messages that share a second are spread evenly over it; --burst sends them together" {
    local f
    f=$({
        for i in 1 2 3 4; do iacp "m-00000$i" a b hb 100; done
        iacp m-000005 a b hb 101
    } | capture)
    run -0 bash -c 'acp-replay "$1" | stamps' _ "$f"
    assert_equal "${#lines[@]}" 5
    # the third of four goes half-way into the second, the fifth at the next second
    awk -v t="${lines[2]%% *}" 'BEGIN { exit !(t >= 0.3 && t <= 0.8) }' || fail "third at ${lines[2]%% *}"
    awk -v t="${lines[4]%% *}" 'BEGIN { exit !(t >= 0.9 && t <= 2) }' || fail "fifth at ${lines[4]%% *}"
    run -0 bash -c 'acp-replay --burst "$1" | stamps' _ "$f"
    awk -v t="${lines[3]%% *}" 'BEGIN { exit !(t < 0.3) }' || fail "fourth at ${lines[3]%% *}"
    awk -v t="${lines[4]%% *}" 'BEGIN { exit !(t >= 0.9 && t <= 2) }' || fail "fifth at ${lines[4]%% *}"
}

@test "a live pipe written slowly: each message goes when it comes, not at the end" {
    run -0 bash -c '
        for i in 0 1 2; do
            printf "{\"v\":\"1.1\",\"id\":\"m-00000%d\",\"from\":\"a\",\"to\":\"b\",\"kind\":\"hb\",\"ts\":%d}\n" "$i" "$((100 + i))"
            sleep 0.5
        done | acp-replay --burst --speed=2 | stamps'
    assert_equal "${#lines[@]}" 3
    awk -v t="${lines[1]%% *}" 'BEGIN { exit !(t >= 0.4 && t <= 0.9) }' || fail "second at ${lines[1]%% *}"
    awk -v t="${lines[2]%% *}" 'BEGIN { exit !(t >= 0.9 && t <= 1.5) }' || fail "third at ${lines[2]%% *}"
}

@test "a message earlier than its predecessor goes at once and moves nothing" {
    local f
    f=$({
        iacp m-000001 a b hb 100
        iacp m-000002 a b hb 101
        iacp m-000003 a b hb 90
        iacp m-000004 a b hb 102
    } | capture)
    run -0 bash -c 'acp-replay "$1" | stamps' _ "$f"
    assert_equal "$(cut -d' ' -f2- <<<"$output")" "$(cat "$f")"
    awk -v a="${lines[1]%% *}" -v b="${lines[2]%% *}" 'BEGIN { exit !(b - a < 0.3) }' ||
        fail "the skewed message waited: ${lines[1]%% *} then ${lines[2]%% *}"
    awk -v t="${lines[3]%% *}" 'BEGIN { exit !(t >= 1.9 && t <= 3) }' || fail "last at ${lines[3]%% *}"
}

@test "--max-gap shortens a long idle gap" {
    local f
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 1000; } | capture)
    timed_run -0 acp-replay --max-gap=1 "$f"
    assert_elapsed 0.9 2
}

@test "--start skips capture time at the beginning" {
    local f
    f=$({
        iacp m-000001 a b hb 100
        iacp m-000002 a b hb 150
        iacp m-000003 a b hb 200
        iacp m-000004 a b hb 201
    } | capture)
    timed_run -0 acp-replay --start=100 "$f"
    assert_elapsed 0.9 2
    assert_equal "${lines[0]}" "$(sed -n 3p "$f")"
    assert_equal "${#lines[@]}" 2
}

@test "--duration sends only what is due within it" {
    local f
    f=$({
        iacp m-000001 a b hb 100
        iacp m-000002 a b hb 100
        iacp m-000003 a b hb 101
        iacp m-000004 a b hb 101
        iacp m-000005 a b hb 102
    } | capture)
    timed_run -0 acp-replay --duration=1.2 "$f"
    assert_equal "${#lines[@]}" 3
    assert_elapsed 0.9 2
}

@test "loops follow each other, with every pace (below speed 1 too)" {
    local f
    f=$({ fipa r-1 2024-01-15T10:00:00.000Z; fipa r-2 2024-01-15T10:00:00.250Z; } | capture)
    timed_run -0 acp-replay --loop=2 --speed=0.5 "$f"
    assert_equal "${#lines[@]}" 4
    assert_elapsed 0.9 2
    timed_run -0 acp-replay --loop=2 --rate=3 "$f"
    assert_equal "${#lines[@]}" 4
    assert_elapsed 0.9 2
    # an IACP loop ends with its last second: the fourth message goes 3 s of capture in
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 101; } | capture)
    timed_run -0 acp-replay --loop=2 --speed=3 "$f"
    assert_equal "${#lines[@]}" 4
    assert_elapsed 0.9 2
}

@test "a message without a time is an error that names --rate and --topspeed" {
    local f
    f=$({ iacp m-000001 a b hb 100; printf '{"v":"1.1","id":"m-000002","kind":"hb"}\n'; } | capture)
    run -1 --separate-stderr acp-replay "$f"
    assert_equal "${#lines[@]}" 1
    [[ $stderr == *":2: error: "*"--rate or --topspeed"*"[replay-no-time]"* ]] || fail "$stderr"
    run -0 acp-replay --rate=100 "$f"
    assert_equal "${#lines[@]}" 2
}

@test "a ts above 10^14 cannot be scheduled: replay-ts-range, and the replay goes on at once" {
    local f
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 1e300; iacp m-000003 a b hb 1.5e15; iacp m-000004 a b hb 101; } | capture)
    timed_run -1 --separate-stderr timeout 10 acp-replay --speed=10 "$f"
    assert_equal "$(jq -r .id <<<"$output")" "$(printf 'm-000001\nm-000004')"
    [[ $stderr == *":2: error: ts is above 10^14, no time of this era: this message cannot be scheduled, and is skipped (--rate and --topspeed send it) [replay-ts-range]"* ]] || fail "$stderr"
    [[ $stderr == *":3: error: "*"[replay-ts-range]"* ]] || fail "$stderr"
    assert_elapsed 0 3
    run -0 acp-replay --topspeed "$f"
    assert_equal "${#lines[@]}" 4
}

# --- rewriting ---

@test "--rewrite-ids: fresh ids in every loop, references follow, no duplicate-id" {
    run -1 --separate-stderr bash -c 'acp-replay --topspeed --loop=3 "$1" | acp-validate' _ "$(seed_exchange)"
    [[ $stderr == *"[iacp-duplicate-id]"* ]] || fail "$stderr"
    run -0 --separate-stderr bash -c \
        'acp-replay --topspeed --loop=3 --rewrite-ids "$1" | acp-validate' _ "$(seed_exchange)"
    assert_equal "${#lines[@]}" 9
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .id | sort -u | wc -l)" 9
    local loop
    for loop in 0 3 6; do
        local assign
        assign=$(jq -r .id <<<"${lines[$loop]}")
        assert_equal "$(jq -r .ref <<<"${lines[$((loop + 1))]}")" "$assign"
        assert_equal "$(jq -r .ref <<<"${lines[$((loop + 2))]}")" "$assign"
    done
}

# Within the stream checks' window of ids (100,000, --max-open's default), two recorded messages
# with one id get one fresh id: a duplicate of the recording stays one, in every loop.
@test "--rewrite-ids keeps a recorded duplicate a duplicate, in every loop" {
    f=$(lines_file \
        '{"v":"1.1","id":"m-00aa01","from":"forager-01","to":"queen","kind":"hb","ts":100,"body":{"slots":1}}' \
        '{"v":"1.1","id":"m-00aa02","from":"forager-01","to":"queen","kind":"hb","ts":101,"body":{"slots":1}}' \
        '{"v":"1.1","id":"m-00aa01","from":"forager-01","to":"queen","kind":"hb","ts":102,"body":{"slots":1}}')
    run -1 --separate-stderr bash -c 'acp-replay --topspeed --loop=2 --rewrite-ids "$1" | acp-validate --diagnostics=json' _ "$f"
    assert_equal "${#lines[@]}" 4 # the line duplicated in each loop is rejected
    assert_equal "$(jq -r .code <<<"$stderr" | sort | uniq -c | awk '{ print $1, $2 }')" "2 iacp-duplicate-id"
    assert_equal "$(jq -r '.related_line' <<<"$stderr" | tr '\n' ' ')" "1 4 "
}

# An IACP id is unique per sender: two foragers' messages that both carry m-000000 (as every
# gen-colony capture has) are two messages, and get two fresh ids.
@test "--rewrite-ids: one id in two senders' messages is no duplicate; each gets its own" {
    f=$(lines_file \
        '{"v":"1.1","id":"m-000000","from":"forager-01","to":"queen","kind":"hb","ts":100,"body":{"slots":1}}' \
        '{"v":"1.1","id":"m-000000","from":"forager-02","to":"queen","kind":"hb","ts":100,"body":{"slots":1}}')
    run -0 bash -c 'acp-replay --topspeed --loop=2 --rewrite-ids "$1" | jq -r .id | sort -u | wc -l' _ "$f"
    assert_output 4
}

# Memory the input cannot blow up: the mapping of recorded ids keeps long ones by digest, and a
# fresh id in a long id's style keeps 63 bytes of it at most (idgen.h): 1,000 heartbeats with ids
# of 1 MB each held 3.7 GiB.
# The test feeds a fifth as many: held whole, even they would be several times its bound.
@test "--rewrite-ids: 200 ids of 1 MB each hold a few MiB, and their fresh ids are short" {
    skip_under valgrind "200 MB through it takes too long"
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-adversarial" long-ids 200 >"$t/in"
    "$ACP_BUILD/peak-rss" acp-replay --topspeed --rewrite-ids "$t/in" >"$t/out" 2>"$t/err" ||
        fail "status $?"
    assert_rss_below "$t/err" $((32 * 1024))
    run -0 jq -r '.id | length' "$t/out"
    assert_equal "$(sort -u <<<"$output")" 76 # 63 bytes of the id, "-" and 12 hex digits
    run -0 bash -c "jq -r .id '$t/out' | sort -u | wc -l"
    assert_output 200
    # a long id with a dash keeps 63 bytes of its text before it, and the dash
    f=$(lines_file "{\"v\":\"1.1\",\"id\":\"$(head -c 200 /dev/zero | tr '\0' a)-1\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":1,\"body\":{\"slots\":1}}")
    run -0 bash -c "acp-replay --topspeed --rewrite-ids '$f' | jq -r .id"
    [[ $output =~ ^a{63}-[0-9a-f]{12}$ ]] || fail "$output"
}

@test "--rewrite-ids keeps each id's style; --seed reproduces" {
    run -0 acp-replay --topspeed --rewrite-ids --seed=7 "$(seed_exchange)"
    [[ $(jq -r .id <<<"${lines[0]}") =~ ^q-[0-9a-f]{8}$ ]] || fail "${lines[0]}"
    [[ $(jq -r .id <<<"${lines[1]}") =~ ^m-[0-9a-f]{6}$ ]] || fail "${lines[1]}"
    local first=$output
    run -0 acp-replay --topspeed --rewrite-ids --seed=7 "$(seed_exchange)"
    assert_equal "$output" "$first"
    run -0 acp-replay --topspeed --rewrite-ids --seed=8 "$(seed_exchange)"
    [ "$output" != "$first" ] || fail "another seed gave the same ids"
    # everything else is as it was
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -c 'del(.id, .ref)')" \
        "$(jq -c 'del(.id, .ref)' "$(seed_exchange)")"
}

@test "--rewrite-ids rewrites FIPA reply_with, in_reply_to and conversation_id together" {
    run -0 acp-replay --topspeed --rewrite-ids --loop=2 "$EXAMPLES/fipa-exchange.jsonl"
    assert_equal "${#lines[@]}" 6
    local i conv rw
    for i in 0 3; do
        conv=$(jq -r .conversation_id <<<"${lines[$i]}")
        rw=$(jq -r .reply_with <<<"${lines[$i]}")
        [[ $conv =~ ^conv_[0-9a-f]{12}$ && $rw =~ ^msg_[0-9a-f]{12}$ ]] || fail "${lines[$i]}"
        assert_equal "$(jq -r .in_reply_to <<<"${lines[$((i + 1))]}")" "$rw"
        assert_equal "$(jq -r .conversation_id <<<"${lines[$((i + 2))]}")" "$conv"
    done
    [ "$(jq -r .reply_with <<<"${lines[0]}")" != "$(jq -r .reply_with <<<"${lines[3]}")" ] ||
        fail "the second loop kept the first loop's ids"
}

@test "--rewrite-ts stamps the time of sending: whole seconds for IACP, RFC 3339 for FIPA" {
    local f
    f=$({
        iacp m-000001 a b hb 100
        fipa r-1 2024-01-15T10:00:00Z
        fipa r-2 2024-01-15T10:00:00Z created_at
    } | capture)
    run -0 acp-replay --topspeed --rewrite-ts --now=1700000000 "$f"
    assert_equal "$(jq -c .ts <<<"${lines[0]}")" 1700000000
    [[ $(jq -r .timestamp <<<"${lines[1]}") =~ ^2023-11-14T22:13:20\.[0-9]{3}Z$ ]] || fail "${lines[1]}"
    [[ $(jq -r .created_at <<<"${lines[2]}") =~ ^2023-11-14T22:13:20\.[0-9]{3}Z$ ]] || fail "${lines[2]}"
    assert_equal "$(jq -r 'has("timestamp")' <<<"${lines[2]}")" false
    # a second later, a second later
    f=$({ iacp m-000001 a b hb 100; iacp m-000002 a b hb 101; } | capture)
    run -0 acp-replay --rewrite-ts --now=1700000000 "$f"
    assert_equal "$(jq -c .ts <<<"${lines[1]}")" 1700000001
}

@test "rewritten messages keep the text of their numbers and the order of their members" {
    local f
    f=$({
        printf '%s\n' '{"v":"1.1","id":"m-000001","from":"a","to":"b","kind":"hb","ts":100,"body":{"load":0.1,"price":19.99,"n":2.0,"big":1e300,"tiny":5e-324,"k":7}}'
        printf '%s\n' '{"performative":"inform","sender":"a","receiver":"b","reply_with":"r-1","content":{"price":19.99,"x":[0.1,0.3]},"timestamp":"2024-01-15T10:00:00Z"}'
    } | capture)
    run -0 acp-replay --topspeed --rewrite-ts --now=1700000000 "$f"
    assert_equal "${lines[0]}" '{"v":"1.1","id":"m-000001","from":"a","to":"b","kind":"hb","ts":1700000000,"body":{"load":0.1,"price":19.99,"n":2.0,"big":1e300,"tiny":5e-324,"k":7}}'
    [[ ${lines[1]} =~ ^\{\"performative\":\"inform\",\"sender\":\"a\",\"receiver\":\"b\",\"reply_with\":\"r-1\",\"content\":\{\"price\":19.99,\"x\":\[0.1,0.3\]\},\"timestamp\":\"2023-11-14T22:13:20\.[0-9]{3}Z\"\}$ ]] ||
        fail "${lines[1]}"
    run -0 acp-replay --topspeed --rewrite-ids --seed=1 "$f"
    [[ ${lines[0]} == *'"ts":100,"body":{"load":0.1,"price":19.99,"n":2.0,"big":1e300,"tiny":5e-324,"k":7}}' ]] ||
        fail "${lines[0]}"
    [[ ${lines[1]} == *'"content":{"price":19.99,"x":[0.1,0.3]},"timestamp":"2024-01-15T10:00:00Z"}' ]] ||
        fail "${lines[1]}"
}

# --- the status line and --stats ---

@test "on a terminal a live status line shows what was sent, unless -q or --no-progress" {
    command -v script >/dev/null || skip "script(1) is not installed"
    local f
    f=$(for i in 1 2 3; do iacp "m-00000$i" a b hb "$((100 + i))"; done | capture)
    run -0 script -qec "acp-replay --speed=4 $f >/dev/null" /dev/null
    [[ $output =~ [1-3]\ sent ]] || fail "no status line: $output"
    [[ $output == *"behind schedule"* ]] || fail "$output"
    run -0 script -qec "acp-replay --speed=4 --no-progress $f >/dev/null" /dev/null
    [[ $output != *"sent"* ]] || fail "$output"
    run -0 script -qec "acp-replay --speed=4 -q $f" /dev/null
    [[ $output != *"sent"* ]] || fail "$output"
    run -0 --separate-stderr acp-replay --speed=4 "$f"
    assert [ -z "$stderr" ]
}

@test "--stats: the records in are those sent, rejected and unread, with --duration and --limit too" {
    local f
    f=$({ for i in 1 2 3 4 5 6 7 8 9; do iacp "m-00000$i" a b hb "$((100 + i))"; done
        printf 'not json\n'; iacp m-000010 a b hb 110; iacp m-000011 a b hb 111; } | capture)
    local args
    for args in "--rate=10 --duration=0.45" "--topspeed --limit=5" "--speed=20 --limit=5" "--speed=20 --duration=0.22"; do
        # shellcheck disable=SC2086 # the options are words
        run --separate-stderr acp-replay $args --stats --diagnostics=json "$f"
        local stats replay
        stats=$(grep '"type":"stats"' <<<"$stderr")
        replay=$(grep '"type":"replay"' <<<"$stderr")
        assert_equal "$(jq .sent <<<"$replay")" 5
        assert_equal "$(jq .valid <<<"$stats")" 5
        assert_equal "$(jq '.records + .unread' <<<"$stats")" 12
        assert_equal "$(jq '.valid + .rejected + .blank + .unread' <<<"$stats")" 12
    done
    run -0 --separate-stderr acp-replay --topspeed --limit=5 --stats "$f"
    [[ $stderr == *"acp-replay: 5 records: 5 valid, 0 rejected, 0 blank, 7 lines unread; 0 warnings, 0 errors"* ]] || fail "$stderr"
    run -1 --separate-stderr acp-replay --topspeed --limit=10 --stats "$f"
    [[ $stderr == *"acp-replay: 11 records: 10 valid, 1 rejected, 0 blank, 1 line unread; 0 warnings, 1 errors"* ]] || fail "$stderr"
}

@test "--stats tells how late messages went against the schedule" {
    local f
    f=$(for i in 1 2 3 4; do iacp "m-00000$i" a b hb "$((100 + i))"; done | capture)
    run -0 --separate-stderr acp-replay --speed=8 --stats "$f"
    [[ $stderr == *"4 sent in 0."*"late against the schedule: median "*" ms, p99 "*" ms, max "* ]] ||
        fail "$stderr"
    run -0 --separate-stderr acp-replay --speed=8 --stats --diagnostics=json "$f"
    local replay
    replay=$(grep '"type":"replay"' <<<"$stderr")
    assert_equal "$(jq '.sent' <<<"$replay")" 4
    jq -e '.lateness.median >= 0 and .lateness.p99 >= .lateness.median and .lateness.max >= .lateness.p99' \
        <<<"$replay" >/dev/null || fail "$replay"
}

@test "--stats --diagnostics=json: measured times to the microsecond, whole ones whole" {
    local f
    f=$(iacp m-000001 a b hb 100 | capture)
    run -0 --separate-stderr acp-replay --topspeed --stats --diagnostics=json "$f"
    assert_equal "$(grep '"type":"replay"' <<<"$stderr")" '{"type":"replay","sent":1,"seconds":0}'
    f=$(for i in 1 2 3; do iacp "m-00000$i" a b hb "$((100 + i))"; done | capture)
    run -0 --separate-stderr acp-replay --speed=10 --stats --diagnostics=json "$f"
    grep '"type":"replay"' <<<"$stderr" |
        grep -Eq '^\{"type":"replay","sent":3,"seconds":0\.[0-9]{1,6},"lateness":\{"median":[0-9.e-]+,"p99":[0-9.e-]+,"max":[0-9.e-]+\}\}$' ||
        fail "$stderr"
}

# --- peers: sockets ---

@test "a Unix socket peer receives every message, in order" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --record="$BATS_TEST_TMPDIR/got"
    run -0 --separate-stderr acp-replay --topspeed --connect="$PEER_ADDRESS" "$(seed_exchange)"
    assert [ -z "$output" ]
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$(seed_exchange)"
}

@test "a TCP peer on a free port receives the messages on schedule" {
    start_peer tcp --record="$BATS_TEST_TMPDIR/got"
    local f
    f=$(for i in 1 2 3; do iacp "m-00000$i" a b hb 100; done | capture)
    timed_run -0 acp-replay --rate=2 --connect="$PEER_ADDRESS" "$f"
    assert_elapsed 0.9 3
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$f"
}

@test "an IPv6 address is written tcp:[ADDRESS]:PORT" {
    start_peer tcp6 --record="$BATS_TEST_TMPDIR/got" || skip "no IPv6 loopback"
    [[ $PEER_ADDRESS == "tcp:[::1]:"* ]]
    run -0 acp-replay --topspeed --connect="$PEER_ADDRESS" "$(seed_exchange)"
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$(seed_exchange)"
}

@test "what the peer sends back is read and dropped, or shown with --all" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --echo
    run -0 --separate-stderr acp-replay --topspeed --all --connect="$PEER_ADDRESS" "$(seed_exchange)"
    assert_equal "$output" "$(sed 's/^/echo /' "$(seed_exchange)")"
    # a large capture to a peer that answers every line never blocks either side
    local big
    big=$(many 3000 200)
    start_peer "unix:$BATS_TEST_TMPDIR/s2" --echo
    timed_run -0 --separate-stderr acp-replay --topspeed --connect="$PEER_ADDRESS" "$big"
    assert [ -z "$output" ]
    assert_elapsed 0 5
}

@test "a peer that cannot be reached is exit status 2, before anything is read" {
    start_peer tcp
    local address=$PEER_ADDRESS
    kill "$PEER_PID"
    wait "$PEER_PID" || true
    run -2 --separate-stderr acp-replay --connect="$address" "$(seed_exchange)"
    [[ $stderr == *"$address:0: error: cannot connect: Connection refused [peer-connect]"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-replay --connect="unix:$BATS_TEST_TMPDIR/none" "$(seed_exchange)"
    [[ $stderr == *"No such file or directory [peer-connect]"* ]] || fail "$stderr"
}

@test "malformed addresses are usage errors" {
    local a
    for a in tcp:localhost tcp:::1:80 'tcp:[::1]80' tcp::80 unix: udp:x:1 localhost:80; do
        run -2 --separate-stderr acp-replay --connect="$a" /dev/null
        [[ $stderr == *"--connect="* ]] || fail "$a: $stderr"
    done
}

@test "a peer that closes the connection halfway is reported, exit status 2" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --close-after=2
    local f
    f=$(many 20 0)
    timed_run -2 --separate-stderr acp-replay --rate=50 --connect="$PEER_ADDRESS" "$f"
    [[ $stderr == *"the peer closed the connection after "*" messages [peer-closed]"* ]] || fail "$stderr"
    assert_elapsed 0 4
}

@test "a peer that stops reading makes the writes time out" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --no-read
    local big
    big=$(many 3000 400)
    timed_run -2 --separate-stderr acp-replay --topspeed --io-timeout=0.5 --grace=0.2 \
        --connect="$PEER_ADDRESS" "$big"
    [[ $stderr == *"the peer has not read for 0.5 s"*"[peer-timeout]"* ]] || fail "$stderr"
    assert_elapsed 0.4 3
}

# --- peers: a command ---

@test "--exec splits COMMAND into words and no shell interprets them" {
    run -0 --separate-stderr acp-replay --all --exec="printf '[%s]\n' '\$HOME' '*' 'a b' '' x\\ y \"q\\\"d\" |" /dev/null
    assert_output - <<'OUT'
[$HOME]
[*]
[a b]
[]
[x y]
[q"d]
[|]
OUT
}

@test "COMMAND words: blanks, quotes, escapes, empty words and errors" {
    local split=$ACP_BUILD/tests/split-words
    run -0 "$split" $'  a\tb\nc  '
    assert_output $'[a]\n[b]\n[c]'
    run -0 "$split" "'it''s' \"a \\\"b\\\" \\\\ \\n\" ''"
    assert_output $'[its]\n[a "b" \\ \\n]\n[]'
    run -0 "$split" "x\\ y a\\'b \"\" 'a\\b'"
    assert_output $'[x y]\n[a\'b]\n[]\n[a\\b]'
    run -0 "$split" "pre'mid dle'post"
    assert_output "[premid dlepost]"
    run -1 "$split" "'open"
    assert_output "error: unclosed single quote"
    run -1 "$split" 'say "open'
    assert_output "error: unclosed double quote"
    run -1 "$split" 'end\'
    assert_output "error: a backslash ends the command"
    run -1 "$split" '   '
    assert_output "error: no command"
    run -2 --separate-stderr acp-replay --exec="sh -c 'unclosed" /dev/null
    [[ $stderr == *"--exec: unclosed single quote"* ]] || fail "$stderr"
}

# Issue 39: a last line the peer closed in the middle of is no line: written as one it passed for
# a message. It is reported as acp-send reports it (peer-garbage), and not written; a whole JSON
# value whose newline alone is missing is a message, and is.
@test "the peer's lines come whole: a last line cut short is reported, not written; an over-long line cut" {
    run -0 --separate-stderr acp-replay --all --exec="printf 'one\n{\"v\":'" /dev/null
    assert_output 'one'
    [[ $stderr == *"acp-replay: printf:2: warning: the peer wrote a line that is not a message (cut short: the peer closed in the middle of it): '{\"v\":'; ignored [peer-garbage]"* ]] ||
        fail "$stderr"
    run -0 --separate-stderr acp-replay --all --exec="printf 'one\n{\"v\":1}'" /dev/null
    assert_output $'one\n{"v":1}'
    assert_equal "$stderr" ''
    run -1 --separate-stderr acp-replay --strict --all --exec="printf 'two'" /dev/null
    [[ $stderr == *"[peer-garbage]"* ]] || fail "$stderr"
    run -0 --separate-stderr acp-replay --all --max-line-bytes=4 --exec="printf '123456789\nok\n'" /dev/null
    assert_output $'1234\nok'
}

@test "an agent that writes an over-long line writes garbage" {
    run -1 --separate-stderr acp-replay --as=forager-07 --max-line-bytes=450 \
        --exec="sh -c 'read -r m; printf \"{\\\"pad\\\":\\\"%0500d\\\"}\\n\" 0; cat >/dev/null'" "$(seed_exchange)"
    [[ $stderr == *"error: the agent wrote a line that is not a message (longer than --max-line-bytes): '{\"pad\":\"000"*"[agent-garbage]" ]] ||
        fail "$stderr"
}

@test "a command that cannot be run is exit status 2" {
    run -2 --separate-stderr acp-replay --exec=no-such-command-here "$(seed_exchange)"
    [[ $stderr == *"no-such-command-here:0: error: cannot run the command: No such file or directory [peer-connect]"* ]] ||
        fail "$stderr"
}

@test "the command's stderr passes through; its stdout is read" {
    run -0 --separate-stderr acp-replay --topspeed --exec="sh -c 'cat >/dev/null; echo to-stderr >&2; echo to-stdout'" \
        "$(seed_exchange)"
    assert_equal "$stderr" "to-stderr"
    assert [ -z "$output" ]
}

@test "a command that hands its input to a process it leaves running still gets every message" {
    local got=$BATS_TEST_TMPDIR/got
    # without --as, the command's exit does not end its output: the processes it left holding
    # its pipes read on, and at the end have --grace to finish
    run -0 --separate-stderr timeout 30 acp-replay --speed=100 --grace=0.5 \
        --exec="sh -c 'exec 3<&0; cat <&3 >$got & sleep 30 & exit 0'" "$(seed_exchange)"
    assert [ -z "$stderr" ]
    assert_equal "$(grep -c . "$got")" 3
}

@test "a command that exits early is reported with its status, exit status 2" {
    local f
    f=$(many 20 0)
    run -2 --separate-stderr acp-replay --rate=50 --exec="sh -c 'read -r l; exit 3'" "$f"
    [[ $stderr == *"the peer exited with status 3 after "*"[peer-closed]"* ]] || fail "$stderr"
}

@test "a command that ignores the end of its input is killed after --grace, and reaped" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    timed_run -0 acp-replay --topspeed --grace=0.5 \
        --exec="sh -c 'echo \$\$ >$pidfile; trap \"\" TERM; exec sleep 60'" "$(seed_exchange)"
    assert_elapsed 0.4 3
    assert_gone "$pidfile"
}

@test "Ctrl-C ends the replay at once with status 130, and the command goes too" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    local f
    f=$(for i in $(seq 20); do iacp "m-$(printf %06x "$i")" a b hb "$((100 + i))"; done | capture)
    acp-replay --exec="sh -c 'echo \$\$ >$pidfile; exec cat >/dev/null'" "$f" >/dev/null 2>&1 3>&- &
    local pid=$!
    sleep 0.5
    kill -INT "$pid"
    local t0=$EPOCHREALTIME status=0
    wait "$pid" || status=$?
    assert_equal "$status" 130
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 1.5) }' || fail "slow to stop"
    assert_gone "$pidfile"
}

@test "a reader that goes away stops the replay quietly, with a command too" {
    run -0 bash -c 'acp-replay --topspeed --loop=0 "$1" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$(seed_exchange)"
    assert_output 141
    run -0 --separate-stderr bash -c \
        'acp-replay --topspeed --loop=0 --all --exec=cat "$1" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$(seed_exchange)"
    assert_output 141
    assert [ -z "$stderr" ]
}

# --- completion ---

# What the bash completion replies to LINE, the cursor at its end, with bash's default
# COMP_WORDBREAKS or with BREAKS: complete_line LINE [BREAKS]. The function reads the word under
# the cursor from COMP_LINE; COMP_WORDBREAKS decides what bash replaces with each reply.
complete_line() {
    bash -c '
        [ "$2" = default ] || COMP_WORDBREAKS=$2
        compopt() { :; }
        source "$1"
        COMP_LINE=$3
        COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<<"$COMP_LINE"
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _acp_replay
        printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$TESTS_DIR/../completions/acp-replay.bash" "${2-default}" "$1"
}

@test "the bash completion completes values the way bash splits the words" {
    run -0 complete_line "acp-replay --diagnostics=j"
    assert_output json
    run -0 complete_line "acp-replay --color="
    assert_output $'auto\nalways\nnever'
    run -0 complete_line "acp-replay --connect=un"
    assert_output "unix:"
    mkdir -p "$BATS_TEST_TMPDIR/socks" && : >"$BATS_TEST_TMPDIR/socks/agent.sock"
    run -0 complete_line "acp-replay --connect=unix:$BATS_TEST_TMPDIR/socks/ag"
    assert_output "$BATS_TEST_TMPDIR/socks/agent.sock"
    run -0 complete_line "acp-replay --exec=acp-repla"
    assert_output "acp-replay"
    run -0 complete_line "acp-replay --rewrite-i"
    assert_output "--rewrite-ids"
    # without "=" and ":" among the break characters, each reply is the whole word
    run -0 complete_line "acp-replay --color=al" $' \t\n'
    assert_output $'--color=always'
    run -0 complete_line "acp-replay --connect=unix:$BATS_TEST_TMPDIR/socks/ag" $' \t\n'
    assert_output "--connect=unix:$BATS_TEST_TMPDIR/socks/agent.sock"
}

# --- the live-agent mode ---

@test "the example forager behaves as the IACP and FIPA seed exchanges recorded" {
    run -0 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" "$(seed_exchange)"
    assert [ -z "$output" ]
    assert [ -z "$stderr" ]
    run -0 --separate-stderr acp-replay --as=agent_456 --exec="$FORAGER agent_456" \
        "$EXAMPLES/fipa-exchange.jsonl"
    assert [ -z "$stderr" ]
    run -0 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --all --stats "$(seed_exchange)"
    assert_equal "${#lines[@]}" 2
    [[ $stderr == *"1 sent"*"2 replies expected, 2 matched, 0 differences"* ]] || fail "$stderr"
}

@test "the agent's own ids are mapped: a later message names the live proposal" {
    run -0 --separate-stderr acp-replay --as=agent_456 --exec="$FORAGER --log=$BATS_TEST_TMPDIR/log agent_456" \
        "$REPLAY_FIXTURES/fipa-cfp.jsonl"
    assert [ -z "$stderr" ]
    # the recording's accept_proposal named prop-7; the live forager had proposed p-1
    assert_equal "$(sed -n 2p "$BATS_TEST_TMPDIR/log" | jq -r .in_reply_to)" p-1
    # with the mapping broken (another id in the recording), the forager does not understand
    run -1 --separate-stderr acp-replay --as=agent_456 --exec="$FORAGER agent_456" --reply-timeout=0.2 \
        <(sed '3s/prop-7/prop-9/' "$REPLAY_FIXTURES/fipa-cfp.jsonl")
    [[ $stderr == *":4: error: the agent answered the message with not_understood where the recording has inform (see line 3) [agent-kind]"* ]] ||
        fail "$stderr"
}

@test "a different field is a diagnostic at the recorded reply, exit 1" {
    local f
    f=$(sed 's/"status":"ok"/"status":"failed"/' "$(seed_exchange)" | capture)
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    assert_equal "$stderr" "acp-replay: $f:3: error: the agent's task.result differs in 'body.status': recorded \"failed\", live \"ok\" (see line 1) [agent-differs]"
    # --stats counts the live agent's findings among the run's errors (issue 38), in JSON too
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --stats "$f"
    [[ $stderr == *"acp-replay: 3 records: 3 valid, 0 rejected, 0 blank; 0 warnings, 1 errors"* ]] || fail "$stderr"
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --stats --diagnostics=json "$f"
    assert_equal "$(jq -c 'select(.type == "stats") | [.warnings, .errors]' <<<"$stderr")" '[0,1]'
    # --compare chooses the fields; an empty list compares none
    f=$(sed 's|cm://index/3|cm://index/4|' "$(seed_exchange)" | capture)
    run -0 acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --compare=body.artifacts.0 "$f"
    [[ $stderr == *"differs in 'body.artifacts.0': recorded \"cm://index/4\", live \"cm://index/3\""* ]] || fail "$stderr"
    f=$(sed 's/"status":"ok"/"status":"failed"/' "$(seed_exchange)" | capture)
    run -0 acp-replay --as=forager-07 --exec="$FORAGER" --compare= "$f"
    # the sender and the receiver are always compared
    f=$(sed '3s/"to":"queen"/"to":"queen-2"/' "$(seed_exchange)" | capture)
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    [[ $stderr == *":3: error: the agent's task.result differs in its receiver: recorded \"queen-2\", live \"queen\""* ]] || fail "$stderr"
}

@test "a different number is shown as the recording writes it" {
    local f
    f=$(sed '3s/"status":"ok"/"status":"ok","score":0.1,"weights":[19.99,2.0]/' "$(seed_exchange)" | capture)
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --compare=body.score,body.weights "$f"
    assert_equal "$stderr" "acp-replay: $f:3: error: the agent's task.result differs in 'body.score': recorded 0.1, live (absent) (see line 1) [agent-differs]
acp-replay: $f:3: error: the agent's task.result differs in 'body.weights': recorded [19.99,2.0], live (absent) (see line 1) [agent-differs]"
}

@test "a reply of another kind, a missing reply and an extra reply are each reported" {
    local f
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.reject 100 q-1 '{"reason":"busy"}'
    } | capture)
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --reply-timeout=0.3 "$f"
    assert_equal "$stderr" "acp-replay: $f:2: error: the agent answered the message with task.accept where the recording has task.reject (see line 1) [agent-kind]
acp-replay: $f:1: error: the agent answered this message with task.result, which the recording does not have [agent-extra]"
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.accept 100 q-1
        iacp m-2 forager-07 queen task.result 100 q-1 '{"status":"ok"}'
        iacp m-3 forager-07 queen task.result 100 q-1 '{"status":"ok"}'
    } | capture)
    timed_run -1 --separate-stderr acp-replay --as=forager-07 --exec="$ACCEPTING" --reply-timeout=0.3 "$f"
    assert_equal "$stderr" "acp-replay: $f:3: error: no task.result from the agent in answer to the message (waited 0.3 s) (see line 1) [agent-missing]
acp-replay: $f:4: error: no task.result from the agent in answer to the message (waited 0.3 s) (see line 1) [agent-missing]"
    assert_elapsed 0.2 2
    # the forager's one final task.result ends the conversation: the second cannot come
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER" --reply-timeout=0.3 "$f"
    assert_equal "$stderr" "acp-replay: $f:4: error: no task.result from the agent in answer to the message (the agent's task.result ended the conversation) (see line 1) [agent-missing]"
}

@test "a reply may take twice its recorded delay before it is missing" {
    local f
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.accept 100 q-1
        iacp m-2 forager-07 queen task.result 100 q-1 '{"status":"ok"}'
        iacp m-3 forager-07 queen tool.query 100.5 q-1
    } | capture)
    # an agent that accepts and says no more: the conversation stays open (its accept, recorded
    # at once, has --reply-timeout: a loaded machine may start the agent later than 0.1 s)
    timed_run -1 --separate-stderr acp-replay --as=forager-07 --exec="$ACCEPTING" --reply-timeout=0.4 "$f"
    [[ $stderr == *"no tool.query from the agent in answer to the message (waited 1.0 s, twice the recorded delay)"* ]] ||
        fail "$stderr"
    assert_elapsed 0.9 3
}

@test "an answer that ends the conversation makes every reply still recorded missing at once" {
    local f
    # the seed exchange, whose task.result came 80 s after the assign, with a node the forager
    # rejects: before, the task.result was awaited twice those 80 s
    f=$(sed 's|tg:crawl-index/3|tg:reject-index/3|' "$(seed_exchange)" | capture)
    run -1 --separate-stderr timeout 30 acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    assert_equal "$stderr" "acp-replay: $f:2: error: the agent answered the message with task.reject where the recording has task.accept (see line 1) [agent-kind]
acp-replay: $f:3: error: no task.result from the agent in answer to the message (the agent's task.reject ended the conversation) (see line 1) [agent-missing]"
    # a FIPA refusal ends a request: the recorded agree and inform are settled with it
    f=$({
        printf '%s\n' '{"performative":"request","sender":"c","receiver":"agent_123","content":{"action":"refuse"},"reply_with":"r-1","timestamp":"2024-01-01T00:00:00Z"}'
        printf '%s\n' '{"performative":"agree","sender":"agent_123","receiver":"c","content":{},"in_reply_to":"r-1","timestamp":"2024-01-01T00:00:01Z"}'
        printf '%s\n' '{"performative":"inform","sender":"agent_123","receiver":"c","content":{"status":"processed"},"in_reply_to":"r-1","timestamp":"2024-01-01T00:01:30Z"}'
    } | capture)
    run -1 --separate-stderr timeout 30 acp-replay --as=agent_123 --exec="$FORAGER agent_123" "$f"
    assert_equal "$stderr" "acp-replay: $f:2: error: the agent answered the message with refuse where the recording has agree (see line 1) [agent-kind]
acp-replay: $f:3: error: no inform from the agent in answer to the message (the agent's refuse ended the conversation) (see line 1) [agent-missing]"
}

@test "a missing partial result is reported at its own line, not at the final one's" {
    local f
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.accept 100 q-1
        iacp m-2 forager-07 queen task.result 100 q-1 '{"partial":true,"status":"ok"}'
        iacp m-3 forager-07 queen task.result 100 q-1 '{"status":"ok","artifacts":["cm://a"]}'
    } | capture)
    # the forager sends no partial result: its final one is the recorded final one
    run -1 --separate-stderr timeout 30 acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    assert_equal "$stderr" "acp-replay: $f:3: error: no partial task.result from the agent in answer to the message (the agent's task.result ended the conversation) (see line 1) [agent-missing]"
}

@test "messages from the agent that answer nothing are not compared" {
    local f
    f=$({
        iacp m-0 forager-07 queen hb 99 "" '{"slots":1}'
        cat "$(seed_exchange)"
    } | capture)
    run -0 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER --hb" "$f"
    assert [ -z "$stderr" ]
    run -0 --separate-stderr acp-replay --as=forager-07 --exec="$FORAGER --hb" "$(seed_exchange)"
    assert [ -z "$stderr" ]
}

@test "lockstep: the next message waits for the replies; --timed keeps the recorded timing" {
    local f log=$BATS_TEST_TMPDIR/log agent=$BATS_TEST_TMPDIR/slow-agent
    f=$({
        iacp q-1 queen f task.assign 100
        iacp m-1 f queen task.accept 100 q-1
        iacp q-2 queen f task.assign 100
    } | capture)
    # notes when each message arrives, and accepts the first one a second late
    cat >"$agent" <<AGENT
(sleep 1; echo '{"v":"1.1","id":"m-9","from":"f","to":"queen","kind":"task.accept","ref":"q-1","ts":1}') &
while read -r line; do date +%s.%N >>"$log"; done
AGENT
    run -0 --separate-stderr acp-replay --as=f --exec="sh $agent" "$f"
    assert [ -z "$stderr" ]
    awk 'NR == 1 { a = $1 } NR == 2 { exit !($1 - a >= 0.9) }' "$log" ||
        fail "the second message did not wait for the reply: $(cat "$log")"
    rm "$log"
    run -0 --separate-stderr acp-replay --as=f --timed --exec="sh $agent" "$f"
    assert [ -z "$stderr" ]
    awk 'NR == 1 { a = $1 } NR == 2 { exit !($1 - a < 0.5) }' "$log" ||
        fail "--timed waited for the reply: $(cat "$log")"
}

@test "--timed sends the messages to the agent at their recorded times" {
    local f
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.accept 100 q-1
        iacp m-2 forager-07 queen task.result 100 q-1 '{"status":"ok","artifacts":["cm://a"]}'
        iacp q-2 queen forager-07 task.assign 101 "" '{"node":"tg:crawl-b"}'
        iacp m-3 forager-07 queen task.accept 101 q-2
        iacp m-4 forager-07 queen task.result 101 q-2 '{"status":"ok","artifacts":["cm://b"]}'
    } | capture)
    timed_run -0 --separate-stderr acp-replay --as=forager-07 --timed --exec="$FORAGER" "$f"
    assert [ -z "$stderr" ]
    assert_elapsed 0.9 2
    timed_run -0 acp-replay --as=forager-07 --exec="$FORAGER" "$f"
    assert_elapsed 0 0.8
}

@test "an agent that crashes is reported at the awaited reply, and the replay ends" {
    timed_run -1 --separate-stderr acp-replay --as=forager-07 --exec="sh $AGENTS/crashing.sh" "$(seed_exchange)"
    assert_equal "$stderr" "acp-replay: $(seed_exchange):2: error: the agent was killed by signal 11 (Segmentation fault) while its task.accept was awaited; the replay ends (see line 1) [agent-exited]"
    assert_elapsed 0 2
}

@test "an agent that exits while what it started holds its stdout is reported as exited at once" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    # before, its pipe stayed open and the replay waited the 5 s of --reply-timeout for the
    # task.result, then called the agent hanging
    run -1 --separate-stderr timeout 30 acp-replay --as=forager-07 \
        --exec="$AGENTS/leaving.sh $pidfile" "$(seed_exchange)"
    assert_equal "$stderr" "acp-replay: $(seed_exchange):3: error: the agent exited with status 0 while its task.result was awaited; the replay ends (see line 1) [agent-exited]"
    assert_ended "$pidfile"
}

@test "an agent that hangs is reported, killed and reaped; the replay never hangs" {
    local f
    f=$({
        iacp q-1 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-a"}'
        iacp m-1 forager-07 queen task.accept 100 q-1
        iacp q-2 queen forager-07 task.assign 100 "" '{"node":"tg:crawl-b"}'
        iacp m-2 forager-07 queen task.accept 100 q-2
    } | capture)
    local pidfile=$BATS_TEST_TMPDIR/pid
    timed_run -1 --separate-stderr acp-replay --as=forager-07 --reply-timeout=0.5 --grace=0.5 \
        --exec="sh -c 'echo \$\$ >$pidfile; exec sh $AGENTS/hanging.sh'" "$f"
    assert_equal "$stderr" "acp-replay: $f:2: error: the agent wrote nothing in the 0.5 s after the message was sent, where the recording has task.accept; it seems to hang, and the replay ends (see line 1) [agent-hang]"
    assert_elapsed 0.9 3
    assert_gone "$pidfile"
}

@test "an agent that does not read its input is a hang too" {
    local big
    big=$(many 3000 400 f)
    timed_run -1 --separate-stderr acp-replay --as=f --io-timeout=0.5 --grace=0.2 --exec="sh $AGENTS/hanging.sh" "$big"
    [[ $stderr == *"the agent has not read its input for 0.5 s; it seems to hang, and the replay ends [agent-hang]"* ]] ||
        fail "$stderr"
    assert_elapsed 0.4 3
}

@test "agent-garbage quotes a line with a NUL whole, the NUL escaped" {
    local agent="$BATS_TEST_TMPDIR/nul-agent"
    printf '#!/bin/sh\nread -r message\nprintf "ok\\000 then more\\n"\n' >"$agent"
    run -1 --separate-stderr acp-replay --as=forager-07 --exec="sh $agent" "$(seed_exchange)"
    [[ $stderr == *"error: the agent wrote a line that is not a message ("*"): 'ok\x00 then more'; the replay ends [agent-garbage]" ]] || fail "$stderr"
}

@test "an agent that answers garbage is reported, and the replay ends" {
    timed_run -1 --separate-stderr acp-replay --as=forager-07 --exec="sh $AGENTS/garbage.sh" "$(seed_exchange)"
    [[ $stderr == *"iacp-exchange.jsonl:1: error: the agent wrote a line that is not a message ("*"): 'ok, got it'; the replay ends [agent-garbage]" ]] ||
        fail "$stderr"
    assert_equal "$(grep -c . <<<"$stderr")" 1
    assert_elapsed 0 2
}

@test "the live-agent mode over a TCP connection" {
    start_peer tcp -- "$FORAGER"
    run -0 --separate-stderr acp-replay --as=forager-07 --connect="$PEER_ADDRESS" --all "$(seed_exchange)"
    assert [ -z "$stderr" ]
    assert_equal "$(printf '%s\n' "${lines[@]}" | jq -r .kind | paste -sd' ')" "task.accept task.result"
}

@test "the agent's stdin is closed at the end, so it ends at once" {
    timed_run -0 acp-replay --as=forager-07 --exec="$FORAGER" --grace=10 "$(seed_exchange)"
    assert_elapsed 0 2
}

@test "the live-agent options go together" {
    run -2 --separate-stderr acp-replay --as=forager-07 "$(seed_exchange)"
    [[ $stderr == *"--as tests a live agent: it needs --exec=COMMAND or --connect=ADDRESS"* ]] || fail "$stderr"
    run -2 acp-replay --timed "$(seed_exchange)"
    run -2 acp-replay --reply-timeout=1 "$(seed_exchange)"
    run -2 acp-replay --compare=body "$(seed_exchange)"
    run -2 --separate-stderr acp-replay --as=f --exec=cat --speed=2 "$(seed_exchange)"
    [[ $stderr == *"lockstep"* ]] || fail "$stderr"
    run -2 acp-replay --exec=cat --connect=unix:/x "$(seed_exchange)"
    run -2 acp-replay --all "$(seed_exchange)"
}

# --- network faults: what tests above leave (refused, closed between messages, not reading) ---

# N hb messages, each padded with BYTES bytes (many's awk cannot pad beyond a few kB): padded N BYTES
padded() {
    local pad i
    pad=$(head -c "$2" /dev/zero | tr '\0' x)
    for ((i = 1; i <= $1; i++)); do
        printf '{"v":"1.1","id":"m-%06x","from":"a","to":"b","kind":"hb","ts":100,"body":{"pad":"%s"}}\n' "$i" "$pad"
    done | capture
}

@test "a peer that closes in the middle of a message is reported, exit status 2, no hang" {
    start_peer "unix:$BATS_TEST_TMPDIR/s" --close-after-bytes=150000
    local big
    big=$(padded 20 100000)
    timed_run -2 --separate-stderr acp-replay --topspeed --io-timeout=5 --connect="$PEER_ADDRESS" "$big"
    [[ $stderr == *"the peer closed the connection after "*" messages [peer-closed]"* ]] || fail "$stderr"
    assert_equal "$(grep -c . <<<"$stderr")" 1
    assert_elapsed 0 4
}

@test "a peer that sends a 100 MB line: it is cut at --max-line-bytes and never held whole" {
    skip_under valgrind "100 MB"
    start_peer "unix:$BATS_TEST_TMPDIR/s" --send-line=100000000 --record="$BATS_TEST_TMPDIR/got"
    local f=$BATS_TEST_TMPDIR/cap limit=()
    for i in 1 2 3; do iacp "m-00000$i" a b hb 100; done >"$f"
    # 100 MB of address space more than the tool needs, but not 100 MB of line on top
    [[ $ACP_BIN == *asan* ]] || limit=(ulimit -v 150000 ';')
    timed_run -0 --separate-stderr bash -c "${limit[*]} exec acp-replay --topspeed --all --connect='$PEER_ADDRESS' '$f' | wc -c"
    assert_output "$((1024 * 1024 + 1))"
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$f"
    assert_elapsed 0 30
    # a live agent that answers with one is writing garbage
    run -1 --separate-stderr timeout 60 acp-replay --as=forager-07 \
        --exec="sh -c 'read -r l; head -c 100000000 /dev/zero | tr \"\\0\" x; echo; cat >/dev/null'" "$(seed_exchange)"
    [[ $stderr == *"the agent wrote a line that is not a message (longer than --max-line-bytes): 'xxx"*"[agent-garbage]" ]] ||
        fail "$stderr"
}

@test "a slow peer gets every message, as long as it reads within --io-timeout" {
    skip_under valgrind "a timing test"
    # 330 kB at 200 kB/s, beyond what the socket holds: the writes wait for the peer again and
    # again (the kernel wakes a writer once half the buffer is free, ~0.5 s here)
    start_peer "unix:$BATS_TEST_TMPDIR/s" --slow=5 --record="$BATS_TEST_TMPDIR/got"
    local big
    big=$(padded 300 1000)
    timed_run -0 --separate-stderr acp-replay --topspeed --io-timeout=2 --connect="$PEER_ADDRESS" "$big"
    assert_equal "$stderr" ""
    wait "$PEER_PID"
    cmp "$BATS_TEST_TMPDIR/got" "$big"
    assert_elapsed 0.5 15
}
