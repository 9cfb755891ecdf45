# The input/output contract every tool follows (common/io/filter.c, io/reader.c, proto/message.c,
# diag/diag.c), exercised through acp-validate.
load test_helper

GOOD='{"v":"1.1","id":"q-00a1","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100}'
GOOD2='{"v":"1.1","id":"q-00a2","from":"queen","to":"forager-08","kind":"task.assign","ts":1312284101}'

@test "reads the files in order, then stdin for -" {
    a=$(lines_file "$GOOD")
    b=$(lines_file "$GOOD2")
    run -0 --separate-stderr bash -c "printf '%s\n' '$GOOD' | acp-validate --stateless '$b' - '$a'"
    assert_equal "${#lines[@]}" 3
    assert_line --index 0 "$GOOD2"
    assert_line --index 1 "$GOOD"
    assert_line --index 2 "$GOOD"
}

@test "reads stdin when no file is named" {
    sh_run "printf '%s\n' '$GOOD' | acp-validate --stateless"
    assert_success
    assert_output "$GOOD"
}

@test "a missing file is reported at line 0, the others are processed, status 2" {
    a=$(lines_file "$GOOD")
    run -2 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR/missing.jsonl" "$a"
    assert_output "$GOOD"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/missing.jsonl:0: error: cannot open: No such file or directory [io-error]"
}

@test "a directory is reported and skipped, status 2" {
    a=$(lines_file "$GOOD")
    run -2 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR" "$a"
    assert_output "$GOOD"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR:0: error: cannot read: Is a directory [io-error]"
}

@test "a bad line is reported and the stream goes on" {
    f=$(lines_file '{"v":' "$GOOD" 'not json' "$GOOD2")
    run -1 --separate-stderr acp-validate --stateless "$f"
    assert_equal "${#lines[@]}" 2
    assert_line --index 0 "$GOOD"
    assert_line --index 1 "$GOOD2"
    [[ $stderr == *"$f:1:"*"[bad-json]"*"$f:3:"*"[bad-json]"* ]]
}

@test "CRLF line ends are kept as they came" {
    printf '%s\r\n%s\r\n' "$GOOD" "$GOOD2" >"$BATS_TEST_TMPDIR/crlf"
    acp-validate --stateless "$BATS_TEST_TMPDIR/crlf" >"$BATS_TEST_TMPDIR/out"
    cmp "$BATS_TEST_TMPDIR/crlf" "$BATS_TEST_TMPDIR/out"
}

@test "a byte-order mark at the start of each file is dropped" {
    printf '\xef\xbb\xbf%s\n' "$GOOD" >"$BATS_TEST_TMPDIR/a"
    printf '\xef\xbb\xbf%s\n' "$GOOD2" >"$BATS_TEST_TMPDIR/b"
    run -0 acp-validate --stateless "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    assert_line --index 0 "$GOOD"
    assert_line --index 1 "$GOOD2"
}

@test "a byte-order mark in the middle of a stream is rejected" {
    printf '%s\n\xef\xbb\xbf%s\n' "$GOOD" "$GOOD2" >"$BATS_TEST_TMPDIR/in"
    run -1 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR/in"
    assert_output "$GOOD"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/in:2:1: error: byte-order mark in the middle of the stream [bom-mid-stream]"
}

