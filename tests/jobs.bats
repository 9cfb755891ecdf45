load test_helper

# -j/--jobs: worker threads parse and check, one thread keeps the order. The property: with any
# number of jobs, stdout, stderr, the --rejects file, the --stats line and the exit status are byte
# for byte those of -j 1, on every input; and a live pipe still gets each result at once.

setup_file() {
    build_test_programs
    CORES=$(getconf _NPROCESSORS_ONLN)
    export CORES
}

GOOD='{"v":"1.1","id":"m-000001","from":"forager-1","to":"queen","kind":"hb","ts":1700000000,"body":{"slots":1}}'

# Runs TOOL ARGS... in DIR with standard input from IN, with -j 1 and then with each of JOBS
# (default "2"), and fails unless everything it produced is the same. "@REJECTS" in ARGS stands
# for a --rejects file, compared too. A count of JOBS that comes to one run already made (-j 0 is
# one job per core: on two cores, -j 2 again) is not run twice. What each run produced goes in a
# folder of its own (out, err, status, rejects), and one diff compares two such folders: the
# suite runs this some thousand times, and the processes it starts are most of its time.
same_as_one_job() {
    local in=$1 dir=$2 tool=$3 t=$BATS_TEST_TMPDIR j ran=" " head status
    shift 3
    local args=("${@//@REJECTS/$t/rejects}")
    for j in 1 ${JOBS:-2}; do
        local jobs=$j
        [ "$j" = 0 ] && jobs=$CORES
        [[ $ran == *" $jobs "* ]] && continue
        ran+="$jobs "
        [ -d "$t/run.$j" ] || mkdir "$t/run.$j"
        status=0
        cd "$dir" || return
        "$tool" -j "$j" "${args[@]}" <"$in" >"$t/run.$j/out" 2>"$t/run.$j/err" || status=$?
        cd "$OLDPWD" || return
        echo "$status" >"$t/run.$j/status"
        if [ -f "$t/rejects" ]; then mv "$t/rejects" "$t/run.$j/rejects"; else : >"$t/run.$j/rejects"; fi
        if [ "$j" = 1 ]; then
            head=
            read -r -N 4096 head <"$t/run.1/err" || true
            [[ $head != *"Try '"*" --help'"* ]] || fail "$tool $*: $head"
        elif ! diff -rq "$t/run.1" "$t/run.$j" >/dev/null; then
            differs "$t/run.1" "$t/run.$j" "$tool -j $j $*"
        fi
    done
}

# Fails, saying which of the outputs in the folder AFTER differ from those in BEFORE, and how.
differs() { # BEFORE AFTER WHAT
    local f
    for f in out err status rejects; do
        cmp -s "$1/$f" "$2/$f" || fail "$3: $f differs from -j 1: $(diff "$1/$f" "$2/$f" | head -6)"
    done
    fail "$3: differs from -j 1"
}

# Every way to run the three tools over one input, each with and without --stats and --rejects.
every_tool() {
    local in=$1 dir=${2:-.}
    shift 2 || true
    local extra
    for extra in "" "--stats @REJECTS"; do
        # shellcheck disable=SC2086
        {
            same_as_one_job "$in" "$dir" acp-validate "$@" $extra
            same_as_one_job "$in" "$dir" acp-validate --stateless "$@" $extra
            same_as_one_job "$in" "$dir" acp-trace "$@" $extra
            same_as_one_job "$in" "$dir" acp-trace --format=report --by-agent "$@" $extra
            same_as_one_job "$in" "$dir" acp-convert --to=fipa --seed=7 --now=1700000000 "$@" $extra
            same_as_one_job "$in" "$dir" acp-convert --to=iacp --seed=7 --now=1700000000 "$@" $extra
        }
    done
}

@test "every golden case gives with -j 2 what it gives with -j 1, with its args and with --stats and --rejects" {
    local dir tool args input
    for dir in "$TESTS_DIR"/golden/*/*/; do
        dir=${dir%/}
        tool=acp-$(basename "$(dirname "$dir")")
        args=()
        [ -f "$dir/args" ] && mapfile -t args <"$dir/args"
        input=/dev/null
        [ -f "$dir/input" ] && input=$dir/input
        same_as_one_job "$input" "$dir" "$tool" "${args[@]}"
        same_as_one_job "$input" "$dir" "$tool" "${args[@]}" --stats @REJECTS
    done
}

