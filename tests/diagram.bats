# The sequence-diagram writer (common/diag/diagram.h) that acp-trace --format=mermaid|plantuml|svg|text
# uses, through a small driver (tests/drivers/diagram.c) that reads a script of participants,
# arrows, marks and notes. Golden diagrams of a small exchange; hostile names and labels in every
# format (generated, checked against each format's grammar and counted); and the real renderers:
# PlantUML, Mermaid's mmdc, rsvg-convert and headless Chromium, each skipping where it is absent
# (scripts/deps installs them all).
load test_helper

D=$FIXTURES/diagram

setup_file() {
    build_test_programs
}

setup() {
    DIAGRAM=$ACP_BUILD/tests/diagram
    MMDC=$TESTS_DIR/node_modules/.bin/mmdc
}

# diagram FORMAT [TITLE] <SCRIPT
diagram() {
    "$DIAGRAM" "$@"
}

SEEDS=(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20)
RENDER_SEEDS=(1 2 3 4)

# make_hostile FORMAT EXT SEED...: for every seed, a hostile script of 15 names and 60 arrows
# (tests/drivers/hostile-script), drawn in FORMAT to h.SEED.EXT with its hostile title.
make_hostile() {
    local format=$1 ext=$2 seed prefix want
    shift 2
    for seed in "$@"; do
        prefix=$BATS_TEST_TMPDIR/h.$seed
        "$TESTS_DIR/drivers/hostile-script" "$seed" 15 60 "$prefix" || fail "no script for seed $seed"
        diagram "$format" "$(cat "$prefix.title")" <"$prefix.script" >"$prefix.$ext" \
            2>"$prefix.counts" || fail "the driver failed on seed $seed"
        want="arrows 60 participants $(participants_of "$seed")"
        [ "$(cat "$prefix.counts")" = "$want" ] ||
            fail "seed $seed: driver says $(cat "$prefix.counts"), expected $want"
    done
}

participants_of() {
    cat "$BATS_TEST_TMPDIR/h.$1.participants"
}

# count PATTERN FILE: how many times an extended regular expression matches in FILE.
count() {
    LC_ALL=C grep -oE -- "$1" "$2" | wc -l
}

