load test_helper

# acp-trace past one process: a generated capture big enough for every shard to hold thousands of
# conversations (reissued nodes, duplicate executions, refusals, clock skew), traced in 4 shards
# and merged, gives what one run in shard mode (--shard=1/1: the per-agent checks off) gives: the
# same conversations, the same counts and histograms exactly, and percentiles within the
# histogram's documented error (1%). The README's recipes with GNU parallel run here as written,
# on one machine and across "machines" reached through a stand-in for ssh.

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}

setup_file() {
    local d=$BATS_FILE_TMPDIR
    build_test_programs || return 1
    # 80,000 IACP messages of 48 foragers, about 20,000 tasks, with faults
    "$ACP_BUILD/gen-colony" --faults="$d/faults" 80000 48 11 >"$d/colony.jsonl"
    # 40,000 FIPA messages of 1,000 interleaved conversations at a time
    "$ACP_BUILD/gen-fipa" 40000 1000 5 >"$d/fipa.jsonl"
    # the recipes' capture: smaller, as what they test is how the shards are run
    "$ACP_BUILD/gen-colony" --faults="$d/recipe-faults" 20000 16 3 >"$d/recipe.jsonl"
}

C=$BATS_FILE_TMPDIR

# whole CAPTURE [OPTION...]: one run in shard mode, its statistics (whole.json), summaries
# (whole.sum) and diagnostics (whole.err) in the test's folder.
whole() {
    local cap=$1 d=$BATS_TEST_TMPDIR
    shift
    acp-trace --format=stats --by-agent --shard=1/1 "$@" "$cap" >"$d/whole.json" 2>"$d/whole.err" || true
    acp-trace --shard=1/1 "$@" "$cap" >"$d/whole.sum" 2>/dev/null || true
}

# shards CAPTURE [OPTION...]: the 4 shards, one after the other: shardK.json, shardK.sum, and
# every shard's diagnostics in shards.err.
shards() {
    local cap=$1 d=$BATS_TEST_TMPDIR k
    shift
    : >"$d/shards.err"
    for k in 1 2 3 4; do
        acp-trace --format=stats --by-agent --shard="$k/4" "$@" "$cap" >"$d/shard$k.json" 2>>"$d/shards.err" || true
        acp-trace --shard="$k/4" "$@" "$cap" >"$d/shard$k.sum" 2>/dev/null || true
    done
}

# Statistics without what a merge may round: the percentiles and the sums of the histograms.
EXACT='walk(if type == "object" then del(.p50, .p90, .p99, .sum) else . end)'

# same_as_whole STATS SUMMARIES: the merged statistics STATS and the summaries SUMMARIES (in any
# order) are those of the whole run: counts, minima, maxima and histograms exactly, percentiles
# within 1% of the whole run's and of the exact ones, and every conversation once.
same_as_whole() {
    local d=$BATS_TEST_TMPDIR
    diff <(jq -S "$EXACT" "$d/whole.json") <(jq -S "$EXACT" "$1") || fail "the merged statistics differ"
    run jq -n -r --slurpfile w "$d/whole.json" --slurpfile m "$1" '
        [$w[0] | paths(numbers) | select(.[-1] | IN("p50", "p90", "p99", "sum"))][] as $p
        | ($w[0] | getpath($p)) as $a | ($m[0] | getpath($p)) as $b
        | (if $p[-1] == "sum" then 1e-9 else 0.01 end) as $tolerance
        | select((($a - $b) | fabs) > $tolerance * ($a | fabs) + 1e-9)
        | "\($p | join(".")): \($b), whole \($a)"'
    assert_output ''
    run check_exact_percentiles "$1" "$d/whole.sum"
    assert_output ''
    diff <(sort "$d/whole.sum") <(sort "$2") >"$d/summaries.diff" ||
        fail "the summaries differ: $(head -4 "$d/summaries.diff")"
    [ "$(grep -c '' "$2")" -eq "$(jq '[.conversations[][]] | add' "$1")" ] || fail "not one summary per conversation"
}