# An input that several cases share is run once: every_tool gives it the same arguments in each.
@test "every golden input gives the same through all three tools with -j 1, 2 and 0" {
    local sum input
    local -A seen
    while read -r sum input; do
        [ -z "${seen[$sum]:-}" ] || continue
        seen[$sum]=1
        JOBS="2 0" every_tool "$input" "$(dirname "$input")"
    done < <(md5sum "$TESTS_DIR"/golden/*/*/input)
}

# Input of every bad kind, many times over, so that it spans many batches: invalid JSON, NUL bytes,
# bad UTF-8, duplicate keys, lines growing past --max-line-bytes, blank lines, CRLF, string-form
# JADE messages (two on one line, one cut short), and good messages between them.
bad_input() {
    local i
    for i in $(seq 1 "${1:-300}"); do
        cat "$FIXTURES/acl/jade-request.acl"
        printf '(inform :sender x :content "%d" junk\n' "$i"
        printf '{"v":"1.1","id":"m-%d","from":"forager-1","to":"queen","kind":"hb","ts":1700000000,"body":{"slots":1}}\r\n' "$i"
        printf '\n   \n{"a":1,"a":2}\n{"x":"\0"}\n"\xff\xfe"\n{"v":"1.1",\n[1,2]\n'
        printf '%s\n' "$GOOD"
        head -c $((i * 7)) /dev/zero | tr '\0' 'x'
        echo
        printf '(request :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "c") (inform :content x)\n'
        cat "$FIXTURES/acl/jade-subscription.acl"
        printf '{"v":"1.1","id":"q-%d","from":"queen","to":"forager-2","kind":"task.assign","ts":1700000001,"body":{"node":"n-%d"}}\n' "$i" "$i"
    done
}

@test "bad input of every kind gives the same with -j 2, 3 and 0, also with --max-line-bytes and --from" {
    bad_input >"$BATS_TEST_TMPDIR/bad"
    local in=$BATS_TEST_TMPDIR/bad
    JOBS="2 3 0" every_tool "$in" .
    JOBS="2 3" every_tool "$in" . --max-line-bytes=600
    JOBS="2 3" same_as_one_job "$in" . acp-validate --from=fipa-acl --max-line-bytes=300 --stats @REJECTS
    JOBS="2 3" same_as_one_job "$in" . acp-validate --from=json --stats @REJECTS
    JOBS="2 3 0" same_as_one_job "$in" . acp-validate --from=auto --stats @REJECTS
    JOBS="2 3" same_as_one_job "$in" . acp-convert --to=fipa --from=auto --seed=1 --now=1 --stats @REJECTS
    JOBS="2 3" same_as_one_job "$in" . acp-convert --to=iacp --from=fipa-acl --seed=1 --now=1 --stats @REJECTS
    JOBS="2" same_as_one_job "$in" . acp-validate --protocol=iacp --stats @REJECTS
    JOBS="2" same_as_one_job "$in" . acp-validate --diagnostics=json --strict --stats @REJECTS
    JOBS="2" same_as_one_job "$in" . acp-validate --color=always --stats
    JOBS="2" same_as_one_job "$in" . acp-convert --to=fipa-acl --seed=1 --now=1700000000 --stats @REJECTS
    JOBS="2" same_as_one_job "$in" . acp-trace --format=stats --stats
    JOBS="2" same_as_one_job "$in" . acp-trace --format=text --stats
    JOBS="2" same_as_one_job "$in" . acp-trace --shard=2/3 --stats
}

@test "--max-errors stops where -j 1 stops, says the same of what it left unread, on files and pipes" {
    bad_input 200 >"$BATS_TEST_TMPDIR/bad"
    local in=$BATS_TEST_TMPDIR/bad n
    for n in 1 2 7 50 133 500 733 1001 2999; do
        JOBS="2 3" same_as_one_job "$in" . acp-validate --max-errors=$n --stats @REJECTS "$in" "$in"
        JOBS="2" same_as_one_job "$in" . acp-validate --max-errors=$n --stats @REJECTS
        JOBS="2" same_as_one_job "$in" . acp-validate --from=fipa-acl --max-errors=$n --stats "$in"
        JOBS="2" same_as_one_job "$in" . acp-validate --max-line-bytes=400 --max-errors=$n --stats "$in"
        JOBS="2" same_as_one_job "$in" . acp-trace --max-errors=$n --diagnostics=json --stats "$in"
        JOBS="2" same_as_one_job "$in" . acp-convert --to=fipa --seed=1 --now=1 --max-errors=$n --stats "$in"
    done
}

