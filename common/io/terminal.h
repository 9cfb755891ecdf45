/* Whether two descriptors write to one terminal, and how wide a terminal is. */
#ifndef ACP_TERMINAL_H
#define ACP_TERMINAL_H

#include <stdbool.h>

/* Both are terminals, and one device or both our controlling terminal: /dev/tty is a device of
 * its own that stands for it, so "> /dev/tty" and a stderr on /dev/pts/3 can be the same. */
bool terminal_same(int a, int b);

/* The columns fd is to fill: $COLUMNS where it is a number above 0, terminal or not (a shell
 * sets it, and a user to ask for another width, as for ls), else what the terminal fd writes to
 * says; 0 when neither knows. */
unsigned terminal_columns(int fd);

#endif
