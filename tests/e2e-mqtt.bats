load test_helper
load bus_helper

# End to end on a real MQTT broker: Debian's mosquitto, on a free loopback port, started by each
# test and stopped by its teardown with every client the test started. The tools run as users
# run them: acp-replay into mosquitto_pub, mosquitto_sub into acp-validate and acp-trace, and
# acp-send --wait to the example forager, which sits behind the broker. Both clients use QoS 1,
# so that the broker neither drops nor repeats a message.

# No test may hang: bats fails one that runs longer than this.
BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

setup_file() {
    build_test_programs
}

setup() {
    MOSQUITTO=$(command -v mosquitto || command -v /usr/sbin/mosquitto) &&
        command -v mosquitto_pub >/dev/null && command -v mosquitto_sub >/dev/null ||
        skip "needs mosquitto, mosquitto_pub and mosquitto_sub (Debian: mosquitto mosquitto-clients; scripts/deps installs them)"
    FORAGER=$ACP_BUILD/forager
    start_broker
}

teardown() {
    stop_started
}

# The probe: a heartbeat, which belongs to no conversation. It is retained, so that a subscriber
# gets it exactly once whether it subscribed before it was published or after.
PROBE='{"v":"1.1","id":"m-ffffff","from":"e2e-probe","to":"queen","kind":"hb","ts":1312284100}'

# Publishes the probe until the subscriber whose output is file $1 has seen it (as line $2, by
# default the probe itself), so that nothing published afterwards can race the subscription. As
# the broker keeps it, it is published again only if it has not come within 10 s (a subscriber
# that subscribed meanwhile would see it twice).
probe_until_seen() {
    local i
    for i in $(seq 600); do
        if [ $((i % 200)) -eq 1 ]; then
            mosquitto_pub -p "$PORT" -q 1 -r -t colony/probe -m "$PROBE" || fail "cannot publish the probe"
        fi
        grep -qxF "${2:-$PROBE}" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "the subscriber never saw the probe"
}

@test "a capture replayed into the broker reaches mosquitto_sub once and in order, and acp-trace tells the file's story" {
    local d=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-colony" --faults="$d/faults" 3000 8 5 >"$d/capture"
    local n
    n=$(grep -c . "$d/capture")
    # the subscriber: N messages and the probe, validated and traced live (tee only keeps copies)
    start_bg bash -c 'mosquitto_sub -p "$1" -q 1 -C "$2" -t "colony/#" | tee "$3/received" |
        acp-validate 2>"$3/validate.err" | tee "$3/validated" | acp-trace >"$3/live.sum" 2>"$3/trace.err"' \
        _ "$PORT" $((n + 1)) "$d"
    local sub=$LAST_PID
    probe_until_seen "$d/received"
    # the replay, 500 times as fast as recorded (3000 messages over 75 s of capture time), in
    # two halves: the summaries of the first come out while the bus is still open
    head -1500 "$d/capture" >"$d/first"
    tail -n +1501 "$d/capture" >"$d/second"
    timeout 60 bash -c 'acp-replay --speed=500 "$1" | tee "$2/sent" | mosquitto_pub -p "$3" -l -q 1 -t colony/bus' \
        _ "$d/first" "$d" "$PORT" || fail "the replay into the broker failed"
    local i
    for i in $(seq 400); do
        [ "$(grep -c '' "$d/live.sum")" -gt 100 ] && break
        sleep 0.05
    done
    [ "$(grep -c '' "$d/live.sum")" -gt 100 ] || fail "no summary came while the bus was open"
    kill -0 "$sub" 2>/dev/null || fail "the subscriber ended early"
    timeout 60 bash -c 'acp-replay --speed=500 "$1" | tee -a "$2/sent" | mosquitto_pub -p "$3" -l -q 1 -t colony/bus' \
        _ "$d/second" "$d" "$PORT" || fail "the replay into the broker failed"
    wait_for_end "$sub" 60 || fail "$(wc -l <"$d/received") of $((n + 1)) messages came: $(cat "$d/mosquitto.log")"

    cmp "$d/sent" "$d/capture" || fail "acp-replay changed the capture"
    # every message once, in order, after the probe
    [ "$(head -1 "$d/received")" = "$PROBE" ] || fail "the probe is not first: $(head -1 "$d/received")"
    tail -n +2 "$d/received" | cmp - "$d/capture" || fail "what arrived is not what was sent"
    # acp-validate kept and found live what it keeps and finds in the file, and what it finds is
    # what the generator put in (one line down, after the probe)
    acp-validate <"$d/received" 2>"$d/file.err" >"$d/file.valid" || true
    cmp "$d/file.valid" "$d/validated" || fail "the live validation differs"
    diff "$d/file.err" "$d/validate.err" || fail "the live findings differ"
    diff <(awk '{ print $1 + 1, $2 }' "$d/faults" | sort) \
        <(sed -n 's/^acp-validate: <stdin>:\([0-9]*\): .* \[\(.*\)\]$/\1 \2/p' "$d/validate.err" | sort) ||
        fail "the findings are not the faults put in"
    # the live summaries are those of acp-trace on the validated file
    acp-trace <"$d/validated" >"$d/file.sum" 2>/dev/null || true
    [ "$(grep -c '"type":"conversation"' "$d/live.sum")" -gt 100 ] || fail "too few summaries: $(wc -l <"$d/live.sum")"
    cmp "$d/live.sum" "$d/file.sum" || fail "the live summaries differ from the file's"
}

