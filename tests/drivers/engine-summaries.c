/* engine-summaries: a test driver for the conversation engine. Feeds each JSON line of standard
 * input to the engine (without the per-message checks) and prints what a tool sees: the key
 * engine_feed returns for each line, and each conversation summary handed to the callback.
 * Diagnostics go to standard error. Usage: engine-summaries [MAX_OPEN] <CAPTURE */
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine.h"

static void print_summary(void *ctx, const struct conversation_summary *s)
{
    (void)ctx;
    printf("done %s %s from %s: %s, %lu message(s), lines %lu-%lu of %s, time %.0f-%.0f\n",
           s->conversation, s->protocol, s->initiator, s->outcome, s->messages, s->first_line,
           s->last_line, s->first_file, s->started, s->ended);
}

int main(int argc, char **argv)
{
    util_set_progname("engine-summaries");
    struct engine_config cfg;
    engine_config_defaults(&cfg);
    if (argc > 1 && !parse_ulong(argv[1], &cfg.max_open))
        return 2;
    struct diag_sink sink;
    diag_sink_init(&sink, stderr);
    struct engine *e = engine_new(&cfg, print_summary, NULL);
    char *text = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long line = 0;
    while ((len = getline(&text, &cap, stdin)) > 0) {
        size_t n = (size_t)len - (text[len - 1] == '\n');
        struct record rec = {.kind = REC_LINE,
                             .file = "<stdin>",
                             .line = ++line,
                             .text = text,
                             .len = n,
                             .raw_len = n};
        json_t *root = message_parse_json(&rec, &sink);
        if (!root)
            continue;
        struct message m;
        message_init(&m, &rec, root, CHOOSE_AUTO);
        const char *key = engine_feed(e, &m, &sink);
        printf("line %lu: %s\n", line, key ? key : "-");
        message_clear(&m);
    }
    engine_finish(e, &sink);
    engine_free(e);
    diag_sink_free(&sink);
    free(text);
    return fflush(stdout) == 0 ? 0 : 1;
}
