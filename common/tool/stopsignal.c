#include "tool/stopsignal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tool/filter.h"

static volatile sig_atomic_t caught;

static void on_stop_signal(int sig)
{
    caught = sig;
}

/* Run by exit(), after everything buffered was written. */
static void die_of_stop_signal(void)
{
    int sig = caught;
    if (sig == 0 || sig == SIGINT)
        return;
    (void)fflush(NULL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void stop_signals_install(void)
{
    struct sigaction sa, was;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read must return so that we can stop */
    sigaction(SIGINT, &sa, NULL);
    /* Left ignored where they are (nohup). */
    int more[] = {SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (sigaction(more[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(more[i], &sa, NULL);
    if (atexit(die_of_stop_signal) != 0)
        die_oom();
}

int stop_signal(void)
{
    return caught;
}

volatile sig_atomic_t *stop_signal_flag(void)
{
    return &caught;
}

bool filter_interrupted(void)
{
    return caught != 0;
}
