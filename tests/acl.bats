load test_helper

# FIPA's string form (SC00070) as JADE writes it. The fixtures in fixtures/acl/ are what JADE
# 4.6.5's ACLMessage.toString() printed for messages built with its API: a request with a
# :reply-to set (JADE breaks the line after "(set "), a subscription whose cancel carries no
# content (as SubscriptionInitiator sends it), and a propose carrying user parameters (JADE
# writes them at the start of a line).
ACL=$FIXTURES/acl

# The messages of a fixture, one per element of the array MSGS, each without its final newline.
split_messages() {
    MSGS=()
    local line msg=""
    while IFS= read -r line; do
        if [[ $line == \([A-Z]* && -n $msg ]]; then
            MSGS+=("$msg")
            msg=""
        fi
        msg+=${msg:+$'\n'}$line
    done <"$1"
    MSGS+=("$msg")
}

# Starts a tool on a fifo that the test writes to, slowly, through the descriptor $writer;
# its stdout and stderr go to out and err in the test's folder.
start_live() {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    "$@" <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
    pid=$!
    exec {writer}>"$BATS_TEST_TMPDIR/fifo"
}

# Waits up to 5 s for a file to hold a line matching a pattern.
wait_for() {
    for _ in $(seq 50); do
        grep -q -e "$2" "$1" && return 0
        sleep 0.1
    done
    fail "no '$2' in $1 after 5 s: $(cat "$1")"
}

finish_live() {
    exec {writer}>&-
    status=0
    wait "$pid" || status=$?
}

# --- Records: JADE's layout is read message by message. ---

@test "acl: JADE's :reply-to set, whose agents start lines with '(', does not split a message" {
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa "$ACL/jade-request.acl"
    assert_equal "${#lines[@]}" 1
    assert_equal "$stderr" ''
    run -0 jq -c '[.performative, .reply_to, .sender, .reply_by, .conversation_id]' <<<"$output"
    assert_output '["request",["carol@host:1099/JADE","dave@host:1099/JADE"],{"name":"alice@host:1099/JADE","addresses":["http://host:7778/acc"]},"2024-01-15T10:35:00.250Z","C1705312800000_1"]'
}

@test "acl: a JADE subscription trace, cancel without content, is four messages" {
    run -0 acp-convert --fipa-profile=standard --to=fipa "$ACL/jade-subscription.acl"
    run -0 jq -r '[.performative, (.content // "-"), .conversation_id] | join(" ")' <<<"$output"
    assert_output "$(printf '%s\n' 'subscribe ((iota ?x (registered ?x))) C2' 'agree - C2' \
        'inform ((= (iota ?x (registered ?x)) (set a b))) C2' 'cancel - C2')"
}

@test "acl: acp-validate reads a JADE log directly and passes its messages as they were written" {
    run -0 --separate-stderr acp-validate --stateless "$ACL/jade-request.acl"
    assert_output "$(cat "$ACL/jade-request.acl")"
    # Today's caxton rules want content: the cancel goes to --rejects, verbatim.
    run -1 --separate-stderr acp-validate --stateless --rejects="$BATS_TEST_TMPDIR/rej" "$ACL/jade-subscription.acl"
    [[ $stderr == *"jade-subscription.acl:7: error: missing required member 'content' [fipa-missing]"* ]]
    split_messages "$ACL/jade-subscription.acl"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" "$(printf '%s\n%s' "${MSGS[1]}" "${MSGS[3]}")"
    assert_equal "$output" "$(printf '%s\n%s' "${MSGS[0]}" "${MSGS[2]}")"
}

@test "acl: acp-validate --from chooses how to read; IACP is JSON" {
    run -2 acp-validate --from=xml </dev/null
    assert_output --partial "--from must be auto, json or fipa-acl"
    run -2 acp-validate --from=fipa-acl --protocol=iacp </dev/null
    run -1 --separate-stderr acp-validate --stateless --from=json "$ACL/jade-request.acl"
    [[ $stderr == *"jade-request.acl:1:1: error:"*"[bad-json]"* ]]
    run -1 --separate-stderr acp-validate --stateless --protocol=iacp "$ACL/jade-request.acl"
    [[ $stderr == *"[bad-json]"* ]]
    local f
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"hb","ts":1}' 'not json')
    run -1 --separate-stderr acp-validate --stateless --from=fipa-acl "$f"
    [[ $stderr == *":1:1: error: expected '(' to start a message (byte 1 of the message) [acl-syntax]"* ]]
    [[ $stderr == *":2:1: error: expected '(' to start a message (byte 1 of the message) [acl-syntax]"* ]]
}

@test "acl: a string-form message is FIPA whatever its user parameters say" {
    local f=$BATS_TEST_TMPDIR/kind.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "x" :X-acp-kind hb :X-acp-v "1.1")' >"$f"
    run -0 --separate-stderr acp-validate --stateless "$f"
    assert_output "$(cat "$f")"
}

@test "acl: a valid message is never split, whatever its lines start with" {
    local f=$BATS_TEST_TMPDIR/valid.acl
    printf '%s\n' '(INFORM' ' :content "two messages:' '(REQUEST :content \"a\")' '(INFORM)"' \
        ' :encoding' '(request :x 1)' ' :X-note' '(set (inform a) (cfp b))' \
        ' :reply-to (set' '(agent-identifier :name c)' '(agent-identifier :name d)))' \
        '(inform :content "next")' >"$f"
    run -0 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","content":"two messages:\n(REQUEST :content \"a\")\n(INFORM)","encoding":"(request :x 1)","X-note":"(set (inform a) (cfp b))","reply_to":["c","d"],"x-acp-expressions":["encoding","X-note"]}'
    assert_line --index 1 '{"performative":"inform","content":"next"}'
    assert_equal "$stderr" ''
}

