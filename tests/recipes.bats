load test_helper
load bus_helper
load mcp_helper

# Every recipe of the README, the man pages and acp(7) runs here as the docs print it: each test
# holds its recipes verbatim (in a heredoc, one a line, or split with '\' as printed), and the first
# test fails when a recipe in the docs is in no test. A recipe runs in the world: a folder holding
# the files the recipes name (capture.jsonl, a colony with faults planted; jade.log; the example
# forager as examples/forager, where make builds it; ...), with the broker it needs (mosquitto,
# nats-server) on a free port that the clients find in their files of default options or in
# NATS_URL. The clients that are not in Debian are stood in for by tests/standins/: nats (over
# tests/drivers/nats-lines), kcat (a topic is a file) and ssh (runs the command here). The recipes
# that name hosts (tcp:collector:7001, tcp:broker:7001, unix:/run/agent.sock) run in namespaces of
# their own where those names are the loopback interface. On the capture with faults, each test
# checks that the faults reach the last tool of the pipeline.

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

setup_file() {
    build_test_programs
    local w=$BATS_FILE_TMPDIR/world
    mkdir -p "$w"
    "$ACP_BUILD/gen-colony" --faults="$BATS_FILE_TMPDIR/faults" 2000 8 5 >"$w/capture.jsonl"
    "$ACP_BUILD/gen-colony" 4000 16 3 >"$w/big.jsonl"
    # a short colony: its 40 messages span a second
    head -40 "$w/capture.jsonl" >"$w/colony.jsonl"
    cp "$EXAMPLES/iacp-exchange.jsonl" "$w/day.jsonl"
    cp "$EXAMPLES/iacp-exchange.jsonl" "$w/cap.jsonl"
    head -1 "$EXAMPLES/iacp-exchange.jsonl" >"$w/msg.jsonl"
    acp-convert --to=fipa-acl "$EXAMPLES/fipa-exchange.jsonl" >"$w/jade.log"
    head -1 "$EXAMPLES/fipa-exchange.jsonl" >"$w/req.json"
    echo "a note" >"$w/note.txt"
    # the examples, with the forager of this build (make check-asan's too) where make puts it
    cp -R "$EXAMPLES" "$w/examples"
    cp "$ACP_BUILD/forager" "$w/examples/forager"
    cp "$ACP_BUILD/forager" "$w/forager"
}

setup() {
    WORLD=$BATS_TEST_TMPDIR/world
    cp -a "$BATS_FILE_TMPDIR/world" "$WORLD"
    FAULTS=$BATS_FILE_TMPDIR/faults
    PATH=$TESTS_DIR/standins:$PATH
}

teardown() {
    stop_started
}

# --- which recipes the docs print, and which the tests hold ---

# Joins lines split with '\', squeezes blanks, and drops a comment set off by two spaces.
one_line_each() {
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' | sed -E 's/ {2,}# .*$//; s/[[:space:]]+/ /g; s/^ //; s/ $//'
}

RECIPE_START='^(acp-validate|acp-convert|acp-trace|acp-replay|acp-send|acp-tap|mosquitto_sub|mosquitto_pub|nats|kcat|parallel|jq|if) '

