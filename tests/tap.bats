# acp-tap: a stdio agent run in its client's place, relayed as it is and captured line by line.
load test_helper

# The capture's records of lines, as "dir kind value" (kind: message, text, too_long), one a line.
lines_of() {
    jq -r 'select(has("seq")) | "\(.dir) \(if has("message") then "message \(.message|tojson)"
        elif has("text") then "text \(.text)" else "too_long \(.too_long)" end)\(
        if .unterminated then " unterminated" else "" end)"' "$1"
}

@test "relays both ways byte for byte, and records each line, JSON as it was, other text as text" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    printf '{"jsonrpc":"2.0","id":0,"method":"ping"}\nnot json\n' >"$BATS_TEST_TMPDIR/in"
    # the child echoes its input back, then writes a message spaced its own way, a stray print and
    # a last line without its newline
    run -0 bash -c "acp-tap --out='$cap' -- sh -c 'cat; printf \"%s\\n\" \"{ \\\"a\\\" : [1, 2] }\" \"Server ready\"; printf tail' <'$BATS_TEST_TMPDIR/in'"
    [ "$output" = "$(cat "$BATS_TEST_TMPDIR/in"; printf '{ "a" : [1, 2] }\nServer ready\ntail')" ]
    run -0 lines_of "$cap"
    assert_output - <<'EOF'
in message {"jsonrpc":"2.0","id":0,"method":"ping"}
in text not json
out message {"jsonrpc":"2.0","id":0,"method":"ping"}
out text not json
out message {"a":[1,2]}
out text Server ready
out text tail unterminated
EOF
    # as it was: the bytes of the line, its spaces too
    grep -qF '"message":{ "a" : [1, 2] }}' "$cap" || fail "the message's bytes were not kept"
}

@test "every record: the format's mark, the session, the time to the microsecond; lines numbered from 1" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    printf 'a\nb\n' | acp-tap --out="$cap" --session=s-1 -- cat >/dev/null
    run -0 jq -r '[.tap, .session, (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$")), .seq // .event] | @tsv' "$cap"
    assert_output "$(printf '1\ts-1\ttrue\t%s\n' start 1 2 3 4 end)"
    run -0 jq -c 'select(.event) | del(.time, .pid)' "$cap"
    assert_output - <<'EOF'
{"tap":1,"session":"s-1","event":"start","command":["cat"]}
{"tap":1,"session":"s-1","event":"end","status":0}
EOF
    # a session of its own each run by default
    acp-tap --out="$BATS_TEST_TMPDIR/a" -- true </dev/null
    acp-tap --out="$BATS_TEST_TMPDIR/a" -- true </dev/null
    run -0 jq -r '.session' "$BATS_TEST_TMPDIR/a"
    [ "$(sort -u <<<"$output" | grep -cE '^[0-9a-f]{16}$')" -eq 2 ] || fail "not two drawn sessions: $output"
}

@test "the child's exit status, 128+N for its signal; 125, 126, 127 as env gives them" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    run -3 acp-tap --out="$cap" -- sh -c 'exit 3' </dev/null
    run -143 acp-tap --out="$cap" -- sh -c 'kill -TERM $$' </dev/null
    run -0 jq -c 'select(.event == "end") | [.status, .signal]' "$cap"
    assert_output $'[3,null]\n[143,15]'
    run -127 acp-tap --out="$cap" -- no-such-command-here </dev/null
    assert_output --partial "cannot run 'no-such-command-here': No such file or directory"
    run -126 acp-tap --out="$cap" -- "$BATS_TEST_TMPDIR" </dev/null
    run -125 acp-tap -- true
    assert_output --partial "--out=FILE is required"
    run -125 acp-tap --out="$cap"
    assert_output --partial "no command to run"
    run -125 acp-tap --out="$BATS_TEST_TMPDIR/no/such/dir/cap" -- true
    assert_output --partial "cannot open: No such file or directory"
    run -125 acp-tap --bogus --out="$cap" -- true
}

