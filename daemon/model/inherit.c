/* inherit.c: AIX inheritance (docs/design.md, "Inheritance", R1 and A9): a new thread gets the
 * PM state of the thread that created it (program, own counting state, group) with counters at
 * zero. Two ways in:
 * - libpmapi's start-routine wrapper and fork handler call Inherit from the new thread before any
 *   user code runs: nothing it does goes uncounted;
 * - perf fork records name the creating thread of every other new task; those are attached as
 *   soon as the record is read, so their first microseconds go uncounted (docs/api.md, "Inheritance").
 * Whichever comes first attaches; the other finds the context there. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "accounting.h"
#include "clock.h"
#include "heirs.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "manager-comm.h"

/* A born thread's control is that of the birth its fork record tells of if it is no older than the
 * record (the kernel writes the record just before the control). */
#define BORN_SLACK_NS (10 * 1000 * 1000ull)
/* The kernel's control of a new task follows its fork record by microseconds. */
#define BIRTH_WAIT_US 2000
/* A reaped thread's last switch away may still be coming (counter_bpf_settle()). */
#define DEAD_BIRTH_SETTLE_NS (100 * 1000 * 1000ull)

/* What a new task inherits: the creator's program, owner, group and its own state at creation. */
typedef struct Inheritance {
        const Program *program;
        uid_t owner_uid;
        uid_t target_uid;               /* a new thread has its creator's credentials */
        Group *group;
        bool counting;
        const char *comm;               /* the creator's name, which the kernel copied; NULL: ask /proc */
} Inheritance;

/* A process group takes every new thread of its process, whoever created it (docs/design.md, R1). */
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

/* What (pid, ...) created by thread ptid of ppid at created_ns gets, or -ENODATA for nothing: the
 * creator's state if its context passes it on, else its process's process group, if any. A
 * process group covers one process: a child process of a member does not join it. */
static int inheritance_for(Manager *m, pid_t pid, pid_t ppid, pid_t ptid, uint64_t created_ns,
                           Inheritance *ret) {
        Context *parent = manager_lookup(m, ptid);
        Group *g;

        if (parent)
                context_sync_local(parent);     /* the switches it made itself, in process */
        if (parent && parent->pid == ppid && program_inherits(parent->program) &&
            !(parent->group && parent->group->process && pid != ppid)) {
                *ret = (Inheritance) { parent->program, parent->owner_uid, parent->target_uid, parent->group,
                                       context_counting_at(parent, created_ns), parent->comm };
                return 0;
        }
        g = pid == ppid ? process_group_of(m, pid) : NULL;
        if (!g)
                return -ENODATA;
        *ret = (Inheritance) { &g->program, g->owner_uid, g->target_uid, g,
                               program_counts_on_start(&g->program), NULL };
        return 0;
}

static int attach_inheritance(Manager *m, const Inheritance *in, pid_t pid, pid_t tid, pid_t ppid, int pidfd,
                              ContextOrigin origin, Context **ret) {
        AttachSpec spec = {
                .owner_uid = in->owner_uid,
                .target_uid = in->target_uid,
                .creator_pid = ppid,
                .origin = origin,
                .program = in->program,
                .group = in->group,
                .counting = in->counting,
                .local = !in->group && !program_multi_set(in->program),  /* the new thread is its own client */
                .born = m->heirs && heirs_born(m->heirs, tid, NULL),
        };
        Context *c;
        int r;

        /* The owner's grant is checked again: the policy may have changed since. */
        r = manager_owner_verdict(m, in->owner_uid, in->program);
        if (r >= 0)
                r = manager_attach(m, &spec, pid, tid, pidfd, &c);
        if (r < 0) {
                if (spec.born && r != -ESRCH)
                        heirs_drop(m->heirs, tid);      /* nor its own creations */
                return r;
        }
        /* After the counters run. A name the thread took since comes in a COMM record after its fork
         * record. */
        if (in->comm)
                context_set_comm(c, in->comm);
        else
                (void) context_read_comm(c);
        if (ret)
                *ret = c;
        return 0;
}

/* The kernel's rule for perf's inherited counters: an exec that leaves a task not dumpable by its
 * user (a set-id or file-capability program) ends them (begin_new_exec() calls
 * perf_event_exit_task()), and what that task creates inherits nothing. The kernel's side seals
 * born threads so. After the fact, pmapid does not attach a new thread of a sealed creator, nor
 * (but for root's contexts) one that runs a set-id program: its ids differ. (Not its
 * dumpability: a process that changed its own ids is not dumpable either, and perf keeps counting
 * it.) */