# Cuts the first message of jade-request.acl after every one of its bytes, and follows each cut
# with the subscription trace: every cut loses itself and nothing else.
@test "acl: a message cut anywhere loses only itself (every cut of a JADE message)" {
    split_messages "$ACL/jade-request.acl"
    local request=${MSGS[0]}
    local trace
    trace=$(cat "$ACL/jade-subscription.acl")
    local in=$BATS_TEST_TMPDIR/cuts.acl want=$BATS_TEST_TMPDIR/want.rej i n=0
    : >"$in"
    : >"$want"
    for ((i = 1; i < ${#request}; i++)); do
        printf '%s\n%s\n' "${request:0:i}" "$trace" >>"$in"
        printf '%s\n' "${request:0:i}" >>"$want"
        n=$((n + 1))
    done
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$in"
    # every trace came through whole, and nothing else
    assert_equal "${#lines[@]}" $((4 * n))
    assert_equal "$(jq -r .performative <<<"$output" | sort | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')" \
        "$n agree $n cancel $n inform $n subscribe "
    # one error per cut, each cut verbatim in --rejects
    assert_equal "$(grep -c 'error:' <<<"$stderr")" "$n"
    cmp "$want" "$BATS_TEST_TMPDIR/rej"
}

@test "acl: a message cut at the end of a piped input is reported" {
    split_messages "$ACL/jade-request.acl"
    local request=${MSGS[0]} i
    for i in 1 17 60 130 200 300 400; do
        sh_run "printf '%s\n' '${request:0:i}' | acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa"
        assert_equal "$status" 1
        [[ $output == *"[acl-syntax]"* ]]
    done
}

@test "acl: an unclosed string literal loses only its message" {
    local f=$BATS_TEST_TMPDIR/lit.acl
    # The literal would run on to the next quote; the message after it has none.
    printf '%s\n' '(inform :content "ok1")' '(inform :content "never closed' \
        '(cancel :sender (agent-identifier :name a) :protocol fipa-subscribe)' \
        '(inform :content "ok2")' '(inform :content "ok3")' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_equal "${#lines[@]}" 4
    assert_line --index 1 '{"performative":"cancel","sender":"a","protocol":"fipa-subscribe"}'
    assert_line --index 3 '{"performative":"inform","content":"ok3"}'
    [[ $stderr == *"lit.acl:2:18: error: string literal without its closing quote"* ]]
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" '(inform :content "never closed'
}

@test "acl: a huge #N\" length does not swallow the stream" {
    local f=$BATS_TEST_TMPDIR/hash.acl
    printf '%s\n' '(inform :content #99999999999999"abc")' '(inform :content "ok")' \
        '(inform :content #5000"abc")' '(inform :content "ok2")' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --max-line-bytes=1K "$f"
    assert_output "$(printf '%s\n' '{"performative":"inform","content":"ok"}' '{"performative":"inform","content":"ok2"}')"
    [[ $stderr == *"hash.acl:1:18: error: byte-length string runs past the end of the message"* ]]
    [[ $stderr == *"hash.acl:3:18: error: byte-length string runs past the end of the message"* ]]
}

@test "acl: a message cut inside an agent-identifier is found out by the next message" {
    local f=$BATS_TEST_TMPDIR/aid.acl
    printf '%s\n' '(REQUEST' ' :sender  ( agent-identifier :name a@h  :addresses (sequence http://h' \
        '(INFORM :content "ok1")' '(INFORM :content "ok2")' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    assert_output "$(printf '%s\n' '{"performative":"inform","content":"ok1"}' '{"performative":"inform","content":"ok2"}')"
    [[ $stderr == *"aid.acl:2:52: error: expression without its closing parenthesis"* ]]
}

# A line "(" (a string-form record cut after its first byte), then N heartbeats, as JSON Lines.
# The heartbeats alone go to FILE.hb. Usage: paren_then_heartbeats FILE N
paren_then_heartbeats() {
    printf '(\n'
    awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++)
        printf "{\"v\":\"1.1\",\"id\":\"m-%06x\",\"from\":\"forager-%02d\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":%d}\n",
            i, i % 100, 1312284100 + i }' >"$1.hb"
    cat "$1.hb"
}

@test "auto: a lone '(' before 30,000 JSON lines loses only itself, in every tool" {
    local f=$BATS_TEST_TMPDIR/paren.jsonl rej=$BATS_TEST_TMPDIR/rej
    paren_then_heartbeats "$f" 30000 >"$f"
    run -1 --separate-stderr acp-validate --rejects="$rej" "$f"
    assert_equal "${#lines[@]}" 30000
    assert_equal "$output" "$(cat "$f.hb")"
    assert_equal "$stderr" "acp-validate: $f:1:1: error: expression without its closing parenthesis (byte 1 of the message) [acl-syntax]"
    assert_equal "$(od -c "$rej")" "$(printf '(\n' | od -c)"
    run -1 --separate-stderr acp-convert --to=fipa --rejects="$rej" "$f"
    assert_equal "${#lines[@]}" 30000
    assert_equal "$(grep -c '^{"performative":"inform"' <<<"$output")" 30000
    [[ $stderr == *"$f:1:1: error: expression without its closing parenthesis"* ]]
    assert_equal "$(wc -l <<<"$stderr")" 1
    assert_equal "$(od -c "$rej")" "$(printf '(\n' | od -c)"
    run -1 --separate-stderr acp-trace --format=stats --rejects="$rej" "$f"
    [[ $output == '{"type":"trace-stats","version":1,"messages":30000,"kinds":{"hb":30000},'* ]]
    [[ $stderr == *"$f:1:1: error: expression without its closing parenthesis"* ]]
    assert_equal "$(wc -l <<<"$stderr")" 1
    assert_equal "$(od -c "$rej")" "$(printf '(\n' | od -c)"
}

