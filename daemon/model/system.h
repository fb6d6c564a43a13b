/* system.h: the system-wide context (AIX pm_set_program): one counter group per CPU, or with
 * PM_PROCTREE one per (thread of the owner's process tree, CPU) with perf's inherit, so that
 * everything the tree creates later is counted from birth; or, a cgroup context (AIX's _wp), one
 * per CPU restricted to one cgroup v2 and its descendants. Keeps each CPU's counts across CPU
 * hotplug: a CPU that goes offline keeps its last counts; one that comes back counts on from there
 * with new counters. Resets are offsets kept per group (a reset of inherit counters keeps what
 * exited children left in them). Who may own it and when it ends is the manager's business (manager-system.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting.h"
#include "counter.h"
#include "program.h"

struct SystemContext;

typedef struct SystemCpu {
        struct SystemContext *system;   /* back pointers, for the CPU's D-Bus object */
        unsigned cpu;
        bool counted;                   /* online at some time since the program was set */
        CounterGroup **groups;          /* open while the CPU is online: one per event set, or with a
                                         * tree one per (tree thread, set): set k of target i is
                                         * groups[i * n_sets + k] */
        size_t n_groups;
        AcctVector kept[PM_MX_MAX_SETS];        /* per set: what counters closed at an offline left,
                                                 * since the last reset */
        AcctVector *bases;              /* per open group: its raw counts and times at the last reset
                                         * (zero for counters opened since): reads scale what came
                                         * since, never an older estimate */
} SystemCpu;

typedef struct SystemContext {
        pid_t owner_pid;
        uid_t owner_uid;
        Program program;
        size_t n_sets;                  /* of program: each set one group per target and CPU */
        ProgramEncoding encoding[PM_MX_MAX_SETS];
        bool counting;
        pid_t *tree;                    /* PM_PROCTREE: the threads counted with inherit; else NULL */
        size_t n_tree;
        /* A cgroup context: the cgroup's id (0 for the others), its directory (to open counters on
         * CPUs that come online; -1 once removed) and its path from the v2 root when set. */
        uint64_t cgroup_id;
        int cgroup_fd;
        char *cgroup_path;
        bool cgroup_removed;            /* seen gone: its counts stay as they stopped */
        SystemCpu *cpus;                /* indexed by Linux CPU number */
        size_t n_cpus;
        const CounterBackend *backend;
        const EventTable *events;
} SystemContext;

/* Opens counters on every CPU in online[0..n_cpus-1] (n_cpus: every possible CPU number), for
 * tree[0..n_tree-1] with inherit when tree is given, and starts them if the program's count bit is
 * set. Takes a copy of tree. Threads of the tree that exited meanwhile are skipped. */
int system_new(const CounterBackend *backend, const EventTable *events, const Program *program,
               pid_t owner_pid, uid_t owner_uid, const pid_t *tree, size_t n_tree, const bool *online,
               size_t n_cpus, SystemContext **ret);
/* The same for a cgroup context: counters on every CPU restricted to the cgroup of cgroup_fd
 * (taken, on success or failure), with id cgroup_id and path cgroup_path (copied). */
int system_new_cgroup(const CounterBackend *backend, const EventTable *events, const Program *program,
                      pid_t owner_pid, uid_t owner_uid, int cgroup_fd, uint64_t cgroup_id, const char *cgroup_path,
                      const bool *online, size_t n_cpus, SystemContext **ret);
SystemContext *system_free(SystemContext *s);
/* A cgroup context: whether its cgroup was removed (rmdir). Checked now, remembered once true. */
bool system_cgroup_removed(SystemContext *s);

int system_start(SystemContext *s);     /* idempotent */
int system_stop(SystemContext *s);      /* idempotent */
int system_reset(SystemContext *s);
/* Counts of one CPU since the program was set (or the last reset): -ENXIO if never counted. Set
 * 0's; system_read_cpu_set() any set's (a multi-set program's raw, as AIX's _mx gives them). */
int system_read_cpu(SystemContext *s, unsigned cpu, AcctVector ret);
int system_read_cpu_set(SystemContext *s, unsigned cpu, size_t set, AcctVector ret);
/* The CPU number that id names: itself when logical, else the id-th CPU online now in CPU number
 * order (AIX's cpuid: numbers shift with hotplug). -ENXIO if none. */
int system_cpu_by_id(const SystemContext *s, uint32_t id, bool logical, unsigned *ret);
/* The sum over every CPU counted, of set 0 or of any set. */
int system_read(SystemContext *s, AcctVector ret);
int system_read_set(SystemContext *s, size_t set, AcctVector ret);
/* The longest time one CPU's counters were enabled (set 0), the sum's own time being over CPUs. */
uint64_t system_longest_enabled(SystemContext *s);
Program system_get_program(const SystemContext *s);

/* Hotplug: cpu went offline (its counters stop; their last counts are kept) or came online (new
 * counters count on from the kept values). Both are idempotent. */
int system_cpu_offline(SystemContext *s, unsigned cpu);
int system_cpu_online(SystemContext *s, unsigned cpu);
bool system_cpu_open(const SystemContext *s, unsigned cpu);
