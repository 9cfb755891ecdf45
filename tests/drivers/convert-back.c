/* convert-back: holds what convert_fipa_iacp_line says of its line (*passes: it passes the IACP
 * rules as it is made, so acp-convert does not read it back) to the IACP rules. Every line of
 * standard input that is a JSON object (a FIPA message) is converted, and a line said to pass is
 * read back and checked with iacp_check as acp-convert checks what it writes: any error is a line
 * that passes wrongly. Prints each such line, then
 *   messages N, converted N, passes N, wrongly N
 * and exits 1 when any passes wrongly. Usage: convert-back [NOW] <FIPA */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/convert.h"
#include "proto/iacp.h"
#include "proto/memberlist.h"
#include "proto/message.h"

/* The errors of the IACP rules in a line as acp-convert reads it back. */
static unsigned long line_errors(struct jscan *js, const struct strbuf *line)
{
    struct record rec = {.kind = REC_LINE, .text = line->buf, .len = line->len - 1};
    struct message m;
    if (!message_read_made(&m, &rec, rec.text, rec.len, js, CHOOSE_IACP))
        return 1;
    static const struct iacp_rules rules = {"queen"};
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    iacp_check(&m, &rules, &quiet);
    unsigned long errors = quiet.errors;
    diag_sink_free(&quiet);
    message_clear(&m);
    return errors;
}

int main(int argc, char **argv)
{
    util_set_progname("convert-back");
    struct convert_config cfg = {.idle_timeout = 3600,
                                 .max_open = 100000,
                                 .clock_skew = 30,
                                 .seed = 1,
                                 .now = argc > 1 ? (time_t)strtoll(argv[1], NULL, 10) : 0};
    struct converter *c = converter_new(&cfg);
    struct jscan *input = jscan_new(), *scratch = jscan_new();
    struct member_list members;
    member_list_init(&members);
    struct diag_sink quiet;
    diag_sink_init(&quiet, NULL);
    quiet.quiet = true;
    struct strbuf out = STRBUF_INIT;
    unsigned long messages = 0, converted = 0, passes = 0, wrongly = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    for (unsigned long n = 1; (len = getline(&line, &cap, stdin)) > 0; n++) {
        const struct jv *fipa = jscan_scan(input, line, (size_t)len);
        if (!jv_is_object(fipa))
            continue;
        messages++;
        struct diag_where at = {.file = "-", .line = n};
        bool passed;
        sb_reset(&out);
        if (!convert_fipa_iacp_line(c, fipa, NULL, &members, &out, JSONOUT_VALID, &passed,
                                    &quiet, &at))
            continue;
        converted++;
        if (!passed)
            continue;
        passes++;
        if (line_errors(scratch, &out) == 0)
            continue;
        wrongly++;
        printf("line %lu: passes by construction, not by the IACP rules: %s", n, out.buf);
    }
    free(line);
    sb_free(&out);
    diag_sink_free(&quiet);
    member_list_free(&members);
    jscan_free(input);
    jscan_free(scratch);
    converter_free(c);
    printf("messages %lu, converted %lu, passes %lu, wrongly %lu\n", messages, converted, passes,
           wrongly);
    return wrongly ? 1 : 0;
}
