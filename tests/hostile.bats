# Hostile content: nothing from a message (nor a file name, nor a peer's line) reaches a terminal
# raw from any tool's text output (diagnostics, --stats, acp-replay's status line), and no
# COMMAND reaches a shell. Each tool runs on a pseudo-terminal, as a user would see it.
load test_helper

# What a terminal would act on: clear the screen, set the title, a C1 CSI, a right-to-left
# override, backspaces, a carriage return, DEL, a bell; as JSON escapes and as raw bytes.
HOSTILE_JSON=('\u001b[2J' '\u001b]0;pwned\u0007' '\u009b2J' '\u202e' '\b\b\bok' '\rfake' '\u007f' '\u0007')
HOSTILE_RAW=($'\e[2J' $'\e]0;pwned\a' $'\xc2\x9b2J' $'\xe2\x80\xae' $'\b\b\bok' $'\rfake' $'\x7f' $'\a')

setup() {
    command -v script >/dev/null || skip "script(1) is not installed"
    CAP=$BATS_TEST_TMPDIR/$'cap\e[2J.jsonl' # a hostile file name too
    : >"$CAP"
    local h
    for h in "${HOSTILE_JSON[@]}"; do
        # IACP: a bad kind, a wrong direction, a name in every member, an orphan reply
        printf '{"v":"1.1","id":"q-1","from":"%s","to":"queen","kind":"%s","ts":1312284100}\n' "$h" "$h" >>"$CAP"
        printf '{"v":"1.1","id":"q-2","from":"queen","to":"%s","kind":"task.assign","ts":1312284100,"body":{"deadline":"%s"}}\n' "$h" "$h" >>"$CAP"
        printf '{"v":"1.1","id":"m-%s","from":"%s","to":"queen","kind":"task.accept","ref":"q-%s","ts":1312284101}\n' "$h" "$h" "$h" >>"$CAP"
        # FIPA: a bad act, an unknown protocol, agents by that name
        printf '{"performative":"%s","sender":"%s","receiver":"%s","content":"x"}\n' "$h" "$h" "$h" >>"$CAP"
        printf '{"performative":"request","sender":"%s","receiver":["%s"],"content":"x","protocol":"%s","reply_with":"%s","timestamp":"%s"}\n' "$h" "$h" "$h" "$h" "$h" >>"$CAP"
    done
    for h in "${HOSTILE_RAW[@]}"; do
        # raw bytes: not JSON, and in the string form
        printf '{"v":"1.1","id":"%s"}\n' "$h" >>"$CAP"
        printf '%s\n' "$h" >>"$CAP"
        printf '(inform :sender (agent-identifier :name "%s") :%s x :content "%s")\n' "$h" "$h" "$h" >>"$CAP"
    done
}

# Runs a command line on a pseudo-terminal, its standard output thrown away: what the terminal
# gets is its standard error. Sets output. script(1) runs the line with $SHELL, which on a CI
# machine may be dash: the file name is quoted with bash's $'...', so bash it is.
on_terminal() {
    run bash -c 'SHELL=/bin/bash TERM=xterm script -qec "$1 >/dev/null" /dev/null' _ "$1"
}