@test "acl: a lone '(' before 30,000 JSON lines ends before the first, each line a record" {
    local f=$BATS_TEST_TMPDIR/paren.jsonl tool
    paren_then_heartbeats "$f" 30000 >"$f"
    for tool in acp-validate "acp-convert --to=fipa"; do
        # shellcheck disable=SC2086
        run -1 --separate-stderr $tool --from=fipa-acl --rejects="$BATS_TEST_TMPDIR/rej" "$f"
        assert_output ''
        [[ $stderr == *"$f:1:1: error: expression without its closing parenthesis"* ]]
        [[ $stderr != *line-too-long* ]]
        # The "(" alone, then one error for each line, each at its own line.
        assert_equal "$(grep -c "expected '(' to start a message" <<<"$stderr")" 30000
        [[ $stderr == *"$f:30001:1: error: expected '(' to start a message"* ]]
        assert_equal "$(head -c 2 "$BATS_TEST_TMPDIR/rej" | od -c)" "$(printf '(\n' | od -c)"
        cmp "$f" "$BATS_TEST_TMPDIR/rej"
    done
}

@test "acl: a broken message ends before a line that starts with '{', a valid one never" {
    local f=$BATS_TEST_TMPDIR/brace.acl
    printf '%s\n' '(inform :content "ok1")' '(inform :content (cut' '{"v":"1.1"}' \
        '(inform :content "two lines:' '{\"a\":1}")' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","content":"ok1"}'
    assert_line --index 1 '{"performative":"inform","content":"two lines:\n{\"a\":1}"}'
    assert_equal "${#lines[@]}" 2
    [[ $stderr == *"brace.acl:2:"* ]]
    [[ $stderr == *"brace.acl:3:"* ]]
}

# --- Junk, over-long records, and the accounting of every byte. ---

@test "acl: junk after a message on its line is acl-syntax at its real column" {
    local f=$BATS_TEST_TMPDIR/junk.acl
    printf '%s\n' '(inform :content "a")   junk {"v":1}' '(inform :content "b")(agree :content "c")  ' >"$f"
    for from in auto fipa-acl; do
        run -1 --separate-stderr acp-convert --fipa-profile=standard --from=$from --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
        assert_equal "$stderr" "acp-convert: $f:1:25: error: expected '(' to start a message (byte 1 of the message) [acl-syntax]"
        assert_equal "${#lines[@]}" 3
        assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" 'junk {"v":1}'
    done
}

@test "acl: rejected records are verbatim: indentation kept, no blank line added" {
    local f=$BATS_TEST_TMPDIR/indent.acl
    printf '%s\n' '   junk with indentation  ' '  (inform :sender' '(inform :content "ok")' '' '	(bogus :content "x")' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output '{"performative":"inform","content":"ok"}'
    printf '%s\n' '   junk with indentation  ' '  (inform :sender' '	(bogus :content "x")' >"$BATS_TEST_TMPDIR/want"
    cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/rej"
    [[ $stderr == *"indent.acl:1:4: error: expected '('"* ]]
    [[ $stderr == *"indent.acl:2:3: error: expression without its closing parenthesis"* ]]
    [[ $stderr == *"indent.acl:5:3: error: 'bogus' is not a FIPA communicative act"* ]]
}

@test "acl: an over-long run of junk is one record, reported once with its real length" {
    local f=$BATS_TEST_TMPDIR/long.acl
    { head -c 3145728 /dev/zero | tr '\0' x; printf '\n(inform :content "ok")\n'; } >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output '{"performative":"inform","content":"ok"}'
    assert_equal "$stderr" "acp-convert: $f:1: error: line of 3145728 bytes is longer than --max-line-bytes=1048576 [line-too-long]"
    cmp <(head -1 "$f") "$BATS_TEST_TMPDIR/rej"
}

@test "acl: an over-long message is one record, reported once, copied whole" {
    local f=$BATS_TEST_TMPDIR/longmsg.acl
    { printf '(INFORM\n :content "'; head -c 2000000 /dev/zero | tr '\0' y; printf '"\n )\n(INFORM :content "ok")\n'; } >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output '{"performative":"inform","content":"ok"}'
    assert_equal "$stderr" "acp-convert: $f:1: error: message of 2000023 bytes is longer than --max-line-bytes=1048576 [line-too-long]"
    cmp <(head -3 "$f") "$BATS_TEST_TMPDIR/rej"
}

@test "acl: an over-long message still open at the end of the input ends there" {
    local f=$BATS_TEST_TMPDIR/open.acl
    { printf '(inform :content "ok")\n(INFORM\n :content "'; head -c 5000 /dev/zero | tr '\0' z; } >"$f"
    run -1 --separate-stderr timeout 10 acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa --max-line-bytes=1K --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output '{"performative":"inform","content":"ok"}'
    assert_equal "$stderr" "acp-convert: $f:2: error: message of 5019 bytes is longer than --max-line-bytes=1024 [line-too-long]"
    cmp <(tail -n +2 "$f"; echo) "$BATS_TEST_TMPDIR/rej"
}

@test "acl: an over-long line or message is never held whole" {
    skip_under valgrind "address space limits and 100 MB"
    [[ $ACP_BIN != *asan* ]] || skip "address space limits do not work under AddressSanitizer"
    sh_run "{ head -c 100000000 /dev/zero | tr '\\0' x; printf '\\n(inform :content \"ok\")\\n'; } | (ulimit -v 60000; exec acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa)"
    assert_equal "$status" 1
    assert_line '{"performative":"inform","content":"ok"}'
    assert_line --partial 'line of 100000000 bytes'
    sh_run "{ printf '(inform :content \"'; head -c 100000000 /dev/zero | tr '\\0' x; printf '\\n(inform :content \"ok\")\\n'; } | (ulimit -v 60000; exec acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa)"
    assert_equal "$status" 1
    assert_line '{"performative":"inform","content":"ok"}'
    assert_line --partial 'message of 100000018 bytes'
}