@test "a generated capture of 60,000 messages gives the same with -j 2, 3 and 0" {
    local t=$BATS_TEST_TMPDIR colony=40000 fipa=20000
    # Under ThreadSanitizer a fifth: 24 batches of 512 records still pass between the threads,
    # where its runs of all 117 took 25 s.
    if [ "${ACP_UNDER-}" = ThreadSanitizer ]; then colony=8000 fipa=4000; fi
    "$ACP_BUILD/gen-colony" --faults="$t/faults" "$colony" 16 3 >"$t/colony"
    "$ACP_BUILD/gen-fipa" "$fipa" 200 5 >"$t/fipa"
    cat "$t/colony" "$t/fipa" >"$t/capture"
    [ "$(wc -l <"$t/capture")" -ge $((colony + fipa)) ]
    JOBS="2 3 0" every_tool "$t/capture" .
    # Several files, a bad one between them, and --max-errors on the way.
    bad_input 50 >"$t/bad"
    JOBS="2 3" same_as_one_job /dev/null . acp-validate --stats @REJECTS "$t/colony" "$t/bad" - "$t/fipa"
    JOBS="2" same_as_one_job "$t/capture" . acp-validate --stats @REJECTS "$t/colony" - "$t/bad"
    JOBS="2" same_as_one_job /dev/null . acp-validate --max-errors=150 --stats "$t/colony" "$t/bad" "$t/fipa"
    JOBS="2" same_as_one_job /dev/null . acp-trace --format=stats "$t/fipa" "$t/colony"
    JOBS="2" same_as_one_job "$t/capture" . acp-validate --stateless -q --stats
}

# The ordered thread reads the views the workers kept (jv_store): a text with no string in it ({},
# [], a number) holds no characters to keep, at the start of a batch and after a full one.
@test "views kept across threads: texts without a string, first in a batch and after 512 others" {
    local t=$BATS_TEST_TMPDIR i
    {
        printf '{}\n[]\n7\n{"v":"1.1"}\n'
        for i in $(seq 1 511); do echo "$GOOD"; done
        printf '{}\n{"a":{}}\n'
        echo "$GOOD"
    } >"$t/capture"
    JOBS="2 3" every_tool "$t/capture"
}

@test "the awkward messages of the round-trip tests convert the same with -j 2" {
    local t=$BATS_TEST_TMPDIR kind to
    for kind in iacp fipa; do
        "$ACP_BUILD/gen-mixed" "$kind" 3000 11 >"$t/$kind"
        for to in iacp fipa fipa-acl; do
            JOBS="2 3" same_as_one_job "$t/$kind" . acp-convert --to=$to --seed=3 --now=1700000000 --stats @REJECTS
        done
    done
}

@test "-j 0 is one job per core; a bad count is a usage error" {
    f=$(lines_file "$GOOD")
    run -0 --separate-stderr acp-validate -j 0 "$f"
    assert_output "$GOOD"
    assert_equal "$stderr" ''
    run -0 --separate-stderr acp-validate --jobs=4 "$f"
    assert_output "$GOOD"
    for bad in -1 x 1.5 '' 100000; do
        run -2 --separate-stderr acp-validate --jobs="$bad" "$f"
        [[ $stderr == *"invalid argument '$bad' for '--jobs'"* ]] || fail "--jobs=$bad: $stderr"
    done
}

