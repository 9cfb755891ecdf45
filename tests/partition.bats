# --partition=K/N (acp-validate, acp-trace): the share of a stream NATS's subject mapping gives
# partition K-1 of N (proto/partition.h): each message's key (IACP's forager, FIPA's
# conversation_id) as one subject token, FNV-1a of 32 bits modulo N. On a file, a partition
# selects those messages; every per-forager check stays on; what spans partitions (a node
# reissued or run by another forager, a reply to another partition's assign, the queen's ids) is
# not claimed by any partition. 5 partitions: not a power of two, where a wrong hash would hide.
load test_helper

# Findings on stderr ($1, a file) as "line severity code", sorted, once each.
findings() {
    sed -n 's/^[^:]*: [^:]*:\([0-9]*\):[0-9:]* *\([a-z]*\): .*\[\([a-z0-9-]*\)\]$/\1 \2 \3/p' "$1" | sort -u
}

# What spans partitions, and what depends on one stream's clock (a partition's own clock runs
# on its own messages); of the first, what no partition can tell alone (a node's runs, a reply
# whose ref no message of its partition has: a wrong replier's when the assign is another's).
SPANNING='iacp-(duplicate-execution|reissue|reissue-unexpected|late-accept|orphan|wrong-replier)$'
NEVER_ALONE='iacp-(duplicate-execution|reissue|reissue-unexpected|late-accept|orphan)$'
CLOCKED='iacp-(silent|skew|evicted)$'

setup_file() {
    build_test_programs
    "$ACP_BUILD/gen-colony" --faults="$BATS_FILE_TMPDIR/faults" 20000 16 5 >"$BATS_FILE_TMPDIR/colony.jsonl"
}

@test "partition-key: FNV-1a of 32 bits (its published vectors), and keys written as one subject token" {
    run -0 "$ACP_BUILD/tests/partition-key" --hash < <(printf '\na\nfoobar\nforager.07\na b*>\n\xc3\xa9\nq-1_x\n')
    assert_output "$(printf '%s\t%s\n' 811c9dc5 % e40c292c a bf9cf968 foobar b6a7762e forager%2E07 \
        2a02b202 'a%20b%2A%3E' 1e9de8c1 %C3%A9 01c228e9 q-1_x)"
    # the key: IACP's forager (the party that is not the queen; the querier of a tool.reply), FIPA's
    # conversation_id, else its sender; MCP none
    run -0 "$ACP_BUILD/tests/partition-key" 5 <<'EOF'
{"v":"1.1","id":"q-1","from":"queen","to":"forager.07","kind":"task.assign","ts":1,"body":{"node":"n"}}
{"v":"1.1","id":"m-1","from":"forager.07","to":"queen","kind":"task.accept","ref":"q-1","ts":1}
{"v":"1.1","id":"m-2","from":"forager-1","to":"tools","kind":"tool.query","ts":1}
{"v":"1.1","id":"t-1","from":"tools","to":"forager-1","kind":"tool.reply","ref":"m-2","ts":1}
{"performative":"inform","sender":{"name":"a"},"receiver":[{"name":"b"}],"content":"x","conversation_id":"c.1"}
{"performative":"inform","sender":{"name":"a"},"receiver":[{"name":"b"}],"content":"x"}
{"jsonrpc":"2.0","id":1,"method":"ping"}
EOF
    assert_output "$(printf '%s\t%s\t%s\n' forager%2E07 dd1acba6 $((0xdd1acba6 % 5 + 1)) forager%2E07 dd1acba6 $((0xdd1acba6 % 5 + 1)) \
        forager-1 83d2dd29 $((0x83d2dd29 % 5 + 1)) forager-1 83d2dd29 $((0x83d2dd29 % 5 + 1)) \
        c%2E1 39fef6c3 $((0x39fef6c3 % 5 + 1)) a e40c292c $((0xe40c292c % 5 + 1)) - 0 0)"
}

