# The bad-input matrix: every tool that reads a stream, on every kind of bad input and every
# failing input or output. For each: the documented exit status, one clear line on stderr for
# each thing that is wrong, no crash, no hang (every run under a timeout), every good line still
# processed; and nothing lost: records in = records out + rejected + unread, which --stats
# confirms, wherever the outputs are writable (each case with something bad runs twice: to the
# end, and stopped by --max-errors=1, which leaves the rest unread).
load test_helper

# The tools that read a stream, each as it is run on one, after the kind of its output: records
# (each good record as it came), converted (one line per message, its id in reply_with), composed
# (each good message as acp-send sends it: the same JSON value) or counted (acp-trace's
# statistics: one object whose "messages" counts the messages read). A tool joins the matrix with
# one line. acp-send reads its standard input only (--stdin): it gets the input there.
TOOLS=(
    "records acp-validate"
    "converted acp-convert --to=fipa"
    "records acp-replay --topspeed"
    "counted acp-trace --format=stats"
    "composed acp-send --stdin --now=1312284100 --seed=1"
)

# Whether a tool line takes its input as FILE arguments (acp-send takes standard input only).
takes_files() {
    [[ $1 != acp-send* ]]
}

# Runs a tool line with OPTIONs on FILE, given as the tool takes its input, under the timeout:
# with_input TOOL FILE [OPTION...]
with_input() {
    local tool=$1 file=$2
    shift 2
    if takes_files "$tool"; then
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool "$@" "$file"
    else
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool "$@" <"$file"
    fi
}

# Longest a run may take before it counts as a hang.
LIMIT=60

# A good message, number N: valid, clean in every tool, no warning. The format takes N, N and
# its ts.
GOOD_FORMAT='{"v":"1.1","id":"m-%06x","from":"forager-%02d","to":"queen","kind":"hb","ts":%d}'
good() {
    # shellcheck disable=SC2059
    printf "$GOOD_FORMAT" "$1" "$1" $((1312284100 + $1))
}

# Good messages 1 to N, a line each (one process: a loop of the test's own would run bats' trap on
# every command).
goods() {
    awk -v n="$1" -v format="$GOOD_FORMAT" 'BEGIN { for (i = 1; i <= n; i++) {
        printf format, i, i, 1312284100 + i; print "" } }'
}

setup() {
    IN=$BATS_TEST_TMPDIR/in
    GOODS=$BATS_TEST_TMPDIR/goods # the good records of IN, as a tool that passes them writes them
    OUT=$BATS_TEST_TMPDIR/out
    REJ=$BATS_TEST_TMPDIR/rej
    ERR=$BATS_TEST_TMPDIR/err
    : >"$IN"
    : >"$GOODS"
}

# Appends good message N to the input, with a line end (default \n).
add_good() {
    local end=${2-$'\n'}
    printf '%s%s' "$(good "$1")" "$end" >>"$IN"
    printf '%s%s\n' "$(good "$1")" "${end%$'\n'}" >>"$GOODS"
}

# Appends raw bytes (printf format and arguments) to the input.
add_raw() {
    # shellcheck disable=SC2059
    printf "$@" >>"$IN"
}

name_of() { printf '%s' "${1%% *}"; }


# Non-blank lines of a file: the records of a JSON Lines input.
records_in() {
    LC_ALL=C grep -a -c -v $'^[ \t\r]*$' "$1" || true
}

