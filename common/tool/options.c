#include "tool/options.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/timeutil.h"
#include "proto/mcp.h"

enum { DEFAULT_MAX_LINE_BYTES = 1024 * 1024 };
/* More threads than this would only cost memory: no machine we run on has that many cores. */
enum { MAX_JOBS = 256 };

static const struct opt every_tool[] = {
    {"output", 'o', required_argument, "FILE", "write the output to FILE instead of stdout"},
    {"rejects", OPT_REJECTS, required_argument, "FILE",
     "write every rejected line, verbatim, to FILE"},
    {"diagnostics", OPT_DIAGNOSTICS, required_argument, "FORMAT",
     "diagnostics on stderr as 'text' (default) or 'json'"},
    {"color", OPT_COLOR, required_argument, "WHEN", "colour diagnostics: auto, always or never"},
    {"stats", OPT_STATS, no_argument, NULL, "print the counts of the run on stderr at the end"},
    {"max-line-bytes", OPT_MAX_LINE_BYTES, required_argument, "N",
     "reject lines longer than N bytes (default 1M; K, M, G suffixes)"},
    {"explain", OPT_EXPLAIN, required_argument, "CODE",
     "explain a diagnostic code ('list' lists them all) and exit"},
    {"help", 'h', no_argument, NULL, "display this help and exit"},
    {"version", OPT_VERSION, no_argument, NULL, "output version information and exit"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt help_and_version[] = {
    {"help", 'h', no_argument, NULL, "display this help and exit"},
    {"version", OPT_VERSION, no_argument, NULL, "output version information and exit"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt checks_group[] = {
    {"quiet", 'q', no_argument, NULL, "write nothing on stdout or stderr; only the exit status"},
    {"strict", OPT_STRICT, no_argument, NULL, "treat warnings as errors"},
    {"max-errors", OPT_MAX_ERRORS, required_argument, "N", "stop reading after N errors"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt engine_group[] = {
    {"queen", OPT_QUEEN, required_argument, "NAME", "the queen's agent name (default: queen)"},
    {"slots", OPT_SLOTS, required_argument, "AGENT=N",
     "AGENT may hold N outstanding task.assign at once (repeatable)"},
    {"assign-timeout", OPT_ASSIGN_TIMEOUT, required_argument, "SECONDS",
     "message time after which the queen reissues an assign (default 300)"},
    {"max-skew", OPT_MAX_SKEW, required_argument, "SECONDS",
     "clock skew tolerated between a reply and its cause (default 2)"},
    {"clock-skew", OPT_CLOCK_SKEW, required_argument, "SECONDS",
     "a sender's clock offset from the others tolerated (default 30)"},
    {"idle-timeout", OPT_IDLE_TIMEOUT, required_argument, "SECONDS",
     "message time after which idle state is forgotten (default 3600)"},
    {"max-open", OPT_MAX_OPEN, required_argument, "N",
     "most open conversations kept; the oldest is evicted (default 100000)"},
    {"request-timeout", OPT_REQUEST_TIMEOUT, required_argument, "SECONDS",
     "message time an MCP request waits for its response (default 60)"},
    {"mcp-revision", OPT_MCP_REVISION, required_argument, "REV",
     "check every MCP session as of REV: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or "
     "2026-07-28 (default: what its initialize agreed)"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt linger_group[] = {
    {"linger", OPT_LINGER, required_argument, "SECONDS",
     "time an ended conversation waits for late messages (default 2)"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt live_group[] = {
    {"wall-clock", OPT_WALL_CLOCK, no_argument, NULL,
     "message time also passes while the input is idle, and what falls due is told then "
     "(a live stream)"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt progress_group[] = {
    {"no-progress", OPT_NO_PROGRESS, no_argument, NULL,
     "no progress line on the terminal during long runs"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt fipa_group[] = {
    {"fipa-profile", OPT_FIPA_PROFILE, required_argument, "PROFILE",
     "FIPA members required: 'caxton' (default) or 'standard' (SC00061)"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt jobs_group[] = {
    {"jobs", 'j', required_argument, "N",
     "work on N threads (0: one per core; default 1); the output stays the same"},
    {NULL, 0, 0, NULL, NULL},
};

static const struct opt clock_group[] = {
    {"now", OPT_NOW, required_argument, "TIME",
     "the current time, as unix seconds or RFC 3339 (default: SOURCE_DATE_EPOCH, else the "
     "clock)"},
    {"seed", OPT_SEED, required_argument, "N", "seed for fresh ids, so that runs reproduce"},
    {NULL, 0, 0, NULL, NULL},
};

void options_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", util_progname());
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", util_progname());
}

bool options_bad_value(const char *option, const char *what)
{
    options_usage_error("--%s takes %s", option, what);
    return false;
}

int options_choice(const char *option, const char *arg, const char *const *words)
{
    size_t n = 0;
    for (; words[n]; n++)
        if (strcmp(words[n], arg) == 0)
            return (int)n;
    struct strbuf list = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        sb_addf(&list, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", words[i]);
    options_usage_error("--%s must be %s", option, list.buf ? list.buf : "");
    sb_free(&list);
    return -1;
}

bool options_partition(const char *arg, unsigned long *k, unsigned long *n)
{
    const char *slash = strchr(arg, '/');
    char *first = slash ? xstrndup(arg, (size_t)(slash - arg)) : NULL;
    bool ok = first && parse_ulong(first, k) && parse_ulong(slash + 1, n) && *k >= 1 && *k <= *n;
    free(first);
    if (!ok)
        options_usage_error("--partition must be K/N with 1 <= K <= N, as in --partition=2/5");
    return ok;
}

bool options_positive_duration(const char *arg, double *seconds)
{
    double v;
    if (!parse_duration(arg, &v) || !(v > 0) || !isfinite(v))
        return false;
    *seconds = v;
    return true;
}

/* The tables in the order --help shows them: the tool's own first. */
static size_t collect(const struct tool_spec *spec, const struct opt **out, size_t max)
{
    const struct opt *tables[] = {spec->options,
                                  (spec->groups & GROUP_CHECKS) ? checks_group : NULL,
                                  (spec->groups & GROUP_ENGINE) ? engine_group : NULL,
                                  (spec->groups & GROUP_LINGER) ? linger_group : NULL,
                                  (spec->groups & GROUP_LIVE) ? live_group : NULL,
                                  (spec->groups & GROUP_FIPA) ? fipa_group : NULL,
                                  (spec->groups & GROUP_CLOCK) ? clock_group : NULL,
                                  (spec->groups & GROUP_PROGRESS) ? progress_group : NULL,
                                  (spec->groups & GROUP_JOBS) ? jobs_group : NULL,
                                  (spec->groups & GROUP_COMMAND) ? help_and_version : every_tool};
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        for (const struct opt *o = tables[t]; o && o->name && n < max; o++)
            out[n++] = o;
    return n;
}

enum { MAX_OPTIONS = 64 };

static void print_help(const struct tool_spec *spec)
{
    const struct opt *all[MAX_OPTIONS];
    size_t n = collect(spec, all, MAX_OPTIONS);
    printf("Usage: %s %s\n%s\n\nOptions:\n", spec->name, spec->usage, spec->summary);
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = all[i];
        char left[64];
        if (o->key < 256)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->key, o->name, o->arg ? "=" : "",
                     o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? "=" : "",
                     o->arg ? o->arg : "");
        if (strlen(left) < 26)
            printf("  %-26s %s\n", left, o->help);
        else
            printf("  %s\n  %-26s %s\n", left, "", o->help);
    }
    if (strstr(spec->usage, "FILE") && !(spec->groups & GROUP_COMMAND)) /* its FILE is --out's */
        (void)fputs("\nWith no FILE, or when FILE is -, read standard input.\n", stdout);
    if (spec->help_tail)
        printf("\n%s", spec->help_tail);
    printf("\n%s", spec->exit_status ? spec->exit_status
                                     : "Exit status: 0 if all is well (warnings allowed), 1 if an "
                                       "error was found,\n2 on a usage or I/O error, 130 when "
                                       "interrupted.\n");
    printf("Full documentation: man %s\n", spec->name);
}

static void print_version(const struct tool_spec *spec)
{
    printf("%s (%s) %s\n", spec->name, ACP_PACKAGE, ACP_VERSION);
    (void)fputs("Copyright (c) 2026 the acp-tools authors.\n"
                "License MIT: see the LICENSE file of acp-tools.\n"
                "This is free software: you are free to change and redistribute it.\n",
                stdout);
}

static int explain(const char *code)
{
    if (strcmp(code, "list") == 0) {
        struct diag_code_walk w;
        for (const struct diag_code *c = diag_code_first(&w); c; c = diag_code_next(&w))
            printf("%-24s %-8s %s\n", c->code, c->severity, c->summary);
        return 0;
    }
    const struct diag_code *c = diag_code_find(code);
    if (!c) {
        struct strbuf shown = STRBUF_INIT;
        escape_text(&shown, code, strlen(code), 80);
        options_usage_error("unknown diagnostic code '%s' (--explain=list lists them)", shown.buf);
        sb_free(&shown);
        return 2;
    }
    printf("%s (%s): %s\n\n%s\n", c->code, c->severity, c->summary, c->explanation);
    return 0;
}

static int finish_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "%s: write error\n", util_progname());
        return 2;
    }
    return status;
}

static bool add_slots(struct engine_config *e, const char *arg)
{
    const char *eq = strrchr(arg, '=');
    unsigned long n;
    if (!eq || eq == arg || !parse_ulong(eq + 1, &n) || n == 0)
        return false;
    e->slots = xrealloc(e->slots, (e->nslots + 1) * sizeof *e->slots);
    e->slots[e->nslots++] = (struct slot_override){xstrndup(arg, (size_t)(eq - arg)), n};
    return true;
}

void options_free(struct common_opts *opts)
{
    for (size_t i = 0; i < opts->engine.nslots; i++)
        free((char *)opts->engine.slots[i].agent);
    free(opts->engine.slots);
    opts->engine.slots = NULL;
    opts->engine.nslots = 0;
}

static bool engine_option(struct engine_config *e, int key, const char *arg)
{
    unsigned long n;
    switch (key) {
    case OPT_QUEEN:
        e->queen = arg;
        return *arg != '\0';
    case OPT_SLOTS:
        return add_slots(e, arg);
    case OPT_ASSIGN_TIMEOUT:
        return parse_duration(arg, &e->assign_timeout);
    case OPT_MAX_SKEW:
        return parse_duration(arg, &e->max_skew);
    case OPT_LINGER:
        return parse_duration(arg, &e->linger);
    case OPT_CLOCK_SKEW:
        return parse_duration(arg, &e->clock_skew) && e->clock_skew > 0;
    case OPT_IDLE_TIMEOUT:
        return parse_duration(arg, &e->idle_timeout);
    case OPT_REQUEST_TIMEOUT:
        return parse_duration(arg, &e->request_timeout) && e->request_timeout > 0;
    case OPT_MCP_REVISION:
        for (const char *const *r = mcp_revisions; *r; r++)
            if (strcmp(arg, *r) == 0)
                return (e->mcp_revision = *r) != NULL;
        return false;
    case OPT_MAX_OPEN:
        if (!parse_ulong(arg, &n) || n == 0)
            return false;
        e->max_open = n;
        return true;
    case OPT_WALL_CLOCK:
        e->wall_clock = true;
        return true;
    }
    return false;
}

static bool common_option(struct common_opts *o, int key, const char *arg)
{
    unsigned long long size;
    switch (key) {
    case OPT_QUEEN:
    case OPT_SLOTS:
    case OPT_ASSIGN_TIMEOUT:
    case OPT_MAX_SKEW:
    case OPT_LINGER:
    case OPT_CLOCK_SKEW:
    case OPT_IDLE_TIMEOUT:
    case OPT_REQUEST_TIMEOUT:
    case OPT_MCP_REVISION:
    case OPT_MAX_OPEN:
    case OPT_WALL_CLOCK:
        if (engine_option(&o->engine, key, arg))
            return true;
        break;
    case OPT_FIPA_PROFILE:
        if (fipa_profile_parse(arg, &o->engine.fipa_profile))
            return true;
        break;
    case 'o':
        o->output = arg;
        return *arg != '\0';
    case OPT_REJECTS:
        o->rejects = arg;
        return *arg != '\0';
    case OPT_STATS:
        o->stats = true;
        return true;
    case 'q':
        o->quiet = true;
        return true;
    case OPT_NO_PROGRESS:
        o->progress = false;
        return true;
    case OPT_STRICT:
        o->strict = true;
        return true;
    case OPT_DIAGNOSTICS:
        if (strcmp(arg, "text") == 0)
            o->diagnostics = DIAG_TEXT;
        else if (strcmp(arg, "json") == 0)
            o->diagnostics = DIAG_JSON;
        else
            break;
        return true;
    case OPT_COLOR:
        if (strcmp(arg, "auto") == 0)
            o->color = COLOR_AUTO;
        else if (strcmp(arg, "always") == 0)
            o->color = COLOR_ALWAYS;
        else if (strcmp(arg, "never") == 0)
            o->color = COLOR_NEVER;
        else
            break;
        return true;
    case OPT_MAX_LINE_BYTES:
        if (!parse_size(arg, &size) || size == 0 || size > (1ULL << 40))
            break;
        o->max_line_bytes = (size_t)size;
        o->max_line_bytes_given = true;
        return true;
    case OPT_MAX_ERRORS:
        if (!parse_ulong(arg, &o->max_errors) || o->max_errors == 0)
            break;
        return true;
    case OPT_NOW:
        if (!time_parse_now(arg, &o->now))
            break;
        o->now_given = true;
        return true;
    case 'j':
        if (!parse_ulong(arg, &o->jobs) || o->jobs > MAX_JOBS)
            break;
        return true;
    case OPT_SEED:
        if (!parse_ulong(arg, &o->seed))
            break;
        o->seed_given = true;
        return true;
    default:
        return false;
    }
    return false;
}

static void report_bad_argument(const struct opt *const *all, size_t n, int key, const char *arg)
{
    const char *name = "?";
    for (size_t i = 0; i < n; i++)
        if (all[i]->key == key)
            name = all[i]->name;
    struct strbuf shown = STRBUF_INIT;
    escape_text(&shown, arg, strlen(arg), 80);
    options_usage_error("invalid argument '%s' for '--%s'", shown.buf, name);
    sb_free(&shown);
}

static bool is_common_key(int key)
{
    return key == 'o' || key == 'q' || key == 'j' || (key >= OPT_REJECTS && key < OPT_TOOL);
}

static void set_clock_defaults(struct common_opts *o)
{
    if (o->now_given)
        return;
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    unsigned long secs;
    if (sde && parse_ulong(sde, &secs)) {
        o->now = (time_t)secs;
        o->now_given = true;
        return;
    }
    o->now = time(NULL);
}

static void build_getopt(const struct opt **all, size_t n, struct option *longs, char *shorts,
                         bool stop_at_operand)
{
    char *s = shorts;
    if (stop_at_operand)
        *s++ = '+'; /* the options after a command's name are the command's */
    *s++ = ':';     /* report a missing argument as ':' so that we can word it ourselves */
    for (size_t i = 0; i < n; i++) {
        longs[i] = (struct option){all[i]->name, all[i]->has_arg, NULL, all[i]->key};
        if (all[i]->key < 256) {
            *s++ = (char)all[i]->key;
            if (all[i]->has_arg)
                *s++ = ':';
        }
    }
    longs[n] = (struct option){NULL, 0, NULL, 0};
    *s = '\0';
}

/* How many long options start with the name in word ("--st" or "--st=x"). */
static size_t options_matching(const struct option *longs, const char *word)
{
    size_t len = strcspn(word + 2, "="), n = 0;
    for (const struct option *o = longs; o->name; o++)
        if (strncmp(o->name, word + 2, len) == 0)
            n++;
    return n;
}

static void report_bad_option(const struct option *longs, const char *word, int key)
{
    struct strbuf shown = STRBUF_INIT;
    if (key == '?' && strncmp(word, "--", 2) == 0 && options_matching(longs, word) > 1) {
        escape_text(&shown, word, strcspn(word, "="), 80);
        options_usage_error("option '%s' is ambiguous", shown.buf);
    } else if (key == '?' && optopt > 0 && optopt < 256) {
        char letter = (char)optopt;
        escape_text(&shown, &letter, 1, 0);
        options_usage_error("invalid option -- '%s'", shown.buf);
    } else {
        escape_text(&shown, word, strcspn(word, "="), 80);
        options_usage_error(key == ':' ? "option '%s' requires an argument"
                                       : "unrecognized option '%s'",
                            shown.buf);
    }
    sb_free(&shown);
}

int options_parse(const struct tool_spec *spec, struct common_opts *opts, int argc, char **argv)
{
    memset(opts, 0, sizeof *opts);
    opts->max_line_bytes = DEFAULT_MAX_LINE_BYTES;
    opts->jobs = 1;
    engine_config_defaults(&opts->engine);
    opts->progress = (spec->groups & GROUP_PROGRESS) != 0;
    const struct opt *all[MAX_OPTIONS];
    size_t n = collect(spec, all, MAX_OPTIONS);
    struct option longs[MAX_OPTIONS + 1];
    char shorts[2 * MAX_OPTIONS + 3];
    build_getopt(all, n, longs, shorts, spec->groups & GROUP_COMMAND);
    opterr = 0;
    int key;
    while ((key = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (key == '?' || key == ':') {
            report_bad_option(longs, argv[optind - 1 > 0 ? optind - 1 : 1], key);
            return -1;
        }
        if (key == 'h') {
            print_help(spec);
            exit(finish_stdout(0));
        }
        if (key == OPT_VERSION) {
            print_version(spec);
            exit(finish_stdout(0));
        }
        if (key == OPT_EXPLAIN) {
            int status = explain(optarg);
            exit(finish_stdout(status));
        }
        if (is_common_key(key)) {
            if (!common_option(opts, key, optarg)) {
                report_bad_argument(all, n, key, optarg);
                return -1;
            }
        } else if (!spec->handle(spec->ctx, key, optarg)) {
            return -1;
        }
    }
    set_clock_defaults(opts); /* also for a tool that takes --now as its own option */
    return optind;
}

bool options_color_on(const struct common_opts *opts, int fd)
{
    if (opts->color != COLOR_AUTO)
        return opts->color == COLOR_ALWAYS;
    const char *term = getenv("TERM");
    const char *no_color = getenv("NO_COLOR");
    /* no-color.org: an empty NO_COLOR is the same as none. */
    return isatty(fd) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

bool options_want_color(const struct common_opts *opts)
{
    return options_color_on(opts, STDERR_FILENO);
}
