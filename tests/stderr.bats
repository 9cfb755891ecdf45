# What the tools write on stderr besides the findings themselves: stderr is buffered (one write(2)
# per buffer, not per diagnostic) yet flushed wherever a reader could miss a diagnostic, and a
# progress line is drawn on a terminal during long runs.
load test_helper

# A message that passes with one warning (iacp-ts-fraction), its id numbered by $1.
warn_line() {
    printf '{"v":"1.1","id":"q-%05d","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100.5}\n' "$1"
}

# The same, about 1000 bytes long, so that a few lines fill a pipe.
long_warn_line() {
    printf '{"v":"1.1","id":"q-%05d","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100.5,"body":{"pad":"%0900d"}}\n' "$1" 0
}

# Fails unless the diagnostics in file $1 are one per line for lines 1 to N (N at least $2), in
# order, each whole: so that none was lost or cut before the tool stopped.
assert_consecutive_warnings() {
    local file=$1 least=$2 n
    n=$(wc -l <"$file")
    [ "$n" -ge "$least" ] || fail "only $n diagnostics, expected at least $least: $(head -c 300 "$file")"
    awk -F: '{ if ($3 != NR || $0 !~ /\[iacp-ts-fraction\]$/) { print "line " NR ": " $0; exit 1 } }' "$file" ||
        fail "the diagnostics are not lines 1 to $n in order"
}

@test "stderr: a live pipe sees each diagnostic before the next line is written" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless <"$BATS_TEST_TMPDIR/fifo" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {writer}>"$BATS_TEST_TMPDIR/fifo"
    for i in 1 2 3 4 5; do
        warn_line "$i" >&"$writer"
        for _ in $(seq 100); do [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -ge "$i" ] && break; sleep 0.05; done
        [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -eq "$i" ] ||
            fail "after line $i, stderr holds $(wc -l <"$BATS_TEST_TMPDIR/err") diagnostics"
    done
    exec {writer}>&-
    wait "$pid"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 5
}

@test "stderr: one write per buffer, not per diagnostic" {
    command -v strace >/dev/null || skip "strace is not installed"
    for i in $(seq 2000); do warn_line "$i"; done >"$BATS_TEST_TMPDIR/in"
    strace -f -e trace=write -o "$BATS_TEST_TMPDIR/trace" \
        acp-validate --stateless "$BATS_TEST_TMPDIR/in" >/dev/null 2>"$BATS_TEST_TMPDIR/err"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 2000
    writes=$(grep -c '^[0-9]* *write(2,' "$BATS_TEST_TMPDIR/trace")
    [ "$writes" -le 10 ] || fail "$writes writes to stderr for 2000 diagnostics"
}

@test "stderr: SIGINT while stdout is blocked loses no diagnostic already produced" {
    for i in $(seq 2000); do long_warn_line "$i"; done >"$BATS_TEST_TMPDIR/in"
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/fifo" 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {reader}<"$BATS_TEST_TMPDIR/fifo"
    # The pipe (64 KiB) and stdout's buffer fill with about 130 lines, then write(2) blocks:
    # their diagnostics are produced but still in the buffer (far from full) of stderr.
    for _ in $(seq 50); do [[ $(cat /proc/$pid/wchan 2>/dev/null) == *pipe_write* ]] && break; sleep 0.1; done
    kill -INT "$pid"
    sleep 1
    kill -0 "$pid" 2>/dev/null && cat <&"$reader" >/dev/null &
    status=0
    wait "$pid" || status=$?
    exec {reader}<&-
    assert_equal "$status" 130
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 65
}

@test "stderr: SIGINT while reading keeps every diagnostic, and the stats" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless --stats <"$BATS_TEST_TMPDIR/fifo" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {writer}>"$BATS_TEST_TMPDIR/fifo"
    for i in $(seq 300); do warn_line "$i"; done >&"$writer"
    for _ in $(seq 100); do [ "$(wc -l <"$BATS_TEST_TMPDIR/err")" -ge 300 ] && break; sleep 0.05; done
    kill -INT "$pid"
    status=0
    wait "$pid" || status=$?
    exec {writer}>&-
    assert_equal "$status" 130
    head -300 "$BATS_TEST_TMPDIR/err" >"$BATS_TEST_TMPDIR/warnings"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/warnings" 300
    assert_equal "$(sed -n 301p "$BATS_TEST_TMPDIR/err")" \
        "acp-validate: 300 records: 300 valid, 0 rejected, 0 blank; 300 warnings, 0 errors"
}

@test "stderr: a write error shows the diagnostics before it, then the error" {
    [ -w /dev/full ] || skip "no /dev/full"
    for i in 1 2 3; do warn_line "$i"; done >"$BATS_TEST_TMPDIR/in"
    run -2 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR/in" --output=/dev/full
    assert_equal "${#stderr_lines[@]}" 4
    head -3 <<<"$stderr" >"$BATS_TEST_TMPDIR/warnings"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/warnings" 3
    assert_equal "${stderr_lines[3]}" "acp-validate: /dev/full:0: error: write error: No space left on device [io-error]"
}

@test "stderr: a reader of stdout that goes away leaves the diagnostics so far whole" {
    for i in $(seq 2000); do long_warn_line "$i"; done >"$BATS_TEST_TMPDIR/in"
    sh_run "acp-validate --stateless '$BATS_TEST_TMPDIR/in' 2>'$BATS_TEST_TMPDIR/err' | head -1 >/dev/null; echo \"\${PIPESTATUS[0]}\""
    # Killed by SIGPIPE, as before: 128 + 13.
    assert_output 141
    # stdout's first 64 KiB went out whole, so their 65 lines had been read and reported.
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 65
}