# Runs a tool line on the input files (default: IN), with --rejects and --stats, under the
# timeout: run_tool TOOL [FILE...]; sets status. A tool that reads standard input only gets the
# first FILE there.
run_tool() {
    local tool=$1
    shift
    [ $# -gt 0 ] || set -- "$IN"
    rm -f "$OUT" "$REJ" "$ERR"
    status=0
    if takes_files "$tool"; then
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool --rejects="$REJ" --stats "$@" >"$OUT" 2>"$ERR" || status=$?
    else
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool --rejects="$REJ" --stats <"$1" >"$OUT" 2>"$ERR" || status=$?
    fi
}

# What the tool says on stderr: each line is an error naming a code, or the statistics. Checks
# that there are exactly BAD errors: assert_errors TOOL BAD
assert_errors() {
    local name errors other
    name=$(name_of "$1")
    errors=$(grep -c -E "^$name: .*:[0-9]+(:[0-9]+)?: error: .+ \\[[a-z0-9-]+\\]\$" "$ERR" || true)
    other=$(grep -v -E "^$name: .*:[0-9]+(:[0-9]+)?: error: .+ \\[[a-z0-9-]+\\]\$" "$ERR" |
        grep -v -E "^$name: [0-9]+ records: |^$name: [0-9]+ sent( in |\$)" || true)
    [ -z "$other" ] || fail "$1: unexpected on stderr: $other"
    [ "$errors" -eq "$2" ] || fail "$1: $errors error lines, expected $2: $(cat "$ERR")"
}

# Every good record was processed: written as it came, or converted, in order (by the kind of
# the tool's output, $kind).
assert_goods_processed() {
    case $kind in
    records) cmp "$GOODS" "$OUT" || fail "$1: the good records are not written as they came" ;;
    converted)
        diff -u <(jq -r .id "$GOODS") <(jq -r .reply_with "$OUT") || fail "$1: good messages lost" ;;
    composed)
        diff -u <(jq -c . "$GOODS") <(jq -c . "$OUT") || fail "$1: good messages lost or changed" ;;
    counted)
        [ "$(records_out)" -eq "$(records_in "$GOODS")" ] ||
            fail "$1: $(records_out) messages counted, $(records_in "$GOODS") good ones" ;;
    esac
}

# The records the tool wrote (or, counted, the messages its statistics count).
records_out() {
    if [ "$kind" = counted ]; then
        jq -e .messages "$OUT" || fail "no statistics on stdout: $(cat "$OUT")"
    else
        wc -l <"$OUT"
    fi
}

# records in = records out + rejected (+ unread, none here), and --stats says the same.
assert_nothing_lost() {
    local name in out rejected line records valid rej blank
    name=$(name_of "$1")
    in=$(records_in "$IN")
    out=$(records_out)
    rejected=$(wc -l <"$REJ")
    [ "$in" -eq $((out + rejected)) ] || fail "$1: $in records in, $out out + $rejected rejected"
    line=$(grep -E "^$name: [0-9]+ records: " "$ERR") || fail "$1: no statistics"
    read -r records valid rej blank < <(sed -E 's/^[^:]+: ([0-9]+) records: ([0-9]+) valid, ([0-9]+) rejected, ([0-9]+) blank.*/\1 \2 \3 \4/' <<<"$line")
    [ "$valid" -eq "$out" ] && [ "$rej" -eq "$rejected" ] && [ $((records - blank)) -eq "$in" ] ||
        fail "$1: --stats says '$line'; $in records in, $out out, $rejected rejected"
}

# Lines of a file, a last one without a line end included.
lines_in() {
    local n
    n=$(wc -l <"$1")
    [ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ] || n=$((n + 1))
    echo "$n"
}

