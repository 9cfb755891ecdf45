# What the tools write on stderr besides the findings themselves: stderr is buffered (one write(2)
# per buffer, not per diagnostic) yet flushed wherever a reader could miss a diagnostic, and a
# progress line is drawn on a terminal during long runs.
load test_helper

# Messages that pass with one warning each (iacp-ts-fraction), their ids numbered FIRST to LAST;
# with "long", about 1000 bytes each, so that a few lines fill a pipe. In one process: a loop of
# the test's own would run bats' trap on every command. Usage: warn_lines FIRST LAST [long]
warn_lines() {
    awk -v first="$1" -v last="$2" -v long="${3-}" 'BEGIN {
        pad = ""
        if (long != "") pad = sprintf(",\"body\":{\"pad\":\"%0900d\"}", 0)
        for (i = first; i <= last; i++)
            printf "{\"v\":\"1.1\",\"id\":\"q-%05d\",\"from\":\"queen\",\"to\":\"forager-07\",\"kind\":\"task.assign\",\"ts\":1312284100.5%s}\n", i, pad }'
}

# The message of warn_lines numbered N.
warn_line() {
    warn_lines "$1" "$1"
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
    warn_lines 1 2000 >"$BATS_TEST_TMPDIR/in"
    # LeakSanitizer stops the world with ptrace at exit, which it cannot under strace: under
    # make check-asan the leak check is left to the other tests
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        strace -f -e trace=write -o "$BATS_TEST_TMPDIR/trace" \
        acp-validate --stateless "$BATS_TEST_TMPDIR/in" >/dev/null 2>"$BATS_TEST_TMPDIR/err"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 2000
    writes=$(grep -c '^[0-9]* *write(2,' "$BATS_TEST_TMPDIR/trace")
    [ "$writes" -le 10 ] || fail "$writes writes to stderr for 2000 diagnostics"
}

@test "stderr: SIGINT while stdout is blocked loses no diagnostic already produced" {
    warn_lines 1 2000 long >"$BATS_TEST_TMPDIR/in"
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/fifo" 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {reader}<"$BATS_TEST_TMPDIR/fifo"
    # The pipe (64 KiB) and stdout's buffer fill with more than 64 lines, then write(2) blocks:
    # their diagnostics are produced but still in the buffer (far from full) of stderr.
    for _ in $(seq 50); do [[ $(cat /proc/$pid/wchan 2>/dev/null) == *pipe_write* ]] && break; sleep 0.1; done
    kill -INT "$pid"
    sleep 1
    kill -0 "$pid" 2>/dev/null && cat <&"$reader" >/dev/null &
    status=0
    wait "$pid" || status=$?
    exec {reader}<&-
    assert_equal "$status" 130
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 64
}

@test "stderr: SIGINT while reading keeps every diagnostic, and the stats" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless --stats <"$BATS_TEST_TMPDIR/fifo" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {writer}>"$BATS_TEST_TMPDIR/fifo"
    warn_lines 1 300 >&"$writer"
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

@test "stderr: SIGINT, SIGTERM or SIGHUP in a busy run: every diagnostic and the stats, then the signal's status" {
    awk 'BEGIN { for (i = 1; i <= 200000; i++)
        printf "{\"v\":\"1.1\",\"id\":\"q-%06d\",\"from\":\"queen\",\"to\":\"forager-07\",\"kind\":\"task.assign\",\"ts\":1312284100.5}\n", i }' \
        >"$BATS_TEST_TMPDIR/in"
    for sig in INT:130 TERM:143 HUP:129; do
        : >"$BATS_TEST_TMPDIR/err"
        acp-validate --stateless --stats "$BATS_TEST_TMPDIR/in" >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
        pid=$!
        # The first buffer of diagnostics went out: the run is busy with 199,000 lines to go.
        for _ in $(seq 200); do [ -s "$BATS_TEST_TMPDIR/err" ] && break; sleep 0.01; done
        kill -"${sig%:*}" "$pid"
        status=0
        wait "$pid" || status=$?
        assert_equal "${sig%:*} $status" "${sig%:*} ${sig#*:}"
        stats=$(tail -1 "$BATS_TEST_TMPDIR/err")
        [[ $stats =~ ^acp-validate:\ ([0-9]+)\ records:.*\ ([0-9]+)\ warnings,\ 0\ errors$ ]] ||
            fail "$sig: no stats at the end: $stats"
        [ "${BASH_REMATCH[1]}" -lt 200000 ] || fail "$sig: the run was not cut short"
        head -n -1 "$BATS_TEST_TMPDIR/err" >"$BATS_TEST_TMPDIR/warnings"
        assert_consecutive_warnings "$BATS_TEST_TMPDIR/warnings" "${BASH_REMATCH[2]}"
        assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/warnings")" "${BASH_REMATCH[2]}"
    done
}

