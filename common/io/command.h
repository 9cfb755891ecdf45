/* COMMAND arguments (--exec) split into words by a small fixed rule and never given to a shell:
 * no variables, globs, pipes or redirections, so that what the user wrote is what runs.
 *
 * Blanks (space, tab, newline) separate words. Single quotes group and are literal inside.
 * Double quotes group, with \" and \\ as the only escapes inside (another backslash is kept).
 * Outside quotes a backslash makes the next character literal. Quoted and unquoted pieces that
 * touch form one word; '' or "" alone is an empty word. */
#ifndef ACP_COMMAND_H
#define ACP_COMMAND_H

#include "base/util.h"

/* The words of command as a NULL-terminated array (free with command_free), or NULL with the
 * reason in *err (an unclosed quote, a backslash at the end, no word at all). */
char **command_split(const char *command, struct strbuf *err);
void command_free(char **words);

#endif
