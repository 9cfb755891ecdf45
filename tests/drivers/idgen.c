/* idgen: a test driver for the fresh-id generator (common/proto/idgen.h). Reads commands, one a
 * line, from standard input and prints what each returns: fresh SENDER TIME       a fresh id for
 * SENDER many SENDER N           N fresh ids for SENDER, one a line, all at time 0 queen SENDER N
 * N fresh ids in the queen's form like SENDER MODEL N     N fresh ids in the style of MODEL (a
 * prefix, or an id) note SENDER ID TIME     "again" or "new" seen SENDER ID          "yes" or "no"
 *   count                   "ids N senders N": what it remembers
 * A SENDER of "-" is the sender with no name (NULL); a TIME of "-" is unknown (NAN).
 * Usage: idgen SEED KEEP_FOR MAX_IDS <COMMANDS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "proto/idgen.h"

static const char *sender_arg(const char *s)
{
    return strcmp(s, "-") == 0 ? NULL : s;
}

static double time_arg(const char *s)
{
    return strcmp(s, "-") == 0 ? NAN : strtod(s, NULL);
}

int main(int argc, char **argv)
{
    util_set_progname("idgen");
    unsigned long seed, max_ids;
    double keep_for;
    if (argc != 4 || !parse_ulong(argv[1], &seed) || !parse_duration(argv[2], &keep_for) ||
        !parse_ulong(argv[3], &max_ids)) {
        fputs("usage: idgen SEED KEEP_FOR MAX_IDS <COMMANDS\n", stderr);
        return 2;
    }
    struct idgen_config cfg = {.seed = seed, .keep_for = keep_for, .max_ids = max_ids};
    struct idgen *g = idgen_new(&cfg);
    char line[4096], a[1024], b[1024], c[1024];
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "fresh %1023s %1023s", a, b) == 2) {
            puts(idgen_fresh(g, sender_arg(a), time_arg(b)));
        } else if (sscanf(line, "many %1023s %1023s", a, b) == 2) {
            unsigned long n = strtoul(b, NULL, 10);
            for (unsigned long i = 0; i < n; i++)
                puts(idgen_fresh(g, sender_arg(a), 0));
        } else if (sscanf(line, "queen %1023s %1023s", a, b) == 2) {
            unsigned long n = strtoul(b, NULL, 10);
            for (unsigned long i = 0; i < n; i++)
                puts(idgen_fresh_form(g, sender_arg(a), IDGEN_QUEEN, NULL, 0));
        } else if (sscanf(line, "like %1023s %1023s %1023s", a, b, c) == 3) {
            unsigned long n = strtoul(c, NULL, 10);
            for (unsigned long i = 0; i < n; i++)
                puts(idgen_fresh_like(g, sender_arg(a), b, 0));
        } else if (sscanf(line, "note %1023s %1023s %1023s", a, b, c) == 3) {
            puts(idgen_note(g, sender_arg(a), b, time_arg(c)) ? "again" : "new");
        } else if (sscanf(line, "seen %1023s %1023s", a, b) == 2) {
            puts(idgen_seen(g, sender_arg(a), b) ? "yes" : "no");
        } else if (strncmp(line, "count", 5) == 0) {
            printf("ids %zu senders %zu\n", idgen_remembered_ids(g), idgen_remembered_senders(g));
        } else {
            fprintf(stderr, "idgen: bad command: %s", line);
            idgen_free(g);
            return 2;
        }
    }
    idgen_free(g);
    return 0;
}
