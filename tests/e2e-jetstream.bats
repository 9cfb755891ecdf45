# Partitions on NATS JetStream (issue 45): Debian's nats-server maps each message's subject to a
# partition ({{partition(5,1)}}: FNV-1a of 32 bits of the key's token, modulo 5), and one stream
# keeps them all; tests/drivers/jetstream-lines publishes a generated colony (with planted faults)
# by agent subject as a bridge would, and reads a partition with an ordered consumer from the
# start, as each consumer of the README's design does. The server's own routing is read back from
# the subjects it stored the messages under: it is what acp-validate --partition computes. 5
# partitions: not a power of two, where a wrong hash (FNV-1a of 64 bits) would agree.
# ACP_JETSTREAM_MESSAGES sets the colony's size (make check-full: 200,000).
load test_helper
load bus_helper

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}
PARTS=5

# The server, once for the file, with its mappings and JetStream in the file's folder; the
# colony published, and each partition read back once (subject, tab, payload).
setup_file() {
    build_test_programs
    local server d=$BATS_FILE_TMPDIR try port
    server=$(command -v nats-server || command -v /usr/sbin/nats-server) || return 0
    [ -x "$ACP_BUILD/tests/jetstream-lines" ] || return 0
    "$ACP_BUILD/gen-colony" --faults="$d/faults" "${ACP_JETSTREAM_MESSAGES:-20000}" 32 7 >"$d/colony.jsonl"
    for try in $(seq 20); do
        port=$((20000 + RANDOM % 40000))
        cat >"$d/server.conf" <<EOF
listen: 127.0.0.1:$port
jetstream { store_dir: "$d/store" }
mappings = {
  "colony.agents.*": "colony.part.{{partition($PARTS,1)}}.in.{{wildcard(1)}}"
  "colony.agents.*.out": "colony.part.{{partition($PARTS,1)}}.out.{{wildcard(1)}}"
  "colony.conv.*": "colony.part.{{partition($PARTS,1)}}.conv.{{wildcard(1)}}"
}
EOF
        setsid "$server" -c "$d/server.conf" >"$d/server.log" 2>&1 3>&- &
        echo $! >"$d/server.pid"
        for _ in $(seq 100); do
            grep -q 'Server is ready' "$d/server.log" && break
            kill -0 "$(cat "$d/server.pid")" 2>/dev/null || break
            sleep 0.05
        done
        grep -q 'Server is ready' "$d/server.log" && break
        kill -KILL -- "-$(cat "$d/server.pid")" 2>/dev/null
        rm -rf "$d/store"
    done
    echo "$port" >"$d/port"
    "$ACP_BUILD/tests/jetstream-lines" stream "$port" &&
        "$ACP_BUILD/tests/jetstream-lines" pub "$port" <"$d/colony.jsonl" || return 1
    for k in $(seq 0 $((PARTS - 1))); do
        "$ACP_BUILD/tests/jetstream-lines" sub "$port" "colony.part.$k.>" 1000 --subjects >"$d/part$((k + 1))"
    done
}

teardown_file() {
    [ -s "$BATS_FILE_TMPDIR/server.pid" ] && kill -TERM -- "-$(cat "$BATS_FILE_TMPDIR/server.pid")" 2>/dev/null
    return 0
}

setup() {
    command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] ||
        skip "needs nats-server (Debian: nats-server; scripts/deps installs it)"
    [ -x "$ACP_BUILD/tests/jetstream-lines" ] || skip "needs libnats-dev (scripts/deps installs it)"
    D=$BATS_FILE_TMPDIR
    PORT=$(cat "$D/port")
}

teardown() {
    stop_started
}

# The payloads of partition $1 as the consumer read them.
payloads() {
    cut -f2- "$D/part$1"
}

@test "JetStream: the server stores each message in the partition acp-validate --partition computes, under its key's token" {
    local k total=0
    for k in $(seq 1 $PARTS); do
        [ -s "$D/part$k" ] || fail "partition $k is empty"
        # the partition the server chose (its subject), against the key's own (partition-key)
        paste <(cut -f1 "$D/part$k") <(payloads "$k" | "$ACP_BUILD/tests/partition-key" $PARTS) |
            awk -F'\t' -v k="$k" '{ split($1, s, "."); if (s[3] + 1 != k || $4 != k || s[5] != $2) { print; bad++ } }
                END { exit bad > 0 }' || fail "partition $k: routed otherwise"
        total=$((total + $(wc -l <"$D/part$k")))
    done
    # every message once
    [ "$total" -eq "$(wc -l <"$D/colony.jsonl")" ]
    diff <(for k in $(seq 1 $PARTS); do payloads "$k"; done | sort) <(sort "$D/colony.jsonl")
}

