/* proc-tree.h: the threads of a process and of every process descended from it, read from /proc
 * (task/<tid>/children). A snapshot: what is created while it is read may be missed. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

typedef struct ProcThread {
        pid_t pid;
        pid_t tid;
} ProcThread;

/* Fills a fresh array with the threads, the given process's first. -ESRCH if pid is gone, -E2BIG
 * past max threads. */
int proc_tree_threads(pid_t pid, size_t max, ProcThread **ret, size_t *ret_n);