@test "stderr: a write error shows the diagnostics before it, then the error" {
    [ -w /dev/full ] || skip "no /dev/full"
    warn_lines 1 3 >"$BATS_TEST_TMPDIR/in"
    run -2 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR/in" --output=/dev/full
    assert_equal "${#stderr_lines[@]}" 4
    head -3 <<<"$stderr" >"$BATS_TEST_TMPDIR/warnings"
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/warnings" 3
    assert_equal "${stderr_lines[3]}" "acp-validate: /dev/full:0: error: write error: No space left on device [io-error]"
}

@test "stderr: a reader of stdout that goes away leaves the diagnostics so far whole" {
    warn_lines 1 2000 long >"$BATS_TEST_TMPDIR/in"
    sh_run "acp-validate --stateless '$BATS_TEST_TMPDIR/in' 2>'$BATS_TEST_TMPDIR/err' | head -1 >/dev/null; echo \"\${PIPESTATUS[0]}\""
    # Killed by SIGPIPE, as before: 128 + 13.
    assert_output 141
    # stdout's first buffer (4 KiB at least) went out whole before head could go: its 4 lines
    # had been read and reported, and their diagnostics were still buffered.
    assert_consecutive_warnings "$BATS_TEST_TMPDIR/err" 4
}

# --- the progress line, on a terminal: a private tmux server runs each command on a pty ---

GOOD='{"v":"1.1","id":"q-00a1","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100}'

setup() {
    PTY_RUNS=0
    PTY=
    PTYS=()
}

teardown() {
    local p
    command -v tmux >/dev/null || return 0
    for p in "${PTYS[@]}"; do tmux -S "$p" kill-server 2>/dev/null; done
    PTYS=()
    PTY=
}

need_tmux() {
    command -v tmux >/dev/null || skip "tmux is not installed (scripts/deps installs it)"
}

# Runs the shell command $1 on a 150-column pty, in the folder $2 (default: the test's); "END"
# marks its end. Each run has a tmux server of its own, so that one ending cannot take the next
# with it, and becomes the one screen reads. Several may run at once (assert_no_progress's do).
pty_start() {
    PTY="$BATS_TEST_TMPDIR/tmux-$((PTY_RUNS++))"
    PTYS+=("$PTY")
    tmux -S "$PTY" new-session -d -x 150 -y 40 -c "${2:-$BATS_TEST_TMPDIR}" \
        "PATH='$PATH'; TERM=xterm; export TERM; $1; echo END; exec sleep 600"
}

screen() {
    tmux -S "$PTY" capture-pane -p
}

# A progress line of the tool on screen: "TOOL: ... N messages, ... /s".
has_progress() {
    screen | grep -Eq '^acp-[a-z]+: .*[0-9]+ messages?, [0-9.]+ [KMG]?i?B/s'
}

wait_for_end() {
    for _ in $(seq 200); do screen | grep -qx END && return 0; sleep 0.05; done
    fail "the command did not end: $(screen)"
}