# check_exact_percentiles STATS SUMMARIES: the IACP percentiles of STATS are within 1% of the exact
# ones (nearest rank) of the latencies in SUMMARIES; count, min and max are exact.
check_exact_percentiles() {
    jq -n --slurpfile s "$1" --slurpfile c "$2" -r '
        def pair($l): if $l == "accept" then "task.assign->task.accept"
                      elif .protocol == "iacp-tool" then "tool.query->tool.reply"
                      else "task.assign->task.result" end;
        [$c[] | select(.protocol | startswith("iacp")) | . as $x | .latency | to_entries[]
         | select(.value != null) | .key as $k | {pair: ($x | pair($k)), v: .value}]
        | group_by(.pair)[] | (.[0].pair) as $p | (map(.v) | sort) as $v | ($v | length) as $n
        | $s[0].latency[$p] as $got
        | (if $got.count != $n then "\($p): count \($got.count), not \($n)" else empty end),
          (if $got.min != $v[0] or $got.max != $v[-1] then "\($p): min or max" else empty end),
          ([["p50", 0.5], ["p90", 0.9], ["p99", 0.99]][] | . as [$k, $q]
           | ((($q * $n) | ceil) - 1) as $i | $v[$i] as $exact
           | if (($got[$k] - $exact) | fabs) > 0.01 * ($exact | fabs) + 1e-6
             then "\($p) \($k): \($got[$k]), exact \($exact)" else empty end)'
}

# Each of the 4 shards holds a fair part of the conversations (the hash spreads them).
assert_balanced() {
    local k n total
    total=$(jq '[.conversations[][]] | add' "$BATS_TEST_TMPDIR/whole.json")
    for k in 1 2 3 4; do
        n=$(grep -c '' "$BATS_TEST_TMPDIR/shard$k.sum")
        [ "$n" -gt $((total / 8)) ] || fail "shard $k has $n of $total conversations"
    done
}

merge() {
    acp-trace --merge-stats --by-agent "$@" >"$BATS_TEST_TMPDIR/merged.json" || fail "the merge failed"
}

@test "4 shards of 80,000 IACP messages, merged, are the whole run in shard mode" {
    local d=$BATS_TEST_TMPDIR
    whole "$C/colony.jsonl"
    shards "$C/colony.jsonl"
    merge "$d"/shard?.json
    cat "$d"/shard?.sum >"$d/shards.sum"
    same_as_whole "$d/merged.json" "$d/shards.sum"
    assert_balanced
    [ "$(jq .messages "$d/merged.json")" -eq 80000 ] || fail "messages lost"
    [ "$(jq '[.conversations[][]] | add' "$d/merged.json")" -gt 15000 ] || fail "too few conversations"
    # a reissued node's two assigns are in one shard, so its duplicate execution is found
    [ "$(jq '.anomalies["iacp-duplicate-execution"]' "$d/merged.json")" -gt 5 ] || fail "no duplicate executions"
    diff <(sort "$d/whole.err") <(sort "$d/shards.err") || fail "the findings differ"
    # the report of the merge is the report of the whole run
    diff <(acp-trace --format=report --by-agent --shard=1/1 "$C/colony.jsonl" 2>/dev/null) \
        <(acp-trace --merge-stats --format=report --by-agent "$d"/shard?.json) || fail "the reports differ"
}

@test "4 shards of 40,000 FIPA messages, merged, are the whole run in shard mode" {
    local d=$BATS_TEST_TMPDIR
    whole "$C/fipa.jsonl"
    shards "$C/fipa.jsonl"
    merge "$d"/shard?.json
    cat "$d"/shard?.sum >"$d/shards.sum"
    same_as_whole "$d/merged.json" "$d/shards.sum"
    assert_balanced
    [ "$(jq '[.latency[].count] | add' "$d/merged.json")" -gt 5000 ] || fail "too few latencies"
    diff <(sort "$d/whole.err") <(sort "$d/shards.err") || fail "the findings differ"
    # statistics by agent of 1,000 agents are one line longer than the 1M a message may be:
    # --merge-stats reads it whole, unless --max-line-bytes says otherwise
    [ "$(wc -c <"$d/whole.json")" -gt $((1024 * 1024)) ] || fail "the statistics are short"
    acp-trace --merge-stats --by-agent "$d/whole.json" >"$d/again.json" || fail "the merge failed"
    diff <(jq -S "$EXACT" "$d/whole.json") <(jq -S "$EXACT" "$d/again.json") || fail "the merge of one differs"
    run -1 --separate-stderr acp-trace --merge-stats --by-agent --max-line-bytes=1M "$d/whole.json"
    [[ $stderr == *"[line-too-long]"* ]] || fail "$stderr"
}

