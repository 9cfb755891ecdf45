/* diagram: a test driver for the sequence-diagram writer (common/diag/diagram.h). Reads a script on
 * standard input, one command a line, fields separated by tabs, and writes the diagram:
 *   p NAME                     a participant
 *   a FROM TO LABEL            an arrow between two participants (added if new, FROM first)
 *   m N SEVERITY TEXT          marks arrow N (as diagram_arrow numbered it)
 *   n NAME SEVERITY TEXT       a note over a participant, after the arrows so far
 * SEVERITY is none, warning or error. In every field (and in TITLE) \\, \t, \n, \r and \xNN
 * stand for the byte, so a script can hold any text but NUL. Empty lines and lines starting
 * with # are skipped. At the end it prints "arrows N participants N" on standard error.
 * Usage: diagram mermaid|plantuml|svg|text [TITLE] <SCRIPT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/diagram.h"

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the escapes of s in place. */
static char *unescape(char *s)
{
    char *out = s;
    for (const char *p = s; *p; p++) {
        if (*p != '\\' || !p[1]) {
            *out++ = *p;
            continue;
        }
        p++;
        if (*p == 'x' && hex_value(p[1]) >= 0 && hex_value(p[2]) >= 0) {
            *out++ = (char)(hex_value(p[1]) * 16 + hex_value(p[2]));
            p += 2;
        } else {
            *out++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
        }
    }
    *out = '\0';
    return s;
}

static int parse_format(const char *s, enum diagram_format *f)
{
    static const char *const names[] = {"mermaid", "plantuml", "svg", "text"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s, names[i]) == 0) {
            *f = (enum diagram_format)i;
            return 0;
        }
    }
    return -1;
}

static int parse_mark(const char *s, enum diagram_mark *m)
{
    if (strcmp(s, "none") == 0)
        *m = MARK_NONE;
    else if (strcmp(s, "warning") == 0)
        *m = MARK_WARNING;
    else if (strcmp(s, "error") == 0)
        *m = MARK_ERROR;
    else
        return -1;
    return 0;
}

/* Splits line at tabs into at most max fields; returns how many. */
static size_t split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    for (size_t i = 0; i < n; i++)
        unescape(fields[i]);
    return n;
}

static int run(struct diagram *d, char *line)
{
    char *f[5];
    size_t n = split(line, f, 5);
    enum diagram_mark mark;
    unsigned long number;
    if (strcmp(f[0], "p") == 0 && n == 2) {
        diagram_participant(d, f[1]);
    } else if (strcmp(f[0], "a") == 0 && n == 4) {
        size_t from = diagram_participant(d, f[1]);
        diagram_arrow(d, from, diagram_participant(d, f[2]), f[3]);
    } else if (strcmp(f[0], "m") == 0 && n == 4 && parse_ulong(f[1], &number) &&
               parse_mark(f[2], &mark) == 0) {
        diagram_mark(d, number, mark, f[3]);
    } else if (strcmp(f[0], "n") == 0 && n == 4 && parse_mark(f[2], &mark) == 0) {
        diagram_note(d, diagram_participant(d, f[1]), mark, f[3]);
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    util_set_progname("diagram");
    enum diagram_format format;
    if (argc < 2 || argc > 3 || parse_format(argv[1], &format) != 0) {
        fputs("usage: diagram mermaid|plantuml|svg|text [TITLE] <SCRIPT\n", stderr);
        return 2;
    }
    struct diagram *d = diagram_new(format, argc == 3 ? unescape(argv[2]) : NULL);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        if (run(d, line) != 0) {
            fprintf(stderr, "diagram: line %zu: bad command\n", lineno);
            free(line);
            diagram_free(d);
            return 2;
        }
    }
    free(line);
    struct strbuf out = STRBUF_INIT;
    diagram_write(d, &out);
    fprintf(stderr, "arrows %zu participants %zu\n", diagram_arrows(d), diagram_participants(d));
    diagram_free(d);
    int failed = fwrite(out.buf, 1, out.len, stdout) != out.len;
    sb_free(&out);
    if (fclose(stdout) != 0 || failed) {
        perror("diagram: writing output failed");
        return 2;
    }
    return 0;
}
