/* tool-run.h: runs a command-line tool (or any program) as the tests of the tools need it: as a
 * given user, with the C.UTF-8 locale, its stdout and stderr captured whole, started in the
 * background when the test must act while it runs (-p, ^C). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

typedef struct ToolRun {
        pid_t pid;
        int out_fd, err_fd;             /* memfds, read back by tool_run_wait() */
        int status;                     /* exit status; -1 if it did not exit */
        int signal;                     /* the signal that killed it, or 0 */
        char *out, *err;                /* whole, NUL-terminated */
} ToolRun;

/* Starts argv (NULL-terminated, argv[0] a path) as uid (0: as we are), stdin from stdin_fd (-1:
 * /dev/null). Fails the running test if it cannot. */
void tool_run_start(ToolRun *r, uid_t uid, int stdin_fd, const char *const *argv);
/* Waits for it and reads back what it wrote. */
void tool_run_wait(ToolRun *r);
void tool_run_done(ToolRun *r);
/* Start and wait. */
void tool_run(ToolRun *r, uid_t uid, const char *const *argv);
