/* target.h: a target process for the third-party tests: a child of the test, with the identity a
 * test asks for (uids, gids, dumpable), a few parked threads, and commands over a pipe: touch N
 * fresh pages in thread i, or make one of its own first-party pmapi calls. What a debugger or a
 * tool would act on, with counts the test knows. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pmapi.h"

#define TARGET_MAX_THREADS 8

typedef struct TargetIdentity {
        uid_t uid[3];                   /* real, effective, saved */
        gid_t gid[3];
        bool not_dumpable;              /* prctl(PR_SET_DUMPABLE, 0) after the switch */
} TargetIdentity;

/* Root as it is; nobody (65534) dumpable, as after an exec. */
#define TARGET_ROOT ((TargetIdentity) { { 0, 0, 0 }, { 0, 0, 0 }, false })
#define TARGET_UID(u) ((TargetIdentity) { { (u), (u), (u) }, { (u), (u), (u) }, false })

typedef struct Target {
        pid_t pid;
        pid_t tids[TARGET_MAX_THREADS]; /* tids[0] == pid, the main thread */
        int n_threads;
        int cmd_fd, reply_fd;
} Target;

/* Forks the target with n_threads threads (1..TARGET_MAX_THREADS) and waits until it is ready.
 * Returns 0 or -1. */
int target_start(Target *t, const TargetIdentity *id, int n_threads);
/* The same, with the target given pid `want` through /proc/sys/kernel/ns_last_pid (the pid must be
 * free): 0, -1 on failure, 1 if other processes kept taking that pid. */
int target_start_with_pid(Target *t, const TargetIdentity *id, int n_threads, pid_t want);
/* Thread i touches n fresh pages; returns when it is done (0) or -1. */
int target_touch(Target *t, int thread, size_t n);
/* Thread i makes a first-party call; returns its PM code, and for the reads the counts. */
int target_pm_init(Target *t);
int target_get_data_mythread(Target *t, int thread, long long accu[MAX_COUNTERS]);
int target_stop_mythread(Target *t, int thread);
int target_delete_program_mythread(Target *t, int thread);
/* Kills and reaps it. */
void target_kill(Target *t);