@test "acl: /dev/zero is one endless line, never a loop of errors" {
    sh_run "head -c 5M /dev/zero | acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa"
    assert_equal "$status" 1
    assert_output "acp-convert: <stdin>:1: error: line of 5242880 bytes is longer than --max-line-bytes=1048576 [line-too-long]"
    sh_run "timeout 2 acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa /dev/zero 2>&1 | head -c 1000"
    assert_output ''
}

# Builds, from the seed, a stream of records whose fate the test knows: messages that pass,
# messages that are rejected (cut, unknown act, no content, duplicate parameter), junk lines,
# junk after a message, blank lines and the white space the reader skips. The files KEPT and
# REJECTED get each record followed by a newline, IN the stream. (awk, not a bash loop: bats
# traces every bash command.)
build_stream() {
    split_messages "$ACL/jade-request.acl"
    local -a good=("${MSGS[0]}")
    split_messages "$ACL/jade-subscription.acl"
    good+=("${MSGS[0]}" "${MSGS[2]}")
    local -a bad=("${MSGS[1]}" "${MSGS[3]}" '(bogus :content "x")'
        '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "x" :CONTENT "y")')
    printf '%s\0' "${good[@]}" >"$BATS_TEST_TMPDIR/good"
    printf '%s\0' "${bad[@]}" >"$BATS_TEST_TMPDIR/bad"
    awk -v seed="$1" -v in_file="$IN" -v kept_file="$KEPT" -v rejected_file="$REJECTED" '
        BEGIN { RS = "\0"; srand(seed) }
        FILENAME ~ /good$/ { good[ng++] = $0; next }
        { bad[nb++] = $0 }
        function pick(n) { return int(rand() * n) }
        function emit(text, kept, rejected) {
            printf "%s", text >in_file
            printf "%s", kept >kept_file
            printf "%s", rejected >rejected_file
        }
        END {
            printf "" >in_file; printf "" >kept_file; printf "" >rejected_file
            for (i = 0; i < 300; i++) {
                m = good[pick(ng)]; r = bad[pick(nb)]
                space = substr("  ", 1, pick(3))
                k = pick(10)
                if (k <= 2) emit(m space "\n", m "\n", "")
                else if (k == 3) emit(r "\n", "", r "\n")
                else if (k == 4) { # a cut, followed (as a broken message must be) by a message
                    cut = substr(m, 1, 1 + pick(length(m) - 1))
                    emit(cut "\n" m "\n", m "\n", cut "\n")
                } else if (k == 5) emit(space "junk line " i "\n", "", space "junk line " i "\n")
                else if (k == 6) emit(m space " trailing " i "\n", m "\n", "trailing " i "\n")
                else if (k == 7) emit("\n" space "\n", "", "")
                else if (k == 8) emit(space m "\n", space m "\n", "")
                else emit(m " " m "\n", m "\n" m "\n", "")
            }
        }' "$BATS_TEST_TMPDIR/good" "$BATS_TEST_TMPDIR/bad"
}

@test "property: kept records, rejected records and skipped white space account for every byte" {
    IN=$BATS_TEST_TMPDIR/in.acl KEPT=$BATS_TEST_TMPDIR/kept REJECTED=$BATS_TEST_TMPDIR/rejected
    local seed
    for seed in 1 2 3 4 5; do
        build_stream "$seed"
        for from in fipa-acl auto; do
            run -1 --separate-stderr acp-validate --stateless --from=$from -o "$BATS_TEST_TMPDIR/out" --rejects="$BATS_TEST_TMPDIR/rej" "$IN"
            cmp "$KEPT" "$BATS_TEST_TMPDIR/out" || fail "seed $seed, --from=$from: the kept records differ"
            if [ $from = fipa-acl ]; then
                cmp "$REJECTED" "$BATS_TEST_TMPDIR/rej" || fail "seed $seed: the rejected records differ"
            fi
            # and, byte for byte, nothing else was dropped than white space
            assert_equal "$(cat "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/rej" | tr -d ' \n' | wc -c)" \
                "$(tr -d ' \n' <"$IN" | wc -c)"
        done
    done
}

# --- Live streams: each record is reported as soon as it is complete. ---

@test "live: a junk line is reported when its newline arrives, with --from=fipa-acl" {
    start_live acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa
    printf 'not a message' >&"$writer"
    sleep 0.3
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ''
    printf '\n' >&"$writer"
    wait_for "$BATS_TEST_TMPDIR/err" "<stdin>:1:1: error: expected '('"
    printf '(inform :content "a")' >&"$writer"
    wait_for "$BATS_TEST_TMPDIR/out" '"content":"a"'
    finish_live
    assert_equal "$status" 1
}

@test "live: a broken message is reported when the next message starts" {
    start_live acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa
    printf '(REQUEST\n :sender  ( agent-identifier :name a@h\n' >&"$writer"
    sleep 0.3
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ''
    printf '(INFORM :content "next")' >&"$writer"
    wait_for "$BATS_TEST_TMPDIR/err" "<stdin>:2:11: error: expression without its closing parenthesis"
    wait_for "$BATS_TEST_TMPDIR/out" '"content":"next"'
    finish_live
    assert_equal "$status" 1
}

@test "live: a JADE message passes acp-validate as soon as its ')' arrives" {
    start_live acp-validate --stateless
    split_messages "$ACL/jade-request.acl"
    local m=${MSGS[0]}
    printf '%s' "${m:0:200}" >&"$writer"
    sleep 0.3
    assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" ''
    printf '%s' "${m:200}" >&"$writer"
    wait_for "$BATS_TEST_TMPDIR/out" 'conversation-id'
    finish_live
    assert_equal "$status" 0
    assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$m"
}

# --- Duplicates. ---

