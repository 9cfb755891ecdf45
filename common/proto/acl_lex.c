#include "proto/acl_lex.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "base/swar.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f';
}

static bool ends_word(char c)
{
    /* The bytes that end a word: white space and parentheses. */
    static const bool table[256] = {[' '] = true,  ['\t'] = true, ['\r'] = true, ['\n'] = true,
                                    ['\f'] = true, ['('] = true,  [')'] = true};
    return table[(unsigned char)c];
}

void acl_lex_init(struct acl_lexer *lx)
{
    memset(lx, 0, sizeof *lx);
    lx->state = LEX_BETWEEN;
}

void acl_lex_drop(struct acl_lexer *lx, size_t n)
{
    lx->pos -= n;
    lx->start = lx->start >= n ? lx->start - n : 0;
}

static void take(struct acl_lexer *lx)
{
    lx->pos++;
    lx->size++;
}

static enum acl_lex_result emit(struct acl_lexer *lx, enum acl_token_kind kind,
                                struct acl_token *tok)
{
    *tok = (struct acl_token){.kind = kind,
                              .start = lx->start,
                              .end = lx->pos,
                              .size = lx->size,
                              .first = lx->first,
                              .length = lx->length};
    lx->state = LEX_BETWEEN;
    return ACL_LEX_TOKEN;
}

/* The first byte of a token: a parenthesis is a whole token, the others open a state. */
static bool begin_token(struct acl_lexer *lx, char c)
{
    lx->start = lx->pos;
    lx->size = 0;
    lx->first = c;
    lx->length = 0;
    take(lx);
    if (c == '(' || c == ')')
        return true;
    if (c == '"') {
        lx->state = LEX_LITERAL;
    } else if (c == '#') {
        lx->state = LEX_HASH;
        lx->count = 0;
    } else {
        lx->state = LEX_WORD;
    }
    return false;
}

/* After "#": digits and a quote make a byte-length string; anything else makes a word. Returns
 * true when c was consumed. */
static bool hash_byte(struct acl_lexer *lx, char c)
{
    if (c >= '0' && c <= '9') {
        unsigned digit = (unsigned)(c - '0');
        /* A length too large for any input still has to read as one: it saturates. */
        lx->count = lx->count > (ULLONG_MAX - digit) / 10 ? ULLONG_MAX : lx->count * 10 + digit;
        take(lx);
        return true;
    }
    if (c == '"' && lx->size > 1) {
        take(lx);
        lx->length = lx->count;
        lx->state = LEX_BYTES;
        return true;
    }
    lx->state = LEX_WORD;
    return false;
}

/* Where a word that goes on at i ends: at the first byte of white space or a parenthesis, or at
 * len. A byte below 0x21 or a parenthesis flags eight (base/swar.h), which the table decides (a
 * control byte is part of a word). */
static size_t word_end(const char *text, size_t i, size_t len)
{
    while (SWAR_USABLE && len - i >= SWAR_BYTES) {
        uint64_t w = swar_load(text + i);
        /* ( and ) differ in the lowest bit only */
        uint64_t flagged = swar_below(w, 0x21) | swar_equal(w | SWAR_ONES, ')');
        if (!flagged) {
            i += SWAR_BYTES;
            continue;
        }
        i += swar_lowest(flagged);
        if (ends_word(text[i]))
            return i;
        i++;
    }
    while (i < len && !ends_word(text[i]))
        i++;
    return i;
}

/* Where the run of a literal's bytes from i ends: at its first quote or backslash, or at len. */
static size_t literal_run_end(const char *text, size_t i, size_t len)
{
    while (SWAR_USABLE && len - i >= SWAR_BYTES) {
        uint64_t w = swar_load(text + i);
        uint64_t flagged = swar_equal(w, '"') | swar_equal(w, '\\');
        if (flagged)
            return i + swar_lowest(flagged);
        i += SWAR_BYTES;
    }
    while (i < len && text[i] != '"' && text[i] != '\\')
        i++;
    return i;
}

/* Between tokens, the next one when all of it is held and it is a parenthesis, a word or a
 * literal, read in one go (the rules of acl_lex_next's states, in loops): most tokens are. False,
 * having only skipped white space, to leave the token to the byte-by-byte way. */
