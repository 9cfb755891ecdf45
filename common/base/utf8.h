/* UTF-8 as the escapes read it: where a valid sequence ends, its code point, and whether it acts
 * on a terminal instead of showing. */
#ifndef ACP_UTF8_H
#define ACP_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if the bytes there are not valid UTF-8
 * (overlong forms, surrogates and code points above U+10FFFF included). */
size_t utf8_sequence_length(const unsigned char *s, size_t avail);

/* Whether the len bytes at s are all valid UTF-8 sequences. */
bool utf8_valid(const unsigned char *s, size_t len);

/* The code point of a valid UTF-8 sequence of n bytes (n from utf8_sequence_length). */
unsigned utf8_decode(const unsigned char *s, size_t n);

/* Whether code point cp acts on a terminal instead of showing: the C1 controls, the bidi
 * embeddings, overrides, isolates and marks, and the line and paragraph separators. */
bool utf8_acts_on_terminal(unsigned cp);

/* Where text (len bytes) is cut to at most max bytes: len when it is no longer, else the start of
 * the character at or before max (a byte of no valid sequence counts as one). */
size_t utf8_cut(const char *text, size_t len, size_t max);

/* Where the last max bytes of text (len bytes) begin, moved on to the start of a character. */
size_t utf8_tail(const char *text, size_t len, size_t max);

#endif
