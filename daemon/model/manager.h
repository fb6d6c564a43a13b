/* manager.h: owns every context and every group, keyed by thread id and group id, decides whether a
 * caller may act on the thread it names (access.h: the kernel's ptrace rule), enforces per-user and
 * total limits, frees a context when its thread exits, and gives new threads the context their
 * creator's state calls for. The D-Bus face is manager-dbus.c. Errors are negative errnos with
 * these meanings: -ESRCH no such thread (or tid is not a thread of pid), -EEXIST context exists,
 * -EBUSY a thread of the process has a context (process groups), -ENODATA no context, -ENOLINK not
 * in a group, -EDQUOT per-user limit, -ENFILE pmapid's total limit, -EPERM refused: either the
 * access rule refused the target (then *ret_refusal says why) or perf is refused to the caller
 * (*ret_refusal untouched), -EACCES kernel mode refused, -ENODEV the kernel refused to open the
 * counters, -ENOMEM. The access check comes before any context lookup, so a refused caller learns
 * nothing /proc would not tell it. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "access.h"
#include "caller-cache.h"
#include "access-policy.h"
#include "caller.h"
#include "context.h"
#include "counter.h"
#include "event-table.h"
#include "fork-watch.h"
#include "group.h"
#include "cpu-watch.h"
#include "caller-lookup.h"
#include "cgroup-fs.h"
#include "exit-recheck.h"
#include "handed.h"
#include "log-budget.h"
#include "missed.h"
#include "system-owners.h"

/* pmapid's fds: what RLIMIT_NOFILE allows, less a reserve for the rest of pmapid (a few dozen) and
 * the pin of each client connection that called it (caller-cache.h), one each: at most
 * dbus-daemon's max_completed_connections on the system bus, 2048 by default. What is left is the
 * counter budget: a context costs one fd per event (its thread's exit comes from the fork watch's
 * EXIT records, not from an fd of its own; a pidfd more where the watch does not run). */
#define MANAGER_FDS_CALLER_PINS 2048
#define MANAGER_FDS_RESERVED (64 + MANAGER_FDS_CALLER_PINS)
/* The per-user default never goes below this, whatever the fd limit. */
#define MANAGER_MIN_CONTEXTS_PER_UID 512
/* A sixteenth of MaxContexts is kept for root's own work (root's contexts on root's threads). */
#define MANAGER_ROOT_RESERVE_DIVISOR 16

typedef struct Manager {
        sd_event *event;
        const CounterBackend *backend;
        EventTable *events;
        GHashTable *threads;            /* tid -> Context*, owned */
        GHashTable *groups;             /* group id -> Group*, owned */
        GHashTable *contexts_per_uid;   /* charged uid (manager_charged_uid) -> count */
        CallerCache *callers;           /* NULL until on a bus */
        ForkWatch *fork_watch;          /* NULL when not watching (unit tests, or the kernel refused) */
        unsigned max_contexts_per_uid;  /* for every uid but root's */
        unsigned max_contexts;          /* all users together (root included) */
        unsigned max_sets;              /* of a multiplexed program (config.h MaxSets) */
        unsigned fd_budget;             /* the fds contexts may hold together (MANAGER_FDS_RESERVED) */
        unsigned fds_used;              /* what they hold now */
        pid_t self_pid;                 /* pmapid's own threads are never targets */
        unsigned next_group_id;
        uint64_t n_attached_late;       /* threads attached from fork records, not by their library */
        size_t n_late_heirs;            /* contexts with late_heir set (context.h) */
        uint64_t n_missed;              /* new threads gone before they could be attached */
        uint64_t n_refused;             /* calls the access rule refused */
        SystemOwners *systems;          /* the system-wide contexts, one per owner process */
        uint64_t started_at_usec;       /* CLOCK_REALTIME at start: a restart shows as a new value */
        MissedThreads *missed;          /* threads a group could not take (missed.h) */
        bool releasing_name;            /* a re-exec gives the bus name up (reexec.h): not a loss */
        char **predecessors;            /* unique bus names of the images whose state this one carries
                                         * (handover.h), oldest first; never NULL */
        LogBudget *log_budget;          /* refusal lines per uid: NULL until on a bus */
        LogBudget *creation_log_budget; /* "Context created" lines per uid: NULL until on a bus */
        CallerLookup *lookup;           /* new senders' credentials without waiting: NULL until on a bus */
        AccessPolicy policy;            /* [Access] of pmapid.conf (access-policy.h) */
        ExitRecheck *recheck;           /* contexts attached as their thread may have been exiting:
                                         * NULL without an event loop (exit-recheck.h) */
        HandedLedger *handed;           /* OpenLocal's handings outstanding per owner (handed.h) */
        GHashTable *uid_grants;         /* uid -> PolicyGrant + 1 of its last caller: for re-checks of
                                         * an owner's grant when its context passes on (inherit.c) */
        Heirs *heirs;                   /* inheritance inside the kernel (heirs.h); NULL: after the fact */
        GHashTable *swept_births;       /* tid -> uint64_t* born_ns: births a sweep handled before their
                                         * fork records were read (inherit.c) */
} Manager;