static bool whole_token(struct acl_lexer *lx, const char *text, size_t len, struct acl_token *tok)
{
    size_t pos = lx->pos;
    while (pos < len && is_space(text[pos]))
        pos++;
    lx->pos = pos;
    if (pos == len)
        return false;
    char c = text[pos];
    size_t end = pos + 1;
    enum acl_token_kind kind;
    if (c == '(' || c == ')') {
        kind = c == '(' ? ACL_OPEN : ACL_CLOSE;
    } else if (c == '"') {
        for (;;) {
            end = literal_run_end(text, end, len);
            if (end == len)
                return false;
            if (text[end] == '"')
                break;
            /* a backslash, and the backslashes right after it, take the byte that follows */
            while (end < len && text[end] == '\\')
                end++;
            if (end == len)
                return false;
            end++;
        }
        end++;
        kind = ACL_LITERAL;
    } else if (c != '#') {
        end = word_end(text, end, len);
        if (end == len)
            return false; /* more of the word may come */
        kind = ACL_WORD;
    } else {
        return false;
    }
    *tok = (struct acl_token){
        .kind = kind, .start = pos, .end = end, .size = end - pos, .first = c, .length = 0};
    lx->start = pos;
    lx->pos = end;
    return true;
}

enum acl_lex_result acl_lex_next(struct acl_lexer *lx, const char *text, size_t len, bool eof,
                                 struct acl_token *tok)
{
    if (lx->state == LEX_BETWEEN && whole_token(lx, text, len, tok))
        return ACL_LEX_TOKEN;
    while (lx->pos < len || (lx->state == LEX_BYTES && lx->count == 0)) {
        if (lx->state == LEX_BYTES) {
            size_t left = len - lx->pos;
            size_t n = lx->count < left ? (size_t)lx->count : left;
            lx->pos += n;
            lx->size += n;
            lx->count -= n;
            if (lx->count == 0)
                return emit(lx, ACL_BYTES, tok);
            continue;
        }
        char c = text[lx->pos];
        switch (lx->state) {
        case LEX_BETWEEN:
            if (is_space(c))
                lx->pos++;
            else if (begin_token(lx, c))
                return emit(lx, c == '(' ? ACL_OPEN : ACL_CLOSE, tok);
            break;
        case LEX_WORD: {
            size_t from = lx->pos;
            while (lx->pos < len && !ends_word(text[lx->pos]))
                lx->pos++;
            lx->size += lx->pos - from;
            if (lx->pos < len)
                return emit(lx, ACL_WORD, tok);
            break;
        }
        case LEX_LITERAL: {
            size_t from = lx->pos;
            while (lx->pos < len && text[lx->pos] != '"' && text[lx->pos] != '\\')
                lx->pos++;
            lx->size += lx->pos - from;
            if (lx->pos == len)
                break;
            c = text[lx->pos];
            take(lx);
            if (c == '"')
                return emit(lx, ACL_LITERAL, tok);
            lx->state = LEX_ESCAPE;
            break;
        }
        case LEX_ESCAPE:
            /* A quote after a backslash is text; a second backslash may escape what follows. */
            take(lx);
            lx->state = c == '\\' ? LEX_ESCAPE : LEX_LITERAL;
            break;
        case LEX_HASH:
            hash_byte(lx, c);
            break;
        case LEX_BYTES:
            break;
        }
    }
    if (!eof)
        return ACL_LEX_MORE;
    switch (lx->state) {
    case LEX_BETWEEN:
        return ACL_LEX_END;
    case LEX_WORD:
    case LEX_HASH:
        return emit(lx, ACL_WORD, tok);
    case LEX_LITERAL:
    case LEX_ESCAPE:
        emit(lx, ACL_LITERAL, tok);
        return ACL_LEX_UNFINISHED;
    case LEX_BYTES:
        emit(lx, ACL_BYTES, tok);
        return ACL_LEX_UNFINISHED;
    }
    return ACL_LEX_END;
}

void acl_shape_init(struct acl_shape *sh)
{
    sh->depth = 0;
    sh->done = false;
    sh->at = SHAPE_AT_TOKEN;
}

