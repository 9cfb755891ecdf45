# make install honours PREFIX and DESTDIR and puts every file where its consumer looks.
load test_helper

@test "make install puts binaries, man pages and completions under DESTDIR/PREFIX" {
    command -v make >/dev/null || skip "make is not installed"
    root=$TESTS_DIR/..
    dest=$BATS_TEST_TMPDIR/dest
    run -0 make -s -C "$root" install DESTDIR="$dest" PREFIX=/opt/acp
    for t in $(cd "$ACP_BIN" && ls acp-*); do
        [ -x "$dest/opt/acp/bin/$t" ] || fail "no bin/$t"
        [ -f "$dest/opt/acp/share/man/man1/$t.1" ] || fail "no man1/$t.1"
        [ -f "$dest/opt/acp/share/bash-completion/completions/$t" ] || fail "no bash completion for $t"
        [ -f "$dest/opt/acp/share/zsh/site-functions/_$t" ] || fail "no zsh completion for $t"
        [ -f "$dest/opt/acp/share/fish/vendor_completions.d/$t.fish" ] || fail "no fish completion for $t"
    done
    [ -f "$dest/opt/acp/share/man/man7/acp.7" ]
    # An installed bash completion stands alone: the shared engine is in the file. Its option
    # names in every tool, the value of --color in each that has it.
    for t in $(cd "$ACP_BIN" && ls acp-*); do
        run -0 bash -c '. "$1"; COMP_LINE="$2 $3"; COMP_POINT=${#COMP_LINE} COMP_WORDBREAKS="=:"
            "$(complete -p "$2" | sed "s/.*-F \([^ ]*\) .*/\1/")"; printf "%s\n" "${COMPREPLY[@]}"' \
            _ "$dest/opt/acp/share/bash-completion/completions/$t" "$t" --vers
        assert_output --version
        "$ACP_BIN/$t" --help | grep -q -- --color= || continue
        run -0 bash -c '. "$1"; COMP_LINE="$2 $3"; COMP_POINT=${#COMP_LINE} COMP_WORDBREAKS="=:"
            "$(complete -p "$2" | sed "s/.*-F \([^ ]*\) .*/\1/")"; printf "%s\n" "${COMPREPLY[@]}"' \
            _ "$dest/opt/acp/share/bash-completion/completions/$t" "$t" --color=al
        assert_output always
    done
    run -0 make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/opt/acp
    [ -z "$(find "$dest" -type f)" ] || fail "uninstall left files behind"
}