/* The fds contexts may hold: RLIMIT_NOFILE less MANAGER_FDS_RESERVED (at least 1). */
unsigned manager_fd_budget(void);
/* The defaults: every context a one-event program could have in the budget, and half of that for
 * one user (at least MANAGER_MIN_CONTEXTS_PER_UID), so that one user leaves the others room. */
unsigned manager_default_max_contexts(void);
unsigned manager_default_max_contexts_per_uid(void);
/* The uid whose MaxContextsPerUser a context counts against: whoever made it come to be. Its
 * owner's; for a context root owns that a thread's creation made (inherited, or attached from a
 * fork record), the uid of that thread, whose process made the thread: root counting another
 * user's busy process fills that user's share, not the pool. What root sets itself is root's own
 * work: no per-user limit, and the pool's reserve. */
uid_t manager_charged_uid(uid_t owner_uid, uid_t target_uid, ContextOrigin origin);
/* The contexts only root's own work may take: a context charged to another uid is refused once the
 * pool has fewer than this left (MaxContexts / MANAGER_ROOT_RESERVE_DIVISOR). */
unsigned manager_root_reserve(const Manager *m);
/* Takes ownership of events. event may be NULL (unit tests): no exit watch, no fork watch. */
int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret);
Manager *manager_free(Manager *m);
/* Starts following thread creation through perf fork records (needs CAP_PERFMON). */
int manager_watch_forks(Manager *m);

/* Fork records on while any context exists, off otherwise (after a restore). */
void manager_update_fork_watch(Manager *m);
/* The same on the fork watch of pmapid's previous image (handover.h): takes the fds. */
int manager_adopt_fork_watch(Manager *m, const unsigned *cpus, const int *fds, size_t n, bool enabled);
/* A thread (pinned by pidfd, or -1) that should have joined group g could not (error: a negative
 * errno): g counts the miss once and says it is partial; its first is logged, once per group. */
void manager_group_missed(Manager *m, Group *g, pid_t pid, pid_t tid, int pidfd, int error);
/* Why a thread could not be attached, in words (error: a negative errno). */
const char *manager_miss_reason(int error);
/* Before a group is freed: forgets its misses and logs how many there were. */
void manager_group_released(Manager *m, Group *g);
/* A born thread's context about to be read in process: its own counters (context_open_own_counters),
 * within the fds contexts may hold (-ENFILE past them). */
int manager_open_own_counters(Manager *m, Context *c);
/* Every context's page invalidated and closed (before a re-exec or a hand-over). */
void manager_close_local(Manager *m);
/* The fork watch's EXIT records and lost records (inherit.c hands them on): a context whose thread
 * exited is released as at a pidfd's exit; after lost records, a sweep finds the dead ones. */
void manager_thread_exited(pid_t pid, pid_t tid, uint64_t time_ns, void *userdata);
void manager_exits_lost(uint64_t n_lost, void *userdata);
/* Releases every context whose thread is gone (after lost records, and after a handover: exits
 * that came while no image read them); returns how many. */
size_t manager_sweep_dead(Manager *m);
/* A context of pmapid's previous image (handover.h), with its group (if any) set and its member
 * adopted: enters the table, counts for its owner's limit and is watched for its thread's exit
 * (a thread that died meanwhile is handled on the next turn of the loop, as any exit). */
int manager_adopt(Manager *m, Context *c);
/* May caller act on thread tid of process pid? Pins the thread first (*ret_pidfd, may be NULL) and
 * decides under the pin, so the credentials read are the pinned thread's. 0 if allowed; -ESRCH;
 * -EPERM with *ret_refusal saying why. */
int manager_check_access(Manager *m, const Caller *caller, pid_t pid, pid_t tid, int *ret_pidfd,
                         AccessVerdict *ret_refusal);
