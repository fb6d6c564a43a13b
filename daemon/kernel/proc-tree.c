/* proc-tree.c: see proc-tree.h. Walks processes breadth first with a queue of pids. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "proc-tree.h"

DEFINE_FREEP(DIR, closedir);
DEFINE_FREEP(FILE, fclose);

typedef struct PidList {
        ProcThread *items;
        size_t n, allocated, max;
} PidList;

/* Processes go in as (pid, pid), threads as (pid, tid). */
static int pid_list_add(PidList *l, pid_t pid, pid_t tid) {
        if (l->n >= l->max)
                return -E2BIG;
        if (l->n == l->allocated) {
                size_t n = l->allocated ? l->allocated * 2 : 16;
                ProcThread *p = reallocarray(l->items, n, sizeof(ProcThread));
                if (!p)
                        return -ENOMEM;
                l->items = p;
                l->allocated = n;
        }
        l->items[l->n++] = (ProcThread) { pid, tid };
        return 0;
}

/* Adds the children that thread tid of pid created to the queue of processes. */
static int add_children(pid_t pid, pid_t tid, PidList *processes) {
        _cleanup_(fclosep) FILE *f = NULL;
        char path[64];
        int child, r;

        (void) snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int) pid, (int) tid);
        f = fopen(path, "re");
        if (!f)
                return 0;               /* the thread has exited: its children were re-parented */
        while (fscanf(f, "%d", &child) == 1) {
                r = pid_list_add(processes, child, child);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Adds the threads of pid to threads, and its child processes to processes. */
static int add_process(pid_t pid, PidList *threads, PidList *processes) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        char path[64];
        int r;

        (void) snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        d = opendir(path);
        if (!d)
                return -ESRCH;
        while ((de = readdir(d))) {
                pid_t tid = (pid_t) atoi(de->d_name);

                if (tid <= 0)
                        continue;
                r = pid_list_add(threads, pid, tid);
                if (r < 0)
                        return r;
                r = add_children(pid, tid, processes);
                if (r < 0)
                        return r;
        }
        return 0;
}

int proc_tree_threads(pid_t pid, size_t max, ProcThread **ret, size_t *ret_n) {
        PidList threads = { .max = max }, processes = { .max = max };
        int r;

        r = pid_list_add(&processes, pid, pid);
        for (size_t i = 0; r >= 0 && i < processes.n; i++) {
                r = add_process(processes.items[i].pid, &threads, &processes);
                if (r == -ESRCH && i > 0)
                        r = 0;          /* a descendant that exited meanwhile */
        }
        free(processes.items);
        if (r < 0) {
                free(threads.items);
                return r;
        }
        *ret = threads.items;
        *ret_n = threads.n;
        return 0;
}
