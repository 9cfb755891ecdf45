/* sha256: the SHA-256 of standard input (common/base/sha256.h), fed in pieces of N bytes (default
 * the whole input in one piece), in hex as sha256sum writes it, or with --base64 as a
 * Content-Security-Policy source writes it. Usage: sha256 [--base64] [PIECE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "base/util.h"

int main(int argc, char **argv)
{
    int arg = 1;
    int base64 = argc > arg && strcmp(argv[arg], "--base64") == 0;
    arg += base64;
    size_t piece = argc > arg ? strtoul(argv[arg], NULL, 10) : 0;
    struct strbuf in = STRBUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        sb_add(&in, chunk, n);
    if (ferror(stdin)) {
        perror("sha256: stdin");
        return 1;
    }
    struct sha256 h;
    sha256_begin(&h);
    if (piece == 0)
        piece = in.len ? in.len : 1;
    for (size_t at = 0; at < in.len; at += piece)
        sha256_add(&h, in.buf + at, in.len - at < piece ? in.len - at : piece);
    unsigned char digest[SHA256_BYTES];
    sha256_end(&h, digest);
    if (base64) {
        char text[45];
        sha256_base64(digest, text);
        puts(text);
    } else {
        for (size_t i = 0; i < SHA256_BYTES; i++)
            printf("%02x", digest[i]);
        puts("");
    }
    sb_free(&in);
    return fflush(stdout) == 0 ? 0 : 1;
}
