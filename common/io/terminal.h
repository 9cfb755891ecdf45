/* Whether two descriptors write to one terminal, and how wide a terminal is. */
#ifndef ACP_TERMINAL_H
#define ACP_TERMINAL_H

#include <stdbool.h>

/* Both are terminals, and one device or both our controlling terminal: /dev/tty is a device of
 * its own that stands for it, so "> /dev/tty" and a stderr on /dev/pts/3 can be the same. */
bool terminal_same(int a, int b);

/* The columns of the terminal fd writes to: $COLUMNS where it is a number above 0 (a shell sets
 * it, and a user to ask for another width), else what the terminal says; 0 when fd is no
 * terminal or neither knows. */
unsigned terminal_columns(int fd);

#endif
