/* manager-table.c: the table of live contexts and what keeps it true: counts per user and of fds,
 * lookups that never find a dead thread's context, a context's end (deleted, or its thread gone:
 * its final counts stay in its group), groups released with their last live member, threads a
 * group missed, and the fork watch on while anything counts. Below every rule that makes contexts
 * (manager-attach.c, inherit.c, manager.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "clock.h"
#include "exit-recheck.h"
#include "heirs.h"
#include "local-share.h"
#include "log.h"
#include "macro.h"
#include "manager-comm.h"
#include "manager-table.h"
#include "thread-pin.h"

size_t manager_n_contexts(Manager *m) {
        return g_hash_table_size(m->threads);
}

/* Fork records cost the daemon a wakeup per new task on the machine: only while anyone counts. */
void manager_update_fork_watch(Manager *m) {
        if (!m->fork_watch)
                return;
        (void) fork_watch_set_enabled(m->fork_watch, manager_n_contexts(m) > 0);
        /* Where every creation that inherits is born counting, a late record costs nothing. */
        fork_watch_set_lazy(m->fork_watch, m->heirs && m->n_late_heirs == 0);
}

void manager_set_late_heir(Manager *m, Context *c, bool late) {
        if (c->late_heir == late)
                return;
        c->late_heir = late;
        if (late)
                m->n_late_heirs++;
        else
                m->n_late_heirs -= MIN(m->n_late_heirs, 1);
        manager_update_fork_watch(m);
}


uid_t manager_charged_uid(uid_t owner_uid, uid_t target_uid, ContextOrigin origin) {
        if (owner_uid != 0)
                return owner_uid;
        return origin == CONTEXT_INHERIT || origin == CONTEXT_FORK_RECORD ? target_uid : 0;
}

unsigned manager_root_reserve(const Manager *m) {
        return m->max_contexts / MANAGER_ROOT_RESERVE_DIVISOR;
}

unsigned manager_uid_count(Manager *m, uid_t uid) {
        return GPOINTER_TO_UINT(g_hash_table_lookup(m->contexts_per_uid, GUINT_TO_POINTER(uid)));
}

void manager_uid_count_add(Manager *m, uid_t uid, int delta) {
        unsigned n = manager_uid_count(m, uid) + delta;

        if (n == 0)
                g_hash_table_remove(m->contexts_per_uid, GUINT_TO_POINTER(uid));
        else
                g_hash_table_insert(m->contexts_per_uid, GUINT_TO_POINTER(uid), GUINT_TO_POINTER(n));
}

Group *manager_find_group(Manager *m, unsigned id) {
        return g_hash_table_lookup(m->groups, GUINT_TO_POINTER(id));
}

/* A group nobody can reach any more (no live member) is gone. */
static void release_group_if_empty(Manager *m, Group *g) {
        if (g && g->n_live == 0) {
                log_debug("Group %u released: no live member left.", g->id);
                manager_group_released(m, g);
                g_hash_table_remove(m->groups, GUINT_TO_POINTER(g->id));
        }
}

/* The fds a context holds: one per counter, its pidfd if it keeps one, the private leader and the
 * local page of a thread that reads in process. */
unsigned manager_context_fds(const Context *c) {
        bool born_only = c->backend == &counter_backend_bpf && !c->private_leader;

        return (born_only ? 0u : (unsigned) context_n_events(c)) + (c->pidfd >= 0) + c->private_leader;
}

int manager_open_own_counters(Manager *m, Context *c) {
        unsigned before = manager_context_fds(c);
        int r;

        if (c->private_leader)
                return 0;
        if (m->fds_used + (unsigned) c->encoding->n_events + 1 > m->fd_budget)
                return -ENFILE;
        r = context_open_own_counters(c);
        if (r < 0)
                return r;
        m->fds_used += manager_context_fds(c) - before;
        return 0;
}

void manager_close_local(Manager *m) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                context_sync_local(value);      /* the threads' last switches stand */
                local_share_close(value);
        }
}

/* A context's end (deleted, or its thread gone), never a shutdown that hands its counters on (fd
 * store, re-exec). Its counters are switched off first: a copy of the fd its thread was handed
 * (OpenLocal, handed.h) then reads nothing new once the group comes apart. */
static void remove_context(Manager *m, Context *c) {
        if (c->private_leader && c->counters)
                (void) c->backend->disable(c->counters);
        manager_uid_count_add(m, manager_charged_uid(c->owner_uid, c->target_uid, c->origin), -1);
        m->fds_used -= MIN(m->fds_used, manager_context_fds(c));
        if (m->heirs)
                heirs_drop(m->heirs, c->tid);
        if (c->late_heir)
                m->n_late_heirs -= MIN(m->n_late_heirs, 1);
        g_hash_table_remove(m->threads, GINT_TO_POINTER(c->tid));
        manager_update_fork_watch(m);
}

void manager_delete_context(Manager *m, Context *c) {
        Group *g = c->group;

        log_debug("Context of thread %d (pid %d, uid %u) deleted.", (int) c->tid, (int) c->pid,
                  (unsigned) c->owner_uid);
        if (g)
                group_member_left(g, c);
        remove_context(m, c);
        release_group_if_empty(m, g);
}

/* The thread is gone; its counters keep their final values, which its group keeps. */
void manager_context_died(Manager *m, Context *c) {
        Group *g = c->group;

        if (c->backend == &counter_backend_bpf)
                counter_bpf_settle(c->counters);        /* its last slice, after its exit record */
        if (g) {
                int r = group_member_died(g, c);
                if (r < 0) {
                        log_warning_errno(r, "Final counts of thread %d lost from group %u: %m",
                                          (int) c->tid, g->id);
                        group_member_left(g, c);
                }
        }
        remove_context(m, c);
        release_group_if_empty(m, g);
}