@test "acl: a parameter given twice is duplicate-key, names compared without case" {
    local f=$BATS_TEST_TMPDIR/dup.acl
    printf '%s\n' '(inform :content "x" :content "y")' '(inform :content "x" :CONTENT "y")' \
        '(inform :sender (agent-identifier :name a) :Sender (agent-identifier :name b))' \
        '(inform :sender (agent-identifier :name a :name b))' \
        '(inform :X-note a :x-NOTE b)' \
        '(inform :sender (agent-identifier :name a) :X-acp-sender b)' \
        '(inform :X-acp-foo "a" :X-acp-json-foo "1")' \
        '(inform :content "unique" :X-one 1 :X-two 2)' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"inform","content":"unique","X-one":"1","X-two":"2"}'
    assert_equal "$(grep -c '\[duplicate-key\]' <<<"$stderr")" 7
    [[ $stderr == *"dup.acl:1:22: error: parameter ':content' is given twice (names are compared without regard to case) [duplicate-key]"* ]]
    [[ $stderr == *"dup.acl:4:43: error: parameter ':name' is given twice"* ]]
    [[ $stderr == *"dup.acl:6:44: error: ':X-acp-sender' gives member 'sender' a second value [duplicate-key]"* ]]
}

@test "acl: members whose names differ only in case still come back" {
    local f
    f=$(lines_file '{"performative":"inform","content":{},"X-note":"a","x-note":"b","Foo":"c","foo":"d"}')
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa-acl '$f' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(cat "$f")"
}

# --- Date-times. ---

@test "acl: any letter is a type designator: read as UTC with a warning, written back as spelled" {
    local f=$BATS_TEST_TMPDIR/dt.acl
    printf '%s\n' '(cfp :reply-by 20001211T100025100A :content "x")' '(cfp :reply-by 20001211T100025100z)' >"$f"
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_line --index 0 '{"performative":"cfp","reply_by":"2000-12-11T10:00:25.100Z","x-acp-reply-by":"20001211T100025100A","content":"x"}'
    assert_line --index 1 '{"performative":"cfp","reply_by":"2000-12-11T10:00:25.100Z","x-acp-reply-by":"20001211T100025100z"}'
    assert_equal "$stderr" "acp-convert: $f:1:16: warning: date-time '20001211T100025100A' has the type designator 'A', not Z; read as UTC [acl-time-zone]"
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa '$f' 2>/dev/null | acp-convert --fipa-profile=standard --to=fipa-acl"
    assert_line --index 1 ' :reply-by 20001211T100025100A'
    assert_line --index 4 ' :reply-by 20001211T100025100z)'
    # through IACP as well (which needs a sender and a receiver)
    printf '%s\n' '(cfp :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :reply-by 20001211T100025100A :content "x")' >"$f"
    run -0 bash -c "acp-convert --to=iacp --now=0 '$f' 2>/dev/null | acp-convert --to=fipa-acl"
    assert_line ' :reply-by 20001211T100025100A'
}

@test "acl: a kept spelling that no longer says reply_by's instant is not written" {
    local f
    f=$(lines_file '{"performative":"cfp","reply_by":"2024-01-15T10:35:00Z","x-acp-reply-by":"20001211T100025100A"}')
    run -0 acp-convert --fipa-profile=standard --to=fipa-acl "$f"
    assert_line --index 1 ' :reply-by 20240115T103500000Z'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa-acl '$f' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: relative date-times count from --now, with 30-day months and 365-day years" {
    local f=$BATS_TEST_TMPDIR/rel.acl
    printf '%s\n' '(cfp :reply-by +00000000T000500000)' '(cfp :reply-by -00000001T000000000)' \
        '(cfp :reply-by +00000100T000000250)' '(cfp :reply-by +00010000T000000000)' \
        '(cfp :reply-by +99990000T000000000)' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --to=fipa --now=2024-01-15T10:00:00Z "$f"
    run -0 jq -r .reply_by <<<"$output"
    assert_output "$(printf '%s\n' 2024-01-15T10:05:00Z 2024-01-14T10:00:00Z 2024-02-14T10:00:00.250Z 2025-01-14T10:00:00Z)"
    [[ $stderr == *"rel.acl:5:16: error: relative date-time '+99990000T000000000' falls outside the years 0 to 9999 [acl-time]"* ]]
    # SOURCE_DATE_EPOCH when there is no --now
    sh_run "head -1 '$f' | SOURCE_DATE_EPOCH=1705312800 acp-convert --fipa-profile=standard --to=fipa"
    assert_output '{"performative":"cfp","reply_by":"2024-01-15T10:05:00Z","x-acp-reply-by":"+00000000T000500000"}'
}

@test "acl: a relative date-time goes back relative, and its instant rides along for this reader" {
    local f=$BATS_TEST_TMPDIR/rel.acl
    printf '%s\n' '(cfp :reply-by +00000000T000500000 :content "x")' >"$f"
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa --now=2024-01-15T10:00:00Z '$f' | acp-convert --fipa-profile=standard --to=fipa-acl"
    assert_line --index 1 ' :reply-by +00000000T000500000 :X-acp-reply_by "2024-01-15T10:05:00Z"'
    # read again a year later: the instant stays the one first read
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa --now=2024-01-15T10:00:00Z '$f' | acp-convert --fipa-profile=standard --to=fipa-acl | acp-convert --fipa-profile=standard --to=fipa --now=2025-01-01T00:00:00Z"
    assert_output '{"performative":"cfp","reply_by":"2024-01-15T10:05:00Z","x-acp-reply-by":"+00000000T000500000","content":"x"}'
}

@test "acl: acp-validate takes --now for relative date-times" {
    local f=$BATS_TEST_TMPDIR/rel.acl
    printf '%s\n' '(cfp :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "x" :reply-with r :reply-by -99990000T000000000)' >"$f"
    run -1 --separate-stderr acp-validate --stateless "$f"
    [[ $stderr == *"[acl-time]"* ]]
    sed -i 's/-99990000/+00000000/' "$f"
    run -0 --separate-stderr acp-validate --stateless --now=2024-01-15T10:00:00Z "$f"
    assert_output "$(cat "$f")"
}

