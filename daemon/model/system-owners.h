/* system-owners.h: the system-wide contexts pmapid holds, one per owner process (docs/design.md, A6).
 * AIX has one system-wide context; Linux counts each process tree on its own, so any number of
 * PM_PROCTREE contexts (each owner process its own) coexist with the one context that counts every
 * process (root's, AIX's single slot): a user's process tree never keeps root from counting the
 * machine, and no two owners share counters. Each owner process is pinned with a pidfd; its exit
 * frees its context. CPU hotplug is followed for all of them while any exists. Who may set one is
 * manager-system.c's business. Cgroup contexts (AIX's _wp) live here too, keyed by owner and cgroup:
 * a process may count several cgroups, each once (manager-cgroup.c). */
#pragma once

#include <glib.h>
#include <systemd/sd-event.h>

#include "cpu-watch.h"
#include "system.h"

/* Contexts one uid may own at a time (one per process): a process tree costs a counter group per
 * thread and CPU. */
#define SYSTEM_OWNERS_MAX_PER_UID 4
/* Cgroup contexts one uid may own at a time (each process one per cgroup): a group per CPU each. */
#define SYSTEM_OWNERS_MAX_CGROUPS_PER_UID 64

typedef struct SystemOwners {
        sd_event *event;                /* NULL (unit tests): owner exits are not watched */
        GHashTable *by_pid;             /* owner pid -> SystemOwner* (system-owners.c) */
        SystemContext *every_process;   /* the one without PM_PROCTREE, or NULL; also in by_pid */
        CpuWatch *cpu_watch;            /* while any context exists */
} SystemOwners;

int system_owners_new(sd_event *event, SystemOwners **ret);
SystemOwners *system_owners_free(SystemOwners *o);

/* Takes s (owner s->owner_pid, which must own none yet): pins the owner and watches its exit.
 * -ESRCH if the owner is gone already (s is freed). */
int system_owners_add(SystemOwners *o, SystemContext *s);
/* The same with the owner already pinned by pidfd (a handover, handover.h): takes pidfd. */
int system_owners_add_pinned(SystemOwners *o, SystemContext *s, int pidfd);
/* The owner's pin of context s, for a handover: -1 if none. */
int system_owners_pidfd(const SystemOwners *o, const SystemContext *s);
/* The system-wide context process pid owns (not a cgroup one), or NULL. */
SystemContext *system_owners_get(const SystemOwners *o, pid_t pid);
/* The context process pid owns on cgroup cgroup_id, or NULL. */
SystemContext *system_owners_get_cgroup(const SystemOwners *o, pid_t pid, uint64_t cgroup_id);
/* Frees the system-wide context pid owns, if any. */
void system_owners_remove(SystemOwners *o, pid_t pid);
/* Frees s, one of the set's. */
void system_owners_remove_context(SystemOwners *o, SystemContext *s);
size_t system_owners_count(const SystemOwners *o);
/* uid's cgroup contexts (cgroups true) or its other system-wide ones. */
size_t system_owners_count_uid(const SystemOwners *o, uid_t uid, bool cgroups);
/* The counter groups uid's contexts hold now (threads x online CPUs), as a new context's are
 * counted: a machine with many possible CPUs and few online ones is not refused early. */
size_t system_owners_groups_uid(const SystemOwners *o, uid_t uid);
/* Brings every context's CPUs in line with the online CPUs now (a missed uevent). */
void system_owners_sync_cpus(SystemOwners *o);
/* Every context (the bus objects, a listing, a handover): a new array, their number in *ret_n;
 * NULL when out of memory. */
SystemContext **system_owners_all(const SystemOwners *o, size_t *ret_n);
