/* The one lexer of the FIPA string form (SC00070), and the shape every message must have. The
 * reader drives both over bytes as they arrive, to find where a message ends; the parser in
 * acl.c reads a whole record with the same two, so that the two can never disagree about where a
 * string, a byte-length string or a message ends.
 *
 * Tokens: ( and ), words, "..." literals (in which a quote after a backslash never ends the
 * literal: JADE's rule, so \" is the only escape), and #N" byte-length strings of N raw bytes.
 * White space (space, tab, CR, LF, FF) separates tokens; a word runs to white space or a
 * parenthesis, so quotes and # inside a word are ordinary bytes, and a # without digits and a
 * quote starts a word. */
#ifndef ACP_ACL_LEX_H
#define ACP_ACL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/fipa.h"

enum acl_token_kind {
    ACL_OPEN,
    ACL_CLOSE,
    ACL_WORD,
    ACL_LITERAL, /* "..." with its quotes */
    ACL_BYTES,   /* #N" and its N bytes */
};

struct acl_token {
    enum acl_token_kind kind;
    size_t start, end;         /* its bytes, as offsets into the text being read */
    size_t size;               /* end - start, also when the text before end was dropped */
    char first;                /* its first byte */
    unsigned long long length; /* ACL_BYTES: N */
};

/* A token as a record keeps it for its parser (struct record's tokens): its place, in a third
 * of the lexer's bytes; the rest is read from the record's text. */
struct acl_mark {
    uint32_t start, end;
    uint32_t length; /* ACL_BYTES: N */
    unsigned char kind;
};

enum acl_lex_state { LEX_BETWEEN, LEX_WORD, LEX_LITERAL, LEX_ESCAPE, LEX_HASH, LEX_BYTES };

/* Resumable: the text may grow between calls (the same bytes, more of them), and the reader may
 * drop bytes from its front with acl_lex_drop. */
struct acl_lexer {
    enum acl_lex_state state;
    size_t pos;               /* the next byte to read */
    size_t start;             /* where the token being read started */
    size_t size;              /* bytes of that token read so far */
    char first;               /* its first byte */
    unsigned long long count; /* LEX_HASH: N so far; LEX_BYTES: bytes still due */
    unsigned long long length;
};

enum acl_lex_result {
    ACL_LEX_TOKEN,      /* *tok is the next token */
    ACL_LEX_MORE,       /* every byte was read; the next token needs more of them */
    ACL_LEX_END,        /* at the end of the input, after white space only */
    ACL_LEX_UNFINISHED, /* the input ended inside a literal or a byte-length string: *tok */
};

void acl_lex_init(struct acl_lexer *lx);
/* Reads the next token of text[0..len). eof: nothing follows len. */
enum acl_lex_result acl_lex_next(struct acl_lexer *lx, const char *text, size_t len, bool eof,
                                 struct acl_token *tok);
/* The first n bytes of the text are gone: offsets move down by n. */
void acl_lex_drop(struct acl_lexer *lx, size_t n);

/* The mark of tok; false when its offsets or its length do not fit one. Inline: the reader
 * marks, and the parser reads, every token of a record. */
static inline bool acl_mark_of(const struct acl_token *tok, struct acl_mark *mark)
{
    if (tok->end > UINT32_MAX || tok->length > UINT32_MAX || tok->size != tok->end - tok->start)
        return false;
    *mark = (struct acl_mark){.start = (uint32_t)tok->start,
                              .end = (uint32_t)tok->end,
                              .length = (uint32_t)tok->length,
                              .kind = (unsigned char)tok->kind};
    return true;
}

/* The token a mark of text keeps. */
static inline struct acl_token acl_token_of(const struct acl_mark *mark, const char *text)
{
    return (struct acl_token){.kind = (enum acl_token_kind)mark->kind,
                              .start = mark->start,
                              .end = mark->end,
                              .size = mark->end - mark->start,
                              .first = text[mark->start],
                              .length = mark->length};
}

