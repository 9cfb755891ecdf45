/* The options layer: one table per tool plus the options every tool takes, each with its help
 * text, so that --help, the man pages and the completions have one source to agree with. */
#ifndef ACP_OPTIONS_H
#define ACP_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <time.h>

#include "diag/diag.h"
#include "engine/engine.h"

/* Keys of long options without a short letter; tools number theirs from OPT_TOOL. */
enum {
    OPT_REJECTS = 256,
    OPT_DIAGNOSTICS,
    OPT_COLOR,
    OPT_STATS,
    OPT_MAX_LINE_BYTES,
    OPT_EXPLAIN,
    OPT_STRICT,
    OPT_MAX_ERRORS,
    OPT_NOW,
    OPT_SEED,
    OPT_QUEEN,
    OPT_SLOTS,
    OPT_ASSIGN_TIMEOUT,
    OPT_MAX_SKEW,
    OPT_CLOCK_SKEW,
    OPT_IDLE_TIMEOUT,
    OPT_MAX_OPEN,
    OPT_REQUEST_TIMEOUT,
    OPT_MCP_REVISION,
    OPT_FIPA_PROFILE,
    OPT_WALL_CLOCK,
    OPT_LINGER,
    OPT_NO_PROGRESS,
    OPT_VERSION,
    OPT_TOOL = 512,
};

struct opt {
    const char *name; /* long name; NULL ends a table */
    int key;          /* short letter, or an OPT_* key */
    int has_arg;      /* no_argument or required_argument */
    const char *arg;  /* the argument's name in --help */
    const char *help;
};

/* Groups of shared options a tool may take besides the ones every tool takes. */
enum {
    GROUP_CHECKS = 1, /* --quiet, --strict, --max-errors */
    GROUP_CLOCK = 2,  /* --now, --seed: tools that write times or fresh ids */
    GROUP_ENGINE = 4, /* --queen, --slots, timeouts: tools that follow conversations */
    GROUP_FIPA = 8,   /* --fipa-profile: tools that check FIPA messages */
    GROUP_LIVE = 16,  /* --wall-clock: tools whose engine may watch a live stream */
    /* --no-progress: tools that show the progress of a long run on a terminal */
    GROUP_PROGRESS = 64,
    GROUP_JOBS = 32, /* --jobs: tools whose per-message work may run on several cores */
    /* --linger: tools whose engine holds a FIPA conversation that ended for late messages */
    GROUP_LINGER = 128,
    /* A tool that runs a command (acp-tap): its options end at the command's name, and it takes
     * none of a filter's, only --help and --version besides its own. */
    GROUP_COMMAND = 256,
};

enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct common_opts {
    const char *output;  /* NULL: standard output */
    const char *rejects; /* NULL: rejected lines are only reported */
    enum diag_format diagnostics;
    enum color_when color;
    bool stats;
    bool quiet;
    bool progress; /* the tool shows progress (GROUP_PROGRESS) and --no-progress was not given */
    bool strict;
    unsigned long max_errors; /* 0: no limit */
    size_t max_line_bytes;
    bool max_line_bytes_given;
    bool now_given;
    time_t now; /* --now, else SOURCE_DATE_EPOCH, else the clock */
    bool seed_given;
    unsigned long seed;
    unsigned long jobs; /* --jobs: worker threads; 1 (the default) for none, 0 for one per core */
    struct engine_config engine;
};

/* Frees what options_parse allocated (the --slots list). */
void options_free(struct common_opts *opts);

struct tool_spec {
    const char *name;
    const char *usage;   /* after the name, e.g. "[OPTION]... [FILE]..." */
    const char *summary; /* one sentence */
    const struct opt *options;
    unsigned groups;
    const char *help_tail;   /* more text after the option list, or NULL */
    const char *exit_status; /* the paragraph on exit statuses, or NULL for the usual one */
    /* Takes one of the tool's own options; returns false (after saying why) on a bad value. */
    bool (*handle)(void *ctx, int key, const char *arg);
    void *ctx;
};

/* Parses argv. Returns the index of the first operand, or -1 for a usage error (already
 * reported; exit with 2). --help, --version and --explain print and exit 0 here. */
int options_parse(const struct tool_spec *spec, struct common_opts *opts, int argc, char **argv);

/* Reports a usage error in the GNU way, with the hint to try --help. */
void options_usage_error(const char *fmt, ...) ACP_PRINTF(1, 2);

/* Reports the usage error "--OPTION takes WHAT"; returns false, so that a tool's handler can
 * say `return parse(arg) || options_bad_value("limit", "a whole number above 0");`. */
bool options_bad_value(const char *option, const char *what);

/* Which of the words (NULL-terminated) arg is, as an index; -1 after the usage error "--OPTION
 * must be A, B or C" when it is none of them. */
int options_choice(const char *option, const char *arg, const char *const *words);

/* Parses a duration (seconds, or with an s, m or h suffix) above 0; false, *seconds untouched,
 * when arg is none. */
bool options_positive_duration(const char *arg, double *seconds);

/* --partition=K/N (acp-validate, acp-trace): 1 <= K <= N; false after a usage error. */
bool options_partition(const char *arg, unsigned long *k, unsigned long *n);

/* Whether diagnostics on stderr should be coloured. */
bool options_want_color(const struct common_opts *opts);
/* Whether what goes to fd should be: --color=always or never, or with auto when fd is a terminal,
 * NO_COLOR is empty or unset, and TERM is not dumb. */
bool options_color_on(const struct common_opts *opts, int fd);

#endif
