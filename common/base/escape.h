/* Escaping of text that came from the input before it reaches a terminal or a JSON document. */
#ifndef ACP_ESCAPE_H
#define ACP_ESCAPE_H

#include <stdbool.h>

#include "base/util.h"

/* Appends s[0..len) with every control character (C0, DEL, C1), every bidi embedding, override,
 * isolate or mark (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), the line and
 * paragraph separators (U+2028, U+2029), and every byte that is not part of valid UTF-8 written
 * as a visible escape (\n, \t, \xNN, \u0085, \u202e), so that nothing from a message can move a
 * cursor, change a colour or make a line read differently from its bytes. At most max bytes of
 * input are shown, then "..."; max 0 means no limit. out->buf is a string afterwards, even when s
 * is empty. */
void escape_text(struct strbuf *out, const char *s, size_t len, size_t max);

/* Appends s as a JSON string literal, quotes included. Invalid UTF-8 becomes U+FFFD, so the
 * output is always valid JSON; the characters escape_text escapes are written as \u escapes. */
void escape_json_string(struct strbuf *out, const char *s, size_t len);

#endif