int manager_on_thread_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Context *c = userdata;

        (void) s, (void) fd, (void) revents;
        log_debug("Thread %d of pid %d exited, context released.", (int) c->tid, (int) c->pid);
        if (c->group)
                manager_flush_comm(c->manager); /* its last name, for its group's record */
        manager_context_died(c->manager, c);
        return 0;
}

/* A context whose thread has exited but whose exit event is not yet handled must not be found by a
 * new thread that got the same tid. */
Context *manager_lookup(Manager *m, pid_t tid) {
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (c && !context_thread_alive(c)) {
                manager_context_died(m, c);
                return NULL;
        }
        return c;
}

/* Thread exits come from the fork watch's EXIT records: contexts keep no fd for their thread. */
bool manager_exits_from_watch(const Manager *m) {
        return m->event && m->fork_watch;
}

/* Whether a context keeps its thread's pin: where exits do not come from the watch, the pin tells
 * them; and a /proc pin is kept even then, since its identity without the pin (a start time in
 * 10 ms ticks, thread-pin.h) would not tell a thread from one given the same tid in the same tick. */
bool manager_keeps_pin(const Manager *m) {
        return !manager_exits_from_watch(m) || !thread_pins_poll();
}

const char *manager_miss_reason(int error) {
        switch (error) {
        case -EDQUOT:
                return "the user it counts against is at its limit of contexts (MaxContextsPerUser)";
        case -ENFILE:
                return "pmapid is at its limit of contexts (MaxContexts, less root's reserve) or out of file "
                       "descriptors";
        case -ENODEV:
                return "the kernel refused its counters";
        case -ESRCH:
                return "it exited before it could be attached";
        case -EPERM:
        case -EACCES:
                return "its owner may no longer count it (perf_event_paranoid)";
        default:
                return strerror(-error);
        }
}

void manager_group_missed(Manager *m, Group *g, pid_t pid, pid_t tid, int pidfd, int error) {
        if (!missed_add(m->missed, pid, tid, pidfd, g->id, error))
                return;                 /* the same thread, tried again */
        if (group_missed(g, error))
                log_warning("Group %u (pid %d, uid %u): thread %d could not join it: %s. The group no longer "
                            "counts all its threads, and says so (further misses are counted, not logged).",
                            g->id, (int) g->pid, (unsigned) g->owner_uid, (int) tid, manager_miss_reason(error));
}

void manager_group_released(Manager *m, Group *g) {
        missed_forget_group(m->missed, g->id);
        if (g->n_missed > 0)
                log_info("Group %u (pid %d, uid %u) released: %u threads that should have joined it were not "
                         "counted (the first: %s).", g->id, (int) g->pid, (unsigned) g->owner_uid, g->n_missed,
                         manager_miss_reason(g->missed_error));
}

void manager_thread_exited(pid_t pid, pid_t tid, uint64_t time_ns, void *userdata) {
        Manager *m = userdata;
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        missed_forget_tid(m->missed, pid, tid);
        handed_ledger_thread_exited(m->handed, tid);
        /* A context whose pin polls hears of the exit from it (a /proc pin does not: thread-pin.h). */
        if (!c || c->pid != pid || (c->pidfd >= 0 && thread_pins_poll()))
                return;
        /* An exit older than the context is that of an earlier thread with this tid, or of this
         * one, written as it began to exit while it was being attached: its pin tells which. */
        if (time_ns < c->attached_ns) {
                (void) manager_lookup(m, tid);
                return;
        }
        log_debug("Thread %d of pid %d exited, context released.", (int) tid, (int) pid);
        manager_context_died(m, c);
}

size_t manager_sweep_dead(Manager *m) {
        GHashTableIter it;
        gpointer value;
        GPtrArray *dead = g_ptr_array_new();
        size_t n;

        uint64_t now = now_monotonic_ns();

        g_hash_table_iter_init(&it, m->threads);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Context *c = value;
                if (!context_thread_alive(c))
                        g_ptr_array_add(dead, c);
                /* One attached a moment ago may still be in its exit: a second look later. */
                else if (m->recheck && now - c->attached_ns < 1000000000ull && thread_exiting(c->pid, c->tid))
                        (void) exit_recheck_add(m->recheck, c->tid, c->attached_ns);
        }
        for (guint i = 0; i < dead->len; i++)
                manager_context_died(m, g_ptr_array_index(dead, i));
        n = dead->len;
        g_ptr_array_free(dead, TRUE);
        return n;
}

bool manager_recheck_exit(pid_t tid, uint64_t attached_ns, void *userdata) {
        Manager *m = userdata;
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (!c || c->attached_ns != attached_ns)
                return false;           /* gone already, or another thread's context now */
        if (context_thread_alive(c))
                return thread_exiting(c->pid, tid);     /* its exit record may be read already */
        log_debug("Thread %d of pid %d exited as it was attached, context released.", (int) tid, (int) c->pid);
        manager_context_died(m, c);
        return false;
}

int manager_adopt(Manager *m, Context *c) {
        int r;

        /* A /proc pin does not poll (thread-pin.h): then the fork watch, which such a kernel needs,
         * tells the exit. */
        if (m->event && c->pidfd >= 0 && thread_pins_poll()) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, manager_on_thread_exit, c);
                if (r < 0)
                        return r;
        }
        c->manager = m;
        g_hash_table_insert(m->threads, GINT_TO_POINTER(c->tid), c);
        manager_uid_count_add(m, manager_charged_uid(c->owner_uid, c->target_uid, c->origin), +1);
        m->fds_used += manager_context_fds(c);
        manager_update_fork_watch(m);
        return 0;
}

/* The thread's euid for the admin's view: the caller's own for a first-party call. */