# The terminal's bytes hold nothing that acts on it but the tool's own: the pty's CR before each
# line end, acp-replay's "clear the line" (CR ESC [K) and, with ALLOW_COLOR, colour (ESC [...m).
# And what came from the input is there, escaped: assert_terminal_safe
assert_terminal_safe() {
    local text=$output
    text=${text//$'\r\n'/$'\n'}
    text=${text%$'\r'}
    text=${text//$'\r\e[K'/}
    if [ -n "${ALLOW_COLOR-}" ]; then
        text=$(sed -E $'s/\e\\[[0-9;]*m//g' <<<"$text")
    fi
    if LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c' <<<"$text" >"$BATS_TEST_TMPDIR/bad"; then
        fail "raw control characters reached the terminal: $(LC_ALL=C grep -aoP '.{0,20}([\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c).{0,20}' "$BATS_TEST_TMPDIR/bad" | head -3 | od -c | head -12)"
    fi
    if LC_ALL=C.UTF-8 grep -naxv '.*' <<<"$text" >"$BATS_TEST_TMPDIR/bad"; then
        fail "invalid UTF-8 reached the terminal: $(head -3 "$BATS_TEST_TMPDIR/bad" | od -c | head -20)"
    fi
    [[ $text == *'\x1b[2J'* || $text == *'\u001b[2J'* || $text == *'\u001B[2J'* ]] ||
        fail "the hostile text was not shown escaped: $text"
}

@test "acp-validate: diagnostics in text and JSON, colour, --stats and --max-errors escape it all" {
    local q
    q=$(printf '%q' "$CAP")
    on_terminal "acp-validate --stats $q"
    assert_terminal_safe
    on_terminal "acp-validate --stateless --fipa-profile=standard --stats $q"
    assert_terminal_safe
    on_terminal "acp-validate --diagnostics=json --stats $q"
    assert_terminal_safe
    on_terminal "acp-validate --max-errors=5 $q"
    assert_terminal_safe
    ALLOW_COLOR=1 on_terminal "acp-validate --color=always $q"
    [[ $output == *$'\e[1;31m'* ]] || fail "no colour: $output"
    ALLOW_COLOR=1 assert_terminal_safe
}

@test "acp-convert: every direction's diagnostics escape it" {
    local q to
    q=$(printf '%q' "$CAP")
    for to in iacp fipa fipa-acl; do
        on_terminal "acp-convert --to=$to --stats $q"
        assert_terminal_safe
        on_terminal "acp-convert --to=$to --diagnostics=json $q"
        assert_terminal_safe
    done
}

@test "acp-replay: its diagnostics and its status line on a terminal escape it" {
    local q
    q=$(printf '%q' "$CAP")
    on_terminal "acp-replay --rate=1000 --stats $q"
    [[ $output == *" sent"* ]] || fail "no status line: $output"
    assert_terminal_safe
    on_terminal "acp-replay --stats $q"
    assert_terminal_safe
}

@test "acp-replay --as: what a live agent says is escaped in the report of it" {
    local agent=$BATS_TEST_TMPDIR/agent
    {
        echo '#!/bin/bash'
        echo 'read -r line'
        printf "printf '%%s\\\\n' %q\n" '{"v":"1.1","id":"m-a00001","from":"forager-07","to":"queen","kind":"task.accept","ref":"q-00a1","ts":1312284101,"body":{"status":"\u001b[2J"}}'
        printf "printf '%%s\\\\n' %q\n" $'\e[2J\e]0;pwned\a\xc2\x9b garbage'
        echo 'cat >/dev/null'
    } >"$agent"
    chmod +x "$agent"
    on_terminal "acp-replay --as=forager-07 --compare=body.status --exec=$agent $EXAMPLES/iacp-exchange.jsonl"
    [[ $output == *"agent-garbage"* ]] || fail "the garbage was not reported: $output"
    assert_terminal_safe
}

@test "--exec runs COMMAND with execvp: shell metacharacters are passed as they are written" {
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr acp-replay --all \
        --exec="printf '[%s]\n' ; touch pwned1 && touch pwned2 || touch pwned3 \$(touch pwned4) \`touch pwned5\` >pwned6 <x 2>&1 & ~ \$PATH" /dev/null
    assert_output - <<'OUT'
[;]
[touch]
[pwned1]
[&&]
[touch]
[pwned2]
[||]
[touch]
[pwned3]
[$(touch]
[pwned4)]
[`touch]
[pwned5`]
[>pwned6]
[<x]
[2>&1]
[&]
[~]
[$PATH]
OUT
    run ls
    [[ $output != *pwned* ]] || fail "a shell ran: $output"
}

# Runs a command line on a pseudo-terminal, standard output and error both: sets output.
on_terminal_all() {
    run bash -c 'SHELL=/bin/bash TERM=xterm script -qec "$1" /dev/null' _ "$1"
}

@test "acp-trace: summaries, statistics, report, text diagram and diagnostics escape it on a terminal" {
    local q format
    q=$(printf '%q' "$CAP")
    for format in summary stats report text; do
        on_terminal_all "acp-trace --format=$format --by-agent --stats $q"
        assert_terminal_safe
    done
    on_terminal_all "acp-trace --diagnostics=json $q"
    assert_terminal_safe
    on_terminal_all "acp-trace --format=text --follow=q-2 $q"
    assert_terminal_safe
    # a conversation of hostile agents: its summary, report and diagram
    local h name=$'\e[2J\e]0;pwned\a\xc2\x9b2J\u202e'
    h=$BATS_TEST_TMPDIR/task.jsonl
    jq -cn --arg h "$name" '
        {v: "1.1", id: "q-0001", from: "queen", to: $h, kind: "task.assign", ts: 100, body: {node: $h}},
        {v: "1.1", id: "m-000001", from: $h, to: "queen", kind: "task.accept", ref: "q-0001", ts: 101},
        {v: "1.1", id: "m-000002", from: $h, to: "queen", kind: "task.result", ref: "q-0001", ts: 102, body: {status: $h}}' >"$h"
    for format in summary report text; do
        on_terminal_all "acp-trace --format=$format --by-agent $h"
        assert_terminal_safe
    done
}

@test "acp-send: what it sends, its diagnostics and what a peer says escape it on a terminal" {
    local q
    q=$(printf '%q' "$CAP")
    on_terminal_all "acp-send --stdin --stats --now=0 --seed=1 <$q"
    assert_terminal_safe
    on_terminal_all "acp-send --stdin --diagnostics=json --now=0 --seed=1 <$q"
    assert_terminal_safe
    # a valid message from an agent by that name goes out escaped; an invalid kind is reported
    on_terminal_all "acp-send --now=0 --seed=1 kind=hb to=queen $(printf '%q' $'from=\e[2J\e]0;pwned\a\xc2\x9b\u202e')"
    [[ $output == *'"from":"\u001'[bB]'[2J'* ]] || fail "not sent: $output"
    assert_terminal_safe
    on_terminal_all "acp-send --now=0 --seed=1 $(printf '%q' $'kind=\e[2J') from=a"
    [[ $output == *'[iacp-kind]'* ]] || fail "not reported: $output"
    assert_terminal_safe
    # a peer that answers with hostile garbage, then a hostile reply
    local agent=$BATS_TEST_TMPDIR/agent
    {
        echo '#!/bin/bash'
        echo 'IFS= read -r line'
        echo 'id=$(sed -E '\''s/.*"reply_with":"([^"]*)".*/\1/'\'' <<<"$line")'
        printf "printf '%%s\\\\n' %q\n" $'\e[2J\e]0;pwned\a\xc2\x9b garbage'
        printf 'printf '\''{"performative":"inform","sender":"\\u001b[2J","receiver":"a","content":"\\u001b[2J","in_reply_to":"%%s"}\\n'\'' "$id"\n'
        echo 'cat >/dev/null'
    } >"$agent"
    chmod +x "$agent"
    on_terminal_all "acp-send --now=0 --seed=1 --all --wait --timeout=5 --exec=$agent performative=query_ref sender=a receiver=b content=x"
    [[ $output == *"garbage"* ]] || fail "the garbage was not reported: $output"
    assert_terminal_safe
}