@test "acp-validate --partition=K/N: each message in exactly one partition, the one of its key; a record that is no message in each" {
    local d=$BATS_TEST_TMPDIR k
    { head -2000 "$BATS_FILE_TMPDIR/colony.jsonl"; echo 'not json'; echo '{"jsonrpc":"2.0","id":1,"method":"ping"}'; } >"$d/in.jsonl"
    for k in 1 2 3 4 5; do
        acp-validate --partition=$k/5 --pass=all --stateless --rejects="$d/rej$k" "$d/in.jsonl" >"$d/out$k" 2>"$d/err$k" || true
        # each output line is of this partition by its key
        "$ACP_BUILD/tests/partition-key" 5 <"$d/out$k" | cut -f3 | sed 's/^0$/1/' | sort -u >"$d/parts$k"
        [ ! -s "$d/out$k" ] || [ "$(cat "$d/parts$k")" = "$k" ] || fail "partition $k holds $(tr '\n' ' ' <"$d/parts$k")"
        # the line that is no JSON: reported and rejected in every partition
        grep -qx 'not json' "$d/rej$k" || fail "partition $k did not reject the line that is no JSON"
        [[ $(cat "$d/err$k") == *":2001:"*"[bad-json]"* ]] || fail "$(cat "$d/err$k")"
    done
    # every message once: the partitions' outputs are the input's messages, the MCP one (no key)
    # in partition 1
    diff <(cat "$d"/out? | sort) <(grep -vx 'not json' "$d/in.jsonl" | sort)
    grep -qF '"jsonrpc"' "$d/out1"
    # and so each stats line says how many of the others it left out
    run -1 --separate-stderr acp-validate --partition=2/5 --stateless --stats -o /dev/null "$d/in.jsonl"
    [[ $stderr == *"acp-validate: 2002 records: $(wc -l <"$d/out2") valid, 1 rejected, 0 blank, $((2001 - $(wc -l <"$d/out2"))) of other partitions;"* ]] ||
        fail "$stderr"
}

@test "acp-validate --partition: the partitions find what one process finds, but for what spans partitions or one stream's clock, which no partition claims" {
    local d=$BATS_TEST_TMPDIR k
    local in=$BATS_FILE_TMPDIR/colony.jsonl
    acp-validate "$in" >/dev/null 2>"$d/all.err" || true
    for k in 1 2 3 4 5; do
        acp-validate --partition=$k/5 "$in" >/dev/null 2>"$d/part$k.err" || true
    done
    findings "$d/all.err" >"$d/all"
    cat "$d"/part?.err >"$d/parts.err"
    findings "$d/parts.err" >"$d/parts"
    grep -Eq "$SPANNING" "$d/all" || fail "the capture has nothing that spans partitions"
    # what one process finds of each forager alone, every partition together finds
    run -0 comm -23 <(grep -Ev "$SPANNING|$CLOCKED" "$d/all") <(grep -Ev "$CLOCKED" "$d/parts")
    [ "$output" = "" ] || fail "one process alone found: $output"
    # and the partitions claim nothing one process does not, nor what only the whole stream shows
    run -0 comm -13 <(grep -Ev "$CLOCKED" "$d/all") <(grep -Ev "$CLOCKED" "$d/parts")
    [ "$output" = "" ] || fail "the partitions alone found: $output"
    run -1 grep -E "$NEVER_ALONE" "$d/parts"
    # the queen's ids span partitions: no partition tells a duplicate of hers
    grep -q "duplicate-id" "$d/all"
    run -1 grep -E "'queen' already sent a message" "$d/parts.err"
    # the same with -j 2
    for k in 1 4; do
        cmp <(acp-validate -j 2 --partition=$k/5 "$in" 2>&1) <(acp-validate --partition=$k/5 "$in" 2>&1)
    done
}