/* The same verdict for the thread of a context pmapid holds (a bulk read: pmapid names the thread,
 * not the caller), with Yama's scope read once by the caller, and for others than root only while
 * the context's own thread lives: 0 if allowed, or -EPERM, -ESRCH. */
int manager_check_context_access(Manager *m, const Caller *caller, const Context *c, int yama_scope);
/* May caller read the counts of c? A context counting kernel mode is read only by its owner and by
 * callers the kernel would let count it themselves: -EACCES otherwise. */
int manager_check_read(const Manager *m, const Caller *caller, const Program *program, uid_t owner_uid);

/* Thread scope. The program must have passed program_check_thread(). The context belongs to the
 * caller (its limit, its kernel-mode grant), whoever's thread it counts. */
int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program,
                        AccessVerdict *ret_refusal);
/* The context on thread tid of process pid, if the caller may act on that thread. */
int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret,
                       AccessVerdict *ret_refusal);
/* The context is deleted: if it was a group member, it leaves the group and takes its data along. */
void manager_delete_context(Manager *m, Context *c);
size_t manager_n_contexts(Manager *m);

/* Group scope (manager-group.c). The program must have passed program_check_group(); with
 * PM_PROCESS it covers every thread of pid, else the calling thread and what it creates. */
int manager_set_group_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program,
                              AccessVerdict *ret_refusal);
/* The group of thread tid, and that thread's context. */
int manager_get_group(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret_context,
                      Group **ret_group, AccessVerdict *ret_refusal);
/* Deletes every live member's context and the group. */
void manager_delete_group(Manager *m, Group *g);
Group *manager_find_group(Manager *m, unsigned id);

/* System scope (manager-system.c, system-owners.h). The program must have passed
 * program_check_system(). Errors: -EEXIST the caller's process owns one already, -EBUSY another
 * process owns the every-process context (manager_system_owner), -ENOTSUP counting every process
 * needs root (PM_PROCTREE does not), -EUSERS the caller's uid owns SYSTEM_OWNERS_MAX_PER_UID
 * already, -EPERM/-EACCES as for a thread, -EDQUOT a process tree too large, -ENFILE out of fds,
 * -ENODEV the kernel refused. */
int manager_set_system_program(Manager *m, const Caller *caller, const Program *program);
/* The system context the caller's process owns: -ENODATA none, -EBUSY none but another process
 * owns the every-process one. Catches up with CPU hotplug first. */
int manager_get_system(Manager *m, const Caller *caller, SystemContext **ret);
void manager_delete_system(Manager *m, pid_t owner_pid);
pid_t manager_system_owner(const Manager *m);         /* of the every-process context; 0 if none */

/* Cgroup contexts (manager-cgroup.c): system scope restricted to a cgroup v2 and its descendants,
 * one per (owner process, cgroup). Errors as for the system scope, and: -ENOENT no such cgroup (or
 * removed), -EINVAL PM_PROCTREE given, -ENOMEDIUM no cgroup v2 hierarchy,
 * MANAGER_CGROUP_NOT_DELEGATED the caller is neither root nor the cgroup's owner,
 * MANAGER_CGROUP_FOREIGN the cgroup holds a process the caller may not trace, -EUSERS the caller's
 * uid owns SYSTEM_OWNERS_MAX_CGROUPS_PER_UID already, -EDQUOT too many processes to check, or too
 * many counter groups for the uid. */
#define MANAGER_CGROUP_NOT_DELEGATED (-EXDEV)
#define MANAGER_CGROUP_FOREIGN (-EMLINK)
/* The kernel has no perf state for the cgroup: before Linux 6.x (seen on 6.1, not on 6.18) perf
 * counts a cgroup v2 only where its parent's cgroup.subtree_control enables some controller. */
#define MANAGER_CGROUP_NO_PERF (-ENOLINK)
/* The kernel refused pmapid the cgroup's directory by its id (open_by_handle_at(2) needs
 * CAP_DAC_READ_SEARCH, and a container's seccomp filter may refuse the call): not the caller's
 * fault, and nothing perf_event_paranoid decides. */
#define MANAGER_CGROUP_NO_HANDLE (-EBADE)
/* Cgroups one listing may name. */
#define MANAGER_CGROUP_LIST_MAX 4096
int manager_set_cgroup_program(Manager *m, const Caller *caller, uint64_t cgroup_id, const Program *program);
/* The caller's process's context on that cgroup: -ENODATA none. Catches up with CPU hotplug and
 * notes (and logs, once) a cgroup removed since. */
