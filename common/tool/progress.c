#include "tool/progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/escape.h"
#include "io/terminal.h"

/* After a second of work, five times a second: often enough to look alive, rarely enough to cost
 * nothing and not to flicker. */
static const double FIRST_DRAW = 1.0;
static const double REDRAW = 0.2;

static bool reads_terminal(char **files, int nfiles)
{
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i], "-") == 0 && isatty(STDIN_FILENO))
            return true;
    return false;
}

bool progress_wanted(FILE *out, char **files, int nfiles)
{
    const char *term = getenv("TERM");
    return isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0) &&
           !terminal_same(fileno(out), STDERR_FILENO) && !reads_terminal(files, nfiles);
}

/* The bytes of the input still to read, or false when a file is no regular file (a pipe, a
 * terminal) or cannot be looked at: its size is then unknown. */
static bool input_size(char **files, int nfiles, unsigned long long *total)
{
    *total = 0;
    for (int i = 0; i < nfiles; i++) {
        struct stat st;
        bool is_stdin = strcmp(files[i], "-") == 0;
        if ((is_stdin ? fstat(STDIN_FILENO, &st) : stat(files[i], &st)) != 0 ||
            !S_ISREG(st.st_mode))
            return false;
        off_t at = is_stdin ? lseek(STDIN_FILENO, 0, SEEK_CUR) : 0;
        if (at > 0 && at <= st.st_size)
            st.st_size -= at;
        *total += (unsigned long long)st.st_size;
    }
    return true;
}

void progress_init(struct progress *p, bool on, char **files, int nfiles)
{
    memset(p, 0, sizeof *p);
    p->on = on;
    if (!on)
        return;
    p->tty = stderr;
    p->countdown = PROGRESS_RECORDS_PER_CHECK;
    p->start = clock_monotonic();
    p->next_draw = p->start + FIRST_DRAW;
    if (!input_size(files, nfiles, &p->total))
        p->total = 0;
    p->file = "";
}

void progress_file(struct progress *p, const char *display)
{
    p->file = display;
}

static void add_bytes(struct strbuf *l, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units) {
        bytes /= 1024;
        u++;
    }
    if (u == 0)
        sb_addf(l, "%.0f B", bytes);
    else
        sb_addf(l, "%.1f %s", bytes, units[u]);
}

static void add_duration(struct strbuf *l, double seconds)
{
    unsigned long s = !(seconds > 0)  ? 0
                      : seconds < 1e9 ? (unsigned long)(seconds + 0.5)
                                      : 999999999;
    if (s < 60)
        sb_addf(l, "%lu s", s);
    else if (s < 3600)
        sb_addf(l, "%lu:%02lu", s / 60, s % 60);
    else
        sb_addf(l, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
}

/* What the line says after the file's name: all ASCII, one column a byte. */
static void add_counts(struct progress *p, struct strbuf *l, double elapsed)
{
    double rate = elapsed > 0 ? (double)p->bytes / elapsed : 0;
    add_bytes(l, (double)p->bytes);
    if (p->total) {
        unsigned long long done = p->bytes < p->total ? p->bytes : p->total;
        sb_adds(l, " of ");
        add_bytes(l, (double)p->total);
        sb_addf(l, " (%llu%%)", done * 100 / p->total);
    }
    sb_addf(l, ", %lu message%s, ", p->messages, p->messages == 1 ? "" : "s");
    add_bytes(l, rate);
    sb_adds(l, "/s");
    if (p->total && rate > 0) {
        sb_adds(l, ", ");
        add_duration(l, (double)(p->total - (p->bytes < p->total ? p->bytes : p->total)) / rate);
        sb_adds(l, " left");
    }
}

/* Columns the escaped name takes at most: a character outside ASCII may be a wide one. */
static size_t columns_at_most(const char *s, size_t len)
{
    size_t cols = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80)
            cols++;
        else if (c >= 0xc0)
            cols += 2;
    }
    return cols;
}

static size_t terminal_width(FILE *tty)
{
    struct winsize ws;
    if (ioctl(fileno(tty), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* One line that never reaches the last column (where a terminal may wrap it, and "\r" would then
 * no longer find its start): the name goes first when there is no room for everything. */
static void draw(struct progress *p, double now)
{
    size_t width = terminal_width(p->tty) - 1;
    struct strbuf counts = STRBUF_INIT, name = STRBUF_INIT;
    add_counts(p, &counts, now - p->start);
    escape_text(&name, p->file, strlen(p->file), 0);
    struct strbuf *l = &p->line;
    sb_reset(l);
    sb_addf(l, "%s: ", util_progname());
    if (name.len && l->len + columns_at_most(name.buf, name.len) + 2 + counts.len <= width)
        sb_addf(l, "%s: ", name.buf);
    sb_adds(l, counts.buf);
    size_t shown = l->len < width ? l->len : width; /* all ASCII when the name was left out */
    (void)fputs("\r", p->tty);
    (void)fwrite(l->buf, 1, shown, p->tty);
    (void)fputs("\033[K", p->tty);
    (void)fflush(p->tty);
    p->drawn = true;
    sb_free(&counts);
    sb_free(&name);
}

void progress_check(struct progress *p)
{
    if (!p->on)
        return;
    p->countdown = PROGRESS_RECORDS_PER_CHECK;
    double now = clock_monotonic();
    if (now < p->next_draw)
        return;
    p->next_draw = now + REDRAW;
    draw(p, now);
}

void progress_erase(struct progress *p)
{
    if (!p->drawn)
        return;
    (void)fputs("\r\033[K", p->tty);
    p->drawn = false;
}

void progress_end(struct progress *p)
{
    if (!p->on)
        return;
    progress_erase(p);
    (void)fflush(p->tty);
    sb_free(&p->line);
    p->on = false;
}
