# The man pages and the completions say what --help says: one option list, kept in step.
load test_helper

tools() {
    local t
    for t in "$ACP_BIN"/acp-*; do
        basename "$t"
    done
}

help_options() {
    "$1" --help | sed -n 's/^ \{2,\}\(-[a-z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' | sort -u
}

# (up to its examples, which may run other tools with their options)
man_options() {
    sed '/^\.SH EXAMPLES/,$d; s/\\-/-/g' "$TESTS_DIR/../man/$1.1" | grep -o -- '--[a-z][a-z-]*[a-z]' | sed 's/^--//' | sort -u
}

bash_options() {
    grep -o -- '--[a-z][a-z-]*[a-z]' "$TESTS_DIR/../completions/$1.bash" | sed 's/^--//' | sort -u
}

zsh_options() {
    grep -o -- '--[a-z][a-z-]*[a-z]' "$TESTS_DIR/../completions/_$1" | sed 's/^--//' | sort -u
}

fish_options() {
    sed -n 's/.* -l \([a-z][a-z-]*\).*/\1/p' "$TESTS_DIR/../completions/$1.fish" | sort -u
}

@test "every tool has a man page and bash, zsh and fish completions" {
    local t
    for t in $(tools); do
        [ -f "$TESTS_DIR/../man/$t.1" ] || fail "no man/$t.1"
        [ -f "$TESTS_DIR/../completions/$t.bash" ] || fail "no completions/$t.bash"
        [ -f "$TESTS_DIR/../completions/_$t" ] || fail "no completions/_$t"
        [ -f "$TESTS_DIR/../completions/$t.fish" ] || fail "no completions/$t.fish"
    done
}

@test "man pages list exactly the options of --help" {
    local t
    for t in $(tools); do
        diff <(help_options "$t") <(man_options "$t") || fail "$t: --help (<) and man page (>) differ"
    done
}

@test "bash completions offer exactly the options of --help" {
    local t
    for t in $(tools); do
        diff <(help_options "$t") <(bash_options "$t") || fail "$t: --help (<) and bash (>) differ"
    done
}

@test "zsh completions offer exactly the options of --help" {
    local t
    for t in $(tools); do
        diff <(help_options "$t") <(zsh_options "$t") || fail "$t: --help (<) and zsh (>) differ"
    done
}

@test "fish completions offer exactly the options of --help" {
    local t
    for t in $(tools); do
        diff <(help_options "$t") <(fish_options "$t") || fail "$t: --help (<) and fish (>) differ"
    done
}

# The short options of --help ("-q, --quiet"), "LETTER NAME" a line.
help_short_options() {
    "$1" --help | sed -n 's/^ \{2,\}-\([a-zA-Z]\), --\([a-z][a-z-]*\).*/\1 \2/p' | sort -u
}

@test "-h is --help in every tool" {
    local t
    for t in $(tools); do
        run -0 "$t" -h
        [ "$output" = "$("$t" --help)" ] || fail "$t -h is not --help"
    done
}

@test "man pages and completions give the short letter of each option --help gives one" {
    local t letter name
    for t in $(tools); do
        while read -r letter name; do
            grep -qF -- ".BR \\-$letter \", \" \\-\\-$name" "$TESTS_DIR/../man/$t.1" ||
                fail "$t.1 does not give -$letter for --$name"
            grep -qE -- "^-$letter --$name(=| |\$)" "$TESTS_DIR/../completions/$t.bash" ||
                fail "$t.bash does not give -$letter for --$name"
            grep -qE -- "\\{-$letter\\+?,--$name[=[}]" "$TESTS_DIR/../completions/_$t" ||
                fail "_$t does not give -$letter for --$name"
            grep -qF -- "-s $letter -l $name " "$TESTS_DIR/../completions/$t.fish" ||
                fail "$t.fish does not give -$letter for --$name"
        done < <(help_short_options "$t")
    done
}

# Completions are tested the way the shells run them: bash and zsh interactive on a pty
# (tests/drivers/complete-on-pty), fish through its own completion engine (complete -C). What each
# option's value completes to comes from the table in the tool's bash completion (see
# completions/acp-tools.bash); the tests check that table against --help and the tool, and every
# shell against the table, for every tool and every option that takes a value.

COMPLETIONS=$TESTS_DIR/../completions