@test "acp-trace --partition: the partitions' summaries are one process's conversations, each in one partition" {
    local d=$BATS_TEST_TMPDIR k
    local in=$BATS_FILE_TMPDIR/colony.jsonl
    for k in 1 2 3 4 5; do
        acp-trace --partition=$k/5 "$in" 2>/dev/null | jq -r 'select(.type == "conversation") | .conversation'
    done | sort >"$d/parts"
    acp-trace "$in" 2>/dev/null | jq -r .conversation | sort >"$d/all"
    [ "$(wc -l <"$d/all")" -gt 3000 ]
    diff "$d/parts" "$d/all"
    # FIPA by conversation_id: each conversation whole in one partition
    "$ACP_BUILD/gen-fipa" 3000 >"$d/fipa.jsonl" 2>/dev/null || skip "gen-fipa takes other arguments"
    for k in 1 2 3; do
        acp-trace --partition=$k/3 "$d/fipa.jsonl" 2>/dev/null | jq -c '[.conversation, .messages, .outcome]'
    done | sort >"$d/fparts"
    acp-trace "$d/fipa.jsonl" 2>/dev/null | jq -c '[.conversation, .messages, .outcome]' | sort >"$d/fall"
    diff "$d/fparts" "$d/fall"
}

@test "--partition: K/N with 1 <= K <= N, and not with --shard or --merge-stats" {
    local bad
    for bad in 0/5 6/5 5 x/5 /5 2/; do
        run -2 --separate-stderr acp-validate --partition=$bad /dev/null
        [[ $stderr == *"--partition must be K/N with 1 <= K <= N, as in --partition=2/5"* ]] || fail "$bad: $stderr"
    done
    run -2 --separate-stderr acp-trace --partition=1/2 --shard=1/2 /dev/null
    [[ $stderr == *"--shard and --partition exclude each other"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-trace --partition=1/2 --merge-stats /dev/null
    [[ $stderr == *"--partition do not apply"* ]] || fail "$stderr"
}

# The merge over the partitions' summaries (acp-trace --merge): a node's runs, which a reissue
# spreads over partitions, followed in one order as one process follows them.
CHAINED='iacp-(duplicate-execution|reissue|reissue-unexpected|late-accept)$'

# Each partition's summaries of the colony in $1/s1..s5, merged into $1/merged (findings: .err).
merge_partitions() {
    local k
    for k in 1 2 3 4 5; do
        acp-trace --partition=$k/5 "$BATS_FILE_TMPDIR/colony.jsonl" >"$1/s$k" 2>/dev/null || true
    done
    acp-trace --merge "$1"/s1 "$1"/s2 "$1"/s3 "$1"/s4 "$1"/s5 >"$1/merged" 2>"$1/merged.err" || true
}

# Summaries as sets: one a line, sorted, each one's issues in one order.
summaries() {
    jq -c 'select(.type == "conversation") | .issues |= sort_by(.line, .code, .message)' "$1" | sort
}

@test "acp-trace --merge: what spans partitions, found as one process finds it, in its words and its summaries" {
    local d=$BATS_TEST_TMPDIR in=$BATS_FILE_TMPDIR/colony.jsonl
    acp-trace "$in" >"$d/one" 2>"$d/one.err" || true
    merge_partitions "$d"
    findings "$d/one.err" | grep -E "$SPANNING" >"$d/one.spanning"
    grep -q duplicate-execution "$d/one.spanning" && grep -q wrong-replier "$d/one.spanning" &&
        grep -q orphan "$d/one.spanning" || fail "the colony lacks what spans partitions"
    # the merge tells what spans partitions, at the lines and in the words of one process (a
    # wrong replier of the assign's own partition is that partition's)
    run -0 comm -23 <(findings "$d/merged.err") "$d/one.spanning"
    [ "$output" = "" ] || fail "the merge alone found: $output"
    run -0 comm -23 <(findings "$d/merged.err" | grep -E "$NEVER_ALONE") <(grep -E "$NEVER_ALONE" "$d/one.spanning")
    [ "$output" = "" ] || fail "one process alone found: $output"
    run -0 comm -23 <(sort "$d/merged.err") <(sort "$d/one.err")
    [ "$output" = "" ] || fail "in other words: $output"
    # and the partitions' with the merge's are one process's, but where one stream's clock tells
    for k in 1 2 3 4 5; do
        acp-trace --partition=$k/5 "$in" 2>&1 >/dev/null || true
    done >"$d/parts.err"
    diff <(findings <(cat "$d/parts.err" "$d/merged.err") | grep -Ev "$CLOCKED") <(findings "$d/one.err" | grep -Ev "$CLOCKED")
    # the seed's bug across partitions: the two runs of a node in two partitions' summaries
    local twice first second
    twice=$(jq -r 'select(.duplicate) | .duplicate.assigns | "queen/\(.[0]) queen/\(.[1])"' "$d/merged" | head -1)
    read -r first second <<<"$twice"
    [ "$(grep -l "\"conversation\":\"$first\"" "$d"/s?)" != "$(grep -l "\"conversation\":\"$second\"" "$d"/s?)" ] ||
        fail "$twice ran in one partition"
    # the summaries are one process's: spans left out, the merge's findings among their issues
    run -1 grep -F '"span"' "$d/merged"
    diff <(summaries "$d/merged") <(summaries "$d/one")
}

@test "acp-trace --merge: files only, summaries only; a span that cannot be read is reported" {
    local d=$BATS_TEST_TMPDIR
    run -2 --separate-stderr acp-trace --merge </dev/null
    [[ $stderr == *"--merge reads its FILEs twice"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-trace --merge - </dev/null
    [[ $stderr == *"--merge reads its FILEs twice"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-trace --merge --format=stats /dev/null
    [[ $stderr == *"--merge-stats, --format, --follow, --shard and --partition do not apply"* ]] || fail "$stderr"
    run -2 --separate-stderr acp-trace --merge --partition=1/2 /dev/null
    printf '%s\n' '{"type":"conversation","conversation":"queen/q-1","protocol":"iacp-task","span":{"node":7}}' \
        '{"type":"conversation","conversation":"x","protocol":"fipa-request","issues":[]}' >"$d/bad"
    run -1 --separate-stderr acp-trace --merge "$d/bad"
    [[ $stderr == *"bad:1: error: its span is not an IACP run's: it cannot be merged [trace-span-invalid]"* ]] || fail "$stderr"
    # every record written once, the span left out
    [ "${#lines[@]}" = 2 ] && [[ ${lines[0]} != *span* ]] && [ "${lines[1]}" = "$(sed -n 2p "$d/bad")" ] || fail "$output"
}

@test "acp-trace --merge: the queen's ids, which span partitions, used twice: found as one process finds them" {
    local d=$BATS_TEST_TMPDIR k
    # fa and fd are partition 4's of 5, fb 1's, fc 2's (partition-key)
    cat >"$d/in.jsonl" <<'JSONL'
{"v":"1.1","id":"q-0001","from":"queen","to":"fa","kind":"task.assign","ts":1312284100,"body":{"node":"n1"}}
{"v":"1.1","id":"m-000001","from":"fa","to":"queen","kind":"task.accept","ref":"q-0001","ts":1312284100}
{"v":"1.1","id":"q-0001","from":"queen","to":"fb","kind":"ctl.drain","ts":1312284101}
{"v":"1.1","id":"q-0002","from":"queen","to":"fd","kind":"ctl.drain","ts":1312284102}
{"v":"1.1","id":"q-0002","from":"queen","to":"fb","kind":"ctl.drain","ts":1312284103}
{"v":"1.1","id":"q-0003","from":"queen","to":"fd","kind":"ctl.halt","ts":1312284104}
{"v":"1.1","id":"q-0003","from":"queen","to":"fa","kind":"ctl.halt","ts":1312284104}
{"v":"1.1","id":"m-000002","from":"fa","to":"queen","kind":"task.result","ref":"q-0001","ts":1312284107,"body":{"status":"ok"}}
{"v":"1.1","id":"q-0003","from":"queen","to":"fc","kind":"ctl.drain","ts":1312284108}
JSONL
    [ "$("$ACP_BUILD/tests/partition-key" 5 <"$d/in.jsonl" | cut -f3 | sort -u | tr '\n' ' ')" = "1 2 4 " ]
    acp-trace "$d/in.jsonl" 2>&1 >/dev/null | grep duplicate-id >"$d/one" || true
    [ "$(wc -l <"$d/one")" = 4 ] || fail "$(cat "$d/one")"
    for k in 1 2 3 4 5; do
        acp-trace --partition=$k/5 "$d/in.jsonl" >"$d/s$k" 2>"$d/e$k" || true
    done
    # no partition tells the queen's, not even one within itself (lines 6 and 7)
    run -1 grep -h duplicate-id "$d"/e?
    run -1 acp-trace --merge "$d"/s?
    diff <(grep duplicate-id <<<"$output") "$d/one"
}

@test "acp-trace --merge: long names and ids compared across partitions under a shared --span-secret, and told apart by more than their first bytes" {
    local d=$BATS_TEST_TMPDIR k prefix node1 node2 id
    prefix=$(printf 'tg:%0200d' 0)
    node1=${prefix}-one node2=${prefix}-two id=q-$(printf '%080d' 7)
    # fa and fd are partition 4's of 5, fb 1's, fc 2's: node1 runs in 4 and 1, node2 (the same
    # first 200 bytes) in 2; the queen's long id goes to 1 and 4
    cat >"$d/in.jsonl" <<JSONL
{"v":"1.1","id":"q-0001","from":"queen","to":"fa","kind":"task.assign","ts":1312284100,"body":{"node":"$node1"}}
{"v":"1.1","id":"m-000001","from":"fa","to":"queen","kind":"task.accept","ref":"q-0001","ts":1312284100}
{"v":"1.1","id":"q-0002","from":"queen","to":"fc","kind":"task.assign","ts":1312284101,"body":{"node":"$node2"}}
{"v":"1.1","id":"m-000001","from":"fc","to":"queen","kind":"task.accept","ref":"q-0002","ts":1312284101}
{"v":"1.1","id":"q-0003","from":"queen","to":"fb","kind":"task.assign","ts":1312284401,"body":{"node":"$node1"}}
{"v":"1.1","id":"m-000001","from":"fb","to":"queen","kind":"task.accept","ref":"q-0003","ts":1312284401}
{"v":"1.1","id":"m-000002","from":"fb","to":"queen","kind":"task.result","ref":"q-0003","ts":1312284402,"body":{"status":"ok"}}
{"v":"1.1","id":"m-000002","from":"fa","to":"queen","kind":"task.result","ref":"q-0001","ts":1312284403,"body":{"status":"ok"}}
{"v":"1.1","id":"m-000002","from":"fc","to":"queen","kind":"task.result","ref":"q-0002","ts":1312284404,"body":{"status":"ok"}}
{"v":"1.1","id":"$id","from":"queen","to":"fb","kind":"ctl.drain","ts":1312284405}
{"v":"1.1","id":"$id","from":"queen","to":"fd","kind":"ctl.drain","ts":1312284406}
JSONL
    acp-trace "$d/in.jsonl" >"$d/one" 2>"$d/one.err" || true
    findings "$d/one.err" | grep -E "$SPANNING|duplicate-id" >"$d/one.spanning"
    [ "$(cut -d' ' -f3 "$d/one.spanning" | sort | tr '\n' ' ')" = "iacp-duplicate-execution iacp-duplicate-id iacp-reissue " ] ||
        fail "$(cat "$d/one.err")"
    # one secret for the run's partitions
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$d/span.key"
    for k in 1 2 3 4 5; do
        acp-trace --span-secret="$d/span.key" --partition=$k/5 "$d/in.jsonl" >"$d/s$k" 2>/dev/null || true
    done
    run -1 --separate-stderr acp-trace --merge "$d"/s?
    diff <(findings <(printf '%s\n' "$stderr")) "$d/one.spanning"
    diff <(summaries <(printf '%s\n' "$output")) <(summaries "$d/one")
    # a secret each: the merge says so, and cannot tell the long node's runs apart from others'
    for k in 1 2 3 4 5; do
        acp-trace --partition=$k/5 "$d/in.jsonl" >"$d/s$k" 2>/dev/null || true
    done
    run -0 --separate-stderr acp-trace --merge "$d"/s?
    [[ $stderr == *"warning: its long names and ids were digested under another secret than the spans' before it"*"[trace-span-secret]"* ]] || fail "$stderr"
    [[ $stderr != *duplicate-execution* ]] || fail "$stderr"
}
