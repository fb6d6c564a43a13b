/* manager.h: owns every context and every group, keyed by thread id and group id, enforces per-user
 * limits, frees a context when its thread exits, and gives new threads the context their creator's
 * state calls for. The D-Bus face is manager-dbus.c. Errors are negative errnos with these
 * meanings: -ESRCH no such thread of the caller, -EEXIST context exists, -EBUSY a thread of the
 * process has a context (process groups), -ENODATA no context, -ENOLINK not in a group, -EDQUOT
 * per-user limit, -EPERM perf refused to the caller, -EACCES kernel mode refused, -ENODEV the kernel
 * refused to open the counters, -ENOMEM. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caller-cache.h"
#include "caller.h"
#include "context.h"
#include "counter.h"
#include "event-table.h"
#include "fork-watch.h"
#include "group.h"

#define MANAGER_DEFAULT_MAX_CONTEXTS_PER_UID 512

typedef struct Manager {
        sd_event *event;
        const CounterBackend *backend;
        EventTable *events;
        GHashTable *threads;            /* tid -> Context*, owned */
        GHashTable *groups;             /* group id -> Group*, owned */
        GHashTable *contexts_per_uid;   /* uid -> count */
        CallerCache *callers;           /* NULL until on a bus */
        ForkWatch *fork_watch;          /* NULL when not watching (unit tests, or the kernel refused) */
        unsigned max_contexts_per_uid;
        unsigned next_group_id;
        uint64_t n_attached_late;       /* threads attached from fork records, not by their library */
        uint64_t n_missed;              /* new threads gone before they could be attached */
} Manager;

/* Takes ownership of events. event may be NULL (unit tests): no exit watch, no fork watch. */
int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret);
Manager *manager_free(Manager *m);
/* Starts following thread creation through perf fork records (needs CAP_PERFMON). */
int manager_watch_forks(Manager *m);

/* Thread scope. The program must have passed program_check_thread(). */
int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program);
/* The caller's context on thread tid of process pid. */
int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret);
/* The context is deleted: if it was a group member, it leaves the group and takes its data along. */
void manager_delete_context(Manager *m, Context *c);
size_t manager_n_contexts(Manager *m);

/* Group scope (manager-group.c). The program must have passed program_check_group(); with
 * PM_PROCESS it covers every thread of pid, else the calling thread and what it creates. */
int manager_set_group_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program);
/* The group of the caller's thread tid, and that thread's context. */
int manager_get_group(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret_context,
                      Group **ret_group);
/* Deletes every live member's context and the group. */
void manager_delete_group(Manager *m, Group *g);
Group *manager_find_group(Manager *m, unsigned id);

/* Inheritance (inherit.c). The calling thread (pid, tid) was created by thread ptid of process
 * ppid (pid itself, or pid's parent after fork) at CLOCK_MONOTONIC time created_ns; it gets the
 * PM state the creator had then, if the creator has a context that passes it on. *ret_attached
 * says whether (pid, tid) now has a context. */
int manager_inherit(Manager *m, const Caller *caller, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid,
                    uint64_t created_ns, bool *ret_attached);

/* For manager*.c and inherit.c only. */
Context *manager_lookup(Manager *m, pid_t tid);
int manager_counting_verdict(const Manager *m, uid_t uid, const Program *program);
/* Creates a context on a thread pinned by pidfd: counters at zero, a member of g if g is not
 * NULL, its own state `counting`. Takes pidfd on success. */
int manager_attach(Manager *m, uid_t owner_uid, pid_t pid, pid_t tid, int pidfd, const Program *program,
                   Group *g, bool counting, Context **ret);
