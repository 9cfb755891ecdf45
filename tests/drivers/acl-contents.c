/* acl-contents: a test driver that prints the :content of every message of a file of the FIPA
 * string form, as the reader splits the file and the parser reads a content (acl_content_text):
 * one line a message, its content as a JSON string of ASCII (so that every byte shows), or null
 * for a message without one (or with an expression for its content). A record that is no
 * message prints nothing. So two files' contents compare byte for byte with cmp or diff.
 * Usage: acl-contents FILE */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/jsonout.h"
#include "io/reader.h"
#include "proto/acl.h"

enum { MAX_MESSAGE = 1 << 24 };

static void print_content(const struct record *rec, struct strbuf *text, struct strbuf *line)
{
    sb_reset(line);
    if (!acl_content_text(rec, text)) {
        puts("null");
        return;
    }
    struct jsonout w;
    /* not JSONOUT_VALID: a content that is no valid UTF-8 shows as U+FFFD, not as its bytes */
    jsonout_init(&w, line, JSONOUT_ASCII);
    jsonout_string(&w, text->buf ? text->buf : "", text->len);
    puts(line->buf);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: acl-contents FILE\n", stderr);
        return 2;
    }
    struct reader_hooks hooks = {0};
    struct reader *r = reader_open(argv[1], argv[1], MAX_MESSAGE, READ_ACL, &hooks);
    if (!r) {
        fprintf(stderr, "acl-contents: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;
    struct record rec;
    int got;
    while ((got = reader_next(r, &rec)) == 1)
        if (rec.kind == REC_LINE && rec.message)
            print_content(&rec, &text, &line);
    reader_close(r);
    sb_free(&text);
    sb_free(&line);
    if (got < 0) {
        fprintf(stderr, "acl-contents: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