/* What a value must be (struct acl_frame's value). */
enum value_kind {
    VALUE_ANY,
    VALUE_TEXT,
    VALUE_AGENT,
    VALUE_AGENT_SET,
    VALUE_ADDRESSES,
    VALUE_RESOLVERS
};

static bool word_equals(const struct acl_token *tok, const char *text, const char *keyword)
{
    size_t n = strlen(keyword);
    return tok->kind == ACL_WORD && tok->size == n &&
           strncasecmp(text + tok->start, keyword, n) == 0;
}

static bool is_key(const struct acl_token *tok)
{
    return tok->kind == ACL_WORD && tok->first == ':' && tok->size >= 2;
}

static enum acl_shape_error fail(struct acl_shape *sh, enum acl_shape_error err,
                                 enum acl_shape_at at)
{
    sh->at = at;
    return err;
}

static enum acl_shape_error push(struct acl_shape *sh, enum acl_frame_kind kind)
{
    if (sh->depth > ACL_MAX_DEPTH)
        return fail(sh, SHAPE_TOO_DEEP, SHAPE_AT_TOKEN);
    sh->frame[sh->depth++] = (struct acl_frame){.kind = kind, .step = STEP_HEAD};
    return SHAPE_OK;
}

/* A list where the frame's key wants its value. */
static enum acl_shape_error open_value(struct acl_shape *sh, struct acl_frame *f)
{
    f->step = STEP_KEY;
    switch ((enum value_kind)f->value) {
    case VALUE_TEXT:
        return fail(sh, SHAPE_NOT_NAME, SHAPE_AT_TOKEN);
    case VALUE_AGENT:
        return push(sh, FRAME_AGENT);
    case VALUE_AGENT_SET:
        return push(sh, FRAME_AGENT_SET);
    case VALUE_ADDRESSES:
        return push(sh, FRAME_ADDRESSES);
    case VALUE_RESOLVERS:
        return push(sh, FRAME_RESOLVERS);
    case VALUE_ANY:
        break;
    }
    return push(sh, FRAME_ANY);
}

/* A word, string or byte string where the frame's key wants its value. */
static enum acl_shape_error atom_value(struct acl_shape *sh, struct acl_frame *f)
{
    f->step = STEP_KEY;
    switch ((enum value_kind)f->value) {
    case VALUE_AGENT:
        return fail(sh, SHAPE_NOT_AGENT, SHAPE_AT_TOKEN);
    case VALUE_AGENT_SET:
        return fail(sh, SHAPE_NOT_SET, SHAPE_AT_TOKEN);
    case VALUE_ADDRESSES:
    case VALUE_RESOLVERS:
        return fail(sh, SHAPE_NOT_SEQUENCE, SHAPE_AT_TOKEN);
    case VALUE_ANY:
    case VALUE_TEXT:
        break;
    }
    return SHAPE_OK;
}

static enum value_kind parameter_value(const struct acl_token *tok, const char *text)
{
    if (word_equals(tok, text, ":sender"))
        return VALUE_AGENT;
    if (word_equals(tok, text, ":receiver") || word_equals(tok, text, ":reply-to"))
        return VALUE_AGENT_SET;
    return VALUE_ANY;
}

static enum value_kind slot_value(struct acl_frame *f, const struct acl_token *tok,
                                  const char *text)
{
    if (word_equals(tok, text, ":name")) {
        f->named = true;
        return VALUE_TEXT;
    }
    if (word_equals(tok, text, ":addresses"))
        return VALUE_ADDRESSES;
    if (word_equals(tok, text, ":resolvers"))
        return VALUE_RESOLVERS;
    return VALUE_ANY;
}