# When --max-errors=1 stops the run at the first error: one error, the note that says so, and
# nothing lost: lines in = records read + lines unread (--stats), and the records read are
# written, rejected or blank.
assert_nothing_lost_when_stopped() {
    local name line records valid rej blank unread out rejected
    [ "$status" -eq 1 ] || fail "$1: status $status: $(cat "$ERR")"
    name=$(name_of "$1")
    grep -q -E "^$name: .*: note: stopped after 1 error \(--max-errors=1\); [0-9]+ lines? not read\$" "$ERR" ||
        fail "$1: no note of the stop: $(cat "$ERR")"
    grep -v -E "^$name: .*: note: stopped after " "$ERR" >"$ERR.rest"
    mv "$ERR.rest" "$ERR"
    assert_errors "$1" 1
    line=$(grep -E "^$name: [0-9]+ records: " "$ERR") || fail "$1: no statistics"
    read -r records valid rej blank unread < <(sed -E 's/^[^:]+: ([0-9]+) records: ([0-9]+) valid, ([0-9]+) rejected, ([0-9]+) blank, ([0-9]+) lines? unread;.*/\1 \2 \3 \4 \5/' <<<"$line")
    [[ $unread =~ ^[0-9]+$ ]] || fail "$1: no count of the lines unread: '$line'"
    out=$(records_out)
    rejected=$(wc -l <"$REJ")
    [ $((records + unread)) -eq "$(lines_in "$IN")" ] ||
        fail "$1: '$line', but the input has $(lines_in "$IN") lines"
    [ "$valid" -eq "$out" ] && [ "$rej" -eq "$rejected" ] && [ $((records - blank)) -eq $((out + rejected)) ] ||
        fail "$1: --stats says '$line'; $out out, $rejected rejected"
}

# The whole check of one case, for every tool: matrix STATUS BAD. Where something is bad, again
# with --max-errors=1.
matrix() {
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        run_tool "$tool"
        [ "$status" -eq "$1" ] || fail "$tool: status $status, expected $1: $(cat "$ERR")"
        assert_errors "$tool" "$2"
        assert_goods_processed "$tool"
        assert_nothing_lost "$tool"
        if [ "$2" -gt 0 ]; then
            run_tool "$tool --max-errors=1"
            assert_nothing_lost_when_stopped "$tool"
        fi
    done
}

@test "invalid JSON: each bad line is one error, the others go on" {
    add_good 1
    add_raw '{"v":"1.1","id":\n'
    add_good 2
    add_raw 'not json\n{"v":"1.1",}\n'
    add_good 3
    matrix 1 3
}

@test "a truncated last line is one error; the lines before it are processed" {
    add_good 1
    add_good 2
    add_raw '{"v":"1.1","id":"m-0000'
    matrix 1 1
}

@test "NUL bytes, raw or escaped" {
    add_good 1
    add_raw '{"v":"1.1",\0"id":"m-000009"}\n'
    add_raw '%s\n' '{"v":"1.1","id":"a\u0000b","from":"a","to":"b","kind":"hb","ts":1}'
    add_raw '\0\0\0\n'
    add_good 2
    matrix 1 3
}

@test "invalid UTF-8: stray bytes, overlong forms, surrogates, beyond U+10FFFF" {
    add_good 1
    local bad
    for bad in '\xff' '\xc0\xaf' '\xe0\x80\xaf' '\xed\xa0\x80' '\xf4\x90\x80\x80' '\xf8\x88\x80\x80\x80' '\xc3'; do
        add_raw '{"v":"1.1","id":"x%s","from":"a","to":"b","kind":"hb","ts":1}\n' "$bad"
    done
    add_good 2
    matrix 1 7
}

@test "a 100 MB line is one error, copied whole to --rejects, never held" {
    skip_under valgrind "100 MB"
    add_good 1
    { printf '{"pad":"'; head -c 100000000 /dev/zero | tr '\0' x; printf '"}\n'; } >>"$IN"
    add_good 2
    matrix 1 1
    # the last run's rejects hold the line whole
    [ "$(wc -c <"$REJ")" -eq 100000011 ] || fail "rejects hold $(wc -c <"$REJ") bytes"
}

@test "100,000 nested brackets, braces and parentheses" {
    add_good 1
    { head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; echo; } >>"$IN"
    { awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"a\":" }'
        head -c 100000 /dev/zero | tr '\0' '}'; echo; } >>"$IN"
    add_good 2
    { printf '(inform :content '; head -c 100000 /dev/zero | tr '\0' '(';
        head -c 100000 /dev/zero | tr '\0' ')'; echo ')'; } >>"$IN"
    add_good 3
    matrix 1 3
}