@test "mosquitto_sub -v prefixes the topic, which is not JSON Lines: acp-validate rejects every line" {
    local d=$BATS_TEST_TMPDIR
    start_bg bash -c 'mosquitto_sub -p "$1" -q 1 -v -C 3 -t "colony/#" >"$2/received"' _ "$PORT" "$d"
    local sub=$LAST_PID
    probe_until_seen "$d/received" "colony/probe $PROBE"
    head -2 "$EXAMPLES/iacp-exchange.jsonl" | mosquitto_pub -p "$PORT" -l -q 1 -t colony/bus
    wait_for_end "$sub" 30
    run -1 --separate-stderr acp-validate "$d/received"
    assert_output ''
    [ "$(grep -c 'error' <<<"$stderr")" -eq 3 ] || fail "$stderr"
    assert_equal "$(head -1 "$d/received")" "colony/probe $PROBE"
}

# The example forager behind the broker: what comes on colony/agents/NAME goes to its stdin, and
# what it writes goes to colony/agents/NAME/out. Its subscription is a persistent session (-c, a
# client id of its own) made before it starts, so that the broker keeps what is published to it
# from then on, however late its client connects.
start_agent() {
    local name=$1 id=e2e-agent-$1
    mosquitto_sub -p "$PORT" -q 1 -c -i "$id" -t "colony/agents/$name" -E || fail "cannot subscribe"
    start_bg bash -c 'mosquitto_sub -p "$1" -q 1 -c -i "$2" -t "colony/agents/$3" | "$4" --log="$5" "$3" |
        mosquitto_pub -p "$1" -q 1 -l -t "colony/agents/$3/out"' _ "$PORT" "$id" "$name" "$FORAGER" \
        "$BATS_TEST_TMPDIR/$name.log"
}

# The bridge acp-send --exec runs is the README's, as it is written there: its stdin goes to
# colony/agents/NAME, and what the agent publishes on colony/agents/NAME/out is its stdout. The
# clients find the broker's port in their files of default options ($XDG_CONFIG_HOME/mosquitto_pub
# and mosquitto_sub), which acp-send's environment passes on.
write_bridge() {
    BRIDGE=$BATS_TEST_TMPDIR/bridge
    sed -n '/^    \$ cat bridge$/,/^    \$ acp-send/{/^    \$/d; s/^    //; p}' "$TESTS_DIR/../README.md" >"$BRIDGE"
    [ "$(head -1 "$BRIDGE")" = '#!/bin/bash' ] || fail "no bridge in the README: $(cat "$BRIDGE")"
    chmod +x "$BRIDGE"
    mkdir -p "$BATS_TEST_TMPDIR/config"
    echo "-p $PORT" >"$BATS_TEST_TMPDIR/config/mosquitto_sub"
    echo "-p $PORT" >"$BATS_TEST_TMPDIR/config/mosquitto_pub"
    export XDG_CONFIG_HOME=$BATS_TEST_TMPDIR/config
}

@test "acp-send --wait talks to the example forager behind the broker" {
    write_bridge
    start_agent forager-07
    # a task: accepted, then its result
    run -0 --separate-stderr timeout 30 acp-send --wait --exec="$BRIDGE forager-07" \
        kind=task.assign to=forager-07 body.node=tg:crawl-index/3
    assert_equal "$stderr" ""
    assert_equal "${#lines[@]}" 2
    run jq -r '"\(.kind) \(.from) \(.to) \(.body.status // "-")"' <<<"$output"
    assert_output $'task.accept forager-07 queen -\ntask.result forager-07 queen ok'
    # a FIPA request: agree, then inform, in reply to ours
    run -0 --separate-stderr timeout 30 acp-send --wait --exec="$BRIDGE forager-07" \
        performative=request sender=client_001 receiver=forager-07 content.action=process reply_with=r-1
    assert_equal "$stderr" ""
    run jq -r '"\(.performative) \(.in_reply_to)"' <<<"$output"
    assert_output $'agree r-1\ninform r-1'
    # a rejected task is exit 1, said on stderr
    run -1 --separate-stderr timeout 30 acp-send --wait --exec="$BRIDGE forager-07" \
        kind=task.assign to=forager-07 body.node=tg:reject-1
    run jq -r .kind <<<"$output"
    assert_output task.reject
    [[ $stderr == *reject* ]] || fail "$stderr"
    # the agent got the three messages, once each, through the broker
    [ "$(grep -c '' "$BATS_TEST_TMPDIR/forager-07.log")" -eq 3 ] || fail "$(cat "$BATS_TEST_TMPDIR/forager-07.log")"
}

@test "acp-send --stdin --wait: a script of tasks, each awaited before the next, through the broker" {
    write_bridge
    start_agent forager-07
    local i
    for i in 1 2 3 4 5; do
        printf '{"kind":"task.assign","to":"forager-07","body":{"node":"tg:crawl-index/%s"}}\n' "$i"
    done >"$BATS_TEST_TMPDIR/script"
    run -0 --separate-stderr timeout 60 acp-send --stdin --wait --exec="$BRIDGE forager-07" \
        <"$BATS_TEST_TMPDIR/script"
    assert_equal "$stderr" ""
    run jq -r '"\(.kind) \(.body.artifacts // [] | join(","))"' <<<"$output"
    assert_output "$(for i in 1 2 3 4 5; do printf 'task.accept \ntask.result cm://index/%s\n' "$i"; done)"
}