@test "a last line without a newline is written with one" {
    printf '%s\n%s' "$GOOD" "$GOOD2" >"$BATS_TEST_TMPDIR/in"
    acp-validate --stateless "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
    printf '%s\n%s\n' "$GOOD" "$GOOD2" | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "blank lines are skipped and counted" {
    printf '\n%s\n  \t\n\r\n%s\n' "$GOOD" "$GOOD2" >"$BATS_TEST_TMPDIR/in"
    run -0 --separate-stderr acp-validate --stateless --stats "$BATS_TEST_TMPDIR/in"
    assert_equal "${#lines[@]}" 2
    assert_equal "$stderr" "acp-validate: 5 records: 2 valid, 0 rejected, 3 blank; 0 warnings, 0 errors"
}

@test "valid lines are written byte for byte: spacing, key order and escapes kept" {
    line='{ "ts" : 1312284100 , "kind":"task.assign","v":"1.1", "id":"q-00a1","from":"queen","to":"forager-07","body":{"note":"caf\u00e9 \"x\"\/y","n":1.50e2}}	'
    printf '%s\n' "$line" >"$BATS_TEST_TMPDIR/in"
    acp-validate --stateless "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out"
    cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
}

reject_code() { # INPUT-BYTES (printf format) CODE COLUMN
    printf "$1\n" >"$BATS_TEST_TMPDIR/bad"
    run -1 --separate-stderr acp-validate --stateless "$BATS_TEST_TMPDIR/bad"
    assert_output ''
    [[ $stderr == "acp-validate: $BATS_TEST_TMPDIR/bad:1:$3: error: "*"[$2]" ]] || fail "got: $stderr"
}

@test "invalid JSON is rejected with its column" {
    reject_code '{"v":"1.1",}' bad-json 12
}

@test "a top-level value that is not an object is rejected" {
    reject_code '[1,2]' not-object 1
    reject_code '  "text"' not-object 3
    reject_code 'null' not-object 1
}

@test "trailing bytes after the object are rejected" {
    reject_code '{"a":1} {"b":2}' trailing-data 9
}

@test "duplicate keys are rejected, nested ones too" {
    reject_code '{"a":1,"a":2}' duplicate-key 10
    reject_code '{"b":{"x":1,"x":1}}' duplicate-key 15
}

@test "invalid UTF-8 is rejected: stray bytes, overlong forms, surrogates" {
    reject_code '{"a":"\xff"}' bad-utf8 6
    reject_code '{"a":"\xc0\xaf"}' bad-utf8 6
    reject_code '{"a":"\xe0\x80\xaf"}' bad-utf8 6
    reject_code '{"a":"\xed\xa0\x80"}' bad-utf8 6
    reject_code '{"a":"\xf4\x90\x80\x80"}' bad-utf8 6
    reject_code '{"a":"\\ud800"}' bad-utf8 13
}

@test "NUL bytes are rejected, raw or escaped" {
    reject_code '{"a":"x\x00y"}' nul-byte 8
    reject_code '{"a":"\\u0000"}' nul-byte 13
    reject_code '{"\\u0000":1}' nul-byte 9
}

@test "integers beyond 64 bits are rejected" {
    reject_code '{"ts":18446744073709551616}' number-range 26
    reject_code '{"ts":-9223372036854775809}' number-range 26
    printf '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"hb","ts":9223372036854775807}\n' >"$BATS_TEST_TMPDIR/max"
    run acp-validate --stateless "$BATS_TEST_TMPDIR/max"
    refute_output --partial number-range
}

@test "nesting deeper than the limit is rejected" {
    deep=$(printf '[%.0s' $(seq 3000))
    reject_code "{\"a\":$deep" too-deep 2053
}

@test "a line longer than --max-line-bytes is skipped and copied to --rejects whole" {
    long=$(head -c 300000 /dev/zero | tr '\0' 'x')
    printf '%s\n{"x":"%s"}\n%s\n' "$GOOD" "$long" "$GOOD2" >"$BATS_TEST_TMPDIR/in"
    run -1 --separate-stderr acp-validate --stateless --max-line-bytes=64K --rejects="$BATS_TEST_TMPDIR/rej" "$BATS_TEST_TMPDIR/in"
    assert_line --index 0 "$GOOD"
    assert_line --index 1 "$GOOD2"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/in:2: error: line of 300008 bytes is longer than --max-line-bytes=65536 [line-too-long]"
    printf '{"x":"%s"}\n' "$long" | cmp - "$BATS_TEST_TMPDIR/rej"
}

@test "an over-long line is never held in memory whole" {
    skip_under valgrind "address space limits and 200 MB"
    [[ $ACP_BIN != *asan* ]] || skip "address space limits do not work under AddressSanitizer"
    sh_run "{ echo '$GOOD'; head -c 200000000 /dev/zero | tr '\\0' 'x'; echo; echo '$GOOD2'; } | (ulimit -v 60000; exec acp-validate --stateless)"
    assert_failure 1
    assert_line --index 0 "$GOOD"
    assert_line --index 1 --partial "[line-too-long]"
    assert_line --index 2 "$GOOD2"
}

@test "a line of exactly --max-line-bytes is accepted" {
    printf '%s\n' "$GOOD" >"$BATS_TEST_TMPDIR/in"
    run -0 acp-validate --stateless --max-line-bytes=${#GOOD} "$BATS_TEST_TMPDIR/in"
    run -1 acp-validate --stateless --max-line-bytes=$((${#GOOD} - 1)) "$BATS_TEST_TMPDIR/in"
}

@test "every non-blank line ends up in exactly one of stdout and --rejects" {
    f=$(lines_file "$GOOD" 'bad' '' '[1]' "$GOOD2" '{"a":1,"a":1}' '{"kind":"task.assign"}')
    run -1 acp-validate --stateless --rejects="$BATS_TEST_TMPDIR/rej" -o "$BATS_TEST_TMPDIR/out" "$f"
    cat "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/rej" | sort >"$BATS_TEST_TMPDIR/both"
    grep -v '^$' "$f" | sort | cmp - "$BATS_TEST_TMPDIR/both"
    assert_equal "$(wc -l <"$BATS_TEST_TMPDIR/out")" 2
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" "$(printf '%s\n' bad '[1]' '{"a":1,"a":1}' '{"kind":"task.assign"}')"
}

@test "-o writes the output to a file" {
    f=$(lines_file "$GOOD")
    run -0 acp-validate --stateless --output="$BATS_TEST_TMPDIR/out" "$f"
    assert_output ''
    cmp "$f" "$BATS_TEST_TMPDIR/out"
}

@test "an output that is also an input is refused before anything is written, status 2" {
    f=$(lines_file "$GOOD" bad)
    cp "$f" "$BATS_TEST_TMPDIR/copy"
    run -2 --separate-stderr acp-validate --stateless -o "$f" "$f"
    assert_equal "$stderr" "acp-validate: $f:0: error: this input is also the output '$f'; nothing was read [io-error]"
    cmp "$BATS_TEST_TMPDIR/copy" "$f"
    run -2 --separate-stderr acp-validate --stateless --rejects="$f" - <"$f"
    assert_equal "$stderr" "acp-validate: <stdin>:0: error: this input is also the output '$f'; nothing was read [io-error]"
    cmp "$BATS_TEST_TMPDIR/copy" "$f"
    # Appending to an input would feed the tool its own output forever.
    sh_run "timeout 10 acp-validate --stateless '$f' >>'$f'"
    assert_failure 2
    cmp "$BATS_TEST_TMPDIR/copy" "$f"
}

# Issue 39: --rejects=/dev/stdin read back what it wrote, without end (28 GB of stderr a minute).
@test "an output that is the input's pipe, by whatever name, is refused in every tool, status 2" {
    local tool name
    for tool in acp-validate acp-trace acp-convert acp-replay; do
        for name in /dev/stdin /proc/self/fd/0; do
            local args=(--rejects="$name")
            [ "$tool" = acp-convert ] && args+=(--to=fipa)
            [ "$tool" = acp-replay ] && args+=(--topspeed)
            sh_run "printf 'garbage\\n' | timeout 10 $tool ${args[*]} 2>&1 >/dev/null"
            assert_failure 2
            assert_output "$tool: <stdin>:0: error: this input is also the output '$name'; nothing was read [io-error]"
            sh_run "printf 'garbage\\n' | timeout 10 $tool ${args[*]/--rejects/--output} 2>&1 >/dev/null"
            assert_failure 2
            assert_output "$tool: <stdin>:0: error: this input is also the output '$name'; nothing was read [io-error]"
        done
    done
}

@test "--rejects on the same file as -o is refused, status 2" {
    f=$(lines_file "$GOOD" bad)
    run -2 --separate-stderr acp-validate --stateless -o "$BATS_TEST_TMPDIR/both" --rejects="$BATS_TEST_TMPDIR/both" "$f"
    assert_equal "$stderr" "acp-validate: $BATS_TEST_TMPDIR/both:0: error: --rejects is the same file as the output '$BATS_TEST_TMPDIR/both'; nothing was read [io-error]"
}

@test "--rejects on the pipe, FIFO or terminal of stdout is refused, status 2; -q frees stdout for it" {
    local f
    f=$(lines_file '{"v":"1.1"}')
    sh_run "set -o pipefail; acp-validate --stateless --rejects=/dev/stdout '$f' 2>'$BATS_TEST_TMPDIR/err' | cat"
    assert_failure 2
    assert_output ''
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "acp-validate: /dev/stdout:0: error: --rejects is the same pipe as the output '<stdout>'; nothing was read [io-error]"
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    cat "$BATS_TEST_TMPDIR/fifo" >/dev/null &
    sh_run "acp-validate --stateless --rejects='$BATS_TEST_TMPDIR/fifo' '$f' >'$BATS_TEST_TMPDIR/fifo'"
    wait
    assert_failure 2
    assert_equal "$output" "acp-validate: $BATS_TEST_TMPDIR/fifo:0: error: --rejects is the same pipe as the output '<stdout>'; nothing was read [io-error]"
    local tty
    for tty in /dev/tty /dev/stdout; do
        run -2 script -qec "acp-validate --stateless --color=never --rejects=$tty '$f'" /dev/null
        assert_output --partial "error: --rejects is the same terminal as the output '<stdout>'; nothing was read [io-error]"
    done
    sh_run "acp-validate --stateless -q --rejects=/dev/stdout '$f' | cat"
    assert_output '{"v":"1.1"}'
    run -1 acp-validate --stateless --rejects=/dev/null "$f" >/dev/null
}

@test "-o and --rejects replace what their files held" {
    f=$(lines_file "$GOOD" bad)
    seq 1000 >"$BATS_TEST_TMPDIR/out"
    seq 1000 >"$BATS_TEST_TMPDIR/rej"
    run -1 acp-validate --stateless -o "$BATS_TEST_TMPDIR/out" --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$GOOD"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" bad
}

@test "output is flushed before the tool waits for input" {
    coproc VALIDATE { exec acp-validate --stateless; }
    pid=$VALIDATE_PID
    printf '%s\n' "$GOOD" >&"${VALIDATE[1]}"
    read -r -t 5 got <&"${VALIDATE[0]}" || fail "no output while the input stayed open"
    assert_equal "$got" "$GOOD"
    exec {VALIDATE[1]}>&-
    wait "$pid"
}

@test "diagnostics escape control characters from the input" {
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"\u001b[31mred\u0007","ts":1}')
    run -1 --separate-stderr acp-validate --stateless "$f"
    assert_equal "$stderr" "acp-validate: $f:1: error: '\\x1b[31mred\\x07' is not an IACP kind [iacp-kind]"
    [[ $stderr != *$'\e'* ]]
}

@test "file names with control characters are escaped too" {
    name="$BATS_TEST_TMPDIR/"$'a\033b'
    run -2 --separate-stderr acp-validate "$name"
    [[ $stderr == *'a\x1bb:0: error'* ]] || fail "got: $stderr"
    [[ $stderr != *$'\e'* ]]
}

@test "--diagnostics=json writes one object per finding" {
    f=$(lines_file '{"v":"1.1","id":"m-1","from":"forager-07","to":"queen","kind":"task.result","ts":1}' '{"a":1,"a":2}')
    run -1 --separate-stderr acp-validate --stateless --diagnostics=json "$f"
    echo "$stderr" | jq -e . >/dev/null
    first=$(sed -n 1p <<<"$stderr")
    assert_equal "$(jq -c . <<<"$first")" "$(jq -nc --arg f "$f" '{type:"diagnostic",file:$f,line:1,severity:"error",code:"iacp-ref-missing",message:"task.result must carry '"'"'ref'"'"'",id:"m-1"}')"
    last=$(tail -1 <<<"$stderr")
    assert_equal "$(jq -r '[.line,.column,.code] | @tsv' <<<"$last")" $'2\t10\tduplicate-key'
}

@test "--diagnostics=json escapes C1 controls from the input, in the id too" {
    f=$(lines_file '{"v":"1.1","id":"q-\u009b31m","from":"queen","to":"f","kind":"hb","ts":1}')
    run -0 --separate-stderr acp-validate --stateless --diagnostics=json "$f"
    [[ $stderr != *$'\xc2\x9b'* ]] || fail "raw C1 control in: $stderr"
    assert_equal "$(jq -r .id <<<"$stderr")" $'q-\xc2\x9b31m'
}

# Characters that act on a terminal without being seen: bidi embeddings, overrides, isolates and
# marks, and the line and paragraph separators.
INVISIBLE_CONTROLS='061c 200e 200f 2028 2029 202a 202b 202c 202d 202e 2066 2067 2068 2069'

@test "diagnostics escape bidi controls and line separators from the input, in text and JSON" {
    local cp raw f
    for cp in $INVISIBLE_CONTROLS; do
        raw=$(jq -rn "\"\\u$cp\"")
        f=$(lines_file "{\"v\":\"1.1\",\"id\":\"q-1x\\u$cp\",\"from\":\"queen\",\"to\":\"f\",\"kind\":\"task.a\\u${cp}b\",\"ts\":1}")
        run -0 --separate-stderr acp-validate --stateless "$f"
        [[ $stderr != *"$raw"* ]] || fail "raw U+$cp in: $stderr"
        [[ $stderr == *"unknown kind 'task.a\\u${cp}b'"* ]] || fail "U+$cp not escaped: $stderr"
        run -0 --separate-stderr acp-validate --stateless --diagnostics=json "$f"
        [[ $stderr != *"$raw"* ]] || fail "raw U+$cp in JSON: $stderr"
        assert_equal "$(jq -rs '.[0].id' <<<"$stderr")" "q-1x$raw"
    done
}

@test "diagnostics keep other non-ASCII text as it is" {
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.café\u202f\u05d0","ts":1}')
    run -0 --separate-stderr acp-validate --stateless "$f"
    [[ $stderr == *"unknown kind 'task.café"$'\xe2\x80\xaf\xd7\x90'"'"* ]] || fail "got: $stderr"
}

@test "--diagnostics=json writes file names as they are, invalid UTF-8 as U+FFFD" {
    local dir=$BATS_TEST_TMPDIR name=$'a\033[2Jb\n"c\\d\xffe\xe2\x80\xae.jsonl'
    local want=$'a\033[2Jb\n"c\\d\xef\xbf\xbde\xe2\x80\xae.jsonl'
    printf '%s\n' "$GOOD" >"$dir/$name"
    printf '%s\n' "$GOOD" >"$dir/second"
    run -1 --separate-stderr acp-validate --diagnostics=json "$dir/$name" "$dir/second"
    [[ $stderr != *$'\e'* ]] || fail "raw ESC in: $stderr"
    assert_equal "$(jq -r 'select(.code == "iacp-duplicate-id") | .file' <<<"$stderr")" "$dir/second"
    assert_equal "$(jq -r 'select(.code == "iacp-duplicate-id") | .related_file' <<<"$stderr")" "$dir/$want"
    assert_equal "$(jq -r 'select(.code == "iacp-open-at-end") | .file' <<<"$stderr")" "$dir/$want"
    run -2 --separate-stderr acp-validate --diagnostics=json "$dir/$name-missing"
    assert_equal "$(jq -r .file <<<"$stderr")" "$dir/$want-missing"
}

@test "--stats in JSON" {
    f=$(lines_file "$GOOD" '' 'x')
    run -1 --separate-stderr acp-validate --stateless --diagnostics=json --stats "$f"
    assert_equal "$(tail -1 <<<"$stderr" | jq -c .)" '{"type":"stats","records":3,"lines":3,"valid":1,"rejected":1,"blank":1,"unread":0,"warnings":0,"errors":1}'
}

@test "--stats counts string-form records as records, whatever lines they span" {
    printf '(inform\n :sender (agent-identifier :name a)\n :content "x")\n(agree)\n' >"$BATS_TEST_TMPDIR/in.acl"
    run -0 --separate-stderr acp-convert --to=fipa --stats "$BATS_TEST_TMPDIR/in.acl"
    [[ $stderr == *": 2 records: 2 valid, 0 rejected, "* ]] || fail "got: $stderr"
}

@test "--explain prints a code's explanation; an unknown code is a usage error" {
    run -0 acp-validate --explain=duplicate-key
    assert_line --index 0 'duplicate-key (error): an object has the same key twice'
    run -2 --separate-stderr acp-validate --explain=no-such-code
    [[ $stderr == *"unknown diagnostic code 'no-such-code'"* ]]
}

@test "--explain= (empty) is a usage error naming the empty code" {
    run -2 --separate-stderr acp-validate --explain=
    assert_output ''
    assert_equal "$stderr" "acp-validate: unknown diagnostic code '' (--explain=list lists them)
Try 'acp-validate --help' for more information."
}

@test "an empty value is a usage error for every option of every tool that takes one" {
    local t name usage
    for t in "$ACP_BIN"/acp-*; do
        t=$(basename "$t")
        usage=2
        [ "$t" != acp-tap ] || usage=125 # its command's statuses are its own (env(1)'s)
        for name in $("$t" --help | sed -n 's/^ \{2,\}\(-[a-z], \)\{0,1\}--\([a-z][a-z-]*\)=.*/\2/p'); do
            run -"$usage" --separate-stderr "$t" "--$name=" </dev/null
            [ -z "$output" ] || fail "$t --$name= wrote: $output"
            [[ $stderr != *"(null)"* ]] || fail "$t --$name=: $stderr"
            [[ $stderr == *"--$name"* || $stderr == *"unknown diagnostic code ''"* ]] ||
                fail "$t --$name= does not say what is wrong: $stderr"
            [[ $stderr == *"Try '$t --help' for more information." ]] || fail "$t --$name=: $stderr"
        done
    done
}

@test "an empty -o or --rejects is refused before anything is read" {
    run -2 --separate-stderr acp-validate -o '' </dev/null
    assert_equal "${stderr%%$'\n'*}" "acp-validate: invalid argument '' for '--output'"
    run -2 --separate-stderr acp-validate --rejects= </dev/null
    assert_equal "${stderr%%$'\n'*}" "acp-validate: invalid argument '' for '--rejects'"
}

@test "--strict turns warnings into errors and rejects the message" {
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.explode","ts":1}')
    run -0 --separate-stderr acp-validate --stateless "$f"
    assert_output --partial task.explode
    [[ $stderr == *"warning: unknown kind 'task.explode' [iacp-kind-unknown]" ]]
    run -1 --separate-stderr acp-validate --stateless --strict "$f"
    assert_output ''
    [[ $stderr == *"error: unknown kind 'task.explode' [iacp-kind-unknown]" ]]
}

@test "--quiet writes nothing but the status and the rejects" {
    f=$(lines_file "$GOOD" 'bad')
    run -1 acp-validate --quiet --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_output ''
    assert_equal "$(cat "$BATS_TEST_TMPDIR/rej")" bad
    run -0 acp-validate -q "$(lines_file "$GOOD")"
    assert_output ''
}

@test "--max-errors says that the run stopped, where, and how many lines of the file it left" {
    f=$(lines_file x "$GOOD" y z "$GOOD2")
    run -1 --separate-stderr acp-validate --stateless --max-errors=2 "$f"
    assert_output "$GOOD"
    assert_equal "$(grep -c ': error:' <<<"$stderr")" 2
    assert_equal "$(tail -1 <<<"$stderr")" "acp-validate: $f:3: note: stopped after 2 errors (--max-errors=2); 2 lines not read"
}

@test "--max-errors counts the unread lines of the later files too, and a last line without newline" {
    a=$(lines_file x y "$GOOD")
    printf '%s\n\n%s' "$GOOD" "$GOOD2" >"$BATS_TEST_TMPDIR/b"
    run -1 --separate-stderr acp-validate --stateless --max-errors=1 --stats "$a" "$BATS_TEST_TMPDIR/b"
    assert_output ''
    assert_equal "$(sed -n 2p <<<"$stderr")" "acp-validate: $a:1: note: stopped after 1 error (--max-errors=1); 5 lines not read"
    assert_equal "$(sed -n 3p <<<"$stderr")" "acp-validate: 1 records: 0 valid, 1 rejected, 0 blank, 5 lines unread; 0 warnings, 1 errors"
    run -1 --separate-stderr acp-validate --stateless --max-errors=1 --stats --diagnostics=json "$a" "$BATS_TEST_TMPDIR/b"
    assert_equal "$(sed -n 2p <<<"$stderr" | jq -c .)" "$(jq -nc --arg f "$a" '{type:"stopped",file:$f,line:1,errors:1,max_errors:1,unread:5}')"
    assert_equal "$(sed -n 3p <<<"$stderr" | jq -c .)" '{"type":"stats","records":1,"lines":1,"valid":0,"rejected":1,"blank":0,"unread":5,"warnings":0,"errors":1}'
}

@test "--max-errors on a pipe says only that the rest was not read, and does not wait for it" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    (printf 'x\ny\n'; sleep 30) >"$BATS_TEST_TMPDIR/fifo" 3>&- &
    local writer=$!
    run -1 --separate-stderr timeout 10 acp-validate --stateless --max-errors=2 --stats "$BATS_TEST_TMPDIR/fifo"
    kill "$writer"
    assert_equal "$(sed -n 3p <<<"$stderr")" "acp-validate: $BATS_TEST_TMPDIR/fifo:2: note: stopped after 2 errors (--max-errors=2); the rest of the input was not read"
    assert_equal "$(sed -n 4p <<<"$stderr")" "acp-validate: 2 records: 0 valid, 2 rejected, 0 blank, the rest unread; 0 warnings, 2 errors"
    sh_run "printf 'x\n' | acp-validate --stateless --max-errors=1 --stats --diagnostics=json 2>&1 >/dev/null | jq -c 'select(.type != \"diagnostic\") | .unread'"
    assert_output "$(printf 'null\nnull')"
}

@test "--max-errors: records read plus lines unread are all the lines, whatever the input" {
    local i n total records unread
    for i in $(seq 40); do
        : >"$BATS_TEST_TMPDIR/in"
        for n in $(seq $((RANDOM % 12 + 1))); do
            case $((RANDOM % 4)) in
            0) printf '%s\n' "$GOOD" ;;
            1) printf 'bad %s\n' "$n" ;;
            2) printf ' \n' ;;
            3) printf '%s\n' "$GOOD2" ;;
            esac >>"$BATS_TEST_TMPDIR/in"
        done
        ((RANDOM % 2)) && printf 'tail' >>"$BATS_TEST_TMPDIR/in"
        total=$(awk 'END { print NR }' "$BATS_TEST_TMPDIR/in")
        run --separate-stderr acp-validate --stateless --max-errors=$((RANDOM % 3 + 1)) --stats --diagnostics=json "$BATS_TEST_TMPDIR/in"
        records=$(tail -1 <<<"$stderr" | jq .records)
        unread=$(tail -1 <<<"$stderr" | jq .unread)
        assert_equal "$((records + unread))" "$total"
        if [ "$unread" -gt 0 ]; then
            assert_equal "$(tail -2 <<<"$stderr" | head -1 | jq -r .type)" stopped
        fi
    done
}

