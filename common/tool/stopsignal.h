/* Private to tool/: SIGINT, SIGTERM and SIGHUP, which stop a run without losing what it buffered.
 * The signal caught is the only state a handler touches. */
#ifndef ACP_STOPSIGNAL_H
#define ACP_STOPSIGNAL_H

#include <signal.h>

/* Catches the three (SIGTERM and SIGHUP unless ignored, as under nohup), so that a blocked read
 * returns; once main has returned, the process dies of SIGTERM or SIGHUP, as their sender
 * expects. */
void stop_signals_install(void);
/* The signal that asked the run to stop; 0 while none did. */
int stop_signal(void);
/* The same, for the reader, which looks at it between reads. */
volatile sig_atomic_t *stop_signal_flag(void);

#endif
