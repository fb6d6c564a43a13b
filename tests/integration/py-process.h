/* py-process.h: a Python program run as another user, spoken to a line at a time. Its threads are
 * plain ones (no libpmapi), so pmapid attaches them from their fork records: what a user's ordinary
 * program does. The script prints "up" once it runs and reads its orders from stdin. */
#pragma once

#include <stdio.h>
#include <sys/types.h>

typedef struct PyProcess {
        pid_t pid;
        FILE *to, *from;
} PyProcess;

/* Runs `python3 -c script [arg]` as uid (its gid the same, no groups) and waits for its "up": 0 or -1. */
int py_process_start(PyProcess *p, uid_t uid, const char *script, const char *arg);
/* Writes what; then, if answer is not NULL, reads a line that must be answer: 0 or -1. */
int py_process_say(PyProcess *p, const char *what, const char *answer);
/* Closes its stdin (the scripts end then) and waits for it. */
void py_process_end(PyProcess *p);
