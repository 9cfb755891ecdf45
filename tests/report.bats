# acp-trace --format=html: one self-contained page (its script and style inline, allowed by their
# SHA-256 in its Content-Security-Policy, common/base/sha256.h), its data a JSON block no input
# can close; then the page in headless Chromium, driven by puppeteer (tests/browser/report.mjs,
# one browser for the whole file): no console error, no request, the counts acp-trace gives,
# a diagram's arrows, a message behind its arrow, hostile names as text.
load test_helper

# Names a page must show as text and never run: markup that would run a script or load an
# image, and the end of the data block, beside the hostile names of the diagrams.
CANARY_NAMES=('<img src=x onerror="window.acpCanary=1">' '</script><script>window.acpCanary=2</script>'
    $'</scrIpt\u2028<script>window.acpCanary=3</script>' '<!--<script>window.acpCanary=4//' \
    '"><svg onload="window.acpCanary=5">')

# Names that look alike, or like others, when invisible characters and overrides show as nothing.
LOOKALIKE_NAMES=('conv-1' $'conv-1\u200b' $'conv-\u202e1-vnoc' ' conv-1' 'conv-1 ')

# The captures of the file, their pages, and what acp-trace says of them: the golden inputs of
# IACP, FIPA and MCP outcomes, a colony capture (findings of most kinds) and a session of the
# SDK's client with server-everything through acp-tap (a call with progress, one cancelled),
# and the hostile names.
setup_file() {
    build_test_programs
    local d=$BATS_FILE_TMPDIR g=$TESTS_DIR/golden/trace
    cat "$g/iacp-outcomes/input" "$g/fipa-outcomes/input" "$g/colony-capture/input" \
        "$g/mcp-outcomes/input" "$FIXTURES/mcp/everything-progress.jsonl" >"$d/mix.jsonl"
    hostile_capture "${HOSTILE_NAMES[@]}" "${CANARY_NAMES[@]}" >"$d/hostile.jsonl"
    hostile_capture "${LOOKALIKE_NAMES[@]}" >"$d/lookalike.jsonl"
    local c
    for c in mix hostile lookalike; do
        acp-trace --format=html "$d/$c.jsonl" >"$d/$c.html" 2>/dev/null || true
        acp-trace "$d/$c.jsonl" >"$d/$c.summaries" 2>/dev/null || true
        acp-trace --format=stats "$d/$c.jsonl" >"$d/$c.stats" 2>/dev/null || true
    done
    acp-trace --format=html --max-arrows=12 "$d/mix.jsonl" >"$d/mix12.html" 2>/dev/null || true
    # The pages in Chromium, once for the file (tests/browser/report.mjs), where it can run. Its
    # screenshots stay after the run, in the build's folder, for a person to look at.
    mkdir -p "$ACP_BUILD/screenshots"
    rm -f "$ACP_BUILD"/screenshots/*.png
    if browser_missing >/dev/null; then
        return 0
    fi
    timeout 120 node "$TESTS_DIR/browser/report.mjs" "$ACP_BUILD/screenshots" "$d/mix.html" "$d/hostile.html" "$d/mix12.html" "$d/lookalike.html" \
        >"$d/browser.log" 2>&1 || true
}

# Says what the browser tests lack, if anything.
browser_missing() {
    command -v node >/dev/null || { echo "node is not installed"; return 0; }
    [ -x /usr/bin/chromium ] || { echo "chromium is not installed (scripts/deps installs it)"; return 0; }
    [ -f "$TESTS_DIR/node_modules/puppeteer/package.json" ] ||
        { echo "puppeteer is not installed (scripts/deps installs it into tests/node_modules)"; return 0; }
    return 1
}

# seen PAGE: what Chromium saw of the page (tests/browser/report.mjs), in $SEEN.
need_browser() {
    skip_under valgrind "the browser tests read no acp-trace run"
    local why
    why=$(browser_missing) && skip "$why"
    SEEN=$BATS_FILE_TMPDIR/$1.html.json
    [ -s "$SEEN" ] || fail "Chromium saw nothing of $1.html: $(cat "$BATS_FILE_TMPDIR/browser.log")"
}

# data_of PAGE: the page's JSON data block.
data_of() {
    perl -0777 -ne 'print $1 if m{<script type="application/json" id="acp-data">(.*?)</script>}s' "$1"
}

# The rows of a page's data as objects: its columns named, names read from its string table.
ROWS='.strings as $s | .conversations.columns as $c | .conversations.rows[] |
    [to_entries[] | .key as $k | {key: $c[$k], value: (.value | if type == "number" and ($c[$k] | test("^(protocol|initiator|file|outcome|method|subject)$")) then $s[.]
        elif type == "array" then map(if type == "number" then $s[.] else . end) else . end)}] | from_entries'

# sha256_base64: the SHA-256 of stdin in base64, by coreutils alone.
sha256_base64() {
    printf '%b' "$(sha256sum | cut -c1-64 | sed 's/../\\x&/g')" | base64
}

@test "base/sha256: the FIPS 180-4 examples, and any input fed in pieces of any size" {
    SHA256=$ACP_BUILD/tests/sha256
    run -0 "$SHA256" </dev/null
    assert_output e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
    sh_run "printf abc | '$SHA256'"
    assert_output ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    sh_run "printf abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq | '$SHA256'"
    assert_output 248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1
    sh_run "printf abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu | '$SHA256'"
    assert_output cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1
    sh_run "head -c 1000000 /dev/zero | tr '\\0' a | '$SHA256' 4096"
    assert_output cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0
    # every length about a block's end, whole and in pieces of 1 to 65 bytes
    local f=$BATS_TEST_TMPDIR/in n piece want
    for n in 0 1 55 56 57 63 64 65 119 120 127 128 129 1000; do
        head -c "$n" /dev/urandom >"$f"
        want=$(sha256sum <"$f" | cut -c1-64)
        for piece in 0 1 3 7 55 56 63 64 65; do
            [ "$("$SHA256" "$piece" <"$f")" = "$want" ] || fail "$n bytes in pieces of $piece"
        done
    done
}

@test "base/sha256: the digest in base64 as a Content-Security-Policy names it" {
    SHA256=$ACP_BUILD/tests/sha256
    local f=$BATS_TEST_TMPDIR/in n
    for n in 0 1 2 3 100 4096; do
        head -c "$n" /dev/urandom >"$f"
        [ "$("$SHA256" --base64 <"$f")" = "$(sha256_base64 <"$f")" ] || fail "$n bytes"
    done
    sh_run "printf abc | '$SHA256' --base64"
    assert_output ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=
}

@test "acp-trace --format=html: one page, its inline script and style allowed by their SHA-256, nothing else" {
    local page=$BATS_FILE_TMPDIR/mix.html csp rest
    grep -q '^<!DOCTYPE html>$' "$page"
    [ "$(tail -1 "$page")" = '</html>' ]
    csp=$(grep -o '<meta http-equiv="Content-Security-Policy" content="[^"]*">' "$page")
    [ "$(grep -c 'http-equiv="Content-Security-Policy"' "$page")" -eq 1 ]
    [[ $csp == *"default-src 'none'; script-src 'sha256-$(perl -0777 -ne 'print $1 if m{<script>(.*?)</script>}s' "$page" | sha256_base64)'; style-src 'sha256-$(perl -0777 -ne 'print $1 if m{<style>(.*?)</style>}s' "$page" | sha256_base64)'; img-src data:\""* ]] ||
        fail "the policy names other hashes: $csp"
    # outside the data: two scripts (the data and ours), one style sheet, nothing loaded from
    # elsewhere, no event handler in the markup
    rest=$(perl -0777 -pe 's{(<script type="application/json" id="acp-data">).*?</script>}{$1</script>}s; s{<script>.*?</script>}{<script></script>}s; s{<style>.*?</style>}{<style></style>}s' "$page")
    [ "$(grep -o '<script' <<<"$rest" | wc -l)" -eq 2 ]
    [ "$(grep -o '<style' <<<"$rest" | wc -l)" -eq 1 ]
    run -1 grep -iE ' (src|srcset|action|formaction|background)=| on[a-z]+=|@import|url\(' <<<"$rest"
    [ "$(grep -o 'href="[^"]*"' <<<"$rest")" = 'href="data:,"' ]
}

@test "acp-trace --format=html: its data is JSON that no input can close, and holds every name as it was" {
    local page=$BATS_FILE_TMPDIR/hostile.html data=$BATS_TEST_TMPDIR/data.json name
    data_of "$page" >"$data"
    [ -s "$data" ]
    run -1 grep -c '[<>&]' "$data"
    run -1 grep -c $'\xe2\x80[\xa8\xa9]' "$data"
    jq -e . "$data" >/dev/null
    # the block ends where ours ends: one </script> after it
    [ "$(perl -0777 -ne 'print scalar(() = m{</script>}gi)' "$page")" -eq 2 ]
    for name in "${HOSTILE_NAMES[@]}" "${CANARY_NAMES[@]}"; do
        jq -e --arg n "$name" "[$ROWS | .conversation, .participants[]] | index(\$n)" "$data" >/dev/null ||
            fail "${name@Q} is not among the names"
    done
}

@test "acp-trace --format=html: a row a conversation, as its summary tells it, in the order they end" {
    local d=$BATS_FILE_TMPDIR c
    for c in mix hostile; do
        diff <(jq -c '[.conversation, .protocol, .participants, .messages, .first_line, .outcome, (.issues | length) + .issues_omitted, .method, .subject, .error_code]' "$d/$c.summaries") \
            <(data_of "$d/$c.html" | jq -c "$ROWS | [.conversation, .protocol, .participants, .messages, .first_line, .outcome, .findings, .method, .subject, .error_code]") ||
            fail "$c: rows and summaries differ"
    done
    [ "$(wc -l <"$d/mix.summaries")" -ge 20 ]
}

@test "acp-trace --format=html: the messages it keeps are the capture's lines, byte for byte, with their findings" {
    local d=$BATS_FILE_TMPDIR
    data_of "$d/mix.html" >"$BATS_TEST_TMPDIR/data.json"
    jq -r '[.details[].messages[]] | sort_by(.line)[] | .line' "$BATS_TEST_TMPDIR/data.json" >"$BATS_TEST_TMPDIR/lines"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/lines")" -ge 60 ]
    diff <(jq -r '[.details[].messages[]] | sort_by(.line)[] | .text' "$BATS_TEST_TMPDIR/data.json") \
        <(awk 'NR == FNR { want[$1]; next } FNR in want' "$BATS_TEST_TMPDIR/lines" "$d/mix.jsonl")
    # each finding of a conversation is listed with the message at its line, when kept
    jq -e '[.details[].messages[] | select(.line == 15) | .findings[].code] == ["iacp-wrong-replier"]' "$BATS_TEST_TMPDIR/data.json"
    jq -e '[.details[].messages[] | select(.line == 27) | .findings[].code] | index("iacp-duplicate-execution")' "$BATS_TEST_TMPDIR/data.json"
}

# The report finds a kept message by its file and line (a finding about an earlier message, a
# related line): the same capture read as two files keeps the same messages with the same
# findings, each in its own file, the second's lines counted from its start.
@test "acp-trace --format=html: a capture cut in two files keeps its messages and their findings" {
    local d=$BATS_FILE_TMPDIR t=$BATS_TEST_TMPDIR
    head -40 "$d/mix.jsonl" >"$t/a.jsonl"
    tail -n +41 "$d/mix.jsonl" >"$t/b.jsonl"
    (cd "$t" && acp-trace --format=html a.jsonl b.jsonl >two.html 2>/dev/null) || true
    data_of "$t/two.html" | jq -e '[.details[].messages[].findings[]] | length >= 15'
    diff <(data_of "$d/mix.html" | jq -c '[.details[].messages[] | [.line, [.findings[].code]]] | sort') \
        <(data_of "$t/two.html" | jq -c '.strings as $s | [.details[].messages[] |
            [(if $s[.file] == "b.jsonl" then .line + 40 else .line end), [.findings[].code]]] | sort')
}

@test "acp-trace --format=html --max-arrows=N: the messages of N arrows, conversations with findings first, and what it left out" {
    local d=$BATS_FILE_TMPDIR data=$BATS_TEST_TMPDIR/data.json
    acp-trace --format=html --max-arrows=12 "$d/mix.jsonl" 2>/dev/null | data_of /dev/stdin >"$data"
    # within the budget, whole conversations
    jq -e '[.details[].messages[] | [.arrows, 1] | max] | add <= 12' "$data"
    jq -e '[.details[]] | length >= 2' "$data"
    # those kept have findings at their messages, q-0006 too, whose first message came when the
    # budget was spent and its second had a finding; the others are counted as left out
    jq -e '[.details[] | [.messages[].findings[]] | length] | all(. > 0)' "$data"
    jq -e "[$ROWS] as \$rows | .details | keys | map(\$rows[tonumber].conversation) | index(\"queen/q-0006\")" "$data"
    jq -e "[$ROWS] as \$rows | (.details | keys | map(tonumber)) as \$kept |
        .omitted.conversations == (\$rows | length) - (\$kept | length) and
        .omitted.messages == ([range(\$rows | length) | select(. as \$i | \$kept | index(\$i) | not) | \$rows[.].messages] | add)" "$data"
    jq -e '.omitted.conversations > 10 and .omitted.max_arrows == 12' "$data"
    # by default, all of them
    data_of "$d/mix.html" | jq -e '.omitted.conversations == 0 and (.details | length) == (.conversations.rows | length)'
}

@test "acp-trace --format=html: the same page with -j 2 as with one thread" {
    local d=$BATS_FILE_TMPDIR
    acp-trace --format=html -j 2 "$d/mix.jsonl" 2>/dev/null | cmp - "$d/mix.html"
    cmp <(acp-trace --format=html --max-arrows=12 -j 2 "$d/mix.jsonl" 2>/dev/null) \
        <(acp-trace --format=html --max-arrows=12 "$d/mix.jsonl" 2>/dev/null)
}

# A dropped conversation's record and diagram are emptied and used again for a later one
# (common/report/tracehtml.c, retire; tracediagram.h, trace_diagram_restart): under any budget, a
# conversation kept is the one kept when nothing is dropped, its diagram's participants, rows,
# notes, marks and sides, and its messages, their findings and texts its own alone.
@test "acp-trace --format=html: a conversation kept is drawn alike whatever the budget left out before it" {
    local d=$BATS_FILE_TMPDIR t=$BATS_TEST_TMPDIR n
    data_of "$d/mix.html" >"$t/all.json"
    for n in 12 30 60; do
        acp-trace --format=html --max-arrows=$n "$d/mix.jsonl" 2>/dev/null | data_of /dev/stdin >"$t/$n.json"
        jq -e --slurpfile all "$t/all.json" '.omitted.conversations > 0 and (.details | length) > 2 and
            ([.details | to_entries[] | .value == $all[0].details[.key]] | all)' "$t/$n.json"
    done
}

@test "acp-trace --format=html: its memory is what it keeps, not what the capture holds" {
    skip_under valgrind "measures memory"
    "$ACP_BUILD/gen-colony" 100000 64 >"$BATS_TEST_TMPDIR/c.jsonl"
    "$ACP_BUILD/peak-rss" acp-trace --format=html "$BATS_TEST_TMPDIR/c.jsonl" \
        >"$BATS_TEST_TMPDIR/page.html" 2>"$BATS_TEST_TMPDIR/rss"
    # 37 MiB here; keeping every message and its diagram took 200
    assert_rss_below "$BATS_TEST_TMPDIR/rss" 65536 "100,000 messages"
    data_of "$BATS_TEST_TMPDIR/page.html" | jq -e '.omitted.conversations > 20000 and ([.details[].messages[] | [.arrows, 1] | max] | add) <= 10000'
}

# big_task N BYTES CHAR: an IACP task of N messages (an assign, then partial results), each
# carrying BYTES of CHAR.
big_task() {
    awk -v n="$1" -v bytes="$2" -v c="$3" 'BEGIN {
        s = c; while (length(s) < bytes) s = s s; s = substr(s, 1, bytes)
        printf "{\"v\":\"1.1\",\"id\":\"q-000001\",\"from\":\"queen\",\"to\":\"forager-1\",\"kind\":\"task.assign\",\"ts\":1312284100,\"body\":{\"node\":\"%s\"}}\n", s
        for (i = 1; i < n; i++)
            printf "{\"v\":\"1.1\",\"id\":\"m-%06x\",\"from\":\"forager-1\",\"to\":\"queen\",\"kind\":\"task.result\",\"ref\":\"q-000001\",\"ts\":1312284100,\"body\":{\"partial\":true,\"data\":\"%s\"}}\n", i, s
    }'
}

@test "acp-trace --format=html: a message's text costs what the page writes of it, and goes out in pieces" {
    skip_under valgrind "measures memory"
    local t=$BATS_TEST_TMPDIR
    # '<' takes six bytes on the page: three messages of 1 MB of it are 18 MB there, past the
    # budget (16 MiB), and their conversation is left out; counted as 3 MB, it was kept
    big_task 3 1000000 '<' >"$t/three.jsonl"
    acp-trace --format=html "$t/three.jsonl" >"$t/three.html" 2>/dev/null || true
    data_of "$t/three.html" | jq -e '.omitted.conversations == 1 and .omitted.messages == 3 and (.details | length) == 0'
    [ "$(wc -c <"$t/three.html")" -lt 1000000 ]
    # two are 12 MB there, kept and written in pieces: 7 MiB here, 21 when the details of a
    # conversation were made whole, then widened whole
    big_task 2 1000000 '<' >"$t/two.jsonl"
    "$ACP_BUILD/peak-rss" acp-trace --format=html "$t/two.jsonl" >"$t/two.html" 2>"$t/rss" || true
    assert_rss_below "$t/rss" 14336 "two messages of 1 MB of '<'"
    data_of "$t/two.html" >"$t/data.json"
    jq -e '.omitted.conversations == 0' "$t/data.json"
    diff <(jq -r '.details[].messages[].text' "$t/data.json") "$t/two.jsonl" >/dev/null
    # pieces end where characters do: texts of two-, three- and four-byte characters, and those
    # the page escapes, come back byte for byte
    big_task 2 100000 $'é<€&\u2028😀\u2029>' >"$t/mixed.jsonl"
    acp-trace --format=html "$t/mixed.jsonl" 2>/dev/null | data_of /dev/stdin >"$t/data.json"
    run -1 grep -c $'[<>&]\|\xe2\x80[\xa8\xa9]' "$t/data.json"
    diff <(jq -r '.details[].messages[].text' "$t/data.json") "$t/mixed.jsonl"
}

@test "acp-trace --format=html: what a kept conversation costs beyond its text counts against the budget" {
    skip_under valgrind "measures memory"
    local t=$BATS_TEST_TMPDIR
    awk 'BEGIN { for (i = 1; i <= 10000; i++)
        printf "{\"v\":\"1.1\",\"id\":\"q-%06x\",\"from\":\"queen\",\"to\":\"forager-%d\",\"kind\":\"task.assign\",\"ts\":%d,\"body\":{\"node\":\"n/%d\"}}\n", i, i % 64, 1312284100 + int(i / 100), i }' >"$t/one.jsonl"
    # 10,000 conversations of one message each: 30 MiB here, 87 when a kept one held 7 KB
    "$ACP_BUILD/peak-rss" acp-trace --format=html "$t/one.jsonl" >"$t/page.html" 2>"$t/rss" || true
    assert_rss_below "$t/rss" 49152 "10,000 one-message conversations"
    # past the arrows, the budget in bytes leaves some out: it counts what each one costs
    acp-trace --format=html --max-arrows=1000000 "$t/one.jsonl" 2>/dev/null | data_of /dev/stdin |
        jq -e '.omitted.conversations > 1000 and .omitted.kept_max == 16777216'
}

# informs FROM N: N FIPA informs of no protocol, each with a conversation id of its own, which the
# engine does not follow: their conversations never get a row.
informs() {
    awk -v from="$1" -v n="$2" 'BEGIN { for (i = from; i < from + n; i++)
        printf "{\"performative\":\"inform\",\"sender\":{\"name\":\"c\"},\"receiver\":[{\"name\":\"d\"}],\"content\":\"x\",\"conversation_id\":\"i%d\"}\n", i }'
}

@test "acp-trace --format=html: conversations left out are remembered within bounds, and one forgotten is never shown in part" {
    skip_under valgrind "measures memory"
    local t=$BATS_TEST_TMPDIR
    # 300,000 conversations that never get a row, left out one after the other: 4 MiB here, 21
    # when every id left out was remembered until its row
    informs 1 300000 >"$t/informs.jsonl"
    "$ACP_BUILD/peak-rss" acp-trace --format=html --max-arrows=10 "$t/informs.jsonl" >/dev/null 2>"$t/rss" || true
    assert_rss_below "$t/rss" 10240 "300,000 conversations of no row"
    # a request left out, then forgotten behind 17,000 others, then answered: its answers are not
    # shown as the whole conversation
    {
        echo '{"performative":"request","sender":{"name":"a"},"receiver":[{"name":"b"}],"content":"x","conversation_id":"X","protocol":"fipa-request","reply_with":"r1"}'
        informs 1 17000
        echo '{"performative":"agree","sender":{"name":"b"},"receiver":[{"name":"a"}],"content":"x","conversation_id":"X","protocol":"fipa-request","in_reply_to":"r1"}'
        echo '{"performative":"inform","sender":{"name":"b"},"receiver":[{"name":"a"}],"content":"x","conversation_id":"X","protocol":"fipa-request","in_reply_to":"r1"}'
    } >"$t/forgot.jsonl"
    acp-trace --format=html --max-arrows=2 "$t/forgot.jsonl" 2>/dev/null | data_of /dev/stdin >"$t/data.json"
    jq -e '.conversations.rows | length == 1' "$t/data.json"
    jq -e '.conversations.rows as $r | [.details | to_entries[] | (.value.messages | length) == $r[.key | tonumber][4]] | all' "$t/data.json"
    jq -e '.omitted.conversations == 1 and .omitted.messages == 3' "$t/data.json"
}

@test "acp-trace: diagrams keep what they show of a long name, and tell long names apart by digest" {
    skip_under valgrind "measures memory"
    local t=$BATS_TEST_TMPDIR f
    # 40 heartbeats of senders of 1 MB, alike but for their last 4 bytes: 40 MB of names
    awk 'BEGIN { s = "f"; while (length(s) < 1000000) s = s s; s = substr(s, 1, 1000000)
        for (i = 0; i < 40; i++)
            printf "{\"v\":\"1.1\",\"id\":\"m-%06x\",\"from\":\"%s%04d\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":%d}\n", i, s, i, 1312284100 + i }' >"$t/hb.jsonl"
    for f in svg text mermaid plantuml html; do
        "$ACP_BUILD/peak-rss" acp-trace --format=$f "$t/hb.jsonl" >"$t/out.$f" 2>"$t/rss" || true
        # 7 MiB here; 80 and more when each diagram kept every name whole
        assert_rss_below "$t/rss" 24576 "--format=$f"
    done
    # 41 columns, each name shown by its head and its tail, so that they show apart
    [ "$(grep -c '<g class="participant"' "$t/out.svg")" -eq 41 ]
    [ "$(grep -o '<text [^>]*>f*\.\.\.f*00[0-9][0-9]</text>' "$t/out.svg" | sort -u | wc -l)" -eq 40 ]
    # the tooltip holds the head, "..." and the tail: 771 bytes, not a megabyte
    [ "$(grep -o '<title>f[^<]*' "$t/out.svg" | awk '{ print length($0) - 7 }' | sort -u)" = 771 ]
}

@test "acp-trace --format=html: every diagnostic of the run, with its file, line and the row of the conversation that has it" {
    local d=$BATS_FILE_TMPDIR
    # as acp-trace reports them, in order
    diff <(acp-trace --diagnostics=json "$d/mix.jsonl" 2>&1 >/dev/null | jq -c '[.file, .line, .severity, .code]') \
        <(data_of "$d/mix.html" | jq -c '.strings as $s | .diagnostics.rows[] | [(.[0] | if type == "number" then $s[.] else . end), .[1], .[2], .[3]]')
    # each one a summary has is in that summary's row, and no other
    diff <(jq -sc '[to_entries[] | .key as $row | .value.issues[] | [.line, .code, $row]] | sort' "$d/mix.summaries") \
        <(data_of "$d/mix.html" | jq -c '[.diagnostics.rows[] | select(.[5] != null) | [.[1], .[3], .[5]]] | sort')
    # the captures and the span of message time, for the heading
    data_of "$d/mix.html" | jq -e --arg f "$d/mix.jsonl" '.captures == {files: [$f], more: 0, first: 1312284095, last: 1796586573.207495}'
}

# ---- in Chromium ----

@test "Chromium: the page loads with no console error, no dialog and no request of its own" {
    local c
    for c in mix hostile; do
        need_browser "$c"
        jq -e '.seen == {console: [], errors: [], requests: [], dialogs: []}' "$SEEN" || fail "$c: $(jq -c .seen "$SEEN")"
        jq -e '.scripts == 2 and .images == 0' "$SEEN"
    done
}

@test "Chromium: the counts it shows are acp-trace's statistics and summaries of the capture" {
    need_browser mix
    local stats=$BATS_FILE_TMPDIR/mix.stats summaries=$BATS_FILE_TMPDIR/mix.summaries n
    n=$(wc -l <"$summaries")
    jq -e --slurpfile s "$stats" '.messages == $s[0].messages' "$SEEN"
    jq -e --argjson n "$n" '.conversations == $n and .count == "\($n) of \($n) conversations"' "$SEEN"
    diff <(jq -c '[.conversations | to_entries[] | .key as $p | .value | to_entries[] | [$p, .key, .value]]' "$stats") \
        <(jq -c .outcomes "$SEEN")
    diff <(jq -c .anomalies "$stats") <(jq -c .anomalies "$SEEN")
}

@test "Chromium: the table filters by outcome, protocol and agent, and sorts by time, duration or latency, either way" {
    need_browser mix
    local summaries=$BATS_FILE_TMPDIR/mix.summaries
    diff <(jq -sc 'group_by(.outcome) | map({key: .[0].outcome, value: length}) | from_entries' "$summaries") \
        <(jq -c .by_outcome "$SEEN")
    diff <(jq -sc 'group_by(.protocol) | map({key: .[0].protocol, value: length}) | from_entries' "$summaries") \
        <(jq -c .by_protocol "$SEEN")
    diff <(jq -sc '[.[] | .participants | unique[]] | group_by(.) | map({key: .[0], value: length}) | from_entries' "$summaries") \
        <(jq -c .by_agent "$SEEN")
    jq -e '.sorted | {time, "time descending", duration, "duration descending", latency, "latency descending"} ==
        {"time": true, "time descending": true, "duration": true, "duration descending": true,
        "latency": true, "latency descending": true}' "$SEEN" || fail "out of order: $(jq -c .sorted "$SEEN")"
}

@test "Chromium: MCP requests show their method and tool, filter by them, and Requests by method tallies them" {
    need_browser mix
    local summaries=$BATS_FILE_TMPDIR/mix.summaries
    jq -e '.headings | index("method") and index("tool, prompt or resource")' "$SEEN"
    # each request's row: its method, what it names and how it ended, a failure with its code
    diff <(jq -sc 'map(select(.method) | [.conversation, .method, .subject // "", .outcome + (if .error_code then " (\(.error_code))" else "" end)]) | sort' "$summaries") \
        <(jq -c '.requests | sort' "$SEEN")
    jq -e '.requests | index([["a%2F1/2", "resources/read", "file:///x", "failed (-32602)"]])' "$SEEN"
    diff <(jq -sc 'map(select(.method)) | group_by(.method) | map({key: .[0].method, value: length}) | from_entries' "$summaries") \
        <(jq -c .by_method "$SEEN")
    diff <(jq -sc 'map(select(.subject)) | group_by(.subject) | map({key: .[0].subject, value: length}) | from_entries' "$summaries") \
        <(jq -c .by_subject "$SEEN")
    # Requests by method: a row a method, then one for each of its tools, prompts or resources
    diff <(jq -sc 'map(select(.method)) | [group_by(.method)[] | [.[0].method, null, length], (map(select(.subject)) | group_by(.subject)[] | [.[0].method, .[0].subject, length])]' "$summaries") \
        <(jq -c '.methods | map(.[:3])' "$SEEN")
    jq -e '.methods | index([["tools/call", null, 5, "done 3, cancelled 2"]]) and index([["resources/read", "file:///x", 1, "failed 1"]])' "$SEEN"
    # its row of a tool clicked: the table shows that tool's requests, and the search box finds them
    jq -e '.method_clicked | .method == "prompts/get" and .subject == "greeting" and .count == "1 of \($n) conversations" and
        .shown == ["a%2F1/5"] and .searched == ["a%2F1/5"]' --argjson n "$(wc -l <"$summaries")" "$SEEN"
    # a page of no request has none of this
    need_browser hostile
    jq -e '(.headings | index("method") | not) and .methods == null and .by_method == null and .method_clicked == null' "$SEEN"
}

@test "Chromium: selecting a conversation draws its diagram, an arrow to each receiver of each of its messages" {
    need_browser mix
    local d=$BATS_FILE_TMPDIR id arrows want n=0
    # the arrows of the rows of one id (two runs of a reused id are two rows) are those of the
    # messages --follow gives of it; a capture record's message has one receiver, the other side
    while IFS=$'\t' read -r id arrows; do
        want=$(acp-trace --follow="$id" "$d/mix.jsonl" 2>/dev/null |
            jq -s 'map((.to // .receiver) as $r | if .dir then 1 elif $r == null then 0 elif ($r | type) == "array" then ($r | length) else 1 end) | add')
        [ "$arrows" -eq "$want" ] || fail "$id: $arrows arrows, its messages have $want receivers"
        n=$((n + 1))
    done < <(jq -r --slurpfile s "$d/mix.summaries" '.selected | group_by($s[.row].conversation)[] |
        "\($s[.[0].row].conversation)\t\(map(.arrows) | add)"' "$SEEN")
    [ "$n" -eq "$(jq -s 'map(.conversation) | unique | length' "$d/mix.summaries")" ]
    jq -e '.selected | all(.diagram == 1 and .left_out == 0)' "$SEEN"
}

@test "Chromium: selecting an arrow shows the capture's line byte for byte, its file, line and findings" {
    need_browser mix
    local d=$BATS_FILE_TMPDIR i n where text
    n=$(jq '.arrows | length' "$SEEN")
    [ "$n" -ge 2 ]
    for ((i = 0; i < n; i++)); do
        where=$(jq -r ".arrows[$i].where" "$SEEN")
        [[ $where == "$d/mix.jsonl:"* ]] || fail "arrow $i: $where"
        text=$(jq -r ".arrows[$i].text" "$SEEN")
        [ "$text" = "$(sed -n "${where##*:}p" "$d/mix.jsonl")" ] || fail "arrow $i: $text"
        # the message of the arrow clicked: the line its diagram names in its tooltip
        [ "$(jq -r ".arrows[$i].title | split(\" \")[0]" "$SEEN")" = "${where##*:}" ] ||
            fail "arrow $i, $(jq -c ".arrows[$i].title" "$SEEN"), shows line ${where##*:}"
    done
    # the conversation clicked through has findings, shown with their message
    jq -e '[.arrows[].findings[]] | length > 0' "$SEEN"
    jq -e '[.arrows[].findings[]] | all(test("^(error|warning) \\[[a-z-]+\\] "))' "$SEEN"
}

@test "Chromium: hostile names show as text, and no script of theirs runs" {
    need_browser hostile
    local name
    jq -e '.canary == null and .seen.dialogs == [] and .scripts == 2 and .images == 0' "$SEEN"
    # each as the diagrams show it (its participant's label in the page's SVG, but for those the
    # SVG cuts in the middle), escapes and all
    local label
    while IFS= read -r label; do
        jq -e --arg n "$label" '.page_text | contains($n)' "$SEEN" >/dev/null || fail "${label@Q} is not shown"
    done < <(data_of "$BATS_FILE_TMPDIR/hostile.html" | jq -r '.details[].svg' |
        perl -ne 'while (/<text x="\d+" y="64" text-anchor="middle">([^<]*)<\/text>/g) { my $t = $1;
            $t =~ s/&lt;/</g; $t =~ s/&gt;/>/g; $t =~ s/&quot;/"/g; $t =~ s/&#39;/\x27/g; $t =~ s/&amp;/&/g; print "$t\n" }' | grep -vF '...' | sort -u)
    jq -e '.arrows | length > 0 and all(.text != null)' "$SEEN"
}

# Issue 39: the diagrams escaped invisible characters and overrides, the page's table did not:
# conv-1 and conv-1 with a U+200B rendered alike, and conv-U+202E1-vnoc as conv-conv-1.
@test "Chromium: names that look alike show apart, with the diagrams' escapes, everywhere the page shows one" {
    need_browser lookalike
    local shown
    for shown in 'conv-1\u{200B}' 'conv-\u{202E}1-vnoc' '\u{0020}conv-1' 'conv-1\u{0020}'; do
        jq -e --arg n "$shown" '.page_text | contains($n)' "$SEEN" >/dev/null || fail "$shown is not shown"
    done
    jq -e '.page_text | test("[\u200b\u202e]") | not' "$SEEN" || fail "a raw U+200B or U+202E is on the page"
    jq -e '.seen == {console: [], errors: [], requests: [], dialogs: []}' "$SEEN"
}

@test "Chromium: the page says what it left out, and so does a conversation left out" {
    need_browser mix12
    local omitted
    omitted=$(data_of "$BATS_FILE_TMPDIR/mix12.html" | jq -c .omitted)
    jq -e --argjson o "$omitted" '.left_out | startswith("Left out: the messages of \($o.conversations) conversations (\($o.messages) messages): the report keeps those of 12 arrows (--max-arrows)")' "$SEEN"
    jq -e --argjson o "$omitted" '.left_out | contains("\($o.outside) messages of no conversation")' "$SEEN"
    # on the table's first page, each conversation either has its diagram or says it was left out
    jq -e '.selected | all((.diagram == 1 and .left_out == 0) or (.diagram == 0 and .left_out == 1 and .arrows == 0))' "$SEEN"
    jq -e '[.selected[] | select(.diagram == 1)] | length >= 2' "$SEEN"
    jq -e '[.selected[] | select(.left_out == 1)] | length >= 10' "$SEEN"
    jq -e '.seen == {console: [], errors: [], requests: [], dialogs: []}' "$SEEN"
}

@test "Chromium: the table opens with the problems first, and sorts by findings and by outcome" {
    need_browser mix
    # violated first, then those with findings, each by their findings, most first
    jq -e '.opening | length > 3 and (map(if .[0] == "violated" then 0 elif .[1] > 0 then 1 else 2 end) as $r
        | [range(1; length)] | all($r[. - 1] <= $r[.]))' "$SEEN" || fail "$(jq -c .opening "$SEEN")"
    jq -e '.opening[0][0] == "violated"' "$SEEN"
    jq -e '.sorted.findings and .sorted.outcome' "$SEEN"
}

@test "Chromium: the search box finds a conversation by its id in the whole table, not its first page only" {
    need_browser mix
    local n
    n=$(wc -l <"$BATS_FILE_TMPDIR/mix.summaries")
    jq -e --arg n "$n" '.search.found == [.search.id] and .search.count == "1 of \($n) conversations"' "$SEEN" ||
        fail "$(jq -c .search "$SEEN")"
}

@test "Chromium: Anomalies by code lists each diagnostic with its file and line; a line opens its conversation" {
    need_browser mix
    local d=$BATS_FILE_TMPDIR
    # every diagnostic of the run, under its code
    diff <(jq -c '.anomalies' "$d/mix.stats") <(jq -c '.codes | map_values(length)' "$SEEN")
    diff <(acp-trace --diagnostics=json "$d/mix.jsonl" 2>&1 >/dev/null | jq -sc 'group_by(.code) | map({key: .[0].code, value: map("\(.file):\(.line)")}) | from_entries') \
        <(jq -c '.codes | map_values(map(.where))' "$SEEN")
    # those of a conversation name it, and open it: its diagram drawn
    jq -e '.opened.detail == "Conversation \(.opened.conversation)" and .opened.arrows > 0' "$SEEN" || fail "$(jq -c .opened "$SEEN")"
    diff <(jq -sc '[.[] | .conversation as $c | .issues[] | "\(.code) \(.line) \($c)"] | sort' "$d/mix.summaries") \
        <(jq -c '[.codes | to_entries[] | .key as $code | .value[] | select(.conversation) | "\($code) \(.where | sub(".*:"; "")) \(.conversation)"] | sort' "$SEEN")
}

@test "Chromium: the heading names the capture and its time span; Left out names the kinds; the histograms have an axis" {
    need_browser mix
    jq -e --arg f "$BATS_FILE_TMPDIR/mix.jsonl" '.captures == "\($f): 2011-08-02 11:21:35.000 to 2026-12-06 19:49:33.207 UTC (134528h27m)"' "$SEEN" ||
        fail "$(jq -c .captures "$SEEN")"
    jq -e '.left_out == "Left out: 11 messages of no conversation (hb 3, notifications/initialized 3, accept 1, cfp 1, ctl.drain 1, ctl.halt 1, notifications/tools/list_changed 1), counted in the statistics only."' "$SEEN" ||
        fail "$(jq -c .left_out "$SEEN")"
    jq -e '.axes | length > 0 and all(.[0] == 1 and (.[1] | length) >= 2)' "$SEEN" || fail "$(jq -c .axes "$SEEN")"
    # the histograms in the order of their pairs: the first of IACP's and FIPA's, past MCP's
    local first
    first=$(jq '.latency | keys | map(test("^(initialize|prompts|resources|roots|tools)/?") | not) | index(true)' \
        "$BATS_FILE_TMPDIR/mix.stats")
    jq -e --argjson i "$first" '.axes[$i][1] == ["1 µs", "100 µs", "10 ms", "1 s"]' "$SEEN"
}

@test "Chromium: a screenshot of each state: loaded, filtered, a conversation, a message" {
    need_browser mix
    local state
    for state in loaded filtered conversation message; do
        local f=$ACP_BUILD/screenshots/mix-$state.png
        [ -s "$f" ] || fail "no $f"
        [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$f is no PNG"
    done
}

@test "scripts/deps installs tests/node_modules again whenever tests/package-lock.json changed" {
    local root=$BATS_TEST_TMPDIR/root stubs=$BATS_TEST_TMPDIR/stubs
    mkdir -p "$root/scripts" "$root/tests" "$stubs"
    cp "$TESTS_DIR/../scripts/deps" "$root/scripts/"
    echo '{"lockfileVersion": 3, "v": 1}' >"$root/tests/package-lock.json"
    # every Debian package there; npm ci noted, making node_modules (with mmdc) as it would
    printf '#!/bin/sh\nprintf "install ok installed"\n' >"$stubs/dpkg-query"
    printf '#!/bin/sh\necho "$*" >>"%s/npm.log"\nrm -rf node_modules\nmkdir -p node_modules/.bin\n: >node_modules/.bin/mmdc\nchmod +x node_modules/.bin/mmdc\n' \
        "$BATS_TEST_TMPDIR" >"$stubs/npm"
    chmod +x "$stubs/dpkg-query" "$stubs/npm"
    PATH=$stubs:$PATH run -0 "$root/scripts/deps" </dev/null
    [ "$(grep -c '^ci ' "$BATS_TEST_TMPDIR/npm.log")" -eq 1 ]
    PATH=$stubs:$PATH run -0 "$root/scripts/deps" </dev/null
    [ "$(grep -c '^ci ' "$BATS_TEST_TMPDIR/npm.log")" -eq 1 ] || fail "installed again, unchanged"
    echo '{"lockfileVersion": 3, "v": 2}' >"$root/tests/package-lock.json"
    PATH=$stubs:$PATH run -0 "$root/scripts/deps" </dev/null
    [ "$(grep -c '^ci ' "$BATS_TEST_TMPDIR/npm.log")" -eq 2 ] || fail "not installed again when the lockfile changed"
    cmp "$root/tests/package-lock.json" "$root/tests/node_modules/.acp-package-lock.json"
}

# Every string the tools write goes through jsonout_string, which writes a chunk of bytes at a time
# in place (an SVG in the HTML report has a quote or a bracket every few bytes): random strings
# of every kind of byte, about and across its chunks, under every combination of flags.
@test "jsonout writes every string as JSON that reads back as it, with nothing raw its flags escape" {
    run -0 "$ACP_BUILD/tests/jsonout-strings" 3000
    assert_output --regexp '^checked [0-9]+, failed 0$'
}

# The SVG and HTML writers format hundreds of thousands of numbers through sb_addf, which writes
# formats of plain conversions itself: it must write what snprintf writes.
@test "sb_addf writes what snprintf writes, at every extreme of every type and at random" {
    run -0 "$ACP_BUILD/tests/sb-format" 20000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# The reals the tools compute (latencies, durations, times of milliseconds) are written in their
# shortest digits by integer arithmetic, and the scanner reads a capture's reals the same way
# where one exact operation does it: each held to printf and strtod over random doubles and texts
# of every kind (ties at every digit, powers of two, denormals, times and latencies).
@test "reals are written in the digits printf and strtod find, and read as strtod reads them" {
    run -0 "$ACP_BUILD/tests/real-digits" 20000
    assert_output --regexp '^checked [0-9]+, failed 0, by printf [0-9]+ of 20000 times, read [0-9]+ of [0-9]+$'
}

# The map of the places of kept messages (base/placemap.h) against a plain array, over puts,
# gets and removes that collide, wrap around its end and close up after removals.
@test "the places of kept messages: a map that finds each as a plain array does" {
    run -0 "$ACP_BUILD/tests/placemap" 200000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# The string map (base/strmap.h) the statistics and the page's names go through against a plain
# array: what strmap_get_recent remembers of the entries it found never outlives a removal or a
# sweep, and a slot shared by keys gives each its own value.
@test "the statistics' map finds each name as a plain array does, remembered or not" {
    run -0 "$ACP_BUILD/tests/strmap" 300000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}