# Starts "$1 fifo" on the pty with the FIFO as input, and writes GOOD into it every 0.1 s (or
# the lines of $2, one each time, then GOOD) until the progress line shows, or $3 tenths of a
# second passed; each screen seen goes to the file screens. Leaves the FIFO open on fd $writer.
slow_run() {
    local command=$1 max=${3:-100} i
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    pty_start "$command"
    # Read-write, so that the open never waits for a reader that may not have come.
    exec {writer}<>"$BATS_TEST_TMPDIR/fifo"
    : >"$BATS_TEST_TMPDIR/screens"
    for ((i = 0; i < max; i++)); do
        printf '%s\n' "$GOOD" >&"$writer"
        sleep 0.1
        screen >>"$BATS_TEST_TMPDIR/screens"
        has_progress && return 0
    done
    return 1
}

end_slow_run() {
    exec {writer}>&-
    wait_for_end
}

@test "progress: shows on a slow run, a diagnostic gets a clean line, erased at the end" {
    need_tmux
    slow_run "acp-validate --stateless fifo >/dev/null" || fail "no progress line after 10 s: $(screen)"
    screen | grep -Eq '^acp-validate: fifo: [0-9.]+ [KMG]?i?B, [0-9]+ messages, ' ||
        fail "not the progress line: $(screen)"
    printf 'not json\n' >&"$writer"
    for _ in $(seq 100); do screen | grep -q 'error: ' && break; sleep 0.05; done
    # The diagnostic starts its own line: nothing of the progress line before it.
    screen | grep -Eq '^acp-validate: fifo:[0-9]+:[0-9]+: error: .*\[bad-json\]$' ||
        fail "the diagnostic is not on a clean line: $(screen)"
    # ... and the progress line comes back under it.
    for _ in $(seq 100); do
        printf '%s\n' "$GOOD" >&"$writer"
        sleep 0.1
        screen | grep -A1 'error: ' | tail -1 | grep -q ' messages, ' && break
    done
    screen | grep -A1 'error: ' | tail -1 | grep -Eq '^acp-validate: fifo: .* messages, ' ||
        fail "no progress line under the diagnostic: $(screen)"
    end_slow_run
    run screen
    refute_output --partial ' messages, '
    assert_output --regexp $'error: .*\\[bad-json\\]\nEND'
}

@test "progress: acp-convert and acp-trace show it too, and erase it at the end" {
    need_tmux
    for command in "acp-convert --to=fipa fifo >/dev/null" "acp-trace fifo >/dev/null"; do
        rm -f "$BATS_TEST_TMPDIR/fifo"
        slow_run "$command" || fail "$command: no progress line after 10 s: $(screen)"
        screen | grep -Eq "^${command%% *}: fifo: [0-9.]+ [KMG]?i?B, [0-9]+ messages, " ||
            fail "$command: not the progress line: $(screen)"
        end_slow_run
        run screen
        refute_output --partial ' messages, '
    done
}

@test "progress: a regular file's size gives the share done and the time left" {
    need_tmux
    command -v perl >/dev/null || skip "perl is not installed"
    pad=$(printf '%0900d' 0)
    for i in $(seq 2000); do
        printf '{"v":"1.1","id":"q-%05d","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100,"body":{"pad":"%s"}}\n' "$i" "$pad"
    done >"$BATS_TEST_TMPDIR/in.jsonl"
    # A reader taking 64 KiB every 0.1 s makes the run last about 3 s.
    pty_start "acp-validate --stateless in.jsonl | perl -e 'while (sysread(STDIN, \$b, 65536)) { select(undef, undef, undef, 0.1) }'"
    for _ in $(seq 100); do has_progress && break; sleep 0.05; done
    run screen
    assert_output --regexp "^acp-validate: in\\.jsonl: [0-9.]+ [KM]iB of 1\\.[0-9] MiB \\([0-9]+%\\), [0-9]+ messages, [0-9.]+ [KMG]?i?B/s, [0-9]+ s left"
    wait_for_end
    run screen
    refute_output --partial ' messages, '
}