# The recipes of the docs, one a line: the README's code between "The tools" and "Building" (not
# the body of the bridge script, which e2e-mqtt.bats runs from the README), the man pages'
# no-fill blocks.
doc_recipes() {
    local root=$TESTS_DIR/.. m
    {
        sed -n '/^## The tools/,/^## Building/p' "$root/README.md" |
            sed '/^    \$ cat bridge$/,/^    \$ acp-send/{/^    \$ acp-send/!d}' |
            sed -n 's/^    \(\$ \)\{0,1\}//p' | one_line_each | grep -E "$RECIPE_START"
        for m in "$root"/man/*.1 "$root"/man/acp.7; do
            awk '/^\.nf/ { on = 1; next } /^\.fi/ { on = 0; next } on' "$m" |
                sed "s/\\\\-/-/g; s/\\\\(aq/'/g; s/\\\\e/\\\\/g" | one_line_each | grep -E "$RECIPE_START"
        done
    } | awk '!seen[$0]++'
}

# The lines of the test suites, in the same form.
test_lines() {
    cat "$TESTS_DIR"/*.bats | one_line_each
}

@test "every recipe of the README, the man pages and acp(7) is run by a test" {
    local recipes missing=0 r
    mapfile -t recipes < <(doc_recipes)
    [ "${#recipes[@]}" -gt 40 ] || fail "too few recipes found: ${#recipes[@]}"
    test_lines >"$BATS_TEST_TMPDIR/tests"
    for r in "${recipes[@]}"; do
        grep -qxF -- "$r" "$BATS_TEST_TMPDIR/tests" && continue
        echo "no test runs: $r"
        missing=$((missing + 1))
    done
    [ "$missing" -eq 0 ] || fail "$missing recipes of the docs are in no test"
}

# A bus is quiet between bursts: without --wall-clock, what falls due meanwhile (a deadline, a
# reply_by, an idle conversation) waits for the next message, however late (issue 38).
@test "every live recipe of the docs, a bus client into acp-validate or acp-trace, has --wall-clock" {
    local missing
    # the last acp-validate or acp-trace of each bus client's pipeline
    missing=$(doc_recipes | grep -E '^(mosquitto_sub|nats sub|kcat .* -C )' |
        awk '{ n = split($0, seg, /\| /); last = ""
            for (i = 1; i <= n; i++) if (seg[i] ~ /^acp-(validate|trace)/) last = seg[i]
            if (last != "" && last !~ /--wall-clock/) print }')
    [ -z "$missing" ] || fail "live recipes without --wall-clock: $missing"
}

# --- running recipes ---

# Runs the recipe on stdin in the world, as a shell runs it; sets status, output and stderr.
recipe() {
    RECIPE=$(cat)
    run --separate-stderr bash -c "cd \"\$1\" && $RECIPE" _ "$WORLD"
}

# Starts the recipe on stdin in the world in the background (a live one), its stdout and stderr
# in $WORLD/out and $WORLD/err; sets RECIPE_PID.
start_recipe() {
    RECIPE=$(cat)
    start_bg bash -c "cd \"\$1\" && { $RECIPE
} >out 2>err" _ "$WORLD"
    RECIPE_PID=$LAST_PID
}

# The codes of the findings in text on stderr file $1, sorted.
text_codes() {
    sed -n 's/.*\[\([a-z0-9-]*\)\]$/\1/p' "$1" | sort
}

# The codes of the findings in JSON on stderr file $1, sorted; fails when it holds anything else
# (a line of a stand-in there once hid behind jq's parse error).
json_codes() {
    jq -r .code "$1" >"$1.codes" || fail "not only diagnostics on stderr: $(grep -v '^{' "$1")"
    sort "$1.codes"
}

# The codes of the planted faults, sorted.
fault_codes() {
    awk '{print $2}' "$FAULTS" | sort
}

# Waits up to $2 seconds (default 30) until file $1 has at least $3 lines.
wait_for_lines() {
    local _
    for _ in $(seq $((${2:-30} * 20))); do
        [ "$(grep -c '' "$1" 2>/dev/null)" -ge "$3" ] && return 0
        sleep 0.05
    done
    fail "$1 has $(grep -c '' "$1" 2>/dev/null) lines, not $3"
}

@test "README and man pages: recipes on files" {
    recipe <<'EOF'
acp-validate --rejects=bad.jsonl capture.jsonl > good.jsonl
EOF
    assert_equal "$status" 1
    diff <(fault_codes) <(text_codes <(printf '%s\n' "$stderr")) || fail "the findings are not the faults"
    [ "$(($(grep -c '' "$WORLD/good.jsonl") + $(grep -c '' "$WORLD/bad.jsonl")))" -eq 2000 ] || fail "lines lost"
    recipe <<'EOF'
acp-validate --rejects=bad.jsonl capture.jsonl >good.jsonl
EOF
    assert_equal "$status" 1
    recipe <<'EOF'
acp-trace capture.jsonl | jq -c 'select(.outcome == "violated")'
EOF
    assert_success
    [ "${#lines[@]}" -ge 2 ] || fail "no violated conversation: $output"
    recipe <<'EOF'
acp-trace --follow=queen/q-00a1 capture.jsonl
EOF
    [ "${#lines[@]}" -ge 3 ] || fail "$output"
    recipe <<'EOF'
acp-trace --follow=queen/q-00a1 --format=svg capture.jsonl > q-00a1.svg
acp-trace --follow=queen/q-00a1 --format=svg capture.jsonl >q-00a1.svg
EOF
    grep -q '<svg' "$WORLD/q-00a1.svg" || fail "no SVG"
    recipe <<'EOF'
acp-trace --format=html capture.jsonl > report.html
acp-trace --format=html capture.jsonl >report.html
EOF
    [ "$(tail -1 "$WORLD/report.html")" = '</html>' ] || fail "no page"
    grep -q '"queen/q-00a1"' "$WORLD/report.html" || fail "no row of queen/q-00a1"
    recipe <<'EOF'
acp-trace --format=text --width=100 capture.jsonl
EOF
    assert_output --partial 'queen'
    [ "$(printf '%s\n' "$output" | awk '{ if (length($0) > w) w = length($0) } END { print w }')" -le 100 ] ||
        fail "wider than 100 columns"
    recipe <<'EOF'
acp-trace --format=text --color=always capture.jsonl | less -R
EOF
    assert_output --partial $'\e[1;31mX'
    recipe <<'EOF'
acp-trace --format=mermaid --page-size=200 capture.jsonl > flow.md
acp-trace --format=mermaid --page-size=200 capture.jsonl >flow.md
EOF
    [ "$(grep -c '^```mermaid$' "$WORLD/flow.md")" -ge 10 ] || fail "no pages of 200 messages"
    if [ -x "$TESTS_DIR/node_modules/.bin/mmdc" ] && [ -x /usr/bin/chromium ]; then
        printf '%s' '{"executablePath":"/usr/bin/chromium","args":["--no-sandbox","--headless","--disable-gpu"]}' >"$WORLD/p.json"
        (cd "$WORLD" && "$TESTS_DIR/node_modules/.bin/mmdc" -q -p p.json -i flow.md -o flow.md) ||
            fail "mmdc -i flow.md -o flow.md failed"
        [ -s "$WORLD/flow-1.svg" ] || fail "mmdc drew no page"
    fi
    recipe <<'EOF'
acp-trace --format=report --by-agent capture.jsonl
EOF
    assert_output --partial forager-
    diff <(fault_codes) <(text_codes <(printf '%s\n' "$stderr")) || fail "the report's findings"
    recipe <<'EOF'
acp-trace --format=report --by-agent --hide=hb capture.jsonl
EOF
    assert_output --partial forager-
    recipe <<'EOF'
if acp-validate -q --stateless msg.jsonl; then echo valid; fi
EOF
    assert_output valid
}

@test "README and man pages: acp-replay --stats on a capture" {
    # The replay keeps the capture's pace: here capture.jsonl is the short colony (40 messages in
    # a second), where the world's 2,000 messages span 50 s.
    cp "$WORLD/colony.jsonl" "$WORLD/capture.jsonl"
    recipe <<'EOF'
acp-replay --stats --no-progress capture.jsonl > /dev/null
EOF
    assert_success
    assert_equal "$output" ""
    [[ $stderr == *"40 sent in"* ]] || fail "$stderr"
}

@test "README and man pages: recipes of the string form and conversion" {
    recipe <<'EOF'
acp-convert --to=fipa-acl examples/iacp-exchange.jsonl      # JADE's string form
EOF
    assert_success
    [[ ${lines[0]} == '('* ]] || fail "$output"
    recipe <<'EOF'
acp-convert --from=fipa-acl --to=iacp jade.log
EOF
    assert_success
    recipe <<'EOF'
acp-convert --from=fipa-acl --to=iacp --seed=1 --now=2024-01-15T10:00:00Z jade.log
EOF
    assert_success
    recipe <<'EOF'
acp-validate --fipa-profile=standard jade.log
EOF
    [ "$status" -le 1 ] || fail "status $status: $stderr"
    recipe <<'EOF'
acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa jade.log | acp-validate --fipa-profile=standard
EOF
    [ "$status" -le 1 ] || fail "status $status: $stderr"
    recipe <<'EOF'
acp-validate --now=2024-01-15T10:00:00Z --rejects=bad.acl jade.log
EOF
    [ "$status" -le 1 ] || fail "status $status: $stderr"
    recipe <<'EOF'
acp-convert --to=fipa --spelling=kebab colony.jsonl
EOF
    assert_success
    assert_output --partial '"performative"'
    recipe <<'EOF'
acp-convert --to=fipa-acl cap.jsonl | acp-convert --to=iacp | jq -S -c . >back.jsonl
jq -S -c . cap.jsonl | diff - back.jsonl
EOF
    assert_success
}

@test "README and man pages: recipes with a live agent" {
    recipe <<'EOF'
acp-replay --as=forager-07 --exec=examples/forager examples/iacp-exchange.jsonl   # exit 0 or 1
EOF
    assert_success
    recipe <<'EOF'
acp-replay --as=forager-07 --exec=examples/forager examples/iacp-exchange.jsonl
EOF
    assert_success
    recipe <<'EOF'
acp-replay --as=forager-07 --exec='examples/forager "forager-07"' day.jsonl
EOF
    assert_success
    recipe <<'EOF'
acp-send --wait --exec=examples/forager kind=task.assign to=forager-07 body.node=tg:crawl-index/3
EOF
    assert_success
    assert_line --index 1 --partial '"kind":"task.result"'
    recipe <<'EOF'
acp-send --wait --exec=examples/forager kind=task.assign to=forager-07 \
    body.node=tg:crawl-index/3
EOF
    assert_success
    recipe <<'RECIPE'
acp-send --stdin --wait --exec=examples/forager to=forager-07 <<'EOF'
{"kind":"task.assign","body":{"node":"tg:crawl-index/3"}}
{"kind":"task.assign","body":{"node":"tg:crawl-index/4"}}
EOF
RECIPE
    assert_success
    [ "${#lines[@]}" -eq 4 ] || fail "$output"
    recipe <<'EOF'
acp-send --answer=req.json performative=agree content.note=@note.txt
EOF
    assert_success
    run jq -r '"\(.performative) \(.content.note)"' <<<"$output"
    assert_output "agree a note"
}

# --- on an MQTT broker ---

need_mosquitto() {
    MOSQUITTO=$(command -v mosquitto || command -v /usr/sbin/mosquitto) &&
        command -v mosquitto_pub >/dev/null && command -v mosquitto_sub >/dev/null ||
        skip "needs mosquitto, mosquitto_pub and mosquitto_sub (Debian: mosquitto mosquitto-clients)"
    start_broker
    # the clients find the port in their files of default options
    mkdir -p "$BATS_TEST_TMPDIR/config"
    export XDG_CONFIG_HOME=$BATS_TEST_TMPDIR/config
    echo "-p $PORT" >"$XDG_CONFIG_HOME/mosquitto_pub"
    echo "-p $PORT" >"$XDG_CONFIG_HOME/mosquitto_sub"
}

# The probe, which no tool lets pass: its finding on stderr says the subscriber is there.
PROBE='{"probe":true}'

# Publishes the probe, retained, until file $1 is no longer empty: the subscriber has it, and
# nothing published afterwards can race the subscription.
probe_until_subscribed() {
    local i
    for i in $(seq 400); do
        [ $((i % 200)) -eq 1 ] && mosquitto_pub -q 1 -r -t colony/probe -m "$PROBE"
        [ -s "$1" ] && return 0
        kill -0 "$RECIPE_PID" 2>/dev/null || fail "the recipe ended: $(cat "$WORLD/err")"
        sleep 0.05
    done
    fail "the subscriber never got the probe"
}

# The probe that follows the capture: no object, so that its finding is another.
END_PROBE='[]'

# Publishes the capture with faults to the bus and the end probe after it; once the end probe's
# finding is on stderr, ends the recipe's subscriber (which would run until stopped), so that the
# tools behind it read the end of their input; waits for the recipe to end.
publish_capture() {
    mosquitto_pub -q 1 -l -t colony/bus <"$BATS_FILE_TMPDIR/world/capture.jsonl" || fail "cannot publish"
    mosquitto_pub -q 1 -t colony/bus -m "$END_PROBE" || fail "cannot publish"
    local _
    for _ in $(seq 600); do
        grep -q 'not-object' "$WORLD/err" && break
        sleep 0.05
    done
    end_subscriber
    wait_for_end "$RECIPE_PID" 60
}

# Ends the mosquitto_sub of the recipe running (one of its process group).
end_subscriber() {
    local pid
    pid=$(pgrep -g "$RECIPE_PID" -x mosquitto_sub) || fail "no subscriber in the recipe"
    kill -TERM $pid
}

@test "acp-send(1): requests to an MCP server (node server.js: the tests' server on the SDK's v2)" {
    needs_peers
    cp "$TESTS_DIR/drivers/mcp-v2-server.mjs" "$WORLD/server.js"
    echo '{"type": "module"}' >"$WORLD/package.json"
    ln -s "$TESTS_DIR/node_modules" "$WORLD/node_modules"
    recipe <<'EOF'
acp-send --wait --exec='node server.js' method=tools/call \
    params.name=echo params.arguments.message=hi
EOF
    assert_success
    jq -e '.result.content == [{"type": "text", "text": "Echo: hi"}]' <<<"$output"
    recipe <<'EOF'
acp-send --wait --exec='node server.js' method=tools/list \
    | jq -r '.result.tools[].name'
EOF
    assert_success
    assert_output echo
    recipe <<'RECIPE'
acp-send --stdin --wait --exec='node server.js' <<'EOF'
{"method":"tools/list"}
{"method":"prompts/list"}
EOF
RECIPE
    # the server has no prompts: the second request fails with its error
    assert_failure 1
    assert_equal "${#lines[@]}" 2
    jq -e -s '.[0].result.tools[0].name == "echo" and .[1].error.code == -32601' <<<"$output"
}

@test "acp-replay(1): an MCP session recorded through acp-tap, its server tested against it, and served in its place" {
    needs_peers
    cp "$TESTS_DIR/drivers/mcp-v2-server.mjs" "$WORLD/server.js"
    echo '{"type": "module"}' >"$WORLD/package.json"
    ln -s "$TESTS_DIR/node_modules" "$WORLD/node_modules"
    # each recipe is the server's command of the SDK's client (v2), which starts it in the world
    local client=$TESTS_DIR/drivers/mcp-v2-session.mjs
    run -0 node "$client" bash -c "cd \"\$0\" && $(cat <<'EOF'
acp-tap --out=session.jsonl -- node server.js    # the client's server command, once
EOF
)" "$WORLD"
    assert_output '[{"type":"text","text":"Echo: hi"}]'
    [ "$(jq -s 'map(select(.message)) | length' "$WORLD/session.jsonl")" -eq 7 ]
    recipe <<'EOF'
acp-replay --as=server --exec='node server.js' session.jsonl     # the server, tested
EOF
    assert_success
    run -0 node "$client" bash -c "cd \"\$0\" && $(cat <<'EOF'
acp-replay --serve=server session.jsonl    # the client's server command in CI
EOF
)" "$WORLD"
    assert_output '[{"type":"text","text":"Echo: hi"}]'
}

@test "README and man pages: capture a bus with mosquitto_sub" {
    need_mosquitto
    rm "$WORLD/capture.jsonl"
    start_recipe <<'EOF'
mosquitto_sub -q 1 -t 'colony/#' > capture.jsonl                                 # capture
EOF
    probe_until_subscribed "$WORLD/capture.jsonl"
    mosquitto_pub -q 1 -l -t colony/bus <"$BATS_FILE_TMPDIR/world/capture.jsonl"
    wait_for_lines "$WORLD/capture.jsonl" 30 2001
    end_subscriber
    wait_for_end "$RECIPE_PID" 60
    tail -n +2 "$WORLD/capture.jsonl" | cmp - "$BATS_FILE_TMPDIR/world/capture.jsonl" || fail "not the traffic"
}

# The live recipes whose last tool reports in text, and, after '--', those that report in JSON;
# each one gets the capture with faults through the bus, and must report every one of them.
@test "README and man pages: validate and trace a bus live with mosquitto_sub" {
    need_mosquitto
    local r recipes
    mapfile -t recipes <<'EOF'
mosquitto_sub -q 1 -t 'colony/#' | acp-trace --wall-clock                       # summaries live
mosquitto_sub -q 1 -t 'colony/#' | acp-validate --pass=well-formed | acp-trace --wall-clock
mosquitto_sub -t 'colony/#' | acp-trace --wall-clock --idle-timeout=5m
mosquitto_sub -t 'colony/#' | acp-validate --pass=well-formed --rejects=bad.jsonl | acp-trace --wall-clock
mosquitto_sub -t 'colony/#' | acp-validate --pass=well-formed | acp-trace --wall-clock
--
mosquitto_sub -t 'colony/#' | acp-validate --wall-clock --diagnostics=json > /dev/null
mosquitto_sub -q 1 -t 'colony/#' | acp-validate --wall-clock --diagnostics=json >/dev/null  # validate live
mosquitto_sub -t 'colony/#' | acp-validate --wall-clock --diagnostics=json >/dev/null
EOF
    local json=false
    for r in "${recipes[@]}"; do
        [ "$r" = -- ] && json=true && continue
        rm -f "$WORLD/out" "$WORLD/err"
        start_recipe <<<"$r"
        probe_until_subscribed "$WORLD/err"
        publish_capture
        if $json; then
            diff <(fault_codes) <(jq -r 'select(.type == "diagnostic") | .code' "$WORLD/err" | grep -vx 'no-protocol\|not-object' | sort) ||
                fail "$r: the findings are not the faults"
        else
            # the last tool's findings (a validator in front reports the probes too)
            diff <(fault_codes) <(grep '^acp-trace: ' "$WORLD/err" | text_codes /dev/stdin | grep -vx 'no-protocol\|not-object') ||
                fail "$r: the findings are not the faults"
            [ "$(grep -c '"type":"conversation"' "$WORLD/out")" -gt 50 ] || fail "$r: too few summaries"
        fi
    done
}

@test "acp(7): validate, convert to FIPA and trace a bus live: the faults reach acp-trace" {
    need_mosquitto
    start_recipe <<'RECIPE'
mosquitto_sub -t 'colony/#' | acp-validate --pass=well-formed | acp-convert --to=fipa | acp-trace --wall-clock
RECIPE
    probe_until_subscribed "$WORLD/err"
    publish_capture
    # what the FIPA rules see of the IACP faults: replies after the end, and from the wrong agent
    run grep -c '^acp-trace: .* error: ' "$WORLD/err"
    [ "$output" -ge 4 ] || fail "acp-trace found $output errors: $(cat "$WORLD/err")"
}

# Starts a subscriber of this test to topic $1 that takes $2 messages into file $3; sets SUB.
# Returns once it is subscribed: it takes a retained message of a topic of its own first (what is
# published before a subscription is lost, and a loaded machine can take seconds to subscribe).
subscribe_to() {
    local ready=$BATS_TEST_TMPDIR/subscribed
    rm -f "$ready"
    mosquitto_pub -q 1 -r -t colony/subscribed -m yes || fail "cannot publish"
    start_bg bash -c 'mosquitto_sub -q 1 -C "$(($2 + 1))" -v -t colony/subscribed -t "$1" |
        while IFS= read -r line; do
            case $line in
            "colony/subscribed "*) : >"$4" ;;
            *) printf "%s\n" "${line#"$1 "}" ;;
            esac
        done >"$3"' _ "$1" "$2" "$3" "$ready"
    SUB=$LAST_PID
    local _
    for _ in $(seq 600); do
        [ -e "$ready" ] && return 0
        sleep 0.05
    done
    fail "the subscriber to $1 never subscribed"
}

@test "README and man pages: replay and send into the broker with mosquitto_pub" {
    need_mosquitto
    local got=$BATS_TEST_TMPDIR/got
    subscribe_to colony/replay 2000 "$got"
    recipe <<'RECIPE'
acp-replay --speed=10 capture.jsonl | mosquitto_pub -l -q 1 -t colony/replay    # replay
RECIPE
    assert_success
    wait_for_end "$SUB" 30
    cmp "$got" "$WORLD/capture.jsonl" || fail "the replay is not the capture"
    run -1 acp-validate -q "$got"
    subscribe_to colony/replay 40 "$got"
    recipe <<'RECIPE'
acp-replay --speed=2 colony.jsonl | mosquitto_pub -l -t colony/replay
RECIPE
    wait_for_end "$SUB" 30
    cmp "$got" "$WORLD/colony.jsonl" || fail "the replay is not the colony"
    # --loop=0 replays forever: the subscriber takes three rounds, with fresh ids in each
    subscribe_to colony/replay 120 "$got"
    start_recipe <<'RECIPE'
acp-replay --speed=2 --rewrite-ids --loop=0 colony.jsonl | mosquitto_pub -l -t colony/replay
RECIPE
    wait_for_end "$SUB" 30
    [ "$(jq -r .id "$got" | sort -u | wc -l)" -gt 80 ] || fail "the ids repeat"
    subscribe_to colony/queen 2 "$got"
    recipe <<'RECIPE'
acp-send kind=task.assign to=forager-07 body.node=tg:crawl-index/3 | mosquitto_pub -l -t colony/queen
acp-send kind=task.assign to=forager-07 body.node=tg:crawl-index/3 \
    | mosquitto_pub -l -t colony/queen
RECIPE
    assert_success
    recipe <<'RECIPE'
acp-send kind=task.assign to=forager-07 body.node=tg:crawl-index/3 \
    body.deadline:=1312284400 | mosquitto_pub -l -t colony/queen
RECIPE
    assert_success
    wait_for_end "$SUB" 30
    run jq -r '"\(.kind) \(.to) \(.body.node)"' "$got"
    assert_output $'task.assign forager-07 tg:crawl-index/3\ntask.assign forager-07 tg:crawl-index/3'
}

@test "README: acp-send --wait through the bridge to the forager behind the broker" {
    need_mosquitto
    sed -n '/^    \$ cat bridge$/,/^    \$ acp-send/{/^    \$/d; s/^    //; p}' "$TESTS_DIR/../README.md" >"$WORLD/bridge"
    chmod +x "$WORLD/bridge"
    # the forager behind the broker, its subscription made before it starts
    mosquitto_sub -q 1 -c -i agent-forager-07 -t colony/agents/forager-07 -E || fail "cannot subscribe"
    start_bg bash -c 'mosquitto_sub -q 1 -c -i agent-forager-07 -t colony/agents/forager-07 |
        "$1" forager-07 | mosquitto_pub -q 1 -l -t colony/agents/forager-07/out' _ "$WORLD/forager"
    recipe <<'RECIPE'
acp-send --wait --exec='./bridge forager-07' kind=task.assign to=forager-07 body.node=tg:crawl-index/3
RECIPE
    assert_success
    run jq -r .kind <<<"$output"
    assert_output $'task.accept\ntask.result'
}

# --- NATS, with the stand-in for the nats CLI ---

need_nats() {
    NATS_SERVER=$(command -v nats-server || command -v /usr/sbin/nats-server) ||
        skip "needs nats-server (Debian: nats-server)"
    local log=$BATS_TEST_TMPDIR/nats-server.log try port
    for try in $(seq 20); do
        port=$(random_port)
        start_bg "$NATS_SERVER" -a 127.0.0.1 -p "$port" >"$log" 2>&1
        await_ready "$LAST_PID" "$log" 'Server is ready' && break
        stop_group "$LAST_PID"
    done
    [ "$try" -lt 20 ] || fail "no server could be started: $(cat "$log")"
    export NATS_URL=nats://127.0.0.1:$port NATS_STANDIN_COUNT=2000
    export NATS_STANDIN_READY=$BATS_TEST_TMPDIR/subscribed
}

# Waits until a stand-in creates file $1, and removes it for the next time; fails with $2 after
# 30 s (a loaded machine, not a slow tool, is what takes long here).
until_file() {
    local _
    for _ in $(seq 600); do
        [ -e "$1" ] && rm "$1" && return 0
        sleep 0.05
    done
    fail "$2: $(cat "$WORLD/err")"
}

# Waits until the stand-in's subscriber has its subscription.
until_subscribed() {
    until_file "$NATS_STANDIN_READY" "the subscriber never subscribed"
}

@test "README: NATS recipes (the nats CLI stood in for)" {
    need_nats
    local sent=$BATS_FILE_TMPDIR/world/capture.jsonl
    rm "$WORLD/capture.jsonl"
    start_recipe <<'RECIPE'
nats sub 'colony.>' --raw > capture.jsonl
RECIPE
    until_subscribed
    nats pub colony.bus --send-on=newline <"$sent"
    wait_for_end "$RECIPE_PID" 30
    cmp "$WORLD/capture.jsonl" "$sent" || fail "the capture is not the traffic"
    start_recipe <<'RECIPE'
nats sub 'colony.>' --raw | acp-validate --wall-clock --diagnostics=json > /dev/null
RECIPE
    until_subscribed
    nats pub colony.bus --send-on=newline <"$sent"
    wait_for_end "$RECIPE_PID" 30
    json_codes "$WORLD/err" >"$BATS_TEST_TMPDIR/codes"
    diff <(fault_codes) "$BATS_TEST_TMPDIR/codes" || fail "the findings are not the faults"
    start_bg bash -c 'nats sub colony.replay --raw >"$1"' _ "$BATS_TEST_TMPDIR/replayed"
    local sub=$LAST_PID
    until_subscribed
    recipe <<'RECIPE'
acp-replay --speed=10 capture.jsonl | nats pub colony.replay --send-on=newline
RECIPE
    assert_success
    wait_for_end "$sub" 30
    cmp "$BATS_TEST_TMPDIR/replayed" "$sent" || fail "the replay is not the capture"
}

@test "README: partitions on NATS JetStream: the server of partitions.conf, the stream, a consumer into acp-validate --partition, consumers into acp-trace merged" {
    NATS_SERVER=$(command -v nats-server || command -v /usr/sbin/nats-server) ||
        skip "needs nats-server (Debian: nats-server)"
    [ -x "$ACP_BUILD/tests/jetstream-lines" ] || skip "needs libnats-dev (scripts/deps installs it)"
    export NATS_STANDIN_JETSTREAM=$ACP_BUILD/tests/jetstream-lines NATS_STANDIN_IDLE=1000
    # the README's partitions.conf, its store in the test's folder, on a free port
    local conf=$BATS_TEST_TMPDIR/partitions.conf log=$BATS_TEST_TMPDIR/server.log try port
    for try in $(seq 20); do
        port=$(random_port)
        { echo "listen: 127.0.0.1:$port"
          sed -n '/^    \$ cat partitions.conf$/,/^    \$ nats/{/^    \$/d; s/^    //; p}' "$TESTS_DIR/../README.md" |
              sed "s|/var/lib/nats|$BATS_TEST_TMPDIR/store|"; } >"$conf"
        start_bg "$NATS_SERVER" -c "$conf" >"$log" 2>&1
        await_ready "$LAST_PID" "$log" 'Server is ready' && break
        stop_group "$LAST_PID"
    done
    grep -q 'partition(5,1)' "$conf" || fail "no mappings read from the README: $(cat "$conf")"
    export NATS_URL=nats://127.0.0.1:$port
    recipe <<'RECIPE'
nats stream add COLONY --subjects='colony.part.>' --defaults
RECIPE
    assert_success
    # the colony publishes on its agents' subjects
    "$ACP_BUILD/tests/jetstream-lines" pub "$port" <"$WORLD/capture.jsonl"
    recipe <<'RECIPE'
nats sub 'colony.part.1.>' --all --raw | acp-validate --wall-clock --partition=2/5 --diagnostics=json > /dev/null
RECIPE
    # what the consumer's acp-validate finds is what --partition=2/5 finds of the capture
    diff <(jq -r '[.code, .id] | @tsv' <<<"$stderr" | sort) \
        <(acp-validate --partition=2/5 --diagnostics=json "$WORLD/capture.jsonl" 2>&1 >/dev/null | jq -r '[.code, .id] | @tsv' | sort)
    [ "$(jq -s 'map(select(.type == "diagnostic")) | length' <<<"$stderr")" -gt 0 ]
    # a consumer a partition into acp-trace, the partition's as printed, then the reduce
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$WORLD/span.key"
    local k
    for k in 0 2 3 4; do
        (cd "$WORLD" && nats sub "colony.part.$k.>" --all --raw |
            acp-trace --wall-clock --partition=$((k + 1))/5 --span-secret=span.key >part$((k + 1)).jsonl) 2>/dev/null ||
            true # findings
    done
    recipe <<'RECIPE'
nats sub 'colony.part.1.>' --all --raw | acp-trace --wall-clock --partition=2/5 --span-secret=span.key > part2.jsonl
acp-trace --merge part?.jsonl > conversations.jsonl
RECIPE
    grep -q '"span"' "$WORLD/part2.jsonl" || fail "no spans in partition 2"
    # the live partitions merged are the capture's conversations
    diff <(jq -r 'select(.type == "conversation") | .conversation' "$WORLD/conversations.jsonl" | sort) \
        <(acp-trace "$WORLD/capture.jsonl" 2>/dev/null | jq -r '.conversation' | sort)
}

# --- Kafka, with the stand-in for kcat ---

@test "README: Kafka recipes (kcat and its broker stood in for)" {
    export KCAT_STANDIN_DIR=$BATS_TEST_TMPDIR/topics KCAT_STANDIN_COUNT=2000
    export KCAT_STANDIN_READY=$BATS_TEST_TMPDIR/joined
    mkdir -p "$KCAT_STANDIN_DIR"
    local sent=$BATS_FILE_TMPDIR/world/capture.jsonl
    kcat -b HOST:9092 -P -t colony <"$sent"
    recipe <<'RECIPE'
kcat -b HOST:9092 -C -t colony -o beginning -e -f '%s\n' > capture.jsonl   # the topic so far
RECIPE
    assert_success
    cmp "$WORLD/capture.jsonl" "$sent" || fail "the capture is not the topic"
    start_recipe <<'RECIPE'
kcat -b HOST:9092 -C -t colony -o end -u -f '%s\n' | acp-validate --wall-clock --diagnostics=json > /dev/null
RECIPE
    until_file "$KCAT_STANDIN_READY" "the consumer never joined"
    kcat -b HOST:9092 -P -t colony <"$sent"
    wait_for_end "$RECIPE_PID" 30
    json_codes "$WORLD/err" >"$BATS_TEST_TMPDIR/codes"
    diff <(fault_codes) "$BATS_TEST_TMPDIR/codes" || fail "the findings are not the faults"
    recipe <<'RECIPE'
acp-replay --speed=10 capture.jsonl | kcat -b HOST:9092 -P -t colony-replay  # a message a line
RECIPE
    assert_success
    cmp "$KCAT_STANDIN_DIR/colony-replay" "$sent" || fail "the replay is not the capture"
}

# --- shards with GNU parallel ---

@test "README and acp-trace(1): shards with GNU parallel, on one machine and on several (ssh stood in for)" {
    command -v parallel >/dev/null || skip "needs GNU parallel (Debian: parallel)"
    (cd "$WORLD" && acp-trace --format=stats big.jsonl) >"$BATS_TEST_TMPDIR/whole.json" 2>/dev/null || true
    recipe <<'RECIPE'
parallel acp-trace --format=stats --shard={}/4 big.jsonl '>' shard{}.json ::: 1 2 3 4
acp-trace --merge-stats shard?.json                                   # or --format=report
RECIPE
    assert_success
    diff <(jq -c '.messages, .conversations' "$BATS_TEST_TMPDIR/whole.json") <(jq -c '.messages, .conversations' <<<"$output") ||
        fail "the merged shards are not the whole"
    recipe <<'RECIPE'
parallel acp-trace --shard={}/4 big.jsonl ::: 1 2 3 4 > conversations.jsonl
RECIPE
    [ "$(grep -c '"type":"conversation"' "$WORLD/conversations.jsonl")" -gt 100 ] || fail "no conversations"
    export SSH_STANDIN_HOSTS=$BATS_TEST_TMPDIR/hosts
    # /data/big.jsonl is the capture's path on every machine: here, the world's
    local printed
    printed=$(
        cat <<'RECIPE'
parallel --sshlogin m1,m2,m3,m4 acp-trace --format=stats --by-agent --shard={}/4 /data/big.jsonl \
    ::: 1 2 3 4 > shards.json
RECIPE
    )
    recipe <<<"${printed//\/data\//$WORLD/}"
    recipe <<'RECIPE'
acp-trace --merge-stats --by-agent shards.json
RECIPE
    assert_success
    diff <(jq -c '.messages, .conversations' "$BATS_TEST_TMPDIR/whole.json") <(jq -c '.messages, .conversations' <<<"$output") ||
        fail "the merged shards are not the whole"
    [ "$(sort -u "$SSH_STANDIN_HOSTS" | wc -l)" -ge 2 ] || fail "one machine did all"
}

@test "README: partitions of a capture on disk with GNU parallel, merged: one process's conversations" {
    command -v parallel >/dev/null || skip "needs GNU parallel (Debian: parallel)"
    (cd "$WORLD" && acp-trace big.jsonl) >"$BATS_TEST_TMPDIR/one" 2>"$BATS_TEST_TMPDIR/one.err" || true
    recipe <<'RECIPE'
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > span.key
parallel acp-trace --span-secret=span.key --partition={}/5 big.jsonl '>' part{}.jsonl ::: 1 2 3 4 5
acp-trace --merge part?.jsonl > conversations.jsonl
RECIPE
    assert_success
    grep -q '"span"' "$WORLD/part1.jsonl" || fail "no spans in a partition"
    grep -Eqx '[0-9a-f]{32}' "$WORLD/span.key" || fail "span.key: $(cat "$WORLD/span.key")"
    # the capture is a clean colony: its summaries, as a set, are one process's
    diff <(jq -c . "$WORLD/conversations.jsonl" | sort) <(jq -c . "$BATS_TEST_TMPDIR/one" | sort) ||
        fail "the merged partitions are not the whole"
}

# --- recipes that name hosts: in namespaces of their own ---

# Runs the recipe on stdin in a user, mount and network namespace of its own, where the names
# collector, broker and HOST are the loopback interface and /run is a folder of the test's; the
# command $@ (an agent behind a peer) runs there first, in the background. Sets status and output.
recipe_in_namespace() {
    RECIPE=$(cat)
    unshare -rmn true 2>/dev/null || skip "needs user, mount and network namespaces (unshare -rmn)"
    local ns=$BATS_TEST_TMPDIR/ns
    mkdir -p "$ns/run"
    printf '127.0.0.1 localhost collector broker HOST\n' >"$ns/hosts"
    printf '%s\n' "$RECIPE" >"$ns/recipe"
    run --separate-stderr unshare -rmn bash -c '
        ns=$1; shift
        ip link set lo up && mount --bind "$ns/hosts" /etc/hosts && mount --bind "$ns/run" /run || exit 99
        "$@" &
        for _ in $(seq 100); do [ -e "$ns/ready" ] && break; sleep 0.05; done
        cd "$WORLD" && bash "$ns/recipe"
        status=$?
        wait
        exit $status' _ "$ns" "$@"
}

@test "README and man pages: acp-replay and acp-send to a socket and to hosts by name" {
    local peer=$ACP_BUILD/tests/peer ns=$BATS_TEST_TMPDIR/ns
    export WORLD
    recipe_in_namespace "$peer" unix:/run/agent.sock "$ns/ready" -- "$WORLD/forager" agent_123 <<'RECIPE'
acp-send --wait --connect=unix:/run/agent.sock performative=request sender=client_001 \
      receiver=agent_123 content.action=process reply_by=+30s     # 0, 1 refused, 2, 3 timeout
RECIPE
    assert_success
    run jq -r .performative <<<"$output"
    assert_output $'agree\ninform'
    rm -f "$ns/ready"
    cat >"$BATS_TEST_TMPDIR/two-bidders" <<'SH'
#!/bin/bash
# compute_1 proposes and compute_2 refuses each cfp read, in reply to it
while IFS= read -r line; do
    conv=$(jq -r .conversation_id <<<"$line") with=$(jq -r .reply_with <<<"$line")
    for who in compute_1:propose compute_2:refuse; do
        jq -nc --arg s "${who%%:*}" --arg p "${who#*:}" --arg c "$conv" --arg r "$with" \
            '{performative:$p,sender:$s,receiver:"task_manager",content:{},language:"json",conversation_id:$c,in_reply_to:$r}'
    done
done
SH
    chmod +x "$BATS_TEST_TMPDIR/two-bidders"
    recipe_in_namespace "$peer" tcp:7001 "$ns/ready" -- "$BATS_TEST_TMPDIR/two-bidders" <<'RECIPE'
acp-send --wait --connect=tcp:broker:7001 performative=cfp \
    sender=task_manager 'receiver:=["compute_1","compute_2"]' \
    content.task_id=analysis_001 reply_by=+5m
RECIPE
    assert_success
    run jq -r .performative <<<"$output"
    assert_output $'propose\nrefuse'
    rm -f "$ns/ready"
    # 600 s of looped replay: the collector takes 200 lines and closes
    recipe_in_namespace "$peer" tcp:7001 "$ns/ready" --record="$ns/collected" --close-after=200 <<'RECIPE'
acp-replay --loop=0 --duration=600 --max-gap=1 --rewrite-ids \
    --rewrite-ts --connect=tcp:collector:7001 colony.jsonl
RECIPE
    [ "$(grep -c '' "$ns/collected")" -ge 200 ] || fail "the collector got $(grep -c '' "$ns/collected") lines: $stderr"
    run -0 acp-validate -q --stateless "$ns/collected"
}
