#include "io/terminal.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

/* The session whose controlling terminal fd is, or -1: tcgetsid, but into a pid_t set first.
 * valgrind does not know what TIOCGSID writes, so glibc's own result looked undefined to it and
 * every comparison of it an error. */
static pid_t terminal_session(int fd)
{
#ifdef TIOCGSID
    pid_t session = -1;
    return ioctl(fd, TIOCGSID, &session) == 0 ? session : -1;
#else
    return tcgetsid(fd);
#endif
}

bool terminal_same(int a, int b)
{
    struct stat sa, sb;
    if (!isatty(a) || !isatty(b) || fstat(a, &sa) != 0 || fstat(b, &sb) != 0)
        return false;
    if (sa.st_rdev == sb.st_rdev)
        return true;
    pid_t session = terminal_session(a);
    return session != -1 && session == terminal_session(b);
}

unsigned terminal_columns(int fd)
{
    const char *columns = getenv("COLUMNS");
    char *end;
    unsigned long n = columns ? strtoul(columns, &end, 10) : 0;
    if (columns && *columns >= '0' && *columns <= '9' && !*end && n > 0 && n <= 100000)
        return (unsigned)n;
    if (!isatty(fd))
        return 0;
    struct winsize size = {0};
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}
