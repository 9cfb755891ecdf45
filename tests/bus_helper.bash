# Loaded by the suites that run a real message bus (tests/e2e-*.bats): processes started in the
# background and ended by teardown, every one of them, and servers on free loopback ports.

# The process groups this test started (see start_bg); teardown calls stop_started.
STARTED=()

# Starts a command in the background in a process group of its own (so that teardown can end it
# with every process of its pipeline), with fd 3 closed so that bats does not wait for it; sets
# LAST_PID.
start_bg() {
    setsid "$@" 3>&- &
    LAST_PID=$!
    STARTED+=("$LAST_PID")
}

# Ends the process group $1, every process of it (a pipeline's too), waiting up to 5 s for them
# before it kills them.
stop_group() {
    local _
    kill -TERM -- "-$1" 2>/dev/null || true
    for _ in $(seq 100); do
        kill -0 -- "-$1" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL -- "-$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# Waits up to $2 seconds (default 30) for the background process $1 to end; fails if it does not.
wait_for_end() {
    local _
    for _ in $(seq $((${2:-30} * 20))); do
        kill -0 "$1" 2>/dev/null || {
            wait "$1" 2>/dev/null || true
            return 0
        }
        sleep 0.05
    done
    fail "process $1 did not end within ${2:-30} s"
}

# Ends every process group this test started, and fails if any process of them is left.
stop_started() {
    local pid
    for pid in "${STARTED[@]}"; do
        stop_group "$pid"
    done
    for pid in "${STARTED[@]}"; do
        ! kill -0 -- "-$pid" 2>/dev/null || fail "processes of group $pid are still running"
    done
}

# A port to try a server on: one that a server finds taken makes it exit, and then the caller
# tries another.
random_port() {
    echo $((20000 + RANDOM % 40000))
}

# await_ready PID LOG PATTERN: waits up to 5 s until the server PID writes a line matching
# PATTERN (grep -E) to LOG; fails (status 1) if it exits or does not say it within that time.
await_ready() {
    local _
    for _ in $(seq 100); do
        grep -qE "$3" "$2" && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# Starts mosquitto ($MOSQUITTO) on a free loopback port (a port another program holds makes it
# exit, and then another one is tried) and sets PORT once it accepts clients. Its queue per client is unbounded:
# by default it holds 1000 QoS 1 messages for a subscriber that lags (as one does on a loaded
# machine while a replay runs at 500 times its speed) and drops the rest.
start_broker() {
    local conf=$BATS_TEST_TMPDIR/mosquitto.conf log=$BATS_TEST_TMPDIR/mosquitto.log try
    for try in $(seq 20); do
        PORT=$(random_port)
        printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n' \
            "$PORT" >"$conf"
        start_bg "$MOSQUITTO" -c "$conf" >"$log" 2>&1
        await_ready "$LAST_PID" "$log" ' running$' && return 0
        stop_group "$LAST_PID"
    done
    fail "no broker could be started (try $try): $(cat "$log")"
}