static bool kernel_passes_on(Manager *m, const Inheritance *in, pid_t pid, pid_t tid, pid_t ptid, bool born) {
        TargetCreds t;

        if (m->heirs && heirs_sealed(m->heirs, ptid))
                return false;
        /* A born thread's own set-id exec sealed it in the kernel: what it counted before stays. */
        if (born || in->owner_uid == 0 || target_creds_read(pid, tid, 0, &t) < 0)
                return true;            /* one gone is a dead birth, or nothing */
        for (size_t i = 0; i < 3; i++)
                if (t.uid[i] != in->target_uid || t.gid[i] != t.gid[0])
                        return false;
        return true;
}

/* The access rule's identity part only: a child is not an ancestor of its parent (Yama) and a
 * non-dumpable parent's children are still its children. */
static bool same_credentials(const Caller *caller, pid_t ppid, pid_t ptid) {
        TargetCreds t;

        if (target_creds_read(ppid, ptid, caller->pid, &t) < 0)
                return false;
        t.dumpable = true;
        return access_allowed(access_check(caller, &t, /* yama_scope= */ 0));
}

int manager_inherit(Manager *m, const Caller *caller, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid,
                    uint64_t created_ns, bool *ret_attached) {
        _cleanup_close_ int pidfd = -1;
        Inheritance in;
        Context *existing;
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
                /* Born in the kernel, it was counted from its first instruction: nothing to drop. */
                if (existing->backend == &counter_backend_bpf)
                        return 0;
                return context_reset(existing);
        }
        /* A thread names a thread of its own process; a forked child one of its parent's, and only
         * with its parent's credentials: a child that changed them does not join its parent's group
         * on its word (a fork record, which the kernel writes, may still attach it). */
        if (ppid != pid) {
                if (proc_parent_pid(pid) != ppid)
                        return -ESRCH;
                if (!same_credentials(caller, ppid, ptid)) {
                        *ret_attached = false;
                        return 0;
                }
        }
        if (inheritance_for(m, pid, ppid, ptid, created_ns, &in) < 0) {
                *ret_attached = false;
                return 0;
        }
        /* A child that changed its uid since must not keep what the kernel would refuse it. */
        if (caller->euid != in.owner_uid) {
                r = manager_caller_verdict(m, caller, in.program);
                if (r < 0)
                        return r;
        }
        r = attach_inheritance(m, &in, pid, tid, ppid, pidfd, CONTEXT_INHERIT, NULL);
        if (r < 0) {
                if (in.group)
                        manager_group_missed(m, in.group, pid, tid, pidfd, r);
                return log_debug_errno(r, "Thread %d of pid %d did not inherit from thread %d: %m",
                                       (int) tid, (int) pid, (int) ptid);
        }
        TAKE_FD(pidfd);
        log_debug("Thread %d of pid %d inherited from thread %d (pid %d).", (int) tid, (int) pid, (int) ptid,
                  (int) ppid);
        *ret_attached = true;
        return 0;
}

/* Whether tid, whose fork record says it was created at time_ns, was born in the kernel: its
 * control is that birth's (a control of an earlier thread with its tid is older). The kernel writes
 * the fork record a moment before the control: where the creator carries, that moment is waited
 * out (the new task cannot run before both are written). */
static bool born_at(Manager *m, pid_t tid, pid_t ptid, uint64_t time_ns, HeirsBirth *ret) {
        const struct timespec pause = { 0, 10 * 1000 };
        uint64_t start = now_monotonic_ns();

        if (!m->heirs)
                return false;
        for (;;) {
                if (heirs_born(m->heirs, tid, ret) && ret->born_ns + BORN_SLACK_NS >= time_ns)
                        return true;
                /* Nothing to wait for where the creator's owner has no births left (a fork bomb). A
                 * sleep lasts longer than asked (timer slack): the wait is counted in time, not in
                 * sleeps (a CI run's bomb kept pmapid 10 s from answering). Not cut short once the
                 * child has run: attaching a short-lived thread sooner left stale contexts after
                 * reloads under churn (CI of 653d98a). */
                if (now_monotonic_ns() - start >= BIRTH_WAIT_US * 1000ull || !heirs_carries(m->heirs, ptid) ||
                    heirs_births_spent(m->heirs, ptid))
                        return false;
                (void) nanosleep(&pause, NULL);
        }
}

/* A born thread whose creator's context is gone (it exited first: a shell's child, make's compiler):
 * the group its creator was in when it was born takes it, with its creator's state then. */