@test "--max-errors with --quiet says nothing" {
    f=$(lines_file x y z)
    run -1 --separate-stderr acp-validate --quiet --max-errors=1 --stats "$f"
    assert_equal "$stderr" ''
}

@test "usage errors exit 2 and point at --help" {
    run -2 --separate-stderr acp-validate --no-such-option
    assert_equal "$stderr" "acp-validate: unrecognized option '--no-such-option'
Try 'acp-validate --help' for more information."
    run -2 --separate-stderr acp-validate --protocol=xml
    run -2 --separate-stderr acp-validate --max-line-bytes=lots
    [[ $stderr == *"invalid argument 'lots' for '--max-line-bytes'"* ]]
    run -2 --separate-stderr acp-validate --diagnostics
    [[ $stderr == *"option '--diagnostics' requires an argument"* ]]
}

@test "a failed write is reported and exits 2" {
    [ -w /dev/full ] || skip "no /dev/full"
    f=$(lines_file "$GOOD")
    run -2 --separate-stderr acp-validate "$f" --output=/dev/full
    [[ $stderr == *"write error: No space left on device [io-error]" ]] || fail "got: $stderr"
    sh_run "acp-validate '$f' >/dev/full"
    assert_failure 2
}

@test "stops quietly when the reader of stdout goes away" {
    "$TESTS_DIR/../build/gen-colony" 200000 8 >"$BATS_TEST_TMPDIR/big" 2>/dev/null ||
        { yes "$GOOD" | head -n 20000 >"$BATS_TEST_TMPDIR/big"; }
    sh_run "acp-validate --stateless '$BATS_TEST_TMPDIR/big' 2>'$BATS_TEST_TMPDIR/err' | head -1"
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ''
}