@test "duplicate keys, at the top and nested" {
    add_good 1
    add_raw '%s\n' '{"v":"1.1","v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":1}'
    add_raw '%s\n' '{"v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":1,"body":{"a":1,"a":2}}'
    add_good 2
    matrix 1 2
}

@test "numbers too large for any integer type, or a double" {
    add_good 1
    add_raw '%s\n' '{"v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":99999999999999999999999}'
    add_raw '%s\n' '{"v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":9223372036854775808}'
    add_raw '%s\n' '{"v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":1,"body":{"n":-9223372036854775809}}'
    add_raw '%s\n' '{"v":"1.1","id":"m-000009","from":"a","to":"b","kind":"hb","ts":1e400}'
    add_good 2
    matrix 1 4
}

@test "a byte-order mark in the middle of a stream is one error; one at the start is dropped" {
    add_raw '\xef\xbb\xbf'
    add_good 1
    add_raw '\xef\xbb\xbf%s\n' "$(good 9)"
    add_good 2
    matrix 1 1
}

@test "CRLF line ends, and a last line without one" {
    add_good 1 $'\r\n'
    add_good 2 $'\r\n'
    add_good 3 ''
    matrix 0 0
}

@test "an empty file" {
    matrix 0 0
    [ ! -s "$OUT" ] && [ ! -s "$REJ" ]
}

@test "a file of blank lines" {
    add_raw '\n  \n\t\n\r\n \t \r\n\n'
    matrix 0 0
    grep -q ': 6 records: 0 valid, 0 rejected, 6 blank;' "$ERR" || fail "$(cat "$ERR")"
}

@test "binary garbage between good lines" {
    add_good 1
    # Deterministic noise without "(" (which would start string-form records, whose extent the
    # count of lines cannot tell), in lines of up to 300 bytes.
    LC_ALL=C awk 'BEGIN { srand(7); for (i = 0; i < 300; i++) { n = int(rand() * 300);
            for (j = 0; j < n; j++) printf "%c", int(rand() * 256); printf "\n" } }' |
        LC_ALL=C tr -d '(' >>"$IN"
    add_good 2
    matrix 1 $(($(records_in "$IN") - 2))
}

@test "a directory among the inputs is one error; the other files are read" {
    add_good 1
    add_good 2
    mkdir "$BATS_TEST_TMPDIR/dir"
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        if ! takes_files "$tool"; then
            # standard input is the directory
            run_tool "$tool" "$BATS_TEST_TMPDIR/dir"
            [ "$status" -eq 2 ] || fail "$tool: status $status"
            assert_errors "$tool" 1
            grep -q "<stdin>:0: error: cannot read: Is a directory \[io-error\]" "$ERR" || fail "$(cat "$ERR")"
            [ ! -s "$OUT" ] && [ ! -s "$REJ" ] || fail "$tool: wrote something"
            continue
        fi
        run_tool "$tool" "$BATS_TEST_TMPDIR/dir" "$IN"
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        assert_errors "$tool" 1
        grep -q "dir:0: error: cannot read: Is a directory \[io-error\]" "$ERR" || fail "$(cat "$ERR")"
        assert_goods_processed "$tool"
        assert_nothing_lost "$tool"
    done
}

@test "a file that cannot be read is one error; the other files are read" {
    add_good 1
    add_good 2
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        # /proc/self/mem opens, then every read at its start fails (EIO), even for root.
        # Standard input cannot be that (the shell's process opened it, and is gone): it is a file
        # open for writing only.
        if ! takes_files "$tool"; then
            rm -f "$OUT" "$REJ" "$ERR"
            status=0
            # shellcheck disable=SC2086
            timeout "$LIMIT" $tool --rejects="$REJ" --stats 0>"$BATS_TEST_TMPDIR/write-only" \
                >"$OUT" 2>"$ERR" || status=$?
            [ "$status" -eq 2 ] || fail "$tool: status $status"
            assert_errors "$tool" 1
            grep -q "<stdin>:0: error: cannot read: Bad file descriptor \[io-error\]" "$ERR" ||
                fail "$(cat "$ERR")"
            [ ! -s "$OUT" ] && [ ! -s "$REJ" ] || fail "$tool: wrote something"
            continue
        fi
        run_tool "$tool" /proc/self/mem "$IN"
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        assert_errors "$tool" 1
        grep -q "/proc/self/mem:0: error: cannot read: Input/output error \[io-error\]" "$ERR" ||
            fail "$(cat "$ERR")"
        assert_goods_processed "$tool"
        assert_nothing_lost "$tool"
    done
}