# --- counter_propose, partial results, empty sets, expression values. ---

@test "acl: counter_propose is written as a propose JADE reads, and read back" {
    local f
    f=$(lines_file '{"performative":"counter_propose","sender":"a","receiver":"b","content":{"price":9}}')
    run -0 acp-convert --fipa-profile=standard --to=fipa-acl --spelling=upper "$f"
    assert_line --index 0 '(PROPOSE'
    assert_line --index 5 ' :X-acp-performative counter_propose)'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa-acl '$f' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(cat "$f")"
    # JADE rewrites the marker at the start of a line; (counter-propose is still read
    run -0 acp-convert --fipa-profile=standard --to=fipa "$ACL/jade-counter-propose.acl"
    assert_output '{"performative":"counter_propose","sender":"bob@host:1099/JADE","receiver":"alice@host:1099/JADE","content":"price 10","x-acp-partial":true}'
    sh_run "printf '(counter-propose :content \"x\")\n' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output '{"performative":"counter_propose","content":"x"}'
}

@test "acl: :X-acp-performative belongs to a propose and names counter_propose" {
    local f=$BATS_TEST_TMPDIR/cp.acl
    printf '%s\n' '(inform :X-acp-performative counter_propose)' '(propose :X-acp-performative shout)' \
        '(agree :X-acp-performative counter_propose)' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_output ''
    [[ $stderr == *"cp.acl:1:29: error: ':X-acp-performative counter_propose' belongs to a propose; this message is 'inform' [acl-performative]"* ]]
    [[ $stderr == *"cp.acl:2:30: error: ':X-acp-performative' names 'shout'; only counter_propose is read there [acl-performative]"* ]]
    [[ $stderr == *"cp.acl:3:28: error: ':X-acp-performative counter_propose' belongs to a propose; this message is 'agree' [acl-performative]"* ]]
}

@test "acl: \"x-acp-partial\": true is :X-acp-partial true, and a member partial \"true\" stays text" {
    local f
    f=$(lines_file '{"performative":"inform","sender":"f","receiver":"q","content":{},"x-acp-partial":true}' \
        '{"performative":"inform","content":{},"partial":"true"}' \
        '{"performative":"inform","content":{},"partial":"false","x-acp-partial":false}')
    run -0 acp-convert --fipa-profile=standard --to=fipa-acl "$f"
    assert_line --index 5 ' :X-acp-partial true)'
    assert_line --index 9 ' :X-acp-json-partial "\"true\"")'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa-acl '$f' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: (set) names no agent: the member is left out" {
    local f=$BATS_TEST_TMPDIR/set.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a) :receiver (set) :reply-to (set ) :content "x")' >"$f"
    run -0 acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_output '{"performative":"inform","sender":"a","content":"x"}'
    run -1 --separate-stderr acp-validate --stateless "$f"
    [[ $stderr == *"missing required member 'receiver' [fipa-missing]"* ]]
}

@test "acl: a list value keeps its meaning through FIPA JSON and IACP" {
    local f=$BATS_TEST_TMPDIR/expr.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a :X-where (room (floor 2))) :receiver (set (agent-identifier :name b)) :content "x" :encoding (base64 (chunked 4)) :X-hint "(not a list)")' >"$f"
    run -0 acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_output '{"performative":"inform","sender":{"name":"a","X-where":"(room (floor 2))","x-acp-expressions":["X-where"]},"receiver":"b","content":"x","encoding":"(base64 (chunked 4))","X-hint":"(not a list)","x-acp-expressions":["encoding"]}'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa '$f' | acp-convert --fipa-profile=standard --to=fipa-acl"
    assert_line --index 1 ' :sender (agent-identifier :name a :X-where (room (floor 2)))'
    assert_line --index 4 ' :encoding (base64 (chunked 4))'
    assert_line --index 5 ' :X-hint "(not a list)")'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=iacp --now=0 '$f' | acp-convert --fipa-profile=standard --to=fipa-acl | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(acp-convert --fipa-profile=standard --to=fipa "$f")"
}

@test "acl: x-acp-expressions must name members that are one list" {
    local f
    f=$(lines_file '{"performative":"inform","encoding":"(a b) (c)","x-acp-expressions":["encoding"]}' \
        '{"performative":"inform","encoding":"(a b","x-acp-expressions":["encoding"]}' \
        '{"performative":"inform","x-acp-expressions":["encoding"]}' \
        '{"performative":"inform","encoding":"(a b)","x-acp-expressions":"encoding"}')
    run -1 --separate-stderr acp-convert --fipa-profile=standard --to=fipa-acl "$f"
    assert_output ''
    assert_equal "$(grep -c "'x-acp-expressions' must list members whose text is one parenthesised expression \[convert-unwritable\]" <<<"$stderr")" 4
}

# Issue 38: in FIPA SL "yes" is a String and yes a Word; JSON holds both as "yes", so the reader
# marks the user parameters that came as strings (x-acp-quoted) and the writer quotes them again.
@test "acl: a user parameter's quoted string stays a string through FIPA JSON and IACP; a word stays a word" {
    local f=$BATS_TEST_TMPDIR/quoted.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a :X-desk "d1") :receiver (set (agent-identifier :name b)) :content "x" :X-JADE-track "yes" :X-priority high :X-acp-note "n" :X-label "two words")' >"$f"
    run -0 acp-convert --fipa-profile=standard --to=fipa "$f"
    assert_output '{"performative":"inform","sender":{"name":"a","X-desk":"d1","x-acp-quoted":["X-desk"]},"receiver":"b","content":"x","X-JADE-track":"yes","X-priority":"high","note":"n","X-label":"two words","x-acp-quoted":["X-JADE-track","note"]}'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=fipa '$f' | acp-convert --fipa-profile=standard --to=fipa-acl"
    assert_line --index 1 ' :sender (agent-identifier :name a :X-desk "d1")'
    assert_line --index 4 ' :X-JADE-track "yes"'
    assert_line --index 5 ' :X-priority high'
    assert_line --index 6 ' :X-acp-note "n"'
    run -0 bash -c "acp-convert --fipa-profile=standard --to=iacp --now=0 '$f' | acp-convert --fipa-profile=standard --to=fipa-acl | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$(acp-convert --fipa-profile=standard --to=fipa "$f")"
    # the marker names string members only
    f=$(lines_file '{"performative":"inform","X-n":1,"x-acp-quoted":["X-n"]}' '{"performative":"inform","x-acp-quoted":"X-n","X-n":"a"}')
    run -1 --separate-stderr acp-convert --fipa-profile=standard --to=fipa-acl "$f"
    assert_output ''
    assert_equal "$(grep -c "'x-acp-quoted' must list members whose values are strings \[convert-unwritable\]" <<<"$stderr")" 2
}

