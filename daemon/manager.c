/* manager.c: the table of live contexts and the rules that span contexts: one context per thread,
 * contexts only on the caller's own threads, per-user limits, and release at thread exit. A member
 * that exits leaves its final counts in its group; a member whose context is deleted takes its data
 * out. A group lives while it has live members or until it is deleted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "log.h"
#include "macro.h"
#include "manager.h"

static void context_destroy(gpointer p) {
        context_free(p);
}

static void group_destroy(gpointer p) {
        group_free(p);
}

int manager_new(sd_event *event, const CounterBackend *backend, EventTable *events, Manager **ret) {
        Manager *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(event);
        m->backend = backend;
        m->events = events;
        m->max_contexts_per_uid = MANAGER_DEFAULT_MAX_CONTEXTS_PER_UID;
        m->next_group_id = 1;
        m->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, context_destroy);
        m->groups = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, group_destroy);
        m->contexts_per_uid = g_hash_table_new(g_direct_hash, g_direct_equal);
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        fork_watch_free(m->fork_watch);
        g_hash_table_destroy(m->groups);        /* groups first: they point at live contexts */
        g_hash_table_destroy(m->threads);
        g_hash_table_destroy(m->contexts_per_uid);
        caller_cache_free(m->callers);
        event_table_free(m->events);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

size_t manager_n_contexts(Manager *m) {
        return g_hash_table_size(m->threads);
}

/* Fork records cost the daemon a wakeup per new task on the machine: only while anyone counts. */
static void update_fork_watch(Manager *m) {
        if (m->fork_watch)
                (void) fork_watch_set_enabled(m->fork_watch, manager_n_contexts(m) > 0);
}

static unsigned uid_count(Manager *m, uid_t uid) {
        return GPOINTER_TO_UINT(g_hash_table_lookup(m->contexts_per_uid, GUINT_TO_POINTER(uid)));
}

static void uid_count_add(Manager *m, uid_t uid, int delta) {
        unsigned n = uid_count(m, uid) + delta;

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
                g_hash_table_remove(m->groups, GUINT_TO_POINTER(g->id));
        }
}

static void remove_context(Manager *m, Context *c) {
        uid_count_add(m, c->owner_uid, -1);
        g_hash_table_remove(m->threads, GINT_TO_POINTER(c->tid));
        update_fork_watch(m);
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
static void context_died(Manager *m, Context *c) {
        Group *g = c->group;

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

static int on_thread_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Context *c = userdata;

        (void) s, (void) fd, (void) revents;
        log_debug("Thread %d of pid %d exited, context released.", (int) c->tid, (int) c->pid);
        context_died(c->manager, c);
        return 0;
}

/* A context whose thread has exited but whose exit event is not yet handled must not be found by a
 * new thread that got the same tid. */
Context *manager_lookup(Manager *m, pid_t tid) {
        Context *c = g_hash_table_lookup(m->threads, GINT_TO_POINTER(tid));

        if (c && c->pidfd >= 0 && !thread_pin_alive(c->pidfd)) {
                context_died(m, c);
                return NULL;
        }
        return c;
}

int manager_get_thread(Manager *m, const Caller *caller, pid_t pid, pid_t tid, Context **ret) {
        _cleanup_close_ int pidfd = -1;
        Context *c;
        int r;

        if (pid != caller->pid)
                return -ESRCH;          /* first party only: another process's threads are not found */
        c = manager_lookup(m, tid);
        if (c && c->pid == pid) {
                *ret = c;
                return 0;
        }
        r = thread_pin(pid, tid, &pidfd);
        return r < 0 ? r : -ENODATA;
}

int manager_counting_verdict(const Manager *m, uid_t uid, const Program *program) {
        bool kernel = program_counts_kernel(program);
        bool owner_ok = program_owner_may_count_kernel(program, m->events);

        switch (caller_may_count(uid, perf_event_paranoid(), kernel, owner_ok)) {
        case COUNT_ALLOWED:
                return 0;
        case COUNT_KERNEL_DENIED:
                return -EACCES;
        default:
                return -EPERM;
        }
}

int manager_attach(Manager *m, uid_t owner_uid, pid_t pid, pid_t tid, int pidfd, const Program *program,
                   Group *g, bool counting, Context **ret) {
        Program initial = *program;
        Context *c = NULL;
        int r;

        if (uid_count(m, owner_uid) >= m->max_contexts_per_uid)
                return -EDQUOT;

        /* Opened stopped, joined, then switched on: never counts while the group state says off. */
        initial.mode &= ~(uint32_t) PM_COUNT;
        r = context_new(m->backend, m->events, pid, tid, owner_uid, &initial, pidfd, &c);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return log_debug_errno(-ENODEV, "Opening counters on thread %d failed: %s", (int) tid,
                                       strerror(-r));
        c->manager = m;
        c->program.mode = program->mode;
        if (g) {
                r = group_add(g, c);
                if (r < 0)
                        goto fail;
        }
        if (counting) {
                r = context_start(c);
                if (r < 0)
                        goto fail;
        }
        /* The tid may have changed hands while the counters were opened. */
        if (!thread_pin_alive(c->pidfd)) {
                r = -ESRCH;
                goto fail;
        }
        if (m->event) {
                r = sd_event_add_io(m->event, &c->exit_source, c->pidfd, EPOLLIN, on_thread_exit, c);
                if (r < 0)
                        goto fail;
        }

        /* No failure after this point. */
        g_hash_table_insert(m->threads, GINT_TO_POINTER(tid), c);
        uid_count_add(m, owner_uid, +1);
        update_fork_watch(m);
        if (ret)
                *ret = c;
        return 0;
fail:
        if (c->group)
                group_member_left(c->group, c);
        c->pidfd = -1;                  /* still the caller's on failure */
        context_free(c);
        return r;
}

int manager_set_program(Manager *m, const Caller *caller, pid_t pid, pid_t tid, const Program *program) {
        _cleanup_close_ int pidfd = -1;
        int r;

        if (pid != caller->pid)
                return -ESRCH;
        r = thread_pin(pid, tid, &pidfd);
        if (r < 0)
                return r;
        if (manager_lookup(m, tid))
                return -EEXIST;
        r = manager_counting_verdict(m, caller->euid, program);
        if (r < 0)
                return r;
        r = manager_attach(m, caller->euid, pid, tid, pidfd, program, NULL,
                           program_counts_on_start(program), NULL);
        if (r < 0)
                return r;
        TAKE_FD(pidfd);
        log_info("Context created on thread %d of pid %d for uid %u (mode 0x%x).", (int) tid, (int) pid,
                 (unsigned) caller->euid, (unsigned) program->mode);
        return 0;
}