static int inheritance_of_birth(Manager *m, const HeirsBirth *b, Inheritance *ret) {
        Group *g = b->group_id ? g_hash_table_lookup(m->groups, GUINT_TO_POINTER(b->group_id)) : NULL;

        if (!g || g->process || !program_inherits(&g->program))
                return -ENODATA;
        *ret = (Inheritance) { &g->program, g->owner_uid, g->target_uid, g, b->creator_counting, NULL };
        return 0;
}

/* A born thread gone before pmapid read its fork record (a short command run by a shell): its
 * counts, final since its exit, are a dead member's of its group. A thread context dies with it. */
static void dead_birth(Manager *m, const Inheritance *in, pid_t pid, pid_t tid, const HeirsBirth *b) {
        HeirsReading rd;
        AcctVector v;
        int64_t counts[MAX_COUNTERS] = { 0 };

        if (in->group && in->counting && group_counting(in->group) &&
            (heirs_wait_final(m->heirs, tid, b->born_ns, DEAD_BIRTH_SETTLE_NS), heirs_read(m->heirs, tid, b->born_ns, &rd) >= 0)) {
                for (size_t i = 0; i < MAX_COUNTERS; i++)
                        counts[i] = (int64_t) rd.counts[i];
                acct_from_counts(v, counts, rd.enabled_ns, rd.running_ns, 0, 0);
                /* Its own name at its end: it may have taken one since its creator's. */
                group_add_dead_birth(in->group, pid, tid, rd.comm[0] ? rd.comm : in->comm, v);
                log_debug("Thread %d of pid %d, born counting, exited before its fork record was read: its "
                          "counts joined group %u (first %" PRIu64 ", final %d, %u slices unread).", (int) tid,
                          (int) pid, in->group->id, rd.counts[0], rd.final, rd.read_errors);
        }
        heirs_drop(m->heirs, tid);
}

/* A sweep runs after a drain of the fork watch, but a thread born between that drain and the sweep
 * has its fork record still to come: the sweep takes it from its control (a context, or its counts
 * as a dead member's), and its record, read later, must not then make a thread that got away (its
 * control is gone with it). So the sweep's births are kept until their records come, and for
 * SWEPT_KEEP_NS at most: a record that was lost never comes. Seen on Debian's 6.1 in a QEMU guest,
 * about 1 re-exec under thread churn in 4 ("could not join it: it exited before it could be
 * attached", the group's counts exact); every time with 50 ms between the drain and the sweep. */
#define SWEPT_KEEP_NS (10 * 1000 * 1000 * 1000ull)

static void swept_remember(Manager *m, pid_t tid, uint64_t born_ns) {
        uint64_t *v = g_new(uint64_t, 1);

        *v = born_ns;
        g_hash_table_replace(m->swept_births, GINT_TO_POINTER(tid), v);
}

/* Whether tid's fork record at time_ns tells of a birth a sweep already took. Records come in
 * time order: a birth's entry goes once a record at or after it came. */
static bool swept_take(Manager *m, pid_t tid, uint64_t time_ns) {
        const uint64_t *born_ns = g_hash_table_lookup(m->swept_births, GINT_TO_POINTER(tid));
        bool taken;

        if (!born_ns)
                return false;
        taken = *born_ns + BORN_SLACK_NS >= time_ns;    /* as born_at() matches a control */
        if (taken || *born_ns < time_ns)
                g_hash_table_remove(m->swept_births, GINT_TO_POINTER(tid));
        return taken;
}

static void swept_forget_old(Manager *m) {
        uint64_t now = now_monotonic_ns();
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->swept_births);
        while (g_hash_table_iter_next(&it, NULL, &value))
                if (*(const uint64_t *) value + SWEPT_KEEP_NS < now)
                        g_hash_table_iter_remove(&it);
}

/* A born thread pmapid had no record of (its fork record lost: a ring that overflowed, or written
 * while pmapid re-executed, or still to come): made a context, or its counts its group's, from its
 * control alone. */