@test "SIGINT flushes what was done and exits 130" {
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/out" 3>&- &
    pid=$!
    exec {writer}>"$BATS_TEST_TMPDIR/fifo"
    printf '%s\n' "$GOOD" >&"$writer"
    for _ in $(seq 50); do [ -s "$BATS_TEST_TMPDIR/out" ] && break; sleep 0.1; done
    kill -INT "$pid"
    status=0
    wait "$pid" || status=$?
    exec {writer}>&-
    assert_equal "$status" 130
    assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$GOOD"
}

@test "SIGINT while stdout is blocked on a full pipe exits 130 without a word" {
    skip_under valgrind "the signal must come while the write blocks"
    yes "$GOOD" | head -n 30000 >"$BATS_TEST_TMPDIR/big"
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    acp-validate --stateless "$BATS_TEST_TMPDIR/big" >"$BATS_TEST_TMPDIR/fifo" 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    exec {reader}<"$BATS_TEST_TMPDIR/fifo"
    # Wait until the tool sleeps in write(2): the reader has not read anything.
    for _ in $(seq 50); do [[ $(cat /proc/$pid/wchan 2>/dev/null) == *pipe_write* ]] && break; sleep 0.1; done
    kill -INT "$pid"
    # Should the signal have come before the write blocked, let the tool finish its flush.
    sleep 1
    kill -0 "$pid" 2>/dev/null && cat <&"$reader" >/dev/null &
    status=0
    wait "$pid" || status=$?
    exec {reader}<&-
    assert_equal "$status" 130
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ''
}

