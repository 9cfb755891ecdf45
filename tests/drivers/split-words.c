/* split-words: a test driver for command_split. Prints each word of argv[1] in brackets, one a
 * line, or "error: REASON" (status 1). Usage: split-words COMMAND */
#include <stdio.h>

#include "io/command.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    struct strbuf err = STRBUF_INIT;
    char **words = command_split(argv[1], &err);
    if (!words) {
        printf("error: %s\n", err.buf);
        sb_free(&err);
        return 1;
    }
    for (char **w = words; *w; w++)
        printf("[%s]\n", *w);
    command_free(words);
    return 0;
}