# Issue 39: FIPA's string form has no escape but \", so a control character would reach the
# terminal of whoever reads the output raw (a window title, a cleared screen, reversed text).
@test "acl: a string that holds a terminal control is not written in the string form; tab, newline and CRLF are" {
    local f=$BATS_TEST_TMPDIR/in.jsonl code
    for code in 001b 0007 000d 007f 0085 202e 2066; do
        printf '{"performative":"inform","sender":"a","receiver":"b","content":"x\\u%sy"}\n' "$code" >"$f"
        run -1 --separate-stderr acp-convert --to=fipa-acl --rejects="$BATS_TEST_TMPDIR/rej" "$f"
        assert_output ''
        assert_equal "$stderr" "acp-convert: $f:1: error: a string holds the control character U+${code^^}, which the string form has no escape for [convert-unwritable]"
        cmp "$f" "$BATS_TEST_TMPDIR/rej"
    done
    # in a name or a user parameter too
    printf '%s\n' '{"performative":"inform","sender":"a\u001b[2J","receiver":"b","content":"x"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":"x","X-note":"\u009b31m"}' >"$f"
    run -1 --separate-stderr acp-convert --to=fipa-acl "$f"
    assert_output ''
    assert_equal "$(grep -c 'convert-unwritable' <<<"$stderr")" 2
    # what JADE writes in content stays: a tab, newlines, CRLF, and JSON content's own escapes
    printf '%s\n' '{"performative":"inform","sender":"a","receiver":"b","content":"a\tb\nc\r\nd"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{"t":"\u001b"},"language":"json"}' >"$f"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

# Rule 5 of issue 22: JADE reads :x-NAME and :X-NAME as one parameter, NAME, and writes it back
# as :X-NAME. So the reader takes the prefix in either case, the writer writes X-, and the
# mappings' members keep their lower-case families (x-iacp-*, x-fipa-*).
@test "acl: a user parameter's prefix is read in either case; the writer writes X-" {
    local f=$BATS_TEST_TMPDIR/case.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "x" :x-iacp-kind task.offer :X-iacp-v 1.1 :x-fipa-sender c :X-priority low :x-note n :X-acp-ontology o)' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"inform","sender":"a","receiver":"b","content":"x","x-iacp-kind":"task.offer","x-iacp-v":"1.1","x-fipa-sender":"c","X-priority":"low","X-note":"n","ontology":"o"}'
    run -0 --separate-stderr acp-convert --to=fipa-acl <<<"$output"
    [[ $output == *' :X-iacp-kind task.offer'$'\n'' :X-iacp-v "1.1"'$'\n'' :X-fipa-sender c'$'\n'' :X-priority low'$'\n'' :X-note n'$'\n'' :ontology o)' ]]
    [[ $output != *' :x-'* ]]
}

@test "acl: :x-NAME and :X-NAME are one parameter given twice" {
    local f=$BATS_TEST_TMPDIR/twice.acl
    printf '%s\n' '(inform :content "x" :x-iacp-kind a :X-iacp-kind b)' >"$f"
    run -1 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    [[ $stderr == *"parameter ':X-iacp-kind' is given twice"*"[duplicate-key]"* ]]
}

@test "acl: a member whose x- prefix the reader would not give back in its case goes the long way" {
    local line='{"performative":"inform","sender":"a","receiver":"b","content":"x","x-note":"n","X-iacp-kind":"k","X-fipa-y":"y","x-iacp-kind":"task.offer","X-agent":"z"}'
    run -0 --separate-stderr acp-convert --to=fipa-acl <<<"$line"
    [[ $output == *' :X-acp-x-note n'$'\n'' :X-acp-X-iacp-kind k'$'\n'' :X-acp-X-fipa-y y'$'\n'' :X-iacp-kind task.offer'$'\n'' :X-agent z)' ]]
    run -0 --separate-stderr acp-convert --to=fipa <<<"$output"
    assert_output "$line"
}

@test "acl: an agent-identifier's user slots follow the same rule" {
    local line='{"performative":"inform","sender":{"name":"a","x-iacp-role":"queen","X-site":"s","x-low":"l"},"receiver":"b","content":"x"}'
    run -0 --separate-stderr acp-convert --to=fipa-acl <<<"$line"
    [[ $output == *'(agent-identifier :name a :X-iacp-role queen :X-site s :X-acp-x-low l)'* ]]
    run -0 --separate-stderr acp-convert --to=fipa <<<"$output"
    assert_output "$line"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa <<<'(inform :sender (agent-identifier :name a :x-iacp-role queen :x-site s) :receiver (set (agent-identifier :name b)) :content "x")'
    assert_output '{"performative":"inform","sender":{"name":"a","x-iacp-role":"queen","X-site":"s"},"receiver":"b","content":"x"}'
}