# The options of tool $1 that take a value, as --help shows them: "NAME ARG", one a line.
help_value_options() {
    "$1" --help | sed -n 's/^ \{2,\}\(-[a-z], \)\{0,1\}--\([a-z][a-z-]*\)=\([^ ]*\).*/\2 \3/p'
}

# The short letter of option --$2 of tool $1, if it has one.
help_short_option() {
    "$1" --help | sed -n "s/^ \{2,\}-\([a-z]\), --$2[= ].*/\1/p"
}

# The help text of option --$2 of tool $1 (its line, and the next one for a long option name).
help_text() {
    "$1" --help | grep -A1 -- "--$2[= ]"
}

# What the value of --$2 completes to, from tool $1's bash table: words, @file, @code or nothing.
table_spec() {
    bash -c '. "$1"; table=_${2//-/_}_options; _acp_value_spec "${!table}" "--$3"' _ \
        "$COMPLETIONS/$1.bash" "$1" "$2"
}

# The sorted words that --$2 of tool $1 should complete to, in the folder made by completion_dir.
expected_values() {
    local spec
    spec=$(table_spec "$1" "$2")
    case $spec in
    @file) printf '%s\n' alpha.jsonl beta.txt ;;
    @code) { echo list; "$1" --explain=list | cut -d' ' -f1; } | LC_ALL=C sort ;;
    @address) printf '%s\n' tcp: unix: ;;
    '') ;;
    *) printf '%s\n' $spec | LC_ALL=C sort ;;
    esac
}

# A folder to complete file names in.
completion_dir() {
    mkdir -p "$BATS_TEST_TMPDIR/cwd"
    touch "$BATS_TEST_TMPDIR/cwd/alpha.jsonl" "$BATS_TEST_TMPDIR/cwd/beta.txt"
    printf '%s' "$BATS_TEST_TMPDIR/cwd"
}

# Queries for every value completion of every tool, in each form getopt takes (--name=VALUE,
# --name VALUE, and -x VALUE for a short option), each followed by the answer expected; in the
# format of tests/drivers/complete-on-pty.
value_queries() {
    local t name arg short form
    for t in $(tools); do
        while read -r name arg; do
            # every command on PATH: acp-replay's suite tests a prefix instead
            [ "$arg" = COMMAND ] && continue
            short=$(help_short_option "$t" "$name")
            for form in "--$name=" "--$name " ${short:+"-$short "}; do
                printf '> list %s %s\n' "$t" "$form"
                expected_values "$t" "$name"
            done
        done < <(help_value_options "$t")
    done
}

# Queries typing part of an option name, or part of a value, and pressing Tab, each followed by
# the command line expected after it: an option that takes a value is completed with its '=' and
# no space; a value with a space, unless it is the beginning of another value.
tab_queries() {
    local t name arg names values v typed
    for t in $(tools); do
        names=$(help_options "$t")
        while read -r name arg; do
            typed=${name%?}
            [ "$(grep -c -- "^$typed" <<<"$names")" -eq 1 ] || typed=$name
            printf '> tab %s --%s\n%s --%s=\n' "$t" "$typed" "$t" "$name"
            [ "$arg" = COMMAND ] && continue
            values=$(expected_values "$t" "$name")
            [ -n "$values" ] || continue
            v=$(tail -1 <<<"$values")
            # an address goes on after its tcp: or unix:, so no space follows it
            printf '> tab %s --%s=%s\n%s --%s=%s%s\n' "$t" "$name" "${v%?}" "$t" "$name" "$v" \
                "$([ "$arg" != ADDRESS ] && [ "$(grep -c -- "^$v" <<<"$values")" -eq 1 ] && echo ' ')"
        done < <(help_value_options "$t")
    done
}

# The output of value_queries or tab_queries ($1), made once for the tests of this file: a few
# hundred processes each time.
cached() {
    local file=$BATS_FILE_TMPDIR/$1
    [ -s "$file" ] || "$1" >"$file" || return 1
    cat "$file"
}

# Runs the queries in $2 on shell $1 and compares the answers with the ones $2 expects.
check_on_pty() {
    local expected=$BATS_TEST_TMPDIR/expected-$1 got=$BATS_TEST_TMPDIR/got-$1
    printf '%s\n' "$2" >"$expected"
    sed -n 's/^> //p' "$expected" |
        "$TESTS_DIR/drivers/complete-on-pty" "$1" "$COMPLETIONS" "$(completion_dir)" >"$got" ||
        fail "complete-on-pty $1 failed"
    diff -u "$expected" "$got" || fail "$1: the completions (+) differ from the expected (-)"
}