@test "SIGINT stops the tool inside an endless over-long line" {
    skip_under valgrind "a timing test"
    acp-validate --stateless /dev/zero 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    sleep 0.5
    kill -INT "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        fail "still running 5 s after SIGINT"
    fi
    status=0
    wait "$pid" || status=$?
    assert_equal "$status" 130
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ''
}

@test "--color=always colours the severity; NO_COLOR and --color=never do not" {
    f=$(lines_file 'x')
    run -1 --separate-stderr acp-validate --color=always "$f"
    [[ $stderr == *$'\e[1;31merror:'* ]]
    run -1 --separate-stderr acp-validate --color=never "$f"
    [[ $stderr != *$'\e'* ]]
    run -1 --separate-stderr acp-validate "$f"
    [[ $stderr != *$'\e'* ]]
}

@test "no input crashes or hangs the tool: random bytes and mangled messages" {
    # Deterministic noise: random bytes, and valid messages with bytes flipped, cut or doubled.
    awk 'BEGIN { srand(7); for (i = 0; i < 400; i++) { n = int(rand() * 300);
            for (j = 0; j < n; j++) printf "%c", int(rand() * 256); printf "\n" } }' >"$BATS_TEST_TMPDIR/noise"
    "$TESTS_DIR/../build/gen-colony" 300 4 2>/dev/null >"$BATS_TEST_TMPDIR/good" ||
        for i in $(seq 300); do echo "$GOOD"; done >"$BATS_TEST_TMPDIR/good"
    awk 'BEGIN { srand(11) } { l = $0; p = int(rand() * length(l)) + 1;
            c = int(rand() * 4);
            if (c == 0) l = substr(l, 1, p);
            else if (c == 1) l = substr(l, 1, p - 1) sprintf("%c", int(rand() * 256)) substr(l, p + 1);
            else if (c == 2) l = substr(l, 1, p) substr(l, p);
            print l }' "$BATS_TEST_TMPDIR/good" >"$BATS_TEST_TMPDIR/mangled"
    for f in noise mangled; do
        run timeout 20 acp-validate --rejects="$BATS_TEST_TMPDIR/rej" "$BATS_TEST_TMPDIR/$f"
        [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || fail "$f: status $status"
    done
}