@test "a file without read permission is one error; the other files are read" {
    add_good 1
    add_good 2
    local locked=$BATS_TEST_TMPDIR/locked as=()
    good 9 >"$locked"
    chmod 000 "$locked"
    if [ "$(id -u)" -eq 0 ]; then
        # Root reads any file: the tools run as nobody instead, who may not.
        command -v setpriv >/dev/null || skip "root reads every file, and setpriv(1) is missing"
        as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
        "${as[@]}" test -x "$ACP_BIN/acp-validate" ||
            skip "root reads every file, and nobody cannot run the tools in $ACP_BIN"
    fi
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        # A tool that reads standard input only never sees the file: the shell cannot open it.
        takes_files "$tool" || continue
        rm -f "$OUT" "$ERR"
        status=0
        # shellcheck disable=SC2086
        timeout "$LIMIT" "${as[@]}" "$ACP_BIN/"$tool "$locked" - <"$IN" >"$OUT" 2>"$ERR" || status=$?
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        grep -q "locked:0: error: cannot open: Permission denied \[io-error\]" "$ERR" || fail "$(cat "$ERR")"
        [ "$(wc -l <"$ERR")" -eq 1 ] || fail "$(cat "$ERR")"
        assert_goods_processed "$tool"
    done
}

@test "standard input closed: one error, status 2; with files named, no matter" {
    add_good 1
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        status=0
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool >"$OUT" 2>"$ERR" <&- || status=$?
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        assert_equal "$(cat "$ERR")" "$(name_of "$tool"): <stdin>:0: error: cannot read: Bad file descriptor [io-error]"
        takes_files "$tool" || continue
        status=0
        # shellcheck disable=SC2086
        timeout "$LIMIT" $tool "$IN" >"$OUT" 2>"$ERR" <&- || status=$?
        [ "$status" -eq 0 ] || fail "$tool: status $status: $(cat "$ERR")"
        assert_goods_processed "$tool"
    done
}

@test "standard output closed: one error, status 2, and the rejects stay the rejects" {
    add_good 1
    add_raw 'bad\n'
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        rm -f "$REJ"
        status=0
        # shellcheck disable=SC2086
        with_input "$tool" "$IN" --rejects="$REJ" 2>"$ERR" >&- || status=$?
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        assert_errors "$tool" 2
        grep -q "<stdout>:0: error: write error: Bad file descriptor \[io-error\]" "$ERR" || fail "$(cat "$ERR")"
        assert_equal "$(cat "$REJ")" bad
    done
}

@test "standard error closed: the diagnostics go nowhere, not into the output" {
    add_good 1
    add_raw 'bad\n'
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        rm -f "$OUT"
        status=0
        # shellcheck disable=SC2086
        with_input "$tool" "$IN" -o "$OUT" 2>&- || status=$?
        [ "$status" -eq 1 ] || fail "$tool: status $status"
        assert_goods_processed "$tool"
    done
}

@test "a full disk (/dev/full): one error, status 2" {
    [ -w /dev/full ] || skip "no /dev/full"
    add_good 1
    add_good 2
    local with_bad=$BATS_TEST_TMPDIR/with-bad
    { cat "$IN"; echo bad; } >"$with_bad"
    local entry kind tool
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        status=0
        # shellcheck disable=SC2086
        with_input "$tool" "$IN" >/dev/full 2>"$ERR" || status=$?
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        assert_equal "$(cat "$ERR")" "$(name_of "$tool"): <stdout>:0: error: write error: No space left on device [io-error]"
        status=0
        # shellcheck disable=SC2086
        with_input "$tool" "$with_bad" --rejects=/dev/full >"$OUT" 2>"$ERR" || status=$?
        [ "$status" -eq 2 ] || fail "$tool: status $status"
        grep -q "/dev/full:0: error: write error: No space left on device \[io-error\]" "$ERR" ||
            fail "$(cat "$ERR")"
    done
}