@test "JetStream: a live partition is what --partition selects of the capture, and acp-validate finds the same in both" {
    local k
    for k in $(seq 1 $PARTS); do
        diff <(payloads "$k" | sort) <(acp-validate --partition=$k/$PARTS --pass=all --stateless "$D/colony.jsonl" 2>/dev/null | sort) ||
            fail "partition $k differs from what --partition selects of the file"
        # the findings, as (code, id): the lines differ, one input being the partition alone
        diff <(payloads "$k" | acp-validate --partition=$k/$PARTS --diagnostics=json 2>&1 >/dev/null | jq -r '[.code, .id] | @tsv' | sort) \
            <(acp-validate --partition=$k/$PARTS --diagnostics=json "$D/colony.jsonl" 2>&1 >/dev/null | jq -r '[.code, .id] | @tsv' | sort) ||
            fail "partition $k: the findings differ"
    done
}

@test "JetStream: a consumer killed mid-run and started again from the start of its partition writes what one run writes" {
    local whole=$BATS_TEST_TMPDIR/whole again=$BATS_TEST_TMPDIR/again
    "$ACP_BUILD/tests/jetstream-lines" sub "$PORT" "colony.part.2.>" 1000 | acp-trace --partition=3/$PARTS >"$whole" 2>/dev/null || true
    [ "$(wc -l <"$whole")" -gt 100 ]
    # killed after its first summaries
    start_bg bash -c "'$ACP_BUILD/tests/jetstream-lines' sub '$PORT' 'colony.part.2.>' 1000 | acp-trace --partition=3/$PARTS >'$again' 2>/dev/null"
    local pid=$LAST_PID _
    for _ in $(seq 200); do
        [ -s "$again" ] && break
        sleep 0.01
    done
    stop_group "$pid"
    # its output is replaced by the run started again
    "$ACP_BUILD/tests/jetstream-lines" sub "$PORT" "colony.part.2.>" 1000 | acp-trace --partition=3/$PARTS >"$again" 2>/dev/null || true
    cmp "$whole" "$again"
}

# What one stream's clock tells (a partition's runs on its own messages): a silence, a clock's
# skew, an eviction, an assign timeout or a deadline (a reissue in another partition comes after
# it there, before it in one process).
CLOCKED='^iacp-(silent|skew|evicted|clock-skew|assign-timeout|deadline-passed)$'

# A summary without where its messages are (their lines count in each partition's stream, live):
# what it tells, its issues by code, but those of a stream's clock. Not those of the nodes that
# ran twice whose two final results came in one second ($2, conversations a line): of two
# partitions, which came first no clock tells.
told() {
    jq -c --arg clocked "$CLOCKED" --rawfile tied "$2" 'select(.type == "conversation")
        | select(.conversation as $c | $tied | split("\n") | index($c) | not)
        | del(.file, .first_line, .last_file, .last_line)
        | .issues |= (map(.code | select(test($clocked) | not)) | sort)' "$1" | sort
}

# The conversations of the nodes that ran twice in file $1 whose runs ended in the same second.
tied_twice() {
    jq -r 'select(.type == "conversation") | [.conversation, .end, (.duplicate.assigns // [] | map("queen/" + .))] | @json' "$1" |
        jq -rs '(map({(.[0]): .[1]}) | add) as $ends | .[] | select(.[2] | length == 2)
            | .[2] as $pair | select($ends[$pair[0]] == $ends[$pair[1]]) | $pair[]'
}

# Findings in JSON on stderr file $1 as (code, id), but those of one stream's clock; a node that
# ran twice by its node.
told_findings() {
    jq -r --arg clocked "$CLOCKED" 'select(.code | test($clocked) | not)
        | if .code == "iacp-duplicate-execution" then [.code, (.message | capture("node (?<n>\x27[^\x27]*\x27)").n)] else [.code, .id] end
        | @tsv' "$1" | sort
}

@test "JetStream: each live partition into acp-trace --partition, merged: one process's conversations and findings" {
    local d=$BATS_TEST_TMPDIR k
    for k in $(seq 1 $PARTS); do
        payloads "$k" | acp-trace --partition=$k/$PARTS --diagnostics=json >"$d/live$k" 2>"$d/live$k.err" || true
    done
    acp-trace --merge --diagnostics=json "$d"/live? >"$d/merged" 2>"$d/merged.err" || true
    acp-trace --diagnostics=json "$D/colony.jsonl" >"$d/one" 2>"$d/one.err" || true
    grep -q duplicate-execution "$d/merged.err" || fail "the merge found no duplicate execution"
    { tied_twice "$d/merged"; tied_twice "$d/one"; } | sort -u >"$d/tied"
    # whole seconds: a tie is rare
    [ "$(wc -l <"$d/tied")" -le "$(($(wc -l <"$D/colony.jsonl") / 10000 + 2))" ] || fail "$(cat "$d/tied")"
    diff <(told "$d/merged" "$d/tied") <(told "$d/one" "$d/tied") || fail "the merged summaries are not one process's"
    diff <(cat "$d"/live?.err "$d/merged.err" | told_findings /dev/stdin) <(told_findings "$d/one.err") ||
        fail "the findings are not one process's"
}