int manager_get_cgroup(Manager *m, const Caller *caller, uint64_t cgroup_id, SystemContext **ret);
/* -ENOENT once the cgroup is removed: nothing can count there again. For a caller other than root,
 * the cgroup's processes are checked again first (MANAGER_CGROUP_FOREIGN). */
int manager_start_cgroup(Manager *m, const Caller *caller, SystemContext *s);

typedef struct CgroupListing {
        CgroupEntry *entries;
        bool *removed;                  /* per entry: counted by the caller's process, and gone */
        size_t n;
} CgroupListing;
/* The cgroup at path, or with subtree every cgroup at and below it (at most MANAGER_CGROUP_LIST_MAX:
 * -EDQUOT past it); with them the caller's counted cgroups that were removed (at path, or every one
 * when the subtree is the whole tree). Errors of cgroup_fs_open_path(). */
int manager_list_cgroups(Manager *m, const Caller *caller, const char *path, bool subtree, CgroupListing *ret);
void cgroup_listing_done(CgroupListing *l);

/* Inheritance (inherit.c). The calling thread (pid, tid) was created by thread ptid of process
 * ppid (pid itself, or pid's parent after fork) at CLOCK_MONOTONIC time created_ns; it gets the
 * PM state the creator had then, if the creator has a context that passes it on. *ret_attached
 * says whether (pid, tid) now has a context. */
int manager_inherit(Manager *m, const Caller *caller, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid,
                    uint64_t created_ns, bool *ret_attached);

/* For manager*.c and inherit.c only. */
Context *manager_lookup(Manager *m, pid_t tid);
/* The same after reading the fork records where tid has none: a thread born counting in the kernel
 * has its context once its record is read, and a call from it (or about it) may come first. */
Context *manager_lookup_fresh(Manager *m, pid_t tid);
/* May uid, with the administrator's grant, count program? 0, -EPERM (no counting) or -EACCES
 * (kernel mode refused). */
int manager_counting_verdict(const Manager *m, uid_t uid, PolicyGrant grant, const Program *program);
/* The same for a caller (its own grant), and for an owner uid (the grant of its last caller). */
int manager_caller_verdict(const Manager *m, const Caller *caller, const Program *program);
int manager_owner_verdict(Manager *m, uid_t uid, const Program *program);
/* Notes a caller's grant under its uid (manager_bus_caller). */
void manager_note_grant(Manager *m, const Caller *caller);

/* What a new context is: whose, on whose thread, made how, counting what, in which group. */
typedef struct AttachSpec {
        uid_t owner_uid;
        uid_t target_uid;
        pid_t creator_pid;
        ContextOrigin origin;
        const Program *program;
        Group *group;                   /* NULL, or the group it joins */
        bool counting;                  /* its own state */
        bool local;                     /* its thread may read it in process (a private leader) */
        bool born;                      /* born in the kernel with its counts (heirs.h): adopted */
} AttachSpec;

/* The euid of thread tid for the admin's view (the caller's own for a first-party call). */
uid_t manager_target_uid(const Caller *caller, pid_t pid, pid_t tid);
/* Creates a context on a thread pinned by pidfd: counters at zero. Takes pidfd on success. */
int manager_attach(Manager *m, const AttachSpec *spec, pid_t pid, pid_t tid, int pidfd, Context **ret);

/* Inheritance inside the kernel: thread c's creations are born counting (heirs.h), where the engine
 * runs and c's program passes on; otherwise nothing (they are attached after the fact). */
void manager_carry(Manager *m, Context *c);
/* A new context of spec on thread tid whose program has hardware events and passes on: the thread
 * is registered with the engine to be counted through the per-CPU sources, as its creations are
 * (heirs_register_carrier), and its context then opens as a born thread's. False where it is not
 * (no hardware event, no engine, no room in the PMU's share: said in the log). */
bool manager_register_carrier(Manager *m, const AttachSpec *spec, pid_t tid);
/* Whether c's creations are attached after the fact (context.h, late_heir): while any is, the fork
 * watch wakes at each record; otherwise it reads them every 20 ms and before the calls that need
 * them (fork_watch_set_lazy). */
void manager_set_late_heir(Manager *m, Context *c, bool late);
/* Born threads pmapid has no context of (their fork records lost): attached, or their counts added to
 * their group if they are gone. Returns the contexts added. */
size_t manager_sweep_births(Manager *m);
/* Starts the engine (after a handover restored none); logs why not where it cannot run. */
void manager_start_heirs(Manager *m, unsigned max_threads);