@test "acp-convert: the JSON it writes escapes it on a terminal, the value unchanged" {
    local q to
    q=$(printf '%q' "$CAP")
    for to in iacp fipa; do
        on_terminal_all "acp-convert --to=$to $q"
        assert_terminal_safe
    done
    # the same values: C1, DEL and bidi controls as \u escapes
    run -0 bash -c 'jq -cn "{v:\"1.1\",id:\"m-000001\",from:\"\u009b2J\u202e\u007f\",to:\"queen\",kind:\"hb\",ts:1}" |
        acp-convert --to=fipa'
    [[ $output == *'"sender":"\u009B2J\u202E\u007F"'* ]] || fail "$output"
    run -0 bash -c 'jq -cn "{v:\"1.1\",id:\"m-000001\",from:\"\u009b2J\u202e\u007f\",to:\"queen\",kind:\"hb\",ts:1}" |
        acp-convert --to=fipa | acp-convert --to=iacp | jq -r .from | od -An -c'
    assert_output "$(printf '\u009b2J\u202e\x7f\n' | od -An -c)"
}

@test "acp-send --exec runs COMMAND with execvp: shell metacharacters are passed as they are written" {
    cd "$BATS_TEST_TMPDIR"
    run -0 --separate-stderr acp-send --now=0 --seed=1 \
        --exec="sh -c 'cat >/dev/null; printf \"[%s]\\n\" \"\$@\" >args' sh ; touch pwned1 && touch pwned2 || touch pwned3 \$(touch pwned4) \`touch pwned5\` >pwned6 <x 2>&1 & ~ \$PATH" \
        kind=hb from=a to=queen
    run -0 cat args
    assert_output - <<'OUT'
[;]
[touch]
[pwned1]
[&&]
[touch]
[pwned2]
[||]
[touch]
[pwned3]
[$(touch]
[pwned4)]
[`touch]
[pwned5`]
[>pwned6]
[<x]
[2>&1]
[&]
[~]
[$PATH]
OUT
    run ls
    [[ $output != *pwned* ]] || fail "a shell ran: $output"
}
