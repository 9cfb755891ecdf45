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

man_options() {
    sed 's/\\-/-/g' "$TESTS_DIR/../man/$1.1" | grep -o -- '--[a-z][a-z-]*[a-z]' | sed 's/^--//' | sort -u
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

@test "the bash completion completes options and their values" {
    [ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
    run -0 --separate-stderr bash -c '
        source /usr/share/bash-completion/bash_completion
        source "$1"
        COMP_WORDS=(acp-validate --proto); COMP_CWORD=1; COMP_LINE="acp-validate --proto"; COMP_POINT=${#COMP_LINE}
        _acp_validate acp-validate --proto acp-validate; printf "%s\n" "${COMPREPLY[@]}"
        COMP_WORDS=(acp-validate --diagnostics ""); COMP_CWORD=2; COMP_LINE="acp-validate --diagnostics "; COMP_POINT=${#COMP_LINE}
        _acp_validate acp-validate "" --diagnostics; printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$TESTS_DIR/../completions/acp-validate.bash"
    assert_line --index 0 -- '--protocol='
    assert_line --index 1 'text'
    assert_line --index 2 'json'
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
