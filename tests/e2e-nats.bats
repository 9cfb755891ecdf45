load test_helper
load bus_helper

# The README's NATS recipe on a real server: Debian's nats-server on a free loopback port, started
# by each test and stopped by its teardown. The `nats` CLI is not in Debian: its part is played by
# tests/drivers/nats-lines, a small client of NATS's text protocol (PUB, SUB, MSG), which reads and
# writes JSON Lines as `nats pub --send-on=newline` and `nats sub --raw` do.

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

setup_file() {
    build_test_programs
}

setup() {
    NATS_SERVER=$(command -v nats-server || command -v /usr/sbin/nats-server) ||
        skip "needs nats-server (Debian: nats-server; scripts/deps installs it)"
    NATS=$TESTS_DIR/drivers/nats-lines
    start_server
}

teardown() {
    stop_started
}

# Starts nats-server on a free loopback port and sets PORT once it accepts clients.
start_server() {
    local log=$BATS_TEST_TMPDIR/nats-server.log try
    for try in $(seq 20); do
        PORT=$(random_port)
        start_bg "$NATS_SERVER" -a 127.0.0.1 -p "$PORT" >"$log" 2>&1
        await_ready "$LAST_PID" "$log" 'Server is ready' && return 0
        stop_group "$LAST_PID"
    done
    fail "no server could be started (try $try): $(cat "$log")"
}

# Starts a subscriber to SUBJECT that takes COUNT messages into the shell pipeline PIPELINE (which
# reads them on stdin, in folder $BATS_TEST_TMPDIR), and waits until the server has its
# subscription, so that nothing published afterwards can race it; sets SUB.
start_subscriber() {
    local ready=$BATS_TEST_TMPDIR/ready.$RANDOM i
    start_bg bash -c 'cd "$1" && "$2" sub "$3" "$4" "$5" "$6" | eval "$7"' _ "$BATS_TEST_TMPDIR" \
        "$NATS" "$PORT" "$1" "$2" "$ready" "$3"
    SUB=$LAST_PID
    for i in $(seq 200); do
        [ -e "$ready" ] && return 0
        kill -0 "$SUB" 2>/dev/null || fail "the subscriber ended"
        sleep 0.05
    done
    fail "the subscriber never subscribed"
}

@test "NATS: a capture replayed into the server reaches a subscriber to colony.> once and in order, and acp-trace tells the file's story" {
    local d=$BATS_TEST_TMPDIR n
    "$ACP_BUILD/gen-colony" --faults="$d/faults" 3000 8 5 >"$d/capture"
    n=$(grep -c . "$d/capture")
    # validate live, trace live (tee only keeps copies)
    start_subscriber 'colony.>' "$n" \
        'tee received | acp-validate 2>validate.err | tee validated | acp-trace >live.sum 2>trace.err'
    # replay into the bus
    timeout 60 bash -c 'acp-replay --speed=500 "$1" | "$2" pub "$3" colony.bus' _ "$d/capture" "$NATS" "$PORT" ||
        fail "the replay into the server failed"
    wait_for_end "$SUB" 60 || fail "$(wc -l <"$d/received") of $n messages came"

    cmp "$d/received" "$d/capture" || fail "what arrived is not what was sent"
    acp-validate <"$d/received" 2>"$d/file.err" >"$d/file.valid" || true
    cmp "$d/file.valid" "$d/validated" || fail "the live validation differs"
    diff "$d/file.err" "$d/validate.err" || fail "the live findings differ"
    [ "$(grep -c '' "$d/validate.err")" -eq "$(grep -c '' "$d/faults")" ] || fail "findings missing"
    acp-trace <"$d/validated" >"$d/file.sum" 2>/dev/null || true
    [ "$(grep -c '"type":"conversation"' "$d/live.sum")" -gt 100 ] || fail "too few summaries"
    cmp "$d/live.sum" "$d/file.sum" || fail "the live summaries differ from the file's"
}

@test "NATS: capture to a file, then replay the file into the bus, rewritten ids and all" {
    local d=$BATS_TEST_TMPDIR n
    "$ACP_BUILD/gen-colony" 1000 4 3 >"$d/traffic"
    n=$(grep -c . "$d/traffic")
    # capture what the colony says
    start_subscriber 'colony.>' "$n" 'cat >capture.jsonl'
    "$NATS" pub "$PORT" colony.bus <"$d/traffic"
    wait_for_end "$SUB" 60
    cmp "$d/capture.jsonl" "$d/traffic" || fail "the capture is not the traffic"
    # replay it into colony.replay with fresh ids: what comes is valid, and traces as the capture
    start_subscriber 'colony.replay' "$n" 'cat >replayed.jsonl'
    timeout 60 bash -c 'acp-replay --topspeed --rewrite-ids "$1" | "$2" pub "$3" colony.replay' _ \
        "$d/capture.jsonl" "$NATS" "$PORT" || fail "the replay failed"
    wait_for_end "$SUB" 60
    run -0 --separate-stderr acp-validate "$d/replayed.jsonl"
    assert_equal "$stderr" ""
    [ "$(grep -c '' "$d/replayed.jsonl")" -eq "$n" ] || fail "messages lost"
    diff <(acp-trace "$d/capture.jsonl" | jq -c '[.protocol, .participants, .messages, .outcome]') \
        <(acp-trace "$d/replayed.jsonl" | jq -c '[.protocol, .participants, .messages, .outcome]') ||
        fail "the replay tells another story"
    ! cmp -s "$d/replayed.jsonl" "$d/capture.jsonl" || fail "the ids were not rewritten"
}