static void sweep_birth(pid_t tid, void *userdata) {
        _cleanup_close_ int pidfd = -1;
        Manager *m = userdata;
        HeirsBirth birth;
        Inheritance in;
        Context *parent, *c;
        int r;

        if (g_hash_table_contains(m->threads, GINT_TO_POINTER(tid)) || !heirs_born(m->heirs, tid, &birth))
                return;
        swept_remember(m, tid, birth.born_ns);
        parent = manager_lookup(m, birth.creator);
        if (((!parent || inheritance_for(m, birth.pid, parent->pid, birth.creator, birth.born_ns, &in) < 0) &&
             inheritance_of_birth(m, &birth, &in) < 0) ||
            !kernel_passes_on(m, &in, birth.pid, tid, birth.creator, true)) {
                heirs_drop(m->heirs, tid);
                return;
        }
        r = thread_pin(birth.pid, tid, &pidfd);
        if (r >= 0)
                r = attach_inheritance(m, &in, birth.pid, tid, parent ? parent->pid : birth.pid, pidfd,
                                       CONTEXT_FORK_RECORD, &c);
        if (r == -ESRCH || r == -ENOENT) {
                dead_birth(m, &in, birth.pid, tid, &birth);
                return;
        }
        if (r < 0) {
                if (in.group)
                        manager_group_missed(m, in.group, birth.pid, tid, pidfd, r);
                return;
        }
        TAKE_FD(pidfd);
        log_debug("Thread %d of pid %d, born counting, adopted without its fork record.", (int) tid, (int) birth.pid);
}

size_t manager_sweep_births(Manager *m) {
        size_t before = manager_n_contexts(m);

        swept_forget_old(m);
        if (m->heirs)
                heirs_foreach_born(m->heirs, sweep_birth, m);
        return manager_n_contexts(m) - MIN(before, manager_n_contexts(m));
}

static void on_fork(pid_t pid, pid_t tid, pid_t ppid, pid_t ptid, uint64_t time_ns, void *userdata) {
        _cleanup_close_ int pidfd = -1;
        Manager *m = userdata;
        HeirsBirth birth;
        Inheritance in;
        Context *c;
        bool born;
        int r;

        if (g_hash_table_size(m->swept_births) > 0 && swept_take(m, tid, time_ns))
                return;         /* a sweep took it from its control: a context, or a dead member's counts */
        c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));
        if (c && c->pid == pid && c->attached_ns >= time_ns)
                return;         /* its library was quicker: this thread's context, alive or not yet released */
        if (manager_lookup(m, tid))
                return;
        born = born_at(m, tid, ptid, time_ns, &birth);
        if ((inheritance_for(m, pid, ppid, ptid, time_ns, &in) < 0 &&
             (!born || inheritance_of_birth(m, &birth, &in) < 0)) ||
            !kernel_passes_on(m, &in, pid, tid, ptid, born)) {
                if (born)
                        heirs_drop(m->heirs, tid);
                return;
        }
        r = thread_pin(pid, tid, &pidfd);
        if (r < 0 && born) {
                dead_birth(m, &in, pid, tid, &birth);
                return;
        }
        if (r >= 0)
                r = attach_inheritance(m, &in, pid, tid, ppid, pidfd, CONTEXT_FORK_RECORD, &c);
        if (r == -ESRCH && born) {
                dead_birth(m, &in, pid, tid, &birth);   /* it exited while it was being attached */
                return;
        }
        if (r < 0) {
                /* One line per group (manager_group_missed), not per thread: a limit meets thousands. */
                m->n_missed++;
                if (in.group)
                        manager_group_missed(m, in.group, pid, tid, pidfd, r);
                log_debug("New thread %d of pid %d (created by thread %d) not attached: %s", (int) tid,
                          (int) pid, (int) ptid, strerror(-r));
                return;
        }
        TAKE_FD(pidfd);
        if (c->backend == &counter_backend_bpf) {
                log_debug("Thread %d of pid %d, born counting, adopted from its fork record.", (int) tid, (int) pid);
                return;
        }
        c->attached_late = true;
        m->n_attached_late++;
        log_debug("Thread %d of pid %d attached from its fork record, %.1f us after its creation.",
                  (int) tid, (int) pid, (double) (now_monotonic_ns() - time_ns) / 1000.0);
}

int manager_adopt_fork_watch(Manager *m, const unsigned *cpus, const int *fds, size_t n, bool enabled) {
        int r = fork_watch_adopt(m->event, on_fork, m, cpus, fds, n, enabled, &m->fork_watch);

        if (r >= 0) {
                manager_watch_comm(m);
                fork_watch_set_exit_handler(m->fork_watch, manager_thread_exited, manager_exits_lost, m);
        }
        return r;
}

int manager_watch_forks(Manager *m) {
        int r = fork_watch_new(m->event, on_fork, m, &m->fork_watch);

        if (r >= 0) {
                manager_watch_comm(m);          /* the same records carry thread names and exits */
                fork_watch_set_exit_handler(m->fork_watch, manager_thread_exited, manager_exits_lost, m);
        }
        return r;
}
