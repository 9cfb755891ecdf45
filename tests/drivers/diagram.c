/* diagram: a test driver for the sequence-diagram writer (common/report/diagram.h). Reads a script
 * on standard input, one command a line, fields separated by tabs, and writes the diagram:
 *   p NAME                     a participant
 *   t TIME DELTA FILE LINE     when and where the next message (a or g) was sent and read: unix
 *                              seconds, seconds, a file name and a line (an empty field: unknown)
 *   a FROM TO LABEL            a message from one participant to another (added if new, FROM
 *                              first)
 *   g FROM LABEL TO...         a message to several participants
 *   m N SEVERITY TEXT          marks the message of arrow N (as diagram_message numbered it)
 *   n NAME SEVERITY TEXT       a note over a participant, after the messages so far
 *   o N END TEXT               an outcome after the message of arrow N: done, ended, open or
 *                              violated
 * SEVERITY is none, warning or error. In every field (and in TITLE) \\, \t, \n, \r and \xNN
 * stand for the byte, so a script can hold any text but NUL. Empty lines and lines starting
 * with # are skipped. At the end it prints "arrows N participants N" on standard error.
 * With --fit it also prints "pages N too-big 0|1 width N height N".
 * Usage: diagram [--no-times] [--page-size=N] [--width=N] [--color] [--fit]
 *                mermaid|plantuml|svg|text [TITLE] <SCRIPT */
#include <math.h>
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

/* Which of the n words s is, from 0; -1 for none. */
static int word_index(const char *s, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    return -1;
}

static const char *const formats[] = {"mermaid", "plantuml", "svg", "text"};
static const char *const marks[] = {"none", "warning", "error"};
static const char *const ends[] = {"done", "ended", "open", "violated"};

/* When and where the next message was sent and read (the t command), then forgotten. */
struct next {
    double time, delta;
    char *file;
    unsigned long line;
};

/* A number, or NAN for an empty field; false for anything else. */
static bool parse_seconds(const char *s, double *v)
{
    char *end;
    if (!*s) {
        *v = NAN;
        return true;
    }
    *v = strtod(s, &end);
    return !*end;
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

static int add_message(struct diagram *d, struct next *next, const char *from, const char *label,
                       char **to, size_t nto)
{
    size_t columns[64];
    if (nto == 0 || nto > 64)
        return -1;
    size_t sender = diagram_participant(d, from);
    for (size_t i = 0; i < nto; i++)
        columns[i] = diagram_participant(d, to[i]);
    diagram_message(d, &(struct diagram_message){.from = sender,
                                                 .to = columns,
                                                 .nto = nto,
                                                 .label = label,
                                                 .file = next->file,
                                                 .line = next->line,
                                                 .time = next->time,
                                                 .delta = next->delta});
    free(next->file);
    *next = (struct next){NAN, NAN, NULL, 0};
    return 0;
}

static int run(struct diagram *d, struct next *next, char *line)
{
    char *f[68];
    size_t n = split(line, f, 68);
    int mark = n == 4 ? word_index(f[2], marks, 3) : -1;
    int end = n == 4 ? word_index(f[2], ends, 4) : -1;
    unsigned long number;
    if (strcmp(f[0], "p") == 0 && n == 2) {
        diagram_participant(d, f[1]);
    } else if (strcmp(f[0], "t") == 0 && n == 5 && parse_seconds(f[1], &next->time) &&
               parse_seconds(f[2], &next->delta) && (!*f[4] || parse_ulong(f[4], &next->line))) {
        free(next->file);
        next->file = *f[3] ? xstrdup(f[3]) : NULL;
    } else if (strcmp(f[0], "a") == 0 && n == 4) {
        return add_message(d, next, f[1], f[3], &f[2], 1);
    } else if (strcmp(f[0], "g") == 0 && n >= 4) {
        return add_message(d, next, f[1], f[2], f + 3, n - 3);
    } else if (strcmp(f[0], "m") == 0 && mark >= 0 && parse_ulong(f[1], &number)) {
        diagram_mark(d, number, (enum diagram_mark)mark, f[3]);
    } else if (strcmp(f[0], "n") == 0 && mark >= 0) {
        diagram_note(d, diagram_participant(d, f[1]), (enum diagram_mark)mark, f[3]);
    } else if (strcmp(f[0], "o") == 0 && end >= 0 && parse_ulong(f[1], &number)) {
        diagram_outcome(d, number, (enum diagram_end)end, f[3]);
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    util_set_progname("diagram");
    struct diagram_fit fit;
    struct diagram_layout layout = {.fit = &fit};
    bool tell_fit = false;
    unsigned long number;
    int arg = 1;
    for (; arg < argc && strncmp(argv[arg], "--", 2) == 0; arg++) {
        if (strcmp(argv[arg], "--no-times") == 0) {
            layout.no_times = true;
        } else if (strcmp(argv[arg], "--fit") == 0) {
            tell_fit = true;
        } else if (strcmp(argv[arg], "--color") == 0) {
            layout.color = true;
        } else if (strncmp(argv[arg], "--width=", 8) == 0 && parse_ulong(argv[arg] + 8, &number)) {
            layout.width = number;
        } else if (strncmp(argv[arg], "--page-size=", 12) == 0 &&
                   parse_ulong(argv[arg] + 12, &number)) {
            layout.page_size = number;
        } else {
            fprintf(stderr, "diagram: unknown option %s\n", argv[arg]);
            return 2;
        }
    }
    int format = argc - arg >= 1 ? word_index(argv[arg], formats, 4) : -1;
    if (argc - arg < 1 || argc - arg > 2 || format < 0) {
        fputs("usage: diagram [--no-times] [--page-size=N] [--width=N] [--color] [--fit] "
              "mermaid|plantuml|svg|text [TITLE] <SCRIPT\n",
              stderr);
        return 2;
    }
    struct diagram *d =
        diagram_new((enum diagram_format)format, argc - arg == 2 ? unescape(argv[arg + 1]) : NULL);
    struct next next = {NAN, NAN, NULL, 0};
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        if (run(d, &next, line) != 0) {
            fprintf(stderr, "diagram: line %zu: bad command\n", lineno);
            free(line);
            free(next.file);
            diagram_free(d);
            return 2;
        }
    }
    free(line);
    free(next.file);
    struct strbuf out = STRBUF_INIT;
    diagram_render(d, &layout, &out);
    fprintf(stderr, "arrows %zu participants %zu\n", diagram_arrows(d), diagram_participants(d));
    if (tell_fit)
        fprintf(stderr, "pages %zu too-big %d width %zu height %zu\n", fit.pages, fit.too_big,
                fit.width, fit.height);
    diagram_free(d);
    int failed = fwrite(out.buf, 1, out.len, stdout) != out.len;
    sb_free(&out);
    if (fclose(stdout) != 0 || failed) {
        perror("diagram: writing output failed");
        return 2;
    }
    return 0;
}
