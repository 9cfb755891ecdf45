/* A command started as a child over two pipes, its stdin and its stdout (never a shell): what
 * acp-tap relays and what transport_exec talks to. */
#ifndef ACP_SPAWN_H
#define ACP_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct spawn_config {
    /* the child's signal mask (NULL: none blocked); SIGPIPE is as the default has it */
    const sigset_t *mask;
    /* the child is killed should its parent die first (a peer of acp-replay or acp-send, which
     * no one else would end); acp-tap's child outlives it, as it would without a tap */
    bool dies_with_parent;
};

struct spawned {
    pid_t pid; /* also its process group's: a terminal's ^C reaches it once, from its parent */
    int in;    /* its stdin, ours to write */
    int out;   /* its stdout, ours to read */
};

/* Where starting a command failed. */
enum spawn_failure {
    SPAWN_STARTED,
    SPAWN_NO_PIPE, /* errno from pipe2 */
    SPAWN_NO_FORK, /* from fork */
    SPAWN_NO_EXEC, /* from execvp, or dup2 in the child: the command cannot be run */
};

/* Starts argv[0] (looked for in PATH) with argv; SPAWN_STARTED with *child filled, or where it
 * failed with *err set to the errno why. Both pipes are close-on-exec on our side. */
enum spawn_failure spawn_piped(char *const *argv, const struct spawn_config *cfg,
                               struct spawned *child, int *err);

#endif