@test "a live pipe written slowly gets each result at once with -j 2" {
    skip_under ThreadSanitizer "it runs a thread of its own"
    local t=$BATS_TEST_TMPDIR i
    mkfifo "$t/fifo"
    acp-validate -j 2 <"$t/fifo" >"$t/out" 2>"$t/err" 3>&- &
    pid=$!
    exec {writer}>"$t/fifo"
    # -j N is N threads in all: the reading thread (which parses too) and one worker.
    for _ in $(seq 50); do [ "$(ls /proc/$pid/task | wc -l)" -eq 2 ] && break; sleep 0.1; done
    assert_equal "$(ls /proc/$pid/task | wc -l)" 2
    for i in 1 2 3; do
        printf '{"v":"1.1","id":"m-00000%d","from":"forager-1","to":"queen","kind":"hb","ts":1700000000,"body":{"slots":1}}\n{bad %d\n' "$i" "$i" >&"$writer"
        for _ in $(seq 50); do [ "$(wc -l <"$t/out")" -ge "$i" ] && [ "$(wc -l <"$t/err")" -ge "$i" ] && break; sleep 0.1; done
        assert_equal "$(wc -l <"$t/out")" "$i"
        assert_equal "$(wc -l <"$t/err")" "$i"
    done
    exec {writer}>&-
    status=0
    wait "$pid" || status=$?
    assert_equal "$status" 1
}

@test "-j 1 starts no thread" {
    local t=$BATS_TEST_TMPDIR
    mkfifo "$t/fifo"
    acp-validate -j 1 <"$t/fifo" >/dev/null 3>&- &
    pid=$!
    exec {writer}>"$t/fifo"
    printf '%s\n' "$GOOD" >&"$writer"
    sleep 0.2
    assert_equal "$(ls /proc/$pid/task | wc -l)" 1
    exec {writer}>&-
    wait "$pid"
}

@test "SIGINT mid-run with -j 2 exits 130 and loses nothing that was written" {
    local t=$BATS_TEST_TMPDIR i
    mkfifo "$t/fifo"
    acp-validate -j 2 --stats <"$t/fifo" >"$t/out" 2>"$t/err2" 3>&- &
    pid=$!
    exec {writer}>"$t/fifo"
    for i in 1 2 3; do
        printf '{"v":"1.1","id":"m-00000%d","from":"forager-1","to":"queen","kind":"hb","ts":1700000000,"body":{"slots":1}}\n' "$i" >&"$writer"
        sleep 0.2
    done
    for _ in $(seq 50); do [ "$(wc -l <"$t/out")" -ge 3 ] && break; sleep 0.1; done
    kill -INT "$pid"
    status=0
    wait "$pid" || status=$?
    exec {writer}>&-
    assert_equal "$status" 130
    assert_equal "$(wc -l <"$t/out")" 3
    assert_equal "$(cat "$t/err2")" "acp-validate: 3 records: 3 valid, 0 rejected, 0 blank; 0 warnings, 0 errors"
}

@test "SIGINT with -j 2 while stdout is blocked on a full pipe exits 130 without a word" {
    local t=$BATS_TEST_TMPDIR
    yes "$GOOD" | head -n 30000 >"$t/big"
    mkfifo "$t/fifo"
    acp-validate -j 2 --stateless "$t/big" >"$t/fifo" 2>"$t/err" &
    pid=$!
    exec {reader}<"$t/fifo"
    for _ in $(seq 50); do [[ $(cat /proc/$pid/wchan 2>/dev/null) == *pipe_write* ]] && break; sleep 0.1; done
    kill -INT "$pid"
    sleep 1
    kill -0 "$pid" 2>/dev/null && cat <&"$reader" >/dev/null &
    status=0
    wait "$pid" || status=$?
    exec {reader}<&-
    assert_equal "$status" 130
    assert_equal "$(cat "$t/err")" ''
}

@test "-j 2 stops quietly when the reader of stdout goes away, and reports a failed write" {
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-colony" 100000 8 >"$t/big"
    sh_run "acp-validate -j 2 --stateless '$t/big' 2>'$t/err' | head -1; echo \"\${PIPESTATUS[0]}\" >'$t/status'"
    assert_equal "${#lines[@]}" 1
    assert_equal "$(cat "$t/err")" ''
    assert_equal "$(cat "$t/status")" 141
    [ -w /dev/full ] || skip "no /dev/full"
    run -2 --separate-stderr acp-validate -j 2 "$t/big" --output=/dev/full
    [[ $stderr == *"write error: No space left on device [io-error]" ]] || fail "got: $stderr"
}