static enum acl_shape_error open_list(struct acl_shape *sh, struct acl_frame *f)
{
    switch ((enum acl_frame_kind)f->kind) {
    case FRAME_ANY:
        return push(sh, FRAME_ANY);
    case FRAME_MESSAGE:
        if (f->step == STEP_HEAD)
            return fail(sh, SHAPE_NO_PERFORMATIVE, SHAPE_AT_LIST);
        if (f->step == STEP_KEY)
            return fail(sh, SHAPE_NOT_PARAMETER, SHAPE_AT_TOKEN);
        return open_value(sh, f);
    case FRAME_AGENT:
        if (f->step == STEP_HEAD)
            return fail(sh, SHAPE_NOT_AGENT, SHAPE_AT_LIST);
        if (f->step == STEP_KEY)
            return fail(sh, SHAPE_NOT_SLOT, SHAPE_AT_TOKEN);
        return open_value(sh, f);
    case FRAME_AGENT_SET:
        if (f->step == STEP_HEAD)
            return fail(sh, SHAPE_NOT_SET, SHAPE_AT_LIST);
        return push(sh, FRAME_AGENT);
    case FRAME_ADDRESSES:
        if (f->step == STEP_HEAD)
            return fail(sh, SHAPE_NOT_SEQUENCE, SHAPE_AT_LIST);
        return fail(sh, SHAPE_NOT_ADDRESS, SHAPE_AT_TOKEN);
    case FRAME_RESOLVERS:
        if (f->step == STEP_HEAD)
            return fail(sh, SHAPE_NOT_SEQUENCE, SHAPE_AT_LIST);
        return push(sh, FRAME_AGENT);
    }
    return SHAPE_OK;
}

static enum acl_shape_error close_list(struct acl_shape *sh, struct acl_frame *f)
{
    static const enum acl_shape_error wrong_head[] = {
        [FRAME_MESSAGE] = SHAPE_NO_PERFORMATIVE, [FRAME_ANY] = SHAPE_OK,
        [FRAME_AGENT] = SHAPE_NOT_AGENT,         [FRAME_AGENT_SET] = SHAPE_NOT_SET,
        [FRAME_ADDRESSES] = SHAPE_NOT_SEQUENCE,  [FRAME_RESOLVERS] = SHAPE_NOT_SEQUENCE,
    };
    if (f->kind != FRAME_ANY && f->step == STEP_HEAD)
        return fail(sh, wrong_head[f->kind], SHAPE_AT_LIST);
    if (f->step == STEP_VALUE)
        return fail(sh, f->kind == FRAME_MESSAGE ? SHAPE_NO_VALUE : SHAPE_NOT_SLOT, SHAPE_AT_KEY);
    if (f->kind == FRAME_AGENT && !f->named)
        return fail(sh, SHAPE_NO_NAME, SHAPE_AT_LIST);
    if (--sh->depth == 0)
        sh->done = true;
    return SHAPE_OK;
}

static enum acl_shape_error atom(struct acl_shape *sh, struct acl_frame *f,
                                 const struct acl_token *tok, const char *text)
{
    switch ((enum acl_frame_kind)f->kind) {
    case FRAME_ANY:
        return SHAPE_OK;
    case FRAME_MESSAGE:
    case FRAME_AGENT: {
        bool message = f->kind == FRAME_MESSAGE;
        if (f->step == STEP_VALUE)
            return atom_value(sh, f);
        if (f->step == STEP_HEAD) {
            if (message ? tok->kind != ACL_WORD : !word_equals(tok, text, "agent-identifier"))
                return fail(sh, message ? SHAPE_NO_PERFORMATIVE : SHAPE_NOT_AGENT, SHAPE_AT_LIST);
            f->step = STEP_KEY;
            return SHAPE_OK;
        }
        if (!is_key(tok))
            return fail(sh, message ? SHAPE_NOT_PARAMETER : SHAPE_NOT_SLOT, SHAPE_AT_TOKEN);
        f->value = message ? parameter_value(tok, text) : slot_value(f, tok, text);
        f->step = STEP_VALUE;
        return SHAPE_OK;
    }
    case FRAME_AGENT_SET:
        if (f->step != STEP_HEAD)
            return fail(sh, SHAPE_NOT_AGENT, SHAPE_AT_TOKEN);
        if (word_equals(tok, text, "agent-identifier")) /* one bare agent, read leniently */
            f->kind = FRAME_AGENT;
        else if (!word_equals(tok, text, "set"))
            return fail(sh, SHAPE_NOT_SET, SHAPE_AT_LIST);
        f->step = STEP_KEY;
        return SHAPE_OK;
    case FRAME_ADDRESSES:
    case FRAME_RESOLVERS:
        if (f->step != STEP_HEAD)
            return f->kind == FRAME_ADDRESSES ? SHAPE_OK
                                              : fail(sh, SHAPE_NOT_AGENT, SHAPE_AT_TOKEN);
        if (!word_equals(tok, text, "sequence"))
            return fail(sh, SHAPE_NOT_SEQUENCE, SHAPE_AT_LIST);
        f->step = STEP_KEY;
        return SHAPE_OK;
    }
    return SHAPE_OK;
}