@test "SIGINT in the middle of a run: status 130, what was read is written, nothing else said" {
    skip_under valgrind "the signal must come while the tool waits"
    local entry kind tool pid writer
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* }
        rm -f "$BATS_TEST_TMPDIR/fifo" "$OUT" "$REJ" "$ERR"
        mkfifo "$BATS_TEST_TMPDIR/fifo"
        # shellcheck disable=SC2086
        $tool --rejects="$REJ" --stats <"$BATS_TEST_TMPDIR/fifo" >"$OUT" 2>"$ERR" 3>&- &
        pid=$!
        exec {writer}>"$BATS_TEST_TMPDIR/fifo"
        : >"$IN"
        : >"$GOODS"
        add_good 1
        add_raw 'bad\n'
        add_good 2
        cat "$IN" >&"$writer"
        # Wait until the input is read: the output is there (the statistics only come at the end:
        # the diagnostic of the bad line, then a moment for the line read with it).
        for _ in $(seq 100); do
            if [ "$kind" = counted ]; then
                grep -q error "$ERR" && sleep 0.3 && break
            else
                [ "$(wc -l <"$OUT")" -eq 2 ] && break
            fi
            sleep 0.05
        done
        kill -INT "$pid"
        status=0
        timeout "$LIMIT" tail --pid="$pid" -f /dev/null || fail "$tool: still running after SIGINT"
        wait "$pid" || status=$?
        exec {writer}>&-
        [ "$status" -eq 130 ] || fail "$tool: status $status"
        assert_errors "$tool" 1
        assert_goods_processed "$tool"
        assert_nothing_lost "$tool"
    done
}

@test "a reader that goes away (SIGPIPE): the tool stops at once, quietly" {
    goods 20000 >"$IN"
    head -2000 "$IN" >"$IN.2000"
    local entry kind tool in
    for entry in "${TOOLS[@]}"; do
        kind=${entry%% *} tool=${entry#* } in=$IN
        # Statistics are one line: a diagram is long (2,000 arrows, 100 kB, more than a pipe
        # holds), and comes at the end, once every message was read (quick enough under valgrind
        # too).
        [ "$kind" != counted ] || tool=${tool/--format=stats/--format=text} in=$IN.2000
        # shellcheck disable=SC2016
        run -0 --separate-stderr timeout "$LIMIT" bash -c '$1 <"$2" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$tool" "$in"
        assert_output 141
        assert_equal "$stderr" ""
    done
}

# Issue 38: mosquitto_sub -v writes each message's topic, a space, then the message.
@test "a topic before the JSON (mosquitto_sub -v) is told as that, at column 1, in every tool" {
    local hint="a topic before the JSON: 'colony/agents/forager-01', then the message (mosquitto_sub -v and similar clients write the topic first; leave out -v, or cut it off) [bad-json]"
    printf '%s %s\n' colony/agents/forager-01 "$(good 1)" >"$IN"
    local tool
    for tool in acp-validate "acp-convert --to=fipa" "acp-trace --format=stats"; do
        # shellcheck disable=SC2086
        run -1 --separate-stderr $tool "$IN"
        assert_equal "$stderr" "${tool%% *}: $IN:1:1: error: $hint"
    done
    # what is no message after its first word is JSON's own error, as before
    printf '%s\n' 'topic {"v":' 'two words {"a":1}' >"$IN"
    run -1 --separate-stderr acp-validate "$IN"
    [[ $stderr != *"a topic before"* ]] || fail "$stderr"
}