need_pty_shell() {
    # A shell's line editor is what these test, a few seconds a query; the tools' --help they
    # run has ASan's attention in the other suites.
    skip_under AddressSanitizer "the shells are under test here, not the tools"
    command -v tmux >/dev/null || skip "tmux is not installed (scripts/deps installs it)"
    command -v "$1" >/dev/null || skip "$1 is not installed (scripts/deps installs it)"
}

@test "completion tables: every option with a value has its line; the tool accepts every value" {
    local t name arg spec v
    for t in $(tools); do
        while read -r name arg; do
            spec=$(table_spec "$t" "$name") || fail "$t.bash: --$name takes no value"
            case $arg in
            FILE) [ "$spec" = @file ] || fail "$t.bash: --$name=FILE completes to '$spec'" ;;
            CODE) [ "$spec" = @code ] || fail "$t.bash: --$name=CODE completes to '$spec'" ;;
            COMMAND) [ "$spec" = @command ] || fail "$t.bash: --$name=COMMAND completes to '$spec'" ;;
            ADDRESS) [ "$spec" = @address ] || fail "$t.bash: --$name=ADDRESS completes to '$spec'" ;;
            *) [[ $spec != @* ]] || fail "$t.bash: --$name=$arg completes to '$spec'" ;;
            esac
            [[ -z $spec || $spec == @* ]] && continue
            for v in $spec; do
                "$t" --"$name=$v" --help >/dev/null 2>&1 || fail "$t refuses --$name=$v"
                help_text "$t" "$name" | grep -qw -- "$v" || fail "$t --help does not name $v for --$name"
            done
            run -2 "$t" --"$name=no-such-value" --help
        done < <(help_value_options "$t")
    done
}

@test "bash on a pty completes the value of every option, '=' splitting the word as bash does" {
    need_pty_shell bash
    [ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
    check_on_pty bash "$(cached value_queries)"
}

@test "bash on a pty completes values without the bash-completion package too" {
    need_pty_shell bash
    check_on_pty bash-plain "$(cached value_queries)"
}

@test "bash on a pty: Tab completes option names with '=' and values with a space" {
    need_pty_shell bash
    check_on_pty bash "$(cached tab_queries)"
}

@test "bash on a pty: Tab completes values when '=' and ':' are not word breaks" {
    need_pty_shell bash
    local queries
    queries=$(cached tab_queries)
    ACP_WORDBREAKS=$' \t\n"\'><;|&(' check_on_pty bash-plain "$queries"
}

@test "bash on a pty: file names with spaces and colons; only file names after --" {
    need_pty_shell bash
    local dir
    dir=$(completion_dir)
    touch "$dir/my file.jsonl" "$dir/a:b.jsonl" "$dir/--x.jsonl"
    check_on_pty bash "$(
        cat <<'EOF'
> tab acp-validate --output=my
acp-validate --output=my\ file.jsonl 
> tab acp-validate -o my
acp-validate -o my\ file.jsonl 
> tab acp-validate "my
acp-validate "my file.jsonl" 
> tab acp-validate --rejects=a:
acp-validate --rejects=a:b.jsonl 
> tab acp-validate -- --
acp-validate -- --x.jsonl 
> tab acp-validate --max-errors=
acp-validate --max-errors=
EOF
    )"
}

@test "zsh on a pty completes the value of every option; Tab completes names and values" {
    need_pty_shell zsh
    check_on_pty zsh "$(cached value_queries)"
    check_on_pty zsh "$(cached tab_queries)"
}