enum acl_shape_error acl_shape_feed(struct acl_shape *sh, const struct acl_token *tok,
                                    const char *text)
{
    if (sh->done)
        return fail(sh, SHAPE_AFTER_END, SHAPE_AT_TOKEN);
    if (sh->depth == 0)
        return tok->kind == ACL_OPEN ? push(sh, FRAME_MESSAGE)
                                     : fail(sh, SHAPE_NOT_MESSAGE, SHAPE_AT_TOKEN);
    struct acl_frame *f = &sh->frame[sh->depth - 1];
    switch (tok->kind) {
    case ACL_OPEN:
        return open_list(sh, f);
    case ACL_CLOSE:
        return close_list(sh, f);
    case ACL_WORD:
    case ACL_LITERAL:
    case ACL_BYTES:
        break;
    }
    return atom(sh, f, tok, text);
}

const char *acl_shape_message(enum acl_shape_error err)
{
    switch (err) {
    case SHAPE_OK:
        break;
    case SHAPE_NOT_MESSAGE:
        return "expected '(' to start a message";
    case SHAPE_NO_PERFORMATIVE:
        return "a message starts with its performative";
    case SHAPE_NOT_PARAMETER:
        return "expected a parameter such as :sender";
    case SHAPE_NO_VALUE:
        return "parameter without a value";
    case SHAPE_TOO_DEEP:
        return "expressions nested too deeply";
    case SHAPE_AFTER_END:
        return "bytes after the end of the message";
    case SHAPE_NOT_AGENT:
        return "expected (agent-identifier ...)";
    case SHAPE_NOT_SET:
        return "expected (set (agent-identifier ...) ...)";
    case SHAPE_NOT_SEQUENCE:
        return "expected (sequence ...)";
    case SHAPE_NOT_SLOT:
        return "expected :name, :addresses or :resolvers";
    case SHAPE_NOT_NAME:
        return "expected a name";
    case SHAPE_NOT_ADDRESS:
        return "expected an address";
    case SHAPE_NO_NAME:
        return "agent-identifier without :name";
    }
    return "";
}

/* Longer than any act's name: such a word is no act, whatever follows. */
enum { ACT_WORD_MAX = 24 };

enum fipa_act acl_act(const char *word, size_t len)
{
    char name[ACT_WORD_MAX + 1];
    if (len == 0 || len > ACT_WORD_MAX || memchr(word, '\0', len))
        return FIPA_ACT_INVALID;
    memcpy(name, word, len);
    name[len] = '\0';
    enum fipa_act act = fipa_act_parse(name);
    if (act != FIPA_ACT_INVALID)
        return act;
    /* Keywords are case-insensitive: Query-Ref is query-ref. */
    for (size_t i = 0; i < len; i++)
        name[i] = (char)tolower((unsigned char)name[i]);
    return fipa_act_parse(name);
}

/* Whether a message starts at p, which holds "(" (acl_starts_record's rule). */
static int starts_message(const char *p, size_t avail, bool eof)
{
    size_t i = 1;
    while (i < avail && (p[i] == ' ' || p[i] == '\t') && i <= ACT_WORD_MAX)
        i++;
    if (i > ACT_WORD_MAX)
        return 0;
    size_t word = i;
    while (i < avail && !ends_word(p[i]) && i - word <= ACT_WORD_MAX)
        i++;
    if (i - word > ACT_WORD_MAX)
        return 0;
    if (i == avail && !eof)
        return -1;
    return acl_act(p + word, i - word) != FIPA_ACT_INVALID;
}

int acl_starts_record(const char *p, size_t avail, bool eof)
{
    if (p[0] == '{')
        return 1;
    return p[0] == '(' ? starts_message(p, avail, eof) : 0;
}