@test "an ambiguous abbreviation of an option says so" {
    run -2 --separate-stderr acp-validate --sta
    assert_equal "$stderr" "acp-validate: option '--sta' is ambiguous
Try 'acp-validate --help' for more information."
    run -0 --separate-stderr acp-validate --statel /dev/null
}

@test "--color=auto colours on a terminal, unless NO_COLOR is set and not empty" {
    command -v script >/dev/null || skip "script(1) is not installed"
    f=$(lines_file 'x')
    run bash -c "unset NO_COLOR; TERM=xterm script -qec 'acp-validate $f' /dev/null"
    [[ $output == *$'\e[1;31merror:'* ]] || fail "no colour on a terminal: $output"
    run bash -c "NO_COLOR= TERM=xterm script -qec 'acp-validate $f' /dev/null"
    [[ $output == *$'\e[1;31merror:'* ]] || fail "an empty NO_COLOR turned colour off: $output"
    run bash -c "NO_COLOR=1 TERM=xterm script -qec 'acp-validate $f' /dev/null"
    [[ $output != *$'\e['* ]] || fail "NO_COLOR=1 did not turn colour off"
    run bash -c "unset NO_COLOR; TERM=dumb script -qec 'acp-validate $f' /dev/null"
    [[ $output != *$'\e['* ]] || fail "TERM=dumb did not turn colour off"
}