@test "--help: the command and its statuses, and no word of reading standard input as a file" {
    run -0 acp-tap --help
    assert_line --index 0 "Usage: acp-tap [OPTION]... --out=FILE [--] COMMAND [ARG]..."
    assert_line --partial "125 when acp-tap itself"
    refute_output --partial "read standard input"
}

@test "options after the command's name are the command's" {
    run -0 acp-tap --out="$BATS_TEST_TMPDIR/cap" echo --out=x --help </dev/null
    assert_output "--out=x --help"
}

@test "stderr passes through; SIGTERM and SIGHUP reach the child, which ends as it chooses" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl sig
    for sig in TERM HUP; do
        mkfifo "$BATS_TEST_TMPDIR/ready.$sig"
        # the child says it is ready once its trap is set, then waits; the tap gets the signal
        acp-tap --out="$cap" -- sh -c "trap 'echo got-$sig >&2; exit 7' $sig; echo ready >'$BATS_TEST_TMPDIR/ready.$sig'; while :; do sleep 0.05; done" \
            </dev/null 2>"$BATS_TEST_TMPDIR/err.$sig" &
        local tap=$!
        read -r _ <"$BATS_TEST_TMPDIR/ready.$sig"
        kill -"$sig" "$tap"
        local status=0
        wait "$tap" || status=$?
        [ "$status" -eq 7 ] || fail "$sig: status $status"
        grep -qx "got-$sig" "$BATS_TEST_TMPDIR/err.$sig" || fail "$sig: stderr $(cat "$BATS_TEST_TMPDIR/err.$sig")"
    done
}

@test "a live pipe: each line reaches the child and its answer comes back before the input ends" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    coproc TAP { acp-tap --out="$cap" -- cat; }
    # bash unsets TAP_PID once it reaps the coprocess, which may be before the wait below
    local i answer pid=$TAP_PID
    for i in 1 2 3; do
        printf '{"n":%d}\n' "$i" >&"${TAP[1]}"
        read -r -t 5 answer <&"${TAP[0]}" || fail "no answer to line $i while the input is open"
        [ "$answer" = "{\"n\":$i}" ] || fail "answer $answer"
    done
    exec {TAP[1]}>&-
    wait "$pid"
    [ "$(jq -s 'map(select(.seq)) | length' "$cap")" -eq 6 ]
}

@test "a line is recorded before it is passed on: no answer comes before its question" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    # the child answers each chunk at once, while the tap may still be busy with the chunk's
    # lines: a tap that passed a chunk on before it recorded it would record answers first
    seq 1 20000 | awk '{ printf "{\"n\":%d}\n", $1 }' >"$BATS_TEST_TMPDIR/in"
    acp-tap --out="$cap" -- cat <"$BATS_TEST_TMPDIR/in" >/dev/null
    run -0 jq -rs 'reduce (.[] | select(.seq)) as $r ({};
        if $r.dir == "in" then .[$r.message.n | tostring] = true
        elif .[$r.message.n | tostring] then . else .early += 1 end) | .early // 0' "$cap"
    assert_output 0
}

@test "a line longer than --max-line-bytes is relayed whole and recorded by its length" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl long
    long=$(printf '%*s' 100 '' | tr ' ' x)
    run -0 bash -c "printf '%s\nshort\n%s' '$long' '$long' | acp-tap --out='$cap' --max-line-bytes=64 -- cat"
    [ "$output" = "$long"$'\nshort\n'"$long" ]
    # each direction's records in its order (the two relays interleave as the child answers:
    # cat may echo the first lines before the input's unterminated last one is read)
    run -0 lines_of "$cap"
    assert_equal "$(grep '^in ' <<<"$output")" $'in too_long 100\nin text short\nin too_long 100 unterminated'
    assert_equal "$(grep '^out ' <<<"$output")" $'out too_long 100\nout text short\nout too_long 100 unterminated'
}

