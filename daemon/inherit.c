/* inherit.c: AIX inheritance (reference aix-pmapi.md §4.4, DESIGN.md §8 A9): a new thread gets the
 * PM state of the thread that created it (program, own counting state, group) with counters at
 * zero. Two ways in:
 * - libpmapi's start-routine wrapper and fork handler call Inherit from the new thread before any
 *   user code runs: nothing it does goes uncounted;
 * - perf fork records name the creating thread of every other new task; those are attached as
 *   soon as the record is read, so their first microseconds go uncounted (README, "Inheritance").
 * Whichever comes first attaches; the other finds the context there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "macro.h"
#include "manager.h"

DEFINE_FREEP(FILE, fclose);

/* The creator's context, if it passes its state on to (pid, tid). A process group covers one
 * process: a child process of a member does not join it. */
static Context *creator_passing_on(Manager *m, pid_t pid, pid_t ppid, pid_t ptid) {
        Context *parent = manager_lookup(m, ptid);

        if (!parent || parent->pid != ppid || !program_inherits(&parent->program))
                return NULL;
        if (parent->group && parent->group->process && pid != ppid)
                return NULL;
        return parent;
}

/* A process group takes every new thread of its process, whoever created it (AIX §4.3). */
static Group *process_group_of(Manager *m, pid_t pid) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Group *g = value;
                if (g->process && g->pid == pid && program_inherits(&g->program))
                        return g;
        }
        return NULL;
}

/* What (pid, tid) gets: its creator's state, or else its process group's initial state. */
static int inherit_from(Manager *m, Context *parent, pid_t pid, pid_t tid, int pidfd, uint64_t created_ns,
                        Context **ret) {
        const Program *program;
        Group *g;
        uid_t owner;
        bool counting;
        int r;

        if (parent) {
                program = &parent->program;
                owner = parent->owner_uid;
                g = parent->group;
                counting = context_counting_at(parent, created_ns);
        } else {
                g = process_group_of(m, pid);
                if (!g)
                        return -ENODATA;
                program = &g->program;
                owner = g->owner_uid;
                counting = program_counts_on_start(program);
        }
        /* The owner's grant is checked again: the policy may have changed since. */
        r = manager_counting_verdict(m, owner, program);
        if (r < 0)
                return r;
        return manager_attach(m, owner, pid, tid, pidfd, program, g, counting, ret);
}

static pid_t parent_process_of(pid_t pid) {
        _cleanup_(fclosep) FILE *f = NULL;
        char path[64], line[256];
        int ppid;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "PPid: %d", &ppid) == 1)
                        return ppid;
        return -1;
}

int manager_inherit(Manager *m, const Caller *caller, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid,
                    uint64_t created_ns, bool *ret_attached) {
        _cleanup_close_ int pidfd = -1;
        Context *parent, *existing;
        int r;

        if (pid != caller->pid)
                return -ESRCH;
        r = thread_pin(pid, tid, &pidfd);
        if (r < 0)
                return r;
        existing = manager_lookup(m, tid);
        if (existing) {
                /* A fork record was quicker (it usually is). What it counted so far is the library's
                 * own start-up: the thread counts from here, as if this call had attached it. */
                *ret_attached = true;
                if (existing->pid != pid)
                        return 0;
                if (existing->attached_late) {
                        existing->attached_late = false;
                        m->n_attached_late--;
                }
                return context_reset(existing);
        }
        /* A thread names a thread of its own process; a forked child one of its parent's. */
        if (ppid != pid && parent_process_of(pid) != ppid)
                return -ESRCH;
        parent = creator_passing_on(m, pid, ppid, ptid);
        if (!parent && (pid != ppid || !process_group_of(m, pid))) {
                *ret_attached = false;
                return 0;
        }
        /* A child that changed its uid since must not keep what the kernel would refuse it. */
        if (parent && caller->euid != parent->owner_uid) {
                r = manager_counting_verdict(m, caller->euid, &parent->program);
                if (r < 0)
                        return r;
        }
        r = inherit_from(m, parent, pid, tid, pidfd, created_ns, NULL);
        if (r < 0)
                return log_debug_errno(r, "Thread %d of pid %d did not inherit from thread %d: %m",
                                       (int) tid, (int) pid, (int) ptid);
        TAKE_FD(pidfd);
        log_debug("Thread %d of pid %d inherited from thread %d (pid %d).", (int) tid, (int) pid, (int) ptid,
                  (int) ppid);
        *ret_attached = true;
        return 0;
}

static uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void on_fork(pid_t pid, pid_t tid, pid_t ppid, pid_t ptid, uint64_t time_ns, void *userdata) {
        _cleanup_close_ int pidfd = -1;
        Manager *m = userdata;
        Context *parent, *c;
        int r;

        if (manager_lookup(m, tid))
                return;                         /* its library was quicker */
        parent = creator_passing_on(m, pid, ppid, ptid);
        if (!parent && (pid != ppid || !process_group_of(m, pid)))
                return;
        r = thread_pin(pid, tid, &pidfd);
        if (r >= 0)
                r = inherit_from(m, parent, pid, tid, pidfd, time_ns, &c);
        if (r < 0) {
                m->n_missed++;
                log_info("New thread %d of pid %d (created by thread %d) not attached: %s", (int) tid,
                         (int) pid, (int) ptid, strerror(-r));
                return;
        }
        TAKE_FD(pidfd);
        c->attached_late = true;
        m->n_attached_late++;
        log_debug("Thread %d of pid %d attached from its fork record, %.1f us after its creation.",
                  (int) tid, (int) pid, (double) (now_ns() - time_ns) / 1000.0);
}

int manager_watch_forks(Manager *m) {
        return fork_watch_new(m->event, on_fork, m, &m->fork_watch);
}
