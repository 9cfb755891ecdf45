/* Whether two descriptors write to one terminal, whichever names they were opened by. */
#ifndef ACP_TERMINAL_H
#define ACP_TERMINAL_H

#include <stdbool.h>

/* Both are terminals, and one device or both our controlling terminal: /dev/tty is a device of
 * its own that stands for it, so "> /dev/tty" and a stderr on /dev/pts/3 can be the same. */
bool terminal_same(int a, int b);

#endif