@test "-j 2 keeps memory bounded: a big capture, and lines as long as --max-line-bytes allows" {
    skip_under ThreadSanitizer "its shadow memory is several times the program's"
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-colony" 200000 8 >"$t/big"
    "$ACP_BUILD/peak-rss" acp-validate -j 2 --stateless "$t/big" >/dev/null 2>"$t/err"
    assert_rss_below "$t/err" $((16 * 1024)) "--stateless -j 2"
    # Lines of 1 MiB less a little, each an object of many small members: trees many times
    # their size, of which only a few may be held at once.
    awk 'BEGIN { for (l = 0; l < 40; l++) { printf "{"; for (i = 0; i < 87000; i++) printf "%s\"k%d\":1", i ? "," : "", i; print "}" } }' >"$t/wide"
    "$ACP_BUILD/peak-rss" acp-validate -j 2 --stateless "$t/wide" >/dev/null 2>"$t/err" || true
    # the bound is the real build's (about 29 MiB there)
    assert_rss_below "$t/err" $((64 * 1024)) "-j 2 on wide lines"
}

# IACP to the string form is drafted in the worker threads, its conversation_id left for the
# stream to say (a reply takes its request's, here one the request named with
# x-fipa-conversation_id): written as the string form writes any text (quoted, byte-length) and
# refused, with the message, where it holds a terminal control, as one job does.
@test "IACP to the string form: a conversation_id found along the stream goes in as it would whole" {
    local assign='{"v":"1.1","from":"queen","to":"f1","kind":"task.assign","ts":1700000000,"body":{}'
    local accept='{"v":"1.1","from":"f1","to":"queen","kind":"task.accept","ts":1700000001,"body":{}'
    local f
    f=$(lines_file \
        "$assign,\"id\":\"q1\",\"x-fipa-conversation_id\":\"c\\u001b]0;owned\\u0007\"}" \
        "$accept,\"id\":\"a1\",\"ref\":\"q1\"}" \
        "$assign,\"id\":\"q2\",\"x-fipa-conversation_id\":\"a b (c) \\\"d\\\"\"}" \
        "$accept,\"id\":\"a2\",\"ref\":\"q2\"}" \
        "$assign,\"id\":\"q3\",\"x-fipa-conversation_id\":\"ends\\\\\"}" \
        "$accept,\"id\":\"a3\",\"ref\":\"q3\"}")
    run -1 --separate-stderr acp-convert --to=fipa-acl -j 2 "$f"
    [ "$(grep -c 'control character U+001B' <<<"$stderr")" -eq 2 ] || fail "both refused: $stderr"
    [[ $stderr == *":2: error: a string holds the control character U+001B"* ]] || fail "$stderr"
    [ "$(grep -cF ':conversation-id "a b (c) \"d\""' <<<"$output")" -eq 2 ] || fail "$output"
    [ "$(grep -cF ':conversation-id #5"ends\' <<<"$output")" -eq 2 ] || fail "$output"
    JOBS="2 3" same_as_one_job "$f" . acp-convert --to=fipa-acl --stats @REJECTS
}

# FIPA made from IACP back to IACP is drafted in the worker threads but for the
# x-fipa-conversation_id that following the stream may add (a conversation_id the way there
# would not find again: here one a capture cut mid-way kept), put at the end as one job puts it;
# a message that names that member itself (x-iacp-x-fipa-conversation_id) goes whole in order.
@test "FIPA made from IACP to IACP: a conversation_id kept along the stream goes in as it would whole" {
    local head='"x-iacp-v":"1.1","protocol":"fipa-request","timestamp":"2023-11-14T22:13:20Z"'
    local f
    f=$(lines_file \
        "{\"performative\":\"request\",$head,\"reply_with\":\"q1\",\"sender\":\"queen\",\"receiver\":\"f1\",\"x-iacp-kind\":\"task.assign\",\"content\":{\"node\":\"n1\"},\"conversation_id\":\"cut \\\"mid\\\" <way>\"}" \
        "{\"performative\":\"agree\",$head,\"reply_with\":\"a1\",\"sender\":\"f1\",\"receiver\":\"queen\",\"x-iacp-kind\":\"task.accept\",\"in_reply_to\":\"q1\",\"content\":{},\"x-iacp-body\":{},\"conversation_id\":\"cut \\\"mid\\\" <way>\"}" \
        "{\"performative\":\"request\",$head,\"reply_with\":\"q2\",\"sender\":\"queen\",\"receiver\":\"f1\",\"x-iacp-kind\":\"task.assign\",\"content\":{},\"conversation_id\":\"other\",\"x-iacp-x-fipa-conversation_id\":\"kept\"}")
    run -0 acp-convert --to=iacp -j 2 "$f"
    assert_line --index 0 '{"v":"1.1","ts":1700000000,"id":"q1","from":"queen","to":"f1","kind":"task.assign","body":{"node":"n1"},"x-fipa-conversation_id":"cut \"mid\" <way>"}'
    assert_line --index 1 '{"v":"1.1","ts":1700000000,"id":"a1","from":"f1","to":"queen","kind":"task.accept","ref":"q1","body":{}}'
    assert_line --index 2 '{"v":"1.1","ts":1700000000,"id":"q2","from":"queen","to":"f1","kind":"task.assign","x-fipa-conversation_id":"other"}'
    JOBS="2 3" same_as_one_job "$f" . acp-convert --to=iacp --stats @REJECTS
}

# FIPA of its own to IACP is drafted in the worker threads too, taking a reply_with for one its
# sender did not use before and leaving the id it makes up (no reply_with, or one of no string)
# for the stream; where the stream says otherwise (JADE's copy of a message to each receiver
# uses its reply_with again; the first id made up is what the ids' seed is taken from), the
# message is converted whole in order, as one job converts it. A reply_with used long enough ago
# (two senders say an hour passed) is forgotten, and kept; a line that would not pass the IACP
# rules (an empty reply_with) goes whole in order.
@test "FIPA of its own to IACP: ids made up and reply_with used again come out as they would whole" {
    local msg='"performative":"inform","content":{}' f
    f=$(lines_file \
        "{$msg,\"sender\":\"s\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T22:13:20Z\"}" \
        "{$msg,\"sender\":\"s\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T22:13:21Z\",\"reply_with\":\"r1\"}" \
        "{$msg,\"sender\":\"s\",\"receiver\":\"b\",\"timestamp\":\"2023-11-14T22:13:21Z\",\"reply_with\":\"r1\"}" \
        "{$msg,\"sender\":\"t\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T22:13:22Z\",\"reply_with\":null}" \
        "{$msg,\"sender\":\"t\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T22:13:22Z\",\"reply_with\":\"\"}" \
        "{$msg,\"sender\":\"t\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T22:13:23Z\"}" \
        "{$msg,\"sender\":\"t\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T23:13:20Z\",\"reply_with\":\"r9\"}" \
        "{$msg,\"sender\":\"u\",\"receiver\":\"a\",\"timestamp\":\"2023-11-14T23:13:21Z\",\"reply_with\":\"r5\"}" \
        "{$msg,\"sender\":\"s\",\"receiver\":\"c\",\"timestamp\":\"2023-11-14T23:13:22Z\",\"reply_with\":\"r1\"}")
    run -1 --separate-stderr acp-convert --to=iacp --idle-timeout=600 -j 2 "$f"
    [[ $stderr == *":5: error: converted to IACP, the message breaks its rules (iacp-type)"* ]] ||
        fail "$stderr"
    [ "${#lines[@]}" -eq 8 ] || fail "$output"
    local id='"id":"m-[0-9a-f]{6}"'
    [[ ${lines[0]} =~ $id ]] || fail "made up: ${lines[0]}"
    [[ ${lines[1]} == *'"id":"r1"'* && ${lines[1]} != *x-fipa-reply_with* ]] || fail "${lines[1]}"
    [[ ${lines[2]} =~ $id.*'"x-fipa-reply_with":"r1"' ]] || fail "used again: ${lines[2]}"
    [[ ${lines[3]} =~ $id.*'"x-fipa-reply_with":null' ]] || fail "no string: ${lines[3]}"
    [[ ${lines[4]} =~ $id ]] || fail "made up: ${lines[4]}"
    [[ ${lines[7]} == *'"id":"r1"'* && ${lines[7]} != *x-fipa-reply_with* ]] || fail "${lines[7]}"
    JOBS="2 3" same_as_one_job "$f" . acp-convert --to=iacp --idle-timeout=600 --stats @REJECTS
    JOBS="2 3" same_as_one_job "$f" . acp-convert --to=iacp --seed=7 --now=1700000000
    acp-convert --to=fipa-acl "$f" >"$BATS_TEST_TMPDIR/acl" 2>/dev/null || true
    JOBS="2 3" same_as_one_job "$BATS_TEST_TMPDIR/acl" . acp-convert --from=fipa-acl --to=iacp
}