/* What a message must look like, token by token, as acl.c reads it:
 *   "(" performative (":parameter" value)* ")"
 * where :sender's value is an (agent-identifier ...), :receiver's and :reply-to's a
 * (set (agent-identifier ...)*) or one agent-identifier, and an agent-identifier holds
 * :name text, :addresses (sequence text*), :resolvers (sequence (agent-identifier ...)*) and
 * user slots of any value. Lists nest at most ACL_MAX_DEPTH deep. Anything else is an error of
 * the message's syntax (whether its words are acts and date-times is for the parser to say). */
enum acl_shape_error {
    SHAPE_OK,
    SHAPE_NOT_MESSAGE,     /* the first token is not "(" */
    SHAPE_NO_PERFORMATIVE, /* the first item is not a word */
    SHAPE_NOT_PARAMETER,   /* an item where a :parameter belongs */
    SHAPE_NO_VALUE,        /* a :parameter directly before ")" */
    SHAPE_TOO_DEEP,        /* lists nested deeper than ACL_MAX_DEPTH */
    SHAPE_AFTER_END,       /* a token after the message's ")" */
    SHAPE_NOT_AGENT,       /* expected (agent-identifier ...) */
    SHAPE_NOT_SET,         /* expected (set ...) */
    SHAPE_NOT_SEQUENCE,    /* expected (sequence ...) */
    SHAPE_NOT_SLOT,        /* expected :name, :addresses or :resolvers */
    SHAPE_NOT_NAME,        /* :name's value is a list */
    SHAPE_NOT_ADDRESS,     /* an address is a list */
    SHAPE_NO_NAME,         /* an agent-identifier without :name */
};

enum { ACL_MAX_DEPTH = 64 };

/* What a list is, for what may come in it. */
enum acl_frame_kind {
    FRAME_MESSAGE,
    FRAME_ANY, /* a value of a parameter that takes any expression */
    FRAME_AGENT,
    FRAME_AGENT_SET,
    FRAME_ADDRESSES,
    FRAME_RESOLVERS,
};

/* Where a list stands: at its first item, at a key (or item), or at a key's value. */
enum acl_frame_step { STEP_HEAD, STEP_KEY, STEP_VALUE };

struct acl_frame {
    unsigned char kind;  /* enum acl_frame_kind */
    unsigned char step;  /* enum acl_frame_step */
    unsigned char value; /* at STEP_VALUE: what the value must be (acl_lex.c says) */
    bool named;          /* FRAME_AGENT: :name was read */
};

/* What an error is about: the token just fed, the innermost open list (whose first item is
 * wrong), or the last :key read (which has no value). */
enum acl_shape_at { SHAPE_AT_TOKEN, SHAPE_AT_LIST, SHAPE_AT_KEY };

struct acl_shape {
    unsigned depth;       /* lists open */
    bool done;            /* the message's ")" was read */
    enum acl_shape_at at; /* after an error */
    struct acl_frame frame[ACL_MAX_DEPTH + 2];
};

void acl_shape_init(struct acl_shape *sh);
/* Checks the next token; text holds the token's bytes at the offsets the lexer gave. */
enum acl_shape_error acl_shape_feed(struct acl_shape *sh, const struct acl_token *tok,
                                    const char *text);
/* What an error says, for diagnostics. */
const char *acl_shape_message(enum acl_shape_error err);

/* The communicative act a message's first word names: one of the 22 of SC00037 or
 * counter-propose, in any case, with - or _; FIPA_ACT_INVALID for any other word. */
enum fipa_act acl_act(const char *word, size_t len);

/* Whether a line that starts at p (avail bytes of it held, at least one) starts a record that a
 * broken message must not swallow: "{" as its first byte (a JSON object: in a stream that mixes
 * the two forms, a line of JSON ends a string-form record that is broken), or "(", spaces or
 * tabs, then a communicative act ending in white space or a parenthesis. 1 yes, 0 no, -1 not
 * known before more bytes arrive. */
int acl_starts_record(const char *p, size_t avail, bool eof);

#endif