# Issue 22, rules 3 and 4: content is the text it came with.
@test "acl: JSON content goes into FIPA JSON as written, and back" {
    local f=$BATS_TEST_TMPDIR/verbatim.acl
    printf '%s\n' '(request :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "{\"task\": 7, \"big\": 1e3, \"r\": 0.50, \"z\": -0, \"e\": \"\u00e9\"}" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"request","sender":"a","receiver":"b","content":{"task": 7, "big": 1e3, "r": 0.50, "z": -0, "e": "\u00e9"},"language":"json"}'
    run -0 --separate-stderr acp-convert --to=fipa-acl <<<"$output"
    assert_line --index 3 ' :content "{\"task\": 7, \"big\": 1e3, \"r\": 0.50, \"z\": -0, \"e\": \"\u00e9\"}"'
    assert_equal "$stderr" ''
}

@test "acl: multi-line JSON content comes out on one line; only white space outside strings goes" {
    local f=$BATS_TEST_TMPDIR/lines.acl
    printf '%s\n' '(request :content "{' '  \"a\": \"x  y\",' '  \"b\": [1, 2]' '}" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"request","content":{"a": "x  y","b": [1, 2]},"language":"json"}'
    # from the string form to the string form, it is written as it came
    run -0 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa-acl "$f"
    assert_line --index 1 ' :content "{'
    assert_line --index 2 '  \"a\": \"x  y\",'
}

@test "acl: text that is no JSON under :language json comes back as it came, marked, with the warning" {
    local f=$BATS_TEST_TMPDIR/sl.acl
    printf '%s\n' '(agree :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "((agree))" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"agree","sender":"a","receiver":"b","content":"((agree))","language":"json","x-acp-content-text":true}'
    [[ $stderr == *"warning: the content is not JSON"*"[acl-json]"* ]]
    local to
    for to in fipa iacp; do
        run -0 bash -c "acp-convert --from=fipa-acl --to=$to '$f' 2>/dev/null | acp-convert --to=fipa-acl"
        assert_line --index 3 ' :content "((agree))"'
        [[ $output != *X-acp-content-text* ]]
    done
}

# The reader writes a message as a line of FIPA JSON that the scanner reads: content at jansson's
# depth limit stands one level deeper there, and is still read as the JSON it is.
@test "acl: JSON content as deep as jansson reads is JSON in the message; one level deeper is text" {
    local f=$BATS_TEST_TMPDIR/deep.acl depth open close
    for depth in 2047 2048; do
        open=$(printf '%*s' "$depth" '' | tr ' ' '[')
        close=$(printf '%*s' "$depth" '' | tr ' ' ']')
        printf '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "%s1%s" :language json)\n' "$open" "$close"
    done >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_equal "${#lines[@]}" 2
    [[ ${lines[0]} == '{"performative":"inform","sender":"a","receiver":"b","content":[[['* ]]
    [[ ${lines[1]} == '{"performative":"inform","sender":"a","receiver":"b","content":"[[['* ]]
    [[ $stderr == *"deep.acl:2:96: warning: the content is not JSON (maximum parsing depth reached"* ]]
    [[ $stderr != *"deep.acl:1:"* ]]
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=iacp "$f"
    assert_equal "${#lines[@]}" 2
}

@test "acl: JSON the tools cannot hold (an integer beyond 64 bits) is text, without a warning" {
    local f=$BATS_TEST_TMPDIR/big.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a) :receiver (set (agent-identifier :name b)) :content "{\"id\": 12345678901234567890}" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"inform","sender":"a","receiver":"b","content":"{\"id\": 12345678901234567890}","language":"json","x-acp-content-text":true}'
    assert_equal "$stderr" ''
    run -0 --separate-stderr acp-validate --stateless "$f"
    assert_equal "$stderr" ''
    run -0 bash -c "acp-convert --from=fipa-acl --to=iacp '$f' | acp-convert --to=fipa-acl"
    assert_line --index 3 ' :content "{\"id\": 12345678901234567890}"'
}

@test "acl: a JSON string content stays quoted; marked text that reads as JSON keeps its marker" {
    local f=$BATS_TEST_TMPDIR/string.acl
    printf '%s\n' '(inform :content "\"hi\"" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --fipa-profile=standard --from=fipa-acl --to=fipa "$f"
    assert_output '{"performative":"inform","content":"hi","language":"json"}'
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa-acl <<<"$output"
    assert_line --index 1 ' :content "\"hi\""'
    local line='{"performative":"inform","content":"42","language":"json","x-acp-content-text":true}'
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa-acl <<<"$line"
    assert_line --index 1 ' :content "42"'
    assert_line --index 2 ' :X-acp-content-text true'
    run -0 --separate-stderr acp-convert --fipa-profile=standard --to=fipa <<<"$output"
    assert_output "$line"
    line='{"performative":"inform","content":"((a))","language":"fipa-sl","x-acp-content-text":true}'
    run -0 --separate-stderr bash -c "acp-convert --fipa-profile=standard --to=fipa-acl <<<'$line' | acp-convert --fipa-profile=standard --to=fipa"
    assert_output "$line"
}

# A parameter's name is lowered eight bytes at a time (acl_lower_ascii): every byte at every place
# of a short name, and random names, lower as tolower does, with its NUL and non-ASCII bytes told.
@test "acl: parameter names lower eight bytes at a time as tolower lowers them a byte at a time" {
    run -0 "$ACP_BUILD/tests/acl-lower" 20000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# Whether a text may be written as a bare word (acl_plain_word's table of word bytes, read eight at
# a time) agrees with the rule acl_parts.h states, byte by byte.
@test "acl: a text is a bare word exactly when the rule for words says so" {
    run -0 "$ACP_BUILD/tests/acl-words" 20000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# The lexer reads most tokens in one go when the whole token is held, and byte by byte through
# its states when the text ends inside one (the reader at the end of what it holds): random texts
# of the form's pieces give the same tokens both ways.
@test "acl: the lexer reads the same tokens from a whole text as from one that grows a byte at a time" {
    run -0 "$ACP_BUILD/tests/acl-tokens" 5000
    assert_output --regexp '^checked 5000, differ 0$'
}