@test "taps sharing one file interleave whole records" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl i
    for i in 1 2 3 4; do
        # lines of every length up to 3000 bytes, so that records cross the pipe's and the
        # writer's chunks at every offset
        awk -v s="$i" 'BEGIN { for (n = 1; n <= 1500; n++) { printf "{\"s\":%d,\"pad\":\"%*s\"}\n", s, n * 2, "" } }' |
            acp-tap --out="$cap" --session="s$i" -- cat >/dev/null &
    done
    wait
    run -0 jq -r 'select(.seq) | .session' "$cap" # every line a whole JSON object
    [ "$(sort <<<"$output" | uniq -c | awk '{ print $1 }' | sort -u)" = 3000 ] || fail "not 3000 records a session"
}

@test "a file that refuses records (a full disk): the relay goes on, one line on stderr says so" {
    run -0 --separate-stderr bash -c "seq 1 2000 | acp-tap --out=/dev/full -- cat"
    [ "${#lines[@]}" -eq 2000 ] || fail "relayed ${#lines[@]} lines"
    [ "$(grep -c 'No space left on device: dropping records' <<<"$stderr")" -eq 1 ] || fail "stderr: $stderr"
    grep -q "records dropped" <<<"$stderr" || fail "no count at the end: $stderr"
    # the file's name reaches the terminal escaped
    ln -s /dev/full "$BATS_TEST_TMPDIR/full"$'\e[31m'
    run -0 --separate-stderr bash -c "seq 1 10 | acp-tap --out=\"\$1\" -- cat" _ "$BATS_TEST_TMPDIR/full"$'\e[31m'
    [[ $stderr != *$'\e'* ]] || fail "a raw escape on stderr"
    [[ $stderr == *'full\x1b[31m: No space left on device: dropping records'* ]] || fail "$stderr"
}

@test "a file that cannot keep up: the records that do not fit are dropped, and a record counts them" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl fifo=$BATS_TEST_TMPDIR/fifo
    mkfifo "$fifo"
    # the file's reader opens it at once but reads only after 2 seconds: the pipe's 64 KB fill,
    # then the 4 KB of the buffer
    { exec 3<"$fifo"; sleep 2; cat <&3 >"$cap"; } &
    local reader=$!
    run -0 --separate-stderr bash -c "seq 1 3000 | acp-tap --out='$fifo' --buffer=4K -- cat"
    wait "$reader"
    [ "${#lines[@]}" -eq 3000 ] || fail "relayed ${#lines[@]} lines"
    grep -q "records come faster than it takes them" <<<"$stderr" || fail "stderr: $stderr"
    # what was recorded and what was counted dropped make every line, and every event
    run -0 jq -s '[(map(select(.seq)) | length), (map(select(.event == "dropped") | .count) | add)]
        | .[0] + .[1]' "$cap"
    [ "$output" -ge 6000 ] || fail "recorded and dropped: $output"
    run -0 jq -s 'map(select(.event == "dropped")) | length' "$cap"
    [ "$output" -ge 1 ]
}

@test "a reader of the tap's output that goes away reaches the child as a closed pipe" {
    run -0 timeout 10 bash -c "acp-tap --out='$BATS_TEST_TMPDIR/cap' -- yes </dev/null | head -n 1"
    assert_output y
}

@test "the child's end ends the tap, though a process it left holds its output" {
    local pidfile=$BATS_TEST_TMPDIR/pid
    run -0 timeout 10 acp-tap --out="$BATS_TEST_TMPDIR/cap" -- sh -c "sleep 30 2>/dev/null & echo \$! >'$pidfile'; echo hi" </dev/null
    kill "$(cat "$pidfile")" 2>/dev/null || true
    assert_output hi
}

