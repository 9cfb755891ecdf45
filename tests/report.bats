# acp-trace --format=html: one self-contained page (its script and style inline, allowed by their
# SHA-256 in its Content-Security-Policy, common/base/sha256.h), its data a JSON block no input
# can close; then the page in headless Chromium, driven by puppeteer (tests/browser/report.mjs,
# one browser for the whole file): no console error, no request, the counts acp-trace gives,
# a diagram's arrows, a message behind its arrow, hostile names as text.
load test_helper

setup_file() {
    build_test_programs
}

SHA256=${ACP_BUILD:-build}/tests/sha256

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
