/* system.h: the system-wide context (AIX pm_set_program): one counter group per CPU, or with
 * PM_PROCTREE one per (thread of the owner's process tree, CPU) with perf's inherit, so that
 * everything the tree creates later is counted from birth. Keeps each CPU's counts across CPU
 * hotplug: a CPU that goes offline keeps its last counts; one that comes back counts on from there
 * with new counters. Resets are offsets (a reset of inherit counters keeps what exited children
 * left in them). Who may own it and when it ends is the manager's business (manager-system.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "accounting.h"
#include "counter.h"
#include "program.h"

struct SystemContext;

typedef struct SystemCpu {
        struct SystemContext *system;   /* back pointers, for the CPU's D-Bus object */
        unsigned cpu;
        bool counted;                   /* online at some time since the program was set */
        CounterGroup **groups;          /* open while the CPU is online: 1, or one per tree thread */
        size_t n_groups;
        AcctVector kept;                /* what counters closed at an offline left */
        AcctVector base;                /* kept + live counts at the last reset */
} SystemCpu;

typedef struct SystemContext {
        pid_t owner_pid;
        uid_t owner_uid;
        Program program;
        ProgramEncoding encoding;
        bool counting;
        pid_t *tree;                    /* PM_PROCTREE: the threads counted with inherit; else NULL */
        size_t n_tree;
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
SystemContext *system_free(SystemContext *s);

int system_start(SystemContext *s);     /* idempotent */
int system_stop(SystemContext *s);      /* idempotent */
int system_reset(SystemContext *s);
/* Counts of one CPU since the program was set (or the last reset): -ENXIO if never counted. */
int system_read_cpu(SystemContext *s, unsigned cpu, AcctVector ret);
/* The sum over every CPU counted. */
int system_read(SystemContext *s, AcctVector ret);
Program system_get_program(const SystemContext *s);

/* Hotplug: cpu went offline (its counters stop; their last counts are kept) or came online (new
 * counters count on from the kept values). Both are idempotent. */
int system_cpu_offline(SystemContext *s, unsigned cpu);
int system_cpu_online(SystemContext *s, unsigned cpu);
bool system_cpu_open(const SystemContext *s, unsigned cpu);