@test "README and man acp-tap: the forager tapped, and the recipe that gives its messages to acp-validate" {
    cd "$BATS_TEST_TMPDIR"
    cp -r "$EXAMPLES" examples
    # as printed in the man page's EXAMPLES
    run -0 bash <<'EOF'
acp-send kind=task.assign to=forager-07 body.node=n1 \
    body.deadline:=4102444800 |
  acp-tap --out=forager.jsonl -- examples/forager
EOF
    run -0 jq -r 'select(.seq) | "\(.dir) \(.message.kind)"' forager.jsonl
    assert_line --index 0 "in task.assign"
    assert_line --partial "out task."
    rm forager.jsonl
    # as printed in the README
    run -0 bash <<'EOF'
acp-send kind=task.assign to=forager-07 body.node=n1 body.deadline:=4102444800 |
      acp-tap --out=forager.jsonl -- examples/forager
EOF
    run -0 bash <<'EOF'
jq -c 'select(has("message")) | .message' forager.jsonl | acp-validate
EOF
    [ "${#lines[@]}" -ge 2 ]
}

# A capture of two sessions of an echoing agent, one of them with a stray print and an array that
# is no batch.
capture_of_two_sessions() {
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"ping"}' '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' |
        acp-tap --out="$1" --session=a -- cat >/dev/null
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"ping"}' 'Server started' '[1,2]' |
        acp-tap --out="$1" --session=b -- cat >/dev/null
}

@test "every tool reads a capture as it is: its messages checked, a line that was no message an error, its events passed" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    capture_of_two_sessions "$cap"
    # each record as it is (an echoing agent makes no MCP session: the stream's rules stay out)
    run -1 --separate-stderr acp-validate --stateless "$cap"
    # what passed is the capture but for the records of lines that were no message, as they came
    [ "$output" = "$(grep -v -e '"text":' -e '"message":\[' "$cap")" ] || fail "output: $output"
    run -0 bash -c "sed -n 's/.*error: \(.*\)$/\1/p' <<<\"\$1\"" _ "$stderr"
    assert_output - <<'EOF2'
the agent was sent a line that is not JSON: 'Server started' [capture-not-message]
the agent was sent an array, not an object [capture-not-object]
the agent wrote a line that is not JSON: 'Server started' [capture-not-message]
the agent wrote an array, not an object [capture-not-object]
EOF2
    # the events are no messages: the trace counts the six messages of the two sessions
    run -1 --separate-stderr acp-trace --format=stats "$cap"
    assert_equal "$(jq -c '[.messages, .kinds]' <<<"$output")" '[6,{"ping":4,"tools/list":2}]'
}

@test "a capture -j 2 reads as -j 1, in acp-validate and acp-trace" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    capture_of_two_sessions "$cap"
    # enough records that the workers take batches of them
    seq 1 20000 | awk '{ printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"t%d\"}}\n", $1, $1 % 7 }' |
        acp-tap --out="$cap" --session=c -- cat >/dev/null
    capture_of_two_sessions "$cap"
    local tool
    for tool in acp-validate "acp-trace --format=stats"; do
        run -1 --separate-stderr $tool -j 1 "$cap"
        local one=$output one_err=$stderr
        run -1 --separate-stderr $tool -j 2 "$cap"
        [ "$output" = "$one" ] && [ "$stderr" = "$one_err" ] || fail "$tool: -j 2 differs"
    done
}

@test "acp-replay schedules a capture's messages by their records' times, and leaves its events out" {
    local cap=$BATS_TEST_TMPDIR/cap.jsonl
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"ping"}' |
        acp-tap --out="$cap" --session=a -- sh -c 'cat; sleep 0.5; echo "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}"' >/dev/null
    local start end
    start=$(date +%s.%N)
    run -0 acp-replay "$cap"
    end=$(date +%s.%N)
    [ "${#lines[@]}" -eq 3 ] || fail "${#lines[@]} lines: $output"
    run -0 jq -r '.dir' <<<"$output"
    assert_output $'in\nout\nout'
    # the half second the agent waited before its last line
    awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a >= 0.45) }' || fail "replayed in $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') s"
}
