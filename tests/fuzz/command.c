/* acp-replay's COMMAND word splitter (common/command.h). Properties: it gives words or a reason,
 * never both or neither; and the words, each quoted back ('...' with '\'' for a quote) and
 * joined by spaces, split into the same words again. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/command.h"

static void quote(struct strbuf *sb, const char *word)
{
    sb_addc(sb, '\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            sb_adds(sb, "'\\''");
        else
            sb_addc(sb, *p);
    }
    sb_addc(sb, '\'');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    char *command = xstrndup((const char *)data, size); /* up to a NUL, as argv is */
    struct strbuf err = STRBUF_INIT;
    char **words = command_split(command, &err);
    FUZZ_ASSERT(!words != !err.len, "words and a reason, or neither");
    if (words) {
        FUZZ_ASSERT(words[0], "no word, no reason");
        struct strbuf again = STRBUF_INIT;
        for (char **w = words; *w; w++) {
            if (w != words)
                sb_addc(&again, ' ');
            quote(&again, *w);
        }
        struct strbuf err2 = STRBUF_INIT;
        char **words2 = command_split(again.buf, &err2);
        FUZZ_ASSERT(words2, "the words quoted back do not split: %s", err2.buf);
        size_t i = 0;
        for (; words[i] && words2[i]; i++)
            FUZZ_ASSERT(strcmp(words[i], words2[i]) == 0, "word %zu: '%s' came back as '%s'", i,
                        words[i], words2[i]);
        FUZZ_ASSERT(!words[i] && !words2[i], "the words quoted back split differently");
        command_free(words2);
        sb_free(&again);
        sb_free(&err2);
    }
    command_free(words);
    sb_free(&err);
    free(command);
    return 0;
}
