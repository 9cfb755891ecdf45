# Loaded by every suite: the assertion libraries, the binaries under test, and small helpers.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ACP_BIN=${ACP_BIN:-$TESTS_DIR/../bin}
ACP_BIN=$(cd "$ACP_BIN" && pwd)
PATH="$ACP_BIN:$PATH"
FIXTURES=$TESTS_DIR/fixtures
EXAMPLES=$TESTS_DIR/../examples
# The programs the suites run besides the tools (tests/drivers/*.c as $ACP_BUILD/tests/NAME, the
# generators of bench/ and the example forager as $ACP_BUILD/NAME) come from `make
# test-programs`; make check says which build, and by hand it is build/.
ACP_BUILD=${ACP_BUILD:-$TESTS_DIR/../build}
ACP_BUILD=$(mkdir -p "$ACP_BUILD" && cd "$ACP_BUILD" && pwd)
export NO_COLOR=1
unset SOURCE_DATE_EPOCH
# acp-trace's text diagram fills $COLUMNS, terminal or not: a test that wants a width says so.
unset COLUMNS

# Makes sure the test programs are built (a no-op under make check): for setup_file.
build_test_programs() {
    make -s --no-print-directory -C "$TESTS_DIR/.." BUILD="$ACP_BUILD" test-programs >&2
}

# Writes its arguments, one line each, to a file in the test's scratch folder; prints the path.
lines_file() {
    local f
    f=$(mktemp "$BATS_TEST_TMPDIR/in.XXXXXX")
    printf '%s\n' "$@" >"$f"
    printf '%s' "$f"
}

# Runs a pipeline or redirection, given as one string (never `run a | b`).
sh_run() {
    run bash -c "$1"
}

# Runs one golden case folder (see tests/run) and compares everything it produced.
check_golden() {
    local dir=$1 tool args=()
    tool=$(basename "$(dirname "$dir")")
    if [ -f "$dir/args" ]; then
        mapfile -t args <"$dir/args"
    fi
    local input=/dev/null
    [ -f "$dir/input" ] && input=$dir/input
    local status=0
    (cd "$dir" && "acp-$tool" "${args[@]}" <"$input" >"$BATS_TEST_TMPDIR/stdout" 2>"$BATS_TEST_TMPDIR/stderr") || status=$?
    local want_status=0
    [ -f "$dir/status" ] && want_status=$(cat "$dir/status")
    local f
    for f in stdout stderr; do
        if [ -f "$dir/$f" ]; then
            diff -u "$dir/$f" "$BATS_TEST_TMPDIR/$f" || fail "$f differs"
        else
            diff -u /dev/null "$BATS_TEST_TMPDIR/$f" || fail "$f should be empty"
        fi
    done
    [ "$status" -eq "$want_status" ] || fail "status $status, expected $want_status"
}

# Leaves out a test that would test the instrument the tools run under rather than the tools (one
# that measures time or memory, counts threads, needs a tool to keep pace, or feeds it 100 MB).
# The runs under one name it in ACP_UNDER: valgrind (tests/valgrind), AddressSanitizer (make
# check-asan), ThreadSanitizer (make check-tsan). Usage: skip_under INSTRUMENT WHY
skip_under() {
    [ "${ACP_UNDER-}" != "$1" ] || skip "under $1: $2"
}

# Fails unless the peak RSS that peak-rss wrote into the file $1 is under $2 KiB ($3 names the
# run in the message). Not under AddressSanitizer or valgrind: their shadow memory and quarantine
# grow with what is allocated, so the figure would be theirs; the run itself still counts.
assert_rss_below() {
    local rss
    rss=$(sed -n 's/^peak-rss-kib //p' "$1")
    [ -n "$rss" ] || fail "no peak-rss-kib line in $1: $(cat "$1")"
    [[ $ACP_BIN == *asan* || ${ACP_UNDER-} == valgrind ]] && return 0
    [ "$rss" -lt "$2" ] || fail "${3:+$3: }peak RSS $rss KiB"
}

# Fails while the process whose pid is in the file $1 still runs. One that is not the tool's own
# child may stay a zombie for a while after it was killed (until init reaps it): that counts as
# ended. The kill is given a second.
assert_ended() {
    local pid state i
    pid=$(cat "$1")
    for i in $(seq 20); do
        state=$(ps -o stat= -p "$pid" 2>/dev/null) || return 0
        [[ -z $state || $state == Z* ]] && return 0
        sleep 0.05
    done
    fail "process $pid still runs ($state)"
}