# The width and height of a PNG, from its header: "W H".
png_size() {
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
                                               $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

# The width and height an SVG declares: "W H".
svg_size() {
    sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$1"
}

# xpath FILE EXPR: the value of an XPath expression over an SVG (names without namespace).
xpath() {
    xmllint --xpath "$2" "$1"
}

need_xmllint() {
    command -v xmllint >/dev/null || skip "xmllint is not installed (scripts/deps installs libxml2-utils)"
}

# ---- Golden diagrams of a small exchange ----

# golden FORMAT EXT [CASE TITLE COUNTS OPTION...]: the diagram of tests/fixtures/diagram/CASE.script
# (the small exchange by default), drawn with the driver's OPTIONs, is CASE.EXT.
golden() {
    local format=$1 ext=$2 case=${3:-exchange} title=${4:-Colony capture}
    local counts=${5:-arrows 7 participants 3}
    shift $(($# < 5 ? $# : 5))
    diagram "$@" "$format" "$title" <"$D/$case.script" >"$BATS_TEST_TMPDIR/out" \
        2>"$BATS_TEST_TMPDIR/err" || fail "the driver failed"
    diff -u "$D/$case.$ext" "$BATS_TEST_TMPDIR/out" || fail "$format differs from the golden diagram"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "$counts"
}

# The story of two conversations: times and deltas, two files, a date that changes, a message to
# three receivers, findings, outcomes. The text at 100 columns, where its four agents take one
# band (at 80 they take several: see the test of bands below).
story() {
    local options=()
    [ "$1" != text ] || options=(--width=100)
    golden "$1" "$2" story "A story" "arrows 8 participants 4" "${options[@]}"
}

@test "diagram: golden Mermaid of a small exchange" {
    golden mermaid mmd
}

@test "diagram: golden PlantUML of a small exchange" {
    golden plantuml puml
}

@test "diagram: golden SVG of a small exchange" {
    golden svg svg
}

@test "diagram: golden text flow of a small exchange" {
    golden text txt
}

@test "diagram: golden Mermaid of a story: times, deltas, outcomes, a legend" {
    story mermaid mmd
}

@test "diagram: golden PlantUML of a story: times, deltas, outcomes, a legend" {
    story plantuml puml
}

@test "diagram: golden SVG of a story: times, deltas, lines, outcomes, a legend" {
    story svg svg
}

# whens_of DELTA...: the times of messages a second apart with each delta, as Mermaid shows them.
whens_of() {
    local delta t=1312284100
    for delta in "$@"; do
        printf 't\t%s\t%s\t\t\na\ta\tb\tx\n' "$t" "$delta"
        t=$((t + 1))
    done | diagram mermaid 2>/dev/null | sed -n 's/^    p1->>p2: \(.*\) x$/\1/p'
}

@test "diagram: each arrow shows its time, its date on the first and when it changes, and its delta" {
    run -0 whens_of '' 1 0.25 0.001 59.9996 60 80 3725 90061 -3 -0.5 0
    assert_output "2011-08-02 11:21:40
11:21:41 +1s
11:21:42 +0.25s
11:21:43 +0.001s
11:21:44 +1m00s
11:21:45 +1m00s
11:21:46 +1m20s
11:21:47 +1h02m05s
11:21:48 +1d01h01m01s
11:21:49 -3s
11:21:50 -0.5s
11:21:51 +0s"
    # Milliseconds where the time has them; a new date where it changes.
    run -0 --separate-stderr diagram plantuml <<<$'t\t1312284100.25\t\t\t\na\ta\tb\tx\nt\t1312416000\t131899.75\t\t\na\tb\ta\ty'
    assert_line 'p1 -> p2 : 2011-08-02 11:21:40.250 x'
    assert_line 'p2 -> p1 : 2011-08-04 00:00:00 +1d12h38m20s y'
}

@test "diagram: --no-times leaves every time and delta out, and the legend's line on them" {
    local f
    for f in mermaid plantuml svg; do
        diagram --no-times "$f" <"$D/story.script" >"$BATS_TEST_TMPDIR/d" 2>/dev/null
        run -1 grep -E '11:21|[+]1s|times: when' "$BATS_TEST_TMPDIR/d"
        diagram "$f" <"$D/story.script" >"$BATS_TEST_TMPDIR/d" 2>/dev/null
        run -0 grep -E '11:21|times: when' "$BATS_TEST_TMPDIR/d"
    done
}

@test "diagram: a message to several receivers is an arrow to each, its findings noted once" {
    run -0 --separate-stderr diagram mermaid <<'EOF'
g	a	cfp c1	b	c	d
m	2	warning	w: once
a	b	a	propose c1
EOF
    assert_equal "$stderr" "arrows 4 participants 4"
    assert_output "sequenceDiagram
    participant p1 as a
    participant p2 as b
    participant p3 as c
    participant p4 as d
    rect rgb(255, 224, 178)
    p1->>p2: cfp c1
    p1->>p3: cfp c1
    p1->>p4: cfp c1
    Note over p1,p4: warning#58; w#58; once
    end
    p2->>p1: propose c1
    Note over p1,p4: legend#58; orange box#58; a warning#44; each diagnostic in a note"
}

@test "diagram: the legend tells what the diagram holds, and only that" {
    run -0 --separate-stderr diagram plantuml <<<$'a\ta\tb\tx'
    refute_output --partial 'legend'
    run -0 --separate-stderr diagram plantuml <<<$'t\t100\t\t\t\na\ta\tb\tx\nm\t1\terror\te\no\t1\tended\tc: failed'
    assert_output --partial "legend
times: when each message was sent (UTC), then +how long after the previous message of its conversation
<color:#C000C0>magenta</color> arrow: an error, each diagnostic in a note
how each conversation ended, at its last message: <color:#616161>grey</color> ended otherwise
endlegend"
}

@test "diagram: an outcome goes after its message, its marks and the notes there, in its colour" {
    run -0 --separate-stderr diagram plantuml <<'EOF'
a	a	b	one
a	b	a	two
n	a	warning	after two
o	1	done	c1: done
m	1	error	bad
n	b	none	last
EOF
    assert_output --partial 'p1 -[#C000C0]> p2 : one
note over p1, p2 #F8D0F8 : error: bad
note over p1, p2 #C8E6C9 : c1: done
p2 -> p1 : two
note over p1 #FFE0B2 : warning: after two
note over p2 : last'
}

@test "diagram: participants in order of first appearance, one column per name" {
    run -0 --separate-stderr diagram mermaid <<'EOF'
a	b	a	one
a	a	c	two
p	b
a	c	b	three
p	d
EOF
    assert_output "sequenceDiagram
    participant p1 as b
    participant p2 as a
    participant p3 as c
    participant p4 as d
    p1->>p2: one
    p2->>p3: two
    p3->>p1: three"
}

@test "diagram: names that differ only in invisible characters stay apart, and look apart" {
    run -0 --separate-stderr diagram text <<'EOF'
a	alice	alice\xe2\x80\x8b	x
a	alice\xe2\x80\x8b	alice\xef\xbb\xbf	y
EOF
    assert_line --index 0 --regexp ' alice +alice\\u\{200B\} +alice\\u\{FEFF\}$'
}

# ---- Names that differ look different, in every format and once rendered ----

# Names an impostor could take: the queen's with a blank at an end, with a Cc, Cf or Zs character
# (not U+0020 inside a name), with a backslash that reads as an escape; Mermaid's placeholders
# U+FB02 U+00B0 and U+00B6 U+00DF, which it turns into "&" and ";" when it meets them.
LOOKALIKES=(queen 'queen ' ' queen' $'queen\u00a0' $'que\u2060en' $'queen\u3000' $'queen\x7f'
    $'queen\u200b' 'queen\u00a0' $'a\ufb02\u00b0b' $'a\u00b6\u00dfb' $'a\ufb02\u00b0amp\u00b6\u00dfb'
    'x#38;y' 'two spaces' $'two\u00a0spaces' '  ')

# esc CP: the escape that shows code point CP (hexadecimal).
esc() {
    printf '\\u{%04X}' "$((16#$1))"
}

# How each of LOOKALIKES is shown; ASCII=1 for the text format, which escapes all but ASCII.
shown_lookalikes() {
    local ascii=${1:-0} fb b0 b6 df
    fb=$'\ufb02' b0=$'\u00b0' b6=$'\u00b6' df=$'\u00df'
    if [ "$ascii" = 1 ]; then
        fb=$(esc fb02) b0=$(esc b0) b6=$(esc b6) df=$(esc df)
    fi
    printf '%s\n' queen "queen$(esc 20)" "$(esc 20)queen" "queen$(esc a0)" "que$(esc 2060)en" \
        "queen$(esc 3000)" 'queen\x7f' "queen$(esc 200b)" 'queen\\u00a0' "a$fb${b0}b" "a$b6${df}b" \
        "a$fb${b0}amp$b6${df}b" 'x#38;y' 'two spaces' "two$(esc a0)spaces" "$(esc 20)$(esc 20)"
}

# A script of one arrow from each of LOOKALIKES to the next (its participants in that order).
lookalike_script() {
    local i name
    for name in "${LOOKALIKES[@]}"; do
        name=${name//\\/\\\\}
        printf 'p\t%s\n' "${name//$'\x7f'/\\x7f}"
    done
    for ((i = 1; i < ${#LOOKALIKES[@]}; i++)); do
        printf 'a\t%s\t%s\tm%d\n' "${LOOKALIKES[i - 1]//\\/\\\\}" "${LOOKALIKES[i]//\\/\\\\}" "$i"
    done
}

@test "diagram: names that differ by an end blank, a Cc, Cf or Zs character or a backslash look different (SVG and text)" {
    need_xmllint
    local n=${#LOOKALIKES[@]} i shown=()
    lookalike_script >"$BATS_TEST_TMPDIR/s"
    diagram svg <"$BATS_TEST_TMPDIR/s" >"$BATS_TEST_TMPDIR/d.svg" 2>/dev/null
    for ((i = 1; i <= n; i++)); do
        shown+=("$(xpath "$BATS_TEST_TMPDIR/d.svg" "string(//*[@id=\"participant-$i\"]/*[local-name()=\"text\"])")")
    done
    assert_equal "$(printf '%s\n' "${shown[@]}")" "$(shown_lookalikes)"
    # The text format, wide enough for one band: the names' line, split where two blanks or more
    # part them (the one too long cut in the middle to the format's 20 columns).
    diagram --width=1000 text <"$BATS_TEST_TMPDIR/s" 2>/dev/null | head -1 |
        sed -E 's/^ +//; s/ {2,}/\n/g' >"$BATS_TEST_TMPDIR/text-names"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/text-names")" \
        "$(shown_lookalikes 1 | sed 's/^a\\u{FB02}\\u{00B0}amp\\u{00B6}\\u{00DF}b$/a\\u{FB02}...b/')"
}

@test "diagram: every Cc (beyond ASCII), Cf and Zs character but U+0020 is shown as an escape; visible ones are not" {
    need_xmllint
    local lo hi cat cp names=() wants=()
    while read -r lo hi cat; do
        [[ $lo == '#'* ]] && continue
        for ((cp = 16#$lo; cp <= 16#$hi; cp++)); do
            names+=("$(printf 'a\\U%08x' "$cp")")
            wants+=("a$(printf '\\u{%04X}' "$cp")")
        done
    done <"$D/invisible"
    # Visible characters beyond ASCII stay themselves.
    names+=('a\u00e9' 'a\u4e2d' 'a\U0001f600' 'a\u00a1')
    wants+=($'a\u00e9' $'a\u4e2d' $'a\U0001f600' $'a\u00a1')
    local i script=$BATS_TEST_TMPDIR/s
    for ((i = 0; i < ${#names[@]}; i++)); do
        printf 'p\t%s\n' "$(printf '%b' "${names[i]}")"
    done >"$script"
    diagram svg <"$script" >"$BATS_TEST_TMPDIR/d.svg" 2>/dev/null
    xpath "$BATS_TEST_TMPDIR/d.svg" '//*[@class="participant"]/*[local-name()="title"]' |
        sed -E 's/^<title>//; s/<\/title>$//' >"$BATS_TEST_TMPDIR/shown"
    printf '%s\n' "${wants[@]}" >"$BATS_TEST_TMPDIR/wanted"
    diff "$BATS_TEST_TMPDIR/wanted" "$BATS_TEST_TMPDIR/shown"
    [ "${#names[@]}" -gt 200 ] || fail "only ${#names[@]} names"
}

@test "diagram: long names that differ at their end stay apart in every format (cut in the middle)" {
    local long
    long=$(printf 'x%.0s' {1..90})
    printf 'a\tagent-%s-000001\tagent-%s-000002\tm\n' "$long" "$long" >"$BATS_TEST_TMPDIR/s"
    run -0 --separate-stderr diagram mermaid <"$BATS_TEST_TMPDIR/s"
    assert_line --regexp '^    participant p1 as agent-x+\.\.\.x+-000001$'
    assert_line --regexp '^    participant p2 as agent-x+\.\.\.x+-000002$'
    run -0 --separate-stderr diagram plantuml <"$BATS_TEST_TMPDIR/s"
    assert_line --regexp '^participant "agent-x+\.\.\.x+-000001" as p1$'
    assert_line --regexp '^participant "agent-x+\.\.\.x+-000002" as p2$'
    run -0 --separate-stderr diagram svg <"$BATS_TEST_TMPDIR/s"
    assert_output --regexp '>agent-x+\.\.\.x+-000001</text>'
    assert_output --regexp '>agent-x+\.\.\.x+-000002</text>'
    run -0 --separate-stderr diagram text <"$BATS_TEST_TMPDIR/s"
    assert_line --index 0 --regexp '^ +agent-x+\.\.\.x*-000001 +agent-x+\.\.\.x*-000002$'
}

@test "diagram: a mark on an arrow that does not exist, or a note on no column, is ignored" {
    run -0 --separate-stderr diagram plantuml <<'EOF'
a	a	b	x
m	0	error	zero
m	2	error	two
m	1	warning	one
EOF
    assert_equal "$stderr" "arrows 1 participants 2"
    assert_output "@startuml
participant \"a\" as p1
participant \"b\" as p2
p1 -[#B26A00]> p2 : x
note over p1, p2 #FFE0B2 : warning: one
legend
<color:#B26A00>orange</color> arrow: a warning, each diagnostic in a note
endlegend
@enduml"
}

@test "diagram: empty names, labels and notes show as \"\"" {
    run -0 --separate-stderr diagram mermaid <<'EOF'
a		b	
n		none	
EOF
    assert_output 'sequenceDiagram
    participant p1 as #34;#34;
    participant p2 as b
    p1->>p2: #34;#34;
    Note over p1: #34;#34;'
}

# ---- Text: printable ASCII only, columns aligned ----

@test "diagram: text escapes every byte that is not printable ASCII, visibly" {
    run -0 --separate-stderr diagram text 't\x1b]0;x\x07' <<'EOF'
a	caf\xc3\xa9	\xff\xfe	\x1b[2J\r\n\t
a	\xe2\x80\xaeevil	\xf0\x9f\x98\x80	\xc2\x85\xef\xbf\xbe\x7f
EOF
    assert_line --index 0 't\x1b]0;x\x07'
    assert_output --partial 'caf\u{00E9}'
    assert_output --partial '\xff\xfe'
    assert_output --partial '\x1b[2J\r\n\t'
    assert_output --partial '\u{202E}evil'
    assert_output --partial '\u{1F600}'
    assert_output --partial '\u{0085}\u{FFFE}\x7f'
}

@test "diagram: text is printable ASCII only, whatever the input (property)" {
    make_hostile text txt "${SEEDS[@]}"
    local seed
    for seed in "${SEEDS[@]}"; do
        [ "$(LC_ALL=C grep -c '[^ -~]' "$BATS_TEST_TMPDIR/h.$seed.txt")" -eq 0 ] ||
            fail "seed $seed: a byte that is not printable ASCII"
    done
}

# flow_script SEED AGENTS MESSAGES: a script of MESSAGES messages among agent-00 to agent-NN
# (AGENTS of them), each with its line, a time and a delta; some to several receivers or to
# oneself, some with findings, with notes between; labels hostile. Prints "FROM TO..." of each
# message into FLOW_ARROWS.
flow_script() {
    awk -v seed="$1" -v agents="$2" -v n="$3" -v arrows="$FLOW_ARROWS" 'BEGIN {
        srand(seed)
        split("end;#59;|-->>|<b>x</b>|\\x1b[31m|]]>|--+|<-+|X error|  |x", hostile, "|")
        for (i = 1; i <= n; i++) {
            from = int(rand() * agents); k = rand() < 0.15 ? 1 + int(rand() * 3) : 1
            line = sprintf("%d", from)
            printf "t\t%d\t%s\tc.jsonl\t%d\n", 1312284100 + 7 * i, rand() < 0.5 ? 3.5 : "", 10 * i
            to = ""
            for (j = 0; j < k; j++) {
                r = rand() < 0.1 ? from : int(rand() * agents)
                if (index(" " to " ", " " r " ")) continue
                to = to " " r
            }
            sub(/^ /, "", to)
            nto = split(to, t, " ")
            printf "%s %s\n", from, to > arrows
            if (nto == 1)
                printf "a\tagent-%02d\tagent-%02d\t%s %d\n", from, t[1], hostile[1 + int(rand() * 10)], i
            else {
                printf "g\tagent-%02d\t%s %d", from, hostile[1 + int(rand() * 10)], i
                for (j = 1; j <= nto; j++) printf "\tagent-%02d", t[j]
                printf "\n"
            }
            if (rand() < 0.2) printf "m\t%d\t%s\tcode: a finding of message %d that is long enough to wrap under its arrow in a narrow terminal, and more\n", arrowno + 1, rand() < 0.5 ? "error" : "warning", i
            arrowno += nto
            if (rand() < 0.05) printf "n\tagent-%02d\tnone\ta note\n", int(rand() * agents)
        }
    }'
}

# check_flow FLOW WIDTH: every line at most WIDTH; each band's head names its agents where their
# lifelines are; each message's rows (its line in the gutter, in order; more than one where its
# receivers take more than a band) have its arrows from its sender's lifeline to each receiver's,
# a head before each, lifelines left of it intact; every receiver drawn.
check_flow() {
    LC_ALL=C awk -v width="$2" -v arrows="$FLOW_ARROWS" '
        function fail(msg) { print "line " NR ": " msg ": " $0; bad = 1; exit 1 }
        BEGIN { while ((getline l < arrows) > 0) { n++; msg[n] = l }; head = 1 }
        length($0) > width { fail("wider than " width) }
        /^$/ { head = 1; next }
        head && /agent-[0-9][0-9]/ {
            delete x; cols = 0; s = $0; off = 0
            while (match(s, /agent-[0-9][0-9]/)) {
                a = substr(s, RSTART + 6, 2) + 0; x[a] = off + RSTART + 4; xs[++cols] = x[a]
                off += RSTART + RLENGTH - 1; s = substr(s, RSTART + RLENGTH)
            }
            head = 0; next
        }
        head { next }
        /^ *[0-9]+[ X!] / { # a row: all its message'"'"'s arrows, or those of its band (a piece)
            k = ($1 + 0) / 10; if (k != last && k != last + 1) fail("row of message " k " after " last)
            last = k; nm = split(msg[k], m, " "); f = m[1]
            if (!(f in x)) fail("sender not in the band")
            lo = x[f]; hi = x[f]; drawn = 0
            for (j = 2; j <= nm; j++) { # its sender is a receiver too: drawn if "@" or "<-+"
                if (!(m[j] in x)) continue
                drawn++; self = m[j] == f
                if (!self || substr($0, x[f], 1) == "@" || substr($0, x[f], 4) == "|<-+") covered[k, j] = 1
                if (x[m[j]] < lo) lo = x[m[j]]; if (x[m[j]] > hi) hi = x[m[j]]
            }
            if (!drawn) fail("no receiver in the band")
            for (j = 1; j <= cols; j++) if (xs[j] < lo && substr($0, xs[j], 1) != "|") fail("a lifeline left of the arrow")
            if (substr($0, x[f], 1) !~ /[|@+]/) fail("the sender off its lifeline")
            if (lo == hi) { if (substr($0, lo, 4) != "|<-+") fail("no arrow to itself"); next }
            for (j = 2; j <= nm; j++) {
                if (!(m[j] in x)) continue
                t = x[m[j]]
                if (t == x[f]) continue
                if (substr($0, t, 1) != "|") fail("a receiver off its lifeline")
                if (t > x[f] && substr($0, t - 1, 1) != ">") fail("no head at " t)
                if (t < x[f] && substr($0, t + 1, 1) != "<") fail("no head at " t)
            }
            for (i = lo + 1; i < hi; i++) if (substr($0, i, 1) !~ /[-|<>@+]/) fail("a broken shaft")
            next
        }
        { # a note: lifelines left of its flag
            match($0, /[X!*=] /); if (!RSTART) next
            for (j = 1; j <= cols; j++) if (xs[j] < RSTART && substr($0, xs[j], 1) != "|") fail("a lifeline left of a note")
        }
        END {
            if (bad) exit 1
            if (last != n) { print last " messages drawn of " n; exit 1 }
            for (k = 1; k <= n; k++) {
                nm = split(msg[k], m, " ")
                for (j = 2; j <= nm; j++) if (!covered[k, j]) { print "message " k ": receiver " m[j] " not drawn"; exit 1 }
            }
        }
    ' "$1"
}

@test "diagram: text fits its width: bands of rows, their lifelines the agents they have, names over them (property)" {
    FLOW_ARROWS=$BATS_TEST_TMPDIR/arrows
    local seed width
    for seed in 1 2 3 4 5 6; do
        for width in 60 80 100 160; do
            : >"$FLOW_ARROWS"
            flow_script "$seed" 20 120 >"$BATS_TEST_TMPDIR/s"
            diagram --width="$width" text <"$BATS_TEST_TMPDIR/s" >"$BATS_TEST_TMPDIR/flow" 2>/dev/null
            run check_flow "$BATS_TEST_TMPDIR/flow" "$width"
            [ "$status" -eq 0 ] || fail "seed $seed, width $width: $output"
        done
    done
    # The checker sees a lifeline out of place.
    sed '/^ *10  /s/|/ /' "$BATS_TEST_TMPDIR/flow" >"$BATS_TEST_TMPDIR/broken"
    run ! check_flow "$BATS_TEST_TMPDIR/broken" 160
}

@test "diagram: golden text flow of a story: rows by line, times, deltas, outcomes, a legend" {
    story text txt
}

@test "diagram: a text row is a message: its line (file:line with several files), an arrow to each receiver" {
    run -0 --separate-stderr diagram text <<'EOF'
t	1312284100		a.jsonl	7
g	q	cfp c1	b	c	d
t	1312284101	1	b.jsonl	12
a	c	q	propose c1
t			b.jsonl	13
a	d	d	think
EOF
    assert_equal "$stderr" "arrows 5 participants 4"
    # (the shaft to c crosses b's lifeline)
    assert_line --index 4 ' a.jsonl:7  11:21:40            |---->|---->|---->| cfp c1'
    assert_line --index 5 'b.jsonl:12  11:21:41   +1s      |<----------| propose c1'
    assert_line --index 6 'b.jsonl:13                      |     |     |     |<-+ think'
}

@test "diagram: text keeps a message to several receivers on one row where its columns fit, its label under it" {
    # five columns of 11 fit 60 only with the room kept for labels: one band, the labels under
    run -0 --separate-stderr diagram --width=60 text <<'EOF'
g	agent-001	call for proposals c1	agent-002	agent-003	agent-004	agent-005
a	agent-005	agent-001	propose c1
EOF
    assert_line --index 0 '   agent-001  agent-002  agent-003  agent-004  agent-005'
    assert_line --index 1 '       |--------->|--------->|--------->|--------->|'
    assert_line --index 2 '         call for proposals c1'
    assert_line --index 3 '       |<------------------------------------------|'
    assert_line --index 4 '         propose c1'
    [ "${#lines[@]}" -eq 5 ] || fail "${#lines[@]} lines"
}

@test "diagram: text notes wrap under their message, within the width" {
    run -0 --separate-stderr diagram --width=60 text <<'EOF'
a	a	b	x
m	1	error	code: a finding long enough to take more than the sixty columns of this terminal, to wrap
EOF
    assert_line --index 2 'X    |---->| x'
    assert_line --index 3 '     X error: code: a finding long enough to take more than'
    assert_line --index 4 '       the sixty columns of this terminal, to wrap'
}

@test "diagram: --color: the text diagram's anomalies, outcomes and flags in colour; none without" {
    run -0 --separate-stderr diagram --color text <"$D/story.script"
    assert_output --partial $'\e[1;31mX'
    assert_output --partial $'\e[1;31m<--------'
    assert_output --partial $'\e[32m= queen/q-00a1: done'
    run -0 --separate-stderr diagram text <"$D/story.script"
    refute_output --partial $'\e'
}

@test "diagram: text cuts long names in the middle, and labels at the width" {
    local long
    long=$(printf 'n%.0s' {1..60})
    run -0 --separate-stderr diagram text <<EOF
a	$long-a	b	$(printf 'l%.0s' {1..120})
a	b	$long-c	x
EOF
    assert_line --index 0 --regexp '^ +n{9}\.\.\.n{6}-a +b +n{9}\.\.\.n{6}-c$'
    assert_line --index 1 --regexp '^ +\|-+>\| l+\.\.\.$'
    [ "${#lines[1]}" -eq 80 ] || fail "${#lines[1]} columns"
}

@test "diagram: an arrow to oneself keeps its label in view, in the text and the SVG" {
    local long
    long=$(printf 'L%.0s' {1..60})
    run -0 --separate-stderr diagram text <<EOF
a	a	b	x
a	b	b	$long
EOF
    assert_line --index 2 --regexp '\|<-\+ L+$'
    local short wide
    short=$(printf 'a\ta\tb\tx\na\tb\tb\ty\n' | diagram svg 2>/dev/null | svg_size /dev/stdin)
    wide=$(printf 'a\ta\tb\tx\na\tb\tb\t%s\n' "$long" | diagram svg 2>/dev/null | svg_size /dev/stdin)
    [ "${wide% *}" -gt "${short% *}" ] || fail "a long label to oneself did not widen the picture: $short, $wide"
}

# ---- Mermaid ----

# Every line of a Mermaid document is one of the lines the writer writes, with its texts made of
# plain characters, #NN; references and UTF-8 beyond ASCII only.
MERMAID_TEXT='([A-Za-z0-9 ./_-]|#[0-9]+;|[^[:print:][:cntrl:]])*'
# A message's time, its date where it changes, and its delta, which the writer puts before a label.
WHEN='(([0-9]{4}-[0-9]{2}-[0-9]{2} )?[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{3})?( [+-][0-9dhms.]+)? )?'
MERMAID_LINE="^(sequenceDiagram|    title $MERMAID_TEXT|    participant p[0-9]+ as $MERMAID_TEXT|    p[0-9]+->>p[0-9]+: $WHEN$MERMAID_TEXT|    Note over p[0-9]+(,p[0-9]+)?: $MERMAID_TEXT|    rect rgb\\([0-9]+, [0-9]+, [0-9]+\\)|    end)\$"

@test "diagram: hostile Mermaid keeps to its grammar, exact counts (property)" {
    make_hostile mermaid mmd "${SEEDS[@]}"
    local seed f
    for seed in "${SEEDS[@]}"; do
        f=$BATS_TEST_TMPDIR/h.$seed.mmd
        run -1 env LC_ALL=C grep -vE "$MERMAID_LINE" "$f"
        [ -z "$output" ] || fail "seed $seed: unexpected lines: $output"
        iconv -f UTF-8 -t UTF-8 "$f" >/dev/null || fail "seed $seed: not UTF-8"
        [ "$(count '^    p[0-9]+->>' "$f")" -eq 60 ] || fail "seed $seed: arrows"
        [ "$(count '^    participant ' "$f")" -eq "$(participants_of "$seed")" ] || fail "seed $seed: participants"
        [ "$(count '^    rect ' "$f")" -eq "$(count '^    end$' "$f")" ] || fail "seed $seed: rect without end"
        # No bidi control or line separator reaches the source.
        [ "$(count $'\xe2\x80[\xa8-\xae]' "$f")" -eq 0 ] || fail "seed $seed: bidi or separator"
    done
}

# The Mermaid renderer, with Debian's chromium as its browser.
need_mmdc() {
    [ -x "$MMDC" ] || skip "mmdc is not installed (scripts/deps installs @mermaid-js/mermaid-cli into tests/node_modules)"
    [ -x /usr/bin/chromium ] || skip "chromium is not installed (scripts/deps installs it)"
    printf '%s' '{"executablePath":"/usr/bin/chromium","args":["--no-sandbox","--headless","--disable-gpu","--disable-background-networking","--disable-component-update","--disable-sync","--no-first-run"]}' \
        >"$BATS_TEST_TMPDIR/puppeteer.json"
}

# mmdc_render IN OUT: renders with mmdc; fails with its message on a parse error.
mmdc_render() {
    run "$MMDC" -q -p "$BATS_TEST_TMPDIR/puppeteer.json" -i "$1" -o "$2"
    [ "$status" -eq 0 ] && [ -s "$2" ] || fail "mmdc could not render $1: $output"
}

@test "mmdc renders the golden Mermaid: every arrow, one column per agent" {
    need_mmdc
    mmdc_render "$D/exchange.mmd" "$BATS_TEST_TMPDIR/exchange.svg"
    [ "$(count 'class="messageLine[01]"' "$BATS_TEST_TMPDIR/exchange.svg")" -eq 7 ]
    [ "$(count 'class="actor actor-top"' "$BATS_TEST_TMPDIR/exchange.svg")" -eq 3 ]
    # five notes, and the legend's line
    [ "$(count 'class="note"' "$BATS_TEST_TMPDIR/exchange.svg")" -eq 6 ]
    # And a line it cannot parse is an error, so the test can tell a broken diagram.
    printf 'sequenceDiagram\n    participant p1 as a;b\n    p1->>p1: end\n' >"$BATS_TEST_TMPDIR/broken.mmd"
    run "$MMDC" -q -p "$BATS_TEST_TMPDIR/puppeteer.json" -i "$BATS_TEST_TMPDIR/broken.mmd" \
        -o "$BATS_TEST_TMPDIR/broken.svg"
    [ "$status" -ne 0 ] || fail "mmdc took a broken diagram"
}

@test "mmdc renders the story: its arrows, notes, outcomes and legend" {
    need_mmdc
    diagram mermaid "A story" <"$D/story.script" >"$BATS_TEST_TMPDIR/story.mmd" 2>/dev/null
    mmdc_render "$BATS_TEST_TMPDIR/story.mmd" "$BATS_TEST_TMPDIR/story.svg"
    [ "$(count 'class="messageLine[01]"' "$BATS_TEST_TMPDIR/story.svg")" -eq 8 ]
    [ "$(count 'class="actor actor-top"' "$BATS_TEST_TMPDIR/story.svg")" -eq 4 ]
    # a warning, an error, two outcomes, a note and the legend's three lines
    [ "$(count 'class="note"' "$BATS_TEST_TMPDIR/story.svg")" -eq 8 ]
    grep -q '>11:21:42.500 +1.25s propose c1<' "$BATS_TEST_TMPDIR/story.svg"
    grep -q '>queen/q-00a1: done after 1d00h00m10s<' "$BATS_TEST_TMPDIR/story.svg"
}

@test "mmdc renders hostile Mermaid with exactly its arrows and participants (property)" {
    need_mmdc
    make_hostile mermaid mmd "${RENDER_SEEDS[@]}"
    local seed md=$BATS_TEST_TMPDIR/all.md
    # One browser for all of them: a Markdown file with one diagram per seed.
    for seed in "${RENDER_SEEDS[@]}"; do
        printf '```mermaid\n%s```\n\n' "$(cat "$BATS_TEST_TMPDIR/h.$seed.mmd")
" >>"$md"
    done
    mmdc_render "$md" "$BATS_TEST_TMPDIR/out.md"
    local i=0
    for seed in "${RENDER_SEEDS[@]}"; do
        i=$((i + 1))
        local svg=$BATS_TEST_TMPDIR/out-$i.svg
        [ -s "$svg" ] || fail "seed $seed: no picture"
        [ "$(count 'class="messageLine[01]"' "$svg")" -eq 60 ] || fail "seed $seed: arrows"
        [ "$(count 'class="actor actor-top"' "$svg")" -eq "$(participants_of "$seed")" ] ||
            fail "seed $seed: participants"
    done
}

# ---- PlantUML ----

PLANTUML_TEXT='([A-Za-z0-9 .,:_/-]|<U\+[0-9A-F]{4,6}>)*'
# The legend's lines: words of ours, some in colour, about times, anomalies or outcomes.
PLANTUML_LEGEND='(times: |<color:|how each conversation ended)([A-Za-z ,.:()+]|<color:#[0-9A-F]{6}>[a-z]+</color>|#[0-9A-F]{6}>[a-z]+</color>)*'
PLANTUML_LINE="^(@startuml|(title|newpage) $PLANTUML_TEXT|participant \"$PLANTUML_TEXT\" as p[0-9]+|p[0-9]+ -(\\[#[0-9A-F]{6}\\])?> p[0-9]+ : $WHEN$PLANTUML_TEXT|note over p[0-9]+(, p[0-9]+)?( #[0-9A-F]{6})? : $PLANTUML_TEXT|legend|$PLANTUML_LEGEND|endlegend|@enduml)\$"

# plantuml_blocks FILE: a PlantUML file is blocks, each from @startuml to @enduml, the last line
# @enduml; prints how many participants it declares apart (each block its own).
plantuml_blocks() {
    awk '/^@startuml$/ { if (open) exit 1; open = 1; blocks++; next }
         /^@enduml$/ { if (!open) exit 1; open = 0; next }
         !open { exit 1 }
         /^participant / { ids[$NF] = 1 }
         END { if (open || !blocks) exit 1; for (id in ids) n++; print n }' "$1"
}

@test "diagram: hostile PlantUML keeps to its grammar, in ASCII, exact counts (property)" {
    make_hostile plantuml puml "${SEEDS[@]}"
    local seed f
    for seed in "${SEEDS[@]}"; do
        f=$BATS_TEST_TMPDIR/h.$seed.puml
        run -1 env LC_ALL=C grep -vE "$PLANTUML_LINE" "$f"
        [ -z "$output" ] || fail "seed $seed: unexpected lines: $output"
        [ "$(LC_ALL=C grep -c '[^ -~]' "$f")" -eq 0 ] || fail "seed $seed: not ASCII"
        # Creole markup is two of a kind: none of it is left as it is.
        run -1 grep -E -- '--|__|//' "$f"
        # blocks (where the columns are wider than an image) that are blocks
        run -0 plantuml_blocks "$f"
        assert_output "$(participants_of "$seed")"
        [ "$(count '^p[0-9]+ -' "$f")" -eq 60 ] || fail "seed $seed: arrows"
    done
}

need_plantuml() {
    command -v plantuml >/dev/null || skip "plantuml is not installed (scripts/deps installs it)"
}

# plantuml_render FILE...: renders each FILE.puml to FILE.svg; fails on a syntax error, and on the
# error picture PlantUML draws (with status 0) when it breaks down.
plantuml_render() {
    run plantuml -tsvg -failfast2 "$@"
    [ "$status" -eq 0 ] || fail "plantuml: status $status: $output"
    local f
    for f in "$@"; do
        [ -s "${f%.puml}.svg" ] || fail "plantuml drew nothing for $f"
        ! grep -q 'error has occured\|Syntax Error' "${f%.puml}.svg" || fail "plantuml drew an error for $f"
    done
}

@test "plantuml renders the golden PlantUML: every arrow, one column per agent" {
    need_plantuml
    cp "$D/exchange.puml" "$BATS_TEST_TMPDIR/"
    plantuml_render "$BATS_TEST_TMPDIR/exchange.puml"
    # One arrowhead (polygon) per arrow; a box at the top and at the foot of each column, and the
    # legend's.
    [ "$(count '<polygon' "$BATS_TEST_TMPDIR/exchange.svg")" -eq 7 ]
    [ "$(count '<rect' "$BATS_TEST_TMPDIR/exchange.svg")" -eq 7 ]
    # And the check tells a broken diagram.
    printf '@startuml\nparticipant "a"b" as p1\n@enduml\n' >"$BATS_TEST_TMPDIR/broken.puml"
    run plantuml -tsvg -failfast2 "$BATS_TEST_TMPDIR/broken.puml"
    [ "$status" -ne 0 ] || fail "plantuml took a broken diagram"
}

@test "plantuml draws anomalies in colours of their own, not in its default arrows' #A80036" {
    need_plantuml
    diagram plantuml <"$D/story.script" >"$BATS_TEST_TMPDIR/story.puml" 2>/dev/null
    plantuml_render "$BATS_TEST_TMPDIR/story.puml"
    # The arrowheads: four unmarked ones in PlantUML's colour, the cfp's three (a warning) in
    # orange, the result's (an error) in magenta.
    run -0 bash -c "grep -o '<polygon[^>]*>' '$BATS_TEST_TMPDIR/story.svg' | grep -o 'fill=\"#[0-9A-F]*\"' | sort | uniq -c"
    assert_output "      4 fill=\"#A80036\"
      3 fill=\"#B26A00\"
      1 fill=\"#C000C0\""
    # the legend names them
    grep -q '>magenta<' "$BATS_TEST_TMPDIR/story.svg"
}

@test "plantuml renders hostile PlantUML with exactly its arrows and participants (property)" {
    need_plantuml
    make_hostile plantuml puml "${RENDER_SEEDS[@]}"
    local seed files=()
    for seed in "${RENDER_SEEDS[@]}"; do
        files+=("$BATS_TEST_TMPDIR/h.$seed.puml")
    done
    plantuml_render "${files[@]}"
    for seed in "${RENDER_SEEDS[@]}"; do
        local puml=$BATS_TEST_TMPDIR/h.$seed.puml images
        images=("$BATS_TEST_TMPDIR/h.$seed".svg "$BATS_TEST_TMPDIR/h.$seed"_[0-9]*.svg)
        [ "$(cat "${images[@]}" | count '<polygon' /dev/stdin)" -eq 60 ] || fail "seed $seed: arrows"
        # an image a page; on each, a box at each end of each column of its block, and the
        # block's legend where it has marks
        local want
        want=$(awk '/^@startuml$/ { p = 0; l = 0; pages = 1 } /^participant / { p++ } /^newpage / { pages++ }
                    /^legend$/ { l = 1 } /^@enduml$/ { n += pages; r += pages * (2 * p + l) }
                    END { print n, r }' "$puml")
        [ "${#images[@]} $(cat "${images[@]}" | count '<rect' /dev/stdin)" = "$want" ] ||
            fail "seed $seed: ${#images[@]} images, $(cat "${images[@]}" | count '<rect' /dev/stdin) boxes; expected $want"
    done
}

# mmdc_actors SVG N: the names of participants p1 to pN as mmdc drew them, one a line (xmllint
# ends each string with a newline).
mmdc_actors() {
    local i
    for ((i = 1; i <= $2; i++)); do
        xpath "$1" "string(//*[local-name()=\"rect\"][@name=\"p$i\"][contains(@class,\"actor-top\")]/following-sibling::*[local-name()=\"text\"][1])"
    done
}

@test "mmdc draws names that differ differently: no placeholder of its own comes out as & or ;" {
    need_mmdc
    need_xmllint
    lookalike_script | diagram mermaid >"$BATS_TEST_TMPDIR/d.mmd" 2>/dev/null
    mmdc_render "$BATS_TEST_TMPDIR/d.mmd" "$BATS_TEST_TMPDIR/d.svg"
    run -0 mmdc_actors "$BATS_TEST_TMPDIR/d.svg" "${#LOOKALIKES[@]}"
    assert_output "$(shown_lookalikes)"
}

@test "plantuml draws names that differ differently" {
    need_plantuml
    need_xmllint
    lookalike_script | diagram plantuml >"$BATS_TEST_TMPDIR/d.puml" 2>/dev/null
    plantuml_render "$BATS_TEST_TMPDIR/d.puml"
    # Each participant's name at the top and at the foot of its column, in order, then the labels.
    local i n=${#LOOKALIKES[@]}
    for ((i = 1; i <= 2 * n; i += 2)); do
        xpath "$BATS_TEST_TMPDIR/d.svg" "string((//*[local-name()=\"text\"])[$i])"
    done >"$BATS_TEST_TMPDIR/names"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/names")" "$(shown_lookalikes)"
}

# ---- SVG, drawn by the module ----

# check_svg FILE ARROWS PARTICIPANTS: well-formed XML 1.0 in UTF-8; exactly its arrows and
# participants; one lifeline per column, apart; every arrow starts and ends on a lifeline.
check_svg() {
    local f=$1
    xmllint --noout "$f" || fail "not well-formed XML"
    iconv -f UTF-8 -t UTF-8 "$f" >/dev/null || fail "not UTF-8"
    [ "$(xpath "$f" 'count(//*[local-name()="g"][@class="arrow"])')" -eq "$2" ] || fail "arrows"
    [ "$(xpath "$f" 'count(//*[local-name()="g"][@class="participant"])')" -eq "$3" ] || fail "participants"
    local lifelines starts tips
    lifelines=$(xpath "$f" '//*[@class="lifeline"]/@x1' | grep -o '"[0-9]*"' | tr -d '"' | sort -n)
    [ "$(printf '%s\n' "$lifelines" | grep -c .)" -eq "$3" ] || fail "lifelines"
    [ "$(printf '%s\n' "$lifelines" | sort -u | grep -c .)" -eq "$3" ] || fail "two lifelines on one column"
    # The start of each arrow's path and the tip of its head are lifelines.
    starts=$(xpath "$f" '//*[@class="arrow"]/*[local-name()="path"]/@d' | sed -n 's/.*d="M\([0-9]*\) .*/\1/p')
    tips=$(xpath "$f" '//*[@class="arrow"]/*[local-name()="polygon"]/@points' | sed -n 's/.*points="\([0-9]*\),.*/\1/p')
    [ "$(printf '%s\n' "$starts" | grep -c .)" -eq "$2" ] || fail "arrow paths"
    [ "$(printf '%s\n' "$tips" | grep -c .)" -eq "$2" ] || fail "arrow heads"
    run comm -23 <(printf '%s\n%s\n' "$starts" "$tips" | sort -u) <(printf '%s\n' "$lifelines" | sort -u)
    [ -z "$output" ] || fail "an arrow off the columns: $output"
}

@test "diagram: the golden SVG holds its arrows, columns, marks and tooltips" {
    need_xmllint
    check_svg "$D/exchange.svg" 7 3
    # Marked arrows in colour, every finding in the arrow's tooltip and under the arrow.
    [ "$(xpath "$D/exchange.svg" 'count(//*[@id="arrow-5"]/*[local-name()="path"][@stroke="#c000c0"])')" -eq 1 ]
    [ "$(xpath "$D/exchange.svg" 'count(//*[@id="arrow-2"]/*[local-name()="path"][@stroke="#b26a00"])')" -eq 1 ]
    run -0 xpath "$D/exchange.svg" 'string(//*[@id="arrow-5"]/*[local-name()="title"])'
    assert_output "inform r1
error: fipa-reply: inform answers no open request
warning: fipa-late: inform 40 s after the request"
    run -0 xpath "$D/exchange.svg" '//*[@id="arrow-5"]/*[@class="diagnostic"]'
    assert_output '<text class="diagnostic" x="306" y="274" fill="#c000c0">error: fipa-reply: inform answers no open request</text>
<text class="diagnostic" x="306" y="290" fill="#b26a00">warning: fipa-late: inform 40 s after the request</text>'
}

@test "diagram: the SVG's rows name their line (and file, with several) and time; outcomes and legend" {
    need_xmllint
    local f=$BATS_TEST_TMPDIR/story.svg
    diagram svg <"$D/story.script" >"$f" 2>/dev/null
    check_svg "$f" 8 4
    run -0 xpath "$f" '//*[@class="when"]/text()'
    assert_output 'colony.jsonl:1  2011-08-02 11:21:40
colony.jsonl:2  11:21:41 +1s
colony.jsonl:3  11:21:41.250
colony.jsonl:4  11:21:42.500 +1.25s
colony.jsonl:5  11:21:43
fipa.jsonl:1  2011-08-03 11:21:50 +1d00h00m08s'
    run -0 xpath "$f" 'string(//*[@id="arrow-1"]/*[local-name()="title"])'
    assert_output $'colony.jsonl:1  2011-08-02 11:21:40\ntask.assign q-00a1'
    run -0 xpath "$f" '//*[@class="outcome"]/*[local-name()="rect"]/@fill'
    assert_output ' fill="#fff59d"
 fill="#c8e6c9"'
    run -0 xpath "$f" 'count(//*[@class="legend"]/*[local-name()="text"])'
    assert_output 3
    # one file: its lines alone
    grep -v fipa.jsonl "$D/story.script" | sed 's/\tcolony.jsonl\t/\tc.jsonl\t/' | diagram svg >"$BATS_TEST_TMPDIR/one.svg" 2>/dev/null
    run -0 xpath "$BATS_TEST_TMPDIR/one.svg" 'string(//*[@class="when"])'
    assert_output '1  2011-08-02 11:21:40'
}

@test "diagram: hostile SVG is well-formed XML with exactly its arrows and columns (property)" {
    need_xmllint
    make_hostile svg svg "${SEEDS[@]}"
    local seed
    for seed in "${SEEDS[@]}"; do
        echo "seed $seed"
        check_svg "$BATS_TEST_TMPDIR/h.$seed.svg" 60 "$(participants_of "$seed")"
    done
}

@test "diagram: the SVG is self-contained: no script, style sheet, font, link or image" {
    make_hostile svg svg 1 2 3
    local f
    for f in "$D/exchange.svg" "$BATS_TEST_TMPDIR"/h.*.svg; do
        run -1 grep -iE '<(script|style|image|foreignObject|a|use|link)[ >]|href|@import|url\(|@font-face' "$f"
    done
}

@test "diagram: the SVG's size follows its columns and arrows" {
    local base wider taller
    base=$(printf 'a\ta\tb\tx\n' | diagram svg | svg_size /dev/stdin)
    wider=$(printf 'a\ta\tb\tx\np\tc\n' | diagram svg | svg_size /dev/stdin)
    taller=$(printf 'a\ta\tb\tx\na\tb\ta\ty\n' | diagram svg | svg_size /dev/stdin)
    # A column is 110 px at least; an arrow a row of 30 px.
    [ "${wider% *}" -eq $((${base% *} + 110)) ] || fail "base $base, one more column $wider"
    [ "${wider#* }" -eq "${base#* }" ] || fail "a column changed the height"
    [ "${taller#* }" -eq $((${base#* } + 30)) ] || fail "base $base, one more arrow $taller"
    # Long names widen the columns, and are cut in the middle to 24 characters with the whole name
    # in a tooltip.
    local long
    long=$(printf 'N%.0s' {1..80})
    printf 'a\t%s\tb\tx\n' "$long" | diagram svg >"$BATS_TEST_TMPDIR/long.svg"
    need_xmllint
    run -0 xpath "$BATS_TEST_TMPDIR/long.svg" 'string(//*[@id="participant-1"]/*[local-name()="text"])'
    assert_output "NNNNNNNNNNN...NNNNNNNNNN"
    run -0 xpath "$BATS_TEST_TMPDIR/long.svg" 'string(//*[@id="participant-1"]/*[local-name()="title"])'
    assert_output "$long"
}

need_rsvg() {
    command -v rsvg-convert >/dev/null || skip "rsvg-convert is not installed (scripts/deps installs librsvg2-bin)"
}

@test "rsvg-convert renders the golden and hostile SVG at their own size" {
    need_rsvg
    make_hostile svg svg "${RENDER_SEEDS[@]}"
    local f
    for f in "$D/exchange.svg" "$BATS_TEST_TMPDIR"/h.*.svg; do
        run rsvg-convert -o "$BATS_TEST_TMPDIR/out.png" "$f"
        [ "$status" -eq 0 ] || fail "rsvg-convert failed on $f: $output"
        [ "$(png_size "$BATS_TEST_TMPDIR/out.png")" = "$(svg_size "$f")" ] ||
            fail "$f: picture $(png_size "$BATS_TEST_TMPDIR/out.png"), declared $(svg_size "$f")"
    done
}

@test "headless chromium opens the SVG with nothing else and takes its screenshot" {
    [ -x /usr/bin/chromium ] || skip "chromium is not installed (scripts/deps installs it)"
    local size w h
    size=$(svg_size "$D/exchange.svg")
    w=${size% *} h=${size#* }
    run timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$BATS_TEST_TMPDIR/profile" --hide-scrollbars \
        --window-size="$w,$h" --screenshot="$BATS_TEST_TMPDIR/shot.png" "file://$D/exchange.svg"
    [ -s "$BATS_TEST_TMPDIR/shot.png" ] || fail "no screenshot: $output"
    [ "$(png_size "$BATS_TEST_TMPDIR/shot.png")" = "$w $h" ]
}

# ---- Pages: within what each renderer takes by default ----

# many_script N [RECEIVERS]: N messages, a second apart, among 6 agents, every 7th with a warning.
many_script() {
    awk -v n="$1" 'BEGIN {
        for (i = 1; i <= n; i++) {
            printf "t\t%d\t1\tcapture.jsonl\t%d\n", 1312284100 + i, i
            printf "a\tagent-%d\tagent-%d\ttask.assign q-%04x\n", i % 6, (i + 1) % 6, i
            if (i % 7 == 0)
                printf "m\t%d\twarning\tw: finding %d\n", i, i
        }
    }'
}

# blocks FILE: the fenced mermaid blocks of a Markdown file, each into FILE.N (from 1); prints N.
blocks() {
    awk -v f="$1" '/^```mermaid$/ { n++; on = 1; next } /^```$/ { on = 0; next } on { print > (f "." n) }
        END { print n }' "$1"
}

@test "diagram: --page-size=N: pages of N messages at most, in every format, each arrow on one" {
    many_script 35 >"$BATS_TEST_TMPDIR/s"
    local out=$BATS_TEST_TMPDIR/d i n
    # Mermaid: a Markdown document, a block a page, each with the columns it draws
    diagram --fit --page-size=10 mermaid Many <"$BATS_TEST_TMPDIR/s" >"$out" 2>"$out.err"
    assert_equal "$(tail -1 "$out.err")" "pages 4 too-big 0 width 0 height 0"
    n=$(blocks "$out")
    [ "$n" -eq 4 ] || fail "$n blocks"
    for ((i = 1; i <= 4; i++)); do
        [ "$(head -2 "$out.$i" | tail -1)" = "    title Many - page $i of 4" ] || fail "block $i: title"
        [ "$(count '^    p[0-9]+->>' "$out.$i")" -le 10 ] || fail "block $i: more than 10 arrows"
        # the columns it declares are those its arrows and notes name
        diff <(sed -n 's/^    participant \(p[0-9]*\) as .*/\1/p' "$out.$i" | sort) \
            <(grep -oE 'p[0-9]+' <(grep -E '^    (p[0-9]+->>|Note over)' "$out.$i") | sort -u) ||
            fail "block $i: its columns"
    done
    [ "$(cat "$out".[1-4] | count '^    p[0-9]+->>' /dev/stdin)" -eq 35 ]
    # a --page-size that one page holds is still Markdown, a block (issue 38: mmdc -i flow.md
    # wrote nothing for a bare diagram)
    diagram --page-size=100 mermaid Many <"$BATS_TEST_TMPDIR/s" >"$out" 2>/dev/null
    [ "$(blocks "$out")" -eq 1 ] || fail "not one block: $(head -3 "$out")"
    [ "$(tail -1 "$out")" = '```' ] || fail "no end of the block"
    diagram mermaid Many <"$BATS_TEST_TMPDIR/s" >"$out" 2>/dev/null
    [ "$(head -1 "$out")" = sequenceDiagram ] || fail "without --page-size: $(head -1 "$out")"
    # PlantUML: newpage within blocks of two pages
    diagram --page-size=10 plantuml Many <"$BATS_TEST_TMPDIR/s" >"$out" 2>/dev/null
    [ "$(count '^@startuml$' "$out")" -eq 2 ] && [ "$(count '^newpage Many - page [24] of 4$' "$out")" -eq 2 ] ||
        fail "$(grep -E '^(@startuml|newpage|title)' "$out")"
    [ "$(count '^p[0-9]+ -' "$out")" -eq 35 ]
    awk '/^(@startuml|newpage)/ { if (n > 10) bad = 1; n = 0 } /^p[0-9]+ -/ { n++ } END { exit bad || n > 10 }' "$out" ||
        fail "a PlantUML page of more than 10 arrows"
    # SVG: pages side by side, each framed
    diagram --fit --page-size=10 svg Many <"$BATS_TEST_TMPDIR/s" >"$out" 2>"$out.err"
    need_xmllint
    [ "$(xpath "$out" 'count(//*[@class="page"])')" -eq 4 ]
    [ "$(xpath "$out" 'count(//*[@class="arrow"])')" -eq 35 ]
    for ((i = 1; i <= 4; i++)); do
        [ "$(xpath "$out" "count(//*[@id=\"page-$i\"]//*[@class=\"arrow\"])")" -le 10 ] || fail "SVG page $i"
    done
}

@test "diagram: the SVG's pages lie apart, within the picture, rows of them about as wide as high" {
    need_xmllint
    many_script 300 | diagram --fit svg >"$BATS_TEST_TMPDIR/d.svg" 2>"$BATS_TEST_TMPDIR/err"
    local w h
    read -r w h < <(svg_size "$BATS_TEST_TMPDIR/d.svg")
    assert_equal "$(tail -1 "$BATS_TEST_TMPDIR/err")" "pages 3 too-big 0 width $w height $h"
    # every page's box: inside the picture, none over another
    xpath "$BATS_TEST_TMPDIR/d.svg" '//*[@class="page"]/@transform | //*[@class="frame"]/@width | //*[@class="frame"]/@height' |
        grep -oE '[0-9]+' | paste - - - - >"$BATS_TEST_TMPDIR/boxes"
    run awk -v w="$w" -v h="$h" '
        { x[NR] = $1; y[NR] = $2; pw[NR] = $3; ph[NR] = $4
          if ($1 + $3 > w || $2 + $4 > h) { print "page " NR " outside"; bad = 1 } }
        END { for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
                  if (x[i] < x[j] + pw[j] && x[j] < x[i] + pw[i] && y[i] < y[j] + ph[j] && y[j] < y[i] + ph[i]) {
                      print "pages " i " and " j " overlap"; bad = 1 }
              exit bad }' "$BATS_TEST_TMPDIR/boxes"
    [ "$status" -eq 0 ] || fail "$output"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/boxes")" -eq 3 ]
    # each page at most 4,000 pixels high
    run -0 awk '$4 > 4000' "$BATS_TEST_TMPDIR/boxes"
    assert_output ""
}

@test "diagram: Mermaid's pages stay under its maxTextSize, 50,000 characters" {
    many_script 3000 | diagram --fit mermaid >"$BATS_TEST_TMPDIR/d.md" 2>"$BATS_TEST_TMPDIR/err"
    local n i
    n=$(blocks "$BATS_TEST_TMPDIR/d.md")
    [ "$n" -ge 3 ] || fail "$n pages"
    for ((i = 1; i <= n; i++)); do
        [ "$(LC_ALL=C.UTF-8 wc -m <"$BATS_TEST_TMPDIR/d.md.$i")" -le 50000 ] || fail "page $i: too long"
    done
    [ "$(cat "$BATS_TEST_TMPDIR"/d.md.* | count '^    p[0-9]+->>' /dev/stdin)" -eq 3000 ]
    # one page, as it always was: no Markdown
    many_script 20 | diagram mermaid >"$BATS_TEST_TMPDIR/one" 2>/dev/null
    [ "$(head -1 "$BATS_TEST_TMPDIR/one")" = sequenceDiagram ]
}

@test "diagram: a message to more receivers than a page holds: as many arrows a page as fit, its note after the last" {
    local i receivers=()
    for ((i = 1; i <= 60; i++)); do receivers+=("forager-with-a-long-name-$i"); done
    {
        printf 'a\tqueen\tforager-with-a-long-name-1\tbefore\n'
        printf 'g\tqueen\tcfp c1'
        printf '\t%s' "${receivers[@]}"
        printf '\nm\t2\twarning\tw: once\na\tqueen\tforager-with-a-long-name-1\tafter\n'
    } >"$BATS_TEST_TMPDIR/s"
    diagram --fit plantuml <"$BATS_TEST_TMPDIR/s" >"$BATS_TEST_TMPDIR/d" 2>"$BATS_TEST_TMPDIR/err"
    # PlantUML: 61 columns are wider than an image; blocks of fewer
    [ "$(count '^@startuml$' "$BATS_TEST_TMPDIR/d")" -ge 3 ] || fail "$(cat "$BATS_TEST_TMPDIR/err")"
    [ "$(count '^p1 -\[#B26A00\]> p[0-9]+ : cfp c1$' "$BATS_TEST_TMPDIR/d")" -eq 60 ]
    [ "$(count 'w: once' "$BATS_TEST_TMPDIR/d")" -eq 1 ]
    # the note comes after the last of its arrows, the next message after it
    run -0 grep -nE 'cfp c1$|w: once|: after$' "$BATS_TEST_TMPDIR/d"
    assert_line --index 60 --regexp ':note over p1, p[0-9]+ #FFE0B2 : warning: w: once$'
    assert_line --index 61 --regexp ': after$'
    # no block's columns wider than PlantUML's image, as estimated: at most 4,000 pixels
    awk '/^@startuml/ { n = 0 } /^participant/ { n++ } /^@enduml/ { if (n > 30) exit 1 }' "$BATS_TEST_TMPDIR/d"
}

# ---- acp-trace's diagrams of a hostile capture ----

# HOSTILE_NAMES and hostile_capture: test_helper.bash.

@test "acp-trace: hostile names, ids and titles keep every diagram to its grammar" {
    need_xmllint
    local f=$BATS_TEST_TMPDIR/hostile.jsonl d=$BATS_TEST_TMPDIR/d arrows participants follow
    hostile_capture >"$f"
    arrows=$(acp-trace --format=stats "$f" 2>/dev/null | jq .messages)
    participants=$((${#HOSTILE_NAMES[@]} + 1))
    [ "$arrows" -eq $((4 * ${#HOSTILE_NAMES[@]})) ] || fail "$arrows messages traced"
    for follow in "" "${HOSTILE_NAMES[@]}"; do
        local opts=()
        [ -z "$follow" ] || { opts=(--follow="$follow"); arrows=1 participants=2; }
        acp-trace "${opts[@]}" --format=mermaid "$f" >"$d.mmd" 2>/dev/null
        run -1 env LC_ALL=C grep -vE "$MERMAID_LINE" "$d.mmd"
        [ -z "$output" ] || fail "${follow@Q}: Mermaid lines off its grammar: $output"
        [ "$(count '^    p[0-9]+->>' "$d.mmd")" -eq "$arrows" ] || fail "${follow@Q}: Mermaid arrows"
        [ "$(count '^    participant ' "$d.mmd")" -eq "$participants" ] || fail "${follow@Q}: Mermaid participants"
        [ "$(count $'\xe2\x80[\xa8-\xae]' "$d.mmd")" -eq 0 ] || fail "${follow@Q}: bidi or separator in Mermaid"
        acp-trace "${opts[@]}" --format=plantuml "$f" >"$d.puml" 2>/dev/null
        run -1 env LC_ALL=C grep -vE "$PLANTUML_LINE" "$d.puml"
        [ -z "$output" ] || fail "${follow@Q}: PlantUML lines off its grammar: $output"
        run -1 grep -E -- '--|__|//' "$d.puml"
        [ "$(LC_ALL=C grep -c '[^ -~]' "$d.puml")" -eq 0 ] || fail "${follow@Q}: PlantUML not ASCII"
        run -0 plantuml_blocks "$d.puml"
        [ "$output" -eq "$participants" ] || fail "${follow@Q}: PlantUML blocks, participants $output"
        [ "$(count '^p[0-9]+ -' "$d.puml")" -eq "$arrows" ] || fail "${follow@Q}: PlantUML arrows"
        acp-trace "${opts[@]}" --format=svg "$f" >"$d.svg" 2>/dev/null
        check_svg "$d.svg" "$arrows" "$participants"
        [ "$(xpath "$d.svg" 'count(//*[local-name()="script"])')" -eq 0 ] || fail "${follow@Q}: a script in the SVG"
        acp-trace "${opts[@]}" --format=text "$f" >"$d.txt" 2>/dev/null
        [ "$(LC_ALL=C grep -c '[^ -~]' "$d.txt")" -eq 0 ] || fail "${follow@Q}: the text diagram is not printable ASCII"
    done
}

# ---- A capture of 2,000 messages, drawn whole by each renderer ----

# capture2000 FORMAT: acp-trace's diagram of a colony capture of 2,000 messages, into big.EXT;
# sets ARROWS to how many arrows it has.
# Under ASan the pages capture2000 had acp-trace write are what counts: each renderer's minute
# over them is spent in the other runs.
renderer_spared() {
    [ "${ACP_UNDER-}" = AddressSanitizer ]
}

capture2000() {
    local format=$1 ext=$2
    "$ACP_BUILD/gen-colony" 2000 8 7 >"$BATS_TEST_TMPDIR/big.jsonl"
    acp-trace --format=plantuml "$BATS_TEST_TMPDIR/big.jsonl" 2>/dev/null | count '^p[0-9]+ -' /dev/stdin >"$BATS_TEST_TMPDIR/arrows" || true
    ARROWS=$(cat "$BATS_TEST_TMPDIR/arrows")
    [ "$ARROWS" -ge 2000 ] || fail "$ARROWS arrows"
    acp-trace --format="$format" "$BATS_TEST_TMPDIR/big.jsonl" >"$BATS_TEST_TMPDIR/big.$ext" 2>"$BATS_TEST_TMPDIR/big.err" || true
    run -1 grep -F '[trace-diagram-size]' "$BATS_TEST_TMPDIR/big.err"
}

@test "mmdc draws a 2,000-message capture whole: a page an image, each under maxTextSize" {
    skip_under valgrind "a renderer over 2,000 messages"
    need_mmdc
    capture2000 mermaid md
    renderer_spared && return 0
    local f pages=0 lines=0
    mmdc_render "$BATS_TEST_TMPDIR/big.md" "$BATS_TEST_TMPDIR/out.md"
    for f in "$BATS_TEST_TMPDIR"/out-*.svg; do
        pages=$((pages + 1))
        ! grep -q 'Maximum text size' "$f" || fail "$f: Maximum text size in diagram exceeded"
        lines=$((lines + $(count 'class="messageLine[01]"' "$f")))
    done
    [ "$pages" -eq "$(count '^```mermaid$' "$BATS_TEST_TMPDIR/big.md")" ] && [ "$pages" -gt 1 ] || fail "$pages pictures"
    [ "$lines" -eq "$ARROWS" ] || fail "$lines arrows drawn of $ARROWS"
}

@test "plantuml draws a 2,000-message capture whole: a page an image, each within 4,096 pixels" {
    skip_under valgrind "a renderer over 2,000 messages"
    need_plantuml
    capture2000 plantuml puml
    renderer_spared && return 0
    plantuml_render "$BATS_TEST_TMPDIR/big.puml"
    local f pages=0 heads=0 size
    for f in "$BATS_TEST_TMPDIR"/big*.svg; do
        pages=$((pages + 1))
        heads=$((heads + $(count '<polygon' "$f")))
        size=$(grep -o 'width:[0-9]*px;height:[0-9]*px' "$f" | head -1)
        [[ $size =~ width:([0-9]+)px\;height:([0-9]+)px ]] && [ "${BASH_REMATCH[1]}" -le 4096 ] &&
            [ "${BASH_REMATCH[2]}" -le 4096 ] || fail "$f: $size"
    done
    [ "$pages" -eq $(($(count '^@startuml$' "$BATS_TEST_TMPDIR/big.puml") + $(count '^newpage ' "$BATS_TEST_TMPDIR/big.puml"))) ] ||
        fail "$pages pictures"
    [ "$heads" -eq "$ARROWS" ] || fail "$heads arrowheads of $ARROWS"
}

@test "rsvg-convert draws a 2,000-message capture whole, its pages in one picture" {
    skip_under valgrind "a renderer over 2,000 messages"
    need_rsvg
    capture2000 svg svg
    renderer_spared && return 0
    run rsvg-convert -o "$BATS_TEST_TMPDIR/big.png" "$BATS_TEST_TMPDIR/big.svg"
    [ "$status" -eq 0 ] || fail "rsvg-convert: $output"
    [ "$(png_size "$BATS_TEST_TMPDIR/big.png")" = "$(svg_size "$BATS_TEST_TMPDIR/big.svg")" ]
    [ "$(count '<g class="arrow"' "$BATS_TEST_TMPDIR/big.svg")" -eq "$ARROWS" ]
}

@test "headless chromium draws a 2,000-message capture whole" {
    skip_under valgrind "a renderer over 2,000 messages"
    [ -x /usr/bin/chromium ] || skip "chromium is not installed (scripts/deps installs it)"
    capture2000 svg svg
    renderer_spared && return 0
    local w h
    read -r w h < <(svg_size "$BATS_TEST_TMPDIR/big.svg")
    # A blank picture of the same size, for the size of a screenshot of nothing.
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="%s" height="%s" fill="#ffffff"/></svg>\n' \
        "$w" "$h" "$w" "$h" >"$BATS_TEST_TMPDIR/blank.svg"
    local f
    for f in big blank; do
        # the whole picture in one screenshot, at half its size (chromium's smallest scale)
        run timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$BATS_TEST_TMPDIR/profile" --hide-scrollbars --force-device-scale-factor=0.5 \
            --window-size="$w,$h" --screenshot="$BATS_TEST_TMPDIR/$f.png" "file://$BATS_TEST_TMPDIR/$f.svg"
        [ -s "$BATS_TEST_TMPDIR/$f.png" ] || fail "no screenshot of $f: $output"
        [ "$(png_size "$BATS_TEST_TMPDIR/$f.png")" = "$(((w + 1) / 2)) $(((h + 1) / 2))" ] ||
            fail "$f: $(png_size "$BATS_TEST_TMPDIR/$f.png") for $w $h"
    done
    # what it drew is no blank page
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/big.png")" -gt $((20 * $(stat -c %s "$BATS_TEST_TMPDIR/blank.png"))) ]
}

# The times between arrows (+0.25s, 1m05s, 1d02h03m04s) are written by hand, two a message: the
# same text snprintf wrote, at every unit's edge and rounding, negative, past 10^15 s, and cut
# to any buffer as snprintf cuts.
@test "diagrams write the time between arrows as snprintf did, at every size and edge" {
    run -0 "$ACP_BUILD/tests/durations" 20000
    assert_output --regexp '^checked [0-9]+, differ 0$'
}

# A diagram finds its first few participants of short names one by one, then through a map of
# their keys (the HTML report makes one a conversation): agents met again after the change, and
# a long name among them (told apart by its digest), keep their one column each.
@test "diagrams: agents met again after the eighth, and a long name, keep one column each" {
    local long lines=() i
    long=$(printf 'forager-%0200d' 7)
    for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
        lines+=("{\"v\":\"1.1\",\"id\":\"m-0000$i\",\"from\":\"forager-$i\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":1700000000,\"body\":{\"slots\":1}}")
    done
    lines+=("{\"v\":\"1.1\",\"id\":\"m-000013\",\"from\":\"$long\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":1700000001,\"body\":{\"slots\":1}}")
    for i in 01 05 09 12; do
        lines+=("{\"v\":\"1.1\",\"id\":\"m-0001$i\",\"from\":\"forager-$i\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":1700000002,\"body\":{\"slots\":1}}")
    done
    lines+=("{\"v\":\"1.1\",\"id\":\"m-000113\",\"from\":\"$long\",\"to\":\"queen\",\"kind\":\"hb\",\"ts\":1700000003,\"body\":{\"slots\":1}}")
    f=$(lines_file "${lines[@]}")
    acp-trace --format=svg "$f" >"$BATS_TEST_TMPDIR/d.svg"
    run -0 grep -c '<g class="participant"' "$BATS_TEST_TMPDIR/d.svg"
    assert_output 14
    run -0 grep -c '<g class="arrow"' "$BATS_TEST_TMPDIR/d.svg"
    assert_output 18
}
