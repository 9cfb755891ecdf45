/* One record of the input, as the reader hands it over: a line of JSON, or a message of the FIPA
 * string form that may span lines. Its own header, below the reader, so that the protocols can
 * speak of records without reaching up into input. */
#ifndef ACP_RECORD_H
#define ACP_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct acl_mark;

enum record_kind {
    REC_LINE,     /* a non-blank line (or an ACL expression) in text/len */
    REC_BLANK,    /* a line of white space only */
    REC_TOO_LONG, /* a record longer than max_line; its bytes went to the spill hook */
};

enum record_syntax {
    SYNTAX_JSON, /* one JSON value per line */
    SYNTAX_ACL,  /* FIPA SC00070 string form: "(" performative params ")" */
};

struct record {
    enum record_kind kind;
    enum record_syntax syntax;
    const char *file;       /* display name */
    unsigned long line;     /* 1-based line where the record starts */
    unsigned long end_line; /* line where it ends (differs for multi-line ACL records) */
    const char *text;       /* the record without its line end; not NUL-terminated */
    size_t len;             /* bytes in text, a trailing CR excluded */
    size_t raw_len;         /* len plus the CR of a CRLF line end: the bytes to copy out */
    size_t column_base;     /* bytes before text on its first line (a dropped BOM) */
    bool had_newline;       /* false for a last line without a line end */
    bool message;           /* a string-form record that starts with "(": a message, not a line */
    bool ends_mid_line;     /* a string-form message whose line goes on after it */
    /* A string-form message's tokens (proto/acl_lex.h's marks), which the reader lexed and
     * found of a message's shape, as long as text is valid; NULL: the parser lexes the text. */
    const struct acl_mark *tokens;
    size_t ntokens;
};

#endif