# Names that act on a terminal or speak each format's syntax: Mermaid's arrows and entities,
# PlantUML's end, quotes and Creole, SVG's markup and CDATA end, bidi controls, line ends.
HOSTILE_NAMES=($'\e[2J\e]0;pwned\a' $'a\nb\r@enduml' 'x->>y: z; #35; participant q' \
    '</text><script>alert(1)</script>&amp;]]>' $'\u202eevil\u2028line\xc2\x9b' '"q" as p1 -- __u__ //i//')

# hostile_capture [NAME...]: a capture where every name (default: HOSTILE_NAMES) is an agent, a
# node, a content and a conversation id: per name an IACP task (assign, accept, result) and a
# FIPA request left open (a note at the end). For the diagrams and the HTML report.
hostile_capture() {
    local i=0 h
    [ $# -gt 0 ] || set -- "${HOSTILE_NAMES[@]}"
    for h in "$@"; do
        i=$((i + 1))
        jq -cn --arg h "$h" --arg i "$i" '
            {v: "1.1", id: "q-000\($i)", from: "queen", to: $h, kind: "task.assign", ts: 100, body: {node: $h}},
            {v: "1.1", id: "m-00000\($i)", from: $h, to: "queen", kind: "task.accept", ref: "q-000\($i)", ts: 101},
            {v: "1.1", id: "m-00001\($i)", from: $h, to: "queen", kind: "task.result", ref: "q-000\($i)", ts: 102, body: {status: $h}},
            {performative: "request", sender: $h, receiver: "queen", content: $h, protocol: "fipa-request",
             conversation_id: $h, reply_with: $h, timestamp: "2011-08-02T11:21:40Z"}'
    done
}

# Waits until file $1 has at least $2 lines, for at most $3 seconds (default 10): a test that
# waits for something waits for the thing, not for a time that covers it on a quiet machine.
# Returns 1 when the time ran out, leaving the failure and its message to the caller.
await_lines() {
    local end=$((SECONDS + ${3:-10}))
    while [ "$(grep -c '' "$1" 2>/dev/null)" -lt "$2" ]; do
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.05
    done
}

# Starts each TOOL with the options ARGS (split on blanks) at once, each reading a FIFO of its own
# (TOOL.fifo in the test's folder), stdout to /dev/null and stderr in TOOL.stderr; then opens the
# FIFOs for writing, once every tool started, so that no tool holds another's open. LIVE_WRITERS
# holds the descriptors to write to, LIVE_PIDS the tools', in the order given.
# Usage: start_live "ARGS" TOOL...
start_live() {
    local args=$1 d=$BATS_TEST_TMPDIR tool w
    shift
    LIVE_WRITERS=()
    LIVE_PIDS=()
    for tool in "$@"; do
        mkfifo "$d/$tool.fifo"
        # shellcheck disable=SC2086
        "$tool" $args <"$d/$tool.fifo" >/dev/null 2>"$d/$tool.stderr" &
        LIVE_PIDS+=($!)
    done
    for tool in "$@"; do
        exec {w}>"$d/$tool.fifo"
        LIVE_WRITERS+=("$w")
    done
}

# For start_live's tools: waits until each TOOL.stderr holds N lines (8 s at most, the caller's
# assertions tell what is missing), and a second more for what should not come, then copies it to
# TOOL.err, what each said before the writer's next line. Usage: settle_live N TOOL...
settle_live() {
    local n=$1 tool
    shift
    for tool in "$@"; do await_lines "$BATS_TEST_TMPDIR/$tool.stderr" "$n" 8 || :; done
    sleep 1
    for tool in "$@"; do cp "$BATS_TEST_TMPDIR/$tool.stderr" "$BATS_TEST_TMPDIR/$tool.err"; done
}

# Writes LINE to each of start_live's tools. Usage: tell_live LINE
tell_live() {
    local w
    for w in "${LIVE_WRITERS[@]}"; do printf '%s\n' "$1" >&"$w"; done
}

# Writes LINE to each of start_live's tools, ends their input, and fails unless each exits 0.
# Usage: stop_live LINE
stop_live() {
    local w pid
    tell_live "$1"
    for w in "${LIVE_WRITERS[@]}"; do exec {w}>&-; done
    for pid in "${LIVE_PIDS[@]}"; do wait "$pid" || fail "status $?"; done
}
