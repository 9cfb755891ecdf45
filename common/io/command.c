#include "io/command.h"

#include <stdlib.h>

struct words {
    char **list;
    size_t count;
    struct strbuf word;
    bool in_word; /* a word has started, even if it is empty so far ('') */
};

static void end_word(struct words *w)
{
    if (!w->in_word)
        return;
    w->list = xrealloc(w->list, (w->count + 2) * sizeof *w->list);
    w->list[w->count++] = sb_detach(&w->word);
    w->list[w->count] = NULL;
    w->in_word = false;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Reads a quoted piece starting after its opening quote; returns the position after the closing
 * one, or NULL when it is never closed. */
static const char *quoted(struct words *w, const char *p, char quote)
{
    for (; *p && *p != quote; p++) {
        if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        sb_addc(&w->word, *p);
    }
    return *p ? p + 1 : NULL;
}

char **command_split(const char *command, struct strbuf *err)
{
    struct words w = {.word = STRBUF_INIT};
    const char *p = command;
    while (*p) {
        if (is_blank(*p)) {
            end_word(&w);
            p++;
            continue;
        }
        w.in_word = true;
        if (*p == '\'' || *p == '"') {
            const char *after = quoted(&w, p + 1, *p);
            if (!after) {
                sb_addf(err, "unclosed %s quote", *p == '"' ? "double" : "single");
                goto fail;
            }
            p = after;
        } else if (*p == '\\') {
            if (!p[1]) {
                sb_adds(err, "a backslash ends the command");
                goto fail;
            }
            sb_addc(&w.word, p[1]);
            p += 2;
        } else {
            sb_addc(&w.word, *p++);
        }
    }
    end_word(&w);
    if (!w.count) {
        sb_adds(err, "no command");
        goto fail;
    }
    return w.list;
fail:
    sb_free(&w.word);
    command_free(w.list);
    return NULL;
}

void command_free(char **words)
{
    if (!words)
        return;
    for (char **p = words; *p; p++)
        free(*p);
    free(words);
}