@test "fish completes the value of every option" {
    command -v fish >/dev/null || skip "fish is not installed (scripts/deps installs it)"
    local expected=$BATS_TEST_TMPDIR/expected got=$BATS_TEST_TMPDIR/got
    cached value_queries >"$expected"
    (cd "$(completion_dir)" && sed -n 's/^> list //p' "$expected" |
        fish --no-config -c '
            for f in $argv; source $f; end
            while read -l q
                echo "> list $q"
                complete -C"$q" | string replace -r "\t.*" "" | string replace -r "^--[a-z-]*=" ""
            end' "$COMPLETIONS"/*.fish) |
        awk '/^> / { close("LC_ALL=C sort"); print; next } { print | "LC_ALL=C sort" } END { close("LC_ALL=C sort") }' >"$got"
    diff -u "$expected" "$got" || fail "fish: the completions (+) differ from the expected (-)"
}

@test "bash and zsh on a pty offer exactly the long options of --help" {
    need_pty_shell bash
    local t o queries=''
    for t in $(tools); do
        queries+="> list $t --"$'\n'
        queries+=$(for o in $(help_options "$t"); do
            help_value_options "$t" | grep -q "^$o " && echo "--$o=" || echo "--$o"
        done | LC_ALL=C sort)$'\n'
    done
    queries=${queries%$'\n'}
    check_on_pty bash-plain "$queries"
    if command -v zsh >/dev/null; then
        check_on_pty zsh "$(sed '/^> /!s/=$//' <<<"$queries")"
    fi
}

# acp-send's kinds and performatives, one a line.
send_kinds() {
    printf '%s\n' ctl.drain ctl.halt hb mem.sync task.accept task.assign task.cancel \
        task.reject task.result tool.query tool.reply
}
send_acts() {
    printf '%s\n' accept_proposal agree cancel cfp confirm counter_propose disconfirm failure \
        inform inform_if inform_ref not_understood propagate propose proxy query_if query_ref \
        refuse reject_proposal request request_when request_whenever subscribe
}

# The queries of acp-send's MEMBER=VALUE operands and their answers, for check_on_pty.
send_member_queries() {
    local kinds acts
    kinds=$(send_kinds)
    acts=$(send_acts)
    printf '%s\n' "> list acp-send kind=" "$kinds" "> list acp-send performative=" "$acts" \
        "> list acp-send to=f kind=" "$kinds" "> list acp-send " kind= performative= \
        "> tab acp-send kind=task.as" "acp-send kind=task.assign " \
        "> tab acp-send performative=inform_r" "acp-send performative=inform_ref "
}

@test "zsh on a pty completes acp-send's kinds and performatives, under a messages format style too" {
    need_pty_shell zsh
    local queries k
    queries=$(send_member_queries)
    check_on_pty zsh "$queries"
    ACP_ZSTYLE="':completion:*:messages' format '%d'" check_on_pty zsh "$queries"
    # every kind and act offered is one the tools know
    for k in $(send_kinds); do
        run --separate-stderr acp-validate --stateless <<<"{\"v\":\"1.1\",\"id\":\"m-000001\",\"from\":\"f\",\"to\":\"queen\",\"kind\":\"$k\",\"ts\":1}"
        [[ $stderr != *iacp-kind-unknown* ]] || fail "$k: $stderr"
    done
    for k in $(send_acts); do
        run --separate-stderr acp-validate --stateless <<<"{\"performative\":\"$k\",\"sender\":\"a\",\"receiver\":\"b\",\"content\":\"x\"}"
        [[ $stderr != *fipa-performative* ]] || fail "$k: $stderr"
    done
}

# Issue 38: bash and fish complete acp-send's members as zsh does.
@test "bash on a pty completes acp-send's kinds and performatives, with and without bash-completion" {
    need_pty_shell bash
    local queries
    queries=$(send_member_queries)
    check_on_pty bash-plain "$queries"
    [ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
    check_on_pty bash "$queries"
}

@test "fish completes acp-send's kinds and performatives" {
    command -v fish >/dev/null || skip "fish is not installed (scripts/deps installs it)"
    local expected=$BATS_TEST_TMPDIR/expected got=$BATS_TEST_TMPDIR/got
    # fish offers the whole argument: the queries' lists with the member's name before each value
    send_member_queries | sed -n '/^> tab /q; p' |
        awk '/^> list / { print; n = split($0, w, " "); name = (w[n] ~ /=$/) ? w[n] : ""; next } { print name $0 }' >"$expected"
    sed -n 's/^> list //p' "$expected" |
        fish --no-config -c '
            source $argv[1]
            while read -l q
                echo "> list $q"
                complete -C"$q" | string replace -r "\t.*" ""
            end' "$TESTS_DIR/../completions/acp-send.fish" |
        awk '/^> / { close("LC_ALL=C sort"); print; next } { print | "LC_ALL=C sort" } END { close("LC_ALL=C sort") }' >"$got"
    diff -u "$expected" "$got" || fail "fish: the completions (+) differ from the expected (-)"
}

@test "the zsh and fish completions parse" {
    if command -v zsh >/dev/null; then
        local f
        for f in "$TESTS_DIR"/../completions/_*; do zsh -n "$f" || fail "zsh: $f"; done
    fi
    if command -v fish >/dev/null; then
        for f in "$TESTS_DIR"/../completions/*.fish; do fish -n "$f" || fail "fish: $f"; done
    fi
    for f in "$TESTS_DIR"/../completions/*.bash; do bash -n "$f" || fail "bash: $f"; done
}

@test "man pages render without warnings" {
    command -v man >/dev/null || skip "man is not installed"
    local page out
    for page in "$TESTS_DIR"/../man/*.[17]; do
        out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "$page: $out"
    done
}

@test "acp(7) documents every diagnostic code, and --explain knows each" {
    local code
    local man7
    man7=$(sed 's/\\-/-/g' "$TESTS_DIR/../man/acp.7")
    for code in $(acp-validate --explain=list | cut -d' ' -f1); do
        grep -q -- "^\.B $code\$" <<<"$man7" || fail "acp.7 lacks $code"
        acp-validate --explain="$code" >/dev/null || fail "--explain=$code failed"
    done
}

@test "every code documented in acp(7) exists" {
    local known code
    known=$(acp-validate --explain=list | cut -d' ' -f1)
    for code in $(sed 's/\\-/-/g' "$TESTS_DIR/../man/acp.7" | sed -n '/^\.SH DIAGNOSTIC CODES/,/^\.SH EXIT/p' | sed -n 's/^\.B \([a-z0-9-]*\)$/\1/p'); do
        grep -qx -- "$code" <<<"$known" || fail "acp.7 documents unknown code $code"
    done
}

@test "--help and --version follow the GNU conventions" {
    local t
    for t in $(tools); do
        run -0 "$t" --help
        assert_line --index 0 --regexp "^Usage: $t "
        run -0 "$t" --version
        assert_line --index 0 --regexp "^$t \(acp-tools\) [0-9]+\.[0-9]+"
    done
}

@test "every man page names the version the tools print" {
    local version page
    version=$(acp-validate --version | sed -n '1s/^acp-validate (acp-tools) //p')
    [ -n "$version" ] || fail "no version in acp-validate --version"
    for page in "$TESTS_DIR"/../man/*.[17]; do
        grep -q "^\.TH .* \"acp-tools $version\" " "$page" || fail "$page does not say acp-tools $version"
    done
    grep -q "^\* Noteworthy changes in release $version\$" "$TESTS_DIR/../NEWS" || fail "NEWS has no section for $version"
}

@test "the recipes run the example agent make builds, examples/forager, and git ignores it" {
    local root="$TESTS_DIR/.." page
    for page in "$root"/README.md "$root"/man/*.[17]; do
        ! grep -n '\./forager' "$page" ||
            fail "$page runs a forager no target builds"
    done
    make -s --no-print-directory -C "$root" -q examples/forager || fail "make leaves examples/forager to build"
    git -C "$root" check-ignore -q examples/forager || fail "git does not ignore examples/forager"
    cd "$root"
    run -0 acp-replay --as=forager-07 --exec=examples/forager examples/iacp-exchange.jsonl
}

@test "every finding in the golden cases has the severity the table of codes gives its code" {
    # The table (--explain=list) is the one source of a code's severity: what the tools print,
    # in text and in JSON, must agree with it, finding by finding.
    local table
    table=$(acp-validate --explain=list | awk '{print $1, $2}')
    run bash -c "cat '$TESTS_DIR'/golden/*/*/stderr 2>/dev/null |
        sed -n 's/^[^ ]*: .*: \(error\|warning\): .* \[\([a-z0-9-]*\)\]\$/\2 \1/p' | sort -u"
    assert_success
    [ "${#lines[@]}" -gt 20 ] || fail "too few findings read: ${#lines[@]}"
    local line
    for line in "${lines[@]}"; do
        grep -qxF -- "$line" <<<"$table" || fail "printed as '$line', the table says: $(grep "^${line%% *} " <<<"$table")"
    done
}

@test "acp(7)'s entry of each code is what --explain says (scripts/man-codes writes them)" {
    command -v python3 >/dev/null || fail "python3 is missing: scripts/deps installs it"
    cd "$TESTS_DIR/.."
    run -0 scripts/man-codes --check "$(dirname "$(command -v acp-validate)")"
}