@test "shards of a damaged, mixed capture: a line that is no message is every shard's finding, and counted once" {
    local d=$BATS_TEST_TMPDIR
    # IACP and FIPA, one line of bad JSON and one message that fails its own checks
    { head -20000 "$C/colony.jsonl"; echo '{"v":"1.1","id":'; echo '{"v":"1.1","kind":"hb"}'
      head -10000 "$C/fipa.jsonl"; } >"$d/mixed.jsonl"
    # conversations that time out (a short --idle-timeout) are divided too
    whole "$d/mixed.jsonl" --idle-timeout=20
    shards "$d/mixed.jsonl" --idle-timeout=20
    merge "$d"/shard?.json
    cat "$d"/shard?.sum >"$d/shards.sum"
    same_as_whole "$d/merged.json" "$d/shards.sum"
    [ "$(grep -c '"outcome":"timeout"' "$d/shards.sum")" -gt 0 ] || fail "nothing timed out"
    # the bad JSON: each shard reads it and says so; the bad message: shard 1's alone
    [ "$(grep -c ':20001:.*\[bad-json\]' "$d/shards.err")" -eq 4 ] || fail "$(grep ':20001:' "$d/shards.err")"
    [ "$(grep -c ':20002:' "$d/shards.err")" -eq "$(grep -c ':20002:' "$d/whole.err")" ] || fail "the bad message"
    diff <(sort -u "$d/whole.err") <(sort -u "$d/shards.err") || fail "the findings differ"
}

# --- the README's recipes with GNU parallel ---

need_parallel() {
    command -v parallel >/dev/null || skip "needs GNU parallel (Debian: parallel; scripts/deps installs it)"
}

@test "README: 4 shards with GNU parallel on one machine" {
    need_parallel
    local d=$BATS_TEST_TMPDIR
    cd "$d"
    cp "$C/recipe.jsonl" big.jsonl
    whole big.jsonl
    # as the README writes it (parallel's status is the number of shards that found an error)
    parallel acp-trace --format=stats --shard={}/4 big.jsonl '>' shard{}.json ::: 1 2 3 4 2>/dev/null || true
    acp-trace --merge-stats shard?.json >merged.json
    parallel acp-trace --shard={}/4 big.jsonl ::: 1 2 3 4 >conversations.jsonl 2>/dev/null || true
    jq -c 'del(.by_agent)' whole.json >whole-plain.json
    mv whole-plain.json whole.json
    same_as_whole merged.json conversations.jsonl
}

@test "README: 4 shards across two machines with parallel --sshlogin (ssh stood in for)" {
    need_parallel
    local d=$BATS_TEST_TMPDIR
    whole "$C/recipe.jsonl"
    # the stand-in for ssh runs the command here, as the remote machine's shell would, and notes
    # which machine it was for. Like sshd it sets SHELL to the user's login shell: parallel's
    # remote worker runs the command with $SHELL, and CI runs the tests with SHELL unset.
    cat >"$d/ssh" <<'SH'
#!/bin/bash
SHELL=$(getent passwd "$(id -u)" | cut -d: -f7)
export SHELL=${SHELL:-/bin/sh}
while [ $# -gt 0 ]; do
    case $1 in
    -[lopiFJ]) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
echo "$1" >>"${0%/*}/hosts"
shift
[ "${1-}" = -- ] && shift
exec bash -c "$*"
SH
    chmod +x "$d/ssh"
    # as the README writes it; the capture is at the same path on every machine
    parallel --ssh "$d/ssh" --sshlogin m1,m2 acp-trace --format=stats --by-agent --shard={}/4 \
        "$C/recipe.jsonl" ::: 1 2 3 4 >"$d/shards.json" 2>/dev/null || true
    [ -s "$d/shards.json" ] || fail "the remote shards wrote nothing"
    acp-trace --merge-stats --by-agent "$d/shards.json" >"$d/merged.json"
    parallel --ssh "$d/ssh" --sshlogin m1,m2 acp-trace --shard={}/4 "$C/recipe.jsonl" \
        ::: 1 2 3 4 >"$d/conversations.jsonl" 2>/dev/null || true
    same_as_whole "$d/merged.json" "$d/conversations.jsonl"
    grep -qx m1 "$d/hosts" && grep -qx m2 "$d/hosts" || fail "not both machines were used: $(sort -u "$d/hosts")"
}
