/* stream-clock: a test driver for the stream clock (common/engine/streamclock.h). Reads lines
 * "SENDER TS" on standard input and, for each, prints the stream time after it and the message's
 * own time, and the sender's offset when one was learned from it ("report" when the clock says to
 * report it). Usage: stream-clock [STEP SKEW ALONE_AFTER [MAX_SENDERS]] <LINES  (default 10 30 30
 * 1000) */
#include <stdio.h>
#include <stdlib.h>

#include "base/streamclock.h"

int main(int argc, char **argv)
{
    struct clock_config cfg = {.step = 10, .skew = 30, .alone_after = 30};
    size_t max_senders = 1000;
    if (argc > 3) {
        cfg.step = strtod(argv[1], NULL);
        cfg.skew = strtod(argv[2], NULL);
        cfg.alone_after = strtod(argv[3], NULL);
    }
    if (argc > 4)
        max_senders = strtoul(argv[4], NULL, 10);
    struct clock_book *book = clock_book_new(&cfg, max_senders);
    char sender[256];
    double ts;
    while (scanf("%255s %lf", sender, &ts) == 2) {
        struct clock_reading r = clock_book_observe(book, sender, ts);
        printf("now %.0f at %.0f", clock_book_now(book), r.at);
        if (r.learned)
            printf(" %s %s offset %.0f", r.report ? "report" : "learned", sender,
                   clock_book_offset(book, sender));
        putchar('\n');
    }
    clock_book_free(book);
    return fflush(stdout) == 0 ? 0 : 1;
}
