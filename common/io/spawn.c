#define _GNU_SOURCE /* pipe2 */
#include "io/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child, between fork and exec: its own process group; pipes on its stdin and stdout;
 * SIGPIPE as the default has it, and the mask asked for. Exec's errno goes up the report pipe,
 * which exec closes when it succeeds. */
static _Noreturn void become_child(char *const *argv, const int in[2], const int out[2], int report,
                                   const struct spawn_config *cfg, pid_t parent)
{
    setpgid(0, 0);
    if (cfg->dies_with_parent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* it died before the line above */
            _exit(127);
    }
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, cfg->mask ? cfg->mask : &none, NULL);
    if (dup2(in[0], STDIN_FILENO) >= 0 && dup2(out[1], STDOUT_FILENO) >= 0)
        execvp(argv[0], argv);
    int err = errno;
    (void)!write(report, &err, sizeof err);
    _exit(127);
}

static void close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}

/* What the child wrote on the report pipe: exec's errno, or 0 when exec closed it. */
static int exec_error(int report)
{
    int err = 0;
    ssize_t got;
    do
        got = read(report, &err, sizeof err);
    while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof err ? err : 0;
}

enum spawn_failure spawn_piped(char *const *argv, const struct spawn_config *cfg,
                               struct spawned *child, int *err)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, report[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
        *err = errno;
        close_pair(in);
        close_pair(out);
        close_pair(report);
        return SPAWN_NO_PIPE;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        become_child(argv, in, out, report[1], cfg, parent);
    *err = errno;
    close(in[0]);
    close(out[1]);
    close(report[1]);
    int exec_err = pid > 0 ? exec_error(report[0]) : 0;
    close(report[0]);
    if (pid < 0 || exec_err) {
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            *err = exec_err;
        }
        close(in[1]);
        close(out[0]);
        return pid < 0 ? SPAWN_NO_FORK : SPAWN_NO_EXEC;
    }
    setpgid(pid, pid); /* as the child does, so that no signal finds it still in ours */
    *child = (struct spawned){.pid = pid, .in = in[1], .out = out[0]};
    return SPAWN_STARTED;
}