# Runs each command given on a pty of its own, all at once, each in a folder of its own (run.1,
# run.2, ...) where it reads the FIFO "fifo", written GOOD every 0.1 s for 2.5 s, well past the
# second after which progress shows; then ends them. Fails when a progress line was on a screen,
# each looked at every quarter of a second (a progress line stays until the run ends) and at the
# end. Each one's last screen is left in its folder's file "screen".
assert_no_progress() {
    local i n=$# tick w writers=() ptys=()
    for ((i = 1; i <= n; i++)); do
        mkdir "$BATS_TEST_TMPDIR/run.$i"
        mkfifo "$BATS_TEST_TMPDIR/run.$i/fifo"
        pty_start "${!i}" "$BATS_TEST_TMPDIR/run.$i"
        ptys[i]=$PTY
    done
    # Opened once every tmux server started, so that none holds another's FIFO open. Read-write,
    # so that the open never waits for a reader that may not have come.
    for ((i = 1; i <= n; i++)); do
        exec {w}<>"$BATS_TEST_TMPDIR/run.$i/fifo"
        writers[i]=$w
    done
    for ((tick = 1; tick <= 25; tick++)); do
        for w in "${writers[@]}"; do printf '%s\n' "$GOOD" >&"$w"; done
        sleep 0.1
        ((tick % 2 == 0 || tick == 25)) || continue
        for ((i = 1; i <= n; i++)); do
            tmux -S "${ptys[i]}" capture-pane -p >>"$BATS_TEST_TMPDIR/run.$i/screens"
        done
    done
    for w in "${writers[@]}"; do exec {w}>&-; done
    for ((i = 1; i <= n; i++)); do
        PTY=${ptys[i]}
        wait_for_end
        screen >"$BATS_TEST_TMPDIR/run.$i/screen"
        ! grep -q ' messages, ' "$BATS_TEST_TMPDIR/run.$i/screens" "$BATS_TEST_TMPDIR/run.$i/screen" ||
            fail "${!i}: a progress line: $(grep -h ' messages, ' "$BATS_TEST_TMPDIR/run.$i/screens" | head -1)"
    done
}

@test "progress: never when stderr is a file or a pipe, with --no-progress or -q, or when stdout is the same terminal" {
    need_tmux
    # /dev/tty is the terminal stderr is on, under another device number; acp-trace writes at the
    # end: nothing on stdout would draw over a progress line meanwhile.
    assert_no_progress "acp-validate --stateless fifo >/dev/null 2>err" \
        "acp-validate --stateless fifo 2>&1 >/dev/null | cat >err" \
        "acp-validate --stateless --no-progress fifo >/dev/null" \
        "acp-trace --no-progress fifo >/dev/null" \
        "acp-convert --to=fipa -q fifo" \
        "acp-validate --stateless fifo >/dev/tty" \
        "acp-trace fifo"
    local r=$BATS_TEST_TMPDIR/run
    ! grep -q 'messages' "$r.1/err" || fail "progress in the file: $(cat -A "$r.1/err")"
    ! grep -q 'messages' "$r.2/err" || fail "progress in the pipe: $(cat -A "$r.2/err")"
    grep -q '^{"v":"1.1"' "$r.6/screen" || fail "the output did not reach the terminal: $(cat "$r.6/screen")"
    grep -q '^{"type":"conversation"' "$r.7/screen" || fail "the output did not reach the terminal: $(cat "$r.7/screen")"
}

@test "progress: a file name is escaped on its way to the terminal" {
    need_tmux
    mkfifo "$BATS_TEST_TMPDIR/"$'a\e]0;owned\a\e[2Jb'
    pty_start "acp-validate --stateless a*b >/dev/null"
    exec {writer}<>"$BATS_TEST_TMPDIR/"$'a\e]0;owned\a\e[2Jb'
    for _ in $(seq 100); do
        printf '%s\n' "$GOOD" >&"$writer"
        sleep 0.1
        has_progress && break
    done
    run screen
    assert_output --regexp '^acp-validate: a\\x1b\]0;owned\\x07\\x1b\[2Jb: [0-9.]+ [KMG]?i?B, [0-9]+ messages'
    exec {writer}>&-
    wait_for_end
}
