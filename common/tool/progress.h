/* The progress line of a long run: on the terminal of stderr, how far the input has been read
 * (bytes, messages, rate, and the time left when the input's size is known), redrawn a few times
 * a second once the run has worked for a second, taken away before anything else is written
 * there and at the end. The filter drives it; a tool only asks for it (common_opts.progress). */
#ifndef ACP_PROGRESS_H
#define ACP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/util.h"

struct progress {
    bool on;                  /* drawing is allowed: all else is skipped when false */
    bool drawn;               /* the line is on the screen */
    FILE *tty;                /* stderr */
    unsigned countdown;       /* records until the clock is read again */
    double start;             /* monotonic seconds when the run began */
    double next_draw;         /* when the line may be drawn again */
    unsigned long long total; /* bytes of all the input; 0 when unknown */
    unsigned long long bytes; /* bytes read so far */
    unsigned long messages;   /* records read so far that are messages */
    const char *file;         /* display name of the input being read */
    struct strbuf line;       /* scratch space for one line */
};

/* Whether the line may be drawn at all: stderr is a terminal (not TERM=dumb), out (the output of
 * the run) is not that same terminal, and no input is a terminal (files as for filter_run). The
 * caller checks the options that turn it off
 * (--no-progress, -q). */
bool progress_wanted(FILE *out, char **files, int nfiles);

/* Starts the clock; with on false, every other call does nothing. The size of the input is the
 * sum of the sizes of files (standard input for "-"), known when all are regular files. */
void progress_init(struct progress *p, bool on, char **files, int nfiles);
/* The input that the following records come from; display must live as long as the progress. */
void progress_file(struct progress *p, const char *display);

/* How often the clock is read, in records, between the waits for input. */
enum { PROGRESS_RECORDS_PER_CHECK = 256 };

void progress_check(struct progress *p);

/* Counts one record of bytes bytes (its line end included); reads the clock every so many. */
static inline void progress_record(struct progress *p, unsigned long long bytes, bool message)
{
    if (!p->on)
        return;
    p->bytes += bytes;
    p->messages += message;
    if (--p->countdown == 0)
        progress_check(p);
}

/* Takes the line away, for something else to be written on stderr; it comes back at the next
 * redraw. */
void progress_erase(struct progress *p);
/* Takes the line away for good, at the end of the run. */
void progress_end(struct progress *p);

#endif
